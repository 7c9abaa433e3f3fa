//! The random early detection dropper attached to one queue: RED, WRED and RIO.
//!
//! Every arrival updates the average queue ([`super::red_average`]) and asks the packet's
//! profile ([`super::red_profile`]) whether to accept it, drop it at random, or drop it
//! because the average is above the maximum threshold. The packet's profile depends on
//! `based_on`:
//! * `precedence` — WRED as IOS `random-detect`: one profile per IP precedence, one
//!   average over the whole queue;
//! * `dscp` — WRED as IOS `random-detect dscp-based`: one profile per DSCP;
//! * `none` — classic RED (Floyd & Jacobson 1993): one profile for every packet;
//! * `drop_precedence` — RIO (Clark & Fang 1998, generalised to three drop precedences as in
//!   ALTQ): the AF drop precedence picks the profile, and the average for drop precedence i
//!   counts only the queued packets of precedence ≤ i, so in-profile (low) traffic is judged
//!   by its own backlog and out-of-profile (high) traffic by the whole queue.
//!
//! An accepted packet may still find the queue full and be tail-dropped. With `ecn: true`
//! an ECN-capable packet chosen in the random region is marked CE and queued instead of
//! dropped; forced drops stay drops (RFC 3168 §7; ns-2's behaviour, `queue/red.cc`).
//! Defaults and their sources are in [`super::wred_defaults`]; the dropper draws from its
//! own seeded stream, so runs stay reproducible.

use super::red_average::RedAverage;
use super::red_profile::{CountCorrection, Decision, RedProfile};
use super::wred_defaults::{drop_precedence, dscp_profiles, precedence_profiles, RIO_PROFILES};
use crate::classify::dscp::{Dscp, Precedence};
use crate::config::error::{join_path, Issue};
use crate::config::one_or_many::OneOrMany;
use crate::engine::rng::Rng;
use crate::measure::DropReason;
use crate::measure::QdiscCtx;
use crate::packet::{Packet, CE};
use crate::time::SimTime;
use crate::units::Size;
use schemars::JsonSchema;
use serde::Deserialize;

/// IOS's default exponential weighting constant: a new sample weighs 2^-9 = 1/512.
pub const DEFAULT_WEIGHT_EXPONENT: u32 = 9;
/// Default mark probability denominator (1 in 10 dropped at the maximum threshold).
pub const DEFAULT_DENOMINATOR: u32 = 10;
/// Default packet size behind the idle-time decay, bytes.
pub const DEFAULT_IDLE_PACKET_BYTES: u64 = 500;
/// Largest threshold accepted, packets. IOS MQC accepts 1–4096 (Cisco `random-detect dscp`
/// command reference; `docs/reference/red-and-wred.md`),
/// but the GSR's `random-detect-label` goes beyond (the JANET trial used 5461), so the
/// bound only catches slips.
pub const MAX_THRESHOLD_PACKETS: u32 = 1_000_000;

/// What picks a packet's profile.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RedBasis {
    /// One profile per IP precedence (IOS `random-detect`, `random-detect prec-based`).
    #[default]
    Precedence,
    /// One profile per DSCP (IOS `random-detect dscp-based`).
    Dscp,
    /// One profile for all packets (classic RED).
    None,
    /// RIO: one profile and one average per AF drop precedence.
    DropPrecedence,
}

/// An AF drop precedence by name.
#[derive(Copy, Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DropPrecedenceName {
    /// AFx1 (RIO's "in").
    Low,
    /// AFx2.
    Medium,
    /// AFx3 (RIO's "out").
    High,
}

/// What happens to packets no `profiles` row names.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Unlisted {
    /// They keep the default table's profile.
    #[default]
    DefaultTable,
    /// They see tail drop only (a GSR `cos-queue-group` gives WRED only to precedences
    /// with a `random-detect-label`).
    TailDrop,
}

/// One row overriding the default profiles: the packets it applies to and its thresholds.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedProfileSpec {
    /// The precedences this row sets (with `based_on: precedence`).
    pub precedence: Option<OneOrMany<Precedence>>,
    /// The DSCPs this row sets (with `based_on: dscp`).
    pub dscp: Option<OneOrMany<Dscp>>,
    /// The drop precedences this row sets (with `based_on: drop_precedence`).
    pub drop_precedence: Option<OneOrMany<DropPrecedenceName>>,
    /// Minimum threshold, packets.
    pub min: u32,
    /// Maximum threshold, packets.
    pub max: u32,
    /// Mark probability denominator (default 10).
    pub denominator: Option<u32>,
}

/// `random_detect:` on a queue or class.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// What picks the profile: `precedence` (default), `dscp`, `none` or `drop_precedence`.
    pub based_on: Option<RedBasis>,
    /// Weight of a new sample is 2^-n (IOS `exponential-weighting-constant`, 1–16,
    /// default 9).
    pub exponential_weighting_constant: Option<u32>,
    /// With `based_on: none`: minimum threshold, packets.
    pub min: Option<u32>,
    /// With `based_on: none`: maximum threshold, packets.
    pub max: Option<u32>,
    /// With `based_on: none`: mark probability denominator (default 10).
    pub denominator: Option<u32>,
    /// Rows replacing the default profiles.
    #[serde(default)]
    pub profiles: Vec<RedProfileSpec>,
    /// Packets no row names: `default_table` (default) or `tail_drop`.
    pub unlisted: Option<Unlisted>,
    /// Gentle RED: the probability rises from 1/denominator at max to 1 at twice max.
    pub gentle: Option<bool>,
    /// Mark ECN-capable packets CE instead of dropping them early (IOS `random-detect ecn`).
    pub ecn: Option<bool>,
    /// `none` (default), `floyd_jacobson` or `uniform`.
    pub count_correction: Option<CountCorrection>,
    /// Decay the average over idle periods (default true).
    pub idle_decay: Option<bool>,
    /// Packet size that sets the idle decay's pace (default 500 B).
    pub idle_packet_size: Option<Size>,
}

/// A RED, WRED or RIO dropper with its state.
#[derive(Clone, Debug)]
pub struct Red {
    basis: RedBasis,
    /// Indexed by precedence, DSCP, drop precedence, or the single profile; `None`: tail
    /// drop only.
    profiles: Vec<Option<RedProfile>>,
    /// Per profile: packets accepted in the random region since its last early drop.
    counts: Vec<u32>,
    /// One average, or one per drop precedence.
    averages: Vec<RedAverage>,
    /// Queued packets per drop precedence (RIO's averages count these).
    held_by_drop_precedence: [u64; 3],
    gentle: bool,
    ecn: bool,
    correction: CountCorrection,
    idle_packet_bits: Option<u64>,
    rng: Rng,
}

/// What the dropper did with an arriving packet.
pub enum Admission {
    /// Queue it (it may have been marked CE).
    Accept(Packet),
    /// It was dropped and counted.
    Dropped,
}

fn check_profile(profile: RedProfile, at: &str) -> Result<RedProfile, Issue> {
    if profile.max_packets == 0 || profile.max_packets > MAX_THRESHOLD_PACKETS {
        return Err(Issue::at(
            join_path(at, "max"),
            format!("{} packets is outside 1-{MAX_THRESHOLD_PACKETS}", profile.max_packets),
        )
        .hint("thresholds are packet counts; IOS MQC accepts 1 to 4096"));
    }
    if profile.min_packets > profile.max_packets {
        return Err(Issue::at(
            join_path(at, "min"),
            format!(
                "the minimum threshold ({}) is above the maximum ({})",
                profile.min_packets, profile.max_packets
            ),
        )
        .hint("use min <= max"));
    }
    if profile.denominator == 0 || profile.denominator > 65_535 {
        return Err(Issue::at(join_path(at, "denominator"), "the denominator must be from 1 to 65535")
            .hint("1 drops every packet at the maximum threshold, 10 drops one in ten"));
    }
    Ok(profile)
}

impl Red {
    /// Builds from `spec` found at key path `at`; `rng` is the dropper's own stream.
    pub fn build(spec: &RedSpec, at: &str, rng: Rng) -> Result<Self, Issue> {
        let basis = spec.based_on.unwrap_or_default();
        let exponent = spec.exponential_weighting_constant.unwrap_or(DEFAULT_WEIGHT_EXPONENT);
        if !(1..=16).contains(&exponent) {
            return Err(Issue::at(
                join_path(at, "exponential_weighting_constant"),
                format!("{exponent} is outside 1-16"),
            )
            .hint("a new sample weighs 2^-n; IOS's default is 9"));
        }
        let unlisted = spec.unlisted.unwrap_or_default();
        let mut profiles = base_profiles(spec, at, basis)?;
        let mut listed = vec![basis == RedBasis::None; profiles.len()];
        for (i, row) in spec.profiles.iter().enumerate() {
            let here = format!("{}[{i}]", join_path(at, "profiles"));
            let (profile, indices) = row_profile(row, &here, basis)?;
            for index in indices {
                profiles[index] = profile;
                listed[index] = true;
            }
        }
        let profiles: Vec<Option<RedProfile>> = profiles
            .into_iter()
            .zip(&listed)
            .map(|(profile, &listed)| (listed || unlisted == Unlisted::DefaultTable).then_some(profile))
            .collect();
        let idle_decay = spec.idle_decay.unwrap_or(true);
        let idle_packet_bytes = spec.idle_packet_size.map_or(DEFAULT_IDLE_PACKET_BYTES, |s| s.0);
        if idle_packet_bytes == 0 {
            return Err(Issue::at(join_path(at, "idle_packet_size"), "must be above 0 bytes"));
        }
        let average_count = if basis == RedBasis::DropPrecedence { 3 } else { 1 };
        Ok(Red {
            basis,
            counts: vec![0; profiles.len()],
            profiles,
            averages: vec![RedAverage::new(exponent); average_count],
            held_by_drop_precedence: [0; 3],
            gentle: spec.gentle.unwrap_or(false),
            ecn: spec.ecn.unwrap_or(false),
            correction: spec.count_correction.unwrap_or_default(),
            idle_packet_bits: idle_decay.then_some(idle_packet_bytes * 8),
            rng,
        })
    }

    /// The profile index of `packet`.
    #[inline]
    fn profile_of(&self, packet: &Packet) -> usize {
        match self.basis {
            RedBasis::Precedence => packet.precedence() as usize,
            RedBasis::Dscp => packet.dscp as usize,
            RedBasis::None => 0,
            RedBasis::DropPrecedence => drop_precedence(packet.dscp),
        }
    }

    /// Queued packets the average of drop precedence `dp` counts.
    #[inline]
    fn held_up_to(&self, dp: usize) -> u64 {
        self.held_by_drop_precedence[..=dp].iter().sum()
    }

    /// The average queue the packet's profile is judged against, packets.
    pub fn average_packets(&self, packet: &Packet) -> f64 {
        match self.basis {
            RedBasis::DropPrecedence => self.averages[drop_precedence(packet.dscp)].packets(),
            _ => self.averages[0].packets(),
        }
    }

    /// Offers `packet`, arriving for class `class` of a queue holding `queue_packets`, to
    /// the dropper; `full` says the queue has no room for it. Drops and marks are counted
    /// through `ctx`.
    #[inline]
    pub fn admit(
        &mut self,
        mut packet: Packet,
        queue_packets: u64,
        full: bool,
        class: usize,
        ctx: &mut QdiscCtx,
    ) -> Admission {
        let dp = drop_precedence(packet.dscp);
        let avg = if self.basis == RedBasis::DropPrecedence {
            for i in dp..3 {
                let held = self.held_up_to(i);
                self.averages[i].sample(ctx.now, held, ctx.rate_bps, self.idle_packet_bits);
            }
            self.averages[dp].packets()
        } else {
            self.averages[0].sample(ctx.now, queue_packets, ctx.rate_bps, self.idle_packet_bits);
            self.averages[0].packets()
        };
        let profile = self.profile_of(&packet);
        let decision = match self.profiles[profile] {
            Some(thresholds) => thresholds.decide(avg, self.gentle),
            None => Decision::Accept,
        };
        let verdict = match decision {
            Decision::Accept => {
                self.counts[profile] = 0;
                None
            }
            Decision::Forced => {
                self.counts[profile] = 0;
                Some(DropReason::RedForced)
            }
            Decision::Random(p_b) => {
                let p = self.correction.apply(p_b, self.counts[profile]);
                let u = self.rng.next_f64();
                ctx.drew_random(self.rng.take_draws());
                if u < p {
                    self.counts[profile] = 0;
                    Some(DropReason::RedEarly)
                } else {
                    self.counts[profile] += 1;
                    None
                }
            }
        };
        match verdict {
            Some(DropReason::RedEarly) if self.ecn && packet.ecn_capable() && !full => {
                packet.ecn = CE;
                ctx.ecn_marked(class);
            }
            Some(reason) => {
                ctx.drop_arrival(class, packet, reason);
                return Admission::Dropped;
            }
            None => {}
        }
        if full {
            ctx.drop_arrival(class, packet, DropReason::TailDrop);
            return Admission::Dropped;
        }
        self.held_by_drop_precedence[dp] += 1;
        Admission::Accept(packet)
    }

    /// `packet` left the queue at `now`, leaving `queue_packets` behind.
    #[inline]
    pub fn dequeued(&mut self, packet: &Packet, queue_packets: u64, now: SimTime) {
        let dp = drop_precedence(packet.dscp);
        self.held_by_drop_precedence[dp] -= 1;
        if self.basis == RedBasis::DropPrecedence {
            for i in dp..3 {
                if self.held_up_to(i) == 0 {
                    self.averages[i].went_idle(now);
                }
            }
        } else if queue_packets == 0 {
            self.averages[0].went_idle(now);
        }
    }
}

/// The profiles of `basis` before any row replaces one: `min`, `max` and `denominator` for
/// classic RED, refused beside another basis, whose defaults are IOS's tables.
fn base_profiles(spec: &RedSpec, at: &str, basis: RedBasis) -> Result<Vec<RedProfile>, Issue> {
    let single_keys = [
        ("min", spec.min.is_some()),
        ("max", spec.max.is_some()),
        ("denominator", spec.denominator.is_some()),
    ];
    Ok(match basis {
        RedBasis::None => {
            let (Some(min), Some(max)) = (spec.min, spec.max) else {
                return Err(Issue::at(at, "classic RED (`based_on: none`) needs `min` and `max` thresholds")
                    .hint("for example `{based_on: none, min: 5, max: 15, denominator: 10}`"));
            };
            let profile = RedProfile::new(min, max, spec.denominator.unwrap_or(DEFAULT_DENOMINATOR));
            if spec.unlisted.is_some() {
                return Err(Issue::at(
                    join_path(at, "unlisted"),
                    "classic RED has one profile for every packet",
                )
                .hint("remove `unlisted`, or choose `based_on: precedence`, `dscp` or `drop_precedence`"));
            }
            vec![check_profile(profile, at)?]
        }
        _ => {
            if let Some((key, _)) = single_keys.iter().find(|(_, set)| *set) {
                return Err(Issue::at(
                    join_path(at, key),
                    format!("`{key}` sets the single profile of classic RED (`based_on: none`)"),
                )
                .hint("change one profile with a `profiles` row, e.g. `profiles: [{precedence: 0, min: 20, max: 40}]`"));
            }
            match basis {
                RedBasis::Precedence => precedence_profiles().to_vec(),
                RedBasis::Dscp => dscp_profiles().to_vec(),
                _ => RIO_PROFILES.to_vec(),
            }
        }
    })
}

/// The profile of `row`, found at `here`, and the indices (precedences, DSCPs or drop
/// precedences, by `basis`) it replaces.
fn row_profile(row: &RedProfileSpec, here: &str, basis: RedBasis) -> Result<(RedProfile, Vec<usize>), Issue> {
    let profile = check_profile(
        RedProfile::new(row.min, row.max, row.denominator.unwrap_or(DEFAULT_DENOMINATOR)),
        here,
    )?;
    let (key, indices): (&str, Vec<usize>) = match basis {
        RedBasis::Precedence => {
            ("precedence", row.precedence.iter().flat_map(|v| v.0.iter().map(|p| p.0 as usize)).collect())
        }
        RedBasis::Dscp => ("dscp", row.dscp.iter().flat_map(|v| v.0.iter().map(|d| d.0 as usize)).collect()),
        RedBasis::DropPrecedence => (
            "drop_precedence",
            row.drop_precedence.iter().flat_map(|v| v.0.iter().map(|d| *d as usize)).collect(),
        ),
        RedBasis::None => {
            return Err(Issue::at(here, "classic RED has one profile, set by `min`, `max` and `denominator`")
                .hint("remove `profiles`, or choose `based_on: precedence`, `dscp` or `drop_precedence`"))
        }
    };
    let others = [
        ("precedence", row.precedence.is_some()),
        ("dscp", row.dscp.is_some()),
        ("drop_precedence", row.drop_precedence.is_some()),
    ];
    if let Some((other, _)) = others.iter().find(|(k, set)| *set && *k != key) {
        return Err(Issue::at(
            join_path(here, other),
            format!("profiles are chosen by {key} here (`based_on`), not by {other}"),
        )
        .hint(format!("write `{key}: ...` in the row, or change `based_on`")));
    }
    if indices.is_empty() {
        return Err(Issue::at(here, "the row does not say which packets it applies to")
            .hint(format!("add `{key}: ...`")));
    }
    Ok((profile, indices))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::testing::harness;
    use crate::packet::testing::packet;

    fn red(yaml: &str) -> Result<Red, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let spec: RedSpec = serde_json::from_value(value).unwrap();
        Red::build(&spec, "q.random_detect", Rng::from_seed_words(7, 0))
    }

    #[test]
    fn defaults_and_overrides() {
        let r = red("{}").unwrap();
        assert_eq!(r.basis, RedBasis::Precedence);
        assert_eq!(r.profiles[5], Some(RedProfile::new(31, 40, 10)));
        let r =
            red("{based_on: dscp, profiles: [{dscp: [AF11, EF], min: 5, max: 9, denominator: 2}]}").unwrap();
        assert_eq!(
            (r.profiles[10], r.profiles[46]),
            (Some(RedProfile::new(5, 9, 2)), Some(RedProfile::new(5, 9, 2)))
        );
        assert_eq!(r.profiles[12], Some(RedProfile::new(28, 40, 10)));
        let r =
            red("{based_on: drop_precedence, profiles: [{drop_precedence: high, min: 1, max: 3}]}").unwrap();
        assert_eq!(
            r.profiles,
            [
                Some(RedProfile::new(35, 45, 10)),
                Some(RedProfile::new(20, 30, 10)),
                Some(RedProfile::new(1, 3, 10))
            ]
        );
        assert_eq!(r.averages.len(), 3);
        // A GSR label set: only the listed precedences get WRED.
        let r = red(
            "{unlisted: tail_drop, profiles: [{precedence: [0, 2], min: 1365, max: 5461, denominator: 1}]}",
        )
        .unwrap();
        assert_eq!((r.profiles[0], r.profiles[1]), (Some(RedProfile::new(1365, 5461, 1)), None));
    }

    #[test]
    fn configuration_errors() {
        let cases = [
            ("{based_on: none}", "q.random_detect", "needs `min` and `max`"),
            ("{min: 5}", "q.random_detect.min", "classic RED"),
            (
                "{exponential_weighting_constant: 17}",
                "q.random_detect.exponential_weighting_constant",
                "1-16",
            ),
            ("{based_on: none, min: 9, max: 5}", "q.random_detect.min", "above the maximum"),
            ("{based_on: none, min: 1, max: 5000000}", "q.random_detect.max", "1-1000000"),
            (
                "{based_on: none, min: 1, max: 5, unlisted: tail_drop}",
                "q.random_detect.unlisted",
                "one profile",
            ),
            ("{based_on: none, min: 1, max: 5, denominator: 0}", "q.random_detect.denominator", "1 to 65535"),
            (
                "{profiles: [{dscp: EF, min: 1, max: 5}]}",
                "q.random_detect.profiles[0].dscp",
                "chosen by precedence",
            ),
            ("{profiles: [{min: 1, max: 5}]}", "q.random_detect.profiles[0]", "which packets"),
            (
                "{based_on: none, min: 1, max: 5, profiles: [{min: 1, max: 5}]}",
                "q.random_detect.profiles[0]",
                "one profile",
            ),
            ("{idle_packet_size: 0B}", "q.random_detect.idle_packet_size", "above 0"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = red(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
    }

    /// Offers arrivals while the queue length sweeps 0..=44 up and down, and returns per
    /// average-queue bin (1 packet wide) the arrivals and the early and forced drops.
    fn sweep(r: &mut Red, arrivals: usize) -> Vec<(u64, u64, u64)> {
        let mut h = harness(1);
        let mut bins = vec![(0u64, 0u64, 0u64); 64];
        for i in 0..arrivals {
            // A triangle wave of period 2 × 44 × 1000 arrivals, slow enough for the average.
            let phase = (i / 1000) % 88;
            let queue = if phase < 44 { phase } else { 88 - phase } as u64;
            let early = h.classes[0].dropped_for(DropReason::RedEarly);
            let forced = h.classes[0].dropped_for(DropReason::RedForced);
            let p = packet(i as u64, 100, 0);
            let _ = r.admit(p, queue, false, 0, &mut h.ctx());
            let bin = &mut bins[r.averages[0].packets() as usize];
            bin.0 += 1;
            bin.1 += h.classes[0].dropped_for(DropReason::RedEarly) - early;
            bin.2 += h.classes[0].dropped_for(DropReason::RedForced) - forced;
        }
        bins
    }

    #[test]
    fn measured_drop_probability_follows_the_linear_curve() {
        // min 10, max 30, denominator 5: p rises from 0 at 10 to 0.2 at 30, then forced.
        let mut r =
            red("{based_on: none, min: 10, max: 30, denominator: 5, exponential_weighting_constant: 6}")
                .unwrap();
        let bins = sweep(&mut r, 2_000_000);
        let mut checked = 0;
        for (avg, &(n, early, forced)) in bins.iter().enumerate() {
            if n < 2000 {
                continue;
            }
            let measured = early as f64 / n as f64;
            if avg < 10 {
                assert_eq!((early, forced), (0, 0), "bin {avg}");
            } else if avg < 30 {
                // The bin covers averages [avg, avg + 1): the curve at its middle, within four
                // binomial standard deviations plus half a bin's slope.
                let expected = 0.2 * (avg as f64 + 0.5 - 10.0) / 20.0;
                let tolerance = 4.0 * (expected * (1.0 - expected) / n as f64).sqrt() + 0.005;
                assert!((measured - expected).abs() < tolerance, "bin {avg}: {measured} vs {expected}");
                assert_eq!(forced, 0);
                checked += 1;
            } else {
                assert_eq!((early, forced), (0, n), "bin {avg}");
            }
        }
        assert!(checked >= 18, "only {checked} bins in the random region had enough samples");
    }

    #[test]
    fn uniform_count_correction_keeps_the_long_run_rate() {
        // ALTQ's p_b / (2 − count·p_b), count starting at 0 after a drop, makes the position
        // of the next drop uniform on 1..=2/p_b: with the average held at 20 (p_b = 0.1) the
        // mean gap is 10.5 packets, a drop rate of 1/10.5 (± 3 %).
        let mut r = red("{based_on: none, min: 10, max: 30, denominator: 5, count_correction: uniform, exponential_weighting_constant: 1}")
            .unwrap();
        let mut h = harness(1);
        let n = 200_000;
        for i in 0..n {
            let _ = r.admit(packet(i, 100, 0), 20, false, 0, &mut h.ctx());
        }
        let rate = h.classes[0].dropped_for(DropReason::RedEarly) as f64 / n as f64;
        assert!((rate - 1.0 / 10.5).abs() < 0.003, "{rate}");
    }

    #[test]
    fn ecn_capable_packets_are_marked_in_the_random_region_and_dropped_when_forced() {
        // Denominator 1 and an average just below max: almost every packet is chosen.
        let mut r = red(
            "{based_on: none, min: 1, max: 10, denominator: 1, ecn: true, exponential_weighting_constant: 1}",
        )
        .unwrap();
        let mut h = harness(1);
        let mut marked = 0;
        for i in 0..200 {
            let mut p = packet(i, 100, 0);
            p.ecn = crate::packet::ECT_0;
            // Queue 9.5 on average: alternate 9 and 10.
            if let Admission::Accept(p) = r.admit(p, 9 + i % 2, false, 0, &mut h.ctx()) {
                marked += (p.ecn == CE) as u64;
            }
        }
        assert!(marked > 150, "{marked}");
        assert_eq!(h.classes[0].ecn_marked_packets, marked);
        assert_eq!(h.classes[0].dropped_for(DropReason::RedEarly), 0);
        // Not ECN-capable: the same choice drops.
        let _ = r.admit(packet(1000, 100, 0), 9, false, 0, &mut h.ctx());
        let _ = r.admit(packet(1001, 100, 0), 9, false, 0, &mut h.ctx());
        assert!(h.classes[0].dropped_for(DropReason::RedEarly) >= 1);
        // Above max: forced, ECN-capable or not.
        let mut p = packet(2000, 100, 0);
        p.ecn = crate::packet::ECT_0;
        for _ in 0..5 {
            let _ = r.admit(p, 40, false, 0, &mut h.ctx());
        }
        assert!(h.classes[0].dropped_for(DropReason::RedForced) >= 4);
    }

    #[test]
    fn rio_judges_each_drop_precedence_by_the_backlog_up_to_it() {
        // A queue holding 20 AF13 (high) packets: AF11's average counts only low packets,
        // so it is accepted; AF13's counts all 20, above its maximum (15): forced drop.
        let mut r = red("{based_on: drop_precedence, exponential_weighting_constant: 1}").unwrap();
        let mut h = harness(1);
        let af13 = crate::classify::dscp::parse_dscp("AF13").unwrap();
        let af11 = crate::classify::dscp::parse_dscp("AF11").unwrap();
        r.held_by_drop_precedence = [0, 0, 20];
        // From an average of 0 with weight 1/2: 10 after the first arrival (random region),
        // then at or above 15: forced.
        for i in 0..10 {
            let _ = r.admit(packet(i, 100, af13), 20, false, 0, &mut h.ctx());
        }
        assert!(h.classes[0].dropped_for(DropReason::RedForced) >= 9);
        for i in 0..8 {
            assert!(matches!(
                r.admit(packet(i, 100, af11), 20, false, 0, &mut h.ctx()),
                Admission::Accept(_)
            ));
        }
        assert!(r.averages[0].packets() < 8.0 && r.averages[2].packets() > 15.0);
    }

    #[test]
    fn a_full_queue_still_tail_drops() {
        let mut r = red("{}").unwrap();
        let mut h = harness(1);
        assert!(matches!(r.admit(packet(0, 100, 0), 0, true, 0, &mut h.ctx()), Admission::Dropped));
        assert_eq!(h.classes[0].dropped_for(DropReason::TailDrop), 1);
    }

    #[test]
    fn the_average_decays_while_the_queue_is_idle() {
        // 1 Mbit/s, 500-byte idle packets: 4 ms per packet time. The average is pushed up,
        // the queue empties, and an arrival 400 ms later (m = 100) sees it decayed by
        // (1 − 1/2)^100, i.e. to about zero, before its own zero sample.
        let mut r = red("{based_on: none, min: 5, max: 15, exponential_weighting_constant: 1}").unwrap();
        let mut h = harness(1);
        for i in 0..20 {
            let _ = r.admit(packet(i, 100, 0), 12, false, 0, &mut h.ctx());
        }
        assert!(r.averages[0].packets() > 11.0);
        r.held_by_drop_precedence = [1, 0, 0];
        r.dequeued(&packet(0, 100, 0), 0, SimTime(0));
        let mut ctx = h.ctx();
        ctx.now = SimTime(400_000_000);
        let _ = r.admit(packet(99, 100, 0), 0, false, 0, &mut ctx);
        assert!(r.averages[0].packets() < 1e-6, "{}", r.averages[0].packets());
    }
}
