//! The benchmark scenarios, shared by `cargo bench` and `qoslab bench` so both measure the
//! same thing: simulated packets and packet-hops per wall-clock second.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The headline scenario (FIFO on the bottleneck) as YAML.
pub const HEADLINE_SCENARIO: &str = include_str!("../benches/headline.yaml");

/// 100 concurrent TCP connections through one bottleneck, as YAML.
pub const TCP_SCENARIO: &str = include_str!("../benches/tcp100.yaml");

/// The headline link shared by 1 to 10,000 identical floods at the same total load, as YAML.
pub const FLOWS_SCENARIO: &str = include_str!("../benches/flows.yaml");

/// One benchmark case: its name, the scenario's YAML and the overrides that select the
/// variant.
#[derive(Debug, Clone)]
pub struct BenchCase {
    /// The case's name, as `qoslab bench --case` takes it.
    pub name: &'static str,
    /// The scenario, as YAML.
    pub scenario: Cow<'static, str>,
    /// Overrides (`key=value`) applied to the scenario.
    pub overrides: &'static [&'static str],
}

/// The routers of the `network-200` case.
pub const NETWORK_ROUTERS: usize = 200;

/// The flows of the `network-200` case.
pub const NETWORK_FLOWS: usize = 4000;

/// The cases the benchmark runs. The `flows-N` cases differ only in how many flows carry the
/// same load: their costs per hop, side by side, show what the number of flows adds.
/// `network-200` is a large network ([`network_scenario`]): its cost per hop against the
/// headline's shows what the network's size adds.
pub fn bench_cases() -> Vec<BenchCase> {
    let fixed: [(&'static str, &'static str, &'static [&'static str]); 11] = [
        ("fifo", HEADLINE_SCENARIO, &[]),
        ("pq", HEADLINE_SCENARIO, &["interfaces.r1.r2.output=pq"]),
        ("wfq", HEADLINE_SCENARIO, &["interfaces.r1.r2.output=wfq"]),
        ("llq", HEADLINE_SCENARIO, &["interfaces.r1.r2.output=llq"]),
        ("wred", HEADLINE_SCENARIO, &["interfaces.r1.r2.output=wred"]),
        ("tcp100", TCP_SCENARIO, &[]),
        ("flows-1", FLOWS_SCENARIO, &[]),
        ("flows-10", FLOWS_SCENARIO, &["traffic.floods.copies=10", "traffic.floods.pattern.rate=1.5Mbps"]),
        ("flows-100", FLOWS_SCENARIO, &["traffic.floods.copies=100", "traffic.floods.pattern.rate=150kbps"]),
        ("flows-1000", FLOWS_SCENARIO, &["traffic.floods.copies=1000", "traffic.floods.pattern.rate=15kbps"]),
        (
            "flows-10000",
            FLOWS_SCENARIO,
            &["traffic.floods.copies=10000", "traffic.floods.pattern.rate=1.5kbps"],
        ),
    ];
    let mut cases: Vec<BenchCase> = fixed
        .into_iter()
        .map(|(name, scenario, overrides)| BenchCase { name, scenario: Cow::Borrowed(scenario), overrides })
        .collect();
    cases.push(BenchCase {
        name: "network-200",
        scenario: Cow::Owned(network_scenario(NETWORK_ROUTERS, NETWORK_FLOWS)),
        overrides: &[],
    });
    cases
}

/// A large network as YAML: `routers` routers, one in ten of them (at least three) a core
/// router on a 100 Mbit/s ring, each of the others an edge router hanging off a core router
/// by a 2 Mbit/s serial link, with a host behind it on Fast Ethernet. `flows` flows run from
/// edge host to edge host (the destination half the edge away, so most cross the ring); every
/// fourth is a G.711 call marked EF, the others Poisson data of 1000-byte packets at
/// 100 kbit/s. With 200 routers and 4000 flows each edge link is offered about 1.05 times its
/// rate, FIFO everywhere, 60 s: the flows' statistics, the ports and the sources spread over
/// far more memory than the headline's, for the same kinds of events.
pub fn network_scenario(routers: usize, flows: usize) -> String {
    let cores = (routers / 10).max(3);
    let edges = routers.saturating_sub(cores).max(2);
    let mut text = String::from("name: network\nrun: {duration: 60s, seed: 1}\ntopology:\n  nodes:\n");
    for c in 0..cores {
        let _ = writeln!(text, "    c{c}: {{kind: router}}");
    }
    for e in 0..edges {
        let _ = writeln!(text, "    e{e}: {{kind: router}}");
        let _ = writeln!(text, "    h{e}: {{kind: host}}");
    }
    text += "  links:\n";
    for c in 0..cores {
        let next = (c + 1) % cores;
        let _ = writeln!(text, "    - {{between: [c{c}, c{next}], rate: 100Mbps, l2: ethernet}}");
    }
    for e in 0..edges {
        let core = e % cores;
        let _ = writeln!(text, "    - {{between: [e{e}, c{core}], rate: 2Mbps, l2: hdlc}}");
        let _ = writeln!(text, "    - {{between: [h{e}, e{e}], rate: 100Mbps, l2: ethernet}}");
    }
    text += "traffic:\n";
    for f in 0..flows {
        let from = f % edges;
        let to = (from + edges / 2 + f / edges) % edges;
        let to = if to == from { (to + 1) % edges } else { to };
        if f % 4 == 0 {
            let _ = writeln!(
                text,
                "  - {{name: call-{f}, from: h{from}, to: h{to}, dscp: EF, phase: random, \
                 pattern: {{kind: codec, codec: g711}}}}"
            );
        } else {
            let _ = writeln!(
                text,
                "  - {{name: data-{f}, from: h{from}, to: h{to}, \
                 pattern: {{kind: poisson, rate: 100kbps, size: 1000B}}}}"
            );
        }
    }
    text
}
