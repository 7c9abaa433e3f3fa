//! A scenario interface written as Cisco IOS configuration text ([`crate::ios::export`]).
//!
//! The scenario is read and built first, so the export refuses what a run refuses, with
//! the same message. The interface's settings are then taken as the build takes them: the
//! output policy (named in `policies`, written in place, or the default FIFO), the QoS
//! bandwidth and transmit ring of the interface or else of its link, the hold queue, the
//! input policy and the fragmentation — or all of these from the IOS configuration the
//! interface names. What IOS cannot express is refused at the scenario key that holds it:
//! the policy's own key path (`policies.llq.classes[2].match`), the interface's
//! (`interfaces.r1.r2.lfi.sequence`) or the link's (`topology.links[1].bandwidth`).

use super::build_ios::{ios_interface, place_issue, with_router_configs};
use super::build_reconfig::resolve_policy;
use super::export_target::{export_target, refused, Target};
use super::spec::{InterfaceSpec, LinkSpec};
use super::Selection;
use crate::config::error::{join_path, Issue, ScenarioError};
use crate::ios::export::{canonical_interface, default_interface_name, export, Export};
use crate::qdisc::PolicySpec;
use crate::units::format_rate;
use std::collections::BTreeMap;

/// Where each part of the exported settings was written, for placing a refusal.
struct Origins {
    /// The output policy's key path.
    output: String,
    /// The interface entry's key path.
    interface: String,
    /// The key path of the QoS bandwidth (the interface's or the link's).
    bandwidth: String,
    /// The key path of the physical rate (or of its changes).
    rate: String,
    /// The key path of the transmit ring.
    tx_ring: String,
    /// The configuration's key path, when an IOS configuration sets the interface.
    ios: Option<String>,
}

impl Origins {
    /// Where the settings of interface `at` come from when the interface sets none of its
    /// own: its output entry, and the link at `link_at`.
    fn of_link(at: &str, link_at: &str, link: &LinkSpec) -> Self {
        Origins {
            output: join_path(at, "output"),
            interface: at.to_owned(),
            bandwidth: join_path(link_at, if link.bandwidth.is_some() { "bandwidth" } else { "rate" }),
            rate: join_path(
                link_at,
                match (link.rate_trace.is_some(), changes_rate(link)) {
                    (true, _) => "rate_trace",
                    (false, true) => "rate_changes",
                    (false, false) => "rate",
                },
            ),
            tx_ring: if link.tx_ring.is_some() { join_path(link_at, "tx_ring") } else { link_at.to_owned() },
            ios: None,
        }
    }

    /// The scenario key path of the export's `key_path`.
    fn place(&self, key_path: &str) -> String {
        if let Some(ios) = &self.ios {
            return ios.clone();
        }
        let (first, rest) = match key_path.find(['.', '[']) {
            Some(cut) => key_path.split_at(cut),
            None => (key_path, ""),
        };
        match first {
            "output" => format!("{}{rest}", self.output),
            "bandwidth" => self.bandwidth.clone(),
            "rate" => self.rate.clone(),
            "tx_ring" => self.tx_ring.clone(),
            _ => format!("{}{rest}", join_path(&self.interface, first)),
        }
    }
}

/// Interface `interface` — `NODE.PEER`, the egress of NODE towards its neighbour PEER and
/// its input from PEER — of the form of the scenario that `selection` chooses, as Cisco IOS
/// configuration text. `name` is the interface's IOS name (default `Serial0/0/0` on HDLC
/// and PPP links, `GigabitEthernet0/0` on others). `origin` names the scenario in errors,
/// and relative file names are read from its folder.
pub fn ios_from_yaml(
    text: &str,
    origin: &str,
    selection: &Selection,
    interface: &str,
    name: Option<&str>,
) -> Result<String, ScenarioError> {
    let target = export_target(text, origin, selection, interface)?;
    let Target { spec, located, base_dir, topology, node, peer, at, .. } = &target;
    let (node, peer) = (node.as_str(), peer.as_str());
    let link_at = format!("topology.links[{}]", target.link_index);
    let link = target.link();
    let port = target.port();
    let ios_name = match name {
        Some(written) => canonical_interface(written, "").map_err(|issue| {
            refused(
                origin,
                String::new(),
                format!("--name: {}", issue.message),
                issue.hint.as_deref().unwrap_or_default(),
            )
        })?,
        None => default_interface_name(port.l2_framing).to_owned(),
    };
    let rate_changes = changes_rate(link);
    let (interfaces, ios_origins) = with_router_configs(spec).map_err(|issue| located.error(issue))?;
    let entry = interfaces.get(node).and_then(|by_peer| by_peer.get(peer));
    let default_output = PolicySpec::default_output();
    let imported;
    let mut origins = Origins::of_link(at, &link_at, link);
    let mut export_spec = Export {
        comments: vec![format!(
            "interfaces.{node}.{peer} of scenario `{}`: {node}'s interface to {peer}, a {} link",
            spec.name,
            format_rate(port.rate_bps)
        )],
        name: ios_name,
        framing: port.l2_framing,
        output: &default_output,
        output_name: format!("{node}-to-{peer}"),
        input_name: format!("{node}-from-{peer}"),
        bandwidth_bps: port.bandwidth_bps,
        rate_bps: port.rate_bps,
        rate_changes,
        tx_ring: port.tx_ring_packets,
        hold_queue: None,
        input: None,
        lfi: None,
    };
    if let Some(entry) = entry {
        if !entry.changes.is_empty() {
            let issue = Issue::at(
                join_path(at, "changes"),
                "an IOS configuration is one setting of the interface, and `changes` replace it during the run",
            )
            .hint("export the interface without `changes`: the policy it starts with, or each policy of the changes in turn as its `output`");
            return Err(located.error(issue));
        }
        if let Some(ios) = &entry.ios {
            let ios_at = join_path(at, "ios");
            imported = ios_interface(ios, &ios_at, port.rate_bps, base_dir)
                .map_err(|issue| located.error(place_issue(issue, node, peer, &ios_origins)))?;
            origins.ios = Some(join_path(&ios_at, "config"));
            export_spec.output = &imported.output;
            export_spec.bandwidth_bps = imported.bandwidth_bps.or(port.bandwidth_bps);
            export_spec.tx_ring = imported.tx_ring.unwrap_or(port.tx_ring_packets);
            export_spec.hold_queue = imported.hold_queue;
            export_spec.input = imported.input.as_ref();
            export_spec.lfi = imported.lfi.as_ref();
        } else {
            own_settings(entry, at, &spec.policies, &mut export_spec, &mut origins)
                .map_err(|issue| located.error(issue))?;
        }
    }
    export(&export_spec, &|name| topology.nodes.address(name)).map_err(|issue| {
        let placed = Issue { key_path: origins.place(&issue.key_path), ..issue };
        located.error(place_issue(placed, node, peer, &ios_origins))
    })
}

/// Whether `link`'s rate changes during the run.
fn changes_rate(link: &LinkSpec) -> bool {
    !link.rate_changes.is_empty() || link.rate_trace.is_some()
}

/// Takes into `export` the settings interface entry `entry`, at `at`, gives itself — its
/// output policy (in place or named in `policies`), QoS bandwidth, transmit ring, hold queue,
/// input policy and fragmentation — and notes in `origins` where each was written.
fn own_settings<'a>(
    entry: &'a InterfaceSpec,
    at: &str,
    policies: &'a BTreeMap<String, PolicySpec>,
    export: &mut Export<'a>,
    origins: &mut Origins,
) -> Result<(), Issue> {
    if let Some(output) = &entry.output {
        let (policy, policy_at) = resolve_policy(output, &origins.output, policies)?;
        if let Some(policy_name) = policy_at.strip_prefix("policies.") {
            export.output_name = policy_name.to_owned();
        }
        export.output = policy;
        origins.output = policy_at;
    }
    if let Some(bandwidth) = entry.bandwidth {
        export.bandwidth_bps = Some(bandwidth.0);
        origins.bandwidth = join_path(at, "bandwidth");
    }
    if let Some(ring) = entry.tx_ring {
        export.tx_ring = ring;
        origins.tx_ring = join_path(at, "tx_ring");
    }
    export.hold_queue = entry.hold_queue;
    export.input = entry.input.as_ref();
    export.lfi = entry.lfi.as_ref();
    Ok(())
}
