//! What an application's users experienced, accumulated as the run goes: transfers started
//! and completed, completion times, and the bytes delivered to the receiving application —
//! for the application as a whole and for each of its users.
//!
//! Completion times go into a log-linear histogram (constant memory whatever the number of
//! transfers); a transfer counts when it starts inside the measured window (as packets
//! count when they are created in it), so no more transfers complete than start. Goodput is
//! the in-order payload delivered to the receiving application during the window, so
//! retransmissions and headers never count. Fairness between users is Jain's index of their
//! delivered bytes, (Σx)² / (n·Σx²) (Jain, Chiu & Hawe, DEC-TR-301, 1984).

use crate::measure::histogram::Histogram;
use crate::measure::quantile::Quantile;
use crate::time::SimTime;

/// Streaming statistics of one application.
#[derive(Clone, Debug, Default)]
pub struct AppStats {
    /// Transfers (connections) started in the window.
    pub started: u64,
    /// Of those, transfers completed by the end of the run.
    pub completed: u64,
    completion_sum_ns: u128,
    completion: Histogram,
    /// Payload bytes delivered in order to the receiving application in the window.
    pub delivered_bytes: u64,
    /// Per user.
    pub users: Vec<UserStats>,
}

/// What one user of an application experienced in the window.
#[derive(Clone, Debug, Default)]
pub struct UserStats {
    /// Transfers completed.
    pub completed: u64,
    completion_sum_ns: u128,
    /// Payload bytes delivered in order to the receiving application.
    pub delivered_bytes: u64,
}

impl UserStats {
    /// Mean completion time, ns.
    pub fn completion_mean_ns(&self) -> Option<f64> {
        (self.completed > 0).then(|| self.completion_sum_ns as f64 / self.completed as f64)
    }
}

impl AppStats {
    /// Statistics of an application with `users` users.
    pub fn new(users: u32) -> Self {
        AppStats { users: vec![UserStats::default(); users as usize], ..AppStats::default() }
    }

    /// A transfer started at `now`.
    pub fn on_start(&mut self, now: SimTime, warmup_end: SimTime) {
        self.started += (now >= warmup_end) as u64;
    }

    /// A transfer of `user` started at `start` completed at `now`.
    pub fn on_complete(&mut self, user: u32, start: SimTime, now: SimTime, warmup_end: SimTime) {
        if start >= warmup_end {
            let took_ns = now.since(start);
            self.completed += 1;
            self.completion_sum_ns += took_ns as u128;
            self.completion.record(took_ns);
            let user = &mut self.users[user as usize];
            user.completed += 1;
            user.completion_sum_ns += took_ns as u128;
        }
    }

    /// `bytes` more were delivered to `user` at `now`.
    pub fn on_delivered(&mut self, user: u32, bytes: u64, now: SimTime, warmup_end: SimTime) {
        if now >= warmup_end {
            self.delivered_bytes += bytes;
            self.users[user as usize].delivered_bytes += bytes;
        }
    }

    /// Mean completion time, ns.
    pub fn completion_mean_ns(&self) -> Option<f64> {
        (self.completed > 0).then(|| self.completion_sum_ns as f64 / self.completed as f64)
    }

    /// Completion-time quantile `q`, ns.
    pub fn completion_quantile_ns(&self, q: Quantile) -> Option<f64> {
        self.completion.quantile(q)
    }

    /// Jain's fairness index of the users' delivered bytes; `None` when nothing was
    /// delivered. 1 when all users got the same, 1/n when one user got everything.
    pub fn jain_index(&self) -> Option<f64> {
        let sum: f64 = self.users.iter().map(|u| u.delivered_bytes as f64).sum();
        let squares: f64 = self.users.iter().map(|u| (u.delivered_bytes as f64).powi(2)).sum();
        (squares > 0.0).then(|| sum * sum / (self.users.len() as f64 * squares))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_is_one_for_equal_users_and_one_over_n_for_a_single_winner() {
        let end = SimTime(10);
        let mut stats = AppStats::new(4);
        assert_eq!(stats.jain_index(), None);
        for user in 0..4 {
            stats.on_delivered(user, 1000, end, SimTime::ZERO);
        }
        assert!((stats.jain_index().unwrap() - 1.0).abs() < 1e-12);
        let mut one = AppStats::new(4);
        one.on_delivered(2, 1000, end, SimTime::ZERO);
        assert!((one.jain_index().unwrap() - 0.25).abs() < 1e-12);
        // (1+2+3+4)² / (4 · 30) = 100 / 120.
        let mut mixed = AppStats::new(4);
        for user in 0..4 {
            mixed.on_delivered(user, 1000 * (user as u64 + 1), end, SimTime::ZERO);
        }
        assert!((mixed.jain_index().unwrap() - 100.0 / 120.0).abs() < 1e-12);
    }

    #[test]
    fn only_the_window_counts() {
        let warmup_end = SimTime(100);
        let mut stats = AppStats::new(1);
        stats.on_start(SimTime(50), warmup_end);
        stats.on_delivered(0, 10, SimTime(99), warmup_end);
        stats.on_complete(0, SimTime(50), SimTime(99), warmup_end);
        assert_eq!((stats.started, stats.completed, stats.delivered_bytes), (0, 0, 0));
        // Bytes delivered in the window count; a transfer started in the warm-up does not,
        // even when it completes in the window, so no more complete than start.
        stats.on_delivered(0, 10, SimTime(100), warmup_end);
        stats.on_complete(0, SimTime(50), SimTime(150), warmup_end);
        assert_eq!((stats.completed, stats.delivered_bytes), (0, 10));
        stats.on_start(SimTime(120), warmup_end);
        stats.on_complete(0, SimTime(120), SimTime(220), warmup_end);
        assert_eq!((stats.started, stats.completed), (1, 1));
        assert_eq!(stats.users[0].completion_mean_ns(), Some(100.0));
    }
}
