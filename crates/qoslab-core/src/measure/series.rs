//! Per-interval time series of one flow, as a receiver's monitor shows it second by second
//! (the congestion-management lab's per-second loss, delay and jitter plots).
//!
//! Events fall in the interval in which they happen: a delivery in the interval of its
//! arrival, a loss in the interval of the drop. So each interval closes as soon as a later
//! event arrives, and only the open interval is kept in the flow's state; closed intervals
//! become rows. Intervals in which nothing happened to the flow have no row. Per interval:
//! packets and bytes delivered (the delivered rate), packets lost, loss ratio among the
//! packets with an outcome, smallest, mean and largest one-way delay (the largest less the
//! smallest is the interval's delay spread, another reading of a per-second "jitter"), and
//! the RFC 3550 jitter estimate at the interval's last arrival.

use crate::time::SimTime;

/// One interval of a flow.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SeriesPoint {
    /// Interval index (start = index × length).
    pub index: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub lost_packets: u64,
    delay_sum_ns: u128,
    /// Smallest delay, ns (meaningful when a packet was delivered).
    pub delay_min_ns: u64,
    /// Largest delay, ns.
    pub delay_max_ns: u64,
    /// RFC 3550 jitter after the interval's last arrival, ns.
    pub jitter_rfc3550_ns: f64,
}

impl SeriesPoint {
    /// Mean delay of the deliveries, ns.
    pub fn delay_mean_ns(&self) -> Option<f64> {
        (self.delivered_packets > 0).then(|| self.delay_sum_ns as f64 / self.delivered_packets as f64)
    }

    /// Lost over lost + delivered.
    pub fn loss_ratio(&self) -> f64 {
        let outcomes = self.lost_packets + self.delivered_packets;
        if outcomes == 0 {
            0.0
        } else {
            self.lost_packets as f64 / outcomes as f64
        }
    }
}

/// The series of one flow.
#[derive(Clone, Debug)]
pub struct Series {
    length_ns: u64,
    open: Option<SeriesPoint>,
    /// Closed intervals, in order.
    pub points: Vec<SeriesPoint>,
}

impl Series {
    /// Intervals of `length_ns` (above 0).
    pub fn new(length_ns: u64) -> Self {
        assert!(length_ns > 0, "interval length checked when the scenario is built");
        Series { length_ns, open: None, points: Vec::new() }
    }

    /// Interval length, ns.
    pub fn length_ns(&self) -> u64 {
        self.length_ns
    }

    fn point(&mut self, now: SimTime) -> &mut SeriesPoint {
        let index = now.0 / self.length_ns;
        if self.open.is_some_and(|p| p.index != index) {
            self.points.extend(self.open.take());
        }
        self.open.get_or_insert(SeriesPoint { index, delay_min_ns: u64::MAX, ..Default::default() })
    }

    /// A packet of `size_bytes` created at `created` arrived at `now`; the flow's jitter
    /// estimate is now `jitter_ns`.
    #[inline]
    pub fn on_delivered(&mut self, created: SimTime, now: SimTime, size_bytes: u32, jitter_ns: f64) {
        let delay_ns = now.since(created);
        let point = self.point(now);
        point.delivered_packets += 1;
        point.delivered_bytes += size_bytes as u64;
        point.delay_sum_ns += delay_ns as u128;
        point.delay_min_ns = point.delay_min_ns.min(delay_ns);
        point.delay_max_ns = point.delay_max_ns.max(delay_ns);
        point.jitter_rfc3550_ns = jitter_ns;
    }

    /// A packet was lost at `now`.
    #[inline]
    pub fn on_lost(&mut self, now: SimTime) {
        self.point(now).lost_packets += 1;
    }

    /// The run ended: the open interval becomes a row.
    pub fn finish(&mut self) {
        self.points.extend(self.open.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn events_fall_in_their_interval() {
        let mut series = Series::new(1_000 * MS);
        series.on_delivered(SimTime(0), SimTime(10 * MS), 100, 1.0);
        series.on_delivered(SimTime(500 * MS), SimTime(530 * MS), 100, 2.0);
        series.on_lost(SimTime(900 * MS));
        // Nothing in [1, 2) s.
        series.on_delivered(SimTime(1_990 * MS), SimTime(2_010 * MS), 300, 3.0);
        series.finish();
        let p = &series.points;
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].index, p[0].delivered_packets, p[0].delivered_bytes, p[0].lost_packets),
            (0, 2, 200, 1)
        );
        assert_eq!(p[0].delay_mean_ns(), Some(20.0 * MS as f64));
        assert_eq!((p[0].delay_min_ns, p[0].delay_max_ns), (10 * MS, 30 * MS));
        assert!((p[0].loss_ratio() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(p[0].jitter_rfc3550_ns, 2.0);
        assert_eq!((p[1].index, p[1].delivered_bytes, p[1].delay_max_ns), (2, 300, 20 * MS));
    }
}
