//! The second stage of building a scenario: each port's interface settings — written in
//! YAML (`interfaces.NODE.PEER`) or read from an IOS configuration ([`super::build_ios`]) —
//! and from them its output discipline, input policy, link fragmentation and interleaving,
//! random link loss, observation slot and schedule of changes ([`super::build_reconfig`]).
//! The observation points and capture plan of `measure` are checked here too, as they
//! name ports and mark observed ones.

use super::build_ios::{ios_interface, place_issue, with_router_configs, IosOrigins};
use super::build_measure::{capture_plan, observation_points};
use super::build_reconfig::{plan, resolve_policy, Timeline};
use super::build_topology::{check_bandwidth, check_ring, Direction, Nodes, Topology};
use super::names::check_name;
use super::spec::{InterfaceChangeSpec, InterfaceSpec, ScenarioSpec};
use crate::condition::{Conditioner, ConditionerSpec};
use crate::config::error::{join_path, Issue};
use crate::config::suggest::nearest;
use crate::engine::Rng;
use crate::ids::{NodeId, PortId, Table};
use crate::net::lfi::{Lfi, LfiSpec};
use crate::net::link_loss::LinkLoss;
use crate::net::pcap::CapturePlan;
use crate::net::port::{PortConfig, PortSetup};
use crate::packet::NO_HOP;
use crate::qdisc::{Interface, PolicySpec};
use crate::sim::RunInfo;
use std::path::Path;

/// The bandwidth a named policy is checked against before it is attached anywhere.
const NOMINAL_BANDWIDTH_BPS: u64 = 1_000_000_000;

/// The network with every interface configured: what the later stages build on.
pub(super) struct Interfaces {
    pub(super) nodes: Nodes,
    /// Each port's static facts, the interface's transmit ring and bandwidth applied.
    pub(super) port_configs: Table<PortId, PortConfig>,
    /// What each port is built from.
    pub(super) ports: Table<PortId, PortSetup>,
    /// The observation points of `measure.at`: `None` for end to end, else the port.
    pub(super) points: Vec<Option<PortId>>,
    /// How many ports are observed hops.
    pub(super) observed_hops: usize,
    /// What `measure.pcap` captures.
    pub(super) capture: CapturePlan,
    /// Notes on the IOS configurations read (lines not modelled), each once.
    pub(super) notes: Vec<String>,
}

/// What an interface sets on its port beyond the [`PortConfig`], each with its key path.
#[derive(Clone, Default)]
struct Settings<'a> {
    output: Option<(PolicySpec, String)>,
    hold_queue: Option<(u32, String)>,
    input: Option<(ConditionerSpec, String)>,
    lfi: Option<(LfiSpec, String)>,
    changes: &'a [InterfaceChangeSpec],
}

/// Checks the named policies on their own, so that an unused one is still checked; each
/// interface builds its own copy against its bandwidth later.
pub(super) fn check_policies(spec: &ScenarioSpec, nodes: &Nodes) -> Result<(), Issue> {
    for (name, policy) in &spec.policies {
        check_name(name, "policy", &format!("policies.{name}"))?;
        let nominal = Interface {
            bandwidth_bps: NOMINAL_BANDWIDTH_BPS,
            admission: false,
            random_seed: 0,
            device_header_bytes: 0,
            ios_header_bytes: 0,
        };
        policy.build(&format!("policies.{name}"), nominal, &|name| nodes.address(name))?;
    }
    Ok(())
}

/// Configures every interface of `topology`; IOS configurations are read from `base_dir`
/// and the random streams of the disciplines and link losses keyed on `run`'s seed.
pub(super) fn interfaces(
    spec: &ScenarioSpec,
    topology: Topology,
    run: &RunInfo,
    base_dir: &Path,
) -> Result<Interfaces, Issue> {
    let Topology { nodes, ports: mut port_configs, directions } = topology;
    let mut observed: Table<PortId, bool> = vec![false; port_configs.len()].into();
    let points = observation_points(&spec.measure, &port_configs, &mut observed)?;
    let capture = capture_plan(&spec.measure, &port_configs)?;
    let mut settings: Table<PortId, Settings> = vec![Settings::default(); port_configs.len()].into();
    let mut notes: Vec<String> = Vec::new();
    let (interfaces, ios_origins) = with_router_configs(spec)?;
    for (node, by_peer) in &interfaces {
        let from = nodes.index(node, format!("interfaces.{node}"))?;
        for (peer, interface) in by_peer {
            let at = format!("interfaces.{node}.{peer}");
            let p = port_of(&nodes, &port_configs, from, peer, &at)?;
            observed[p] |= interface.observe;
            settle(spec, interface, &at, &mut port_configs[p], &mut settings[p])?;
            if interface.ios.is_some() {
                let place = |issue| place_issue(issue, node, peer, &ios_origins);
                let note = settle_ios(interface, &at, &mut port_configs[p], &mut settings[p], base_dir)
                    .map_err(place)?;
                if let Some(note) = note {
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            }
            settings[p].changes = interface.changes.as_slice();
        }
    }
    let mut ports = Table::with_capacity(port_configs.len());
    for (i, config) in port_configs.iter_enumerated() {
        let observe_slot = match observed[i] {
            true => observed.iter().take(i.index()).filter(|&&o| o).count() as u32,
            false => NO_HOP,
        };
        let port = PortBuild { config, settings: &settings[i], direction: &directions[i], observe_slot };
        ports.push(build_port(spec, &port, &nodes, run, &ios_origins)?);
    }
    let observed_hops = observed.iter().filter(|&&o| o).count();
    Ok(Interfaces { nodes, port_configs, ports, points, observed_hops, capture, notes })
}

/// The port from node `from` to its neighbour `peer`; an error at `at` listing the
/// neighbours if `peer` is not one.
fn port_of(
    nodes: &Nodes,
    ports: &Table<PortId, PortConfig>,
    from: NodeId,
    peer: &str,
    at: &str,
) -> Result<PortId, Issue> {
    let neighbours = || ports.iter().filter(|p| p.node == from).map(|p| nodes.name(p.peer));
    ports.position(|p| p.node == from && nodes.name(p.peer) == peer).ok_or_else(|| {
        let node = nodes.name(from);
        let listing = neighbours().collect::<Vec<_>>().join(", ");
        let issue = Issue::at(at, format!("`{peer}` is not a neighbour of `{node}`"));
        match nearest(peer, neighbours()) {
            Some(best) => issue.hint(format!("did you mean `{best}`? (neighbours: {listing})")),
            None => issue.hint(format!("the neighbours of `{node}` are: {listing}")),
        }
    })
}

/// Applies the YAML settings of `interface` (at key path `at`) to its port.
fn settle(
    spec: &ScenarioSpec,
    interface: &InterfaceSpec,
    at: &str,
    config: &mut PortConfig,
    settings: &mut Settings,
) -> Result<(), Issue> {
    if let Some(ring) = check_ring(interface.tx_ring, join_path(at, "tx_ring"))? {
        config.tx_ring_packets = ring;
    }
    if let Some(bandwidth) = check_bandwidth(interface.bandwidth, join_path(at, "bandwidth"))? {
        config.bandwidth_bps = Some(bandwidth);
    }
    if let Some(packets) = interface.hold_queue {
        if packets == 0 {
            return Err(Issue::at(join_path(at, "hold_queue"), "a hold queue of 0 packets holds nothing"));
        }
        settings.hold_queue = Some((packets, join_path(at, "hold_queue")));
    }
    if let Some(lfi) = &interface.lfi {
        settings.lfi = Some((lfi.clone(), join_path(at, "lfi")));
    }
    if let Some(input) = &interface.input {
        settings.input = Some((input.clone(), join_path(at, "input")));
    }
    settings.output = match &interface.output {
        None => None,
        Some(output) => {
            let (policy, policy_at) = resolve_policy(output, &join_path(at, "output"), &spec.policies)?;
            Some((policy.clone(), policy_at))
        }
    };
    Ok(())
}

/// Applies the IOS configuration of `interface` (at key path `at`), which sets the whole
/// interface, to its port; returns the configuration's note on lines not modelled.
fn settle_ios(
    interface: &InterfaceSpec,
    at: &str,
    config: &mut PortConfig,
    settings: &mut Settings,
    base_dir: &Path,
) -> Result<Option<String>, Issue> {
    let Some(ios) = &interface.ios else { return Ok(None) };
    let ios_at = join_path(at, "ios");
    let set_too = [
        ("output", interface.output.is_some()),
        ("input", interface.input.is_some()),
        ("bandwidth", interface.bandwidth.is_some()),
        ("hold_queue", interface.hold_queue.is_some()),
        ("tx_ring", interface.tx_ring.is_some()),
        ("lfi", interface.lfi.is_some()),
    ];
    if let Some((key, _)) = set_too.iter().find(|(_, set)| *set) {
        return Err(Issue::at(
            join_path(at, key),
            format!("`{key}` is set by the IOS configuration in `ios`"),
        )
        .hint("remove one of them: the configuration sets the whole interface"));
    }
    let imported = ios_interface(ios, &ios_at, config.rate_bps, base_dir)?;
    config.bandwidth_bps = imported.bandwidth_bps.or(config.bandwidth_bps);
    if let Some(ring) = imported.tx_ring {
        config.tx_ring_packets = ring;
    }
    let config_at = join_path(&ios_at, "config");
    if let Some(packets) = imported.hold_queue {
        settings.hold_queue = Some((packets, config_at.clone()));
    }
    settings.output = Some((imported.output, config_at.clone()));
    settings.input = imported.input.map(|input| (input, config_at.clone()));
    settings.lfi = imported.lfi.map(|lfi| (lfi, config_at));
    Ok(imported.note)
}

/// One port's part of [`interfaces`].
struct PortBuild<'a> {
    config: &'a PortConfig,
    settings: &'a Settings<'a>,
    direction: &'a Direction,
    observe_slot: u32,
}

/// Builds what port `port` is made of: its disciplines (the first one and those its
/// schedule installs), input policy, fragmentation and link loss.
fn build_port(
    spec: &ScenarioSpec,
    port: &PortBuild,
    nodes: &Nodes,
    run: &RunInfo,
    ios_origins: &IosOrigins,
) -> Result<PortSetup, Issue> {
    let PortBuild { config, settings, direction, observe_slot } = *port;
    let node_address = |name: &str| nodes.address(name);
    let (policy, policy_at) =
        settings.output.clone().unwrap_or_else(|| (PolicySpec::default_output(), String::new()));
    let policy = match &settings.hold_queue {
        Some((packets, at)) => {
            policy.with_hold_queue(*packets).map_err(|why| Issue::at(at, why.to_string()))?
        }
        None => policy,
    };
    let random_seed = |number: u64| {
        let stream = match number {
            0 => format!("port {}", config.name),
            n => format!("port {} #{n}", config.name),
        };
        Rng::for_stream(run.seed, run.replication, &stream).next_u64()
    };
    let build_policy = |policy: &PolicySpec, at: &str, bandwidth_bps: u64, number: u64| {
        let interface = Interface {
            bandwidth_bps,
            admission: true,
            random_seed: random_seed(number),
            device_header_bytes: config.l2_framing.device_header_bytes(),
            ios_header_bytes: config.l2_framing.ios_header_bytes(),
        };
        policy.build(at, interface, &node_address)
    };
    let (node, peer) = (nodes.name(config.node), nodes.name(config.peer));
    // A problem of a policy from an IOS configuration belongs where that was given.
    let place = |issue: Issue| place_issue(issue, node, peer, ios_origins);
    let qdisc = build_policy(&policy, &policy_at, config.qos_bandwidth_bps(), 0).map_err(|issue| {
        // A problem of the attachment as a whole (a reservation above what the interface
        // allows) belongs to the interface, not to the policy's text.
        if issue.key_path == policy_at && !policy_at.ends_with(".ios.config") {
            Issue { key_path: format!("interfaces.{node}.{peer}.output"), ..issue }
        } else {
            place(issue)
        }
    })?;
    let timeline = Timeline {
        at: format!("interfaces.{node}.{peer}"),
        rate_bps: config.rate_bps,
        bandwidth_bps: config.bandwidth_bps,
        policy: (policy, policy_at),
        hold_queue: settings.hold_queue.as_ref().map(|(packets, _)| *packets),
        rate_changes: &direction.rate_changes,
        changes: settings.changes,
    };
    let schedule = plan(&timeline, &spec.policies, &build_policy)?;
    let lfi = match &settings.lfi {
        Some((lfi, lfi_at)) => Some(Lfi::build(lfi, lfi_at, config.qos_bandwidth_bps()).map_err(place)?),
        None => None,
    };
    let link_loss = direction.loss.map(|spec| {
        LinkLoss::new(spec, Rng::for_stream(run.seed, run.replication, &format!("link {}", config.name)))
    });
    let ingress = match &settings.input {
        // Percentage rates in the input policy are of this interface's QoS bandwidth.
        Some((input, input_at)) => Some(
            Conditioner::build(
                input,
                input_at,
                config.qos_bandwidth_bps(),
                config.l2_framing.ios_header_bytes(),
                &node_address,
            )
            .map_err(place)?,
        ),
        None => None,
    };
    Ok(PortSetup { config: config.clone(), qdisc, ingress, link_loss, lfi, observe_slot, schedule })
}
