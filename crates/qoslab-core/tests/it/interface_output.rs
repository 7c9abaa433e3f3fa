//! The output policy of a scenario's interface as plain data (`interface_output`): written
//! in place, named in `policies`, read from an IOS configuration (the interface's own or
//! its router's), the default FIFO; a root shaper's rate resolved, a percentage of the
//! interface's QoS bandwidth included; refusals as a run refuses.

use qoslab_core::{interface_output, Override, Selection};
use serde_json::{json, Value};

fn examples_dir() -> String {
    format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"))
}

/// Two routers on a 100 Mbit/s link, `r1`'s interface to `r2` set by `settings` (YAML).
fn scenario(settings: &str, policies: &str) -> String {
    format!(
        "name: t\nrun: {{duration: 1s}}\n{policies}\
         topology:\n  nodes: {{h1: {{kind: host}}, r1: {{kind: router}}, r2: {{kind: router}}, h2: {{kind: host}}}}\n  \
         links:\n    - {{between: [h1, r1], rate: 1Gbps}}\n    - {{between: [r1, r2], rate: 100Mbps}}\n    \
         - {{between: [r2, h2], rate: 1Gbps}}\n\
         interfaces:\n  r1:\n    r2: {settings}\n\
         traffic:\n  - {{name: f, from: h1, to: h2, pattern: {{kind: cbr, rate: 1Mbps, size: 500B}}}}\n"
    )
}

fn output(text: &str, overrides: &[Override]) -> Value {
    let selection = Selection { overrides, ..Selection::default() };
    interface_output(text, "t.yaml", &selection, "r1.r2").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_shaper_written_in_place_or_named_gives_its_policy_and_rate() {
    let inline = output(&scenario("{output: {kind: tbf, rate: 2Mbps, child: {kind: fifo}}}", ""), &[]);
    assert_eq!(inline["output"], json!({"kind": "tbf", "rate": "2Mbps", "child": {"kind": "fifo"}}));
    assert_eq!(
        (inline["from_ios"].clone(), inline["shaper_rate_bps"].clone()),
        (json!(false), json!(2_000_000))
    );
    let named = output(&scenario("{output: hqos}", "policies:\n  hqos: {kind: tbf, rate: 20%}\n"), &[]);
    assert_eq!(named["output"], json!({"kind": "tbf", "rate": "20%"}));
    // 20 % of the link's 100 Mbit/s, or of the interface's QoS bandwidth where it sets one.
    assert_eq!(named["shaper_rate_bps"], json!(20_000_000));
    let narrowed = output(
        &scenario("{output: hqos, bandwidth: 10Mbps}", "policies:\n  hqos: {kind: tbf, rate: 20%}\n"),
        &[],
    );
    assert_eq!(narrowed["shaper_rate_bps"], json!(2_000_000));
}

#[test]
fn overrides_are_applied_and_a_flat_policy_has_no_shaper() {
    let text = scenario("{output: {kind: tbf, rate: 2Mbps}}", "");
    let changed =
        Override { key_path: "interfaces.r1.r2.output".into(), value: "{kind: wfq}".into(), source: None };
    let flat = output(&text, &[changed]);
    assert_eq!(flat["output"], json!({"kind": "wfq"}));
    assert_eq!(flat["shaper_rate_bps"], Value::Null);
    let fifo = output(&scenario("{tx_ring: 2}", ""), &[]);
    assert_eq!((fifo["output"].clone(), fifo["shaper_rate_bps"].clone()), (Value::Null, Value::Null));
    assert_eq!(fifo["peer_input"], Value::Null);
}

#[test]
fn the_peer_input_policy_is_given_as_written_after_the_overrides() {
    let policed = "classes: [{name: c, match: {}, police: {cir: 2Mbps}}]";
    let text = scenario(
        "{output: {kind: fifo}}
  r2:
    r1: {input: {classes: []}}",
        "",
    );
    let change =
        Override { key_path: "interfaces.r2.r1.input".into(), value: format!("{{{policed}}}"), source: None };
    let got = output(&text, &[change]);
    assert_eq!(
        got["peer_input"],
        json!({"classes": [{"name": "c", "match": {}, "police": {"cir": "2Mbps"}}]})
    );
}

#[test]
fn an_ios_configuration_gives_the_policy_as_the_import_writes_it() {
    let path = format!("{}/metro-e-branch.yaml", examples_dir());
    let text = std::fs::read_to_string(&path).unwrap();
    let selection = Selection::default();
    let got = interface_output(&text, &path, &selection, "br1.hq").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got["from_ios"], json!(true));
    assert_eq!(got["shaper_rate_bps"], json!(20_000_000));
    assert_eq!(got["output"]["kind"], json!("tbf"));
    assert_eq!(got["output"]["child"]["scheduler"], json!("hqf"));
    assert_eq!(got["output"]["child"]["classes"][0]["priority"], json!("10%"));
}

#[test]
fn a_scenario_a_run_refuses_or_an_unknown_interface_is_refused() {
    let bad = scenario("{output: {kind: tbf, rate: 0bps}}", "");
    let error = interface_output(&bad, "t.yaml", &Selection::default(), "r1.r2").unwrap_err().to_string();
    assert!(error.contains("interfaces.r1.r2.output.rate"), "{error}");
    let text = scenario("{output: {kind: fifo}}", "");
    let error = interface_output(&text, "t.yaml", &Selection::default(), "r1.h2").unwrap_err().to_string();
    assert!(error.contains("no link joins `r1` and `h2`"), "{error}");
    let error = interface_output(&text, "t.yaml", &Selection::default(), "r1").unwrap_err().to_string();
    assert!(error.contains("does not name an interface"), "{error}");
}
