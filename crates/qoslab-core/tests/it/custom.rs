//! Custom queuing against byte shares computed by hand, and its configuration errors as a
//! user meets them.
//!
//! The link shares of a byte-count round robin follow from what each queue sends per visit
//! while all of them stay backlogged: with the boundary test `sent < byte_count`, a queue of
//! L-byte packets sends ⌈byte_count / L⌉ packets a visit, so its share of the link is that
//! amount over the sum of all queues' amounts. With `carry_over`, the over-send is paid back
//! and each queue's share tends to its byte count over the sum of the byte counts.

use crate::common::{assert_refused, flow, run_yaml};

/// Two hosts joined by a 1 Mbit/s link without framing (so frame bytes are IP bytes), the
/// custom queuing policy on the sender's egress (limits of 5 packets), and three floods of
/// 1 Mbit/s each — every queue is offered far more than it can get, so all three stay
/// backlogged. Queue N takes destination port 5000 + N. A flow's delivered rate counts the
/// arrivals in the measured 300 s, so the window edges cut at most one round (72 ms at the
/// most here) from each flow: an error below 0.05 %.
fn three_floods(byte_counts: [&str; 3], sizes: [u32; 3], carry_over: bool) -> qoslab_core::Results {
    let queue = |n: usize| format!("{}: {{byte_count: {}, limit: 5}}", n + 1, byte_counts[n]);
    let flood = |n: usize| {
        format!(
            "  - {{name: f{q}, from: tx, to: rx, dst_port: {port},
      pattern: {{kind: flood, rate: 1Mbps, size: {size}B}}}}\n",
            q = n + 1,
            port = 5001 + n,
            size = sizes[n]
        )
    };
    let yaml = format!(
        "name: custom-shares
run: {{duration: 300s, warmup: 5s, seed: 3}}
topology:
  nodes: {{tx: {{kind: host}}, rx: {{kind: host}}}}
  links:
    - {{between: [tx, rx], rate: 1Mbps, l2: none}}
policies:
  cq:
    kind: custom
    carry_over: {carry_over}
    queues: {{{}, {}, {}}}
    classify:
      - {{match: {{dst_port: 5002}}, queue: 2}}
      - {{match: {{dst_port: 5003}}, queue: 3}}
interfaces:
  tx: {{rx: {{output: cq}}}}
traffic:
{}{}{}",
        queue(0),
        queue(1),
        queue(2),
        flood(0),
        flood(1),
        flood(2)
    );
    run_yaml(&yaml, &[])
}

/// Each flow's delivered IP rate against its expected share of the 1 Mbit/s link; 1 %.
fn assert_shares(results: &qoslab_core::Results, shares: [f64; 3], case: &str) {
    for (n, share) in shares.iter().enumerate() {
        let name = format!("f{}", n + 1);
        let got_bps = flow(results, &name).delivered_l3_bps;
        let expected_bps = share * 1_000_000.0;
        let error = (got_bps - expected_bps).abs() / expected_bps;
        assert!(
            error < 0.01,
            "{case}: {name} got {:.1} kbit/s, expected {:.1} kbit/s ({:.2} % off)",
            got_bps / 1e3,
            expected_bps / 1e3,
            100.0 * error
        );
    }
}

/// Byte counts 1500, 3000 and 4500 with 1500-byte packets: every byte count is a whole
/// number of packets, so there is no over-send and the queues send 1, 2 and 3 packets a
/// round — the link splits 1 : 2 : 3 (166.7, 333.3 and 500 kbit/s). Tolerance 1 %.
#[test]
fn byte_counts_share_the_link_in_proportion() {
    let results = three_floods(["1500B", "3000B", "4500B"], [1500; 3], false);
    assert_shares(&results, [1.0 / 6.0, 2.0 / 6.0, 3.0 / 6.0], "1500/3000/4500");
    let link = results.ports.iter().find(|p| p.port == "tx->rx").unwrap();
    assert!(link.utilisation_pct > 99.9, "{}", link.utilisation_pct);
    // Every queue held a backlog and dropped the excess at its own limit.
    for class in results.classes.iter().filter(|c| c.port == "tx->rx") {
        assert!(class.dropped_packets > 0, "{} dropped nothing", class.class);
    }
}

/// Equal byte counts (1500 B) and packets of 1000, 600 and 1400 B, none of which divides
/// 1500. Per visit: 1000-byte packets start at 0 and 1000 (below 1500) → 2 packets, 2000 B;
/// 600-byte packets start at 0, 600 and 1200 → 3 packets, 1800 B; 1400-byte packets start
/// at 0 and 1400 → 2 packets, 2800 B. A round is 6600 B, so the shares are 20/66, 18/66 and
/// 28/66 (303.0, 272.7 and 424.2 kbit/s), not a third each. With `carry_over` the
/// over-send is paid back on the next visit and the equal byte counts give equal shares.
/// Tolerance 1 %.
#[test]
fn over_send_skews_the_shares_unless_carried_over() {
    let results = three_floods(["1500B"; 3], [1000, 600, 1400], false);
    assert_shares(&results, [20.0 / 66.0, 18.0 / 66.0, 28.0 / 66.0], "over-send");
    let results = three_floods(["1500B"; 3], [1000, 600, 1400], true);
    assert_shares(&results, [1.0 / 3.0; 3], "carry-over");
}

/// `lowest_custom: 2` makes queue 1 a strict-priority queue: a 200 kbit/s CBR flow there
/// loses nothing behind two saturating floods in the round robin, which split the rest
/// (800 kbit/s) equally. Tolerance 1 % on the split.
#[test]
fn lowest_custom_queue_takes_precedence_over_the_round_robin() {
    let yaml = "name: custom-priority
run: {duration: 300s, warmup: 5s, seed: 3}
topology:
  nodes: {tx: {kind: host}, rx: {kind: host}}
  links:
    - {between: [tx, rx], rate: 1Mbps, l2: none}
interfaces:
  tx:
    rx:
      output:
        kind: custom
        lowest_custom: 2
        queues: {2: {limit: 5}, 3: {limit: 5}}
        classify:
          - {match: {dst_port: 5002}, queue: 2}
          - {match: {dst_port: 5003}, queue: 3}
traffic:
  - {name: p, from: tx, to: rx, dst_port: 5001, pattern: {kind: cbr, rate: 200kbps, size: 500B}}
  - {name: f2, from: tx, to: rx, dst_port: 5002, pattern: {kind: flood, rate: 1Mbps, size: 1500B}}
  - {name: f3, from: tx, to: rx, dst_port: 5003, pattern: {kind: flood, rate: 1Mbps, size: 1500B}}
";
    let results = run_yaml(yaml, &[]);
    let p = flow(&results, "p");
    assert_eq!(p.dropped_packets, 0);
    // Non-preemptive: at most the 1500-byte frame on the wire, one in the 2-packet ring,
    // and its own 500 B ahead of it (12 + 12 + 4 ms).
    assert!(p.delay_max_ms.unwrap() <= 28.0 + 1e-6, "{:?}", p.delay_max_ms);
    for name in ["f2", "f3"] {
        let got_bps = flow(&results, name).delivered_l3_bps;
        assert!((got_bps - 400_000.0).abs() / 400_000.0 < 0.01, "{name}: {got_bps}");
    }
}

/// Bad values are reported at their key path and line in the scenario file.
#[test]
fn configuration_errors_point_at_the_key() {
    let scenario = |policy: &str| {
        format!(
            "name: bad-custom
run: {{duration: 10s}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links:
    - {{between: [a, b], rate: 1Mbps}}
policies:
  cq:
{policy}
traffic:
  - {{name: x, from: a, to: b, pattern: {{kind: cbr, rate_pps: 1, size: 100B}}}}
"
        )
    };
    let cases = [
        (
            "    kind: custom\n    queues:\n      17: {limit: 5}",
            "policies.cq.queues.17",
            11,
            "there is no queue 17",
        ),
        ("    kind: custom\n    queues:\n      2: {limit: 0}", "policies.cq.queues.2.limit", 11, "above 0"),
        (
            "    kind: custom\n    queues:\n      2: {byte_count: 0B}",
            "policies.cq.queues.2.byte_count",
            11,
            "0 B",
        ),
        (
            "    kind: custom\n    queues:\n      2: {byte_count: 3000}",
            "policies.cq.queues.2.byte_count",
            11,
            "3000B",
        ),
        (
            "    kind: custom\n    queues:\n      2: {bytecount: 3000B}",
            "policies.cq.queues.2.bytecount",
            11,
            "byte_count",
        ),
        ("    kind: custom\n    default_queue: 20", "policies.cq.default_queue", 10, "there is no queue 20"),
        (
            "    kind: custom\n    classify:\n      - {match: {dscp: EF}, queue: 17}",
            "policies.cq.classify[0].queue",
            11,
            "there is no queue 17",
        ),
    ];
    for (policy, path, line, fragment) in cases {
        assert_refused(policy, &scenario(policy), path, Some(line), &[fragment]);
    }
}

const EXAMPLE: &str = include_str!("../../../../examples/custom-queuing.yaml");

/// The lab example keeps all three queues backlogged: voice sits at its 10-packet limit,
/// FTP at its 4, and the video queue (10 packets, one sent per round of about 0.37 s) takes
/// longer to drain than the longest OFF period (2 s). Every round then sends ten voice
/// frames (10 × 157 B: the tenth starts at 1350 < 1500), one video frame (1507 B) and two
/// FTP frames (2 × 1441 B: the second starts at 1434 < 1500, the over-send), 5959 B of
/// HDLC frames in all, so each flow gets its share of the 128 kbit/s of frames: voice
/// 1570/5959 (33.72 kbit/s), video 1507/5959 (32.37 kbit/s), FTP 2882/5959
/// (61.90 kbit/s). Tolerance 1 % (the window edges cut at most a round out of 800).
#[test]
fn lab_example_shares_follow_the_round_arithmetic() {
    let results = run_yaml(EXAMPLE, &[]);
    for (name, frame_bytes_per_round) in [("voice", 1570.0), ("video", 1507.0), ("ftp", 2882.0)] {
        let got_bps = flow(&results, name).delivered_l2_bps;
        let expected_bps = 128_000.0 * frame_bytes_per_round / 5959.0;
        assert!(
            (got_bps - expected_bps).abs() / expected_bps < 0.01,
            "{name}: {got_bps:.0} bit/s, expected {expected_bps:.0}"
        );
    }
    // The voice queue's limit and byte count cap voice at ten packets a round: about half
    // of the 50 packets/s are lost.
    let voice = flow(&results, "voice");
    assert!(voice.loss_pct.unwrap() > 40.0, "{:?}", voice.loss_pct);
}

/// With carry-over, the equal byte counts give equal IP byte shares (FTP no longer gains
/// from its over-send); 1 %. With `lowest_custom: 3`, queue 2 is strict priority and the
/// voice loses nothing. Its delay is bounded by: on the sender's 10 Mbit/s Ethernet, a video
/// and an FTP frame emitted at the same instant ahead of it (1518 + 1452 B, 2.376 ms) and
/// its own 168-byte frame (0.1344 ms); on the serial link, the frame on the wire and one
/// more in the 2-packet ring (2 × 94.1875 ms at most, a 1507-byte video frame), its own
/// 157-byte frame (9.8125 ms) and 1 ms of propagation; its own frame on the last Ethernet
/// hop (0.1344 ms).
#[test]
fn lab_example_variations() {
    let results = run_yaml(EXAMPLE, &["policies.lab-cq.carry_over=true"]);
    let rates: Vec<f64> =
        ["voice", "video", "ftp"].iter().map(|n| flow(&results, n).delivered_l3_bps).collect();
    let mean = rates.iter().sum::<f64>() / 3.0;
    assert!(rates.iter().all(|r| (r - mean).abs() / mean < 0.01), "{rates:?}");

    let results = run_yaml(EXAMPLE, &["policies.lab-cq.lowest_custom=3"]);
    let voice = flow(&results, "voice");
    assert_eq!(voice.dropped_packets, 0);
    let bound_ms = 2.376 + 0.1344 + 2.0 * 94.1875 + 9.8125 + 1.0 + 0.1344;
    assert!(voice.delay_max_ms.unwrap() <= bound_ms, "{:?} > {bound_ms}", voice.delay_max_ms);
}
