//! The tunnels' `flows` lists checked against the traffic: each names a traffic entry. (Each
//! flow row's crossing is found where the row is added, [`super::build_flows`], with
//! [`super::build_tunnels`]'s crossing of one path.)

use super::spec::ScenarioSpec;
use crate::config::error::Issue;

/// Refuses a name in a tunnel's `flows` list that is no traffic entry's.
pub(super) fn check_tunnel_flows(spec: &ScenarioSpec) -> Result<(), Issue> {
    for (i, tunnel) in spec.topology.tunnels.iter().enumerate() {
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
    Ok(())
}
