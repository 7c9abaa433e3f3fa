//! Push-to-talk voice with TCP signalling — the LMR VoIP thesis' IP Tone application: a
//! radio user keys up, talks for a while, releases, and is silent; the voice travels as
//! UDP codec packets during each talk spurt, and the client tells the server over a TCP
//! control connection when a spurt starts and when it ends.
//!
//! The client opens two control connections, as the thesis' trace shows IP Tone doing
//! (Appendix C: two SYNs to port 8896, 12.147 ms apart): the first when the application
//! starts, the second 12.147 ms later. Both stay open for the run; the messages go on the
//! first, and nothing is written on the second.
//! Talk spurts and pauses alternate, their lengths drawn from `talk` and `pause` (the
//! thesis' ON-OFF traffic: ON 1–18 s, OFF 1–75 s, here uniform by default); the first
//! spurt follows a first pause. At a spurt's start the client writes one signalling
//! message (`message_size`, default 284 B: the length of the IP Tone messages in the
//! thesis' packet trace) and sends the first voice packet; voice packets follow every
//! packetization interval while the spurt lasts; at the first packet time at or after the
//! spurt's end no packet is sent and the client writes the closing message. The server
//! only acknowledges (TCP's delayed-ACK rules apply). A message completes when it has
//! reached the server's application, so the apps table's completion times are the
//! signalling delays, and the TCP counters are the thesis' signalling overhead.
//!
//! With `talk: continuous` (the thesis' continuous traffic, §4.2.1) the user talks in one
//! spurt from the application's start to the end of the run: the opening message is
//! written as the connection opens, there is no first pause and no closing message, and
//! nothing is drawn from the random stream.
//!
//! With `send_jitter` on the traffic entry, each voice packet leaves late by a draw of it,
//! never before the packet before it ([`SendJitter`]); the voice clock keeps the nominal
//! instants, so the spurts, their packet counts and their ends are as without it, and the
//! opening message of a spurt is written as its first packet leaves. The draws come from a
//! random stream of their own (`NAME send jitter`), so the talk spurts and pauses are drawn
//! exactly as without the jitter.
//!
//! The voice is a codec preset (`{codec: gsm-fr, interval: 100ms}`), or, when no preset
//! describes the application's packets, their IP size and interval (`{size: 370B,
//! interval: 197ms}`: the thesis' IP Tone packets, 384 bytes with the Ethernet header, one
//! every 0.197 s as its analysis script gives the spacing at the source, Appendix C).
//!
//! The thesis does not describe IP Tone's control protocol (it is proprietary, §2.1), only
//! counts its TCP packets (Tables 4-2 to 4-9): about 12 in 10 minutes of continuous talk,
//! about 7 to 9 per ON-OFF talk spurt. This model sends 4 per spurt and none while a
//! continuous talker talks; `docs/applications.md` gives the numbers and why no keep-alive
//! or server reply is added.

use super::app_stats::AppStats;
use super::talk_spurts::TalkSpurts;
use super::{pair_of, AppRequest};
use crate::config::error::{join_path, Issue};
use crate::engine::Rng;
use crate::ids::EndpointId;
use crate::tcp::TcpStack;
use crate::time::SimTime;
use crate::traffic::codec::Codec;
use crate::traffic::distribution::DurationDist;
use crate::traffic::generator::check_size;
use crate::traffic::pattern::{CodecParams, PatternEnv, PatternSpec};
use crate::traffic::send_jitter::SendJitter;
use crate::units::{Duration, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;
use std::collections::VecDeque;
use std::path::Path;

/// Default signalling message, bytes (the IP Tone messages' length in the thesis' trace).
pub const DEFAULT_MESSAGE_BYTES: u64 = 284;
/// Default TCP port of the control connections (IP Tone's, from the thesis' access lists).
pub const DEFAULT_SIGNALLING_PORT: u16 = 8896;
/// Control connections the client opens (IP Tone's two in the thesis' trace, Appendix C).
pub const CONTROL_CONNECTIONS: u32 = 2;
/// How long after the first the client opens its second control connection, ns (the two
/// SYNs of the thesis' trace, Appendix C: 0 and 0.012147 s).
pub const SECOND_CONNECTION_AFTER_NS: u64 = 12_147_000;

/// How long the user talks at a time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Talk {
    /// Talk spurts of these lengths, with pauses between them.
    Spurts(DurationDist),
    /// One talk spurt from the application's start to the end of the run.
    Continuous,
}

impl<'de> Deserialize<'de> for Talk {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        if value == "continuous" {
            return Ok(Talk::Continuous);
        }
        let is_text = value.is_string();
        DurationDist::deserialize(value).map(Talk::Spurts).map_err(|e| {
            let e = if is_text { format!("neither `continuous` nor a duration: {e}") } else { e.to_string() };
            serde::de::Error::custom(e)
        })
    }
}

impl JsonSchema for Talk {
    fn schema_name() -> Cow<'static, str> {
        "Talk".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let spurts = generator.subschema_for::<DurationDist>().to_value();
        schemars::json_schema!({
            "description": "`continuous` (one spurt for the whole run) or the lengths of talk spurts",
            "anyOf": [{"type": "string", "const": "continuous"}, spurts]
        })
    }
}

/// The voice of the talk spurts.
#[derive(Clone, Debug)]
pub enum Voice {
    /// A codec preset, as in a `codec` pattern (`{codec: gsm-fr, interval: 100ms}`).
    Codec(CodecParams),
    /// Packets of a given IP size at a given interval, when no codec preset describes them.
    Packets(VoicePackets),
}

/// Voice packets given by their size and spacing.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoicePackets {
    /// IP packet size, headers included.
    pub size: Size,
    /// Time between the packets of a talk spurt.
    pub interval: Duration,
}

impl Voice {
    /// The codec, when the voice is a codec preset.
    pub fn codec(&self) -> Option<Codec> {
        match self {
            Voice::Codec(params) => Some(params.codec),
            Voice::Packets(_) => None,
        }
    }

    /// The IP size of the voice packets and the interval between them (ns), checked; `at` is
    /// the key path of the voice.
    pub fn packets(&self, at: &str) -> Result<(u32, u64), Issue> {
        match self {
            Voice::Codec(params) => {
                let env = PatternEnv { bottleneck_bps: 0, base_dir: Path::new(".") };
                let pattern = PatternSpec::Codec(params.clone()).compile(at, &env)?;
                Ok((pattern.size_bytes, pattern.nominal_interval_ns))
            }
            Voice::Packets(p) => {
                let size = check_size(p.size, at)?;
                if p.interval.0 == 0 {
                    return Err(Issue::at(join_path(at, "interval"), "voice packets 0 s apart never end")
                        .hint("give the time between two packets, e.g. `interval: 20ms`"));
                }
                Ok((size, p.interval.0))
            }
        }
    }
}

impl<'de> Deserialize<'de> for Voice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let has = |key: &str| value.get(key).is_some();
        if has("codec") {
            return CodecParams::deserialize(value).map(Voice::Codec).map_err(serde::de::Error::custom);
        }
        if !has("size") && !has("interval") {
            return Err(serde::de::Error::custom(
                "give a `codec` (`{codec: gsm-fr}`) or the packets' `size` and `interval` \
                 (`{size: 370B, interval: 197ms}`)",
            ));
        }
        VoicePackets::deserialize(value).map(Voice::Packets).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Voice {
    fn schema_name() -> Cow<'static, str> {
        "Voice".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let codec = generator.subschema_for::<CodecParams>().to_value();
        let packets = generator.subschema_for::<VoicePackets>().to_value();
        schemars::json_schema!({
            "description": "a codec preset (`{codec: gsm-fr}`) or packets of a size at an interval (`{size: 370B, interval: 197ms}`)",
            "anyOf": [codec, packets]
        })
    }
}

/// Parameters of a push-to-talk application.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PttParams {
    /// The voice of the talk spurts: a codec preset (`{codec: gsm-fr}`), or packets of a
    /// size at an interval (`{size: 370B, interval: 197ms}`).
    pub voice: Voice,
    /// Talk spurt lengths (default uniform 1 s to 18 s), or `continuous`: the user talks
    /// from the application's start to the end of the run.
    pub talk: Option<Talk>,
    /// Pauses between spurts (default uniform 1 s to 75 s); not with `talk: continuous`.
    pub pause: Option<DurationDist>,
    /// Signalling message size (default 284 B).
    pub message_size: Option<Size>,
    /// TCP destination port of the control connection (default 8896); the voice uses the
    /// flow's `dst_port`.
    pub signalling_port: Option<u16>,
}

/// Whether the user is talking.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Floor {
    /// Silent; the next spurt starts at the next tick.
    Pause,
    /// Talking until this instant.
    Talk(SimTime),
}

/// A running push-to-talk application.
#[derive(Clone, Debug)]
pub struct PttApp {
    /// The first control connection's client endpoint (the server is its peer; the second
    /// connection is the next pair).
    pair: EndpointId,
    /// Whether the control connection is open and the voice clock running.
    started: bool,
    talk: Talk,
    pause: DurationDist,
    interval_ns: u64,
    /// The voice's send-timing jitter, if any, with the random stream of its draws (its
    /// own, so that the talk spurts are those of a sender without it).
    send_jitter: Option<(SendJitter, Rng)>,
    /// The instant the current tick was due: the voice clock runs on these, whatever the
    /// send jitter made of them.
    nominal: SimTime,
    message_bytes: u64,
    floor: Floor,
    /// Whether the current spurt is measured.
    tracking: bool,
    /// Bytes written on the control connection so far.
    written_bytes: u64,
    /// Messages not yet delivered: (the stream offset of their end, when written).
    pending: VecDeque<(u64, SimTime)>,
    delivered_seen: u64,
    rng: Rng,
    /// Signalling messages (the transfers) and their delivery times.
    pub stats: AppStats,
    /// The voice's talk spurts.
    pub spurts: TalkSpurts,
}

impl PttApp {
    /// An application whose control connection is the endpoint pair `pair`, with voice
    /// packets every `interval_ns`, each late by a draw of `send_jitter` (from its random
    /// stream) if given.
    pub fn new(
        params: &PttParams,
        interval_ns: u64,
        send_jitter: Option<(SendJitter, Rng)>,
        pair: EndpointId,
        rng: Rng,
    ) -> Self {
        PttApp {
            pair,
            started: false,
            talk: params.talk.unwrap_or(Talk::Spurts(DurationDist::Uniform(1_000_000_000, 18_000_000_000))),
            pause: params.pause.unwrap_or(DurationDist::Uniform(1_000_000_000, 75_000_000_000)),
            interval_ns,
            send_jitter,
            nominal: SimTime::ZERO,
            message_bytes: params.message_size.map_or(DEFAULT_MESSAGE_BYTES, |s| s.0),
            floor: Floor::Pause,
            tracking: false,
            written_bytes: 0,
            pending: VecDeque::new(),
            delivered_seen: 0,
            rng,
            stats: AppStats::new(1),
            spurts: TalkSpurts::default(),
        }
    }

    /// When the application's two timers fire first, for an application starting at
    /// `start`: the voice clock's (which first opens the first control connection) at
    /// `start`, the second connection's [`SECOND_CONNECTION_AFTER_NS`] later.
    pub fn first_starts(start: SimTime) -> Vec<SimTime> {
        vec![start, start.after(SECOND_CONNECTION_AFTER_NS)]
    }

    /// Opens the second control connection at `now`; nothing is written on it.
    pub fn open_second(&self, stack: &mut TcpStack, now: SimTime) {
        let TcpStack { slots, out } = stack;
        let client = &mut slots[pair_of(self.pair, 1)].endpoint;
        client.sender.open();
        client.output(now, out);
    }

    /// The application's timer at `now`: the first opens the control connection and sets
    /// the voice clock to the first spurt's start, after a first pause (at once for a
    /// continuous talker); the others are the voice clock's ticks.
    pub fn on_timer(&mut self, stack: &mut TcpStack, now: SimTime, warmup_end: SimTime) -> AppRequest {
        if self.started {
            return self.tick(stack, now, warmup_end);
        }
        self.started = true;
        let TcpStack { slots, out } = stack;
        let client = &mut slots[self.pair].endpoint;
        client.sender.open();
        client.output(now, out);
        let first_spurt = match self.talk {
            Talk::Continuous => now,
            Talk::Spurts(_) => now.after(self.pause.sample_ns(&mut self.rng)),
        };
        AppRequest { timer: Some(self.due(first_spurt, now, true)), datagram: false }
    }

    /// The voice clock ticks (the tick due at `self.nominal` fires at `now`): starts or
    /// ends a spurt (writing its signalling message) and says whether a voice packet leaves
    /// now and when the next tick is.
    fn tick(&mut self, stack: &mut TcpStack, now: SimTime, warmup_end: SimTime) -> AppRequest {
        let nominal = self.nominal;
        let next_voice = nominal.after(self.interval_ns);
        match self.floor {
            Floor::Talk(until) if nominal < until => {
                if self.tracking {
                    self.spurts.on_sent(now);
                }
                AppRequest { timer: Some(self.due(next_voice, now, next_voice < until)), datagram: true }
            }
            Floor::Talk(_) => {
                self.signal(stack, now, warmup_end);
                self.floor = Floor::Pause;
                let next_spurt = nominal.after(self.pause.sample_ns(&mut self.rng));
                AppRequest { timer: Some(self.due(next_spurt, now, true)), datagram: false }
            }
            Floor::Pause => {
                self.signal(stack, now, warmup_end);
                let until = match self.talk {
                    Talk::Spurts(talk) => nominal.after(talk.sample_ns(&mut self.rng)),
                    Talk::Continuous => SimTime::NEVER,
                };
                self.floor = Floor::Talk(until);
                // Spurts are measured when they start inside the window.
                self.tracking = now >= warmup_end;
                if self.tracking {
                    self.spurts.begin(now);
                    self.spurts.on_sent(now);
                }
                AppRequest { timer: Some(self.due(next_voice, now, next_voice < until)), datagram: true }
            }
        }
    }

    /// When the tick due at `nominal` fires, the tick before it having fired at `now`: on
    /// time, or, for a tick that sends a voice packet (`sends`) under send jitter, late by
    /// a draw but never before `now` ([`SendJitter::departure`]). The voice clock keeps
    /// `nominal`, so the jitter never moves a later tick.
    fn due(&mut self, nominal: SimTime, now: SimTime, sends: bool) -> SimTime {
        self.nominal = nominal;
        match &mut self.send_jitter {
            Some((jitter, rng)) if sends => jitter.departure(nominal, now, rng),
            _ => nominal.max(now),
        }
    }

    /// How many random numbers the application has drawn.
    pub fn draws(&self) -> u64 {
        self.rng.draws() + self.send_jitter.as_ref().map_or(0, |(_, rng)| rng.draws())
    }

    /// A voice packet sent at `sent` reached the server at `now`.
    pub fn on_voice_received(&mut self, sent: SimTime, now: SimTime) {
        self.spurts.on_received(sent, now);
    }

    /// Writes one signalling message at `now`.
    fn signal(&mut self, stack: &mut TcpStack, now: SimTime, warmup_end: SimTime) {
        self.written_bytes += self.message_bytes;
        self.pending.push_back((self.written_bytes, now));
        self.stats.on_start(now, warmup_end);
        let TcpStack { slots, out } = stack;
        let client = &mut slots[self.pair].endpoint;
        client.sender.write(self.message_bytes);
        client.output(now, out);
    }

    /// Looks at the control connection after activity at `now`: messages that reached the
    /// server complete.
    pub fn progress(&mut self, stack: &TcpStack, now: SimTime, warmup_end: SimTime) {
        let delivered = stack.slots[self.pair.peer()].endpoint.receiver.delivered_bytes();
        self.stats.on_delivered(0, delivered - self.delivered_seen, now, warmup_end);
        self.delivered_seen = delivered;
        while let Some(&(end, written)) = self.pending.front() {
            if delivered < end {
                break;
            }
            self.pending.pop_front();
            self.stats.on_complete(0, written, now, warmup_end);
        }
    }
}
