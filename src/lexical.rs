//! The offline selector. Without a model it cannot understand a query, so it is built to be
//! silent unless a memory clearly matches: a fallback that injects an unrelated memory costs
//! tokens and misleads. It decides from what the side query sees — each memory's name, file
//! name and description — with these general rules, none tuned to a folder:
//!
//! - **Terms.** Words of spaced scripts (identifiers split: `camelCase`, `snake_case`, file
//!   names), lower-cased, stop words dropped, English suffixes stemmed; CJK text as character
//!   pairs. A query word that shares a long stem with a memory's word (`rotating`,
//!   `rotation`) counts for part of its weight.
//! - **Weights that scale with the folder.** A term weighs its inverse document frequency,
//!   divided by the largest that can be in this folder: a word found in one memory weighs 1
//!   whether the folder has 6 files or 600, and a word found everywhere weighs almost 0. A
//!   query word found in no memory weighs 1: it is what the query is about, and nothing here
//!   is about it.
//! - **Coverage, not score.** A memory's coverage is the share of the query's weight it
//!   matches. It is chosen only when it covers at least half of the query, matches two
//!   distinct terms (one, for a query of one or two terms), and comes close to the best
//!   memory. A shared common word is not a match.
//! - **Tools in use.** A memory about a tool the agent just used is a usage reference (a
//!   `reference` memory, not worded as a warning) or a warning (a `feedback` memory, or
//!   worded as one). References are left out, as the side-query prompt asks; warnings count
//!   as matching.
//! - **Superseded.** Of two chosen or choosable memories that say almost the same thing, only
//!   the newer is kept.
//!
//! Deterministic, no model, no network: used when no model is configured and, when asked,
//! when the model call fails. `node bench/selection-eval.mjs` measures it.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::limits::{to_usize, Limits};
use crate::scan::Memory;
use crate::words::terms;
use crate::write::similar::WordSet;

/// A memory is chosen only when it covers at least this share of the query's weight.
const MIN_COVERAGE: f64 = 0.5;
/// …and at least this share of the best memory's coverage.
const MIN_SHARE_OF_BEST: f64 = 0.75;
/// A query word matched only through a shared stem counts this share of its weight.
const STEM_MATCH: f64 = 0.6;
/// Shortest shared stem for a partial match, in characters.
const MIN_SHARED_STEM: usize = 5;
/// Two memories whose names and descriptions overlap this much (word sets, Jaccard) say
/// almost the same thing: only the newer is kept.
const SUPERSEDED: f64 = 0.5;

const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "also",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "for",
    "from",
    "get",
    "got",
    "had",
    "has",
    "have",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "let",
    "like",
    "make",
    "me",
    "md",
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
    "our",
    "out",
    "please",
    "should",
    "so",
    "some",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "this",
    "to",
    "up",
    "us",
    "use",
    "want",
    "was",
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
    "you",
    "your",
    "i'm",
    "am",
    "being",
    "each",
    "every",
    "here",
    "more",
    "most",
    "other",
    "same",
    "such",
    "than",
    "too",
    "very",
    "yet",
    "tell",
    "know",
    "think",
    "going",
    "way",
    "thing",
    "things",
    "help",
    "look",
    "see",
    "still",
    "today",
    "yesterday",
    "again",
    "user",
    "feedback",
    "project",
    "reference",
];
/// Words that say a memory warns rather than explains (stemmed as terms are).
const WARNING_WORDS: &[&str] = &[
    "warn", "warning", "gotcha", "pitfall", "bug", "broken", "break", "fail", "failure", "never",
    "avoid", "careful", "caveat", "danger", "crash", "hang", "corrupt", "lose", "lost", "trap",
    "problem", "issue", "mistake", "wrong", "dont", "don",
];

/// Input of [`lexical_select`].
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LexicalInput {
    pub query: String,
    /// The candidates (the scan's memories minus those already surfaced).
    pub memories: Vec<Memory>,
    /// Tools the agent used in the previous turn: their usage references are left out, their
    /// warnings count as matching.
    #[serde(default)]
    pub recent_tools: Vec<String>,
    #[serde(default)]
    pub limits: Option<Limits>,
}

/// A memory's coverage of the query (0…1, more with a tool warning), for inspection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    pub path: String,
    pub score: f64,
}

/// The lexical selection: `selected` best first, and every non-zero score for inspection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LexicalSelection {
    pub selected: Vec<String>,
    pub scores: Vec<Scored>,
}

/// Terms of a text: [`crate::words::terms`] without stop words and single letters, stemmed.
pub fn tokens(text: &str) -> Vec<String> {
    terms(text)
        .into_iter()
        .filter(|w| {
            let cjk = w.chars().any(crate::words::is_cjk);
            cjk || (w.chars().count() >= 2 && !STOP_WORDS.contains(&w.as_str()))
        })
        .map(|w| stem(&w))
        .collect()
}

/// Strips a few English suffixes so `deploys`, `deploying` and `deployed` meet `deploy`.
fn stem(word: &str) -> String {
    if !word.is_ascii() {
        return word.to_owned();
    }
    for suffix in ["ing", "ies", "es", "ed", "ly", "s"] {
        if let Some(base) = word.strip_suffix(suffix) {
            if base.len() >= 3 && !(suffix == "s" && base.ends_with('s')) {
                return if suffix == "ies" {
                    format!("{base}y")
                } else {
                    base.to_owned()
                };
            }
        }
    }
    word.to_owned()
}

/// What the side query sees of a memory: name, file name (path), description.
fn document(memory: &Memory) -> HashSet<String> {
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
    tokens(&text).into_iter().collect()
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
    let docs: Vec<HashSet<String>> = input.memories.iter().map(document).collect();
    let count = docs.len() as f64;
    let mut frequency: HashMap<&str, usize> = HashMap::new();
    for doc in &docs {
        for term in doc {
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
    let mut query: Vec<String> = tokens(&input.query);
    query.sort();
    query.dedup();
    let total: f64 = query.iter().map(|t| weight(t)).sum();

    let tools: Vec<HashSet<String>> = input
        .recent_tools
        .iter()
        .map(|t| tokens(t).into_iter().filter(|w| w != "mcp").collect::<HashSet<_>>())
        .filter(|t| !t.is_empty())
        .collect();

    let mut scored: Vec<(usize, f64)> = Vec::new();
    for (i, (doc, memory)) in docs.iter().zip(&input.memories).enumerate() {
        let about_tool = tools.iter().any(|t| t.iter().all(|w| doc.contains(w)));
        let warns = matches!(memory.memory_type, Some(crate::frontmatter::MemoryType::Feedback))
            || WARNING_WORDS.iter().any(|w| doc.contains(*w));
        if about_tool && !warns {
            continue; // a usage reference for a tool in use: the agent has the tool's own docs
        }
        let mut matched = 0.0;
        let mut distinct = 0usize;
        for term in &query {
            let w = weight(term);
            if doc.contains(term) {
                matched += w;
                distinct += 1;
            } else if doc.iter().any(|d| shares_stem(term, d)) {
                matched += STEM_MATCH * w;
                distinct += 1;
            }
        }
        let mut coverage = if total > 0.0 { matched / total } else { 0.0 };
        let needed = if query.len() <= 2 { 1 } else { 2 };
        if distinct < needed {
            coverage = 0.0;
        }
        if about_tool {
            coverage += MIN_COVERAGE; // a warning about a tool in use matters whatever was asked
        }
        if coverage > 0.0 {
            scored.push((i, coverage));
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let best = scored.first().map_or(0.0, |s| s.1);
    let chosen: Vec<usize> = scored
        .iter()
        .filter(|(_, c)| *c >= MIN_COVERAGE && *c >= best * MIN_SHARE_OF_BEST)
        .map(|(i, _)| *i)
        .collect();
    let selected = newest_of_near_duplicates(&chosen, &input.memories)
        .into_iter()
        .take(to_usize(limits.max_selected))
        .filter_map(|i| input.memories.get(i).map(|m| m.path.clone()))
        .collect();
    let path = |i: usize| {
        input
            .memories
            .get(i)
            .map(|m| m.path.clone())
            .unwrap_or_default()
    };
    LexicalSelection {
        selected,
        scores: scored
            .iter()
            .map(|(i, s)| Scored {
                path: path(*i),
                score: (s * 1000.0).round() / 1000.0,
            })
            .collect(),
    }
}

/// `chosen` (best first) with each memory replaced by the newest memory of the folder that
/// says almost the same thing, without repeats.
fn newest_of_near_duplicates(chosen: &[usize], memories: &[Memory]) -> Vec<usize> {
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
    let mut out: Vec<usize> = Vec::new();
    for &i in chosen {
        let Some(mine) = sets.get(i) else {
            continue;
        };
        let newest = sets
            .iter()
            .enumerate()
            .filter(|(j, other)| *j == i || other.similarity(mine) >= SUPERSEDED)
            .filter_map(|(j, _)| memories.get(j).map(|m| (j, m.time())))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map_or(i, |(j, _)| j);
        if !out.contains(&newest) {
            out.push(newest);
        }
    }
    out
}
