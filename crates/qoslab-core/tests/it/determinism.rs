//! Same scenario and seed → byte-identical results; another seed → different results;
//! adding a flow leaves the random draws of the others unchanged.

use crate::common::{flow, run_yaml};

fn scenario(extra_flow: &str) -> String {
    format!(
        "name: determinism
run: {{duration: 60s, warmup: 1s, seed: 3}}
topology:
  nodes: {{a: {{kind: host}}, r: {{kind: router}}, b: {{kind: host}}}}
  links:
    - {{between: [a, r], rate: 10Mbps}}
    - {{between: [r, b], rate: 512kbps, l2: ppp}}
traffic:
  - {{name: ptt, from: a, to: b, dscp: EF, pattern: {{kind: onoff, on: {{uniform: [1s, 18s]}}, off: {{uniform: [1s, 75s]}}, during_on: {{kind: codec, codec: gsm-fr}}}}}}
  - {{name: web, from: a, to: b, pattern: {{kind: poisson, rate: 400kbps, size: 800B}}}}
{extra_flow}"
    )
}

#[test]
fn same_seed_gives_identical_json() {
    let text = scenario("");
    assert_eq!(run_yaml(&text, &[]).to_json(), run_yaml(&text, &[]).to_json());
}

#[test]
fn another_seed_or_replication_changes_the_results() {
    let text = scenario("");
    let base = run_yaml(&text, &[]).to_json();
    assert_ne!(base, run_yaml(&text, &["run.seed=4"]).to_json());
    assert_ne!(base, run_yaml(&text, &["run.replication=1"]).to_json());
}

#[test]
fn adding_a_flow_keeps_the_others_draws() {
    // The new flow takes another path, so it cannot disturb the first two by queuing;
    // their packets (driven by their own random streams) must be exactly the same.
    let alone = run_yaml(&scenario(""), &[]);
    let text =
        scenario("  - {name: extra, from: b, to: a, pattern: {kind: poisson, rate_pps: 30, size: 200B}}\n");
    let with_extra = run_yaml(&text, &[]);
    for name in ["ptt", "web"] {
        let (x, y) = (flow(&alone, name), flow(&with_extra, name));
        assert_eq!(
            (x.sent_packets, x.received_packets, x.delay_mean_ms),
            (y.sent_packets, y.received_packets, y.delay_mean_ms),
            "{name}"
        );
    }
}

/// Every discipline is deterministic: the congestion-management lab under each of its six
/// schemes gives byte-identical results twice.
#[test]
fn every_discipline_is_deterministic() {
    let lab = include_str!("../../../../examples/congestion-lab.yaml");
    for scheme in ["fifo", "pq", "cq", "wfq", "cbwfq", "llq"] {
        let set = format!("interfaces.r1.r2.output={scheme}");
        let shorter = "run.duration=60s";
        assert_eq!(
            run_yaml(lab, &[&set, shorter]).to_json(),
            run_yaml(lab, &[&set, shorter]).to_json(),
            "{scheme}"
        );
    }
}

/// With many flows the deliveries are counted a few deliveries late (each flow's statistics
/// prefetched meanwhile); with per-interval series they are counted at once. Either way
/// every flow row is the same, to the last digit.
#[test]
fn deferred_counting_of_many_flows_gives_the_same_rows() {
    let many =
        qoslab_core::bench_cases().into_iter().find(|case| case.name == "flows-1000").expect("a bench case");
    let sets = [
        "traffic.floods.copies=300",
        "traffic.floods.pattern.rate=50kbps",
        "run.duration=20s",
        "run.warmup=2s",
    ];
    let deferred = run_yaml(&many.scenario, &sets);
    let at_once = run_yaml(&many.scenario, &[&sets[..], &["measure.series=1s"]].concat());
    assert_eq!(deferred.flows.len(), 300);
    // The link is offered 1.5 times its rate: a third of the packets is dropped. The
    // drop-tail FIFO locks the floods' phases to its drops, so that a few lose every packet.
    let sum =
        |count: fn(&qoslab_core::results::FlowRecord) -> u64| deferred.flows.iter().map(count).sum::<u64>();
    assert!(sum(|f| f.dropped_packets) * 4 > sum(|f| f.sent_packets), "the link is overloaded");
    assert!(deferred.flows.iter().filter(|f| f.received_packets > 0).count() > 250);
    for (d, a) in deferred.flows.iter().zip(&at_once.flows) {
        assert_eq!(format!("{d:?}"), format!("{a:?}"), "flow {}", d.flow);
    }
}

/// Packets created at one instant leave in the order of their flows in the scenario,
/// whatever the order of the first emissions of the flows listed before them: `a` and `b`
/// emit together and `b` always waits behind `a` for the bottleneck, while `late`, listed
/// first, starts after both.
#[test]
fn packets_created_at_one_instant_leave_in_the_flows_order() {
    let text = "name: ties
run: {duration: 10s}
topology:
  nodes: {tx: {kind: host}, rx: {kind: host}}
  links: [{between: [tx, rx], rate: 1Mbps}]
traffic:
  - {name: late, from: tx, to: rx, start: 5ms, pattern: {kind: cbr, rate_pps: 10, size: 125B}}
  - {name: a, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 10, size: 125B}}
  - {name: b, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 10, size: 125B}}
";
    let results = run_yaml(text, &[]);
    let delay_ms = |name: &str| flow(&results, name).delay_mean_ms.expect("packets arrived");
    // 125 bytes and the link's framing at 1 Mbit/s take about a millisecond: `b` waits for
    // `a`'s packet on the wire; `late`'s packets find the link idle.
    assert!(delay_ms("b") > delay_ms("a") + 0.9, "{} vs {}", delay_ms("b"), delay_ms("a"));
    assert!((delay_ms("late") - delay_ms("a")).abs() < 1e-9);
    // By hand: a frame is 125 bytes plus Ethernet's 38 on the wire (the default framing),
    // 163 × 8 bits at 1 Mbit/s = 1.304 ms; `b` leaves when `a`'s frame is through.
    assert!((delay_ms("a") - 1.304).abs() < 1e-9, "{}", delay_ms("a"));
    assert!((delay_ms("b") - 2.608).abs() < 1e-9, "{}", delay_ms("b"));
}
