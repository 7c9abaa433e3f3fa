//! The tables of each egress port (`ports`), of every class of its disciplines (`classes`,
//! and per interval `class_series`) and of the disciplines replaced during the run
//! (`changes`); `docs/results.md` documents the columns.

use super::convert::{bps, by_reason, ms};
use super::schema::record;
use crate::ids::NodeId;
use crate::measure::drops::DropReason;
use crate::measure::queue_stats::QueueStats;
use crate::sim::Snapshot;
use crate::time::SimTime;
use serde_json::{Map, Value};

record! {
    /// Per-class results of a port's discipline over the measured window.
    pub struct ClassRecord {
        /// The port, `node->peer`.
        #[unit = "", key = 1]
        pub port: String,
        /// The discipline's `kind`.
        #[unit = "", descriptive = true]
        pub qdisc: &'static str,
        /// Class or band name.
        #[unit = "", key = 3]
        pub class: String,
        /// When the discipline this class belongs to was installed (0 unless the interface was
        /// reconfigured during the run).
        #[unit = "s", key = 2]
        pub since_s: f64,
        /// Packets accepted into the class.
        #[unit = "packets"]
        pub enqueued_packets: u64,
        /// IP bytes of the packets accepted.
        #[unit = "bytes"]
        pub enqueued_bytes: u64,
        /// Packets handed from the class to the transmit ring.
        #[unit = "packets"]
        pub dequeued_packets: u64,
        /// IP bytes of the packets handed on.
        #[unit = "bytes"]
        pub dequeued_bytes: u64,
        /// Packets the class dropped, refused on arrival or removed from the queue.
        #[unit = "packets"]
        pub dropped_packets: u64,
        /// IP bytes of the packets dropped.
        #[unit = "bytes"]
        pub dropped_bytes: u64,
        /// The packets dropped, by reason.
        #[unit = "packets"]
        pub dropped_by_reason: Map<String, Value>,
        /// ECN-capable packets the class's AQM marked CE instead of dropping.
        #[unit = "packets"]
        pub ecn_marked_packets: u64,
        /// Time-weighted mean backlog of the class over the window.
        #[unit = "packets"]
        pub queue_mean_packets: f64,
        /// Largest backlog in the window.
        #[unit = "packets"]
        pub queue_max_packets: u64,
        /// Time-weighted mean backlog of the class over the window, in IP bytes.
        #[unit = "bytes"]
        pub queue_mean_bytes: f64,
        /// Largest backlog in the window, in IP bytes.
        #[unit = "bytes"]
        pub queue_max_bytes: u64,
    }
}

record! {
    /// One interval of one class of a port's discipline (when `measure.series` asks for them).
    pub struct ClassSeriesRecord {
        /// The port, as in `classes`.
        #[unit = "", key = 1]
        pub port: String,
        /// The discipline's `kind`, as in `classes`.
        #[unit = "", descriptive = true]
        pub qdisc: &'static str,
        /// The class, as in `classes`.
        #[unit = "", key = 3]
        pub class: String,
        /// When the discipline this class belongs to was installed.
        #[unit = "s", key = 2]
        pub since_s: f64,
        /// Start of the interval, since the run began.
        #[unit = "s", key = 4]
        pub start_s: f64,
        /// Length of the interval.
        #[unit = "s", descriptive = true]
        pub interval_s: f64,
        /// Backlog at the interval's end.
        #[unit = "packets"]
        pub queue_packets: u64,
        /// Backlog at the interval's end, in IP bytes.
        #[unit = "bytes"]
        pub queue_bytes: u64,
        /// Largest backlog within the interval, the one it started with included.
        #[unit = "packets"]
        pub queue_max_packets: u64,
        /// Largest backlog within the interval, in IP bytes.
        #[unit = "bytes"]
        pub queue_max_bytes: u64,
        /// Packets handed from the class towards the wire in the interval.
        #[unit = "packets"]
        pub dequeued_packets: u64,
        /// IP bytes of those packets.
        #[unit = "bytes"]
        pub dequeued_bytes: u64,
        /// Dequeued bytes as a bit rate over the interval.
        #[unit = "bit/s"]
        pub dequeued_bps: f64,
        /// Packets the class dropped in the interval, on arrival or from the queue.
        #[unit = "packets"]
        pub dropped_packets: u64,
        /// IP bytes of those packets.
        #[unit = "bytes"]
        pub dropped_bytes: u64,
        /// The packets dropped in the interval, by reason.
        #[unit = "packets"]
        pub dropped_by_reason: Map<String, Value>,
    }
}

record! {
    /// Per-port results over the measured window.
    pub struct PortRecord {
        /// Port name, `node->peer`.
        #[unit = "", key = 1]
        pub port: String,
        /// The sending node.
        #[unit = "", descriptive = true]
        pub node: String,
        /// The node at the far end of the link.
        #[unit = "", descriptive = true]
        pub peer: String,
        /// The output discipline's `kind` at the end of the run.
        #[unit = "", descriptive = true]
        pub qdisc: &'static str,
        /// Physical rate at the end of the run.
        #[unit = "bit/s", descriptive = true]
        pub rate_bps: u64,
        /// QoS bandwidth (IOS `bandwidth`) in effect at the end of the run.
        #[unit = "bit/s", descriptive = true]
        pub bandwidth_bps: u64,
        /// Layer-2 bytes added to each frame.
        #[unit = "bytes", descriptive = true]
        pub l2_overhead_bytes: u32,
        /// Propagation delay of the link.
        #[unit = "ms", descriptive = true]
        pub propagation_ms: f64,
        /// MTU of the link.
        #[unit = "bytes", descriptive = true]
        pub mtu_bytes: u32,
        /// Transmit ring size in effect, the frame on the wire included.
        #[unit = "packets", descriptive = true]
        pub tx_ring_packets: u32,
        /// Packets the discipline accepted (sum over its classes).
        #[unit = "packets"]
        pub enqueued_packets: u64,
        /// Packets the discipline dropped (sum over its classes).
        #[unit = "packets"]
        pub dropped_packets: u64,
        /// The packets the discipline dropped, by reason.
        #[unit = "packets"]
        pub dropped_by_reason: Map<String, Value>,
        /// Packets marked CE instead of dropped.
        #[unit = "packets"]
        pub ecn_marked_packets: u64,
        /// Frames whose transmission completed in the window.
        #[unit = "packets"]
        pub sent_packets: u64,
        /// Frames sent on this port that its link lost (random loss model).
        #[unit = "packets"]
        pub link_lost_packets: u64,
        /// IP bytes of the frames sent.
        #[unit = "bytes"]
        pub sent_bytes: u64,
        /// IP bit rate sent over the window.
        #[unit = "bit/s"]
        pub throughput_l3_bps: f64,
        /// Layer-2 bit rate on the wire over the window, framing included.
        #[unit = "bit/s"]
        pub throughput_l2_bps: f64,
        /// Share of the window the wire was busy.
        #[unit = "%"]
        pub utilisation_pct: f64,
        /// Time-weighted mean backlog of the whole discipline.
        #[unit = "packets"]
        pub queue_mean_packets: f64,
        /// Largest backlog of the whole discipline.
        #[unit = "packets"]
        pub queue_max_packets: u64,
        /// Packets the interface's input policy dropped (what it received from `peer`).
        #[unit = "packets"]
        pub input_dropped_packets: u64,
        /// Of those, dropped by a policer's exceed action.
        #[unit = "packets"]
        pub input_dropped_policer_exceed_packets: u64,
        /// Of those, dropped by a policer's violate action.
        #[unit = "packets"]
        pub input_dropped_policer_violate_packets: u64,
        /// Packets whose DSCP the input policy changed.
        #[unit = "packets"]
        pub input_remarked_packets: u64,
    }
}

record! {
    /// A replacement of an interface's output discipline during the run (the whole run, not
    /// only the measured window).
    pub struct ChangeRecord {
        /// The port, `node->peer`.
        #[unit = "", key = 1]
        pub port: String,
        /// When, since the run began.
        #[unit = "s", key = 2]
        pub at_s: f64,
        /// The `kind` of the discipline installed.
        #[unit = "", descriptive = true]
        pub qdisc: &'static str,
        /// Why: a scheduled change, or a rate change re-sizing or withdrawing the policy.
        #[unit = "", descriptive = true]
        pub cause: String,
        /// Packets queued in the old discipline, offered to the new one.
        #[unit = "packets"]
        pub handed_over_packets: u64,
        /// Of those, packets the new discipline dropped.
        #[unit = "packets"]
        pub refused_packets: u64,
    }
}

/// The `class_series` rows of one class.
fn class_series_records(
    port: &str,
    qdisc: &'static str,
    class: &str,
    since: SimTime,
    q: &QueueStats,
    rows: &mut Vec<ClassSeriesRecord>,
) {
    let Some(series) = &q.series else { return };
    let length_ns = series.length_ns();
    rows.extend(series.points.iter().map(|p| ClassSeriesRecord {
        port: port.to_owned(),
        qdisc,
        class: class.to_owned(),
        since_s: since.as_secs_f64(),
        start_s: (p.index * length_ns) as f64 / 1e9,
        interval_s: length_ns as f64 / 1e9,
        queue_packets: p.backlog_packets,
        queue_bytes: p.backlog_bytes,
        queue_max_packets: p.max_backlog_packets,
        queue_max_bytes: p.max_backlog_bytes,
        dequeued_packets: p.dequeued_packets,
        dequeued_bytes: p.dequeued_bytes,
        dequeued_bps: bps(p.dequeued_bytes, length_ns),
        dropped_packets: p.dropped.total_packets(),
        dropped_bytes: p.dropped.total_bytes(),
        dropped_by_reason: by_reason(|r| p.dropped.packets(r)),
    }));
}

/// The `classes` row of one class.
fn class_record(
    port: &str,
    qdisc: &'static str,
    class: String,
    since: SimTime,
    q: &QueueStats,
) -> ClassRecord {
    ClassRecord {
        port: port.to_owned(),
        qdisc,
        class,
        since_s: since.as_secs_f64(),
        enqueued_packets: q.enqueued_packets,
        enqueued_bytes: q.enqueued_bytes,
        dequeued_packets: q.dequeued_packets,
        dequeued_bytes: q.dequeued_bytes,
        dropped_packets: q.dropped_packets(),
        dropped_bytes: q.dropped_bytes(),
        dropped_by_reason: by_reason(|r| q.dropped_for(r)),
        ecn_marked_packets: q.ecn_marked_packets,
        queue_mean_packets: q.mean_backlog_packets(),
        queue_max_packets: q.max_backlog_packets,
        queue_mean_bytes: q.mean_backlog_bytes(),
        queue_max_bytes: q.max_backlog_bytes,
    }
}

/// The `classes` rows: every class of every port's discipline, those of disciplines replaced
/// during the run first.
pub(super) fn class_records(sim: &Snapshot) -> Vec<ClassRecord> {
    use crate::qdisc::Qdisc;
    let mut classes = Vec::new();
    for port in &sim.net.ports {
        let c = &port.config;
        for retired in &port.retired {
            for (name, q) in retired.class_names.iter().zip(&retired.class_stats) {
                classes.push(class_record(&c.name, retired.kind, name.clone(), retired.since, q));
            }
        }
        for (name, q) in port.qdisc.class_names().into_iter().zip(&port.class_stats) {
            classes.push(class_record(&c.name, port.qdisc.kind(), name, port.since, q));
        }
    }
    classes
}

/// The `class_series` rows, in the order of [`class_records`].
pub(super) fn class_series(sim: &Snapshot) -> Vec<ClassSeriesRecord> {
    use crate::qdisc::Qdisc;
    let mut rows = Vec::new();
    for port in &sim.net.ports {
        let c = &port.config;
        for retired in &port.retired {
            for (name, q) in retired.class_names.iter().zip(&retired.class_stats) {
                class_series_records(&c.name, retired.kind, name, retired.since, q, &mut rows);
            }
        }
        for (name, q) in port.qdisc.class_names().into_iter().zip(&port.class_stats) {
            class_series_records(&c.name, port.qdisc.kind(), &name, port.since, q, &mut rows);
        }
    }
    rows
}

/// The `changes` rows: every replacement of a port's discipline, port by port.
pub(super) fn change_records(sim: &Snapshot) -> Vec<ChangeRecord> {
    sim.net
        .ports
        .iter()
        .flat_map(|port| {
            port.changes.iter().map(|change| ChangeRecord {
                port: port.config.name.clone(),
                at_s: change.at.as_secs_f64(),
                qdisc: change.kind,
                cause: change.cause.clone(),
                handed_over_packets: change.handed_over_packets,
                refused_packets: change.refused_packets,
            })
        })
        .collect()
}

/// The `ports` rows: one per egress port, over a measured window of `window_ns`.
pub(super) fn port_records(sim: &Snapshot, window_ns: u64) -> Vec<PortRecord> {
    let node_name = |node: NodeId| sim.net.nodes[node].name.clone();
    sim.net
        .ports
        .iter()
        .map(|port| {
            let c = &port.config;
            let q = &port.queue_stats;
            PortRecord {
                port: c.name.clone(),
                node: node_name(c.node),
                peer: node_name(c.peer),
                qdisc: port.qdisc.kind(),
                rate_bps: c.rate_bps,
                bandwidth_bps: c.qos_bandwidth_bps(),
                l2_overhead_bytes: c.l2_overhead_bytes,
                propagation_ms: ms(c.propagation_ns as f64),
                mtu_bytes: c.mtu_bytes,
                tx_ring_packets: c.tx_ring_packets,
                enqueued_packets: q.enqueued_packets,
                dropped_packets: q.dropped_packets(),
                dropped_by_reason: by_reason(|r| q.dropped_for(r)),
                ecn_marked_packets: q.ecn_marked_packets,
                sent_packets: port.wire.sent_packets,
                link_lost_packets: port.link_lost_packets,
                sent_bytes: port.wire.sent_bytes,
                throughput_l3_bps: bps(port.wire.sent_bytes, window_ns),
                throughput_l2_bps: if window_ns == 0 {
                    0.0
                } else {
                    port.sent_l2_bits() * 1e9 / window_ns as f64
                },
                utilisation_pct: if window_ns == 0 {
                    0.0
                } else {
                    100.0 * port.wire.busy_ns as f64 / window_ns as f64
                },
                queue_mean_packets: q.mean_backlog_packets(),
                queue_max_packets: q.max_backlog_packets,
                input_dropped_packets: port.input.drops.total_packets(),
                input_dropped_policer_exceed_packets: port.input.drops.packets(DropReason::PolicerExceed),
                input_dropped_policer_violate_packets: port.input.drops.packets(DropReason::PolicerViolate),
                input_remarked_packets: port.input.remarked_packets,
            }
        })
        .collect()
}
