//! The shaper holds a flood to its rate on a faster link, and the link idles meanwhile
//! without breaking work conservation (the shaper says when it will send again).

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
