//! The `delay_distribution` table: each flow's delay at fixed quantiles, from its histogram.

use crate::common::{flow, run_yaml, two_hosts};

#[test]
fn the_quantiles_agree_with_the_flow_row_and_rise() {
    // Poisson arrivals at 80 % of a 1 Mbit/s link: delays spread over a queue's range.
    let flows = "  - {name: data, from: tx, to: rx, pattern: {kind: poisson, rate_pps: 200, size: 500B}}\n";
    let results =
        run_yaml(&two_hosts("duration: 20s", "rate: 1Mbps", "{kind: fifo, limit: 1000}", flows), &[]);
    let rows: Vec<_> = results.delay_distribution.iter().filter(|r| r.flow == "data").collect();
    assert_eq!(rows.len(), 104, "every hundredth from 0 to 0.99, then 0.995, 0.999, 0.9999, 1");
    assert!(rows.windows(2).all(|w| w[0].quantile < w[1].quantile && w[0].delay_ms <= w[1].delay_ms));
    let data = flow(&results, "data");
    let at = |q: f64| rows.iter().find(|r| r.quantile == q).unwrap().delay_ms;
    assert_eq!(Some(at(0.0)), data.delay_min_ms);
    assert_eq!(Some(at(1.0)), data.delay_max_ms);
    assert_eq!(Some(at(0.5)), data.delay_p50_ms);
    assert_eq!(Some(at(0.95)), data.delay_p95_ms);
    assert_eq!(Some(at(0.99)), data.delay_p99_ms);
    assert!(at(0.0) < at(0.99), "a loaded queue spreads the delays");
}

#[test]
fn a_constant_delay_is_the_same_at_every_quantile() {
    // 100-byte packets every 10 ms on an otherwise idle 1 Mbit/s link never queue: each takes
    // the same serialization time, so every quantile is the flow's one delay.
    let flows = "  - {name: tick, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 100, size: 100B}}\n";
    let results = run_yaml(&two_hosts("duration: 2s", "rate: 1Mbps", "{kind: fifo}", flows), &[]);
    let tick = flow(&results, "tick");
    assert_eq!(tick.delay_min_ms, tick.delay_max_ms);
    let delays: Vec<f64> = results.delay_distribution.iter().map(|r| r.delay_ms).collect();
    assert_eq!(delays.len(), 104);
    assert!(delays.iter().all(|&d| Some(d) == tick.delay_min_ms));
}
