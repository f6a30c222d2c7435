//! The tool's `/memories/...` namespace, mapped onto relative paths the core has checked.

use crate::paths::check_relative_path;
use crate::scan::INDEX_FILE_NAME;
use crate::temp::is_own_file;
use crate::write::Snapshot;
use crate::Error;

/// The directory the model sees.
pub const MEMORIES_ROOT: &str = "/memories";

/// `/memories/a/b.md` → `a/b.md`; `/memories` → `""`. The error is the result text.
pub fn to_relative(given: &str) -> Result<String, String> {
    let rest = given
        .strip_prefix(MEMORIES_ROOT)
        .filter(|r| r.is_empty() || r.starts_with('/'));
    let Some(rest) = rest else {
        return Err(format!("Path must start with /memories, got: {given}"));
    };
    if rest.starts_with("//") {
        return Err(format!(
            "Path {given} is not allowed: it has the form of a UNC path (//server/share)"
        ));
    }
    let rel = rest.strip_prefix('/').unwrap_or(rest);
    let rel = rel.strip_suffix('/').unwrap_or(rel);
    if rel.is_empty() {
        return Ok(String::new());
    }
    if crate::history::is_reserved(rel) {
        return Err(own_file(given, crate::history::RESERVED_DIR));
    }
    match check_relative_path(rel) {
        Ok(()) => match rel.split('/').find(|s| is_own_file(s)) {
            Some(own) => Err(own_file(given, own)),
            None => Ok(rel.to_owned()),
        },
        Err(Error::UnsafePath { reason, .. })
            if reason.contains("'..'")
                || reason.contains("percent")
                || reason.contains("look-alike") =>
        {
            Err(format!(
                "Path {given} would escape /memories directory ({reason})"
            ))
        }
        Err(Error::UnsafePath { reason, .. }) => {
            Err(format!("Path {given} is not allowed: {reason}"))
        }
        Err(e) => Err(format!("Path {given} is not allowed: {e}")),
    }
}

/// The refusal of a path that names the write lock, its breaker or a temporary file.
fn own_file(given: &str, own: &str) -> String {
    format!("Path {given} is not allowed: {own} is memdir's own file")
}

/// `/memories` + `/rel` for results.
pub fn display_path(rel: &str) -> String {
    if rel.is_empty() {
        MEMORIES_ROOT.to_owned()
    } else {
        format!("{MEMORIES_ROOT}/{rel}")
    }
}

/// The host's resolution of `rel` must stay inside, and be itself a safe path.
pub fn check_resolved(given: &str, rel: &str, snapshot: &Snapshot) -> Result<(), String> {
    if snapshot.listed_as_escape(rel) {
        return Err(format!(
            "Path {given} would escape /memories directory via symlink"
        ));
    }
    let real = match snapshot.resolved.get(rel) {
        None => return Ok(()), // the host cannot follow links (in-memory storage)
        Some(None) => return Err("Path would escape /memories directory via symlink".to_owned()),
        Some(Some(real)) => real,
    };
    // another name for the index (a link to it, or to the folder it is in) would take an edit
    // past the index's rules, which hold for `MEMORY.md` by its own name
    if real == INDEX_FILE_NAME && rel != INDEX_FILE_NAME {
        return Err(format!(
            "Path {given} is not allowed: it leads to {INDEX_FILE_NAME} via symlink"
        ));
    }
    if real.is_empty() || check_relative_path(real).is_ok() {
        Ok(())
    } else {
        Err(format!(
            "Path {given} would escape /memories directory via symlink"
        ))
    }
}
