//! Push-to-talk voice with TCP signalling on an idle path, where every packet's fate can be
//! written down.

use crate::common::{assert_refused, flow, run_yaml, two_hosts};

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
    // The thesis counts TCP packets as signalling overhead: the two connections' handshakes
    // (SYN, SYN-ACK, ACK each), 18 messages and the server's 18 delayed ACKs.
    assert_eq!((app.segments, app.control_segments, app.retransmitted_segments), (42, 24, 0));
}

/// A continuous talker (the thesis' continuous traffic): GSM-FR every 20 ms from the
/// application's start, over 10 Mbit/s with 10 ms each way, for 10 s. Voice: 500 packets in
/// one spurt from 0 to 9.98 s. Signalling: the opening message is written as the connection
/// opens at 0 and leaves with the handshake's ACK once the SYN-ACK is back: the SYN (40 B,
/// 32 µs) and SYN-ACK (32 µs) cross in 20.064 ms, the 324-byte message (259.2 µs) arrives
/// at 30.3232 ms; the server acknowledges it 40 ms later (delayed ACK). The second control
/// connection opens 12.147 ms after the first, its handshake's three segments on the link
/// between the first's SYN and SYN-ACK. Seven segments, six of them without data; nothing
/// more while the user talks, no closing message, and no random draw. After a 5 s warm-up the measured window holds none of it: no segment, no
/// transfer, and no `spurts` row (the spurt began before the window).
#[test]
fn a_continuous_talker_signals_once_and_talks_to_the_end() {
    let scenario = |run: &str| {
        two_hosts(
            run,
            "rate: 10Mbps, delay: 10ms, l2: none",
            "{kind: fifo}",
            "  - {name: lmr, from: tx, to: rx, app: {kind: ptt, voice: {codec: gsm-fr}, talk: continuous}}\n",
        )
    };
    let results = run_yaml(&scenario("duration: 10s"), &[]);
    let voice = flow(&results, "lmr");
    assert_eq!((voice.sent_packets, voice.received_packets), (500, 500));
    let spurts: Vec<_> = results.spurts.iter().filter(|s| s.app == "lmr").collect();
    assert_eq!(spurts.len(), 1);
    assert_eq!((spurts[0].start_s, spurts[0].sent_packets), (0.0, 500));
    assert!((spurts[0].duration_s - 9.98).abs() < 1e-9);
    let app = results.apps.iter().find(|a| a.app == "lmr").unwrap();
    assert_eq!((app.transfers_started, app.transfers_completed, app.delivered_bytes), (1, 1, 284));
    assert_eq!((app.segments, app.control_segments, app.retransmitted_segments), (7, 6, 0));
    let delay_ms = 1e3 * app.completion_mean_s.unwrap();
    assert!((delay_ms - 30.3232).abs() < 1e-6, "signalling delay {delay_ms} ms");
    assert_eq!(results.run.random_draws, 0);
    // docs/applications.md tells this run: the handshake's two 40-byte segments, each 10 ms
    // and its serialization at 10 Mbit/s, then the message (284 B and 40 B of headers).
    let handshake_ms = 2.0 * (10.0 + 40.0 * 8.0 / 10e3);
    let told = format!(
        "SYN-ACK cross in {handshake_ms} ms, the {}-byte message arrives at {delay_ms:.4} ms, the server's delayed ACK \
         follows 40 ms later, and the second connection's handshake adds three — seven segments in all",
        app.delivered_bytes + 40
    );
    let page =
        include_str!("../../../../docs/applications.md").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(page.contains(&told), "docs/applications.md does not say `{told}`");

    let warm = run_yaml(&scenario("duration: 10s, warmup: 5s"), &[]);
    assert_eq!(flow(&warm, "lmr").sent_packets, 500);
    let app = warm.apps.iter().find(|a| a.app == "lmr").unwrap();
    assert_eq!((app.segments, app.transfers_started), (0, 0));
    assert!(warm.spurts.iter().all(|s| s.app != "lmr"));
}

/// A continuous talker never pauses, so `pause` with it is refused at `pause`; a word that
/// is neither `continuous` nor a duration is refused at `talk`.
#[test]
fn continuous_talk_takes_no_pause() {
    let with = |app: &str| {
        two_hosts(
            "duration: 10s",
            "rate: 10Mbps",
            "{kind: fifo}",
            &format!("  - name: lmr\n    from: tx\n    to: rx\n    app:\n{app}"),
        )
    };
    let paused =
        with("      kind: ptt\n      voice: {codec: gsm-fr}\n      talk: continuous\n      pause: 10s\n");
    assert_refused(
        "pause",
        &paused,
        "traffic[0].app.pause",
        Some(16),
        &["a continuous talker never pauses", "`talk` spurt lengths"],
    );
    let typo = with("      kind: ptt\n      voice: {codec: gsm-fr}\n      talk: continous\n");
    assert_refused("typo", &typo, "traffic[0].app.talk", Some(15), &["neither `continuous` nor a duration"]);
}

/// Voice given as packets (the thesis' IP Tone: 370-byte IP packets every 197 ms) instead of
/// a codec preset, from a continuous talker over 38,400 bit/s with no framing and no
/// propagation delay, for 10 s: packets at 0, 197, ..., 9850 ms — 51 of them — each
/// serialized in 370 × 8 / 38400 s = 77.083 ms. The control connection's SYN (40 B,
/// 8.333 ms) opens at the same instant and leaves first, so the first packet arrives
/// 8.333 ms late and the gap to the second is 8.333 ms short of the 197 ms interval: the
/// deviation jitter is 8.333 ms at most and 8.333 / 51 ms on average. The opening message
/// (324 B, 67.5 ms) leaves behind the first voice packet and is gone before the second.
/// The flow has no codec, so it has no voice-quality row.
#[test]
fn voice_given_as_packets_leaves_every_interval() {
    let results = run_yaml(
        &two_hosts(
            "duration: 10s",
            "rate: 38400bps, l2: none",
            "{kind: fifo}",
            "  - {name: lmr, from: tx, to: rx, app: {kind: ptt, voice: {size: 370B, interval: 197ms}, talk: continuous}}\n",
        ),
        &[],
    );
    let voice = flow(&results, "lmr");
    assert_eq!((voice.protocol.as_str(), voice.packet_size_bytes), ("udp", 370));
    assert_eq!((voice.sent_packets, voice.received_packets), (51, 51));
    assert!((voice.delay_min_ms.unwrap() - 370.0 * 8.0 / 38.4).abs() < 1e-6);
    let syn_ms = 40.0 * 8.0 / 38.4;
    assert!((voice.delay_max_ms.unwrap() - 370.0 * 8.0 / 38.4 - syn_ms).abs() < 1e-5);
    assert!((voice.jitter_max_ms.unwrap() - syn_ms).abs() < 1e-5);
    assert!((voice.jitter_avg_ms.unwrap() - syn_ms / 51.0).abs() < 1e-5);
    assert!(results.voice.iter().all(|v| v.flow != "lmr"));
}

/// Voice packets need a size of at least the IPv4 and UDP headers and a non-zero interval;
/// a voice that is neither a codec nor packets says what to give, and an unknown key is
/// refused at its place.
#[test]
fn voice_packets_are_checked() {
    let with = |voice: &str| {
        two_hosts(
            "duration: 10s",
            "rate: 10Mbps",
            "{kind: fifo}",
            &format!(
                "  - name: lmr\n    from: tx\n    to: rx\n    app:\n      kind: ptt\n      voice: {voice}\n"
            ),
        )
    };
    assert_refused(
        "small",
        &with("{size: 20B, interval: 20ms}"),
        "traffic[0].app.voice.size",
        None,
        &["smaller than the 28-byte IPv4 + UDP header"],
    );
    assert_refused(
        "zero",
        &with("{size: 370B, interval: 0s}"),
        "traffic[0].app.voice.interval",
        None,
        &["0 s apart"],
    );
    assert_refused(
        "neither",
        &with("{rate: 13kbps}"),
        "traffic[0].app.voice",
        Some(14),
        &["give a `codec`", "`size` and `interval`"],
    );
    assert_refused(
        "typo",
        &with("{size: 370B, interval: 197ms, header: 40B}"),
        "traffic[0].app.voice.header",
        Some(14),
        &["unknown key `header`"],
    );
}
