//! What a Linux discipline charges for a packet: the bytes its rates, quanta and byte limits
//! count.
//!
//! The kernel counts `qdisc_pkt_len(skb)`, which is `skb->len` — the packet as the device
//! holds it: on an Ethernet device the 14-byte MAC header and the IP packet, without the
//! frame check sequence, the preamble or the inter-frame gap (`net/sched/sch_api.c`,
//! `qdisc_calculate_pkt_len`; `net/sched/sch_htb.c` charges it in `htb_charge_class`). On a
//! PPP device the PPP header is added after the discipline (`ppp_start_xmit` in
//! `drivers/net/ppp/ppp_generic.c`), so the IP packet is what is counted; qoslab counts the
//! IP packet on every link that is not Ethernet.
//!
//! A size table (`tc-stab(8)`: `tc qdisc add … stab overhead N mpu M linklayer atm …`)
//! adjusts the length before the discipline sees it: `overhead` bytes are added (it may be
//! negative), a packet counts at least `mpu` bytes, and with `linklayer: atm` the length is
//! carried in 48-byte cell payloads, 53 bytes on the wire each. qoslab's `stab` key on a
//! Linux discipline does the same, in that order.

use crate::config::error::{join_path, Issue};
use schemars::JsonSchema;
use serde::Deserialize;

/// An ATM cell's payload and its size on the wire.
const ATM_CELL_PAYLOAD_BYTES: u32 = 48;
const ATM_CELL_BYTES: u32 = 53;

/// How a size table accounts the link layer (`tc-stab(8)`'s `linklayer`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LinkLayer {
    /// Lengths as they are (after `overhead` and `mpu`).
    #[default]
    Ethernet,
    /// Lengths carried in 53-byte ATM cells of 48 bytes of payload each.
    Atm,
}

/// A size table as written in a scenario: `tc`'s `stab` options.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StabSpec {
    /// Bytes added to every packet's length (may be negative), default 0.
    pub overhead: Option<i32>,
    /// Minimum length a packet counts for, bytes (default 0).
    pub mpu: Option<u32>,
    /// `ethernet` (default) or `atm`.
    pub linklayer: Option<LinkLayer>,
}

/// The bytes a Linux discipline charges for a packet on its device.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinuxCharge {
    header_bytes: u32,
    overhead_bytes: i32,
    mpu_bytes: u32,
    atm: bool,
}

impl LinuxCharge {
    /// The charge on a device that holds `header_bytes` of link-layer header in front of the
    /// IP packet ([`super::Interface::device_header_bytes`]), adjusted by the size table
    /// `stab` (found at `at`).
    pub fn new(header_bytes: u32, stab: Option<&StabSpec>, at: &str) -> Result<Self, Issue> {
        let stab = stab.copied().unwrap_or_default();
        let overhead_bytes = stab.overhead.unwrap_or(0);
        if !(-1500..=1500).contains(&overhead_bytes) {
            return Err(Issue::at(join_path(at, "stab.overhead"), format!("an overhead of {overhead_bytes} bytes is outside -1500 to 1500"))
                .hint("give the framing bytes the size table should add, e.g. 24 for Ethernet's FCS, preamble and gap"));
        }
        Ok(LinuxCharge {
            header_bytes,
            overhead_bytes,
            mpu_bytes: stab.mpu.unwrap_or(0),
            atm: stab.linklayer == Some(LinkLayer::Atm),
        })
    }

    /// The charge of an IP packet of `ip_bytes`: the device's length, plus the overhead, at
    /// least the minimum, in whole ATM cells with `atm`; never below one byte.
    #[inline]
    pub fn bytes(&self, ip_bytes: u32) -> u32 {
        let length = (ip_bytes + self.header_bytes) as i64 + self.overhead_bytes as i64;
        let length = (length.max(1) as u32).max(self.mpu_bytes);
        if self.atm {
            length.div_ceil(ATM_CELL_PAYLOAD_BYTES) * ATM_CELL_BYTES
        } else {
            length
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_device_header_is_counted() {
        let ethernet = LinuxCharge::new(14, None, "p").unwrap();
        // 200-byte voice packets: 214 bytes, as tc's counters show on a veth.
        assert_eq!(ethernet.bytes(200), 214);
        assert_eq!(ethernet.bytes(1500), 1514);
        let ppp = LinuxCharge::new(0, None, "p").unwrap();
        assert_eq!(ppp.bytes(1500), 1500);
    }

    #[test]
    fn a_size_table_adds_overhead_then_the_minimum_then_atm_cells() {
        let stab = |yaml: &str| -> StabSpec {
            let (value, _) = crate::config::yaml::parse(yaml).unwrap();
            serde_json::from_value(value).unwrap()
        };
        // The rest of the Ethernet frame on the wire: FCS, preamble and gap.
        let wire = LinuxCharge::new(14, Some(&stab("{overhead: 24}")), "p").unwrap();
        assert_eq!(wire.bytes(1500), 1538);
        let mpu = LinuxCharge::new(14, Some(&stab("{overhead: 24, mpu: 84}")), "p").unwrap();
        assert_eq!(mpu.bytes(28), 84);
        // ADSL with PPPoA-like overhead: 1500 + 10 = 1510 bytes need 32 cells, 1696 bytes.
        let atm = LinuxCharge::new(0, Some(&stab("{overhead: 10, linklayer: atm}")), "p").unwrap();
        assert_eq!(atm.bytes(1500), 32 * 53);
        let negative = LinuxCharge::new(14, Some(&stab("{overhead: -14}")), "p").unwrap();
        assert_eq!(negative.bytes(100), 100);
        let issue = LinuxCharge::new(14, Some(&stab("{overhead: 5000}")), "p").unwrap_err();
        assert_eq!(issue.key_path, "p.stab.overhead");
    }
}
