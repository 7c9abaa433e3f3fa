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

#[test]
fn each_hundredth_of_a_hundred_delays_is_its_own_rank() {
    // 100 packets of 1225 bytes (a frame time T of about 10 ms) offered every 5 ms to a
    // 1 Mbit/s link: packet k waits behind k earlier ones, so the 100 delays differ, rising
    // by T − 5 ms each. The
    // quantile i/100 of 100 values is the value of rank i (rank 1 for 0): the delay of the
    // i-th packet. In floating point ⌈0.07 × 100⌉ is 8, which read the next packet's delay
    // for 5 of the hundredths.
    let flows =
        "  - {name: q, from: tx, to: rx, packets: 100, pattern: {kind: cbr, rate_pps: 200, size: 1225B}}\n";
    let results = run_yaml(&two_hosts("duration: 5s", "rate: 1Mbps", "{kind: fifo, limit: 200}", flows), &[]);
    let q = flow(&results, "q");
    assert_eq!(q.received_packets, 100);
    let (first, last) = (q.delay_min_ms.unwrap(), q.delay_max_ms.unwrap());
    let step = (last - first) / 99.0;
    assert!(step > 1.0, "the delays rise by {step} ms a packet");
    for row in results.delay_distribution.iter().filter(|r| r.flow == "q" && r.quantile < 0.995) {
        let rank = ((row.quantile * 100.0).round() as u32).max(1);
        let exact = first + step * f64::from(rank - 1);
        // Within the histogram's 0.4 % of the value, far less than one step between ranks.
        assert!(
            (row.delay_ms - exact).abs() <= 0.004 * exact + 1e-9,
            "quantile {}: {} ms, rank {rank} has {exact} ms",
            row.quantile,
            row.delay_ms
        );
    }
}
