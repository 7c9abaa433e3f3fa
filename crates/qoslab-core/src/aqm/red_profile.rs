//! One RED drop profile: minimum and maximum thresholds and the mark probability
//! denominator, and the drop probability they give for an average queue.
//!
//! With average `avg` (packets) and profile (min, max, D): below min nothing is dropped;
//! from min up to max the base probability rises linearly,
//! `p_b = (avg − min) / (max − min) / D`, reaching 1/D at max (IOS "mark probability
//! denominator", Cisco, "Configuring Weighted Random Early Detection";
//! `docs/reference/red-and-wred.md`); at or above max every packet is dropped ("forced").
//! In gentle mode the forced region starts at 2·max instead, and between max and 2·max the
//! probability rises linearly from 1/D to 1 (Floyd's gentle RED, as ns-2's `queue/red.cc`
//! implements it).
//!
//! Whether IOS spreads drops with Floyd & Jacobson's count correction is not documented, so
//! the correction is a choice (`docs/reference/red-and-wred.md`), with `count` the packets
//! accepted in the random region since the last early drop:
//! * `none` — drop with `p_b` (the published IOS formula);
//! * `floyd_jacobson` — `p_a = p_b / (1 − (count + 1)·p_b)` (ns-2, which counts the arrival
//!   itself): the next drop falls uniformly within 1/p_b − 1 packets, so drops are evenly
//!   spread but about twice as frequent as p_b;
//! * `uniform` — `p_a = p_b / (2 − count·p_b)` (ALTQ, starting from p_b/2): the next drop
//!   falls uniformly within 2/p_b packets, a long-run rate of 1/(1/p_b + 1/2), close to p_b.

use schemars::JsonSchema;
use serde::Deserialize;

/// How the base probability is turned into the per-packet one.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CountCorrection {
    /// Drop with the base probability (the IOS formula).
    #[default]
    None,
    /// ns-2: p_b / (1 − count·p_b).
    FloydJacobson,
    /// ALTQ: p_b / (2 − count·p_b).
    Uniform,
}

/// What the profile says about one arriving packet.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Decision {
    /// Below the minimum threshold: accept.
    Accept,
    /// In the random region: drop (or mark) with this probability.
    Random(f64),
    /// In the forced region: drop.
    Forced,
}

/// Thresholds (packets) and mark probability denominator.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedProfile {
    /// Minimum threshold, packets.
    pub min_packets: u32,
    /// Maximum threshold, packets.
    pub max_packets: u32,
    /// 1 / (drop probability at the maximum threshold).
    pub denominator: u32,
}

impl RedProfile {
    /// A profile; `min ≤ max`, `max ≥ 1` and `denominator ≥ 1` are checked by the caller.
    pub const fn new(min_packets: u32, max_packets: u32, denominator: u32) -> Self {
        RedProfile { min_packets, max_packets, denominator }
    }

    /// The decision for an average queue of `avg_packets`, before the count correction.
    #[inline]
    pub fn decide(&self, avg_packets: f64, gentle: bool) -> Decision {
        let min = self.min_packets as f64;
        let max = self.max_packets as f64;
        let max_p = 1.0 / self.denominator as f64;
        if avg_packets < min {
            Decision::Accept
        } else if avg_packets < max {
            Decision::Random(max_p * (avg_packets - min) / (max - min))
        } else if gentle && avg_packets < 2.0 * max {
            Decision::Random(max_p + (1.0 - max_p) * (avg_packets - max) / max)
        } else {
            Decision::Forced
        }
    }
}

impl CountCorrection {
    /// The per-packet probability for base probability `p_b` when `count` packets were
    /// accepted in the random region since the last early drop (this arrival not counted).
    #[inline]
    pub fn apply(self, p_b: f64, count: u32) -> f64 {
        let spread = count as f64 * p_b;
        match self {
            CountCorrection::None => p_b,
            CountCorrection::FloydJacobson if spread + p_b >= 1.0 => 1.0,
            CountCorrection::FloydJacobson => p_b / (1.0 - spread - p_b),
            CountCorrection::Uniform if spread >= 2.0 => 1.0,
            CountCorrection::Uniform => p_b / (2.0 - spread),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_between_the_thresholds_then_forced() {
        let p = RedProfile::new(20, 40, 10);
        assert_eq!(p.decide(19.99, false), Decision::Accept);
        assert_eq!(p.decide(20.0, false), Decision::Random(0.0));
        assert_eq!(p.decide(30.0, false), Decision::Random(0.05));
        assert_eq!(p.decide(40.0, false), Decision::Forced);
    }

    #[test]
    fn gentle_rises_from_max_p_to_one_at_twice_max() {
        let p = RedProfile::new(20, 40, 10);
        assert_eq!(p.decide(40.0, true), Decision::Random(0.1));
        let Decision::Random(mid) = p.decide(60.0, true) else { panic!() };
        assert!((mid - 0.55).abs() < 1e-12);
        assert_eq!(p.decide(80.0, true), Decision::Forced);
    }

    #[test]
    fn equal_thresholds_have_no_random_region() {
        let p = RedProfile::new(10, 10, 1);
        assert_eq!(p.decide(9.9, false), Decision::Accept);
        assert_eq!(p.decide(10.0, false), Decision::Forced);
    }

    #[test]
    fn count_corrections() {
        assert_eq!(CountCorrection::None.apply(0.1, 7), 0.1);
        // ns-2 counts the arrival itself: count 4 before it gives 0.1 / (1 − 0.5) = 0.2.
        assert!((CountCorrection::FloydJacobson.apply(0.1, 4) - 0.2).abs() < 1e-12);
        assert_eq!(CountCorrection::FloydJacobson.apply(0.1, 9), 1.0);
        assert!((CountCorrection::Uniform.apply(0.1, 0) - 0.05).abs() < 1e-12);
        assert!((CountCorrection::Uniform.apply(0.1, 10) - 0.1).abs() < 1e-12);
        assert_eq!(CountCorrection::Uniform.apply(0.1, 20), 1.0);
    }
}
