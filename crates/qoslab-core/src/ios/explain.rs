//! What an interface's configuration does, in words and numbers: which queuing it runs and
//! why, the QoS bandwidth its rates are taken from, each class's match, rate in bit/s, queue
//! limit, dropper and policer, and IOS's admission check — and, as YAML, the same settings
//! for a scenario.

use super::check::resolve;
use super::config::IosConfig;
use super::translate::{InterfaceSettings, Unresolved};
use crate::config::yaml_write::{block, flow};
use crate::qdisc::cbwfq::Cbwfq;
use crate::qdisc::cbwfq_plan::{full_load_bps, ClassPlan};
use crate::qdisc::class_queue_limit::{ClassQueueLimit, Limit};
use crate::units::{format_rate, RateOrShare};
use serde_json::Value;
use std::fmt::Write;

/// IOS's default share of the bandwidth that classes may reserve, percent.
const DEFAULT_MAX_RESERVED_PCT: f64 = 75.0;

/// The interface's settings as the YAML of an `interfaces.NODE.PEER` entry.
pub fn to_yaml(settings: &InterfaceSettings) -> String {
    let mut entry = serde_json::Map::new();
    entry.insert("output".into(), settings.output.clone());
    if let Some(bps) = settings.bandwidth_bps {
        entry.insert("bandwidth".into(), Value::from(format!("{}kbps", bps / 1000)));
    }
    if let Some(packets) = settings.hold_queue {
        entry.insert("hold_queue".into(), Value::from(packets));
    }
    if let Some(ring) = settings.tx_ring {
        entry.insert("tx_ring".into(), Value::from(ring));
    }
    if let Some(input) = &settings.input {
        entry.insert("input".into(), input.clone());
    }
    if let Some(lfi) = &settings.lfi {
        entry.insert("lfi".into(), lfi.clone());
    }
    let mut out = String::new();
    block(&Value::Object(entry), 0, &mut out);
    out
}

/// A `"384kbps"` or `"30%"` setting in bit/s at `bandwidth_bps`.
fn rate_bps(value: &Value, bandwidth_bps: u64) -> Option<f64> {
    match RateOrShare::parse(value.as_str()?).ok()? {
        RateOrShare::Absolute(bps) => Some(bps as f64),
        RateOrShare::Share(ppm) => Some(bandwidth_bps as f64 * ppm as f64 / 1e6),
    }
}

fn kbps(bps: f64) -> String {
    format!("{} kbit/s", (bps / 100.0).round() / 10.0)
}

/// Explains interface `name` of `config`; `physical_bps` is the link's rate when known (else
/// the configuration's clock rate is used, if any). What a run would refuse is refused here
/// too, at its line and column.
pub fn explain(config: &IosConfig, name: &str, physical_bps: Option<u64>) -> Result<String, Unresolved> {
    let settings = resolve(config, name, physical_bps)?.settings;
    let interface = config.interface(name).expect("resolved above");
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", interface.name, settings.output_from);
    let physical_bps = physical_bps.or(settings.clock_rate_bps);
    let bandwidth_bps = settings.bandwidth_bps.or(physical_bps);
    let source = match (interface.bandwidth_kbps, settings.bandwidth_bps) {
        (Some(_), _) => "its `bandwidth`",
        (None, Some(_)) => {
            "IOS's default for a serial interface without `bandwidth`, whatever the clock rate"
        }
        (None, None) => "the physical rate",
    };
    match bandwidth_bps {
        Some(bw) => {
            let _ = writeln!(out, "  QoS bandwidth {} ({source})", format_rate(bw));
        }
        None => {
            let _ = writeln!(out, "  QoS bandwidth: the physical rate (give it with --rate)");
        }
    }
    match physical_bps {
        Some(rate) => {
            let _ = writeln!(out, "  physical rate {}", format_rate(rate));
        }
        None => {
            let _ = writeln!(out, "  physical rate: not in the configuration (give it with --rate)");
        }
    }
    if let Some(encapsulation) = &interface.encapsulation {
        let _ = writeln!(out, "  encapsulation {encapsulation} (the link's `l2` sets the framing)");
    }
    let output = &settings.output;
    let kind = output["kind"].as_str().unwrap_or_default();
    let _ = writeln!(out, "  queuing: {kind}");
    let bw = bandwidth_bps.unwrap_or(0);
    match kind {
        "cbwfq" => cbwfq(&mut out, output, bw, physical_bps, physical_bps.unwrap_or(bw), 1),
        "tbf" if output["child"]["kind"] == "cbwfq" => {
            let shape_bps = rate_bps(&output["rate"], bw).unwrap_or(0.0) as u64;
            let mode = output.get("mode").map_or("average".to_owned(), flow);
            let _ = writeln!(out, "  level 1: shape {mode} {} (the whole interface)", format_rate(shape_bps));
            let _ = writeln!(
                out,
                "  level 2: the child policy, its percentages of the shaped {}",
                format_rate(shape_bps)
            );
            let served_bps = physical_bps.map_or(shape_bps, |p| p.min(shape_bps));
            cbwfq(&mut out, &output["child"], shape_bps, physical_bps, served_bps, 2);
        }
        "prio" => prio(&mut out, output),
        "custom" => custom(&mut out, output),
        "mdrr" => mdrr(&mut out, output),
        "wfq" => {
            let cdt = output.get("cdt").map_or("64 (IOS default)".to_owned(), flow);
            let queues = output.get("dynamic_queues").map_or("256 (IOS default)".to_owned(), flow);
            let hold = settings.hold_queue.map_or("1000 (IOS default)".to_owned(), |p| p.to_string());
            let _ = writeln!(out, "    conversations by flow, weighted by IP precedence");
            let _ = writeln!(
                out,
                "    congestive discard threshold {cdt}; dynamic queues {queues}; hold queue {hold} packets"
            );
        }
        "fifo" => {
            let hold = settings.hold_queue.map_or("40 (IOS default)".to_owned(), |p| p.to_string());
            let _ = writeln!(out, "    one queue of {hold} packets, tail drop");
        }
        _ => {
            let _ = writeln!(out, "    {}", flow(output));
        }
    }
    match (settings.hold_queue, interface.hold_queue_out) {
        (Some(_), _) => {}
        (None, Some(packets)) => {
            let _ =
                writeln!(out, "  hold-queue {packets} out: not used, the {kind} policy sizes its own queues");
        }
        (None, None) => {}
    }
    if let Some(input) = &settings.input {
        let _ = writeln!(out, "  input: {}", flow(input));
    }
    if let Some(lfi) = &settings.lfi {
        let _ = writeln!(out, "  fragmentation: {}", flow(lfi));
    }
    Ok(out)
}

/// A `prio` policy's bands and rules (IOS `priority-list`).
fn prio(out: &mut String, output: &Value) {
    for band in output["bands"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "    band {}: limit {} packets", flow(&band["name"]), flow(&band["limit"]));
    }
    for rule in output["classify"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "    {} <- {}", flow(&rule["band"]), flow(&rule["match"]));
    }
    let _ = writeln!(out, "    unmatched -> {}", flow(&output["default"]));
}

/// A `custom` policy's queues and rules (IOS `queue-list`).
fn custom(out: &mut String, output: &Value) {
    for (queue, spec) in output["queues"].as_object().into_iter().flatten() {
        let _ = writeln!(out, "    queue {queue}: {}", flow(spec));
    }
    for rule in output["classify"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "    queue {} <- {}", flow(&rule["queue"]), flow(&rule["match"]));
    }
    let default = output.get("default_queue").map_or("1".to_owned(), flow);
    let _ = writeln!(out, "    unmatched -> queue {default}");
}

/// An `mdrr` policy's queues, their WRED profiles and rules (the Cisco 12000's
/// `cos-queue-group`).
fn mdrr(out: &mut String, output: &Value) {
    for queue in output["queues"].as_array().into_iter().flatten() {
        let weight = queue["weight"].as_u64().unwrap_or(1);
        let limit = queue.get("limit").map_or("64 (default)".to_owned(), flow);
        let _ = writeln!(
            out,
            "    {}: weight {weight} (quantum MTU + {} B), limit {limit} packets",
            flow(&queue["name"]),
            weight.saturating_sub(1).saturating_mul(512)
        );
        for profile in queue["random_detect"]["profiles"].as_array().into_iter().flatten() {
            let _ = writeln!(
                out,
                "      WRED precedence {}: {} to {} packets, 1/{} at the maximum",
                flow(&profile["precedence"]),
                profile["min"],
                profile["max"],
                profile["denominator"]
            );
        }
    }
    if let Some(low) = output.get("low_latency") {
        let _ = writeln!(out, "    low-latency queue: {}", flow(low));
    }
    for rule in output["classify"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "    {} <- {}", flow(&rule["queue"]), flow(&rule["match"]));
    }
    let _ = writeln!(out, "    unmatched -> {}", flow(&output["default"]));
}

/// A class's queue limit in words; a time with the bytes it holds at the level's rate `bw`.
fn queue_limit(value: &Value, bw: u64) -> String {
    let text = flow(value);
    let held = match ClassQueueLimit::parse(&text) {
        Ok(limit @ ClassQueueLimit::Time(_)) => limit.resolve(bw, "queue_limit").ok().and_then(Limit::bytes),
        _ => None,
    };
    match held {
        Some(bytes) => format!("queue_limit {text} = {bytes} B at {}", format_rate(bw)),
        None => format!("queue_limit {text}"),
    }
}

/// Explains CBWFQ `output` at `level` of the interface's hierarchy, its percentages of
/// `bw`, the level served at `served_bps`: each class's settings and match, the table of
/// what each class is promised and gets at full load, and the level's admission check
/// under its scheduler.
fn cbwfq(
    out: &mut String,
    output: &Value,
    bw: u64,
    physical_bps: Option<u64>,
    served_bps: u64,
    level: usize,
) {
    let scheduler = output.get("scheduler").and_then(Value::as_str).unwrap_or("pre-hqf");
    let mut reserved_bps = 0.0;
    for class in output["classes"].as_array().into_iter().flatten() {
        let name = class["name"].as_str().unwrap_or_default();
        let mut what = Vec::new();
        if let Some(level) = class.get("priority_level") {
            what.push(format!("priority level {level}"));
        }
        if let Some(p) = class.get("priority") {
            let bps = rate_bps(p, bw).unwrap_or(0.0);
            reserved_bps += bps;
            what.push(format!(
                "priority {} = {} (strict priority, policed to it under congestion)",
                flow(p),
                kbps(bps)
            ));
        }
        if let Some(b) = class.get("bandwidth") {
            let bps = rate_bps(b, bw).unwrap_or(0.0);
            reserved_bps += bps;
            what.push(format!("bandwidth {} = {}", flow(b), kbps(bps)));
        }
        if let Some(b) = class.get("bandwidth_remaining") {
            what.push(format!("bandwidth remaining {}", flow(b)));
        }
        if let Some(r) = class.get("bandwidth_remaining_ratio") {
            what.push(format!("bandwidth remaining ratio {r}"));
        }
        if let Some(limit) = class.get("queue_limit") {
            what.push(queue_limit(limit, bw));
        }
        for key in ["fair_queue", "random_detect", "police", "shape", "set", "burst"] {
            if let Some(v) = class.get(key) {
                what.push(format!("{key} {}", flow(v)));
            }
        }
        if class.get("child").is_some() {
            what.push(format!("a child policy (level {} below)", level + 1));
        }
        if what.is_empty() {
            what.push("unreserved bandwidth".into());
        }
        let _ = writeln!(out, "    class {name}: {}", what.join("; "));
        if let Some(m) = class.get("match") {
            let _ = writeln!(out, "      match {}", flow(m));
        }
    }
    let plans = table(out, output, bw, served_bps, scheduler, level);
    let max_pct = output
        .get("max_reserved")
        .and_then(|v| v.as_str())
        .and_then(|v| v.trim_end_matches('%').parse::<f64>().ok())
        .unwrap_or(if scheduler == "pre-hqf" { DEFAULT_MAX_RESERVED_PCT } else { 100.0 });
    let allowed_bps = bw as f64 * max_pct / 100.0;
    let verdict =
        if reserved_bps <= allowed_bps { "IOS accepts the policy" } else { "IOS refuses the policy" };
    let _ = writeln!(
        out,
        "  reserved {} of the {} IOS allows ({max_pct} % of {}): {verdict}",
        kbps(reserved_bps),
        kbps(allowed_bps),
        format_rate(bw)
    );
    if let Some(rate) = physical_bps.filter(|&r| reserved_bps > r as f64) {
        let _ = writeln!(
            out,
            "  warning: the reservations ({}) exceed the physical rate ({}): the link cannot give them",
            kbps(reserved_bps),
            format_rate(rate)
        );
    }
    // Each child policy, on its class's maximum (its shape rate, else this level's
    // bandwidth), served at what its class gets at full load.
    for (i, class) in output["classes"].as_array().into_iter().flatten().enumerate() {
        let Some(child) = class.get("child") else { continue };
        let Some((plan, share)) = plans.get(i) else { continue };
        let base_bps = plan.max_bps.unwrap_or(bw);
        let served_bps = share.map_or(base_bps, |bps| (bps as u64).min(base_bps));
        let _ = writeln!(
            out,
            "  level {}: class {}'s child policy, its percentages of {}",
            level + 1,
            class["name"].as_str().unwrap_or_default(),
            format_rate(base_bps)
        );
        cbwfq(out, child, base_bps, None, served_bps, level + 1);
    }
}

/// The level's table: each class's kind, minimum, maximum, share of what the priority
/// classes and minimums leave, and its rate when every class is busy on a level served at
/// `served_bps` ([`crate::qdisc::cbwfq_plan`]). Returns each class's plan with its rate at
/// full load, where it has one.
fn table(
    out: &mut String,
    output: &Value,
    bw: u64,
    served_bps: u64,
    scheduler: &str,
    level: usize,
) -> Vec<(ClassPlan, Option<f64>)> {
    let Some(policy) = Cbwfq::from_scenario(output, bw) else { return Vec::new() };
    let plans = policy.plan();
    let shares = full_load_bps(&plans, served_bps);
    let weights: f64 = plans.iter().filter(|p| p.priority_level.is_none()).filter_map(|p| p.weight).sum();
    // To the kbit/s, as IOS gives rates.
    let shown = |bps: f64| format_rate(((bps / 1000.0).round() * 1000.0) as u64);
    let rate = |bps: Option<u64>| bps.map_or("-".to_owned(), |b| shown(b as f64));
    let mut rows = vec![[
        "class".to_owned(),
        "kind".to_owned(),
        "minimum".to_owned(),
        "maximum".to_owned(),
        "share of the rest".to_owned(),
        "at full load".to_owned(),
    ]];
    let classes = output["classes"].as_array().cloned().unwrap_or_default();
    for (i, (plan, share)) in plans.iter().zip(&shares).enumerate() {
        let nested = classes.get(i).is_some_and(|class| class.get("child").is_some());
        let kind = match (plan.priority_level, plan.flows) {
            _ if nested => "child policy".to_owned(),
            (Some(level), _) if scheduler == "xe" => format!("priority {level}"),
            (Some(_), _) => "priority".to_owned(),
            (None, 1) => "queue".to_owned(),
            (None, flows) => format!("queue, {flows} flows"),
        };
        let maximum = [plan.max_bps, plan.police_bps, plan.priority_bps].into_iter().flatten().min();
        let rest = match (plan.priority_level, plan.weight) {
            (None, Some(w)) if weights > 0.0 => format!("{:.1} %", 100.0 * w / weights),
            _ => "-".to_owned(),
        };
        let full = match (share, plan.priority_level) {
            (Some(bps), _) => shown(*bps),
            (None, Some(_)) => "all it is offered".to_owned(),
            (None, None) => "by its flows".to_owned(),
        };
        rows.push([plan.name.clone(), kind, rate(plan.min_bps), rate(maximum), rest, full]);
    }
    let _ = writeln!(
        out,
        "  level {level}, the `{scheduler}` scheduler, every class busy on {}:",
        format_rate(served_bps)
    );
    let widths: Vec<usize> =
        (0..6).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    for row in rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
        let _ = writeln!(out, "    {}", cells.join("  ").trim_end());
    }
    plans.into_iter().zip(shares).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flow_style() {
        assert_eq!(
            flow(&json!({"a": [1, "x y"], "b": "30%", "c": "true"})),
            r#"{a: [1, "x y"], b: 30%, c: "true"}"#
        );
    }
}
