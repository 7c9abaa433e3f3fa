//! The RED average queue: an exponentially weighted moving average of the queue length,
//! sampled at every arrival, that decays while the queue is empty.
//!
//! On each arrival `avg ← avg·(1 − w) + q·w`, with `w = 2^−n` where n is the IOS
//! exponential weighting constant (default 9, so a new sample weighs 1/512)
//! (`docs/reference/red-and-wred.md`). An empty queue sends no samples, so when an arrival
//! finds the queue empty since `t_idle` the average first decays as if `m` packets had
//! arrived to an empty queue, `avg ← avg·(1 − w)^m`, with
//! `m = (now − t_idle) × rate / (8 × S)` the packets of size S the link could have sent
//! meanwhile (Floyd & Jacobson 1993 as implemented in ns-2's `queue/red.cc`). Cisco does not
//! document its idle handling, so the decay can be switched off.

use crate::time::SimTime;

/// The moving average of one queue length.
#[derive(Clone, Debug)]
pub struct RedAverage {
    avg_packets: f64,
    weight: f64,
    /// Since when the measured queue has been empty, if it is.
    idle_since: Option<SimTime>,
}

impl RedAverage {
    /// An average with new-sample weight `2^-exponent`, starting at 0 with an idle queue.
    pub fn new(exponent: u32) -> Self {
        RedAverage { avg_packets: 0.0, weight: (-(exponent as f64)).exp2(), idle_since: Some(SimTime::ZERO) }
    }

    /// The current average, packets.
    #[inline]
    pub fn packets(&self) -> f64 {
        self.avg_packets
    }

    /// Takes the sample `queue_packets` seen by an arrival at `now`. `idle_packet_bits`
    /// (bits of one packet on a link of `rate_bps`) sets the idle decay; `None` switches it
    /// off.
    #[inline]
    pub fn sample(&mut self, now: SimTime, queue_packets: u64, rate_bps: u64, idle_packet_bits: Option<u64>) {
        if let Some(since) = self.idle_since.take() {
            // An average of zero stays zero whatever the decay factor (a finite number in
            // [0, 1]): the power, a twentieth of a hop on an uncongested WRED port, is skipped.
            if let (Some(bits), true) = (idle_packet_bits, self.avg_packets != 0.0) {
                let idle_ns = now.since(since);
                let m = idle_ns as f64 * rate_bps as f64 / (bits as f64 * 1e9);
                self.avg_packets *= (1.0 - self.weight).powf(m);
            }
        }
        self.avg_packets += (queue_packets as f64 - self.avg_packets) * self.weight;
    }

    /// The measured queue became empty at `now`.
    #[inline]
    pub fn went_idle(&mut self, now: SimTime) {
        self.idle_since = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_ewma_formula_step_by_step() {
        // A deterministic trace: queue lengths seen by successive arrivals with n = 2
        // (w = 1/4); no idle period between them.
        let mut avg = RedAverage::new(2);
        avg.idle_since = None;
        let samples = [4u64, 8, 8, 0, 12];
        let mut expected = 0.0f64;
        for q in samples {
            avg.sample(SimTime::ZERO, q, 1_000_000, Some(8000));
            expected = expected * 0.75 + q as f64 * 0.25;
            assert!((avg.packets() - expected).abs() < 1e-12);
        }
        // By hand: 1, 2.75, 4.0625, 3.046875, 5.28515625.
        assert!((avg.packets() - 5.285_156_25).abs() < 1e-12);
    }

    #[test]
    fn the_ios_default_weight_is_one_in_512() {
        let mut avg = RedAverage::new(9);
        avg.sample(SimTime::ZERO, 512, 1_000_000, None);
        assert!((avg.packets() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn idle_decay_leaves_a_zero_average_zero_and_shrinks_any_other() {
        // Link 1 Mbit/s, 1000-byte packets: 8 ms idle is m = 1 packet time.
        let mut avg = RedAverage::new(1);
        avg.sample(SimTime(8_000_000), 0, 1_000_000, Some(8000));
        assert_eq!(avg.packets().to_bits(), 0.0f64.to_bits());
        avg.sample(SimTime(8_000_000), 4, 1_000_000, Some(8000));
        assert_eq!(avg.packets(), 2.0);
        avg.went_idle(SimTime(8_000_000));
        // Two packet times idle: 2 × 0.5² = 0.5, then the sample 0 halves it again.
        avg.sample(SimTime(24_000_000), 0, 1_000_000, Some(8000));
        assert_eq!(avg.packets(), 0.25);
    }

    #[test]
    fn decays_over_idle_time_as_if_empty_samples_arrived() {
        // 1 Mbit/s and 1000-byte packets: 8 ms idle is m = 1 packet time, so the average
        // falls by (1 − w) once before the new sample is taken.
        let mut avg = RedAverage { avg_packets: 10.0, weight: 0.5, idle_since: None };
        avg.went_idle(SimTime(0));
        avg.sample(SimTime(8_000_000), 0, 1_000_000, Some(8000));
        assert!((avg.packets() - 2.5).abs() < 1e-12, "{}", avg.packets());
        // Without decay only the one zero sample counts.
        let mut avg = RedAverage { avg_packets: 10.0, weight: 0.5, idle_since: None };
        avg.went_idle(SimTime(0));
        avg.sample(SimTime(8_000_000), 0, 1_000_000, None);
        assert!((avg.packets() - 5.0).abs() < 1e-12);
    }
}
