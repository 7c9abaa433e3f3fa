//! IP packet delay variation (RFC 3393) of a constant-rate stream, as a distribution.
//!
//! For a pair of packets the IPDV is the one-way delay of the second minus that of the
//! first, sign kept. The selected pairs are consecutive packets: two received packets sent
//! one nominal interval apart (give or take half an interval), so that no packet was sent between them; a pair with a lost
//! packet has no value. The values go into two streaming histograms (negative and
//! non-negative), from which percentiles are read (RFC 3393: report a distribution, not an
//! average).

use super::histogram::Histogram;
use super::quantile::Quantile;
use crate::time::SimTime;

/// IPDV distribution of one stream.
#[derive(Clone, Debug, Default)]
pub struct Ipdv {
    interval_ns: u64,
    last: Option<(SimTime, u64)>,
    negative: Histogram,
    non_negative: Histogram,
    min_ns: i64,
    max_ns: i64,
}

impl Ipdv {
    /// A stream sending every `interval_ns`.
    pub fn new(interval_ns: u64) -> Self {
        Ipdv { interval_ns, ..Default::default() }
    }

    /// A packet created at `created` arrived after `delay_ns`.
    pub fn record(&mut self, created: SimTime, delay_ns: u64) {
        if let Some((last_created, last_delay_ns)) = self.last {
            let gap_ns = created.0.saturating_sub(last_created.0);
            // One interval apart, with room for the sender's clock rounding.
            if gap_ns > self.interval_ns / 2 && gap_ns < self.interval_ns + self.interval_ns / 2 {
                let ipdv_ns = delay_ns as i64 - last_delay_ns as i64;
                if self.pairs() == 0 {
                    (self.min_ns, self.max_ns) = (ipdv_ns, ipdv_ns);
                }
                self.min_ns = self.min_ns.min(ipdv_ns);
                self.max_ns = self.max_ns.max(ipdv_ns);
                if ipdv_ns < 0 {
                    self.negative.record(ipdv_ns.unsigned_abs());
                } else {
                    self.non_negative.record(ipdv_ns as u64);
                }
            }
        }
        if self.last.is_none_or(|(last_created, _)| created > last_created) {
            self.last = Some((created, delay_ns));
        }
    }

    /// Pairs measured.
    pub fn pairs(&self) -> u64 {
        self.negative.count() + self.non_negative.count()
    }

    /// IPDV quantile `q`, ns, within the observed range.
    pub fn quantile_ns(&self, q: Quantile) -> Option<f64> {
        let pairs = self.pairs();
        if pairs == 0 {
            return None;
        }
        // Nearest rank over both halves: the negative values come first, largest magnitude
        // first.
        let rank = q.rank(pairs);
        let negatives = self.negative.count();
        let value = if rank <= negatives {
            -self.negative.at_rank(negatives - rank + 1)?
        } else {
            self.non_negative.at_rank(rank - negatives)?
        };
        Some(value.clamp(self.min_ns as f64, self.max_ns as f64))
    }

    /// Smallest and largest IPDV, ns.
    pub fn range_ns(&self) -> Option<(i64, i64)> {
        (self.pairs() > 0).then_some((self.min_ns, self.max_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Delays 10, 14, 12, (lost), 20, 11 ms every 20 ms: pairs (10,14) +4, (14,12) −2 and
    /// (20,11) −9; the lost packet breaks the pairs around it.
    #[test]
    fn consecutive_pairs_only() {
        let mut ipdv = Ipdv::new(20 * MS);
        for (k, delay) in [(0, 10), (1, 14), (2, 12), (4, 20), (5, 11)] {
            ipdv.record(SimTime(k * 20 * MS), delay * MS);
        }
        assert_eq!(ipdv.pairs(), 3);
        assert_eq!(ipdv.range_ns(), Some((-9 * MS as i64, 4 * MS as i64)));
        let median = ipdv.quantile_ns(Quantile::MEDIAN).unwrap();
        assert!((median + 2e6).abs() < 0.01 * 2e6, "median {median}");
        assert!((ipdv.quantile_ns(Quantile::MAX).unwrap() - 4e6).abs() < 0.01 * 4e6);
        assert!((ipdv.quantile_ns(Quantile::MIN).unwrap() + 9e6).abs() < 0.01 * 9e6);
    }

    /// Constant delay: every IPDV is 0.
    #[test]
    fn constant_delay() {
        let mut ipdv = Ipdv::new(20 * MS);
        for k in 0..50 {
            ipdv.record(SimTime(k * 20 * MS), 7 * MS);
        }
        assert_eq!(ipdv.pairs(), 49);
        assert_eq!(ipdv.quantile_ns(Quantile::percent(99)), Some(0.0));
    }
}
