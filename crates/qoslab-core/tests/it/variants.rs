//! Variants, the sweep section, overrides with a source, and the run's identity.

use qoslab_core::{load, load_selected, Limits, Override, Selection, Simulation};
use qoslab_core::{parse_variant, sweep_plan};

/// A scenario of four nodes and three flows; variants and a sweep section are appended from
/// line 27 on.
const BASE: &str = "name: variants
run: {duration: 1s, seed: 1}
topology:
  nodes:
    a: {kind: host}
    r1: {kind: router}
    r2: {kind: router}
    b: {kind: host}
  links:
    - {between: [a, r1], rate: 10Mbps}
    - {between: [r1, r2], rate: 256kbps}
    - {between: [r2, b], rate: 10Mbps}
policies:
  fifo: {kind: fifo, limit: 40}
  voice:
    kind: prio
    preset: ios
    classify:
      - {match: {dscp: EF}, band: high}
interfaces:
  r1:
    r2: {output: fifo}
traffic:
  - {name: voice, from: a, to: b, dscp: EF, pattern: {kind: cbr, rate_pps: 50, size: 150B}}
  - {name: data, from: a, to: b, pattern: {kind: cbr, rate: 100kbps, size: 1000B}}
  - {name: iperf, from: a, to: b, pattern: {kind: flood, rate: 150%, size: 1500B}}
";

const VARIANTS: &str = "variants:
  pq:
    replace: {interfaces.r1.r2.output: voice}
  inline:
    replace:
      interfaces.r1.r2.output: {kind: fifo, limit: 5}
      topology.links.1.rate: 512kbps
  lean:
    remove: [traffic.iperf, policies.voice, traffic.0]
  branch:
    remove: [interfaces.r1.r2, topology.links.2]
    add:
      topology.nodes: {c: {kind: host}}
      topology.links: [{between: [r2, c], rate: 10Mbps}, {between: [r1, b], rate: 1Mbps}]
      traffic: [{name: to-c, from: a, to: c, pattern: {kind: cbr, rate_pps: 10, size: 100B}}]
      policies: {tiny: {kind: fifo, limit: 5}}
      interfaces.r1: {r2: {output: tiny}}
      topology.routes: [{at: r1, to: c, via: r2}]
  swap:
    replace:
      traffic.data: {name: bulk, from: a, to: b, pattern: {kind: cbr, rate: 50kbps, size: 500B}}
      topology.nodes.b: {kind: host, address: 192.0.2.9}
      policies.fifo: {kind: fifo, limit: 7}
  cut:
    remove: [topology.nodes.b, topology.links.2, traffic.voice, traffic.data, traffic.iperf]
  same: {}
";

fn with_variants(variants: &str) -> String {
    format!("{BASE}{variants}")
}

fn names(spec: &qoslab_core::ScenarioSpec) -> Vec<&str> {
    spec.traffic.iter().map(|f| f.name.as_str()).collect()
}

fn error(text: &str, variant: Option<&str>, overrides: &[Override]) -> String {
    let selection = Selection { variant, overrides, ..Selection::default() };
    match load_selected(text, "v.yaml", &selection, &Limits::default()) {
        Ok(_) => panic!("{variant:?} loads"),
        Err(e) => e.to_string(),
    }
}

fn loaded(text: &str, selection: &Selection) -> Simulation {
    load_selected(text, "v.yaml", selection, &Limits::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn variants_replace_remove_and_add() {
    let text = with_variants(VARIANTS);
    let spec = |variant| parse_variant(&text, "v.yaml", variant, &[]).unwrap_or_else(|e| panic!("{e}")).0;
    let output = |spec: &qoslab_core::ScenarioSpec| format!("{:?}", spec.interfaces["r1"]["r2"].output);

    let base = spec(None);
    assert_eq!(names(&base), ["voice", "data", "iperf"]);
    assert!(output(&base).contains("Named(\"fifo\")"));
    // `base` names the scenario as written.
    assert_eq!(names(&spec(Some("base"))), ["voice", "data", "iperf"]);

    // Replace: a policy by name, a policy written in place, a list entry's value.
    assert!(output(&spec(Some("pq"))).contains("Named(\"voice\")"));
    let inline = spec(Some("inline"));
    assert!(output(&inline).contains("Inline"), "{}", output(&inline));
    assert_eq!(inline.topology.links[1].rate.0, 512_000);

    // Remove: flows by name and by index, a policy.
    let lean = spec(Some("lean"));
    assert_eq!(names(&lean), ["data"]);
    assert_eq!(lean.policies.keys().collect::<Vec<_>>(), ["fifo"]);

    // Remove an interface and a link; add a node, links, a flow, a policy, an interface and
    // routes (a key the scenario did not have).
    let branch = spec(Some("branch"));
    assert_eq!(branch.topology.nodes.keys().collect::<Vec<_>>(), ["a", "b", "c", "r1", "r2"]);
    let links: Vec<_> = branch.topology.links.iter().map(|l| l.between.join("-")).collect();
    assert_eq!(links, ["a-r1", "r1-r2", "r2-c", "r1-b"]);
    assert_eq!(names(&branch), ["voice", "data", "iperf", "to-c"]);
    assert!(output(&branch).contains("Named(\"tiny\")"));
    assert_eq!(branch.topology.routes.len(), 1);

    // Replace a flow, a node and a policy as wholes.
    let swap = spec(Some("swap"));
    assert_eq!(names(&swap), ["voice", "bulk", "iperf"]);
    assert_eq!(swap.topology.nodes["b"].address.as_deref(), Some("192.0.2.9"));
    assert!(format!("{:?}", swap.policies["fifo"]).contains('7'), "{:?}", swap.policies["fifo"]);

    // Remove a node with its link and flows.
    let cut = spec(Some("cut"));
    assert_eq!(cut.topology.nodes.keys().collect::<Vec<_>>(), ["a", "r1", "r2"]);
    assert_eq!(cut.topology.links.len(), 2);
    assert!(cut.traffic.is_empty());

    // Every variant builds and runs; the flows of `branch` reach their new places.
    for variant in ["pq", "inline", "lean", "branch", "swap", "cut", "same"] {
        let results =
            loaded(&text, &Selection { variant: Some(variant), ..Selection::default() }).finish().unwrap();
        assert_eq!(results.run.variant.as_deref(), Some(variant));
        if variant == "branch" {
            let to_c = results.flows.iter().find(|f| f.flow == "to-c").unwrap();
            assert!(to_c.received_packets > 0);
        }
    }
}

/// Each mistake in an overlay is placed at the overlay entry that made it.
#[test]
fn bad_overlays_are_placed_in_the_overlay() {
    let cases = [
        // An unknown operation.
        ("  x:\n    ad: {}\n", None, "v.yaml:29:5: variants.x.ad: unknown key `ad`. Did you mean `add`?"),
        // A path that does not exist.
        ("  x:\n    remove: [traffic.ipref]\n", None, "v.yaml:29:14: variants.x.remove[0]: `traffic`: no entry of this list is named `ipref`. Did you mean `iperf`?"),
        ("  x:\n    replace: {interfaces.r1.r3.output: fifo}\n", None, "v.yaml:29:15: variants.x.replace.interfaces.r1.r3.output: `interfaces.r1` has no key `r3`"),
        // Removing something twice.
        ("  x:\n    remove: [traffic.iperf, traffic.2]\n", None, "v.yaml:29:29: variants.x.remove[1]: `traffic[2]` is already removed by variants.x.remove[0]"),
        // Adding a name that exists.
        (
            "  x:\n    add:\n      traffic:\n        - {name: voice, from: a, to: b, pattern: {kind: cbr, rate_pps: 1, size: 100B}}\n",
            None,
            "v.yaml:31:12: variants.x.add.traffic[0].name: `traffic` already has an entry named `voice`",
        ),
        ("  x:\n    add: {topology.nodes: {r1: {kind: host}}}\n", None, "v.yaml:29:28: variants.x.add.topology.nodes.r1: `topology.nodes` already has `r1`"),
        // A value of the wrong type, found when the variant is read (whether run or not).
        (
            "  x:\n    add:\n      topology.links: [{between: [r2, a], rate: fast}]\n",
            None,
            "v.yaml:30:43: variants.x.add.topology.links[0].rate: `fast` does not start with a number",
        ),
        ("  x:\n    replace: {policies.voice: {kind: prio, preset: cisco}}\n", None, "v.yaml:29:44: variants.x.replace.policies.voice.preset: unknown value `cisco`"),
        ("  x:\n    add: {interfaces.r1.r2: {obsrve: true}}\n", None, "v.yaml:29:30: variants.x.add.interfaces.r1.r2.obsrve: unknown key `obsrve`. Did you mean `observe`?"),
        // Found when the variant is built.
        ("  x:\n    replace: {interfaces.r1.r2.output: nosuch}\n", Some("x"), "v.yaml:29:15: variants.x.replace.interfaces.r1.r2.output: unknown policy `nosuch`"),
        (
            "  x:\n    add: {traffic: [{name: new, from: a, to: nowhere, pattern: {kind: cbr, rate_pps: 1, size: 100B}}]}\n",
            Some("x"),
            "v.yaml:29:42: variants.x.add.traffic[0].to: unknown node `nowhere`",
        ),
        // The scenario as written, made wrong by a removal: placed where it is written.
        ("  x:\n    remove: [traffic.voice, policies.fifo]\n", Some("x"), "v.yaml:22:10: interfaces.r1.r2.output: unknown policy `fifo`"),
        // Reserved and malformed names.
        ("  base: {}\n", None, "v.yaml:28:3: variants.base: `base` is the scenario as written"),
        ("  x:\n    remove: [sweep.replications]\n", None, "v.yaml:29:14: variants.x.remove[0]: a variant cannot change `sweep`"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(variants, variant, expected)| {
            let text = with_variants(&format!("variants:\n{variants}"));
            let message = error(&text, *variant, &[]);
            (!message.starts_with(expected)).then(|| format!("{variants}\n got: {message}\nwant: {expected}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// Indices of entries after a removed one shift; errors in them still name the written place.
#[test]
fn errors_after_a_removal_name_the_written_entry() {
    let text = with_variants("variants:\n  x:\n    remove: [traffic.voice]\n");
    let bad = Override::parse("traffic.iperf.pattern.size=0B").unwrap();
    // The override wrote the value: the error names it, with the entry's index after removal.
    let message = error(&text, Some("x"), std::slice::from_ref(&bad));
    assert!(
        message.starts_with("v.yaml (--set traffic.iperf.pattern.size=0B): traffic[1].pattern.size"),
        "{message}"
    );
    // A problem of the written entry itself names its written place (`traffic[2]`, line 26).
    let text = text.replace(
        "{kind: flood, rate: 150%, size: 1500B}",
        "{kind: flood, rate: 150%, size: 1500B, start: 2s}",
    );
    let message = error(&text, Some("x"), &[]);
    assert!(message.starts_with("v.yaml:26:"), "{message}");
    assert!(message.contains(": traffic[2]"), "{message}");
}

#[test]
fn an_unknown_variant_lists_the_known_ones() {
    let text = with_variants(VARIANTS);
    let message = error(&text, Some("pg"), &[]);
    assert_eq!(
        message,
        "v.yaml:27:1: variants: unknown variant `pg`. Did you mean `pq`? (known: base, branch, cut, inline, lean, pq, same, swap)"
    );
    let message = error(BASE, Some("pq"), &[]);
    assert!(message.starts_with("v.yaml: variants: unknown variant `pq`"), "{message}");
}

#[test]
fn sweep_sections_are_checked_where_written() {
    let cases = [
        (
            "sweep:\n  replications: 0\n",
            "v.yaml:28:3: sweep.replications: 0 replications: a sweep runs 1 to 10000",
        ),
        ("sweep:\n  vary: {run.seed: []}\n", "v.yaml:28:10: sweep.vary.run.seed: no values to try"),
        (
            "sweep:\n  vary: {a: [1, 2], b: [1]}\n  zip: [[a, b]]\n",
            "v.yaml:29:13: sweep.zip[0][1]: `b` has 1 values and `a` has 2",
        ),
        ("sweep:\n  variants: [base, pg]\n", "v.yaml:28:20: sweep.variants[1]: unknown variant `pg`"),
        (
            "sweep:\n  replicatons: 3\n",
            "v.yaml:28:3: sweep.replicatons: unknown key `replicatons`. Did you mean `replications`?",
        ),
        ("sweep:\n  replications: 2.5\n", "v.yaml:28:3: sweep.replications: invalid type"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(sweep, expected)| {
            let text = format!("{BASE}{sweep}variants:\n  pq: {{}}\n");
            let message = load(&text, "v.yaml", &[], None).err().expect("refused").to_string();
            (!message.starts_with(expected)).then(|| format!("{sweep}\n got: {message}\nwant: {expected}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn the_sweep_plan_gives_each_value_its_text_and_place() {
    let text = format!(
        "{BASE}sweep:\n  vary:\n    topology.links.1.rate: [128kbps, 256kbps]\n    interfaces.r1.r2.output: [fifo, {{kind: fifo, limit: 10}}]\n    traffic.voice.src_port: ['5060', 5061]\n  zip: [[topology.links.1.rate, interfaces.r1.r2.output]]\n  variants: [base, pq]\n  replications: 3\n{VARIANTS}"
    );
    let plan = sweep_plan(&text, "s.yaml").unwrap_or_else(|e| panic!("{e}"));
    let keys: Vec<&str> = plan.vary.iter().map(|k| k.key.as_str()).collect();
    assert_eq!(keys, ["interfaces.r1.r2.output", "topology.links.1.rate", "traffic.voice.src_port"]);
    let output = &plan.vary[0].values;
    assert_eq!(output[1].value, "{kind: fifo, limit: 10}");
    assert_eq!(output[1].location, "s.yaml:30:37");
    assert_eq!(output[1].key_path, "sweep.vary.interfaces.r1.r2.output[1]");
    assert_eq!(output[1].source, "s.yaml:30:37: sweep.vary.interfaces.r1.r2.output[1]");
    let rate = &plan.vary[1].values;
    assert_eq!((rate[0].value.as_str(), rate[0].location.as_str()), ("128kbps", "s.yaml:29:29"));
    // A quoted number stays text when given back as an override.
    assert_eq!(plan.vary[2].values[0].value, "\"5060\"");
    assert_eq!(plan.vary[2].values[1].value, "5061");
    assert_eq!(plan.zip, [["topology.links.1.rate", "interfaces.r1.r2.output"]]);
    assert_eq!(plan.variants.as_deref(), Some(&["base".to_owned(), "pq".to_owned()][..]));
    assert_eq!(plan.replications, Some(3));
    assert_eq!(plan.defined_variants, ["branch", "cut", "inline", "lean", "pq", "same", "swap"]);
    let json: serde_json::Value = serde_json::from_str(&plan.to_json()).unwrap();
    assert_eq!(json["vary"][1]["values"][1]["value"], "256kbps");

    // Without a section the plan is empty.
    let empty = sweep_plan(BASE, "s.yaml").unwrap();
    assert!(empty.vary.is_empty() && empty.zip.is_empty() && empty.defined_variants.is_empty());
    assert_eq!((empty.variants, empty.replications), (None, None));

    // Each value, given back as an override labelled with its source, is placed there.
    let value = &rate[1];
    let change = Override {
        key_path: plan.vary[1].key.clone(),
        value: "0kbps".into(),
        source: Some(value.source.clone()),
    };
    let message = error(&text, None, &[change]);
    assert!(
        message.starts_with("s.yaml:29:38: sweep.vary.topology.links.1.rate[1]: topology.links[1].rate: a link rate must be above zero"),
        "{message}"
    );
    // Without a label the message is as for `--set`.
    let message = error(&text, None, &[Override::parse("topology.links.1.rate=0kbps").unwrap()]);
    assert!(
        message.starts_with("v.yaml (--set topology.links.1.rate=0kbps): topology.links[1].rate: "),
        "{message}"
    );
}

fn sha(text: &str, selection: &Selection, origin: &str) -> String {
    load_selected(text, origin, selection, &Limits::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .scenario_sha256()
        .to_owned()
}

#[test]
fn the_scenario_hash_follows_what_the_run_uses() {
    let text = with_variants(VARIANTS);
    let base = sha(&text, &Selection::default(), "v.yaml");
    assert_eq!(base.len(), 64);
    assert!(base.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    let same = |other: &str| assert_eq!(sha(other, &Selection::default(), "v.yaml"), base, "{other}");
    let differs = |other: &str| assert_ne!(sha(other, &Selection::default(), "v.yaml"), base, "{other}");

    // Key order, comments, flow or block style, `x-` keys and the sections do not count.
    same(&text.replace(
        "run: {duration: 1s, seed: 1}\n",
        "# a comment\nx-note: hello\nrun:\n  seed: 1   # the seed\n  duration: 1s\n",
    ));
    same(&text.replace("  fifo: {kind: fifo, limit: 40}", "  fifo: {limit: 40, kind: fifo}"));
    same(BASE);
    same(&format!("{BASE}sweep:\n  replications: 4\n"));
    // The seed as the run uses it: written 1 or the default 1 are the same.
    same(&text.replace("run: {duration: 1s, seed: 1}", "run: {duration: 1s}"));
    // A value, the seed, the replication.
    differs(&text.replace("rate: 256kbps", "rate: 257kbps"));
    differs(&text.replace("seed: 1", "seed: 2"));
    let chosen = |selection: Selection| sha(&text, &selection, "v.yaml");
    assert_eq!(chosen(Selection { seed: Some(1), ..Selection::default() }), base);
    assert_ne!(chosen(Selection { seed: Some(2), ..Selection::default() }), base);
    assert_ne!(chosen(Selection { replication: Some(1), ..Selection::default() }), base);
    assert_eq!(chosen(Selection { replication: Some(0), ..Selection::default() }), base);
    // A variant changes it unless it changes nothing; `base` is the scenario as written.
    assert_ne!(chosen(Selection { variant: Some("pq"), ..Selection::default() }), base);
    assert_eq!(chosen(Selection { variant: Some("same"), ..Selection::default() }), base);
    assert_eq!(chosen(Selection { variant: Some("base"), ..Selection::default() }), base);
    // An override changes it unless it sets what is written; the variant and the override
    // meeting on the same document meet on the same hash.
    let set = |texts: &[&str]| texts.iter().map(|t| Override::parse(t).unwrap()).collect::<Vec<_>>();
    let rate = set(&["topology.links.1.rate=512kbps"]);
    assert_ne!(chosen(Selection { overrides: &rate, ..Selection::default() }), base);
    let written = set(&["topology.links.1.rate=256kbps"]);
    assert_eq!(chosen(Selection { overrides: &written, ..Selection::default() }), base);
    let pq = set(&["interfaces.r1.r2.output=voice"]);
    assert_eq!(
        chosen(Selection { overrides: &pq, ..Selection::default() }),
        chosen(Selection { variant: Some("pq"), ..Selection::default() })
    );
}

/// Editing a file the build reads — an IOS configuration, a traffic trace, a rate trace —
/// changes the hash; a file it does not read does not.
#[test]
fn the_scenario_hash_covers_the_files_read() {
    let examples = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("qoslab-identity-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("ios")).unwrap();
    for router in ["one", "two", "three"] {
        let name = format!("ios/lmr-router-{router}.txt");
        std::fs::copy(format!("{examples}/{name}"), dir.join(&name)).unwrap();
    }
    std::fs::write(dir.join("rates.csv"), "time_s,rate_bps\n0.5,64000\n").unwrap();
    std::fs::write(dir.join("frames.csv"), "time_s,size_bytes\n0,1000\n0.04,500\n").unwrap();
    std::fs::write(dir.join("unused.csv"), "time_s,size_bytes\n0,1000\n").unwrap();
    let origin = dir.join("lmr.yaml").display().to_string();
    let text = std::fs::read_to_string(format!("{examples}/lmr-ios.yaml")).unwrap();
    let short = [Override::parse("run.duration=2s").unwrap()];
    let selection = Selection { overrides: &short, ..Selection::default() };
    let ios_hash = || sha(&text, &selection, &origin);
    let before = ios_hash();
    assert_eq!(ios_hash(), before, "the same files give the same hash");
    let config = dir.join("ios/lmr-router-two.txt");
    let written = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{written}!\n")).unwrap();
    assert_ne!(ios_hash(), before, "an edited IOS configuration");

    let traces = "name: traces\nrun: {duration: 1s}\ntopology:\n  nodes: {a: {kind: host}, b: {kind: host}}\n  links: [{between: [a, b], rate: 1Mbps, rate_trace: rates.csv}]\ntraffic:\n  - {name: video, from: a, to: b, pattern: {kind: trace, file: frames.csv}}\n";
    let trace_hash = || sha(traces, &Selection::default(), &origin);
    let before = trace_hash();
    std::fs::write(dir.join("unused.csv"), "time_s,size_bytes\n0,2000\n").unwrap();
    assert_eq!(trace_hash(), before, "a file the build does not read");
    std::fs::write(dir.join("frames.csv"), "time_s,size_bytes\n0,1000\n0.04,501\n").unwrap();
    let after_frames = trace_hash();
    assert_ne!(after_frames, before, "an edited traffic trace");
    std::fs::write(dir.join("rates.csv"), "time_s,rate_bps\n0.5,64001\n").unwrap();
    assert_ne!(trace_hash(), after_frames, "an edited rate trace");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_results_record_the_runs_identity() {
    let text = with_variants(VARIANTS);
    let changes = [Override::parse("traffic.data.pattern.rate=50kbps").unwrap()];
    let selection =
        Selection { variant: Some("pq"), overrides: &changes, seed: Some(4), replication: Some(2) };
    let simulation = loaded(&text, &selection);
    let hash = simulation.scenario_sha256().to_owned();
    let results = simulation.finish().unwrap();
    let json: serde_json::Value = serde_json::from_str(&results.to_json()).unwrap();
    let run = &json["run"];
    assert_eq!(run["scenario_sha256"], hash.as_str());
    assert_eq!(run["overrides"], serde_json::json!(["traffic.data.pattern.rate=50kbps"]));
    assert_eq!(run["variant"], "pq");
    assert_eq!((run["seed"].as_u64(), run["replication"].as_u64()), (Some(4), Some(2)));
    // The scenario as written: no variant, no overrides.
    let plain = load(&text, "v.yaml", &[], None).unwrap().finish().unwrap();
    let json: serde_json::Value = serde_json::from_str(&plain.to_json()).unwrap();
    assert_eq!(json["run"]["variant"], serde_json::Value::Null);
    assert_eq!(json["run"]["overrides"], serde_json::json!([]));
    assert_ne!(json["run"]["scenario_sha256"], hash.as_str());
}

/// Every variant is checked as a copy of the scenario: many variants of a large scenario are
/// refused before they are copied.
#[test]
fn too_many_variants_of_a_large_scenario_are_refused() {
    let values: String = (0..200_000).map(|i| format!("{i}, ")).collect();
    let variants: String = (0..60).map(|i| format!("  v{i}: {{}}\n")).collect();
    let text = format!("{BASE}sweep: {{vary: {{run.seed: [{values}]}}}}\nvariants:\n{variants}");
    let message = error(&text, None, &[]);
    assert!(message.starts_with("v.yaml:28:1: variants: the scenario has "), "{message}");
    assert!(message.contains("and 60 variants"), "{message}");
    // The same variants of the scenario without its long sweep are fine.
    assert!(load(&format!("{BASE}variants:\n{variants}"), "v.yaml", &[], None).is_ok());
}
