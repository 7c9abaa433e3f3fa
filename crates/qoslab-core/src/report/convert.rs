//! The core's counters in the tables' units.

use crate::time::NS_PER_MS;

/// `ns` in milliseconds.
pub(super) fn ms(ns: f64) -> f64 {
    ns / NS_PER_MS as f64
}

/// `bytes` over `window_ns` as bit/s (0 over an empty window).
pub(super) fn bps(bytes: u64, window_ns: u64) -> f64 {
    if window_ns == 0 {
        0.0
    } else {
        bytes as f64 * 8.0 * 1e9 / window_ns as f64
    }
}
