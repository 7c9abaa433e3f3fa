//! ALTQ CBQ: static provisioning holds each class to its share; borrowing lends idle
//! capacity; the weighted round robin splits a saturated link by share.

use crate::common::{flow, run_yaml, two_hosts};

fn cbq_link(policy: &str, flows: &[(&str, &str)]) -> qoslab_core::Results {
    let traffic: String = flows
        .iter()
        .map(|(name, dscp)| {
            format!("  - {{name: {name}, from: tx, to: rx, dscp: {dscp}, pattern: {{kind: poisson, rate: 8Mbps, size: 1000B}}}}\n")
        })
        .collect();
    run_yaml(
        &two_hosts("duration: 60s, warmup: 2s, seed: 6", "rate: 10Mbps, l2: none", policy, &traffic),
        &[],
    )
}

fn policy(borrow: bool) -> String {
    format!(
        "{{kind: cbq, classes: [
        {{name: af1, match: {{dscp: AF11}}, bandwidth: 50%, borrow: {borrow}}},
        {{name: af2, match: {{dscp: AF21}}, bandwidth: 20%, borrow: {borrow}}},
        {{name: rest, bandwidth: 10%, borrow: {borrow}}}]}}"
    )
}

fn mbps(results: &qoslab_core::Results, name: &str) -> f64 {
    flow(results, name).delivered_l3_bps / 1e6
}

/// Without borrowing each saturated class gets its share and no more, so 20 % of the link
/// stays idle. Tolerance 2 % of each share.
#[test]
fn static_provisioning_holds_each_class_to_its_share() {
    let results = cbq_link(&policy(false), &[("af1", "AF11"), ("af2", "AF21"), ("rest", "BE")]);
    for (name, share) in [("af1", 5.0), ("af2", 2.0), ("rest", 1.0)] {
        let got = mbps(&results, name);
        assert!((got - share).abs() / share < 0.02, "{name}: {got} Mbit/s");
    }
}

/// With borrowing, the classes fill the link: af2 and rest, alone, split the whole 10 Mbit/s
/// by their weighted round robin allotments (20 : 10). Tolerance 2 %.
#[test]
fn borrowing_lends_the_idle_share() {
    let results = cbq_link(&policy(true), &[("af2", "AF21"), ("rest", "BE")]);
    let (af2, rest) = (mbps(&results, "af2"), mbps(&results, "rest"));
    assert!((af2 + rest - 10.0).abs() < 0.1, "{af2} + {rest}");
    assert!(af2 >= 2.0 * 0.98 && rest >= 1.0 * 0.98, "each keeps at least its share: {af2}, {rest}");
    assert!((af2 / rest - 2.0).abs() / 2.0 < 0.02, "{}", af2 / rest);
}
