//! Two jitter measures of one flow at its receiver.
//!
//! **RFC 3550 §6.4.1 interarrival jitter**: for consecutive arrivals i−1, i with send times S
//! and receive times R, D = (R_i − R_{i−1}) − (S_i − S_{i−1}), and the estimate moves
//! towards |D| by a sixteenth each time: J ← J + (|D| − J)/16. Computed in arrival order,
//! in nanoseconds, in floating point (it is a statistic, not a timing decision).
//!
//! **Inter-arrival deviation jitter** (the LMR VoIP thesis' Appendix C analysis script): the
//! receiver measures the time between successive packets of the flow and compares it with
//! the nominal sending interval; the absolute difference is that packet's jitter. A
//! difference larger than a gap threshold (1 s in the thesis) is a silence between talk
//! spurts, not jitter: it is skipped and the measurement restarts at that packet. The
//! average is the sum of the deviations divided by the number of packets received (as the
//! script divides by its voice packet count); the maximum is the largest deviation kept.

use crate::time::SimTime;

/// Streaming jitter state of one flow.
#[derive(Clone, Debug, Default)]
pub struct Jitter {
    /// Nominal sending interval the deviation is measured against, ns.
    nominal_interval_ns: u64,
    /// Deviations above this are talk-spurt gaps, not jitter, ns.
    gap_threshold_ns: u64,
    last_send: Option<SimTime>,
    last_arrival: Option<SimTime>,
    rfc3550_ns: f64,
    sum_deviation_ns: u128,
    max_deviation_ns: u64,
    arrivals: u64,
    gaps: u64,
}

impl Jitter {
    /// A fresh estimator for a flow sending every `nominal_interval_ns` (0 when the flow has
    /// no nominal interval; the deviation measure then compares against 0).
    pub fn new(nominal_interval_ns: u64, gap_threshold_ns: u64) -> Self {
        Jitter { nominal_interval_ns, gap_threshold_ns, ..Default::default() }
    }

    /// Accounts one arrival of a packet sent at `sent` and received at `received`.
    #[inline]
    pub fn record(&mut self, sent: SimTime, received: SimTime) {
        self.arrivals += 1;
        if let (Some(last_send), Some(last_arrival)) = (self.last_send, self.last_arrival) {
            // RFC 3550 §6.4.1: D = (Rj − Ri) − (Sj − Si).
            let d = (received.0 as i128 - last_arrival.0 as i128) - (sent.0 as i128 - last_send.0 as i128);
            self.rfc3550_ns += ((d.unsigned_abs() as f64) - self.rfc3550_ns) / 16.0;

            let interarrival_ns = received.since(last_arrival);
            let deviation_ns = interarrival_ns.abs_diff(self.nominal_interval_ns);
            if deviation_ns > self.gap_threshold_ns {
                self.gaps += 1;
            } else {
                self.sum_deviation_ns += deviation_ns as u128;
                self.max_deviation_ns = self.max_deviation_ns.max(deviation_ns);
            }
        }
        self.last_send = Some(sent);
        self.last_arrival = Some(received);
    }

    /// The nominal sending interval, ns (0 if the flow has none).
    pub fn nominal_interval_ns(&self) -> u64 {
        self.nominal_interval_ns
    }

    /// The RFC 3550 estimate after the last arrival, ns.
    pub fn rfc3550_ns(&self) -> f64 {
        self.rfc3550_ns
    }

    /// Mean absolute deviation from the nominal interval per received packet, ns.
    pub fn mean_deviation_ns(&self) -> f64 {
        if self.arrivals == 0 {
            0.0
        } else {
            self.sum_deviation_ns as f64 / self.arrivals as f64
        }
    }

    /// Largest deviation kept (gaps excluded), ns.
    pub fn max_deviation_ns(&self) -> u64 {
        self.max_deviation_ns
    }

    /// Inter-arrival gaps skipped as silences.
    pub fn gaps(&self) -> u64 {
        self.gaps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_delay_has_no_jitter() {
        let mut j = Jitter::new(20_000_000, 1_000_000_000);
        for i in 0..100u64 {
            j.record(SimTime(i * 20_000_000), SimTime(i * 20_000_000 + 5_000_000));
        }
        assert_eq!(j.rfc3550_ns(), 0.0);
        assert_eq!(j.mean_deviation_ns(), 0.0);
        assert_eq!(j.max_deviation_ns(), 0);
    }

    #[test]
    fn hand_computed_trace() {
        // Sent every 20 ms; delays 0, 10, 0, 10 ms -> inter-arrivals 30, 10, 30 ms.
        let mut j = Jitter::new(20_000_000, 1_000_000_000);
        let ms = 1_000_000u64;
        for (i, delay) in [0, 10, 0, 10].iter().enumerate() {
            let sent = i as u64 * 20 * ms;
            j.record(SimTime(sent), SimTime(sent + delay * ms));
        }
        // |D| = 10 ms each time: J = 10(1 − (15/16)^3) ms.
        let expected = 10e6 * (1.0 - (15.0f64 / 16.0).powi(3));
        assert!((j.rfc3550_ns() - expected).abs() < 1e-6);
        // Deviations 10, 10, 10 ms over 4 packets received.
        assert_eq!(j.mean_deviation_ns(), 30e6 / 4.0);
        assert_eq!(j.max_deviation_ns(), 10 * ms);
    }

    #[test]
    fn silences_are_not_jitter() {
        let ms = 1_000_000u64;
        let mut j = Jitter::new(20 * ms, 1_000 * ms);
        j.record(SimTime(0), SimTime(0));
        j.record(SimTime(20 * ms), SimTime(20 * ms));
        // A 5 s silence between talk spurts.
        j.record(SimTime(5_000 * ms), SimTime(5_000 * ms));
        j.record(SimTime(5_020 * ms), SimTime(5_021 * ms));
        assert_eq!(j.gaps(), 1);
        assert_eq!(j.max_deviation_ns(), ms);
    }
}
