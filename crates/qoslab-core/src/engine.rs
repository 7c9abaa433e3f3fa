//! The discrete-event engine: the future event list, the seeded random streams, and the
//! hint that brings what an event will need into the cache.
//!
//! The run loop itself lives in [`crate::sim`], which owns the network and dispatches each
//! event to it.

pub mod event_queue;
pub mod prefetch;
pub mod rng;

pub use event_queue::{Event, EventQueue};
pub use rng::Rng;
