//! The per-packet trace (`measure.trace`): a hand-computed trace through one FIFO port, a
//! drop with its reason, conservation at every traced port against the flow rows, the row
//! cap and its note, the validation of its names, the sequence and acknowledgement
//! numbers of a TCP transfer's segments, and the order in which a replaced discipline
//! hands over its packets.

use crate::common::{flow, two_hosts};
use qoslab_core::trace::{TraceChunk, TraceEvent, NONE, NO_TCP};
use qoslab_core::DropReason;
use qoslab_core::{load, Override, Results};
use std::collections::HashMap;

/// One trace row with its names resolved.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    time_ns: u64,
    event: &'static str,
    node: String,
    port: Option<String>,
    flow: String,
    packet_id: u64,
    size_bytes: u32,
    dscp: u8,
    class: Option<String>,
    queue_packets: Option<u32>,
    delay_ns: u64,
    reason: Option<&'static str>,
    tcp_seq: Option<u64>,
    tcp_ack: Option<u64>,
}

/// Runs `text` with `overrides`, draining the trace between slices as a caller must;
/// returns the rows, the results and the most chunks the trace held at once.
fn run_traced(text: &str, overrides: &[&str]) -> (Vec<Row>, Results) {
    let overrides: Vec<Override> = overrides.iter().map(|o| Override::parse(o).unwrap()).collect();
    let mut sim = load(text, "<test>", &overrides, None).unwrap_or_else(|e| panic!("{e}"));
    let nodes: Vec<String> = sim.node_names().iter().map(|s| s.to_string()).collect();
    let ports: Vec<String> = sim.port_names().iter().map(|s| s.to_string()).collect();
    let flows: Vec<String> = sim.flow_names().iter().map(|s| s.to_string()).collect();
    let mut chunks: Vec<TraceChunk> = Vec::new();
    let end = sim.end_ns();
    while !sim.advance_some(end, 1 << 20) {
        sim.drain_trace(false, |chunk| chunks.push(chunk.clone()));
    }
    sim.drain_trace(true, |chunk| chunks.push(chunk.clone()));
    let classes: Vec<String> = sim.trace_class_names().to_vec();
    let results = sim.finish().unwrap_or_else(|e| panic!("{e}"));
    let optional = |v: u32| (v != NONE).then_some(v);
    let mut rows = Vec::new();
    for c in &chunks {
        for i in 0..c.rows() {
            rows.push(Row {
                time_ns: c.time_ns.get(i),
                event: TraceEvent::ALL[c.event.get(i) as usize].name(),
                node: nodes[c.node.get(i) as usize].clone(),
                port: optional(c.port.get(i)).map(|p| ports[p as usize].clone()),
                flow: flows[c.flow.get(i) as usize].clone(),
                packet_id: c.packet_id.get(i),
                size_bytes: c.size_bytes.get(i),
                dscp: c.dscp.get(i),
                class: optional(c.class.get(i)).map(|k| classes[k as usize].clone()),
                queue_packets: optional(c.queue_packets.get(i)),
                delay_ns: c.delay_ns.get(i),
                reason: DropReason::ALL.get(c.reason.get(i) as usize).map(|r| r.name()),
                tcp_seq: (c.tcp_seq.get(i) != NO_TCP).then(|| c.tcp_seq.get(i)),
                tcp_ack: (c.tcp_ack.get(i) != NO_TCP).then(|| c.tcp_ack.get(i)),
            });
        }
    }
    (rows, results)
}

const MS: u64 = 1_000_000;

/// Three 1000-byte packets, 2 ms apart, on a 1 Mbit/s link without framing (8 ms each) with
/// a 1 ms propagation delay and a one-packet ring: only the frame on the wire leaves the
/// FIFO, so the later packets wait for it.
fn three_packets() -> String {
    let flows = "  - {name: a, from: tx, to: rx, dscp: ef, phase: none, stop: 5ms, \
                 pattern: {kind: cbr, rate_pps: 500, size: 1000B}}\n";
    two_hosts(
        "duration: 30ms, warmup: 0s",
        "rate: 1Mbps, l2: none, delay: 1ms, tx_ring: 1",
        "{kind: fifo}",
        flows,
    ) + "measure: {trace: {}}\n"
}

/// (time ms, event, packet, queue packets, delay ms) of each row.
fn summary(rows: &[Row]) -> Vec<(u64, &'static str, u64, Option<u32>, u64)> {
    rows.iter().map(|r| (r.time_ns / MS, r.event, r.packet_id, r.queue_packets, r.delay_ns / MS)).collect()
}

#[test]
fn a_hand_computed_trace_through_one_fifo_port() {
    let (rows, results) = run_traced(&three_packets(), &[]);
    // Packet 0 goes straight to the wire (0–8 ms) and arrives at 9 ms; packet 1 (created
    // at 2 ms) finds the queue empty and waits for the wire until 8 ms, arrives at 17 ms;
    // packet 2 (4 ms) finds packet 1 queued, leaves at 16 ms, arrives at 25 ms.
    let expected = vec![
        (0, "arrival", 0, Some(0), 0),
        (0, "dequeue", 0, Some(0), 0),
        (0, "transmit", 0, Some(0), 0),
        (2, "arrival", 1, Some(0), 0),
        (4, "arrival", 2, Some(1), 0),
        (8, "dequeue", 1, Some(1), 6),
        (8, "transmit", 1, Some(1), 6),
        (9, "delivery", 0, None, 9),
        (16, "dequeue", 2, Some(0), 12),
        (16, "transmit", 2, Some(0), 12),
        (17, "delivery", 1, None, 15),
        (25, "delivery", 2, None, 21),
    ];
    assert_eq!(summary(&rows), expected);
    assert!(rows.iter().all(|r| r.time_ns % MS == 0 && r.delay_ns % MS == 0), "whole milliseconds");
    for row in &rows {
        assert_eq!((row.flow.as_str(), row.size_bytes, row.dscp), ("a", 1000, 46));
        let at_port = row.event != "delivery";
        assert_eq!(row.port.as_deref(), at_port.then_some("tx->rx"));
        assert_eq!(row.node, if at_port { "tx" } else { "rx" });
        assert_eq!(row.class.as_deref(), (row.event == "dequeue").then_some("fifo"));
        assert_eq!(row.reason, None);
    }
    assert_eq!(flow(&results, "a").received_packets, 3);
    assert!(results.run.notes.is_empty());
}

#[test]
fn a_tail_drop_is_a_row_with_its_reason() {
    let (rows, results) = run_traced(&three_packets(), &["interfaces.tx.rx.output={kind: fifo, limit: 1}"]);
    // Packet 2 arrives at 4 ms to find packet 1 holding the one place.
    let drops: Vec<&Row> = rows.iter().filter(|r| r.event == "drop").collect();
    assert_eq!(drops.len(), 1);
    let drop = drops[0];
    assert_eq!((drop.time_ns, drop.packet_id, drop.reason), (4 * MS, 2, Some("tail")));
    assert_eq!(
        (drop.class.as_deref(), drop.queue_packets, drop.port.as_deref()),
        (Some("fifo"), Some(1), Some("tx->rx"))
    );
    assert!(!rows.iter().any(|r| r.packet_id == 2 && r.event != "arrival" && r.event != "drop"));
    assert_eq!(flow(&results, "a").dropped_packets, 1);
}

/// Two routers between two hosts, a 2 Mbit/s bottleneck with a small FIFO, a CBR voice flow
/// and three Poisson floods: drops at the bottleneck, none elsewhere.
fn congested(measure: &str) -> String {
    format!(
        "name: congested
run: {{duration: 2s, warmup: 200ms, seed: 3}}
topology:
  nodes: {{a: {{kind: host}}, r1: {{kind: router}}, r2: {{kind: router}}, b: {{kind: host}}}}
  links:
    - {{between: [a, r1], rate: 100Mbps}}
    - {{between: [r1, r2], rate: 2Mbps, delay: 5ms}}
    - {{between: [r2, b], rate: 100Mbps}}
interfaces:
  r1: {{r2: {{output: {{kind: fifo, limit: 20}}}}}}
traffic:
  - {{name: voice, from: a, to: b, dscp: ef, pattern: {{kind: cbr, rate_pps: 50, size: 200B}}}}
  - {{name: flood, copies: 3, from: a, to: b, pattern: {{kind: poisson, rate_pps: 100, size: 1000B}}}}
measure: {measure}
"
    )
}

#[test]
fn per_flow_and_port_arrivals_are_drops_plus_departures_plus_in_flight() {
    let (rows, results) = run_traced(&congested("{trace: {}}"), &[]);
    let mut counts: HashMap<(String, String, &str), u64> = HashMap::new();
    for r in &rows {
        let key = (r.flow.clone(), r.port.clone().unwrap_or_default(), r.event);
        *counts.entry(key).or_default() += 1;
    }
    let count =
        |f: &str, p: &str, e: &str| counts.get(&(f.to_owned(), p.to_owned(), e)).copied().unwrap_or(0);
    let flows = ["voice", "flood.1", "flood.2", "flood.3"];
    let mut bottleneck_drops = 0;
    for f in flows {
        let row = flow(&results, f);
        assert_eq!(count(f, "", "delivery"), row.received_packets, "flow {f}: deliveries");
        let drops: u64 = ["a->r1", "r1->r2", "r2->b"].iter().map(|p| count(f, p, "drop")).sum();
        assert_eq!(drops, row.dropped_packets, "flow {f}: drops");
        assert_eq!(
            count(f, "a->r1", "arrival"),
            row.sent_packets,
            "flow {f}: every packet enters the first port"
        );
        bottleneck_drops += count(f, "r1->r2", "drop");
        for port in ["a->r1", "r1->r2", "r2->b"] {
            let arrived = count(f, port, "arrival");
            let left = count(f, port, "drop") + count(f, port, "dequeue");
            // In flight at the end: in the queue (at most its 20 places) ...
            assert!(left <= arrived && arrived - left <= 20, "flow {f} at {port}: {arrived} in, {left} out");
            // ... or in the transmit ring of two, not yet on the wire.
            let (dequeued, sent) = (count(f, port, "dequeue"), count(f, port, "transmit"));
            assert!(
                sent <= dequeued && dequeued - sent <= 2,
                "flow {f} at {port}: {dequeued} dequeued, {sent} sent"
            );
        }
    }
    assert!(bottleneck_drops > 0, "the bottleneck drops");
    let reasons: Vec<_> = rows.iter().filter(|r| r.event == "drop").map(|r| r.reason).collect();
    assert!(reasons.iter().all(|r| *r == Some("tail")));
    // Every row belongs to a packet created in the measured window.
    assert!(rows.iter().all(|r| r.time_ns >= 200 * MS && r.time_ns - r.delay_ns >= 200 * MS));
}

#[test]
fn points_and_flows_narrow_the_trace() {
    let (rows, _) = run_traced(&congested("{trace: {points: [r1->r2], flows: [voice]}}"), &[]);
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r.flow == "voice" && r.port.as_deref() == Some("r1->r2")));
    let (rows, _) = run_traced(&congested("{trace: {points: [end_to_end], flows: [flood]}}"), &[]);
    assert!(rows.iter().all(|r| r.event == "delivery" && r.flow.starts_with("flood.")));
    assert!(rows.iter().any(|r| r.flow == "flood.3"), "an entry covers its copies");
}

#[test]
fn the_row_cap_stops_the_trace_with_a_note() {
    let (rows, results) = run_traced(&congested("{trace: {max_rows: 1000}}"), &[]);
    assert_eq!(rows.len(), 1000);
    let note =
        "trace stopped at 1000 rows: raise measure.trace.max_rows or narrow measure.trace.points/flows";
    assert!(results.run.notes.iter().any(|n| n == note), "{:?}", results.run.notes);
}

#[test]
fn the_trace_does_not_change_the_results() {
    let (_, traced) = run_traced(&congested("{trace: {}}"), &[]);
    let (_, plain) = run_traced(&congested("{}"), &[]);
    assert_eq!(crate::common::json_without_identity(&traced), crate::common::json_without_identity(&plain));
}

#[test]
fn unknown_trace_names_are_located_with_suggestions() {
    let cases = [
        ("{trace: {points: [r1->r3]}}", "measure.trace.points[0]", "r1->r2"),
        ("{trace: {flows: [voise]}}", "measure.trace.flows[0]", "voice"),
        ("{trace: {max_rows: 0}}", "measure.trace.max_rows", "1000000"),
        ("{trace: {points: []}}", "measure.trace.points", "end_to_end"),
    ];
    for (measure, key, hint) in cases {
        let error = load(&congested(measure), "<test>", &[], None).err().expect("refused");
        let text = error.to_string();
        assert!(text.contains(key) && text.contains(hint), "{measure}: {text}");
    }
}

#[test]
fn a_tcp_transfer_gives_its_sequence_and_acknowledgement_numbers() {
    // One 3000-byte transfer on an idle link (MSS 1460 B): the sender's SYN is sequence 0,
    // its data 1, 1461 and 2921 (1460 + 1460 + 80 bytes, the last carrying the FIN, which
    // takes sequence 3001: RFC 9293 §3.4), each acknowledging the receiver's SYN (ack 1),
    // then its acknowledgement of the receiver's FIN (sequence 3002, ack 2); the receiver's
    // acknowledgements count up to 3002 (3000 bytes, the SYN and the FIN).
    let flows = "  - {name: ftp, from: tx, to: rx, app: {kind: bulk, size: 3000B}}\n";
    let text = two_hosts("duration: 1s, warmup: 0s", "rate: 10Mbps, delay: 10ms", "{kind: fifo}", flows)
        + "measure: {trace: {points: [tx->rx, rx->tx]}}\n";
    let (rows, _) = run_traced(&text, &[]);
    let sent: Vec<(Option<u64>, Option<u64>, u32)> = rows
        .iter()
        .filter(|r| r.flow == "ftp" && r.event == "arrival")
        .map(|r| (r.tcp_seq, r.tcp_ack, r.size_bytes))
        .collect();
    assert_eq!(
        sent,
        [
            (Some(0), None, 40),
            (Some(1), Some(1), 1500),
            (Some(1461), Some(1), 1500),
            (Some(2921), Some(1), 120),
            (Some(3002), Some(2), 40)
        ]
    );
    let acks: Vec<Option<u64>> =
        rows.iter().filter(|r| r.flow == "ftp.reverse" && r.event == "arrival").map(|r| r.tcp_ack).collect();
    assert_eq!(acks.first(), Some(&Some(1)), "the SYN-ACK acknowledges the SYN");
    assert_eq!(acks.last(), Some(&Some(3002)), "the last acknowledges the FIN");
    assert!(acks.windows(2).all(|w| w[0] <= w[1]), "cumulative: {acks:?}");
}

/// A discipline replaced during the run hands its packets to the new one in their order of
/// arrival at the port, not of creation. Two floods meet at `r`: `far`'s packets cross a
/// 50 ms link, so each reaches `r` after packets `near` created later (ids and arrival order
/// disagree). At 3 s the FIFO on `r->d` (holding hundreds) is replaced by another; the
/// packets it held then leave in the order they arrived at `r->d`.
#[test]
fn a_replaced_discipline_hands_over_in_order_of_arrival() {
    let text = "name: handover
run: {duration: 4s, seed: 1}
topology:
  nodes: {far: {kind: host}, near: {kind: host}, r: {kind: router}, d: {kind: host}}
  links:
    - {between: [far, r], rate: 10Mbps, delay: 50ms, l2: none}
    - {between: [near, r], rate: 10Mbps, l2: none}
    - {between: [r, d], rate: 1Mbps, l2: none}
interfaces:
  r: {d: {output: {kind: fifo, limit: 1000}, changes: [{at: 3s, output: {kind: fifo, limit: 1000}}]}}
traffic:
  - {name: far, from: far, to: d, pattern: {kind: cbr, rate: 1Mbps, size: 1000B}}
  - {name: near, from: near, to: d, pattern: {kind: cbr, rate: 1Mbps, size: 1000B}}
measure: {trace: {points: [r->d]}}
";
    let (rows, results) = run_traced(text, &[]);
    let handed = results.changes.iter().find(|c| c.port == "r->d").expect("a change").handed_over_packets;
    assert!(handed > 300, "{handed}");
    let arrived: HashMap<u64, u64> =
        rows.iter().filter(|r| r.event == "arrival").map(|r| (r.packet_id, r.time_ns)).collect();
    // The packets transmitted after the change that arrived before it: those handed over.
    let change_ns = 3_000_000_000;
    let handed_over: Vec<&Row> = rows
        .iter()
        .filter(|r| r.event == "transmit" && r.time_ns > change_ns && arrived[&r.packet_id] < change_ns)
        .collect();
    assert!(handed_over.len() > 100, "{}", handed_over.len());
    for pair in handed_over.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        assert!(
            arrived[&a.packet_id] <= arrived[&b.packet_id],
            "{} left before {}",
            a.packet_id,
            b.packet_id
        );
    }
    // And the ids alone would have given another order.
    assert!(handed_over.windows(2).any(|p| p[0].packet_id > p[1].packet_id));
}
