//! The shaper holds a flood to its rate on a faster link, and the link idles meanwhile
//! without breaking work conservation (the shaper says when it will send again); a shaper
//! over an LLQ child policy (hierarchical shaping) and a shaped CBWFQ class beside an
//! unshaped one, each with the run's invariants checked at its end.

use crate::common::{flow, run_yaml, two_hosts};

fn shaped(policy: &str) -> qoslab_core::Results {
    let flood = "  - {name: flood, from: tx, to: rx, pattern: {kind: poisson, rate: 4Mbps, size: 1000B}}\n";
    run_yaml(&two_hosts("duration: 120s, warmup: 5s, seed: 2", "rate: 10Mbps, l2: none", policy, flood), &[])
}

/// Long-run output equals the shaping rate within 1 %, for each mode; `peak` sends
/// CIR × (1 + Be/Bc).
#[test]
fn long_run_rate_is_the_shaping_rate() {
    for (policy, expected_bps) in [
        ("{kind: tbf, rate: 2Mbps}", 2e6),
        ("{kind: tbf, rate: 2Mbps, mode: continuous, bc: 3000B, be: 0B}", 2e6),
        ("{kind: tbf, rate: 1Mbps, mode: peak, bc: 2000B, be: 1000B}", 1.5e6),
        ("{kind: tbf, rate: 20%}", 2e6),
    ] {
        let results = shaped(policy);
        let delivered = flow(&results, "flood").delivered_l3_bps;
        assert!((delivered - expected_bps).abs() / expected_bps < 0.01, "{policy}: {delivered}");
        let port = results.ports.iter().find(|p| p.port == "tx->rx").unwrap();
        assert!(port.utilisation_pct < 0.5 * 100.0, "{policy}: the link is mostly idle");
    }
}

/// IOS's shapers and its LLQ policer count the link's layer-2 header with each packet (the
/// Cisco 10000 guide's Table 6-2): on HDLC 4 bytes, on Ethernet 14. A 1 Mbit/s shaper passes
/// 1 Mbit/s × L / (L + h) of IP packets of L bytes — 1000-byte packets: 996.0 kbit/s on
/// HDLC, 986.2 on Ethernet, the full 1 Mbit/s where the framing is unknown; Linux's `tbf`
/// (`continuous`) charges the kernel's 14-byte header on Ethernet only. An LLQ priority
/// class policed at 64 kbit/s passes 64 × 100 / 104 = 61.5 kbit/s of 100-byte packets on HDLC.
#[test]
fn ios_counts_the_layer_two_header() {
    let flood = "  - {name: flood, from: tx, to: rx, pattern: {kind: poisson, rate: 4Mbps, size: 1000B}}\n";
    for (l2, policy, expected_bps) in [
        ("hdlc", "{kind: tbf, rate: 1Mbps}", 1e6 * 1000.0 / 1004.0),
        ("ethernet", "{kind: tbf, rate: 1Mbps}", 1e6 * 1000.0 / 1014.0),
        ("none", "{kind: tbf, rate: 1Mbps}", 1e6),
        ("hdlc", "{kind: tbf, rate: 1Mbps, mode: continuous, bc: 3000B, be: 0B}", 1e6),
        ("ethernet", "{kind: tbf, rate: 1Mbps, mode: continuous, bc: 3000B, be: 0B}", 1e6 * 1000.0 / 1014.0),
    ] {
        let link = format!("rate: 10Mbps, l2: {l2}");
        let results = run_yaml(&two_hosts("duration: 120s, warmup: 5s, seed: 2", &link, policy, flood), &[]);
        let delivered = flow(&results, "flood").delivered_l3_bps;
        assert!((delivered - expected_bps).abs() / expected_bps < 0.002, "{l2} {policy}: {delivered}");
    }
    let llq = "{kind: cbwfq, classes: [{name: voice, match: {dscp: EF}, priority: 64kbps}]}";
    let flows =
        "  - {name: voice, from: tx, to: rx, dscp: EF, pattern: {kind: cbr, rate_pps: 100, size: 100B}}
  - {name: flood, from: tx, to: rx, pattern: {kind: flood, rate: 1Mbps, size: 1000B}}
";
    let results = run_yaml(
        &two_hosts("duration: 120s, warmup: 5s, seed: 2", "rate: 256kbps, l2: hdlc", llq, flows),
        &[],
    );
    let voice = flow(&results, "voice").delivered_l3_bps;
    let policed = 64_000.0 * 100.0 / 104.0;
    assert!((voice - policed).abs() / policed < 0.01, "{voice}");
}

/// The class row `class` of port `tx->rx`.
fn class<'a>(results: &'a qoslab_core::Results, class: &str) -> &'a qoslab_core::results::ClassRecord {
    results
        .classes
        .iter()
        .find(|c| c.port == "tx->rx" && c.class == class)
        .unwrap_or_else(|| panic!("no class {class}"))
}

/// IOS hierarchical shaping: a 2 Mbit/s shaper (`shape average`: Bc = 6250 B, Tc = 25 ms)
/// on a 10 Mbit/s link, over an LLQ child whose percentages are of the 2 Mbit/s. Voice (80
/// kbit/s) beside two data floods of 1000-byte packets with `bandwidth` 40 % and 20 %.
/// The run's invariants (conservation, backlog identities, work conservation) hold.
#[test]
fn hierarchical_shaper_over_an_llq_child() {
    let policy = "{kind: tbf, rate: 2Mbps, child: {kind: cbwfq, classes: [
        {name: voice, match: {dscp: EF}, priority: 15%},
        {name: gold, match: {dscp: AF41}, bandwidth: 40%},
        {name: silver, match: {dscp: AF21}, bandwidth: 20%}]}}";
    let flows =
        "  - {name: voice, from: tx, to: rx, dscp: EF, pattern: {kind: cbr, rate_pps: 50, size: 200B}}
  - {name: gold, from: tx, to: rx, dscp: AF41, pattern: {kind: flood, rate: 5Mbps, size: 1000B}}
  - {name: silver, from: tx, to: rx, dscp: AF21, pattern: {kind: flood, rate: 5Mbps, size: 1000B}}
";
    let results = run_yaml(
        &two_hosts("duration: 120s, warmup: 5s, seed: 4", "rate: 10Mbps, l2: none", policy, flows),
        &[],
    );
    let bps = |name: &str| flow(&results, name).delivered_l3_bps;
    // Everything leaves at the shaping rate, within 1 %, on a link five times faster.
    let total_bps = bps("voice") + bps("gold") + bps("silver");
    assert!((total_bps - 2e6).abs() / 2e6 < 0.01, "{total_bps}");
    // Voice loses nothing and waits at most one interval (a data packet held for credit
    // leaves at the next interval start, voice right behind it), plus the transmit ring's
    // two 1000-byte frames (0.8 ms each at 10 Mbit/s) and two voice frames (0.16 ms each).
    let voice = flow(&results, "voice");
    assert_eq!(voice.dropped_packets, 0);
    let bound_ms = 25.0 + 2.0 * 0.8 + 2.0 * 0.16;
    assert!(voice.delay_max_ms.unwrap() <= bound_ms + 1e-6, "{:?} > {bound_ms}", voice.delay_max_ms);
    // Gold and silver split what voice leaves, 1920 kbit/s, as 40 : 20.
    for (name, expected_bps) in [("gold", 1_280_000.0), ("silver", 640_000.0)] {
        assert!((bps(name) - expected_bps).abs() / expected_bps < 0.02, "{name}: {}", bps(name));
    }
    // The child's classes are the port's classes, each with its own counters.
    assert_eq!(class(&results, "voice").dropped_packets, 0);
    assert!(class(&results, "gold").dropped_by_reason["dropped_tail_packets"].as_u64().unwrap() > 0);
    assert_eq!(class(&results, "class-default").enqueued_packets, 0);
    let port = results.ports.iter().find(|p| p.port == "tx->rx").unwrap();
    assert!(port.utilisation_pct < 25.0, "{}", port.utilisation_pct);
}

/// A CBWFQ class shaped to 25 % of a 2 Mbit/s link keeps to 500 kbit/s while an unshaped
/// sibling takes the other 1.5 Mbit/s (the link stays busy); alone, the shaped class still
/// sends 500 kbit/s and the link idles without breaking work conservation.
#[test]
fn a_shaped_cbwfq_class_beside_an_unshaped_one() {
    let policy = "{kind: cbwfq, classes: [
        {name: bulk, match: {dscp: AF11}, bandwidth: 20%, shape: {rate: 25%}},
        {name: web, match: {dscp: AF21}, bandwidth: 20%}]}";
    let bulk =
        "  - {name: bulk, from: tx, to: rx, dscp: AF11, pattern: {kind: flood, rate: 150%, size: 1000B}}\n";
    let web =
        "  - {name: web, from: tx, to: rx, dscp: AF21, pattern: {kind: flood, rate: 150%, size: 1000B}}\n";
    let run = |flows: &str| {
        run_yaml(
            &two_hosts("duration: 120s, warmup: 5s, seed: 6", "rate: 2Mbps, l2: none", policy, flows),
            &[],
        )
    };
    let both = run(&format!("{bulk}{web}"));
    let bps = |results: &qoslab_core::Results, name: &str| flow(results, name).delivered_l3_bps;
    assert!((bps(&both, "bulk") - 500e3).abs() / 500e3 < 0.01, "{}", bps(&both, "bulk"));
    assert!((bps(&both, "web") - 1.5e6).abs() / 1.5e6 < 0.01, "{}", bps(&both, "web"));
    let alone = run(bulk);
    assert!((bps(&alone, "bulk") - 500e3).abs() / 500e3 < 0.01, "{}", bps(&alone, "bulk"));
    let utilisation = |results: &qoslab_core::Results| {
        results.ports.iter().find(|p| p.port == "tx->rx").unwrap().utilisation_pct
    };
    assert!(
        utilisation(&both) > 99.0 && utilisation(&alone) < 30.0,
        "{} {}",
        utilisation(&both),
        utilisation(&alone)
    );
}
