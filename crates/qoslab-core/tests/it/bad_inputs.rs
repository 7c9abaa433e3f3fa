//! Every bad scenario in `tests/config_cases/bad_inputs.yaml` fails with its intended error:
//! the right key path, line and message. The same table drives the Python tests.

use crate::common::assert_refused;
use qoslab_core::load;

const CASES: &str = include_str!("../config_cases/bad_inputs.yaml");

#[test]
fn each_bad_input_gives_its_error() {
    let (cases, _) = qoslab_core::yaml::parse(CASES).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert!(cases.len() >= 15);
    for case in cases {
        let line = case["line"].as_u64().map(|line| usize::try_from(line).unwrap());
        let contains = case["contains"].as_array().unwrap();
        let fragments: Vec<&str> = contains.iter().map(|f| f.as_str().unwrap()).collect();
        let (id, scenario) = (case["id"].as_str().unwrap(), case["scenario"].as_str().unwrap());
        assert_refused(id, scenario, case["path"].as_str().unwrap(), line, &fragments);
        let error = load(scenario, "case.yaml", &[], None).err().expect("refused");
        assert_eq!(error.kind.name(), case["kind"].as_str().expect("every case has a kind"), "{id}: {error}");
    }
}

#[test]
fn overridden_values_are_blamed_on_the_override() {
    let example = include_str!("../../../../examples/voice-vs-flood.yaml");
    let bad = qoslab_core::Override::parse("interfaces.r1.r2.output=qp").unwrap();
    let error = load(example, "ex.yaml", &[bad], None).err().expect("rejected");
    let shown = error.to_string();
    assert!(
        shown.starts_with(
            "ex.yaml (--set interfaces.r1.r2.output=qp): interfaces.r1.r2.output: unknown policy `qp`"
        ),
        "{shown}"
    );
    assert!(shown.contains("Did you mean `pq`"), "{shown}");
}

/// The `--set` blamed is the one that wrote the value at fault: not a later one whose key
/// is a prefix of its own, and also one that made a mapping of the file wrong by adding a
/// key to it or creating it — the file has no such line to point at.
#[test]
fn the_override_that_wrote_the_fault_is_blamed() {
    let example = include_str!("../../../../examples/voice-vs-flood.yaml");
    let lmr = include_str!("../../../../examples/lmr-push-to-talk.yaml");
    let origin_of = |text: &str, sets: &[&str]| {
        let sets: Vec<_> = sets.iter().map(|s| qoslab_core::Override::parse(s).unwrap()).collect();
        let error = load(text, "ex.yaml", &sets, None).err().expect("rejected");
        (error.origin, error.position)
    };
    let cases: [(&str, &[&str], &str); 4] = [
        (example, &["traffic[0].dscp='", "traffic=[]"], "ex.yaml (--set traffic[0].dscp=')"),
        (example, &["topology.nodes.r1.99=1"], "ex.yaml (--set topology.nodes.r1.99=1)"),
        (example, &["traffic.0.app.users=2"], "ex.yaml (--set traffic.0.app.users=2)"),
        (lmr, &["traffic[0].app.talk[1]=true"], "ex.yaml (--set traffic[0].app.talk[1]=true)"),
    ];
    for (text, sets, origin) in cases {
        assert_eq!(origin_of(text, sets), (origin.into(), None), "{sets:?}");
    }
    // A fault in the file's own value stays in the file, though a `--set` changed a key the
    // file has beside it.
    let zero_rate = example.replace("rate_pps: 50", "rate_pps: 0");
    let (origin, position) = origin_of(&zero_rate, &["traffic.0.pattern.size=100B"]);
    assert_eq!((&*origin, position.map(|p| p.line)), ("ex.yaml", Some(58)));
}
