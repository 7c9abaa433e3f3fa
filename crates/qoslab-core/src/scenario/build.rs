//! From a deserialized scenario to a runnable [`Simulation`]: every cross-reference and
//! value the types cannot check is checked here, each problem reported at its key path.

use super::build_app::{add_app, AppFlow};
use super::build_ios::{ios_interface, place_issue, with_router_configs};
use super::build_measure::{attach_series, attach_voice, build_quality, capture_plan, observation_points};
use super::build_reconfig::{plan, resolve_policy, Timeline};
use super::build_trace::trace_setup;
use super::build_tunnels::{build_tunnels, crossing, path_mtu_bytes};
use super::limits::{check_structures, Limits, Workload};
use super::spec::{NodeKind, RateChangeSpec, ScenarioSpec};
use crate::classify::matcher::{format_ipv4, parse_ipv4};
use crate::condition::{Conditioner, ConditionerSpec};
use crate::config::error::{join_path, Issue};
use crate::config::suggest::nearest;
use crate::engine::Rng;
use crate::measure::hop_stats::HopStats;
use crate::measure::trace::Trace;
use crate::measure::{FlowStats, Observers};
use crate::net::l2::{L2Framing, L2Overhead};
use crate::net::lfi::Lfi;
use crate::net::link_loss::LinkLoss;
use crate::net::port::{Port, PortConfig, DEFAULT_TX_RING_PACKETS};
use crate::net::routing::{PathError, RoutingTable};
use crate::net::tunnel::Tunnels;
use crate::net::Node;
use crate::packet::{protocol, Packet, ECT_0};
use crate::qdisc::{Interface, PolicySpec};
use crate::scenario::flow_spec::FlowSpec;
use crate::sim::{AppSetup, Echo, FlowInfo, RunIdentity, RunInfo, Simulation};
use crate::tcp::TcpStack;
use crate::time::{SimTime, NS_PER_S};
use crate::traffic::pattern::PatternEnv;
use crate::traffic::source::{DEFAULT_DST_PORT, DEFAULT_SRC_PORT_BASE};
use crate::traffic::trace::read_rows;
use crate::traffic::Source;
use crate::traffic::{Period, Phase};
use crate::units::Rate;
use std::collections::BTreeMap;
use std::path::Path;

/// Default link MTU, bytes.
const DEFAULT_MTU_BYTES: u64 = 1500;
/// Smallest MTU an IPv4 link may have (RFC 791).
const MIN_MTU_BYTES: u64 = 68;
/// The bandwidth a named policy is checked against before it is attached anywhere.
const NOMINAL_BANDWIDTH_BPS: u64 = 1_000_000_000;
/// Default layer-2 framing: Ethernet header + FCS.
const DEFAULT_L2: L2Overhead = L2Overhead(18, L2Framing::Ethernet);

/// Node and policy names become parts of key paths (`interfaces.r1.r2.output`, `--set`),
/// so they are restricted to characters that need no quoting there or in a shell.
pub(super) fn check_name(name: &str, what: &str, at: &str) -> Result<(), Issue> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if valid {
        Ok(())
    } else {
        Err(Issue::at(at, format!("{what} name `{name}` has characters that key paths cannot carry"))
            .hint("use letters, digits, `-` and `_`, starting with a letter or digit"))
    }
}

/// A QoS bandwidth, if given, must be above zero.
fn check_bandwidth(bandwidth: Option<Rate>, at: String) -> Result<Option<u64>, Issue> {
    match bandwidth {
        Some(Rate(0)) => Err(Issue::at(at, "a bandwidth must be above zero").hint("write e.g. `1544kbps`")),
        other => Ok(other.map(|r| r.0)),
    }
}

fn check_ring(ring: Option<u32>, at: String) -> Result<Option<u32>, Issue> {
    match ring {
        Some(0) => Err(Issue::at(at, "a transmit ring must hold at least the frame on the wire")
            .hint("use 1 or more (1 = only the frame being sent)")),
        other => Ok(other),
    }
}

/// The rates of the ports `hops`, bit/s.
fn rates_bps<'a>(hops: &'a [u32], ports: &'a [PortConfig]) -> impl Iterator<Item = u64> + 'a {
    hops.iter().map(|&p| ports[p as usize].rate_bps)
}

/// Builds a simulation from `spec`; `seed` replaces the scenario's seed when given. A
/// scenario that would need more memory or events than `limits` allow is refused.
pub fn build(
    spec: &ScenarioSpec,
    seed: Option<u64>,
    base_dir: &Path,
    limits: &Limits,
) -> Result<Simulation, Issue> {
    let structures_bytes = check_structures(spec, limits)?;
    let mut work = Workload::default();
    // Run control.
    if spec.run.duration.0 == 0 {
        return Err(Issue::at("run.duration", "must be greater than zero").hint("write e.g. `60s`"));
    }
    let warmup_ns = spec.run.warmup.map_or(0, |w| w.0);
    let mut run = RunInfo {
        scenario: spec.name.clone(),
        seed: seed.or(spec.run.seed).unwrap_or(1),
        replication: spec.run.replication.unwrap_or(0),
        identity: RunIdentity::default(),
        warmup_end: SimTime(warmup_ns),
        end: SimTime(warmup_ns.checked_add(spec.run.duration.0).ok_or_else(|| {
            Issue::at("run", "the warm-up and the duration add up to more than 584 years")
                .hint("simulated time is counted in nanoseconds in 64 bits: shorten them")
        })?),
        notes: Vec::new(),
        order_of_failure: spec.measure.order_of_failure.clone(),
    };
    let gap_threshold_ns = spec.run.jitter_gap_threshold.map_or(NS_PER_S, |d| d.0);

    // Nodes, in name order (the map is sorted), with addresses.
    if spec.topology.nodes.is_empty() {
        return Err(Issue::at("topology.nodes", "no nodes")
            .hint("define the nodes under `topology.nodes`, e.g. `a: {kind: host}`"));
    }
    let mut nodes = Vec::new();
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
        if let Some(other) = nodes.iter().find(|n: &&Node| n.address == address) {
            return Err(Issue::at(
                join_path(&at, "address"),
                format!("address {} is also used by `{}`", format_ipv4(address), other.name),
            ));
        }
        by_name.insert(name.as_str(), i as u32);
        nodes.push(Node { name: name.clone(), kind: node.kind, address });
    }
    let node_names = || spec.topology.nodes.keys().map(String::as_str);
    let node_index = |name: &str, at: String| -> Result<u32, Issue> {
        by_name.get(name).copied().ok_or_else(|| Issue::unknown_name(at, "node", name, node_names()))
    };
    let node_address = |name: &str| by_name.get(name).map(|&i| nodes[i as usize].address);

    // Named policies are checked on their own first, so an unused one is still checked;
    // each interface builds its own copy against its bandwidth below.
    for (name, policy) in &spec.policies {
        check_name(name, "policy", &format!("policies.{name}"))?;
        let nominal = Interface { bandwidth_bps: NOMINAL_BANDWIDTH_BPS, admission: false, random_seed: 0 };
        policy.build(&format!("policies.{name}"), nominal, &node_address)?;
    }

    // Links → two ports each: a->b, then b->a.
    let mut port_configs = Vec::new();
    let mut link_losses = Vec::new();
    let mut link_rate_changes = Vec::new();
    for (i, link) in spec.topology.links.iter().enumerate() {
        let at = format!("topology.links[{i}]");
        let a = node_index(&link.between[0], format!("{at}.between[0]"))?;
        let b = node_index(&link.between[1], format!("{at}.between[1]"))?;
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
            link_losses.push(link.loss);
            link_rate_changes.push(rate_changes.clone());
            port_configs.push(PortConfig {
                name: format!("{}->{}", nodes[from as usize].name, nodes[to as usize].name),
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

    // Interfaces: per-direction settings, then each port's output discipline.
    let mut outputs: Vec<Option<(PolicySpec, String)>> = vec![None; port_configs.len()];
    let mut hold_queues: Vec<Option<(u32, String)>> = vec![None; port_configs.len()];
    let mut inputs: Vec<Option<(ConditionerSpec, String)>> = vec![None; port_configs.len()];
    let mut observed = vec![false; port_configs.len()];
    let points = observation_points(&spec.measure, &port_configs, &mut observed)?;
    let capture = capture_plan(&spec.measure, &port_configs)?;
    let mut lfis = vec![None; port_configs.len()];
    let mut changes: Vec<&[_]> = vec![&[]; port_configs.len()];
    let (interfaces, ios_origins) = with_router_configs(spec)?;
    for (node, by_peer) in &interfaces {
        let from = node_index(node, format!("interfaces.{node}"))?;
        for (peer, interface) in by_peer {
            let at = format!("interfaces.{node}.{peer}");
            let neighbours = || {
                port_configs.iter().filter(|p| p.node == from).map(|p| nodes[p.peer as usize].name.as_str())
            };
            let p = port_configs
                .iter()
                .position(|p| p.node == from && nodes[p.peer as usize].name == *peer)
                .ok_or_else(|| {
                    let listing = neighbours().collect::<Vec<_>>().join(", ");
                    let issue = Issue::at(&at, format!("`{peer}` is not a neighbour of `{node}`"));
                    match nearest(peer, neighbours()) {
                        Some(best) => issue.hint(format!("did you mean `{best}`? (neighbours: {listing})")),
                        None => issue.hint(format!("the neighbours of `{node}` are: {listing}")),
                    }
                })?;
            let config = &mut port_configs[p];
            if let Some(ring) = check_ring(interface.tx_ring, join_path(&at, "tx_ring"))? {
                config.tx_ring_packets = ring;
            }
            if let Some(bandwidth) = check_bandwidth(interface.bandwidth, join_path(&at, "bandwidth"))? {
                config.bandwidth_bps = Some(bandwidth);
            }
            if let Some(packets) = interface.hold_queue {
                if packets == 0 {
                    return Err(Issue::at(
                        join_path(&at, "hold_queue"),
                        "a hold queue of 0 packets holds nothing",
                    ));
                }
                hold_queues[p] = Some((packets, join_path(&at, "hold_queue")));
            }
            observed[p] |= interface.observe;
            if let Some(lfi) = &interface.lfi {
                lfis[p] = Some((lfi.clone(), join_path(&at, "lfi")));
            }
            if let Some(input) = &interface.input {
                inputs[p] = Some((input.clone(), join_path(&at, "input")));
            }
            outputs[p] = match &interface.output {
                None => None,
                Some(output) => {
                    let (policy, policy_at) =
                        resolve_policy(output, &join_path(&at, "output"), &spec.policies)?;
                    Some((policy.clone(), policy_at))
                }
            };
            if let Some(ios) = &interface.ios {
                let ios_at = join_path(&at, "ios");
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
                        join_path(&at, key),
                        format!("`{key}` is set by the IOS configuration in `ios`"),
                    )
                    .hint("remove one of them: the configuration sets the whole interface"));
                }
                let config = &mut port_configs[p];
                let imported = ios_interface(ios, &ios_at, config.rate_bps, base_dir)
                    .map_err(|issue| place_issue(issue, node, peer, &ios_origins))?;
                if let Some(note) = &imported.note {
                    if !run.notes.contains(note) {
                        run.notes.push(note.clone());
                    }
                }
                config.bandwidth_bps = imported.bandwidth_bps.or(config.bandwidth_bps);
                if let Some(ring) = imported.tx_ring {
                    config.tx_ring_packets = ring;
                }
                if let Some(packets) = imported.hold_queue {
                    hold_queues[p] = Some((packets, join_path(&ios_at, "config")));
                }
                outputs[p] = Some((imported.output, join_path(&ios_at, "config")));
                inputs[p] = imported.input.map(|input| (input, join_path(&ios_at, "config")));
                lfis[p] = imported.lfi.map(|lfi| (lfi, join_path(&ios_at, "config")));
            }
            changes[p] = interface.changes.as_slice();
        }
    }
    let default_output = PolicySpec::default_output();
    let mut ports = Vec::with_capacity(port_configs.len());
    for (i, config) in port_configs.iter().enumerate() {
        let (policy, policy_at) = outputs[i].clone().unwrap_or((default_output.clone(), String::new()));
        let policy = match &hold_queues[i] {
            Some((packets, at)) => {
                policy.with_hold_queue(*packets).map_err(|why| Issue::at(at, why.to_string()))?
            }
            None => policy.clone(),
        };
        let random_seed = |number: u64| {
            let stream = match number {
                0 => format!("port {}", config.name),
                n => format!("port {} #{n}", config.name),
            };
            Rng::for_stream(run.seed, run.replication, &stream).next_u64()
        };
        let build_policy = |policy: &PolicySpec, at: &str, bandwidth_bps: u64, number: u64| {
            let interface = Interface { bandwidth_bps, admission: true, random_seed: random_seed(number) };
            policy.build(at, interface, &node_address)
        };
        let (node, peer) = (&nodes[config.node as usize].name, &nodes[config.peer as usize].name);
        // A problem of a policy from an IOS configuration belongs where that was given.
        let place = |issue: Issue| place_issue(issue, node, peer, &ios_origins);
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
            at: format!(
                "interfaces.{}.{}",
                nodes[config.node as usize].name, nodes[config.peer as usize].name
            ),
            rate_bps: config.rate_bps,
            bandwidth_bps: config.bandwidth_bps,
            policy: (policy, policy_at),
            hold_queue: hold_queues[i].as_ref().map(|(packets, _)| *packets),
            rate_changes: &link_rate_changes[i],
            changes: changes[i],
        };
        let schedule = plan(&timeline, &spec.policies, &build_policy)?;
        let mut port = Port::new(i as u32, config.clone(), qdisc);
        if observed[i] {
            port.observe_slot = observed[..i].iter().filter(|&&o| o).count() as u32;
        }
        port.schedule = schedule;
        if let Some((lfi, lfi_at)) = &lfis[i] {
            port.lfi = Some(Lfi::build(lfi, lfi_at, config.qos_bandwidth_bps()).map_err(place)?);
        }
        port.link_loss = link_losses[i].map(|spec| {
            LinkLoss::new(spec, Rng::for_stream(run.seed, run.replication, &format!("link {}", config.name)))
        });
        if let Some((input, input_at)) = &inputs[i] {
            // Percentage rates in the input policy are of this interface's QoS bandwidth.
            let bandwidth_bps = config.qos_bandwidth_bps();
            port.ingress =
                Some(Conditioner::build(input, input_at, bandwidth_bps, &node_address).map_err(place)?);
        }
        ports.push(port);
    }

    // Routing.
    let edges: Vec<(u32, u32)> = port_configs.iter().map(|p| (p.node, p.peer)).collect();
    let forwards: Vec<bool> = nodes.iter().map(|n| n.kind == NodeKind::Router).collect();
    let mut routes = RoutingTable::shortest_paths(nodes.len(), &edges, &forwards);
    for (i, route) in spec.topology.routes.iter().enumerate() {
        let at = format!("topology.routes[{i}]");
        let from = node_index(&route.at, format!("{at}.at"))?;
        let to = node_index(&route.to, format!("{at}.to"))?;
        let via = node_index(&route.via, format!("{at}.via"))?;
        if via != to && nodes[via as usize].kind == NodeKind::Host {
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
        routes.set(from, to, p as u32);
    }

    // Tunnels.
    let tunnel_specs = &spec.topology.tunnels;
    let tunnels =
        build_tunnels(tunnel_specs, &|name, at| node_index(name, at), &|i| nodes[i as usize].address)?;

    // Flows.
    let mut sources = Vec::new();
    let mut flows = Vec::new();
    let mut flow_stats = Vec::new();
    let mut apps =
        AppSetup { stack: TcpStack::default(), apps: Vec::new(), starts: Vec::new(), info: Vec::new() };
    let traffic = expand_copies(&spec.traffic)?;
    // Default source ports are handed out in order, one per flow and one per user of an
    // application, so that no two default connections share a port.
    let mut next_src_port = DEFAULT_SRC_PORT_BASE;
    for (position, (i, flow)) in traffic.iter().enumerate() {
        let default_src_port = next_src_port;
        let ports_used = flow.app.as_ref().map_or(1, |app| app.user_count().max(1));
        next_src_port = next_src_port.saturating_add(u16::try_from(ports_used).unwrap_or(u16::MAX));
        let at = format!("traffic[{i}]");
        if let Some((j, _)) = traffic[..position].iter().find(|(_, f)| f.name == flow.name) {
            return Err(Issue::at(
                format!("{at}.name"),
                format!("flow name `{}` is already used by traffic[{j}]", flow.name),
            ));
        }
        let from = node_index(&flow.from, format!("{at}.from"))?;
        let to = node_index(&flow.to, format!("{at}.to"))?;
        if from == to {
            return Err(Issue::at(format!("{at}.to"), "a flow must go to another node"));
        }
        let path = routes.path(from, to, &edges).map_err(|why| match why {
            PathError::NoRoute { at: stuck } => Issue::at(
                format!("{at}.to"),
                format!(
                    "no route from `{}` to `{}` (stuck at `{}`)",
                    flow.from, flow.to, nodes[stuck as usize].name
                ),
            )
            .hint("connect them with links through routers (hosts do not forward), or fix topology.routes"),
            PathError::Loop { at: looping } => Issue::at(
                format!("{at}.to"),
                format!(
                    "the routes from `{}` to `{}` loop (back at `{}`)",
                    flow.from, flow.to, nodes[looping as usize].name
                ),
            )
            .hint("fix topology.routes so that each hop gets closer to the destination"),
        })?;
        let bottleneck_port =
            *path.iter().min_by_key(|&&p| port_configs[p as usize].rate_bps).expect("a path has a port");
        let bottleneck_bps = port_configs[bottleneck_port as usize].rate_bps;
        let start = flow.start.map_or(0, |s| s.0);
        let stop = flow.stop.map_or(run.end.0, |s| s.0);
        if start >= stop {
            return Err(Issue::at(format!("{at}.stop"), "the flow stops before it starts"));
        }
        let template = Packet {
            id: 0,
            created: SimTime::ZERO,
            flow: flows.len() as u32,
            dst_node: to,
            size_bytes: 0,
            src_addr: nodes[from as usize].address,
            dst_addr: nodes[to as usize].address,
            src_port: flow.src_port.unwrap_or(default_src_port),
            dst_port: flow.dst_port.unwrap_or(DEFAULT_DST_PORT),
            protocol: flow.protocol.map_or(protocol::UDP, |p| p.0),
            dscp: flow.dscp.map_or(0, |d| d.0),
            ecn: if flow.ecn { ECT_0 } else { 0 },
            counted: false,
            hop_slot: crate::packet::NO_HOP,
            hop_in: SimTime::ZERO,
            segment: None,
            fragment: crate::packet::Fragment::Whole,
            encapsulated: None,
        };
        let pattern_spec = match (&flow.pattern, &flow.app) {
            (Some(pattern), None) => pattern,
            (None, Some(_)) if flow.phase.is_some() => {
                let why = "`phase` sets where an open-loop pattern starts in its period";
                return Err(Issue::at(format!("{at}.phase"), why).hint(
                    "remove it: applications spread their users' starts themselves \
                     (bulk `every`, http and rpc think times)",
                ));
            }
            (None, Some(_)) => {
                let reverse = routes.path(to, from, &edges).map_err(|_| {
                    Issue::at(
                        format!("{at}.to"),
                        format!("no route back from `{}` to `{}`", flow.to, flow.from),
                    )
                    .hint("TCP needs a path in both directions for its acknowledgements")
                })?;
                // The segments fit the smallest MTU both ways, tunnel overheads deducted.
                let there = crossing(&tunnels, tunnel_specs, &flow.name, from, &path, &port_configs, &at)?;
                let back_row = format!("{}.reverse", flow.name);
                let back = crossing(&tunnels, tunnel_specs, &back_row, to, &reverse, &port_configs, &at)?;
                let mtu_bytes = path_mtu_bytes(&tunnels, there.as_ref(), &path, &port_configs)
                    .min(path_mtu_bytes(&tunnels, back.as_ref(), &reverse, &port_configs));
                // Data at the bottleneck rate one way, an acknowledgement per two segments back.
                let active_s = (run.end.0.saturating_sub(start)) as f64 / NS_PER_S as f64;
                let segments_per_s = bottleneck_bps as f64 / (mtu_bytes as f64 * 8.0);
                let segment_bits = mtu_bytes as f64 * 8.0;
                work.add(&at, segments_per_s, segment_bits, active_s, rates_bps(&path, &port_configs));
                work.add(&at, segments_per_s / 2.0, 64.0 * 8.0, active_s, rates_bps(&reverse, &port_configs));
                let setup = AppFlow {
                    at: &at,
                    flow,
                    from,
                    to,
                    path: &path,
                    reverse: &reverse,
                    mtu_bytes,
                    bottleneck_port,
                    start,
                };
                add_app(
                    &setup,
                    template,
                    &port_configs,
                    &run,
                    gap_threshold_ns,
                    &mut apps,
                    &mut flows,
                    &mut flow_stats,
                )?;
                continue;
            }
            (Some(_), Some(_)) => {
                return Err(Issue::at(
                    format!("{at}.app"),
                    "a flow has either a `pattern` or an `app`, not both",
                )
                .hint("`pattern` sends open-loop packets; `app` runs an application over TCP"))
            }
            (None, None) => return Err(Issue::at(
                &at,
                format!("flow `{}` says neither `pattern` nor `app`", flow.name),
            )
            .hint(
                "add `pattern: {kind: cbr, ...}` for open-loop traffic or `app: {kind: bulk, ...}` for TCP",
            )),
        };
        if flow.tcp.is_some() {
            return Err(Issue::at(format!("{at}.tcp"), "`tcp` configures the connections of an `app`")
                .hint("open-loop traffic is not congestion-controlled; use `app: {kind: bulk}` for TCP"));
        }
        let env = PatternEnv { bottleneck_bps, base_dir };
        let pattern = pattern_spec.compile(&format!("{at}.pattern"), &env)?;
        let tunnel = crossing(&tunnels, tunnel_specs, &flow.name, from, &path, &port_configs, &at)?;
        if let Some(c) = &tunnel {
            let mtu_bytes = path_mtu_bytes(&tunnels, Some(c), &path, &port_configs);
            if pattern.size_bytes > mtu_bytes {
                return Err(Issue::at(
                    format!("{at}.pattern"),
                    format!(
                        "{} B packets do not fit topology.tunnels[{}]: with its overhead the path carries at most {mtu_bytes} B",
                        pattern.size_bytes, c.tunnel
                    ),
                )
                .hint("IP fragmentation is not modelled: use smaller packets, or raise the `mtu` of the links inside the tunnel"));
            }
        }
        if let Some(&p) = path.iter().find(|&&p| pattern.size_bytes > port_configs[p as usize].mtu_bytes) {
            let port = &port_configs[p as usize];
            return Err(Issue::at(
                format!("{at}.pattern"),
                format!(
                    "{} B packets exceed the {} B MTU of {}",
                    pattern.size_bytes, port.mtu_bytes, port.name
                ),
            )
            .hint(
                "IP fragmentation is not modelled: use packets no larger than the smallest MTU on the path",
            ));
        }
        // An echoed flow comes back as many packets as it sends.
        let directions = if flow.echo { 2.0 } else { 1.0 };
        let packets_per_s = directions * NS_PER_S as f64 / pattern.nominal_interval_ns.max(1) as f64;
        let active_s = (stop - start) as f64 / NS_PER_S as f64;
        let frame_bits = f64::from(pattern.size_bytes) * 8.0;
        work.add(&at, packets_per_s, frame_bits, active_s, rates_bps(&path, &port_configs));
        let mut rng = Rng::for_stream(run.seed, run.replication, &flow.name);
        let phase = match (flow.phase, pattern.period) {
            (Some(_), Period::None(why)) => {
                return Err(Issue::at(
                    format!("{at}.phase"),
                    format!(
                        "a `{}` pattern has no period to start at a random phase of: {why}",
                        pattern_spec.kind()
                    ),
                )
                .hint("remove `phase`; to move the flow's first packet, change its `start`"))
            }
            (Some(phase), Period::Every(_)) => phase,
            (None, _) => spec.run.phase.unwrap_or(Phase::None),
        };
        // The phase is the first draw of the flow's stream.
        let first_ns = start.saturating_add(phase.offset_ns(pattern.period, &mut rng));
        let template = Packet { size_bytes: pattern.size_bytes, ..template };
        let (source, first) =
            Source::start(template, pattern.generator, rng, SimTime(first_ns), pattern_spec.starts_off());
        sources.push((Source { stop: SimTime(stop), first_port: path[0], ..source }, first));
        flows.push(FlowInfo {
            name: flow.name.clone(),
            from,
            to,
            pattern: pattern_spec.kind(),
            size_bytes: pattern.size_bytes,
            bottleneck_port,
            template,
            echo: None,
            voice_app: None,
            codec: pattern_spec.codec(),
        });
        flow_stats.push(FlowStats::new(pattern.nominal_interval_ns, gap_threshold_ns));
        if flow.echo {
            let intervals_ns = (pattern.nominal_interval_ns, gap_threshold_ns);
            add_echo(&at, flow, &routes, &edges, &port_configs, &mut flows, &mut flow_stats, intervals_ns)?;
        }
    }
    let observed_hops = observed.iter().filter(|&&o| o).count();
    for stats in &mut flow_stats {
        stats.hops = vec![HopStats::default(); observed_hops];
    }
    let measure = &spec.measure;
    let quality = build_quality(measure, &points, &spec.traffic, &flows, &ports, observed_hops)?;
    run.notes.extend(attach_voice(measure, &spec.traffic, &flows, &mut flow_stats, gap_threshold_ns)?);
    attach_series(measure, &mut flow_stats, &mut ports)?;
    let mut flow_tunnels = Vec::with_capacity(flows.len());
    for info in &flows {
        let path = routes.path(info.from, info.to, &edges).expect("every row's path was checked");
        let at = "topology.tunnels";
        flow_tunnels.push(crossing(&tunnels, tunnel_specs, &info.name, info.from, &path, &port_configs, at)?);
    }
    for (i, tunnel) in tunnel_specs.iter().enumerate() {
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
    work.check(limits)?;
    let trace = match &measure.trace {
        Some(trace_spec) => {
            Some(Box::new(Trace::new(trace_setup(trace_spec, &ports, &flows, &spec.traffic)?)))
        }
        None => None,
    };
    let observers = Observers { flows: flow_stats, quality, trace };
    let mut sim = Simulation::new(run, nodes, ports, routes, sources, flows, observers, apps);
    sim.tunnels = Tunnels::new(tunnels, flow_tunnels);
    sim.capture = capture;
    sim.max_packets_in_flight = limits.max_packets_in_flight(structures_bytes);
    Ok(sim)
}

/// Adds the `.echo` row of the flow just added (the last row): its destination reflects
/// every packet back to the sender, addresses and ports swapped, with the flow's DSCP.
#[allow(clippy::too_many_arguments)]
fn add_echo(
    at: &str,
    flow: &FlowSpec,
    routes: &RoutingTable,
    edges: &[(u32, u32)],
    port_configs: &[PortConfig],
    flows: &mut Vec<FlowInfo>,
    flow_stats: &mut Vec<FlowStats>,
    (nominal_interval_ns, gap_threshold_ns): (u64, u64),
) -> Result<(), Issue> {
    let forward = flows.last().expect("the flow was just added").clone();
    let reverse = routes.path(forward.to, forward.from, edges).map_err(|_| {
        Issue::at(format!("{at}.echo"), format!("no route back from `{}` to `{}`", flow.to, flow.from))
            .hint("the echo returns to the sender: add a link or route back")
    })?;
    let name = format!("{}.echo", flow.name);
    if flows.iter().any(|f| f.name == name) {
        return Err(Issue::at(format!("{at}.name"), format!("`{name}` is already a flow name"))
            .hint("the reflected packets of a flow are reported under its name + `.echo`"));
    }
    let echo_flow = flows.len() as u32;
    let t = forward.template;
    let template = Packet {
        flow: echo_flow,
        dst_node: forward.from,
        src_addr: t.dst_addr,
        dst_addr: t.src_addr,
        src_port: t.dst_port,
        dst_port: t.src_port,
        ..t
    };
    let bottleneck_port =
        *reverse.iter().min_by_key(|&&p| port_configs[p as usize].rate_bps).expect("a path has a port");
    flows.last_mut().expect("the flow was just added").echo =
        Some(Echo { flow: echo_flow, first_port: reverse[0] });
    flows.push(FlowInfo {
        name,
        from: forward.to,
        to: forward.from,
        bottleneck_port,
        template,
        echo: None,
        codec: None,
        ..forward
    });
    flow_stats.push(FlowStats::new(nominal_interval_ns, gap_threshold_ns));
    Ok(())
}

/// Whether the row called `row` belongs to the traffic entry `entry` (itself, a copy
/// `entry.N`, or an application's or echo's extra rows `entry.reverse` and so on).
pub(super) fn belongs(row: &str, entry: &str) -> bool {
    row == entry || row.strip_prefix(entry).is_some_and(|rest| rest.starts_with('.'))
}

/// Most copies one traffic entry may ask for.
const MAX_COPIES: u32 = 10_000;

/// The traffic entries with each `copies: N` entry replaced by N flows `NAME.1` ... `NAME.N`
/// (each with its own random stream, keyed on its name), paired with the entry's index.
fn expand_copies(traffic: &[FlowSpec]) -> Result<Vec<(usize, FlowSpec)>, Issue> {
    let mut flows = Vec::with_capacity(traffic.len());
    for (i, flow) in traffic.iter().enumerate() {
        match flow.copies {
            None => flows.push((i, flow.clone())),
            Some(n) if n == 0 || n > MAX_COPIES => {
                return Err(Issue::at(
                    format!("traffic[{i}].copies"),
                    format!("{n} copies is outside 1 to {MAX_COPIES}"),
                )
                .hint("remove the entry to send nothing; use `users` for an application's users"));
            }
            Some(n) => {
                if flow.src_port.is_some() && n > 1 {
                    return Err(Issue::at(
                        format!("traffic[{i}].src_port"),
                        "copies of a flow need source ports of their own",
                    )
                    .hint("remove `src_port`: each copy gets the next free default port"));
                }
                for k in 1..=n {
                    let copy = FlowSpec { name: format!("{}.{k}", flow.name), copies: None, ..flow.clone() };
                    flows.push((i, copy));
                }
            }
        }
    }
    Ok(flows)
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
