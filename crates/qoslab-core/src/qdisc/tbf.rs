//! Traffic shaping: a queue whose head may leave only when a shaper's credit allows — IOS
//! `shape average | peak` (class-based shaping) and Linux `tbf` — over its own FIFO or over
//! a child policy (IOS hierarchical shaping: `shape` in a parent's class-default with
//! `service-policy CHILD` under it).
//!
//! The credit (Bc, Be, Tc; modes `average`, `peak`, `continuous`; IOS's defaults,
//! `docs/reference/ios-defaults.md`) is [`super::shaper_credit`], shared with shaped CBWFQ
//! classes. A shaper is not work-conserving: while its next packet waits for credit it
//! answers "not before" the instant the credit is there, and the port wakes it then. In
//! IOS's modes a packet takes its IP bytes of credit; in `continuous` mode, Linux's `tbf`,
//! what the kernel charges for it, the packet as the device holds it
//! ([`super::linux_charge`]).
//!
//! **Own queue.** Without a child, packets wait in a FIFO of `limit` packets (1000 by
//! default) and are tail-dropped beyond it; a packet larger than the bucket (Bc + Be) can
//! never leave and is dropped on arrival (`overlimit`).
//!
//! **Child policy.** With `child`, any output policy queues and schedules the packets, and
//! the shaper decides only *when* the child's next packet may leave. It needs that packet's
//! size first, so it takes the packet from the child and holds it, as Linux's `tbf` does
//! with a child that cannot be peeked (`qdisc_peek_dequeued` in
//! `include/net/sch_generic.h`): if the credit is there the packet leaves at once, otherwise
//! it stays held, ahead of anything the child receives meanwhile, until the instant its
//! credit arrives. A held packet still counts in its class and in the port (see
//! [`QdiscCtx::dequeue_held`]; Linux likewise keeps it in the child's queue length), so the
//! backlog identities hold. The child's classes are the shaper's classes in the results.
//! The child is built with the shaping rate as its bandwidth: its percentages (`priority`,
//! `bandwidth`) and its reservation limit are of the shaped rate, as in IOS HQF, where the
//! parent's shape rate is what the child policy divides. The child's LLQ sees the interface
//! as congested unless its packet could leave at once: ring room, nothing held, and credit
//! for it now. A child's packet larger than the bucket is dropped when it reaches the head
//! (`overlimit`), because only the child knows its class before then. Cost per packet:
//! O(1) on top of the child's.

use super::linux_charge::LinuxCharge;
use super::packet_queue::{PacketQueue, QueueLimit};
use super::shaper_credit::{ShapeMode, ShapeSpec, ShaperCredit};
use super::{AnyQdisc, Dequeue, Interface, PolicySpec, Qdisc, QdiscKind};
use crate::config::error::{join_path, Issue};
use crate::measure::DropReason;
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use crate::units::{RateOrShare, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// Default shaping queue, packets.
pub const DEFAULT_LIMIT: QueueLimit = QueueLimit::Packets(1000);

/// Parameters of a shaper.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TbfParams {
    /// Committed rate (CIR), or a percentage of the interface bandwidth.
    pub rate: RateOrShare,
    /// Committed burst Bc in bytes (default: IOS's rule, see the page).
    pub bc: Option<Size>,
    /// Excess burst Be in bytes (default Bc).
    pub be: Option<Size>,
    /// `average` (default), `peak` or `continuous`.
    pub mode: Option<ShapeMode>,
    /// Shaping queue limit (default 1000 packets); not with `child`.
    pub limit: Option<QueueLimit>,
    /// A policy written in place that queues and schedules the shaped traffic (IOS
    /// `service-policy` under `shape`); its percentages are of the shaping rate.
    pub child: Option<Box<PolicySpec>>,
}

/// Where shaped packets wait.
#[derive(Clone, Debug)]
enum Waiting {
    /// The shaper's own FIFO.
    Fifo(PacketQueue),
    /// A child policy, and the packet taken from it that waits for credit, with its class.
    Child { policy: Box<AnyQdisc>, held: Option<(Packet, usize)> },
}

/// A shaper.
#[derive(Clone, Debug)]
pub struct Tbf {
    waiting: Waiting,
    credit: ShaperCredit,
    /// In `continuous` mode, Linux's tbf, what the kernel charges a packet
    /// ([`super::linux_charge`]); IOS's shaping takes the IP packet's bytes.
    charge: Option<LinuxCharge>,
}

impl QdiscKind for Tbf {
    const KIND: &'static str = "tbf";
    const DEPENDS_ON_BANDWIDTH: bool = true;
    type Params = TbfParams;

    /// Builds from `params` found at key path `at` for `interface`.
    fn build(
        params: &Self::Params,
        at: &str,
        interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let shape = ShapeSpec { rate: params.rate, bc: params.bc, be: params.be, mode: params.mode };
        // IOS's shapers count the link's layer-2 header; Linux's tbf what the kernel charges.
        let ios_header_bytes =
            if params.mode == Some(ShapeMode::Continuous) { 0 } else { interface.ios_header_bytes };
        let credit =
            ShaperCredit::build(&shape, at, interface.bandwidth_bps)?.counting_header(ios_header_bytes);
        let waiting = match &params.child {
            // Linux's tbf counts its byte limit as the device holds the packets.
            None => Waiting::Fifo(PacketQueue::new(params.limit.unwrap_or(DEFAULT_LIMIT)).counting_header(
                if params.mode == Some(ShapeMode::Continuous) { interface.device_header_bytes } else { 0 },
            )),
            Some(_) if params.limit.is_some() => {
                return Err(Issue::at(
                    join_path(at, "limit"),
                    "a shaper with a child policy queues in the child",
                )
                .hint("remove `limit` and set the child's queue limits"))
            }
            Some(child) => {
                let child_at = join_path(at, "child");
                // Its reservations are checked against the shaping rate.
                let shaped = Interface { bandwidth_bps: credit.rate_bps(), ..interface };
                let policy = shaped.build_nested(
                    |on| child.build(&child_at, on, node_address),
                    |issue| Issue {
                        kind: issue.kind,
                        key_path: at.to_owned(),
                        message: format!(
                            "the child policy's interface bandwidth is the {} kbit/s shaping rate: {}",
                            credit.rate_bps() / 1000,
                            issue.message
                        ),
                        hint: issue.hint.map(|hint| format!("{hint}; or raise the shaper's `rate`")),
                    },
                )?;
                Waiting::Child { policy: Box::new(policy), held: None }
            }
        };
        let charge = match params.mode {
            Some(ShapeMode::Continuous) => Some(LinuxCharge::new(interface.device_header_bytes, None, at)?),
            _ => None,
        };
        Ok(Tbf { waiting, credit, charge })
    }
}

/// The credit a packet of `ip_bytes` takes: what `charge` says, or its IP bytes.
#[inline]
fn cost(charge: Option<LinuxCharge>, ip_bytes: u32) -> u32 {
    charge.map_or(ip_bytes, |charge| charge.bytes(ip_bytes))
}

impl Qdisc for Tbf {
    fn class_names(&self) -> Vec<String> {
        match &self.waiting {
            Waiting::Fifo(_) => vec!["shaped".to_owned()],
            Waiting::Child { policy, .. } => policy.class_names(),
        }
    }

    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        let cost = cost(self.charge, packet.size_bytes);
        match &mut self.waiting {
            Waiting::Fifo(queue) => {
                if !self.credit.fits(cost) {
                    return ctx.drop_arrival(0, packet, DropReason::Overlimit);
                }
                if queue.is_full_for(packet.size_bytes) {
                    return ctx.drop_arrival(0, packet, DropReason::TailDrop);
                }
                ctx.enqueued(0, &packet);
                queue.push(packet);
            }
            Waiting::Child { policy, held } => {
                // For the child, the way out is free only if its packet could leave now.
                let ring_has_room = ctx.ring_has_room;
                ctx.ring_has_room = ring_has_room
                    && held.is_none()
                    && self.credit.fits(cost)
                    && self.credit.ready_at(ctx.now, cost) == ctx.now;
                policy.enqueue(packet, ctx);
                ctx.ring_has_room = ring_has_room;
            }
        }
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        match &mut self.waiting {
            Waiting::Fifo(queue) => {
                let Some(size_bytes) = queue.head_size_bytes() else {
                    return Dequeue::Empty;
                };
                let cost = cost(self.charge, size_bytes);
                let at = self.credit.ready_at(ctx.now, cost);
                if at > ctx.now {
                    return Dequeue::NotBefore(at);
                }
                self.credit.take(ctx.now, cost);
                let packet = queue.pop().expect("the head exists");
                ctx.dequeued(0, &packet);
                Dequeue::Packet(packet)
            }
            Waiting::Child { policy, held } => loop {
                let (packet, class) = match held.take() {
                    Some(waiting) => waiting,
                    None => match ctx.dequeue_held(|ctx| policy.dequeue(ctx)) {
                        (Dequeue::Packet(packet), class) => {
                            (packet, class.expect("a discipline counts every packet it hands out"))
                        }
                        (answer, _) => return answer,
                    },
                };
                let cost = cost(self.charge, packet.size_bytes);
                if !self.credit.fits(cost) {
                    ctx.drop_queued(class, packet, DropReason::Overlimit);
                    continue;
                }
                let at = self.credit.ready_at(ctx.now, cost);
                if at > ctx.now {
                    *held = Some((packet, class));
                    return Dequeue::NotBefore(at);
                }
                self.credit.take(ctx.now, cost);
                ctx.dequeued(class, &packet);
                return Dequeue::Packet(packet);
            },
        }
    }

    fn len_packets(&self) -> usize {
        match &self.waiting {
            Waiting::Fifo(queue) => queue.len(),
            Waiting::Child { policy, held } => policy.len_packets() + usize::from(held.is_some()),
        }
    }

    fn take_packets(&mut self) -> Vec<Packet> {
        match &mut self.waiting {
            Waiting::Fifo(queue) => queue.take_all(),
            Waiting::Child { policy, held } => {
                let mut packets: Vec<Packet> = held.take().map(|(p, _)| p).into_iter().collect();
                packets.extend(policy.take_packets());
                packets
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet, Harness};
    use crate::time::SimTime;

    const LINK: Interface = crate::qdisc::testing::INTERFACE;
    /// DSCP values used below.
    const EF: u8 = 46;
    const AF11: u8 = 10;
    const AF21: u8 = 18;

    fn build(yaml: &str, interface: Interface) -> Result<Tbf, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        Tbf::build(&serde_json::from_value(value).unwrap(), "s", interface, &|_| None)
    }

    fn tbf(yaml: &str) -> Tbf {
        build(yaml, LINK).unwrap()
    }

    /// Asks the shaper at `now_ns`.
    fn dequeue_at(shaper: &mut Tbf, h: &mut Harness, now_ns: u64) -> Dequeue {
        let mut ctx = h.ctx();
        ctx.now = SimTime(now_ns);
        shaper.dequeue(&mut ctx)
    }

    /// Releases everything the shaper holds as the port would over an infinitely fast link:
    /// whenever allowed, waiting for each "not before". Returns (time, packet id) of each.
    fn drain(shaper: &mut Tbf, h: &mut Harness) -> Vec<(u64, u64)> {
        let mut now = 0;
        let mut sent = Vec::new();
        loop {
            match dequeue_at(shaper, h, now) {
                Dequeue::Packet(p) => sent.push((now, p.id)),
                Dequeue::NotBefore(t) => now = t.0,
                Dequeue::Empty => return sent,
            }
        }
    }

    /// Offers `count` packets of `size` at t = 0 and drains them; returns the release times.
    fn releases(shaper: &mut Tbf, count: u64, size: u32) -> Vec<u64> {
        let mut h = harness(shaper.class_names().len());
        for id in 0..count {
            shaper.enqueue(packet(id, size, 0), &mut h.ctx());
        }
        drain(shaper, &mut h).into_iter().map(|(t, _)| t).collect()
    }

    /// Over every window [t_i, t_j], the `size`-byte packets released are at most
    /// `burst_bytes` + `rate_bps` × (t_j − t_i).
    fn assert_burst_plus_rate(times: &[u64], size: u32, burst_bytes: f64, rate_bps: f64) {
        for i in 0..times.len() {
            for j in i..times.len() {
                let bytes = size as f64 * (j - i + 1) as f64;
                let bound = burst_bytes + rate_bps / 8.0 * (times[j] - times[i]) as f64 / 1e9;
                assert!(bytes <= bound + 1e-6, "{i}..{j}: {bytes} > {bound}");
            }
        }
    }

    #[test]
    fn default_limit_is_1000_packets() {
        assert_eq!(DEFAULT_LIMIT, QueueLimit::Packets(1000));
        let Waiting::Fifo(queue) = &tbf("{rate: 64kbps}").waiting else { panic!("no FIFO") };
        assert_eq!(queue.limit(), DEFAULT_LIMIT);
    }

    #[test]
    fn interval_shaping_hand_trace() {
        // 64 kbit/s, Bc = Be = 1000 B, Tc = 125 ms, bucket full (2000 B): five 500-byte
        // packets: four leave at once, then 1000 B arrive at 125 ms: the fifth leaves then.
        let mut s = tbf("{rate: 64kbps}");
        assert_eq!(releases(&mut s, 5, 500), [0, 0, 0, 0, 125_000_000]);
    }

    #[test]
    fn continuous_bucket_never_exceeds_burst_plus_rate() {
        // 1 Mbit/s (125 000 B/s), bucket 3000 B; 200 packets of 700 B.
        let mut s = tbf("{rate: 1Mbps, bc: 1500B, be: 1500B, mode: continuous}");
        let times = releases(&mut s, 200, 700);
        assert_eq!(times.len(), 200);
        assert_burst_plus_rate(&times, 700, 3000.0, 1e6);
        // Once the initial bucket is spent, packets leave at exactly the rate: 189 packets
        // between the 11th and the 200th release. Within 1 %.
        let rate = 700.0 * 189.0 / ((times[199] - times[10]) as f64 / 1e9);
        assert!((rate - 125_000.0).abs() / 125_000.0 < 0.01, "{rate}");
    }

    #[test]
    fn oversized_packets_and_limits() {
        let mut s = tbf("{rate: 64kbps, limit: 2}");
        let mut h = harness(1);
        s.enqueue(packet(0, 2001, 0), &mut h.ctx()); // larger than Bc + Be
        for id in 1..=3 {
            s.enqueue(packet(id, 100, 0), &mut h.ctx());
        }
        assert_eq!(h.classes[0].dropped_for(DropReason::Overlimit), 1);
        assert_eq!(h.classes[0].dropped_for(DropReason::TailDrop), 1);
    }

    #[test]
    fn child_configuration() {
        // The child's classes are the shaper's; `limit` belongs to the child.
        let s = tbf(
            "{rate: 500kbps, child: {kind: cbwfq, classes: [{name: v, match: {dscp: EF}, priority: 10%}]}}",
        );
        assert_eq!(s.class_names(), ["v", "class-default"]);
        let issue = build("{rate: 500kbps, limit: 10, child: {kind: fifo}}", LINK).err().unwrap();
        assert_eq!(issue.key_path, "s.limit");
        // The child's percentages are of the 500 kbit/s shaping rate, not of the 1 Mbit/s
        // interface: 80 % is 400 kbit/s against 75 % of 500 = 375 kbit/s. A problem of the
        // child's own text stays at its path.
        let child = "{kind: cbwfq, classes: [{name: a, match: {}, bandwidth: 80%}]}";
        let issue = build(&format!("{{rate: 500kbps, child: {child}}}"), LINK).err().unwrap();
        assert_eq!(issue.key_path, "s");
        assert!(
            issue.message.starts_with("the child policy's interface bandwidth is the 500 kbit/s"),
            "{}",
            issue.message
        );
        assert!(issue.message.contains("reserve 400 kbit/s, but only 375 kbit/s"), "{}", issue.message);
        assert!(issue.hint.unwrap().ends_with("or raise the shaper's `rate`"));
        let checked_alone = Interface { admission: false, ..LINK };
        assert!(build(&format!("{{rate: 500kbps, child: {child}}}"), checked_alone).is_ok());
        let bad_child = "{rate: 500kbps, child: {kind: cbwfq, classes: [{name: a, bandwidth: 10%}]}}";
        assert_eq!(build(bad_child, checked_alone).err().unwrap().key_path, "s.child.classes[0]");
    }

    #[test]
    fn a_held_packet_stays_counted_in_its_class() {
        // 64 kbit/s, bucket 2000 B, Tc = 125 ms. Three 1000-byte AF11 packets: two leave at
        // once; the third is taken from the child and held until 125 ms.
        let mut s = tbf(
            "{rate: 64kbps, child: {kind: cbwfq, classes: [{name: a, match: {dscp: AF11}, bandwidth: 50%}]}}",
        );
        let mut h = harness(2);
        for id in 0..3 {
            s.enqueue(packet(id, 1000, AF11), &mut h.ctx());
        }
        assert!(matches!(dequeue_at(&mut s, &mut h, 0), Dequeue::Packet(p) if p.id == 0));
        assert!(matches!(dequeue_at(&mut s, &mut h, 0), Dequeue::Packet(p) if p.id == 1));
        assert_eq!(dequeue_at(&mut s, &mut h, 0), Dequeue::NotBefore(SimTime(125_000_000)));
        // Held, it is still in class `a` and in the port.
        assert_eq!(s.len_packets(), 1);
        assert_eq!(
            (h.classes[0].backlog_packets, h.classes[0].dequeued_packets, h.port.backlog_packets),
            (1, 2, 1)
        );
        assert!(h.classes[0].check(1).is_ok() && h.port.check(1).is_ok());
        // A class-default packet arriving meanwhile waits behind it: the held packet leaves
        // at 125 ms, the newcomer at the next interval.
        s.enqueue(packet(3, 1000, 0), &mut h.ctx());
        assert_eq!(dequeue_at(&mut s, &mut h, 1_000_000), Dequeue::NotBefore(SimTime(125_000_000)));
        assert!(matches!(dequeue_at(&mut s, &mut h, 125_000_000), Dequeue::Packet(p) if p.id == 2));
        assert_eq!(dequeue_at(&mut s, &mut h, 125_000_000), Dequeue::NotBefore(SimTime(250_000_000)));
        assert_eq!((h.classes[0].backlog_packets, h.classes[1].backlog_packets), (0, 1));
        assert!(matches!(dequeue_at(&mut s, &mut h, 250_000_000), Dequeue::Packet(p) if p.id == 3));
        assert_eq!(dequeue_at(&mut s, &mut h, 250_000_000), Dequeue::Empty);
        assert!(h.classes.iter().all(|c| c.check(0).is_ok()) && h.port.check(0).is_ok());
    }

    #[test]
    fn an_oversized_child_packet_is_dropped_at_the_head() {
        let mut s = tbf("{rate: 64kbps, child: {kind: fifo}}");
        let mut h = harness(1);
        s.enqueue(packet(0, 2001, 0), &mut h.ctx());
        s.enqueue(packet(1, 100, 0), &mut h.ctx());
        assert!(matches!(dequeue_at(&mut s, &mut h, 0), Dequeue::Packet(p) if p.id == 1));
        assert_eq!(h.classes[0].dropped_for(DropReason::Overlimit), 1);
        assert_eq!(h.dropped, 1);
        assert!(h.classes[0].check(0).is_ok() && h.port.check(0).is_ok());
    }

    #[test]
    fn nested_shapers_hold_to_the_slower() {
        // A 1 Mbit/s shaper over a 500 kbit/s one (bucket 2000 B), both continuous: the
        // inner one sets the pace, and each packet is counted once, when it leaves.
        let mut s = tbf(
            "{rate: 1Mbps, bc: 1500B, mode: continuous, child: {kind: tbf, rate: 50%, bc: 1000B, mode: continuous}}",
        );
        assert_eq!(s.class_names(), ["shaped"]);
        let mut h = harness(1);
        for id in 0..100 {
            s.enqueue(packet(id, 1000, 0), &mut h.ctx());
        }
        let times: Vec<u64> = drain(&mut s, &mut h).into_iter().map(|(t, _)| t).collect();
        assert_eq!(times.len(), 100);
        assert_burst_plus_rate(&times, 1000, 2000.0, 500_000.0);
        let rate_bps = 1000.0 * 8.0 * 97.0 / ((times[99] - times[2]) as f64 / 1e9);
        assert!((rate_bps - 500_000.0).abs() / 500_000.0 < 0.01, "{rate_bps}");
        assert_eq!((h.classes[0].dequeued_packets, h.port.dequeued_packets), (100, 100));
        assert!(h.classes[0].check(0).is_ok());
    }

    /// Voice (200 B every 20 ms, EF) and two saturated data classes (1000 B) under a
    /// continuous 500 kbit/s shaper with a 1500-byte bucket, released over an infinitely
    /// fast link for `duration_ns`. Returns the voice delays and the bytes per class sent
    /// after the first second.
    fn hierarchical_run(duration_ns: u64) -> (Vec<u64>, [u64; 4]) {
        let child = "{kind: cbwfq, classes: [
            {name: voice, match: {dscp: EF}, priority: 20%},
            {name: a, match: {dscp: AF11}, bandwidth: 30%},
            {name: b, match: {dscp: AF21}, bandwidth: 15%}]}";
        let mut s = tbf(&format!("{{rate: 500kbps, bc: 1500B, be: 0B, mode: continuous, child: {child}}}"));
        let mut h = harness(4);
        let mut id = 0;
        let mut offer = |s: &mut Tbf, h: &mut Harness, now: u64, size: u32, dscp: u8| {
            // The packet id carries its arrival time.
            let mut ctx = h.ctx();
            ctx.now = SimTime(now);
            id += 1;
            s.enqueue(packet(now * 1000 + id % 1000, size, dscp), &mut ctx);
        };
        for _ in 0..4 {
            offer(&mut s, &mut h, 0, 1000, AF11);
            offer(&mut s, &mut h, 0, 1000, AF21);
        }
        let (mut now, mut next_voice) = (0, 0);
        let mut delays = Vec::new();
        let mut bytes = [0u64; 4];
        while now < duration_ns {
            while next_voice <= now {
                offer(&mut s, &mut h, next_voice, 200, EF);
                next_voice += 20_000_000;
            }
            match dequeue_at(&mut s, &mut h, now) {
                Dequeue::Packet(p) => {
                    let class = match p.dscp {
                        EF => 0,
                        AF11 => 1,
                        AF21 => 2,
                        _ => 3,
                    };
                    if now >= 1_000_000_000 {
                        bytes[class] += p.size_bytes as u64;
                    }
                    if p.dscp == EF {
                        delays.push(now - p.id / 1000);
                    } else {
                        // Keep the data classes saturated.
                        offer(&mut s, &mut h, now, 1000, p.dscp);
                    }
                }
                Dequeue::NotBefore(t) => now = t.0.min(next_voice),
                Dequeue::Empty => now = next_voice,
            }
        }
        let held: u64 = h.classes.iter().map(|c| c.backlog_packets).sum();
        assert_eq!(held, s.len_packets() as u64);
        assert!(h
            .classes
            .iter()
            .zip([0, 4, 4, 0])
            .all(|(c, n)| c.check(c.backlog_packets).is_ok() && c.backlog_packets <= n));
        (delays, bytes)
    }

    #[test]
    fn llq_child_under_a_shaper() {
        // 60 s; measured over the last 59 s.
        let (delays, bytes) = hierarchical_run(60_000_000_000);
        let measured_s = 59.0;
        let total_bps = bytes.iter().sum::<u64>() as f64 * 8.0 / measured_s;
        // The output is the shaping rate, within 1 %.
        assert!((total_bps - 500_000.0).abs() / 500_000.0 < 0.01, "{total_bps}");
        // Voice: every packet sent (80 kbit/s, under its 100 kbit/s: 20 % of the shaped
        // rate), each within the time to earn credit for one held 1000-byte data packet
        // (16 ms at 500 kbit/s) and then for itself (3.2 ms).
        assert_eq!(delays.len(), 3000);
        let max_delay_ns = *delays.iter().max().unwrap();
        assert!(max_delay_ns <= 19_200_000, "{max_delay_ns}");
        // The data classes split what voice leaves (420 kbit/s) as 30 : 15.
        let (a_bps, b_bps) = (bytes[1] as f64 * 8.0 / measured_s, bytes[2] as f64 * 8.0 / measured_s);
        assert!((a_bps / b_bps - 2.0).abs() < 0.02, "{a_bps} {b_bps}");
        assert!((a_bps - 280_000.0).abs() / 280_000.0 < 0.01, "{a_bps}");
    }
}
