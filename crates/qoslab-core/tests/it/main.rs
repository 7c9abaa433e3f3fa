//! Integration tests of qoslab-core: one test binary, modules by topic.

mod analytical;
mod apps;
mod bad_inputs;
mod cbq;
mod cbwfq;
mod common;
mod conditioning;
mod custom;
mod defaults;
mod determinism;
mod example;
mod hops;
mod lfi;
mod linux_qdiscs;
mod mdrr;
mod probes;
mod ptt;
mod rate_changes;
mod reconfiguration;
mod red;
mod shaping;
mod study_traffic;
mod tcp;
mod traffic;
mod tunnels;
mod wfq;
