//! The generators that produce a source's emission times, and the compiled pattern that
//! holds one: constant intervals computed as ⌊k · num / den⌋ ns from an origin (so rounding
//! never accumulates), exponential gaps (a Poisson process), ON-OFF periods around an
//! inner generator, frames split into packets, and stepped rates. Patterns as written in
//! scenarios compile into these ([`super::pattern`], [`super::presets`]).

use super::distribution::DurationDist;
use super::frames::FrameState;
use super::phase::Period;
use super::ramp::RampClock;
use crate::config::error::{join_path, Issue};
use crate::engine::Rng;
use crate::time::{SimTime, NS_PER_S};
use crate::units::Size;

/// Constant-interval emission: packet k at ⌊k · num / den⌋ ns after the origin. The
/// offset is carried from one packet to the next as a quotient and a remainder, each step
/// adding ⌊num / den⌋ and num mod den, which gives the same instants as the division
/// without making one per packet.
#[derive(Clone, Debug)]
pub struct CbrClock {
    /// ⌊num / den⌋, ns.
    step_ns: u64,
    /// num mod den.
    step_remainder: u128,
    interval_den: u128,
    origin: SimTime,
    /// ⌊k · num / den⌋ for the next packet k, ns.
    offset_ns: u64,
    /// k · num mod den for the next packet k.
    remainder: u128,
}

impl CbrClock {
    /// The next packet's instant; the clock moves on to the one after.
    #[inline]
    fn next(&mut self) -> SimTime {
        let at = self.origin.after(self.offset_ns);
        self.remainder += self.step_remainder;
        let carry = self.remainder >= self.interval_den;
        self.remainder -= if carry { self.interval_den } else { 0 };
        self.offset_ns = self.offset_ns.wrapping_add(self.step_ns).wrapping_add(u64::from(carry));
        at
    }

    /// Nominal interval, ns (rounded down).
    pub fn interval_ns(&self) -> u64 {
        self.step_ns
    }

    /// Packets per second, exactly as the clock sends them (an interval below a nanosecond
    /// included).
    pub fn packets_per_s(&self) -> f64 {
        let interval_num = u128::from(self.step_ns) * self.interval_den + self.step_remainder;
        NS_PER_S as f64 * self.interval_den as f64 / interval_num.max(1) as f64
    }
}

/// A running pattern.
#[derive(Clone, Debug)]
pub enum Generator {
    /// Constant interval.
    Cbr(CbrClock),
    /// Exponential gaps with this mean (ns).
    Poisson {
        /// Mean gap, ns.
        mean_gap_ns: u64,
        /// Time of the last emission.
        last: SimTime,
        /// Whether the first emission is still to come (it is at the origin).
        first: bool,
    },
    /// ON-OFF around an inner generator.
    OnOff(Box<OnOffState>),
    /// Frames split into packets of different sizes.
    Frames(Box<FrameState>),
    /// A stepped constant bit rate.
    Ramp(Box<RampClock>),
}

/// ON-OFF runtime state.
#[derive(Clone, Debug)]
pub struct OnOffState {
    on: DurationDist,
    off: DurationDist,
    inner: Generator,
    on_end: SimTime,
}

impl OnOffState {
    /// ON periods drawn from `on` running `inner`, separated by OFF periods drawn from `off`.
    pub(super) fn around(on: DurationDist, off: DurationDist, inner: Generator) -> Generator {
        Generator::OnOff(Box::new(OnOffState { on, off, inner, on_end: SimTime::ZERO }))
    }

    /// ON periods of `on_ns` running `inner`, separated by OFF periods of `off_ns`.
    pub(super) fn constant(on_ns: u64, off_ns: u64, inner: Generator) -> Generator {
        Self::around(DurationDist::Constant(on_ns), DurationDist::Constant(off_ns), inner)
    }
}

/// A compiled pattern: the generator plus the packet size and nominal interval.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// Emission schedule.
    pub generator: Generator,
    /// IP packet size, bytes; for `video` and `trace`, whose packets differ, the largest.
    pub size_bytes: u32,
    /// Nominal interval between packets, ns (mean for random patterns).
    pub nominal_interval_ns: u64,
    /// Nominal packets per second (mean for random patterns, the highest of a ramp, while
    /// ON for ON-OFF), from the rate and size asked for: not rounded to whole nanoseconds,
    /// so a rate of more than a packet a nanosecond shows as what it is.
    pub packets_per_s: f64,
    /// The time after which the schedule repeats, which a random start phase is drawn
    /// within ([`super::phase`]), or why the pattern has none.
    pub period: Period,
}

pub(crate) fn check_size(size: Size, at: &str) -> Result<u32, Issue> {
    match size.0 {
        0..=27 => Err(Issue::at(
            join_path(at, "size"),
            format!("{} B is smaller than the 28-byte IPv4 + UDP header", size.0),
        )
        .hint("give the IP packet size, headers included")),
        s if s > 65_535 => {
            Err(Issue::at(join_path(at, "size"), format!("{s} B exceeds the largest IPv4 packet (65535 B)")))
        }
        s => Ok(s as u32),
    }
}

pub(super) fn cbr_clock(interval_num: u128, interval_den: u128) -> CbrClock {
    CbrClock {
        step_ns: (interval_num / interval_den) as u64,
        step_remainder: interval_num % interval_den,
        interval_den,
        origin: SimTime::ZERO,
        offset_ns: 0,
        remainder: 0,
    }
}

impl Generator {
    /// The interval of a constant-interval schedule, ns (rounded down); `None` for the
    /// others.
    pub fn constant_interval_ns(&self) -> Option<u64> {
        match self {
            Generator::Cbr(clock) => Some(clock.interval_ns()),
            _ => None,
        }
    }

    /// Restarts the schedule at `origin`: the next emission is at `origin`.
    fn restart(&mut self, origin: SimTime, rng: &mut Rng) {
        match self {
            Generator::Cbr(clock) => {
                clock.origin = origin;
                clock.offset_ns = 0;
                clock.remainder = 0;
            }
            Generator::Poisson { last, first, .. } => {
                *last = origin;
                *first = true;
            }
            Generator::Frames(frames) => frames.restart(origin),
            Generator::Ramp(ramp) => ramp.restart(origin, rng),
            Generator::OnOff(_) => unreachable!("ON-OFF patterns do not nest"),
        }
    }

    /// Size of the packet the last emission sent, for generators whose packets differ in
    /// size (`None`: the pattern's fixed size).
    #[inline]
    pub fn size_bytes(&self) -> Option<u32> {
        match self {
            Generator::Frames(frames) => Some(frames.size_bytes()),
            Generator::OnOff(state) => state.inner.size_bytes(),
            _ => None,
        }
    }

    /// Starts the pattern at `start` (OFF first when `start_off`); returns the first emission.
    pub fn first(&mut self, start: SimTime, start_off: bool, rng: &mut Rng) -> SimTime {
        match self {
            Generator::OnOff(state) => {
                let on_start = if start_off { start.after(state.off.sample_ns(rng)) } else { start };
                state.begin_on(on_start, rng)
            }
            simple => {
                simple.restart(start, rng);
                simple.next(rng)
            }
        }
    }

    /// The time of the next emission (called once per emitted packet). A constant interval,
    /// the common pattern, is worked out inline; the others through a call (a match of
    /// every pattern inline here cost 1–3 % on the benchmarks).
    #[inline(always)]
    pub fn next(&mut self, rng: &mut Rng) -> SimTime {
        match self {
            Generator::Cbr(clock) => clock.next(),
            other => other.next_called(rng),
        }
    }

    /// [`Generator::next`] out of line, for any pattern (called for all but a constant
    /// interval, as [`crate::qdisc::AnyQdisc`]'s `enqueue_called` is for all but the FIFO).
    #[inline(never)]
    fn next_called(&mut self, rng: &mut Rng) -> SimTime {
        match self {
            Generator::Cbr(clock) => clock.next(),
            Generator::Poisson { mean_gap_ns, last, first } => {
                if !*first {
                    *last = last.after(rng.exponential_u64(*mean_gap_ns));
                }
                *first = false;
                *last
            }
            Generator::OnOff(state) => {
                let at = state.inner.next(rng);
                if at < state.on_end {
                    return at;
                }
                // The ON period is over: an OFF period, then the next ON period.
                let off_end = state.on_end.after(state.off.sample_ns(rng));
                state.begin_on(off_end, rng)
            }
            Generator::Frames(frames) => frames.next(rng),
            Generator::Ramp(ramp) => ramp.next(rng),
        }
    }
}

impl OnOffState {
    /// Starts an ON period at `on_start`; returns its first emission. A random ON period
    /// too short for even one packet is skipped, with the OFF period that follows it.
    fn begin_on(&mut self, mut on_start: SimTime, rng: &mut Rng) -> SimTime {
        loop {
            self.on_end = on_start.after(self.on.sample_ns(rng));
            self.inner.restart(on_start, rng);
            let at = self.inner.next(rng);
            if at < self.on_end {
                return at;
            }
            on_start = self.on_end.after(self.off.sample_ns(rng));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The carried quotient and remainder give ⌊k · num / den⌋ exactly, as the division does.
    #[test]
    fn constant_intervals_match_the_division() {
        for (num, den) in
            [(12_000_000_000_000u128, 1_500_000), (1_000_000_000_000_000, 7), (20_000_000, 1), (8, 3)]
        {
            let mut clock = cbr_clock(num, den);
            clock.origin = SimTime(5);
            for k in 0..10_000u128 {
                assert_eq!(clock.next(), SimTime(5 + (k * num / den) as u64), "{num}/{den}, packet {k}");
            }
        }
    }
}
