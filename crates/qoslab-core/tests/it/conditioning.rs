//! Interface input policies: policing holds a class to its committed rate and its drops are
//! counted where they happen; re-marking at a trust boundary changes downstream queuing.

use crate::common::{flow, run_yaml};
use qoslab_core::Results;

/// A host sending through router `r1` to `rx`; `input` is r1's input policy on the
/// interface towards `tx`.
fn edge(input: &str, flows: &str) -> String {
    format!(
        "name: edge
run: {{duration: 20s, warmup: 1s}}
topology:
  nodes: {{tx: {{kind: host}}, r1: {{kind: router}}, rx: {{kind: host}}}}
  links:
    - {{between: [tx, r1], rate: 10Mbps, l2: none}}
    - {{between: [r1, rx], rate: 10Mbps, l2: none}}
interfaces:
  r1:
    tx: {{input: {input}}}
traffic:
{flows}"
    )
}

fn port<'a>(results: &'a Results, name: &str) -> &'a qoslab_core::results::PortRecord {
    results.ports.iter().find(|p| p.port == name).unwrap_or_else(|| panic!("no port {name}"))
}

/// 1.6 Mbit/s of EF policed at 800 kbit/s on input: what gets through is the CIR within
/// 1 %, and every policer drop is counted on the input interface and on the flow.
#[test]
fn input_policer_holds_ef_to_its_cir() {
    let yaml = edge(
        "{classes: [{name: premium, match: {dscp: EF}, police: {cir: 800kbps, bc: 4470B}}]}",
        "  - {name: ef, from: tx, to: rx, dscp: EF, pattern: {kind: cbr, rate_pps: 1000, size: 200B}}
  - {name: be, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 1000, size: 200B}}\n",
    );
    let results = run_yaml(&yaml, &[]);
    let ef = flow(&results, "ef");
    assert!((ef.delivered_l3_bps - 800_000.0).abs() / 800_000.0 < 0.01, "{}", ef.delivered_l3_bps);
    assert!(ef.dropped_packets > 9_000, "{}", ef.dropped_packets);
    assert_eq!(ef.dropped_by_reason["dropped_policer_exceed_packets"], ef.dropped_packets);
    assert_eq!(ef.sent_packets, ef.received_packets + ef.dropped_packets + ef.in_flight_packets);
    // The input interface of r1 from tx is the port r1->tx.
    let input = port(&results, "r1->tx");
    assert_eq!(input.input_dropped_packets, ef.dropped_packets);
    assert_eq!(input.input_dropped_policer_exceed_packets, ef.dropped_packets);
    assert_eq!(input.input_dropped_policer_violate_packets, 0);
    assert_eq!(input.input_remarked_packets, 0);
    // The queues downstream never saw the dropped packets; best effort is untouched.
    assert_eq!(port(&results, "r1->rx").dropped_packets, 0);
    assert_eq!(flow(&results, "be").dropped_packets, 0);
    assert_eq!(port(&results, "tx->r1").input_dropped_packets, 0);
    // 1.6 − 0.8 Mbit/s of 200-byte packets for 20 s: 10 000 drops exactly.
    assert_eq!(input.input_dropped_packets, 10_000);
}

/// A three-colour policer re-marks the excess and drops the violation; re-marked packets
/// are counted.
#[test]
fn three_colour_policer_remarks_and_drops() {
    let yaml = edge(
        "{classes: [{match: {dscp: AF11}, police: {cir: 400kbps, pir: 800kbps, exceed_action: set-dscp-transmit AF12, violate_action: drop}}]}",
        "  - {name: af, from: tx, to: rx, dscp: AF11, pattern: {kind: cbr, rate_pps: 1000, size: 200B}}\n",
    );
    let results = run_yaml(&yaml, &[]);
    let af = flow(&results, "af");
    // 1.6 Mbit/s offered: the peak rate (800 kbit/s) gets through, half of it re-marked.
    assert!((af.delivered_l3_bps - 800_000.0).abs() / 800_000.0 < 0.01, "{}", af.delivered_l3_bps);
    let input = port(&results, "r1->tx");
    assert_eq!(input.input_dropped_policer_violate_packets, af.dropped_packets);
    let remarked_share = input.input_remarked_packets as f64 / af.received_packets as f64;
    assert!((remarked_share - 0.5).abs() < 0.01, "{remarked_share}");
}

const EXAMPLE: &str = include_str!("../../../../examples/policing-at-the-edge.yaml");

/// Re-marking to 0 at a trust boundary moves EF voice from PQ's high band into the normal
/// band with the flood: it was loss-free and fast, it becomes lossy and slow.
#[test]
fn remarking_at_the_trust_boundary_changes_downstream_queuing() {
    let remarked = run_yaml(EXAMPLE, &[]);
    let trusted = run_yaml(EXAMPLE, &["interfaces.bar2.phone-c.input={classes: []}"]);
    let (before, after) = (flow(&trusted, "voice-c"), flow(&remarked, "voice-c"));
    assert_eq!(before.dropped_packets, 0);
    assert!(before.delay_max_ms.unwrap() < 40.0, "{:?}", before.delay_max_ms);
    assert!(after.loss_pct.unwrap() > 10.0, "{:?}", after.loss_pct);
    assert!(after.delay_mean_ms.unwrap() > 100.0, "{:?}", after.delay_mean_ms);
    // Every voice-c packet in the window was re-marked at bar2 (none were 0 already).
    let boundary = port(&remarked, "bar2->phone-c");
    assert!(boundary.input_remarked_packets >= after.sent_packets, "{}", boundary.input_remarked_packets);
    assert_eq!(port(&trusted, "bar2->phone-c").input_remarked_packets, 0);
    // At the participating edge the phone fits its contract and the videoconference is held
    // to its 512 kbit/s as IOS counts it, the 14-byte Ethernet header with each 1000-byte
    // packet: 512 × 1000 / 1014 = 504.9 kbit/s of IP packets (±1 %).
    let voice_a = flow(&remarked, "voice-a");
    assert_eq!(voice_a.dropped_packets, 0);
    let video_a = flow(&remarked, "video-a");
    let held_bps = 512_000.0 * 1000.0 / 1014.0;
    assert!((video_a.delivered_l3_bps - held_bps).abs() / held_bps < 0.01, "{}", video_a.delivered_l3_bps);
    assert_eq!(port(&remarked, "bar1->vc-a").input_dropped_packets, video_a.dropped_packets);
}
