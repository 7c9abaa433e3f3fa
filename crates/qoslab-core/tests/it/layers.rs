//! The module tree is the layer diagram: a fitness function over the core's own source.
//!
//! Every file under `src/` belongs to the top-level module named by its first path
//! segment (`src/qdisc/wfq.rs` → `qdisc`). Each `crate::` path in a file, with comments
//! stripped, is an import of the named top-level module. The test fails when a module
//! imports one from a higher layer, or when the import graph between top-level modules has a
//! cycle (modules of one layer may import each other, but not both ways round). One level
//! down, the files of a module (`src/M/*.rs`, its root `src/M.rs` aside) must import each
//! other one way too: a `super::NAME` or `crate::M::NAME` naming a sibling file is an edge,
//! and a cycle fails the test.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, bottom first. A module may import only modules of its own layer or below.
const LAYERS: &[&[&str]] = &[
    &["config"],
    &["time", "units", "ids"],
    &["engine"],
    &["packet"],
    &["classify"],
    &["traffic", "tcp"],
    &["measure"],
    &["aqm", "condition", "app"],
    &["qdisc"],
    &["net"],
    &["sim"],
    &["report"],
    &["ios", "linux"],
    &["scenario"],
    &["bench"],
];

fn rank_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("read src directory")
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to, or `None` for the crate root (`lib.rs`).
fn module_of(path: &Path) -> Option<String> {
    let relative = path.strip_prefix(source_dir()).expect("file under src");
    let first = relative.components().next()?.as_os_str().to_str()?.to_string();
    let module = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (module != "lib").then_some(module)
}

/// Removes `//` comments (doc comments included) and `/* */` comments; string literals are
/// kept, which is safe because no string in the core spells a `crate::` path.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
        } else {
            let ch = rest.chars().next().expect("non-empty");
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

fn identifier(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// The first names after each `prefix` (`crate::`, `super::`) of `code` that is not part of
/// a longer path: one name, or each item's first name in a `{...}` group.
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let preceded =
            code[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        if preceded {
            continue;
        }
        let after = code[at + prefix.len()..].trim_start();
        if let Some(group) = after.strip_prefix('{') {
            let mut depth = 0usize;
            let mut start = 0usize;
            let mut items = Vec::new();
            for (i, ch) in group.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        items.push(&group[start..i]);
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(&group[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            found.extend(items.into_iter().map(|item| identifier(item.trim_start()).to_string()));
        } else {
            found.push(identifier(after).to_string());
        }
    }
    found.retain(|name| !name.is_empty());
    found
}

/// The top-level modules named by the `crate::` paths of one file.
fn imports_of(text: &str) -> BTreeSet<String> {
    names_after(&strip_comments(text), "crate::").into_iter().collect()
}

/// The names a file of top-level module `module` reaches inside it: after `super::` (a
/// file beside it, or an item of its parent) and after `crate::MODULE::` (a file at the
/// module's top, or an item of the module's root).
fn inner_imports_of(text: &str, module: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let code = strip_comments(text);
    let beside = names_after(&code, "super::").into_iter().collect();
    let top = names_after(&code, &format!("crate::{module}::")).into_iter().collect();
    (beside, top)
}

/// Edges `module → imported module → files` between distinct top-level modules.
fn import_graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(&source_dir(), &mut files);
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for path in files {
        let Some(module) = module_of(&path) else { continue };
        let text = fs::read_to_string(&path).expect("read source file");
        let shown = path.strip_prefix(source_dir()).expect("under src").display().to_string();
        let targets = graph.entry(module.clone()).or_default();
        for imported in imports_of(&text) {
            if imported != module {
                targets.entry(imported).or_default().insert(shown.clone());
            }
        }
    }
    graph
}

#[test]
fn every_top_level_module_has_a_layer() {
    let graph = import_graph();
    let unplaced: Vec<&String> = graph.keys().filter(|module| rank_of(module).is_none()).collect();
    assert!(unplaced.is_empty(), "modules missing from LAYERS: {unplaced:?}");
}

#[test]
fn no_module_imports_from_a_higher_layer() {
    let graph = import_graph();
    let mut upward = Vec::new();
    for (module, targets) in &graph {
        let Some(own) = rank_of(module) else { continue };
        for (imported, files) in targets {
            match rank_of(imported) {
                Some(rank) if rank <= own => {}
                _ => upward.push(format!("{module} → {imported} (in {files:?})")),
            }
        }
    }
    assert!(upward.is_empty(), "{} upward imports:\n{}", upward.len(), upward.join("\n"));
}

#[test]
fn the_module_graph_has_no_cycle() {
    let graph: BTreeMap<String, BTreeSet<String>> =
        import_graph().into_iter().map(|(module, targets)| (module, targets.into_keys().collect())).collect();
    let cycles = cycles_of(&graph);
    assert!(cycles.is_empty(), "import cycles between top-level modules:\n{}", cycles.join("\n"));
}

/// Edges `file → file` inside each top-level module, each file named by its path under
/// `src/M/` without `.rs` (`export/acl`): `a.rs` → `b.rs` when `a.rs` names `super::b` and
/// `b.rs` is beside it, or `crate::M::b` and `b.rs` is at the module's top. The module's root
/// file (`src/M.rs`, which declares the files and re-exports their items) is not a node: its
/// items are the module's interface.
fn file_graphs() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(&source_dir(), &mut files);
    let known: BTreeSet<&Path> = files.iter().map(PathBuf::as_path).collect();
    let mut graphs: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for path in &files {
        let Some(module) = module_of(path) else { continue };
        if path.parent() == Some(source_dir().as_path()) {
            continue;
        }
        let module_dir = source_dir().join(&module);
        let node = |file: &Path| {
            file.strip_prefix(&module_dir).expect("in module").with_extension("").display().to_string()
        };
        let text = fs::read_to_string(path).expect("read source file");
        let (beside, top) = inner_imports_of(&text, &module);
        let here = path.parent().expect("in a folder");
        let targets: BTreeSet<String> = beside
            .iter()
            .map(|name| here.join(format!("{name}.rs")))
            .chain(top.iter().map(|name| module_dir.join(format!("{name}.rs"))))
            .filter(|target| target != path && known.contains(target.as_path()))
            .map(|target| node(&target))
            .collect();
        graphs.entry(module).or_default().insert(node(path), targets);
    }
    graphs
}

/// Every cycle found by a depth-first search of `graph`, as `a → b → a`.
fn cycles_of(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        colour: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
        cycles: &mut Vec<String>,
    ) {
        colour.insert(node, 1);
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            match colour.get(next.as_str()).copied().unwrap_or(0) {
                0 => visit(next, graph, colour, path, cycles),
                1 => {
                    let from = path.iter().position(|n| *n == next).expect("on path");
                    cycles.push(format!("{} → {next}", path[from..].join(" → ")));
                }
                _ => {}
            }
        }
        path.pop();
        colour.insert(node, 2);
    }
    let mut colour = BTreeMap::new();
    let mut cycles = Vec::new();
    for node in graph.keys() {
        if colour.get(node.as_str()).copied().unwrap_or(0) == 0 {
            visit(node, graph, &mut colour, &mut Vec::new(), &mut cycles);
        }
    }
    cycles
}

#[test]
fn the_files_inside_each_module_import_one_way() {
    let mut found = Vec::new();
    for (module, graph) in file_graphs() {
        found.extend(cycles_of(&graph).into_iter().map(|cycle| format!("{module}: {cycle}")));
    }
    assert!(found.is_empty(), "file cycles inside modules:\n{}", found.join("\n"));
}

#[test]
fn a_file_cycle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
        ("d".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(cycles_of(&graph), ["a → b → c → a"]);
    let text = "use super::{b, c::X};\nuse crate::m::d;\nuse crate::other::e;\n// super::f\n";
    let (beside, top) = inner_imports_of(text, "m");
    assert_eq!(beside.into_iter().collect::<Vec<_>>(), ["b", "c"]);
    assert_eq!(top.into_iter().collect::<Vec<_>>(), ["d"]);
}

#[test]
fn the_reader_sees_grouped_and_nested_paths() {
    let text = "use crate::{a::b, c::{d, e}};\n// crate::commented\nfn f() { crate::g::h(); }\n";
    let found: Vec<String> = imports_of(text).into_iter().collect();
    assert_eq!(found, ["a", "c", "g"]);
}

/// The most lines a source file holds before its unit tests.
const MAX_FILE_LINES: usize = 800;
/// The most lines one function spans, its signature and closing brace included.
const MAX_FUNCTION_LINES: usize = 120;

/// The functions of `text` longer than `MAX_FUNCTION_LINES`, as `name (N lines)`: each `fn`
/// that opens a body runs to the first line that closes it at the `fn`'s own indentation.
fn long_functions(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let signature = ["pub(crate) ", "pub(super) ", "pub ", "const ", "unsafe ", "async "]
            .iter()
            .fold(code, |rest, prefix| rest.strip_prefix(prefix).unwrap_or(rest));
        let Some(after) = signature.strip_prefix("fn ") else { continue };
        let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        // A declaration without a body (a trait's) ends with `;` before any `{`.
        let opens = lines[start..].iter().find(|l| l.contains('{') || l.trim_end().ends_with(';'));
        if !opens.is_some_and(|l| l.contains('{')) {
            continue;
        }
        let closing = format!("{indent}}}");
        let end = (start..lines.len()).find(|&i| lines[i].trim_end() == closing).unwrap_or(start);
        if end + 1 - start > MAX_FUNCTION_LINES {
            found.push(format!("{name} ({} lines)", end + 1 - start));
        }
    }
    found
}

#[test]
fn files_and_functions_stay_small() {
    let mut files = Vec::new();
    rust_files(&source_dir(), &mut files);
    let mut large = Vec::new();
    for path in &files {
        let text = fs::read_to_string(path).expect("read source file");
        let code = text.split("\n#[cfg(test)]").next().unwrap_or_default();
        let shown = path.strip_prefix(source_dir()).expect("under src").display();
        let lines = code.lines().count();
        if lines > MAX_FILE_LINES {
            large.push(format!("{shown}: {lines} lines"));
        }
        large.extend(long_functions(code).into_iter().map(|f| format!("{shown}: fn {f}")));
    }
    assert!(large.is_empty(), "split these by concept:\n{}", large.join("\n"));
}

#[test]
fn a_long_function_is_found() {
    let body = "    let x = 1;\n".repeat(MAX_FUNCTION_LINES);
    let text = format!("fn short() {{\n}}\n\nfn long() {{\n{body}}}\n\ntrait T {{\n    fn declared(\n        &self,\n    );\n}}\n");
    assert_eq!(long_functions(&text), [format!("long ({} lines)", MAX_FUNCTION_LINES + 2)]);
}
