//! Applications over TCP on an idle path, where every exchange takes a time that can be
//! written down: HTTP response times, photo transfers on a period, several users, per-user
//! rows and fairness.

use crate::common::{flow, run_yaml, two_hosts};
use qoslab_core::results::AppRecord;
use qoslab_core::Results;

fn app<'a>(results: &'a Results, name: &str) -> &'a AppRecord {
    results.apps.iter().find(|a| a.app == name).unwrap_or_else(|| panic!("no app {name}"))
}

/// Serialization time of `bytes` at 1 Mbit/s, s.
fn at_1mbps_s(bytes: u64) -> f64 {
    bytes as f64 * 8.0 / 1e6
}

/// One HTTP user on an idle 1 Mbit/s link with 10 ms each way (no framing), asking for
/// 10 000-byte objects. Each response takes, from the SYN to the response's last byte:
/// SYN and SYN-ACK (40 B each, one propagation each), the 300-byte request with its
/// 40 bytes of headers (the handshake's last ACK rides on it), then the response — six
/// full segments of 1460 B and one of 1240 B, 7 × 40 B of headers — sent in one flight
/// (initial window 10) and serialized back to back: 4 propagations and 10 680 bytes of
/// serialization in all (40 + 40 + 340 + 10 280).
#[test]
fn an_http_response_takes_the_handshake_request_and_transfer_times() {
    let results = run_yaml(
        &two_hosts(
            "duration: 120s, seed: 1",
            "rate: 1Mbps, delay: 10ms, l2: none",
            "{kind: fifo}",
            "  - {name: web, from: tx, to: rx, app: {kind: http, response_size: 10000B, think_time: 2s}}\n",
        ),
        &[],
    );
    let web = app(&results, "web");
    let expected_s = 4.0 * 0.010 + at_1mbps_s(40 + 40 + 340 + 6 * 1500 + 1280);
    let mean_s = web.completion_mean_s.unwrap();
    // The issue asks for 1 %; serialization is exact to the nanosecond, so the mean
    // agrees to a microsecond.
    assert!((mean_s - expected_s).abs() < 1e-6, "mean response {mean_s:.6} s, formula {expected_s:.6} s");
    // Every exchange is the same: the percentiles agree with the mean within the
    // histogram's resolution.
    assert!((web.completion_p95_s.unwrap() / expected_s - 1.0).abs() < 0.01);
    // A user cycles through response, close (FIN exchange) and a 2 s think time, so
    // 120 s hold between 120 / (2 + 0.23) and 120 / 2 requests.
    assert!((53..=60).contains(&web.transfers_completed), "{} responses", web.transfers_completed);
    assert_eq!(web.retransmitted_segments, 0);
    assert_eq!(web.delivered_bytes, 10_000 * web.transfers_completed);
}

/// Five cameras each send a 5 kB photo every 30 s (the ad-hoc report's photo
/// application): over 300 s every camera sends exactly 10, each taking SYN, SYN-ACK and the
/// data (the handshake's ACK rides on it; 3 segments of 1460 B and one of 620 B, 160 B of
/// headers) — 3 propagations and 5240 bytes of serialization — when the cameras do not
/// collide. Their users' rows each report 10 transfers and 50 kB, so Jain's index is 1.
#[test]
fn cameras_send_a_photo_every_period() {
    let results = run_yaml(
        &two_hosts(
            "duration: 300s, seed: 4",
            "rate: 1Mbps, delay: 10ms, l2: none",
            "{kind: fifo}",
            "  - {name: photos, from: tx, to: rx, app: {kind: bulk, size: 5kB, transfers: 0, every: 30s, users: 5}}\n",
        ),
        &[],
    );
    let photos = app(&results, "photos");
    assert_eq!((photos.users, photos.transfers_started, photos.transfers_completed), (5, 50, 50));
    assert_eq!(photos.jain_index, Some(1.0));
    let rows: Vec<_> = results.users.iter().filter(|u| u.app == "photos").collect();
    assert_eq!(rows.len(), 5);
    for row in rows {
        assert_eq!((row.transfers_completed, row.delivered_bytes), (10, 50_000), "user {}", row.user);
    }
    let alone_s = 3.0 * 0.010 + at_1mbps_s(40 + 40 + 5000 + 4 * 40);
    // The median transfer had the link to itself; a collision only makes one slower.
    let p50 = photos.completion_p50_s.unwrap();
    assert!((p50 / alone_s - 1.0).abs() < 0.01, "median {p50:.6} s, alone {alone_s:.6} s");
    assert!(photos.completion_mean_s.unwrap() >= alone_s * 0.995);
}

/// Users of one application have their own connections (client ports 49152, 49153, ...),
/// start after their own first think time, and on an idle path get the same service:
/// Jain's index of their delivered bytes is near 1 over a long run.
#[test]
fn rpc_users_get_equal_service_on_an_idle_path() {
    let results = run_yaml(
        &two_hosts(
            "duration: 600s, warmup: 10s, seed: 2",
            "rate: 2Mbps, delay: 5ms, l2: none",
            "{kind: fifo}",
            "  - {name: rpc, from: tx, to: rx, app: {kind: rpc, users: 8, response_size: {exponential: 10kB}, think_time: {exponential: 10s}}}\n",
        ),
        &[],
    );
    let rpc = app(&results, "rpc");
    assert_eq!(rpc.users, 8);
    // About 60 requests per user: exponential sizes and think times give a Jain index
    // well above 0.9 but not exactly 1.
    let jain = rpc.jain_index.unwrap();
    assert!((0.9..1.0).contains(&jain), "Jain {jain}");
    let completed: u64 = results.users.iter().filter(|u| u.app == "rpc").map(|u| u.transfers_completed).sum();
    assert_eq!(completed, rpc.transfers_completed);
    // Mean response ≈ the mean object's transfer time plus handshake: well under 0.2 s.
    let mean_s = rpc.completion_mean_s.unwrap();
    assert!(mean_s > 0.05 && mean_s < 0.2, "mean response {mean_s} s");
}

/// Default source ports never repeat: an application takes one per user, so the next entry
/// starts after them (a WFQ hash or a port match cannot mix two default connections).
#[test]
fn default_ports_leave_room_for_every_user() {
    let flows = "  - {name: web, from: tx, to: rx, app: {kind: bulk, users: 4}}
  - {name: voice, from: tx, to: rx, pattern: {kind: codec, codec: g711}}
  - {name: video, from: tx, to: rx, pattern: {kind: cbr, rate_pps: 10, size: 1000B}}
";
    let results = run_yaml(&two_hosts("duration: 1s", "rate: 10Mbps", "{kind: fifo}", flows), &[]);
    let ports: Vec<u16> = ["web", "voice", "video"].iter().map(|f| flow(&results, f).src_port).collect();
    assert_eq!(ports, [49_152, 49_156, 49_157]);
}
