//! The result tables of a finished run: the flow, port, class, application and quality rows,
//! built from the snapshot a [`crate::sim::Simulation`] leaves when it finishes.

pub mod results;
pub mod results_distribution;
pub mod results_quality;
pub mod schema;

pub use results::Results;
