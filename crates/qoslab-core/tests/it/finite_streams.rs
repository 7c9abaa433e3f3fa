//! Finite open-loop streams (`packets: N`): the source stops after its N-th packet, counted
//! from its first whatever the warm-up, or at `stop`, whichever comes first — as a traffic
//! generator's `send N` or iperf's `-n`. On an idle link every packet's send time can be
//! written down.

use crate::common::{assert_refused, flow, run_with_deliveries, two_hosts};
use qoslab_core::load;

const MS: u64 = 1_000_000;

/// One flow on an idle 10 Mbit/s link (1 ms away), the run given as `run`.
fn idle(run: &str, flow: &str) -> String {
    two_hosts(run, "rate: 10Mbps, l2: none, delay: 1ms", "{kind: fifo}", &format!("  - {flow}\n"))
}

/// The creation times of the packets of `name` that were delivered, ns.
fn sent_at(text: &str, name: &str) -> (Vec<u64>, qoslab_core::Results) {
    let (deliveries, results) = run_with_deliveries(text);
    let times = deliveries.iter().filter(|d| d.flow == name).map(|d| d.created_ns).collect();
    (times, results)
}

/// CBR at 50 packets/s from 2 s with `packets: 513`: packets k = 0 … 512 leave at
/// 2 s + k · 20 ms, the last at 2 s + (513 − 1)/50 s = 12.24 s, and no more in the 30 s run.
#[test]
fn a_cbr_stream_sends_its_count_and_stops() {
    let text = idle(
        "duration: 30s",
        "{name: f, from: tx, to: rx, start: 2s, packets: 513, pattern: {kind: cbr, rate_pps: 50, size: 100B}}",
    );
    let (times, results) = sent_at(&text, "f");
    let expected: Vec<u64> = (0..513).map(|k| 2_000 * MS + k * 20 * MS).collect();
    assert_eq!(times, expected);
    assert_eq!(*times.last().unwrap(), 12_240 * MS);
    let f = flow(&results, "f");
    assert_eq!((f.sent_packets, f.received_packets), (513, 513));
}

/// The count is the source's own and includes the warm-up: with a 5 s warm-up the first
/// 250 packets (0 to 4.98 s) are sent but not measured, and the 263 measured ones run from
/// 5 s to the 513th packet at 10.24 s.
#[test]
fn the_count_includes_the_warmup() {
    let text = idle(
        "duration: 25s, warmup: 5s",
        "{name: f, from: tx, to: rx, packets: 513, pattern: {kind: cbr, rate_pps: 50, size: 100B}}",
    );
    let (times, results) = sent_at(&text, "f");
    assert_eq!(flow(&results, "f").sent_packets, 263);
    assert_eq!((times[0], *times.last().unwrap(), times.len()), (5_000 * MS, 10_240 * MS, 263));
}

/// Whichever comes first ends the stream: `stop: 5s` before the 513th packet leaves 250
/// packets, the last at 4.98 s (no packet at `stop` itself).
#[test]
fn stop_ends_the_stream_when_it_comes_first() {
    let text = idle(
        "duration: 30s",
        "{name: f, from: tx, to: rx, stop: 5s, packets: 513, pattern: {kind: cbr, rate_pps: 50, size: 100B}}",
    );
    let (times, results) = sent_at(&text, "f");
    assert_eq!(flow(&results, "f").sent_packets, 250);
    assert_eq!(*times.last().unwrap(), 4_980 * MS);
}

/// ON 1 s, OFF 1 s around CBR at 50 packets/s, with `packets: 120`: 50 packets in [0, 1 s),
/// 50 in [2 s, 3 s), and the last 20 from 4 s, the 120th at 4.38 s; nothing after.
#[test]
fn an_on_off_stream_stops_at_its_count() {
    let text = idle(
        "duration: 10s",
        "{name: f, from: tx, to: rx, packets: 120, pattern: {kind: onoff, on: 1s, off: 1s, during_on: {kind: cbr, rate_pps: 50, size: 100B}}}",
    );
    let (times, results) = sent_at(&text, "f");
    let expected: Vec<u64> = [(0, 50), (2_000, 50), (4_000, 20)]
        .iter()
        .flat_map(|&(on_ms, n)| (0..n).map(move |k| (on_ms + 20 * k) * MS))
        .collect();
    assert_eq!(times, expected);
    assert_eq!(flow(&results, "f").sent_packets, 120);
}

/// A billion packets a second for 100 s would be refused as too much work; with
/// `packets: 1000` the estimate counts those 1000 only, and the run sends exactly them.
#[test]
fn a_packet_count_bounds_the_work_estimate() {
    let flood = "{name: f, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 1000000000, size: 100B}}";
    let error = load(&idle("duration: 100s", flood), "c.yaml", &[], None).err().expect("refused");
    assert_eq!(error.key_path, "traffic[0]", "{error}");
    assert!(error.to_string().contains("--max-events"), "{error}");
    let counted = flood.replacen("to: rx,", "to: rx, packets: 1000,", 1);
    let (_, results) = run_with_deliveries(&idle("duration: 100s", &counted));
    assert_eq!(flow(&results, "f").sent_packets, 1000);
}

/// A count of 0 and a count on an application are refused at `packets`.
#[test]
fn bad_counts_are_refused_at_their_key() {
    let zero = idle(
        "duration: 10s",
        "name: f\n    from: tx\n    to: rx\n    packets: 0\n    pattern: {kind: cbr, rate_pps: 50, size: 100B}",
    );
    assert_refused(
        "zero",
        &zero,
        "traffic[0].packets",
        Some(12),
        &["0 packets sends nothing", "leave `packets` out"],
    );
    let app =
        idle("duration: 10s", "{name: f, from: tx, to: rx, packets: 10, app: {kind: bulk, size: 10kB}}");
    assert_refused(
        "app",
        &app,
        "traffic[0].packets",
        Some(9),
        &["counts the packets of an open-loop pattern", "bulk `transfers`"],
    );
}
