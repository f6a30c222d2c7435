//! The offline selector. Without a model it cannot understand a query, so it is built to stay
//! silent unless a memory clearly matches: a fallback that injects an unrelated memory costs
//! tokens and misleads. General rules, none tuned to a folder:
//!
//! - **Terms.** Words of spaced scripts (identifiers split: `camelCase`, `snake_case`, file
//!   names), lower-cased, stop words dropped, English suffixes stemmed; CJK text as character
//!   pairs. A query word that shares a long stem with a memory's word (`rotating`,
//!   `rotation`) counts for part of its weight.
//! - **What is compared.** What the side query sees — name, file name, description — and,
//!   for half the weight, the body lines the scan read (the side query never sees them).
//! - **Weights that scale with the folder.** A term weighs its inverse document frequency
//!   divided by the largest this folder allows: a word found in one memory weighs 1 whether
//!   the folder has 6 files or 600, a word found everywhere almost 0, and a query word found
//!   nowhere 1 (it is what the query is about, and nothing here is).
//! - **A clear match, or nothing.** A memory's evidence is the weight of the query terms it
//!   matches. Something is chosen only when the best memory's evidence is more than one
//!   specific word's (1.5) and covers a quarter of the query's weight; then the memories with
//!   at least half of its evidence come along (at most `maxSelected`). A shared common word
//!   is not a match, and a query mostly about things no memory mentions gets nothing.
//! - **Tools in use.** A memory about a tool the agent just used is either a usage reference
//!   (a `reference` memory not worded as a warning) or a warning (a `feedback` memory, or one
//!   worded as a warning). References are left out and warnings always come, as the side-query
//!   prompt asks.
//! - **Superseded.** Of two memories that say almost the same thing, only the newer is kept.
//!
//! Deterministic, no model, no network: used when no model is configured and, when asked,
//! when the model call fails. `node bench/selection-eval.mjs` measures it.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

use std::rc::Rc;

use crate::limits::{to_usize, Limits};
use crate::scan::Memory;
use crate::scan_memo::ScanMemo;
use crate::write::similar::WordSet;

/// The best match must carry at least this much evidence — more than one term found in no
/// other memory — or nothing is chosen…
const MIN_EVIDENCE: f64 = 1.5;
/// …and cover at least this share of the query's weight.
const MIN_COVERAGE: f64 = 0.25;
/// Then every memory with at least this share of the best one's evidence comes with it.
const MIN_SHARE_OF_BEST: f64 = 0.5;
/// A query word matched only through a shared stem counts this share of its weight.
const STEM_MATCH: f64 = 0.6;
/// A query word found only in a memory's body (not its name, file name or description) counts
/// this share of its weight: the side query does not see bodies at all.
const BODY_MATCH: f64 = 0.5;
/// Shortest shared stem for a partial match, in characters.
const MIN_SHARED_STEM: usize = 5;
/// Two memories whose names and descriptions overlap this much (word sets, Jaccard) say
/// almost the same thing: only the newer is kept.
const SUPERSEDED: f64 = 0.5;
/// A newer memory that records a change (CHANGE_WORDS) replaces an older one when their names
/// and descriptions share specific words (each weighing at least SHARED_SUBJECT_WEIGHT) worth
/// this much together: the same subject.
const SHARED_SUBJECT: f64 = 2.0;
const SHARED_SUBJECT_WEIGHT: f64 = 0.5;

/// Words too common to tell memories apart, sorted (byte order, no repeats) for a binary search:
/// a term is looked up once per word of every body read.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "each",
    "every",
    "feedback",
    "for",
    "from",
    "get",
    "going",
    "got",
    "had",
    "has",
    "have",
    "help",
    "here",
    "how",
    "i",
    "i'm",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "know",
    "let",
    "like",
    "look",
    "make",
    "md",
    "me",
    "more",
    "most",
    "my",
    "need",
    "new",
    "no",
    "not",
    "now",
    "of",
    "on",
    "one",
    "or",
    "other",
    "our",
    "out",
    "please",
    "project",
    "reference",
    "same",
    "see",
    "should",
    "so",
    "some",
    "still",
    "such",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "thing",
    "things",
    "think",
    "this",
    "to",
    "today",
    "too",
    "up",
    "us",
    "use",
    "user",
    "very",
    "want",
    "was",
    "way",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "will",
    "with",
    "would",
    "yesterday",
    "yet",
    "you",
    "your",
];
/// Words that say a memory warns rather than explains (stemmed as terms are).
/// Words that say a memory warns rather than explains, looked for in its name and description
/// (lower-case word prefixes). Topic words such as "bug" or "crash" are not among them: a
/// crash reporter's usage guide is full of them.
const WARNING_WORDS: &[&str] = &[
    "warn", "gotcha", "pitfall", "careful", "caveat", "avoid", "never", "don't", "dont", "do not",
    "beware", "trap", "mistake", "wrong", "broken", "fails", "silently", "limit",
];
/// Words that say a memory records a change: it supersedes an older memory on its subject.
const CHANGE_WORDS: &[&str] = &[
    "since",
    "now ",
    "moved",
    "replac",
    "no longer",
    "removed",
    "dropp",
    "instead",
    "switched",
    "migrated",
    "deprecat",
    "supersed",
    "updated",
    "changed",
    "retired",
    "as of",
    "starting",
    "from now",
];

fn says_any(memory: &Memory, words: &[&str]) -> bool {
    let text = format!(
        " {} {} ",
        memory.name.as_deref().unwrap_or(""),
        memory.description.as_deref().unwrap_or("")
    )
    .to_lowercase();
    words.iter().any(|w| text.contains(&format!(" {w}")))
}

/// Input of [`lexical_select`].
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct LexicalInput {
    pub query: String,
    /// The candidates (the scan's memories minus those already surfaced).
    pub memories: Vec<Memory>,
    /// Tools the agent used in the previous turn: their usage references are left out, their
    /// warnings count as matching.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub recent_tools: Vec<String>,
    /// The first lines of each memory, as the scan read them (by path): the body under the
    /// frontmatter counts as weaker evidence than the name and description. Optional.
    #[serde(default)]
    #[cfg_attr(
        test,
        ts(
            as = "Option<std::collections::BTreeMap<String, crate::scan::Head>>",
            optional
        )
    )]
    pub heads: std::collections::BTreeMap<String, crate::scan::Head>,
    #[serde(default)]
    #[cfg_attr(test, ts(type = "Partial<Limits> | null", optional))]
    pub limits: Option<Limits>,
}

/// How a memory matched the query, for inspection (why it was, or was not, chosen).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Scored {
    pub path: String,
    /// The summed weight of the query terms it matched (a term found in one memory weighs 1).
    pub evidence: f64,
    /// `evidence` as a share of the query's whole weight.
    pub coverage: f64,
    /// The query's terms it matched: `term` in the name, file name or description, `term*` in
    /// the body, `~` added when through a shared stem.
    pub matched: Vec<String>,
    /// It warns about a tool the agent is using.
    pub tool_warning: bool,
}

/// One memory's match, while deciding.
struct Found {
    index: usize,
    evidence: f64,
    matched: Vec<String>,
    tool_warning: bool,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The lexical selection: `selected` best first, and how every memory that matched did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LexicalSelection {
    pub selected: Vec<String>,
    pub scores: Vec<Scored>,
    /// The query's terms and their weights in this folder (a term in no memory weighs 1).
    #[serde(default)]
    pub query_terms: Vec<QueryTerm>,
}

/// One term of the query, for inspection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct QueryTerm {
    pub term: String,
    pub weight: f64,
}

/// Terms of a text: [`crate::words::terms`] without stop words and single letters, stemmed.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, &mut |t| out.push(t.to_owned()));
    out
}

/// [`tokens`] one at a time, each lent for the call.
fn for_each_token(text: &str, f: &mut dyn FnMut(&str)) {
    crate::words::for_each_term(text, &mut |w| {
        let keep = if w.is_ascii() {
            w.len() >= 2 && !is_stop_word(w)
        } else {
            w.chars().any(crate::words::is_cjk) || (w.chars().count() >= 2 && !is_stop_word(w))
        };
        if keep {
            f(&stem(w));
        }
    });
}

/// A word of at most 8 bytes as one number: big-endian, zero-padded, so the numbers sort as the
/// words do (a shorter word before the longer ones it begins).
const fn packed_word(bytes: &[u8]) -> u64 {
    let mut word = 0u64;
    let mut i = 0;
    #[allow(clippy::indexing_slicing)]
    // `i < bytes.len()`; and a const: it could only fail to compile
    while i < 8 {
        word = (word << 8) | if i < bytes.len() { bytes[i] as u64 } else { 0 };
        i += 1;
    }
    word
}

const fn short_stop_words() -> usize {
    let mut n = 0;
    let mut i = 0;
    #[allow(clippy::indexing_slicing)] // `i < STOP_WORDS.len()`, in a const
    while i < STOP_WORDS.len() {
        if STOP_WORDS[i].len() <= 8 {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The stop words of at most 8 bytes, packed ([`packed_word`]) and in order: a look-up compares
/// numbers, not strings (the string search was ~40 % of making a body's terms).
const PACKED_STOP_WORDS: [u64; short_stop_words()] = {
    let mut out = [0u64; short_stop_words()];
    let (mut i, mut j) = (0, 0);
    #[allow(clippy::indexing_slicing)] // bounded by the counts above, in a const
    while i < STOP_WORDS.len() {
        if STOP_WORDS[i].len() <= 8 {
            out[j] = packed_word(STOP_WORDS[i].as_bytes());
            j += 1;
        }
        i += 1;
    }
    out
};

/// For each first letter `a`–`z`, the lengths of the stop words that begin with it (bit `n` set
/// for a word of `n` bytes): most words of a body are told apart by these two bytes alone.
const STOP_WORD_LENGTHS: [u32; 26] = {
    let mut out = [0u32; 26];
    let mut i = 0;
    #[allow(clippy::indexing_slicing)] // bounded: `i < STOP_WORDS.len()`, a letter's index < 26
    while i < STOP_WORDS.len() {
        let word = STOP_WORDS[i].as_bytes();
        assert!(!word.is_empty() && word[0].is_ascii_lowercase() && word.len() < 32);
        out[(word[0] - b'a') as usize] |= 1 << word.len();
        i += 1;
    }
    out
};

fn is_stop_word(word: &str) -> bool {
    let bytes = word.as_bytes();
    if let Some(&first) = bytes.first() {
        let lengths = match first {
            b'a'..=b'z' => STOP_WORD_LENGTHS
                .get(usize::from(first - b'a'))
                .copied()
                .unwrap_or(0),
            _ => 0, // every stop word begins with a lower-case letter (checked when compiled)
        };
        if bytes.len() >= 32 || lengths & (1 << bytes.len()) == 0 {
            return false;
        }
    }
    // a NUL byte would pack like the end of a shorter word (terms have none; this stays exact)
    if bytes.is_empty() || bytes.len() > 8 || bytes.contains(&0) {
        return STOP_WORDS.binary_search(&word).is_ok();
    }
    PACKED_STOP_WORDS.binary_search(&packed_word(bytes)).is_ok()
}

/// Strips a few English suffixes so `deploys`, `deploying` and `deployed` meet `deploy`.
fn stem(word: &str) -> std::borrow::Cow<'_, str> {
    if !word.is_ascii() {
        return word.into();
    }
    for suffix in ["ing", "ies", "es", "ed", "ly", "s"] {
        if let Some(base) = word.strip_suffix(suffix) {
            if base.len() >= 3 && !(suffix == "s" && base.ends_with('s')) {
                return if suffix == "ies" {
                    format!("{base}y").into()
                } else {
                    base.into()
                };
            }
        }
    }
    word.into()
}

/// A fast hash for the term sets (the multiply-rotate hash of rustc's own tables): every word
/// of every body read is looked up, and std's SipHash was a third of the selection. The keys
/// are the folder's own words; nothing here depends on the order of a set.
#[derive(Default, Clone, Copy)]
struct TermHasher(u64);

impl Hasher for TermHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let word = chunk
                .iter()
                .rev()
                .fold(0u64, |w, &b| (w << 8) | u64::from(b));
            self.add(word);
        }
    }

    fn finish(&self) -> u64 {
        // the low bits of a product depend only on the inputs' low bits, and hashbrown takes its
        // bucket from the low bits: words sharing a short prefix would share a few buckets
        // (a crafted body made a selection quadratic). The high bits are folded down.
        self.0.rotate_left(26)
    }
}

impl TermHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Terms = HashSet<String, BuildHasherDefault<TermHasher>>;

/// A memory's terms: what the side query sees (name, file name, description), and the body
/// lines the scan read, which count for less.
#[derive(Debug)]
pub(crate) struct Document {
    title: Terms,
    body: Terms,
}

impl Document {
    fn new(memory: &Memory, head: Option<&crate::scan::Head>, limits: &Limits) -> Self {
        let text = head.map(|head| match head {
            crate::scan::Head::Text(t) => std::borrow::Cow::Borrowed(t.as_str()),
            crate::scan::Head::Bytes(b) => String::from_utf8_lossy(b),
        });
        Self::of(memory, text.as_deref(), limits)
    }

    /// The terms of `memory` with its head's bytes, as read (a head need not be UTF-8).
    pub(crate) fn from_bytes(memory: &Memory, head: Option<&[u8]>, limits: &Limits) -> Self {
        let text = head.map(String::from_utf8_lossy);
        Self::of(memory, text.as_deref(), limits)
    }

    fn of(memory: &Memory, head: Option<&str>, limits: &Limits) -> Self {
        let mut title = Terms::default();
        for_each_token(&title_text(memory), &mut |t| {
            if !title.contains(t) {
                title.insert(t.to_owned());
            }
        });
        let mut body = Terms::default();
        if let Some(head) = head {
            // one look-up a word; the title's terms taken out once, after
            for_each_token(&body_text(head, limits), &mut |t| {
                if !body.contains(t) {
                    body.insert(t.to_owned());
                }
            });
            body.retain(|t| !title.contains(t));
        }
        Self { title, body }
    }

    /// How much of a query term's weight this memory matches — all of it in the title, less in
    /// the body, less again through a shared stem — and how, for inspection: `term` (title),
    /// `term*` (body), `term~` / `term*~` (through a shared stem).
    fn strength(&self, term: &str) -> Option<(f64, String)> {
        if self.title.contains(term) {
            Some((1.0, term.to_owned()))
        } else if self.body.contains(term) {
            Some((BODY_MATCH, format!("{term}*")))
        } else if self.title.iter().any(|d| shares_stem(term, d)) {
            Some((STEM_MATCH, format!("{term}~")))
        } else if self.body.iter().any(|d| shares_stem(term, d)) {
            Some((STEM_MATCH * BODY_MATCH, format!("{term}*~")))
        } else {
            None
        }
    }
}

/// The lines under the frontmatter among those read (all of them when there is none).
fn body_text(text: &str, limits: &Limits) -> String {
    let text = crate::text::normalize_text(text);
    let max = to_usize(limits.max_header_lines);
    let skip = match crate::frontmatter::parse_header(crate::text::first_lines(&text, max), max) {
        crate::frontmatter::Header::Parsed(f) => f.close_line,
        crate::frontmatter::Header::Missing => 0,
        _ => max,
    };
    text.split('\n')
        .take(max)
        .skip(skip)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the side query sees of a memory: name, file name (path), description.
fn title_text(memory: &Memory) -> String {
    let mut text = String::new();
    for part in [
        memory.name.as_deref(),
        memory.description.as_deref(),
        Some(memory.path.as_str()),
    ]
    .into_iter()
    .flatten()
    {
        text.push_str(part);
        text.push(' ');
    }
    text
}

/// Long ASCII terms sharing at least [`MIN_SHARED_STEM`] leading characters.
fn shares_stem(a: &str, b: &str) -> bool {
    a.is_ascii()
        && b.is_ascii()
        && a.len() >= MIN_SHARED_STEM
        && b.len() >= MIN_SHARED_STEM
        && a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count() >= MIN_SHARED_STEM
}

/// Scores every candidate and keeps those that clearly match, at most `maxSelected`, best
/// first (ties by manifest order).
pub fn lexical_select(input: &LexicalInput) -> LexicalSelection {
    let limits = input.limits.unwrap_or_default();
    let docs: Vec<Rc<Document>> = input
        .memories
        .iter()
        .map(|m| Rc::new(Document::new(m, input.heads.get(&m.path), &limits)))
        .collect();
    let memories: Vec<&Memory> = input.memories.iter().collect();
    select(&input.query, &memories, &docs, &input.recent_tools, &limits)
}

/// [`lexical_select`] among the memories of the last scan through `memo`, with the heads it
/// read: each memory's terms are made once per head and kept with the memo, so a turn where
/// nothing changed reads no body again (at 200 files, ~15 ms a turn in wasm became ~1). The
/// selection is the one [`lexical_select`] gives for those memories and heads.
/// `candidates`: the paths to choose among (a selection request's), found among the memories of
/// the memo's last scan; a path that is not there is left out.
pub fn lexical_select_memo(
    query: &str,
    candidates: &[String],
    recent_tools: &[String],
    limits: &Limits,
    memo: &mut ScanMemo,
) -> LexicalSelection {
    let wanted: HashSet<&str> = candidates.iter().map(String::as_str).collect();
    let memories: Vec<Memory> = memo
        .last_memories()
        .iter()
        .filter(|m| wanted.contains(m.path.as_str()))
        .cloned()
        .collect();
    let docs: Vec<Rc<Document>> = memories.iter().map(|m| memo.document(m, limits)).collect();
    let memories: Vec<&Memory> = memories.iter().collect();
    select(query, &memories, &docs, recent_tools, limits)
}

/// The selection itself, over memories and their documents (same order). Not inlined: both
/// callers share one copy in the wasm.
#[inline(never)]
fn select(
    query: &str,
    memories: &[&Memory],
    docs: &[Rc<Document>],
    recent_tools: &[String],
    limits: &Limits,
) -> LexicalSelection {
    let count = docs.len() as f64;
    let mut frequency: HashMap<&str, usize, BuildHasherDefault<TermHasher>> = HashMap::default();
    for doc in docs {
        for term in doc.title.iter().chain(&doc.body) {
            *frequency.entry(term.as_str()).or_default() += 1;
        }
    }
    // inverse document frequency, as a share of the largest this folder allows
    let idf = |df: f64| (1.0 + (count - df + 0.5) / (df + 0.5)).ln();
    let top = idf(1.0).max(f64::MIN_POSITIVE);
    let weight = |term: &str| match frequency.get(term) {
        None => 1.0,
        Some(&df) => (idf(df as f64) / top).clamp(0.0, 1.0),
    };
    let mut query: Vec<String> = tokens(query);
    query.sort();
    query.dedup();
    let total: f64 = query.iter().map(|t| weight(t)).sum();

    let tools: Vec<Terms> = recent_tools
        .iter()
        .map(|t| {
            tokens(t)
                .into_iter()
                .filter(|w| w != "mcp")
                .collect::<Terms>()
        })
        .filter(|t| !t.is_empty())
        .collect();

    // each memory's evidence: the weight of the query terms it matches
    let mut found: Vec<Found> = Vec::new();
    for (i, (doc, memory)) in docs.iter().zip(memories).enumerate() {
        let about_tool = tools
            .iter()
            .any(|t| t.iter().all(|w| doc.title.contains(w)));
        let kind = memory.memory_type;
        // whether it warns is read only for a memory about a tool in use
        let warns = about_tool
            && (kind == Some(crate::frontmatter::MemoryType::Feedback)
                || says_any(memory, WARNING_WORDS));
        if about_tool && kind == Some(crate::frontmatter::MemoryType::Reference) && !warns {
            continue; // a usage reference for a tool in use: the agent has the tool's own docs
        }
        let about_tool = warns;
        let mut evidence = 0.0;
        let mut matched = Vec::new();
        for term in &query {
            if let Some((strength, how)) = doc.strength(term) {
                evidence += strength * weight(term);
                matched.push(how);
            }
        }
        if !matched.is_empty() || about_tool {
            found.push(Found {
                index: i,
                evidence,
                matched,
                tool_warning: about_tool,
            });
        }
    }
    found.sort_by(|a, b| {
        b.evidence
            .total_cmp(&a.evidence)
            .then(a.index.cmp(&b.index))
    });
    // the query is about something here only when its best match is clear; then the memories
    // that share a good part of that evidence come with it
    let best = found.first().map_or(0.0, |f| f.evidence);
    let clear = best >= MIN_EVIDENCE && total > 0.0 && best / total >= MIN_COVERAGE;
    let chosen: Vec<usize> = found
        .iter()
        .filter(|f| f.tool_warning)
        .chain(
            found
                .iter()
                .filter(|f| clear && !f.tool_warning && f.evidence >= best * MIN_SHARE_OF_BEST),
        )
        .map(|f| f.index)
        .collect();
    let selected = newest_of_near_duplicates(&chosen, memories, docs, &weight)
        .into_iter()
        .take(to_usize(limits.max_selected))
        .filter_map(|i| memories.get(i).map(|m| m.path.clone()))
        .collect();
    let path = |i: usize| memories.get(i).map(|m| m.path.clone()).unwrap_or_default();
    LexicalSelection {
        query_terms: query
            .iter()
            .map(|t| QueryTerm {
                term: t.clone(),
                weight: round3(weight(t)),
            })
            .collect(),
        selected,
        scores: found
            .into_iter()
            .map(|f| Scored {
                path: path(f.index),
                evidence: round3(f.evidence),
                coverage: if total > 0.0 {
                    round3(f.evidence / total)
                } else {
                    0.0
                },
                matched: f.matched,
                tool_warning: f.tool_warning,
            })
            .collect(),
    }
}

/// `chosen` (best first) with each memory replaced by the newest memory of the folder that
/// says almost the same thing, without repeats.
fn newest_of_near_duplicates(
    chosen: &[usize],
    memories: &[&Memory],
    docs: &[Rc<Document>],
    weight: &dyn Fn(&str) -> f64,
) -> Vec<usize> {
    if chosen.is_empty() {
        return Vec::new(); // the word sets below are for comparing what was chosen
    }
    let sets: Vec<WordSet> = memories
        .iter()
        .map(|m| {
            WordSet::of(&format!(
                "{} {}",
                m.name.as_deref().unwrap_or(""),
                m.description.as_deref().unwrap_or("")
            ))
        })
        .collect();
    let changes: Vec<bool> = memories.iter().map(|m| says_any(m, CHANGE_WORDS)).collect();
    // a newer memory that says something changed, and shares the older one's specific
    // words, replaces it
    let replaces = |newer: usize, older: usize| {
        let (Some(a), Some(b)) = (docs.get(newer), docs.get(older)) else {
            return false;
        };
        let shared: f64 = a
            .title
            .intersection(&b.title)
            .map(|t| weight(t))
            .filter(|w| *w >= SHARED_SUBJECT_WEIGHT)
            .sum();
        changes.get(newer).copied().unwrap_or(false) && shared >= SHARED_SUBJECT
    };
    let mut out: Vec<usize> = Vec::new();
    for &i in chosen {
        let Some(mine) = sets.get(i) else {
            continue;
        };
        let time = |j: usize| memories.get(j).map_or(f64::MIN, |m| m.time());
        let newest = sets
            .iter()
            .enumerate()
            .filter(|(j, other)| {
                *j == i
                    || other.similarity(mine) >= SUPERSEDED
                    || (time(*j) > time(i) && replaces(*j, i))
            })
            .filter_map(|(j, _)| memories.get(j).map(|m| (j, m.time())))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map_or(i, |(j, _)| j);
        if !out.contains(&newest) {
            out.push(newest);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_the_binary_search() {
        assert!(
            STOP_WORDS.windows(2).all(|w| w.first() < w.last()),
            "STOP_WORDS must be in byte order without repeats"
        );
        for word in STOP_WORDS {
            assert!(is_stop_word(word), "{word}");
        }
        assert!(!is_stop_word("deploy") && !is_stop_word(""));
        // the packed look-up: prefixes, extensions and NUL-padded forms of stop words are not
        for word in STOP_WORDS {
            let longer = format!("{word}x");
            assert!(
                !is_stop_word(&longer) || STOP_WORDS.contains(&longer.as_str()),
                "{longer}"
            );
            assert!(!is_stop_word(&format!("{word}\0")), "{word} with a NUL");
            let shorter = &word[..word.len() - 1];
            assert_eq!(
                is_stop_word(shorter),
                STOP_WORDS.contains(&shorter),
                "{shorter:?}"
            );
        }
        assert_eq!(
            PACKED_STOP_WORDS.len() + 2,
            STOP_WORDS.len(),
            "all but the two 9-byte words"
        );
        assert_eq!(
            tokens("What should the user know about Deploying?"),
            ["deploy"]
        );
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod memo_tests {
    use super::*;
    use crate::scan::{scan_with_memo, FileHead, Head};
    use crate::scan_memo::ScanMemo;

    fn file(path: &str, mtime_ms: f64, name: &str, description: &str, body: &str) -> FileHead {
        let head = format!(
            "---\nname: {name}\ndescription: {description}\ntype: project\n---\n\n{body}\n"
        );
        FileHead {
            path: path.into(),
            mtime_ms,
            head: Some(Head::Bytes(head.into_bytes())),
            kind: None,
            problem: None,
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

    const QUERIES: [&str; 3] = [
        "how do we deploy the billing service",
        "rotating the database credentials",
        "what about the kubernetes rollout",
    ];

    #[test]
    fn the_memo_selects_as_the_memories_and_heads_crossing_would_through_edits() {
        let limits = Limits::default();
        let mut files = vec![
            file(
                "billing.md",
                5.0,
                "Billing deploys",
                "how the billing service is deployed",
                "Deploy with the blue-green script.\nbash deploy.sh",
            ),
            file(
                "db.md",
                4.0,
                "Database credentials",
                "rotation of the database credentials",
                "Rotate monthly; kubernetes secrets hold them.",
            ),
            file(
                "k8s.md",
                3.0,
                "Cluster",
                "the cluster and its rollouts",
                "Rollouts go through kubernetes with a canary.",
            ),
            file(
                "misc.md",
                2.0,
                "Misc",
                "odds and ends",
                "Nothing about deploys here, only the billing address.",
            ),
        ];
        let mut memo = ScanMemo::new();
        for turn in 0..4 {
            match turn {
                // the body of one memory changes (its head and mtime): its terms are made again
                1 => {
                    files[2] = file(
                        "k8s.md",
                        6.0,
                        "Cluster",
                        "the cluster and its rollouts",
                        "Nothing here now.",
                    )
                }
                // a memory's description changes, and a new one comes
                2 => {
                    files[0] = file(
                        "billing.md",
                        7.0,
                        "Billing",
                        "invoices and credits",
                        "No deploys.",
                    );
                    files.push(file(
                        "deploy.md",
                        8.0,
                        "Deploys",
                        "how every service is deployed",
                        "billing too",
                    ));
                }
                _ => {}
            }
            let (scan, _, _) = scan_with_memo(&files, &limits, &mut memo);
            let candidates: Vec<String> = scan.memories.iter().map(|m| m.path.clone()).collect();
            for query in QUERIES {
                let want = plain(&files, &scan.memories, query, &limits);
                let got =
                    lexical_select_memo(query, &candidates, &["Bash".into()], &limits, &mut memo);
                assert_eq!(got, want, "turn {turn}, {query:?}");
            }
            // fewer candidates (some already surfaced): the same as those memories crossing
            let some: Vec<Memory> = scan.memories.iter().skip(1).cloned().collect();
            let paths: Vec<String> = some.iter().map(|m| m.path.clone()).collect();
            let got = lexical_select_memo(QUERIES[0], &paths, &["Bash".into()], &limits, &mut memo);
            assert_eq!(
                got,
                plain(&files, &some, QUERIES[0], &limits),
                "turn {turn}, candidates"
            );
        }
        // another header limit than the scans': the body is read with it, not the kept terms
        let short = Limits {
            max_header_lines: 6,
            ..limits
        };
        let (scan, _, _) = scan_with_memo(&files, &limits, &mut memo);
        let candidates: Vec<String> = scan.memories.iter().map(|m| m.path.clone()).collect();
        let got = lexical_select_memo(
            "monthly kubernetes secrets",
            &candidates,
            &[],
            &short,
            &mut memo,
        );
        let want = lexical_select(&LexicalInput {
            query: "monthly kubernetes secrets".into(),
            memories: scan.memories.clone(),
            recent_tools: vec![],
            heads: files
                .iter()
                .filter_map(|f| Some((f.path.clone(), f.head.clone()?)))
                .collect(),
            limits: Some(short),
        });
        assert_eq!(got, want);
        // the body mattered: with the scans' limit, db.md's body lines match
        let full = lexical_select_memo(
            "monthly kubernetes secrets",
            &candidates,
            &[],
            &limits,
            &mut memo,
        );
        assert_ne!(full.scores, want.scores);
    }

    #[test]
    fn a_kept_document_is_dropped_with_its_head() {
        let limits = Limits::default();
        let mut memo = ScanMemo::new();
        let before = [file("a.md", 1.0, "A", "about apples", "apples and pears")];
        let (scan, _, _) = scan_with_memo(&before, &limits, &mut memo);
        let first = memo.document(&scan.memories[0], &limits);
        assert!(
            std::rc::Rc::ptr_eq(&first, &memo.document(&scan.memories[0], &limits)),
            "kept"
        );
        let after = [file("a.md", 2.0, "A", "about apples", "plums only")];
        let (scan, _, _) = scan_with_memo(&after, &limits, &mut memo);
        let second = memo.document(&scan.memories[0], &limits);
        assert!(!std::rc::Rc::ptr_eq(&first, &second));
        assert!(second.body.contains("plum") && !second.body.contains("pear"));
    }
}

#[cfg(test)]
mod term_hash_tests {
    use std::hash::{BuildHasher, BuildHasherDefault};

    use super::TermHasher;

    /// Words that share their first bytes still spread over the buckets a table picks by the
    /// low bits (a crafted body of such words made every lookup collide).
    #[test]
    fn words_with_a_common_prefix_spread_over_the_low_bits() {
        let build = BuildHasherDefault::<TermHasher>::default();
        for prefix in ["con", "abcdefg", ""] {
            let mut buckets = std::collections::HashSet::new();
            for i in 0..4096u32 {
                let word = format!("{prefix}{}", char::from_u32(0x61 + i % 26).unwrap_or('a'))
                    + &i.to_string();
                buckets.insert(build.hash_one(word.as_str()) & 0xff);
            }
            assert!(
                buckets.len() > 200,
                "{prefix:?}: {} of 256 low-byte buckets",
                buckets.len()
            );
        }
    }
}
