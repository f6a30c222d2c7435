//! The rule every fix obeys: **no word that exists nowhere else in the folder is removed.** A
//! fix may add, move, relink or regroup; before it removes text, [`WordLedger`] checks that
//! each word of that text is still somewhere in the folder once the change is made.
//!
//! A word is a run of letters and digits (any script), compared case-insensitively. A link's
//! destination (`](path.md)`) is an address, not words someone wrote: a fix may repoint it.

use std::collections::HashMap;

/// How many times each word occurs in the whole folder, kept up to date as fixes are planned.
#[derive(Debug, Clone, Default)]
pub(crate) struct WordLedger {
    counts: HashMap<String, u32>,
}

impl WordLedger {
    /// The words of every text given (the index and every topic file).
    pub fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut ledger = Self::default();
        for text in texts {
            ledger.add(text);
        }
        ledger
    }

    /// Counts the words of `text` (a file or a part added to one).
    pub fn add(&mut self, text: &str) {
        for_each_word(text, &mut |w| *self.counts.entry(w).or_insert(0) += 1);
    }

    /// Whether replacing `old` with `new` somewhere in the folder would leave a word of `old`
    /// nowhere at all.
    pub fn would_lose(&self, old: &str, new: &str) -> bool {
        !self.lost(old, new).is_empty()
    }

    /// Whether removing `count` copies of `text` would leave a word of it nowhere at all.
    pub fn would_lose_copies(&self, text: &str, count: usize) -> bool {
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        delta(text, "")
            .into_iter()
            .any(|(w, d)| i64::from(self.count(&w)) + d.saturating_mul(count) <= 0)
    }

    /// The words of `old` that replacing it with `new` would leave nowhere in the folder.
    pub fn lost(&self, old: &str, new: &str) -> Vec<String> {
        let delta = delta(old, new);
        let mut lost: Vec<String> = delta
            .into_iter()
            .filter(|(w, d)| *d < 0 && i64::from(self.count(w)) + d <= 0)
            .map(|(w, _)| w)
            .collect();
        crate::sort::sort(&mut lost);
        lost
    }

    /// Replaces `old` with `new` when no word is lost; returns whether it did.
    pub fn try_replace(&mut self, old: &str, new: &str) -> bool {
        if self.would_lose(old, new) {
            return false;
        }
        for (w, d) in delta(old, new) {
            let count = self.counts.entry(w).or_insert(0);
            *count = u32::try_from((i64::from(*count) + d).max(0)).unwrap_or(0);
        }
        true
    }

    fn count(&self, word: &str) -> u32 {
        self.counts.get(word).copied().unwrap_or(0)
    }
}

/// Per word: occurrences in `new` minus occurrences in `old`.
fn delta(old: &str, new: &str) -> HashMap<String, i64> {
    let mut d: HashMap<String, i64> = HashMap::new();
    for_each_word(old, &mut |w| *d.entry(w).or_insert(0) -= 1);
    for_each_word(new, &mut |w| *d.entry(w).or_insert(0) += 1);
    d.retain(|_, v| *v != 0);
    d
}

/// Calls `f` with each word of `text`, lower-cased, link destinations skipped.
pub(crate) fn for_each_word(text: &str, f: &mut dyn FnMut(String)) {
    read(text.len());
    let mut word = String::new();
    let mut chars = text.char_indices().peekable();
    let mut ends = DestinationEnds::default();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
            continue;
        }
        if !word.is_empty() {
            f(std::mem::take(&mut word));
        }
        // `](…)`: skip the destination up to its `)` (or `>)` in the `<…>` form)
        if c == ']' && text.get(i + 1..).is_some_and(|r| r.starts_with('(')) {
            if let Some(end) = ends.destination_end(text, i + 2) {
                while chars.peek().is_some_and(|&(j, _)| j < end) {
                    chars.next();
                }
            }
        }
    }
    if !word.is_empty() {
        f(word);
    }
}

/// Where a link destination ends, searched so that each stretch of a text is searched once: a
/// search that found its stop (the first `)` or end of line, the first `>)`) at or after a
/// later start has found that start's stop too. (Searching from each `](` to the end of its
/// line was quadratic: a 1 MB line of `](` took minutes.)
#[derive(Debug, Default)]
struct DestinationEnds {
    /// The last plain search: where it stopped and what it found there.
    plain: Option<PlainStop>,
    /// The last search for `>)`.
    angled: Option<AngledStop>,
}

#[derive(Debug, Clone, Copy)]
struct AngledStop {
    /// Where it started.
    from: usize,
    /// The `>)` it found, or the end of the line.
    stop: usize,
    found: Option<usize>,
}

#[derive(Debug, Clone, Copy)]
struct PlainStop {
    /// The first `)` or `\n` (or the text's end) from the start searched.
    at: usize,
    closed: bool,
    /// The last space before the white space that ends the target, if any.
    last_space: Option<usize>,
}

impl DestinationEnds {
    /// The end (past its `)`) of a link destination starting at byte `start` of `text`, on
    /// the line it starts on: `<…>)` holds anything; otherwise up to the first `)`, with no
    /// space inside (a `](` in prose followed by words is not a link).
    fn destination_end(&mut self, text: &str, start: usize) -> Option<usize> {
        let rest = text.get(start..)?;
        let body = rest.trim_start();
        let first = start + (rest.len() - body.len());
        let same_line = !text.get(start..first).unwrap_or("").contains('\n');
        if same_line && body.starts_with('<') {
            return self.angled_end(text, first + 1);
        }
        let stop = match self.plain {
            Some(stop) if start <= stop.at => stop,
            _ => {
                let at = rest.find([')', '\n']).map_or(text.len(), |i| start + i);
                searched(at - start);
                let target = text.get(start..at).unwrap_or("").trim_end();
                let stop = PlainStop {
                    at,
                    closed: text.get(at..).is_some_and(|r| r.starts_with(')')),
                    last_space: target.rfind(' ').map(|i| start + i),
                };
                self.plain = Some(stop);
                stop
            }
        };
        // the target is `text[start..stop.at]`, trimmed: a space from its first character on,
        // before the white space that ends it, makes it prose
        let inner_space = stop.last_space.is_some_and(|k| k >= first);
        (stop.closed && !inner_space).then_some(stop.at + 1)
    }

    /// The end, past `>)`, of a `<…>` destination whose text starts at byte `inner`.
    fn angled_end(&mut self, text: &str, inner: usize) -> Option<usize> {
        let found = match self.angled {
            Some(last) if last.from <= inner && inner <= last.stop => last.found,
            _ => {
                let rest = text.get(inner..)?;
                let line = rest
                    .find('\n')
                    .map_or(rest, |i| rest.get(..i).unwrap_or(rest));
                let found = line.find(">)").map(|i| inner + i);
                let stop = found.unwrap_or(inner + line.len());
                searched(stop - inner);
                self.angled = Some(AngledStop {
                    from: inner,
                    stop,
                    found,
                });
                found
            }
        };
        found.map(|at| at + 2)
    }
}

// bytes the destination searches looked at (tests: the work is bounded by the text)
#[cfg(test)]
thread_local! {
    static SEARCHED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn searched(bytes: usize) {
    SEARCHED.with(|n| n.set(n.get() + bytes));
}

#[cfg(not(test))]
fn searched(_: usize) {}

// bytes of text read for words (tests: a plan reads its folder a bounded number of times)
#[cfg(test)]
thread_local! {
    pub(crate) static READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn read(bytes: usize) {
    READ.with(|n| n.set(n.get() + bytes));
}

#[cfg(not(test))]
fn read(_: usize) {}

/// The words of `text` as a list (tests and messages).
#[cfg(test)]
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(text, &mut |w| out.push(w));
    out
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn words_skip_link_destinations() {
        assert_eq!(
            words("- [Deploy](memory/project_deploy.md) — call +1 555-0100"),
            ["deploy", "call", "1", "555", "0100"]
        );
        assert_eq!(words("[a b](<x y.md>) c"), ["a", "b", "c"]);
        assert_eq!(words("Ünïcode 東京 Ёлка"), ["ünïcode", "東京", "ёлка"]);
        // a bracket in prose followed by words is not a link
        assert_eq!(words("x](y z) w"), ["x", "y", "z", "w"]);
    }

    /// The first implementation: each `](` searched to the end of its line.
    fn reference_words(text: &str) -> Vec<String> {
        fn destination_len(rest: &str) -> Option<usize> {
            let line = rest.split('\n').next().unwrap_or("");
            let trimmed = line.trim_start();
            if let Some(inner) = trimmed.strip_prefix('<') {
                let end = inner.find(">)")?;
                return Some(line.len() - trimmed.len() + 1 + end + 2);
            }
            let end = line.find(')')?;
            let target = line.get(..end)?;
            (!target.trim().contains(' ')).then_some(end + 1)
        }
        let mut out = Vec::new();
        let mut word = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c.is_alphanumeric() {
                word.extend(c.to_lowercase());
                continue;
            }
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            if c == ']' && text.get(i + 1..).is_some_and(|r| r.starts_with('(')) {
                if let Some(len) = destination_len(text.get(i + 2..).unwrap_or("")) {
                    let end = i + 2 + len;
                    while chars.peek().is_some_and(|&(j, _)| j < end) {
                        chars.next();
                    }
                }
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
        out
    }

    proptest::proptest! {
        /// The words are the first implementation's, on texts made of what destinations are
        /// made of.
        #[test]
        fn words_are_the_first_implementations(
            text in proptest::collection::vec(proptest::sample::select(vec![
                "](", "]", "(", ")", ">)", "<", ">", " ", "\t", "\n", "\r\n", "a", "bc", "é", "\u{3000}", ".md",
            ]), 0..40).prop_map(|p| p.concat())
        ) {
            proptest::prop_assert_eq!(words(&text), reference_words(&text));
        }
    }

    #[test]
    fn removing_copies_is_removing_each() {
        let line = "- [D](d.md) — zebra okapi";
        let ledger = WordLedger::of([line, line, line, "okapi"]);
        assert!(!ledger.would_lose_copies(line, 2));
        assert!(ledger.would_lose_copies(line, 3));
        assert_eq!(
            ledger.would_lose_copies(line, 3),
            ledger.would_lose(&[line; 3].join("\n"), "")
        );
    }

    /// The destination searches look at each byte a bounded number of times, however the `](`
    /// and `<` fall (each used to search to the end of its line: a 1 MB line of `](` took
    /// minutes).
    #[test]
    fn destination_searches_are_linear() {
        for unit in ["](", "](<", "](a ", "](<a>", "[x](y.md) ", "](\t"] {
            let text = unit.repeat(20_000);
            SEARCHED.with(|n| n.set(0));
            let found = words(&text);
            let work = SEARCHED.with(std::cell::Cell::get);
            assert!(
                work <= 4 * text.len(),
                "{unit:?}: {work} bytes searched for {}",
                text.len()
            );
            assert_eq!(found, reference_words(&text), "{unit:?}");
        }
    }

    #[test]
    fn a_word_found_elsewhere_may_go_a_unique_one_may_not() {
        let mut ledger = WordLedger::of(["- [A](a.md) — deploy on friday", "deploy notes"]);
        assert!(ledger.try_replace(
            "- [A](a.md) — deploy on friday",
            "- [A](a.md) — deploy on friday"
        ));
        assert_eq!(
            ledger.lost("- [A](a.md) — deploy on friday", "- [A](a.md) — deploy…"),
            ["friday", "on"]
        );
        assert!(!ledger.try_replace("deploy on friday", ""));
        // a duplicate line: one of the two may go, then the other may not
        let line = "- [B](b.md) — the phone is 555 0199";
        let mut ledger = WordLedger::of([line, line]);
        assert!(ledger.try_replace(line, ""));
        assert!(!ledger.try_replace(line, ""));
        // relinking keeps the words
        assert!(ledger.try_replace(line, "- [B](sub/b.md) — the phone is 555 0199"));
    }
}
