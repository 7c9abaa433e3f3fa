//! The `sweep:` section: which runs a study of the scenario makes — values of key paths
//! (each a `--set`), variants and replications. A single run ignores it; every load checks
//! it, and [`SweepPlan`] hands it to the program that makes the runs, with the place each
//! value was written so that an error in a run names it.

use super::overlay::{VariantSpec, BASE};
use crate::config::error::Issue;
use crate::config::key_path::segments;
use crate::config::yaml::{to_flow_text, PositionIndex};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Most replications a sweep may ask for.
pub const MAX_REPLICATIONS: u64 = 10_000;

/// The runs of a study of this scenario (ignored by a single run, always checked).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Values to try, by key path in the `--set` form (`interfaces.r1.r2.output`,
    /// `topology.links.1.rate`): each a non-empty list of values written as they would be
    /// given to `--set` (scalars or flow collections). Every combination is run, except
    /// for keys tied together by `zip`.
    #[serde(default)]
    pub vary: BTreeMap<String, Vec<Value>>,
    /// Groups of `vary` keys that change together: the i-th run of a group takes the i-th
    /// value of each key, so their lists must be equally long. A key is in one group at most.
    #[serde(default)]
    pub zip: Vec<Vec<String>>,
    /// The variants to run, `base` meaning the scenario as written.
    #[schemars(length(min = 1))]
    pub variants: Option<Vec<String>>,
    /// Runs of each combination, each with its own replication number (1 to 10000).
    #[schemars(range(min = 1, max = 10000))]
    pub replications: Option<u64>,
}

impl SweepSpec {
    /// Checks the section against the scenario's `variants`.
    pub fn check(&self, variants: &BTreeMap<String, VariantSpec>) -> Result<(), Issue> {
        for (key, values) in &self.vary {
            let at = format!("sweep.vary.{key}");
            let parts = segments(key);
            if parts.is_empty() {
                return Err(
                    Issue::at(at, "the key names nothing").hint("write a key path such as `run.seed`")
                );
            }
            if ["sweep", "variants"].contains(&parts[0]) {
                return Err(Issue::at(at, format!("`{}` cannot be varied", parts[0]))
                    .hint("vary values of the scenario itself, and list variants under `sweep.variants`"));
            }
            if values.is_empty() {
                return Err(Issue::at(at, "no values to try")
                    .hint("list at least one value, e.g. `[128kbps, 256kbps]`"));
            }
        }
        let mut grouped: BTreeMap<&str, usize> = BTreeMap::new();
        for (g, group) in self.zip.iter().enumerate() {
            let at = format!("sweep.zip[{g}]");
            if group.len() < 2 {
                return Err(Issue::at(at, "a group ties two or more keys together")
                    .hint("list two or more keys of `sweep.vary`, or remove the group"));
            }
            let first = &group[0];
            for (k, key) in group.iter().enumerate() {
                let at = format!("{at}[{k}]");
                let Some(values) = self.vary.get(key) else {
                    return Err(Issue::unknown_name(
                        at,
                        "key of sweep.vary",
                        key,
                        self.vary.keys().map(String::as_str),
                    ));
                };
                if let Some(other) = grouped.insert(key, g) {
                    return Err(Issue::at(at, format!("`{key}` is already in sweep.zip[{other}]"))
                        .hint("a key may be in one group only: merge the groups"));
                }
                let expected = self.vary.get(first).map_or(0, Vec::len);
                if values.len() != expected {
                    return Err(Issue::at(
                        at,
                        format!("`{key}` has {} values and `{first}` has {expected}", values.len()),
                    )
                    .hint("keys of a group take their values together: give them equally long lists"));
                }
            }
        }
        if let Some(names) = &self.variants {
            if names.is_empty() {
                return Err(Issue::at("sweep.variants", "no variants to run")
                    .hint("list `base` and the variants to run, or remove the key"));
            }
            let known: Vec<&str> = std::iter::once(BASE).chain(variants.keys().map(String::as_str)).collect();
            for (i, name) in names.iter().enumerate() {
                let at = format!("sweep.variants[{i}]");
                if !known.contains(&name.as_str()) {
                    return Err(Issue::unknown_name(at, "variant", name, known.iter().copied()));
                }
                if names[..i].contains(name) {
                    return Err(
                        Issue::at(at, format!("`{name}` is listed twice")).hint("list each variant once")
                    );
                }
            }
        }
        if let Some(n) = self.replications {
            if !(1..=MAX_REPLICATIONS).contains(&n) {
                return Err(Issue::at(
                    "sweep.replications",
                    format!("{n} replications: a sweep runs 1 to {MAX_REPLICATIONS}"),
                )
                .hint("give a whole number from 1 to 10000"));
            }
        }
        Ok(())
    }
}

/// One value of a varied key, as the program making the runs needs it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PlannedValue {
    /// The value as YAML text: exactly what a `--set` value would be.
    pub value: String,
    /// Where it was written: `origin:line:column` (the origin alone without a position).
    pub location: String,
    /// Its key path: `sweep.vary.KEY[i]`.
    pub key_path: String,
    /// `location: key_path`, the label to give the override so that an error in the value
    /// names the place it was written.
    pub source: String,
}

/// A varied key and its values.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PlannedKey {
    /// The key path, in the `--set` form.
    pub key: String,
    /// Its values in the order written.
    pub values: Vec<PlannedValue>,
}

/// What a study of the scenario runs, from its `sweep:` section (empty without one).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SweepPlan {
    /// The varied keys, by key path.
    pub vary: Vec<PlannedKey>,
    /// Groups of keys that change together.
    pub zip: Vec<Vec<String>>,
    /// The variants to run (`base`: the scenario as written); None when not given.
    pub variants: Option<Vec<String>>,
    /// Runs of each combination; None when not given.
    pub replications: Option<u64>,
    /// Every variant the scenario defines, by name.
    pub defined_variants: Vec<String>,
}

impl SweepPlan {
    /// The plan of `sweep` (checked) for a scenario from `origin` whose positions are
    /// `index` and whose variants are `variants`.
    pub fn new(
        sweep: Option<&SweepSpec>,
        variants: &BTreeMap<String, VariantSpec>,
        origin: &str,
        index: &PositionIndex,
    ) -> SweepPlan {
        let place = |key_path: &str| match index.find(key_path) {
            Some(p) if !origin.starts_with('<') => format!("{origin}:{}:{}", p.line, p.column),
            _ => origin.to_owned(),
        };
        let vary = sweep.map_or_else(Vec::new, |s| {
            s.vary
                .iter()
                .map(|(key, values)| PlannedKey {
                    key: key.clone(),
                    values: values
                        .iter()
                        .enumerate()
                        .map(|(i, value)| {
                            let key_path = format!("sweep.vary.{key}[{i}]");
                            let location = place(&key_path);
                            PlannedValue {
                                value: to_flow_text(value),
                                source: format!("{location}: {key_path}"),
                                location,
                                key_path,
                            }
                        })
                        .collect(),
                })
                .collect()
        });
        SweepPlan {
            vary,
            zip: sweep.map_or_else(Vec::new, |s| s.zip.clone()),
            variants: sweep.and_then(|s| s.variants.clone()),
            replications: sweep.and_then(|s| s.replications),
            defined_variants: variants.keys().cloned().collect(),
        }
    }

    /// The plan as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a plan serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sweep(value: Value) -> SweepSpec {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn bad_sections_are_refused_at_their_key() {
        let variants: BTreeMap<String, VariantSpec> = [("llq".to_owned(), VariantSpec::default())].into();
        let cases = [
            (json!({"vary": {"run.seed": []}}), "sweep.vary.run.seed", "no values"),
            (
                json!({"vary": {"sweep.replications": [1]}}),
                "sweep.vary.sweep.replications",
                "cannot be varied",
            ),
            (json!({"vary": {"a": [1, 2]}, "zip": [["a"]]}), "sweep.zip[0]", "two or more"),
            (
                json!({"vary": {"a": [1, 2], "b": [1]}, "zip": [["a", "b"]]}),
                "sweep.zip[0][1]",
                "has 1 values",
            ),
            (
                json!({"vary": {"a": [1], "b": [1]}, "zip": [["a", "c"]]}),
                "sweep.zip[0][1]",
                "unknown key of sweep.vary",
            ),
            (
                json!({"vary": {"a": [1], "b": [1], "c": [2]}, "zip": [["a", "b"], ["c", "a"]]}),
                "sweep.zip[1][1]",
                "already in sweep.zip[0]",
            ),
            (json!({"variants": ["base", "llg"]}), "sweep.variants[1]", "unknown variant `llg`"),
            (json!({"variants": ["llq", "llq"]}), "sweep.variants[1]", "listed twice"),
            (json!({"variants": []}), "sweep.variants", "no variants"),
            (json!({"replications": 0}), "sweep.replications", "1 to 10000"),
            (json!({"replications": 10001}), "sweep.replications", "1 to 10000"),
        ];
        for (value, at, message) in cases {
            let issue = sweep(value.clone()).check(&variants).unwrap_err();
            assert_eq!(issue.key_path, at, "{value}");
            assert!(issue.message.contains(message), "{value}: {}", issue.message);
        }
        let good = json!({"vary": {"a": [1, 2], "b": ["x", "y"]}, "zip": [["a", "b"]], "variants": ["base", "llq"], "replications": 10000});
        assert!(sweep(good).check(&variants).is_ok());
    }
}
