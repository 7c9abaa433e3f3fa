//! Random frame loss on a link direction: independent (Bernoulli) or bursty (Gilbert–Elliott).
//!
//! * `loss: 1%` — each frame is lost with probability 1 %, independently.
//! * `loss: {gilbert_elliott: {p: 1%, r: 25%, good_loss: 0%, bad_loss: 100%}}` — a two-state
//!   Markov chain advanced once per frame: from Good to Bad with probability p, from Bad
//!   back to Good with probability r; a frame is lost with probability `good_loss` in Good
//!   and `bad_loss` in Bad (Gilbert 1960, Elliott 1963). The chain spends r/(p + r) of the
//!   frames in Good, so the mean loss is (r·good_loss + p·bad_loss)/(p + r) and, with
//!   `bad_loss` 100 %, bursts last 1/r frames on average.
//!
//! The frame is lost after its transmission, on arrival at the far end, so it still used the
//! wire. Each direction draws from its own seeded stream.

use crate::config::tagged::nested;
use crate::engine::Rng;
use crate::units::{parse_percent_ppm, Percent};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// Parts per million in one.
const PPM: u64 = 1_000_000;

/// The Gilbert–Elliott parameters as written.
#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliott {
    /// Good → Bad transition probability per frame.
    pub p: Percent,
    /// Bad → Good transition probability per frame.
    pub r: Percent,
    /// Loss probability in Good (default 0 %).
    #[serde(default = "zero")]
    pub good_loss: Percent,
    /// Loss probability in Bad (default 100 %).
    #[serde(default = "all")]
    pub bad_loss: Percent,
}

fn zero() -> Percent {
    Percent(0)
}

fn all() -> Percent {
    Percent(PPM)
}

/// A loss model as written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossSpec {
    /// Independent loss with this probability (ppm).
    Bernoulli(u64),
    /// Bursty loss.
    GilbertElliott(GilbertElliott),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum LossForm {
    GilbertElliott(GilbertElliott),
}

impl<'de> Deserialize<'de> for LossSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(d)?;
        let spec = match value {
            serde_json::Value::String(s) => {
                parse_percent_ppm(&s).map(LossSpec::Bernoulli).map_err(D::Error::custom)?
            }
            serde_json::Value::Number(n) => {
                return Err(D::Error::custom(format!(
                    "`{n}` has no unit: write a percentage such as \"{n}%\""
                )))
            }
            other => nested::<LossForm>(other)
                .map(|LossForm::GilbertElliott(ge)| LossSpec::GilbertElliott(ge))
                .map_err(D::Error::custom)?,
        };
        let probabilities = match spec {
            LossSpec::Bernoulli(ppm) => vec![ppm],
            LossSpec::GilbertElliott(ge) => vec![ge.p.0, ge.r.0, ge.good_loss.0, ge.bad_loss.0],
        };
        if probabilities.iter().any(|&ppm| ppm > PPM) {
            return Err(D::Error::custom("a probability is at most 100%"));
        }
        if let LossSpec::GilbertElliott(ge) = spec {
            if ge.r.0 == 0 && ge.p.0 > 0 {
                return Err(D::Error::custom("with r = 0% the Bad state is never left: give r above 0%"));
            }
        }
        Ok(spec)
    }
}

impl JsonSchema for LossSpec {
    fn schema_name() -> Cow<'static, str> {
        "LossSpec".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "a loss probability (\"1%\") or {gilbert_elliott: {p, r, good_loss, bad_loss}}",
            "oneOf": [{"type": "string"}, {"type": "object"}]
        })
    }
}

/// The running loss model of one link direction.
#[derive(Clone, Debug)]
pub struct LinkLoss {
    spec: LossSpec,
    bad: bool,
    rng: Rng,
}

impl LinkLoss {
    /// The model `spec`, drawing from `rng`; it starts in Good.
    pub fn new(spec: LossSpec, rng: Rng) -> Self {
        LinkLoss { spec, bad: false, rng }
    }

    /// 64-bit random outputs the model has drawn so far.
    pub fn random_draws(&self) -> u64 {
        self.rng.draws()
    }

    fn chance(&mut self, ppm: u64) -> bool {
        ppm > 0 && (ppm >= PPM || self.rng.uniform_u64(0, PPM - 1) < ppm)
    }

    /// Whether the next frame is lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self.spec {
            LossSpec::Bernoulli(ppm) => self.chance(ppm),
            LossSpec::GilbertElliott(ge) => {
                let flip = if self.bad { ge.r.0 } else { ge.p.0 };
                if self.chance(flip) {
                    self.bad = !self.bad;
                }
                let loss = if self.bad { ge.bad_loss.0 } else { ge.good_loss.0 };
                self.chance(loss)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(yaml: &str) -> Result<LossSpec, serde_json::Error> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        serde_json::from_value(value)
    }

    #[test]
    fn forms_and_errors() {
        assert_eq!(spec("1%").unwrap(), LossSpec::Bernoulli(10_000));
        let ge = spec("{gilbert_elliott: {p: 1%, r: 25%}}").unwrap();
        assert_eq!(
            ge,
            LossSpec::GilbertElliott(GilbertElliott {
                p: Percent(10_000),
                r: Percent(250_000),
                good_loss: Percent(0),
                bad_loss: Percent(PPM)
            })
        );
        assert!(spec("150%").unwrap_err().to_string().contains("at most 100%"));
        assert!(spec("0.01").unwrap_err().to_string().contains("no unit"));
        assert!(spec("{gilbert_elliott: {p: 1%, r: 0%}}").unwrap_err().to_string().contains("never left"));
    }

    #[test]
    fn long_run_loss_rates() {
        let n = 400_000;
        let mut bernoulli = LinkLoss::new(LossSpec::Bernoulli(20_000), Rng::from_seed_words(1, 1));
        let lost = (0..n).filter(|_| bernoulli.lose()).count() as f64 / n as f64;
        assert!((lost - 0.02).abs() < 0.001, "{lost}");
        // p 1 %, r 25 %, Bad loses all: mean loss 0.01 / 0.26 = 3.85 %, bursts of 4 frames.
        let ge = spec("{gilbert_elliott: {p: 1%, r: 25%}}").unwrap();
        let mut model = LinkLoss::new(ge, Rng::from_seed_words(2, 2));
        let outcomes: Vec<bool> = (0..n).map(|_| model.lose()).collect();
        let lost = outcomes.iter().filter(|&&l| l).count() as f64 / n as f64;
        assert!((lost - 0.01 / 0.26).abs() < 0.002, "{lost}");
        let bursts = outcomes.windows(2).filter(|w| w[1] && !w[0]).count() as f64;
        let mean_burst = lost * n as f64 / bursts;
        assert!((mean_burst - 4.0).abs() < 0.2, "{mean_burst}");
    }
}
