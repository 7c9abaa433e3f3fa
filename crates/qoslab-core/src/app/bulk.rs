//! Bulk transfer over TCP — an FTP file, an iperf or netcat stream, a camera's photo: the
//! sending node opens a connection, writes the whole transfer and closes; the receiving node
//! closes its side when the sender's FIN arrives.
//!
//! A transfer completes when its last byte reaches the receiving application. The next one
//! (if `transfers` allows) starts on a fresh connection, as FTP opens a data connection per
//! file: `gap` after the connection has fully closed, or — with `every` — on a fixed period
//! from the previous start (a camera sending a photo every 30 s, the ad-hoc report's photo
//! application), or at the close when the previous transfer outlasted the period. Sizes are
//! drawn from `size` (constant, exponential or geometric: the DiffServ measurements' FTP used
//! 50 files of geometric size with mean 500 kB); without `size` the transfer never ends and
//! the flow is a long-lived greedy TCP stream.
//!
//! `users` runs that many independent senders on their own connections (the ad-hoc report's
//! five cameras). With `every`, each user's first transfer starts at a uniform random offset
//! within the first period, so the users do not send in lockstep; otherwise all start at the
//! flow's `start`.

use super::app_stats::AppStats;
use super::pair_of;
use crate::engine::Rng;
use crate::ids::EndpointId;
use crate::tcp::TcpStack;
use crate::time::SimTime;
use crate::traffic::distribution::DurationDist;
use crate::traffic::size_dist::SizeDist;
use crate::units::Duration;
use schemars::JsonSchema;
use serde::Deserialize;

/// Bytes written by an endless transfer (more than any run can send).
const ENDLESS_BYTES: u64 = u64::MAX / 4;

/// Parameters of a bulk transfer application.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkParams {
    /// Bytes per transfer: `"500kB"`, `{exponential: MEAN}` or `{geometric: MEAN}`.
    /// Without it, one transfer that lasts the whole run.
    pub size: Option<SizeDist>,
    /// Transfers per user (default 1; `0` for as many as the run allows).
    pub transfers: Option<u64>,
    /// Pause between one connection's close and the next transfer (default 0 s).
    pub gap: Option<DurationDist>,
    /// Start transfers on this period instead (give `gap` or `every`, not both).
    pub every: Option<Duration>,
    /// Independent senders, each on its own connection (default 1).
    pub users: Option<u32>,
}

/// The transfer in progress.
#[derive(Clone, Debug)]
struct Transfer {
    bytes: Option<u64>,
    start: SimTime,
    completed: bool,
    closed: bool,
}

/// One sender.
#[derive(Clone, Debug)]
struct User {
    /// Transfers still to start (`None`: no limit).
    remaining: Option<u64>,
    current: Option<Transfer>,
    delivered_seen: u64,
}

/// A running bulk transfer application.
#[derive(Clone, Debug)]
pub struct BulkApp {
    /// User u sends from endpoint `first + 2u` to `first + 2u + 1`.
    first: EndpointId,
    size: Option<SizeDist>,
    gap: DurationDist,
    every_ns: Option<u64>,
    users: Vec<User>,
    pub(super) rng: Rng,
    /// What the application achieved.
    pub stats: AppStats,
}

impl BulkApp {
    /// An application whose users' endpoint pairs start at `first`, drawing from `rng`.
    pub fn new(params: &BulkParams, first: EndpointId, rng: Rng) -> Self {
        let remaining = match (params.size, params.transfers) {
            (None, _) => Some(1),
            (Some(_), Some(0)) => None,
            (Some(_), n) => Some(n.unwrap_or(1)),
        };
        let users = params.users.unwrap_or(1);
        BulkApp {
            first,
            size: params.size,
            gap: params.gap.unwrap_or(DurationDist::Constant(0)),
            every_ns: params.every.map(|d| d.0),
            users: vec![User { remaining, current: None, delivered_seen: 0 }; users as usize],
            rng,
            stats: AppStats::new(users),
        }
    }

    /// Number of users.
    pub fn user_count(&self) -> u32 {
        self.users.len() as u32
    }

    /// When each user starts its first transfer, given the application's start time.
    pub fn first_starts(&mut self, start: SimTime) -> Vec<SimTime> {
        let every_ns = self.every_ns;
        let rng = &mut self.rng;
        let users = self.users.len();
        (0..users)
            .map(|_| match every_ns {
                Some(period) if users > 1 => start.after(rng.uniform_u64(0, period - 1)),
                _ => start,
            })
            .collect()
    }

    /// User `user` starts its next transfer at `now`.
    pub fn start(&mut self, user: u32, stack: &mut TcpStack, now: SimTime, warmup_end: SimTime) {
        let state = &mut self.users[user as usize];
        if state.remaining == Some(0) {
            return;
        }
        state.remaining = state.remaining.map(|n| n - 1);
        let pair = pair_of(self.first, user);
        stack.reset_pair(pair);
        let bytes = self.size.map(|d| d.sample(&mut self.rng));
        let TcpStack { slots, out } = stack;
        let client = &mut slots[pair].endpoint;
        client.sender.open();
        client.sender.write(bytes.unwrap_or(ENDLESS_BYTES));
        if bytes.is_some() {
            client.sender.close();
        }
        client.output(now, out);
        state.current = Some(Transfer { bytes, start: now, completed: false, closed: false });
        state.delivered_seen = 0;
        self.stats.on_start(now, warmup_end);
    }

    /// Looks at user `user`'s connection after something happened on it at `now`; returns
    /// when its next transfer should start, once this one's connection has closed.
    pub fn progress(
        &mut self,
        user: u32,
        stack: &mut TcpStack,
        now: SimTime,
        warmup_end: SimTime,
    ) -> Option<SimTime> {
        let pair = pair_of(self.first, user);
        let state = &mut self.users[user as usize];
        let transfer = state.current.as_mut()?;
        let TcpStack { slots, out } = stack;
        let server = &mut slots[pair.peer()].endpoint;
        let delivered = server.receiver.delivered_bytes();
        self.stats.on_delivered(user, delivered - state.delivered_seen, now, warmup_end);
        state.delivered_seen = delivered;
        if !transfer.completed && transfer.bytes.is_some_and(|b| delivered >= b) {
            transfer.completed = true;
            self.stats.on_complete(user, transfer.start, now, warmup_end);
        }
        if server.receiver.fin_received() && !server.sender.is_closed() {
            server.sender.close();
            server.output(now, out);
        }
        let server_done = server.sender.all_acked();
        let client = &slots[pair].endpoint;
        if !transfer.closed && server_done && client.sender.all_acked() && client.receiver.fin_received() {
            transfer.closed = true;
            if state.remaining != Some(0) {
                return Some(match self.every_ns {
                    Some(period) => transfer.start.after(period).max(now),
                    None => now.after(self.gap.sample_ns(&mut self.rng)),
                });
            }
        }
        None
    }
}
