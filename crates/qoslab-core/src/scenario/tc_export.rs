//! A scenario interface's output policy as a `tc` script for a Linux device
//! ([`crate::linux::tc_script`]).
//!
//! The scenario is read and built first, so the export refuses what a run refuses, with the
//! same message. The interface's output policy is then taken as the build takes it: named
//! in `policies`, written in place, the default FIFO (with the interface's hold queue), or
//! read from the IOS configuration the interface names; its percentages are of the
//! interface's QoS bandwidth. What tc cannot express is refused at the scenario key that
//! holds it. The script sets the discipline only: the device's own rate (a veth pair has
//! none) and its driver ring are not tc settings.

use super::build_ios::{ios_interface, place_issue, with_router_configs};
use super::build_reconfig::resolve_policy;
use super::export_target::{export_target, refused, Target};
use super::spec::InterfaceSpec;
use super::Selection;
use crate::config::error::{join_path, Issue, ScenarioError};
use crate::linux::tc_script::tc_commands;
use crate::qdisc::PolicySpec;
use crate::units::format_rate;
use std::collections::BTreeMap;
use std::path::Path;

/// The device name the script uses when none is given.
pub const DEFAULT_DEVICE: &str = "eth0";

/// The output policy of interface `interface` — `NODE.PEER`, the egress of NODE towards its
/// neighbour PEER — of the form of the scenario that `selection` chooses, as a POSIX shell
/// script of `tc` commands for device `device` (default `eth0`). `origin` names the scenario
/// in errors, and relative file names are read from its folder.
pub fn tc_from_yaml(
    text: &str,
    origin: &str,
    selection: &Selection,
    interface: &str,
    device: Option<&str>,
) -> Result<String, ScenarioError> {
    let device = device.unwrap_or(DEFAULT_DEVICE);
    if device.is_empty()
        || device.len() > 15
        || device.contains(|c: char| c.is_whitespace() || c == '/' || c == ':')
    {
        return Err(refused(
            origin,
            String::new(),
            format!("--dev: `{device}` is not a Linux device name"),
            "give 1 to 15 characters without spaces, `/` or `:` (e.g. eth0)",
        ));
    }
    let target = export_target(text, origin, selection, interface)?;
    let Target { spec, located, base_dir, topology, node, peer, at, .. } = &target;
    let (node, peer) = (node.as_str(), peer.as_str());
    let port = target.port();
    let (interfaces, ios_origins) = with_router_configs(spec).map_err(|issue| located.error(issue))?;
    let place = |issue: Issue| located.error(place_issue(issue, node, peer, &ios_origins));
    let entry = interfaces.get(node).and_then(|by_peer| by_peer.get(peer));
    let (output, output_at, bandwidth_bps) =
        output_of(entry, at, &spec.policies, port.rate_bps, port.bandwidth_bps, base_dir).map_err(&place)?;
    let reference_bps = bandwidth_bps.unwrap_or(port.rate_bps);
    let commands =
        tc_commands(&output, &output_at, reference_bps, device, &|name| topology.nodes.address(name))
            .map_err(&place)?;
    let mut script = vec![
        "#!/bin/sh".to_owned(),
        format!(
            "# {at} of scenario `{}`: {node}'s output towards {peer}, on a {} link",
            spec.name,
            format_rate(port.rate_bps)
        ),
        format!(
            "# written by qoslab tc export for device {device}; percentages are of {}",
            format_rate(reference_bps)
        ),
        "# the device's own rate and its driver ring are not tc settings".to_owned(),
        "set -e".to_owned(),
    ];
    script.extend(commands);
    Ok(script.join("\n") + "\n")
}

/// The output policy of the interface whose entry is `entry` (at key path `at`; none: the
/// default FIFO) on a link of `rate_bps` — its hold queue applied — with the key path of
/// its text and the interface's QoS bandwidth (the link's `bandwidth_bps` unless the entry
/// or its IOS configuration gives one). Refused where the entry sets what a tc script
/// cannot hold: `changes`, an input policy, fragmentation and interleaving.
fn output_of(
    entry: Option<&InterfaceSpec>,
    at: &str,
    policies: &BTreeMap<String, PolicySpec>,
    rate_bps: u64,
    bandwidth_bps: Option<u64>,
    base_dir: &Path,
) -> Result<(PolicySpec, String, Option<u64>), Issue> {
    let default = (PolicySpec::default_output(), join_path(at, "output"), bandwidth_bps);
    let Some(entry) = entry else { return Ok(default) };
    if !entry.changes.is_empty() {
        return Err(Issue::at(join_path(at, "changes"), "a tc script sets one policy, and `changes` replace it during the run")
            .hint("export the interface without `changes`: the policy it starts with, or each policy of the changes in turn as its `output`"));
    }
    let (mut output, output_at, bandwidth_bps, hold_queue, input, lfi) = match &entry.ios {
        Some(ios) => {
            let ios_at = join_path(at, "ios");
            let imported = ios_interface(ios, &ios_at, rate_bps, base_dir)?;
            let bandwidth = imported.bandwidth_bps.or(bandwidth_bps);
            let (input, lfi) = (imported.input.is_some(), imported.lfi.is_some());
            (imported.output, join_path(&ios_at, "config"), bandwidth, imported.hold_queue, input, lfi)
        }
        None => {
            let (output, output_at) = match &entry.output {
                Some(written) => {
                    let (policy, policy_at) = resolve_policy(written, &default.1, policies)?;
                    (policy.clone(), policy_at)
                }
                None => (default.0, default.1),
            };
            let bandwidth = entry.bandwidth.map(|b| b.0).or(bandwidth_bps);
            (output, output_at, bandwidth, entry.hold_queue, entry.input.is_some(), entry.lfi.is_some())
        }
    };
    if input {
        return Err(Issue::at(join_path(at, "input"), "tc export writes an interface's output discipline; its input policy is not exported")
            .hint("export the interface without `input` (police at the sender's side instead), or add tc's ingress qdisc with `action police` by hand"));
    }
    if lfi {
        return Err(Issue::at(
            join_path(at, "lfi"),
            "Linux's traffic control has no multilink PPP fragmentation and interleaving",
        )
        .hint("export the interface without `lfi`"));
    }
    if let Some(packets) = hold_queue {
        output = output
            .with_hold_queue(packets)
            .map_err(|e| Issue::at(join_path(at, "hold_queue"), e.to_string()))?;
    }
    Ok((output, output_at, bandwidth_bps))
}
