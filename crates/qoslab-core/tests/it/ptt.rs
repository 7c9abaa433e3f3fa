//! Push-to-talk voice with TCP signalling on an idle path, where every packet's fate can be
//! written down.

use crate::common::{flow, run_yaml, two_hosts};

/// Talk 5 s, pause 10 s (constant), GSM-FR every 20 ms (73-byte packets), over 10 Mbit/s
/// with 10 ms each way. The first spurt follows a first pause, so spurts start at 10 s,
/// 25 s, ..., 130 s: 9 in 140 s, each of 250 packets (the last at 4.98 s) delivered after
/// 58.4 µs of serialization and 10 ms of propagation. Each spurt writes two 284-byte
/// messages; at a spurt's start the message leaves behind that instant's voice packet
/// (58.4 + 259.2 µs + 10 ms), at its end alone (259.2 µs + 10 ms).
#[test]
fn talk_spurts_and_their_signalling_follow_the_schedule() {
    let results = run_yaml(
        &two_hosts(
            "duration: 140s, seed: 1",
            "rate: 10Mbps, delay: 10ms, l2: none",
            "{kind: fifo}",
            "  - {name: lmr, from: tx, to: rx, app: {kind: ptt, voice: {codec: gsm-fr}, talk: 5s, pause: 10s}}\n",
        ),
        &[],
    );
    let spurts: Vec<_> = results.spurts.iter().filter(|s| s.app == "lmr").collect();
    assert_eq!(spurts.len(), 9);
    for (k, spurt) in spurts.iter().enumerate() {
        assert!((spurt.start_s - (10.0 + 15.0 * k as f64)).abs() < 1e-9, "spurt {k} at {}", spurt.start_s);
        assert!((spurt.duration_s - 4.98).abs() < 1e-9);
        assert_eq!((spurt.sent_packets, spurt.received_packets, spurt.loss_pct), (250, 250, 0.0));
        assert!((spurt.delay_max_ms.unwrap() - 10.0584).abs() < 1e-9);
    }
    let voice = flow(&results, "lmr");
    assert_eq!((voice.protocol.as_str(), voice.packet_size_bytes, voice.sent_packets), ("udp", 73, 2250));
    let control = flow(&results, "lmr.signalling");
    assert_eq!((control.protocol.as_str(), control.dst_port), ("tcp", 8896));
    let app = results.apps.iter().find(|a| a.app == "lmr").unwrap();
    assert_eq!((app.transfers_started, app.transfers_completed, app.delivered_bytes), (18, 18, 18 * 284));
    let mean_ms = 1e3 * app.completion_mean_s.unwrap();
    let expected_ms = ((0.0584 + 0.2592 + 10.0) + (0.2592 + 10.0)) / 2.0;
    assert!((mean_ms - expected_ms).abs() < 1e-6, "signalling delay {mean_ms} ms, expected {expected_ms} ms");
    // The thesis counts TCP packets as signalling overhead: the handshake (SYN, SYN-ACK,
    // ACK), 18 messages and the server's 18 delayed ACKs.
    assert_eq!((app.segments, app.control_segments, app.retransmitted_segments), (39, 21, 0));
}
