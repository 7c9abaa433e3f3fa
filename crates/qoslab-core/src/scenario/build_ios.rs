//! An interface configured from Cisco IOS text (`interfaces.NODE.PEER.ios`): the
//! configuration is read, the named interface resolved as IOS would
//! ([`crate::ios`]), and its settings become the interface's output and input policies,
//! QoS bandwidth, hold queue, transmit ring and fragmentation — as if written in YAML.

use super::spec::{InterfaceSpec, IosSpec, ScenarioSpec};
use crate::condition::ConditionerSpec;
use crate::config::error::{join_path, ErrorKind, Issue};
use crate::ios::{parse, read_config, resolve, Severity};
use crate::net::lfi::LfiSpec;
use crate::qdisc::PolicySpec;
use crate::units::format_rate;
use std::collections::BTreeMap;
use std::path::Path;

/// Interface settings by node and neighbour.
pub(super) type Interfaces = BTreeMap<String, BTreeMap<String, InterfaceSpec>>;

/// Where an interface's `ios` entry came from when a router's configuration and a link's
/// interface names made it: (the node's `ios` key path, the link's interface name key path).
pub(super) type IosOrigins = BTreeMap<(String, String), (String, String)>;

/// The scenario's interface settings with those that routers' IOS configurations
/// (`topology.nodes.NAME.ios`) give the links naming their interfaces
/// (`topology.links[i].interfaces`).
pub(super) fn with_router_configs(spec: &ScenarioSpec) -> Result<(Interfaces, IosOrigins), Issue> {
    let mut interfaces = spec.interfaces.clone();
    let mut origins = IosOrigins::new();
    for (i, link) in spec.topology.links.iter().enumerate() {
        let Some(names) = &link.interfaces else { continue };
        for (end, (node, peer)) in
            [(&link.between[0], &link.between[1]), (&link.between[1], &link.between[0])]
                .into_iter()
                .enumerate()
        {
            let names_at = format!("topology.links[{i}].interfaces[{end}]");
            let Some(config) = spec.topology.nodes.get(node).and_then(|n| n.ios.clone()) else {
                return Err(Issue::at(
                    &names_at,
                    format!("node `{node}` has no IOS configuration to name interfaces in"),
                )
                .hint(format!(
                    "give it one with `topology.nodes.{node}.ios`, or remove the link's `interfaces`"
                )));
            };
            let entry =
                interfaces.entry(node.clone()).or_default().entry(peer.clone()).or_insert_with(|| {
                    InterfaceSpec {
                        output: None,
                        tx_ring: None,
                        bandwidth: None,
                        hold_queue: None,
                        input: None,
                        observe: false,
                        changes: Vec::new(),
                        lfi: None,
                        ios: None,
                    }
                });
            if entry.ios.is_some() {
                return Err(Issue::at(
                    format!("interfaces.{node}.{peer}.ios"),
                    "this interface is also named by a link",
                )
                .hint(format!(
                    "remove one of them: {names_at} already takes it from `{node}`'s configuration"
                )));
            }
            entry.ios = Some(IosSpec { config, interface: names[end].clone(), scheduler: None, then: None });
            origins.insert((node.clone(), peer.clone()), (format!("topology.nodes.{node}.ios"), names_at));
        }
    }
    Ok((interfaces, origins))
}

/// `issue` about `interfaces.NODE.PEER.ios`, placed where the user wrote it when the entry
/// came from a router's configuration.
pub(super) fn place_issue(issue: Issue, node: &str, peer: &str, origins: &IosOrigins) -> Issue {
    let Some((config_at, name_at)) = origins.get(&(node.to_owned(), peer.to_owned())) else { return issue };
    let ios_at = format!("interfaces.{node}.{peer}.ios");
    if issue.key_path == format!("{ios_at}.interface") {
        Issue { key_path: name_at.clone(), ..issue }
    } else if issue.key_path.starts_with(&ios_at) {
        Issue { key_path: config_at.clone(), ..issue }
    } else {
        issue
    }
}

/// What the configuration sets on the interface.
pub(super) struct IosInterface {
    pub output: PolicySpec,
    /// The output policy in the scenario form the IOS import writes (`qoslab ios yaml`).
    pub output_document: serde_json::Value,
    pub input: Option<ConditionerSpec>,
    pub bandwidth_bps: Option<u64>,
    pub hold_queue: Option<u32>,
    pub tx_ring: Option<u32>,
    pub lfi: Option<LfiSpec>,
    /// How many of the configuration's lines qoslab does not model, as a sentence (`None`
    /// when it models them all).
    pub note: Option<String>,
}

/// Reads `spec` (at key path `at`) for an interface whose link runs at `rate_bps`.
pub(super) fn ios_interface(
    spec: &IosSpec,
    at: &str,
    rate_bps: u64,
    base_dir: &Path,
) -> Result<IosInterface, Issue> {
    let config_at = join_path(at, "config");
    // Text with a line break is the configuration itself; anything else names a file.
    let (text, origin) = if spec.config.contains('\n') {
        (spec.config.clone(), None)
    } else {
        let path = base_dir.join(&spec.config);
        let text = read_config(&path).map_err(|unreadable| {
            Issue::at(&config_at, unreadable.message)
                .hint(format!(
                    "{}; text with line breaks is read as the configuration itself",
                    unreadable.hint
                ))
                .kind(ErrorKind::File)
        })?;
        (text, Some(path.display().to_string()))
    };
    // The commands of `then` follow the configuration's, from global configuration mode
    // (`end`); their line L is line `then_from` + L of the whole.
    let (text, then_from) = match &spec.then {
        Some(then) => {
            let head = format!("{}\nend\n", text.trim_end_matches(['\n', '\r']));
            let then_from = head.lines().count();
            (head + then, then_from)
        }
        None => (text, usize::MAX),
    };
    let then_at = join_path(at, "then");
    // Where in the configuration: the key path, and `file:line:column` for a file, `line L,
    // column C` for text and for the commands of `then`.
    let place = |line: usize, column: usize| match &origin {
        _ if line > then_from => (then_at.clone(), format!("line {}, column {column}: ", line - then_from)),
        Some(file) => (config_at.clone(), format!("{file}:{line}:{column}: ")),
        None => (config_at.clone(), format!("line {line}, column {column}: ")),
    };
    let origin = origin.clone().unwrap_or_else(|| "the configuration".to_owned());
    let mut config = parse(&text);
    config.told_scheduler = spec.scheduler;
    // The interface resolved and built as the run builds it, so that a problem is placed at
    // the configuration's line rather than at the policy it became.
    let resolved = resolve(&config, &spec.interface, Some(rate_bps)).map_err(|error| {
        let hint = error.hint.clone().unwrap_or_else(|| "correct the configuration".into());
        if error.line == 0 {
            Issue::at(join_path(at, "interface"), error.message).hint(hint)
        } else {
            let (key_path, place) = place(error.line, error.column);
            Issue::at(key_path, format!("{place}{}", error.message))
                .hint(format!("{hint}; `qoslab ios check FILE` lists every problem of the configuration"))
        }
    })?;
    let settings = &resolved.settings;
    if let Some(clock_bps) = settings.clock_rate_bps.filter(|&c| c != rate_bps) {
        return Err(Issue::at(
            join_path(at, "interface"),
            format!(
                "{origin} clocks {} at {}, but the link runs at {}",
                spec.interface,
                format_rate(clock_bps),
                format_rate(rate_bps)
            ),
        )
        .hint("make the link's `rate` the configuration's clock rate"));
    }
    let unmodelled = config.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
    let note = (unmodelled > 0).then(|| {
        let check = if spec.config.contains('\n') {
            "qoslab ios check".to_owned()
        } else {
            format!("qoslab ios check {origin}")
        };
        let lines = if unmodelled == 1 { "line" } else { "lines" };
        format!("{origin}: {unmodelled} {lines} not modelled (`{check}` lists them)")
    });
    Ok(IosInterface {
        note,
        bandwidth_bps: settings.bandwidth_bps,
        hold_queue: settings.hold_queue,
        tx_ring: settings.tx_ring,
        output_document: settings.output.clone(),
        output: resolved.output,
        input: resolved.input,
        lfi: resolved.lfi,
    })
}
