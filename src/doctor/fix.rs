//! The safe fixes: dead and duplicate index lines removed, files missing from the index
//! added, long entries shortened, multi-line descriptions folded onto one line. Planned as
//! effects plus a unified diff; `after` is doctor's report on the fixed directory.

use serde::Serialize;

use super::checks::{scan_all, shorter_entry};
use super::{doctor, DoctorInput, DoctorReport};
use crate::diff::unified_diff;
use crate::frontmatter::{parse_header, Header};
use crate::limits::{to_usize, Limits};
use crate::scan::{Head, INDEX_FILE_NAME};
use crate::text::first_lines;
use crate::write::entry::format_entry;
use crate::write::guard::index_size;
use crate::write::snapshot::Entry;
use crate::write::yaml::scalar;
use crate::write::Effect;

/// What `--fix` will do.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
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

/// Lines (0-based, inclusive) of the `description:` field in the frontmatter.
pub(crate) fn description_region(text: &str, limits: &Limits) -> Option<(usize, usize)> {
    let max = to_usize(limits.max_header_lines);
    let Header::Parsed(fields) = parse_header(first_lines(text, max), max) else {
        return None;
    };
    let close = fields.close_line.checked_sub(1)?; // 0-based index of the closing ---
    let lines: Vec<&str> = text.split('\n').take(close).collect();
    let start = lines.iter().position(|l| l.starts_with("description:"))?;
    let mut end = start;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            end = i;
        } else {
            break;
        }
    }
    Some((start, end))
}

/// The file with a multi-line description folded onto one line, if that reads back the same.
pub(crate) fn folded_description_file(text: &str, limits: &Limits) -> Option<String> {
    let (start, end) = description_region(text, limits)?;
    if end == start {
        return None;
    }
    let max = to_usize(limits.max_header_lines);
    let Header::Parsed(before) = parse_header(first_lines(text, max), max) else {
        return None;
    };
    let folded = before.description.clone()?;
    let lines: Vec<&str> = text.split('\n').collect();
    let replacement = format!("description: {}", scalar(&folded));
    let mut out: Vec<&str> = lines.get(..start)?.to_vec();
    out.push(&replacement);
    out.extend(lines.get(end + 1..)?);
    let new = out.join("\n");
    match parse_header(first_lines(&new, max), max) {
        Header::Parsed(after)
            if after.description == before.description
                && after.name == before.name
                && after.memory_type == before.memory_type =>
        {
            Some(new)
        }
        _ => None,
    }
}

/// Plans every safe fix.
pub fn plan_doctor_fixes(input: &DoctorInput) -> FixPlan {
    let limits = input.limits.unwrap_or_default();
    let before = doctor(input);
    let snapshot = input.snapshot();
    let mut fixed = 0u32;
    let mut changed: Vec<(String, String, String)> = Vec::new(); // path, old, new

    // topic files: fold descriptions
    for f in before
        .findings
        .iter()
        .filter(|f| f.code == "description_multiline")
    {
        if let Some(old) = snapshot.text(&f.file) {
            if let Some(new) = folded_description_file(&old, &limits) {
                changed.push((f.file.clone(), old, new));
                fixed += 1;
            }
        }
    }

    // the index
    let old_index = snapshot.index_text();
    let mut lines: Vec<Option<String>> =
        old_index.split('\n').map(|l| Some(l.to_owned())).collect();
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
            "dead_link" | "duplicate_entry" => fixed += u32::from(slot.take().is_some()),
            "entry_too_long" => {
                if let Some(short) = slot.as_deref().and_then(shorter_entry) {
                    *slot = Some(short);
                    fixed += 1;
                }
            }
            _ => {}
        }
    }
    let mut new_index = lines.into_iter().flatten().collect::<Vec<_>>().join("\n");
    let scanned = scan_all(&snapshot, &limits);
    let mut missing: Vec<_> = before
        .findings
        .iter()
        .filter(|f| f.code == "not_indexed")
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
            format!("{line}\n")
        } else {
            format!("{kept}\n{line}\n")
        };
        let (n, units) = index_size(&candidate);
        if n > to_usize(limits.max_index_lines) || units > to_usize(limits.max_index_utf16) {
            break; // no room: the rest stay reported
        }
        new_index = candidate;
        fixed += 1;
    }
    if new_index != old_index {
        if !new_index.is_empty() && !new_index.ends_with('\n') {
            new_index.push('\n');
        }
        changed.push((INDEX_FILE_NAME.to_owned(), old_index, new_index));
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
    let mut fixed_input = input.clone();
    for (path, _, new) in &changed {
        fixed_input
            .contents
            .insert(path.clone(), Head::Text(new.clone()));
        if !fixed_input.entries.iter().any(|e| &e.path == path) {
            #[allow(clippy::cast_precision_loss)] // a file's size, far below 2^52
            let size = new.len() as f64;
            fixed_input.entries.push(Entry {
                path: path.clone(),
                kind: "file".into(),
                size,
                mtime_ms: input.now_ms,
                problem: None,
            });
        }
    }
    let after = doctor(&fixed_input);
    FixPlan {
        effects,
        diff,
        fixed,
        before,
        after,
    }
}
