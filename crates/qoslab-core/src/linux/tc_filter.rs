//! A scenario `match` as `tc` u32 selectors.
//!
//! The u32 classifier compares 8-, 16- or 32-bit words of the packet, each under a mask, and
//! a filter holds when all its selectors do (`tc-u32(8)`). A compiled [`Matcher`] is turned
//! into a disjunction of such conjunctions:
//!
//! * a field's list of values is one of them: DSCPs as aligned blocks of the ToS byte
//!   (`match ip dsfield 0xb8 0xfc` is EF; precedence 5, DSCPs 40–47, is one block
//!   `0xa0 0xe0`), protocols, source and destination prefixes, port ranges as aligned
//!   blocks of the 16-bit port (`match ip dport 16384 0xc000` is 16384–32767), IP lengths
//!   as aligned blocks of the total-length word at offset 2;
//! * `all` multiplies out, `any` adds alternatives;
//! * `not` has no u32 form (a filter cannot say "none of these") and is refused.
//!
//! `ip sport` and `ip dport` read the transport header at offset 20, which holds for the
//! option-less IPv4 packets qoslab sends.

use crate::classify::matcher::{format_ipv4, Matcher, PortRange};
use crate::config::error::{join_path, Issue};

/// Most filters one class's condition may become before the export refuses it.
pub const MAX_FILTERS_PER_CLASS: usize = 256;

/// The condition `matcher`, found at `at`, as alternatives, each the u32 selectors that
/// must all hold (`match ip dsfield 0xb8 0xfc`, ...). One empty alternative matches every
/// packet.
pub fn u32_selectors(matcher: &Matcher, at: &str) -> Result<Vec<Vec<String>>, Issue> {
    if matcher.not.is_some() {
        return Err(Issue::at(join_path(at, "not"), "tc's u32 filters cannot express `not`").hint(
            "list what the class takes instead (e.g. the other DSCPs), or order the classes so that an earlier one takes the excluded packets",
        ));
    }
    let mut fields: Vec<Vec<String>> = Vec::new();
    if matcher.dscp_mask != u64::MAX {
        let values: Vec<u32> = (0..64).filter(|d| matcher.dscp_mask & (1u64 << d) != 0).collect();
        fields.push(
            aligned_blocks(&values, 6)
                .into_iter()
                .map(|(value, mask)| format!("match ip dsfield {:#04x} {:#04x}", value << 2, mask << 2))
                .collect(),
        );
    }
    if !matcher.protocols.is_empty() {
        fields.push(matcher.protocols.iter().map(|p| format!("match ip protocol {p} 0xff")).collect());
    }
    for (prefixes, word) in [(&matcher.src, "src"), (&matcher.dst, "dst")] {
        if !prefixes.is_empty() {
            fields.push(
                prefixes
                    .iter()
                    .map(|p| format!("match ip {word} {}/{}", format_ipv4(p.network), p.mask.count_ones()))
                    .collect(),
            );
        }
    }
    for (ranges, word) in [(&matcher.src_ports, "sport"), (&matcher.dst_ports, "dport")] {
        if !ranges.is_empty() {
            fields.push(
                port_blocks(ranges)
                    .into_iter()
                    .map(|(value, mask)| format!("match ip {word} {value} {mask:#06x}"))
                    .collect(),
            );
        }
    }
    let (low, high) = matcher.length_bytes;
    if low > 0 || high < u16::MAX as u32 {
        let lengths: Vec<PortRange> = if low > u16::MAX as u32 {
            Vec::new()
        } else {
            vec![PortRange(low as u16, high.min(u16::MAX as u32) as u16)]
        };
        if lengths.is_empty() {
            return Err(Issue::at(join_path(at, "length"), "no IPv4 packet is that long")
                .hint("an IPv4 packet is at most 65 535 bytes"));
        }
        fields.push(
            port_blocks(&lengths)
                .into_iter()
                .map(|(value, mask)| format!("match u16 {value} {mask:#06x} at 2"))
                .collect(),
        );
    }
    let mut alternatives: Vec<Vec<String>> = vec![Vec::new()];
    for field in fields {
        alternatives = product(&alternatives, &field.into_iter().map(|s| vec![s]).collect::<Vec<_>>(), at)?;
    }
    for (i, inner) in matcher.all.iter().enumerate() {
        let inner = u32_selectors(inner, &format!("{}[{i}]", join_path(at, "all")))?;
        alternatives = product(&alternatives, &inner, at)?;
    }
    if !matcher.any.is_empty() {
        let mut either = Vec::new();
        for (i, inner) in matcher.any.iter().enumerate() {
            either.extend(u32_selectors(inner, &format!("{}[{i}]", join_path(at, "any")))?);
        }
        alternatives = product(&alternatives, &either, at)?;
    }
    Ok(alternatives)
}

/// Every conjunction of one alternative of `left` with one of `right`, refused beyond
/// [`MAX_FILTERS_PER_CLASS`].
fn product(left: &[Vec<String>], right: &[Vec<String>], at: &str) -> Result<Vec<Vec<String>>, Issue> {
    if left.len() * right.len() > MAX_FILTERS_PER_CLASS {
        return Err(Issue::at(
            at,
            format!(
                "the condition becomes {} u32 filters, more than the {MAX_FILTERS_PER_CLASS} tc export writes for one class",
                left.len() * right.len()
            ),
        )
        .hint("match on fewer values, or on prefixes and aligned port ranges"));
    }
    Ok(left.iter().flat_map(|l| right.iter().map(move |r| [l.as_slice(), r.as_slice()].concat())).collect())
}

/// `ranges` of a 16-bit field as (value, mask) blocks of aligned powers of two.
fn port_blocks(ranges: &[PortRange]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for &PortRange(low, high) in ranges {
        let (mut at, high) = (low as u32, high as u32);
        while at <= high {
            // The largest aligned block starting at `at` that stays within the range.
            let mut size = if at == 0 { 1 << 16 } else { 1 << at.trailing_zeros() };
            while at + size - 1 > high {
                size >>= 1;
            }
            out.push((at, 0xffff & !(size - 1)));
            at += size;
        }
    }
    out
}

/// The sorted distinct `values` of a `bits`-bit field as (value, mask) blocks of aligned
/// powers of two (the fewest such blocks covering exactly those values).
fn aligned_blocks(values: &[u32], bits: u32) -> Vec<(u32, u32)> {
    let full = (1u32 << bits) - 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let at = values[i];
        let mut size = if at == 0 { 1 << bits } else { 1 << at.trailing_zeros() };
        // Shrink until every value of the block is present.
        while size > 1 && !(0..size).all(|k| values.contains(&(at + k))) {
            size >>= 1;
        }
        out.push((at, full & !(size - 1)));
        i += size as usize;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::matcher::MatchSpec;

    fn selectors(yaml: &str) -> Result<Vec<Vec<String>>, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let spec: MatchSpec = serde_json::from_value(value).unwrap();
        let matcher = spec.compile("m", &|name| (name == "gw").then_some(0x0a00_0001)).unwrap();
        u32_selectors(&matcher, "m")
    }

    #[test]
    fn codepoints_become_aligned_blocks_of_the_tos_byte() {
        assert_eq!(selectors("{dscp: EF}").unwrap(), [["match ip dsfield 0xb8 0xfc"]]);
        // Precedence 5 is DSCPs 40-47: one block of eight.
        assert_eq!(selectors("{precedence: 5}").unwrap(), [["match ip dsfield 0xa0 0xe0"]]);
        // AF41, AF42, AF43 are 34, 36, 38: three blocks of one.
        assert_eq!(selectors("{dscp: [AF41, AF42, AF43]}").unwrap().len(), 3);
    }

    #[test]
    fn fields_multiply_and_any_adds() {
        let got = selectors("{dscp: [EF, CS5], protocol: udp, dst: gw}").unwrap();
        assert_eq!(
            got,
            [
                ["match ip dsfield 0xa0 0xfc", "match ip protocol 17 0xff", "match ip dst 10.0.0.1/32"],
                ["match ip dsfield 0xb8 0xfc", "match ip protocol 17 0xff", "match ip dst 10.0.0.1/32"],
            ]
        );
        let either = selectors("{any: [{dscp: EF}, {dst_port: 5060}]}").unwrap();
        assert_eq!(either, [vec!["match ip dsfield 0xb8 0xfc"], vec!["match ip dport 5060 0xffff"]]);
        assert_eq!(selectors("{}").unwrap(), [Vec::<String>::new()]);
    }

    #[test]
    fn port_and_length_ranges_become_aligned_blocks() {
        assert_eq!(selectors("{dst_port: 16384-32767}").unwrap(), [["match ip dport 16384 0xc000"]]);
        // 1000-1003 and 1004: one block of four and one of one.
        assert_eq!(
            selectors("{src_port: 1000-1004}").unwrap(),
            [["match ip sport 1000 0xfffc"], ["match ip sport 1004 0xffff"]]
        );
        assert_eq!(selectors("{length: {max: 255B}}").unwrap(), [["match u16 0 0xff00 at 2"]]);
    }

    #[test]
    fn what_u32_cannot_say_is_refused_at_its_key() {
        let issue = selectors("{not: {dscp: EF}}").unwrap_err();
        assert_eq!(issue.key_path, "m.not");
        assert!(issue.message.contains("cannot express `not`"));
        let issue = selectors("{src_port: 3-65534, dst_port: 3-65534}").unwrap_err();
        assert!(issue.message.contains("u32 filters, more than the 256"), "{}", issue.message);
    }
}
