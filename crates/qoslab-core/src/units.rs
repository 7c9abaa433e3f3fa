//! Quantities with units as they appear in scenarios: `"128kbps"`, `"20ms"`, `"1500B"`, `"5%"`.
//!
//! Numbers are parsed as exact decimals (never through a float), so `"1.5Mbps"` is exactly
//! 1 500 000 bit/s and `"0.1ms"` exactly 100 000 ns. A value that is not a whole number of
//! the base unit (bit/s, ns, byte) is rejected rather than rounded. Prefixes are decimal
//! (k = 1000) except the binary byte prefixes `KiB`, `MiB`, `GiB`.

pub mod rate_or_share;

pub use rate_or_share::RateOrShare;

use crate::config::scalar::{parse_scalar, Numbers};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// Why a quantity with a unit cannot be read; the message quotes the text and says what to
/// write instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    /// A minus sign.
    #[error("`{text}` is negative: rates, durations and sizes are positive")]
    Negative { text: String },
    /// No digit at the start.
    #[error("`{text}` does not start with a number")]
    NoNumber { text: String },
    /// Digits and dots that make no decimal (`1.2.3`, `.`).
    #[error("`{number}` is not a number")]
    NotANumber { number: String },
    /// More than the base unit's 64-bit count holds.
    #[error("`{number}` is too large: a value holds at most {} {base_unit}", u64::MAX)]
    TooLarge { number: String, base_unit: &'static str },
    /// More decimals than an exact scale can hold.
    #[error("`{number}` has too many decimals")]
    TooManyDecimals { number: String },
    /// A fraction of the base unit (`0.5bps`).
    #[error("`{number}` is not a whole number of {base_unit} in this unit")]
    NotWhole { number: String, base_unit: &'static str },
    /// A number without a unit; `example` is a unit to suggest.
    #[error("`{text}` has no unit: write e.g. `{number}{example}`")]
    NoUnit { text: String, number: String, example: &'static str },
    /// A unit not of this quantity; `valid` lists the usual ones.
    #[error("unknown {quantity} unit `{unit}` in `{text}` (use {valid})")]
    UnknownUnit { quantity: &'static str, unit: String, text: String, valid: &'static str },
    /// A number without `%` where a percentage is needed.
    #[error("`{text}` is not a percentage: write e.g. `{number}%`")]
    NotPercent { text: String, number: String },
}

/// Splits `"1.5Mbps"` into (`"1.5"`, `"Mbps"`), ignoring spaces around and between them.
fn split_number(text: &str) -> Result<(&str, &str), UnitError> {
    let text = text.trim();
    let end = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    if text.starts_with('-') {
        return Err(UnitError::Negative { text: text.to_owned() });
    }
    if end == 0 {
        return Err(UnitError::NoNumber { text: text.to_owned() });
    }
    Ok((&text[..end], text[end..].trim_start()))
}

/// `number × multiplier` for a decimal string, exactly, or an error if it is fractional.
fn scale_decimal(number: &str, multiplier: u64, base_unit: &'static str) -> Result<u64, UnitError> {
    let too_large = || UnitError::TooLarge { number: number.to_owned(), base_unit };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
        return Err(UnitError::NotANumber { number: number.to_owned() });
    }
    let digits = format!("{whole}{fraction}");
    let mantissa: u128 = digits.parse().map_err(|_| too_large())?;
    let scale = 10u128
        .checked_pow(fraction.len() as u32)
        .ok_or_else(|| UnitError::TooManyDecimals { number: number.to_owned() })?;
    let scaled = mantissa.checked_mul(multiplier as u128).ok_or_else(too_large)?;
    if scaled % scale != 0 {
        return Err(UnitError::NotWhole { number: number.to_owned(), base_unit });
    }
    u64::try_from(scaled / scale).map_err(|_| too_large())
}

/// The error for a number without a unit, suggesting `example`.
fn no_unit(text: &str, number: &str, example: &'static str) -> UnitError {
    UnitError::NoUnit { text: text.to_owned(), number: number.to_owned(), example }
}

/// The error for an unknown unit of `quantity`, listing the `valid` ones.
fn unknown_unit(quantity: &'static str, unit: &str, text: &str, valid: &'static str) -> UnitError {
    UnitError::UnknownUnit { quantity, unit: unit.to_owned(), text: text.to_owned(), valid }
}

/// Parses a bit rate into bit/s: `bps`, `kbps`, `Mbps`, `Gbps` (also `bit/s`, `kbit/s`, ...).
pub fn parse_rate_bps(text: &str) -> Result<u64, UnitError> {
    let (number, unit) = split_number(text)?;
    let multiplier = match unit.to_ascii_lowercase().as_str() {
        "bps" | "bit/s" | "b/s" => 1,
        "kbps" | "kbit/s" | "kb/s" => 1_000,
        "mbps" | "mbit/s" | "mb/s" => 1_000_000,
        "gbps" | "gbit/s" | "gb/s" => 1_000_000_000,
        "" => return Err(no_unit(text, number, "kbps")),
        _ => return Err(unknown_unit("rate", unit, text, "bps, kbps, Mbps or Gbps")),
    };
    scale_decimal(number, multiplier, "bit/s")
}

/// A rate in words for messages: `2 Mbit/s`, `38.4 kbit/s`, `300 bit/s`.
pub fn format_rate(bps: u64) -> String {
    match bps {
        1_000_000_000.. => format!("{} Gbit/s", bps as f64 / 1e9),
        1_000_000.. => format!("{} Mbit/s", bps as f64 / 1e6),
        1_000.. => format!("{} kbit/s", bps as f64 / 1e3),
        _ => format!("{bps} bit/s"),
    }
}

/// Parses a duration into nanoseconds: `ns`, `us` (or `µs`), `ms`, `s`, `min`, `h`.
pub fn parse_duration_ns(text: &str) -> Result<u64, UnitError> {
    let (number, unit) = split_number(text)?;
    let multiplier = match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "" => return Err(no_unit(text, number, "ms")),
        _ => return Err(unknown_unit("time", unit, text, "ns, us, ms, s, min or h")),
    };
    scale_decimal(number, multiplier, "nanoseconds")
}

/// Parses a size into bytes: `B`, `kB`/`KB` (1000), `MB`, `GB`, `KiB`, `MiB`, `GiB`.
pub fn parse_size_bytes(text: &str) -> Result<u64, UnitError> {
    let (number, unit) = split_number(text)?;
    let multiplier = match unit {
        "B" | "bytes" | "byte" => 1,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1_024,
        "MiB" => 1_048_576,
        "GiB" => 1_073_741_824,
        "" => return Err(no_unit(text, number, "B")),
        _ => return Err(unknown_unit("size", unit, text, "B, kB, MB, KiB or MiB")),
    };
    scale_decimal(number, multiplier, "bytes")
}

/// Parses a percentage into parts per million: `"5%"` → 50 000, `"12.5%"` → 125 000.
pub fn parse_percent_ppm(text: &str) -> Result<u64, UnitError> {
    let (number, unit) = split_number(text)?;
    if unit != "%" {
        return Err(UnitError::NotPercent { text: text.to_owned(), number: number.to_owned() });
    }
    scale_decimal(number, 10_000, "parts per million")
}

/// Declares a serde newtype that deserializes from a unit string with `parse`.
macro_rules! unit_newtype {
    ($(#[$doc:meta])* $name:ident, $parse:path, $units:literal, $example:literal, $how:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                parse_scalar(deserializer, Numbers::NeedUnit($how), $parse).map($name)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "description": $units,
                    "examples": [$example],
                })
            }
        }
    };
}

unit_newtype!(
    /// A bit rate in bit/s, written `"128kbps"`, `"1.5Mbps"`.
    Rate, parse_rate_bps, "a decimal number and bps, kbps, Mbps or Gbps (also bit/s forms)", "128kbps",
    "write it as a string with a unit, e.g. \"{n}kbps\""
);
unit_newtype!(
    /// A duration in nanoseconds, written `"20ms"`, `"1.5s"`.
    Duration, parse_duration_ns, "a decimal number and ns, us, ms, s, min or h", "20ms",
    "write it as a string with a unit, e.g. \"{n}s\" or \"{n}ms\""
);
unit_newtype!(
    /// A size in bytes, written `"1500B"`, `"64kB"`.
    Size, parse_size_bytes, "a decimal number and B, kB, MB, GB, KiB, MiB or GiB", "1500B",
    "write it as a string with a unit, e.g. \"{n}B\""
);

unit_newtype!(
    /// A percentage in parts per million, written `"5%"`.
    Percent, parse_percent_ppm, "a decimal number and %", "5%",
    "write it as a percentage, e.g. \"{n}%\""
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate_bps("128kbps"), Ok(128_000));
        assert_eq!(parse_rate_bps("1.5Mbps"), Ok(1_500_000));
        assert_eq!(parse_rate_bps("38.4 kbit/s"), Ok(38_400));
        assert_eq!(format_rate(38_400), "38.4 kbit/s");
        assert_eq!(format_rate(2_000_000), "2 Mbit/s");
        assert_eq!(format_rate(2_488_000_000), "2.488 Gbit/s");
        assert_eq!(format_rate(300), "300 bit/s");
        assert_eq!(parse_rate_bps("10Gbps"), Ok(10_000_000_000));
        assert!(parse_rate_bps("0.5bps").unwrap_err().to_string().contains("whole number"));
        assert!(parse_rate_bps("128").unwrap_err().to_string().contains("no unit"));
        assert!(parse_rate_bps("128kbs").unwrap_err().to_string().contains("unknown rate unit"));
        assert!(parse_rate_bps("fast").unwrap_err().to_string().contains("does not start with a number"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("20ms"), Ok(20_000_000));
        assert_eq!(parse_duration_ns("0.1ms"), Ok(100_000));
        assert_eq!(parse_duration_ns("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration_ns("2min"), Ok(120_000_000_000));
        assert_eq!(parse_duration_ns("250us"), Ok(250_000));
        assert!(parse_duration_ns("0.5ns").is_err());
        assert!(parse_duration_ns("-1s").unwrap_err().to_string().contains("negative"));
        assert!(parse_duration_ns("1.2.3s").is_err());
        // 2^64 ns is about 584 years: 10^8 h is beyond it, and the error says what fits.
        let error = parse_duration_ns("100000000h").unwrap_err().to_string();
        assert_eq!(error, "`100000000` is too large: a value holds at most 18446744073709551615 nanoseconds");
        assert_eq!(parse_duration_ns("5000000h"), Ok(18_000_000_000_000_000_000));
    }

    #[test]
    fn sizes_and_percent() {
        assert_eq!(parse_size_bytes("1500B"), Ok(1500));
        assert_eq!(parse_size_bytes("1.5kB"), Ok(1500));
        assert_eq!(parse_size_bytes("64KiB"), Ok(65_536));
        assert_eq!(parse_percent_ppm("5%"), Ok(50_000));
        assert_eq!(parse_percent_ppm("12.5%"), Ok(125_000));
        assert!(parse_percent_ppm("5").is_err());
    }
}
