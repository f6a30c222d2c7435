//! What the scans of one opened memory read from each head, kept between turns: a head that comes
//! again byte for byte, with the same mtime and the same header limit, is not parsed again, and
//! the scan says which memories are as they were (the caller keeps the ones it already has).
//!
//! A turn where one file of 200 changed parses one head. The result is the one a scan without
//! the memo gives: `tests` below and `tests/properties.rs` compare the two.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::lexical::Document;
use crate::scan::{Diagnostic, FileHead, Memory, Verdict};
use crate::Limits;

/// The readings of the last scan, by path. Holds at most the memories that scan kept.
#[derive(Debug, Default)]
pub struct ScanMemo {
    readings: HashMap<String, Reading>,
    /// The listing of the last packed scan (or plan) through this memo, without heads, and what
    /// its paths, kinds and problems made of each entry: a turn where only times changed gives
    /// the times alone.
    listing: Option<HeldListing>,
    /// The header limit the readings were made with: another one starts over.
    max_header_lines: u32,
    /// The memories of the last scan, in its order: a selection request for that scan takes
    /// them from here instead of across the boundary again.
    last: Vec<Memory>,
    /// A listing being planned in pieces (`plan_packed_memo_piece`), until its last piece.
    pieces: Option<crate::packed::PlanInPieces>,
}

/// A listing as the memo keeps it: the entries (no heads) and their [`Verdict`]s.
#[derive(Debug)]
pub(crate) struct HeldListing {
    pub files: Vec<FileHead>,
    pub verdicts: Vec<Verdict>,
}

#[derive(Debug)]
struct Reading {
    head: Vec<u8>,
    mtime_bits: u64,
    memory: Memory,
    diagnostics: Vec<Diagnostic>,
    /// The lexical selector's terms of this head, made on its first use.
    document: Option<Rc<Document>>,
}

impl ScanMemo {
    pub fn new() -> Self {
        Self::default()
    }

    /// How many readings it holds.
    pub fn len(&self) -> usize {
        self.readings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.readings.is_empty()
    }

    /// Before a scan with `max_header_lines`: readings made with another limit are dropped.
    pub fn begin(&mut self, max_header_lines: u32) {
        if self.max_header_lines != max_header_lines {
            self.readings.clear();
            self.max_header_lines = max_header_lines;
        }
    }

    /// The memory and diagnostics read last time from exactly this head at this mtime.
    pub(crate) fn reading(
        &self,
        path: &str,
        head: &[u8],
        mtime_ms: f64,
    ) -> Option<(&Memory, &[Diagnostic])> {
        self.readings
            .get(path)
            .filter(|r| r.mtime_bits == mtime_ms.to_bits() && same_bytes(&r.head, head))
            .map(|r| (&r.memory, r.diagnostics.as_slice()))
    }

    /// The memory and diagnostics read last time from the head of `path` at this mtime, the
    /// caller knowing the head is the same bytes (it gave the very same array again).
    pub(crate) fn reading_at(&self, path: &str, mtime_ms: f64) -> Option<(&Memory, &[Diagnostic])> {
        self.readings
            .get(path)
            .filter(|r| r.mtime_bits == mtime_ms.to_bits())
            .map(|r| (&r.memory, r.diagnostics.as_slice()))
    }

    /// The head last read for `path`.
    pub fn head(&self, path: &str) -> Option<&[u8]> {
        self.readings.get(path).map(|r| r.head.as_slice())
    }

    pub(crate) fn keep(
        &mut self,
        path: &str,
        head: &[u8],
        mtime_ms: f64,
        memory: &Memory,
        diagnostics: &[Diagnostic],
    ) {
        self.readings.insert(
            path.to_owned(),
            Reading {
                head: head.to_vec(),
                mtime_bits: mtime_ms.to_bits(),
                memory: memory.clone(),
                diagnostics: diagnostics.to_vec(),
                document: None,
            },
        );
    }

    /// After a scan: only the readings of the memories it kept stay.
    pub(crate) fn retain(&mut self, kept: &HashSet<&str>) {
        self.readings.retain(|path, _| kept.contains(path.as_str()));
    }

    /// The lexical selector's terms of `memory` (one of the last scan's) and the head read for
    /// it, made once per head: kept with that head's reading when `limits` reads heads as the
    /// memo's scans did (the body is the lines under the frontmatter, within the header limit).
    pub(crate) fn document(&mut self, memory: &Memory, limits: &Limits) -> Rc<Document> {
        let keeps = limits.max_header_lines == self.max_header_lines;
        match self.readings.get_mut(&memory.path) {
            Some(reading) if keeps => reading
                .document
                .get_or_insert_with(|| {
                    Rc::new(Document::from_bytes(memory, Some(&reading.head), limits))
                })
                .clone(),
            Some(reading) => Rc::new(Document::from_bytes(memory, Some(&reading.head), limits)),
            None => Rc::new(Document::from_bytes(memory, None, limits)),
        }
    }

    /// The memories of the last scan through this memo (newest first, capped).
    pub fn last_memories(&self) -> &[Memory] {
        &self.last
    }

    pub(crate) fn set_last(&mut self, memories: &[Memory]) {
        self.last = memories.to_vec();
    }

    /// The listing kept, taken out (a call puts it back when it succeeds).
    pub(crate) fn take_listing(&mut self) -> Option<HeldListing> {
        self.listing.take()
    }

    /// The listing being planned in pieces, taken out (the next piece puts it back).
    pub(crate) fn take_pieces(&mut self) -> Option<crate::packed::PlanInPieces> {
        self.pieces.take()
    }

    pub(crate) fn keep_pieces(&mut self, pieces: crate::packed::PlanInPieces) {
        self.pieces = Some(pieces);
    }

    /// Keeps `listing` for the next call (its heads are dropped).
    pub(crate) fn keep_listing(&mut self, mut listing: HeldListing) {
        for file in &mut listing.files {
            file.head = None;
        }
        self.listing = Some(listing);
    }
}

/// `a == b`, eight bytes a step (the byte-wise `memcmp` of a wasm build is most of a turn's scan).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (xs, ys) = (a.chunks_exact(8), b.chunks_exact(8));
    let tails = xs.remainder() == ys.remainder();
    let word = |c: &[u8]| c.try_into().map(u64::from_ne_bytes).unwrap_or_default();
    tails && xs.zip(ys).all(|(x, y)| word(x) == word(y))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use crate::scan::{scan_memories, scan_with_memo, FileHead, Head};
    use crate::Limits;

    use super::ScanMemo;

    fn file(path: &str, mtime_ms: f64, head: &str) -> FileHead {
        FileHead {
            path: path.into(),
            mtime_ms,
            head: Some(Head::Bytes(head.as_bytes().to_vec())),
            kind: None,
            problem: None,
        }
    }

    fn fm(description: &str) -> String {
        format!("---\nname: N\ndescription: {description}\ntype: user\n---\nbody\n")
    }

    #[test]
    fn bytes_compare_as_equal_slices_do() {
        let base: Vec<u8> = (0..40u8).collect();
        for len in [0, 1, 7, 8, 9, 16, 23, 40] {
            let a = &base[..len];
            assert!(super::same_bytes(a, a));
            for at in 0..len {
                let mut b = a.to_vec();
                b[at] ^= 1;
                assert!(!super::same_bytes(a, &b), "len {len}, byte {at}");
            }
            assert!(!super::same_bytes(a, &base[..len.saturating_sub(1)]) || len == 0);
        }
    }

    #[test]
    fn a_second_scan_parses_only_what_changed_and_gives_the_same_result() {
        let limits = Limits {
            max_files: 2,
            ..Limits::default()
        };
        let mut files = vec![
            file("a.md", 3.0, &fm("first")),
            file("b.md", 2.0, "no frontmatter"),
            file("c.md", 1.0, &fm("dropped")),
        ];
        let mut memo = ScanMemo::new();
        let (first, _, same) = scan_with_memo(&files, &limits, &mut memo);
        assert_eq!(first, scan_memories(&files, &limits));
        assert_eq!(same, vec![None, None], "nothing remembered yet");
        assert_eq!(memo.len(), 2, "the kept memories only");

        let (again, _, same) = scan_with_memo(&files, &limits, &mut memo);
        assert_eq!(again, first, "diagnostics of remembered heads included");
        assert_eq!(
            same,
            vec![Some(0), Some(1)],
            "each with its place in the listing"
        );

        files[0] = file("a.md", 3.0, &fm("edited"));
        files[1].mtime_ms = 2.5;
        let (edited, _, same) = scan_with_memo(&files, &limits, &mut memo);
        assert_eq!(edited, scan_memories(&files, &limits));
        assert_eq!(same, vec![None, None], "a new head, a new mtime");

        let other = Limits {
            max_header_lines: 3,
            ..limits
        };
        let (cut, _, same) = scan_with_memo(&files, &other, &mut memo);
        assert_eq!(cut, scan_memories(&files, &other));
        assert_eq!(same, vec![None, None], "another header limit reads again");
    }

    /// A memory kept without a head (the caller read none) is not the one a reading made
    /// before it gives: a later scan with that head again reads it as new, not as the memory the
    /// last scan gave (the caller would keep that one, with its old time and no fields).
    #[test]
    fn a_memory_kept_without_a_head_is_not_the_last_scan_for_an_older_reading() {
        let limits = Limits::default();
        let with_head = vec![file("a.md", 1.0, &fm("first"))];
        let mut memo = ScanMemo::new();
        let (first, _, _) = scan_with_memo(&with_head, &limits, &mut memo);
        let headless = vec![FileHead {
            head: None,
            mtime_ms: 2.0,
            ..with_head[0].clone()
        }];
        let (second, _, same) = scan_with_memo(&headless, &limits, &mut memo);
        assert_eq!(second, scan_memories(&headless, &limits));
        assert_eq!(same, vec![None]);
        let (third, _, same) = scan_with_memo(&with_head, &limits, &mut memo);
        assert_eq!(third, first);
        assert_eq!(
            same,
            vec![None],
            "the last scan gave {:?}, not {:?}",
            second.memories,
            third.memories
        );
    }
}
