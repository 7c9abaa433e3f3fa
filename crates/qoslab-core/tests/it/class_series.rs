//! Per-class queue series (`class_series`), checked against a hand trace.

use crate::common::{run_yaml, two_hosts};

/// A FIFO fed 1000-byte packets every 4 ms (250/s) on an 800 kbit/s link without framing
/// (10 ms per packet, 100/s), transmit ring 2. The first packet goes on the wire at 0 and
/// the second into the ring at 4 ms; after that each transmission's end, every 10 ms, takes
/// one packet from the queue. Before the end of second k (an event on the boundary belongs
/// to the next second) 250 k packets arrived and 2 + (100 k − 1) left, so the queue holds
/// 150 k − 1 packets; 101 leave in the first second and 100 in each later one.
#[test]
fn a_fifo_filled_at_a_known_rate() {
    let flows = "  - {name: load, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 250, size: 1000B}}\n";
    let text = two_hosts(
        "duration: 3s, warmup: 0s",
        "rate: 800kbps, l2: none, tx_ring: 2",
        "{kind: fifo, limit: unlimited}",
        flows,
    ) + "measure: {series: 1s}\n";
    let results = run_yaml(&text, &[]);
    let rows: Vec<_> = results.class_series.iter().filter(|r| r.port == "tx->rx").collect();
    assert_eq!(rows.len(), 3);
    for (k, row) in rows.iter().enumerate() {
        let end = k as u64 + 1;
        assert_eq!(row.start_s, k as f64);
        assert_eq!(row.interval_s, 1.0);
        assert_eq!(row.queue_packets, 150 * end - 1, "second {k}");
        assert_eq!(row.queue_bytes, 1000 * (150 * end - 1));
        assert_eq!(row.dequeued_packets, if k == 0 { 101 } else { 100 });
        assert_eq!(row.dequeued_bps, row.dequeued_bytes as f64 * 8.0);
        assert_eq!(row.dropped_packets, 0);
        // The queue only grows over a second (2.5 arrivals per departure), so its largest
        // backlog is at most one packet above the end's.
        assert!(row.queue_max_packets >= row.queue_packets && row.queue_max_packets <= row.queue_packets + 1);
    }
    // The reverse port is idle: a row per second, all zero.
    let idle: Vec<_> = results.class_series.iter().filter(|r| r.port == "rx->tx").collect();
    assert_eq!(idle.len(), 3);
    assert!(idle.iter().all(|r| r.queue_max_packets == 0 && r.dequeued_packets == 0));
}

/// A FIFO of 10 packets overloaded: drops are counted in their second, as tail drops, and
/// match the classes table over the whole window.
#[test]
fn drops_fall_in_their_interval() {
    let flows = "  - {name: load, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 250, size: 1000B}}\n";
    let text =
        two_hosts("duration: 4s, warmup: 1s", "rate: 800kbps, l2: none", "{kind: fifo, limit: 10}", flows)
            + "measure: {series: 1s}\n";
    let results = run_yaml(&text, &[]);
    let rows: Vec<_> = results.class_series.iter().filter(|r| r.port == "tx->rx").collect();
    assert_eq!(rows.iter().map(|r| r.start_s).collect::<Vec<_>>(), vec![1.0, 2.0, 3.0, 4.0]);
    let class = results.classes.iter().find(|c| c.port == "tx->rx").unwrap();
    assert_eq!(rows.iter().map(|r| r.dropped_packets).sum::<u64>(), class.dropped_packets);
    assert_eq!(rows.iter().map(|r| r.dequeued_packets).sum::<u64>(), class.dequeued_packets);
    for row in &rows {
        // Full all the time: 250 arrive, 100 leave, 150 are refused each second.
        assert_eq!((row.queue_packets, row.dequeued_packets, row.dropped_packets), (10, 100, 150));
        assert_eq!(row.dropped_by_reason["dropped_tail_packets"], 150);
    }
}
