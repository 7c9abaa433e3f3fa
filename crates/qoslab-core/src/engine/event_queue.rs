//! The future event list: a binary min-heap keyed on (time, insertion sequence).
//!
//! Ordering guarantee: events fire in time order, and events scheduled for the same instant
//! fire in the order they were scheduled (FIFO ties). The sequence number makes the order a
//! total one, so a run never depends on how the heap breaks ties — the basis of determinism.
//! The pair is packed into one 128-bit key, `time << 64 | sequence`, so one comparison
//! orders two events. Cost: O(log n) per schedule and per pop; the heap's storage is
//! reused, so a run in steady state does not allocate. (A radix heap, which monotone event
//! lists allow, executed about 12 % more instructions on the benchmark scenarios, whose
//! lists hold a few dozen events.)

use crate::ids::{EndpointId, PortId, SourceId, UserId};
use crate::time::SimTime;

/// What happens when an event fires. Small and `Copy`: payloads (packets) live in the model,
/// not in the event list.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The source emits its next packet.
    SourceEmit(SourceId),
    /// The port finished serializing the frame on its wire.
    TransmitDone(PortId),
    /// The oldest frame in flight on the port's link reaches the far end.
    LinkArrival(PortId),
    /// The port asked to be served again (its discipline said "not before").
    PortWake(PortId),
    /// The warm-up period ends: statistics start counting.
    WarmupEnd,
    /// A timer the application set for this user is due.
    AppTimer(UserId),
    /// A timer of the TCP endpoint may be due.
    TcpTimer(EndpointId),
    /// The port applies its scheduled changes (rate, bandwidth, discipline).
    PortChange(PortId),
    /// The oldest packet held at tunnel end `index` is processed.
    TunnelRelease(u32),
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    /// `time << 64 | sequence`: one comparison orders by time, then by scheduling order.
    key: u128,
    event: Event,
}

/// Pending events, earliest first, ties in scheduling order.
#[derive(Debug, Default)]
pub struct EventQueue {
    /// A binary min-heap on `key`: `heap[i]` is not later than `heap[2i + 1]` and
    /// `heap[2i + 2]`.
    heap: Vec<Entry>,
    next_seq: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `at`. Events at equal times keep this call order.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        let key = (u128::from(at.0) << 64) | u128::from(self.next_seq);
        self.next_seq += 1;
        // Sift up: move parents down until the new key's place is found.
        let mut hole = self.heap.len();
        self.heap.push(Entry { key, event });
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if self.heap[parent].key <= key {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = Entry { key, event };
    }

    /// The time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(|e| SimTime((e.key >> 64) as u64))
    }

    /// Removes and returns the earliest pending event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let last = self.heap.pop()?;
        let Some(&top) = self.heap.first() else {
            return Some((SimTime((last.key >> 64) as u64), last.event));
        };
        // Sift the last entry down from the root.
        let len = self.heap.len();
        let mut hole = 0;
        loop {
            let left = 2 * hole + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && self.heap[right].key < self.heap[left].key { right } else { left };
            if last.key <= self.heap[child].key {
                break;
            }
            self.heap[hole] = self.heap[child];
            hole = child;
        }
        self.heap[hole] = last;
        Some((SimTime((top.key >> 64) as u64), top.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_order_then_fifo_ties() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(20), Event::SourceEmit(SourceId(0)));
        q.schedule(SimTime(10), Event::SourceEmit(SourceId(1)));
        q.schedule(SimTime(20), Event::SourceEmit(SourceId(2)));
        q.schedule(SimTime(10), Event::SourceEmit(SourceId(3)));
        q.schedule(SimTime(20), Event::SourceEmit(SourceId(4)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(10), Event::SourceEmit(SourceId(1))),
                (SimTime(10), Event::SourceEmit(SourceId(3))),
                (SimTime(20), Event::SourceEmit(SourceId(0))),
                (SimTime(20), Event::SourceEmit(SourceId(2))),
                (SimTime(20), Event::SourceEmit(SourceId(4))),
            ]
        );
    }

    #[test]
    fn matches_a_sorted_shadow_model() {
        // Differential check against the obvious twin: a stable sort by time.
        let mut rng = crate::engine::rng::Rng::from_seed_words(7, 0);
        let mut q = EventQueue::new();
        let mut shadow = Vec::new();
        for i in 0..5_000u32 {
            let t = SimTime(rng.next_u64() % 200);
            q.schedule(t, Event::SourceEmit(SourceId(i)));
            shadow.push((t, Event::SourceEmit(SourceId(i))));
        }
        shadow.sort_by_key(|(t, _)| *t); // stable: ties keep insertion order
        let popped: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(popped, shadow);
    }
}
