//! The TCP header fields a simulated segment carries.
//!
//! Sequence and acknowledgement numbers are byte offsets in each direction's stream, counted
//! from an initial sequence number of 0: the SYN occupies sequence number 0, data starts at
//! 1, and the FIN occupies the number after the last data byte (RFC 9293 §3.4). Numbers are
//! 64-bit, so they never wrap within a run. The header is 20 bytes of IP and 20 of TCP; the
//! only option modelled is SACK ([`super::sack`]), so a segment of `p` payload bytes is a
//! `40 + p`-byte IP packet plus its SACK option's bytes.

use super::sack::SackBlocks;
use crate::ids::EndpointId;

/// Bytes of IP and TCP header on every segment (no options).
pub const HEADER_BYTES: u32 = 40;

/// Flag bits.
pub mod flags {
    /// Synchronize sequence numbers (connection set-up).
    pub const SYN: u8 = 0x02;
    /// The acknowledgement field is valid.
    pub const ACK: u8 = 0x10;
    /// No more data from the sender.
    pub const FIN: u8 = 0x01;
}

/// The TCP part of a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The endpoint the segment is addressed to.
    pub to_endpoint: EndpointId,
    /// Which connection of that endpoint it belongs to: endpoints are reused by successive
    /// connections, and segments of an earlier one are ignored.
    pub incarnation: u32,
    /// Sequence number of the first byte (or of the SYN or FIN).
    pub seq: u64,
    /// Next sequence number the sender expects from the receiver (valid with ACK).
    pub ack: u64,
    /// Payload bytes.
    pub payload_bytes: u32,
    /// Flag bits ([`flags`]).
    pub flags: u8,
    /// Receive window the sender advertises, bytes.
    pub window_bytes: u32,
    /// SACK blocks (empty unless the connection uses SACK and data is out of order).
    pub sack: SackBlocks,
}

impl Segment {
    /// Whether `flag` is set.
    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Sequence space the segment occupies: its payload, plus one for SYN and for FIN.
    #[inline]
    pub fn seq_len(&self) -> u64 {
        self.payload_bytes as u64 + self.has(flags::SYN) as u64 + self.has(flags::FIN) as u64
    }
}
