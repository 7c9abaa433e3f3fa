//! The delay distribution of every flow: its one-way delay at fixed quantiles, read from the
//! delay histogram the flow keeps ([`crate::measure::histogram`]) in one pass.
//!
//! A quantile q is the nearest-rank one (the value of rank ⌈q·n⌉ of the n delays, definition 1
//! of Hyndman and Fan, "Sample quantiles in statistical packages", The American Statistician
//! 50(4), 1996), estimated as the midpoint of its histogram bucket — within 0.4 % — and held
//! within the exact smallest and largest delay; quantile 0 and 1 are those exact values. The
//! quantiles are every hundredth from 0 to 0.99, then 0.995, 0.999, 0.9999 and 1, so a
//! distribution drawn from them shows both the body and the tail; they are the rows of the
//! `delay_distribution` table, from which `qoslab.plot.delay_cdf` draws.

use super::convert::ms;
use super::schema::record;
use crate::ids::{FlowId, Table};
use crate::measure::flow_stats::FlowStats;
use crate::measure::quantile::Quantile;

/// The tail quantiles after the hundredths.
const TAIL_QUANTILES: [Quantile; 4] =
    [Quantile::new(995, 1000), Quantile::new(999, 1000), Quantile::new(9999, 10_000), Quantile::MAX];

record! {
    /// One quantile of one flow's one-way delay.
    pub struct DelayQuantileRecord {
        /// Flow name.
        #[unit = "", key = 1]
        pub flow: String,
        /// The quantile q, 0 to 1.
        #[unit = "", key = 2]
        pub quantile: f64,
        /// The one-way delay at that quantile.
        #[unit = "ms"]
        pub delay_ms: f64,
    }
}

/// The quantiles of every row: the hundredths from 0 to 0.99 and the tail.
pub fn quantiles() -> Vec<Quantile> {
    (0..100).map(Quantile::percent).chain(TAIL_QUANTILES).collect()
}

/// The rows of flows `names` with statistics `stats` (flows that received nothing have none).
pub fn delay_distribution_records<'a>(
    names: impl Iterator<Item = &'a str>,
    stats: &Table<FlowId, FlowStats>,
) -> Vec<DelayQuantileRecord> {
    let qs = quantiles();
    let mut rows = Vec::new();
    for (name, flow) in names.zip(stats) {
        let delays = flow.delay_quantiles_ns(&qs);
        let last = delays.len().saturating_sub(1);
        for (i, (&quantile, &delay_ns)) in qs.iter().zip(&delays).enumerate() {
            let exact = match i {
                0 => flow.delay_min_ns().map(|d| d as f64),
                _ if i == last => flow.delay_max_ns().map(|d| d as f64),
                _ => None,
            };
            rows.push(DelayQuantileRecord {
                flow: name.to_owned(),
                quantile: quantile.value(),
                delay_ms: ms(exact.unwrap_or(delay_ns)),
            });
        }
    }
    rows
}
