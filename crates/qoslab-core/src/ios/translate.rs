//! From what an interface's configuration says to qoslab's interface settings, following
//! IOS's rules:
//!
//! * **Output queuing** — one per interface: `service-policy output` (CBWFQ/LLQ; a policy
//!   whose only class is `class-default` shaped with a child `service-policy` becomes a
//!   shaper over the child), else `tx-cos` (a Cisco 12000 cos-queue-group: MDRR), else
//!   `priority-group` (priority queuing), else
//!   `custom-queue-list` (custom queuing), else `fair-queue`, else `no fair-queue` (FIFO),
//!   else IOS's default: WFQ on serial interfaces of 2.048 Mbit/s and below, FIFO elsewhere
//!   (*Cisco IOS in a Nutshell*, `fair-queue`; `docs/reference/ios-defaults.md`).
//! * **Bandwidth** — `bandwidth` in kbit/s; a serial interface without it keeps 1544 kbit/s
//!   whatever its clock rate (Doyle, *Routing TCP/IP* vol. 1, Cisco Press), which is what
//!   CBWFQ's percentages and admission check use.
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
//! * **Hierarchy** — a policy map nests another with `service-policy` in a class; IOS
//!   allows three levels of policy maps (parent, child, grandchild: Cisco 10000 Series
//!   Router Quality of Service Configuration Guide, "Defining QoS for Multiple Policy
//!   Levels"), and a policy map that nests itself, directly or through others, is an error
//!   at the `service-policy` that closes the loop. Before HQF, queuing nests only under
//!   `shape` in a lone class-default (a shaper over the child); with HQF and IOS XE, a
//!   `service-policy` in any class is that class's `child`.
//! * **Bandwidth units** — the `bandwidth` of all classes of one policy is given in one
//!   form: kbit/s, `percent` or `remaining percent`; IOS refuses a policy that mixes them.
//! * **Classification** — class maps with `match-all` (every match must hold) or
//!   `match-any`; an access list matches when its first matching entry permits; a class
//!   map without matches matches nothing. Priority- and queue-list `tcp P`/`udp P` rules
//!   match the port as source or destination.

use super::acl::condition as acl_condition;
use super::config::{Diagnostic, IosConfig, ListMatch, Place, Places, PolicyClass, Reference};
use super::flavour::flavour;
use crate::qdisc::cbwfq::Scheduler;
use serde_json::{json, Map, Value};

/// A serial interface's bandwidth when none is configured, kbit/s.
const SERIAL_DEFAULT_BANDWIDTH_KBPS: u64 = 1544;
/// Serial interfaces at this bandwidth and below fair-queue by default, kbit/s.
const DEFAULT_WFQ_MAX_KBPS: u64 = 2048;
/// Levels of policy maps IOS nests: parent, child, grandchild.
pub const MAX_POLICY_LEVELS: usize = 3;

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
    /// Where the configuration wrote each part of these settings, by key path (`output`,
    /// `output.classes[1].bandwidth`, `input.classes[0].police`, `lfi`, ...): the place a
    /// problem found in a part belongs to.
    pub places: Places,
}

impl InterfaceSettings {
    /// Where the configuration wrote the part at `key_path` (relative to the interface
    /// entry): the place of its longest written prefix.
    pub fn place_of(&self, key_path: &str) -> Option<Place> {
        let mut path = key_path;
        loop {
            if let Some(place) = self.places.get(path) {
                return Some(*place);
            }
            path = &path[..path.rfind(['.', '['])?];
        }
    }
}

/// A problem resolving an interface, at the line and column it comes from (line 0 when it
/// is about no line, such as an interface the configuration does not have).
pub type Unresolved = Diagnostic;

fn error(place: Place, message: impl Into<String>, hint: impl Into<String>) -> Unresolved {
    Diagnostic::error(place, message, hint)
}

fn list_condition(config: &IosConfig, what: &ListMatch, place: Place) -> Result<Value, Unresolved> {
    Ok(match what {
        ListMatch::Ip => json!({}),
        ListMatch::Acl(name) => acl(config, name, place)?,
        ListMatch::Tcp(port) => json!({"any": [
            {"protocol": "tcp", "dst_port": [port]}, {"protocol": "tcp", "src_port": [port]}]}),
        ListMatch::Udp(port) => json!({"any": [
            {"protocol": "udp", "dst_port": [port]}, {"protocol": "udp", "src_port": [port]}]}),
    })
}

fn acl(config: &IosConfig, name: &str, place: Place) -> Result<Value, Unresolved> {
    let acl = config.acls.get(name).ok_or_else(|| {
        error(
            place,
            format!("access list `{name}` is not configured"),
            "define the access list, or name one the configuration has",
        )
    })?;
    Ok(acl_condition(acl))
}

/// Replaces `{"acl": NAME}` placeholders of class-map matches by the list's condition.
fn resolve_acls(config: &IosConfig, value: &Value, place: Place) -> Result<Value, Unresolved> {
    match value {
        Value::Object(map) if map.len() == 1 && map.contains_key("acl") => {
            acl(config, map["acl"].as_str().unwrap_or_default(), place)
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                out.insert(k.clone(), resolve_acls(config, v, place)?);
            }
            Ok(Value::Object(out))
        }
        other => Ok(other.clone()),
    }
}

/// The match condition of class map `name`, named by a class opened at `place`.
pub fn class_condition(config: &IosConfig, name: &str, place: Place) -> Result<Value, Unresolved> {
    let map = config.class_maps.get(name).ok_or_else(|| {
        error(
            place,
            format!("class map `{name}` is not configured, so IOS refuses the class"),
            format!("define it with `class-map {name}` and its `match` lines, or name a class map the configuration has"),
        )
    })?;
    let matches: Vec<Value> =
        map.matches.iter().map(|(m, p)| resolve_acls(config, m, *p)).collect::<Result<_, _>>()?;
    Ok(match (matches.len(), map.match_all) {
        (0, _) => json!({"not": {}}),
        (1, _) => matches.into_iter().next().expect("one"),
        (_, true) => json!({"all": matches}),
        (_, false) => json!({"any": matches}),
    })
}

/// Checks the policy maps nested under policy map `reference` (reached through the
/// policy maps of `path`, outermost first): each exists, none nests itself, and there are
/// at most [`MAX_POLICY_LEVELS`] levels.
pub fn check_nesting(
    config: &IosConfig,
    reference: &Reference,
    path: &mut Vec<String>,
) -> Result<(), Unresolved> {
    let place = (reference.line, reference.column);
    let name = &reference.name;
    if let Some(start) = path.iter().position(|p| p == name) {
        let mut cycle = path[start..].to_vec();
        cycle.push(name.clone());
        return Err(error(
            place,
            format!("policy map `{name}` nests itself: {}", cycle.join(" -> ")),
            "remove this `service-policy`, or nest a policy map that does not contain the one it is in",
        ));
    }
    let map = config.policy_maps.get(name).ok_or_else(|| {
        error(
            place,
            format!("policy map `{name}` is not configured"),
            format!("define it with `policy-map {name}`, or name a policy map the configuration has"),
        )
    })?;
    if path.len() == MAX_POLICY_LEVELS {
        return Err(error(
            place,
            format!(
                "nesting `{name}` under {} makes {} levels of policy maps; IOS allows {MAX_POLICY_LEVELS}",
                path.join(" -> "),
                path.len() + 1
            ),
            "flatten the hierarchy: parent, child and grandchild at most",
        ));
    }
    path.push(name.clone());
    for child in map.classes.iter().filter_map(|c| c.child.as_ref()) {
        check_nesting(config, child, path)?;
    }
    path.pop();
    Ok(())
}

/// Records where each setting of `class` was written, under `at`.
fn place_settings(class: &PolicyClass, at: &str, places: &mut Places) {
    places.insert(at.to_owned(), class.place);
    for (key, place) in &class.places {
        places.insert(format!("{at}.{key}"), *place);
    }
}

/// The `bandwidth` form of a class: kbit/s, percent or remaining percent.
fn bandwidth_form(class: &PolicyClass) -> Option<&'static str> {
    if class.settings.contains_key("bandwidth_remaining") {
        return Some("`bandwidth remaining percent`");
    }
    match class.settings.get("bandwidth")?.as_str()?.ends_with('%') {
        true => Some("`bandwidth percent`"),
        false => Some("`bandwidth` in kbit/s"),
    }
}

/// The scenario policy of policy map `reference` (its nesting already checked), written
/// at key path `at`.
fn policy_map(
    config: &IosConfig,
    reference: &Reference,
    max_reserved: Option<(u64, Place)>,
    scheduler: Scheduler,
    at: &str,
    places: &mut Places,
) -> Result<Value, Unresolved> {
    let map = &config.policy_maps[&reference.name];
    places.insert(at.to_owned(), (reference.line, reference.column));
    // A shaper over a child policy: the whole interface shaped, queuing inside.
    if let [only] = map.classes.as_slice() {
        let lone_default = only.name == "class-default";
        if let (Some(child), Some(shape), true) = (&only.child, only.settings.get("shape"), lone_default) {
            if let Some((key, place)) =
                only.places.iter().find(|(k, _)| !matches!(k.as_str(), "shape" | "service_policy"))
            {
                return Err(error(
                    *place,
                    format!("`{}` next to `shape` and a child `service-policy` is not modelled", key.replace('_', " ")),
                    "move it into the child policy map; the shaped class holds only `shape` and `service-policy`",
                ));
            }
            let mut tbf = shape.as_object().cloned().unwrap_or_default();
            tbf.insert("kind".into(), json!("tbf"));
            if let Some(place) = only.places.get("shape") {
                for key in tbf.keys() {
                    places.insert(format!("{at}.{key}"), *place);
                }
            }
            let child_at = format!("{at}.child");
            tbf.insert("child".into(), policy_map(config, child, None, scheduler, &child_at, places)?);
            return Ok(Value::Object(tbf));
        }
    }
    let mut classes = Vec::new();
    // Conditions of earlier classes without actions, whose packets go to class-default.
    let mut excluded: Vec<Value> = Vec::new();
    let mut first_form: Option<(&'static str, &str)> = None;
    for class in &map.classes {
        if let (Some(child), Scheduler::PreHqf) = (&class.child, scheduler) {
            return Err(error(
                (child.line, child.column),
                "before HQF, IOS nests a queuing policy only under `shape` in a policy map's lone class-default",
                "a configuration of IOS 15.x (HQF) or IOS XE nests one under any class: give its `version` line, or run with `--scheduler hqf|xe`",
            ));
        }
        if let Some(form) = bandwidth_form(class) {
            match first_form {
                None => first_form = Some((form, &class.name)),
                Some((first, first_class)) if first != form => {
                    let key = if class.settings.contains_key("bandwidth") {
                        "bandwidth"
                    } else {
                        "bandwidth_remaining"
                    };
                    return Err(error(
                        class.places.get(key).copied().unwrap_or(class.place),
                        format!("{form} here, but class `{first_class}` uses {first}: IOS refuses a policy that mixes them"),
                        "give every class of the policy map its bandwidth in the same form",
                    ));
                }
                Some(_) => {}
            }
        }
        let queuing =
            ["priority", "priority_level", "bandwidth", "bandwidth_remaining", "bandwidth_remaining_ratio"];
        let is_default = class.name == "class-default";
        let pre_hqf = scheduler == Scheduler::PreHqf;
        if !is_default
            && class.child.is_none()
            && !queuing.iter().any(|k| class.settings.contains_key(*k))
            && (pre_hqf || class.settings.is_empty())
        {
            if class.settings.is_empty() {
                // IOS before HQF queues the packets of a class without actions with
                // class-default; the class still takes them first, so the classes after it
                // must not.
                excluded.push(class_condition(config, &class.name, class.place)?);
                continue;
            }
            return Err(error(
                class.place,
                format!(
                    "class `{}` has settings but no `bandwidth` or `priority`: IOS before HQF queues its \
                     packets with class-default after them, which qoslab does not model",
                    class.name
                ),
                "give the class a `bandwidth` or `priority`, or move its settings to class-default",
            ));
        }
        let mut entry = Map::new();
        entry.insert("name".into(), json!(class.name));
        if !is_default {
            let condition = class_condition(config, &class.name, class.place)?;
            let condition = match excluded.as_slice() {
                [] => condition,
                taken => json!({"all": [condition, {"not": {"any": taken}}]}),
            };
            entry.insert("match".into(), condition);
        }
        entry.extend(class.settings.clone());
        let class_at = format!("{at}.classes[{}]", classes.len());
        place_settings(class, &class_at, places);
        if let Some(child) = &class.child {
            let child_at = format!("{class_at}.child");
            entry.insert("child".into(), policy_map(config, child, None, scheduler, &child_at, places)?);
        }
        classes.push(Value::Object(entry));
    }
    let mut policy = json!({"kind": "cbwfq", "classes": classes});
    if scheduler != Scheduler::PreHqf {
        policy["scheduler"] = json!(scheduler.name());
    }
    if let Some((pct, place)) = max_reserved {
        policy["max_reserved"] = json!(format!("{pct}%"));
        places.insert(format!("{at}.max_reserved"), place);
    }
    Ok(policy)
}

fn input_policy(config: &IosConfig, reference: &Reference, places: &mut Places) -> Result<Value, Unresolved> {
    check_nesting(config, reference, &mut Vec::new())?;
    let map = &config.policy_maps[&reference.name];
    places.insert("input".into(), (reference.line, reference.column));
    let mut classes = Vec::new();
    for class in &map.classes {
        if let Some(key) = class.settings.keys().find(|k| !matches!(k.as_str(), "set" | "police")) {
            return Err(error(
                class.places.get(key).copied().unwrap_or(class.place),
                format!(
                    "IOS refuses `{}` in an input policy: only marking and policing act on input",
                    key.replace('_', " ")
                ),
                "move it to an output policy, or remove it",
            ));
        }
        if let Some(child) = &class.child {
            return Err(error(
                (child.line, child.column),
                "a child policy in an input policy is not modelled",
                "mark and police in the input policy's own classes",
            ));
        }
        let mut entry = class.settings.clone();
        entry.insert("name".into(), json!(class.name));
        let condition = if class.name == "class-default" {
            json!({})
        } else {
            class_condition(config, &class.name, class.place)?
        };
        entry.insert("match".into(), condition);
        place_settings(class, &format!("input.classes[{}]", classes.len()), places);
        classes.push(Value::Object(entry));
    }
    Ok(json!({"classes": classes}))
}

/// The MDRR policy of `tx-cos NAME`.
fn cos_queue_group(config: &IosConfig, reference: &Reference) -> Result<Value, Unresolved> {
    let name = &reference.name;
    let group = config.cos_queue_groups.get(name).ok_or_else(|| {
        error(
            (reference.line, reference.column),
            format!("cos-queue-group `{name}` is not configured"),
            format!("define it with `cos-queue-group {name}`, or name one the configuration has"),
        )
    })?;
    let mut numbers: Vec<u32> = group.precedence_queue.values().flatten().copied().collect();
    numbers.extend(group.weights.keys());
    numbers.push(0);
    numbers.sort_unstable();
    numbers.dedup();
    let queue_of = |precedence: u8| group.precedence_queue.get(&precedence).copied().unwrap_or(Some(0));
    let label = |l: u32, place: Place| {
        group.labels.get(&l).ok_or_else(|| {
            error(
                place,
                format!("random-detect-label {l} is not defined"),
                format!("define it with `random-detect-label {l} MIN MAX DENOMINATOR` in the group"),
            )
        })
    };
    // WRED of the queue (`None`: the low-latency queue) and the depth its labels need.
    let wred = |queue: Option<u32>| -> Result<(Option<Value>, Option<u32>), Unresolved> {
        let mut by_label: Vec<(u32, Place, Vec<u8>)> = Vec::new();
        for (&precedence, &(l, place)) in &group.precedence_label {
            if queue_of(precedence) == queue {
                match by_label.iter_mut().find(|(x, ..)| *x == l) {
                    Some((.., list)) => list.push(precedence),
                    None => by_label.push((l, place, vec![precedence])),
                }
            }
        }
        if by_label.is_empty() {
            return Ok((None, None));
        }
        let mut profiles = Vec::new();
        let mut deepest = 0;
        for (l, place, precedences) in by_label {
            let (min, max, denominator) = *label(l, place)?;
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
fn route_map(config: &IosConfig, reference: &Reference) -> Result<Value, Unresolved> {
    let name = &reference.name;
    let entries = config.route_maps.get(name).ok_or_else(|| {
        error(
            (reference.line, reference.column),
            format!("route map `{name}` is not configured"),
            format!("define it with `route-map {name} permit 10`, or name one the configuration has"),
        )
    })?;
    let mut classes = Vec::new();
    for entry in entries {
        let conditions: Vec<Value> =
            entry.acls.iter().map(|a| acl(config, a, entry.place)).collect::<Result<_, _>>()?;
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
        error(
            (0, 0),
            format!(
                "the configuration has no interface `{name}` (it has: {})",
                if known.is_empty() { "none".into() } else { known.join(", ") }
            ),
            "use one of the configuration's interface names",
        )
    })?;
    let flavour = flavour(config, config.told_scheduler)?;
    let mut places = Places::new();
    for (key, place) in &interface.places {
        places.insert(key.clone(), *place);
    }
    let serial = interface.name.starts_with("Serial");
    let bandwidth_kbps = interface.bandwidth_kbps.or(serial.then_some(SERIAL_DEFAULT_BANDWIDTH_KBPS));
    let interface_place = (interface.line, 1);
    let at = |reference: &Reference| (reference.line, reference.column);
    let (output, output_from) = if let Some(policy) = &interface.output_policy {
        check_nesting(config, policy, &mut Vec::new())?;
        let max_reserved = interface
            .max_reserved_pct
            .map(|pct| (pct, interface.places.get("max_reserved").copied().unwrap_or(interface_place)));
        (
            policy_map(config, policy, max_reserved, flavour.scheduler, "output", &mut places)?,
            format!(
                "service-policy output {} (the `{}` scheduler: {})",
                policy.name,
                flavour.scheduler.name(),
                flavour.reason
            ),
        )
    } else if let Some(group) = &interface.tx_cos {
        places.insert("output".into(), at(group));
        (cos_queue_group(config, group)?, format!("tx-cos {}", group.name))
    } else if let Some(list) = &interface.priority_group {
        (priority_group(config, list, &mut places)?, format!("priority-group {}", list.name))
    } else if let Some(list) = &interface.custom_queue_list {
        (custom_queue_list(config, list, &mut places)?, format!("custom-queue-list {}", list.name))
    } else {
        let place = interface.places.get("fair_queue").copied().unwrap_or(interface_place);
        places.insert("output".into(), place);
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
        (Some(_), Some(map)) => {
            return Err(error(
                at(map),
                "an input service policy together with route-map marking is not modelled",
                "mark with one of them: move the route map's marking into the input policy",
            ))
        }
        (Some(policy), None) => Some(input_policy(config, policy, &mut places)?),
        (None, Some(map)) => {
            places.insert("input".into(), at(map));
            Some(route_map(config, map)?)
        }
        (None, None) => None,
    };
    // The output hold queue sizes a FIFO or a WFQ system; IOS refuses it with priority
    // queuing, whose lists size their queues; CBWFQ and the others size their own queues.
    let hold_queue = match (interface.hold_queue_out, output["kind"].as_str()) {
        (Some(packets), Some("fifo" | "wfq")) => Some(packets),
        (Some(_), Some("prio")) => {
            return Err(error(
                interface.places.get("hold_queue").copied().unwrap_or(interface_place),
                "IOS refuses `hold-queue … out` with priority queuing",
                "size the queues with `priority-list N queue-limit` instead",
            ))
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
        places,
    })
}

/// The `prio` policy of `priority-group LIST` (IOS `priority-list`), its places noted in
/// `places`.
fn priority_group(config: &IosConfig, list: &Reference, places: &mut Places) -> Result<Value, Unresolved> {
    places.insert("output".into(), (list.line, list.column));
    let pl = config.priority_lists.get(&list.name).ok_or_else(|| {
        error(
            (list.line, list.column),
            format!("priority list {} is not configured", list.name),
            format!("define it with `priority-list {} protocol ip high ...`", list.name),
        )
    })?;
    if let Some((_, place)) = pl.limits {
        places.insert("output.bands".into(), place);
    }
    let limits = pl.limits.map_or([20, 40, 60, 80], |(limits, _)| limits);
    let bands: Vec<Value> = ["high", "medium", "normal", "low"]
        .iter()
        .zip(limits)
        .map(|(band, limit)| json!({"name": band, "limit": limit}))
        .collect();
    let mut classify = Vec::new();
    for (i, (band, what, place)) in pl.rules.iter().enumerate() {
        places.insert(format!("output.classify[{i}]"), *place);
        classify.push(json!({"match": list_condition(config, what, *place)?, "band": band}));
    }
    let default = pl.default.clone().unwrap_or_else(|| "normal".into());
    Ok(json!({"kind": "prio", "bands": bands, "default": default, "classify": classify}))
}

/// The `custom` policy of `custom-queue-list LIST` (IOS `queue-list`), its places noted in
/// `places`.
fn custom_queue_list(config: &IosConfig, list: &Reference, places: &mut Places) -> Result<Value, Unresolved> {
    places.insert("output".into(), (list.line, list.column));
    let ql = config.queue_lists.get(&list.name).ok_or_else(|| {
        error(
            (list.line, list.column),
            format!("queue list {} is not configured", list.name),
            format!("define it with `queue-list {} protocol ip 1 ...`", list.name),
        )
    })?;
    let mut queues = Map::new();
    for (q, (limit, bytes)) in &ql.queues {
        let mut spec = Map::new();
        if let Some(l) = limit {
            spec.insert("limit".into(), json!(l));
        }
        if let Some(b) = bytes {
            spec.insert("byte_count".into(), json!(format!("{b}B")));
        }
        if let Some(place) = ql.queue_places.get(q) {
            places.insert(format!("output.queues.{q}"), *place);
        }
        queues.insert(q.to_string(), Value::Object(spec));
    }
    let mut classify = Vec::new();
    for (i, (q, what, place)) in ql.rules.iter().enumerate() {
        places.insert(format!("output.classify[{i}]"), *place);
        classify.push(json!({"match": list_condition(config, what, *place)?, "queue": q}));
    }
    let mut custom = json!({"kind": "custom", "queues": queues, "classify": classify});
    if let Some(d) = ql.default {
        custom["default_queue"] = json!(d);
    }
    if let Some(l) = ql.lowest_custom {
        custom["lowest_custom"] = json!(l);
    }
    Ok(custom)
}
