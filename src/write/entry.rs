//! Lines of `MEMORY.md`. The index holds only entries — `- [Title](file.md) — one-line hook` —
//! headings and blank lines; anything else is content that belongs in a topic file.

use crate::text::{byte_offset_at_utf16, utf16_len};

/// How long an index entry should be at most, in UTF-16 units: Claude Code's instructions say
/// "under ~150 characters".
pub const MAX_ENTRY_UTF16: usize = 150;

/// The separator memdir writes between an entry's link and its hook.
pub const HOOK_SEPARATOR: &str = " — ";

/// What one line of the index is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    Blank,
    Heading,
    /// A list item that starts with a link.
    Entry(EntryLine<'a>),
    /// Anything else.
    Content,
}

/// A parsed `- [Title](target) — hook` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryLine<'a> {
    pub title: &'a str,
    /// The link target as written, minus `<…>` and a leading `./`.
    pub target: &'a str,
    /// What follows the link, separator removed (may be empty).
    pub hook: &'a str,
}

impl EntryLine<'_> {
    /// Whether the target names a local file (not a URL or an anchor).
    pub fn is_local(&self) -> bool {
        !self.target.is_empty()
            && !self.target.contains("://")
            && !self.target.starts_with('#')
            && !self.target.starts_with("mailto:")
    }
}

/// Classifies one line of the index.
pub fn classify(line: &str) -> Line<'_> {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return Line::Blank;
    }
    if trimmed.starts_with('#') {
        return Line::Heading;
    }
    parse_entry(trimmed).map_or(Line::Content, Line::Entry)
}

fn parse_entry(line: &str) -> Option<EntryLine<'_>> {
    let rest = ["- ", "* ", "+ "]
        .iter()
        .find_map(|m| line.strip_prefix(m))?;
    let rest = rest.trim_start().strip_prefix('[')?;
    let close = find_link_close(rest)?;
    let title = rest.get(..close)?;
    let after = rest.get(close + 2..)?; // past "]("
                                        // `<…>` holds any target, parentheses included (`format_entry` writes it so); else up to `)`
    let angled = after.trim_start().strip_prefix('<').and_then(|inner| {
        let end = inner.find('>')?;
        let hook = inner.get(end + 1..)?.trim_start().strip_prefix(')')?;
        Some((inner.get(..end)?, hook))
    });
    let (target, hook) = match angled {
        Some(found) => found,
        None => {
            let end = after.find(')')?;
            (after.get(..end)?.trim(), after.get(end + 1..)?)
        }
    };
    let target = target.strip_prefix("./").unwrap_or(target);
    let hook = hook.trim_start();
    let hook = ["—", "–", "-", ":"]
        .iter()
        .find_map(|s| hook.strip_prefix(s))
        .unwrap_or(hook)
        .trim();
    Some(EntryLine {
        title,
        target,
        hook,
    })
}

/// The byte offset of the `](` that ends the link text, skipping escaped brackets.
fn find_link_close(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b']' if bytes.get(i + 1) == Some(&b'(') => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Whether `line` is an entry linking to `path`.
pub fn links_to(line: &str, path: &str) -> bool {
    matches!(classify(line), Line::Entry(e) if e.target == path)
}

/// The link text with `\`, `[` and `]` escaped, so no title can end the link early (a title
/// ending in `\` used to escape the closing `]` and turn the entry into content).
pub fn escape_title(title: &str) -> String {
    title
        .replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

/// The inverse of [`escape_title`]: a `\` before `\`, `[` or `]` is dropped.
pub fn unescape_title(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next @ ('\\' | '[' | ']'))) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// `- [Title](file.md) — hook`, the hook shortened at a word (with `…`) so the line stays
/// within [`MAX_ENTRY_UTF16`] when it can.
pub fn format_entry(title: &str, path: &str, hook: &str) -> String {
    let title = escape_title(title);
    let target = if path.contains([' ', '(', ')']) {
        format!("<{path}>")
    } else {
        path.to_owned()
    };
    let head = format!("- [{title}]({target})");
    if hook.is_empty() {
        return head;
    }
    let room = MAX_ENTRY_UTF16.saturating_sub(utf16_len(&head) + utf16_len(HOOK_SEPARATOR));
    format!("{head}{HOOK_SEPARATOR}{}", shorten(hook, room))
}

/// `text` cut to at most `max_utf16` units, at a word boundary where there is one, ending in `…`.
pub fn shorten(text: &str, max_utf16: usize) -> String {
    if utf16_len(text) <= max_utf16 {
        return text.to_owned();
    }
    let keep = byte_offset_at_utf16(text, max_utf16.saturating_sub(1));
    let cut = text.get(..keep).unwrap_or("");
    let at_word = cut
        .rfind(' ')
        .filter(|&i| i >= keep / 2)
        .map_or(cut, |i| cut.get(..i).unwrap_or(cut));
    format!(
        "{}…",
        at_word.trim_end_matches([' ', ',', ';', ':', '.', '—', '-'])
    )
}

/// The index with `line` in place of the first entry linking to `path`, or appended.
/// Returns the new text and whether an entry was replaced.
pub fn upsert_entry(index: &str, path: &str, line: &str) -> (String, bool) {
    let mut lines: Vec<&str> = index.split('\n').collect();
    if let Some(slot) = lines.iter_mut().find(|l| links_to(l, path)) {
        *slot = line;
        return (lines.join("\n"), true);
    }
    let kept = index.trim_end();
    let text = if kept.is_empty() {
        format!("{line}\n")
    } else {
        format!("{kept}\n{line}\n")
    };
    (text, false)
}

/// The index without any entry linking to `path`, and how many lines went.
pub fn remove_entries(index: &str, path: &str) -> (String, usize) {
    let lines: Vec<&str> = index.split('\n').collect();
    let kept: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !links_to(l, path))
        .collect();
    let removed = lines.len() - kept.len();
    (kept.join("\n"), removed)
}

/// The index with every entry under `from` (the file itself, or a folder's files) pointing
/// under `to` instead; how many were changed.
pub fn retarget_entries(index: &str, from: &str, to: &str) -> (String, usize) {
    let mut changed = 0;
    let lines: Vec<String> = index
        .split('\n')
        .map(|l| match classify(l) {
            Line::Entry(e)
                if e.target == from
                    || e.target
                        .strip_prefix(from)
                        .is_some_and(|r| r.starts_with('/')) =>
            {
                changed += 1;
                let new_target = format!("{to}{}", e.target.get(from.len()..).unwrap_or(""));
                l.replacen(&format!("]({}", e.target), &format!("]({new_target}"), 1)
                    .replacen(
                        &format!("](<{}>", e.target),
                        &format!("](<{new_target}>"),
                        1,
                    )
                    .replacen(
                        &format!("](./{}", e.target),
                        &format!("](./{new_target}"),
                        1,
                    )
            }
            _ => l.to_owned(),
        })
        .collect();
    (lines.join("\n"), changed)
}

/// Entries pointing under a folder: removing `dir` removes these.
pub fn under(target: &str, dir: &str) -> bool {
    target == dir || target.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies() {
        assert_eq!(classify("  "), Line::Blank);
        assert_eq!(classify("# Memory"), Line::Heading);
        assert_eq!(classify("The build uses pnpm."), Line::Content);
        let Line::Entry(e) = classify("- [Testing](feedback_testing.md) — use real DBs") else {
            unreachable!("an entry")
        };
        assert_eq!(
            (e.title, e.target, e.hook),
            ("Testing", "feedback_testing.md", "use real DBs")
        );
        let Line::Entry(e) = classify("* [A \\] b](<./a b.md>): hook") else {
            unreachable!("an entry")
        };
        assert_eq!((e.target, e.hook), ("a b.md", "hook"));
    }

    #[test]
    fn formats_and_shortens() {
        let line = format_entry("T", "f.md", &"word ".repeat(60));
        assert!(utf16_len(&line) <= MAX_ENTRY_UTF16, "{line}");
        assert!(line.ends_with('…'));
        assert_eq!(format_entry("T", "f.md", "short"), "- [T](f.md) — short");
    }

    #[test]
    fn upserts_and_removes() {
        let (t, replaced) = upsert_entry("# M\n- [A](a.md) — x\n\n", "a.md", "- [A](a.md) — y");
        assert!(replaced);
        assert_eq!(t, "# M\n- [A](a.md) — y\n\n");
        let (t, replaced) = upsert_entry("- [A](a.md) — x\n\n", "b.md", "- [B](b.md) — z");
        assert!(!replaced);
        assert_eq!(t, "- [A](a.md) — x\n- [B](b.md) — z\n");
        assert_eq!(
            remove_entries(&t, "a.md"),
            ("- [B](b.md) — z\n".to_owned(), 1)
        );
        assert_eq!(
            retarget_entries("- [A](d/a.md) — x", "d", "e").0,
            "- [A](e/a.md) — x"
        );
    }
}
