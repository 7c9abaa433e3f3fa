//! The header bytes of a simulated packet as they would be on the wire: the IPv4 header and
//! the transport header, with their checksums. A packet capture ([`crate::net::pcap`]) writes
//! them before the packet's payload, which the simulator does not model and which is
//! therefore all zeros.
//!
//! * **IPv4** (RFC 791 §3.1): version 4, header length 5 words (no options), the DSCP and
//!   ECN fields in the former type-of-service byte (RFC 2474 §3, RFC 3168 §5), total length
//!   = the packet's size, identification = the low 16 bits of the packet's id (so one
//!   packet has the same identification at every hop), no fragmentation flags, TTL 64 at
//!   every hop (hops are not counted), the protocol, the header checksum, the addresses.
//! * **UDP** (RFC 768): ports, length = size − 20, checksum over the pseudo-header, the UDP
//!   header and the zero payload (zeros add nothing to a one's-complement sum, so the sum
//!   covers the header and the lengths only); a computed 0 is sent as 0xFFFF.
//! * **TCP** (RFC 9293 §3.1): for a segment of a simulated connection its ports, the low 32
//!   bits of its sequence and acknowledgement numbers (counted from an initial sequence
//!   number of 0, see [`crate::packet::segment`]), its flags, its window (at most 65 535, as
//!   no window scaling is modelled) and its SACK option (RFC 2018 §3, after two NOPs), read
//!   from the run's [`crate::packet::SegmentStore`]. For open-loop traffic that says it is
//!   TCP: sequence number = the low 32 bits of the packet id, acknowledgement 0, flags PSH
//!   and ACK, window 65 535. Checksum as for UDP.
//! * **ICMP** (RFC 792): an echo request, identifier = the flow's row, sequence number =
//!   the low 16 bits of the packet id, checksum over the message.
//! * Other protocols (tunnels' GRE and ESP among them) get the IPv4 header only.
//!
//! The internet checksum is the one's-complement of the one's-complement sum of 16-bit
//! words (RFC 1071 §1).

use crate::packet::{protocol, Packet, Segment, SegmentStore};

/// Bytes of an IPv4 header without options.
pub const IPV4_HEADER_BYTES: usize = 20;
/// Longest IPv4 and transport headers written: IPv4 20 + TCP 20 + SACK option 28.
pub const MAX_HEADER_BYTES: usize = 68;
/// The TTL written at every hop.
pub const TTL: u8 = 64;
/// Window of open-loop TCP packets and largest window written, bytes.
pub const MAX_WINDOW: u16 = u16::MAX;

const TCP_PSH: u8 = 0x08;
const TCP_ACK: u8 = 0x10;
const TCP_OPTION_NOP: u8 = 1;
const TCP_OPTION_SACK: u8 = 5;
const ICMP_ECHO_REQUEST: u8 = 8;

/// The one's-complement sum of `bytes` as big-endian 16-bit words (an odd last byte padded
/// with zero), added to `sum`, folded to 16 bits.
pub fn ones_complement_sum(bytes: &[u8], sum: u32) -> u16 {
    let mut total = sum as u64;
    for pair in bytes.chunks(2) {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        total += word as u64;
    }
    while total > 0xFFFF {
        total = (total & 0xFFFF) + (total >> 16);
    }
    total as u16
}

/// The internet checksum of `bytes` with `sum` added (RFC 1071).
pub fn internet_checksum(bytes: &[u8], sum: u32) -> u16 {
    !ones_complement_sum(bytes, sum)
}

/// Writes the IPv4 header and the transport header of `packet` (its segment, if any, in
/// `segments`) into `out`; returns how many bytes they take. The packet's size counts them:
/// a packet smaller than its headers shows only their beginning on the wire.
pub fn write_headers(packet: &Packet, segments: &SegmentStore, out: &mut [u8; MAX_HEADER_BYTES]) -> usize {
    let total_bytes = packet.size_bytes.min(u16::MAX as u32) as u16;
    let transport_bytes = total_bytes.saturating_sub(IPV4_HEADER_BYTES as u16);
    write_ipv4(packet, total_bytes, &mut out[..IPV4_HEADER_BYTES]);
    let rest = &mut out[IPV4_HEADER_BYTES..];
    let header_bytes = match packet.protocol {
        protocol::UDP => write_udp(packet, transport_bytes, rest),
        protocol::TCP => {
            write_tcp(packet, packet.segment.map(|handle| segments.get(handle)), transport_bytes, rest)
        }
        protocol::ICMP => write_icmp(packet, rest),
        _ => 0,
    };
    IPV4_HEADER_BYTES + header_bytes
}

fn write_ipv4(packet: &Packet, total_bytes: u16, out: &mut [u8]) {
    out[0] = 0x45;
    out[1] = (packet.dscp << 2) | (packet.ecn & 0b11);
    out[2..4].copy_from_slice(&total_bytes.to_be_bytes());
    out[4..6].copy_from_slice(&(packet.id as u16).to_be_bytes());
    out[6..8].fill(0);
    out[8] = TTL;
    out[9] = packet.protocol;
    out[10..12].fill(0);
    out[12..16].copy_from_slice(&packet.src_addr.to_be_bytes());
    out[16..20].copy_from_slice(&packet.dst_addr.to_be_bytes());
    let checksum = internet_checksum(&out[..IPV4_HEADER_BYTES], 0);
    out[10..12].copy_from_slice(&checksum.to_be_bytes());
}

/// The pseudo-header's sum (RFC 768, RFC 9293 §3.1): addresses, protocol and length.
fn pseudo_header_sum(packet: &Packet, length: u16) -> u32 {
    let addr = |a: u32| (a >> 16) + (a & 0xFFFF);
    addr(packet.src_addr) + addr(packet.dst_addr) + packet.protocol as u32 + length as u32
}

fn write_udp(packet: &Packet, udp_bytes: u16, out: &mut [u8]) -> usize {
    out[0..2].copy_from_slice(&packet.src_port.to_be_bytes());
    out[2..4].copy_from_slice(&packet.dst_port.to_be_bytes());
    out[4..6].copy_from_slice(&udp_bytes.to_be_bytes());
    out[6..8].fill(0);
    let checksum = match internet_checksum(&out[..8], pseudo_header_sum(packet, udp_bytes)) {
        0 => 0xFFFF,
        c => c,
    };
    out[6..8].copy_from_slice(&checksum.to_be_bytes());
    8
}

fn write_tcp(packet: &Packet, segment: Option<&Segment>, tcp_bytes: u16, out: &mut [u8]) -> usize {
    let (seq, ack, flags, window, options) = match segment {
        Some(s) => (
            s.seq as u32,
            s.ack as u32,
            s.flags,
            s.window_bytes.min(MAX_WINDOW as u32) as u16,
            s.sack.option_bytes() as usize,
        ),
        None => (packet.id as u32, 0, TCP_PSH | TCP_ACK, MAX_WINDOW, 0),
    };
    let header_bytes = 20 + options;
    out[0..2].copy_from_slice(&packet.src_port.to_be_bytes());
    out[2..4].copy_from_slice(&packet.dst_port.to_be_bytes());
    out[4..8].copy_from_slice(&seq.to_be_bytes());
    out[8..12].copy_from_slice(&ack.to_be_bytes());
    out[12] = ((header_bytes / 4) as u8) << 4;
    out[13] = flags;
    out[14..16].copy_from_slice(&window.to_be_bytes());
    out[16..20].fill(0);
    if let Some(segment) = segment.filter(|_| options > 0) {
        let option = &mut out[20..header_bytes];
        option[0] = TCP_OPTION_NOP;
        option[1] = TCP_OPTION_NOP;
        option[2] = TCP_OPTION_SACK;
        option[3] = (options - 2) as u8;
        for (k, (start, end)) in segment.sack.ranges(segment.ack).enumerate() {
            option[4 + 8 * k..8 + 8 * k].copy_from_slice(&(start as u32).to_be_bytes());
            option[8 + 8 * k..12 + 8 * k].copy_from_slice(&(end as u32).to_be_bytes());
        }
    }
    let checksum = internet_checksum(&out[..header_bytes], pseudo_header_sum(packet, tcp_bytes));
    out[16..18].copy_from_slice(&checksum.to_be_bytes());
    header_bytes
}

fn write_icmp(packet: &Packet, out: &mut [u8]) -> usize {
    out[0] = ICMP_ECHO_REQUEST;
    out[1] = 0;
    out[2..4].fill(0);
    out[4..6].copy_from_slice(&(packet.flow.0 as u16).to_be_bytes());
    out[6..8].copy_from_slice(&(packet.id as u16).to_be_bytes());
    let checksum = internet_checksum(&out[..8], 0);
    out[2..4].copy_from_slice(&checksum.to_be_bytes());
    8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::sack::SackBlocks;
    use crate::packet::testing::packet;
    use crate::packet::Segment;

    /// RFC 1071 §3's worked example: the words 0001 f203 f4f5 f6f7 sum to ddf2 (one's
    /// complement), so the checksum is 220d.
    #[test]
    fn rfc_1071_example() {
        let bytes = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(ones_complement_sum(&bytes, 0), 0xddf2);
        assert_eq!(internet_checksum(&bytes, 0), 0x220d);
    }

    fn voice() -> Packet {
        Packet {
            id: 0x1_0007,
            size_bytes: 150,
            src_addr: u32::from_be_bytes([10, 0, 0, 1]),
            dst_addr: u32::from_be_bytes([10, 0, 0, 2]),
            src_port: 44899,
            dst_port: 5060,
            protocol: protocol::UDP,
            dscp: 11,
            ecn: 0,
            ..packet(0, 150, 0)
        }
    }

    /// The IPv4 header of a 150-byte UDP packet with DSCP 11 from 10.0.0.1 to 10.0.0.2,
    /// with its checksum worked out by hand.
    #[test]
    fn ipv4_header_bytes_and_checksum() {
        let mut out = [0u8; MAX_HEADER_BYTES];
        let n = write_headers(&voice(), &SegmentStore::new(), &mut out);
        assert_eq!(n, 28);
        // By hand: 0x452c (ToS 11 << 2 = 0x2c) + 0x0096 + 0x0007 + 0x0000 + 0x4011 + 0x0a00 +
        // 0x0001 + 0x0a00 + 0x0002 = 0x99dd; the checksum is its complement, 0x6622.
        let expected =
            [0x45, 0x2c, 0x00, 0x96, 0x00, 0x07, 0x00, 0x00, 64, 17, 0x66, 0x22, 10, 0, 0, 1, 10, 0, 0, 2];
        assert_eq!(out[..20], expected);
        // A correct header sums to 0xffff with its checksum in place.
        assert_eq!(ones_complement_sum(&out[..20], 0), 0xffff);
    }

    /// The UDP header: 44899 = 0xaf63, 5060 = 0x13c4, length 130 = 0x0082. Checksum by hand:
    /// pseudo-header 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 0x0011 + 0x0082 = 0x1496, header
    /// 0xaf63 + 0x13c4 + 0x0082 = 0xc3a9; total 0xd83f, complement 0x27c0.
    #[test]
    fn udp_header_and_checksum() {
        let mut out = [0u8; MAX_HEADER_BYTES];
        write_headers(&voice(), &SegmentStore::new(), &mut out);
        assert_eq!(out[20..28], [0xaf, 0x63, 0x13, 0xc4, 0x00, 0x82, 0x27, 0xc0]);
    }

    #[test]
    fn tcp_segment_with_sack_and_checksum() {
        let mut sack_packet = voice();
        sack_packet.protocol = protocol::TCP;
        let mut segments = SegmentStore::new();
        sack_packet.segment = Some(segments.put(Segment {
            to_endpoint: crate::ids::EndpointId(0),
            incarnation: 0,
            seq: (1 << 32) + 1001,
            ack: 501,
            payload_bytes: 0,
            flags: crate::packet::segment::flags::ACK,
            window_bytes: 1 << 20,
            sack: SackBlocks::new(501, [(1501, 2001)]),
        }));
        sack_packet.size_bytes = 52;
        let mut out = [0u8; MAX_HEADER_BYTES];
        assert_eq!(write_headers(&sack_packet, &segments, &mut out), 52);
        let tcp = &out[20..52];
        assert_eq!(tcp[4..8], 1001u32.to_be_bytes(), "sequence number wraps at 2^32");
        assert_eq!(tcp[8..12], 501u32.to_be_bytes());
        assert_eq!(tcp[12], 8 << 4, "32-byte header");
        assert_eq!(tcp[13], 0x10);
        assert_eq!(tcp[14..16], [0xff, 0xff], "window capped at 65535");
        assert_eq!(tcp[20..24], [1, 1, 5, 10]);
        assert_eq!(tcp[24..32], [0, 0, 0x05, 0xdd, 0, 0, 0x07, 0xd1]);
        // The segment with its checksum sums, with the pseudo-header, to 0xffff.
        let pseudo = pseudo_header_sum(&sack_packet, 32);
        assert_eq!(ones_complement_sum(tcp, pseudo), 0xffff);
    }

    #[test]
    fn open_loop_tcp_and_icmp_headers_check_out() {
        let mut tcp = voice();
        tcp.protocol = protocol::TCP;
        let mut out = [0u8; MAX_HEADER_BYTES];
        assert_eq!(write_headers(&tcp, &SegmentStore::new(), &mut out), 40);
        assert_eq!(out[24..28], 0x1_0007u32.to_be_bytes());
        assert_eq!(out[33], TCP_PSH | TCP_ACK);
        assert_eq!(ones_complement_sum(&out[20..40], pseudo_header_sum(&tcp, 130)), 0xffff);
        let mut icmp = voice();
        icmp.protocol = protocol::ICMP;
        assert_eq!(write_headers(&icmp, &SegmentStore::new(), &mut out), 28);
        assert_eq!(out[20], ICMP_ECHO_REQUEST);
        assert_eq!(ones_complement_sum(&out[20..28], 0), 0xffff);
        let mut gre = voice();
        gre.protocol = 47;
        assert_eq!(write_headers(&gre, &SegmentStore::new(), &mut out), 20);
    }
}
