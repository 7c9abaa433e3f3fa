//! FIFO with tail drop — the IOS output hold queue, Linux `pfifo`/`bfifo`.
//!
//! Packets leave in arrival order. An arriving packet that would exceed the limit (packets
//! or bytes) is dropped ("tail drop"). The default limit, 40 packets, is the IOS output hold
//! queue default (`qos-behaviour.md` A.1, Cisco `hold-queue` command reference). Cost: O(1)
//! per packet.

use super::ctx::QdiscCtx;
use super::packet_queue::{PacketQueue, QueueLimit};
use super::{Dequeue, Qdisc};
use crate::measure::DropReason;
use crate::packet::Packet;
use schemars::JsonSchema;
use serde::Deserialize;

/// Default FIFO limit: the IOS output hold queue, 40 packets.
pub const DEFAULT_LIMIT: QueueLimit = QueueLimit::Packets(40);

/// Parameters of a FIFO.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FifoParams {
    /// Queue limit: packets (`40`), bytes (`"64kB"`) or `"unlimited"`. Default 40 packets.
    pub limit: Option<QueueLimit>,
}

/// A tail-drop FIFO.
#[derive(Clone, Debug)]
pub struct Fifo {
    queue: PacketQueue,
}

impl Fifo {
    /// The `kind` of this discipline in scenarios.
    pub const KIND: &'static str = "fifo";

    /// A FIFO with `params`.
    pub fn new(params: &FifoParams) -> Self {
        Fifo { queue: PacketQueue::new(params.limit.unwrap_or(DEFAULT_LIMIT)) }
    }
}

impl Qdisc for Fifo {
    fn class_names(&self) -> Vec<String> {
        vec!["fifo".to_owned()]
    }

    #[inline]
    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        if self.queue.is_full_for(packet.size_bytes) {
            ctx.drop_arrival(0, packet, DropReason::TailDrop);
        } else {
            ctx.enqueued(0, &packet);
            self.queue.push(packet);
        }
    }

    #[inline]
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        match self.queue.pop() {
            Some(packet) => {
                ctx.dequeued(0, &packet);
                Dequeue::Packet(packet)
            }
            None => Dequeue::Empty,
        }
    }

    fn len_packets(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet};

    #[test]
    fn default_limit_is_the_ios_hold_queue() {
        let fifo = Fifo::new(&FifoParams { limit: None });
        assert_eq!(fifo.queue.limit(), QueueLimit::Packets(40));
    }

    #[test]
    fn order_and_tail_drop_in_packets_and_bytes() {
        for limit in [QueueLimit::Packets(3), QueueLimit::Bytes(300)] {
            let mut fifo = Fifo::new(&FifoParams { limit: Some(limit) });
            let mut h = harness(1);
            for id in 0..5 {
                fifo.enqueue(packet(id, 100, 0), &mut h.ctx());
            }
            assert_eq!(h.dropped, 2, "{limit:?}");
            let order: Vec<u64> = std::iter::from_fn(|| match fifo.dequeue(&mut h.ctx()) {
                Dequeue::Packet(p) => Some(p.id),
                _ => None,
            })
            .collect();
            assert_eq!(order, vec![0, 1, 2], "{limit:?}");
            assert_eq!(h.classes[0].dropped_for(DropReason::TailDrop), 2);
        }
    }
}
