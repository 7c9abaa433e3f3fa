//! Link fragmentation and interleaving (multilink PPP, IOS `ppp multilink fragment delay`
//! and `ppp multilink interleave`).
//!
//! On a slow link a 1500-byte packet holds the wire for tens of milliseconds, and a voice
//! packet that arrives just after it starts waits for all of it. With LFI the interface
//! cuts large packets into fragments that each take about the configured fragment delay
//! on the wire, and sends priority packets between the fragments, so a voice packet waits
//! for at most one fragment.
//!
//! * **Fragment size.** Payload bytes per fragment = QoS bandwidth × fragment delay / 8
//!   (IOS: delay in ms × bandwidth in kbit/s / 8, `docs/reference/ios-defaults.md`), at
//!   least 1 B; at 128 kbit/s and 10 ms, 160 B. Default delay 30 ms (a secondary source
//!   only, unverified against Cisco text; same page).
//! * **What is fragmented.** A packet whose IP size plus the inner PPP protocol field (2 B,
//!   RFC 1990 fragments the PPP payload with its protocol number) exceeds the fragment
//!   size. Each fragment carries a multilink header (4 B with the default 24-bit sequence
//!   numbers, 2 B with 12-bit ones; RFC 1990) inside the link's own framing (`l2`), so a
//!   fragment's frame is payload + multilink header + `l2` bytes. Smaller packets go whole,
//!   without a multilink header.
//! * **Interleaving.** While a packet's fragments are being sent, the port asks the
//!   discipline for a packet of its strict-priority (LLQ) queue before each fragment; such
//!   a packet goes between two fragments. Other packets wait for the last fragment:
//!   fragments of two packets never mix, as multilink sequence numbers require. Only
//!   disciplines with a strict-priority queue interleave (`cbwfq` priority classes).
//! * **Reassembly.** The far end delivers the packet when its last fragment arrives; its
//!   delay is to that instant. If the link loses any fragment, the packet is lost.
//!
//! The fragment size follows the QoS bandwidth: when a rate or bandwidth change moves it,
//! the new size applies from the first packet fragmented after the fragments of the old
//! size have all gone on the wire (a packet's fragments are all one size).

use crate::config::error::{join_path, Issue};
use crate::packet::{Fragment, Packet};
use crate::units::Duration;
use schemars::JsonSchema;
use serde::Deserialize;

/// Inner PPP protocol field carried once per fragmented packet, bytes.
pub const INNER_PROTOCOL_BYTES: u32 = 2;
/// Multilink header with 24-bit sequence numbers, bytes (RFC 1990, the default).
pub const LONG_SEQUENCE_HEADER_BYTES: u32 = 4;
/// Multilink header with 12-bit sequence numbers, bytes.
pub const SHORT_SEQUENCE_HEADER_BYTES: u32 = 2;

/// Default fragment delay, ns (unverified, see above).
pub const DEFAULT_FRAGMENT_DELAY_NS: u64 = 30_000_000;

/// Multilink sequence number format.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SequenceFormat {
    /// 24-bit sequence numbers, 4-byte header (the default).
    #[default]
    Long,
    /// 12-bit sequence numbers, 2-byte header.
    Short,
}

/// Fragmentation settings as written on an interface.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LfiSpec {
    /// Serialization time a fragment's payload may take (IOS `ppp multilink fragment
    /// delay`; default 30 ms).
    pub fragment_delay: Option<Duration>,
    /// Send strict-priority packets between fragments (IOS `ppp multilink interleave`;
    /// default true).
    pub interleave: Option<bool>,
    /// Multilink sequence numbers: `long` (24-bit, 4-byte header, default) or `short`.
    pub sequence: Option<SequenceFormat>,
}

/// An interface's fragmentation settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Lfi {
    /// Payload bytes per fragment.
    pub fragment_bytes: u32,
    /// The fragment delay the size is worked out from, ns.
    pub delay_ns: u64,
    /// Multilink header per fragment, bytes.
    pub header_bytes: u32,
    /// Whether strict-priority packets go between fragments.
    pub interleave: bool,
}

impl Lfi {
    /// The settings `spec` (found at `at`) gives an interface of `bandwidth_bps`.
    pub fn build(spec: &LfiSpec, at: &str, bandwidth_bps: u64) -> Result<Self, Issue> {
        let delay_ns = spec.fragment_delay.map_or(DEFAULT_FRAGMENT_DELAY_NS, |d| d.0);
        if delay_ns == 0 {
            return Err(Issue::at(join_path(at, "fragment_delay"), "a fragment delay must be above zero")
                .hint("write e.g. `10ms`, the usual target for voice"));
        }
        Ok(Lfi {
            fragment_bytes: Self::fragment_bytes_for(bandwidth_bps, delay_ns),
            delay_ns,
            header_bytes: match spec.sequence.unwrap_or_default() {
                SequenceFormat::Long => LONG_SEQUENCE_HEADER_BYTES,
                SequenceFormat::Short => SHORT_SEQUENCE_HEADER_BYTES,
            },
            interleave: spec.interleave.unwrap_or(true),
        })
    }

    /// Payload bytes per fragment for `bandwidth_bps` and `delay_ns`, at least 1.
    pub fn fragment_bytes_for(bandwidth_bps: u64, delay_ns: u64) -> u32 {
        let bytes = bandwidth_bps as u128 * delay_ns as u128 / 8 / 1_000_000_000;
        bytes.clamp(1, u32::MAX as u128) as u32
    }

    /// The bytes multilink fragments of `size_bytes` (IP) carry: the packet and its inner
    /// protocol field.
    fn payload_bytes(size_bytes: u32) -> u32 {
        size_bytes + INNER_PROTOCOL_BYTES
    }

    /// Whether a packet of `size_bytes` is fragmented.
    #[inline]
    pub fn fragments(&self, size_bytes: u32) -> bool {
        Self::payload_bytes(size_bytes) > self.fragment_bytes
    }

    /// Number of fragments of a packet of `size_bytes` (1 if it goes whole).
    pub fn fragment_count(&self, size_bytes: u32) -> u32 {
        if self.fragments(size_bytes) {
            Self::payload_bytes(size_bytes).div_ceil(self.fragment_bytes)
        } else {
            1
        }
    }

    /// Bytes of the frame (without the link's `l2` framing) that carries `packet`: the
    /// packet itself, or a fragment's payload and multilink header.
    #[inline]
    pub fn frame_bytes(&self, packet: &Packet) -> u32 {
        match packet.fragment {
            Fragment::Whole => packet.size_bytes,
            Fragment::Leading => self.fragment_bytes + self.header_bytes,
            Fragment::Last => {
                let payload = Self::payload_bytes(packet.size_bytes);
                let last = payload - (self.fragment_count(packet.size_bytes) - 1) * self.fragment_bytes;
                last + self.header_bytes
            }
        }
    }
}

/// The packet whose fragments are being sent, and how many have gone to the ring.
#[derive(Copy, Clone, Debug)]
pub struct Train {
    /// The packet.
    pub packet: Packet,
    /// Fragments handed to the ring so far.
    pub sent: u32,
}

impl Train {
    /// The next fragment's frame, and whether it was the last.
    pub fn next_frame(&mut self, lfi: &Lfi) -> (Packet, bool) {
        self.sent += 1;
        let last = self.sent == lfi.fragment_count(self.packet.size_bytes);
        let fragment = if last { Fragment::Last } else { Fragment::Leading };
        (Packet { fragment, ..self.packet }, last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::packet;

    /// Fragment sizes as `docs/reference/ios-defaults.md` lists them: 10 ms is 160 B at
    /// 128 kbit/s, 30 ms 960 B at 256.
    #[test]
    fn fragment_size_is_bandwidth_times_delay() {
        assert_eq!(Lfi::fragment_bytes_for(128_000, 10_000_000), 160);
        assert_eq!(Lfi::fragment_bytes_for(64_000, 10_000_000), 80);
        assert_eq!(Lfi::fragment_bytes_for(256_000, 30_000_000), 960);
        assert_eq!(Lfi::fragment_bytes_for(768_000, 30_000_000), 2880);
        assert_eq!(Lfi::fragment_bytes_for(1, 1), 1);
    }

    /// A 1500-byte packet at 128 kbit/s with 10 ms fragments: 1502 payload bytes make 9
    /// fragments of 160 and a last one of 62, each with a 4-byte multilink header.
    #[test]
    fn a_1500_byte_packet_in_160_byte_fragments() {
        let lfi = Lfi { fragment_bytes: 160, delay_ns: 10_000_000, header_bytes: 4, interleave: true };
        assert_eq!(lfi.fragment_count(1500), 10);
        let mut train = Train { packet: packet(1, 1500, 0), sent: 0 };
        let frames: Vec<(u32, bool)> = (0..10)
            .map(|_| {
                let (frame, last) = train.next_frame(&lfi);
                (lfi.frame_bytes(&frame), last)
            })
            .collect();
        assert!(frames[..9].iter().all(|&f| f == (164, false)));
        assert_eq!(frames[9], (66, true));
        let total: u32 = frames.iter().map(|f| f.0).sum();
        assert_eq!(total, 1500 + 2 + 10 * 4);
        // 158 B + 2 fit in one fragment; 159 B does not.
        assert!(!lfi.fragments(158) && lfi.fragments(159));
        assert_eq!(lfi.fragment_count(159), 2);
        assert_eq!(lfi.frame_bytes(&packet(2, 60, 0)), 60);
    }
}
