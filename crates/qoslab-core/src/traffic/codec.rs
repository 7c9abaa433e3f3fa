//! Voice codec presets: payload per packet and packet rate from the codec's frame.
//!
//! A packet carries `interval / frame duration` codec frames, so its RTP payload is that many
//! frames' bytes, and its IP size adds the IPv4 + UDP + RTP headers (20 + 8 + 12 = 40 B,
//! RFC 791 §3.1, RFC 768, RFC 3550 §5.1). Frame facts (RFC 3551 §4.5, Cisco voice bandwidth
//! tables; `docs/reference/voice.md`):
//!
//! | codec | frame | bytes per frame | default interval |
//! |---|---|---|---|
//! | `g711` (64 kbit/s) | 1 ms (sample based) | 8 | 20 ms → 160 B payload |
//! | `g729` (8 kbit/s) | 10 ms | 10 | 20 ms → 20 B |
//! | `g723.1` (6.3 kbit/s) | 30 ms | 24 | 30 ms → 24 B |
//! | `g723.1-5.3k` (5.3 kbit/s) | 30 ms | 20 | 30 ms → 20 B |
//! | `gsm-fr` (13 kbit/s) | 20 ms | 33 | 20 ms → 33 B |

use crate::time::NS_PER_MS;
use schemars::JsonSchema;
use serde::Deserialize;

/// IPv4 (20 B) + UDP (8 B) + RTP (12 B) headers.
pub const IP_UDP_RTP_HEADER_BYTES: u64 = 40;

/// A packetization interval that is not a whole, non-zero number of the codec's frames.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the packetization interval must be a non-zero multiple of the codec's {frame_ms} ms frame",
    frame_ms = *frame_ns as f64 / NS_PER_MS as f64
)]
pub struct PacketizationError {
    /// The codec's frame, ns.
    pub frame_ns: u64,
}

/// A voice codec.
#[derive(Copy, Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
pub enum Codec {
    /// G.711 µ-law/A-law PCM, 64 kbit/s.
    #[serde(rename = "g711")]
    G711,
    /// G.729/G.729A CS-ACELP, 8 kbit/s.
    #[serde(rename = "g729")]
    G729,
    /// G.723.1 MP-MLQ, 6.3 kbit/s.
    #[serde(rename = "g723.1")]
    G7231,
    /// G.723.1 ACELP, 5.3 kbit/s.
    #[serde(rename = "g723.1-5.3k")]
    G7231Low,
    /// GSM 06.10 full rate, 13 kbit/s.
    #[serde(rename = "gsm-fr")]
    GsmFr,
}

impl Codec {
    /// The name a scenario writes.
    pub const fn name(self) -> &'static str {
        match self {
            Codec::G711 => "g711",
            Codec::G729 => "g729",
            Codec::G7231 => "g723.1",
            Codec::G7231Low => "g723.1-5.3k",
            Codec::GsmFr => "gsm-fr",
        }
    }

    /// (frame duration in ns, bytes per frame).
    pub const fn frame(self) -> (u64, u64) {
        match self {
            Codec::G711 => (NS_PER_MS, 8),
            Codec::G729 => (10 * NS_PER_MS, 10),
            Codec::G7231 => (30 * NS_PER_MS, 24),
            Codec::G7231Low => (30 * NS_PER_MS, 20),
            Codec::GsmFr => (20 * NS_PER_MS, 33),
        }
    }

    /// The usual packetization interval, ns.
    pub const fn default_interval_ns(self) -> u64 {
        match self {
            Codec::G7231 | Codec::G7231Low => 30 * NS_PER_MS,
            _ => 20 * NS_PER_MS,
        }
    }

    /// The encoder's look-ahead, ns: G.729 5 ms, G.723.1 7.5 ms (an ICAO working paper's
    /// codec table, `docs/reference/voice.md`); none for the sample-based G.711 and for GSM-FR.
    pub const fn lookahead_ns(self) -> u64 {
        match self {
            Codec::G729 => 5 * NS_PER_MS,
            Codec::G7231 | Codec::G7231Low => 7_500_000,
            Codec::G711 | Codec::GsmFr => 0,
        }
    }

    /// RTP payload bytes per packet at `interval_ns`, or an error if the interval is not a
    /// whole number of frames.
    pub fn payload_bytes(self, interval_ns: u64) -> Result<u64, PacketizationError> {
        let (frame_ns, frame_bytes) = self.frame();
        if interval_ns == 0 || interval_ns % frame_ns != 0 {
            return Err(PacketizationError { frame_ns });
        }
        Ok(interval_ns / frame_ns * frame_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_match_the_reference_table() {
        let ms = NS_PER_MS;
        assert_eq!(Codec::G711.payload_bytes(20 * ms), Ok(160));
        assert_eq!(Codec::G729.payload_bytes(20 * ms), Ok(20));
        assert_eq!(Codec::G7231.payload_bytes(30 * ms), Ok(24));
        assert_eq!(Codec::G7231Low.payload_bytes(30 * ms), Ok(20));
        assert_eq!(Codec::GsmFr.payload_bytes(20 * ms), Ok(33));
        assert!(Codec::G729.payload_bytes(15 * ms).is_err());
    }

    #[test]
    fn ethernet_bandwidth_per_call_matches_cisco() {
        // (payload + 40 + 18) B × 8 × pps: G.729 20 ms = 31.2 kbit/s, GSM-FR = 36.4 kbit/s.
        let bps = |c: Codec| {
            let i = c.default_interval_ns();
            (c.payload_bytes(i).unwrap() + IP_UDP_RTP_HEADER_BYTES + 18) * 8 * 1_000_000_000 / i
        };
        assert_eq!(bps(Codec::G729), 31_200);
        assert_eq!(bps(Codec::GsmFr), 36_400);
        assert_eq!(bps(Codec::G711), 87_200);
    }
}
