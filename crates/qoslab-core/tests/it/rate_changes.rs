//! Links whose rate changes during the run.

use crate::common::{json_without_identity, run_yaml};
use qoslab_core::results::PortRecord;
use qoslab_core::Results;

/// 3 Mbit/s of 1500-byte packets (no framing) into an unlimited FIFO on a 2 Mbit/s link
/// that drops to 1 Mbit/s at 10 s; measured over `warmup` to `warmup + duration`.
fn halved(warmup: &str, duration: &str) -> Results {
    run_yaml(
        &format!(
            "name: halved
run: {{duration: {duration}, warmup: {warmup}, seed: 1}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 2Mbps, l2: none, rate_changes: [{{at: 10s, rate: 1Mbps}}]}}]
interfaces:
  a: {{b: {{output: {{kind: fifo, limit: unlimited}}}}}}
traffic:
  - {{name: flood, from: a, to: b, pattern: {{kind: flood, rate: 3Mbps}}}}
"
        ),
        &[],
    )
}

fn port<'a>(results: &'a Results, name: &str) -> &'a PortRecord {
    results.ports.iter().find(|p| p.port == name).unwrap()
}

/// Before the change the link sends a 6 ms frame after another: 1666 complete in the first
/// 10 s (the 1667th is on the wire at 10 s and finishes at the old rate, 10.002 s). After
/// it, 12 ms frames: 833 more complete by 20 s, so throughput halves at the change, to the
/// packet. The backlog grows by (arrival − service) × time: 250 packets/s − 166.67 for the
/// first 10 s, then 250 − 83.33, ending near 833 + 1667 = 2500 packets.
#[test]
fn a_halved_link_halves_its_throughput_at_the_change() {
    let before = halved("0s", "10s");
    let b = port(&before, "a->b");
    assert_eq!(b.sent_packets, 1666);
    assert!((b.throughput_l2_bps - 2e6).abs() < 1e3, "{}", b.throughput_l2_bps);
    let after = halved("10s", "10s");
    let a = port(&after, "a->b");
    assert_eq!(a.sent_packets, 834, "the frame straddling the change, then 833 at 12 ms");
    // The straddling frame counts only for its 2 ms inside the window, at the old rate.
    assert!((a.throughput_l2_bps - 1e6).abs() < 1e3, "{}", a.throughput_l2_bps);
    assert!((2499..=2501).contains(&a.queue_max_packets), "backlog {}", a.queue_max_packets);
}

/// Rates must be above zero and the changes in time order.
#[test]
fn bad_schedules_are_refused() {
    let error = |changes: &str| {
        let text = format!(
            "name: t
run: {{duration: 10s}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 2Mbps, rate_changes: {changes}}}]
traffic: []
"
        );
        qoslab_core::load(&text, "t.yaml", &[], None).err().expect("refused").to_string()
    };
    assert!(error("[{at: 5s, rate: 0bps}]").contains("topology.links[0].rate_changes[0].rate"));
    assert!(error("[{at: 5s, rate: 1Mbps}, {at: 2s, rate: 2Mbps}]").contains("must be in time order"));
}

/// A rate trace file gives the same run as the same changes written in the scenario; a bad
/// row is refused with its file and line.
#[test]
fn a_rate_trace_file_is_the_same_schedule() {
    let dir = std::env::temp_dir().join(format!("qoslab-rate-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("steps.csv"), "time_s,rate_bps\n# the radio link slows\n10,1000000\n15,500000\n")
        .unwrap();
    std::fs::write(dir.join("bad.csv"), "10,1000000\n12,fast\n").unwrap();
    let scenario = |link_keys: &str| {
        format!(
            "name: traced
run: {{duration: 20s, seed: 1}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 2Mbps, l2: none, {link_keys}}}]
traffic:
  - {{name: flood, from: a, to: b, pattern: {{kind: flood, rate: 3Mbps}}}}
"
        )
    };
    let origin = dir.join("t.yaml").display().to_string();
    let run = |keys: &str| {
        qoslab_core::load(&scenario(keys), &origin, &[], None)
            .map(|sim| json_without_identity(&sim.finish().unwrap()))
    };
    let written = run("rate_changes: [{at: 10s, rate: 1Mbps}, {at: 15s, rate: 500kbps}]").unwrap();
    assert_eq!(run("rate_trace: steps.csv").unwrap(), written);
    let bad = run("rate_trace: bad.csv").err().unwrap().to_string();
    assert!(bad.contains("topology.links[0].rate_trace") && bad.contains("bad.csv:2"), "{bad}");
    let both = run("rate_trace: steps.csv, rate_changes: [{at: 1s, rate: 1Mbps}]").err().unwrap().to_string();
    assert!(both.contains("not both"), "{both}");
    std::fs::remove_dir_all(&dir).unwrap();
}
