//! What a discipline sees of the world while it works: the time, the link rate, and the
//! only ways to account for packets (enqueue, dequeue, drop).
//!
//! Disciplines decide; the context keeps the books. Every call updates the class counters,
//! the port totals and — for drops — the flow's statistics and the run's drop total used by
//! the conservation check. A discipline never counts anything itself.

use crate::measure::{DropReason, FlowStats, QueueStats};
use crate::packet::Packet;
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
    classes: &'a mut [QueueStats],
    port: &'a mut QueueStats,
    flows: &'a mut [FlowStats],
    dropped_packets: &'a mut u64,
}

impl<'a> QdiscCtx<'a> {
    /// A context over the port's class and total counters and the run's flow statistics.
    pub fn new(
        now: SimTime,
        rate_bps: u64,
        classes: &'a mut [QueueStats],
        port: &'a mut QueueStats,
        flows: &'a mut [FlowStats],
        dropped_packets: &'a mut u64,
    ) -> Self {
        QdiscCtx { now, rate_bps, ring_has_room: false, classes, port, flows, dropped_packets }
    }

    /// `packet` was accepted into class `class`.
    #[inline]
    pub fn enqueued(&mut self, class: usize, packet: &Packet) {
        self.classes[class].on_enqueue(self.now, packet.size_bytes);
        self.port.on_enqueue(self.now, packet.size_bytes);
    }

    /// `packet` left class `class` towards the transmit ring.
    #[inline]
    pub fn dequeued(&mut self, class: usize, packet: &Packet) {
        self.classes[class].on_dequeue(self.now, packet.size_bytes);
        self.port.on_dequeue(self.now, packet.size_bytes);
    }

    /// A packet of class `class` was marked CE instead of being dropped (RFC 3168); the
    /// discipline has already rewritten its ECN field.
    #[inline]
    pub fn ecn_marked(&mut self, class: usize) {
        self.classes[class].on_ecn_mark();
        self.port.on_ecn_mark();
    }

    /// `packet`, arriving for class `class`, is refused; it leaves the network here.
    #[inline]
    pub fn drop_arrival(&mut self, class: usize, packet: Packet, reason: DropReason) {
        self.classes[class].on_drop_arrival(reason, packet.size_bytes);
        self.port.on_drop_arrival(reason, packet.size_bytes);
        self.count_drop(&packet, reason);
    }

    /// `packet`, already queued in class `class`, is discarded to make room (WFQ's
    /// congestive discard); it leaves the network here.
    #[inline]
    pub fn drop_queued(&mut self, class: usize, packet: Packet, reason: DropReason) {
        self.classes[class].on_drop_queued(self.now, reason, packet.size_bytes);
        self.port.on_drop_queued(self.now, reason, packet.size_bytes);
        self.count_drop(&packet, reason);
    }

    #[inline]
    fn count_drop(&mut self, packet: &Packet, reason: DropReason) {
        *self.dropped_packets += 1;
        if packet.counted {
            self.flows[packet.flow as usize].on_dropped(packet, reason);
        }
    }
}
