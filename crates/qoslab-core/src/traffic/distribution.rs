//! Random durations for ON and OFF periods: constant, uniform or exponential.
//!
//! Written `"5s"` (constant), `{uniform: [1s, 18s]}` (the LMR VoIP thesis' push-to-talk:
//! talk 1–18 s, pause 1–75 s) or `{exponential: 10s}` (the ad-hoc report's ON-OFF voice,
//! mean 10 s on, 20 s off). Draws are whole nanoseconds: uniform over the integers in
//! [min, max], exponential by inversion rounded to the nearest nanosecond.

use crate::config::tagged::nested;
use crate::engine::Rng;
use crate::units::{parse_duration_ns, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// A distribution of durations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DurationDist {
    /// Always this long, ns.
    Constant(u64),
    /// Uniform over [min, max] ns.
    Uniform(u64, u64),
    /// Exponential with this mean, ns.
    Exponential(u64),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum DistForm {
    Uniform((Duration, Duration)),
    Exponential(Duration),
}

impl<'de> Deserialize<'de> for DurationDist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(d)?;
        let dist = match value {
            serde_json::Value::String(s) => {
                parse_duration_ns(&s).map(DurationDist::Constant).map_err(D::Error::custom)?
            }
            other => nested::<DistForm>(other)
                .map(|form| match form {
                    DistForm::Uniform((low, high)) => DurationDist::Uniform(low.0, high.0),
                    DistForm::Exponential(mean) => DurationDist::Exponential(mean.0),
                })
                .map_err(D::Error::custom)?,
        };
        match dist {
            DurationDist::Uniform(low, high) if low > high => {
                Err(D::Error::custom("uniform bounds run backwards: write [min, max]"))
            }
            DurationDist::Exponential(0) => Err(D::Error::custom("an exponential mean must be above zero")),
            ok => Ok(ok),
        }
    }
}

impl JsonSchema for DurationDist {
    fn schema_name() -> Cow<'static, str> {
        "DurationDist".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "a duration (\"5s\"), {uniform: [min, max]} or {exponential: mean}",
            "oneOf": [
                {"type": "string"},
                {"type": "object", "properties": {"uniform": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}}, "required": ["uniform"], "additionalProperties": false},
                {"type": "object", "properties": {"exponential": {"type": "string"}}, "required": ["exponential"], "additionalProperties": false}
            ]
        })
    }
}

impl DurationDist {
    /// One draw, ns.
    pub fn sample_ns(&self, rng: &mut Rng) -> u64 {
        match *self {
            DurationDist::Constant(ns) => ns,
            DurationDist::Uniform(low, high) => rng.uniform_u64(low, high),
            DurationDist::Exponential(mean) => rng.exponential_u64(mean),
        }
    }

    /// The mean, ns.
    pub fn mean_ns(&self) -> f64 {
        match *self {
            DurationDist::Constant(ns) => ns as f64,
            DurationDist::Uniform(low, high) => (low as f64 + high as f64) / 2.0,
            DurationDist::Exponential(mean) => mean as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<DurationDist, serde_json::Error> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        serde_json::from_value(value)
    }

    #[test]
    fn forms() {
        assert_eq!(parse("5s").unwrap(), DurationDist::Constant(5_000_000_000));
        assert_eq!(
            parse("{uniform: [1s, 18s]}").unwrap(),
            DurationDist::Uniform(1_000_000_000, 18_000_000_000)
        );
        assert_eq!(parse("{exponential: 10s}").unwrap(), DurationDist::Exponential(10_000_000_000));
        assert!(parse("{uniform: [18s, 1s]}").unwrap_err().to_string().contains("backwards"));
        assert!(parse("{normal: 3s}").unwrap_err().to_string().contains("unknown variant"));
    }

    #[test]
    fn sample_means() {
        let mut rng = Rng::from_seed_words(11, 0);
        for dist in [DurationDist::Uniform(1_000, 75_000), DurationDist::Exponential(20_000)] {
            let n = 100_000;
            let mean = (0..n).map(|_| dist.sample_ns(&mut rng)).sum::<u64>() as f64 / n as f64;
            assert!((mean - dist.mean_ns()).abs() / dist.mean_ns() < 0.01, "{dist:?}: {mean}");
        }
    }
}
