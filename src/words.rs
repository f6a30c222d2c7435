//! Words in every script. Spaces separate words in English, not in Chinese or Japanese (and
//! Korean spaces separate phrases), so a rule that counts or compares words by splitting on
//! white space sees a whole Chinese sentence as one word. Here a run of CJK characters counts
//! one word a character and is compared by overlapping character pairs (bigrams), the usual
//! unit for CJK retrieval without a dictionary; identifiers (`camelCase`, `snake_case`,
//! `kebab-case`, `file.names`) are split into their words too.
//!
//! The terms a text is compared by ([`terms`]) go further, for the offline selector: an affix
//! joined by an apostrophe is dropped (`Hetzner'daki` is `hetzner`, `l'équipe` is `équipe`);
//! a CJK run is cut where its script changes, hiragana (particles and endings) is left out, a
//! Han run is also cut at its commonest function characters, and a Korean word loses a
//! trailing particle (`서버는` is `서버`) before its pairs are taken.

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
        // Turkish İ is i (not i and a combining dot, which would not meet a typed `i`)
        if c == '\u{130}' {
            current.push('i');
        } else {
            current.extend(c.to_lowercase());
        }
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// Overlapping character pairs of a CJK run (the run itself when it is one character).
pub fn bigrams(run: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_bigram(run, &mut String::new(), &mut |b| out.push(b.to_owned()));
    out
}

/// [`bigrams`] one at a time, each lent for the call from `pair`.
fn for_each_bigram(run: &str, pair: &mut String, f: &mut dyn FnMut(&str)) {
    let mut chars = run.chars();
    let Some(mut previous) = chars.next() else {
        return;
    };
    let mut one = true;
    for c in chars {
        pair.clear();
        pair.push(previous);
        pair.push(c);
        f(pair);
        previous = c;
        one = false;
    }
    if one {
        f(run);
    }
}

/// The terms a text is compared by: lower-cased words (identifiers split into their parts,
/// an affix joined by an apostrophe dropped) and CJK bigrams ([`for_each_cjk_term`]).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, &mut |t| out.push(t.to_owned()));
    out
}

/// [`terms`] one at a time, each lent for the call: no allocation per term for words of ASCII
/// letters and digits, which most are.
pub fn for_each_term(text: &str, f: &mut dyn FnMut(&str)) {
    let text = without_apostrophe_affixes(text);
    let mut part = String::new();
    for_each_run(&text, &mut |run| match run {
        Run::Word(w) if w.is_ascii() => ascii_identifier_parts(w, &mut part, f),
        Run::Word(w) => identifier_parts(w).iter().for_each(|p| f(p)),
        Run::Cjk(s) => for_each_cjk_term(s, &mut part, f),
    });
}

/// `'` and `’`; not `ʼ` (U+02BC), a letter in Ukrainian words (`мʼясо`).
fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}')
}

/// Words that lose their last vowel to an apostrophe before the next word, in French and
/// Italian (`l'équipe`, `qu'il`, `dell'utente`): the word after it is the one that counts.
/// Any single letter is one too (`d'accord`, `O'Brien`).
const ELISIONS: &[&str] = &[
    "all", "bell", "coll", "dall", "dell", "jusqu", "lorsqu", "nell", "nessun", "puisqu", "qu",
    "quell", "quest", "quoiqu", "sull", "tutt", "un",
];

/// `text` with each word of letters joined by apostrophes (`'`, `’`) cut to the word
/// that carries the meaning: the first, its suffixes dropped (Turkish `Hetzner'daki`,
/// `API’ye`; English `user's`), unless the first is an elided article or preposition (French,
/// Italian: `l'équipe`, `dell'utente`), then what follows it. The text is borrowed when it has
/// no apostrophe.
pub fn without_apostrophe_affixes(text: &str) -> std::borrow::Cow<'_, str> {
    // two searches for a byte (a character predicate would decode every character)
    if !text.contains('\'') && !text.contains('\u{2019}') {
        return text.into();
    }
    let in_word = |c: char| c.is_alphanumeric() || is_apostrophe(c);
    let elided =
        |p: &str| p.chars().nth(1).is_none() || ELISIONS.iter().any(|e| e.eq_ignore_ascii_case(p));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(in_word) {
        let (between, word) = rest.split_at(start);
        out.push_str(between);
        let end = word.find(|c| !in_word(c)).unwrap_or(word.len());
        let (word, after) = word.split_at(end);
        rest = after;
        // the first part that is not an elision (the last when all are)
        let mut kept = "";
        for part in word.split(is_apostrophe).filter(|p| !p.is_empty()) {
            kept = part;
            if !elided(part) {
                break;
            }
        }
        out.push_str(kept);
        out.push(' ');
    }
    out.push_str(rest);
    out.into()
}

/// The scripts of a CJK run, which a term never crosses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Han,
    Hiragana,
    Katakana,
    Hangul,
    /// The katakana middle dot and double hyphen: they separate words.
    Mark,
}

fn script(c: char) -> Script {
    match c {
        '\u{3040}'..='\u{309F}' => Script::Hiragana,
        '\u{30A0}' | '\u{30FB}' => Script::Mark,
        '\u{30A1}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' => Script::Katakana,
        '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' | '\u{AC00}'..='\u{D7AF}' => {
            Script::Hangul
        }
        _ => Script::Han,
    }
}

/// Han characters that are mostly grammar (particles, pronouns, question words, the copula):
/// a Han run is cut at them, as at a space, so `的置`, `怎么` or `了，` never become terms.
const HAN_FUNCTION_CHARACTERS: &str =
    "么了们他你吗吧呢和哪啊在她就很怎把是被这那都的我也它什何为些啥谁给呀嘛";

/// Korean particles and the polite ending, longest first: dropped from the end of a word that
/// keeps at least two syllables (`서버는` → `서버`, `데이터베이스에서` → `데이터베이스`).
const HANGUL_PARTICLES: &[&str] = &[
    "에서는",
    "에서도",
    "에게서",
    "으로는",
    "으로도",
    "이라는",
    "이라고",
    "입니다",
    "에서",
    "에게",
    "한테",
    "까지",
    "부터",
    "으로",
    "보다",
    "처럼",
    "이나",
    "이랑",
    "라는",
    "라고",
    "에는",
    "에도",
    "마다",
    "만큼",
    "이다",
    "은",
    "는",
    "이",
    "가",
    "을",
    "를",
    "에",
    "의",
    "와",
    "과",
    "도",
    "로",
    "만",
    "랑",
    "요",
];

/// The terms of a CJK run: cut where its script changes; hiragana left out (particles, verb
/// endings); a katakana word without its final long-vowel mark (`サーバー` = `サーバ`); a
/// Korean word without a trailing particle; a Han run cut at [`HAN_FUNCTION_CHARACTERS`];
/// then each piece's character pairs (a piece of one character is itself).
fn for_each_cjk_term(run: &str, pair: &mut String, f: &mut dyn FnMut(&str)) {
    let mut rest = run;
    while let Some(first) = rest.chars().next() {
        let kind = script(first);
        let end = rest
            .char_indices()
            .find(|&(_, c)| script(c) != kind)
            .map_or(rest.len(), |(i, _)| i);
        let (piece, after) = rest.split_at(end);
        rest = after;
        match kind {
            Script::Hiragana | Script::Mark => {}
            Script::Katakana => {
                let trimmed = piece.trim_end_matches('\u{30FC}');
                let piece = if trimmed.chars().nth(2).is_some() {
                    trimmed
                } else {
                    piece
                };
                for_each_bigram(piece, pair, f);
            }
            Script::Hangul => {
                let stem = HANGUL_PARTICLES
                    .iter()
                    .filter_map(|p| piece.strip_suffix(p))
                    .find(|stem| stem.chars().nth(1).is_some())
                    .unwrap_or(piece);
                for_each_bigram(stem, pair, f);
            }
            Script::Han => piece
                .split(|c| HAN_FUNCTION_CHARACTERS.contains(c))
                .filter(|s| !s.is_empty())
                .for_each(|s| for_each_bigram(s, pair, f)),
        }
    }
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

    #[test]
    fn an_apostrophe_joins_a_word_to_its_affix() {
        assert_eq!(terms("Hetzner'daki sunucu"), ["hetzner", "sunucu"]);
        assert_eq!(terms("API’ye GitHub'ın"), ["api", "git", "hub"]);
        assert_eq!(
            terms("l'équipe dell'utente qu'il"),
            ["équipe", "utente", "il"]
        );
        assert_eq!(
            terms("don't 'quoted' users' O'Brien"),
            ["don", "quoted", "users", "brien"]
        );
        assert_eq!(terms("rock'n'roll a'b"), ["rock", "b"]);
        assert_eq!(without_apostrophe_affixes("no apostrophe"), "no apostrophe");
        // U+02BC is a letter of the word it is in
        assert_eq!(terms("мʼясо"), ["мʼясо"]);
    }

    #[test]
    fn cjk_runs_are_cut_by_script_and_grammar() {
        // hiragana left out, the long-vowel mark at a katakana word's end dropped
        assert_eq!(
            terms("サーバーの設定を変更した"),
            ["サー", "ーバ", "設定", "変更"]
        );
        assert_eq!(terms("キー・バリュー"), ["キー", "バリ", "リュ"]);
        // a trailing particle, when two syllables stay
        assert_eq!(terms("서버는 키가 회의"), ["서버", "키가", "회의"]);
        // Chinese function characters cut a run
        assert_eq!(terms("为什么缓存的时间"), ["缓存", "时间"]);
        // a run of one script is compared by its pairs, as before
        assert_eq!(terms("入库改造"), ["入库", "库改", "改造"]);
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
        let text = without_apostrophe_affixes(text);
        for run in reference_runs(&text) {
            match run {
                Run::Word(w) => out.extend(identifier_parts(w)),
                Run::Cjk(s) => {
                    for_each_cjk_term(s, &mut String::new(), &mut |t| out.push(t.to_owned()))
                }
            }
        }
        out
    }

    #[test]
    fn fast_paths_split_as_the_reference_does() {
        // every string of up to four of these: cases, digits, separators, non-ASCII letters
        // and digits (one that lower-cases to two chars), CJK
        let alphabet = [
            'a', 'B', 'C', 'd', '1', '_', ' ', '.', 'é', 'É', 'İ', 'Ⅻ', '٣', '识', 'カ', '\'',
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
