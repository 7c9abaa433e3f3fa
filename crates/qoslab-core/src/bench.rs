//! The headline benchmark scenario, shared by `cargo bench` and `qoslab bench` so both
//! measure the same thing: simulated packets and packet-hops per wall-clock second.

/// The headline scenario (FIFO on the bottleneck) as YAML.
pub const HEADLINE_SCENARIO: &str = include_str!("../benches/headline.yaml");

/// The variants the benchmark runs: a name and the overrides that select it.
pub const HEADLINE_VARIANTS: [(&str, &[&str]); 5] = [
    ("fifo", &[]),
    ("pq", &["interfaces.r1.r2.output=pq"]),
    ("wfq", &["interfaces.r1.r2.output=wfq"]),
    ("llq", &["interfaces.r1.r2.output=llq"]),
    ("wred", &["interfaces.r1.r2.output=wred"]),
];
