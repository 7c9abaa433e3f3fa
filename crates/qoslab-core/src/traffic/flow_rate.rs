//! A flow's bit rate: absolute (`"192kbps"`) or a share of the physical rate of the slowest
//! link on the flow's path (`"150%"`), so "a flood at 1.5 times the bottleneck" is written
//! as it is said and follows the link when its rate is changed with `--set`.
//!
//! A share resolves to ⌊bottleneck_bps × share⌋ bit/s of IP packets (layer 3), rounded down.

use crate::scenario::scalar::{parse_scalar, Numbers};
use crate::units::{parse_percent_ppm, parse_rate_bps};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// A bit rate, absolute or relative to the flow's bottleneck.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FlowRate {
    /// This many bit/s.
    Absolute(u64),
    /// This share of the bottleneck's physical rate, in parts per million.
    OfBottleneck(u64),
}

impl FlowRate {
    /// Parses `"192kbps"` or `"150%"`.
    pub fn parse(text: &str) -> Result<FlowRate, String> {
        if text.trim_end().ends_with('%') {
            parse_percent_ppm(text).map(FlowRate::OfBottleneck)
        } else {
            parse_rate_bps(text).map(FlowRate::Absolute)
        }
    }

    /// The rate in bit/s on a path whose slowest link runs at `bottleneck_bps`.
    pub fn bps(self, bottleneck_bps: u64) -> u64 {
        match self {
            FlowRate::Absolute(bps) => bps,
            FlowRate::OfBottleneck(ppm) => (bottleneck_bps as u128 * ppm as u128 / 1_000_000) as u64,
        }
    }
}

impl<'de> Deserialize<'de> for FlowRate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let how = "write a rate such as \"{n}kbps\", or a share of the bottleneck such as \"150%\"";
        parse_scalar(d, Numbers::NeedUnit(how), FlowRate::parse)
    }
}

impl JsonSchema for FlowRate {
    fn schema_name() -> Cow<'static, str> {
        "FlowRate".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "a bit rate (\"192kbps\") or a share of the slowest link on the flow's path (\"150%\")",
            "examples": ["192kbps", "150%"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_and_relative() {
        assert_eq!(FlowRate::parse("192kbps"), Ok(FlowRate::Absolute(192_000)));
        assert_eq!(FlowRate::parse("150%"), Ok(FlowRate::OfBottleneck(1_500_000)));
        assert_eq!(FlowRate::parse("150%").unwrap().bps(128_000), 192_000);
        assert_eq!(FlowRate::parse("33.3%").unwrap().bps(1_000), 333);
        assert_eq!(FlowRate::parse("64kbps").unwrap().bps(128_000), 64_000);
        assert!(FlowRate::parse("150").is_err());
    }
}
