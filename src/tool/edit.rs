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

/// How many lines a refusal for several occurrences names at most: the rest are "more" (a
/// one-character `old_str` in a 1 MiB file can occur a million times).
const MAX_LINES_NAMED: usize = 20;

/// Where `needle` occurs: nowhere, once (its byte offset), or more than once.
enum Occurrences {
    None,
    One(usize),
    /// The 1-based lines holding one, in order, at most [`MAX_LINES_NAMED`], and whether a
    /// later line holds one too.
    Many(Vec<usize>, bool),
}

/// Finds `needle` in `haystack` (overlapping occurrences count: "aa" is twice in "aaa") in time
/// linear in the haystack: lines are counted in one pass, and after an occurrence the search
/// goes on from the next line, so no occurrence is searched for twice and at most
/// [`MAX_LINES_NAMED`] + 1 lines are visited past the second.
fn occurrences(haystack: &str, needle: &str) -> Occurrences {
    let find_from = |from: usize| -> Option<usize> {
        haystack
            .get(from..)
            .and_then(|rest| rest.find(needle))
            .map(|i| from + i)
    };
    let Some(first) = find_from(0) else {
        return Occurrences::None;
    };
    // one character on, so an overlapping second occurrence is seen
    let step = haystack
        .get(first..)
        .and_then(|r| r.chars().next())
        .map_or(1, char::len_utf8);
    if find_from(first + step).is_none() {
        return Occurrences::One(first);
    }
    let mut lines = Vec::new();
    let (mut line, mut counted_to) = (0, 0);
    let mut at = Some(first);
    while let Some(pos) = at {
        line += newlines(haystack.get(counted_to..pos).unwrap_or(""));
        counted_to = pos;
        if lines.len() == MAX_LINES_NAMED {
            return Occurrences::Many(lines, true);
        }
        lines.push(line + 1);
        // the next line's start: other occurrences on this line name no other line
        at = haystack
            .get(pos..)
            .and_then(|rest| rest.find('\n'))
            .and_then(|i| find_from(pos + i + 1));
    }
    Occurrences::Many(lines, false)
}

fn newlines(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count()
}

fn line_of(text: &str, byte: usize) -> usize {
    text.get(..byte).map_or(0, newlines)
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
    let at = match occurrences(&content, old_str) {
        Occurrences::One(at) => at,
        Occurrences::None => {
            return ToolResult::error(format!(
            "No replacement was performed, old_str `{old_str}` did not appear verbatim in {given}."
        ))
        }
        Occurrences::Many(lines, more) => {
            let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
            let more = if more { " and more" } else { "" };
            return ToolResult::error(format!(
                "No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: {}{more}. Please ensure it is unique",
                lines.join(", ")
            ));
        }
    };
    let mut updated = String::with_capacity(content.len() + new_str.len());
    updated.push_str(content.get(..at).unwrap_or(""));
    updated.push_str(new_str);
    updated.push_str(content.get(at + old_str.len()..).unwrap_or(""));
    let mut first = line_of(&content, at);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Head;
    use crate::write::snapshot::Entry;
    use std::collections::BTreeMap;

    fn lines_of(haystack: &str, needle: &str) -> (Vec<usize>, bool) {
        match occurrences(haystack, needle) {
            Occurrences::Many(lines, more) => (lines, more),
            Occurrences::One(at) => (vec![line_of(haystack, at) + 1], false),
            Occurrences::None => (Vec::new(), false),
        }
    }

    /// Every distinct 1-based line an occurrence starts on, counted the slow way.
    fn naive(haystack: &str, needle: &str) -> Vec<usize> {
        let mut lines: Vec<usize> = (0..haystack.len())
            .filter(|&i| {
                haystack.is_char_boundary(i)
                    && haystack.get(i..).is_some_and(|r| r.starts_with(needle))
            })
            .map(|i| haystack.get(..i).unwrap_or("").matches('\n').count() + 1)
            .collect();
        lines.dedup();
        lines
    }

    #[test]
    fn the_lines_named_are_those_the_occurrences_start_on() {
        for (haystack, needle) in [
            ("ab\nx\nab\n", "ab"),
            ("aaa", "aa"),
            ("a\nb a\nb\n\na\nb", "a\nb"),
            ("é\né\n\n\né", "é"),
            ("x\n\n\nxx\n", "\n"),
            ("\n\n\n\n", "\n\n"),
            ("one line only", "e"),
            ("---\nname: Testing\ndescription: Integration tests hit a real database\ntype: feedback\n---\n\nUse a real DB.\n", "e"),
        ] {
            let (lines, more) = lines_of(haystack, needle);
            assert_eq!(lines, naive(haystack, needle), "{needle:?} in {haystack:?}");
            assert!(!more);
        }
        assert!(matches!(occurrences("abc", "d"), Occurrences::None));
        assert!(matches!(occurrences("abcb", "cb"), Occurrences::One(2)));
    }

    #[test]
    fn a_refusal_names_twenty_lines_and_says_there_are_more() {
        let haystack = "x\n".repeat(500_000);
        let (lines, more) = lines_of(&haystack, "x");
        assert_eq!(lines, (1..=MAX_LINES_NAMED).collect::<Vec<_>>());
        assert!(more);
        // exactly twenty lines: none more
        let (lines, more) = lines_of(&"x\n".repeat(MAX_LINES_NAMED), "x");
        assert_eq!(lines.len(), MAX_LINES_NAMED);
        assert!(!more);
        // occurrences far apart are numbered right
        let haystack = format!("{}x{}x\nx", "\n".repeat(1000), "\n".repeat(99));
        assert_eq!(lines_of(&haystack, "x"), (vec![1001, 1100, 1101], false));
    }

    fn one_file(text: &str) -> Snapshot {
        Snapshot::new(
            vec![Entry {
                path: "n.md".to_owned(),
                kind: EntryKind::File,
                size: text.len() as f64,
                mtime_ms: 0.0,
                problem: None,
            }],
            BTreeMap::from([("n.md".to_owned(), Head::Text(text.to_owned()))]),
            BTreeMap::new(),
        )
    }

    #[test]
    fn str_replace_in_a_mebibyte_file_refuses_with_the_first_lines() {
        let text = "ab\n".repeat(349_000); // just under 1 MiB, 349,000 occurrences of one character
        let result = str_replace(
            "/memories/n.md",
            "n.md",
            "a",
            "c",
            &one_file(&text),
            &Limits::default(),
        );
        assert!(result.is_error);
        let lines: Vec<String> = (1..=MAX_LINES_NAMED).map(|n| n.to_string()).collect();
        assert_eq!(
            result.text,
            format!("No replacement was performed. Multiple occurrences of old_str `a` in lines: {} and more. Please ensure it is unique", lines.join(", "))
        );
        // a unique old_str near the end: its snippet has the right line numbers
        let text = format!("{text}the end\n");
        let result = str_replace(
            "/memories/n.md",
            "n.md",
            "the end",
            "THE END",
            &one_file(&text),
            &Limits::default(),
        );
        assert!(!result.is_error, "{}", result.text);
        assert!(result.text.contains("349001\tTHE END"), "{}", result.text);
    }
}
