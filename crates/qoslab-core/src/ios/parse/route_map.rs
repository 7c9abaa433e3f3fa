//! Route maps as policy routing marks with them: `route-map NAME [permit|deny] [SEQUENCE]`,
//! `match ip address ACL...` and `set ip precedence|dscp V` (Cisco IOS IP Routing
//! Protocol-Independent Command Reference, `route-map`, `match ip address`, `set ip
//! precedence`). Their routing commands are not QoS and are reported as not modelled.

use super::state::{Mode, Outcome, Parser};
use super::words::{number, problem, Problem};
use crate::classify::dscp::{parse_dscp, parse_precedence};
use crate::ios::config::RouteMapEntry;
use crate::ios::lines::{Line, Words};
use serde_json::json;

impl Parser {
    /// `route-map NAME [permit|deny] [SEQUENCE]`, which opens the entry's mode.
    pub(super) fn open_route_map(&mut self, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        let name = words.next().ok_or_else(|| problem(words.column(), "the route map needs a name"))?;
        let mut permit = true;
        if let Some(verb) = words.peek().map(str::to_ascii_lowercase) {
            if verb == "permit" || verb == "deny" {
                permit = verb == "permit";
                words.next();
            }
        }
        let sequence = words.peek().map(|_| number(words, "a sequence number")).transpose()?.unwrap_or(10);
        let entries = self.config.route_maps.entry(name.to_owned()).or_default();
        let index = match entries.iter().position(|e| e.sequence == sequence) {
            Some(i) => i,
            None => {
                entries.push(RouteMapEntry {
                    permit,
                    sequence,
                    acls: Vec::new(),
                    set: None,
                    place: (line.number, line.column(0)),
                });
                entries.sort_by_key(|e| e.sequence);
                entries.iter().position(|e| e.sequence == sequence).expect("just added")
            }
        };
        self.enter(Mode::RouteMap(name.to_owned(), index), line);
        Ok(Outcome::Done)
    }

    /// A command of entry `index` of route map `name`.
    pub(super) fn route_map_command(
        &mut self,
        name: &str,
        index: usize,
        keyword: &str,
        line: &Line,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let entry = &mut self.config.route_maps.get_mut(name).expect("opened")[index];
        let rest = line.rest(1).to_ascii_lowercase();
        match keyword {
            "match" if rest.starts_with("ip address ") => {
                words.next();
                words.next();
                while let Some(acl) = words.next() {
                    entry.acls.push(acl.to_owned());
                }
            }
            "set" if rest.starts_with("ip precedence") || rest.starts_with("ip dscp") => {
                words.next();
                let field = words.next().unwrap_or_default().to_ascii_lowercase();
                let column = words.column();
                let value =
                    words.next().ok_or_else(|| problem(column, format!("`set ip {field}` needs a value")))?;
                entry.set = Some(if field == "dscp" {
                    json!({"dscp": parse_dscp(value).map_err(|m| problem(column, m))?})
                } else {
                    json!({"precedence": parse_precedence(value).map_err(|m| problem(column, m))?})
                });
            }
            _ => {
                // Route maps also steer routing (`set ip next-hop`, ...): not QoS, not modelled.
                self.unmodelled(line);
            }
        }
        Ok(Outcome::Done)
    }
}
