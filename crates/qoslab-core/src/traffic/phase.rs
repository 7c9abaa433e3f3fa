//! Random start phases of periodic sources.
//!
//! A source on a fixed clock (constant bit rate, a voice codec, video frames, probes) draws
//! no random number, so without help every replication of a scenario made only of such
//! sources is the same run. Real senders are not aligned with each other: each starts at
//! some arbitrary point of its period. Periodic senders that start in step stay in step,
//! and their packets then collide in the same queues at every period (Floyd and Jacobson,
//! "The Synchronization of Periodic Routing Messages", IEEE/ACM Transactions on Networking,
//! 1994, on why periodic timers need a random component).
//!
//! With `phase: random` the first packet leaves at the flow's `start` plus an offset drawn
//! uniformly over the whole nanoseconds of [0, period): the first draw of the flow's own
//! random stream (keyed on seed, replication and flow name), so the offset changes with the
//! seed and the replication, and adding or removing other flows leaves it as it was. The
//! draw is `uniform_u64(0, period − 1)`, as applications draw the first-period offsets of
//! their periodic users ([`crate::app::bulk`]). The whole schedule moves with the first
//! packet: every later packet keeps its place relative to the first.
//!
//! The period is the time after which the pattern's schedule repeats (see
//! [`super::pattern::Pattern::period`]). Patterns whose times are random already (Poisson,
//! ON-OFF with random lengths), that replay recorded times (traces), rise in steps (ramps)
//! or never repeat (a single alarm or burst) have none, and a `phase` on them is refused.

use crate::config::scalar::{parse_scalar, Numbers};
use crate::engine::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// A phase that is neither `random` nor `none`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}` is not a phase: write `random` (a random offset within one period) or \
     `none` (start at `start`); for a fixed offset, add it to the flow's `start`"
)]
pub struct UnknownPhase {
    /// The text as written.
    pub text: String,
}

/// Where in its period a periodic flow starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The first packet at the flow's `start`.
    None,
    /// The first packet at `start` plus a uniform random offset in [0, period).
    Random,
}

/// The period a random phase is drawn within, or why a pattern has none.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Period {
    /// The schedule repeats every this many nanoseconds (at least 1).
    Every(u64),
    /// The pattern has no period: why, as the end of a sentence.
    None(&'static str),
}

impl Period {
    /// A period of `ns` nanoseconds; a clock faster than one packet a nanosecond counts as 1.
    pub fn every_ns(ns: u64) -> Self {
        Period::Every(ns.max(1))
    }
}

impl Phase {
    /// Parses `random` or `none`.
    pub fn parse(text: &str) -> Result<Self, UnknownPhase> {
        match text {
            "random" => Ok(Phase::Random),
            "none" => Ok(Phase::None),
            other => Err(UnknownPhase { text: other.to_owned() }),
        }
    }

    /// The offset of the first packet after the flow's start, ns, for a pattern of `period`.
    /// A random phase makes exactly one draw from `rng`; no phase draws nothing.
    pub fn offset_ns(self, period: Period, rng: &mut Rng) -> u64 {
        match (self, period) {
            (Phase::Random, Period::Every(period_ns)) => rng.uniform_u64(0, period_ns - 1),
            _ => 0,
        }
    }
}

impl<'de> Deserialize<'de> for Phase {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_scalar(d, Numbers::AsText, Phase::parse)
    }
}

impl JsonSchema for Phase {
    fn schema_name() -> Cow<'static, str> {
        "Phase".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`random`: the first packet at `start` plus a uniform random offset \
                            within one period of the pattern; `none`: at `start`",
            "type": "string",
            "enum": ["random", "none"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(yaml: &str) -> Result<Phase, serde_json::Error> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        serde_json::from_value(value)
    }

    #[test]
    fn values_and_errors() {
        assert_eq!(phase("random").unwrap(), Phase::Random);
        assert_eq!(phase("none").unwrap(), Phase::None);
        assert!(phase("10ms").unwrap_err().to_string().contains("add it to the flow's `start`"));
        assert!(phase("0").unwrap_err().to_string().contains("`0` is not a phase"));
        assert!(phase("[random]").unwrap_err().to_string().contains("a list"));
    }

    /// One draw per random phase, none otherwise; offsets of a 20 ms period over many seeds
    /// cover [0, 20 ms) with mean 10 ms. The mean of n = 20 000 uniform offsets has a
    /// standard deviation of 20 ms / √12 / √n ≈ 0.041 ms; 0.2 ms is about 5 of them. The
    /// extremes of n offsets lie within 20 ms / n · 10 = 0.01 ms of the ends except with
    /// probability about e^−10 each.
    #[test]
    fn offsets_are_uniform_within_the_period() {
        let period_ns = 20_000_000;
        let n = 20_000u64;
        let (mut min, mut max, mut sum) = (u64::MAX, 0, 0u128);
        for seed in 0..n {
            let mut rng = Rng::for_stream(seed, 0, "voice");
            let offset = Phase::Random.offset_ns(Period::every_ns(period_ns), &mut rng);
            assert_eq!(rng.draws(), 1);
            assert!(offset < period_ns);
            min = min.min(offset);
            max = max.max(offset);
            sum += offset as u128;
        }
        assert!(min < 10_000, "{min}");
        assert!(max >= period_ns - 10_000, "{max}");
        let mean_ms = sum as f64 / n as f64 / 1e6;
        assert!((mean_ms - 10.0).abs() < 0.2, "{mean_ms}");

        let mut rng = Rng::for_stream(1, 0, "voice");
        assert_eq!(Phase::None.offset_ns(Period::every_ns(period_ns), &mut rng), 0);
        assert_eq!(Phase::Random.offset_ns(Period::None("it is random"), &mut rng), 0);
        assert_eq!(rng.draws(), 0);
        assert_eq!(Phase::Random.offset_ns(Period::every_ns(0), &mut rng), 0);
    }
}
