//! The flow hash: the number that sorts packets into conversations (flow-based WFQ, a
//! fair-queued CBWFQ class-default) and flow buckets (FQ-CoDel).
//!
//! The key is the source and destination address, the IP protocol, the ToS byte (the DSCP
//! shifted left by two, ECN bits zero) and the source and destination ports — the fields
//! IOS WFQ hashes (Cisco ONT course; Odom & Cavanaugh, "Cisco DQOS Exam Certification
//! Guide"). Cisco does not publish the function IOS applies to it; here the key's bytes, in
//! network order, are hashed with 64-bit FNV-1a (Fowler, Noll, Vo & Eastlake, "The FNV
//! Non-Cryptographic Hash Algorithm", IETF Internet-Draft), the function the documentation
//! of `wfq` and `fq_codel` states. The hash is fixed, so the same flows collide in every
//! run. A discipline takes its queue from the hash (its low bits, or the remainder by its
//! bucket count).
//!
//! FNV-1a is a chain of 14 dependent multiplications, the slowest step of queuing a packet
//! in a fair queue. A flow's packets nearly always share their key, so a discipline keeps a
//! [`FlowHashMemo`]: the last key seen and its hash for each of a few slots, chosen by the
//! packet's flow. A packet whose key is its slot's gets the remembered hash, the very value
//! FNV-1a gives; any other is hashed and remembered.

use crate::engine::rng::fnv1a_64;
use crate::packet::Packet;

/// The flow hash of `packet`: FNV-1a over addresses, protocol, ToS byte and ports.
#[inline]
pub fn flow_hash(packet: &Packet) -> u64 {
    let [s0, s1, s2, s3] = packet.src_addr.to_be_bytes();
    let [d0, d1, d2, d3] = packet.dst_addr.to_be_bytes();
    let [sp0, sp1] = packet.src_port.to_be_bytes();
    let [dp0, dp1] = packet.dst_port.to_be_bytes();
    fnv1a_64(&[s0, s1, s2, s3, d0, d1, d2, d3, packet.protocol, packet.dscp << 2, sp0, sp1, dp0, dp1])
}

/// Slots of a [`FlowHashMemo`]: flows share slots beyond this many, and then only hash
/// more often.
const MEMO_SLOTS: usize = 64;

/// Marks a slot's key as one seen: a zero key is a key like any other.
const SEEN: u128 = 1 << 127;

/// The last key seen and its flow hash, per slot, chosen by the packet's flow.
#[derive(Clone, Debug)]
pub struct FlowHashMemo {
    slots: Box<[(u128, u64); MEMO_SLOTS]>,
}

impl Default for FlowHashMemo {
    fn default() -> Self {
        FlowHashMemo { slots: Box::new([(0, 0); MEMO_SLOTS]) }
    }
}

impl FlowHashMemo {
    /// [`flow_hash`] of `packet`, remembered for its flow's slot.
    #[inline]
    pub fn hash(&mut self, packet: &Packet) -> u64 {
        let key = SEEN
            | u128::from(packet.src_addr) << 64
            | u128::from(packet.dst_addr) << 32
            | u128::from(packet.src_port) << 16
            | u128::from(packet.dst_port)
            | u128::from(packet.protocol) << 96
            | u128::from(packet.dscp) << 104;
        let slot = &mut self.slots[packet.flow.index() % MEMO_SLOTS];
        if slot.0 != key {
            *slot = (key, flow_hash(packet));
        }
        slot.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::testing::packet;

    #[test]
    fn the_key_is_the_five_tuple_and_the_tos_byte() {
        let base = packet(1, 100, 0);
        let same = Packet { id: 2, size_bytes: 1500, ecn: 1, ..base };
        assert_eq!(flow_hash(&base), flow_hash(&same));
        for other in [
            Packet { dst_port: base.dst_port + 1, ..base },
            Packet { src_addr: base.src_addr + 1, ..base },
            Packet { dscp: 46, ..base },
        ] {
            assert_ne!(flow_hash(&base), flow_hash(&other));
        }
    }

    #[test]
    fn the_memo_gives_the_hash_of_every_key() {
        // Flows sharing a slot, keys changing within a flow, and keys differing in one
        // field each: the memo always answers what the hash computes.
        let base = packet(1, 100, 0);
        let mut memo = FlowHashMemo::default();
        let mut keys = Vec::new();
        for flow in [0, 1, MEMO_SLOTS as u32, 2 * MEMO_SLOTS as u32 + 1] {
            for variant in 0..7u8 {
                let mut p = Packet { flow: crate::ids::FlowId(flow), ..base };
                match variant {
                    0 => {}
                    1 => p.dscp = 46,
                    2 => p.src_port ^= 1,
                    3 => p.dst_port ^= 1,
                    4 => p.protocol = 6,
                    5 => p.src_addr ^= 1 << 31,
                    _ => p.dst_addr ^= 1,
                }
                keys.push(p);
            }
        }
        for p in keys.iter().chain(keys.iter().rev()).chain(keys.iter()) {
            assert_eq!(memo.hash(p), flow_hash(p), "{p:?}");
        }
        let zero =
            Packet { src_addr: 0, dst_addr: 0, protocol: 0, dscp: 0, src_port: 0, dst_port: 0, ..base };
        assert_eq!(memo.hash(&zero), flow_hash(&zero));
    }

    #[test]
    fn the_hash_is_fnv_1a_over_the_key() {
        // A zero key: 14 rounds of multiplying the offset basis by the FNV prime.
        let zero = Packet {
            src_addr: 0,
            dst_addr: 0,
            protocol: 0,
            dscp: 0,
            src_port: 0,
            dst_port: 0,
            ..packet(1, 100, 0)
        };
        let expected = (0..14).fold(0xcbf2_9ce4_8422_2325u64, |h, _| h.wrapping_mul(0x0000_0100_0000_01b3));
        assert_eq!(flow_hash(&zero), expected);
    }
}
