//! Random start phases of periodic sources, and the count of random draws a run reports:
//! periodic traffic alone draws nothing and gives identical replications; with
//! `phase: random` each periodic flow makes exactly one draw, the first packet leaves at the
//! hand-computed offset, and the replications differ; Poisson sources, link loss and RED
//! droppers are counted draw by draw.

use crate::common::{flow, run_yaml, two_hosts};
use qoslab_core::Results;
use qoslab_core::Rng;

const MS: u64 = 1_000_000;

/// Voice (two G.729 calls), CBR, constant-size video and SAA probes with an endless FTP
/// transfer through a 512 kbit/s bottleneck, with `run_extra` in the run mapping.
fn periodic_mix(run_extra: &str) -> String {
    format!(
        "name: periodic
run: {{duration: 10s, warmup: 1s{run_extra}}}
topology:
  nodes: {{a: {{kind: host}}, r: {{kind: router}}, b: {{kind: host}}}}
  links:
    - {{between: [a, r], rate: 10Mbps}}
    - {{between: [r, b], rate: 512kbps, l2: ppp}}
traffic:
  - {{name: voice, copies: 2, from: a, to: b, pattern: {{kind: codec, codec: g729}}}}
  - {{name: cbr, from: a, to: b, pattern: {{kind: cbr, rate_pps: 50, size: 200B}}}}
  - {{name: video, from: a, to: b, pattern: {{kind: video, fps: 25, rate: 200kbps}}}}
  - {{name: saa, from: a, to: b, echo: true, pattern: {{kind: probe, count: 10, every: 1s}}}}
  - {{name: ftp, from: a, to: b, app: {{kind: bulk}}}}
"
    )
}

/// The results as JSON without what names the replication: its number, the override that
/// chose it and the scenario hash, which covers the replication.
fn without_replication(results: &Results) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_str(&results.to_json()).unwrap();
    let run = value["run"].as_object_mut().unwrap();
    for key in ["replication", "overrides", "scenario_sha256"] {
        run.remove(key);
    }
    value
}

#[test]
fn periodic_traffic_draws_nothing_and_replications_are_identical() {
    let text = periodic_mix("");
    let first = run_yaml(&text, &[]);
    assert_eq!(first.run.random_draws, 0);
    assert!(flow(&first, "voice.1").received_packets > 400);
    for replication in ["run.replication=1", "run.replication=2"] {
        let other = run_yaml(&text, &[replication]);
        assert_eq!(other.run.random_draws, 0);
        assert_eq!(without_replication(&first), without_replication(&other), "{replication}");
    }
}

#[test]
fn a_random_phase_makes_replications_differ() {
    let text = periodic_mix(", phase: random");
    let first = run_yaml(&text, &[]);
    // One draw for each of the two voice copies, the CBR, the video and the probes; the
    // endless bulk transfer draws nothing.
    assert_eq!(first.run.random_draws, 5);
    let second = run_yaml(&text, &["run.replication=1"]);
    assert_eq!(second.run.random_draws, 5);
    assert_ne!(without_replication(&first), without_replication(&second));
    // The voice calls now meet the other flows at other moments of their periods.
    let delays = |r: &Results| (flow(r, "voice.1").delay_mean_ms, flow(r, "voice.2").delay_mean_ms);
    assert_ne!(delays(&first), delays(&second));
    // The two copies have streams of their own, so they no longer leave together.
    assert_ne!(delays(&first).0, delays(&first).1);
}

#[test]
fn same_seed_and_replication_with_a_random_phase_give_identical_json() {
    let text = periodic_mix(", phase: random, seed: 7, replication: 3");
    assert_eq!(run_yaml(&text, &[]).to_json(), run_yaml(&text, &[]).to_json());
}

#[test]
fn a_flow_can_opt_out_of_the_run_phase() {
    let flows = "  - {name: voice, from: tx, to: rx, phase: none, pattern: {kind: codec, codec: g729}}\n";
    let text = two_hosts("duration: 1s, phase: random", "rate: 1Mbps", "{kind: fifo}", flows);
    let results = run_yaml(&text, &[]);
    assert_eq!(results.run.random_draws, 0);
    // 20 ms packets from 0 s: 50 in one second.
    assert_eq!(results.run.created_packets, 50);
}

/// Packets `flow_yaml` creates before `end_ns`, run with `seed`.
fn created_before(flow_yaml: &str, seed: u64, end_ns: u64) -> (u64, u64) {
    let flows = format!("  - {flow_yaml}\n");
    let text =
        two_hosts(&format!("duration: {end_ns}ns, seed: {seed}"), "rate: 10Mbps", "{kind: fifo}", &flows);
    let results = run_yaml(&text, &[]);
    (results.run.created_packets, results.run.random_draws)
}

/// The first packet of `flow_yaml` (a flow called `x` starting at 1 s with `phase: random`)
/// leaves at 1 s plus the first uniform draw in [0, period) of the flow's stream, computed
/// here by hand: a run that ends at that instant has created nothing, one that ends a
/// nanosecond later has created exactly that packet. Either way the run made one draw.
/// Returns the offsets, ns.
fn check_first_packets(flow_yaml: &str, period_ns: u64, seeds: std::ops::Range<u64>) -> Vec<u64> {
    seeds
        .map(|seed| {
            let offset_ns = Rng::for_stream(seed, 0, "x").uniform_u64(0, period_ns - 1);
            let first_ns = 1_000 * MS + offset_ns;
            assert_eq!(created_before(flow_yaml, seed, first_ns), (0, 1), "seed {seed}");
            assert_eq!(created_before(flow_yaml, seed, first_ns + 1), (1, 1), "seed {seed}");
            offset_ns
        })
        .collect()
}

#[test]
fn the_first_packet_leaves_at_the_drawn_offset() {
    let start = "name: x, from: tx, to: rx, start: 1s, phase: random";
    // A codec's period is its packetization interval. Over 200 seeds the offsets spread
    // over [0, 20 ms): the smallest is below 1 ms and the largest above 19 ms except with
    // probability (19/20)^200 ≈ 4·10⁻⁵ each, and their mean is within 2 ms of 10 ms (the
    // mean's standard deviation is 20 ms / √12 / √200 ≈ 0.41 ms: 2 ms is about 5 of them).
    let offsets_ns =
        check_first_packets(&format!("{{{start}, pattern: {{kind: codec, codec: g711}}}}"), 20 * MS, 0..200);
    let min = *offsets_ns.iter().min().unwrap();
    let max = *offsets_ns.iter().max().unwrap();
    assert!(min < MS && max > 19 * MS && max < 20 * MS, "{min} {max}");
    let mean_ms = offsets_ns.iter().sum::<u64>() as f64 / offsets_ns.len() as f64 / MS as f64;
    assert!((mean_ms - 10.0).abs() < 2.0, "{mean_ms}");
    // CBR: the packet interval (1500 B at 1 Mbit/s: 12 ms).
    check_first_packets(
        &format!("{{{start}, pattern: {{kind: cbr, rate: 1Mbps, size: 1500B}}}}"),
        12 * MS,
        1..10,
    );
    // Video: the frame interval (25 frames/s: 40 ms).
    check_first_packets(
        &format!("{{{start}, pattern: {{kind: video, fps: 25, rate: 100kbps}}}}"),
        40 * MS,
        1..10,
    );
    // Probes: the time between probe starts.
    check_first_packets(
        &format!("{{{start}, pattern: {{kind: probe, count: 5, every: 2s}}}}"),
        2_000 * MS,
        1..10,
    );
    // Constant ON and OFF periods around a clock: ON + OFF.
    check_first_packets(
        &format!(
            "{{{start}, pattern: {{kind: onoff, on: 300ms, off: 700ms, \
             during_on: {{kind: codec, codec: g729}}}}}}"
        ),
        1_000 * MS,
        1..10,
    );
}

/// A Poisson source leaves its first packet at its start without drawing, then draws one
/// exponential gap after each packet — the last one falling past the end of the run — so
/// it draws exactly as many numbers as it created packets.
#[test]
fn poisson_draws_one_gap_per_packet() {
    let flows = "  - {name: web, from: tx, to: rx, pattern: {kind: poisson, rate_pps: 200, size: 200B}}\n";
    let results = run_yaml(&two_hosts("duration: 5s, seed: 4", "rate: 10Mbps", "{kind: fifo}", flows), &[]);
    assert!(results.run.created_packets > 900);
    assert_eq!(results.run.random_draws, results.run.created_packets);
}

/// A lossy link draws one number per frame it carries (1 % Bernoulli loss), and only the
/// direction that carries frames draws.
#[test]
fn link_loss_draws_once_per_frame() {
    let flows = "  - {name: cbr, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 100, size: 200B}}\n";
    let results = run_yaml(&two_hosts("duration: 5s", "rate: 10Mbps, loss: 1%", "{kind: fifo}", flows), &[]);
    assert_eq!(results.run.packet_hops, 500);
    assert_eq!(results.run.random_draws, results.run.packet_hops);
}

/// A RED dropper draws once per arrival in its random region: at least once per early
/// drop. A dropper whose queue never reaches the minimum threshold draws nothing, though
/// its stream was seeded from the port's.
#[test]
fn red_draws_only_in_its_random_region() {
    let policy =
        "{kind: fifo, limit: 200, random_detect: {based_on: none, min: 5, max: 60, denominator: 10}}";
    let overload = "  - {name: cbr, from: tx, to: rx, pattern: {kind: cbr, rate: 1.2Mbps, size: 500B}}\n";
    let results = run_yaml(&two_hosts("duration: 20s", "rate: 1Mbps, l2: none", policy, overload), &[]);
    let early = flow(&results, "cbr").dropped_by_reason["dropped_red_early_packets"].as_u64().unwrap();
    assert!(early > 0);
    assert!(results.run.random_draws >= early, "{} draws, {early} early drops", results.run.random_draws);
    let light = "  - {name: cbr, from: tx, to: rx, pattern: {kind: cbr, rate: 100kbps, size: 500B}}\n";
    let results = run_yaml(&two_hosts("duration: 20s", "rate: 1Mbps, l2: none", policy, light), &[]);
    assert_eq!(results.run.random_draws, 0);
}
