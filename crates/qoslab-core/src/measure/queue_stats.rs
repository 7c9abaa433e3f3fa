//! Counters of one queue (a class of a discipline, or a whole port), with the time-weighted
//! backlog.
//!
//! Every arriving packet is either enqueued or dropped on arrival, and each is counted; a
//! queued packet leaves by being dequeued or by being dropped from the queue. Identity
//! checked after every run by [`QueueStats::check`], over the whole run (the warm-up only
//! resets the reported counters): `backlog = enqueued − dequeued − dropped from the queue −
//! handed over`, and the backlog equals the packets the queue really holds. Packets are
//! handed over when the interface's discipline is replaced during the run: they leave the
//! old discipline's classes and are offered to the new one.
//!
//! The mean backlog is the time integral of the backlog over the measured window divided
//! by its length; it is updated at every change, so it is exact, not sampled.

use super::class_series::ClassSeries;
use super::drops::{DropCounters, DropReason};
use super::invariant::InvariantError;
use crate::time::SimTime;

/// Counters of one queue.
///
/// Laid out in the order of its fields (`repr(C)`), from the start of a cache line: what
/// every packet in and out updates fills the first two lines (the backlog's time integral,
/// the backlog, the in and out counts, the maxima, the series' presence); drops and the
/// rest follow. In a network of hundreds of queues a queue is rarely in the first-level
/// cache when its next packet comes, and each line touched is a miss.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct QueueStats {
    // The backlog's integral over time, packet·ns and byte·ns, up to `last_change`.
    area_packet_ns: u128,
    area_byte_ns: u128,
    last_change: SimTime,
    /// Packets held now.
    pub backlog_packets: u64,
    /// Bytes held now.
    pub backlog_bytes: u64,
    /// Packets accepted into the queue.
    pub enqueued_packets: u64,
    /// Bytes accepted into the queue.
    pub enqueued_bytes: u64,
    // Lifetime totals for the identities, never reset (with `life_dequeued`,
    // `life_dropped_from_queue` and `life_handed_over`).
    life_enqueued: u64,
    /// Largest backlog in the measured window, packets.
    pub max_backlog_packets: u64,
    /// Largest backlog in the measured window, bytes.
    pub max_backlog_bytes: u64,
    /// Packets handed on towards the wire.
    pub dequeued_packets: u64,
    /// Bytes handed on towards the wire.
    pub dequeued_bytes: u64,
    life_dequeued: u64,
    /// Per-interval series of a class, when `measure.series` asks for one.
    pub series: Option<Box<ClassSeries>>,
    window_start: SimTime,
    /// Packets accepted with their ECN field set to CE instead of being dropped (RED or
    /// CoDel marking, RFC 3168).
    pub ecn_marked_packets: u64,
    /// Packets dropped, on arrival or from the queue, by reason.
    pub dropped: DropCounters,
    life_dropped_from_queue: u64,
    life_handed_over: u64,
}

impl QueueStats {
    #[inline]
    fn advance(&mut self, now: SimTime) {
        let dt = now.since(self.last_change) as u128;
        self.area_packet_ns += self.backlog_packets as u128 * dt;
        self.area_byte_ns += self.backlog_bytes as u128 * dt;
        self.last_change = now;
    }

    /// Counts a packet of `size_bytes` in: enqueued, in the backlog and in its maxima.
    #[inline(always)]
    fn count_in(&mut self, size_bytes: u32) {
        self.enqueued_packets += 1;
        self.enqueued_bytes += size_bytes as u64;
        self.life_enqueued += 1;
        self.backlog_packets += 1;
        self.backlog_bytes += size_bytes as u64;
        self.max_backlog_packets = self.max_backlog_packets.max(self.backlog_packets);
        self.max_backlog_bytes = self.max_backlog_bytes.max(self.backlog_bytes);
    }

    /// Counts a packet of `size_bytes` out: dequeued, and out of the backlog.
    #[inline(always)]
    fn count_out(&mut self, size_bytes: u32) {
        self.dequeued_packets += 1;
        self.dequeued_bytes += size_bytes as u64;
        self.life_dequeued += 1;
        self.backlog_packets -= 1;
        self.backlog_bytes -= size_bytes as u64;
    }

    /// A packet of `size_bytes` was accepted.
    #[inline(always)]
    pub fn on_enqueue(&mut self, now: SimTime, size_bytes: u32) {
        self.advance(now);
        self.count_in(size_bytes);
        if self.series.is_some() {
            self.series_backlog(now);
        }
    }

    /// A packet of `size_bytes` was accepted and left towards the wire at once: the state
    /// [`QueueStats::on_enqueue`] then [`QueueStats::on_dequeue`] at `now` would leave, in
    /// one update (with a series, through the two).
    #[inline(always)]
    pub fn on_pass_through(&mut self, now: SimTime, size_bytes: u32) {
        if self.series.is_some() {
            self.on_enqueue(now, size_bytes);
            self.on_dequeue(now, size_bytes);
            return;
        }
        // The dequeue's advance would add nothing: no time passes between the two.
        self.advance(now);
        self.count_in(size_bytes);
        self.count_out(size_bytes);
    }

    /// Tells the series, if any, the backlog after a change at `now`. Out of line: the
    /// counters of a queue without a series stay a few instructions.
    #[inline(never)]
    fn series_backlog(&mut self, now: SimTime) {
        if let Some(series) = &mut self.series {
            series.on_backlog(now, self.backlog_packets, self.backlog_bytes);
        }
    }

    /// A packet of `size_bytes` left towards the wire.
    #[inline(always)]
    pub fn on_dequeue(&mut self, now: SimTime, size_bytes: u32) {
        self.advance(now);
        self.count_out(size_bytes);
        if self.series.is_some() {
            self.series_dequeued(now, size_bytes);
        }
    }

    /// Tells the series a packet of `size_bytes` left at `now`, and the backlog after it.
    #[inline(never)]
    fn series_dequeued(&mut self, now: SimTime, size_bytes: u32) {
        if let Some(series) = &mut self.series {
            series.on_dequeue(now, size_bytes);
        }
        self.series_backlog(now);
    }

    /// An arriving packet was refused at `now`.
    #[inline]
    pub fn on_drop_arrival(&mut self, now: SimTime, reason: DropReason, size_bytes: u32) {
        self.dropped.record(reason, size_bytes);
        if let Some(series) = &mut self.series {
            series.on_drop(now, reason, size_bytes);
        }
    }

    /// A packet was marked CE (congestion experienced) instead of being dropped.
    #[inline]
    pub fn on_ecn_mark(&mut self) {
        self.ecn_marked_packets += 1;
    }

    /// A queued packet was removed without being sent.
    #[inline]
    pub fn on_drop_queued(&mut self, now: SimTime, reason: DropReason, size_bytes: u32) {
        self.advance(now);
        self.dropped.record(reason, size_bytes);
        self.life_dropped_from_queue += 1;
        self.backlog_packets -= 1;
        self.backlog_bytes -= size_bytes as u64;
        if let Some(series) = &mut self.series {
            series.on_drop(now, reason, size_bytes);
        }
        self.series_backlog(now);
    }

    /// `packets` queued packets of `bytes` bytes left the queue at `now` without being sent
    /// or dropped: the discipline holding them was replaced.
    pub fn hand_over(&mut self, now: SimTime, packets: u64, bytes: u64) {
        self.advance(now);
        self.life_handed_over += packets;
        self.backlog_packets -= packets;
        self.backlog_bytes -= bytes;
        self.series_backlog(now);
    }

    /// Starts the measured window at `now`: counters restart, the backlog is kept.
    pub fn start_window(&mut self, now: SimTime) {
        let mut series = self.series.take();
        if let Some(series) = &mut series {
            series.start(now, self.backlog_packets, self.backlog_bytes);
        }
        *self = QueueStats {
            series,
            backlog_packets: self.backlog_packets,
            backlog_bytes: self.backlog_bytes,
            max_backlog_packets: self.backlog_packets,
            max_backlog_bytes: self.backlog_bytes,
            last_change: now,
            window_start: now,
            life_enqueued: self.life_enqueued,
            life_dequeued: self.life_dequeued,
            life_dropped_from_queue: self.life_dropped_from_queue,
            life_handed_over: self.life_handed_over,
            ..QueueStats::default()
        };
    }

    /// Closes the measured window at `now` (call once, at the end of the run).
    pub fn close_window(&mut self, now: SimTime) {
        self.advance(now);
        if let Some(series) = &mut self.series {
            series.close(now);
        }
    }

    /// Time-average backlog over the measured window, packets.
    pub fn mean_backlog_packets(&self) -> f64 {
        let window = self.last_change.since(self.window_start);
        if window == 0 {
            return self.backlog_packets as f64;
        }
        self.area_packet_ns as f64 / window as f64
    }

    /// Time-average backlog over the measured window, bytes.
    pub fn mean_backlog_bytes(&self) -> f64 {
        let window = self.last_change.since(self.window_start);
        if window == 0 {
            return self.backlog_bytes as f64;
        }
        self.area_byte_ns as f64 / window as f64
    }

    /// Packets dropped in the window.
    pub fn dropped_packets(&self) -> u64 {
        self.dropped.total_packets()
    }

    /// Bytes dropped in the window.
    pub fn dropped_bytes(&self) -> u64 {
        self.dropped.total_bytes()
    }

    /// Packets dropped in the window for `reason`.
    pub fn dropped_for(&self, reason: DropReason) -> u64 {
        self.dropped.packets(reason)
    }

    /// The same counters without the per-interval series: a port's totals taken from its
    /// one class.
    pub fn without_series(&self) -> QueueStats {
        QueueStats { series: None, dropped: self.dropped.clone(), ..*self }
    }

    /// Checks the backlog identity over the whole run against the packets actually held.
    pub fn check(&self, held_packets: u64) -> Result<(), InvariantError> {
        let expected =
            self.life_enqueued - self.life_dequeued - self.life_dropped_from_queue - self.life_handed_over;
        if expected != self.backlog_packets || held_packets != self.backlog_packets {
            return Err(InvariantError::QueueBacklog {
                expected,
                counted: self.backlog_packets,
                held: held_packets,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What every packet in and out updates stays in the counters' first two cache lines,
    /// as the layout's comment says.
    #[test]
    fn a_packets_counters_stay_in_the_first_two_cache_lines() {
        use std::mem::{align_of, offset_of};
        assert_eq!(align_of::<QueueStats>(), 64);
        let ends = [
            offset_of!(QueueStats, area_byte_ns) + 16,
            offset_of!(QueueStats, backlog_bytes) + 8,
            offset_of!(QueueStats, enqueued_bytes) + 8,
            offset_of!(QueueStats, max_backlog_bytes) + 8,
            offset_of!(QueueStats, dequeued_bytes) + 8,
            offset_of!(QueueStats, life_dequeued) + 8,
            offset_of!(QueueStats, series) + 8,
        ];
        assert!(ends.iter().all(|&end| end <= 2 * 64), "{ends:?}");
    }

    #[test]
    fn a_pass_through_leaves_what_an_enqueue_and_a_dequeue_leave() {
        // With a backlog already there (the maxima move only if the passing packet raises
        // them) and after time went by (the area grows by the backlog held meanwhile).
        for (held, size_bytes) in [(0, 1500), (3, 40), (3, 9000)] {
            let mut one = QueueStats::default();
            for _ in 0..held {
                one.on_enqueue(SimTime(5), 1000);
            }
            if held > 0 {
                one.on_dequeue(SimTime(7), 1000);
            }
            let mut two = one.clone();
            one.on_pass_through(SimTime(20), size_bytes);
            two.on_enqueue(SimTime(20), size_bytes);
            two.on_dequeue(SimTime(20), size_bytes);
            assert_eq!(format!("{one:?}"), format!("{two:?}"), "{held} held, {size_bytes} B");
        }
    }

    #[test]
    fn time_weighted_mean_and_window() {
        let mut q = QueueStats::default();
        q.on_enqueue(SimTime(0), 100);
        q.on_enqueue(SimTime(10), 100); // backlog 1 for 10 ns
        q.start_window(SimTime(10)); // window starts with backlog 2
        q.on_dequeue(SimTime(20), 100); // 2 for 10 ns
        q.on_dequeue(SimTime(40), 100); // 1 for 20 ns
        q.close_window(SimTime(50)); // 0 for 10 ns
        assert_eq!(q.mean_backlog_packets(), (2.0 * 10.0 + 20.0) / 40.0);
        assert_eq!(q.max_backlog_packets, 2);
        assert_eq!(q.enqueued_packets, 0);
        assert_eq!(q.dequeued_packets, 2);
        assert!(q.check(0).is_ok());
        assert!(q.check(1).is_err());
    }
}
