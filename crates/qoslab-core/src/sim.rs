//! A runnable simulation: the network, its sources and applications, the event list and
//! the run loop.
//!
//! The loop pops the earliest event and hands it to the model; nothing else advances time.
//! Packets enter the network at [`Network::emit`] and leave it at their destination, where
//! the loop gives each to its flow's sink ([`Sink`]). Applications take part through their
//! users' timers ([`Event::AppTimer`]) and their sinks; the loop names none of them. Nodes
//! interact only through link events (a frame's arrival one propagation delay after its
//! last bit left), the property a future parallel engine over partitioned topologies
//! needs. At the end of every run the invariants are checked — packet conservation over
//! the whole network, the backlog identity of every queue, per-flow accounting and work
//! conservation — and a violation fails the run.

mod parts;

pub use parts::{AppInfo, AppSetup, DatagramOut, Echo, FlowInfo, Input, Parts, RunIdentity, RunInfo, Sink};

use crate::app::{pair_of, App, AppRequest};
use crate::engine::prefetch::prefetch;
use crate::engine::{Event, EventQueue};
use crate::ids::{AppId, EndpointId, FlowId, PortId, SourceId, Table, UserId};
use crate::measure::trace::{Trace, TraceChunk, TraceSetup, CHUNK_ROWS};
use crate::measure::Observers;
use crate::net::network::{NetEnv, Network};
use crate::net::pcap::{file_name, CaptureError, CapturePlan, LinkHeader, PortCapture};
use crate::net::port::Port;
use crate::packet::{Packet, Segment};
use crate::qdisc::Qdisc;
use crate::tcp::TcpStack;
use crate::time::SimTime;
use crate::traffic::Source;
use std::fmt;
use std::path::{Path, PathBuf};

/// The most rows of the per-packet trace one event records: a packet arriving at an idle
/// port is traced as it arrives, is dequeued and starts on the wire, and may be delivered.
pub const TRACE_ROWS_PER_EVENT: u64 = 4;

/// Rows a trace records unless `measure.trace.max_rows` says otherwise.
pub const DEFAULT_TRACE_ROWS: u64 = 10_000_000;

/// A trace of every flow at every port, with deliveries, up to the default row count.
pub(crate) fn trace_of_everything(
    ports: &Table<PortId, Port>,
    flows: &Table<FlowId, FlowInfo>,
) -> TraceSetup {
    TraceSetup {
        ports: vec![true; ports.len()].into(),
        port_nodes: ports.iter().map(|p| p.config.node).collect(),
        port_classes: ports.iter().map(|p| p.qdisc.class_names()).collect(),
        flows: vec![true; flows.len()].into(),
        deliveries: true,
        max_rows: DEFAULT_TRACE_ROWS,
        chunk_rows: CHUNK_ROWS,
    }
}

/// A run that cannot give results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// It broke an invariant: the model has a bug, and the run's numbers cannot be trusted.
    Invariant(String),
    /// It was stopped at a guard: its packets in flight would need more memory than allowed.
    Stopped(String),
    /// Its packet capture could not be written.
    Capture(String),
}

impl RunError {
    fn invariant(what: String) -> Self {
        RunError::Invariant(format!("invariant violated, results discarded: {what}"))
    }

    /// The failure's kind, a stable name: `invariant`, `stopped` or `capture`.
    pub fn kind(&self) -> &'static str {
        match self {
            RunError::Invariant(_) => "invariant",
            RunError::Stopped(_) => "stopped",
            RunError::Capture(_) => "capture",
        }
    }

    /// What was found, as one sentence starting with what kind of failure it is.
    pub fn message(&self) -> &str {
        match self {
            RunError::Invariant(message) | RunError::Stopped(message) | RunError::Capture(message) => message,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for RunError {}

/// A built scenario, ready to run.
pub struct Simulation {
    pub(crate) run: RunInfo,
    pub(crate) net: Network,
    pub(crate) sources: Table<SourceId, Source>,
    pub(crate) flows: Table<FlowId, FlowInfo>,
    /// Each flow's sink, copied from its row when the run is built: a delivery reads a few
    /// bytes of this dense table, not a line of a 136-byte row it has no other use for
    /// (reading the row instead made 1000 flows 3.6 % slower).
    sinks: Table<FlowId, Sink>,
    pub(crate) observers: Observers,
    pub(crate) events: EventQueue,
    /// Events processed so far.
    pub(crate) events_done: u64,
    pub(crate) tcp: TcpStack,
    pub(crate) apps: Table<AppId, App>,
    pub(crate) app_info: Table<AppId, AppInfo>,
    /// Each user: its application and its number there.
    users: Table<UserId, (AppId, u32)>,
    /// Per TCP endpoint: its counters when the warm-up ended.
    pub(crate) tcp_baseline: Table<EndpointId, crate::tcp::sender::SendCounters>,
    /// Packets that may be in flight at once before the run is stopped (the memory guard).
    pub(crate) max_packets_in_flight: u64,
    /// What a packet capture covers, when one is asked for ([`Simulation::capture_pcap`]).
    pub(crate) capture: CapturePlan,
    /// The events the run is estimated to take.
    estimated_events: u64,
    /// Why the run stopped early, once it has.
    halted: Option<RunError>,
    now: SimTime,
}

/// What a finished run leaves: the state of its network, flows, applications and
/// observers at the end, its invariants checked. The result tables are built from it.
pub(crate) struct Snapshot {
    pub(crate) run: RunInfo,
    pub(crate) net: Network,
    pub(crate) flows: Table<FlowId, FlowInfo>,
    pub(crate) observers: Observers,
    /// Events processed.
    pub(crate) events: u64,
    pub(crate) tcp: TcpStack,
    /// Per TCP endpoint: its counters when the warm-up ended.
    pub(crate) tcp_baseline: Table<EndpointId, crate::tcp::sender::SendCounters>,
    pub(crate) apps: Table<AppId, App>,
    pub(crate) app_info: Table<AppId, AppInfo>,
    /// [`Simulation::random_draws`] at the end of the run.
    pub(crate) random_draws: u64,
}

/// Events between two checks of the memory guard (and, for callers that advance in
/// slices, the most a slice should hold to stay responsive).
pub const CHECK_EVERY_EVENTS: u64 = 1 << 16;

impl Simulation {
    /// Assembles a simulation and schedules its first events.
    pub(crate) fn new(parts: Parts) -> Self {
        let Parts {
            run,
            network,
            mut sources,
            flows,
            observers,
            apps,
            max_packets_in_flight,
            capture,
            estimated_events,
        } = parts;
        // Sources numbered in the order of their first emissions (the flows' order on ties,
        // the order they fire in anyway): those of one interval keep that order, so their
        // emissions walk the table from one source to the next, and the processor's
        // prefetcher brings each source's lines in before it emits.
        sources.raw.sort_by_key(|&(_, first)| first);
        let mut events = EventQueue::new();
        // Scheduled first, so it precedes every other event at the same instant.
        events.schedule(run.warmup_end, Event::WarmupEnd);
        // Sources of one constant interval emit in the order they are scheduled, and so do
        // the arrivals at the far end of a link with a delay: each such stream is a lane.
        let mut interval_lanes: Vec<(u64, u32)> = Vec::new();
        for (i, (source, _)) in sources.iter_enumerated() {
            let Some(interval_ns) = source.generator.constant_interval_ns() else { continue };
            if source.send_jitter.is_some() {
                continue;
            }
            let lane = match interval_lanes.iter().find(|(ns, _)| *ns == interval_ns) {
                Some(&(_, lane)) => lane,
                None => {
                    let lane = events.add_lane();
                    interval_lanes.push((interval_ns, lane));
                    lane
                }
            };
            events.set_source_lane(i, lane);
        }
        for (p, port) in network.ports.iter_enumerated() {
            if port.config.propagation_ns > 0 {
                let lane = events.add_lane();
                events.set_arrival_lane(p, lane);
            }
        }
        // First emissions scheduled in time order, the sources' order: those of one interval
        // then enter its lane in order, not the heap.
        for (i, (source, first)) in sources.iter_enumerated() {
            if *first < source.stop {
                events.schedule(*first, Event::SourceEmit(i));
            }
        }
        let runnable: Table<SourceId, Source> = sources.into_iter().map(|(source, _)| source).collect();
        for (p, port) in network.ports.iter_enumerated() {
            if let Some(first) = port.schedule.front() {
                events.schedule(first.at, Event::PortChange(p));
            }
        }
        for &(start, user) in &apps.starts {
            if start < run.end {
                events.schedule(start, Event::AppTimer(user));
            }
        }
        Simulation {
            run,
            net: network,
            sources: runnable,
            sinks: flows.iter().map(|f| f.sink).collect(),
            flows,
            observers,
            events,
            events_done: 0,
            tcp_baseline: vec![Default::default(); apps.stack.slots.len()].into(),
            tcp: apps.stack,
            apps: apps.apps,
            app_info: apps.info,
            users: apps.users,
            max_packets_in_flight,
            capture,
            estimated_events,
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
        if self.events_done > 0 {
            return Err(CaptureError::RunAdvanced);
        }
        std::fs::create_dir_all(folder)
            .map_err(|source| CaptureError::Folder { path: folder.to_owned(), source })?;
        let mut paths: Vec<PathBuf> = Vec::with_capacity(self.capture.ports.len());
        for &p in &self.capture.ports {
            let port = &mut self.net.ports[p];
            let mut path = folder.join(file_name(&port.config.name));
            if paths.contains(&path) {
                // Two names made safe alike: the later one takes its port's index.
                path = folder.join(file_name(&format!("{}-{p}", port.config.name)));
            }
            let config = &port.config;
            let link = LinkHeader::for_port(config.l2_framing, port.lfi.is_some(), config.node, config.peer);
            let limit_bytes = self.capture.file_limit_bytes();
            port.capture =
                Some(Box::new(PortCapture::create(&path, link, self.capture.snap_bytes, limit_bytes)?));
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
            let next_check = self.events_done + CHECK_EVERY_EVENTS;
            while self.events_done < next_check {
                let Some((at, event)) = self.events.pop_before(until) else { break };
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

    /// Processes the run's next event as [`Simulation::advance`] does, without the memory
    /// guard: the event and its time, or `None` at the end of the run. For tests that look
    /// at the run between its events.
    #[cfg(test)]
    pub(crate) fn step(&mut self) -> Option<(SimTime, Event)> {
        let (at, event) = self.events.pop_before(self.run.end)?;
        self.now = at;
        self.dispatch(event);
        Some((at, event))
    }

    /// 64-bit random outputs drawn so far by every stream that can change the results: the
    /// sources (start phases included), the applications, the droppers and the link loss
    /// models. Seeding a port's droppers from its stream is not a draw of the run.
    pub fn random_draws(&self) -> u64 {
        let sources: u64 = self.sources.iter().map(|s| s.rng.draws()).sum();
        let apps: u64 = self.apps.iter().map(App::random_draws).sum();
        sources + apps + self.net.random_draws()
    }

    /// Whether the run records a per-packet trace.
    pub fn traces(&self) -> bool {
        self.observers.trace.is_some()
    }

    /// The most the packet capture can write, bytes: the scenario's traffic estimated per
    /// port, within `measure.pcap.max_bytes` (see `net::pcap`).
    pub fn capture_bytes_bound(&self) -> u64 {
        self.capture.estimated_bytes
    }

    /// The most rows the per-packet trace can record: its row limit, or fewer when the run's
    /// estimated events are fewer (an event records at most [`TRACE_ROWS_PER_EVENT`] rows);
    /// 0 without a trace.
    pub fn trace_rows_bound(&self) -> u64 {
        let events_rows = self.estimated_events.saturating_mul(TRACE_ROWS_PER_EVENT);
        self.observers.trace.as_ref().map_or(0, |trace| trace.max_rows().min(events_rows))
    }

    /// Records a per-packet trace of every flow at every port, with deliveries, up to the
    /// default row count — unless the scenario's `measure.trace` already asks for one.
    pub fn record_trace(&mut self) {
        if self.observers.trace.is_none() {
            let setup = trace_of_everything(&self.net.ports, &self.flows);
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
        self.net.nodes.iter().map(|n| n.name.as_str()).collect()
    }

    /// The names of the ports (`node->peer`), in the order of their indices.
    pub fn port_names(&self) -> Vec<&str> {
        self.net.ports.iter().map(|p| p.config.name.as_str()).collect()
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
        let in_flight = self.net.packets_in_flight();
        if in_flight <= self.max_packets_in_flight {
            return;
        }
        let fullest = self.net.ports.iter().max_by_key(|p| p.packets_held()).expect("a network has ports");
        self.halted = Some(RunError::Stopped(format!(
            "run stopped at {:.3} s: {in_flight} packets in flight would need more than the memory \
                 allowed ({} packets); port {} holds {} of them. Give its queue a limit, lower the \
                 traffic, or allow more with --max-memory",
            self.now.0 as f64 / 1e9,
            self.max_packets_in_flight,
            fullest.config.name,
            fullest.packets_held()
        )));
    }

    /// The environment the network works in during the current event.
    #[inline(always)]
    fn env<'a>(now: SimTime, events: &'a mut EventQueue, observers: &'a mut Observers) -> NetEnv<'a> {
        NetEnv { now, events, observers }
    }

    #[inline]
    fn dispatch(&mut self, event: Event) {
        self.events_done += 1;
        let now = self.now;
        let mut env = Self::env(now, &mut self.events, &mut self.observers);
        match event {
            Event::SourceEmit(i) => {
                // The flow row of the source emitting next in this one's lane (its own rows
                // are in flow order, not emission order) is fetched while this one emits.
                if let Some(next) = env.events.next_in_lane(i) {
                    prefetch(&env.observers.flows[self.sources[next].template.flow]);
                }
                let source = &mut self.sources[i];
                let packet = source.packet(now, now >= self.run.warmup_end);
                if let Some(next) = source.next_emission(now) {
                    env.events.schedule(next, Event::SourceEmit(i));
                }
                self.net.emit(packet, source.first_port, &mut env);
            }
            Event::TransmitDone(p) => {
                // A frame that reaches the far end now, with nothing else due by then, arrives
                // as the next event would: handled here, and counted as one.
                if self.net.transmit_done(p, &mut env) {
                    self.events_done += 1;
                    if let Some(packet) = self.net.link_arrival(p, &mut env) {
                        self.sink(&packet);
                    }
                }
            }
            Event::LinkArrival(p) => {
                if let Some(packet) = self.net.link_arrival(p, &mut env) {
                    self.sink(&packet);
                }
            }
            other => self.dispatch_other(other),
        }
    }

    /// The events other than a source's emission and a frame's transmission and arrival:
    /// out of line, so that the frequent ones are handled in few instructions.
    #[inline(never)]
    fn dispatch_other(&mut self, event: Event) {
        let now = self.now;
        let mut env = Self::env(now, &mut self.events, &mut self.observers);
        match event {
            Event::SourceEmit(_) | Event::TransmitDone(_) | Event::LinkArrival(_) => {
                unreachable!("handled by dispatch")
            }
            Event::TunnelRelease(line) => {
                if let Some(packet) = self.net.tunnel_release(line, &mut env) {
                    self.sink(&packet);
                }
            }
            Event::PortChange(p) => {
                if let Some(next) = self.net.change(p, &mut env) {
                    env.events.schedule(next, Event::PortChange(p));
                }
            }
            Event::PortWake(p) => self.net.wake(p, &mut env),
            Event::WarmupEnd => {
                self.net.start_window(now);
                for (baseline, slot) in self.tcp_baseline.iter_mut().zip(&self.tcp.slots) {
                    *baseline = slot.endpoint.sender.counters.clone();
                }
            }
            Event::AppTimer(u) => {
                let (app, user) = self.users[u];
                let request = self.apps[app].on_timer(user, &mut self.tcp, now, self.run.warmup_end);
                self.carry_out(app, user, request);
                self.after_tcp_activity(pair_of(self.app_info[app].first_endpoint, user));
            }
            Event::TcpTimer(e) => {
                let slot = &mut self.tcp.slots[e];
                if slot.timer_at == Some(now) {
                    slot.timer_at = None;
                }
                slot.endpoint.on_timer(now, &mut self.tcp.out);
                self.after_tcp_activity(e);
            }
        }
    }

    /// `packet` was delivered at its destination: its flow's sink takes it. A sink that only
    /// counts (the delivery has counted the packet) costs one test here; the others are
    /// called.
    #[inline(always)]
    fn sink(&mut self, packet: &Packet) {
        let sink = self.sinks[packet.flow];
        debug_assert!(
            packet.segment.is_none() || matches!(sink, Sink::Tcp),
            "only a TCP sink takes a segment out of the store"
        );
        match sink {
            Sink::Counted => {}
            Sink::Echo(echo) => self.echo(echo, packet),
            Sink::App(app) => self.apps[app].on_datagram(packet, self.now),
            Sink::Tcp => self.segment_arrived(packet),
        }
    }

    /// `packet`, a TCP segment, reached its endpoint: its life ends here, and its segment
    /// leaves the store for the endpoint.
    #[inline(never)]
    fn segment_arrived(&mut self, packet: &Packet) {
        if let Some(handle) = packet.segment {
            let segment = self.net.segments.release(handle);
            self.deliver_segment(&segment);
        }
    }

    /// Sends the reply to `request` that `echo` asks for. The reply keeps the request's
    /// creation time, so its delay is the round trip.
    #[inline(never)]
    fn echo(&mut self, echo: Echo, request: &Packet) {
        let reply = Packet {
            created: request.created,
            counted: request.counted,
            size_bytes: request.size_bytes,
            ..self.flows[echo.flow].template
        };
        let mut env = Self::env(self.now, &mut self.events, &mut self.observers);
        self.net.emit(reply, echo.first_port, &mut env);
    }

    /// Does what application `app` asked for after acting for its user `user`: sets the
    /// user's timer, sends a packet of its datagram flow.
    fn carry_out(&mut self, app: AppId, user: u32, request: AppRequest) {
        let info = &self.app_info[app];
        if let Some(at) = request.timer {
            self.events.schedule(at, Event::AppTimer(UserId(info.first_user.0 + user)));
        }
        if request.datagram {
            let out = info.datagrams.expect("an application that sends datagrams has a datagram flow");
            let packet =
                Packet { created: self.now, counted: self.now >= self.run.warmup_end, ..out.template };
            let mut env = Self::env(self.now, &mut self.events, &mut self.observers);
            self.net.emit(packet, out.first_port, &mut env);
        }
    }

    /// A segment reached its endpoint.
    fn deliver_segment(&mut self, segment: &Segment) {
        let e = segment.to_endpoint;
        let endpoint = &mut self.tcp.slots[e].endpoint;
        if segment.incarnation != endpoint.incarnation {
            // A leftover of an earlier connection on these endpoints.
            return;
        }
        endpoint.on_segment(segment, self.now, &mut self.tcp.out);
        self.after_tcp_activity(e);
    }

    /// After endpoint `e` (or its application) acted: let the application react, send what
    /// the endpoints produced, and re-arm the timers of the connection.
    fn after_tcp_activity(&mut self, e: EndpointId) {
        let now = self.now;
        let app = self.tcp.slots[e].app;
        let user = (e.0 - self.app_info[app].first_endpoint.0) / 2;
        let request = self.apps[app].on_progress(user, &mut self.tcp, now, self.run.warmup_end);
        self.carry_out(app, user, request);
        let mut out = std::mem::take(&mut self.tcp.out);
        for segment in out.drain(..) {
            self.send_segment(segment);
        }
        self.tcp.out = out;
        let peer = self.tcp.slots[e].endpoint.peer;
        for i in [e, peer] {
            let slot = &mut self.tcp.slots[i];
            if let Some(deadline) = slot.endpoint.next_deadline() {
                if slot.timer_at.is_none_or(|at| deadline < at) {
                    slot.timer_at = Some(deadline);
                    self.events.schedule(deadline, Event::TcpTimer(i));
                }
            }
        }
    }

    /// Puts `segment` on the network as a packet from the peer of its destination; the
    /// segment waits in the network's store while the packet travels.
    fn send_segment(&mut self, segment: Segment) {
        let from = self.tcp.slots[segment.to_endpoint].endpoint.peer;
        let slot = &self.tcp.slots[from];
        let packet = Packet {
            created: self.now,
            counted: self.now >= self.run.warmup_end,
            size_bytes: crate::packet::segment::HEADER_BYTES
                + segment.payload_bytes
                + segment.sack.option_bytes(),
            segment: Some(self.net.segments.put(segment)),
            ..slot.template
        };
        let mut env = Self::env(self.now, &mut self.events, &mut self.observers);
        self.net.emit(packet, slot.first_port, &mut env);
    }

    /// Runs to the end, checks the invariants and returns what the run leaves for its
    /// result tables (the result tables themselves: `Simulation::finish`, in
    /// [`crate::report`]).
    pub(crate) fn into_snapshot(mut self) -> Result<Snapshot, RunError> {
        self.advance(self.run.end.0);
        if let Some(error) = self.halted.take() {
            return Err(error);
        }
        for port in self.net.ports.iter_mut() {
            if let Some(capture) = port.capture.as_mut() {
                capture
                    .finish()
                    .map_err(|message| RunError::Capture(format!("packet capture failed: {message}")))?;
                self.run.notes.extend(capture.note(&port.config.name));
            }
        }
        self.now = self.run.end;
        let end = self.run.end;
        self.net.close_window(end);
        self.observers.finish(end);
        if let Some(note) = self.observers.trace.as_ref().and_then(|t| t.note()) {
            self.run.notes.push(note);
        }
        self.check_invariants()?;
        let random_draws = self.random_draws();
        Ok(Snapshot {
            run: self.run,
            net: self.net,
            flows: self.flows,
            observers: self.observers,
            events: self.events_done,
            tcp: self.tcp,
            tcp_baseline: self.tcp_baseline,
            apps: self.apps,
            app_info: self.app_info,
            random_draws,
        })
    }

    fn check_invariants(&self) -> Result<(), RunError> {
        let fail = |message: String| Err(RunError::invariant(message));
        let held = self.net.packets_held();
        let t = &self.net.counts;
        if t.created != t.delivered + t.dropped + held {
            return fail(format!(
                "packet conservation: created {} != delivered {} + dropped {} + in flight {held}",
                t.created, t.delivered, t.dropped
            ));
        }
        // Every segment in the store belongs to a packet still on the network.
        let segments = self.net.segments.in_use_segments() as u64;
        if segments > held {
            return fail(format!("segment store: {segments} segments kept for {held} packets in flight"));
        }
        for port in &self.net.ports {
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
