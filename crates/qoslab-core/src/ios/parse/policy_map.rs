//! Policy maps: `policy-map NAME`, its `class` lines and each class's settings — `bandwidth`,
//! `priority`, `queue-limit`, `fair-queue`, `random-detect`, `police` with its actions,
//! `shape`, `set` and a child `service-policy` (Cisco IOS Quality of Service Solutions Command
//! Reference, each command by name; IOS XE's `priority level`, `bandwidth remaining ratio` and
//! `queue-limit` units from its QoS configuration guides). Settings are kept as the YAML
//! values of a `cbwfq` class, with the place of the command that wrote each.

use super::state::{Mode, Outcome, Parser};
use super::words::{
    dynamic_queues, number, percent, problem, range, ranged, within, wred_thresholds, Problem,
};
use crate::classify::dscp::{parse_dscp, parse_precedence};
use crate::ios::config::{Place, PolicyClass, PolicyMap, Reference};
use crate::ios::lines::{Line, Words};
use serde_json::{json, Map, Value};

impl Parser {
    /// `policy-map NAME`, which opens the policy map's mode.
    pub(super) fn open_policy_map(&mut self, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        let column = words.column();
        let name = words.next().ok_or_else(|| problem(column, "the policy map needs a name"))?;
        let place = (line.number, column);
        self.config.policy_maps.entry(name.to_owned()).or_insert(PolicyMap { classes: Vec::new(), place });
        self.enter(Mode::PolicyMap(name.to_owned()), line);
        Ok(Outcome::Done)
    }

    /// `class NAME` in policy map `policy`, which opens the class's mode.
    pub(super) fn open_policy_class(
        &mut self,
        policy: String,
        line: &Line,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let column = words.column();
        let name = words.next().ok_or_else(|| problem(column, "`class` needs a class-map name"))?;
        let map = self.config.policy_maps.get_mut(&policy).expect("the policy map was opened");
        let index = match map.classes.iter().position(|c| c.name == name) {
            Some(i) => i,
            None => {
                map.classes.push(PolicyClass {
                    name: name.to_owned(),
                    settings: Map::new(),
                    places: Default::default(),
                    child: None,
                    place: (line.number, column),
                });
                map.classes.len() - 1
            }
        };
        self.enter(Mode::PolicyClass(policy, index), line);
        Ok(Outcome::Done)
    }

    /// A command of class `index` of policy map `policy`.
    pub(super) fn class_setting(
        &mut self,
        policy: &str,
        index: usize,
        keyword: &str,
        line: &Line,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let class = &mut self.config.policy_maps.get_mut(policy).expect("opened").classes[index];
        let xe_syntax = &mut self.config.xe_syntax;
        let settings = &mut class.settings;
        // The setting this command writes, for errors found when the policy is resolved.
        let rest = line.rest(1).to_ascii_lowercase();
        let key = match keyword {
            "bandwidth" if rest.starts_with("remaining ratio") => "bandwidth_remaining_ratio",
            "bandwidth" if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("remaining")) => {
                "bandwidth_remaining"
            }
            "priority" if rest.starts_with("level") => "priority_level",
            "conform-action" | "exceed-action" | "violate-action" => "police",
            other => other,
        };
        class.places.insert(key.replace('-', "_"), (line.number, line.column(0)));
        match keyword {
            "bandwidth" => bandwidth(settings, line, words, xe_syntax)?,
            "priority" => priority(settings, line, words, xe_syntax)?,
            "queue-limit" => queue_limit(settings, line, words, xe_syntax)?,
            "fair-queue" => {
                let value = match words.peek() {
                    Some(_) => json!({"dynamic_queues": dynamic_queues(words)?}),
                    None => json!(true),
                };
                settings.insert("fair_queue".into(), value);
            }
            "random-detect" => random_detect(settings, words)?,
            "police" => {
                settings.insert("police".into(), police(words)?);
            }
            "conform-action" | "exceed-action" | "violate-action" => {
                let Some(police) = settings.get_mut("police") else {
                    return Err(problem(line.column(0), format!("`{keyword}` without a `police` before it")));
                };
                let action = action(words)?;
                police[keyword.replace('-', "_")] = json!(action);
            }
            "shape" => {
                settings.insert("shape".into(), shape(words)?);
            }
            "set" => {
                settings.insert("set".into(), set(line)?);
            }
            "service-policy" => {
                let column = words.column();
                let child =
                    words.next().ok_or_else(|| problem(column, "the child policy's name is missing"))?;
                class.child = Some(Reference { name: child.to_owned(), line: line.number, column });
            }
            _ => return Ok(Outcome::NotHere),
        }
        Ok(Outcome::Done)
    }
}

/// A class's rate in whole kbit/s within IOS's range, as the YAML value.
fn class_kbps(words: &mut Words, what: &str) -> Result<String, Problem> {
    let value = ranged(words, what, range::CLASS_RATE_KBPS)?;
    Ok(format!("{value}kbps"))
}

/// `bandwidth KBPS | percent P | remaining percent P | remaining ratio N`.
fn bandwidth(
    settings: &mut Map<String, Value>,
    line: &Line,
    words: &mut Words,
    xe_syntax: &mut Option<(Place, &'static str)>,
) -> Result<(), Problem> {
    match words.peek().map(str::to_ascii_lowercase).as_deref() {
        Some("percent") => {
            words.next();
            settings.insert("bandwidth".into(), json!(format!("{}%", percent(words)?)));
        }
        Some("remaining") => {
            words.next();
            let column = words.column();
            match words.next().map(str::to_ascii_lowercase).as_deref() {
                Some("percent") => {
                    settings.insert("bandwidth_remaining".into(), json!(format!("{}%", percent(words)?)));
                }
                Some("ratio") => {
                    let ratio = ranged(words, "a ratio", range::REMAINING_RATIO)?;
                    settings.insert("bandwidth_remaining_ratio".into(), json!(ratio));
                    xe_syntax.get_or_insert(((line.number, column), "bandwidth remaining ratio"));
                }
                _ => return Err(problem(column, "expected `remaining percent P` or `remaining ratio N`")),
            }
        }
        _ => {
            settings.insert("bandwidth".into(), json!(class_kbps(words, "a bandwidth in kbit/s")?));
        }
    }
    Ok(())
}

/// `priority [level N] [KBPS | percent P [BURST]]`.
fn priority(
    settings: &mut Map<String, Value>,
    line: &Line,
    words: &mut Words,
    xe_syntax: &mut Option<(Place, &'static str)>,
) -> Result<(), Problem> {
    if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("level")) {
        let column = words.column();
        words.next();
        let level = ranged(words, "a priority level", range::PRIORITY_LEVEL)?;
        settings.insert("priority_level".into(), json!(level));
        xe_syntax.get_or_insert(((line.number, column), "priority level"));
        // IOS XE: a level alone is a priority class held to no rate.
        if words.peek().is_none() {
            return Ok(());
        }
    }
    let rate = if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("percent")) {
        words.next();
        format!("{}%", percent(words)?)
    } else {
        class_kbps(words, "a rate in kbit/s")?
    };
    settings.insert("priority".into(), json!(rate));
    if words.peek().is_some() {
        let burst = ranged(words, "a burst in bytes", range::PRIORITY_BURST_BYTES)?;
        settings.insert("burst".into(), json!(format!("{burst}B")));
    }

    Ok(())
}

/// `queue-limit N [packets | bytes | ms | us]` (the last three IOS XE's).
fn queue_limit(
    settings: &mut Map<String, Value>,
    line: &Line,
    words: &mut Words,
    xe_syntax: &mut Option<(Place, &'static str)>,
) -> Result<(), Problem> {
    // The number is read once its unit, the word after it, is known.
    let mut number = words.clone();
    words.next();
    let column = words.column();
    let unit = words.next().map(str::to_ascii_lowercase);
    // IOS XE's units: the suffix of the YAML value and the syntax's name.
    let (what, bounds, xe) = match unit.as_deref() {
        None | Some("packets") => ("a queue limit in packets", range::CLASS_QUEUE_LIMIT, None),
        Some("bytes") => {
            ("a queue limit in bytes", range::CLASS_QUEUE_LIMIT_BYTES, Some(("B", "queue-limit bytes")))
        }
        Some("ms") => ("a queue limit in ms", range::CLASS_QUEUE_LIMIT_MS, Some(("ms", "queue-limit ms"))),
        Some("us") => ("a queue limit in us", range::CLASS_QUEUE_LIMIT_US, Some(("us", "queue-limit us"))),
        Some(other) => {
            return Err((
                column,
                format!("`{other}` is not a queue-limit unit"),
                Some("write `packets` (or nothing), or IOS XE's `bytes`, `ms` or `us`".into()),
            ))
        }
    };
    match xe {
        None => {
            settings.insert("queue_limit".into(), json!(ranged(&mut number, what, bounds)?));
        }
        Some((suffix, syntax)) => {
            let value = within(&mut number, what, bounds, "qoslab's")?;
            xe_syntax.get_or_insert(((line.number, column), syntax));
            settings.insert("queue_limit".into(), json!(format!("{value}{suffix}")));
        }
    }

    Ok(())
}

/// `random-detect [dscp-based | ecn | exponential-weighting-constant N | dscp|precedence V MIN MAX [D]]`.
fn random_detect(settings: &mut Map<String, Value>, words: &mut Words) -> Result<(), Problem> {
    let red = settings.entry("random_detect").or_insert_with(|| json!({}));
    let red = red.as_object_mut().expect("an object");
    let column = words.column();
    match words.next().map(str::to_ascii_lowercase).as_deref() {
        None | Some("prec-based") => {}
        Some("dscp-based") => {
            red.insert("based_on".into(), json!("dscp"));
        }
        Some("ecn") => {
            red.insert("ecn".into(), json!(true));
        }
        Some("exponential-weighting-constant") => {
            let n = ranged(words, "an exponential weighting constant", range::WRED_EXPONENT)?;
            red.insert("exponential_weighting_constant".into(), json!(n));
        }
        Some(basis @ ("dscp" | "precedence")) => {
            let column = words.column();
            let word = words.next().unwrap_or("");
            let value = if basis == "dscp" { parse_dscp(word) } else { parse_precedence(word) };
            let value = value.map_err(|m| problem(column, m))?;
            let (min, max, denominator) = wred_thresholds(words, range::WRED_THRESHOLD, false)?;
            let mut row = json!({basis: value, "min": min, "max": max});
            if let Some(denominator) = denominator {
                row["denominator"] = json!(denominator);
            }
            if basis == "dscp" {
                red.insert("based_on".into(), json!("dscp"));
            }
            let profiles = red.entry("profiles").or_insert_with(|| json!([]));
            profiles.as_array_mut().expect("a list").push(row);
        }
        Some(other) => return Err(problem(column, format!("`random-detect {other}` is not modelled"))),
    }

    Ok(())
}

/// `shape average|peak BPS | percent P [BC_BITS [BE_BITS]]`.
fn shape(words: &mut Words) -> Result<Value, Problem> {
    let column = words.column();
    let mode = match words.next().map(str::to_ascii_lowercase).as_deref() {
        Some("average") => "average",
        Some("peak") => "peak",
        _ => return Err(problem(column, "expected `shape average` or `shape peak`")),
    };
    let rate = if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("percent")) {
        words.next();
        format!("{}%", percent(words)?)
    } else {
        format!("{}bps", ranged(words, "a rate in bit/s", range::RATE_BPS)?)
    };
    let mut shape = json!({"rate": rate, "mode": mode});
    // IOS gives Bc and Be in bits.
    if words.peek().is_some() {
        shape["bc"] = json!(format!("{}B", number::<u64>(words, "Bc in bits")?.div_ceil(8)));
    }
    if words.peek().is_some() {
        shape["be"] = json!(format!("{}B", number::<u64>(words, "Be in bits")?.div_ceil(8)));
    }
    Ok(shape)
}

/// `set [ip] dscp|precedence V`.
fn set(line: &Line) -> Result<Value, Problem> {
    let mut rest = Words::new(line, 1);
    if rest.peek().is_some_and(|w| w.eq_ignore_ascii_case("ip")) {
        rest.next();
    }
    let column = rest.column();
    let field = rest.next().unwrap_or("").to_ascii_lowercase();
    let value_column = rest.column();
    let value = rest.next().ok_or_else(|| problem(value_column, "a value is missing"))?;
    let set = match field.as_str() {
        "dscp" => json!({"dscp": parse_dscp(value).map_err(|m| problem(value_column, m))?}),
        "precedence" => {
            json!({"precedence": parse_precedence(value).map_err(|m| problem(value_column, m))?})
        }
        _ => {
            return Err(problem(
                column,
                format!("`set {field}` is not modelled (use `set ip dscp` or `set ip precedence`)"),
            ))
        }
    };
    Ok(set)
}

/// A police action: `transmit`, `drop`, `set-dscp-transmit X`, `set-prec-transmit N`.
fn action(words: &mut Words) -> Result<String, Problem> {
    let column = words.column();
    let verb = words.next().unwrap_or("").to_ascii_lowercase();
    match verb.as_str() {
        "transmit" | "drop" => Ok(verb),
        "set-dscp-transmit" | "set-prec-transmit" => {
            let value = words.next().ok_or_else(|| problem(words.column(), "a value is missing"))?;
            Ok(format!("{verb} {value}"))
        }
        _ => Err(problem(column, format!("`{verb}` is not a police action qoslab models"))),
    }
}

/// `police [cir] BPS|cir percent P [bc] [BYTES [be] [BYTES]] [pir BPS] [actions]`.
fn police(words: &mut Words) -> Result<Value, Problem> {
    let mut police = json!({});
    if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("cir")) {
        words.next();
    }
    if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("percent")) {
        words.next();
        police["cir"] = json!(format!("{}%", percent(words)?));
    } else {
        police["cir"] = json!(format!("{}bps", ranged(words, "a rate in bit/s", range::RATE_BPS)?));
    }
    let mut positional = 0;
    while let Some(word) = words.peek() {
        let column = words.column();
        match word.to_ascii_lowercase().as_str() {
            "bc" => {
                words.next();
                police["bc"] = json!(format!("{}B", number::<u64>(words, "Bc in bytes")?));
            }
            "be" => {
                words.next();
                police["be"] = json!(format!("{}B", number::<u64>(words, "Be in bytes")?));
            }
            "pir" => {
                words.next();
                police["pir"] = json!(format!("{}bps", ranged(words, "a rate in bit/s", range::RATE_BPS)?));
            }
            key @ ("conform-action" | "exceed-action" | "violate-action") => {
                words.next();
                police[key.replace('-', "_")] = json!(action(words)?);
            }
            _ if word.parse::<u64>().is_ok() && positional < 2 => {
                let bytes: u64 = number(words, "a burst in bytes")?;
                police[if positional == 0 { "bc" } else { "be" }] = json!(format!("{bytes}B"));
                positional += 1;
            }
            other => return Err(problem(column, format!("`{other}` is not modelled in `police`"))),
        }
    }
    Ok(police)
}
