//! A bounded FIFO of packets, the building block of every discipline's queues, and the
//! limit it enforces.

use crate::config::scalar::{parse_scalar, Numbers};
use crate::packet::{take_oldest, Packet};
use crate::units::{parse_size_bytes, UnitError};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;
use std::collections::VecDeque;

/// A queue limit that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueueLimitError {
    /// A packet count of 0, or too large.
    #[error("`{text}` is not a valid packet count: use a whole number above 0")]
    PacketCount { text: String },
    /// A byte limit of 0.
    #[error("a queue limit of 0 bytes can hold nothing")]
    ZeroBytes,
    /// Neither a count nor a size.
    #[error("{0}; a queue limit is a packet count (40), bytes (\"64kB\") or \"unlimited\"")]
    Size(UnitError),
}

/// How much a queue may hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// At most this many packets (IOS hold queues count packets).
    Packets(u32),
    /// At most this many bytes of IP packets.
    Bytes(u64),
    /// No limit (for analytical models such as M/D/1 with an infinite buffer).
    Unlimited,
}

impl QueueLimit {
    /// Parses a packet count (`40`, `"40p"`, `"40 packets"`), bytes (`"64kB"`) or
    /// `"unlimited"`.
    pub fn parse(text: &str) -> Result<QueueLimit, QueueLimitError> {
        let t = text.trim();
        if t == "unlimited" {
            return Ok(QueueLimit::Unlimited);
        }
        let count = t.strip_suffix("packets").or_else(|| t.strip_suffix('p')).unwrap_or(t).trim();
        if count.bytes().all(|b| b.is_ascii_digit()) {
            return match count.parse::<u32>() {
                Ok(p) if p > 0 => Ok(QueueLimit::Packets(p)),
                _ => Err(QueueLimitError::PacketCount { text: text.to_owned() }),
            };
        }
        match parse_size_bytes(t) {
            Ok(0) => Err(QueueLimitError::ZeroBytes),
            Ok(b) => Ok(QueueLimit::Bytes(b)),
            Err(e) => Err(QueueLimitError::Size(e)),
        }
    }
}

impl<'de> Deserialize<'de> for QueueLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_scalar(d, Numbers::AsText, QueueLimit::parse)
    }
}

impl JsonSchema for QueueLimit {
    fn schema_name() -> Cow<'static, str> {
        "QueueLimit".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "packets (40 or \"40p\"), bytes (\"64kB\"), or \"unlimited\"",
            "oneOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string"}
            ]
        })
    }
}

/// Most packets whose storage a queue reserves when it is built (128 KiB of packets). A
/// larger limit lets the queue grow past it, doubling its storage a few times in a run;
/// reserving a user's limit up front would turn a limit of 4294967295 into a 550 GB request.
pub const RESERVED_PACKETS: usize = 1024;

/// A FIFO of packets with a limit and a byte count.
#[derive(Clone, Debug)]
pub struct PacketQueue {
    packets: VecDeque<Packet>,
    bytes: u64,
    limit: QueueLimit,
    /// Bytes a byte limit counts per packet beside its IP bytes (a Linux device's
    /// link-layer header, [`Self::counting_header`]).
    header_bytes: u32,
}

impl PacketQueue {
    /// An empty queue. Storage for a packet-limited queue is reserved up front, up to
    /// [`RESERVED_PACKETS`], so for the usual limits the hot path never grows it.
    pub fn new(limit: QueueLimit) -> Self {
        let capacity = match limit {
            QueueLimit::Packets(p) => (p as usize).min(RESERVED_PACKETS),
            QueueLimit::Bytes(_) | QueueLimit::Unlimited => 64,
        };
        PacketQueue { packets: VecDeque::with_capacity(capacity), bytes: 0, limit, header_bytes: 0 }
    }

    /// The queue with a byte limit that counts `header_bytes` more for every packet, as
    /// Linux's `bfifo` counts the packet as the device holds it (`qdisc_pkt_len`: on
    /// Ethernet the 14-byte MAC header and the IP packet).
    pub fn counting_header(self, header_bytes: u32) -> Self {
        PacketQueue { header_bytes, ..self }
    }

    /// Whether a packet of `size_bytes` would exceed the limit (tail drop test).
    #[inline]
    pub fn is_full_for(&self, size_bytes: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(p) => self.packets.len() >= p as usize,
            QueueLimit::Bytes(b) => {
                let headers = (self.packets.len() as u64 + 1) * self.header_bytes as u64;
                self.bytes + size_bytes as u64 + headers > b
            }
            QueueLimit::Unlimited => false,
        }
    }

    /// Appends a packet (the caller checked the limit).
    #[inline]
    pub fn push(&mut self, packet: Packet) {
        self.bytes += packet.size_bytes as u64;
        self.packets.push_back(packet);
    }

    /// Removes the oldest packet.
    #[inline]
    pub fn pop(&mut self) -> Option<Packet> {
        self.bytes -= self.head_size_bytes()? as u64;
        self.packets.pop_front()
    }

    /// Removes the oldest packet of a queue that holds one, without an option on the way
    /// (see [`take_oldest`]).
    #[inline]
    pub fn take(&mut self) -> Packet {
        let packet = take_oldest(&mut self.packets);
        self.bytes -= packet.size_bytes as u64;
        packet
    }

    /// The oldest packet.
    #[inline]
    pub fn head(&self) -> Option<&Packet> {
        self.packets.front()
    }

    /// The size of the oldest packet, bytes.
    #[inline]
    pub fn head_size_bytes(&self) -> Option<u32> {
        self.packets.front().map(|p| p.size_bytes)
    }

    /// Removes every packet, oldest first.
    pub fn take_all(&mut self) -> Vec<Packet> {
        self.bytes = 0;
        self.packets.drain(..).collect()
    }

    /// Packets held.
    #[inline]
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    /// Whether nothing is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// Bytes held.
    #[cfg(test)]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The configured limit.
    pub fn limit(&self) -> QueueLimit {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The design notes give what a queue reserves and what reserving a whole limit of
    /// `u32::MAX` packets would ask for; they follow the packet's size.
    #[test]
    fn the_design_notes_reservation_figures() {
        let notes = include_str!("../../../../docs/design/decisions.md");
        let notes = notes.split_whitespace().collect::<Vec<_>>().join(" ");
        let packet_bytes = std::mem::size_of::<Packet>();
        let reserved_kib = RESERVED_PACKETS * packet_bytes / 1024;
        let whole_gb = u32::MAX as f64 * packet_bytes as f64 / 1e9;
        for figure in [
            format!("up to {RESERVED_PACKETS} packets (`RESERVED_PACKETS`, {reserved_kib} KiB)"),
            format!("a limit of {} a {whole_gb:.0} GB request", u32::MAX),
            format!("A packet is a {packet_bytes}-byte value"),
        ] {
            assert!(notes.contains(&figure), "docs/design/decisions.md lacks `{figure}`");
        }
    }

    #[test]
    fn limits_in_packets_bytes_or_none() {
        assert_eq!(QueueLimit::parse("40"), Ok(QueueLimit::Packets(40)));
        assert_eq!(QueueLimit::parse("40p"), Ok(QueueLimit::Packets(40)));
        assert_eq!(QueueLimit::parse("64 packets"), Ok(QueueLimit::Packets(64)));
        assert_eq!(QueueLimit::parse("64kB"), Ok(QueueLimit::Bytes(64_000)));
        assert_eq!(QueueLimit::parse("unlimited"), Ok(QueueLimit::Unlimited));
        assert!(QueueLimit::parse("0").unwrap_err().to_string().contains("above 0"));
        assert!(QueueLimit::parse("0B").unwrap_err().to_string().contains("hold nothing"));
        assert!(QueueLimit::parse("lots").unwrap_err().to_string().contains("a queue limit is"));
    }

    #[test]
    fn a_byte_limit_may_count_the_device_header() {
        // 1000 bytes hold two 486-byte packets with 14-byte headers, not a third of 1.
        let mut q = PacketQueue::new(QueueLimit::Bytes(1000)).counting_header(14);
        assert!(!q.is_full_for(486));
        q.push(crate::packet::testing::packet(0, 486, 0));
        assert!(!q.is_full_for(486));
        q.push(crate::packet::testing::packet(1, 486, 0));
        assert!(q.is_full_for(1));
        assert_eq!(q.bytes(), 972);
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut q = PacketQueue::new(QueueLimit::Bytes(250));
        let p = crate::qdisc::testing::packet(0, 100, 0);
        assert!(!q.is_full_for(100));
        q.push(p);
        q.push(p);
        assert!(q.is_full_for(100) && !q.is_full_for(50));
        assert_eq!((q.len(), q.bytes()), (2, 200));
    }
}
