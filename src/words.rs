//! Words in every script. Spaces separate words in English, not in Chinese or Japanese (and
//! Korean spaces separate phrases), so a rule that counts or compares words by splitting on
//! white space sees a whole Chinese sentence as one word. Here a run of CJK characters counts
//! one word a character and is compared by overlapping character pairs (bigrams), the usual
//! unit for CJK retrieval without a dictionary; identifiers (`camelCase`, `snake_case`,
//! `kebab-case`, `file.names`) are split into their words too.

/// Han (with extensions), kana, Hangul and the CJK symbol block's letters.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'      // Hiragana, Katakana
        | '\u{31F0}'..='\u{31FF}'    // Katakana extensions
        | '\u{3400}'..='\u{4DBF}'    // Han extension A
        | '\u{4E00}'..='\u{9FFF}'    // Han
        | '\u{F900}'..='\u{FAFF}'    // Han compatibility
        | '\u{1100}'..='\u{11FF}'    // Hangul Jamo
        | '\u{3130}'..='\u{318F}'    // Hangul compatibility Jamo
        | '\u{AC00}'..='\u{D7AF}'    // Hangul syllables
        | '\u{20000}'..='\u{2FFFF}'  // Han extensions B and later
    )
}

/// One piece of a text: a run of letters and digits in a script that spaces words, or a run
/// of CJK characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run<'a> {
    Word(&'a str),
    Cjk(&'a str),
}

/// The runs of `text`, in order; everything else (spaces, punctuation, symbols) separates.
pub fn runs(text: &str) -> Vec<Run<'_>> {
    let mut out = Vec::new();
    for_each_run(text, &mut |run| out.push(run));
    out
}

/// [`runs`] one at a time, without collecting them (the lexical selector reads whole bodies).
///
/// An ASCII letter or digit belongs to a word and any other ASCII character separates, so the
/// text is cut at those bytes first: a piece of ASCII letters and digits alone is one word,
/// taken without decoding a character (most of a body), and only a piece with other characters
/// in it is read a character at a time ([`for_each_run_by_char`], which this equals).
pub fn for_each_run<'a>(text: &'a str, f: &mut dyn FnMut(Run<'a>)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let mut ascii = true;
        while let Some(&b) = bytes.get(i) {
            if b.is_ascii() {
                if !b.is_ascii_alphanumeric() {
                    break;
                }
            } else {
                ascii = false;
            }
            i += 1;
        }
        if i > start {
            // cut at ASCII bytes (or the ends): character boundaries
            let piece = text.get(start..i).unwrap_or("");
            if ascii {
                f(Run::Word(piece));
            } else {
                for_each_run_by_char(piece, f);
            }
        }
        i += 1; // the separator
    }
}

/// [`for_each_run`] a character at a time: the rule itself.
pub fn for_each_run_by_char<'a>(text: &'a str, f: &mut dyn FnMut(Run<'a>)) {
    let mut start: Option<(usize, bool)> = None;
    for (i, c) in text.char_indices() {
        // ASCII first: no CJK there, and `is_alphanumeric` is `is_ascii_alphanumeric`
        let kind = if c.is_ascii() {
            c.is_ascii_alphanumeric().then_some(false)
        } else if is_cjk(c) {
            Some(true)
        } else {
            c.is_alphanumeric().then_some(false)
        };
        let continues = matches!((start, kind), (Some((_, cjk)), Some(k)) if cjk == k);
        if continues {
            continue;
        }
        if let Some((s, cjk)) = start {
            emit_run(f, text.get(s..i).unwrap_or(""), cjk);
        }
        start = kind.map(|k| (i, k));
    }
    if let Some((s, cjk)) = start {
        emit_run(f, text.get(s..).unwrap_or(""), cjk);
    }
}

fn emit_run<'a>(f: &mut dyn FnMut(Run<'a>), run: &'a str, cjk: bool) {
    if !run.is_empty() {
        f(if cjk { Run::Cjk(run) } else { Run::Word(run) });
    }
}

/// How many words a text has: each word of a spaced script, and each CJK character. "Fewer
/// than four words" then means the same in English and in Chinese.
pub fn word_count(text: &str) -> usize {
    runs(text)
        .iter()
        .map(|r| match r {
            Run::Word(_) => 1,
            Run::Cjk(s) => s.chars().count(),
        })
        .sum()
}

/// A query of one word: no white space, and at most one CJK character (a Chinese or Japanese
/// sentence has no spaces, but many words).
pub fn is_one_word(text: &str) -> bool {
    !text.contains(crate::text::is_js_whitespace)
        && text.chars().filter(|&c| is_cjk(c)).count() <= 1
}

/// The parts of an identifier: `camelCase`, `HTTPServer`, `snake_case` and digits split
/// (`parseHTTPResponse2` → `parse`, `http`, `response`, `2`), lower-cased. A plain word is
/// itself.
pub fn identifier_parts(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut parts = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            None => false,
            Some(p) => {
                (p.is_lowercase() && c.is_uppercase())
                    || (p.is_alphabetic() && c.is_numeric())
                    || (p.is_numeric() && c.is_alphabetic())
                    // the last capital of an acronym starts the next word: HTTPServer → HTTP, Server
                    || (p.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase))
            }
        };
        if boundary && !current.is_empty() {
            parts.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// Overlapping character pairs of a CJK run (the run itself when it is one character).
pub fn bigrams(run: &str) -> Vec<String> {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() < 2 {
        return vec![run.to_owned()];
    }
    chars.windows(2).map(|w| w.iter().collect()).collect()
}

/// The terms a text is compared by: lower-cased words (identifiers split into their parts)
/// and CJK bigrams.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, &mut |t| out.push(t.to_owned()));
    out
}

/// [`terms`] one at a time, each lent for the call: no allocation per term for words of ASCII
/// letters and digits, which most are.
pub fn for_each_term(text: &str, f: &mut dyn FnMut(&str)) {
    let mut part = String::new();
    for_each_run(text, &mut |run| match run {
        Run::Word(w) if w.is_ascii() => ascii_identifier_parts(w, &mut part, f),
        Run::Word(w) => identifier_parts(w).iter().for_each(|p| f(p)),
        Run::Cjk(s) => bigrams(s).iter().for_each(|b| f(b)),
    });
}

/// [`identifier_parts`] of a word of ASCII letters and digits (a run of [`runs`]), where
/// lower, upper, letter and digit are the ASCII classes: each part lower-cased into `part`
/// and lent to `f`.
fn ascii_identifier_parts(word: &str, part: &mut String, f: &mut dyn FnMut(&str)) {
    let bytes = word.as_bytes();
    let mut start = 0;
    for (i, pair) in bytes.windows(2).enumerate() {
        let (p, c) = match pair {
            [p, c] => (*p, *c),
            _ => continue,
        };
        let next = bytes.get(i + 2).copied();
        let boundary = (p.is_ascii_lowercase() && c.is_ascii_uppercase())
            || (p.is_ascii_alphabetic() && c.is_ascii_digit())
            || (p.is_ascii_digit() && c.is_ascii_alphabetic())
            || (p.is_ascii_uppercase()
                && c.is_ascii_uppercase()
                && next.is_some_and(|n| n.is_ascii_lowercase()));
        if boundary {
            lend_lowercase(word.get(start..=i).unwrap_or(""), part, f);
            start = i + 1;
        }
    }
    lend_lowercase(word.get(start..).unwrap_or(""), part, f);
}

fn lend_lowercase(piece: &str, part: &mut String, f: &mut dyn FnMut(&str)) {
    if piece.is_empty() {
        return;
    }
    part.clear();
    part.push_str(piece);
    part.make_ascii_lowercase();
    f(part);
}

/// The words of a text for telling near-duplicates apart: spaced-script words whole
/// (lower-cased; `v1` and `v2` stay different words) and CJK bigrams.
pub fn whole_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in runs(text) {
        match run {
            Run::Word(w) => out.push(w.to_lowercase()),
            Run::Cjk(s) => out.extend(bigrams(s)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_in_every_script() {
        assert_eq!(word_count("Integration tests hit a real database"), 6);
        assert_eq!(word_count("异步入库改造方案"), 8);
        assert_eq!(word_count("OCR识别结果的置信度"), 1 + 8);
        assert_eq!(word_count("리뷰 산출물에"), 6);
        assert_eq!(word_count("  — !"), 0);
    }

    #[test]
    fn splits_identifiers_and_cjk() {
        assert_eq!(
            identifier_parts("parseHTTPResponse2"),
            ["parse", "http", "response", "2"]
        );
        assert_eq!(identifier_parts("snake"), ["snake"]);
        assert_eq!(
            terms("feedback_rust-error.md OCR识别"),
            ["feedback", "rust", "error", "md", "ocr", "识别"]
        );
        assert_eq!(terms("入库改造"), ["入库", "库改", "改造"]);
        assert_eq!(terms("库"), ["库"]);
    }

    /// The runs and terms as first written (one `char` at a time, every part allocated): the
    /// fast paths must give exactly what these give.
    fn reference_runs(text: &str) -> Vec<Run<'_>> {
        let mut out = Vec::new();
        let mut start: Option<(usize, bool)> = None;
        fn push<'a>(out: &mut Vec<Run<'a>>, text: &'a str, s: usize, e: usize, cjk: bool) {
            let run = text.get(s..e).unwrap_or("");
            if !run.is_empty() {
                out.push(if cjk { Run::Cjk(run) } else { Run::Word(run) });
            }
        }
        for (i, c) in text.char_indices() {
            let kind = if is_cjk(c) {
                Some(true)
            } else if c.is_alphanumeric() {
                Some(false)
            } else {
                None
            };
            if matches!((start, kind), (Some((_, cjk)), Some(k)) if cjk == k) {
                continue;
            }
            if let Some((s, cjk)) = start {
                push(&mut out, text, s, i, cjk);
            }
            start = kind.map(|k| (i, k));
        }
        if let Some((s, cjk)) = start {
            push(&mut out, text, s, text.len(), cjk);
        }
        out
    }

    fn reference_terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for run in reference_runs(text) {
            match run {
                Run::Word(w) => out.extend(identifier_parts(w)),
                Run::Cjk(s) => out.extend(bigrams(s)),
            }
        }
        out
    }

    #[test]
    fn fast_paths_split_as_the_reference_does() {
        // every string of up to four of these: cases, digits, separators, non-ASCII letters
        // and digits (one that lower-cases to two chars), CJK
        let alphabet = [
            'a', 'B', 'C', 'd', '1', '_', ' ', '.', 'é', 'É', 'İ', 'Ⅻ', '٣', '识', 'カ',
        ];
        let mut texts = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(last.iter().cloned());
        }
        texts.extend(
            [
                "parseHTTPResponse2 XMLHttpRequest iOS macOS v1 v2 2fa ABCDef ab12cd 12ab",
                "feedback_rust-error.md OCR识别 Ünïcödé straße ΣΊΣΥΦΟΣ 😀emoji😀 ﬁle",
            ]
            .map(str::to_owned),
        );
        for text in &texts {
            assert_eq!(runs(text), reference_runs(text), "runs of {text:?}");
            assert_eq!(terms(text), reference_terms(text), "terms of {text:?}");
        }
    }
}
