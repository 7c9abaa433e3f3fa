//! A bit rate written either absolutely (`"192kbps"`) or as a share of a reference rate
//! (`"150%"`). What the reference is depends on where it is written: for a traffic pattern
//! it is the physical rate of the slowest link on the flow's path ("a flood at 1.5 times the
//! bottleneck"); for a CBWFQ or LLQ class it is the interface's QoS bandwidth (IOS
//! `bandwidth percent`, `priority percent`).
//!
//! A share resolves to ⌊reference × share⌋ bit/s, rounded down.

use super::{parse_percent_ppm, parse_rate_bps, UnitError};
use crate::config::scalar::{parse_scalar, Numbers};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// A bit rate, absolute or relative to a reference rate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RateOrShare {
    /// This many bit/s.
    Absolute(u64),
    /// This share of the reference rate, in parts per million.
    Share(u64),
}

impl RateOrShare {
    /// Parses `"192kbps"` or `"150%"`.
    pub fn parse(text: &str) -> Result<RateOrShare, UnitError> {
        if text.trim_end().ends_with('%') {
            parse_percent_ppm(text).map(RateOrShare::Share)
        } else {
            parse_rate_bps(text).map(RateOrShare::Absolute)
        }
    }

    /// The rate in bit/s, given the reference rate a share refers to.
    pub fn bps(self, reference_bps: u64) -> u64 {
        match self {
            RateOrShare::Absolute(bps) => bps,
            RateOrShare::Share(ppm) => (reference_bps as u128 * ppm as u128 / 1_000_000) as u64,
        }
    }
}

impl<'de> Deserialize<'de> for RateOrShare {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let how = "write a rate such as \"{n}kbps\", or a percentage such as \"{n}%\"";
        parse_scalar(d, Numbers::NeedUnit(how), RateOrShare::parse)
    }
}

impl JsonSchema for RateOrShare {
    fn schema_name() -> Cow<'static, str> {
        "RateOrShare".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "a bit rate (\"192kbps\") or a percentage of a reference rate (\"150%\")",
            "examples": ["192kbps", "150%"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_and_relative() {
        assert_eq!(RateOrShare::parse("192kbps"), Ok(RateOrShare::Absolute(192_000)));
        assert_eq!(RateOrShare::parse("150%"), Ok(RateOrShare::Share(1_500_000)));
        assert_eq!(RateOrShare::parse("150%").unwrap().bps(128_000), 192_000);
        assert_eq!(RateOrShare::parse("33.3%").unwrap().bps(1_000), 333);
        assert_eq!(RateOrShare::parse("64kbps").unwrap().bps(128_000), 64_000);
        assert!(RateOrShare::parse("150").is_err());
    }
}
