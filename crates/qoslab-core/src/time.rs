//! Simulated time: integer nanoseconds since the start of the run.
//!
//! Every instant and duration in the core is a `u64` count of nanoseconds. A `u64` spans
//! about 584 years, so overflow is not a practical concern for runs; arithmetic that could
//! overflow (rate × time products) is done in `u128`. Floating point never decides when an
//! event happens: it is used only for statistics and reports.

use std::fmt;

/// Nanoseconds per second.
pub const NS_PER_S: u64 = 1_000_000_000;
/// Nanoseconds per millisecond.
pub const NS_PER_MS: u64 = 1_000_000;

/// An instant of simulated time, in nanoseconds since the run started.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// Later than any event a run can schedule.
    pub const NEVER: SimTime = SimTime(u64::MAX);

    /// Nanoseconds since the start of the run.
    #[inline]
    pub const fn as_ns(self) -> u64 {
        self.0
    }

    /// This instant plus `delay_ns`, saturating at [`SimTime::NEVER`].
    #[inline]
    pub const fn after(self, delay_ns: u64) -> SimTime {
        SimTime(self.0.saturating_add(delay_ns))
    }

    /// Nanoseconds from `earlier` to `self` (zero if `earlier` is later).
    #[inline]
    pub const fn since(self, earlier: SimTime) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// Seconds as a float, for reports only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.as_secs_f64())
    }
}

/// Time to put `bits` on a wire running at `rate_bps`, in nanoseconds, rounded **up**.
///
/// Rounding up is the physical direction: a frame has not finished until its last bit is
/// out, so a fractional nanosecond still belongs to it. `rate_bps` must be non-zero (the
/// scenario validator rejects zero rates before any run starts).
#[inline]
pub fn transmission_ns(bits: u64, rate_bps: u64) -> u64 {
    debug_assert!(rate_bps > 0, "zero rate reached the engine");
    // A frame's bits times 10^9 fit 64 bits (any frame under 2.3 GB does), so the usual case
    // avoids a 128-bit division; the result is the same either way.
    if let Some(numerator) = bits.checked_mul(NS_PER_S) {
        return numerator.div_ceil(rate_bps);
    }
    let numerator = bits as u128 * NS_PER_S as u128;
    let ns = numerator.div_ceil(rate_bps as u128);
    ns.min(u64::MAX as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hdlc_frame_at_128k_is_exact() {
        // 1500 B IP packet + 7 B HDLC framing = 12 056 bits at 128 000 bit/s = 94.1875 ms.
        assert_eq!(transmission_ns(1507 * 8, 128_000), 94_187_500);
    }

    /// The design notes say how long a `u64` of nanoseconds lasts.
    #[test]
    fn the_design_notes_span_of_a_u64() {
        let notes = include_str!("../../../docs/design/decisions.md");
        let notes = notes.split_whitespace().collect::<Vec<_>>().join(" ");
        let years = u64::MAX as f64 / NS_PER_S as f64 / (365.25 * 86_400.0);
        let figure = format!("a `u64` spans {} years", years as u64);
        assert!(notes.contains(&figure), "docs/design/decisions.md lacks `{figure}`");
    }

    #[test]
    fn rounding_is_upwards() {
        // 1 bit at 3 bit/s = 333 333 333.3 ns -> 333 333 334 ns.
        assert_eq!(transmission_ns(1, 3), 333_333_334);
        // Exact values are not rounded.
        assert_eq!(transmission_ns(8, 8), NS_PER_S);
    }

    #[test]
    fn large_products_do_not_overflow() {
        // 12 000 bits at 10 Gbit/s: the intermediate bits × 1e9 is computed in u128.
        assert_eq!(transmission_ns(12_000, 10_000_000_000), 1_200);
        // A result beyond u64 saturates instead of wrapping.
        assert_eq!(transmission_ns(u64::MAX, 1), u64::MAX);
    }
}
