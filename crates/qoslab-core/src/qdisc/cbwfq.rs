//! Class-based WFQ with low-latency queuing — IOS MQC `policy-map` with `bandwidth` and
//! `priority` classes.
//!
//! Packets are classified by the policy's classes in order (first match); what no class
//! matches belongs to `class-default`. Three kinds of class:
//! * **priority** (LLQ, `priority kbps|percent [burst]`): all priority classes feed one
//!   strict-priority queue served before anything else. Each keeps its own token-bucket
//!   policer (rate = its reservation, depth = `burst`, default 200 ms at the rate), applied
//!   only under congestion — when the packet cannot go straight to the transmit ring — so
//!   priority traffic may exceed its rate on an idle link but is held to it when others
//!   compete (Cisco tech note 110850; `docs/reference/ios-defaults.md`).
//! * **bandwidth** (`bandwidth kbps | percent p | remaining percent p`): one FIFO queue per
//!   class (tail drop at `queue_limit`, 64 packets by default, after WRED when the class has
//!   `random_detect` — IOS `random-detect` in the class, [`crate::aqm`]), scheduled by sequence
//!   number ([`super::scfq`]) with weight `constant × interface bandwidth / class bandwidth`
//!   (Cisco TAC's description of pre-HQF CBWFQ; the constant, 64 by default, is not
//!   published and is a parameter). Backlogged classes share the link in proportion to their
//!   bandwidths, idle classes' share goes to the others in the same proportion.
//! * **class-default**: a FIFO with the bandwidth left unreserved (or its own `bandwidth`),
//!   or — with `fair_queue` — flow-based WFQ conversations with weights
//!   32384 / (precedence + 1) in the same sequence-number system, as pre-HQF IOS does.
//!
//! A bandwidth class or class-default may also be **shaped** (`shape`, IOS HQF's `shape
//! average|peak` in a class): its packets then leave no faster than a shaper's credit
//! ([`super::shaper_credit`]) allows, while it keeps competing by sequence number with its
//! weight. The scheduler passes over a class whose head has no credit yet and serves the
//! others (work-conserving for them); when only waiting shaped classes hold packets, the
//! answer is "not before" the earliest instant one of them has its credit. A packet larger
//! than the class's Bc + Be is dropped on arrival (`overlimit`). Priority classes are not
//! shaped: their policer already holds them to their rate.
//!
//! **Schedulers.** The above is the pre-HQF scheduler of IOS 12.3/12.4 mainline
//! (`scheduler: pre-hqf`, the default). With `scheduler: hqf` (classic IOS 12.4(20)T and
//! 15.x) the class queues share in proportion to their bandwidth, the unreserved bandwidth
//! in equal parts among the classes without one ([`super::hqf_policy`]), any class may
//! fair-queue its flows (served equally) and a priority class has a queue of its own. With
//! `scheduler: xe` the class queues are served as
//! IOS XE serves them ([`super::three_parameter`]): each class's `bandwidth` is a minimum
//! served first, and what the link has beyond the minimums goes to the backlogged classes in
//! proportion to their excess weights (`bandwidth_remaining_ratio` or `bandwidth_remaining`,
//! equal by default — class-default included); priority classes sit at level 1 or 2
//! (`priority_level`), level 1 served first; a priority class without a rate is held only by
//! its own `police`; queue limits default to IOS XE's ([`super::xe_policy`]) and may be
//! given in bytes or time ([`super::class_queue_limit`]), and the classes may reserve the
//! whole rate.
//!
//! **Child policies** (HQF and IOS XE: IOS `service-policy` in a class, a hierarchy's middle
//! level, such as one shaped class per site of a hub over each site's LLQ). The class's
//! packets go to its `child`, a policy of this kind whose classes take the class's place in
//! the results (`site/voice`); the class itself competes at its level by its `shape` and
//! its excess share. When the class's queue at the level is empty, the child's class queues
//! hand it their next packet, which then waits for its turn and its class's shaper (one
//! packet, as a shaper holds its child's, [`super::tbf`]). The child's priority classes are
//! served with this level's own, level 1 before level 2, ahead of every class queue and
//! still through their class's shaper: priority propagation, as Cisco's three-level
//! scheduler documents it (Cisco IOS feature guide "MQC Hierarchical Queuing with 3 Level
//! Scheduler", 12.2(31)SB2); IOS XE's engine is not published, and qoslab assumes it does
//! the same (`docs/qdisc/cbwfq.md`). The child's percentages are of
//! its class's shape rate (of this policy's bandwidth for an unshaped class), and its
//! classes' numbers in the results are moved to where they sit among the port's.
//!
//! Percentages are of the interface's QoS bandwidth (IOS `bandwidth` command), not of the
//! physical rate. `remaining` percentages are of what the priority classes leave. When the
//! policy is attached, priority and bandwidth reservations together must not exceed
//! `max_reserved` (75 % by default, IOS `max-reserved-bandwidth`) of the interface bandwidth
//! (`docs/reference/ios-defaults.md`).

mod build;
mod check;
mod queues;
mod rates;
mod spec;

pub use spec::{
    CbwfqParams, ClassSpec, FairQueueSpec, Scheduler, CLASS_DEFAULT, DEFAULT_MAX_RESERVED_PPM,
    DEFAULT_WEIGHT_CONSTANT,
};

use super::cbwfq_plan::ClassPlan;
use super::class_queue_limit::Limit;
use super::packet_queue::QueueLimit;
use super::shaper_credit::ShaperCredit;
use super::wfq::{precedence_weights, IOS_WEIGHT_NUMERATOR};
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::aqm::{Admission, Red};
use crate::classify::flow_hash::FlowHashMemo;
use crate::classify::Classifier;
use crate::condition::marker::Marker;
use crate::condition::policer::{Policer, Verdict};
use crate::condition::TokenBucket;
use crate::measure::DropReason;
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use crate::time::SimTime;
use queues::ClassQueues;
use std::collections::VecDeque;

/// What a class does with its packets. Tagged by a byte of its own, so that telling the
/// kinds apart on every packet is one comparison rather than a decoding of the fields'
/// spare values.
#[derive(Clone, Debug)]
#[repr(u8)]
enum ClassKind {
    /// Into the priority queue of its level (0 for level 1), policed under congestion when
    /// it has a rate, holding at most `limit` packets when it has one.
    Priority { level: usize, policer: Option<TokenBucket>, limit: Option<Limit> },
    /// Into its own scheduler queue with this weight and limit.
    Queue { queue: usize, weight: u64, limit: Limit },
    /// HQF and IOS XE: into flow queue `hash & mask` of its class queue, each flow queue
    /// held to `limit`.
    Flows { queue: usize, mask: u64, limit: Limit },
    /// Pre-HQF: into one of the fair-queued conversations `first..first + count`, each
    /// holding at most `limit` packets (before HQF a limit counts packets).
    FairQueue { first: usize, mask: u64, limit: usize },
    /// Into child policy `child`, whose next packet waits in class queue `queue`.
    Child { queue: usize, child: usize },
}

/// A policy nested in a class, its classes' numbers in the results moved to where they sit
/// among its parent's.
#[derive(Clone, Debug)]
struct ChildPolicy {
    /// The parent's class that holds it.
    class: usize,
    /// The parent's class queue its next packet waits in.
    queue: usize,
    policy: Box<Cbwfq>,
    /// The number in the results of the class of the packet waiting in `queue`.
    held: Option<usize>,
}

/// A CBWFQ/LLQ discipline.
#[derive(Clone, Debug)]
pub struct Cbwfq {
    /// The classes of the results: this policy's, a class with a child policy replaced by
    /// the child's classes (`parent/child`).
    names: Vec<String>,
    /// This policy's own class names.
    labels: Box<[String]>,
    /// Per class: its number in the results (a class with a child: its child's first).
    slots: Box<[usize]>,
    kinds: Box<[ClassKind]>,
    classifier: Classifier,
    /// The priority queues of levels 1 and 2, with each packet's class.
    priority_queues: [VecDeque<(Packet, usize)>; 2],
    /// Per class: what it holds in its priority queue.
    priority_held: Box<[Held]>,
    /// Per class: the marker and the policer applied before queuing.
    conditioning: Box<[(Option<Marker>, Option<Policer>)]>,
    /// Per class: the random early detection dropper of its queue, if any.
    droppers: Box<[Option<Red>]>,
    /// Per class: the shaper its packets wait for, if it is shaped.
    shapers: Box<[Option<ShaperCredit>]>,
    queues: ClassQueues,
    queue_class: Box<[usize]>,
    /// The flow hashes of the fair-queued class's conversations.
    flow_hashes: FlowHashMemo,
    /// The policies nested in classes.
    children: Box<[ChildPolicy]>,
    /// The layer-2 header IOS's policers count on the link, bytes (its class policers and
    /// shapers count it themselves).
    ios_header_bytes: u32,
}

/// What a priority class holds in its priority queue.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Held {
    packets: usize,
    bytes: u64,
}

/// Whether a class queue's `head` may leave `now`: always for an unshaped class, when its
/// `shaper` has the credit for a shaped one; `earliest` learns when a held head may leave.
#[inline]
fn may_leave(shaper: &mut Option<ShaperCredit>, head: &Packet, now: SimTime, earliest: &mut SimTime) -> bool {
    match shaper {
        None => true,
        Some(shaper) => {
            let at = shaper.ready_at(now, head.size_bytes);
            *earliest = (*earliest).min(at);
            at == now
        }
    }
}

/// The weights of a fair-queued class's conversations, by IP precedence: flow-based WFQ's.
const FAIR_QUEUE_WEIGHTS: [u64; 8] = precedence_weights(IOS_WEIGHT_NUMERATOR);

impl Cbwfq {
    /// The policy written as scenario JSON (`{kind: cbwfq, ...}`, already checked), built on
    /// a level of `bandwidth_bps` without the admission check: for explaining and rewriting
    /// a policy, not for running it. `None` if it does not build.
    pub fn from_scenario(policy: &serde_json::Value, bandwidth_bps: u64) -> Option<Self> {
        let mut params = policy.clone();
        params.as_object_mut()?.remove("kind");
        let params: CbwfqParams = serde_json::from_value(params).ok()?;
        let interface = Interface {
            bandwidth_bps,
            admission: false,
            random_seed: 0,
            device_header_bytes: 0,
            ios_header_bytes: 0,
        };
        Cbwfq::build(&params, "output", interface, &|_| None).ok()
    }

    /// Each class's promises, for explaining the policy ([`super::cbwfq_plan`]).
    pub fn plan(&self) -> Vec<ClassPlan> {
        self.labels
            .iter()
            .enumerate()
            .map(|(class, name)| {
                let mut plan = ClassPlan {
                    name: name.clone(),
                    priority_level: None,
                    priority_bps: None,
                    police_bps: self.conditioning[class].1.as_ref().map(Policer::cir_bps),
                    min_bps: None,
                    max_bps: self.shapers[class].as_ref().map(ShaperCredit::rate_bps),
                    weight: None,
                    flows: 1,
                };
                let three_parameter = |queue: usize, plan: &mut ClassPlan| {
                    if let ClassQueues::ThreeParameter(three) = &self.queues {
                        let rates = three.rates(queue);
                        (plan.min_bps, plan.weight, plan.flows) =
                            (rates.min_bps, Some(rates.excess_weight as f64), rates.flows);
                    }
                };
                match &self.kinds[class] {
                    ClassKind::Priority { level, policer, .. } => {
                        plan.priority_level = Some(*level as u8 + 1);
                        plan.priority_bps = policer.as_ref().map(TokenBucket::rate_bps);
                    }
                    ClassKind::Queue { queue, weight, .. } => match self.queues {
                        // Sequence numbers grow by weight × length: shares go inversely.
                        ClassQueues::Scfq(_) => plan.weight = Some(1.0 / *weight as f64),
                        ClassQueues::ThreeParameter(_) => three_parameter(*queue, &mut plan),
                    },
                    ClassKind::Flows { queue, .. } | ClassKind::Child { queue, .. } => {
                        three_parameter(*queue, &mut plan)
                    }
                    // Pre-HQF conversations: the class's share depends on its flows.
                    ClassKind::FairQueue { mask, .. } => plan.flows = *mask as usize + 1,
                }
                plan
            })
            .collect()
    }

    /// The class limit as a [`QueueLimit`], for documentation and tests.
    pub fn class_limit(&self, class: usize) -> Option<QueueLimit> {
        match self.kinds[class] {
            ClassKind::Priority { limit, .. } => limit.map(Limit::as_queue_limit),
            // Its packets wait in the child's queues.
            ClassKind::Child { .. } => None,
            ClassKind::Queue { limit, .. } | ClassKind::Flows { limit, .. } => Some(limit.as_queue_limit()),
            ClassKind::FairQueue { limit, .. } => Some(QueueLimit::Packets(limit as u32)),
        }
    }
}

impl Qdisc for Cbwfq {
    fn class_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn enqueue(&mut self, mut packet: Packet, ctx: &mut QdiscCtx) {
        let class = self.classifier.classify(&packet) as usize;
        if !self.children.is_empty() {
            if let ClassKind::Child { child, .. } = self.kinds[class] {
                return self.enqueue_child(class, child, packet, ctx);
            }
        }
        let slot = self.slots[class];
        // The class's own conditioning: re-mark, then police (IOS applies `set` and
        // `police` in the class before queuing).
        let (marker, policer) = &mut self.conditioning[class];
        if let Some(marker) = marker {
            marker.apply(&mut packet);
        }
        if let Some(policer) = policer {
            if let Verdict::Drop(reason) = policer.police(ctx.now, &mut packet) {
                return ctx.drop_arrival(slot, packet, reason);
            }
        }
        if self.shapers[class].as_ref().is_some_and(|shaper| !shaper.fits(packet.size_bytes)) {
            // Larger than the shaper's bucket: it could never earn its credit.
            return ctx.drop_arrival(slot, packet, DropReason::Overlimit);
        }
        // Only a priority class's policer asks whether the interface is congested.
        let congested = matches!(self.kinds[class], ClassKind::Priority { .. })
            && (!ctx.ring_has_room || self.len_packets() > 0);
        let metered_bytes = packet.size_bytes + self.ios_header_bytes;
        match &mut self.kinds[class] {
            ClassKind::Priority { level, policer, limit } => {
                // The conditional policer: only under congestion (IOS LLQ).
                if congested && policer.as_mut().is_some_and(|p| !p.conform(ctx.now, metered_bytes)) {
                    return ctx.drop_arrival(slot, packet, DropReason::Policed);
                }
                let held = &mut self.priority_held[class];
                if limit.is_some_and(|l| l.refuses(held.packets, || held.bytes, packet.size_bytes)) {
                    return ctx.drop_arrival(slot, packet, DropReason::TailDrop);
                }
                held.packets += 1;
                held.bytes += u64::from(packet.size_bytes);
                ctx.enqueued(slot, &packet);
                self.priority_queues[*level].push_back((packet, class));
            }
            ClassKind::Queue { queue, weight, limit } => {
                let held = self.queues.queue_len(*queue);
                let full = limit.refuses(held, || self.queues.queue_bytes(*queue), packet.size_bytes);
                let packet = match &mut self.droppers[class] {
                    Some(red) => match red.admit(packet, held as u64, full, slot, ctx) {
                        Admission::Accept(packet) => packet,
                        Admission::Dropped => return,
                    },
                    None if full => return ctx.drop_arrival(slot, packet, DropReason::TailDrop),
                    None => packet,
                };
                ctx.enqueued(slot, &packet);
                self.queues.push(*queue, 0, packet, *weight);
            }
            ClassKind::Flows { queue, mask, limit } => {
                let flow = (self.flow_hashes.hash(&packet) & *mask) as usize;
                let ClassQueues::ThreeParameter(three) = &mut self.queues else {
                    unreachable!("flow queues belong to the HQF and IOS XE schedulers")
                };
                if limit.refuses(
                    three.flow_len(*queue, flow),
                    || three.flow_bytes(*queue, flow),
                    packet.size_bytes,
                ) {
                    return ctx.drop_arrival(slot, packet, DropReason::TailDrop);
                }
                ctx.enqueued(slot, &packet);
                three.push(*queue, flow, packet);
            }
            ClassKind::FairQueue { first, mask, limit } => {
                let queue = *first + (self.flow_hashes.hash(&packet) & *mask) as usize;
                if self.queues.queue_len(queue) >= *limit {
                    return ctx.drop_arrival(slot, packet, DropReason::TailDrop);
                }
                ctx.enqueued(slot, &packet);
                self.queues.push(queue, 0, packet, FAIR_QUEUE_WEIGHTS[packet.precedence() as usize]);
            }
            ClassKind::Child { .. } => unreachable!("handed to the child above"),
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        // Strict priority first, level 1 before level 2, a child's priority classes with
        // this policy's own.
        let mut earliest = SimTime::NEVER;
        if self.may_hold_priority() {
            if let Some(packet) = self.pop_priority(ctx, &mut earliest) {
                return Dequeue::Packet(packet);
            }
        }
        self.dequeue_classes(ctx, earliest)
    }

    #[inline]
    fn len_packets(&self) -> usize {
        let own = self.priority_queues[0].len() + self.priority_queues[1].len() + self.queues.len_packets();
        match self.children.is_empty() {
            true => own,
            false => own + self.children_len_packets(),
        }
    }

    #[inline]
    fn dequeue_interleaved(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        let mut never = SimTime::NEVER;
        self.pop_priority(ctx, &mut never)
    }

    fn take_packets(&mut self) -> Vec<Packet> {
        self.priority_held.iter_mut().for_each(|held| *held = Held::default());
        let mut packets: Vec<Packet> =
            self.priority_queues.iter_mut().flat_map(|q| q.drain(..)).map(|(p, _)| p).collect();
        packets.extend(self.queues.take_all());
        for entry in &mut self.children {
            entry.held = None;
            packets.extend(entry.policy.take_packets());
        }
        packets
    }
}

impl Cbwfq {
    /// Moves this policy's numbers in the results, and its children's, on by `by`: it is a
    /// child whose classes start there among its parent's.
    fn move_slots(&mut self, by: usize) {
        self.slots.iter_mut().for_each(|slot| *slot += by);
        for entry in self.children.iter_mut() {
            entry.policy.move_slots(by);
        }
    }

    /// The number in the results of the class `packet` would join: for a class with a
    /// child policy, the child's class.
    fn slot_of(&self, packet: &Packet) -> usize {
        let class = self.classifier.classify(packet) as usize;
        match self.kinds[class] {
            ClassKind::Child { child, .. } => self.children[child].policy.slot_of(packet),
            _ => self.slots[class],
        }
    }

    /// Hands `packet`, of `class`, to the class's child policy `child`. For the child the
    /// way out is free only when this policy holds nothing and the class's shaper would let
    /// the packet go now.
    fn enqueue_child(&mut self, class: usize, child: usize, packet: Packet, ctx: &mut QdiscCtx) {
        let idle = self.len_packets() == 0;
        let entry = &mut self.children[child];
        let shaper = &mut self.shapers[class];
        if shaper.as_ref().is_some_and(|shaper| !shaper.fits(packet.size_bytes)) {
            // Larger than the shaper's bucket: it could never earn its credit.
            return ctx.drop_arrival(entry.policy.slot_of(&packet), packet, DropReason::Overlimit);
        }
        let ring_has_room = ctx.ring_has_room;
        ctx.ring_has_room = ring_has_room
            && idle
            && shaper.as_mut().is_none_or(|shaper| shaper.ready_at(ctx.now, packet.size_bytes) == ctx.now);
        entry.policy.enqueue(packet, ctx);
        ctx.ring_has_room = ring_has_room;
    }

    /// Whether a priority packet may be waiting: in this policy's priority queues, or in a
    /// child's. A quick test before [`Cbwfq::pop_priority`], which most dequeues of a busy
    /// link find nothing for.
    #[inline]
    fn may_hold_priority(&self) -> bool {
        !(self.priority_queues[0].is_empty()
            && self.priority_queues[1].is_empty()
            && self.children.is_empty())
    }

    /// The packets the child policies hold.
    fn children_len_packets(&self) -> usize {
        self.children.iter().map(|entry| entry.policy.len_packets()).sum()
    }

    /// The next strict-priority packet, level 1 before level 2: this policy's own, else a
    /// child's whose class's shaper has the credit (in class order). `earliest` learns when a
    /// child's priority packet waiting for its shaper may leave.
    #[inline]
    fn pop_priority(&mut self, ctx: &mut QdiscCtx, earliest: &mut SimTime) -> Option<Packet> {
        if self.children.is_empty() {
            return self.pop_own_priority(0, ctx).or_else(|| self.pop_own_priority(1, ctx));
        }
        match self.pop_priority_at(0, ctx, earliest) {
            Some(packet) => Some(packet),
            None => self.pop_priority_at(1, ctx, earliest),
        }
    }

    /// [`Cbwfq::pop_priority`] at one level (0 for level 1).
    #[inline]
    fn pop_priority_at(
        &mut self,
        level: usize,
        ctx: &mut QdiscCtx,
        earliest: &mut SimTime,
    ) -> Option<Packet> {
        match self.pop_own_priority(level, ctx) {
            None if !self.children.is_empty() => self.pop_child_priority(level, ctx, earliest),
            own => own,
        }
    }

    /// The next packet of this policy's own priority queue of `level` (0 for level 1).
    #[inline]
    fn pop_own_priority(&mut self, level: usize, ctx: &mut QdiscCtx) -> Option<Packet> {
        let (packet, class) = self.priority_queues[level].pop_front()?;
        let held = &mut self.priority_held[class];
        held.packets -= 1;
        held.bytes -= u64::from(packet.size_bytes);
        ctx.dequeued(self.slots[class], &packet);
        Some(packet)
    }

    /// [`Cbwfq::pop_priority`] at one level (0 for level 1), from the children.
    fn pop_child_priority(
        &mut self,
        level: usize,
        ctx: &mut QdiscCtx,
        earliest: &mut SimTime,
    ) -> Option<Packet> {
        let now = ctx.now;
        for entry in &mut self.children {
            let Some(size_bytes) = entry.policy.priority_head_bytes(level, now) else { continue };
            if let Some(shaper) = &mut self.shapers[entry.class] {
                let at = shaper.ready_at(now, size_bytes);
                if at > now {
                    *earliest = (*earliest).min(at);
                    continue;
                }
                shaper.take(now, size_bytes);
            }
            let mut never = SimTime::NEVER;
            return entry.policy.pop_priority_at(level, ctx, &mut never);
        }
        None
    }

    /// The size of the priority packet of `level` that [`Cbwfq::pop_priority_at`] would hand
    /// out now.
    fn priority_head_bytes(&mut self, level: usize, now: SimTime) -> Option<u32> {
        if let Some((packet, _)) = self.priority_queues[level].front() {
            return Some(packet.size_bytes);
        }
        let shapers = &mut self.shapers;
        self.children.iter_mut().find_map(|entry| {
            let size_bytes = entry.policy.priority_head_bytes(level, now)?;
            let ready = shapers[entry.class].as_mut().is_none_or(|s| s.ready_at(now, size_bytes) == now);
            ready.then_some(size_bytes)
        })
    }

    /// The next packet of the class queues, among the heads that may leave now: an
    /// unshaped class's always, a shaped class's when its shaper has the credit. `earliest`
    /// is when a packet held back so far may leave.
    #[inline]
    fn dequeue_classes(&mut self, ctx: &mut QdiscCtx, mut earliest: SimTime) -> Dequeue {
        let now = ctx.now;
        if !self.children.is_empty() {
            earliest = earliest.min(self.refill_children(ctx));
        }
        let (shapers, queue_class) = (&mut self.shapers, &self.queue_class);
        let next = match &mut self.queues {
            ClassQueues::Scfq(scfq) => scfq.pop_first(|queue, head| {
                may_leave(&mut shapers[queue_class[queue]], head, now, &mut earliest)
            }),
            ClassQueues::ThreeParameter(three) => three
                .pop(|queue, head| may_leave(&mut shapers[queue_class[queue]], head, now, &mut earliest))
                .map(|(queue, packet, _)| (queue, packet)),
        };
        match next {
            Some((queue, packet)) => {
                let class = self.queue_class[queue];
                if let Some(shaper) = &mut self.shapers[class] {
                    shaper.take(now, packet.size_bytes);
                }
                if let (false, ClassKind::Child { child, .. }) =
                    (self.children.is_empty(), &self.kinds[class])
                {
                    let entry = &mut self.children[*child];
                    let held = entry.held.take().expect("a child's packet waits with its class");
                    ctx.dequeued(held, &packet);
                    return Dequeue::Packet(packet);
                }
                if let Some(red) = &mut self.droppers[class] {
                    red.dequeued(&packet, self.queues.queue_len(queue) as u64, now);
                }
                ctx.dequeued(self.slots[class], &packet);
                Dequeue::Packet(packet)
            }
            // Every head waits for its shaper.
            None if self.len_packets() > 0 => Dequeue::NotBefore(earliest),
            None => Dequeue::Empty,
        }
    }

    /// Gives each child's class queue whose packet left the child's next one (its class
    /// queues', not its priority packets, which go by [`Cbwfq::pop_priority`]); returns when
    /// a child whose class queues wait for their shapers may send.
    fn refill_children(&mut self, ctx: &mut QdiscCtx) -> SimTime {
        let mut earliest = SimTime::NEVER;
        for entry in &mut self.children {
            if self.queues.queue_len(entry.queue) > 0 || entry.policy.len_packets() == 0 {
                continue;
            }
            let policy = &mut entry.policy;
            let (answer, class) = ctx.dequeue_held(|ctx| policy.dequeue_classes(ctx, SimTime::NEVER));
            match answer {
                Dequeue::Packet(packet) => {
                    entry.held = class;
                    self.queues.push(entry.queue, 0, packet, 0);
                }
                Dequeue::NotBefore(at) => earliest = earliest.min(at),
                Dequeue::Empty => {}
            }
        }
        earliest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::error::Issue;
    use crate::qdisc::testing::{harness, packet, Harness};

    const MBPS: Interface = crate::qdisc::testing::INTERFACE;

    fn build(yaml: &str) -> Result<Cbwfq, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let params: CbwfqParams = serde_json::from_value(value).unwrap();
        Cbwfq::build(&params, "p", MBPS, &|_| None)
    }

    #[test]
    fn defaults() {
        let q = build("{classes: [{name: voice, match: {dscp: EF}, priority: 64kbps}, {name: data, match: {}, bandwidth: 10%}]}")
            .unwrap();
        // class-default is added last; bandwidth classes hold 64 packets.
        assert_eq!(q.class_names(), ["voice", "data", "class-default"]);
        assert_eq!(q.class_limit(1), Some(QueueLimit::Packets(64)));
        assert_eq!(q.class_limit(0), None);
        // The default burst is 200 ms at 64 kbit/s = 1600 B: ten 160-byte packets conform at
        // once, the eleventh does not.
        let ClassKind::Priority { policer: Some(mut policer), .. } = q.kinds[0].clone() else { panic!() };
        assert!((0..10).all(|_| policer.conform(SimTime::ZERO, 160)));
        assert!(!policer.conform(SimTime::ZERO, 160));
        // Weights: constant 64 × 1 Mbit/s / 100 kbit/s = 640; class-default gets the
        // unreserved 836 kbit/s: 64 × 1000 / 836 = 76.
        let weight = |k: &ClassKind| match k {
            ClassKind::Queue { weight, .. } => *weight,
            _ => panic!(),
        };
        assert_eq!((weight(&q.kinds[1]), weight(&q.kinds[2])), (640, 76));
    }

    #[test]
    fn class_default_with_its_own_bandwidth() {
        // fair_queue: false keeps the class-default's own bandwidth: 64 × 1000 / 100 = 640.
        let q = build("{classes: [{name: a, match: {dscp: EF}, bandwidth: 50%}, {name: class-default, fair_queue: false, bandwidth: 10%}]}")
            .unwrap();
        let ClassKind::Queue { weight, .. } = q.kinds[1] else { panic!() };
        assert_eq!(weight, 640);
    }

    #[test]
    fn priority_first_then_sequence_numbers() {
        let mut q = build("{classes: [{name: voice, match: {dscp: EF}, priority: 64kbps}]}").unwrap();
        let mut h = harness(2);
        q.enqueue(packet(1, 1000, 0), &mut h.ctx());
        q.enqueue(packet(2, 1000, 0), &mut h.ctx());
        q.enqueue(packet(3, 100, 46), &mut h.ctx());
        let order: Vec<u64> = std::iter::from_fn(|| match q.dequeue(&mut h.ctx()) {
            Dequeue::Packet(p) => Some(p.id),
            Dequeue::Empty | Dequeue::NotBefore(_) => None,
        })
        .collect();
        assert_eq!(order, [3, 1, 2]);
        assert_eq!((h.classes[0].dequeued_packets, h.classes[1].dequeued_packets), (1, 2));
    }

    #[test]
    fn conditional_policer_acts_only_under_congestion() {
        // 8 kbit/s priority class, burst 32 B: under congestion the second 32-byte packet
        // at the same instant is dropped; with room on the ring and nothing queued it is not.
        let yaml = "{classes: [{name: v, match: {dscp: EF}, priority: 8kbps, burst: 32B}]}";
        let mut q = build(yaml).unwrap();
        let mut h = harness(2);
        for id in 0..2 {
            let mut ctx = h.ctx();
            ctx.ring_has_room = false;
            q.enqueue(packet(id, 32, 46), &mut ctx);
        }
        assert_eq!(h.classes[0].dropped_for(DropReason::Policed), 1);
        let mut q = build(yaml).unwrap();
        let mut h = harness(2);
        for id in 0..2 {
            let mut ctx = h.ctx();
            ctx.ring_has_room = true;
            q.enqueue(packet(id, 32, 46), &mut ctx);
            q.dequeue(&mut ctx);
        }
        assert_eq!(h.classes[0].dropped_for(DropReason::Policed), 0);
    }

    #[test]
    fn configuration_errors() {
        let cases = [
            ("{classes: [{name: a, match: {}, bandwidth: 80%}]}", "p", "only 750 kbit/s"),
            ("{classes: [{name: a, bandwidth: 10%}]}", "p.classes[0]", "has no `match`"),
            ("{classes: [{name: a, match: {}}]}", "p.classes[0]", "neither `priority` nor `bandwidth`"),
            ("{classes: [{name: class-default}, {name: a, match: {}, bandwidth: 1%}]}", "p.classes[0]", "must be the last"),
            ("{classes: [{name: a, match: {}, priority: 10%, bandwidth: 10%}]}", "p.classes[0]", "one of"),
            ("{classes: [{name: a, match: {}, priority: 10%, queue_limit: 5}]}", "p.classes[0].queue_limit", "no queue"),
            ("{classes: [{name: a, match: {}, bandwidth: 10%}, {name: b, match: {}, bandwidth_remaining: 10%}]}", "p.classes[0].bandwidth", "cannot be mixed"),
            ("{classes: [{name: a, match: {}, priority: 10%, burst: 8B}]}", "p.classes[0].burst", "outside the IOS range"),
            ("{classes: [{name: a, match: {}, bandwidth: 10%}, {name: a, match: {}, bandwidth: 10%}]}", "p.classes[1].name", "twice"),
            ("{classes: [{name: class-default, fair_queue: {dynamic_queues: 100}}]}", "p.classes[0].fair_queue.dynamic_queues", "not allowed"),
            ("{classes: [{name: class-default, fair_queue: true, bandwidth: 10%}]}", "p.classes[0].fair_queue", "not by a bandwidth"),
            ("{classes: [{name: a, match: {}, bandwidth_remaining: 0%}]}", "p.classes[0].bandwidth_remaining", "from 1 %"),
            ("{max_reserved: 100%, classes: [{name: v, match: {}, priority: 100%}, {name: a, match: {}, bandwidth_remaining: 10%}]}", "p.classes", "leave no bandwidth"),
            ("{classes: [{name: v, match: {}, priority: 10%, shape: {rate: 50kbps}}]}", "p.classes[0].shape", "cannot be shaped"),
            ("{classes: [{name: a, match: {}, bandwidth: 10%, shape: {rate: 0%}}]}", "p.classes[0].shape.rate", "above zero"),
            ("{classes: [{name: a, match: {}, bandwidth: 20%, shape: {rate: 100kbps}}]}", "p", "class `a` is shaped to 100 kbit/s, below the 200 kbit/s"),
            ("{classes: [{name: class-default, shape: {rate: 1Mbps, bc: 0B}}]}", "p.classes[0].shape.bc", "above zero"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = build(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
    }

    #[test]
    fn ios_xe_rules() {
        let cases = [
            ("{classes: [{name: v, match: {}, priority_level: 1, police: {cir: 100kbps}}]}", "p.classes[0].priority_level", "belongs to the IOS XE scheduler"),
            ("{classes: [{name: a, match: {}, bandwidth_remaining_ratio: 4}]}", "p.classes[0].bandwidth_remaining_ratio", "belongs to the IOS XE scheduler"),
            ("{scheduler: xe, classes: [{name: v, match: {}, priority_level: 3}]}", "p.classes[0].priority_level", "levels 1 and 2"),
            ("{scheduler: xe, max_reserved: 90%, classes: [{name: a, match: {}, bandwidth: 10%}]}", "p.max_reserved", "no `max-reserved-bandwidth`"),
            ("{scheduler: xe, classes: [{name: a, match: {}, bandwidth: 60%}, {name: b, match: {}, priority: 50%}]}", "p", "the classes reserve 1100 kbit/s, but only 1000 kbit/s"),
            ("{scheduler: xe, classes: [{name: v, match: {}, priority_level: 1}, {name: a, match: {}, bandwidth: 10%}]}", "p.classes[1].bandwidth", "held to no rate"),
            ("{scheduler: xe, classes: [{name: a, match: {}, bandwidth_remaining_ratio: 5}, {name: b, match: {}, bandwidth: 10%}]}", "p.classes[1].bandwidth", "refuses `bandwidth`"),
            ("{scheduler: xe, classes: [{name: a, match: {}, bandwidth_remaining_ratio: 0}]}", "p.classes[0].bandwidth_remaining_ratio", "outside the IOS XE range"),
            ("{scheduler: xe, classes: [{name: a, match: {}, bandwidth_remaining_ratio: 5}, {name: b, match: {}, bandwidth_remaining: 10%}]}", "p.classes[1]", "ratios or as percentages"),
            ("{scheduler: xe, classes: [{name: a, match: {}, priority: 10%, bandwidth_remaining_ratio: 5}]}", "p.classes[0]", "one of"),
            ("{scheduler: xe, classes: [{name: v, match: {}, priority: 10%, fair_queue: true}]}", "p.classes[0].fair_queue", "cannot be fair-queued"),
            ("{classes: [{name: a, match: {}, bandwidth: 10%, fair_queue: true}]}", "p.classes[0].fair_queue", "only class-default"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = build(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
        // Accepted: a class with neither a minimum nor a weight, an unpoliced priority level
        // beside excess weights, a priority class with its own queue limit.
        for yaml in [
            "{scheduler: xe, classes: [{name: a, match: {dscp: AF11}, shape: {rate: 100kbps}}]}",
            "{scheduler: xe, classes: [{name: v, match: {}, priority_level: 1}, {name: a, match: {}, bandwidth_remaining_ratio: 4}]}",
            "{scheduler: xe, classes: [{name: v, match: {}, priority: 10%, queue_limit: 20}]}",
            "{scheduler: xe, classes: [{name: a, match: {}, bandwidth: 10%, fair_queue: true}, {name: class-default, bandwidth: 10%, fair_queue: {dynamic_queues: 32}}]}",
        ] {
            assert!(build(yaml).is_ok(), "{yaml}: {:?}", build(yaml).err());
        }
    }

    #[test]
    fn hqf_rules() {
        // Fair-queued user classes, a priority queue of 64 packets, reservations up to 100 %.
        let q = build("{scheduler: hqf, classes: [{name: v, match: {dscp: EF}, priority: 40%}, {name: a, match: {}, bandwidth: 60%, fair_queue: true}]}")
            .unwrap();
        assert_eq!(q.class_limit(0), Some(QueueLimit::Packets(64)));
        assert!(
            matches!(q.kinds[1], ClassKind::Flows { mask: 255, limit, .. } if limit == Limit::packets(64))
        );
        // A class with neither priority nor bandwidth takes an equal part of the rest.
        assert!(build("{scheduler: hqf, classes: [{name: a, match: {}, fair_queue: true}]}").is_ok());
        let issue =
            build("{scheduler: hqf, classes: [{name: v, match: {}, priority: 10%, fair_queue: true}]}")
                .unwrap_err();
        assert_eq!(
            (issue.key_path.as_str(), issue.message.as_str()),
            ("p.classes[0].fair_queue", "a priority class cannot be fair-queued")
        );
        let issue =
            build("{scheduler: hqf, classes: [{name: v, match: {}, priority_level: 2}]}").unwrap_err();
        assert!(issue.message.contains("belongs to the IOS XE scheduler"), "{}", issue.message);
    }

    #[test]
    fn ios_xe_queue_limits() {
        // 1 Mbit/s: 50 ms of 1500-byte packets is 5, raised to 64; priority queues hold 512.
        let q = build("{scheduler: xe, classes: [{name: v, match: {dscp: EF}, priority_level: 1, police: {cir: 100kbps}}, {name: a, match: {}, bandwidth: 10%}]}")
            .unwrap();
        let limits: Vec<Option<QueueLimit>> = (0..3).map(|c| q.class_limit(c)).collect();
        assert_eq!(
            limits,
            [Some(QueueLimit::Packets(512)), Some(QueueLimit::Packets(64)), Some(QueueLimit::Packets(64))]
        );
        // A priority queue full at its limit drops the next packet at the tail.
        let mut q = build(
            "{scheduler: xe, classes: [{name: v, match: {dscp: EF}, priority_level: 1, queue_limit: 2}]}",
        )
        .unwrap();
        let mut h = harness(2);
        (0..3).for_each(|id| q.enqueue(packet(id, 100, 46), &mut h.ctx()));
        assert_eq!((q.len_packets(), h.classes[0].dropped_for(DropReason::TailDrop)), (2, 1));
    }

    /// IOS XE's limits in bytes and time: 250 bytes, or 2 ms at the policy's 1 Mbit/s (250
    /// bytes), hold two packets of 100 bytes and refuse a third — in a priority queue, a
    /// class queue, and each flow queue of a fair-queued class.
    #[test]
    fn ios_xe_queue_limits_in_bytes_and_time() {
        for limit in ["250B", "2ms"] {
            let mut q = build(&format!(
                "{{scheduler: xe, classes: [{{name: v, match: {{dscp: EF}}, priority_level: 1, police: {{cir: 100kbps}}, queue_limit: {limit}}}, {{name: a, match: {{dscp: AF11}}, bandwidth: 10%, queue_limit: {limit}}}, {{name: class-default, fair_queue: true, queue_limit: {limit}}}]}}"
            ))
            .unwrap();
            assert_eq!(q.class_limit(1), Some(QueueLimit::Bytes(250)), "{limit}");
            let mut h = harness(3);
            let mut id = 0;
            for (dscp, port) in [(46, 1), (10, 1), (0, 1000), (0, 2000)] {
                for _ in 0..3 {
                    id += 1;
                    let mut p = packet(id, 100, dscp);
                    p.src_port = port;
                    q.enqueue(p, &mut h.ctx());
                }
            }
            let drops: Vec<u64> = h.classes.iter().map(|c| c.dropped_for(DropReason::TailDrop)).collect();
            assert_eq!((q.len_packets(), drops), (8, vec![1, 1, 2]), "{limit}");
        }
        let issue =
            build("{scheduler: hqf, classes: [{name: a, match: {}, bandwidth: 10%, queue_limit: 9kB}]}")
                .unwrap_err();
        assert_eq!(issue.key_path, "p.classes[0].queue_limit");
        assert!(issue.message.contains("IOS XE's"), "{}", issue.message);
    }

    #[test]
    fn ios_xe_flow_queues_share_a_class_equally() {
        // class-default fair-queued under IOS XE: two flows, one of 100-byte and one of
        // 1000-byte packets, each kept at 10 packets: equal bytes within two quanta, and
        // each flow queue holds at most the class's queue limit.
        let mut q =
            build("{scheduler: xe, classes: [{name: class-default, fair_queue: true, queue_limit: 10}]}")
                .unwrap();
        let mut h = harness(1);
        let offer = |q: &mut Cbwfq, h: &mut Harness, id: u64, size: u32| {
            let mut p = packet(id, size, 0);
            p.src_port = if size == 100 { 1000 } else { 2000 };
            q.enqueue(p, &mut h.ctx());
        };
        for id in 0..12 {
            offer(&mut q, &mut h, id, 100);
            offer(&mut q, &mut h, 100 + id, 1000);
        }
        assert_eq!((q.len_packets(), h.classes[0].dropped_for(DropReason::TailDrop)), (20, 4));
        let mut sent = [0u64; 2];
        for id in 1000..21_000 {
            let Dequeue::Packet(p) = q.dequeue(&mut h.ctx()) else { panic!("backlogged") };
            sent[usize::from(p.size_bytes == 1000)] += u64::from(p.size_bytes);
            offer(&mut q, &mut h, id, p.size_bytes);
        }
        assert!(sent[0].abs_diff(sent[1]) <= 2 * 1500, "{sent:?}");
    }

    #[test]
    fn priority_level_1_goes_before_level_2() {
        let mut q = build(
            "{scheduler: xe, classes: [
            {name: video, match: {dscp: AF41}, priority_level: 2, priority: 30%},
            {name: voice, match: {dscp: EF}, priority_level: 1, priority: 20%}]}",
        )
        .unwrap();
        let mut h = harness(3);
        q.enqueue(packet(1, 1000, 0), &mut h.ctx());
        q.enqueue(packet(2, 500, 34), &mut h.ctx());
        q.enqueue(packet(3, 500, 34), &mut h.ctx());
        q.enqueue(packet(4, 200, 46), &mut h.ctx());
        let order: Vec<u64> = std::iter::from_fn(|| match q.dequeue(&mut h.ctx()) {
            Dequeue::Packet(p) => Some(p.id),
            Dequeue::Empty | Dequeue::NotBefore(_) => None,
        })
        .collect();
        assert_eq!(order, [4, 2, 3, 1]);
        assert_eq!(*q.priority_held, [Held::default(); 3]);
    }

    /// Serves `q` over a link of `link_bps` (a ring of one packet, no framing) for
    /// `duration_ns`, starting with four packets of each `(dscp, size)` and offering another
    /// of the same kind whenever one leaves, so every class stays backlogged. Returns each
    /// packet sent as (start of transmission, dscp, size), and how often the link fell idle.
    fn saturated_link(
        q: &mut Cbwfq,
        offered: &[(u8, u32)],
        link_bps: u64,
        duration_ns: u64,
    ) -> (Vec<(u64, u8, u32)>, u32) {
        let mut h = harness(q.class_names().len());
        let mut id = 0;
        let mut offer = |q: &mut Cbwfq, h: &mut Harness, now: u64, dscp: u8, size: u32| {
            let mut ctx = h.ctx();
            ctx.now = SimTime(now);
            id += 1;
            q.enqueue(packet(id, size, dscp), &mut ctx);
        };
        for &(dscp, size) in offered {
            (0..4).for_each(|_| offer(q, &mut h, 0, dscp, size));
        }
        let (mut now, mut sent, mut idle) = (0, Vec::new(), 0);
        while now < duration_ns {
            let mut ctx = h.ctx();
            ctx.now = SimTime(now);
            match q.dequeue(&mut ctx) {
                Dequeue::Packet(p) => {
                    sent.push((now, p.dscp, p.size_bytes));
                    now += crate::time::transmission_ns(p.size_bytes as u64 * 8, link_bps);
                    offer(q, &mut h, now, p.dscp, p.size_bytes);
                }
                Dequeue::NotBefore(t) => {
                    idle += 1;
                    now = t.0;
                }
                Dequeue::Empty => panic!("the classes are saturated"),
            }
        }
        assert!(h.classes.iter().all(|c| c.check(c.backlog_packets).is_ok()));
        (sent, idle)
    }

    #[test]
    fn a_shaped_class_keeps_to_its_shaper_and_its_sibling_takes_the_rest() {
        // 1 Mbit/s; class `a` (AF11) shaped to 300 kbit/s, class `b` (AF21) not; both
        // saturated with 1000-byte packets for 30 s. By weight alone `a` would get half.
        // Continuous: a 3000-byte bucket, so `a` sends at most 3000 B + R·Δt in any window.
        // Average: Bc = Be = 1000 B (IOS's default below 320 kbit/s), at most Bc + Be in
        // store plus Bc at each interval start, so 3000 B + R·Δt as well.
        for shape in ["{rate: 300kbps, bc: 1500B, mode: continuous}", "{rate: 300kbps}"] {
            let mut q = build(&format!(
                "{{classes: [{{name: a, match: {{dscp: AF11}}, bandwidth: 30%, shape: {shape}}}, {{name: b, match: {{dscp: AF21}}, bandwidth: 30%}}]}}"
            ))
            .unwrap();
            let (sent, idle) = saturated_link(&mut q, &[(10, 1000), (18, 1000)], 1_000_000, 30_000_000_000);
            // `b` always has a packet: the link never waits for `a`'s shaper.
            assert_eq!(idle, 0, "{shape}");
            let a_times: Vec<u64> = sent.iter().filter(|s| s.1 == 10).map(|s| s.0).collect();
            for i in 0..a_times.len() {
                for j in i..a_times.len() {
                    let bytes = 1000.0 * (j - i + 1) as f64;
                    let bound = 3000.0 + 37_500.0 * (a_times[j] - a_times[i]) as f64 / 1e9;
                    assert!(bytes <= bound + 1e-6, "{shape}: {i}..{j}: {bytes} > {bound}");
                }
            }
            // Rates over the last 29 s: `a` its 300 kbit/s, `b` the other 700, within 1 %.
            let rate_bps = |dscp: u8| {
                let bytes: u64 =
                    sent.iter().filter(|s| s.1 == dscp && s.0 >= 1_000_000_000).map(|s| s.2 as u64).sum();
                bytes as f64 * 8.0 / 29.0
            };
            assert!((rate_bps(10) - 300_000.0).abs() / 300_000.0 < 0.01, "{shape}: a {}", rate_bps(10));
            assert!((rate_bps(18) - 700_000.0).abs() / 700_000.0 < 0.01, "{shape}: b {}", rate_bps(18));
        }
    }

    /// The trace of AF11 packets in a class shaped to 64 kbit/s (Bc = Be = 1000 B, Tc =
    /// 125 ms: 2000 B of credit at the start) beside a class that is not: four 500-byte
    /// packets leave at once, the fifth gets "not before 125 ms"; a packet of DSCP `other`
    /// arriving at 10 ms leaves at once, while the fifth still waits until 125 ms.
    fn shaped_beside_unshaped(q: &mut Cbwfq, other: u8) {
        let mut h = harness(q.class_names().len());
        let mut at = |q: &mut Cbwfq, now_ns: u64, arrival: Option<Packet>| {
            let mut ctx = h.ctx();
            ctx.now = SimTime(now_ns);
            if let Some(p) = arrival {
                q.enqueue(p, &mut ctx);
            }
            q.dequeue(&mut ctx)
        };
        for id in 0..4 {
            assert!(matches!(at(q, 0, Some(packet(id, 500, 10))), Dequeue::Packet(p) if p.id == id));
        }
        assert_eq!(at(q, 0, Some(packet(4, 500, 10))), Dequeue::NotBefore(SimTime(125_000_000)));
        assert!(matches!(at(q, 10_000_000, Some(packet(5, 1000, other))), Dequeue::Packet(p) if p.id == 5));
        assert_eq!(at(q, 10_000_000, None), Dequeue::NotBefore(SimTime(125_000_000)));
        assert_eq!(at(q, 124_999_999, None), Dequeue::NotBefore(SimTime(125_000_000)));
        assert!(matches!(at(q, 125_000_000, None), Dequeue::Packet(p) if p.id == 4));
        assert_eq!(at(q, 125_000_000, None), Dequeue::Empty);
    }

    #[test]
    fn a_shaped_class_alone_waits_for_its_credit() {
        // `a` shaped to 64 kbit/s: Bc = Be = 1000 B, Tc = 125 ms, 2000 B of credit at the
        // start. Five 500-byte packets: four leave at once, the fifth not before 125 ms.
        let mut q = build("{classes: [{name: a, match: {dscp: AF11}, bandwidth: 5%, shape: {rate: 64kbps}}, {name: b, match: {dscp: AF21}, bandwidth: 5%}]}")
            .unwrap();
        shaped_beside_unshaped(&mut q, 18);
        // A packet larger than Bc + Be could never leave: dropped on arrival.
        let mut h = harness(3);
        q.enqueue(packet(6, 2001, 10), &mut h.ctx());
        assert_eq!((h.classes[0].dropped_for(DropReason::Overlimit), q.len_packets()), (1, 0));
    }

    #[test]
    fn a_shaped_fair_queued_class_default_shares_one_shaper() {
        // Three conversations in a fair-queued class-default shaped to 64 kbit/s (2000 B of
        // credit): two 1000-byte packets leave, the third waits for the next interval.
        let mut q =
            build("{classes: [{name: class-default, fair_queue: true, shape: {rate: 64kbps}}]}").unwrap();
        let mut h = harness(1);
        for id in 0..3 {
            let mut p = packet(id, 1000, 0);
            p.src_port = 1000 + id as u16;
            q.enqueue(p, &mut h.ctx());
        }
        let answers: Vec<Dequeue> = (0..3).map(|_| q.dequeue(&mut h.ctx())).collect();
        assert!(matches!(answers[..2], [Dequeue::Packet(_), Dequeue::Packet(_)]));
        assert_eq!(answers[2], Dequeue::NotBefore(SimTime(125_000_000)));
    }

    /// Two sites under one IOS XE level of 1 Mbit/s: `a` (AF11 data, EF voice) holds a
    /// child LLQ, `b` (AF21) a child with class-default only; `a_shape` shapes site `a`.
    fn sites(a_shape: &str) -> Cbwfq {
        build(&format!(
            "{{scheduler: xe, classes: [
            {{name: a, match: {{dscp: [AF11, EF]}}, shape: {a_shape}, bandwidth_remaining_ratio: 1, child: {{kind: cbwfq, classes: [
                {{name: voice, match: {{dscp: EF}}, priority: 100kbps}},
                {{name: data, match: {{dscp: AF11}}, bandwidth: 50%}}]}}}},
            {{name: b, match: {{dscp: AF21}}, bandwidth_remaining_ratio: 1, child: {{kind: cbwfq, classes: [{{name: class-default}}]}}}}]}}"
        ))
        .unwrap()
    }

    #[test]
    fn a_child_policys_classes_take_the_place_of_its_class() {
        let q = sites("{rate: 600kbps}");
        assert_eq!(
            q.class_names(),
            ["a/voice", "a/data", "a/class-default", "b/class-default", "class-default"]
        );
        // The levels' own classes explain each level.
        let plans: Vec<String> = q.plan().into_iter().map(|p| p.name).collect();
        assert_eq!(plans, ["a", "b", "class-default"]);
    }

    #[test]
    fn a_child_may_hold_children_of_its_own() {
        // Three levels of `cbwfq` in YAML: the voice class of `b` in `a` keeps its priority
        // through both levels, and each packet is counted in its innermost class.
        let mut q = build(
            "{scheduler: xe, classes: [{name: a, match: {}, shape: {rate: 800kbps}, child: {kind: cbwfq, classes: [
                {name: b, match: {dscp: [EF, AF11]}, shape: {rate: 400kbps}, child: {kind: cbwfq, classes: [
                    {name: voice, match: {dscp: EF}, priority: 100kbps}]}}]}}]}",
        )
        .unwrap();
        let names = ["a/b/voice", "a/b/class-default", "a/class-default", "class-default"];
        assert_eq!(q.class_names(), names);
        let mut h = harness(names.len());
        q.enqueue(packet(1, 1000, 10), &mut h.ctx());
        q.enqueue(packet(2, 1000, 0), &mut h.ctx());
        q.enqueue(packet(3, 200, 46), &mut h.ctx());
        let mut order = Vec::new();
        while let Dequeue::Packet(p) = q.dequeue(&mut h.ctx()) {
            order.push(p.id);
        }
        assert_eq!(order[0], 3, "voice first through two levels: {order:?}");
        assert_eq!(order.len(), 3);
        let dequeued: Vec<u64> = h.classes.iter().map(|c| c.dequeued_packets).collect();
        assert_eq!(dequeued, [1, 1, 1, 0]);
        assert_eq!(q.len_packets(), 0);
    }

    #[test]
    fn sites_share_the_excess_equally_up_to_their_shapers() {
        // Both sites saturated with 1000-byte packets: equal excess weights give each half
        // of 1 Mbit/s under a 600 kbit/s shaper; shaped to 300 kbit/s, `a` keeps to it and
        // `b` takes the other 700. Within 1 % over the last 29 s of 30.
        for (shape, a_bps) in [("{rate: 600kbps}", 500_000.0), ("{rate: 300kbps}", 300_000.0)] {
            let mut q = sites(shape);
            let (sent, idle) = saturated_link(&mut q, &[(10, 1000), (18, 1000)], 1_000_000, 30_000_000_000);
            assert_eq!(idle, 0, "{shape}: `b` always has a packet");
            let rate_bps = |dscp: u8| {
                let bytes: u64 =
                    sent.iter().filter(|s| s.1 == dscp && s.0 >= 1_000_000_000).map(|s| s.2 as u64).sum();
                bytes as f64 * 8.0 / 29.0
            };
            let b_bps = 1_000_000.0 - a_bps;
            assert!((rate_bps(10) - a_bps).abs() / a_bps < 0.01, "{shape}: a {}", rate_bps(10));
            assert!((rate_bps(18) - b_bps).abs() / b_bps < 0.01, "{shape}: b {}", rate_bps(18));
        }
    }

    /// Serves `q` on a 1 Mbit/s link for 10 s: AF11 and AF21 kept backlogged with 1000-byte
    /// packets, a 200-byte packet of `voice_dscp` every 20 ms. Returns the voice packets'
    /// waits, ns, and the bit/s each DSCP was sent at over the last 9 s; checks that every
    /// class's books balance and the policy's backlog is the classes' at every step.
    fn voice_waits(q: &mut Cbwfq, voice_dscp: u8) -> (Vec<u64>, [f64; 64]) {
        let mut h = harness(q.class_names().len());
        let mut id = 0;
        let mut arrivals: std::collections::HashMap<u64, u64> = Default::default();
        let mut offer = |q: &mut Cbwfq, h: &mut Harness, now: u64, dscp: u8, size: u32| {
            let mut ctx = h.ctx();
            ctx.now = SimTime(now);
            id += 1;
            q.enqueue(packet(id, size, dscp), &mut ctx);
            id
        };
        for dscp in [10, 18] {
            (0..4).for_each(|_| {
                offer(q, &mut h, 0, dscp, 1000);
            });
        }
        let (mut now, mut next_voice, mut waits) = (0u64, 0u64, Vec::new());
        let mut bps = [0.0; 64];
        while now < 10_000_000_000 {
            while next_voice <= now {
                arrivals.insert(offer(q, &mut h, next_voice, voice_dscp, 200), next_voice);
                next_voice += 20_000_000;
            }
            let mut ctx = h.ctx();
            ctx.now = SimTime(now);
            let answer = q.dequeue(&mut ctx);
            let backlog: u64 = h.classes.iter().map(|c| c.backlog_packets).sum();
            assert_eq!(backlog, q.len_packets() as u64);
            match answer {
                Dequeue::Packet(p) => {
                    if now >= 1_000_000_000 {
                        bps[p.dscp as usize] += p.size_bytes as f64 * 8.0 / 9.0;
                    }
                    now += crate::time::transmission_ns(p.size_bytes as u64 * 8, 1_000_000);
                    match arrivals.remove(&p.id) {
                        Some(arrived) => waits.push(now - arrived),
                        None => {
                            offer(q, &mut h, now, p.dscp, p.size_bytes);
                        }
                    }
                }
                Dequeue::NotBefore(t) => now = t.0.min(next_voice),
                Dequeue::Empty => panic!("the data classes are saturated"),
            }
        }
        assert!(h.classes.iter().all(|c| c.check(c.backlog_packets).is_ok()));
        (waits, bps)
    }

    #[test]
    fn a_childs_priority_class_keeps_its_priority_through_the_level() {
        // Voice in site `a`'s child LLQ: it waits at most for the 1000-byte packet on the
        // link (8 ms) and its own 1.6 ms transmission. Marked AF11 instead, the same
        // packets queue behind `a`'s data and wait far longer.
        let (waits, _) = voice_waits(&mut sites("{rate: 600kbps}"), 46);
        assert_eq!(waits.len(), 500);
        assert!(waits.iter().all(|&w| w <= 9_600_000), "{:?}", waits.iter().max());
        let (waits, _) = voice_waits(&mut sites("{rate: 600kbps}"), 10);
        assert!(waits.iter().sum::<u64>() / waits.len() as u64 > 50_000_000);
    }

    #[test]
    fn a_childs_priority_class_waits_for_its_sites_shaper() {
        // Site `a` shaped to 200 kbit/s, Bc = Be = 1000 B (Tc = 40 ms): its saturated data
        // uses the credit of every interval, so a voice packet waits for the next interval
        // (at most 40 ms), then for the packet on the link and its own transmission, and
        // goes first. Voice (80 kbit/s) and data together keep to the 200 kbit/s (1 %).
        let (waits, bps) = voice_waits(&mut sites("{rate: 200kbps, bc: 1000B, be: 1000B}"), 46);
        assert_eq!(waits.len(), 500);
        assert!(waits.iter().all(|&w| w <= 49_600_000), "{:?}", waits.iter().max());
        assert!(waits.iter().any(|&w| w > 9_600_000), "some voice waits for the shaper");
        let site_a_bps = bps[46] + bps[10];
        assert!((site_a_bps - 200_000.0).abs() < 2_000.0, "{site_a_bps}");
        assert!((bps[46] - 80_000.0).abs() < 800.0, "{}", bps[46]);
    }

    #[test]
    fn a_childs_packet_arriving_while_its_shaped_class_waits_leaves_at_once() {
        // Class `a`'s child holds `slow`, shaped to 64 kbit/s, and class-default: the child's
        // class-default packet leaves while `slow` waits for its credit, as in one policy.
        let mut q = build(
            "{scheduler: xe, classes: [{name: a, match: {}, bandwidth_remaining_ratio: 1, child: {kind: cbwfq, classes: [
                {name: slow, match: {dscp: AF11}, shape: {rate: 64kbps}}]}}]}",
        )
        .unwrap();
        shaped_beside_unshaped(&mut q, 0);
    }

    #[test]
    fn child_policy_errors() {
        let child = "child: {kind: cbwfq, classes: [{name: class-default}]}";
        let cases = [
            (format!("{{classes: [{{name: a, match: {{}}, bandwidth: 10%, {child}}}]}}"), "p.classes[0].child", "before HQF"),
            (format!("{{scheduler: xe, classes: [{{name: a, match: {{}}, bandwidth: 10%, {child}}}]}}"), "p.classes[0].bandwidth", "lowest level"),
            (format!("{{scheduler: xe, classes: [{{name: a, match: {{}}, {child}}}]}}"), "p.classes[0].child", "non-queuing"),
            (format!("{{scheduler: xe, classes: [{{name: a, match: {{}}, priority: 10%, {child}}}]}}"), "p.classes[0].child", "priority class"),
            (format!("{{scheduler: xe, classes: [{{name: a, match: {{}}, shape: {{rate: 100kbps}}, police: {{cir: 50kbps}}, {child}}}]}}"), "p.classes[0].police", "beside a child"),
            ("{scheduler: xe, classes: [{name: a, match: {}, shape: {rate: 100kbps}, child: {kind: fifo}}]}".to_owned(), "p.classes[0].child", "`cbwfq` policy"),
            ("{scheduler: xe, classes: [{name: a, match: {}, shape: {rate: 100kbps}, child: {kind: cbwfq, scheduler: hqf, classes: []}}]}".to_owned(), "p.classes[0].child.scheduler", "parent's `xe`"),
            ("{scheduler: xe, classes: [{name: a, match: {}, shape: {rate: 100kbps}, child: {kind: cbwfq, classes: [{name: b, match: {}, bandwidth: 200kbps}]}}]}".to_owned(), "p.classes[0].child", "class's 100 kbit/s"),
            ("{scheduler: xe, classes: [{name: a/b, match: {dscp: EF}, bandwidth: 1%}, {name: a, match: {}, shape: {rate: 100kbps}, child: {kind: cbwfq, classes: [{name: b, match: {}, bandwidth: 10%}]}}]}".to_owned(), "p.classes", "`a/b`"),
        ];
        for (yaml, path, needle) in cases {
            let issue = build(&yaml).expect_err(&yaml);
            assert_eq!(issue.key_path, path, "{yaml}: {}", issue.message);
            assert!(issue.message.contains(needle), "{yaml}: {}", issue.message);
        }
    }
}
