//! Packet capture: one pcap file per captured port, a record per frame at the instant its
//! first bit goes on the wire.
//!
//! **File format** — pcap with nanosecond timestamps, as the IETF draft
//! draft-ietf-opsawg-pcap (§4 file header, §5 packet record) describes it: a 24-byte file
//! header (magic 0xA1B23C4D, which marks nanosecond timestamps, version 2.4, the snapshot
//! length and the link type), then per frame a 16-byte record header (seconds,
//! nanoseconds, captured length, original length) and the captured bytes. Fields are
//! written little-endian; readers learn the byte order from the magic. Time 0 of the
//! simulation is the Unix epoch (1970-01-01 00:00:00 UTC).
//!
//! **Link types** (the tcpdump.org LINKTYPE registry), by the link's `l2` framing:
//!
//! | framing | link type | header before the IP packet |
//! |---|---|---|
//! | `ethernet`, `ethernet-wire` | `LINKTYPE_ETHERNET` (1) | destination MAC, source MAC, EtherType 0x0800 |
//! | `ppp`, or any port with LFI | `LINKTYPE_PPP` (9) | 0xFF 0x03 (RFC 1662 address and control), protocol 0x0021 (IPv4) |
//! | `hdlc` | `LINKTYPE_C_HDLC` (104) | address 0x0F, control 0x00, protocol 0x0800 |
//! | `none`, a byte count | `LINKTYPE_RAW` (101) | none |
//!
//! MAC addresses are made up and stable: 02:00 (a locally administered unicast address)
//! followed by the node's index as four bytes, big-endian. Flags, FCS, preamble and
//! inter-frame gap are not captured (as a capture on a real interface does not show them),
//! so a record's original length is the link header plus the IP packet, while the wire
//! time counts the link's whole `l2` overhead.
//!
//! **Multilink fragments** (LFI, [`crate::net::lfi`]): a fragment is written as a PPP frame
//! of protocol 0x003D (multilink, RFC 1990 §3) with its multilink header — the B(egin)
//! and E(nd) bits and a sequence number counted per port from 0, 24 bits (long format) or
//! 12 bits (short) — and its share of the fragmented bytes, which are the inner protocol
//! field 0x0021 followed by the IP packet. Whole packets on the same link go without a
//! multilink header, as the port sends them.
//!
//! **Tunnels**: a packet inside a tunnel is written with the header the routers see — the
//! outer addresses and protocol ([`crate::net::tunnel`]) — followed by zeros: the GRE or ESP
//! header and the inner packet are not reconstructed.
//!
//! The header bytes come from [`crate::measure::wire_headers`]; payload bytes are zeros. Records are
//! cut at the snapshot length (default 128 bytes: every header written fits in 86 bytes, the
//! rest would be zeros); their original length stays the whole frame's. Frames are built in
//! one buffer reused for every record and written through a buffered writer.
//!
//! **How large** — the files of one capture hold at most `measure.pcap.max_bytes` together
//! (default [`DEFAULT_MAX_CAPTURE_BYTES`]): each port's file takes an equal share, and once its
//! next record would pass it the file ends there, the time it stopped noted in the run's
//! notes, as a capture tool with a file size limit does. Before the run, the traffic's
//! estimate per port bounds what the files can hold, so that the disk can be checked first.

use crate::ids::{NodeId, PortId};
use crate::measure::wire_headers::{write_headers, MAX_HEADER_BYTES};
use crate::net::l2::L2Framing;
use crate::net::lfi::{Lfi, LONG_SEQUENCE_HEADER_BYTES};
use crate::packet::{Fragment, Packet, SegmentStore};
use crate::time::SimTime;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Magic number of a pcap file with nanosecond timestamps.
pub const MAGIC_NANOSECONDS: u32 = 0xA1B2_3C4D;
/// Default snapshot length, bytes.
pub const DEFAULT_SNAP_BYTES: u32 = 128;
/// Largest snapshot length accepted, bytes (tcpdump's `MAXIMUM_SNAPLEN`).
pub const MAX_SNAP_BYTES: u32 = 262_144;
/// Bytes of the file header.
pub const FILE_HEADER_BYTES: usize = 24;
/// Default of `measure.pcap.max_bytes`, the most a capture's files hold together: 1 GiB.
pub const DEFAULT_MAX_CAPTURE_BYTES: u64 = 1 << 30;
/// Bytes of a record header.
pub const RECORD_HEADER_BYTES: usize = 16;

/// `LINKTYPE_ETHERNET`.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// `LINKTYPE_PPP`.
pub const LINKTYPE_PPP: u32 = 9;
/// `LINKTYPE_RAW` (raw IPv4 or IPv6).
pub const LINKTYPE_RAW: u32 = 101;
/// `LINKTYPE_C_HDLC`.
pub const LINKTYPE_C_HDLC: u32 = 104;

const PPP_IPV4: [u8; 2] = [0x00, 0x21];
const PPP_MULTILINK: [u8; 2] = [0x00, 0x3D];
/// Longest link header written (Ethernet).
const MAX_LINK_HEADER_BYTES: usize = 14;

/// The link-layer header written before each packet on one port.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LinkHeader {
    /// Ethernet II from the sending node's MAC to the receiving node's.
    Ethernet {
        /// Destination MAC.
        dst: [u8; 6],
        /// Source MAC.
        src: [u8; 6],
    },
    /// PPP in HDLC-like framing.
    Ppp,
    /// Cisco HDLC.
    CiscoHdlc,
    /// No header: the frame is the IP packet.
    Raw,
}

impl LinkHeader {
    /// The header for a port from node `node` to node `peer` with `framing`; a port that
    /// fragments (LFI, multilink PPP) is PPP whatever its overhead preset says.
    pub fn for_port(framing: L2Framing, fragments: bool, node: NodeId, peer: NodeId) -> Self {
        if fragments {
            return LinkHeader::Ppp;
        }
        match framing {
            L2Framing::Ethernet => LinkHeader::Ethernet { dst: mac(peer), src: mac(node) },
            L2Framing::Ppp => LinkHeader::Ppp,
            L2Framing::CiscoHdlc => LinkHeader::CiscoHdlc,
            L2Framing::Unknown => LinkHeader::Raw,
        }
    }

    /// The pcap link type.
    pub fn link_type(self) -> u32 {
        match self {
            LinkHeader::Ethernet { .. } => LINKTYPE_ETHERNET,
            LinkHeader::Ppp => LINKTYPE_PPP,
            LinkHeader::CiscoHdlc => LINKTYPE_C_HDLC,
            LinkHeader::Raw => LINKTYPE_RAW,
        }
    }

    /// Writes the header of a frame carrying IPv4 (or, with `multilink`, a PPP multilink
    /// fragment) into `out`; returns its length.
    fn write(self, multilink: bool, out: &mut [u8; MAX_LINK_HEADER_BYTES]) -> usize {
        match self {
            LinkHeader::Ethernet { dst, src } => {
                out[..6].copy_from_slice(&dst);
                out[6..12].copy_from_slice(&src);
                out[12..14].copy_from_slice(&[0x08, 0x00]);
                14
            }
            LinkHeader::Ppp => {
                out[..2].copy_from_slice(&[0xFF, 0x03]);
                out[2..4].copy_from_slice(if multilink { &PPP_MULTILINK } else { &PPP_IPV4 });
                4
            }
            LinkHeader::CiscoHdlc => {
                out[..4].copy_from_slice(&[0x0F, 0x00, 0x08, 0x00]);
                4
            }
            LinkHeader::Raw => 0,
        }
    }
}

/// The made-up MAC address of node `node`: 02:00 and the index, big-endian.
pub fn mac(node: NodeId) -> [u8; 6] {
    let [a, b, c, d] = node.0.to_be_bytes();
    [0x02, 0x00, a, b, c, d]
}

/// The 24-byte file header.
pub fn file_header(snap_bytes: u32, link_type: u32) -> [u8; FILE_HEADER_BYTES] {
    let mut out = [0u8; FILE_HEADER_BYTES];
    out[0..4].copy_from_slice(&MAGIC_NANOSECONDS.to_le_bytes());
    out[4..6].copy_from_slice(&2u16.to_le_bytes());
    out[6..8].copy_from_slice(&4u16.to_le_bytes());
    out[16..20].copy_from_slice(&snap_bytes.to_le_bytes());
    out[20..24].copy_from_slice(&link_type.to_le_bytes());
    out
}

/// The 16-byte header of a record of a frame that started at `at`.
pub fn record_header(at: SimTime, captured_bytes: u32, frame_bytes: u32) -> [u8; RECORD_HEADER_BYTES] {
    let mut out = [0u8; RECORD_HEADER_BYTES];
    out[0..4].copy_from_slice(&((at.0 / 1_000_000_000) as u32).to_le_bytes());
    out[4..8].copy_from_slice(&((at.0 % 1_000_000_000) as u32).to_le_bytes());
    out[8..12].copy_from_slice(&captured_bytes.to_le_bytes());
    out[12..16].copy_from_slice(&frame_bytes.to_le_bytes());
    out
}

/// What a run captures when it is given a folder: `measure.pcap`, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturePlan {
    /// The ports captured, in the order named.
    pub ports: Vec<PortId>,
    /// Bytes of each frame written.
    pub snap_bytes: u32,
    /// The most the files may hold together, bytes.
    pub max_bytes: u64,
    /// The most the files can hold for the traffic of the scenario, bytes (estimated before
    /// the run, within `max_bytes`).
    pub estimated_bytes: u64,
}

impl CapturePlan {
    /// The most each port's file may hold: an equal share of `max_bytes`, at least the
    /// file header and one whole record.
    pub fn file_limit_bytes(&self) -> u64 {
        let least = (FILE_HEADER_BYTES + RECORD_HEADER_BYTES) as u64 + u64::from(self.snap_bytes);
        (self.max_bytes / self.ports.len().max(1) as u64).max(least)
    }
}

/// The most link header bytes a captured frame has before its IP packet: a link header,
/// and on a multilink fragment its header and the inner protocol field.
pub const MAX_FRAME_HEADER_BYTES: u32 =
    (MAX_LINK_HEADER_BYTES + LONG_SEQUENCE_HEADER_BYTES as usize + PPP_IPV4.len()) as u32;

/// Why a packet capture cannot start or was not written whole; an I/O failure names the
/// path and carries the system's error.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The capture was asked for after the run advanced.
    #[error("a packet capture must be asked for before the run advances")]
    RunAdvanced,
    /// The folder for the files cannot be created.
    #[error("cannot create the pcap folder `{}`: {source}; choose a folder that can be written to", path.display())]
    Folder { path: PathBuf, source: std::io::Error },
    /// A file cannot be created.
    #[error("cannot create the pcap file `{}`: {source}", path.display())]
    Create { path: PathBuf, source: std::io::Error },
    /// A new file's header cannot be written.
    #[error("cannot write the pcap file `{}`: {source}", path.display())]
    Header { path: PathBuf, source: std::io::Error },
    /// Writing or flushing the records failed.
    #[error("the pcap file `{}` could not be written: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// The capture of one port: its file, the reused frame buffer, the multilink state.
pub struct PortCapture {
    path: PathBuf,
    file: BufWriter<File>,
    link: LinkHeader,
    snap_bytes: u32,
    /// The frame being written, at most `snap_bytes` long.
    frame: Vec<u8>,
    /// Records written.
    records: u64,
    /// Bytes written, the file header included.
    written_bytes: u64,
    /// The most the file may hold, bytes.
    limit_bytes: u64,
    /// When the file reached its limit and stopped, if it did.
    stopped_at: Option<SimTime>,
    /// Next multilink sequence number.
    multilink_sequence: u32,
    /// Bytes of the fragmented packet (inner protocol field included) the fragments sent so
    /// far carried.
    fragment_offset: u32,
    /// The first write error; nothing more is written after it.
    error: Option<std::io::Error>,
}

impl std::fmt::Debug for PortCapture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PortCapture").field("path", &self.path).field("records", &self.records).finish()
    }
}

impl PortCapture {
    /// Creates the file at `path`, to hold at most `limit_bytes`, and writes its file
    /// header.
    pub fn create(
        path: &Path,
        link: LinkHeader,
        snap_bytes: u32,
        limit_bytes: u64,
    ) -> Result<Self, CaptureError> {
        let file =
            File::create(path).map_err(|source| CaptureError::Create { path: path.to_owned(), source })?;
        let mut capture = PortCapture {
            path: path.to_owned(),
            file: BufWriter::new(file),
            link,
            snap_bytes,
            frame: Vec::with_capacity(snap_bytes as usize),
            records: 0,
            written_bytes: FILE_HEADER_BYTES as u64,
            limit_bytes,
            stopped_at: None,
            multilink_sequence: 0,
            fragment_offset: 0,
            error: None,
        };
        let header = file_header(snap_bytes, link.link_type());
        if let Err(source) = capture.file.write_all(&header) {
            return Err(CaptureError::Header { path: path.to_owned(), source });
        }
        Ok(capture)
    }

    /// Writes the record of `packet`'s frame (a whole packet, or a fragment of it on a port
    /// with `lfi`; its segment, if any, in `segments`) starting at `now`.
    pub fn record(&mut self, packet: &Packet, segments: &SegmentStore, lfi: Option<&Lfi>, now: SimTime) {
        if self.error.is_some() || self.stopped_at.is_some() {
            return;
        }
        let mut headers = [0u8; MAX_HEADER_BYTES];
        let header_bytes = write_headers(packet, segments, &mut headers);
        let mut link = [0u8; MAX_LINK_HEADER_BYTES];
        let snap = self.snap_bytes as usize;
        self.frame.clear();
        let frame_bytes = match (packet.fragment, lfi) {
            (Fragment::Leading | Fragment::Last, Some(lfi)) => {
                let link_bytes = self.link.write(true, &mut link);
                self.frame.extend_from_slice(&link[..link_bytes]);
                let first = self.fragment_offset == 0;
                let last = packet.fragment == Fragment::Last;
                self.push_multilink_header(lfi.header_bytes, first, last);
                let payload_bytes = lfi.frame_bytes(packet) - lfi.header_bytes;
                // The fragmented bytes: the inner protocol field, then the IP packet.
                let mut fragmented = [0u8; 2 + MAX_HEADER_BYTES];
                fragmented[..2].copy_from_slice(&PPP_IPV4);
                fragmented[2..2 + header_bytes].copy_from_slice(&headers[..header_bytes]);
                let known = 2 + header_bytes;
                let start = self.fragment_offset as usize;
                let end = start + payload_bytes as usize;
                self.fragment_offset = if last { 0 } else { end as u32 };
                self.push_bytes(&fragmented[start.min(known)..end.min(known)]);
                self.push_zeros(end.saturating_sub(start.max(known)));
                (link_bytes + lfi.header_bytes as usize) as u32 + payload_bytes
            }
            _ => {
                let link_bytes = self.link.write(false, &mut link);
                self.frame.extend_from_slice(&link[..link_bytes]);
                let ip_bytes = packet.size_bytes as usize;
                self.push_bytes(&headers[..header_bytes.min(ip_bytes)]);
                self.push_zeros(ip_bytes.saturating_sub(header_bytes));
                (link_bytes + ip_bytes) as u32
            }
        };
        self.frame.truncate(snap);
        let record_bytes = (RECORD_HEADER_BYTES + self.frame.len()) as u64;
        if self.written_bytes + record_bytes > self.limit_bytes {
            self.stopped_at = Some(now);
            return;
        }
        let header = record_header(now, self.frame.len() as u32, frame_bytes);
        let written = self.file.write_all(&header).and_then(|()| self.file.write_all(&self.frame));
        match written {
            Ok(()) => {
                self.records += 1;
                self.written_bytes += record_bytes;
            }
            Err(error) => self.error = Some(error),
        }
    }

    /// Appends the multilink header (RFC 1990 §3): B and E bits and the sequence number,
    /// long (4 bytes, 24-bit number) or short (2 bytes, 12-bit number).
    fn push_multilink_header(&mut self, header_bytes: u32, first: bool, last: bool) {
        let flags = (u8::from(first) << 7) | (u8::from(last) << 6);
        let sequence = self.multilink_sequence;
        if header_bytes == LONG_SEQUENCE_HEADER_BYTES {
            self.multilink_sequence = (sequence + 1) & 0xFF_FFFF;
            let [_, a, b, c] = sequence.to_be_bytes();
            self.push_bytes(&[flags, a, b, c]);
        } else {
            self.multilink_sequence = (sequence + 1) & 0xFFF;
            let [_, _, a, b] = sequence.to_be_bytes();
            self.push_bytes(&[flags | (a & 0x0F), b]);
        }
    }

    /// Appends `bytes`, as far as the snapshot length allows.
    fn push_bytes(&mut self, bytes: &[u8]) {
        let room = (self.snap_bytes as usize).saturating_sub(self.frame.len());
        self.frame.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Appends `count` zero bytes, as far as the snapshot length allows.
    fn push_zeros(&mut self, count: usize) {
        let room = (self.snap_bytes as usize).saturating_sub(self.frame.len());
        self.frame.resize(self.frame.len() + count.min(room), 0);
    }

    /// The note saying when the file reached its limit and stopped, if it did.
    pub fn note(&self, port: &str) -> Option<String> {
        self.stopped_at.map(|at| {
            format!(
                "the packet capture of {port} stopped at {:.6} s, its file full at its share of \
                 measure.pcap.max_bytes ({} bytes, {} records): raise max_bytes or capture fewer ports",
                at.0 as f64 / 1e9,
                self.written_bytes,
                self.records
            )
        })
    }

    /// Flushes the file; the first error met while writing it, if any, naming the file.
    pub fn finish(&mut self) -> Result<(), CaptureError> {
        let flushed = match self.error.take() {
            Some(error) => Err(error),
            None => self.file.flush(),
        };
        flushed.map_err(|source| CaptureError::Write { path: self.path.clone(), source })
    }
}

/// The file name of port `port` (`node->peer`): `node-to-peer.pcap`, any character other
/// than a letter, digit, `-`, `_` or `.` replaced by `_`.
pub fn file_name(port: &str) -> String {
    let safe: String = port
        .replace("->", "-to-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' })
        .collect();
    format!("{safe}.pcap")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::testing::packet;

    #[test]
    fn file_and_record_headers() {
        let header = file_header(128, LINKTYPE_ETHERNET);
        assert_eq!(header[..4], [0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(header[4..8], [2, 0, 4, 0]);
        assert_eq!(header[16..20], [128, 0, 0, 0]);
        assert_eq!(header[20..24], [1, 0, 0, 0]);
        let record = record_header(SimTime(3_000_000_250), 60, 1514);
        assert_eq!(record[..4], 3u32.to_le_bytes());
        assert_eq!(record[4..8], 250u32.to_le_bytes());
        assert_eq!(record[8..12], 60u32.to_le_bytes());
        assert_eq!(record[12..16], 1514u32.to_le_bytes());
    }

    #[test]
    fn link_headers_by_framing() {
        let ethernet = LinkHeader::for_port(L2Framing::Ethernet, false, NodeId(1), NodeId(258));
        assert_eq!(ethernet, LinkHeader::Ethernet { dst: [2, 0, 0, 0, 1, 2], src: [2, 0, 0, 0, 0, 1] });
        assert_eq!(ethernet.link_type(), 1);
        assert_eq!(LinkHeader::for_port(L2Framing::Ppp, false, NodeId(0), NodeId(1)).link_type(), 9);
        assert_eq!(LinkHeader::for_port(L2Framing::CiscoHdlc, false, NodeId(0), NodeId(1)).link_type(), 104);
        assert_eq!(LinkHeader::for_port(L2Framing::CiscoHdlc, true, NodeId(0), NodeId(1)).link_type(), 9);
        assert_eq!(LinkHeader::for_port(L2Framing::Unknown, false, NodeId(0), NodeId(1)).link_type(), 101);
        let mut out = [0u8; MAX_LINK_HEADER_BYTES];
        assert_eq!(LinkHeader::CiscoHdlc.write(false, &mut out), 4);
        assert_eq!(out[..4], [0x0f, 0, 0x08, 0]);
        assert_eq!(LinkHeader::Ppp.write(true, &mut out), 4);
        assert_eq!(out[..4], [0xff, 0x03, 0x00, 0x3d]);
    }

    #[test]
    fn port_names_become_file_names() {
        assert_eq!(file_name("r1->r2"), "r1-to-r2.pcap");
        assert_eq!(file_name("a b->c/d"), "a_b-to-c_d.pcap");
    }

    fn read(path: &Path) -> Vec<u8> {
        std::fs::read(path).unwrap()
    }

    /// A 1500-byte packet in 160-byte fragments (1502 bytes with the inner protocol field:
    /// nine of 160 and one of 62) is ten PPP multilink frames; the first carries B, the
    /// last E, and the first starts with 0x0021 and the IPv4 header.
    #[test]
    fn fragments_are_multilink_frames() {
        let dir = std::env::temp_dir().join(format!("qoslab-pcap-frag-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("frag.pcap");
        let lfi = Lfi { fragment_bytes: 160, delay_ns: 10_000_000, header_bytes: 4, interleave: true };
        let mut capture = PortCapture::create(&path, LinkHeader::Ppp, 1000, u64::MAX).unwrap();
        let big = packet(7, 1500, 0);
        for k in 0..10 {
            let fragment = if k == 9 { Fragment::Last } else { Fragment::Leading };
            capture.record(&Packet { fragment, ..big }, &SegmentStore::new(), Some(&lfi), SimTime(k));
        }
        capture.finish().unwrap();
        let bytes = read(&path);
        let mut at = FILE_HEADER_BYTES;
        for k in 0..10u32 {
            let len = |o: usize| u32::from_le_bytes(bytes[at + o..at + o + 4].try_into().unwrap());
            let (captured, original) = (len(8), len(12));
            let payload = if k == 9 { 62 } else { 160 };
            assert_eq!(original, 4 + 4 + payload, "fragment {k}");
            assert_eq!(captured, original);
            let frame = &bytes[at + 16..at + 16 + captured as usize];
            assert_eq!(frame[..4], [0xff, 0x03, 0x00, 0x3d]);
            let flags = (u8::from(k == 0) << 7) | (u8::from(k == 9) << 6);
            assert_eq!(frame[4..8], [flags, 0, 0, k as u8]);
            if k == 0 {
                assert_eq!(frame[8..11], [0x00, 0x21, 0x45]);
            }
            at += 16 + captured as usize;
        }
        assert_eq!(at, bytes.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn records_are_cut_at_the_snapshot_length() {
        let dir = std::env::temp_dir().join(format!("qoslab-pcap-snap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("snap.pcap");
        let link = LinkHeader::for_port(L2Framing::Ethernet, false, NodeId(0), NodeId(1));
        let mut capture = PortCapture::create(&path, link, 64, u64::MAX).unwrap();
        capture.record(&packet(1, 1500, 46), &SegmentStore::new(), None, SimTime(1));
        capture.record(&packet(2, 40, 0), &SegmentStore::new(), None, SimTime(2));
        capture.finish().unwrap();
        let bytes = read(&path);
        let first = &bytes[FILE_HEADER_BYTES..];
        assert_eq!(first[8..16], [64, 0, 0, 0, 0xea, 0x05, 0, 0], "64 of 1514 bytes");
        assert_eq!(first[16 + 14 + 1], 46 << 2, "DSCP in the ToS byte");
        let second = &first[16 + 64..];
        assert_eq!(second[8..16], [54, 0, 0, 0, 54, 0, 0, 0]);
        assert_eq!(bytes.len(), FILE_HEADER_BYTES + 16 + 64 + 16 + 54);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file limited to its header and three 40-byte records (16 + 40 bytes each, raw
    /// link) takes three and stops at the fourth, noting when; nothing is written after.
    #[test]
    fn a_file_stops_at_its_limit_with_a_note() {
        let dir = std::env::temp_dir().join(format!("qoslab-pcap-limit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("limit.pcap");
        let limit = (FILE_HEADER_BYTES + 3 * (RECORD_HEADER_BYTES + 40)) as u64;
        let mut capture = PortCapture::create(&path, LinkHeader::Raw, 128, limit).unwrap();
        for k in 0..6 {
            capture.record(&packet(k, 40, 0), &SegmentStore::new(), None, SimTime(1_000_000_000 * (k + 1)));
        }
        capture.finish().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), limit);
        let note = capture.note("r1->r2").unwrap();
        assert!(note.starts_with("the packet capture of r1->r2 stopped at 4.000000 s"), "{note}");
        assert!(note.contains("(192 bytes, 3 records)"), "{note}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unwritable_place_is_named() {
        let error =
            PortCapture::create(Path::new("/nonexistent-folder/x.pcap"), LinkHeader::Raw, 128, u64::MAX)
                .unwrap_err()
                .to_string();
        assert!(error.contains("cannot create the pcap file `/nonexistent-folder/x.pcap`"), "{error}");
    }
}
