//! Flow-based WFQ against its fair-share results.

use crate::common::{flow, run_yaml, two_hosts};

/// Two hosts over one 1 Mbit/s link (no framing) with WFQ on the sender, ring of 1.
fn wfq_link(policy: &str, flows: &str) -> qoslab_core::Results {
    let run = "duration: 300s, warmup: 10s, seed: 5";
    run_yaml(&two_hosts(run, "rate: 1Mbps, l2: none, tx_ring: 1", policy, flows), &[])
}

fn share(results: &qoslab_core::Results, name: &str) -> f64 {
    flow(results, name).delivered_l3_bps / 1e6
}

/// Precedence 5 against precedence 0, both saturating: weights 32384/6 and 32384/1 (or
/// 4096/6 = 682 and 4096 in integers — the LMR VoIP thesis' Table 4-5 rounds to 683 —, as in the LMR VoIP thesis' Table 4-5), so the shares are 6/7 and
/// 1/7: 85.7 % and 14.3 %. Tolerance 1 percentage point.
#[test]
fn precedence_5_gets_six_times_precedence_0() {
    for policy in ["{kind: wfq}", "{kind: wfq, legacy_weights: true}"] {
        let results = wfq_link(
            policy,
            "  - {name: p5, from: tx, to: rx, dscp: CS5, dst_port: 6000, pattern: {kind: flood, rate: 150%}}
  - {name: p0, from: tx, to: rx, dst_port: 7000, pattern: {kind: flood, rate: 150%}}
",
        );
        assert!((share(&results, "p5") - 6.0 / 7.0).abs() < 0.01, "{policy}: {}", share(&results, "p5"));
        assert!((share(&results, "p0") - 1.0 / 7.0).abs() < 0.01, "{policy}: {}", share(&results, "p0"));
    }
}

/// Four equal saturating flows of different packet sizes share the link equally in bits.
/// Tolerance 1 percentage point each.
#[test]
fn equal_flows_share_equally() {
    let flows: String = [(1, 1500), (2, 1000), (3, 576), (4, 200)]
        .iter()
        .map(|(i, size)| {
            format!("  - {{name: f{i}, from: tx, to: rx, dst_port: {}, pattern: {{kind: flood, rate: 100%, size: {size}B}}}}\n", 6000 + i)
        })
        .collect();
    let results = wfq_link("{kind: wfq}", &flows);
    for i in 1..=4 {
        let s = share(&results, &format!("f{i}"));
        assert!((s - 0.25).abs() < 0.01, "f{i}: {s}");
    }
}

/// A low-rate flow beside a flood waits at most for the rest of the frame on the wire: its
/// packet's SN (round number + weight × 200 B) is below the flood's next one. Bound with a
/// ring of 1: one 1500-byte frame (12 ms) + its own 200 bytes (1.6 ms).
#[test]
fn a_light_flow_is_not_delayed_by_a_flood() {
    let results = wfq_link(
        "{kind: wfq}",
        "  - {name: light, from: tx, to: rx, dst_port: 6000, pattern: {kind: cbr, rate_pps: 20, size: 200B}}
  - {name: flood, from: tx, to: rx, dst_port: 7000, pattern: {kind: flood, rate: 150%}}
",
    );
    let light = flow(&results, "light");
    assert_eq!(light.dropped_packets, 0);
    assert!(light.delay_max_ms.unwrap() <= 12.0 + 1.6 + 1e-6, "{:?}", light.delay_max_ms);
    assert!(flow(&results, "flood").loss_pct.unwrap() > 30.0);
}

/// Which of 16 dynamic queues a UDP flow with DSCP 0 from `tx` (10.0.0.2) to `rx`
/// (10.0.0.1) lands in, worked out here from the documented hash rather than by the model:
/// 64-bit FNV-1a over the source and destination addresses, the protocol, the ToS byte and
/// the two ports, in network byte order, modulo the number of queues.
fn queue_of(src_port: u16, dst_port: u16) -> u64 {
    let mut key = vec![10, 0, 0, 2, 10, 0, 0, 1, 17, 0];
    key.extend(src_port.to_be_bytes());
    key.extend(dst_port.to_be_bytes());
    let hash =
        key.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3));
    hash & 15
}

/// With 16 dynamic queues, two flows that hash to the same queue are one conversation:
/// against a third flow they get half the link between them, not two thirds.
/// Tolerance 1 percentage point.
#[test]
fn colliding_flows_share_one_conversation() {
    let queue = |dst_port: u16| queue_of(1000, dst_port);
    let (a, b) = (6000..7000)
        .flat_map(|a| (a + 1..7000).map(move |b| (a, b)))
        .find(|&(a, b)| queue(a) == queue(b))
        .expect("16 queues force a collision among 1000 ports");
    let c = (7000..8000).find(|&c| queue(c) != queue(a)).expect("another queue");
    let flows = format!(
        "  - {{name: a, from: tx, to: rx, src_port: 1000, dst_port: {a}, pattern: {{kind: flood, rate: 100%}}}}
  - {{name: b, from: tx, to: rx, src_port: 1000, dst_port: {b}, pattern: {{kind: flood, rate: 100%}}}}
  - {{name: c, from: tx, to: rx, src_port: 1000, dst_port: {c}, pattern: {{kind: flood, rate: 100%}}}}
"
    );
    let results = wfq_link("{kind: wfq, dynamic_queues: 16}", &flows);
    let together = share(&results, "a") + share(&results, "b");
    assert!((together - 0.5).abs() < 0.01, "colliding pair: {together}");
    assert!((share(&results, "c") - 0.5).abs() < 0.01, "c: {}", share(&results, "c"));
}
