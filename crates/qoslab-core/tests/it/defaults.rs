//! The documented defaults, pinned: a scenario that sets nothing optional runs with them.

use crate::common::{flow, run_yaml};

const MINIMAL: &str = "name: defaults
run: {duration: 10s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 1Mbps}]
traffic:
  - {name: f, from: a, to: b, pattern: {kind: cbr, rate_pps: 12.5, size: 100B}}
";

#[test]
fn unset_keys_take_their_documented_defaults() {
    let results = run_yaml(MINIMAL, &[]);
    // run: seed 1, replication 0, no warm-up.
    assert_eq!((results.run.seed, results.run.replication, results.run.warmup_s), (1, 0, 0.0));
    // link: Ethernet framing as on the wire (38 B: header, FCS, preamble, gap), MTU 1500 B, transmit ring 2, no propagation delay,
    // FIFO output with the IOS hold-queue limit of 40 packets.
    let port = results.ports.iter().find(|p| p.port == "a->b").unwrap();
    assert_eq!(
        (port.l2_overhead_bytes, port.mtu_bytes, port.tx_ring_packets, port.propagation_ms, port.qdisc),
        (38, 1500, 2, 0.0, "fifo")
    );
    // flow: UDP, best effort, ports 49152 + position and 5001, addresses from node order.
    let f = flow(&results, "f");
    assert_eq!((f.protocol.as_str(), f.dscp, f.src_port, f.dst_port), ("udp", 0, 49_152, 5_001));
    assert_eq!((f.src_addr.as_str(), f.dst_addr.as_str()), ("10.0.0.1", "10.0.0.2"));
    // 12.5 packets/s for 10 s, exactly 80 ms apart.
    assert_eq!(f.sent_packets, 125);
}

#[test]
fn fifo_default_limit_is_40_packets() {
    // 100 flows each send one packet at time 0 into the default FIFO: 2 enter the transmit
    // ring (one on the wire, one waiting), 40 queue, and the other 58 are tail-dropped.
    let mut text = String::from(MINIMAL.split("traffic:").next().unwrap());
    text.push_str("traffic:\n");
    for i in 0..100 {
        text.push_str(&format!(
            "  - {{name: f{i}, from: a, to: b, stop: 1ns, pattern: {{kind: cbr, rate_pps: 1, size: 100B}}}}\n"
        ));
    }
    let results = run_yaml(&text, &[]);
    let port = results.ports.iter().find(|p| p.port == "a->b").unwrap();
    assert_eq!((port.enqueued_packets, port.dropped_packets), (42, 58));
}

#[test]
fn hold_queue_sets_the_fifo_limit() {
    // As above, with `hold-queue 10 out`: 2 in the ring, 10 queued, 88 dropped.
    let mut text = String::from(MINIMAL.split("traffic:").next().unwrap());
    text.push_str("interfaces: {a: {b: {hold_queue: 10}}}\ntraffic:\n");
    for i in 0..100 {
        text.push_str(&format!(
            "  - {{name: f{i}, from: a, to: b, stop: 1ns, pattern: {{kind: cbr, rate_pps: 1, size: 100B}}}}\n"
        ));
    }
    let results = run_yaml(&text, &[]);
    let port = results.ports.iter().find(|p| p.port == "a->b").unwrap();
    assert_eq!((port.enqueued_packets, port.dropped_packets), (12, 88));
}
