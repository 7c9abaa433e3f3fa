//! A quantile as an exact fraction, and the rank it picks among n values.
//!
//! The nearest-rank quantile q of n values is the value of rank ⌈q·n⌉ (definition 1 of
//! Hyndman and Fan, "Sample quantiles in statistical packages", The American Statistician
//! 50(4), 1996). Computed in floating point, ⌈q·n⌉ is one rank too high whenever q·n is a
//! whole number that q's binary form misses from above: 0.07 × 100 is 7.000000000000001,
//! whose ceiling is 8. A [`Quantile`] is therefore held as a fraction of whole numbers and
//! its rank computed in integers, ⌈parts·n / whole⌉, exact for every n.

/// The quantile `parts / whole`, 0 ≤ parts ≤ whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantile {
    parts: u32,
    whole: u32,
}

impl Quantile {
    /// The median.
    pub const MEDIAN: Quantile = Quantile::percent(50);
    /// The smallest value.
    pub const MIN: Quantile = Quantile::new(0, 1);
    /// The largest value.
    pub const MAX: Quantile = Quantile::new(1, 1);

    /// The quantile `parts / whole`; panics (at compile time for a constant) unless
    /// `0 < whole` and `parts ≤ whole`.
    pub const fn new(parts: u32, whole: u32) -> Quantile {
        assert!(whole > 0 && parts <= whole, "a quantile lies between 0 and 1");
        Quantile { parts, whole }
    }

    /// The quantile `percent / 100`.
    pub const fn percent(percent: u32) -> Quantile {
        Quantile::new(percent, 100)
    }

    /// The rank (1 = smallest) that this quantile picks among `n` ≥ 1 values: ⌈q·n⌉, at
    /// least 1.
    pub fn rank(self, n: u64) -> u64 {
        let (parts, whole) = (u128::from(self.parts), u128::from(self.whole));
        let rank = (parts * u128::from(n)).div_ceil(whole);
        u64::try_from(rank).expect("q·n ≤ n fits in u64").max(1)
    }

    /// The quantile as a number between 0 and 1.
    pub fn value(self) -> f64 {
        f64::from(self.parts) / f64::from(self.whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_exact_where_floating_point_is_not() {
        // 0.07 × 100 = 7.000000000000001 in binary floating point: its ceiling would be 8.
        assert!((0.07_f64 * 100.0).ceil() > 7.0);
        assert_eq!(Quantile::percent(7).rank(100), 7);
        // Every hundredth of 100 values is its own rank; 5 of them were one high in f64.
        let high: Vec<u32> =
            (0..100).filter(|&i| (f64::from(i) / 100.0 * 100.0).ceil() as u32 > i.max(1)).collect();
        assert_eq!(high, vec![7, 14, 28, 55, 56]);
        for i in 0..100 {
            assert_eq!(Quantile::percent(i).rank(100), u64::from(i.max(1)), "q = {i}/100");
        }
        // ⌈q·n⌉ rounds up a fraction of a rank, and never gives rank 0.
        assert_eq!(Quantile::percent(50).rank(3), 2);
        assert_eq!(Quantile::new(999, 1000).rank(10), 10);
        assert_eq!(Quantile::new(9999, 10000).rank(20_000), 19_998);
        assert_eq!(Quantile::MIN.rank(5), 1);
        assert_eq!(Quantile::MAX.rank(u64::MAX), u64::MAX);
        assert_eq!(Quantile::new(995, 1000).value(), 0.995);
    }
}
