//! Variants: named overlays that change the structure of a scenario — remove a flow, a
//! policy or a link, replace a value with any other, add entries and keys — where `--set`
//! can only change one value at a time.
//!
//! Every path of an overlay names a place in the scenario as written (list entries by index
//! or by their `name`, see [`crate::config::key_path`]), so the changes do not depend on each
//! other's order: what is replaced and what is removed must not overlap, and additions go
//! into what neither touches. The overlay is then applied as replacements, removals, and
//! additions last (appended after a list's last remaining entry, new keys in a mapping), so
//! a name removed may be added again.
//!
//! Applying an overlay returns an [`OverlayTrace`]: for a key path of the changed document,
//! the place it came from — a path of the file as written, or the overlay entry that wrote
//! it — so that any later error is placed where its cause was written.

use crate::config::error::Issue;
use crate::config::key_path::{at_or_below, list_position, push, render, segments, steps, Step};
use crate::config::suggest::nearest;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Changes that turn the scenario into a variant of it. Paths are written as in `--set`
/// (`topology.nodes.r3`, `interfaces.r1.r2.output`, `topology.links.1`), and a list entry
/// may also be named by its `name` (`traffic.voice`); all of them name places in the
/// scenario as written.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    /// What to delete: list entries (by `name` or index) and mapping keys
    /// (`policies.voice`, `interfaces.r1.r2`).
    #[serde(default)]
    pub remove: Vec<String>,
    /// Values to replace, by path: the path must exist; the new value may be anything the
    /// place accepts (a policy name or a whole policy, a list, a mapping).
    #[serde(default)]
    pub replace: BTreeMap<String, Value>,
    /// What to add, by path: a list of entries to append to a list (`traffic`,
    /// `topology.links`), or a mapping of new keys for a mapping (`topology.nodes`,
    /// `policies`). A path whose last key is missing from its mapping is created with the
    /// value given. An entry or key whose name exists already is an error.
    #[serde(default)]
    pub add: BTreeMap<String, Value>,
}

/// The name that means the scenario as written; no variant may take it.
pub const BASE: &str = "base";

/// Top-level keys an overlay may not touch: they describe the scenario's forms, not one.
const SECTIONS: [&str; 2] = ["variants", "sweep"];

/// Where a value of a changed document came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// The key path of the value in the scenario as written.
    Written(String),
    /// The key path of the overlay entry that wrote it (or wrote a value holding it).
    Overlay(String),
}

/// Where each element of a list whose entries were removed or added came from.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Slot {
    Written(usize),
    Overlay(String),
}

/// The places the values of a document changed by an overlay came from.
#[derive(Clone, Debug, Default)]
pub struct OverlayTrace {
    /// Lists whose entries were removed or added, by their path as written.
    lists: HashMap<String, Vec<Slot>>,
    /// Values the overlay wrote (replaced values, added keys), by path as written.
    written_over: HashMap<String, String>,
}

impl OverlayTrace {
    /// Where the value at `path` (in the changed document) came from.
    pub fn place(&self, path: &str) -> Place {
        let all = steps(path);
        let mut written = String::new();
        for (n, step) in all.iter().enumerate() {
            let rest = || render_below(&all[n + 1..]);
            match (step, self.lists.get(&written)) {
                (Step::Index(i), Some(slots)) => match slots.get(*i) {
                    Some(Slot::Written(j)) => push(&mut written, &Step::Index(*j)),
                    Some(Slot::Overlay(at)) => return Place::Overlay(format!("{at}{}", rest())),
                    None => push(&mut written, step),
                },
                _ => push(&mut written, step),
            }
            if let Some(at) = self.written_over.get(&written) {
                return Place::Overlay(format!("{at}{}", rest()));
            }
        }
        Place::Written(written)
    }

    /// The index the element written at `written_index` of the list at `list` (a path as
    /// written) has now.
    fn now_index(&self, list: &str, written_index: usize) -> usize {
        match self.lists.get(list) {
            Some(slots) => {
                slots.iter().position(|s| *s == Slot::Written(written_index)).unwrap_or(written_index)
            }
            None => written_index,
        }
    }

    /// `steps` (a path as written) as a path of the changed document.
    fn now(&self, written: &[Step]) -> Vec<Step> {
        let mut list = String::new();
        written
            .iter()
            .map(|step| {
                let now = match step {
                    Step::Index(i) => Step::Index(self.now_index(&list, *i)),
                    key => key.clone(),
                };
                push(&mut list, step);
                now
            })
            .collect()
    }
}

/// `steps` as a suffix to append to a path: `[2].rate`, `.rate`.
fn render_below(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Index(i) => out.push_str(&format!("[{i}]")),
            Step::Key(key) => out.push_str(&format!(".{key}")),
        }
    }
    out
}

/// A path of the overlay resolved in the scenario as written.
struct Target {
    /// The overlay entry's own key path (`variants.NAME.remove[0]`).
    at: String,
    steps: Vec<Step>,
    /// `steps` in the document's form.
    path: String,
    /// Whether the value exists (only an addition may name a missing last key).
    exists: bool,
}

/// Resolves `text` in `document`; `at` is the overlay entry's key path. A missing last key
/// of a mapping is allowed when `may_be_missing`.
fn resolve(document: &Value, text: &str, at: &str, may_be_missing: bool) -> Result<Target, Issue> {
    let parts = segments(text);
    if parts.is_empty() {
        return Err(
            Issue::at(at, format!("`{text}` names nothing")).hint("write a path such as `traffic.voice`")
        );
    }
    if SECTIONS.contains(&parts[0]) {
        return Err(Issue::at(at, format!("a variant cannot change `{}`", parts[0]))
            .hint("a variant changes the scenario itself: name a place such as `traffic` or `policies`"));
    }
    let mut node = document;
    let mut found = Vec::new();
    for (n, part) in parts.iter().enumerate() {
        let shown = || {
            let path = render(&found);
            if path.is_empty() {
                "the scenario".to_owned()
            } else {
                format!("`{path}`")
            }
        };
        match node {
            Value::Array(items) => {
                let i = list_position(items, part, at)
                    .map_err(|issue| Issue { message: format!("{}: {}", shown(), issue.message), ..issue })?;
                found.push(Step::Index(i));
                node = &items[i];
            }
            Value::Object(map) => match map.get(*part) {
                Some(child) => {
                    found.push(Step::Key((*part).to_owned()));
                    node = child;
                }
                None if may_be_missing && n + 1 == parts.len() => {
                    found.push(Step::Key((*part).to_owned()));
                    return Ok(Target {
                        at: at.to_owned(),
                        path: render(&found),
                        steps: found,
                        exists: false,
                    });
                }
                None => {
                    let keys: Vec<&str> = map.keys().map(String::as_str).collect();
                    let issue = Issue::at(at, format!("{} has no key `{part}`", shown()));
                    return Err(match nearest(part, keys.iter().copied()) {
                        Some(best) => {
                            issue.hint(format!("did you mean `{best}`? (keys: {})", keys.join(", ")))
                        }
                        None if keys.is_empty() => {
                            issue.hint("the path must name something the scenario has")
                        }
                        None => issue.hint(format!("its keys: {}", keys.join(", "))),
                    });
                }
            },
            _ => {
                return Err(Issue::at(at, format!("{} is a single value: it has no `{part}`", shown()))
                    .hint("shorten the path to the value itself"))
            }
        }
    }
    Ok(Target { at: at.to_owned(), path: render(&found), steps: found, exists: true })
}

/// The value at `steps` (which exist).
fn get_mut<'a>(document: &'a mut Value, steps: &[Step]) -> &'a mut Value {
    steps.iter().fold(document, |node, step| match step {
        Step::Key(key) => node.get_mut(key.as_str()).expect("a resolved path exists"),
        Step::Index(i) => node.get_mut(*i).expect("a resolved path exists"),
    })
}

/// The first earlier target that overlaps `target` (one lies at or below the other).
fn overlap<'a>(target: &Target, earlier: &'a [Target]) -> Option<&'a Target> {
    earlier.iter().find(|e| at_or_below(&target.path, &e.path) || at_or_below(&e.path, &target.path))
}

/// Applies the variant `name`'s `overlay` to `document`. An issue is placed at the overlay
/// entry at fault.
pub fn apply(document: &mut Value, name: &str, overlay: &VariantSpec) -> Result<OverlayTrace, Issue> {
    let base = format!("variants.{name}");
    let mut removed: Vec<Target> = Vec::new();
    for (i, text) in overlay.remove.iter().enumerate() {
        let target = resolve(document, text, &format!("{base}.remove[{i}]"), false)?;
        if target.steps.len() == 1 {
            return Err(Issue::at(&target.at, format!("`{}` is a part every scenario has", target.path))
                .hint("remove what is inside it instead"));
        }
        if let Some(other) = overlap(&target, &removed) {
            return Err(Issue::at(
                &target.at,
                format!("`{}` is already removed by {}", target.path, other.at),
            )
            .hint("remove each thing once"));
        }
        removed.push(target);
    }
    let mut replaced: Vec<Target> = Vec::new();
    for text in overlay.replace.keys() {
        let target = resolve(document, text, &format!("{base}.replace.{text}"), false)?;
        if let Some(other) = overlap(&target, &removed).or_else(|| overlap(&target, &replaced)) {
            return Err(Issue::at(
                &target.at,
                format!("`{}` overlaps `{}`, changed by {}", target.path, other.path, other.at),
            )
            .hint("change each part of the scenario in one place"));
        }
        replaced.push(target);
    }
    let mut added: Vec<(Target, &Value)> = Vec::new();
    for (text, value) in &overlay.add {
        let target = resolve(document, text, &format!("{base}.add.{text}"), true)?;
        let inside = removed.iter().chain(&replaced).find(|e| at_or_below(&target.path, &e.path));
        if let Some(other) = inside {
            return Err(Issue::at(&target.at, format!("`{}` is changed by {}", other.path, other.at))
                .hint("write the addition into the replacing value, or drop the removal"));
        }
        added.push((target, value));
    }

    let mut trace = OverlayTrace::default();
    for (target, value) in replaced.iter().zip(overlay.replace.values()) {
        *get_mut(document, &target.steps) = value.clone();
        trace.written_over.insert(target.path.clone(), target.at.clone());
    }
    remove_all(document, &mut removed, &mut trace);
    for (target, value) in added {
        add(document, &target, value, &mut trace)?;
    }
    Ok(trace)
}

/// Removes the `removed` targets, the deepest and last first so that no removal moves what
/// another names, and records which entries each list kept.
fn remove_all(document: &mut Value, removed: &mut [Target], trace: &mut OverlayTrace) {
    removed.sort_by(|a, b| order(&b.steps, &a.steps));
    for target in removed.iter() {
        let (last, parent) = target.steps.split_last().expect("a removal names a key below the top");
        let parent_path = render(parent);
        let container = get_mut(document, parent);
        match (container, last) {
            (Value::Array(items), Step::Index(i)) => {
                let slots = trace
                    .lists
                    .entry(parent_path)
                    .or_insert_with(|| (0..items.len()).map(Slot::Written).collect());
                slots.remove(*i);
                items.remove(*i);
            }
            (Value::Object(map), Step::Key(key)) => {
                map.remove(key);
            }
            _ => unreachable!("a resolved step matches its container"),
        }
    }
}

/// Orders paths step by step, indices by number.
fn order(a: &[Step], b: &[Step]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let by = match (x, y) {
            (Step::Index(i), Step::Index(j)) => i.cmp(j),
            (Step::Key(k), Step::Key(l)) => k.cmp(l),
            (Step::Index(_), Step::Key(_)) => std::cmp::Ordering::Less,
            (Step::Key(_), Step::Index(_)) => std::cmp::Ordering::Greater,
        };
        if by.is_ne() {
            return by;
        }
    }
    a.len().cmp(&b.len())
}

/// Adds `value` at `target`, after the removals (so a removed name may be taken again):
/// entries appended to a list, keys added to a mapping, or the missing key created.
fn add(document: &mut Value, target: &Target, value: &Value, trace: &mut OverlayTrace) -> Result<(), Issue> {
    let now = trace.now(&target.steps);
    if !target.exists {
        let (Step::Key(key), parent) = now.split_last().expect("a path names something") else {
            unreachable!("only a missing key may be created")
        };
        let Value::Object(map) = get_mut(document, parent) else { unreachable!("its parent is a mapping") };
        map.insert(key.clone(), value.clone());
        trace.written_over.insert(target.path.clone(), target.at.clone());
        return Ok(());
    }
    match (get_mut(document, &now), value) {
        (Value::Array(items), Value::Array(entries)) => {
            let slots = trace
                .lists
                .entry(target.path.clone())
                .or_insert_with(|| (0..items.len()).map(Slot::Written).collect());
            for (k, entry) in entries.iter().enumerate() {
                let at = format!("{}[{k}]", target.at);
                if let Some(name) = entry.get("name").and_then(Value::as_str) {
                    if items.iter().any(|item| item.get("name").and_then(Value::as_str) == Some(name)) {
                        return Err(Issue::at(
                            format!("{at}.name"),
                            format!("`{}` already has an entry named `{name}`", target.path),
                        )
                        .hint("give the new entry another name, or change the existing one with `replace`"));
                    }
                }
                items.push(entry.clone());
                slots.push(Slot::Overlay(at));
            }
            Ok(())
        }
        (Value::Object(map), Value::Object(keys)) => {
            for (key, entry) in keys {
                let mut path = target.path.clone();
                push(&mut path, &Step::Key(key.clone()));
                let at = format!("{}.{key}", target.at);
                if map.contains_key(key) {
                    return Err(Issue::at(&at, format!("`{}` already has `{key}`", target.path))
                        .hint("use `replace` to change it, or choose another name"));
                }
                map.insert(key.clone(), entry.clone());
                trace.written_over.insert(path, at);
            }
            Ok(())
        }
        (Value::Array(_), _) => {
            Err(Issue::at(&target.at, format!("`{}` is a list: add a list of entries", target.path))
                .hint(format!("write `{}: [{{...}}]`, even for one entry", target.path)))
        }
        (Value::Object(_), _) => {
            Err(Issue::at(&target.at, format!("`{}` is a mapping: add a mapping of new keys", target.path))
                .hint(format!("write `{}: {{KEY: VALUE}}`", target.path)))
        }
        _ => Err(Issue::at(
            &target.at,
            format!("`{}` is a single value: nothing can be added to it", target.path),
        )
        .hint("use `replace` to change it")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn overlay(yaml: &str) -> VariantSpec {
        serde_json::from_value(crate::config::yaml::parse(yaml).unwrap().0).unwrap()
    }

    fn scenario() -> Value {
        json!({
            "policies": {"voice": {"kind": "fifo"}, "data": {"kind": "fifo"}},
            "traffic": [{"name": "a"}, {"name": "b"}, {"name": "c", "list": [1, 2, 3]}],
            "interfaces": {"r1": {"r2": {"output": "voice"}}},
        })
    }

    #[test]
    fn removals_shift_what_follows_and_the_trace_finds_it() {
        let mut doc = scenario();
        let trace = apply(
            &mut doc,
            "v",
            &overlay("remove: [traffic.a, traffic.c.list.0]\nadd: {traffic: [{name: a}, {name: d}]}\n"),
        )
        .unwrap();
        assert_eq!(
            doc["traffic"],
            json!([{"name": "b"}, {"name": "c", "list": [2, 3]}, {"name": "a"}, {"name": "d"}])
        );
        assert_eq!(trace.place("traffic[0].rate"), Place::Written("traffic[1].rate".into()));
        assert_eq!(trace.place("traffic[1].list[0]"), Place::Written("traffic[2].list[1]".into()));
        assert_eq!(trace.place("traffic[3].rate"), Place::Overlay("variants.v.add.traffic[1].rate".into()));
        assert_eq!(trace.place("policies.voice"), Place::Written("policies.voice".into()));
    }

    #[test]
    fn replacements_and_new_keys_point_at_the_overlay() {
        let mut doc = scenario();
        let trace = apply(
            &mut doc,
            "v",
            &overlay("replace: {interfaces.r1.r2.output: {kind: prio}}\nadd: {policies: {bulk: {kind: fifo}}, topology.routes: []}\n"),
        );
        assert!(trace.is_err(), "topology does not exist");
        let trace = apply(
            &mut doc,
            "v",
            &overlay("replace: {interfaces.r1.r2.output: {kind: prio}}\nadd: {policies: {bulk: {kind: fifo}}, measure: {}}\n"),
        )
        .unwrap();
        assert_eq!(doc["interfaces"]["r1"]["r2"]["output"], json!({"kind": "prio"}));
        assert_eq!(
            trace.place("interfaces.r1.r2.output.kind"),
            Place::Overlay("variants.v.replace.interfaces.r1.r2.output.kind".into())
        );
        assert_eq!(
            trace.place("policies.bulk.kind"),
            Place::Overlay("variants.v.add.policies.bulk.kind".into())
        );
        assert_eq!(trace.place("measure"), Place::Overlay("variants.v.add.measure".into()));
    }

    #[test]
    fn conflicts_and_missing_paths_are_refused_at_the_entry() {
        let cases = [
            ("remove: [traffic.b, traffic.1]\n", "variants.v.remove[1]", "already removed"),
            ("remove: [policies.voice, policies.voice.kind]\n", "variants.v.remove[1]", "already removed"),
            ("remove: [traffic.x]\n", "variants.v.remove[0]", "no entry of this list is named `x`"),
            ("remove: [traffic]\n", "variants.v.remove[0]", "every scenario has"),
            ("replace: {policies.vioce: {}}\n", "variants.v.replace.policies.vioce", "has no key `vioce`"),
            (
                "remove: [policies.voice]\nreplace: {policies.voice.kind: prio}\n",
                "variants.v.replace.policies.voice.kind",
                "overlaps",
            ),
            (
                "add: {traffic: [{name: b}]}\n",
                "variants.v.add.traffic[0].name",
                "already has an entry named `b`",
            ),
            ("add: {policies: {data: {}}}\n", "variants.v.add.policies.data", "already has `data`"),
            ("add: {traffic: {name: d}}\n", "variants.v.add.traffic", "add a list of entries"),
            ("add: {sweep: {}}\n", "variants.v.add.sweep", "cannot change `sweep`"),
            (
                "replace: {policies: {}}\nadd: {policies.x: {}}\n",
                "variants.v.add.policies.x",
                "is changed by",
            ),
        ];
        for (text, at, message) in cases {
            let issue = apply(&mut scenario(), "v", &overlay(text)).unwrap_err();
            assert_eq!(issue.key_path, at, "{text}");
            assert!(issue.message.contains(message), "{text}: {}", issue.message);
        }
        // A removed name may be added again.
        let mut doc = scenario();
        apply(&mut doc, "v", &overlay("remove: [policies.data, traffic.b]\nadd: {policies: {data: {kind: prio}}, traffic: [{name: b}]}\n")).unwrap();
        assert_eq!(doc["policies"]["data"], json!({"kind": "prio"}));
    }
}
