//! Two jitter measures of one flow at its receiver.
//!
//! **RFC 3550 §6.4.1 interarrival jitter**: for consecutive arrivals i−1, i with send times S
//! and receive times R, D = (R_i − R_{i−1}) − (S_i − S_{i−1}), and the estimate moves
//! towards |D| by a sixteenth each time: J ← J + (|D| − J)/16. Computed in arrival order,
//! in nanoseconds, in floating point (it is a statistic, not a timing decision).
//!
//! **Inter-arrival deviation jitter** (lmr-voip-thesis Appendix C, its TCL analysis script):
//! the receiver measures the time since the flow's previous packet arrived and compares it
//! with a reference interval; the absolute difference is that packet's jitter. The script's
//! reference is a fixed `delta`, the mean time between voice packets measured at the source
//! (0.197 s for its QoS tests, 0.0982 s for its IP link tests); here it is the flow's nominal
//! sending interval unless the scenario sets one (`measure.jitter_reference`). A difference
//! larger than a gap threshold (1 s in the script) is a silence between talk spurts, not
//! jitter: it is skipped and the measurement restarts at that packet, as the script resets
//! its accumulated time there. The average is the sum of the deviations kept divided by the
//! number of packets received — the script counts a voice packet before it tests the
//! threshold, so the skipped ones and the first are in the divisor; the maximum is the
//! largest deviation kept.
//!
//! The script works on a capture of every packet on the server's LAN, with the time since
//! the previous captured packet on each line: it adds up those times across the background
//! and TCP packets in between to get the time since the previous voice packet. Here that
//! time is the difference of the two arrival times, the same quantity. Two edges differ:
//! the script's first voice packet is compared with the time since the capture began (here
//! the first arrival has no deviation), and the capture counts the packets that arrive in
//! it where qoslab counts those created after the warm-up. Each changes at most one
//! packet's deviation.

use crate::time::SimTime;

/// Streaming jitter state of one flow.
#[derive(Clone, Debug, Default)]
pub struct Jitter {
    /// Nominal sending interval of the flow, ns (0 if it has none).
    nominal_interval_ns: u64,
    /// The interval inter-arrival times are compared with, ns: the nominal interval unless
    /// the scenario sets another.
    reference_ns: u64,
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
    /// no nominal interval; the deviation measure then compares against 0 unless a
    /// reference is set).
    pub fn new(nominal_interval_ns: u64, gap_threshold_ns: u64) -> Self {
        Jitter {
            nominal_interval_ns,
            reference_ns: nominal_interval_ns,
            gap_threshold_ns,
            ..Default::default()
        }
    }

    /// Compares inter-arrival times with `reference_ns` instead of the nominal interval (the
    /// thesis script's fixed `delta`).
    pub fn set_reference_ns(&mut self, reference_ns: u64) {
        self.reference_ns = reference_ns;
    }

    /// Accounts one arrival of a packet sent at `sent` and received at `received`.
    #[inline]
    pub fn record(&mut self, sent: SimTime, received: SimTime) {
        self.arrivals += 1;
        if let (Some(last_send), Some(last_arrival)) = (self.last_send, self.last_arrival) {
            // RFC 3550 §6.4.1: D = (Rj − Ri) − (Sj − Si).
            self.rfc3550_ns +=
                (transit_change_ns(sent, received, last_send, last_arrival) - self.rfc3550_ns) / 16.0;

            let interarrival_ns = received.since(last_arrival);
            let deviation_ns = interarrival_ns.abs_diff(self.reference_ns);
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

    /// Mean absolute deviation from the reference interval per received packet, ns.
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

/// |D|, the change in transit time from the packet sent at `last_send` and received at
/// `last_arrival` to the one sent at `sent` and received at `received` (RFC 3550 §6.4.1),
/// as the nearest float: in 64 bits when the gaps allow, which gives the value the 128-bit
/// difference gives without its conversion routine.
#[inline]
fn transit_change_ns(sent: SimTime, received: SimTime, last_send: SimTime, last_arrival: SimTime) -> f64 {
    let gap = |later: SimTime, earlier: SimTime| i64::try_from(later.0.checked_sub(earlier.0)?).ok();
    let narrow = gap(received, last_arrival).zip(gap(sent, last_send)).and_then(|(r, s)| r.checked_sub(s));
    match narrow {
        Some(d) => d.unsigned_abs() as f64,
        None => {
            let d = (received.0 as i128 - last_arrival.0 as i128) - (sent.0 as i128 - last_send.0 as i128);
            d.unsigned_abs() as f64
        }
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

    /// The thesis script's fixed `delta`: arrivals at 0, 197, 400, 1600 and 1797 ms against
    /// a 197 ms reference deviate by 0, 6, 1003 (a silence: skipped, measured afresh from
    /// there) and 0 ms; the sum, 6 ms, over all 5 packets is 1.2 ms. The nominal interval,
    /// which the voice analysis uses, stays 200 ms.
    #[test]
    fn a_fixed_reference_replaces_the_nominal_interval() {
        let ms = 1_000_000u64;
        let mut j = Jitter::new(200 * ms, 1_000 * ms);
        j.set_reference_ns(197 * ms);
        for t in [0, 197, 400, 1600, 1797] {
            j.record(SimTime(t * ms), SimTime(t * ms));
        }
        assert_eq!((j.gaps(), j.max_deviation_ns()), (1, 6 * ms));
        assert_eq!(j.mean_deviation_ns(), 1.2e6);
        assert_eq!(j.nominal_interval_ns(), 200 * ms);
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
