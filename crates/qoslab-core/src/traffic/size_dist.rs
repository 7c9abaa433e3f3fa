//! Random transfer sizes: constant, exponential or geometric, given by their mean.
//!
//! Written `"500kB"` (constant), `{exponential: 10kB}` (the ad-hoc report's RPC responses)
//! or `{geometric: 500kB}` (the DiffServ measurements' FTP files and HTTP objects). Sizes
//! are whole bytes, at least 1. An exponential size is `⌈−m·ln(1 − U)⌉`; a geometric one
//! counts Bernoulli trials with success probability 1/m up to the first success,
//! `⌈ln(1 − U) / ln(1 − 1/m)⌉`, both by inversion of one uniform draw U.

use crate::config::tagged::nested;
use crate::engine::Rng;
use crate::units::{parse_size_bytes, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// A distribution of sizes in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SizeDist {
    /// Always this many bytes.
    Constant(u64),
    /// Exponential with this mean, bytes.
    Exponential(u64),
    /// Geometric (on 1, 2, ...) with this mean, bytes.
    Geometric(u64),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum SizeForm {
    Exponential(Size),
    Geometric(Size),
}

impl<'de> Deserialize<'de> for SizeDist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(d)?;
        let dist = match value {
            serde_json::Value::String(s) => {
                parse_size_bytes(&s).map(SizeDist::Constant).map_err(D::Error::custom)?
            }
            serde_json::Value::Number(n) => {
                return Err(D::Error::custom(format!("`{n}` has no unit: write a size such as \"{n}kB\"")))
            }
            other => nested::<SizeForm>(other)
                .map(|form| match form {
                    SizeForm::Exponential(mean) => SizeDist::Exponential(mean.0),
                    SizeForm::Geometric(mean) => SizeDist::Geometric(mean.0),
                })
                .map_err(D::Error::custom)?,
        };
        if dist.mean_bytes() == 0 {
            return Err(D::Error::custom("a transfer size must be above 0 bytes"));
        }
        Ok(dist)
    }
}

impl JsonSchema for SizeDist {
    fn schema_name() -> Cow<'static, str> {
        "SizeDist".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "a size (\"500kB\"), {exponential: MEAN} or {geometric: MEAN}",
            "oneOf": [
                {"type": "string"},
                {"type": "object", "properties": {"exponential": {"type": "string"}}, "required": ["exponential"], "additionalProperties": false},
                {"type": "object", "properties": {"geometric": {"type": "string"}}, "required": ["geometric"], "additionalProperties": false}
            ]
        })
    }
}

impl SizeDist {
    /// The mean, bytes.
    pub fn mean_bytes(self) -> u64 {
        match self {
            SizeDist::Constant(b) | SizeDist::Exponential(b) | SizeDist::Geometric(b) => b,
        }
    }

    /// One draw, bytes (at least 1).
    pub fn sample(self, rng: &mut Rng) -> u64 {
        match self {
            SizeDist::Constant(b) => b,
            SizeDist::Exponential(mean) => {
                ((-(mean as f64) * (1.0 - rng.next_f64()).ln()).ceil() as u64).max(1)
            }
            SizeDist::Geometric(1) => 1,
            SizeDist::Geometric(mean) => {
                let q = (1.0 - 1.0 / mean as f64).ln();
                (((1.0 - rng.next_f64()).ln() / q).ceil() as u64).max(1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<SizeDist, serde_json::Error> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        serde_json::from_value(value)
    }

    #[test]
    fn forms() {
        assert_eq!(parse("500kB").unwrap(), SizeDist::Constant(500_000));
        assert_eq!(parse("{exponential: 10kB}").unwrap(), SizeDist::Exponential(10_000));
        assert_eq!(parse("{geometric: 500kB}").unwrap(), SizeDist::Geometric(500_000));
        assert!(parse("0B").unwrap_err().to_string().contains("above 0"));
        assert!(parse("500").unwrap_err().to_string().contains("no unit"));
    }

    #[test]
    fn sample_means_within_two_percent() {
        let mut rng = Rng::from_seed_words(3, 4);
        for dist in [SizeDist::Exponential(10_000), SizeDist::Geometric(10_000)] {
            let n = 200_000;
            let mean = (0..n).map(|_| dist.sample(&mut rng)).sum::<u64>() as f64 / n as f64;
            // Exponential sizes are rounded up: the mean grows by about half a byte.
            assert!((mean - 10_000.0).abs() < 200.0, "{dist:?}: {mean}");
        }
        assert_eq!(SizeDist::Constant(7).sample(&mut rng), 7);
    }
}
