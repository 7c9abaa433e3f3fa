//! Scenarios that would exhaust the machine are refused at the key that makes them so, or
//! stopped at the memory guard, instead of aborting or hanging: huge queue and ring limits,
//! many copies, impossible rates, unbounded queues, hostile trace files.

use super::common::{run_yaml, two_hosts};
use qoslab_core::{load, load_within, Limits, Override};

const EXAMPLE: &str = include_str!("../../../../examples/voice-vs-flood.yaml");

fn set(changes: &[&str]) -> Vec<Override> {
    changes.iter().map(|c| Override::parse(c).unwrap()).collect()
}

/// A queue or ring limit of 2^32 − 1 packets reserves nothing up front: the scenario builds
/// and runs within a small memory limit, with the same results as a limit of 40 when the
/// queue never holds more.
#[test]
fn huge_queue_and_ring_limits_reserve_nothing() {
    let small = Limits { max_memory_bytes: 64 << 20, ..Limits::default() };
    for change in ["policies.fifo.limit=4294967295", "topology.links.2.tx_ring=4294967295"] {
        let sim = load_within(EXAMPLE, "ex.yaml", &set(&[change, "run.duration=2s"]), None, &small);
        let results = sim.unwrap_or_else(|e| panic!("{change}: {e}")).finish();
        assert!(results.is_ok(), "{change}: {:?}", results.err());
    }
}

/// Ten entries of 10,000 copies need gigabytes of statistics: refused before anything is
/// built, at the first entry's `copies`, with the way out.
#[test]
fn copies_beyond_the_memory_limit_are_refused_at_their_key() {
    let flows: String = (0..10)
        .map(|i| format!("  - {{name: v{i}, from: tx, to: rx, copies: 10000, pattern: {{kind: cbr, rate_pps: 1, size: 100B}}}}\n"))
        .collect();
    let text = two_hosts("duration: 1s", "rate: 1Mbps", "{kind: fifo}", &flows);
    let limits = Limits { max_memory_bytes: 1 << 30, ..Limits::default() };
    let error = load_within(&text, "c.yaml", &[], None, &limits).err().expect("refused");
    assert_eq!(error.key_path, "traffic[0].copies", "{error}");
    assert!(error.to_string().contains("--max-memory"), "{error}");
    assert!(error.position.is_some(), "{error}");
}

/// A flood over links of 10^16 bit/s would take years of events: refused at the flood's
/// entry, and accepted when the user allows that many events.
#[test]
fn an_impossible_workload_is_refused_at_the_heaviest_flow() {
    let fast = set(&[
        "topology.links.1.rate=10000000000000000bps",
        "topology.links.2.rate=10000000000000000bps",
        "topology.links.4.rate=10000000000000000bps",
    ]);
    let error = load(EXAMPLE, "ex.yaml", &fast, None).err().expect("refused");
    assert_eq!(error.key_path, "traffic[1]", "{error}");
    assert!(error.to_string().contains("--max-events"), "{error}");
    let unlimited = Limits { max_events: u64::MAX, ..Limits::default() };
    assert!(load_within(EXAMPLE, "ex.yaml", &fast, None, &unlimited).is_ok());
    // The example itself is far inside the default.
    assert!(load(EXAMPLE, "ex.yaml", &[], None).is_ok());
}

/// An unlimited queue fed twice as fast as its link drains it grows until the packets in
/// flight would exceed the memory allowed; the run stops there with an error naming the
/// port, instead of growing until the machine runs out.
/// A source of more than one packet a nanosecond is counted at the rate asked for, not at
/// one a nanosecond: 10^11 packets/s for 200 ms is 2·10^10 packets before any hop, and
/// 9.6·10^10 packets/s of 1-byte-payload floods for 5 s nearly 5·10^11, both far beyond the
/// default 10^10 events; each is refused at its flow. Even on a link fast enough to carry
/// them, the packets must be made one by one.
#[test]
fn more_than_a_packet_a_nanosecond_is_counted_as_asked() {
    for (pattern, duration) in [
        ("{kind: cbr, rate_pps: 100000000000, size: 100B}", "200ms"),
        ("{kind: flood, rate: 22272Gbps, size: 29B}", "5s"),
        ("{kind: poisson, rate_pps: 900000000, size: 100B}", "60s"),
    ] {
        let flows = format!("  - {{name: x, from: tx, to: rx, pattern: {pattern}}}\n");
        let text = two_hosts(&format!("duration: {duration}"), "rate: 100000Gbps", "{kind: fifo}", &flows);
        let error = load(&text, "x.yaml", &[], None).err().unwrap_or_else(|| panic!("{pattern} accepted"));
        assert_eq!(error.key_path, "traffic[0]", "{pattern}: {error}");
        assert!(error.to_string().contains("--max-events"), "{pattern}: {error}");
    }
}

#[test]
fn an_unbounded_queue_stops_the_run_at_the_memory_guard() {
    let flows = "  - {name: flood, from: tx, to: rx, pattern: {kind: flood, rate: 200%, size: 1000B}}\n";
    let text = two_hosts("duration: 60s", "rate: 10Mbps", "{kind: fifo, limit: unlimited}", flows);
    let limits = Limits { max_memory_bytes: 8 << 20, ..Limits::default() };
    let sim = load_within(&text, "u.yaml", &[], None, &limits).unwrap();
    let error = sim.finish().expect_err("stopped");
    assert_eq!(error.kind(), "stopped");
    assert!(error.message().starts_with("run stopped at"), "{error}");
    assert!(error.message().contains("port tx->rx"), "{error}");
    // 1250 packets/s queue up (2500 arrive, 1250 leave); the guard allows 8 MiB / 160 B ≈
    // 52,400 packets less the flow's and ports' structures, and looks every 65,536 events,
    // while at most as many packets can have been created.
    let number = |after: &str| -> u64 {
        let rest = &error.message()[error.message().find(after).unwrap() + after.len()..];
        rest.split([' ', ')']).find(|w| !w.is_empty()).unwrap().parse().unwrap()
    };
    let (in_flight, allowed) = (number(" s: "), number("allowed ("));
    assert!((51_000..52_429).contains(&allowed), "{error}");
    assert!(in_flight > allowed && in_flight - allowed <= qoslab_core::CHECK_EVERY_EVENTS, "{error}");
    // The same with room enough runs to the end.
    assert!(run_yaml(&text.replace("duration: 60s", "duration: 2s"), &[]).flows[0].sent_packets > 0);
}

/// A trace file is read a line at a time: an endless line (here, a file of zeros standing
/// for /dev/zero) or text that is not UTF-8 is an error at its line, at the flow's key.
#[test]
fn hostile_trace_files_are_errors_at_their_line() {
    let dir = std::env::temp_dir().join(format!("qoslab-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("zeros.csv", vec![0; 1 << 20], "zeros.csv:1: the line is longer than 4096 bytes"),
        ("latin1.csv", b"0.0,100\n0.1,\xe9\n".to_vec(), "latin1.csv:2: not UTF-8 text"),
        ("folder.csv", Vec::new(), "folder.csv` is a folder"),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.join(name);
        if bytes.is_empty() {
            std::fs::create_dir_all(&path).unwrap();
        } else {
            std::fs::write(&path, bytes).unwrap();
        }
        let flows = format!(
            "  - {{name: video, from: tx, to: rx, pattern: {{kind: trace, file: '{}'}}}}\n",
            path.display()
        );
        let text = two_hosts("duration: 1s", "rate: 1Mbps", "{kind: fifo}", &flows);
        let error = load(&text, "t.yaml", &[], None).err().expect("refused");
        assert_eq!(error.key_path, "traffic[0].pattern.file", "{name}: {error}");
        assert!(error.to_string().contains(expected), "{name}: {error}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What YAML readers accept silently is refused at its place: a NUL in a comment (which
/// would end the document there), a second document, a control character written as an
/// escape; a byte-order mark at the start is fine.
#[test]
fn text_hygiene() {
    let cut = EXAMPLE.replacen("# A voice call", "# A \0 voice call", 1);
    let error = load(&cut, "ex.yaml", &[], None).err().expect("refused");
    assert_eq!(error.position.map(|p| (p.line, p.column)), Some((1, 5)), "{error}");
    let second = format!("{EXAMPLE}---\nname: other\n");
    let error = load(&second, "ex.yaml", &[], None).err().expect("refused");
    assert!(error.to_string().contains("second YAML document"), "{error}");
    let escaped = EXAMPLE.replace("name: voice\n", "name: \"voice\\e[31m\"\n");
    let error = load(&escaped, "ex.yaml", &[], None).err().expect("refused");
    assert_eq!(error.key_path, "traffic[0].name", "{error}");
    assert!(error.to_string().contains("U+001B"), "{error}");
    assert!(load(&format!("\u{feff}{EXAMPLE}"), "ex.yaml", &[], None).is_ok());
}
