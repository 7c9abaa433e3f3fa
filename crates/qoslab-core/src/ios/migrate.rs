//! A classic IOS queuing policy rewritten for IOS XE so that a congested link is shared as
//! before — Cisco's migration advice made mechanical.
//!
//! Classic IOS (pre-HQF and HQF) shares what the priority classes leave in proportion to the
//! classes' `bandwidth`, the bandwidth nobody reserved going in equal parts to the classes
//! without one; IOS XE serves each `bandwidth` as a minimum and shares the rest equally
//! (Cisco community, "ASR1000 CBWFQ QoS Configuration Example"). Cisco's advice for the
//! move is to express the shares as `bandwidth remaining` (IOS XE QoS MQC configuration
//! guide, "3-level user-defined queuing policy support"; Cisco Live BRKARC-2031). The rewrite
//! therefore replaces each queuing class's `bandwidth` with `bandwidth remaining ratio R`, R
//! in proportion to the share the classic scheduler gave it (the classes without a
//! bandwidth, class-default among them, get their part of the unreserved bandwidth), scaled
//! so the largest is 1000, IOS XE's largest ratio. Priority classes, and policies that
//! already give `bandwidth remaining percent` (weights in both flavours), keep their lines.
//! `max-reserved-bandwidth`, which IOS XE refuses, is removed, and the `version` line says
//! 17.9. Every change is listed with its line; the rewritten text must read back under the
//! IOS XE scheduler.

use super::check::resolve;
use super::config::{Diagnostic, IosConfig, Reference};
use super::translate::interface_settings;
use crate::qdisc::cbwfq::{Cbwfq, CbwfqParams, Scheduler};
use crate::qdisc::{Interface, QdiscKind};
use crate::units::RateOrShare;
use serde_json::Value;

/// The largest `bandwidth remaining ratio` IOS XE takes.
const MAX_RATIO: f64 = 1000.0;

/// The rewritten configuration and what changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migration {
    /// The configuration text for IOS XE.
    pub text: String,
    /// Each change: `line N: old → new` (or what was added or removed).
    pub changes: Vec<String>,
}

/// One edit of the text: replace line `line` (1-based) with `with` (`None`: remove it), or
/// insert `with` after it.
enum Edit {
    Replace(usize, Option<String>),
    InsertAfter(usize, String),
}

/// Rewrites `text` (read as `config`) so that interface `name`'s queuing policy shares a
/// congested link under IOS XE as it does under the classic scheduler; `link_rate_bps` is
/// the link's rate when the configuration does not give the policy's rate.
pub fn migrate(
    config: &IosConfig,
    text: &str,
    name: &str,
    link_rate_bps: Option<u64>,
) -> Result<Migration, Diagnostic> {
    let interface = config.interface(name).ok_or_else(|| {
        Diagnostic::error(
            (0, 0),
            format!("the configuration has no interface `{name}`"),
            "name one of its interfaces",
        )
    })?;
    let refuse = |what: &str, reference: &Reference| {
        Diagnostic::error(
            (reference.line, reference.column),
            format!("`{what}` is legacy queuing, which IOS XE does not have"),
            "write the interface's queuing as a policy map first",
        )
    };
    if let Some(list) = &interface.priority_group {
        return Err(refuse("priority-group", list));
    }
    if let Some(list) = &interface.custom_queue_list {
        return Err(refuse("custom-queue-list", list));
    }
    let Some(output) = &interface.output_policy else {
        return Err(Diagnostic::error(
            (interface.line, 1),
            format!("interface {} has no `service-policy output` to migrate", interface.name),
            "IOS XE queues only by policy maps",
        ));
    };
    let settings = interface_settings(config, name)?;
    let bandwidth_bps =
        settings.bandwidth_bps.or(link_rate_bps).or(settings.clock_rate_bps).ok_or_else(|| {
            Diagnostic::error((interface.line, 1), "the policy's rate is not known", "give the link's rate")
        })?;
    // The queuing policy map and the rate its shares are of: the interface's, or a parent
    // shaper's.
    let (policy, queuing, rate_bps) = match settings.output["kind"].as_str() {
        Some("tbf") => {
            let child =
                config.policy_maps[&output.name].classes[0].child.clone().expect("a shaper over a child");
            let rate = RateOrShare::parse(settings.output["rate"].as_str().unwrap_or_default())
                .map_or(bandwidth_bps, |r| r.bps(bandwidth_bps));
            (child.name, settings.output["child"].clone(), rate)
        }
        _ => (output.name.clone(), settings.output.clone(), bandwidth_bps),
    };
    if queuing["kind"] != "cbwfq" {
        return Err(Diagnostic::error(
            (output.line, output.column),
            "only a CBWFQ/LLQ policy map, or a shaper over one, is migrated",
            "write the policy as classes with `bandwidth` and `priority`",
        ));
    }
    let weights = classic_weights(&queuing, rate_bps);
    let largest = weights.iter().filter_map(|(_, w)| *w).fold(0.0, f64::max);
    let ratio = |w: f64| ((MAX_RATIO * w / largest).round() as u64).max(1);
    let lines: Vec<&str> = text.split('\n').collect();
    let indent_of = |line: usize| {
        let text = lines.get(line - 1).copied().unwrap_or_default();
        text.len() - text.trim_start().len()
    };
    let mut edits = Vec::new();
    let mut changes = Vec::new();
    let map = &config.policy_maps[&policy];
    let uses_percent_shares = map.classes.iter().any(|c| c.settings.contains_key("bandwidth_remaining"));
    let mut last_line = map.place.0;
    for class in &map.classes {
        last_line = last_line.max(class.place.0).max(class.places.values().map(|p| p.0).max().unwrap_or(0));
    }
    for (class_name, weight) in &weights {
        let Some(weight) = weight else { continue };
        if uses_percent_shares {
            continue;
        }
        let new = format!("bandwidth remaining ratio {}", ratio(*weight));
        match map.classes.iter().find(|c| &c.name == class_name) {
            Some(class) => match class.places.get("bandwidth") {
                Some(&(line, _)) => {
                    let pad = " ".repeat(indent_of(line));
                    changes.push(format!("line {line}: `{}` → `{new}`", lines[line - 1].trim()));
                    edits.push(Edit::Replace(line, Some(format!("{pad}{new}"))));
                }
                None => {
                    let line = class.place.0;
                    let pad = " ".repeat(indent_of(line) + 1);
                    changes.push(format!("after line {line} (class {class_name}): `{new}`"));
                    edits.push(Edit::InsertAfter(line, format!("{pad}{new}")));
                }
            },
            // class-default, not written: its share is the unreserved bandwidth's.
            None => {
                let pad = " ".repeat(indent_of(map.place.0) + 1);
                changes.push(format!("after line {last_line}: `class {class_name}` with `{new}`"));
                edits.push(Edit::InsertAfter(last_line, format!("{pad}class {class_name}\n{pad} {new}")));
            }
        }
    }
    if let Some(&(line, _)) = interface.places.get("max_reserved") {
        changes
            .push(format!("line {line}: `{}` removed (IOS XE has no such command)", lines[line - 1].trim()));
        edits.push(Edit::Replace(line, None));
    }
    let release = "version 17.9";
    match &config.version {
        Some((_, (line, _))) => {
            changes.push(format!("line {line}: `{}` → `{release}`", lines[line - 1].trim()));
            edits.push(Edit::Replace(*line, Some(release.into())));
        }
        None => {
            changes.push(format!("line 1: `{release}` added"));
            edits.push(Edit::InsertAfter(0, release.into()));
        }
    }
    edits.push(Edit::InsertAfter(
        0,
        "! Rewritten for IOS XE: each queuing class's classic share as a `bandwidth remaining ratio`".into(),
    ));
    let text = apply(&lines, &edits);
    // The rewrite must read back as IOS XE, the same interface, without errors.
    let mut rewritten = super::parse(&text);
    rewritten.told_scheduler = Some(Scheduler::Xe);
    resolve(&rewritten, name, link_rate_bps)?;
    Ok(Migration { text, changes })
}

/// Each class of CBWFQ policy `queuing` (scenario form) with its weight in the classic
/// scheduler's sharing on a level of `rate_bps` (`None` for a priority class): its
/// bandwidth, or its part of the unreserved bandwidth — HQF's rule, which pre-HQF's weights
/// follow too for classes with a bandwidth.
fn classic_weights(queuing: &Value, rate_bps: u64) -> Vec<(String, Option<f64>)> {
    let mut params = queuing.clone();
    if let Some(map) = params.as_object_mut() {
        map.remove("kind");
        map.remove("max_reserved");
        map.insert("scheduler".into(), Value::from("hqf"));
    }
    let interface = Interface { bandwidth_bps: rate_bps, admission: false, random_seed: 0 };
    let built = serde_json::from_value::<CbwfqParams>(params)
        .ok()
        .and_then(|p| Cbwfq::build(&p, "output", interface, &|_| None).ok());
    built.map_or_else(Vec::new, |policy| {
        policy
            .plan()
            .into_iter()
            .map(|plan| (plan.name, if plan.priority_level.is_some() { None } else { plan.weight }))
            .collect()
    })
}

/// `lines` with `edits` applied, joined again.
fn apply(lines: &[&str], edits: &[Edit]) -> String {
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + edits.len());
    let inserts = |after: usize, out: &mut Vec<String>| {
        for edit in edits {
            if let Edit::InsertAfter(line, text) = edit {
                if *line == after {
                    out.push(text.clone());
                }
            }
        }
    };
    inserts(0, &mut out);
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1;
        let replaced = edits.iter().find_map(|e| match e {
            Edit::Replace(n, with) if *n == number => Some(with),
            _ => None,
        });
        match replaced {
            Some(Some(with)) => out.push(with.clone()),
            Some(None) => {}
            None => out.push((*line).to_owned()),
        }
        inserts(number, &mut out);
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ios::parse;

    const CLASSIC: &str = "version 15.4
class-map match-any VOICE
 match dscp ef
class-map match-any VIDEO
 match dscp af41
policy-map Q
 class VOICE
  priority percent 10
 class VIDEO
  bandwidth percent 40
 class class-default
  fair-queue
policy-map S
 class class-default
  shape average 10000000
  service-policy Q
interface GigabitEthernet0/1
 service-policy output S
";

    #[test]
    fn bandwidths_become_ratios_in_proportion() {
        // 10 Mbit/s shaped: VIDEO's 40 % (4 Mbit/s) against class-default's unreserved
        // 60 % − 10 % of priority = 5 Mbit/s: ratios 800 and 1000.
        let migration = migrate(&parse(CLASSIC), CLASSIC, "Gi0/1", Some(100_000_000)).unwrap();
        assert!(migration.text.starts_with("! Rewritten for IOS XE"), "{}", migration.text);
        assert!(migration.text.contains("\nversion 17.9\n"), "{}", migration.text);
        assert!(migration.text.contains("  bandwidth remaining ratio 800\n"), "{}", migration.text);
        assert!(
            migration.text.contains(" class class-default\n  bandwidth remaining ratio 1000\n  fair-queue"),
            "{}",
            migration.text
        );
        assert_eq!(
            migration.changes,
            [
                "line 10: `bandwidth percent 40` → `bandwidth remaining ratio 800`",
                "after line 11 (class class-default): `bandwidth remaining ratio 1000`",
                "line 1: `version 15.4` → `version 17.9`",
            ]
        );
    }

    #[test]
    fn legacy_queuing_is_refused_at_its_line() {
        let text = "interface Serial0\n priority-group 1\npriority-list 1 protocol ip high\n";
        let error = migrate(&parse(text), text, "Serial0", Some(128_000)).unwrap_err();
        assert_eq!(
            (error.line, error.message.as_str()),
            (2, "`priority-group` is legacy queuing, which IOS XE does not have")
        );
    }
}
