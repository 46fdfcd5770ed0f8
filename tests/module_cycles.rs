//! No import cycles between the top-level modules of any crate: a module may
//! use the modules below it, never one that uses it back. Read from the source
//! text (every `crate::name` path outside tests), so it needs no tool beyond
//! the test itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Top-level module of a file under `src/`: `rules/cross/x.rs` -> `rules`.
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_string_lossy().into_owned();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// Edges `a -> b` for every `crate::b` named in module `a`, with the line as evidence.
fn edges(src: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| top_module(src, f)).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in &files {
        let Some(from) = top_module(src, file) else { continue };
        let text = std::fs::read_to_string(file).unwrap();
        // Tests may reach anywhere; only the code that ships counts.
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in text.lines().enumerate() {
            let line = line.split("//").next().unwrap_or("");
            let mut rest = line;
            while let Some(at) = rest.find("crate::") {
                rest = &rest[at + "crate::".len()..];
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                // `crate::{a, b}` lists.
                let names: Vec<String> = match rest.strip_prefix('{') {
                    Some(list) => {
                        let inner = list.split('}').next().unwrap_or("");
                        inner.split(',').map(|s| s.trim().split("::").next().unwrap_or("").to_string()).collect()
                    }
                    None => vec![name],
                };
                for to in names {
                    if to != from && modules.contains(&to) {
                        graph
                            .entry(from.clone())
                            .or_default()
                            .entry(to)
                            .or_insert_with(|| format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                    }
                }
            }
        }
    }
    graph
}

fn find_cycle(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeMap<String, String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flat_map(|m| m.keys()) {
            if let Some(c) = visit(next, graph, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for krate in ["crates/cfg-core", "crates/cfg-lint", "crates/cfg-bench", "web"] {
        let graph = edges(&root.join(krate).join("src"));
        if let Some(cycle) = find_cycle(&graph) {
            let evidence: Vec<String> = cycle.windows(2).map(|w| graph[&w[0]][&w[1]].clone()).collect();
            panic!("{krate}: import cycle {}\n{}", cycle.join(" -> "), evidence.join("\n"));
        }
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    graph.entry("a".into()).or_default().insert("b".into(), String::new());
    graph.entry("b".into()).or_default().insert("c".into(), String::new());
    assert_eq!(find_cycle(&graph), None);
    graph.entry("c".into()).or_default().insert("a".into(), String::new());
    assert_eq!(find_cycle(&graph), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
}
