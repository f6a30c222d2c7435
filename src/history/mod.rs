//! The history (rules §4.6): every change memdir makes to a memory folder, recorded before it is
//! made, so that a person can see what changed and take it back.
//!
//! The journal lives in the folder itself, under [`HISTORY_DIR`] (`.memdir/history`): JSON-lines
//! segments (`journal-<first id>.jsonl`) and, for an earlier content too large or not UTF-8 to
//! keep inline, a blob (`blobs/<id>-<n>`). None of it is a `.md` file: Claude Code's scan and
//! memdir's never read it into a prompt, and no writer may touch it (`check_writable`).
//!
//! A write is journaled in three steps under the directory's write lock ([`record`]): the
//! record is appended as an *intent* (the content before each file, whole or as a blob, and the
//! hash after), the change is made, then a `done` line commits it. A write killed between the
//! two leaves an intent without `done`: the next journaled write rolls it back from the record
//! ([`reverse::plan_recovery`]) and marks it `aborted`, so the files and the journal agree.
//! [`reverse`] also plans `undo` (one record) and `restore` (the folder at a time); both refuse
//! with `CHANGED` a file changed since (a person's later edit is never overwritten) unless forced.
//! [`policy::HistoryPolicy`] bounds it by size and age.

pub mod hash;
pub mod journal;
pub mod policy;
pub mod record;
pub mod reverse;

/// The history's folder, relative to the memory folder.
pub const HISTORY_DIR: &str = ".memdir/history";
/// The live segment: records are appended here; a full one is renamed to `journal-<first id>.jsonl`.
pub const LIVE_SEGMENT: &str = ".memdir/history/journal.jsonl";
/// The folder writers may never touch (the history, and what memdir keeps later).
pub const RESERVED_DIR: &str = ".memdir";

/// Whether `path` (relative, `/`-separated) is in memdir's own folder.
pub fn is_reserved(path: &str) -> bool {
    path == RESERVED_DIR || path.starts_with(".memdir/")
}

/// The journal's segments in `entries`, oldest first: the closed ones by their first id, the
/// live one last.
pub fn segments(entries: &[crate::write::snapshot::Entry]) -> Vec<String> {
    let prefix = format!("{HISTORY_DIR}/journal-");
    let mut closed: Vec<String> = entries
        .iter()
        .filter(|e| e.kind == crate::codes::EntryKind::File)
        .filter(|e| {
            e.path
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".jsonl"))
                .is_some_and(|id| journal::id_time(id).is_some())
        })
        .map(|e| e.path.clone())
        .collect();
    crate::sort::sort(&mut closed);
    if entries.iter().any(|e| e.path == LIVE_SEGMENT) {
        closed.push(LIVE_SEGMENT.to_owned());
    }
    closed
}

/// Refuses a path in memdir's own folder: no writer touches the history but the history.
pub fn check_writable(path: &str) -> Result<(), crate::Error> {
    if is_reserved(path) {
        return Err(crate::Error::UnsafePath {
            path: path.to_owned(),
            reason: format!("it is in {RESERVED_DIR}, memdir's own folder (the history)"),
        });
    }
    Ok(())
}
