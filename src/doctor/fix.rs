//! The safe fixes: dead links repointed, removed or made live, repeated entries removed,
//! files missing from the index added, long entries shortened, multi-line descriptions folded
//! onto one line, an over-limit index compacted. Every one obeys [`super::kept_words`]: no
//! word that exists nowhere else in the folder is removed. Planned as effects plus a unified
//! diff; `after` is doctor's report on the fixed directory.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::checks::{folder_words, index_unread, is_foreign_index, linked_files_in};
use super::compact::compact_index;
use super::kept_words::WordLedger;
use super::remedy::{dead_link_remedy, long_entry_remedy, DeadLinkRemedy, LongEntryRemedy};
use super::remedy::{NewFilePlace, StayingDead};
use super::repair::{folded_description_file, in_stored_form, scan_all, TopicNames};
use super::{report, DoctorInput, DoctorReport, Finding, Options};
use crate::codes::{EntryKind, FindingCode};
use crate::diff::unified_diff;
use crate::limits::{to_usize, Limits};
use crate::scan::{Head, INDEX_FILE_NAME};
use crate::text::{normalize_text, utf16_len};
use crate::write::entry::format_entry;
use crate::write::entry::{classify, retarget_entry, Line};
use crate::write::guard::index_size;
use crate::write::snapshot::{Entry, StoredText};
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

/// How many times fixes are planned over their own result at most: a fix can make another
/// possible (a line removed leaves a dead entry's words its own; words a new file adds make
/// another dead entry's words found elsewhere), and `--fix` must leave nothing for a second
/// run. Two rounds settle nearly every folder; the last round is the one that finds nothing.
const MAX_ROUNDS: usize = 4;

/// Plans every safe fix. Only files read whole and as UTF-8 are changed; every line a fix does
/// not touch keeps its bytes (line endings and byte-order mark included). New files (a dead
/// link's, compaction's) are written exclusively, before the index that links to them. The
/// fixes are planned again over their own result until nothing is left to do (at most
/// [`MAX_ROUNDS`] times), so a second `--fix` finds nothing new.
pub fn plan_doctor_fixes(input: &DoctorInput) -> FixPlan {
    let options = input.options();
    let mut snapshot = input.snapshot();
    let before = report(&snapshot, &options);
    // the rule is checked against the folder as it was
    let whole = folder_words(&snapshot);
    let mut current = before.clone();
    let mut created: Vec<(String, String)> = Vec::new();
    let mut changed: Vec<(String, String, String)> = Vec::new(); // path, old, new
    let mut fixed = 0u32;
    let mut created_at: HashMap<String, usize> = HashMap::new();
    let mut changed_at: HashMap<String, usize> = HashMap::new();
    for _ in 0..MAX_ROUNDS {
        let step = plan_round(&snapshot, &options, &current);
        if step.created.is_empty() && step.changed.is_empty() {
            break;
        }
        fixed = fixed.saturating_add(step.fixed);
        let written: Vec<(String, String)> = step
            .created
            .iter()
            .cloned()
            .chain(
                step.changed
                    .iter()
                    .map(|(p, _, new)| (p.clone(), new.clone())),
            )
            .collect();
        for (path, text) in step.created {
            created_at.insert(path.clone(), created.len());
            created.push((path, text));
        }
        // a file changed again keeps its first old text; one made earlier is made as it is now
        for (path, old, new) in step.changed {
            if let Some(c) = created_at.get(&path).and_then(|&i| created.get_mut(i)) {
                c.1 = new;
            } else if let Some(c) = changed_at.get(&path).and_then(|&i| changed.get_mut(i)) {
                c.2 = new;
            } else {
                changed_at.insert(path.clone(), changed.len());
                changed.push((path, old, new));
            }
        }
        snapshot = with_files(snapshot, written.into_iter(), input.now_ms);
        current = report(&snapshot, &options);
    }
    changed.retain(|(_, old, new)| old != new);
    // the index is written last, after the files its entries lead to
    crate::sort::sort_by_key(&mut changed, |(p, _, _)| p == INDEX_FILE_NAME);

    // the rule, checked on the result as a whole: if any word of the folder is gone, or a file
    // is written twice (the second write would undo the first), nothing is written (a planner
    // bug must never cost someone their notes)
    if !keeps_everything(&whole, &changed, &created) {
        return FixPlan {
            effects: Vec::new(),
            diff: String::new(),
            fixed: 0,
            after: before.clone(),
            before,
        };
    }

    let diff: String = created
        .iter()
        .map(|(p, new)| unified_diff(p, "", new))
        .chain(
            changed
                .iter()
                .map(|(p, old, new)| unified_diff(p, old, new)),
        )
        .collect();
    let effects: Vec<Effect> = created
        .into_iter()
        .map(|(path, text)| Effect::Write {
            path,
            text,
            exclusive: true,
        })
        .chain(changed.into_iter().map(|(path, _, text)| Effect::Write {
            path,
            text,
            exclusive: false,
        }))
        .collect();
    FixPlan {
        effects,
        diff,
        fixed,
        before,
        after: current,
    }
}

/// What one round of fixes writes: new files, changed ones (path, old, new), and how many
/// findings of `before` (the report on `snapshot`) they repair.
struct Round {
    created: Vec<(String, String)>,
    changed: Vec<(String, String, String)>,
    fixed: u32,
}

/// One round of fixes over `snapshot`. A round that would lose a word or write a file twice
/// writes nothing.
fn plan_round(snapshot: &Snapshot, options: &Options, before: &DoctorReport) -> Round {
    let limits = options.limits;
    let mut ledger = folder_words(snapshot);
    let mut fixed = 0u32;
    let mut changed: Vec<(String, String, String)> = Vec::new(); // path, old, new
    let mut created: Vec<(String, String)> = Vec::new();

    // topic files: fold descriptions
    for f in before
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::DescriptionMultiline && f.fix.is_some())
    {
        let Ok(Some(old)) = snapshot.whole_text(&f.file, &limits) else {
            continue;
        };
        let new = folded_description_file(&normalize_text(old), &limits)
            .and_then(|new| in_stored_form(old, &new));
        if let Some(new) = new {
            if ledger.try_replace(old, &new) {
                changed.push((f.file.clone(), old.to_owned(), new));
                fixed += 1;
            }
        }
    }

    // the index, edited line by line in its stored form; a file missing from it is added even
    // when the report offered no fix for want of room, if the fixes before make room (else the
    // next --fix would add it: not idempotent), never to another tool's index
    let index_fixes = before
        .findings
        .iter()
        .any(|f| f.file == INDEX_FILE_NAME && f.fix.is_some())
        || (before
            .findings
            .iter()
            .any(|f| f.code == FindingCode::NotIndexed)
            && !is_foreign_index(&snapshot.index_text()));
    let editable = index_fixes && index_unread(snapshot).is_none();
    if let Some(stored) = snapshot.stored_index(&limits).ok().filter(|_| editable) {
        let names = TopicNames::of(snapshot);
        let staying = StayingDead::of(snapshot, &names, &ledger);
        let mut edit = IndexEdit {
            snapshot,
            limits: &limits,
            ledger: &mut ledger,
            files: &mut changed,
            created: &mut created,
            new_paths: HashSet::new(),
            names,
            staying,
        };
        let (index_fixed, new_index) = edit.fix_index(&stored, before);
        fixed += index_fixed;
        if new_index != stored.text {
            changed.push((
                INDEX_FILE_NAME.to_owned(),
                stored.with(stored.text.clone()),
                stored.with(new_index),
            ));
        }
    }

    let whole = folder_words(snapshot);
    if !keeps_everything(&whole, &changed, &created) {
        return Round {
            created: Vec::new(),
            changed: Vec::new(),
            fixed: 0,
        };
    }
    Round {
        created,
        changed,
        fixed,
    }
}

/// `snapshot` with `files` written: each one's listing entry made or resized, its text read.
/// One pass (a `put_file` each rebuilt the listing's look-up for every new file: quadratic in
/// the files compaction or dead entries write).
fn with_files(
    snapshot: Snapshot,
    files: impl Iterator<Item = (String, String)>,
    now_ms: f64,
) -> Snapshot {
    let Snapshot {
        mut entries,
        mut contents,
        resolved,
        ..
    } = snapshot;
    let mut at: HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.path.clone(), i))
        .collect();
    for (path, text) in files {
        #[allow(clippy::cast_precision_loss)] // a file's size, far below 2^52
        let size = text.len() as f64;
        match at.get(&path).and_then(|&i| entries.get_mut(i)) {
            Some(e) => e.size = size,
            None => {
                at.insert(path.clone(), entries.len());
                entries.push(Entry {
                    path: path.clone(),
                    kind: EntryKind::File,
                    size,
                    mtime_ms: now_ms,
                    problem: None,
                });
            }
        }
        contents.insert(path, Head::Text(text));
    }
    Snapshot::new(entries, contents, resolved)
}

/// What the index fixes read and add to.
struct IndexEdit<'a> {
    snapshot: &'a Snapshot,
    limits: &'a Limits,
    ledger: &'a mut WordLedger,
    /// Topic files changed (a long hook kept as a description): path, old, new.
    files: &'a mut Vec<(String, String, String)>,
    /// Files written new (a dead link's, compaction's).
    created: &'a mut Vec<(String, String)>,
    /// Their paths, lower-cased: no two new files may share one, in any case.
    new_paths: HashSet<String>,
    /// The topic files by name.
    names: TopicNames,
    /// The dead entries this --fix leaves dead.
    staying: StayingDead,
}

impl IndexEdit<'_> {
    /// The index fixes: dead links repointed, made live or removed, repeated entries removed,
    /// long entries shortened, an over-limit index compacted, missing entries added after the
    /// last entry while the index has room. Returns how many findings they repair and the new
    /// text.
    fn fix_index(&mut self, stored: &StoredText, before: &DoctorReport) -> (u32, String) {
        let limits = self.limits;
        let mut fixed = 0u32;
        let newline = stored.newline();
        let mut lines: Vec<Option<String>> = stored
            .text
            .split('\n')
            .map(|l| Some(l.to_owned()))
            .collect();
        // in three rounds, so that no decision rests on a line a later one removes (the next
        // --fix would decide otherwise): repeats first (a long entry's words are "elsewhere"
        // only in its repeat until that goes); then dead entries repointed or removed; then
        // files written for the dead entries left — the report may have offered none, its
        // words having been elsewhere in a line since removed — and every other fix
        let mut rounds: Vec<(u8, &Finding)> = Vec::new();
        for f in before.findings.iter().filter(|f| f.file == INDEX_FILE_NAME) {
            match f.code {
                FindingCode::DuplicateEntry | FindingCode::DuplicateLink if f.fix.is_some() => {
                    rounds.push((0, f));
                }
                FindingCode::DeadLink => rounds.extend([(1, f), (2, f)]),
                _ if f.fix.is_some() => rounds.push((2, f)),
                _ => {}
            }
        }
        crate::sort::sort_by_key(&mut rounds, |(round, _)| *round);
        for (round, f) in rounds {
            if f.code == FindingCode::DuplicateLink {
                let at = f.line.and_then(|n| usize::try_from(n).ok());
                if let Some(i) = at.and_then(|n| n.checked_sub(1)) {
                    fixed += u32::from(self.join_entry(&mut lines, i));
                }
                continue;
            }
            let Some(slot) = f
                .line
                .and_then(|n| usize::try_from(n).ok())
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| lines.get_mut(i))
            else {
                continue;
            };
            let Some(line) = slot.clone() else { continue };
            let cr = if line.ends_with('\r') { "\r" } else { "" };
            let body = line.trim_end_matches('\r');
            let target = match classify(body) {
                Line::Entry(e) => e.file(),
                _ => None,
            };
            match (f.code, target) {
                // repointed in round 1: alive now
                (FindingCode::DeadLink, Some(target))
                    if self.snapshot.is_file(&target) || self.snapshot.is_dir(&target) => {}
                (FindingCode::DeadLink, Some(target)) => {
                    // a second entry into the moved file with words of its own is a second way
                    // in, not a duplicate: it is repointed too
                    let moved = self
                        .names
                        .moved(&target)
                        .and_then(|to| retarget_entry(body, &to));
                    if let Some(new) = moved {
                        // a longer folder may take the line past its limit: shorten its hook
                        // too, when the words it drops are elsewhere
                        let fitted = self.fit(&new);
                        if self.ledger.try_replace(body, &fitted) {
                            *slot = Some(format!("{fitted}{cr}"));
                            fixed += 1;
                        }
                        continue;
                    }
                    let place = NewFilePlace {
                        snapshot: self.snapshot,
                        names: &self.names,
                        staying: &self.staying,
                        created: &self.new_paths,
                        limits,
                    };
                    match dead_link_remedy(&place, self.ledger, body, &target) {
                        DeadLinkRemedy::Remove if self.ledger.try_replace(body, "") => {
                            slot.take();
                            fixed += 1;
                        }
                        DeadLinkRemedy::Create { path, text } if round == 2 => {
                            self.ledger.add(&text);
                            self.new_paths.insert(path.to_lowercase());
                            self.created.push((path, text));
                            // a long line's words are now in its file too: shortened in the same
                            // pass, as the next --fix would
                            let fitted = self.fit(body);
                            if fitted != body && self.ledger.try_replace(body, &fitted) {
                                *slot = Some(format!("{fitted}{cr}"));
                            }
                            fixed += 1;
                        }
                        _ => {}
                    }
                }
                (FindingCode::DuplicateEntry, _) if self.ledger.try_replace(body, "") => {
                    slot.take();
                    fixed += 1;
                }
                (FindingCode::EntryTooLong, Some(target)) => {
                    match long_entry_remedy(self.snapshot, self.ledger, body, &target, limits) {
                        LongEntryRemedy::Shorten(short)
                            if self.ledger.try_replace(body, &short) =>
                        {
                            *slot = Some(format!("{short}{cr}"));
                            fixed += 1;
                        }
                        LongEntryRemedy::KeepAsDescription { short, file, text } => {
                            let Ok(Some(old)) = self.snapshot.whole_text(&file, limits) else {
                                continue;
                            };
                            let untouched = !self.files.iter().any(|(p, _, _)| *p == file);
                            if untouched && self.ledger.try_replace(old, &text) {
                                self.files.push((file, old.to_owned(), text));
                                if self.ledger.try_replace(body, &short) {
                                    *slot = Some(format!("{short}{cr}"));
                                }
                                fixed += 1;
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        let mut new_index = lines.into_iter().flatten().collect::<Vec<_>>().join("\n");

        // over its limits: compaction, when the index is in Claude Code's form
        if !is_foreign_index(&new_index) {
            if let Some(c) = compact_index(&new_index, self.snapshot, limits, &self.new_paths) {
                for (path, text) in c.files {
                    self.ledger.add(&text);
                    self.created.push((path, text));
                }
                new_index = c.index;
                fixed += before
                    .findings
                    .iter()
                    .filter(|f| {
                        matches!(
                            f.code,
                            FindingCode::IndexOverLines
                                | FindingCode::IndexOverSize
                                | FindingCode::IndexContent
                        )
                    })
                    .count()
                    .try_into()
                    .unwrap_or(0);
            }
        }

        let (added, text) = self.add_missing(new_index, newline);
        fixed += added;
        new_index = text;
        if new_index != stored.text && !new_index.is_empty() && !new_index.ends_with('\n') {
            new_index.push_str(newline);
        }
        (fixed, new_index)
    }

    /// Joins line `i` into the nearest line above it still there, both entries linking one
    /// place (`duplicate_link`): that line keeps its title and hook and gains this one's title
    /// (when another) and hook (when another), so no word goes. Returns whether it did.
    fn join_entry(&mut self, lines: &mut [Option<String>], i: usize) -> bool {
        let Some(Some(line)) = lines.get(i).cloned() else {
            return false;
        };
        let Some(p) = (0..i)
            .rev()
            .find(|p| lines.get(*p).is_some_and(Option::is_some))
        else {
            return false;
        };
        let Some(Some(prev)) = lines.get(p).cloned() else {
            return false;
        };
        let cr = if prev.ends_with('\r') { "\r" } else { "" };
        let (above, body) = (prev.trim_end_matches('\r'), line.trim_end_matches('\r'));
        let (Line::Entry(a), Line::Entry(b)) = (classify(above), classify(body)) else {
            return false;
        };
        if a.target != b.target {
            return false;
        }
        let mut extra: Vec<&str> = Vec::new();
        if b.title.trim() != a.title.trim() {
            extra.push(b.title.trim());
        }
        if !b.hook.trim().is_empty() && b.hook.trim() != a.hook.trim() {
            extra.push(b.hook.trim());
        }
        let joined = if extra.is_empty() {
            above.to_owned()
        } else {
            let sep = if a.hook.trim().is_empty() {
                crate::write::entry::HOOK_SEPARATOR
            } else {
                "; "
            };
            format!("{}{sep}{}", above.trim_end(), extra.join(" — "))
        };
        if !self.ledger.try_replace(above, &joined) {
            return false;
        }
        if !self.ledger.try_replace(body, "") {
            self.ledger.try_replace(&joined, above);
            return false;
        }
        if let Some(slot) = lines.get_mut(p) {
            *slot = Some(format!("{joined}{cr}"));
        }
        if let Some(slot) = lines.get_mut(i) {
            *slot = None;
        }
        true
    }

    /// `line` with its hook shortened to fit, when the words that drops are elsewhere.
    fn fit(&self, line: &str) -> String {
        match super::repair::shorter_entry(line) {
            Some(short)
                if utf16_len(line) > crate::write::entry::MAX_ENTRY_UTF16
                    && !self.ledger.would_lose(line, &short) =>
            {
                short
            }
            _ => line.to_owned(),
        }
    }

    /// Entries for the files no index line links to, inserted after the last entry (so they
    /// join the list, never a paragraph below it), while the index has room once the fixes
    /// before are made.
    fn add_missing(&mut self, index: String, newline: &str) -> (u32, String) {
        let limits = self.limits;
        let scanned = scan_all(self.snapshot, limits);
        // what nothing leads to once the fixes before are made: a line they removed or moved
        // may have named a file in plain text (the next --fix would add it)
        let lf = normalize_text(&index);
        let written: HashMap<&str, &str> = self
            .created
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .chain(self.files.iter().map(|(p, _, t)| (p.as_str(), t.as_str())))
            .collect();
        let linked = linked_files_in(self.snapshot, &lf, &written);
        // a memory a newer one replaces needs no entry (rules §4.7)
        let every: Vec<_> = scanned
            .memories
            .iter()
            .chain(&scanned.dropped)
            .cloned()
            .collect();
        let replaced = crate::keep::supersede::superseded(&every);
        let mut missing: Vec<String> = every
            .iter()
            .map(|m| m.path.clone())
            .filter(|p| !linked.contains(p) && !replaced.contains(p))
            .collect();
        crate::sort::sort(&mut missing);
        if missing.is_empty() {
            return (0, index);
        }
        let mut lines: Vec<String> = index.split('\n').map(str::to_owned).collect();
        let kinds: Vec<bool> = crate::write::entry::classify_all(&index.replace('\r', ""))
            .iter()
            .map(|k| matches!(k, Line::Entry(_)))
            .collect();
        let mut at = match kinds.iter().rposition(|&e| e) {
            Some(last) => last + 1,
            None => lines
                .iter()
                .rposition(|l| !l.trim().is_empty())
                .map_or(0, |i| i + 1),
        };
        let cr = if newline == "\r\n" { "\r" } else { "" };
        let mut fixed = 0;
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
            let line = format!("{}{cr}", format_entry(&title, &path, &hook));
            let mut candidate = lines.clone();
            if at > candidate.len() {
                at = candidate.len();
            }
            candidate.insert(at, line);
            let text = candidate.join("\n");
            let (n, units) = index_size(&text);
            if n > to_usize(limits.max_index_lines) || units > to_usize(limits.max_index_utf16) {
                break; // no room: the rest stay reported
            }
            lines = candidate;
            at += 1;
            fixed += 1;
        }
        (fixed, lines.join("\n"))
    }
}

/// The rule on a plan as a whole: no word of the folder is gone, and no file is written twice
/// (case-blind: the second write would undo the first).
fn keeps_everything(
    whole: &WordLedger,
    changed: &[(String, String, String)],
    created: &[(String, String)],
) -> bool {
    let old_texts: Vec<&str> = changed.iter().map(|(_, old, _)| old.as_str()).collect();
    let mut new_texts: Vec<&str> = changed.iter().map(|(_, _, new)| new.as_str()).collect();
    new_texts.extend(created.iter().map(|(_, t)| t.as_str()));
    let mut paths: HashSet<String> = HashSet::new();
    let once = changed
        .iter()
        .map(|(p, _, _)| p)
        .chain(created.iter().map(|(p, _)| p))
        .all(|p| paths.insert(p.to_lowercase()));
    once && !whole.would_lose(&old_texts.join("\n"), &new_texts.join("\n"))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::codes::EntryKind;
    use crate::scan::Head;
    use crate::write::snapshot::Entry;
    use std::collections::BTreeMap;

    const NOW: f64 = 1_772_714_096_789.0;

    /// A doctor input listing `files` (and their folders), every one read.
    fn input(files: &[(&str, &str)], limits: Limits) -> DoctorInput {
        let mut entries = Vec::new();
        let mut folders = std::collections::BTreeSet::new();
        for (path, text) in files {
            let mut p = *path;
            while let Some((parent, _)) = p.rsplit_once('/') {
                folders.insert(parent.to_owned());
                p = parent;
            }
            #[allow(clippy::cast_precision_loss)]
            let size = text.len() as f64;
            entries.push(Entry {
                path: (*path).to_owned(),
                kind: EntryKind::File,
                size,
                mtime_ms: NOW,
                problem: None,
            });
        }
        entries.extend(folders.into_iter().map(|path| Entry {
            path,
            kind: EntryKind::Directory,
            size: 0.0,
            mtime_ms: NOW,
            problem: None,
        }));
        DoctorInput {
            entries,
            contents: files
                .iter()
                .map(|(p, t)| ((*p).to_owned(), Head::Text((*t).to_owned())))
                .collect(),
            now_ms: NOW,
            limits: Some(limits),
            stale_core_days: None,
            outside: BTreeMap::new(),
        }
    }

    /// The paths the plan writes new (exclusively), checked to be distinct in any case and
    /// not listed.
    fn new_files(input: &DoctorInput, plan: &FixPlan) -> Vec<String> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for effect in &plan.effects {
            if let Effect::Write {
                path,
                exclusive: true,
                ..
            } = effect
            {
                assert!(
                    seen.insert(path.to_lowercase()),
                    "{path} twice:\n{}",
                    plan.diff
                );
                assert!(
                    !input
                        .entries
                        .iter()
                        .any(|e| e.path.eq_ignore_ascii_case(path)),
                    "{path} is listed:\n{}",
                    plan.diff
                );
                out.push(path.clone());
            }
        }
        out
    }

    fn topic(name: &str) -> String {
        format!("---\nname: {name}\ndescription: what {name} holds and when it helps\ntype: project\n---\n\n{name}.\n")
    }

    /// The file a dead entry's words are written to and the one compaction writes the notes
    /// under `## Notes` to were one path, both written exclusively; and compaction took a name
    /// that differs from a listed file's only in case.
    #[test]
    fn new_files_never_share_a_path() {
        let index = "# Memory\n- [Notes](project_notes.md) — quagga zebra\n- [A](a.md) — a\n## Notes\nwe deploy on fridays\nthe pager rotates weekly\n## Staging\nstaging is eu west\nit resets nightly\n";
        let a = topic("A");
        let old = topic("Old");
        let files = [
            ("MEMORY.md", index),
            ("a.md", a.as_str()),
            ("Project_Staging.md", old.as_str()),
        ];
        let limits = Limits {
            max_index_lines: 6,
            ..Limits::default()
        };
        let input = input(&files, limits);
        let plan = plan_doctor_fixes(&input);
        let made = new_files(&input, &plan);
        assert!(made.contains(&"project_notes.md".to_owned()), "{made:?}");
        assert!(made.len() >= 3, "{made:?}\n{}", plan.diff);
    }

    /// Copies of one dead entry are judged once, not each against all the others: 5,000
    /// copies took 33 s (release), each joined with every copy and read for its words.
    #[test]
    fn copies_of_a_dead_entry_cost_their_length() {
        let index = "- [D](nodir/d.md) — zebra okapi words\n".repeat(2_000);
        let input = input(&[("MEMORY.md", &index)], Limits::default());
        crate::doctor::kept_words::READ.with(|n| n.set(0));
        let plan = plan_doctor_fixes(&input);
        let read = crate::doctor::kept_words::READ.with(std::cell::Cell::get);
        assert!(
            read <= 50 * index.len(),
            "{read} bytes read for {}",
            index.len()
        );
        assert_eq!(plan.effects.len(), 1, "{}", plan.diff);
    }

    /// Files written from dead entries' words stop at `maxFiles`, counting those the plan
    /// writes (an index of 10,000 such entries wrote 10,000 files, pushing every older one out
    /// of recall); a dead entry named like a listed file in another case writes none.
    #[test]
    fn files_written_from_dead_entries_stop_at_max_files() {
        let mut index = String::new();
        for i in 0..6 {
            index.push_str(&format!("- [Gone {i}](gone_{i}.md) — unique{i} words\n"));
        }
        index.push_str("- [Case](a.md) — uniquecase words\n");
        let a = topic("A");
        let files = [("MEMORY.md", index.as_str()), ("A.md", a.as_str())];
        let limits = Limits {
            max_files: 4,
            ..Limits::default()
        };
        let input = input(&files, limits);
        let plan = plan_doctor_fixes(&input);
        let made = new_files(&input, &plan);
        assert_eq!(
            made,
            ["gone_0.md", "gone_1.md", "gone_2.md"],
            "{}",
            plan.diff
        );
    }
}
