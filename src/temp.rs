//! The temporary files of atomic writes: every host writes `.<name>.tmp-<token>` next to the
//! file and renames it into place, so a writer killed in between leaves one behind. The name is
//! decided here, once, so the hosts, the sweep that clears leftovers, and doctor agree on it.

use serde::Serialize;

/// The temporary file for writing `name` (a file name, no folder), with the host's random
/// `token` (lower-case hex).
pub fn temp_file_name(name: &str, token: &str) -> String {
    format!(".{name}.tmp-{token}")
}

/// What a temporary file's name says: the file it was for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TempFile {
    /// The name of the file the write was for.
    pub target: String,
}

/// The file a path's last segment is the temporary file of, if it is one.
pub fn parse_temp_file(path: &str) -> Option<TempFile> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let rest = name.strip_prefix('.')?;
    let (target, token) = rest.rsplit_once(".tmp-")?;
    let hex = !token.is_empty() && token.bytes().all(|b| b.is_ascii_hexdigit());
    (hex && !target.is_empty()).then(|| TempFile {
        target: target.to_owned(),
    })
}

/// The write lock and its breaker (`js/lock.ts`: `LOCK_FILE`, `BREAK_FILE`), in the memory
/// directory's root.
pub const LOCK_FILE_NAMES: [&str; 2] = [".memdir.lock", ".memdir.lock.break"];

/// Whether `name` (one path segment) is one of memdir's own files: the write lock, its
/// breaker, or the temporary file of a write. The memory tool never lets the model touch them
/// (an edited lock is one its owner cannot release).
pub fn is_own_file(name: &str) -> bool {
    LOCK_FILE_NAMES.contains(&name) || parse_temp_file(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_files() {
        assert!(is_own_file(".memdir.lock"));
        assert!(is_own_file(".memdir.lock.break"));
        assert!(is_own_file(".notes.md.tmp-0a1b2c"));
        assert!(!is_own_file("memdir.lock"));
        assert!(!is_own_file(".memdir.lock.md"));
        assert!(!is_own_file("notes.md"));
    }

    #[test]
    fn names_round_trip() {
        let name = temp_file_name("MEMORY.md", "0a1b2c");
        assert_eq!(name, ".MEMORY.md.tmp-0a1b2c");
        assert_eq!(
            parse_temp_file(&format!("team/{name}")).map(|t| t.target),
            Some("MEMORY.md".into())
        );
        assert_eq!(parse_temp_file(".x.tmp-"), None);
        assert_eq!(parse_temp_file("x.tmp-ab"), None);
        assert_eq!(parse_temp_file(".x.tmp-zz"), None);
    }
}
