//! What an application's users experienced, accumulated as the run goes: transfers started
//! and completed, completion times, and the bytes delivered to the receiving application.
//!
//! Completion times go into a log-linear histogram (constant memory whatever the number of
//! transfers); a transfer counts when it completes inside the measured window. Goodput is
//! the in-order payload delivered to the receiving application during the window, so
//! retransmissions and headers never count.

use crate::measure::histogram::Histogram;
use crate::time::SimTime;

/// Streaming statistics of one application.
#[derive(Clone, Debug, Default)]
pub struct AppStats {
    /// Transfers (connections) started in the window.
    pub started: u64,
    /// Transfers completed in the window.
    pub completed: u64,
    completion_sum_ns: u128,
    completion: Histogram,
    /// Payload bytes delivered in order to the receiving application in the window.
    pub delivered_bytes: u64,
}

impl AppStats {
    /// A transfer started at `now`.
    pub fn on_start(&mut self, now: SimTime, warmup_end: SimTime) {
        self.started += (now >= warmup_end) as u64;
    }

    /// A transfer started at `start` completed at `now`.
    pub fn on_complete(&mut self, start: SimTime, now: SimTime, warmup_end: SimTime) {
        if now >= warmup_end {
            let took_ns = now.since(start);
            self.completed += 1;
            self.completion_sum_ns += took_ns as u128;
            self.completion.record(took_ns);
        }
    }

    /// `bytes` more were delivered at `now`.
    pub fn on_delivered(&mut self, bytes: u64, now: SimTime, warmup_end: SimTime) {
        if now >= warmup_end {
            self.delivered_bytes += bytes;
        }
    }

    /// Mean completion time, ns.
    pub fn completion_mean_ns(&self) -> Option<f64> {
        (self.completed > 0).then(|| self.completion_sum_ns as f64 / self.completed as f64)
    }

    /// Completion-time quantile `q`, ns.
    pub fn completion_quantile_ns(&self, q: f64) -> Option<f64> {
        self.completion.quantile(q)
    }
}
