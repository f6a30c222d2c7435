//! The journal's form: one JSON object a line. A record is written as an intent (`Record`),
//! then committed (`{"done": id}`) or, after an interrupted write was rolled back,
//! `{"aborted": id}`. A line that does not parse is skipped and counted, never fatal: the
//! journal is a file on disk, and a person (or a crash of another tool) may have cut it.

use serde::{Deserialize, Serialize};

use super::hash::is_sha256_hex;
use super::HISTORY_DIR;

/// A file's content before a change, as the record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct Before {
    /// SHA-256 of the bytes, in hex.
    pub sha256: String,
    /// Their size in bytes.
    pub bytes: u64,
    /// The content, when it is UTF-8 and small enough to keep inside the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Where the content is kept otherwise (a path in the history folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// Why the content is not kept at all: `credential` (it held what the write guard refuses,
    /// which the history never stores) or `too_large` (past `maxFileBytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withheld: Option<String>,
}

/// One file a change touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryChange", optional_fields = nullable))]
pub struct Change {
    pub path: String,
    /// Its content before; `null` when it did not exist.
    pub before: Option<Before>,
    /// SHA-256 of its content after; `null` when the change removed it.
    pub after: Option<String>,
}

/// One change of the folder, by one route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryRecord", optional_fields = nullable))]
pub struct Record {
    /// Sortable: the time in ms (13 digits), then a counter within the same ms.
    pub id: String,
    pub at_ms: f64,
    /// Which writer: `remember`, `forget`, `tool`, `doctor`, `undo`, `restore`, `recovery`, …
    pub route: String,
    /// The caller's label (an agent or session id), when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The record this change undid, for `undo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    pub changes: Vec<Change>,
}

/// What became of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryStatus"))]
pub enum Status {
    /// The change was made.
    Done,
    /// The write was interrupted and rolled back.
    Aborted,
    /// The write was interrupted and not yet rolled back (the next write does it).
    Interrupted,
}

/// A line as read: a record, or `done` / `aborted` naming one (one plain shape: an untagged
/// enum would cost the module its buffering deserializer).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Line {
    id: Option<String>,
    at_ms: Option<f64>,
    route: Option<String>,
    label: Option<String>,
    undoes: Option<String>,
    changes: Option<Vec<Change>>,
    done: Option<String>,
    aborted: Option<String>,
}

enum Read {
    Done(String),
    Aborted(String),
    Record(Record),
}

impl Line {
    fn read(self) -> Option<Read> {
        match self {
            Line {
                done: Some(id),
                id: None,
                aborted: None,
                ..
            } => Some(Read::Done(id)),
            Line {
                aborted: Some(id),
                id: None,
                done: None,
                ..
            } => Some(Read::Aborted(id)),
            Line {
                id: Some(id),
                at_ms: Some(at_ms),
                route: Some(route),
                changes: Some(changes),
                label,
                undoes,
                done: None,
                aborted: None,
            } => Some(Read::Record(Record {
                id,
                at_ms,
                route,
                label,
                undoes,
                changes,
            })),
            _ => None,
        }
    }
}

/// A record with what became of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub record: Record,
    pub status: Status,
}

/// A journal read: its records in order, and how many lines were skipped.
#[derive(Debug, Default)]
pub struct Journal {
    pub entries: Vec<Entry>,
    pub skipped_lines: usize,
}

impl Journal {
    /// Reads segments, oldest first. A record is `interrupted` until its `done` or `aborted`
    /// line; a record whose paths or hashes are not well formed is skipped (a tampered journal
    /// never names a path a writer could not).
    pub fn read<'a>(segments: impl IntoIterator<Item = &'a str>) -> Journal {
        let mut journal = Journal::default();
        let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for text in segments {
            for line in text.lines() {
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<Line>(line).ok().and_then(Line::read) {
                    Some(Read::Record(record))
                        if well_formed(&record) && !at.contains_key(&record.id) =>
                    {
                        at.insert(record.id.clone(), journal.entries.len());
                        journal.entries.push(Entry {
                            record,
                            status: Status::Interrupted,
                        });
                    }
                    Some(Read::Done(id)) => journal.mark(&at, &id, Status::Done),
                    Some(Read::Aborted(id)) => journal.mark(&at, &id, Status::Aborted),
                    _ => journal.skipped_lines += 1,
                }
            }
        }
        journal
    }

    fn mark(&mut self, at: &std::collections::HashMap<String, usize>, id: &str, status: Status) {
        match at.get(id).and_then(|&i| self.entries.get_mut(i)) {
            Some(entry) if entry.status == Status::Interrupted => entry.status = status,
            _ => self.skipped_lines += 1,
        }
    }

    pub fn find(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.record.id == id)
    }

    /// The newest record's id.
    pub fn last_id(&self) -> Option<&str> {
        self.entries.last().map(|e| e.record.id.as_str())
    }
}

fn well_formed(record: &Record) -> bool {
    record.at_ms.is_finite()
        && id_time(&record.id).is_some()
        && record.changes.iter().all(|c| {
            crate::paths::check_relative_path(&c.path).is_ok()
                && !super::is_reserved(&c.path)
                && c.after.as_deref().is_none_or(is_sha256_hex)
                && c.before.as_ref().is_none_or(|b| {
                    is_sha256_hex(&b.sha256)
                        && b.blob.as_deref().is_none_or(|p| {
                            p.starts_with(&format!("{HISTORY_DIR}/blobs/"))
                                && crate::paths::check_relative_path(p).is_ok()
                        })
                })
        })
}

/// The time part of an id (`0001764892800000-0003` → 1764892800000).
pub fn id_time(id: &str) -> Option<f64> {
    let (ms, n) = id.split_once('-')?;
    (ms.len() == 16 && n.len() == 4 && ms.bytes().chain(n.bytes()).all(|b| b.is_ascii_digit()))
        .then(|| ms.parse::<f64>().ok())
        .flatten()
}

/// The id after `last` at `now_ms`: the later of the two times, and a counter within one ms
/// (a clock that goes back never puts a record before an earlier one).
pub fn next_id(last: Option<&str>, now_ms: f64) -> String {
    let now = if now_ms.is_finite() && now_ms > 0.0 {
        now_ms.floor()
    } else {
        0.0
    };
    let (last_ms, last_n) = last
        .and_then(|id| Some((id_time(id)?, id.split_once('-')?.1.parse::<u32>().ok()?)))
        .unwrap_or((-1.0, 0));
    if now > last_ms {
        format!("{now:016.0}-0000")
    } else {
        format!("{last_ms:016.0}-{:04}", (last_n + 1).min(9999))
    }
}

/// A line of the journal.
pub fn record_line(record: &Record) -> String {
    let mut line = serde_json::to_string(record).unwrap_or_default();
    line.push('\n');
    line
}

pub fn done_line(id: &str) -> String {
    format!("{}\n", serde_json::json!({ "done": id }))
}

pub fn aborted_line(id: &str) -> String {
    format!("{}\n", serde_json::json!({ "aborted": id }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, path: &str) -> Record {
        Record {
            id: id.into(),
            at_ms: 1.0,
            route: "remember".into(),
            label: None,
            undoes: None,
            changes: vec![Change {
                path: path.into(),
                before: None,
                after: Some(super::super::hash::sha256_hex(b"x")),
            }],
        }
    }

    #[test]
    fn ids_sort_in_time_and_never_go_back() {
        let a = next_id(None, 1_764_892_800_000.0);
        assert_eq!(a, "0001764892800000-0000");
        let b = next_id(Some(&a), 1_764_892_800_000.0);
        assert_eq!(b, "0001764892800000-0001");
        let c = next_id(Some(&b), 1_000.0); // the clock went back
        assert!(c > b, "{c} > {b}");
        assert_eq!(id_time(&c), Some(1_764_892_800_000.0));
        assert!(next_id(Some(&c), f64::NAN) > c);
    }

    #[test]
    fn statuses_follow_the_lines_and_bad_lines_are_skipped() {
        let a = record("0000000000000001-0000", "a.md");
        let b = record("0000000000000002-0000", "b.md");
        let c = record("0000000000000003-0000", "c.md");
        let evil = record("0000000000000004-0000", "../etc/passwd");
        let own = record("0000000000000005-0000", ".memdir/history/journal-x.jsonl");
        let text = [
            record_line(&a),
            done_line(&a.id),
            "{not json\n".into(),
            record_line(&b),
            aborted_line(&b.id),
            record_line(&c),
            record_line(&evil),
            record_line(&own),
            done_line("0000000000000009-0000"),
        ]
        .concat();
        let j = Journal::read([text.as_str()]);
        let statuses: Vec<_> = j
            .entries
            .iter()
            .map(|e| (e.record.id.as_str(), e.status))
            .collect();
        assert_eq!(
            statuses,
            vec![
                (a.id.as_str(), Status::Done),
                (b.id.as_str(), Status::Aborted),
                (c.id.as_str(), Status::Interrupted)
            ]
        );
        assert_eq!(j.skipped_lines, 4);
    }
}
