//! The output policy a scenario's interface runs, as plain data: what a tool that rewrites
//! the policy (the advisor) starts from.
//!
//! The scenario is read and built first, so what a run refuses is refused here with the same
//! message. The policy is the one the build takes: named in `policies` or written in place
//! under the interface (as the document holds it, the variant and overrides applied), or
//! read from the IOS configuration that sets the interface — the interface's own `ios`
//! entry or its router's configuration named by a link — in the scenario form the IOS import
//! writes (`qoslab ios yaml`). A shaper at the root (`tbf`) is also given resolved: its rate
//! in bit/s, a percentage taken of the interface's QoS bandwidth as the build takes it. The
//! input policy of the interface's peer (where a provider polices what the interface sends)
//! is given as the document holds it.

use super::build::build;
use super::build_ios::{ios_interface, place_issue, with_router_configs};
use super::build_topology::{links, nodes};
use super::limits::Limits;
use super::{base_dir, read, Read, Selection};
use crate::config::error::{Issue, ScenarioError};
use crate::qdisc::shaper_credit::{ShapeSpec, ShaperCredit};
use crate::qdisc::PolicySpec;
use serde_json::{json, Value};

/// Interface `interface` (`NODE.PEER`) of the form of the scenario that `selection` chooses:
/// `{"output": POLICY, "from_ios": BOOL, "line_rate_bps": LINE, "shaper_rate_bps": RATE |
/// null, "peer_input": INPUT | null}`, where POLICY is its output policy as scenario data
/// (null for the default FIFO), LINE its link's physical rate at the start of the run, RATE
/// the rate of a shaper at its root and INPUT the input policy written for PEER's interface
/// from NODE.
pub fn interface_output(
    text: &str,
    origin: &str,
    selection: &Selection,
    interface: &str,
) -> Result<Value, ScenarioError> {
    let Read { spec, located, document, .. } = read(text, origin, selection.variant, selection.overrides)?;
    let base_dir = base_dir(origin);
    // Nothing is run, so no limit on what a run may cost applies.
    let unlimited = Limits { max_memory_bytes: u64::MAX, max_events: u64::MAX };
    build(&spec, selection.seed, &base_dir, &unlimited).map_err(|issue| located.error(issue))?;
    let Some((node, peer)) = interface.split_once('.').filter(|(n, p)| !n.is_empty() && !p.is_empty()) else {
        let issue = Issue::at("", format!("`{interface}` does not name an interface"))
            .hint("write NODE.PEER, the egress of NODE towards its neighbour PEER (e.g. r1.r2)");
        return Err(located.error(issue));
    };
    let topology = links(&spec, nodes(&spec).map_err(|i| located.error(i))?, &base_dir)
        .map_err(|issue| located.error(issue))?;
    let Some(port) = topology.ports.iter().find(|p| p.name == format!("{node}->{peer}")) else {
        let issue = Issue::at("topology.links", format!("no link joins `{node}` and `{peer}`"))
            .hint("name an interface as NODE.PEER of two linked nodes");
        return Err(located.error(issue));
    };
    let (interfaces, ios_origins) = with_router_configs(&spec).map_err(|issue| located.error(issue))?;
    let entry = interfaces.get(node).and_then(|by_peer| by_peer.get(peer));
    let at = format!("interfaces.{node}.{peer}");
    let (output, from_ios, bandwidth_bps) = match entry.and_then(|e| e.ios.as_ref()) {
        Some(ios) => {
            let imported = ios_interface(ios, &format!("{at}.ios"), port.rate_bps, &base_dir)
                .map_err(|issue| located.error(place_issue(issue, node, peer, &ios_origins)))?;
            let bandwidth = imported.bandwidth_bps.or(port.bandwidth_bps);
            (imported.output_document, true, bandwidth)
        }
        None => {
            let written = document.pointer(&format!("/interfaces/{node}/{peer}/output")).cloned();
            let policy = match written {
                Some(Value::String(name)) => document.pointer(&format!("/policies/{name}")).cloned(),
                other => other,
            };
            let bandwidth = entry.and_then(|e| e.bandwidth).map(|b| b.0).or(port.bandwidth_bps);
            (policy.unwrap_or(Value::Null), false, bandwidth)
        }
    };
    let shaper_rate_bps = shaper_rate(&output, bandwidth_bps.unwrap_or(port.rate_bps));
    let peer_input =
        document.pointer(&format!("/interfaces/{peer}/{node}/input")).cloned().unwrap_or(Value::Null);
    Ok(json!({
        "output": output,
        "from_ios": from_ios,
        "line_rate_bps": port.rate_bps,
        "shaper_rate_bps": shaper_rate_bps,
        "peer_input": peer_input,
    }))
}

/// The rate of the shaper at the root of `output`, on an interface of `bandwidth_bps`.
fn shaper_rate(output: &Value, bandwidth_bps: u64) -> Option<u64> {
    let Ok(PolicySpec::Tbf(tbf)) = serde_json::from_value::<PolicySpec>(output.clone()) else { return None };
    let shape = ShapeSpec { rate: tbf.rate, bc: tbf.bc, be: tbf.be, mode: tbf.mode };
    ShaperCredit::build(&shape, "output", bandwidth_bps).ok().map(|credit| credit.rate_bps())
}
