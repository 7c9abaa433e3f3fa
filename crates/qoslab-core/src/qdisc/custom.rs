//! Custom queuing — IOS `queue-list` with `custom-queue-list` on the interface.
//!
//! Sixteen user queues, numbered 1 to 16, each a tail-drop FIFO with its own limit
//! (20 packets by default) and its own byte count (1500 bytes by default), plus the system
//! queue 0. First-match rules choose the queue of an arriving packet; a packet no rule
//! matches goes to the default queue, queue 1 unless configured otherwise. Queue 0 is
//! "emptied before any of the other queues are processed" (Cisco `queue-list default`
//! command reference); on a router it carries keepalives and other locally generated
//! traffic, here whatever a rule sends to it. The sixteen queues and the defaults: Cisco
//! Networking Academy CQ text (sixteen queues since IOS 11.0), *Cisco IOS in a Nutshell*
//! (`queue-list`), Sybex CCNP Remote Access study guide (custom queuing).
//!
//! Service is a byte-count round robin over the user queues in number order. "When a
//! particular queue is being processed, packets are sent until the number of bytes sent
//! exceeds the queue byte count ... or until the queue is empty" (Cisco, "Configuring
//! Custom Queueing"; `custom-queue-list` command reference). A packet is never split, so the
//! packet that crosses the byte count is sent whole: the over-send. Definition used here,
//! one transmit opportunity (one `dequeue`) at a time:
//!
//! * the system queue, then the strict-priority queues (below), are served first, each
//!   until it is empty;
//! * otherwise the round robin serves the queue it is visiting: while that queue holds a
//!   packet and `sent < byte_count`, its head is sent and `sent` grows by its size;
//! * a queue found empty, or with `sent ≥ byte_count`, ends its visit; the next queue in
//!   number order (wrapping from 16 to the lowest) starts one with `sent = 0`; empty queues
//!   are passed over without a visit;
//! * when every queue is empty at a transmit opportunity, the visit in progress ends too.
//!
//! A queue that stays backlogged therefore sends ⌈byte_count / L⌉ packets of L bytes per
//! visit: byte count 1500 and 1000-byte packets give 2000 bytes per visit, not 1500 (the
//! byte count is "rounded up to complete a packet if necessary", 2000trainers CCDA guide).
//! The classic algorithm does not deduct the over-send from the next visit; the byte-count
//! sizing procedure of the IOS 12.1-era documentation, which turns each queue's share into
//! whole packets before multiplying back by the packet size, only makes sense that way (as
//! quoted on the CCIE mailing list, "Custom Queue Confusion", June 2003).
//!
//! Three points are not settled by any Cisco text found. The boundary test is fixed at
//! `sent < byte_count` ("until the bytes sent exceed the byte count" could also be read as
//! `sent ≤ byte_count`, one more packet whenever the byte count falls on a packet
//! boundary). The other two are parameters whose defaults give the classic behaviour:
//!
//! * `carry_over` (default false): a claim that later releases let a queue borrow from its
//!   next visit (same mailing-list thread) is modelled as a deficit: the over-send
//!   `sent − byte_count` is carried into the queue's next visit as its starting `sent`, so
//!   a queue whose debt is still at least its byte count sits that visit out. The debt is
//!   kept while the queue is empty; no unused allowance is ever carried;
//! * `lowest_custom: Q` (IOS `queue-list N lowest-custom Q`): queues numbered below Q are
//!   strict-priority queues, served in number order ahead of the round robin, which then
//!   covers Q to 16 only, and their byte counts go unused. The default, 1, leaves every
//!   user queue in the round robin.
//!
//! A strict-priority packet does not end the visit in progress: the round robin resumes
//! where it was. Only queues that are configured, are the default, or are named by a rule
//! exist (a queue nothing can reach is always empty, and passing over it changes nothing);
//! they are the classes `q0` ... `q16` in number order. Cost: O(rules) per enqueue; O(queues)
//! per dequeue, including with `carry_over`, where rounds in which every backlogged queue
//! would sit out are settled in one step.

use super::packet_queue::{PacketQueue, QueueLimit};
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::classify::class_setup::{element_path, Rules};
use crate::classify::{Classifier, MatchSpec};
use crate::config::error::{join_path, Issue};
use crate::measure::DropReason;
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use crate::units::Size;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// The system queue, served before all others.
pub const SYSTEM_QUEUE: u32 = 0;
/// The highest user queue number (sixteen queues since IOS 11.0).
pub const LAST_QUEUE: u32 = 16;
/// Default byte count of a user queue, bytes.
pub const DEFAULT_BYTE_COUNT_BYTES: u64 = 1500;
/// Default limit of every queue: 20 packets.
pub const DEFAULT_LIMIT: QueueLimit = QueueLimit::Packets(20);
/// Queue of packets no rule matches.
pub const DEFAULT_QUEUE: u32 = 1;
/// Default `lowest_custom`: queue 1, i.e. no strict-priority user queues.
pub const DEFAULT_LOWEST_CUSTOM: u32 = 1;
/// Default of `carry_over`: the over-send is not deducted from the next visit.
pub const DEFAULT_CARRY_OVER: bool = false;

const QUEUE_NUMBERS_HINT: &str = "queues are numbered 1 to 16, and 0 is the system queue";

/// Settings of one queue.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomQueueSpec {
    /// Bytes the queue may send per round-robin visit before the round robin moves on; the
    /// packet that crosses it is sent whole (default 1500 B, the IOS default). Not allowed
    /// on the system queue 0, which is always emptied.
    pub byte_count: Option<Size>,
    /// Queue limit: packets (`20`), bytes (`"30kB"`) or `"unlimited"` (default 20 packets,
    /// the IOS default).
    pub limit: Option<QueueLimit>,
}

/// A classification rule: packets matching `match` go to queue `queue`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueueRule {
    /// The condition (see the match reference).
    #[serde(rename = "match")]
    pub condition: MatchSpec,
    /// Target queue number, 0 to 16.
    #[schemars(range(max = 16))]
    pub queue: u32,
}

/// Parameters of custom queuing.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomParams {
    /// Per-queue settings by queue number (`1` to `16`, `0` for the system queue); queues
    /// not listed use the defaults.
    #[serde(default)]
    #[schemars(extend("propertyNames" = {"pattern": "^([0-9]|1[0-6])$"}))]
    pub queues: BTreeMap<String, CustomQueueSpec>,
    /// Queue of packets no rule matches, 0 to 16 (default 1, as in IOS).
    #[schemars(range(max = 16))]
    pub default_queue: Option<u32>,
    /// Queues numbered below this one (1 to 16) are strict-priority queues served ahead of
    /// the round robin (IOS `lowest-custom`; default 1: none).
    #[schemars(range(min = 1, max = 16))]
    pub lowest_custom: Option<u32>,
    /// Deduct each visit's over-send from the queue's next visit (default false: the
    /// classic algorithm forgets it).
    pub carry_over: Option<bool>,
    /// First-match rules.
    #[serde(default)]
    pub classify: Vec<QueueRule>,
}

/// One queue of the discipline.
#[derive(Clone, Debug)]
struct CqQueue {
    number: u32,
    packets: PacketQueue,
    byte_count_bytes: u64,
    /// Over-send still to be deducted from the next visit (carry-over only), bytes.
    debt_bytes: u64,
}

/// Custom queuing.
#[derive(Clone, Debug)]
pub struct Custom {
    /// The queues that exist, in number order; the index is the class index.
    queues: Vec<CqQueue>,
    /// `queues[..first_custom]` are served exhaustively in order (queue 0 and the queues
    /// below `lowest_custom`); the rest form the round robin.
    first_custom: usize,
    classifier: Classifier,
    carry_over: bool,
    /// The round robin's position: the queue being visited, or the next to be.
    current: usize,
    /// Bytes sent in the visit in progress (its starting debt included); `None` between
    /// visits.
    visit_sent_bytes: Option<u64>,
}

/// Reads a `queues` key: a queue number written in the plain decimal form.
fn queue_key(key: &str, path: &str) -> Result<u32, Issue> {
    match key.parse::<u32>() {
        Ok(n) if n.to_string() == key => check_queue(n, path).map(|()| n),
        _ => Err(Issue::at(path, format!("`{key}` is not a queue number")).hint(QUEUE_NUMBERS_HINT)),
    }
}

fn check_queue(number: u32, path: &str) -> Result<(), Issue> {
    if number > LAST_QUEUE {
        return Err(Issue::at(path, format!("there is no queue {number}")).hint(QUEUE_NUMBERS_HINT));
    }
    Ok(())
}

impl QdiscKind for Custom {
    const KIND: &'static str = "custom";
    const DEPENDS_ON_BANDWIDTH: bool = false;
    type Params = CustomParams;

    /// Builds from `params` found at key path `at`; node names in matches resolve through
    /// `node_address`.
    fn build(
        params: &Self::Params,
        at: &str,
        _interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let queues_at = join_path(at, "queues");
        let mut settings: BTreeMap<u32, (u64, QueueLimit)> = BTreeMap::new();
        for (key, spec) in &params.queues {
            let path = join_path(&queues_at, key);
            let number = queue_key(key, &path)?;
            let byte_count_bytes = match spec.byte_count {
                Some(_) if number == SYSTEM_QUEUE => {
                    return Err(Issue::at(
                        join_path(&path, "byte_count"),
                        "the system queue has no byte count: it is emptied before the other queues",
                    )
                    .hint("remove `byte_count` here, or use a queue from 1 to 16"))
                }
                Some(Size(0)) => {
                    return Err(Issue::at(
                        join_path(&path, "byte_count"),
                        "a byte count of 0 B would never let the queue send",
                    )
                    .hint("use at least 1B; the IOS default is 1500B"))
                }
                Some(Size(bytes)) => bytes,
                None => DEFAULT_BYTE_COUNT_BYTES,
            };
            settings.insert(number, (byte_count_bytes, spec.limit.unwrap_or(DEFAULT_LIMIT)));
        }
        let default_queue = params.default_queue.unwrap_or(DEFAULT_QUEUE);
        check_queue(default_queue, &join_path(at, "default_queue"))?;
        let lowest_custom = params.lowest_custom.unwrap_or(DEFAULT_LOWEST_CUSTOM);
        if !(1..=LAST_QUEUE).contains(&lowest_custom) {
            return Err(Issue::at(
                join_path(at, "lowest_custom"),
                format!("`lowest_custom: {lowest_custom}` is not a user queue"),
            )
            .hint(
                "use 1 to 16: queues below it become priority queues; 1 keeps them all in the round robin",
            ));
        }
        let mut rules = Rules::new();
        for (i, rule) in params.classify.iter().enumerate() {
            let path = element_path(at, "classify", i);
            check_queue(rule.queue, &join_path(&path, "queue"))?;
            rules.add(&rule.condition, &path, rule.queue, node_address)?;
        }

        // The queues that exist: configured, default, or named by a rule.
        let mut numbers: BTreeSet<u32> = settings.keys().copied().collect();
        numbers.insert(default_queue);
        numbers.extend(rules.targets());
        let numbers: Vec<u32> = numbers.into_iter().collect();
        let class_of = |number: u32| numbers.binary_search(&number).expect("every target exists") as u32;
        let classifier = rules.map_targets(class_of).classifier(class_of(default_queue));
        let queues: Vec<CqQueue> = numbers
            .iter()
            .map(|&number| {
                let (byte_count_bytes, limit) =
                    settings.get(&number).copied().unwrap_or((DEFAULT_BYTE_COUNT_BYTES, DEFAULT_LIMIT));
                CqQueue { number, packets: PacketQueue::new(limit), byte_count_bytes, debt_bytes: 0 }
            })
            .collect();
        let first_custom = numbers.iter().take_while(|&&n| n < lowest_custom).count();
        Ok(Custom {
            queues,
            first_custom,
            classifier,
            carry_over: params.carry_over.unwrap_or(DEFAULT_CARRY_OVER),
            current: first_custom,
            visit_sent_bytes: None,
        })
    }
}

impl Custom {
    /// Moves the round robin to the next queue in number order, wrapping around.
    #[inline]
    fn advance(&mut self) {
        self.current += 1;
        if self.current == self.queues.len() {
            self.current = self.first_custom;
        }
    }

    /// Ends the visit in progress, if any, keeping its over-send with carry-over, and moves
    /// on.
    #[inline]
    fn end_visit(&mut self) {
        if let Some(sent) = self.visit_sent_bytes.take() {
            let queue = &mut self.queues[self.current];
            queue.debt_bytes = if self.carry_over { sent.saturating_sub(queue.byte_count_bytes) } else { 0 };
            self.advance();
        }
    }

    /// Called after every backlogged round-robin queue has sat a visit out: skips, in one
    /// step, the further whole rounds in which all of them would sit out again.
    fn settle_idle_rounds(&mut self) {
        let custom = &mut self.queues[self.first_custom..];
        let rounds = custom
            .iter()
            .filter(|q| !q.packets.is_empty())
            .map(|q| q.debt_bytes / q.byte_count_bytes)
            .min()
            .unwrap_or(0);
        for queue in custom.iter_mut().filter(|q| !q.packets.is_empty()) {
            queue.debt_bytes -= rounds * queue.byte_count_bytes;
        }
    }
}

impl Qdisc for Custom {
    fn class_names(&self) -> Vec<String> {
        self.queues.iter().map(|q| format!("q{}", q.number)).collect()
    }

    #[inline]
    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        let class = self.classifier.classify(&packet) as usize;
        let queue = &mut self.queues[class].packets;
        if queue.is_full_for(packet.size_bytes) {
            ctx.drop_arrival(class, packet, DropReason::TailDrop);
        } else {
            ctx.enqueued(class, &packet);
            queue.push(packet);
        }
    }

    #[inline]
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        // The system queue and the priority queues, each until empty, in number order.
        for class in 0..self.first_custom {
            if let Some(packet) = self.queues[class].packets.pop() {
                ctx.dequeued(class, &packet);
                return Dequeue::Packet(packet);
            }
        }
        let backlogged = self.queues[self.first_custom..].iter().filter(|q| !q.packets.is_empty()).count();
        if backlogged == 0 {
            // Nothing to send: the visit in progress ends here.
            self.end_visit();
            return Dequeue::Empty;
        }
        // Visits started in this call that end before sending (carry-over debts only).
        let mut sat_out = 0;
        loop {
            let carry_over = self.carry_over;
            let queue = &mut self.queues[self.current];
            let sent = match self.visit_sent_bytes {
                Some(sent) => sent,
                // Empty queues are passed over without a visit.
                None if queue.packets.is_empty() => {
                    self.advance();
                    continue;
                }
                None => {
                    let debt = if carry_over { std::mem::take(&mut queue.debt_bytes) } else { 0 };
                    if debt >= queue.byte_count_bytes {
                        sat_out += 1;
                    }
                    self.visit_sent_bytes = Some(debt);
                    debt
                }
            };
            // The boundary test: a queue may start another packet while sent < byte_count.
            if sent < queue.byte_count_bytes {
                if let Some(packet) = queue.packets.pop() {
                    self.visit_sent_bytes = Some(sent + packet.size_bytes as u64);
                    ctx.dequeued(self.current, &packet);
                    return Dequeue::Packet(packet);
                }
            }
            self.end_visit();
            if sat_out == backlogged {
                // Every backlogged queue has sat out once in turn; without a shortcut the
                // same would repeat for as many rounds as the smallest debt allows.
                self.settle_idle_rounds();
                sat_out = 0;
            }
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
    use crate::qdisc::testing::{harness, packet, INTERFACE};

    fn params(yaml: &str) -> CustomParams {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        serde_json::from_value(value).unwrap()
    }

    fn custom(yaml: &str) -> Custom {
        Custom::build(&params(yaml), "p", INTERFACE, &|_| None).unwrap()
    }

    /// Dequeues until empty, returning the packet ids in order.
    fn drain(cq: &mut Custom, h: &mut crate::qdisc::testing::Harness) -> Vec<u64> {
        std::iter::from_fn(|| match cq.dequeue(&mut h.ctx()) {
            Dequeue::Packet(p) => Some(p.id),
            Dequeue::Empty | Dequeue::NotBefore(_) => None,
        })
        .collect()
    }

    /// Queues 1, 2 and 3 fed by DSCP 1, 2 and 3; packet ids are 100·queue + position.
    fn three_queues(byte_counts: [&str; 3], carry_over: bool) -> Custom {
        custom(&format!(
            "{{queues: {{1: {{byte_count: {}}}, 2: {{byte_count: {}}}, 3: {{byte_count: {}}}}},
              carry_over: {carry_over},
              classify: [{{match: {{dscp: 2}}, queue: 2}}, {{match: {{dscp: 3}}, queue: 3}}]}}",
            byte_counts[0], byte_counts[1], byte_counts[2]
        ))
    }

    fn fill(cq: &mut Custom, h: &mut crate::qdisc::testing::Harness, queue: u8, count: u64, size: u32) {
        for i in 0..count {
            cq.enqueue(packet(100 * queue as u64 + i, size, queue), &mut h.ctx());
        }
    }

    #[test]
    fn defaults_are_the_ios_ones() {
        assert_eq!(DEFAULT_BYTE_COUNT_BYTES, 1500);
        assert_eq!(DEFAULT_LIMIT, QueueLimit::Packets(20));
        assert_eq!(DEFAULT_QUEUE, 1);
        assert_eq!(DEFAULT_LOWEST_CUSTOM, 1);
        let cq = custom("{}");
        // Only the default queue exists; it takes everything, in the round robin.
        assert_eq!(cq.class_names(), ["q1"]);
        assert_eq!(cq.classifier.classify(&packet(0, 100, 46)), 0);
        assert_eq!(cq.queues[0].byte_count_bytes, 1500);
        assert_eq!(cq.queues[0].packets.limit(), QueueLimit::Packets(20));
        assert_eq!(cq.first_custom, 0);
        assert!(!cq.carry_over);
        // A queue configured with one setting keeps the other's default.
        let cq = custom("{queues: {4: {limit: 5}, 2: {byte_count: 3000B}}}");
        assert_eq!(cq.class_names(), ["q1", "q2", "q4"]);
        let settings: Vec<_> = cq.queues.iter().map(|q| (q.byte_count_bytes, q.packets.limit())).collect();
        assert_eq!(
            settings,
            [
                (1500, QueueLimit::Packets(20)),
                (3000, QueueLimit::Packets(20)),
                (1500, QueueLimit::Packets(5))
            ]
        );
    }

    #[test]
    fn queues_in_results_are_configured_default_or_targeted() {
        let cq = custom(
            "{queues: {9: {}}, default_queue: 5,
              classify: [{match: {dscp: EF}, queue: 0}, {match: {dscp: 8}, queue: 12}]}",
        );
        assert_eq!(cq.class_names(), ["q0", "q5", "q9", "q12"]);
        assert_eq!(cq.classifier.classify(&packet(0, 100, 46)), 0);
        assert_eq!(cq.classifier.classify(&packet(0, 100, 8)), 3);
        assert_eq!(cq.classifier.classify(&packet(0, 100, 0)), 1);
        // The system queue is served exhaustively, ahead of the round robin.
        assert_eq!(cq.first_custom, 1);
    }

    /// 1000-byte packets; byte counts 1500, 2500 and 1000. Per visit, queue 1 sends two
    /// packets (0 and 1000 are below 1500: 2000 B, the over-send), queue 2 three (0, 1000,
    /// 2000 below 2500), queue 3 one (1000 is not below 1000: the boundary test). Six packets
    /// each: rounds 1 and 2 are 2 + 3 + 1; in round 3 queue 2 is empty and passed over; then
    /// queue 3 alone.
    #[test]
    fn over_send_trace_without_carry_over() {
        let mut cq = three_queues(["1500B", "2500B", "1000B"], false);
        let mut h = harness(3);
        for queue in 1..=3 {
            fill(&mut cq, &mut h, queue, 6, 1000);
        }
        assert_eq!(
            drain(&mut cq, &mut h),
            [
                100, 101, 200, 201, 202, 300, // round 1
                102, 103, 203, 204, 205, 301, // round 2
                104, 105, 302, // round 3: queue 2 is empty
                303, 304, 305, // queue 3 alone
            ]
        );
        assert_eq!(cq.len_packets(), 0);
        assert_eq!(h.classes.iter().map(|c| c.dequeued_bytes).collect::<Vec<_>>(), [6000, 6000, 6000]);
    }

    /// The same load with carry-over. Queue 1: visit 1 sends 2000 B (debt 500); visit 2
    /// starts at 500, sends one packet (1500, debt 0); so 2, 1, 2, 1 packets. Queue 2: 3000 B
    /// (debt 500), then 500 + 2000 = 2500 (two packets, debt 0); so 3, 2, ... Queue 3 never
    /// over-sends: one packet a visit. Round 3: queue 1 two packets, queue 2 its last one
    /// (the visit ends with the queue empty and sent below the byte count: no debt), queue 3
    /// one. Round 4: queue 1 starts with a debt of 500 and sends its last packet.
    #[test]
    fn carry_over_deducts_the_over_send_from_the_next_visit() {
        let mut cq = three_queues(["1500B", "2500B", "1000B"], true);
        let mut h = harness(3);
        for queue in 1..=3 {
            fill(&mut cq, &mut h, queue, 6, 1000);
        }
        assert_eq!(
            drain(&mut cq, &mut h),
            [
                100, 101, 200, 201, 202, 300, // round 1: debts 500, 500, 0
                102, 203, 204, 301, // round 2: debts 0, 0, 0
                103, 104, 205, 302, // round 3: debts 500, 0, 0
                105, 303, // round 4
                304, 305,
            ]
        );
    }

    /// Byte count 500 and 1500-byte packets with carry-over: the queue sends one packet,
    /// then sits out two visits (debt 1000, then 500) and sends again — 500 B a round, as a
    /// neighbour with 500-byte packets and the same byte count gets.
    #[test]
    fn carry_over_debt_larger_than_the_byte_count_skips_visits() {
        let mut cq = three_queues(["500B", "500B", "500B"], true);
        let mut h = harness(3);
        fill(&mut cq, &mut h, 1, 3, 1500);
        fill(&mut cq, &mut h, 2, 9, 500);
        assert_eq!(drain(&mut cq, &mut h), [100, 200, 201, 202, 101, 203, 204, 205, 102, 206, 207, 208]);
        // Alone, a deeply indebted queue is still served at once: the run never idles with a
        // backlog. Byte count 1 B: after one 1500-byte packet the debt is 1499 B.
        let mut cq = three_queues(["1B", "500B", "500B"], true);
        let mut h = harness(3);
        fill(&mut cq, &mut h, 1, 3, 1500);
        assert_eq!(drain(&mut cq, &mut h), [100, 101, 102]);
        // Two indebted queues: queue 1 (1 B, 1500-byte packets) pays a packet off in 1500
        // visits, queue 2 (2 B, 1000-byte packets) in 500, so all three of queue 2's packets
        // leave before queue 1's second.
        let mut cq = three_queues(["1B", "2B", "500B"], true);
        let mut h = harness(3);
        fill(&mut cq, &mut h, 1, 2, 1500);
        fill(&mut cq, &mut h, 2, 3, 1000);
        assert_eq!(drain(&mut cq, &mut h), [100, 200, 201, 202, 101]);
    }

    /// Queues 1 and 2 are priority queues with `lowest_custom: 3`; queue 0 comes first of
    /// all; 3 and 4 share the round robin. A priority arrival takes the next transmit
    /// opportunity, and the round robin then resumes the visit it was in.
    #[test]
    fn lowest_custom_makes_lower_queues_strict_priority() {
        let mut cq = custom(
            "{lowest_custom: 3, queues: {3: {byte_count: 3000B}},
              classify: [{match: {dscp: 0}, queue: 0}, {match: {dscp: 2}, queue: 2},
                         {match: {dscp: 3}, queue: 3}, {match: {dscp: 4}, queue: 4}]}",
        );
        assert_eq!(cq.class_names(), ["q0", "q1", "q2", "q3", "q4"]);
        assert_eq!(cq.first_custom, 3);
        let mut h = harness(5);
        fill(&mut cq, &mut h, 4, 2, 1000);
        fill(&mut cq, &mut h, 3, 4, 1000);
        fill(&mut cq, &mut h, 2, 2, 1000);
        fill(&mut cq, &mut h, 1, 2, 1000);
        cq.enqueue(packet(0, 1000, 0), &mut h.ctx());
        let mut order = Vec::new();
        for _ in 0..6 {
            let Dequeue::Packet(p) = cq.dequeue(&mut h.ctx()) else { panic!("empty") };
            order.push(p.id);
        }
        // Queue 0, then 1 and 2 in full, then queue 3's visit starts.
        assert_eq!(order, [0, 100, 101, 200, 201, 300]);
        fill(&mut cq, &mut h, 1, 1, 1000);
        // Queue 3 (3000 B) resumes after the priority packet: 1000 and 2000 are below 3000.
        assert_eq!(drain(&mut cq, &mut h), [100, 301, 302, 400, 401, 303]);
    }

    #[test]
    fn tail_drop_per_queue_in_packets_and_bytes() {
        let mut cq = custom(
            "{queues: {2: {limit: 3}, 3: {limit: 2500B}},
              classify: [{match: {dscp: 2}, queue: 2}, {match: {dscp: 3}, queue: 3}]}",
        );
        let mut h = harness(3);
        fill(&mut cq, &mut h, 1, 25, 100);
        fill(&mut cq, &mut h, 2, 5, 100);
        fill(&mut cq, &mut h, 3, 3, 1000);
        let tail: Vec<u64> = h.classes.iter().map(|c| c.dropped_for(DropReason::TailDrop)).collect();
        // Queue 1 holds its default 20 of 25; queue 2 its 3 of 5; queue 3 two 1000-byte
        // packets within 2500 B.
        assert_eq!(tail, [5, 2, 1]);
        assert_eq!(h.dropped, 8);
        assert_eq!(cq.len_packets(), 20 + 3 + 2);
    }

    /// The round robin against a literal, one-visit-at-a-time model of the definition in the
    /// header (no shortcuts), on random arrivals interleaved with transmit opportunities.
    #[test]
    fn matches_a_literal_model_on_random_workloads() {
        /// A queue of the model: (id, size) of each packet, byte count, debt.
        struct ModelQueue {
            packets: std::collections::VecDeque<(u64, u64)>,
            byte_count: u64,
            debt: u64,
        }
        struct Model {
            queues: Vec<ModelQueue>,
            current: usize,
            sent: Option<u64>,
            carry_over: bool,
        }
        impl Model {
            fn end_visit(&mut self, sent: u64) {
                let q = &mut self.queues[self.current];
                q.debt = if self.carry_over { sent.saturating_sub(q.byte_count) } else { 0 };
                self.sent = None;
                self.current = (self.current + 1) % self.queues.len();
            }
            fn next(&mut self) -> Option<u64> {
                if self.queues.iter().all(|q| q.packets.is_empty()) {
                    if let Some(sent) = self.sent {
                        self.end_visit(sent);
                    }
                    return None;
                }
                loop {
                    let q = &mut self.queues[self.current];
                    let sent = match self.sent {
                        Some(sent) => sent,
                        None if q.packets.is_empty() => {
                            self.current = (self.current + 1) % self.queues.len();
                            continue;
                        }
                        None => std::mem::take(&mut q.debt),
                    };
                    if sent < q.byte_count {
                        if let Some((id, size)) = q.packets.pop_front() {
                            self.sent = Some(sent + size);
                            return Some(id);
                        }
                    }
                    self.end_visit(sent);
                }
            }
        }
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut random = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for carry_over in [false, true] {
            let byte_counts = [700u64, 1500, 64, 4000];
            let mut cq = custom(&format!(
                "{{queues: {{1: {{byte_count: 700B, limit: unlimited}},
                           2: {{byte_count: 1500B, limit: unlimited}},
                           3: {{byte_count: 64B, limit: unlimited}},
                           4: {{byte_count: 4000B, limit: unlimited}}}},
                  carry_over: {carry_over},
                  classify: [{{match: {{dscp: 2}}, queue: 2}}, {{match: {{dscp: 3}}, queue: 3}},
                             {{match: {{dscp: 4}}, queue: 4}}]}}"
            ));
            let mut model = Model {
                queues: byte_counts
                    .iter()
                    .map(|&byte_count| ModelQueue { packets: Default::default(), byte_count, debt: 0 })
                    .collect(),
                current: 0,
                sent: None,
                carry_over,
            };
            let mut h = harness(4);
            for id in 0..20_000u64 {
                // Alternating phases: one where arrivals outpace transmit opportunities two to
                // one, one where they drain, so queues fill, empty and the link idles.
                let transmit_share = if (id / 1000) % 2 == 0 { 1 } else { 2 };
                if random(3) < transmit_share {
                    let expected = model.next();
                    let got = match cq.dequeue(&mut h.ctx()) {
                        Dequeue::Packet(p) => Some(p.id),
                        Dequeue::Empty | Dequeue::NotBefore(_) => None,
                    };
                    assert_eq!(got, expected, "carry_over {carry_over}, step {id}");
                } else {
                    let queue = 1 + random(4) as u8;
                    let size = 40 + random(1461) as u32;
                    cq.enqueue(packet(id, size, queue), &mut h.ctx());
                    model.queues[queue as usize - 1].packets.push_back((id, size as u64));
                }
            }
            assert_eq!(drain(&mut cq, &mut h), std::iter::from_fn(|| model.next()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn configuration_errors() {
        let error = |yaml: &str| Custom::build(&params(yaml), "p", INTERFACE, &|_| None).unwrap_err();
        let e = error("{queues: {17: {}}}");
        assert_eq!((e.key_path.as_str(), e.message.as_str()), ("p.queues.17", "there is no queue 17"));
        assert!(e.hint.unwrap().contains("1 to 16"));
        assert_eq!(error("{queues: {two: {}}}").key_path, "p.queues.two");
        assert_eq!(error("{queues: {\"02\": {}}}").key_path, "p.queues.02");
        let e = error("{queues: {2: {byte_count: 0B}}}");
        assert_eq!(e.key_path, "p.queues.2.byte_count");
        assert!(e.message.contains("never let the queue send"), "{}", e.message);
        assert_eq!(error("{queues: {0: {byte_count: 1500B}}}").key_path, "p.queues.0.byte_count");
        assert_eq!(error("{default_queue: 17}").key_path, "p.default_queue");
        assert_eq!(error("{lowest_custom: 0}").key_path, "p.lowest_custom");
        assert_eq!(error("{lowest_custom: 17}").key_path, "p.lowest_custom");
        assert_eq!(
            error("{classify: [{match: {}, queue: 1}, {match: {}, queue: 20}]}").key_path,
            "p.classify[1].queue"
        );
        assert_eq!(
            error("{classify: [{match: {dst: nowhere}, queue: 2}]}").key_path,
            "p.classify[0].match.dst[0]"
        );
        // The system queue may carry a limit, and be a target or the default.
        let system = params("{queues: {0: {limit: 5}}, default_queue: 0}");
        assert_eq!(Custom::build(&system, "p", INTERFACE, &|_| None).unwrap().class_names(), ["q0"]);
    }
}
