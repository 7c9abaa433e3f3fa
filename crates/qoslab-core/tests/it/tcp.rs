//! TCP in whole runs: goodput on idle links, fairness between flows sharing a FIFO, the
//! Mathis et al. throughput under random loss, and reproducibility.

use crate::common::{flow, run_yaml, two_hosts};
use qoslab_core::results::AppRecord;
use qoslab_core::Results;

fn app<'a>(results: &'a Results, name: &str) -> &'a AppRecord {
    results.apps.iter().find(|a| a.app == name).unwrap_or_else(|| panic!("no app {name}"))
}

/// One endless NewReno transfer over an idle link of `rate` (no framing, 5 ms each way):
/// goodput is at least 95 % of the link rate. The ceiling is 1460/1500 = 97.3 % (the
/// headers' share) plus an edge effect: goodput counts data when it reaches the application
/// in order, so a hole filled just after the warm-up releases data that crossed the link
/// before it — up to one window (64 KB), 0.7 % of a 600 s window at 128 kbit/s.
#[test]
fn a_bulk_transfer_fills_an_idle_link() {
    for (rate, rate_bps, duration) in [("10Mbps", 10e6, "20s"), ("128kbps", 128e3, "600s")] {
        let results = run_yaml(
            &two_hosts(
                &format!("duration: {duration}, warmup: 10s, seed: 1"),
                &format!("rate: {rate}, delay: 5ms, l2: none"),
                "{kind: fifo}",
                "  - {name: ftp, from: tx, to: rx, app: {kind: bulk}}\n",
            ),
            &[],
        );
        let ftp = app(&results, "ftp");
        let share = ftp.goodput_bps / rate_bps;
        assert!((0.95..=0.98).contains(&share), "{rate}: goodput {:.2} % of the link", 100.0 * share);
        // At 128 kbit/s the 64 KB window is larger than the 40-packet hold queue, so the
        // window overflows it now and then; fast retransmit repairs each loss and no timer
        // ever expires.
        assert_eq!(ftp.timeouts, 0, "{rate}");
    }
}

/// Two NewReno flows with the same RTT through one FIFO (40 packets) on 10 Mbit/s, windows
/// large enough to overflow it: over 300 s they share the link with Jain's index ≥ 0.95,
/// and the losses they suffer are recovered by fast retransmit.
#[test]
fn two_newreno_flows_share_a_fifo_fairly() {
    let tcp = "tcp: {receive_window: 1MB}";
    let flows = format!(
        "  - {{name: one, from: tx, to: rx, app: {{kind: bulk}}, {tcp}}}\n  - {{name: two, from: tx, to: rx, start: 1s, app: {{kind: bulk}}, {tcp}}}\n"
    );
    let results = run_yaml(
        &two_hosts(
            "duration: 300s, warmup: 20s, seed: 3",
            "rate: 10Mbps, delay: 10ms, l2: none",
            "{kind: fifo}",
            &flows,
        ),
        &[],
    );
    let (a, b) = (app(&results, "one").goodput_bps, app(&results, "two").goodput_bps);
    let jain = (a + b).powi(2) / (2.0 * (a * a + b * b));
    assert!(jain >= 0.95, "goodputs {a} and {b}: Jain {jain}");
    assert!(a + b > 0.9 * 10e6, "together {} bit/s", a + b);
    assert!(app(&results, "one").fast_retransmits > 10);
    assert!(flow(&results, "one").dropped_packets > 0);
}

/// Random loss p on a fast path with RTT 40 ms: NewReno's goodput is within 25 % of
/// Mathis et al.'s MSS/RTT·√(3/(2p)) (1460-byte segments; window growth counts bytes, so
/// delayed ACKs do not slow it).
#[test]
fn newreno_under_random_loss_follows_mathis() {
    for (loss, p, seed) in [("0.1%", 0.001, 11), ("1%", 0.01, 12)] {
        let results = run_yaml(
            &two_hosts(
                &format!("duration: 600s, warmup: 20s, seed: {seed}"),
                &format!("rate: 100Mbps, delay: 20ms, l2: none, loss: {loss}"),
                "{kind: fifo, limit: 1000}",
                "  - {name: ftp, from: tx, to: rx, app: {kind: bulk}, tcp: {receive_window: 16MB}}\n",
            ),
            &[],
        );
        let mathis_bps = 1460.0 * 8.0 / 0.040 * (3.0f64 / (2.0 * p)).sqrt();
        let goodput = app(&results, "ftp").goodput_bps;
        let ratio = goodput / mathis_bps;
        assert!(
            (ratio - 1.0).abs() <= 0.25,
            "loss {loss}: {goodput} bit/s against {mathis_bps} ({ratio:.3})"
        );
        // docs/tcp.md quotes both, to the digit it shows.
        let quoted = format!("{:.2} against {:.2} Mbit/s", goodput / 1e6, mathis_bps / 1e6);
        let page = include_str!("../../../../docs/tcp.md").split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(page.contains(&quoted), "docs/tcp.md does not say `{quoted}` for p = {loss}");
    }
}

/// Same scenario and seed, same bits; the loss model draws differ with the seed.
#[test]
fn tcp_runs_are_reproducible() {
    let yaml = two_hosts(
        "duration: 30s, seed: 4",
        "rate: 10Mbps, delay: 10ms, l2: none, loss: 1%",
        "{kind: fifo}",
        "  - {name: ftp, from: tx, to: rx, app: {kind: bulk, size: {exponential: 200kB}, transfers: 0}}\n",
    );
    let first = run_yaml(&yaml, &[]).to_json();
    assert_eq!(first, run_yaml(&yaml, &[]).to_json());
    assert_ne!(first, run_yaml(&yaml, &["run.seed=5"]).to_json());
}

/// Bursty loss (Gilbert–Elliott: bad periods of about 3.3 packets losing half of them,
/// entered after 500 good packets on average, in both directions) on a 10 Mbit/s path with
/// 40 ms RTT: several segments of one window are often lost together. SACK (RFC 6675)
/// repairs them in one round trip where NewReno needs one per hole and more often falls
/// back on its timer: on each of three seeds SACK times out no more often than NewReno and
/// gets at least its goodput, and over the three it times out less (measured: 8 against 12).
#[test]
fn sack_recovers_bursty_losses_with_fewer_timeouts() {
    let mut total_timeouts = [0, 0];
    for seed in 1..=3 {
        let mut goodput_bps = [0.0, 0.0];
        let mut timeouts = [0, 0];
        for (i, sack) in [false, true].into_iter().enumerate() {
            let results = run_yaml(
                &two_hosts(
                    &format!("duration: 300s, warmup: 10s, seed: {seed}"),
                    "rate: 10Mbps, delay: 20ms, l2: none, loss: {gilbert_elliott: {p: '0.2%', r: '30%', good_loss: '0%', bad_loss: '50%'}}",
                    "{kind: fifo}",
                    &format!("  - {{name: ftp, from: tx, to: rx, app: {{kind: bulk}}, tcp: {{sack: {sack}, receive_window: 1MB}}}}\n"),
                ),
                &[],
            );
            let ftp = app(&results, "ftp");
            goodput_bps[i] = ftp.goodput_bps;
            timeouts[i] = ftp.timeouts;
            total_timeouts[i] += ftp.timeouts;
        }
        assert!(
            goodput_bps[1] >= goodput_bps[0],
            "seed {seed}: SACK {} < NewReno {}",
            goodput_bps[1],
            goodput_bps[0]
        );
        assert!(
            timeouts[1] <= timeouts[0],
            "seed {seed}: timeouts NewReno {}, SACK {}",
            timeouts[0],
            timeouts[1]
        );
    }
    assert!(
        total_timeouts[1] < total_timeouts[0],
        "timeouts: NewReno {}, SACK {}",
        total_timeouts[0],
        total_timeouts[1]
    );
    let quoted =
        format!("SACK times out {} times against NewReno's {}", total_timeouts[1], total_timeouts[0]);
    let page = include_str!("../../../../docs/tcp.md").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(page.contains(&quoted), "docs/tcp.md does not say `{quoted}`");
}

/// With SACK on, a transfer on an idle 10 Mbit/s link still fills it (≥ 95 %): SACK blocks
/// only ride on ACKs when data is out of order.
#[test]
fn sack_on_an_idle_link_fills_it() {
    let results = run_yaml(
        &two_hosts(
            "duration: 20s, warmup: 10s, seed: 1",
            "rate: 10Mbps, delay: 5ms, l2: none",
            "{kind: fifo}",
            "  - {name: ftp, from: tx, to: rx, app: {kind: bulk}, tcp: {sack: true}}\n",
        ),
        &[],
    );
    let share = app(&results, "ftp").goodput_bps / 10e6;
    assert!((0.95..=0.98).contains(&share), "goodput {:.2} % of the link", 100.0 * share);
}
