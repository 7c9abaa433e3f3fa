//! Deficit round robin — Shreedhar and Varghese, "Efficient fair queuing using deficit round
//! robin" (SIGCOMM 1995); Linux `sch_drr`.
//!
//! Packets are classified by the classes' `match` conditions in order (first match); what no
//! class matches goes to the default class. Each class has a FIFO queue with tail drop at
//! its limit (optionally random early detection first, [`crate::aqm`]), a quantum Q
//! (bytes) and a deficit counter D (bytes).
//!
//! Backlogged classes sit in one active list, served in turn. A class joining the list (its
//! queue was empty) is appended at the tail with D = Q. To pick the next packet, look at the
//! class at the head of the list: if its head packet of L bytes fits (L ≤ D), send it and
//! take L from D; the class stays at the head, so it keeps sending while its deficit lasts.
//! If the packet does not fit, the class receives another quantum (D += Q) and moves to the
//! tail, and the next class is examined. A class whose queue empties leaves the list and
//! forgets its deficit (D = 0), so an idle class cannot bank credit. This is the paper's
//! algorithm written as Linux's `drr_dequeue` arranges it (`net/sched/sch_drr.c`): the
//! quantum is granted when a class is passed over rather than at the start of its visit,
//! which gives the same sequence of transmissions.
//!
//! A packet costs the deficit what Linux's `drr` charges, `qdisc_pkt_len(skb)`: on an
//! Ethernet link the 14-byte header and the IP packet ([`super::linux_charge`]).
//!
//! Over a long busy period each backlogged class sends bytes in proportion to its quantum,
//! whatever its packet sizes; the unfairness in any interval is bounded by one maximum packet
//! plus one quantum. When every quantum is at least the largest packet, each dequeue examines
//! at most two classes per class in the list — O(1) per packet as the paper shows; smaller
//! quanta are allowed and cost a few extra rounds.

use super::class_queue::ClassQueue;
use super::linux_charge::LinuxCharge;
use super::packet_queue::QueueLimit;
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::aqm::RedSpec;
use crate::classify::class_setup::{element_path, ClassNames, Rules};
use crate::classify::{Classifier, MatchSpec};
use crate::config::error::{join_path, Issue};
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use crate::units::Size;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// Default quantum, bytes: one Ethernet-MTU IP packet.
pub const DEFAULT_QUANTUM_BYTES: u64 = 1500;
/// Default class queue limit, packets (Linux gives a DRR class a `pfifo` as long as the
/// device's `txqueuelen`, 1000 packets).
pub const DEFAULT_LIMIT_PACKETS: u32 = 1000;

/// One DRR class.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrrClassSpec {
    /// Class name, reported in results.
    pub name: String,
    /// Which packets belong to the class (first match); the default class may omit it.
    #[serde(rename = "match")]
    pub condition: Option<MatchSpec>,
    /// Bytes the class may send per round (default 1500 B).
    pub quantum: Option<Size>,
    /// Queue limit (default 1000 packets).
    pub limit: Option<QueueLimit>,
    /// Random early detection on the class queue (RED, WRED or RIO).
    pub random_detect: Option<RedSpec>,
}

/// Parameters of a DRR policy.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrrParams {
    /// Classes in evaluation order.
    pub classes: Vec<DrrClassSpec>,
    /// The class of packets no class matches (default: the last class).
    pub default: Option<String>,
}

/// A deficit round robin discipline.
#[derive(Clone, Debug)]
pub struct Drr {
    names: Vec<String>,
    queues: Vec<ClassQueue>,
    quantum_bytes: Vec<u64>,
    deficit_bytes: Vec<u64>,
    active: VecDeque<usize>,
    classifier: Classifier,
    packets: usize,
    /// What a packet costs the deficit, bytes.
    charge: LinuxCharge,
}

impl QdiscKind for Drr {
    const KIND: &'static str = "drr";
    const DEPENDS_ON_BANDWIDTH: bool = false;
    type Params = DrrParams;

    /// Builds from `params` found at key path `at` for `interface`.
    fn build(
        params: &Self::Params,
        at: &str,
        interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let class_at = |i: usize| element_path(at, "classes", i);
        if params.classes.is_empty() {
            return Err(Issue::at(join_path(at, "classes"), "DRR needs at least one class")
                .hint("add `classes: [{name: all, match: {}}]`"));
        }
        let mut names = ClassNames::with_capacity(params.classes.len());
        for (i, class) in params.classes.iter().enumerate() {
            names.add(&class.name, "class", join_path(&class_at(i), "name"))?;
        }
        let default_index = match &params.default {
            Some(name) => names.find_class(name, join_path(at, "default"))?,
            None => names.len() - 1,
        };
        let mut queues = Vec::with_capacity(names.len());
        let mut quantum_bytes = Vec::with_capacity(names.len());
        let mut rules = Rules::new();
        for (i, class) in params.classes.iter().enumerate() {
            let here = class_at(i);
            let quantum = class.quantum.map_or(DEFAULT_QUANTUM_BYTES, |s| s.0);
            if quantum == 0 {
                return Err(Issue::at(join_path(&here, "quantum"), "a quantum of 0 bytes never sends")
                    .hint("use at least the largest packet size, e.g. 1500B"));
            }
            match &class.condition {
                Some(condition) => rules.add(condition, &here, i as u32, node_address)?,
                None if i != default_index => {
                    return Err(Issue::at(&here, format!("class `{}` has no `match`", class.name))
                        .hint("add `match: {...}`, or make it the `default` class"))
                }
                None => {}
            }
            let red = interface.dropper(class.random_detect.as_ref(), &here, i)?;
            queues.push(ClassQueue::new(
                class.limit.unwrap_or(QueueLimit::Packets(DEFAULT_LIMIT_PACKETS)),
                red,
            ));
            quantum_bytes.push(quantum);
        }
        let count = names.len();
        Ok(Drr {
            names: names.into_vec(),
            queues,
            quantum_bytes,
            deficit_bytes: vec![0; count],
            active: VecDeque::with_capacity(count),
            classifier: rules.classifier(default_index as u32),
            packets: 0,
            charge: LinuxCharge::new(interface.device_header_bytes, None, at)?,
        })
    }
}

impl Drr {
    /// The quantum of class `class`, bytes.
    pub fn quantum_bytes(&self, class: usize) -> u64 {
        self.quantum_bytes[class]
    }

    /// The queue limit of class `class`.
    pub fn limit(&self, class: usize) -> QueueLimit {
        self.queues[class].limit()
    }
}

impl Qdisc for Drr {
    fn class_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        let class = self.classifier.classify(&packet) as usize;
        let queue = &mut self.queues[class];
        let was_empty = queue.is_empty();
        if !queue.offer(packet, class, ctx) {
            return;
        }
        if was_empty {
            self.active.push_back(class);
            self.deficit_bytes[class] = self.quantum_bytes[class];
        }
        self.packets += 1;
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        loop {
            let Some(&class) = self.active.front() else { return Dequeue::Empty };
            let queue = &mut self.queues[class];
            let head_bytes =
                self.charge.bytes(queue.head_size_bytes().expect("an active class holds packets")) as u64;
            if head_bytes <= self.deficit_bytes[class] {
                self.deficit_bytes[class] -= head_bytes;
                let packet = queue.pop(ctx.now).expect("an active class holds packets");
                if queue.is_empty() {
                    self.active.pop_front();
                    self.deficit_bytes[class] = 0;
                }
                self.packets -= 1;
                ctx.dequeued(class, &packet);
                return Dequeue::Packet(packet);
            }
            self.deficit_bytes[class] += self.quantum_bytes[class];
            self.active.rotate_left(1);
        }
    }

    fn len_packets(&self) -> usize {
        self.packets
    }

    fn take_packets(&mut self) -> Vec<Packet> {
        self.packets = 0;
        self.queues.iter_mut().flat_map(ClassQueue::take_all).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::DropReason;
    use crate::qdisc::testing::{harness, packet};

    const IFACE: Interface = crate::qdisc::testing::INTERFACE;

    fn build(yaml: &str) -> Result<Drr, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let params: DrrParams = serde_json::from_value(value).unwrap();
        Drr::build(&params, "p", IFACE, &|_| None)
    }

    fn drain(q: &mut Drr, h: &mut crate::qdisc::testing::Harness) -> Vec<u64> {
        std::iter::from_fn(|| match q.dequeue(&mut h.ctx()) {
            Dequeue::Packet(p) => Some(p.id),
            Dequeue::Empty | Dequeue::NotBefore(_) => None,
        })
        .collect()
    }

    #[test]
    fn defaults() {
        let q = build("{classes: [{name: a, match: {dscp: EF}}, {name: rest}]}").unwrap();
        assert_eq!(q.class_names(), ["a", "rest"]);
        assert_eq!(q.quantum_bytes(0), 1500);
        assert_eq!(q.limit(1), QueueLimit::Packets(1000));
        // Unmatched traffic goes to the last class unless `default` names another.
        assert_eq!(q.classifier.classify(&packet(0, 100, 0)), 1);
        let q = build("{default: a, classes: [{name: a}, {name: b, match: {dscp: EF}}]}").unwrap();
        assert_eq!(q.classifier.classify(&packet(0, 100, 0)), 0);
    }

    #[test]
    fn quantum_trace_with_unequal_packets() {
        // a: quantum 500 B, packets 300, 300, 300 (ids 1-3); b: quantum 1000 B, packets 800,
        // 800 (ids 4-5). a joins first with D = 500.
        // a: 300 ≤ 500 → send 1, D = 200; 300 > 200 → D = 700, a to the tail.
        // b: 800 ≤ 1000 → send 4, D = 200; 800 > 200 → D = 1200, b to the tail.
        // a: send 2 (D = 400), send 3 (D = 100), a empties and leaves (D = 0).
        // b: send 5 (D = 400), b empties.
        let mut q =
            build("{classes: [{name: a, match: {dscp: AF11}, quantum: 500B}, {name: b, quantum: 1000B}]}")
                .unwrap();
        let mut h = harness(2);
        for (id, size, dscp) in [(1, 300, 10), (2, 300, 10), (3, 300, 10), (4, 800, 0), (5, 800, 0)] {
            q.enqueue(packet(id, size, dscp), &mut h.ctx());
        }
        assert_eq!(drain(&mut q, &mut h), [1, 4, 2, 3, 5]);
        assert_eq!(q.deficit_bytes, [0, 0]);
        assert_eq!((h.classes[0].dequeued_packets, h.classes[1].dequeued_packets), (3, 2));
        assert_eq!(q.len_packets(), 0);
    }

    #[test]
    fn on_ethernet_a_packet_costs_its_header_too() {
        // a: 486-byte packets, b: 500-byte ones, quanta 1000 B. Charged as IP packets, each
        // visit sends two of either: a a b b a a b b. On Ethernet (14-byte header) a's cost
        // 500 and still go two a visit, b's cost 514: b sends one and carries 486 B, and on
        // its next visit (1486 B) sends the rest: a a b a a b b b.
        let yaml = "{classes: [{name: a, match: {dscp: AF11}, quantum: 1000B}, {name: b, quantum: 1000B}]}";
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let params: DrrParams = serde_json::from_value(value).unwrap();
        let order = |header: u32| {
            let iface = Interface { device_header_bytes: header, ..IFACE };
            let mut q = Drr::build(&params, "p", iface, &|_| None).unwrap();
            let mut h = harness(2);
            for id in 1..=4 {
                q.enqueue(packet(id, 486, 10), &mut h.ctx());
            }
            for id in 5..=8 {
                q.enqueue(packet(id, 500, 0), &mut h.ctx());
            }
            drain(&mut q, &mut h)
        };
        assert_eq!(order(0), [1, 2, 5, 6, 3, 4, 7, 8]);
        assert_eq!(order(14), [1, 2, 5, 3, 4, 6, 7, 8]);
    }

    #[test]
    fn deficit_is_forgotten_when_a_queue_empties() {
        // a (quantum 1000) sends one 100-byte packet and empties: its 900 B left are lost, so
        // on returning it starts again from one quantum. With b backlogged by 1000-byte packets,
        // a new 1000-byte a packet goes after b's current packet, not ahead of it.
        let mut q =
            build("{classes: [{name: a, match: {dscp: AF11}, quantum: 1000B}, {name: b, quantum: 1000B}]}")
                .unwrap();
        let mut h = harness(2);
        q.enqueue(packet(1, 100, 10), &mut h.ctx());
        assert_eq!(drain(&mut q, &mut h), [1]);
        assert_eq!(q.deficit_bytes[0], 0);
        q.enqueue(packet(2, 1000, 0), &mut h.ctx());
        q.enqueue(packet(3, 1000, 0), &mut h.ctx());
        q.enqueue(packet(4, 1000, 10), &mut h.ctx());
        assert_eq!(drain(&mut q, &mut h), [2, 4, 3]);
    }

    #[test]
    fn small_quantum_still_sends_large_packets() {
        // A 100-byte quantum and a 1500-byte packet: the class collects quanta until it fits.
        let mut q = build("{classes: [{name: a, quantum: 100B}]}").unwrap();
        let mut h = harness(1);
        q.enqueue(packet(1, 1500, 0), &mut h.ctx());
        assert_eq!(drain(&mut q, &mut h), [1]);
    }

    #[test]
    fn tail_drop_at_the_class_limit() {
        let mut q = build("{classes: [{name: a, limit: 2}]}").unwrap();
        let mut h = harness(1);
        for id in 0..3 {
            q.enqueue(packet(id, 100, 0), &mut h.ctx());
        }
        assert_eq!(h.classes[0].dropped_for(DropReason::TailDrop), 1);
        assert_eq!(q.len_packets(), 2);
    }

    #[test]
    fn configuration_errors() {
        let cases = [
            ("{classes: []}", "p.classes", "at least one class"),
            ("{classes: [{name: a}, {name: a}]}", "p.classes[1].name", "twice"),
            ("{classes: [{name: a}, {name: b}]}", "p.classes[0]", "has no `match`"),
            ("{default: x, classes: [{name: a}]}", "p.default", "no class `x`"),
            ("{classes: [{name: a, quantum: 0B}]}", "p.classes[0].quantum", "0 bytes"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = build(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
    }
}
