//! `create`, `str_replace`, `insert`: the new text is decided here and checked by the write
//! rules before the host writes it (atomically).

use super::index_line::{drop_replaced_entries, dropped_note, entry_for_new_file};
use super::view::number_lines;
use super::ToolResult;
use crate::codes::EntryKind;
use crate::error::{Error, Refusal};
use crate::limits::Limits;
use crate::scan::{is_topic_path, INDEX_FILE_NAME};
use crate::write::guard::{fits, index_rules, no_secrets, room_for_topic};
use crate::write::{Effect, Snapshot};

/// The write rules for new text at `rel`; the error is the result text.
fn guard(
    given: &str,
    rel: &str,
    old: &str,
    new: &str,
    creating: bool,
    snapshot: &Snapshot,
    limits: &Limits,
) -> Result<(), String> {
    no_secrets("the path", rel).map_err(refused)?;
    no_secrets(given, new).map_err(refused)?;
    fits(given, new, limits).map_err(refused)?;
    if rel == INDEX_FILE_NAME {
        index_rules(old, new, limits).map_err(refused)?;
    } else if creating && is_topic_path(rel) {
        room_for_topic(snapshot.topic_files().count(), limits).map_err(refused)?;
    }
    Ok(())
}

/// A write rule's refusal as the result text.
pub(super) fn refused(e: Error) -> String {
    format!("Refused: {e}. Nothing was written.")
}

fn write(rel: &str, text: String, exclusive: bool) -> Vec<Effect> {
    vec![Effect::Write {
        path: rel.to_owned(),
        text,
        exclusive,
    }]
}

pub fn create(
    given: &str,
    rel: &str,
    file_text: &str,
    snapshot: &Snapshot,
    limits: &Limits,
) -> ToolResult {
    if snapshot.is_dir(rel) || snapshot.entry(rel).is_some() {
        return ToolResult::error(format!("File {given} already exists"));
    }
    if let Some(parent) = snapshot.non_folder_on_the_way(rel) {
        return ToolResult::error(format!(
            "Cannot create {given}: /memories/{parent} is a file, not a directory"
        ));
    }
    if let Err(text) = guard(given, rel, "", file_text, true, snapshot, limits) {
        return ToolResult::error(text);
    }
    let mut text = format!("File created successfully at: {given}");
    let mut effects = write(rel, file_text.to_owned(), true);
    // a new memory gets its index line, as `remember` gives it one (after the file, so the
    // line never points at a file that is not there)
    if let Some(entry) = entry_for_new_file(rel, file_text, snapshot, limits) {
        text.push_str(&entry.note);
        effects.extend(entry.effect);
    }
    ToolResult::ok(text, effects)
}

/// The file's current text, or the error result the SDK gives (or memdir's refusal when it
/// was not read whole or is not UTF-8).
fn existing(
    given: &str,
    rel: &str,
    snapshot: &Snapshot,
    limits: &Limits,
) -> Result<String, ToolResult> {
    match snapshot.entry(rel) {
        // the root is a folder, whatever a listing says
        _ if rel.is_empty() => {
            return Err(ToolResult::error(format!(
                "The path {given} is not a file."
            )))
        }
        None if !snapshot.is_dir(rel) => {
            return Err(ToolResult::error(format!(
                "The path {given} does not exist. Please provide a valid path."
            )))
        }
        Some(e) if e.kind == EntryKind::File && e.problem.is_none() => {}
        _ => {
            return Err(ToolResult::error(format!(
                "The path {given} is not a file."
            )))
        }
    }
    match snapshot.whole_text(rel, limits) {
        Ok(None) => Err(ToolResult::error(format!(
            "The file {given} no longer exists (may have been deleted or renamed concurrently)."
        ))),
        Err(Error::Refused {
            refusal: Refusal::InvalidUtf8,
            ..
        }) => Err(ToolResult::error(format!(
            "The file {given} is not valid UTF-8 text, so it cannot be edited."
        ))),
        Err(e) => Err(ToolResult::error(refused(e))),
        Ok(Some(text)) => Ok(text.to_owned()),
    }
}

/// Byte offsets of every occurrence of `needle`, overlapping ones included.
fn occurrences(haystack: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(i) = haystack.get(from..).and_then(|rest| rest.find(needle)) {
        let at = from + i;
        found.push(at);
        // step one character, so "aa" in "aaa" counts twice
        from = at
            + haystack
                .get(at..)
                .and_then(|r| r.chars().next())
                .map_or(1, char::len_utf8);
    }
    found
}

fn line_of(text: &str, byte: usize) -> usize {
    text.get(..byte).map_or(0, |t| t.matches('\n').count())
}

pub fn str_replace(
    given: &str,
    rel: &str,
    old_str: &str,
    new_str: &str,
    snapshot: &Snapshot,
    limits: &Limits,
) -> ToolResult {
    let content = match existing(given, rel, snapshot, limits) {
        Ok(c) => c,
        Err(result) => return result,
    };
    if old_str.is_empty() {
        return ToolResult::error(format!("No replacement was performed: old_str is empty, so it does not name one place in {given}."));
    }
    let found = occurrences(&content, old_str);
    let [at] = found.as_slice() else {
        if found.is_empty() {
            return ToolResult::error(format!(
                "No replacement was performed, old_str `{old_str}` did not appear verbatim in {given}."
            ));
        }
        let mut lines: Vec<usize> = found.iter().map(|&b| line_of(&content, b) + 1).collect();
        lines.dedup();
        let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
        return ToolResult::error(format!(
            "No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: {}. Please ensure it is unique",
            lines.join(", ")
        ));
    };
    let mut updated = String::with_capacity(content.len() + new_str.len());
    updated.push_str(content.get(..*at).unwrap_or(""));
    updated.push_str(new_str);
    updated.push_str(content.get(at + old_str.len()..).unwrap_or(""));
    let mut first = line_of(&content, *at);
    let mut last = first + new_str.matches('\n').count();
    // the lines new_str wrote into (not the one after a final newline)
    let written = first..last + usize::from(!new_str.is_empty() && !new_str.ends_with('\n'));
    let (updated, dropped, note) = one_line_per_memory(rel, &content, updated, written);
    // the change's lines, counted in the text as written: dropped lines are outside them
    let above = dropped.iter().filter(|&&i| i < first).count();
    first -= above;
    last -= above;
    if let Err(text) = guard(given, rel, &content, &updated, false, snapshot, limits) {
        return ToolResult::error(text);
    }
    let lines: Vec<&str> = updated.split('\n').collect();
    let from = first.saturating_sub(2);
    let to = (last + 3).min(lines.len());
    let snippet = number_lines(lines.get(from..to).unwrap_or(&[]), from + 1);
    ToolResult::ok(
        format!("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n{snippet}{note}"),
        write(rel, updated, false),
    )
}

/// For an edit of the index: the new text with the earlier entries of files it adds an entry
/// for dropped ([`drop_replaced_entries`]), the 0-based lines dropped, and the result's note.
fn one_line_per_memory(
    rel: &str,
    old: &str,
    new: String,
    changed: std::ops::Range<usize>,
) -> (String, Vec<usize>, String) {
    if rel != INDEX_FILE_NAME {
        return (new, Vec::new(), String::new());
    }
    let (text, dropped, files) = drop_replaced_entries(old, &new, changed);
    (text, dropped, dropped_note(&files))
}

pub fn insert(
    given: &str,
    rel: &str,
    insert_line: i64,
    insert_text: &str,
    snapshot: &Snapshot,
    limits: &Limits,
) -> ToolResult {
    let content = match existing(given, rel, snapshot, limits) {
        Ok(c) => c,
        Err(result) => return result,
    };
    let mut lines: Vec<&str> = content.split('\n').collect();
    let at = usize::try_from(insert_line)
        .ok()
        .filter(|&n| n <= lines.len());
    let Some(at) = at else {
        return ToolResult::error(format!(
            "Invalid `insert_line` parameter: {insert_line}. It should be within the range of lines of the file: [0, {}]",
            lines.len()
        ));
    };
    let inserted = insert_text.strip_suffix('\n').unwrap_or(insert_text);
    let added = inserted.matches('\n').count() + 1;
    lines.insert(at, inserted);
    let (updated, _, note) = one_line_per_memory(rel, &content, lines.join("\n"), at..at + added);
    if let Err(text) = guard(given, rel, &content, &updated, false, snapshot, limits) {
        return ToolResult::error(text);
    }
    ToolResult::ok(
        format!("The file {given} has been edited.{note}"),
        write(rel, updated, false),
    )
}
