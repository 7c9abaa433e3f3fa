//! The credit a traffic shaper draws on — shared by the interface shaper ([`super::tbf`])
//! and by shaped CBWFQ classes ([`super::cbwfq`]).
//!
//! A shaper lets a packet of L bytes leave only when it holds L bytes of credit, which the
//! packet then takes. Three ways to earn credit, chosen by `mode`:
//! * `average` (IOS `shape average cir [bc [be]]`, the default): time is cut into intervals
//!   Tc = Bc / CIR, aligned on the start of the run; at the start of each interval Bc bytes
//!   of credit are added, and credit saved from quiet intervals may grow to Bc + Be.
//! * `peak` (IOS `shape peak`): each interval adds Bc + Be, so the long-run rate is
//!   CIR × (1 + Be/Bc).
//! * `continuous` (Linux `tbf`): tokens flow in continuously at CIR into a bucket Bc + Be
//!   deep (exact integer arithmetic, [`TokenBucket`]), so over any window Δt no more than
//!   (Bc + Be) + CIR·Δt bytes leave.
//!
//! IOS defaults (Cisco Press shaping chapters; `docs/reference/ios-defaults.md`): CIR up to
//! 320 kbit/s → Bc = 8000 bits (1000 B); faster → Tc = 25 ms, Bc = CIR × 25 ms; Be = Bc.
//! The HQF-era defaults are not documented, so these are parameters. Credit starts full
//! (Bc + Be) and a packet costs its IP bytes plus, for IOS's shapers, the layer-2 header IOS
//! counts on the link ([`ShaperCredit::counting_header`]; Linux's `tbf` charges what the
//! kernel charges instead, [`super::linux_charge`]). A packet larger than Bc + Be can never
//! earn its credit: the shapers refuse it (`overlimit`).
//!
//! The shaper is asked two things: when a packet of a given size could leave
//! ([`ShaperCredit::ready_at`], exact to the nanosecond, without spending anything) and, once
//! it leaves, to spend its credit ([`ShaperCredit::take`]). Cost: O(1).

use crate::condition::TokenBucket;
use crate::config::error::{join_path, Issue};
use crate::time::{SimTime, NS_PER_MS, NS_PER_S};
use crate::units::{RateOrShare, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// Up to this CIR, IOS's default Bc is 8000 bits.
pub const SLOW_CIR_BPS: u64 = 320_000;
/// IOS's default Bc for slow CIRs, bytes (8000 bits).
pub const SLOW_BC_BYTES: u64 = 1000;
/// IOS's default Tc for faster CIRs.
pub const FAST_TC_NS: u64 = 25 * NS_PER_MS;

/// How credit is earned.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ShapeMode {
    /// IOS `shape average`: Bc per interval, up to Bc + Be saved.
    #[default]
    Average,
    /// IOS `shape peak`: Bc + Be per interval.
    Peak,
    /// Linux `tbf`: a continuous token bucket Bc + Be deep.
    Continuous,
}

/// A shaper's rate and bursts as written in a scenario (IOS `shape average|peak CIR [Bc [Be]]`).
#[derive(Copy, Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShapeSpec {
    /// Committed rate (CIR), or a percentage of the interface bandwidth.
    pub rate: RateOrShare,
    /// Committed burst Bc in bytes (default: 1000 B up to 320 kbit/s, else 25 ms at CIR).
    pub bc: Option<Size>,
    /// Excess burst Be in bytes (default Bc).
    pub be: Option<Size>,
    /// `average` (default), `peak` or `continuous`.
    pub mode: Option<ShapeMode>,
}

/// Interval credit (IOS shaping).
#[derive(Clone, Debug)]
struct IntervalCredit {
    interval_ns: u64,
    added_bytes: u64,
    max_bytes: u64,
    credit_bytes: u64,
    /// Index of the last interval whose credit has been added.
    interval: u64,
}

impl IntervalCredit {
    fn catch_up(&mut self, now: SimTime) {
        let current = now.0 / self.interval_ns;
        if current > self.interval {
            let intervals = current - self.interval;
            self.credit_bytes = self
                .credit_bytes
                .saturating_add(intervals.saturating_mul(self.added_bytes))
                .min(self.max_bytes);
            self.interval = current;
        }
    }
}

/// How the credit is kept.
#[derive(Clone, Debug)]
enum Credit {
    Interval(IntervalCredit),
    Continuous(TokenBucket),
}

/// The credit of one shaper.
#[derive(Clone, Debug)]
pub struct ShaperCredit {
    credit: Credit,
    rate_bps: u64,
    bucket_bytes: u64,
    /// Bytes of layer-2 framing each packet costs beside its IP bytes.
    header_bytes: u32,
}

impl ShaperCredit {
    /// Builds from `spec` found at key path `at`; a percentage rate is of `reference_bps`.
    pub fn build(spec: &ShapeSpec, at: &str, reference_bps: u64) -> Result<Self, Issue> {
        let rate_bps = spec.rate.bps(reference_bps);
        if rate_bps == 0 {
            return Err(Issue::at(join_path(at, "rate"), "the shaping rate must be above zero")
                .hint("give a rate such as `256kbps`, or a percentage above zero"));
        }
        let bc_bytes = match spec.bc {
            Some(Size(0)) => {
                return Err(Issue::at(join_path(at, "bc"), "Bc must be above zero")
                    .hint("leave `bc` out for IOS's default, or give at least one packet's size"))
            }
            Some(bc) => bc.0,
            None if rate_bps <= SLOW_CIR_BPS => SLOW_BC_BYTES,
            None => (rate_bps as u128 * FAST_TC_NS as u128 / (8 * NS_PER_S as u128)).max(1) as u64,
        };
        let be_bytes = spec.be.map_or(bc_bytes, |be| be.0);
        let bucket_bytes = bc_bytes + be_bytes;
        let mode = spec.mode.unwrap_or_default();
        let credit = match mode {
            ShapeMode::Continuous => Credit::Continuous(TokenBucket::new(rate_bps, bucket_bytes)),
            ShapeMode::Average | ShapeMode::Peak => {
                // Tc = Bc / CIR, rounded to the nearest nanosecond.
                let interval_ns = ((bc_bytes as u128 * 8 * NS_PER_S as u128 + rate_bps as u128 / 2)
                    / rate_bps as u128) as u64;
                if interval_ns == 0 {
                    return Err(Issue::at(
                        join_path(at, "bc"),
                        "Bc is too small for the rate: the interval would be under 1 ns",
                    )
                    .hint("raise `bc`, or leave it out for IOS's default"));
                }
                let added_bytes = if mode == ShapeMode::Peak { bucket_bytes } else { bc_bytes };
                Credit::Interval(IntervalCredit {
                    interval_ns,
                    added_bytes,
                    max_bytes: bucket_bytes,
                    credit_bytes: bucket_bytes,
                    interval: 0,
                })
            }
        };
        Ok(ShaperCredit { credit, rate_bps, bucket_bytes, header_bytes: 0 })
    }

    /// The same credit, each packet costing `header_bytes` of layer-2 framing beside its IP
    /// bytes (what IOS counts on the link, [`crate::net::l2::L2Framing::ios_header_bytes`]).
    pub fn counting_header(self, header_bytes: u32) -> Self {
        ShaperCredit { header_bytes, ..self }
    }

    /// The committed rate CIR, bit/s.
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// The most credit the shaper holds, Bc + Be bytes.
    pub fn bucket_bytes(&self) -> u64 {
        self.bucket_bytes
    }

    /// Whether a packet of `size_bytes` can ever leave: it is at most Bc + Be.
    #[inline]
    pub fn fits(&self, size_bytes: u32) -> bool {
        (size_bytes + self.header_bytes) as u64 <= self.bucket_bytes
    }

    /// The earliest instant, not before `now`, at which a packet of `size_bytes` has its
    /// credit; `now` if it has it already. Spends nothing. The packet must [`fit`](Self::fits).
    #[inline]
    pub fn ready_at(&mut self, now: SimTime, size_bytes: u32) -> SimTime {
        debug_assert!(self.fits(size_bytes), "oversized packets are refused before they wait for credit");
        let size_bytes = size_bytes + self.header_bytes;
        match &mut self.credit {
            Credit::Continuous(bucket) => bucket.conforming_at(now, size_bytes).unwrap_or(SimTime::NEVER),
            Credit::Interval(c) => {
                c.catch_up(now);
                if c.credit_bytes >= size_bytes as u64 {
                    return now;
                }
                // Credit arrives in steps at interval starts.
                let missing = size_bytes as u64 - c.credit_bytes;
                let intervals = missing.div_ceil(c.added_bytes);
                SimTime((c.interval + intervals) * c.interval_ns)
            }
        }
    }

    /// Spends the credit of a packet of `size_bytes` leaving at `now`; call it only when
    /// [`ready_at`](Self::ready_at) answered `now`.
    #[inline]
    pub fn take(&mut self, now: SimTime, size_bytes: u32) {
        let size_bytes = size_bytes + self.header_bytes;
        match &mut self.credit {
            Credit::Continuous(bucket) => {
                let conformed = bucket.conform(now, size_bytes);
                debug_assert!(conformed, "credit taken before it was there");
            }
            Credit::Interval(c) => {
                c.catch_up(now);
                debug_assert!(c.credit_bytes >= size_bytes as u64, "credit taken before it was there");
                c.credit_bytes = c.credit_bytes.saturating_sub(size_bytes as u64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credit(yaml: &str) -> Result<ShaperCredit, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        ShaperCredit::build(&serde_json::from_value(value).unwrap(), "s", 1_000_000)
    }

    fn interval(c: &ShaperCredit) -> (u64, u64, u64) {
        let Credit::Interval(i) = &c.credit else { panic!("not an interval shaper") };
        (i.interval_ns, i.added_bytes, i.max_bytes)
    }

    #[test]
    fn ios_defaults() {
        // 64 kbit/s: Bc = Be = 1000 B, Tc = 125 ms.
        assert_eq!(interval(&credit("{rate: 64kbps}").unwrap()), (125_000_000, 1000, 2000));
        // 2 Mbit/s: Tc = 25 ms, Bc = 6250 B.
        assert_eq!(interval(&credit("{rate: 2Mbps}").unwrap()), (25_000_000, 6250, 12_500));
        // Peak adds Bc + Be each interval.
        assert_eq!(interval(&credit("{rate: 64kbps, mode: peak}").unwrap()).1, 2000);
        // A percentage is of the reference rate: 25 % of 1 Mbit/s.
        assert_eq!(credit("{rate: 25%}").unwrap().rate_bps(), 250_000);
        assert_eq!(
            (SLOW_CIR_BPS, SLOW_BC_BYTES, FAST_TC_NS, ShapeMode::default()),
            (320_000, 1000, 25_000_000, ShapeMode::Average)
        );
    }

    #[test]
    fn ready_at_spends_nothing_and_take_does() {
        // 64 kbit/s, bucket 2000 B full: 1500 B are ready now, twice, until taken; then the
        // remaining 500 B plus one interval's 1000 B cover 1500 B at 125 ms.
        let mut c = credit("{rate: 64kbps}").unwrap();
        assert_eq!(c.ready_at(SimTime::ZERO, 1500), SimTime::ZERO);
        assert_eq!(c.ready_at(SimTime::ZERO, 1500), SimTime::ZERO);
        c.take(SimTime::ZERO, 1500);
        assert_eq!(c.ready_at(SimTime(1), 1500), SimTime(125_000_000));
        assert_eq!(c.ready_at(SimTime(125_000_000), 1500), SimTime(125_000_000));
        // Continuous: 8 kbit/s = 1 B/ms, 200 B deep; after 200 B the next 50 B take 50 ms.
        let mut c = credit("{rate: 8kbps, bc: 100B, mode: continuous}").unwrap();
        c.take(SimTime::ZERO, 200);
        assert_eq!(c.ready_at(SimTime::ZERO, 50), SimTime(50_000_000));
        assert!(c.fits(200) && !c.fits(201));
    }

    #[test]
    fn configuration_errors() {
        let cases = [
            ("{rate: 0kbps}", "s.rate", "above zero"),
            ("{rate: 0%}", "s.rate", "above zero"),
            ("{rate: 1Mbps, bc: 0B}", "s.bc", "above zero"),
            ("{rate: 20Gbps, bc: 1B}", "s.bc", "under 1 ns"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = credit(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
            assert!(issue.hint.is_some(), "{yaml}: no hint");
        }
    }
}
