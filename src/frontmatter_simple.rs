//! The frontmatter nearly every memory has — `key: value` lines, and one block of them indented
//! under a key (`metadata:`) — read without the YAML parser.
//!
//! A scan reads up to 200 headers a turn, and the event parser is most of its time. The lines
//! accepted here are ones YAML reads one way only; every value goes through the same scalar
//! resolution as the parser's ([`crate::yaml_engine::resolve_plain`]), so `n: 3` is still a
//! number and `b: true` a boolean. Anything else — a quoted value with escapes, a folded or
//! literal block, a list, a comment, a blank line, a tab, a repeated key, a second level of
//! nesting — returns `None` and the full parser reads the whole text. `tests/properties.rs`
//! checks the two agree on every text accepted here.

use std::collections::HashMap;

use gray_matter::Pod;

use crate::yaml_engine::resolve_plain;

/// The mapping `yaml` holds, when every line is one this reader knows YAML reads one way;
/// `None` sends the text to the full parser.
pub fn simple_mapping(yaml: &str) -> Option<HashMap<String, Pod>> {
    if yaml.is_empty() {
        return None;
    }
    let mut map: HashMap<String, Pod> = HashMap::new();
    let mut lines = yaml.split('\n').peekable();
    while let Some(line) = lines.next() {
        let (key, value) = entry(line)?;
        if map.contains_key(key) {
            return None;
        }
        let node = match value {
            Some(value) => value,
            // `key:` alone: null, or the block indented under it
            None => match lines.peek().map(|l| indent_of(l)) {
                Some(indent) if indent > 0 => {
                    let mut block: HashMap<String, Pod> = HashMap::new();
                    while let Some(inner) = lines.next_if(|l| indent_of(l) > 0) {
                        if indent_of(inner) != indent {
                            return None;
                        }
                        let (k, v) = entry(inner.get(indent..)?)?;
                        if block.contains_key(k) {
                            return None;
                        }
                        // `k:` alone inside the block would open a second level
                        block.insert(k.to_owned(), v?);
                    }
                    Pod::Hash(block)
                }
                _ => Pod::Null,
            },
        };
        map.insert(key.to_owned(), node);
    }
    Some(map)
}

/// Spaces before the first character (a line of only spaces counts as unindented: it is refused).
fn indent_of(line: &str) -> usize {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    if spaces == line.len() {
        0
    } else {
        spaces
    }
}

/// Keys longer than this go to the parser.
const MAX_KEY_BYTES: usize = 128;

/// `key: value` → the key and `Some(value)`; `key:` (spaces after it at most) → `None` for the
/// value; anything else → `None` for the line.
fn entry(line: &str) -> Option<(&str, Option<Pod>)> {
    let colon = line.find(':')?;
    let key = line.get(..colon)?;
    if !plain_key(key) {
        return None;
    }
    let rest = line.get(colon + 1..)?;
    if rest.trim_end_matches(' ').is_empty() {
        return Some((key, None));
    }
    let value = rest.strip_prefix(' ')?.trim_matches(' ');
    Some((key, Some(scalar(value)?)))
}

/// A key YAML reads as this very text: a letter or `_`, then letters, digits, `_`, `-`; not a
/// word the core schema reads as null or a boolean.
fn plain_key(key: &str) -> bool {
    // YAML takes an implicit key of at most 1,024 characters (the fuzz target found the parser
    // refusing a longer one); a memory's keys are short
    if key.len() > MAX_KEY_BYTES {
        return false;
    }
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !is_reserved_word(key)
}

fn is_reserved_word(s: &str) -> bool {
    matches!(
        s,
        "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
    )
}

/// One value on its line: a plain scalar, or a quoted one with nothing to unescape.
fn scalar(value: &str) -> Option<Pod> {
    let first = value.chars().next()?;
    if !value.chars().all(plain_char) {
        return None;
    }
    match first {
        '"' | '\'' => {
            let inner = value.strip_prefix(first)?.strip_suffix(first)?;
            // an escape, the quote itself (doubled `''`, or a second value), nothing else
            if inner.contains(first) || (first == '"' && inner.contains('\\')) {
                return None;
            }
            Some(Pod::String(inner.to_owned()))
        }
        // indicators that give a plain scalar's first character another meaning
        '-' | '?' | ':' | ',' | '[' | ']' | '{' | '}' | '#' | '&' | '*' | '!' | '|' | '>' | '%'
        | '@' | '`' => None,
        _ => {
            // `: ` or a final `:` would start a mapping; ` #` a comment; white space at the
            // end beyond the ASCII space (U+00A0, U+3000, …) is trimmed by the parser
            let bytes = value.as_bytes();
            let mapping_or_comment = bytes.windows(2).any(|w| w == b": " || w == b" #");
            if mapping_or_comment || value.ends_with(':') || value.ends_with(char::is_whitespace) {
                return None;
            }
            Some(resolve_plain(value.to_owned()))
        }
    }
}

/// Printable characters YAML takes in a scalar, less those some readers take for line breaks
/// (U+0085, U+2028, U+2029) and the byte-order mark; tabs and controls are refused.
fn plain_char(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{A0}'..='\u{2027}' | '\u{202A}'..='\u{D7FF}' | '\u{E000}'..='\u{FEFE}' | '\u{FF00}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn read(yaml: &str) -> Option<HashMap<String, Pod>> {
        simple_mapping(yaml)
    }

    #[test]
    fn reads_what_claude_code_writes() {
        let map = read("name: Deploy checklist\ndescription: Staging first, then prod (see [runbook])\nmetadata:\n  type: project\n  originSessionId: 5b0c\n  modified: 2026-11-02T10:00:00Z\n  turns: 12").unwrap();
        assert_eq!(map["name"], Pod::String("Deploy checklist".into()));
        assert_eq!(
            map["description"],
            Pod::String("Staging first, then prod (see [runbook])".into())
        );
        let Pod::Hash(meta) = &map["metadata"] else {
            unreachable!("a block")
        };
        assert_eq!(
            meta["turns"],
            Pod::Integer(12),
            "resolved as the parser does"
        );
        assert_eq!(meta["modified"], Pod::String("2026-11-02T10:00:00Z".into()));
    }

    #[test]
    fn sends_everything_else_to_the_parser() {
        let long_key = format!("{}: x", "k".repeat(2000));
        for yaml in [
            "",
            "description: >\n  folded",
            "description: a: b",
            "description: ends with:",
            "name: x # a comment",
            "name: \"with \\\" escape\"",
            "name: 'it''s'",
            "name: x\n\ntype: user",
            "name: x\nname: y",
            "tags:\n  - a",
            "metadata:\n  deep:\n    x: 1",
            "metadata:\n  a: 1\n    b: 2",
            "name:\tx",
            "name: - x",
            "true: x",
            "1.0: x",
            "# comment",
            "name: x\n  continued",
            "name: a\u{2028}b",
            "name: a\u{a0}",
            &long_key,
            "metadata:\n  k: a\u{3000}",
        ] {
            assert_eq!(read(yaml), None, "{yaml:?}");
        }
    }

    #[test]
    fn empty_values_are_null() {
        let map = read("name:\ntype: user").unwrap();
        assert_eq!(map["name"], Pod::Null);
        assert_eq!(map["type"], Pod::String("user".into()));
    }
}
