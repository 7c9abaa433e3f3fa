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
use crate::time::SimTime;
use crate::units::Size;

/// Constant-interval emission: packet k at ⌊k · num / den⌋ ns after the origin.
#[derive(Clone, Debug)]
pub struct CbrClock {
    interval_num: u128,
    interval_den: u128,
    origin: SimTime,
    k: u64,
}

impl CbrClock {
    fn at(&self, k: u64) -> SimTime {
        self.origin.after((k as u128 * self.interval_num / self.interval_den) as u64)
    }

    /// Nominal interval, ns (rounded down).
    pub fn interval_ns(&self) -> u64 {
        (self.interval_num / self.interval_den) as u64
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
    CbrClock { interval_num, interval_den, origin: SimTime::ZERO, k: 0 }
}

impl Generator {
    /// Restarts the schedule at `origin`: the next emission is at `origin`.
    fn restart(&mut self, origin: SimTime, rng: &mut Rng) {
        match self {
            Generator::Cbr(clock) => {
                clock.origin = origin;
                clock.k = 0;
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

    /// The time of the next emission (called once per emitted packet).
    pub fn next(&mut self, rng: &mut Rng) -> SimTime {
        match self {
            Generator::Cbr(clock) => {
                let at = clock.at(clock.k);
                clock.k += 1;
                at
            }
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
