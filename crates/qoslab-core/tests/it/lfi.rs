//! Link fragmentation and interleaving (multilink PPP).

use crate::common::{flow, run_yaml};
use qoslab_core::Results;

/// A 128 kbit/s PPP link (7 B framing per frame, transmit ring 1) with LLQ: EF voice of
/// 60-byte packets every 20 ms in a priority class, and `data` of 1500-byte packets at
/// `data_rate` in class-default (without voice when `voice` is false); `lfi` on the
/// sending interface.
fn serial(lfi: &str, data_rate: &str, loss: &str, voice: bool) -> Results {
    let voice = if voice {
        "  - {name: voice, from: a, to: b, dscp: EF, pattern: {kind: cbr, rate_pps: 50, size: 60B}}\n"
    } else {
        ""
    };
    run_yaml(
        &format!(
            "name: lfi
run: {{duration: 60s, warmup: 2s, seed: 1}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 128kbps, l2: ppp, tx_ring: 1, loss: {loss}}}]
interfaces:
  a:
    b:
      lfi: {lfi}
      output: {{kind: cbwfq, classes: [{{name: voice, match: {{dscp: EF}}, priority: 64kbps}}]}}
traffic:
{voice}  - {{name: data, from: a, to: b, pattern: {{kind: cbr, rate: {data_rate}, size: 1500B}}}}
"
        ),
        &[],
    )
}

/// Without fragmentation a voice packet may wait for a whole 1507-byte frame (94.1875 ms)
/// and its own 67 bytes (4.1875 ms); with 10 ms fragments (160 B, a 4 B multilink header
/// and 7 B framing: 10.6875 ms) the wait is one fragment. The data link is saturated, so
/// both bounds are nearly reached.
#[test]
fn voice_waits_for_one_fragment_instead_of_one_packet() {
    let whole = serial("null", "200kbps", "0%", true);
    let whole_max = flow(&whole, "voice").delay_max_ms.unwrap();
    assert!(whole_max <= 94.1875 + 4.1875 + 1e-6 && whole_max > 85.0, "{whole_max}");
    let fragmented = serial("{fragment_delay: 10ms}", "200kbps", "0%", true);
    let voice = flow(&fragmented, "voice");
    let max = voice.delay_max_ms.unwrap();
    assert!(max <= 10.6875 + 4.1875 + 1e-6 && max > 12.0, "{max}");
    assert_eq!(voice.loss_pct, Some(0.0));
    // Without interleaving the fragments of a packet go back to back: no better than whole.
    let sequential = serial("{fragment_delay: 10ms, interleave: false}", "200kbps", "0%", true);
    assert!(flow(&sequential, "voice").delay_max_ms.unwrap() > 85.0);
}

/// The data flow pays the fragmentation overhead: 1500 + 2 B of payload in 10 fragments,
/// each with 4 B of multilink header and 7 B of framing, is 1612 B on the wire instead of
/// 1507. The voice takes 67 B every 20 ms (26.8 kbit/s), so the data gets
/// (128 − 26.8) kbit/s × 1500 / 1612 = 94.17 kbit/s of IP throughput.
#[test]
fn fragments_cost_their_headers() {
    let results = serial("{fragment_delay: 10ms}", "200kbps", "0%", true);
    let data = flow(&results, "data").delivered_l3_bps;
    let expected = (128_000.0 - 26_800.0) * 1500.0 / 1612.0;
    assert!((data / expected - 1.0).abs() < 0.01, "{data} vs {expected}");
}

/// An idle link: one 1500-byte packet a second arrives with its last fragment, after all
/// ten frames (9 × 171 B + 73 B = 1612 B, 100.75 ms at 128 kbit/s). With voice, each voice
/// packet sent between its fragments adds its own 4.1875 ms.
#[test]
fn a_fragmented_packet_arrives_with_its_last_fragment() {
    let alone = serial("{fragment_delay: 10ms}", "12kbps", "0%", false);
    let data = flow(&alone, "data");
    assert_eq!((data.delay_min_ms, data.delay_max_ms), (Some(100.75), Some(100.75)));
    let with_voice = serial("{fragment_delay: 10ms}", "12kbps", "0%", true);
    let min = flow(&with_voice, "data").delay_min_ms.unwrap();
    let interleaved = (min - 100.75) / 4.1875;
    assert!(interleaved >= 1.0 && (interleaved - interleaved.round()).abs() < 1e-6, "{min}");
}

/// Losing any fragment loses the packet: with 10 % of frames lost, a packet of 10
/// fragments arrives with probability 0.9¹⁰, so 65.1 % are lost (± 7 points: three
/// standard deviations over 400 packets; losing only the last fragment would give 10 %);
/// whole voice packets lose 10 %. The link is 88 % loaded, so nothing else drops.
#[test]
fn a_lost_fragment_loses_its_packet() {
    let results = serial("{fragment_delay: 10ms}", "80kbps", "10%", true);
    let data = flow(&results, "data");
    assert_eq!(data.dropped_packets, data.dropped_by_reason["dropped_link_loss_packets"].as_u64().unwrap());
    let data = data.loss_pct.unwrap();
    assert!((data - 65.13).abs() < 7.0, "{data}");
    let voice = flow(&results, "voice").loss_pct.unwrap();
    assert!((voice - 10.0).abs() < 1.5, "{voice}");
}

/// A zero fragment delay is refused.
#[test]
fn a_zero_fragment_delay_is_refused() {
    let text = "name: t
run: {duration: 1s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 128kbps}]
interfaces:
  a: {b: {lfi: {fragment_delay: 0ms}}}
traffic: []
";
    let error = qoslab_core::load(text, "t.yaml", &[], None).err().expect("refused").to_string();
    assert!(error.contains("interfaces.a.b.lfi.fragment_delay") && error.contains("above zero"), "{error}");
}

/// 10 s on 128 kbit/s PPP (ring 1) with 10 ms fragments, the link going to 256 kbit/s at
/// `step_at`, carrying 1500-byte packets from `start` with `pattern`.
fn stepped_link(step_at: &str, start: &str, pattern: &str) -> Results {
    run_yaml(
        &format!(
            "name: lfi-step
run: {{duration: 10s, seed: 1}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 128kbps, l2: ppp, tx_ring: 1, rate_changes: [{{at: {step_at}, rate: 256kbps}}]}}]
interfaces:
  a: {{b: {{lfi: {{fragment_delay: 10ms}}}}}}
traffic:
  - {{name: data, from: a, to: b, start: {start}, pattern: {pattern}}}
"
        ),
        &[],
    )
}

/// The fragment size follows the link to a new rate: one idle 1500-byte packet a second
/// on 128 kbit/s PPP with 10 ms fragments takes 10 fragments, 1612 B, 100.75 ms; after the
/// link goes to 256 kbit/s at 5 s, fragments are 320 B: 5 of them, 1502 + 5 × 11 = 1557 B,
/// 48.65625 ms (the old size would take 1612 B, 50.375 ms).
#[test]
fn fragments_follow_a_rate_change() {
    let results = stepped_link("5s", "500ms", "{kind: cbr, rate_pps: 1, size: 1500B}");
    let data = flow(&results, "data");
    assert_eq!(data.received_packets, 10);
    assert!((data.delay_max_ms.unwrap() - 100.75).abs() < 1e-6, "{:?}", data.delay_max_ms);
    assert!((data.delay_min_ms.unwrap() - 48.65625).abs() < 1e-6, "{:?}", data.delay_min_ms);
}

/// On a saturated link the change comes while a packet is being fragmented: its remaining
/// fragments keep their size, the next packet takes the new one, and every frame is
/// accounted for (the end-of-run checks), with the wire busy throughout.
#[test]
fn a_rate_change_mid_packet_keeps_its_fragments() {
    let results = stepped_link("5003ms", "0s", "{kind: cbr, rate: 400kbps, size: 1500B}");
    let port = results.ports.iter().find(|p| p.port == "a->b").unwrap();
    assert!(port.utilisation_pct > 99.9, "{}", port.utilisation_pct);
    assert!(flow(&results, "data").received_packets > 100);
}
