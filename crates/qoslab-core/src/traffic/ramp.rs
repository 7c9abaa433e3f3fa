//! A stepped load, as the JANET trial's RUDE scripts sent it: constant bit rate that rises
//! by `step` every `every` (10 s by default) from `start_rate` until it reaches `end_rate`,
//! where it stays; each period ends with a silent `pause` (the trial's periods "ended about
//! 300–500 ms early" to make the next step bursty).
//!
//! Period j begins at s + j·every with rate r_j = min(start + j·step, end); its packets
//! leave at that begin + ⌊k · size · 8 · 10⁹ / r_j⌋ ns while that is before the period's
//! end minus its pause (drawn per period). The next period starts on time whatever the
//! pause, so the step times never drift.

use super::distribution::DurationDist;
use crate::config::error::{join_path, Issue};
use crate::engine::Rng;
use crate::time::{SimTime, NS_PER_S};
use crate::units::{Duration, Rate, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// Default step period (the JANET trial's 10 s).
pub const DEFAULT_STEP_EVERY_NS: u64 = 10 * NS_PER_S;

/// Ramp parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RampParams {
    /// Bit rate of IP packets in the first period.
    pub start_rate: Rate,
    /// Added at each step.
    pub step: Rate,
    /// The rate the ramp stops at and keeps.
    pub end_rate: Rate,
    /// Length of each period (default 10 s).
    pub every: Option<Duration>,
    /// Silence at the end of each period (default 0 s; the trial: `{uniform: [300ms, 500ms]}`).
    pub pause: Option<DurationDist>,
    /// IP packet size.
    pub size: Size,
}

/// A running ramp.
#[derive(Clone, Debug)]
pub struct RampClock {
    start_bps: u64,
    step_bps: u64,
    end_bps: u64,
    every_ns: u64,
    pause: DurationDist,
    size_bits: u128,
    period: u64,
    period_start: SimTime,
    send_end: SimTime,
    k: u64,
}

impl RampClock {
    /// Compiles `params` at key path `at`, for packets of `size_bytes`.
    pub fn build(params: &RampParams, size_bytes: u32, at: &str) -> Result<Self, Issue> {
        let (start, step, end) = (params.start_rate.0, params.step.0, params.end_rate.0);
        if start == 0 {
            return Err(Issue::at(join_path(at, "start_rate"), "must be above zero")
                .hint("the JANET trial's F1 flow started at 35.3Mbps"));
        }
        if end < start {
            return Err(Issue::at(
                join_path(at, "end_rate"),
                "the ramp rises: `end_rate` is below `start_rate`",
            )
            .hint("for a falling load run several flows with `start` and `stop`"));
        }
        if step == 0 && end > start {
            return Err(Issue::at(join_path(at, "step"), "a step of 0 never reaches `end_rate`")
                .hint("give the increment per period, e.g. `step: 1.1Mbps`"));
        }
        let every_ns = params.every.map_or(DEFAULT_STEP_EVERY_NS, |d| d.0);
        let pause = params.pause.unwrap_or(DurationDist::Constant(0));
        if every_ns == 0 {
            return Err(
                Issue::at(join_path(at, "every"), "must be above zero").hint("the trial stepped every 10s")
            );
        }
        if pause.mean_ns() >= every_ns as f64 {
            return Err(Issue::at(
                join_path(at, "pause"),
                "the pause is as long as the period: nothing is sent",
            )
            .hint("the trial paused 300-500 ms of every 10 s"));
        }
        Ok(RampClock {
            start_bps: start,
            step_bps: step,
            end_bps: end,
            every_ns,
            pause,
            size_bits: size_bytes as u128 * 8,
            period: 0,
            period_start: SimTime::ZERO,
            send_end: SimTime::ZERO,
            k: 0,
        })
    }

    /// The rate of period `j`, bit/s.
    fn rate_bps(&self, j: u64) -> u64 {
        self.start_bps.saturating_add(self.step_bps.saturating_mul(j)).min(self.end_bps)
    }

    /// Restarts the ramp at `origin` (its first period begins there).
    pub fn restart(&mut self, origin: SimTime, rng: &mut Rng) {
        self.period = 0;
        self.begin_period(origin, rng);
    }

    fn begin_period(&mut self, start: SimTime, rng: &mut Rng) {
        self.period_start = start;
        self.send_end = start.after(self.every_ns.saturating_sub(self.pause.sample_ns(rng)));
        self.k = 0;
    }

    /// The time of the next packet.
    pub fn next(&mut self, rng: &mut Rng) -> SimTime {
        loop {
            let rate = self.rate_bps(self.period) as u128;
            let at =
                self.period_start.after((self.k as u128 * self.size_bits * NS_PER_S as u128 / rate) as u64);
            if at < self.send_end {
                self.k += 1;
                return at;
            }
            self.period += 1;
            let next_start = self.period_start.after(self.every_ns);
            self.begin_period(next_start, rng);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(yaml: &str) -> Result<RampClock, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let params: RampParams = serde_json::from_value(value).unwrap();
        RampClock::build(&params, params.size.0 as u32, "p")
    }

    const MS: u64 = 1_000_000;

    /// 1000-byte packets from 80 kbit/s (one per 100 ms) rising by 80 kbit/s every second
    /// up to 160 kbit/s, each period ending 250 ms early: 8 packets at 0, 100, ..., 700 ms;
    /// then 15 at 1000, 1050, ..., 1700 ms; then the same at 160 kbit/s from 2 s.
    #[test]
    fn steps_pauses_and_the_end_rate() {
        let mut r = ramp(
            "{start_rate: 80kbps, step: 80kbps, end_rate: 160kbps, every: 1s, pause: 250ms, size: 1000B}",
        )
        .unwrap();
        let mut rng = Rng::for_stream(1, 0, "ramp");
        r.restart(SimTime::ZERO, &mut rng);
        let times: Vec<u64> = (0..38).map(|_| r.next(&mut rng).0 / MS).collect();
        let mut expected: Vec<u64> = (0..8).map(|k| k * 100).collect();
        expected.extend((0..15).map(|k| 1000 + k * 50));
        expected.extend((0..15).map(|k| 2000 + k * 50));
        assert_eq!(times, expected);
    }

    #[test]
    fn errors_name_the_key() {
        let key = |yaml: &str| ramp(yaml).expect_err("refused").key_path;
        assert_eq!(key("{start_rate: 2Mbps, step: 1Mbps, end_rate: 1Mbps, size: 500B}"), "p.end_rate");
        assert_eq!(key("{start_rate: 1Mbps, step: 0bps, end_rate: 2Mbps, size: 500B}"), "p.step");
        assert_eq!(
            key("{start_rate: 1Mbps, step: 1Mbps, end_rate: 2Mbps, every: 1s, pause: 1s, size: 500B}"),
            "p.pause"
        );
    }
}
