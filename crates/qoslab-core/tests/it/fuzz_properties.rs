//! Property tests on mutated real inputs: the example scenarios and the studied IOS
//! configurations, with bytes flipped, lines deleted or duplicated, words replaced by
//! awkward values, and `--set` overrides of an example's own keys given hostile values.
//!
//! The properties: nothing panics; every scenario error names its place (a line and column
//! or a key path, or the `--set` that caused it; only an error about the whole document has
//! neither, and then it says so); a mutated scenario that loads runs a short while and
//! passes the end-of-run checks, packet conservation among them. Every IOS finding lies on
//! a line of the text, and an interface that resolves writes YAML that reads back.
//!
//! Runs are reproducible: each property draws from a fixed seed and stores no failures, so
//! CI sees the same cases every time. The cases are sized for a debug build.
//!
//! The awkward values include the huge ones that once exhausted the machine (a queue `limit`
//! or `tx_ring` of 4294967295, `copies` of thousands, rates of 1e308 or `.inf`, a
//! self-referring alias), and IOS configurations may get a policy map nested in itself.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestRunner};
use qoslab_core::ios::{check, explain, parse, resolve, to_yaml, Resolved};
use qoslab_core::{load, Override, ScenarioError};
use serde_json::Value;
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// Words put in place of a word of a file: numbers at the edges of their types' sense, empty
/// and null values, a NUL, a long string, non-ASCII text, collections and units.
const AWKWARD: &[&str] = &[
    "0",
    "-1",
    "1",
    "255",
    "65535",
    "0.5",
    "-0.0",
    "1e3",
    "\"\"",
    "''",
    "~",
    "null",
    "\0",
    "é✓🚀",
    "[]",
    "{}",
    "true",
    "0%",
    "100%",
    "1ns",
    "0s",
    "1bps",
    "0B",
];

/// Values that once made the core reserve or run without bound: a queue `limit` or `tx_ring`
/// of 2^32 − 1, rates of 1e308 or infinity, thousands of copies, a self-referring alias.
/// Put in files and given to `--set` alike.
const HUGE: &[&str] = &["4294967295", "18446744073709551615", "1e308", ".inf", "10000", "&a [*a, *a]"];

/// Words put in place of a word of an IOS configuration: the words above and numbers past
/// the range of the fields they land in.
const IOS_AWKWARD: &[&str] = &["4294967295", "4294967296", "18446744073709551616", "99999999999"];

/// Values given to `--set`: edge values of the right kinds (which often load), flow
/// collections, an undefined alias and text that is not YAML at all.
const HOSTILE: &[&str] = &[
    "",
    "0",
    "-1",
    "1",
    "2",
    "65535",
    "0.5",
    "~",
    "\0",
    "é✓🚀",
    "[]",
    "{}",
    "[1, 2]",
    "{kind: fifo}",
    "{a: {b: [c]}}",
    "*a",
    "!!binary x",
    "{",
    "'",
    "true",
    "0s",
    "1ns",
    "1ms",
    "100%",
    "0.01%",
    "1bps",
    "1Mbps",
    "64B",
    "1500B",
    "EF",
    "CS1",
    "fifo",
];

/// A long string: a name, a rate or a key thousands of bytes long.
fn long_word() -> String {
    "x".repeat(4096)
}

/// The simulated time a mutated scenario that loads is run for.
const SHORT_RUN: [&str; 2] = ["run.duration=20ms", "run.warmup=0s"];

fn config(cases: u32, seed: u64) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        max_shrink_iters: 200,
        ..Config::default()
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// (text, path) of every file in `dir` ending in `extension`, sorted.
fn files(dir: &str, extension: &str) -> Vec<(String, String)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    paths.sort();
    paths.into_iter().map(|p| (std::fs::read_to_string(&p).unwrap(), p.display().to_string())).collect()
}

/// One change to a file's text.
#[derive(Clone, Debug)]
enum Edit {
    /// Flips one bit of one byte.
    FlipBit(Index, u8),
    DeleteLine(Index),
    DuplicateLine(Index),
    /// Replaces one word (a run of characters other than spaces and YAML punctuation) by
    /// one of the awkward values, or by a long string past their end.
    Replace(Index, Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(at, bit)| Edit::FlipBit(at, bit)),
        any::<Index>().prop_map(Edit::DeleteLine),
        any::<Index>().prop_map(Edit::DuplicateLine),
        (any::<Index>(), any::<Index>()).prop_map(|(word, value)| Edit::Replace(word, value)),
    ]
}

/// Byte ranges of the words of `text`.
fn words(text: &str) -> Vec<(usize, usize)> {
    let is_word = |c: char| !c.is_whitespace() && !":,{}[]#'\"".contains(c);
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (is_word(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    spans
}

/// `text` with `edits` made in turn, words replaced by one of `values`.
fn apply(text: &str, edits: &[Edit], values: &[&str]) -> String {
    let mut text = text.to_owned();
    for edit in edits {
        text = match edit {
            Edit::FlipBit(at, bit) if !text.is_empty() => {
                let mut bytes = text.into_bytes();
                let i = at.index(bytes.len());
                bytes[i] ^= 1 << bit;
                String::from_utf8_lossy(&bytes).into_owned()
            }
            Edit::DeleteLine(at) | Edit::DuplicateLine(at) if !text.is_empty() => {
                let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
                let i = at.index(lines.len());
                match edit {
                    Edit::DeleteLine(_) => {
                        lines.remove(i);
                    }
                    _ => lines.insert(i, lines[i]),
                }
                lines.concat()
            }
            Edit::Replace(word, value) => match words(&text) {
                spans if spans.is_empty() => text,
                spans => {
                    let (start, end) = spans[word.index(spans.len())];
                    let k = value.index(values.len() + 1);
                    let value = values.get(k).map_or_else(long_word, |v| (*v).to_owned());
                    format!("{}{value}{}", &text[..start], &text[end..])
                }
            },
            _ => text,
        };
    }
    text
}

/// Panics unless `error` names its place (see the module comment), a line and column of
/// `text` if it has one.
fn assert_located(error: &ScenarioError, text: &str) {
    assert!(!error.origin.is_empty(), "no origin: {error:?}");
    assert!(!error.message.is_empty(), "no message: {error:?}");
    let placed = error.position.is_some() || !error.key_path.is_empty() || error.origin.contains("(--set ");
    let whole_document = error.message.contains("scenario") || error.message.starts_with("missing key `");
    assert!(placed || whole_document, "an error without a place: {error}");
    if let Some(position) = error.position {
        // YAML ends a line at a line feed, a carriage return, or the two together.
        let breaks = text.replace("\r\n", "\n").matches(['\n', '\r']).count();
        assert!(
            (1..=breaks + 1).contains(&position.line) && position.column >= 1,
            "a position outside the text: {error:?}"
        );
    }
}

/// Loads `text` with `overrides`: an error must name its place; a scenario that loads is run
/// for [`SHORT_RUN`] (unless its events do not fit in that, which the error must place) and
/// must pass the end-of-run checks. True if it ran.
fn load_and_run(text: &str, origin: &str, overrides: &[Override]) -> bool {
    match load(text, origin, overrides, None) {
        Err(error) => {
            assert_located(&error, text);
            false
        }
        Ok(_) => {
            let mut short = overrides.to_vec();
            short.extend(SHORT_RUN.iter().map(|o| Override::parse(o).unwrap()));
            match load(text, origin, &short, None) {
                Err(error) => {
                    assert_located(&error, text);
                    false
                }
                Ok(sim) => {
                    if let Err(error) = sim.finish() {
                        panic!("{error}");
                    }
                    true
                }
            }
        }
    }
}

/// Mutated example scenarios load with a located error, or run with their packets
/// conserved; enough of both happen for each property to be tested.
#[test]
fn mutated_scenarios_are_refused_at_their_place_or_run_clean() {
    let examples = files("examples", "yaml");
    let awkward: Vec<&str> = AWKWARD.iter().chain(HUGE).copied().collect();
    let (ran, refused) = (Cell::new(0), Cell::new(0));
    let strategy = (any::<Index>(), prop::collection::vec(edit(), 1..4));
    TestRunner::new(config(1200, 1))
        .run(&strategy, |(example, edits)| {
            let (text, origin) = &examples[example.index(examples.len())];
            let mutated = apply(text, &edits, &awkward);
            let counter = if load_and_run(&mutated, origin, &[]) { &ran } else { &refused };
            counter.set(counter.get() + 1);
            Ok(())
        })
        .unwrap();
    assert!(ran.get() >= 100 && refused.get() >= 300, "ran {}, refused {}", ran.get(), refused.get());
}

/// Every key path of `value`, parents included, in the `a.b[2].c` form, into `paths`; every
/// single value, as YAML, into `values`.
fn keys_and_values(value: &Value, at: &str, paths: &mut Vec<String>, values: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match value {
        Value::Object(map) if at.is_empty() => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Value::Object(map) => map.iter().map(|(k, v)| (format!("{at}.{k}"), v)).collect(),
        Value::Array(items) => items.iter().enumerate().map(|(i, v)| (format!("{at}[{i}]"), v)).collect(),
        single => {
            values.push(single.to_string());
            Vec::new()
        }
    };
    for (path, child) in children {
        paths.push(path.clone());
        keys_and_values(child, &path, paths, values);
    }
}

/// Where a `--set` points: one of the example's own key paths, a key below it, or an index
/// past the end of what is there.
#[derive(Clone, Debug)]
enum Target {
    Own(Index),
    Below(Index),
    PastTheEnd(Index),
}

/// What a `--set` writes: a hostile value, or a value of the same example (from another key,
/// so of a kind the scenario reads, often in the wrong place).
#[derive(Clone, Debug)]
enum Written {
    Hostile(Index),
    Borrowed(Index),
}

/// `--set` overrides of an example's own keys with hostile values are refused with the
/// `--set` or the file named, or run with their packets conserved.
#[test]
fn hostile_overrides_are_refused_at_their_place_or_run_clean() {
    let examples: Vec<(String, String, Vec<String>, Vec<String>)> = files("examples", "yaml")
        .into_iter()
        .map(|(text, origin)| {
            let (document, _) = qoslab_core::yaml::parse(&text).unwrap();
            let (mut paths, mut values) = (Vec::new(), Vec::new());
            keys_and_values(&document, "", &mut paths, &mut values);
            (text, origin, paths, values)
        })
        .collect();
    let target = prop_oneof![
        8 => any::<Index>().prop_map(Target::Own),
        1 => any::<Index>().prop_map(Target::Below),
        1 => any::<Index>().prop_map(Target::PastTheEnd),
    ];
    let written =
        prop_oneof![any::<Index>().prop_map(Written::Hostile), any::<Index>().prop_map(Written::Borrowed),];
    let strategy = (any::<Index>(), prop::collection::vec((target, written), 1..3));
    let hostile: Vec<&str> = HOSTILE.iter().chain(HUGE).copied().collect();
    let (ran, refused) = (Cell::new(0), Cell::new(0));
    TestRunner::new(config(2000, 2))
        .run(&strategy, |(example, changes)| {
            let (text, origin, paths, values) = &examples[example.index(examples.len())];
            let overrides: Vec<Override> = changes
                .iter()
                .map(|(target, value)| {
                    let path = match target {
                        Target::Own(i) => paths[i.index(paths.len())].clone(),
                        Target::Below(i) => format!("{}.extra", paths[i.index(paths.len())]),
                        Target::PastTheEnd(i) => format!("{}.99", paths[i.index(paths.len())]),
                    };
                    let value = match value {
                        Written::Hostile(i) => hostile[i.index(hostile.len())],
                        Written::Borrowed(i) => &values[i.index(values.len())],
                    };
                    Override::parse(&format!("{path}={value}")).unwrap()
                })
                .collect();
            let counter = if load_and_run(text, origin, &overrides) { &ran } else { &refused };
            counter.set(counter.get() + 1);
            Ok(())
        })
        .unwrap();
    assert!(ran.get() >= 50 && refused.get() >= 1000, "ran {}, refused {}", ran.get(), refused.get());
}

proptest! {
    #![proptest_config(config(1000, 3))]

    /// Any text parses to an override with a non-empty key, or is refused with itself quoted.
    #[test]
    fn any_override_text_parses_or_is_refused(text in "\\PC{0,40}(=\\PC{0,20})?") {
        match Override::parse(&text) {
            Ok(change) => {
                prop_assert!(!change.key_path.is_empty());
                prop_assert_eq!(change.key_path.trim(), change.key_path.as_str());
                prop_assert!(text.contains(&change.value));
            }
            Err(error) => prop_assert!(error.to_string().contains(&text), "{}", error),
        }
    }
}

/// Mutated IOS configurations parse with every finding on a line of the text; every
/// interface found resolves or says why on such a line, and a resolved one's YAML reads back.
#[test]
fn mutated_ios_configurations_resolve_or_say_why() {
    let mut configs = files("tests/ios", "txt");
    configs.extend(files("examples/ios", "txt"));
    let values: Vec<&str> = AWKWARD.iter().chain(HUGE).chain(IOS_AWKWARD).copied().collect();
    let resolved = Cell::new(0);
    let strategy = (any::<Index>(), prop::collection::vec(edit(), 1..5));
    TestRunner::new(config(2000, 4))
        .run(&strategy, |(pick, edits)| {
            let text = apply(&configs[pick.index(configs.len())].0, &edits, &values);
            let config = parse(&text);
            let lines = text.lines().count().max(1);
            for finding in config.diagnostics.iter().chain(&check(&config)) {
                prop_assert!((1..=lines).contains(&finding.line) && finding.column >= 1, "{:?}", finding);
            }
            for interface in &config.interfaces {
                let resolved_here = resolve(&config, &interface.name, Some(128_000));
                prop_assert_eq!(
                    explain(&config, &interface.name, Some(128_000)).is_ok(),
                    resolved_here.is_ok()
                );
                match resolved_here {
                    Err(error) => {
                        prop_assert!(error.line <= lines && !error.message.is_empty(), "{:?}", error)
                    }
                    Ok(Resolved { settings, .. }) => {
                        let yaml = to_yaml(&settings);
                        prop_assert!(qoslab_core::yaml::parse(&yaml).is_ok(), "{}", yaml);
                        resolved.set(resolved.get() + 1);
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(resolved.get() >= 1000, "{} interfaces resolved", resolved.get());
}
