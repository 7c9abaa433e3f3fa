//! Building the applications of a scenario: the TCP endpoint pairs of every user, the two
//! flow rows (the flow's name for what `from` sends, `.reverse` for what `to` sends back),
//! and the users' first start times.

use crate::app::bulk::{BulkApp, BulkParams};
use crate::app::ptt::{PttApp, PttParams, Talk, DEFAULT_SIGNALLING_PORT};
use crate::app::request_response::{RequestResponseApp, RequestResponseParams};
use crate::app::{pair_of, App, AppSpec};
use crate::config::error::Issue;
use crate::engine::Rng;
use crate::ids::{EndpointId, FlowId, NodeId, PortId, Table};
use crate::measure::FlowStats;
use crate::net::port::PortConfig;
use crate::packet::segment::HEADER_BYTES;
use crate::packet::{protocol, Packet};
use crate::scenario::flow_spec::FlowSpec;
use crate::sim::{AppInfo, AppSetup, DatagramOut, FlowInfo, RunInfo, Sink};
use crate::time::SimTime;
use crate::traffic::send_jitter::SendJitter;
use crate::traffic::size_dist::SizeDist;
use std::collections::HashMap;

/// What [`add_app`] needs to know about a flow that runs an application.
pub(super) struct AppFlow<'a> {
    pub(super) at: &'a str,
    pub(super) flow: &'a FlowSpec,
    pub(super) from: NodeId,
    pub(super) to: NodeId,
    pub(super) path: &'a [PortId],
    pub(super) reverse: &'a [PortId],
    /// The largest IP packet both paths carry (tunnel overheads deducted).
    pub(super) mtu_bytes: u32,
    pub(super) bottleneck_port: PortId,
    pub(super) start: u64,
    /// The flow row names the entries before this one took.
    pub(super) taken: &'a HashMap<String, (usize, bool)>,
}

/// Adds the flow rows, endpoints and application of a flow with an `app`: the forward row
/// (the flow's name) carries what `from` sends, the `.reverse` row what `to` sends back.
#[allow(clippy::too_many_arguments)]
pub(super) fn add_app(
    setup: &AppFlow,
    template: Packet,
    port_configs: &Table<PortId, PortConfig>,
    run: &RunInfo,
    gap_threshold_ns: u64,
    apps: &mut AppSetup,
    flows: &mut Table<FlowId, FlowInfo>,
    flow_stats: &mut Table<FlowId, FlowStats>,
) -> Result<(), Issue> {
    let AppFlow { at, flow, from, to, path, reverse, mtu_bytes, bottleneck_port, start, taken } = *setup;
    let app_spec = flow.app.as_ref().expect("an app flow");
    check_app_flow(flow, at, mtu_bytes)?;
    let mss_bytes = (mtu_bytes - HEADER_BYTES) as u64;
    let config = flow.tcp.clone().unwrap_or_default().config(mss_bytes, &format!("{at}.tcp"))?;
    // A push-to-talk application's first row is its UDP voice; its TCP rows are the
    // control connection's.
    // (IP size, interval in ns) of the voice packets.
    let voice = match app_spec {
        AppSpec::Ptt(params) => Some(params.voice.packets(&format!("{at}.app.voice"))?),
        _ => None,
    };
    let (tcp_name, reverse_name) = tcp_row_names(flow, at, voice.is_some(), taken)?;
    let app_id = apps.apps.next_key();
    let datagrams = voice.map(|(size_bytes, interval_ns)| {
        let row = flows.next_key();
        let packet = Packet { flow: row, size_bytes, ..template };
        flows.push(FlowInfo {
            name: flow.name.clone(),
            from,
            to,
            pattern: app_spec.kind(),
            size_bytes,
            bottleneck_port,
            template: packet,
            sink: Sink::App(app_id),
            codec: match app_spec {
                AppSpec::Ptt(params) => params.voice.codec(),
                _ => None,
            },
        });
        flow_stats.push(FlowStats::new(interval_ns, gap_threshold_ns));
        DatagramOut { template: packet, first_port: path[0] }
    });
    let signalling_port = match app_spec {
        AppSpec::Ptt(params) => params.signalling_port.unwrap_or(DEFAULT_SIGNALLING_PORT),
        _ => template.dst_port,
    };
    let forward_flow = flows.next_key();
    let forward = Packet {
        protocol: protocol::TCP,
        flow: forward_flow,
        dst_port: signalling_port,
        size_bytes: mss_bytes as u32 + HEADER_BYTES,
        ..template
    };
    let backward = Packet {
        flow: FlowId(forward_flow.0 + 1),
        dst_node: from,
        src_addr: template.dst_addr,
        dst_addr: template.src_addr,
        src_port: forward.dst_port,
        dst_port: forward.src_port,
        size_bytes: HEADER_BYTES,
        ..forward
    };
    let first = apps.stack.slots.next_key();
    let rng = Rng::for_stream(run.seed, run.replication, &flow.name);
    let interval_ns = voice.map(|(_, interval_ns)| interval_ns);
    let send_jitter = SendJitter::checked(flow.send_jitter, &format!("{at}.send_jitter"))?.map(|jitter| {
        (jitter, Rng::for_stream(run.seed, run.replication, &format!("{} send jitter", flow.name)))
    });
    let mut app = new_app(app_spec, at, interval_ns.map(|ns| (ns, send_jitter)), first, rng)?;
    // Each user's connection has its own client port, as an operating system gives each
    // connection its own ephemeral port.
    for user in 0..app.user_count() {
        let src_port = forward.src_port.wrapping_add(user as u16);
        let ends = [
            (path[0], Packet { src_port, ..forward }),
            (reverse[0], Packet { dst_port: src_port, ..backward }),
        ];
        let pair = apps.stack.add_pair(config, ends, app_id);
        debug_assert_eq!(pair, pair_of(first, user));
    }
    let first_user = apps.users.next_key();
    for (user, at) in (0..).zip(app.first_starts(SimTime(start))) {
        let id = apps.users.push_and_get_key((app_id, user));
        apps.starts.push((at, id));
    }
    apps.info.push(AppInfo {
        name: flow.name.clone(),
        kind: app_spec.kind(),
        first_endpoint: first,
        endpoints: 2 * app.user_count(),
        first_user,
        datagrams,
    });
    apps.apps.push(app);
    let reverse_bottleneck =
        *reverse.iter().min_by_key(|&&p| port_configs[p].rate_bps).expect("a path has a port");
    for (name, from_node, to_node, packet, bottleneck) in [
        (tcp_name, from, to, forward, bottleneck_port),
        (reverse_name, to, from, backward, reverse_bottleneck),
    ] {
        flows.push(FlowInfo {
            name,
            from: from_node,
            to: to_node,
            pattern: app_spec.kind(),
            size_bytes: packet.size_bytes,
            bottleneck_port: bottleneck,
            template: packet,
            sink: Sink::Tcp,
            codec: None,
        });
        flow_stats.push(FlowStats::new(0, gap_threshold_ns));
    }
    Ok(())
}

/// The names of the TCP rows of application flow `flow` (at key path `at`): its own name, or
/// `NAME.signalling` beside a push-to-talk application's voice (`ptt`), and that + `.reverse`;
/// refused when another flow has one of them.
fn tcp_row_names(
    flow: &FlowSpec,
    at: &str,
    ptt: bool,
    taken: &HashMap<String, (usize, bool)>,
) -> Result<(String, String), Issue> {
    let tcp_name = if ptt { format!("{}.signalling", flow.name) } else { flow.name.clone() };
    let reverse_name = format!("{tcp_name}.reverse");
    for name in [&tcp_name, &reverse_name] {
        if name != &flow.name && taken.contains_key(name) {
            return Err(Issue::at(format!("{at}.name"), format!("`{name}` is already a flow name")).hint(
                "an application's reverse direction is reported under its name + `.reverse` \
                 (a push-to-talk control connection under `.signalling`)",
            ));
        }
    }
    Ok((tcp_name, reverse_name))
}

/// Rejects settings of `flow` (at key path `at`) that an application over TCP does not
/// take, and a path whose MTU, `mtu_bytes`, leaves no room for TCP data.
fn check_app_flow(flow: &FlowSpec, at: &str, mtu_bytes: u32) -> Result<(), Issue> {
    if flow.protocol.is_some_and(|p| p.0 != protocol::TCP) {
        return Err(
            Issue::at(format!("{at}.protocol"), "an application runs over TCP").hint("remove `protocol`")
        );
    }
    if flow.ecn {
        return Err(Issue::at(format!("{at}.ecn"), "ECN feedback (ECE/CWR) is not modelled for TCP")
            .hint("remove `ecn`; AQMs drop instead of marking this flow's packets"));
    }
    if flow.echo {
        return Err(Issue::at(format!("{at}.echo"), "an application's replies are its own")
            .hint("remove `echo`; `echo` reflects open-loop probes, e.g. `pattern: {kind: probe}`"));
    }
    if flow.stop.is_some() {
        return Err(Issue::at(
            format!("{at}.stop"),
            "an application stops when its transfers are done or the run ends",
        )
        .hint("remove `stop`, or bound the work with `transfers` and `size`"));
    }
    // The MSS fits the smallest MTU on the way there and back.
    if mtu_bytes <= HEADER_BYTES {
        return Err(Issue::at(
            format!("{at}.to"),
            format!("the path's MTU ({mtu_bytes} B) leaves no room for TCP data"),
        ));
    }
    Ok(())
}

/// The application `app_spec` (at key path `at`) with its first endpoint `first`; a
/// push-to-talk one sends voice every `voice.0` ns, with the send jitter `voice.1`.
fn new_app(
    app_spec: &AppSpec,
    at: &str,
    voice: Option<(u64, Option<(SendJitter, Rng)>)>,
    first: EndpointId,
    rng: Rng,
) -> Result<App, Issue> {
    Ok(match app_spec {
        AppSpec::Bulk(params) => {
            check_bulk(params, at)?;
            App::Bulk(BulkApp::new(params, first, rng))
        }
        AppSpec::Http(params) => {
            check_request_response(params, at)?;
            App::RequestResponse(RequestResponseApp::new(
                params,
                SizeDist::Constant(HTTP_REQUEST_BYTES),
                first,
                rng,
            ))
        }
        AppSpec::Rpc(params) => {
            check_request_response(params, at)?;
            App::RequestResponse(RequestResponseApp::new(
                params,
                SizeDist::Constant(RPC_REQUEST_BYTES),
                first,
                rng,
            ))
        }
        AppSpec::Ptt(params) => {
            check_ptt(params, at)?;
            let (interval_ns, send_jitter) = voice.expect("a push-to-talk voice pattern");
            App::Ptt(PttApp::new(params, interval_ns, send_jitter, first, rng))
        }
    })
}

/// Request size of `kind: http` when the scenario gives none: a typical HTTP/1.0 GET with
/// its headers.
const HTTP_REQUEST_BYTES: u64 = 300;
/// Request size of `kind: rpc` when the scenario gives none: the ad-hoc report's largest
/// request.
const RPC_REQUEST_BYTES: u64 = 500;

/// Rejects bulk settings that cannot run.
fn check_bulk(params: &BulkParams, at: &str) -> Result<(), Issue> {
    check_users(params.users, at)?;
    if params.every.is_some() && params.gap.is_some() {
        return Err(Issue::at(format!("{at}.app.every"), "give `every` or `gap`, not both")
            .hint("`every` starts transfers on a fixed period; `gap` waits after each connection closes"));
    }
    if params.every.is_some_and(|d| d.0 == 0) {
        return Err(Issue::at(format!("{at}.app.every"), "a period of 0 s never ends")
            .hint("use the time between transfers, e.g. `every: 30s` for a photo every 30 s"));
    }
    if params.size.is_none() && (params.every.is_some() || params.transfers.is_some_and(|n| n != 1)) {
        return Err(Issue::at(format!("{at}.app.size"), "repeated transfers need a `size`")
            .hint("without `size` the single transfer lasts the whole run"));
    }
    Ok(())
}

/// Rejects request-response settings that cannot run.
fn check_request_response(params: &RequestResponseParams, at: &str) -> Result<(), Issue> {
    check_users(params.users, at)?;
    if params.think_time.mean_ns() <= 0.0 {
        return Err(Issue::at(
            format!("{at}.app.think_time"),
            "a think time of 0 s has users request without pause",
        )
        .hint("the DiffServ measurements' HTTP users thought 12 s on average: `{exponential: 12s}`"));
    }
    Ok(())
}

/// Rejects push-to-talk settings that contradict each other.
fn check_ptt(params: &PttParams, at: &str) -> Result<(), Issue> {
    if params.talk == Some(Talk::Continuous) && params.pause.is_some() {
        return Err(Issue::at(format!("{at}.app.pause"), "a continuous talker never pauses").hint(
            "remove `pause`, or give `talk` spurt lengths such as `{uniform: [1s, 18s]}` for ON-OFF talk",
        ));
    }
    Ok(())
}

/// Rejects a user count of 0 or one needing more client ports than exist.
fn check_users(users: Option<u32>, at: &str) -> Result<(), Issue> {
    match users {
        Some(0) => Err(Issue::at(format!("{at}.app.users"), "an application needs at least 1 user")
            .hint("remove the flow to have no traffic")),
        Some(n) if n > 10_000 => Err(Issue::at(
            format!("{at}.app.users"),
            format!("{n} users is more than the 10000 an application can have"),
        )
        .hint("split the users over several flows")),
        _ => Ok(()),
    }
}
