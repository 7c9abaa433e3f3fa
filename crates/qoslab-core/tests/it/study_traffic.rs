//! The studies' open-loop traffic: video (VBR, frame-rate steps), trace-driven video and the
//! shipped synthetic MPEG-4 trace, stepped ramps, bursts, alarms and OSPF hellos.

use crate::common::{flow, run_with_deliveries, run_yaml};

/// One open 100 Mbit/s link (no framing) between two hosts, `flows` on it, for `duration`.
fn on_open_link(flows: &str, duration: &str) -> qoslab_core::Results {
    run_yaml(
        &format!(
            "name: study-traffic
run: {{duration: {duration}, seed: 7}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 100Mbps, l2: none}}]
traffic:
{flows}"
        ),
        &[],
    )
}

/// Payload bytes a frame flow sent: its IP bytes less 28 bytes of headers per packet.
fn payload_bytes(results: &qoslab_core::Results, name: &str) -> u64 {
    let row = flow(results, name);
    row.sent_bytes - 28 * row.sent_packets
}

/// Exponential frame sizes with mean 2500 B at 30 frames/s: 600 kbit/s of payload. Over
/// 1200 s (36 000 frames) the mean's relative standard deviation is 1/√36000 = 0.53 %, so
/// 2 % is about four of them.
#[test]
fn vbr_video_keeps_its_mean_rate() {
    let results = on_open_link(
        "  - {name: cam, from: a, to: b, pattern: {kind: video, fps: 30, frame_size: {exponential: 2500B}}}\n",
        "1200s",
    );
    let rate_bps = payload_bytes(&results, "cam") as f64 * 8.0 / 1200.0;
    assert!((rate_bps / 600e3 - 1.0).abs() < 0.02, "payload rate {rate_bps} bit/s");
    let row = flow(&results, "cam");
    assert_eq!(row.packet_size_bytes, 1500, "the largest packet is reported");
    assert!(row.sent_bytes < row.sent_packets * 1500, "packets differ in size");
}

/// Constant 2533-byte frames (608 kbit/s at 30 frames/s) leave as a 1500-byte and a
/// 1089-byte packet (1061 + 28); at 10 s the rate steps down to 5 frames/s. In 20 s: 300
/// frames, then 50.
#[test]
fn video_frames_split_into_packets_and_step_down() {
    let results = on_open_link(
        "  - {name: cam, from: a, to: b, pattern: {kind: video, fps: 30, rate: 608kbps, fps_steps: [{at: 10s, fps: 5}]}}\n",
        "20s",
    );
    let row = flow(&results, "cam");
    assert_eq!((row.sent_packets, row.sent_bytes), (2 * 350, 350 * (1500 + 1089)));
}

/// A trace of three rows, 0 s 100 B, 10 ms 3000 B, 30 ms 50 B, repeated every 45 ms (the
/// last row's time plus the mean gap): 128, 1500 + 1500 + 84 and 78-byte packets per
/// cycle, two cycles in 90 ms.
#[test]
fn a_trace_is_replayed_and_repeated() {
    let path = std::env::temp_dir().join(format!("qoslab-trace-{}.csv", std::process::id()));
    std::fs::write(&path, "time_s,size_bytes\n0,100\n0.01,3000\n0.03,50\n").unwrap();
    let results = on_open_link(
        &format!(
            "  - {{name: replay, from: a, to: b, pattern: {{kind: trace, file: '{}', loop: true}}}}\n",
            path.display()
        ),
        "90ms",
    );
    std::fs::remove_file(&path).ok();
    let row = flow(&results, "replay");
    assert_eq!((row.sent_packets, row.sent_bytes), (10, 2 * (128 + 1500 + 1500 + 84 + 78)));
}

/// Each row leaves at the flow's start plus its own time, the first row included: rows at
/// 0.25 s and 0.30 s are sent at 250 and 300 ms, not at 0 and 50 ms; looped, they come again
/// one period later, the last row's time plus the mean gap (0.30 + 0.05 = 0.35 s), at 600
/// and 650 ms. A flow starting at 1 s sends them 1 s later still.
#[test]
fn a_trace_row_leaves_at_its_own_time() {
    let path = std::env::temp_dir().join(format!("qoslab-trace-late-{}.csv", std::process::id()));
    std::fs::write(&path, "time_s,size_bytes\n0.25,100\n0.30,100\n").unwrap();
    let text = format!(
        "name: late-trace
run: {{duration: 2s, seed: 7}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 100Mbps, l2: none}}]
traffic:
  - {{name: once, from: a, to: b, pattern: {{kind: trace, file: '{file}'}}}}
  - {{name: looped, from: a, to: b, stop: 0.7s, pattern: {{kind: trace, file: '{file}', loop: true}}}}
  - {{name: later, from: a, to: b, start: 1s, pattern: {{kind: trace, file: '{file}'}}}}
",
        file = path.display()
    );
    let (deliveries, _) = run_with_deliveries(&text);
    std::fs::remove_file(&path).ok();
    let sent = |name: &str| -> Vec<u64> {
        deliveries.iter().filter(|d| d.flow == name).map(|d| d.created_ns / 1_000_000).collect()
    };
    assert_eq!(sent("once"), vec![250, 300]);
    assert_eq!(sent("looped"), vec![250, 300, 600, 650]);
    assert_eq!(sent("later"), vec![1250, 1300]);
}

/// The shipped synthetic MPEG-4 trace has the DiffServ measurements' figures: mean
/// 1.029 Mbit/s (within 2 %) and a largest frame worth 8.797 Mbit/s at 25 frames/s
/// (within 5 %); replayed once on an open link it sends exactly its bytes.
#[test]
fn the_shipped_trace_matches_the_studys_mean_and_peak() {
    let text = include_str!("../../../../examples/traces/mpeg4-synthetic.csv");
    // Frame sizes, read here from the CSV's `time_s,size_bytes` rows (25 frames/s).
    let frames: Vec<u64> = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with("time_s"))
        .map(|line| line.split(',').nth(1).unwrap().trim().parse().unwrap())
        .collect();
    let total: u64 = frames.iter().sum();
    let mean_bps = total as f64 * 8.0 / (frames.len() as f64 / 25.0);
    assert!((mean_bps / 1.029e6 - 1.0).abs() < 0.02, "mean {mean_bps}");
    let peak_bps = *frames.iter().max().unwrap() as f64 * 8.0 * 25.0;
    assert!((peak_bps / 8.797e6 - 1.0).abs() < 0.05, "peak {peak_bps}");
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/traces/mpeg4-synthetic.csv");
    let results = on_open_link(
        &format!("  - {{name: film, from: a, to: b, pattern: {{kind: trace, file: '{file}'}}}}\n"),
        "301s",
    );
    assert_eq!(payload_bytes(&results, "film"), total);
}

/// A ramp of 1000-byte packets from 1 to 3 Mbit/s in 1 Mbit/s steps every 10 s, each
/// period ending 400 ms early: 9.6 s at 1, 2 and 3 Mbit/s, then 3 Mbit/s again — 1200,
/// 2400, 3600 and 3600 packets in 40 s.
#[test]
fn a_ramp_steps_up_and_holds() {
    let results = on_open_link(
        "  - {name: rude, from: a, to: b, pattern: {kind: ramp, start_rate: 1Mbps, step: 1Mbps, end_rate: 3Mbps, pause: 400ms, size: 1000B}}\n",
        "40s",
    );
    assert_eq!(flow(&results, "rude").sent_packets, 1200 + 2400 + 3600 + 3600);
}

/// The presets with the studies' numbers: one alarm (10 packets of 256 B), OSPF hellos
/// (64 B every 10 s: 6 in a minute), a 15-second burst of 512-byte packets at 8 Mbit/s
/// (29 297 packets: 15 s × 8 Mbit/s / 4096 bits, rounded up as packets start every
/// 512 µs from 0), and SAA probes (every 60 s, 50 packets).
#[test]
fn presets_send_what_the_studies_describe() {
    let results = on_open_link(
        "  - {name: alarm, from: a, to: b, start: 20s, pattern: {kind: alarm}}
  - {name: ospf, from: a, to: b, pattern: {kind: ospf_hello}}
  - {name: udp-burst, from: a, to: b, start: 30s, pattern: {kind: burst, rate: 8Mbps}}
  - {name: saa, from: a, to: b, pattern: {kind: probe}}
",
        "60s",
    );
    let count = |name| flow(&results, name).sent_packets;
    assert_eq!((count("alarm"), count("ospf"), count("udp-burst"), count("saa")), (10, 6, 29_297, 50));
    assert_eq!(flow(&results, "alarm").packet_size_bytes, 256);
    assert_eq!(flow(&results, "ospf").packet_size_bytes, 64);
    // The alarm's ten packets leave 100 ms apart from 20 s: all delivered at once on an
    // open link, the last 0.9 s after the first.
    assert_eq!(flow(&results, "alarm").received_packets, 10);
}
