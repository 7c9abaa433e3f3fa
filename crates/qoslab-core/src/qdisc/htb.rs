//! Hierarchical token bucket — Linux `sch_htb` (Devera), as read from the kernel
//! (`net/sched/sch_htb.c`, `include/uapi/linux/pkt_sched.h`) and `tc` (`tc/q_htb.c`) sources.
//!
//! **Tree.** Classes form a tree: top-level classes have no `parent`; a class that some class
//! names as its parent is an *inner* class; the others are *leaves*. Only leaves hold packets
//! (a FIFO each, tail drop at `limit`); packets are classified onto leaves by the leaves'
//! `match` conditions (first match), and what none matches goes to the `default` leaf. Every
//! class has two token buckets: one at its `rate` (depth `burst`) and one at its `ceil` (depth
//! `cburst`). Leaves have *level* 0; an inner class's level is one below its parent's, a
//! top-level inner class having level 7, so levels grow towards the root (Linux numbering).
//!
//! **Tokens.** A bucket holds tokens in bit·ns/s (bits × 10⁹), so filling for Δt ns at R bit/s
//! adds exactly Δt·R and a packet of L bytes costs exactly L·8·10⁹: the same quantity as
//! Linux's "transmission time at the rate", without rounding. Buckets start full, fill
//! continuously up to their depth (elapsed time credited at most 60 s, Linux's `mbuffer`),
//! and may go negative: a class may send when its bucket is not negative, whatever the
//! packet's size, and the packet's cost is then taken, possibly leaving a debt that later
//! refills repay. Over time a bucket passes exactly rate × time + depth.
//!
//! **Modes.** At any instant a class is *cannot send* if its ceil bucket is negative; else
//! *can send* if its rate bucket is not negative; else *may borrow*. (Linux without
//! hysteresis, the default of current kernels.)
//!
//! **Selection.** A backlogged leaf is *servable at level L* if, walking up from the leaf
//! through classes that may borrow, the first class that can send has level L; the walk fails
//! (the leaf waits) if it meets a class that cannot send or runs out of parents. A leaf below
//! its rate is servable at level 0; one above its rate but below its ceil is servable at the
//! level of the nearest ancestor that has tokens at its own rate, provided no class on the way
//! is at its ceil. The dequeue serves the lowest level first and, within a level, the lowest
//! `prio` of the leaves; Linux keeps the same order with its per-level, per-priority rows and
//! its "feed" lists of borrowing classes. Among the leaves servable at the same (level, prio),
//! a deficit round robin chooses: a pointer per (level, prio) names the leaf to serve; after
//! a packet costing L bytes the leaf's deficit at that level drops by L, and when it becomes
//! negative the leaf receives its `quantum` and the pointer moves on (so a leaf may send once
//! while in debt, as in Linux). Excess bandwidth is thus shared among same-prio borrowers in
//! proportion to their quanta, and lower `prio` borrows first.
//!
//! **Charging.** A packet costs what the kernel charges for it, `qdisc_pkt_len(skb)`: the
//! packet as the device holds it (on an Ethernet link the 14-byte header and the IP packet),
//! adjusted by a size table (`stab`) where one is given ([`super::linux_charge`]). After
//! sending a packet that costs L bytes from a leaf served at level L₀, every class from the
//! leaf to the root pays L from its ceil bucket; classes at level ≥ L₀ (the lender and those
//! above it) also pay from their rate bucket, while the classes below the lender, which
//! borrowed, keep their rate bucket untouched.
//!
//! **Waiting.** If leaves hold packets but none is servable, the answer is
//! `NotBefore(t)`, with t the earliest instant at which a bucket met on a failed walk stops
//! being negative (Linux's watchdog at the earliest mode change): the link may stay idle
//! while packets wait, but only because the classes are at their ceilings.
//!
//! Differences from Linux: the round robin among leaves of one (level, prio) is one flat
//! ring, where Linux descends the tree with a pointer per inner class (the same long-run
//! split when the borrowers share one parent); unclassified packets go to a `default` leaf
//! (Linux's default of 0 sends them unshaped through a direct queue); hysteresis and the rate
//! tables' granularity are not modelled. Cost per
//! packet: O(leaves × depth) for the selection.

use super::class_queue::ClassQueue;
use super::linux_charge::{LinuxCharge, StabSpec};
use super::packet_queue::QueueLimit;
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::aqm::RedSpec;
use crate::classify::class_setup::{element_path, ClassNames, Rules};
use crate::classify::{Classifier, MatchSpec};
use crate::config::error::{join_path, Issue};
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use crate::time::{SimTime, NS_PER_S};
use crate::units::{RateOrShare, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// Priorities (Linux `TC_HTB_NUMPRIO`): `prio` is 0 to 7.
pub const PRIORITIES: usize = 8;
/// Levels (Linux `TC_HTB_MAXDEPTH`): leaves are level 0, top-level inner classes level 7.
pub const LEVELS: usize = 8;
/// Default `r2q`: the default quantum is rate (bytes/s) / r2q.
pub const DEFAULT_R2Q: u64 = 10;
/// Smallest default quantum, bytes (Linux raises a smaller computed quantum to this).
pub const MIN_DEFAULT_QUANTUM_BYTES: u64 = 1000;
/// Largest default quantum, bytes (Linux lowers a larger computed quantum to this).
pub const MAX_DEFAULT_QUANTUM_BYTES: u64 = 200_000;
/// The MTU `tc` adds to the default burst, bytes.
pub const TC_MTU_BYTES: u64 = 1600;
/// Default leaf queue limit, packets (Linux gives a leaf a `pfifo` of the device's
/// `txqueuelen`, 1000 packets).
pub const DEFAULT_LIMIT_PACKETS: u32 = 1000;
/// Most elapsed time credited to a bucket at once, ns (Linux `mbuffer`, 60 s).
pub const MAX_CREDIT_NS: u64 = 60 * NS_PER_S;

/// Token units per byte: 8 bits × 10⁹.
const UNITS_PER_BYTE: i128 = 8 * NS_PER_S as i128;

/// One HTB class.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HtbClassSpec {
    /// Class name, reported in results (leaves) and used by `parent` and `default`.
    pub name: String,
    /// The parent class; none for a top-level class.
    pub parent: Option<String>,
    /// Assured rate (`"1Mbps"`, or `"20%"` of the interface bandwidth).
    pub rate: RateOrShare,
    /// Most the class may send, borrowing included (default: its rate).
    pub ceil: Option<RateOrShare>,
    /// Depth of the rate bucket (default 1600 B + rate in bytes/s ÷ 10⁹, as `tc` computes).
    pub burst: Option<Size>,
    /// Depth of the ceil bucket (default 1600 B + ceil in bytes/s ÷ 10⁹).
    pub cburst: Option<Size>,
    /// Leaves only: priority, 0 (served first) to 7 (default 0).
    pub prio: Option<u8>,
    /// Leaves only: bytes per round when sharing with same-prio classes (default rate in
    /// bytes/s ÷ r2q, kept within 1000–200000 B).
    pub quantum: Option<Size>,
    /// Leaves only: which packets belong to the class (first match).
    #[serde(rename = "match")]
    pub condition: Option<MatchSpec>,
    /// Leaves only: queue limit (default 1000 packets).
    pub limit: Option<QueueLimit>,
    /// Leaves only: random early detection on the leaf queue (Linux attaches `red` as the
    /// leaf's qdisc).
    pub random_detect: Option<RedSpec>,
}

/// Parameters of an HTB policy.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HtbParams {
    /// The classes; a parent may be listed before or after its children.
    pub classes: Vec<HtbClassSpec>,
    /// The leaf of packets no class matches (default: the last leaf listed).
    pub default: Option<String>,
    /// Divisor of the default quanta (default 10).
    pub r2q: Option<u64>,
    /// A size table adjusting what each packet is charged (tc's `stab`: `overhead`, `mpu`,
    /// `linklayer`); without it, the packet as the device holds it (the Ethernet header and
    /// the IP packet on Ethernet links).
    pub stab: Option<StabSpec>,
}

/// A class's mode at an instant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    CantSend,
    MayBorrow,
    CanSend,
}

/// A token bucket whose tokens may go negative.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Bucket {
    rate_bps: u64,
    depth_units: i128,
    tokens_units: i128,
}

impl Bucket {
    fn new(rate_bps: u64, depth_bytes: u64) -> Self {
        let depth_units = depth_bytes as i128 * UNITS_PER_BYTE;
        Bucket { rate_bps, depth_units, tokens_units: depth_units }
    }

    /// Tokens after `elapsed_ns` more of filling.
    fn tokens_after(&self, elapsed_ns: u64) -> i128 {
        let filled = elapsed_ns.min(MAX_CREDIT_NS) as i128 * self.rate_bps as i128;
        (self.tokens_units + filled).min(self.depth_units)
    }

    /// Nanoseconds from a moment with `tokens` until they are no longer negative.
    fn ns_until_non_negative(&self, tokens: i128) -> u64 {
        if tokens >= 0 {
            0
        } else {
            ((-tokens) as u128).div_ceil(self.rate_bps as u128).min(u64::MAX as u128) as u64
        }
    }

    /// Fills for `elapsed_ns` and, if `bytes` is non-zero, takes their cost.
    fn charge(&mut self, elapsed_ns: u64, bytes: u32) {
        let floor = -(MAX_CREDIT_NS as i128 * self.rate_bps as i128);
        self.tokens_units = (self.tokens_after(elapsed_ns) - bytes as i128 * UNITS_PER_BYTE).max(floor);
    }
}

/// One class of the tree.
#[derive(Clone, Debug)]
struct Node {
    parent: Option<usize>,
    level: usize,
    rate: Bucket,
    ceil: Bucket,
    last: SimTime,
}

impl Node {
    fn mode(&self, now: SimTime) -> Mode {
        let elapsed = now.since(self.last);
        if self.ceil.tokens_after(elapsed) < 0 {
            Mode::CantSend
        } else if self.rate.tokens_after(elapsed) >= 0 {
            Mode::CanSend
        } else {
            Mode::MayBorrow
        }
    }
}

/// A leaf: its node, queue and scheduling data.
#[derive(Clone, Debug)]
struct Leaf {
    node: usize,
    queue: ClassQueue,
    prio: usize,
    quantum_bytes: i64,
    deficit_bytes: [i64; LEVELS],
}

/// Not servable now (in the per-dequeue scratch).
const BLOCKED: u8 = u8::MAX;

/// A hierarchical token bucket discipline.
#[derive(Clone, Debug)]
pub struct Htb {
    charge: LinuxCharge,
    nodes: Vec<Node>,
    leaves: Vec<Leaf>,
    names: Vec<String>,
    classifier: Classifier,
    round: Vec<usize>,
    servable_level: Vec<u8>,
    packets: usize,
}

/// `tc`'s default bucket depth for `rate_bps`: rate (bytes/s) ÷ 10⁹ + 1600 B (with the
/// nanosecond timer resolution of current kernels).
pub fn default_burst_bytes(rate_bps: u64) -> u64 {
    rate_bps / 8 / NS_PER_S + TC_MTU_BYTES
}

/// The default quantum of a leaf: rate (bytes/s) ÷ r2q within 1000–200000 B.
pub fn default_quantum_bytes(rate_bps: u64, r2q: u64) -> u64 {
    (rate_bps / 8 / r2q).clamp(MIN_DEFAULT_QUANTUM_BYTES, MAX_DEFAULT_QUANTUM_BYTES)
}

impl QdiscKind for Htb {
    const KIND: &'static str = "htb";
    const DEPENDS_ON_BANDWIDTH: bool = true;
    type Params = HtbParams;

    /// Builds from `params` found at key path `at` for `interface`.
    fn build(
        params: &Self::Params,
        at: &str,
        interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let class_at = |i: usize| element_path(at, "classes", i);
        let specs = &params.classes;
        if specs.is_empty() {
            return Err(Issue::at(join_path(at, "classes"), "HTB needs at least one class")
                .hint("add `classes: [{name: all, rate: 100%}]`"));
        }
        let r2q = params.r2q.unwrap_or(DEFAULT_R2Q);
        if r2q == 0 {
            return Err(Issue::at(join_path(at, "r2q"), "must be above zero"));
        }
        let (names, parents, depths) = class_tree(params, at)?;
        let index_of = |name: &str| names.position(name);
        let is_inner: Vec<bool> = (0..specs.len()).map(|i| parents.contains(&Some(i))).collect();
        let bw = interface.bandwidth_bps;
        let mut nodes = Vec::with_capacity(specs.len());
        for (i, class) in specs.iter().enumerate() {
            nodes.push(node(class, &class_at(i), parents[i], depths[i], is_inner[i], bw)?);
        }
        let leaf_classes: Vec<usize> = (0..specs.len()).filter(|&i| !is_inner[i]).collect();
        let default_leaf = match &params.default {
            None => leaf_classes.len() - 1,
            Some(name) => match index_of(name) {
                None => {
                    return Err(Issue::at(join_path(at, "default"), format!("there is no class `{name}`"))
                        .hint("name a leaf class of this policy"))
                }
                Some(i) if is_inner[i] => {
                    return Err(Issue::at(
                        join_path(at, "default"),
                        format!("`{name}` has children; only a leaf class holds packets"),
                    )
                    .hint("name a leaf class"))
                }
                Some(i) => leaf_classes.iter().position(|&l| l == i).expect("a leaf"),
            },
        };
        let mut leaves = Vec::with_capacity(leaf_classes.len());
        let mut rules = Rules::new();
        for (leaf_index, &i) in leaf_classes.iter().enumerate() {
            let class = &specs[i];
            let here = class_at(i);
            match &class.condition {
                Some(condition) => rules.add(condition, &here, leaf_index as u32, node_address)?,
                None if leaf_index != default_leaf => {
                    return Err(Issue::at(&here, format!("leaf class `{}` has no `match`", class.name))
                        .hint("add `match: {...}`, or make it the `default` class"))
                }
                None => {}
            }
            let red = interface.dropper(class.random_detect.as_ref(), &here, leaf_index)?;
            leaves.push(Leaf {
                node: i,
                queue: ClassQueue::new(
                    class.limit.unwrap_or(QueueLimit::Packets(DEFAULT_LIMIT_PACKETS)),
                    red,
                ),
                prio: class.prio.unwrap_or(0) as usize,
                quantum_bytes: class
                    .quantum
                    .map_or(default_quantum_bytes(nodes[i].rate.rate_bps, r2q), |s| s.0)
                    as i64,
                deficit_bytes: [0; LEVELS],
            });
        }
        Ok(Htb {
            charge: LinuxCharge::new(interface.device_header_bytes, params.stab.as_ref(), at)?,
            names: leaf_classes.iter().map(|&i| specs[i].name.clone()).collect(),
            servable_level: vec![BLOCKED; leaves.len()],
            nodes,
            leaves,
            classifier: rules.classifier(default_leaf as u32),
            round: vec![0; LEVELS * PRIORITIES],
            packets: 0,
        })
    }
}

/// The policy's class names, each class's parent and its depth below the top.
pub(crate) type ClassTree = (ClassNames, Vec<Option<usize>>, Vec<usize>);

/// The class tree of `params`, found at `at`, refusing an unknown parent and a class that is
/// its own ancestor.
pub(crate) fn class_tree(params: &HtbParams, at: &str) -> Result<ClassTree, Issue> {
    let class_at = |i: usize| element_path(at, "classes", i);
    let specs = &params.classes;
    let mut names = ClassNames::with_capacity(specs.len());
    for (i, class) in specs.iter().enumerate() {
        names.add(&class.name, "class", join_path(&class_at(i), "name"))?;
    }
    let index_of = |name: &str| names.position(name);
    let mut parents = Vec::with_capacity(specs.len());
    for (i, class) in specs.iter().enumerate() {
        parents.push(match &class.parent {
            None => None,
            Some(name) => Some(index_of(name).ok_or_else(|| {
                Issue::at(join_path(&class_at(i), "parent"), format!("there is no class `{name}`"))
                    .hint("name a class of this policy, or remove `parent` for a top-level class")
            })?),
        });
    }
    // Depth of every class, refusing cycles.
    let mut depths = Vec::with_capacity(specs.len());
    for i in 0..specs.len() {
        let mut depth = 0usize;
        let mut c = i;
        while let Some(p) = parents[c] {
            depth += 1;
            c = p;
            if depth > specs.len() {
                return Err(Issue::at(
                    join_path(&class_at(i), "parent"),
                    format!("class `{}` is its own ancestor", specs[i].name),
                )
                .hint("the classes must form a tree: follow `parent` up to a class without one"));
            }
        }
        depths.push(depth);
    }
    Ok((names, parents, depths))
}

/// The node of class `class` found at `here`, under `parent` at `depth` (`inner`: it has
/// children), with its rate and ceil resolved on `bw`.
fn node(
    class: &HtbClassSpec,
    here: &str,
    parent: Option<usize>,
    depth: usize,
    inner: bool,
    bw: u64,
) -> Result<Node, Issue> {
    if inner && depth + 1 >= LEVELS {
        return Err(Issue::at(here, "the class tree is too deep")
            .hint("HTB allows at most 7 levels of inner classes above the leaves"));
    }
    let rate_bps = class.rate.bps(bw);
    if rate_bps == 0 {
        return Err(Issue::at(join_path(here, "rate"), "the rate must be above zero"));
    }
    let ceil_bps = class.ceil.map_or(rate_bps, |c| c.bps(bw));
    if ceil_bps < rate_bps {
        return Err(Issue::at(
            join_path(here, "ceil"),
            format!("the ceil ({ceil_bps} bit/s) is below the rate ({rate_bps} bit/s)"),
        )
        .hint("a class never sends less than its rate: raise `ceil` or lower `rate`"));
    }
    if inner {
        for (key, set) in [
            ("match", class.condition.is_some()),
            ("limit", class.limit.is_some()),
            ("random_detect", class.random_detect.is_some()),
            ("prio", class.prio.is_some()),
            ("quantum", class.quantum.is_some()),
        ] {
            if set {
                return Err(Issue::at(
                    join_path(here, key),
                    format!("`{key}` belongs to a leaf class, and `{}` has children", class.name),
                )
                .hint("inner classes only lend bandwidth; set it on the leaves below"));
            }
        }
    }
    if class.prio.is_some_and(|p| p as usize >= PRIORITIES) {
        return Err(Issue::at(join_path(here, "prio"), "prio must be from 0 to 7"));
    }
    if class.quantum.is_some_and(|q| q.0 == 0 || q.0 > i32::MAX as u64) {
        return Err(Issue::at(join_path(here, "quantum"), "the quantum must be from 1 B to 2147483647 B"));
    }
    let level = if inner { LEVELS - 1 - depth } else { 0 };
    Ok(Node {
        parent,
        level,
        rate: Bucket::new(rate_bps, class.burst.map_or(default_burst_bytes(rate_bps), |s| s.0)),
        ceil: Bucket::new(ceil_bps, class.cburst.map_or(default_burst_bytes(ceil_bps), |s| s.0)),
        last: SimTime::ZERO,
    })
}

impl Htb {
    /// The level at which leaf `leaf` can be served at `now`, or the earliest instant at which
    /// that may change.
    fn servable(&self, leaf: usize, now: SimTime) -> Result<usize, SimTime> {
        let mut c = self.leaves[leaf].node;
        let mut earliest = SimTime::NEVER;
        loop {
            let node = &self.nodes[c];
            let elapsed = now.since(node.last);
            match node.mode(now) {
                Mode::CanSend => return Ok(node.level),
                Mode::CantSend => {
                    let wait = node.ceil.ns_until_non_negative(node.ceil.tokens_after(elapsed));
                    return Err(earliest.min(now.after(wait)));
                }
                Mode::MayBorrow => {
                    let wait = node.rate.ns_until_non_negative(node.rate.tokens_after(elapsed));
                    earliest = earliest.min(now.after(wait));
                    match node.parent {
                        Some(p) => c = p,
                        None => return Err(earliest),
                    }
                }
            }
        }
    }

    /// Charges `bytes` sent from `leaf` at `level` along its path to the root.
    fn charge(&mut self, leaf: usize, level: usize, bytes: u32, now: SimTime) {
        let mut c = Some(self.leaves[leaf].node);
        while let Some(i) = c {
            let node = &mut self.nodes[i];
            let elapsed = now.since(node.last);
            node.rate.charge(elapsed, if node.level >= level { bytes } else { 0 });
            node.ceil.charge(elapsed, bytes);
            node.last = now;
            c = node.parent;
        }
    }

    /// Rate and ceil of leaf `leaf`, bit/s.
    pub fn leaf_rates_bps(&self, leaf: usize) -> (u64, u64) {
        let node = &self.nodes[self.leaves[leaf].node];
        (node.rate.rate_bps, node.ceil.rate_bps)
    }

    /// Quantum of leaf `leaf`, bytes.
    pub fn leaf_quantum_bytes(&self, leaf: usize) -> u64 {
        self.leaves[leaf].quantum_bytes as u64
    }
}

impl Qdisc for Htb {
    fn class_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        let leaf = self.classifier.classify(&packet) as usize;
        if self.leaves[leaf].queue.offer(packet, leaf, ctx) {
            self.packets += 1;
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        if self.packets == 0 {
            return Dequeue::Empty;
        }
        let now = ctx.now;
        let mut best: Option<(usize, usize)> = None;
        let mut earliest = SimTime::NEVER;
        for leaf in 0..self.leaves.len() {
            self.servable_level[leaf] = BLOCKED;
            if self.leaves[leaf].queue.is_empty() {
                continue;
            }
            match self.servable(leaf, now) {
                Ok(level) => {
                    self.servable_level[leaf] = level as u8;
                    let key = (level, self.leaves[leaf].prio);
                    if best.is_none_or(|b| key < b) {
                        best = Some(key);
                    }
                }
                Err(at) => earliest = earliest.min(at),
            }
        }
        let Some((level, prio)) = best else { return Dequeue::NotBefore(earliest) };
        let count = self.leaves.len();
        let group = level * PRIORITIES + prio;
        let start = self.round[group];
        let leaf = (0..count)
            .map(|k| (start + k) % count)
            .find(|&l| self.servable_level[l] == level as u8 && self.leaves[l].prio == prio)
            .expect("the best key belongs to a leaf");
        let packet = self.leaves[leaf].queue.pop(now).expect("a servable leaf holds packets");
        self.packets -= 1;
        let charged_bytes = self.charge.bytes(packet.size_bytes);
        self.charge(leaf, level, charged_bytes, now);
        let l = &mut self.leaves[leaf];
        l.deficit_bytes[level] -= charged_bytes as i64;
        if l.deficit_bytes[level] < 0 {
            l.deficit_bytes[level] += l.quantum_bytes;
            self.round[group] = (leaf + 1) % count;
        } else {
            self.round[group] = leaf;
        }
        ctx.dequeued(leaf, &packet);
        Dequeue::Packet(packet)
    }

    fn len_packets(&self) -> usize {
        self.packets
    }

    fn take_packets(&mut self) -> Vec<Packet> {
        self.packets = 0;
        self.leaves.iter_mut().flat_map(|l| l.queue.take_all()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet, Harness};

    const IFACE: Interface = crate::qdisc::testing::INTERFACE;

    fn build(yaml: &str) -> Result<Htb, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let params: HtbParams = serde_json::from_value(value).unwrap();
        Htb::build(&params, "p", IFACE, &|_| None)
    }

    fn dequeue_at(q: &mut Htb, h: &mut Harness, now_ns: u64) -> Dequeue {
        let mut ctx = h.ctx();
        ctx.now = SimTime(now_ns);
        q.dequeue(&mut ctx)
    }

    #[test]
    fn defaults() {
        let q = build(
            "{classes: [{name: top, rate: 1Mbps, ceil: 2Mbps}, {name: a, parent: top, rate: 40%, match: {dscp: EF}},
              {name: b, parent: top, rate: 80Mbps, match: {dscp: AF11}}, {name: c, parent: top, rate: 8kbps}]}",
        )
        .unwrap();
        assert_eq!(q.class_names(), ["a", "b", "c"]);
        // 40 % of the 1 Mbit/s interface; ceil defaults to the rate.
        assert_eq!(q.leaf_rates_bps(0), (400_000, 400_000));
        // Quantum = rate / 8 / 10: 5000 B; 80 Mbit/s gives 1 000 000 B, lowered to 200 000 B;
        // 8 kbit/s gives 100 B, raised to 1000 B.
        assert_eq!([0, 1, 2].map(|l| q.leaf_quantum_bytes(l)), [5000, 200_000, 1000]);
        // Bursts: 1600 B + rate/8/10⁹ (0 below 8 Gbit/s).
        assert_eq!(default_burst_bytes(1_000_000), 1600);
        assert_eq!(default_burst_bytes(10_000_000_000), 1601);
        assert_eq!(q.nodes[0].rate.depth_units, 1600 * UNITS_PER_BYTE);
        // Levels: leaves 0, the top-level inner class 7.
        assert_eq!((q.nodes[0].level, q.nodes[1].level), (7, 0));
        // The default leaf is the last one listed; its limit is 1000 packets.
        assert_eq!(q.classifier.classify(&packet(0, 100, 0)), 2);
        assert_eq!(q.leaves[2].queue.limit(), QueueLimit::Packets(1000));
    }

    #[test]
    fn token_arithmetic_by_hand() {
        // 8 kbit/s = 1000 B/s, burst 1500 B. A 1000-byte packet at 0 leaves 500 B; a second at
        // 0 is allowed (tokens ≥ 0) and leaves −500 B; then the class waits 0.5 s.
        let mut q = build("{classes: [{name: a, rate: 8kbps, burst: 1500B, cburst: 1500B}]}").unwrap();
        let mut h = harness(1);
        for id in 0..3 {
            q.enqueue(packet(id, 1000, 0), &mut h.ctx());
        }
        assert!(matches!(dequeue_at(&mut q, &mut h, 0), Dequeue::Packet(_)));
        assert_eq!(q.nodes[0].rate.tokens_units, 500 * UNITS_PER_BYTE);
        assert!(matches!(dequeue_at(&mut q, &mut h, 0), Dequeue::Packet(_)));
        assert_eq!(q.nodes[0].rate.tokens_units, -500 * UNITS_PER_BYTE);
        // −500 B at 1000 B/s: sendable again at exactly 500 ms.
        assert_eq!(dequeue_at(&mut q, &mut h, 0), Dequeue::NotBefore(SimTime(500_000_000)));
        assert_eq!(dequeue_at(&mut q, &mut h, 499_999_999), Dequeue::NotBefore(SimTime(500_000_000)));
        assert!(matches!(dequeue_at(&mut q, &mut h, 500_000_000), Dequeue::Packet(_)));
        assert_eq!(q.nodes[0].rate.tokens_units, -1000 * UNITS_PER_BYTE);
        // Refill stops at the burst: after 10 s idle the bucket holds 1500 B, not 9000 B.
        assert_eq!(q.nodes[0].rate.tokens_after(10_000_000_000), 1500 * UNITS_PER_BYTE);
        assert_eq!(dequeue_at(&mut q, &mut h, 600_000_000), Dequeue::Empty);
    }

    #[test]
    fn borrowing_follows_ceil_and_charges_the_lender() {
        // Parent 16 kbit/s (2000 B/s); child 8 kbit/s, ceil 16 kbit/s; all bursts 1000 B.
        let mut q = build(
            "{classes: [{name: p, rate: 16kbps, burst: 1000B, cburst: 1000B},
              {name: c, parent: p, rate: 8kbps, ceil: 16kbps, burst: 1000B, cburst: 1000B}]}",
        )
        .unwrap();
        let mut h = harness(1);
        for id in 0..4 {
            q.enqueue(packet(id, 1000, 0), &mut h.ctx());
        }
        // First packet at the child's own rate (level 0): every class on the path is at level
        // ≥ 0, so the child and the parent both pay from their rate and ceil buckets.
        assert!(matches!(dequeue_at(&mut q, &mut h, 0), Dequeue::Packet(_)));
        assert_eq!(q.nodes[1].rate.tokens_units, 0);
        assert_eq!((q.nodes[0].rate.tokens_units, q.nodes[0].ceil.tokens_units), (0, 0));
        // A rate bucket at exactly 0 still means "can send": the second packet goes at level 0
        // too and leaves every bucket at −1000 B.
        assert!(matches!(dequeue_at(&mut q, &mut h, 0), Dequeue::Packet(_)));
        assert_eq!(q.nodes[1].ceil.tokens_units, -1000 * UNITS_PER_BYTE);
        assert_eq!(q.nodes[0].rate.tokens_units, -1000 * UNITS_PER_BYTE);
        // Child ceil −1000 B at 2000 B/s: 0.5 s. By then the child's rate bucket holds
        // −1000 + 500 = −500 B, so it borrows from the parent (level 7), whose rate bucket has
        // refilled to 0: the parent pays, the borrowing child's rate bucket does not.
        assert_eq!(dequeue_at(&mut q, &mut h, 0), Dequeue::NotBefore(SimTime(500_000_000)));
        assert!(matches!(dequeue_at(&mut q, &mut h, 500_000_000), Dequeue::Packet(_)));
        assert_eq!(q.nodes[1].rate.tokens_units, -500 * UNITS_PER_BYTE);
        assert_eq!(q.nodes[0].rate.tokens_units, -1000 * UNITS_PER_BYTE);
        assert_eq!(q.nodes[1].ceil.tokens_units, -1000 * UNITS_PER_BYTE);
        assert_eq!(h.classes[0].dequeued_packets, 3);
    }

    #[test]
    fn lower_prio_first_then_quantum_shares() {
        // Two leaves within their rates: prio 0 goes first whatever the order of arrival.
        let mut q = build(
            "{classes: [{name: hi, rate: 1Mbps, prio: 0, match: {dscp: EF}}, {name: lo, rate: 1Mbps, prio: 1}]}",
        )
        .unwrap();
        let mut h = harness(2);
        q.enqueue(packet(1, 100, 0), &mut h.ctx());
        q.enqueue(packet(2, 100, 46), &mut h.ctx());
        let Dequeue::Packet(p) = dequeue_at(&mut q, &mut h, 0) else { panic!() };
        assert_eq!(p.id, 2);
        // Same prio, quanta 1000 and 3000 B, 500-byte packets: a sends once (deficit −500 →
        // 500, pointer moves), b sends until its deficit goes negative (0 → −500 → 2500),
        // then a sends twice (500 → 0 → −500 → 500), b six times…
        let mut q = build(
            "{classes: [{name: a, rate: 1Mbps, burst: 100kB, cburst: 100kB, quantum: 1000B, match: {dscp: AF11}},
              {name: b, rate: 1Mbps, burst: 100kB, cburst: 100kB, quantum: 3000B}]}",
        )
        .unwrap();
        let mut h = harness(2);
        for id in 0..20 {
            q.enqueue(packet(id, 500, if id < 10 { 10 } else { 0 }), &mut h.ctx());
        }
        let classes: String = (0..12)
            .map(|_| match dequeue_at(&mut q, &mut h, 0) {
                Dequeue::Packet(p) if p.id < 10 => 'a',
                Dequeue::Packet(_) => 'b',
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(classes, "abaabbbbbbaa");
    }

    #[test]
    fn configuration_errors() {
        let cases = [
            ("{classes: []}", "p.classes", "at least one class"),
            ("{classes: [{name: a, rate: 1Mbps}, {name: a, rate: 1Mbps}]}", "p.classes[1].name", "twice"),
            ("{classes: [{name: a, rate: 1Mbps, parent: x}]}", "p.classes[0].parent", "no class `x`"),
            (
                "{classes: [{name: a, rate: 1Mbps, parent: b}, {name: b, rate: 1Mbps, parent: a}, {name: c, rate: 1Mbps}]}",
                "p.classes[0].parent",
                "its own ancestor",
            ),
            ("{classes: [{name: a, rate: 1Mbps, ceil: 500kbps}]}", "p.classes[0].ceil", "below the rate"),
            ("{classes: [{name: a, rate: 0%}]}", "p.classes[0].rate", "above zero"),
            ("{classes: [{name: a, rate: 1Mbps, prio: 8}]}", "p.classes[0].prio", "0 to 7"),
            (
                "{classes: [{name: p, rate: 1Mbps, match: {}}, {name: a, parent: p, rate: 1Mbps}]}",
                "p.classes[0].match",
                "belongs to a leaf",
            ),
            (
                "{default: p, classes: [{name: p, rate: 1Mbps}, {name: a, parent: p, rate: 1Mbps}]}",
                "p.default",
                "has children",
            ),
            ("{classes: [{name: a, rate: 1Mbps}, {name: b, rate: 1Mbps}]}", "p.classes[0]", "has no `match`"),
            ("{r2q: 0, classes: [{name: a, rate: 1Mbps}]}", "p.r2q", "above zero"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = build(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
        // Eight levels of inner classes are too many; seven are allowed.
        let chain = |n: usize| {
            let mut classes = vec!["{name: c0, rate: 1Mbps}".to_owned()];
            classes.extend((1..=n).map(|i| format!("{{name: c{i}, parent: c{}, rate: 1Mbps}}", i - 1)));
            format!("{{classes: [{}]}}", classes.join(", "))
        };
        assert!(build(&chain(7)).is_ok());
        assert!(build(&chain(8)).unwrap_err().message.contains("too deep"));
    }
}
