//! The third stage of building a scenario: the routing table — shortest paths through
//! routers (hosts do not forward), with the static routes of `topology.routes` on top —
//! and the tunnels of `topology.tunnels` ([`super::build_tunnels`]).

use super::build_interfaces::Interfaces;
use super::build_tunnels::build_tunnels;
use super::spec::{NodeKind, ScenarioSpec};
use crate::config::error::Issue;
use crate::ids::{NodeId, PortId, Table};
use crate::net::routing::RoutingTable;
use crate::net::tunnel::Tunnel;

/// Where packets go: the table, the links it routes over and the tunnels.
pub(super) struct Routes {
    pub(super) table: RoutingTable,
    /// Each port as (its node, its peer).
    pub(super) edges: Table<PortId, (NodeId, NodeId)>,
    pub(super) tunnels: Vec<Tunnel>,
}

/// The routes and tunnels of `spec` over `interfaces`.
pub(super) fn routes(spec: &ScenarioSpec, interfaces: &Interfaces) -> Result<Routes, Issue> {
    let nodes = &interfaces.nodes;
    let edges: Table<PortId, (NodeId, NodeId)> =
        interfaces.port_configs.iter().map(|p| (p.node, p.peer)).collect();
    let forwards: Table<NodeId, bool> = nodes.list.iter().map(|n| n.kind == NodeKind::Router).collect();
    let mut table = RoutingTable::shortest_paths(nodes.list.len(), &edges, &forwards);
    for (i, route) in spec.topology.routes.iter().enumerate() {
        let at = format!("topology.routes[{i}]");
        let from = nodes.index(&route.at, format!("{at}.at"))?;
        let to = nodes.index(&route.to, format!("{at}.to"))?;
        let via = nodes.index(&route.via, format!("{at}.via"))?;
        if via != to && nodes.list[via].kind == NodeKind::Host {
            return Err(Issue::at(
                format!("{at}.via"),
                format!("`{}` is a host, and hosts do not forward", route.via),
            )
            .hint("send the traffic via a router (or via the destination itself)"));
        }
        let p = edges.position(|&e| e == (from, via)).ok_or_else(|| {
            Issue::at(format!("{at}.via"), format!("`{}` is not a neighbour of `{}`", route.via, route.at))
                .hint("`via` must be at the other end of a link from `at`")
        })?;
        table.set(from, to, p);
    }
    let tunnels =
        build_tunnels(&spec.topology.tunnels, &|name, at| nodes.index(name, at), &|i| nodes.list[i].address)?;
    Ok(Routes { table, edges, tunnels })
}
