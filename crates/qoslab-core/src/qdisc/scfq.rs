//! The sequence-number scheduler shared by flow-based WFQ and CBWFQ: self-clocked fair
//! queuing (Golestani, INFOCOM 1994), which is how Cisco Press describes IOS WFQ.
//!
//! Each arriving packet gets a sequence number (finish tag)
//! `SN = base + weight × length`, where `base` is the SN of the last packet queued in the
//! same queue, or — when that queue is empty — the current round number. The round number
//! is the SN of the packet most recently sent. The scheduler always sends the queued packet
//! with the smallest SN; so a queue's share of the link is inversely proportional to its
//! weight among the queues that are backlogged, and idle queues' shares go to the others in
//! the same proportion (work-conserving). Equal SNs go in arrival order.
//! (Vegesna, "IP Quality of Service", Cisco Press 2001, and Odom & Cavanaugh, "Cisco DQOS
//! Exam Certification Guide", describe this SN rule and its worked numbers;
//! `docs/reference/ios-defaults.md`.)
//!
//! A caller may pass over queues whose head may not leave yet (a shaped CBWFQ class waiting
//! for credit): [`Scfq::pop_first`] sends the smallest SN among the heads it accepts, and the
//! others keep their SNs and places. A class held back that way falls behind the round; when
//! it may send again its packets carry the smallest SNs and go first, within what its shaper
//! allows. The round number never moves backwards: it becomes the largest SN sent so far
//! (without passed-over heads, SNs leave in increasing order and this is the SN just sent).
//!
//! SNs are `u64`: with IOS weights (32384 per byte at precedence 0) one 1500-byte packet adds
//! about 4.9·10⁷, leaving room for more than 10¹¹ such packets. Heads of non-empty queues sit
//! in a binary heap keyed on (SN, arrival sequence): O(log queues) per packet. A queue's tail
//! can be dropped (WFQ's congestive discard); its stale heap entry is skipped when met.

use crate::packet::Packet;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, VecDeque};

/// A queued packet with its sequence number and arrival sequence.
#[derive(Clone, Debug)]
struct Entry {
    packet: Packet,
    sn: u64,
    seq: u64,
}

/// One queue of the scheduler.
#[derive(Clone, Debug, Default)]
struct Queue {
    entries: VecDeque<Entry>,
}

/// A queue's head in the heap: its packet's SN and arrival sequence as one key, `SN << 64 |
/// seq`, ordered by the key alone (arrival sequences are unique), smallest first — one
/// 128-bit comparison where a tuple would compare field by field.
#[derive(Copy, Clone, Debug)]
struct Head {
    key: u128,
    queue: u32,
}

impl Head {
    fn new(sn: u64, seq: u64, queue: usize) -> Self {
        Head { key: (u128::from(sn) << 64) | u128::from(seq), queue: queue as u32 }
    }

    fn seq(self) -> u64 {
        self.key as u64
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Head {}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Reversed: the standard heap is a max-heap.
        other.key.cmp(&self.key)
    }
}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A self-clocked fair queuing scheduler over a fixed set of queues.
#[derive(Clone, Debug)]
pub struct Scfq {
    queues: Vec<Queue>,
    heads: BinaryHeap<Head>,
    /// Heads passed over by [`Scfq::pop_first`], put back before it returns.
    passed_over: Vec<Head>,
    round_number: u64,
    next_seq: u64,
    len_packets: usize,
}

impl Scfq {
    /// A scheduler with `queues` empty queues.
    pub fn new(queues: usize) -> Self {
        Scfq {
            queues: vec![Queue::default(); queues],
            heads: BinaryHeap::with_capacity(queues),
            passed_over: Vec::with_capacity(queues),
            round_number: 0,
            next_seq: 0,
            len_packets: 0,
        }
    }

    /// Packets held in all queues.
    #[inline]
    pub fn len_packets(&self) -> usize {
        self.len_packets
    }

    /// Removes every packet, queue by queue, and forgets the schedule.
    pub fn take_all(&mut self) -> Vec<Packet> {
        self.heads.clear();
        self.len_packets = 0;
        self.queues.iter_mut().flat_map(|q| q.entries.drain(..).map(|e| e.packet)).collect()
    }

    /// Packets held in queue `queue`.
    #[inline]
    pub fn queue_len(&self, queue: usize) -> usize {
        self.queues[queue].entries.len()
    }

    /// The current round number (the SN of the packet last sent).
    #[cfg(test)]
    pub fn round_number(&self) -> u64 {
        self.round_number
    }

    /// The SN a packet of `size_bytes` with `weight` would get in `queue` now.
    #[inline]
    pub fn next_sn(&self, queue: usize, weight: u64, size_bytes: u32) -> u64 {
        let base = self.queues[queue].entries.back().map_or(self.round_number, |e| e.sn);
        base + weight * size_bytes as u64
    }

    /// Queues `packet` in `queue` with `weight`; returns its SN.
    #[inline]
    pub fn push(&mut self, queue: usize, packet: Packet, weight: u64) -> u64 {
        let sn = self.next_sn(queue, weight, packet.size_bytes);
        let seq = self.next_seq;
        self.next_seq += 1;
        let q = &mut self.queues[queue];
        if q.entries.is_empty() {
            self.heads.push(Head::new(sn, seq, queue));
        }
        q.entries.push_back(Entry { packet, sn, seq });
        self.len_packets += 1;
        sn
    }

    /// Removes the packet with the smallest SN.
    #[inline]
    pub fn pop(&mut self) -> Option<(usize, Packet)> {
        self.pop_first(|_, _| true)
    }

    /// Removes the packet with the smallest SN among the heads that `eligible` (asked with
    /// the queue and its head packet, in SN order) accepts; the heads it refuses stay. The
    /// chosen queue's next packet takes its head's place at the top of the heap: one sift
    /// rather than a pop and a push.
    #[inline]
    pub fn pop_first(&mut self, mut eligible: impl FnMut(usize, &Packet) -> bool) -> Option<(usize, Packet)> {
        loop {
            let Some(mut top) = self.heads.peek_mut() else { break };
            let head_of_heap = *top;
            let (seq, queue) = (head_of_heap.seq(), head_of_heap.queue);
            let q = &mut self.queues[queue as usize];
            match q.entries.front() {
                Some(head) if head.seq == seq => {
                    if eligible(queue as usize, &head.packet) {
                        let entry = q.entries.pop_front().expect("checked");
                        match q.entries.front() {
                            Some(next) => {
                                *top = Head::new(next.sn, next.seq, queue as usize);
                                drop(top);
                            }
                            None => {
                                PeekMut::pop(top);
                            }
                        }
                        self.round_number = self.round_number.max(entry.sn);
                        self.len_packets -= 1;
                        self.put_back_passed_over();
                        return Some((queue as usize, entry.packet));
                    }
                    PeekMut::pop(top);
                    self.passed_over.push(head_of_heap);
                }
                // A head entry is stale when its packet was dropped from the queue's tail.
                _ => {
                    PeekMut::pop(top);
                }
            }
        }
        self.put_back_passed_over();
        None
    }

    /// Puts the heads [`Scfq::pop_first`] passed over back in the heap.
    #[inline]
    fn put_back_passed_over(&mut self) {
        if !self.passed_over.is_empty() {
            self.heads.extend(self.passed_over.drain(..));
        }
    }

    /// The queue whose last packet has the highest SN in the system, with that SN.
    pub fn highest_sn(&self) -> Option<(usize, u64)> {
        self.queues
            .iter()
            .enumerate()
            .filter_map(|(i, q)| q.entries.back().map(|e| (i, e.sn)))
            .max_by_key(|&(i, sn)| (sn, std::cmp::Reverse(i)))
    }

    /// Removes and returns the last packet of `queue`.
    pub fn drop_tail(&mut self, queue: usize) -> Option<Packet> {
        let entry = self.queues[queue].entries.pop_back()?;
        self.len_packets -= 1;
        // If it was also the head, its heap entry is now stale and `pop` skips it.
        Some(entry.packet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::packet;

    #[test]
    fn hand_computed_sequence_numbers() {
        // Two queues, weights 10 (queue 0) and 20 (queue 1).
        let mut s = Scfq::new(2);
        assert_eq!(s.push(0, packet(1, 100, 0), 10), 1_000); // RN 0 + 10·100
        assert_eq!(s.push(0, packet(2, 50, 0), 10), 1_500); // previous SN 1000 + 10·50
        assert_eq!(s.push(1, packet(3, 40, 0), 20), 800); // RN 0 + 20·40
        assert_eq!(s.pop().map(|(q, p)| (q, p.id)), Some((1, 3))); // SN 800; RN := 800
        assert_eq!(s.round_number(), 800);
        assert_eq!(s.push(1, packet(4, 10, 0), 20), 1_000); // queue 1 empty: RN 800 + 200
                                                            // SN 1000 twice: the earlier arrival (packet 1) first.
        assert_eq!(s.pop().map(|(_, p)| p.id), Some(1));
        assert_eq!(s.pop().map(|(_, p)| p.id), Some(4));
        assert_eq!(s.pop().map(|(_, p)| p.id), Some(2));
        assert_eq!(s.round_number(), 1_500);
        assert!(s.pop().is_none());
        assert_eq!(s.len_packets(), 0);
    }

    #[test]
    fn dropped_tails_leave_no_trace() {
        let mut s = Scfq::new(2);
        s.push(0, packet(1, 100, 0), 1);
        s.push(1, packet(2, 100, 0), 2);
        s.push(1, packet(3, 100, 0), 2);
        assert_eq!(s.highest_sn(), Some((1, 400)));
        assert_eq!(s.drop_tail(1).map(|p| p.id), Some(3));
        assert_eq!(s.drop_tail(1).map(|p| p.id), Some(2));
        assert_eq!(s.highest_sn(), Some((0, 100)));
        assert_eq!(s.pop().map(|(_, p)| p.id), Some(1));
        assert!(s.pop().is_none());
    }

    #[test]
    fn passed_over_heads_keep_their_places() {
        // Queue 0 (SN 100, then 200) is passed over; queue 1's SNs 300 and 600 are sent and
        // the round number reaches 600. When queue 0 is accepted again its SNs are the
        // smallest: it goes first, and the round number does not move back to 100.
        let mut s = Scfq::new(2);
        s.push(0, packet(1, 100, 0), 1);
        s.push(0, packet(2, 100, 0), 1);
        s.push(1, packet(3, 100, 0), 3);
        s.push(1, packet(4, 100, 0), 3);
        let mut asked = Vec::new();
        let mut only_queue_1 = |q: usize, p: &Packet| {
            asked.push(p.id);
            q == 1
        };
        assert_eq!(s.pop_first(&mut only_queue_1).map(|(_, p)| p.id), Some(3));
        assert_eq!(s.pop_first(&mut only_queue_1).map(|(_, p)| p.id), Some(4));
        assert_eq!(s.pop_first(&mut only_queue_1), None);
        // Asked in SN order: the head of queue 0 first each time.
        assert_eq!(asked, [1, 3, 1, 4, 1]);
        assert_eq!((s.round_number(), s.len_packets()), (600, 2));
        assert_eq!(s.pop().map(|(_, p)| p.id), Some(1));
        assert_eq!(s.round_number(), 600);
        assert_eq!(s.push(1, packet(5, 10, 0), 3), 630);
        assert_eq!(s.pop().map(|(_, p)| p.id), Some(2));
        assert_eq!(s.pop().map(|(_, p)| p.id), Some(5));
    }

    #[test]
    fn backlogged_shares_are_inverse_to_weights() {
        // Two always-full queues with weights 1 and 3 and equal packets: of 4000 sends,
        // 3000 go to the weight-1 queue.
        let mut s = Scfq::new(2);
        let mut sent = [0u32; 2];
        for i in 0..8 {
            s.push(0, packet(i, 100, 0), 1);
            s.push(1, packet(100 + i, 100, 0), 3);
        }
        for i in 0..4000 {
            let (q, _) = s.pop().unwrap();
            sent[q] += 1;
            s.push(q, packet(1000 + i, 100, 0), if q == 0 { 1 } else { 3 });
        }
        assert_eq!(sent, [3000, 1000]);
    }
}
