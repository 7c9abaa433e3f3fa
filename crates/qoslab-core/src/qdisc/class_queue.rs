//! A class's queue with its drop policy: a bounded FIFO that refuses arrivals by tail drop,
//! or first by a RED-family dropper ([`crate::aqm::Red`]) and then by tail drop.
//!
//! This is the queue of every discipline whose classes accept `random_detect` (FIFO,
//! CBQ, DRR, HTB, MDRR). It keeps the books through [`QdiscCtx`] on arrival — enqueued,
//! dropped (with the reason) or ECN-marked — and tells the dropper about each departure so
//! its average can decay over idle periods.

use super::packet_queue::{PacketQueue, QueueLimit};
use crate::aqm::{Admission, Red};
use crate::measure::DropReason;
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use crate::time::SimTime;

/// A bounded FIFO with tail drop or random early detection.
#[derive(Clone, Debug)]
pub struct ClassQueue {
    packets: PacketQueue,
    red: Option<Red>,
}

impl ClassQueue {
    /// A tail-drop queue of `limit`, with `red` in front of the tail if given.
    pub fn new(limit: QueueLimit, red: Option<Red>) -> Self {
        ClassQueue { packets: PacketQueue::new(limit), red }
    }

    /// The queue with its byte limit counting `header_bytes` more per packet
    /// ([`PacketQueue::counting_header`]).
    pub fn counting_header(self, header_bytes: u32) -> Self {
        ClassQueue { packets: self.packets.counting_header(header_bytes), ..self }
    }

    /// Offers `packet`, which belongs to class `class`: queues it or drops it, counting
    /// either through `ctx`. Returns whether it was queued.
    #[inline(always)]
    pub fn offer(&mut self, packet: Packet, class: usize, ctx: &mut QdiscCtx) -> bool {
        let full = self.packets.is_full_for(packet.size_bytes);
        match &mut self.red {
            None if full => {
                ctx.drop_arrival(class, packet, DropReason::TailDrop);
                false
            }
            // Queued where it is, rather than moved through the dropper's answer.
            None => self.accept(packet, class, ctx),
            Some(red) => match red.admit(packet, self.packets.len() as u64, full, class, ctx) {
                Admission::Accept(packet) => self.accept(packet, class, ctx),
                Admission::Dropped => false,
            },
        }
    }

    /// Queues `packet` of class `class`, counted through `ctx`.
    #[inline(always)]
    fn accept(&mut self, packet: Packet, class: usize, ctx: &mut QdiscCtx) -> bool {
        ctx.enqueued(class, &packet);
        self.packets.push(packet);
        true
    }

    /// Drops packets from the head until a packet of `size_bytes` fits (ALTQ's drop-head
    /// queues), counting them through `ctx` as tail drops of class `class`.
    pub fn drop_head_for_room(&mut self, size_bytes: u32, class: usize, ctx: &mut QdiscCtx) {
        while self.packets.is_full_for(size_bytes) {
            match self.pop(ctx.now) {
                Some(old) => ctx.drop_queued(class, old, DropReason::TailDrop),
                None => return,
            }
        }
    }

    /// Removes the oldest packet at `now` (the caller counts it as dequeued).
    #[inline(always)]
    pub fn pop(&mut self, now: SimTime) -> Option<Packet> {
        if let Some(red) = &mut self.red {
            // The dropper hears of the departure before it is made, with the backlog after
            // it, so that the packet leaves the queue straight for the caller.
            let head = self.packets.head()?;
            red.dequeued(head, self.packets.len() as u64 - 1, now);
        }
        self.packets.pop()
    }

    /// Whether a packet of `size_bytes` would exceed the limit.
    #[inline]
    pub fn is_full_for(&self, size_bytes: u32) -> bool {
        self.packets.is_full_for(size_bytes)
    }

    /// The size of the oldest packet, bytes.
    #[inline]
    pub fn head_size_bytes(&self) -> Option<u32> {
        self.packets.head_size_bytes()
    }

    /// Removes every packet, oldest first, leaving the dropper's average as it is (the
    /// queue is being discarded).
    pub fn take_all(&mut self) -> Vec<Packet> {
        self.packets.take_all()
    }

    /// Packets held.
    #[inline]
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    /// Whether nothing is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// The configured limit.
    pub fn limit(&self) -> QueueLimit {
        self.packets.limit()
    }

    /// Whether a RED-family dropper guards the queue.
    pub fn has_dropper(&self) -> bool {
        self.red.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::Rng;
    use crate::qdisc::testing::{harness, packet};

    #[test]
    fn tail_drop_without_a_dropper() {
        let mut q = ClassQueue::new(QueueLimit::Packets(2), None);
        let mut h = harness(1);
        let queued: Vec<bool> = (0..3).map(|id| q.offer(packet(id, 100, 0), 0, &mut h.ctx())).collect();
        assert_eq!(queued, [true, true, false]);
        assert_eq!((h.classes[0].enqueued_packets, h.classes[0].dropped_for(DropReason::TailDrop)), (2, 1));
        assert_eq!(q.pop(SimTime::ZERO).map(|p| p.id), Some(0));
    }

    #[test]
    fn the_dropper_sees_the_queue_and_its_departures() {
        // Classic RED with thresholds 1..2 and weight 1/2: the queue of 3 pushes the
        // average past the maximum, so the fourth arrival is a forced drop, not a tail drop.
        let (value, _) = crate::config::yaml::parse(
            "{based_on: none, min: 1, max: 2, denominator: 1, exponential_weighting_constant: 1}",
        )
        .unwrap();
        let red =
            Red::build(&serde_json::from_value(value).unwrap(), "r", Rng::from_seed_words(1, 2)).unwrap();
        let mut q = ClassQueue::new(QueueLimit::Packets(100), Some(red));
        let mut h = harness(1);
        for id in 0..6 {
            q.offer(packet(id, 100, 0), 0, &mut h.ctx());
        }
        assert!(h.classes[0].dropped_for(DropReason::RedForced) >= 1);
        assert_eq!(h.classes[0].dropped_for(DropReason::TailDrop), 0);
        while q.pop(SimTime::ZERO).is_some() {}
        assert!(q.is_empty());
    }
}
