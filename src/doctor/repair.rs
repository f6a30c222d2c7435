//! Shared by the checks and the fixes: the safe edits doctor knows how to make, and the scan
//! over every file. Checks report what these can repair; fixes apply them.

use std::collections::{HashMap, HashSet};

use crate::codes::EntryKind;
use crate::frontmatter::{parse_header, Header};
use crate::limits::{to_usize, Limits};
use crate::scan::{scan_memories, FileHead, ScanResult};
use crate::text::first_lines;
use crate::text::utf16_len;
use crate::write::entry::{classify, links_on_line, shorten, Line, MAX_ENTRY_UTF16};
use crate::write::yaml::scalar;
use crate::write::Snapshot;

/// The entry with its hook shortened to fit, when that is possible without cutting a link (a
/// link's destination is not a word the ledger counts, but it may be the only way to a file
/// or the only copy of an address).
pub(super) fn shorter_entry(line: &str) -> Option<String> {
    let Line::Entry(e) = classify(line) else {
        return None;
    };
    if e.hook.is_empty() {
        return None;
    }
    // everything before the hook stays as written (the link's escapes, anchor and `<…>` form);
    // only the hook is shortened
    let hook_at = (e.hook.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let head = line.get(..hook_at)?;
    let room = MAX_ENTRY_UTF16.checked_sub(utf16_len(head))?;
    let new = format!("{head}{}", shorten(e.hook, room));
    let fits = utf16_len(&new) <= MAX_ENTRY_UTF16 && new.len() < line.len();
    (fits && links_on_line(&new) == links_on_line(line)).then_some(new)
}

/// The scan over every file of the snapshot (doctor reads them all).
pub(crate) fn scan_all(snapshot: &Snapshot, limits: &Limits) -> ScanResult {
    let max = to_usize(limits.max_header_lines);
    let heads: Vec<FileHead> = snapshot
        .entries
        .iter()
        .map(|e| FileHead {
            path: e.path.clone(),
            mtime_ms: e.mtime_ms,
            head: snapshot.contents.get(&e.path).map(|h| h.first_lines(max)),
            kind: Some(e.kind),
            problem: e.problem.clone(),
        })
        .collect();
    scan_memories(&heads, limits)
}

/// Lines (0-based, inclusive) of the `description:` field in the frontmatter.
pub(super) fn description_region(text: &str, limits: &Limits) -> Option<(usize, usize)> {
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
pub(super) fn folded_description_file(text: &str, limits: &Limits) -> Option<String> {
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

/// A text edited on its LF form, written back in the file's own form: its BOM, and CRLF when
/// every line of the original ends so. `None` when the original mixes line endings (an edit
/// would change lines it does not touch).
pub(super) fn in_stored_form(original: &str, edited_lf: &str) -> Option<String> {
    let bom = if original.starts_with('\u{FEFF}') {
        "\u{FEFF}"
    } else {
        ""
    };
    let lf = original.matches('\n').count();
    let crlf = original.matches("\r\n").count();
    let body = match (crlf, lf) {
        (0, _) => edited_lf.to_owned(),
        (c, l) if c == l => edited_lf.replace('\n', "\r\n"),
        _ => return None,
    };
    Some(format!("{bom}{body}"))
}

/// The topic files by name, gathered once: each dead link is looked up in them, not compared
/// with every file of the folder (an index of 4,000 dead links beside 4,000 files took 1.4 s).
#[derive(Debug, Default)]
pub(super) struct TopicNames {
    /// Regular topic files, by file name.
    files: HashMap<String, Vec<String>>,
    /// The name of every topic entry, lower-cased (a file system may not tell `A.md` from
    /// `a.md`).
    lower: HashSet<String>,
    /// How many topic entries the listing has.
    pub count: usize,
    /// Every listed path, lower-cased.
    paths: HashSet<String>,
}

impl TopicNames {
    pub fn of(snapshot: &Snapshot) -> Self {
        let mut names = Self {
            paths: snapshot
                .entries
                .iter()
                .map(|e| e.path.to_lowercase())
                .collect(),
            ..Self::default()
        };
        for e in snapshot.topic_files() {
            let name = e.path.rsplit('/').next().unwrap_or(&e.path);
            names.count += 1;
            names.lower.insert(name.to_lowercase());
            // only a regular file: a link to anything else is dead too
            if e.kind == EntryKind::File {
                names
                    .files
                    .entry(name.to_owned())
                    .or_default()
                    .push(e.path.clone());
            }
        }
        names
    }

    /// The one topic file named like a link's dead `target` (its last segment), when exactly
    /// one exists: the entry was written with the wrong folder (`memory/user_a.md`), and
    /// pointing it there keeps the words someone wrote.
    pub fn moved(&self, target: &str) -> Option<String> {
        match self.files.get(target.rsplit('/').next()?)?.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// Whether the listing has `path`, in any case.
    pub fn listed(&self, path: &str) -> bool {
        self.paths.contains(&path.to_lowercase())
    }

    /// Whether a topic entry anywhere has this file name, in any case.
    pub fn has(&self, name: &str) -> bool {
        self.lower.contains(&name.to_lowercase())
    }
}
