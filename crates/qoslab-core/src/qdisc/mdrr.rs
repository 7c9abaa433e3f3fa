//! Modified deficit round robin — the Cisco 12000 (GSR) `cos-queue-group` scheduler.
//!
//! Up to seven regular queues share the link by deficit round robin (Shreedhar & Varghese,
//! SIGCOMM 1995): each visit adds the queue's quantum to its deficit, the queue sends head
//! packets while they fit in the deficit, and a queue that empties loses what is left, so a
//! backlogged queue's long-run share is its quantum over the sum of the backlogged quanta.
//! The quantum of a queue of weight w is MTU + (w − 1) × 512 bytes. An eighth, low-latency
//! queue is served either in `strict` mode — whenever it holds a packet — or in `alternate`
//! mode — visits alternate between it (with its own quantum) and one regular queue, which
//! bounds its share (Cisco, "Understanding and Configuring MDRR and WRED on the Cisco 12000
//! Series"; `docs/reference/ios-defaults.md`). The queue count, the quantum formula and the
//! exact alternate rule are not in the Cisco text retrieved, so they are parameters with
//! these documented values. Each queue drops at its tail, or first by WRED
//! (`random_detect`, [`crate::aqm`]): the GSR's `random-detect-label` profiles.
//! Cost: O(1) per packet.

use super::class_queue::ClassQueue;
use super::packet_queue::QueueLimit;
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::aqm::RedSpec;
use crate::classify::class_setup::{compile_match, element_path, ClassNames, Rules};
use crate::classify::{Classifier, MatchSpec};
use crate::config::error::{join_path, Issue};
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use crate::time::SimTime;
use crate::units::Size;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// Most regular queues a GSR port has.
pub const MAX_REGULAR_QUEUES: usize = 7;
/// Bytes of quantum per unit of weight above 1.
pub const QUANTUM_BYTES_PER_WEIGHT: u64 = 512;
/// Default MTU in the quantum formula, bytes.
pub const DEFAULT_MTU_BYTES: u64 = 1500;
/// Default queue limit, packets.
pub const DEFAULT_LIMIT: QueueLimit = QueueLimit::Packets(64);
/// The name rules use for the low-latency queue.
pub const LOW_LATENCY: &str = "low-latency";

/// How the low-latency queue is served.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LowLatencyMode {
    /// Whenever it holds a packet (IOS `queue low-latency strict-priority`).
    #[default]
    Strict,
    /// In turn with one regular queue's visit (IOS `queue low-latency alternate-priority w`).
    Alternate,
}

/// A regular queue.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MdrrQueueSpec {
    /// Queue name, used by rules and in results.
    pub name: String,
    /// Weight 1–2048 (default 1): quantum = MTU + (weight − 1) × 512 bytes.
    pub weight: Option<u64>,
    /// Queue limit (default 64 packets).
    pub limit: Option<QueueLimit>,
    /// WRED on the queue: the cos-queue-group's `random-detect-label` profiles for the
    /// precedences this queue carries (`based_on: precedence`, the default).
    pub random_detect: Option<RedSpec>,
}

/// The low-latency queue.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LowLatencySpec {
    /// `strict` (default) or `alternate`.
    pub mode: Option<LowLatencyMode>,
    /// Weight in alternate mode (default 1).
    pub weight: Option<u64>,
    /// Queue limit (default 64 packets).
    pub limit: Option<QueueLimit>,
    /// WRED on the low-latency queue.
    pub random_detect: Option<RedSpec>,
}

/// A classification rule: packets matching `match` go to `queue` (a regular queue's name, or
/// `low-latency`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MdrrRule {
    /// The condition.
    #[serde(rename = "match")]
    pub condition: MatchSpec,
    /// Target queue.
    pub queue: String,
}

/// Parameters of MDRR.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MdrrParams {
    /// Regular queues (1 to 7).
    pub queues: Vec<MdrrQueueSpec>,
    /// The low-latency queue, if any.
    pub low_latency: Option<LowLatencySpec>,
    /// Queue of unmatched packets (default: the first regular queue).
    pub default: Option<String>,
    /// First-match rules.
    #[serde(default)]
    pub classify: Vec<MdrrRule>,
    /// MTU in the quantum formula (default 1500 B).
    pub mtu: Option<Size>,
}

/// One queue with its deficit.
#[derive(Clone, Debug)]
struct DrrQueue {
    packets: ClassQueue,
    quantum_bytes: u64,
    deficit_bytes: u64,
}

/// Whose turn it is in alternate mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Turn {
    LowLatency,
    Regular,
}

/// The MDRR discipline. Class indices: regular queues in order, then the low-latency queue.
#[derive(Clone, Debug)]
pub struct Mdrr {
    names: Vec<String>,
    queues: Vec<DrrQueue>,
    low_latency: Option<(usize, LowLatencyMode)>,
    classifier: Classifier,
    /// Backlogged regular queues in round-robin order; the front is being visited.
    active: VecDeque<usize>,
    /// Whether the front regular queue's visit has begun (its quantum added).
    visiting: bool,
    /// Whether a low-latency visit has begun (alternate mode).
    low_latency_visiting: bool,
    turn: Turn,
}

fn quantum(weight: Option<u64>, mtu_bytes: u64, at: &str) -> Result<u64, Issue> {
    match weight.unwrap_or(1) {
        w @ 1..=2048 => Ok(mtu_bytes + (w - 1) * QUANTUM_BYTES_PER_WEIGHT),
        w => Err(Issue::at(join_path(at, "weight"), format!("weight {w} is outside 1-2048"))),
    }
}

impl QdiscKind for Mdrr {
    const KIND: &'static str = "mdrr";
    const DEPENDS_ON_BANDWIDTH: bool = false;
    type Params = MdrrParams;

    /// Builds from `params` found at key path `at`.
    fn build(
        params: &Self::Params,
        at: &str,
        interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        if params.queues.is_empty() || params.queues.len() > MAX_REGULAR_QUEUES {
            return Err(Issue::at(
                join_path(at, "queues"),
                format!("{} regular queues", params.queues.len()),
            )
            .hint("give 1 to 7 regular queues, as a GSR port has"));
        }
        let mtu_bytes = params.mtu.map_or(DEFAULT_MTU_BYTES, |m| m.0);
        let mut names = ClassNames::with_capacity(params.queues.len() + 1);
        let mut queues = Vec::new();
        for (i, spec) in params.queues.iter().enumerate() {
            let here = element_path(at, "queues", i);
            if spec.name == LOW_LATENCY || names.contains(&spec.name) {
                return Err(Issue::at(
                    join_path(&here, "name"),
                    format!("queue name `{}` is taken", spec.name),
                ));
            }
            names.push(&spec.name);
            queues.push(DrrQueue {
                packets: ClassQueue::new(
                    spec.limit.unwrap_or(DEFAULT_LIMIT),
                    interface.dropper(spec.random_detect.as_ref(), &here, queues.len())?,
                ),
                quantum_bytes: quantum(spec.weight, mtu_bytes, &here)?,
                deficit_bytes: 0,
            });
        }
        let low_latency = match &params.low_latency {
            None => None,
            Some(spec) => {
                let here = join_path(at, "low_latency");
                names.push(LOW_LATENCY);
                queues.push(DrrQueue {
                    packets: ClassQueue::new(
                        spec.limit.unwrap_or(DEFAULT_LIMIT),
                        interface.dropper(spec.random_detect.as_ref(), &here, queues.len())?,
                    ),
                    quantum_bytes: quantum(spec.weight, mtu_bytes, &here)?,
                    deficit_bytes: 0,
                });
                Some((queues.len() - 1, spec.mode.unwrap_or_default()))
            }
        };
        let default = match &params.default {
            Some(name) => names.resolve(name, "queue", join_path(at, "default"))?,
            None => 0,
        };
        let mut rules = Rules::new();
        for (i, rule) in params.classify.iter().enumerate() {
            let path = element_path(at, "classify", i);
            let matcher = compile_match(&rule.condition, &path, node_address)?;
            rules.push(matcher, names.resolve(&rule.queue, "queue", join_path(&path, "queue"))?);
        }
        Ok(Mdrr {
            names: names.into_vec(),
            queues,
            low_latency,
            classifier: rules.classifier(default),
            active: VecDeque::with_capacity(MAX_REGULAR_QUEUES),
            visiting: false,
            low_latency_visiting: false,
            turn: Turn::LowLatency,
        })
    }
}

impl Mdrr {
    /// One step of deficit round robin over the regular queues: the packet sent (if any)
    /// and whether the visit in progress is over. With `one_visit`, a visit that ends
    /// without sending returns at once instead of starting the next queue's visit.
    fn regular(&mut self, one_visit: bool, now: SimTime) -> (Option<(usize, Packet)>, bool) {
        loop {
            let Some(&q) = self.active.front() else {
                return (None, true);
            };
            let queue = &mut self.queues[q];
            if !self.visiting {
                queue.deficit_bytes += queue.quantum_bytes;
                self.visiting = true;
            }
            let size = queue.packets.head_size_bytes().expect("active queues are backlogged") as u64;
            if size <= queue.deficit_bytes {
                queue.deficit_bytes -= size;
                let packet = queue.packets.pop(now).expect("checked above");
                let emptied = queue.packets.is_empty();
                if emptied {
                    // An emptied queue forfeits its deficit (it would otherwise hoard credit).
                    queue.deficit_bytes = 0;
                    self.active.pop_front();
                    self.visiting = false;
                }
                return (Some((q, packet)), emptied);
            }
            // The head no longer fits: the visit ends, the queue goes to the back.
            self.active.rotate_left(1);
            self.visiting = false;
            if one_visit {
                return (None, true);
            }
        }
    }

    /// One step of a low-latency visit (alternate mode): the head leaves if it fits in the
    /// deficit. When the visit ends (queue empty, or the head does not fit) the turn passes
    /// to the regular queues.
    fn low_latency_visit(&mut self, ll: usize, now: SimTime) -> Option<Packet> {
        let queue = &mut self.queues[ll];
        let Some(size) = queue.packets.head_size_bytes() else {
            self.turn = Turn::Regular;
            return None;
        };
        if !self.low_latency_visiting {
            queue.deficit_bytes += queue.quantum_bytes;
            self.low_latency_visiting = true;
        }
        if (size as u64) > queue.deficit_bytes {
            self.low_latency_visiting = false;
            self.turn = Turn::Regular;
            return None;
        }
        queue.deficit_bytes -= size as u64;
        let packet = queue.packets.pop(now);
        if queue.packets.is_empty() {
            queue.deficit_bytes = 0;
            self.low_latency_visiting = false;
            self.turn = Turn::Regular;
        }
        packet
    }

    /// Alternate mode: a low-latency visit, then one regular visit, and so on; either side
    /// takes every slot while the other is empty.
    fn alternate(&mut self, ll: usize, now: SimTime) -> Option<(usize, Packet)> {
        loop {
            if self.turn == Turn::LowLatency {
                if let Some(packet) = self.low_latency_visit(ll, now) {
                    return Some((ll, packet));
                }
            }
            if self.active.is_empty() {
                // No regular traffic: the low-latency queue has the link to itself.
                self.turn = Turn::LowLatency;
                self.low_latency_visiting = false;
                self.queues[ll].deficit_bytes = 0;
                return self.queues[ll].packets.pop(now).map(|p| (ll, p));
            }
            let (sent, visit_over) = self.regular(true, now);
            if visit_over {
                self.turn = Turn::LowLatency;
            }
            if sent.is_some() {
                return sent;
            }
        }
    }
}

impl Qdisc for Mdrr {
    fn class_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        let class = self.classifier.classify(&packet) as usize;
        let queue = &mut self.queues[class];
        let was_empty = queue.packets.is_empty();
        if queue.packets.offer(packet, class, ctx)
            && was_empty
            && self.low_latency.is_none_or(|(ll, _)| ll != class)
        {
            self.active.push_back(class);
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        let next = match self.low_latency {
            Some((ll, LowLatencyMode::Strict)) if !self.queues[ll].packets.is_empty() => {
                self.queues[ll].packets.pop(ctx.now).map(|p| (ll, p))
            }
            Some((ll, LowLatencyMode::Alternate)) => self.alternate(ll, ctx.now),
            _ => self.regular(false, ctx.now).0,
        };
        match next {
            Some((class, packet)) => {
                ctx.dequeued(class, &packet);
                Dequeue::Packet(packet)
            }
            None => Dequeue::Empty,
        }
    }

    fn len_packets(&self) -> usize {
        self.queues.iter().map(|q| q.packets.len()).sum()
    }

    fn take_packets(&mut self) -> Vec<Packet> {
        self.queues.iter_mut().flat_map(|q| q.packets.take_all()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet};

    const LINK: Interface = crate::qdisc::testing::INTERFACE;

    fn mdrr(yaml: &str) -> Mdrr {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        Mdrr::build(&serde_json::from_value(value).unwrap(), "m", LINK, &|_| None).unwrap()
    }

    fn drain(q: &mut Mdrr, h: &mut crate::qdisc::testing::Harness) -> Vec<u64> {
        std::iter::from_fn(|| match q.dequeue(&mut h.ctx()) {
            Dequeue::Packet(p) => Some(p.id),
            Dequeue::Empty | Dequeue::NotBefore(_) => None,
        })
        .collect()
    }

    #[test]
    fn quanta_follow_the_weight_formula() {
        let q =
            mdrr("{queues: [{name: a}, {name: b, weight: 3}], low_latency: {mode: alternate, weight: 2}}");
        let quanta: Vec<u64> = q.queues.iter().map(|q| q.quantum_bytes).collect();
        assert_eq!(quanta, [1500, 2524, 2012]);
        assert_eq!(q.class_names(), ["a", "b", LOW_LATENCY]);
    }

    #[test]
    fn deficit_round_robin_hand_trace() {
        // Quanta 1500 (a) and 2524 (b); a holds 1000-byte packets, b 800-byte ones.
        // Visit a: deficit 1500 → one packet (500 left, kept); visit b: 2524 → three (124
        // left); visit a: 2000 → two (0 left) ...
        let mut q =
            mdrr("{queues: [{name: a}, {name: b, weight: 3}], classify: [{match: {dscp: 8}, queue: b}]}");
        let mut h = harness(2);
        for id in 0..4 {
            q.enqueue(packet(id, 1000, 0), &mut h.ctx());
        }
        for id in 10..16 {
            q.enqueue(packet(id, 800, 8), &mut h.ctx());
        }
        assert_eq!(drain(&mut q, &mut h), [0, 10, 11, 12, 1, 2, 13, 14, 15, 3]);
    }

    #[test]
    fn strict_low_latency_goes_first() {
        let mut q = mdrr(
            "{queues: [{name: be}], low_latency: {}, classify: [{match: {dscp: EF}, queue: low-latency}]}",
        );
        let mut h = harness(2);
        q.enqueue(packet(1, 1500, 0), &mut h.ctx());
        q.enqueue(packet(2, 1500, 0), &mut h.ctx());
        q.enqueue(packet(3, 100, 46), &mut h.ctx());
        assert_eq!(drain(&mut q, &mut h), [3, 1, 2]);
    }

    #[test]
    fn alternate_mode_takes_turns() {
        // Low-latency quantum 1500 with 500-byte packets: three per visit; the regular queue
        // sends one 1500-byte packet per visit.
        let mut q = mdrr("{queues: [{name: be}], low_latency: {mode: alternate}, classify: [{match: {dscp: EF}, queue: low-latency}]}");
        let mut h = harness(2);
        for id in 0..3 {
            q.enqueue(packet(id, 1500, 0), &mut h.ctx());
        }
        for id in 10..19 {
            q.enqueue(packet(id, 500, 46), &mut h.ctx());
        }
        assert_eq!(drain(&mut q, &mut h), [10, 11, 12, 0, 13, 14, 15, 1, 16, 17, 18, 2]);
    }

    #[test]
    fn configuration_errors() {
        let error = |yaml: &str| {
            let (value, _) = crate::config::yaml::parse(yaml).unwrap();
            Mdrr::build(&serde_json::from_value(value).unwrap(), "m", LINK, &|_| None).err().unwrap().key_path
        };
        assert_eq!(error("{queues: []}"), "m.queues");
        assert_eq!(error("{queues: [{name: a, weight: 0}]}"), "m.queues[0].weight");
        assert_eq!(error("{queues: [{name: a}, {name: a}]}"), "m.queues[1].name");
        assert_eq!(error("{queues: [{name: a}], classify: [{match: {}, queue: b}]}"), "m.classify[0].queue");
        assert_eq!(error("{queues: [{name: a}], default: low-latency}"), "m.default");
    }
}
