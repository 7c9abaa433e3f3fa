//! The first stage of building a scenario: its nodes with their IPv4 addresses, and its
//! links, each becoming two ports (one per direction) with the link's rate, MTU, layer-2
//! framing, delay, loss and rate changes.
//!
//! An IPv4 link's MTU is at least 68 bytes (RFC 791, section 3.2, "Total Length").

use super::names::check_name;
use super::spec::{RateChangeSpec, ScenarioSpec};
use crate::classify::matcher::{format_ipv4, parse_ipv4};
use crate::config::error::{join_path, Issue};
use crate::ids::{NodeId, PortId, Table};
use crate::net::l2::{L2Framing, L2Overhead, ETHERNET_WIRE_BYTES};
use crate::net::link_loss::LossSpec;
use crate::net::port::{PortConfig, DEFAULT_TX_RING_PACKETS};
use crate::net::Node;
use crate::time::SimTime;
use crate::traffic::trace::read_rows;
use crate::units::Rate;
use std::collections::BTreeMap;
use std::path::Path;

/// Default link MTU, bytes.
const DEFAULT_MTU_BYTES: u64 = 1500;
/// Smallest MTU an IPv4 link may have (RFC 791).
const MIN_MTU_BYTES: u64 = 68;
/// Default layer-2 framing: Ethernet as on the wire (header, FCS, preamble, gap).
const DEFAULT_L2: L2Overhead = L2Overhead(ETHERNET_WIRE_BYTES, L2Framing::Ethernet);

/// The scenario's nodes, in name order, with the index of each name.
pub(super) struct Nodes {
    pub(super) list: Table<NodeId, Node>,
    by_name: BTreeMap<String, NodeId>,
}

impl Nodes {
    /// The index of the node called `name`; an error at `at` naming the known nodes if
    /// there is none.
    pub(super) fn index(&self, name: &str, at: String) -> Result<NodeId, Issue> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| Issue::unknown_name(at, "node", name, self.by_name.keys().map(String::as_str)))
    }

    /// The address of the node called `name`, if there is one.
    pub(super) fn address(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).map(|&i| self.list[i].address)
    }

    /// The name of node `index`.
    pub(super) fn name(&self, node: NodeId) -> &str {
        &self.list[node].name
    }
}

/// What a link gives each of its two directions beyond its [`PortConfig`].
pub(super) struct Direction {
    /// Random frame loss, if any.
    pub(super) loss: Option<LossSpec>,
    /// (when, new rate in bit/s), in time order.
    pub(super) rate_changes: Vec<(SimTime, u64)>,
}

/// The network as wired: nodes, and per port (two per link: a->b, then b->a) its static
/// facts and what its link does to it during the run.
pub(super) struct Topology {
    pub(super) nodes: Nodes,
    pub(super) ports: Table<PortId, PortConfig>,
    pub(super) directions: Table<PortId, Direction>,
}

/// The nodes of `spec`, with their addresses (`10.0.x.y` in name order when not given).
pub(super) fn nodes(spec: &ScenarioSpec) -> Result<Nodes, Issue> {
    if spec.topology.nodes.is_empty() {
        return Err(Issue::at("topology.nodes", "no nodes")
            .hint("define the nodes under `topology.nodes`, e.g. `a: {kind: host}`"));
    }
    let mut list = Table::new();
    let mut by_name = BTreeMap::new();
    for (i, (name, node)) in spec.topology.nodes.iter().enumerate() {
        let at = format!("topology.nodes.{name}");
        check_name(name, "node", &at)?;
        let address = match &node.address {
            Some(text) => parse_ipv4(text).ok_or_else(|| {
                Issue::at(join_path(&at, "address"), format!("`{text}` is not an IPv4 address"))
                    .hint("write a.b.c.d")
            })?,
            None => u32::from_be_bytes([10, 0, (i / 250) as u8, (i % 250 + 1) as u8]),
        };
        if let Some(other) = list.iter().find(|n: &&Node| n.address == address) {
            return Err(Issue::at(
                join_path(&at, "address"),
                format!("address {} is also used by `{}`", format_ipv4(address), other.name),
            ));
        }
        let id = list.push_and_get_key(Node { name: name.clone(), kind: node.kind, address });
        by_name.insert(name.clone(), id);
    }
    Ok(Nodes { list, by_name })
}

/// The links of `spec` between `nodes`, as two ports each; trace files are read from
/// `base_dir`.
pub(super) fn links(spec: &ScenarioSpec, nodes: Nodes, base_dir: &Path) -> Result<Topology, Issue> {
    let mut ports = Table::new();
    let mut directions = Table::new();
    for (i, link) in spec.topology.links.iter().enumerate() {
        let at = format!("topology.links[{i}]");
        let a = nodes.index(&link.between[0], format!("{at}.between[0]"))?;
        let b = nodes.index(&link.between[1], format!("{at}.between[1]"))?;
        if a == b {
            return Err(Issue::at(format!("{at}.between"), "a link must join two different nodes"));
        }
        if let Some(j) = spec.topology.links[..i].iter().position(|l| {
            let mut x = l.between.clone();
            let mut y = link.between.clone();
            x.sort();
            y.sort();
            x == y
        }) {
            return Err(Issue::at(
                format!("{at}.between"),
                format!(
                    "`{}` and `{}` are already joined by topology.links[{j}]",
                    link.between[0], link.between[1]
                ),
            )
            .hint("parallel links are not supported: use one link with the combined rate"));
        }
        if link.rate.0 == 0 {
            return Err(Issue::at(format!("{at}.rate"), "a link rate must be above zero")
                .hint("write e.g. `128kbps`"));
        }
        let mtu = link.mtu.map_or(DEFAULT_MTU_BYTES, |m| m.0);
        if !(MIN_MTU_BYTES..=65_535).contains(&mtu) {
            return Err(Issue::at(format!("{at}.mtu"), format!("{mtu} B is not a usable IPv4 MTU"))
                .hint("use 68B to 65535B"));
        }
        let ring = check_ring(link.tx_ring, format!("{at}.tx_ring"))?.unwrap_or(DEFAULT_TX_RING_PACKETS);
        let bandwidth = check_bandwidth(link.bandwidth, format!("{at}.bandwidth"))?;
        let rate_changes = match &link.rate_trace {
            None => check_rate_changes(&link.rate_changes, &at)?,
            Some(_) if !link.rate_changes.is_empty() => {
                return Err(Issue::at(
                    format!("{at}.rate_trace"),
                    "a link takes `rate_changes` or `rate_trace`, not both",
                )
                .hint("move the changes into the trace file, or drop it"))
            }
            Some(file) => load_rate_trace(file, &format!("{at}.rate_trace"), base_dir)?,
        };
        for (from, to) in [(a, b), (b, a)] {
            directions.push(Direction { loss: link.loss, rate_changes: rate_changes.clone() });
            ports.push(PortConfig {
                name: format!("{}->{}", nodes.name(from), nodes.name(to)),
                node: from,
                peer: to,
                rate_bps: link.rate.0,
                l2_overhead_bytes: link.l2.unwrap_or(DEFAULT_L2).0,
                l2_framing: link.l2.unwrap_or(DEFAULT_L2).1,
                propagation_ns: link.delay.map_or(0, |d| d.0),
                mtu_bytes: mtu as u32,
                tx_ring_packets: ring,
                bandwidth_bps: bandwidth,
            });
        }
    }
    Ok(Topology { nodes, ports, directions })
}

/// A QoS bandwidth, if given, must be above zero.
pub(super) fn check_bandwidth(bandwidth: Option<Rate>, at: String) -> Result<Option<u64>, Issue> {
    match bandwidth {
        Some(Rate(0)) => Err(Issue::at(at, "a bandwidth must be above zero").hint("write e.g. `1544kbps`")),
        other => Ok(other.map(|r| r.0)),
    }
}

/// A transmit ring, if given, must hold at least one frame.
pub(super) fn check_ring(ring: Option<u32>, at: String) -> Result<Option<u32>, Issue> {
    match ring {
        Some(0) => Err(Issue::at(at, "a transmit ring must hold at least the frame on the wire")
            .hint("use 1 or more (1 = only the frame being sent)")),
        other => Ok(other),
    }
}

/// A link's rate changes read from the CSV file `file` (key path `at`), checked as
/// `rate_changes` are.
fn load_rate_trace(file: &str, at: &str, base_dir: &Path) -> Result<Vec<(SimTime, u64)>, Issue> {
    let path = base_dir.join(file);
    let origin = path.display().to_string();
    let rows = read_rows(&path, "rate_bps", "bit/s").map_err(|issue| issue.relocate(at))?;
    let mut schedule: Vec<(SimTime, u64)> = Vec::with_capacity(rows.len());
    for (at_ns, rate_bps) in rows {
        let when = format!("{origin}: the row at {} s", at_ns as f64 / 1e9);
        if rate_bps == 0 {
            return Err(Issue::at(at, format!("{when} has rate 0")).hint("a link rate must be above zero"));
        }
        if schedule.last().is_some_and(|&(last, _)| at_ns == last.0) {
            return Err(Issue::at(at, format!("{when} repeats the time of the row before it"))
                .hint("give each change its own time"));
        }
        schedule.push((SimTime(at_ns), rate_bps));
    }
    Ok(schedule)
}

/// A link's rate changes as (when, rate) in time order, checked.
fn check_rate_changes(changes: &[RateChangeSpec], at: &str) -> Result<Vec<(SimTime, u64)>, Issue> {
    let mut schedule: Vec<(SimTime, u64)> = Vec::with_capacity(changes.len());
    for (i, change) in changes.iter().enumerate() {
        let here = format!("{at}.rate_changes[{i}]");
        if change.rate.0 == 0 {
            return Err(Issue::at(format!("{here}.rate"), "a link rate must be above zero")
                .hint("to take a link down for a while, lower its rate instead: failures are not modelled"));
        }
        if schedule.last().is_some_and(|&(last, _)| change.at.0 <= last.0) {
            return Err(Issue::at(format!("{here}.at"), "rate changes must be in time order")
                .hint("list the changes by increasing `at`"));
        }
        schedule.push((SimTime(change.at.0), change.rate.0));
    }
    Ok(schedule)
}
