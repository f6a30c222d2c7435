//! What the fuzz targets share: the two input modes, structured generators built with
//! `arbitrary`, and the invariant checks.
//!
//! Every target reads its input in one of two ways:
//! - **JSON mode**: the input is a JSON array of arguments, exactly the `args` of a case of
//!   `tests/fixtures/*.json` (the seed corpora are made that way, by `fuzz/seed.mjs`), decoded
//!   as the wasm edge and the fixture harness decode them;
//! - **raw mode**: anything else; `arbitrary` builds a structured input (snapshots, commands,
//!   limits) from the bytes, with paths and text pieces drawn from small pools so that names
//!   collide and frontmatter and index lines appear often.
//!
//! A panic anywhere, in the core or in a check here, is a crash.

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use memdir::codes::EntryKind;
use memdir::paths::check_relative_path;
use memdir::scan::Head;
use memdir::write::snapshot::Entry;
use memdir::write::{Effect, Snapshot};
use memdir::Limits;
use serde::de::DeserializeOwned;
use serde_json::Value;
use unicode_normalization::UnicodeNormalization;

/// Prints the decoded input when `MEMDIR_FUZZ_DEBUG` is set: run one artifact with it to see
/// what a raw-mode crash was made of.
pub fn debug(what: &dyn std::fmt::Debug) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("MEMDIR_FUZZ_DEBUG").is_some()) {
        eprintln!("{what:#?}");
    }
}

/// The arguments when the input is a JSON array (a fixture case's `args`).
pub fn json_args(data: &[u8]) -> Option<Vec<Value>> {
    if data.first() != Some(&b'[') {
        return None;
    }
    serde_json::from_slice(data).ok()
}

/// Argument `i` decoded as `T`; `None` when absent or of the wrong shape (the wasm edge would
/// answer with an `INVALID_ARGUMENT` error before the core runs).
pub fn arg<T: DeserializeOwned>(args: &[Value], i: usize) -> Option<T> {
    serde_json::from_value(args.get(i).cloned().unwrap_or(Value::Null)).ok()
}

/// Optional limits at `i`: absent or `null` is the default; a malformed value is `None`.
pub fn limits_arg(args: &[Value], i: usize) -> Option<Limits> {
    match args.get(i) {
        None | Some(Value::Null) => Some(Limits::default()),
        Some(v) => serde_json::from_value(v.clone()).ok(),
    }
}

// ---------------------------------------------------------------------------------------------
// Generators

/// Paths that matter to the rules, so generated names collide with each other and with the
/// index; plus hostile forms the checks must refuse.
pub const PATHS: &[&str] = &[
    "MEMORY.md",
    "user_role.md",
    "feedback_testing.md",
    "project_release.md",
    "reference_links.md",
    "a.md",
    "b.md",
    "notes",
    "notes/a.md",
    "notes/MEMORY.md",
    "notes/deep",
    "notes/deep/c.md",
    "a b.md",
    "x.txt",
    ".hidden.md",
    "node_modules",
    "../escape.md",
    "/abs.md",
    "notes/../a.md",
    "%2e%2e/x.md",
    "C:/x.md",
    "a\\b.md",
    "\u{FF0E}\u{FF0E}/x.md",
    "",
];

/// Pieces of memory files and index lines: frontmatter, entries, line ends, odd characters.
pub const PIECES: &[&str] = &[
    "---\n",
    "name: ",
    "description: ",
    "type: user\n",
    "type: feedback\n",
    "type: project\n",
    "type: reference\n",
    "type: other\n",
    "metadata:\n  type: project\n",
    "- [",
    "](",
    ")",
    " — ",
    "MEMORY.md",
    "user_role.md",
    "notes/a.md",
    ".md",
    "\n",
    "\r\n",
    "\r",
    "\u{FEFF}",
    "  ",
    "\t",
    "# Memory\n",
    "😀",
    "é",
    "\u{2028}",
    "'",
    "\"",
    ": ",
    "{",
    "[",
    "|\n",
    ">\n",
    "&a [1, 2]\n",
    "*a\n",
    "**Why:** ",
    "**How to apply:** ",
    "AKIAIOSFODNN7EXAMPLE",
    "</system-reminder>",
    "```json\n",
    "```",
    "{\"selected_memories\": [",
    "]}",
    "</think>",
    "%2e",
    "..",
    "/",
    "\\",
    "\0",
    "word ",
];

/// A path from [`PATHS`] (most of the time) or any string.
#[derive(Debug, Clone)]
pub struct FuzzPath(pub String);

impl<'a> Arbitrary<'a> for FuzzPath {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let pick: u8 = u.arbitrary()?;
        if usize::from(pick) < PATHS.len() * 8 {
            Ok(Self(PATHS[usize::from(pick) % PATHS.len()].to_owned()))
        } else {
            Ok(Self(u.arbitrary()?))
        }
    }
}

/// Text made of [`PIECES`] and arbitrary strings.
#[derive(Debug, Clone, Default)]
pub struct FuzzText(pub String);

impl<'a> Arbitrary<'a> for FuzzText {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let mut out = String::new();
        let count = u.int_in_range(0..=24u8)?;
        for _ in 0..count {
            if u.ratio(2u8, 3u8)? {
                out.push_str(u.choose(PIECES)?);
            } else {
                let s: &str = u.arbitrary()?;
                out.push_str(s);
            }
        }
        Ok(Self(out))
    }
}

/// Limits: the defaults, or small values (and the extremes) that make every cap fire.
#[derive(Debug, Clone, Copy)]
pub struct FuzzLimits(pub Limits);

fn small_limit(u: &mut Unstructured<'_>) -> arbitrary::Result<u32> {
    Ok(match u.arbitrary::<u8>()? {
        255 => u32::MAX,
        254 => 25_000,
        n => u32::from(n % 64),
    })
}

impl<'a> Arbitrary<'a> for FuzzLimits {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        if u.ratio(1u8, 2u8)? {
            return Ok(Self(Limits::default()));
        }
        Ok(Self(Limits {
            max_index_lines: small_limit(u)?,
            max_index_utf16: small_limit(u)?,
            max_files: small_limit(u)?,
            max_header_lines: small_limit(u)?,
            max_selected: small_limit(u)?,
            max_inject_lines: small_limit(u)?,
            max_inject_bytes: small_limit(u)?,
            max_session_utf16: small_limit(u)?,
            max_output_tokens: small_limit(u)?,
            max_file_bytes: small_limit(u)?,
        }))
    }
}

/// A file's content: text (most often) or raw bytes.
pub fn fuzz_head(u: &mut Unstructured<'_>) -> arbitrary::Result<Head> {
    if u.ratio(1u8, 6u8)? {
        let bytes: Vec<u8> = u.arbitrary()?;
        Ok(Head::Bytes(bytes))
    } else {
        Ok(Head::Text(FuzzText::arbitrary(u)?.0))
    }
}

const KINDS: &[EntryKind] = &[EntryKind::File, EntryKind::Directory, EntryKind::Other];
const PROBLEMS: &[&str] = &[
    "symlink_escape",
    "not_a_file",
    "unreadable",
    "ENOENT",
    "EACCES",
];

/// A snapshot of a small directory. Most of the time it is consistent (every read file is
/// listed, every folder on the way is listed); sometimes it is whatever the bytes say.
pub struct FuzzSnapshot(pub Snapshot);

impl std::fmt::Debug for FuzzSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("entries", &self.0.entries)
            .field("contents", &self.0.contents)
            .field("resolved", &self.0.resolved)
            .field("scanned", &self.0.scanned)
            .finish()
    }
}

impl<'a> Arbitrary<'a> for FuzzSnapshot {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let consistent = u.ratio(3u8, 4u8)?;
        let mut contents = BTreeMap::new();
        for _ in 0..u.int_in_range(0..=6u8)? {
            let path = FuzzPath::arbitrary(u)?.0;
            contents.insert(path, fuzz_head(u)?);
        }
        let mut entries: Vec<Entry> = Vec::new();
        for _ in 0..u.int_in_range(0..=4u8)? {
            let path = FuzzPath::arbitrary(u)?.0;
            let problem = if u.ratio(1u8, 8u8)? {
                Some((*u.choose(PROBLEMS)?).to_owned())
            } else {
                None
            };
            entries.push(Entry {
                path,
                kind: *u.choose(KINDS)?,
                size: f64::from(u.arbitrary::<u16>()?),
                mtime_ms: f64::from(u.arbitrary::<u32>()?) * 1000.0,
                problem,
            });
        }
        if consistent {
            let listed: Vec<String> = entries.iter().map(|e| e.path.clone()).collect();
            for (path, head) in &contents {
                if !listed.contains(path) {
                    let size = match head {
                        Head::Text(t) => t.len(),
                        Head::Bytes(b) => b.len(),
                    };
                    entries.push(file_entry(path, size));
                }
            }
            add_folders(&mut entries);
        }
        let mut resolved = BTreeMap::new();
        if u.ratio(1u8, 4u8)? {
            for _ in 0..u.int_in_range(0..=3u8)? {
                let from = FuzzPath::arbitrary(u)?.0;
                let to = if u.ratio(1u8, 3u8)? {
                    None
                } else {
                    Some(FuzzPath::arbitrary(u)?.0)
                };
                resolved.insert(from, to);
            }
        }
        // frontmatter an earlier scan parsed (an opened memory's cache): for listed paths or
        // any, with or without their heads also read; now and then not JSON triples at all
        let mut scanned = Vec::new();
        if u.ratio(1u8, 4u8)? {
            for _ in 0..u.int_in_range(0..=4u8)? {
                let path = match entries.get(usize::from(u.arbitrary::<u8>()?)) {
                    Some(e) if u.ratio(3u8, 4u8)? => e.path.clone(),
                    _ => FuzzPath::arbitrary(u)?.0,
                };
                let name = u.arbitrary::<Option<FuzzText>>()?.map(|t| t.0);
                let description = u.arbitrary::<Option<FuzzText>>()?.map(|t| t.0);
                scanned.push((path, name, description));
            }
        }
        let mut snapshot = Snapshot::new(entries, contents, resolved).with_scanned(&scanned);
        if scanned.is_empty() && u.ratio(1u8, 16u8)? {
            snapshot.scanned = Some(FuzzText::arbitrary(u)?.0);
        } else if scanned.is_empty() {
            snapshot.scanned = None;
        }
        Ok(Self(snapshot))
    }
}

/// A listing entry for a file of `size` bytes.
pub fn file_entry(path: &str, size: usize) -> Entry {
    Entry {
        path: path.to_owned(),
        kind: EntryKind::File,
        size: size as f64,
        mtime_ms: 1_772_714_096_789.0,
        problem: None,
    }
}

/// Adds a `directory` entry for every folder on the way to a listed path.
pub fn add_folders(entries: &mut Vec<Entry>) {
    let mut folders = Vec::new();
    for e in entries.iter() {
        let mut p = e.path.as_str();
        while let Some((parent, _)) = p.rsplit_once('/') {
            if !parent.is_empty() {
                folders.push(parent.to_owned());
            }
            p = parent;
        }
    }
    for folder in folders {
        if !entries.iter().any(|e| e.path == folder) {
            entries.push(Entry {
                path: folder,
                kind: EntryKind::Directory,
                size: 0.0,
                mtime_ms: 1_772_714_096_789.0,
                problem: None,
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Invariants

/// What an accepted relative path must never be, checked independently of `paths.rs`:
/// empty, absolute, a drive or UNC form, with a backslash, a control character, an empty,
/// `.` or `..` segment, a percent-encoded byte, or anything that NFKC-normalises to one of
/// those (a look-alike of `.`, `/` or `\`).
pub fn assert_safe_relative(path: &str, context: &str) {
    assert!(!path.is_empty(), "{context}: accepted an empty path");
    assert!(
        !path.starts_with('/'),
        "{context}: accepted absolute {path:?}"
    );
    assert!(
        !path.contains('\\'),
        "{context}: accepted a backslash in {path:?}"
    );
    assert!(
        !path.chars().any(char::is_control),
        "{context}: accepted a control character in {path:?}"
    );
    let b = path.as_bytes();
    assert!(
        !(b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'),
        "{context}: accepted a drive letter in {path:?}"
    );
    assert!(
        !b.windows(3)
            .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit()),
        "{context}: accepted a percent-encoded byte in {path:?}"
    );
    for segment in path.split('/') {
        assert!(
            !matches!(segment, "" | "." | ".."),
            "{context}: accepted segment {segment:?} in {path:?}"
        );
    }
    // look-alikes: NFKC must not make new separators or a dot segment
    let nfkc: String = path.nfkc().collect();
    if nfkc != path {
        assert!(
            nfkc.matches('/').count() <= path.matches('/').count(),
            "{context}: {path:?} normalises (NFKC) to {nfkc:?}, with a new '/'"
        );
        assert!(
            !nfkc.contains('\\'),
            "{context}: {path:?} normalises (NFKC) to {nfkc:?}, with a '\\'"
        );
        for segment in nfkc.split('/') {
            assert!(
                !matches!(segment, "." | ".."),
                "{context}: {path:?} normalises (NFKC) to {nfkc:?}, with a {segment:?} segment"
            );
        }
    }
    assert!(
        check_relative_path(path).is_ok(),
        "{context}: {path:?} is not accepted by check_relative_path"
    );
}

/// Every path an effect names is a safe relative path (the root itself is never written).
pub fn assert_effects_safe(effects: &[Effect], context: &str) {
    for effect in effects {
        match effect {
            Effect::Write { path, .. } | Effect::Remove { path } => {
                assert_safe_relative(path, context);
            }
            Effect::Rename { from, to } => {
                assert_safe_relative(from, context);
                assert_safe_relative(to, context);
            }
        }
    }
}

/// Applies `effects` to a map of files (path → text), as a host would; folders are implied by
/// their files. Returns `false` when an effect could not be applied (exclusive write onto an
/// existing file, rename onto an existing path or of a missing one).
pub fn apply_effects(files: &mut BTreeMap<String, String>, effects: &[Effect]) -> bool {
    for effect in effects {
        match effect {
            Effect::Write {
                path,
                text,
                exclusive,
            } => {
                if *exclusive && files.contains_key(path) {
                    return false;
                }
                files.insert(path.clone(), text.clone());
            }
            Effect::Remove { path } => {
                let prefix = format!("{path}/");
                files.retain(|p, _| p != path && !p.starts_with(&prefix));
            }
            Effect::Rename { from, to } => {
                let prefix = format!("{from}/");
                let moved: Vec<String> = files
                    .keys()
                    .filter(|p| *p == from || p.starts_with(&prefix))
                    .cloned()
                    .collect();
                if moved.is_empty() || files.contains_key(to) {
                    return false;
                }
                for p in moved {
                    if let Some(text) = files.remove(&p) {
                        files.insert(format!("{to}{}", &p[from.len()..]), text);
                    }
                }
            }
        }
    }
    true
}
