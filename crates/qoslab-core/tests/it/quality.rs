//! What the applications experienced, in whole runs: ΔQ loads and contracts, voice ratings,
//! per-interval series, and the ad-hoc report's mix under strict priority and FIFO.

use crate::common::{flow, run_yaml, two_hosts};
use qoslab_core::results::ContractRecord;
use qoslab_core::voice::Codec;
use qoslab_core::voice::{call_inputs, codec_impairment, rating};
use qoslab_core::Results;

fn contract<'a>(results: &'a Results, point: &str, app: &str, interval_ms: f64) -> &'a ContractRecord {
    results
        .contracts
        .iter()
        .find(|c| c.point == point && c.app == app && c.interval_ms == interval_ms)
        .unwrap_or_else(|| panic!("no contract row {point} {app} {interval_ms}"))
}

/// Voice and a flood through a 1 Mbit/s FIFO of 20 packets; both stop 2 s before the end
/// so that nothing is still travelling.
fn voice_and_flood(measure: &str) -> Results {
    let flows = "  - {name: voice, from: tx, to: rx, stop: 8s, pattern: {kind: codec, codec: g711}}
  - {name: flood, from: tx, to: rx, stop: 8s, pattern: {kind: cbr, rate: 1.2Mbps, size: 1500B}}
measure:
";
    let text = two_hosts("duration: 10s, seed: 1", "rate: 1Mbps, l2: hdlc", "{kind: fifo, limit: 20}", flows);
    run_yaml(&format!("{text}{measure}"), &[])
}

const BUDGETS: &str = "  at: [tx->rx, end_to_end]
  intervals: [250ms, 25ms]
  interval_table: true
  budgets:
    - {app: voice, per_hop: {delay: 50ms, loss: 1%}, end_to_end: {delay: 150ms, loss: 5%}}
    - {app: flood, end_to_end: {delay: 1s, loss: 10%}}
";

/// Offered = transported + discarded for every application and point once nothing is in
/// flight; in contract never exceeds transported; the totals add the applications up; and
/// the hop and end-to-end points see the same packets lost (there is one hop).
#[test]
fn loads_add_up() {
    let results = voice_and_flood(BUDGETS);
    assert_eq!(results.contracts.len(), 2 * 2 * (2 + 2), "2 points × 2 lengths × (2 apps + 2 totals)");
    for c in &results.contracts {
        let at = format!("{} {} {}", c.point, c.app, c.interval_ms);
        assert_eq!(c.in_flight_packets, 0, "{at}");
        assert_eq!(c.offered_packets, c.transported_packets + c.discarded_packets, "{at}");
        assert!((c.offered_bps - c.transported_bps - c.discarded_bps).abs() < 1e-6, "{at}");
        assert!(c.in_contract_packets <= c.transported_packets, "{at}");
        assert!(c.in_contract_bps <= c.transported_bps + 1e-9, "{at}");
        assert!((c.out_of_contract_bps - (c.transported_bps - c.in_contract_bps)).abs() < 1e-6, "{at}");
    }
    for point in ["tx->rx", "end_to_end"] {
        let voice = contract(&results, point, "voice", 250.0);
        let flood = contract(&results, point, "flood", 250.0);
        let all = contract(&results, point, "all", 250.0);
        assert_eq!(all.offered_packets, voice.offered_packets + flood.offered_packets);
        assert_eq!(all.in_contract_packets, voice.in_contract_packets + flood.in_contract_packets);
        assert_eq!(contract(&results, point, "quality", 250.0).discarded_packets, all.discarded_packets);
    }
    let hop = contract(&results, "tx->rx", "voice", 250.0);
    let e2e = contract(&results, "end_to_end", "voice", 250.0);
    assert_eq!(hop.discarded_packets, e2e.discarded_packets);
    assert_eq!(e2e.offered_packets, flow(&results, "voice").sent_packets);
    assert_eq!(e2e.discarded_packets, flow(&results, "voice").dropped_packets);
    assert!(hop.discarded_packets > 0, "the flood overloads the link");
    // The per-hop budget is the one the hop is held to.
    assert_eq!((hop.delay_budget_ms, hop.loss_budget_pct), (Some(50.0), Some(1.0)));
    assert_eq!((e2e.delay_budget_ms, e2e.loss_budget_pct), (Some(150.0), Some(5.0)));
    // End to end the two consumptions are one; at the hop, the looser end-to-end limits
    // are consumed less.
    assert_eq!(e2e.end_to_end_consumption_mean, e2e.consumption_mean);
    assert!(hop.end_to_end_consumption_mean.unwrap() < hop.consumption_mean.unwrap());
    // The flood's per-hop budget is its end-to-end one (one hop).
    assert_eq!(contract(&results, "tx->rx", "flood", 25.0).delay_budget_ms, Some(1000.0));
}

/// The interval table holds what the summary rows average: their count, mean consumption
/// and in-contract share.
#[test]
fn the_interval_table_is_what_the_summary_averages() {
    let results = voice_and_flood(BUDGETS);
    for c in results.contracts.iter().filter(|c| c.intervals.is_some()) {
        let rows: Vec<_> = results
            .dq_intervals
            .iter()
            .filter(|i| i.point == c.point && i.app == c.app && i.interval_ms == c.interval_ms)
            .collect();
        assert_eq!(rows.len() as u64, c.intervals.unwrap());
        let mean = rows.iter().map(|i| i.consumption).sum::<f64>() / rows.len() as f64;
        assert!((mean - c.consumption_mean.unwrap()).abs() < 1e-9);
        let inside = rows.iter().filter(|i| i.in_contract).count() as f64;
        assert!((100.0 * inside / rows.len() as f64 - c.in_contract_pct.unwrap()).abs() < 1e-9);
        assert_eq!(rows.iter().map(|i| i.packets).sum::<u64>(), c.offered_packets);
        // Intervals are in time order, one interval apart at least.
        assert!(rows.windows(2).all(|w| w[1].start_s > w[0].start_s));
    }
}

/// Voice alone on an idle link: nothing lost or late; the mouth-to-ear delay is the network
/// delay + the 60 ms buffer + 20 ms packetization, and R is the E-model's for that delay.
#[test]
fn idle_voice_is_rated_from_its_delay() {
    let flows = "  - {name: voice, from: tx, to: rx, pattern: {kind: codec, codec: g711}}\n";
    let results = run_yaml(&two_hosts("duration: 10s", "rate: 1Mbps, l2: hdlc", "{kind: fifo}", flows), &[]);
    assert_eq!(results.voice.len(), 1);
    let v = &results.voice[0];
    let network_ms = flow(&results, "voice").delay_mean_ms.unwrap();
    assert_eq!((v.codec, v.lost_packets, v.late_packets, v.spurts), ("g711", 0, 0, 1));
    assert_eq!(v.played_packets, v.sent_packets);
    let m2e = v.mouth_to_ear_ms.unwrap();
    assert!((m2e - (network_ms + 60.0 + 20.0)).abs() < 1e-9, "{m2e} vs {network_ms}");
    let expected = rating(&call_inputs(m2e, 0.0, 1.0, codec_impairment(Codec::G711).unwrap()));
    assert_eq!(v.r, Some(expected));
    assert!(v.mos.unwrap() > 4.3, "{:?}", v.mos);
    assert_eq!(v.ipdv_p99_ms, Some(0.0), "constant delay");
}

/// Voice behind a flood: the voice rows count exactly what the flow row counts, late
/// packets only with a buffer too small for the queue's variation, and a worse rating than
/// with a deep buffer.
#[test]
fn congested_voice_loses_late_packets_to_a_short_buffer() {
    let rated = |buffer: &str| {
        voice_and_flood(&format!("  voice: {{playout: {{kind: fixed, buffer: {buffer}}}}}\n")).voice[0]
            .clone()
    };
    let short = rated("5ms");
    let deep = rated("400ms");
    let results = voice_and_flood("  series: 1s\n");
    let row = flow(&results, "voice");
    for v in [&short, &deep] {
        assert_eq!(v.sent_packets, row.sent_packets);
        assert_eq!(v.lost_packets, row.dropped_packets);
        assert_eq!(v.played_packets + v.late_packets, row.received_packets);
    }
    assert!(short.late_packets > 0 && deep.late_packets == 0, "{} {}", short.late_packets, deep.late_packets);
    assert!(short.effective_loss_pct > deep.effective_loss_pct);
    assert!(short.mouth_to_ear_ms < deep.mouth_to_ear_ms);
}

/// A 50 packet/s, 200-byte flow on an idle link: every whole second delivers 50 packets,
/// 80 kbit/s, nothing lost, at a constant delay.
#[test]
fn series_of_a_constant_rate_flow() {
    let flows = "  - {name: cbr, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 50, size: 200B}}
measure: {series: 1s}
";
    let results =
        run_yaml(&two_hosts("duration: 10s, warmup: 1s", "rate: 1Mbps", "{kind: fifo}", flows), &[]);
    let rows: Vec<_> = results.series.iter().filter(|s| s.flow == "cbr").collect();
    assert!(rows.len() >= 10, "{}", rows.len());
    for row in &rows[1..rows.len() - 1] {
        assert_eq!(row.delivered_packets, 50, "{row:?}");
        assert_eq!(row.delivered_bps, 80_000.0);
        assert_eq!(row.loss_pct, 0.0);
        assert_eq!(row.delay_mean_ms, row.delay_max_ms);
    }
}

/// The ad-hoc report's mix at 1 Mbit/s: strict priority keeps the alarm, VoIP and the
/// photos in contract at the unit under test most of the time; FIFO puts every application
/// with a budget tighter than a second (all but OSPF and video) out of contract nearly all
/// the time, and transports less quality traffic in contract.
#[test]
fn adhoc_mix_strict_priority_against_fifo() {
    let example = include_str!("../../../../examples/adhoc-annex-mix.yaml");
    let strict = run_yaml(example, &["interfaces.edge.core.output=strict"]);
    let fifo = run_yaml(example, &[]);
    let in_contract = |r: &Results, app: &str| contract(r, "edge->core", app, 25.0).in_contract_pct.unwrap();
    for app in ["alarm", "voip", "photos"] {
        assert!(in_contract(&strict, app) > 80.0, "strict {app}: {}", in_contract(&strict, app));
    }
    for app in ["alarm", "voip", "photos", "rpc-normal", "rpc-priority"] {
        assert!(in_contract(&fifo, app) < 5.0, "fifo {app}: {}", in_contract(&fifo, app));
        assert!(in_contract(&fifo, app) < in_contract(&strict, app), "{app}");
    }
    let quality = |r: &Results| contract(r, "edge->core", "quality", 250.0).in_contract_bps;
    assert!(quality(&fifo) < 0.8 * quality(&strict), "{} vs {}", quality(&fifo), quality(&strict));
    // The three load figures are there for every application.
    for app in ["alarm", "ospf", "voip", "video", "photos", "rpc-normal", "rpc-priority", "best-effort"] {
        let c = contract(&strict, "edge->core", app, 250.0);
        assert!(c.offered_bps > 0.0 && c.transported_bps > 0.0, "{app}");
    }
    assert_eq!(strict.run.order_of_failure.first().map(String::as_str), Some("best-effort"));
    assert_eq!(strict.voice.len(), 8, "eight VoIP users rated");
    // Behind a deeper FIFO (200 packets) even OSPF and video exceed their one-second
    // budgets: every application is out of contract on average, as the report found.
    let deep = run_yaml(example, &["policies.fifo.limit=200"]);
    for app in ["alarm", "ospf", "voip", "video", "photos", "rpc-normal", "rpc-priority"] {
        let consumed = contract(&deep, "edge->core", app, 250.0).consumption_mean.unwrap();
        assert!(consumed > 1.0, "deep fifo {app}: {consumed}");
    }
}

/// A budget may name one row of an application: the row then belongs to that budget, the
/// rest of the entry to its own.
#[test]
fn a_row_named_alone_leaves_its_entry() {
    let flows = "  - {name: ftp, from: tx, to: rx, app: {kind: bulk}}
measure:
  budgets:
    - {app: ftp, end_to_end: {delay: 1s, loss: 5%}}
    - {app: acks, flows: [ftp.reverse], end_to_end: {delay: 100ms, loss: 1%}}
";
    let results = run_yaml(&two_hosts("duration: 5s", "rate: 1Mbps", "{kind: fifo}", flows), &[]);
    let data = contract(&results, "end_to_end", "ftp", 250.0);
    let acks = contract(&results, "end_to_end", "acks", 250.0);
    assert_eq!(data.offered_packets, flow(&results, "ftp").sent_packets);
    assert_eq!(acks.offered_packets, flow(&results, "ftp.reverse").sent_packets);
    assert!(acks.offered_packets > 0);
    assert!(!results.contracts.iter().any(|c| c.app == "other"));
}

/// On an idle link every 200-byte packet takes its 207-byte HDLC frame's serialization at
/// 1 Mbit/s (1.656 ms) plus 5 ms of propagation: every interval consumes 6.656 / 10 of a
/// 10 ms delay budget, and is in contract.
#[test]
fn idle_link_consumes_its_delay_exactly() {
    let flows = "  - {name: cbr, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 100, size: 200B}}
measure:
  at: [tx->rx, end_to_end]
  budgets: [{app: cbr, end_to_end: {delay: 10ms, loss: 1%}}]
";
    let results = run_yaml(
        &two_hosts("duration: 10s", "rate: 1Mbps, delay: 5ms, l2: hdlc", "{kind: fifo}", flows),
        &[],
    );
    for point in ["tx->rx", "end_to_end"] {
        let c = contract(&results, point, "cbr", 250.0);
        assert_eq!(c.intervals, Some(40), "{point}");
        assert!((c.consumption_mean.unwrap() - 0.6656).abs() < 1e-9, "{point}: {:?}", c.consumption_mean);
        assert_eq!(c.loss_consumption_mean, Some(0.0));
        assert_eq!(c.in_contract_pct, Some(100.0));
        assert_eq!(c.transported_bps, 160_000.0, "100 packets/s of 200 B");
        assert!((c.transported_link_pct - 16.56).abs() < 1e-9, "framed: 207 B × 100/s of 1 Mbit/s");
    }
}

/// A codec without known impairment factors is rated once they are given; without them it
/// gets a note instead of a row.
#[test]
fn impairment_factors_can_be_given() {
    let flows = "  - {name: lmr, from: tx, to: rx, pattern: {kind: codec, codec: gsm-fr}}\n";
    let text = two_hosts("duration: 5s", "rate: 1Mbps", "{kind: fifo}", flows);
    let unrated = run_yaml(&text, &[]);
    assert!(unrated.voice.is_empty());
    assert!(
        unrated.run.notes.iter().any(|n| n.contains("voice flow `lmr` is not rated")),
        "{:?}",
        unrated.run.notes
    );
    let rated = run_yaml(
        &format!("{text}measure:\n  voice: {{flows: [{{flow: lmr, codec: gsm-fr, ie: 20, bpl: 10}}]}}\n"),
        &[],
    );
    let v = &rated.voice[0];
    assert_eq!((v.codec, v.ie, v.bpl), ("gsm-fr", 20.0, 10.0));
    assert!(v.r.unwrap() < 93.2 - 20.0 + 1e-9, "Ie 20 comes off the rating: {:?}", v.r);
}

/// The burst ratio the voice analysis estimates matches the loss process: 1 for independent
/// loss; for a Gilbert chain that loses every frame in Bad (Good → Bad 1 %, Bad → Good
/// 25 %), bursts average 1/r = 4 frames against 1/(1 − P) at P = p/(p + r) for random loss,
/// so BurstR = 1/(p + r) = 3.85. About 1 500 bursts in 3 000 s of a G.711 call put the
/// estimate's standard error near 2 %; the tolerance is 10 %.
#[test]
fn burst_ratio_follows_the_loss_process() {
    let burst_ratio = |loss: &str| {
        let flows = "  - {name: call, from: tx, to: rx, pattern: {kind: codec, codec: g711}}\n";
        let link = format!("rate: 10Mbps, loss: {loss}");
        let results = run_yaml(&two_hosts("duration: 3000s, seed: 3", &link, "{kind: fifo}", flows), &[]);
        let v = results.voice[0].clone();
        assert_eq!(v.late_packets, 0);
        v
    };
    let independent = burst_ratio("4%");
    assert!((independent.burst_ratio - 1.0).abs() < 0.05, "{}", independent.burst_ratio);
    let bursty = burst_ratio("{gilbert_elliott: {p: 1%, r: 25%}}");
    assert!((bursty.burst_ratio - 1.0 / 0.26).abs() < 0.1 / 0.26, "{}", bursty.burst_ratio);
    assert!((bursty.network_loss_pct.unwrap() - 100.0 / 26.0).abs() < 0.4, "{:?}", bursty.network_loss_pct);
    // The rating uses it: the same loss scattered at random would rate higher (G.107's
    // Ie,eff grows with BurstR).
    let g711 = codec_impairment(Codec::G711).unwrap();
    let (m2e, ppl) = (bursty.mouth_to_ear_ms.unwrap(), bursty.effective_loss_pct.unwrap());
    assert_eq!(bursty.r, Some(rating(&call_inputs(m2e, ppl, bursty.burst_ratio, g711))));
    // By hand: Ie,eff = 95 × 3.85 / (3.85 / BurstR + 25.1): 12.6 at random, 14.0 in bursts.
    assert!(rating(&call_inputs(m2e, ppl, 1.0, g711)) > bursty.r.unwrap() + 1.0);
}

/// Talk spurts behind a flood: the adaptive buffer re-sets its offset at each spurt from
/// the delay and variation it has learnt, so it loses fewer packets than a 5 ms fixed
/// buffer and waits less than a 400 ms one. (A call without silences keeps its first
/// offset: the buffer adapts between spurts only.)
#[test]
fn the_adaptive_buffer_learns_between_spurts() {
    let rated = |playout: &str| {
        let flows = "  - name: voice
    from: tx
    to: rx
    pattern:
      kind: onoff
      on: {uniform: [1s, 3s]}
      off: {uniform: [1500ms, 2s]}
      during_on: {kind: codec, codec: g711}
  - {name: flood, from: tx, to: rx, pattern: {kind: poisson, rate: 1.1Mbps, size: 1500B}}
";
        let text =
            two_hosts("duration: 120s, seed: 2", "rate: 1Mbps, l2: hdlc", "{kind: fifo, limit: 20}", flows);
        let measure = format!("measure:\n  voice: {{playout: {playout}}}\n");
        run_yaml(&format!("{text}{measure}"), &[]).voice[0].clone()
    };
    let adaptive = rated("{kind: adaptive}");
    let short = rated("{kind: fixed, buffer: 5ms}");
    let deep = rated("{kind: fixed, buffer: 400ms}");
    assert!(adaptive.spurts > 20, "{}", adaptive.spurts);
    assert!(
        adaptive.late_packets < short.late_packets,
        "{} vs {}",
        adaptive.late_packets,
        short.late_packets
    );
    assert!(adaptive.mouth_to_ear_ms < deep.mouth_to_ear_ms);
    assert_eq!(deep.late_packets, 0);
}

/// The ΔQ accounts agree with the flows' counters (checked after every run) through
/// fragmentation and interleaving, tunnels, rate changes with policies withdrawn and
/// reinstated, multi-domain paths, shaping and policing: each example is run again with
/// its busiest port and the whole path observed.
#[test]
fn observers_agree_through_every_mechanism() {
    let examples = [
        include_str!("../../../../examples/lfi-serial.yaml"),
        include_str!("../../../../examples/lmr-vpn.yaml"),
        include_str!("../../../../examples/adhoc-step-down.yaml"),
        include_str!("../../../../examples/janet-path.yaml"),
        include_str!("../../../../examples/hierarchical-shaping.yaml"),
        include_str!("../../../../examples/policing-at-the-edge.yaml"),
    ];
    for example in examples {
        let plain = run_yaml(example, &[]);
        let busiest = plain
            .ports
            .iter()
            .max_by(|a, b| a.utilisation_pct.total_cmp(&b.utilisation_pct))
            .expect("ports")
            .port
            .clone();
        // Overrides rather than an appended section: an example may have its own `measure`.
        let at = format!("measure.at=[end_to_end, {busiest}]");
        let observed = run_yaml(example, &[&at, "measure.intervals=[100ms, 1s]"]);
        let hop = contract(&observed, &busiest, "all", 100.0);
        assert!(hop.offered_packets > 0 && hop.transported_packets > 0, "{}: {busiest}", plain.run.scenario);
        // Observing changes nothing the flows saw.
        for (a, b) in plain.flows.iter().zip(&observed.flows) {
            assert_eq!((a.received_packets, a.dropped_packets), (b.received_packets, b.dropped_packets));
        }
    }
}

/// Random `measure` sections, valid and not (a deterministic generator; one in three may
/// hold invalid values, any may list a point or interval twice): each is refused with an error placed in the file, or runs to the
/// end with its loads adding up — never a panic, and never an allocation that follows the
/// interval length (nanosecond intervals included).
#[test]
fn random_measure_sections_are_refused_or_run() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    // Each list: the valid values, then the invalid ones.
    let lists: [(&[&str], &[&str]); 9] = [
        (&["1ns", "1ms", "25ms", "250ms", "1s"], &["0s", "abc"]),
        (&["0.01%", "1%", "5%", "100%"], &["0%", "150%"]),
        (&["end_to_end", "tx->rx", "rx->tx"], &["tx->nowhere"]),
        (&["voice", "voice.1", "ftp", "probe"], &["nobody", "all"]),
        (&["flood", "ftp.reverse", "probe.echo"], &["voice.2", "nobdy"]),
        (&["1", "3"], &["0"]),
        (&["voice", "flood", "probe"], &["ftp"]),
        (&["g711", "g729"], &["gsm-fr"]),
        (&["1ms", "1s"], &["0s"]),
    ];
    let (mut ran, mut refused) = (0, 0);
    for round in 0..150 {
        let any = round % 3 == 0;
        let mut pick = |list: usize| {
            let (valid, invalid) = lists[list];
            let n = valid.len() + if any { invalid.len() } else { 0 };
            let k = next(n);
            if k < valid.len() {
                valid[k]
            } else {
                invalid[k - valid.len()]
            }
        };
        let mut limits = || format!("{{delay: {}, loss: {}, jitter: {}}}", pick(0), pick(1), pick(0));
        let (e2e, hop, other) = (limits(), limits(), limits());
        let measure = format!(
            "measure:
  at: [{}, {}]
  intervals: [{}, {}]
  interval_table: true
  budgets:
    - {{app: {}, end_to_end: {e2e}, per_hop: {hop}, hops: {}}}
    - {{app: b, flows: [{}], end_to_end: {other}}}
  order_of_failure: [b]
  voice: {{playout: {{kind: fixed, buffer: {}}}, flows: [{{flow: {}, codec: {}}}]}}
  series: {}
",
            pick(2),
            pick(2),
            pick(0),
            pick(0),
            pick(3),
            pick(5),
            pick(4),
            pick(0),
            pick(6),
            pick(7),
            pick(8),
        );
        let flows = "  - {name: voice, copies: 2, from: tx, to: rx, pattern: {kind: codec, codec: g729}}
  - {name: flood, from: tx, to: rx, pattern: {kind: cbr, rate: 1.2Mbps, size: 1500B}}
  - {name: probe, from: tx, to: rx, echo: true, pattern: {kind: cbr, rate_pps: 5, size: 100B}}
  - {name: ftp, from: tx, to: rx, app: {kind: bulk, users: 2}}
";
        let text =
            two_hosts("duration: 2s, seed: 1", "rate: 1Mbps, loss: 1%", "{kind: fifo, limit: 20}", flows);
        match qoslab_core::load(&format!("{text}{measure}"), "f.yaml", &[], None) {
            Err(error) => {
                refused += 1;
                assert!(error.to_string().starts_with("f.yaml:"), "{error}");
            }
            Ok(sim) => {
                ran += 1;
                let results = sim.finish().unwrap_or_else(|e| panic!("{e}\n{measure}"));
                for c in &results.contracts {
                    let outcomes = c.transported_packets + c.discarded_packets + c.in_flight_packets;
                    assert_eq!(c.offered_packets, outcomes, "{measure}");
                }
            }
        }
    }
    assert!(ran >= 50 && refused >= 20, "ran {ran}, refused {refused}");
}
