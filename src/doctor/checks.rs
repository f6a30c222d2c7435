//! The checks themselves. Index findings come first, by line; then files, by path.

use crate::codes::EntryKind;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::compact::compact_index;
use super::kept_words::WordLedger;
use super::remedy::{dead_link_remedy, long_entry_remedy, DeadLinkRemedy, Kept, LongEntryRemedy};
use super::remedy::{NewFilePlace, StayingDead};
use super::repair::{description_region, folded_description_file, scan_all, TopicNames};
use super::{Finding, Options, Severity};
use crate::codes::{DiagnosticCode, FindingCode};
use crate::freshness::age_days;
use crate::frontmatter::MemoryType;
use crate::keep::supersede::{chain_of, superseded, Chain, MAX_CHAIN};
use crate::limits::{to_usize, Limits};
use crate::scan::{Memory, ScanResult, INDEX_FILE_NAME};
use crate::secrets::find_secrets;
use crate::text::utf16_len;
use crate::write::entry::{
    classify_all, links_on_line, retarget_entry, Line, Target, MAX_ENTRY_UTF16,
};
use crate::write::guard::index_size;
use crate::write::similar::{name_key, WordSet};
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
    code: FindingCode,
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

pub(super) fn run(snapshot: &Snapshot, options: &Options) -> Vec<Finding> {
    let mut out = Vec::new();
    let ledger = folder_words(snapshot);
    let (mut indexed, index) = index_checks(snapshot, options, &ledger, &mut out);
    // an index `--fix` cannot rewrite (not UTF-8, over `maxFileBytes`, another tool's format)
    // is offered no fix
    if !index.writable || index.foreign {
        for f in &mut out {
            f.fix = None;
        }
    }
    indexed.extend(linked_files(snapshot));
    if index_unread(snapshot).is_some() {
        // what it links to is unknown: no file is called missing from it
        indexed.extend(snapshot.topic_files().map(|e| e.path.clone()));
    }
    file_checks(
        options,
        snapshot,
        &indexed,
        index.writable && index.room && !index.foreign,
        &mut out,
    );
    out
}

/// Every word of the folder's files that were read (the index and the topic files).
pub(super) fn folder_words(snapshot: &Snapshot) -> WordLedger {
    let texts: Vec<String> = snapshot
        .contents
        .keys()
        .filter_map(|p| snapshot.text(p))
        .collect();
    WordLedger::of(texts.iter().map(String::as_str))
}

/// The files a reader of `MEMORY.md` is led to: every link on every line of it (an entry's
/// own, a second one on its line, one in a sentence), the files under a folder it links to,
/// and, from each topic file reached, its links in turn (a section moved out of the index by
/// compaction, a sub-index moved into another by a later one, a "see also"). Each file is
/// read once.
pub(super) fn linked_files(snapshot: &Snapshot) -> BTreeSet<String> {
    linked_files_in(snapshot, &snapshot.index_text(), &HashMap::new())
}

/// [`linked_files`] with `index` (LF) as the index and `written` (path, stored text) written
/// over the snapshot's files: what a fix's result leads to.
pub(super) fn linked_files_in(
    snapshot: &Snapshot,
    index: &str,
    written: &HashMap<&str, &str>,
) -> BTreeSet<String> {
    let text_of = |path: &str| match written.get(path) {
        Some(text) => Some(crate::text::normalize_text(text).into_owned()),
        None => snapshot.text(path),
    };
    let mut queue: Vec<String> = Vec::new();
    for (line, kind) in index.split('\n').zip(classify_all(index)) {
        if kind != Line::Markup {
            queue.extend(local_links(line, ""));
        }
    }
    let mut all: BTreeSet<String> = BTreeSet::new();
    // a file named in plain text (`- deploy.md: how we deploy`, as other tools' indexes do)
    let named = plain_names(index);
    for e in snapshot.topic_files() {
        if named.contains(e.path.as_str()) {
            all.insert(e.path.clone());
        }
    }
    // the topic files under each folder, gathered when a link to a folder is first followed
    let mut under: Option<HashMap<&str, Vec<&str>>> = None;
    let mut seen: HashSet<String> = HashSet::new();
    while let Some(path) = queue.pop() {
        if !seen.insert(path.clone()) {
            continue;
        }
        if snapshot.is_dir(&path) {
            // a link to a folder (`[Agent docs](agents/)`) leads to what is in it
            let under = under.get_or_insert_with(|| files_under_folders(snapshot));
            queue.extend(
                under
                    .get(path.as_str())
                    .into_iter()
                    .flatten()
                    .map(|p| (*p).to_owned()),
            );
            continue;
        }
        all.insert(path.clone());
        let Some(text) = text_of(&path).filter(|_| crate::scan::is_topic_path(&path)) else {
            continue;
        };
        let folder = path.rsplit_once('/').map_or("", |(dir, _)| dir);
        for line in text.split('\n') {
            queue.extend(local_links(line, folder));
        }
    }
    all
}

/// Every folder that holds topic files, with all of them (in it or below).
fn files_under_folders(snapshot: &Snapshot) -> HashMap<&str, Vec<&str>> {
    let mut under: HashMap<&str, Vec<&str>> = HashMap::new();
    for e in snapshot.topic_files() {
        let mut folder = e.path.as_str();
        while let Some((parent, _)) = folder.rsplit_once('/') {
            under.entry(parent).or_default().push(&e.path);
            folder = parent;
        }
    }
    under
}

/// The `*.md` names `text` mentions as words of their own (`deploy.md`, `notes/a.md`; a
/// sentence's full stop after one is not part of it): one pass over the text.
fn plain_names(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || "_-./".contains(c)))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| w.len() > 3 && w.ends_with(".md"))
        .collect()
}

/// The links of `line` to places inside the folder, from a file in `folder` (`""`: the root).
fn local_links(line: &str, folder: &str) -> Vec<String> {
    if !line.contains("](") {
        return Vec::new();
    }
    links_on_line(line)
        .into_iter()
        .filter_map(|t| match t {
            Target::Inside(path) if folder.is_empty() => Some(path),
            Target::Inside(path) => Some(format!("{folder}/{path}")),
            // `../x.md` from `team/index.md` is the root's x.md
            Target::Outside(path) if !folder.is_empty() && path.starts_with("..") => {
                climbed(folder, &path)
            }
            _ => None,
        })
        .collect()
}

/// `path` (relative, climbing with `..`) from `folder`, when it stays inside the memory folder.
fn climbed(folder: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = folder.split('/').collect();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// What `--fix` can do to the index.
struct IndexRoom {
    /// It can be rewritten: UTF-8, within `maxFileBytes` (or not there yet).
    writable: bool,
    /// It is under its limits: an entry can be added.
    room: bool,
    /// Not an index in Claude Code's form (no entry at all among its lines, or another
    /// tool's `§`-separated facts): reported, never edited.
    foreign: bool,
}

/// Why `MEMORY.md`, listed, was not read as a file (a directory or device of that name, a
/// link the host does not follow, a failed read): its words are unknown, so nothing may be
/// written in its place. `None` when it is not listed, or was read.
pub(super) fn index_unread(snapshot: &Snapshot) -> Option<(FindingCode, &'static str)> {
    let e = snapshot.entry(INDEX_FILE_NAME)?;
    if e.kind != EntryKind::File
        || e.problem
            .as_deref()
            .is_some_and(|p| p == "not_a_file" || p == "EISDIR")
    {
        return Some((FindingCode::NotAFile, "is not a regular file"));
    }
    if e.problem.as_deref() == Some("symlink_escape") {
        return Some((
            FindingCode::SymlinkEscape,
            "is a link that leads out of the memory folder, or one the host does not follow",
        ));
    }
    (e.problem.is_some() || !snapshot.contents.contains_key(INDEX_FILE_NAME))
        .then_some((FindingCode::Unreadable, "could not be read"))
}

/// Whether an index is not in Claude Code's form: it has lines of its own but not one entry,
/// or it separates facts with `§` lines as another tool's memory does. Appending an entry
/// to such a file would glue a link onto its facts.
pub(super) fn is_foreign_index(text: &str) -> bool {
    let kinds = classify_all(text);
    let entries = kinds.iter().filter(|k| matches!(k, Line::Entry(_))).count();
    let content = kinds.iter().filter(|k| **k == Line::Content).count();
    let sections = text
        .split('\n')
        .filter(|l| l.trim() == "\u{a7}" || l.trim_start().starts_with("\u{a7} "))
        .count();
    (entries == 0 && content > 0) || sections > 0
}

/// Index checks, the first of doctor's (`run` relies on it: `out` then holds only theirs);
/// returns the local targets the index links to, and what `--fix` can do to it.
fn index_checks(
    snapshot: &Snapshot,
    options: &Options,
    ledger: &WordLedger,
    out: &mut Vec<Finding>,
) -> (BTreeSet<String>, IndexRoom) {
    let limits = &options.limits;
    let outside = &options.outside;
    let mut targets = BTreeSet::new();
    let exists = snapshot.entry(INDEX_FILE_NAME).is_some();
    let text = snapshot.index_text();
    if !exists {
        if snapshot.topic_files().next().is_some() {
            out.push(finding(
                FindingCode::IndexMissing,
                Severity::Warning,
                INDEX_FILE_NAME,
                None,
                "there is no MEMORY.md: no memory is listed in the prompt".into(),
                None,
            ));
        }
        let room = IndexRoom {
            writable: true,
            room: true,
            foreign: false,
        };
        return (targets, room);
    }
    if let Some((code, why)) = index_unread(snapshot) {
        out.push(finding(code, Severity::Warning, INDEX_FILE_NAME, None,
            format!("MEMORY.md {why}: doctor checks none of its entries, and --fix never writes it (a new index in its place would replace words it never saw)"), None));
        let room = IndexRoom {
            writable: false,
            room: false,
            foreign: false,
        };
        return (targets, room);
    }
    let mut writable = snapshot
        .entry(INDEX_FILE_NAME)
        .is_none_or(|e| e.size <= f64::from(limits.max_file_bytes));
    if let Some(crate::scan::Head::Bytes(bytes)) = snapshot.contents.get(INDEX_FILE_NAME) {
        if std::str::from_utf8(bytes).is_err() {
            writable = false;
            out.push(finding(FindingCode::InvalidUtf8, Severity::Error, INDEX_FILE_NAME, None,
                "MEMORY.md is not UTF-8 (UTF-16, or a legacy encoding): the prompt gets it garbled and memdir cannot edit it; re-save it as UTF-8".into(), None));
            // UTF-16 read as UTF-8 is all content: nothing more to say about its lines
            if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
                let room = IndexRoom {
                    writable,
                    room: false,
                    foreign: false,
                };
                return (targets, room);
            }
        }
    }
    let (lines, units) = index_size(&text);
    let compaction = (lines > to_usize(limits.max_index_lines) || units > to_usize(limits.max_index_utf16))
        .then(|| compact_index(&text, snapshot, limits, &HashSet::new()))
        .flatten()
        .map(|c| {
            let mut what = Vec::new();
            if c.moved_content_lines > 0 {
                what.push(format!("{} lines of notes into topic files", c.moved_content_lines));
            }
            if c.moved_entries > 0 {
                what.push(format!("{} entries into sub-index files", c.moved_entries));
            }
            if c.moved_tail_lines > 0 {
                what.push(format!("its last {} lines into one more", c.moved_tail_lines));
            }
            format!("compact MEMORY.md under its limits, every word kept: move {}, each linked from the index", what.join(" and "))
        });
    if lines > to_usize(limits.max_index_lines) {
        out.push(finding(FindingCode::IndexOverLines, Severity::Error, INDEX_FILE_NAME, Some(to_usize(limits.max_index_lines) + 1),
            format!("MEMORY.md has {lines} lines; only the first {} are loaded, the rest are silently cut", limits.max_index_lines), compaction.clone()));
    }
    if units > to_usize(limits.max_index_utf16) {
        out.push(finding(
            FindingCode::IndexOverSize,
            Severity::Error,
            INDEX_FILE_NAME,
            None,
            format!(
                "MEMORY.md is {units} UTF-16 units; only the first {} are loaded",
                limits.max_index_utf16
            ),
            compaction.filter(|_| lines <= to_usize(limits.max_index_lines)),
        ));
    }
    let foreign = is_foreign_index(&text);
    if foreign {
        out.push(finding(FindingCode::IndexForeignFormat, Severity::Warning, INDEX_FILE_NAME, None,
            "MEMORY.md is not an index in Claude Code's form (`- [Title](file.md) — hook` entries): it reads like another tool's memory, so doctor reports what it finds but --fix never edits it".into(), None));
    }
    let all: Vec<&str> = text.split('\n').collect();
    let kinds = classify_all(&text);
    let names = TopicNames::of(snapshot);
    let no_new_files = HashSet::new();
    let staying = StayingDead::of(snapshot, &names, ledger);
    let place = NewFilePlace {
        snapshot,
        names: &names,
        staying: &staying,
        created: &no_new_files,
        limits,
    };
    // the entries seen so far, by the file they link to: a second one with other words is a
    // second way in, not a duplicate
    let mut seen: HashMap<String, HashSet<String>> = HashMap::new();
    let first_entry = kinds.iter().position(|k| matches!(k, Line::Entry(_)));
    let mut run_start: Option<usize> = None;
    let flush = |start: &mut Option<usize>, end: usize, out: &mut Vec<Finding>| {
        let Some(s) = start.take() else { return };
        // one sentence above the entries is a preamble: not content to move, but still paid for
        if end == s && first_entry.is_none_or(|f| s <= f) {
            out.push(finding(FindingCode::IndexPreamble, Severity::Warning, INDEX_FILE_NAME, Some(s),
                format!("line {s} is a sentence, not an entry: MEMORY.md is loaded into every prompt, so keep it to entries (a heading says the same for free)"), None));
            return;
        }
        let span = if end == s {
            format!("line {s} is")
        } else {
            format!("lines {s}–{end} are")
        };
        out.push(finding(FindingCode::IndexContent, Severity::Error, INDEX_FILE_NAME, Some(s),
            format!("{span} content, not index entries: MEMORY.md should hold only `- [Title](file.md) — hook` lines; move the content into a topic file"), None));
    };
    for (i, (line, kind)) in all.iter().zip(&kinds).enumerate() {
        let n = i + 1;
        let e = match kind {
            Line::Content => {
                run_start.get_or_insert(n);
                continue;
            }
            Line::Entry(e) => e,
            _ => {
                flush(&mut run_start, n - 1, out);
                continue;
            }
        };
        flush(&mut run_start, n - 1, out);
        let target = match e.destination() {
            Target::Inside(path) => path,
            Target::Outside(raw) => {
                outside_link(&raw, n, outside, out);
                continue;
            }
            Target::Other => continue,
        };
        if snapshot.is_dir(&target) {
            continue; // a link to a folder that exists is live
        }
        if !snapshot.is_file(&target) {
            let moved = names.moved(&target);
            match unverifiable(snapshot, &target) {
                // a folder on the way could not be listed: the file may well be there
                Some(folder) => out.push(finding(FindingCode::LinkUnverifiable, Severity::Info, INDEX_FILE_NAME, Some(n),
                    format!("the entry links to {target}, under {folder}, which memdir could not list; it is not checked"), None)),
                // the one file of that name is elsewhere: point the entry at it, keeping its words
                None if moved.is_some() => {
                    let real = moved.unwrap_or_default();
                    // the entry as it reads once repointed: the same as one seen already is that
                    // entry a second time (two copies of one dead line were both repointed, and
                    // the next --fix removed one)
                    let relinked = retarget_entry(line.trim_end_matches('\r'), &real)
                        .map_or_else(|| entry_key(line), |l| entry_key(&l));
                    let earlier = seen.entry(real.clone()).or_default();
                    if earlier.contains(&relinked) {
                        out.push(finding(FindingCode::DuplicateEntry, Severity::Warning, INDEX_FILE_NAME, Some(n),
                            format!("the same entry for {real} a second time (once its link, to {target}, which does not exist, is pointed there)"),
                            Some(format!("remove line {n}"))));
                    } else {
                        earlier.insert(relinked);
                        out.push(finding(FindingCode::DeadLink, Severity::Error, INDEX_FILE_NAME, Some(n),
                            format!("the entry links to {target}, which does not exist; the one file of that name is {real}"),
                            Some(format!("point line {n} at {real}, keeping its title and hook"))));
                    }
                    targets.insert(real);
                }
                None => {
                    let (message, fix) = match dead_link_remedy(&place, ledger, line, &target) {
                        DeadLinkRemedy::Remove => (String::new(), Some(format!("remove line {n}"))),
                        DeadLinkRemedy::Create { .. } => (String::new(), Some(format!("write {target} from the entry's title and hook, which exist nowhere else, so the link leads somewhere"))),
                        DeadLinkRemedy::Keep(Kept::UniqueWords) => ("; its words exist nowhere else in the folder, so doctor keeps the line: restore the file, or move the words yourself".to_owned(), None),
                        DeadLinkRemedy::Keep(Kept::Credential) => ("; its words exist nowhere else in the folder and hold what looks like a credential, which doctor does not copy into a new file: take the credential out, then restore the file".to_owned(), None),
                        DeadLinkRemedy::Keep(Kept::OtherLinks) => ("; the line links elsewhere too, so doctor keeps it: restore the file, or edit the line yourself".to_owned(), None),
                    };
                    out.push(finding(
                        FindingCode::DeadLink,
                        Severity::Error,
                        INDEX_FILE_NAME,
                        Some(n),
                        format!("the entry links to {target}, which does not exist{message}"),
                        fix,
                    ));
                }
            }
            continue;
        }
        targets.insert(target.clone());
        let same = entry_key(line);
        let earlier = seen.entry(target.clone()).or_default();
        if earlier.contains(&same) {
            out.push(finding(
                FindingCode::DuplicateEntry,
                Severity::Warning,
                INDEX_FILE_NAME,
                Some(n),
                format!("the same entry for {target} a second time"),
                Some(format!("remove line {n}")),
            ));
            continue;
        }
        earlier.insert(same);
        // right under an entry of the same title and link, with another hook: one entry edited
        // twice, as a merge of MEMORY.md keeps both sides' edits (merge_index.rs). Another title
        // is a second way in (issue 21), not this.
        let above = i.checked_sub(1).filter(|p| {
            matches!(kinds.get(*p), Some(Line::Entry(prev))
                if prev.target == e.target && prev.title.trim() == e.title.trim())
        });
        if let Some(p) = above {
            out.push(finding(FindingCode::DuplicateLink, Severity::Warning, INDEX_FILE_NAME, Some(n),
                format!("line {n} is line {p}'s entry for {target} again with another hook (both sides of a merge edited it): one entry says it once"),
                Some(format!("join line {n} into line {p}, keeping every word"))));
            continue;
        }
        let body = line.trim_end_matches('\r');
        let length = utf16_len(body);
        if length > MAX_ENTRY_UTF16 {
            let (fix, kept) = match long_entry_remedy(snapshot, ledger, body, &target, limits) {
                LongEntryRemedy::Shorten(_) => (Some(format!("shorten the hook of line {n} to fit {MAX_ENTRY_UTF16} characters (the words it drops are elsewhere in the folder)")), ""),
                LongEntryRemedy::KeepAsDescription { .. } => (Some(format!("make the whole hook {target}'s description, which it lacks, then shorten line {n} to fit {MAX_ENTRY_UTF16} characters")), ""),
                LongEntryRemedy::Keep => (None, "; shortening it would drop words or a link found nowhere else, so doctor leaves it: move the detail into the topic file"),
            };
            out.push(finding(FindingCode::EntryTooLong, Severity::Warning, INDEX_FILE_NAME, Some(n),
                format!("the entry is {length} characters; entries should be one short line (under {MAX_ENTRY_UTF16}) with the detail in {target}{kept}"), fix));
        }
    }
    flush(&mut run_start, all.len(), out);
    for found in find_secrets(&text) {
        out.push(secret_finding(INDEX_FILE_NAME, &found));
    }
    // a missing entry is added only while the index has room for one more line
    let room = lines < to_usize(limits.max_index_lines) && units < to_usize(limits.max_index_utf16);
    (
        targets,
        IndexRoom {
            writable,
            room,
            foreign,
        },
    )
}

/// An entry line as compared for duplicates: white space folded, `\r` and list marker alike.
fn entry_key(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A link that leaves the memory folder: checked through the host where it could look
/// (`outside`), never dead on memdir's own say-so, never fixed.
fn outside_link(
    raw: &str,
    n: usize,
    outside: &BTreeMap<String, Option<bool>>,
    out: &mut Vec<Finding>,
) {
    match outside.get(raw).copied().flatten() {
        Some(true) => {}
        Some(false) => out.push(finding(FindingCode::OutsideLinkMissing, Severity::Warning, INDEX_FILE_NAME, Some(n),
            format!("the entry links outside the memory folder to {raw}, which the host could not find from here; remove the line yourself if that file is gone for good"), None)),
        None => out.push(finding(FindingCode::OutsideLink, Severity::Info, INDEX_FILE_NAME, Some(n),
            format!("the entry links outside the memory folder ({raw}); memdir does not look there, so it is not checked"), None)),
    }
}

/// The first folder on the way to `path` that the host listed with a problem (unreadable, a
/// link it could not follow): below it, memdir cannot tell what exists.
fn unverifiable<'a>(snapshot: &Snapshot, path: &'a str) -> Option<&'a str> {
    let mut prefix = path;
    while let Some((parent, _)) = prefix.rsplit_once('/') {
        if snapshot
            .entry(parent)
            .is_some_and(|e| e.problem.is_some() || e.kind == EntryKind::Other)
        {
            return Some(parent);
        }
        prefix = parent;
    }
    None
}

fn secret_finding(file: &str, found: &crate::secrets::SecretFinding) -> Finding {
    finding(
        FindingCode::Secret,
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
    options: &Options,
    snapshot: &Snapshot,
    indexed: &BTreeSet<String>,
    can_add: bool,
    out: &mut Vec<Finding>,
) {
    let limits = &options.limits;
    let scanned = scan_all(snapshot, limits);
    let mut by_file: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    let mut push = |f: Finding| by_file.entry(f.file.clone()).or_default().push(f);

    for d in &scanned.diagnostics {
        let line = d.line.and_then(|l| usize::try_from(l).ok());
        let (code, severity, message): (FindingCode, Severity, String) = match d.code {
            DiagnosticCode::FrontmatterUnclosed => match late_close(snapshot, &d.path, limits) {
                Some(at) => (FindingCode::FrontmatterLate, Severity::Error, format!("frontmatter closes on line {at}, after the {} lines read, so it is ignored", limits.max_header_lines)),
                None => (FindingCode::FrontmatterUnclosed, Severity::Error, d.message.clone()),
            },
            DiagnosticCode::FrontmatterMalformed => (FindingCode::FrontmatterMalformed, Severity::Error, d.message.clone()),
            DiagnosticCode::FrontmatterMissing => (FindingCode::FrontmatterMissing, Severity::Warning, format!("{}: the selector sees only the file name", d.message)),
            DiagnosticCode::FrontmatterRecovered => (FindingCode::FrontmatterRecovered, Severity::Info, d.message.clone()),
            DiagnosticCode::DescriptionMissing => (FindingCode::DescriptionMissing, Severity::Warning, d.message.clone()),
            DiagnosticCode::DescriptionNotText => (FindingCode::DescriptionNotText, Severity::Warning, d.message.clone()),
            DiagnosticCode::UnknownType => (FindingCode::UnknownType, Severity::Warning, d.message.clone()),
            DiagnosticCode::InvalidUtf8 => (FindingCode::InvalidUtf8, Severity::Warning, d.message.clone()),
            DiagnosticCode::SymlinkEscape => (FindingCode::SymlinkEscape, Severity::Warning, d.message.clone()),
            DiagnosticCode::NotAFile => (FindingCode::NotAFile, Severity::Warning, d.message.clone()),
            DiagnosticCode::HeadMissing | DiagnosticCode::Unreadable | DiagnosticCode::Vanished => (FindingCode::Unreadable, Severity::Warning, "the file could not be read".into()),
            DiagnosticCode::UnsafePath => (FindingCode::UnsafePath, Severity::Warning, d.message.clone()),
            DiagnosticCode::DuplicatePath | DiagnosticCode::InvalidMtime => (FindingCode::Scan, Severity::Info, d.message.clone()),
        };
        push(finding(code, severity, &d.path, line, message, None));
    }
    for m in &scanned.dropped {
        push(finding(
            FindingCode::BeyondCap,
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
    let stale_days = options.stale_core_days;
    let all: Vec<_> = scanned.memories.iter().chain(&scanned.dropped).collect();
    // supersession (rules §4.7): a replaced memory needs no entry and is not stale; a chain
    // that ends nowhere replaces nothing, and is reported
    let every: Vec<Memory> = all.iter().map(|m| (*m).clone()).collect();
    let replaced = superseded(&every);
    let by_path: HashMap<&str, &Memory> = every.iter().map(|m| (m.path.as_str(), m)).collect();
    for m in all.iter().filter(|m| m.superseded_by.is_some()) {
        match chain_of(&m.path, &by_path) {
            Chain::Broken { missing } => push(finding(FindingCode::SupersessionBroken, Severity::Warning, &m.path, None,
                format!("superseded_by names {missing:?}, which is not a memory of this folder: nothing replaces this memory, so recall still chooses it"),
                None)),
            Chain::Cycle => push(finding(FindingCode::SupersessionCycle, Severity::Warning, &m.path, None,
                format!("its superseded_by chain comes back to a memory it passed, or runs past {MAX_CHAIN} memories: none of them counts as replaced; point the older ones at the newest"),
                None)),
            Chain::Current | Chain::Superseded { .. } => {}
        }
    }
    for m in &all {
        let text = snapshot.text(&m.path);
        if !indexed.contains(&m.path) && !replaced.contains(&m.path) {
            push(finding(
                FindingCode::NotIndexed,
                Severity::Warning,
                &m.path,
                None,
                "no MEMORY.md entry links to this file, so the index does not list it".into(),
                Some("add an entry to MEMORY.md".into()).filter(|_| can_add),
            ));
        }
        if let Some(d) = &m.description {
            let words = crate::words::word_count(d);
            let lower = d.to_lowercase();
            if words < MIN_DESCRIPTION_WORDS || VAGUE.contains(&lower.trim_end_matches('.')) {
                push(finding(FindingCode::DescriptionVague, Severity::Warning, &m.path, None,
                    format!("the description {d:?} is too vague for the selector to judge when this memory helps; say what it covers and when it applies"), None));
            }
        }
        if let Some(text) = &text {
            let region = spans_lines(text, limits)
                .then(|| description_region(text, limits))
                .flatten();
            if let Some((start, end)) = region {
                if end > start && folded_description_file(text, limits).is_some() {
                    push(finding(
                        FindingCode::DescriptionMultiline,
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
        if matches!(m.memory_type, Some(MemoryType::User | MemoryType::Feedback))
            && !replaced.contains(&m.path)
        {
            let age = age_days(m.time(), options.now_ms);
            if age > stale_days {
                push(finding(FindingCode::StaleCoreMemory, Severity::Warning, &m.path, None,
                    format!("a {} memory last changed {age} days ago (over {stale_days}): check it still holds; if it does, `memdir touch {}` records that it was checked", m.memory_type.map_or("", MemoryType::as_str), m.path), None));
            }
        }
    }
    // near-duplicates: same name, or almost the same description, reported on the later path
    let mut names: BTreeMap<String, &str> = BTreeMap::new();
    // a replaced memory and the one replacing it are meant to be alike
    let mut sorted: Vec<_> = all
        .iter()
        .copied()
        .filter(|m| !replaced.contains(&m.path))
        .collect();
    crate::sort::sort_by(&mut sorted, |a, b| a.path.cmp(&b.path));
    let words: Vec<Option<WordSet>> = sorted
        .iter()
        .take(MAX_COMPARED_FILES)
        .map(|m| m.description.as_deref().map(WordSet::of))
        .collect();
    for (i, m) in sorted.iter().enumerate() {
        if let Some(name) = &m.name {
            if let Some(first) = names.get(&name_key(name)) {
                push(finding(
                    FindingCode::DuplicateTopic,
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
        let Some(Some(mine)) = words.get(i) else {
            continue;
        };
        let twin = words
            .iter()
            .take(i)
            .position(|o| o.as_ref().is_some_and(|o| o.similar(mine)));
        if let Some(other) = twin.and_then(|j| sorted.get(j)) {
            push(finding(
                FindingCode::DuplicateTopic,
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
    foreign_files(snapshot, &scanned, &mut push);
    let max_bytes = f64::from(limits.max_file_bytes);
    for e in snapshot
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::File && e.size > max_bytes)
    {
        if e.path == INDEX_FILE_NAME || crate::scan::is_topic_path(&e.path) {
            push(finding(
                FindingCode::TooLarge,
                Severity::Warning,
                &e.path,
                None,
                format!("the file is {} bytes, over the {} bytes memdir reads whole (maxFileBytes): edits of it are refused and only its start is checked; split it into smaller files", e.size, limits.max_file_bytes),
                None,
            ));
        }
    }
    for e in &snapshot.entries {
        if crate::temp::parse_temp_file(&e.path).is_some() {
            push(finding(
                FindingCode::TempFile,
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
        crate::sort::sort_by_key(&mut findings, |f| (f.severity, f.line));
        out.extend(findings);
    }
}

/// A cheap look before parsing the frontmatter again: is a `description:` line within the
/// header lines followed by an indented (continuation) line?
fn spans_lines(text: &str, limits: &Limits) -> bool {
    let mut lines = text.split('\n').take(to_usize(limits.max_header_lines));
    while let Some(line) = lines.next() {
        if line.starts_with("description:") {
            return lines
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| l.starts_with([' ', '\t']));
        }
    }
    false
}

/// Extensions of files that look like memories or rules but that memdir does not read.
const UNREAD_EXTENSIONS: &[(&str, &str)] = &[
    (".mdc", "Cursor rules"),
    (".markdown", "Markdown under another extension"),
    (".mdx", "MDX"),
    (".MD", "Markdown with an upper-case extension"),
];
/// The files of a Cline memory bank: plain Markdown without frontmatter.
const CLINE_BANK: &[&str] = &[
    "projectbrief.md",
    "productContext.md",
    "activeContext.md",
    "systemPatterns.md",
    "techContext.md",
    "progress.md",
];

/// Files memdir does not read, and folders in other tools' shapes: say so, and what to do.
fn foreign_files(snapshot: &Snapshot, scanned: &ScanResult, push: &mut impl FnMut(Finding)) {
    let topics = scanned.memories.len() + scanned.dropped.len();
    for (ext, what) in UNREAD_EXTENSIONS {
        let files: Vec<&str> = snapshot
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::File && e.path.ends_with(ext))
            .map(|e| e.path.as_str())
            .collect();
        let Some(first) = files.iter().min() else {
            continue;
        };
        let severity = if topics == 0 {
            Severity::Error
        } else {
            Severity::Warning
        };
        push(finding(FindingCode::UnreadFiles, severity, first, None,
            format!("{} {ext} file{} ({what}) here {} not read: memdir reads `*.md` topic files with `description:` frontmatter{}. Convert the ones worth recalling, or keep them where their own tool reads them",
                files.len(), if files.len() == 1 { "" } else { "s" }, if files.len() == 1 { "is" } else { "are" },
                if topics == 0 { ", and there are none here, so recall finds nothing" } else { "" }), None));
    }
    let bank: Vec<&str> = snapshot
        .entries
        .iter()
        .filter(|e| CLINE_BANK.contains(&e.path.rsplit('/').next().unwrap_or("")))
        .map(|e| e.path.as_str())
        .collect();
    let bare = bank
        .iter()
        .filter(|p| {
            scanned
                .memories
                .iter()
                .chain(&scanned.dropped)
                .any(|m| m.path == **p && m.description.is_none())
        })
        .count();
    if bank.len() >= 3 && bare >= 3 {
        if let Some(first) = bank.iter().min() {
            push(finding(FindingCode::ClineMemoryBank, Severity::Info, first, None,
                format!("this looks like a Cline memory bank ({} of its core files): they have no frontmatter, so the selector sees only their names. Cline reads them all every time; to recall them one by one, give each a `description:` line in frontmatter", bank.len()), None));
        }
    }
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
