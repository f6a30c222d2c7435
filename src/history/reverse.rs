//! Taking changes back: the rollback of an interrupted write, `undo` of one record, `restore`
//! of the folder as it was at a time. Each is a plan of effects, refused with `CHANGED` for a
//! file changed since (unless forced): a person's later edit is never overwritten.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::hash::sha256_hex;
use super::journal::{aborted_line, Before, Change, Journal, Status};
use crate::diff::unified_diff;
use crate::error::{Error, Refusal};
use crate::scan::{Head, INDEX_FILE_NAME};
use crate::write::Effect;

fn bytes_of(head: &Head) -> &[u8] {
    match head {
        Head::Text(t) => t.as_bytes(),
        Head::Bytes(b) => b,
    }
}

/// The files (and blobs) a set of changes needs read.
fn paths_of<'a>(changes: impl Iterator<Item = &'a Change>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in changes {
        for p in std::iter::once(c.path.as_str())
            .chain(c.before.as_ref().and_then(|b| b.blob.as_deref()))
        {
            if !out.iter().any(|o| o == p) {
                out.push(p.to_owned());
            }
        }
    }
    out
}

/// What the history and the folder hold now, for a plan that takes changes back.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryReverseInput", optional_fields = nullable))]
pub struct ReverseInput {
    /// The journal's segments as read, oldest first (the live one last).
    pub segments: Vec<String>,
    /// The files and blobs the read plan named, as read; a missing file is left out.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<BTreeMap<String, Head>>", optional))]
    pub contents: BTreeMap<String, Head>,
    /// `undo`: the record to take back.
    #[serde(default)]
    pub id: Option<String>,
    /// `restore`: the time (ms) the folder is brought back to.
    #[serde(default)]
    pub at_ms: Option<f64>,
    /// Overwrite files changed since.
    #[serde(default)]
    pub force: bool,
}

/// The effects that take changes back, and their diff.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryReversePlan"))]
pub struct ReversePlan {
    pub effects: Vec<Effect>,
    /// Unified diff of every file, from now to after the plan.
    pub diff: String,
    /// Files left as they are: changed since, and not forced (rollback only) or already as wanted.
    pub kept: Vec<String>,
    /// How far back the history reaches (ms): `restore` cannot go before it.
    pub reaches_ms: Option<f64>,
}

/// The state a file is brought back to.
enum Target<'a> {
    Gone,
    Content(&'a Before),
}

/// What now is: the hash of the file, `None` when it is missing.
fn now_hash(contents: &BTreeMap<String, Head>, path: &str) -> Option<String> {
    contents.get(path).map(|h| sha256_hex(bytes_of(h)))
}

fn text_of(contents: &BTreeMap<String, Head>, path: &str) -> Option<String> {
    contents
        .get(path)
        .and_then(|h| std::str::from_utf8(bytes_of(h)).ok().map(str::to_owned))
}

/// The effect that brings `path` to `target`, with its diff; `Err` when the content was not kept.
fn bring_back(
    path: &str,
    target: &Target<'_>,
    contents: &BTreeMap<String, Head>,
    effects: &mut Vec<Effect>,
    diff: &mut String,
) -> Result<(), Error> {
    let old = text_of(contents, path).unwrap_or_default();
    match target {
        Target::Gone => {
            effects.push(Effect::Remove {
                path: path.to_owned(),
            });
            diff.push_str(&unified_diff(path, &old, ""));
        }
        Target::Content(before) => {
            if let Some(why) = &before.withheld {
                let (refusal, what) = if why == "credential" {
                    (
                        Refusal::SecretDetected,
                        "it held a credential, which the history never keeps",
                    )
                } else {
                    (Refusal::TooLarge, "it was larger than the history keeps")
                };
                return Err(Error::refused(
                    refusal,
                    format!("{path}: its earlier content was not kept ({what})"),
                ));
            }
            if let Some(text) = &before.text {
                effects.push(Effect::Write {
                    path: path.to_owned(),
                    text: text.clone(),
                    exclusive: false,
                });
                diff.push_str(&unified_diff(path, &old, text));
            } else if let Some(blob) = &before.blob {
                let kept = contents.get(blob).map(bytes_of);
                if kept.map(sha256_hex).as_deref() != Some(before.sha256.as_str()) {
                    return Err(Error::refused(Refusal::NotFound, format!("{path}: its earlier content is gone from the history ({blob} is missing or changed)")));
                }
                effects.push(Effect::Copy {
                    from: blob.clone(),
                    to: path.to_owned(),
                });
                let new = kept
                    .and_then(|b| std::str::from_utf8(b).ok())
                    .unwrap_or("(bytes that are not UTF-8)\n");
                diff.push_str(&unified_diff(path, &old, new));
            }
        }
    }
    Ok(())
}

/// `MEMORY.md` changed since a record: the record's own line changes taken back on what is
/// there now (its added lines removed, its removed lines put back after the line that preceded
/// them), so a later entry stays. `None` when that cannot be done cleanly.
fn merge_index(now: &str, before: &str, after: &str) -> Option<String> {
    let before_lines: Vec<&str> = before.lines().collect();
    let after_lines: Vec<&str> = after.lines().collect();
    let mut lines: Vec<String> = now.lines().map(str::to_owned).collect();
    for added in after_lines.iter().filter(|l| !before_lines.contains(l)) {
        let at = lines.iter().position(|l| l == added)?;
        lines.remove(at);
    }
    for (i, removed) in before_lines.iter().enumerate() {
        if after_lines.contains(removed) || lines.iter().any(|l| l == removed) {
            continue;
        }
        let at = before_lines
            .get(..i)
            .unwrap_or(&[])
            .iter()
            .rev()
            .find_map(|prev| lines.iter().position(|l| l == prev).map(|p| p + 1))
            .unwrap_or(0);
        lines.insert(at, (*removed).to_owned());
    }
    let mut text = lines.join("\n");
    if now.ends_with('\n') || now.is_empty() {
        text.push('\n');
    }
    Some(text)
}

/// What to read before `undo`: the record's files and blobs.
pub fn undo_read_plan(segments: &[String], id: &str) -> Result<Vec<String>, Error> {
    let journal = Journal::read(segments.iter().map(String::as_str));
    let entry = journal.find(id).ok_or_else(|| {
        Error::refused(Refusal::NotFound, format!("no change {id} in the history"))
    })?;
    Ok(paths_of(entry.record.changes.iter()))
}

/// `undo`: the files of one record brought back to before it.
pub fn plan_undo(input: &ReverseInput) -> Result<ReversePlan, Error> {
    let id = input
        .id
        .as_deref()
        .ok_or_else(|| Error::invalid("undo needs the id of a change"))?;
    let journal = Journal::read(input.segments.iter().map(String::as_str));
    let entry = journal.find(id).ok_or_else(|| {
        Error::refused(Refusal::NotFound, format!("no change {id} in the history"))
    })?;
    if entry.status != Status::Done {
        return Err(Error::invalid(format!(
            "change {id} was never made (its write was interrupted): nothing to undo"
        )));
    }
    if let Some(by) = journal
        .entries
        .iter()
        .find(|e| e.status == Status::Done && e.record.undoes.as_deref() == Some(id))
    {
        return Err(Error::refused(
            Refusal::Changed,
            format!("change {id} was already undone (by {})", by.record.id),
        ));
    }
    let (mut effects, mut diff, mut changed) = (Vec::new(), String::new(), Vec::new());
    for change in entry.record.changes.iter().rev() {
        let now = now_hash(&input.contents, &change.path);
        if now == change.after || input.force {
            let target = change.before.as_ref().map_or(Target::Gone, Target::Content);
            bring_back(
                &change.path,
                &target,
                &input.contents,
                &mut effects,
                &mut diff,
            )?;
            continue;
        }
        // the index changed since: take back this record's lines, keep the later ones
        let merged = (change.path == INDEX_FILE_NAME)
            .then(|| {
                let now_text = text_of(&input.contents, &change.path)?;
                let before = change
                    .before
                    .as_ref()
                    .and_then(|b| b.text.as_deref())
                    .unwrap_or("");
                let after_text = after_text_of(&journal, entry, &change.path)?;
                merge_index(&now_text, before, &after_text).map(|m| (now_text, m))
            })
            .flatten();
        match merged {
            Some((now_text, text)) => {
                diff.push_str(&unified_diff(&change.path, &now_text, &text));
                effects.push(Effect::Write {
                    path: change.path.clone(),
                    text,
                    exclusive: false,
                });
            }
            None => changed.push(change.path.clone()),
        }
    }
    if !changed.is_empty() {
        return Err(Error::refused(
            Refusal::Changed,
            format!("{} changed since change {id}: undoing it would overwrite a later edit (force to overwrite)", changed.join(", ")),
        ));
    }
    Ok(ReversePlan {
        effects,
        diff,
        kept: Vec::new(),
        reaches_ms: journal.entries.first().map(|e| e.record.at_ms),
    })
}

/// The text a record left at `path`: the `before` text of the next record that changed it
/// (the history keeps contents before, not after). `None` when no later record kept it.
fn after_text_of(journal: &Journal, entry: &super::journal::Entry, path: &str) -> Option<String> {
    let later = journal
        .entries
        .iter()
        .skip_while(|e| e.record.id != entry.record.id)
        .skip(1);
    later
        .filter(|e| e.status == Status::Done)
        .find_map(|e| e.record.changes.iter().find(|c| c.path == path))
        .and_then(|c| c.before.as_ref())
        .filter(|b| {
            Some(&b.sha256)
                == entry
                    .record
                    .changes
                    .iter()
                    .find(|c| c.path == path)
                    .and_then(|c| c.after.as_ref())
        })
        .and_then(|b| b.text.clone())
}

/// What to read before `restore`: every file changed after `at_ms`, and their blobs.
pub fn restore_read_plan(segments: &[String], at_ms: f64) -> Vec<String> {
    let journal = Journal::read(segments.iter().map(String::as_str));
    paths_of(
        journal
            .entries
            .iter()
            .filter(|e| e.status == Status::Done && e.record.at_ms > at_ms)
            .flat_map(|e| e.record.changes.iter()),
    )
}

/// `restore`: every file changed after `at_ms` brought back to how it was then.
pub fn plan_restore(input: &ReverseInput) -> Result<ReversePlan, Error> {
    let at = input
        .at_ms
        .filter(|t| t.is_finite())
        .ok_or_else(|| Error::invalid("restore needs a time"))?;
    let journal = Journal::read(input.segments.iter().map(String::as_str));
    // per path: the first change after `at` (what it was then) and the last (what it should be now)
    let mut first: BTreeMap<&str, &Change> = BTreeMap::new();
    let mut last: BTreeMap<&str, &Change> = BTreeMap::new();
    for e in journal
        .entries
        .iter()
        .filter(|e| e.status == Status::Done && e.record.at_ms > at)
    {
        for c in &e.record.changes {
            first.entry(c.path.as_str()).or_insert(c);
            last.insert(c.path.as_str(), c);
        }
    }
    let (mut effects, mut diff, mut changed) = (Vec::new(), String::new(), Vec::new());
    for (path, c) in &first {
        let now = now_hash(&input.contents, path);
        let then = c.before.as_ref().map(|b| b.sha256.clone());
        if now == then {
            continue;
        }
        if !input.force && now != last.get(path).and_then(|l| l.after.clone()) {
            changed.push((*path).to_owned());
            continue;
        }
        let target = c.before.as_ref().map_or(Target::Gone, Target::Content);
        bring_back(path, &target, &input.contents, &mut effects, &mut diff)?;
    }
    if !changed.is_empty() {
        return Err(Error::refused(
            Refusal::Changed,
            format!("{} changed outside memdir since: restoring would overwrite that edit (force to overwrite)", changed.join(", ")),
        ));
    }
    Ok(ReversePlan {
        effects,
        diff,
        kept: Vec::new(),
        reaches_ms: journal.entries.first().map(|e| e.record.at_ms),
    })
}

/// What to read before rolling back the live segment's interrupted writes.
pub fn recovery_read_plan(segment: &str) -> Vec<String> {
    let journal = Journal::read([segment]);
    paths_of(
        journal
            .entries
            .iter()
            .filter(|e| e.status == Status::Interrupted)
            .flat_map(|e| e.record.changes.iter()),
    )
}

/// The rollback of interrupted writes (newest first), and the live segment with each marked
/// `aborted`. A file neither as the write left it nor as it was (someone changed it since) is
/// kept; so is one whose earlier content was not kept.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryRecoveryPlan"))]
pub struct RecoveryPlan {
    pub effects: Vec<Effect>,
    pub segment_text: String,
    pub aborted: Vec<String>,
    pub kept: Vec<String>,
}

pub fn plan_recovery(segment: &str, contents: &BTreeMap<String, Head>) -> RecoveryPlan {
    let journal = Journal::read([segment]);
    let mut plan = RecoveryPlan {
        effects: Vec::new(),
        segment_text: segment.to_owned(),
        aborted: Vec::new(),
        kept: Vec::new(),
    };
    if !plan.segment_text.is_empty() && !plan.segment_text.ends_with('\n') {
        plan.segment_text.push('\n');
    }
    let mut state: BTreeMap<String, Option<String>> = BTreeMap::new();
    for entry in journal
        .entries
        .iter()
        .rev()
        .filter(|e| e.status == Status::Interrupted)
    {
        for c in entry.record.changes.iter().rev() {
            let now = state
                .get(&c.path)
                .cloned()
                .unwrap_or_else(|| now_hash(contents, &c.path));
            let then = c.before.as_ref().map(|b| b.sha256.clone());
            if now == then {
                continue;
            }
            let mut ignored = String::new();
            let target = c.before.as_ref().map_or(Target::Gone, Target::Content);
            let mut effects = Vec::new();
            if now == c.after
                && bring_back(&c.path, &target, contents, &mut effects, &mut ignored).is_ok()
            {
                plan.effects.extend(effects);
                state.insert(c.path.clone(), then);
            } else {
                plan.kept.push(c.path.clone());
            }
        }
        plan.segment_text.push_str(&aborted_line(&entry.record.id));
        plan.aborted.push(entry.record.id.clone());
    }
    plan
}

/// One record as the history shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryItem", optional_fields = nullable))]
pub struct HistoryItem {
    pub id: String,
    pub at_ms: f64,
    pub route: String,
    pub label: Option<String>,
    pub undoes: Option<String>,
    pub status: Status,
    pub changes: Vec<ChangeSummary>,
}

/// One file of a record: what happened to it and its hashes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ChangeSummary {
    pub path: String,
    /// `created`, `changed` or `removed`.
    pub action: String,
    pub before_sha256: Option<String>,
    pub after_sha256: Option<String>,
    /// Why the content before is not kept, when it is not.
    pub withheld: Option<String>,
}

/// The history, newest first: every record, or those of `file` (a path relative to the
/// folder), at or after `since_ms`.
pub fn history_items(
    segments: &[String],
    file: Option<&str>,
    since_ms: Option<f64>,
) -> Vec<HistoryItem> {
    let journal = Journal::read(segments.iter().map(String::as_str));
    journal
        .entries
        .iter()
        .rev()
        .filter(|e| since_ms.is_none_or(|s| e.record.at_ms >= s))
        .filter(|e| file.is_none_or(|f| e.record.changes.iter().any(|c| c.path == f)))
        .map(|e| HistoryItem {
            id: e.record.id.clone(),
            at_ms: e.record.at_ms,
            route: e.record.route.clone(),
            label: e.record.label.clone(),
            undoes: e.record.undoes.clone(),
            status: e.status,
            changes: e
                .record
                .changes
                .iter()
                .map(|c| ChangeSummary {
                    path: c.path.clone(),
                    action: match (&c.before, &c.after) {
                        (None, _) => "created",
                        (_, None) => "removed",
                        _ => "changed",
                    }
                    .into(),
                    before_sha256: c.before.as_ref().map(|b| b.sha256.clone()),
                    after_sha256: c.after.clone(),
                    withheld: c.before.as_ref().and_then(|b| b.withheld.clone()),
                })
                .collect(),
        })
        .collect()
}
