//! Cisco IOS configuration import: the studies' configurations parse and resolve to the
//! policies they mean.

use crate::common::json_without_identity;
use qoslab_core::ios::{interface_settings, parse, Severity};
use serde_json::json;

fn config(name: &str) -> String {
    let path = format!("{}/../../tests/ios/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The congestion-management lab's six configurations: no errors, no warnings, and each
/// interface resolves to its scheme. Its serial interface has no `bandwidth`, so the QoS
/// bandwidth is IOS's 1544 kbit/s for a serial interface.
#[test]
fn the_congestion_lab_configurations() {
    let acl = |port: u16, protocol: &str| json!({"protocol": protocol, "src": "172.16.10.0/24", "dst": "172.16.20.0/24", "dst_port": [port]});
    let (ftp, video, voice) = (acl(21, "tcp"), acl(1720, "tcp"), acl(5060, "udp"));
    for (file, kind) in [
        ("congestion-lab-fifo.txt", "fifo"),
        ("congestion-lab-pq.txt", "prio"),
        ("congestion-lab-cq.txt", "custom"),
        ("congestion-lab-wfq.txt", "wfq"),
        ("congestion-lab-cbwfq.txt", "cbwfq"),
        ("congestion-lab-llq.txt", "cbwfq"),
    ] {
        let parsed = parse(&config(file));
        assert!(parsed.diagnostics.is_empty(), "{file}: {:?}", parsed.diagnostics);
        let settings = interface_settings(&parsed, "Serial0/1/1").unwrap();
        assert_eq!(settings.output["kind"], kind, "{file}");
        assert_eq!(settings.bandwidth_bps, Some(1_544_000), "{file}");
    }
    let llq = interface_settings(&parse(&config("congestion-lab-llq.txt")), "s0/1/1").unwrap();
    assert_eq!(
        llq.output,
        json!({"kind": "cbwfq", "classes": [
            {"name": "VOICE", "match": voice, "priority": "384kbps"},
            {"name": "VIDEO", "match": video, "bandwidth": "30%"},
            {"name": "FTP", "match": ftp, "bandwidth": "10%"},
            {"name": "class-default", "bandwidth": "5%"},
        ]})
    );
    assert_eq!(
        llq.output_from,
        "service-policy output R1-Serial (the `pre-hqf` scheduler: no `version` line)"
    );
    let pq = interface_settings(&parse(&config("congestion-lab-pq.txt")), "s0/1/1").unwrap();
    assert_eq!(pq.output["default"], "low");
    assert_eq!(pq.output["bands"][0], json!({"name": "high", "limit": 20}));
    assert_eq!(pq.output["classify"][0], json!({"match": voice, "band": "high"}));
    let cq = interface_settings(&parse(&config("congestion-lab-cq.txt")), "s0/1/1").unwrap();
    assert_eq!(cq.output["queues"]["2"], json!({"limit": 10}));
    assert_eq!(cq.output["default_queue"], 1);
}

/// IOS's default queuing: WFQ on a serial interface of 2.048 Mbit/s or less, FIFO on a
/// faster one or on Ethernet.
#[test]
fn default_queuing_follows_the_bandwidth() {
    let parsed = parse(
        "interface Serial0\n bandwidth 2048\ninterface Serial1\n bandwidth 4096\ninterface FastEthernet0/0\n",
    );
    assert_eq!(interface_settings(&parsed, "s0").unwrap().output["kind"], "wfq");
    assert_eq!(interface_settings(&parsed, "s1").unwrap().output["kind"], "fifo");
    // The output hold queue sizes FIFO and WFQ; IOS refuses it with priority queuing.
    let held = parse("priority-list 1 default low\ninterface s0\n hold-queue 75 out\ninterface s1\n hold-queue 75 out\n priority-group 1\n");
    assert_eq!(interface_settings(&held, "s0").unwrap().hold_queue, Some(75));
    let refused = interface_settings(&held, "s1").unwrap_err();
    assert_eq!((refused.line, refused.column), (5, 2));
    let fa = interface_settings(&parsed, "fa0/0").unwrap();
    assert_eq!((fa.output["kind"].as_str(), fa.bandwidth_bps), (Some("fifo"), None));
}

/// Lines qoslab does not model are warnings with their line; a misspelt keyword in a
/// policy is an error with a suggestion; IOS's own refusals are errors.
#[test]
fn warnings_and_errors_name_their_line_and_column() {
    let parsed = parse(
        "hostname R1\npolicy-map P\n class class-default\n  phonty percent 5\n  bandwidth percent 130\ninterface s0\n ip address 10.0.0.1 255.255.255.0\n",
    );
    let found: Vec<(Severity, usize, usize, &str)> =
        parsed.diagnostics.iter().map(|d| (d.severity, d.line, d.column, d.message.as_str())).collect();
    assert_eq!(found[0].0, Severity::Warning);
    assert_eq!((found[0].1, found[0].2), (1, 1));
    assert_eq!((found[1].0, found[1].1, found[1].2), (Severity::Error, 4, 3));
    assert_eq!(parsed.diagnostics[1].hint.as_deref(), Some("did you mean `priority`?"));
    assert_eq!((found[2].0, found[2].1, found[2].2), (Severity::Error, 5, 21));
    assert!(found[2].3.contains("130 %"), "{}", found[2].3);
    assert_eq!((found[3].0, found[3].1, found[3].2), (Severity::Warning, 7, 2));
    assert_eq!(found.len(), 4);
    let zero = parse("interface s0\n tx-ring-limit 0\n hold-queue 0 out\n");
    let lines: Vec<(usize, usize)> = zero.diagnostics.iter().map(|d| (d.line, d.column)).collect();
    assert_eq!(lines, [(2, 16), (3, 13)]);
    assert!(zero.has_errors());
}

/// Unindented and indented text read the same; `exit` and abbreviations are IOS's.
#[test]
fn indentation_does_not_matter() {
    let flat = parse("class-map match-any V\nmatch ip dscp ef\nmatch ip precedence 5\npolicy-map P\nclass V\nprio 100\nint ser0\nservice-policy output P\n");
    let indented = parse("class-map match-any V\n match ip dscp ef\n match ip precedence 5\n!\npolicy-map P\n class V\n  priority 100\n!\ninterface Serial0\n service-policy output P\n");
    let a = interface_settings(&flat, "Serial0").unwrap();
    let b = interface_settings(&indented, "s0").unwrap();
    assert_eq!(a, qoslab_core::ios::InterfaceSettings { places: a.places.clone(), ..b });
    assert_eq!(a.output["classes"][0]["match"], json!({"any": [{"dscp": [46]}, {"precedence": [5]}]}));
}

/// The congestion lab's scenario with each scheme written in YAML and the same scheme taken
/// from the study's IOS text: byte-identical results.
#[test]
fn an_imported_policy_runs_exactly_as_its_yaml_twin() {
    let path = format!("{}/../../examples/congestion-lab.yaml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let written = "    r2: {output: fifo}";
    assert!(text.contains(written));
    let run = |text: &str| {
        let short = qoslab_core::Override::parse("run.duration=20s").unwrap();
        let sim = qoslab_core::load(text, &path, &[short], None).unwrap_or_else(|e| panic!("{e}"));
        json_without_identity(&sim.finish().unwrap())
    };
    for scheme in ["fifo", "pq", "cq", "wfq", "cbwfq", "llq"] {
        let yaml = run(&text.replace(written, &format!("    r2: {{output: {scheme}}}")));
        let ios = format!(
            "    r2: {{ios: {{config: ../tests/ios/congestion-lab-{scheme}.txt, interface: s0/1/1}}}}"
        );
        assert_eq!(run(&text.replace(written, &ios)), yaml, "{scheme}");
    }
}

/// Mistakes in the configuration are errors at the interface's `ios` key, naming the
/// configuration's line and column.
#[test]
fn configuration_errors_reach_the_scenario() {
    let scenario = |ios: &str| {
        format!(
            "name: t
run: {{duration: 1s}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 128kbps}}]
interfaces:
  a: {{b: {{ios: {ios}}}}}
traffic: []
"
        )
    };
    let error = |ios: &str| qoslab_core::load(&scenario(ios), "t.yaml", &[], None).err().unwrap().to_string();
    let damaged = error("{config: \"policy-map P\\n class class-default\\n  phonty percent 5\\ninterface s0\\n service-policy output P\\n\", interface: s0}");
    assert!(
        damaged.contains("interfaces.a.b.ios.config")
            && damaged.contains("line 3, column 3: unknown command `phonty`")
            && damaged.contains("id you mean `priority`"),
        "{damaged}"
    );
    let missing = error("{config: \"interface s0\\n service-policy output Q\\n\", interface: s0}");
    assert!(missing.contains("line 2, column 24: policy map `Q` is not configured"), "{missing}");
    let wrong = error("{config: \"interface s0\\n fair-queue\\n\", interface: s1}");
    assert!(wrong.contains("interfaces.a.b.ios.interface") && wrong.contains("it has: Serial0"), "{wrong}");
    let clock = error("{config: \"interface s0\\n clock rate 64000\\n\", interface: s0}");
    assert!(
        clock.contains("the configuration clocks s0 at 64 kbit/s, but the link runs at 128 kbit/s"),
        "{clock}"
    );
    let both = error("{config: \"interface s0\\n\", interface: s0}, output: {kind: fifo}");
    assert!(both.contains("interfaces.a.b.output"), "{both}");
}

/// `then` enters commands after the configuration's, from global configuration mode: a
/// fragment delay given there replaces the file's, and the run is the one of a
/// configuration that said it in the first place (byte-identical results); an interface
/// the commands do not touch is as without them. A mistake in them is placed at `then`,
/// with its line in `then`.
#[test]
fn commands_entered_after_the_configuration() {
    let scenario = |ios: &str| {
        format!(
            "name: t
run: {{duration: 5s, seed: 1}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 256kbps, l2: ppp}}]
interfaces:
  a: {{b: {{ios: {ios}}}}}
traffic:
  - {{name: voice, from: a, to: b, dscp: EF, pattern: {{kind: codec, codec: g729}}}}
  - {{name: data, from: a, to: b, pattern: {{kind: cbr, rate: 300kbps, size: 1500B}}}}
"
        )
    };
    let file = |delay: u32| {
        format!(
            "class-map match-any V\\n match ip dscp ef\\npolicy-map P\\n class V\\n  priority 64\\n\
             interface Multilink1\\n bandwidth 256\\n ppp multilink fragment delay {delay}\\n \
             ppp multilink interleave\\n service-policy output P\\ninterface Serial0\\n bandwidth 256\\n \
             service-policy output P\\n"
        )
    };
    let run = |ios: &str| {
        let sim = qoslab_core::load(&scenario(ios), "t.yaml", &[], None).unwrap_or_else(|e| panic!("{e}"));
        json_without_identity(&sim.finish().unwrap())
    };
    let twenty = "then: \"interface Multilink1\\n ppp multilink fragment delay 20\"";
    let told = run(&format!("{{config: \"{}\", interface: Multilink1}}", file(20)));
    let replaced = run(&format!("{{config: \"{}\", interface: Multilink1, {twenty}}}", file(5)));
    let five = run(&format!("{{config: \"{}\", interface: Multilink1}}", file(5)));
    assert_eq!(replaced, told);
    assert_ne!(replaced, five, "the fragment delay makes a difference here");
    let serial = |then: &str| run(&format!("{{config: \"{}\", interface: Serial0{then}}}", file(5)));
    assert_eq!(serial(&format!(", {twenty}")), serial(""));
    let error = qoslab_core::load(
        &scenario(&format!(
            "{{config: \"{}\", interface: Multilink1, then: \"interface Multilink1\\n ppp multilink fragment delay 0\"}}",
            file(5)
        )),
        "t.yaml",
        &[],
        None,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(error.contains("interfaces.a.b.ios.then") && error.contains("line 2, column"), "{error}");
}

/// `qoslab ios explain` on the congestion lab's LLQ configuration: IOS's rates from the
/// serial interface's default 1544 kbit/s bandwidth, its admission verdict, and the warning
/// that the reservations exceed the 128 kbit/s clock.
#[test]
fn explaining_the_congestion_lab_llq() {
    let text = qoslab_core::ios::explain(&parse(&config("congestion-lab-llq.txt")), "s0/1/1", Some(128_000))
        .unwrap();
    for expected in [
        "Serial0/1/1: service-policy output R1-Serial",
        "QoS bandwidth 1.544 Mbit/s (IOS's default for a serial interface without `bandwidth`",
        "physical rate 128 kbit/s",
        "class VOICE: priority 384kbps = 384 kbit/s",
        "class VIDEO: bandwidth 30% = 463.2 kbit/s",
        "class FTP: bandwidth 10% = 154.4 kbit/s",
        "class class-default: bandwidth 5% = 77.2 kbit/s",
        "match {dst: 172.16.20.0/24, dst_port: [5060], protocol: udp, src: 172.16.10.0/24}",
        "reserved 1078.8 kbit/s of the 1158 kbit/s IOS allows (75 % of 1.544 Mbit/s): IOS accepts the policy",
        "warning: the reservations (1078.8 kbit/s) exceed the physical rate (128 kbit/s)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
}

/// The results of scenario `text` (read as if from `path`) run for `duration`, without
/// what identifies the run.
fn run_for(text: &str, path: &str, duration: &str) -> String {
    let short = qoslab_core::Override::parse(&format!("run.duration={duration}")).unwrap();
    qoslab_core::load(text, path, &[short], None)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .finish()
        .map(|results| json_without_identity(&results))
        .unwrap()
}

/// `qoslab ios to-yaml` writes YAML that a scenario reads back to the same interface.
#[test]
fn to_yaml_round_trips() {
    let path = format!("{}/../../examples/congestion-lab.yaml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let run = |text: &str| run_for(text, &path, "10s");
    for scheme in ["pq", "cq", "llq"] {
        let settings =
            interface_settings(&parse(&config(&format!("congestion-lab-{scheme}.txt"))), "s0/1/1").unwrap();
        let yaml = qoslab_core::ios::to_yaml(&settings);
        let indented: String = yaml.lines().map(|l| format!("      {l}\n")).collect();
        // The link already sets the 1544 kbit/s bandwidth; the interface's own is the same.
        let from_yaml = text.replace("    r2: {output: fifo}\n", &format!("    r2:\n{indented}"));
        let from_ios = text.replace(
            "    r2: {output: fifo}",
            &format!(
                "    r2: {{ios: {{config: ../tests/ios/congestion-lab-{scheme}.txt, interface: s0/1/1}}}}"
            ),
        );
        assert_eq!(run(&from_yaml), run(&from_ios), "{scheme}:\n{yaml}");
    }
}

/// `to-yaml` of three levels writes each class with a child policy as a block, and the
/// hub of examples/hub-sites.yaml runs the same from that YAML as from its IOS text.
#[test]
fn to_yaml_writes_three_levels_as_blocks_that_run_the_same() {
    let path = format!("{}/../../examples/hub-sites.yaml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    // The variant rewrites the `ios` key the YAML replaces.
    let text = text.split("\nvariants:").next().unwrap().to_owned();
    let ios = config("../../examples/ios/hub-sites-c8500.txt");
    let yaml = qoslab_core::ios::to_yaml(&interface_settings(&parse(&ios), "Gi0/0/1").unwrap());
    let lines: Vec<&str> = yaml.lines().collect();
    assert!(lines.contains(&"      - name: SITE-A"), "{yaml}");
    assert!(lines.contains(&"        child:"), "{yaml}");
    assert!(lines.iter().all(|l| l.len() < 200), "{yaml}");
    let run = |text: &str| run_for(text, &path, "5s");
    let indented: String = yaml.lines().map(|l| format!("      {l}\n")).collect();
    let written = "    provider: {ios: {config: ios/hub-sites-c8500.txt, interface: Gi0/0/1}}\n";
    assert!(text.contains(written));
    let from_yaml = text.replace(written, &format!("    provider:\n{indented}"));
    assert_eq!(run(&from_yaml), run(&text), "{yaml}");
}

/// The other studies' published configurations: the LMR thesis's routers (priority list,
/// WFQ, route-map marking of the voice to precedence critical), the JANET access router's
/// MQC policy, a JANET BAR's policing and its Cisco 12000 cos-queue-group.
#[test]
fn the_other_studies_configurations() {
    let one = parse(&config("../../examples/ios/lmr-router-one.txt"));
    assert!(one.diagnostics.iter().all(|d| d.severity == Severity::Warning));
    assert_eq!(
        one.diagnostics.len(),
        10,
        "hostname, enable, 3 ip address, ip classless, 3 ip route, no cdp run"
    );
    assert_eq!(interface_settings(&one, "Serial0").unwrap().output, json!({"kind": "fifo"}));

    let pq = interface_settings(&parse(&config("lmr-thesis-pq.txt")), "Serial0").unwrap();
    assert_eq!(pq.clock_rate_bps, Some(38_400));
    assert_eq!(pq.output["classify"][1]["band"], "high");
    assert_eq!(
        pq.output["classify"][1]["match"],
        json!({"any": [{"protocol": "udp", "dst_port": [60600]}, {"protocol": "udp", "src_port": [60600]}]})
    );

    let three = parse(&config("lmr-thesis-router-three-wfq.txt"));
    assert_eq!(interface_settings(&three, "Serial0").unwrap().output, json!({"kind": "wfq"}));
    let marking = interface_settings(&three, "Ethernet0").unwrap().input.unwrap();
    assert_eq!(marking["classes"][0]["set"], json!({"precedence": 5}));

    let access = interface_settings(&parse(&config("janet-access-router.txt")), "fa0/0").unwrap();
    assert_eq!(
        access.output["classes"],
        json!([
            {"name": "premium", "match": {"precedence": [5]}, "priority": "5%"},
            {"name": "lbe", "match": {"precedence": [1]}, "bandwidth": "1%", "random_detect": {}},
            {"name": "class-default", "bandwidth": "69%", "queue_limit": 512},
        ])
    );
    assert_eq!(access.bandwidth_bps, None, "an Ethernet interface takes its physical rate");

    let bar = interface_settings(&parse(&config("janet-bar-policing.txt")), "POS0/0").unwrap();
    assert_eq!(
        bar.input.unwrap()["classes"][0]["police"],
        json!({"cir": "125000000bps", "bc": "4470B", "be": "4470B", "conform_action": "transmit", "exceed_action": "drop"})
    );

    let gsr = interface_settings(&parse(&config("janet-gsr-stm16.txt")), "POS1/0").unwrap().output;
    assert_eq!(gsr["kind"], "mdrr");
    assert_eq!(
        (gsr["queues"][0]["weight"].as_u64(), gsr["queues"][1]["weight"].as_u64()),
        (Some(99), Some(1))
    );
    assert_eq!(
        gsr["queues"][1]["random_detect"]["profiles"][0],
        json!({"precedence": [1], "min": 16, "max": 80, "denominator": 1})
    );
    assert_eq!(gsr["low_latency"], json!({"mode": "strict"}));
}

/// Every studied interface runs in a scenario straight from its configuration file.
#[test]
fn every_studied_interface_runs_in_a_scenario() {
    let dir = format!("{}/../../tests/ios", env!("CARGO_MANIFEST_DIR"));
    for (file, interface, rate) in [
        ("../../examples/ios/lmr-router-one.txt", "Serial0", "38400bps"),
        ("lmr-thesis-pq.txt", "Serial0", "38400bps"),
        ("lmr-thesis-router-three-wfq.txt", "Serial0", "38400bps"),
        ("lmr-thesis-router-three-wfq.txt", "Ethernet0", "10Mbps"),
        ("janet-access-router.txt", "FastEthernet0/0", "100Mbps"),
        ("janet-bar-policing.txt", "POS0/0", "2488Mbps"),
        ("janet-gsr-stm16.txt", "POS1/0", "2488Mbps"),
        ("adhoc-strict-priority.txt", "Serial0/0", "128kbps"),
        ("adhoc-llq-sample.txt", "Serial0/0", "128kbps"),
    ] {
        let text = format!(
            "name: t
run: {{duration: 2s, seed: 1}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: {rate}, l2: ppp}}]
interfaces:
  a: {{b: {{ios: {{config: {file}, interface: {interface}}}}}}}
traffic:
  - {{name: voice, from: a, to: b, dscp: EF, dst_port: 60600, pattern: {{kind: cbr, rate_pps: 50, size: 200B}}}}
  - {{name: load, from: a, to: b, pattern: {{kind: flood, rate: {rate}, size: 1500B}}}}
"
        );
        let origin = format!("{dir}/scenario.yaml");
        let sim = qoslab_core::load(&text, &origin, &[], None)
            .unwrap_or_else(|e| panic!("{file} {interface}: {e}"));
        let results = sim.finish().unwrap();
        assert!(results.flows[0].received_packets > 0, "{file} {interface}");
    }
}

/// The parser never panics: every studied configuration, mangled 1 000 times each by
/// deleting, duplicating, swapping and truncating words and lines (a deterministic random
/// stream), parses to findings, and every interface it names resolves or reports why.
#[test]
fn mangled_configurations_never_panic() {
    use qoslab_core::Rng;
    let dir = format!("{}/../../tests/ios", env!("CARGO_MANIFEST_DIR"));
    let mut rng = Rng::from_seed_words(7, 7);
    let vocabulary =
        ["priority", "percent", "class", "exit", "0", "99999999999", "-1", "any", "host", "!", "queue", "eq"];
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for _ in 0..1000 {
            let mut lines: Vec<Vec<String>> =
                text.lines().map(|l| l.split(' ').map(str::to_owned).collect()).collect();
            for _ in 0..rng.uniform_u64(1, 6) {
                let i = rng.uniform_u64(0, lines.len() as u64 - 1) as usize;
                match rng.uniform_u64(0, 5) {
                    0 => {
                        lines.remove(i);
                    }
                    1 => lines.insert(i, lines[i].clone()),
                    2 if !lines[i].is_empty() => {
                        let k = rng.uniform_u64(0, lines[i].len() as u64 - 1) as usize;
                        lines[i].remove(k);
                    }
                    3 => {
                        let word = vocabulary[rng.uniform_u64(0, vocabulary.len() as u64 - 1) as usize];
                        let k = rng.uniform_u64(0, lines[i].len() as u64) as usize;
                        lines[i].insert(k, word.to_owned());
                    }
                    4 => {
                        let j = rng.uniform_u64(0, lines.len() as u64 - 1) as usize;
                        lines.swap(i, j);
                    }
                    _ => lines[i].iter_mut().for_each(|w| w.truncate(w.len() / 2)),
                }
                if lines.is_empty() {
                    break;
                }
            }
            let mangled: String = lines.iter().map(|l| l.join(" ") + "\n").collect();
            let config = parse(&mangled);
            for interface in &config.interfaces {
                let _ = interface_settings(&config, &interface.name);
                let _ = qoslab_core::ios::explain(&config, &interface.name, Some(128_000));
            }
        }
    }
}

/// The ad-hoc report's strict-priority list and its sample LLQ policy; and the LLQ figure
/// exactly as the scan reads, whose damaged lines are errors with suggestions.
#[test]
fn the_adhoc_report_configurations() {
    let strict = interface_settings(&parse(&config("adhoc-strict-priority.txt")), "s0/0").unwrap();
    let bands: Vec<u64> = (0..4).map(|i| strict.output["bands"][i]["limit"].as_u64().unwrap()).collect();
    assert_eq!(bands, [1, 20, 60, 80]);
    assert_eq!(strict.output["classify"][4], json!({"match": {"dscp": 0}, "band": "low"}));

    // The figure's RPCnor_VIDEO class shows no settings: as in IOS before HQF its packets are
    // queued with class-default, and no class after it takes them.
    let llq = parse(&config("adhoc-llq-sample.txt"));
    assert!(llq.diagnostics.is_empty(), "{:?}", llq.diagnostics);
    let settings = interface_settings(&llq, "Serial0/0").unwrap();
    assert_eq!(settings.bandwidth_bps, Some(128_000));
    let names: Vec<&str> =
        settings.output["classes"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ALARM_OSPF", "RPCpri", "VoIP", "class-default"]);
    assert_eq!(
        settings.output["classes"][1]["random_detect"],
        json!({"based_on": "dscp", "exponential_weighting_constant": 1,
               "profiles": [{"dscp": 26, "min": 5, "max": 10, "denominator": 8}]})
    );
    // An action-less class before another excludes its packets from it.
    let ordered = parse("class-map A\n match ip dscp af11\nclass-map B\n match ip precedence 1\npolicy-map P\n class A\n class B\n  bandwidth 64\ninterface s0\n service-policy output P\n");
    let classes = interface_settings(&ordered, "s0").unwrap().output["classes"].clone();
    assert_eq!(
        classes[0]["match"],
        json!({"all": [{"precedence": [1]}, {"not": {"any": [{"dscp": [10]}]}}]})
    );
    let marked = parse("class-map A\n match ip dscp af11\npolicy-map P\n class A\n  set ip dscp 0\ninterface s0\n service-policy output P\n");
    assert!(interface_settings(&marked, "s0")
        .unwrap_err()
        .message
        .contains("has settings but no `bandwidth` or `priority`"));

    let scanned = parse(
        "policy-map FCS\nClass ALARM_OSPF\nphonty percent 5\nClass RPOPII\nrandom dotect exponential weighting constant 1\n",
    );
    let errors: Vec<(usize, &str)> = scanned
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.line, d.hint.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(errors[0], (3, "did you mean `priority`?"));
    assert_eq!(errors[1], (5, "did you mean `random-detect`?"));
}

/// Whole router configurations on topology nodes, links naming their interfaces: the LMR
/// thesis' three routers. Router TWO's Serial1 has no `no fair-queue`, so IOS's default WFQ
/// applies there; the other serial interfaces are FIFO. Mistakes are placed at the node's
/// `ios` or the link's `interfaces`.
#[test]
fn routers_configured_from_their_files() {
    let path = format!("{}/../../examples/lmr-ios.yaml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let short = qoslab_core::Override::parse("run.duration=5s").unwrap();
    let load = |text: &str| qoslab_core::load(text, &path, std::slice::from_ref(&short), None);
    let results = load(&text).unwrap_or_else(|e| panic!("{e}")).finish().unwrap();
    let kinds: Vec<(&str, &str)> =
        results.ports.iter().filter(|p| p.rate_bps == 38_400).map(|p| (p.port.as_str(), p.qdisc)).collect();
    assert_eq!(
        kinds,
        [("three->two", "fifo"), ("two->three", "wfq"), ("two->one", "fifo"), ("one->two", "fifo")]
    );
    let serial = results.ports.iter().find(|p| p.port == "three->two").unwrap();
    assert_eq!(serial.bandwidth_bps, 1_544_000);

    let error = |from: &str, to: &str| load(&text.replace(from, to)).err().unwrap().to_string();
    let wrong = error("interfaces: [Serial0, Serial1]", "interfaces: [Serial0, Serial7]");
    assert!(
        wrong.contains("topology.links[2].interfaces[1]") && wrong.contains("no interface `Serial7`"),
        "{wrong}"
    );
    let missing = error("three: {kind: router, ios: ios/lmr-router-three.txt}", "three: {kind: router}");
    assert!(
        missing.contains("topology.links[2].interfaces[0]") && missing.contains("no IOS configuration"),
        "{missing}"
    );
    let unreadable = error("ios/lmr-router-two.txt", "ios/router-2.txt");
    assert!(
        unreadable.contains("topology.nodes.two.ios") && unreadable.contains("router-2.txt` does not exist"),
        "{unreadable}"
    );
}

/// `match protocol` reads IP protocols and well-known applications by their standard ports;
/// others are errors naming what is modelled.
#[test]
fn match_protocol_subset() {
    let config = |protocol: &str| {
        parse(&format!(
            "class-map A\n match protocol {protocol}\npolicy-map P\n class A\n  bandwidth 64\ninterface s0\n service-policy output P\n"
        ))
    };
    let matched = |protocol: &str| {
        interface_settings(&config(protocol), "s0").unwrap().output["classes"][0]["match"].clone()
    };
    assert_eq!(matched("http"), json!({"protocol": "tcp", "dst_port": ["80"]}));
    assert_eq!(matched("rtp"), json!({"protocol": "udp", "dst_port": ["16384-32767"]}));
    assert_eq!(matched("udp"), json!({"protocol": "udp"}));
    let unknown = config("citrix");
    assert_eq!((unknown.diagnostics[0].line, unknown.diagnostics[0].column), (2, 17));
    assert!(unknown.diagnostics[0].hint.as_deref().unwrap().contains("http, secure-http"));
}

/// A `match protocol` class builds in a scenario (its port conditions are valid matches).
#[test]
fn match_protocol_classes_build() {
    let text = "name: t
run: {duration: 1s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 1Mbps}]
interfaces:
  a: {b: {ios: {config: \"class-map match-any W\\n match protocol http\\n match protocol rtp\\n match protocol dns\\npolicy-map P\\n class W\\n  bandwidth 64\\ninterface e0\\n service-policy output P\\n\", interface: e0}}}
traffic:
  - {name: web, from: a, to: b, protocol: tcp, dst_port: 80, pattern: {kind: cbr, rate_pps: 10, size: 500B}}
";
    let results =
        qoslab_core::load(text, "t.yaml", &[], None).unwrap_or_else(|e| panic!("{e}")).finish().unwrap();
    let class = results.classes.iter().find(|c| c.class == "W").unwrap();
    assert!(class.enqueued_packets > 0);
}

/// Malformed configurations: each gives its error at the expected line and column, with the
/// expected words in the message.
#[test]
fn malformed_configurations() {
    let cases: &[(&str, usize, usize, &str)] = &[
        ("access-list 101 permit tcp any any eq\n", 1, 38, "a port is missing"),
        ("access-list 101 permit tcp 10.0.0.0 0.255.0.255 any\n", 1, 28, "not contiguous"),
        ("access-list 5000 permit any\n", 1, 13, "not an IP access-list number"),
        ("access-list 101 allow tcp any any\n", 1, 17, "expected `permit`, `deny` or `remark`"),
        ("ip access-list extended V\n permit udp any any eq rtp\n", 2, 24, "`rtp` is not a port"),
        ("ip access-list frobbed V\n", 1, 16, "expected `standard` or `extended`"),
        ("class-map A\n match ip dscp af55\n", 2, 16, "af55"),
        ("class-map A\n match fragments\n", 2, 8, "`match fragments` is not modelled"),
        ("policy-map P\n class C\n  bandwidth percent 0\n", 3, 21, "0 % is outside 1 to 100"),
        ("policy-map P\n class C\n  priority lots\n", 3, 12, "`lots` is not a rate in kbit/s"),
        ("policy-map P\n class C\n  queue-limit\n", 3, 14, "a queue limit in packets is missing"),
        (
            "policy-map P\n class C\n  random-detect discard-class 1 2 3\n",
            3,
            17,
            "`random-detect discard-class`",
        ),
        ("policy-map P\n class C\n  shape adaptive 8000\n", 3, 9, "expected `shape average` or `shape peak`"),
        (
            "policy-map P\n class C\n  police 8000 conform-action jump\n",
            3,
            30,
            "`jump` is not a police action",
        ),
        ("policy-map P\n class C\n  exceed-action drop\n", 3, 3, "without a `police` before it"),
        ("policy-map P\n class C\n  set cos 3\n", 3, 7, "`set cos` is not modelled"),
        ("priority-list 1 protocol ip urgent\n", 1, 29, "`urgent` is not a queue"),
        ("priority-list 1 protocol ipx high\n", 1, 26, "only `protocol ip` rules are modelled"),
        ("queue-list 1 queue 17 limit 5\n", 1, 20, "queue 17 does not exist"),
        ("queue-list 1 queue 2 depth 5\n", 1, 22, "expected `limit` or `byte-count`"),
        ("interface s0\n service-policy sideways P\n", 2, 17, "expected `input` or `output`"),
        ("interface s0\n clock speed 64000\n", 2, 8, "expected `clock rate BPS`"),
        ("interface s0\n max-reserved-bandwidth 120\n", 2, 25, "120 % is outside 1 to 100"),
        ("interface FooBar0/0\n", 1, 11, "`FooBar0/0` is not an interface name"),
        ("cos-queue-group G\n precedence 9 queue 1\n", 2, 13, "precedence 9 does not exist"),
        ("cos-queue-group G\n queue low-latency sometimes\n", 2, 20, "expected `strict-priority`"),
        ("class-map A\n mtach ip dscp ef\n", 2, 2, "unknown command `mtach`"),
    ];
    for &(text, line, column, words) in cases {
        let config = parse(text);
        let error = config
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
            .unwrap_or_else(|| panic!("no error for {text:?}: {:?}", config.diagnostics));
        assert_eq!((error.line, error.column), (line, column), "{text:?}: {}", error.message);
        assert!(error.message.contains(words), "{text:?}: {}", error.message);
    }
}

/// `qoslab ios explain` on each studied configuration, against hand-written expectations
/// of its queuing, classes, rates and limits.
#[test]
fn explaining_the_studies_configurations() {
    let cases: &[(&str, &str, Option<u64>, &[&str])] = &[
        (
            "congestion-lab-pq.txt",
            "s0/1/1",
            Some(128_000),
            &[
                "Serial0/1/1: priority-group 1",
                "band high: limit 20 packets",
                "band low: limit 80 packets",
                "unmatched -> low",
            ],
        ),
        (
            "congestion-lab-cq.txt",
            "s0/1/1",
            Some(128_000),
            &[
                "Serial0/1/1: custom-queue-list 1",
                "queue 2: {limit: 10}",
                "queue 4: {limit: 4}",
                "unmatched -> queue 1",
            ],
        ),
        (
            "congestion-lab-cbwfq.txt",
            "s0/1/1",
            Some(128_000),
            &[
                "class VOICE: bandwidth 30% = 463.2 kbit/s",
                "reserved 1158 kbit/s of the 1158 kbit/s IOS allows",
                "IOS accepts the policy",
            ],
        ),
        (
            "congestion-lab-wfq.txt",
            "s0/1/1",
            Some(128_000),
            &["Serial0/1/1: fair-queue", "congestive discard threshold 64 (IOS default)"],
        ),
        (
            "congestion-lab-fifo.txt",
            "s0/1/1",
            Some(128_000),
            &["Serial0/1/1: no fair-queue", "one queue of 40 (IOS default) packets"],
        ),
        (
            "janet-access-router.txt",
            "fa0/0",
            Some(100_000_000),
            &[
                "QoS bandwidth 100 Mbit/s (the physical rate)",
                "class premium: priority 5% = 5000 kbit/s",
                "class lbe: bandwidth 1% = 1000 kbit/s; random_detect {}",
                "class class-default: bandwidth 69% = 69000 kbit/s; queue_limit 512",
                "reserved 75000 kbit/s of the 75000 kbit/s IOS allows",
            ],
        ),
        (
            "janet-gsr-stm16.txt",
            "POS1/0",
            Some(2_488_000_000),
            &[
                "queue-0: weight 99 (quantum MTU + 50176 B), limit 5461 packets",
                "queue-1: weight 1 (quantum MTU + 0 B), limit 80 packets",
                "low-latency <- {precedence: 5}",
            ],
        ),
        (
            "adhoc-strict-priority.txt",
            "Serial0/0",
            Some(128_000),
            &["band high: limit 1 packets", "band medium: limit 20 packets"],
        ),
        ("lmr-thesis-pq.txt", "Serial0", None, &["physical rate 38.4 kbit/s", "QoS bandwidth 1.544 Mbit/s"]),
        (
            "lmr-thesis-router-three-wfq.txt",
            "Ethernet0",
            Some(10_000_000),
            &["input: {classes: [{name: \"setprecedence 10\", match:", "set: {precedence: 5}"],
        ),
    ];
    for &(file, interface, rate, expected) in cases {
        let text = qoslab_core::ios::explain(&parse(&config(file)), interface, rate).unwrap();
        for line in expected {
            assert!(text.contains(line), "{file}: missing {line:?} in\n{text}");
        }
    }
}

/// `class-map type qos` and `policy-map type qos` are the plain forms; other types (such as
/// firewall `inspect` maps) are not QoS and are warnings.
#[test]
fn typed_maps() {
    let config = parse("class-map type qos match-any V\n match dscp ef\npolicy-map type qos P\n class V\n  priority 64\nclass-map type inspect match-any W\n match protocol http\ninterface s0\n service-policy output P\n");
    let settings = interface_settings(&config, "s0").unwrap();
    assert_eq!(settings.output["classes"][0]["match"], json!({"dscp": [46]}));
    let warnings: Vec<usize> = config.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(warnings, [6, 7]);
    assert!(!config.has_errors());
}

/// Words a command does not read are warnings, not silently dropped; IOS's optional
/// `packets` after a queue limit is read.
#[test]
fn unread_words_are_warnings() {
    let config = parse("access-list 101 remark voice first\npolicy-map P\n class class-default\n  queue-limit 512 packets\n  bandwidth 128 always\ninterface s0\n bandwidth 64 kbps\n");
    let found: Vec<(usize, usize, &str)> =
        config.diagnostics.iter().map(|d| (d.line, d.column, d.message.as_str())).collect();
    assert_eq!(
        found,
        [
            (5, 17, "`always` at the end of the line is not read"),
            (7, 15, "`kbps` at the end of the line is not read"),
        ]
    );
}

/// `encapsulation` is shown, with where framing really comes from.
#[test]
fn explain_shows_the_encapsulation() {
    let text = qoslab_core::ios::explain(&parse("interface s0\n encapsulation ppp\n"), "s0", None).unwrap();
    assert!(text.contains("encapsulation ppp (the link's `l2` sets the framing)"), "{text}");
}

/// A shaper over a child policy (IOS hierarchical QoS) becomes a `tbf` with the child; a
/// global command right after a class's settings leaves the class, it is not a misspelling.
#[test]
fn hierarchical_policy() {
    let config = parse("policy-map child\n class class-default\n  fair-queue\npolicy-map parent\n class class-default\n  shape average 2000000\n  service-policy child\ninterface Gi0/1\n service-policy output parent\n");
    assert!(config.diagnostics.is_empty(), "{:?}", config.diagnostics);
    let settings = interface_settings(&config, "Gi0/1").unwrap();
    assert_eq!(
        settings.output,
        json!({"kind": "tbf", "mode": "average", "rate": "2000000bps",
               "child": {"kind": "cbwfq", "classes": [{"name": "class-default", "fair_queue": true}]}})
    );
}

/// Semantic mistakes a run refuses: `check` reports each at the IOS line and column, the
/// resolution `explain` and `to-yaml` use refuses it (no YAML with a zero rate), and a
/// scenario taking the interface from the file refuses it with the file's line and column
/// after the scenario's key path.
#[test]
fn every_mistake_a_run_refuses_is_checked_at_its_line() {
    const ATTACH: &str = "interface Serial0\n service-policy output P\n";
    // (configuration, line, column, words of the message)
    let cases: Vec<(String, usize, usize, &str)> = vec![
        ("interface Serial0\n service-policy output NOPE\n".into(), 2, 24, "policy map `NOPE` is not configured"),
        (format!("policy-map P\n class GHOST\n  bandwidth 64\n{ATTACH}"), 2, 8, "class map `GHOST` is not configured"),
        (format!("class-map C\n match access-group 150\npolicy-map P\n class C\n  bandwidth 64\n{ATTACH}"), 2, 8, "access list `150` is not configured"),
        (format!("policy-map P\n class class-default\n  bandwidth 0\n{ATTACH}"), 3, 13, "0 is outside IOS's range for a bandwidth in kbit/s, 8 to 10000000"),
        (format!("policy-map P\n class class-default\n  bandwidth -64\n{ATTACH}"), 3, 13, "-64 is outside IOS's range"),
        (format!("policy-map P\n class class-default\n  bandwidth 99999999999999999999\n{ATTACH}"), 3, 13, "outside IOS's range"),
        (format!("class-map C\n match any\npolicy-map P\n class C\n  priority 0\n{ATTACH}"), 5, 12, "0 is outside IOS's range for a rate in kbit/s"),
        (format!("class-map C\n match any\npolicy-map P\n class C\n  priority percent 0\n{ATTACH}"), 5, 20, "0 % is outside 1 to 100"),
        (format!("policy-map P\n class class-default\n  bandwidth percent 150\n{ATTACH}"), 3, 21, "150 % is outside 1 to 100"),
        (format!("class-map C\n match any\npolicy-map P\n class C\n  priority 64 10\n{ATTACH}"), 5, 15, "a burst in bytes, 32 to 2000000"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  police 0\n{ATTACH}"), 4, 10, "a rate in bit/s, 8000 to 10000000000"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  police cir percent 0\n{ATTACH}"), 4, 22, "0 % is outside 1 to 100"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  shape average 0\n{ATTACH}"), 4, 17, "a rate in bit/s, 8000"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  random-detect precedence 0 40 20\n{ATTACH}"), 4, 33, "the maximum threshold 20 is below the minimum 40"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  random-detect precedence 0 10 99999\n{ATTACH}"), 4, 33, "a maximum threshold, 1 to 4096"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  random-detect exponential-weighting-constant 20\n{ATTACH}"), 4, 48, "an exponential weighting constant, 1 to 16"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  queue-limit 0\n{ATTACH}"), 4, 15, "a queue limit in packets, 1 to 32768"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  queue-limit 4294967295\n{ATTACH}"), 4, 15, "a queue limit in packets, 1 to 32768"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  queue-limit 1001 ms\n{ATTACH}"), 4, 15, "1001 is outside qoslab's range for a queue limit in ms, 1 to 1000"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  queue-limit 0 bytes\n{ATTACH}"), 4, 15, "0 is outside qoslab's range for a queue limit in bytes, 1 to 4294967295"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  queue-limit 50 s\n{ATTACH}"), 4, 18, "`s` is not a queue-limit unit"),
        (format!("policy-map P\n class class-default\n  fair-queue 100\n{ATTACH}"), 3, 14, "100 dynamic queues: IOS takes a power of two"),
        (format!("class-map A\n match dscp ef\nclass-map B\n match dscp af41\npolicy-map P\n class A\n  bandwidth percent 20\n class B\n  bandwidth remaining percent 30\n{ATTACH}"), 9, 3, "IOS refuses a policy that mixes them"),
        (format!("class-map A\n match dscp ef\nclass-map B\n match dscp af41\npolicy-map P\n class A\n  bandwidth 200\n class B\n  bandwidth percent 10\n{ATTACH}"), 9, 3, "`bandwidth percent` here, but class `A` uses `bandwidth` in kbit/s"),
        (format!("class-map A\n match dscp ef\npolicy-map P\n class A\n  priority 1000\n class class-default\n  bandwidth 500\n{ATTACH}"), 9, 24, "the classes reserve 1500 kbit/s, but only 1158 kbit/s may be reserved"),
        ("class-map A\n match dscp ef\npolicy-map P\n class A\n  bandwidth percent 40\n class class-default\n  bandwidth percent 20\ninterface Serial0\n max-reserved-bandwidth 50\n service-policy output P\n".into(), 10, 24, "only 772 kbit/s may be reserved"),
        (format!("policy-map P\n class class-default\n  priority 64\n{ATTACH}"), 3, 3, "class-default cannot be a priority class"),
        (format!("class-map C\n match any\npolicy-map P\n class C\n  priority 64\n  queue-limit 10\n{ATTACH}"), 6, 3, "a priority class has no queue of its own"),
        (format!("class-map C\n match any\npolicy-map P\n class C\n  priority 64\n  random-detect\n{ATTACH}"), 6, 3, "a priority class has no queue of its own to run WRED on"),
        (format!("class-map C\n match any\npolicy-map P\n class C\n  bandwidth 64\n  fair-queue\n{ATTACH}"), 6, 3, "only class-default can be fair-queued"),
        (format!("class-map C\n match any\npolicy-map P\n class C\n  set ip dscp ef\n{ATTACH}"), 4, 8, "has settings but no `bandwidth` or `priority`"),
        (format!("policy-map P\n class class-default\n  shape average 64000\n  service-policy P\n{ATTACH}"), 4, 18, "policy map `P` nests itself: P -> P"),
        (format!("policy-map P\n class class-default\n  shape average 64000\n  service-policy Q\npolicy-map Q\n class class-default\n  shape average 32000\n  service-policy P\n{ATTACH}"), 8, 18, "nests itself: P -> Q -> P"),
        (format!("policy-map P\n class class-default\n  shape average 64000\n  service-policy Q\npolicy-map Q\n class class-default\n  shape average 48000\n  service-policy R\npolicy-map R\n class class-default\n  shape average 32000\n  service-policy S\npolicy-map S\n class class-default\n  fair-queue\n{ATTACH}"), 12, 18, "makes 4 levels of policy maps; IOS allows 3"),
        (format!("class-map C\n match any\npolicy-map Q\n class class-default\n  fair-queue\npolicy-map P\n class class-default\n  shape average 64000\n  priority 32\n  service-policy Q\n{ATTACH}"), 9, 3, "`priority` next to `shape` and a child `service-policy` is not modelled"),
        (format!("class-map C\n match any\npolicy-map Q\n class class-default\n  fair-queue\npolicy-map P\n class C\n  bandwidth 64\n  service-policy Q\n{ATTACH}"), 9, 18, "before HQF, IOS nests a queuing policy only under `shape`"),
        (format!("version 17.9\nclass-map C\n match any\npolicy-map Q\n class class-default\n  fair-queue\npolicy-map P\n class C\n  bandwidth 64\n  service-policy Q\n{ATTACH}"), 9, 3, "IOS XE takes `bandwidth` only in the classes of a hierarchy's lowest level"),
        (format!("version 17.9\nclass-map C\n match any\npolicy-map Q\n class class-default\n  fair-queue\npolicy-map P\n class C\n  service-policy Q\n{ATTACH}"), 9, 18, "Cannot attach queuing-based child policy to a non-queuing based class"),
        (format!("version 15.4\nclass-map C\n match any\npolicy-map Q\n class class-default\n  bandwidth 100\npolicy-map P\n class C\n  shape average 64000\n  service-policy Q\n{ATTACH}"), 10, 18, "the child policy's bandwidth is its class's 64 kbit/s: the classes reserve 100 kbit/s"),
        ("policy-map IN\n class class-default\n  bandwidth 64\ninterface Serial0\n service-policy input IN\n".into(), 3, 3, "IOS refuses `bandwidth` in an input policy"),
        ("priority-list 1 default low\ninterface Serial0\n priority-group 1\n hold-queue 75 out\n".into(), 4, 2, "IOS refuses `hold-queue … out` with priority queuing"),
        ("priority-list 1 queue-limit 20 40 4294967295 80\ninterface Serial0\n priority-group 1\n".into(), 1, 35, "the normal queue's limit, 0 to 32767"),
        ("priority-list 1 queue-limit 20 0 60 80\ninterface Serial0\n priority-group 1\n".into(), 1, 32, "the medium queue's limit 0 (no limit at all) is not modelled"),
        ("queue-list 1 queue 2 limit 4294967295\ninterface Serial0\n custom-queue-list 1\n".into(), 1, 28, "a queue limit, 0 to 32767"),
        ("queue-list 1 queue 2 byte-count 0\ninterface Serial0\n custom-queue-list 1\n".into(), 1, 33, "a byte count of 0"),
        ("interface Serial0\n tx-ring-limit 4294967295\n".into(), 2, 16, "a transmit ring size, 1 to 32767"),
        ("interface Serial0\n hold-queue 4294967295 out\n".into(), 2, 13, "a hold-queue length, 0 to 240000"),
        ("interface Serial0\n bandwidth 0\n".into(), 2, 12, "a bandwidth in kbit/s, 1 to 10000000"),
        ("interface Serial0\n fair-queue 5000\n".into(), 2, 13, "a congestive discard threshold, 1 to 4096"),
        ("interface Serial0\n fair-queue 64 100\n".into(), 2, 16, "100 dynamic queues"),
        ("interface Serial0\n ppp multilink fragment delay 0\n".into(), 2, 31, "a fragment delay in ms, 1 to 1000"),
        ("interface Serial0\n description a\u{0}b\n".into(), 2, 15, "control character U+0000"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  police 8000 0\n{ATTACH}"), 4, 3, "a committed burst of 0 B passes nothing"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  police cir 64000 pir 8000\n{ATTACH}"), 4, 3, "the peak rate (8000 bit/s) is below the committed rate"),
        (format!("policy-map P\n class class-default\n  bandwidth 64\n  shape average 64000 0\n{ATTACH}"), 4, 3, "Bc must be above zero"),
        (format!("class-map C\n match any\npolicy-map Q\n class C\n  priority 100\npolicy-map P\n class class-default\n  shape average 64000\n  service-policy Q\n{ATTACH}"), 11, 24, "the classes reserve 100 kbit/s, but only 48 kbit/s may be reserved"),
        ("cos-queue-group G\n precedence 1 random-detect-label 3\ninterface Serial0\n tx-cos G\n".into(), 2, 35, "random-detect-label 3 is not defined"),
        ("cos-queue-group G\n queue 1 0\ninterface Serial0\n tx-cos G\n".into(), 2, 10, "an MDRR weight, 1 to 2048"),
        ("queue-list 1 lowest-custom 0\ninterface Serial0\n custom-queue-list 1\n".into(), 3, 20, "`lowest_custom: 0` is not a user queue"),
        ("interface Serial0\n priority-group 7\n".into(), 2, 17, "priority list 7 is not configured"),
        ("interface Serial0\n ip policy route-map X\n".into(), 2, 22, "route map `X` is not configured"),
        ("interface Serial0\n clock rate 0\n".into(), 2, 13, "a clock rate of 0 bit/s sends nothing"),
    ];
    let dir = std::env::temp_dir().join(format!("qoslab-ios-mistakes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario_path = dir.join("s.yaml");
    let scenario = "name: t
run: {duration: 1s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 128kbps}]
interfaces:
  a: {b: {ios: {config: r.cfg, interface: Serial0}}}
traffic: []
";
    for (text, line, column, words) in &cases {
        let config = parse(text);
        let found = qoslab_core::ios::check(&config);
        assert!(
            found.iter().any(|d| d.severity == Severity::Error
                && (d.line, d.column) == (*line, *column)
                && d.message.contains(words)
                && d.hint.is_some()),
            "{text:?}: expected {line}:{column} {words:?}, check found {found:?}"
        );
        let refused = qoslab_core::ios::resolve(&config, "Serial0", None).err();
        assert!(refused.is_some(), "{text:?}: resolves, so to-yaml would write it");
        std::fs::write(dir.join("r.cfg"), text).unwrap();
        let origin = scenario_path.display().to_string();
        let error =
            qoslab_core::load(scenario, &origin, &[], None).err().unwrap_or_else(|| panic!("{text:?}: runs"));
        let shown = error.to_string();
        let file = dir.join("r.cfg").display().to_string();
        assert!(
            shown.starts_with(&format!("{origin}:7:"))
                && shown.contains(&format!(": interfaces.a.b.ios.config: {file}:{line}:{column}: "))
                && shown.contains(words),
            "{text:?}: {shown}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
    // IOS's range for a list's queue limit starts at 0 (no limit), which qoslab does not
    // model: the fix offers what it takes.
    let huge = parse("queue-list 1 queue 2 limit 99999\n").diagnostics;
    assert_eq!(huge[0].message, "99999 is outside IOS's range for a queue limit, 0 to 32767");
    assert_eq!(huge[0].hint.as_deref(), Some("give a queue limit from 1 to 32767"));
}

/// A configuration file a scenario names is read with the same care as on the command line:
/// a folder, text that is not UTF-8, and a NUL are errors at the scenario's key naming the
/// file and the place.
#[test]
fn unreadable_configuration_files_in_a_scenario() {
    let dir = std::env::temp_dir().join(format!("qoslab-ios-unreadable-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("folder.cfg")).unwrap();
    std::fs::write(dir.join("latin1.cfg"), b"interface Serial0\n description caf\xe9\n").unwrap();
    std::fs::write(dir.join("nul.cfg"), b"interface Serial0\n\0\n").unwrap();
    let origin = dir.join("s.yaml").display().to_string();
    let error = |file: &str| {
        let scenario = format!(
            "name: t\nrun: {{duration: 1s}}\ntopology:\n  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}\n  links: [{{between: [a, b], rate: 128kbps}}]\ninterfaces:\n  a: {{b: {{ios: {{config: {file}, interface: Serial0}}}}}}\ntraffic: []\n"
        );
        qoslab_core::load(&scenario, &origin, &[], None).err().unwrap().to_string()
    };
    let folder = error("folder.cfg");
    assert!(
        folder.contains("interfaces.a.b.ios.config: `") && folder.contains("folder.cfg` is a folder"),
        "{folder}"
    );
    let latin1 = error("latin1.cfg");
    assert!(latin1.contains("is not UTF-8 text: the bytes at offset 34 (line 2)"), "{latin1}");
    let nul = error("nul.cfg");
    assert!(nul.contains("nul.cfg:2:1: control character U+0000"), "{nul}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The run keeps the texts it read — the scenario, then each IOS configuration file as
/// read — and nothing else: a report shows these, never a file a folder names.
#[test]
fn the_run_records_the_texts_it_read() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let path = format!("{dir}/lmr-ios.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let results = qoslab_core::load(&text, &path, &[], None).unwrap().finish().unwrap();
    let inputs: Vec<(&str, &str)> = results.inputs.iter().map(|i| (i.kind, i.path.as_str())).collect();
    assert_eq!(inputs[0], ("scenario", path.as_str()));
    assert_eq!(results.inputs[0].text, text);
    let configs: Vec<&str> = inputs[1..]
        .iter()
        .map(|(kind, p)| {
            assert_eq!(*kind, "ios");
            p.rsplit('/').next().unwrap()
        })
        .collect();
    assert!(!configs.is_empty());
    for input in &results.inputs[1..] {
        assert_eq!(input.text, std::fs::read_to_string(&input.path).unwrap(), "{}", input.path);
    }
    // A scenario given as text, with its policy in YAML, read nothing else.
    let plain =
        qoslab_core::load(include_str!("../../../../examples/voice-vs-flood.yaml"), "<text>", &[], None)
            .unwrap()
            .finish()
            .unwrap();
    assert_eq!(plain.inputs.len(), 1);
    assert_eq!(plain.inputs[0].path, "<text>");
}

/// An IOS XE branch router of today: a parent `shape average` on a Metro-Ethernet handoff
/// over a child LLQ with `priority level 1` and `2` (each with its `police`), `bandwidth
/// remaining ratio` 4, 1 and 2, and `fair-queue` in class-default. Its `version 17.6` line
/// chooses the IOS XE scheduler; the imported policy says so, and a run shares what the
/// priority classes leave of the 20 Mbit/s in the ratios 4 : 1 : 2 (within 2 %).
#[test]
fn an_ios_xe_branch_configuration() {
    let text = config("metro-e-branch-xe.txt");
    let parsed = parse(&text);
    assert_eq!(parsed.diagnostics.len(), 1, "only `hostname` is not modelled: {:?}", parsed.diagnostics);
    let settings = interface_settings(&parsed, "Gi0/0/1").unwrap();
    assert!(settings.output_from.contains("`version 17.6` (line 1) is IOS XE"), "{}", settings.output_from);
    let child = &settings.output["child"];
    assert_eq!((settings.output["kind"].as_str(), child["scheduler"].as_str()), (Some("tbf"), Some("xe")));
    assert_eq!(child["classes"][0]["priority_level"], json!(1));
    assert_eq!(child["classes"][1]["priority_level"], json!(2));
    assert_eq!(
        child["classes"][4],
        json!({"name": "class-default", "bandwidth_remaining_ratio": 2, "fair_queue": true})
    );
    let yaml = format!(
        "name: branch
run: {{duration: 20s, warmup: 5s, seed: 1}}
topology:
  nodes: {{lan: {{kind: host}}, br1: {{kind: router}}, hq: {{kind: host}}}}
  links:
    - {{between: [lan, br1], rate: 1Gbps, l2: ethernet}}
    - {{between: [br1, hq], rate: 100Mbps, l2: ethernet}}
interfaces:
  br1: {{hq: {{ios: {{config: {text:?}, interface: Gi0/0/1}}}}}}
traffic:
  - {{name: voice, from: lan, to: hq, dscp: EF, pattern: {{kind: cbr, rate_pps: 500, size: 200B}}}}
  - {{name: critical, from: lan, to: hq, dscp: AF31, pattern: {{kind: flood, rate: 20Mbps, size: 1000B}}}}
  - {{name: bulk, from: lan, to: hq, dscp: AF11, pattern: {{kind: flood, rate: 20Mbps, size: 1500B}}}}
  - {{name: other, from: lan, to: hq, pattern: {{kind: flood, rate: 20Mbps, size: 1500B}}}}
"
    );
    let results = crate::common::run_yaml(&yaml, &[]);
    let rate = |name: &str| crate::common::flow(&results, name).delivered_l3_bps;
    let (critical, bulk, other) = (rate("critical"), rate("bulk"), rate("other"));
    assert!((critical / bulk - 4.0).abs() < 0.08, "{critical} / {bulk}");
    assert!((other / bulk - 2.0).abs() < 0.04, "{other} / {bulk}");
    assert_eq!(crate::common::flow(&results, "voice").dropped_packets, 0);
}

/// IOS XE syntax under a classic IOS version is an error at its column: `priority level`,
/// and queue limits in bytes or time, which IOS XE reads (`queue-limit 100 ms` becomes
/// `queue_limit: 100ms`) and classic IOS does not.
#[test]
fn ios_flavour_errors_are_placed() {
    let text = config("metro-e-branch-xe.txt").replace("version 17.6", "version 12.4");
    let error =
        qoslab_core::ios::check(&parse(&text)).into_iter().find(|d| d.severity == Severity::Error).unwrap();
    assert_eq!((error.line, error.column), (15, 12));
    assert_eq!(error.message, "`priority level` is IOS XE syntax, which `version 12.4` refuses");
    let text =
        config("metro-e-branch-xe.txt").replace("  fair-queue\n", "  fair-queue\n  queue-limit 100 ms\n");
    let settings = interface_settings(&parse(&text), "Gi0/0/1").unwrap();
    assert_eq!(settings.output["child"]["classes"][4]["queue_limit"], json!("100ms"));
    let explained = qoslab_core::ios::explain(&parse(&text), "Gi0/0/1", Some(100_000_000)).unwrap();
    assert!(explained.contains("queue_limit 100ms = 250000 B at 20 Mbit/s"), "{explained}");
    let text = "version 12.4\n".to_owned()
        + &config("congestion-lab-llq.txt").replace("percent 10\n", "percent 10\nqueue-limit 9000 bytes\n");
    let error =
        qoslab_core::ios::check(&parse(&text)).into_iter().find(|d| d.severity == Severity::Error).unwrap();
    assert_eq!(error.message, "`queue-limit bytes` is IOS XE syntax, which `version 12.4` refuses");
}

/// `explain` on the IOS XE branch: the shaper as level 1, and level 2's table — each class's
/// kind, minimum, maximum, share of what the priority classes leave and rate with every class
/// busy: 20 − 2 − 6 = 12 Mbit/s shared 4 : 1 : 2.
#[test]
fn explaining_an_ios_xe_hierarchy() {
    let text =
        qoslab_core::ios::explain(&parse(&config("metro-e-branch-xe.txt")), "Gi0/0/1", Some(100_000_000))
            .unwrap();
    let lines: Vec<String> =
        text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    for expected in [
        "level 1: shape average 20 Mbit/s (the whole interface)",
        "level 2, the `xe` scheduler, every class busy on 20 Mbit/s:",
        "class kind minimum maximum share of the rest at full load",
        "VOICE priority 1 - 2 Mbit/s - 2 Mbit/s",
        "VIDEO priority 2 - 6 Mbit/s - 6 Mbit/s",
        "CRITICAL queue - - 57.1 % 6.857 Mbit/s",
        "BULK queue - - 14.3 % 1.714 Mbit/s",
        "class-default queue, 16 flows - - 28.6 % 3.429 Mbit/s",
        "reserved 0 kbit/s of the 20000 kbit/s IOS allows (100 % of 20 Mbit/s): IOS accepts the policy",
    ] {
        assert!(lines.iter().any(|l| l == expected), "no `{expected}` in\n{text}");
    }
}

/// `explain` on three levels (the hub of examples/hub-sites.yaml): the hub's shaper, the
/// sites sharing its 10 Mbit/s 1 : 2 : 1 with class-default, and each site's child LLQ on
/// what its site gets at full load.
#[test]
fn explaining_three_levels() {
    let path = format!("{}/../../examples/ios/hub-sites-c8500.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let text = qoslab_core::ios::explain(&parse(&text), "Gi0/0/1", Some(1_000_000_000)).unwrap();
    let lines: Vec<String> =
        text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    for expected in [
        "level 1: shape average 10 Mbit/s (the whole interface)",
        "level 2, the `xe` scheduler, every class busy on 10 Mbit/s:",
        "SITE-A child policy - 3.6 Mbit/s 25.0 % 2.5 Mbit/s",
        "SITE-B child policy - 7.2 Mbit/s 50.0 % 5 Mbit/s",
        "class-default queue - - 25.0 % 2.5 Mbit/s",
        "level 3: class SITE-A's child policy, its percentages of 3.6 Mbit/s",
        "level 3, the `xe` scheduler, every class busy on 2.5 Mbit/s:",
        // Site A's 2.5 Mbit/s: 400 kbit/s of voice leave 2.1 for video, none for data.
        "VIDEO priority 2 - 3 Mbit/s - 2.1 Mbit/s",
        "level 3: class SITE-B's child policy, its percentages of 7.2 Mbit/s",
        "level 3, the `xe` scheduler, every class busy on 5 Mbit/s:",
        "class-default queue, 16 flows - - 100.0 % 1.6 Mbit/s",
        "reserved 0 kbit/s of the 7200 kbit/s IOS allows (100 % of 7.2 Mbit/s): IOS accepts the policy",
    ] {
        assert!(lines.iter().any(|l| l == expected), "no `{expected}` in\n{text}");
    }
}
