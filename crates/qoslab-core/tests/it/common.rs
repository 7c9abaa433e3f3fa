//! Helpers shared by the integration tests.

use qoslab_core::{load, Override, Results};

/// Runs a scenario written as YAML text, with `key=value` overrides.
pub fn run_yaml(text: &str, overrides: &[&str]) -> Results {
    let overrides: Vec<Override> = overrides.iter().map(|o| Override::parse(o).unwrap()).collect();
    let sim = load(text, "<test>", &overrides, None).unwrap_or_else(|e| panic!("{e}"));
    sim.finish().unwrap_or_else(|e| panic!("{e}"))
}

/// Checks that `text`, loaded as `case.yaml`, is refused with the error a user must see: at
/// `key_path`, at `line` of the file when one is given, and with each of `fragments` in the
/// message as printed. `case` names the case in a failure.
pub fn assert_refused(case: &str, text: &str, key_path: &str, line: Option<usize>, fragments: &[&str]) {
    let Err(error) = load(text, "case.yaml", &[], None) else {
        panic!("{case}: the scenario was accepted");
    };
    let shown = error.to_string();
    assert_eq!(error.key_path, key_path, "{case}: {shown}");
    if let Some(line) = line {
        assert_eq!(error.position.map(|p| p.line), Some(line), "{case}: {shown}");
        assert!(shown.starts_with(&format!("case.yaml:{line}:")), "{case}: {shown}");
    }
    for fragment in fragments {
        assert!(shown.contains(fragment), "{case}: `{fragment}` not in: {shown}");
    }
}

/// A scenario of two hosts, `tx` and `rx`, joined by one link (`link`: the link's keys),
/// with `policy` on `tx`'s output and the `flows` list; `run` is the run mapping.
pub fn two_hosts(run: &str, link: &str, policy: &str, flows: &str) -> String {
    format!(
        "name: two-hosts
run: {{{run}}}
topology:
  nodes: {{tx: {{kind: host}}, rx: {{kind: host}}}}
  links: [{{between: [tx, rx], {link}}}]
interfaces:
  tx: {{rx: {{output: {policy}}}}}
traffic:
{flows}"
    )
}

/// The flow row called `name`.
pub fn flow<'a>(results: &'a Results, name: &str) -> &'a qoslab_core::results::FlowRecord {
    results.flows.iter().find(|f| f.flow == name).unwrap_or_else(|| panic!("no flow {name}"))
}

/// The results as JSON without `run.scenario_sha256` and the texts the run read
/// (`inputs`), for comparing the results of two scenarios written differently that must
/// run the same.
pub fn json_without_identity(results: &Results) -> String {
    let mut json: serde_json::Value = serde_json::from_str(&results.to_json()).unwrap();
    json["run"].as_object_mut().unwrap().remove("scenario_sha256");
    json.as_object_mut().unwrap().remove("inputs");
    json.to_string()
}

/// One packet delivered at its destination, from the per-packet trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Its flow row.
    pub flow: String,
    /// When its source created it (sent it), ns.
    pub created_ns: u64,
    /// When it reached its destination, ns.
    pub arrived_ns: u64,
}

/// Runs a scenario written as YAML text with a per-packet trace, and returns the packets
/// created in the measured window that were delivered, in the order they arrived, with the
/// results.
pub fn run_with_deliveries(text: &str) -> (Vec<Delivery>, Results) {
    use qoslab_core::trace::TraceEvent;
    let mut sim = load(text, "<test>", &[], None).unwrap_or_else(|e| panic!("{e}"));
    sim.record_trace();
    let flows: Vec<String> = sim.flow_names().iter().map(|s| s.to_string()).collect();
    let mut deliveries = Vec::new();
    let mut take = |chunk: &qoslab_core::trace::TraceChunk| {
        for i in 0..chunk.rows() {
            if chunk.event.get(i) == TraceEvent::Delivery as u8 {
                let arrived_ns = chunk.time_ns.get(i);
                deliveries.push(Delivery {
                    flow: flows[chunk.flow.get(i) as usize].clone(),
                    created_ns: arrived_ns - chunk.delay_ns.get(i),
                    arrived_ns,
                });
            }
        }
    };
    let end = sim.end_ns();
    while !sim.advance_some(end, 1 << 20) {
        sim.drain_trace(false, &mut take);
    }
    sim.drain_trace(true, &mut take);
    (deliveries, sim.finish().unwrap_or_else(|e| panic!("{e}")))
}
