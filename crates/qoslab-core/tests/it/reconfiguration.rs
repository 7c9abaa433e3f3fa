//! Interfaces whose discipline is replaced during the run: policies re-sized by a rate
//! change, withdrawn when they no longer fit, and scheduled configuration changes.

use crate::common::{flow, run_yaml};
use qoslab_core::results::ChangeRecord;
use qoslab_core::Results;

/// Two hosts on a 2 Mbit/s link (no framing) that drops to 1 Mbit/s at 10 s, with `output`
/// and `changes` on `a`'s interface, EF voice (CBR `voice_rate` of 100-byte packets) and a
/// 3 Mbit/s best-effort flood of 1500-byte packets.
fn step_down(output: &str, changes: &str, voice_rate: &str, warmup: &str, duration: &str) -> Results {
    run_yaml(
        &format!(
            "name: step-down
run: {{duration: {duration}, warmup: {warmup}, seed: 1}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 2Mbps, l2: none, rate_changes: [{{at: 10s, rate: 1Mbps}}]}}]
policies:
  llq-2m:
    kind: cbwfq
    classes:
      - {{name: voice, match: {{dscp: EF}}, priority: 600kbps}}
      - {{name: data, match: {{dscp: AF11}}, bandwidth: 800kbps}}
  llq-1m:
    kind: cbwfq
    classes:
      - {{name: voice, match: {{dscp: EF}}, priority: 300kbps}}
      - {{name: data, match: {{dscp: AF11}}, bandwidth: 400kbps}}
  llq-25:
    kind: cbwfq
    classes:
      - {{name: voice, match: {{dscp: EF}}, priority: 25%}}
interfaces:
  a: {{b: {{output: {output}, changes: {changes}}}}}
traffic:
  - {{name: voice, from: a, to: b, dscp: EF, pattern: {{kind: cbr, rate: {voice_rate}, size: 100B}}}}
  - {{name: flood, from: a, to: b, pattern: {{kind: flood, rate: 3Mbps, size: 1500B}}}}
"
        ),
        &[],
    )
}

fn changes(results: &Results) -> Vec<&ChangeRecord> {
    results.changes.iter().filter(|c| c.port == "a->b").collect()
}

/// `priority: 25%` is 500 kbit/s of 2 Mbit/s and 250 kbit/s of 1 Mbit/s: an 800 kbit/s
/// priority flood is policed to each in turn (the interface has no explicit bandwidth, so
/// its QoS bandwidth follows the link rate).
#[test]
fn percent_policies_follow_the_new_rate() {
    let before = step_down("llq-25", "[]", "800kbps", "2s", "8s");
    let after = step_down("llq-25", "[]", "800kbps", "12s", "8s");
    let voice_before = flow(&before, "voice").delivered_l3_bps;
    let voice_after = flow(&after, "voice").delivered_l3_bps;
    assert!((voice_before / 500e3 - 1.0).abs() < 0.02, "{voice_before}");
    assert!((voice_after / 250e3 - 1.0).abs() < 0.02, "{voice_after}");
    let log = changes(&after);
    assert_eq!(log.len(), 1);
    assert_eq!((log[0].at_s, log[0].qdisc), (10.0, "cbwfq"));
    assert!(log[0].cause.contains("re-sized"), "{}", log[0].cause);
}

/// `llq-2m` reserves 1400 kbit/s: allowed on 2 Mbit/s (75 % = 1500), not on 1 Mbit/s (750).
/// At the rate change the policy is withdrawn and the interface queues FIFO, where the voice
/// meets the flood's tail drops; the classes table keeps the LLQ's counters with the time
/// each discipline was installed.
#[test]
fn absolute_reservations_above_the_new_rate_withdraw_the_policy() {
    let before = step_down("llq-2m", "[]", "100kbps", "2s", "8s");
    assert_eq!(flow(&before, "voice").loss_pct, Some(0.0));
    let after = step_down("llq-2m", "[]", "100kbps", "12s", "8s");
    let log = changes(&after);
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].qdisc, "fifo");
    assert!(log[0].cause.contains("withdrawn") && log[0].cause.contains("1 Mbit/s"), "{}", log[0].cause);
    let voice_loss = flow(&after, "voice").loss_pct.unwrap();
    assert!(voice_loss > 20.0, "voice in a FIFO with a 3 Mbit/s flood on 1 Mbit/s: {voice_loss} %");
    let port = after.ports.iter().find(|p| p.port == "a->b").unwrap();
    assert_eq!(port.qdisc, "fifo");
    let since: Vec<(&str, &str, f64)> = after
        .classes
        .iter()
        .filter(|c| c.port == "a->b")
        .map(|c| (c.qdisc, c.class.as_str(), c.since_s))
        .collect();
    assert_eq!(
        since,
        [
            ("cbwfq", "voice", 0.0),
            ("cbwfq", "data", 0.0),
            ("cbwfq", "class-default", 0.0),
            ("fifo", "fifo", 10.0)
        ]
    );
}

/// The ad-hoc report's procedure: the link slows at 10 s, the configuration for the lower
/// speed is applied 30 s later. Between the two the policy is withdrawn (FIFO, voice loses);
/// after the scheduled change the voice is protected again.
#[test]
fn a_delayed_reconfiguration_restores_the_priority() {
    let change = "[{at: 40s, output: llq-1m}]";
    let between = step_down("llq-2m", change, "100kbps", "12s", "28s");
    assert!(flow(&between, "voice").loss_pct.unwrap() > 20.0);
    let after = step_down("llq-2m", change, "100kbps", "42s", "10s");
    assert_eq!(flow(&after, "voice").loss_pct, Some(0.0));
    let log = changes(&after);
    assert_eq!(log.len(), 2);
    assert_eq!((log[1].at_s, log[1].qdisc), (40.0, "cbwfq"));
    assert!(log[1].cause.contains("interfaces.a.b.changes[0]"), "{}", log[1].cause);
}

/// At a change, the packets queued are offered to the new discipline: a 40-packet FIFO
/// replacing an unlimited one that holds N packets keeps 40 and refuses N − 40, and every
/// packet is accounted for (the run's conservation checks pass).
#[test]
fn queued_packets_are_handed_to_the_new_discipline() {
    let results = step_down(
        "{kind: fifo, limit: unlimited}",
        "[{at: 5s, output: {kind: fifo, limit: 40}}]",
        "100kbps",
        "0s",
        "8s",
    );
    let log = changes(&results);
    assert_eq!(log.len(), 1);
    // By 5 s, 15.5 Mbit have arrived (flood and voice, 375 packets/s) and 10 Mbit left:
    // the 5.5 Mbit still here are the last 1.77 s of arrivals, about 665 packets, of which
    // one is on the wire and one in the transmit ring.
    let handed = log[0].handed_over_packets;
    assert!((655..=668).contains(&handed), "{handed}");
    assert_eq!(log[0].refused_packets, handed - 40);
}

/// A scheduled change must change something, come in time order, name a policy that
/// exists and fit the interface at that point of the run.
#[test]
fn bad_changes_are_refused() {
    let error = |changes: &str| {
        let text = format!(
            "name: t
run: {{duration: 10s}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 1Mbps}}]
policies:
  big: {{kind: cbwfq, classes: [{{name: v, match: {{dscp: EF}}, priority: 800kbps}}]}}
interfaces:
  a: {{b: {{changes: {changes}}}}}
traffic: []
"
        );
        qoslab_core::load(&text, "t.yaml", &[], None).err().expect("refused").to_string()
    };
    assert!(error("[{at: 5s}]").contains("changes nothing"));
    assert!(error("[{at: 5s, bandwidth: 1Mbps}, {at: 2s, bandwidth: 2Mbps}]").contains("in time order"));
    let unknown = error("[{at: 5s, output: bgi}]");
    assert!(unknown.contains("interfaces.a.b.changes[0].output") && unknown.contains("big"), "{unknown}");
    let too_big = error("[{at: 5s, output: big}]");
    assert!(too_big.contains("interfaces.a.b.changes[0]") && too_big.contains("750 kbit/s"), "{too_big}");
    // With the bandwidth raised at the same change, the policy fits.
    assert!(qoslab_core::load(
        "name: t
run: {duration: 10s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 1Mbps}]
policies:
  big: {kind: cbwfq, classes: [{name: v, match: {dscp: EF}, priority: 800kbps}]}
interfaces:
  a: {b: {changes: [{at: 5s, output: big, bandwidth: 1544kbps}]}}
traffic: []
",
        "t.yaml",
        &[],
        None
    )
    .is_ok());
}

/// Every discipline gives up every packet it holds when it is replaced: each kind, holding
/// a backlog at 5 s, hands it all to an unlimited FIFO that refuses none, and the run's
/// conservation checks (created = delivered + dropped + in flight) pass.
#[test]
fn every_discipline_hands_over_its_whole_backlog() {
    let policies = [
        "{kind: fifo, limit: 200}",
        "{kind: prio, bands: [{name: high, limit: 50}, {name: low, limit: 200}], classify: [{match: {dscp: EF}, band: high}]}",
        "{kind: custom, default_queue: 1, queues: {1: {limit: 200}, 2: {limit: 50}}, classify: [{match: {dscp: EF}, queue: 2}]}",
        "{kind: wfq}",
        "{kind: cbwfq, classes: [{name: voice, match: {dscp: EF}, priority: 200kbps}]}",
        "{kind: drr, classes: [{name: voice, match: {dscp: EF}, quantum: 1500B}, {name: rest, quantum: 1500B}]}",
        "{kind: htb, default: rest, classes: [{name: root, rate: 100%}, {name: voice, parent: root, rate: 200kbps, match: {dscp: EF}}, {name: rest, parent: root, rate: 1Mbps}]}",
        "{kind: fq_codel}",
        "{kind: tbf, rate: 1Mbps, limit: 200}",
        "{kind: mdrr, queues: [{name: q0, weight: 1, limit: 200}], low_latency: {mode: strict}, default: q0, classify: [{match: {dscp: EF}, queue: low-latency}]}",
        "{kind: cbq, classes: [{name: voice, match: {dscp: EF}, bandwidth: 10%, buffer: 100ms}, {name: rest, bandwidth: 80%, buffer: 500ms}]}",
    ];
    for policy in policies {
        let results =
            step_down(policy, "[{at: 5s, output: {kind: fifo, limit: unlimited}}]", "100kbps", "0s", "8s");
        let log = changes(&results);
        assert_eq!(log.len(), 1, "{policy}");
        assert!(log[0].handed_over_packets > 0, "{policy} held nothing at 5 s");
        assert_eq!(log[0].refused_packets, 0, "{policy}");
    }
}
