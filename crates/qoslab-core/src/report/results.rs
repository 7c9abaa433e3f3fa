//! The tables a run returns: one row per flow, per class of every discipline, per port, and
//! the run's totals. Rows are flat records whose column names carry their units
//! (`_ms`, `_bps`, `_pct`, `_packets`, `_bytes`); `docs/results.md` documents each column.
//! Serialized with a fixed field order, so equal runs give byte-identical JSON.

use super::convert::{bps, ms};
use super::results_distribution::{delay_distribution_records, DelayQuantileRecord};
use super::results_quality::{
    contract_records, series_records, voice_records, ContractRecord, DqIntervalRecord, SeriesRecord,
    VoiceRecord, VoiceSpurtRecord,
};
use super::schema::record;
use crate::classify::matcher::format_ipv4;
use crate::ids::{EndpointId, NodeId};
use crate::measure::drops::DropReason;
use crate::measure::quantile::Quantile;
use crate::measure::queue_stats::QueueStats;
use crate::packet::Protocol;
use crate::packet::NO_HOP;
use crate::sim::{Input, RunError, Simulation, Snapshot};
use crate::tcp::sender::SendCounters;
use crate::time::SimTime;
use serde::Serialize;
use serde_json::{Map, Value};

record! {
    /// Run-wide facts and totals (all packets, warm-up included).
    pub struct RunRecord {
        /// Scenario name.
        #[unit = ""]
        pub scenario: String,
        /// Master seed used.
        #[unit = ""]
        pub seed: u64,
        /// Replication number.
        #[unit = ""]
        pub replication: u64,
        /// SHA-256 of the effective scenario and the files its build read, 64 hex digits.
        #[unit = ""]
        pub scenario_sha256: String,
        /// The overrides applied, `key.path=value` as given, in order.
        #[unit = ""]
        pub overrides: Vec<String>,
        /// The variant run; empty for the scenario as written.
        #[unit = ""]
        pub variant: Option<String>,
        /// Length of the measured window.
        #[unit = "s"]
        pub duration_s: f64,
        /// Length of the warm-up.
        #[unit = "s"]
        pub warmup_s: f64,
        /// Events processed in the whole run.
        #[unit = "events"]
        pub events: u64,
        /// 64-bit random outputs drawn in the run (0: every replication gives the same results).
        #[unit = "draws"]
        pub random_draws: u64,
        /// Frame transmissions completed on all links.
        #[unit = "frames"]
        pub packet_hops: u64,
        /// Packets created by all sources.
        #[unit = "packets"]
        pub created_packets: u64,
        /// Packets that reached their destination.
        #[unit = "packets"]
        pub delivered_packets: u64,
        /// Packets dropped anywhere.
        #[unit = "packets"]
        pub dropped_packets: u64,
        /// Packets still in the network at the end: created − delivered − dropped.
        #[unit = "packets"]
        pub in_flight_packets: u64,
        /// Version of qoslab that produced the results.
        #[unit = ""]
        pub qoslab_version: &'static str,
        /// What the scenario's inputs hold that qoslab does not model, one sentence each.
        #[unit = ""]
        pub notes: Vec<String>,
        /// The applications in the order they should fail, first to fail first.
        #[unit = ""]
        pub order_of_failure: Vec<String>,
    }
}

record! {
    /// Per-flow results over the measured window.
    pub struct FlowRecord {
        /// Flow name (`NAME.reverse`, `NAME.echo` and `NAME.1` … for the flows qoslab adds).
        #[unit = ""]
        pub flow: String,
        /// Sending node.
        #[unit = ""]
        pub from: String,
        /// Receiving node.
        #[unit = ""]
        pub to: String,
        /// Source IPv4 address written in the packets.
        #[unit = ""]
        pub src_addr: String,
        /// Destination IPv4 address written in the packets.
        #[unit = ""]
        pub dst_addr: String,
        /// `udp`, `tcp`, `icmp`, or the protocol number.
        #[unit = ""]
        pub protocol: String,
        /// Source port written in the packets.
        #[unit = ""]
        pub src_port: u16,
        /// Destination port written in the packets.
        #[unit = ""]
        pub dst_port: u16,
        /// DSCP, 0 to 63.
        #[unit = ""]
        pub dscp: u8,
        /// The pattern's `kind` (`onoff` for ON-OFF flows), or the application's for its flows.
        #[unit = ""]
        pub pattern: &'static str,
        /// IP packet size (an application's flows: the largest segment, or a pure ACK).
        #[unit = "bytes"]
        pub packet_size_bytes: u32,
        /// The port of the lowest physical rate on the path, the first one on ties.
        #[unit = ""]
        pub bottleneck: String,
        /// Packets the source created in the window.
        #[unit = "packets"]
        pub sent_packets: u64,
        /// IP bytes of those packets.
        #[unit = "bytes"]
        pub sent_bytes: u64,
        /// Of the packets sent, those that reached `to` before the end of the run.
        #[unit = "packets"]
        pub received_packets: u64,
        /// IP bytes of the packets received.
        #[unit = "bytes"]
        pub received_bytes: u64,
        /// Of the packets received, those marked CE (congestion experienced) on the way.
        #[unit = "packets"]
        pub ce_received_packets: u64,
        /// Of the packets sent, those dropped anywhere on the path.
        #[unit = "packets"]
        pub dropped_packets: u64,
        /// Bytes of the packets dropped, as the source sent them.
        #[unit = "bytes"]
        pub dropped_bytes: u64,
        /// The packets dropped, by reason.
        #[unit = "packets"]
        pub dropped_by_reason: Map<String, Value>,
        /// Packets sent − received − dropped: still travelling when the run stopped.
        #[unit = "packets"]
        pub in_flight_packets: u64,
        /// 100 × dropped / sent (packets in flight are not lost); empty when nothing was sent.
        #[unit = "%"]
        pub loss_pct: Option<f64>,
        /// IP bit rate the source created over the window.
        #[unit = "bit/s"]
        pub offered_l3_bps: f64,
        /// IP bit rate of the flow's packets that arrived in the window, whenever created.
        #[unit = "bit/s"]
        pub delivered_l3_bps: f64,
        /// `offered_l3_bps` with the bottleneck link's layer-2 overhead per packet.
        #[unit = "bit/s"]
        pub offered_l2_bps: f64,
        /// `delivered_l3_bps` with the bottleneck link's layer-2 overhead per packet.
        #[unit = "bit/s"]
        pub delivered_l2_bps: f64,
        /// Smallest one-way delay, exact; empty when nothing was received.
        #[unit = "ms"]
        pub delay_min_ms: Option<f64>,
        /// Mean one-way delay, exact.
        #[unit = "ms"]
        pub delay_mean_ms: Option<f64>,
        /// Median one-way delay, from the delay histogram (within 0.4 %).
        #[unit = "ms"]
        pub delay_p50_ms: Option<f64>,
        /// 95th percentile of the one-way delay, from the histogram.
        #[unit = "ms"]
        pub delay_p95_ms: Option<f64>,
        /// 99th percentile of the one-way delay, from the histogram.
        #[unit = "ms"]
        pub delay_p99_ms: Option<f64>,
        /// Largest one-way delay, exact.
        #[unit = "ms"]
        pub delay_max_ms: Option<f64>,
        /// RFC 3550 interarrival jitter after the last arrival; empty below two arrivals.
        #[unit = "ms"]
        pub jitter_rfc3550_ms: Option<f64>,
        /// Mean deviation of the inter-arrival times from the reference interval: the nominal
        /// sending interval, or the flow's `measure.jitter_reference`.
        #[unit = "ms"]
        pub jitter_avg_ms: Option<f64>,
        /// Largest deviation of an inter-arrival time from the reference interval.
        #[unit = "ms"]
        pub jitter_max_ms: Option<f64>,
    }
}

record! {
    /// Per-class results of a port's discipline over the measured window.
    pub struct ClassRecord {
        /// The port, `node->peer`.
        #[unit = ""]
        pub port: String,
        /// The discipline's `kind`.
        #[unit = ""]
        pub qdisc: &'static str,
        /// Class or band name.
        #[unit = ""]
        pub class: String,
        /// When the discipline this class belongs to was installed (0 unless the interface was
        /// reconfigured during the run).
        #[unit = "s"]
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
        #[unit = ""]
        pub port: String,
        /// The discipline's `kind`, as in `classes`.
        #[unit = ""]
        pub qdisc: &'static str,
        /// The class, as in `classes`.
        #[unit = ""]
        pub class: String,
        /// When the discipline this class belongs to was installed.
        #[unit = "s"]
        pub since_s: f64,
        /// Start of the interval, since the run began.
        #[unit = "s"]
        pub start_s: f64,
        /// Length of the interval.
        #[unit = "s"]
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
        #[unit = ""]
        pub port: String,
        /// The sending node.
        #[unit = ""]
        pub node: String,
        /// The node at the far end of the link.
        #[unit = ""]
        pub peer: String,
        /// The output discipline's `kind` at the end of the run.
        #[unit = ""]
        pub qdisc: &'static str,
        /// Physical rate at the end of the run.
        #[unit = "bit/s"]
        pub rate_bps: u64,
        /// QoS bandwidth (IOS `bandwidth`) in effect at the end of the run.
        #[unit = "bit/s"]
        pub bandwidth_bps: u64,
        /// Layer-2 bytes added to each frame.
        #[unit = "bytes"]
        pub l2_overhead_bytes: u32,
        /// Propagation delay of the link.
        #[unit = "ms"]
        pub propagation_ms: f64,
        /// MTU of the link.
        #[unit = "bytes"]
        pub mtu_bytes: u32,
        /// Transmit ring size in effect, the frame on the wire included.
        #[unit = "packets"]
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
    /// Per-application results over the measured window (applications over TCP).
    pub struct AppRecord {
        /// Application name.
        #[unit = ""]
        pub app: String,
        /// The application's `kind`.
        #[unit = ""]
        pub kind: &'static str,
        /// The node the application's entry names in `from`.
        #[unit = ""]
        pub from: String,
        /// The node the application's entry names in `to`.
        #[unit = ""]
        pub to: String,
        /// Users (each with its own connections).
        #[unit = "users"]
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
    /// Round trips of a flow with `echo` (IP SLA style probes), over the measured window: its
    /// packets sent, the replies that came back, and the replies' delays, which are round-trip
    /// times. The loss is also split by direction, as Cisco's SAA / IP SLA udp-jitter operation
    /// reports it (PacketLossSD, PacketLossDS; the janet-qos-trial report's SAA graphs): the
    /// requests lost on the way out (source to destination: the probing flow's drops) and the
    /// replies lost on the way back (destination to source: the `.echo` row's drops), each
    /// counted out of the requests sent, as the agent counts them out of its train.
    pub struct ProbeRecord {
        /// The probing flow.
        #[unit = ""]
        pub probe: String,
        /// Its sending node.
        #[unit = ""]
        pub from: String,
        /// The node that replies.
        #[unit = ""]
        pub to: String,
        /// DSCP of the requests.
        #[unit = ""]
        pub dscp: u8,
        /// Requests sent in the window.
        #[unit = "packets"]
        pub sent_packets: u64,
        /// Replies that came back.
        #[unit = "packets"]
        pub returned_packets: u64,
        /// Lost on the way out or back (requests still travelling at the end count as lost).
        #[unit = "%"]
        pub loss_pct: Option<f64>,
        /// Requests dropped on the way out, source to destination (SAA's SD).
        #[unit = "packets"]
        pub lost_sd_packets: u64,
        /// Replies dropped on the way back, destination to source (SAA's DS).
        #[unit = "packets"]
        pub lost_ds_packets: u64,
        /// `lost_sd_packets` as a share of the requests sent.
        #[unit = "%"]
        pub loss_sd_pct: Option<f64>,
        /// `lost_ds_packets` as a share of the requests sent.
        #[unit = "%"]
        pub loss_ds_pct: Option<f64>,
        /// Smallest round-trip time.
        #[unit = "ms"]
        pub rtt_min_ms: Option<f64>,
        /// Mean round-trip time.
        #[unit = "ms"]
        pub rtt_mean_ms: Option<f64>,
        /// Median round-trip time.
        #[unit = "ms"]
        pub rtt_p50_ms: Option<f64>,
        /// 95th percentile of the round-trip time.
        #[unit = "ms"]
        pub rtt_p95_ms: Option<f64>,
        /// Largest round-trip time.
        #[unit = "ms"]
        pub rtt_max_ms: Option<f64>,
    }
}

record! {
    /// One flow at one observed hop (an egress port with `observe: true`), over packets created
    /// in the measured window: from entering the port's discipline to reaching the far end of
    /// its link.
    pub struct HopRecord {
        /// The observed port.
        #[unit = ""]
        pub port: String,
        /// The flow (flows that never crossed the port have no row).
        #[unit = ""]
        pub flow: String,
        /// Packets offered to the port's discipline.
        #[unit = "packets"]
        pub arrived_packets: u64,
        /// Packets that reached the far end of the link.
        #[unit = "packets"]
        pub departed_packets: u64,
        /// Packets the discipline dropped or the link lost.
        #[unit = "packets"]
        pub dropped_packets: u64,
        /// Smallest hop delay of the departed packets, exact.
        #[unit = "ms"]
        pub delay_min_ms: Option<f64>,
        /// Mean hop delay, exact.
        #[unit = "ms"]
        pub delay_mean_ms: Option<f64>,
        /// Median hop delay, from the delay histogram.
        #[unit = "ms"]
        pub delay_p50_ms: Option<f64>,
        /// 95th percentile of the hop delay.
        #[unit = "ms"]
        pub delay_p95_ms: Option<f64>,
        /// 99th percentile of the hop delay.
        #[unit = "ms"]
        pub delay_p99_ms: Option<f64>,
        /// Largest hop delay, exact.
        #[unit = "ms"]
        pub delay_max_ms: Option<f64>,
    }
}

record! {
    /// A replacement of an interface's output discipline during the run (the whole run, not
    /// only the measured window).
    pub struct ChangeRecord {
        /// The port, `node->peer`.
        #[unit = ""]
        pub port: String,
        /// When, since the run began.
        #[unit = "s"]
        pub at_s: f64,
        /// The `kind` of the discipline installed.
        #[unit = ""]
        pub qdisc: &'static str,
        /// Why: a scheduled change, or a rate change re-sizing or withdrawing the policy.
        #[unit = ""]
        pub cause: String,
        /// Packets queued in the old discipline, offered to the new one.
        #[unit = "packets"]
        pub handed_over_packets: u64,
        /// Of those, packets the new discipline dropped.
        #[unit = "packets"]
        pub refused_packets: u64,
    }
}

record! {
    /// One talk spurt of a push-to-talk application's voice (spurts that start in the window).
    pub struct SpurtRecord {
        /// The application.
        #[unit = ""]
        pub app: String,
        /// Spurt number, from 0.
        #[unit = ""]
        pub spurt: u32,
        /// When its first packet was sent, since the run began.
        #[unit = "s"]
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

record! {
    /// Per-user results of an application over the measured window.
    pub struct UserRecord {
        /// The application.
        #[unit = ""]
        pub app: String,
        /// User number, from 0.
        #[unit = ""]
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

/// Everything a run returns.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Run facts and totals.
    pub run: RunRecord,
    /// One row per flow.
    pub flows: Vec<FlowRecord>,
    /// One row per class of every port's discipline.
    pub classes: Vec<ClassRecord>,
    /// One row per egress port.
    pub ports: Vec<PortRecord>,
    /// One row per application.
    pub apps: Vec<AppRecord>,
    /// One row per user of every application.
    pub users: Vec<UserRecord>,
    /// One row per flow with `echo`.
    pub probes: Vec<ProbeRecord>,
    /// One row per talk spurt of every push-to-talk application.
    pub spurts: Vec<SpurtRecord>,
    /// One row per flow crossing each observed hop.
    pub hops: Vec<HopRecord>,
    /// One row per replacement of an interface's discipline during the run.
    pub changes: Vec<ChangeRecord>,
    /// One row per application, observation point and ΔQ interval length, and the totals.
    pub contracts: Vec<ContractRecord>,
    /// One row per ΔQ interval (when `measure.interval_table` asks for them).
    pub dq_intervals: Vec<DqIntervalRecord>,
    /// One row per voice flow.
    pub voice: Vec<VoiceRecord>,
    /// One row per talk spurt of every voice flow.
    pub voice_spurts: Vec<VoiceSpurtRecord>,
    /// One row per flow and interval (when `measure.series` asks for them).
    pub series: Vec<SeriesRecord>,
    /// One row per class of every port's discipline and interval (when `measure.series`
    /// asks for them).
    pub class_series: Vec<ClassSeriesRecord>,
    /// One row per flow that received packets and quantile of its one-way delay.
    pub delay_distribution: Vec<DelayQuantileRecord>,
    /// Not a table: the texts the run read — the scenario, then each IOS configuration
    /// file — as read, so that what is shown of a run is what it used.
    pub inputs: Vec<Input>,
}

impl Results {
    /// Pretty JSON; byte-identical for equal runs.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialize")
    }
}

fn by_reason(count: impl Fn(DropReason) -> u64) -> Map<String, Value> {
    DropReason::ALL
        .iter()
        .map(|r| (format!("dropped_{}_packets", r.name()), Value::from(count(*r))))
        .collect()
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

impl Simulation {
    /// Runs to the end, checks the invariants and returns the results.
    pub fn finish(self) -> Result<Results, RunError> {
        Ok(build_results(&self.into_snapshot()?))
    }
}

/// Builds the result tables of a finished run.
fn build_results(sim: &Snapshot) -> Results {
    use crate::qdisc::Qdisc;
    let window_ns = sim.run.end.since(sim.run.warmup_end);
    let node_name = |node: NodeId| sim.net.nodes[node].name.clone();
    let flows: Vec<FlowRecord> = sim
        .flows
        .iter()
        .zip(&sim.observers.flows)
        .map(|(info, s)| {
            let bottleneck = &sim.net.ports[info.bottleneck_port].config;
            let l2 = bottleneck.l2_overhead_bytes as u64;
            let dropped = s.drops.total_packets();
            let t = &info.template;
            FlowRecord {
                flow: info.name.clone(),
                from: node_name(info.from),
                to: node_name(info.to),
                src_addr: format_ipv4(t.src_addr),
                dst_addr: format_ipv4(t.dst_addr),
                protocol: Protocol(t.protocol).name(),
                src_port: t.src_port,
                dst_port: t.dst_port,
                dscp: t.dscp,
                pattern: info.pattern,
                packet_size_bytes: info.size_bytes,
                bottleneck: bottleneck.name.clone(),
                sent_packets: s.sent_packets,
                sent_bytes: s.sent_bytes,
                received_packets: s.received_packets,
                received_bytes: s.received_bytes,
                ce_received_packets: s.ce_received_packets,
                dropped_packets: dropped,
                dropped_bytes: s.drops.total_bytes(),
                dropped_by_reason: by_reason(|r| s.drops.packets(r)),
                in_flight_packets: s.sent_packets - s.received_packets - dropped,
                loss_pct: (s.sent_packets > 0).then(|| 100.0 * dropped as f64 / s.sent_packets as f64),
                offered_l3_bps: bps(s.sent_bytes, window_ns),
                delivered_l3_bps: bps(s.arrived_in_window_bytes, window_ns),
                offered_l2_bps: bps(s.sent_bytes + s.sent_packets * l2, window_ns),
                delivered_l2_bps: bps(
                    s.arrived_in_window_bytes + s.arrived_in_window_packets * l2,
                    window_ns,
                ),
                delay_min_ms: s.delay_min_ns().map(|d| ms(d as f64)),
                delay_mean_ms: s.delay_mean_ns().map(ms),
                delay_p50_ms: s.delay_quantile_ns(Quantile::percent(50)).map(ms),
                delay_p95_ms: s.delay_quantile_ns(Quantile::percent(95)).map(ms),
                delay_p99_ms: s.delay_quantile_ns(Quantile::percent(99)).map(ms),
                delay_max_ms: s.delay_max_ns().map(|d| ms(d as f64)),
                jitter_rfc3550_ms: (s.received_packets > 1).then(|| ms(s.jitter.rfc3550_ns())),
                jitter_avg_ms: (s.received_packets > 1).then(|| ms(s.jitter.mean_deviation_ns())),
                jitter_max_ms: (s.received_packets > 1).then(|| ms(s.jitter.max_deviation_ns() as f64)),
            }
        })
        .collect();
    let mut classes = Vec::new();
    let mut class_series = Vec::new();
    let mut changes = Vec::new();
    let mut ports = Vec::new();
    for port in &sim.net.ports {
        let c = &port.config;
        let kind = port.qdisc.kind();
        for retired in &port.retired {
            for (name, q) in retired.class_names.iter().zip(&retired.class_stats) {
                classes.push(class_record(&c.name, retired.kind, name.clone(), retired.since, q));
                class_series_records(&c.name, retired.kind, name, retired.since, q, &mut class_series);
            }
        }
        for (name, q) in port.qdisc.class_names().into_iter().zip(&port.class_stats) {
            class_series_records(&c.name, kind, &name, port.since, q, &mut class_series);
            classes.push(class_record(&c.name, kind, name, port.since, q));
        }
        for change in &port.changes {
            changes.push(ChangeRecord {
                port: c.name.clone(),
                at_s: change.at.as_secs_f64(),
                qdisc: change.kind,
                cause: change.cause.clone(),
                handed_over_packets: change.handed_over_packets,
                refused_packets: change.refused_packets,
            });
        }
        let q = &port.queue_stats;
        ports.push(PortRecord {
            port: c.name.clone(),
            node: node_name(c.node),
            peer: node_name(c.peer),
            qdisc: kind,
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
        });
    }
    let apps = sim
        .app_info
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
        .collect();
    let users = sim
        .app_info
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
        .collect();
    let probes = sim
        .flows
        .iter()
        .zip(&flows)
        .filter_map(|(info, out)| {
            let back = &flows[info.echo()?.flow.index()];
            let share = |packets: u64| {
                (out.sent_packets > 0).then(|| 100.0 * packets as f64 / out.sent_packets as f64)
            };
            Some(ProbeRecord {
                probe: out.flow.clone(),
                from: out.from.clone(),
                to: out.to.clone(),
                dscp: out.dscp,
                sent_packets: out.sent_packets,
                returned_packets: back.received_packets,
                loss_pct: share(out.sent_packets.saturating_sub(back.received_packets)),
                lost_sd_packets: out.dropped_packets,
                lost_ds_packets: back.dropped_packets,
                loss_sd_pct: share(out.dropped_packets),
                loss_ds_pct: share(back.dropped_packets),
                rtt_min_ms: back.delay_min_ms,
                rtt_mean_ms: back.delay_mean_ms,
                rtt_p50_ms: back.delay_p50_ms,
                rtt_p95_ms: back.delay_p95_ms,
                rtt_max_ms: back.delay_max_ms,
            })
        })
        .collect();
    let spurts = sim
        .app_info
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
        .collect();
    let mut hops = Vec::new();
    for port in sim.net.ports.iter().filter(|p| p.observe_slot != NO_HOP) {
        for (info, stats) in sim.flows.iter().zip(&sim.observers.flows) {
            let hop = &stats.hops[port.observe_slot as usize];
            if hop.arrived_packets == 0 && hop.departed_packets == 0 {
                continue;
            }
            let range = hop.delay_range_ns();
            hops.push(HopRecord {
                port: port.config.name.clone(),
                flow: info.name.clone(),
                arrived_packets: hop.arrived_packets,
                departed_packets: hop.departed_packets,
                dropped_packets: hop.dropped_packets,
                delay_min_ms: range.map(|(min, _)| ms(min as f64)),
                delay_mean_ms: hop.delay_mean_ns().map(ms),
                delay_p50_ms: hop.delay_quantile_ns(Quantile::percent(50)).map(ms),
                delay_p95_ms: hop.delay_quantile_ns(Quantile::percent(95)).map(ms),
                delay_p99_ms: hop.delay_quantile_ns(Quantile::percent(99)).map(ms),
                delay_max_ms: range.map(|(_, max)| ms(max as f64)),
            });
        }
    }
    let (contracts, dq_intervals) =
        sim.observers.quality.as_ref().map_or_else(Default::default, |q| contract_records(q, window_ns));
    let (voice, voice_spurts) = voice_records(&sim.flows, &sim.observers.flows);
    let t = &sim.net.counts;
    Results {
        run: RunRecord {
            scenario: sim.run.scenario.clone(),
            seed: sim.run.seed,
            replication: sim.run.replication,
            scenario_sha256: sim.run.identity.scenario_sha256.clone(),
            overrides: sim.run.identity.overrides.clone(),
            variant: sim.run.identity.variant.clone(),
            duration_s: window_ns as f64 / 1e9,
            warmup_s: sim.run.warmup_end.as_secs_f64(),
            events: sim.events,
            random_draws: sim.random_draws,
            packet_hops: t.packet_hops,
            created_packets: t.created,
            delivered_packets: t.delivered,
            dropped_packets: t.dropped,
            in_flight_packets: t.created - t.delivered - t.dropped,
            qoslab_version: env!("CARGO_PKG_VERSION"),
            notes: sim.run.notes.clone(),
            order_of_failure: sim.run.order_of_failure.clone(),
        },
        flows,
        classes,
        ports,
        apps,
        users,
        probes,
        spurts,
        hops,
        changes,
        contracts,
        dq_intervals,
        voice,
        voice_spurts,
        series: series_records(&sim.flows, &sim.observers.flows, sim.observers.quality.as_deref()),
        class_series,
        delay_distribution: delay_distribution_records(
            sim.flows.iter().map(|info| info.name.as_str()),
            &sim.observers.flows,
        ),
        inputs: sim.run.inputs.clone(),
    }
}
