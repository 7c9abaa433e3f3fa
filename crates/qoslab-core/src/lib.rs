//! # qoslab-core
//!
//! A deterministic packet-level simulator of router queuing: what a queuing policy does to
//! voice, video and data on congested links.
//!
//! ```text
//!  scenario (YAML) ──► load ──► Simulation ──advance / finish──► Results
//!                       │ validate, locate errors   │ the run loop     │ the result tables
//!                       │ build in stages           │                  │ (schemas: results)
//! ```
//!
//! **The API.** [`load`] (or [`load_selected`], [`load_within`]) reads a scenario and builds
//! a [`Simulation`]; [`Simulation::advance`] runs it part way, [`Simulation::finish`] to the
//! end, returning [`Results`], whose tables and column schemas are in [`results`]. Errors
//! name the place: [`ScenarioError`] for input, [`RunError`] for a run that broke an
//! invariant or a guard. [`ios`] translates Cisco IOS configurations, and [`ios_from_yaml`]
//! writes a scenario's interface as one; [`trace`] holds the per-packet trace's chunks;
//! [`voice`] the G.107 E-model; [`yaml`] the reader scenarios are read with. Everything
//! else is private to the crate.
//!
//! **Layers.** The private modules form layers, each importing only from below:
//! `config` → `time`, `units`, `ids` → `engine` → `packet` → `classify` → `traffic`, `tcp` →
//! `measure` → `aqm`, `condition`, `app` → `qdisc` → `net` → `sim` → `report` → `ios` →
//! `scenario` → `bench`; the test `tests/it/layers.rs` holds the crate to it.
//!
//! **Time and units.** Simulated time is `u64` nanoseconds; rates are bit/s and sizes
//! bytes, as integers; serialization times round up. Floats appear only in statistics.
//!
//! **Ordering.** Events fire in time order; events at the same instant fire in the order
//! they were scheduled (`docs/concepts/ordering.md`). With per-source random streams keyed
//! on (seed, replication, source name), the same scenario and seed give bit-identical
//! results.
//!
//! **Invariants**, checked at the end of every run ([`Simulation::finish`]): packet
//! conservation (created = delivered + dropped + in flight, counted from the queues),
//! the backlog identity of every queue, per-flow accounting, and work conservation.

mod app;
mod aqm;
mod bench;
mod classify;
mod condition;
mod config;
mod engine;
mod ids;
pub mod ios;
mod linux;
mod measure;
mod net;
mod packet;
mod qdisc;
mod report;
mod scenario;
mod sim;
mod tcp;
mod time;
mod traffic;
mod units;

// Scenarios in: load, validate, vary, sweep.
pub use scenario::overrides::OverrideError;
pub use scenario::{
    json_schema, load, load_selected, load_within, parse_variant, sweep_plan, ErrorKind, Limits, Override,
    ScenarioError, ScenarioSpec, Selection, SweepPlan, MAX_SCENARIO_BYTES,
};

// Cisco IOS: a scenario interface written as IOS configuration (reading one: [`ios`]).
pub use linux::tc_import::import_yaml as tc_import_yaml;
pub use scenario::{interface_output, ios_from_yaml, tc_from_yaml};

// A run: advance it, capture it, finish it.
pub use net::pcap::CaptureError;
pub use sim::{RunError, Simulation, CHECK_EVERY_EVENTS};

// Results out.
pub use measure::DropReason;
pub use report::Results;

// Building blocks a caller may use on their own.
pub use bench::{bench_cases, network_scenario, BenchCase};
pub use engine::Rng;
pub use units::{parse_rate_bps, parse_size_bytes};

/// The result tables of a run, one record type per table row, and their schemas (column,
/// type, unit, description).
pub mod results {
    pub use crate::report::columns::{ColumnValues, TableColumns, Values};
    pub use crate::report::results_apps::AppRecord;
    pub use crate::report::results_flows::{FlowRecord, HopRecord, ProbeRecord};
    pub use crate::report::results_ports::{ChangeRecord, ClassRecord, PortRecord};
    pub use crate::report::results_quality::ContractRecord;
    pub use crate::report::schema::TableSchema;
    pub use crate::report::tables::table_schemas;
}

/// The per-packet trace, handed out in chunks of columns as the run goes.
pub mod trace {
    pub use crate::measure::trace::{TraceChunk, TraceEvent, NONE, NO_TCP};
}

/// Voice quality by the ITU-T G.107 E-model: the rating of a call from its delay, loss and
/// codec.
pub mod voice {
    pub use crate::measure::emodel::{call_inputs, codec_impairment, rating};
    pub use crate::traffic::codec::Codec;
}

/// The YAML reader scenarios are read with: a value and the line and column of every key.
pub mod yaml {
    pub use crate::config::yaml::{parse, PositionIndex, YamlError};
}

/// The version of this crate.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
