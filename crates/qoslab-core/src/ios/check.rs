//! A configuration checked the way a scenario uses it, so that `qoslab ios check` reports
//! every mistake a run would refuse, at the line and column of the command it comes from.
//!
//! [`resolve`] takes one interface through the whole path a run takes: the configuration's
//! own errors first, then the interface resolved as IOS would ([`super::translate`]), then
//! its output policy (with its hold queue), input policy and fragmentation read and built
//! exactly as the simulator builds them for the interface's QoS bandwidth, with IOS's
//! admission check. A problem the build finds at a key path (`output.classes[2].bandwidth`)
//! is placed at the command that wrote that part ([`InterfaceSettings::place_of`]).
//!
//! [`check`] does that for every interface, and checks the policy maps no interface uses
//! for what IOS refuses when they are written: a class naming a missing class map, and a
//! nesting that loops or goes deeper than IOS allows.

use super::config::{Diagnostic, IosConfig, Place, Reference, Severity};
use super::translate::{check_nesting, class_condition, interface_settings, InterfaceSettings};
use crate::condition::{Conditioner, ConditionerSpec};
use crate::config::error::Issue;
use crate::config::tagged::nested;
use crate::net::lfi::{Lfi, LfiSpec};
use crate::qdisc::{Interface, PolicySpec};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeSet;

/// The bandwidth percentages are taken of when neither the configuration nor the link
/// gives one (a non-serial interface without `bandwidth`, checked without a link): 1 Gbit/s,
/// with IOS's admission check skipped, since the real rate is not known.
const UNKNOWN_BANDWIDTH_BPS: u64 = 1_000_000_000;

/// An interface resolved and built: its settings and their scenario forms.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The settings, in scenario form.
    pub settings: InterfaceSettings,
    /// The output policy (without the hold queue, which the scenario applies).
    pub output: PolicySpec,
    /// The input policy.
    pub input: Option<ConditionerSpec>,
    /// Fragmentation and interleaving.
    pub lfi: Option<LfiSpec>,
}

/// Interface `name` of `config` resolved and built as a run builds it on a link of
/// `link_rate_bps` (`None`: the configuration's clock rate, if any).
pub fn resolve(config: &IosConfig, name: &str, link_rate_bps: Option<u64>) -> Result<Resolved, Diagnostic> {
    if let Some(error) = config.diagnostics.iter().find(|d| d.severity == Severity::Error) {
        return Err(error.clone());
    }
    let settings = interface_settings(config, name)?;
    let interface_place = config.interface(name).map_or((0, 0), |i| (i.line, 1));
    let located = |issue: Issue| {
        let place = settings.place_of(&issue.key_path).unwrap_or(interface_place);
        let hint =
            issue.hint.unwrap_or_else(|| "`qoslab ios explain` shows how the configuration is read".into());
        Diagnostic::error(place, issue.message, hint)
    };
    let output: PolicySpec = read(&settings.output, "output").map_err(&located)?;
    let input: Option<ConditionerSpec> =
        settings.input.as_ref().map(|v| read(v, "input")).transpose().map_err(&located)?;
    let lfi: Option<LfiSpec> = settings.lfi.as_ref().map(|v| read(v, "lfi")).transpose().map_err(&located)?;
    let known_bps = settings.bandwidth_bps.or(link_rate_bps).or(settings.clock_rate_bps);
    let bandwidth_bps = known_bps.unwrap_or(UNKNOWN_BANDWIDTH_BPS);
    let interface = Interface {
        bandwidth_bps,
        admission: known_bps.is_some(),
        random_seed: 0,
        device_header_bytes: 0,
        ios_header_bytes: 0,
    };
    let no_nodes = |_: &str| None;
    let held = match settings.hold_queue {
        Some(packets) => output
            .with_hold_queue(packets)
            .map_err(|why| located(Issue::at("hold_queue", why.to_string())))?,
        None => output.clone(),
    };
    held.build("output", interface, &no_nodes).map_err(&located)?;
    if let Some(input) = &input {
        Conditioner::build(input, "input", bandwidth_bps, 0, &no_nodes).map_err(&located)?;
    }
    if let Some(lfi) = &lfi {
        Lfi::build(lfi, "lfi", bandwidth_bps).map_err(&located)?;
    }
    Ok(Resolved { settings, output, input, lfi })
}

/// Reads `value` (found at key path `at`) as `T`, with the key path of any problem.
fn read<T: DeserializeOwned>(value: &Value, at: &str) -> Result<T, Issue> {
    nested(value.clone()).map_err(|error| error.issue(at))
}

/// Every finding of `config`: its lines' warnings and errors, then what resolving and
/// building each interface finds, then the problems of policy maps no interface uses; each
/// once, in line order.
pub fn check(config: &IosConfig) -> Vec<Diagnostic> {
    let mut found = config.diagnostics.clone();
    if let Err(error) = super::flavour::flavour(config, config.told_scheduler) {
        found.push(error);
    }
    if !config.has_errors() {
        for interface in &config.interfaces {
            if let Err(error) = resolve(config, &interface.name, None) {
                found.push(error);
            }
        }
    }
    // Policy maps walked from the interfaces' first, so a loop is reported where resolving
    // an interface reports it; every policy map once.
    let mut walked = BTreeSet::new();
    let attached =
        config.interfaces.iter().flat_map(|i| [&i.output_policy, &i.input_policy]).flatten().cloned();
    let defined = config.policy_maps.iter().map(|(name, map)| reference(name, map.place));
    for root in attached.chain(defined).collect::<Vec<_>>() {
        if walked.contains(&root.name) {
            continue;
        }
        if let Err(error) = check_nesting(config, &root, &mut Vec::new()) {
            found.push(error);
        }
        reachable(config, &root.name, &mut walked);
    }
    for map in config.policy_maps.values() {
        for class in map.classes.iter().filter(|c| c.name != "class-default") {
            if let Err(error) = class_condition(config, &class.name, class.place) {
                found.push(error);
            }
        }
    }
    let mut seen = BTreeSet::new();
    found.retain(|d| seen.insert((d.line, d.column, d.message.clone())));
    found.sort_by_key(|d| (d.line, d.column));
    found
}

fn reference(name: &str, (line, column): Place) -> Reference {
    Reference { name: name.to_owned(), line, column }
}

/// Adds policy map `name` and those it nests, at any depth, to `walked`.
fn reachable(config: &IosConfig, name: &str, walked: &mut BTreeSet<String>) {
    if !walked.insert(name.to_owned()) {
        return;
    }
    if let Some(map) = config.policy_maps.get(name) {
        for child in map.classes.iter().filter_map(|c| c.child.as_ref()) {
            reachable(config, &child.name, walked);
        }
    }
}
