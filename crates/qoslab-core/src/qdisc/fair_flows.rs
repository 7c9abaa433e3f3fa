//! The flow queues inside one class queue, served equally: IOS XE's and HQF's `fair-queue` in
//! a class, whose flow queues "are scheduled equally (rather than by weight)" (Cisco tech note
//! 110850), unlike pre-HQF flow-based WFQ, which weighs them by IP precedence.
//!
//! Equal service in bytes is deficit round robin (Shreedhar and Varghese, SIGCOMM 1995):
//! the backlogged flows take turns; a flow's turn adds a quantum of [`QUANTUM_BYTES`] to its
//! deficit, it sends while its head fits in the deficit, and a flow that empties leaves the
//! round with its deficit cleared. A class with one flow queue is a FIFO. The round is
//! advanced lazily when the class's head is asked for, so that the head the class scheduler
//! chooses is the packet it then sends.

use crate::packet::Packet;
use std::collections::VecDeque;

/// The quantum of a flow's turn, bytes: one full-size Ethernet payload, at least one packet
/// of most traffic per turn.
pub const QUANTUM_BYTES: u32 = 1500;

/// A class's flow queues.
#[derive(Clone, Debug)]
pub struct FairFlows {
    flows: Vec<VecDeque<Packet>>,
    deficit_bytes: Vec<u32>,
    /// Backlogged flows in turn order; the front one has the turn.
    round: VecDeque<usize>,
    /// Whether the front flow has had this turn's quantum.
    credited: bool,
    len_packets: usize,
    /// Bytes held by each flow.
    flow_bytes: Vec<u64>,
}

impl FairFlows {
    /// `count` empty flow queues (1 for a plain FIFO).
    pub fn new(count: usize) -> Self {
        let count = count.max(1);
        FairFlows {
            flows: vec![VecDeque::new(); count],
            deficit_bytes: vec![0; count],
            round: VecDeque::with_capacity(count),
            credited: false,
            len_packets: 0,
            flow_bytes: vec![0; count],
        }
    }

    /// Packets held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len_packets
    }

    /// Whether no packet is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len_packets == 0
    }

    /// Packets held by `flow`.
    #[inline]
    pub fn flow_len(&self, flow: usize) -> usize {
        self.flows[flow].len()
    }

    /// Bytes held.
    #[cfg(test)]
    pub fn len_bytes(&self) -> u64 {
        self.flow_bytes.iter().sum()
    }

    /// Bytes held by `flow`.
    #[inline]
    pub fn flow_bytes(&self, flow: usize) -> u64 {
        self.flow_bytes[flow]
    }

    /// Appends `packet` to `flow`.
    #[inline]
    pub fn push(&mut self, flow: usize, packet: Packet) {
        if self.flows[flow].is_empty() {
            self.round.push_back(flow);
        }
        self.flow_bytes[flow] += u64::from(packet.size_bytes);
        self.flows[flow].push_back(packet);
        self.len_packets += 1;
    }

    /// The packet the class sends next.
    #[inline]
    pub fn head(&mut self) -> Option<&Packet> {
        if self.flows.len() == 1 {
            return self.flows[0].front();
        }
        loop {
            let flow = *self.round.front()?;
            let size = self.flows[flow].front().expect("a flow in the round has a packet").size_bytes;
            if !self.credited {
                self.deficit_bytes[flow] = self.deficit_bytes[flow].saturating_add(QUANTUM_BYTES);
                self.credited = true;
            }
            if self.deficit_bytes[flow] >= size {
                return self.flows[flow].front();
            }
            self.round.rotate_left(1);
            self.credited = false;
        }
    }

    /// Removes and returns [`head`](Self::head).
    #[inline]
    pub fn pop(&mut self) -> Option<Packet> {
        self.head()?;
        let flow = match self.flows.len() {
            1 => 0,
            _ => *self.round.front().expect("a head was found"),
        };
        let packet = self.flows[flow].pop_front().expect("a head was found");
        self.len_packets -= 1;
        self.flow_bytes[flow] -= u64::from(packet.size_bytes);
        if self.flows.len() == 1 {
            return Some(packet);
        }
        self.deficit_bytes[flow] -= packet.size_bytes;
        if self.flows[flow].is_empty() {
            self.deficit_bytes[flow] = 0;
            self.round.pop_front();
            self.credited = false;
        }
        Some(packet)
    }

    /// Removes every packet, flow by flow.
    pub fn take_all(&mut self) -> Vec<Packet> {
        self.round.clear();
        self.credited = false;
        self.deficit_bytes.iter_mut().for_each(|d| *d = 0);
        self.flow_bytes.iter_mut().for_each(|b| *b = 0);
        self.len_packets = 0;
        self.flows.iter_mut().flat_map(|f| f.drain(..)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::packet;

    #[test]
    fn a_hand_traced_round() {
        // Flow 0: three 1000-byte packets; flow 1: two 400-byte packets and one 1400-byte.
        // Turn 1, flow 0: deficit 1500 → sends 1000 (500 left, the next does not fit).
        // Turn 1, flow 1: 1500 → 400, 400 (700 left; 1400 does not fit).
        // Turn 2, flow 0: 2000 → 1000, 1000 → flow 0 empties and leaves.
        // Turn 2, flow 1: 2200 → 1400.
        let mut f = FairFlows::new(2);
        for id in 0..3 {
            f.push(0, packet(id, 1000, 0));
        }
        f.push(1, packet(10, 400, 0));
        f.push(1, packet(11, 400, 0));
        f.push(1, packet(12, 1400, 0));
        assert_eq!((f.len_bytes(), f.flow_bytes(0), f.flow_bytes(1)), (5200, 3000, 2200));
        let order: Vec<u64> = std::iter::from_fn(|| f.pop().map(|p| p.id)).collect();
        assert_eq!(order, [0, 10, 11, 1, 2, 12]);
        assert!(f.is_empty());
        assert_eq!((f.len_bytes(), f.flow_bytes(0), f.flow_bytes(1)), (0, 0, 0));
    }

    #[test]
    fn saturated_flows_share_bytes_equally() {
        // Flows of 64-, 576- and 1500-byte packets, always backlogged: equal bytes each
        // within one quantum per flow.
        let mut f = FairFlows::new(4);
        let sizes = [64u32, 576, 1500];
        let mut id = 0;
        for (flow, &size) in sizes.iter().enumerate() {
            for _ in 0..3 {
                id += 1;
                f.push(flow, packet(id, size, 0));
            }
        }
        let mut sent = [0u64; 3];
        for _ in 0..30_000 {
            let p = f.pop().unwrap();
            let flow = sizes.iter().position(|&s| s == p.size_bytes).unwrap();
            sent[flow] += u64::from(p.size_bytes);
            id += 1;
            f.push(flow, packet(id, p.size_bytes, 0));
        }
        let (least, most) = (sent.iter().min().unwrap(), sent.iter().max().unwrap());
        assert!(most - least <= 2 * u64::from(QUANTUM_BYTES), "{sent:?}");
    }

    #[test]
    fn one_flow_is_a_fifo() {
        let mut f = FairFlows::new(1);
        f.push(0, packet(1, 9000, 0));
        f.push(0, packet(2, 100, 0));
        assert_eq!((f.pop().unwrap().id, f.pop().unwrap().id), (1, 2));
        assert!(f.pop().is_none());
    }
}
