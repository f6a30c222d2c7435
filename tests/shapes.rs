//! Real shapes of memory folders (`tests/fixtures/shapes/<shape>/`): each folder's `memory/` is
//! read from disk into the core's inputs — the listing with mtimes from `ages.json`, the heads
//! for the scan, the whole files for doctor, `MEMORY.md` for the index — and checked against
//! its `expect.json`: types and times, scan diagnostics, doctor's complete findings, what the
//! fixes may change (never a link that leaves the folder), the index view and offline recall.
//! `tests/js/shapes.test.mjs` checks the same `expect.json` through the built package and the
//! Node host, which also looks the outside links up.

// A test may panic on a malformed fixture: that is a failing test, not a runtime fault.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use memdir::codes::EntryKind;
use memdir::doctor::fix::plan_doctor_fixes;
use memdir::doctor::{doctor, outside_links, DoctorInput, DoctorReport};
use memdir::freshness::age_days;
use memdir::index::{index_prompt, IndexInput};
use memdir::lexical::{lexical_select, LexicalInput};
use memdir::scan::{scan_memories, FileHead, Head, Memory, ScanResult};
use memdir::side_query::request::{build_selection_request, SelectionInput};
use memdir::write::entry::{classify, Line, Target, MAX_ENTRY_UTF16};
use memdir::write::snapshot::Entry;
use memdir::write::Effect;
use memdir::Limits;
use serde_json::{json, Value};

const DAY_MS: f64 = 86_400_000.0;
/// Each file is this much older than its whole days in `ages.json` (as `examples/ages.mjs`).
const AGE_MARGIN_MS: f64 = 60_000.0;

/// One shape folder, read.
struct Shape {
    name: String,
    expect: Value,
    now_ms: f64,
    /// Relative path → bytes, for every file under `memory/`.
    files: BTreeMap<String, Vec<u8>>,
    /// The listing: files and folders.
    entries: Vec<Entry>,
}

fn iso_ms(text: &str) -> f64 {
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap_or_else(|e| panic!("{text:?} is not an RFC 3339 time: {e}"))
        .timestamp_millis() as f64
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, bool)>) {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let is_dir = path.is_dir();
        out.push((rel, is_dir));
        if is_dir {
            walk(root, &path, out);
        }
    }
}

fn load(dir: &Path) -> Shape {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let expect: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("expect.json")).unwrap()).unwrap();
    let ages: BTreeMap<String, f64> =
        serde_json::from_str(&fs::read_to_string(dir.join("ages.json")).unwrap()).unwrap();
    let now_ms = iso_ms(expect["now"].as_str().expect("now"));
    let root = dir.join("memory");
    let mut listed = Vec::new();
    walk(&root, &root, &mut listed);
    let mut files = BTreeMap::new();
    let mut entries = Vec::new();
    for (path, is_dir) in listed {
        if is_dir {
            entries.push(Entry {
                path,
                kind: EntryKind::Directory,
                size: 0.0,
                mtime_ms: now_ms,
                problem: None,
            });
            continue;
        }
        let bytes = fs::read(root.join(&path)).unwrap();
        let days = ages
            .get(&path)
            .unwrap_or_else(|| panic!("{name}: {path} has no age in ages.json"));
        entries.push(Entry {
            path: path.clone(),
            kind: EntryKind::File,
            size: bytes.len() as f64,
            mtime_ms: now_ms - days * DAY_MS - AGE_MARGIN_MS,
            problem: None,
        });
        files.insert(path, bytes);
    }
    for path in ages.keys() {
        assert!(
            files.contains_key(path),
            "{name}: ages.json names {path}, which is not in memory/"
        );
    }
    Shape {
        name,
        expect,
        now_ms,
        files,
        entries,
    }
}

fn shapes() -> Vec<Shape> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shapes");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expect.json").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "only {} shape folders", dirs.len());
    dirs.iter().map(|d| load(d)).collect()
}

impl Shape {
    fn mtime(&self, path: &str) -> f64 {
        self.entries
            .iter()
            .find(|e| e.path == path)
            .map(|e| e.mtime_ms)
            .unwrap()
    }

    fn index_text(&self) -> String {
        self.files
            .get("MEMORY.md")
            .map(|b| String::from_utf8(b.clone()).unwrap())
            .unwrap_or_default()
    }

    fn scan(&self) -> ScanResult {
        let heads: Vec<FileHead> = self
            .entries
            .iter()
            .map(|e| FileHead {
                path: e.path.clone(),
                mtime_ms: e.mtime_ms,
                head: self.files.get(&e.path).map(|b| Head::Bytes(b.clone())),
                kind: Some(e.kind),
                problem: None,
            })
            .collect();
        scan_memories(&heads, &Limits::default())
    }

    /// What doctor reads; `known`: pass the host's answers for outside links (else `null`:
    /// memdir could not look).
    fn doctor_input(&self, known: bool) -> DoctorInput {
        let outside = outside_links(&self.index_text())
            .into_iter()
            .map(|link| {
                let found = known
                    .then(|| self.expect["outside"][&link].as_bool())
                    .flatten();
                (link, found)
            })
            .collect();
        DoctorInput {
            entries: self.entries.clone(),
            contents: self
                .files
                .iter()
                .map(|(p, b)| (p.clone(), Head::Bytes(b.clone())))
                .collect(),
            now_ms: self.now_ms,
            limits: None,
            stale_core_days: None,
            outside,
        }
    }

    fn fail(&self, what: &str, want: impl std::fmt::Debug, got: impl std::fmt::Debug) -> String {
        format!(
            "{} › {what}:\n  expected {want:?}\n  got      {got:?}",
            self.name
        )
    }
}

/// `[code, file, line]` triples, sorted.
fn triples(report: &DoctorReport) -> Vec<String> {
    let mut out: Vec<String> = report
        .findings
        .iter()
        .map(|f| json!([f.code, f.file, f.line]).to_string())
        .collect();
    out.sort();
    out
}

/// The expected triples as written (memdir could not look outside), or with each `outside_link`
/// turned into the host's answer for the link on that line of `index`: found → no finding,
/// gone → `outside_link_missing`, `null` (the host cannot look there either) → unchanged.
fn expected(list: &Value, index: &str, outside: Option<&Value>) -> Vec<String> {
    let lines: Vec<&str> = index.split('\n').collect();
    let mut out: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| {
            let Some(outside) = outside else {
                return Some(t.to_string());
            };
            if t[0] != "outside_link" {
                return Some(t.to_string());
            }
            let n = t[2].as_u64().unwrap() as usize;
            let Line::Entry(e) = classify(lines[n - 1]) else {
                panic!("line {n} of MEMORY.md is not an entry");
            };
            let Target::Outside(raw) = e.destination() else {
                panic!("line {n} of MEMORY.md does not link outside");
            };
            match outside.get(&raw) {
                Some(Value::Bool(true)) => None,
                Some(Value::Bool(false)) => {
                    Some(json!(["outside_link_missing", "MEMORY.md", n]).to_string())
                }
                Some(Value::Null) => Some(t.to_string()), // the host could not look either
                _ => panic!("expect.json's outside has no answer for {raw}"),
            }
        })
        .collect();
    out.sort();
    out
}

fn check_files(shape: &Shape, scan: &ScanResult, errors: &mut Vec<String>) {
    let want = shape.expect["files"].as_object().unwrap();
    let all: Vec<&Memory> = scan.memories.iter().chain(&scan.dropped).collect();
    let got: BTreeSet<&str> = all.iter().map(|m| m.path.as_str()).collect();
    let want_paths: BTreeSet<&str> = want.keys().map(String::as_str).collect();
    if got != want_paths {
        errors.push(shape.fail("topic files", &want_paths, &got));
    }
    for m in all {
        let Some(w) = want.get(&m.path) else { continue };
        let ty = m.memory_type.map(|t| t.as_str());
        if w["type"].as_str() != ty {
            errors.push(shape.fail(&format!("type of {}", m.path), &w["type"], ty));
        }
        let time = m.time();
        assert_eq!(
            m.mtime_ms,
            shape.mtime(&m.path),
            "{}: mtime of {}",
            shape.name,
            m.path
        );
        let modified = m
            .metadata
            .as_ref()
            .and_then(|meta| meta.get("modified"))
            .and_then(Value::as_str);
        let want_time =
            match w["timeFrom"].as_str().unwrap() {
                "mtime" => m.mtime_ms,
                "modified" => iso_ms(modified.unwrap_or_else(|| {
                    panic!("{}: {} has no metadata.modified", shape.name, m.path)
                })),
                other => panic!("timeFrom {other}"),
            };
        if time != want_time {
            errors.push(shape.fail(
                &format!("time of {} ({})", m.path, w["timeFrom"]),
                want_time,
                time,
            ));
        }
        let days = age_days(time, shape.now_ms);
        if u64::from(days) != w["ageDays"].as_u64().unwrap() {
            errors.push(shape.fail(&format!("age of {}", m.path), &w["ageDays"], days));
        }
    }
    if let Some(order) = shape.expect.get("order") {
        let got: Vec<&str> = scan.memories.iter().map(|m| m.path.as_str()).collect();
        let want: Vec<&str> = order
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        if got != want {
            errors.push(shape.fail("order, newest first", want, got));
        }
    }
    let mut diagnostics: Vec<String> = scan
        .diagnostics
        .iter()
        .map(|d| json!([d.code, d.path, d.line]).to_string())
        .collect();
    diagnostics.sort();
    let want = expected(&shape.expect["scanDiagnostics"], "", None);
    if diagnostics != want {
        errors.push(shape.fail("scan diagnostics", want, diagnostics));
    }
}

fn check_doctor(shape: &Shape, errors: &mut Vec<String>) {
    let index = shape.index_text();
    let links: BTreeSet<String> = outside_links(&index).into_iter().collect();
    let listed: BTreeSet<String> = shape.expect["outside"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    if links != listed {
        errors.push(shape.fail("outside links (expect.json's outside)", &listed, &links));
    }
    for known in [false, true] {
        let got = triples(&doctor(&shape.doctor_input(known)));
        let want = expected(
            &shape.expect["doctor"],
            &index,
            known.then(|| &shape.expect["outside"]),
        );
        if got != want {
            let what = if known {
                "doctor findings, outside links looked up"
            } else {
                "doctor findings"
            };
            errors.push(shape.fail(what, want, got));
        }
    }
}

/// The fixed index: the old lines minus `removed`, `shortened` ones replaced by a shorter entry
/// to the same file, every other line byte for byte, and one entry per `appended` file, right
/// after old line `addedAfter` (the last entry: new entries join the list), else at the end.
fn check_index_fix(old: &str, new: &str, spec: &Value) -> Result<(), String> {
    let nums = |key: &str| -> Vec<usize> {
        spec[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect()
    };
    let (removed, shortened) = (nums("removed"), nums("shortened"));
    let appended: Vec<&str> = spec["appended"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut kept: Vec<(usize, &str)> = if old.is_empty() {
        Vec::new()
    } else {
        old.split('\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .filter(|(n, _)| !removed.contains(n))
            .collect()
    };
    let after = spec["addedAfter"].as_u64().map(|n| n as usize);
    if after.is_none() {
        while kept.last().is_some_and(|(_, l)| l.trim().is_empty()) {
            kept.pop();
        }
    } else if kept.last().is_some_and(|(_, l)| l.is_empty()) {
        kept.pop(); // the split's empty piece after the final newline
    }
    let at = after.map_or(kept.len(), |a| kept.iter().filter(|(n, _)| *n <= a).count());
    let new_lines: Vec<&str> = new.split('\n').collect();
    let want_len = kept.len() + appended.len() + 1;
    if new_lines.len() != want_len || new_lines.last() != Some(&"") {
        return Err(format!(
            "{} lines ending in a newline expected, got {} (last {:?}):\n{new}",
            want_len - 1,
            new_lines.len() - 1,
            new_lines.last().copied().unwrap_or_default()
        ));
    }
    let olds = new_lines
        .iter()
        .take(at)
        .chain(new_lines.iter().skip(at + appended.len()));
    for ((n, old_line), new_line) in kept.iter().zip(olds) {
        if shortened.contains(n) {
            let (Line::Entry(a), Line::Entry(b)) = (classify(old_line), classify(new_line)) else {
                return Err(format!("line {n} is no longer an entry: {new_line:?}"));
            };
            let units = new_line.encode_utf16().count();
            if a.file() != b.file() || units > MAX_ENTRY_UTF16 || new_line.len() >= old_line.len() {
                return Err(format!(
                    "line {n} was not shortened to a {MAX_ENTRY_UTF16}-unit entry to the same file: {new_line:?}"
                ));
            }
        } else if old_line != new_line {
            return Err(format!(
                "line {n} changed: {old_line:?} became {new_line:?}"
            ));
        }
    }
    for (path, line) in appended.iter().zip(&new_lines[at..]) {
        match classify(line) {
            Line::Entry(e) if e.file().as_deref() == Some(*path) => {}
            _ => return Err(format!("expected an entry for {path}, got {line:?}")),
        }
    }
    Ok(())
}

/// Runs of letters and digits, lower-cased, link destinations (`](…)`) left out.
fn prose_words<'a>(texts: impl Iterator<Item = &'a String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for text in texts {
        let mut prose = String::new();
        for line in text.split('\n') {
            let mut rest = line;
            while let Some(at) = rest.find("](") {
                prose.push_str(&rest[..at]);
                prose.push(' ');
                rest = &rest[at + 2..];
                let end = if rest.trim_start().starts_with('<') {
                    rest.find(">)").map(|i| i + 2)
                } else {
                    rest.find(')')
                        .filter(|&i| !rest[..i].trim().contains(' '))
                        .map(|i| i + 1)
                };
                rest = &rest[end.unwrap_or(0)..];
            }
            prose.push_str(rest);
            prose.push('\n');
        }
        out.extend(
            prose
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase),
        );
    }
    out
}

/// A compacted index: under its limits, and every file the fix wrote new linked from it.
fn check_compaction(new: &str, written: &BTreeMap<String, String>) -> Result<(), String> {
    let (lines, units) = memdir::write::guard::index_size(new);
    if lines > 200 || units > 25_000 {
        return Err(format!(
            "still over its limits: {lines} lines, {units} units"
        ));
    }
    for path in written.keys().filter(|p| *p != "MEMORY.md") {
        if !new.contains(&format!("]({path})")) {
            return Err(format!("{path} is written but not linked from the index"));
        }
    }
    Ok(())
}

/// A folded description: lines `[a, b]` (1-based) became one `description:` line, the rest is
/// unchanged.
fn check_fold(old: &str, new: &str, region: &Value) -> Result<(), String> {
    let a = region[0].as_u64().unwrap() as usize;
    let b = region[1].as_u64().unwrap() as usize;
    let old_lines: Vec<&str> = old.split('\n').collect();
    let new_lines: Vec<&str> = new.split('\n').collect();
    let same_before = old_lines[..a - 1] == new_lines[..a - 1];
    let same_after = old_lines[b..] == new_lines[a..];
    if !same_before || !same_after || !new_lines[a - 1].starts_with("description: ") {
        return Err(format!(
            "lines {a}–{b} should have become one description line:\n{new}"
        ));
    }
    Ok(())
}

fn check_fixes(shape: &Shape, errors: &mut Vec<String>) {
    let spec = &shape.expect["fix"];
    let plan = plan_doctor_fixes(&shape.doctor_input(false));
    let mut written = BTreeMap::new();
    for effect in &plan.effects {
        match effect {
            Effect::Write { path, text, .. } => {
                written.insert(path.clone(), text.clone());
            }
            other => errors.push(shape.fail("fix effects", "writes only", other)),
        }
    }
    let want: BTreeSet<&str> = spec["writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let got: BTreeSet<&str> = written.keys().map(String::as_str).collect();
    if got != want {
        errors.push(shape.fail("files the fixes write", &want, &got));
    }
    if u64::from(plan.fixed) != spec["fixed"].as_u64().unwrap() {
        errors.push(shape.fail("findings fixed", &spec["fixed"], plan.fixed));
    }
    let old_index = shape.index_text();
    let new_index = written
        .get("MEMORY.md")
        .cloned()
        .unwrap_or(old_index.clone());
    if written.contains_key("MEMORY.md") {
        let checked = if spec["index"]["compacted"].as_bool() == Some(true) {
            check_compaction(&new_index, &written)
        } else {
            check_index_fix(&old_index, &new_index, &spec["index"])
        };
        if let Err(e) = checked {
            errors.push(format!("{} › fixed MEMORY.md: {e}", shape.name));
        }
    }
    // no word that exists nowhere else is removed: every word of the folder is still in it
    let mut after: BTreeMap<String, String> = shape
        .files
        .iter()
        .map(|(p, b)| (p.clone(), String::from_utf8_lossy(b).into_owned()))
        .collect();
    let before_words = prose_words(after.values());
    after.extend(written.clone());
    let after_words = prose_words(after.values());
    let lost: Vec<&String> = before_words.difference(&after_words).collect();
    if !lost.is_empty() {
        errors.push(format!("{} › the fixes lost words: {lost:?}", shape.name));
    }
    // a link that leaves the folder is never touched
    for line in old_index.split('\n') {
        let outside = matches!(classify(line), Line::Entry(e) if matches!(e.destination(), Target::Outside(_)));
        if outside && !new_index.split('\n').any(|l| l == line) {
            errors.push(format!(
                "{} › the fixes changed an outside link: {line:?}",
                shape.name
            ));
        }
    }
    for (path, region) in spec["folded"].as_object().unwrap() {
        let old = String::from_utf8(shape.files[path].clone()).unwrap();
        match written.get(path) {
            Some(new) => {
                if let Err(e) = check_fold(&old, new, region) {
                    errors.push(format!("{} › fixed {path}: {e}", shape.name));
                }
            }
            None => errors.push(format!("{} › {path} was not folded", shape.name)),
        }
    }
    let after = spec.get("after").unwrap_or(&shape.expect["doctor"]);
    let want = expected(after, &new_index, None);
    let got = triples(&plan.after);
    if got != want {
        errors.push(shape.fail("doctor findings after the fixes", want, got));
    }
}

fn check_index(shape: &Shape, errors: &mut Vec<String>) {
    let want = &shape.expect["index"];
    let view = index_prompt(&IndexInput {
        scope: None,
        content: Head::Bytes(shape.files.get("MEMORY.md").cloned().unwrap_or_default()),
        file_bytes: None,
        absolute_path: "/memory/MEMORY.md".into(),
        limits: None,
    });
    let got = json!({
        "lineCount": view.view.line_count,
        "wasLineTruncated": view.view.was_line_truncated,
        "wasSizeTruncated": view.view.was_size_truncated,
    });
    let figures = json!({
        "lineCount": want["lineCount"],
        "wasLineTruncated": want["wasLineTruncated"],
        "wasSizeTruncated": want["wasSizeTruncated"],
    });
    if got != figures {
        errors.push(shape.fail("index view", figures, got));
    }
    for s in want["contains"].as_array().unwrap() {
        if !view.prompt.contains(s.as_str().unwrap()) {
            errors.push(shape.fail("index prompt contains", s, &view.prompt));
        }
    }
    for s in want["excludes"].as_array().unwrap() {
        if view.prompt.contains(s.as_str().unwrap()) {
            errors.push(shape.fail("index prompt leaves out", s, &view.prompt));
        }
    }
    if want["lineCount"] == 0 && !view.prompt.is_empty() {
        errors.push(shape.fail("index prompt", "", &view.prompt));
    }
}

fn check_recall(shape: &Shape, scan: &ScanResult, errors: &mut Vec<String>) {
    for case in shape.expect["recall"].as_array().unwrap() {
        let query = case["query"].as_str().unwrap();
        let request = build_selection_request(&SelectionInput {
            query: query.into(),
            memories: scan.memories.clone(),
            already_surfaced: Vec::new(),
            recent_tools: Vec::new(),
            surfaced_utf16: 0.0,
            limits: None,
        });
        let (outcome, selected) = match request.skip {
            Some(skip) => (
                serde_json::to_value(skip)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned(),
                Vec::new(),
            ),
            None => {
                let candidates: BTreeSet<&str> =
                    request.candidates.iter().map(String::as_str).collect();
                let memories: Vec<Memory> = scan
                    .memories
                    .iter()
                    .filter(|m| candidates.contains(m.path.as_str()))
                    .cloned()
                    .collect();
                let heads = memories
                    .iter()
                    .map(|m| (m.path.clone(), Head::Bytes(shape.files[&m.path].clone())))
                    .collect();
                let chosen = lexical_select(&LexicalInput {
                    query: query.into(),
                    memories,
                    recent_tools: Vec::new(),
                    heads,
                    limits: None,
                })
                .selected;
                let outcome = if chosen.is_empty() {
                    "none_selected"
                } else {
                    "selected"
                };
                (outcome.to_owned(), chosen)
            }
        };
        let want: Vec<&str> = case["selected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        if selected != want {
            errors.push(shape.fail(&format!("recall {query:?}"), &want, &selected));
        }
        let want_outcome = case["outcome"].as_str().unwrap_or(if want.is_empty() {
            "none_selected"
        } else {
            "selected"
        });
        if outcome != want_outcome {
            errors.push(shape.fail(&format!("recall {query:?} outcome"), want_outcome, outcome));
        }
    }
}

#[test]
fn real_shapes_hold_natively() {
    let mut errors = Vec::new();
    for shape in shapes() {
        let scan = shape.scan();
        check_files(&shape, &scan, &mut errors);
        check_doctor(&shape, &mut errors);
        check_fixes(&shape, &mut errors);
        check_index(&shape, &mut errors);
        check_recall(&shape, &scan, &mut errors);
    }
    assert!(
        errors.is_empty(),
        "{} shape checks failed:\n{}",
        errors.len(),
        errors.join("\n")
    );
}
