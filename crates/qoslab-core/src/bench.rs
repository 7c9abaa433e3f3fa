//! The benchmark scenarios, shared by `cargo bench` and `qoslab bench` so both measure the
//! same thing: simulated packets and packet-hops per wall-clock second.

/// The headline scenario (FIFO on the bottleneck) as YAML.
pub const HEADLINE_SCENARIO: &str = include_str!("../benches/headline.yaml");

/// 100 concurrent TCP connections through one bottleneck, as YAML.
pub const TCP_SCENARIO: &str = include_str!("../benches/tcp100.yaml");

/// The headline link shared by 1 to 1000 identical floods at the same total load, as YAML.
pub const FLOWS_SCENARIO: &str = include_str!("../benches/flows.yaml");

/// The cases the benchmark runs: a name, the scenario and the overrides that select the
/// variant. The `flows-N` cases differ only in how many flows carry the same load: their
/// costs per hop, side by side, show what the number of flows adds.
pub const BENCH_CASES: [(&str, &str, &[&str]); 10] = [
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
];
