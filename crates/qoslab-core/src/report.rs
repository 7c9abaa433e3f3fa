//! The result tables of a finished run: the flow, port, class, application and quality rows,
//! built from the snapshot a [`crate::sim::Simulation`] leaves when it finishes.

pub mod columns;
mod convert;
pub mod results;
pub mod results_apps;
pub mod results_distribution;
pub mod results_flows;
pub mod results_ports;
pub mod results_quality;
pub mod schema;
pub mod tables;

pub use results::Results;
