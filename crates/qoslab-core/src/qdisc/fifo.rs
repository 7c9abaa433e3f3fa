//! FIFO with tail drop — the IOS output hold queue, Linux `pfifo`/`bfifo` — or with random
//! early detection in front of the tail (IOS interface `random-detect`, Linux `red`).
//!
//! Packets leave in arrival order. An arriving packet that would exceed the limit (packets
//! or bytes) is dropped ("tail drop"). A byte limit is Linux's `bfifo`, and counts each
//! packet as the device holds it (`qdisc_pkt_len`: on Ethernet links the 14-byte MAC header
//! too, [`super::linux_charge`]). The default limit, 40 packets, is the IOS output hold
//! queue default (Cisco `hold-queue` command reference; `docs/reference/ios-defaults.md`). With
//! `random_detect`, arrivals first meet a RED/WRED/RIO dropper ([`crate::aqm`]). Cost: O(1)
//! per packet.

use super::class_queue::ClassQueue;
use super::packet_queue::QueueLimit;
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::aqm::RedSpec;
use crate::config::error::Issue;
use crate::measure::QdiscCtx;
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
    /// Random early detection before the tail (IOS `random-detect`): RED, WRED or RIO.
    pub random_detect: Option<RedSpec>,
}

/// A tail-drop FIFO.
#[derive(Clone, Debug)]
pub struct Fifo {
    queue: ClassQueue,
}

impl QdiscKind for Fifo {
    const KIND: &'static str = "fifo";
    const DEPENDS_ON_BANDWIDTH: bool = false;
    type Params = FifoParams;

    /// Builds from `params` found at key path `at` for `interface`.
    fn build(
        params: &Self::Params,
        at: &str,
        interface: Interface,
        _node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let red = interface.dropper(params.random_detect.as_ref(), at, 0)?;
        // A byte limit is Linux's `bfifo`, which counts the packet as the device holds it;
        // IOS's hold queue counts packets.
        let queue = ClassQueue::new(params.limit.unwrap_or(DEFAULT_LIMIT), red)
            .counting_header(interface.device_header_bytes);
        Ok(Fifo { queue })
    }
}

impl Fifo {
    /// Whether nothing is queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Lets `packet` through if it would leave at once, as Linux lets a packet bypass an
    /// empty work-conserving queue (`TCQ_F_CAN_BYPASS`, `net/core/dev.c`): when the queue
    /// is empty, has no dropper and has room for it. It is then counted as enqueued and
    /// dequeued at once, exactly as a pass through the queue would count it, and the caller
    /// hands it on. Returns whether it was let through.
    #[inline(always)]
    pub fn pass_through(&mut self, packet: &Packet, ctx: &mut QdiscCtx) -> bool {
        let passes =
            self.queue.is_empty() && !self.queue.has_dropper() && !self.queue.is_full_for(packet.size_bytes);
        if passes {
            ctx.passed_through(0, packet);
        }
        passes
    }
}

impl Qdisc for Fifo {
    fn class_names(&self) -> Vec<String> {
        vec!["fifo".to_owned()]
    }

    // Inlined into the port (through `AnyQdisc`): FIFO is most ports' discipline.
    #[inline(always)]
    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        self.queue.offer(packet, 0, ctx);
    }

    #[inline(always)]
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        match self.queue.pop(ctx.now) {
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

    fn take_packets(&mut self) -> Vec<Packet> {
        self.queue.take_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::DropReason;
    use crate::qdisc::testing::{harness, packet, INTERFACE};
    use crate::qdisc::{AnyQdisc, PolicySpec};

    fn fifo(limit: Option<QueueLimit>) -> Fifo {
        Fifo::build(&FifoParams { limit, random_detect: None }, "p", INTERFACE, &|_| None).unwrap()
    }

    #[test]
    fn an_empty_fifo_is_surely_empty_and_asking_it_changes_nothing() {
        // With a WRED dropper, whose average and count are state: a dequeue of the empty
        // queue leaves the discipline as it was, so the port may skip it.
        let red = serde_json::from_value(serde_json::json!({})).unwrap();
        let params = FifoParams { limit: None, random_detect: Some(red) };
        let mut q = AnyQdisc::Fifo(Fifo::build(&params, "p", INTERFACE, &|_| None).unwrap());
        let mut h = harness(1);
        assert!(q.surely_empty());
        for id in 0..3 {
            q.enqueue(packet(id, 1500, 0), &mut h.ctx());
            assert!(!q.surely_empty());
        }
        while let Dequeue::Packet(_) = q.dequeue(&mut h.ctx()) {}
        assert!(q.surely_empty());
        let before = format!("{q:?}");
        assert_eq!(q.dequeue(&mut h.ctx()), Dequeue::Empty);
        assert_eq!(format!("{q:?}"), before);
        let wfq = PolicySpec::Wfq(serde_json::from_value(serde_json::json!({})).unwrap());
        assert!(!wfq.build("w", INTERFACE, &|_| None).unwrap().surely_empty(), "only a FIFO is known empty");
    }

    #[test]
    fn a_packet_passes_an_empty_fifo_counted_as_a_trip_through_it() {
        // The same arrival, through the queue and let through: the same counters.
        let mut through = harness(1);
        let mut q = fifo(None);
        q.enqueue(packet(0, 700, 0), &mut through.ctx());
        assert!(matches!(q.dequeue(&mut through.ctx()), Dequeue::Packet(p) if p.id == 0));
        let mut passed = harness(1);
        assert!(q.pass_through(&packet(0, 700, 0), &mut passed.ctx()));
        assert!(q.is_empty(), "a packet let through is not queued");
        assert_eq!(format!("{:?}", passed.classes), format!("{:?}", through.classes));
        assert_eq!(format!("{:?}", passed.port), format!("{:?}", through.port));
        assert_eq!(passed.classes[0].dequeued_packets, 1);

        // Not let through: a packet behind others, one a byte limit would refuse, any
        // packet of a queue with a dropper (its average must see every arrival).
        let mut h = harness(1);
        q.enqueue(packet(1, 700, 0), &mut h.ctx());
        assert!(!q.pass_through(&packet(2, 700, 0), &mut h.ctx()));
        assert!(!fifo(Some(QueueLimit::Bytes(500))).pass_through(&packet(3, 700, 0), &mut h.ctx()));
        let red = serde_json::from_value(serde_json::json!({})).unwrap();
        let params = FifoParams { limit: None, random_detect: Some(red) };
        let mut wred = Fifo::build(&params, "p", INTERFACE, &|_| None).unwrap();
        assert!(!wred.pass_through(&packet(4, 700, 0), &mut h.ctx()));
        assert_eq!(h.classes[0].enqueued_packets, 1, "refusals count nothing");
    }

    #[test]
    fn default_limit_is_the_ios_hold_queue() {
        let fifo = fifo(None);
        assert_eq!(fifo.queue.limit(), QueueLimit::Packets(40));
    }

    #[test]
    fn order_and_tail_drop_in_packets_and_bytes() {
        for limit in [QueueLimit::Packets(3), QueueLimit::Bytes(300)] {
            let mut fifo = fifo(Some(limit));
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
