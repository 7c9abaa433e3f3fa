//! A Linux device's traffic control, as `tc` shows it ([`super::tc_show`]), as a scenario
//! interface's output policy: the inverse of [`super::tc_script`], so that the policy a
//! router runs can be simulated.
//!
//! | tc | qoslab |
//! |---|---|
//! | `pfifo limit N`, `bfifo limit B` | `fifo` with `limit` |
//! | `prio` (one priority map entry for all 16 priorities), a fifo per band | `prio`, bands named by class id, u32 rules as `classify` |
//! | `drr`, a fifo per class, a last catch-all filter | `drr`, the catch-all's class as `default` |
//! | `htb` (with `stab`), a fifo per leaf | `htb`, classes named by class id |
//! | `fq_codel` | `fq_codel` |
//! | `tbf` | `tbf` in `continuous` mode, its bucket as `bc`; its limit, or the fifo or discipline under it |
//!
//! Classes take their filters in filter-priority order, the first that matches winning as in
//! qoslab; a class's rules must follow one another in that order (else no list of classes
//! with one condition each chooses as the kernel does). Refused at the entry, with why and
//! what to change: disciplines qoslab does not model or cannot read whole (`cake`, `red`,
//! `pfifo_fast`, `mq`, `netem`...), a priority map sending priorities to different bands
//! (qoslab classifies by filters alone), HTB's `default 0` and DRR without a catch-all (the
//! kernel sends unclassified packets unshaped, or drops them), classes whose own discipline
//! is not a fifo or is hidden (the kernel's built-in one), per-class size adjustments, tbf's
//! peak rate.

use super::tc_show::{
    burst_from_ticks, parse_handle, read_classes, read_filters, read_qdiscs, Handle, ShownClass, ShownFilter,
    ShownQdisc,
};
use super::u32_match::match_of;
use crate::config::error::{Issue, ScenarioError};
use crate::config::yaml_write::block;
use serde_json::{json, Map, Value};

/// Which of tc's outputs an entry came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// `tc qdisc show`.
    Qdiscs,
    /// `tc class show`.
    Classes,
    /// The `n`th `tc filter show` given.
    Filters(usize),
}

/// What tc showed of one device.
#[derive(Clone, Debug, Default)]
pub struct Shown {
    pub qdiscs: Vec<ShownQdisc>,
    pub classes: Vec<ShownClass>,
    /// Each filter with the index of the `tc filter show` output it came from.
    pub filters: Vec<(usize, ShownFilter)>,
}

/// The policy, and what a reader should know about how it was read.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The `output` policy, as a scenario holds it.
    pub output: Value,
    /// Readings that are not exact (a burst recovered within a byte or more, ...).
    pub notes: Vec<String>,
}

/// Classes (minor) with their conditions in the order their rules come, and the class of a
/// rule matching every packet, if any.
type Grouped = (Vec<(u32, Value)>, Option<u32>);

/// An entry tc import cannot read, with the output it is in.
pub type ImportError = (Input, Issue);

/// The output policy of the device `shown` describes.
pub fn import(shown: &Shown) -> Result<Imported, ImportError> {
    let roots: Vec<&ShownQdisc> = shown.qdiscs.iter().filter(|q| q.parent.is_none()).collect();
    let root =
        match roots[..] {
            [root] => root,
            [] => return Err((
                Input::Qdiscs,
                Issue::at("", "no discipline at the device's root").hint(
                    "give the output of `tc -j -d -r qdisc show dev D` for a device with a root discipline",
                ),
            )),
            _ => {
                return Err((
                    Input::Qdiscs,
                    Issue::at(
                        roots[1].at.clone(),
                        "a second discipline at the root: give one device's disciplines",
                    ),
                ))
            }
        };
    let mut reader = Reader { shown, notes: Vec::new() };
    let output = reader.discipline(root)?;
    Ok(Imported { output, notes: reader.notes })
}

struct Reader<'a> {
    shown: &'a Shown,
    notes: Vec<String>,
}

fn at_qdisc(q: &ShownQdisc, key: &str, message: impl Into<String>) -> ImportError {
    let place = if key.is_empty() { q.at.clone() } else { format!("{}.{key}", q.at) };
    (Input::Qdiscs, Issue::at(place, message))
}

fn number(q: &ShownQdisc, key: &str) -> Result<u64, ImportError> {
    q.options
        .get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| at_qdisc(q, &format!("options.{key}"), format!("`{}` shows no `{key}`", q.kind)))
}

impl<'a> Reader<'a> {
    fn discipline(&mut self, q: &ShownQdisc) -> Result<Value, ImportError> {
        match q.kind.as_str() {
            "pfifo" | "bfifo" => Ok(json!({"kind": "fifo", "limit": fifo_limit(q)?})),
            "htb" => self.htb(q),
            "prio" => self.prio(q),
            "drr" => self.drr(q),
            "fq_codel" => fq_codel(q),
            "tbf" => self.tbf(q),
            other => {
                let hint = match other {
                    "pfifo_fast" => {
                        "its three bands follow the priority map; write it as `prio bands 3` with u32 filters"
                    }
                    "noqueue" => "the device does not queue: give it a discipline",
                    "mq" | "mqprio" | "multiq" => {
                        "give a single-queue device, or the discipline of one of its queues"
                    }
                    _ => "tc import reads pfifo, bfifo, prio, drr, htb, fq_codel and tbf",
                };
                Err(at_qdisc(q, "kind", format!("qoslab does not model Linux's `{other}`")).map_hint(hint))
            }
        }
    }

    /// The discipline hanging from class `class`.
    fn child(&self, class: Handle) -> Option<&'a ShownQdisc> {
        let shown: &'a Shown = self.shown;
        shown.qdiscs.iter().find(|q| q.parent == Some(class))
    }

    /// The limit of the fifo that holds class `class`'s packets (`at` names the class).
    fn leaf_limit(&self, class: Handle, at: (Input, &str)) -> Result<Value, ImportError> {
        match self.child(class) {
            Some(q) if matches!(q.kind.as_str(), "pfifo" | "bfifo") => fifo_limit(q),
            Some(q) => Err(at_qdisc(q, "kind", format!("class {class} holds its packets in a `{}`: qoslab's classes queue in a fifo", q.kind))),
            None => Err((at.0, Issue::at(at.1, format!("class {class} shows no discipline of its own: the kernel's built-in one (a pfifo as long as the device's txqueuelen) is not in tc's listing"))
                .hint(format!("add one: `tc qdisc add dev D parent {class} pfifo limit N`")))),
        }
    }

    /// The filters of the discipline with major `major`, in the order the kernel tries them.
    fn filters_of(&self, major: u32) -> Vec<&'a (usize, ShownFilter)> {
        let shown: &'a Shown = self.shown;
        let mut filters: Vec<&(usize, ShownFilter)> =
            shown.filters.iter().filter(|(_, f)| f.parent_major == major).collect();
        filters.sort_by_key(|(_, f)| (f.pref, f.order));
        filters
    }

    /// The classes of discipline `major` with their conditions, in the order their rules
    /// come; each class's rules must come together. The first return lists (class minor,
    /// condition); classes without rules are not in it. A rule with no keys (catch-all) is
    /// returned apart, with its class.
    fn grouped_rules(&self, major: u32, classes: &[u32]) -> Result<Grouped, ImportError> {
        let mut groups: Vec<(u32, Vec<Map<String, Value>>)> = Vec::new();
        let mut catch_all = None;
        for (input, filter) in self.filters_of(major) {
            let place = |message: String| (Input::Filters(*input), Issue::at(filter.at.clone(), message));
            if catch_all.is_some() {
                return Err(place(
                    "a rule after a rule that matches every packet: the kernel never reaches it".into(),
                ));
            }
            if filter.flowid.major != major || !classes.contains(&filter.flowid.minor) {
                return Err(place(format!(
                    "the rule sends packets to {}, which is not a leaf class of {major:x}:",
                    filter.flowid
                )));
            }
            let condition = match_of(&filter.keys, &filter.at).map_err(|i| (Input::Filters(*input), i))?;
            if condition.is_empty() {
                catch_all = Some(filter.flowid.minor);
                continue;
            }
            match groups.last_mut() {
                Some((minor, rules)) if *minor == filter.flowid.minor => rules.push(condition),
                _ => {
                    if groups.iter().any(|(minor, _)| *minor == filter.flowid.minor) {
                        return Err(place(format!(
                            "class {} takes rules both before and after another class's: a class's rules must come together in filter-priority order",
                            filter.flowid
                        ))
                        .map_hint("give each class's filters neighbouring priorities"));
                    }
                    groups.push((filter.flowid.minor, vec![condition]));
                }
            }
        }
        Ok((groups.into_iter().map(|(minor, rules)| (minor, condition_of(rules))).collect(), catch_all))
    }

    fn classes_of(&self, major: u32, kind: &str) -> Vec<&'a ShownClass> {
        let shown: &'a Shown = self.shown;
        let mut classes: Vec<&ShownClass> = shown
            .classes
            .iter()
            .filter(|c| c.kind == kind && c.id.is_some_and(|id| id.major == major))
            .collect();
        classes.sort_by_key(|c| c.id);
        classes
    }

    fn htb(&mut self, q: &ShownQdisc) -> Result<Value, ImportError> {
        let default = q
            .options
            .get("default")
            .and_then(Value::as_str)
            .and_then(|s| u32::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            .unwrap_or(0);
        if default == 0 {
            return Err(at_qdisc(q, "options.default", "HTB without a default class sends unclassified packets unshaped through its direct queue, which qoslab does not model")
                .map_hint("name a default leaf: `tc qdisc change dev D root handle 1: htb default N`"));
        }
        let classes = self.classes_of(q.major, "htb");
        let id = |c: &ShownClass| c.id.expect("classes_of keeps classes with an id");
        let is_parent = |c: &ShownClass| classes.iter().any(|d| d.parent == Some(id(c)));
        let leaves: Vec<u32> = classes.iter().filter(|c| !is_parent(c)).map(|c| id(c).minor).collect();
        let (rules, catch_all) = self.grouped_rules(q.major, &leaves)?;
        let mut listed: Vec<Value> = Vec::new();
        // Inner classes first, then leaves in the order their rules are tried.
        for c in classes.iter().filter(|c| is_parent(c)) {
            listed.push(self.htb_class(c, false, None)?);
        }
        let mut leaf_order: Vec<(u32, Option<Value>)> =
            rules.into_iter().map(|(m, c)| (m, Some(c))).collect();
        if let Some(minor) = catch_all {
            if !leaf_order.iter().any(|(m, _)| *m == minor) {
                leaf_order.push((minor, Some(json!({}))));
            }
        }
        for &minor in &leaves {
            if !leaf_order.iter().any(|(m, _)| *m == minor) {
                leaf_order.push((minor, None));
            }
        }
        for (minor, condition) in leaf_order {
            let class = classes.iter().find(|c| id(c).minor == minor).expect("a leaf");
            listed.push(self.htb_class(class, true, condition)?);
        }
        if !leaves.contains(&default) {
            return Err(at_qdisc(
                q,
                "options.default",
                format!("the default class {:x}:{default:x} is not a leaf class", q.major),
            ));
        }
        let mut policy = json!({"kind": "htb", "classes": listed, "default": Handle { major: q.major, minor: default }.to_string()});
        if let Some(r2q) = q.options.get("r2q").and_then(Value::as_u64) {
            policy["r2q"] = r2q.into();
        }
        if let Some(stab) = &q.stab {
            let overhead = stab.get("overhead").and_then(Value::as_i64).unwrap_or(0);
            let mpu = stab.get("mpu").and_then(Value::as_u64).unwrap_or(0);
            let linklayer = stab.get("linklayer").and_then(Value::as_str).unwrap_or("ethernet");
            if overhead != 0 || mpu != 0 || linklayer != "ethernet" {
                policy["stab"] = json!({"overhead": overhead, "mpu": mpu, "linklayer": linklayer});
            }
        }
        Ok(policy)
    }

    fn htb_class(
        &mut self,
        c: &ShownClass,
        leaf: bool,
        condition: Option<Value>,
    ) -> Result<Value, ImportError> {
        let id = c.id.expect("classes_of keeps classes with an id");
        let place = |message: String| (Input::Classes, Issue::at(c.at.clone(), message));
        if c.overhead_bytes.unwrap_or(0) != 0
            || c.mpu_bytes.unwrap_or(0) != 0
            || c.linklayer.as_deref().is_some_and(|l| l != "ethernet")
        {
            return Err(place(format!("class {id} adjusts packet sizes itself (overhead, mpu or linklayer on the class)"))
                .map_hint("give the adjustment to the discipline as a size table: `tc qdisc add ... stab overhead N mpu M linklayer L htb ...`"));
        }
        let rate_bps = c.rate_bps.ok_or_else(|| place(format!("class {id} shows no rate")))?;
        let ceil_bps = c.ceil_bps.unwrap_or(rate_bps);
        let burst = self.bucket(c, rate_bps, c.buffer_ticks, c.burst_bytes, "burst")?;
        let cburst = self.bucket(c, ceil_bps, c.cbuffer_ticks, c.cburst_bytes, "cburst")?;
        let mut class = json!({
            "name": id.to_string(),
            "rate": format!("{rate_bps}bps"),
            "ceil": format!("{ceil_bps}bps"),
            "burst": format!("{burst}B"),
            "cburst": format!("{cburst}B"),
        });
        if let Some(parent) = c.parent {
            class["parent"] = parent.to_string().into();
        }
        if leaf {
            class["prio"] = c.prio.unwrap_or(0).into();
            if let Some(quantum) = c.quantum_bytes {
                class["quantum"] = format!("{quantum}B").into();
            }
            class["limit"] = self.leaf_limit(id, (Input::Classes, &c.at))?;
            if let Some(condition) = condition {
                class["match"] = condition;
            }
        }
        Ok(class)
    }

    /// A bucket's depth, bytes: from the kernel's ticks when tc showed them (`-r`), else the
    /// burst tc printed (rounded down by tc).
    fn bucket(
        &mut self,
        c: &ShownClass,
        rate_bps: u64,
        ticks: Option<u64>,
        shown: Option<u64>,
        what: &str,
    ) -> Result<u64, ImportError> {
        let id = c.id.map(|h| h.to_string()).unwrap_or_default();
        match (ticks, shown) {
            (Some(ticks), _) => {
                let (bytes, exact) = burst_from_ticks(rate_bps, ticks);
                if !exact {
                    self.notes.push(format!("class {id}: {what} {bytes} B read from the kernel's bucket of {ticks} ticks at {rate_bps} bit/s, to within a few bytes"));
                }
                Ok(bytes)
            }
            (None, Some(bytes)) => {
                self.notes.push(format!("class {id}: {what} {bytes} B as tc prints it, rounded down; `tc -d -r class show` (text) gives the kernel's bucket exactly"));
                Ok(bytes)
            }
            (None, None) => {
                Err((Input::Classes, Issue::at(c.at.clone(), format!("class {id} shows no {what}"))))
            }
        }
    }

    fn prio(&mut self, q: &ShownQdisc) -> Result<Value, ImportError> {
        let bands = number(q, "bands")? as u32;
        let priomap: Vec<u64> = q
            .options
            .get("priomap")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let Some(&default) = priomap.first() else {
            return Err(at_qdisc(q, "options.priomap", "`prio` shows no priority map"));
        };
        if priomap.iter().any(|&b| b != default) {
            return Err(at_qdisc(q, "options.priomap", "the priority map sends priorities to different bands; qoslab's prio classifies by filters alone")
                .map_hint("map every priority to one band (`priomap` of 16 equal entries) and classify with u32 filters"));
        }
        let name = |band: u32| Handle { major: q.major, minor: band + 1 }.to_string();
        let mut listed = Vec::new();
        for band in 0..bands {
            let limit =
                self.leaf_limit(Handle { major: q.major, minor: band + 1 }, (Input::Qdiscs, &q.at))?;
            listed.push(json!({"name": name(band), "limit": limit}));
        }
        let mut classify = Vec::new();
        for (input, filter) in self.filters_of(q.major) {
            if filter.flowid.major != q.major || filter.flowid.minor == 0 || filter.flowid.minor > bands {
                return Err((
                    Input::Filters(*input),
                    Issue::at(
                        filter.at.clone(),
                        format!(
                            "the rule sends packets to {}, which is not a band of {:x}:",
                            filter.flowid, q.major
                        ),
                    ),
                ));
            }
            let condition = match_of(&filter.keys, &filter.at).map_err(|i| (Input::Filters(*input), i))?;
            classify.push(json!({"match": condition, "band": filter.flowid.to_string()}));
        }
        Ok(json!({"kind": "prio", "bands": listed, "default": name(default as u32), "classify": classify}))
    }

    fn drr(&mut self, q: &ShownQdisc) -> Result<Value, ImportError> {
        let classes = self.classes_of(q.major, "drr");
        let minors: Vec<u32> = classes.iter().filter_map(|c| c.id).map(|h| h.minor).collect();
        let (rules, catch_all) = self.grouped_rules(q.major, &minors)?;
        let Some(default) = catch_all else {
            return Err(at_qdisc(q, "", "DRR without a last rule matching every packet drops what no filter classifies, where qoslab's DRR queues it in a default class")
                .map_hint(format!("add `tc filter add dev D parent {:x}: protocol ip prio 99 u32 match u32 0 0 flowid {:x}:N`", q.major, q.major)));
        };
        let mut order: Vec<(u32, Option<Value>)> = rules.into_iter().map(|(m, c)| (m, Some(c))).collect();
        for &minor in &minors {
            if !order.iter().any(|(m, _)| *m == minor) {
                order.push((minor, None));
            }
        }
        let mut listed = Vec::new();
        for (minor, condition) in order {
            let c = classes.iter().find(|c| c.id.is_some_and(|h| h.minor == minor)).expect("a class");
            let id = Handle { major: q.major, minor };
            let quantum = c.quantum_bytes.ok_or_else(|| {
                (
                    Input::Classes,
                    Issue::at(c.at.clone(), format!("class {id} shows no quantum")).hint(
                        "tc's JSON leaves DRR's quantum out: give the text of `tc -d -r class show dev D`",
                    ),
                )
            })?;
            let mut class = json!({"name": id.to_string(), "quantum": format!("{quantum}B"), "limit": self.leaf_limit(id, (Input::Classes, &c.at))?});
            if let Some(condition) = condition {
                class["match"] = condition;
            }
            listed.push(class);
        }
        Ok(
            json!({"kind": "drr", "classes": listed, "default": Handle { major: q.major, minor: default }.to_string()}),
        )
    }

    fn tbf(&mut self, q: &ShownQdisc) -> Result<Value, ImportError> {
        for key in ["mtu", "minburst", "peakrate", "overhead"] {
            if q.options.contains_key(key) {
                return Err(at_qdisc(
                    q,
                    &format!("options.{key}"),
                    format!("tbf's `{key}`: qoslab's continuous tbf has no peak rate or size adjustment"),
                ));
            }
        }
        if q.stab.is_some()
            || q.options.get("linklayer").and_then(Value::as_str).is_some_and(|l| l != "ethernet")
        {
            return Err(at_qdisc(q, "stab", "a size table on tbf, which qoslab's tbf does not take")
                .map_hint("adjust sizes on an htb instead"));
        }
        let rate_bps = number(q, "rate")? * 8;
        let burst = match q
            .options
            .get("burst_raw")
            .and_then(Value::as_str)
            .and_then(|s| u64::from_str_radix(s, 16).ok())
        {
            Some(ticks) => {
                let (bytes, exact) = burst_from_ticks(rate_bps, ticks);
                if !exact {
                    self.notes.push(format!("tbf {:x}: burst {bytes} B read from the kernel's bucket of {ticks} ticks, to within a few bytes", q.major));
                }
                bytes
            }
            None => {
                return Err(at_qdisc(
                    q,
                    "options",
                    "tbf shows no `burst_raw`: its burst is printed rounded down",
                )
                .map_hint("give the output of `tc -j -d -r qdisc show dev D` (with -r)"))
            }
        };
        let mut policy = json!({"kind": "tbf", "mode": "continuous", "rate": format!("{rate_bps}bps"), "bc": format!("{burst}B"), "be": "0B"});
        let inner = Handle { major: q.major, minor: 1 };
        match self.child(inner) {
            Some(child) if matches!(child.kind.as_str(), "pfifo" | "bfifo") => {
                policy["limit"] = fifo_limit(child)?
            }
            Some(child) => policy["child"] = self.discipline(child)?,
            None => {
                let limit = q.options.get("limit").and_then(Value::as_u64).ok_or_else(|| {
                    at_qdisc(q, "options", "tbf shows no `limit`")
                        .map_hint("give the output of `tc -j -d -r qdisc show dev D` (with -r)")
                })?;
                policy["limit"] = format!("{limit}B").into();
            }
        }
        Ok(policy)
    }
}

/// A fifo's limit as a scenario writes it: packets, bytes, or `unlimited` for the largest
/// count the kernel takes (how tc export writes an unlimited queue).
fn fifo_limit(q: &ShownQdisc) -> Result<Value, ImportError> {
    let limit = number(q, "limit")?;
    Ok(match q.kind.as_str() {
        "bfifo" => format!("{limit}B").into(),
        _ if limit >= u32::MAX as u64 => "unlimited".into(),
        _ => limit.into(),
    })
}

fn fq_codel(q: &ShownQdisc) -> Result<Value, ImportError> {
    if q.options.contains_key("ce_threshold") {
        return Err(at_qdisc(q, "options.ce_threshold", "fq_codel's `ce_threshold` marking is not modelled"));
    }
    Ok(json!({
        "kind": "fq_codel",
        "limit": number(q, "limit")?,
        "flows": number(q, "flows")?,
        "quantum": format!("{}B", number(q, "quantum")?),
        "target": format!("{}us", number(q, "target")?),
        "interval": format!("{}us", number(q, "interval")?),
        "ecn": q.options.get("ecn").and_then(Value::as_bool).unwrap_or(false),
    }))
}

/// One class's rules as one condition: a single rule as it is, rules on DSCP alone as one
/// DSCP list, others as `any`.
fn condition_of(mut rules: Vec<Map<String, Value>>) -> Value {
    if rules.len() == 1 {
        return Value::Object(rules.remove(0));
    }
    if rules.iter().all(|r| r.len() == 1 && r.contains_key("dscp")) {
        let mut dscps: Vec<u64> = rules
            .iter()
            .flat_map(|r| r["dscp"].as_array().into_iter().flatten().filter_map(Value::as_u64))
            .collect();
        dscps.sort_unstable();
        dscps.dedup();
        return json!({"dscp": dscps});
    }
    json!({"any": rules})
}

trait MapHint {
    fn map_hint(self, hint: impl Into<String>) -> Self;
}

impl MapHint for ImportError {
    fn map_hint(self, hint: impl Into<String>) -> Self {
        (self.0, self.1.hint(hint))
    }
}

/// One output of tc and the name it is known by in errors (its file).
pub type Named<'t> = (&'t str, &'t str);

/// The output of `tc -j -d -r qdisc show dev D` (`qdiscs`), `tc class show` (`classes`,
/// JSON or text) and `tc -j filter show dev D parent H:` (`filters`, each with the handle of
/// the discipline it was asked for, where its entries do not say) as the YAML of an
/// `interfaces.NODE.PEER` entry, its notes as comments first. An entry that cannot be read
/// is refused naming its output's name and its place in it.
pub fn import_yaml(
    qdiscs: Named,
    classes: Named,
    filters: &[(Named, Option<&str>)],
) -> Result<String, ScenarioError> {
    let origin = |input: Input| match input {
        Input::Qdiscs => qdiscs.1,
        Input::Classes => classes.1,
        Input::Filters(n) => filters[n].0 .1,
    };
    read_and_import(qdiscs.0, classes.0, filters).map_err(|(input, issue)| ScenarioError {
        kind: issue.kind,
        origin: origin(input).into(),
        position: None,
        key_path: issue.key_path,
        message: issue.message,
        hint: issue.hint,
    })
}

fn read_and_import(
    qdiscs: &str,
    classes: &str,
    filters: &[(Named, Option<&str>)],
) -> Result<String, ImportError> {
    let mut shown = Shown {
        qdiscs: read_qdiscs(qdiscs).map_err(|i| (Input::Qdiscs, i))?,
        classes: read_classes(classes).map_err(|i| (Input::Classes, i))?,
        filters: Vec::new(),
    };
    for (n, ((text, _), parent)) in filters.iter().enumerate() {
        let parent = match parent {
            Some(p) => Some(parse_handle(p).ok_or_else(|| {
                (Input::Filters(n), Issue::at("", format!("`{p}` is not a tc handle such as `2:`")))
            })?),
            None => None,
        };
        for filter in read_filters(text, parent).map_err(|i| (Input::Filters(n), i))? {
            shown.filters.push((n, filter));
        }
    }
    let imported = import(&shown)?;
    let mut out = String::new();
    for note in &imported.notes {
        out.push_str(&format!("# {note}\n"));
    }
    let mut entry = Map::new();
    entry.insert("output".into(), imported.output);
    block(&Value::Object(entry), 0, &mut out);
    Ok(out)
}
