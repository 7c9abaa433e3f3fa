//! Send-timing jitter of open-loop sources and of push-to-talk voice: packets leave a little
//! after the instant their schedule says.
//!
//! A voice client on a PC does not put its packets on the wire on a perfect clock: the
//! sound card, the codec and the operating system's scheduler each add a small, varying
//! delay. The lmr-voip-thesis measured its effect as a jitter floor with no background
//! traffic at all (Table 4-2: about 5.4 ms average jitter for continuous voice and about
//! 6 ms for ON-OFF voice, over an otherwise idle path); a perfectly timed source on an idle
//! path has none. `send_jitter` on a traffic entry models that irregularity.
//!
//! **Rule.** The pattern's generator keeps producing the nominal instants n₀, n₁, … exactly
//! as without jitter; the delay of one packet never moves the next one's nominal instant,
//! so the schedule does not drift and the long-run rate is unchanged. Packet k leaves at
//!
//! ```text
//! a₀ = n₀ + d₀,    a_k = max(n_k + d_k, a_{k−1})
//! ```
//!
//! where each d_k is a fresh draw of the duration distribution from the flow's own random
//! stream, made after the draws of the schedule itself. The `max` keeps the packets in
//! order: a sender's socket sends them in the order they were produced, so a packet never
//! leaves before the one before it. Since every d_k is at least 0, a packet never leaves
//! early, and it leaves at most max(d) after its nominal instant (a_k ≤ max over j ≤ k of
//! n_j + d_j ≤ n_k + max d). A packet's creation time — the time its one-way delay is
//! measured from — is its actual departure a_k: the jitter happens before the network, so
//! it changes the inter-arrival times (the deviation jitter, `jitter_avg_ms`) but not the
//! one-way delay nor the RFC 3550 estimate, which compares arrivals with send times.
//!
//! Without `send_jitter` a source draws nothing here, so its results are those of a source
//! without the option, draw for draw. Each draw is one call to
//! [`DurationDist::sample_ns`]; nothing is allocated per packet.

use super::distribution::DurationDist;
use crate::config::error::Issue;
use crate::engine::Rng;
use crate::time::SimTime;

/// The send-timing jitter of a source: the distribution of each packet's extra delay.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SendJitter(pub DurationDist);

impl SendJitter {
    /// The send jitter `dist` given at key path `at`, checked: one whose delays are all 0
    /// is refused.
    pub fn checked(dist: Option<DurationDist>, at: &str) -> Result<Option<Self>, Issue> {
        match dist {
            Some(dist) if dist.mean_ns() == 0.0 => Err(Issue::at(at, "a send jitter of 0 s delays nothing")
                .hint("remove `send_jitter`, or give a delay such as `{uniform: [0ms, 10ms]}`")),
            dist => Ok(dist.map(SendJitter)),
        }
    }

    /// When the packet due at `nominal` leaves, given that the packet before it left at
    /// `previous` (`SimTime::ZERO` for the first): `nominal` plus one draw, but not before
    /// `previous`.
    #[inline]
    pub fn departure(self, nominal: SimTime, previous: SimTime, rng: &mut Rng) -> SimTime {
        nominal.after(self.0.sample_ns(rng)).max(previous)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Packets every 20 ms delayed by up to 60 ms: departures never run backwards, never
    /// come early, never come later than the largest delay after their nominal instant, and
    /// each draws once.
    #[test]
    fn departures_are_late_by_at_most_the_largest_delay_and_in_order() {
        let jitter = SendJitter(DurationDist::Uniform(0, 60 * MS));
        let mut rng = Rng::from_seed_words(5, 0);
        let mut previous = SimTime::ZERO;
        let mut clamped = 0;
        for k in 0..10_000u64 {
            let nominal = SimTime(k * 20 * MS);
            let at = jitter.departure(nominal, previous, &mut rng);
            assert!(at >= previous && at >= nominal && at.0 <= nominal.0 + 60 * MS, "packet {k}");
            clamped += (at == previous) as u32;
            previous = at;
        }
        assert_eq!(rng.draws(), 10_000);
        // Delays up to three intervals make later packets catch up with earlier ones often.
        assert!(clamped > 1_000, "{clamped}");
    }

    /// A constant delay moves every packet by exactly that much: the schedule keeps its
    /// spacing.
    #[test]
    fn a_constant_delay_shifts_the_schedule() {
        let jitter = SendJitter(DurationDist::Constant(3 * MS));
        let mut rng = Rng::from_seed_words(5, 0);
        let mut previous = SimTime::ZERO;
        for k in 0..100u64 {
            let at = jitter.departure(SimTime(k * 20 * MS), previous, &mut rng);
            assert_eq!(at, SimTime(k * 20 * MS + 3 * MS));
            previous = at;
        }
    }
}
