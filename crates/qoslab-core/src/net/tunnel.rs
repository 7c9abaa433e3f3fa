//! Tunnels: GRE, PPTP and IPsec ESP encapsulation between two nodes (a VPN client and its
//! server, two site routers).
//!
//! A flow whose path passes both ends of a tunnel is carried through it over the segment
//! between them: at the first end its packets get an outer header and grow by the
//! encapsulation's overhead; at the other they get their own header back. Routers in
//! between see only the outer header — the tunnel ends' addresses, IP protocol 47 (GRE,
//! PPTP) or 50 (ESP), no ports — and its DSCP, which is the inner packet's when
//! `copy_dscp` is on (as IOS does for GRE and IPsec by default) or 0. The ECN field is
//! carried through unchanged, so a congestion mark made inside the tunnel reaches the
//! receiver (RFC 6040's normal mode).
//!
//! Each end takes a fixed processing time per packet (encryption, decryption), during which
//! the packet is held; the ends work on packets in parallel, so that time adds to each
//! packet's delay without queuing.
//!
//! Overhead per packet, bytes (outer IPv4 header 20 B in every case):
//!
//! * `gre`: 20 + 4 (RFC 2784 base header, no key, no sequence number) = 24.
//! * `pptp`: 20 + 12 (enhanced GRE header with sequence number, no acknowledgement; RFC 2637
//!   §4.1) + 2 (PPP address and control) + 2 (PPP protocol, compressed/encrypted datagram) +
//!   2 (MPPE coherency count; RFC 3078) + 2 (inner PPP protocol) = 40.
//! * `ipsec` (ESP tunnel mode, RFC 4303): 20 + 4 (SPI) + 4 (sequence number) + IV + padding +
//!   1 (pad length) + 1 (next header) + ICV, the padding bringing inner packet + 2 up to a
//!   multiple of the cipher's block: `aes-cbc` IV 16, block 16 (RFC 3602); `3des-cbc` IV 8,
//!   block 8 (RFC 2451); `aes-gcm` IV 8, 4-byte alignment, 16-byte ICV of its own (RFC 4106);
//!   `null` no IV, 4-byte alignment (RFC 2410). ICV of the integrity algorithm for CBC and
//!   null ciphers: `sha1` 12 (HMAC-SHA1-96, RFC 2404), `sha256` 16 (HMAC-SHA-256-128, RFC
//!   4868), `md5` 12 (HMAC-MD5-96, RFC 2403).
//! * `custom`: the `overhead` given.

use crate::config::error::{join_path, Issue};
use crate::ids::{FlowId, NodeId, PortId, Table};
use crate::packet::Packet;
use crate::time::SimTime;
use crate::units::{Duration, Size};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// Outer IPv4 header, bytes.
const OUTER_IP_BYTES: u32 = 20;
/// IP protocol number of GRE (GRE tunnels and PPTP).
pub const PROTOCOL_GRE: u8 = 47;
/// IP protocol number of ESP.
pub const PROTOCOL_ESP: u8 = 50;

/// The encapsulation.
#[derive(Copy, Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TunnelKind {
    /// Plain GRE.
    Gre,
    /// PPTP: PPP in enhanced GRE, MPPE-encrypted.
    Pptp,
    /// IPsec ESP in tunnel mode.
    Ipsec,
    /// A fixed overhead given by `overhead`.
    Custom,
}

/// ESP encryption algorithm.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
pub enum Cipher {
    /// AES in CBC mode.
    #[default]
    #[serde(rename = "aes-cbc")]
    AesCbc,
    /// Triple DES in CBC mode.
    #[serde(rename = "3des-cbc")]
    TripleDesCbc,
    /// AES-GCM (authenticated encryption: no separate integrity algorithm).
    #[serde(rename = "aes-gcm")]
    AesGcm,
    /// No encryption.
    #[serde(rename = "null")]
    Null,
}

/// ESP integrity algorithm (CBC and null ciphers).
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Integrity {
    /// HMAC-SHA1-96.
    #[default]
    Sha1,
    /// HMAC-SHA-256-128.
    Sha256,
    /// HMAC-MD5-96.
    Md5,
}

/// A tunnel as written in `topology.tunnels`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TunnelSpec {
    /// Its two ends.
    pub between: [String; 2],
    /// `gre`, `pptp`, `ipsec` or `custom`.
    pub kind: TunnelKind,
    /// ESP encryption: `aes-cbc` (default), `3des-cbc`, `aes-gcm`, `null`.
    pub cipher: Option<Cipher>,
    /// ESP integrity: `sha1` (default), `sha256`, `md5`; not with `aes-gcm`.
    pub integrity: Option<Integrity>,
    /// Bytes added per packet, for `custom`.
    pub overhead: Option<Size>,
    /// Time each end holds a packet to encapsulate or decapsulate it (default 0 s).
    pub processing_delay: Option<Duration>,
    /// Copy the inner packet's DSCP to the outer header (default true).
    pub copy_dscp: Option<bool>,
    /// Only these flows use the tunnel (default: every flow whose path passes both ends).
    pub flows: Option<Vec<String>>,
}

/// How the size grows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Overhead {
    Fixed(u32),
    Esp { iv_bytes: u32, block_bytes: u32, icv_bytes: u32 },
}

/// A tunnel, built.
#[derive(Clone, Debug)]
pub struct Tunnel {
    /// Its ends.
    pub ends: [NodeId; 2],
    /// Its ends' addresses.
    pub addresses: [u32; 2],
    overhead: Overhead,
    protocol: u8,
    /// Per-packet processing time at each end, ns.
    pub processing_ns: u64,
    copy_dscp: bool,
}

impl Tunnel {
    /// Builds `spec` (at `at`) between nodes `ends` with addresses `addresses`.
    pub fn build(spec: &TunnelSpec, at: &str, ends: [NodeId; 2], addresses: [u32; 2]) -> Result<Self, Issue> {
        let esp_only = |key: &str, given: bool| {
            if given && spec.kind != TunnelKind::Ipsec {
                Err(Issue::at(join_path(at, key), format!("`{key}` is a setting of `ipsec` tunnels"))
                    .hint(format!("remove `{key}`, or make the tunnel `kind: ipsec`")))
            } else {
                Ok(())
            }
        };
        esp_only("cipher", spec.cipher.is_some())?;
        esp_only("integrity", spec.integrity.is_some())?;
        if spec.overhead.is_some() != (spec.kind == TunnelKind::Custom) {
            return Err(Issue::at(
                join_path(at, "overhead"),
                "`overhead` goes with `kind: custom`, and only there",
            )
            .hint(
                "gre, pptp and ipsec overheads are built in; use `kind: custom, overhead: 36B` for others",
            ));
        }
        if let Some(bytes) = spec.overhead.map(|s| s.0).filter(|&bytes| bytes > u64::from(u16::MAX)) {
            return Err(Issue::at(
                join_path(at, "overhead"),
                format!("{bytes} bytes of encapsulation cannot be: an IP packet has at most 65535"),
            )
            .hint("write the bytes the encapsulation adds, e.g. `24B`"));
        }
        let overhead = match spec.kind {
            TunnelKind::Gre => Overhead::Fixed(OUTER_IP_BYTES + 4),
            TunnelKind::Pptp => Overhead::Fixed(OUTER_IP_BYTES + 12 + 2 + 2 + 2 + 2),
            TunnelKind::Custom => Overhead::Fixed(spec.overhead.map_or(0, |s| s.0) as u32),
            TunnelKind::Ipsec => {
                let cipher = spec.cipher.unwrap_or_default();
                let icv_bytes = match (cipher, spec.integrity) {
                    (Cipher::AesGcm, Some(_)) => {
                        return Err(Issue::at(
                            join_path(at, "integrity"),
                            "AES-GCM authenticates by itself: it takes no integrity algorithm",
                        )
                        .hint("remove `integrity`, or use `cipher: aes-cbc`"))
                    }
                    (Cipher::AesGcm, None) => 16,
                    (_, integrity) => match integrity.unwrap_or_default() {
                        Integrity::Sha1 | Integrity::Md5 => 12,
                        Integrity::Sha256 => 16,
                    },
                };
                let (iv_bytes, block_bytes) = match cipher {
                    Cipher::AesCbc => (16, 16),
                    Cipher::TripleDesCbc => (8, 8),
                    Cipher::AesGcm => (8, 4),
                    Cipher::Null => (0, 4),
                };
                Overhead::Esp { iv_bytes, block_bytes, icv_bytes }
            }
        };
        if overhead == Overhead::Fixed(0) {
            return Err(Issue::at(join_path(at, "overhead"), "a tunnel adds at least one byte")
                .hint("write the bytes the encapsulation adds, e.g. `24B`"));
        }
        Ok(Tunnel {
            ends,
            addresses,
            overhead,
            protocol: if spec.kind == TunnelKind::Ipsec { PROTOCOL_ESP } else { PROTOCOL_GRE },
            processing_ns: spec.processing_delay.map_or(0, |d| d.0),
            copy_dscp: spec.copy_dscp.unwrap_or(true),
        })
    }

    /// Bytes the encapsulation adds to an inner packet of `inner_bytes`.
    pub fn overhead_bytes(&self, inner_bytes: u32) -> u32 {
        match self.overhead {
            Overhead::Fixed(bytes) => bytes,
            Overhead::Esp { iv_bytes, block_bytes, icv_bytes } => {
                // Inner packet, pad length and next header, padded to the block.
                let padded = (inner_bytes + 2).div_ceil(block_bytes) * block_bytes;
                OUTER_IP_BYTES + 4 + 4 + iv_bytes + (padded - inner_bytes) + icv_bytes
            }
        }
    }

    /// The largest inner packet that fits `mtu_bytes` once encapsulated (0 if none does).
    pub fn largest_inner_bytes(&self, mtu_bytes: u32) -> u32 {
        match self.overhead {
            Overhead::Fixed(bytes) => mtu_bytes.saturating_sub(bytes),
            Overhead::Esp { iv_bytes, block_bytes, icv_bytes } => {
                let room = mtu_bytes.saturating_sub(OUTER_IP_BYTES + 4 + 4 + iv_bytes + icv_bytes);
                (room / block_bytes * block_bytes).saturating_sub(2)
            }
        }
    }

    /// `packet` with its outer header, entering at end `from` (0 or 1).
    pub fn encapsulate(&self, packet: Packet, from: usize) -> Packet {
        let overhead_bytes = self.overhead_bytes(packet.size_bytes);
        Packet {
            size_bytes: packet.size_bytes + overhead_bytes,
            src_addr: self.addresses[from],
            dst_addr: self.addresses[1 - from],
            src_port: 0,
            dst_port: 0,
            protocol: self.protocol,
            dscp: if self.copy_dscp { packet.dscp } else { 0 },
            outer_overhead_bytes: u16::try_from(overhead_bytes)
                .expect("a tunnel's overhead was checked to be at most 65535 bytes"),
            inner_dscp: packet.dscp,
            ..packet
        }
    }
}

/// How one flow crosses a tunnel.
#[derive(Copy, Clone, Debug)]
pub struct FlowTunnel {
    /// The tunnel.
    pub tunnel: u32,
    /// The end where the flow enters (0 or 1).
    pub from: u8,
    /// The egress port at the entry end that its packets take.
    pub entry_port: PortId,
    /// The node where they leave the tunnel.
    pub exit_node: NodeId,
}

/// Where a packet goes when its processing at a tunnel end is over.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Into this egress port (after encapsulation).
    Port(PortId),
    /// On from this node (after decapsulation): delivered or routed.
    Node(NodeId),
}

/// Every tunnel of a run, which flows use them, and the packets being processed at their
/// ends.
#[derive(Clone, Debug, Default)]
pub struct Tunnels {
    tunnels: Vec<Tunnel>,
    /// Per flow: the tunnel it crosses, with the flow's own header to give back at the
    /// exit; empty when no flow crosses one.
    flows: Table<FlowId, Option<(FlowTunnel, Packet)>>,
    /// Per tunnel and end: packets held for processing, in time order (the processing time
    /// is the same for all, so arrival order is completion order).
    held: Vec<VecDeque<(Packet, Next)>>,
}

/// The outcome of offering a packet to the tunnels.
pub enum Passage {
    /// Carry on with this packet (encapsulated or decapsulated if it had to be).
    Go(Packet),
    /// Held at a tunnel end until this time; [`Tunnels::release`] gives it back.
    Held(SimTime, u32),
}

impl Tunnels {
    /// The run's tunnels and, per flow, how it crosses one (if it does) with the header of
    /// its packets.
    pub fn new(tunnels: Vec<Tunnel>, flows: Table<FlowId, Option<(FlowTunnel, Packet)>>) -> Self {
        let flows = if flows.iter().any(Option::is_some) { flows } else { Table::new() };
        let held = vec![VecDeque::new(); tunnels.len() * 2];
        Tunnels { tunnels, flows, held }
    }

    /// Whether any flow crosses a tunnel.
    #[inline]
    pub fn in_use(&self) -> bool {
        !self.flows.is_empty()
    }

    #[inline]
    fn crossing(&self, packet: &Packet) -> Option<&(FlowTunnel, Packet)> {
        if self.flows.is_empty() {
            return None;
        }
        self.flows[packet.flow].as_ref()
    }

    fn hold(&mut self, tunnel: u32, end: usize, packet: Packet, next: Next, now: SimTime) -> Passage {
        let t = &self.tunnels[tunnel as usize];
        if t.processing_ns == 0 {
            return Passage::Go(packet);
        }
        let line = tunnel * 2 + end as u32;
        self.held[line as usize].push_back((packet, next));
        Passage::Held(now.after(t.processing_ns), line)
    }

    /// A packet about to enter egress port `port`: encapsulated if its flow enters a tunnel
    /// there.
    #[inline]
    pub fn on_egress(&mut self, port: PortId, packet: Packet, now: SimTime) -> Passage {
        match self.crossing(&packet) {
            Some(&(ft, _)) if ft.entry_port == port && packet.encapsulated().is_none() => {
                let from = ft.from as usize;
                let packet = self.tunnels[ft.tunnel as usize].encapsulate(packet, from);
                self.hold(ft.tunnel, from, packet, Next::Port(port), now)
            }
            _ => Passage::Go(packet),
        }
    }

    /// A packet that reached node `node`: decapsulated if its flow leaves a tunnel there,
    /// its own header given back from its flow's.
    #[inline]
    pub fn on_arrival(&mut self, node: NodeId, packet: Packet, now: SimTime) -> Passage {
        match (self.crossing(&packet), packet.encapsulated()) {
            (Some(&(ft, template)), Some(outer)) if ft.exit_node == node => {
                let inner = Packet {
                    size_bytes: packet.size_bytes - u32::from(outer.overhead_bytes.get()),
                    src_addr: template.src_addr,
                    dst_addr: template.dst_addr,
                    src_port: template.src_port,
                    dst_port: template.dst_port,
                    protocol: template.protocol,
                    dscp: outer.inner_dscp,
                    outer_overhead_bytes: 0,
                    inner_dscp: 0,
                    ..packet
                };
                self.hold(ft.tunnel, 1 - ft.from as usize, inner, Next::Node(node), now)
            }
            _ => Passage::Go(packet),
        }
    }

    /// The oldest packet held at tunnel end `line`, whose processing is over.
    pub fn release(&mut self, line: u32) -> (Packet, Next) {
        self.held[line as usize].pop_front().expect("a release for every packet held")
    }

    /// Packets held at tunnel ends.
    pub fn packets_held(&self) -> u64 {
        self.held.iter().map(|h| h.len() as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Encapsulated;
    use std::num::NonZeroU16;

    fn tunnel(json: &str) -> Result<Tunnel, Issue> {
        let spec: TunnelSpec = serde_json::from_str(json).expect("a valid tunnel");
        Tunnel::build(&spec, "topology.tunnels[0]", [NodeId(0), NodeId(1)], [1, 2])
    }

    /// Overheads by hand: GRE 24, PPTP 40; ESP with AES-CBC and HMAC-SHA1-96 for a 60-byte
    /// packet: 60 + 2 = 62 padded to 64, so 20 + 8 + 16 + 4 + 12 = 60; for 1400 B: 1402 →
    /// 1408, so 20 + 8 + 16 + 8 + 12 = 64.
    #[test]
    fn overheads_by_hand() {
        let gre = tunnel(r#"{"between": ["a", "b"], "kind": "gre"}"#).unwrap();
        assert_eq!(gre.overhead_bytes(60), 24);
        let pptp = tunnel(r#"{"between": ["a", "b"], "kind": "pptp"}"#).unwrap();
        assert_eq!(pptp.overhead_bytes(1000), 40);
        let esp = tunnel(r#"{"between": ["a", "b"], "kind": "ipsec"}"#).unwrap();
        assert_eq!(esp.overhead_bytes(60), 60);
        assert_eq!(esp.overhead_bytes(1400), 64);
        // 3DES (block 8) with SHA-256 (ICV 16): 60 + 2 → 64, 20 + 8 + 8 + 4 + 16 = 56.
        let des = tunnel(
            r#"{"between": ["a", "b"], "kind": "ipsec", "cipher": "3des-cbc", "integrity": "sha256"}"#,
        )
        .unwrap();
        assert_eq!(des.overhead_bytes(60), 56);
        // AES-GCM: 4-byte alignment, IV 8, ICV 16: 62 → 64, 20 + 8 + 8 + 4 + 16 = 56.
        let gcm = tunnel(r#"{"between": ["a", "b"], "kind": "ipsec", "cipher": "aes-gcm"}"#).unwrap();
        assert_eq!(gcm.overhead_bytes(60), 56);
        let custom = tunnel(r#"{"between": ["a", "b"], "kind": "custom", "overhead": "36B"}"#).unwrap();
        assert_eq!(custom.overhead_bytes(60), 36);
        // The largest packet that still fits a 1500-byte MTU, and one byte more does not.
        for t in [&gre, &pptp, &esp, &des, &gcm, &custom] {
            let largest = t.largest_inner_bytes(1500);
            assert!(largest + t.overhead_bytes(largest) <= 1500, "{t:?}");
            assert!(largest + 1 + t.overhead_bytes(largest + 1) > 1500, "{t:?}");
        }
        assert_eq!(esp.largest_inner_bytes(1500), 1438);
    }

    #[test]
    fn settings_that_do_not_go_together_are_refused() {
        let err = |json: &str| tunnel(json).unwrap_err().key_path;
        assert_eq!(
            err(r#"{"between": ["a", "b"], "kind": "gre", "cipher": "aes-cbc"}"#),
            "topology.tunnels[0].cipher"
        );
        assert_eq!(
            err(r#"{"between": ["a", "b"], "kind": "ipsec", "cipher": "aes-gcm", "integrity": "sha1"}"#),
            "topology.tunnels[0].integrity"
        );
        assert_eq!(err(r#"{"between": ["a", "b"], "kind": "custom"}"#), "topology.tunnels[0].overhead");
        assert_eq!(
            err(r#"{"between": ["a", "b"], "kind": "gre", "overhead": "4B"}"#),
            "topology.tunnels[0].overhead"
        );
        assert_eq!(
            err(r#"{"between": ["a", "b"], "kind": "custom", "overhead": "0B"}"#),
            "topology.tunnels[0].overhead"
        );
        // An overhead no IP packet could carry, not wrapped round to a small one.
        let huge = tunnel(r#"{"between": ["a", "b"], "kind": "custom", "overhead": "65536B"}"#).unwrap_err();
        assert_eq!(huge.key_path, "topology.tunnels[0].overhead");
        assert!(huge.message.contains("at most 65535"), "{}", huge.message);
    }

    /// The outer header hides the inner one; the DSCP is copied or not.
    #[test]
    fn the_outer_header() {
        let gre = tunnel(r#"{"between": ["a", "b"], "kind": "gre"}"#).unwrap();
        let inner = Packet { dscp: 46, src_port: 5004, ..crate::qdisc::testing::packet(1, 60, 46) };
        let outer = gre.encapsulate(inner, 1);
        assert_eq!((outer.size_bytes, outer.src_addr, outer.dst_addr), (84, 2, 1));
        assert_eq!((outer.protocol, outer.src_port, outer.dscp), (PROTOCOL_GRE, 0, 46));
        let hidden = tunnel(r#"{"between": ["a", "b"], "kind": "ipsec", "copy_dscp": false}"#).unwrap();
        let outer = hidden.encapsulate(inner, 0);
        assert_eq!((outer.protocol, outer.dscp), (PROTOCOL_ESP, 0));
        assert_eq!(
            outer.encapsulated(),
            Some(Encapsulated { overhead_bytes: NonZeroU16::new(60).expect("above zero"), inner_dscp: 46 })
        );
    }
}
