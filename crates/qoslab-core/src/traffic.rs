//! Traffic: open-loop sources (CBR, codec presets, floods, Poisson, ON-OFF, video, traces,
//! ramps and the studies' presets), the flows that carry them, and the send-timing jitter
//! of their senders.

pub mod codec;
pub mod distribution;
pub mod frames;
pub mod generator;
pub mod pattern;
pub mod phase;
pub mod presets;
pub mod ramp;
pub mod send_jitter;
pub mod size_dist;
pub mod source;
pub mod trace;
pub mod video;

pub use phase::{Period, Phase};
pub use source::Source;
