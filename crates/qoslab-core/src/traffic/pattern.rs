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
//!   durations; during ON an inner `cbr`, `codec`, `poisson`, `video` or `trace` pattern
//!   runs from the start of the period, and no packet starts after the period ends.
//! * `probe`, `alarm`, `ospf_hello`, `burst`: presets for the studies' probes, alarm, OSPF
//!   hellos and UDP bursts ([`super::presets`]).
//! * `video`: frames at a frame rate, fixed or random sizes, frame-rate steps
//!   ([`super::video`]); `trace`: frames from a CSV file ([`super::trace`]); both split into
//!   packets ([`super::frames`]), so their packets differ in size.
//! * `ramp`: a stepped constant bit rate ([`super::ramp`]).

use super::codec::{Codec, IP_UDP_RTP_HEADER_BYTES};
use super::distribution::DurationDist;
use super::frames::{FrameSource, FrameState};
use super::generator::{cbr_clock, check_size, CbrClock, Generator, OnOffState, Pattern};
use super::phase::Period;
use super::presets::{AlarmParams, BurstParams, OspfHelloParams, ProbeParams};
use super::ramp::{RampClock, RampParams};
use super::trace::{Trace, TraceCursor, TraceParams};
use super::video::{VideoClock, VideoParams, DEFAULT_VIDEO_HEADER_BYTES, DEFAULT_VIDEO_PACKET_BYTES};

use crate::config::error::{join_path, Issue};
use crate::config::tagged::kind_enum;
use crate::time::{SimTime, NS_PER_S};
use crate::units::{Duration, RateOrShare, Size};
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::Path;
use std::sync::Arc;

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
        /// The ad-hoc report's alarm: 256 B every 100 ms for 1 s.
        "alarm" => Alarm(AlarmParams),
        /// OSPF hellos: 64 B every 10 s.
        "ospf_hello" => OspfHello(OspfHelloParams),
        /// Constant-rate bursts (the DiffServ measurements' 15 s UDP bursts).
        "burst" => Burst(BurstParams),
        /// Video frames at a frame rate, split into packets.
        "video" => Video(VideoParams),
        /// Frames from a CSV trace, split into packets.
        "trace" => Trace(TraceParams),
        /// A stepped constant bit rate.
        "ramp" => Ramp(RampParams),
    }
}

/// What compiling a pattern needs besides the pattern.
#[derive(Clone, Copy, Debug)]
pub struct PatternEnv<'a> {
    /// Rate of the flow's slowest link, for rates given as a share.
    pub bottleneck_bps: u64,
    /// Folder that relative file names (traces) are read from.
    pub base_dir: &'a Path,
}

/// Largest packet and header bytes of a frame pattern, checked.
fn frame_packets(packet_size: Option<Size>, headers: Option<Size>, at: &str) -> Result<(u32, u32), Issue> {
    let packet = check_size(packet_size.unwrap_or(Size(DEFAULT_VIDEO_PACKET_BYTES)), at)?;
    let headers_bytes = headers.map_or(DEFAULT_VIDEO_HEADER_BYTES, |h| h.0);
    if headers_bytes >= packet as u64 {
        return Err(Issue::at(
            join_path(at, "headers"),
            format!("{headers_bytes} B of headers leave no payload in {packet} B packets"),
        )
        .hint("the IPv4 and UDP headers are 28B"));
    }
    Ok((packet, headers_bytes as u32))
}

impl PatternSpec {
    /// Compiles the pattern found at key path `at`, for a flow whose slowest link runs at
    /// `bottleneck_bps`.
    pub fn compile(&self, at: &str, env: &PatternEnv) -> Result<Pattern, Issue> {
        let bottleneck_bps = env.bottleneck_bps;
        let resolve =
            |rate: RateOrShare| match rate.bps(bottleneck_bps) {
                0 => Err(Issue::at(join_path(at, "rate"), "must be above zero")
                    .hint("write e.g. `64kbps` or `150%`")),
                bps => Ok(bps),
            };
        match self {
            PatternSpec::Cbr(p) => cbr(p, at, &resolve),
            PatternSpec::Codec(p) => {
                let interval_ns = p.interval.map_or(p.codec.default_interval_ns(), |d| d.0);
                let payload = p
                    .codec
                    .payload_bytes(interval_ns)
                    .map_err(|e| Issue::at(join_path(at, "interval"), e.to_string()))?;
                let headers = p.headers.map_or(IP_UDP_RTP_HEADER_BYTES, |h| h.0);
                let size = check_size(Size(payload + headers), at)?;
                Ok(Pattern {
                    size_bytes: size,
                    nominal_interval_ns: interval_ns,
                    packets_per_s: NS_PER_S as f64 / interval_ns.max(1) as f64,
                    period: Period::every_ns(interval_ns),
                    generator: Generator::Cbr(cbr_clock(interval_ns as u128, 1)),
                })
            }
            PatternSpec::Flood(p) => {
                let size = check_size(p.size.unwrap_or(Size(1500)), at)?;
                let clock = cbr_clock(size as u128 * 8 * NS_PER_S as u128, resolve(p.rate)? as u128);
                Ok(clocked(size, clock))
            }
            PatternSpec::Poisson(p) => poisson(p, at, &resolve),
            PatternSpec::Probe(p) => p.compile(at),
            PatternSpec::Alarm(p) => p.compile(at),
            PatternSpec::OspfHello(p) => p.compile(at),
            PatternSpec::Burst(p) => p.compile(at, resolve(p.rate)?),
            PatternSpec::Video(p) => video(p, at),
            PatternSpec::Trace(p) => trace(p, at, env),
            PatternSpec::Ramp(p) => {
                let size = check_size(p.size, at)?;
                let clock = RampClock::build(p, size, at)?;
                Ok(Pattern {
                    size_bytes: size,
                    nominal_interval_ns: (size as u128 * 8 * NS_PER_S as u128 / p.start_rate.0.max(1) as u128)
                        as u64,
                    packets_per_s: p.start_rate.0.max(p.end_rate.0) as f64 / (f64::from(size) * 8.0),
                    period: Period::None("a ramp rises in steps from the flow's `start`"),
                    generator: Generator::Ramp(Box::new(clock)),
                })
            }
            PatternSpec::OnOff(p) => on_off(p, at, env),
        }
    }

    /// The voice codec the pattern sends, if it is a codec preset (alone or during ON).
    pub fn codec(&self) -> Option<Codec> {
        match self {
            PatternSpec::Codec(p) => Some(p.codec),
            PatternSpec::OnOff(p) => p.during_on.codec(),
            _ => None,
        }
    }

    /// Whether the source starts in its OFF period.
    pub fn starts_off(&self) -> bool {
        matches!(self, PatternSpec::OnOff(p) if p.start_off)
    }
}

/// A `cbr` pattern: its clock from a packet rate (exact to six decimals) or a bit rate.
fn cbr(
    p: &CbrParams,
    at: &str,
    resolve: &dyn Fn(RateOrShare) -> Result<u64, Issue>,
) -> Result<Pattern, Issue> {
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
        (None, Some(rate)) => cbr_clock(size as u128 * 8 * NS_PER_S as u128, resolve(rate)? as u128),
        _ => return Err(rate_pair_error(at)),
    };
    Ok(clocked(size, clock))
}

/// A `poisson` pattern: exponential gaps at a mean packet rate or bit rate.
fn poisson(
    p: &PoissonParams,
    at: &str,
    resolve: &dyn Fn(RateOrShare) -> Result<u64, Issue>,
) -> Result<Pattern, Issue> {
    let size = check_size(p.size, at)?;
    let pps = match (p.rate_pps, p.rate) {
        (Some(pps), None) => pps,
        (None, Some(rate)) => resolve(rate)? as f64 / (size as f64 * 8.0),
        _ => return Err(rate_pair_error(at)),
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
        packets_per_s: pps,
        period: Period::None("Poisson arrivals are random already"),
        generator: Generator::Poisson { mean_gap_ns, last: SimTime::ZERO, first: true },
    })
}

/// A `video` pattern: frames at a frame rate, split into packets.
fn video(p: &VideoParams, at: &str) -> Result<Pattern, Issue> {
    let (packet, headers) = frame_packets(p.packet_size, p.headers, at)?;
    let (clock, mean_frame_bytes, fps) = VideoClock::build(p, at)?;
    let packets_per_frame = (mean_frame_bytes / (packet - headers) as f64).ceil().max(1.0);
    Ok(Pattern {
        size_bytes: packet,
        nominal_interval_ns: (1e9 / fps / packets_per_frame) as u64,
        packets_per_s: fps * packets_per_frame,
        period: Period::every_ns(clock.frame_interval_ns()),
        generator: Generator::Frames(Box::new(FrameState::new(FrameSource::Video(clock), packet, headers))),
    })
}

/// A `trace` pattern: frames from a file, split into packets.
fn trace(p: &TraceParams, at: &str, env: &PatternEnv) -> Result<Pattern, Issue> {
    let (packet, headers) = frame_packets(p.packet_size, p.headers, at)?;
    let trace = Trace::load(p, at, env.base_dir)?;
    let mean_row_bytes = trace.mean_rate_bps() / 8.0 * trace.period_ns as f64 / 1e9 / trace.rows.len() as f64;
    let packets_per_row = (mean_row_bytes / (packet - headers) as f64).ceil().max(1.0);
    let packets_per_s = packets_per_row * trace.rows.len() as f64 * 1e9 / trace.period_ns as f64;
    let nominal_interval_ns = (trace.mean_gap_ns() as f64 / packets_per_row) as u64;
    let cursor = TraceCursor::new(Arc::new(trace), p.repeat);
    Ok(Pattern {
        size_bytes: packet,
        nominal_interval_ns,
        packets_per_s,
        period: Period::None("a trace replays its recorded times from the flow's `start`"),
        generator: Generator::Frames(Box::new(FrameState::new(FrameSource::Trace(cursor), packet, headers))),
    })
}

/// An `onoff` pattern around its ON pattern, which must be one that can start and stop.
fn on_off(p: &OnOffParams, at: &str, env: &PatternEnv) -> Result<Pattern, Issue> {
    let inner_at = join_path(at, "during_on");
    if !matches!(
        *p.during_on,
        PatternSpec::Cbr(_)
            | PatternSpec::Codec(_)
            | PatternSpec::Poisson(_)
            | PatternSpec::Video(_)
            | PatternSpec::Trace(_)
    ) {
        return Err(Issue::at(
            join_path(&inner_at, "kind"),
            "the ON pattern must be `cbr`, `codec`, `poisson`, `video` or `trace`",
        ));
    }
    if p.on.mean_ns() == 0.0 {
        return Err(Issue::at(join_path(at, "on"), "ON periods of zero length send nothing"));
    }
    let inner = p.during_on.compile(&inner_at, env)?;
    // Constant ON and OFF periods around a clock repeat every ON + OFF.
    let period = match (p.on, p.off, inner.period) {
        (DurationDist::Constant(on_ns), DurationDist::Constant(off_ns), Period::Every(_)) => {
            Period::every_ns(on_ns.saturating_add(off_ns))
        }
        (DurationDist::Constant(_), DurationDist::Constant(_), Period::None(why)) => Period::None(why),
        _ => Period::None("random ON and OFF lengths make its times random already"),
    };
    Ok(Pattern {
        size_bytes: inner.size_bytes,
        nominal_interval_ns: inner.nominal_interval_ns,
        packets_per_s: inner.packets_per_s,
        period,
        generator: OnOffState::around(p.on, p.off, inner.generator),
    })
}

/// Packets of `size` bytes sent by `clock`: the pattern of `cbr` and `flood`.
fn clocked(size: u32, clock: CbrClock) -> Pattern {
    Pattern {
        size_bytes: size,
        nominal_interval_ns: clock.interval_ns(),
        packets_per_s: clock.packets_per_s(),
        period: Period::every_ns(clock.interval_ns()),
        generator: Generator::Cbr(clock),
    }
}

/// The refusal of a pattern at `at` that gives both or neither of its rate forms.
fn rate_pair_error(at: &str) -> Issue {
    Issue::at(at, "give exactly one of `rate_pps` (packets/s) and `rate` (bit/s)")
}
