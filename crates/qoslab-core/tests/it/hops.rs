//! Observed hops: per-hop delays and drops that add up to what the flow experienced end
//! to end.

use crate::common::{flow, run_yaml};
use qoslab_core::results::HopRecord;
use qoslab_core::Results;

/// h1 — r1 — r2 — h2 over 10 Mbit/s (1 ms), 1 Mbit/s (5 ms) and 10 Mbit/s (1 ms) HDLC
/// links, every hop observed; `policy` on r1's output and `flows`.
fn chain(policy: &str, flows: &str, run: &str) -> Results {
    run_yaml(
        &format!(
            "name: chain
run: {{{run}}}
topology:
  nodes: {{h1: {{kind: host}}, r1: {{kind: router}}, r2: {{kind: router}}, h2: {{kind: host}}}}
  links:
    - {{between: [h1, r1], rate: 10Mbps, delay: 1ms, l2: hdlc}}
    - {{between: [r1, r2], rate: 1Mbps, delay: 5ms, l2: hdlc}}
    - {{between: [r2, h2], rate: 10Mbps, delay: 1ms, l2: hdlc}}
interfaces:
  h1: {{r1: {{observe: true}}}}
  r1: {{r2: {{observe: true, output: {policy}}}}}
  r2: {{h2: {{observe: true}}}}
traffic:
{flows}"
        ),
        &[],
    )
}

fn hop<'a>(results: &'a Results, port: &str, flow: &str) -> &'a HopRecord {
    results
        .hops
        .iter()
        .find(|h| h.port == port && h.flow == flow)
        .unwrap_or_else(|| panic!("no {port} {flow}"))
}

const PORTS: [&str; 3] = ["h1->r1", "r1->r2", "r2->h2"];

/// On an idle chain every 200-byte packet (207 bytes framed) takes exactly its serialization
/// and propagation at each hop — 0.1656 + 1, 1.656 + 5 and 0.1656 + 1 ms — and their sum,
/// 8.9872 ms, end to end.
#[test]
fn idle_hops_are_serialization_plus_propagation() {
    let results = chain(
        "{kind: fifo}",
        "  - {name: voice, from: h1, to: h2, pattern: {kind: cbr, rate_pps: 50, size: 200B}}\n",
        "duration: 10s, seed: 1",
    );
    let expected_ms = [0.1656 + 1.0, 1.656 + 5.0, 0.1656 + 1.0];
    for (port, want) in PORTS.iter().zip(expected_ms) {
        let h = hop(&results, port, "voice");
        assert!(
            (h.delay_min_ms.unwrap() - want).abs() < 1e-9 && (h.delay_max_ms.unwrap() - want).abs() < 1e-9
        );
    }
    let voice = flow(&results, "voice");
    let total: f64 = expected_ms.iter().sum();
    assert!(
        (voice.delay_min_ms.unwrap() - total).abs() < 1e-9
            && (voice.delay_max_ms.unwrap() - total).abs() < 1e-9
    );
}

/// Under load — a Poisson flood at 120 % of the middle link, where priority queuing serves
/// EF voice first and drops the flood from its 60-packet normal band — with the sources
/// stopping 10 s before the end so every packet has left: at each hop arrived = departed +
/// dropped; all drops are the middle hop's and match the flow rows; and voice, which loses
/// nothing but queues behind flood frames, has hop delays that add up to its end-to-end
/// delays (sums compared to a nanosecond per packet, as the means are rounded).
#[test]
fn hop_delays_and_drops_add_up_to_the_flows() {
    let results = chain(
        "{kind: prio, preset: ios, classify: [{match: {dscp: EF}, band: high}]}",
        "  - {name: voice, from: h1, to: h2, dscp: EF, stop: 110s, pattern: {kind: cbr, rate_pps: 50, size: 200B}}
  - {name: flood, from: h1, to: h2, stop: 110s, pattern: {kind: poisson, rate: 1.2Mbps, size: 1000B}}
",
        "duration: 120s, seed: 3",
    );
    for name in ["voice", "flood"] {
        let row = flow(&results, name);
        assert_eq!(row.in_flight_packets, 0);
        let mut delay_sum_ms = 0.0;
        for port in PORTS {
            let h = hop(&results, port, name);
            assert_eq!(h.arrived_packets, h.departed_packets + h.dropped_packets, "{port} {name}");
            delay_sum_ms += h.delay_mean_ms.unwrap() * h.departed_packets as f64;
        }
        assert_eq!(hop(&results, "r1->r2", name).dropped_packets, row.dropped_packets);
        assert_eq!(hop(&results, "r2->h2", name).departed_packets, row.received_packets);
        // A dropped packet counts in the delays of the hops it left but not end to end, so
        // the sums agree for a flow without drops.
        if name == "voice" {
            assert_eq!(row.dropped_packets, 0);
            let end_to_end_ms = row.delay_mean_ms.unwrap() * row.received_packets as f64;
            assert!((delay_sum_ms - end_to_end_ms).abs() < 1e-6 * row.received_packets as f64);
            assert!(row.delay_max_ms.unwrap() > 8.9872 + 5.0, "voice queued behind the flood");
        }
    }
    assert!(flow(&results, "flood").dropped_packets > 0);
}
