//! Policers: IOS MQC `police`, a meter whose colours select an action per packet.
//!
//! ```text
//! police cir CIR [bc BC] [be BE] [pir PIR]
//!        conform-action A  exceed-action A  [violate-action A]
//! ```
//!
//! Three forms, as IOS distinguishes them (Cisco ME 3800X/3600X and Cisco 10000 QoS
//! configuration guides, `police`; `docs/reference/ios-defaults.md`):
//! * **single-rate, two colours** — no `pir`, and `be` absent or 0: one bucket of `bc`
//!   bytes filling at CIR; a packet conforms if the bucket holds its size, otherwise it
//!   exceeds. Computed as an RFC 2697 meter ([`SrTcm`]) with an empty excess bucket, whose
//!   red is reported as exceed.
//! * **single-rate, three colours** — no `pir`, `be` > 0: RFC 2697 with CBS = `bc` and
//!   EBS = `be`; green conforms, yellow exceeds, red violates.
//! * **two-rate, three colours** — `pir` given: RFC 2698 ([`TrTcm`]) with CBS = `bc`
//!   filling at CIR and PBS = `be` filling at PIR.
//!
//! Actions: `transmit`, `drop`, `set-dscp-transmit X` (re-mark to DSCP X and send) and
//! `set-prec-transmit N` (re-mark the precedence bits, see [`super::marker`], and send).
//! Defaults: conform transmits, exceed drops, violate does what exceed does (Cisco 10000
//! QoS configuration guide, `police` defaults).
//!
//! Default depths (overridable): `bc` = max(1500 B, CIR/32 bytes), i.e. at least 250 ms of
//! the committed rate; the two-rate form's `be` = max(1500 B, PIR/32 bytes). IOS 12.x
//! documents 1500 B and later platforms 250 ms of CIR; the combined rule is commonly
//! quoted but not confirmed as one rule, so it is a documented default here. The
//! single-rate `be` defaults to 0 (the Cisco 10000 default), which makes the two-colour
//! form.
//!
//! Colour-aware mode (`color_aware`) takes each packet's incoming colour from its DSCP:
//! `true` means the AF drop precedences of RFC 2597 — AFx2 yellow, AFx3 red, everything
//! else green — and a mapping `{yellow: [...], red: [...]}` lists the DSCPs of each
//! colour (the others are green). The meters only ever keep or worsen that colour.
//!
//! Refill is continuous (tokens in proportion to the time since the previous packet);
//! Cisco's own description of its refill was not available, so the RFC meters' semantics
//! apply. Tokens are exact integers (bits × 10⁹).
//!
//! The policer is split for reuse: [`Policer::color`] meters a packet, [`Policer::action`]
//! says what its colour calls for, and [`apply_action`] carries that out on a packet.
//!
//! References: RFC 2697; RFC 2698; RFC 2597 §2 (AF drop precedence); Cisco IOS `police`
//! command (12.x command reference; ME 3800X and Cisco 10000 configuration guides), with
//! their defaults in `docs/reference/ios-defaults.md`.

use super::marker::Marker;
use super::{Color, SrTcm, TrTcm};
use crate::classify::dscp::{parse_dscp, parse_precedence, CodepointError, Dscp};
use crate::config::error::{join_path, Issue};
use crate::config::one_or_many::OneOrMany;
use crate::config::scalar::{parse_scalar, Numbers};
use crate::measure::DropReason;
use crate::packet::Packet;
use crate::time::SimTime;
use crate::units::{RateOrShare, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// Smallest default burst, bytes.
pub const MIN_DEFAULT_BURST_BYTES: u64 = 1500;
/// The default burst is CIR (or PIR) / this many bytes: 250 ms of the rate in bytes.
pub const DEFAULT_BURST_RATE_DIVISOR: u64 = 32;
/// DSCPs that colour-aware `true` treats as yellow: AF12, AF22, AF32, AF42.
pub const AF_YELLOW_DSCPS: [u8; 4] = [12, 20, 28, 36];
/// DSCPs that colour-aware `true` treats as red: AF13, AF23, AF33, AF43.
pub const AF_RED_DSCPS: [u8; 4] = [14, 22, 30, 38];

/// A police action that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PoliceActionError {
    /// More than a verb and its value.
    #[error("`{text}` has too many words")]
    TooManyWords { text: String },
    /// A marking verb without its value.
    #[error("`{verb}` needs a value, e.g. `{verb} {example}`", example = if verb.contains("dscp") { "AF11" } else { "0" })]
    NoValue { verb: String },
    /// An unknown verb, or a value after one that takes none.
    #[error("`{text}` is not a police action: use transmit, drop, set-dscp-transmit DSCP or set-prec-transmit PRECEDENCE")]
    Unknown { text: String },
    /// The value of a marking verb.
    #[error(transparent)]
    Value(#[from] CodepointError),
}

/// What a policer does with a packet of one colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PoliceAction {
    /// Send it unchanged.
    Transmit,
    /// Drop it.
    Drop,
    /// Re-mark its DSCP and send it.
    SetDscpTransmit(u8),
    /// Re-mark its precedence bits and send it.
    SetPrecTransmit(u8),
}

impl PoliceAction {
    /// Parses `transmit`, `drop`, `set-dscp-transmit X` or `set-prec-transmit N`.
    pub fn parse(text: &str) -> Result<PoliceAction, PoliceActionError> {
        let mut words = text.split_whitespace();
        let verb = words.next().unwrap_or("").to_ascii_lowercase();
        let argument = words.next();
        if words.next().is_some() {
            return Err(PoliceActionError::TooManyWords { text: text.to_owned() });
        }
        match (verb.as_str(), argument) {
            ("transmit", None) => Ok(PoliceAction::Transmit),
            ("drop", None) => Ok(PoliceAction::Drop),
            ("set-dscp-transmit", Some(d)) => Ok(PoliceAction::SetDscpTransmit(parse_dscp(d)?)),
            ("set-prec-transmit", Some(p)) => Ok(PoliceAction::SetPrecTransmit(parse_precedence(p)?)),
            ("set-dscp-transmit" | "set-prec-transmit", None) => Err(PoliceActionError::NoValue { verb }),
            _ => Err(PoliceActionError::Unknown { text: text.to_owned() }),
        }
    }
}

impl<'de> Deserialize<'de> for PoliceAction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_scalar(d, Numbers::AsText, PoliceAction::parse)
    }
}

impl JsonSchema for PoliceAction {
    fn schema_name() -> Cow<'static, str> {
        "PoliceAction".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "transmit, drop, set-dscp-transmit DSCP or set-prec-transmit PRECEDENCE",
            "examples": ["transmit", "drop", "set-dscp-transmit AF13", "set-prec-transmit 0"]
        })
    }
}

/// `color_aware: true` (AF drop precedences) or `{yellow: [...], red: [...]}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ColorAwareSpec {
    /// On with the AF mapping (AFx2 yellow, AFx3 red), or off.
    Switch(bool),
    /// On with these DSCPs yellow and red; all others green.
    Map {
        /// DSCPs that arrive yellow.
        yellow: Option<OneOrMany<Dscp>>,
        /// DSCPs that arrive red.
        red: Option<OneOrMany<Dscp>>,
    },
}

/// What a policer's meter counts of each packet.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PoliceCounts {
    /// The IP packet and the link's layer-2 header as IOS counts it for policing (14 bytes
    /// on Ethernet, 4 on HDLC and PPP; no flags, FCS, preamble or gap).
    #[default]
    L2,
    /// The IP packet alone, as ALTQ's conditioner does (`altq_cdnr_input`, called from
    /// `ip_input`, meters the datagram's length).
    Ip,
}

/// A `police` action as written in a scenario.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoliceSpec {
    /// Committed information rate: `"128kbps"`, or a percentage of the interface bandwidth.
    pub cir: RateOrShare,
    /// Committed burst (default max(1500 B, CIR/32 bytes)).
    pub bc: Option<Size>,
    /// Excess burst (single rate; default 0 B = two colours) or peak burst (two rates;
    /// default max(1500 B, PIR/32 bytes)).
    pub be: Option<Size>,
    /// Peak information rate: makes the policer two-rate (RFC 2698); at least `cir`.
    pub pir: Option<RateOrShare>,
    /// Action for green packets (default `transmit`).
    pub conform_action: Option<PoliceAction>,
    /// Action for yellow packets (default `drop`).
    pub exceed_action: Option<PoliceAction>,
    /// Action for red packets (default: the exceed action); three-colour forms only.
    pub violate_action: Option<PoliceAction>,
    /// Take the packet's incoming colour from its DSCP (default off: colour-blind).
    pub color_aware: Option<ColorAwareSpec>,
    /// What the meter counts of each packet: `l2` (default: the IP packet and the link's
    /// layer-2 header, as IOS polices) or `ip` (the IP packet alone, as ALTQ's conditioner).
    pub counts: Option<PoliceCounts>,
}

/// What to do with a packet after conditioning.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Carry on with it (possibly re-marked).
    Pass,
    /// Drop it, for this reason.
    Drop(DropReason),
}

#[derive(Clone, Debug)]
enum Meter {
    SingleRate(SrTcm),
    TwoRate(TrTcm),
}

/// A policer: a meter and an action per colour.
#[derive(Clone, Debug)]
pub struct Policer {
    meter: Meter,
    /// Bytes of layer-2 framing counted with each IP packet.
    header_bytes: u32,
    cir_bps: u64,
    two_color: bool,
    yellow_dscps: u64,
    red_dscps: u64,
    conform: PoliceAction,
    exceed: PoliceAction,
    violate: PoliceAction,
}

fn default_burst_bytes(rate_bps: u64) -> u64 {
    (rate_bps / DEFAULT_BURST_RATE_DIVISOR).max(MIN_DEFAULT_BURST_BYTES)
}

fn dscp_mask(list: &Option<OneOrMany<Dscp>>) -> u64 {
    list.iter().flat_map(|l| &l.0).fold(0, |mask, d| mask | 1u64 << d.0)
}

/// Carries out `action` on `packet` of colour `color`: re-marks it, or says to drop it
/// (red drops count as violations, the others as exceeds).
#[inline]
pub fn apply_action(action: PoliceAction, color: Color, packet: &mut Packet) -> Verdict {
    match action {
        PoliceAction::Transmit => Verdict::Pass,
        PoliceAction::Drop if color == Color::Red => Verdict::Drop(DropReason::PolicerViolate),
        PoliceAction::Drop => Verdict::Drop(DropReason::PolicerExceed),
        PoliceAction::SetDscpTransmit(d) => {
            Marker::Dscp(d).apply(packet);
            Verdict::Pass
        }
        PoliceAction::SetPrecTransmit(p) => {
            Marker::Precedence(p).apply(packet);
            Verdict::Pass
        }
    }
}

impl Policer {
    /// Builds from `spec` found at key path `at`; percentages are of `bandwidth_bps`; each
    /// packet is metered with `header_bytes` of layer-2 framing beside its IP bytes (what IOS
    /// counts on the link, [`crate::net::l2::L2Framing::ios_header_bytes`]).
    pub fn build(spec: &PoliceSpec, at: &str, bandwidth_bps: u64, header_bytes: u32) -> Result<Self, Issue> {
        let cir_bps = spec.cir.bps(bandwidth_bps);
        if cir_bps == 0 {
            return Err(Issue::at(join_path(at, "cir"), "the committed rate must be above zero"));
        }
        let bc_bytes = spec.bc.map_or_else(|| default_burst_bytes(cir_bps), |s| s.0);
        if bc_bytes == 0 {
            return Err(Issue::at(join_path(at, "bc"), "a committed burst of 0 B passes nothing")
                .hint("leave `bc` out for the default, max(1500 B, CIR/32 bytes)"));
        }
        let pir_bps = spec.pir.map(|p| p.bps(bandwidth_bps));
        let (meter, two_color) = match pir_bps {
            Some(pir_bps) => {
                if pir_bps < cir_bps {
                    return Err(Issue::at(
                        join_path(at, "pir"),
                        format!(
                            "the peak rate ({pir_bps} bit/s) is below the committed rate ({cir_bps} bit/s)"
                        ),
                    )
                    .hint("RFC 2698 needs PIR ≥ CIR"));
                }
                let pbs_bytes = spec.be.map_or_else(|| default_burst_bytes(pir_bps), |s| s.0);
                if pbs_bytes == 0 {
                    return Err(Issue::at(join_path(at, "be"), "a peak burst of 0 B passes nothing")
                        .hint("leave `be` out for the default, max(1500 B, PIR/32 bytes)"));
                }
                (Meter::TwoRate(TrTcm::new(cir_bps, bc_bytes, pir_bps, pbs_bytes)), false)
            }
            None => {
                let ebs_bytes = spec.be.map_or(0, |s| s.0);
                (Meter::SingleRate(SrTcm::new(cir_bps, bc_bytes, ebs_bytes)), ebs_bytes == 0)
            }
        };
        if two_color && spec.violate_action.is_some() {
            return Err(Issue::at(
                join_path(at, "violate_action"),
                "a single-rate policer without `be` has two colours: nothing violates",
            )
            .hint("add `be` (an excess burst) for three colours, or remove `violate_action`"));
        }
        let conform = spec.conform_action.unwrap_or(PoliceAction::Transmit);
        if conform == PoliceAction::Drop {
            return Err(Issue::at(join_path(at, "conform_action"), "dropping conforming packets is not supported")
                .hint("conforming packets may be transmitted or re-marked: use transmit, set-dscp-transmit or set-prec-transmit"));
        }
        let exceed = spec.exceed_action.unwrap_or(PoliceAction::Drop);
        let (yellow_dscps, red_dscps) = match &spec.color_aware {
            None | Some(ColorAwareSpec::Switch(false)) => (0, 0),
            Some(ColorAwareSpec::Switch(true)) => (
                AF_YELLOW_DSCPS.iter().fold(0, |m, d| m | 1u64 << d),
                AF_RED_DSCPS.iter().fold(0, |m, d| m | 1u64 << d),
            ),
            Some(ColorAwareSpec::Map { yellow, red }) => {
                let (y, r) = (dscp_mask(yellow), dscp_mask(red));
                if y & r != 0 {
                    return Err(Issue::at(
                        join_path(at, "color_aware"),
                        format!("DSCP {} is listed as both yellow and red", (y & r).trailing_zeros()),
                    ));
                }
                (y, r)
            }
        };
        Ok(Policer {
            header_bytes: if spec.counts == Some(PoliceCounts::Ip) { 0 } else { header_bytes },
            meter,
            cir_bps,
            two_color,
            yellow_dscps,
            red_dscps,
            conform,
            exceed,
            violate: spec.violate_action.unwrap_or(exceed),
        })
    }

    /// The committed rate, bit/s.
    pub fn cir_bps(&self) -> u64 {
        self.cir_bps
    }

    /// The colour `packet` arrives with: from its DSCP in colour-aware mode, else green.
    #[inline]
    pub fn pre_color(&self, packet: &Packet) -> Color {
        let bit = 1u64 << packet.dscp;
        if self.red_dscps & bit != 0 {
            Color::Red
        } else if self.yellow_dscps & bit != 0 {
            Color::Yellow
        } else {
            Color::Green
        }
    }

    /// Meters `packet` arriving at `now`: green conforms, yellow exceeds, red violates (a
    /// two-colour policer answers green or yellow only).
    #[inline]
    pub fn color(&mut self, now: SimTime, packet: &Packet) -> Color {
        let pre = self.pre_color(packet);
        let color = match &mut self.meter {
            Meter::SingleRate(m) => m.meter(now, packet.size_bytes + self.header_bytes, pre),
            Meter::TwoRate(m) => m.meter(now, packet.size_bytes + self.header_bytes, pre),
        };
        if self.two_color && color == Color::Red {
            Color::Yellow
        } else {
            color
        }
    }

    /// The action configured for `color`.
    #[inline]
    pub fn action(&self, color: Color) -> PoliceAction {
        match color {
            Color::Green => self.conform,
            Color::Yellow => self.exceed,
            Color::Red => self.violate,
        }
    }

    /// Meters `packet` and carries out its colour's action.
    #[inline]
    pub fn police(&mut self, now: SimTime, packet: &mut Packet) -> Verdict {
        let color = self.color(now, packet);
        apply_action(self.action(color), color, packet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::testing::packet;

    fn build(yaml: &str) -> Result<Policer, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let spec: PoliceSpec = serde_json::from_value(value).unwrap();
        Policer::build(&spec, "p", 1_000_000, 0)
    }

    #[test]
    fn the_meter_counts_the_link_header_unless_told_ip() {
        // A 1500-byte bucket and a 1490-byte IP packet on Ethernet: as IOS counts it the packet
        // is 1504 bytes and exceeds; counted as its IP bytes (ALTQ) it conforms.
        let on_ethernet = |yaml: &str| {
            let (value, _) = crate::config::yaml::parse(yaml).unwrap();
            let spec: PoliceSpec = serde_json::from_value(value).unwrap();
            Policer::build(&spec, "p", 1_000_000, 14).unwrap()
        };
        let big = packet(1, 1490, 0);
        let mut ios = on_ethernet("{cir: 8kbps, bc: 1500B}");
        assert_eq!(ios.color(SimTime::ZERO, &big), Color::Yellow);
        let mut altq = on_ethernet("{cir: 8kbps, bc: 1500B, counts: ip}");
        assert_eq!(altq.color(SimTime::ZERO, &big), Color::Green);
    }

    #[test]
    fn actions_parse() {
        assert_eq!(PoliceAction::parse("transmit"), Ok(PoliceAction::Transmit));
        assert_eq!(PoliceAction::parse("drop"), Ok(PoliceAction::Drop));
        assert_eq!(PoliceAction::parse("set-dscp-transmit AF13"), Ok(PoliceAction::SetDscpTransmit(14)));
        assert_eq!(PoliceAction::parse("set-prec-transmit 0"), Ok(PoliceAction::SetPrecTransmit(0)));
        assert!(PoliceAction::parse("set-dscp-transmit").unwrap_err().to_string().contains("needs a value"));
        assert!(PoliceAction::parse("forward").unwrap_err().to_string().contains("not a police action"));
    }

    #[test]
    fn default_bursts() {
        // 8 kbit/s: CIR/32 = 250 B, so 1500 B; 1 Mbit/s: 31 250 B.
        assert_eq!(default_burst_bytes(8_000), 1500);
        assert_eq!(default_burst_bytes(1_000_000), 31_250);
    }

    #[test]
    fn burst_tolerance_equals_bc() {
        // A back-to-back burst of exactly Bc bytes passes; one byte more does not.
        for bc in [1500u32, 4470, 10_000] {
            let yaml = format!("{{cir: 64kbps, bc: {bc}B}}");
            let mut p = build(&yaml).unwrap();
            let mut sent = 0;
            let mut id = 0;
            // 100-byte packets then the rest, all at t = 0.
            while sent + 100 <= bc {
                assert_eq!(p.police(SimTime::ZERO, &mut packet(id, 100, 0)), Verdict::Pass);
                sent += 100;
                id += 1;
            }
            if sent < bc {
                assert_eq!(p.police(SimTime::ZERO, &mut packet(id, bc - sent, 0)), Verdict::Pass);
            }
            assert_eq!(
                p.police(SimTime::ZERO, &mut packet(id + 1, 1, 0)),
                Verdict::Drop(DropReason::PolicerExceed),
                "bc {bc}"
            );
            // One packet of Bc + 1 bytes never conforms, even to a full bucket.
            let mut p = build(&yaml).unwrap();
            assert_eq!(p.color(SimTime::ZERO, &packet(0, bc + 1, 0)), Color::Yellow);
            assert_eq!(p.color(SimTime::ZERO, &packet(0, bc, 0)), Color::Green);
        }
    }

    #[test]
    fn long_run_rate_is_cir() {
        // 1000-byte packets at 2 Mbit/s against CIR 512 kbit/s for 20 s: what conforms is
        // bc + CIR × time, within 1 % of CIR over the run.
        let mut p = build("{cir: 512kbps, bc: 4000B}").unwrap();
        let seconds = 20;
        let mut passed_bytes = 0u64;
        for i in 0..(250 * seconds) {
            if p.police(SimTime(i * 4_000_000), &mut packet(i, 1000, 46)) == Verdict::Pass {
                passed_bytes += 1000;
            }
        }
        let rate_bps = passed_bytes as f64 * 8.0 / seconds as f64;
        assert!((rate_bps - 512_000.0).abs() / 512_000.0 < 0.01, "{rate_bps}");
    }

    #[test]
    fn three_colour_forms_and_actions() {
        // Single rate, be 1000 B: CBS 1000 then EBS 1000 at t = 0.
        let mut p = build(
            "{cir: 8kbps, bc: 1000B, be: 1000B, exceed_action: set-dscp-transmit AF13, violate_action: drop}",
        )
        .unwrap();
        let colours: Vec<Color> = (0..5).map(|i| p.color(SimTime::ZERO, &packet(i, 500, 10))).collect();
        use Color::{Green as G, Red as R, Yellow as Y};
        assert_eq!(colours, [G, G, Y, Y, R]);
        let mut yellow = packet(9, 100, 10);
        assert_eq!(apply_action(p.action(Y), Y, &mut yellow), Verdict::Pass);
        assert_eq!(yellow.dscp, 14);
        assert_eq!(
            p.police(SimTime::ZERO, &mut packet(10, 1, 10)),
            Verdict::Drop(DropReason::PolicerViolate)
        );
        // Violate defaults to the exceed action.
        let p = build("{cir: 8kbps, be: 1000B, exceed_action: set-prec-transmit 0}").unwrap();
        assert_eq!(p.action(R), PoliceAction::SetPrecTransmit(0));
        // Two rates: CBS 500 at 8 kbit/s, PBS 1000 at 16 kbit/s.
        let mut p = build("{cir: 8kbps, bc: 500B, pir: 16kbps, be: 1000B}").unwrap();
        let colours: Vec<Color> = (0..4).map(|i| p.color(SimTime::ZERO, &packet(i, 250, 0))).collect();
        assert_eq!(colours, [G, G, Y, Y]);
        assert_eq!(p.color(SimTime::ZERO, &packet(5, 1, 0)), R);
    }

    #[test]
    fn colour_aware_uses_the_af_drop_precedence() {
        use Color::{Green as G, Red as R, Yellow as Y};
        let mut p = build("{cir: 8kbps, bc: 1000B, be: 1000B, color_aware: true}").unwrap();
        // AF11 green, AF12 yellow, AF13 red, EF green; full buckets.
        assert_eq!(p.color(SimTime::ZERO, &packet(0, 100, 10)), G);
        assert_eq!(p.color(SimTime::ZERO, &packet(1, 100, 12)), Y);
        assert_eq!(p.color(SimTime::ZERO, &packet(2, 100, 14)), R);
        assert_eq!(p.color(SimTime::ZERO, &packet(3, 100, 46)), G);
        let mut p = build("{cir: 8kbps, pir: 16kbps, color_aware: {yellow: CS1, red: [CS2]}}").unwrap();
        assert_eq!(p.color(SimTime::ZERO, &packet(0, 100, 8)), Y);
        assert_eq!(p.color(SimTime::ZERO, &packet(1, 100, 16)), R);
        assert_eq!(p.color(SimTime::ZERO, &packet(2, 100, 0)), G);
    }

    #[test]
    fn configuration_errors() {
        let cases = [
            ("{cir: 0kbps}", "p.cir", "above zero"),
            ("{cir: 8kbps, bc: 0B}", "p.bc", "passes nothing"),
            ("{cir: 8kbps, pir: 4kbps}", "p.pir", "below the committed rate"),
            ("{cir: 8kbps, pir: 16kbps, be: 0B}", "p.be", "passes nothing"),
            ("{cir: 8kbps, violate_action: drop}", "p.violate_action", "two colours"),
            ("{cir: 8kbps, conform_action: drop}", "p.conform_action", "not supported"),
            ("{cir: 8kbps, be: 1B, color_aware: {yellow: EF, red: [AF11, EF]}}", "p.color_aware", "DSCP 46"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = build(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
    }
}
