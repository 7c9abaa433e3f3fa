//! The reference interval of the inter-arrival deviation jitter (`measure.jitter_reference`),
//! on hand-computed traces: the lmr-voip-thesis Appendix C script compares each gap with a
//! fixed `delta`, skips deviations above 1 s (restarting there), and divides by every
//! packet received.

use crate::common::{assert_refused, flow, run_yaml, two_hosts};

/// Three flows of ON 1 s around CBR at 5 packets/s (200 ms apart) over an idle link, so
/// every arrival gap is the sending gap; `short` pauses 990 ms, `long` 2 s, `nominal`
/// 990 ms. They start 50 ms apart, so their packets (80 µs on the wire) never meet.
fn spurts(measure: &str) -> String {
    let flows = "  - {name: short, from: tx, to: rx, pattern: {kind: onoff, on: 1s, off: 990ms, during_on: {kind: cbr, rate_pps: 5, size: 100B}}}
  - {name: long, from: tx, to: rx, start: 100ms, pattern: {kind: onoff, on: 1s, off: 2s, during_on: {kind: cbr, rate_pps: 5, size: 100B}}}
  - {name: nominal, from: tx, to: rx, start: 50ms, pattern: {kind: onoff, on: 1s, off: 990ms, during_on: {kind: cbr, rate_pps: 5, size: 100B}}}
";
    two_hosts("duration: 3980ms", "rate: 10Mbps, l2: none", "{kind: fifo}", flows) + measure
}

/// With a 197 ms reference (the script's `delta` for its QoS tests):
///
/// * `short` sends at 0, 0.2, …, 0.8 s and 1.99, 2.19, …, 2.79 s: 10 packets. The eight gaps
///   of 200 ms deviate by 3 ms; the pause gap, 1.19 s, deviates by 993 ms — below the 1 s
///   threshold, so it counts as jitter, as in the script. Average (8 · 3 + 993)/10 =
///   101.7 ms, maximum 993 ms.
/// * `long` sends 5 packets from 0.1 s and 5 from 3.1 s (the run ends at 3.98 s, before
///   the third spurt at 6.1 s). Its pause gap, 2.2 s, deviates by 2.003 s: skipped.
///   Average 8 · 3 / 10 = 2.4 ms, maximum 3 ms.
/// * `nominal`, as `short` 50 ms later, is not listed and compares with its own 200 ms
///   interval: 0 within spurts, 990 ms across the pause: average 99 ms, maximum 990 ms.
#[test]
fn gaps_are_compared_with_the_fixed_reference() {
    let results = run_yaml(
        &spurts(
            "measure: {jitter_reference: [{flow: short, interval: 197ms}, {flow: long, interval: 197ms}]}\n",
        ),
        &[],
    );
    for (name, sent, avg_ms, max_ms) in
        [("short", 10, 101.7, 993.0), ("long", 10, 2.4, 3.0), ("nominal", 10, 99.0, 990.0)]
    {
        let f = flow(&results, name);
        assert_eq!(f.received_packets, sent, "{name}");
        let (avg, max) = (f.jitter_avg_ms.unwrap(), f.jitter_max_ms.unwrap());
        assert!((avg - avg_ms).abs() < 1e-9, "{name}: average {avg} ms, expected {avg_ms} ms");
        assert!((max - max_ms).abs() < 1e-9, "{name}: maximum {max} ms, expected {max_ms} ms");
    }
}

/// A push-to-talk application's voice takes the reference (its TCP rows do not): talk 1 s,
/// pause 10 s, GSM-FR every 20 ms. In 21 s the spurts start at 10 s and 21 s (after a first
/// pause), so one spurt of 50 packets is received: 49 gaps of 20 ms against a 19 ms
/// reference, 1 ms each: average 49/50 ms.
#[test]
fn a_ptt_voice_takes_the_reference() {
    let text = two_hosts(
        "duration: 21s",
        "rate: 10Mbps, l2: none",
        "{kind: fifo}",
        "  - {name: lmr, from: tx, to: rx, app: {kind: ptt, voice: {codec: gsm-fr}, talk: 1s, pause: 10s}}\n",
    ) + "measure: {jitter_reference: [{flow: lmr, interval: 19ms}]}\n";
    let results = run_yaml(&text, &[]);
    let voice = flow(&results, "lmr");
    assert_eq!(voice.received_packets, 50);
    assert!((voice.jitter_avg_ms.unwrap() - 0.98).abs() < 1e-9, "{:?}", voice.jitter_avg_ms);
    assert!((voice.jitter_max_ms.unwrap() - 1.0).abs() < 1e-9, "{:?}", voice.jitter_max_ms);
}

/// An unknown entry (with the nearest name), an entry listed twice, a zero interval and an
/// application whose rows are all TCP are refused at their keys.
#[test]
fn bad_references_are_refused_at_their_keys() {
    let with = |measure: &str| spurts(measure);
    assert_refused(
        "unknown",
        &with("measure:\n  jitter_reference:\n    - {flow: shrot, interval: 197ms}\n"),
        "measure.jitter_reference[0].flow",
        Some(14),
        &["shrot", "Did you mean `short`"],
    );
    assert_refused(
        "twice",
        &with("measure:\n  jitter_reference:\n    - {flow: short, interval: 197ms}\n    - {flow: short, interval: 200ms}\n"),
        "measure.jitter_reference[1].flow",
        Some(15),
        &["listed twice", "one reference interval"],
    );
    assert_refused(
        "zero",
        &with("measure:\n  jitter_reference:\n    - {flow: short, interval: 0s}\n"),
        "measure.jitter_reference[0].interval",
        Some(14),
        &["must be above zero"],
    );
    let bulk = two_hosts(
        "duration: 10s",
        "rate: 10Mbps",
        "{kind: fifo}",
        "  - {name: ftp, from: tx, to: rx, app: {kind: bulk, size: 10kB}}\n",
    ) + "measure: {jitter_reference: [{flow: ftp, interval: 20ms}]}\n";
    assert_refused("tcp", &bulk, "measure.jitter_reference[0].flow", Some(10), &["TCP connections", "`ptt`"]);
}
