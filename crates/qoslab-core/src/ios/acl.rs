//! Access lists: numbered (`access-list 101 permit tcp ...`) and named (`ip access-list
//! extended NAME`), standard and extended, read into match conditions.
//!
//! An entry is `permit|deny`, for extended lists a protocol (`ip`, `tcp`, `udp`, `icmp` or
//! a number), a source and for extended lists a destination — `any`, `host A`, or an
//! address and a wildcard mask, which must be contiguous to be a prefix — each with optional
//! port conditions for TCP and UDP (`eq P...`, `range A B`, `gt P`, `lt P`), then optional
//! `dscp V` and `precedence V`. A list matches a packet when its first matching entry is a
//! permit; IOS's implicit deny at the end follows. As a match condition an entry is an
//! `all` of its fields, and the list an `any` over its permits, each excluding the denies
//! before it (`not`).

use super::lines::Words;
use crate::classify::dscp::{parse_dscp, parse_precedence};
use crate::classify::matcher::{format_ipv4, parse_ipv4};
use serde_json::{json, Map, Value};

/// One entry.
#[derive(Clone, Debug, PartialEq)]
pub struct AclEntry {
    /// Permit (true) or deny.
    pub permit: bool,
    /// The conditions, as a match condition object.
    pub condition: Map<String, Value>,
}

/// Named IP protocols.
fn protocol_number(word: &str) -> Option<Option<u8>> {
    match word.to_ascii_lowercase().as_str() {
        "ip" => Some(None),
        "tcp" => Some(Some(6)),
        "udp" => Some(Some(17)),
        "icmp" => Some(Some(1)),
        "gre" => Some(Some(47)),
        "esp" => Some(Some(50)),
        "ahp" => Some(Some(51)),
        "ospf" => Some(Some(89)),
        "eigrp" => Some(Some(88)),
        other => other.parse::<u8>().ok().map(Some),
    }
}

/// Well-known port names IOS prints in access lists.
fn port_number(word: &str) -> Option<u16> {
    let named = match word.to_ascii_lowercase().as_str() {
        "ftp" => 21,
        "ftp-data" => 20,
        "ssh" => 22,
        "telnet" => 23,
        "smtp" => 25,
        "domain" => 53,
        "www" => 80,
        "pop3" => 110,
        "bgp" => 179,
        "snmp" => 161,
        "tftp" => 69,
        "ntp" => 123,
        "isakmp" => 500,
        other => return other.parse().ok(),
    };
    Some(named)
}

/// Reads `any`, `host A` or `A W` into a prefix text (`None` for any).
fn address(words: &mut Words) -> Result<Option<String>, (usize, String)> {
    let column = words.column();
    let first =
        words.next().ok_or_else(|| words.error("an address is missing (`any`, `host A` or `A wildcard`)"))?;
    if first.eq_ignore_ascii_case("any") {
        return Ok(None);
    }
    if first.eq_ignore_ascii_case("host") {
        let column = words.column();
        let host = words.next().ok_or_else(|| words.error("`host` needs an address"))?;
        parse_ipv4(host).ok_or((column, format!("`{host}` is not an IPv4 address")))?;
        return Ok(Some(host.to_owned()));
    }
    let network =
        parse_ipv4(first).ok_or((column, format!("`{first}` is not an address, `any` or `host`")))?;
    // A standard list may give a lone address, meaning that host.
    let wildcard = match words.peek().and_then(parse_ipv4) {
        Some(w) => {
            words.next();
            w
        }
        None => 0,
    };
    let mask = !wildcard;
    if mask.leading_ones() + wildcard.trailing_ones() != 32 {
        let wildcard = format_ipv4(wildcard);
        return Err((
            column,
            format!("wildcard mask {wildcard} is not contiguous: only prefix-shaped masks are modelled"),
        ));
    }
    let length = mask.leading_ones();
    Ok(Some(format!("{}/{length}", format_ipv4(network & mask))))
}

/// Reads an optional port condition into a list of port texts (`"21"`, `"1000-2000"`).
fn ports(words: &mut Words) -> Result<Option<Value>, (usize, String)> {
    let Some(operator) = words.peek().map(str::to_ascii_lowercase) else { return Ok(None) };
    let port = |words: &mut Words| {
        let column = words.column();
        let word = words.next().ok_or_else(|| words.error("a port is missing"))?;
        port_number(word).ok_or((column, format!("`{word}` is not a port")))
    };
    let value = match operator.as_str() {
        "eq" => {
            words.next();
            let mut list = vec![Value::from(port(words)?)];
            while words.peek().is_some_and(|w| port_number(w).is_some()) {
                list.push(Value::from(port(words)?));
            }
            Value::Array(list)
        }
        "range" => {
            words.next();
            let (low, high) = (port(words)?, port(words)?);
            json!([format!("{low}-{high}")])
        }
        "gt" => {
            words.next();
            json!([format!("{}-65535", port(words)? as u32 + 1)])
        }
        "lt" => {
            words.next();
            let p = port(words)?;
            json!([format!("0-{}", p.saturating_sub(1))])
        }
        "neq" => return Err(words.error("`neq` port conditions are not modelled")),
        _ => return Ok(None),
    };
    Ok(Some(value))
}

/// Reads an entry from the words after `permit|deny` (`extended`: protocol, source,
/// destination; else a standard entry: source only).
pub fn entry(permit: bool, words: &mut Words, extended: bool) -> Result<AclEntry, (usize, String)> {
    let mut condition = Map::new();
    if extended {
        let column = words.column();
        let word =
            words.next().ok_or_else(|| words.error("a protocol is missing (`ip`, `tcp`, `udp`, ...)"))?;
        let protocol =
            protocol_number(word).ok_or((column, format!("`{word}` is not a protocol IOS knows here")))?;
        match protocol {
            Some(6) => condition.insert("protocol".into(), json!("tcp")),
            Some(17) => condition.insert("protocol".into(), json!("udp")),
            Some(1) => condition.insert("protocol".into(), json!("icmp")),
            Some(number) => condition.insert("protocol".into(), json!(number)),
            None => None,
        };
        if let Some(src) = address(words)? {
            condition.insert("src".into(), Value::from(src));
        }
        if let Some(ports) = ports(words)? {
            condition.insert("src_port".into(), ports);
        }
        if let Some(dst) = address(words)? {
            condition.insert("dst".into(), Value::from(dst));
        }
        if let Some(ports) = ports(words)? {
            condition.insert("dst_port".into(), ports);
        }
        while let Some(word) = words.peek() {
            let column = words.column();
            words.next();
            match word.to_ascii_lowercase().as_str() {
                "dscp" => {
                    let value = words.next().ok_or_else(|| words.error("`dscp` needs a value"))?;
                    let dscp = parse_dscp(value).map_err(|e| (column, e.to_string()))?;
                    condition.insert("dscp".into(), Value::from(dscp));
                }
                "precedence" => {
                    let value = words.next().ok_or_else(|| words.error("`precedence` needs a value"))?;
                    let precedence = parse_precedence(value).map_err(|e| (column, e.to_string()))?;
                    condition.insert("precedence".into(), Value::from(precedence));
                }
                "log" | "log-input" | "established" => {}
                other => return Err((column, format!("`{other}` is not modelled in access-list entries"))),
            }
        }
    } else {
        if let Some(src) = address(words)? {
            condition.insert("src".into(), Value::from(src));
        }
        if let Some(word) = words.peek().filter(|w| !w.eq_ignore_ascii_case("log")) {
            return Err(words.error(format!("`{word}` does not belong in a standard access-list entry")));
        }
    }
    Ok(AclEntry { permit, condition })
}

/// The match condition of a whole list: a packet matches when its first matching entry is
/// a permit.
pub fn condition(entries: &[AclEntry]) -> Value {
    let mut alternatives = Vec::new();
    for (i, entry) in entries.iter().enumerate().filter(|(_, e)| e.permit) {
        let denies: Vec<Value> =
            entries[..i].iter().filter(|e| !e.permit).map(|e| Value::Object(e.condition.clone())).collect();
        let mut clause = entry.condition.clone();
        if !denies.is_empty() {
            clause.insert("not".into(), json!({"any": denies}));
        }
        alternatives.push(Value::Object(clause));
    }
    match alternatives.len() {
        // Only denies (or nothing): no packet matches.
        0 => json!({"not": {}}),
        1 => alternatives.pop().expect("one"),
        _ => json!({"any": alternatives}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ios::lines::split;

    fn parse(text: &str, extended: bool) -> Result<AclEntry, (usize, String)> {
        let line = &split(text)[0];
        let permit = line.words[0].text == "permit";
        entry(permit, &mut Words::new(line, 1), extended)
    }

    #[test]
    fn the_studies_entries() {
        let e = parse("permit tcp 172.16.10.0 0.0.0.255 172.16.20.0 0.0.0.255 eq 21", true).unwrap();
        assert_eq!(
            Value::Object(e.condition),
            json!({"protocol": "tcp", "src": "172.16.10.0/24", "dst": "172.16.20.0/24", "dst_port": [21]})
        );
        let e = parse("permit udp any any range 16384 32767", true).unwrap();
        assert_eq!(Value::Object(e.condition), json!({"protocol": "udp", "dst_port": ["16384-32767"]}));
        let e = parse("permit ip host 10.0.0.1 any dscp ef", true).unwrap();
        assert_eq!(Value::Object(e.condition), json!({"src": "10.0.0.1", "dscp": 46}));
        let e = parse("permit 10.1.0.0 0.0.255.255", false).unwrap();
        assert_eq!(Value::Object(e.condition), json!({"src": "10.1.0.0/16"}));
        let e = parse("permit tcp any gt 1023 any lt 1024", true).unwrap();
        assert_eq!(
            Value::Object(e.condition),
            json!({"protocol": "tcp", "src_port": ["1024-65535"], "dst_port": ["0-1023"]})
        );
    }

    #[test]
    fn mistakes_name_their_column() {
        let (column, message) = parse("permit tcp 10.0.0.0 0.255.0.255 any", true).unwrap_err();
        assert_eq!(column, 12);
        assert!(message.contains("not contiguous"), "{message}");
        let (column, message) = parse("permit tpc any any", true).unwrap_err();
        assert_eq!((column, message.contains("`tpc`")), (8, true));
        let (column, _) = parse("permit tcp any any eq", true).unwrap_err();
        assert_eq!(column, 22);
    }

    #[test]
    fn first_match_with_denies() {
        let deny =
            AclEntry { permit: false, condition: json!({"dst_port": [23]}).as_object().unwrap().clone() };
        let permit =
            AclEntry { permit: true, condition: json!({"protocol": 6}).as_object().unwrap().clone() };
        assert_eq!(
            condition(&[deny.clone(), permit.clone()]),
            json!({"protocol": 6, "not": {"any": [{"dst_port": [23]}]}})
        );
        assert_eq!(condition(&[permit.clone(), deny]), json!({"protocol": 6}));
        assert_eq!(condition(&[]), json!({"not": {}}));
    }
}
