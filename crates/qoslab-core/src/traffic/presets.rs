//! Preset patterns named after the studies' applications, all built from constant-bit-rate
//! trains inside constant ON-OFF periods:
//! * `probe`: an IP SLA (SAA) style probe — `count` packets `spacing` apart, every `every`.
//!   The JANET trial's SAA agents sent 50 packets per probe; Cisco's udp-jitter operation
//!   defaults to 20 ms between packets and one operation every 60 s (Cisco IOS IP SLAs
//!   configuration guide, "UDP jitter operation"). Pair it with `echo: true`.
//! * `alarm`: the ad-hoc report's alarm, 256-byte packets every 100 ms for 1 s (once, or
//!   every `every`), from the flow's `start`.
//! * `ospf_hello`: the ad-hoc report's OSPF hellos, 64 bytes every 10 s.
//! * `burst`: the DiffServ measurements' UDP bursts, constant bit rate for `duration`
//!   (512-byte packets for 15 s by default), once or every `every`.

use super::generator::{cbr_clock, check_size, Generator, OnOffState, Pattern};
use super::phase::Period;
use crate::config::error::{join_path, Issue};
use crate::time::NS_PER_S;
use crate::units::{Duration, RateOrShare, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// IP SLA style probe parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProbeParams {
    /// Packets per probe (default 50, as the JANET trial's SAA agents sent).
    pub count: Option<u32>,
    /// Time between a probe's packets (default 20 ms).
    pub spacing: Option<Duration>,
    /// Time between probe starts (default 60 s).
    pub every: Option<Duration>,
    /// IP packet size (default 60 B: a 32-byte payload with UDP and IP headers).
    pub size: Option<Size>,
}

/// The ad-hoc report's alarm: a train of packets, once or repeated.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AlarmParams {
    /// IP packet size (default 256 B).
    pub size: Option<Size>,
    /// Time between packets (default 100 ms).
    pub interval: Option<Duration>,
    /// Packets per alarm (default 10: one second's worth).
    pub count: Option<u32>,
    /// Repeat the alarm on this period (default: once, at the flow's `start`).
    pub every: Option<Duration>,
}

/// OSPF hello packets.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OspfHelloParams {
    /// IP packet size (default 64 B).
    pub size: Option<Size>,
    /// Hello interval (default 10 s).
    pub interval: Option<Duration>,
}

/// Constant-rate bursts.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BurstParams {
    /// Bit rate of IP packets during a burst, or a share of the bottleneck.
    pub rate: RateOrShare,
    /// IP packet size (default 512 B).
    pub size: Option<Size>,
    /// Length of a burst (default 15 s).
    pub duration: Option<Duration>,
    /// Repeat the burst on this period (default: once, at the flow's `start`).
    pub every: Option<Duration>,
}

/// An OFF period no run reaches: a train that does not repeat.
const FOREVER_NS: u64 = u64::MAX / 4;

/// Default packets per probe.
pub const PROBE_COUNT: u32 = 50;
/// Default spacing of a probe's packets, ns.
pub const PROBE_SPACING_NS: u64 = 20_000_000;
/// Default period of probes, ns.
pub const PROBE_EVERY_NS: u64 = 60 * NS_PER_S;
/// Default probe packet size, bytes.
pub const PROBE_SIZE_BYTES: u64 = 60;
/// Default alarm packet size, bytes (the ad-hoc report's Annex).
pub const ALARM_SIZE_BYTES: u64 = 256;
/// Default alarm packet interval, ns.
pub const ALARM_INTERVAL_NS: u64 = 100_000_000;
/// Default packets per alarm.
pub const ALARM_COUNT: u32 = 10;
/// Default OSPF hello size, bytes (the ad-hoc report's "at least 64 bytes").
pub const OSPF_HELLO_SIZE_BYTES: u64 = 64;
/// Default OSPF hello interval, ns.
pub const OSPF_HELLO_INTERVAL_NS: u64 = 10 * NS_PER_S;
/// Default burst packet size, bytes (the DiffServ measurements).
pub const BURST_SIZE_BYTES: u64 = 512;
/// Default burst length, ns.
pub const BURST_DURATION_NS: u64 = 15 * NS_PER_S;

/// Why a train or burst that does not repeat has no period.
const ONCE: &str = "it is sent once, without `every`, so it has no period";

/// A train: `count` packets `spacing_ns` apart, every `every_ns` (or once), as ON-OFF.
fn train(count: u32, spacing_ns: u64, every_ns: Option<u64>, size: u32) -> Pattern {
    let train_ns = count as u64 * spacing_ns;
    let off_ns = every_ns.map_or(FOREVER_NS, |every| every - train_ns);
    Pattern {
        size_bytes: size,
        nominal_interval_ns: spacing_ns,
        packets_per_s: NS_PER_S as f64 / spacing_ns.max(1) as f64,
        period: every_ns.map_or(Period::None(ONCE), Period::every_ns),
        generator: OnOffState::constant(train_ns, off_ns, Generator::Cbr(cbr_clock(spacing_ns as u128, 1))),
    }
}

impl ProbeParams {
    /// Compiles the probe found at key path `at`.
    pub fn compile(&self, at: &str) -> Result<Pattern, Issue> {
        let size = check_size(self.size.unwrap_or(Size(PROBE_SIZE_BYTES)), at)?;
        let count = self.count.unwrap_or(PROBE_COUNT);
        let spacing_ns = self.spacing.map_or(PROBE_SPACING_NS, |d| d.0);
        let every_ns = self.every.map_or(PROBE_EVERY_NS, |d| d.0);
        if count == 0 {
            return Err(Issue::at(join_path(at, "count"), "a probe of 0 packets sends nothing")
                .hint("the JANET trial's SAA probes had 50 packets"));
        }
        if spacing_ns == 0 {
            return Err(Issue::at(join_path(at, "spacing"), "must be above zero")
                .hint("IP SLA's udp-jitter sends a packet every 20ms"));
        }
        let train_ns = count as u64 * spacing_ns;
        if every_ns < train_ns {
            return Err(Issue::at(
                join_path(at, "every"),
                format!(
                    "a probe of {count} packets {} ms apart lasts longer than the {} ms between probes",
                    spacing_ns as f64 / 1e6,
                    every_ns as f64 / 1e6
                ),
            )
            .hint("lengthen `every`, or send fewer packets per probe"));
        }
        Ok(train(count, spacing_ns, Some(every_ns), size))
    }
}

impl AlarmParams {
    /// Compiles the alarm found at key path `at`.
    pub fn compile(&self, at: &str) -> Result<Pattern, Issue> {
        let size = check_size(self.size.unwrap_or(Size(ALARM_SIZE_BYTES)), at)?;
        let count = self.count.unwrap_or(ALARM_COUNT);
        let interval_ns = self.interval.map_or(ALARM_INTERVAL_NS, |d| d.0);
        if count == 0 || interval_ns == 0 {
            return Err(Issue::at(at, "an alarm needs at least one packet and an interval above zero")
                .hint("the ad-hoc report's alarm: 10 packets 100ms apart"));
        }
        let train_ns = count as u64 * interval_ns;
        if self.every.is_some_and(|every| every.0 < train_ns) {
            return Err(Issue::at(join_path(at, "every"), "the alarm lasts longer than its period")
                .hint("lengthen `every` or send fewer packets"));
        }
        Ok(train(count, interval_ns, self.every.map(|d| d.0), size))
    }
}

impl OspfHelloParams {
    /// Compiles the hellos found at key path `at`.
    pub fn compile(&self, at: &str) -> Result<Pattern, Issue> {
        let size = check_size(self.size.unwrap_or(Size(OSPF_HELLO_SIZE_BYTES)), at)?;
        let interval_ns = self.interval.map_or(OSPF_HELLO_INTERVAL_NS, |d| d.0);
        if interval_ns == 0 {
            return Err(Issue::at(join_path(at, "interval"), "must be above zero")
                .hint("OSPF's default hello interval is 10s"));
        }
        Ok(Pattern {
            size_bytes: size,
            nominal_interval_ns: interval_ns,
            packets_per_s: NS_PER_S as f64 / interval_ns as f64,
            period: Period::every_ns(interval_ns),
            generator: Generator::Cbr(cbr_clock(interval_ns as u128, 1)),
        })
    }
}

impl BurstParams {
    /// Compiles the bursts found at key path `at`, `rate` resolved to `rate_bps`.
    pub fn compile(&self, at: &str, rate_bps: u64) -> Result<Pattern, Issue> {
        let size = check_size(self.size.unwrap_or(Size(BURST_SIZE_BYTES)), at)?;
        let duration_ns = self.duration.map_or(BURST_DURATION_NS, |d| d.0);
        if duration_ns == 0 {
            return Err(Issue::at(join_path(at, "duration"), "a burst of 0 s sends nothing")
                .hint("the DiffServ measurements' bursts lasted 15s"));
        }
        if self.every.is_some_and(|every| every.0 < duration_ns) {
            return Err(Issue::at(join_path(at, "every"), "the burst lasts longer than its period")
                .hint("lengthen `every` or shorten `duration`"));
        }
        let clock = cbr_clock(size as u128 * 8 * NS_PER_S as u128, rate_bps as u128);
        let off_ns = self.every.map_or(FOREVER_NS, |every| every.0 - duration_ns);
        Ok(Pattern {
            size_bytes: size,
            nominal_interval_ns: clock.interval_ns(),
            packets_per_s: clock.packets_per_s(),
            period: self.every.map_or(Period::None(ONCE), |every| Period::every_ns(every.0)),
            generator: OnOffState::constant(duration_ns, off_ns, Generator::Cbr(clock)),
        })
    }
}
