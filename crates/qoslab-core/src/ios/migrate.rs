//! A queuing policy rewritten for the other family of Cisco routers so that a congested link
//! is shared as before — Cisco's migration advice made mechanical, both ways.
//!
//! Classic IOS (pre-HQF and HQF) shares what the priority classes leave in proportion to the
//! classes' `bandwidth`, the bandwidth nobody reserved going in equal parts to the classes
//! without one; IOS XE serves each `bandwidth` as a minimum and shares the rest equally
//! (Cisco community, "ASR1000 CBWFQ QoS Configuration Example"). Cisco's advice for the
//! move is to express the shares as `bandwidth remaining` (IOS XE QoS MQC configuration
//! guide, "3-level user-defined queuing policy support"; Cisco Live BRKARC-2031).
//!
//! * **To IOS XE**: each queuing class's `bandwidth` becomes `bandwidth remaining ratio R`, R
//!   in proportion to the share the classic scheduler gave it (the classes without a
//!   bandwidth, class-default among them, get their part of the unreserved bandwidth),
//!   scaled so the largest is 1000, IOS XE's largest ratio. Priority classes, and policies
//!   that already give `bandwidth remaining percent` (weights in both families), keep their
//!   lines. `max-reserved-bandwidth`, which IOS XE refuses, is removed; `version 17.9`.
//! * **To classic IOS with HQF**: each queuing class gets `bandwidth percent P`, P its share
//!   of the level's rate when every class is busy under IOS XE (minimum plus its part of the
//!   excess: [`crate::qdisc::cbwfq_plan`]), rounded down so the reservations fit; its IOS XE
//!   `bandwidth` and `bandwidth remaining` lines go. A priority class keeps its rate as
//!   `priority KBPS|percent P` (classic IOS has one priority level; its `police` stays), and
//!   one held to no rate is refused: classic IOS polices every priority class. `version 15.4`.
//!
//! Every change is listed with its line; the rewritten text must read back under the target
//! scheduler. A policy that nests queuing in its classes (three levels) is refused: the
//! rewrite is of one level of queuing.

use super::check::resolve;
use super::config::{Diagnostic, IosConfig, Reference};
use super::translate::interface_settings;
use crate::qdisc::cbwfq::{Cbwfq, Scheduler};
use crate::qdisc::cbwfq_plan::full_load_bps;
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

/// The queuing policy an interface runs: the policy map's name, its scenario form, the rate
/// its shares are of (the interface's, or a parent shaper's), and the interface.
struct Queuing<'a> {
    policy: String,
    spec: Value,
    rate_bps: u64,
    interface: &'a super::config::Interface,
}

fn queuing<'a>(
    config: &'a IosConfig,
    name: &str,
    link_rate_bps: Option<u64>,
) -> Result<Queuing<'a>, Diagnostic> {
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
    let (policy, spec, rate_bps) = match settings.output["kind"].as_str() {
        Some("tbf") => {
            let child =
                config.policy_maps[&output.name].classes[0].child.clone().expect("a shaper over a child");
            let rate = RateOrShare::parse(settings.output["rate"].as_str().unwrap_or_default())
                .map_or(bandwidth_bps, |r| r.bps(bandwidth_bps));
            (child.name, settings.output["child"].clone(), rate)
        }
        _ => (output.name.clone(), settings.output.clone(), bandwidth_bps),
    };
    if spec["kind"] != "cbwfq" {
        return Err(Diagnostic::error(
            (output.line, output.column),
            "only a CBWFQ/LLQ policy map, or a shaper over one, is migrated",
            "write the policy as classes with `bandwidth` and `priority`",
        ));
    }
    let nested = config.policy_maps[&policy].classes.iter().find_map(|class| class.child.as_ref());
    if let Some(child) = nested {
        return Err(Diagnostic::error(
            (child.line, child.column),
            format!("policy map `{policy}` nests a queuing policy in a class: a migration rewrites one level of queuing"),
            "migrate a configuration whose queuing is one policy map (under a shaper or not)",
        ));
    }
    Ok(Queuing { policy, spec, rate_bps, interface })
}

/// The edits of a rewrite and the sentence each change makes.
struct Rewrite<'t> {
    lines: Vec<&'t str>,
    edits: Vec<Edit>,
    changes: Vec<String>,
}

impl<'t> Rewrite<'t> {
    fn indent_of(&self, line: usize) -> usize {
        let text = self.lines.get(line.wrapping_sub(1)).copied().unwrap_or_default();
        text.len() - text.trim_start().len()
    }

    fn old(&self, line: usize) -> &str {
        self.lines[line - 1].trim()
    }

    fn replace(&mut self, line: usize, new: &str) {
        let pad = " ".repeat(self.indent_of(line));
        self.changes.push(format!("line {line}: `{}` → `{new}`", self.old(line)));
        self.edits.push(Edit::Replace(line, Some(format!("{pad}{new}"))));
    }

    fn remove(&mut self, line: usize, why: &str) {
        self.changes.push(format!("line {line}: `{}` removed{why}", self.old(line)));
        self.edits.push(Edit::Replace(line, None));
    }

    /// Adds `setting` to the class opened at line `class_line`.
    fn add_setting(&mut self, class_line: usize, class: &str, setting: &str) {
        let pad = " ".repeat(self.indent_of(class_line) + 1);
        self.changes.push(format!("after line {class_line} (class {class}): `{setting}`"));
        self.edits.push(Edit::InsertAfter(class_line, format!("{pad}{setting}")));
    }

    /// Adds class-default with `setting` after line `last` of the policy map opened at line
    /// `map_line`.
    fn add_class_default(&mut self, map_line: usize, last: usize, setting: &str) {
        let pad = " ".repeat(self.indent_of(map_line) + 1);
        self.changes.push(format!("after line {last}: `class class-default` with `{setting}`"));
        self.edits.push(Edit::InsertAfter(last, format!("{pad}class class-default\n{pad} {setting}")));
    }
}

/// Rewrites `text` (read as `config`) so that interface `name`'s queuing policy shares a
/// congested link under the `to` scheduler (IOS XE, or classic IOS with HQF) as it does
/// under its own; `link_rate_bps` is the link's rate when the configuration does not give
/// the policy's rate.
pub fn migrate(
    config: &IosConfig,
    text: &str,
    name: &str,
    link_rate_bps: Option<u64>,
    to: Scheduler,
) -> Result<Migration, Diagnostic> {
    let queuing = queuing(config, name, link_rate_bps)?;
    let map = &config.policy_maps[&queuing.policy];
    let last_line = map
        .classes
        .iter()
        .flat_map(|c| std::iter::once(c.place.0).chain(c.places.values().map(|p| p.0)))
        .fold(map.place.0, usize::max);
    let mut rewrite = Rewrite { lines: text.split('\n').collect(), edits: Vec::new(), changes: Vec::new() };
    let release = match to {
        Scheduler::Xe => {
            to_xe(&queuing, map, last_line, &mut rewrite);
            if let Some(&(line, _)) = queuing.interface.places.get("max_reserved") {
                rewrite.remove(line, " (IOS XE has no such command)");
            }
            "version 17.9"
        }
        Scheduler::Hqf => {
            to_hqf(&queuing, map, last_line, &mut rewrite)?;
            "version 15.4"
        }
        Scheduler::PreHqf => {
            return Err(Diagnostic::error(
                (0, 0),
                "a migration goes to IOS XE or to classic IOS with HQF",
                "choose `xe` or `hqf`",
            ))
        }
    };
    match &config.version {
        Some((_, (line, _))) => rewrite.replace(*line, release),
        None => {
            rewrite.changes.push(format!("line 1: `{release}` added"));
            rewrite.edits.push(Edit::InsertAfter(0, release.into()));
        }
    }
    let family = if to == Scheduler::Xe { "IOS XE" } else { "classic IOS with HQF" };
    rewrite.edits.push(Edit::InsertAfter(
        0,
        format!("! Rewritten for {family}: the queuing classes share the link as they did before"),
    ));
    let text = apply(&rewrite.lines, &rewrite.edits);
    // The rewrite must read back under the target scheduler, the same interface, without
    // errors.
    let mut rewritten = super::parse(&text);
    rewritten.told_scheduler = Some(to);
    resolve(&rewritten, name, link_rate_bps)?;
    Ok(Migration { text, changes: rewrite.changes })
}

/// The edits to IOS XE: `bandwidth` as `bandwidth remaining ratio` in proportion to the
/// classic shares.
fn to_xe(queuing: &Queuing, map: &super::config::PolicyMap, last_line: usize, rewrite: &mut Rewrite) {
    if map.classes.iter().any(|c| c.settings.contains_key("bandwidth_remaining")) {
        return;
    }
    let weights = classic_weights(&queuing.spec, queuing.rate_bps);
    let largest = weights.iter().filter_map(|(_, w)| *w).fold(0.0, f64::max);
    for (class_name, weight) in &weights {
        let Some(weight) = weight else { continue };
        let setting =
            format!("bandwidth remaining ratio {}", ((MAX_RATIO * weight / largest).round() as u64).max(1));
        match map.classes.iter().find(|c| &c.name == class_name) {
            Some(class) => match class.places.get("bandwidth") {
                Some(&(line, _)) => rewrite.replace(line, &setting),
                None => rewrite.add_setting(class.place.0, class_name, &setting),
            },
            // class-default, not written: its share is the unreserved bandwidth's.
            None => rewrite.add_class_default(map.place.0, last_line, &setting),
        }
    }
}

/// The edits to classic IOS with HQF: each queuing class's IOS XE share as `bandwidth
/// percent`, each priority class's rate as `priority`.
fn to_hqf(
    queuing: &Queuing,
    map: &super::config::PolicyMap,
    last_line: usize,
    rewrite: &mut Rewrite,
) -> Result<(), Diagnostic> {
    let Some(policy) = Cbwfq::from_scenario(&queuing.spec, queuing.rate_bps) else {
        return Ok(());
    };
    let plans = policy.plan();
    let shares = full_load_bps(&plans, queuing.rate_bps);
    for (plan, share) in plans.iter().zip(shares) {
        let class = map.classes.iter().find(|c| c.name == plan.name);
        if plan.priority_level.is_some() {
            let class = class.expect("a priority class is written");
            let rate = class
                .settings
                .get("priority")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| plan.police_bps.map(|bps| format!("{}kbps", bps.div_ceil(1000))));
            let Some(rate) = rate else {
                return Err(Diagnostic::error(
                    class.place,
                    format!("class `{}` is a priority class held to no rate; classic IOS polices every priority class", plan.name),
                    "give it a `police` or a `priority level N KBPS` before migrating",
                ));
            };
            let setting = match rate.strip_suffix('%') {
                Some(percent) => format!("priority percent {percent}"),
                None => format!("priority {}", rate.trim_end_matches("kbps")),
            };
            let key = if class.places.contains_key("priority_level") { "priority_level" } else { "priority" };
            if let Some(&(line, _)) = class.places.get(key) {
                rewrite.replace(line, &setting);
            }
            continue;
        }
        let percent = share.map_or(1, |bps| ((100.0 * bps / queuing.rate_bps as f64).floor() as u64).max(1));
        let setting = format!("bandwidth percent {percent}");
        match class {
            Some(class) => {
                let written: Vec<usize> = ["bandwidth", "bandwidth_remaining", "bandwidth_remaining_ratio"]
                    .iter()
                    .filter_map(|key| class.places.get(*key).map(|p| p.0))
                    .collect();
                match written.split_first() {
                    Some((&first, rest)) => {
                        rewrite.replace(first, &setting);
                        for &line in rest {
                            rewrite.remove(line, "");
                        }
                    }
                    None => rewrite.add_setting(class.place.0, &plan.name, &setting),
                }
            }
            None => rewrite.add_class_default(map.place.0, last_line, &setting),
        }
    }
    Ok(())
}

/// Each class of CBWFQ policy `queuing` (scenario form) with its weight in the classic
/// scheduler's sharing on a level of `rate_bps` (`None` for a priority class): its
/// bandwidth, or its part of the unreserved bandwidth — HQF's rule, which pre-HQF's weights
/// follow too for classes with a bandwidth.
fn classic_weights(queuing: &Value, rate_bps: u64) -> Vec<(String, Option<f64>)> {
    let mut as_hqf = queuing.clone();
    if let Some(map) = as_hqf.as_object_mut() {
        map.remove("max_reserved");
        map.insert("scheduler".into(), Value::from("hqf"));
    }
    Cbwfq::from_scenario(&as_hqf, rate_bps).map_or_else(Vec::new, |policy| {
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
        let migration = migrate(&parse(CLASSIC), CLASSIC, "Gi0/1", Some(100_000_000), Scheduler::Xe).unwrap();
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
    fn to_classic_ios_each_share_becomes_a_percentage() {
        // The IOS XE branch (20 Mbit/s shaped): voice level 1 policed at 2 Mbit/s, video
        // level 2 at 6 Mbit/s; ratios 5 : 1 : 4 of the 12 Mbit/s left: 6, 1.2 and 4.8 Mbit/s,
        // 30, 6 and 24 %.
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/ios/metro-e-branch-c8200-levels.txt"
        ))
        .unwrap();
        let migration = migrate(&parse(&text), &text, "Gi0/0/1", Some(100_000_000), Scheduler::Hqf).unwrap();
        let changed: Vec<&str> = migration.changes.iter().map(String::as_str).collect();
        assert_eq!(
            changed,
            [
                "line 18: `priority level 1` → `priority 2000`",
                "line 21: `priority level 2` → `priority 6000`",
                "line 24: `bandwidth remaining ratio 5` → `bandwidth percent 30`",
                "line 26: `bandwidth remaining ratio 1` → `bandwidth percent 6`",
                "line 28: `bandwidth remaining ratio 4` → `bandwidth percent 24`",
                "line 5: `version 17.9` → `version 15.4`",
            ]
        );
        let mut read = parse(&migration.text);
        read.told_scheduler = None;
        assert_eq!(crate::ios::flavour(&read, None).unwrap().scheduler, Scheduler::Hqf);
        // A priority level held to no rate has no classic form.
        let unpoliced = text.replace("  police cir 2000000\n", "");
        let error = migrate(&parse(&unpoliced), &unpoliced, "Gi0/0/1", Some(100_000_000), Scheduler::Hqf)
            .unwrap_err();
        assert!(error.message.contains("held to no rate"), "{}", error.message);
    }

    #[test]
    fn three_levels_are_refused_at_the_nesting() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/ios/hub-sites-c8500.txt"
        ))
        .unwrap();
        let error =
            migrate(&parse(&text), &text, "Gi0/0/1", Some(1_000_000_000), Scheduler::Hqf).unwrap_err();
        assert_eq!((error.line, error.column), (36, 18), "{}", error.message);
        assert!(error.message.contains("rewrites one level of queuing"), "{}", error.message);
    }

    #[test]
    fn legacy_queuing_is_refused_at_its_line() {
        let text = "interface Serial0\n priority-group 1\npriority-list 1 protocol ip high\n";
        let error = migrate(&parse(text), text, "Serial0", Some(128_000), Scheduler::Xe).unwrap_err();
        assert_eq!(
            (error.line, error.message.as_str()),
            (2, "`priority-group` is legacy queuing, which IOS XE does not have")
        );
    }
}
