//! A runnable simulation: the network, its sources, the event list and the run loop.
//!
//! The loop pops the earliest event and hands it to the model; nothing else advances time.
//! Nodes interact only through link events (a frame's arrival one propagation delay after
//! its last bit left), the property a future parallel engine over partitioned topologies
//! needs. At the end of every run the invariants are checked — packet conservation over the
//! whole network, the backlog identity of every queue, per-flow accounting and work
//! conservation — and a violation fails the run.

use crate::app::App;
use crate::engine::{Event, EventQueue};
use crate::measure::trace::{Row, Trace, TraceChunk, TraceEvent, TraceSetup, CHUNK_ROWS, NONE};
use crate::measure::{DropReason, Observers};
use crate::net::pcap::{file_name, CaptureError, CapturePlan, LinkHeader, PortCapture};
use crate::net::port::{Port, PortEnv};
use crate::net::routing::RoutingTable;
use crate::net::tunnel::{Next, Passage, Tunnels};
use crate::net::Node;
use crate::packet::Packet;
use crate::packet::Segment;
use crate::packet::NO_HOP;
use crate::qdisc::Qdisc;
use crate::tcp::TcpStack;
use crate::time::SimTime;
use crate::traffic::Source;
use std::fmt;
use std::path::{Path, PathBuf};

/// Hands `packet` to egress port `port`, through the tunnel its flow enters there, if any.
#[inline(always)]
fn send(ports: &mut [Port], tunnels: &mut Tunnels, port: u32, packet: Packet, env: &mut PortEnv) {
    if !tunnels.in_use() {
        ports[port as usize].enqueue(packet, env);
        return;
    }
    match tunnels.on_egress(port, packet, env.now) {
        Passage::Go(packet) => ports[port as usize].enqueue(packet, env),
        Passage::Held(at, line) => env.events.schedule(at, Event::TunnelRelease(line)),
    }
}

/// Rows a trace records unless `measure.trace.max_rows` says otherwise.
pub const DEFAULT_TRACE_ROWS: u64 = 10_000_000;

/// A trace of every flow at every port, with deliveries, up to the default row count.
pub(crate) fn trace_of_everything(ports: &[Port], flows: &[FlowInfo]) -> TraceSetup {
    TraceSetup {
        ports: vec![true; ports.len()],
        port_nodes: ports.iter().map(|p| p.config.node).collect(),
        port_classes: ports.iter().map(|p| p.qdisc.class_names()).collect(),
        flows: vec![true; flows.len()],
        deliveries: true,
        max_rows: DEFAULT_TRACE_ROWS,
        chunk_rows: CHUNK_ROWS,
    }
}

/// Facts about a flow needed for its results row.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    /// Flow name.
    pub name: String,
    /// Sending node index.
    pub from: u32,
    /// Receiving node index.
    pub to: u32,
    /// Pattern kind.
    pub pattern: &'static str,
    /// IP packet size, bytes (the largest segment for TCP).
    pub size_bytes: u32,
    /// The slowest port on the path (first one on ties).
    pub bottleneck_port: u32,
    /// Header fields of the flow's packets.
    pub template: Packet,
    /// Where the destination reflects the flow's packets, for flows with `echo`.
    pub echo: Option<Echo>,
    /// The push-to-talk application whose voice this row carries.
    pub voice_app: Option<u32>,
    /// The voice codec of a codec pattern or push-to-talk voice.
    pub codec: Option<crate::traffic::codec::Codec>,
}

/// How a flow's packets are reflected at their destination (an IP SLA responder).
#[derive(Copy, Clone, Debug)]
pub struct Echo {
    /// The row of the reflected packets.
    pub flow: u32,
    /// The egress port at the destination towards the sender.
    pub first_port: u32,
}

/// Facts about an application needed for its results row.
#[derive(Clone, Debug)]
pub struct AppInfo {
    /// The flow (traffic entry) name.
    pub name: String,
    /// Application kind.
    pub kind: &'static str,
    /// Its first endpoint pair.
    pub first_endpoint: u32,
    /// How many endpoints it owns.
    pub endpoints: u32,
    /// Where a push-to-talk application's voice packets go.
    pub voice: Option<VoiceOut>,
}

/// The voice packets of a push-to-talk application.
#[derive(Copy, Clone, Debug)]
pub struct VoiceOut {
    /// Header fields of its packets.
    pub template: Packet,
    /// The egress port at the sending node.
    pub first_port: u32,
}

/// What a run was asked to do.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// Scenario name.
    pub scenario: String,
    /// Master seed.
    pub seed: u64,
    /// Replication number.
    pub replication: u64,
    /// What identifies the run (set when the scenario is loaded).
    pub identity: RunIdentity,
    /// Warm-up end (measured window start).
    pub warmup_end: SimTime,
    /// End of the run.
    pub end: SimTime,
    /// What the scenario's inputs hold that qoslab does not model (lines of IOS
    /// configurations), one sentence each.
    pub notes: Vec<String>,
    /// `measure.order_of_failure`.
    pub order_of_failure: Vec<String>,
}

/// What identifies a run: the hash of what determines its results, and how the scenario
/// was chosen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunIdentity {
    /// SHA-256 of the effective scenario and the files its build read, as hex
    /// (see [`crate::scenario::identity`]).
    pub scenario_sha256: String,
    /// The overrides applied, `key.path=value` as given.
    pub overrides: Vec<String>,
    /// The variant run; None for the scenario as written.
    pub variant: Option<String>,
}

/// A run that cannot give results: it broke an invariant (the model has a bug, and the
/// run's numbers cannot be trusted), or it was stopped at a guard (its packets in flight
/// would need more memory than allowed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    /// What was found, as one sentence starting with what kind of failure it is.
    pub message: String,
}

impl RunError {
    fn invariant(what: String) -> Self {
        RunError { message: format!("invariant violated, results discarded: {what}") }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunError {}

/// Run-wide packet totals (all packets, warm-up included).
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Packets created by sources.
    pub created: u64,
    /// Packets that reached their destination.
    pub delivered: u64,
    /// Packets dropped anywhere.
    pub dropped: u64,
    /// Frames whose transmission completed on some link.
    pub packet_hops: u64,
    /// Events processed.
    pub events: u64,
    /// Times a port's wire fell idle while packets waited (must stay 0).
    pub work_conservation_violations: u64,
}

/// A built scenario, ready to run.
pub struct Simulation {
    pub(crate) run: RunInfo,
    pub(crate) nodes: Vec<Node>,
    pub(crate) ports: Vec<Port>,
    pub(crate) routes: RoutingTable,
    pub(crate) sources: Vec<Source>,
    pub(crate) flows: Vec<FlowInfo>,
    pub(crate) observers: Observers,
    pub(crate) events: EventQueue,
    pub(crate) totals: Totals,
    pub(crate) tcp: TcpStack,
    pub(crate) apps: Vec<App>,
    pub(crate) app_info: Vec<AppInfo>,
    /// Per TCP endpoint: its counters when the warm-up ended.
    pub(crate) tcp_baseline: Vec<crate::tcp::sender::SendCounters>,
    /// Tunnels and the packets held at their ends.
    pub(crate) tunnels: Tunnels,
    /// Packets that may be in flight at once before the run is stopped (the memory guard).
    pub(crate) max_packets_in_flight: u64,
    /// What a packet capture covers, when one is asked for ([`Simulation::capture_pcap`]).
    pub(crate) capture: CapturePlan,
    /// Why the run stopped early, once it has.
    halted: Option<RunError>,
    now: SimTime,
}

/// What a finished run leaves: the state of its network, flows, applications and
/// observers at the end, its invariants checked. The result tables are built from it.
pub(crate) struct Snapshot {
    pub(crate) run: RunInfo,
    pub(crate) nodes: Vec<Node>,
    pub(crate) ports: Vec<Port>,
    pub(crate) flows: Vec<FlowInfo>,
    pub(crate) observers: Observers,
    pub(crate) totals: Totals,
    pub(crate) tcp: TcpStack,
    /// Per TCP endpoint: its counters when the warm-up ended.
    pub(crate) tcp_baseline: Vec<crate::tcp::sender::SendCounters>,
    pub(crate) apps: Vec<App>,
    pub(crate) app_info: Vec<AppInfo>,
    /// [`Simulation::random_draws`] at the end of the run.
    pub(crate) random_draws: u64,
}

/// Events between two checks of the memory guard (and, for callers that advance in
/// slices, the most a slice should hold to stay responsive).
pub const CHECK_EVERY_EVENTS: u64 = 1 << 16;

/// Applications with their users' first start times, for [`Simulation::new`].
pub(crate) struct AppSetup {
    pub(crate) stack: TcpStack,
    pub(crate) apps: Vec<App>,
    /// (when, the user's client endpoint).
    pub(crate) starts: Vec<(SimTime, u32)>,
    pub(crate) info: Vec<AppInfo>,
}

/// Everything a simulation is assembled from, for [`Simulation::new`].
pub(crate) struct Parts {
    pub(crate) run: RunInfo,
    pub(crate) nodes: Vec<Node>,
    pub(crate) ports: Vec<Port>,
    pub(crate) routes: RoutingTable,
    /// Each source with the time of its first packet.
    pub(crate) sources: Vec<(Source, SimTime)>,
    pub(crate) flows: Vec<FlowInfo>,
    pub(crate) observers: Observers,
    pub(crate) apps: AppSetup,
    pub(crate) tunnels: Tunnels,
    /// Packets that may be in flight at once before the run is stopped.
    pub(crate) max_packets_in_flight: u64,
    /// What a packet capture covers, when one is asked for.
    pub(crate) capture: CapturePlan,
}

impl Simulation {
    /// Assembles a simulation and schedules its first events.
    pub(crate) fn new(parts: Parts) -> Self {
        let Parts {
            run,
            nodes,
            ports,
            routes,
            sources,
            flows,
            observers,
            apps,
            tunnels,
            max_packets_in_flight,
            capture,
        } = parts;
        let mut events = EventQueue::new();
        // Scheduled first, so it precedes every other event at the same instant.
        events.schedule(run.warmup_end, Event::WarmupEnd);
        let mut runnable = Vec::with_capacity(sources.len());
        for (i, (source, first)) in sources.into_iter().enumerate() {
            if first < source.stop {
                events.schedule(first, Event::SourceEmit(i as u32));
            }
            runnable.push(source);
        }
        for (p, port) in ports.iter().enumerate() {
            if let Some(first) = port.schedule.front() {
                events.schedule(first.at, Event::PortChange(p as u32));
            }
        }
        for &(start, endpoint) in &apps.starts {
            if start < run.end {
                events.schedule(start, Event::AppStart(endpoint));
            }
        }
        Simulation {
            run,
            nodes,
            ports,
            routes,
            sources: runnable,
            flows,
            observers,
            events,
            totals: Totals::default(),
            tcp_baseline: vec![Default::default(); apps.stack.slots.len()],
            tcp: apps.stack,
            apps: apps.apps,
            app_info: apps.info,
            tunnels,
            max_packets_in_flight,
            capture,
            halted: None,
            now: SimTime::ZERO,
        }
    }

    /// The current simulated time, ns.
    pub fn now_ns(&self) -> u64 {
        self.now.0
    }

    /// The SHA-256 (hex) identifying the run: see `docs/variants.md`.
    pub fn scenario_sha256(&self) -> &str {
        &self.run.identity.scenario_sha256
    }

    /// When the run ends (warm-up + duration), ns.
    pub fn end_ns(&self) -> u64 {
        self.run.end.0
    }

    /// Captures the frames of the ports `measure.pcap` names (every port without it) into
    /// one pcap file per port in `folder`, created if need be (see
    /// `docs/pcap.md`); files of the same names are replaced. Returns the files'
    /// paths, in the order of the ports. Asked for before the run advances.
    pub fn capture_pcap(&mut self, folder: &Path) -> Result<Vec<PathBuf>, CaptureError> {
        if self.totals.events > 0 {
            return Err(CaptureError::RunAdvanced);
        }
        std::fs::create_dir_all(folder)
            .map_err(|source| CaptureError::Folder { path: folder.to_owned(), source })?;
        let mut paths: Vec<PathBuf> = Vec::with_capacity(self.capture.ports.len());
        for &p in &self.capture.ports {
            let port = &mut self.ports[p as usize];
            let mut path = folder.join(file_name(&port.config.name));
            if paths.contains(&path) {
                // Two names made safe alike: the later one takes its port's index.
                path = folder.join(file_name(&format!("{}-{p}", port.config.name)));
            }
            let config = &port.config;
            let link = LinkHeader::for_port(config.l2_framing, port.lfi.is_some(), config.node, config.peer);
            port.capture = Some(Box::new(PortCapture::create(&path, link, self.capture.snap_bytes)?));
            paths.push(path);
        }
        Ok(paths)
    }

    /// Processes every event before `until_ns` (and before the end of the run).
    pub fn advance(&mut self, until_ns: u64) {
        while !self.run_until(until_ns, u64::MAX, false) {}
    }

    /// Processes events before `until_ns` (and before the end of the run), at most about
    /// `max_events` of them (in steps of [`CHECK_EVERY_EVENTS`]); true once `until_ns` is
    /// reached or the run has stopped. A caller that wants to stay responsive — to Ctrl-C,
    /// say — advances in slices and looks for its interrupt between them. A slice also ends
    /// early when a chunk of the per-packet trace is full, for the caller to drain it with
    /// [`Simulation::drain_trace`].
    pub fn advance_some(&mut self, until_ns: u64, max_events: u64) -> bool {
        self.run_until(until_ns, max_events, true)
    }

    /// [`Simulation::advance_some`]; `yield_for_trace` ends a slice when a trace chunk is
    /// full.
    fn run_until(&mut self, until_ns: u64, max_events: u64, yield_for_trace: bool) -> bool {
        let until = SimTime(until_ns.min(self.run.end.0));
        let mut budget = max_events;
        while self.halted.is_none() {
            let next_check = self.totals.events + CHECK_EVERY_EVENTS;
            while let Some(at) = self.events.peek_time() {
                if at >= until || self.totals.events == next_check {
                    break;
                }
                let (at, event) = self.events.pop().expect("peeked");
                self.now = at;
                self.dispatch(event);
            }
            self.guard_memory();
            if self.events.peek_time().is_none_or(|at| at >= until) {
                self.now = self.now.max(until);
                return true;
            }
            // Full trace chunks wait: let the caller drain them before going on.
            if yield_for_trace && self.observers.trace.as_ref().is_some_and(|t| t.has_full_chunk()) {
                return false;
            }
            budget = budget.saturating_sub(CHECK_EVERY_EVENTS);
            if budget == 0 {
                return false;
            }
        }
        true
    }

    /// 64-bit random outputs drawn so far by every stream that can change the results: the
    /// sources (start phases included), the applications, the droppers and the link loss
    /// models. Seeding a port's droppers from its stream is not a draw of the run.
    pub fn random_draws(&self) -> u64 {
        let sources: u64 = self.sources.iter().map(|s| s.rng.draws()).sum();
        let apps: u64 = self.apps.iter().map(App::random_draws).sum();
        let ports: u64 = self.ports.iter().map(Port::random_draws).sum();
        sources + apps + ports
    }

    /// Whether the run records a per-packet trace.
    pub fn traces(&self) -> bool {
        self.observers.trace.is_some()
    }

    /// Records a per-packet trace of every flow at every port, with deliveries, up to the
    /// default row count — unless the scenario's `measure.trace` already asks for one.
    pub fn record_trace(&mut self) {
        if self.observers.trace.is_none() {
            let setup = trace_of_everything(&self.ports, &self.flows);
            self.observers.trace = Some(Box::new(Trace::new(setup)));
        }
    }

    /// Stops recording the per-packet trace, if the run records one (a caller that has
    /// nowhere to write it).
    pub fn drop_trace(&mut self) {
        self.observers.trace = None;
    }

    /// Hands each full chunk of the per-packet trace to `sink`, oldest first; with `all`,
    /// also the rows of the chunk being filled (at the end of the run). The chunks are kept
    /// for reuse.
    pub fn drain_trace(&mut self, all: bool, sink: impl FnMut(&TraceChunk)) {
        if let Some(trace) = &mut self.observers.trace {
            if all {
                trace.flush();
            }
            trace.drain(sink);
        }
    }

    /// The trace's class dictionary: class names in the order of their indices (empty
    /// without a trace).
    pub fn trace_class_names(&self) -> &[String] {
        self.observers.trace.as_ref().map_or(&[], |t| t.class_names())
    }

    /// The names of the nodes, in the order of their indices.
    pub fn node_names(&self) -> Vec<&str> {
        self.nodes.iter().map(|n| n.name.as_str()).collect()
    }

    /// The names of the ports (`node->peer`), in the order of their indices.
    pub fn port_names(&self) -> Vec<&str> {
        self.ports.iter().map(|p| p.config.name.as_str()).collect()
    }

    /// The names of the flow rows, in the order of their indices.
    pub fn flow_names(&self) -> Vec<&str> {
        self.flows.iter().map(|f| f.name.as_str()).collect()
    }

    /// Why the run stopped before its end, if it did.
    pub fn halted(&self) -> Option<&RunError> {
        self.halted.as_ref()
    }

    /// Stops the run when more packets are in flight than the memory limit allows: a queue
    /// without a limit (or a huge one) fed faster than its link drains it.
    fn guard_memory(&mut self) {
        let t = &self.totals;
        let in_flight = t.created - t.delivered - t.dropped;
        if in_flight <= self.max_packets_in_flight {
            return;
        }
        let fullest = self.ports.iter().max_by_key(|p| p.packets_held()).expect("a network has ports");
        self.halted = Some(RunError {
            message: format!(
                "run stopped at {:.3} s: {in_flight} packets in flight would need more than the memory \
                 allowed ({} packets); port {} holds {} of them. Give its queue a limit, lower the \
                 traffic, or allow more with --max-memory",
                self.now.0 as f64 / 1e9,
                self.max_packets_in_flight,
                fullest.config.name,
                fullest.packets_held()
            ),
        });
    }

    #[inline]
    fn dispatch(&mut self, event: Event) {
        self.totals.events += 1;
        let now = self.now;
        let mut env = PortEnv {
            now,
            events: &mut self.events,
            observers: &mut self.observers,
            dropped_packets: &mut self.totals.dropped,
        };
        match event {
            Event::SourceEmit(i) => {
                let source = &mut self.sources[i as usize];
                let counted = now >= self.run.warmup_end;
                let packet = source.packet(self.totals.created, now, counted);
                self.totals.created += 1;
                if counted {
                    env.observers.on_sent(&packet);
                }
                if let Some(next) = source.next_emission() {
                    env.events.schedule(next, Event::SourceEmit(i));
                }
                let port = source.first_port;
                send(&mut self.ports, &mut self.tunnels, port, packet, &mut env);
            }
            Event::TransmitDone(p) => {
                self.totals.packet_hops += 1;
                let port = &mut self.ports[p as usize];
                port.transmit_done(&mut env);
                if port.idle_with_backlog() {
                    self.totals.work_conservation_violations += 1;
                }
            }
            Event::LinkArrival(p) => {
                let port = &mut self.ports[p as usize];
                let node = port.config.peer;
                let Some((mut packet, lost)) = port.receive() else {
                    return; // a fragment: its packet arrives with the last one
                };
                if lost {
                    *env.dropped_packets += 1;
                    if packet.counted {
                        env.observers.on_dropped(&packet, DropReason::LinkLoss, now);
                    }
                    if let Some(trace) = &mut env.observers.trace {
                        let reason = Some(DropReason::LinkLoss);
                        let row = Row {
                            event: TraceEvent::Drop,
                            port: p,
                            class: NONE,
                            queue_packets: NONE,
                            reason,
                        };
                        trace.at_port(now, &packet, row);
                    }
                    return;
                }
                if packet.hop_slot != NO_HOP {
                    if packet.counted {
                        env.observers.on_hop_departure(&packet, now);
                    }
                    packet.hop_slot = NO_HOP;
                }
                // The receiving interface is the reverse port (links make ports in pairs
                // a->b, b->a); its input policy acts before delivery or routing.
                let input = &mut self.ports[(p ^ 1) as usize];
                debug_assert_eq!(input.config.node, node);
                if let Some(reason) = input.condition_input(now, &mut packet) {
                    *env.dropped_packets += 1;
                    if packet.counted {
                        env.observers.on_dropped(&packet, reason, now);
                    }
                    if let Some(trace) = &mut env.observers.trace {
                        let (event, reason) = (TraceEvent::InputDrop, Some(reason));
                        let row = Row { event, port: p ^ 1, class: NONE, queue_packets: NONE, reason };
                        trace.at_port(now, &packet, row);
                    }
                    return;
                }
                if !self.tunnels.in_use() {
                    self.land(node, packet);
                    return;
                }
                let template = &self.flows[packet.flow as usize].template;
                match self.tunnels.on_arrival(node, packet, template, now) {
                    Passage::Go(packet) => self.land(node, packet),
                    Passage::Held(at, line) => env.events.schedule(at, Event::TunnelRelease(line)),
                }
            }
            Event::TunnelRelease(line) => match self.tunnels.release(line) {
                (packet, Next::Port(port)) => self.ports[port as usize].enqueue(packet, &mut env),
                (packet, Next::Node(node)) => self.land(node, packet),
            },
            Event::PortChange(p) => {
                if let Some(next) = self.ports[p as usize].apply_changes(&mut env) {
                    env.events.schedule(next, Event::PortChange(p));
                }
            }
            Event::PortWake(p) => {
                let port = &mut self.ports[p as usize];
                port.wake(&mut env);
                if port.idle_with_backlog() {
                    self.totals.work_conservation_violations += 1;
                }
            }
            Event::WarmupEnd => {
                self.ports.iter_mut().for_each(|p| p.start_window(now));
                for (baseline, slot) in self.tcp_baseline.iter_mut().zip(&self.tcp.slots) {
                    *baseline = slot.endpoint.sender.counters.clone();
                }
            }
            Event::AppStart(e) => {
                let (app, user) = self.user_of(e);
                if let Some(tick) =
                    self.apps[app as usize].start(user, &mut self.tcp, now, self.run.warmup_end)
                {
                    self.events.schedule(tick, Event::VoiceTick(app));
                }
                self.after_tcp_activity(e, now);
            }
            Event::VoiceTick(a) => {
                let App::Ptt(app) = &mut self.apps[a as usize] else {
                    unreachable!("only push-to-talk applications have a voice clock")
                };
                let tick = app.tick(&mut self.tcp, now, self.run.warmup_end);
                env.events.schedule(tick.next, Event::VoiceTick(a));
                let info = &self.app_info[a as usize];
                if tick.send_voice {
                    let voice = info.voice.expect("a push-to-talk application has a voice");
                    let counted = now >= self.run.warmup_end;
                    let packet = Packet { id: self.totals.created, created: now, counted, ..voice.template };
                    self.totals.created += 1;
                    if counted {
                        env.observers.on_sent(&packet);
                    }
                    send(&mut self.ports, &mut self.tunnels, voice.first_port, packet, &mut env);
                }
                let client = info.first_endpoint;
                self.after_tcp_activity(client, now);
            }
            Event::TcpTimer(e) => {
                let slot = &mut self.tcp.slots[e as usize];
                if slot.timer_at == Some(now) {
                    slot.timer_at = None;
                }
                slot.endpoint.on_timer(now, &mut self.tcp.out);
                self.after_tcp_activity(e, now);
            }
        }
    }

    /// `packet` is at `node`, past the receiving interface's input policy and any tunnel
    /// end there: delivered if `node` is its destination, else routed on.
    #[inline]
    fn land(&mut self, node: u32, packet: Packet) {
        let now = self.now;
        let mut env = PortEnv {
            now,
            events: &mut self.events,
            observers: &mut self.observers,
            dropped_packets: &mut self.totals.dropped,
        };
        if node == packet.dst_node {
            self.totals.delivered += 1;
            if packet.counted {
                env.observers.on_received(&packet, now);
            }
            if let Some(trace) = &mut env.observers.trace {
                trace.delivered(now, &packet, node);
            }
            if now >= self.run.warmup_end {
                env.observers.flows[packet.flow as usize].on_arrival_in_window(&packet);
            }
            if let Some(echo) = self.flows[packet.flow as usize].echo {
                // The reply keeps the request's creation time, so its delay is the
                // round trip.
                let reply = Packet {
                    id: self.totals.created,
                    created: packet.created,
                    counted: packet.counted,
                    size_bytes: packet.size_bytes,
                    ..self.flows[echo.flow as usize].template
                };
                self.totals.created += 1;
                if reply.counted {
                    env.observers.on_sent(&reply);
                }
                send(&mut self.ports, &mut self.tunnels, echo.first_port, reply, &mut env);
            } else if let Some(a) = self.flows[packet.flow as usize].voice_app {
                if let (App::Ptt(app), true) = (&mut self.apps[a as usize], packet.counted) {
                    app.on_voice_received(packet.created, now);
                }
            } else if let Some(segment) = packet.segment {
                self.deliver_segment(&segment, now);
            }
        } else {
            let next = self.routes.next_port(node, packet.dst_node);
            send(&mut self.ports, &mut self.tunnels, next, packet, &mut env);
        }
    }

    /// A segment reached its endpoint.
    fn deliver_segment(&mut self, segment: &Segment, now: SimTime) {
        let e = segment.to_endpoint;
        let endpoint = &mut self.tcp.slots[e as usize].endpoint;
        if segment.incarnation != endpoint.incarnation {
            // A leftover of an earlier connection on these endpoints.
            return;
        }
        endpoint.on_segment(segment, now, &mut self.tcp.out);
        self.after_tcp_activity(e, now);
    }

    /// The application owning endpoint `e`, and which of its users `e` serves.
    fn user_of(&self, e: u32) -> (u32, u32) {
        let app = self.tcp.slots[e as usize].app;
        (app, (e - self.app_info[app as usize].first_endpoint) / 2)
    }

    /// After endpoint `e` (or its application) acted at `now`: let the application react,
    /// send what the endpoints produced, and re-arm the timers of the connection.
    fn after_tcp_activity(&mut self, e: u32, now: SimTime) {
        let (app, user) = self.user_of(e);
        if let Some(next) = self.apps[app as usize].progress(user, &mut self.tcp, now, self.run.warmup_end) {
            let client = self.app_info[app as usize].first_endpoint + 2 * user;
            self.events.schedule(next, Event::AppStart(client));
        }
        let mut out = std::mem::take(&mut self.tcp.out);
        for segment in out.drain(..) {
            self.send_segment(segment, now);
        }
        self.tcp.out = out;
        let peer = self.tcp.slots[e as usize].endpoint.peer;
        for i in [e, peer] {
            let slot = &mut self.tcp.slots[i as usize];
            if let Some(deadline) = slot.endpoint.next_deadline() {
                if slot.timer_at.is_none_or(|at| deadline < at) {
                    slot.timer_at = Some(deadline);
                    self.events.schedule(deadline, Event::TcpTimer(i));
                }
            }
        }
    }

    /// Puts `segment` on the network as a packet from the peer of its destination.
    fn send_segment(&mut self, segment: Segment, now: SimTime) {
        let from = self.tcp.slots[segment.to_endpoint as usize].endpoint.peer;
        let slot = &self.tcp.slots[from as usize];
        let counted = now >= self.run.warmup_end;
        let packet = Packet {
            id: self.totals.created,
            created: now,
            counted,
            size_bytes: crate::packet::segment::HEADER_BYTES
                + segment.payload_bytes
                + segment.sack.option_bytes(),
            segment: Some(segment),
            ..slot.template
        };
        self.totals.created += 1;
        if counted {
            self.observers.on_sent(&packet);
        }
        let port = slot.first_port;
        let mut env = PortEnv {
            now,
            events: &mut self.events,
            observers: &mut self.observers,
            dropped_packets: &mut self.totals.dropped,
        };
        send(&mut self.ports, &mut self.tunnels, port, packet, &mut env);
    }

    /// Runs to the end, checks the invariants and returns what the run leaves for its
    /// result tables (the result tables themselves: `Simulation::finish`, in
    /// [`crate::report`]).
    pub(crate) fn into_snapshot(mut self) -> Result<Snapshot, RunError> {
        self.advance(self.run.end.0);
        if let Some(error) = self.halted.take() {
            return Err(error);
        }
        for capture in self.ports.iter_mut().filter_map(|p| p.capture.as_mut()) {
            capture
                .finish()
                .map_err(|message| RunError { message: format!("packet capture failed: {message}") })?;
        }
        self.now = self.run.end;
        let end = self.run.end;
        self.ports.iter_mut().for_each(|p| p.close_window(end));
        self.observers.finish(end);
        if let Some(note) = self.observers.trace.as_ref().and_then(|t| t.note()) {
            self.run.notes.push(note);
        }
        self.check_invariants()?;
        let random_draws = self.random_draws();
        Ok(Snapshot {
            run: self.run,
            nodes: self.nodes,
            ports: self.ports,
            flows: self.flows,
            observers: self.observers,
            totals: self.totals,
            tcp: self.tcp,
            tcp_baseline: self.tcp_baseline,
            apps: self.apps,
            app_info: self.app_info,
            random_draws,
        })
    }

    fn check_invariants(&self) -> Result<(), RunError> {
        let fail = |message: String| Err(RunError::invariant(message));
        let held: u64 = self.ports.iter().map(Port::packets_held).sum::<u64>() + self.tunnels.packets_held();
        let t = &self.totals;
        if t.created != t.delivered + t.dropped + held {
            return fail(format!(
                "packet conservation: created {} != delivered {} + dropped {} + in flight {held}",
                t.created, t.delivered, t.dropped
            ));
        }
        for port in &self.ports {
            let queued = port.qdisc.len_packets() as u64;
            let name = &port.config.name;
            port.queue_stats.check(queued).or_else(|e| fail(format!("port {name}: {e}")))?;
            let mut in_classes = 0;
            for (class, stats) in port.qdisc.class_names().iter().zip(&port.class_stats) {
                stats
                    .check(stats.backlog_packets)
                    .or_else(|e| fail(format!("port {name}, class {class}: {e}")))?;
                in_classes += stats.backlog_packets;
            }
            if in_classes != queued {
                return fail(format!(
                    "port {name}: its classes hold {in_classes} packets, the discipline {queued}"
                ));
            }
            for retired in &port.retired {
                for (class, stats) in retired.class_names.iter().zip(&retired.class_stats) {
                    stats.check(0).or_else(|e| fail(format!("port {name}, replaced class {class}: {e}")))?;
                }
            }
        }
        for (info, stats) in self.flows.iter().zip(&self.observers.flows) {
            if stats.received_packets + stats.drops.total_packets() > stats.sent_packets {
                return fail(format!(
                    "flow {}: received {} + dropped {} exceeds sent {}",
                    info.name,
                    stats.received_packets,
                    stats.drops.total_packets(),
                    stats.sent_packets
                ));
            }
        }
        self.observers.check().or_else(|e| fail(e.to_string()))?;
        if t.work_conservation_violations > 0 {
            return fail(format!(
                "work conservation: a link fell idle {} times while packets waited",
                t.work_conservation_violations
            ));
        }
        Ok(())
    }
}
