//! A traffic flow as written in a scenario: its endpoints, header fields, schedule, and
//! either an open-loop emission pattern or an application over TCP.

use crate::app::{AppSpec, TcpSpec};
use crate::classify::dscp::Dscp;
use crate::packet::Protocol;
use crate::traffic::distribution::DurationDist;
use crate::traffic::pattern::PatternSpec;
use crate::traffic::Phase;
use crate::units::Duration;
use schemars::JsonSchema;
use serde::Deserialize;

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
    /// The source stops after this many packets, warm-up included, or at `stop`, whichever
    /// comes first (a traffic generator's `send N`, iperf's `-n`); at least 1. Only with a
    /// `pattern` (default: no count).
    pub packets: Option<u64>,
    /// Each packet leaves later than its nominal instant by a delay drawn from this
    /// distribution (`"2ms"`, `{uniform: [0ms, 10ms]}`, `{exponential: 3ms}`) from the flow's
    /// own random stream: the send-timing irregularity of software senders. The schedule
    /// does not drift, packets keep their order, and a packet's delay is measured from when
    /// it actually left. With a `pattern`, or on the voice of a `ptt` app (default: none).
    pub send_jitter: Option<DurationDist>,
    /// The emission pattern of open-loop traffic (give this or `app`).
    pub pattern: Option<PatternSpec>,
    /// An application over TCP (give this or `pattern`).
    pub app: Option<AppSpec>,
    /// TCP settings of the application's connections.
    pub tcp: Option<TcpSpec>,
}

/// Whether the flow row called `row` belongs to the traffic entry `entry` (itself, a copy
/// `entry.N`, or an application's or echo's extra rows `entry.reverse` and so on).
pub(super) fn belongs(row: &str, entry: &str) -> bool {
    row == entry || row.strip_prefix(entry).is_some_and(|rest| rest.starts_with('.'))
}
