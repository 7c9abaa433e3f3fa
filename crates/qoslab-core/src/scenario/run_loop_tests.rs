//! The run loop and the network from inside, on runs built from scenarios: a built run's
//! events taken one at a time ([`Simulation::step`]), its state looked at between them. Checked
//! by hand: the events a packet's journey makes and their times (serialization and
//! propagation per hop, the router's routing table choosing the way out, a frame arriving
//! with its transmission's end handled as the same step), the order of events due at one
//! instant, an echo's reply, scheduled port changes, and — after every single event of a
//! congested run with policing, drops and echoes — that every packet created is delivered,
//! dropped or held somewhere and that no port idles while packets wait.

use crate::engine::Event;
use crate::ids::{FlowId, PortId, SourceId};
use crate::measure::DropReason;
use crate::sim::Simulation;
use crate::time::SimTime;

/// The run of scenario `text` (YAML), built.
fn build(text: &str) -> Simulation {
    super::load(text, "<test>", &[], None).unwrap_or_else(|e| panic!("{e}"))
}

/// Processes the run's next event; the event and its time, or `None` at the end.
fn step(sim: &mut Simulation) -> Option<(SimTime, Event)> {
    sim.step()
}

/// The port named `name` (`node->peer`).
fn port(sim: &Simulation, name: &str) -> PortId {
    let found = sim.net.ports.iter_enumerated().find(|(_, p)| p.config.name == name);
    found.unwrap_or_else(|| panic!("no port {name}")).0
}

/// The flow named `name`.
fn flow(sim: &Simulation, name: &str) -> FlowId {
    let found = sim.flows.iter_enumerated().find(|(_, f)| f.name == name);
    found.unwrap_or_else(|| panic!("no flow {name}")).0
}

/// Host `a`, router `r`, hosts `b` and `c`: a–r at 1 Mbit/s with 2 ms of propagation, r–b
/// at 500 kbit/s and r–c at 250 kbit/s without, all HDLC (7 bytes of framing), and
/// `traffic` (YAML flow list entries, one per line).
fn star(run: &str, interfaces: &str, traffic: &str) -> String {
    format!(
        "name: star
run: {{{run}}}
topology:
  nodes: {{a: {{kind: host}}, r: {{kind: router}}, b: {{kind: host}}, c: {{kind: host}}}}
  links:
    - {{between: [a, r], rate: 1Mbps, delay: 2ms, l2: hdlc}}
    - {{between: [r, b], rate: 500kbps, l2: hdlc}}
    - {{between: [r, c], rate: 250kbps, l2: hdlc}}
interfaces: {{{interfaces}}}
traffic:
{traffic}"
    )
}

const MS: u64 = 1_000_000;
const US: u64 = 1_000;

/// One 200-byte packet from `a` to `b` (207 bytes framed): the window opens, the source
/// emits, the frame leaves a->r after 1.656 ms, arrives 2 ms later, and leaves r->b (the
/// routing table's way to `b`) after 3.312 ms more — where, with no propagation and nothing
/// else due, its arrival is handled in the same step and counted as an event of its own.
#[test]
fn a_packets_journey_is_the_events_its_hops_make() {
    let mut sim = build(&star(
        "duration: 1s, seed: 1",
        "",
        "  - {name: one, from: a, to: b, stop: 500ms, pattern: {kind: cbr, rate_pps: 1, size: 200B}}",
    ));
    let (ar, rb) = (port(&sim, "a->r"), port(&sim, "r->b"));
    let mut seen = Vec::new();
    while let Some(step) = step(&mut sim) {
        seen.push(step);
    }
    let want = [
        (SimTime(0), Event::WarmupEnd),
        (SimTime(0), Event::SourceEmit(SourceId(0))),
        (SimTime(1_656 * US), Event::TransmitDone(ar)),
        (SimTime(3_656 * US), Event::LinkArrival(ar)),
        (SimTime(6_968 * US), Event::TransmitDone(rb)),
    ];
    assert_eq!(seen, want);
    assert_eq!(sim.events_done, 6, "the arrival handled with the transmission counts as one");
    let counts = &sim.net.counts;
    assert_eq!((counts.created, counts.delivered, counts.dropped, counts.packet_hops), (1, 1, 0, 2));
    let stats = &sim.observers.flows[flow(&sim, "one")];
    assert_eq!((stats.sent_packets, stats.received_packets), (1, 1));
}

/// The router sends each packet out of the port its routing table gives for the
/// destination: a packet for `c` leaves on r->c (at 250 kbit/s: 6.624 ms), never on r->b.
#[test]
fn the_router_forwards_by_destination() {
    let mut sim = build(&star(
        "duration: 1s, seed: 1",
        "",
        "  - {name: to-c, from: a, to: c, stop: 500ms, pattern: {kind: cbr, rate_pps: 1, size: 200B}}",
    ));
    let (rb, rc) = (port(&sim, "r->b"), port(&sim, "r->c"));
    let mut left_router = Vec::new();
    while let Some((at, event)) = step(&mut sim) {
        if let Event::TransmitDone(p) = event {
            if p == rb || p == rc {
                left_router.push((at, p));
            }
        }
    }
    assert_eq!(left_router, [(SimTime(3_656 * US + 6_624 * US), rc)]);
    assert_eq!(sim.net.counts.delivered, 1);
}

/// Events due at one instant keep the order they were scheduled in: the window opens
/// before the sources emit at the same instant (so their packets count), and two sources
/// of one interval started together emit in the flows' order, every period.
#[test]
fn events_at_one_instant_keep_their_order() {
    let mut sim = build(&star(
        "duration: 1s, warmup: 10ms, seed: 1",
        "",
        "  - {name: first, from: a, to: b, start: 10ms, stop: 40ms, pattern: {kind: cbr, rate_pps: 100, size: 60B}}
  - {name: second, from: a, to: c, start: 10ms, stop: 40ms, pattern: {kind: cbr, rate_pps: 100, size: 60B}}",
    ));
    let first = flow(&sim, "first");
    let mut emitted = Vec::new();
    let mut window_opened_at = None;
    while let Some((at, event)) = step(&mut sim) {
        match event {
            Event::WarmupEnd => window_opened_at = Some((at, emitted.len())),
            Event::SourceEmit(s) => emitted.push((at.0 / MS, sim.sources[s].template.flow == first)),
            _ => {}
        }
    }
    assert_eq!(window_opened_at, Some((SimTime(10 * MS), 0)), "the window opens before any emission");
    let want: Vec<(u64, bool)> = [10, 20, 30].iter().flat_map(|&ms| [(ms, true), (ms, false)]).collect();
    assert_eq!(emitted, want);
    assert_eq!(sim.observers.flows[first].sent_packets, 3, "emissions at the window's opening count");
}

/// An echo's reply leaves `b` as the request arrives and keeps the request's creation time:
/// it reaches `a` after the round trip, 2 × 6.968 ms, which is the delay its flow records.
#[test]
fn an_echo_replies_on_arrival_with_the_requests_time() {
    let mut sim = build(&star(
        "duration: 1s, seed: 1",
        "",
        "  - {name: ping, from: a, to: b, echo: true, stop: 500ms, pattern: {kind: cbr, rate_pps: 1, size: 200B}}",
    ));
    while sim.net.counts.delivered < 2 {
        step(&mut sim).expect("both the request and its reply are delivered");
    }
    assert_eq!(sim.now_ns(), 2 * 6_968 * US);
    let reply = &sim.observers.flows[flow(&sim, "ping.echo")];
    assert_eq!(reply.received_packets, 1);
    assert_eq!(reply.sent_packets, 1);
    assert_eq!(sim.net.counts.created, 2);
}

/// Scheduled changes of a port take effect as events at their times, in order, each
/// scheduling the next.
#[test]
fn scheduled_changes_fire_in_order() {
    let mut sim = build(&star(
        "duration: 1s, seed: 1",
        "r: {b: {changes: [{at: 200ms, bandwidth: 256kbps}, {at: 700ms, bandwidth: 128kbps}]}}",
        "  - {name: one, from: a, to: b, stop: 500ms, pattern: {kind: cbr, rate_pps: 1, size: 200B}}",
    ));
    let rb = port(&sim, "r->b");
    let mut changes = Vec::new();
    while let Some((at, event)) = step(&mut sim) {
        if event == Event::PortChange(rb) {
            changes.push((at, sim.net.ports[rb].config.bandwidth_bps));
        }
    }
    assert_eq!(changes, [(SimTime(200 * MS), Some(256_000)), (SimTime(700 * MS), Some(128_000))]);
}

/// A congested run — a Poisson flood policed at r's input and overflowing a 10-packet FIFO
/// on r->b, voice with echoes beside it — checked after every one of its events: each
/// packet created is delivered, dropped or held in some port, the counts never run back,
/// and no port's wire idles while packets wait. Both kinds of drop happen, so the check is
/// not vacuous.
#[test]
fn every_event_keeps_every_packet_accounted_for() {
    let mut sim = build(&star(
        "duration: 4s, seed: 7",
        "r: {a: {input: {classes: [{match: {dscp: 0}, police: {cir: 700kbps, bc: 3000B}}]}},
             b: {output: {kind: fifo, limit: 10}}}",
        "  - {name: flood, from: a, to: b, pattern: {kind: poisson, rate: 900kbps, size: 1000B}}
  - {name: voice, from: a, to: b, dscp: EF, echo: true, pattern: {kind: cbr, rate_pps: 50, size: 200B}}",
    ));
    let mut last = (0, 0, 0);
    let mut steps = 0u64;
    while step(&mut sim).is_some() {
        steps += 1;
        let c = &sim.net.counts;
        assert_eq!(c.created - c.delivered - c.dropped, sim.net.packets_held(), "at {} ns", sim.now_ns());
        assert_eq!(c.work_conservation_violations, 0, "at {} ns", sim.now_ns());
        assert!(c.created >= last.0 && c.delivered >= last.1 && c.dropped >= last.2);
        last = (c.created, c.delivered, c.dropped);
    }
    let flood = &sim.observers.flows[flow(&sim, "flood")].drops;
    assert!(flood.packets(DropReason::PolicerExceed) > 0, "the input policer drops");
    assert!(flood.packets(DropReason::TailDrop) > 0, "the FIFO overflows");
    let replies = sim.observers.flows[flow(&sim, "voice.echo")].received_packets;
    assert!(replies >= 50, "voice shares the full FIFO, yet many replies come back: {replies}");
    assert!(steps > 2_000 && sim.events_done >= steps);
}
