//! The offline selector: BM25 over each memory's name, description and path, with a
//! threshold so that it can choose nothing. Deterministic, no model, no network — used when
//! no model is configured and, when asked, when the model call fails.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::limits::{to_usize, Limits};
use crate::scan::Memory;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// A memory must score at least this much, and at least this share of the best score. Tuned
/// on examples/queries.json (`node bench/selection-eval.mjs`).
const MIN_SCORE: f64 = 3.0;
const MIN_SHARE_OF_BEST: f64 = 0.5;

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
    "user",
    "feedback",
    "project",
    "reference",
];

/// Input of [`lexical_select`].
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LexicalInput {
    pub query: String,
    /// The candidates (the scan's memories minus those already surfaced).
    pub memories: Vec<Memory>,
    #[serde(default)]
    pub limits: Option<Limits>,
}

/// A memory's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    pub path: String,
    pub score: f64,
}

/// The lexical selection: `selected` in score order, and every non-zero score for inspection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LexicalSelection {
    pub selected: Vec<String>,
    pub scores: Vec<Scored>,
}

/// Lower-case words of letters and digits, stop words dropped, lightly stemmed.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 2 && !STOP_WORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// Strips a few English suffixes so `deploys`, `deploying` and `deployed` meet `deploy`.
fn stem(word: &str) -> String {
    for suffix in ["ing", "ies", "es", "ed", "s"] {
        if let Some(base) = word.strip_suffix(suffix) {
            if base.chars().count() >= 3 {
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

fn document(memory: &Memory) -> Vec<String> {
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
    tokens(&text)
}

/// Scores every candidate against the query with BM25 and keeps those above the threshold,
/// at most `maxSelected`, best first (ties by manifest order).
pub fn lexical_select(input: &LexicalInput) -> LexicalSelection {
    let limits = input.limits.unwrap_or_default();
    let query: HashSet<String> = tokens(&input.query).into_iter().collect();
    let docs: Vec<Vec<String>> = input.memories.iter().map(document).collect();
    let count = docs.len() as f64;
    let average = docs.iter().map(Vec::len).sum::<usize>() as f64 / count.max(1.0);
    let mut frequency: HashMap<&str, usize> = HashMap::new();
    for doc in &docs {
        for term in doc.iter().collect::<HashSet<_>>() {
            *frequency.entry(term.as_str()).or_default() += 1;
        }
    }
    let mut scored: Vec<(usize, f64)> = docs
        .iter()
        .enumerate()
        .map(|(i, doc)| {
            let len = doc.len() as f64;
            let score = query
                .iter()
                .map(|term| {
                    let tf = doc.iter().filter(|t| *t == term).count() as f64;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let df = frequency.get(term.as_str()).copied().unwrap_or(0) as f64;
                    let idf = ((count - df + 0.5) / (df + 0.5) + 1.0).ln();
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / average.max(1.0)))
                })
                .sum::<f64>();
            (i, score)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let best = scored.first().map_or(0.0, |s| s.1);
    let path = |i: usize| {
        input
            .memories
            .get(i)
            .map(|m| m.path.clone())
            .unwrap_or_default()
    };
    LexicalSelection {
        selected: scored
            .iter()
            .filter(|(_, s)| *s >= MIN_SCORE && *s >= best * MIN_SHARE_OF_BEST)
            .take(to_usize(limits.max_selected))
            .map(|(i, _)| path(*i))
            .collect(),
        scores: scored
            .iter()
            .map(|(i, s)| Scored {
                path: path(*i),
                score: (s * 1000.0).round() / 1000.0,
            })
            .collect(),
    }
}
