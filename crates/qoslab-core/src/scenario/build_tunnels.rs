//! Tunnels of a scenario: building them, and finding which tunnel a path crosses (each flow's
//! crossing, once the routes are known, is [`super::build_flow_tunnels`]).
//!
//! A flow crosses a tunnel when both of the tunnel's ends are on its path (its source and
//! destination count), and the tunnel's `flows` list, if any, names it. It enters at the
//! end it reaches first and leaves at the other. A path may cross one tunnel at most.

use super::flow_spec::belongs;
use crate::config::error::Issue;
use crate::ids::{NodeId, PortId, Table};
use crate::net::port::PortConfig;
use crate::net::tunnel::{FlowTunnel, Tunnel, TunnelSpec};

/// The tunnels of `specs`, with `node_index` resolving (and checking) end names and
/// `address` giving a node's address.
pub(super) fn build_tunnels(
    specs: &[TunnelSpec],
    node_index: &dyn Fn(&str, String) -> Result<NodeId, Issue>,
    address: &dyn Fn(NodeId) -> u32,
) -> Result<Vec<Tunnel>, Issue> {
    let mut tunnels: Vec<Tunnel> = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let at = format!("topology.tunnels[{i}]");
        let a = node_index(&spec.between[0], format!("{at}.between[0]"))?;
        let b = node_index(&spec.between[1], format!("{at}.between[1]"))?;
        if a == b {
            return Err(Issue::at(format!("{at}.between"), "a tunnel joins two different nodes")
                .hint("name the VPN client (or site router) and the far end of the tunnel"));
        }
        tunnels.push(Tunnel::build(spec, &at, [a, b], [address(a), address(b)])?);
    }
    Ok(tunnels)
}

/// How the flow row `row` crosses a tunnel along `path` from node `from`, if it does; an
/// error at `at` if it would cross two.
pub(super) fn crossing(
    tunnels: &[Tunnel],
    specs: &[TunnelSpec],
    row: &str,
    from: NodeId,
    path: &[PortId],
    ports: &Table<PortId, PortConfig>,
    at: &str,
) -> Result<Option<FlowTunnel>, Issue> {
    let nodes: Vec<NodeId> = std::iter::once(from).chain(path.iter().map(|&p| ports[p].peer)).collect();
    let mut found: Option<(usize, FlowTunnel)> = None;
    for (t, (tunnel, spec)) in tunnels.iter().zip(specs).enumerate() {
        if spec.flows.as_ref().is_some_and(|names| !names.iter().any(|n| belongs(row, n))) {
            continue;
        }
        let position = |node: NodeId| nodes.iter().position(|&n| n == node);
        let (Some(x), Some(y)) = (position(tunnel.ends[0]), position(tunnel.ends[1])) else {
            continue;
        };
        let (entry, exit, end) = if x < y { (x, y, 0) } else { (y, x, 1) };
        if let Some((other, _)) = found {
            return Err(Issue::at(
                at,
                format!("`{row}` would cross topology.tunnels[{other}] and topology.tunnels[{t}]"),
            )
            .hint("tunnels inside tunnels are not modelled: limit them with their `flows` lists"));
        }
        let crossing =
            FlowTunnel { tunnel: t as u32, from: end, entry_port: path[entry], exit_node: nodes[exit] };
        found = Some((t, crossing));
    }
    Ok(found.map(|(_, c)| c))
}

/// The largest IP packet the flow's path carries: the smallest MTU, where the ports inside
/// its tunnel leave room for the encapsulation.
pub(super) fn path_mtu_bytes(
    tunnels: &[Tunnel],
    crossing: Option<&FlowTunnel>,
    path: &[PortId],
    ports: &Table<PortId, PortConfig>,
) -> u32 {
    let mut inside = false;
    let mut mtu = u32::MAX;
    for &p in path {
        let port = &ports[p];
        if let Some(c) = crossing {
            if p == c.entry_port {
                inside = true;
            }
            if inside && port.node == c.exit_node {
                inside = false;
            }
        }
        let limit = match crossing {
            Some(c) if inside => tunnels[c.tunnel as usize].largest_inner_bytes(port.mtu_bytes),
            _ => port.mtu_bytes,
        };
        mtu = mtu.min(limit);
    }
    mtu
}
