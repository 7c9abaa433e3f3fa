//! SACK blocks as an acknowledgement carries them (RFC 2018): up to three ranges of
//! out-of-order data the receiver holds, the block holding the most recently arrived
//! segment first.
//!
//! A block is stored as two 32-bit offsets from the segment's cumulative acknowledgement,
//! so the blocks cost every segment 25 bytes of memory instead of 49. On the wire the option
//! takes 2 + 8·n bytes, padded to a multiple of four with NOPs (RFC 2018 §3): 12, 20 or 28
//! bytes for one, two or three blocks — added to the ACK's size. The SYN's SACK-permitted
//! option is not counted. The block count is an enum of its four values, so that an
//! `Option<Segment>` costs no extra byte (it uses the count's spare values).

/// Most blocks one acknowledgement carries (three fit beside the timestamp option).
pub const MAX_BLOCKS: usize = 3;

/// How many blocks a segment carries: 0 to [`MAX_BLOCKS`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
enum BlockCount {
    #[default]
    Zero,
    One,
    Two,
    Three,
}

impl BlockCount {
    const ALL: [BlockCount; MAX_BLOCKS + 1] =
        [BlockCount::Zero, BlockCount::One, BlockCount::Two, BlockCount::Three];

    fn get(self) -> usize {
        self as usize
    }
}

/// The SACK blocks of one segment.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    /// (start, end) offsets from the cumulative ACK, end exclusive.
    offsets: [(u32, u32); MAX_BLOCKS],
    count: BlockCount,
}

impl SackBlocks {
    /// Blocks for the ranges `[start, end)` (absolute sequence numbers, all above `ack`), in
    /// the order given; ranges past the third are left out.
    pub fn new(ack: u64, ranges: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let mut blocks = SackBlocks::default();
        for (start, end) in ranges.into_iter().take(MAX_BLOCKS) {
            debug_assert!(ack < start && start < end);
            let k = blocks.count.get();
            blocks.offsets[k] = ((start - ack) as u32, (end - ack) as u32);
            blocks.count = BlockCount::ALL[k + 1];
        }
        blocks
    }

    /// The blocks as absolute ranges, for a segment acknowledging `ack`.
    pub fn ranges(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.offsets[..self.count.get()].iter().map(move |&(s, e)| (ack + s as u64, ack + e as u64))
    }

    /// Whether there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.count == BlockCount::Zero
    }

    /// Bytes the option adds to the TCP header.
    pub fn option_bytes(&self) -> u32 {
        match self.count.get() as u32 {
            0 => 0,
            n => (2 + 8 * n).div_ceil(4) * 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_and_cost_option_bytes() {
        let blocks = SackBlocks::new(1001, [(3001, 4001), (5001, 6001), (7001, 8001), (9001, 9501)]);
        assert_eq!(blocks.ranges(1001).collect::<Vec<_>>(), vec![(3001, 4001), (5001, 6001), (7001, 8001)]);
        assert_eq!(blocks.option_bytes(), 28);
        assert_eq!(SackBlocks::new(1, [(10, 20)]).option_bytes(), 12);
        assert_eq!(SackBlocks::new(1, [(10, 20), (30, 40)]).option_bytes(), 20);
        assert!(SackBlocks::default().is_empty());
        assert_eq!(SackBlocks::default().option_bytes(), 0);
    }

    /// An absent segment pays nothing for the possibility.
    #[test]
    fn an_absent_segment_costs_no_space() {
        use crate::packet::Segment;
        assert_eq!(std::mem::size_of::<Option<Segment>>(), std::mem::size_of::<Segment>());
    }
}
