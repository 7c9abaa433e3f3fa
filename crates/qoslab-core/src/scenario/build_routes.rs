//! The third stage of building a scenario: the routing table — shortest paths through
//! routers (hosts do not forward), with the static routes of `topology.routes` on top —
//! and the tunnels of `topology.tunnels` ([`super::build_tunnels`]).

use super::build_interfaces::Network;
use super::build_tunnels::build_tunnels;
use super::spec::{NodeKind, ScenarioSpec};
use crate::config::error::Issue;
use crate::net::routing::RoutingTable;
use crate::net::tunnel::Tunnel;

/// Where packets go: the table, the links it routes over and the tunnels.
pub(super) struct Routes {
    pub(super) table: RoutingTable,
    /// Each port as (its node, its peer), by port index.
    pub(super) edges: Vec<(u32, u32)>,
    pub(super) tunnels: Vec<Tunnel>,
}

/// The routes and tunnels of `spec` over `network`.
pub(super) fn routes(spec: &ScenarioSpec, network: &Network) -> Result<Routes, Issue> {
    let nodes = &network.nodes;
    let edges: Vec<(u32, u32)> = network.port_configs.iter().map(|p| (p.node, p.peer)).collect();
    let forwards: Vec<bool> = nodes.list.iter().map(|n| n.kind == NodeKind::Router).collect();
    let mut table = RoutingTable::shortest_paths(nodes.list.len(), &edges, &forwards);
    for (i, route) in spec.topology.routes.iter().enumerate() {
        let at = format!("topology.routes[{i}]");
        let from = nodes.index(&route.at, format!("{at}.at"))?;
        let to = nodes.index(&route.to, format!("{at}.to"))?;
        let via = nodes.index(&route.via, format!("{at}.via"))?;
        if via != to && nodes.list[via as usize].kind == NodeKind::Host {
            return Err(Issue::at(
                format!("{at}.via"),
                format!("`{}` is a host, and hosts do not forward", route.via),
            )
            .hint("send the traffic via a router (or via the destination itself)"));
        }
        let p = edges.iter().position(|&e| e == (from, via)).ok_or_else(|| {
            Issue::at(format!("{at}.via"), format!("`{}` is not a neighbour of `{}`", route.via, route.at))
                .hint("`via` must be at the other end of a link from `at`")
        })?;
        table.set(from, to, p as u32);
    }
    let tunnels = build_tunnels(&spec.topology.tunnels, &|name, at| nodes.index(name, at), &|i| {
        nodes.list[i as usize].address
    })?;
    Ok(Routes { table, edges, tunnels })
}
