//! The scan's crossing in one piece. A host's listing arrives as a few flat buffers — every
//! path in one string, the times in one array, one byte of kind an entry, every head in one
//! buffer — instead of one object per file, and the result leaves the same way: the kept
//! memories and the diagnostics as one JSON text, the dropped ones (thousands in a large
//! folder, each only a path and a time) as positions and times. Decoding 20,000 objects one
//! property at a time costs far more than the rules themselves; this costs a copy.
//!
//! The rules are [`crate::scan`]'s, unchanged: these functions only unpack, call them, and pack.

use serde::Serialize;

use crate::codes::EntryKind;
use crate::scan::{
    newest_first, plan_scan_order, plan_scan_order_verdicts, scan_indexed, scan_with_memo_verdicts,
    verdicts, verdicts_continued, Diagnostic, DroppedPaths, FileHead, Head, Memory, ScanResult,
    SeenPaths,
};
use crate::scan_memo::{HeldListing, ScanMemo};
use crate::{Error, Limits};

/// `kinds` byte: a regular file.
pub const KIND_FILE: u8 = 0;
/// `kinds` byte: a directory.
pub const KIND_DIRECTORY: u8 = 1;
/// `kinds` byte: anything else (a device, a FIFO, a link that is not followed).
pub const KIND_OTHER: u8 = 2;
/// Added to a `kinds` byte when the entry has a problem: the next one in `problems`.
pub const KIND_HAS_PROBLEM: u8 = 4;

/// A listing packed by the host.
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
    /// Every head read, one after the other.
    pub heads: &'a [u8],
    /// The entries whose heads are in `heads`, in the order they are there.
    pub head_entries: &'a [u32],
    /// Where each of those heads ends in `heads` (so head `i` is `head_ends[i-1]..head_ends[i]`).
    pub head_ends: &'a [u32],
}

/// A packed listing's buffers, owned: what an edge copies out of the host's typed arrays (and
/// what tests build), lent out as a [`PackedListing`].
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
    /// `files` packed as `js/packed.ts` packs a host's listing and heads (a Rust host, a test).
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

    /// The buffers as the listing the packed functions read.
    pub fn listing(&self) -> PackedListing<'_> {
        PackedListing {
            paths: &self.paths,
            mtimes: &self.mtimes,
            kinds: &self.kinds,
            problems: &self.problems,
            heads: &self.heads,
            head_entries: &self.head_entries,
            head_ends: &self.head_ends,
        }
    }
}

/// The result of [`scan_packed`].
#[derive(Debug, Clone, PartialEq)]
pub struct PackedScan {
    /// `{"memories":[…],"diagnostics":[…],"droppedFull":[[position, memory], …]}`: the
    /// [`crate::scan::ScanResult`] without the dropped memories that are only a path and a
    /// time; `droppedFull` holds the others (a head was given for them) with their position.
    pub json: String,
    /// Every dropped memory's entry in the listing, in order.
    pub dropped_entries: Vec<u32>,
    /// Every dropped memory's time (`mtimeMs`, and `timeMs` when it is not in `droppedFull`).
    pub dropped_mtimes: Vec<f64>,
    /// With a memo: the positions in `memories` that are `null`, the memory the memo's last
    /// scan gave for that file unchanged.
    pub same: Vec<u32>,
    /// Where each of those memories is in the listing.
    pub same_entries: Vec<u32>,
}

impl PackedScan {
    /// The [`ScanResult`] read back as `js/packed.ts` reads it: `files` is the listing scanned;
    /// a memory left `null` (a memo's "unchanged") is the one of its path in `last`, the
    /// memories of the memo's last scan. A result that does not fit them is `INVALID_ARGUMENT`.
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
            dropped.push(Memory {
                path: path_of(entry)?.to_owned(),
                mtime_ms: t,
                modified_ms: None,
                time_ms: Some(t),
                name: None,
                description: None,
                memory_type: None,
                metadata: None,
            });
        }
        for (position, memory) in parsed.dropped_full {
            *dropped
                .get_mut(position)
                .ok_or_else(|| bad("a dropped memory outside the dropped"))? = memory;
        }
        Ok(ScanResult {
            memories: memories
                .into_iter()
                .map(|m| m.ok_or_else(|| bad("a null memory the memo did not name")))
                .collect::<Result<_, _>>()?,
            dropped,
            diagnostics: parsed.diagnostics,
        })
    }
}

/// [`PackedJson`] as read back.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct UnpackedJson {
    memories: Vec<Option<Memory>>,
    diagnostics: Vec<Diagnostic>,
    dropped_full: Vec<(usize, Memory)>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PackedJson<'a> {
    memories: &'a [Option<&'a Memory>],
    diagnostics: &'a [Diagnostic],
    dropped_full: Vec<(usize, &'a Memory)>,
}

fn mismatch(what: &str, got: usize, entries: usize) -> Error {
    Error::invalid(format!(
        "packed listing: {what} has {got} items for {entries} entries"
    ))
}

/// The listing as the scan's [`FileHead`]s. Lengths that do not agree are `INVALID_ARGUMENT`.
pub fn unpack(listing: &PackedListing<'_>) -> Result<Vec<FileHead>, Error> {
    let mut files = unpack_entries(listing)?;
    attach_heads(&mut files, listing)?;
    Ok(files)
}

/// The listing's entries, without their heads.
fn unpack_entries(listing: &PackedListing<'_>) -> Result<Vec<FileHead>, Error> {
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

/// The listing's heads put on its `files`.
fn attach_heads(files: &mut [FileHead], listing: &PackedListing<'_>) -> Result<(), Error> {
    let n = files.len();
    if listing.head_entries.len() != listing.head_ends.len() {
        return Err(Error::invalid(format!(
            "packed listing: {} head entries but {} head ends",
            listing.head_entries.len(),
            listing.head_ends.len()
        )));
    }
    let mut start = 0usize;
    for (&entry, &end) in listing.head_entries.iter().zip(listing.head_ends) {
        let end = usize::try_from(end).unwrap_or(usize::MAX);
        let bytes = listing.heads.get(start..end).ok_or_else(|| {
            Error::invalid(format!(
                "packed listing: head {start}..{end} is outside the {} bytes given",
                listing.heads.len()
            ))
        })?;
        let file = usize::try_from(entry)
            .ok()
            .and_then(|i| files.get_mut(i))
            .ok_or_else(|| {
                Error::invalid(format!("packed listing: head for entry {entry} of {n}"))
            })?;
        file.head = Some(Head::Bytes(bytes.to_vec()));
        start = end;
    }
    Ok(())
}

/// [`crate::scan::plan_scan`] on a packed listing: the entries to read, newest first.
pub fn plan_packed(listing: &PackedListing<'_>) -> Result<Vec<u32>, Error> {
    let files = unpack(listing)?;
    Ok(plan_scan_order(&files)
        .into_iter()
        .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
        .collect())
}

/// [`crate::scan::scan_memories`] on a packed listing, packed.
pub fn scan_packed(listing: &PackedListing<'_>, limits: &Limits) -> Result<PackedScan, Error> {
    let files = unpack(listing)?;
    let (result, dropped_at) = scan_indexed(&files, limits, DroppedPaths::LeftEmpty);
    encode(result, dropped_at, &[])
}

/// [`crate::scan::plan_scan`] on a packed listing through a [`ScanMemo`]: the memo keeps the
/// listing, so the scan that follows can give its times alone (`paths_same`).
///
/// `paths_same`: the listing is the one the memo's last packed call was given, but for its
/// times (as for [`scan_packed_memo`]): only `mtimes` is read, and the order is made from the
/// verdicts the memo keeps. A memo without a listing of as many entries is `INVALID_ARGUMENT`
/// (the caller gives the whole listing).
pub fn plan_packed_memo(
    listing: &PackedListing<'_>,
    memo: &mut ScanMemo,
    paths_same: bool,
) -> Result<Vec<u32>, Error> {
    let held = if paths_same {
        held_with_times(memo, listing)?
    } else {
        let files = unpack_entries(listing)?;
        let verdicts = verdicts(&files);
        HeldListing { files, verdicts }
    };
    let order = plan_scan_order_verdicts(&held.files, &held.verdicts)
        .into_iter()
        .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
        .collect();
    memo.keep_listing(held);
    Ok(order)
}

/// A listing planned in pieces ([`plan_packed_memo_piece`]), between its first and last piece.
#[derive(Debug)]
pub(crate) struct PlanInPieces {
    /// The entries given so far and their verdicts; with `paths_same`, the whole listing the
    /// memo held, its times given so far.
    held: HeldListing,
    /// The pieces give their times alone.
    paths_same: bool,
    /// The duplicate check across the pieces (not with `paths_same`: the verdicts are known).
    seen: SeenPaths,
    /// Entries given so far.
    given: usize,
    /// Each piece's candidates, newest first, as positions in the listing.
    runs: Vec<Vec<u32>>,
}

/// [`plan_packed_memo`] for a listing too large for one call (a host lets its event loop run
/// between the calls), given in pieces, in order. Each call unpacks and judges its piece (the
/// duplicate check spans the pieces) and orders the piece's candidates; the call with `last`
/// merges them into the very order [`plan_packed_memo`] gives for the whole listing, and the
/// memo keeps the listing as it does. `first` begins a listing (one begun before is dropped);
/// a piece with no listing begun is `INVALID_ARGUMENT`, and so is a listing that fails part of
/// the way (its pieces are dropped: the caller starts again, whole).
///
/// `paths_same`, the same for every piece: the pieces give the times alone of the listing the
/// memo holds, which they must cover exactly, as for [`plan_packed_memo`].
///
/// Returns the order with `last`; before it, an empty order.
pub fn plan_packed_memo_piece(
    piece: &PackedListing<'_>,
    memo: &mut ScanMemo,
    paths_same: bool,
    first: bool,
    last: bool,
) -> Result<Vec<u32>, Error> {
    let mut state = if first {
        memo.take_pieces(); // a listing begun before and never finished
        let held = if paths_same {
            memo.take_listing()
                .ok_or_else(|| Error::invalid("pathsSame: the memo holds no listing"))?
        } else {
            HeldListing {
                files: Vec::new(),
                verdicts: Vec::new(),
            }
        };
        PlanInPieces {
            held,
            paths_same,
            seen: SeenPaths::default(),
            given: 0,
            runs: Vec::new(),
        }
    } else {
        memo.take_pieces()
            .ok_or_else(|| Error::invalid("a piece of a listing that was not begun (first)"))?
    };
    if state.paths_same != paths_same {
        return Err(Error::invalid(
            "pathsSame differs between the pieces of one listing",
        ));
    }
    let start = state.given;
    if paths_same {
        let end = start.saturating_add(piece.mtimes.len());
        let held_len = state.held.files.len();
        let files = state
            .held
            .files
            .get_mut(start..end)
            .ok_or_else(|| mismatch("mtimes", end, held_len))?;
        for (file, &mtime_ms) in files.iter_mut().zip(piece.mtimes) {
            file.mtime_ms = mtime_ms;
        }
    } else {
        let files = unpack_entries(piece)?;
        let verdicts = verdicts_continued(&files, &mut state.seen);
        state.held.files.extend(files);
        state.held.verdicts.extend(verdicts);
    }
    let end = start.saturating_add(piece.mtimes.len());
    state.given = end;
    let (files, verdicts) = (
        state.held.files.get(start..end).unwrap_or_default(),
        state.held.verdicts.get(start..end).unwrap_or_default(),
    );
    let run = plan_scan_order_verdicts(files, verdicts)
        .into_iter()
        .map(|i| u32::try_from(i.saturating_add(start)).unwrap_or(u32::MAX))
        .collect();
    state.runs.push(run);
    if !last {
        memo.keep_pieces(state);
        return Ok(Vec::new());
    }
    if state.given != state.held.files.len() {
        return Err(mismatch("mtimes", state.given, state.held.files.len()));
    }
    let order = merge_runs(&state.held.files, state.runs);
    memo.keep_listing(state.held);
    Ok(order)
}

/// Runs each ordered newest first, merged into one (two at a time, as a merge sort's passes).
fn merge_runs(files: &[FileHead], mut runs: Vec<Vec<u32>>) -> Vec<u32> {
    let at = |i: u32| usize::try_from(i).ok().and_then(|i| files.get(i));
    // `a` goes first: newer, or as new and before by path (a position outside goes last)
    let before = |a: u32, b: u32| match (at(a), at(b)) {
        (Some(a), Some(b)) => newest_first(a, b) != std::cmp::Ordering::Greater,
        (a, _) => a.is_some(),
    };
    while runs.len() > 1 {
        let mut merged = Vec::with_capacity(runs.len().div_ceil(2));
        let mut pairs = runs.into_iter();
        while let Some(a) = pairs.next() {
            let Some(b) = pairs.next() else {
                merged.push(a);
                break;
            };
            let mut out = Vec::with_capacity(a.len() + b.len());
            let (mut xs, mut ys) = (a.into_iter().peekable(), b.into_iter().peekable());
            while let (Some(&x), Some(&y)) = (xs.peek(), ys.peek()) {
                if before(x, y) {
                    out.push(x);
                    xs.next();
                } else {
                    out.push(y);
                    ys.next();
                }
            }
            out.extend(xs);
            out.extend(ys);
            merged.push(out);
        }
        runs = merged;
    }
    runs.pop().unwrap_or_default()
}

/// The listing the memo holds, with the times of `listing` (which must have as many entries).
/// Taken out of the memo: the caller keeps it back.
fn held_with_times(memo: &mut ScanMemo, listing: &PackedListing<'_>) -> Result<HeldListing, Error> {
    let mut held = memo
        .take_listing()
        .ok_or_else(|| Error::invalid("pathsSame: the memo holds no listing"))?;
    if held.files.len() != listing.mtimes.len() {
        return Err(mismatch("mtimes", listing.mtimes.len(), held.files.len()));
    }
    for (file, &mtime_ms) in held.files.iter_mut().zip(listing.mtimes) {
        file.mtime_ms = mtime_ms;
    }
    Ok(held)
}

/// [`scan_packed`] with a [`ScanMemo`]: a memory the memo's last scan gave unchanged is `null`
/// in `memories` and its position is in [`PackedScan::same`] (the caller has it already).
///
/// `head_same`: entries given without a head because it is the very head the caller gave for
/// that path at the memo's last scan; each must be one the memo holds, else `INVALID_ARGUMENT`
/// (the caller gives every head again).
///
/// `paths_same`: the listing is the one the memo's last packed call was given, but for its
/// times: its paths, kinds and problems are not read (nor checked again), only `mtimes` and the
/// heads. A memo without a listing of as many entries is `INVALID_ARGUMENT` (the caller gives
/// the whole listing).
pub fn scan_packed_memo(
    listing: &PackedListing<'_>,
    limits: &Limits,
    memo: &mut ScanMemo,
    head_same: &[u32],
    paths_same: bool,
) -> Result<PackedScan, Error> {
    let mut held = if paths_same {
        held_with_times(memo, listing)?
    } else {
        let files = unpack_entries(listing)?;
        let verdicts = verdicts(&files);
        HeldListing { files, verdicts }
    };
    let scanned = scan_held(&mut held, listing, limits, memo, head_same);
    // kept whatever the heads were: the entries are the listing given
    memo.keep_listing(held);
    scanned
}

/// [`scan_packed_memo`] on the listing `held`, with the heads of `listing`.
fn scan_held(
    held: &mut HeldListing,
    listing: &PackedListing<'_>,
    limits: &Limits,
    memo: &mut ScanMemo,
    head_same: &[u32],
) -> Result<PackedScan, Error> {
    let files = &mut held.files;
    attach_heads(files, listing)?;
    memo.begin(limits.max_header_lines);
    let mut known = vec![false; if head_same.is_empty() { 0 } else { files.len() }];
    for &entry in head_same {
        let i = usize::try_from(entry).unwrap_or(usize::MAX);
        let kept = files
            .get(i)
            .is_some_and(|f| f.head.is_none() && memo.head(&f.path).is_some());
        match known.get_mut(i) {
            Some(slot) if kept => *slot = true,
            _ => {
                return Err(Error::invalid(format!(
                    "headSame: entry {entry} has a head given, or none kept in the memo"
                )))
            }
        }
    }
    let (result, dropped_at, same) =
        scan_with_memo_verdicts(files, limits, memo, &known, &held.verdicts);
    encode(result, dropped_at, &same)
}

fn encode(
    result: ScanResult,
    dropped_at: Vec<usize>,
    same: &[Option<usize>],
) -> Result<PackedScan, Error> {
    let mut memories: Vec<Option<&Memory>> = Vec::with_capacity(result.memories.len());
    let mut same_positions = Vec::new();
    let mut same_entries = Vec::new();
    for (k, memory) in result.memories.iter().enumerate() {
        match same.get(k).copied().flatten() {
            Some(entry) => {
                memories.push(None);
                same_positions.push(u32::try_from(k).unwrap_or(u32::MAX));
                same_entries.push(u32::try_from(entry).unwrap_or(u32::MAX));
            }
            None => memories.push(Some(memory)),
        }
    }
    let mut dropped_full = Vec::new();
    let mut dropped_mtimes = Vec::with_capacity(result.dropped.len());
    for (position, memory) in result.dropped.iter().enumerate() {
        dropped_mtimes.push(memory.mtime_ms);
        if !bare(memory) {
            dropped_full.push((position, memory));
        }
    }
    let json = serde_json::to_string(&PackedJson {
        memories: &memories,
        diagnostics: &result.diagnostics,
        dropped_full,
    })
    .map_err(|e| Error::invalid(format!("could not encode the scan: {e}")))?;
    Ok(PackedScan {
        json,
        dropped_entries: dropped_at
            .into_iter()
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect(),
        dropped_mtimes,
        same: same_positions,
        same_entries,
    })
}

/// A memory that is only its path and its time (`{path, mtimeMs, timeMs}` with equal times).
fn bare(memory: &Memory) -> bool {
    memory.modified_ms.is_none()
        && memory.time_ms == Some(memory.mtime_ms)
        && memory.name.is_none()
        && memory.description.is_none()
        && memory.memory_type.is_none()
        && memory.metadata.is_none()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::scan::{plan_scan, scan_memories, ScanResult};

    fn pack(files: &[FileHead]) -> PackedBuffers {
        PackedBuffers::from_files(files)
    }

    /// The packed result unpacked as the JS side does it (no memo: nothing left `null`).
    fn rebuild(files: &[FileHead], packed: &PackedScan) -> ScanResult {
        packed.unpacked(files, &[]).unwrap()
    }

    fn file(path: &str, mtime_ms: f64, head: Option<&str>) -> FileHead {
        FileHead {
            path: path.to_owned(),
            mtime_ms,
            head: head.map(|h| Head::Bytes(h.as_bytes().to_vec())),
            kind: None,
            problem: None,
        }
    }

    fn sample() -> Vec<FileHead> {
        let mut files = vec![
            file("MEMORY.md", 9.0, None),
            file(
                "a.md",
                5.0,
                Some("---\nname: A\ndescription: first\ntype: user\n---\nbody\n"),
            ),
            file("notes.txt", 4.0, None),
            file("b.md", 7.0, Some("no frontmatter\n")),
            file(
                "team/c.md",
                6.0,
                Some("---\nname: C\nmetadata:\n  modified: 1970-01-01T00:00:00.003Z\n---\n"),
            ),
            file("old.md", 1.0, None),
            file("older.md", f64::NAN, None),
            file("a.md", 3.0, None),
            file("bad\u{ff0f}x.md", 2.0, None),
            file(
                "d.md",
                2.5,
                Some("---\nname: D\ndescription: dropped but read\n---\n"),
            ),
        ];
        files.push(FileHead {
            kind: Some(EntryKind::Directory),
            ..file("dir.md", 8.0, None)
        });
        files.push(FileHead {
            problem: Some("EACCES".to_owned()),
            ..file("locked.md", 8.5, None)
        });
        files.push(FileHead {
            kind: Some(EntryKind::Other),
            problem: Some("symlink_escape".to_owned()),
            ..file("out.md", 8.5, None)
        });
        files
    }

    #[test]
    fn the_same_plan_and_scan_as_the_unpacked_calls() {
        let files = sample();
        let packed = pack(&files);
        for max_files in [0, 1, 2, 3, 200] {
            let limits = Limits {
                max_files,
                ..Limits::default()
            };
            let order = plan_packed(&packed.listing()).unwrap();
            let paths: Vec<String> = order
                .iter()
                .map(|&i| files[i as usize].path.clone())
                .collect();
            assert_eq!(paths, plan_scan(&files, &limits).read);
            let out = scan_packed(&packed.listing(), &limits).unwrap();
            assert_eq!(
                rebuild(&files, &out),
                scan_memories(&files, &limits),
                "maxFiles {max_files}"
            );
        }
    }

    #[test]
    fn a_dropped_memory_with_fields_travels_whole() {
        let files = sample();
        let limits = Limits {
            max_files: 2,
            ..Limits::default()
        };
        let out = scan_packed(&pack(&files).listing(), &limits).unwrap();
        assert!(out.json.contains("dropped but read"), "{}", out.json);
    }

    #[test]
    fn lengths_that_do_not_agree_are_refused() {
        let files = sample();
        let packed = pack(&files);
        let short = &packed.mtimes[1..];
        let bad = [
            PackedListing {
                mtimes: short,
                ..packed.listing()
            },
            PackedListing {
                kinds: &packed.kinds[1..],
                ..packed.listing()
            },
            PackedListing {
                problems: "",
                ..packed.listing()
            },
            PackedListing {
                problems: "EACCES\0x\0y\0",
                ..packed.listing()
            },
            PackedListing {
                head_ends: &[],
                ..packed.listing()
            },
            PackedListing {
                head_entries: &[0, 1, 99, 3],
                ..packed.listing()
            },
            PackedListing {
                head_ends: &[5, 3, 4000, 2],
                ..packed.listing()
            },
            PackedListing {
                kinds: &[9; 13],
                ..packed.listing()
            },
        ];
        for listing in bad {
            let error = scan_packed(&listing, &Limits::default()).unwrap_err();
            assert_eq!(error.code().as_str(), "INVALID_ARGUMENT", "{error}");
        }
    }

    /// `listing` given by its times alone, as the JS side gives it with `pathsSame`.
    fn times_alone(listing: &PackedBuffers) -> PackedBuffers {
        PackedBuffers {
            paths: String::new(),
            kinds: Vec::new(),
            problems: String::new(),
            ..listing.clone()
        }
    }

    #[test]
    fn a_listing_given_by_its_times_alone_scans_as_the_whole_one() {
        let limits = Limits {
            max_files: 4,
            ..Limits::default()
        };
        let mut files = sample();
        // memo `a` is given the whole listing once (by the plan), then the times alone; memo `b`
        // the whole listing every turn: turn after turn, the two give the same
        let (mut a, mut b) = (ScanMemo::new(), ScanMemo::new());
        let whole = pack(&files);
        assert_eq!(
            plan_packed_memo(&whole.listing(), &mut a, false).unwrap(),
            plan_packed(&whole.listing()).unwrap()
        );
        let times = [9.5, 0.5, 6.5, f64::NAN, 1e300, 7.25, 3.0, -1.0];
        let mut seed = 7u64;
        for turn in 0..60 {
            // some times change (to equal ones, invalid ones, ones that reorder), some heads go
            for f in files.iter_mut() {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                match (seed >> 33) % 7 {
                    0 => f.mtime_ms = times[((seed >> 40) % times.len() as u64) as usize],
                    1 => f.head = None,
                    2 if f.head.is_none() => {
                        f.head = Some(Head::Bytes(
                            format!("---\ndescription: turn {turn}\n---\n").into_bytes(),
                        ))
                    }
                    _ => {}
                }
            }
            let whole = pack(&files);
            if turn % 3 == 0 {
                // a plan by the times alone orders as one of the whole listing
                assert_eq!(
                    plan_packed_memo(&times_alone(&whole).listing(), &mut a, true).unwrap(),
                    plan_packed(&whole.listing()).unwrap(),
                    "turn {turn}"
                );
            }
            let from_times =
                scan_packed_memo(&times_alone(&whole).listing(), &limits, &mut a, &[], true)
                    .unwrap();
            let from_whole =
                scan_packed_memo(&whole.listing(), &limits, &mut b, &[], false).unwrap();
            assert_eq!(from_times, from_whole, "turn {turn}");
            if turn == 0 {
                assert_eq!(rebuild(&files, &from_times), scan_memories(&files, &limits));
            }
        }
        // a listing of another length, or a memo without one, is refused; the whole listing is not
        let short = PackedBuffers {
            mtimes: vec![1.0],
            ..times_alone(&pack(&files))
        };
        let error = scan_packed_memo(&short.listing(), &limits, &mut a, &[], true).unwrap_err();
        assert_eq!(error.code().as_str(), "INVALID_ARGUMENT", "{error}");
        let error = plan_packed_memo(&short.listing(), &mut ScanMemo::new(), true).unwrap_err();
        assert_eq!(error.code().as_str(), "INVALID_ARGUMENT", "{error}");
        let error = scan_packed_memo(
            &times_alone(&pack(&files)).listing(),
            &limits,
            &mut a,
            &[],
            true,
        )
        .unwrap_err();
        assert_eq!(error.code().as_str(), "INVALID_ARGUMENT", "{error}");
        let again = scan_packed_memo(&pack(&files).listing(), &limits, &mut a, &[], false).unwrap();
        assert_eq!(
            again,
            scan_packed_memo(&pack(&files).listing(), &limits, &mut b, &[], false).unwrap()
        );
    }

    /// `files` planned in pieces of `size` entries through `memo` (`paths_same`: their times alone).
    fn plan_in_pieces(
        files: &[FileHead],
        size: usize,
        memo: &mut ScanMemo,
        paths_same: bool,
    ) -> Result<Vec<u32>, Error> {
        let chunks: Vec<&[FileHead]> = files.chunks(size.max(1)).collect();
        if chunks.is_empty() {
            return plan_packed_memo_piece(&pack(&[]).listing(), memo, paths_same, true, true);
        }
        let mut order = Vec::new();
        for (k, chunk) in chunks.iter().enumerate() {
            let mut piece = pack(chunk);
            if paths_same {
                piece = times_alone(&piece);
            }
            order = plan_packed_memo_piece(
                &piece.listing(),
                memo,
                paths_same,
                k == 0,
                k + 1 == chunks.len(),
            )?;
            if k + 1 < chunks.len() {
                assert!(order.is_empty(), "no order before the last piece");
            }
        }
        Ok(order)
    }

    /// A listing in pieces of every size plans as the whole one, duplicates across pieces
    /// included; the memo then holds it, as after a plan of the whole (the times alone follow).
    #[test]
    fn a_listing_in_pieces_plans_as_the_whole() {
        let mut files = sample();
        // a path listed again in a later piece: the first entry counts, wherever it is
        files.push(file("b.md", 99.0, None));
        files.push(file("team/c.md", 0.5, None));
        let whole = plan_packed(&pack(&files).listing()).unwrap();
        let limits = Limits::default();
        for size in 1..=files.len() + 1 {
            let mut memo = ScanMemo::new();
            assert_eq!(
                plan_in_pieces(&files, size, &mut memo, false).unwrap(),
                whole,
                "pieces of {size}"
            );
            let scanned = scan_packed_memo(
                &times_alone(&pack(&files)).listing(),
                &limits,
                &mut memo,
                &[],
                true,
            )
            .unwrap();
            assert_eq!(
                scanned,
                scan_packed(&pack(&files).listing(), &limits).unwrap(),
                "pieces of {size}"
            );
            // new times, given in pieces too, through the listing the memo holds
            let mut later = files.clone();
            for (i, f) in later.iter_mut().enumerate() {
                f.mtime_ms = (i * 7 % 5) as f64;
            }
            assert_eq!(
                plan_in_pieces(&later, size, &mut memo, true).unwrap(),
                plan_packed(&pack(&later).listing()).unwrap(),
                "times in pieces of {size}"
            );
        }
    }

    #[test]
    fn pieces_out_of_turn_are_refused_and_drop_what_was_begun() {
        let files = sample();
        let (head, tail) = files.split_at(4);
        let invalid = |e: Error| assert_eq!(e.code().as_str(), "INVALID_ARGUMENT", "{e}");
        // a piece with nothing begun
        invalid(
            plan_packed_memo_piece(
                &pack(tail).listing(),
                &mut ScanMemo::new(),
                false,
                false,
                true,
            )
            .unwrap_err(),
        );
        // times alone with no listing held
        invalid(
            plan_packed_memo_piece(
                &times_alone(&pack(head)).listing(),
                &mut ScanMemo::new(),
                true,
                true,
                false,
            )
            .unwrap_err(),
        );
        // pathsSame changing part of the way
        let mut memo = ScanMemo::new();
        plan_packed_memo_piece(&pack(head).listing(), &mut memo, false, true, false).unwrap();
        invalid(
            plan_packed_memo_piece(
                &times_alone(&pack(tail)).listing(),
                &mut memo,
                true,
                false,
                true,
            )
            .unwrap_err(),
        );
        invalid(
            plan_packed_memo_piece(&pack(tail).listing(), &mut memo, false, false, true)
                .unwrap_err(),
        );
        // times that do not cover the listing held, short or long
        let mut memo = ScanMemo::new();
        plan_packed_memo(&pack(&files).listing(), &mut memo, false).unwrap();
        invalid(
            plan_packed_memo_piece(
                &times_alone(&pack(head)).listing(),
                &mut memo,
                true,
                true,
                true,
            )
            .unwrap_err(),
        );
        let mut memo = ScanMemo::new();
        plan_packed_memo(&pack(&files).listing(), &mut memo, false).unwrap();
        let mut longer = files.clone();
        longer.push(file("z.md", 1.0, None));
        invalid(plan_in_pieces(&longer, 5, &mut memo, true).unwrap_err());
        // a first piece starts over: what was begun before is dropped
        let mut memo = ScanMemo::new();
        plan_packed_memo_piece(&pack(tail).listing(), &mut memo, false, true, false).unwrap();
        assert_eq!(
            plan_in_pieces(&files, 3, &mut memo, false).unwrap(),
            plan_packed(&pack(&files).listing()).unwrap()
        );
    }

    #[test]
    fn an_empty_listing() {
        let packed = pack(&[]);
        assert!(plan_packed(&packed.listing()).unwrap().is_empty());
        let out = scan_packed(&packed.listing(), &Limits::default()).unwrap();
        assert_eq!(
            out.json,
            r#"{"memories":[],"diagnostics":[],"droppedFull":[]}"#
        );
    }
}
