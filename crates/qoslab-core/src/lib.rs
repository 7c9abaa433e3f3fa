//! # qoslab-core
//!
//! A deterministic packet-level simulator of router queuing: what a queuing policy does to
//! voice, video and data on congested links.
//!
//! ```text
//!  scenario (YAML) ──► scenario::load ──► Simulation ──advance/finish──► Results
//!                        │ validate, locate errors      │ engine: event list, run loop
//!                        │ build network, sources       │ net: ports (qdisc → tx ring → wire), routing
//!                                                       │ qdisc: fifo, prio ...; classify: match rules
//!                                                       │ traffic: sources; measure: streaming statistics
//! ```
//!
//! **Time and units.** Simulated time is `u64` nanoseconds ([`time::SimTime`]); rates are
//! bit/s and sizes bytes, as integers; serialization times round up. Floats appear only in
//! statistics.
//!
//! **Ordering.** Events fire in time order; events at the same instant fire in the order
//! they were scheduled ([`engine::EventQueue`]). With per-source random streams keyed on
//! (seed, replication, source name), the same scenario and seed give bit-identical results.
//!
//! **Invariants**, checked at the end of every run ([`Simulation::finish`]): packet
//! conservation (created = delivered + dropped + in flight, counted from the queues),
//! the backlog identity of every queue, per-flow accounting, and work conservation.

pub mod app;
pub mod aqm;
pub mod bench;
pub mod classify;
pub mod condition;
pub mod config;
pub mod engine;
pub mod ios;
pub mod measure;
pub mod net;
pub mod packet;
pub mod qdisc;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod units;

pub use report::Results;
pub use scenario::{
    json_schema, load, load_selected, load_within, sweep_plan, Limits, Override, ScenarioError, Selection,
};
pub use sim::{RunError, Simulation};

/// The version of this crate.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
