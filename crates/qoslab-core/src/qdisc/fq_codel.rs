//! FQ-CoDel — flow queuing with CoDel active queue management (RFC 8290; CoDel: RFC 8289),
//! as Linux `fq_codel` runs it.
//!
//! **Flows.** Each arriving packet is hashed on its 5-tuple and DSCP (the key and hash of
//! [`crate::classify::flow_hash`]) into one of `flows` buckets; each bucket is a FIFO
//! whose packets carry their enqueue time. All buckets together hold at most `limit`
//! packets. When an arrival takes the total above the limit, packets are dropped from the
//! head of the bucket with the most bytes (the "fattest" flow, RFC 8290 §4.1): up to 64 at a
//! time, stopping once half of that bucket's bytes are gone — Linux's batch drop, which
//! spares the scan for the next arrivals. These drops have reason `overlimit`.
//!
//! **Scheduler** (RFC 8290 §4.2–4.3). Deficit round robin over the buckets with a byte
//! `quantum`, and two lists. A bucket that becomes backlogged while on neither list joins
//! the tail of the *new* list with a deficit of one quantum. To dequeue: take the first
//! bucket of the new list, or else of the old list. If its deficit is not positive it gets
//! another quantum and moves to the tail of the old list, and the choice starts over.
//! Otherwise CoDel takes a packet from it; the packet's size comes off the deficit and it is
//! sent. If CoDel finds the bucket empty, a bucket taken from the new list moves to the tail
//! of the old list when the old list is not empty (so that a flow cannot gain priority by
//! emptying and refilling at once), and otherwise the bucket leaves the lists. A sparse flow —
//! one that sends less than a quantum between the moments its bucket empties — thus always
//! comes back through the new list and is served before the bulk flows.
//!
//! **CoDel** (RFC 8289; [`crate::aqm::codel`]) runs per bucket, at dequeue. The bucket is
//! *above target* when the sojourn time of its head packet is at least `target` and the
//! whole discipline — all buckets together, not this bucket alone — still holds more than
//! one MTU (1500 B) after the packet is taken. That is how Linux runs it:
//! `fq_codel_dequeue` (`net/sched/sch_fq_codel.c`) hands `codel_dequeue` the qdisc's
//! backlog (`sch->qstats.backlog`), and `codel_should_drop` (`include/net/codel_impl.h`)
//! compares that with the MTU; RFC 8289's reference code tests the queue CoDel manages,
//! which under FQ-CoDel would be the bucket. A flow that keeps less than one MTU queued
//! can therefore be dropped or marked while other flows fill the link. Drops have reason
//! `codel`; with `ecn: true`, ECN-capable packets are marked instead, as the CoDel module
//! describes. Overlimit drops are never replaced by marks.
//!
//! **Bytes** are counted as the kernel counts them, `qdisc_pkt_len(skb)`: the packet as the
//! device holds it, on an Ethernet link the 14-byte header and the IP packet
//! ([`super::linux_charge`]) — in the buckets' and the discipline's backlog (the fattest
//! bucket, CoDel's one-MTU test) and in the deficits.
//!
//! Results show one class, `fq_codel`, for the whole discipline. Per-packet work is O(1),
//! except the scan of all buckets for the fattest one when the limit is exceeded. Packets
//! live in a pool allocated once at build time (`limit` + 1 slots) and linked per bucket,
//! so the hot path never allocates.

use super::linux_charge::LinuxCharge;
use super::packet_queue::RESERVED_PACKETS;
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::aqm::codel::{Codel, CodelConfig, CodelQueue};
use crate::classify::flow_hash::FlowHashMemo;
use crate::config::error::{join_path, Issue};
use crate::measure::DropReason;
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use crate::time::{SimTime, NS_PER_MS};
use crate::units::{Duration, Size};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// Default number of flow buckets (Linux `flows 1024`).
pub const DEFAULT_FLOWS: u32 = 1024;
/// Largest number of flow buckets Linux accepts.
pub const MAX_FLOWS: u32 = 65_536;
/// Default DRR quantum, bytes (Linux: the device MTU plus its 14-byte Ethernet header).
pub const DEFAULT_QUANTUM_BYTES: u64 = 1514;
/// Default total limit, packets (Linux `limit 10240`).
pub const DEFAULT_LIMIT_PACKETS: u32 = 10_240;
/// Default CoDel target, ns (RFC 8289 §4.4: 5 ms).
pub const DEFAULT_TARGET_NS: u64 = 5 * NS_PER_MS;
/// Default CoDel interval, ns (RFC 8289 §4.3: 100 ms).
pub const DEFAULT_INTERVAL_NS: u64 = 100 * NS_PER_MS;
/// While the discipline holds at most this many bytes, no bucket is above target (one IP
/// MTU; Linux compares its backlog of frames with the device MTU plus the Ethernet header,
/// the same one full-sized packet).
pub const MTU_BYTES: u64 = 1500;
/// Most packets dropped from the fattest bucket at one overflow (Linux `drop_batch 64`).
pub const DROP_BATCH_PACKETS: u32 = 64;
/// The class name results show.
pub const CLASS_NAME: &str = "fq_codel";

/// Parameters of an FQ-CoDel policy.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelParams {
    /// Flow buckets (default 1024, at most 65536).
    pub flows: Option<u32>,
    /// DRR quantum (default 1514 B).
    pub quantum: Option<Size>,
    /// Packets all buckets may hold together (default 10240).
    pub limit: Option<u32>,
    /// CoDel target sojourn time (default 5 ms).
    pub target: Option<Duration>,
    /// CoDel interval (default 100 ms).
    pub interval: Option<Duration>,
    /// Mark ECN-capable packets CE instead of dropping them (default true, as Linux).
    pub ecn: Option<bool>,
}

/// No slot: the end of a bucket's chain.
const NONE: u32 = u32::MAX;

/// A pool slot: a packet, its enqueue time and the next slot of its bucket.
#[derive(Copy, Clone, Debug)]
struct Slot {
    packet: Packet,
    enqueued: SimTime,
    next: u32,
}

/// Which scheduling list a bucket is on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

/// One flow bucket.
#[derive(Copy, Clone, Debug)]
struct Bucket {
    head: u32,
    tail: u32,
    packets: u32,
    bytes: u64,
    deficit_bytes: i64,
    list: List,
    codel: Codel,
}

/// An FQ-CoDel discipline.
#[derive(Clone, Debug)]
pub struct FqCodel {
    buckets: Vec<Bucket>,
    flow_hashes: FlowHashMemo,
    slots: Vec<Slot>,
    free: u32,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    quantum_bytes: i64,
    limit_packets: u32,
    codel: CodelConfig,
    packets: u32,
    /// Bytes held by all buckets together (the backlog CoDel compares with the MTU), as
    /// charged.
    bytes: u64,
    /// What a packet is charged, bytes.
    charge: LinuxCharge,
}

impl QdiscKind for FqCodel {
    const KIND: &'static str = "fq_codel";
    const DEPENDS_ON_BANDWIDTH: bool = false;
    type Params = FqCodelParams;

    /// Builds from `params` found at key path `at` for `interface`.
    fn build(
        params: &Self::Params,
        at: &str,
        interface: Interface,
        _node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let flows = params.flows.unwrap_or(DEFAULT_FLOWS);
        if flows == 0 || flows > MAX_FLOWS {
            return Err(Issue::at(join_path(at, "flows"), format!("{flows} flow buckets is not allowed"))
                .hint("use 1 to 65536 (Linux's range); 1024 is the default"));
        }
        let quantum = params.quantum.map_or(DEFAULT_QUANTUM_BYTES, |s| s.0);
        if quantum == 0 || quantum > i32::MAX as u64 {
            return Err(Issue::at(join_path(at, "quantum"), "the quantum must be from 1 B to 2147483647 B")
                .hint("1514B (an Ethernet frame) is the default"));
        }
        let limit = params.limit.unwrap_or(DEFAULT_LIMIT_PACKETS);
        if limit == 0 || limit >= NONE - 1 {
            return Err(Issue::at(join_path(at, "limit"), "the limit must be at least 1 packet")
                .hint("10240 packets is the default"));
        }
        let target_ns = params.target.map_or(DEFAULT_TARGET_NS, |d| d.0);
        let interval_ns = params.interval.map_or(DEFAULT_INTERVAL_NS, |d| d.0);
        if interval_ns == 0 {
            return Err(Issue::at(join_path(at, "interval"), "the interval must be above zero"));
        }
        if target_ns == 0 || target_ns >= interval_ns {
            return Err(Issue::at(
                join_path(at, "target"),
                "the target must be above zero and below the interval",
            )
            .hint("RFC 8289 suggests a target of 5 to 10 % of the interval, e.g. 5ms with 100ms"));
        }
        let empty = Bucket {
            head: NONE,
            tail: NONE,
            packets: 0,
            bytes: 0,
            deficit_bytes: 0,
            list: List::None,
            codel: Codel::default(),
        };
        // The pool grows to one slot beyond the limit (an arrival is stored before the limit
        // is enforced); it starts with at most `RESERVED_PACKETS` slots, so a huge limit
        // costs nothing until packets fill it.
        let capacity = (limit as usize + 1).min(RESERVED_PACKETS);
        let placeholder = crate::packet::Packet {
            id: 0,
            created: SimTime::ZERO,
            flow: crate::ids::FlowId(0),
            dst_node: crate::ids::NodeId(0),
            size_bytes: 0,
            src_addr: 0,
            dst_addr: 0,
            src_port: 0,
            dst_port: 0,
            protocol: 0,
            dscp: 0,
            ecn: 0,
            counted: false,
            hop_slot: crate::packet::NO_HOP,
            hop_in: SimTime::ZERO,
            segment: None,
            fragment: crate::packet::Fragment::Whole,
            outer_overhead_bytes: 0,
            inner_dscp: 0,
        };
        let slots = (0..capacity)
            .map(|i| Slot {
                packet: placeholder,
                enqueued: SimTime::ZERO,
                next: if i + 1 < capacity { i as u32 + 1 } else { NONE },
            })
            .collect();
        Ok(FqCodel {
            buckets: vec![empty; flows as usize],
            flow_hashes: FlowHashMemo::default(),
            slots,
            free: 0,
            new_flows: VecDeque::with_capacity(flows as usize),
            old_flows: VecDeque::with_capacity(flows as usize),
            quantum_bytes: quantum as i64,
            limit_packets: limit,
            codel: CodelConfig {
                target_ns,
                interval_ns,
                mtu_bytes: MTU_BYTES,
                ecn: params.ecn.unwrap_or(true),
            },
            packets: 0,
            bytes: 0,
            charge: LinuxCharge::new(interface.device_header_bytes, None, at)?,
        })
    }
}

impl FqCodel {
    /// The bucket of `packet`.
    #[inline]
    fn bucket_of(&mut self, packet: &Packet) -> usize {
        (self.flow_hashes.hash(packet) % self.buckets.len() as u64) as usize
    }

    /// Removes the head packet of `bucket` with its enqueue time.
    fn pop(&mut self, bucket: usize) -> Option<(Packet, SimTime)> {
        let b = &mut self.buckets[bucket];
        if b.head == NONE {
            return None;
        }
        let index = b.head;
        let slot = self.slots[index as usize];
        b.head = slot.next;
        if b.head == NONE {
            b.tail = NONE;
        }
        b.packets -= 1;
        let charged = self.charge.bytes(slot.packet.size_bytes) as u64;
        b.bytes -= charged;
        self.slots[index as usize].next = self.free;
        self.free = index;
        self.packets -= 1;
        self.bytes -= charged;
        Some((slot.packet, slot.enqueued))
    }

    /// Drops packets from the head of the bucket with the most bytes (Linux's batch).
    fn drop_from_fattest(&mut self, ctx: &mut QdiscCtx) {
        let fattest =
            (0..self.buckets.len()).max_by_key(|&i| (self.buckets[i].bytes, usize::MAX - i)).unwrap_or(0);
        let threshold_bytes = self.buckets[fattest].bytes / 2;
        let mut dropped_bytes = 0u64;
        let mut dropped = 0u32;
        while dropped < DROP_BATCH_PACKETS && dropped_bytes < threshold_bytes.max(1) {
            let Some((packet, _)) = self.pop(fattest) else { break };
            dropped += 1;
            dropped_bytes += self.charge.bytes(packet.size_bytes) as u64;
            ctx.drop_queued(0, packet, DropReason::Overlimit);
        }
    }

    /// CoDel's dequeue on one bucket: the packet to send, if any.
    fn codel_dequeue(&mut self, bucket: usize, ctx: &mut QdiscCtx) -> Option<Packet> {
        let mut codel = self.buckets[bucket].codel;
        let config = self.codel;
        let packet = codel.dequeue(&mut BucketQueue { fq_codel: self, bucket }, &config, 0, ctx);
        self.buckets[bucket].codel = codel;
        packet
    }
}

/// One bucket as the queue CoDel manages, with the whole discipline's backlog.
struct BucketQueue<'a> {
    fq_codel: &'a mut FqCodel,
    bucket: usize,
}

impl CodelQueue for BucketQueue<'_> {
    #[inline]
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        self.fq_codel.pop(self.bucket)
    }

    #[inline]
    fn backlog_bytes(&self) -> u64 {
        self.fq_codel.bytes
    }
}

impl Qdisc for FqCodel {
    fn class_names(&self) -> Vec<String> {
        vec![CLASS_NAME.to_owned()]
    }

    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        let bucket = self.bucket_of(&packet);
        let charged = self.charge.bytes(packet.size_bytes) as u64;
        ctx.enqueued(0, &packet);
        let index = match self.free {
            NONE => {
                // Every slot is in use and fewer than limit + 1 exist: grow the pool.
                self.slots.push(Slot { packet, enqueued: ctx.now, next: NONE });
                self.slots.len() as u32 - 1
            }
            index => {
                self.free = self.slots[index as usize].next;
                self.slots[index as usize] = Slot { packet, enqueued: ctx.now, next: NONE };
                index
            }
        };
        let b = &mut self.buckets[bucket];
        if b.tail == NONE {
            b.head = index;
        } else {
            self.slots[b.tail as usize].next = index;
        }
        b.tail = index;
        b.packets += 1;
        b.bytes += charged;
        if b.list == List::None {
            b.list = List::New;
            b.deficit_bytes = self.quantum_bytes;
            self.new_flows.push_back(bucket as u32);
        }
        self.packets += 1;
        self.bytes += charged;
        if self.packets > self.limit_packets {
            self.drop_from_fattest(ctx);
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        loop {
            let (bucket, from_new) = match self.new_flows.front() {
                Some(&b) => (b as usize, true),
                None => match self.old_flows.front() {
                    Some(&b) => (b as usize, false),
                    None => return Dequeue::Empty,
                },
            };
            if self.buckets[bucket].deficit_bytes <= 0 {
                self.buckets[bucket].deficit_bytes += self.quantum_bytes;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(bucket as u32);
                self.buckets[bucket].list = List::Old;
                continue;
            }
            match self.codel_dequeue(bucket, ctx) {
                Some(packet) => {
                    self.buckets[bucket].deficit_bytes -= self.charge.bytes(packet.size_bytes) as i64;
                    ctx.dequeued(0, &packet);
                    return Dequeue::Packet(packet);
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                        if self.old_flows.is_empty() {
                            self.buckets[bucket].list = List::None;
                        } else {
                            self.old_flows.push_back(bucket as u32);
                            self.buckets[bucket].list = List::Old;
                        }
                    } else {
                        self.old_flows.pop_front();
                        self.buckets[bucket].list = List::None;
                    }
                }
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.packets as usize
    }

    fn take_packets(&mut self) -> Vec<Packet> {
        let mut packets = Vec::with_capacity(self.packets as usize);
        for bucket in 0..self.buckets.len() {
            while let Some((packet, _)) = self.pop(bucket) {
                packets.push(packet);
            }
        }
        packets
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet, Harness};

    const IFACE: Interface = crate::qdisc::testing::INTERFACE;

    fn build(yaml: &str) -> Result<FqCodel, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let params: FqCodelParams = serde_json::from_value(value).unwrap();
        FqCodel::build(&params, "p", IFACE, &|_| None)
    }

    #[test]
    fn on_ethernet_the_backlog_counts_each_header() {
        let (value, _) = crate::config::yaml::parse("{}").unwrap();
        let params: FqCodelParams = serde_json::from_value(value).unwrap();
        let iface = Interface { device_header_bytes: 14, ..IFACE };
        let mut q = FqCodel::build(&params, "p", iface, &|_| None).unwrap();
        let mut h = harness(1);
        q.enqueue(packet(1, 100, 0), &mut h.ctx());
        q.enqueue(packet(2, 100, 0), &mut h.ctx());
        assert_eq!(q.bytes, 228);
        let sent = dequeue_at(&mut q, &mut h, 0).unwrap();
        assert_eq!(sent.id, 1);
        assert_eq!(q.bytes, 114);
        // The deficit lost the packet's charge: a quantum of 1514 less 114.
        let bucket = q.buckets.iter().find(|b| b.packets == 1).unwrap();
        assert_eq!(bucket.deficit_bytes, 1400);
    }

    fn dequeue_at(q: &mut FqCodel, h: &mut Harness, now_ns: u64) -> Option<Packet> {
        let mut ctx = h.ctx();
        ctx.now = SimTime(now_ns);
        match q.dequeue(&mut ctx) {
            Dequeue::Packet(p) => Some(p),
            Dequeue::Empty | Dequeue::NotBefore(_) => None,
        }
    }

    #[test]
    fn defaults() {
        let q = build("{}").unwrap();
        assert_eq!(q.buckets.len(), 1024);
        assert_eq!(q.quantum_bytes, 1514);
        assert_eq!(q.limit_packets, 10_240);
        assert_eq!((q.codel.target_ns, q.codel.interval_ns), (5_000_000, 100_000_000));
        assert!(q.codel.ecn);
        assert_eq!(q.slots.len(), RESERVED_PACKETS);
        assert_eq!(q.class_names(), ["fq_codel"]);
    }

    /// The pool starts small and grows to the limit: a limit of 4294967293 packets builds
    /// without reserving it, and a queue fills past its first reservation.
    #[test]
    fn the_pool_grows_to_the_limit() {
        assert_eq!(build("{limit: 4294967293}").unwrap().slots.len(), RESERVED_PACKETS);
        let mut q = build("{limit: 3000}").unwrap();
        let mut h = harness(1);
        for id in 1..=3000 {
            q.enqueue(packet(id, 100, 0), &mut h.ctx());
        }
        assert_eq!(q.len_packets(), 3000);
        assert_eq!(q.slots.len(), 3000);
        let ids: Vec<u64> = std::iter::from_fn(|| dequeue_at(&mut q, &mut h, 0)).map(|p| p.id).collect();
        assert_eq!(ids.len(), 3000);
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "one flow leaves in order");
    }

    /// Twenty 1000-byte packets of one flow, all enqueued at time 0.
    fn loaded(ecn: u8, params: &str) -> (FqCodel, Harness) {
        let mut q = build(params).unwrap();
        let mut h = harness(1);
        for id in 1..=20 {
            let mut p = packet(id, 1000, 0);
            p.ecn = ecn;
            q.enqueue(p, &mut h.ctx());
        }
        (q, h)
    }

    #[test]
    fn codel_drop_schedule_by_hand() {
        let (mut q, mut h) = loaded(0, "{ecn: false}");
        let b = q.bucket_of(&packet(0, 0, 0));
        // 10 ms: sojourn 10 ms ≥ 5 ms with 19 000 B left: first_above = 110 ms; sent.
        assert_eq!(dequeue_at(&mut q, &mut h, 10_000_000).unwrap().id, 1);
        // 50 ms: still before first_above; sent.
        assert_eq!(dequeue_at(&mut q, &mut h, 50_000_000).unwrap().id, 2);
        // 110 ms: above target for an interval: packet 3 dropped, 4 sent; dropping with
        // count 1, next drop at 110 + 100 = 210 ms.
        assert_eq!(dequeue_at(&mut q, &mut h, 110_000_000).unwrap().id, 4);
        assert_eq!(q.buckets[b].codel.count, 1);
        assert_eq!(q.buckets[b].codel.drop_next_ns, 210_000_000);
        assert_eq!(dequeue_at(&mut q, &mut h, 209_999_999).unwrap().id, 5);
        // 210 ms: packet 6 dropped, count 2, next drop 210 + 100/√2 = 280.710678 ms.
        assert_eq!(dequeue_at(&mut q, &mut h, 210_000_000).unwrap().id, 7);
        assert_eq!(q.buckets[b].codel.drop_next_ns, 280_710_678);
        assert_eq!(dequeue_at(&mut q, &mut h, 280_710_677).unwrap().id, 8);
        // 280.710678 ms: packet 9 dropped, count 3, next 280.710678 + 57.735026 ms.
        assert_eq!(dequeue_at(&mut q, &mut h, 280_710_678).unwrap().id, 10);
        assert_eq!(q.buckets[b].codel.drop_next_ns, 338_445_704);
        assert_eq!(h.classes[0].dropped_for(DropReason::Codel), 3);
        assert_eq!(h.classes[0].ecn_marked_packets, 0);
        // Drain: the last packet leaves the bucket at or under one MTU, which ends the
        // dropping state.
        while dequeue_at(&mut q, &mut h, 290_000_000).is_some() {}
        assert!(!q.buckets[b].codel.dropping);
        assert_eq!(q.len_packets(), 0);
    }

    #[test]
    fn ecn_capable_packets_are_marked_not_dropped() {
        let (mut q, mut h) = loaded(2, "{}");
        let b = q.bucket_of(&packet(0, 0, 0));
        assert_eq!(dequeue_at(&mut q, &mut h, 10_000_000).unwrap().ecn, 2);
        let p = dequeue_at(&mut q, &mut h, 110_000_000).unwrap();
        assert_eq!((p.id, p.ecn), (2, 3));
        assert_eq!(q.buckets[b].codel.drop_next_ns, 210_000_000);
        let p = dequeue_at(&mut q, &mut h, 210_000_000).unwrap();
        assert_eq!((p.id, p.ecn), (3, 3));
        assert_eq!(q.buckets[b].codel.drop_next_ns, 280_710_678);
        assert_eq!(h.classes[0].ecn_marked_packets, 2);
        assert_eq!(h.classes[0].dropped_for(DropReason::Codel), 0);
    }

    /// The "more than one MTU queued" test looks at the whole discipline, as Linux's
    /// `fq_codel` does. At 0 flow 1 queues two 1000-byte packets and flow 2 ten of 1500 B.
    /// At 10 ms flow 1 (new list) sends its first packet after 10 ms of sojourn; its own
    /// bucket keeps 1000 B, under one MTU, but the discipline keeps 16 000 B: above target,
    /// first_above = 110 ms. At 120 ms its second packet has waited 120 ms and the
    /// discipline still holds 15 000 B: CoDel drops it, the bucket is empty and flow 2's
    /// first packet goes instead. Judged on the bucket alone (1000 B, then 0 B) flow 1
    /// would never be above target and both its packets would be sent.
    #[test]
    fn codel_counts_the_backlog_of_all_buckets_against_the_mtu() {
        let mut q = build("{ecn: false}").unwrap();
        let mut h = harness(1);
        let flow = |id: u64, port: u16, size: u32| {
            let mut p = packet(id, size, 0);
            p.src_port = port;
            p
        };
        for id in 1..=2 {
            q.enqueue(flow(id, 1, 1000), &mut h.ctx());
        }
        for id in 11..=20 {
            q.enqueue(flow(id, 2, 1500), &mut h.ctx());
        }
        let b1 = q.bucket_of(&flow(0, 1, 0));
        assert_ne!(b1, q.bucket_of(&flow(0, 2, 0)));
        assert_eq!(dequeue_at(&mut q, &mut h, 10_000_000).unwrap().id, 1);
        assert_eq!(q.buckets[b1].codel.first_above_ns, 110_000_000);
        assert_eq!(dequeue_at(&mut q, &mut h, 120_000_000).unwrap().id, 11);
        assert_eq!(h.classes[0].dropped_for(DropReason::Codel), 1);
        assert_eq!((q.buckets[b1].packets, q.len_packets()), (0, 9));
    }

    #[test]
    fn sparse_flow_goes_first_and_bulk_flows_share_by_quantum() {
        let mut q = build("{quantum: 1000B}").unwrap();
        let mut h = harness(1);
        let flow = |id: u64, port: u16, size: u32| {
            let mut p = packet(id, size, 0);
            p.src_port = port;
            p
        };
        assert_ne!(q.bucket_of(&flow(0, 1, 0)), q.bucket_of(&flow(0, 2, 0)));
        assert_ne!(q.bucket_of(&flow(0, 3, 0)), q.bucket_of(&flow(0, 2, 0)));
        for id in 1..=4 {
            q.enqueue(flow(id, 1, 1000), &mut h.ctx());
        }
        for id in 11..=14 {
            q.enqueue(flow(id, 2, 500), &mut h.ctx());
        }
        // Flow 1 (new list, deficit 1000) sends 1 and goes to the old list with a fresh
        // quantum; flow 2 sends two 500-byte packets, then each alternates.
        let order: Vec<u64> = (0..4).map(|_| dequeue_at(&mut q, &mut h, 0).unwrap().id).collect();
        assert_eq!(order, [1, 11, 12, 2]);
        // A sparse packet of a third flow joins the new list and goes next.
        q.enqueue(flow(21, 3, 100), &mut h.ctx());
        assert_eq!(dequeue_at(&mut q, &mut h, 0).unwrap().id, 21);
        assert_eq!(dequeue_at(&mut q, &mut h, 0).unwrap().id, 13);
    }

    #[test]
    fn overlimit_drops_from_the_fattest_flow() {
        // Limit 4: flow 1 holds three 1000-byte packets, flow 2 two of 100 B. The fifth
        // packet takes the total to 5: the fattest bucket (flow 1, 3000 B) loses head packets
        // until half its bytes (1500 B) are gone, i.e. two packets.
        let mut q = build("{limit: 4}").unwrap();
        let mut h = harness(1);
        for id in 1..=3 {
            let mut p = packet(id, 1000, 0);
            p.src_port = 1;
            q.enqueue(p, &mut h.ctx());
        }
        for id in 11..=12 {
            let mut p = packet(id, 100, 0);
            p.src_port = 2;
            q.enqueue(p, &mut h.ctx());
        }
        assert_eq!(h.classes[0].dropped_for(DropReason::Overlimit), 2);
        assert_eq!(q.len_packets(), 3);
        let ids: Vec<u64> = std::iter::from_fn(|| dequeue_at(&mut q, &mut h, 0).map(|p| p.id)).collect();
        assert_eq!(ids, [3, 11, 12]);
    }

    #[test]
    fn configuration_errors() {
        let cases = [
            ("{flows: 0}", "p.flows", "not allowed"),
            ("{flows: 70000}", "p.flows", "not allowed"),
            ("{quantum: 0B}", "p.quantum", "from 1 B"),
            ("{limit: 0}", "p.limit", "at least 1"),
            ("{target: 200ms}", "p.target", "below the interval"),
            ("{interval: 0ms}", "p.interval", "above zero"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = build(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
    }
}
