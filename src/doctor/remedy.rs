//! What `--fix` does about an index line, decided once for the check that reports it and the
//! fix that applies it, under the rule of [`super::kept_words`]: a line whose words exist
//! nowhere else is never removed or cut.

use super::kept_words::WordLedger;
use std::collections::{HashMap, HashSet};

use super::repair::{shorter_entry, TopicNames};
use crate::codes::EntryKind;
use crate::frontmatter::{parse_header, Header, MemoryType};
use crate::limits::{to_usize, Limits};
use crate::paths::check_relative_path;
use crate::scan::is_topic_path;
use crate::secrets::find_secrets;
use crate::text::first_lines;
use crate::write::entry::{classify, classify_all, links_on_line, unescape_title, Line, Target};
use crate::write::yaml::{scalar, topic_file, TopicMeta};
use crate::write::Snapshot;

/// What becomes of an entry whose link leads nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeadLinkRemedy {
    /// Every word of the line is elsewhere in the folder: the line goes.
    Remove,
    /// The line's words are the only copy: the topic file it links to is written from them
    /// (its title the name, its hook the description and body), so the link lives.
    Create { path: String, text: String },
    /// Neither is safe: reported, left as it is.
    Keep(Kept),
}

/// Why a dead entry is left as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kept {
    /// Its words are the only copy, and no file can be written from them.
    UniqueWords,
    /// It links somewhere else too (a file that exists, a web page): removing it would drop
    /// that link.
    OtherLinks,
    /// Its words are the only copy and hold what looks like a credential, which a fix never
    /// copies into a new file (whose description the selector's model would be sent).
    Credential,
}

/// The remedy for a dead entry `line` linking to `target` (a path inside the folder).
pub(crate) fn dead_link_remedy(
    place: &NewFilePlace<'_>,
    ledger: &WordLedger,
    line: &str,
    target: &str,
) -> DeadLinkRemedy {
    let snapshot = place.snapshot;
    if !ledger.would_lose(line, "") {
        if links_elsewhere(snapshot, line, target) {
            return DeadLinkRemedy::Keep(Kept::OtherLinks);
        }
        return DeadLinkRemedy::Remove;
    }
    if !find_secrets(line).is_empty() {
        return DeadLinkRemedy::Keep(Kept::Credential);
    }
    match recreated_file(place, line, target) {
        Some(text) => DeadLinkRemedy::Create {
            path: target.to_owned(),
            text,
        },
        None => DeadLinkRemedy::Keep(Kept::UniqueWords),
    }
}

/// Whether `line` links anywhere but the dead `target` and other dead paths: a file or folder
/// that exists, a path outside the folder, a web page.
fn links_elsewhere(snapshot: &Snapshot, line: &str, target: &str) -> bool {
    links_on_line(line).into_iter().any(|t| match t {
        Target::Inside(path) => {
            path != target && (snapshot.is_file(&path) || snapshot.is_dir(&path))
        }
        Target::Outside(_) | Target::Other => true,
    })
}

/// What decides where a fix may write a new file: the folder as listed, its topic files by
/// name, the dead entries that stay dead, the paths the plan already writes new
/// (lower-cased), the limits.
pub(crate) struct NewFilePlace<'a> {
    pub snapshot: &'a Snapshot,
    pub names: &'a TopicNames,
    pub staying: &'a StayingDead,
    pub created: &'a HashSet<String>,
    pub limits: &'a Limits,
}

/// The index's dead entries that stay dead after a --fix — neither removed, nor pointed at a
/// moved file, nor given a file of their own (their folder missing, their path not one
/// memdir writes, a credential in their words) — by file name, lower-cased. A file written
/// for another dead entry of such a name would be the one file of that name, and the next
/// --fix would point these at it (another entry's words in it, and a second run with new
/// writes).
#[derive(Debug, Default)]
pub(crate) struct StayingDead(HashMap<String, HashSet<String>>);

impl StayingDead {
    pub fn of(snapshot: &Snapshot, names: &TopicNames, ledger: &WordLedger) -> Self {
        let index = snapshot.index_text();
        let dead: Vec<(&str, String)> = index
            .split('\n')
            .zip(classify_all(&index))
            .filter_map(|(line, kind)| match kind {
                Line::Entry(e) => e.file().map(|path| (line, path)),
                _ => None,
            })
            .filter(|(_, path)| !snapshot.is_file(path) && !snapshot.is_dir(path))
            .filter(|(_, path)| names.moved(path).is_none())
            .collect();
        // copies of one line: the last is judged by its words beyond its copies (each line
        // once, however many copies it has)
        let key = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut copies: HashMap<String, (usize, &str, String)> = HashMap::new();
        for (line, path) in dead {
            copies.entry(key(line)).or_insert((0, line, path)).0 += 1;
        }
        let mut staying = Self::default();
        for (count, line, path) in copies.into_values() {
            let unique = ledger.would_lose_copies(line, count);
            let removed = !unique && !links_elsewhere(snapshot, line, &path);
            let written = unique
                && find_secrets(line).is_empty()
                && !names.has(path.rsplit('/').next().unwrap_or(&path))
                && writable_place(snapshot, names, &path);
            if !removed && !written {
                let name = path.rsplit('/').next().unwrap_or(&path).to_lowercase();
                staying.0.entry(name).or_default().insert(path);
            }
        }
        staying
    }

    /// Whether a dead entry to another path named like `target` stays dead.
    fn share_a_name_with(&self, target: &str) -> bool {
        let name = target.rsplit('/').next().unwrap_or(target).to_lowercase();
        self.0
            .get(&name)
            .is_some_and(|paths| paths.iter().any(|p| p != target))
    }
}

/// Whether a new topic file may be written at `target`: a `*.md` path memdir accepts and
/// every common file system can hold, nothing listed there (in any case: `Notes.md` and
/// `notes.md` are one name on macOS and Windows), no link out on the way, its folder listed as
/// a folder.
fn writable_place(snapshot: &Snapshot, names: &TopicNames, target: &str) -> bool {
    if !is_topic_path(target)
        || check_relative_path(target).is_err()
        || !portable(target)
        || names.listed(target)
        || snapshot.listed_as_escape(target)
        || snapshot.non_folder_on_the_way(target).is_some()
    {
        return false;
    }
    target.rsplit_once('/').is_none_or(|(parent, _)| {
        snapshot
            .entry(parent)
            .is_some_and(|e| e.kind == EntryKind::Directory && e.problem.is_none())
    })
}

/// Whether every segment of `path` is a name Windows can hold too: none of `<>:"|?*`, no
/// trailing dot or space, no device name (`con.md`, `nul.md`, `com1.md`) — the dead entry that
/// names one keeps its words in the index instead of a write that fails there.
fn portable(path: &str) -> bool {
    const DEVICES: &[&str] = &["con", "prn", "aux", "nul"];
    path.split('/').all(|segment| {
        let stem = segment.split('.').next().unwrap_or("").to_ascii_lowercase();
        let numbered = (stem.starts_with("com") || stem.starts_with("lpt"))
            && stem.len() == 4
            && stem.ends_with(|c: char| c.is_ascii_digit());
        !segment.contains(['<', '>', ':', '"', '|', '?', '*'])
            && !segment.ends_with(['.', ' '])
            && !DEVICES.contains(&stem.as_str())
            && !numbered
    })
}

/// The topic file an entry's own words make, when `target` is a place one can be written
/// ([`writable_place`]) and nothing the plan writes is there (in any case), no file of that
/// name is anywhere in the folder (in any case: it may be the one meant) nor a dead entry to
/// another file of that name that stays dead, and there is room under `maxFiles` with the
/// files the plan writes (a new file must not push an older one out of recall).
fn recreated_file(place: &NewFilePlace<'_>, line: &str, target: &str) -> Option<String> {
    let name = target.rsplit('/').next()?;
    if place.names.has(name)
        || place.staying.share_a_name_with(target)
        || place.created.contains(&target.to_lowercase())
        || place.names.count + place.created.len() >= to_usize(place.limits.max_files)
        || !writable_place(place.snapshot, place.names, target)
    {
        return None;
    }
    let Line::Entry(e) = classify(line.trim_end_matches('\r')) else {
        return None;
    };
    let stem = target.rsplit('/').next()?.strip_suffix(".md")?;
    let title = unescape_title(e.title);
    let name = if title.trim().is_empty() {
        stem.replace('_', " ")
    } else {
        title.trim().to_owned()
    };
    let hook = e.hook.trim();
    let description = if hook.is_empty() { name.as_str() } else { hook };
    let body = if hook.is_empty() { name.as_str() } else { hook };
    Some(topic_file(
        &name,
        description,
        type_from_file_name(stem),
        &TopicMeta::default(),
        body,
    ))
}

/// The type a file's name says (`feedback_testing.md`, as Claude Code names them); `project`
/// when it says none.
fn type_from_file_name(stem: &str) -> MemoryType {
    stem.split(['_', '-'])
        .next()
        .and_then(MemoryType::parse)
        .unwrap_or(MemoryType::Project)
}

/// What becomes of an entry over the length an entry should have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LongEntryRemedy {
    /// The words the shorter hook drops are elsewhere in the folder: shorten it.
    Shorten(String),
    /// They are not, and the topic file has no description: its whole hook becomes that
    /// description (`file` rewritten as `text`), then the hook is shortened.
    KeepAsDescription {
        short: String,
        file: String,
        text: String,
    },
    /// Leave the entry whole.
    Keep,
}

/// The remedy for an entry `line` (LF form, no `\r`) to `target` that is too long.
pub(crate) fn long_entry_remedy(
    snapshot: &Snapshot,
    ledger: &WordLedger,
    line: &str,
    target: &str,
    limits: &Limits,
) -> LongEntryRemedy {
    let Some(short) = shorter_entry(line) else {
        return LongEntryRemedy::Keep;
    };
    if !ledger.would_lose(line, &short) {
        return LongEntryRemedy::Shorten(short);
    }
    // only a topic file takes a description (an entry may link to MEMORY.md itself)
    let Line::Entry(e) = classify(line) else {
        return LongEntryRemedy::Keep;
    };
    if !is_topic_path(target) {
        return LongEntryRemedy::Keep;
    }
    let Ok(Some(old)) = snapshot.whole_text(target, limits) else {
        return LongEntryRemedy::Keep;
    };
    match with_description(old, e.hook.trim(), limits) {
        Some(text) => LongEntryRemedy::KeepAsDescription {
            short,
            file: target.to_owned(),
            text,
        },
        None => LongEntryRemedy::Keep,
    }
}

/// `text` (a topic file as stored) with `description` added, when it has none: a line before
/// the frontmatter's closing `---`, or a frontmatter of its own when it has none. `None` when
/// it has a description, its frontmatter is not readable, the result would not read back, or
/// the description holds what looks like a credential.
pub(crate) fn with_description(text: &str, description: &str, limits: &Limits) -> Option<String> {
    // a credential is never copied into a description (the selector's model is sent those)
    if description.is_empty() || !find_secrets(description).is_empty() {
        return None;
    }
    let max = to_usize(limits.max_header_lines);
    let normalized = crate::text::normalize_text(text);
    let crlf = text.contains("\r\n");
    let bom = if text.starts_with('\u{FEFF}') {
        "\u{FEFF}"
    } else {
        ""
    };
    let line = format!("description: {}", scalar(description));
    let new_lf = match parse_header(first_lines(&normalized, max), max) {
        Header::Parsed(f) if f.description.is_none() => {
            let close = f.close_line.checked_sub(1)?;
            let mut lines: Vec<&str> = normalized.split('\n').collect();
            if close > lines.len() {
                return None;
            }
            lines.insert(close, &line);
            lines.join("\n")
        }
        Header::Missing => format!("---\n{line}\n---\n{normalized}"),
        _ => return None,
    };
    let reads = matches!(parse_header(first_lines(&new_lf, max), max),
        Header::Parsed(f) if f.description.as_deref() == Some(description));
    if !reads {
        return None;
    }
    let body = if crlf {
        new_lf.replace('\n', "\r\n")
    } else {
        new_lf
    };
    Some(format!("{bom}{body}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_is_added_where_there_is_none() {
        let limits = Limits::default();
        let added = with_description("---\nname: A\n---\nbody\n", "what A is", &limits);
        assert_eq!(
            added.as_deref(),
            Some("---\nname: A\ndescription: what A is\n---\nbody\n")
        );
        assert_eq!(
            with_description("plain body\r\n", "b: c", &limits).as_deref(),
            Some("---\r\ndescription: \"b: c\"\r\n---\r\nplain body\r\n")
        );
        assert_eq!(
            with_description("---\ndescription: x\n---\n", "y", &limits),
            None
        );
    }

    #[test]
    fn types_from_file_names() {
        assert_eq!(
            type_from_file_name("feedback_testing"),
            MemoryType::Feedback
        );
        assert_eq!(type_from_file_name("user-role"), MemoryType::User);
        assert_eq!(type_from_file_name("deploy"), MemoryType::Project);
    }
}
