//! Measurement: streaming statistics per flow, per queue and per port, and the tables a run
//! returns.

pub mod class_series;
pub mod dq;
pub mod drops;
pub mod emodel;
pub mod flow_stats;
pub mod histogram;
pub mod hop_stats;
pub mod ipdv;
pub mod jitter;
pub mod observers;
pub mod pcap;
pub mod playout;
pub mod quality;
pub mod queue_stats;
pub mod results;
pub mod results_distribution;
pub mod results_quality;
pub mod series;
pub mod spec;
pub mod trace;
pub mod voice;
pub mod wire_headers;

pub use drops::{DropCounters, DropReason};
pub use flow_stats::FlowStats;
pub use observers::Observers;
pub use queue_stats::QueueStats;
pub use results::Results;
