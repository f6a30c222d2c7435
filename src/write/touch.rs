//! `touch` (rules §4.7): a memory confirmed true now. Recorded as Claude Code records a
//! memory's time, `metadata.modified`, every other byte of the file kept; the write gives the
//! file a new mtime too, so its time — the older of the two (§1.3) — is now, and the staleness
//! reminder and doctor's `stale_core_memory` clear.

use super::frontmatter_edit::set_metadata_key;
use super::guard::{fits, resolved_inside};
use super::read_plan::{file_read_bytes, ReadPlan};
use super::remember::{WriteAction, WritePlan};
use super::{Effect, Snapshot};
use crate::error::{Error, Refusal};
use crate::limits::Limits;
use crate::manifest::iso_time;
use crate::paths::check_relative_path;
use crate::scan::{is_topic_path, INDEX_FILE_NAME};

/// What to read before [`plan_touch`]: the file whole, and where it really is.
pub fn touch_read_plan(file: &str, limits: &Limits) -> ReadPlan {
    ReadPlan {
        read: vec![file.to_owned()],
        resolve: vec![file.to_owned()],
        heads: None,
        all_topics: false,
        read_bytes: file_read_bytes(limits),
    }
}

/// Plans marking `file` as confirmed at `now_ms`: its `metadata.modified` set (the block made
/// when it has none), nothing else changed.
pub fn plan_touch(
    file: &str,
    snapshot: &Snapshot,
    now_ms: f64,
    limits: &Limits,
) -> Result<WritePlan, Error> {
    check_relative_path(file)?;
    crate::history::check_writable(file)?;
    if file.rsplit('/').next() == Some(INDEX_FILE_NAME) || !is_topic_path(file) {
        return Err(Error::refused(
            Refusal::InvalidMemory,
            format!(
                "{file:?} is not a memory: touch confirms a topic file (`*.md`, not MEMORY.md)"
            ),
        ));
    }
    if !now_ms.is_finite() {
        return Err(Error::invalid("nowMs must be a time in ms since the epoch"));
    }
    resolved_inside(snapshot, file)?;
    if !snapshot.is_file(file) {
        return Err(Error::refused(
            Refusal::NotFound,
            format!("nothing to touch: {file} does not exist"),
        ));
    }
    let Some(text) = snapshot.whole_text(file, limits)? else {
        return Err(Error::invalid(format!(
            "{file} was not read: touch needs its whole text"
        )));
    };
    let touched = set_metadata_key(text, "modified", &iso_time(now_ms)).map_err(|e| {
        Error::refused(
            Refusal::InvalidMemory,
            format!("{file} cannot be touched: {e}"),
        )
    })?;
    fits(file, &touched, limits)?;
    Ok(WritePlan {
        file: file.to_owned(),
        action: WriteAction::Touched,
        index_line: None,
        effects: vec![Effect::Write {
            path: file.to_owned(),
            text: touched,
            exclusive: false,
        }],
    })
}
