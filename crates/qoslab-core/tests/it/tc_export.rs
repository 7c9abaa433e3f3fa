//! Linux tc export (`qoslab tc export`): the script of each kind the kernel has, written
//! out in full; the refusals, each at its key path; and every example interface either
//! exported or refused with a located error.

use qoslab_core::{tc_from_yaml, Selection};
use std::path::Path;

/// The scenario of the HTB cross-check: a 1 Mbit/s root, EF voice in a 300 kbit/s class and
/// a flood in a 700 kbit/s one, both borrowing up to the root, 40-packet leaves.
const HTB: &str = r#"
name: htb-two-classes
run: {duration: 10s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 1Gbps}]
policies:
  htb:
    kind: htb
    classes:
      - {name: root, rate: 1Mbps}
      - {name: voice, parent: root, rate: 300kbps, ceil: 1Mbps, prio: 0, limit: 40, match: {dscp: EF}}
      - {name: flood, parent: root, rate: 700kbps, ceil: 1Mbps, prio: 1, limit: 40}
interfaces:
  a: {b: {output: htb}}
traffic:
  - {name: voice, from: a, to: b, dscp: EF, pattern: {kind: cbr, rate_pps: 50, size: 200B}}
  - {name: flood, from: a, to: b, pattern: {kind: cbr, rate_pps: 125, size: 1500B}}
"#;

fn export(text: &str, interface: &str) -> Result<String, qoslab_core::ScenarioError> {
    tc_from_yaml(text, "s.yaml", &Selection::default(), interface, Some("va"))
}

/// `HTB` with its `policies` and `interfaces` sections replaced by `policy` (the policy of
/// a.b, named `p`) and `interface` (more keys of a.b's entry).
fn with_policy(policy: &str, interface: &str) -> String {
    let head = HTB.split("policies:").next().unwrap();
    let traffic = &HTB[HTB.find("traffic:").unwrap()..];
    format!("{head}policies:\n  p: {policy}\ninterfaces:\n  a: {{b: {{output: p{interface}}}}}\n{traffic}")
}

/// The script's tc commands but the first, which removes the device's root discipline.
fn commands(script: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = script.lines().filter(|l| l.starts_with("tc ")).collect();
    assert_eq!(lines.remove(0), "tc qdisc del dev va root 2>/dev/null || true");
    lines
}

#[test]
fn the_htb_case_is_written_in_full() {
    let script = export(HTB, "a.b").unwrap();
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    assert_eq!(
        commands(&script),
        [
            "tc qdisc add dev va root handle 1: htb default 3 r2q 10",
            "tc class add dev va parent 1: classid 1:1 htb rate 1000000bit ceil 1000000bit burst 1600b cburst 1600b",
            // Leaves: quantum = rate in bytes/s ÷ r2q, at least 1000 B.
            "tc class add dev va parent 1:1 classid 1:2 htb rate 300000bit ceil 1000000bit burst 1600b cburst 1600b prio 0 quantum 3750",
            "tc class add dev va parent 1:1 classid 1:3 htb rate 700000bit ceil 1000000bit burst 1600b cburst 1600b prio 1 quantum 8750",
            "tc qdisc add dev va parent 1:2 handle 2: pfifo limit 40",
            "tc qdisc add dev va parent 1:3 handle 3: pfifo limit 40",
            "tc filter add dev va parent 1: protocol ip prio 1 u32 match ip dsfield 0xb8 0xfc flowid 1:2",
        ]
    );
}

#[test]
fn the_other_kernel_disciplines() {
    let fifo = export(&with_policy("{kind: fifo, limit: 64kB}", ""), "a.b").unwrap();
    assert_eq!(commands(&fifo), ["tc qdisc add dev va root handle 1: bfifo limit 64000"]);
    // The default output with a hold queue.
    let held = export(&HTB.replace("a: {b: {output: htb}}", "a: {b: {hold_queue: 75}}"), "a.b").unwrap();
    assert_eq!(commands(&held), ["tc qdisc add dev va root handle 1: pfifo limit 75"]);
    // IOS PQ: four bands, every priority to `normal` (band 3), filters in rule order.
    let prio = export(
        &with_policy("{kind: prio, preset: ios, classify: [{match: {dscp: EF}, band: high}, {match: {protocol: tcp}, band: low}]}", ""),
        "a.b",
    )
    .unwrap();
    assert_eq!(
        commands(&prio),
        [
            "tc qdisc add dev va root handle 1: prio bands 4 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2",
            "tc qdisc add dev va parent 1:1 handle 2: pfifo limit 20",
            "tc qdisc add dev va parent 1:2 handle 3: pfifo limit 40",
            "tc qdisc add dev va parent 1:3 handle 4: pfifo limit 60",
            "tc qdisc add dev va parent 1:4 handle 5: pfifo limit 80",
            "tc filter add dev va parent 1: protocol ip prio 1 u32 match ip dsfield 0xb8 0xfc flowid 1:1",
            "tc filter add dev va parent 1: protocol ip prio 2 u32 match ip protocol 6 0xff flowid 1:4",
        ]
    );
    // DRR: what no class matches goes to the default class by a last catch-all filter.
    let drr = export(
        &with_policy("{kind: drr, classes: [{name: v, match: {dscp: EF}, quantum: 300B}, {name: rest}]}", ""),
        "a.b",
    )
    .unwrap();
    assert_eq!(
        commands(&drr),
        [
            "tc qdisc add dev va root handle 1: drr",
            "tc class add dev va parent 1: classid 1:1 drr quantum 300b",
            "tc qdisc add dev va parent 1:1 handle 2: pfifo limit 1000",
            "tc class add dev va parent 1: classid 1:2 drr quantum 1500b",
            "tc qdisc add dev va parent 1:2 handle 3: pfifo limit 1000",
            "tc filter add dev va parent 1: protocol ip prio 1 u32 match ip dsfield 0xb8 0xfc flowid 1:1",
            "tc filter add dev va parent 1: protocol ip prio 3 u32 match u32 0 0 flowid 1:2",
        ]
    );
    // A size table goes before the discipline's kind.
    let stab = export(
        &with_policy(
            "{kind: htb, stab: {overhead: 24, linklayer: ethernet}, classes: [{name: all, rate: 1Mbps}]}",
            "",
        ),
        "a.b",
    )
    .unwrap();
    assert_eq!(
        commands(&stab)[0],
        "tc qdisc add dev va root handle 1: stab overhead 24 mpu 0 linklayer ethernet htb default 1 r2q 10"
    );
    let fq = export(&with_policy("{kind: fq_codel, target: 10ms, ecn: false}", ""), "a.b").unwrap();
    assert_eq!(
        commands(&fq),
        ["tc qdisc add dev va root handle 1: fq_codel limit 10240 flows 1024 quantum 1514 target 10000us interval 100000us noecn"]
    );
    // A continuous shaper: its bucket is Bc + Be; its packet queue a pfifo under it.
    let tbf = export(
        &with_policy("{kind: tbf, rate: 2Mbps, bc: 3000B, be: 0B, mode: continuous, limit: 50}", ""),
        "a.b",
    )
    .unwrap();
    assert_eq!(
        commands(&tbf),
        [
            "tc qdisc add dev va root handle 1: tbf rate 2000000bit burst 3000b limit 75000b",
            "tc qdisc add dev va parent 1:1 handle 2: pfifo limit 50",
        ]
    );
    // A shaper over a child policy: the child's percentages are of the shaping rate.
    let child = export(
        &with_policy(
            "{kind: tbf, rate: 2Mbps, bc: 3000B, be: 0B, mode: continuous, child: {kind: htb, classes: [{name: all, rate: 50%}]}}",
            "",
        ),
        "a.b",
    )
    .unwrap();
    assert_eq!(
        commands(&child)[..3],
        [
            "tc qdisc add dev va root handle 1: tbf rate 2000000bit burst 3000b limit 3000b",
            "tc qdisc add dev va parent 1:1 handle 2: htb default 1 r2q 10",
            "tc class add dev va parent 2: classid 2:1 htb rate 1000000bit ceil 1000000bit burst 1600b cburst 1600b prio 0 quantum 12500",
        ]
    );
}

#[test]
fn what_tc_cannot_express_is_refused_at_its_key() {
    let refused = |policy: &str, interface: &str| export(&with_policy(policy, interface), "a.b").unwrap_err();
    let e = refused("{kind: cbwfq, classes: [{name: v, match: {dscp: EF}, priority: 100kbps}]}", "");
    assert_eq!(e.key_path, "policies.p.kind");
    assert!(e.message.contains("no discipline for IOS CBWFQ/LLQ"), "{e}");
    assert!(e.hint.as_deref().unwrap().contains("`htb`"));
    let e = refused("{kind: tbf, rate: 1Mbps}", "");
    assert_eq!(e.key_path, "policies.p");
    assert!(e.message.contains("continuous token bucket"), "{e}");
    let e = refused(
        "{kind: htb, classes: [{name: a, rate: 1Mbps, match: {not: {dscp: EF}}}, {name: b, rate: 1Mbps}]}",
        "",
    );
    assert_eq!(e.key_path, "policies.p.classes[0].match.not");
    let e = refused("{kind: fifo, random_detect: {}}", "");
    assert_eq!(e.key_path, "policies.p.random_detect");
    let e = refused("{kind: fifo}", ", input: {classes: [{match: {}, set: {dscp: 0}}]}");
    assert_eq!(e.key_path, "interfaces.a.b.input");
    assert!(e.position.is_some(), "placed in the file: {e}");
    let e = export(HTB, "a.c").unwrap_err();
    assert!(e.message.contains("no link joins `a` and `c`"), "{e}");
    let e = tc_from_yaml(HTB, "s.yaml", &Selection::default(), "a.b", Some("bad name")).unwrap_err();
    assert!(e.message.contains("is not a Linux device name"), "{e}");
}

#[test]
fn every_example_interface_is_exported_or_refused_with_its_place() {
    let dir = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    let (mut exported, mut refused) = (0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let origin = path.to_string_lossy().into_owned();
        let (doc, _) = qoslab_core::yaml::parse(&text).expect("examples are valid YAML");
        for link in doc["topology"]["links"].as_array().into_iter().flatten() {
            let (a, b) = (link["between"][0].as_str().unwrap(), link["between"][1].as_str().unwrap());
            for interface in [format!("{a}.{b}"), format!("{b}.{a}")] {
                match tc_from_yaml(&text, &origin, &Selection::default(), &interface, None) {
                    Ok(script) => {
                        assert!(script.starts_with("#!/bin/sh\n") && script.contains("tc qdisc del dev eth0 root 2>/dev/null || true\ntc qdisc add dev eth0 root"));
                        exported += 1;
                    }
                    Err(e) => {
                        assert!(
                            !e.key_path.is_empty() && e.hint.is_some(),
                            "{}: {interface}: {e}",
                            Path::new(&origin).display()
                        );
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(exported > 20 && refused > 5, "exported {exported}, refused {refused}");
}
