//! The scan's crossing form. A host's listing arrives as a few flat buffers — every path in
//! one string, the times in one array, one byte of kind an entry — and the heads read as one
//! buffer with the entries they belong to, instead of one object per file; the result leaves
//! the same way: the kept memories and the diagnostics as one JSON text, the dropped ones
//! (thousands in a large folder, each only a path and a time) as positions and times. Decoding
//! 20,000 objects one property at a time costs far more than the rules themselves; this costs a
//! copy.
//!
//! Nothing is decided here: [`crate::scan_session`] calls [`crate::scan`]'s rules.

use serde::Serialize;

use crate::codes::EntryKind;
use crate::scan::{Diagnostic, FileHead, Head, Memory, ScanResult};
use crate::Error;

/// `kinds` byte: a regular file.
pub const KIND_FILE: u8 = 0;
/// `kinds` byte: a directory.
pub const KIND_DIRECTORY: u8 = 1;
/// `kinds` byte: anything else (a device, a FIFO, a link that is not followed).
pub const KIND_OTHER: u8 = 2;
/// Added to a `kinds` byte when the entry has a problem: the next one in `problems`.
pub const KIND_HAS_PROBLEM: u8 = 4;

/// A listing packed by the host (its entries, without heads).
#[derive(Debug, Clone, Copy)]
pub struct PackedListing<'a> {
    /// Every path, each ended by NUL (which no listed path holds).
    pub paths: &'a str,
    /// Modification times, ms since the epoch, one an entry.
    pub mtimes: &'a [f64],
    /// One byte an entry: `KIND_*`, plus [`KIND_HAS_PROBLEM`].
    pub kinds: &'a [u8],
    /// The problems of the entries that have one, in order, each ended by NUL.
    pub problems: &'a str,
}

/// Heads read, packed: one buffer, and for each head its entry and where it ends.
#[derive(Debug, Clone, Copy, Default)]
pub struct PackedHeads<'a> {
    /// Every head read, one after the other.
    pub bytes: &'a [u8],
    /// The entries whose heads are in `bytes`, in the order they are there.
    pub entries: &'a [u32],
    /// Where each of those heads ends in `bytes` (head `i` is `ends[i-1]..ends[i]`).
    pub ends: &'a [u32],
}

/// A packed listing and heads, owned: what an edge copies out of the host's typed arrays (and
/// what tests build), lent out as a [`PackedListing`] and [`PackedHeads`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackedBuffers {
    pub paths: String,
    pub mtimes: Vec<f64>,
    pub kinds: Vec<u8>,
    pub problems: String,
    pub heads: Vec<u8>,
    pub head_entries: Vec<u32>,
    pub head_ends: Vec<u32>,
}

impl PackedBuffers {
    /// `files` packed as `js/scan-session.ts` packs a host's listing and heads.
    pub fn from_files(files: &[FileHead]) -> Self {
        let mut p = Self::default();
        for (i, f) in files.iter().enumerate() {
            p.paths.push_str(&f.path);
            p.paths.push('\0');
            p.mtimes.push(f.mtime_ms);
            let mut kind = match f.kind {
                None | Some(EntryKind::File) => KIND_FILE,
                Some(EntryKind::Directory) => KIND_DIRECTORY,
                Some(EntryKind::Other) => KIND_OTHER,
            };
            if let Some(problem) = &f.problem {
                kind |= KIND_HAS_PROBLEM;
                p.problems.push_str(problem);
                p.problems.push('\0');
            }
            p.kinds.push(kind);
            if let Some(head) = &f.head {
                p.heads.extend_from_slice(match head {
                    Head::Text(t) => t.as_bytes(),
                    Head::Bytes(b) => b,
                });
                p.head_entries.push(u32::try_from(i).unwrap_or(u32::MAX));
                p.head_ends
                    .push(u32::try_from(p.heads.len()).unwrap_or(u32::MAX));
            }
        }
        p
    }

    /// The entries, as [`unpack_entries`] reads them.
    pub fn listing(&self) -> PackedListing<'_> {
        PackedListing {
            paths: &self.paths,
            mtimes: &self.mtimes,
            kinds: &self.kinds,
            problems: &self.problems,
        }
    }

    /// The heads, as [`unpack_heads`] reads them.
    pub fn heads(&self) -> PackedHeads<'_> {
        PackedHeads {
            bytes: &self.heads,
            entries: &self.head_entries,
            ends: &self.head_ends,
        }
    }
}

fn mismatch(what: &str, got: usize, entries: usize) -> Error {
    Error::invalid(format!(
        "packed listing: {what} has {got} items for {entries} entries"
    ))
}

/// The listing's entries, without heads. Lengths that do not agree are `INVALID_ARGUMENT`.
pub fn unpack_entries(listing: &PackedListing<'_>) -> Result<Vec<FileHead>, Error> {
    let paths: Vec<&str> = listing.paths.split_terminator('\0').collect();
    let n = paths.len();
    if listing.mtimes.len() != n {
        return Err(mismatch("mtimes", listing.mtimes.len(), n));
    }
    if listing.kinds.len() != n {
        return Err(mismatch("kinds", listing.kinds.len(), n));
    }
    let mut problems = listing.problems.split_terminator('\0');
    let mut files = Vec::with_capacity(n);
    for ((path, &mtime_ms), &kind) in paths.iter().zip(listing.mtimes).zip(listing.kinds) {
        let problem = if kind & KIND_HAS_PROBLEM != 0 {
            let Some(problem) = problems.next() else {
                return Err(Error::invalid(
                    "packed listing: fewer problems than entries marked with one",
                ));
            };
            Some(problem.to_owned())
        } else {
            None
        };
        let kind = match kind & !KIND_HAS_PROBLEM {
            KIND_FILE => EntryKind::File,
            KIND_DIRECTORY => EntryKind::Directory,
            KIND_OTHER => EntryKind::Other,
            other => {
                return Err(Error::invalid(format!(
                    "packed listing: unknown kind {other}"
                )))
            }
        };
        files.push(FileHead {
            path: (*path).to_owned(),
            mtime_ms,
            head: None,
            kind: Some(kind),
            problem,
        });
    }
    if problems.next().is_some() {
        return Err(Error::invalid(
            "packed listing: more problems than entries marked with one",
        ));
    }
    Ok(files)
}

/// The heads, each with its entry (below `entries`, else `INVALID_ARGUMENT`), in the order given.
pub fn unpack_heads<'a>(
    heads: &PackedHeads<'a>,
    entries: usize,
) -> Result<Vec<(usize, &'a [u8])>, Error> {
    if heads.entries.len() != heads.ends.len() {
        return Err(Error::invalid(format!(
            "packed heads: {} entries but {} ends",
            heads.entries.len(),
            heads.ends.len()
        )));
    }
    let mut start = 0usize;
    let mut out = Vec::with_capacity(heads.entries.len());
    for (&entry, &end) in heads.entries.iter().zip(heads.ends) {
        let end = usize::try_from(end).unwrap_or(usize::MAX);
        let bytes = heads.bytes.get(start..end).ok_or_else(|| {
            Error::invalid(format!(
                "packed heads: head {start}..{end} is outside the {} bytes given",
                heads.bytes.len()
            ))
        })?;
        let at = usize::try_from(entry).unwrap_or(usize::MAX);
        if at >= entries {
            return Err(Error::invalid(format!(
                "packed heads: head for entry {entry} of {entries}"
            )));
        }
        out.push((at, bytes));
        start = end;
    }
    Ok(out)
}

/// The result of a packed scan.
#[derive(Debug, Clone, PartialEq)]
pub struct PackedScan {
    /// `{"memories":[…],"diagnostics":[…],"droppedFull":[[position, memory], …]}`: the
    /// [`ScanResult`] without the dropped memories that are only a path and a time;
    /// `droppedFull` holds the others (a head was given for them) with their position. A memory
    /// the session's last scan gave unchanged is `null` (see `same`).
    pub json: String,
    /// Every dropped memory's entry in the listing, in order.
    pub dropped_entries: Vec<u32>,
    /// Every dropped memory's time (`mtimeMs`, and `timeMs` when it is not in `droppedFull`).
    pub dropped_mtimes: Vec<f64>,
    /// The positions in `memories` that are `null`: the memory the last scan gave for that
    /// file, unchanged.
    pub same: Vec<u32>,
    /// Where each of those memories is in the listing.
    pub same_entries: Vec<u32>,
}

/// One kept memory of a packed scan: new, or the one the last scan gave, at this entry.
pub(crate) enum Kept<'a> {
    New(&'a Memory),
    Same(usize),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PackedJson<'a> {
    memories: &'a [Option<&'a Memory>],
    diagnostics: &'a [Diagnostic],
    dropped_full: &'a [(usize, &'a Memory)],
}

/// Packs a scan: the kept memories (new ones in the JSON, unchanged ones by entry), the
/// diagnostics, and the dropped ones — `(entry, time)` each, with the memory itself when it is
/// more than its path and time.
pub(crate) fn encode(
    kept: &[Kept<'_>],
    diagnostics: &[Diagnostic],
    dropped: &[(usize, f64, Option<&Memory>)],
) -> Result<PackedScan, Error> {
    let mut memories = Vec::with_capacity(kept.len());
    let (mut same, mut same_entries) = (Vec::new(), Vec::new());
    for (k, memory) in kept.iter().enumerate() {
        match memory {
            Kept::New(memory) => memories.push(Some(*memory)),
            Kept::Same(entry) => {
                memories.push(None);
                same.push(u32::try_from(k).unwrap_or(u32::MAX));
                same_entries.push(u32::try_from(*entry).unwrap_or(u32::MAX));
            }
        }
    }
    let dropped_full: Vec<(usize, &Memory)> = dropped
        .iter()
        .enumerate()
        .filter_map(|(position, (_, _, memory))| memory.map(|m| (position, m)))
        .collect();
    let json = serde_json::to_string(&PackedJson {
        memories: &memories,
        diagnostics,
        dropped_full: &dropped_full,
    })
    .map_err(|e| Error::invalid(format!("could not encode the scan: {e}")))?;
    Ok(PackedScan {
        json,
        dropped_entries: dropped
            .iter()
            .map(|(entry, _, _)| u32::try_from(*entry).unwrap_or(u32::MAX))
            .collect(),
        dropped_mtimes: dropped.iter().map(|(_, t, _)| *t).collect(),
        same,
        same_entries,
    })
}

/// [`PackedJson`] as read back.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct UnpackedJson {
    memories: Vec<Option<Memory>>,
    diagnostics: Vec<Diagnostic>,
    dropped_full: Vec<(usize, Memory)>,
}

impl PackedScan {
    /// The [`ScanResult`] read back as `js/scan-session.ts` reads it: `files` is the listing
    /// scanned; a memory left `null` is the one of its path in `last`, the memories of the last
    /// scan. A result that does not fit them is `INVALID_ARGUMENT`. (Tests and Rust callers.)
    pub fn unpacked(&self, files: &[FileHead], last: &[Memory]) -> Result<ScanResult, Error> {
        let bad = |what: &str| Error::invalid(format!("packed scan: {what}"));
        let parsed: UnpackedJson =
            serde_json::from_str(&self.json).map_err(|e| bad(&e.to_string()))?;
        let path_of = |entry: u32| {
            usize::try_from(entry)
                .ok()
                .and_then(|i| files.get(i))
                .map(|f| f.path.as_str())
                .ok_or_else(|| bad("an entry outside the listing"))
        };
        let mut memories = parsed.memories;
        for (&k, &entry) in self.same.iter().zip(&self.same_entries) {
            let path = path_of(entry)?;
            let memory = last
                .iter()
                .find(|m| m.path == path)
                .ok_or_else(|| bad("an unchanged memory the last scan does not have"))?;
            let slot = usize::try_from(k)
                .ok()
                .and_then(|k| memories.get_mut(k))
                .ok_or_else(|| bad("an unchanged memory outside the memories"))?;
            *slot = Some(memory.clone());
        }
        let mut dropped = Vec::with_capacity(self.dropped_entries.len());
        for (&entry, &t) in self.dropped_entries.iter().zip(&self.dropped_mtimes) {
            dropped.push(crate::scan::bare_memory(path_of(entry)?.to_owned(), t));
        }
        for (position, memory) in parsed.dropped_full {
            *dropped
                .get_mut(position)
                .ok_or_else(|| bad("a dropped memory outside the dropped"))? = memory;
        }
        Ok(ScanResult {
            memories: memories
                .into_iter()
                .map(|m| m.ok_or_else(|| bad("a null memory the session did not name")))
                .collect::<Result<_, _>>()?,
            dropped,
            diagnostics: parsed.diagnostics,
        })
    }
}
