//! `forget`: a topic file and every index line that links to it.

use super::entry::remove_entries;
use super::remember::{WriteAction, WritePlan};
use super::{Effect, Snapshot};
use crate::error::{Error, Refusal};
use crate::limits::Limits;
use crate::paths::check_relative_path;
use crate::scan::{is_topic_path, INDEX_FILE_NAME};

/// Plans removing `file` and its index entries. The index is written first: a crash in
/// between leaves a file missing from the index (which `doctor` finds), never a lost index.
pub fn plan_forget(file: &str, snapshot: &Snapshot, limits: &Limits) -> Result<WritePlan, Error> {
    check_relative_path(file)?;
    crate::history::check_writable(file)?;
    if !is_topic_path(file) {
        return Err(Error::refused(
            Refusal::IndexOnly,
            format!(
                "{file:?} is not a topic file: forget removes a `*.md` memory and its index line"
            ),
        ));
    }
    super::guard::resolved_inside(snapshot, file)?;
    super::guard::resolved_inside(snapshot, INDEX_FILE_NAME)?;
    let index = snapshot.stored_index(limits)?;
    let (new_index, removed) = remove_entries(&index.text, file);
    let exists = snapshot.entry(file).is_some();
    if !exists && removed == 0 {
        return Err(Error::refused(
            Refusal::NotFound,
            format!("nothing to forget: {file} does not exist and no index entry links to it"),
        ));
    }
    let mut effects = Vec::new();
    if removed > 0 {
        effects.push(Effect::Write {
            path: INDEX_FILE_NAME.to_owned(),
            text: index.with(new_index),
            exclusive: false,
        });
    }
    if exists {
        effects.push(Effect::Remove {
            path: file.to_owned(),
        });
    }
    Ok(WritePlan {
        file: file.to_owned(),
        action: WriteAction::Forgotten,
        index_line: None,
        effects,
    })
}
