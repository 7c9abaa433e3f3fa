//! Building `measure.trace`: which ports and flows the per-packet trace records, checked
//! against the scenario's names.

use super::flow_spec::belongs;
use crate::config::error::Issue;
use crate::ids::{FlowId, PortId, Table};
use crate::measure::spec::{TraceSpec, END_TO_END};
use crate::measure::trace::TraceSetup;
use crate::net::port::Port;
use crate::scenario::flow_spec::FlowSpec;
use crate::sim::{trace_of_everything, FlowInfo};

/// The trace `spec` asks for.
pub(crate) fn trace_setup(
    spec: &TraceSpec,
    ports: &Table<PortId, Port>,
    flows: &Table<FlowId, FlowInfo>,
    traffic: &[FlowSpec],
) -> Result<TraceSetup, Issue> {
    let mut setup = trace_of_everything(ports, flows);
    if let Some(max_rows) = spec.max_rows {
        if max_rows == 0 {
            return Err(Issue::at("measure.trace.max_rows", "must be greater than zero")
                .hint("write e.g. `1000000`, or remove `measure.trace` for no trace"));
        }
        setup.max_rows = max_rows;
    }
    if let Some(points) = &spec.points {
        if points.is_empty() {
            return Err(Issue::at("measure.trace.points", "no point to trace")
                .hint("name ports such as `r1->r2` and/or `end_to_end`, or leave `points` out for all"));
        }
        setup.ports.fill(false);
        setup.deliveries = false;
        for (k, name) in points.iter().enumerate() {
            let at = format!("measure.trace.points[{k}]");
            if name == END_TO_END {
                setup.deliveries = true;
                continue;
            }
            let p = ports.position(|p| p.config.name == *name).ok_or_else(|| {
                let known = std::iter::once(END_TO_END).chain(ports.iter().map(|p| p.config.name.as_str()));
                Issue::unknown_name(&at, "trace point", name, known)
            })?;
            setup.ports[p] = true;
        }
    }
    if let Some(names) = &spec.flows {
        if names.is_empty() {
            return Err(Issue::at("measure.trace.flows", "no flow to trace")
                .hint("name traffic entries or flow rows, or leave `flows` out for all"));
        }
        setup.flows.fill(false);
        for (k, name) in names.iter().enumerate() {
            let mut found = false;
            for (f, info) in flows.iter_enumerated() {
                if belongs(&info.name, name) {
                    setup.flows[f] = true;
                    found = true;
                }
            }
            if !found {
                let known =
                    traffic.iter().map(|f| f.name.as_str()).chain(flows.iter().map(|f| f.name.as_str()));
                return Err(Issue::unknown_name(format!("measure.trace.flows[{k}]"), "flow", name, known));
            }
        }
    }
    Ok(setup)
}
