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

    /// The words of `old` that replacing it with `new` would leave nowhere in the folder.
    pub fn lost(&self, old: &str, new: &str) -> Vec<String> {
        let delta = delta(old, new);
        let mut lost: Vec<String> = delta
            .into_iter()
            .filter(|(w, d)| *d < 0 && i64::from(self.count(w)) + d <= 0)
            .map(|(w, _)| w)
            .collect();
        lost.sort();
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
    let mut word = String::new();
    let mut chars = text.char_indices().peekable();
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
            if let Some(len) = destination_len(text.get(i + 2..).unwrap_or("")) {
                let end = i + 2 + len;
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

/// The length in bytes of a link destination and its closing `)`, on one line.
fn destination_len(rest: &str) -> Option<usize> {
    let line = rest.split('\n').next().unwrap_or("");
    let trimmed = line.trim_start();
    if let Some(inner) = trimmed.strip_prefix('<') {
        let end = inner.find(">)")?;
        return Some(line.len() - trimmed.len() + 1 + end + 2);
    }
    let end = line.find(')')?;
    let target = line.get(..end)?;
    // a destination has no spaces (a `](` in prose followed by words is not a link)
    (!target.trim().contains(' ')).then_some(end + 1)
}

/// The words of `text` as a list (tests and messages).
#[cfg(test)]
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(text, &mut |w| out.push(w));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
