//! Cisco IOS export (`qoslab ios from-yaml`): an interface written as IOS text reads back,
//! through the importer, into the same discipline — byte-identical runs — for every example
//! interface IOS can express and for hand-written policies using every feature; the texts
//! of a few policies as Cisco writes them; and the refusals, each at its key path.

use crate::common::json_without_identity;
use qoslab_core::ios::parse;
use qoslab_core::{ios_from_yaml, load, Selection};
use serde_json::{json, Value};
use std::path::Path;

/// Measured time of the round-trip runs: long enough for every queue to fill.
const RUN: &str = "10s";
/// Warm-up of the examples' round-trip runs (some examples warm up for minutes).
const WARMUP: &str = "2s";

fn examples_dir() -> String {
    format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"))
}

/// The export of interface `interface` of scenario `text` (read as `origin`), under its
/// default name or `name`.
fn export(
    text: &str,
    origin: &str,
    interface: &str,
    name: Option<&str>,
) -> Result<String, qoslab_core::ScenarioError> {
    ios_from_yaml(text, origin, &Selection::default(), interface, name)
}

/// The results of scenario document `doc` (read as `origin`), without its identity and
/// without the notes on router configurations' lines not modelled: those name the files a
/// scenario reads, and the exported text (read without a finding) replaces one.
fn run(doc: &Value, origin: &str) -> String {
    let sim = load(&doc.to_string(), origin, &[], None).unwrap_or_else(|e| panic!("{e}"));
    let json = json_without_identity(&sim.finish().unwrap_or_else(|e| panic!("{e}")));
    let mut results: Value = serde_json::from_str(&json).unwrap();
    let notes = results["run"]["notes"].as_array_mut().unwrap();
    notes.retain(|note| !note.as_str().unwrap().contains(" not modelled (`qoslab ios check"));
    results.to_string()
}

/// The interface name the exported `config` configures.
fn interface_of(config: &str) -> String {
    let line = config.lines().find(|l| l.starts_with("interface ")).expect("an interface line");
    line["interface ".len()..].to_owned()
}

/// `doc` with interface `node.peer` configured from `config` instead of its YAML settings
/// (its `observe` kept). If a link names the interface in a router's configuration, the
/// link's names give way to explicit `ios` entries for both of its ends.
fn configured_from(doc: &Value, node: &str, peer: &str, config: &str) -> Value {
    let mut doc = doc.clone();
    let links = doc["topology"]["links"].as_array_mut().unwrap();
    let mut other_end = None;
    for link in links.iter_mut() {
        let between = [
            link["between"][0].as_str().unwrap().to_owned(),
            link["between"][1].as_str().unwrap().to_owned(),
        ];
        if between != [node, peer] && between != [peer, node] {
            continue;
        }
        if let Some(names) = link.as_object_mut().unwrap().remove("interfaces") {
            let end = usize::from(between[0] == node);
            other_end = Some((between[end].clone(), between[1 - end].clone(), names[end].clone()));
        }
    }
    if let Some((far, near, name)) = other_end {
        let far_config = doc["topology"]["nodes"][&far]["ios"].clone();
        doc["interfaces"][&far][&near] = json!({"ios": {"config": far_config, "interface": name}});
    }
    let old = doc["interfaces"][node][peer].clone();
    let mut entry = json!({"ios": {"config": config, "interface": interface_of(config)}});
    if let Some(observe) = old.get("observe") {
        entry["observe"] = observe.clone();
    }
    doc["interfaces"][node][peer] = entry;
    doc
}

/// Exports interface `node.peer` of `doc` (under IOS name `name`, else the default),
/// checks that the text is read without a finding, and that the scenario configured from
/// it runs byte-identically; the refusal, if the export refuses the interface.
fn round_trip(
    doc: &Value,
    origin: &str,
    node: &str,
    peer: &str,
    name: Option<&str>,
) -> Result<String, String> {
    let config =
        export(&doc.to_string(), origin, &format!("{node}.{peer}"), name).map_err(|e| e.to_string())?;
    let parsed = parse(&config);
    assert!(parsed.diagnostics.is_empty(), "{origin} {node}.{peer}: {:?}\n{config}", parsed.diagnostics);
    let yaml = run(doc, origin);
    let ios = run(&configured_from(doc, node, peer, &config), origin);
    assert!(yaml == ios, "{origin} {node}.{peer} runs differently from its IOS text:\n{config}");
    Ok(config)
}

/// Each interface of an example that has settings or is named by a link, each with its own
/// policy and with every named policy no interface uses; the scenario as written, without
/// its variants, run for [`RUN`] after [`WARMUP`].
fn example_cases(doc: &Value) -> Vec<(Value, String, String)> {
    let mut doc = doc.clone();
    doc["run"]["duration"] = json!(RUN);
    doc["run"]["warmup"] = json!(WARMUP);
    // Variants rewrite interfaces the IOS text replaces; the scenario as written is the case.
    for section in ["variants", "sweep"] {
        doc.as_object_mut().unwrap().remove(section);
    }
    let mut interfaces: Vec<(String, String)> = Vec::new();
    for (node, peers) in doc["interfaces"].as_object().into_iter().flatten() {
        for peer in peers.as_object().unwrap().keys() {
            interfaces.push((node.clone(), peer.clone()));
        }
    }
    for link in doc["topology"]["links"].as_array().unwrap() {
        if link.get("interfaces").is_some() {
            let (a, b) = (link["between"][0].as_str().unwrap(), link["between"][1].as_str().unwrap());
            interfaces.extend([(a.to_owned(), b.to_owned()), (b.to_owned(), a.to_owned())]);
        }
    }
    let mut cases: Vec<(Value, String, String)> =
        interfaces.iter().map(|(n, p)| (doc.clone(), n.clone(), p.clone())).collect();
    let used: Vec<&str> = doc["interfaces"]
        .as_object()
        .into_iter()
        .flatten()
        .flat_map(|(_, peers)| peers.as_object().unwrap().values())
        .filter_map(|entry| entry["output"].as_str())
        .collect();
    let output_interface = interfaces.iter().find(|(n, p)| doc["interfaces"][n][p].get("output").is_some());
    if let Some((node, peer)) = output_interface {
        for name in doc["policies"].as_object().into_iter().flatten().map(|(k, _)| k) {
            if !used.contains(&name.as_str()) {
                let mut other = doc.clone();
                other["interfaces"][node][peer]["output"] = json!(name);
                if let Some(entry) = other["interfaces"][node][peer].as_object_mut() {
                    entry.remove("changes");
                }
                cases.push((other, node.clone(), peer.clone()));
            }
        }
    }
    cases
}

/// Every example scenario's interfaces and unused policies: those IOS can express run
/// byte-identically from their exported text (read back without a finding); the others are
/// refused with a message naming the key that holds what IOS cannot say. The refusals are
/// the kinds the export is known to refuse, and enough interfaces round-trip to cover the
/// examples' FIFO, priority, custom, WFQ, CBWFQ, LLQ, shaping, input and LFI settings.
#[test]
fn every_expressible_example_interface_round_trips() {
    let mut paths: Vec<_> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let mut exported = Vec::new();
    let mut refused = Vec::new();
    for path in &paths {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let (doc, _) = qoslab_core::yaml::parse(&text).unwrap();
        for (doc, node, peer) in example_cases(&doc) {
            // A policy some example interface cannot take (its reservations) is not a case.
            if load(&doc.to_string(), &origin, &[], None).is_err() {
                continue;
            }
            let name = Path::new(&origin).file_stem().unwrap().to_string_lossy().into_owned();
            // A QoS bandwidth a serial interface cannot have is refused with the advice to
            // name the interface otherwise: the advice is followed.
            let result = match round_trip(&doc, &origin, &node, &peer, None) {
                Err(message) if message.contains("--name GigabitEthernet0/0") => {
                    round_trip(&doc, &origin, &node, &peer, Some("GigabitEthernet0/0"))
                }
                other => other,
            };
            match result {
                Ok(config) => exported.push((name, node, peer, config)),
                Err(message) => refused.push(format!("{name} {node}.{peer}: {message}")),
            }
        }
    }
    let known = [
        "IOS has no command for it",
        "`mdrr` is a Cisco 12000",
        "ports only for TCP and UDP",
        "IOS priority queuing has four queues",
        "a `tbf` without `child`",
        "takes whole kbit/s from 8",
        "`changes` replace it during the run",
        "(`counts: ip`) has no IOS form",
    ];
    for message in &refused {
        assert!(known.iter().any(|k| message.contains(k)), "unexpected refusal: {message}");
    }
    let all: String = exported.iter().map(|(.., config)| config.as_str()).collect();
    for command in [
        "no fair-queue",
        "priority-group 1",
        "custom-queue-list 1",
        "fair-queue 64 256",
        "priority percent",
        "priority 384",
        "bandwidth percent",
        "random-detect",
        "fair-queue\n",
        "shape average",
        "service-policy input",
        "police cir",
        "set ip precedence",
        "ppp multilink fragment delay 10",
    ] {
        assert!(all.contains(command), "no example exported `{command}`");
    }
    eprintln!(
        "EXPORTED {}",
        exported.iter().map(|(n, a, b, _)| format!("{n} {a}.{b}")).collect::<Vec<_>>().join("; ")
    );
    eprintln!("REFUSED {refused:#?}");
    assert!(exported.len() >= 30, "{} exported, refused: {refused:#?}", exported.len());
}

/// A router `r` between hosts `a` and `c` on one side and `b` on the other, over a 256
/// kbit/s PPP link with a one-packet ring; `settings` are the keys of `interfaces.r.b`, and
/// the flows carry every kind of packet the policies below tell apart.
fn case(policy: &str, settings: &str) -> String {
    format!(
        "name: export-case
run: {{duration: {RUN}, seed: 3}}
topology:
  nodes:
    a: {{kind: host, address: 10.1.1.1}}
    c: {{kind: host, address: 10.1.2.7}}
    r: {{kind: router}}
    b: {{kind: host, address: 172.16.20.5}}
  links:
    - {{between: [a, r], rate: 10Mbps}}
    - {{between: [c, r], rate: 10Mbps}}
    - {{between: [r, b], rate: 256kbps, l2: ppp, tx_ring: 1}}
policies:
  P: {policy}
interfaces:
  r:
    b: {{output: P, {settings}}}
traffic:
  - {{name: voice, from: a, to: b, dscp: EF, src_port: 16384, dst_port: 16500, pattern: {{kind: cbr, rate_pps: 50, size: 200B}}}}
  - {{name: video, from: a, to: b, dscp: AF41, dst_port: 5004, pattern: {{kind: poisson, rate: 60kbps, size: 1000B}}}}
  - {{name: web, from: c, to: b, protocol: tcp, dscp: AF21, src_port: 40000, dst_port: 80, pattern: {{kind: poisson, rate: 80kbps, size: 800B}}}}
  - {{name: ftp, from: c, to: b, protocol: tcp, dscp: AF11, src_port: 40001, dst_port: 21, pattern: {{kind: poisson, rate: 100kbps, size: 1500B}}}}
  - {{name: scavenger, from: a, to: b, dscp: CS1, dst_port: 5006, pattern: {{kind: poisson, rate: 100kbps, size: 1200B}}}}
  - {{name: ping, from: c, to: b, protocol: icmp, pattern: {{kind: poisson, rate: 20kbps, size: 100B}}}}
  - {{name: marked, from: a, to: b, protocol: tcp, dscp: AF22, ecn: true, dst_port: 443, pattern: {{kind: poisson, rate: 80kbps, size: 900B}}}}
  - {{name: back, from: b, to: a, dscp: AF41, pattern: {{kind: poisson, rate: 60kbps, size: 700B}}}}
  - {{name: back-web, from: b, to: c, protocol: tcp, dst_port: 443, pattern: {{kind: poisson, rate: 40kbps, size: 500B}}}}
"
    )
}

/// [`case`] as a document.
fn case_doc(policy: &str, settings: &str) -> Value {
    qoslab_core::yaml::parse(&case(policy, settings)).unwrap_or_else(|e| panic!("{}", e.message)).0
}

/// The export of `r.b` of [`case`] `policy` with `settings`.
fn case_text(policy: &str, settings: &str) -> String {
    export(&case(policy, settings), "case.yaml", "r.b", None).unwrap_or_else(|e| panic!("{e}"))
}

/// An LLQ policy with every class setting and match form: `priority` in kbit/s with a
/// burst and in percent, `bandwidth` in kbit/s, `queue-limit`, DSCP-based WRED with its
/// weighting constant, ECN and rows, precedence-based WRED rows, a two-colour and a
/// three-colour policer, `set`, a peak shaper with Bc and Be, a fair-queued class-default
/// with its queues; a policer on a priority class; matches by DSCP, precedence, ports, port ranges, prefixes and node
/// names, `any` (a match-any class map), `not` and `all`; `max_reserved`; LFI.
const LLQ: &str = "{kind: cbwfq, max_reserved: 90%, classes: [
    {name: voice, match: {dscp: EF, protocol: udp, dst_port: \"16384-32767\"}, priority: 64kbps, burst: 3000B},
    {name: video, match: {any: [{dscp: AF41}, {protocol: udp, dst_port: 5004}]}, priority: 10%, police: {cir: 64kbps, bc: 2000B}},
    {name: web, match: {protocol: tcp, dst_port: [80, 443], src: [10.1.2.0/24, a]}, bandwidth: 64kbps, queue_limit: 20,
     random_detect: {based_on: dscp, exponential_weighting_constant: 5, ecn: true, profiles: [{dscp: [AF21, AF22], min: 5, max: 15, denominator: 4}]}},
    {name: ftp, match: {dscp: [AF11, AF12, AF13], not: {protocol: icmp}}, bandwidth: 48kbps,
     police: {cir: 96kbps, bc: 3000B, be: 3000B, conform_action: transmit, exceed_action: set-dscp-transmit AF13, violate_action: drop}, set: {precedence: 1}},
    {name: scavenger, match: {precedence: 1, all: [{protocol: udp}, {not: {dst: 10.9.0.0/16}}]}, bandwidth: 16kbps,
     shape: {rate: 32000bps, bc: 1000B, be: 500B, mode: peak}, random_detect: {profiles: [{precedence: [1, 2], min: 4, max: 12}]}},
    {name: class-default, fair_queue: {dynamic_queues: 64}, queue_limit: 16}]}";

/// `bandwidth remaining percent`, `priority percent`, a policer in percent re-marking its
/// excess, a shaper in percent, matches of more DSCPs and precedences than one `match`
/// statement takes, and an input policy (a class without actions, `set`, a percentage
/// policer); an explicit interface `bandwidth`.
const REMAINING: &str = "{kind: cbwfq, classes: [
    {name: voice, match: {dscp: EF}, priority: 20%},
    {name: data, match: {dscp: [AF21, AF11]}, bandwidth_remaining: 50%, police: {cir: 50%, exceed_action: set-prec-transmit 0}, set: {dscp: AF21}},
    {name: bulk, match: {protocol: tcp, src_port: \"1024-65535\", dst_port: \"0-1023\"}, bandwidth_remaining: 20%, shape: {rate: 25%}},
    {name: many, match: {dscp: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], protocol: [udp, icmp]}, bandwidth_remaining: 10%},
    {name: low, match: {precedence: [1, 2, 3, 4, 6]}, bandwidth_remaining: 5%},
    {name: class-default, bandwidth_remaining: 10%}]}";

const INPUT: &str = "input: {classes: [
    {name: trusted, match: {dscp: [EF, AF41]}},
    {name: web, match: {protocol: tcp}, set: {dscp: AF21}},
    {match: {}, police: {cir: 10%, exceed_action: drop}}]}";

/// Priority queuing with its own band limits and default, rules by DSCP, node name and
/// port range, a protocol list with an exclusion, a precedence list.
const PRIO: &str = "{kind: prio, bands: [{name: high, limit: 10}, {name: medium, limit: 30}, {name: normal}, {name: low, limit: 100}],
    default: low, classify: [
    {match: {dscp: EF}, band: high},
    {match: {protocol: udp, src: a, dst_port: \"5000-5010\"}, band: medium},
    {match: {protocol: [tcp, udp], dst_port: [80, 21], not: {dscp: AF11}}, band: normal},
    {match: {precedence: [0, 1, 2, 3, 4, 5]}, band: medium}]}";

/// Custom queuing with the system queue, byte counts, a queue with no settings, a default
/// queue and `lowest_custom`.
const CUSTOM: &str = "{kind: custom, queues: {\"0\": {limit: 5}, \"1\": {byte_count: 3000B, limit: 30}, \"2\": {byte_count: 1500B},
    \"5\": {}, \"16\": {limit: 8}}, default_queue: 2, lowest_custom: 2, classify: [
    {match: {dscp: EF}, queue: 1},
    {match: {protocol: tcp, dst_port: 80}, queue: 5},
    {match: {precedence: 1}, queue: 16}]}";

/// A shaper with Be but no Bc over a shaper in percent over an LLQ policy: three levels.
const NESTED: &str = "{kind: tbf, rate: 200kbps, be: 1500B, child: {kind: tbf, rate: 80%, mode: peak, child: {kind: cbwfq, classes: [
    {name: voice, match: {dscp: EF}, priority: 30%},
    {name: web, match: {dscp: AF21}, bandwidth: 20%, queue_limit: 10},
    {name: class-default, random_detect: {}}]}}}";

/// An IOS XE policy: a shaper over a child with priority levels 1 (policed) and 2 (with a
/// rate), `bandwidth remaining ratio` in every class, fair-queued user class and
/// class-default, queue limits in packets (a priority class's), bytes and time.
const XE: &str = "{kind: tbf, rate: 200kbps, child: {kind: cbwfq, scheduler: xe, classes: [
    {name: voice, match: {dscp: EF}, priority_level: 1, police: {cir: 64kbps}, queue_limit: 30},
    {name: video, match: {dscp: AF41}, priority_level: 2, priority: 20%, queue_limit: 6kB},
    {name: web, match: {dscp: AF21}, bandwidth_remaining_ratio: 4, fair_queue: true, queue_limit: 40ms},
    {name: class-default, bandwidth_remaining_ratio: 1, fair_queue: true}]}}";

/// Three levels under IOS XE: the link's shaper, two sites by source (the one of `a`
/// shaped, with a child LLQ whose voice keeps its priority through the site level; the
/// rest with a child policy under class-default), shared 2 : 1.
const SITES: &str = "{kind: tbf, rate: 200kbps, child: {kind: cbwfq, scheduler: xe, classes: [
    {name: site-a, match: {src: 10.1.1.0/24}, shape: {rate: 120kbps}, bandwidth_remaining_ratio: 2, child: {kind: cbwfq, classes: [
        {name: voice, match: {dscp: EF}, priority_level: 1, police: {cir: 64kbps}},
        {name: class-default, fair_queue: true}]}},
    {name: class-default, bandwidth_remaining_ratio: 1, child: {kind: cbwfq, classes: [
        {name: web, match: {dscp: AF21}, bandwidth: 50%},
        {name: class-default}]}}]}}";

/// An HQF policy: reservations up to 100 % by default, a fair-queued user class with a
/// bandwidth, a class with neither bandwidth nor priority, a priority class's queue limit.
const HQF: &str = "{kind: cbwfq, scheduler: hqf, classes: [
    {name: voice, match: {dscp: EF}, priority: 30%, queue_limit: 20},
    {name: web, match: {dscp: AF21}, bandwidth: 60%, fair_queue: true},
    {name: ftp, match: {dscp: AF11}, shape: {rate: 64000bps}},
    {name: class-default, fair_queue: true}]}";

/// Every feature of the export, each in a policy that runs on a congested link, exported
/// and read back: each runs byte-identically from its IOS text.
#[test]
fn every_feature_round_trips() {
    let cases = [
        ("llq", case_doc(LLQ, "lfi: {fragment_delay: 10ms}")),
        ("remaining", case_doc(REMAINING, &format!("bandwidth: 200kbps, {INPUT}"))),
        ("prio", case_doc(PRIO, "tx_ring: 3")),
        ("custom", case_doc(CUSTOM, "lfi: {interleave: false}")),
        ("wfq", case_doc("{kind: wfq, cdt: 16, dynamic_queues: 32, hold_queue: 200}", "hold_queue: 150")),
        ("fifo", case_doc("{kind: fifo, limit: 25}", "bandwidth: 300kbps")),
        ("held-fifo", case_doc("{kind: fifo}", "hold_queue: 12, tx_ring: 4")),
        ("nested", case_doc(NESTED, INPUT)),
        ("xe", case_doc(XE, "")),
        ("hqf", case_doc(HQF, "")),
        ("sites", case_doc(SITES, "")),
    ];
    for (name, doc) in cases {
        let config = round_trip(&doc, "case.yaml", "r", "b", None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(config.contains("interface Serial0/0/0"), "{name}:\n{config}");
        let release = match name {
            "xe" | "sites" => Some("version 17.9"),
            "hqf" => Some("version 15.4"),
            _ => None,
        };
        assert_eq!(config.lines().find(|l| l.starts_with("version ")), release, "{name}:\n{config}");
    }
}

/// The congestion-management lab's LLQ policy on its serial link, as its router would hold
/// it. Sources of the command forms: `access-list N permit PROTOCOL SOURCE WILDCARD
/// DESTINATION WILDCARD eq PORT` (Cisco IOS Security Command Reference, `access-list (IP
/// extended)`); `class-map match-all NAME`, `match access-group N`, `policy-map NAME`,
/// `class NAME`, `priority KBPS`, `bandwidth percent P` and `service-policy output NAME`
/// (Cisco IOS Quality of Service Solutions Command Reference); `encapsulation hdlc`,
/// `bandwidth KBPS` (Cisco IOS Interface and Hardware Component Command Reference);
/// `tx-ring-limit N` (QoS Solutions Command Reference). The lab's own configuration
/// (`tests/ios/congestion-lab-llq.txt`) has the same classes and rates.
#[test]
fn golden_congestion_lab_llq() {
    let path = format!("{}/congestion-lab.yaml", examples_dir());
    let text =
        std::fs::read_to_string(&path).unwrap().replace("    r2: {output: fifo}", "    r2: {output: llq}");
    let config = export(&text, &path, "r1.r2", None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config, GOLDEN_CONGESTION_LAB_LLQ);
}

const GOLDEN_CONGESTION_LAB_LLQ: &str = r#"! interfaces.r1.r2 of scenario `congestion-lab`: r1's interface to r2, a 128 kbit/s link
!
access-list 101 permit udp 172.16.10.0 0.0.0.255 172.16.20.0 0.0.0.255 eq 5060
access-list 102 permit tcp 172.16.10.0 0.0.0.255 172.16.20.0 0.0.0.255 eq 1720
access-list 103 permit tcp 172.16.10.0 0.0.0.255 172.16.20.0 0.0.0.255 eq 21
!
class-map match-all VOICE
 match access-group 101
class-map match-all VIDEO
 match access-group 102
class-map match-all FTP
 match access-group 103
!
policy-map llq
 class VOICE
  priority 384
 class VIDEO
  bandwidth percent 30
 class FTP
  bandwidth percent 10
 class class-default
  bandwidth percent 5
!
interface Serial0/0/0
 encapsulation hdlc
 bandwidth 1544
 tx-ring-limit 2
 service-policy output llq
!
end
"#;

/// Every class setting ([`LLQ`]) in IOS's words. Sources (Cisco IOS Quality of Service
/// Solutions Command Reference unless named): `priority KBPS BURST` and `priority percent
/// P` (burst in bytes, 32 to 2000000); `police cir BPS [bc BYTES] [be BYTES]
/// conform-action A exceed-action A [violate-action A]` with `set-dscp-transmit`;
/// `bandwidth KBPS`; `queue-limit N`; `random-detect dscp-based`, `random-detect
/// exponential-weighting-constant N`, `random-detect ecn`, `random-detect dscp V MIN MAX
/// DENOMINATOR`, `random-detect`, `random-detect precedence P MIN MAX`; `set ip
/// precedence P`; `shape peak BPS BC_BITS BE_BITS`; `fair-queue QUEUES` in class-default;
/// `class-map match-any`, `match ip dscp`, `match ip precedence`, `match not access-group
/// N`; `max-reserved-bandwidth P`; `access-list` entries with `host`, wildcards, `eq` and
/// `range` (Security Command Reference, `access-list (IP extended)`); `encapsulation ppp`,
/// `ppp multilink`, `ppp multilink fragment delay MS`, `ppp multilink interleave` (Dial
/// Technologies Command Reference, multilink PPP link fragmentation and interleaving).
#[test]
fn golden_every_class_setting() {
    assert_eq!(case_text(LLQ, "lfi: {fragment_delay: 10ms}"), GOLDEN_EVERY_CLASS_SETTING);
}

const GOLDEN_EVERY_CLASS_SETTING: &str = r#"! interfaces.r.b of scenario `export-case`: r's interface to b, a 256 kbit/s link
!
access-list 101 permit udp any any range 16384 32767
access-list 102 permit udp any any eq 5004
access-list 103 permit tcp 10.1.2.0 0.0.0.255 any eq 80
access-list 103 permit tcp 10.1.2.0 0.0.0.255 any eq 443
access-list 103 permit tcp host 10.1.1.1 any eq 80
access-list 103 permit tcp host 10.1.1.1 any eq 443
access-list 104 permit icmp any any
access-list 105 permit udp any any
access-list 106 permit ip any 10.9.0.0 0.0.255.255
!
class-map match-all voice
 match ip dscp ef
 match access-group 101
class-map match-any video
 match ip dscp af41
 match access-group 102
class-map match-all web
 match access-group 103
class-map match-all ftp
 match ip dscp af11 af12 af13
 match not access-group 104
class-map match-all scavenger
 match ip precedence 1
 match access-group 105
 match not access-group 106
!
policy-map P
 class voice
  priority 64 3000
 class video
  priority percent 10
  police cir 64000 bc 2000 conform-action transmit exceed-action drop
 class web
  bandwidth 64
  queue-limit 20
  random-detect dscp-based
  random-detect exponential-weighting-constant 5
  random-detect ecn
  random-detect dscp af21 5 15 4
  random-detect dscp af22 5 15 4
 class ftp
  bandwidth 48
  police cir 96000 bc 3000 be 3000 conform-action transmit exceed-action set-dscp-transmit af13 violate-action drop
  set ip precedence 1
 class scavenger
  bandwidth 16
  random-detect
  random-detect precedence 1 4 12
  random-detect precedence 2 4 12
  shape peak 32000 8000 4000
 class class-default
  queue-limit 16
  fair-queue 64
!
interface Serial0/0/0
 encapsulation ppp
 bandwidth 256
 tx-ring-limit 1
 max-reserved-bandwidth 90
 service-policy output P
 ppp multilink
 ppp multilink fragment delay 10
 ppp multilink interleave
!
end
"#;

/// Priority and custom queuing ([`PRIO`], [`CUSTOM`]). Sources (Cisco IOS Quality of
/// Service Solutions Command Reference): `priority-list N protocol ip QUEUE list ACL`,
/// `priority-list N default QUEUE`, `priority-list N queue-limit H M N L`, `priority-group
/// N`; `queue-list N protocol ip Q list ACL`, `queue-list N queue Q limit L`, `queue-list N
/// queue Q byte-count B`, `queue-list N default Q`, `queue-list N lowest-custom Q`,
/// `custom-queue-list N`. Access-list entries with `deny` before `permit`, `precedence`
/// and `dscp` (Security Command Reference, `access-list (IP extended)`).
#[test]
fn golden_priority_and_custom_lists() {
    assert_eq!(case_text(PRIO, "tx_ring: 3"), GOLDEN_PRIORITY_LIST);
    assert_eq!(case_text(CUSTOM, "lfi: {interleave: false}"), GOLDEN_QUEUE_LIST);
}

const GOLDEN_PRIORITY_LIST: &str = r#"! interfaces.r.b of scenario `export-case`: r's interface to b, a 256 kbit/s link
!
access-list 101 permit ip any any dscp ef
access-list 102 permit udp host 10.1.1.1 any range 5000 5010
access-list 103 deny ip any any dscp af11
access-list 103 permit tcp any any eq 80
access-list 103 permit tcp any any eq 21
access-list 103 permit udp any any eq 80
access-list 103 permit udp any any eq 21
access-list 104 permit ip any any precedence 0
access-list 104 permit ip any any precedence 1
access-list 104 permit ip any any precedence 2
access-list 104 permit ip any any precedence 3
access-list 104 permit ip any any precedence 4
access-list 104 permit ip any any precedence 5
!
priority-list 1 protocol ip high list 101
priority-list 1 protocol ip medium list 102
priority-list 1 protocol ip normal list 103
priority-list 1 protocol ip medium list 104
priority-list 1 default low
priority-list 1 queue-limit 10 30 40 100
!
interface Serial0/0/0
 encapsulation ppp
 bandwidth 256
 tx-ring-limit 3
 priority-group 1
!
end
"#;

const GOLDEN_QUEUE_LIST: &str = r#"! interfaces.r.b of scenario `export-case`: r's interface to b, a 256 kbit/s link
!
access-list 101 permit ip any any dscp ef
access-list 102 permit tcp any any eq 80
access-list 103 permit ip any any precedence 1
!
queue-list 1 protocol ip 1 list 101
queue-list 1 protocol ip 5 list 102
queue-list 1 protocol ip 16 list 103
queue-list 1 queue 0 limit 5
queue-list 1 queue 1 limit 30
queue-list 1 queue 1 byte-count 3000
queue-list 1 queue 2 limit 20
queue-list 1 queue 2 byte-count 1500
queue-list 1 queue 5 limit 20
queue-list 1 queue 16 limit 8
queue-list 1 default 2
queue-list 1 lowest-custom 2
!
interface Serial0/0/0
 encapsulation ppp
 bandwidth 256
 tx-ring-limit 1
 custom-queue-list 1
 ppp multilink
 ppp multilink fragment delay 30
!
end
"#;

/// Hierarchical shaping three levels deep ([`NESTED`]) and an input policy ([`INPUT`]):
/// `shape average BPS BC_BITS BE_BITS`, `shape peak percent P` and `service-policy NAME` in
/// a class-default (Cisco IOS Quality of Service Solutions Command Reference, `shape`,
/// `service-policy`; three levels of policy maps, Cisco 10000 Series Router Quality of
/// Service Configuration Guide, "Defining QoS for Multiple Policy Levels"); an input
/// policy's class without actions, `set ip dscp`, `police cir percent P` and
/// `service-policy input NAME` (QoS Solutions Command Reference). The input class `web`
/// matches otherwise than the output class `web`, so its class map is `web-in`.
#[test]
fn golden_hierarchical_shaping_and_input() {
    assert_eq!(case_text(NESTED, INPUT), GOLDEN_HIERARCHY_AND_INPUT);
}

const GOLDEN_HIERARCHY_AND_INPUT: &str = r#"! interfaces.r.b of scenario `export-case`: r's interface to b, a 256 kbit/s link
!
access-list 101 permit tcp any any
!
class-map match-all voice
 match ip dscp ef
class-map match-all web
 match ip dscp af21
class-map match-all trusted
 match ip dscp ef af41
class-map match-all web-in
 match access-group 101
class-map match-all class2
 match any
!
policy-map P-child-child
 class voice
  priority percent 30
 class web
  bandwidth percent 20
  queue-limit 10
 class class-default
  random-detect
policy-map P-child
 class class-default
  shape peak percent 80
  service-policy P-child-child
policy-map P
 class class-default
  shape average 200000 8000 12000
  service-policy P-child
policy-map r-from-b
 class trusted
 class web-in
  set ip dscp af21
 class class2
  police cir percent 10 conform-action transmit exceed-action drop
!
interface Serial0/0/0
 encapsulation ppp
 bandwidth 256
 tx-ring-limit 1
 service-policy output P
 service-policy input r-from-b
!
end
"#;

/// What IOS cannot express, or qoslab would not read back as written, is refused: each
/// row's scenario (the case above with `policy` and `settings`, its link changed by
/// `link`) is refused at the key path given, on the line of the text `marker` (the first
/// line holding it), with the message's fragment, and the message says what to write
/// instead.
#[test]
fn what_ios_cannot_express_is_refused_at_its_key() {
    const P: &str = "policies.P";
    // (policy, settings, link change (from, to), key path, marker, fragment)
    type Row =
        (&'static str, &'static str, (&'static str, &'static str), &'static str, &'static str, &'static str);
    let rows: &[Row] = &[
        ("{kind: fq_codel}", "tx_ring: 2", ("", ""), "policies.P.kind", "P: {kind", "`fq_codel` is Linux's FQ-CoDel; IOS has no command for it"),
        ("{kind: drr, classes: [{name: bronze, quantum: 1000B}]}", "tx_ring: 2", ("", ""), "policies.P.kind", "P: {kind", "deficit round robin"),
        ("{kind: tbf, rate: 128kbps}", "tx_ring: 2", ("", ""), P, "P: {kind", "a `tbf` without `child` queues in a FIFO of its own"),
        ("{kind: tbf, rate: 128kbps, child: {kind: fifo}}", "tx_ring: 2", ("", ""), "policies.P.child.kind", "P: {kind", "a `fifo` policy under a shaper cannot be an IOS policy map"),
        ("{kind: tbf, rate: 200kbps, child: {kind: tbf, rate: 90%, child: {kind: tbf, rate: 90%, child: {kind: cbwfq, classes: []}}}}", "tx_ring: 2", ("", ""), "policies.P.child.child.child", "P: {kind", "level 4 of nested policy maps; IOS nests 3"),
        ("{kind: tbf, rate: 200kbps, child: {kind: cbwfq, max_reserved: 80%, classes: []}}", "tx_ring: 2", ("", ""), "policies.P.child.max_reserved", "P: {kind", "an interface command"),
        ("{kind: wfq, cdt_policy: highest-sn}", "tx_ring: 2", ("", ""), "policies.P.cdt_policy", "P: {kind", "IOS has no command to choose it"),
        ("{kind: custom, carry_over: true}", "tx_ring: 2", ("", ""), "policies.P.carry_over", "P: {kind", "has no command"),
        ("{kind: prio, bands: [{name: premium}, {name: other}]}", "tx_ring: 2", ("", ""), "policies.P.bands", "P: {kind", "four queues, high, medium, normal and low"),
        ("{kind: fifo, limit: 64kB}", "tx_ring: 2", ("", ""), "policies.P.limit", "P: {kind", "IOS gives a hold queue in packets"),
        ("{kind: fifo, random_detect: {}}", "tx_ring: 2", ("", ""), "policies.P.random_detect", "P: {kind", "interface `random-detect`"),
        ("{kind: cbwfq, weight_constant: 32, classes: []}", "tx_ring: 2", ("", ""), "policies.P.weight_constant", "P: {kind", "not a command"),
        ("{kind: cbwfq, classes: [{name: sip, match: {dst_port: 5060}, bandwidth: 64kbps}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].match", "P: {kind", "ports only for TCP and UDP, and this match gives port 5060"),
        ("{kind: cbwfq, classes: [{name: small, match: {length: {max: 200B}}, bandwidth: 64kbps}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].match.length", "P: {kind", "`match packet length`"),
        ("{kind: cbwfq, classes: [{name: odd, match: {protocol: udp, any: [{dscp: 1, not: {dst: 10.0.0.0/8}}, {dscp: 3, not: {src: 10.0.0.0/8}}]}, bandwidth: 64kbps}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].match", "P: {kind", "no order of access-list entries can say"),
        ("{kind: cbwfq, classes: [{name: voice calls, match: {dscp: EF}, priority: 64kbps}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].name", "P: {kind", "class `voice calls` cannot be an IOS name"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: EF}, bandwidth: 64kbps}, {name: b, match: {dscp: AF41}, bandwidth: 10%}]}", "tx_ring: 2", ("", ""), "policies.P.classes[1].bandwidth", "P: {kind", "IOS refuses a policy map that mixes them"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: EF}, priority: 63500bps}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].priority", "P: {kind", "takes whole kbit/s from 8"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: EF}, bandwidth: 12.5%}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].bandwidth", "P: {kind", "12.5 %: IOS's `bandwidth percent` takes a whole percentage"),
        ("{kind: cbwfq, scheduler: xe, classes: [{name: a, match: {dscp: AF11}, bandwidth: 64kbps, queue_limit: 1500500ns}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].queue_limit", "P: {kind", "not a whole number of microseconds"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: EF}, bandwidth: 64kbps, shape: {rate: 128kbps, mode: continuous}}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].shape.mode", "P: {kind", "IOS shapes by intervals"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: EF}, bandwidth: 64kbps, shape: {rate: 50%, bc: 1000B}}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].shape.bc", "P: {kind", "in milliseconds"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: AF11}, bandwidth: 64kbps, police: {cir: 64kbps, color_aware: true}}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].police.color_aware", "P: {kind", "colour-aware policing"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: AF11}, bandwidth: 64kbps, police: {cir: 10%, bc: 2000B}}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].police.bc", "P: {kind", "in milliseconds or as a percentage"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: AF11}, bandwidth: 64kbps, police: {cir: 64kbps, bc: 500B}}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].police.bc", "P: {kind", "500 B is outside the 1000 to 512000000 bytes"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: AF11}, bandwidth: 64kbps, police: {cir: 64kbps, pir: 50%}}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].police.pir", "P: {kind", "`pir` back in bit/s only"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: AF11}, bandwidth: 64kbps, random_detect: {gentle: true}}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].random_detect.gentle", "P: {kind", "gentle RED has no IOS command"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: AF11}, bandwidth: 64kbps, random_detect: {based_on: drop_precedence}}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].random_detect.based_on", "P: {kind", "by precedence or DSCP"),
        ("{kind: cbwfq, classes: [{name: a, match: {dscp: AF11}, bandwidth: 64kbps, random_detect: {profiles: [{precedence: 1, min: 10, max: 5000}]}}]}", "tx_ring: 2", ("", ""), "policies.P.classes[0].random_detect.profiles[0].max", "P: {kind", "5000 packets is outside the 1 to 4096"),
        ("{kind: fifo}", "changes: [{at: 5s, output: {kind: wfq}}]", ("", ""), "interfaces.r.b.changes", "changes:", "`changes` replace it during the run"),
        ("{kind: fifo}", "lfi: {sequence: short}", ("", ""), "interfaces.r.b.lfi.sequence", "lfi:", "short sequence format"),
        ("{kind: fifo}", "lfi: {fragment_delay: 2500us}", ("", ""), "interfaces.r.b.lfi.fragment_delay", "lfi:", "whole milliseconds from 1 to 1000"),
        ("{kind: fifo}", "lfi: {fragment_delay: 10ms}", ("l2: ppp", "l2: hdlc"), "interfaces.r.b.lfi", "lfi:", "with multilink PPP"),
        ("{kind: fifo}", "tx_ring: 40000", ("", ""), "interfaces.r.b.tx_ring", "tx_ring: 40000", "outside IOS's range"),
        ("{kind: fifo}", "hold_queue: 300000", ("", ""), "interfaces.r.b.hold_queue", "hold_queue:", "a hold queue of 300000 packets"),
        ("{kind: fifo}", "bandwidth: 38400bps", ("", ""), "interfaces.r.b.bandwidth", "bandwidth: 38400bps", "the QoS bandwidth is 38400 bit/s"),
        ("{kind: fifo}", "tx_ring: 2", ("rate: 256kbps", "rate: 38400bps"), "topology.links[2].rate", "rate: 38400bps", "the link's rate, the QoS bandwidth here, is 38400 bit/s"),
        ("{kind: fifo}", "tx_ring: 2", ("tx_ring: 1}", "tx_ring: 1, rate_changes: [{at: 5s, rate: 128kbps}]}"), "topology.links[2].rate_changes", "rate_changes", "follows the link's rate changes"),
        ("{kind: fifo}", "input: {classes: [{name: class-default, match: {}}, {name: x, match: {dscp: EF}}]}", ("", ""), "interfaces.r.b.input.classes[0].name", "input:", "the last class"),
        ("{kind: fifo}", "input: {classes: [{name: rtp, match: {dst_port: \"16384-32767\"}, set: {dscp: EF}}]}", ("", ""), "interfaces.r.b.input.classes[0].match", "input:", "port 16384-32767 without `protocol: tcp` or `udp`"),
    ];
    for (policy, settings, (from, to), key_path, marker, fragment) in rows {
        let text = case(policy, settings).replacen(from, to, usize::from(!from.is_empty()));
        let error = export(&text, "case.yaml", "r.b", None).expect_err(key_path);
        let shown = error.to_string();
        assert_eq!(error.key_path, *key_path, "{shown}");
        let line = text.lines().position(|l| l.contains(marker)).unwrap() + 1;
        assert_eq!(error.position.map(|p| p.line), Some(line), "{shown}");
        assert!(shown.contains(fragment), "`{fragment}` not in: {shown}");
        assert!(error.hint.is_some(), "no advice: {shown}");
    }
}

/// A name that is no interface, a link that does not exist, an IOS name of no known type,
/// and an interface LFI cannot run on are refused with what to write; the examples' Linux
/// and ALTQ disciplines and Cisco 12000 MDRR at their policy's `kind`.
#[test]
fn interfaces_names_and_disciplines_refused() {
    let text = case("{kind: fifo}", "lfi: {fragment_delay: 10ms}");
    let refused = |interface: &str, name: Option<&str>| {
        export(&text, "case.yaml", interface, name).unwrap_err().to_string()
    };
    assert_eq!(
        refused("r", None),
        "case.yaml: `r` does not name an interface. Write NODE.PEER, the egress of NODE towards its neighbour PEER (e.g. r1.r2)"
    );
    assert!(refused("r.x", None).starts_with("case.yaml: interfaces.r.x: no link joins `r` and `x`. Name one of the scenario's interfaces: a.r, r.a, c.r, r.c, r.b, b.r"));
    assert!(refused("r.b", Some("Foo0")).contains("--name: `Foo0` is not an IOS interface name qoslab knows"));
    assert!(refused("r.b", Some("GigabitEthernet0/1")).contains("interfaces.r.b.lfi: IOS fragments and interleaves with multilink PPP, on a serial or multilink interface"));
    for (example, interface, key_path, fragment) in [
        (
            "htb-borrowing.yaml",
            "tx.rx",
            "policies.htb.kind",
            "`htb` is Linux's hierarchical token bucket; IOS has no command for it",
        ),
        ("diffserv-af-cbq.yaml", "edge.core", "policies.af.kind", "`cbq` is ALTQ's class-based queuing"),
        (
            "janet-gsr-mdrr.yaml",
            "gsr.core",
            "policies.cos-queue-group.kind",
            "`mdrr` is a Cisco 12000 `cos-queue-group`, which the export does not write",
        ),
    ] {
        let path = format!("{}/{example}", examples_dir());
        let error = export(&std::fs::read_to_string(&path).unwrap(), &path, interface, None).unwrap_err();
        assert_eq!(error.key_path, key_path);
        assert!(error.to_string().contains(fragment), "{error}");
    }
    // A scenario a run refuses is refused with the run's message.
    let broken = text.replace("rate: 256kbps", "rate: 0kbps");
    assert!(export(&broken, "case.yaml", "r.b", None)
        .unwrap_err()
        .to_string()
        .contains("a link rate must be above zero"));
}
