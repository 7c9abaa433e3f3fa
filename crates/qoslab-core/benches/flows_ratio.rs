//! The flows-scaling ratio, measured tightly: the cost of a hop at 1000 flows over its cost
//! at one flow. `qoslab bench` times each case's repeats one after the other, so a slow
//! stretch of the machine falls on one case and the ratio of one invocation moves by a few
//! per cent. Here the cases are built and run in turn, `ROUNDS` times each in one process,
//! each run's event loop timed alone; the ratio of two medians repeats within about 1 % from
//! one invocation to the next (see benches/README.md, rounds 7 and 8).
//!
//! A third case separates what the ratio holds. `flows-1000` draws each flow's start at
//! random within its period, so its packets reach the bottleneck at irregular instants,
//! where `flows-1`'s come like clockwork; `flows-1000-spread` is the same thousand flows
//! started one 1000th of the period apart, so that together they emit exactly as the one
//! flow does (one packet every 0.8 ms). Against `flows-1` it costs what the flows add alone;
//! `flows-1000` against it, what the irregular arrivals add.
//!
//! `cargo bench -p qoslab-core --bench flows_ratio`; pin it to one core (`taskset -c 1`) to
//! keep the scheduler out of it.

use qoslab_core::{bench_cases, load, Override};
use std::time::Instant;

/// Runs of each case.
const ROUNDS: usize = 40;

/// The cases compared: one flow, a thousand sharing the same load with random phases, and
/// the thousand with their phases spread evenly.
const CASES: [&str; 3] = ["flows-1", "flows-1000", "flows-1000-spread"];

/// Flows of the spread case.
const SPREAD_FLOWS: u64 = 1000;
/// Their common period: 1500-byte packets at 15 kbit/s, ns.
const SPREAD_PERIOD_NS: u64 = 800_000_000;

/// The flows scenario with `SPREAD_FLOWS` floods of 15 kbit/s, flow k starting at k
/// 1000ths of their period.
fn spread_scenario(flows_scenario: &str) -> String {
    let (topology, _) = flows_scenario.split_once("\ntraffic:").expect("the flows scenario has traffic");
    let mut text = format!("{topology}\ntraffic:\n");
    for k in 0..SPREAD_FLOWS {
        let start_ns = k * SPREAD_PERIOD_NS / SPREAD_FLOWS;
        text += &format!(
            "  - {{name: f{k}, from: senders, to: receivers, start: {start_ns}ns, \
             pattern: {{kind: flood, rate: 15kbps}}}}\n"
        );
    }
    text
}

/// Builds the case `name`, runs its event loop and returns the loop's wall time (s) and the
/// packet-hops it made.
fn run_once(name: &str) -> (f64, u64) {
    let bench_case = |case: &str| bench_cases().into_iter().find(|c| c.name == case).expect("a bench case");
    let mut sim = if name == "flows-1000-spread" {
        load(&spread_scenario(&bench_case("flows-1").scenario), name, &[], None).expect("scenario loads")
    } else {
        let case = bench_case(name);
        let changes: Vec<Override> =
            case.overrides.iter().map(|t| Override::parse(t).expect("valid override")).collect();
        load(&case.scenario, name, &changes, None).expect("scenario loads")
    };
    let end_ns = sim.end_ns();
    let started = Instant::now();
    sim.advance(end_ns);
    let loop_s = started.elapsed().as_secs_f64();
    (loop_s, sim.finish().expect("run").run.packet_hops)
}

/// The middle of `values` (the upper middle of an even count).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let mut ns_per_hop: [Vec<f64>; 3] = Default::default();
    let mut hops = [0; 3];
    for _ in 0..ROUNDS {
        for (k, name) in CASES.iter().enumerate() {
            let (loop_s, case_hops) = run_once(name);
            ns_per_hop[k].push(loop_s * 1e9 / case_hops as f64);
            hops[k] = case_hops;
        }
    }
    // The spread case stands for the one flow's arrivals only while it makes its hops.
    assert_eq!(
        hops[2], hops[0],
        "flows-1000-spread should make the hops of flows-1: has flows.yaml's load or packet size \
         changed? SPREAD_PERIOD_NS is the period of one of its 1000 flows"
    );
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let bests = ns_per_hop.each_ref().map(|v| best(v));
    let medians = ns_per_hop.map(median);
    println!("ns/hop, best / median of {ROUNDS} runs each, alternating:");
    for k in 0..CASES.len() {
        println!("  {:<17} {:6.2} / {:6.2}   ({} hops)", CASES[k], bests[k], medians[k], hops[k]);
    }
    let ratio = |many: usize, few: usize| (medians[many] / medians[few], bests[many] / bests[few]);
    for (many, few, what) in [
        (1, 0, "a hop at 1000 flows costs, against one at one flow,"),
        (2, 0, "with the same arrivals (phases spread), 1000 flows against one:"),
        (1, 2, "the random phases' irregular arrivals, 1000 flows against 1000 spread:"),
    ] {
        let (of_medians, of_bests) = ratio(many, few);
        println!("{what} {of_medians:.3} times ({of_bests:.3} from the best runs)");
    }
}
