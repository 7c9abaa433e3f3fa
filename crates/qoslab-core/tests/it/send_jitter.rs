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
        "  - {name: f, from: tx, to: rx, send_jitter: 5ms, app: {kind: ptt, voice: {codec: gsm-fr}}}\n",
    );
    assert_refused(
        "app",
        &app,
        "traffic[0].send_jitter",
        Some(9),
        &["delays the packets of an open-loop pattern", "when it and TCP send them"],
    );
}
