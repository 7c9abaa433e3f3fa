//! A receiver's playout (jitter) buffer: which voice packets arrive too late to be played,
//! and how long the played ones wait.
//!
//! The playout offset is set when the first packet of a talk spurt arrives and holds for the
//! whole spurt: every packet of the spurt is played at its creation time + the offset. A
//! packet that arrives after that instant is discarded as late, which for the listener is
//! the same as lost; one that arrives exactly at it is played. The offset is the buffer's
//! share of the mouth-to-ear delay (network delay + waiting in the buffer).
//!
//! * **Fixed**: offset = the spurt's first packet's network delay + a fixed buffer.
//! * **Adaptive** (Ramjee, Kurose, Towsley, Schulzrinne, "Adaptive playout mechanisms for
//!   packetized audio applications in wide-area networks", INFOCOM 1994, algorithm 1): every
//!   arrival updates an estimate of the delay, d ← α d + (1 − α) n, and of its variation,
//!   v ← α v + (1 − α) |d − n|, with α = 0.998002; a spurt's offset is d + 4 v, never less
//!   than the delay of the packet that opens it (which is always played). The estimates
//!   start at the first packet's delay with no variation.

/// Smoothing factor of the adaptive estimates.
const ALPHA: f64 = 0.998002;
/// Variations of margin in the adaptive offset.
const BETA: f64 = 4.0;

/// How the playout offset of a spurt is chosen.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum PlayoutPolicy {
    /// First packet's delay + this buffer, ns.
    Fixed { buffer_ns: u64 },
    /// Delay estimate + 4 variation estimates.
    Adaptive,
}

/// The playout state of one voice stream.
#[derive(Clone, Debug)]
pub struct Playout {
    policy: PlayoutPolicy,
    /// The current spurt's offset.
    offset_ns: Option<u64>,
    /// Adaptive estimates of the network delay and its variation, ns.
    delay_estimate_ns: Option<f64>,
    variation_estimate_ns: f64,
}

impl Playout {
    /// A buffer following `policy`.
    pub fn new(policy: PlayoutPolicy) -> Self {
        Playout { policy, offset_ns: None, delay_estimate_ns: None, variation_estimate_ns: 0.0 }
    }

    /// A new talk spurt: the next packet sets the playout offset again.
    pub fn restart(&mut self) {
        self.offset_ns = None;
    }

    /// A packet with network delay `delay_ns` arrived; returns whether it is too late.
    pub fn on_arrival(&mut self, delay_ns: u64) -> bool {
        let n = delay_ns as f64;
        let d = match self.delay_estimate_ns {
            None => n,
            Some(d) => ALPHA * d + (1.0 - ALPHA) * n,
        };
        self.variation_estimate_ns = ALPHA * self.variation_estimate_ns + (1.0 - ALPHA) * (d - n).abs();
        self.delay_estimate_ns = Some(d);
        let offset_ns = *self.offset_ns.get_or_insert(match self.policy {
            PlayoutPolicy::Fixed { buffer_ns } => delay_ns + buffer_ns,
            PlayoutPolicy::Adaptive => ((d + BETA * self.variation_estimate_ns).round() as u64).max(delay_ns),
        });
        delay_ns > offset_ns
    }

    /// The current spurt's playout offset (network delay + buffer), ns, once a packet of it
    /// has arrived.
    pub fn playout_delay_ns(&self) -> Option<u64> {
        self.offset_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn fixed(buffer_ms: u64) -> Playout {
        Playout::new(PlayoutPolicy::Fixed { buffer_ns: buffer_ms * MS })
    }

    /// A 40 ms buffer behind a first packet of 20 ms: packets are played at 60 ms after
    /// their creation. Delays 25, 60 (exactly on time) and 45 ms are played; 61 ms is late.
    #[test]
    fn one_late_packet() {
        let mut playout = fixed(40);
        let late: Vec<bool> = [20, 25, 60, 61, 45].iter().map(|d| playout.on_arrival(d * MS)).collect();
        assert_eq!(late, [false, false, false, true, false]);
        assert_eq!(playout.playout_delay_ns(), Some(60 * MS));
    }

    /// The same trace with an 80 ms buffer loses nothing; a new spurt re-sets the offset.
    #[test]
    fn a_deeper_buffer_and_a_new_spurt() {
        let mut playout = fixed(80);
        assert!([20, 25, 60, 61, 45].iter().all(|d| !playout.on_arrival(d * MS)));
        playout.restart();
        assert!(!playout.on_arrival(5 * MS));
        assert!(playout.on_arrival(90 * MS), "85 ms after the new spurt's 5 ms first packet");
        assert_eq!(playout.playout_delay_ns(), Some(85 * MS));
    }

    /// Adaptive, by hand: delays 10 then 30 ms. After the first, d = 10 ms, v = 0, offset
    /// 10 ms, so the 30 ms packet is late. Its arrival moves d to 10 + 20(1 − α) ms and v to
    /// (1 − α)|d − 30| ms; the next spurt's first packet (10 ms) moves them once more, and
    /// the offset is d + 4 v.
    #[test]
    fn adaptive_offset_by_hand() {
        let mut playout = Playout::new(PlayoutPolicy::Adaptive);
        assert!(!playout.on_arrival(10 * MS));
        assert!(playout.on_arrival(30 * MS));
        let b = 1.0 - ALPHA;
        let mut d = 10e6 + b * 20e6;
        let mut v = b * (d - 30e6).abs();
        d = ALPHA * d + b * 10e6;
        v = ALPHA * v + b * (d - 10e6).abs();
        playout.restart();
        assert!(!playout.on_arrival(10 * MS));
        assert_eq!(playout.playout_delay_ns(), Some((d + 4.0 * v).round() as u64));
        assert!(playout.playout_delay_ns().unwrap() > 10 * MS, "the margin grew with the variation");
    }
}
