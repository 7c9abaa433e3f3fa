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
