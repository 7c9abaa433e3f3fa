//! The future event list: a binary min-heap keyed on (time, insertion sequence), with
//! lanes for the events that come in order anyway.
//!
//! Ordering guarantee: events fire in time order, and events scheduled for the same instant
//! fire in the order they were scheduled (FIFO ties). The sequence number makes the order a
//! total one, so a run never depends on how the list breaks ties — the basis of determinism.
//! The pair is packed into one 128-bit key, `time << 64 | sequence`, so one comparison
//! orders two events. Cost: O(log n) per schedule and per pop; the storage is reused, so a
//! run in steady state does not allocate. (A radix heap, which monotone event lists allow,
//! executed about 12 % more instructions on the benchmark scenarios, whose lists hold a few
//! dozen events.)
//!
//! **Lanes.** Many events are scheduled in the order they will fire: those due at the
//! current instant (a frame reaching the far end of a link without delay), the emissions of
//! periodic sources with one period, the arrivals at the end of one link with a delay. Such
//! a stream needs no sorting: it is kept in a first-in first-out lane, the merge of sorted
//! runs of the calendar and ladder queues (R. Brown, "Calendar queues", CACM 31(10), 1988;
//! W. T. Tang, R. S. M. Goh and I. L.-J. Thng, "Ladder queue", ACM TOMACS 15(3), 2005).
//! Events due now wait in the *now lane*. The fronts of the other lanes make a second,
//! small heap of their own, so a thousand periodic sources of one period cost it one entry,
//! not a thousand. A pop takes the earliest of three: the now lane's front, the heap's top
//! and the top of the lanes' fronts. An event that would break its lane's order (a later
//! one is already in it) goes to the heap as usual. Every event keeps its key, and a pop
//! always takes the smallest key, so the order is exactly that of one heap holding all.
//!
//! The lanes' fronts are kept apart from the heap, not in it, for speed. An emission taken
//! from its lane then only replaces the lane's front among the fronts (a heap of one entry
//! when one interval is in use), and the heap holds only the events of no lane (the ends of
//! transmission, mostly), so each of its sifts is short. Whether the next event is an
//! emission or a frame's end is then decided by one comparison, where the events' heap
//! decided it again inside each sift, at random when the sources' phases are. The headline
//! benchmark's cases gained 2–4 % (benches/README.md, round 8).
//!
//! **Timers.** The timers of applications and TCP endpoints come in no order, and a run
//! of many connections has hundreds pending; so do the emissions of sources without a lane
//! (Poisson arrivals, random ON-OFF periods), and a large network has thousands of such
//! sources. They have a heap of their own, whose earliest entry has a representative in the
//! events' heap, with its key, so that a frame's events sift through a heap of a few entries
//! rather than through every timer and source: in a 200-router network with 3,000 Poisson
//! sources, the events' heap would otherwise be a hundred kilobytes deep, out of the first
//! level cache on every sift. A timer that becomes the earliest gets its representative at
//! once; the one it displaced keeps its own, and each timer leaves only when its
//! representative does.

use crate::ids::{EndpointId, PortId, SourceId, UserId};
use crate::time::SimTime;
use std::collections::VecDeque;

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
    /// Among the lanes' fronts: the lane this entry is the front of. In the heap:
    /// [`NO_LANE`] for an event of the heap's own, [`TIMER_LANE`] for the earliest timer's
    /// representative. Among the timers: [`TIMER_LANE`] if it has a representative in the
    /// heap, else [`NO_LANE`]. In a lane: [`NO_LANE`].
    lane: u32,
}

/// The lane of events that have none.
pub const NO_LANE: u32 = u32::MAX;

/// In the heap: the entry stands for the earliest timer ([`EventQueue::timers`]). Among the
/// timers: the entry has such a representative in the heap.
const TIMER_LANE: u32 = u32::MAX - 1;

/// Pending events, earliest first, ties in scheduling order.
#[derive(Debug, Default)]
pub struct EventQueue {
    /// A binary min-heap on `key`: `heap[i]` is not later than `heap[2i + 1]` and
    /// `heap[2i + 2]`.
    heap: Vec<Entry>,
    /// Events due at `now`, in scheduling order.
    now_lane: VecDeque<Entry>,
    /// The lanes, each in key order; a non-empty lane's front is also in `fronts`.
    lanes: Vec<VecDeque<Entry>>,
    /// The fronts of the non-empty lanes, a min-heap on `key` as `heap` is, each with its
    /// lane in `lane`.
    fronts: Vec<Entry>,
    /// The timers of applications and TCP endpoints and the emissions of sources without a
    /// lane, a heap of their own: a run of many connections or random sources has hundreds
    /// or thousands pending, and each frame's events would otherwise sift through them. The
    /// earliest has a representative in the heap, with its key.
    timers: Vec<Entry>,
    /// The lane of each source's emissions, by source index.
    source_lanes: Vec<u32>,
    /// The lane of each port's link arrivals, by port index.
    arrival_lanes: Vec<u32>,
    /// The time of the last event popped.
    now: u64,
    next_seq: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new lane, empty.
    pub fn add_lane(&mut self) -> u32 {
        self.lanes.push(VecDeque::new());
        (self.lanes.len() - 1) as u32
    }

    /// Puts the emissions of source `source` in lane `lane`.
    pub fn set_source_lane(&mut self, source: SourceId, lane: u32) {
        set_lane(&mut self.source_lanes, source.index(), lane);
    }

    /// Puts the link arrivals of port `port` in lane `lane`.
    pub fn set_arrival_lane(&mut self, port: PortId, lane: u32) {
        set_lane(&mut self.arrival_lanes, port.index(), lane);
    }

    /// The source whose emission is next in the lane of `source`'s emissions, if it has a
    /// lane and another emission waits there: which source emits next among those of one
    /// interval, known while `source` emits (a hint for the caches; no event is taken).
    #[inline]
    pub fn next_in_lane(&self, source: SourceId) -> Option<SourceId> {
        let lane = *self.source_lanes.get(source.index())?;
        match self.lanes.get(lane as usize)?.front()?.event {
            Event::SourceEmit(next) => Some(next),
            _ => None,
        }
    }

    /// The lane `event` belongs in, if any.
    #[inline]
    fn lane_of(&self, event: Event) -> u32 {
        let (lanes, index) = match event {
            Event::SourceEmit(i) => (&self.source_lanes, i.index()),
            Event::LinkArrival(p) => (&self.arrival_lanes, p.index()),
            _ => return NO_LANE,
        };
        lanes.get(index).copied().unwrap_or(NO_LANE)
    }

    /// Schedules `event` at `at`. Events at equal times keep this call order.
    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        let key = (u128::from(at.0) << 64) | u128::from(self.next_seq);
        self.next_seq += 1;
        if at.0 == self.now {
            self.now_lane.push_back(Entry { key, event, lane: NO_LANE });
        } else {
            self.schedule_later(key, event);
        }
    }

    /// Schedules a frame's end of transmission on port `port` at `at`, later than now. Such
    /// events have no lane, so this goes straight to the heap: the same order as
    /// [`EventQueue::schedule`], with less work for the most frequent future event.
    #[inline(always)]
    pub fn schedule_transmit_done(&mut self, at: SimTime, port: PortId) {
        debug_assert!(at.0 > self.now, "a frame takes time on the wire");
        let key = (u128::from(at.0) << 64) | u128::from(self.next_seq);
        self.next_seq += 1;
        self.push_heap(Entry { key, event: Event::TransmitDone(port), lane: NO_LANE });
    }

    /// Schedules `event` with `key`, later than now: in its lane, or in the heap. Out of
    /// line, so that an event due now costs its caller a few instructions.
    #[inline(never)]
    fn schedule_later(&mut self, key: u128, event: Event) {
        if let Event::TcpTimer(_) | Event::AppTimer(_) = event {
            self.schedule_timer(key, event);
            return;
        }
        let lane = self.lane_of(event);
        if let Some(queue) = self.lanes.get_mut(lane as usize) {
            match queue.back() {
                None => {
                    queue.push_back(Entry { key, event, lane: NO_LANE });
                    push(&mut self.fronts, Entry { key, event, lane });
                    return;
                }
                Some(back) if back.key < key => {
                    queue.push_back(Entry { key, event, lane: NO_LANE });
                    return;
                }
                Some(_) => {}
            }
        }
        if let Event::SourceEmit(_) = event {
            self.schedule_timer(key, event);
        } else {
            self.push_heap(Entry { key, event, lane: NO_LANE });
        }
    }

    /// Adds `entry` to the heap.
    #[inline]
    fn push_heap(&mut self, entry: Entry) {
        push(&mut self.heap, entry);
    }

    /// Adds a timer with `key`. One that becomes the earliest gets a representative in the
    /// heap; the one it displaces keeps its own.
    fn schedule_timer(&mut self, key: u128, event: Event) {
        let earliest = self.timers.first().is_none_or(|first| key < first.key);
        let lane = if earliest { TIMER_LANE } else { NO_LANE };
        push(&mut self.timers, Entry { key, event, lane });
        if earliest {
            self.push_heap(Entry { key, event, lane: TIMER_LANE });
        }
    }

    /// Takes the earliest timer, whose representative (with key `key`) has just left the
    /// heap: every earlier event has fired, so it is the earliest timer. The next one gets
    /// a representative unless it has one already.
    fn take_timer(&mut self, key: u128) -> Entry {
        let entry = self.timers[0];
        debug_assert_eq!(entry.key, key, "a timer's representative fires with the earliest timer");
        pop_top(&mut self.timers);
        if let Some(next) = self.timers.first_mut() {
            if next.lane != TIMER_LANE {
                next.lane = TIMER_LANE;
                let representative = *next;
                self.push_heap(representative);
            }
        }
        entry
    }

    /// Whether no event is pending at or before `at`: an event scheduled now for `at` would
    /// then be the next to fire.
    #[inline(always)]
    pub fn nothing_due_by(&self, at: SimTime) -> bool {
        let later = |entry: Option<&Entry>| entry.is_none_or(|e| (e.key >> 64) as u64 > at.0);
        self.now_lane.is_empty() && later(self.heap.first()) && later(self.fronts.first())
    }

    /// The time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.front().map(|(_, key)| SimTime((key >> 64) as u64))
    }

    /// Where the earliest pending event is and its key.
    #[inline]
    fn front(&self) -> Option<(Front, u128)> {
        // No event has the key `u128::MAX`: its sequence number would be the last of 2^64.
        let key = |entry: Option<&Entry>| entry.map_or(u128::MAX, |e| e.key);
        let (now, heap, lanes) =
            (key(self.now_lane.front()), key(self.heap.first()), key(self.fronts.first()));
        if now < heap && now < lanes {
            Some((Front::NowLane, now))
        } else if lanes < heap {
            Some((Front::Lane, lanes))
        } else if heap < u128::MAX {
            Some((Front::Heap, heap))
        } else {
            None
        }
    }

    /// Removes and returns the earliest pending event.
    #[cfg(test)]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_before(SimTime::NEVER)
    }

    /// Removes and returns the earliest pending event if it is due before `until`.
    #[inline]
    pub fn pop_before(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        let (front, key) = self.front()?;
        if (key >> 64) as u64 >= until.0 {
            return None;
        }
        let entry = match front {
            Front::NowLane => self.now_lane.pop_front().expect("checked"),
            Front::Lane => {
                // The lane's front leaves; the next one, if any, takes its place.
                let lane = self.fronts[0].lane;
                let queue = &mut self.lanes[lane as usize];
                let entry = queue.pop_front().expect("a lane in the fronts holds its front");
                match queue.front() {
                    Some(next) => sift_down(&mut self.fronts, Entry { lane, ..*next }),
                    None => pop_top(&mut self.fronts),
                }
                entry
            }
            Front::Heap => {
                let top = self.heap[0];
                pop_top(&mut self.heap);
                if top.lane == TIMER_LANE {
                    self.take_timer(top.key)
                } else {
                    top
                }
            }
        };
        self.now = (entry.key >> 64) as u64;
        Some((SimTime(self.now), entry.event))
    }
}

/// Where the earliest pending event waits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Front {
    /// The events due now.
    NowLane,
    /// A lane, whose front is the top of the lanes' fronts.
    Lane,
    /// The heap.
    Heap,
}

/// Adds `entry` to the min-heap `heap`.
#[inline]
fn push(heap: &mut Vec<Entry>, entry: Entry) {
    // Sift up: move parents down until the new key's place is found.
    let mut hole = heap.len();
    heap.push(entry);
    while hole > 0 {
        let parent = (hole - 1) / 2;
        if heap[parent].key <= entry.key {
            break;
        }
        heap[hole] = heap[parent];
        hole = parent;
    }
    heap[hole] = entry;
}

/// Removes the top of the min-heap `heap`.
#[inline]
fn pop_top(heap: &mut Vec<Entry>) {
    let last = heap.pop().expect("a top to remove");
    if !heap.is_empty() {
        sift_down(heap, last);
    }
}

/// Puts `entry` in place of the top of the min-heap `heap` and restores its order.
#[inline]
fn sift_down(heap: &mut [Entry], entry: Entry) {
    let len = heap.len();
    let mut hole = 0;
    loop {
        let left = 2 * hole + 1;
        if left >= len {
            break;
        }
        // The smaller child, chosen without a branch: which one wins is unpredictable.
        // When there is no right child, the left is compared with itself.
        let right = (left + 1).min(len - 1);
        let child = left + usize::from(heap[right].key < heap[left].key);
        if entry.key <= heap[child].key {
            break;
        }
        heap[hole] = heap[child];
        hole = child;
    }
    heap[hole] = entry;
}

/// Sets `lanes[index]` to `lane`, growing the table with [`NO_LANE`].
fn set_lane(lanes: &mut Vec<u32>, index: usize, lane: u32) {
    if lanes.len() <= index {
        lanes.resize(index + 1, NO_LANE);
    }
    lanes[index] = lane;
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
    fn the_next_emission_of_a_lane_is_known_while_one_is_handled() {
        let mut q = EventQueue::new();
        let lane = q.add_lane();
        for source in 0..3 {
            q.set_source_lane(SourceId(source), lane);
        }
        for (source, at) in [(0, 10), (1, 20), (2, 30)] {
            q.schedule(SimTime(at), Event::SourceEmit(SourceId(source)));
        }
        q.schedule(SimTime(15), Event::SourceEmit(SourceId(7))); // no lane
        assert_eq!(q.pop(), Some((SimTime(10), Event::SourceEmit(SourceId(0)))));
        assert_eq!(q.next_in_lane(SourceId(0)), Some(SourceId(1)));
        q.schedule(SimTime(40), Event::SourceEmit(SourceId(0)));
        assert_eq!(q.pop(), Some((SimTime(15), Event::SourceEmit(SourceId(7)))));
        assert_eq!(q.next_in_lane(SourceId(7)), None, "a source without a lane");
        assert_eq!(q.pop(), Some((SimTime(20), Event::SourceEmit(SourceId(1)))));
        assert_eq!(q.next_in_lane(SourceId(1)), Some(SourceId(2)));
        assert_eq!(q.pop(), Some((SimTime(30), Event::SourceEmit(SourceId(2)))));
        assert_eq!(q.next_in_lane(SourceId(2)), Some(SourceId(0)), "the lane goes round");
        assert_eq!(q.pop(), Some((SimTime(40), Event::SourceEmit(SourceId(0)))));
        assert_eq!(q.next_in_lane(SourceId(0)), None, "the lane is empty");
    }

    #[test]
    fn matches_a_sorted_shadow_model() {
        // Differential check against the obvious twin: a stable sort by time.
        const EVENTS: u32 = 5_000;
        const INSTANTS: u64 = 200;
        let page = include_str!("../../../../docs/concepts/ordering.md");
        let told =
            format!("schedules {} 000 events at random times among {INSTANTS} instants", EVENTS / 1000);
        assert!(
            page.split_whitespace().collect::<Vec<_>>().join(" ").contains(&told),
            "ordering.md: `{told}`"
        );
        let mut rng = crate::engine::rng::Rng::from_seed_words(7, 0);
        let mut q = EventQueue::new();
        let mut shadow = Vec::new();
        for i in 0..EVENTS {
            let t = SimTime(rng.next_u64() % INSTANTS);
            q.schedule(t, Event::SourceEmit(SourceId(i)));
            shadow.push((t, Event::SourceEmit(SourceId(i))));
        }
        shadow.sort_by_key(|(t, _)| *t); // stable: ties keep insertion order
        let popped: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(popped, shadow);
    }

    /// Random schedules, popped as they go (so events due now occur), against a shadow
    /// model sorted by (time, sequence): sources in two lanes, one port's arrivals in a
    /// third, some of them out of their lane's order, timers and the sources of no lane in
    /// their own heap, and frames' ends of transmission straight into the heap;
    /// `nothing_due_by` against the model.
    #[test]
    fn lanes_keep_the_heap_order() {
        let mut rng = crate::engine::rng::Rng::from_seed_words(11, 0);
        let mut q = EventQueue::new();
        let lanes = [q.add_lane(), q.add_lane(), q.add_lane()];
        for s in 0..40u32 {
            q.set_source_lane(SourceId(s), lanes[(s % 2) as usize]);
        }
        q.set_arrival_lane(PortId(3), lanes[2]);
        let mut shadow = std::collections::BTreeMap::new();
        let mut now = 0u64;
        for round in 0..20_000u32 {
            let event = match rng.next_u64() % 6 {
                0 | 1 => Event::SourceEmit(SourceId(round % 50)),
                2 => Event::LinkArrival(PortId(round % 5)),
                3 => Event::TcpTimer(EndpointId(round % 7)),
                4 => Event::AppTimer(UserId(round % 3)),
                _ => Event::TransmitDone(PortId(round % 5)),
            };
            let at = now + [0, 0, 1, 7, 100, 1000][(rng.next_u64() % 6) as usize];
            match event {
                Event::TransmitDone(port) if at > now => q.schedule_transmit_done(SimTime(at), port),
                _ => q.schedule(SimTime(at), event),
            }
            shadow.insert((at, round), event);
            // Nothing is due by now exactly when the model holds nothing at or before it.
            let due = shadow.first_key_value().is_some_and(|(&(t, _), _)| t <= now);
            assert_eq!(q.nothing_due_by(SimTime(now)), !due, "round {round}");
            if rng.next_u64() % 3 > 0 {
                let ((t, _), expected) = shadow.pop_first().expect("non-empty");
                assert_eq!(q.pop(), Some((SimTime(t), expected)), "round {round}");
                now = t;
            }
        }
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let expected: Vec<_> = shadow.into_iter().map(|((t, _), e)| (SimTime(t), e)).collect();
        assert_eq!(rest, expected);
        assert_eq!(q.peek_time(), None);
    }

    #[test]
    fn events_due_now_follow_those_scheduled_earlier_for_now() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), Event::SourceEmit(SourceId(0)));
        q.schedule(SimTime(5), Event::SourceEmit(SourceId(1)));
        assert_eq!(q.pop(), Some((SimTime(5), Event::SourceEmit(SourceId(0)))));
        // Now is 5: this one waits in the now lane, behind the one already in the heap.
        q.schedule(SimTime(5), Event::TransmitDone(PortId(0)));
        assert_eq!(q.peek_time(), Some(SimTime(5)));
        assert_eq!(q.pop(), Some((SimTime(5), Event::SourceEmit(SourceId(1)))));
        assert_eq!(q.pop(), Some((SimTime(5), Event::TransmitDone(PortId(0)))));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn storage_is_reused() {
        let mut q = EventQueue::new();
        let lane = q.add_lane();
        q.set_source_lane(SourceId(0), lane);
        let mut at = 0;
        for _ in 0..3 {
            for k in 0..100u64 {
                q.schedule(SimTime(at + k + 1), Event::SourceEmit(SourceId(0)));
                q.schedule(SimTime(at + k + 1), Event::TransmitDone(PortId(0)));
            }
            while let Some((t, _)) = q.pop() {
                at = t.0;
            }
        }
        let capacities = (q.heap.capacity(), q.fronts.capacity(), q.lanes[0].capacity());
        for k in 0..100u64 {
            q.schedule(SimTime(at + k + 1), Event::SourceEmit(SourceId(0)));
            q.schedule(SimTime(at + k + 1), Event::TransmitDone(PortId(0)));
        }
        assert_eq!((q.heap.capacity(), q.fronts.capacity(), q.lanes[0].capacity()), capacities);
        assert_eq!((q.heap.len(), q.fronts.len()), (100, 1), "the lane takes one entry among the fronts");
    }
}
