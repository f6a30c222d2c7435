//! `remember`: one topic file with valid frontmatter, plus its one line in `MEMORY.md`.

use serde::{Deserialize, Serialize};

use super::entry::{escape_hook, format_entry, remove_entries, upsert_entry};
use super::frontmatter_edit::set_top_level_key;
use super::guard::{fits, index_rules, no_secrets, resolved_inside, room_for_topic};
use super::similar::{name_key, WordSet};
use super::snapshot::{HeaderFields, ScannedHeaders};
use super::yaml::{scalar, topic_file, TopicMeta};
use super::{Effect, Snapshot};
use crate::error::{Error, Refusal};
use crate::frontmatter::{parse_header, Header, MemoryType};
use crate::limits::{to_usize, Limits};
use crate::paths::{check_relative_path, djb2};
use crate::scan::{is_topic_path, INDEX_FILE_NAME};
use crate::text::first_lines;

/// What to remember.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct RememberInput {
    /// `user`, `feedback`, `project` or `reference`.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// A short title; also the index entry's link text.
    pub name: String,
    /// One line: what the selector reads to decide. Also the index entry's hook.
    pub description: String,
    /// The memory. For feedback and project: the rule or fact, then `**Why:**` and `**How to apply:**` lines.
    pub body: String,
    /// The topic file to write or update; default `{type}_{slug of name}.md`.
    #[serde(default)]
    pub file: Option<String>,
    /// The conversation writing it: recorded as `metadata.originSessionId` (an update keeps
    /// the file's own when this is absent).
    #[serde(default)]
    pub session_id: Option<String>,
    /// When it is written (ms since the epoch): recorded as `metadata.modified`.
    #[serde(default)]
    pub now_ms: Option<f64>,
    /// The memory this one replaces (rules §4.7): that file is kept, marked `superseded_by`
    /// this one, and its index lines go (recall then chooses this one, never that one).
    #[serde(default)]
    pub supersedes: Option<String>,
}

/// The plan for one `remember`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct WritePlan {
    /// The topic file written (or removed, for `forget`).
    pub file: String,
    pub action: WriteAction,
    /// The index line written, or `null` for `forget`.
    pub index_line: Option<String>,
    /// What the host must do, in order.
    pub effects: Vec<Effect>,
}

/// What a write did to its topic file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum WriteAction {
    Created,
    Updated,
    Forgotten,
    /// Confirmed true now (`touch`): its recorded time set, nothing else changed.
    Touched,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::refused(Refusal::InvalidMemory, message)
}

/// Checks `input` against the snapshot and plans the writes, or says why not.
pub fn plan_remember(
    input: &RememberInput,
    snapshot: &Snapshot,
    limits: &Limits,
) -> Result<WritePlan, Error> {
    let memory_type = MemoryType::parse(input.memory_type.trim()).ok_or_else(|| {
        invalid(format!(
            "unknown type {:?}: a memory is one of user, feedback, project, reference",
            input.memory_type
        ))
    })?;
    let name = input.name.trim();
    let description = input.description.trim();
    if name.is_empty() || name.contains(['\n', '\r']) {
        return Err(invalid("the name must be one non-empty line"));
    }
    if description.is_empty() {
        return Err(invalid("the description is empty: the selector decides from it, so say in one line when this memory helps"));
    }
    if description.contains(['\n', '\r']) {
        return Err(invalid("the description must be one line: the selector sees one line a file; put the detail in the body"));
    }
    if input.body.trim().is_empty() {
        return Err(invalid("the body is empty: nothing to remember"));
    }
    for (what, text) in [
        ("the name", name),
        ("the description", description),
        ("the body", input.body.as_str()),
    ] {
        no_secrets(what, text)?;
    }

    let scanned = snapshot.scanned_headers()?;
    let header = |path: &str| header_of(snapshot, &scanned, path, limits);
    let existing: Vec<&str> = snapshot.topic_files().map(|e| e.path.as_str()).collect();
    let file = match &input.file {
        Some(file) => {
            check_relative_path(file)?;
            crate::history::check_writable(file)?;
            no_secrets("the file name", file)?;
            if file.rsplit('/').next() == Some(INDEX_FILE_NAME) {
                return Err(Error::refused(Refusal::IndexOnly, "MEMORY.md is the index, not a memory: remember writes a topic file and one index line for it"));
            }
            if !is_topic_path(file) {
                return Err(invalid(format!(
                    "{file:?} is not a topic file: memories are `*.md` files"
                )));
            }
            file.clone()
        }
        // the memory it supersedes keeps its file: the new one takes the next free name
        None => free_name(memory_type, name, &existing, &|p: &str| {
            (input.supersedes.as_deref() != Some(p))
                .then(|| header(p))
                .flatten()
        }),
    };
    resolved_inside(snapshot, &file)?;
    resolved_inside(snapshot, INDEX_FILE_NAME)?;
    let updating = existing.contains(&file.as_str());
    if updating && !snapshot.is_file(&file) {
        return Err(invalid(format!("{file} exists but is not a regular file")));
    }

    // an explicit `file` is an update of that file; a derived name that exists is checked like any other
    let (key, words) = (name_key(name), WordSet::of(description));
    // the memory this one supersedes is meant to be alike: it is no duplicate
    for other in existing
        .iter()
        .filter(|p| input.file.is_none() || **p != file)
        .filter(|p| input.supersedes.as_deref() != Some(**p))
    {
        let Some(fields) = header(other) else {
            continue;
        };
        match same_memory(&fields, &key, &words) {
            Some(Same::Name) => {
                return Err(Error::refused(
                    Refusal::DuplicateMemory,
                    format!("a memory named {name:?} already exists in {other}: update it (pass file: {other:?}) instead of adding a second"),
                ));
            }
            Some(Same::Description(d)) => {
                return Err(Error::refused(
                    Refusal::DuplicateMemory,
                    format!("{other} already has almost the same description ({d:?}): update it (pass file: {other:?}) or say how this one differs"),
                ));
            }
            None => {}
        }
    }
    if !updating {
        room_for_topic(existing.len(), limits)?;
    }

    let index = snapshot.stored_index(limits)?;
    let line = format_entry(name, &file, &escape_hook(description));
    // an update keeps the memory's place in a supersession chain: a replaced memory stays
    // replaced, and gets no index line back (rules §4.7)
    let replaced_by = updating
        .then(|| superseded_by_of(snapshot, &file, limits))
        .flatten();
    let (mut new_index, _) = if replaced_by.is_some() {
        (index.text.clone(), false)
    } else {
        upsert_entry(&index.text, &file, &line, index.newline())
    };
    let replaced = match input.supersedes.as_deref() {
        Some(old) => Some(supersede(old, &file, snapshot, limits)?),
        None => None,
    };
    if let Some((old, _)) = &replaced {
        new_index = remove_entries(&new_index, old).0;
    }
    index_rules(&index.text, &new_index, limits)?;
    let mut meta = TopicMeta {
        session_id: input.session_id.clone().filter(|s| !s.trim().is_empty()),
        modified_ms: input.now_ms.filter(|n| n.is_finite()),
        other: serde_json::Map::new(),
    };
    if let Some(old) = updating
        .then(|| metadata_of(snapshot, &file, limits))
        .flatten()
    {
        if meta.session_id.is_none() {
            meta.session_id = old
                .get("originSessionId")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned);
        }
        meta.other = old;
    }
    if let Some(id) = &meta.session_id {
        no_secrets("the session id", id)?;
        if id.contains(['\n', '\r']) {
            return Err(invalid("the session id must be one line"));
        }
    }
    let mut text = topic_file(name, description, memory_type, &meta, &input.body);
    if let Some(by) = &replaced_by {
        text = set_top_level_key(&text, "superseded_by", &scalar(by))?;
    }
    fits(&file, &text, limits)?;
    let mut effects = vec![Effect::Write {
        path: file.clone(),
        text,
        exclusive: !updating,
    }];
    if let Some((old, text)) = replaced {
        effects.push(Effect::Write {
            path: old,
            text,
            exclusive: false,
        });
    }
    if new_index != index.text {
        effects.push(Effect::Write {
            path: INDEX_FILE_NAME.to_owned(),
            text: index.with(new_index),
            exclusive: false,
        });
    }
    Ok(WritePlan {
        file,
        action: if updating {
            WriteAction::Updated
        } else {
            WriteAction::Created
        },
        index_line: replaced_by.is_none().then_some(line),
        effects,
    })
}

/// The file `old` as it is when `file` replaces it: `superseded_by: file` in its frontmatter,
/// every other byte kept. It must be another memory of the folder, read whole.
fn supersede(
    old: &str,
    file: &str,
    snapshot: &Snapshot,
    limits: &Limits,
) -> Result<(String, String), Error> {
    check_relative_path(old)?;
    crate::history::check_writable(old)?;
    no_secrets("the superseded file's name", old)?;
    if !is_topic_path(old) || old.rsplit('/').next() == Some(INDEX_FILE_NAME) {
        return Err(invalid(format!(
            "{old:?} is not a memory: only a topic file can be superseded"
        )));
    }
    resolved_inside(snapshot, old)?;
    if !snapshot.is_file(old) {
        return Err(Error::refused(
            Refusal::NotFound,
            format!("nothing to supersede: {old} does not exist"),
        ));
    }
    // after the check above: a file name derived from the folder is only known against it
    if old == file {
        return Err(invalid(format!(
            "{old} cannot supersede itself: name the older memory this one replaces"
        )));
    }
    let Some(text) = snapshot.whole_text(old, limits)? else {
        return Err(Error::invalid(format!(
            "{old} was not read: its whole text is needed to mark it (the read plan names it)"
        )));
    };
    let marked = set_top_level_key(text, "superseded_by", &scalar(file))
        .map_err(|e| invalid(format!("{old} cannot be marked superseded: {e}")))?;
    fits(old, &marked, limits)?;
    Ok((old.to_owned(), marked))
}

/// Why two memories are the same memory.
enum Same<'a> {
    Name,
    /// Almost the same description: the other's.
    Description(&'a str),
}

/// A saved memory's header against a new one's name key and description words.
fn same_memory<'a>(fields: &'a HeaderFields, key: &str, words: &WordSet) -> Option<Same<'a>> {
    if fields.0.as_deref().is_some_and(|n| name_key(n) == key) {
        return Some(Same::Name);
    }
    fields
        .1
        .as_deref()
        .filter(|d| WordSet::of(d).similar(words))
        .map(Same::Description)
}

/// The saved memory a new one (no `file`) would nearly duplicate — the same name, or almost
/// the same description — which `remember` refuses: an automatic writer updates it instead.
pub fn duplicate_of(input: &RememberInput, snapshot: &Snapshot, limits: &Limits) -> Option<String> {
    let scanned = snapshot.scanned_headers().ok()?;
    let (key, words) = (
        name_key(input.name.trim()),
        WordSet::of(input.description.trim()),
    );
    snapshot
        .topic_files()
        .map(|e| e.path.as_str())
        .filter(|path| input.supersedes.as_deref() != Some(*path))
        .find(|path| {
            header_of(snapshot, &scanned, path, limits)
                .is_some_and(|fields| same_memory(&fields, &key, &words).is_some())
        })
        .map(str::to_owned)
}

/// The `name` and `description` in a file's frontmatter, if it was read and parses: from its
/// head when the host read it, else as an earlier scan parsed it (`scanned`).
pub(crate) fn header_of(
    snapshot: &Snapshot,
    scanned: &ScannedHeaders,
    path: &str,
    limits: &Limits,
) -> Option<HeaderFields> {
    let Some(text) = snapshot.text(path) else {
        return scanned.get(path).cloned();
    };
    let max = to_usize(limits.max_header_lines);
    match parse_header(first_lines(&text, max), max) {
        Header::Parsed(f) => Some((f.name, f.description)),
        _ => None,
    }
}

/// The `metadata:` block of a file whose head was read, if it has one.
fn metadata_of(
    snapshot: &Snapshot,
    path: &str,
    limits: &Limits,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    let text = snapshot.text(path)?;
    let max = to_usize(limits.max_header_lines);
    match parse_header(first_lines(&text, max), max) {
        Header::Parsed(f) => f.metadata,
        _ => None,
    }
}

/// The `superseded_by` of a file whose head was read, if it has one.
fn superseded_by_of(snapshot: &Snapshot, path: &str, limits: &Limits) -> Option<String> {
    let text = snapshot.text(path)?;
    let max = to_usize(limits.max_header_lines);
    match parse_header(first_lines(&text, max), max) {
        Header::Parsed(f) => f.superseded_by,
        _ => None,
    }
}

/// `{type}_{slug}.md`, with `_2`, `_3`… when a file by another name already has it.
fn free_name(
    memory_type: MemoryType,
    name: &str,
    existing: &[&str],
    header: &dyn Fn(&str) -> Option<HeaderFields>,
) -> String {
    let prefix = memory_type.as_str();
    let slug = slug(name);
    let slug = slug
        .strip_prefix(&format!("{prefix}_"))
        .filter(|s| !s.is_empty())
        .unwrap_or(&slug);
    let base = format!("{prefix}_{slug}");
    let same_name = |path: &str| {
        header(path)
            .and_then(|h| h.0)
            .is_some_and(|n| name_key(&n) == name_key(name))
    };
    for n in 1..1000 {
        let candidate = if n == 1 {
            format!("{base}.md")
        } else {
            format!("{base}_{n}.md")
        };
        // a file with the same name is this memory: the duplicate check reports it
        if !existing.contains(&candidate.as_str()) || same_name(&candidate) {
            return candidate;
        }
    }
    format!(
        "{base}_{}.md",
        djb2(&name.encode_utf16().collect::<Vec<_>>()).unsigned_abs()
    )
}

/// Lower-case ASCII letters and digits, `_` between words, at most 48 bytes.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    let mut slug = out.trim_end_matches('_').to_owned();
    if slug.len() > 48 {
        let cut = slug.get(..48).unwrap_or(&slug);
        slug = cut
            .rfind('_')
            .filter(|&i| i >= 24)
            .map_or(cut, |i| cut.get(..i).unwrap_or(cut))
            .to_owned();
    }
    if slug.is_empty() {
        let hash = djb2(&name.encode_utf16().collect::<Vec<_>>()).unsigned_abs();
        slug = format!("memory_{hash}");
    }
    slug
}
