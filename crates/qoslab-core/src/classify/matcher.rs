//! Match conditions on packet headers, as written in scenarios and compiled for speed.
//!
//! A match object is a conjunction: every condition it names must hold, and a list value
//! (`dscp: [EF, AF41]`) holds when any element matches. `any:` holds when at least one of
//! its sub-matches holds (IOS `class-map match-any`), `all:` when all do (`match-all`). An
//! empty match holds for every packet (IOS `match any`); `not:` holds when its sub-match
//! does not (IOS `match not`, and access-list entries after a `deny`). Compiled form: DSCP and precedence
//! fold into one 64-bit mask; prefixes are (address, mask) pairs; ports and lengths are
//! inclusive ranges. Cost per packet: a handful of comparisons, no allocation.

use super::dscp::{Dscp, Precedence};
use crate::config::error::{join_path, Issue};
use crate::config::one_or_many::OneOrMany;
use crate::config::scalar::{parse_scalar, Numbers};
use crate::packet::{Packet, Protocol};
use crate::units::Size;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// A port or port range that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PortRangeError {
    /// Not a number from 0 to 65535.
    #[error("`{text}` is not a port number (0-65535)")]
    NotAPort { text: String },
    /// The low end above the high end.
    #[error("port range `{text}` runs backwards: write low-high")]
    Backwards { text: String },
}

/// An inclusive port range, written `5060` or `"16384-32767"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PortRange(pub u16, pub u16);

impl PortRange {
    /// Parses `5060` or `16384-32767`.
    pub fn parse(text: &str) -> Result<PortRange, PortRangeError> {
        let port =
            |s: &str| s.trim().parse::<u16>().map_err(|_| PortRangeError::NotAPort { text: s.to_owned() });
        match text.split_once('-') {
            Some((low, high)) => match (port(low)?, port(high)?) {
                (l, h) if l <= h => Ok(PortRange(l, h)),
                _ => Err(PortRangeError::Backwards { text: text.to_owned() }),
            },
            None => port(text).map(|p| PortRange(p, p)),
        }
    }
}

impl<'de> Deserialize<'de> for PortRange {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_scalar(d, Numbers::AsText, PortRange::parse)
    }
}

impl JsonSchema for PortRange {
    fn schema_name() -> Cow<'static, str> {
        "PortRange".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "a port (5060) or an inclusive range (\"16384-32767\")",
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": 65535},
                {"type": "string", "pattern": "^[0-9]+(-[0-9]+)?$"}
            ]
        })
    }
}

/// An inclusive range of IP packet lengths.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LengthRange {
    /// Smallest matching IP packet size (default 0 B).
    pub min: Option<Size>,
    /// Largest matching IP packet size (default: no limit).
    pub max: Option<Size>,
}

/// A match condition as written in a scenario.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct MatchSpec {
    /// DSCP values (numbers or names).
    pub dscp: Option<OneOrMany<Dscp>>,
    /// IP precedence values (numbers or IOS names).
    pub precedence: Option<OneOrMany<Precedence>>,
    /// IP protocols: `udp`, `tcp`, `icmp` or a number.
    pub protocol: Option<OneOrMany<Protocol>>,
    /// Source: a prefix (`10.1.0.0/16`), an address, or a node name.
    pub src: Option<OneOrMany<String>>,
    /// Destination: a prefix, an address, or a node name.
    pub dst: Option<OneOrMany<String>>,
    /// Source ports or ranges.
    pub src_port: Option<OneOrMany<PortRange>>,
    /// Destination ports or ranges.
    pub dst_port: Option<OneOrMany<PortRange>>,
    /// IP packet length range.
    pub length: Option<LengthRange>,
    /// Holds when any of these holds (match-any).
    pub any: Option<Vec<MatchSpec>>,
    /// Holds when all of these hold (match-all).
    pub all: Option<Vec<MatchSpec>>,
    /// Holds when this does not.
    pub not: Option<Box<MatchSpec>>,
}

/// An address prefix: `addr & mask == network`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Prefix {
    pub(crate) network: u32,
    pub(crate) mask: u32,
}

/// A compiled match condition: the packet must meet every field given (a field's values
/// are alternatives), every condition of `all`, one of `any` (when given) and not `not`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matcher {
    /// Bit d set: DSCP d is accepted (all bits: any DSCP).
    pub(crate) dscp_mask: u64,
    /// Accepted IP protocols (empty: any).
    pub(crate) protocols: Vec<u8>,
    /// Accepted source prefixes (empty: any).
    pub(crate) src: Vec<Prefix>,
    /// Accepted destination prefixes (empty: any).
    pub(crate) dst: Vec<Prefix>,
    /// Accepted source port ranges (empty: any).
    pub(crate) src_ports: Vec<PortRange>,
    /// Accepted destination port ranges (empty: any).
    pub(crate) dst_ports: Vec<PortRange>,
    /// Accepted IP lengths, inclusive.
    pub(crate) length_bytes: (u32, u32),
    pub(crate) any: Vec<Matcher>,
    pub(crate) all: Vec<Matcher>,
    pub(crate) not: Option<Box<Matcher>>,
}

/// Parses `a.b.c.d` into a host-order address.
pub fn parse_ipv4(text: &str) -> Option<u32> {
    let parts: Vec<u8> = text.split('.').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    (parts.len() == 4).then(|| u32::from_be_bytes([parts[0], parts[1], parts[2], parts[3]]))
}

/// Formats a host-order address as `a.b.c.d`.
pub fn format_ipv4(addr: u32) -> String {
    let [a, b, c, d] = addr.to_be_bytes();
    format!("{a}.{b}.{c}.{d}")
}

fn compile_prefixes(
    specs: &Option<OneOrMany<String>>,
    path: &str,
    node_address: &dyn Fn(&str) -> Option<u32>,
) -> Result<Vec<Prefix>, Issue> {
    let Some(OneOrMany(specs)) = specs else {
        return Ok(Vec::new());
    };
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let at = format!("{path}[{i}]");
            let (addr_text, len_text) = spec.split_once('/').unwrap_or((spec, "32"));
            let length: u32 = len_text.parse().ok().filter(|l| *l <= 32).ok_or_else(|| {
                Issue::at(&at, format!("`{spec}` has a bad prefix length")).hint("use 0-32, e.g. 10.1.0.0/16")
            })?;
            let addr = parse_ipv4(addr_text)
                .or_else(|| (length == 32).then(|| node_address(addr_text)).flatten())
                .ok_or_else(|| {
                    Issue::at(&at, format!("`{spec}` is neither an address, a prefix nor a node name"))
                        .hint("write a.b.c.d, a.b.c.d/len, or the name of a node in topology.nodes")
                })?;
            let mask = if length == 0 { 0 } else { u32::MAX << (32 - length) };
            Ok(Prefix { network: addr & mask, mask })
        })
        .collect()
}

impl MatchSpec {
    /// Compiles the condition; `node_address` resolves node names used as addresses.
    pub fn compile(&self, path: &str, node_address: &dyn Fn(&str) -> Option<u32>) -> Result<Matcher, Issue> {
        // A list that names nothing would silently match nothing (or, read the other way,
        // everything): refuse it instead.
        let lengths = [
            ("dscp", self.dscp.as_ref().map(|l| l.0.len())),
            ("precedence", self.precedence.as_ref().map(|l| l.0.len())),
            ("protocol", self.protocol.as_ref().map(|l| l.0.len())),
            ("src", self.src.as_ref().map(|l| l.0.len())),
            ("dst", self.dst.as_ref().map(|l| l.0.len())),
            ("src_port", self.src_port.as_ref().map(|l| l.0.len())),
            ("dst_port", self.dst_port.as_ref().map(|l| l.0.len())),
            ("any", self.any.as_ref().map(Vec::len)),
            ("all", self.all.as_ref().map(Vec::len)),
        ];
        if let Some((key, _)) = lengths.iter().find(|(_, len)| *len == Some(0)) {
            return Err(Issue::at(join_path(path, key), format!("an empty `{key}:` list is ambiguous"))
                .hint("list at least one value, or leave the key out to match any value"));
        }
        let mut dscp_mask = u64::MAX;
        if let Some(OneOrMany(values)) = &self.dscp {
            dscp_mask &= values.iter().fold(0, |m, d| m | 1u64 << d.0);
        }
        if let Some(OneOrMany(values)) = &self.precedence {
            // Precedence p covers DSCPs 8p ..= 8p + 7.
            dscp_mask &= values.iter().fold(0, |m, p| m | 0xffu64 << (8 * p.0));
        }
        let protocols = self.protocol.as_ref().map_or_else(Vec::new, |p| p.0.iter().map(|p| p.0).collect());
        let length_bytes = match &self.length {
            None => (0, u32::MAX),
            Some(range) => {
                let low = range.min.map_or(0, |s| s.0);
                let high = range.max.map_or(u32::MAX as u64, |s| s.0);
                if low > high {
                    return Err(Issue::at(join_path(path, "length"), "`min` is larger than `max`"));
                }
                (low.min(u32::MAX as u64) as u32, high.min(u32::MAX as u64) as u32)
            }
        };
        let compile_list = |list: &Option<Vec<MatchSpec>>, key: &str| -> Result<Vec<Matcher>, Issue> {
            list.iter()
                .flatten()
                .enumerate()
                .map(|(i, m)| m.compile(&format!("{}[{i}]", join_path(path, key)), node_address))
                .collect()
        };
        let any = compile_list(&self.any, "any")?;
        Ok(Matcher {
            dscp_mask,
            protocols,
            src: compile_prefixes(&self.src, &join_path(path, "src"), node_address)?,
            dst: compile_prefixes(&self.dst, &join_path(path, "dst"), node_address)?,
            src_ports: self.src_port.as_ref().map_or_else(Vec::new, |p| p.0.clone()),
            dst_ports: self.dst_port.as_ref().map_or_else(Vec::new, |p| p.0.clone()),
            length_bytes,
            any,
            all: compile_list(&self.all, "all")?,
            not: match &self.not {
                None => None,
                Some(inner) => Some(Box::new(inner.compile(&join_path(path, "not"), node_address)?)),
            },
        })
    }
}

#[inline]
fn in_ranges(port: u16, ranges: &[PortRange]) -> bool {
    ranges.is_empty() || ranges.iter().any(|r| r.0 <= port && port <= r.1)
}

#[inline]
fn in_prefixes(addr: u32, prefixes: &[Prefix]) -> bool {
    prefixes.is_empty() || prefixes.iter().any(|p| addr & p.mask == p.network)
}

impl Matcher {
    /// A condition that every packet meets.
    pub fn everything() -> Self {
        MatchSpec::default().compile("", &|_| None).expect("the empty match compiles")
    }

    /// Whether `packet` meets the condition.
    #[inline]
    pub fn matches(&self, packet: &Packet) -> bool {
        self.dscp_mask & (1u64 << packet.dscp) != 0
            && (self.protocols.is_empty() || self.protocols.contains(&packet.protocol))
            && in_prefixes(packet.src_addr, &self.src)
            && in_prefixes(packet.dst_addr, &self.dst)
            && in_ranges(packet.src_port, &self.src_ports)
            && in_ranges(packet.dst_port, &self.dst_ports)
            && (self.length_bytes.0..=self.length_bytes.1).contains(&packet.size_bytes)
            && (self.any.is_empty() || self.any.iter().any(|m| m.matches(packet)))
            && self.all.iter().all(|m| m.matches(packet))
            && self.not.as_ref().is_none_or(|m| !m.matches(packet))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn packet() -> Packet {
        Packet {
            id: 0,
            created: SimTime::ZERO,
            flow: crate::ids::FlowId(0),
            dst_node: crate::ids::NodeId(0),
            size_bytes: 200,
            src_addr: parse_ipv4("10.0.1.5").unwrap(),
            dst_addr: parse_ipv4("10.0.2.9").unwrap(),
            src_port: 16_400,
            dst_port: 5_060,
            protocol: crate::packet::protocol::UDP,
            dscp: 46,
            ecn: 0,
            counted: true,
            hop_slot: crate::packet::NO_HOP,
            hop_in: SimTime::ZERO,
            segment: None,
            fragment: crate::packet::Fragment::Whole,
            outer_overhead_bytes: 0,
            inner_dscp: 0,
        }
    }

    fn compile(yaml: &str) -> Result<Matcher, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let spec: MatchSpec = serde_json::from_value(value).unwrap();
        spec.compile("m", &|name| (name == "phone").then(|| parse_ipv4("10.0.1.5").unwrap()))
    }

    #[test]
    fn table_of_conditions() {
        let p = packet();
        let cases = [
            ("{}", true),
            ("{dscp: EF}", true),
            ("{dscp: [AF41, 46]}", true),
            ("{dscp: AF41}", false),
            ("{precedence: critical}", true), // 46 >> 3 = 5
            ("{precedence: 4}", false),
            ("{dscp: EF, precedence: 4}", false), // conjunction
            ("{protocol: udp}", true),
            ("{protocol: [tcp, 1]}", false),
            ("{src: 10.0.1.0/24}", true),
            ("{src: 10.0.2.0/24}", false),
            ("{src: phone}", true),
            ("{dst: 10.0.0.0/8, dst_port: 5060}", true),
            ("{dst_port: '5000-5059'}", false),
            ("{src_port: ['16384-32767']}", true),
            ("{length: {min: 100B, max: 200B}}", true),
            ("{length: {max: 199B}}", false),
            ("{any: [{dscp: AF11}, {dst_port: 5060}]}", true),
            ("{any: [{dscp: AF11}, {dst_port: 5061}]}", false),
            ("{all: [{dscp: EF}, {protocol: udp}]}", true),
            ("{all: [{dscp: EF}, {protocol: tcp}]}", false),
        ];
        for (yaml, expected) in cases {
            assert_eq!(compile(yaml).unwrap().matches(&p), expected, "{yaml}");
        }
        assert!(Matcher::everything().matches(&p));
    }

    #[test]
    fn port_ranges() {
        assert_eq!(PortRange::parse("5060"), Ok(PortRange(5060, 5060)));
        assert_eq!(PortRange::parse("16384-32767"), Ok(PortRange(16384, 32767)));
        assert!(PortRange::parse("20-10").unwrap_err().to_string().contains("backwards"));
        assert!(PortRange::parse("70000").unwrap_err().to_string().contains("not a port"));
    }

    #[test]
    fn bad_conditions_name_their_place() {
        let cases = [
            ("{src: nowhere}", "m.src[0]", "neither an address"),
            ("{dst: 10.0.0.0/33}", "m.dst[0]", "bad prefix length"),
            ("{any: []}", "m.any", "empty `any:` list"),
            ("{dscp: []}", "m.dscp", "empty `dscp:` list"),
            ("{dst_port: []}", "m.dst_port", "empty `dst_port:` list"),
            ("{length: {min: 300B, max: 200B}}", "m.length", "larger than"),
            ("{all: [{src: x}]}", "m.all[0].src[0]", "neither an address"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = compile(yaml).unwrap_err();
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
    }
}
