//! What a discipline sees of the world while it works: the time, the link rate, and the
//! only ways to account for packets (enqueue, dequeue, drop).
//!
//! Disciplines decide; the context keeps the books. Every call updates the class counters,
//! the port totals and — for drops — the flow's statistics and the run's drop total used by
//! the conservation check, and frees the dropped packet's segment in the run's
//! [`SegmentStore`]. A discipline never counts anything itself.
//!
//! A parent that must know a child's next packet before it lets it go (a shaper over a child
//! policy waits for credit for that packet's size) takes it from the child through
//! [`QdiscCtx::dequeue_held`]: the child's `dequeued` is then not counted but noted, the
//! packet stays counted in its class and in the port until the parent really sends it
//! and counts it with [`QdiscCtx::dequeued`]. So every packet a discipline holds, its
//! own or one taken from a child, is in exactly one class backlog.
//!
//! The port's totals are the sum of its classes'. A discipline of one class has the same
//! totals as its class, event for event: the port then keeps them in the class alone
//! (its context has no totals of its own) and copies them out when they are read.

use crate::ids::PortId;
use crate::measure::trace::{Row, TraceEvent};
use crate::measure::{DropReason, Observers, QueueStats};
use crate::packet::{Packet, SegmentStore};
use crate::time::SimTime;

/// The context of one `enqueue` or `dequeue` call.
pub struct QdiscCtx<'a> {
    /// The current simulated time.
    pub now: SimTime,
    /// The egress link's current physical rate, bit/s.
    pub rate_bps: u64,
    /// During `enqueue`: whether the transmit ring could take a packet right now, i.e. the
    /// interface is not congested in the IOS sense (LLQ's conditional policer asks this).
    pub ring_has_room: bool,
    /// The port, for the per-packet trace (None outside a port).
    pub port: Option<PortId>,
    classes: &'a mut [QueueStats],
    /// The port's totals; `None` when its one class keeps them.
    port_stats: Option<&'a mut QueueStats>,
    observers: &'a mut Observers,
    dropped_packets: &'a mut u64,
    /// The TCP headers of the segments on the network (read by the trace, freed by drops).
    segments: &'a mut SegmentStore,
    /// The port's count of 64-bit random outputs its droppers drew.
    random_draws: &'a mut u64,
    /// Inside [`QdiscCtx::dequeue_held`]: a dequeue is noted, not counted.
    holding: bool,
    /// The class of the packet dequeued while holding.
    held_class: Option<usize>,
}

/// Where and when a discipline works: the time, the link rate, its port and whether the
/// port's transmit ring has room.
#[derive(Copy, Clone, Debug)]
pub struct Place {
    /// The current simulated time.
    pub now: SimTime,
    /// The egress link's current physical rate, bit/s.
    pub rate_bps: u64,
    /// The port (None outside a port).
    pub port: Option<PortId>,
    /// Whether the transmit ring could take a packet right now.
    pub ring_has_room: bool,
}

impl<'a> QdiscCtx<'a> {
    /// A context at `place` over the port's class and total counters (`None` when its one
    /// class keeps the totals), the run's flow statistics, drop total and segments.
    pub fn new(
        place: Place,
        classes: &'a mut [QueueStats],
        port: Option<&'a mut QueueStats>,
        observers: &'a mut Observers,
        dropped_packets: &'a mut u64,
        segments: &'a mut SegmentStore,
        random_draws: &'a mut u64,
    ) -> Self {
        QdiscCtx {
            now: place.now,
            rate_bps: place.rate_bps,
            ring_has_room: place.ring_has_room,
            port: place.port,
            classes,
            port_stats: port,
            observers,
            dropped_packets,
            segments,
            random_draws,
            holding: false,
            held_class: None,
        }
    }

    /// `packet` was accepted into class `class`.
    #[inline(always)]
    pub fn enqueued(&mut self, class: usize, packet: &Packet) {
        self.classes[class].on_enqueue(self.now, packet.size_bytes);
        if let Some(port) = &mut self.port_stats {
            port.on_enqueue(self.now, packet.size_bytes);
        }
    }

    /// `packet` left class `class` towards the transmit ring.
    #[inline(always)]
    pub fn dequeued(&mut self, class: usize, packet: &Packet) {
        if self.holding {
            debug_assert!(self.held_class.is_none(), "one dequeue hands out one packet");
            self.held_class = Some(class);
            return;
        }
        self.classes[class].on_dequeue(self.now, packet.size_bytes);
        if let Some(port) = &mut self.port_stats {
            port.on_dequeue(self.now, packet.size_bytes);
        }
        self.trace(TraceEvent::Dequeue, class, packet, None);
    }

    /// A packet of class `class` was enqueued and handed out at once: counted as
    /// [`QdiscCtx::enqueued`] then [`QdiscCtx::dequeued`] would count it.
    #[inline(always)]
    pub fn passed_through(&mut self, class: usize, packet: &Packet) {
        debug_assert!(!self.holding, "a packet let through is handed out, not held");
        self.classes[class].on_pass_through(self.now, packet.size_bytes);
        if let Some(port) = &mut self.port_stats {
            port.on_pass_through(self.now, packet.size_bytes);
        }
        self.trace(TraceEvent::Dequeue, class, packet, None);
    }

    /// A packet of class `class` was marked CE instead of being dropped (RFC 3168); the
    /// discipline has already rewritten its ECN field.
    #[inline]
    pub fn ecn_marked(&mut self, class: usize) {
        self.classes[class].on_ecn_mark();
        if let Some(port) = &mut self.port_stats {
            port.on_ecn_mark();
        }
    }

    /// Runs `dequeue`, a child discipline's, for a parent that holds the packet it hands
    /// out: the packet is not counted as dequeued, and stays in its class's and the port's
    /// backlog until the parent counts it with [`QdiscCtx::dequeued`] as it really leaves.
    /// Returns the child's answer and, with a packet, its class. Drops inside the child are
    /// counted as usual. Nests: a held child may itself hold a packet of its own child, and
    /// a hold inside another keeps the outer one's class.
    pub fn dequeue_held<T>(&mut self, dequeue: impl FnOnce(&mut Self) -> T) -> (T, Option<usize>) {
        let outer = std::mem::replace(&mut self.holding, true);
        let outer_class = self.held_class.take();
        let answer = dequeue(self);
        self.holding = outer;
        (answer, std::mem::replace(&mut self.held_class, outer_class))
    }

    /// `packet`, arriving for class `class`, is refused; it leaves the network here.
    #[inline]
    pub fn drop_arrival(&mut self, class: usize, packet: Packet, reason: DropReason) {
        self.classes[class].on_drop_arrival(self.now, reason, packet.size_bytes);
        if let Some(port) = &mut self.port_stats {
            port.on_drop_arrival(self.now, reason, packet.size_bytes);
        }
        self.count_drop(class, packet, reason);
    }

    /// `packet`, already queued in class `class`, is discarded without being sent (WFQ's
    /// highest-SN congestive discard, FQ-CoDel's CoDel and overflow drops, CBQ's head drop, an
    /// oversize packet at the head of a shaper's child); it leaves the network here.
    #[inline]
    pub fn drop_queued(&mut self, class: usize, packet: Packet, reason: DropReason) {
        self.classes[class].on_drop_queued(self.now, reason, packet.size_bytes);
        if let Some(port) = &mut self.port_stats {
            port.on_drop_queued(self.now, reason, packet.size_bytes);
        }
        self.count_drop(class, packet, reason);
    }

    /// A dropper drew `draws` 64-bit random outputs.
    #[inline]
    pub fn drew_random(&mut self, draws: u64) {
        *self.random_draws += draws;
    }

    /// `packet` of class `class` leaves the network, dropped for `reason`: counted for the
    /// run and its flow, traced, and its segment's slot freed.
    #[inline]
    fn count_drop(&mut self, class: usize, packet: Packet, reason: DropReason) {
        self.trace(TraceEvent::Drop, class, &packet, Some(reason));
        self.observers.on_dropped(&packet, reason, self.now, self.dropped_packets, self.segments);
    }

    /// Records `event` of `packet` in class `class` in the per-packet trace, if the run has
    /// one and it traces this port and flow.
    #[inline(always)]
    fn trace(&mut self, event: TraceEvent, class: usize, packet: &Packet, reason: Option<DropReason>) {
        if self.observers.trace.is_some() {
            self.trace_row(event, class, packet, reason);
        }
    }

    /// [`QdiscCtx::trace`] for a run with a trace: out of line, as most runs have none.
    #[inline(never)]
    fn trace_row(&mut self, event: TraceEvent, class: usize, packet: &Packet, reason: Option<DropReason>) {
        let Some(trace) = &mut self.observers.trace else { return };
        let Some(port) = self.port.filter(|&port| trace.traces(port, packet)) else { return };
        let row = Row {
            event,
            class: trace.class_code(port, class),
            queue_packets: self
                .port_stats
                .as_ref()
                .map_or(self.classes[0].backlog_packets, |p| p.backlog_packets)
                as u32,
            reason,
        };
        trace.at_port(self.now, packet, self.segments, port, row);
    }
}
