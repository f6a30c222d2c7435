//! What a host read before a write: its listing, and the contents the plan asked for.

use crate::codes::EntryKind;
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use crate::error::{Error, Refusal};
use crate::limits::Limits;
use crate::scan::{is_topic_path, Head, INDEX_FILE_NAME};
use crate::text::normalize_text;

/// One entry of the host's listing (`MemoryHost.list()`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable, rename = "SnapshotEntry"))]
pub struct Entry {
    pub path: String,
    pub kind: EntryKind,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub size: f64,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub mtime_ms: f64,
    #[serde(default)]
    pub problem: Option<String>,
}

/// The host's view of the memory directory at one moment.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct Snapshot {
    /// Every entry below the root, recursively.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<Entry>>", optional))]
    pub entries: Vec<Entry>,
    /// Contents of the files the plan asked for (whole files), by relative path.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<BTreeMap<String, Head>>", optional))]
    pub contents: BTreeMap<String, Head>,
    /// Where each path really is, from the host (`MemoryHost.resolve`): the relative path
    /// after following symbolic links, or `null` when it leads out of the directory.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<BTreeMap<String, Option<String>>>", optional))]
    pub resolved: BTreeMap<String, Option<String>>,
    /// The frontmatter an earlier scan of the same bytes already parsed (an opened memory's
    /// cache holds it), for topic files whose head is not in `contents`: JSON text of
    /// `[path, name, description]` triples, `null` for a field the file does not have. The
    /// duplicate checks read these as they would the heads, without the heads crossing again.
    #[serde(default)]
    pub scanned: Option<String>,
    /// `entries` by path, built on the first lookup (a listing can hold 50,000 entries).
    #[serde(skip)]
    by_path: OnceCell<HashMap<String, usize>>,
}

/// A topic file's `name` and `description`, as its frontmatter gives them.
pub type HeaderFields = (Option<String>, Option<String>);

/// [`Snapshot::scanned`], read: the first triple of a path counts.
#[derive(Debug, Default)]
pub struct ScannedHeaders {
    by_path: HashMap<String, usize>,
    fields: Vec<HeaderFields>,
}

impl ScannedHeaders {
    pub fn get(&self, path: &str) -> Option<&HeaderFields> {
        self.by_path.get(path).and_then(|&i| self.fields.get(i))
    }
}

/// `MEMORY.md` as stored, for an edit that must keep every byte it does not change: the
/// byte-order mark apart, the text with its own line endings (CRLF lines keep their `\r`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredText {
    pub bom: bool,
    pub text: String,
}

impl StoredText {
    /// The line ending new lines get: the file's own (`\r\n` when its first line ends so).
    pub fn newline(&self) -> &'static str {
        match self.text.find('\n') {
            Some(i) if i > 0 && self.text.as_bytes().get(i - 1) == Some(&b'\r') => "\r\n",
            _ => "\n",
        }
    }

    /// The file's new content: `text` with the byte-order mark back in front if it had one.
    pub fn with(&self, text: String) -> String {
        if self.bom {
            format!("\u{FEFF}{text}")
        } else {
            text
        }
    }
}

impl Snapshot {
    pub fn new(
        entries: Vec<Entry>,
        contents: BTreeMap<String, Head>,
        resolved: BTreeMap<String, Option<String>>,
    ) -> Self {
        Self {
            entries,
            contents,
            resolved,
            scanned: None,
            by_path: OnceCell::new(),
        }
    }

    /// With frontmatter already parsed by a scan (see [`Snapshot::scanned`]).
    pub fn with_scanned(mut self, scanned: &[(String, Option<String>, Option<String>)]) -> Self {
        self.scanned = serde_json::to_string(scanned).ok();
        self
    }

    /// [`Snapshot::scanned`], read; `INVALID_ARGUMENT` when it is not such JSON.
    pub fn scanned_headers(&self) -> Result<ScannedHeaders, Error> {
        let mut out = ScannedHeaders::default();
        let Some(json) = &self.scanned else {
            return Ok(out);
        };
        let bad = || {
            Error::invalid("snapshot.scanned must be JSON [path, name, description] triples (null for a missing field)")
        };
        // read through `Value`, whose parser the module has anyway
        let value: serde_json::Value = serde_json::from_str(json).map_err(|_| bad())?;
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => Ok(Some(s.clone())),
            serde_json::Value::Null => Ok(None),
            _ => Err(bad()),
        };
        for triple in value.as_array().ok_or_else(bad)? {
            let Some([serde_json::Value::String(path), name, description]) =
                triple.as_array().map(Vec::as_slice)
            else {
                return Err(bad());
            };
            let at = out.fields.len();
            out.fields.push((text(name)?, text(description)?));
            out.by_path.entry(path.clone()).or_insert(at);
        }
        Ok(out)
    }

    /// Records a file as written: its new content, and a listing entry if it had none.
    pub fn put_file(&mut self, path: &str, text: String, mtime_ms: f64) {
        if self.entry(path).is_none() {
            self.entries.push(Entry {
                path: path.to_owned(),
                kind: EntryKind::File,
                size: 0.0,
                mtime_ms,
                problem: None,
            });
            self.by_path = OnceCell::new();
        }
        #[allow(clippy::cast_precision_loss)] // a file's size, far below 2^52
        let size = text.len() as f64;
        if let Some(i) = self.by_path.get().and_then(|m| m.get(path)).copied() {
            if let Some(e) = self.entries.get_mut(i) {
                e.size = size;
            }
        } else if let Some(e) = self.entries.iter_mut().find(|e| e.path == path) {
            e.size = size;
        }
        self.contents.insert(path.to_owned(), Head::Text(text));
    }

    pub fn entry(&self, path: &str) -> Option<&Entry> {
        let index = self.by_path.get_or_init(|| {
            let mut map = HashMap::with_capacity(self.entries.len());
            for (i, e) in self.entries.iter().enumerate() {
                map.entry(e.path.clone()).or_insert(i);
            }
            map
        });
        index.get(path).and_then(|&i| self.entries.get(i))
    }

    pub fn is_file(&self, path: &str) -> bool {
        self.entry(path).is_some_and(|e| e.kind == EntryKind::File)
    }

    pub fn is_dir(&self, path: &str) -> bool {
        path.is_empty()
            || self
                .entry(path)
                .is_some_and(|e| e.kind == EntryKind::Directory)
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

    /// The whole content of a file read for a write, exactly as stored, or `None` when it was
    /// not read (missing). Refused — never cut — when it was not read whole: larger than
    /// `maxFileBytes` (`TOO_LARGE`), shorter than the listing says (`CHANGED`: it changed
    /// while read), or not UTF-8 (`INVALID_UTF8`: rewriting it would alter bytes the write
    /// never meant to touch).
    pub fn whole_text(&self, path: &str, limits: &Limits) -> Result<Option<&str>, Error> {
        let Some(head) = self.contents.get(path) else {
            return Ok(None);
        };
        let bytes = match head {
            Head::Text(t) => t.as_bytes(),
            Head::Bytes(b) => b.as_slice(),
        };
        let max = u64::from(limits.max_file_bytes);
        let listed = self.entry(path).map_or(0.0, |e| e.size);
        let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if read > max || listed > max as f64 {
            // the listing's figure when it shows the size; a read is cut one byte past the limit
            let size = if listed > max as f64 {
                format!("{listed} bytes")
            } else {
                format!("over {max} bytes")
            };
            return Err(Error::refused(
                Refusal::TooLarge,
                format!("{path} is {size}, more than the {max} bytes memdir reads whole (maxFileBytes), so it was not read: split it into smaller files"),
            ));
        }
        if (read as f64) < listed {
            return Err(Error::refused(
                Refusal::Changed,
                format!("{path} changed while it was read ({read} of {listed} bytes): try again"),
            ));
        }
        match head {
            Head::Text(t) => Ok(Some(t.as_str())),
            Head::Bytes(b) => std::str::from_utf8(b).map(Some).map_err(|e| {
                Error::refused(
                    Refusal::InvalidUtf8,
                    format!("{path} is not valid UTF-8 (byte {}): rewriting it would change bytes this write never meant to touch. Re-save the file as UTF-8 first", e.valid_up_to()),
                )
            }),
        }
    }

    /// `MEMORY.md` read whole for an edit, BOM apart and line endings as stored; empty when
    /// missing. Errors as [`Snapshot::whole_text`].
    pub fn stored_index(&self, limits: &Limits) -> Result<StoredText, Error> {
        let text = self.whole_text(INDEX_FILE_NAME, limits)?.unwrap_or("");
        Ok(match text.strip_prefix('\u{FEFF}') {
            Some(rest) => StoredText {
                bom: true,
                text: rest.to_owned(),
            },
            None => StoredText {
                bom: false,
                text: text.to_owned(),
            },
        })
    }

    /// Topic files: `*.md` anywhere except any `MEMORY.md`.
    pub fn topic_files(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .filter(|e| e.kind != EntryKind::Directory && is_topic_path(&e.path))
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
            if self
                .entry(parent)
                .is_some_and(|e| e.kind != EntryKind::Directory)
            {
                return Some(parent);
            }
            ancestor = parent;
        }
        None
    }
}
