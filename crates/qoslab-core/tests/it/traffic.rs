//! Sources emit what their patterns say, and a lone packet's delay is exactly its
//! serialization and propagation along the path.

use crate::common::{flow, run_yaml};

/// One uncongested 10 Mbit/s link between two hosts, `flows` on it, measured for `duration`.
fn on_open_link(flows: &str, duration: &str) -> qoslab_core::Results {
    let yaml = format!(
        "name: traffic
run: {{duration: {duration}, seed: 11}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 10Mbps}}]
traffic:
{flows}"
    );
    run_yaml(&yaml, &[])
}

#[test]
fn codec_presets_give_the_reference_sizes_and_rates() {
    let results = on_open_link(
        "  - {name: g711, from: a, to: b, pattern: {kind: codec, codec: g711}}
  - {name: g729, from: a, to: b, pattern: {kind: codec, codec: g729, interval: 40ms}}
  - {name: g723, from: a, to: b, pattern: {kind: codec, codec: g723.1}}
  - {name: gsm, from: a, to: b, pattern: {kind: codec, codec: gsm-fr}}
",
        "60s",
    );
    // (flow, IP size: payload + 40 B of IP/UDP/RTP, packets in 60 s)
    for (name, size, packets) in
        [("g711", 200, 3000), ("g729", 80, 1500), ("g723", 64, 2000), ("gsm", 73, 3000)]
    {
        let f = flow(&results, name);
        assert_eq!((f.packet_size_bytes, f.sent_packets), (size, packets), "{name}");
    }
}

#[test]
fn cbr_by_bit_rate_is_exact_over_the_run() {
    // 64 kbit/s of 1000-byte packets: 8 packets/s, 125 ms apart.
    let results = on_open_link(
        "  - {name: f, from: a, to: b, pattern: {kind: flood, rate: 64kbps, size: 1000B}}\n",
        "100s",
    );
    let f = flow(&results, "f");
    assert_eq!(f.sent_packets, 800);
    assert_eq!(f.offered_l3_bps, 64_000.0);
}

/// ON-OFF sources send during a share on/(on + off) of the time: the ad-hoc report's
/// exponential 10 s / 20 s gives 1/3; the LMR VoIP thesis' push-to-talk (ON uniform 1–18 s,
/// OFF uniform 1–75 s) gives 9.5 / 47.5 = 1/5. Over 200 000 s (about 6 700 and 4 200 cycles)
/// the share is within 3 % of that (about 2.5 standard deviations).
#[test]
fn on_off_duty_cycles() {
    let results = on_open_link(
        "  - {name: adhoc, from: a, to: b, pattern: {kind: onoff, on: {exponential: 10s}, off: {exponential: 20s}, during_on: {kind: cbr, rate_pps: 50, size: 100B}}}
  - {name: ptt, from: a, to: b, pattern: {kind: onoff, on: {uniform: [1s, 18s]}, off: {uniform: [1s, 75s]}, during_on: {kind: codec, codec: gsm-fr}}}
",
        "200000s",
    );
    for (name, share) in [("adhoc", 1.0 / 3.0), ("ptt", 0.2)] {
        let f = flow(&results, name);
        let measured = f.sent_packets as f64 / (50.0 * 200_000.0);
        assert!((measured - share).abs() / share < 0.03, "{name}: {measured:.4} vs {share:.4}");
    }
}

#[test]
fn poisson_rate_and_interarrival_variability() {
    let results = on_open_link(
        "  - {name: p, from: a, to: b, pattern: {kind: poisson, rate_pps: 200, size: 100B}}\n",
        "500s",
    );
    let f = flow(&results, "p");
    // 100 000 expected, standard deviation 316: ±1 % is more than 3 sd.
    assert!((f.sent_packets as f64 - 100_000.0).abs() < 1_000.0, "{}", f.sent_packets);
}

/// Hand-computed trace: one 1500-byte packet from a host through two routers.
/// a→r1: 100 Mbit/s Ethernet (1538 B on the wire: 123.04 µs) + 10 µs; r1→r2: 128 kbit/s
/// HDLC (1507 B: 94.1875 ms) + 5 ms; r2→b: 100 Mbit/s Ethernet (123.04 µs) + 10 µs. Total
/// 99.453580 ms.
#[test]
fn lone_packet_delay_is_serialization_plus_propagation() {
    let yaml = "name: trace
run: {duration: 1s}
topology:
  nodes: {a: {kind: host}, r1: {kind: router}, r2: {kind: router}, b: {kind: host}}
  links:
    - {between: [a, r1], rate: 100Mbps, l2: ethernet, delay: 10us}
    - {between: [r1, r2], rate: 128kbps, l2: hdlc, delay: 5ms}
    - {between: [r2, b], rate: 100Mbps, l2: ethernet, delay: 10us}
traffic:
  - {name: one, from: a, to: b, stop: 1ms, pattern: {kind: cbr, rate_pps: 1, size: 1500B}}
";
    let results = run_yaml(yaml, &[]);
    let f = flow(&results, "one");
    assert_eq!(f.received_packets, 1);
    assert_eq!(f.delay_min_ms, Some(99.45358));
    assert_eq!(results.run.packet_hops, 3);
}

/// `copies: 3` makes three flows `NAME.1..3`, each with its own source port and random
/// stream (Poisson sends a different number of packets in each); a copy draws exactly what
/// a flow written out by hand under its name draws.
#[test]
fn copies_are_independent_flows_named_by_number() {
    let poisson = "pattern: {kind: poisson, rate_pps: 50, size: 200B}";
    let results =
        on_open_link(&format!("  - {{name: calls, copies: 3, from: a, to: b, {poisson}}}\n"), "60s");
    let rows: Vec<_> = (1..=3).map(|k| flow(&results, &format!("calls.{k}"))).collect();
    let ports: Vec<u16> = rows.iter().map(|r| r.src_port).collect();
    assert_eq!(ports, vec![49152, 49153, 49154]);
    let sent: Vec<u64> = rows.iter().map(|r| r.sent_packets).collect();
    assert!(sent[0] != sent[1] && sent[1] != sent[2], "{sent:?}");
    let alone = on_open_link(&format!("  - {{name: calls.2, from: a, to: b, {poisson}}}\n"), "60s");
    assert_eq!(flow(&alone, "calls.2").sent_packets, sent[1]);
}
