//! The index entry a `create` adds for a new memory: a topic file whose frontmatter has a
//! `description` gets its one line in `MEMORY.md` when the index does not link it yet, so a
//! memory written through the tool is indexed as one written by `remember` is (the reference
//! leaves it out, and doctor then reports it `not_indexed`).

use crate::frontmatter::{parse_header, Header};
use crate::limits::{to_usize, Limits};
use crate::scan::{is_topic_path, INDEX_FILE_NAME};
use crate::text::{first_lines, normalize_text};
use std::collections::HashMap;

use crate::write::entry::{classify, escape_hook, format_entry, links_to, upsert_entry, Line};
use crate::write::guard::index_rules;
use crate::write::{Effect, Snapshot};

/// What a `create` of `rel` does to the index: nothing, or one more effect and a sentence
/// for the result text (also when the entry could not be added, saying why).
pub struct IndexEntry {
    pub effect: Option<Effect>,
    pub note: String,
}

/// The name (link text) and description (hook) a new file's frontmatter gives, when it has a
/// description. The name falls back to the file's stem, `_` read as a space, as doctor's fix does.
fn title_and_hook(rel: &str, file_text: &str, limits: &Limits) -> Option<(String, String)> {
    let max = to_usize(limits.max_header_lines);
    let text = normalize_text(file_text);
    let Header::Parsed(fields) = parse_header(first_lines(&text, max), max) else {
        return None;
    };
    let hook = fields.description.filter(|d| !d.trim().is_empty())?;
    let title = fields
        .name
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty() && !n.contains(['\n', '\r']))
        .unwrap_or_else(|| {
            let stem = rel.rsplit('/').next().unwrap_or(rel);
            stem.strip_suffix(".md").unwrap_or(stem).replace('_', " ")
        });
    Some((title, hook.trim().to_owned()))
}

/// The entry for a new topic file `rel` with `file_text`, if it needs one.
pub fn entry_for_new_file(
    rel: &str,
    file_text: &str,
    snapshot: &Snapshot,
    limits: &Limits,
) -> Option<IndexEntry> {
    if rel == INDEX_FILE_NAME || !is_topic_path(rel) {
        return None;
    }
    let (title, hook) = title_and_hook(rel, file_text, limits)?;
    let not_added = |why: String| IndexEntry {
        effect: None,
        note: format!("\nNo entry for it was added to /memories/{INDEX_FILE_NAME}: {why}."),
    };
    let index = match snapshot.stored_index(limits) {
        Ok(index) => index,
        Err(e) => return Some(not_added(e.to_string())),
    };
    if index.text.split('\n').any(|l| links_to(l, rel)) {
        return None; // the model indexed it first
    }
    let line = format_entry(&title, rel, &escape_hook(&hook));
    let (new_index, _) = upsert_entry(&index.text, rel, &line, index.newline());
    if let Err(e) = index_rules(&index.text, &new_index, limits) {
        return Some(not_added(e.to_string()));
    }
    Some(IndexEntry {
        effect: Some(Effect::Write {
            path: INDEX_FILE_NAME.to_owned(),
            text: index.with(new_index),
            exclusive: false,
        }),
        note: format!("\nAlso added its entry to /memories/{INDEX_FILE_NAME}: {line}"),
    })
}

/// An edit of the index that adds an entry for a file the index already links keeps the new
/// line and drops the file's earlier ones, so a model that adds its line after `create` already
/// did (two tool calls in one turn do) leaves one line per memory. `changed` is the range of
/// lines of `new` the edit wrote: an entry there is the model's, one outside was there before.
/// Returns the text, the 0-based lines of `new` that were dropped, and the files whose were.
pub fn drop_replaced_entries(
    old: &str,
    new: &str,
    changed: std::ops::Range<usize>,
) -> (String, Vec<usize>, Vec<String>) {
    let files_of = |text: &str| -> Vec<(usize, String)> {
        text.split('\n')
            .enumerate()
            .filter_map(|(i, l)| match classify(l) {
                Line::Entry(e) => e.file().map(|f| (i, f)),
                _ => None,
            })
            .collect()
    };
    // entries per file, counted once (an index read whole can hold ~50,000 entry lines; a
    // HashMap<String, usize> as the snapshot's own, so the wasm carries no other map for it)
    let before = files_of(old);
    let mut had: HashMap<String, usize> = HashMap::with_capacity(before.len());
    for (_, file) in before {
        *had.entry(file).or_insert(0) += 1;
    }
    // each file's lines in `new`, files in the order they first appear
    let mut slot: HashMap<String, usize> = HashMap::with_capacity(had.len());
    let mut after: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, file) in files_of(new) {
        let k = *slot.entry(file.clone()).or_insert(after.len());
        match after.get_mut(k) {
            Some((_, lines)) => lines.push(i),
            None => after.push((file, vec![i])),
        }
    }
    let mut dropped = Vec::new();
    let mut files = Vec::new();
    for (file, has) in after {
        if has.len() <= had.get(file.as_str()).copied().unwrap_or(0) {
            continue; // the edit added no entry for this file
        }
        let earlier: Vec<usize> = has
            .iter()
            .copied()
            .filter(|i| !changed.contains(i))
            .collect();
        if !earlier.is_empty() && earlier.len() < has.len() {
            dropped.extend(earlier);
            files.push(file);
        }
    }
    crate::sort::sort(&mut dropped);
    let kept: Vec<&str> = new
        .split('\n')
        .enumerate()
        .filter(|(i, _)| dropped.binary_search(i).is_err())
        .map(|(_, l)| l)
        .collect();
    (kept.join("\n"), dropped, files)
}

/// The sentence a result adds for each file whose earlier entry [`drop_replaced_entries`] dropped.
pub fn dropped_note(files: &[String]) -> String {
    files
        .iter()
        .map(|f| {
            format!("\nAlso removed the earlier entry for {f}: /memories/{INDEX_FILE_NAME} holds one line per memory.")
        })
        .collect()
}
