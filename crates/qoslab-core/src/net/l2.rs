//! Layer-2 framing overhead added to every IP packet on a link.
//!
//! Serialization time counts the whole frame: IP packet + this overhead. Presets
//! (Cisco tech note "Voice Over IP – Per Call Bandwidth Consumption"; RFC 1662 §3 for PPP;
//! `docs/reference/ios-defaults.md`):
//! * `hdlc`, `ppp`: 7 bytes — 6 bytes of header and FCS plus one flag (Cisco's tables use
//!   this for MLPPP/FRF.12 and it reproduces them exactly; the Cisco HDLC layout itself is
//!   assumed to cost the same: address, control, 2-byte type, 2-byte FCS, flag).
//! * `ethernet` (the default): 38 bytes — the 14-byte header and 4-byte FCS, and the
//!   physical layer's 8-byte preamble and start delimiter and 12-byte inter-frame gap
//!   (IEEE 802.3 clause 4): the time a frame holds the wire, 1,538 bytes' worth for a
//!   1,500-byte packet. `ethernet-wire` is the same (its name from when `ethernet` left the
//!   physical layer out, which made 1,500-byte packets serialize 1.3 % and 46-byte ones 24 %
//!   too fast).
//! * `ethernet-frame`: 18 bytes — the header and FCS only, as Cisco's voice bandwidth tables
//!   count an Ethernet frame (87.2 kbit/s for G.711 in 20 ms); for comparing with such tables
//!   and with counters that count frames.
//! * `none`: 0. Any other byte count can be written as `"12B"`.
//!
//! Bit stuffing on synchronous serial links is data-dependent and not modelled, as in
//! Cisco's tables.

use crate::config::scalar::{parse_scalar, Numbers};
use crate::units::parse_size_bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// The framing a link's frames carry, as far as a packet capture needs it (the link-layer
/// header written before each IP packet, [`crate::net::pcap`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum L2Framing {
    /// Ethernet II (`ethernet`, `ethernet-wire`).
    Ethernet,
    /// Cisco HDLC (`hdlc`).
    CiscoHdlc,
    /// PPP in HDLC-like framing (`ppp`).
    Ppp,
    /// No link-layer header known (`none` or a byte count).
    Unknown,
}

impl L2Framing {
    /// The link-layer header a Linux device holds in front of the IP packet, bytes: the
    /// 14-byte Ethernet II header (two addresses and the type; the frame check sequence is
    /// added by the hardware). A PPP device adds its header after the queuing discipline
    /// (`ppp_start_xmit` in `drivers/net/ppp/ppp_generic.c`), and qoslab knows no other
    /// device's, so none there.
    pub fn device_header_bytes(self) -> u32 {
        match self {
            L2Framing::Ethernet => 14,
            L2Framing::CiscoHdlc | L2Framing::Ppp | L2Framing::Unknown => 0,
        }
    }

    /// The layer-2 framing IOS counts in its policers and shapers, bytes: the header, without
    /// the flags, the FCS or (on Ethernet) the preamble, start delimiter and gap, which the
    /// hardware adds (Cisco 10000 Series Router Quality of Service Configuration Guide,
    /// OL-7433-09, ch. 6, "Data Included in the Policing Rate", Table 6-2 and its note). The
    /// 14-byte Ethernet II header; on a serial line the 4 bytes of Cisco HDLC's address,
    /// control and type or PPP's address, control and protocol (RFC 1662 §3.1); none where
    /// the framing is not known.
    pub fn ios_header_bytes(self) -> u32 {
        match self {
            L2Framing::Ethernet => 14,
            L2Framing::CiscoHdlc | L2Framing::Ppp => 4,
            L2Framing::Unknown => 0,
        }
    }
}

/// An Ethernet frame's bytes on the wire beyond the IP packet: 14 header, 4 FCS, 8 preamble
/// and start delimiter, 12 inter-frame gap.
pub const ETHERNET_WIRE_BYTES: u32 = 38;

/// Per-frame layer-2 overhead in bytes, and the framing it stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct L2Overhead(pub u32, pub L2Framing);

const PRESETS: [(&str, u32, L2Framing); 6] = [
    ("hdlc", 7, L2Framing::CiscoHdlc),
    ("ppp", 7, L2Framing::Ppp),
    ("ethernet", ETHERNET_WIRE_BYTES, L2Framing::Ethernet),
    ("ethernet-wire", ETHERNET_WIRE_BYTES, L2Framing::Ethernet),
    ("ethernet-frame", 18, L2Framing::Ethernet),
    ("none", 0, L2Framing::Unknown),
];

/// Framing that is neither a preset nor a byte count up to 1024.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum L2OverheadError {
    /// More than 1024 bytes.
    #[error("`{text}` is too much framing for one frame (at most 1024B)")]
    TooMuch { text: String },
    /// Neither a preset name nor a size.
    #[error("unknown variant `{text}`, expected one of {presets}, or a byte count like \"12B\"", presets = quoted_presets())]
    Unknown { text: String },
}

/// The preset names, quoted and separated by commas.
fn quoted_presets() -> String {
    PRESETS.iter().map(|(n, _, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

impl L2Overhead {
    /// Parses a preset name or a byte count.
    pub fn parse(text: &str) -> Result<Self, L2OverheadError> {
        if let Some((_, bytes, framing)) = PRESETS.iter().find(|(name, _, _)| *name == text) {
            return Ok(L2Overhead(*bytes, *framing));
        }
        match parse_size_bytes(text) {
            Ok(b) if b <= 1024 => Ok(L2Overhead(b as u32, L2Framing::Unknown)),
            Ok(_) => Err(L2OverheadError::TooMuch { text: text.to_owned() }),
            Err(_) => Err(L2OverheadError::Unknown { text: text.to_owned() }),
        }
    }
}

impl<'de> Deserialize<'de> for L2Overhead {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let how =
            "write a byte count such as \"{n}B\", or a preset (hdlc, ppp, ethernet, ethernet-frame, none)";
        parse_scalar(d, Numbers::NeedUnit(how), L2Overhead::parse)
    }
}

impl JsonSchema for L2Overhead {
    fn schema_name() -> Cow<'static, str> {
        "L2Overhead".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "framing preset (hdlc, ppp: 7 B; ethernet, ethernet-wire: 38 B with preamble and gap; ethernet-frame: 18 B; none) or bytes (\"12B\")",
            "type": "string"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_bytes() {
        assert_eq!(L2Overhead::parse("hdlc"), Ok(L2Overhead(7, L2Framing::CiscoHdlc)));
        assert_eq!(L2Overhead::parse("ppp"), Ok(L2Overhead(7, L2Framing::Ppp)));
        assert_eq!(L2Overhead::parse("ethernet"), Ok(L2Overhead(38, L2Framing::Ethernet)));
        assert_eq!(L2Overhead::parse("ethernet-wire"), Ok(L2Overhead(38, L2Framing::Ethernet)));
        assert_eq!(L2Overhead::parse("ethernet-frame"), Ok(L2Overhead(18, L2Framing::Ethernet)));
        assert_eq!(L2Overhead::parse("12B"), Ok(L2Overhead(12, L2Framing::Unknown)));
        assert!(L2Overhead::parse("atm").unwrap_err().to_string().contains("`hdlc`"));
    }

    #[test]
    fn cisco_voice_table_reproduced() {
        // G.711 20 ms: (160 + 40 + L2) B × 8 × 50 pps; 82.8 kbit/s on MLPPP, 87.2 on Ethernet.
        let kbps = |l2: L2Overhead| (160 + 40 + l2.0) * 8 * 50;
        assert_eq!(kbps(L2Overhead::parse("ppp").unwrap()), 82_800);
        assert_eq!(kbps(L2Overhead::parse("ethernet-frame").unwrap()), 87_200);
    }
}
