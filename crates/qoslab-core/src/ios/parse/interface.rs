//! Interface commands: the QoS bandwidth, clock rate, encapsulation, the service policies and
//! classic queuing's `priority-group`/`custom-queue-list`, interface `fair-queue`,
//! `hold-queue`, `tx-ring-limit`, `max-reserved-bandwidth` and multilink PPP's fragmentation
//! (Cisco IOS Interface and Hardware Component Command Reference; Quality of Service
//! Solutions Command Reference; Dial Technologies Command Reference).

use super::state::{Mode, Outcome, Parser};
use super::words::{dynamic_queues, limit_packets, number, percent, problem, range, ranged, Problem};
use crate::ios::config::{FairQueue, Interface, Reference, Severity};
use crate::ios::keywords::interface_name;
use crate::ios::lines::{Line, Words};

impl Parser {
    /// `interface NAME`, which opens the interface's mode (the same interface named again
    /// goes on where it was).
    pub(super) fn open_interface(&mut self, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        let column = words.column();
        let written = line.rest(1);
        let name = interface_name(&written.replace(' ', ""))
            .ok_or_else(|| problem(column, format!("`{written}` is not an interface name qoslab knows")))?;
        let index = match self.config.interfaces.iter().position(|i| i.name == name) {
            Some(i) => i,
            None => {
                self.config.interfaces.push(Interface { name, line: line.number, ..Interface::default() });
                self.config.interfaces.len() - 1
            }
        };
        self.enter(Mode::Interface(index), line);
        Ok(Outcome::Done)
    }

    /// A command of interface `i`.
    pub(super) fn interface_command(
        &mut self,
        i: usize,
        keyword: &str,
        line: &Line,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let interface = &mut self.config.interfaces[i];
        let name = |words: &mut Words, what: &str| -> Result<Reference, Problem> {
            let column = words.column();
            let word = words.next().ok_or_else(|| problem(column, format!("{what} is missing")))?;
            Ok(Reference { name: word.to_owned(), line: line.number, column })
        };
        let place = (line.number, line.column(0));
        let clock = |words: &mut Words| -> Result<u64, Problem> {
            let column = words.column();
            match number(words, "a clock rate in bit/s")? {
                0 => Err((
                    column,
                    "a clock rate of 0 bit/s sends nothing".into(),
                    Some("give the line's rate in bit/s, the scenario link's `rate`".into()),
                )),
                bps => Ok(bps),
            }
        };
        match keyword {
            "bandwidth" => {
                interface.bandwidth_kbps =
                    Some(ranged(words, "a bandwidth in kbit/s", range::BANDWIDTH_KBPS)?);
                interface.places.insert("bandwidth".into(), place);
            }
            "clock" => {
                let column = words.column();
                if !words.next().is_some_and(|w| w.eq_ignore_ascii_case("rate")) {
                    return Err(problem(column, "expected `clock rate BPS`"));
                }
                interface.clock_rate_bps = Some(clock(words)?);
            }
            "clockrate" => interface.clock_rate_bps = Some(clock(words)?),
            "encapsulation" => interface.encapsulation = words.next().map(str::to_ascii_lowercase),
            "service-policy" => {
                let column = words.column();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("output") => interface.output_policy = Some(name(words, "the policy-map name")?),
                    Some("input") => interface.input_policy = Some(name(words, "the policy-map name")?),
                    _ => return Err(problem(column, "expected `input` or `output`")),
                }
            }
            "priority-group" => {
                interface.priority_group = Some(name(words, "the priority-list number")?);
                self.config.classic_syntax.get_or_insert((place, "priority-group"));
            }
            "custom-queue-list" => {
                interface.custom_queue_list = Some(name(words, "the queue-list number")?);
                self.config.classic_syntax.get_or_insert((place, "custom-queue-list"));
            }
            "fair-queue" => self.interface_fair_queue(i, line, words)?,
            "no" => match words.next().map(str::to_ascii_lowercase).as_deref() {
                Some("fair-queue") => interface.fair_queue = Some(None),
                _ => {
                    self.unmodelled(line);
                }
            },
            "hold-queue" => {
                let packets = limit_packets(words, "a hold-queue length", range::HOLD_QUEUE)?;
                let column = words.column();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("out") => {
                        interface.hold_queue_out = Some(packets);
                        interface.places.insert("hold_queue".into(), place);
                    }
                    Some("in") => self.unmodelled(line),
                    _ => return Err(problem(column, "expected `in` or `out`")),
                }
            }
            "tx-ring-limit" => {
                interface.tx_ring = Some(ranged(words, "a transmit ring size", range::TX_RING)? as u32);
                interface.places.insert("tx_ring".into(), place);
            }
            "tx-cos" => interface.tx_cos = Some(name(words, "the cos-queue-group name")?),
            "ip" if line.rest(1).to_ascii_lowercase().starts_with("policy route-map ") => {
                let route_map = line.words.get(3).map(|w| w.text.clone()).unwrap_or_default();
                let column = line.column(3);
                interface.policy_route_map = Some(Reference { name: route_map, line: line.number, column });
            }
            "max-reserved-bandwidth" => {
                interface.max_reserved_pct = Some(percent(words)?);
                interface.places.insert("max_reserved".into(), place);
                self.config.classic_syntax.get_or_insert((place, "max-reserved-bandwidth"));
            }
            "ppp" => self.interface_ppp(i, line)?,
            _ => return Ok(Outcome::NotHere),
        }
        Ok(Outcome::Done)
    }

    /// `fair-queue [CDT [QUEUES [RESERVABLE]]]` on interface `i`.
    fn interface_fair_queue(&mut self, i: usize, line: &Line, words: &mut Words) -> Result<(), Problem> {
        let cdt = words
            .peek()
            .map(|_| ranged(words, "a congestive discard threshold", range::CDT))
            .transpose()?
            .map(|packets| packets as u32);
        let dynamic_queues = words.peek().map(|_| dynamic_queues(words)).transpose()?;
        let interface = &mut self.config.interfaces[i];
        interface.fair_queue = Some(Some(FairQueue { cdt, dynamic_queues }));
        interface.places.insert("fair_queue".into(), (line.number, line.column(0)));
        if words.peek().is_some() {
            let column = words.column();
            let message =
                "reservable (RSVP) conversation queues are not modelled; the rest of the line is read";
            self.diagnose(Severity::Warning, line, problem(column, message));
        }
        Ok(())
    }

    /// `ppp multilink [fragment delay MS | interleave]` on interface `i`.
    fn interface_ppp(&mut self, i: usize, line: &Line) -> Result<(), Problem> {
        let interface = &mut self.config.interfaces[i];
        let place = (line.number, line.column(0));
        let rest = line.rest(1).to_ascii_lowercase();
        let delay =
            rest.starts_with("multilink fragment delay ") || rest.starts_with("multilink fragment-delay ");
        if rest == "multilink interleave" {
            interface.interleave = true;
            interface.places.entry("lfi".into()).or_insert(place);
        } else if delay {
            let mut delay_words = Words::new(line, if rest.contains("fragment-delay") { 3 } else { 4 });
            let ms = ranged(&mut delay_words, "a fragment delay in ms", range::FRAGMENT_DELAY_MS)?;
            interface.fragment_delay_ms = Some(ms);
            interface.places.insert("lfi".into(), place);
        } else if rest != "multilink" {
            // `ppp multilink` itself is read: what multilink PPP does to the queuing is its
            // fragmentation and interleaving, the commands above.
            self.unmodelled(line);
        }
        Ok(())
    }
}
