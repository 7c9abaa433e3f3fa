//! The tables of what each flow experienced end to end (`flows`), the round trips of its
//! probes (`probes`) and its delays at each observed hop (`hops`); `docs/results.md` documents
//! the columns.

use super::convert::{bps, by_reason, ms};
use super::schema::record;
use crate::classify::matcher::format_ipv4;
use crate::ids::NodeId;
use crate::measure::quantile::Quantile;
use crate::packet::Protocol;
use crate::packet::NO_HOP;
use crate::sim::Snapshot;
use serde_json::{Map, Value};

record! {
    /// Per-flow results over the measured window.
    pub struct FlowRecord {
        /// Flow name (`NAME.reverse`, `NAME.echo` and `NAME.1` … for the flows qoslab adds).
        #[unit = "", key = 1]
        pub flow: String,
        /// Sending node.
        #[unit = "", descriptive = true]
        pub from: String,
        /// Receiving node.
        #[unit = "", descriptive = true]
        pub to: String,
        /// Source IPv4 address written in the packets.
        #[unit = "", descriptive = true]
        pub src_addr: String,
        /// Destination IPv4 address written in the packets.
        #[unit = "", descriptive = true]
        pub dst_addr: String,
        /// `udp`, `tcp`, `icmp`, or the protocol number.
        #[unit = "", descriptive = true]
        pub protocol: String,
        /// Source port written in the packets.
        #[unit = "", descriptive = true]
        pub src_port: u16,
        /// Destination port written in the packets.
        #[unit = "", descriptive = true]
        pub dst_port: u16,
        /// DSCP, 0 to 63.
        #[unit = "", descriptive = true]
        pub dscp: u8,
        /// The pattern's `kind` (`onoff` for ON-OFF flows), or the application's for its flows.
        #[unit = "", descriptive = true]
        pub pattern: &'static str,
        /// IP packet size (an application's flows: the largest segment, or a pure ACK).
        #[unit = "bytes", descriptive = true]
        pub packet_size_bytes: u32,
        /// The port of the lowest physical rate on the path, the first one on ties.
        #[unit = "", descriptive = true]
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
    /// Round trips of a flow with `echo` (IP SLA style probes), over the measured window: its
    /// packets sent, the replies that came back, and the replies' delays, which are round-trip
    /// times. The loss is also split by direction, as Cisco's SAA / IP SLA udp-jitter operation
    /// reports it (PacketLossSD, PacketLossDS; the janet-qos-trial report's SAA graphs): the
    /// requests lost on the way out (source to destination: the probing flow's drops) and the
    /// replies lost on the way back (destination to source: the `.echo` row's drops), each
    /// counted out of the requests sent, as the agent counts them out of its train.
    pub struct ProbeRecord {
        /// The probing flow.
        #[unit = "", key = 1]
        pub probe: String,
        /// Its sending node.
        #[unit = "", descriptive = true]
        pub from: String,
        /// The node that replies.
        #[unit = "", descriptive = true]
        pub to: String,
        /// DSCP of the requests.
        #[unit = "", descriptive = true]
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
        #[unit = "", key = 1]
        pub port: String,
        /// The flow (flows that never crossed the port have no row).
        #[unit = "", key = 2]
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

/// The `flows` rows: one per flow, over a measured window of `window_ns`.
pub(super) fn flow_records(sim: &Snapshot, window_ns: u64) -> Vec<FlowRecord> {
    let node_name = |node: NodeId| sim.net.nodes[node].name.clone();
    sim.flows
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
        .collect()
}

/// The `probes` rows: one per flow with `echo`, from its row and its echo's in `flows`.
pub(super) fn probe_records(sim: &Snapshot, flows: &[FlowRecord]) -> Vec<ProbeRecord> {
    sim.flows
        .iter()
        .zip(flows)
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
        .collect()
}

/// The `hops` rows: one per observed port and flow that crossed it.
pub(super) fn hop_records(sim: &Snapshot) -> Vec<HopRecord> {
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
    hops
}
