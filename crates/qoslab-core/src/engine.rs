//! The discrete-event engine: the future event list and the seeded random streams.
//!
//! The run loop itself lives in [`crate::sim`], which owns the network and dispatches each
//! event to it.

pub mod event_queue;
pub mod rng;

pub use event_queue::{Event, EventQueue};
pub use rng::Rng;
