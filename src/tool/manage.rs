//! `delete` and `rename`, which also keep `MEMORY.md`'s entries true: a deleted memory's
//! entry goes with it and a renamed one's follows it (the reference leaves dead links).

use super::edit::refused;
use super::ToolResult;
use crate::codes::EntryKind;
use crate::limits::Limits;
use crate::scan::{is_topic_path, INDEX_FILE_NAME};
use crate::write::entry::{classify, retarget_entries, under, Line};
use crate::write::guard::{no_secrets, room_for_topic};
use crate::write::{Effect, Snapshot};

fn entries(n: usize) -> String {
    if n == 1 {
        "1 entry".to_owned()
    } else {
        format!("{n} entries")
    }
}

fn index_write(text: String) -> Effect {
    Effect::Write {
        path: INDEX_FILE_NAME.to_owned(),
        text,
        exclusive: false,
    }
}

pub fn delete(given: &str, rel: &str, snapshot: &Snapshot, limits: &Limits) -> ToolResult {
    if rel.is_empty() {
        return ToolResult::error("Cannot delete the /memories directory itself");
    }
    if snapshot.entry(rel).is_none() {
        return ToolResult::error(format!("The path {given} does not exist"));
    }
    let mut effects = Vec::new();
    let mut text = format!("Successfully deleted {given}");
    if rel != INDEX_FILE_NAME {
        let index = match snapshot.stored_index(limits) {
            Ok(index) => index,
            Err(e) => return ToolResult::error(refused(e)),
        };
        let (new_index, removed) = remove_entries_under(&index.text, rel);
        if removed > 0 {
            effects.push(index_write(index.with(new_index)));
            text.push_str(&format!(
                "\nAlso removed {} linking to it from /memories/{INDEX_FILE_NAME}.",
                entries(removed)
            ));
        }
    }
    effects.push(Effect::Remove {
        path: rel.to_owned(),
    });
    ToolResult::ok(text, effects)
}

/// The index without the entries pointing at `rel` or below it, and how many went.
fn remove_entries_under(index: &str, rel: &str) -> (String, usize) {
    let lines: Vec<&str> = index.split('\n').collect();
    let kept: Vec<&str> = lines
        .iter()
        .copied()
        .filter(
            |l| !matches!(classify(l), Line::Entry(e) if e.file().is_some_and(|f| under(&f, rel))),
        )
        .collect();
    let removed = lines.len() - kept.len();
    (kept.join("\n"), removed)
}

pub fn rename(
    old_given: &str,
    new_given: &str,
    from: &str,
    to: &str,
    snapshot: &Snapshot,
    limits: &Limits,
) -> ToolResult {
    if from.is_empty() {
        return ToolResult::error("Cannot rename the /memories directory itself");
    }
    if to.is_empty() || snapshot.entry(to).is_some() {
        return ToolResult::error(format!("The destination {new_given} already exists"));
    }
    let Some(source) = snapshot.entry(from) else {
        return ToolResult::error(format!("The path {old_given} does not exist"));
    };
    if to == from || under(to, from) {
        return ToolResult::error(format!(
            "Cannot rename {old_given} into itself ({new_given})"
        ));
    }
    if to == INDEX_FILE_NAME {
        return ToolResult::error(format!(
            "Refused: /memories/{INDEX_FILE_NAME} is the index; write it with entries (create), not by renaming {old_given} onto it. Nothing was written."
        ));
    }
    if let Some(parent) = snapshot.non_folder_on_the_way(to) {
        return ToolResult::error(format!(
            "Cannot rename to {new_given}: /memories/{parent} is a file, not a directory"
        ));
    }
    if let Err(e) = no_secrets("the new path", to) {
        return ToolResult::error(refused(e));
    }
    if source.kind == EntryKind::File && !is_topic_path(from) && is_topic_path(to) {
        if let Err(e) = room_for_topic(snapshot.topic_files().count(), limits) {
            return ToolResult::error(format!("Refused: {e}. Nothing was written."));
        }
    }
    let mut effects = vec![Effect::Rename {
        from: from.to_owned(),
        to: to.to_owned(),
    }];
    let mut text = format!("Successfully renamed {old_given} to {new_given}");
    if from != INDEX_FILE_NAME {
        let index = match snapshot.stored_index(limits) {
            Ok(index) => index,
            Err(e) => return ToolResult::error(refused(e)),
        };
        let (new_index, changed) = retarget_entries(&index.text, from, to);
        if changed > 0 {
            effects.push(index_write(index.with(new_index)));
            text.push_str(&format!(
                "\nUpdated {} in /memories/{INDEX_FILE_NAME} to the new path.",
                entries(changed)
            ));
        }
    }
    ToolResult::ok(text, effects)
}
