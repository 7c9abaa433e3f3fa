//! Every bad scenario in `tests/config_cases/bad_inputs.yaml` fails with its intended error:
//! the right key path, line and message. The same table drives the Python tests.

use qoslab_core::load;

const CASES: &str = include_str!("../config_cases/bad_inputs.yaml");

#[test]
fn each_bad_input_gives_its_error() {
    let (cases, _) = qoslab_core::scenario::yaml::parse(CASES).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert!(cases.len() >= 15);
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let text = case["scenario"].as_str().unwrap();
        let Err(error) = load(text, "case.yaml", &[], None) else {
            panic!("{id}: the scenario was accepted");
        };
        let shown = error.to_string();
        assert_eq!(error.key_path, case["path"].as_str().unwrap(), "{id}: {shown}");
        if let Some(line) = case["line"].as_u64() {
            assert_eq!(error.position.map(|p| p.line as u64), Some(line), "{id}: {shown}");
            assert!(shown.starts_with(&format!("case.yaml:{line}:")), "{id}: {shown}");
        }
        for fragment in case["contains"].as_array().unwrap() {
            let fragment = fragment.as_str().unwrap();
            assert!(shown.contains(fragment), "{id}: `{fragment}` not in: {shown}");
        }
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
