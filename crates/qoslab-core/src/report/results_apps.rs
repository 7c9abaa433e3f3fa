//! The tables of what each application experienced: its transfers, goodput and TCP
//! counters (`apps`), per user (`users`), and per talk spurt of push-to-talk applications
//! (`spurts`); `docs/results.md` documents the columns.

use super::convert::{bps, ms};
use super::schema::record;
use crate::ids::{EndpointId, NodeId};
use crate::measure::quantile::Quantile;
use crate::sim::Snapshot;
use crate::tcp::sender::SendCounters;

record! {
    /// Per-application results over the measured window (applications over TCP).
    pub struct AppRecord {
        /// Application name.
        #[unit = "", key = 1]
        pub app: String,
        /// The application's `kind`.
        #[unit = "", descriptive = true]
        pub kind: &'static str,
        /// The node the application's entry names in `from`.
        #[unit = "", descriptive = true]
        pub from: String,
        /// The node the application's entry names in `to`.
        #[unit = "", descriptive = true]
        pub to: String,
        /// Users (each with its own connections).
        #[unit = "users", descriptive = true]
        pub users: u32,
        /// Transfers started in the window.
        #[unit = "transfers"]
        pub transfers_started: u64,
        /// Transfers completed in the window.
        #[unit = "transfers"]
        pub transfers_completed: u64,
        /// Mean completion time of the transfers completed.
        #[unit = "s"]
        pub completion_mean_s: Option<f64>,
        /// Median completion time.
        #[unit = "s"]
        pub completion_p50_s: Option<f64>,
        /// 95th percentile of the completion time.
        #[unit = "s"]
        pub completion_p95_s: Option<f64>,
        /// Payload delivered in order to the receiving application.
        #[unit = "bytes"]
        pub delivered_bytes: u64,
        /// `delivered_bytes` as a rate over the window.
        #[unit = "bit/s"]
        pub goodput_bps: f64,
        /// Jain's fairness index of the users' delivered bytes (1 = equal shares).
        #[unit = ""]
        pub jain_index: Option<f64>,
        /// TCP segments sent by the application's endpoints (both directions).
        #[unit = "segments"]
        pub segments: u64,
        /// Of those, retransmissions.
        #[unit = "segments"]
        pub retransmitted_segments: u64,
        /// Retransmission timeouts.
        #[unit = "timeouts"]
        pub timeouts: u64,
        /// Fast retransmits.
        #[unit = "retransmits"]
        pub fast_retransmits: u64,
        /// SYN, FIN and pure ACK segments (both directions).
        #[unit = "segments"]
        pub control_segments: u64,
    }
}

record! {
    /// Per-user results of an application over the measured window.
    pub struct UserRecord {
        /// The application.
        #[unit = "", key = 1]
        pub app: String,
        /// User number, from 0.
        #[unit = "", key = 2]
        pub user: u32,
        /// Transfers the user completed.
        #[unit = "transfers"]
        pub transfers_completed: u64,
        /// Mean completion time of those transfers.
        #[unit = "s"]
        pub completion_mean_s: Option<f64>,
        /// Payload delivered in order to the user's receiving side.
        #[unit = "bytes"]
        pub delivered_bytes: u64,
        /// `delivered_bytes` as a rate over the window.
        #[unit = "bit/s"]
        pub goodput_bps: f64,
    }
}

record! {
    /// One talk spurt of a push-to-talk application's voice (spurts that start in the window).
    pub struct SpurtRecord {
        /// The application.
        #[unit = "", key = 1]
        pub app: String,
        /// Spurt number, from 0.
        #[unit = "", key = 2]
        pub spurt: u32,
        /// When its first packet was sent, since the run began.
        #[unit = "s", descriptive = true]
        pub start_s: f64,
        /// From its first to its last packet.
        #[unit = "s"]
        pub duration_s: f64,
        /// Voice packets sent.
        #[unit = "packets"]
        pub sent_packets: u64,
        /// Voice packets received.
        #[unit = "packets"]
        pub received_packets: u64,
        /// Share of the packets sent that were not received.
        #[unit = "%"]
        pub loss_pct: f64,
        /// Mean one-way delay of the packets received.
        #[unit = "ms"]
        pub delay_mean_ms: Option<f64>,
        /// Largest one-way delay of the packets received.
        #[unit = "ms"]
        pub delay_max_ms: Option<f64>,
    }
}

/// The `apps` rows: one per application, over a measured window of `window_ns`.
pub(super) fn app_records(sim: &Snapshot, window_ns: u64) -> Vec<AppRecord> {
    let node_name = |node: NodeId| sim.net.nodes[node].name.clone();
    sim.app_info
        .iter()
        .zip(&sim.apps)
        .map(|(info, app)| {
            let stats = app.stats();
            let mut counters = SendCounters::default();
            for e in (info.first_endpoint.0..info.first_endpoint.0 + info.endpoints).map(EndpointId) {
                let now = &sim.tcp.slots[e].endpoint.sender.counters;
                let before = &sim.tcp_baseline[e];
                counters.segments += now.segments - before.segments;
                counters.retransmissions += now.retransmissions - before.retransmissions;
                counters.timeouts += now.timeouts - before.timeouts;
                counters.fast_retransmits += now.fast_retransmits - before.fast_retransmits;
                counters.control += now.control - before.control;
            }
            let flow = &sim.flows[sim.tcp.slots[info.first_endpoint].template.flow];
            AppRecord {
                app: info.name.clone(),
                kind: info.kind,
                from: node_name(flow.from),
                to: node_name(flow.to),
                users: stats.users.len() as u32,
                transfers_started: stats.started,
                transfers_completed: stats.completed,
                completion_mean_s: stats.completion_mean_ns().map(|ns| ns / 1e9),
                completion_p50_s: stats.completion_quantile_ns(Quantile::percent(50)).map(|ns| ns / 1e9),
                completion_p95_s: stats.completion_quantile_ns(Quantile::percent(95)).map(|ns| ns / 1e9),
                delivered_bytes: stats.delivered_bytes,
                goodput_bps: bps(stats.delivered_bytes, window_ns),
                jain_index: stats.jain_index(),
                segments: counters.segments,
                retransmitted_segments: counters.retransmissions,
                timeouts: counters.timeouts,
                fast_retransmits: counters.fast_retransmits,
                control_segments: counters.control,
            }
        })
        .collect()
}

/// The `users` rows: one per user of every application.
pub(super) fn user_records(sim: &Snapshot, window_ns: u64) -> Vec<UserRecord> {
    sim.app_info
        .iter()
        .zip(&sim.apps)
        .flat_map(|(info, app)| {
            app.stats().users.iter().enumerate().map(move |(user, stats)| UserRecord {
                app: info.name.clone(),
                user: user as u32,
                transfers_completed: stats.completed,
                completion_mean_s: stats.completion_mean_ns().map(|ns| ns / 1e9),
                delivered_bytes: stats.delivered_bytes,
                goodput_bps: bps(stats.delivered_bytes, window_ns),
            })
        })
        .collect()
}

/// The `spurts` rows: one per talk spurt of every push-to-talk application.
pub(super) fn spurt_records(sim: &Snapshot) -> Vec<SpurtRecord> {
    sim.app_info
        .iter()
        .zip(&sim.apps)
        .filter_map(|(info, app)| Some((info, app.spurts()?)))
        .flat_map(|(info, spurts)| {
            spurts.all().enumerate().map(move |(k, spurt)| SpurtRecord {
                app: info.name.clone(),
                spurt: k as u32,
                start_s: spurt.start.as_secs_f64(),
                duration_s: spurt.duration_ns as f64 / 1e9,
                sent_packets: spurt.sent_packets,
                received_packets: spurt.received_packets,
                loss_pct: spurt.loss_pct(),
                delay_mean_ms: spurt.delay_mean_ns().map(ms),
                delay_max_ms: (spurt.received_packets > 0).then(|| ms(spurt.delay_max_ns as f64)),
            })
        })
        .collect()
}
