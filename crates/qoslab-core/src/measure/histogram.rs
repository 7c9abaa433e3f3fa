//! A log-linear histogram of nanosecond values for streaming percentiles in constant memory.
//!
//! Values below 2^SUB_BITS ns are counted exactly; above, each power-of-two range
//! [2^k, 2^(k+1)) is split into 2^SUB_BITS equal buckets (the layout of HdrHistogram).
//! With SUB_BITS = 7 every bucket is narrower than 1/128 of its lower edge, so a reported
//! percentile (the bucket midpoint) is within 0.4 % of the true sample value. Memory is
//! bounded: at most (64 − SUB_BITS + 1) × 2^SUB_BITS counters, whatever the run length.
//! The counters of a power-of-two range are allocated when a first value falls in it: the
//! values of one flow span a few ranges, so its counters take a few kilobytes, not 59, and
//! the counters a thousand flows touch stay close together in the caches.

use crate::engine::prefetch::prefetch;
use crate::measure::quantile::Quantile;

const SUB_BITS: u32 = 7;
const SUB_BUCKETS: usize = 1 << SUB_BITS;
const GROUPS: usize = 64 - SUB_BITS as usize + 1;

/// Memory of one histogram's counters at most, bytes.
pub const HISTOGRAM_BYTES: u64 = (GROUPS * SUB_BUCKETS * std::mem::size_of::<u64>()) as u64;

/// Streaming histogram of `u64` values (nanoseconds).
///
/// The table of ranges is held in the histogram itself, the count first, so that counting a
/// value follows one pointer (to its range's counters), not two.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Histogram {
    total: u64,
    /// Per power-of-two range, its counters once a value fell in it.
    groups: [Option<Box<[u64; SUB_BUCKETS]>>; GROUPS],
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { total: 0, groups: [const { None }; GROUPS] }
    }
}

/// Bucket index of `value`.
#[inline]
fn bucket_of(value: u64) -> usize {
    if value < SUB_BUCKETS as u64 {
        return value as usize;
    }
    let msb = 63 - value.leading_zeros(); // >= SUB_BITS
    let group = (msb - SUB_BITS + 1) as usize;
    let offset = ((value >> (msb - SUB_BITS)) as usize) & (SUB_BUCKETS - 1);
    group * SUB_BUCKETS + offset
}

/// The [low, high) range of values counted in bucket `index`.
fn bucket_range(index: usize) -> (u64, u64) {
    let group = index / SUB_BUCKETS;
    let offset = (index % SUB_BUCKETS) as u64;
    if group == 0 {
        return (offset, offset + 1);
    }
    let shift = group as u32 - 1;
    let low = (SUB_BUCKETS as u64 + offset) << shift;
    (low, low.saturating_add(1u64 << shift))
}

impl Histogram {
    /// Counts one value.
    #[inline]
    pub fn record(&mut self, value: u64) {
        let index = bucket_of(value);
        let group = self.groups[index / SUB_BUCKETS].get_or_insert_with(|| Box::new([0; SUB_BUCKETS]));
        group[index % SUB_BUCKETS] += 1;
        self.total += 1;
    }

    /// Requests the cache lines of the count and of the pointer to `value`'s counters.
    #[inline]
    pub fn prefetch_slot(&self, value: u64) {
        prefetch(&self.total);
        prefetch(&self.groups[bucket_of(value) / SUB_BUCKETS]);
    }

    /// Requests the cache line of `value`'s counter, if its range has counters.
    #[inline]
    pub fn prefetch_counter(&self, value: u64) {
        let index = bucket_of(value);
        if let Some(group) = &self.groups[index / SUB_BUCKETS] {
            prefetch(&group[index % SUB_BUCKETS]);
        }
    }

    /// Every bucket's count, in bucket order.
    fn counts(&self) -> impl Iterator<Item = u64> + '_ {
        self.groups.iter().flat_map(|group| {
            let counts: &[u64] = group.as_deref().map_or(&[0; SUB_BUCKETS], |c| c);
            counts.iter().copied()
        })
    }

    /// Number of values counted.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The `q`-quantile as the midpoint of the bucket holding the value of rank ⌈q·n⌉
    /// (nearest-rank definition, computed exactly: [`Quantile`]), or `None` when empty.
    pub fn quantile(&self, q: Quantile) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        self.at_rank(q.rank(self.total))
    }

    /// The `q`-quantiles of ascending `qs`, as [`Histogram::quantile`] gives each, in one
    /// pass over the buckets; empty when no value was counted.
    pub fn quantiles(&self, qs: &[Quantile]) -> Vec<f64> {
        if self.total == 0 {
            return Vec::new();
        }
        let mut values = Vec::with_capacity(qs.len());
        let mut wanted = qs.iter().map(|q| q.rank(self.total));
        let mut rank = wanted.next();
        let mut seen = 0;
        for (index, count) in self.counts().enumerate() {
            seen += count;
            while rank.is_some_and(|r| r <= seen) {
                let (low, high) = bucket_range(index);
                values.push((low as f64 + (high - 1) as f64) / 2.0);
                rank = wanted.next();
            }
            if rank.is_none() {
                break;
            }
        }
        values
    }

    /// The value of rank `rank` (1 = smallest) as its bucket's midpoint, or `None` when
    /// `rank` is 0 or above the count.
    pub fn at_rank(&self, rank: u64) -> Option<f64> {
        if rank == 0 || rank > self.total {
            return None;
        }
        let mut seen = 0;
        for (index, count) in self.counts().enumerate() {
            seen += count;
            if seen >= rank {
                let (low, high) = bucket_range(index);
                return Some((low as f64 + (high - 1) as f64) / 2.0);
            }
        }
        unreachable!("rank {rank} is at most the total {}", self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_in_one_pass_equal_each_quantile() {
        let mut h = Histogram::default();
        for value in (1..=5000u64).map(|v| v * v % 100_003) {
            h.record(value);
        }
        let qs: Vec<Quantile> = (0..100)
            .map(Quantile::percent)
            .chain([Quantile::new(995, 1000), Quantile::new(999, 1000), Quantile::MAX])
            .collect();
        let each: Vec<f64> = qs.iter().map(|&q| h.quantile(q).unwrap()).collect();
        assert_eq!(h.quantiles(&qs), each);
        assert!(Histogram::default().quantiles(&qs).is_empty());
    }

    #[test]
    fn buckets_tile_the_value_range() {
        // Consecutive buckets are adjacent and every value maps into its bucket's range.
        let mut expected_low = 0;
        for index in 0..(GROUPS - 1) * SUB_BUCKETS {
            let (low, high) = bucket_range(index);
            assert_eq!(low, expected_low, "bucket {index}");
            assert_eq!(bucket_of(low), index);
            assert_eq!(bucket_of(high - 1), index);
            expected_low = high;
        }
    }

    #[test]
    fn relative_error_is_bounded() {
        for value in [1u64, 127, 128, 1_000, 94_187_500, 1 << 40, u64::MAX / 3] {
            let (low, high) = bucket_range(bucket_of(value));
            let mid = (low as f64 + (high - 1) as f64) / 2.0;
            assert!((mid - value as f64).abs() <= value as f64 / 256.0 + 0.5, "{value}");
        }
    }

    /// The design notes give the layout, the error bound and the memory of this histogram,
    /// and the limits page the memory it counts; they are its constants.
    #[test]
    fn the_design_notes_figures_are_the_histograms() {
        let notes = include_str!("../../../../docs/design/decisions.md");
        let notes = notes.split_whitespace().collect::<Vec<_>>().join(" ");
        let error_pct = 100.0 / (2 * SUB_BUCKETS) as f64;
        let limits = include_str!("../../../../docs/limits.md");
        let limits = limits.split_whitespace().collect::<Vec<_>>().join(" ");
        let counted = format!("counted at their largest, {} kB", HISTOGRAM_BYTES / 1000);
        assert!(limits.contains(&counted), "docs/limits.md lacks `{counted}`");
        for figure in [
            format!("exact buckets below {SUB_BUCKETS} ns and {SUB_BUCKETS} buckets per power of two"),
            format!("its {} kB at most", HISTOGRAM_BYTES / 1000),
            format!("a reported percentile is within {error_pct:.1} % of the true value"),
        ] {
            assert!(notes.contains(&figure), "docs/design/decisions.md lacks `{figure}`");
        }
    }

    #[test]
    fn quantiles_of_a_uniform_sample() {
        let mut h = Histogram::default();
        for v in 1..=10_000u64 {
            h.record(v * 1_000);
        }
        for (percent, exact) in [(50, 5_000_000.0), (95, 9_500_000.0), (99, 9_900_000.0)] {
            let got = h.quantile(Quantile::percent(percent)).unwrap();
            assert!((got - exact).abs() / exact < 0.004, "q={percent} %: {got} vs {exact}");
        }
        assert_eq!(Histogram::default().quantile(Quantile::MEDIAN), None);
    }

    #[test]
    fn counters_are_allocated_per_range_when_first_used() {
        let mut h = Histogram::default();
        assert!(h.groups.iter().all(Option::is_none));
        for value in 40_000_000..40_001_000u64 {
            h.record(value);
        }
        // 40 ms lies in [2^25, 2^26): one range of 128 counters.
        assert_eq!(h.groups.iter().filter(|g| g.is_some()).count(), 1);
        assert_eq!(h.counts().count(), GROUPS * SUB_BUCKETS);
        assert_eq!(h.counts().sum::<u64>(), 1000);
        assert_eq!(h.quantile(Quantile::MEDIAN), h.at_rank(500));
    }
}
