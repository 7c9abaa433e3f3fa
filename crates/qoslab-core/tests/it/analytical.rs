//! The queuing models against queueing theory, each with its tolerance stated.
//!
//! Runs are long enough that the statistical error is well inside the tolerance; they are
//! deterministic (fixed seeds), so a pass is reproducible, but the tolerance is what a
//! different seed would also meet.

use crate::common::{self, flow, run_yaml};

/// Two hosts joined by one link, measured for `duration` after a 10 s warm-up.
fn two_hosts(link: &str, policy: &str, flows: &str, duration: &str) -> String {
    common::two_hosts(&format!("duration: {duration}, warmup: 10s, seed: 7"), link, policy, flows)
}

/// M/D/1: Poisson arrivals of 1000-byte packets on a 1 Mbit/s link without framing, so
/// the service time is exactly 8 ms (μ = 125/s). Mean wait in queue (Pollaczek–Khinchine
/// for deterministic service): W_q = ρ / (2μ(1 − ρ)). Measured wait = mean one-way delay −
/// service time (no propagation). Tolerance 3 %.
fn md1_mean_wait(rho: f64, duration: &str) {
    let service_ms = 8.0;
    let mu = 125.0;
    let pps = rho * mu;
    let yaml = two_hosts(
        "rate: 1Mbps, l2: none",
        "{kind: fifo, limit: unlimited}",
        &format!("  - {{name: poisson, from: tx, to: rx, pattern: {{kind: poisson, rate_pps: {pps}, size: 1000B}}}}\n"),
        duration,
    );
    let results = run_yaml(&yaml, &[]);
    let f = flow(&results, "poisson");
    assert_eq!(f.dropped_packets, 0);
    let wait_ms = f.delay_mean_ms.unwrap() - service_ms;
    let theory_ms = 1000.0 * rho / (2.0 * mu * (1.0 - rho));
    let error = (wait_ms - theory_ms).abs() / theory_ms;
    assert!(
        error < 0.03,
        "ρ = {rho}: W_q {wait_ms:.3} ms vs M/D/1 {theory_ms:.3} ms ({:.2} % off)",
        100.0 * error
    );
}

#[test]
fn md1_mean_wait_rho_0_5() {
    md1_mean_wait(0.5, "4000s");
}

#[test]
fn md1_mean_wait_rho_0_8() {
    md1_mean_wait(0.8, "16000s");
}

/// FIFO under a constant 150 % overload: the link carries 2/3 of the offered bits. With
/// Poisson arrivals, the arrival that takes a slot freed by a departure belongs to each flow
/// in proportion to its packet rate (memorylessness), so every flow loses the same share of
/// its packets: 1 − 2/3 = 1/3. Tolerance ±1 percentage point per flow. (Strictly periodic
/// flows do not share this way: a flow with shorter intervals reaches a freed slot first
/// more often than its rate share — real tail-drop behaviour, not checked here.)
#[test]
fn fifo_overload_loses_one_third_of_each_flow() {
    // 1 Mbit/s link (no framing), three flows offering 1.5 Mbit/s in all, of three sizes.
    let flows = "  - {name: a, from: tx, to: rx, pattern: {kind: poisson, rate: 700kbps, size: 1500B}}
  - {name: b, from: tx, to: rx, pattern: {kind: poisson, rate: 500kbps, size: 1000B}}
  - {name: c, from: tx, to: rx, pattern: {kind: poisson, rate: 300kbps, size: 300B}}
";
    let results = run_yaml(&two_hosts("rate: 1Mbps, l2: none", "{kind: fifo}", flows, "2000s"), &[]);
    for name in ["a", "b", "c"] {
        let loss = flow(&results, name).loss_pct.unwrap();
        assert!((loss - 100.0 / 3.0).abs() < 1.0, "flow {name}: loss {loss:.2} %");
    }
}

/// 1500-byte flood frame + 7 B HDLC at 128 kbit/s, ms.
const FLOOD_FRAME_MS: f64 = 94.1875;
/// 150-byte voice packet + 7 B HDLC at 128 kbit/s, ms.
const VOICE_FRAME_MS: f64 = 9.8125;

fn voice_behind_flood(voice_pattern: &str, ring: u32) -> qoslab_core::Results {
    let flows = format!(
        "  - {{name: voice, from: tx, to: rx, dscp: EF, pattern: {voice_pattern}}}
  - {{name: flood, from: tx, to: rx, pattern: {{kind: flood, rate: 192kbps, size: 1500B}}}}
"
    );
    let policy = "{kind: prio, preset: ios, classify: [{match: {dscp: EF}, band: high}]}";
    let link = format!("rate: 128kbps, l2: hdlc, delay: 2ms, tx_ring: {ring}");
    run_yaml(&two_hosts(&link, policy, &flows, "600s"), &[])
}

/// Strict priority bounds a high-band CBR voice flow's delay: its own serialization, plus
/// the frames ahead of it in the transmit ring (the one on the wire and `ring − 1` more,
/// each at most one 1500-byte flood frame), plus propagation. Voice loses nothing.
#[test]
fn priority_voice_delay_is_bounded_by_the_ring() {
    let cbr_voice = "{kind: cbr, rate_pps: 50, size: 150B}";
    for ring in [1u32, 2, 3] {
        let results = voice_behind_flood(cbr_voice, ring);
        let voice = flow(&results, "voice");
        let bound_ms = VOICE_FRAME_MS + ring as f64 * FLOOD_FRAME_MS + 2.0;
        let max_ms = voice.delay_max_ms.unwrap();
        assert_eq!(voice.dropped_packets, 0, "ring {ring}");
        assert!(max_ms <= bound_ms + 1e-6, "ring {ring}: max {max_ms} ms > bound {bound_ms} ms");
        // The flood gets what voice leaves.
        let flood = flow(&results, "flood");
        assert!(flood.loss_pct.unwrap() > 40.0);
    }
}

/// The mean delay of high-priority packets behind a saturating flood, with a ring holding
/// only the frame on the wire, is the non-preemptive priority (Cobham) result for an M/G/1
/// queue: W = R / (1 − ρ_h), with mean residual work R = ρ_h·S_h/2 + (1 − ρ_h)·S_f/2 (the
/// flood keeps the link busy whenever voice does not). Delay = W + S_h + propagation. The
/// high-priority stream is Poisson, so arrivals see the time-average residual (PASTA).
/// Tolerance 2 %.
#[test]
fn priority_mean_delay_matches_non_preemptive_theory() {
    let poisson_voice = "{kind: poisson, rate_pps: 5, size: 150B}";
    let rho_h = 5.0 * VOICE_FRAME_MS / 1000.0;
    let residual_ms = rho_h * VOICE_FRAME_MS / 2.0 + (1.0 - rho_h) * FLOOD_FRAME_MS / 2.0;
    let theory_ms = residual_ms / (1.0 - rho_h) + VOICE_FRAME_MS + 2.0;
    let mean_ms = flow(&voice_behind_flood(poisson_voice, 1), "voice").delay_mean_ms.unwrap();
    assert!((mean_ms - theory_ms).abs() / theory_ms < 0.02, "{mean_ms:.2} ms vs theory {theory_ms:.2} ms");
}

/// Each transmit-ring slot beyond the one on the wire adds one full flood frame time to a
/// priority packet's delay. A sparse voice stream (one packet a second, so voice packets
/// never meet) sees: own serialization + mean residual of a flood frame (S_f/2, the arrival
/// phase sweeps uniformly over the frame since 1 s is no multiple of 94.1875 ms) +
/// (ring − 1)·S_f + propagation; the worst case is a whole frame instead of the residual.
/// Tolerance 1 % on the mean, 0.5 ms on the maximum (600 arrival phases sample the frame).
#[test]
fn each_ring_slot_adds_one_frame_time() {
    let sparse_voice = "{kind: cbr, rate_pps: 1, size: 150B}";
    for ring in [1u32, 2, 3] {
        let voice_results = voice_behind_flood(sparse_voice, ring);
        let voice = flow(&voice_results, "voice");
        let extra_ms = (ring - 1) as f64 * FLOOD_FRAME_MS;
        let mean_theory_ms = VOICE_FRAME_MS + FLOOD_FRAME_MS / 2.0 + extra_ms + 2.0;
        let max_theory_ms = VOICE_FRAME_MS + FLOOD_FRAME_MS + extra_ms + 2.0;
        let mean_ms = voice.delay_mean_ms.unwrap();
        let max_ms = voice.delay_max_ms.unwrap();
        assert!(
            (mean_ms - mean_theory_ms).abs() / mean_theory_ms < 0.01,
            "ring {ring}: mean {mean_ms} vs {mean_theory_ms}"
        );
        assert!(
            max_ms <= max_theory_ms + 1e-6 && max_ms > max_theory_ms - 0.5,
            "ring {ring}: max {max_ms} vs {max_theory_ms}"
        );
    }
}

/// When the high band alone offers more than the link carries, the low band starves: it
/// gets at most the frames that entered the ring before the high band filled up.
#[test]
fn low_band_starves_when_high_band_fills_the_link() {
    let flows =
        "  - {name: high, from: tx, to: rx, dscp: EF, pattern: {kind: cbr, rate: 1.2Mbps, size: 500B}}
  - {name: low, from: tx, to: rx, start: 1s, pattern: {kind: cbr, rate: 100kbps, size: 500B}}
";
    let policy = "{kind: prio, preset: ios, classify: [{match: {dscp: EF}, band: high}]}";
    let results = run_yaml(&two_hosts("rate: 1Mbps, l2: none", policy, flows, "60s"), &[]);
    let low = flow(&results, "low");
    assert!(low.sent_packets > 1_000);
    assert_eq!(low.received_packets, 0, "the low band got {} packets through", low.received_packets);
    let port = results.ports.iter().find(|p| p.port == "tx->rx").unwrap();
    assert!(port.utilisation_pct > 99.99, "{}", port.utilisation_pct);
}
