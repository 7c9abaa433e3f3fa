//! The access-list algebra of an export: a scenario match (`all`, `any`, `not` over
//! protocols, prefixes, ports, DSCP and precedence) as class-map `match` statements and
//! numbered extended access lists (Security Command Reference, `access-list (IP extended)`).
//!
//! A match's own fields expand to entries, one per combination of values (the cross product,
//! contradictions dropped: two prefixes meet only if one contains the other, port ranges
//! intersect, a DSCP and a precedence agree only when the DSCP's class selector is the
//! precedence). `all` crosses alternatives, `any` unites them, and `not` adds `deny` entries
//! to each alternative. An access list decides on its first matching entry, so the
//! alternatives are written in order of growing exclusions, each one's denies placed before
//! its permits; that is possible only when each alternative's exclusions contain those of
//! every alternative before it, and a match whose exclusions differ otherwise is refused.
//! A list with no permit is written as one explicit `deny`, since IOS keeps no empty list.

use super::lines::dscp_name;
use crate::classify::matcher::{format_ipv4, parse_ipv4, MatchSpec, PortRange};
use crate::config::error::{join_path, Issue};
use crate::config::one_or_many::OneOrMany;
use std::fmt::Write;

/// The most values one `match ip dscp` takes (QoS CR, `match dscp`).
const MAX_MATCH_DSCP: usize = 8;
/// The most values one `match ip precedence` takes (QoS CR, `match precedence`).
const MAX_MATCH_PRECEDENCE: usize = 4;
/// The most entries one access list is given; a match that needs more is refused rather
/// than written as a list no one can read.
const MAX_ACL_ENTRIES: usize = 512;

/// Refuses a match that expands to more access-list entries than a list may hold.
fn check_acl_entries(entries: usize, at: &str) -> Result<(), Issue> {
    if entries > MAX_ACL_ENTRIES {
        return Err(Issue::at(
            at,
            format!("the match expands to more than {MAX_ACL_ENTRIES} access-list entries"),
        )
        .hint("match on fewer combinations of values, e.g. one prefix instead of a list of addresses"));
    }
    Ok(())
}

/// A prefix: network and length.
type Prefix = (u32, u32);

fn mask(length: u32) -> u32 {
    if length == 0 {
        0
    } else {
        u32::MAX << (32 - length)
    }
}

/// One access-list entry's conditions: each field one value, or any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Entry {
    protocol: Option<u8>,
    src: Option<Prefix>,
    src_port: Option<(u16, u16)>,
    dst: Option<Prefix>,
    dst_port: Option<(u16, u16)>,
    dscp: Option<u8>,
    precedence: Option<u8>,
}

/// Both `a` and `b`: `None` when they cannot both hold.
pub(super) fn same<T: PartialEq + Copy>(a: Option<T>, b: Option<T>) -> Option<Option<T>> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => None,
        (x, y) => Some(x.or(y)),
    }
}

impl Entry {
    /// The entry for packets both entries match, if any can.
    fn and(&self, other: &Entry) -> Option<Entry> {
        let prefix = |a: Option<Prefix>, b: Option<Prefix>| match (a, b) {
            (Some(p), Some(q)) => {
                let (wide, narrow) = if p.1 <= q.1 { (p, q) } else { (q, p) };
                (narrow.0 & mask(wide.1) == wide.0).then_some(Some(narrow))
            }
            (x, y) => Some(x.or(y)),
        };
        let ports = |a: Option<(u16, u16)>, b: Option<(u16, u16)>| match (a, b) {
            (Some(p), Some(q)) => {
                let (low, high) = (p.0.max(q.0), p.1.min(q.1));
                (low <= high).then_some(Some((low, high)))
            }
            (x, y) => Some(x.or(y)),
        };
        Entry {
            protocol: same(self.protocol, other.protocol)?,
            src: prefix(self.src, other.src)?,
            src_port: ports(self.src_port, other.src_port)?,
            dst: prefix(self.dst, other.dst)?,
            dst_port: ports(self.dst_port, other.dst_port)?,
            dscp: same(self.dscp, other.dscp)?,
            precedence: same(self.precedence, other.precedence)?,
        }
        .normal()
    }

    /// The same conditions in the form an entry takes: a whole port range is no port
    /// condition, and a precedence beside the DSCP it agrees with is dropped.
    fn normal(mut self) -> Option<Entry> {
        for port in [&mut self.src_port, &mut self.dst_port] {
            if *port == Some((0, u16::MAX)) {
                *port = None;
            }
        }
        match (self.dscp, self.precedence) {
            (Some(d), Some(p)) if d >> 3 == p => Some(Entry { precedence: None, ..self }),
            (Some(_), Some(_)) => None,
            _ => Some(self),
        }
    }
}

/// Every entry of `a` with every entry of `b`, contradictions dropped, first occurrences
/// kept in order.
fn cross(a: &[Entry], b: &[Entry], at: &str) -> Result<Vec<Entry>, Issue> {
    let mut out: Vec<Entry> = Vec::new();
    for x in a {
        for y in b {
            if let Some(both) = x.and(y) {
                if !out.contains(&both) {
                    out.push(both);
                }
            }
        }
        check_acl_entries(out.len(), at)?;
    }
    Ok(out)
}

/// An alternative of a match: packets matching one of `permits` and none of `denies`.
#[derive(Clone, Debug)]
struct Alternative {
    permits: Vec<Entry>,
    denies: Vec<Entry>,
}

/// What resolves a node name used as an address in a match.
pub(super) type NodeAddress<'a> = &'a dyn Fn(&str) -> Option<u32>;

/// Builds the entries of matches, resolving node names.
pub(super) struct Matches<'a> {
    pub(super) node_address: NodeAddress<'a>,
}

pub(super) fn only<T>(list: &Option<OneOrMany<T>>) -> impl Iterator<Item = &T> {
    list.iter().flat_map(|l| l.0.iter())
}

pub(super) fn is_empty(m: &MatchSpec) -> bool {
    *m == MatchSpec::default()
}

/// `{not: {}}`, which no packet matches.
fn is_nothing(m: &MatchSpec) -> bool {
    m.not.as_deref().is_some_and(is_empty) && MatchSpec { not: None, ..m.clone() } == MatchSpec::default()
}

/// The match holds only `key`.
fn only_key(m: &MatchSpec, key: &str) -> bool {
    let bare = match key {
        "dscp" => MatchSpec { dscp: None, ..m.clone() },
        "precedence" => MatchSpec { precedence: None, ..m.clone() },
        "not" => MatchSpec { not: None, ..m.clone() },
        _ => MatchSpec { any: None, ..m.clone() },
    };
    !is_empty(m) && is_empty(&bare)
}

impl Matches<'_> {
    fn prefix(&self, text: &str, at: &str) -> Result<Prefix, Issue> {
        let (address, length) = text.split_once('/').unwrap_or((text, "32"));
        let length: u32 = length
            .parse()
            .ok()
            .filter(|l| *l <= 32)
            .ok_or_else(|| Issue::at(at, format!("`{text}` has a bad prefix length")))?;
        let address = parse_ipv4(address)
            .or_else(|| (length == 32).then(|| (self.node_address)(address)).flatten())
            .ok_or_else(|| {
                Issue::at(at, format!("`{text}` is neither an address, a prefix nor a node name"))
            })?;
        Ok((address & mask(length), length))
    }

    /// The entries of a match's own fields (not `all`, `any` or `not`): one per combination.
    fn fields(&self, m: &MatchSpec, at: &str) -> Result<Vec<Entry>, Issue> {
        if m.length.is_some() {
            return Err(Issue::at(join_path(at, "length"), "qoslab does not read IOS's `match packet length` back, and Cisco's texts differ on whether its bounds count")
                .hint("classify by DSCP, addresses, ports or protocol instead"));
        }
        let one = Entry::default();
        let mut entries = vec![one];
        let add = |alternatives: Vec<Entry>, entries: &mut Vec<Entry>| -> Result<(), Issue> {
            if !alternatives.is_empty() {
                *entries = cross(entries, &alternatives, at)?;
            }
            Ok(())
        };
        add(only(&m.protocol).map(|p| Entry { protocol: Some(p.0), ..one }).collect(), &mut entries)?;
        let prefixes = |list: &Option<OneOrMany<String>>, key: &str| -> Result<Vec<Prefix>, Issue> {
            only(list)
                .enumerate()
                .map(|(i, text)| self.prefix(text, &format!("{}[{i}]", join_path(at, key))))
                .collect()
        };
        let src = prefixes(&m.src, "src")?;
        let dst = prefixes(&m.dst, "dst")?;
        add(src.into_iter().map(|p| Entry { src: Some(p), ..one }).collect(), &mut entries)?;
        add(dst.into_iter().map(|p| Entry { dst: Some(p), ..one }).collect(), &mut entries)?;
        let port = |r: &PortRange| (r.0, r.1);
        add(only(&m.src_port).map(|r| Entry { src_port: Some(port(r)), ..one }).collect(), &mut entries)?;
        add(only(&m.dst_port).map(|r| Entry { dst_port: Some(port(r)), ..one }).collect(), &mut entries)?;
        add(only(&m.dscp).map(|d| Entry { dscp: Some(d.0), ..one }).collect(), &mut entries)?;
        add(only(&m.precedence).map(|p| Entry { precedence: Some(p.0), ..one }).collect(), &mut entries)?;
        Ok(entries)
    }

    /// The entries of a match without `not` anywhere.
    fn terms(&self, m: &MatchSpec, at: &str) -> Result<Vec<Entry>, Issue> {
        let alternatives = self.alternatives(m, at)?;
        if alternatives.iter().any(|a| !a.denies.is_empty()) {
            return Err(Issue::at(at, "a `not` inside a `not` is more than one access list can say")
                .hint("write the exclusion once, at the level of the match it excludes from"));
        }
        let mut entries: Vec<Entry> = Vec::new();
        for entry in alternatives.into_iter().flat_map(|a| a.permits) {
            if !entries.contains(&entry) {
                entries.push(entry);
            }
        }
        Ok(entries)
    }

    /// The match as alternatives, each a set of permitted entries less a set of denied ones.
    fn alternatives(&self, m: &MatchSpec, at: &str) -> Result<Vec<Alternative>, Issue> {
        let mut alternatives = vec![Alternative { permits: self.fields(m, at)?, denies: Vec::new() }];
        for (i, sub) in m.all.iter().flatten().enumerate() {
            let theirs = self.alternatives(sub, &format!("{}[{i}]", join_path(at, "all")))?;
            alternatives = conjoin(&alternatives, &theirs, at)?;
        }
        if let Some(any) = &m.any {
            let mut union = Vec::new();
            for (i, sub) in any.iter().enumerate() {
                union.extend(self.alternatives(sub, &format!("{}[{i}]", join_path(at, "any")))?);
            }
            alternatives = conjoin(&alternatives, &union, at)?;
        }
        if let Some(excluded) = &m.not {
            let not_at = join_path(at, "not");
            match &excluded.not {
                // not(not(x)) is x.
                Some(inner) if only_key(excluded, "not") => {
                    let theirs = self.alternatives(inner, &join_path(&not_at, "not"))?;
                    alternatives = conjoin(&alternatives, &theirs, at)?;
                }
                _ => {
                    let denies = self.terms(excluded, &not_at)?;
                    for alternative in &mut alternatives {
                        alternative.denies.extend(denies.iter().copied());
                    }
                }
            }
        }
        Ok(alternatives)
    }

    /// The access list of a match: `(permit, entry)` in order.
    pub(super) fn acl(&self, m: &MatchSpec, at: &str) -> Result<Vec<(bool, Entry)>, Issue> {
        let mut alternatives: Vec<Alternative> =
            self.alternatives(m, at)?.into_iter().filter(|a| !a.permits.is_empty()).collect();
        // First match decides: alternatives that exclude nothing first, then those whose
        // exclusions grow, each one's denies covering every deny before it.
        alternatives.sort_by_key(|a| a.denies.len());
        let mut lines: Vec<(bool, Entry)> = Vec::new();
        let mut denied: Vec<Entry> = Vec::new();
        for alternative in &alternatives {
            if denied.iter().any(|d| !alternative.denies.contains(d)) {
                return Err(Issue::at(at, "the match's exclusions (`not`) differ between its alternatives in a way no order of access-list entries can say")
                    .hint("split the class in two, or exclude the same packets from every alternative"));
            }
            for deny in &alternative.denies {
                if !denied.contains(deny) {
                    denied.push(*deny);
                    lines.push((false, *deny));
                }
            }
            for permit in &alternative.permits {
                if !lines.contains(&(true, *permit)) {
                    lines.push((true, *permit));
                }
            }
        }
        if !lines.iter().any(|(permit, _)| *permit) {
            // Nothing can match: an explicit deny, since IOS keeps no empty list.
            lines = vec![(false, Entry::default())];
        }
        for (_, entry) in &lines {
            let ports = entry.src_port.or(entry.dst_port);
            if let Some((low, high)) = ports {
                if !matches!(entry.protocol, Some(6 | 17)) {
                    let port = if low == high { low.to_string() } else { format!("{low}-{high}") };
                    return Err(Issue::at(at, format!("IOS's access lists take ports only for TCP and UDP, and this match gives port {port} without `protocol: tcp` or `udp`"))
                        .hint("add `protocol: udp` (or `tcp`, or both as a list) next to the port"));
                }
            }
        }
        check_acl_entries(lines.len(), at)?;
        Ok(lines)
    }
}

/// `a` and `b`: each alternative of one with each of the other.
fn conjoin(a: &[Alternative], b: &[Alternative], at: &str) -> Result<Vec<Alternative>, Issue> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            let permits = cross(&x.permits, &y.permits, at)?;
            if permits.is_empty() {
                continue;
            }
            let mut denies = x.denies.clone();
            denies.extend(y.denies.iter().filter(|d| !x.denies.contains(d)));
            out.push(Alternative { permits, denies });
        }
    }
    Ok(out)
}

/// One `match` statement of a class map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Statement {
    Any,
    Dscp(Vec<u8>),
    Precedence(Vec<u8>),
    AccessList(Vec<(bool, Entry)>),
    Not(Box<Statement>),
}

fn deduplicated<T: PartialEq + Copy>(values: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for value in values {
        if !out.contains(&value) {
            out.push(value);
        }
    }
    out
}

impl Matches<'_> {
    /// A class map for match `m`: match-all (true) or match-any, and its statements (none:
    /// it matches nothing).
    pub(super) fn class_map(&self, m: &MatchSpec, at: &str) -> Result<(bool, Vec<Statement>), Issue> {
        if is_empty(m) {
            return Ok((true, vec![Statement::Any]));
        }
        if only_key(m, "any") {
            let mut statements = Vec::new();
            for (i, sub) in m.any.iter().flatten().enumerate() {
                if is_empty(sub) {
                    return Ok((true, vec![Statement::Any]));
                }
                if !is_nothing(sub) {
                    statements.push(self.statement(sub, &format!("{}[{i}]", join_path(at, "any")))?);
                }
            }
            return Ok(match statements.len() {
                1 => (true, statements),
                _ => (false, statements),
            });
        }
        let mut statements = Vec::new();
        Ok(match self.conjunction(m, at, &mut statements)? {
            true => (true, statements),
            false => (true, Vec::new()),
        })
    }

    /// Adds the statements of conjunction `m` to `out`; false when `m` holds for no packet.
    fn conjunction(&self, m: &MatchSpec, at: &str, out: &mut Vec<Statement>) -> Result<bool, Issue> {
        let mut header = MatchSpec {
            protocol: m.protocol.clone(),
            src: m.src.clone(),
            dst: m.dst.clone(),
            src_port: m.src_port.clone(),
            dst_port: m.dst_port.clone(),
            length: m.length.clone(),
            ..MatchSpec::default()
        };
        let dscp = deduplicated(only(&m.dscp).map(|d| d.0));
        match dscp.len() {
            0 => {}
            n if n <= MAX_MATCH_DSCP => out.push(Statement::Dscp(dscp)),
            _ => header.dscp = m.dscp.clone(),
        }
        let precedence = deduplicated(only(&m.precedence).map(|p| p.0));
        match precedence.len() {
            0 => {}
            n if n <= MAX_MATCH_PRECEDENCE => out.push(Statement::Precedence(precedence)),
            _ => header.precedence = m.precedence.clone(),
        }
        if !is_empty(&header) {
            out.push(Statement::AccessList(self.acl(&header, at)?));
        }
        for (i, sub) in m.all.iter().flatten().enumerate() {
            let here = format!("{}[{i}]", join_path(at, "all"));
            if only_key(sub, "any") {
                out.push(self.statement(sub, &here)?);
            } else if !self.conjunction(sub, &here, out)? {
                return Ok(false);
            }
        }
        if let Some(any) = &m.any {
            out.push(self.statement(&MatchSpec { any: Some(any.clone()), ..MatchSpec::default() }, at)?);
        }
        if let Some(excluded) = &m.not {
            let here = join_path(at, "not");
            if is_empty(excluded) {
                return Ok(false);
            }
            match &excluded.not {
                Some(inner) if only_key(excluded, "not") => {
                    if !self.conjunction(inner, &join_path(&here, "not"), out)? {
                        return Ok(false);
                    }
                }
                _ => out.push(Statement::Not(Box::new(self.statement(excluded, &here)?))),
            }
        }
        Ok(true)
    }

    /// Match `m` as one statement.
    fn statement(&self, m: &MatchSpec, at: &str) -> Result<Statement, Issue> {
        if is_empty(m) {
            return Ok(Statement::Any);
        }
        let dscp = deduplicated(only(&m.dscp).map(|d| d.0));
        if only_key(m, "dscp") && dscp.len() <= MAX_MATCH_DSCP {
            return Ok(Statement::Dscp(dscp));
        }
        let precedence = deduplicated(only(&m.precedence).map(|p| p.0));
        if only_key(m, "precedence") && precedence.len() <= MAX_MATCH_PRECEDENCE {
            return Ok(Statement::Precedence(precedence));
        }
        if let (true, Some(inner)) = (only_key(m, "not"), &m.not) {
            let here = join_path(at, "not");
            return Ok(match &inner.not {
                Some(twice) if only_key(inner, "not") => self.statement(twice, &join_path(&here, "not"))?,
                _ if is_empty(inner) => Statement::AccessList(vec![(false, Entry::default())]),
                _ => Statement::Not(Box::new(self.statement(inner, &here)?)),
            });
        }
        Ok(Statement::AccessList(self.acl(m, at)?))
    }
}

/// An access-list entry after `permit|deny`.
pub(super) fn entry_text(entry: &Entry) -> String {
    let protocol = match entry.protocol {
        None => "ip".to_owned(),
        Some(6) => "tcp".into(),
        Some(17) => "udp".into(),
        Some(1) => "icmp".into(),
        Some(47) => "gre".into(),
        Some(50) => "esp".into(),
        Some(n) => n.to_string(),
    };
    let address = |prefix: Option<Prefix>| match prefix {
        None | Some((_, 0)) => "any".to_owned(),
        Some((a, 32)) => format!("host {}", format_ipv4(a)),
        Some((a, length)) => format!("{} {}", format_ipv4(a), format_ipv4(!mask(length))),
    };
    let port = |range: Option<(u16, u16)>| match range {
        None => String::new(),
        Some((low, high)) if low == high => format!(" eq {low}"),
        Some((0, high)) => format!(" lt {}", u32::from(high) + 1),
        Some((low, u16::MAX)) => format!(" gt {}", low - 1),
        Some((low, high)) => format!(" range {low} {high}"),
    };
    let mut text = format!(
        "{protocol} {}{} {}{}",
        address(entry.src),
        port(entry.src_port),
        address(entry.dst),
        port(entry.dst_port)
    );
    if let Some(d) = entry.dscp {
        let _ = write!(text, " dscp {}", dscp_name(d));
    }
    if let Some(p) = entry.precedence {
        let _ = write!(text, " precedence {p}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(yaml: &str) -> MatchSpec {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        serde_json::from_value(value).unwrap()
    }

    fn acl(yaml: &str) -> Result<Vec<String>, Issue> {
        let matches = Matches { node_address: &|name| (name == "r1").then_some(0x0a00_0001) };
        let entries = matches.acl(&spec(yaml), "match")?;
        Ok(entries
            .iter()
            .map(|(p, e)| format!("{} {}", if *p { "permit" } else { "deny" }, entry_text(e)))
            .collect())
    }

    #[test]
    fn entries_with_prefixes_ports_and_node_names() {
        assert_eq!(
            acl("{protocol: udp, src: 172.16.10.0/24, dst: [r1, 10.9.0.0/16], dst_port: [5060, \"16384-32767\"]}").unwrap(),
            [
                "permit udp 172.16.10.0 0.0.0.255 host 10.0.0.1 eq 5060",
                "permit udp 172.16.10.0 0.0.0.255 host 10.0.0.1 range 16384 32767",
                "permit udp 172.16.10.0 0.0.0.255 10.9.0.0 0.0.255.255 eq 5060",
                "permit udp 172.16.10.0 0.0.0.255 10.9.0.0 0.0.255.255 range 16384 32767",
            ]
        );
        assert_eq!(
            acl("{protocol: [tcp, 47], src_port: \"1024-65535\", dst_port: \"0-1023\"}").unwrap_err().message,
            "IOS's access lists take ports only for TCP and UDP, and this match gives port 1024-65535 without `protocol: tcp` or `udp`"
        );
        assert_eq!(
            acl("{protocol: tcp, src_port: \"1024-65535\", dst_port: \"0-1023\"}").unwrap(),
            ["permit tcp any gt 1023 any lt 1024"]
        );
        assert_eq!(
            acl("{dscp: [EF, 40], precedence: 5}").unwrap(),
            ["permit ip any any dscp ef", "permit ip any any dscp cs5"]
        );
        assert_eq!(acl("{dscp: EF, precedence: 3}").unwrap(), ["deny ip any any"]);
    }

    #[test]
    fn class_maps_say_any_all_and_not() {
        let matches = Matches { node_address: &|_| None };
        let class_map = |yaml: &str| matches.class_map(&spec(yaml), "match").unwrap();
        assert_eq!(class_map("{}"), (true, vec![Statement::Any]));
        // `{not: {}}` holds for no packet: a class map without `match`, as IOS reads one.
        assert_eq!(class_map("{not: {}}"), (true, vec![]));
        assert_eq!(class_map("{dscp: EF, not: {}}"), (true, vec![]));
        // Each alternative of a match-any is its own statement, with its own exclusions.
        let (all, statements) =
            class_map("{any: [{dscp: 1, not: {dst: 10.0.0.0/8}}, {precedence: [3, 4], not: {dscp: 26}}]}");
        assert!(!all);
        let mut first = Entry::default().and(&Entry { dscp: Some(1), ..Entry::default() }).unwrap();
        let denied = Entry { dst: Some((0x0a00_0000, 8)), ..Entry::default() };
        assert_eq!(statements[0], Statement::AccessList(vec![(false, denied), (true, first)]));
        first = Entry { dscp: Some(26), ..Entry::default() };
        assert_eq!(
            statements[1],
            Statement::AccessList(vec![
                (false, first),
                (true, Entry { precedence: Some(3), ..Entry::default() }),
                (true, Entry { precedence: Some(4), ..Entry::default() }),
            ])
        );
        // A list longer than one `match` statement takes goes into an access list.
        let nine = class_map("{dscp: [0, 1, 2, 3, 4, 5, 6, 7, 8], not: {precedence: 7}}");
        assert!(matches!(&nine.1[..], [Statement::AccessList(e), Statement::Not(p)]
            if e.len() == 9 && **p == Statement::Precedence(vec![7])));
    }

    #[test]
    fn exclusions_become_denies_before_the_permits() {
        // The form qoslab reads `permit A; deny B; permit C` as.
        assert_eq!(
            acl("{any: [{protocol: tcp}, {protocol: udp, not: {any: [{dst: 10.0.0.0/8}]}}]}").unwrap(),
            ["permit tcp any any", "deny ip any 10.0.0.0 0.255.255.255", "permit udp any any"]
        );
        assert_eq!(acl("{not: {not: {dscp: EF}}}").unwrap(), ["permit ip any any dscp ef"]);
        assert!(acl("{any: [{dscp: 1, not: {dscp: 2}}, {dscp: 3, not: {dscp: 4}}]}").is_err());
        assert!(acl("{not: {dscp: 1, not: {dscp: 2}}}").unwrap_err().message.contains("inside a `not`"));
    }
}
