//! The IOS importer on arbitrary text: `ios::parse` never panics and places every finding on
//! a line of the text, and so does `ios::check`, which builds every interface as a run
//! would; every interface resolves or says why on such a line, `explain` agrees with `resolve`
//! with and without a physical rate, and `to_yaml` of a resolved interface is YAML the
//! scenario reader accepts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use qoslab_core::ios::{check, explain, parse, resolve, to_yaml};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let config = parse(text);
    let lines = text.lines().count().max(1);
    for finding in config.diagnostics.iter().chain(&check(&config)) {
        assert!((1..=lines).contains(&finding.line), "a finding off the text: {finding:?}");
        assert!(finding.column >= 1, "a finding without a column: {finding:?}");
        assert!(!finding.message.is_empty(), "a finding without a message: {finding:?}");
    }
    for interface in &config.interfaces {
        for rate_bps in [None, Some(128_000)] {
            let resolved = resolve(&config, &interface.name, rate_bps);
            if let Err(error) = &resolved {
                assert!(error.line <= lines, "an interface error off the text: {error:?}");
                assert!(!error.message.is_empty(), "an interface error without a message: {error:?}");
            }
            assert_eq!(explain(&config, &interface.name, rate_bps).is_ok(), resolved.is_ok());
            if let Ok(resolved) = resolved {
                let yaml = to_yaml(&resolved.settings);
                if let Err(error) = qoslab_core::yaml::parse(&yaml) {
                    panic!("to_yaml wrote YAML that does not read back: {}\n{yaml}", error.message);
                }
            }
        }
    }
});
