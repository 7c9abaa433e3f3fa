//! The receiving half of a TCP endpoint: what has arrived, in order and out of order, and
//! when to acknowledge it.
//!
//! `rcv_nxt` is the next sequence number expected. A segment that starts at or below it and
//! ends above it advances it, and any out-of-order ranges it reaches are merged in; a
//! segment starting above it is kept as an out-of-order range (the receive buffer is not
//! limited beyond the advertised window). Acknowledgements follow RFC 5681 §4.2 and
//! RFC 1122 §4.2.3.2 as Linux applies them: a duplicate or out-of-order segment, one that
//! fills a hole, a SYN and a FIN are acknowledged at once; in-order data is acknowledged
//! every `segments`-th full segment (default 2) or when the delayed-ACK timer (default
//! 40 ms, Linux's minimum) expires, whichever comes first. With delayed ACKs off every
//! segment is acknowledged at once.

use crate::packet::sack::SackBlocks;
use crate::packet::segment::{flags, Segment};
use crate::time::SimTime;

/// Delayed-ACK settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DelayedAck {
    /// Longest an acknowledgement may wait, ns.
    pub timeout_ns: u64,
    /// Acknowledge at the latest every this many in-order segments.
    pub segments: u32,
}

/// Linux's delayed ACK: 40 ms, every second segment.
#[cfg(test)]
pub const LINUX_DELAYED_ACK: DelayedAck = DelayedAck { timeout_ns: 40_000_000, segments: 2 };

/// How an arriving segment should be acknowledged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AckNeed {
    /// Nothing new to acknowledge (a pure ACK arrived).
    None,
    /// Acknowledge now.
    Now,
    /// Acknowledge when the delayed-ACK timer expires, unless data leaves first.
    Delayed,
}

/// The receiving half of an endpoint.
#[derive(Clone, Debug)]
pub struct Receiver {
    /// Next sequence number expected (0 until the SYN arrives).
    pub rcv_nxt: u64,
    syn_received: bool,
    fin_seq: Option<u64>,
    /// Out-of-order ranges [start, end), sorted and disjoint.
    out_of_order: Vec<(u64, u64)>,
    delayed_ack: Option<DelayedAck>,
    unacked_segments: u32,
    /// When the delayed ACK is due, if one is pending.
    pub delack_deadline: Option<SimTime>,
    /// Window advertised to the peer, bytes.
    pub window_bytes: u32,
    /// Whether acknowledgements carry SACK blocks.
    sack: bool,
    /// Sequence number of the most recent out-of-order arrival.
    last_out_of_order: u64,
}

impl Receiver {
    /// A receiver advertising `window_bytes` with the given delayed-ACK policy.
    pub fn new(window_bytes: u32, delayed_ack: Option<DelayedAck>) -> Self {
        Receiver {
            rcv_nxt: 0,
            syn_received: false,
            fin_seq: None,
            out_of_order: Vec::with_capacity(8),
            delayed_ack,
            unacked_segments: 0,
            delack_deadline: None,
            window_bytes,
            sack: false,
            last_out_of_order: 0,
        }
    }

    /// Makes acknowledgements carry SACK blocks (RFC 2018).
    pub fn enable_sack(&mut self) {
        self.sack = true;
    }

    /// The SACK blocks an acknowledgement sent now carries: the out-of-order range holding
    /// the most recent arrival first, then the others from the highest down (RFC 2018 §4
    /// asks for the most recently reported ones; the highest ranges stand in for them).
    pub fn sack_blocks(&self) -> SackBlocks {
        if !self.sack || self.out_of_order.is_empty() {
            return SackBlocks::default();
        }
        let recent = self
            .out_of_order
            .iter()
            .position(|&(s, e)| s <= self.last_out_of_order && self.last_out_of_order < e)
            .unwrap_or(self.out_of_order.len() - 1);
        let first = self.out_of_order[recent];
        let others = self
            .out_of_order
            .iter()
            .rev()
            .enumerate()
            .filter(move |&(i, _)| self.out_of_order.len() - 1 - i != recent);
        SackBlocks::new(self.rcv_nxt, std::iter::once(first).chain(others.map(|(_, &r)| r)))
    }

    /// Whether the peer's SYN has arrived.
    pub fn syn_received(&self) -> bool {
        self.syn_received
    }

    /// Whether the peer's FIN has arrived and everything before it.
    pub fn fin_received(&self) -> bool {
        self.fin_seq.is_some_and(|fin| self.rcv_nxt > fin)
    }

    /// Data bytes received in order.
    pub fn delivered_bytes(&self) -> u64 {
        self.rcv_nxt.saturating_sub(1) - self.fin_received() as u64
    }

    /// Processes the sequence part of `segment`, arriving at `now`.
    pub fn on_segment(&mut self, segment: &Segment, now: SimTime) -> AckNeed {
        let mut start = segment.seq;
        if segment.has(flags::SYN) {
            if !self.syn_received {
                self.syn_received = true;
                self.rcv_nxt = segment.seq + 1;
            }
            start += 1;
            if segment.seq_len() == 1 {
                return AckNeed::Now;
            }
        }
        if !self.syn_received {
            return AckNeed::None;
        }
        let end = segment.seq + segment.seq_len();
        if end == start {
            // A pure ACK: nothing to acknowledge.
            return AckNeed::None;
        }
        if segment.has(flags::FIN) {
            self.fin_seq = Some(end - 1);
        }
        if end <= self.rcv_nxt {
            return AckNeed::Now;
        }
        if start > self.rcv_nxt {
            self.insert_out_of_order(start, end);
            self.last_out_of_order = start;
            return AckNeed::Now;
        }
        self.rcv_nxt = end;
        let filled_a_hole = !self.out_of_order.is_empty();
        while let Some(&(s, e)) = self.out_of_order.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.out_of_order.remove(0);
        }
        if filled_a_hole || self.fin_received() {
            return AckNeed::Now;
        }
        match self.delayed_ack {
            None => AckNeed::Now,
            Some(policy) => {
                self.unacked_segments += 1;
                if self.unacked_segments >= policy.segments {
                    AckNeed::Now
                } else {
                    if self.delack_deadline.is_none() {
                        self.delack_deadline = Some(now.after(policy.timeout_ns));
                    }
                    AckNeed::Delayed
                }
            }
        }
    }

    fn insert_out_of_order(&mut self, start: u64, end: u64) {
        let at = self.out_of_order.partition_point(|&(s, _)| s < start);
        self.out_of_order.insert(at, (start, end));
        // Merge overlapping or touching neighbours.
        let mut i = at.saturating_sub(1);
        while i + 1 < self.out_of_order.len() {
            let (s0, e0) = self.out_of_order[i];
            let (s1, e1) = self.out_of_order[i + 1];
            if s1 <= e0 {
                self.out_of_order[i] = (s0, e0.max(e1));
                self.out_of_order.remove(i + 1);
            } else if s1 > end {
                break;
            } else {
                i += 1;
            }
        }
    }

    /// An acknowledgement of everything received left (on any segment).
    pub fn ack_sent(&mut self) {
        self.unacked_segments = 0;
        self.delack_deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(seq: u64, payload_bytes: u32, flags: u8) -> Segment {
        Segment {
            to_endpoint: crate::ids::EndpointId(0),
            incarnation: 0,
            seq,
            ack: 0,
            payload_bytes,
            flags,
            window_bytes: 65535,
            sack: SackBlocks::default(),
        }
    }

    #[test]
    fn in_order_data_is_acknowledged_every_second_segment_or_after_the_timer() {
        let mut r = Receiver::new(65535, Some(LINUX_DELAYED_ACK));
        assert_eq!(r.on_segment(&seg(0, 0, flags::SYN), SimTime(0)), AckNeed::Now);
        assert_eq!(r.rcv_nxt, 1);
        assert_eq!(r.on_segment(&seg(1, 1000, flags::ACK), SimTime(5)), AckNeed::Delayed);
        assert_eq!(r.delack_deadline, Some(SimTime(40_000_005)));
        assert_eq!(r.on_segment(&seg(1001, 1000, flags::ACK), SimTime(6)), AckNeed::Now);
        r.ack_sent();
        assert_eq!((r.rcv_nxt, r.delivered_bytes(), r.delack_deadline), (2001, 2000, None));
    }

    #[test]
    fn holes_are_acknowledged_at_once_and_merged_when_filled() {
        let mut r = Receiver::new(65535, Some(LINUX_DELAYED_ACK));
        r.on_segment(&seg(0, 0, flags::SYN), SimTime(0));
        // 1..1001 lost; 1001.. and 3001.. arrive out of order, then 2001.. fills between.
        assert_eq!(r.on_segment(&seg(1001, 1000, flags::ACK), SimTime(1)), AckNeed::Now);
        assert_eq!(r.on_segment(&seg(3001, 1000, flags::ACK), SimTime(2)), AckNeed::Now);
        assert_eq!(r.on_segment(&seg(2001, 1000, flags::ACK), SimTime(3)), AckNeed::Now);
        assert_eq!(r.out_of_order, [(1001, 4001)]);
        assert_eq!(r.rcv_nxt, 1);
        // The retransmission fills the hole: everything is in order.
        assert_eq!(r.on_segment(&seg(1, 1000, flags::ACK), SimTime(4)), AckNeed::Now);
        assert_eq!((r.rcv_nxt, r.out_of_order.len()), (4001, 0));
        // A duplicate is acknowledged at once.
        assert_eq!(r.on_segment(&seg(1, 1000, flags::ACK), SimTime(5)), AckNeed::Now);
    }

    #[test]
    fn fin_counts_one_and_is_acknowledged_at_once() {
        let mut r = Receiver::new(65535, None);
        r.on_segment(&seg(0, 0, flags::SYN), SimTime(0));
        assert_eq!(r.on_segment(&seg(1, 500, flags::ACK | flags::FIN), SimTime(1)), AckNeed::Now);
        assert!(r.fin_received());
        assert_eq!((r.rcv_nxt, r.delivered_bytes()), (502, 500));
    }

    /// Holes at 1 and 3001; arrivals 1001, 4001, 6001, 2001 (merging into 1001..3001), 8001:
    /// the ACK after 8001 reports its range first, then the others from the highest down,
    /// three at most; without SACK no blocks.
    #[test]
    fn sack_blocks_lead_with_the_latest_arrival() {
        let mut r = Receiver::new(65535, None);
        r.enable_sack();
        r.on_segment(&seg(0, 0, flags::SYN), SimTime(0));
        for seq in [1001, 4001, 6001, 2001] {
            r.on_segment(&seg(seq, 1000, flags::ACK), SimTime(1));
        }
        let ranges = |r: &Receiver| r.sack_blocks().ranges(r.rcv_nxt).collect::<Vec<_>>();
        assert_eq!(ranges(&r), vec![(1001, 3001), (6001, 7001), (4001, 5001)]);
        r.on_segment(&seg(8001, 1000, flags::ACK), SimTime(2));
        assert_eq!(ranges(&r), vec![(8001, 9001), (6001, 7001), (4001, 5001)]);
        let mut plain = Receiver::new(65535, None);
        plain.on_segment(&seg(0, 0, flags::SYN), SimTime(0));
        plain.on_segment(&seg(1001, 1000, flags::ACK), SimTime(1));
        assert!(plain.sack_blocks().is_empty());
    }
}
