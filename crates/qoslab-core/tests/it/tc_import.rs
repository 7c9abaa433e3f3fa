//! Linux tc import (`qoslab tc import`): what this kernel (Linux 6.18, iproute2 6.1) showed
//! after running `qoslab tc export` scripts, read back into policies that export to the same
//! scripts; the kinds it lacks (prio, drr, fq_codel) from JSON written as iproute2 prints
//! them (`tc/q_prio.c`, `tc/q_fq_codel.c`, `tc/q_drr.c`); and the refusals, each naming its
//! output and entry.

use qoslab_core::{tc_from_yaml, tc_import_yaml, Selection};

/// The HTB cross-check's scenario, its policy given by `output` (a YAML flow mapping).
fn scenario(output: &str) -> String {
    format!(
        r#"
name: imported
run: {{duration: 10s}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 1Gbps}}]
interfaces:
  a: {{b: {{output: {output}}}}}
traffic:
  - {{name: voice, from: a, to: b, dscp: EF, pattern: {{kind: cbr, rate_pps: 50, size: 200B}}}}
  - {{name: flood, from: a, to: b, pattern: {{kind: cbr, rate_pps: 125, size: 1500B}}}}
"#
    )
}

/// The tc commands of `scenario`'s a.b, the comment lines left out.
fn exported(scenario: &str) -> Vec<String> {
    let script = tc_from_yaml(scenario, "s.yaml", &Selection::default(), "a.b", Some("va")).unwrap();
    script.lines().filter(|l| l.starts_with("tc ")).map(str::to_owned).collect()
}

/// The YAML import gives, as a scenario whose a.b runs it (the `output:` line's block
/// indented under the interface).
fn imported_scenario(yaml: &str) -> String {
    let body: Vec<&str> = yaml.lines().filter(|l| !l.starts_with('#')).collect();
    if let Some(flow) = body[0].strip_prefix("output: ") {
        return scenario(flow);
    }
    assert_eq!(body[0], "output:", "{yaml}");
    let policy: Vec<String> = body[1..].iter().map(|l| format!("      {l}")).collect();
    scenario("p")
        .replace("  a: {b: {output: p}}", &format!("  a:\n    b:\n      output:\n{}", policy.join("\n")))
}

fn import(
    qdiscs: &str,
    classes: &str,
    filters: &[(&str, Option<&str>)],
) -> Result<String, qoslab_core::ScenarioError> {
    let filters: Vec<((&str, &str), Option<&str>)> =
        filters.iter().map(|(t, p)| ((*t, "filters.json"), *p)).collect();
    tc_import_yaml((qdiscs, "qdiscs.json"), (classes, "classes.txt"), &filters)
}

const HTB_QDISCS: &str = r#"[{"kind":"htb","handle":"1:","root":true,"refcnt":3,"options":{"r2q":10,"default":"0x3","direct_packets_stat":0,"ver":"3.17","direct_qlen":1000}},{"kind":"pfifo","handle":"2:","parent":"1:2","options":{"limit":40}},{"kind":"pfifo","handle":"3:","parent":"1:3","options":{"limit":40}}]"#;

const HTB_CLASSES: &str = "class htb 1:1 root rate 1Mbit ceil 1Mbit linklayer ethernet burst 1600b/1 mpu 0b cburst 1600b/1 mpu 0b level 7 buffer [00030d40] cbuffer [00030d40] 
class htb 1:2 parent 1:1 leaf 2: prio 0 quantum 3750 rate 300Kbit ceil 1Mbit linklayer ethernet burst 1599b/1 mpu 0b cburst 1600b/1 mpu 0b level 0 buffer [000a2c20] cbuffer [00030d40] 
class htb 1:3 parent 1:1 leaf 3: prio 1 quantum 8750 rate 700Kbit ceil 1Mbit linklayer ethernet burst 1599b/1 mpu 0b cburst 1600b/1 mpu 0b level 0 buffer [00045c07] cbuffer [00030d40] 
";

const HTB_FILTERS: &str = r#"[{"protocol":"ip","pref":1,"kind":"u32","chain":0},{"protocol":"ip","pref":1,"kind":"u32","chain":0,"options":{"fh":"800:","ht_divisor":1}},{"protocol":"ip","pref":1,"kind":"u32","chain":0,"options":{"fh":"800::800","order":2048,"key_ht":"800","bkt":"0","flowid":"1:2","not_in_hw":true,"match":{"value":"b80000","mask":"fc0000","offmask":"","off":0}}}]"#;

const HTB_POLICY: &str = "{kind: htb, default: flood, classes: [
    {name: root, rate: 1Mbps},
    {name: voice, parent: root, rate: 300kbps, ceil: 1Mbps, prio: 0, limit: 40, match: {dscp: EF}},
    {name: flood, parent: root, rate: 700kbps, ceil: 1Mbps, prio: 1, limit: 40}]}";

#[test]
fn the_htb_case_reads_back_with_the_bursts_tc_was_given() {
    let yaml = import(HTB_QDISCS, HTB_CLASSES, &[(HTB_FILTERS, Some("1:"))]).unwrap();
    // tc prints the 300 and 700 kbit/s bursts as 1599 B; the kernel's buckets (666,656 and
    // 285,703 ticks of 64 ns) hold 1,599.97 and 1,599.99 B: 1600 B to the nearest byte.
    assert_eq!(
        yaml,
        "output:
  kind: htb
  classes:
    - {name: \"1:1\", burst: 1600B, cburst: 1600B, ceil: 1000000bps, rate: 1000000bps}
    - {name: \"1:2\", match: {dscp: [46]}, burst: 1600B, cburst: 1600B, ceil: 1000000bps, limit: 40, parent: \"1:1\", prio: 0, quantum: 3750B, rate: 300000bps}
    - {name: \"1:3\", burst: 1600B, cburst: 1600B, ceil: 1000000bps, limit: 40, parent: \"1:1\", prio: 1, quantum: 8750B, rate: 700000bps}
  default: \"1:3\"
  r2q: 10
"
    );
    assert_eq!(exported(&imported_scenario(&yaml)), exported(&scenario(HTB_POLICY)));
}

#[test]
fn tbf_reads_back_over_its_fifo_or_with_its_byte_limit() {
    // tbf rate 1000000bit burst 3000b limit 45000b, a pfifo limit 30 under it.
    let qdiscs = r#"[{"kind":"tbf","handle":"1:","root":true,"refcnt":3,"options":{"rate":125000,"burst":"3000b/1","mpu":0,"burst_raw":"5b8d8","lat":336000,"limit":45000,"linklayer":"ethernet"}},{"kind":"pfifo","handle":"2:","parent":"1:1","options":{"limit":30}}]"#;
    let classes = "class tbf 1:1 parent 1: leaf 2: \n";
    let yaml = import(qdiscs, classes, &[]).unwrap();
    assert_eq!(
        yaml,
        "output: {kind: tbf, bc: 3000B, be: 0B, limit: 30, mode: continuous, rate: 1000000bps}\n"
    );
    let original = "{kind: tbf, mode: continuous, rate: 1Mbps, bc: 1500B, limit: 30}";
    assert_eq!(exported(&imported_scenario(&yaml)), exported(&scenario(original)));
    // Without the pfifo, the tbf's own byte limit.
    let alone = qdiscs.split(r#",{"kind":"pfifo""#).next().unwrap().to_owned() + "]";
    let yaml = import(&alone, "class tbf 1:1 parent 1: \n", &[]).unwrap();
    assert!(yaml.contains("limit: 45000B"), "{yaml}");
    let original = "{kind: tbf, mode: continuous, rate: 1Mbps, bc: 1500B, limit: 45000B}";
    assert_eq!(exported(&imported_scenario(&yaml)), exported(&scenario(original)));
}

/// A u32 rule as `tc -j filter show` prints it: `value` under `mask` at offset `off`.
fn rule(pref: u32, flowid: &str, value: &str, mask: &str, off: u32) -> String {
    format!(
        r#"{{"protocol":"ip","pref":{pref},"kind":"u32","chain":0,"options":{{"fh":"800::800","order":2048,"key_ht":"800","bkt":"0","flowid":"{flowid}","not_in_hw":true,"match":{{"value":"{value}","mask":"{mask}","offmask":"","off":{off}}}}}}}"#
    )
}

#[test]
fn prio_drr_and_fq_codel_read_back_from_the_json_iproute2_prints() {
    let pfifo = |handle: u32, parent: &str, limit: u32| {
        format!(
            r#"{{"kind":"pfifo","handle":"{handle}:","parent":"{parent}","options":{{"limit":{limit}}}}}"#
        )
    };
    // prio bands 3 priomap (all 2), EF to band 1.
    let qdiscs = format!(
        r#"[{{"kind":"prio","handle":"1:","root":true,"options":{{"bands":3,"priomap":[2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2],"multiqueue":false}}}},{},{},{}]"#,
        pfifo(2, "1:1", 20),
        pfifo(3, "1:2", 40),
        pfifo(4, "1:3", 60)
    );
    let filters = format!("[{}]", rule(1, "1:1", "b80000", "fc0000", 0));
    let yaml = import(&qdiscs, "", &[(&filters, Some("1:"))]).unwrap();
    let original =
        "{kind: prio, bands: [{name: high, limit: 20}, {name: mid, limit: 40}, {name: low, limit: 60}],
        classify: [{match: {dscp: EF}, band: high}]}";
    assert_eq!(exported(&imported_scenario(&yaml)), exported(&scenario(original)));

    // drr, EF to 1:1, a catch-all to 1:2 (DRR's quantum only in the text form).
    let qdiscs = format!(
        r#"[{{"kind":"drr","handle":"1:","root":true,"options":{{}}}},{},{}]"#,
        pfifo(2, "1:1", 50),
        pfifo(3, "1:2", 50)
    );
    let classes = "class drr 1:1 root leaf 2: quantum 3000b \nclass drr 1:2 root leaf 3: quantum 1500b \n";
    let filters = format!("[{},{}]", rule(1, "1:1", "b80000", "fc0000", 0), rule(3, "1:2", "0", "0", 0));
    let yaml = import(&qdiscs, classes, &[(&filters, Some("1:"))]).unwrap();
    let original = "{kind: drr, classes: [{name: v, quantum: 3000B, limit: 50, match: {dscp: EF}}, {name: d, quantum: 1500B, limit: 50}]}";
    assert_eq!(exported(&imported_scenario(&yaml)), exported(&scenario(original)));

    let qdiscs = r#"[{"kind":"fq_codel","handle":"1:","root":true,"options":{"limit":10240,"flows":1024,"quantum":1514,"target":5000,"interval":100000,"memory_limit":33554432,"ecn":true,"drop_batch":64}}]"#;
    let yaml = import(qdiscs, "", &[]).unwrap();
    let original = "{kind: fq_codel, limit: 10240, flows: 1024, quantum: 1514B, target: 5ms, interval: 100ms, ecn: true}";
    assert_eq!(exported(&imported_scenario(&yaml)), exported(&scenario(original)));
}

#[test]
fn what_qoslab_cannot_read_is_refused_at_its_output_and_entry() {
    let refused = |qdiscs: &str, classes: &str, filters: &[(&str, Option<&str>)]| {
        let e = import(qdiscs, classes, filters).unwrap_err();
        (format!("{}: {}", e.origin, e.key_path), e.message, e.hint.unwrap_or_default())
    };
    let (at, message, _) = refused(r#"[{"kind":"cake","handle":"1:","root":true,"options":{}}]"#, "", &[]);
    assert_eq!(at, "qdiscs.json: [0].kind");
    assert!(message.contains("`cake`"), "{message}");
    // HTB's default 0: unclassified packets go unshaped through the direct queue.
    let (at, message, hint) =
        refused(&HTB_QDISCS.replace("0x3", "0"), HTB_CLASSES, &[(HTB_FILTERS, Some("1:"))]);
    assert_eq!(at, "qdiscs.json: [0].options.default");
    assert!(message.contains("direct queue") && hint.contains("htb default N"), "{message} / {hint}");
    // A leaf without its own discipline: the kernel's built-in one is not listed.
    let (at, message, _) = refused(
        &HTB_QDISCS.replace(r#",{"kind":"pfifo","handle":"3:","parent":"1:3","options":{"limit":40}}"#, ""),
        HTB_CLASSES,
        &[(HTB_FILTERS, Some("1:"))],
    );
    assert_eq!(at, "classes.txt: line 3");
    assert!(message.contains("txqueuelen"), "{message}");
    // A class's rules split by another class's.
    let split = format!(
        "[{},{},{}]",
        rule(1, "1:2", "b80000", "fc0000", 0),
        rule(2, "1:3", "280000", "fc0000", 0),
        rule(3, "1:2", "a00000", "fc0000", 0)
    );
    let (at, message, _) = refused(HTB_QDISCS, HTB_CLASSES, &[(&split, Some("1:"))]);
    assert_eq!(at, "filters.json: [2].options");
    assert!(message.contains("must come together"), "{message}");
    // Filters that do not say their discipline, given without one.
    let (at, _, hint) = refused(HTB_QDISCS, HTB_CLASSES, &[(HTB_FILTERS, None)]);
    assert_eq!(at, "filters.json: [2]");
    assert!(hint.contains("PARENT=FILE"), "{hint}");
    // Not tc's JSON; a class line tc import does not know.
    let (at, message, _) = refused("qdisc htb 1: root", "", &[]);
    assert_eq!(at, "qdiscs.json: line 1");
    assert!(message.contains("not the JSON tc prints"), "{message}");
    let (at, message, _) = refused(HTB_QDISCS, "class htb 1:1 root rate 1Mbit frobnicate 3\n", &[]);
    assert_eq!(at, "classes.txt: line 1");
    assert!(message.contains("`frobnicate`"), "{message}");
    // tbf printed without -r: its burst is rounded down.
    let (at, _, hint) = refused(
        r#"[{"kind":"tbf","handle":"1:","root":true,"options":{"rate":125000,"burst":2999,"lat":336000}}]"#,
        "",
        &[],
    );
    assert_eq!(at, "qdiscs.json: [0].options");
    assert!(hint.contains("-r"), "{hint}");
}
