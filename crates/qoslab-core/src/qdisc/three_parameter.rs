//! The three-parameter class scheduler of IOS XE (ASR 1000, ISR 1000/4000, Catalyst 8000):
//! each queue has a **minimum** (`bandwidth`), a **maximum** (`shape`, applied by the caller)
//! and an **excess weight** (`bandwidth remaining ratio|percent`, 1 when not configured).
//!
//! Cisco describes the scheduler by its outcome, not its code: minimum guarantees are served
//! first; what the link has beyond them (the *excess*) is shared among the backlogged queues in
//! proportion to their excess weights, which are equal unless configured — so `bandwidth
//! percent 10` and `bandwidth percent 20` on two saturated classes give 10 % + 35 % and 20 % +
//! 35 % of the link, where a two-parameter scheduler (pre-HQF CBWFQ) gives 33 % and 66 %
//! (Cisco community, "ASR1000 CBWFQ QoS Configuration Example"; Cisco IOS XE QoS MQC
//! configuration guide, "3-level user-defined queuing policy support"). The queuing engine's
//! internals (the QFP's) are not published; this module realises the documented outcome with
//! two textbook mechanisms:
//!
//! * **Minimum** — a per-queue virtual clock (Zhang, "VirtualClock", SIGCOMM 1990): a queue
//!   with a minimum rate `r` has a ready time; it may be served *for its minimum* when the
//!   ready time has come, and each such packet of `L` bytes moves the ready time `8L/r` on.
//!   A queue that fell behind (it was idle, or waited for the link) may carry at most
//!   [`MIN_CREDIT_BYTES`] of unspent minimum: its ready time never lags the present by more
//!   than that at its rate. Among queues whose minimum is due, the earliest ready time goes
//!   first. The present is the scheduler's own service clock — the bits it has sent at the
//!   level's rate — not the wall clock: a minimum is a share of the rate the level is served
//!   at, and a policy under a parent shaper, served in bursts with pauses between them, keeps
//!   its minimums through the pauses as IOS XE's hierarchy does.
//! * **Excess** — when no minimum is due, self-clocked fair queuing (Golestani, INFOCOM 1994)
//!   among the queues that may send. A queue takes its place in the excess line when it has
//!   a packet and none in the line: its start is `max(the finish of its last excess packet,
//!   the round)`; its finish is the start plus `L × cost` for its head of `L` bytes, the cost
//!   inversely proportional to its excess weight. The smallest finish is sent and becomes the
//!   round. A packet a queue sends for its minimum leaves the queue's place in the line as it
//!   is, so the queue gets its minimum *plus* its share of the excess — the additive rule
//!   Cisco documents.
//!
//! A queue may hold several flow queues served equally ([`super::fair_flows`], IOS XE's
//! `fair-queue` in a class); the scheduler sees the packet they send next.
//!
//! The scheduler is work-conserving among the queues the caller lets send. Queues are few
//! (a policy's classes), so both choices scan them: O(queues) per packet.

use super::fair_flows::FairFlows;
use crate::packet::Packet;
use crate::time::transmission_ns;

/// How much unspent minimum a queue may carry, bytes: one full-size Ethernet payload, so a
/// queue that waited for one packet ahead of it on the link loses none of its minimum.
/// (Not published for IOS XE; an assumption stated in `docs/qdisc/cbwfq.md`.)
pub const MIN_CREDIT_BYTES: u64 = 1500;

/// The excess cost of a byte at excess weight 1; weight `w` costs `EXCESS_COST_SCALE / w`.
/// With weights up to 10¹⁰ (bit/s as weights) the rounding error is below 10⁻⁹ of a share,
/// and tags stay below 2¹²⁸ for more than 10¹⁵ packets of 1500 bytes at weight 1.
const EXCESS_COST_SCALE: u128 = 1 << 64;

/// What one queue is promised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueRates {
    /// The minimum rate, bit/s, if the queue has one.
    pub min_bps: Option<u64>,
    /// The queue's weight in the excess, at least 1.
    pub excess_weight: u64,
    /// Its flow queues, served equally (1: a FIFO).
    pub flows: usize,
}

/// One queue: its packets, its virtual clock and its excess tag.
#[derive(Clone, Debug)]
struct Lane {
    packets: FairFlows,
    min_bps: Option<u64>,
    /// How far the minimum's ready time may lag the service clock: [`MIN_CREDIT_BYTES`]
    /// at the minimum rate, ns.
    min_lag_ns: u64,
    /// When the queue's minimum next falls due, ns.
    min_ready_ns: u64,
    cost_per_byte: u128,
    /// The queue's start in the excess line, while it has a place there.
    excess_start: Option<u128>,
    /// The finish of the queue's last packet sent from the excess.
    excess_finish: u128,
}

/// The scheduler over a policy's queues.
#[derive(Clone, Debug)]
pub struct ThreeParameter {
    lanes: Vec<Lane>,
    /// What each queue was promised.
    rates: Vec<QueueRates>,
    /// The finish of the packet last sent from the excess.
    round: u128,
    /// The level's rate, bit/s: the service clock's pace.
    level_bps: u64,
    /// Bits sent: with `level_bps`, the service clock.
    sent_bits: u128,
    len_packets: usize,
}

/// Why a packet was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Served {
    /// Its queue's minimum was due.
    Minimum,
    /// It shared the excess.
    Excess,
}

impl ThreeParameter {
    /// Empty queues with these promises, on a level served at `level_bps`.
    pub fn new(rates: &[QueueRates], level_bps: u64) -> Self {
        let lanes = rates
            .iter()
            .map(|r| Lane {
                packets: FairFlows::new(r.flows),
                min_bps: r.min_bps.filter(|&bps| bps > 0),
                min_lag_ns: r
                    .min_bps
                    .filter(|&bps| bps > 0)
                    .map_or(0, |bps| transmission_ns(MIN_CREDIT_BYTES * 8, bps)),
                min_ready_ns: 0,
                cost_per_byte: EXCESS_COST_SCALE / u128::from(r.excess_weight.max(1)),
                excess_start: None,
                excess_finish: 0,
            })
            .collect();
        ThreeParameter {
            lanes,
            rates: rates.to_vec(),
            round: 0,
            level_bps: level_bps.max(1),
            sent_bits: 0,
            len_packets: 0,
        }
    }

    /// What `queue` was promised.
    pub fn rates(&self, queue: usize) -> QueueRates {
        self.rates[queue]
    }

    /// Packets held in all queues.
    #[inline]
    pub fn len_packets(&self) -> usize {
        self.len_packets
    }

    /// Packets held in `queue`.
    #[inline]
    pub fn queue_len(&self, queue: usize) -> usize {
        self.lanes[queue].packets.len()
    }

    /// Packets held in flow queue `flow` of `queue`.
    #[inline]
    pub fn flow_len(&self, queue: usize, flow: usize) -> usize {
        self.lanes[queue].packets.flow_len(flow)
    }

    /// Bytes held in flow queue `flow` of `queue`.
    #[inline]
    pub fn flow_bytes(&self, queue: usize, flow: usize) -> u64 {
        self.lanes[queue].packets.flow_bytes(flow)
    }

    /// Appends `packet` to flow queue `flow` of `queue`.
    #[inline]
    pub fn push(&mut self, queue: usize, flow: usize, packet: Packet) {
        self.lanes[queue].packets.push(flow, packet);
        self.len_packets += 1;
    }

    /// Removes every packet, queue by queue.
    pub fn take_all(&mut self) -> Vec<Packet> {
        self.len_packets = 0;
        self.lanes.iter_mut().flat_map(|lane| lane.packets.take_all()).collect()
    }

    /// Sends the next packet among the queues whose head `may_send` accepts (a shaped queue
    /// waiting for credit is refused): a due minimum first, else the excess.
    pub fn pop(
        &mut self,
        mut may_send: impl FnMut(usize, &Packet) -> bool,
    ) -> Option<(usize, Packet, Served)> {
        // The service clock, ns.
        let served_ns =
            (self.sent_bits * 1_000_000_000 / u128::from(self.level_bps)).min(u128::from(u64::MAX)) as u64;
        let mut due: Option<(u64, usize)> = None;
        let mut excess: Option<(u128, usize)> = None;
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            let Some(head) = lane.packets.head() else { continue };
            if !may_send(i, head) {
                continue;
            }
            if lane.min_bps.is_some() {
                lane.min_ready_ns = lane.min_ready_ns.max(served_ns.saturating_sub(lane.min_lag_ns));
                if lane.min_ready_ns <= served_ns && due.is_none_or(|(ready, _)| lane.min_ready_ns < ready) {
                    due = Some((lane.min_ready_ns, i));
                }
            }
            let start = *lane.excess_start.get_or_insert(lane.excess_finish.max(self.round));
            let finish = start + u128::from(head.size_bytes) * lane.cost_per_byte;
            if excess.is_none_or(|(best, _)| finish < best) {
                excess = Some((finish, i));
            }
        }
        let (queue, served) = match (due, excess) {
            (Some((_, i)), _) => (i, Served::Minimum),
            (None, Some((finish, i))) => {
                let lane = &mut self.lanes[i];
                lane.excess_finish = finish;
                lane.excess_start = None;
                self.round = finish;
                (i, Served::Excess)
            }
            (None, None) => return None,
        };
        let lane = &mut self.lanes[queue];
        let packet = lane.packets.pop().expect("a head was chosen");
        if lane.packets.is_empty() {
            // An empty queue leaves the excess line; it rejoins at the round.
            lane.excess_start = None;
        }
        if let (Served::Minimum, Some(min_bps)) = (served, lane.min_bps) {
            lane.min_ready_ns += transmission_ns(u64::from(packet.size_bytes) * 8, min_bps);
        }
        self.len_packets -= 1;
        self.sent_bits += u128::from(packet.size_bytes) * 8;
        Some((queue, packet, served))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::packet;

    fn rates(list: &[(Option<u64>, u64)]) -> Vec<QueueRates> {
        list.iter().map(|&(min_bps, excess_weight)| QueueRates { min_bps, excess_weight, flows: 1 }).collect()
    }

    /// Keeps every queue saturated with `size`-byte packets for `packets` packets; returns
    /// the bytes each queue sent after the first tenth.
    fn saturate(s: &mut ThreeParameter, queues: usize, size: u32, packets: usize) -> Vec<u64> {
        let mut id = 0;
        for q in 0..queues {
            for _ in 0..4 {
                id += 1;
                s.push(q, 0, packet(id, size, 0));
            }
        }
        let mut sent = vec![0u64; queues];
        for n in 0..packets {
            let (q, p, _) = s.pop(|_, _| true).expect("saturated");
            if n >= packets / 10 {
                sent[q] += u64::from(p.size_bytes);
            }
            id += 1;
            s.push(q, 0, packet(id, size, 0));
        }
        sent
    }

    #[test]
    fn minimums_first_then_equal_excess() {
        // 10 and 20 % minimums of 1 Mbit/s, equal weights: 10 + 35 and 20 + 35 %.
        let mut s = ThreeParameter::new(&rates(&[(Some(100_000), 1), (Some(200_000), 1)]), 1_000_000);
        let sent = saturate(&mut s, 2, 1000, 60_000);
        let total: u64 = sent.iter().sum();
        let shares: Vec<f64> = sent.iter().map(|&b| b as f64 / total as f64).collect();
        assert!((shares[0] - 0.45).abs() < 0.002, "{shares:?}");
        assert!((shares[1] - 0.55).abs() < 0.002, "{shares:?}");
    }

    #[test]
    fn excess_weights_share_what_the_minimums_leave() {
        // Minimum 100 kbit/s of 1 Mbit/s for queue 0 only; weights 1:3: queue 0 gets 100 +
        // 900/4 = 325, queue 1 675 kbit/s.
        let mut s = ThreeParameter::new(&rates(&[(Some(100_000), 1), (None, 3)]), 1_000_000);
        let sent = saturate(&mut s, 2, 500, 60_000);
        let total: u64 = sent.iter().sum();
        let share = sent[0] as f64 / total as f64;
        assert!((share - 0.325).abs() < 0.002, "{share}");
    }

    #[test]
    fn a_hand_traced_start() {
        // A level served at 16 kbit/s. Queue 0: minimum 8 kbit/s (1000 B per second of
        // service), weight 1; queue 1: no minimum, weight 2. Three 1000-byte packets each;
        // each packet moves the service clock 0.5 s on.
        let mut s = ThreeParameter::new(&rates(&[(Some(8_000), 1), (None, 2)]), 16_000);
        for id in 0..3 {
            s.push(0, 0, packet(id, 1000, 0));
            s.push(1, 0, packet(10 + id, 1000, 0));
        }
        // Clock 0: queue 0's minimum is due → minimum, ready at 1 s. Clock 0.5: the excess
        // (units of 2⁶⁴): both start at 0, finishes 1000 and 500 → queue 1, round 500.
        // Clock 1: queue 0's minimum is due again → ready at 2 s. Clock 1.5: queue 0 keeps
        // its start 0 (finish 1000), queue 1 starts at 500 (finish 1000): a tie, the lower
        // index → queue 0, whose third packet empties it. Then queue 1 twice.
        let order: Vec<(usize, Served)> =
            std::iter::from_fn(|| s.pop(|_, _| true).map(|(q, _, w)| (q, w))).collect();
        assert_eq!(
            order,
            [
                (0, Served::Minimum),
                (1, Served::Excess),
                (0, Served::Minimum),
                (0, Served::Excess),
                (1, Served::Excess),
                (1, Served::Excess)
            ]
        );
    }

    #[test]
    fn a_refused_queue_is_passed_over() {
        let mut s = ThreeParameter::new(&rates(&[(Some(1_000_000), 1), (None, 1)]), 2_000_000);
        s.push(0, 0, packet(1, 100, 0));
        s.push(1, 0, packet(2, 100, 0));
        let (q, _, served) = s.pop(|q, _| q != 0).unwrap();
        assert_eq!((q, served), (1, Served::Excess));
        assert!(s.pop(|q, _| q != 0).is_none());
        assert_eq!((s.len_packets(), s.queue_len(0)), (1, 1));
        assert_eq!(s.take_all().len(), 1);
    }

    #[test]
    fn an_idle_queue_carries_at_most_1500_bytes_of_minimum() {
        // A level at 16 kbit/s; queue 0's minimum 8 kbit/s, queue 1 takes all the excess
        // (weight 1000). Queue 1 alone sends 20 packets of 1000 B: the service clock reaches
        // 10 s while queue 0 is idle. Then queue 0 has 500-byte packets: its ready time
        // starts at 10 − 1.5 s (1500 B at 8 kbit/s) and moves 0.5 s a packet while the clock
        // moves 0.25 s: k-th packet due while 8.5 + 0.5k ≤ 10 + 0.25k, k = 0..6 — seven
        // packets for the minimum, then the excess (queue 1).
        let mut s = ThreeParameter::new(&rates(&[(Some(8_000), 1), (None, 1000)]), 16_000);
        for id in 0..20 {
            s.push(1, 0, packet(id, 1000, 0));
        }
        (0..20).for_each(|_| assert_eq!(s.pop(|_, _| true).unwrap().0, 1));
        for id in 0..10 {
            s.push(0, 0, packet(100 + id, 500, 0));
            s.push(1, 0, packet(200 + id, 1000, 0));
        }
        let ways: Vec<(usize, Served)> =
            (0..8).map(|_| s.pop(|_, _| true).map(|(q, _, w)| (q, w)).unwrap()).collect();
        assert_eq!(ways[..7], [(0, Served::Minimum); 7]);
        assert_eq!(ways[7], (1, Served::Excess));
    }
}
