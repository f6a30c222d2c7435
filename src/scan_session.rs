//! One opened memory's scans, turn after turn: the listing, the heads and what was parsed of
//! them, kept between calls so a turn does only what changed.
//!
//! A turn is two calls. [`ScanSession::plan`] takes the listing (or, when only its times
//! changed, its times alone) and answers which entries to read, newest first.
//! [`ScanSession::scan`] takes the heads read this turn — only those: a kept memory given no
//! head is read from the head the session holds for its path — and the entries whose read
//! failed, and answers the scan, packed, with the memories it gave last time unchanged named
//! by position instead of sent again. A head that comes again byte for byte at the same mtime is
//! not parsed again. The result is always [`crate::scan::scan_memories`]'s for the same
//! listing and heads (`tests` below and `tests/properties.rs` hold them equal).
//!
//! The session also answers the two questions asked of its last scan: the selection request
//! (without the memories crossing again) and the offline selection (each memory's terms made
//! once per head).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::lexical::{lexical_select_documents, Document, LexicalSelection};
use crate::limits::to_usize;
use crate::packed::{
    encode, unpack_entries, unpack_heads, Kept, PackedHeads, PackedListing, PackedScan,
};
use crate::scan::{
    newest_first, ranked, read_memory, verdicts, Diagnostic, FileHead, Head, Memory, Verdict,
};
use crate::side_query::request::{build_selection_request, SelectionInput, SelectionRequest};
use crate::{Error, Limits};

/// What one opened memory's scans keep between turns.
#[derive(Debug, Default)]
pub struct ScanSession {
    limits: Limits,
    /// The listing of the last plan (entries without heads) and what each entry's path, kind
    /// and problem make of it.
    files: Vec<FileHead>,
    verdicts: Vec<Verdict>,
    /// The last plan's ranking — each candidate's entry and time, newest first — and the
    /// diagnostics it made: a scan without failed reads ranks as the plan did.
    ranking: Vec<(usize, f64)>,
    ranking_diagnostics: Vec<Diagnostic>,
    /// What the last scan read of each memory it kept, by path.
    readings: HashMap<String, Reading>,
    /// The memories of the last scan, in its order.
    last: Vec<Memory>,
}

#[derive(Debug)]
struct Reading {
    head: Vec<u8>,
    mtime_bits: u64,
    memory: Memory,
    diagnostics: Vec<Diagnostic>,
    /// The offline selector's terms of this head, made on first use.
    document: Option<Rc<Document>>,
}

impl ScanSession {
    /// A session scanning with `limits` (fixed for its life: other limits, another session).
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    /// Takes the listing and returns the entries to read, newest first (the candidates: reading
    /// the first `maxFiles` is enough; when one cannot be read, the next takes its place).
    ///
    /// `times_only`: `listing` gives only the times, of the very listing the last plan took
    /// (`paths`, `kinds` and `problems` are not read): one with another number of entries, or
    /// a session without a listing, is `INVALID_ARGUMENT` (the caller gives the whole listing).
    pub fn plan(
        &mut self,
        listing: &PackedListing<'_>,
        times_only: bool,
    ) -> Result<Vec<u32>, Error> {
        if times_only {
            if self.verdicts.len() != self.files.len() || self.files.len() != listing.mtimes.len() {
                return Err(Error::invalid(format!(
                    "times only: {} times for a listing of {} entries",
                    listing.mtimes.len(),
                    self.files.len()
                )));
            }
            for (file, &mtime_ms) in self.files.iter_mut().zip(listing.mtimes) {
                file.mtime_ms = mtime_ms;
            }
        } else {
            let files = unpack_entries(listing)?;
            self.verdicts = verdicts(&files);
            self.files = files;
        }
        let mut diagnostics = Vec::new();
        self.ranking = ranked(&self.files, &self.verdicts, &mut diagnostics)
            .into_iter()
            .map(|c| (c.index, c.mtime_ms))
            .collect();
        self.ranking_diagnostics = diagnostics;
        Ok(self
            .ranking
            .iter()
            .map(|(i, _)| u32::try_from(*i).unwrap_or(u32::MAX))
            .collect())
    }

    /// Scans the listing of the last plan with `heads` (those read this turn) and `failed`
    /// (entries whose read failed, with the host's problem: `ENOENT`, `EACCES`, …).
    ///
    /// A kept memory given no head is read from the head this session holds for its path;
    /// one with neither is `INVALID_ARGUMENT` (the caller starts a new session and gives every
    /// head), and so is a head or failure for an entry outside the listing. Nothing is kept of
    /// a call that fails.
    pub fn scan(
        &mut self,
        heads: &PackedHeads<'_>,
        failed: &[(usize, String)],
    ) -> Result<PackedScan, Error> {
        let given = unpack_heads(heads, self.files.len())?;
        let mut verdicts = std::borrow::Cow::Borrowed(&self.verdicts);
        for (entry, problem) in failed {
            let (Some(file), Some(verdict)) =
                (self.files.get(*entry), verdicts.to_mut().get_mut(*entry))
            else {
                return Err(Error::invalid(format!(
                    "failed read for entry {entry} of {}",
                    self.files.len()
                )));
            };
            *verdict = verdict.after_failed_read(&file.path, problem);
        }
        let mut head_of: HashMap<usize, &[u8]> = given.into_iter().collect();
        let mut diagnostics = Vec::new();
        let ranked = if failed.is_empty() {
            // as the plan ranked them (a 20,000-entry listing is not ranked twice a turn)
            diagnostics.clone_from(&self.ranking_diagnostics);
            self.ranking
                .iter()
                .filter_map(|&(index, mtime_ms)| {
                    let file = self.files.get(index)?;
                    Some(crate::scan::Candidate {
                        file,
                        index,
                        mtime_ms,
                    })
                })
                .collect()
        } else {
            ranked(&self.files, &verdicts, &mut diagnostics)
        };
        let max_files = to_usize(self.limits.max_files);
        // every kept memory has a head, given or held, before anything changes
        if let Some(missing) = ranked
            .iter()
            .take(max_files)
            .find(|c| !head_of.contains_key(&c.index) && !self.readings.contains_key(&c.file.path))
        {
            return Err(Error::invalid(format!(
                "no head given or held for entry {} ({})",
                missing.index, missing.file.path
            )));
        }
        let mut kept: Vec<(Memory, Option<usize>)> =
            Vec::with_capacity(max_files.min(ranked.len()));
        let mut readings = HashMap::with_capacity(max_files.min(ranked.len()));
        let mut dropped: Vec<(usize, f64, Option<Memory>)> = Vec::new();
        for (rank, candidate) in ranked.iter().enumerate() {
            let path = candidate.file.path.as_str();
            let given = head_of.remove(&candidate.index);
            if rank >= max_files {
                // past the cap: only its path and time, unless a head was given for it
                let memory = given.map(|head| {
                    let file = FileHead {
                        head: Some(Head::Bytes(head.to_vec())),
                        ..candidate.file.clone()
                    };
                    let candidate = crate::scan::Candidate {
                        file: &file,
                        ..*candidate
                    };
                    read_memory(&candidate, &self.limits, false, &mut diagnostics)
                });
                dropped.push((candidate.index, candidate.mtime_ms, memory));
                continue;
            }
            let held = self.readings.remove(path);
            let mtime_bits = candidate.mtime_ms.to_bits();
            let same_head = match (&held, given) {
                (Some(held), Some(given)) => held.head == given,
                (Some(_), None) => true,
                (None, _) => false,
            };
            let reading = match held {
                Some(held) if same_head && held.mtime_bits == mtime_bits => {
                    kept.push((held.memory.clone(), Some(candidate.index)));
                    held
                }
                held => {
                    let head = match given {
                        Some(given) => given.to_vec(),
                        None => held.map(|h| h.head).unwrap_or_default(),
                    };
                    let file = FileHead {
                        head: Some(Head::Bytes(head)),
                        ..candidate.file.clone()
                    };
                    let mut own = Vec::new();
                    let c = crate::scan::Candidate {
                        file: &file,
                        ..*candidate
                    };
                    let memory = read_memory(&c, &self.limits, true, &mut own);
                    kept.push((memory.clone(), None));
                    let head = match file.head {
                        Some(Head::Bytes(head)) => head,
                        _ => Vec::new(),
                    };
                    Reading {
                        head,
                        mtime_bits,
                        memory,
                        diagnostics: own,
                        document: None,
                    }
                }
            };
            diagnostics.extend_from_slice(&reading.diagnostics);
            readings.insert(path.to_owned(), reading);
        }
        kept.sort_by(|(a, _), (b, _)| newest_first(a, b));
        // the memories unchanged since the last scan are named by entry, the caller has them
        let last: HashSet<&str> = self.last.iter().map(|m| m.path.as_str()).collect();
        let packed_kept: Vec<Kept<'_>> = kept
            .iter()
            .map(|(memory, same)| match same {
                Some(entry) if last.contains(memory.path.as_str()) => Kept::Same(*entry),
                _ => Kept::New(memory),
            })
            .collect();
        let dropped_packed: Vec<(usize, f64, Option<&Memory>)> = dropped
            .iter()
            .map(|(e, t, m)| (*e, *t, m.as_ref()))
            .collect();
        let out = encode(&packed_kept, &diagnostics, &dropped_packed)?;
        self.readings = readings;
        self.last = kept.into_iter().map(|(m, _)| m).collect();
        Ok(out)
    }

    /// The memories of the last scan (newest first, capped).
    pub fn last_memories(&self) -> &[Memory] {
        &self.last
    }

    /// `buildSelectionRequest` for the last scan: `input.memories` must be empty (the
    /// session's are used), else `INVALID_ARGUMENT`.
    pub fn selection_request(&self, mut input: SelectionInput) -> Result<SelectionRequest, Error> {
        if !input.memories.is_empty() {
            return Err(Error::invalid(
                "input.memories: must be empty, the session's are used",
            ));
        }
        input.memories = self.last.clone();
        Ok(build_selection_request(&input))
    }

    /// `lexicalSelect` among `candidates` (paths of the last scan's memories; others are left
    /// out), with the heads it read: each memory's terms are made once per head and kept. With
    /// `limits` that read heads otherwise than the session's, the terms are made for this call.
    pub fn lexical_select(
        &mut self,
        query: &str,
        candidates: &[String],
        recent_tools: &[String],
        limits: &Limits,
    ) -> LexicalSelection {
        let wanted: HashSet<&str> = candidates.iter().map(String::as_str).collect();
        let keeps = limits.max_header_lines == self.limits.max_header_lines;
        let mut memories = Vec::new();
        let mut docs = Vec::new();
        for memory in self
            .last
            .iter()
            .filter(|m| wanted.contains(m.path.as_str()))
        {
            let doc = match self.readings.get_mut(&memory.path) {
                Some(reading) if keeps => reading
                    .document
                    .get_or_insert_with(|| {
                        Rc::new(Document::from_bytes(memory, Some(&reading.head), limits))
                    })
                    .clone(),
                Some(reading) => Rc::new(Document::from_bytes(memory, Some(&reading.head), limits)),
                None => Rc::new(Document::from_bytes(memory, None, limits)),
            };
            memories.push(memory);
            docs.push(doc);
        }
        lexical_select_documents(query, &memories, &docs, recent_tools, limits)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::codes::EntryKind;
    use crate::lexical::{lexical_select, LexicalInput};
    use crate::packed::PackedBuffers;
    use crate::scan::{plan_scan, scan_memories, ScanResult};

    fn file(path: &str, mtime_ms: f64, head: Option<&str>) -> FileHead {
        FileHead {
            path: path.to_owned(),
            mtime_ms,
            head: head.map(|h| Head::Bytes(h.as_bytes().to_vec())),
            kind: None,
            problem: None,
        }
    }

    fn fm(description: &str) -> String {
        format!("---\nname: N\ndescription: {description}\ntype: user\n---\nbody\n")
    }

    /// One turn: the whole listing planned, every head in `files` given; the result unpacked
    /// with the memories of the session's last scan, as `js/scan-session.ts` does.
    fn turn(
        session: &mut ScanSession,
        files: &[FileHead],
    ) -> Result<(Vec<u32>, ScanResult), Error> {
        let packed = PackedBuffers::from_files(files);
        let order = session.plan(&packed.listing(), false)?;
        let last = session.last_memories().to_vec();
        let out = session.scan(&packed.heads(), &[])?;
        Ok((order, out.unpacked(files, &last)?))
    }

    /// A listing with every kind of entry: the index, repeats, not a topic file, an unsafe
    /// name, invalid times, a folder, problems, a dropped file with a head.
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
    fn plans_and_scans_as_the_plain_calls() {
        let files = sample();
        for max_files in [0, 1, 2, 3, 200] {
            let limits = Limits {
                max_files,
                ..Limits::default()
            };
            // the headless kept ones get a head (the JS side reads every kept one)
            let mut files = files.clone();
            let order = ScanSession::new(limits)
                .plan(&PackedBuffers::from_files(&files).listing(), false)
                .unwrap();
            for &i in order.iter().take(max_files as usize) {
                files[i as usize]
                    .head
                    .get_or_insert(Head::Bytes(b"plain\n".to_vec()));
            }
            let (order, result) = turn(&mut ScanSession::new(limits), &files).unwrap();
            let read: Vec<&str> = order
                .iter()
                .map(|&i| files[i as usize].path.as_str())
                .collect();
            assert_eq!(read, plan_scan(&files, &limits).read);
            assert_eq!(
                result,
                scan_memories(&files, &limits),
                "maxFiles {max_files}"
            );
        }
    }

    #[test]
    fn a_second_turn_parses_only_what_changed_and_names_the_rest() {
        let limits = Limits {
            max_files: 2,
            ..Limits::default()
        };
        let mut files = vec![
            file("a.md", 3.0, Some(&fm("first"))),
            file("b.md", 2.0, Some("no frontmatter")),
            file("c.md", 1.0, Some(&fm("dropped"))),
        ];
        let mut session = ScanSession::new(limits);
        let (_, first) = turn(&mut session, &files).unwrap();
        assert_eq!(first, scan_memories(&files, &limits));
        assert_eq!(session.readings.len(), 2, "the kept memories only");

        // no head given again: the held ones are read, and named unchanged
        let packed = PackedBuffers::from_files(&files);
        session.plan(&packed.listing(), true).unwrap();
        let out = session.scan(&PackedHeads::default(), &[]).unwrap();
        assert_eq!(out.same, vec![0, 1]);
        assert_eq!(
            out.same_entries,
            vec![0, 1],
            "each with its place in the listing"
        );
        // (the dropped file, given no head, is only its path and time)
        let mut unread = files.clone();
        unread[2].head = None;
        assert_eq!(
            out.unpacked(&files, &first.memories).unwrap(),
            scan_memories(&unread, &limits)
        );

        // a new head, a new time: read again
        files[0] = file("a.md", 3.0, Some(&fm("edited")));
        files[1].mtime_ms = 2.5;
        let (_, edited) = turn(&mut session, &files).unwrap();
        assert_eq!(edited, scan_memories(&files, &limits));
        let out = session.scan(&PackedHeads::default(), &[]).unwrap();
        assert_eq!(out.same.len(), 2, "the same heads again are unchanged");
    }

    #[test]
    fn a_kept_memory_without_a_head_given_or_held_is_refused_and_nothing_is_kept() {
        let mut session = ScanSession::new(Limits::default());
        let files = vec![file("a.md", 2.0, Some(&fm("a"))), file("b.md", 1.0, None)];
        let error = turn(&mut session, &files).unwrap_err();
        assert_eq!(error.code().as_str(), "INVALID_ARGUMENT", "{error}");
        assert!(session.readings.is_empty() && session.last.is_empty());
        // failed, the read is a diagnostic and the file is left out
        let packed = PackedBuffers::from_files(&files);
        session.plan(&packed.listing(), false).unwrap();
        let out = session
            .scan(&packed.heads(), &[(1, "EACCES".to_owned())])
            .unwrap();
        let mut with_problem = files.clone();
        with_problem[1].problem = Some("EACCES".to_owned());
        assert_eq!(
            out.unpacked(&files, &[]).unwrap(),
            scan_memories(&with_problem, &Limits::default())
        );
        assert!(out.json.contains("unreadable"), "{}", out.json);
    }

    #[test]
    fn bad_buffers_are_refused() {
        let files = sample();
        let packed = PackedBuffers::from_files(&files);
        let mut session = ScanSession::new(Limits::default());
        let bad = [
            PackedListing {
                mtimes: &packed.mtimes[1..],
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
                kinds: &[9; 13],
                ..packed.listing()
            },
        ];
        for listing in bad {
            let error = session.plan(&listing, false).unwrap_err();
            assert_eq!(error.code().as_str(), "INVALID_ARGUMENT", "{error}");
        }
        // times alone for a listing the session does not hold
        let error = ScanSession::new(Limits::default())
            .plan(&packed.listing(), true)
            .unwrap_err();
        assert_eq!(error.code().as_str(), "INVALID_ARGUMENT", "{error}");
        session.plan(&packed.listing(), false).unwrap();
        let short = PackedListing {
            mtimes: &[1.0],
            ..packed.listing()
        };
        assert!(session.plan(&short, true).is_err());
        let bad_heads = [
            PackedHeads {
                ends: &[],
                ..packed.heads()
            },
            PackedHeads {
                entries: &[0, 1, 99, 3],
                ..packed.heads()
            },
            PackedHeads {
                ends: &[5, 3, 4000, 2],
                ..packed.heads()
            },
        ];
        for heads in bad_heads {
            let error = session.scan(&heads, &[]).unwrap_err();
            assert_eq!(error.code().as_str(), "INVALID_ARGUMENT", "{error}");
        }
        let error = session
            .scan(&packed.heads(), &[(99, "EIO".to_owned())])
            .unwrap_err();
        assert_eq!(error.code().as_str(), "INVALID_ARGUMENT", "{error}");
    }

    #[test]
    fn a_listing_given_by_its_times_alone_scans_as_the_whole_one() {
        let limits = Limits {
            max_files: 4,
            ..Limits::default()
        };
        let mut files = sample();
        let (mut a, mut b) = (ScanSession::new(limits), ScanSession::new(limits));
        a.plan(&PackedBuffers::from_files(&files).listing(), false)
            .unwrap();
        let times = [9.5, 0.5, 6.5, f64::NAN, 1e300, 7.25, 3.0, -1.0];
        let mut seed = 7u64;
        for turn_no in 0..60 {
            for f in files.iter_mut() {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                match (seed >> 33) % 7 {
                    0 => f.mtime_ms = times[((seed >> 40) % times.len() as u64) as usize],
                    2 => {
                        f.head = Some(Head::Bytes(
                            format!("---\ndescription: turn {turn_no}\n---\n").into_bytes(),
                        ))
                    }
                    _ => {}
                }
            }
            let whole = PackedBuffers::from_files(&files);
            let by_times = a.plan(&whole.listing(), true).unwrap();
            let by_whole = b.plan(&whole.listing(), false).unwrap();
            assert_eq!(by_times, by_whole, "turn {turn_no}");
            let (x, y) = (a.scan(&whole.heads(), &[]), b.scan(&whole.heads(), &[]));
            assert_eq!(x.is_ok(), y.is_ok(), "turn {turn_no}");
            if let (Ok(x), Ok(y)) = (x, y) {
                assert_eq!(x.json, y.json, "turn {turn_no}");
            }
        }
    }

    /// A head cut inside a character after the lines read is valid through the session too.
    #[test]
    fn a_head_cut_inside_a_character_is_valid() {
        let head = "---\nname: 배포 점검\ntype: project\n---\n배포".as_bytes();
        let cut = &head[..head.len() - 1];
        let files = vec![FileHead {
            head: Some(Head::Bytes(cut.to_vec())),
            ..file("project_deploy.md", 1.0, None)
        }];
        let limits = Limits {
            max_header_lines: 4,
            ..Limits::default()
        };
        let (_, result) = turn(&mut ScanSession::new(limits), &files).unwrap();
        assert_eq!(
            result
                .diagnostics
                .iter()
                .filter(|d| d.code == crate::codes::DiagnosticCode::InvalidUtf8)
                .count(),
            0
        );
    }

    fn topic(path: &str, mtime_ms: f64, name: &str, description: &str, body: &str) -> FileHead {
        let head = format!(
            "---\nname: {name}\ndescription: {description}\ntype: project\n---\n\n{body}\n"
        );
        FileHead {
            head: Some(Head::Bytes(head.into_bytes())),
            ..file(path, mtime_ms, None)
        }
    }

    /// What `lexical_select` gives for the memories a scan kept and the heads it read.
    fn plain(
        files: &[FileHead],
        memories: &[Memory],
        query: &str,
        limits: &Limits,
    ) -> LexicalSelection {
        lexical_select(&LexicalInput {
            query: query.into(),
            memories: memories.to_vec(),
            recent_tools: vec!["Bash".into()],
            heads: files
                .iter()
                .filter_map(|f| Some((f.path.clone(), f.head.clone()?)))
                .collect(),
            limits: Some(*limits),
        })
    }

    #[test]
    fn the_offline_selection_is_the_one_of_the_memories_and_heads_through_edits() {
        let limits = Limits::default();
        let mut files = vec![
            topic(
                "billing.md",
                5.0,
                "Billing deploys",
                "how the billing service is deployed",
                "Deploy with the blue-green script.\nbash deploy.sh",
            ),
            topic(
                "db.md",
                4.0,
                "Database credentials",
                "rotation of the database credentials",
                "Rotate monthly; kubernetes secrets hold them.",
            ),
            topic(
                "k8s.md",
                3.0,
                "Cluster",
                "the cluster and its rollouts",
                "Rollouts go through kubernetes with a canary.",
            ),
            topic(
                "misc.md",
                2.0,
                "Misc",
                "odds and ends",
                "Nothing about deploys here, only the billing address.",
            ),
        ];
        let queries = [
            "how do we deploy the billing service",
            "rotating the database credentials",
            "what about the kubernetes rollout",
        ];
        let mut session = ScanSession::new(limits);
        for turn_no in 0..4 {
            match turn_no {
                1 => {
                    files[2] = topic(
                        "k8s.md",
                        6.0,
                        "Cluster",
                        "the cluster and its rollouts",
                        "Nothing here now.",
                    )
                }
                2 => {
                    files[0] = topic(
                        "billing.md",
                        7.0,
                        "Billing",
                        "invoices and credits",
                        "No deploys.",
                    );
                    files.push(topic(
                        "deploy.md",
                        8.0,
                        "Deploys",
                        "how every service is deployed",
                        "billing too",
                    ));
                }
                _ => {}
            }
            let (_, scan) = turn(&mut session, &files).unwrap();
            let candidates: Vec<String> = scan.memories.iter().map(|m| m.path.clone()).collect();
            for query in queries {
                let got = session.lexical_select(query, &candidates, &["Bash".into()], &limits);
                assert_eq!(
                    got,
                    plain(&files, &scan.memories, query, &limits),
                    "turn {turn_no}, {query:?}"
                );
            }
            let some: Vec<Memory> = scan.memories.iter().skip(1).cloned().collect();
            let paths: Vec<String> = some.iter().map(|m| m.path.clone()).collect();
            let got = session.lexical_select(queries[0], &paths, &["Bash".into()], &limits);
            assert_eq!(
                got,
                plain(&files, &some, queries[0], &limits),
                "turn {turn_no}, candidates"
            );
        }
        // another header limit than the session's: the body is read with it, not the kept terms
        let short = Limits {
            max_header_lines: 6,
            ..limits
        };
        let candidates: Vec<String> = session
            .last_memories()
            .iter()
            .map(|m| m.path.clone())
            .collect();
        let memories = session.last_memories().to_vec();
        let got = session.lexical_select("monthly kubernetes secrets", &candidates, &[], &short);
        let want = plain(&files, &memories, "monthly kubernetes secrets", &short);
        let full = session.lexical_select("monthly kubernetes secrets", &candidates, &[], &limits);
        assert_eq!(got, LexicalSelection { ..want });
        assert_ne!(full.scores, got.scores, "the body mattered");
    }

    #[test]
    fn a_kept_document_is_dropped_with_its_head() {
        let limits = Limits::default();
        let mut session = ScanSession::new(limits);
        turn(
            &mut session,
            &[topic("a.md", 1.0, "A", "about apples", "apples and pears")],
        )
        .unwrap();
        let _ = session.lexical_select("apples", &["a.md".into()], &[], &limits);
        let first = session.readings["a.md"].document.clone().unwrap();
        let _ = session.lexical_select("apples", &["a.md".into()], &[], &limits);
        assert!(
            Rc::ptr_eq(&first, session.readings["a.md"].document.as_ref().unwrap()),
            "kept"
        );
        turn(
            &mut session,
            &[topic("a.md", 2.0, "A", "about apples", "plums only")],
        )
        .unwrap();
        let _ = session.lexical_select("apples", &["a.md".into()], &[], &limits);
        let second = session.readings["a.md"].document.clone().unwrap();
        assert!(!Rc::ptr_eq(&first, &second));
        assert!(second.body.contains("plum") && !second.body.contains("pear"));
    }

    #[test]
    fn the_selection_request_uses_the_last_scan() {
        let limits = Limits::default();
        let mut session = ScanSession::new(limits);
        let (_, scan) = turn(
            &mut session,
            &[topic("a.md", 1.0, "A", "about apples", "x")],
        )
        .unwrap();
        let input = |memories: Vec<Memory>| SelectionInput {
            query: "apples".into(),
            memories,
            already_surfaced: vec![],
            recent_tools: vec![],
            surfaced_utf16: 0.0,
            limits: None,
        };
        assert_eq!(
            session.selection_request(input(vec![])).unwrap(),
            build_selection_request(&input(scan.memories.clone()))
        );
        assert!(session.selection_request(input(scan.memories)).is_err());
    }
}
