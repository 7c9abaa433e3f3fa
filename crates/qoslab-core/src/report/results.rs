//! The tables a run returns: one row per flow, per class of every discipline, per port, and
//! the run's totals. Rows are flat records whose column names carry their units
//! (`_ms`, `_bps`, `_pct`, `_packets`, `_bytes`); `docs/results.md` documents each column.
//! Serialized with a fixed field order, so equal runs give byte-identical JSON.

use super::columns::TableColumns;
use super::results_apps::{app_records, spurt_records, user_records, AppRecord, SpurtRecord, UserRecord};
use super::results_distribution::{delay_distribution_records, DelayQuantileRecord};
use super::results_flows::{flow_records, hop_records, probe_records, FlowRecord, HopRecord, ProbeRecord};
use super::results_ports::{
    change_records, class_records, class_series, port_records, ChangeRecord, ClassRecord, ClassSeriesRecord,
    PortRecord,
};
use super::results_quality::{
    contract_records, series_records, voice_records, ContractRecord, DqIntervalRecord, SeriesRecord,
    VoiceRecord, VoiceSpurtRecord,
};
use super::schema::{record, table_columns};
use crate::sim::{Input, RunError, Simulation, Snapshot};
use serde::Serialize;
use std::io::Write as _;

record! {
    /// Run-wide facts and totals (all packets, warm-up included).
    pub struct RunRecord {
        /// Scenario name.
        #[unit = ""]
        pub scenario: String,
        /// Master seed used.
        #[unit = ""]
        pub seed: u64,
        /// Replication number.
        #[unit = ""]
        pub replication: u64,
        /// SHA-256 of the effective scenario and the files its build read, 64 hex digits.
        #[unit = ""]
        pub scenario_sha256: String,
        /// The overrides applied, `key.path=value` as given, in order.
        #[unit = ""]
        pub overrides: Vec<String>,
        /// The variant run; empty for the scenario as written.
        #[unit = ""]
        pub variant: Option<String>,
        /// Length of the measured window.
        #[unit = "s"]
        pub duration_s: f64,
        /// Length of the warm-up.
        #[unit = "s"]
        pub warmup_s: f64,
        /// Events processed in the whole run.
        #[unit = "events"]
        pub events: u64,
        /// 64-bit random outputs drawn in the run (0: every replication gives the same results).
        #[unit = "draws"]
        pub random_draws: u64,
        /// Frame transmissions completed on all links.
        #[unit = "frames"]
        pub packet_hops: u64,
        /// Packets created by all sources.
        #[unit = "packets"]
        pub created_packets: u64,
        /// Packets that reached their destination.
        #[unit = "packets"]
        pub delivered_packets: u64,
        /// Packets dropped anywhere.
        #[unit = "packets"]
        pub dropped_packets: u64,
        /// Packets still in the network at the end: created − delivered − dropped.
        #[unit = "packets"]
        pub in_flight_packets: u64,
        /// Version of qoslab that produced the results.
        #[unit = ""]
        pub qoslab_version: &'static str,
        /// What the scenario's inputs hold that qoslab does not model, one sentence each.
        #[unit = ""]
        pub notes: Vec<String>,
        /// The applications in the order they should fail, first to fail first.
        #[unit = ""]
        pub order_of_failure: Vec<String>,
    }
}

/// Everything a run returns.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Run facts and totals.
    pub run: RunRecord,
    /// One row per flow.
    pub flows: Vec<FlowRecord>,
    /// One row per class of every port's discipline.
    pub classes: Vec<ClassRecord>,
    /// One row per egress port.
    pub ports: Vec<PortRecord>,
    /// One row per application.
    pub apps: Vec<AppRecord>,
    /// One row per user of every application.
    pub users: Vec<UserRecord>,
    /// One row per flow with `echo`.
    pub probes: Vec<ProbeRecord>,
    /// One row per talk spurt of every push-to-talk application.
    pub spurts: Vec<SpurtRecord>,
    /// One row per flow crossing each observed hop.
    pub hops: Vec<HopRecord>,
    /// One row per replacement of an interface's discipline during the run.
    pub changes: Vec<ChangeRecord>,
    /// One row per application, observation point and ΔQ interval length, and the totals.
    pub contracts: Vec<ContractRecord>,
    /// One row per ΔQ interval (when `measure.interval_table` asks for them).
    pub dq_intervals: Vec<DqIntervalRecord>,
    /// One row per voice flow.
    pub voice: Vec<VoiceRecord>,
    /// One row per talk spurt of every voice flow.
    pub voice_spurts: Vec<VoiceSpurtRecord>,
    /// One row per flow and interval (when `measure.series` asks for them).
    pub series: Vec<SeriesRecord>,
    /// One row per class of every port's discipline and interval (when `measure.series`
    /// asks for them).
    pub class_series: Vec<ClassSeriesRecord>,
    /// One row per flow that received packets and quantile of its one-way delay.
    pub delay_distribution: Vec<DelayQuantileRecord>,
    /// Not a table: the texts the run read — the scenario, then each IOS configuration
    /// file — as read, so that what is shown of a run is what it used.
    pub inputs: Vec<Input>,
}

impl Results {
    /// Pretty JSON; byte-identical for equal runs.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialize")
    }

    /// [`Results::to_json`]'s bytes written to `out` as they are made, without holding the
    /// whole text (a run with many flows makes about 10 kB of it per flow).
    pub fn write_json<W: std::io::Write>(&self, out: W) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(out);
        serde_json::to_writer_pretty(&mut out, self).map_err(std::io::Error::other)?;
        out.flush()
    }

    /// Every table but `run` as columns, in the document's order
    /// ([`super::tables::table_schemas`]).
    pub fn to_columns(&self) -> Vec<TableColumns> {
        vec![
            table_columns("flows", &self.flows),
            table_columns("classes", &self.classes),
            table_columns("ports", &self.ports),
            table_columns("apps", &self.apps),
            table_columns("users", &self.users),
            table_columns("probes", &self.probes),
            table_columns("spurts", &self.spurts),
            table_columns("hops", &self.hops),
            table_columns("changes", &self.changes),
            table_columns("contracts", &self.contracts),
            table_columns("dq_intervals", &self.dq_intervals),
            table_columns("voice", &self.voice),
            table_columns("voice_spurts", &self.voice_spurts),
            table_columns("series", &self.series),
            table_columns("class_series", &self.class_series),
            table_columns("delay_distribution", &self.delay_distribution),
        ]
    }

    /// What the document holds besides the tables — the `run` record and the inputs — as
    /// compact JSON: `{"run": {...}, "inputs": [...]}`.
    pub fn header_json(&self) -> String {
        #[derive(Serialize)]
        struct Header<'a> {
            run: &'a RunRecord,
            inputs: &'a [Input],
        }
        serde_json::to_string(&Header { run: &self.run, inputs: &self.inputs }).expect("results serialize")
    }
}

impl Simulation {
    /// Runs to the end, checks the invariants and returns the results.
    pub fn finish(self) -> Result<Results, RunError> {
        Ok(build_results(&self.into_snapshot()?))
    }
}

/// Builds the result tables of a finished run.
fn build_results(sim: &Snapshot) -> Results {
    let window_ns = sim.run.end.since(sim.run.warmup_end);
    let flows = flow_records(sim, window_ns);
    let probes = probe_records(sim, &flows);
    let (contracts, dq_intervals) =
        sim.observers.quality.as_ref().map_or_else(Default::default, |q| contract_records(q, window_ns));
    let (voice, voice_spurts) = voice_records(&sim.flows, &sim.observers.flows);
    let t = &sim.net.counts;
    Results {
        run: RunRecord {
            scenario: sim.run.scenario.clone(),
            seed: sim.run.seed,
            replication: sim.run.replication,
            scenario_sha256: sim.run.identity.scenario_sha256.clone(),
            overrides: sim.run.identity.overrides.clone(),
            variant: sim.run.identity.variant.clone(),
            duration_s: window_ns as f64 / 1e9,
            warmup_s: sim.run.warmup_end.as_secs_f64(),
            events: sim.events,
            random_draws: sim.random_draws,
            packet_hops: t.packet_hops,
            created_packets: t.created,
            delivered_packets: t.delivered,
            dropped_packets: t.dropped,
            in_flight_packets: t.created - t.delivered - t.dropped,
            qoslab_version: env!("CARGO_PKG_VERSION"),
            notes: sim.run.notes.clone(),
            order_of_failure: sim.run.order_of_failure.clone(),
        },
        flows,
        classes: class_records(sim),
        ports: port_records(sim, window_ns),
        apps: app_records(sim, window_ns),
        users: user_records(sim, window_ns),
        probes,
        spurts: spurt_records(sim),
        hops: hop_records(sim),
        changes: change_records(sim),
        contracts,
        dq_intervals,
        voice,
        voice_spurts,
        series: series_records(&sim.flows, &sim.observers.flows, sim.observers.quality.as_deref()),
        class_series: class_series(sim),
        delay_distribution: delay_distribution_records(
            sim.flows.iter().map(|info| info.name.as_str()),
            &sim.observers.flows,
        ),
        inputs: sim.run.inputs.clone(),
    }
}
