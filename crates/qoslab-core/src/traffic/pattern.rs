//! When a source emits packets and how big they are, as written in scenarios, and the
//! generators that produce the emission times.
//!
//! * `cbr`: constant bit rate — a fixed size every interval, given as a packet rate
//!   (`rate_pps`) or a bit rate (`rate`). The k-th packet leaves at
//!   start + ⌊k · size · 8 · 10⁹ / rate⌋ ns, so the long-run rate is exact and rounding never
//!   accumulates.
//! * `codec`: a voice codec preset (see [`super::codec`]): CBR with the codec's packet size.
//! * `flood`: an iperf-style UDP flood — CBR at a bit rate, 1500-byte packets by default.
//! * `poisson`: exponential inter-departure times (a Poisson process) of fixed-size packets.
//! * `onoff`: alternating ON and OFF periods with constant, uniform or exponential
//!   durations; during ON an inner `cbr`/`codec`/`poisson` pattern runs from the start of
//!   the period, and no packet starts after the period ends.
//! * `probe`: an IP SLA (SAA) style probe — `count` packets `spacing` apart, repeated
//!   `every` period; compiled as ON-OFF with constant periods. The JANET trial's SAA agents
//!   sent 50 packets per probe; Cisco's udp-jitter operation defaults to 20 ms between
//!   packets and one operation every 60 s (Cisco IOS IP SLAs configuration guide, "UDP
//!   jitter operation"). Pair it with the flow's `echo: true` to measure round trips.

use super::codec::{Codec, IP_UDP_RTP_HEADER_BYTES};
use super::distribution::DurationDist;

use crate::engine::Rng;
use crate::scenario::error::{join_path, Issue};
use crate::scenario::tagged::kind_enum;
use crate::time::{SimTime, NS_PER_S};
use crate::units::{Duration, RateOrShare, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// Constant bit rate parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbrParams {
    /// Packets per second, up to six decimals (give this or `rate`).
    pub rate_pps: Option<f64>,
    /// Bit rate of IP packets, or a share of the bottleneck (`"150%"`); give this or
    /// `rate_pps`.
    pub rate: Option<RateOrShare>,
    /// IP packet size.
    pub size: Size,
}

/// Voice codec parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodecParams {
    /// The codec.
    pub codec: Codec,
    /// Packetization interval (default 20 ms; 30 ms for G.723.1).
    pub interval: Option<Duration>,
    /// Bytes of IP/UDP/RTP headers per packet (default 40 B).
    pub headers: Option<Size>,
}

/// UDP flood parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FloodParams {
    /// Offered bit rate of IP packets, or a share of the bottleneck (`"150%"`).
    pub rate: RateOrShare,
    /// IP packet size (default 1500 B).
    pub size: Option<Size>,
}

/// Poisson process parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoissonParams {
    /// Mean packets per second (give this or `rate`).
    pub rate_pps: Option<f64>,
    /// Mean bit rate, or a share of the bottleneck (`"50%"`); give this or `rate_pps`.
    pub rate: Option<RateOrShare>,
    /// IP packet size.
    pub size: Size,
}

/// ON-OFF parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffParams {
    /// ON period durations.
    pub on: DurationDist,
    /// OFF period durations.
    pub off: DurationDist,
    /// What is sent during ON (`cbr`, `codec` or `poisson`).
    pub during_on: Box<PatternSpec>,
    /// Whether the source starts in its OFF period (default: starts ON).
    #[serde(default)]
    pub start_off: bool,
}

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

/// Default packets per probe.
pub const PROBE_COUNT: u32 = 50;
/// Default spacing of a probe's packets, ns.
pub const PROBE_SPACING_NS: u64 = 20_000_000;
/// Default period of probes, ns.
pub const PROBE_EVERY_NS: u64 = 60 * NS_PER_S;
/// Default probe packet size, bytes.
pub const PROBE_SIZE_BYTES: u64 = 60;

kind_enum! {
    /// A traffic pattern as written in a scenario.
    pub enum PatternSpec {
        /// Constant bit rate.
        "cbr" => Cbr(CbrParams),
        /// A voice codec preset.
        "codec" => Codec(CodecParams),
        /// An iperf-style UDP flood.
        "flood" => Flood(FloodParams),
        /// Poisson arrivals of fixed-size packets.
        "poisson" => Poisson(PoissonParams),
        /// ON-OFF periods around an inner pattern.
        "onoff" => OnOff(OnOffParams),
        /// IP SLA style probes: a train of packets every period.
        "probe" => Probe(ProbeParams),
    }
}

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
}

/// ON-OFF runtime state.
#[derive(Clone, Debug)]
pub struct OnOffState {
    on: DurationDist,
    off: DurationDist,
    inner: Generator,
    on_end: SimTime,
}

/// A compiled pattern: the generator plus the fixed packet size and nominal interval.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// Emission schedule.
    pub generator: Generator,
    /// IP packet size, bytes.
    pub size_bytes: u32,
    /// Nominal interval between packets, ns (mean for random patterns).
    pub nominal_interval_ns: u64,
}

fn check_size(size: Size, at: &str) -> Result<u32, Issue> {
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

fn cbr_clock(interval_num: u128, interval_den: u128) -> CbrClock {
    CbrClock { interval_num, interval_den, origin: SimTime::ZERO, k: 0 }
}

impl PatternSpec {
    /// Compiles the pattern found at key path `at`, for a flow whose slowest link runs at
    /// `bottleneck_bps`.
    pub fn compile(&self, at: &str, bottleneck_bps: u64) -> Result<Pattern, Issue> {
        let resolve =
            |rate: RateOrShare| match rate.bps(bottleneck_bps) {
                0 => Err(Issue::at(join_path(at, "rate"), "must be above zero")
                    .hint("write e.g. `64kbps` or `150%`")),
                bps => Ok(bps),
            };
        let rate_pair_error =
            || Issue::at(at, "give exactly one of `rate_pps` (packets/s) and `rate` (bit/s)");
        match self {
            PatternSpec::Cbr(p) => {
                let size = check_size(p.size, at)?;
                let clock = match (p.rate_pps, p.rate) {
                    (Some(pps), None) => {
                        // Exact for up to six decimals: interval = 10^15 / (pps · 10^6) ns.
                        let micro_pps = (pps * 1e6).round();
                        if !(pps.is_finite() && micro_pps >= 1.0) || (pps * 1e6 - micro_pps).abs() > 1e-3 {
                            return Err(Issue::at(
                                join_path(at, "rate_pps"),
                                format!("`{pps}` is not a usable packet rate"),
                            )
                            .hint("give a positive rate with at most six decimals, e.g. 12.5"));
                        }
                        cbr_clock(NS_PER_S as u128 * 1_000_000, micro_pps as u128)
                    }
                    (None, Some(rate)) => {
                        cbr_clock(size as u128 * 8 * NS_PER_S as u128, resolve(rate)? as u128)
                    }
                    _ => return Err(rate_pair_error()),
                };
                Ok(Pattern {
                    size_bytes: size,
                    nominal_interval_ns: clock.interval_ns(),
                    generator: Generator::Cbr(clock),
                })
            }
            PatternSpec::Codec(p) => {
                let interval_ns = p.interval.map_or(p.codec.default_interval_ns(), |d| d.0);
                let payload = p
                    .codec
                    .payload_bytes(interval_ns)
                    .map_err(|e| Issue::at(join_path(at, "interval"), e))?;
                let headers = p.headers.map_or(IP_UDP_RTP_HEADER_BYTES, |h| h.0);
                let size = check_size(Size(payload + headers), at)?;
                Ok(Pattern {
                    size_bytes: size,
                    nominal_interval_ns: interval_ns,
                    generator: Generator::Cbr(cbr_clock(interval_ns as u128, 1)),
                })
            }
            PatternSpec::Flood(p) => {
                let size = check_size(p.size.unwrap_or(Size(1500)), at)?;
                let clock = cbr_clock(size as u128 * 8 * NS_PER_S as u128, resolve(p.rate)? as u128);
                Ok(Pattern {
                    size_bytes: size,
                    nominal_interval_ns: clock.interval_ns(),
                    generator: Generator::Cbr(clock),
                })
            }
            PatternSpec::Poisson(p) => {
                let size = check_size(p.size, at)?;
                let pps = match (p.rate_pps, p.rate) {
                    (Some(pps), None) => pps,
                    (None, Some(rate)) => resolve(rate)? as f64 / (size as f64 * 8.0),
                    _ => return Err(rate_pair_error()),
                };
                if !(pps.is_finite() && pps > 0.0) {
                    return Err(Issue::at(at, "the mean rate must be above zero"));
                }
                let mean_gap_ns = (NS_PER_S as f64 / pps).round() as u64;
                if mean_gap_ns == 0 {
                    return Err(Issue::at(at, "the mean rate exceeds one packet per nanosecond"));
                }
                Ok(Pattern {
                    size_bytes: size,
                    nominal_interval_ns: mean_gap_ns,
                    generator: Generator::Poisson { mean_gap_ns, last: SimTime::ZERO, first: true },
                })
            }
            PatternSpec::Probe(p) => {
                let size = check_size(p.size.unwrap_or(Size(PROBE_SIZE_BYTES)), at)?;
                let count = p.count.unwrap_or(PROBE_COUNT);
                let spacing_ns = p.spacing.map_or(PROBE_SPACING_NS, |d| d.0);
                let every_ns = p.every.map_or(PROBE_EVERY_NS, |d| d.0);
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
                Ok(Pattern {
                    size_bytes: size,
                    nominal_interval_ns: spacing_ns,
                    generator: Generator::OnOff(Box::new(OnOffState {
                        on: DurationDist::Constant(train_ns),
                        off: DurationDist::Constant(every_ns - train_ns),
                        inner: Generator::Cbr(cbr_clock(spacing_ns as u128, 1)),
                        on_end: SimTime::ZERO,
                    })),
                })
            }
            PatternSpec::OnOff(p) => {
                let inner_at = join_path(at, "during_on");
                if matches!(
                    *p.during_on,
                    PatternSpec::OnOff(_) | PatternSpec::Flood(_) | PatternSpec::Probe(_)
                ) {
                    return Err(Issue::at(
                        join_path(&inner_at, "kind"),
                        "the ON pattern must be `cbr`, `codec` or `poisson`",
                    ));
                }
                if p.on.mean_ns() == 0.0 {
                    return Err(Issue::at(join_path(at, "on"), "ON periods of zero length send nothing"));
                }
                let inner = p.during_on.compile(&inner_at, bottleneck_bps)?;
                Ok(Pattern {
                    size_bytes: inner.size_bytes,
                    nominal_interval_ns: inner.nominal_interval_ns,
                    generator: Generator::OnOff(Box::new(OnOffState {
                        on: p.on,
                        off: p.off,
                        inner: inner.generator,
                        on_end: SimTime::ZERO,
                    })),
                })
            }
        }
    }

    /// Whether the source starts in its OFF period.
    pub fn starts_off(&self) -> bool {
        matches!(self, PatternSpec::OnOff(p) if p.start_off)
    }
}

impl Generator {
    /// Restarts the schedule at `origin`: the next emission is at `origin`.
    fn restart(&mut self, origin: SimTime) {
        match self {
            Generator::Cbr(clock) => {
                clock.origin = origin;
                clock.k = 0;
            }
            Generator::Poisson { last, first, .. } => {
                *last = origin;
                *first = true;
            }
            Generator::OnOff(_) => unreachable!("ON-OFF patterns do not nest"),
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
                simple.restart(start);
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
        }
    }
}

impl OnOffState {
    /// Starts an ON period at `on_start`; returns its first emission. A random ON period
    /// too short for even one packet is skipped, with the OFF period that follows it.
    fn begin_on(&mut self, mut on_start: SimTime, rng: &mut Rng) -> SimTime {
        loop {
            self.on_end = on_start.after(self.on.sample_ns(rng));
            self.inner.restart(on_start);
            let at = self.inner.next(rng);
            if at < self.on_end {
                return at;
            }
            on_start = self.on_end.after(self.off.sample_ns(rng));
        }
    }
}
