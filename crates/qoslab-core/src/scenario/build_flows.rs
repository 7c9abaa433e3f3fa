//! The fourth stage of building a scenario: the traffic. Each entry (each copy of one with
//! `copies`) becomes flow rows — an open-loop source with its row, plus an `.echo` row when
//! its destination reflects it, or an application over TCP ([`super::build_app`]) — routed
//! along the routing table, with the header template of its packets and an estimate of the
//! work it gives the simulator ([`super::limits::Workload`]).

use super::build_app::{add_app, AppFlow};
use super::build_interfaces::Interfaces;
use super::build_routes::Routes;
use super::build_tunnels::{crossing, path_mtu_bytes};
use super::flow_spec::FlowSpec;
use super::limits::Workload;
use crate::app::AppSpec;
use crate::config::error::Issue;
use crate::engine::Rng;
use crate::ids::{FlowId, NodeId, PortId, SourceId, Table};
use crate::measure::FlowStats;
use crate::net::port::PortConfig;
use crate::net::routing::PathError;
use crate::net::tunnel::FlowTunnel;
use crate::packet::{protocol, Packet, ECT_0};
use crate::scenario::spec::ScenarioSpec;
use crate::sim::{AppSetup, Echo, FlowInfo, RunInfo, Sink};
use crate::time::{SimTime, NS_PER_S};
use crate::traffic::pattern::{PatternEnv, PatternSpec};
use crate::traffic::send_jitter::SendJitter;
use crate::traffic::source::{DEFAULT_DST_PORT, DEFAULT_SRC_PORT_BASE, UNLIMITED_PACKETS};
use crate::traffic::Source;
use crate::traffic::{Period, Phase};
use std::collections::HashMap;
use std::path::Path;

/// Most copies one traffic entry may ask for.
const MAX_COPIES: u32 = 10_000;

/// What the flows stage builds on.
pub(super) struct Context<'a> {
    pub(super) spec: &'a ScenarioSpec,
    pub(super) interfaces: &'a Interfaces,
    pub(super) routes: &'a Routes,
    pub(super) run: &'a RunInfo,
    /// Gaps longer than this do not count as jitter, ns.
    pub(super) gap_threshold_ns: u64,
    /// The folder pattern files are read from.
    pub(super) base_dir: &'a Path,
}

/// The traffic: sources (each with its first emission time), flow rows with their
/// statistics, applications, and the work they give the simulator.
pub(super) struct Traffic {
    pub(super) sources: Table<SourceId, (Source, SimTime)>,
    pub(super) flows: Table<FlowId, FlowInfo>,
    pub(super) flow_stats: Table<FlowId, FlowStats>,
    /// Per flow row: the tunnel its path crosses, if any, with the header of its packets —
    /// found once, where the row is added.
    pub(super) crossings: Table<FlowId, Option<(FlowTunnel, Packet)>>,
    pub(super) apps: AppSetup,
    pub(super) work: Workload,
    /// The name of every flow row of the entries built so far, with the entry's index and
    /// whether the name is derived from the entry's (`.echo`, `.reverse`, `.signalling`): the
    /// names a new row may not take.
    pub(super) taken: HashMap<String, (usize, bool)>,
}

/// Where a flow goes and when it sends.
struct Route {
    from: NodeId,
    to: NodeId,
    /// The ports it crosses, in order.
    path: Vec<PortId>,
    /// The slowest port on the path.
    bottleneck_port: PortId,
    start_ns: u64,
    stop_ns: u64,
}

/// Builds the flows of `cx.spec.traffic`, in order.
pub(super) fn flows(cx: &Context) -> Result<Traffic, Issue> {
    let mut traffic = Traffic {
        sources: Table::new(),
        flows: Table::new(),
        flow_stats: Table::new(),
        crossings: Table::new(),
        apps: AppSetup::default(),
        work: Workload::default(),
        taken: HashMap::new(),
    };
    let entries = expand_copies(&cx.spec.traffic)?;
    // Default source ports are handed out in order, one per flow and one per user of an
    // application, so that no two default connections share a port.
    let mut next_src_port = DEFAULT_SRC_PORT_BASE;
    for (i, flow) in &entries {
        let default_src_port = next_src_port;
        let ports_used = flow.app.as_ref().map_or(1, |app| app.user_count().max(1));
        next_src_port = next_src_port.saturating_add(u16::try_from(ports_used).unwrap_or(u16::MAX));
        let at = format!("traffic[{i}]");
        // Every entry has a row of its own name, so the rows before it hold every earlier
        // entry's name too.
        if let Some(&(j, derived)) = traffic.taken.get(&flow.name) {
            let error = Issue::at(
                format!("{at}.name"),
                format!("flow name `{}` is already used by traffic[{j}]", flow.name),
            );
            return Err(if derived {
                error.hint(
                    "a flow's echo, reverse direction and signalling are reported under its name and \
                     `.echo`, `.reverse` or `.signalling`: rename one of the two",
                )
            } else {
                error
            });
        }
        let first_row = traffic.flows.len();
        let route = route(cx, flow, &at)?;
        let template = template(cx, flow, &route, traffic.flows.next_key(), default_src_port);
        match (&flow.pattern, &flow.app) {
            (Some(pattern), None) => add_open_loop(cx, &mut traffic, flow, &at, &route, template, pattern)?,
            (None, Some(_)) => {
                refuse_pattern_keys(flow, &at)?;
                add_app_flow(cx, &mut traffic, flow, &at, &route, template)?
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
        }
        for row in traffic.flows.iter().skip(first_row) {
            traffic.taken.insert(row.name.clone(), (*i, row.name != flow.name));
        }
    }
    Ok(traffic)
}

/// Refuses the keys of `flow` (an application, at key path `at`) that only shape an
/// open-loop pattern's schedule.
fn refuse_pattern_keys(flow: &FlowSpec, at: &str) -> Result<(), Issue> {
    if flow.phase.is_some() {
        let why = "`phase` sets where an open-loop pattern starts in its period";
        return Err(Issue::at(format!("{at}.phase"), why).hint(
            "remove it: applications spread their users' starts themselves \
             (bulk `every`, http and rpc think times)",
        ));
    }
    if flow.packets.is_some() {
        return Err(Issue::at(
            format!("{at}.packets"),
            "`packets` counts the packets of an open-loop pattern",
        )
        .hint(
            "remove it: an application ends with its work (bulk `transfers` and `size`, \
             http and rpc `requests`)",
        ));
    }
    let voice = matches!(flow.app, Some(AppSpec::Ptt(_)));
    if flow.send_jitter.is_some() && !voice {
        return Err(Issue::at(
            format!("{at}.send_jitter"),
            "`send_jitter` delays the packets of an open-loop pattern or of push-to-talk voice",
        )
        .hint("remove it: an application's packets leave when it and TCP send them"));
    }
    Ok(())
}

/// The packet count and send jitter of the open-loop `flow` (traffic entry at key path
/// `at`), checked.
fn stream_limits(flow: &FlowSpec, at: &str) -> Result<(u64, Option<SendJitter>), Issue> {
    let packets = match flow.packets {
        Some(0) => {
            return Err(Issue::at(format!("{at}.packets"), "a stream of 0 packets sends nothing")
                .hint("give at least 1, leave `packets` out to send until `stop`, or remove the entry"))
        }
        Some(n) => n,
        None => UNLIMITED_PACKETS,
    };
    Ok((packets, SendJitter::checked(flow.send_jitter, &format!("{at}.send_jitter"))?))
}

/// The route and active time of `flow` (traffic entry at key path `at`).
fn route(cx: &Context, flow: &FlowSpec, at: &str) -> Result<Route, Issue> {
    let nodes = &cx.interfaces.nodes;
    let ports = &cx.interfaces.port_configs;
    let from = nodes.index(&flow.from, format!("{at}.from"))?;
    let to = nodes.index(&flow.to, format!("{at}.to"))?;
    if from == to {
        return Err(Issue::at(format!("{at}.to"), "a flow must go to another node"));
    }
    let path = cx.routes.table.path(from, to, &cx.routes.edges).map_err(|why| match why {
        PathError::NoRoute { at: stuck } => Issue::at(
            format!("{at}.to"),
            format!("no route from `{}` to `{}` (stuck at `{}`)", flow.from, flow.to, nodes.name(stuck)),
        )
        .hint("connect them with links through routers (hosts do not forward), or fix topology.routes"),
        PathError::Loop { at: looping } => Issue::at(
            format!("{at}.to"),
            format!(
                "the routes from `{}` to `{}` loop (back at `{}`)",
                flow.from,
                flow.to,
                nodes.name(looping)
            ),
        )
        .hint("fix topology.routes so that each hop gets closer to the destination"),
    })?;
    let bottleneck_port = *path.iter().min_by_key(|&&p| ports[p].rate_bps).expect("a path has a port");
    let start_ns = flow.start.map_or(0, |s| s.0);
    let stop_ns = flow.stop.map_or(cx.run.end.0, |s| s.0);
    if start_ns >= stop_ns {
        return Err(Issue::at(format!("{at}.stop"), "the flow stops before it starts"));
    }
    Ok(Route { from, to, path, bottleneck_port, start_ns, stop_ns })
}

/// The header of the packets of `flow`, the flow row `row`; its size is set later.
fn template(cx: &Context, flow: &FlowSpec, route: &Route, row: FlowId, default_src_port: u16) -> Packet {
    let nodes = &cx.interfaces.nodes.list;
    Packet {
        id: 0,
        created: SimTime::ZERO,
        flow: row,
        dst_node: route.to,
        size_bytes: 0,
        src_addr: nodes[route.from].address,
        dst_addr: nodes[route.to].address,
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
        outer_overhead_bytes: 0,
        inner_dscp: 0,
    }
}

/// The rates of the ports `hops`, bit/s.
fn rates_bps<'a>(
    hops: &'a [PortId],
    ports: &'a Table<PortId, PortConfig>,
) -> impl Iterator<Item = (PortId, u64)> + 'a {
    hops.iter().map(|&p| (p, ports[p].rate_bps))
}

/// Adds the application of `flow` (traffic entry at key path `at`): its TCP connections
/// need a route back, and their segments fit the smallest MTU both ways.
fn add_app_flow(
    cx: &Context,
    traffic: &mut Traffic,
    flow: &FlowSpec,
    at: &str,
    route: &Route,
    template: Packet,
) -> Result<(), Issue> {
    let ports = &cx.interfaces.port_configs;
    let (tunnels, tunnel_specs) = (&cx.routes.tunnels, &cx.spec.topology.tunnels);
    let Route { from, to, ref path, bottleneck_port, start_ns, .. } = *route;
    let reverse = cx.routes.table.path(to, from, &cx.routes.edges).map_err(|_| {
        Issue::at(format!("{at}.to"), format!("no route back from `{}` to `{}`", flow.to, flow.from))
            .hint("TCP needs a path in both directions for its acknowledgements")
    })?;
    // The segments fit the smallest MTU both ways, tunnel overheads deducted.
    let there = crossing(tunnels, tunnel_specs, &flow.name, from, path, ports, at)?;
    let back_row = format!("{}.reverse", flow.name);
    let back = crossing(tunnels, tunnel_specs, &back_row, to, &reverse, ports, at)?;
    let there_bytes = path_mtu_bytes(tunnels, there.as_ref(), path, ports);
    let mtu_bytes = there_bytes.min(path_mtu_bytes(tunnels, back.as_ref(), &reverse, ports));
    // Data at the bottleneck rate one way, an acknowledgement per two segments back.
    let bottleneck_bps = ports[bottleneck_port].rate_bps;
    let active_s = (cx.run.end.0.saturating_sub(start_ns)) as f64 / NS_PER_S as f64;
    let segments_per_s = bottleneck_bps as f64 / (mtu_bytes as f64 * 8.0);
    let segment_bits = mtu_bytes as f64 * 8.0;
    traffic.work.add(at, segments_per_s, segment_bits, active_s, rates_bps(path, ports));
    traffic.work.add(at, segments_per_s / 2.0, 64.0 * 8.0, active_s, rates_bps(&reverse, ports));
    let setup = AppFlow {
        at,
        flow,
        from,
        to,
        path,
        reverse: &reverse,
        mtu_bytes,
        bottleneck_port,
        start: start_ns,
        taken: &traffic.taken,
    };
    let first_row = traffic.flows.len();
    add_app(
        &setup,
        template,
        ports,
        cx.run,
        cx.gap_threshold_ns,
        &mut traffic.apps,
        &mut traffic.flows,
        &mut traffic.flow_stats,
    )?;
    // The application's rows go from `from` to `to` (its data, a push-to-talk voice) or back
    // (the acknowledgements).
    for row in traffic.flows.iter().skip(first_row) {
        let crossed = if row.from == from { there } else { back };
        traffic.crossings.push(crossed.map(|c| (c, row.template)));
    }
    Ok(())
}

/// Adds the open-loop source of `flow` (traffic entry at key path `at`) sending
/// `pattern_spec`, its flow row, and its `.echo` row when it is echoed.
fn add_open_loop(
    cx: &Context,
    traffic: &mut Traffic,
    flow: &FlowSpec,
    at: &str,
    route: &Route,
    template: Packet,
    pattern_spec: &PatternSpec,
) -> Result<(), Issue> {
    let ports = &cx.interfaces.port_configs;
    let (tunnels, tunnel_specs) = (&cx.routes.tunnels, &cx.spec.topology.tunnels);
    let Route { from, to, ref path, bottleneck_port, start_ns, stop_ns } = *route;
    if flow.tcp.is_some() {
        return Err(Issue::at(format!("{at}.tcp"), "`tcp` configures the connections of an `app`")
            .hint("open-loop traffic is not congestion-controlled; use `app: {kind: bulk}` for TCP"));
    }
    let env = PatternEnv { bottleneck_bps: ports[bottleneck_port].rate_bps, base_dir: cx.base_dir };
    let pattern = pattern_spec.compile(&format!("{at}.pattern"), &env)?;
    let tunnel = crossing(tunnels, tunnel_specs, &flow.name, from, path, ports, at)?;
    if let Some(c) = &tunnel {
        let mtu_bytes = path_mtu_bytes(tunnels, Some(c), path, ports);
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
    if let Some(&p) = path.iter().find(|&&p| pattern.size_bytes > ports[p].mtu_bytes) {
        let port = &ports[p];
        return Err(Issue::at(
            format!("{at}.pattern"),
            format!("{} B packets exceed the {} B MTU of {}", pattern.size_bytes, port.mtu_bytes, port.name),
        )
        .hint("IP fragmentation is not modelled: use packets no larger than the smallest MTU on the path"));
    }
    let (packets, send_jitter) = stream_limits(flow, at)?;
    // An echoed flow comes back as many packets as it sends.
    let directions = if flow.echo { 2.0 } else { 1.0 };
    let packets_per_s = directions * pattern.packets_per_s;
    // A packet count ends the stream once its packets have left at the nominal rate.
    let counted_s = packets as f64 / pattern.packets_per_s;
    let active_s = ((stop_ns - start_ns) as f64 / NS_PER_S as f64).min(counted_s);
    let frame_bits = f64::from(pattern.size_bytes) * 8.0;
    traffic.work.add(at, packets_per_s, frame_bits, active_s, rates_bps(path, ports));
    let mut rng = Rng::for_stream(cx.run.seed, cx.run.replication, &flow.name);
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
        (None, _) => cx.spec.run.phase.unwrap_or(Phase::None),
    };
    // The phase is the first draw of the flow's stream.
    let first_ns = start_ns.saturating_add(phase.offset_ns(pattern.period, &mut rng));
    let template = Packet { size_bytes: pattern.size_bytes, ..template };
    let (source, first) = Source::start(
        template,
        pattern.generator,
        rng,
        SimTime(first_ns),
        pattern_spec.starts_off(),
        send_jitter,
    );
    let source = Source { stop: SimTime(stop_ns), packets_left: packets, first_port: path[0], ..source };
    traffic.sources.push((source, first));
    traffic.flows.push(FlowInfo {
        name: flow.name.clone(),
        from,
        to,
        pattern: pattern_spec.kind(),
        size_bytes: pattern.size_bytes,
        bottleneck_port,
        template,
        sink: Sink::Counted,
        codec: pattern_spec.codec(),
    });
    traffic.flow_stats.push(FlowStats::new(pattern.nominal_interval_ns, cx.gap_threshold_ns));
    traffic.crossings.push(tunnel.map(|c| (c, template)));
    if flow.echo {
        add_echo(cx, traffic, flow, at, pattern.nominal_interval_ns)?;
    }
    Ok(())
}

/// Adds the `.echo` row of the flow just added (the last row): its destination reflects
/// every packet back to the sender, addresses and ports swapped, with the flow's DSCP.
fn add_echo(
    cx: &Context,
    traffic: &mut Traffic,
    flow: &FlowSpec,
    at: &str,
    nominal_interval_ns: u64,
) -> Result<(), Issue> {
    let flows = &mut traffic.flows;
    let forward = flows.last().expect("the flow was just added").clone();
    let reverse = cx.routes.table.path(forward.to, forward.from, &cx.routes.edges).map_err(|_| {
        Issue::at(format!("{at}.echo"), format!("no route back from `{}` to `{}`", flow.to, flow.from))
            .hint("the echo returns to the sender: add a link or route back")
    })?;
    let name = format!("{}.echo", flow.name);
    if traffic.taken.contains_key(&name) {
        return Err(Issue::at(format!("{at}.name"), format!("`{name}` is already a flow name"))
            .hint("the reflected packets of a flow are reported under its name + `.echo`"));
    }
    let echo_flow = flows.next_key();
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
    let ports = &cx.interfaces.port_configs;
    let (tunnels, tunnel_specs) = (&cx.routes.tunnels, &cx.spec.topology.tunnels);
    let back = crossing(tunnels, tunnel_specs, &name, forward.to, &reverse, ports, at)?;
    let bottleneck_port = *reverse.iter().min_by_key(|&&p| ports[p].rate_bps).expect("a path has a port");
    flows.last_mut().expect("the flow was just added").sink =
        Sink::Echo(Echo { flow: echo_flow, first_port: reverse[0] });
    flows.push(FlowInfo {
        name,
        from: forward.to,
        to: forward.from,
        bottleneck_port,
        template,
        sink: Sink::Counted,
        codec: None,
        ..forward
    });
    traffic.flow_stats.push(FlowStats::new(nominal_interval_ns, cx.gap_threshold_ns));
    traffic.crossings.push(back.map(|c| (c, template)));
    Ok(())
}

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
