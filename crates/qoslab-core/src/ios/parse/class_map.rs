//! Class maps: `class-map [match-any|match-all] NAME` and its `match` lines — `any`,
//! `access-group`, `ip dscp`, `ip precedence`, `protocol` and `not` (Cisco IOS Quality of
//! Service Solutions Command Reference, `class-map`, `match`). A `match protocol` is read for
//! IP protocols and for applications on their well-known ports; application recognition
//! itself is not modelled.

use super::state::{Mode, Outcome, Parser};
use super::words::{problem, Problem};
use crate::classify::dscp::{parse_dscp, parse_precedence, CodepointError};
use crate::ios::config::ClassMap;
use crate::ios::lines::{Line, Words};
use serde_json::{json, Value};

impl Parser {
    /// `class-map [match-any|match-all] NAME`, which opens the class map's mode.
    pub(super) fn open_class_map(&mut self, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        let mut match_all = true;
        match words.peek().map(str::to_ascii_lowercase).as_deref() {
            Some("match-any") => {
                match_all = false;
                words.next();
            }
            Some("match-all") => {
                words.next();
            }
            _ => {}
        }
        let name = words.next().ok_or_else(|| problem(words.column(), "the class map needs a name"))?;
        self.config.class_maps.insert(name.to_owned(), ClassMap { match_all, matches: Vec::new() });
        self.enter(Mode::ClassMap(name.to_owned()), line);
        Ok(Outcome::Done)
    }

    /// A `match` line of class map `name`.
    pub(super) fn class_map_match(
        &mut self,
        name: &str,
        line: &Line,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let condition = Self::class_match(words)?;
        if let Some(map) = self.config.class_maps.get_mut(name) {
            map.matches.push((condition, (line.number, line.column(1))));
        }
        Ok(Outcome::Done)
    }

    /// The condition of `match [not] ...`.
    fn class_match(words: &mut Words) -> Result<Value, Problem> {
        let mut negate = false;
        if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("not")) {
            negate = true;
            words.next();
        }
        let column = words.column();
        let kind = words.next().unwrap_or("").to_ascii_lowercase();
        let values =
            |words: &mut Words, parse: fn(&str) -> Result<u8, CodepointError>| -> Result<Vec<u8>, Problem> {
                let mut out = Vec::new();
                while let Some(word) = words.peek() {
                    let column = words.column();
                    out.push(parse(word).map_err(|m| problem(column, m))?);
                    words.next();
                }
                if out.is_empty() {
                    return Err(problem(words.column(), "at least one value is needed"));
                }
                Ok(out)
            };
        let condition = match kind.as_str() {
            "any" => json!({}),
            "access-group" => {
                if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("name")) {
                    words.next();
                }
                let acl = words.next().ok_or_else(|| problem(words.column(), "an access list is missing"))?;
                json!({"acl": acl})
            }
            "ip" => {
                let column = words.column();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("dscp") => json!({"dscp": values(words, parse_dscp)?}),
                    Some("precedence") => json!({"precedence": values(words, parse_precedence)?}),
                    _ => return Err(problem(column, "expected `ip dscp` or `ip precedence`")),
                }
            }
            "dscp" => json!({"dscp": values(words, parse_dscp)?}),
            "precedence" => json!({"precedence": values(words, parse_precedence)?}),
            "protocol" => {
                let column = words.column();
                let name = words.next().map(str::to_ascii_lowercase);
                match name.as_deref().map(protocol_condition) {
                    Some(Some(condition)) => condition,
                    Some(None) => {
                        return Err((
                            column,
                            format!(
                                "`match protocol {}` (application recognition) is not modelled",
                                name.unwrap_or_default()
                            ),
                            Some(format!(
                                "classify with an access list or by DSCP instead; modelled: {}",
                                MATCH_PROTOCOLS.join(", ")
                            )),
                        ))
                    }
                    None => return Err(problem(column, "a protocol is missing")),
                }
            }
            other => return Err(problem(column, format!("`match {other}` is not modelled"))),
        };
        Ok(if negate { json!({"not": condition}) } else { condition })
    }
}

/// The `match protocol` names qoslab reads: IP protocols, and applications by their
/// well-known ports (what application recognition would find on the standard ports).
const MATCH_PROTOCOLS: [&str; 16] = [
    "ip",
    "tcp",
    "udp",
    "icmp",
    "http",
    "secure-http",
    "ftp",
    "telnet",
    "ssh",
    "smtp",
    "dns",
    "snmp",
    "ntp",
    "sip",
    "h323",
    "rtp",
];

/// The match condition of `match protocol NAME`, if modelled.
fn protocol_condition(name: &str) -> Option<Value> {
    let on = |protocol: &str, port: &str| json!({"protocol": protocol, "dst_port": [port]});
    let both = |port: &str| json!({"any": [on("tcp", port), on("udp", port)]});
    Some(match name {
        "ip" => json!({}),
        "tcp" | "udp" | "icmp" => json!({"protocol": name}),
        "http" => on("tcp", "80"),
        "secure-http" => on("tcp", "443"),
        "ftp" => on("tcp", "21"),
        "telnet" => on("tcp", "23"),
        "ssh" => on("tcp", "22"),
        "smtp" => on("tcp", "25"),
        "dns" => both("53"),
        "snmp" => on("udp", "161"),
        "ntp" => on("udp", "123"),
        "sip" => both("5060"),
        "h323" => on("tcp", "1720"),
        // Cisco's default RTP port range (even and odd ports).
        "rtp" => on("udp", "16384-32767"),
        _ => return None,
    })
}
