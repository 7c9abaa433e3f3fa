//! Measurement: streaming statistics per flow, per queue and per port, and the tables a run
//! returns.

pub mod class_series;
pub mod dq;
pub mod drops;
pub mod emodel;
pub mod flow_stats;
pub mod histogram;
pub mod hop_stats;
pub mod invariant;
pub mod ipdv;
pub mod jitter;
pub mod observers;
pub mod playout;
pub mod qdisc_ctx;
pub mod quality;
pub mod quantile;
pub mod queue_stats;
pub mod receipt;
pub mod receipts;
pub mod series;
pub mod spec;
pub mod trace;
pub mod voice;
pub mod wire_headers;

pub use drops::{DropCounters, DropReason};
pub use flow_stats::FlowStats;
pub use observers::Observers;
pub use qdisc_ctx::{Place, QdiscCtx};
pub use queue_stats::QueueStats;

/// A discipline's context with its own counters, for unit tests.
#[cfg(test)]
pub mod testing {
    use super::{FlowStats, Observers, Place, QdiscCtx, QueueStats};
    use crate::packet::SegmentStore;
    use crate::time::SimTime;

    /// Counters a discipline under test writes into.
    pub struct Harness {
        /// Per-class counters.
        pub classes: Vec<QueueStats>,
        /// Port totals.
        pub port: QueueStats,
        /// One flow.
        pub observers: Observers,
        /// Packets dropped.
        pub dropped: u64,
        /// Random outputs drawn by droppers.
        pub random_draws: u64,
        /// Segments of the packets under test.
        pub segments: SegmentStore,
    }

    /// A harness for a discipline with `classes` classes.
    pub fn harness(classes: usize) -> Harness {
        Harness {
            classes: vec![QueueStats::default(); classes],
            port: QueueStats::default(),
            observers: Observers::new(vec![FlowStats::new(0, u64::MAX)].into(), None, None),
            dropped: 0,
            random_draws: 0,
            segments: SegmentStore::new(),
        }
    }

    impl Harness {
        /// A context at time 0 on a 1 Mbit/s link.
        pub fn ctx(&mut self) -> QdiscCtx<'_> {
            QdiscCtx::new(
                Place { now: SimTime::ZERO, rate_bps: 1_000_000, port: None, ring_has_room: false },
                &mut self.classes,
                Some(&mut self.port),
                &mut self.observers,
                &mut self.dropped,
                &mut self.segments,
                &mut self.random_draws,
            )
        }
    }
}
