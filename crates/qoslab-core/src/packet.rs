//! The packet as the simulator moves it: header fields that classification reads, the IP
//! (layer-3) size, and the bookkeeping measurement needs.
//!
//! A `Packet` is a small `Copy` value (no heap data), moved between queues by value; the
//! hot path never allocates per packet. It fills one 64-byte cache line: the TCP header of
//! a segment, as large as the rest, waits in the run's [`SegmentStore`] and the packet
//! carries its 4-byte handle; a tunnel's outer header is remembered in 3 bytes (its
//! overhead, 0 outside a tunnel, and the inner DSCP). Every field sits at its natural
//! alignment, so that a copy moves whole words. Sizes are layer-3 (IP header included);
//! layer-2 framing is added by the link at serialization time.

use crate::config::scalar::{parse_scalar, Numbers};
use crate::ids::{FlowId, NodeId};
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;
use std::collections::VecDeque;
use std::num::NonZeroU16;

pub mod sack;
pub mod segment;
pub mod segment_store;

pub use segment::Segment;
pub use segment_store::{SegmentRef, SegmentStore};

/// IANA protocol numbers used by the classifier.
pub mod protocol {
    /// ICMP.
    pub const ICMP: u8 = 1;
    /// TCP.
    pub const TCP: u8 = 6;
    /// UDP.
    pub const UDP: u8 = 17;
}

/// Marker of a packet that is not in an observed hop ([`Packet::hop_slot`]).
pub const NO_HOP: u32 = u32::MAX;

/// The ECN codepoint "ECN-capable transport, ECT(0)" (RFC 3168).
pub const ECT_0: u8 = 2;
/// The ECN codepoint "congestion experienced" (RFC 3168).
pub const CE: u8 = 3;

/// A protocol that is neither a known name nor a number 0–255.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol `{text}`: use udp, tcp, icmp or a number 0-255")]
pub struct UnknownProtocol {
    /// The text as written.
    pub text: String,
}

/// An IP protocol number, written `udp`, `tcp`, `icmp` or as a number 0–255.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Protocol(pub u8);

impl Protocol {
    /// Parses a protocol name or number.
    pub fn parse(text: &str) -> Result<Protocol, UnknownProtocol> {
        match text.trim().to_ascii_lowercase().as_str() {
            "udp" => Ok(Protocol(protocol::UDP)),
            "tcp" => Ok(Protocol(protocol::TCP)),
            "icmp" => Ok(Protocol(protocol::ICMP)),
            other => other.parse().map(Protocol).map_err(|_| UnknownProtocol { text: text.to_owned() }),
        }
    }

    /// The name used in results (`udp`), or the number.
    pub fn name(self) -> String {
        match self.0 {
            protocol::UDP => "udp".into(),
            protocol::TCP => "tcp".into(),
            protocol::ICMP => "icmp".into(),
            n => n.to_string(),
        }
    }
}

impl<'de> Deserialize<'de> for Protocol {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_scalar(d, Numbers::AsText, Protocol::parse)
    }
}

impl JsonSchema for Protocol {
    fn schema_name() -> Cow<'static, str> {
        "Protocol".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "udp, tcp, icmp or an IP protocol number",
            "oneOf": [{"type": "integer", "minimum": 0, "maximum": 255}, {"type": "string"}]
        })
    }
}

/// One IP packet in the simulated network.
/// How a frame carries its packet: whole, or as a multilink fragment ([`crate::net::lfi`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Fragment {
    /// The whole packet.
    #[default]
    Whole,
    /// A fragment other than the last: it delivers nothing by itself.
    Leading,
    /// The last fragment: the packet is delivered when it arrives.
    Last,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Unique within a run, in creation order.
    pub id: u64,
    /// When the source created it.
    pub created: SimTime,
    /// The flow row it belongs to.
    pub flow: FlowId,
    /// The destination node (routing key).
    pub dst_node: NodeId,
    /// IP packet size in bytes (layer 3, headers included).
    pub size_bytes: u32,
    /// IPv4 source address.
    pub src_addr: u32,
    /// IPv4 destination address.
    pub dst_addr: u32,
    /// Transport source port.
    pub src_port: u16,
    /// Transport destination port.
    pub dst_port: u16,
    /// IP protocol number.
    pub protocol: u8,
    /// Differentiated Services code point (6 bits).
    pub dscp: u8,
    /// ECN field (RFC 3168): 0 not ECN-capable, 1 or 2 ECN-capable (ECT), 3 congestion
    /// experienced (CE).
    pub ecn: u8,
    /// Whether it was created after the warm-up, so it counts in flow statistics.
    pub counted: bool,
    /// The observed hop it is crossing ([`NO_HOP`] if none).
    pub hop_slot: u32,
    /// When it entered the egress port it is crossing, where that port needs it: at an
    /// observed hop, and where a discipline is to be replaced during the run (elsewhere it
    /// is not written, and keeps an earlier value).
    pub hop_in: SimTime,
    /// The handle of the TCP header, in the run's [`SegmentStore`], of a segment of a
    /// simulated connection (`None` for open-loop traffic, even when its protocol number
    /// says TCP).
    pub segment: Option<SegmentRef>,
    /// Whole, or which multilink fragment this frame is (set by the link, never by sources).
    pub fragment: Fragment,
    /// Inside a tunnel: the bytes its outer header and trailer add (a tunnel always adds
    /// some); 0 outside one ([`crate::net::tunnel`]).
    pub outer_overhead_bytes: u16,
    /// Inside a tunnel: the inner packet's DSCP, which the outer header may hide; 0 outside
    /// one.
    pub inner_dscp: u8,
}

impl Packet {
    /// The size its source gave it: without the outer header and trailer of a tunnel it is
    /// crossing.
    #[inline]
    pub fn inner_size_bytes(&self) -> u32 {
        self.size_bytes - u32::from(self.outer_overhead_bytes)
    }

    /// What the outer header of the tunnel it is crossing added and hides, if it is in one.
    #[inline]
    pub fn encapsulated(&self) -> Option<Encapsulated> {
        NonZeroU16::new(self.outer_overhead_bytes)
            .map(|overhead_bytes| Encapsulated { overhead_bytes, inner_dscp: self.inner_dscp })
    }

    /// IP precedence: the top three bits of the DSCP (RFC 2474 class selectors).
    #[inline]
    pub fn precedence(&self) -> u8 {
        self.dscp >> 3
    }

    /// Whether the sender is ECN-capable: the ECN field holds ECT(0), ECT(1) or CE
    /// (RFC 3168 §5), so congestion may be signalled by marking instead of dropping.
    #[inline]
    pub fn ecn_capable(&self) -> bool {
        self.ecn != 0
    }
}

/// Takes the oldest packet out of `queue`, which holds one: copied from the front, then
/// popped. Taken out as an `Option<Packet>` and tested, the copy would end with a one-byte
/// write of the option's tag (kept in the niche of `counted`), and the next copy of the
/// packet, reading across that byte, would wait for the write to reach the cache instead of
/// taking it from the store buffer.
#[inline(always)]
pub fn take_oldest(queue: &mut VecDeque<Packet>) -> Packet {
    let packet = *queue.front().expect("the caller checked that the queue holds a packet");
    queue.pop_front();
    packet
}

#[cfg(test)]
mod tests {
    /// Packets are moved by value between queues: keep one at one cache line.
    #[test]
    fn a_packet_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::Packet>(), 64);
    }
}

/// What an encapsulated packet keeps of itself while it travels with an outer header
/// ([`Packet::encapsulated`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Encapsulated {
    /// Bytes the outer header and trailer added.
    pub overhead_bytes: NonZeroU16,
    /// The inner packet's DSCP.
    pub inner_dscp: u8,
}

/// A packet for unit tests.
#[cfg(test)]
pub mod testing {
    use super::{protocol, Packet};
    use crate::time::SimTime;

    /// A UDP packet with the given id, size and DSCP, belonging to flow 0.
    pub fn packet(id: u64, size_bytes: u32, dscp: u8) -> Packet {
        Packet {
            id,
            created: SimTime::ZERO,
            flow: crate::ids::FlowId(0),
            dst_node: crate::ids::NodeId(0),
            size_bytes,
            src_addr: 0,
            dst_addr: 0,
            src_port: 0,
            dst_port: 0,
            protocol: protocol::UDP,
            dscp,
            ecn: 0,
            counted: true,
            hop_slot: super::NO_HOP,
            hop_in: SimTime::ZERO,
            segment: None,
            fragment: super::Fragment::Whole,
            outer_overhead_bytes: 0,
            inner_dscp: 0,
        }
    }
}
