//! Access lists and the classic queue lists: numbered and named IP access lists (their
//! entries read by [`crate::ios::acl`]), priority queuing's `priority-list` and custom
//! queuing's `queue-list` (Cisco IOS Quality of Service Solutions Command Reference,
//! `priority-list`, `queue-list`).

use super::state::{Mode, Outcome, Parser};
use super::words::{expect_ip, limit_packets, number, problem, range, Problem};
use crate::ios::acl::entry;
use crate::ios::config::ListMatch;
use crate::ios::keywords::{lookup, Lookup};
use crate::ios::lines::{Line, Words};

impl Parser {
    /// `ip access-list standard|extended NAME`, which opens the list's mode.
    pub(super) fn open_named_acl(&mut self, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        if !words.peek().is_some_and(|w| w.eq_ignore_ascii_case("access-list")) {
            return Ok(Outcome::NotHere);
        }
        words.next();
        let column = words.column();
        let kind = words.next().unwrap_or("").to_ascii_lowercase();
        let extended = match kind.as_str() {
            "extended" => true,
            "standard" => false,
            _ => return Err(problem(column, "expected `standard` or `extended`")),
        };
        let name = words.next().ok_or_else(|| problem(words.column(), "the list needs a name"))?;
        self.config.acls.entry(name.to_owned()).or_default();
        self.enter(Mode::NamedAcl(name.to_owned(), extended), line);
        Ok(Outcome::Done)
    }

    /// `access-list N permit|deny|remark ...`, an entry of a numbered list.
    pub(super) fn numbered_acl(&mut self, words: &mut Words) -> Result<Outcome, Problem> {
        let column = words.column();
        let acl_number: u32 = number(words, "an access-list number")?;
        let extended = match acl_number {
            1..=99 | 1300..=1999 => false,
            100..=199 | 2000..=2699 => true,
            _ => return Err(problem(column, format!("{acl_number} is not an IP access-list number"))),
        };
        let column = words.column();
        let verb = words.next().unwrap_or("").to_ascii_lowercase();
        let permit = match verb.as_str() {
            "permit" => true,
            "deny" => false,
            "remark" => {
                words.skip_rest();
                return Ok(Outcome::Done);
            }
            _ => return Err(problem(column, "expected `permit`, `deny` or `remark`")),
        };
        let entry = entry(permit, words, extended).map_err(|(c, m)| problem(c, m))?;
        let acl = self.config.acls.entry(acl_number.to_string()).or_default();
        acl.push(entry);
        Ok(Outcome::Done)
    }

    /// An entry of the named list being read, its verb the word at `first`.
    pub(super) fn named_acl_entry(&mut self, line: &Line, first: usize) -> Result<Outcome, Problem> {
        let Mode::NamedAcl(name, extended) = self.mode.clone() else { return Ok(Outcome::NotHere) };
        let mut words = Words::new(line, first);
        let column = words.column();
        let permit = match words.next().unwrap_or("").to_ascii_lowercase().as_str() {
            "permit" => true,
            "deny" => false,
            "remark" => return Ok(Outcome::Done),
            _ => return Err(problem(column, "expected `permit`, `deny` or `remark`")),
        };
        let entry = entry(permit, &mut words, extended).map_err(|(c, m)| problem(c, m))?;
        self.config.acls.get_mut(&name).expect("the list was opened").push(entry);
        Ok(Outcome::Done)
    }

    /// What a `priority-list`/`queue-list` rule matches after its queue.
    fn list_match(words: &mut Words) -> Result<ListMatch, Problem> {
        let column = words.column();
        match words.next().map(str::to_ascii_lowercase).as_deref() {
            None => Ok(ListMatch::Ip),
            Some("list") => {
                let acl = words
                    .next()
                    .ok_or_else(|| problem(words.column(), "`list` needs an access-list number"))?;
                Ok(ListMatch::Acl(acl.to_owned()))
            }
            Some("tcp") => Ok(ListMatch::Tcp(number(words, "a port")?)),
            Some("udp") => Ok(ListMatch::Udp(number(words, "a port")?)),
            Some(other) => {
                Err(problem(column, format!("`{other}` is not modelled here (use `list`, `tcp` or `udp`)")))
            }
        }
    }

    /// `priority-list N protocol|default|queue-limit ...`.
    pub(super) fn priority_list(&mut self, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        let list_number: u32 = number(words, "a priority-list number")?;
        let queues = ["high", "medium", "normal", "low"];
        let queue = |words: &mut Words| -> Result<String, Problem> {
            let column = words.column();
            let word = words.next().unwrap_or("");
            match lookup(word, &queues) {
                Lookup::Found(q) => Ok(q.to_owned()),
                _ => Err(problem(column, format!("`{word}` is not a queue (high, medium, normal, low)"))),
            }
        };
        let column = words.column();
        let list = self.config.priority_lists.entry(list_number.to_string()).or_default();
        match words.next().map(str::to_ascii_lowercase).as_deref() {
            Some("protocol") => {
                expect_ip(words)?;
                let q = queue(words)?;
                list.rules.push((q, Self::list_match(words)?, (line.number, line.column(0))));
            }
            Some("default") => list.default = Some(queue(words)?),
            Some("queue-limit") => {
                let place = (line.number, words.column());
                let limit = range::LIST_QUEUE_LIMIT;
                let limits = [
                    limit_packets(words, "the high queue's limit", limit)?,
                    limit_packets(words, "the medium queue's limit", limit)?,
                    limit_packets(words, "the normal queue's limit", limit)?,
                    limit_packets(words, "the low queue's limit", limit)?,
                ];
                list.limits = Some((limits, place));
            }
            _ => return Err(problem(column, "expected `protocol`, `default` or `queue-limit`")),
        }
        Ok(Outcome::Done)
    }

    /// `queue-list N protocol|default|lowest-custom|queue ...`.
    pub(super) fn queue_list(&mut self, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        let list_number: u32 = number(words, "a queue-list number")?;
        let column = words.column();
        let list = self.config.queue_lists.entry(list_number.to_string()).or_default();
        let queue = |words: &mut Words| -> Result<u32, Problem> {
            let column = words.column();
            let q: u32 = number(words, "a queue number")?;
            if q > 16 {
                return Err(problem(
                    column,
                    format!("queue {q} does not exist: custom queuing has queues 0 to 16"),
                ));
            }
            Ok(q)
        };
        match words.next().map(str::to_ascii_lowercase).as_deref() {
            Some("protocol") => {
                expect_ip(words)?;
                let q = queue(words)?;
                list.rules.push((q, Self::list_match(words)?, (line.number, line.column(0))));
            }
            Some("default") => list.default = Some(queue(words)?),
            Some("lowest-custom") => list.lowest_custom = Some(queue(words)?),
            Some("queue") => {
                let q = queue(words)?;
                let column = words.column();
                let entry = list.queues.entry(q).or_default();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("limit") => {
                        entry.0 = Some(limit_packets(words, "a queue limit", range::LIST_QUEUE_LIMIT)?)
                    }
                    Some("byte-count") => {
                        let count_column = words.column();
                        match number(words, "a byte count")? {
                            0 => {
                                return Err((
                                    count_column,
                                    "a byte count of 0 lets the queue send nothing".into(),
                                    Some(
                                        "give the bytes the queue may send per round, 1500 by default".into(),
                                    ),
                                ))
                            }
                            bytes => entry.1 = Some(bytes),
                        }
                    }
                    _ => return Err(problem(column, "expected `limit` or `byte-count`")),
                }
                list.queue_places.insert(q, (line.number, line.column(0)));
            }
            _ => return Err(problem(column, "expected `protocol`, `default`, `queue` or `lowest-custom`")),
        }
        Ok(Outcome::Done)
    }
}
