//! The flagship example behaves as the README says.

use crate::common::{flow, run_yaml};

const EXAMPLE: &str = include_str!("../../../../examples/voice-vs-flood.yaml");

#[test]
fn fifo_hurts_voice() {
    let fifo = run_yaml(EXAMPLE, &[]);
    let voice = flow(&fifo, "voice");
    // 62.8 + 192.9 kbit/s of frames offered to 128 kbit/s: about half of everything is lost,
    // and voice waits behind a full 40-packet hold queue of mostly 1500-byte frames.
    assert!(voice.loss_pct.unwrap() > 40.0, "{:?}", voice.loss_pct);
    assert!(voice.delay_mean_ms.unwrap() > 1_000.0, "{:?}", voice.delay_mean_ms);
}

#[test]
fn pq_protects_voice_within_the_theoretical_bound() {
    let pq = run_yaml(EXAMPLE, &["interfaces.r1.r2.output=pq"]);
    let voice = flow(&pq, "voice");
    assert_eq!(voice.dropped_packets, 0);
    // Bound: voice frame (157 B at 128 kbit/s = 9.8125 ms) + two 1507-byte frames in the
    // 2-packet transmit ring (2 × 94.1875 ms) + 1 ms propagation + two 100 Mbit/s Ethernet
    // hops (150 + 38 B each = 15.04 µs).
    let bound_ms = 9.8125 + 2.0 * 94.1875 + 1.0 + 2.0 * 0.01504;
    assert!(voice.delay_max_ms.unwrap() <= bound_ms, "{:?} > {bound_ms}", voice.delay_max_ms);
    // The flood keeps what voice leaves: 128 kbit/s minus voice's 62.8 kbit/s of frames.
    let flood = flow(&pq, "flood");
    let flood_l2_kbps = flood.delivered_l2_bps / 1000.0;
    assert!((flood_l2_kbps - (128.0 - 62.8)).abs() < 0.5, "{flood_l2_kbps}");
}

const LAB: &str = include_str!("../../../../examples/congestion-lab.yaml");

/// The congestion-management lab's six schemes all run on its topology, and rank voice as
/// the study found: no voice loss under PQ and LLQ, loss under FIFO.
#[test]
fn congestion_lab_runs_every_scheme() {
    let voice_loss = |scheme: &str| {
        let results = run_yaml(LAB, &[&format!("interfaces.r1.r2.output={scheme}")]);
        flow(&results, "voice").loss_pct.unwrap()
    };
    assert!(voice_loss("fifo") > 10.0);
    assert_eq!(voice_loss("pq"), 0.0);
    assert_eq!(voice_loss("llq"), 0.0);
    for scheme in ["cq", "wfq", "cbwfq"] {
        assert!(voice_loss(scheme) < voice_loss("fifo"), "{scheme}");
    }
}
