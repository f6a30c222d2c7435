//! Journaling one change: what to read before it, then the record, written ahead of the change.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::hash::sha256_hex;
use super::journal::{done_line, id_time, next_id, record_line, Before, Change, Journal, Record};
use super::policy::HistoryPolicy;
use super::HISTORY_DIR;
use crate::codes::EntryKind;
use crate::error::Error;
use crate::scan::Head;
use crate::write::snapshot::Entry;
use crate::write::Effect;

/// What to read before journaling a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryReadPlan"))]
pub struct ReadPlan {
    /// List the folder first and ask again with its entries (a remove or rename may name a
    /// folder); `read` is empty then.
    pub list: bool,
    /// Files to read whole (up to `readBytes`); a missing one is left out of `contents`.
    pub read: Vec<String>,
    /// Read this many bytes of each at most: one past `maxFileBytes`.
    pub read_bytes: u32,
}

/// A change to journal, with what was read before it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryRecordInput", optional_fields = nullable))]
pub struct RecordInput {
    pub effects: Vec<Effect>,
    /// The folder's listing, when a remove or rename may name a folder (else empty).
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<Entry>>", optional))]
    pub entries: Vec<Entry>,
    /// What the read plan named, by path, as read.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<BTreeMap<String, Head>>", optional))]
    pub contents: BTreeMap<String, Head>,
    /// The live segment as read (`""` when there is none).
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
    pub segment: String,
    pub route: String,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub undoes: Option<String>,
    pub now_ms: f64,
    #[serde(default)]
    pub policy: Option<HistoryPolicy>,
    /// The change goes ahead only if this file's content has this hash now (`ifMatch`):
    /// `CHANGED` otherwise, and nothing is written.
    #[serde(default)]
    pub if_match: Option<IfMatch>,
}

/// A write's condition: `path`'s content hashes to `sha256` (from `contentHash`, `scan` or a view).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct IfMatch {
    pub path: String,
    pub sha256: String,
}

/// `CHANGED` unless `path` is now as the writer read it.
fn check_if_match(input: &RecordInput) -> Result<(), Error> {
    let Some(m) = &input.if_match else {
        return Ok(());
    };
    if !super::hash::is_sha256_hex(&m.sha256) {
        return Err(Error::invalid(format!(
            "ifMatch must be a SHA-256 in hex (64 characters 0-9a-f), not {:?}",
            m.sha256
        )));
    }
    let now = input.contents.get(&m.path).map(|h| sha256_hex(bytes_of(h)));
    if now.as_deref() == Some(m.sha256.as_str()) {
        return Ok(());
    }
    let is = now.map_or_else(
        || "it does not exist".to_owned(),
        |h| format!("its content hash is now {h}"),
    );
    Err(Error::refused(
        crate::error::Refusal::Changed,
        format!(
            "{} changed since it was read ({is}, not the ifMatch {}): nothing was written; read it again",
            m.path, m.sha256
        ),
    ))
}

/// A copy of a file's bytes, as read, into the history folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryBlob"))]
pub struct BlobCopy {
    /// The file whose content (as read for the record) is kept.
    pub from: String,
    pub to: String,
}

/// The writes that journal a change, in order: the blobs; the live segment renamed to
/// `rotateTo` when it is full; the live segment as `intentText`; the change; the live segment
/// as `doneText`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryRecordPlan", optional_fields = nullable))]
pub struct RecordPlan {
    pub record: Record,
    pub blobs: Vec<BlobCopy>,
    pub rotate_to: Option<String>,
    pub intent_text: String,
    pub done_text: String,
}

fn writes_dir(effect: &Effect) -> Option<&str> {
    match effect {
        Effect::Write { .. } | Effect::Copy { .. } => None,
        Effect::Remove { path } => Some(path),
        Effect::Rename { from, .. } => Some(from),
    }
}

/// The files below (or at) `path` in the listing.
fn files_at<'a>(entries: &'a [Entry], path: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    entries
        .iter()
        .filter(move |e| {
            e.kind == EntryKind::File
                && (e.path == path
                    || (e.path.starts_with(path)
                        && e.path.as_bytes().get(path.len()) == Some(&b'/')))
        })
        .map(|e| e.path.as_str())
}

/// Whether a change of `effects` needs the folder's listing (a remove or rename may name a folder).
pub fn needs_listing(effects: &[Effect]) -> bool {
    effects.iter().any(|e| writes_dir(e).is_some())
}

/// What to read before journaling `effects`: every file they touch as it is now, and the file
/// an `ifMatch` names. Without the listing (`None`), a change that may name a folder asks for
/// it first.
pub fn read_plan(
    effects: &[Effect],
    entries: Option<&[Entry]>,
    if_match: Option<&str>,
    max_file_bytes: u32,
) -> ReadPlan {
    let read_bytes = max_file_bytes.saturating_add(1);
    let Some(entries) = entries.or((!needs_listing(effects)).then_some(&[][..])) else {
        return ReadPlan {
            list: true,
            read: Vec::new(),
            read_bytes,
        };
    };
    let mut read: Vec<String> = Vec::new();
    let mut add = |p: &str| {
        if !read.iter().any(|r| r == p) {
            read.push(p.to_owned());
        }
    };
    for effect in effects {
        match effect {
            Effect::Write { path, .. } => add(path),
            Effect::Copy { from, to } => {
                add(to);
                add(from);
            }
            Effect::Remove { path } | Effect::Rename { from: path, .. } => {
                add(path);
                for f in files_at(entries, path) {
                    add(f);
                }
            }
        }
        if let Effect::Rename { to, .. } = effect {
            add(to);
        }
    }
    if let Some(p) = if_match {
        add(p);
    }
    ReadPlan {
        list: false,
        read,
        read_bytes,
    }
}

fn bytes_of(head: &Head) -> &[u8] {
    match head {
        Head::Text(t) => t.as_bytes(),
        Head::Bytes(b) => b,
    }
}

/// The folder's files after `effects`, as content hashes (`None`: gone), for the paths they touch.
fn after_hashes(effects: &[Effect], input: &RecordInput) -> BTreeMap<String, Option<String>> {
    let mut state: BTreeMap<String, Option<String>> = BTreeMap::new();
    let now = |state: &BTreeMap<String, Option<String>>, p: &str| -> Option<String> {
        match state.get(p) {
            Some(h) => h.clone(),
            None => input.contents.get(p).map(|h| sha256_hex(bytes_of(h))),
        }
    };
    for effect in effects {
        match effect {
            Effect::Write { path, text, .. } => {
                state.insert(path.clone(), Some(sha256_hex(text.as_bytes())));
            }
            Effect::Copy { from, to } => {
                let h = now(&state, from);
                state.insert(to.clone(), h);
            }
            Effect::Remove { path } => {
                let below: Vec<String> = files_at(&input.entries, path)
                    .map(str::to_owned)
                    .chain(
                        state
                            .keys()
                            .filter(|k| k.starts_with(&format!("{path}/")))
                            .cloned(),
                    )
                    .collect();
                state.insert(path.clone(), None);
                for f in below {
                    state.insert(f, None);
                }
            }
            Effect::Rename { from, to } => {
                let moved: Vec<(String, String)> = std::iter::once((from.clone(), to.clone()))
                    .chain(
                        files_at(&input.entries, from)
                            .filter(|f| *f != from)
                            .map(|f| {
                                (
                                    f.to_owned(),
                                    format!("{to}{}", f.get(from.len()..).unwrap_or_default()),
                                )
                            }),
                    )
                    .collect();
                for (a, b) in moved {
                    let h = now(&state, &a);
                    state.insert(a, None);
                    if h.is_some() {
                        state.insert(b, h);
                    }
                }
            }
        }
    }
    state
}

/// The record of `input.effects` and the writes that journal it.
pub fn plan_record(input: &RecordInput, max_file_bytes: u32) -> Result<RecordPlan, Error> {
    if input.route.is_empty() || input.route.len() > 64 {
        return Err(Error::invalid(
            "the history's route is a name of 1 to 64 characters",
        ));
    }
    if input.label.as_ref().is_some_and(|l| l.len() > 256) {
        return Err(Error::invalid("the history's label is at most 256 bytes"));
    }
    check_if_match(input)?;
    let policy = input.policy.unwrap_or_default();
    let live = Journal::read([input.segment.as_str()]);
    let id = next_id(live.last_id(), input.now_ms);
    let mut blobs = Vec::new();
    let mut changes = Vec::new();
    for (path, after) in after_hashes(&input.effects, input) {
        let before = input.contents.get(&path).map(|head| {
            let bytes = bytes_of(head);
            let mut b = Before {
                sha256: sha256_hex(bytes),
                bytes: bytes.len() as u64,
                text: None,
                blob: None,
                withheld: None,
            };
            let text = std::str::from_utf8(bytes).ok();
            if bytes.len() as u64 > u64::from(max_file_bytes) {
                b.withheld = Some("too_large".into());
            } else if text.is_some_and(|t| !crate::secrets::find_secrets(t).is_empty()) {
                b.withheld = Some("credential".into());
            } else if let (Some(t), true) = (text, bytes.len() <= policy.inline_bytes as usize) {
                b.text = Some(t.to_owned());
            } else {
                let to = format!("{HISTORY_DIR}/blobs/{id}-{}", blobs.len());
                b.blob = Some(to.clone());
                blobs.push(BlobCopy {
                    from: path.clone(),
                    to,
                });
            }
            b
        });
        if before.as_ref().map(|b| &b.sha256) == after.as_ref() {
            continue; // unchanged
        }
        if before.is_none() && after.is_none() {
            continue; // a folder, or a file that never was
        }
        changes.push(Change {
            path,
            before,
            after,
        });
    }
    let record = Record {
        id: id.clone(),
        at_ms: id_time(&id).unwrap_or(0.0),
        route: input.route.clone(),
        label: input.label.clone(),
        undoes: input.undoes.clone(),
        changes,
    };
    let line = record_line(&record);
    let full = !input.segment.is_empty()
        && input.segment.len() + line.len() > policy.segment_bytes as usize;
    // a full segment is closed under its first record's id (under this record's when it holds
    // none: junk that is not memdir's, which the bounds then take like any closed segment)
    let (rotate_to, mut base) = match (full, live.entries.first()) {
        (true, first) => (
            Some(format!(
                "{HISTORY_DIR}/journal-{}.jsonl",
                first.map_or(id.as_str(), |f| f.record.id.as_str())
            )),
            String::new(),
        ),
        (false, _) => (None, input.segment.clone()),
    };
    // a segment cut mid-line (not memdir's doing) ends its last line before this one starts
    if !base.is_empty() && !base.ends_with('\n') {
        base.push('\n');
    }
    let intent_text = format!("{base}{line}");
    let done_text = format!("{intent_text}{}", done_line(&id));
    Ok(RecordPlan {
        record,
        blobs,
        rotate_to,
        intent_text,
        done_text,
    })
}
