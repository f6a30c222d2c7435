//! One key of a topic file's frontmatter changed, every other byte kept: the line endings, a
//! byte-order mark, comments, the other keys in their order, the body. Used by the writers that
//! record a fact about a memory without rewriting it: supersession (`superseded_by`) and touch
//! (`metadata.modified`).

use crate::error::{Error, Refusal};
use crate::frontmatter::{parse_header, Fields, Header};
use crate::text::{is_js_whitespace, normalize_text};

/// A `---` line, as the scan reads one (`frontmatter::parse_header`): blanks after it allowed.
fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches(is_js_whitespace) == "---"
}

/// The frontmatter's lines, as byte ranges of `text`: where its first key line starts and
/// where its closing `---` line starts.
struct Block {
    /// Byte offset of the line after the opening `---`.
    start: usize,
    /// Byte offset of the closing `---` line (or of a `...` line before it).
    end: usize,
    /// The file's line ending (`\r\n` when the opening line has one).
    newline: &'static str,
}

/// The lines of `text[from..to]` with their byte offsets (each line without its `\n`).
fn lines(text: &str, from: usize, to: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut at = from;
    while at < to {
        let rest = text.get(at..to).unwrap_or("");
        let len = rest.find('\n').map_or(rest.len(), |n| n + 1);
        out.push((at, rest.get(..len).unwrap_or("")));
        at += len;
    }
    out
}

fn no_frontmatter(what: &str) -> Error {
    Error::refused(
        Refusal::InvalidMemory,
        format!("{what}: the file has no frontmatter (a `---` line at its start, closed by another); `memdir doctor --fix` can add one"),
    )
}

fn block(text: &str) -> Result<Block, Error> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    let first = body.split('\n').next().unwrap_or("");
    if !is_delimiter(first) {
        return Err(no_frontmatter("it cannot be marked"));
    }
    let newline = if first.ends_with('\r') { "\r\n" } else { "\n" };
    let start = bom + first.len() + 1;
    if start > text.len() {
        return Err(no_frontmatter("it cannot be marked"));
    }
    // YAML's document end (`...`) ends what the parser reads: the keys are before it
    let mut ended = None;
    for (at, line) in lines(text, start, text.len()) {
        if is_delimiter(line) {
            return Ok(Block {
                start,
                end: ended.unwrap_or(at),
                newline,
            });
        }
        if ended.is_none() && line.trim_end_matches(is_js_whitespace) == "..." {
            ended = Some(at);
        }
    }
    Err(no_frontmatter("it cannot be marked"))
}

/// `key:` at the start of `line` (after `indent`), as YAML writes a mapping key (blanks before
/// the colon allowed, as the parser allows them).
fn is_key(line: &str, indent: &str, key: &str) -> bool {
    line.strip_prefix(indent)
        .and_then(|rest| rest.strip_prefix(key))
        .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'))
}

/// A line that only a comment or blanks: part of no value.
fn is_comment_or_blank(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// A `-` entry of a sequence written at the key's own column (YAML allows it).
fn is_entry(line: &str) -> bool {
    let t = line.trim_end_matches(['\n', '\r']);
    t == "-" || t.starts_with("- ") || t.starts_with("-\t")
}

/// The index of the last line of the value of the key on line `i` (`i` when it has none after
/// it): the indented lines after it and a sequence's `-` lines, with the blank lines and comments
/// between them, not those after them.
fn value_end(all: &[(usize, &str)], i: usize) -> usize {
    let mut last = i;
    let mut j = i + 1;
    while let Some((_, l)) = all.get(j) {
        if !is_comment_or_blank(l) {
            if !(l.starts_with([' ', '\t']) || is_entry(l)) {
                break;
            }
            last = j;
        }
        j += 1;
    }
    last
}

/// The line ending `line` has, or the file's when it has none (the last line).
fn ending<'a>(line: &'a str, newline: &'a str) -> &'a str {
    if line.ends_with("\r\n") {
        "\r\n"
    } else if line.ends_with('\n') {
        "\n"
    } else {
        newline
    }
}

/// Sets the top-level `key` to `yaml_value` (already YAML: quote it with `yaml::scalar`): its
/// line (and any indented lines of its old value) replaced, or a line added before the closing
/// `---`.
pub fn set_top_level_key(text: &str, key: &str, yaml_value: &str) -> Result<String, Error> {
    let b = block(text)?;
    let all = lines(text, b.start, b.end);
    let mut out = String::with_capacity(text.len() + key.len() + yaml_value.len() + 4);
    // a key written twice reads as its last (the parser's rule): that one is edited
    if let Some(i) = all.iter().rposition(|(_, l)| is_key(l, "", key)) {
        let (at, line) = all.get(i).copied().unwrap_or((b.end, ""));
        let resume = all.get(value_end(&all, i) + 1).map_or(b.end, |(at, _)| *at);
        out.push_str(text.get(..at).unwrap_or(""));
        out.push_str(&format!("{key}: {yaml_value}{}", ending(line, b.newline)));
        out.push_str(text.get(resume..).unwrap_or(""));
    } else {
        out.push_str(text.get(..b.end).unwrap_or(""));
        out.push_str(&format!("{key}: {yaml_value}{}", b.newline));
        out.push_str(text.get(b.end..).unwrap_or(""));
    }
    checked(text, out, Edit::Set(key))
}

/// Removes the top-level `key` (its lines and any indented lines of its value, every time it
/// is written); the text as it was when there is none.
pub fn remove_top_level_key(text: &str, key: &str) -> Result<String, Error> {
    let b = block(text)?;
    let all = lines(text, b.start, b.end);
    let mut out = String::with_capacity(text.len());
    let mut kept_from = 0;
    let mut i = 0;
    while let Some((at, line)) = all.get(i) {
        if !is_key(line, "", key) {
            i += 1;
            continue;
        }
        i = value_end(&all, i) + 1;
        out.push_str(text.get(kept_from..*at).unwrap_or(""));
        kept_from = all.get(i).map_or(b.end, |(at, _)| *at);
    }
    if kept_from == 0 {
        return Ok(text.to_owned()); // no such key
    }
    out.push_str(text.get(kept_from..).unwrap_or(""));
    checked(text, out, Edit::Removed(key))
}

/// Sets `metadata.<key>` to `yaml_value`: the line replaced inside the `metadata:` block, or
/// added at its end with the block's indentation, or a new block before the closing `---`. A
/// `metadata:` that is not a block (`metadata: {…}`) is `INVALID_MEMORY`: it is not edited.
pub fn set_metadata_key(text: &str, key: &str, yaml_value: &str) -> Result<String, Error> {
    let b = block(text)?;
    let all = lines(text, b.start, b.end);
    let Some(i) = all.iter().rposition(|(_, l)| is_key(l, "", "metadata")) else {
        let added = format!("metadata:{nl}  {key}: {yaml_value}{nl}", nl = b.newline);
        let out = format!(
            "{}{added}{}",
            text.get(..b.end).unwrap_or(""),
            text.get(b.end..).unwrap_or("")
        );
        return checked(text, out, Edit::Metadata(key));
    };
    let head = all.get(i).map_or("", |(_, l)| *l);
    let inline = head
        .get("metadata:".len()..)
        .unwrap_or("")
        .split('#')
        .next()
        .unwrap_or("")
        .trim();
    if !inline.is_empty() {
        return Err(Error::refused(
            Refusal::InvalidMemory,
            format!("its `metadata:` is not a block (`{}`): memdir edits a block of `key: value` lines only", head.trim()),
        ));
    }
    let inner = all.get(i + 1..=value_end(&all, i)).unwrap_or(&[]);
    let first = inner.iter().find(|(_, l)| !is_comment_or_blank(l));
    if first.is_some_and(|(_, l)| is_entry(l.trim_start_matches([' ', '\t']))) {
        return Err(Error::refused(
            Refusal::InvalidMemory,
            "its `metadata:` is a list, not a block: memdir edits a block of `key: value` lines only",
        ));
    }
    let indent: String = first.map_or("  ".to_owned(), |(_, l)| {
        l.chars().take_while(|c| *c == ' ' || *c == '\t').collect()
    });
    if let Some((at, line)) = inner.iter().rev().find(|(_, l)| is_key(l, &indent, key)) {
        let end = at + line.len();
        let out = format!(
            "{}{indent}{key}: {yaml_value}{}{}",
            text.get(..*at).unwrap_or(""),
            ending(line, b.newline),
            text.get(end..).unwrap_or("")
        );
        return checked(text, out, Edit::Metadata(key));
    }
    // after the block's last line that has text (blank lines at its end stay after it)
    let after = inner
        .iter()
        .rev()
        .find(|(_, l)| !l.trim().is_empty())
        .map_or_else(
            || all.get(i).map_or(b.end, |(at, l)| at + l.len()),
            |(at, l)| at + l.len(),
        );
    let before = text.get(..after).unwrap_or("");
    let lead = if before.ends_with('\n') {
        ""
    } else {
        b.newline
    };
    let out = format!(
        "{before}{lead}{indent}{key}: {yaml_value}{}{}",
        b.newline,
        text.get(after..).unwrap_or("")
    );
    checked(text, out, Edit::Metadata(key))
}

/// The edit made, for [`checked`].
#[derive(Clone, Copy)]
enum Edit<'a> {
    Set(&'a str),
    Removed(&'a str),
    Metadata(&'a str),
}

/// What the scan reads of `text`'s frontmatter (all of it).
fn read(text: &str) -> Option<Fields> {
    match parse_header(&normalize_text(text), usize::MAX) {
        Header::Parsed(fields) => Some(fields),
        _ => None,
    }
}

/// `edited` when the scan reads its frontmatter as it reads `text`'s but for the one key the
/// edit is about (set, or gone); else `INVALID_MEMORY`. Line edits are no YAML parser: a shape
/// they misjudge (a `metadata:` that is a list or a text, a document end, a key written twice)
/// is refused here rather than written with another meaning.
fn checked(text: &str, edited: String, edit: Edit) -> Result<String, Error> {
    let refused = || {
        let key = match edit {
            Edit::Set(k) | Edit::Removed(k) => k.to_owned(),
            Edit::Metadata(k) => format!("metadata.{k}"),
        };
        Error::refused(
            Refusal::InvalidMemory,
            format!("its frontmatter is not in a shape memdir can change `{key}` in without changing what the rest of it says; edit it by hand"),
        )
    };
    let (Some(before), Some(after)) = (read(text), read(&edited)) else {
        return Err(refused());
    };
    let top = match edit {
        Edit::Set(k) | Edit::Removed(k) => Some(k),
        Edit::Metadata(_) => None,
    };
    let meta = match edit {
        Edit::Metadata(k) => Some(k),
        Edit::Set(_) | Edit::Removed(_) => None,
    };
    let unless = |key: &str, same: bool| top == Some(key) || same;
    let without = |f: &Fields| {
        f.metadata.clone().map(|mut m| {
            if let Some(k) = meta {
                m.remove(k);
            }
            m
        })
    };
    // valid YAML stays valid YAML (not read by recovery, with a warning)
    let kept = (before.recovered.is_some() || after.recovered.is_none())
        && unless("name", before.name == after.name)
        && unless("description", before.description == after.description)
        && (top.is_some_and(|k| k == "type" || k == "metadata")
            || meta == Some("type")
            || before.memory_type == after.memory_type)
        && unless("superseded_by", before.superseded_by == after.superseded_by)
        && (top == Some("metadata")
            || without(&before).unwrap_or_default() == without(&after).unwrap_or_default());
    let done = match edit {
        Edit::Set("superseded_by") => after.superseded_by.is_some(),
        Edit::Removed("superseded_by") => after.superseded_by.is_none(),
        Edit::Metadata(k) => after
            .metadata
            .as_ref()
            .and_then(|m| m.get(k))
            .is_some_and(|v| !v.is_null()),
        Edit::Set(_) | Edit::Removed(_) => true,
    };
    if kept && done {
        Ok(edited)
    } else {
        Err(refused())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn a_top_level_key_is_added_or_replaced_and_nothing_else_moves() {
        let t = "---\nname: A\ndescription: a # note\n---\n\nBody.\n";
        assert_eq!(
            set_top_level_key(t, "superseded_by", "b.md").unwrap(),
            "---\nname: A\ndescription: a # note\nsuperseded_by: b.md\n---\n\nBody.\n"
        );
        let marked =
            "\u{feff}---\r\nname: A\r\nsuperseded_by:\r\n  - old\r\ntype: user\r\n---\r\nB\r\n";
        assert_eq!(
            set_top_level_key(marked, "superseded_by", "c.md").unwrap(),
            "\u{feff}---\r\nname: A\r\nsuperseded_by: c.md\r\ntype: user\r\n---\r\nB\r\n"
        );
        assert_eq!(
            remove_top_level_key(marked, "superseded_by").unwrap(),
            "\u{feff}---\r\nname: A\r\ntype: user\r\n---\r\nB\r\n"
        );
        // a key that only starts the same is another key
        let t = "---\nsuperseded_by_me: x\n---\n";
        assert_eq!(
            set_top_level_key(t, "superseded_by", "y.md").unwrap(),
            "---\nsuperseded_by_me: x\nsuperseded_by: y.md\n---\n"
        );
    }

    #[test]
    fn a_metadata_key_goes_inside_the_block_at_its_indentation() {
        let t = "---\nname: A\nmetadata:\n    node_type: memory\n    modified: 2020-01-01T00:00:00.000Z\ntype: user\n---\nB\n";
        assert_eq!(
            set_metadata_key(t, "modified", "2026-12-05T00:00:00.000Z").unwrap(),
            "---\nname: A\nmetadata:\n    node_type: memory\n    modified: 2026-12-05T00:00:00.000Z\ntype: user\n---\nB\n"
        );
        let t = "---\nname: A\nmetadata:\n  node_type: memory\n\n---\nB";
        assert_eq!(
            set_metadata_key(t, "modified", "X").unwrap(),
            "---\nname: A\nmetadata:\n  node_type: memory\n  modified: X\n\n---\nB"
        );
        let t = "---\r\nname: A\r\n---\r\nB";
        assert_eq!(
            set_metadata_key(t, "modified", "X").unwrap(),
            "---\r\nname: A\r\nmetadata:\r\n  modified: X\r\n---\r\nB"
        );
        let t = "---\nmetadata:\n---\n";
        assert_eq!(
            set_metadata_key(t, "modified", "X").unwrap(),
            "---\nmetadata:\n  modified: X\n---\n"
        );
        assert!(set_metadata_key("---\nmetadata: {a: 1}\n---\n", "modified", "X").is_err());
    }

    #[test]
    fn the_delimiters_are_the_scans() {
        // the scan closes the frontmatter at `---` followed by blanks: the key goes there, not
        // before a rule (`---`) further down the body
        let t = "---\nname: A\n--- \nBody.\n\n---\nMore.\n";
        assert_eq!(
            set_metadata_key(t, "modified", "X").unwrap(),
            "---\nname: A\nmetadata:\n  modified: X\n--- \nBody.\n\n---\nMore.\n"
        );
        assert_eq!(
            set_top_level_key(t, "superseded_by", "b.md").unwrap(),
            "---\nname: A\nsuperseded_by: b.md\n--- \nBody.\n\n---\nMore.\n"
        );
        // an opening line with blanks after it opens one too
        let t = "---\t\r\nname: A\r\n---\r\nB\r\n";
        assert_eq!(
            set_top_level_key(t, "superseded_by", "b.md").unwrap(),
            "---\t\r\nname: A\r\nsuperseded_by: b.md\r\n---\r\nB\r\n"
        );
    }

    /// What the scan reads from `text` after an edit.
    fn read_back(text: &str) -> crate::frontmatter::Fields {
        let head = crate::text::normalize_text(text);
        match crate::frontmatter::parse_header(&head, 30) {
            crate::frontmatter::Header::Parsed(fields) => fields,
            other => panic!("not parsed: {other:?}"),
        }
    }

    #[test]
    fn quoted_values_are_replaced_and_values_that_need_quotes_read_back() {
        use crate::write::yaml::scalar;
        // a quoted old value, with a comment after it, is one line replaced
        let t = "---\nname: A\nsuperseded_by: \"old one.md\" # was\ntype: user\n---\nB\n";
        let value = scalar("2024: notes #1.md");
        assert_eq!(value, "\"2024: notes #1.md\"");
        let edited = set_top_level_key(t, "superseded_by", &value).unwrap();
        assert_eq!(
            edited,
            "---\nname: A\nsuperseded_by: \"2024: notes #1.md\"\ntype: user\n---\nB\n"
        );
        assert_eq!(
            read_back(&edited).superseded_by.as_deref(),
            Some("2024: notes #1.md")
        );
        // a `key :` the parser reads as the key is the key: replaced, not written twice
        let t = "---\nname: A\nsuperseded_by : a.md\n---\nB\n";
        let edited = set_top_level_key(t, "superseded_by", "b.md").unwrap();
        assert_eq!(edited, "---\nname: A\nsuperseded_by: b.md\n---\nB\n");
        assert_eq!(read_back(&edited).superseded_by.as_deref(), Some("b.md"));
        // metadata.modified with a quoted old time, in a BOM + CRLF file, reads back as the new time
        let t = "\u{feff}---\r\nname: A\r\nmetadata:\r\n  modified: \"2020-01-01T00:00:00.000Z\"\r\n  originSessionId: s\r\n---\r\nB\r\n";
        let edited = set_metadata_key(t, "modified", "2026-12-05T00:00:00.000Z").unwrap();
        assert_eq!(
            edited,
            "\u{feff}---\r\nname: A\r\nmetadata:\r\n  modified: 2026-12-05T00:00:00.000Z\r\n  originSessionId: s\r\n---\r\nB\r\n"
        );
        assert_eq!(read_back(&edited).modified_ms, Some(1_796_428_800_000.0));
        assert_eq!(
            remove_top_level_key(&edited, "superseded_by").unwrap(),
            edited,
            "no key: the text as it was"
        );
    }

    #[test]
    fn a_shape_the_lines_would_misjudge_is_refused_not_rewritten() {
        // a `metadata:` that is a list or a text: refused
        for t in [
            "---\nmetadata:\n- a\n---\n",
            "---\nmetadata:\n  - a\n---\n",
            "---\nmetadata:\n  some text\n---\n",
        ] {
            let e = set_metadata_key(t, "modified", "X").unwrap_err();
            assert_eq!(e.code().as_str(), "INVALID_MEMORY", "{t:?}");
        }
        // a key written twice reads as its last: that one is edited
        let t = "---\nmetadata:\n  a: 1\nmetadata:\n  b: 2\n---\n";
        assert_eq!(
            set_metadata_key(t, "modified", "2026-12-05T00:00:00.000Z").unwrap(),
            "---\nmetadata:\n  a: 1\nmetadata:\n  b: 2\n  modified: 2026-12-05T00:00:00.000Z\n---\n"
        );
        // a sequence at the key's column is the key's value: replaced whole; the blank line and
        // the comment after it stay
        let t = "---\nsuperseded_by:\n- a.md\n- b.md\n\n# kept\nname: A\n---\n";
        assert_eq!(
            set_top_level_key(t, "superseded_by", "c.md").unwrap(),
            "---\nsuperseded_by: c.md\n\n# kept\nname: A\n---\n"
        );
        // a document end: the key goes before it, where the parser reads it
        let t = "---\nname: A\n...\n---\nB\n";
        assert_eq!(
            set_top_level_key(t, "superseded_by", "c.md").unwrap(),
            "---\nname: A\nsuperseded_by: c.md\n...\n---\nB\n"
        );
    }

    #[test]
    fn a_frontmatter_the_scan_reads_by_recovery_is_still_edited() {
        // `description: Deploy: staging first` is no YAML; the scan reads it all the same
        let t = "---\nname: Deploy\ndescription: Deploy: staging first\ntype: project\n---\nB\n";
        assert_eq!(
            set_metadata_key(t, "modified", "2026-12-05T00:00:00.000Z").unwrap(),
            "---\nname: Deploy\ndescription: Deploy: staging first\ntype: project\nmetadata:\n  modified: 2026-12-05T00:00:00.000Z\n---\nB\n"
        );
        assert_eq!(
            set_top_level_key(t, "superseded_by", "b.md").unwrap(),
            "---\nname: Deploy\ndescription: Deploy: staging first\ntype: project\nsuperseded_by: b.md\n---\nB\n"
        );
    }

    #[test]
    fn no_frontmatter_is_refused() {
        for t in ["Just a note.\n", "", "---\nname: never closed\n", "---"] {
            let e = set_top_level_key(t, "k", "v").unwrap_err();
            assert_eq!(e.code().as_str(), "INVALID_MEMORY", "{t:?}");
            assert!(set_metadata_key(t, "k", "v").is_err());
        }
    }
}
