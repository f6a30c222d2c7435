//! The safe fixes: dead and duplicate index lines removed, files missing from the index
//! added, long entries shortened, multi-line descriptions folded onto one line. Planned as
//! effects plus a unified diff; `after` is doctor's report on the fixed directory.

use std::collections::HashSet;

use serde::Serialize;

use super::repair::{
    folded_description_file, in_stored_form, moved_target, retarget_line, scan_all, shorter_entry,
};
use super::{report, DoctorInput, DoctorReport};
use crate::codes::FindingCode;
use crate::diff::unified_diff;
use crate::limits::{to_usize, Limits};
use crate::scan::INDEX_FILE_NAME;
use crate::text::{normalize_text, utf16_len};
use crate::write::entry::format_entry;
use crate::write::entry::{classify, Line, MAX_ENTRY_UTF16};
use crate::write::guard::index_size;
use crate::write::snapshot::StoredText;
use crate::write::{Effect, Snapshot};

/// What `--fix` will do.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FixPlan {
    /// The writes, index last.
    pub effects: Vec<Effect>,
    /// A unified diff of every change, to show before applying.
    pub diff: String,
    /// Findings these writes repair.
    pub fixed: u32,
    pub before: DoctorReport,
    /// Doctor's report once the effects are applied.
    pub after: DoctorReport,
}

/// Plans every safe fix. Only files read whole and as UTF-8 are changed; every line a fix does
/// not touch keeps its bytes (line endings and byte-order mark included).
pub fn plan_doctor_fixes(input: &DoctorInput) -> FixPlan {
    let options = input.options();
    let limits = options.limits;
    let mut snapshot = input.snapshot();
    let before = report(&snapshot, &options);
    let mut fixed = 0u32;
    let mut changed: Vec<(String, String, String)> = Vec::new(); // path, old, new

    // topic files: fold descriptions
    for f in before
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::DescriptionMultiline)
    {
        let Ok(Some(old)) = snapshot.whole_text(&f.file, &limits) else {
            continue;
        };
        let new = folded_description_file(&normalize_text(old), &limits)
            .and_then(|new| in_stored_form(old, &new));
        if let Some(new) = new {
            changed.push((f.file.clone(), old.to_owned(), new));
            fixed += 1;
        }
    }

    // the index, edited line by line in its stored form
    if let Ok(stored) = snapshot.stored_index(&limits) {
        let (index_fixed, new_index) = fix_index(&stored, &before, &snapshot, &limits);
        fixed += index_fixed;
        if new_index != stored.text {
            changed.push((
                INDEX_FILE_NAME.to_owned(),
                stored.with(stored.text.clone()),
                stored.with(new_index),
            ));
        }
    }

    let diff: String = changed
        .iter()
        .map(|(p, old, new)| unified_diff(p, old, new))
        .collect();
    let effects: Vec<Effect> = changed
        .iter()
        .map(|(p, _, new)| Effect::Write {
            path: p.clone(),
            text: new.clone(),
            exclusive: false,
        })
        .collect();
    let after = if changed.is_empty() {
        before.clone()
    } else {
        for (path, _, new) in changed {
            snapshot.put_file(&path, new, input.now_ms);
        }
        report(&snapshot, &options)
    };
    FixPlan {
        effects,
        diff,
        fixed,
        before,
        after,
    }
}

/// `line` with its hook shortened when the entry is over [`MAX_ENTRY_UTF16`] (its `\r` kept).
fn fit_entry(line: String) -> String {
    let body = line.strip_suffix('\r').unwrap_or(&line);
    if utf16_len(body) <= MAX_ENTRY_UTF16 {
        return line;
    }
    let cr = if body.len() < line.len() { "\r" } else { "" };
    shorter_entry(body).map_or(line.clone(), |short| format!("{short}{cr}"))
}

/// The index fixes: dead and duplicate lines removed, long entries shortened, missing entries
/// appended while the index has room. Returns how many findings they repair and the new text.
fn fix_index(
    stored: &StoredText,
    before: &DoctorReport,
    snapshot: &Snapshot,
    limits: &Limits,
) -> (u32, String) {
    let mut fixed = 0u32;
    let newline = stored.newline();
    let mut lines: Vec<Option<String>> = stored
        .text
        .split('\n')
        .map(|l| Some(l.to_owned()))
        .collect();
    // the files the index keeps links to (duplicates go): a dead link retargeted to one of them
    // would be a duplicate, so it goes instead
    let duplicates: HashSet<u32> = before
        .findings
        .iter()
        .filter(|f| f.file == INDEX_FILE_NAME && f.code == FindingCode::DuplicateEntry)
        .filter_map(|f| f.line)
        .collect();
    let mut linked: HashSet<String> = lines
        .iter()
        .zip(1u32..)
        .filter(|(_, n)| !duplicates.contains(n))
        .filter_map(|(l, _)| match classify(l.as_deref()?) {
            Line::Entry(e) => e.file(),
            _ => None,
        })
        .collect();
    for f in before
        .findings
        .iter()
        .filter(|f| f.file == INDEX_FILE_NAME && f.fix.is_some())
    {
        let Some(slot) = f
            .line
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| lines.get_mut(i))
        else {
            continue;
        };
        match f.code {
            FindingCode::DeadLink => {
                let moved = slot.as_deref().and_then(|l| match classify(l) {
                    Line::Entry(e) => e.file().and_then(|t| moved_target(snapshot, &t)),
                    _ => None,
                });
                let moved = moved.filter(|to| linked.insert(to.clone()));
                match moved.and_then(|to| slot.as_deref().and_then(|l| retarget_line(l, &to))) {
                    // a longer folder may take the line past its limit: shorten its hook too
                    Some(line) => *slot = Some(fit_entry(line)),
                    None => {
                        slot.take();
                    }
                }
                fixed += 1;
            }
            FindingCode::DuplicateEntry => fixed += u32::from(slot.take().is_some()),
            FindingCode::EntryTooLong => {
                if let Some(line) = slot.take() {
                    let short = fit_entry(line);
                    fixed += u32::from(utf16_len(short.trim_end_matches('\r')) <= MAX_ENTRY_UTF16);
                    *slot = Some(short);
                }
            }
            _ => {}
        }
    }
    let mut new_index = lines.into_iter().flatten().collect::<Vec<_>>().join("\n");
    let scanned = scan_all(snapshot, limits);
    let mut missing: Vec<_> = before
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::NotIndexed)
        .map(|f| f.file.clone())
        .collect();
    missing.sort();
    for path in missing {
        let memory = scanned
            .memories
            .iter()
            .chain(&scanned.dropped)
            .find(|m| m.path == path);
        let stem = path
            .rsplit('/')
            .next()
            .unwrap_or(&path)
            .trim_end_matches(".md");
        let title = memory
            .and_then(|m| m.name.clone())
            .unwrap_or_else(|| stem.replace('_', " "));
        let hook = memory
            .and_then(|m| m.description.clone())
            .unwrap_or_default();
        let line = format_entry(&title, &path, &hook);
        let kept = new_index.trim_end();
        let candidate = if kept.is_empty() {
            format!("{line}{newline}")
        } else {
            format!("{kept}{newline}{line}{newline}")
        };
        let (n, units) = index_size(&candidate);
        if n > to_usize(limits.max_index_lines) || units > to_usize(limits.max_index_utf16) {
            break; // no room: the rest stay reported
        }
        new_index = candidate;
        fixed += 1;
    }
    if new_index != stored.text && !new_index.is_empty() && !new_index.ends_with('\n') {
        new_index.push_str(newline);
    }
    (fixed, new_index)
}
