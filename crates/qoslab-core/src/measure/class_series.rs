//! Per-interval time series of one class of a port's discipline: what `show policy-map
//! interface` would show if it were read at the end of every interval.
//!
//! Intervals are those of the flows' series (`measure.series`), aligned on time 0: interval
//! k covers [k × length, (k + 1) × length). Every interval of the measured window gets a row,
//! idle or not, since a queue has a length at every instant. Per interval: the backlog at
//! its end (the state after every event before the boundary; an event at the boundary
//! belongs to the next interval), the largest backlog within it (the backlog it started
//! with counts), the packets and bytes dequeued towards the wire and those dropped, by
//! reason. Only the open interval is updated; an interval closes when an event of a later
//! one arrives or the window closes, and each interval skipped in between repeats the
//! backlog of the last event.

use super::drops::{DropCounters, DropReason};
use crate::time::SimTime;

/// One interval of a class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassSeriesPoint {
    /// Interval index (start = index × length).
    pub index: u64,
    /// Backlog at the interval's end, packets.
    pub backlog_packets: u64,
    /// Backlog at the interval's end, bytes.
    pub backlog_bytes: u64,
    /// Largest backlog within the interval, packets.
    pub max_backlog_packets: u64,
    /// Largest backlog within the interval, bytes.
    pub max_backlog_bytes: u64,
    /// Packets handed on towards the wire.
    pub dequeued_packets: u64,
    /// Their bytes.
    pub dequeued_bytes: u64,
    /// Packets dropped, on arrival or from the queue, by reason.
    pub dropped: DropCounters,
}

/// The series of one class.
#[derive(Clone, Debug)]
pub struct ClassSeries {
    length_ns: u64,
    /// The open interval, once the measured window has started.
    open: Option<ClassSeriesPoint>,
    /// Closed intervals, in order.
    pub points: Vec<ClassSeriesPoint>,
}

impl ClassSeries {
    /// Intervals of `length_ns` (above 0).
    pub fn new(length_ns: u64) -> Self {
        assert!(length_ns > 0, "interval length checked when the scenario is built");
        ClassSeries { length_ns, open: None, points: Vec::new() }
    }

    /// Interval length, ns.
    pub fn length_ns(&self) -> u64 {
        self.length_ns
    }

    /// The measured window starts at `now` with the backlog given: earlier rows go.
    pub fn start(&mut self, now: SimTime, backlog_packets: u64, backlog_bytes: u64) {
        self.points.clear();
        self.open = Some(ClassSeriesPoint {
            index: now.0 / self.length_ns,
            backlog_packets,
            backlog_bytes,
            max_backlog_packets: backlog_packets,
            max_backlog_bytes: backlog_bytes,
            ..Default::default()
        });
    }

    /// The open interval for an event at `now`, after closing the earlier ones; `None`
    /// before the window starts.
    #[inline]
    fn point(&mut self, now: SimTime) -> Option<&mut ClassSeriesPoint> {
        let index = now.0 / self.length_ns;
        let open = self.open.as_mut()?;
        while open.index < index {
            let next = ClassSeriesPoint {
                index: open.index + 1,
                backlog_packets: open.backlog_packets,
                backlog_bytes: open.backlog_bytes,
                max_backlog_packets: open.backlog_packets,
                max_backlog_bytes: open.backlog_bytes,
                ..Default::default()
            };
            self.points.push(std::mem::replace(open, next));
        }
        Some(open)
    }

    /// The backlog became `packets` and `bytes` at `now` (after an enqueue, a dequeue, a
    /// drop from the queue or a hand-over).
    #[inline]
    pub fn on_backlog(&mut self, now: SimTime, packets: u64, bytes: u64) {
        if let Some(point) = self.point(now) {
            point.backlog_packets = packets;
            point.backlog_bytes = bytes;
            point.max_backlog_packets = point.max_backlog_packets.max(packets);
            point.max_backlog_bytes = point.max_backlog_bytes.max(bytes);
        }
    }

    /// A packet of `size_bytes` left towards the wire at `now`.
    #[inline]
    pub fn on_dequeue(&mut self, now: SimTime, size_bytes: u32) {
        if let Some(point) = self.point(now) {
            point.dequeued_packets += 1;
            point.dequeued_bytes += size_bytes as u64;
        }
    }

    /// A packet of `size_bytes` was dropped at `now` for `reason`.
    #[inline]
    pub fn on_drop(&mut self, now: SimTime, reason: DropReason, size_bytes: u32) {
        if let Some(point) = self.point(now) {
            point.dropped.record(reason, size_bytes);
        }
    }

    /// The measured window closes at `now`: the intervals up to it become rows (an interval
    /// starting exactly at `now` is outside the window and has none).
    pub fn close(&mut self, now: SimTime) {
        let Some(last) = now.0.checked_sub(1) else { return };
        if self.point(SimTime(last)).is_some() {
            self.points.extend(self.open.take());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A FIFO of 100-byte packets filled at 3 packets per second and drained at 1: one
    /// packet arrives every 1/3 s from 0, one leaves every second from 0.5 s. At the end of
    /// second k the queue has received 3k packets and sent k, so it holds 2k.
    #[test]
    fn a_fifo_filled_faster_than_it_drains() {
        let mut series = ClassSeries::new(1_000 * MS);
        series.start(SimTime(0), 0, 0);
        let mut events: Vec<(u64, bool)> = (0..12).map(|k| (k * 1_000 * MS / 3, true)).collect();
        events.extend((0..4).map(|k| (500 * MS + k * 1_000 * MS, false)));
        events.sort();
        let mut backlog = 0u64;
        for (at, arrival) in events {
            if arrival {
                backlog += 1;
            } else {
                backlog -= 1;
                series.on_dequeue(SimTime(at), 100);
            }
            series.on_backlog(SimTime(at), backlog, backlog * 100);
        }
        series.close(SimTime(4_000 * MS));
        let ends: Vec<(u64, u64, u64)> =
            series.points.iter().map(|p| (p.index, p.backlog_packets, p.backlog_bytes)).collect();
        assert_eq!(ends, vec![(0, 2, 200), (1, 4, 400), (2, 6, 600), (3, 8, 800)]);
        // Second 1 starts with 2, reaches 4 (arrivals at 1 and 1.33 s) before its departure
        // at 1.5 s brings it to 3, then 4 again at 1.67 s.
        assert_eq!(series.points[1].max_backlog_packets, 4);
        assert!(series.points.iter().all(|p| p.dequeued_packets == 1 && p.dequeued_bytes == 100));
    }

    #[test]
    fn idle_intervals_repeat_the_backlog_and_drops_count_by_reason() {
        let mut series = ClassSeries::new(100 * MS);
        // Events before the window are not recorded.
        series.on_drop(SimTime(10 * MS), DropReason::TailDrop, 100);
        series.start(SimTime(150 * MS), 3, 300);
        series.on_drop(SimTime(160 * MS), DropReason::TailDrop, 100);
        series.on_backlog(SimTime(420 * MS), 1, 100);
        series.close(SimTime(500 * MS));
        let p = &series.points;
        assert_eq!(p.iter().map(|p| p.index).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        assert_eq!(p[0].dropped.packets(DropReason::TailDrop), 1);
        assert_eq!((p[2].backlog_packets, p[2].max_backlog_packets), (3, 3));
        assert_eq!((p[3].backlog_packets, p[3].max_backlog_packets, p[3].backlog_bytes), (1, 3, 100));
    }
}
