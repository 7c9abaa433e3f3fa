//! The per-packet trace: one row per event of a traced packet at a traced port — arrival at
//! the port, drop (with its reason), dequeue from the discipline, transmission start — and
//! one per delivery at the destination.
//!
//! Rows go into a columnar chunk: one little-endian byte column per field, each reserved for
//! [`CHUNK_ROWS`] rows. A full chunk waits in a queue until the caller drains it (the run
//! stops advancing at its next check while a full chunk waits, so at most a few chunks
//! exist at once); a drained chunk is cleared and reused, so recording allocates nothing per
//! packet and the memory stays flat however long the run. Names (nodes, ports, flows,
//! classes, events, drop reasons) are stored as indices into dictionaries the trace keeps.
//!
//! Only packets created in the measured window are traced, as the flow statistics count
//! them. After `max_rows` rows the trace stops recording and says so in a note.
//!
//! A segment of a simulated TCP connection also gives its sequence and acknowledgement
//! numbers (RFC 9293 §3.4: byte offsets from the connection's SYN, which is 0), the data a
//! time-sequence graph of the connection is drawn from, as tcptrace draws one from a
//! capture. The trace reads them from the run's [`SegmentStore`], where they wait while
//! their packet is on the network.

use super::drops::DropReason;
use crate::ids::{FlowId, NodeId, PortId, Table};
use crate::packet::segment::flags;
use crate::packet::{Packet, SegmentStore};
use crate::time::SimTime;
use std::collections::VecDeque;

/// Rows of one chunk.
pub const CHUNK_ROWS: usize = 1 << 16;

/// Marker of an absent index (no port, no class, no queue length, no reason).
pub const NONE: u32 = u32::MAX;

/// Marker of an absent drop reason in the reason column.
pub const NO_REASON: u8 = u8::MAX;

/// Marker of an absent TCP number (a packet that is not a TCP segment, or an
/// acknowledgement number without the ACK flag).
pub const NO_TCP: u64 = u64::MAX;

/// What happened to a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// Offered to a port's discipline.
    Arrival = 0,
    /// Dropped at a port: by its discipline (refused or discarded) or by its link (lost).
    Drop = 1,
    /// Left the discipline for the transmit ring.
    Dequeue = 2,
    /// Its frame (a fragmented packet's last fragment) started on the wire.
    Transmit = 3,
    /// Reached its destination node.
    Delivery = 4,
    /// Dropped by the input policy of the interface it arrived on.
    InputDrop = 5,
}

impl TraceEvent {
    /// Every event, in the order of their codes.
    pub const ALL: [TraceEvent; 6] = [
        TraceEvent::Arrival,
        TraceEvent::Drop,
        TraceEvent::Dequeue,
        TraceEvent::Transmit,
        TraceEvent::Delivery,
        TraceEvent::InputDrop,
    ];

    /// Name used in the trace's `event` column.
    pub const fn name(self) -> &'static str {
        match self {
            TraceEvent::Arrival => "arrival",
            TraceEvent::Drop => "drop",
            TraceEvent::Dequeue => "dequeue",
            TraceEvent::Transmit => "transmit",
            TraceEvent::Delivery => "delivery",
            TraceEvent::InputDrop => "input_drop",
        }
    }
}

/// A value stored little-endian in a byte column.
pub trait LittleEndian: Copy {
    /// Bytes per value.
    const WIDTH: usize;
    /// Appends the value's bytes.
    fn put(self, bytes: &mut Vec<u8>);
    /// Reads the value at the start of `bytes`.
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! little_endian {
    ($($t:ty),*) => {$(
        impl LittleEndian for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            #[inline]
            fn put(self, bytes: &mut Vec<u8>) {
                bytes.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes[..Self::WIDTH].try_into().expect("a whole value"))
            }
        }
    )*};
}
little_endian!(u8, u32, u64, i64, f64);

/// One column of a chunk: values of type `T`, little-endian, back to back (the layout of a
/// NumPy or Arrow array of that type).
#[derive(Clone, Debug)]
pub struct Column<T> {
    bytes: Vec<u8>,
    _type: std::marker::PhantomData<T>,
}

impl<T: LittleEndian> Column<T> {
    pub(crate) fn with_rows(rows: usize) -> Self {
        Column { bytes: Vec::with_capacity(rows * T::WIDTH), _type: std::marker::PhantomData }
    }

    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        value.put(&mut self.bytes);
    }

    /// The value of row `row`.
    pub fn get(&self, row: usize) -> T {
        T::get(&self.bytes[row * T::WIDTH..])
    }

    /// The column's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Rows the column holds room for without growing.
    pub fn capacity_rows(&self) -> usize {
        self.bytes.capacity() / T::WIDTH
    }
}

/// Up to `CHUNK_ROWS` (65,536) rows, one column per field.
#[derive(Clone, Debug)]
pub struct TraceChunk {
    /// When, ns since the start of the run.
    pub time_ns: Column<u64>,
    /// [`TraceEvent`] code.
    pub event: Column<u8>,
    /// Node index (the port's sending node; the destination for deliveries).
    pub node: Column<u32>,
    /// Port index ([`NONE`] for deliveries).
    pub port: Column<u32>,
    /// Flow row index.
    pub flow: Column<u32>,
    /// Packet number, unique in the run, in creation order.
    pub packet_id: Column<u64>,
    /// IP size, bytes (with the outer header inside a tunnel).
    pub size_bytes: Column<u32>,
    /// DSCP at the event.
    pub dscp: Column<u8>,
    /// ECN field at the event.
    pub ecn: Column<u8>,
    /// Index into the class dictionary ([`NONE`] where the row has no class).
    pub class: Column<u32>,
    /// Packets in the port's discipline at the event ([`NONE`] for deliveries and input
    /// drops).
    pub queue_packets: Column<u32>,
    /// Time since the packet was created, ns.
    pub delay_ns: Column<u64>,
    /// [`DropReason`] index of drops (`NO_REASON`, 255, otherwise).
    pub reason: Column<u8>,
    /// TCP sequence number of a segment ([`NO_TCP`] for other packets).
    pub tcp_seq: Column<u64>,
    /// TCP acknowledgement number of a segment with the ACK flag ([`NO_TCP`] otherwise).
    pub tcp_ack: Column<u64>,
    rows: usize,
}

impl TraceChunk {
    fn new(rows: usize) -> Self {
        TraceChunk {
            time_ns: Column::with_rows(rows),
            event: Column::with_rows(rows),
            node: Column::with_rows(rows),
            port: Column::with_rows(rows),
            flow: Column::with_rows(rows),
            packet_id: Column::with_rows(rows),
            size_bytes: Column::with_rows(rows),
            dscp: Column::with_rows(rows),
            ecn: Column::with_rows(rows),
            class: Column::with_rows(rows),
            queue_packets: Column::with_rows(rows),
            delay_ns: Column::with_rows(rows),
            reason: Column::with_rows(rows),
            tcp_seq: Column::with_rows(rows),
            tcp_ack: Column::with_rows(rows),
            rows: 0,
        }
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The smallest room, in rows, any of its columns has without growing.
    pub fn capacity_rows(&self) -> usize {
        self.capacities().into_iter().min().expect("columns")
    }

    /// The largest room, in rows, any of its columns has.
    pub fn max_capacity_rows(&self) -> usize {
        self.capacities().into_iter().max().expect("columns")
    }

    fn capacities(&self) -> [usize; 15] {
        [
            self.time_ns.capacity_rows(),
            self.event.capacity_rows(),
            self.node.capacity_rows(),
            self.port.capacity_rows(),
            self.flow.capacity_rows(),
            self.packet_id.capacity_rows(),
            self.size_bytes.capacity_rows(),
            self.dscp.capacity_rows(),
            self.ecn.capacity_rows(),
            self.class.capacity_rows(),
            self.queue_packets.capacity_rows(),
            self.delay_ns.capacity_rows(),
            self.reason.capacity_rows(),
            self.tcp_seq.capacity_rows(),
            self.tcp_ack.capacity_rows(),
        ]
    }

    fn clear(&mut self) {
        for bytes in [
            &mut self.time_ns.bytes,
            &mut self.event.bytes,
            &mut self.node.bytes,
            &mut self.port.bytes,
            &mut self.flow.bytes,
            &mut self.packet_id.bytes,
            &mut self.size_bytes.bytes,
            &mut self.dscp.bytes,
            &mut self.ecn.bytes,
            &mut self.class.bytes,
            &mut self.queue_packets.bytes,
            &mut self.delay_ns.bytes,
            &mut self.reason.bytes,
            &mut self.tcp_seq.bytes,
            &mut self.tcp_ack.bytes,
        ] {
            bytes.clear();
        }
        self.rows = 0;
    }
}

/// One row before it is stored.
#[derive(Copy, Clone, Debug)]
pub struct Row {
    /// What happened.
    pub event: TraceEvent,
    /// Class dictionary index, or [`NONE`].
    pub class: u32,
    /// Packets in the discipline, or [`NONE`].
    pub queue_packets: u32,
    /// Why it was dropped.
    pub reason: Option<DropReason>,
}

/// What to trace and the names the rows' indices stand for.
#[derive(Clone, Debug)]
pub struct TraceSetup {
    /// Per port: whether it is traced.
    pub ports: Table<PortId, bool>,
    /// Per port: its sending node.
    pub port_nodes: Table<PortId, NodeId>,
    /// Per port: the class names of its discipline.
    pub port_classes: Table<PortId, Vec<String>>,
    /// Per flow row: whether it is traced.
    pub flows: Table<FlowId, bool>,
    /// Whether deliveries are traced (`end_to_end` among the points).
    pub deliveries: bool,
    /// Most rows to record.
    pub max_rows: u64,
    /// Rows per chunk.
    pub chunk_rows: usize,
}

/// The trace recorder.
#[derive(Clone, Debug)]
pub struct Trace {
    ports: Table<PortId, bool>,
    port_nodes: Table<PortId, NodeId>,
    flows: Table<FlowId, bool>,
    deliveries: bool,
    max_rows: u64,
    chunk_rows: usize,
    /// Per port: class index in its discipline → class dictionary index.
    port_class_codes: Table<PortId, Vec<u32>>,
    class_names: Vec<String>,
    rows: u64,
    stopped: bool,
    filling: TraceChunk,
    full: VecDeque<TraceChunk>,
    spare: Vec<TraceChunk>,
}

impl Trace {
    /// The most rows it records.
    pub fn max_rows(&self) -> u64 {
        self.max_rows
    }

    /// A recorder for `setup`.
    pub fn new(setup: TraceSetup) -> Self {
        let mut trace = Trace {
            ports: setup.ports,
            port_nodes: setup.port_nodes,
            flows: setup.flows,
            deliveries: setup.deliveries,
            max_rows: setup.max_rows,
            chunk_rows: setup.chunk_rows.max(1),
            port_class_codes: Table::new(),
            class_names: Vec::new(),
            rows: 0,
            stopped: false,
            filling: TraceChunk::new(setup.chunk_rows.max(1)),
            full: VecDeque::new(),
            spare: Vec::new(),
        };
        trace.port_class_codes = vec![Vec::new(); trace.ports.len()].into();
        for (port, names) in setup.port_classes.iter_enumerated() {
            trace.set_classes(port, names);
        }
        trace
    }

    /// Port `port` now runs a discipline with classes `names` (at the start, or after a
    /// replacement).
    pub fn set_classes(&mut self, port: PortId, names: &[String]) {
        let codes = names
            .iter()
            .map(|name| match self.class_names.iter().position(|known| known == name) {
                Some(code) => code as u32,
                None => {
                    self.class_names.push(name.clone());
                    (self.class_names.len() - 1) as u32
                }
            })
            .collect();
        self.port_class_codes[port] = codes;
    }

    /// The class dictionary index of class `class` of port `port`.
    #[inline]
    pub fn class_code(&self, port: PortId, class: usize) -> u32 {
        self.port_class_codes[port].get(class).copied().unwrap_or(NONE)
    }

    /// Whether events of `packet` at `port` are traced.
    #[inline]
    pub fn traces(&self, port: PortId, packet: &Packet) -> bool {
        packet.counted && self.ports[port] && self.flows[packet.flow]
    }

    /// Records an event of `packet` (its segment, if any, in `segments`) at `port` at `now`
    /// (if traced).
    #[inline]
    pub fn at_port(
        &mut self,
        now: SimTime,
        packet: &Packet,
        segments: &SegmentStore,
        port: PortId,
        row: Row,
    ) {
        if self.traces(port, packet) {
            let node = self.port_nodes[port];
            self.push(now, packet, segments, node, port.0, row);
        }
    }

    /// Records the delivery of `packet` (its segment, if any, in `segments`) at node `node`
    /// at `now` (if traced).
    #[inline]
    pub fn delivered(&mut self, now: SimTime, packet: &Packet, segments: &SegmentStore, node: NodeId) {
        if packet.counted && self.deliveries && self.flows[packet.flow] {
            let row = Row { event: TraceEvent::Delivery, class: NONE, queue_packets: NONE, reason: None };
            self.push(now, packet, segments, node, NONE, row);
        }
    }

    #[inline]
    fn push(
        &mut self,
        now: SimTime,
        packet: &Packet,
        segments: &SegmentStore,
        node: NodeId,
        port: u32,
        row: Row,
    ) {
        if self.stopped {
            return;
        }
        if self.rows == self.max_rows {
            self.stopped = true;
            return;
        }
        self.rows += 1;
        let c = &mut self.filling;
        c.time_ns.push(now.0);
        c.event.push(row.event as u8);
        c.node.push(node.0);
        c.port.push(port);
        c.flow.push(packet.flow.0);
        c.packet_id.push(packet.id);
        c.size_bytes.push(packet.size_bytes);
        c.dscp.push(packet.dscp);
        c.ecn.push(packet.ecn);
        c.class.push(row.class);
        c.queue_packets.push(row.queue_packets);
        c.delay_ns.push(now.since(packet.created));
        c.reason.push(row.reason.map_or(NO_REASON, |r| r.index() as u8));
        let segment = packet.segment.map(|handle| segments.get(handle));
        c.tcp_seq.push(segment.map_or(NO_TCP, |s| s.seq));
        c.tcp_ack.push(segment.filter(|s| s.has(flags::ACK)).map_or(NO_TCP, |s| s.ack));
        c.rows += 1;
        if c.rows == self.chunk_rows {
            let fresh = self.spare.pop().unwrap_or_else(|| TraceChunk::new(self.chunk_rows));
            self.full.push_back(std::mem::replace(&mut self.filling, fresh));
        }
    }

    /// Whether a full chunk waits to be drained.
    pub fn has_full_chunk(&self) -> bool {
        !self.full.is_empty()
    }

    /// Hands each full chunk to `sink`, oldest first, then keeps it for reuse.
    pub fn drain(&mut self, mut sink: impl FnMut(&TraceChunk)) {
        while let Some(mut chunk) = self.full.pop_front() {
            sink(&chunk);
            chunk.clear();
            self.spare.push(chunk);
        }
    }

    /// Makes the chunk being filled a full one, however many rows it has (at the end of the
    /// run).
    pub fn flush(&mut self) {
        if self.filling.rows > 0 {
            let fresh = self.spare.pop().unwrap_or_else(|| TraceChunk::new(self.chunk_rows));
            self.full.push_back(std::mem::replace(&mut self.filling, fresh));
        }
    }

    /// Rows recorded so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Whether the trace reached `max_rows` and stopped recording.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Chunks allocated so far (being filled, full and spare).
    pub fn chunks_allocated(&self) -> usize {
        1 + self.full.len() + self.spare.len()
    }

    /// The chunk being filled.
    pub fn filling(&self) -> &TraceChunk {
        &self.filling
    }

    /// The class dictionary: class names in the order of their indices.
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }

    /// The note for the results when the trace stopped early.
    pub fn note(&self) -> Option<String> {
        self.stopped.then(|| {
            format!(
                "trace stopped at {} rows: raise measure.trace.max_rows or narrow measure.trace.points/flows",
                self.rows
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(max_rows: u64, chunk_rows: usize) -> TraceSetup {
        TraceSetup {
            ports: vec![true, false].into(),
            port_nodes: vec![NodeId(0), NodeId(1)].into(),
            port_classes: vec![vec!["voice".into(), "default".into()], vec!["default".into()]].into(),
            flows: vec![true].into(),
            deliveries: true,
            max_rows,
            chunk_rows,
        }
    }

    fn packet(id: u64) -> Packet {
        Packet {
            id,
            created: SimTime(0),
            flow: FlowId(0),
            dst_node: NodeId(1),
            size_bytes: 100,
            src_addr: 0,
            dst_addr: 0,
            src_port: 0,
            dst_port: 0,
            protocol: 17,
            dscp: 46,
            ecn: 0,
            counted: true,
            hop_slot: 0,
            hop_in: SimTime(0),
            segment: None,
            fragment: Default::default(),
            outer_overhead_bytes: 0,
            inner_dscp: 0,
        }
    }

    fn arrival() -> Row {
        Row { event: TraceEvent::Arrival, class: NONE, queue_packets: 0, reason: None }
    }

    #[test]
    fn segments_give_their_sequence_and_acknowledgement_numbers() {
        use crate::packet::sack::SackBlocks;
        use crate::packet::Segment;
        let segment = |seq, ack, flags| Segment {
            to_endpoint: crate::ids::EndpointId(0),
            incarnation: 0,
            seq,
            ack,
            payload_bytes: 1000,
            flags,
            window_bytes: 65535,
            sack: SackBlocks::default(),
        };
        let mut trace = Trace::new(setup(10, 4));
        let mut segments = SegmentStore::new();
        // A SYN (sequence 0, no ACK), a data segment acknowledging the peer's SYN, and a
        // packet that is not a segment.
        let syn = Packet { segment: Some(segments.put(segment(0, 0, flags::SYN))), ..packet(0) };
        let data = Packet { segment: Some(segments.put(segment(1001, 1, flags::ACK))), ..packet(1) };
        trace.at_port(SimTime(1), &syn, &segments, PortId(0), arrival());
        trace.at_port(SimTime(2), &data, &segments, PortId(0), arrival());
        trace.at_port(SimTime(3), &packet(2), &segments, PortId(0), arrival());
        let c = trace.filling();
        assert_eq!([c.tcp_seq.get(0), c.tcp_seq.get(1), c.tcp_seq.get(2)], [0, 1001, NO_TCP]);
        assert_eq!([c.tcp_ack.get(0), c.tcp_ack.get(1), c.tcp_ack.get(2)], [NO_TCP, 1, NO_TCP]);
    }

    #[test]
    fn class_names_are_shared_between_ports() {
        let trace = Trace::new(setup(10, 4));
        assert_eq!(trace.class_names(), ["voice", "default"]);
        assert_eq!((trace.class_code(PortId(0), 1), trace.class_code(PortId(1), 0)), (1, 1));
    }

    #[test]
    fn untraced_ports_and_warm_up_packets_give_no_row() {
        let mut trace = Trace::new(setup(10, 4));
        trace.at_port(SimTime(5), &packet(0), &SegmentStore::new(), PortId(1), arrival());
        trace.at_port(
            SimTime(5),
            &Packet { counted: false, ..packet(1) },
            &SegmentStore::new(),
            PortId(0),
            arrival(),
        );
        assert_eq!(trace.rows(), 0);
        trace.at_port(SimTime(5), &packet(2), &SegmentStore::new(), PortId(0), arrival());
        assert_eq!(trace.filling().packet_id.get(0), 2);
        assert_eq!(trace.filling().delay_ns.get(0), 5);
    }

    #[test]
    fn the_buffer_never_grows_past_its_chunk_and_chunks_are_reused() {
        let mut trace = Trace::new(setup(u64::MAX, 8));
        let mut drained = 0;
        for id in 0..1000 {
            trace.at_port(SimTime(id), &packet(id), &SegmentStore::new(), PortId(0), arrival());
            assert!(trace.filling().max_capacity_rows() <= 8);
            if trace.has_full_chunk() {
                trace.drain(|chunk| {
                    assert_eq!((chunk.rows(), chunk.capacity_rows(), chunk.max_capacity_rows()), (8, 8, 8));
                    drained += chunk.rows();
                });
            }
        }
        assert_eq!(drained, 1000);
        assert_eq!(trace.chunks_allocated(), 2);
    }

    #[test]
    fn the_cap_stops_recording_with_a_note() {
        let mut trace = Trace::new(setup(3, 8));
        for id in 0..5 {
            trace.at_port(SimTime(id), &packet(id), &SegmentStore::new(), PortId(0), arrival());
        }
        assert_eq!((trace.rows(), trace.stopped()), (3, true));
        assert!(trace.note().unwrap().starts_with("trace stopped at 3 rows"));
        trace.flush();
        let mut rows = 0;
        trace.drain(|chunk| rows += chunk.rows());
        assert_eq!(rows, 3);
    }
}
