//! Send-timing jitter of open-loop sources (`send_jitter`): each packet leaves a random delay
//! after its nominal instant, the schedule does not drift, packets stay in order, and the
//! delay is measured from the actual departure. On an idle link the arrival spacing is the
//! departure spacing, so the deviation jitter has an analytical mean.

use crate::common::{assert_refused, flow, run_with_deliveries, two_hosts, Delivery};

const MS: u64 = 1_000_000;

/// CBR at 50 packets/s (20 ms apart, 100 B: 80 µs on the wire) over an idle 10 Mbit/s link
/// 1 ms long, for `duration`, with the traffic entry's further `keys` (`key: value, `).
fn cbr_with_jitter(duration: &str, keys: &str) -> (Vec<Delivery>, qoslab_core::Results) {
    let flows = format!(
        "  - {{name: f, from: tx, to: rx, {keys}pattern: {{kind: cbr, rate_pps: 50, size: 100B}}}}\n"
    );
    run_with_deliveries(&two_hosts(
        &format!("duration: {duration}, seed: 3"),
        "rate: 10Mbps, l2: none, delay: 1ms",
        "{kind: fifo}",
        &flows,
    ))
}

/// Uniform send jitter on [0, J], J = 10 ms, half the interval T = 20 ms, so no packet
/// catches up with the one before it: packet k leaves at kT + U_k. The inter-arrival time
/// is T + U_k − U_{k−1}, its deviation from T is |U_k − U_{k−1}|, and for independent
/// uniforms E|U₁ − U₂| = J/3. The script's average divides the n − 1 deviations by n
/// packets: (J/3)(n − 1)/n. For n = 20 000 the deviations have variance J²/18 and
/// neighbours covariance J²/180, so the mean's standard deviation is J/√(15n) ≈ 0.018 ms;
/// the tolerance, 0.1 ms, is over 5 of them. Each deviation is at most J, and the largest of
/// about 10 000 independent ones falls below 0.95 J with probability 0.9975^10000 ≈ e^−25.
///
/// The jitter happens before the network: every one-way delay is the 80 µs on the wire plus
/// 1 ms, and RFC 3550 jitter, which compares arrivals with send times, stays 0. The mean
/// lateness after the nominal instant is J/2 (standard deviation J/√(12n) ≈ 0.02 ms).
#[test]
fn uniform_send_jitter_gives_a_third_of_its_width_as_deviation_jitter() {
    let (deliveries, results) = cbr_with_jitter("400s", "send_jitter: {uniform: [0ms, 10ms]}, ");
    let n = 20_000u64;
    let f = flow(&results, "f");
    assert_eq!((f.sent_packets, f.received_packets), (n, n));
    let j_ms = 10.0;
    let expected_ms = j_ms / 3.0 * (n - 1) as f64 / n as f64;
    let avg_ms = f.jitter_avg_ms.unwrap();
    assert!((avg_ms - expected_ms).abs() < 0.1, "jitter_avg_ms {avg_ms}, expected {expected_ms}");
    let max_ms = f.jitter_max_ms.unwrap();
    assert!(max_ms <= j_ms && max_ms > 0.95 * j_ms, "jitter_max_ms {max_ms}");
    assert_eq!(f.jitter_rfc3550_ms, Some(0.0));
    assert!((f.delay_min_ms.unwrap() - 1.08).abs() < 1e-9 && (f.delay_max_ms.unwrap() - 1.08).abs() < 1e-9);
    // Each packet leaves within [kT, kT + J]; on average J/2 late.
    let mut late_sum_ns = 0u64;
    for (k, d) in (0u64..).zip(&deliveries) {
        let late_ns = d.created_ns - k * 20 * MS;
        assert!(late_ns <= 10 * MS, "packet {k} left {late_ns} ns late");
        late_sum_ns += late_ns;
    }
    let late_mean_ms = late_sum_ns as f64 / n as f64 / 1e6;
    assert!((late_mean_ms - 5.0).abs() < 0.1, "{late_mean_ms}");
    assert!(results.run.random_draws >= n);
}

/// Delays of up to three intervals (uniform on [0, 60 ms], packets 20 ms apart) make
/// packets catch up with earlier ones; they then leave right behind them, never before:
/// departures never decrease, each packet leaves at most 60 ms after its nominal instant
/// (the schedule does not drift), and all of a 500-packet stream leaves in its 10 s plus at
/// most 60 ms.
#[test]
fn late_packets_do_not_overtake_and_the_schedule_does_not_drift() {
    let (deliveries, results) = cbr_with_jitter("11s", "packets: 500, send_jitter: {uniform: [0ms, 60ms]}, ");
    assert_eq!(flow(&results, "f").sent_packets, 500);
    let created: Vec<u64> = deliveries.iter().map(|d| d.created_ns).collect();
    assert!(created.windows(2).all(|w| w[0] <= w[1]), "departures out of order");
    assert!(created.windows(2).any(|w| w[0] == w[1]), "no packet caught up with the one before");
    for (k, &at) in (0u64..).zip(&created) {
        assert!(at >= k * 20 * MS && at <= k * 20 * MS + 60 * MS, "packet {k} at {at}");
    }
}

/// Without `send_jitter` a CBR source draws no random number at all, and its packets leave
/// exactly on the nominal instants.
#[test]
fn without_send_jitter_nothing_is_drawn() {
    let (deliveries, results) = cbr_with_jitter("10s", "");
    assert_eq!(results.run.random_draws, 0);
    assert!((0u64..).zip(&deliveries).all(|(k, d)| d.created_ns == k * 20 * MS));
    assert_eq!(flow(&results, "f").jitter_avg_ms, Some(0.0));
}

/// A zero send jitter and a send jitter on an application are refused at `send_jitter`.
#[test]
fn bad_send_jitter_is_refused_at_its_key() {
    let zero = two_hosts(
        "duration: 10s",
        "rate: 10Mbps",
        "{kind: fifo}",
        "  - name: f\n    from: tx\n    to: rx\n    send_jitter: {uniform: [0ms, 0ms]}\n    pattern: {kind: cbr, rate_pps: 50, size: 100B}\n",
    );
    assert_refused(
        "zero",
        &zero,
        "traffic[0].send_jitter",
        Some(12),
        &["0 s delays nothing", "or give a delay such as"],
    );
    let app = two_hosts(
        "duration: 10s",
        "rate: 10Mbps",
        "{kind: fifo}",
        "  - {name: f, from: tx, to: rx, send_jitter: 5ms, app: {kind: bulk, size: 1MB}}\n",
    );
    assert_refused(
        "app",
        &app,
        "traffic[0].send_jitter",
        Some(9),
        &["of an open-loop pattern or of push-to-talk voice", "when it and TCP send them"],
    );
}

/// Push-to-talk voice (`app: {kind: ptt}`) takes the same send jitter: GSM-FR every 20 ms,
/// each packet late by a uniform draw on [0, 10 ms], talking 5 s and pausing 10 s (constant)
/// for 400 s over the idle link. The voice clock runs on the nominal instants, so the
/// spurts still start at 10 s, 25 s, ... (the first after a first pause), each late only
/// by its first packet's draw, and each still holds the 250 packets of its 5 s; the jitter
/// never moves a later spurt. Within a spurt the deviation jitter is |U_k − U_{k−1}| as
/// above, of mean J/3; the pause between spurts (over 1 s) is no jitter sample. The 26
/// spurts of 250 packets give 26 × 249 deviations over 6,500 packets: (J/3)(249/250), with
/// a standard deviation of J/√(15 × 6474) ≈ 0.032 ms; the tolerance 0.15 ms is over 4 of
/// them. The one-way delay is unchanged (measured from the actual departure).
#[test]
fn push_to_talk_voice_is_late_by_its_draws_and_its_spurts_keep_their_schedule() {
    let scenario = |keys: &str| {
        two_hosts(
            "duration: 400s, seed: 3",
            "rate: 10Mbps, l2: none, delay: 1ms",
            "{kind: fifo}",
            &format!(
                "  - {{name: lmr, from: tx, to: rx, {keys}app: {{kind: ptt, voice: {{codec: gsm-fr}}, talk: 5s, pause: 10s}}}}\n"
            ),
        )
    };
    let (_, plain) = run_with_deliveries(&scenario(""));
    let (deliveries, results) = run_with_deliveries(&scenario("send_jitter: {uniform: [0ms, 10ms]}, "));
    let spurts: Vec<_> = results.spurts.iter().filter(|s| s.app == "lmr").collect();
    assert_eq!(spurts.len(), 26);
    for (k, spurt) in spurts.iter().enumerate() {
        let late_s = spurt.start_s - (10.0 + 15.0 * k as f64);
        assert!((0.0..=0.010).contains(&late_s), "spurt {k} starts {late_s} s late");
        assert_eq!((spurt.sent_packets, spurt.received_packets), (250, 250), "spurt {k}");
    }
    let row = flow(&results, "lmr");
    assert_eq!(row.sent_packets, 26 * 250);
    let expected_ms = 10.0 / 3.0 * 249.0 / 250.0;
    let avg_ms = row.jitter_avg_ms.unwrap();
    assert!((avg_ms - expected_ms).abs() < 0.15, "jitter_avg_ms {avg_ms}, expected {expected_ms}");
    assert_eq!(flow(&plain, "lmr").jitter_avg_ms, Some(0.0));
    // Packet i of spurt k is due at (10 + 15k) s + i × 20 ms and leaves within 10 ms of it;
    // its one-way delay is the 58.4 µs on the wire and the 1 ms of the link.
    let voice: Vec<&Delivery> = deliveries.iter().filter(|d| d.flow == "lmr").collect();
    assert_eq!(voice.len(), 6500);
    for (n, d) in (0u64..).zip(&voice) {
        let due_ns = (10 + 15 * (n / 250)) * 1_000 * MS + (n % 250) * 20 * MS;
        assert!((due_ns..=due_ns + 10 * MS).contains(&d.created_ns), "packet {n} at {}", d.created_ns);
        assert_eq!(d.arrived_ns - d.created_ns, MS + 58_400, "packet {n}");
    }
}

/// The send jitter of push-to-talk voice draws from a random stream of its own: with talk
/// spurts and pauses drawn at random (the application's defaults, uniform 1–18 s and
/// 1–75 s), the spurts are those of the same sender without jitter, each starting at most
/// one draw (10 ms) later and holding the same packets.
#[test]
fn push_to_talk_send_jitter_leaves_the_talk_spurts_as_drawn() {
    let scenario = |keys: &str| {
        two_hosts(
            "duration: 600s, seed: 4",
            "rate: 10Mbps, l2: none, delay: 1ms",
            "{kind: fifo}",
            &format!(
                "  - {{name: lmr, from: tx, to: rx, {keys}app: {{kind: ptt, voice: {{codec: gsm-fr}}}}}}\n"
            ),
        )
    };
    let spurts = |results: &qoslab_core::Results| -> Vec<(f64, u64)> {
        results.spurts.iter().map(|s| (s.start_s, s.sent_packets)).collect()
    };
    let (_, plain) = run_with_deliveries(&scenario(""));
    let (_, jittered) = run_with_deliveries(&scenario("send_jitter: {uniform: [0ms, 10ms]}, "));
    let (before, after) = (spurts(&plain), spurts(&jittered));
    assert!(before.len() > 5, "{before:?}");
    assert_eq!(before.len(), after.len());
    for ((start, sent), (late_start, late_sent)) in before.iter().zip(&after) {
        assert!((0.0..=0.010).contains(&(late_start - start)), "{start} → {late_start}");
        assert_eq!(sent, late_sent, "spurt at {start}");
    }
}
