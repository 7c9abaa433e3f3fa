//! Seeded random streams: one independent stream per traffic source.
//!
//! Each stream is keyed on (master seed, replication, source name): the name is hashed with
//! 64-bit FNV-1a, the three words are mixed with SplitMix64 into the 256-bit state of a
//! xoshiro256++ generator (Blackman & Vigna, "Scrambled linear pseudorandom number
//! generators", 2021). Keying on the *name* rather than on a position means adding or
//! reordering flows does not change the random draws of the others, and replications of the
//! same scenario differ only through the replication word.
//!
//! The generator is implemented here rather than taken from a crate so that the stream is
//! fixed by this file alone: a dependency upgrade can never change published results.
//!
//! Each stream counts the 64-bit outputs it has produced, so a run can report how many
//! random numbers it drew (`random_draws` in the results).

/// FNV-1a over bytes (64-bit offset basis and prime from the FNV reference).
#[inline]
pub fn fnv1a_64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= b as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// One SplitMix64 step: advances `state` and returns a well-mixed word.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A xoshiro256++ stream.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
    /// 64-bit outputs produced since the stream was created or last taken.
    draws: u64,
}

impl Rng {
    /// The stream of source `name` in replication `replication` of a run seeded `seed`.
    pub fn for_stream(seed: u64, replication: u64, name: &str) -> Self {
        Self::from_seed_words(seed ^ fnv1a_64(name.as_bytes()).rotate_left(17), replication)
    }

    /// A stream from two words (used directly by tests).
    pub fn from_seed_words(a: u64, b: u64) -> Self {
        let mut sm = a ^ splitmix64(&mut b.clone());
        let mut s = [0u64; 4];
        for word in &mut s {
            *word = splitmix64(&mut sm);
        }
        // xoshiro's state must not be all zero; SplitMix64 output makes that practically
        // impossible, but guard it so the generator can never get stuck.
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s, draws: 0 }
    }

    /// 64-bit outputs drawn since the stream was created (or since [`Rng::take_draws`]).
    pub fn draws(&self) -> u64 {
        self.draws
    }

    /// The outputs drawn so far, restarting the count at zero.
    pub fn take_draws(&mut self) -> u64 {
        std::mem::take(&mut self.draws)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.draws += 1;
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [low, high] (inclusive), without modulo bias (Lemire's method with
    /// rejection).
    pub fn uniform_u64(&mut self, low: u64, high: u64) -> u64 {
        debug_assert!(low <= high);
        let span = high - low;
        if span == u64::MAX {
            return self.next_u64();
        }
        let range = span + 1;
        let threshold = range.wrapping_neg() % range;
        loop {
            let product = self.next_u64() as u128 * range as u128;
            if (product as u64) >= threshold {
                return low + (product >> 64) as u64;
            }
        }
    }

    /// Exponentially distributed integer with the given mean (inversion: −mean·ln(1 − U)),
    /// rounded to the nearest integer.
    pub fn exponential_u64(&mut self, mean: u64) -> u64 {
        let u = self.next_f64();
        let x = -(mean as f64) * (1.0 - u).ln();
        x.round().min(u64::MAX as f64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let draw = |seed, rep, name| {
            let mut r = Rng::for_stream(seed, rep, name);
            (0..4).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(1, 0, "voice"), draw(1, 0, "voice"));
        assert_ne!(draw(1, 0, "voice"), draw(2, 0, "voice"));
        assert_ne!(draw(1, 0, "voice"), draw(1, 1, "voice"));
        assert_ne!(draw(1, 0, "voice"), draw(1, 0, "video"));
    }

    #[test]
    fn uniform_mean_and_bounds() {
        let mut r = Rng::from_seed_words(3, 4);
        let n = 200_000;
        let mut sum = 0u64;
        for _ in 0..n {
            let x = r.uniform_u64(10, 20);
            assert!((10..=20).contains(&x));
            sum += x;
        }
        // Mean 15, sd of the mean = sqrt(10)/sqrt(n) ≈ 0.007: 0.05 is > 7 sd.
        let mean = sum as f64 / n as f64;
        assert!((mean - 15.0).abs() < 0.05, "{mean}");
    }

    #[test]
    fn exponential_mean() {
        let mut r = Rng::from_seed_words(5, 6);
        let n = 200_000;
        let total: u64 = (0..n).map(|_| r.exponential_u64(1_000_000)).sum();
        // Mean 1e6, sd of the mean = 1e6/sqrt(n) ≈ 2236: 1 % (1e4) is > 4 sd.
        let mean = total as f64 / n as f64;
        assert!((mean - 1e6).abs() < 1e4, "{mean}");
    }

    /// Every output counts once: `next_f64` and `exponential_u64` take one, `uniform_u64`
    /// one unless Lemire's method rejects (for a span of 3 the rejection chance is
    /// 2⁶⁴ mod 3 / 2⁶⁴, about 5·10⁻²⁰, so never here).
    #[test]
    fn draws_are_counted() {
        let mut r = Rng::from_seed_words(1, 2);
        assert_eq!(r.draws(), 0);
        r.next_u64();
        r.next_f64();
        r.exponential_u64(10);
        for _ in 0..7 {
            r.uniform_u64(0, 2);
        }
        assert_eq!(r.draws(), 10);
        assert_eq!(r.take_draws(), 10);
        assert_eq!(r.draws(), 0);
        r.uniform_u64(0, u64::MAX);
        assert_eq!(r.draws(), 1);
    }

    #[test]
    fn f64_in_unit_interval() {
        let mut r = Rng::from_seed_words(9, 9);
        for _ in 0..10_000 {
            let x = r.next_f64();
            assert!((0.0..1.0).contains(&x));
        }
    }
}
