//! A token bucket in exact integer arithmetic: the meter under policers and LLQ.
//!
//! Tokens fill continuously at `rate_bps` up to a depth of `burst_bytes`; a packet of L
//! bytes conforms when the bucket holds at least L bytes of tokens, which it then takes.
//! Tokens are kept in bit·nanoseconds per second (bits × 10⁹), so filling for Δt ns at
//! R bit/s adds exactly Δt · R units and no rounding ever accumulates. The bucket starts
//! full. (Single-rate token bucket as in RFC 2697's committed bucket, without its second
//! bucket; Cisco's class-based policer refills continuously in the same way.)

use super::UNITS_PER_BYTE;
use crate::time::SimTime;

/// A token bucket meter.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    rate_bps: u64,
    depth_units: u128,
    tokens_units: u128,
    last: SimTime,
}

impl TokenBucket {
    /// The rate it fills at, bit/s.
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// A full bucket filling at `rate_bps`, `burst_bytes` deep.
    pub fn new(rate_bps: u64, burst_bytes: u64) -> Self {
        let depth_units = burst_bytes as u128 * UNITS_PER_BYTE;
        TokenBucket { rate_bps, depth_units, tokens_units: depth_units, last: SimTime::ZERO }
    }

    /// Brings the bucket up to `now`.
    #[inline]
    fn fill(&mut self, now: SimTime) {
        let filled = now.since(self.last) as u128 * self.rate_bps as u128;
        self.tokens_units = (self.tokens_units + filled).min(self.depth_units);
        self.last = now;
    }

    /// The earliest instant, not before `now`, at which a packet of `size_bytes` conforms;
    /// `None` if it never can (it is larger than the bucket).
    pub fn conforming_at(&mut self, now: SimTime, size_bytes: u32) -> Option<SimTime> {
        self.fill(now);
        let need = size_bytes as u128 * UNITS_PER_BYTE;
        if need > self.depth_units {
            return None;
        }
        let missing = need.saturating_sub(self.tokens_units);
        // Rounded up: the tokens are all there at that nanosecond, not before.
        Some(now.after(missing.div_ceil(self.rate_bps as u128) as u64))
    }

    /// Whether a packet of `size_bytes` conforms at `now`; if it does, its tokens are taken.
    pub fn conform(&mut self, now: SimTime, size_bytes: u32) -> bool {
        self.fill(now);
        let need = size_bytes as u128 * UNITS_PER_BYTE;
        if self.tokens_units >= need {
            self.tokens_units -= need;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_rate() {
        // 8 kbit/s = 1000 B/s, 300 B deep: three 100-byte packets pass at once, the fourth
        // needs 100 ms of refill.
        let mut tb = TokenBucket::new(8_000, 300);
        for _ in 0..3 {
            assert!(tb.conform(SimTime(0), 100));
        }
        assert!(!tb.conform(SimTime(0), 100));
        assert!(!tb.conform(SimTime(99_999_999), 100));
        assert!(tb.conform(SimTime(100_000_000), 100));
    }

    #[test]
    fn conforming_at_is_exact() {
        // 8 kbit/s, 100 B deep, emptied at t = 0: 100 B are back after exactly 100 ms.
        let mut tb = TokenBucket::new(8_000, 100);
        assert!(tb.conform(SimTime(0), 100));
        assert_eq!(tb.conforming_at(SimTime(0), 100), Some(SimTime(100_000_000)));
        assert!(!tb.conform(SimTime(99_999_999), 100));
        assert!(tb.conform(SimTime(100_000_000), 100));
        assert_eq!(tb.conforming_at(SimTime(100_000_000), 101), None);
    }

    #[test]
    fn long_run_rate_is_exact() {
        // Offer 1000 B every ms (8 Mbit/s) to a 1 Mbit/s bucket for 10 s: conforming bytes =
        // depth + rate × time = 1500 + 1 250 000.
        let mut tb = TokenBucket::new(1_000_000, 1500);
        let passed: u64 =
            (0..10_000u64).filter(|i| tb.conform(SimTime(i * 1_000_000), 1000)).count() as u64 * 1000;
        assert!((1_249_000..=1_251_500).contains(&passed), "{passed}");
    }
}
