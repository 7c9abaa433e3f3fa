//! Measurement: streaming statistics per flow, per queue and per port, and the tables a run
//! returns.

pub mod drops;
pub mod emodel;
pub mod flow_stats;
pub mod histogram;
pub mod hop_stats;
pub mod jitter;
pub mod playout;
pub mod queue_stats;
pub mod results;

pub use drops::{DropCounters, DropReason};
pub use flow_stats::FlowStats;
pub use queue_stats::QueueStats;
pub use results::Results;
