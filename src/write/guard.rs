//! Checks shared by every write: credentials, the index-only rule and its limits, the file cap.

use std::collections::HashSet;

use super::entry::{classify_all, Line};
use crate::error::{Error, Refusal};
use crate::limits::{to_usize, Limits};
use crate::secrets::find_secrets;
use crate::text::{js_trim, normalize_text, utf16_len};

/// Refuses `text` if it holds a credential, naming the kind and line, never the secret.
pub fn no_secrets(what: &str, text: &str) -> Result<(), Error> {
    match find_secrets(text).first() {
        None => Ok(()),
        Some(found) => Err(Error::refused(
            Refusal::SecretDetected,
            format!(
                "{what} holds what looks like {} {} on line {} ({}); credentials do not belong in memory — store a reference to where the secret lives instead",
                article(found.kind),
                found.kind,
                found.line,
                found.preview
            ),
        )),
    }
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Refuses new content larger than `maxFileBytes`: memdir could not read it back whole.
pub fn fits(path: &str, text: &str, limits: &Limits) -> Result<(), Error> {
    let max = to_usize(limits.max_file_bytes);
    if text.len() > max {
        return Err(Error::refused(
            Refusal::TooLarge,
            format!("{path} would be {} bytes, more than the {max} bytes memdir reads whole (maxFileBytes): keep a memory small and split the rest into other files", text.len()),
        ));
    }
    Ok(())
}

/// Lines and UTF-16 units of the index as the loader measures them (trimmed text, CRLF read
/// as LF, no byte-order mark).
pub fn index_size(text: &str) -> (usize, usize) {
    let text = normalize_text(text);
    let trimmed = js_trim(&text);
    if trimmed.is_empty() {
        return (0, 0);
    }
    (trimmed.split('\n').count(), utf16_len(trimmed))
}

/// Refuses a new index that breaks a limit it did not already break, or adds content lines.
pub fn index_rules(old: &str, new: &str, limits: &Limits) -> Result<(), Error> {
    let content = |text| {
        let kinds = classify_all(text);
        text.split('\n')
            .zip(kinds)
            .enumerate()
            .filter(|(_, (_, k))| *k == Line::Content)
            .map(|(n, (l, _))| (n, l))
            .collect::<Vec<_>>()
    };
    let before: HashSet<&str> = content(old).into_iter().map(|(_, l)| l).collect();
    if let Some((n, line)) = content(new).into_iter().find(|(_, l)| !before.contains(l)) {
        return Err(Error::refused(
            Refusal::IndexOnly,
            format!(
                "MEMORY.md is the index: every line is an entry like `- [Title](file.md) — one-line hook`, a heading or blank; line {} is not ({:?}). Put the content in a topic file and link it from one entry",
                n + 1,
                crate::write::entry::shorten(line.trim(), 60)
            ),
        ));
    }
    let (old_lines, old_units) = index_size(old);
    let (lines, units) = index_size(new);
    let max_lines = to_usize(limits.max_index_lines);
    let max_units = to_usize(limits.max_index_utf16);
    if lines > max_lines && lines > old_lines {
        return Err(Error::refused(
            Refusal::LimitExceeded,
            format!("MEMORY.md would have {lines} lines, over its limit of {max_lines}: lines past it are never loaded. Merge or forget entries first"),
        ));
    }
    if units > max_units && units > old_units {
        return Err(Error::refused(
            Refusal::LimitExceeded,
            format!("MEMORY.md would be {units} UTF-16 units, over its limit of {max_units}: the rest is never loaded. Shorten or merge entries first"),
        ));
    }
    Ok(())
}

/// Refuses a new topic file when the directory already holds `maxFiles` of them.
pub fn room_for_topic(existing: usize, limits: &Limits) -> Result<(), Error> {
    let max = to_usize(limits.max_files);
    if existing >= max {
        return Err(Error::refused(
            Refusal::LimitExceeded,
            format!("the directory holds {existing} topic files and the scan considers only the newest {max}: a new one would push the oldest out of recall. Merge or forget memories first"),
        ));
    }
    Ok(())
}

/// Refuses a path the host resolved to somewhere outside the directory (a symbolic link).
pub fn resolved_inside(snapshot: &super::Snapshot, path: &str) -> Result<(), Error> {
    if snapshot.listed_as_escape(path) {
        return Err(Error::UnsafePath { path: path.to_owned(), reason: "the host lists it, or a folder on its way, as a symbolic link out of the memory directory".into() });
    }
    match snapshot.resolved.get(path) {
        Some(None) => Err(Error::UnsafePath {
            path: path.to_owned(),
            reason: "it leads out of the memory directory through a symbolic link".into(),
        }),
        Some(Some(real)) if crate::paths::check_relative_path(real).is_err() => {
            Err(Error::UnsafePath {
                path: path.to_owned(),
                reason: format!("it resolves to {real:?}, outside the memory directory"),
            })
        }
        _ => Ok(()),
    }
}
