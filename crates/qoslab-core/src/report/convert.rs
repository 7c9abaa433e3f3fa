//! The core's counters in the tables' units.

use crate::measure::drops::DropReason;
use crate::time::NS_PER_MS;
use serde_json::{Map, Value};

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

/// The `dropped_<reason>_packets` columns of one row, `count` giving each reason's packets.
pub(super) fn by_reason(count: impl Fn(DropReason) -> u64) -> Map<String, Value> {
    DropReason::ALL
        .iter()
        .map(|r| (format!("dropped_{}_packets", r.name()), Value::from(count(*r))))
        .collect()
}
