//! Flow-based weighted fair queuing — IOS `fair-queue [cdt [dynamic-queues]]`.
//!
//! Packets are sorted into conversations by a hash of source and destination address, IP
//! protocol, ToS byte and source and destination port; the hash selects one of
//! `dynamic_queues` queues (256 by default), so two conversations can share a queue, as on a
//! router. Conversations are scheduled by sequence number ([`super::scfq`]) with the IOS
//! weight 32384 / (precedence + 1) (4096 / (precedence + 1) in older releases): a
//! precedence-5 conversation gets six times the bandwidth of a precedence-0 one.
//!
//! Drops ("WFQ modified tail drop"): when the whole system holds `hold_queue` packets
//! (1000 by default) an arriving packet is dropped. When the arriving packet's conversation
//! already holds `cdt` packets (congestive discard threshold, 64 by default) one of two
//! documented policies applies: `arrival` drops the arriving packet (Cisco command
//! reference); `highest-sn` drops it only if it would carry the highest SN in the system,
//! and otherwise drops the queued packet that does (Odom & Cavanaugh's description), so
//! the most aggressive conversations lose first. Facts and sources:
//! `docs/reference/ios-defaults.md` (Cisco `fair-queue` command reference; Cisco tech note
//! 110850 for the 32384 constant; Vegesna and Odom for the SN rule). The hash function is
//! not published; this one is FNV-1a over the key ([`crate::classify::flow_hash`]),
//! deterministic across runs.

use super::scfq::Scfq;
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::classify::flow_hash::FlowHashMemo;
use crate::config::error::{join_path, Issue};
use crate::measure::DropReason;
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use schemars::JsonSchema;
use serde::Deserialize;

/// IOS weight numerator since the 12.0 T releases: weight = 32384 / (precedence + 1).
pub const IOS_WEIGHT_NUMERATOR: u64 = 32_384;
/// The older numerator: weight = 4096 / (precedence + 1).
pub const LEGACY_WEIGHT_NUMERATOR: u64 = 4_096;
/// Default number of dynamic conversation queues.
pub const DEFAULT_DYNAMIC_QUEUES: u32 = 256;
/// Default congestive discard threshold, packets per conversation.
pub const DEFAULT_CDT_PACKETS: u32 = 64;
/// Default hold queue when WFQ is the interface's queuing, packets in the whole system.
pub const DEFAULT_HOLD_QUEUE_PACKETS: u32 = 1000;

/// What happens when a conversation holds `cdt` packets and another arrives.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CdtPolicy {
    /// Drop the arriving packet (command-reference description).
    #[default]
    Arrival,
    /// Drop the arriving packet only if it would have the highest SN; otherwise drop the
    /// queued packet with the highest SN (Cisco Press description).
    HighestSn,
}

/// Parameters of flow-based WFQ.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WfqParams {
    /// Dynamic conversation queues: a power of two from 16 to 4096 (default 256).
    pub dynamic_queues: Option<u32>,
    /// Congestive discard threshold, packets per conversation, 1–4096 (default 64).
    pub cdt: Option<u32>,
    /// Packets the whole WFQ system may hold (default 1000; IOS `hold-queue N out`).
    pub hold_queue: Option<u32>,
    /// What happens at the threshold: `arrival` (default) or `highest-sn`.
    pub cdt_policy: Option<CdtPolicy>,
    /// Use the older 4096 / (precedence + 1) weights (default false: 32384).
    #[serde(default)]
    pub legacy_weights: bool,
}

/// The weight of a packet of IP precedence `precedence`.
pub const fn precedence_weight(numerator: u64, precedence: u8) -> u64 {
    numerator / (precedence as u64 + 1)
}

/// The weights of precedences 0–7 for `numerator`, worked out once rather than divided
/// per packet.
pub const fn precedence_weights(numerator: u64) -> [u64; 8] {
    let mut weights = [0; 8];
    let mut precedence = 0;
    while precedence < 8 {
        weights[precedence] = precedence_weight(numerator, precedence as u8);
        precedence += 1;
    }
    weights
}

/// Flow-based weighted fair queuing.
#[derive(Clone, Debug)]
pub struct Wfq {
    scfq: Scfq,
    queue_mask: u64,
    cdt_packets: usize,
    hold_queue_packets: usize,
    cdt_policy: CdtPolicy,
    /// The weight of each IP precedence.
    weights: [u64; 8],
    flow_hashes: FlowHashMemo,
}

impl QdiscKind for Wfq {
    const KIND: &'static str = "wfq";
    const DEPENDS_ON_BANDWIDTH: bool = false;
    type Params = WfqParams;

    /// Builds from `params` found at key path `at`.
    fn build(
        params: &Self::Params,
        at: &str,
        _interface: Interface,
        _node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let queues = params.dynamic_queues.unwrap_or(DEFAULT_DYNAMIC_QUEUES);
        if !(16..=4096).contains(&queues) || !queues.is_power_of_two() {
            return Err(Issue::at(
                join_path(at, "dynamic_queues"),
                format!("{queues} dynamic queues is not allowed"),
            )
            .hint("use a power of two from 16 to 4096, as IOS does"));
        }
        let cdt = params.cdt.unwrap_or(DEFAULT_CDT_PACKETS);
        if !(1..=4096).contains(&cdt) {
            return Err(Issue::at(
                join_path(at, "cdt"),
                format!("a threshold of {cdt} packets is not allowed"),
            )
            .hint("use 1 to 4096 packets"));
        }
        let hold = params.hold_queue.unwrap_or(DEFAULT_HOLD_QUEUE_PACKETS);
        if hold == 0 {
            return Err(Issue::at(join_path(at, "hold_queue"), "a hold queue of 0 packets can hold nothing"));
        }
        Ok(Wfq {
            scfq: Scfq::new(queues as usize),
            queue_mask: queues as u64 - 1,
            cdt_packets: cdt as usize,
            hold_queue_packets: hold as usize,
            cdt_policy: params.cdt_policy.unwrap_or_default(),
            weights: precedence_weights(if params.legacy_weights {
                LEGACY_WEIGHT_NUMERATOR
            } else {
                IOS_WEIGHT_NUMERATOR
            }),
            flow_hashes: FlowHashMemo::default(),
        })
    }
}

impl Qdisc for Wfq {
    /// One class per IP precedence (conversations are too many to list).
    fn class_names(&self) -> Vec<String> {
        (0..8).map(|p| format!("precedence-{p}")).collect()
    }

    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        let class = packet.precedence() as usize;
        if self.scfq.len_packets() >= self.hold_queue_packets {
            return ctx.drop_arrival(class, packet, DropReason::TailDrop);
        }
        let queue = (self.flow_hashes.hash(&packet) & self.queue_mask) as usize;
        let weight = self.weights[packet.precedence() as usize];
        if self.scfq.queue_len(queue) >= self.cdt_packets {
            match self.cdt_policy {
                CdtPolicy::Arrival => return ctx.drop_arrival(class, packet, DropReason::CongestiveDiscard),
                CdtPolicy::HighestSn => {
                    let sn = self.scfq.next_sn(queue, weight, packet.size_bytes);
                    match self.scfq.highest_sn() {
                        Some((victim_queue, highest)) if highest > sn => {
                            let victim =
                                self.scfq.drop_tail(victim_queue).expect("a highest-SN packet is queued");
                            ctx.drop_queued(
                                victim.precedence() as usize,
                                victim,
                                DropReason::CongestiveDiscard,
                            );
                        }
                        _ => return ctx.drop_arrival(class, packet, DropReason::CongestiveDiscard),
                    }
                }
            }
        }
        ctx.enqueued(class, &packet);
        self.scfq.push(queue, packet, weight);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        match self.scfq.pop() {
            Some((_, packet)) => {
                ctx.dequeued(packet.precedence() as usize, &packet);
                Dequeue::Packet(packet)
            }
            None => Dequeue::Empty,
        }
    }

    fn len_packets(&self) -> usize {
        self.scfq.len_packets()
    }

    fn take_packets(&mut self) -> Vec<Packet> {
        self.scfq.take_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet, INTERFACE};

    fn wfq(yaml: &str) -> Wfq {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        Wfq::build(&serde_json::from_value(value).unwrap(), "w", INTERFACE, &|_| None).unwrap()
    }

    /// A packet of conversation `port` (ports give distinct conversations).
    fn conv(id: u64, port: u16, size: u32, dscp: u8) -> Packet {
        Packet { dst_port: port, ..packet(id, size, dscp) }
    }

    #[test]
    fn defaults_and_weights() {
        let w = wfq("{}");
        assert_eq!((w.queue_mask + 1, w.cdt_packets, w.hold_queue_packets), (256, 64, 1000));
        assert_eq!(w.cdt_policy, CdtPolicy::Arrival);
        assert_eq!(precedence_weight(IOS_WEIGHT_NUMERATOR, 0), 32_384);
        assert_eq!(precedence_weight(IOS_WEIGHT_NUMERATOR, 5), 5_397);
        assert_eq!(precedence_weight(LEGACY_WEIGHT_NUMERATOR, 7), 512);
        // Odom's worked number: a 500-byte precedence-0 packet arriving to an idle system.
        let mut w = wfq("{}");
        let mut h = harness(8);
        w.enqueue(conv(0, 1, 500, 0), &mut h.ctx());
        assert_eq!(w.scfq.highest_sn().map(|(_, sn)| sn), Some(16_192_000));
    }

    #[test]
    fn hand_computed_trace_of_five_packets() {
        // Conversation A (precedence 0, weight 32384) and B (precedence 5 = DSCP 40, weight
        // 5397), all on an idle system (round number 0):
        //   a1 300 B: 0 + 32384·300 = 9 715 200      b1 1000 B: 0 + 5397·1000 = 5 397 000
        //   a2 100 B: 9 715 200 + 3 238 400 = 12 953 600
        //   b2 1000 B: 5 397 000 + 5 397 000 = 10 794 000
        // Send order by SN: b1, a1, b2 (RN := 10 794 000), then a3 100 B arrives to A, which
        // still holds a2: 12 953 600 + 3 238 400 = 16 192 000; a2, a3 follow.
        let mut w = wfq("{}");
        let mut h = harness(8);
        for p in [conv(1, 1, 300, 0), conv(2, 1, 100, 0), conv(11, 2, 1000, 40), conv(12, 2, 1000, 40)] {
            w.enqueue(p, &mut h.ctx());
        }
        let mut order = Vec::new();
        for _ in 0..3 {
            let Dequeue::Packet(p) = w.dequeue(&mut h.ctx()) else { panic!() };
            order.push(p.id);
        }
        assert_eq!(w.scfq.round_number(), 10_794_000);
        w.enqueue(conv(3, 1, 100, 0), &mut h.ctx());
        assert_eq!(w.scfq.highest_sn().map(|(_, sn)| sn), Some(16_192_000));
        while let Dequeue::Packet(p) = w.dequeue(&mut h.ctx()) {
            order.push(p.id);
        }
        assert_eq!(order, [11, 1, 12, 2, 3]);
    }

    /// `12953600` as the page writes it: `12 953 600`.
    fn spaced(number: u64) -> String {
        let digits = number.to_string();
        let mut out = String::new();
        for (i, digit) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(' ');
            }
            out.push(digit);
        }
        out
    }

    /// The page's weight table and hand-computed trace are the model's: the weights as
    /// `precedence_weights` gives them, every sequence number as the scheduler gives it (the
    /// round number after each packet is sent is that packet's number).
    #[test]
    fn the_pages_weights_and_trace_are_the_models() {
        let page = include_str!("../../../../docs/qdisc/wfq.md");
        for (row, numerator) in [("weight", IOS_WEIGHT_NUMERATOR), ("legacy weight", LEGACY_WEIGHT_NUMERATOR)]
        {
            let weights = precedence_weights(numerator).map(|w| w.to_string()).join(" | ");
            let line = format!("| {row} | {weights} |");
            assert!(page.contains(&line), "docs/qdisc/wfq.md lacks `{line}`");
        }
        let mut w = wfq("{}");
        let mut h = harness(8);
        for p in [conv(1, 1, 300, 0), conv(2, 1, 100, 0), conv(11, 2, 1000, 40), conv(12, 2, 1000, 40)] {
            w.enqueue(p, &mut h.ctx());
        }
        let sent = |w: &mut Wfq, h: &mut crate::qdisc::testing::Harness| {
            let Dequeue::Packet(_) = w.dequeue(&mut h.ctx()) else { panic!("a packet was queued") };
            w.scfq.round_number()
        };
        let (b1, a1, b2) = (sent(&mut w, &mut h), sent(&mut w, &mut h), sent(&mut w, &mut h));
        w.enqueue(conv(3, 1, 100, 0), &mut h.ctx());
        let (a2, a3) = (sent(&mut w, &mut h), sent(&mut w, &mut h));
        let (weight_a, weight_b) =
            (precedence_weight(IOS_WEIGHT_NUMERATOR, 0), precedence_weight(IOS_WEIGHT_NUMERATOR, 5));
        let rows = [
            format!("| a1 (300 B) arrives | 0 + {weight_a} × 300 = {} | 0 |", spaced(a1)),
            format!("| a2 (100 B) arrives | {} + {} = {} | 0 |", spaced(a1), spaced(a2 - a1), spaced(a2)),
            format!("| b1 (1000 B) arrives | 0 + {weight_b} × 1000 = {} | 0 |", spaced(b1)),
            format!("| b2 (1000 B) arrives | {} + {} = {} | 0 |", spaced(b1), spaced(b2 - b1), spaced(b2)),
            format!("| b1, a1, b2 sent (smallest SN first) | | {} |", spaced(b2)),
            format!(
                "| a3 (100 B) arrives; A still holds a2 | {} + {} = {} | {} |",
                spaced(a2),
                spaced(a3 - a2),
                spaced(a3),
                spaced(b2)
            ),
            format!("| a2, a3 sent | | {} |", spaced(a3)),
        ];
        for row in rows {
            assert!(page.contains(&row), "docs/qdisc/wfq.md lacks `{row}`");
        }
        assert_eq!((a1, a2 - a1, b1), (weight_a * 300, weight_a * 100, weight_b * 1000));
        let odom = format!("SN = {weight_a} × 500 = {}", spaced(weight_a * 500));
        assert!(page.split_whitespace().collect::<Vec<_>>().join(" ").contains(&odom), "lacks `{odom}`");
    }

    #[test]
    fn congestive_discard_policies() {
        // cdt 2: conversation 1 holds two 100-byte packets; a third arrives.
        for (policy, dropped_id) in [("arrival", 3), ("highest-sn", 99)] {
            let mut w = wfq(&format!("{{cdt: 2, cdt_policy: {policy}}}"));
            let mut h = harness(8);
            // Another conversation's packet with a huge SN (1500 B) is queued first.
            w.enqueue(conv(99, 7, 1500, 0), &mut h.ctx());
            for id in 1..=3 {
                w.enqueue(conv(id, 1, 100, 0), &mut h.ctx());
            }
            let mut left = Vec::new();
            while let Dequeue::Packet(p) = w.dequeue(&mut h.ctx()) {
                left.push(p.id);
            }
            assert!(!left.contains(&dropped_id), "{policy}: {left:?}");
            assert_eq!(left.len(), 3, "{policy}");
            assert_eq!(h.classes[0].dropped_for(DropReason::CongestiveDiscard), 1);
            assert!(h.classes[0].check(0).is_ok(), "{policy}");
        }
    }

    #[test]
    fn hold_queue_limits_the_system() {
        let mut w = wfq("{hold_queue: 3}");
        let mut h = harness(8);
        for id in 0..5 {
            w.enqueue(conv(id, id as u16, 100, 0), &mut h.ctx());
        }
        assert_eq!(w.len_packets(), 3);
        assert_eq!(h.classes[0].dropped_for(DropReason::TailDrop), 2);
    }

    #[test]
    fn configuration_errors() {
        let err = |yaml: &str| {
            let (value, _) = crate::config::yaml::parse(yaml).unwrap();
            Wfq::build(&serde_json::from_value(value).unwrap(), "w", INTERFACE, &|_| None)
                .unwrap_err()
                .key_path
        };
        assert_eq!(err("{dynamic_queues: 100}"), "w.dynamic_queues");
        assert_eq!(err("{dynamic_queues: 8}"), "w.dynamic_queues");
        assert_eq!(err("{cdt: 0}"), "w.cdt");
        assert_eq!(err("{hold_queue: 0}"), "w.hold_queue");
    }
}
