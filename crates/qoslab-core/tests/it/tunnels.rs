//! Tunnels: overhead, processing delay, the outer header's DSCP, MTU.

use crate::common::{flow, run_yaml};
use qoslab_core::Results;

/// A VPN client behind a 128 kbit/s PPP link (7 B framing) to a server, with 10 Mbit/s
/// Ethernet-less access links (`l2: none`) at both ends: `tunnel` (a `topology.tunnels`
/// entry, or nothing), `output` on r1's serial interface and the traffic list.
fn vpn(tunnel: &str, output: &str, traffic: &str) -> Results {
    run_yaml(
        &format!(
            "name: vpn
run: {{duration: 30s, warmup: 2s, seed: 1}}
topology:
  nodes:
    client: {{kind: host}}
    other: {{kind: host}}
    r1: {{kind: router}}
    r2: {{kind: router}}
    server: {{kind: host}}
  links:
    - {{between: [client, r1], rate: 10Mbps, l2: none}}
    - {{between: [other, r1], rate: 10Mbps, l2: none}}
    - {{between: [r1, r2], rate: 128kbps, l2: ppp, tx_ring: 1}}
    - {{between: [r2, server], rate: 10Mbps, l2: none}}
  tunnels: [{tunnel}]
interfaces:
  r1: {{r2: {{output: {output}}}}}
traffic:
{traffic}"
        ),
        &[],
    )
}

const VOICE_FLOOD: &str =
    "  - {name: voice, from: client, to: server, dscp: EF, pattern: {kind: cbr, rate: 200kbps, size: 60B}}\n";

/// A saturated stream of 60-byte packets gets 128 kbit/s × 60 / frame bytes of IP
/// throughput: frames of 67 B plain, 91 B in GRE (24 B), 107 B in PPTP (40 B) — the
/// throughput drops exactly by the overhead ratio.
#[test]
fn a_saturated_flow_loses_the_overhead_ratio() {
    for (tunnel, frame_bytes) in [
        ("", 67.0),
        ("{between: [client, server], kind: gre}", 91.0),
        ("{between: [client, server], kind: pptp}", 107.0),
    ] {
        let results = vpn(tunnel, "{kind: fifo}", VOICE_FLOOD);
        let delivered = flow(&results, "voice").delivered_l3_bps;
        let expected = 128_000.0 * 60.0 / frame_bytes;
        assert!((delivered / expected - 1.0).abs() < 0.002, "{tunnel}: {delivered} vs {expected}");
    }
}

/// Serialization of `bytes` at `rate_bps`, rounded up to the nanosecond as the links do.
fn serialization_ns(bytes: u64, rate_bps: u64) -> u64 {
    (bytes * 8 * 1_000_000_000).div_ceil(rate_bps)
}

/// On an idle path the tunnel adds the processing delay at each end and the serialization
/// of its 24 bytes on each of the three links inside it.
#[test]
fn a_tunnel_adds_processing_and_serialization() {
    let probe = "  - {name: probe, from: client, to: server, pattern: {kind: cbr, rate_pps: 2, size: 60B}}\n";
    let plain = flow(&vpn("", "{kind: fifo}", probe), "probe").delay_max_ms.unwrap();
    let tunnel = "{between: [client, server], kind: gre, processing_delay: 1500us}";
    let tunnelled = vpn(tunnel, "{kind: fifo}", probe);
    let probe_row = flow(&tunnelled, "probe");
    let plain_ns = serialization_ns(60, 10_000_000) * 2 + serialization_ns(67, 128_000);
    let tunnelled_ns = serialization_ns(84, 10_000_000) * 2 + serialization_ns(91, 128_000) + 2 * 1_500_000;
    assert!((plain - plain_ns as f64 / 1e6).abs() < 1e-9, "{plain}");
    assert_eq!(probe_row.delay_min_ms, probe_row.delay_max_ms);
    assert!((probe_row.delay_max_ms.unwrap() - tunnelled_ns as f64 / 1e6).abs() < 1e-9);
    // The flow's own row counts its inner bytes.
    assert_eq!(probe_row.received_bytes, probe_row.received_packets * 60);
}

/// LLQ on the serial link matches EF. With the DSCP copied to the outer header the voice
/// keeps its priority against a best-effort flood from another host; without, it queues
/// with the flood and loses.
#[test]
fn the_outer_dscp_decides_the_class_inside_the_tunnel() {
    let llq = "{kind: cbwfq, classes: [{name: voice, match: {dscp: EF}, priority: 64kbps}]}";
    let traffic =
        "  - {name: voice, from: client, to: server, dscp: EF, pattern: {kind: cbr, rate_pps: 50, size: 60B}}
  - {name: flood, from: other, to: server, pattern: {kind: cbr, rate: 200kbps, size: 1500B}}
";
    let copied = vpn("{between: [client, server], kind: ipsec}", llq, traffic);
    assert_eq!(flow(&copied, "voice").loss_pct, Some(0.0));
    let hidden = vpn("{between: [client, server], kind: ipsec, copy_dscp: false}", llq, traffic);
    assert!(flow(&hidden, "voice").loss_pct.unwrap() > 10.0);
    // The receiver gets the voice back with its own DSCP and header.
    let row = flow(&hidden, "voice");
    assert_eq!((row.dscp, row.protocol.as_str()), (46, "udp"));
}

/// TCP's segments shrink to fit the tunnel: 1500 − 24 = 1476-byte packets through GRE.
#[test]
fn tcp_segments_fit_the_tunnel() {
    let traffic = "  - {name: copy, from: client, to: server, start: 3s, app: {kind: bulk, size: 200kB}}\n";
    let results = vpn("{between: [client, server], kind: gre}", "{kind: fifo}", traffic);
    assert_eq!(flow(&results, "copy").packet_size_bytes, 1476);
    assert_eq!((results.apps[0].transfers_started, results.apps[0].transfers_completed), (1, 1));
}

/// Mistakes are refused at their key paths.
#[test]
fn bad_tunnels_are_refused() {
    let error = |tunnel: &str, size: &str| {
        let text = format!(
            "name: t
run: {{duration: 1s}}
topology:
  nodes: {{a: {{kind: host}}, r: {{kind: router}}, b: {{kind: host}}}}
  links: [{{between: [a, r], rate: 1Mbps}}, {{between: [r, b], rate: 1Mbps}}]
  tunnels: [{tunnel}]
traffic:
  - {{name: v, from: a, to: b, pattern: {{kind: cbr, rate_pps: 1, size: {size}}}}}
"
        );
        qoslab_core::load(&text, "t.yaml", &[], None).err().expect("refused").to_string()
    };
    let too_big = error("{between: [a, b], kind: gre}", "1500B");
    assert!(too_big.contains("traffic[0].pattern") && too_big.contains("at most 1476 B"), "{too_big}");
    let unknown = error("{between: [a, b], kind: gre, flows: [w]}", "100B");
    assert!(unknown.contains("topology.tunnels[0].flows[0]"), "{unknown}");
    let twice = error("{between: [a, b], kind: gre}, {between: [a, r], kind: gre}", "100B");
    assert!(twice.contains("would cross topology.tunnels[0] and topology.tunnels[1]"), "{twice}");
    let same = error("{between: [a, a], kind: gre}", "100B");
    assert!(same.contains("topology.tunnels[0].between"), "{same}");
}
