//! The checks themselves. Index findings come first, by line; then files, by path.

use std::collections::{BTreeMap, BTreeSet};

use super::fix::{description_region, folded_description_file};
use super::{DoctorInput, Finding, Severity, DEFAULT_STALE_CORE_DAYS};
use crate::freshness::age_days;
use crate::frontmatter::MemoryType;
use crate::limits::{to_usize, Limits};
use crate::scan::{scan_memories, FileHead, ScanResult, INDEX_FILE_NAME};
use crate::secrets::find_secrets;
use crate::text::utf16_len;
use crate::write::entry::{classify, format_entry, unescape_title, Line, MAX_ENTRY_UTF16};
use crate::write::guard::index_size;
use crate::write::similar::{name_key, similar_descriptions};
use crate::write::Snapshot;

/// Pairs of files compared for near-duplicate descriptions stop here (names are always compared).
const MAX_COMPARED_FILES: usize = 1_000;
/// Fewer words than this, and a description cannot tell the selector much.
const MIN_DESCRIPTION_WORDS: usize = 4;
const VAGUE: &[&str] = &[
    "notes",
    "misc",
    "stuff",
    "todo",
    "info",
    "memory",
    "various",
    "things",
    "general",
    "important",
    "see file",
];

fn finding(
    code: &'static str,
    severity: Severity,
    file: &str,
    line: Option<usize>,
    message: String,
    fix: Option<String>,
) -> Finding {
    Finding {
        code,
        severity,
        file: file.to_owned(),
        line: line.and_then(|l| u32::try_from(l).ok()),
        message,
        fix,
    }
}

pub(super) fn run(input: &DoctorInput) -> Vec<Finding> {
    let limits = input.limits.unwrap_or_default();
    let snapshot = input.snapshot();
    let mut out = Vec::new();
    let indexed = index_checks(&snapshot, &limits, &mut out);
    file_checks(input, &snapshot, &limits, &indexed, &mut out);
    out
}

/// Index checks; returns the local targets the index links to.
fn index_checks(snapshot: &Snapshot, limits: &Limits, out: &mut Vec<Finding>) -> BTreeSet<String> {
    let mut targets = BTreeSet::new();
    let exists = snapshot.entry(INDEX_FILE_NAME).is_some();
    let text = snapshot.index_text();
    if !exists {
        if snapshot.topic_files().next().is_some() {
            out.push(finding(
                "index_missing",
                Severity::Warning,
                INDEX_FILE_NAME,
                None,
                "there is no MEMORY.md: no memory is listed in the prompt".into(),
                None,
            ));
        }
        return targets;
    }
    let (lines, units) = index_size(&text);
    if lines > to_usize(limits.max_index_lines) {
        out.push(finding("index_over_lines", Severity::Error, INDEX_FILE_NAME, Some(to_usize(limits.max_index_lines) + 1),
            format!("MEMORY.md has {lines} lines; only the first {} are loaded, the rest are silently cut", limits.max_index_lines), None));
    }
    if units > to_usize(limits.max_index_utf16) {
        out.push(finding(
            "index_over_size",
            Severity::Error,
            INDEX_FILE_NAME,
            None,
            format!(
                "MEMORY.md is {units} UTF-16 units; only the first {} are loaded",
                limits.max_index_utf16
            ),
            None,
        ));
    }
    let mut run_start: Option<usize> = None;
    let all: Vec<&str> = text.split('\n').collect();
    let flush = |start: &mut Option<usize>, end: usize, out: &mut Vec<Finding>| {
        if let Some(s) = start.take() {
            let span = if end == s {
                format!("line {s} is")
            } else {
                format!("lines {s}–{end} are")
            };
            out.push(finding("index_content", Severity::Error, INDEX_FILE_NAME, Some(s),
                format!("{span} content, not index entries: MEMORY.md should hold only `- [Title](file.md) — hook` lines; move the content into a topic file"), None));
        }
    };
    for (i, line) in all.iter().enumerate() {
        let n = i + 1;
        match classify(line) {
            Line::Content => {
                run_start.get_or_insert(n);
                continue;
            }
            Line::Entry(e) if e.is_local() => {
                flush(&mut run_start, n - 1, out);
                let target = e.target.to_owned();
                if !snapshot.is_file(&target) {
                    out.push(finding(
                        "dead_link",
                        Severity::Error,
                        INDEX_FILE_NAME,
                        Some(n),
                        format!("the entry links to {target}, which does not exist"),
                        Some(format!("remove line {n}")),
                    ));
                    continue;
                }
                if !targets.insert(target.clone()) {
                    out.push(finding(
                        "duplicate_entry",
                        Severity::Warning,
                        INDEX_FILE_NAME,
                        Some(n),
                        format!("a second entry for {target}"),
                        Some(format!("remove line {n}")),
                    ));
                    continue;
                }
                let length = utf16_len(line);
                if length > MAX_ENTRY_UTF16 {
                    let fix = shorter_entry(line).map(|_| {
                        format!("shorten the hook of line {n} to fit {MAX_ENTRY_UTF16} characters")
                    });
                    out.push(finding("entry_too_long", Severity::Warning, INDEX_FILE_NAME, Some(n),
                        format!("the entry is {length} characters; entries should be one short line (under {MAX_ENTRY_UTF16}) with the detail in {target}"), fix));
                }
            }
            _ => flush(&mut run_start, n - 1, out),
        }
    }
    flush(&mut run_start, all.len(), out);
    for found in find_secrets(&text) {
        out.push(secret_finding(INDEX_FILE_NAME, &found));
    }
    targets
}

/// The entry with its hook shortened to fit, when that is possible.
pub(super) fn shorter_entry(line: &str) -> Option<String> {
    let Line::Entry(e) = classify(line) else {
        return None;
    };
    if e.hook.is_empty() {
        return None;
    }
    let title = unescape_title(e.title);
    let new = format_entry(&title, e.target, e.hook);
    (utf16_len(&new) <= MAX_ENTRY_UTF16 && new.len() < line.len()).then_some(new)
}

fn secret_finding(file: &str, found: &crate::secrets::SecretFinding) -> Finding {
    finding(
        "secret",
        Severity::Error,
        file,
        usize::try_from(found.line).ok(),
        format!(
            "line {} holds what looks like {} ({}); credentials do not belong in memory",
            found.line, found.kind, found.preview
        ),
        None,
    )
}

fn file_checks(
    input: &DoctorInput,
    snapshot: &Snapshot,
    limits: &Limits,
    indexed: &BTreeSet<String>,
    out: &mut Vec<Finding>,
) {
    let scanned = scan_all(snapshot, limits);
    let mut by_file: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    let mut push = |f: Finding| by_file.entry(f.file.clone()).or_default().push(f);

    for d in &scanned.diagnostics {
        let line = d.line.and_then(|l| usize::try_from(l).ok());
        let (code, severity, message): (&'static str, Severity, String) = match d.code.as_str() {
            "frontmatter_unclosed" => match late_close(snapshot, &d.path, limits) {
                Some(at) => ("frontmatter_late", Severity::Error, format!("frontmatter closes on line {at}, after the {} lines read, so it is ignored", limits.max_header_lines)),
                None => ("frontmatter_unclosed", Severity::Error, d.message.clone()),
            },
            "frontmatter_malformed" => ("frontmatter_malformed", Severity::Error, d.message.clone()),
            "frontmatter_missing" => ("frontmatter_missing", Severity::Warning, format!("{}: the selector sees only the file name", d.message)),
            "frontmatter_recovered" => ("frontmatter_recovered", Severity::Info, d.message.clone()),
            "description_missing" => ("description_missing", Severity::Warning, d.message.clone()),
            "description_not_text" => ("description_not_text", Severity::Warning, d.message.clone()),
            "unknown_type" => ("unknown_type", Severity::Warning, d.message.clone()),
            "invalid_utf8" => ("invalid_utf8", Severity::Warning, d.message.clone()),
            "symlink_escape" => ("symlink_escape", Severity::Warning, d.message.clone()),
            "not_a_file" => ("not_a_file", Severity::Warning, d.message.clone()),
            "head_missing" | "unreadable" | "vanished" => ("unreadable", Severity::Warning, "the file could not be read".into()),
            "unsafe_path" => ("unsafe_path", Severity::Warning, d.message.clone()),
            _ => ("scan", Severity::Info, format!("{}: {}", d.code, d.message)),
        };
        push(finding(code, severity, &d.path, line, message, None));
    }
    for m in &scanned.dropped {
        push(finding(
            "beyond_cap",
            Severity::Warning,
            &m.path,
            None,
            format!(
                "one of {} topic files beyond the newest {}: recall never considers it",
                scanned.memories.len() + scanned.dropped.len(),
                limits.max_files
            ),
            None,
        ));
    }
    let stale_days = input.stale_core_days.unwrap_or(DEFAULT_STALE_CORE_DAYS);
    let all: Vec<_> = scanned.memories.iter().chain(&scanned.dropped).collect();
    for m in &all {
        let text = snapshot.text(&m.path);
        if !indexed.contains(&m.path) {
            push(finding(
                "not_indexed",
                Severity::Warning,
                &m.path,
                None,
                "no MEMORY.md entry links to this file, so the index does not list it".into(),
                Some("add an entry to MEMORY.md".into()),
            ));
        }
        if let Some(d) = &m.description {
            let words = d.split_whitespace().count();
            let lower = d.to_lowercase();
            if words < MIN_DESCRIPTION_WORDS || VAGUE.contains(&lower.trim_end_matches('.')) {
                push(finding("description_vague", Severity::Warning, &m.path, None,
                    format!("the description {d:?} is too vague for the selector to judge when this memory helps; say what it covers and when it applies"), None));
            }
        }
        if let Some(text) = &text {
            if let Some((start, end)) = description_region(text, limits) {
                if end > start && folded_description_file(text, limits).is_some() {
                    push(finding(
                        "description_multiline",
                        Severity::Warning,
                        &m.path,
                        Some(start + 1),
                        format!(
                            "the description spans lines {}–{}; the selector reads one line a file",
                            start + 1,
                            end + 1
                        ),
                        Some("fold the description onto one line".into()),
                    ));
                }
            }
            for found in find_secrets(text) {
                push(secret_finding(&m.path, &found));
            }
        }
        if matches!(m.memory_type, Some(MemoryType::User | MemoryType::Feedback)) {
            let age = age_days(m.mtime_ms, input.now_ms);
            if age > stale_days {
                push(finding("stale_core_memory", Severity::Warning, &m.path, None,
                    format!("a {} memory last changed {age} days ago (over {stale_days}): check it still holds", m.memory_type.map_or("", MemoryType::as_str)), None));
            }
        }
    }
    // near-duplicates: same name, or almost the same description, reported on the later path
    let mut names: BTreeMap<String, &str> = BTreeMap::new();
    let mut sorted = all.clone();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for (i, m) in sorted.iter().enumerate() {
        if let Some(name) = &m.name {
            if let Some(first) = names.get(&name_key(name)) {
                push(finding(
                    "duplicate_topic",
                    Severity::Warning,
                    &m.path,
                    None,
                    format!("{first} has the same name ({name:?}): merge the two"),
                    None,
                ));
                continue;
            }
            names.insert(name_key(name), &m.path);
        }
        if i >= MAX_COMPARED_FILES {
            continue;
        }
        let Some(d) = &m.description else { continue };
        if let Some(other) = sorted.iter().take(i).find(|o| {
            o.description
                .as_deref()
                .is_some_and(|od| similar_descriptions(od, d))
        }) {
            push(finding(
                "duplicate_topic",
                Severity::Warning,
                &m.path,
                None,
                format!(
                    "{} has almost the same description: merge the two",
                    other.path
                ),
                None,
            ));
        }
    }
    for e in &snapshot.entries {
        let name = e.path.rsplit('/').next().unwrap_or("");
        if name.starts_with('.') && name.contains(".tmp-") {
            push(finding(
                "temp_file",
                Severity::Info,
                &e.path,
                None,
                "a temporary file left by an interrupted write; the file it was for is whole"
                    .into(),
                None,
            ));
        }
    }
    for (_, mut findings) in by_file {
        findings.sort_by_key(|f| (f.severity, f.line));
        out.extend(findings);
    }
}

/// The scan over every file of the snapshot (doctor reads them all).
pub(super) fn scan_all(snapshot: &Snapshot, limits: &Limits) -> ScanResult {
    let heads: Vec<FileHead> = snapshot
        .entries
        .iter()
        .map(|e| FileHead {
            path: e.path.clone(),
            mtime_ms: e.mtime_ms,
            head: snapshot.contents.get(&e.path).cloned(),
            kind: Some(e.kind.clone()),
            problem: e.problem.clone(),
        })
        .collect();
    scan_memories(&heads, limits)
}

/// The line (1-based) of a closing `---` after the lines read, if the file has one.
fn late_close(snapshot: &Snapshot, path: &str, limits: &Limits) -> Option<usize> {
    let text = snapshot.text(path)?;
    let skip = to_usize(limits.max_header_lines);
    text.split('\n')
        .enumerate()
        .skip(skip.max(1))
        .find(|(_, l)| l.trim_end() == "---")
        .map(|(i, _)| i + 1)
}
