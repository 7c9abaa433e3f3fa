//! What `tc` shows of a device's traffic control, read back into records: its disciplines
//! (`tc -j -d -r qdisc show dev D`), classes and filters (`tc -j filter show dev D parent
//! H:` for each discipline that classifies).
//!
//! Classes come in either of tc's two forms: JSON (`tc -j -d class show`, iproute2 6.2 and
//! later) or text (`tc -d -r class show`; iproute2 before 6.2 prints classes as text whatever
//! `-j` says). The text form with `-r` carries each bucket as the kernel keeps it, a time in
//! scheduler ticks (`buffer [000a2c20]`), from which the burst written to tc is recovered
//! ([`burst_from_ticks`]); tc prints the burst itself rounded down to a byte after two
//! conversions, so `burst 1600b` reads back as `1599b` at 300 kbit/s.
//!
//! Units as tc prints them (`tc/tc_util.c`, `lib/json_print.c`): JSON rates in bytes per
//! second, text rates in bits per second with a decimal prefix (`300Kbit`; iproute2 stops
//! dividing by 1000 only at a remainder below a million, so a text rate may be rounded to
//! three significant digits past its first thousand: use JSON where the classes come as
//! JSON); sizes in bytes, text sizes with binary prefixes (`2Kb`, `4.00391Kb`). u32 JSON
//! repeats the key `match` once per selector key, which a map would collapse, so filters are
//! read with a visitor that keeps every repeated key ([`Pairs`]).

use crate::config::error::Issue;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::fmt;

/// Nanoseconds per scheduler tick (`PSCHED_TICKS2NS`: a shift by `PSCHED_SHIFT`, 6).
pub const NS_PER_TICK: u64 = 64;

/// A traffic-control handle `major:minor` (hexadecimal in tc's notation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Handle {
    /// The discipline's number.
    pub major: u32,
    /// The class within it (0: the discipline itself).
    pub minor: u32,
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.minor == 0 {
            write!(f, "{:x}:", self.major)
        } else {
            write!(f, "{:x}:{:x}", self.major, self.minor)
        }
    }
}

/// Reads `1:`, `1:2`, `1:a` (hexadecimal), or a major alone as `2:` or `0x2`.
pub fn parse_handle(text: &str) -> Option<Handle> {
    let hex = |s: &str| if s.is_empty() { Some(0) } else { u32::from_str_radix(s, 16).ok() };
    match text.split_once(':') {
        Some((major, minor)) => Some(Handle { major: hex(major)?, minor: hex(minor)? }),
        None => Some(Handle { major: hex(text.strip_prefix("0x")?)?, minor: 0 }),
    }
}

/// A discipline as `tc -j qdisc show` gives it.
#[derive(Clone, Debug)]
pub struct ShownQdisc {
    /// `htb`, `pfifo`, ...
    pub kind: String,
    /// Its handle's major number.
    pub major: u32,
    /// The class it hangs from; `None` at the device's root.
    pub parent: Option<Handle>,
    /// Its `options` object.
    pub options: Map<String, Value>,
    /// Its size table (`stab`), shown with `-d`.
    pub stab: Option<Map<String, Value>>,
    /// Where it is in the input (`[2]`).
    pub at: String,
}

/// A class as `tc class show` gives it, its settings in bit/s, bytes and ticks.
#[derive(Clone, Debug, Default)]
pub struct ShownClass {
    /// `htb`, `drr`, ...
    pub kind: String,
    /// Its class id.
    pub id: Option<Handle>,
    /// Its parent class; `None` for a class directly under its discipline.
    pub parent: Option<Handle>,
    /// The major number of the discipline holding its packets, when it has one.
    pub leaf: Option<u32>,
    pub rate_bps: Option<u64>,
    pub ceil_bps: Option<u64>,
    pub burst_bytes: Option<u64>,
    pub cburst_bytes: Option<u64>,
    /// The rate bucket as the kernel keeps it, in ticks (text with `-r` only).
    pub buffer_ticks: Option<u64>,
    /// The ceil bucket as the kernel keeps it, in ticks (text with `-r` only).
    pub cbuffer_ticks: Option<u64>,
    pub prio: Option<u64>,
    pub quantum_bytes: Option<u64>,
    /// A per-class size adjustment on the rate tables (`htb ... overhead N`).
    pub overhead_bytes: Option<u64>,
    /// Smallest size the rate tables charge, bytes.
    pub mpu_bytes: Option<u64>,
    /// `ethernet` or `atm`.
    pub linklayer: Option<String>,
    /// Where it is in the input (`line 3`, `[2]`).
    pub at: String,
}

/// One 32-bit key of a u32 filter: the word at byte offset `off` of the IP header, under
/// `mask`, equals `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct U32Key {
    pub value: u32,
    pub mask: u32,
    pub off: i64,
}

/// A u32 filter rule: packets whose keys all hold go to class `flowid`.
#[derive(Clone, Debug)]
pub struct ShownFilter {
    /// The discipline it is attached to (its major number).
    pub parent_major: u32,
    /// Filter priority (`pref`): lower is tried first.
    pub pref: u64,
    /// Order within its priority.
    pub order: u64,
    pub flowid: Handle,
    pub keys: Vec<U32Key>,
    /// Where it is in the input (`[2].options`).
    pub at: String,
}

/// The disciplines of `text`, the output of `tc -j -d -r qdisc show dev D`. The device's
/// input side (`ingress`, `clsact`) is left out: it does not queue.
pub fn read_qdiscs(text: &str) -> Result<Vec<ShownQdisc>, Issue> {
    let entries: Vec<Value> =
        serde_json::from_str(text).map_err(|e| not_json(&e, "tc -j -d -r qdisc show dev D"))?;
    let mut out = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("[{i}]");
        let kind = entry["kind"]
            .as_str()
            .ok_or_else(|| Issue::at(format!("{at}.kind"), "a discipline without a kind"))?;
        if matches!(kind, "ingress" | "clsact") {
            continue;
        }
        let major = entry["handle"]
            .as_str()
            .and_then(parse_handle)
            .ok_or_else(|| Issue::at(format!("{at}.handle"), "not a tc handle such as `1:`"))?
            .major;
        let parent = match (entry.get("root"), entry.get("parent").and_then(Value::as_str)) {
            (Some(Value::Bool(true)), _) => None,
            (_, Some(p)) => Some(
                parse_handle(p)
                    .ok_or_else(|| Issue::at(format!("{at}.parent"), "not a tc handle such as `1:2`"))?,
            ),
            _ => return Err(Issue::at(at, "a discipline neither at the root nor under a parent")),
        };
        out.push(ShownQdisc {
            kind: kind.to_owned(),
            major,
            parent,
            options: entry.get("options").and_then(Value::as_object).cloned().unwrap_or_default(),
            stab: entry.get("stab").and_then(Value::as_object).cloned(),
            at,
        });
    }
    Ok(out)
}

/// The classes of `text`: JSON from `tc -j -d class show dev D`, or the text of `tc -d -r
/// class show dev D` (statistics lines, from `-s`, are passed over).
pub fn read_classes(text: &str) -> Result<Vec<ShownClass>, Issue> {
    if text.trim_start().starts_with('[') {
        let entries: Vec<Map<String, Value>> =
            serde_json::from_str(text).map_err(|e| not_json(&e, "tc -j -d class show dev D"))?;
        return entries.iter().enumerate().map(|(i, e)| json_class(e, format!("[{i}]"))).collect();
    }
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with(char::is_whitespace) {
            continue;
        }
        out.push(text_class(line, format!("line {}", n + 1))?);
    }
    Ok(out)
}

fn json_class(entry: &Map<String, Value>, at: String) -> Result<ShownClass, Issue> {
    let mut class = ShownClass { at: at.clone(), ..ShownClass::default() };
    for (key, value) in entry {
        let here = format!("{at}.{key}");
        let number = || value.as_u64().ok_or_else(|| Issue::at(&here, "not a whole number"));
        let handle =
            || value.as_str().and_then(parse_handle).ok_or_else(|| Issue::at(&here, "not a tc handle"));
        match key.as_str() {
            "class" => class.kind = value.as_str().unwrap_or_default().to_owned(),
            "handle" => class.id = Some(handle()?),
            "parent" => class.parent = Some(handle()?),
            "leaf" => class.leaf = Some(handle()?.major),
            "rate" => class.rate_bps = Some(number()? * 8),
            "ceil" => class.ceil_bps = Some(number()? * 8),
            "burst" => class.burst_bytes = Some(number()?),
            "cburst" => class.cburst_bytes = Some(number()?),
            "prio" => class.prio = Some(number()?),
            "quantum" => class.quantum_bytes = Some(number()?),
            "overhead" => class.overhead_bytes = Some(number()?),
            "mpu_rate" | "mpu_ceil" => class.mpu_bytes = Some(number()?.max(class.mpu_bytes.unwrap_or(0))),
            "linklayer" => class.linklayer = value.as_str().map(str::to_owned),
            "root" | "level" | "burst_cell" | "cburst_cell" | "stats" | "dev" => {}
            _ => return Err(Issue::at(here, format!("`{key}` is not a class setting tc import reads"))),
        }
    }
    Ok(class)
}

fn text_class(line: &str, at: String) -> Result<ShownClass, Issue> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (Some(&"class"), Some(kind), Some(id)) = (words.first(), words.get(1), words.get(2)) else {
        return Err(Issue::at(at, "not a line of `tc class show`: it should start `class KIND ID`"));
    };
    let mut class = ShownClass {
        kind: (*kind).to_owned(),
        id: parse_handle(id),
        at: at.clone(),
        ..ShownClass::default()
    };
    let mut rest = words[3..].iter();
    while let Some(&word) = rest.next() {
        if word == "root" {
            continue;
        }
        let value = *rest.next().ok_or_else(|| Issue::at(&at, format!("`{word}` without a value")))?;
        let bad = || Issue::at(&at, format!("`{word} {value}`: the value cannot be read"));
        let size = || text_size_bytes(value).ok_or_else(bad);
        let rate = || text_rate_bps(value).ok_or_else(bad);
        let ticks = || {
            value
                .strip_prefix('[')
                .and_then(|v| v.strip_suffix(']'))
                .and_then(|v| u64::from_str_radix(v, 16).ok())
                .ok_or_else(bad)
        };
        let handle = || parse_handle(value).ok_or_else(bad);
        match word {
            "parent" => class.parent = Some(handle()?),
            "leaf" => class.leaf = Some(handle()?.major),
            "prio" => class.prio = Some(value.parse().map_err(|_| bad())?),
            "quantum" => class.quantum_bytes = Some(size()?),
            "rate" => class.rate_bps = Some(rate()?),
            "ceil" => class.ceil_bps = Some(rate()?),
            "burst" => class.burst_bytes = Some(size()?),
            "cburst" => class.cburst_bytes = Some(size()?),
            "buffer" => class.buffer_ticks = Some(ticks()?),
            "cbuffer" => class.cbuffer_ticks = Some(ticks()?),
            "overhead" => class.overhead_bytes = Some(value.parse().map_err(|_| bad())?),
            "mpu" => class.mpu_bytes = Some(size()?.max(class.mpu_bytes.unwrap_or(0))),
            "linklayer" => class.linklayer = Some(value.to_owned()),
            "level" => {}
            _ => return Err(Issue::at(at, format!("`{word}` is not a class setting tc import reads"))),
        }
    }
    Ok(class)
}

/// A text size (`1599b`, `1599b/1` with its cell, `2Kb`, `4.00391Kb`, `1Mb`, or HTB's bare
/// quantum `3750`) in bytes.
pub fn text_size_bytes(text: &str) -> Option<u64> {
    let text = text.split('/').next()?;
    let number = text.strip_suffix('b').unwrap_or(text);
    let (digits, factor) = match number.chars().last()? {
        'K' => (&number[..number.len() - 1], 1024.0),
        'M' => (&number[..number.len() - 1], 1024.0 * 1024.0),
        'G' => (&number[..number.len() - 1], 1024.0 * 1024.0 * 1024.0),
        _ => (number, 1.0),
    };
    let value: f64 = digits.parse().ok()?;
    (value >= 0.0).then(|| (value * factor).round() as u64)
}

/// A text rate (`300Kbit`, `1Mbit`, `8bit`, `1Kibit`) in bit/s.
pub fn text_rate_bps(text: &str) -> Option<u64> {
    let number = text.strip_suffix("bit")?;
    let (number, base) = match number.strip_suffix('i') {
        Some(n) => (n, 1024.0),
        None => (number, 1000.0),
    };
    let (digits, power) = match number.chars().last()? {
        'K' => (&number[..number.len() - 1], 1),
        'M' => (&number[..number.len() - 1], 2),
        'G' => (&number[..number.len() - 1], 3),
        'T' => (&number[..number.len() - 1], 4),
        _ => (number, 0),
    };
    let value: f64 = digits.parse().ok()?;
    (value >= 0.0).then(|| (value * f64::powi(base, power)).round() as u64)
}

/// The burst, bytes, that tc turned into a bucket of `ticks` at `rate_bps`: the bucket's
/// bytes (rate × ticks × 64 ns) to the nearest byte. Exact while a tick carries less than half
/// a byte and tc's own rounding (to a microsecond before iproute2 6.14) less than half a byte
/// too: below 4 Mbit/s for every iproute2, below 62.5 Mbit/s for 6.14 and later. The second
/// value says whether that holds.
pub fn burst_from_ticks(rate_bps: u64, ticks: u64) -> (u64, bool) {
    let bit_ns = rate_bps as u128 * ticks as u128 * NS_PER_TICK as u128;
    let per_byte_bit_ns = 8 * crate::time::NS_PER_S as u128;
    let bytes = (bit_ns + per_byte_bit_ns / 2) / per_byte_bit_ns;
    (bytes as u64, rate_bps < 4_000_000)
}

/// An object's entries in their order, repeated keys kept (u32's `match`).
#[derive(Clone, Debug, Default)]
pub struct Pairs(pub Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct PairsVisitor;
        impl<'de> Visitor<'de> for PairsVisitor {
            type Value = Pairs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs, A::Error> {
                let mut pairs = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    pairs.push(entry);
                }
                Ok(Pairs(pairs))
            }
        }
        d.deserialize_map(PairsVisitor)
    }
}

#[derive(Deserialize)]
struct FilterEntry {
    kind: Option<String>,
    parent: Option<String>,
    pref: Option<u64>,
    options: Option<Pairs>,
}

/// The u32 rules of `text`, the output of `tc -j filter show dev D parent H:`; `parent` is
/// the discipline they belong to where the entries do not say (tc leaves `parent` out when
/// the command names it). Hash-table entries (no `flowid`) are passed over; what qoslab
/// cannot read as a class choice (another classifier, hashing, links, actions, variable
/// offsets) is refused at its entry.
pub fn read_filters(text: &str, parent: Option<Handle>) -> Result<Vec<ShownFilter>, Issue> {
    let entries: Vec<FilterEntry> =
        serde_json::from_str(text).map_err(|e| not_json(&e, "tc -j filter show dev D parent H:"))?;
    let mut out = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("[{i}]");
        let Some(Pairs(options)) = &entry.options else { continue };
        if !options.iter().any(|(k, _)| k == "flowid" || k == "match") {
            continue;
        }
        if entry.kind.as_deref() != Some("u32") {
            return Err(Issue::at(
                format!("{at}.kind"),
                format!("a `{}` filter: tc import reads u32 filters", entry.kind.as_deref().unwrap_or("?")),
            )
            .hint("write the classification as u32 matches on the IP header"));
        }
        let owner = match entry.parent.as_deref() {
            Some(p) => parse_handle(p).ok_or_else(|| Issue::at(format!("{at}.parent"), "not a tc handle"))?,
            None => parent.ok_or_else(|| {
                Issue::at(&at, "the filter does not say which discipline it belongs to")
                    .hint("give the file as PARENT=FILE, e.g. `2:=filters.json`, for `tc filter show ... parent 2:`")
            })?,
        };
        out.push(u32_rule(options, &at, owner.major, entry.pref.unwrap_or(0))?);
    }
    Ok(out)
}

fn u32_rule(
    options: &[(String, Value)],
    at: &str,
    parent_major: u32,
    pref: u64,
) -> Result<ShownFilter, Issue> {
    let mut flowid = None;
    let mut order = 0;
    let mut keys = Vec::new();
    for (key, value) in options {
        let here = format!("{at}.options.{key}");
        match key.as_str() {
            "flowid" => flowid = value.as_str().and_then(parse_handle),
            "order" => order = value.as_u64().unwrap_or(0),
            "match" => keys.push(u32_key(value, &here)?),
            "fh" | "key_ht" | "bkt" | "not_in_hw" | "in_hw" | "in_hw_count" | "skip_hw" | "skip_sw" => {}
            _ => {
                return Err(Issue::at(here, format!("u32's `{key}` is not a class choice tc import reads"))
                    .hint("tc import reads u32 rules of fixed-offset matches with a flowid"))
            }
        }
    }
    let flowid = flowid.ok_or_else(|| Issue::at(format!("{at}.options"), "a u32 rule without a flowid"))?;
    Ok(ShownFilter { parent_major, pref, order, flowid, keys, at: format!("{at}.options") })
}

fn u32_key(value: &Value, at: &str) -> Result<U32Key, Issue> {
    let hex = |field: &str| {
        value[field]
            .as_str()
            .and_then(|s| if s.is_empty() { Some(0) } else { u32::from_str_radix(s, 16).ok() })
            .ok_or_else(|| Issue::at(format!("{at}.{field}"), "not a hexadecimal 32-bit word"))
    };
    if value["offmask"].as_str().is_some_and(|s| !s.is_empty()) {
        return Err(Issue::at(format!("{at}.offmask"), "a match at an offset read from the packet")
            .hint("tc import reads matches at fixed offsets of the IP header"));
    }
    let off = value["off"].as_i64().ok_or_else(|| Issue::at(format!("{at}.off"), "not an offset"))?;
    Ok(U32Key { value: hex("value")?, mask: hex("mask")?, off })
}

fn not_json(error: &serde_json::Error, command: &str) -> Issue {
    Issue::at(format!("line {}", error.line()), format!("not the JSON tc prints ({error})"))
        .hint(format!("give the output of `{command}`"))
}
