//! A lone TCP flow filling a drop-tail FIFO: after the first loss episode (the overshoot of
//! the initial slow start), each overflow costs a fast retransmit and nothing more — no
//! retransmission timeout, and the link stays busy.

use crate::common::{run_yaml, two_hosts};
use qoslab_core::results::AppRecord;

/// Bytes the 10 Mbit/s, 20 ms round-trip path holds: its bandwidth-delay product.
const BDP_BYTES: u64 = 25_000;

/// One endless transfer (`congestion_control: cc`, no SACK, a 4 MB receive window so that
/// only the network limits it) through a FIFO of `buffer_bdp` BDPs on 10 Mbit/s with 10 ms
/// each way; measured over 60 s after a 5 s warm-up that holds the first loss episode.
fn lone_flow(cc: &str, buffer_bdp: u64) -> AppRecord {
    let results = run_yaml(
        &two_hosts(
            "duration: 65s, warmup: 5s, seed: 1",
            "rate: 10Mbps, delay: 10ms, l2: none",
            &format!("{{kind: fifo, limit: {}B}}", buffer_bdp * BDP_BYTES),
            &format!(
                "  - {{name: ftp, from: tx, to: rx, app: {{kind: bulk}}, tcp: {{congestion_control: {cc}, receive_window: 4MB}}}}\n"
            ),
        ),
        &[],
    );
    results.apps.into_iter().next().expect("one application")
}

/// With 1, 2, 5 and 10 BDPs of buffer the flow's goodput (payload delivered in order, over
/// the 60 s) is at least 95 % of the link rate — the ceiling is 1460/1500 = 97.3 %, the
/// headers' share — the FIFO overflows (fast retransmits in the window) and no timer
/// expires. A timeout in fast recovery that took its threshold from the flight inflated by
/// recovery would restart slow start towards twice what the path holds, overflow again
/// and time out again, every couple of seconds.
/// `docs/tcp.md` shows the measured goodput and timeouts in a table, column `column`
/// (1: NewReno, 2: CUBIC): each cell is what the run gives, to the digit shown.
fn fills_the_link_without_timeouts(cc: &str, column: usize) {
    for buffer_bdp in [1, 2, 5, 10] {
        let ftp = lone_flow(cc, buffer_bdp);
        let share = ftp.goodput_bps / 10e6;
        let at = format!("{cc}, {buffer_bdp} BDP");
        assert!(share >= 0.95, "{at}: goodput {:.2} % of the link", 100.0 * share);
        assert!(ftp.fast_retransmits > 0, "{at}: the buffer never overflowed");
        assert_eq!(ftp.timeouts, 0, "{at}: {} fast retransmits", ftp.fast_retransmits);
        let shown = documented(buffer_bdp, column);
        assert_eq!(shown, format!("{:.1} %, {}", 100.0 * share, ftp.timeouts), "{at}: docs/tcp.md is stale");
    }
}

/// The cell of `docs/tcp.md`'s goodput table for `buffer_bdp` BDPs, column `column`.
fn documented(buffer_bdp: u64, column: usize) -> String {
    let page = include_str!("../../../../docs/tcp.md");
    let row = page
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with(&format!("| {buffer_bdp} BDP |")))
        .expect("docs/tcp.md has the goodput table");
    row.split('|').nth(column + 1).expect("a cell").trim().to_owned()
}

#[test]
fn a_lone_newreno_flow_fills_a_fifo_of_any_depth() {
    fills_the_link_without_timeouts("newreno", 1);
}

#[test]
fn a_lone_cubic_flow_fills_a_fifo_of_any_depth() {
    fills_the_link_without_timeouts("cubic", 2);
}
