//! From a deserialized scenario to a runnable [`Simulation`]: every cross-reference and
//! value the types cannot check is checked here, each problem reported at its key path.
//!
//! The build runs in stages, each taking what the one before built: run control →
//! topology (nodes, links → ports, `build_topology`) → interfaces (disciplines, input
//! policies, fragmentation, schedules, `build_interfaces`) → routes and tunnels
//! (`build_routes`) → flows and applications (`build_flows`) → measurement
//! (`build_measure`, `build_trace`) → the simulation. The
//! first problem found is reported, so the order of the stages and of the checks within
//! them decides which of several problems a scenario is told about.

use super::build_flow_tunnels::check_tunnel_flows;
use super::build_flows::{flows, Context};
use super::build_interfaces::{check_policies, interfaces};
use super::build_measure::{measurement, Observed};
use super::build_routes::routes;
use super::build_topology::{links, nodes};
use super::build_trace::trace_setup;
use super::limits::{check_structures, Limits};
use super::spec::ScenarioSpec;
use crate::config::error::Issue;
use crate::ids::{PortId, Table};
use crate::measure::trace::Trace;
use crate::measure::Observers;
use crate::net::network::Network;
use crate::net::pcap::MAX_FRAME_HEADER_BYTES;
use crate::net::port::Port;
use crate::net::tunnel::Tunnels;
use crate::sim::{Parts, RunIdentity, RunInfo, Simulation};
use crate::time::{SimTime, NS_PER_S};
use std::path::Path;

/// Builds a simulation from `spec`; `seed` replaces the scenario's seed when given. A
/// scenario that would need more memory or events than `limits` allow is refused.
pub fn build(
    spec: &ScenarioSpec,
    seed: Option<u64>,
    base_dir: &Path,
    limits: &Limits,
) -> Result<Simulation, Issue> {
    let structures_bytes = check_structures(spec, limits)?;
    let mut run = run_info(spec, seed)?;
    let gap_threshold_ns = spec.run.jitter_gap_threshold.map_or(NS_PER_S, |d| d.0);
    let nodes = nodes(spec)?;
    check_policies(spec, &nodes)?;
    let topology = links(spec, nodes, base_dir)?;
    let interfaces = interfaces(spec, topology, &run, base_dir)?;
    let routes = routes(spec, &interfaces)?;
    let cx =
        Context { spec, interfaces: &interfaces, routes: &routes, run: &run, gap_threshold_ns, base_dir };
    let traffic = flows(&cx)?;
    let measure = &spec.measure;
    let observed =
        Observed { points: &interfaces.points, ports: &interfaces.ports, hops: interfaces.observed_hops };
    let measured =
        measurement(measure, &spec.traffic, observed, &traffic.flows, traffic.flow_stats, gap_threshold_ns)?;
    check_tunnel_flows(spec)?;
    traffic.work.check(limits)?;
    let mut capture = interfaces.capture;
    let estimated = traffic.work.capture_bytes(&capture.ports, capture.snap_bytes, MAX_FRAME_HEADER_BYTES);
    capture.estimated_bytes = (estimated.ceil() as u64).min(capture.max_bytes);
    let ports: Table<PortId, Port> = interfaces
        .ports
        .into_iter_enumerated()
        .map(|(index, setup)| Port::new(index, setup, measured.class_series_ns))
        .collect();
    let trace = match &measure.trace {
        Some(trace_spec) => {
            Some(Box::new(Trace::new(trace_setup(trace_spec, &ports, &traffic.flows, &spec.traffic)?)))
        }
        None => None,
    };
    run.notes = interfaces.notes;
    run.notes.extend(measured.notes);
    let tunnels = Tunnels::new(routes.tunnels, traffic.crossings);
    let network = Network::new(interfaces.nodes.list, ports, routes.table, tunnels, run.warmup_end);
    Ok(Simulation::new(Parts {
        run,
        network,
        sources: traffic.sources,
        flows: traffic.flows,
        observers: Observers::new(measured.flow_stats, measured.quality, trace),
        apps: traffic.apps,
        max_packets_in_flight: limits.max_packets_in_flight(structures_bytes),
        capture,
        estimated_events: traffic.work.events.ceil() as u64,
    }))
}

/// The run control of `spec`: its name, seed (`seed` when given), replication, warm-up
/// and end.
fn run_info(spec: &ScenarioSpec, seed: Option<u64>) -> Result<RunInfo, Issue> {
    if spec.run.duration.0 == 0 {
        return Err(Issue::at("run.duration", "must be greater than zero").hint("write e.g. `60s`"));
    }
    let warmup_ns = spec.run.warmup.map_or(0, |w| w.0);
    Ok(RunInfo {
        scenario: spec.name.clone(),
        seed: seed.or(spec.run.seed).unwrap_or(1),
        replication: spec.run.replication.unwrap_or(0),
        identity: RunIdentity::default(),
        warmup_end: SimTime(warmup_ns),
        end: SimTime(warmup_ns.checked_add(spec.run.duration.0).ok_or_else(|| {
            Issue::at("run", "the warm-up and the duration add up to more than 584 years")
                .hint("simulated time is counted in nanoseconds in 64 bits: shorten them")
        })?),
        notes: Vec::new(),
        order_of_failure: spec.measure.order_of_failure.clone(),
        inputs: Vec::new(),
    })
}
