//! Deliveries counted a few deliveries late, so that their flows' statistics are in the
//! cache when they are counted.
//!
//! Counting a delivery updates its flow's statistics: counters, delay sums, jitter state and
//! one counter of a delay histogram — six cache lines of that flow, the last found through a
//! pointer read from the fifth. With a few flows these lines stay in the first-level cache.
//! With hundreds, the lines deliveries touch outgrow it (not the second level: at 1000 flows
//! cachegrind counts a quarter of a second-level miss per packet), and each delivery waited
//! for its lines one after another. Here a delivery is written into a ring of `DEPTH`
//! receipts and counted when `DEPTH` later deliveries have come; on the way its lines are
//! requested with prefetch instructions — the flow's own lines when it enters the ring,
//! the histogram counter (whose address needs the histogram's pointer, by then in the
//! cache) `COUNTER_AHEAD` deliveries before it is counted. The waits overlap with the rest
//! of the simulation instead of stalling it: the software pipelining of linked structures
//! (Luk and Mowry, "Compiler-based prefetching for recursive data structures", ASPLOS 1996).
//!
//! Deliveries are counted in the order they happened, so each flow sees its own in the same
//! order as when counted at once. What counting a delivery changes (received counts, delay,
//! jitter, histogram, arrivals in the window) nothing else changes, so the sends and drops
//! counted meanwhile commute with it. The flows' statistics are read only once the run has
//! ended, and the end counts what is left in the ring first. Deliveries are counted at once
//! when a flow counts what a listener hears or per-interval series (whose counting follows
//! sends and losses in order), and when the flows are fewer than [`DEFER_FROM_FLOWS`]: their
//! statistics stay in the first-level cache, and the ring would only add its own work.

use super::flow_stats::FlowStats;
use super::receipt::Receipt;
use crate::ids::{FlowId, Table};

/// Flow rows from which deliveries are counted through the ring: the six lines a delivery
/// touches in each of 256 flows take 96 kB, twice the first-level data cache of a current
/// server core.
pub const DEFER_FROM_FLOWS: usize = 256;

/// Receipts held before they are counted (a power of two).
const DEPTH: usize = 4;
/// How many deliveries before it is counted a receipt's histogram counter is requested.
const COUNTER_AHEAD: usize = 2;

/// The ring of deliveries not counted yet.
#[derive(Clone, Debug, Default)]
pub struct Receipts {
    ring: [Receipt; DEPTH],
    /// Receipts written since the last flush; the ring holds the last `DEPTH` of them.
    written: usize,
}

impl Receipts {
    /// Takes `receipt`: counts the one written `DEPTH` deliveries ago, requests the
    /// histogram counter of the one to be counted `COUNTER_AHEAD` deliveries from now, and
    /// the lines of `receipt`'s flow. Out of line: runs with few flows, which count at
    /// once, keep their delivery short.
    #[inline(never)]
    pub fn push(&mut self, receipt: Receipt, flows: &mut Table<FlowId, FlowStats>) {
        let slot = self.written % DEPTH;
        if self.written >= DEPTH {
            let oldest = self.ring[slot];
            flows[oldest.flow].on_receipt(&oldest);
        }
        if self.written >= DEPTH - COUNTER_AHEAD {
            let soon = &self.ring[(self.written + COUNTER_AHEAD) % DEPTH];
            flows[soon.flow].prefetch_histogram_counter(soon.delay_ns());
        }
        flows[receipt.flow].prefetch_receipt_lines(receipt.delay_ns());
        self.ring[slot] = receipt;
        self.written += 1;
    }

    /// Counts every receipt held, oldest first.
    pub fn flush(&mut self, flows: &mut Table<FlowId, FlowStats>) {
        for k in self.written.saturating_sub(DEPTH)..self.written {
            let receipt = self.ring[k % DEPTH];
            flows[receipt.flow].on_receipt(&receipt);
        }
        self.written = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::quantile::Quantile;
    use crate::time::SimTime;

    fn receipt(flow: usize, created_ns: u64, delivered_ns: u64) -> Receipt {
        Receipt {
            created: SimTime(created_ns),
            delivered: SimTime(delivered_ns),
            flow: FlowId::from(flow),
            size_bytes: 100 + flow as u32,
            ce: created_ns % 3 == 0,
            counted: created_ns >= 20_000,
            in_window: delivered_ns >= 60_000,
        }
    }

    fn summary(stats: &FlowStats) -> String {
        format!(
            "{} {} {} {} {} {:?} {:?} {:?} {} {}",
            stats.received_packets,
            stats.received_bytes,
            stats.ce_received_packets,
            stats.arrived_in_window_packets,
            stats.arrived_in_window_bytes,
            stats.delay_min_ns(),
            stats.delay_max_ns(),
            stats.delay_quantiles_ns(&[Quantile::percent(10), Quantile::MEDIAN, Quantile::percent(90)]),
            stats.jitter.rfc3550_ns(),
            stats.jitter.mean_deviation_ns(),
        )
    }

    /// Counting through the ring, flushed at any point, leaves what counting at once leaves.
    #[test]
    fn deferred_counting_leaves_what_counting_at_once_leaves() {
        let receipts: Vec<Receipt> = (0..1_000u64)
            .map(|i| receipt((i * 7 % 5) as usize, i * 1_000, i * 1_000 + 50_000 + (i * i) % 30_000))
            .collect();
        for cut in [0, 1, DEPTH - 1, DEPTH, DEPTH + 1, 3 * DEPTH + 1, receipts.len()] {
            let fresh =
                || -> Table<FlowId, FlowStats> { (0..5).map(|_| FlowStats::new(1_000, u64::MAX)).collect() };
            let mut at_once = fresh();
            let mut deferred = fresh();
            let mut ring = Receipts::default();
            for r in &receipts[..cut] {
                at_once[r.flow].on_receipt(r);
                ring.push(*r, &mut deferred);
            }
            ring.flush(&mut deferred);
            for r in &receipts[cut..] {
                at_once[r.flow].on_receipt(r);
                ring.push(*r, &mut deferred);
            }
            ring.flush(&mut deferred);
            for (a, d) in at_once.iter().zip(&deferred) {
                assert_eq!(summary(a), summary(d), "flushed after {cut}");
                assert!(a.received_packets > 0 && a.arrived_in_window_packets > a.received_packets / 2);
            }
        }
    }

    /// A receipt is counted only once `DEPTH` more have come, or at the flush.
    #[test]
    fn a_receipt_waits_for_depth_more() {
        let mut flows: Table<FlowId, FlowStats> = vec![FlowStats::new(0, u64::MAX)].into();
        let mut ring = Receipts::default();
        for i in 0..DEPTH as u64 {
            ring.push(receipt(0, 20_000 + i, 60_000 + i), &mut flows);
        }
        assert_eq!(flows[FlowId::from(0)].received_packets, 0);
        ring.push(receipt(0, 25_000, 66_000), &mut flows);
        assert_eq!(flows[FlowId::from(0)].received_packets, 1);
        ring.flush(&mut flows);
        assert_eq!(flows[FlowId::from(0)].received_packets, DEPTH as u64 + 1);
        ring.flush(&mut flows);
        assert_eq!(flows[FlowId::from(0)].received_packets, DEPTH as u64 + 1, "a flush empties the ring");
    }
}
