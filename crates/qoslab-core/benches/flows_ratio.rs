//! The flows-scaling ratio, measured tightly: the cost of a hop at 1000 flows over its cost
//! at one flow. `qoslab bench` times each case's repeats one after the other, so a slow
//! stretch of the machine falls on one case and the ratio of one invocation moves by a few
//! per cent. Here `flows-1` and `flows-1000` are built and run alternately, `ROUNDS` times
//! each in one process, each run's event loop timed alone; the ratio of the two medians
//! repeats within about 1 % from one invocation to the next (see benches/README.md, round 7).
//!
//! `cargo bench -p qoslab-core --bench flows_ratio`; pin it to one core (`taskset -c 1`) to
//! keep the scheduler out of it.

use qoslab_core::{load, Override, BENCH_CASES};
use std::time::Instant;

/// Runs of each case.
const ROUNDS: usize = 40;

/// The two cases compared: one flow, and a thousand sharing the same load.
const CASES: [&str; 2] = ["flows-1", "flows-1000"];

/// Builds the bench case `name`, runs its event loop and returns the loop's wall time (s)
/// and the packet-hops it made.
fn run_once(name: &str) -> (f64, u64) {
    let (_, scenario, variant) =
        BENCH_CASES.iter().find(|(case, _, _)| *case == name).expect("a bench case of that name");
    let changes: Vec<Override> =
        variant.iter().map(|t| Override::parse(t).expect("valid override")).collect();
    let mut sim = load(scenario, name, &changes, None).expect("scenario loads");
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
    let mut ns_per_hop: [Vec<f64>; 2] = Default::default();
    for _ in 0..ROUNDS {
        for (k, name) in CASES.iter().enumerate() {
            let (loop_s, hops) = run_once(name);
            ns_per_hop[k].push(loop_s * 1e9 / hops as f64);
        }
    }
    let [one, many] = ns_per_hop;
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (one_best, many_best) = (best(&one), best(&many));
    let (one_median, many_median) = (median(one), median(many));
    println!("ns/hop, best / median of {ROUNDS} runs each, alternating:");
    println!("  {:<11} {one_best:6.2} / {one_median:6.2}", CASES[0]);
    println!("  {:<11} {many_best:6.2} / {many_median:6.2}", CASES[1]);
    println!(
        "a hop at 1000 flows costs {:.3} times one at one flow ({:.3} from the best runs)",
        many_median / one_median,
        many_best / one_best
    );
}
