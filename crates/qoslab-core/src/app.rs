//! Applications: traffic that reacts to the network. Each runs over simulated TCP
//! connections ([`crate::tcp`]) and reports what its users experienced (completion times,
//! goodput, fairness between users) beside the packet-level statistics of its two
//! directions. User u of an application owns the endpoint pair starting at
//! `first + 2u`: the client (the flow's `from`) and the server (its `to`).
//!
//! Applications plug into the run through two doors only: a timer per user, which the
//! run loop calls back when due ([`App::on_timer`]), and what reaches them from the
//! network — activity on their connections ([`App::on_progress`]) and the packets of their
//! own datagram flow ([`App::on_datagram`]). What they want done in return, a timer set or a
//! datagram sent, they ask for in an [`AppRequest`].

pub mod app_stats;
pub mod bulk;
pub mod ptt;
pub mod request_response;
pub mod talk_spurts;

use crate::config::error::{join_path, Issue};
use crate::config::tagged::kind_enum;
use crate::ids::EndpointId;
use crate::packet::Packet;
use crate::tcp::receiver::DelayedAck;
use crate::tcp::rtt::DEFAULT_MIN_RTO_NS;
use crate::tcp::{CongestionControl, Retransmit, TcpConfig, TcpStack};
use crate::time::SimTime;
use crate::units::{Duration, Size};
use app_stats::AppStats;
use bulk::{BulkApp, BulkParams};
use ptt::{PttApp, PttParams};
use request_response::{RequestResponseApp, RequestResponseParams};
use schemars::JsonSchema;
use serde::Deserialize;
use talk_spurts::TalkSpurts;

/// Default initial window, segments (RFC 6928, Linux).
pub const DEFAULT_INITIAL_WINDOW_SEGMENTS: u64 = 10;
/// Default advertised receive window, bytes: the largest without window scaling.
pub const DEFAULT_RECEIVE_WINDOW_BYTES: u32 = 65_535;
/// Default delayed-ACK timeout, ns (Linux's minimum, 40 ms).
pub const DEFAULT_DELAYED_ACK_NS: u64 = 40_000_000;
/// Default: acknowledge at least every second full segment (RFC 5681 §4.2).
pub const DEFAULT_DELAYED_ACK_SEGMENTS: u32 = 2;

kind_enum! {
    /// An application as written in a scenario.
    pub enum AppSpec {
        /// Bulk transfer (FTP, iperf, netcat, photos) over TCP.
        "bulk" => Bulk(BulkParams),
        /// HTTP/1.0 users: one connection per object, think time between objects.
        "http" => Http(RequestResponseParams),
        /// RPC-style request and response, one connection per call.
        "rpc" => Rpc(RequestResponseParams),
        /// Push-to-talk voice (UDP) with TCP signalling at each talk spurt's start and end.
        "ptt" => Ptt(PttParams),
    }
}

/// Delayed acknowledgements.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelayedAckSpec {
    /// Longest an ACK may wait (default 40 ms).
    pub timeout: Option<Duration>,
    /// Acknowledge at least every this many full segments (default 2; 1 turns delayed
    /// ACKs off).
    pub segments: Option<u32>,
}

/// TCP settings of an application's connections.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// `newreno` (default) or `cubic`.
    pub congestion_control: Option<CongestionControl>,
    /// Initial congestion window, segments (default 10).
    pub initial_window: Option<u64>,
    /// Minimum retransmission timeout (default 1 s, RFC 6298; Linux uses 200 ms).
    pub min_rto: Option<Duration>,
    /// Advertised receive window (default 65535 B, no window scaling).
    pub receive_window: Option<Size>,
    /// Delayed-ACK policy (default 40 ms, every second segment).
    pub delayed_ack: Option<DelayedAckSpec>,
    /// SACK blocks on acknowledgements and SACK-based loss recovery (RFC 2018, RFC 6675)
    /// instead of NewReno's (default false).
    #[serde(default)]
    pub sack: bool,
    /// What a segment sent again carries: `repacketize` (default: cut afresh from the first
    /// byte repeated, up to one MSS, as BSD and Linux do) or `as_sent` (exactly the segment
    /// first sent).
    #[serde(default)]
    pub retransmit: Retransmit,
}

impl TcpSpec {
    /// The configuration for segments of at most `mss_bytes`; `at` is the key path.
    pub fn config(&self, mss_bytes: u64, at: &str) -> Result<TcpConfig, Issue> {
        let initial_window_segments = self.initial_window.unwrap_or(DEFAULT_INITIAL_WINDOW_SEGMENTS);
        if initial_window_segments == 0 {
            return Err(Issue::at(
                join_path(at, "initial_window"),
                "an initial window of 0 segments never sends",
            )
            .hint("use 1 to 10 segments (RFC 3390 allows up to 4, RFC 6928 10)"));
        }
        let receive_window_bytes = self.receive_window.map_or(DEFAULT_RECEIVE_WINDOW_BYTES as u64, |s| s.0);
        if receive_window_bytes < mss_bytes || receive_window_bytes > u32::MAX as u64 {
            return Err(Issue::at(
                join_path(at, "receive_window"),
                format!(
                    "a receive window of {receive_window_bytes} B is outside one MSS ({mss_bytes} B) to 4 GB"
                ),
            ));
        }
        let delayed = self.delayed_ack.as_ref();
        let segments = delayed.and_then(|d| d.segments).unwrap_or(DEFAULT_DELAYED_ACK_SEGMENTS);
        if segments == 0 {
            return Err(Issue::at(join_path(at, "delayed_ack.segments"), "must be at least 1")
                .hint("1 acknowledges every segment at once"));
        }
        let min_rto_ns = self.min_rto.map_or(DEFAULT_MIN_RTO_NS, |d| d.0);
        if min_rto_ns == 0 {
            return Err(Issue::at(join_path(at, "min_rto"), "must be above zero")
                .hint("RFC 6298 says 1s; Linux uses 200ms"));
        }
        Ok(TcpConfig {
            congestion_control: self.congestion_control.unwrap_or_default(),
            mss_bytes,
            initial_window_segments,
            min_rto_ns,
            receive_window_bytes: receive_window_bytes as u32,
            delayed_ack: DelayedAck {
                timeout_ns: delayed.and_then(|d| d.timeout).map_or(DEFAULT_DELAYED_ACK_NS, |d| d.0),
                segments,
            },
            sack: self.sack,
            retransmit: self.retransmit,
        })
    }
}

/// What an application asks of the network after it acted for one of its users.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AppRequest {
    /// Call the application's timer for this user again at this time.
    pub timer: Option<SimTime>,
    /// Send one packet of the application's own datagram flow now (push-to-talk voice).
    pub datagram: bool,
}

/// The endpoint pair of user `user` of an application whose pairs start at `first`: the
/// user's client, whose peer is the server.
pub fn pair_of(first: EndpointId, user: u32) -> EndpointId {
    EndpointId(first.0 + 2 * user)
}

/// A running application.
#[derive(Clone, Debug)]
pub enum App {
    /// Bulk transfer.
    Bulk(BulkApp),
    /// Request-response users (HTTP, RPC).
    RequestResponse(RequestResponseApp),
    /// Push-to-talk voice with signalling.
    Ptt(PttApp),
}

impl AppSpec {
    /// Number of users the application will have (each with its own client port).
    pub fn user_count(&self) -> u32 {
        match self {
            AppSpec::Bulk(params) => params.users.unwrap_or(1),
            AppSpec::Http(params) | AppSpec::Rpc(params) => params.users.unwrap_or(1),
            AppSpec::Ptt(_) => ptt::CONTROL_CONNECTIONS,
        }
    }
}

impl App {
    /// Number of users, each with its own endpoint pair (a push-to-talk application's
    /// control connections).
    pub fn user_count(&self) -> u32 {
        match self {
            App::Bulk(app) => app.user_count(),
            App::RequestResponse(app) => app.user_count(),
            App::Ptt(_) => ptt::CONTROL_CONNECTIONS,
        }
    }

    /// 64-bit random outputs the application has drawn so far.
    pub fn random_draws(&self) -> u64 {
        match self {
            App::Bulk(app) => app.rng.draws(),
            App::RequestResponse(app) => app.rng.draws(),
            App::Ptt(app) => app.draws(),
        }
    }

    /// When each user's timer fires first, given the application's start time.
    pub fn first_starts(&mut self, start: SimTime) -> Vec<SimTime> {
        match self {
            App::Bulk(app) => app.first_starts(start),
            App::RequestResponse(app) => app.first_starts(start),
            App::Ptt(_) => PttApp::first_starts(start),
        }
    }

    /// User `user`'s timer fires at `now`: a bulk or request-response user starts its next
    /// transfer or request; a push-to-talk application opens its first control connection,
    /// then runs its voice clock (user 0), or opens its second (user 1).
    pub fn on_timer(
        &mut self,
        user: u32,
        stack: &mut TcpStack,
        now: SimTime,
        warmup_end: SimTime,
    ) -> AppRequest {
        match self {
            App::Bulk(app) => app.start(user, stack, now, warmup_end),
            App::RequestResponse(app) => app.start(user, stack, now, warmup_end),
            App::Ptt(app) if user == 0 => return app.on_timer(stack, now, warmup_end),
            App::Ptt(app) => app.open_second(stack, now),
        }
        AppRequest::default()
    }

    /// Reacts to activity on user `user`'s connection at `now`; may set the user's timer
    /// (the start of its next transfer or request).
    pub fn on_progress(
        &mut self,
        user: u32,
        stack: &mut TcpStack,
        now: SimTime,
        warmup_end: SimTime,
    ) -> AppRequest {
        let timer = match self {
            App::Bulk(app) => app.progress(user, stack, now, warmup_end),
            App::RequestResponse(app) => app.progress(user, stack, now, warmup_end),
            App::Ptt(app) => {
                if user == 0 {
                    app.progress(stack, now, warmup_end);
                }
                None
            }
        };
        AppRequest { timer, datagram: false }
    }

    /// A packet of the application's datagram flow reached its destination at `now`.
    pub fn on_datagram(&mut self, packet: &Packet, now: SimTime) {
        if let (App::Ptt(app), true) = (self, packet.counted) {
            app.on_voice_received(packet.created, now);
        }
    }

    /// What the application achieved.
    pub fn stats(&self) -> &AppStats {
        match self {
            App::Bulk(app) => &app.stats,
            App::RequestResponse(app) => &app.stats,
            App::Ptt(app) => &app.stats,
        }
    }

    /// The talk spurts of a push-to-talk application.
    pub fn spurts(&self) -> Option<&TalkSpurts> {
        match self {
            App::Ptt(app) => Some(&app.spurts),
            _ => None,
        }
    }
}
