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
//!   compete (Cisco tech note 110850; `qos-behaviour.md` A.6).
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
//! Percentages are of the interface's QoS bandwidth (IOS `bandwidth` command), not of the
//! physical rate. `remaining` percentages are of what the priority classes leave. When the
//! policy is attached, priority and bandwidth reservations together must not exceed
//! `max_reserved` (75 % by default, IOS `max-reserved-bandwidth`) of the interface bandwidth
//! (`qos-behaviour.md` A.5).

use super::ctx::QdiscCtx;
use super::packet_queue::QueueLimit;
use super::scfq::Scfq;
use super::wfq::{conversation_hash, precedence_weight, IOS_WEIGHT_NUMERATOR};
use super::{Dequeue, Interface, Qdisc};
use crate::aqm::{Admission, Red, RedSpec};
use crate::classify::{Classifier, MatchSpec};
use crate::condition::marker::{Marker, SetSpec};
use crate::condition::policer::{PoliceSpec, Policer, Verdict};
use crate::condition::TokenBucket;
use crate::measure::DropReason;
use crate::packet::Packet;
use crate::scenario::error::{join_path, Issue};
use crate::units::{Percent, RateOrShare, Size};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// Default class queue limit, packets (IOS "Max Threshold 64 (packets)").
pub const DEFAULT_QUEUE_LIMIT_PACKETS: u32 = 64;
/// Default share of the interface bandwidth that classes may reserve, parts per million.
pub const DEFAULT_MAX_RESERVED_PPM: u64 = 750_000;
/// Default class weight constant (not published by Cisco; fits the INE lab measurement).
pub const DEFAULT_WEIGHT_CONSTANT: u64 = 64;
/// Default LLQ burst: 200 ms of traffic at the class's rate.
pub const DEFAULT_BURST_NS: u64 = 200_000_000;
/// Smallest LLQ burst IOS accepts, bytes.
pub const MIN_BURST_BYTES: u64 = 32;
/// Largest LLQ burst IOS accepts, bytes.
pub const MAX_BURST_BYTES: u64 = 2_000_000;
/// Default dynamic queues of a fair-queued class-default.
pub const DEFAULT_DEFAULT_CLASS_QUEUES: u32 = 256;
/// The name of the class that takes unmatched traffic.
pub const CLASS_DEFAULT: &str = "class-default";

/// `fair_queue: true` or `fair_queue: {dynamic_queues: 64}` on class-default.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FairQueueSpec {
    /// On with the default number of queues, or off.
    Switch(bool),
    /// On with this many dynamic queues (a power of two, 16–4096).
    Queues {
        /// Dynamic conversation queues.
        dynamic_queues: u32,
    },
}

/// One class of a CBWFQ policy.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    /// Class name; `class-default` takes unmatched traffic.
    pub name: String,
    /// Which packets belong to the class (not for class-default).
    #[serde(rename = "match")]
    pub condition: Option<MatchSpec>,
    /// LLQ: a strict-priority class with this policed rate (`64kbps` or `20%`).
    pub priority: Option<RateOrShare>,
    /// LLQ policer depth (default 200 ms at the priority rate).
    pub burst: Option<Size>,
    /// Guaranteed bandwidth (`64kbps` or `20%` of the interface bandwidth).
    pub bandwidth: Option<RateOrShare>,
    /// Guaranteed share of the bandwidth the priority classes leave.
    pub bandwidth_remaining: Option<Percent>,
    /// Queue limit in packets (default 64).
    pub queue_limit: Option<u32>,
    /// class-default only: flow-based fair queuing inside the class.
    pub fair_queue: Option<FairQueueSpec>,
    /// Re-mark the class's packets (IOS `set ip dscp|precedence` in the class), before
    /// policing.
    pub set: Option<SetSpec>,
    /// Police the class's packets (IOS `police` in the class) before they are queued; its
    /// percentages are of the interface bandwidth.
    pub police: Option<PoliceSpec>,
    /// WRED on the class queue (IOS `random-detect` in the class): RED, WRED or RIO.
    pub random_detect: Option<RedSpec>,
}

/// Parameters of a CBWFQ/LLQ policy.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbwfqParams {
    /// Classes in evaluation order.
    pub classes: Vec<ClassSpec>,
    /// Share of the interface bandwidth that priority and bandwidth classes may reserve
    /// (default 75 %).
    pub max_reserved: Option<Percent>,
    /// Class weight constant (default 64).
    pub weight_constant: Option<u64>,
}

/// What a class does with its packets.
#[derive(Clone, Debug)]
enum ClassKind {
    /// Into the priority queue, policed under congestion.
    Priority(TokenBucket),
    /// Into its own scheduler queue with this weight and limit.
    Queue { queue: usize, weight: u64, limit: usize },
    /// Into one of the fair-queued conversations `first..first + count`.
    FairQueue { first: usize, mask: u64, limit: usize },
}

/// A CBWFQ/LLQ discipline.
#[derive(Clone, Debug)]
pub struct Cbwfq {
    names: Vec<String>,
    kinds: Vec<ClassKind>,
    classifier: Classifier,
    priority_queue: VecDeque<(Packet, usize)>,
    /// Per class: the marker and the policer applied before queuing.
    conditioning: Vec<(Option<Marker>, Option<Policer>)>,
    /// Per class: the random early detection dropper of its queue, if any.
    droppers: Vec<Option<Red>>,
    scfq: Scfq,
    queue_class: Vec<usize>,
}

fn fair_queue_count(spec: &FairQueueSpec, at: &str) -> Result<Option<u32>, Issue> {
    match *spec {
        FairQueueSpec::Switch(false) => Ok(None),
        FairQueueSpec::Switch(true) => Ok(Some(DEFAULT_DEFAULT_CLASS_QUEUES)),
        FairQueueSpec::Queues { dynamic_queues: n } if (16..=4096).contains(&n) && n.is_power_of_two() => {
            Ok(Some(n))
        }
        FairQueueSpec::Queues { dynamic_queues: n } => {
            Err(Issue::at(join_path(at, "dynamic_queues"), format!("{n} dynamic queues is not allowed"))
                .hint("use a power of two from 16 to 4096"))
        }
    }
}

/// The number of conversation queues of a fair-queued class, or `None` for a FIFO class.
fn fair_queues(class: &ClassSpec, at: &str) -> Result<Option<u32>, Issue> {
    match &class.fair_queue {
        None => Ok(None),
        Some(spec) => fair_queue_count(spec, &join_path(at, "fair_queue")),
    }
}

impl Cbwfq {
    /// The `kind` of this discipline in scenarios.
    pub const KIND: &'static str = "cbwfq";

    /// Builds from `params` found at key path `at` for `interface`.
    pub fn build(
        params: &CbwfqParams,
        at: &str,
        interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let bw = interface.bandwidth_bps;
        let class_at = |i: usize| format!("{}[{i}]", join_path(at, "classes"));
        let mut names: Vec<String> = Vec::new();
        for (i, class) in params.classes.iter().enumerate() {
            if names.contains(&class.name) {
                return Err(Issue::at(
                    join_path(&class_at(i), "name"),
                    format!("class `{}` is defined twice", class.name),
                ));
            }
            names.push(class.name.clone());
            let is_default = class.name == CLASS_DEFAULT;
            let here = class_at(i);
            let forms =
                [class.priority.is_some(), class.bandwidth.is_some(), class.bandwidth_remaining.is_some()];
            if forms.iter().filter(|f| **f).count() > 1 {
                return Err(Issue::at(
                    &here,
                    "a class takes one of `priority`, `bandwidth` and `bandwidth_remaining`",
                )
                .hint("keep the one that says what the class needs"));
            }
            if is_default && class.condition.is_some() {
                return Err(Issue::at(
                    join_path(&here, "match"),
                    "class-default takes what no other class matches",
                )
                .hint("remove `match`, or give the class another name"));
            }
            if is_default && i + 1 != params.classes.len() {
                return Err(Issue::at(&here, "class-default must be the last class"));
            }
            if is_default && class.priority.is_some() {
                return Err(Issue::at(
                    join_path(&here, "priority"),
                    "class-default cannot be a priority class",
                ));
            }
            if !is_default && class.condition.is_none() {
                return Err(Issue::at(&here, format!("class `{}` has no `match`", class.name))
                    .hint("add `match: {...}` (an empty `match: {}` takes every packet)"));
            }
            if !is_default && class.fair_queue.is_some() {
                return Err(Issue::at(
                    join_path(&here, "fair_queue"),
                    "only class-default can be fair-queued here",
                ));
            }
            if class.priority.is_some() && class.queue_limit.is_some() {
                return Err(Issue::at(
                    join_path(&here, "queue_limit"),
                    "a priority class has no queue of its own",
                )
                .hint("its traffic is bounded by its policer; remove `queue_limit`"));
            }
            if class.burst.is_some() && class.priority.is_none() {
                return Err(Issue::at(join_path(&here, "burst"), "`burst` belongs to a priority class"));
            }
            if fair_queues(class, &here)?.is_some()
                && (class.bandwidth.is_some() || class.bandwidth_remaining.is_some())
            {
                return Err(Issue::at(join_path(&here, "fair_queue"), "a fair-queued class-default is scheduled by its conversations' weights, not by a bandwidth")
                    .hint("remove `bandwidth`, or set `fair_queue: false` to give the class one queue with that bandwidth"));
            }
            if class.bandwidth_remaining.is_some_and(|p| p.0 == 0 || p.0 > 1_000_000) {
                return Err(Issue::at(join_path(&here, "bandwidth_remaining"), "must be from 1 % to 100 %"));
            }
            if class.random_detect.is_some() && class.priority.is_some() {
                return Err(Issue::at(
                    join_path(&here, "random_detect"),
                    "a priority class has no queue of its own to run WRED on",
                )
                .hint("its traffic is bounded by its policer; remove `random_detect`"));
            }
            if class.random_detect.is_some() && fair_queues(class, &here)?.is_some() {
                return Err(Issue::at(
                    join_path(&here, "random_detect"),
                    "WRED on a fair-queued class-default is not modelled",
                )
                .hint("set `fair_queue: false` to give class-default one queue with WRED"));
            }
            if class.queue_limit == Some(0) {
                return Err(Issue::at(
                    join_path(&here, "queue_limit"),
                    "a queue limit of 0 packets holds nothing",
                ));
            }
        }
        if !names.iter().any(|n| n == CLASS_DEFAULT) {
            names.push(CLASS_DEFAULT.to_owned());
        }
        // IOS refuses to mix absolute/percent bandwidth with remaining percent in one policy.
        let uses_remaining = params.classes.iter().any(|c| c.bandwidth_remaining.is_some());
        if uses_remaining {
            if let Some(i) = params.classes.iter().position(|c| c.bandwidth.is_some()) {
                return Err(Issue::at(
                    join_path(&class_at(i), "bandwidth"),
                    "`bandwidth` and `bandwidth_remaining` cannot be mixed in one policy",
                )
                .hint("give every class its guarantee in the same form"));
            }
        }

        // Reservations, bit/s.
        let priority_bps: Vec<Option<u64>> =
            params.classes.iter().map(|c| c.priority.map(|r| r.bps(bw))).collect();
        let bandwidth_bps: Vec<Option<u64>> =
            params.classes.iter().map(|c| c.bandwidth.map(|r| r.bps(bw))).collect();
        for (i, (p, b)) in priority_bps.iter().zip(&bandwidth_bps).enumerate() {
            if *p == Some(0) || *b == Some(0) {
                let key = if p.is_some() { "priority" } else { "bandwidth" };
                return Err(Issue::at(join_path(&class_at(i), key), "the rate must be above zero"));
            }
        }
        let reserved_bps: u64 = priority_bps.iter().chain(&bandwidth_bps).flatten().sum();
        let max_reserved_ppm = params.max_reserved.map_or(DEFAULT_MAX_RESERVED_PPM, |p| p.0);
        if max_reserved_ppm == 0 || max_reserved_ppm > 1_000_000 {
            return Err(Issue::at(join_path(at, "max_reserved"), "must be above 0 % and at most 100 %"));
        }
        let available_bps = (bw as u128 * max_reserved_ppm as u128 / 1_000_000) as u64;
        if interface.admission && reserved_bps > available_bps {
            return Err(Issue::at(
                at,
                format!(
                    "the classes reserve {} kbit/s, but only {} kbit/s may be reserved ({} % of the {} kbit/s interface bandwidth)",
                    reserved_bps / 1000,
                    available_bps / 1000,
                    max_reserved_ppm as f64 / 10_000.0,
                    bw / 1000
                ),
            )
            .hint("lower the `priority` and `bandwidth` reservations, or raise `max_reserved` (IOS `max-reserved-bandwidth`, at most 100 %)"));
        }
        let remaining_sum_ppm: u64 =
            params.classes.iter().filter_map(|c| c.bandwidth_remaining.map(|p| p.0)).sum();
        if remaining_sum_ppm > 1_000_000 {
            return Err(Issue::at(
                join_path(at, "classes"),
                "the `bandwidth_remaining` shares add up to more than 100 %",
            ));
        }
        let priority_total_bps: u64 = priority_bps.iter().flatten().sum();
        let remaining_bps = bw.saturating_sub(priority_total_bps);
        if uses_remaining && remaining_bps == 0 {
            return Err(Issue::at(
                join_path(at, "classes"),
                "the priority classes leave no bandwidth for `bandwidth_remaining` classes",
            )
            .hint("lower the `priority` rates"));
        }
        let constant = params.weight_constant.unwrap_or(DEFAULT_WEIGHT_CONSTANT);
        if constant == 0 {
            return Err(Issue::at(join_path(at, "weight_constant"), "must be above zero"));
        }
        // weight = constant × interface bandwidth / class bandwidth (at least 1).
        let weight_for =
            |class_bps: u64| ((constant as u128 * bw as u128) / class_bps.max(1) as u128).max(1) as u64;

        // The class-default's bandwidth when it has no guarantee of its own: what is left.
        let unreserved_bps = if uses_remaining {
            (remaining_bps as u128 * (1_000_000 - remaining_sum_ppm) as u128 / 1_000_000) as u64
        } else {
            bw.saturating_sub(reserved_bps)
        }
        .max(bw / 100);

        let mut kinds = Vec::with_capacity(names.len());
        let mut queue_class = Vec::new();
        let mut rules = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let spec = params.classes.get(i);
            let here = class_at(i);
            let limit = spec.and_then(|c| c.queue_limit).unwrap_or(DEFAULT_QUEUE_LIMIT_PACKETS) as usize;
            let kind = match spec {
                Some(c) if c.priority.is_some() => {
                    let rate_bps = priority_bps[i].expect("a priority class has a rate");
                    let burst_bytes = match c.burst {
                        Some(b) if (MIN_BURST_BYTES..=MAX_BURST_BYTES).contains(&b.0) => b.0,
                        Some(b) => {
                            return Err(Issue::at(
                                join_path(&here, "burst"),
                                format!("{} B is outside the IOS range", b.0),
                            )
                            .hint("use 32B to 2000000B"))
                        }
                        // 200 ms at the rate, but not below the IOS minimum of 32 bytes.
                        None => ((rate_bps as u128 * DEFAULT_BURST_NS as u128 / 8_000_000_000) as u64)
                            .max(MIN_BURST_BYTES),
                    };
                    ClassKind::Priority(TokenBucket::new(rate_bps, burst_bytes))
                }
                Some(c) if fair_queues(c, &here)?.is_some() => {
                    let count = fair_queues(c, &here)?.expect("checked in the guard");
                    let first = queue_class.len();
                    queue_class.extend(std::iter::repeat_n(i, count as usize));
                    ClassKind::FairQueue { first, mask: count as u64 - 1, limit }
                }
                Some(c) => {
                    let class_bps = match (bandwidth_bps[i], c.bandwidth_remaining) {
                        (Some(b), _) => b,
                        (None, Some(share)) => ((remaining_bps as u128 * share.0 as u128) / 1_000_000) as u64,
                        (None, None) if name == CLASS_DEFAULT => unreserved_bps,
                        (None, None) => {
                            return Err(Issue::at(&here, format!("class `{name}` has neither `priority` nor `bandwidth`"))
                                .hint("give it `bandwidth: 64kbps`, `bandwidth: 20%`, `bandwidth_remaining: 20%` or `priority: ...`"))
                        }
                    };
                    queue_class.push(i);
                    ClassKind::Queue { queue: queue_class.len() - 1, weight: weight_for(class_bps), limit }
                }
                None => {
                    queue_class.push(i);
                    ClassKind::Queue {
                        queue: queue_class.len() - 1,
                        weight: weight_for(unreserved_bps),
                        limit,
                    }
                }
            };
            kinds.push(kind);
            if let Some(condition) = spec.and_then(|c| c.condition.as_ref()) {
                rules.push((condition.compile(&join_path(&here, "match"), node_address)?, i as u32));
            }
        }
        let mut conditioning = Vec::with_capacity(names.len());
        let mut droppers = Vec::with_capacity(names.len());
        for i in 0..names.len() {
            let here = class_at(i);
            let spec = params.classes.get(i);
            let marker = match spec.and_then(|c| c.set.as_ref()) {
                Some(set) => Some(Marker::build(set, &join_path(&here, "set"))?),
                None => None,
            };
            let policer = match spec.and_then(|c| c.police.as_ref()) {
                Some(police) => Some(Policer::build(police, &join_path(&here, "police"), bw)?),
                None => None,
            };
            conditioning.push((marker, policer));
            droppers.push(interface.dropper(spec.and_then(|c| c.random_detect.as_ref()), &here, i)?);
        }
        let default_index = names.iter().position(|n| n == CLASS_DEFAULT).expect("added above") as u32;
        Ok(Cbwfq {
            names,
            kinds,
            classifier: Classifier::new(rules, default_index),
            priority_queue: VecDeque::new(),
            conditioning,
            droppers,
            scfq: Scfq::new(queue_class.len()),
            queue_class,
        })
    }

    /// The class limit as a [`QueueLimit`], for documentation and tests.
    pub fn class_limit(&self, class: usize) -> Option<QueueLimit> {
        match self.kinds[class] {
            ClassKind::Priority(_) => None,
            ClassKind::Queue { limit, .. } | ClassKind::FairQueue { limit, .. } => {
                Some(QueueLimit::Packets(limit as u32))
            }
        }
    }
}

impl Qdisc for Cbwfq {
    fn class_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn enqueue(&mut self, mut packet: Packet, ctx: &mut QdiscCtx) {
        let class = self.classifier.classify(&packet) as usize;
        // The class's own conditioning: re-mark, then police (IOS applies `set` and
        // `police` in the class before queuing).
        let (marker, policer) = &mut self.conditioning[class];
        if let Some(marker) = marker {
            marker.apply(&mut packet);
        }
        if let Some(policer) = policer {
            if let Verdict::Drop(reason) = policer.police(ctx.now, &mut packet) {
                return ctx.drop_arrival(class, packet, reason);
            }
        }
        let congested = !ctx.ring_has_room || self.len_packets() > 0;
        match &mut self.kinds[class] {
            ClassKind::Priority(policer) => {
                // The conditional policer: only under congestion (IOS pre-HQF LLQ).
                if congested && !policer.conform(ctx.now, packet.size_bytes) {
                    return ctx.drop_arrival(class, packet, DropReason::Policed);
                }
                ctx.enqueued(class, &packet);
                self.priority_queue.push_back((packet, class));
            }
            ClassKind::Queue { queue, weight, limit } => {
                let held = self.scfq.queue_len(*queue);
                let packet = match &mut self.droppers[class] {
                    Some(red) => match red.admit(packet, held as u64, held >= *limit, class, ctx) {
                        Admission::Accept(packet) => packet,
                        Admission::Dropped => return,
                    },
                    None if held >= *limit => return ctx.drop_arrival(class, packet, DropReason::TailDrop),
                    None => packet,
                };
                ctx.enqueued(class, &packet);
                self.scfq.push(*queue, packet, *weight);
            }
            ClassKind::FairQueue { first, mask, limit } => {
                let queue = *first + (conversation_hash(&packet) & *mask) as usize;
                if self.scfq.queue_len(queue) >= *limit {
                    return ctx.drop_arrival(class, packet, DropReason::TailDrop);
                }
                ctx.enqueued(class, &packet);
                self.scfq.push(queue, packet, precedence_weight(IOS_WEIGHT_NUMERATOR, packet.precedence()));
            }
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        // Strict priority first, then the sequence-number scheduler.
        let next = self.priority_queue.pop_front().or_else(|| {
            let (queue, packet) = self.scfq.pop()?;
            let class = self.queue_class[queue];
            if let Some(red) = &mut self.droppers[class] {
                red.dequeued(&packet, self.scfq.queue_len(queue) as u64, ctx.now);
            }
            Some((packet, class))
        });
        match next {
            Some((packet, class)) => {
                ctx.dequeued(class, &packet);
                Dequeue::Packet(packet)
            }
            None => Dequeue::Empty,
        }
    }

    fn len_packets(&self) -> usize {
        self.priority_queue.len() + self.scfq.len_packets()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet};
    use crate::time::SimTime;

    const MBPS: Interface = Interface { bandwidth_bps: 1_000_000, admission: true, random_seed: 1 };

    fn build(yaml: &str) -> Result<Cbwfq, Issue> {
        let (value, _) = crate::scenario::yaml::parse(yaml).unwrap();
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
        let ClassKind::Priority(mut policer) = q.kinds[0].clone() else { panic!() };
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
        ];
        for (yaml, path, fragment) in cases {
            let issue = build(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
    }
}
