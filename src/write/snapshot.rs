//! What a host read before a write: its listing, and the contents the plan asked for.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::scan::{is_topic_path, Head, INDEX_FILE_NAME};
use crate::text::normalize_text;

/// One entry of the host's listing (`MemoryHost.list()`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub path: String,
    /// `file`, `directory` or `other`.
    pub kind: String,
    #[serde(default)]
    pub size: f64,
    #[serde(default)]
    pub mtime_ms: f64,
    #[serde(default)]
    pub problem: Option<String>,
}

/// The host's view of the memory directory at one moment.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshot {
    /// Every entry below the root, recursively.
    #[serde(default)]
    pub entries: Vec<Entry>,
    /// Contents of the files the plan asked for (whole files), by relative path.
    #[serde(default)]
    pub contents: BTreeMap<String, Head>,
    /// Where each path really is, from the host (`MemoryHost.resolve`): the relative path
    /// after following symbolic links, or `null` when it leads out of the directory.
    #[serde(default)]
    pub resolved: BTreeMap<String, Option<String>>,
}

impl Snapshot {
    pub fn entry(&self, path: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.path == path)
    }

    pub fn is_file(&self, path: &str) -> bool {
        self.entry(path).is_some_and(|e| e.kind == "file")
    }

    pub fn is_dir(&self, path: &str) -> bool {
        path.is_empty() || self.entry(path).is_some_and(|e| e.kind == "directory")
    }

    /// The text of a file that was read, BOM stripped and CRLF read as LF.
    pub fn text(&self, path: &str) -> Option<String> {
        self.contents.get(path).map(|head| match head {
            Head::Text(t) => normalize_text(t).into_owned(),
            Head::Bytes(b) => normalize_text(&String::from_utf8_lossy(b)).into_owned(),
        })
    }

    /// `MEMORY.md`'s text; empty when it does not exist.
    pub fn index_text(&self) -> String {
        self.text(INDEX_FILE_NAME).unwrap_or_default()
    }

    /// Topic files: `*.md` anywhere except any `MEMORY.md`.
    pub fn topic_files(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .filter(|e| e.kind != "directory" && is_topic_path(&e.path))
    }

    /// A file's text exactly as stored, for edits that must keep everything else byte for
    /// byte; `Some(Err(()))` when it is not valid UTF-8.
    pub fn raw_text(&self, path: &str) -> Option<Result<String, ()>> {
        self.contents.get(path).map(|head| match head {
            Head::Text(t) => Ok(t.clone()),
            Head::Bytes(b) => String::from_utf8(b.clone()).map_err(|_| ()),
        })
    }

    /// Whether the listing marks `path` or one of its folders as a link out of the directory
    /// (hosts that cannot resolve links, such as VS Code's, report every link this way).
    pub fn listed_as_escape(&self, path: &str) -> bool {
        let mut prefix = path;
        loop {
            if self
                .entry(prefix)
                .is_some_and(|e| e.problem.as_deref() == Some("symlink_escape"))
            {
                return true;
            }
            match prefix.rsplit_once('/') {
                Some((parent, _)) => prefix = parent,
                None => return false,
            }
        }
    }

    /// The first folder on the way to `path` that is listed as something other than a folder:
    /// a write there would fail (`ENOTDIR`), so the command says so instead.
    pub fn non_folder_on_the_way<'a>(&self, path: &'a str) -> Option<&'a str> {
        let mut ancestor = path;
        while let Some((parent, _)) = ancestor.rsplit_once('/') {
            if self.entry(parent).is_some_and(|e| e.kind != "directory") {
                return Some(parent);
            }
            ancestor = parent;
        }
        None
    }
}
