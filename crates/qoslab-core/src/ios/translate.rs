//! From what an interface's configuration says to qoslab's interface settings, following
//! IOS's rules:
//!
//! * **Output queuing** — one per interface: `service-policy output` (CBWFQ/LLQ; a policy
//!   whose only class is `class-default` shaped with a child `service-policy` becomes a
//!   shaper over the child), else `tx-cos` (a Cisco 12000 cos-queue-group: MDRR), else
//!   `priority-group` (priority queuing), else
//!   `custom-queue-list` (custom queuing), else `fair-queue`, else `no fair-queue` (FIFO),
//!   else IOS's default: WFQ on serial interfaces of 2.048 Mbit/s and below, FIFO elsewhere
//!   (`qos-behaviour.md` A.1).
//! * **Bandwidth** — `bandwidth` in kbit/s; a serial interface without it keeps 1544 kbit/s
//!   whatever its clock rate (`qos-behaviour.md` A.10), which is what CBWFQ's percentages
//!   and admission check use.
//! * **Marking** — `ip policy route-map` marks what the interface receives: each route-map
//!   entry in sequence order is an input class matching its access lists and setting its
//!   precedence or DSCP (a `deny` entry or one without `set` passes packets unchanged).
//! * **Cisco 12000 queues** — a cos-queue-group's precedences go to queue 0 unless mapped;
//!   each queue's WRED profiles are the labels of the precedences it carries (tail drop for
//!   the others); the configuration has no queue limits, so each queue holds at least its
//!   largest label's maximum threshold (else the discipline's default).
//! * **Classes without actions** — a policy class with no settings at all queues its packets
//!   with class-default, as IOS before HQF does; it still takes them first, so later
//!   classes exclude its match.
//! * **Classification** — class maps with `match-all` (every match must hold) or
//!   `match-any`; an access list matches when its first matching entry permits; a class
//!   map without matches matches nothing. Priority- and queue-list `tcp P`/`udp P` rules
//!   match the port as source or destination.

use super::acl::condition as acl_condition;
use super::config::{IosConfig, ListMatch};
use serde_json::{json, Map, Value};

/// A serial interface's bandwidth when none is configured, kbit/s.
const SERIAL_DEFAULT_BANDWIDTH_KBPS: u64 = 1544;
/// Serial interfaces at this bandwidth and below fair-queue by default, kbit/s.
const DEFAULT_WFQ_MAX_KBPS: u64 = 2048;

/// An interface's settings in scenario form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InterfaceSettings {
    /// The output policy, as a scenario policy object.
    pub output: Value,
    /// Why this output (which command, or IOS's default).
    pub output_from: String,
    /// The input policy, as a scenario input-policy object.
    pub input: Option<Value>,
    /// QoS bandwidth, bit/s (`None`: the physical rate, for non-serial interfaces without
    /// `bandwidth`).
    pub bandwidth_bps: Option<u64>,
    /// `clock rate`, bit/s.
    pub clock_rate_bps: Option<u64>,
    /// `hold-queue N out`.
    pub hold_queue: Option<u32>,
    /// `tx-ring-limit`.
    pub tx_ring: Option<u32>,
    /// Link fragmentation and interleaving.
    pub lfi: Option<Value>,
}

/// A problem resolving an interface: the line it comes from (0 when none) and the message.
pub type Unresolved = (usize, String);

fn list_condition(config: &IosConfig, what: &ListMatch, line: usize) -> Result<Value, Unresolved> {
    Ok(match what {
        ListMatch::Ip => json!({}),
        ListMatch::Acl(name) => acl(config, name, line)?,
        ListMatch::Tcp(port) => json!({"any": [
            {"protocol": "tcp", "dst_port": [port]}, {"protocol": "tcp", "src_port": [port]}]}),
        ListMatch::Udp(port) => json!({"any": [
            {"protocol": "udp", "dst_port": [port]}, {"protocol": "udp", "src_port": [port]}]}),
    })
}

fn acl(config: &IosConfig, name: &str, line: usize) -> Result<Value, Unresolved> {
    let acl = config.acls.get(name).ok_or((line, format!("access list `{name}` is not configured")))?;
    Ok(acl_condition(acl))
}

/// Replaces `{"acl": NAME}` placeholders of class-map matches by the list's condition.
fn resolve_acls(config: &IosConfig, value: &Value, line: usize) -> Result<Value, Unresolved> {
    match value {
        Value::Object(map) if map.len() == 1 && map.contains_key("acl") => {
            acl(config, map["acl"].as_str().unwrap_or_default(), line)
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                out.insert(k.clone(), resolve_acls(config, v, line)?);
            }
            Ok(Value::Object(out))
        }
        other => Ok(other.clone()),
    }
}

fn class_condition(config: &IosConfig, name: &str, line: usize) -> Result<Value, Unresolved> {
    let map = config
        .class_maps
        .get(name)
        .ok_or((line, format!("class map `{name}` is not configured, so IOS refuses the class")))?;
    let matches: Vec<Value> =
        map.matches.iter().map(|(m, l)| resolve_acls(config, m, *l)).collect::<Result<_, _>>()?;
    Ok(match (matches.len(), map.match_all) {
        (0, _) => json!({"not": {}}),
        (1, _) => matches.into_iter().next().expect("one"),
        (_, true) => json!({"all": matches}),
        (_, false) => json!({"any": matches}),
    })
}

/// The scenario policy of `service-policy output NAME`.
fn policy_map(
    config: &IosConfig,
    name: &str,
    line: usize,
    max_reserved_pct: Option<u64>,
) -> Result<Value, Unresolved> {
    let map = config.policy_maps.get(name).ok_or((line, format!("policy map `{name}` is not configured")))?;
    // A shaper over a child policy: the whole interface shaped, queuing inside.
    if let [only] = map.classes.as_slice() {
        if let (Some((child, child_line)), Some(shape)) = (&only.child, only.settings.get("shape")) {
            let mut tbf = shape.as_object().cloned().unwrap_or_default();
            tbf.insert("kind".into(), json!("tbf"));
            tbf.insert("child".into(), policy_map(config, child, *child_line, None)?);
            return Ok(Value::Object(tbf));
        }
    }
    let mut classes = Vec::new();
    // Conditions of earlier classes without actions, whose packets go to class-default.
    let mut excluded: Vec<Value> = Vec::new();
    for class in &map.classes {
        if let Some((_, child_line)) = &class.child {
            return Err((*child_line, "a child policy is modelled only under a shaped class-default".into()));
        }
        let queuing = ["priority", "bandwidth", "bandwidth_remaining"];
        let is_default = class.name == "class-default";
        if !is_default && !queuing.iter().any(|k| class.settings.contains_key(*k)) {
            if class.settings.is_empty() {
                // IOS before HQF queues the packets of a class without actions with
                // class-default; the class still takes them first, so the classes after it
                // must not.
                excluded.push(class_condition(config, &class.name, class.line)?);
                continue;
            }
            return Err((
                class.line,
                format!(
                    "class `{}` has settings but no `bandwidth` or `priority`: IOS before HQF queues its \
                     packets with class-default after them, which qoslab does not model",
                    class.name
                ),
            ));
        }
        let mut entry = Map::new();
        entry.insert("name".into(), json!(class.name));
        if !is_default {
            let condition = class_condition(config, &class.name, class.line)?;
            let condition = match excluded.as_slice() {
                [] => condition,
                taken => json!({"all": [condition, {"not": {"any": taken}}]}),
            };
            entry.insert("match".into(), condition);
        }
        entry.extend(class.settings.clone());
        classes.push(Value::Object(entry));
    }
    let mut policy = json!({"kind": "cbwfq", "classes": classes});
    if let Some(pct) = max_reserved_pct {
        policy["max_reserved"] = json!(format!("{pct}%"));
    }
    Ok(policy)
}

fn input_policy(config: &IosConfig, name: &str, line: usize) -> Result<Value, Unresolved> {
    let map = config.policy_maps.get(name).ok_or((line, format!("policy map `{name}` is not configured")))?;
    let mut classes = Vec::new();
    for class in &map.classes {
        if let Some(key) = class.settings.keys().find(|k| !matches!(k.as_str(), "set" | "police")) {
            return Err((
                class.line,
                format!("IOS refuses `{key}` in an input policy: only marking and policing act on input"),
            ));
        }
        let mut entry = class.settings.clone();
        entry.insert("name".into(), json!(class.name));
        let condition = if class.name == "class-default" {
            json!({})
        } else {
            class_condition(config, &class.name, class.line)?
        };
        entry.insert("match".into(), condition);
        classes.push(Value::Object(entry));
    }
    Ok(json!({"classes": classes}))
}

/// The MDRR policy of `tx-cos NAME`.
fn cos_queue_group(config: &IosConfig, name: &str, line: usize) -> Result<Value, Unresolved> {
    let group = config
        .cos_queue_groups
        .get(name)
        .ok_or((line, format!("cos-queue-group `{name}` is not configured")))?;
    let mut numbers: Vec<u32> = group.precedence_queue.values().flatten().copied().collect();
    numbers.extend(group.weights.keys());
    numbers.push(0);
    numbers.sort_unstable();
    numbers.dedup();
    let queue_of = |precedence: u8| group.precedence_queue.get(&precedence).copied().unwrap_or(Some(0));
    let label =
        |l: u32| group.labels.get(&l).ok_or((group.line, format!("random-detect-label {l} is not defined")));
    // WRED of the queue (`None`: the low-latency queue) and the depth its labels need.
    let wred = |queue: Option<u32>| -> Result<(Option<Value>, Option<u32>), Unresolved> {
        let mut by_label: Vec<(u32, Vec<u8>)> = Vec::new();
        for (&precedence, &l) in &group.precedence_label {
            if queue_of(precedence) == queue {
                match by_label.iter_mut().find(|(x, _)| *x == l) {
                    Some((_, list)) => list.push(precedence),
                    None => by_label.push((l, vec![precedence])),
                }
            }
        }
        if by_label.is_empty() {
            return Ok((None, None));
        }
        let mut profiles = Vec::new();
        let mut deepest = 0;
        for (l, precedences) in by_label {
            let (min, max, denominator) = *label(l)?;
            deepest = deepest.max(max);
            profiles
                .push(json!({"precedence": precedences, "min": min, "max": max, "denominator": denominator}));
        }
        Ok((Some(json!({"unlisted": "tail_drop", "profiles": profiles})), Some(deepest)))
    };
    let mut queues = Vec::new();
    for q in &numbers {
        let mut spec = json!({"name": format!("queue-{q}")});
        if let Some(w) = group.weights.get(q) {
            spec["weight"] = json!(w);
        }
        let (red, depth) = wred(Some(*q))?;
        if let Some(red) = red {
            spec["random_detect"] = red;
        }
        if let Some(depth) = depth {
            spec["limit"] = json!(depth);
        }
        queues.push(spec);
    }
    let mut policy = json!({"kind": "mdrr", "queues": queues, "default": "queue-0"});
    let uses_low_latency = group.precedence_queue.values().any(Option::is_none);
    if uses_low_latency || group.low_latency.is_some() {
        let mut low = match group.low_latency.flatten() {
            Some(weight) => json!({"mode": "alternate", "weight": weight}),
            None => json!({"mode": "strict"}),
        };
        let (red, depth) = wred(None)?;
        if let Some(red) = red {
            low["random_detect"] = red;
        }
        if let Some(depth) = depth {
            low["limit"] = json!(depth);
        }
        policy["low_latency"] = low;
    }
    let classify: Vec<Value> = group
        .precedence_queue
        .iter()
        .filter(|(_, q)| **q != Some(0))
        .map(|(p, q)| {
            let queue = q.map_or("low-latency".to_owned(), |q| format!("queue-{q}"));
            json!({"match": {"precedence": p}, "queue": queue})
        })
        .collect();
    if !classify.is_empty() {
        policy["classify"] = json!(classify);
    }
    Ok(policy)
}

/// The input policy of `ip policy route-map NAME`.
fn route_map(config: &IosConfig, name: &str, line: usize) -> Result<Value, Unresolved> {
    let entries =
        config.route_maps.get(name).ok_or((line, format!("route map `{name}` is not configured")))?;
    let mut classes = Vec::new();
    for entry in entries {
        let conditions: Vec<Value> =
            entry.acls.iter().map(|a| acl(config, a, entry.line)).collect::<Result<_, _>>()?;
        let condition = match conditions.len() {
            0 => json!({}),
            1 => conditions.into_iter().next().expect("one"),
            _ => json!({"any": conditions}),
        };
        let mut class = json!({"name": format!("{name} {}", entry.sequence), "match": condition});
        if let (true, Some(set)) = (entry.permit, &entry.set) {
            class["set"] = set.clone();
        }
        classes.push(class);
    }
    Ok(json!({"classes": classes}))
}

/// The settings of interface `name` (any abbreviation) in `config`.
pub fn interface_settings(config: &IosConfig, name: &str) -> Result<InterfaceSettings, Unresolved> {
    let interface = config.interface(name).ok_or_else(|| {
        let known: Vec<&str> = config.interfaces.iter().map(|i| i.name.as_str()).collect();
        (
            0,
            format!(
                "the configuration has no interface `{name}` (it has: {})",
                if known.is_empty() { "none".into() } else { known.join(", ") }
            ),
        )
    })?;
    let serial = interface.name.starts_with("Serial");
    let bandwidth_kbps = interface.bandwidth_kbps.or(serial.then_some(SERIAL_DEFAULT_BANDWIDTH_KBPS));
    let (output, output_from) = if let Some((policy, line)) = &interface.output_policy {
        (
            policy_map(config, policy, *line, interface.max_reserved_pct)?,
            format!("service-policy output {policy}"),
        )
    } else if let Some((group, line)) = &interface.tx_cos {
        (cos_queue_group(config, group, *line)?, format!("tx-cos {group}"))
    } else if let Some((list, line)) = &interface.priority_group {
        let pl = config
            .priority_lists
            .get(list)
            .ok_or((*line, format!("priority list {list} is not configured")))?;
        let limits = pl.limits.unwrap_or([20, 40, 60, 80]);
        let bands: Vec<Value> = ["high", "medium", "normal", "low"]
            .iter()
            .zip(limits)
            .map(|(band, limit)| json!({"name": band, "limit": limit}))
            .collect();
        let classify = pl
            .rules
            .iter()
            .map(|(band, what, l)| Ok(json!({"match": list_condition(config, what, *l)?, "band": band})))
            .collect::<Result<Vec<_>, Unresolved>>()?;
        let default = pl.default.clone().unwrap_or_else(|| "normal".into());
        (
            json!({"kind": "prio", "bands": bands, "default": default, "classify": classify}),
            format!("priority-group {list}"),
        )
    } else if let Some((list, line)) = &interface.custom_queue_list {
        let ql =
            config.queue_lists.get(list).ok_or((*line, format!("queue list {list} is not configured")))?;
        let mut queues = Map::new();
        for (q, (limit, bytes)) in &ql.queues {
            let mut spec = Map::new();
            if let Some(l) = limit {
                spec.insert("limit".into(), json!(l));
            }
            if let Some(b) = bytes {
                spec.insert("byte_count".into(), json!(format!("{b}B")));
            }
            queues.insert(q.to_string(), Value::Object(spec));
        }
        let classify = ql
            .rules
            .iter()
            .map(|(q, what, l)| Ok(json!({"match": list_condition(config, what, *l)?, "queue": q})))
            .collect::<Result<Vec<_>, Unresolved>>()?;
        let mut custom = json!({"kind": "custom", "queues": queues, "classify": classify});
        if let Some(d) = ql.default {
            custom["default_queue"] = json!(d);
        }
        if let Some(l) = ql.lowest_custom {
            custom["lowest_custom"] = json!(l);
        }
        (custom, format!("custom-queue-list {list}"))
    } else {
        match interface.fair_queue {
            Some(Some(fq)) => {
                let mut wfq = json!({"kind": "wfq"});
                if let Some(cdt) = fq.cdt {
                    wfq["cdt"] = json!(cdt);
                }
                if let Some(n) = fq.dynamic_queues {
                    wfq["dynamic_queues"] = json!(n);
                }
                (wfq, "fair-queue".into())
            }
            Some(None) => (json!({"kind": "fifo"}), "no fair-queue".into()),
            None if serial && bandwidth_kbps.is_some_and(|b| b <= DEFAULT_WFQ_MAX_KBPS) => (
                json!({"kind": "wfq"}),
                "IOS's default: WFQ on serial interfaces of 2.048 Mbit/s and below".into(),
            ),
            None => (json!({"kind": "fifo"}), "IOS's default: FIFO".into()),
        }
    };
    let input = match (&interface.input_policy, &interface.policy_route_map) {
        (Some(_), Some((_, line))) => {
            return Err((
                *line,
                "an input service policy together with route-map marking is not modelled".into(),
            ))
        }
        (Some((policy, line)), None) => Some(input_policy(config, policy, *line)?),
        (None, Some((map, line))) => Some(route_map(config, map, *line)?),
        (None, None) => None,
    };
    // The output hold queue sizes a FIFO or a WFQ system; IOS refuses it with priority
    // queuing, whose lists size their queues; CBWFQ and the others size their own queues.
    let hold_queue = match (interface.hold_queue_out, output["kind"].as_str()) {
        (Some(packets), Some("fifo" | "wfq")) => Some(packets),
        (Some(_), Some("prio")) => {
            return Err((interface.line, "IOS refuses `hold-queue … out` with priority queuing".into()))
        }
        _ => None,
    };
    let lfi = (interface.fragment_delay_ms.is_some() || interface.interleave).then(|| {
        let mut lfi = json!({"interleave": interface.interleave});
        if let Some(ms) = interface.fragment_delay_ms {
            lfi["fragment_delay"] = json!(format!("{ms}ms"));
        }
        lfi
    });
    Ok(InterfaceSettings {
        output,
        output_from,
        input,
        bandwidth_bps: bandwidth_kbps.map(|k| k * 1000),
        clock_rate_bps: interface.clock_rate_bps,
        hold_queue,
        tx_ring: interface.tx_ring,
        lfi,
    })
}
