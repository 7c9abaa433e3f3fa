//! DSCP and IP precedence values as users write them: numbers or the standard names.
//!
//! Names (RFC 2474 class selectors, RFC 2597 AF, RFC 3246 EF): `EF` = 46; `AFxy` = 8x + 2y
//! for class x in 1..4 and drop precedence y in 1..3; `CSn` = 8n; `BE` or `default` = 0.
//! Precedence p is the top three bits of the DSCP, so CSn has precedence n. Precedence names
//! are IOS's: routine 0, priority 1, immediate 2, flash 3, flash-override 4, critical 5,
//! internet 6, network 7.

use crate::config::scalar::{parse_scalar, Numbers};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// A DSCP or IP precedence that is neither a known name nor a number in range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodepointError {
    /// Not a DSCP.
    #[error("`{text}` is not a DSCP: use EF, AF11..AF43, CS0..CS7, BE (or default), or a number 0-63")]
    Dscp { text: String },
    /// Not an IP precedence.
    #[error("`{text}` is not an IP precedence: use 0-7 or {names}", names = PRECEDENCE_NAMES.join(", "))]
    Precedence { text: String },
}

const PRECEDENCE_NAMES: [&str; 8] =
    ["routine", "priority", "immediate", "flash", "flash-override", "critical", "internet", "network"];

/// Parses a DSCP name or number (0–63).
pub fn parse_dscp(text: &str) -> Result<u8, CodepointError> {
    let upper = text.trim().to_ascii_uppercase();
    let value = match upper.as_str() {
        "EF" => Some(46),
        "BE" | "DEFAULT" => Some(0),
        _ => {
            if let Some(n) = upper.strip_prefix("CS") {
                n.parse::<u8>().ok().filter(|n| *n <= 7).map(|n| n * 8)
            } else if let Some(xy) = upper.strip_prefix("AF") {
                let digits: Vec<u8> = xy.bytes().map(|b| b.wrapping_sub(b'0')).collect();
                match digits[..] {
                    [x @ 1..=4, y @ 1..=3] => Some(8 * x + 2 * y),
                    _ => None,
                }
            } else {
                upper.parse::<u8>().ok().filter(|n| *n <= 63)
            }
        }
    };
    value.ok_or_else(|| CodepointError::Dscp { text: text.to_owned() })
}

/// Parses an IP precedence name or number (0–7).
pub fn parse_precedence(text: &str) -> Result<u8, CodepointError> {
    let lower = text.trim().to_ascii_lowercase();
    PRECEDENCE_NAMES
        .iter()
        .position(|n| *n == lower)
        .map(|p| p as u8)
        .or_else(|| lower.parse::<u8>().ok().filter(|p| *p <= 7))
        .ok_or_else(|| CodepointError::Precedence { text: text.to_owned() })
}

/// A DSCP (0–63), written as a number or a name (`EF`, `AF41`, `CS3`, `BE`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Dscp(pub u8);

impl<'de> Deserialize<'de> for Dscp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_scalar(d, Numbers::AsText, parse_dscp).map(Dscp)
    }
}

impl JsonSchema for Dscp {
    fn schema_name() -> Cow<'static, str> {
        "Dscp".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "DSCP: 0-63 or EF, AF11..AF43, CS0..CS7, BE/default",
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": 63},
                {"type": "string", "examples": ["EF", "AF41", "CS3", "BE"]}
            ]
        })
    }
}

/// An IP precedence (0–7), written as a number or an IOS name (`critical`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Precedence(pub u8);

impl<'de> Deserialize<'de> for Precedence {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_scalar(d, Numbers::AsText, parse_precedence).map(Precedence)
    }
}

impl JsonSchema for Precedence {
    fn schema_name() -> Cow<'static, str> {
        "Precedence".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "IP precedence: 0-7 or routine, priority, immediate, flash, flash-override, critical, internet, network",
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": 7},
                {"type": "string"}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dscp_names() {
        assert_eq!(parse_dscp("EF"), Ok(46));
        assert_eq!(parse_dscp("af41"), Ok(34));
        assert_eq!(parse_dscp("AF11"), Ok(10));
        assert_eq!(parse_dscp("AF43"), Ok(38));
        assert_eq!(parse_dscp("CS3"), Ok(24));
        assert_eq!(parse_dscp("cs7"), Ok(56));
        assert_eq!(parse_dscp("default"), Ok(0));
        assert_eq!(parse_dscp("63"), Ok(63));
        for bad in ["64", "AF51", "AF14", "CS8", "XX", ""] {
            assert!(parse_dscp(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn precedence_names() {
        assert_eq!(parse_precedence("critical"), Ok(5));
        assert_eq!(parse_precedence("flash-override"), Ok(4));
        assert_eq!(parse_precedence("7"), Ok(7));
        assert!(parse_precedence("8").is_err());
    }
}
