//! What a run may cost: memory and work, estimated before the scenario is built or run, so
//! that an absurd scenario is refused at the key that makes it absurd instead of exhausting
//! the machine.
//!
//! **Memory.** Before anything is built, the structures whose size follows the scenario's
//! numbers are counted from the document: per node the routing table row (a next hop per
//! destination, so nodes² entries in all), per port its discipline and counters, per flow
//! row (traffic entries × `copies`; an application has a row each way, and each of its
//! users' connections adds its state) its statistics — a delay histogram of fixed size at
//! the destination and at each observed port. Queue contents are not counted: they are bounded by the traffic, not the document,
//! and the run itself stops when the packets in flight would need more than the memory left
//! (see [`Limits::max_packets_in_flight`]).
//!
//! **Work.** After the build, each open-loop source's packets are counted over its active
//! time at its nominal rate — a source with a packet count (`packets: N`) active only for the
//! N nominal intervals its packets take, so it counts at most N — and followed along its
//! path, each hop carrying at most what its link can serialize; an application over TCP is
//! counted at its path's bottleneck rate, data one way and acknowledgements back. Every
//! packet-hop costs about three events (enqueue and dequeue, end of transmission, arrival);
//! the estimate is compared with [`Limits::max_events`]. ON-OFF sources count as if always
//! ON, ramps at their highest rate. A source's rate is the one its pattern asks for, even
//! above a packet a nanosecond (each packet is still made, one event each).
//!
//! **Files.** The same estimate, kept per port, bounds what a packet capture of the port
//! can write: its records' headers and the captured bytes of its frames
//! ([`Workload::capture_bytes`]).

use super::spec::ScenarioSpec;
use crate::config::error::{ErrorKind, Issue};
use crate::ids::PortId;
use crate::measure::histogram::HISTOGRAM_BYTES;
use crate::measure::FlowStats;
use crate::net::pcap::{FILE_HEADER_BYTES, RECORD_HEADER_BYTES};
use crate::packet::{Packet, Segment};
use crate::sim::FlowInfo;
use crate::traffic::Source;

/// Default memory a run may use: 4 GiB.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 4 << 30;

/// Default events a run may take: 10^10, about ten minutes at today's speed.
pub const DEFAULT_MAX_EVENTS: u64 = 10_000_000_000;

/// Events the engine processes per packet crossing one link (measured: about 2.6).
pub const EVENTS_PER_PACKET_HOP: f64 = 3.0;

/// Memory held per packet in flight: the packet in its queue, the slot of its TCP segment
/// in the segment store (counted for every packet, as all may be segments) and its share of
/// events.
pub const BYTES_PER_PACKET_IN_FLIGHT: u64 =
    std::mem::size_of::<Packet>() as u64 + std::mem::size_of::<Segment>() as u64 + 32;

/// Memory of a flow row besides its histograms (counters, jitter and loss state, its
/// source or connection).
const BYTES_PER_FLOW: u64 = std::mem::size_of::<FlowStats>() as u64
    + std::mem::size_of::<FlowInfo>() as u64
    + std::mem::size_of::<Source>() as u64;

/// Memory of a TCP connection's two endpoints (sender and receiver state, scoreboard).
const BYTES_PER_CONNECTION: u64 = 4096;

/// Memory of a port with its discipline, counters and ring.
const BYTES_PER_PORT: u64 = 8192;

/// What a run may use.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Memory the scenario's structures and its packets in flight may take, bytes.
    pub max_memory_bytes: u64,
    /// Events a run may take.
    pub max_events: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES, max_events: DEFAULT_MAX_EVENTS }
    }
}

/// A size in bytes for people: `3.2 GB`.
pub fn format_bytes(bytes: u64) -> String {
    let units = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    match units.iter().find(|(_, scale)| bytes as f64 >= *scale) {
        Some((unit, scale)) => format!("{:.1} {unit}", bytes as f64 / scale),
        None => format!("{bytes} B"),
    }
}

/// The memory the scenario's structures need, bytes, and the key path of the largest part.
pub fn structures_bytes(spec: &ScenarioSpec) -> (u64, String) {
    let nodes = spec.topology.nodes.len() as u64;
    let routing = nodes.saturating_mul(nodes).saturating_mul(4);
    let ports = (spec.topology.links.len() as u64).saturating_mul(2 * BYTES_PER_PORT);
    let points = spec.measure.at.as_ref().map_or(0, Vec::len) as u64;
    let per_row = BYTES_PER_FLOW + HISTOGRAM_BYTES * (1 + points);
    let mut largest =
        (routing.max(ports), if routing >= ports { "topology.nodes" } else { "topology.links" }.to_owned());
    let mut total = routing.saturating_add(ports);
    for (i, flow) in spec.traffic.iter().enumerate() {
        let copies = u64::from(flow.copies.unwrap_or(1));
        let connections = flow.app.as_ref().map_or(0, |app| u64::from(app.user_count()));
        // An application has a row each way; its users' connections add their state.
        let rows = if flow.app.is_some() { 2 } else { 1 + u64::from(flow.echo) };
        let bytes = copies.saturating_mul(rows * per_row + connections.saturating_mul(BYTES_PER_CONNECTION));
        total = total.saturating_add(bytes);
        if bytes > largest.0 {
            let key = if copies > 1 { format!("traffic[{i}].copies") } else { format!("traffic[{i}]") };
            largest = (bytes, key);
        }
    }
    (total, largest.1)
}

/// Refuses a scenario whose structures alone need more than `limits` allow.
pub fn check_structures(spec: &ScenarioSpec, limits: &Limits) -> Result<u64, Issue> {
    let (bytes, largest) = structures_bytes(spec);
    if bytes > limits.max_memory_bytes {
        return Err(Issue::at(
            largest,
            format!(
                "the scenario needs about {} of memory before it runs, more than the {} allowed; \
                 this entry is its largest part",
                format_bytes(bytes),
                format_bytes(limits.max_memory_bytes)
            ),
        )
        .hint("use fewer copies, users, nodes or observation points, or allow more with --max-memory")
        .kind(ErrorKind::Limit));
    }
    Ok(bytes)
}

impl Limits {
    /// Packets that may be in flight at once once `structures_bytes` are taken.
    pub fn max_packets_in_flight(&self, structures_bytes: u64) -> u64 {
        (self.max_memory_bytes.saturating_sub(structures_bytes) / BYTES_PER_PACKET_IN_FLIGHT).max(1)
    }
}

/// The estimated work of a run: events, and the traffic entry that makes most of them.
#[derive(Clone, Debug, Default)]
pub struct Workload {
    /// Estimated events of the whole run.
    pub events: f64,
    /// The key path of the entry with most events, and its events.
    pub heaviest: Option<(String, f64)>,
    /// Per port (by index), the packets estimated to leave it and their IP bytes.
    pub ports: Vec<(f64, f64)>,
}

impl Workload {
    /// Adds `packets_per_s` packets of `frame_bits` bits on the wire (the largest frame
    /// size) sent for `active_s` seconds along `hops`, each a port and its rate in bit/s.
    pub fn add(
        &mut self,
        at: &str,
        packets_per_s: f64,
        frame_bits: f64,
        active_s: f64,
        hops: impl IntoIterator<Item = (PortId, u64)>,
    ) {
        let mut rate = packets_per_s;
        let mut packet_hops_per_s = 0.0;
        for (port, hop_bps) in hops {
            rate = rate.min(hop_bps as f64 / frame_bits.max(1.0));
            packet_hops_per_s += rate;
            if self.ports.len() <= port.index() {
                self.ports.resize(port.index() + 1, (0.0, 0.0));
            }
            let leaving = &mut self.ports[port.index()];
            leaving.0 += rate * active_s;
            leaving.1 += rate * active_s * frame_bits / 8.0;
        }
        // Creating a packet is an event, and so is each hop.
        let events = active_s * (packets_per_s + packet_hops_per_s * EVENTS_PER_PACKET_HOP);
        self.events += events;
        if self.heaviest.as_ref().is_none_or(|(_, most)| events > *most) {
            self.heaviest = Some((at.to_owned(), events));
        }
    }

    /// The most a packet capture of `ports` with records cut at `snap_bytes` can write,
    /// bytes: per packet a record header and at most `snap_bytes` of its frame (its IP bytes
    /// and a link header of at most `link_header_bytes`), after each file's header.
    pub fn capture_bytes(&self, ports: &[PortId], snap_bytes: u32, link_header_bytes: u32) -> f64 {
        ports
            .iter()
            .map(|port| {
                let (packets, ip_bytes) = self.ports.get(port.index()).copied().unwrap_or_default();
                let frames =
                    (ip_bytes + packets * f64::from(link_header_bytes)).min(packets * f64::from(snap_bytes));
                FILE_HEADER_BYTES as f64 + packets * RECORD_HEADER_BYTES as f64 + frames
            })
            .sum()
    }

    /// Refuses a run whose events exceed `limits`.
    pub fn check(&self, limits: &Limits) -> Result<(), Issue> {
        if self.events <= limits.max_events as f64 {
            return Ok(());
        }
        let (at, events) = self.heaviest.clone().unwrap_or_else(|| ("run.duration".to_owned(), self.events));
        Err(Issue::at(
            at,
            format!(
                "the run would take about {:.1e} events ({:.0} % from this entry), more than the {:.1e} \
                 allowed: at some tens of millions of events a second that is hours",
                self.events,
                100.0 * events / self.events,
                limits.max_events as f64
            ),
        )
        .hint("check the rates and sizes, shorten run.duration, or allow it with --max-events")
        .kind(ErrorKind::Limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hop_carries_at_most_what_its_link_serializes() {
        let mut work = Workload::default();
        // 1000 packets/s of 1500 B frames (12 kbit) for 10 s over 128 kbit/s then 1 Gbit/s.
        work.add("traffic[0]", 1000.0, 12_000.0, 10.0, [(PortId(0), 128_000), (PortId(1), 1_000_000_000)]);
        let hop_rate = 128_000.0 / 12_000.0;
        let expected = 10.0 * (1000.0 + 2.0 * hop_rate * EVENTS_PER_PACKET_HOP);
        assert!((work.events - expected).abs() < 1e-6, "{} vs {expected}", work.events);
        assert_eq!(work.heaviest.as_ref().map(|(at, _)| at.as_str()), Some("traffic[0]"));
    }

    #[test]
    fn too_much_work_is_refused_at_the_heaviest_entry() {
        let mut work = Workload::default();
        work.add("traffic[0]", 50.0, 1600.0, 60.0, [(PortId(0), 128_000)]);
        work.add("traffic[1]", 1e12, 12_000.0, 60.0, [(PortId(1), 10_000_000_000_000_000)]);
        let issue = work.check(&Limits::default()).unwrap_err();
        assert_eq!(issue.key_path, "traffic[1]");
        assert!(issue.hint.unwrap().contains("--max-events"));
        let allowed = Limits { max_events: u64::MAX, ..Limits::default() };
        assert!(work.check(&allowed).is_ok());
    }

    #[test]
    fn packets_in_flight_share_what_the_structures_leave() {
        let limits = Limits { max_memory_bytes: 1 << 30, ..Limits::default() };
        let left = limits.max_packets_in_flight(1 << 29);
        assert_eq!(left, (1 << 29) / BYTES_PER_PACKET_IN_FLIGHT);
        assert_eq!(limits.max_packets_in_flight(u64::MAX), 1);
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(4_400_000_000), "4.4 GB");
    }
}
