//! The benchmark scenarios, shared by `cargo bench` and `qoslab bench` so both measure the
//! same thing: simulated packets and packet-hops per wall-clock second.

/// The headline scenario (FIFO on the bottleneck) as YAML.
pub const HEADLINE_SCENARIO: &str = include_str!("../benches/headline.yaml");

/// 100 concurrent TCP connections through one bottleneck, as YAML.
pub const TCP_SCENARIO: &str = include_str!("../benches/tcp100.yaml");

/// The cases the benchmark runs: a name, the scenario and the overrides that select the
/// variant.
pub const BENCH_CASES: [(&str, &str, &[&str]); 6] = [
    ("fifo", HEADLINE_SCENARIO, &[]),
    ("pq", HEADLINE_SCENARIO, &["interfaces.r1.r2.output=pq"]),
    ("wfq", HEADLINE_SCENARIO, &["interfaces.r1.r2.output=wfq"]),
    ("llq", HEADLINE_SCENARIO, &["interfaces.r1.r2.output=llq"]),
    ("wred", HEADLINE_SCENARIO, &["interfaces.r1.r2.output=wred"]),
    ("tcp100", TCP_SCENARIO, &[]),
];
