//! The interface an export writes (`qoslab ios from-yaml`, `qoslab tc export`): the scenario
//! read in the form the selection chooses and built as a run builds it, so that an export
//! refuses what a run refuses with the same message; then the interface `NODE.PEER` found,
//! with its link and port.

use super::build::build;
use super::build_topology::{links, nodes, Topology};
use super::limits::Limits;
use super::spec::{LinkSpec, ScenarioSpec};
use super::{base_dir, read, Located, Read, Selection};
use crate::config::error::{ErrorKind, ScenarioError};
use crate::net::port::PortConfig;
use std::path::PathBuf;

/// A scenario read and built, and the interface of it an export writes.
pub(super) struct Target {
    pub(super) spec: ScenarioSpec,
    pub(super) located: Located,
    /// The folder relative file names are read from.
    pub(super) base_dir: PathBuf,
    pub(super) topology: Topology,
    pub(super) node: String,
    pub(super) peer: String,
    /// `interfaces.NODE.PEER`.
    pub(super) at: String,
    /// The index of the link joining the two in `topology.links`.
    pub(super) link_index: usize,
}

impl Target {
    /// The link the interface is on.
    pub(super) fn link(&self) -> &LinkSpec {
        &self.spec.topology.links[self.link_index]
    }

    /// The port of the interface's egress, `NODE->PEER`.
    pub(super) fn port(&self) -> &PortConfig {
        let name = format!("{}->{}", self.node, self.peer);
        self.topology.ports.iter().find(|p| p.name == name).expect("every link has a port each way")
    }
}

/// A refusal of what the user asked for, not placed in the scenario's text.
pub(super) fn refused(origin: &str, key_path: String, message: String, hint: &str) -> ScenarioError {
    ScenarioError {
        kind: ErrorKind::Invalid,
        origin: origin.into(),
        position: None,
        key_path,
        message,
        hint: Some(hint.to_owned()),
    }
}

/// The scenario `text` (named `origin` in errors) in the form `selection` chooses, built, and
/// its interface `interface` (`NODE.PEER`).
pub(super) fn export_target(
    text: &str,
    origin: &str,
    selection: &Selection,
    interface: &str,
) -> Result<Target, ScenarioError> {
    let Read { mut spec, located, .. } = read(text, origin, selection.variant, selection.overrides)?;
    if let Some(replication) = selection.replication {
        spec.run.replication = Some(replication);
    }
    let base_dir = base_dir(origin);
    // Nothing is run, so no limit on what a run may cost applies.
    let unlimited = Limits { max_memory_bytes: u64::MAX, max_events: u64::MAX };
    build(&spec, selection.seed, &base_dir, &unlimited).map_err(|issue| located.error(issue))?;
    let Some((node, peer)) = interface.split_once('.').filter(|(n, p)| !n.is_empty() && !p.is_empty()) else {
        return Err(refused(
            origin,
            String::new(),
            format!("`{interface}` does not name an interface"),
            "write NODE.PEER, the egress of NODE towards its neighbour PEER (e.g. r1.r2)",
        ));
    };
    let topology = links(&spec, nodes(&spec).map_err(|i| located.error(i))?, &base_dir)
        .map_err(|issue| located.error(issue))?;
    let at = format!("interfaces.{node}.{peer}");
    let link_index = link_between(&spec.topology.links, node, peer).map_err(|listing| {
        refused(
            origin,
            at.clone(),
            format!("no link joins `{node}` and `{peer}`"),
            &format!("name one of the scenario's interfaces: {listing}"),
        )
    })?;
    let (node, peer) = (node.to_owned(), peer.to_owned());
    Ok(Target { spec, located, base_dir, topology, node, peer, at, link_index })
}

/// The index of the link of `links` joining `node` and `peer`, or the listing of the
/// interfaces the links make (`a.b, b.a, ...`) when none does.
fn link_between(links: &[LinkSpec], node: &str, peer: &str) -> Result<usize, String> {
    links
        .iter()
        .position(|l| {
            (l.between[0] == node && l.between[1] == peer) || (l.between[1] == node && l.between[0] == peer)
        })
        .ok_or_else(|| {
            let known: Vec<String> = links
                .iter()
                .flat_map(|l| {
                    [
                        format!("{}.{}", l.between[0], l.between[1]),
                        format!("{}.{}", l.between[1], l.between[0]),
                    ]
                })
                .collect();
            known.join(", ")
        })
}
