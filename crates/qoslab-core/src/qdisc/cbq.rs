//! Class-based queuing as in ALTQ (BSD): link sharing by the Floyd–Jacobson estimator, with
//! weighted round robin as the general scheduler (Floyd & Jacobson, "Link-sharing and
//! resource management models for packet networks", IEEE/ACM ToN 1995; ALTQ's `rmclass`
//! and `pfctl` parameter derivation: `sys/altq/altq_rmclass.c`, `altq_rmclass.h` and
//! `pfctl_altq.c`'s `cbq_compute_idletime` in the BSD source trees).
//!
//! Every class has a share f of the link. Its estimator watches the gaps between its
//! packets: when packet n of L bytes finishes on the link at `ifnow`, the class was
//! `idle = (ifnow − last) − L·nsPerByte(class)` (positive if it sent slower than its rate);
//! `avgidle` is an exponentially weighted average of it with gain 1/32, capped at `maxidle`
//! (the burst a class may save) and floored at `minidle`. A class whose `avgidle` is not
//! positive is over its limit until `undertime = ifnow + L·nsPerByte(class) −
//! 31/32 · avgidle`. An over-limit class may still send if it is allowed to **borrow** from
//! the link (its parent, the root, which always has capacity to lend when it is idle);
//! otherwise it waits — "static provisioning" — and the link may idle meanwhile, which this
//! discipline announces as a "not before" time.
//!
//! The general scheduler serves priorities from the highest number down; within a priority
//! it is a weighted round robin in which each class may send `allotment` bytes per round,
//! allotments being proportional to the shares (ALTQ: allotment × n × maxpkt / Σ allotment).
//! Class queues hold a number of packets, or a buffer time at the class rate (the DiffServ
//! measurements give 20 ms, 60 ms, ...), and drop from the **head** when full, as ALTQ
//! does — unless the class runs RED or RIO (`random_detect`, ALTQ's `red`/`rio` class
//! flags, [`crate::aqm`]), which drops the arriving packet. `maxidle` follows pfctl: ptime · max((1/f − 1)(1 − g^maxburst)/g^maxburst, 1 − g)
//! with g = 31/32, ptime the link time of a maximum-size packet, maxburst 16; `minidle` is
//! minus the class time of a maximum-size packet. Cost: O(classes) per dequeue.

use super::class_queue::ClassQueue;
use super::packet_queue::QueueLimit;
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::aqm::RedSpec;
use crate::classify::class_setup::{element_path, ClassNames, Rules};
use crate::classify::{Classifier, MatchSpec};
use crate::config::error::{join_path, Issue};
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use crate::time::{SimTime, NS_PER_S};
use crate::units::{Duration, RateOrShare};
use schemars::JsonSchema;
use serde::Deserialize;

/// The estimator's filter gain, as a power of two: g = 1 − 2^−5.
const FILTER_GAIN_SHIFT: u32 = 5;
/// Default `maxburst` (pfctl).
pub const DEFAULT_MAXBURST: u32 = 16;
/// Largest packet assumed in the parameter derivation, bytes.
pub const MAX_PACKET_BYTES: u64 = 1500;
/// Default class queue, packets (ALTQ's RM_MAXQUEUE is 64; pf uses 50).
pub const DEFAULT_LIMIT: QueueLimit = QueueLimit::Packets(50);

/// A class queue size: packets, bytes, or a buffer time at the class rate.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbqClassSpec {
    /// Class name.
    pub name: String,
    /// Which packets belong to the class (the one class without `match` takes the rest).
    #[serde(rename = "match")]
    pub condition: Option<MatchSpec>,
    /// The class's share of the link: a rate or a percentage of the interface bandwidth.
    pub bandwidth: RateOrShare,
    /// Priority 0–7; higher numbers are served first (default 1).
    pub priority: Option<u8>,
    /// Whether the class may borrow from the link when over its share (default false).
    #[serde(default)]
    pub borrow: bool,
    /// Queue limit in packets or bytes (default 50 packets); excludes `buffer`.
    pub limit: Option<QueueLimit>,
    /// Queue limit as a buffer time at the class rate (e.g. `20ms`); excludes `limit`.
    pub buffer: Option<Duration>,
    /// Estimator burst in packets (default 16).
    pub maxburst: Option<u32>,
    /// RED or RIO on the class queue (ALTQ `cbq(red)`, `cbq(rio)`).
    pub random_detect: Option<RedSpec>,
}

/// Parameters of CBQ.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbqParams {
    /// The classes; exactly one has no `match` and takes unmatched packets.
    pub classes: Vec<CbqClassSpec>,
}

/// One class's queue, estimator and round-robin allotment.
#[derive(Clone, Debug)]
struct CbqClass {
    queue: ClassQueue,
    priority: u8,
    borrow: bool,
    /// Class time per byte, ns ×1000 (fixed point).
    ns_per_byte_milli: u64,
    /// Scaled by 2^FILTER_GAIN_SHIFT, ns.
    avgidle_scaled: i64,
    maxidle_scaled: i64,
    minidle_scaled: i64,
    last_ns: u64,
    undertime: SimTime,
    allotment_bytes: i64,
    allowance_bytes: i64,
}

/// ALTQ-style CBQ.
#[derive(Clone, Debug)]
pub struct Cbq {
    names: Vec<String>,
    classes: Vec<CbqClass>,
    classifier: Classifier,
    /// Link time per byte, ns ×1000.
    link_ns_per_byte_milli: u64,
    /// Estimated time the last packet sent finishes on the link.
    ifnow_ns: u64,
    /// Round-robin position per priority (index into `classes`).
    cursor: [usize; 8],
}

impl QdiscKind for Cbq {
    const KIND: &'static str = "cbq";
    const DEPENDS_ON_BANDWIDTH: bool = true;
    type Params = CbqParams;

    /// Builds from `params` found at key path `at` for `interface`.
    fn build(
        params: &Self::Params,
        at: &str,
        interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let link_bps = interface.bandwidth_bps;
        let class_at = |i: usize| element_path(at, "classes", i);
        if params.classes.is_empty() {
            return Err(Issue::at(join_path(at, "classes"), "CBQ needs at least one class"));
        }
        let defaults: Vec<usize> =
            (0..params.classes.len()).filter(|&i| params.classes[i].condition.is_none()).collect();
        if defaults.len() != 1 {
            return Err(Issue::at(
                join_path(at, "classes"),
                format!("{} classes have no `match`", defaults.len()),
            )
            .hint("exactly one class leaves out `match`: it takes the packets no other class matches"));
        }
        let rates: Vec<u64> = params.classes.iter().map(|c| c.bandwidth.bps(link_bps)).collect();
        let total: u128 = rates.iter().map(|&r| r as u128).sum();
        if total > link_bps as u128 {
            return Err(Issue::at(
                join_path(at, "classes"),
                format!(
                    "the shares add up to {} kbit/s, more than the {} kbit/s link",
                    total / 1000,
                    link_bps / 1000
                ),
            )
            .hint("lower the `bandwidth` of some classes"));
        }
        let link_ns_per_byte_milli = 8 * NS_PER_S * 1000 / link_bps.max(1);
        let ptime_ns = (MAX_PACKET_BYTES * link_ns_per_byte_milli / 1000) as f64;
        let g = 1.0 - 1.0 / (1u64 << FILTER_GAIN_SHIFT) as f64;
        let count = params.classes.len() as i64;
        let mut names = ClassNames::with_capacity(params.classes.len());
        let mut classes = Vec::new();
        let mut rules = Rules::new();
        for (i, spec) in params.classes.iter().enumerate() {
            let here = class_at(i);
            names.add(&spec.name, "class", join_path(&here, "name"))?;
            let rate_bps = rates[i];
            if rate_bps == 0 {
                return Err(Issue::at(join_path(&here, "bandwidth"), "the share must be above zero"));
            }
            let priority = spec.priority.unwrap_or(1);
            if priority > 7 {
                return Err(Issue::at(join_path(&here, "priority"), "priority must be 0 to 7"));
            }
            let limit = match (spec.limit, spec.buffer) {
                (Some(_), Some(_)) => {
                    return Err(Issue::at(
                        join_path(&here, "buffer"),
                        "`limit` and `buffer` cannot be used together",
                    ))
                }
                (Some(limit), None) => limit,
                // A buffer time at the class rate, in bytes (at least one maximum-size packet).
                (None, Some(buffer)) => QueueLimit::Bytes(
                    ((buffer.0 as u128 * rate_bps as u128 / (8 * NS_PER_S as u128)) as u64)
                        .max(MAX_PACKET_BYTES),
                ),
                (None, None) => DEFAULT_LIMIT,
            };
            let maxburst = spec.maxburst.unwrap_or(DEFAULT_MAXBURST);
            if maxburst == 0 {
                return Err(Issue::at(join_path(&here, "maxburst"), "must be at least 1 packet"));
            }
            let share = rate_bps as f64 / link_bps as f64;
            let gb = g.powi(maxburst as i32);
            let maxidle_ns = ptime_ns * ((1.0 / share - 1.0) * (1.0 - gb) / gb).max(1.0 - g);
            let ns_per_byte_milli = 8 * NS_PER_S * 1000 / rate_bps;
            let minidle_ns = -((MAX_PACKET_BYTES * ns_per_byte_milli / 1000) as i64);
            let scale = 1i64 << FILTER_GAIN_SHIFT;
            let maxidle_scaled = (maxidle_ns * scale as f64) as i64;
            // Round-robin allotment per round: share × n × maxpkt / Σ shares.
            let allotment_bytes =
                (rate_bps as u128 * count as u128 * MAX_PACKET_BYTES as u128 / total) as i64;
            classes.push(CbqClass {
                queue: ClassQueue::new(limit, interface.dropper(spec.random_detect.as_ref(), &here, i)?),
                priority,
                borrow: spec.borrow,
                ns_per_byte_milli,
                avgidle_scaled: maxidle_scaled,
                maxidle_scaled,
                minidle_scaled: minidle_ns * scale,
                last_ns: 0,
                undertime: SimTime::ZERO,
                allotment_bytes: allotment_bytes.max(1),
                allowance_bytes: allotment_bytes.max(1),
            });
            if let Some(condition) = &spec.condition {
                rules.add(condition, &here, i as u32, node_address)?;
            }
        }
        Ok(Cbq {
            names: names.into_vec(),
            classes,
            classifier: rules.classifier(defaults[0] as u32),
            link_ns_per_byte_milli,
            ifnow_ns: 0,
            cursor: [0; 8],
        })
    }
}

impl Cbq {
    /// Whether class `c` has a packet and may send at `now`: under its limit, or — when
    /// `borrowing` — allowed to borrow from the link.
    fn eligible(&self, c: usize, now: SimTime, borrowing: bool) -> bool {
        let class = &self.classes[c];
        !class.queue.is_empty() && if borrowing { class.borrow } else { class.undertime <= now }
    }

    /// The estimator update after class `c` sent `size_bytes` at `now`.
    fn update_estimator(&mut self, c: usize, now: SimTime, size_bytes: u32) {
        // Estimated finish time of this packet on the link.
        self.ifnow_ns = self.ifnow_ns.max(now.0) + size_bytes as u64 * self.link_ns_per_byte_milli / 1000;
        let class = &mut self.classes[c];
        let pkt_time_ns = (size_bytes as u64 * class.ns_per_byte_milli / 1000) as i64;
        let idle_ns = (self.ifnow_ns - class.last_ns) as i64 - pkt_time_ns;
        class.last_ns = self.ifnow_ns;
        // avgidle ← avgidle + (idle − avgidle)/32, kept scaled by 32.
        class.avgidle_scaled += idle_ns - (class.avgidle_scaled >> FILTER_GAIN_SHIFT);
        if class.avgidle_scaled <= 0 {
            class.avgidle_scaled = class.avgidle_scaled.max(class.minidle_scaled);
            // Over the limit for this packet's class time plus (1 − 2^5)·avgidle / 2^5 on the
            // scaled average, i.e. until the average would climb back to zero.
            let wait_ns = pkt_time_ns + ((-31 * class.avgidle_scaled) >> FILTER_GAIN_SHIFT);
            class.undertime = SimTime(self.ifnow_ns).after(wait_ns as u64);
        } else {
            class.avgidle_scaled = class.avgidle_scaled.min(class.maxidle_scaled);
            class.undertime = SimTime::ZERO;
        }
    }

    /// The next class to send: first among classes under their limit, then among
    /// over-limit classes that may borrow (under-limit classes go first, as ALTQ's cutoff
    /// arranges); in each case the highest priority, then weighted round robin.
    fn pick(&mut self, now: SimTime) -> Option<usize> {
        let n = self.classes.len();
        for borrowing in [false, true] {
            for priority in (0..8u8).rev() {
                let candidate = |this: &Self, c: usize| {
                    this.classes[c].priority == priority && this.eligible(c, now, borrowing)
                };
                if !(0..n).any(|c| candidate(self, c)) {
                    continue;
                }
                loop {
                    let start = self.cursor[priority as usize];
                    let found = (0..n)
                        .map(|step| (start + step) % n)
                        .find(|&c| candidate(self, c) && self.classes[c].allowance_bytes > 0);
                    if let Some(c) = found {
                        self.cursor[priority as usize] = c;
                        return Some(c);
                    }
                    // A new round: each class of this priority gets its allotment again, an
                    // overdraft carried, savings not.
                    for class in self.classes.iter_mut().filter(|class| class.priority == priority) {
                        class.allowance_bytes =
                            (class.allowance_bytes + class.allotment_bytes).min(class.allotment_bytes);
                    }
                }
            }
        }
        None
    }
}

impl Qdisc for Cbq {
    fn class_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        let c = self.classifier.classify(&packet) as usize;
        let queue = &mut self.classes[c].queue;
        // ALTQ drops from the head of a full class queue; RED and RIO drop the arrival.
        if !queue.has_dropper() {
            queue.drop_head_for_room(packet.size_bytes, c, ctx);
        }
        queue.offer(packet, c, ctx);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        match self.pick(ctx.now) {
            Some(c) => {
                let packet = self.classes[c].queue.pop(ctx.now).expect("eligible classes hold packets");
                self.classes[c].allowance_bytes -= packet.size_bytes as i64;
                if self.classes[c].allowance_bytes <= 0 {
                    // The class's turn is over: the round robin moves on.
                    self.cursor[self.classes[c].priority as usize] = (c + 1) % self.classes.len();
                }
                self.update_estimator(c, ctx.now, packet.size_bytes);
                ctx.dequeued(c, &packet);
                Dequeue::Packet(packet)
            }
            // Every backlogged class is over its limit and may not borrow: wait for the first
            // to come under it.
            None => match self.classes.iter().filter(|c| !c.queue.is_empty()).map(|c| c.undertime).min() {
                Some(at) => Dequeue::NotBefore(at),
                None => Dequeue::Empty,
            },
        }
    }

    fn len_packets(&self) -> usize {
        self.classes.iter().map(|c| c.queue.len()).sum()
    }

    fn take_packets(&mut self) -> Vec<Packet> {
        self.classes.iter_mut().flat_map(|c| c.queue.take_all()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet};

    const LINK: Interface = Interface { bandwidth_bps: 10_000_000, ..crate::qdisc::testing::INTERFACE };

    fn cbq(yaml: &str) -> Result<Cbq, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        Cbq::build(&serde_json::from_value(value).unwrap(), "c", LINK, &|_| None)
    }

    #[test]
    fn buffer_time_becomes_a_byte_limit() {
        // 50 % of 10 Mbit/s for 20 ms = 12 500 bytes; the default queue is 50 packets.
        let q = cbq("{classes: [{name: af1, match: {dscp: AF11}, bandwidth: 50%, buffer: 20ms}, {name: rest, bandwidth: 10%}]}").unwrap();
        assert_eq!(q.classes[0].queue.limit(), QueueLimit::Bytes(12_500));
        assert_eq!(q.classes[1].queue.limit(), DEFAULT_LIMIT);
        // Allotments: share × n × 1500 / Σ shares = 0.5 × 2 × 1500 / 0.6 and 0.1 × … .
        assert_eq!((q.classes[0].allotment_bytes, q.classes[1].allotment_bytes), (2500, 500));
    }

    #[test]
    fn estimator_trace() {
        // One class with 10 % of 10 Mbit/s (1000-byte packets: 0.8 ms on the link, 8 ms at
        // the class rate). Back-to-back packets each look 7.2 ms too early: avgidle falls by
        // 7.2 ms − avgidle/32 per packet from maxidle until it is not positive, and the
        // class is then over its limit.
        let mut q = cbq("{classes: [{name: only, bandwidth: 10%}]}").unwrap();
        let start = q.classes[0].avgidle_scaled;
        q.update_estimator(0, SimTime::ZERO, 1000);
        let first = q.classes[0].avgidle_scaled;
        // idle = 0.8 ms − 8 ms; scaled update: A + idle − A/32.
        assert_eq!(first, start + (800_000 - 8_000_000) - (start >> 5));
        let mut sent = 1;
        while q.classes[0].undertime == SimTime::ZERO {
            q.update_estimator(0, SimTime::ZERO, 1000);
            sent += 1;
        }
        assert!(sent > 1 && q.classes[0].undertime > SimTime::ZERO, "{sent}");
    }

    #[test]
    fn head_drop_when_full() {
        let mut q = cbq("{classes: [{name: only, bandwidth: 10%, limit: 2}]}").unwrap();
        let mut h = harness(1);
        for id in 0..4 {
            q.enqueue(packet(id, 100, 0), &mut h.ctx());
        }
        let order: Vec<u64> = std::iter::from_fn(|| match q.dequeue(&mut h.ctx()) {
            Dequeue::Packet(p) => Some(p.id),
            _ => None,
        })
        .collect();
        // The two oldest were pushed out from the head.
        assert_eq!(order, [2, 3]);
        assert!(h.classes[0].check(0).is_ok());
    }

    #[test]
    fn configuration_errors() {
        let path = |yaml: &str| cbq(yaml).err().unwrap().key_path;
        assert_eq!(path("{classes: []}"), "c.classes");
        assert_eq!(path("{classes: [{name: a, bandwidth: 10%}, {name: b, bandwidth: 10%}]}"), "c.classes");
        assert_eq!(
            path("{classes: [{name: a, bandwidth: 60%}, {name: b, match: {}, bandwidth: 50%}]}"),
            "c.classes"
        );
        assert_eq!(
            path("{classes: [{name: a, bandwidth: 10%, limit: 5, buffer: 20ms}]}"),
            "c.classes[0].buffer"
        );
        assert_eq!(path("{classes: [{name: a, bandwidth: 10%, priority: 9}]}"), "c.classes[0].priority");
    }
}
