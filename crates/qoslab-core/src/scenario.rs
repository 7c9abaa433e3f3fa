//! Scenarios: the YAML document, its validation with precise error locations, overrides,
//! the JSON Schema, and building a runnable simulation.

pub mod build;
mod build_app;
mod build_flow_tunnels;
mod build_flows;
mod build_interfaces;
mod build_ios;
mod build_measure;
mod build_reconfig;
mod build_routes;
mod build_topology;
pub(crate) mod build_trace;
mod build_tunnels;
mod export_target;
pub mod flow_spec;
pub mod identity;
mod interface_output;
mod ios_export;
pub mod limits;
mod names;
pub mod overlay;
pub mod overrides;
pub mod spec;
pub mod sweep;
mod tc_export;

pub use crate::config::error::{ErrorKind, ScenarioError};
pub use interface_output::interface_output;
pub use ios_export::ios_from_yaml;
pub use limits::Limits;
pub use overlay::VariantSpec;
pub use overrides::Override;
pub use spec::ScenarioSpec;
pub use sweep::SweepPlan;
pub use tc_export::tc_from_yaml;

use crate::config::error::{self, from_serde_message, Issue};
use crate::config::key_path::at_or_below;
use crate::config::tagged::{append_path, path_string, unmark};
use crate::config::yaml::{self, PositionIndex};
use crate::sim::{Input, RunIdentity, Simulation};
use overlay::{OverlayTrace, Place, BASE};
use serde_json::Value;
use std::collections::BTreeMap;

/// Longest scenario text read, bytes (16 MiB: a thousand times the largest example).
pub const MAX_SCENARIO_BYTES: usize = 16 << 20;

/// Most values the scenario and its variants may hold together (each variant is checked
/// as a copy of the scenario): ten times the largest document.
pub const MAX_VARIANT_VALUES: usize = 10 * yaml::MAX_VALUES;

/// Which form of a scenario to load: a variant, overrides on top of it, and replacements of
/// the run's seed and replication. The default is the scenario as written.
#[derive(Clone, Copy, Debug, Default)]
pub struct Selection<'a> {
    /// The variant (a name under `variants:`), applied before the overrides; None or
    /// `base` for the scenario as written.
    pub variant: Option<&'a str>,
    /// Changes applied after the variant, in order.
    pub overrides: &'a [Override],
    /// Replaces `run.seed` when given.
    pub seed: Option<u64>,
    /// Replaces `run.replication` when given.
    pub replication: Option<u64>,
}

/// A scenario read and checked, not built.
struct Read {
    spec: ScenarioSpec,
    located: Located,
    /// The document read into `spec`: the variant and the overrides applied.
    document: Value,
    /// The variants the scenario defines.
    variants: BTreeMap<String, VariantSpec>,
}

/// Reads the variant `variant` of a scenario (None or `base`: the scenario as written), with
/// the overrides applied after it, without building it.
pub fn parse_variant(
    text: &str,
    origin: &str,
    variant: Option<&str>,
    overrides: &[Override],
) -> Result<(ScenarioSpec, Located), ScenarioError> {
    read(text, origin, variant, overrides).map(|read| (read.spec, read.located))
}

/// What a study of the scenario runs: its `sweep:` section, with the YAML text and the
/// place of each value, and the variants it defines. The whole scenario is checked first.
pub fn sweep_plan(text: &str, origin: &str) -> Result<SweepPlan, ScenarioError> {
    let read = read(text, origin, None, &[])?;
    Ok(SweepPlan::new(read.spec.sweep.as_ref(), &read.variants, origin, &read.located.index))
}

/// The YAML text as a document (its `x-` keys dropped) and the positions of its keys.
fn written(text: &str, origin: &str) -> Result<(Value, Located), ScenarioError> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(ScenarioError {
            kind: ErrorKind::Limit,
            origin: origin.into(),
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
        kind: ErrorKind::Syntax,
        origin: origin.into(),
        position: Some(e.position),
        key_path: String::new(),
        message: e.message,
        hint: None,
    })?;
    let located =
        Located { origin: origin.to_owned(), index, overlay: OverlayTrace::default(), overrides: Vec::new() };
    match &document {
        Value::Object(_) => {}
        Value::Null => {
            return Err(located.error(
                Issue::at("", "the scenario is empty")
                    .hint("a scenario is a mapping with `name:`, `run:`, `topology:` and `traffic:`"),
            ))
        }
        _ => {
            return Err(located.error(
                Issue::at("", "a scenario must be a mapping of keys, not a list or a single value")
                    .hint("start with `name:`, `run:`, `topology:` and `traffic:`")
                    .kind(ErrorKind::WrongType),
            ))
        }
    }
    // Top-level keys starting with `x-` are for the writer (YAML anchors to reuse, notes):
    // they are dropped before the document is read, as in other YAML formats.
    if let Value::Object(map) = &mut document {
        map.retain(|key, _| !key.starts_with("x-"));
    }
    Ok((document, located))
}

/// The document's `variants:` section, read and its names checked.
fn variants_of(document: &Value, located: &Located) -> Result<BTreeMap<String, VariantSpec>, ScenarioError> {
    let Some(section) = document.get("variants") else { return Ok(BTreeMap::new()) };
    let variants = serde_path_to_error::deserialize::<_, BTreeMap<String, VariantSpec>>(section.clone())
        .map_err(|e| {
            let (inner_path, message) = unmark(&e.inner().to_string());
            let path = append_path(&append_path("variants", &path_string(e.path())), &inner_path);
            located.error(from_serde_message(path, &message))
        })?;
    for name in variants.keys() {
        let at = format!("variants.{name}");
        if name == BASE {
            return Err(located.error(
                Issue::at(at, "`base` is the scenario as written; no variant may take the name")
                    .hint("rename the variant"),
            ));
        }
        names::check_name(name, "variant", &at).map_err(|issue| located.error(issue))?;
    }
    Ok(variants)
}

/// The values (scalars, lists and mappings) in `value`.
fn count_values(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(count_values).sum(),
        Value::Object(map) => map.values().map(count_values).sum(),
        _ => 0,
    }
}

/// `document` as a scenario; problems are placed by `located`.
fn deserialize(document: Value, located: &Located) -> Result<ScenarioSpec, ScenarioError> {
    if let Some(issue) = control_character(&document, "") {
        return Err(located.error(issue));
    }
    serde_path_to_error::deserialize::<_, ScenarioSpec>(document).map_err(|e| {
        let (inner_path, message) = unmark(&e.inner().to_string());
        let path = append_path(&path_string(e.path()), &inner_path);
        located.error(from_serde_message(path, &message))
    })
}

/// Reads the scenario in `text`, checks it and every variant it defines, and returns the
/// form `variant` with `overrides` applied.
fn read(
    text: &str,
    origin: &str,
    variant: Option<&str>,
    overrides: &[Override],
) -> Result<Read, ScenarioError> {
    let (document, mut located) = written(text, origin)?;
    let variants = variants_of(&document, &located)?;
    let values = count_values(&document);
    if values.saturating_mul(variants.len() + 1) > MAX_VARIANT_VALUES {
        return Err(located.error(
            Issue::at(
                "variants",
                format!(
                    "the scenario has {values} values and {} variants, each checked as a copy of it: more \
                     than the {MAX_VARIANT_VALUES} values allowed in all",
                    variants.len()
                ),
            )
            .hint("define fewer variants, or split them among several scenario files"),
        ));
    }
    let variant = variant.filter(|name| *name != BASE);
    if let Some(name) = variant {
        if !variants.contains_key(name) {
            let known = std::iter::once(BASE).chain(variants.keys().map(String::as_str));
            return Err(located.error(Issue::unknown_name("variants", "variant", name, known)));
        }
    }
    // The scenario as written and every variant must be valid, whichever is run, so that a
    // mistake in one not run now is found now.
    let base = deserialize(document.clone(), &located)?;
    if let Some(sweep) = &base.sweep {
        sweep.check(&variants).map_err(|issue| located.error(issue))?;
    }
    let mut chosen = None;
    for (name, overlay) in &variants {
        let mut changed = document.clone();
        let trace = overlay::apply(&mut changed, name, overlay).map_err(|issue| located.error(issue))?;
        located.overlay = trace;
        deserialize(changed.clone(), &located)?;
        if variant == Some(name.as_str()) {
            chosen = Some((changed, std::mem::take(&mut located.overlay)));
        }
    }
    located.overlay = OverlayTrace::default();
    let mut document = match chosen {
        Some((changed, trace)) => {
            located.overlay = trace;
            changed
        }
        None if overrides.is_empty() => return Ok(Read { spec: base, located, document, variants }),
        None => document,
    };
    for change in overrides {
        let written =
            overrides::apply(&mut document, change).map_err(|issue| located.at_override(change, issue))?;
        located.overrides.push((change.clone(), written));
    }
    let spec = deserialize(document.clone(), &located)?;
    Ok(Read { spec, located, document, variants })
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
    load_selected(text, origin, &Selection { overrides, seed, ..Selection::default() }, limits)
}

/// Reads, validates and builds the form of the scenario that `selection` chooses, within
/// `limits`. The simulation carries the run's identity: the SHA-256 of the effective
/// scenario and of the files its build read (see `docs/variants.md`), the overrides and the variant.
pub fn load_selected(
    text: &str,
    origin: &str,
    selection: &Selection,
    limits: &Limits,
) -> Result<Simulation, ScenarioError> {
    let Read { mut spec, located, document, .. } =
        read(text, origin, selection.variant, selection.overrides)?;
    if let Some(replication) = selection.replication {
        spec.run.replication = Some(replication);
    }
    let base_dir = base_dir(origin);
    let (built, opened) =
        crate::config::user_file::recording(|| build::build(&spec, selection.seed, &base_dir, limits));
    let mut simulation = built.map_err(|issue| located.error(issue))?;
    let (seed, replication) = (simulation.run.seed, simulation.run.replication);
    let scenario_sha256 = identity::scenario_sha256(&document, seed, replication, &opened.files)
        .map_err(|issue| located.error(issue))?;
    simulation.run.inputs =
        std::iter::once(Input { kind: "scenario", path: origin.to_owned(), text: text.to_owned() })
            .chain(opened.texts.into_iter().map(|(path, text)| Input {
                kind: "ios",
                path: path.display().to_string(),
                text,
            }))
            .collect();
    simulation.run.identity = RunIdentity {
        scenario_sha256,
        overrides: selection.overrides.iter().map(|o| format!("{}={}", o.key_path, o.value)).collect(),
        variant: selection.variant.filter(|name| *name != BASE).map(str::to_owned),
    };
    Ok(simulation)
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
/// document's keys, where the variant applied put what it wrote, and the overrides applied
/// (each with the key path it wrote, in the document's own form: `[i]` where it indexed a
/// list, `.key` where it named a key).
pub struct Located {
    origin: String,
    index: PositionIndex,
    overlay: OverlayTrace,
    overrides: Vec<(Override, String)>,
}

impl Located {
    /// Places `issue`: in the `--set` that supplied the value — the last one that wrote the
    /// value at fault or a value inside it, or that wrote inside it a value the file does
    /// not have (a key or a mapping the `--set` created makes its parent wrong, not the
    /// file) — or else in the file: at the variant's entry that wrote the value, or where
    /// the scenario as written has it.
    pub fn error(&self, issue: Issue) -> ScenarioError {
        let from_override = self.overrides.iter().rev().find(|(_, written)| {
            at_or_below(&issue.key_path, written)
                || (at_or_below(written, &issue.key_path) && !self.index.has(&self.source_path(written)))
        });
        match from_override {
            Some((change, _)) => self.at_override(change, issue),
            None => Issue { key_path: self.source_path(&issue.key_path), ..issue }
                .locate(&self.origin, &self.index),
        }
    }

    /// The key path in the text of the value at `path` of the document read.
    fn source_path(&self, path: &str) -> String {
        match self.overlay.place(path) {
            Place::Written(path) | Place::Overlay(path) => path,
        }
    }

    /// Places `issue` in the `--set` `change`, or at the place its source names.
    fn at_override(&self, change: &Override, issue: Issue) -> ScenarioError {
        let origin = match &change.source {
            Some(source) => source.clone(),
            None => format!("{} (--set {}={})", self.origin, change.key_path, change.value),
        };
        ScenarioError {
            kind: issue.kind,
            origin: origin.into(),
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
    // The current folder is the empty path, so that a file named next to a scenario in the
    // current folder is named as written (`mpeg4.csv`, not `./mpeg4.csv`).
    if origin.starts_with('<') {
        return std::path::PathBuf::new();
    }
    match std::path::Path::new(origin).parent() {
        Some(parent) => parent.to_path_buf(),
        None => std::path::PathBuf::new(),
    }
}

#[cfg(test)]
mod run_loop_tests;

#[cfg(test)]
mod tests {
    use super::load;

    /// TCP transfers, one after another on the same endpoints, over a lossy link that
    /// fragments (LFI) into a short queue, so segments are delivered, tail-dropped, lost by
    /// the link whole or by a fragment. Throughout a long run every slot of the segment
    /// store belongs to a packet still on the network (all packets here are segments), and
    /// the store stays as large as the most segments on the network at once, however long
    /// the run.
    #[test]
    fn segment_slots_are_freed_when_their_packets_leave_and_the_store_does_not_grow() {
        let text = "name: segments
run: {duration: 600s, seed: 3}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 512kbps, delay: 20ms, l2: ppp, loss: 1%}]
interfaces:
  a: {b: {lfi: {fragment_delay: 10ms}, output: {kind: fifo, limit: 20}}}
traffic:
  - {name: ftp, from: a, to: b, app: {kind: bulk, size: {exponential: 200kB}, transfers: 0}}
";
        let mut sim = load(text, "<test>", &[], None).unwrap_or_else(|e| panic!("{e}"));
        let mut capacity_at_60s = 0;
        for step in 1..=60u64 {
            sim.advance(step * 10_000_000_000);
            let held = sim.net.packets_held();
            assert_eq!(sim.net.segments.in_use_segments() as u64, held, "at {} s", step * 10);
            if step == 6 {
                capacity_at_60s = sim.net.segments.capacity_segments();
            }
        }
        let t = &sim.net.counts;
        assert!(t.dropped > 100 && t.delivered > 10_000, "{t:?}");
        let capacity = sim.net.segments.capacity_segments();
        assert_eq!(capacity, capacity_at_60s, "slots made by 60 s, then by 600 s");
    }
}
