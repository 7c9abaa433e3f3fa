//! The Cisco 12000's `cos-queue-group`: precedence to queue and to WRED label, the labels'
//! thresholds, and MDRR's queue weights and low-latency queue (strict or alternate priority),
//! as Cisco documents them ("Understanding and Configuring MDRR and WRED on the Cisco 12000
//! Series Internet Router").

use super::state::{Mode, Outcome, Parser};
use super::words::{number, problem, range, ranged, wred_thresholds, Problem};
use crate::ios::config::CosQueueGroup;
use crate::ios::lines::{Line, Words};

impl Parser {
    /// `cos-queue-group NAME`, which opens the group's mode.
    pub(super) fn open_cos_queue_group(
        &mut self,
        line: &Line,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let name = words.next().ok_or_else(|| problem(words.column(), "the cos-queue-group needs a name"))?;
        let group = self.config.cos_queue_groups.entry(name.to_owned()).or_default();
        if group.place.0 == 0 {
            group.place = (line.number, line.column(0));
        }
        self.enter(Mode::CosQueueGroup(name.to_owned()), line);
        Ok(Outcome::Done)
    }

    /// A command of group `name`.
    pub(super) fn cos_command(
        &mut self,
        name: &str,
        keyword: &str,
        line: usize,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let group: &mut CosQueueGroup = self.config.cos_queue_groups.get_mut(name).expect("opened");
        match keyword {
            "precedence" => {
                let column = words.column();
                let precedence: u8 = number(words, "a precedence")?;
                if precedence > 7 {
                    return Err(problem(column, format!("precedence {precedence} does not exist (0 to 7)")));
                }
                let column = words.column();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("queue") => {
                        let queue = if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("low-latency")) {
                            words.next();
                            None
                        } else {
                            Some(number(words, "a queue number")?)
                        };
                        group.precedence_queue.insert(precedence, queue);
                    }
                    Some("random-detect-label") => {
                        let place = (line, words.column());
                        group.precedence_label.insert(precedence, (number(words, "a label")?, place));
                    }
                    _ => return Err(problem(column, "expected `queue` or `random-detect-label`")),
                }
            }
            "random-detect-label" => {
                let label: u32 = number(words, "a label")?;
                let (min, max, denominator) = wred_thresholds(words, range::LABEL_THRESHOLD, true)?;
                group.labels.insert(label, (min, max, denominator.expect("required")));
            }
            "queue" => {
                if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("low-latency")) {
                    words.next();
                    let column = words.column();
                    match words.next().map(str::to_ascii_lowercase).as_deref() {
                        Some("strict-priority") | None => group.low_latency = Some(None),
                        Some("alternate-priority") => {
                            group.low_latency =
                                Some(Some(ranged(words, "an MDRR weight", range::MDRR_WEIGHT)?))
                        }
                        _ => {
                            return Err(problem(
                                column,
                                "expected `strict-priority` or `alternate-priority W`",
                            ))
                        }
                    }
                } else {
                    let queue: u32 = number(words, "a queue number")?;
                    group.weights.insert(queue, ranged(words, "an MDRR weight", range::MDRR_WEIGHT)?);
                }
            }
            _ => return Ok(Outcome::NotHere),
        }
        Ok(Outcome::Done)
    }
}
