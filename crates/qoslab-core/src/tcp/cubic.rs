//! CUBIC's window growth in congestion avoidance (RFC 9438).
//!
//! After a loss at window W_max (segments) the window follows
//! W_cubic(t) = C·(t − K)³ + W_max, with C = 0.4, t the time since the avoidance epoch
//! began and K = ∛((W_max − cwnd_epoch)/C) the time to climb back to W_max (§4.2). Each ACK
//! moves the window towards the target W_cubic(t + RTT), kept within [cwnd, 1.5·cwnd], by
//! (target − cwnd)/cwnd segments per acknowledged segment (§4.4). Where a Reno flow would
//! be faster — W_cubic(t) below the estimate W_est, which grows by
//! α = 3(1 − β)/(1 + β) segments per window (1 once it passes W_max) — the window is W_est
//! (the Reno-friendly region, §4.3). On a loss W_max becomes the window, or less with fast
//! convergence when the window is already below the previous W_max (§4.7), and the
//! threshold cwnd·β with β = 0.7 (§4.6).

use crate::time::SimTime;

/// C, segments per second cubed.
pub const C: f64 = 0.4;
/// β, the multiplicative decrease factor.
pub const BETA: f64 = 0.7;

/// CUBIC's state between losses.
#[derive(Clone, Debug, Default)]
pub struct Cubic {
    w_max_segments: f64,
    epoch: Option<Epoch>,
}

/// One congestion-avoidance epoch.
#[derive(Clone, Debug)]
struct Epoch {
    start: SimTime,
    k_s: f64,
    w_est_segments: f64,
}

impl Cubic {
    /// The window after an ACK of `acked_bytes` at `now` in congestion avoidance.
    pub fn on_ack(
        &mut self,
        cwnd_bytes: u64,
        mss_bytes: u64,
        acked_bytes: u64,
        now: SimTime,
        srtt_ns: u64,
    ) -> u64 {
        let mss = mss_bytes as f64;
        let cwnd = cwnd_bytes as f64 / mss;
        let epoch = self.epoch.get_or_insert_with(|| {
            if cwnd >= self.w_max_segments {
                self.w_max_segments = cwnd;
            }
            Epoch { start: now, k_s: ((self.w_max_segments - cwnd) / C).cbrt(), w_est_segments: cwnd }
        });
        let w_max = self.w_max_segments;
        let cubic = |t_s: f64| C * (t_s - epoch.k_s).powi(3) + w_max;
        let t_s = now.since(epoch.start) as f64 / 1e9;
        let acked = acked_bytes as f64 / mss;
        let alpha = if epoch.w_est_segments >= w_max { 1.0 } else { 3.0 * (1.0 - BETA) / (1.0 + BETA) };
        epoch.w_est_segments += alpha * acked / cwnd;
        let next = if cubic(t_s) < epoch.w_est_segments {
            epoch.w_est_segments
        } else {
            let target = cubic(t_s + srtt_ns as f64 / 1e9).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * acked
        };
        ((next * mss) as u64).max(cwnd_bytes)
    }

    /// A loss at window `cwnd_bytes`: the new slow-start threshold, bytes.
    pub fn on_loss(&mut self, cwnd_bytes: u64, mss_bytes: u64) -> u64 {
        let cwnd = cwnd_bytes as f64 / mss_bytes as f64;
        self.w_max_segments = if cwnd < self.w_max_segments { cwnd * (1.0 + BETA) / 2.0 } else { cwnd };
        self.epoch = None;
        ((cwnd_bytes as f64 * BETA) as u64).max(2 * mss_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn climbs_back_to_w_max_in_k_seconds() {
        // Loss at 100 segments: threshold 70, W_max 100, K = ∛(30/0.4) = 4.217 s. With a
        // negligible RTT and frequent ACKs the window is back at W_max after about K.
        let mut cubic = Cubic::default();
        let mss = 1000;
        let ssthresh = cubic.on_loss(100_000, mss);
        assert_eq!(ssthresh, 70_000);
        let mut cwnd = ssthresh;
        let k_s = (30.0f64 / C).cbrt();
        let mut t_ns = 0u64;
        let mut at_k = 0;
        while t_ns <= 6_000_000_000 {
            cwnd = cubic.on_ack(cwnd, mss, mss, SimTime(t_ns), 1_000);
            if t_ns as f64 / 1e9 <= k_s {
                at_k = cwnd;
            }
            t_ns += 1_000_000;
        }
        assert!((at_k as f64 / 1000.0 - 100.0).abs() < 1.0, "{at_k}");
        // Past K the window keeps growing (convex region).
        assert!(cwnd > 102_000, "{cwnd}");
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut cubic = Cubic::default();
        cubic.on_loss(100_000, 1000);
        cubic.on_loss(80_000, 1000);
        assert!((cubic.w_max_segments - 68.0).abs() < 1e-9);
    }
}
