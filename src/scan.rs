//! The scan: from what the host listed (path, mtime, first lines), which topic files are
//! memories, in which order, which fall past the cap, and what is wrong with them.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::codes::{DiagnosticCode, EntryKind};
use crate::frontmatter::{parse_header, Header, MemoryType, Recovery};
use crate::limits::{to_usize, Limits};
use crate::paths::check_relative_path;
use crate::text::{first_lines, normalize_text};

/// The name of the index file, excluded from the topic files at any depth.
pub const INDEX_FILE_NAME: &str = "MEMORY.md";

/// Largest time value a JavaScript `Date` can hold (±8.64e15 ms).
const MAX_DATE_MS: f64 = 8.64e15;

/// One file as the host saw it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct FileHead {
    /// Relative to the memory directory, `/`-separated.
    pub path: String,
    /// Modification time, ms since the Unix epoch.
    pub mtime_ms: f64,
    /// The first lines of the file, as text or raw bytes. The core reads only the first
    /// `maxHeaderLines`; absent when the host has not read it (see [`plan_scan`]).
    #[serde(default)]
    pub head: Option<Head>,
    /// `file` (the default), `directory` or `other`, as the host listed it.
    #[serde(default)]
    pub kind: Option<EntryKind>,
    /// A problem the host met with this entry: `not_a_file`, `symlink_escape`,
    /// `unreadable` or `vanished`, or the raw error code of a failed read (`ENOENT`,
    /// `EISDIR`, `EACCES`, …). The file is left out, with a diagnostic.
    #[serde(default)]
    pub problem: Option<String>,
}

/// What a host's `problem` means: its own names, and the raw error codes of a failed read.
fn host_problem(problem: &str) -> (DiagnosticCode, &'static str) {
    match problem {
        "not_a_file" | "EISDIR" | "EINVAL" => (
            DiagnosticCode::NotAFile,
            "not a regular file (a directory or device named *.md)",
        ),
        "symlink_escape" => (
            DiagnosticCode::SymlinkEscape,
            "a symbolic link that leads out of the memory directory, or nowhere",
        ),
        "vanished" | "ENOENT" => (
            DiagnosticCode::Vanished,
            "the file disappeared while it was being read",
        ),
        _ => (DiagnosticCode::Unreadable, "the file could not be read"),
    }
}

/// A file head: text, or bytes that the core decodes as UTF-8 (reporting invalid bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(type = "string | Uint8Array"))]
pub enum Head {
    Text(String),
    Bytes(Vec<u8>),
}

impl Head {
    /// The first `max_lines` lines and one more (with its newline): all the scan needs, so
    /// a copy of a whole file need not be made.
    pub fn first_lines(&self, max_lines: usize) -> Head {
        let bytes = match self {
            Head::Text(t) => t.as_bytes(),
            Head::Bytes(b) => b.as_slice(),
        };
        let end = bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .nth(max_lines)
            .map_or(bytes.len(), |(i, _)| i + 1);
        match self {
            Head::Text(t) => Head::Text(t.get(..end).unwrap_or(t).to_owned()),
            Head::Bytes(b) => Head::Bytes(b.get(..end).unwrap_or(b).to_vec()),
        }
    }
}

impl<'de> Deserialize<'de> for Head {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct HeadVisitor;
        impl<'de> Visitor<'de> for HeadVisitor {
            type Value = Head;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a Uint8Array")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Head, E> {
                Ok(Head::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Head, E> {
                Ok(Head::Text(v))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Head, E> {
                Ok(Head::Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Head, E> {
                Ok(Head::Bytes(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Head, A::Error> {
                let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
                while let Some(b) = seq.next_element::<u8>()? {
                    bytes.push(b);
                }
                Ok(Head::Bytes(bytes))
            }
        }
        deserializer.deserialize_any(HeadVisitor)
    }
}

/// A topic file that is a memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct Memory {
    pub path: String,
    /// The file's modification time, as the host listed it.
    pub mtime_ms: f64,
    /// `metadata.modified` from the frontmatter (current Claude Code records it), when valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_ms: Option<f64>,
    /// The memory's time: the older of `mtimeMs` and `modifiedMs`. A checkout, copy or sync
    /// resets a file's mtime but not the recorded time, and a recorded time in the future
    /// cannot make a memory look fresher than its file. Order, manifest and age use it.
    /// Optional on input (computed when absent).
    #[serde(default)]
    pub time_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// One line: white space folded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<MemoryType>,
    /// The frontmatter's `metadata:` block as written, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// `superseded_by`: the newer memory that replaces this one (rules §4.7). A memory whose
    /// chain ends at a memory that exists is no selection candidate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

impl Memory {
    /// See [`Memory::time_ms`]: the older of the file's mtime and the recorded time.
    pub fn time(&self) -> f64 {
        self.time_ms.unwrap_or_else(|| {
            self.modified_ms
                .map_or(self.mtime_ms, |m| m.min(self.mtime_ms))
        })
    }
}

/// Something the caller should know about one file; never an exception.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Diagnostic {
    pub path: String,
    pub code: DiagnosticCode,
    pub message: String,
    /// 1-based line, where one applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl Diagnostic {
    fn new(
        path: &str,
        code: DiagnosticCode,
        message: impl Into<String>,
        line: Option<usize>,
    ) -> Self {
        Self {
            path: path.to_owned(),
            code,
            message: message.into(),
            line: line.and_then(|l| u32::try_from(l).ok()),
        }
    }
}

/// The result of a scan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ScanResult {
    /// At most `maxFiles`, newest first (ties by path).
    pub memories: Vec<Memory>,
    /// The older files past the cap: left out of the prompt, but reported.
    pub dropped: Vec<Memory>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Which files the host should read, in order, before calling [`scan_memories`]: the topic
/// files newest first. Reading the first `maxFiles` is enough; if some of those cannot be
/// read, the next ones take their place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ScanPlan {
    pub read: Vec<String>,
    pub max_files: u32,
}

/// A word-at-a-time multiplicative hash (as rustc's FxHash): the duplicate check hashes every
/// listed path, and SipHash's resistance to chosen collisions buys nothing against a listing (a
/// folder of 20,000 files is hashed in a fraction of the time, eight bytes a step).
#[derive(Clone, Copy, Default)]
struct BuildWordHash;

struct WordHash(u64);

const WORD_HASH_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl WordHash {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(WORD_HASH_SEED);
    }
}

impl std::hash::BuildHasher for BuildWordHash {
    type Hasher = WordHash;
    fn build_hasher(&self) -> WordHash {
        WordHash(0)
    }
}

impl std::hash::Hasher for WordHash {
    fn finish(&self) -> u64 {
        // the high bits mixed into the low ones, which pick the bucket
        self.0 ^ (self.0 >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            for (w, &b) in word.iter_mut().zip(rest) {
                *w = b;
            }
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }
}

/// A topic file that may be a memory, in the order the scan ranks them.
pub(crate) struct Candidate<'a> {
    pub(crate) file: &'a FileHead,
    /// Where the file is in the listing.
    pub(crate) index: usize,
    /// Its time for the order (0 when the listing's is no valid time).
    pub(crate) mtime_ms: f64,
}

/// `*.md` (case-sensitive) and not named `MEMORY.md`, at any depth: a topic file.
pub fn is_topic_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".md") && name != INDEX_FILE_NAME
}

/// What an entry's path, kind and problem make of it, before its time is looked at: a topic
/// file that is a candidate, one refused (and its diagnostic), or not a topic file at all. A
/// scan session keeps them for a listing whose times alone change between turns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    NotTopic,
    Candidate,
    Refused(Box<Diagnostic>),
}

impl Verdict {
    /// A candidate whose head could not be read (`problem`, as a host names it) is refused.
    pub(crate) fn after_failed_read(&self, path: &str, problem: &str) -> Verdict {
        match self {
            Verdict::Candidate => {
                let (code, message) = host_problem(problem);
                Verdict::Refused(Box::new(Diagnostic::new(path, code, message, None)))
            }
            other => other.clone(),
        }
    }
}

/// The [`Verdict`] of every entry of the listing, in its order.
pub(crate) fn verdicts(files: &[FileHead]) -> Vec<Verdict> {
    let mut seen: HashSet<&str, BuildWordHash> =
        HashSet::with_capacity_and_hasher(files.len(), BuildWordHash);
    files
        .iter()
        .map(|file| verdict(file, &mut |path| seen.insert(path)))
        .collect()
}

/// What `file` is; `first` says whether its path comes for the first time in the listing
/// (asked of topic files only).
fn verdict<'a>(file: &'a FileHead, first: &mut dyn FnMut(&'a str) -> bool) -> Verdict {
    let refused = |path: &str, code, message: String| {
        Verdict::Refused(Box::new(Diagnostic::new(path, code, message, None)))
    };
    let path = file.path.as_str();
    if !is_topic_path(path) {
        return Verdict::NotTopic;
    }
    // the first entry counts, whatever it is (as `Snapshot::entry` reads the listing)
    if !first(path) {
        return refused(
            path,
            DiagnosticCode::DuplicatePath,
            "listed more than once; the first entry counts".to_owned(),
        );
    }
    // only a regular file is a memory (as `Snapshot::is_file` says for the writes)
    let not_a_file = !matches!(file.kind, None | Some(EntryKind::File));
    let problem = file
        .problem
        .as_deref()
        .or(not_a_file.then_some("not_a_file"));
    if let Some(problem) = problem {
        let (code, message) = host_problem(problem);
        return refused(path, code, message.to_owned());
    }
    match check_relative_path(path) {
        Err(e) => refused(path, DiagnosticCode::UnsafePath, e.to_string()),
        Ok(()) => Verdict::Candidate,
    }
}

fn valid_time(mtime_ms: f64) -> bool {
    mtime_ms.is_finite() && mtime_ms.abs() <= MAX_DATE_MS
}

/// The candidates of a listing whose [`verdicts`] are known, newest first (then by path); the
/// diagnostics of the refused ones and of invalid times, in the listing's order.
pub(crate) fn ranked<'a>(
    files: &'a [FileHead],
    verdicts: &[Verdict],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Candidate<'a>> {
    let mut out = Vec::with_capacity(files.len());
    for ((index, file), verdict) in files.iter().enumerate().zip(verdicts) {
        match verdict {
            Verdict::NotTopic => continue,
            Verdict::Refused(diagnostic) => {
                diagnostics.push(diagnostic.as_ref().clone());
                continue;
            }
            Verdict::Candidate => {}
        }
        let valid = valid_time(file.mtime_ms);
        if !valid {
            diagnostics.push(Diagnostic::new(
                &file.path,
                DiagnosticCode::InvalidMtime,
                format!("mtime {} is not a valid time; 0 is used", file.mtime_ms),
                None,
            ));
        }
        let mtime_ms = if valid { file.mtime_ms } else { 0.0 };
        out.push(Candidate {
            file,
            index,
            mtime_ms,
        });
    }
    // paths are unique here (duplicates were left out above), so the order is total and an
    // unstable sort gives the same result, faster
    out.sort_unstable_by(|a, b| {
        b.mtime_ms
            .total_cmp(&a.mtime_ms)
            .then_with(|| a.file.path.cmp(&b.file.path))
    });
    out
}

/// Orders the topic files so the host reads only the heads it needs.
pub fn plan_scan(files: &[FileHead], limits: &Limits) -> ScanPlan {
    let mut ignored = Vec::new();
    ScanPlan {
        read: ranked(files, &verdicts(files), &mut ignored)
            .into_iter()
            .map(|c| c.file.path.clone())
            .collect(),
        max_files: limits.max_files,
    }
}

/// Scans topic files per rules §3.2. Never fails: every problem is a diagnostic.
///
/// The newest `maxFiles` candidates are the memories, read from their heads; the older ones
/// are dropped (reported, with what their heads say when the host read them).
pub fn scan_memories(files: &[FileHead], limits: &Limits) -> ScanResult {
    let mut diagnostics = Vec::new();
    let max_files = to_usize(limits.max_files);
    let mut memories = Vec::new();
    let mut dropped = Vec::new();
    for (rank, candidate) in ranked(files, &verdicts(files), &mut diagnostics)
        .into_iter()
        .enumerate()
    {
        let kept = rank < max_files;
        let memory = read_memory(&candidate, limits, kept, &mut diagnostics);
        if kept {
            memories.push(memory);
        } else {
            dropped.push(memory);
        }
    }
    memories.sort_by(newest_first);
    ScanResult {
        memories,
        dropped,
        diagnostics,
    }
}

/// The order of the kept memories: by their time (which a head can make older than the
/// listing's, by which the cap went), newest first, then by path.
pub(crate) fn newest_first(a: &Memory, b: &Memory) -> std::cmp::Ordering {
    b.time()
        .total_cmp(&a.time())
        .then_with(|| a.path.cmp(&b.path))
}

/// A memory that is only its path and its time.
pub(crate) fn bare_memory(path: String, mtime_ms: f64) -> Memory {
    Memory {
        path,
        mtime_ms,
        modified_ms: None,
        time_ms: Some(mtime_ms),
        name: None,
        description: None,
        memory_type: None,
        metadata: None,
        superseded_by: None,
    }
}

/// The most any host reads of a head (a header line can be huge): a head this long is a prefix
/// of its file, cut wherever the reading stopped (`js/hosts/*`: `MAX_HEAD_BYTES`).
pub const MAX_HEAD_BYTES: usize = 1 << 20;

/// A head's bytes as the scan reads them, and whether they hold a sequence that is not UTF-8.
#[derive(Debug, PartialEq, Eq)]
pub struct HeadText<'a> {
    pub text: std::borrow::Cow<'a, str>,
    pub invalid: bool,
}

/// The text of a head's first `max_lines` lines (each with its newline), from its bytes.
///
/// A host reads a head in chunks until it has seen `max_lines` lines, so the bytes after the
/// last of them are wherever its last chunk ended: often inside a character (Korean, Russian, a
/// Portuguese accent). Those bytes are no part of what the scan reads, so they are not decoded:
/// only a sequence that is not UTF-8 *within* the lines read is `invalid`. A head with fewer
/// lines is the whole file, unless it is [`MAX_HEAD_BYTES`] long: then it is a prefix, and a
/// character its end cuts short is left out, not reported. Every route (the plain scan, the
/// packed one, the memo, doctor's) reads heads through this.
pub fn decode_head(bytes: &[u8], max_lines: usize) -> HeadText<'_> {
    let end = match max_lines.checked_sub(1) {
        None => 0,
        Some(last) => bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .nth(last)
            .map_or(bytes.len(), |(i, _)| i + 1),
    };
    let lines = bytes.get(..end).unwrap_or(bytes);
    // valid UTF-8 (nearly every head) is checked by the fast validator and borrowed
    match std::str::from_utf8(lines) {
        Ok(text) => HeadText {
            text: std::borrow::Cow::Borrowed(text),
            invalid: false,
        },
        // cut short at the end of a prefix: what is there is valid
        Err(e)
            if e.error_len().is_none() && end == bytes.len() && bytes.len() >= MAX_HEAD_BYTES =>
        {
            let valid = lines.get(..e.valid_up_to()).unwrap_or_default();
            HeadText {
                text: String::from_utf8_lossy(valid),
                invalid: false,
            }
        }
        Err(_) => HeadText {
            text: String::from_utf8_lossy(lines),
            invalid: true,
        },
    }
}

/// The memory a candidate's head makes (its fields, its time), with the head's diagnostics.
/// `kept`: within the cap (a kept memory without a head is reported).
pub(crate) fn read_memory(
    candidate: &Candidate<'_>,
    limits: &Limits,
    kept: bool,
    diagnostics: &mut Vec<Diagnostic>,
) -> Memory {
    let path = candidate.file.path.as_str();
    let mut memory = bare_memory(path.to_owned(), candidate.mtime_ms);
    let max_lines = to_usize(limits.max_header_lines);
    let text = match &candidate.file.head {
        Some(Head::Text(text)) => std::borrow::Cow::Borrowed(text.as_str()),
        Some(Head::Bytes(bytes)) => {
            let decoded = decode_head(bytes, max_lines);
            if decoded.invalid {
                diagnostics.push(Diagnostic::new(
                    path,
                    DiagnosticCode::InvalidUtf8,
                    "the file is not valid UTF-8; invalid bytes were replaced with U+FFFD",
                    None,
                ));
            }
            decoded.text
        }
        None => {
            if kept {
                diagnostics.push(Diagnostic::new(
                    path,
                    DiagnosticCode::HeadMissing,
                    "the host did not read this file's first lines",
                    None,
                ));
            }
            return memory;
        }
    };
    let normalized = normalize_text(&text);
    let head = first_lines(&normalized, max_lines);
    match parse_header(head, max_lines) {
        Header::Missing => diagnostics.push(Diagnostic::new(path, DiagnosticCode::FrontmatterMissing, "the file does not start with '---' frontmatter", Some(1))),
        Header::Unclosed {
            max_lines,
            read_lines,
        } => diagnostics.push(Diagnostic::new(
            path,
            DiagnosticCode::FrontmatterUnclosed,
            if read_lines < max_lines {
                "frontmatter opens on line 1 but no `---` line closes it, so it is ignored".to_owned()
            } else {
                format!("frontmatter opens on line 1 but does not close within {max_lines} lines, so it is ignored")
            },
            Some(1),
        )),
        Header::Malformed { reason, line } => {
            diagnostics.push(Diagnostic::new(path, DiagnosticCode::FrontmatterMalformed, format!("frontmatter could not be parsed: {reason}"), line));
        }
        Header::Parsed(fields) => {
            match fields.recovered {
                None => {}
                Some(Recovery::Quoted) => diagnostics.push(Diagnostic::new(
                    path,
                    DiagnosticCode::FrontmatterRecovered,
                    "frontmatter is not valid YAML as written; it parsed after quoting values with ':' or other special characters",
                    Some(2),
                )),
                Some(Recovery::Lines { line }) => diagnostics.push(Diagnostic::new(
                    path,
                    DiagnosticCode::FrontmatterRecovered,
                    "frontmatter is not valid YAML as written; its `key: value` lines were read one by one, as a person reads them (a value YAML cannot read is kept as written)",
                    line,
                )),
            }
            for note in &fields.notes {
                diagnostics.push(Diagnostic::new(path, note.code, note.message.clone(), None));
            }
            if fields.description.is_none() && !fields.notes.iter().any(|n| n.code == DiagnosticCode::DescriptionNotText) {
                diagnostics.push(Diagnostic::new(path, DiagnosticCode::DescriptionMissing, "no description: the selector sees only the file name", None));
            }
            memory.name = fields.name;
            memory.description = fields.description;
            memory.memory_type = fields.memory_type;
            memory.metadata = fields.metadata;
            memory.superseded_by = fields.superseded_by;
            memory.modified_ms = fields.modified_ms.filter(|m| m.abs() <= MAX_DATE_MS);
            memory.time_ms = Some(memory.modified_ms.map_or(candidate.mtime_ms, |m| m.min(candidate.mtime_ms)));
        }
    }
    memory
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// A Korean head of `lines` lines and more, cut `cut_back` bytes into a character after the
    /// last line the scan reads, as a host's 4,096-byte chunk cuts it.
    fn korean_head(lines: usize) -> Vec<u8> {
        let mut text = String::from("---\nname: 배포 점검\ndescription: 배포 전에 스테이징을 먼저 확인한다\ntype: project\n---\n");
        while text.matches('\n').count() < lines + 5 {
            text.push_str("스테이징 서버에서 먼저 확인하고 운영에 배포한다\n");
        }
        text.into_bytes()
    }

    fn scan_one(head: Vec<u8>) -> ScanResult {
        let file = FileHead {
            path: "project_deploy.md".into(),
            mtime_ms: 1.0,
            head: Some(Head::Bytes(head)),
            kind: None,
            problem: None,
        };
        scan_memories(&[file], &Limits::default())
    }

    #[test]
    fn a_head_cut_inside_a_character_after_the_lines_read_is_valid() {
        let whole = korean_head(30);
        // every cut after line 30 (the 30th newline) that falls inside a character
        let after = whole
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .nth(29)
            .map(|(i, _)| i + 1)
            .unwrap();
        let mut cuts = 0;
        for end in after..whole.len() {
            if std::str::from_utf8(&whole[..end]).is_ok() {
                continue;
            }
            cuts += 1;
            let result = scan_one(whole[..end].to_vec());
            assert_eq!(result.diagnostics, vec![], "cut at {end}");
            let memory = &result.memories[0];
            assert_eq!(memory.name.as_deref(), Some("배포 점검"));
            assert_eq!(memory.memory_type, Some(MemoryType::Project));
        }
        assert!(cuts > 10, "the cuts fall inside characters");
    }

    #[test]
    fn only_a_sequence_that_is_not_utf8_is_invalid() {
        // a broken character within the lines read, or at the end of a whole short file
        let mut head = b"---\ndescription: caf\xc3 ok\n---\n".to_vec();
        assert_eq!(
            scan_one(head.clone()).diagnostics[0].code,
            DiagnosticCode::InvalidUtf8
        );
        head = "---\ndescription: 배포\n---\n배".as_bytes().to_vec();
        head.pop();
        assert_eq!(
            scan_one(head).diagnostics[0].code,
            DiagnosticCode::InvalidUtf8
        );
        // cut before line 30 inside a character, not at the cap: the host read it all
        let whole = korean_head(10);
        let end = (100..whole.len())
            .find(|&e| std::str::from_utf8(&whole[..e]).is_err())
            .unwrap();
        let diagnostics = scan_one(whole[..end].to_vec()).diagnostics;
        assert_eq!(diagnostics[0].code, DiagnosticCode::InvalidUtf8);
        // a head as long as a host reads at most is a prefix: its cut character is left out
        let mut long = b"---\ndescription: ".to_vec();
        while long.len() < MAX_HEAD_BYTES {
            long.extend_from_slice("길다".as_bytes());
        }
        long.truncate(MAX_HEAD_BYTES);
        assert!(std::str::from_utf8(&long).is_err());
        let decoded = decode_head(&long, 30);
        assert!(!decoded.invalid);
        assert!(decoded.text.ends_with('다') || decoded.text.ends_with('길'));
    }

    #[test]
    fn decode_head_reads_the_lines_with_their_newlines() {
        assert_eq!(decode_head(b"a\nb\nc", 2).text, "a\nb\n");
        assert_eq!(decode_head(b"a\nb", 5).text, "a\nb");
        assert_eq!(decode_head(b"a\n", 0).text, "");
        // bytes that are not UTF-8 after the lines read are no part of them
        assert!(!decode_head(b"a\nb\n\xff", 2).invalid);
        assert!(decode_head(b"a\n\xffb\n", 2).invalid);
    }
}
