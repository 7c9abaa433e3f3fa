//! Where the TCP headers of the segments on the network are kept while their packets travel.
//!
//! A [`Segment`] is as large as the rest of a packet, and most packets carry none. Packets
//! are moved by value through the queues many times per hop, so a segment carried inline
//! would double what every move copies. The packet therefore carries a 4-byte handle, a
//! [`SegmentRef`], and the segment waits here, in a slot of a slab.
//!
//! * **Life of a slot.** A slot is taken ([`SegmentStore::put`]) when the segment is put on
//!   the network, and released exactly once ([`SegmentStore::release`]) when its packet's
//!   life ends: delivered to its endpoint, or dropped (by a discipline, the link or the
//!   receiving interface's input policy). Fragments of a packet are copies of it, handle
//!   included; only the whole packet, or its last fragment, ends the packet's life.
//! * **Memory.** Released slots go on a free list and are taken again first, so once the
//!   run has warmed up no segment allocates, and the slab grows only to the most segments
//!   on the network at once: constant in the run's length.
//! * **Results.** Which slot a segment gets depends only on the order of puts and releases,
//!   and nothing the run reports reads a slot number, so the store changes no result.

use super::segment::Segment;
use std::num::NonZeroU32;

/// The handle of a segment in a [`SegmentStore`]: its slot number plus one, so that
/// `Option<SegmentRef>` takes no more room than the handle.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SegmentRef(NonZeroU32);

impl SegmentRef {
    /// The slot it names.
    #[inline(always)]
    fn slot(self) -> usize {
        (self.0.get() - 1) as usize
    }
}

/// The segments of the packets on the network: a slab of slots and a free list.
#[derive(Clone, Debug, Default)]
pub struct SegmentStore {
    /// Every slot ever taken; a free one keeps its last segment until taken again.
    slots: Vec<Segment>,
    /// The free slots, the most recently released last (taken first).
    free: Vec<u32>,
    /// Which slots are taken, to catch a release of a free slot (debug builds only).
    #[cfg(debug_assertions)]
    taken: Vec<bool>,
}

impl SegmentStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps `segment` in a free slot (a new one if none is free) and returns its handle.
    #[inline]
    pub fn put(&mut self, segment: Segment) -> SegmentRef {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = segment;
                slot
            }
            None => {
                let slot = u32::try_from(self.slots.len())
                    .ok()
                    .filter(|&slot| slot < u32::MAX)
                    .expect("fewer than 2^32 - 1 segments on the network at once");
                self.slots.push(segment);
                #[cfg(debug_assertions)]
                self.taken.push(false);
                slot
            }
        };
        #[cfg(debug_assertions)]
        {
            debug_assert!(!self.taken[slot as usize], "slot {slot} taken twice");
            self.taken[slot as usize] = true;
        }
        SegmentRef(NonZeroU32::new(slot + 1).expect("slot + 1 is above zero"))
    }

    /// The segment `handle` names (its slot must be taken).
    #[inline]
    pub fn get(&self, handle: SegmentRef) -> &Segment {
        #[cfg(debug_assertions)]
        debug_assert!(self.taken[handle.slot()], "read of free slot {}", handle.slot());
        &self.slots[handle.slot()]
    }

    /// Frees the slot of `handle`, whose packet's life ended, and returns the segment it
    /// held. Each handle is released once.
    #[inline]
    pub fn release(&mut self, handle: SegmentRef) -> Segment {
        let slot = handle.slot();
        #[cfg(debug_assertions)]
        {
            debug_assert!(self.taken[slot], "slot {slot} released twice");
            self.taken[slot] = false;
        }
        self.free.push(slot as u32);
        self.slots[slot]
    }

    /// Slots taken now: the segments of packets still on the network.
    pub fn in_use_segments(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots the store has made so far: the most segments on the network at once.
    pub fn capacity_segments(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::EndpointId;
    use crate::packet::sack::SackBlocks;

    fn segment(seq: u64) -> Segment {
        Segment {
            to_endpoint: EndpointId(1),
            incarnation: 0,
            seq,
            ack: 0,
            payload_bytes: 1000,
            flags: 0,
            window_bytes: 65535,
            sack: SackBlocks::default(),
        }
    }

    #[test]
    fn a_handle_costs_four_bytes_with_or_without_a_segment() {
        assert_eq!(std::mem::size_of::<Option<SegmentRef>>(), 4);
    }

    #[test]
    fn segments_come_back_as_put_and_released_slots_are_reused() {
        let mut store = SegmentStore::new();
        let a = store.put(segment(1));
        let b = store.put(segment(1001));
        assert_eq!((store.get(a).seq, store.get(b).seq), (1, 1001));
        assert_eq!(store.release(a).seq, 1);
        assert_eq!(store.in_use_segments(), 1);
        let c = store.put(segment(2001));
        assert_eq!(c, a, "the freed slot is taken again");
        assert_eq!(store.get(c).seq, 2001);
        assert_eq!(store.capacity_segments(), 2);
    }

    /// A long stream of segments with at most `window` in flight never needs more than
    /// `window` slots.
    #[test]
    fn the_store_grows_only_to_the_most_segments_in_flight() {
        let mut store = SegmentStore::new();
        let window = 64;
        let mut in_flight = std::collections::VecDeque::new();
        for seq in 0..100_000u64 {
            if in_flight.len() == window {
                store.release(in_flight.pop_front().expect("full"));
            }
            in_flight.push_back(store.put(segment(seq)));
        }
        assert_eq!(store.capacity_segments(), window);
        assert_eq!(store.in_use_segments(), window);
    }
}
