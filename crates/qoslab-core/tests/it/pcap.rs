//! Packet capture: the pcap files a run writes, read back.

use qoslab_core::{load, Results};
use std::path::{Path, PathBuf};

/// One record: timestamp (ns), original length and the captured bytes.
struct Record {
    at_ns: u64,
    original_bytes: u32,
    bytes: Vec<u8>,
}

/// The link type and records of the pcap file at `path` (little-endian, nanosecond magic).
fn read_pcap(path: &Path) -> (u32, Vec<Record>) {
    let data = std::fs::read(path).unwrap();
    let word = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
    assert_eq!(word(0), 0xa1b2_3c4d, "nanosecond magic");
    let link_type = word(20);
    let mut records = Vec::new();
    let mut at = 24;
    while at < data.len() {
        let captured = word(at + 8) as usize;
        records.push(Record {
            at_ns: word(at) as u64 * 1_000_000_000 + word(at + 4) as u64,
            original_bytes: word(at + 12),
            bytes: data[at + 16..at + 16 + captured].to_vec(),
        });
        at += 16 + captured;
    }
    assert_eq!(at, data.len(), "no partial record");
    (link_type, records)
}

/// Runs `text` capturing into a fresh folder named after `test`; the results and the files.
fn run_capturing(text: &str, test: &str) -> (Results, Vec<PathBuf>, PathBuf) {
    let dir = std::env::temp_dir().join(format!("qoslab-it-pcap-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut sim = load(text, "<test>", &[], None).unwrap();
    let files = sim.capture_pcap(&dir).unwrap();
    (sim.finish().unwrap(), files, dir)
}

/// Voice on Ethernet a -> r and PPP r -> b, with bulk data from a to r alone. The sources
/// stop a second before the end, so every frame started has finished and the records of
/// each port equal the packets its row says it sent.
#[test]
fn records_match_the_ports_table_and_carry_real_headers() {
    let text = "name: capture
run: {duration: 5s, warmup: 0s, seed: 3}
topology:
  nodes: {a: {kind: host}, r: {kind: router}, b: {kind: host}}
  links:
    - {between: [a, r], rate: 1Mbps, l2: ethernet}
    - {between: [r, b], rate: 256kbps, l2: ppp}
measure: {pcap: {points: [a->r, r->b], snap_length: 60}}
traffic:
  - {name: voice, from: a, to: b, dscp: 11, protocol: udp, src_port: 44899, dst_port: 5060,
     stop: 4s, pattern: {kind: cbr, rate_pps: 50, size: 150B}}
  - {name: data, from: a, to: r, stop: 4s, pattern: {kind: cbr, rate: 300kbps, size: 1000B}}
";
    let (results, files, dir) = run_capturing(text, "table");
    assert_eq!(files, vec![dir.join("a-to-r.pcap"), dir.join("r-to-b.pcap")]);
    let sent = |name: &str| results.ports.iter().find(|p| p.port == name).unwrap().sent_packets;
    let (ethernet, a_r) = read_pcap(&files[0]);
    let (ppp, r_b) = read_pcap(&files[1]);
    assert_eq!((ethernet, ppp), (1, 9));
    assert_eq!(a_r.len() as u64, sent("a->r"));
    assert_eq!(r_b.len() as u64, sent("r->b"));
    assert_eq!(r_b.len(), 200, "50 voice packets a second for 4 s");
    // Records are in time order, and each frame is cut at the snapshot length.
    assert!(a_r.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
    for record in &r_b {
        assert_eq!(record.original_bytes, 4 + 150);
        assert_eq!(record.bytes.len(), 60);
        let ip = &record.bytes[4..];
        assert_eq!(record.bytes[..4], [0xff, 0x03, 0x00, 0x21]);
        assert_eq!(ip[1] >> 2, 11, "DSCP");
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 150);
        assert_eq!(ip[9], 17);
        assert_eq!(u16::from_be_bytes([ip[20], ip[21]]), 44899);
        assert_eq!(u16::from_be_bytes([ip[22], ip[23]]), 5060);
    }
    // The first voice packet leaves a at 0 and starts on r -> b once it has crossed a -> r:
    // (150 + 38) B at 1 Mbit/s = 1.504 ms (no propagation delay).
    assert_eq!(r_b[0].at_ns, 1_504_000);
    let data_frames = a_r.iter().filter(|r| r.original_bytes == 14 + 1000).count();
    assert_eq!(data_frames as u64, results.flows.iter().find(|f| f.flow == "data").unwrap().sent_packets);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn capture_points_are_checked() {
    let text = "name: capture
run: {duration: 1s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 1Mbps}]
measure: {pcap: {points: [a->c]}}
traffic: []
";
    let error = load(text, "<test>", &[], None).err().unwrap().to_string();
    assert!(error.contains("measure.pcap.points[0]") && error.contains("a->b"), "{error}");
    let zero = text.replace("points: [a->c]", "snap_length: 0");
    let error = load(&zero, "<test>", &[], None).err().unwrap().to_string();
    assert!(error.contains("measure.pcap.snap_length") && error.contains("from 1 to 262144"), "{error}");
    // Without `measure.pcap` every port is captured, into a folder that is created.
    let all = text.replace("measure: {pcap: {points: [a->c]}}\n", "");
    let (_, files, dir) = run_capturing(&all, "all");
    assert_eq!(files, vec![dir.join("a-to-b.pcap"), dir.join("b-to-a.pcap")]);
    assert!(files.iter().all(|f| read_pcap(f).1.is_empty()));
    std::fs::remove_dir_all(&dir).unwrap();
    // A folder that cannot be made is named.
    let mut sim = load(&all, "<test>", &[], None).unwrap();
    let error = sim.capture_pcap(Path::new("/proc/qoslab-cannot-be-here")).unwrap_err().to_string();
    assert!(error.contains("cannot create the pcap folder `/proc/qoslab-cannot-be-here`"), "{error}");
}
