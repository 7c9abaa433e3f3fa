//! The flagship example behaves as the README says.

use crate::common::{flow, run_yaml};

const EXAMPLE: &str = include_str!("../../../../examples/voice-vs-flood.yaml");

#[test]
fn fifo_hurts_voice_and_pq_protects_it() {
    let fifo = run_yaml(EXAMPLE, &[]);
    let pq = run_yaml(EXAMPLE, &["interfaces.r1->r2.output=pq"]);
    println!("{}", fifo.to_json());
    let v = flow(&fifo, "voice");
    println!("FIFO voice loss {:?} delay {:?}", v.loss_pct, v.delay_mean_ms);
    let v = flow(&pq, "voice");
    println!("PQ voice loss {:?} delay {:?} max {:?}", v.loss_pct, v.delay_mean_ms, v.delay_max_ms);
}
