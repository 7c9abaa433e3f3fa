//! Bulk transfer over TCP — an FTP file, an iperf or netcat stream: the sending node opens a
//! connection, writes the whole transfer and closes; the receiving node closes its side
//! when the sender's FIN arrives.
//!
//! A transfer completes when its last byte reaches the receiving application; the next one
//! (if `transfers` allows) starts `gap` after the connection is fully closed, on a fresh
//! connection, as FTP opens a data connection per file. Sizes are drawn from `size`
//! (constant, exponential or geometric: the DiffServ measurements' FTP used 50 files of
//! geometric size with mean 500 kB); without `size` the transfer never ends and the flow
//! is a long-lived greedy TCP stream.

use super::app_stats::AppStats;
use super::size_dist::SizeDist;
use crate::engine::Rng;
use crate::tcp::TcpStack;
use crate::time::SimTime;
use crate::traffic::distribution::DurationDist;
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
    /// Number of transfers (default 1; `0` for as many as the run allows).
    pub transfers: Option<u64>,
    /// Pause between one connection's close and the next transfer (default 0 s).
    pub gap: Option<DurationDist>,
}

/// The transfer in progress.
#[derive(Clone, Debug)]
struct Transfer {
    bytes: Option<u64>,
    start: SimTime,
    completed: bool,
    closed: bool,
}

/// A running bulk transfer application.
#[derive(Clone, Debug)]
pub struct BulkApp {
    /// The sending endpoint; the receiving one is `pair + 1`.
    pair: u32,
    size: Option<SizeDist>,
    /// Transfers still to start (`None`: no limit).
    remaining: Option<u64>,
    gap: DurationDist,
    rng: Rng,
    current: Option<Transfer>,
    delivered_seen: u64,
    /// What the application achieved.
    pub stats: AppStats,
}

impl BulkApp {
    /// An application on the endpoint pair starting at `pair`, drawing from `rng`.
    pub fn new(params: &BulkParams, pair: u32, rng: Rng) -> Self {
        let transfers = match (params.size, params.transfers) {
            (None, _) => Some(1),
            (Some(_), Some(0)) => None,
            (Some(_), n) => Some(n.unwrap_or(1)),
        };
        BulkApp {
            pair,
            size: params.size,
            remaining: transfers,
            gap: params.gap.unwrap_or(DurationDist::Constant(0)),
            rng,
            current: None,
            delivered_seen: 0,
            stats: AppStats::default(),
        }
    }

    /// Starts the next transfer at `now`.
    pub fn start(&mut self, stack: &mut TcpStack, now: SimTime, warmup_end: SimTime) {
        if self.remaining == Some(0) {
            return;
        }
        self.remaining = self.remaining.map(|n| n - 1);
        stack.reset_pair(self.pair);
        let bytes = self.size.map(|d| d.sample(&mut self.rng));
        let TcpStack { slots, out } = stack;
        let client = &mut slots[self.pair as usize].endpoint;
        client.sender.open();
        client.sender.write(bytes.unwrap_or(ENDLESS_BYTES));
        if bytes.is_some() {
            client.sender.close();
        }
        client.output(now, out);
        self.current = Some(Transfer { bytes, start: now, completed: false, closed: false });
        self.delivered_seen = 0;
        self.stats.on_start(now, warmup_end);
    }

    /// Looks at the connection after something happened on it at `now`; returns when the
    /// next transfer should start, once this one's connection has closed.
    pub fn progress(&mut self, stack: &mut TcpStack, now: SimTime, warmup_end: SimTime) -> Option<SimTime> {
        let transfer = self.current.as_mut()?;
        let TcpStack { slots, out } = stack;
        let server = &mut slots[self.pair as usize + 1].endpoint;
        let delivered = server.receiver.delivered_bytes();
        self.stats.on_delivered(delivered - self.delivered_seen, now, warmup_end);
        self.delivered_seen = delivered;
        if !transfer.completed && transfer.bytes.is_some_and(|b| delivered >= b) {
            transfer.completed = true;
            self.stats.on_complete(transfer.start, now, warmup_end);
        }
        if server.receiver.fin_received() && !server.sender.is_closed() {
            server.sender.close();
            server.output(now, out);
        }
        let server_done = server.sender.all_acked();
        let client = &slots[self.pair as usize].endpoint;
        if !transfer.closed && server_done && client.sender.all_acked() && client.receiver.fin_received() {
            transfer.closed = true;
            if self.remaining != Some(0) {
                return Some(now.after(self.gap.sample_ns(&mut self.rng)));
            }
        }
        None
    }
}
