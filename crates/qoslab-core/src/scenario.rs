//! Scenarios: the YAML document, its validation with precise error locations, overrides,
//! the JSON Schema, and building a runnable simulation.

pub mod build;
mod build_app;
mod build_ios;
mod build_measure;
mod build_reconfig;
mod build_tunnels;
pub mod error;
pub mod limits;
pub mod one_or_many;
pub mod overrides;
pub mod scalar;
pub mod spec;
pub mod suggest;
pub mod tagged;
pub mod yaml;

pub use error::ScenarioError;
pub use limits::Limits;
pub use overrides::Override;
pub use spec::ScenarioSpec;

use crate::sim::Simulation;
use error::{from_serde_message, Issue};
use tagged::{append_path, path_string, unmark};
use yaml::PositionIndex;

/// Longest scenario text read, bytes (16 MiB: a thousand times the largest example).
pub const MAX_SCENARIO_BYTES: usize = 16 << 20;

/// Reads a scenario without building it (for `validate`-style checks of the document).
pub fn parse(
    text: &str,
    origin: &str,
    overrides: &[Override],
) -> Result<(ScenarioSpec, Located), ScenarioError> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(ScenarioError {
            origin: origin.to_owned(),
            position: None,
            key_path: String::new(),
            message: format!(
                "the scenario is {} bytes, more than the {} MiB a scenario may have",
                text.len(),
                MAX_SCENARIO_BYTES >> 20
            ),
            hint: Some("check that this is the scenario file; put long traces in CSV files".into()),
        });
    }
    let (mut document, index) = yaml::parse(text).map_err(|e| ScenarioError {
        origin: origin.to_owned(),
        position: Some(e.position),
        key_path: String::new(),
        message: e.message,
        hint: None,
    })?;
    let mut located = Located { origin: origin.to_owned(), index, overrides: Vec::new() };
    match &document {
        serde_json::Value::Object(_) => {}
        serde_json::Value::Null => {
            return Err(located.error(
                Issue::at("", "the scenario is empty")
                    .hint("a scenario is a mapping with `name:`, `run:`, `topology:` and `traffic:`"),
            ))
        }
        _ => {
            return Err(located.error(
                Issue::at("", "a scenario must be a mapping of keys, not a list or a single value")
                    .hint("start with `name:`, `run:`, `topology:` and `traffic:`"),
            ))
        }
    }
    // Top-level keys starting with `x-` are for the writer (YAML anchors to reuse, notes):
    // they are dropped before the document is read, as in other YAML formats.
    if let serde_json::Value::Object(map) = &mut document {
        map.retain(|key, _| !key.starts_with("x-"));
    }
    for change in overrides {
        let written =
            overrides::apply(&mut document, change).map_err(|issue| located.at_override(change, issue))?;
        located.overrides.push((change.clone(), written));
    }
    if let Some(issue) = control_character(&document, "") {
        return Err(located.error(issue));
    }
    let spec = serde_path_to_error::deserialize::<_, ScenarioSpec>(document).map_err(|e| {
        let (inner_path, message) = unmark(&e.inner().to_string());
        let path = append_path(&path_string(e.path()), &inner_path);
        located.error(from_serde_message(path, &message))
    })?;
    Ok((spec, located))
}

/// Reads, validates and builds a scenario within the default [`Limits`]. `origin` names the
/// source in error messages; `seed` replaces the scenario's seed when given.
pub fn load(
    text: &str,
    origin: &str,
    overrides: &[Override],
    seed: Option<u64>,
) -> Result<Simulation, ScenarioError> {
    load_within(text, origin, overrides, seed, &Limits::default())
}

/// [`load`] with the memory and work a run may take set by `limits`.
pub fn load_within(
    text: &str,
    origin: &str,
    overrides: &[Override],
    seed: Option<u64>,
    limits: &Limits,
) -> Result<Simulation, ScenarioError> {
    let (spec, located) = parse(text, origin, overrides)?;
    build::build(&spec, seed, &base_dir(origin), limits).map_err(|issue| located.error(issue))
}

/// The first key or string value that holds a control character other than tab and line
/// breaks — one written as an escape in a double-quoted string, or given in a dict or a
/// `--set` — since names and notes reach terminals and file names.
fn control_character(value: &serde_json::Value, path: &str) -> Option<Issue> {
    let bad = |text: &str| text.chars().find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'));
    match value {
        serde_json::Value::String(text) => bad(text).map(|c| {
            Issue::at(path, format!("the text holds the control character U+{:04X}", c as u32))
                .hint("remove it: names and notes must be printable")
        }),
        serde_json::Value::Array(items) => {
            items.iter().enumerate().find_map(|(i, item)| control_character(item, &format!("{path}[{i}]")))
        }
        serde_json::Value::Object(map) => map.iter().find_map(|(key, item)| {
            let child = error::join_path(path, key);
            match bad(key) {
                Some(c) => Some(
                    Issue::at(&child, format!("the key holds the control character U+{:04X}", c as u32))
                        .hint("remove it: keys must be printable"),
                ),
                None => control_character(item, &child),
            }
        }),
        _ => None,
    }
}

/// What turns a key path into a place in the source: the origin, the positions of the
/// document's keys, and the overrides applied (each with the key path it wrote, in the
/// document's own form: `[i]` where it indexed a list, `.key` where it named a key).
pub struct Located {
    origin: String,
    index: PositionIndex,
    overrides: Vec<(Override, String)>,
}

/// Whether `path` is `ancestor` or lies below it.
fn at_or_below(path: &str, ancestor: &str) -> bool {
    path.strip_prefix(ancestor).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

impl Located {
    /// Places `issue`: in the file, or in the `--set` that supplied the value — the last one
    /// that wrote the value at fault or a value inside it, or that wrote inside it a value
    /// the file does not have (a key or a mapping the `--set` created makes its parent
    /// wrong, not the file).
    pub fn error(&self, issue: Issue) -> ScenarioError {
        let from_override = self.overrides.iter().rev().find(|(_, written)| {
            at_or_below(&issue.key_path, written)
                || (at_or_below(written, &issue.key_path) && !self.index.has(written))
        });
        match from_override {
            Some((change, _)) => self.at_override(change, issue),
            None => issue.locate(&self.origin, &self.index),
        }
    }

    /// Places `issue` in the `--set` `change`.
    fn at_override(&self, change: &Override, issue: Issue) -> ScenarioError {
        ScenarioError {
            origin: format!("{} (--set {}={})", self.origin, change.key_path, change.value),
            position: None,
            key_path: issue.key_path,
            message: issue.message,
            hint: issue.hint,
        }
    }
}

/// The JSON Schema of the scenario format, as pretty JSON.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(ScenarioSpec);
    serde_json::to_string_pretty(&schema).expect("the schema serializes")
}

/// The folder relative file names in a scenario are read from: the scenario file's folder,
/// or the current folder for a scenario that is not a file (an origin such as `<dict>`).
fn base_dir(origin: &str) -> std::path::PathBuf {
    if origin.starts_with('<') {
        return std::path::PathBuf::from(".");
    }
    match std::path::Path::new(origin).parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    }
}
