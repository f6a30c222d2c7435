//! The core's modules import one another without a circle: a newcomer can read `src/` from the
//! leaves up (issue 22: `scan ↔ scan_memo ↔ packed ↔ lexical` was one). Every `crate::`,
//! `super::` and `self::` path in a module's code (its test module left out) is an edge to the
//! module it names; a module and the modules inside it are one another's parts, not edges.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every module under `src/` by its path (`scan`, `doctor::fix`), with its source.
fn modules() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    let root = stack[0].clone();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(&root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            let source = std::fs::read_to_string(&path).unwrap();
            // the test module (at the end of a file, by this crate's custom) is not the module's code
            let code = source
                .split("#[cfg(test)]\n#[allow(")
                .next()
                .unwrap_or(&source);
            let code = code.split("#[cfg(test)]\nmod tests").next().unwrap_or(code);
            // comments (doc links) name modules without importing them
            let code: Vec<&str> = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            out.insert(parts.join("::"), code.join("\n"));
        }
    }
    out
}

/// The module a path names (`crate::scan::Memory` → `scan`), the longest that exists.
fn target(path: &[&str], from: &str, known: &BTreeMap<String, String>) -> Option<String> {
    let mut segments: Vec<String> = match path.first().copied() {
        Some("crate") => Vec::new(),
        Some("super") => {
            let mut up: Vec<String> = from.split("::").map(str::to_owned).collect();
            up.pop();
            up
        }
        Some("self") => from.split("::").map(str::to_owned).collect(),
        _ => return None,
    };
    segments.retain(|s| !s.is_empty());
    segments.extend(path.iter().skip(1).map(|s| (*s).to_owned()));
    (1..=segments.len())
        .rev()
        .map(|k| segments[..k].join("::"))
        .find(|m| known.contains_key(m))
}

fn edges(known: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for (module, code) in known {
        let mut to = BTreeSet::new();
        // `crate::a::b`, and the items of `use crate::{a, b::c}`
        let text = code;
        for start in ["crate::", "super::", "self::"] {
            for (at, _) in text.match_indices(start) {
                let before = text[..at].chars().last();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = &text[at..];
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(rest.len());
                let path: Vec<&str> = rest[..end].split("::").filter(|s| !s.is_empty()).collect();
                let mut found = target(&path, module, known);
                // `use crate::{scan, lexical::Document}`: each item after the brace
                if rest[end..].starts_with('{') {
                    let close = rest[end..].find('}').map_or(rest.len(), |c| end + c);
                    for item in rest[end + 1..close].split(',') {
                        let mut full = path.clone();
                        full.extend(item.trim().split("::").filter(|s| !s.is_empty()));
                        if let Some(t) = target(&full, module, known) {
                            to.insert(t);
                        }
                    }
                    found = None;
                }
                if let Some(t) = found {
                    to.insert(t);
                }
            }
        }
        to.retain(|t: &String| {
            t != module
                && !t.starts_with(&format!("{module}::"))
                && !module.starts_with(&format!("{t}::"))
                && !t.is_empty()
        });
        out.insert(module.clone(), to);
    }
    out
}

#[test]
fn the_modules_of_src_import_one_another_without_a_circle() {
    let known = modules();
    assert!(
        known.contains_key("scan_session") && known.contains_key("doctor::fix"),
        "{:?}",
        known.keys()
    );
    let graph = edges(&known);
    assert!(
        graph["scan_session"].contains("scan") && graph["scan_session"].contains("lexical"),
        "the edges are read: {:?}",
        graph["scan_session"]
    );
    // depth-first, with the path taken: a module met again on it closes a circle
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut circle = path[at..].to_vec();
            circle.push(m.to_owned());
            return Some(circle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_owned());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(m.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        if let Some(circle) = visit(module, &graph, &mut Vec::new(), &mut done) {
            panic!("an import circle in src/: {}", circle.join(" → "));
        }
    }
}
