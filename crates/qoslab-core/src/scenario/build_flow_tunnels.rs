//! The tunnel each flow row crosses, found once the routes are known: the stage after the
//! flows ([`super::build_tunnels`] gives the crossing of one path).

use super::build_routes::Routes;
use super::build_tunnels::crossing;
use super::spec::ScenarioSpec;
use crate::config::error::Issue;
use crate::ids::{FlowId, PortId, Table};
use crate::net::port::PortConfig;
use crate::net::tunnel::FlowTunnel;
use crate::packet::Packet;
use crate::sim::FlowInfo;

/// The tunnel each flow row crosses, if any (all rows, echoes and applications' rows
/// included), with the header of the row's packets; the tunnels' `flows` lists must name
/// traffic entries.
pub(super) fn flow_tunnels(
    spec: &ScenarioSpec,
    routes: &Routes,
    flows: &Table<FlowId, FlowInfo>,
    ports: &Table<PortId, PortConfig>,
) -> Result<Table<FlowId, Option<(FlowTunnel, Packet)>>, Issue> {
    let specs = &spec.topology.tunnels;
    let mut crossings = Table::with_capacity(flows.len());
    for info in flows {
        let path =
            routes.table.path(info.from, info.to, &routes.edges).expect("every row's path was checked");
        let at = "topology.tunnels";
        let crossing = crossing(&routes.tunnels, specs, &info.name, info.from, &path, ports, at)?;
        crossings.push(crossing.map(|c| (c, info.template)));
    }
    for (i, tunnel) in specs.iter().enumerate() {
        for (k, name) in tunnel.flows.iter().flatten().enumerate() {
            if !spec.traffic.iter().any(|f| f.name == *name) {
                return Err(Issue::unknown_name(
                    format!("topology.tunnels[{i}].flows[{k}]"),
                    "flow",
                    name,
                    spec.traffic.iter().map(|f| f.name.as_str()),
                ));
            }
        }
    }
    Ok(crossings)
}
