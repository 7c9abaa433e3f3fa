//! The discrete-event engine: the future event list, the seeded random streams, and the
//! hint that asks the processor for a cache line ahead of its use.
//!
//! The run loop itself lives in [`crate::sim`], which owns the network and dispatches each
//! event to it.

pub mod event_queue;
pub mod prefetch;
pub mod rng;

pub use event_queue::{Event, EventQueue};
pub use rng::Rng;
