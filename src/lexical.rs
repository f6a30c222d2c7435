//! The offline selector. Without a model it cannot understand a query, so it is built to stay
//! silent unless a memory clearly matches: a fallback that injects an unrelated memory costs
//! tokens and misleads. General rules, none tuned to a folder:
//!
//! - **Terms.** Words of spaced scripts (identifiers split: `camelCase`, `snake_case`, file
//!   names; a suffix after an apostrophe dropped: `Hetzner'daki`), lower-cased, stop words of
//!   the common languages dropped, English and Russian endings stemmed; CJK text as character
//!   pairs within one script ([`crate::words::terms`]). A query word that shares a stem with a
//!   memory's word — a common beginning of at least five letters and three quarters of the
//!   shorter word (`rotating`, `rotation`; `sunucu`, `sunucudaki`; `databas`, `databasen`) —
//!   counts for part of its weight.
//! - **What is compared.** What the side query sees — name, file name, description (for a
//!   file without one, its first lines) — and, for half the weight, the body lines the scan
//!   read (the side query never sees them).
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
//! - **Bounded work.** A memory's terms are kept sorted (a look-up is a binary search, a shared
//!   stem two), at most [`MAX_TERMS`] of a text, each at most [`MAX_TERM_BYTES`], read from
//!   at most [`MAX_TEXT_BYTES`]; a query counts its first [`MAX_QUERY_TERMS`] terms. A huge
//!   token or a long query costs what these allow, never a term compared with every term.
//!
//! Deterministic, no model, no network: used when no model is configured and, when asked,
//! when the model call fails. `node bench/selection-eval.mjs` measures it.

use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

use std::rc::Rc;

use crate::limits::{to_usize, Limits};
use crate::scan::Memory;
use crate::write::similar::WordSet;

/// The best match must carry at least this much evidence — more than one term found in no
/// other memory — or nothing is chosen…
const MIN_EVIDENCE: f64 = 1.5;
/// …and cover at least this share of the query's weight.
const MIN_COVERAGE: f64 = 0.25;
/// Then every memory with at least this share of the best one's evidence comes with it.
const MIN_SHARE_OF_BEST: f64 = 0.5;
/// A query word matched only through a shared stem counts this share of its weight.
const STEM_MATCH: f64 = 0.75;
/// A query word found only in a memory's body (not its name, file name or description) counts
/// this share of its weight: the side query does not see bodies at all.
const BODY_MATCH: f64 = 0.5;
/// A CJK character pair counts this share of a word in the query's whole weight: pairs overlap,
/// so a run of characters gives about two for each word it holds (the pairs across two words
/// are not words).
const CJK_PAIR_SHARE: f64 = 0.5;
/// Shortest shared stem for a partial match, in characters; and the share of the shorter
/// word it must cover, in quarters.
const MIN_SHARED_STEM: usize = 5;
const SHARED_STEM_QUARTERS: usize = 3;
/// The longest term, in bytes: a longer one (a base64 blob, a hash) is cut to this.
pub const MAX_TERM_BYTES: usize = 64;
/// The most distinct terms kept of one text (a memory's name and description, its body).
pub const MAX_TERMS: usize = 4096;
/// The most of a text that is read for terms, in bytes.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;
/// The most distinct terms of a query that count (its first).
pub const MAX_QUERY_TERMS: usize = 256;
/// A file without a description is described by its first lines, up to this many characters.
const LEAD_CHARS: usize = 200;
/// Two memories whose names and descriptions overlap this much (word sets, Jaccard) say
/// almost the same thing: only the newer is kept.
const SUPERSEDED: f64 = 0.5;
/// A newer memory that records a change (CHANGE_WORDS) replaces an older one when their names
/// and descriptions share specific words (each weighing at least SHARED_SUBJECT_WEIGHT) worth
/// this much together: the same subject.
const SHARED_SUBJECT: f64 = 2.0;
const SHARED_SUBJECT_WEIGHT: f64 = 0.5;

/// Words too common to tell memories apart — English, and the commonest function words of
/// Portuguese, Spanish, Italian, French, Swedish, Norwegian, Danish, German and Turkish written
/// in ASCII — sorted (byte order, no repeats) for a binary search: a term is looked up once
/// per word of every body read.
const STOP_WORDS: &[&str] = &[
    "a",
    "aber",
    "about",
    "af",
    "after",
    "again",
    "al",
    "all",
    "also",
    "am",
    "ama",
    "an",
    "anche",
    "and",
    "any",
    "ao",
    "aos",
    "are",
    "as",
    "at",
    "att",
    "au",
    "auf",
    "aus",
    "aux",
    "av",
    "avec",
    "be",
    "been",
    "before",
    "bei",
    "being",
    "bir",
    "bu",
    "but",
    "by",
    "can",
    "ce",
    "ces",
    "cet",
    "cette",
    "che",
    "chi",
    "com",
    "come",
    "como",
    "con",
    "cosa",
    "could",
    "cual",
    "cuando",
    "da",
    "daha",
    "dans",
    "das",
    "dass",
    "de",
    "dei",
    "del",
    "della",
    "delle",
    "dello",
    "dem",
    "den",
    "der",
    "des",
    "det",
    "di",
    "did",
    "die",
    "do",
    "does",
    "doing",
    "donde",
    "dos",
    "dove",
    "du",
    "each",
    "efter",
    "ein",
    "eine",
    "einen",
    "el",
    "ela",
    "ele",
    "eles",
    "elle",
    "eller",
    "em",
    "en",
    "entre",
    "er",
    "es",
    "essa",
    "esse",
    "est",
    "esta",
    "este",
    "esto",
    "et",
    "ett",
    "every",
    "faut",
    "feedback",
    "foi",
    "for",
    "fra",
    "from",
    "fue",
    "get",
    "gibi",
    "gli",
    "going",
    "got",
    "haben",
    "had",
    "han",
    "hangi",
    "hanno",
    "har",
    "has",
    "hat",
    "have",
    "hay",
    "help",
    "here",
    "hon",
    "hos",
    "how",
    "hur",
    "hva",
    "hvor",
    "hvordan",
    "hvorfor",
    "i",
    "i'm",
    "ich",
    "icin",
    "if",
    "ikke",
    "il",
    "ile",
    "ils",
    "im",
    "in",
    "inte",
    "into",
    "is",
    "isso",
    "ist",
    "isto",
    "it",
    "its",
    "jag",
    "jeg",
    "just",
    "kan",
    "ki",
    "know",
    "la",
    "las",
    "le",
    "les",
    "let",
    "leur",
    "like",
    "lo",
    "look",
    "los",
    "ma",
    "mais",
    "make",
    "mas",
    "md",
    "me",
    "men",
    "mi",
    "mit",
    "mitt",
    "more",
    "most",
    "mu",
    "muy",
    "my",
    "nach",
    "nao",
    "nas",
    "nasil",
    "ne",
    "neden",
    "need",
    "nel",
    "nella",
    "nerede",
    "new",
    "ni",
    "nicht",
    "no",
    "noch",
    "non",
    "nos",
    "not",
    "nous",
    "now",
    "nur",
    "och",
    "oder",
    "of",
    "og",
    "olan",
    "olarak",
    "om",
    "on",
    "onde",
    "one",
    "or",
    "other",
    "ou",
    "our",
    "out",
    "par",
    "para",
    "pas",
    "pela",
    "pelo",
    "perche",
    "pero",
    "please",
    "plus",
    "por",
    "pour",
    "pourquoi",
    "project",
    "qual",
    "quand",
    "quando",
    "que",
    "quello",
    "questa",
    "questo",
    "qui",
    "quoi",
    "reference",
    "sa",
    "same",
    "sans",
    "sao",
    "se",
    "see",
    "sem",
    "ser",
    "ses",
    "seu",
    "should",
    "sich",
    "sie",
    "sin",
    "sina",
    "sind",
    "ska",
    "so",
    "sobre",
    "som",
    "some",
    "son",
    "sono",
    "still",
    "su",
    "sua",
    "such",
    "sur",
    "sus",
    "tell",
    "tem",
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
    "tiene",
    "till",
    "to",
    "today",
    "too",
    "tra",
    "um",
    "uma",
    "una",
    "und",
    "une",
    "uno",
    "up",
    "us",
    "use",
    "user",
    "vad",
    "var",
    "ve",
    "very",
    "veya",
    "vilka",
    "vilken",
    "vilket",
    "von",
    "vous",
    "wann",
    "want",
    "warum",
    "was",
    "way",
    "we",
    "wer",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "wie",
    "will",
    "wir",
    "wird",
    "with",
    "wo",
    "would",
    "ya",
    "yesterday",
    "yet",
    "yok",
    "you",
    "your",
    "zu",
    "zum",
    "zur",
];
/// Stop words with letters outside ASCII, sorted (byte order, no repeats): the same languages'
/// with accents, Russian's, and Korean endings and question words as the character pairs a
/// Korean word gives ([`crate::words::terms`]).
const OTHER_STOP_WORDS: &[&str] = &[
    "após",
    "aquí",
    "até",
    "både",
    "cioè",
    "così",
    "cuál",
    "cuándo",
    "cómo",
    "değil",
    "där",
    "déjà",
    "dónde",
    "então",
    "está",
    "están",
    "estão",
    "från",
    "för",
    "für",
    "già",
    "här",
    "için",
    "já",
    "können",
    "más",
    "mü",
    "müssen",
    "mı",
    "nasıl",
    "niçin",
    "não",
    "när",
    "når",
    "också",
    "også",
    "où",
    "perché",
    "più",
    "på",
    "qué",
    "são",
    "så",
    "sí",
    "também",
    "très",
    "têm",
    "varför",
    "você",
    "vocês",
    "være",
    "während",
    "wäre",
    "würde",
    "à",
    "às",
    "är",
    "å",
    "ça",
    "çok",
    "è",
    "é",
    "él",
    "été",
    "être",
    "über",
    "şu",
    "без",
    "бы",
    "был",
    "была",
    "было",
    "быть",
    "в",
    "во",
    "вот",
    "все",
    "всё",
    "вы",
    "где",
    "да",
    "даже",
    "для",
    "до",
    "его",
    "ее",
    "ему",
    "если",
    "есть",
    "еще",
    "ещё",
    "её",
    "же",
    "за",
    "зачем",
    "здесь",
    "из",
    "или",
    "их",
    "к",
    "как",
    "какая",
    "какие",
    "какое",
    "какой",
    "когда",
    "кто",
    "куда",
    "ли",
    "меня",
    "мне",
    "может",
    "можно",
    "мой",
    "моя",
    "мы",
    "на",
    "над",
    "надо",
    "нам",
    "нас",
    "наш",
    "не",
    "нет",
    "ни",
    "но",
    "нужно",
    "он",
    "она",
    "они",
    "от",
    "по",
    "после",
    "потом",
    "потому",
    "почему",
    "при",
    "про",
    "с",
    "себя",
    "сейчас",
    "со",
    "так",
    "также",
    "там",
    "то",
    "того",
    "тоже",
    "только",
    "тут",
    "ты",
    "у",
    "уже",
    "чем",
    "через",
    "что",
    "чтобы",
    "эти",
    "это",
    "этого",
    "этой",
    "этом",
    "этот",
    "эту",
    "я",
    "까요",
    "나요",
    "니다",
    "떻게",
    "려면",
    "무엇",
    "세요",
    "습니",
    "어디",
    "어떻",
    "어요",
    "언제",
    "하는",
    "하면",
    "해야",
    "해요",
];
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

/// [`tokens`] one at a time, each lent for the call: of the first [`MAX_TEXT_BYTES`] of the
/// text, each cut to [`MAX_TERM_BYTES`].
fn for_each_token(text: &str, f: &mut dyn FnMut(&str)) {
    crate::words::for_each_term(prefix_within(text, MAX_TEXT_BYTES), &mut |w| {
        let w = prefix_within(w, MAX_TERM_BYTES);
        let keep = if w.is_ascii() {
            w.len() >= 2 && !is_stop_word(w)
        } else {
            // a CJK character alone is a word; one letter of another script is not
            (w.chars().nth(1).is_some() && OTHER_STOP_WORDS.binary_search(&w).is_err())
                || w.chars().any(crate::words::is_cjk)
        };
        if keep {
            f(&stem(w));
        }
    });
}

/// The longest beginning of `text` of at most `max` bytes that ends on a character boundary.
fn prefix_within(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("")
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

/// The stop words of more than 8 bytes, which do not pack: [`STOP_WORDS`] itself is read only
/// when compiling (its packed form is what the module carries).
const LONG_STOP_WORDS: [&str; 2] = ["reference", "yesterday"];

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
    // a NUL byte would pack like the end of a shorter word (no stop word has one)
    if bytes.is_empty() || bytes.contains(&0) {
        return false;
    }
    if bytes.len() > 8 {
        return LONG_STOP_WORDS.contains(&word);
    }
    PACKED_STOP_WORDS.binary_search(&packed_word(bytes)).is_ok()
}

/// Strips a few English suffixes so `deploys`, `deploying` and `deployed` meet `deploy`, and
/// Russian endings ([`stem_cyrillic`]).
fn stem(word: &str) -> std::borrow::Cow<'_, str> {
    if !word.is_ascii() {
        return match word.chars().next() {
            Some('\u{400}'..='\u{4FF}') => stem_cyrillic(word).into(),
            _ => word.into(),
        };
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

/// Russian endings of nouns, adjectives and verbs, longest first.
const CYRILLIC_ENDINGS: &[&str] = &[
    "ями", "ами", "ими", "ыми", "ого", "его", "ому", "ему", "ешь", "ете", "ите", "ишь", "ить",
    "ать", "ять", "еть", "ыть", "ует", "уют", "ила", "ыла", "ило", "ыло", "или", "ыли", "иям",
    "иях", "ией", "ах", "ях", "ам", "ям", "ов", "ев", "ей", "ой", "ом", "ем", "ою", "ею", "ию",
    "ью", "ия", "ие", "ии", "ая", "яя", "ое", "ее", "ые", "ый", "ий", "ую", "юю", "ых", "их", "ым",
    "им", "ют", "ут", "ят", "ат", "ет", "ит", "ла", "ли", "ло", "на", "ть", "а", "я", "о", "е",
    "и", "ы", "у", "ю", "ь", "й", "л",
];

/// A light Russian stemmer (after Snowball's): `ё` read as `е`, a reflexive `ся`/`сь` dropped,
/// then the longest ending that starts after the word's first vowel, so `базы`, `базе` and
/// `базу` meet `база`, and `хранится` meets `хранить`.
fn stem_cyrillic(word: &str) -> String {
    let word = word.replace('ё', "е");
    let vowel = |c: char| "аеиоуыэюя".contains(c);
    // the region endings may come from: after the first vowel
    let region = word
        .char_indices()
        .find(|&(_, c)| vowel(c))
        .map_or(word.len(), |(i, c)| i + c.len_utf8());
    let mut end = word.len();
    for reflexive in ["ся", "сь"] {
        if word.ends_with(reflexive) && end - reflexive.len() >= region {
            end -= reflexive.len();
            break;
        }
    }
    let rest = word.get(..end).unwrap_or("");
    if let Some(ending) = CYRILLIC_ENDINGS
        .iter()
        .find(|e| rest.ends_with(*e) && end - e.len() >= region)
    {
        end -= ending.len();
    }
    word.get(..end).unwrap_or("").to_owned()
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

/// The terms of one text, sorted (byte order, no repeats), and the stem keys of its words
/// ([`stem_key`]), sorted: a term is found by a binary search, a shared stem by two.
#[derive(Debug, Default)]
pub(crate) struct TermList {
    terms: Vec<String>,
    /// Where its words are among the terms (the terms with a [`stem_key`]), in order.
    words: Vec<u32>,
    keys: Vec<String>,
}

impl TermList {
    fn new(terms: Terms) -> Self {
        let mut terms: Vec<String> = terms.into_iter().collect();
        terms.sort();
        let mut words = Vec::new();
        let mut keys = Vec::new();
        for (i, term) in terms.iter().enumerate() {
            if let (Some(key), Ok(i)) = (stem_key(term), u32::try_from(i)) {
                words.push(i);
                keys.push(key.to_owned());
            }
        }
        keys.sort();
        keys.dedup();
        Self { terms, words, keys }
    }

    pub(crate) fn contains(&self, term: &str) -> bool {
        self.terms
            .binary_search_by(|t| counted(t.as_str().cmp(term)))
            .is_ok()
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(String::as_str)
    }

    /// Whether one of these words shares a stem with `term`: their common beginning is at
    /// least the stem key of the shorter ([`stem_key`]). Either a word here begins with the
    /// term's key, or a key here begins the term.
    fn shares_stem(&self, term: &str) -> bool {
        let Some(key) = stem_key(term) else {
            return false;
        };
        let word = |i: &u32| self.terms.get(*i as usize).map_or("", String::as_str);
        let at = self.words.partition_point(|i| counted(word(i) < key));
        if self.words.get(at).is_some_and(|i| word(i).starts_with(key)) {
            return true;
        }
        // the largest key not after the probe: when it is not a prefix of the probe, no key
        // longer than their common beginning is one, so the probe shrinks to that beginning
        let mut probe = term;
        while probe.chars().nth(MIN_SHARED_STEM - 1).is_some() {
            let at = self.keys.partition_point(|k| counted(k.as_str() <= probe));
            let Some(before) = at.checked_sub(1).and_then(|i| self.keys.get(i)) else {
                return false;
            };
            if probe.starts_with(before.as_str()) {
                return true;
            }
            let common = common_prefix(before, probe);
            if common >= probe.len() {
                return false; // cannot be: `before` would begin the probe
            }
            probe = probe.get(..common).unwrap_or("");
        }
        false
    }
}

/// One comparison of a query's term with a memory's, counted by the tests (a bound on the work
/// of a selection); nothing when not testing.
#[cfg(not(test))]
#[inline(always)]
fn counted<T>(compared: T) -> T {
    compared
}

#[cfg(test)]
thread_local! {
    static COMPARISONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn counted<T>(compared: T) -> T {
    COMPARISONS.with(|n| n.set(n.get() + 1));
    compared
}

/// The bytes `a` and `b` begin with alike, ending on a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// The beginning of a word that another word must share to share its stem: its first
/// [`MIN_SHARED_STEM`] characters, or three quarters of it when that is more. `None` for a
/// shorter term, or one with a character that is not a letter (a number, an ID, a CJK pair is
/// matched whole).
fn stem_key(term: &str) -> Option<&str> {
    let chars = term.chars().count();
    if chars < MIN_SHARED_STEM
        || !term.chars().all(char::is_alphabetic)
        || term.chars().any(crate::words::is_cjk)
    {
        return None;
    }
    let keep = MIN_SHARED_STEM.max((chars * SHARED_STEM_QUARTERS).div_ceil(4));
    let end = term.char_indices().nth(keep).map_or(term.len(), |(i, _)| i);
    term.get(..end)
}

/// A memory's terms: what the side query sees (name, file name, description), and the body
/// lines the scan read, which count for less.
#[derive(Debug)]
pub(crate) struct Document {
    title: TermList,
    pub(crate) body: TermList,
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
        let body = head.map(|head| body_text(head, limits));
        let mut title = Terms::default();
        let mut add = |t: &str| {
            if title.len() < MAX_TERMS && !title.contains(t) {
                title.insert(t.to_owned());
            }
        };
        for_each_token(&title_text(memory), &mut add);
        // a file without a description is described by its first lines
        let described = memory
            .description
            .as_deref()
            .is_some_and(|d| !d.trim().is_empty());
        if let (false, Some(body)) = (described, &body) {
            for_each_token(&lead(body), &mut add);
        }
        let mut terms = Terms::default();
        if let Some(body) = &body {
            // one look-up a word; the title's terms taken out once, after
            for_each_token(body, &mut |t| {
                if terms.len() < MAX_TERMS && !terms.contains(t) {
                    terms.insert(t.to_owned());
                }
            });
            terms.retain(|t| !title.contains(t));
        }
        Self {
            title: TermList::new(title),
            body: TermList::new(terms),
        }
    }

    /// Whether the memory has `term`, in what the side query sees or in its body.
    fn contains(&self, term: &str) -> bool {
        self.title.contains(term) || self.body.contains(term)
    }

    /// How much of a query term's weight this memory matches — all of it in the title, less in
    /// the body, less again through a shared stem — and how, for inspection: `term` (title),
    /// `term*` (body), `term~` / `term*~` (through a shared stem).
    fn strength(&self, term: &str) -> Option<(f64, String)> {
        if self.title.contains(term) {
            Some((1.0, term.to_owned()))
        } else if self.body.contains(term) {
            Some((BODY_MATCH, format!("{term}*")))
        } else if self.title.shares_stem(term) {
            Some((STEM_MATCH, format!("{term}~")))
        } else if self.body.shares_stem(term) {
            Some((STEM_MATCH * BODY_MATCH, format!("{term}*~")))
        } else {
            None
        }
    }
}

/// The lines under the frontmatter among those read (all of them when there is none), one a
/// line.
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
        .join("\n")
}

/// What describes a file that has no description: the first lines of its body that have a
/// letter or digit (a heading and the line after it, as a person skimming would read), at
/// most [`LEAD_CHARS`] characters.
fn lead(body: &str) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for line in body
        .split('\n')
        .filter(|l| l.chars().any(char::is_alphanumeric))
        .take(2)
    {
        for c in line.chars().chain([' ']) {
            if chars == LEAD_CHARS {
                return out;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
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

/// [`lexical_select`] over memories whose terms were made before (a scan session keeps each
/// memory's [`Document`] with its head, so a turn where nothing changed reads no body again: at
/// 200 files, ~15 ms a turn in wasm became ~1). `docs[i]` is the document of `memories[i]`.
pub(crate) fn lexical_select_documents(
    query: &str,
    memories: &[&Memory],
    docs: &[Rc<Document>],
    recent_tools: &[String],
    limits: &Limits,
) -> LexicalSelection {
    select(query, memories, docs, recent_tools, limits)
}

/// The selection itself, over memories and their documents (same order). Not inlined: both
/// callers share one copy in the wasm.
#[inline(never)]
fn select(
    query_text: &str,
    memories: &[&Memory],
    docs: &[Rc<Document>],
    recent_tools: &[String],
    limits: &Limits,
) -> LexicalSelection {
    // the query's first distinct terms
    let mut seen = Terms::default();
    let mut query: Vec<String> = Vec::new();
    for_each_token(query_text, &mut |t| {
        if query.len() < MAX_QUERY_TERMS && !seen.contains(t) {
            seen.insert(t.to_owned());
            query.push(t.to_owned());
        }
    });
    query.sort();
    let weights = Weights {
        docs,
        frequency: RefCell::default(),
    };
    let weight = |term| weights.of(term);
    // a run of CJK characters gives a pair at each character, about two for each word in it
    let total: f64 = query
        .iter()
        .map(|t| {
            weight(t)
                * if t.chars().any(crate::words::is_cjk) {
                    CJK_PAIR_SHARE
                } else {
                    1.0
                }
        })
        .sum();

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
    let selected = newest_of_near_duplicates(&chosen, memories, docs, &weights, limits)
        .into_iter()
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

/// Each term's weight in this folder: its inverse document frequency as a share of the largest
/// this folder allows (a term in no memory weighs 1), counted when first asked: the query's
/// terms, and the names' shared words when near-duplicates are looked for.
struct Weights<'a> {
    docs: &'a [Rc<Document>],
    /// How many memories have each term asked for so far, by term.
    frequency: RefCell<Vec<(&'a str, usize)>>,
}

impl<'a> Weights<'a> {
    fn of(&self, term: &'a str) -> f64 {
        let at = self
            .frequency
            .borrow()
            .binary_search_by(|(t, _)| (*t).cmp(term));
        let df = match at {
            Ok(i) => self.frequency.borrow().get(i).map_or(0, |(_, df)| *df),
            Err(i) => {
                let df = self.docs.iter().filter(|d| d.contains(term)).count();
                self.frequency.borrow_mut().insert(i, (term, df));
                df
            }
        };
        let count = self.docs.len() as f64;
        let idf = |df: f64| (1.0 + (count - df + 0.5) / (df + 0.5)).ln();
        if df == 0 {
            1.0
        } else {
            (idf(df as f64) / idf(1.0).max(f64::MIN_POSITIVE)).clamp(0.0, 1.0)
        }
    }
}

/// The terms two lists share, in order (a merge of the sorted lists).
fn shared_terms<'a>(a: &'a TermList, b: &TermList) -> Vec<&'a str> {
    let (mut xs, mut ys) = (a.iter().peekable(), b.iter().peekable());
    let mut out = Vec::new();
    while let (Some(&x), Some(&y)) = (xs.peek(), ys.peek()) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => {
                xs.next();
            }
            std::cmp::Ordering::Greater => {
                ys.next();
            }
            std::cmp::Ordering::Equal => {
                out.push(x);
                xs.next();
                ys.next();
            }
        }
    }
    out
}

/// `chosen` (best first) with each memory replaced by the newest memory of the folder that
/// says almost the same thing, without repeats, at most `maxSelected`.
fn newest_of_near_duplicates<'a>(
    chosen: &[usize],
    memories: &[&Memory],
    docs: &'a [Rc<Document>],
    weights: &Weights<'a>,
    limits: &Limits,
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
        if !changes.get(newer).copied().unwrap_or(false) {
            return false;
        }
        let shared: f64 = shared_terms(&a.title, &b.title)
            .into_iter()
            .map(|t| weights.of(t))
            .filter(|w| *w >= SHARED_SUBJECT_WEIGHT)
            .sum();
        shared >= SHARED_SUBJECT
    };
    let mut out: Vec<usize> = Vec::new();
    for &i in chosen {
        if out.len() >= to_usize(limits.max_selected) {
            break; // the rest would come after the most that are selected
        }
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
        let long: Vec<&str> = STOP_WORDS.iter().copied().filter(|w| w.len() > 8).collect();
        assert_eq!(long, LONG_STOP_WORDS);
        assert!(
            OTHER_STOP_WORDS.windows(2).all(|w| w.first() < w.last()),
            "OTHER_STOP_WORDS must be in byte order without repeats"
        );
        assert!(OTHER_STOP_WORDS.iter().all(|w| !w.is_ascii()));
        assert_eq!(
            tokens("What should the user know about Deploying?"),
            ["deploy"]
        );
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod language_tests {
    use super::*;

    fn memory(path: &str, name: Option<&str>, description: Option<&str>) -> Memory {
        let mut m: Memory = serde_json::from_value(serde_json::json!({
            "path": path,
            "mtimeMs": 1.0e12,
        }))
        .unwrap();
        m.name = name.map(str::to_owned);
        m.description = description.map(str::to_owned);
        m
    }

    #[test]
    fn an_affix_after_an_apostrophe_is_dropped() {
        assert_eq!(tokens("Hetzner'daki sunucuya"), ["hetzner", "sunucuya"]);
        assert_eq!(tokens("API’ye PDF'lerini"), ["api", "pdf"]);
        assert_eq!(tokens("l'équipe dell'utente"), ["équipe", "utente"]);
        assert_eq!(tokens("the user's 'quoted' words"), ["quot", "word"]);
    }

    #[test]
    fn russian_words_meet_their_other_forms() {
        for forms in [
            &["база", "базы", "базе", "базу", "базой"][..],
            &["копия", "копии", "копию"],
            &["резервная", "резервные", "резервную", "резервными"],
            &["хранится", "хранить", "хранятся"],
            &["сервер", "сервера", "серверу", "серверах"],
            &["ёлка", "елки"],
        ] {
            let stems: Vec<Vec<String>> = forms.iter().map(|w| tokens(w)).collect();
            assert!(
                stems.windows(2).all(|w| w[0] == w[1]),
                "{forms:?}: {stems:?}"
            );
        }
        // Russian stop words, and a letter of another script alone, are not terms
        assert_eq!(tokens("где это и как"), Vec::<String>::new());
    }

    #[test]
    fn stop_words_of_other_languages() {
        assert_eq!(
            tokens("Como é feita a implantação?"),
            ["feita", "implantação"]
        );
        assert_eq!(
            tokens("Var sparas säkerhetskopiorna av databasen?"),
            ["spara", "säkerhetskopiorna", "databasen"]
        );
        assert_eq!(tokens("nasıl bir sunucu için"), ["sunucu"]);
        // NaN keeps its part (`na` is no stop word)
        assert_eq!(tokens("NaN losses"), ["na", "loss"]);
    }

    /// The rule [`TermList::shares_stem`] finds by two binary searches, written out: a common
    /// beginning of at least [`MIN_SHARED_STEM`] letters and three quarters of the shorter.
    fn shares_stem_rule(a: &str, b: &str) -> bool {
        let word = |w: &str| {
            w.chars().count() >= MIN_SHARED_STEM
                && w.chars().all(char::is_alphabetic)
                && !w.chars().any(crate::words::is_cjk)
        };
        if !word(a) || !word(b) {
            return false;
        }
        let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
        let shorter = a.chars().count().min(b.chars().count());
        common >= MIN_SHARED_STEM && 4 * common >= 3 * shorter
    }

    #[test]
    fn shared_stems_in_every_script() {
        let list = |words: &[&str]| TermList::new(words.iter().map(|w| (*w).to_owned()).collect());
        let cases: &[(&str, &str, bool)] = &[
            ("sunucudaki", "sunucu", true),
            ("sunucu", "sunucudaki", true),
            ("säkerhetskopiorna", "säkerhetskopior", true),
            ("implantações", "implantação", true),
            ("configurações", "configurar", true),
            ("rotat", "rotation", true),
            ("deployment", "deploy", true),
            ("server", "service", false),
            ("contract", "control", false),
            ("experiment", "experience", false),
            ("20240101", "20240102", false),
            ("data", "database", false),
        ];
        for &(query, word, want) in cases {
            assert_eq!(list(&[word]).shares_stem(query), want, "{query} ~ {word}");
            assert_eq!(
                shares_stem_rule(query, word),
                want,
                "{query} ~ {word} by the rule"
            );
        }
    }

    /// The two binary searches find exactly what comparing the term with every word would:
    /// every list of up to three words over a small alphabet, every query over it.
    #[test]
    fn shared_stems_by_binary_search_are_the_rule() {
        let alphabet = ["a", "b", "ä", "1"];
        let mut words: Vec<String> = vec![String::new()];
        let mut all = Vec::new();
        for _ in 0..8 {
            words = words
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .filter(|w| !w.starts_with('1') || w.len() < 3)
                .collect();
            words.truncate(3000);
            all.extend(words.iter().filter(|w| w.chars().count() >= 4).cloned());
        }
        all.sort();
        all.dedup();
        // lists of words near one another, and scattered
        let step = all.len() / 97;
        for start in (0..all.len()).step_by(step.max(1)) {
            let picked: Vec<&String> = [start, start + 1, (start * 7) % all.len()]
                .iter()
                .filter_map(|&i| all.get(i))
                .collect();
            let list = TermList::new(picked.iter().map(|w| (*w).clone()).collect());
            for query in all.iter().step_by(7) {
                let want = picked.iter().any(|w| shares_stem_rule(query, w));
                assert_eq!(list.shares_stem(query), want, "{query} ~ {picked:?}");
            }
        }
    }

    #[test]
    fn cjk_terms_stay_in_one_script_and_leave_grammar_out() {
        assert_eq!(
            tokens("サーバーの設定を変更した"),
            ["サー", "ーバ", "設定", "変更"]
        );
        assert_eq!(
            tokens("서버는 데이터베이스에서"),
            ["서버", "데이", "이터", "터베", "베이", "이스"]
        );
        assert_eq!(
            tokens("日志里可以打印手机号吗"),
            [
                "日志", "志里", "里可", "可以", "以打", "打印", "印手", "手机", "机号"
            ]
        );
        assert_eq!(tokens("库"), ["库"]);
    }

    #[test]
    fn a_file_without_a_description_is_described_by_its_first_lines() {
        let limits = Limits::default();
        let plain = memory("vpn.md", None, None);
        let head =
            "\n# Доступ к VPN\n\nКонфиг WireGuard лежит в 1Password.\nКлюч выпускают заново.\n";
        let doc = Document::of(&plain, Some(head), &limits);
        for t in ["доступ", "vpn", "конфиг", "guard"] {
            assert!(doc.title.contains(t), "{t} in the title");
        }
        assert!(doc.body.contains("ключ") && !doc.title.contains("ключ"));
        // a description given is what describes it
        let described = memory(
            "vpn.md",
            Some("VPN"),
            Some("how to reach the office network"),
        );
        let doc = Document::of(&described, Some(head), &limits);
        assert!(!doc.title.contains("доступ") && doc.body.contains("доступ"));
        // bounded: a first line of a megabyte gives what its first characters do
        let long = format!("# {}\n", "слово ".repeat(200_000));
        let doc = Document::of(&plain, Some(&long), &limits);
        assert_eq!(doc.title.iter().collect::<Vec<_>>(), ["vpn", "слов"]);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod bound_tests {
    use super::*;
    use crate::scan::Head;

    /// A base64 data URI of about `bytes` bytes: many short mixed-case pieces, most distinct.
    fn data_uri(bytes: usize, seed: u64) -> String {
        const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut x = seed | 1;
        let mut out = String::from("data:image/png;base64,");
        for _ in 0..bytes {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push(char::from(B64[(x % 64) as usize]));
        }
        out
    }

    /// Three memories holding a megabyte data URI each and a long query: each query term is
    /// looked up in each memory by binary searches, not compared with every term there (that
    /// was ~10^9 comparisons, 3.4 s in wasm). The count is a bound on the work, not a timing.
    #[test]
    fn a_selection_among_huge_heads_does_bounded_work() {
        let limits = Limits::default();
        let memories: Vec<Memory> = (0..3)
            .map(|i| {
                serde_json::from_value(serde_json::json!({
                    "path": format!("logo{i}.md"),
                    "mtimeMs": 1.0e12,
                    "name": "Logo",
                    "description": "the logo as an inline image",
                }))
                .unwrap()
            })
            .collect();
        let heads = memories
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let head = format!(
                    "---\nname: Logo\ndescription: the logo as an inline image\n---\n![logo]({})\n",
                    data_uri(1 << 20, i as u64 + 1)
                );
                (m.path.clone(), Head::Text(head))
            })
            .collect();
        let query = format!("deployment pipeline rollback {}", data_uri(12_000, 99));
        let input = LexicalInput {
            query: query.clone(),
            memories,
            recent_tools: vec![],
            heads,
            limits: Some(limits),
        };
        let docs: Vec<Document> = input
            .memories
            .iter()
            .map(|m| Document::new(m, input.heads.get(&m.path), &limits))
            .collect();
        for doc in &docs {
            assert!(doc.body.terms.len() <= MAX_TERMS && doc.title.terms.len() <= MAX_TERMS);
            assert!(doc.body.iter().all(|t| t.len() <= MAX_TERM_BYTES));
        }
        COMPARISONS.with(|n| n.set(0));
        let selection = lexical_select(&input);
        let compared = COMPARISONS.with(std::cell::Cell::get);
        assert!(selection.selected.is_empty());
        let terms = selection.query_terms.len();
        assert!(terms <= MAX_QUERY_TERMS && tokens(&query).len() > MAX_QUERY_TERMS);
        // per term and memory: a look-up in its two lists (the weight, the match), and for a
        // term it lacks two stem searches in each list, the key search at most one a byte
        let search = (MAX_TERMS as f64).log2().ceil() as usize + 1;
        let per_term = 4 * search + 2 * (search + MAX_TERM_BYTES * search);
        assert!(
            compared <= terms * 3 * per_term,
            "{compared} comparisons for {terms} terms"
        );
        assert!(compared < 2_000_000, "{compared}");
        eprintln!("{compared} comparisons for {terms} query terms");
    }
}
