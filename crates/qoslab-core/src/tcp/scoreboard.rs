//! The SACK scoreboard of a sender and the quantities RFC 6675 ("A Conservative Loss
//! Recovery Algorithm Based on Selective Acknowledgment (SACK) for TCP") derives from it.
//!
//! The scoreboard is the set of sequence ranges the receiver reported holding (SACKed),
//! above the cumulative acknowledgement, merged into sorted disjoint ranges. From it:
//! * **IsLost(s)**: s is not SACKed and either more than (DupThresh − 1)·MSS SACKed bytes
//!   or DupThresh discontiguous SACKed ranges lie above it (DupThresh = 3). Every unSACKed
//!   byte below a *lost edge* — the start of the highest range at which the bytes or ranges
//!   above reach that threshold — is lost.
//! * **Pipe**: the bytes between the cumulative ACK and the highest byte sent that are not
//!   SACKed, counting once each byte not lost and once more each byte already retransmitted
//!   in this recovery (below HighRxt).
//! * **NextSeg**: rule 1, the lowest lost unSACKed byte not yet retransmitted; rule 3, the
//!   lowest unSACKed byte not yet retransmitted below the highest SACKed byte (rule 2, new
//!   data, is the sender's). The rescue retransmission of rule 4 is not modelled.
//!
//! Ranges are kept in a vector that keeps its capacity, so updating allocates only while a
//! connection's scoreboard grows beyond anything it held before.

/// The duplicate-ACK threshold, DupThresh.
pub const DUP_THRESH: u64 = 3;

/// SACKed ranges above the cumulative ACK and the highest retransmission.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Sorted, disjoint [start, end) ranges.
    sacked: Vec<(u64, u64)>,
    /// One past the highest byte retransmitted in this recovery (HighRxt + 1).
    pub high_rxt: u64,
}

impl Scoreboard {
    /// Forgets everything (after a retransmission timeout).
    pub fn clear(&mut self) {
        self.sacked.clear();
        self.high_rxt = 0;
    }

    /// Adds the ranges an ACK reported, ignoring what lies below `snd_una` or at or above
    /// `snd_max`; returns whether any byte was newly SACKed.
    pub fn update(&mut self, snd_una: u64, snd_max: u64, ranges: impl Iterator<Item = (u64, u64)>) -> bool {
        let before = self.sacked_bytes();
        for (start, end) in ranges {
            let (start, end) = (start.max(snd_una), end.min(snd_max));
            if start >= end {
                continue;
            }
            let at = self.sacked.partition_point(|&(s, _)| s < start);
            self.sacked.insert(at, (start, end));
            let mut i = at.saturating_sub(1);
            while i + 1 < self.sacked.len() {
                let (s0, e0) = self.sacked[i];
                let (s1, e1) = self.sacked[i + 1];
                if s1 <= e0 {
                    self.sacked[i] = (s0, e0.max(e1));
                    self.sacked.remove(i + 1);
                } else if s1 > end {
                    break;
                } else {
                    i += 1;
                }
            }
        }
        self.sacked_bytes() > before
    }

    /// Drops what the cumulative acknowledgement `snd_una` now covers.
    pub fn advance(&mut self, snd_una: u64) {
        let covered = self.sacked.partition_point(|&(_, e)| e <= snd_una);
        self.sacked.drain(..covered);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(snd_una);
        }
    }

    /// SACKed bytes.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked.iter().map(|&(s, e)| e - s).sum()
    }

    /// SACKed bytes within [from, to).
    fn sacked_within(&self, from: u64, to: u64) -> u64 {
        self.sacked.iter().map(|&(s, e)| e.min(to).saturating_sub(s.max(from))).sum()
    }

    /// The highest SACKed byte + 1, if any.
    pub fn high_sacked(&self) -> Option<u64> {
        self.sacked.last().map(|&(_, e)| e)
    }

    /// Below this sequence number every unSACKed byte is lost (RFC 6675 IsLost); `None`
    /// when nothing is.
    pub fn lost_edge(&self, mss_bytes: u64) -> Option<u64> {
        let mut bytes_above = 0;
        for (count, &(start, end)) in self.sacked.iter().rev().enumerate() {
            bytes_above += end - start;
            if bytes_above > (DUP_THRESH - 1) * mss_bytes || count as u64 + 1 >= DUP_THRESH {
                return Some(start);
            }
        }
        None
    }

    /// Whether `seq` is SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        let at = self.sacked.partition_point(|&(s, _)| s <= seq);
        at > 0 && seq < self.sacked[at - 1].1
    }

    /// RFC 6675 IsLost.
    pub fn is_lost(&self, seq: u64, mss_bytes: u64) -> bool {
        !self.is_sacked(seq) && self.lost_edge(mss_bytes).is_some_and(|edge| seq < edge)
    }

    /// RFC 6675 SetPipe for the bytes [snd_una, snd_max).
    pub fn pipe(&self, snd_una: u64, snd_max: u64, mss_bytes: u64) -> u64 {
        let unsacked = (snd_max - snd_una) - self.sacked_within(snd_una, snd_max);
        let edge = self.lost_edge(mss_bytes).unwrap_or(snd_una).clamp(snd_una, snd_max);
        let lost = (edge - snd_una) - self.sacked_within(snd_una, edge);
        let rxt_end = self.high_rxt.clamp(snd_una, snd_max);
        let retransmitted = (rxt_end - snd_una) - self.sacked_within(snd_una, rxt_end);
        unsacked - lost + retransmitted
    }

    /// The first unSACKed byte at or above `from`, and where the SACKed data after it
    /// begins (or `u64::MAX`).
    fn unsacked_from(&self, from: u64) -> (u64, u64) {
        let mut seq = from;
        for &(s, e) in &self.sacked {
            if e <= seq {
                continue;
            }
            if s <= seq {
                seq = e;
                continue;
            }
            return (seq, s);
        }
        (seq, u64::MAX)
    }

    /// Where the SACKed data after the unSACKed byte `seq` begins (or `u64::MAX`).
    pub fn hole_end(&self, seq: u64) -> u64 {
        self.sacked.iter().map(|&(s, _)| s).find(|&s| s > seq).unwrap_or(u64::MAX)
    }

    /// NextSeg rule 1: the first lost byte not yet retransmitted, and the end of its hole.
    pub fn next_lost(&self, snd_una: u64, mss_bytes: u64) -> Option<(u64, u64)> {
        let edge = self.lost_edge(mss_bytes)?;
        let (seq, hole_end) = self.unsacked_from(self.high_rxt.max(snd_una));
        (seq < edge).then_some((seq, hole_end))
    }

    /// NextSeg rule 3: the first unSACKed byte not yet retransmitted below the highest
    /// SACKed byte, and the end of its hole.
    pub fn next_unsacked(&self, snd_una: u64) -> Option<(u64, u64)> {
        let high = self.high_sacked()?;
        let (seq, hole_end) = self.unsacked_from(self.high_rxt.max(snd_una));
        (seq < high).then_some((seq, hole_end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Segments of 1000 bytes from 1: 1 and 3001 lost, 1001, 2001, 4001, 5001 SACKed.
    fn board() -> Scoreboard {
        let mut sb = Scoreboard::default();
        assert!(sb.update(1, 6001, [(1001, 2001), (4001, 5001)].into_iter()));
        assert!(sb.update(1, 6001, [(2001, 3001), (5001, 6001)].into_iter()));
        assert!(!sb.update(1, 6001, [(1001, 3001)].into_iter()), "nothing new");
        sb
    }

    #[test]
    fn ranges_merge_and_advance() {
        let mut sb = board();
        assert_eq!(sb.sacked, vec![(1001, 3001), (4001, 6001)]);
        assert_eq!(sb.sacked_bytes(), 4000);
        assert!(sb.is_sacked(1001) && sb.is_sacked(5999) && !sb.is_sacked(3001) && !sb.is_sacked(1));
        sb.advance(3001);
        assert_eq!(sb.sacked, vec![(4001, 6001)]);
        // Reports outside [snd_una, snd_max) are clipped.
        sb.update(3001, 7001, [(1, 2001), (6001, 9001)].into_iter());
        assert_eq!(sb.sacked, vec![(4001, 7001)]);
    }

    /// IsLost: 1 has 4000 SACKed bytes above (> 2·MSS): lost. 3001 has 2000 above, not more
    /// than 2·MSS and one range: not lost yet. A third range above it would make it lost.
    #[test]
    fn is_lost_by_bytes_or_by_ranges() {
        let sb = board();
        assert_eq!(sb.lost_edge(MSS), Some(1001));
        assert!(sb.is_lost(1, MSS));
        assert!(!sb.is_lost(3001, MSS));
        assert!(!sb.is_lost(1001, MSS), "SACKed bytes are never lost");
        let mut three = Scoreboard::default();
        three.update(1, 10_001, [(2001, 2101), (4001, 4101), (6001, 6101)].into_iter());
        assert_eq!(three.lost_edge(MSS), Some(2001), "three discontiguous ranges above");
        assert!(three.is_lost(1, MSS) && !three.is_lost(3001, MSS));
    }

    /// Pipe over [1, 6001): 2000 unSACKed bytes (1..1001, 3001..4001), of which 1..1001 is
    /// lost: pipe 1000. After retransmitting 1..1001 (HighRxt), it counts again: 2000.
    #[test]
    fn pipe_counts_unsacked_not_lost_and_retransmitted() {
        let mut sb = board();
        assert_eq!(sb.pipe(1, 6001, MSS), 1000);
        assert_eq!(sb.next_lost(1, MSS), Some((1, 1001)));
        sb.high_rxt = 1001;
        assert_eq!(sb.pipe(1, 6001, MSS), 2000);
        assert_eq!(sb.next_lost(1, MSS), None, "3001 is not lost");
        assert_eq!(sb.next_unsacked(1), Some((3001, 4001)), "rule 3");
        sb.high_rxt = 4001;
        assert_eq!(sb.next_unsacked(1), None);
    }
}
