//! A traffic flow as written in a scenario, and the running source that emits its packets.
//!
//! Sources are open loop: they emit on their schedule whatever happens downstream. Each has
//! its own random stream, keyed on (seed, replication, flow name) — see
//! [`crate::engine::rng`]. `start` and `stop` are instants since the run began, warm-up
//! included; packets created before the warm-up ends travel normally but do not count in the
//! flow's statistics.

use super::pattern::{Generator, PatternSpec};
use super::phase::Phase;
use crate::app::{AppSpec, TcpSpec};
use crate::classify::dscp::Dscp;
use crate::engine::Rng;
use crate::packet::{Packet, Protocol};
use crate::time::SimTime;
use crate::units::Duration;
use schemars::JsonSchema;
use serde::Deserialize;

/// First source port given to flows that do not set one (+ the flow's index).
pub const DEFAULT_SRC_PORT_BASE: u16 = 49_152;
/// Destination port of flows that do not set one (iperf's default).
pub const DEFAULT_DST_PORT: u16 = 5_001;

/// A flow as written in a scenario.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Unique flow name (also keys its random stream).
    pub name: String,
    /// Send this many identical flows, named `NAME.1` ... `NAME.N`, each with its own
    /// random stream and source port (default: one flow called `NAME`).
    pub copies: Option<u32>,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// IP protocol written in the headers: `udp` (default), `tcp`, `icmp` or a number. The
    /// source stays open loop whatever the protocol says.
    pub protocol: Option<Protocol>,
    /// Source port (default: the next free port from 49152, in list order).
    pub src_port: Option<u16>,
    /// Destination port (default 5001).
    pub dst_port: Option<u16>,
    /// DSCP marking (default 0, best effort).
    pub dscp: Option<Dscp>,
    /// Whether packets are ECN-capable (ECT(0), RFC 3168), so an AQM may mark them instead of
    /// dropping them (default false).
    #[serde(default)]
    pub ecn: bool,
    /// Whether the destination reflects every packet back to the sender, as an IP SLA
    /// (SAA) responder does (default false). The reflected packets are reported as the flow
    /// `NAME.echo`, whose delay is the round-trip time.
    #[serde(default)]
    pub echo: bool,
    /// When the first packet may leave, since the run began (default 0 s).
    pub start: Option<Duration>,
    /// `random`: the first packet leaves at `start` plus a uniform random offset within one
    /// period of the pattern, drawn from the flow's own stream, so replications differ;
    /// `none`: at `start` (default: `run.phase`). Only for patterns with a period (`cbr`,
    /// `codec`, `flood`, `video`, `ospf_hello`, `probe`, repeated `alarm` and `burst`,
    /// `onoff` with constant lengths around `cbr`, `codec` or `video`).
    pub phase: Option<Phase>,
    /// When the source stops, since the run began (default: the end of the run).
    pub stop: Option<Duration>,
    /// The emission pattern of open-loop traffic (give this or `app`).
    pub pattern: Option<PatternSpec>,
    /// An application over TCP (give this or `pattern`).
    pub app: Option<AppSpec>,
    /// TCP settings of the application's connections.
    pub tcp: Option<TcpSpec>,
}

/// A running source.
#[derive(Clone, Debug)]
pub struct Source {
    /// Header fields every packet of the flow carries (id, time and `counted` are set per
    /// packet).
    pub template: Packet,
    /// Emission schedule.
    pub generator: Generator,
    /// The flow's random stream.
    pub rng: Rng,
    /// No packet is emitted at or after this instant.
    pub stop: SimTime,
    /// The egress port at the sending node.
    pub first_port: u32,
    /// Size of the packet due next, IP bytes.
    pub next_size_bytes: u32,
}

impl Source {
    /// A source with its generator started: the first emission is due at the returned time.
    pub fn start(
        template: Packet,
        mut generator: Generator,
        mut rng: Rng,
        start: SimTime,
        start_off: bool,
    ) -> (Self, SimTime) {
        let first = generator.first(start, start_off, &mut rng);
        let next_size_bytes = generator.size_bytes().unwrap_or(template.size_bytes);
        (Source { template, generator, rng, stop: SimTime::ZERO, first_port: 0, next_size_bytes }, first)
    }

    /// The packet emitted at `now` with id `id`.
    #[inline]
    pub fn packet(&self, id: u64, now: SimTime, counted: bool) -> Packet {
        Packet { id, created: now, counted, size_bytes: self.next_size_bytes, ..self.template }
    }

    /// The next emission time after the current one, or `None` once the source stops.
    #[inline]
    pub fn next_emission(&mut self) -> Option<SimTime> {
        let at = self.generator.next(&mut self.rng);
        if let Some(size_bytes) = self.generator.size_bytes() {
            self.next_size_bytes = size_bytes;
        }
        (at < self.stop).then_some(at)
    }
}
