//! DRR, HTB and FQ-CoDel against their configured shares, rates, ceilings and CoDel's
//! target delay.

use crate::common::{flow, run_yaml};

/// Two hosts over a link of `rate` (no framing) with `policy` on the sender, for `duration`
/// after a 2 s warm-up.
fn link(rate: &str, duration: &str, policy: &str, flows: &str) -> qoslab_core::Results {
    let yaml = format!(
        "name: linux-qdiscs
run: {{duration: {duration}, warmup: 2s, seed: 5}}
topology:
  nodes: {{tx: {{kind: host}}, rx: {{kind: host}}}}
  links: [{{between: [tx, rx], rate: {rate}, l2: none}}]
interfaces:
  tx: {{rx: {{output: {policy}}}}}
traffic:
{flows}"
    );
    run_yaml(&yaml, &[])
}

/// Floods of 1000-byte packets at `rate` each, one per (name, DSCP).
fn floods(which: &[(&str, &str)], rate: &str) -> String {
    which
        .iter()
        .map(|(name, dscp)| {
            format!("  - {{name: {name}, from: tx, to: rx, dscp: {dscp}, pattern: {{kind: flood, rate: {rate}, size: 1000B}}}}\n")
        })
        .collect()
}

fn kbps(results: &qoslab_core::Results, name: &str) -> f64 {
    flow(results, name).delivered_l3_bps / 1e3
}

fn assert_near(what: &str, got: f64, expected: f64, tolerance: f64) {
    assert!((got - expected).abs() <= tolerance * expected, "{what}: {got} against {expected}");
}

/// DRR: three saturated classes with quanta 3000, 2000 and 1000 B (and 1000-byte packets)
/// share the 1 Mbit/s link 3 : 2 : 1. Tolerance 2 % of each share.
#[test]
fn drr_shares_follow_the_quanta() {
    let policy = "{kind: drr, classes: [
        {name: a, match: {dscp: AF41}, quantum: 3000B},
        {name: b, match: {dscp: AF21}, quantum: 2000B},
        {name: c, quantum: 1000B}]}";
    let results =
        link("1Mbps", "30s", policy, &floods(&[("a", "AF41"), ("b", "AF21"), ("c", "AF11")], "100%"));
    for (name, share) in [("a", 0.5), ("b", 1.0 / 3.0), ("c", 1.0 / 6.0)] {
        assert_near(name, kbps(&results, name), 1000.0 * share, 0.02);
    }
}

/// HTB: under a 1 Mbit/s parent, `a` (600 kbit/s) and `b` (200 kbit/s), both with ceil
/// 1 Mbit/s and equal prio, each get their rate and split the 200 kbit/s left by their
/// default quanta (7500 and 2500 B, 3 : 1): 750 and 250 kbit/s. With `b` at prio 0 it takes
/// all the excess: 600 and 400 kbit/s. Tolerance 2 %.
#[test]
fn htb_rates_then_excess_by_quantum_and_prio() {
    let policy = |prio_b: u8| {
        format!(
            "{{kind: htb, default: b, classes: [
            {{name: root, rate: 1Mbps}},
            {{name: a, parent: root, rate: 60%, ceil: 1Mbps, prio: 1, match: {{dscp: AF41}}}},
            {{name: b, parent: root, rate: 200kbps, ceil: 1Mbps, prio: {prio_b}}}]}}"
        )
    };
    let both = floods(&[("a", "AF41"), ("b", "AF21")], "100%");
    let results = link("1Mbps", "30s", &policy(1), &both);
    assert_near("a", kbps(&results, "a"), 750.0, 0.02);
    assert_near("b", kbps(&results, "b"), 250.0, 0.02);
    let results = link("1Mbps", "30s", &policy(0), &both);
    assert_near("a", kbps(&results, "a"), 600.0, 0.02);
    assert_near("b", kbps(&results, "b"), 400.0, 0.02);
}

/// HTB: a class alone never exceeds its ceil (±1 %), even on an idle 1 Mbit/s link — the
/// link idles while packets wait, which the run's work-conservation check accepts only
/// because the discipline answers NotBefore. A sibling idle, a class borrows up to its
/// ceil; a parent's ceil bounds its children's sum.
#[test]
fn htb_ceilings_hold_and_idle_siblings_lend() {
    let policy = "{kind: htb, classes: [
        {name: root, rate: 800kbps},
        {name: web, parent: root, rate: 200kbps, ceil: 500kbps, match: {dscp: AF41}},
        {name: bulk, parent: root, rate: 200kbps, ceil: 1Mbps}]}";
    let results = link("1Mbps", "20s", policy, &floods(&[("web", "AF41")], "100%"));
    assert_near("web alone", kbps(&results, "web"), 500.0, 0.01);
    let results = link("1Mbps", "20s", policy, &floods(&[("bulk", "AF11")], "100%"));
    // bulk's own ceil is 1 Mbit/s, but it borrows from root, whose ceil is its 800 kbit/s.
    assert_near("bulk alone", kbps(&results, "bulk"), 800.0, 0.01);
    let results = link("1Mbps", "20s", policy, &floods(&[("web", "AF41"), ("bulk", "AF11")], "100%"));
    // Both busy: rates 200 + 200, the 400 kbit/s excess split by equal quanta (the 1000 B
    // minimum) up to web's ceil: 400 each.
    assert_near("web", kbps(&results, "web"), 400.0, 0.02);
    assert_near("bulk", kbps(&results, "bulk"), 400.0, 0.02);
}

/// HTB: three levels. Inner `tenant` (400 kbit/s, ceil 1 Mbit/s) holds `t1` and `t2`
/// (200 kbit/s each); `other` (600 kbit/s) sits beside it. With `other` idle the tenant's
/// leaves borrow through the tenant from the root and fill the link, 500 each (2 %).
#[test]
fn htb_borrows_through_two_levels() {
    let policy = "{kind: htb, default: t2, classes: [
        {name: root, rate: 1Mbps},
        {name: tenant, parent: root, rate: 400kbps, ceil: 1Mbps},
        {name: other, parent: root, rate: 600kbps, match: {dscp: EF}},
        {name: t1, parent: tenant, rate: 200kbps, ceil: 1Mbps, match: {dscp: AF41}},
        {name: t2, parent: tenant, rate: 200kbps, ceil: 1Mbps}]}";
    let results = link("1Mbps", "20s", policy, &floods(&[("t1", "AF41"), ("t2", "AF11")], "100%"));
    assert_near("t1", kbps(&results, "t1"), 500.0, 0.02);
    assert_near("t2", kbps(&results, "t2"), 500.0, 0.02);
    let results =
        link("1Mbps", "20s", policy, &floods(&[("t1", "AF41"), ("t2", "AF11"), ("other", "EF")], "100%"));
    assert_near("t1 with other busy", kbps(&results, "t1"), 200.0, 0.02);
    assert_near("other", kbps(&results, "other"), 600.0, 0.02);
}

/// FQ-CoDel on a 10 Mbit/s link: a UDP flood at 105 % in 1500-byte packets (1.2 ms each) and
/// a sparse 50-packet/s flow of 200-byte packets. The flood's mean delay stays below 15 ms +
/// its serialization, where the queue of a 10 000-packet FIFO grows for the whole run
/// (a mean above 200 ms after 10 s, about 390 ms with this seed). The sparse flow never
/// waits behind the flood's queue: its mean delay stays below its own serialization
/// (0.16 ms) plus the two flood packets the default transmit ring may hold (2.4 ms), and it
/// loses nothing.
#[test]
fn fq_codel_keeps_delay_near_target() {
    let flows =
        "  - {name: flood, from: tx, to: rx, src_port: 1000, pattern: {kind: flood, rate: 105%, size: 1500B}}
  - {name: sparse, from: tx, to: rx, src_port: 2000, pattern: {kind: cbr, rate_pps: 50, size: 200B}}
";
    let results = link("10Mbps", "10s", "{kind: fq_codel, ecn: false}", flows);
    let flood = flow(&results, "flood");
    let sparse = flow(&results, "sparse");
    assert!(flood.delay_mean_ms.unwrap() < 15.0 + 1.2, "flood {:?}", flood.delay_mean_ms);
    assert!(sparse.delay_mean_ms.unwrap() < 0.16 + 2.4, "sparse {:?}", sparse.delay_mean_ms);
    assert_eq!(sparse.dropped_packets, 0);
    let fifo = link("10Mbps", "10s", "{kind: fifo, limit: 10000}", flows);
    assert!(flow(&fifo, "flood").delay_mean_ms.unwrap() > 200.0, "{:?}", flow(&fifo, "flood").delay_mean_ms);
}
