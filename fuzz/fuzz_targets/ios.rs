//! The IOS importer on arbitrary text: `ios::parse` never panics and places every finding on
//! a line of the text; every interface it finds resolves or says why, `explain` does the
//! same with and without a physical rate, and `to_yaml` of a resolved interface is YAML the
//! scenario reader accepts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use qoslab_core::ios::{explain, interface_settings, parse, to_yaml};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let config = parse(text);
    let lines = text.lines().count().max(1);
    for finding in &config.diagnostics {
        assert!((1..=lines).contains(&finding.line), "a finding off the text: {finding:?}");
        assert!(finding.column >= 1, "a finding without a column: {finding:?}");
        assert!(!finding.message.is_empty(), "a finding without a message: {finding:?}");
    }
    for interface in &config.interfaces {
        let settings = interface_settings(&config, &interface.name);
        if let Err((line, message)) = &settings {
            assert!(*line <= lines, "an interface error off the text: line {line}: {message}");
            assert!(!message.is_empty(), "an interface error without a message");
        }
        assert_eq!(explain(&config, &interface.name, None).is_ok(), settings.is_ok());
        let _ = explain(&config, &interface.name, Some(128_000));
        if let Ok(settings) = settings {
            let yaml = to_yaml(&settings);
            if let Err(error) = qoslab_core::scenario::yaml::parse(&yaml) {
                panic!("to_yaml wrote YAML that does not read back: {}\n{yaml}", error.message);
            }
        }
    }
});
