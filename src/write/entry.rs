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
    /// A heading, or a thematic break (`---`, `***`, `___`): structure, not content.
    Heading,
    /// Frontmatter or an HTML comment: never injected (Claude Code strips both).
    Markup,
    /// A list item that starts with a link.
    Entry(EntryLine<'a>),
    /// Anything else.
    Content,
}

/// Where an entry's link leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A file inside the memory folder: its relative path with percent-escapes decoded, any
    /// `#anchor` or `?query` dropped, and `./` and inner `..` resolved.
    Inside(String),
    /// A path that leaves the folder (`../plans/x.md`, `/abs/x.md`, `C:\x.md`), as written
    /// minus any anchor: memdir cannot see it, so it is never called dead on that account.
    Outside(String),
    /// Not a file: a URL, `mailto:`, an anchor alone, nothing.
    Other,
}

/// A parsed `- [Title](target) — hook` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryLine<'a> {
    pub title: &'a str,
    /// The link target as written, minus `<…>` and a leading `./`.
    pub target: &'a str,
    /// The target was written after `./`: relative, whatever it looks like (`./ab:c.md` is a
    /// file, not a URL with the scheme `ab`; `./~x.md` is not in a home folder).
    pub dotted: bool,
    /// What follows the link, separator removed (may be empty).
    pub hook: &'a str,
}

impl EntryLine<'_> {
    /// Where the link leads (see [`Target`]).
    pub fn destination(&self) -> Target {
        let raw = self.target;
        let is_url = !self.dotted
            && raw.split_once(':').is_some_and(|(scheme, _)| {
                scheme.len() > 1
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
            });
        if raw.is_empty() || raw.starts_with('#') || is_url {
            return Target::Other;
        }
        let path = raw.split(['#', '?']).next().unwrap_or(raw);
        if path.is_empty() {
            return Target::Other;
        }
        let decoded = percent_decode(path);
        let bytes = decoded.as_bytes();
        let absolute = decoded.starts_with(['/', '\\'])
            || (!self.dotted
                && (matches!(bytes, [d, b':', ..] if d.is_ascii_alphabetic())
                    || decoded.starts_with('~')));
        if absolute {
            return Target::Outside(decoded.into_owned());
        }
        let mut parts: Vec<&str> = Vec::new();
        for part in decoded.split(['/', '\\']) {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Target::Outside(decoded.into_owned());
                    }
                }
                other => parts.push(other),
            }
        }
        if parts.is_empty() {
            return Target::Other;
        }
        Target::Inside(parts.join("/"))
    }

    /// The file inside the folder the entry links to, if it links to one.
    pub fn file(&self) -> Option<String> {
        match self.destination() {
            Target::Inside(path) => Some(path),
            _ => None,
        }
    }
}

/// `%XX` escapes decoded, when the result is UTF-8; otherwise the text as written.
fn percent_decode(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('%') {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |j: usize| bytes.get(j).and_then(|c| char::from(*c).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_or(std::borrow::Cow::Borrowed(text), std::borrow::Cow::Owned)
}

/// Classifies one line of the index on its own (see [`classify_all`] for markup that spans lines).
pub fn classify(line: &str) -> Line<'_> {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return Line::Blank;
    }
    if trimmed.starts_with('#') || is_thematic_break(trimmed) {
        return Line::Heading;
    }
    if trimmed.starts_with("<!--") && trimmed.ends_with("-->") {
        return Line::Markup;
    }
    parse_entry(trimmed).map_or(Line::Content, Line::Entry)
}

/// `---`, `***`, `___` (three or more of one, spaces allowed): a Markdown thematic break.
fn is_thematic_break(line: &str) -> bool {
    let marks: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
    marks.len() >= 3 && ['-', '*', '_'].iter().any(|m| marks.iter().all(|c| c == m))
}

/// Classifies every line, knowing what spans lines: frontmatter at the top and HTML comment
/// blocks are [`Line::Markup`] (Claude Code strips both before injecting the index).
pub fn classify_all(text: &str) -> Vec<Line<'_>> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut in_frontmatter = lines.first().is_some_and(|l| l.trim_end() == "---")
        && lines.iter().skip(1).any(|l| l.trim_end() == "---");
    let mut in_comment = false;
    // the last line holding a `-->`, found once: whether a comment opened on line i closes
    // later is then one comparison (a scan of the lines below each `<!--` was quadratic: 19 s
    // for an index of 40,000 `<!--` lines, which the memory tool's edits classify)
    let last_close = lines.iter().rposition(|l| l.contains("-->"));
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if in_frontmatter {
            out.push(Line::Markup);
            if i > 0 && trimmed == "---" {
                in_frontmatter = false;
            }
            continue;
        }
        if in_comment || trimmed.starts_with("<!--") {
            let after_open = if in_comment {
                trimmed
            } else {
                trimmed.get(4..).unwrap_or("")
            };
            let closes_here = after_open.contains("-->");
            // a comment that never closes is not stripped (as Claude Code leaves it): what follows
            // a stray `<!--` stays in the prompt and counts
            let closes = closes_here || last_close.is_some_and(|j| j > i);
            if in_comment || closes {
                out.push(Line::Markup);
                in_comment = !closes_here;
                continue;
            }
        }
        out.push(classify(line));
    }
    out
}

/// A list marker at the start of a line (`-`, `*`, `+`, `1.`, `1)`) and the white space after it.
fn strip_list_marker(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let rest = if digits > 0 {
        line.get(digits..)?.strip_prefix(['.', ')'])?
    } else {
        line.strip_prefix(['-', '*', '+'])?
    };
    rest.starts_with([' ', '\t']).then(|| rest.trim_start())
}

/// Words a line may say before its link and still be an entry (`See [A](a.md) — …`).
const MAX_LEAD_IN_WORDS: usize = 3;

/// An entry: a list item (or a bare line) whose first thing is a link — possibly in bold, or
/// after a lead-in of a few words — then an optional hook.
fn parse_entry(line: &str) -> Option<EntryLine<'_>> {
    let listed = strip_list_marker(line);
    let rest = listed.unwrap_or(line);
    let open = rest.find('[')?;
    let lead = rest.get(..open)?.trim_end_matches(['*', '_']).trim();
    if !lead.is_empty() {
        // prose before the link: an entry only when short, and the link names a Markdown file
        if lead.split_whitespace().count() > MAX_LEAD_IN_WORDS
            || lead.contains(['[', ']', '(', ')'])
        {
            return None;
        }
    }
    let rest = rest.get(open + 1..)?;
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
    let undotted = target
        .strip_prefix("./")
        .or_else(|| target.strip_prefix(".\\"));
    let dotted = undotted.is_some();
    let target = undotted.unwrap_or(target);
    if (!lead.is_empty() || listed.is_none()) && !target.split(['#', '?']).next()?.ends_with(".md")
    {
        return None; // a bare or prose line counts only for a link to a topic file
    }
    let hook = hook.trim_start_matches(['*', '_']).trim_start();
    let hook = ["—", "–", "-", ":"]
        .iter()
        .find_map(|s| hook.strip_prefix(s))
        .unwrap_or(hook)
        .trim();
    Some(EntryLine {
        title,
        target,
        dotted,
        hook,
    })
}

/// Every Markdown link on a line, wherever it stands — the entry's own, a second one after it
/// (`… ([nuance](x.md))`), one in a sentence — as the [`Target`] each leads to. An image
/// (`![…](…)`) counts too: it is a reference to a file all the same.
pub fn links_on_line(line: &str) -> Vec<Target> {
    let mut out = Vec::new();
    let mut rest = line;
    // a `>` or `)` not found in what is left is not found by any later link either: not
    // searched again (a line of `[x](` searched to its end from each was quadratic)
    let (mut no_angle_close, mut no_paren) = (false, false);
    while let Some(open) = rest.find('[') {
        let Some(after_open) = rest.get(open + 1..) else {
            break;
        };
        let Some(close) = find_link_close(after_open) else {
            break;
        };
        let Some(after) = after_open.get(close + 2..) else {
            break;
        };
        let angled = after
            .trim_start()
            .strip_prefix('<')
            .filter(|_| !no_angle_close)
            .and_then(|inner| {
                let end = inner.find('>');
                searched(end.unwrap_or(inner.len()));
                no_angle_close = end.is_none();
                Some((inner.get(..end?)?, inner.get(end? + 1..)?))
            });
        let found = angled.or_else(|| {
            if no_paren {
                return None;
            }
            let end = after.find(')');
            searched(end.unwrap_or(after.len()));
            no_paren = end.is_none();
            Some((after.get(..end?)?.trim(), after.get(end? + 1..)?))
        });
        let Some((target, tail)) = found else {
            // `[a](` never closed: what follows may still hold a link
            if no_paren && no_angle_close {
                break;
            }
            rest = after;
            continue;
        };
        let undotted = target
            .strip_prefix("./")
            .or_else(|| target.strip_prefix(".\\"));
        let link = EntryLine {
            title: "",
            target: undotted.unwrap_or(target),
            dotted: undotted.is_some(),
            hook: "",
        };
        out.push(link.destination());
        rest = tail;
    }
    out
}

// bytes the searches for a destination's end looked at (tests: the work is bounded by the line)
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

/// Whether `line` is an entry linking to the file `path` (anchors, escapes and `./` aside).
pub fn links_to(line: &str, path: &str) -> bool {
    matches!(classify(line), Line::Entry(e) if e.file().as_deref() == Some(path))
}

/// The link text with `\`, `[` and `]` escaped, so no title can end the link early (a title
/// ending in `\` used to escape the closing `]` and turn the entry into content).
pub fn escape_title(title: &str) -> String {
    title
        .replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

/// A memory's description as its index entry's hook: `[` and `]` escaped (and a `\` right before
/// one), so a description cannot make a link in the index — out of the folder, or to a file it
/// does not describe. Other characters keep their bytes.
pub fn escape_hook(description: &str) -> String {
    let mut out = String::with_capacity(description.len());
    let mut chars = description.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '\\' if matches!(chars.peek(), Some('[' | ']')) => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
    out
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

/// Units of hook a long title leaves, when the title is shortened for the line to fit.
const MIN_HOOK_UTF16: usize = 40;
/// A title is not shortened below this (the file name alone is then too long for the line).
const MIN_TITLE_UTF16: usize = 16;

/// `- [Title](file.md) — hook`, the hook shortened at a word (with `…`) so the line stays
/// within [`MAX_ENTRY_UTF16`] when it can; a title too long for that is shortened too, leaving
/// the hook [`MIN_HOOK_UTF16`] units (the topic file keeps the whole name).
pub fn format_entry(title: &str, path: &str, hook: &str) -> String {
    let path = encode_target(path);
    let target = if path.contains([' ', '(', ')']) {
        format!("<{path}>")
    } else {
        path
    };
    let hook_room = if hook.is_empty() {
        0
    } else {
        utf16_len(HOOK_SEPARATOR) + MIN_HOOK_UTF16.min(utf16_len(hook))
    };
    let frame = utf16_len("- []()") + utf16_len(&target) + hook_room;
    let escaped = escape_title(title);
    let escapes = utf16_len(&escaped).saturating_sub(utf16_len(title));
    let room = MAX_ENTRY_UTF16.saturating_sub(frame + escapes);
    let title = if utf16_len(&escaped) + frame > MAX_ENTRY_UTF16 && room >= MIN_TITLE_UTF16 {
        escape_title(&shorten(title, room))
    } else {
        escaped
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

/// The index with `line` in place of the first entry linking to `path` (keeping that line's
/// `\r` if it had one), or appended after the last non-blank line with `newline`. Returns
/// the new text and whether an entry was replaced. Every other line keeps its bytes.
pub fn upsert_entry(index: &str, path: &str, line: &str, newline: &str) -> (String, bool) {
    let mut lines: Vec<String> = index.split('\n').map(str::to_owned).collect();
    if let Some(slot) = lines.iter_mut().find(|l| links_to(l, path)) {
        let cr = if slot.ends_with('\r') { "\r" } else { "" };
        *slot = format!("{line}{cr}");
        return (lines.join("\n"), true);
    }
    let kept = index.trim_end();
    let text = if kept.is_empty() {
        format!("{line}{newline}")
    } else {
        format!("{kept}{newline}{line}{newline}")
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
/// under `to` instead; how many were changed. Entries are matched by the file they lead to
/// (escapes decoded, `./` aside); the new target is written as [`format_entry`] would, keeping
/// any `#anchor` or `?query` and the `<…>` form.
pub fn retarget_entries(index: &str, from: &str, to: &str) -> (String, usize) {
    let mut changed = 0;
    let lines: Vec<String> = index
        .split('\n')
        .map(|l| {
            retarget_line_under(l, from, to).map_or_else(
                || l.to_owned(),
                |new| {
                    changed += 1;
                    new
                },
            )
        })
        .collect();
    (lines.join("\n"), changed)
}

/// `line` with its entry's link pointed at the file `to`, the destination written as
/// [`format_entry`] writes one (percent-escapes, `<…>` where the path needs it), any `#anchor`
/// or `?query` kept; every other byte as it was. `None` when it is not an entry into the folder.
pub fn retarget_entry(line: &str, to: &str) -> Option<String> {
    let Line::Entry(e) = classify(line) else {
        return None;
    };
    e.file()?;
    let at = |part: &str| (part.as_ptr() as usize).checked_sub(line.as_ptr() as usize);
    // the destination runs from after the title's `](` to the `)` after the target as written
    let open = at(e.title)? + e.title.len() + 2;
    let target_end = at(e.target)? + e.target.len();
    let close = target_end + line.get(target_end..)?.find(')')?;
    let suffix = e
        .target
        .get(e.target.find(['#', '?']).unwrap_or(e.target.len())..)?;
    let target = format!("{}{suffix}", encode_target(to));
    let target = if target.contains([' ', '(', ')']) {
        format!("<{target}>")
    } else {
        target
    };
    Some(format!(
        "{}{target}{}",
        line.get(..open)?,
        line.get(close..)?
    ))
}

/// `line` with its link moved from under `from` to under `to`, when it is an entry there.
fn retarget_line_under(line: &str, from: &str, to: &str) -> Option<String> {
    let Line::Entry(e) = classify(line) else {
        return None;
    };
    let file = e.file()?;
    let rest = if file == from {
        ""
    } else {
        file.strip_prefix(from).filter(|r| r.starts_with('/'))?
    };
    let raw_path_len = e.target.find(['#', '?']).unwrap_or(e.target.len());
    let suffix = e.target.get(raw_path_len..).unwrap_or("");
    let new_target = format!("{}{suffix}", encode_target(&format!("{to}{rest}")));
    // the target as written starts right after the first `](` (or `](<`), possibly after `./`
    let open = line.find("](")? + 2;
    let tail = line.get(open..)?;
    let at = tail.find(e.target)?;
    let before = tail.get(..at)?;
    let after = tail.get(at + e.target.len()..)?;
    let head = line.get(..open)?;
    if !before.trim_start().starts_with('<') && new_target.contains([' ', '(', ')']) {
        // the destination needs the <…> form now: it opens before any `./`
        let space = before.len() - before.trim_start().len();
        let (lead, dot) = before.split_at(space);
        return Some(format!("{head}{lead}<{dot}{new_target}>{after}"));
    }
    Some(format!("{head}{before}{new_target}{after}"))
}

/// A relative path as a link target: `%`, `#` and `?` percent-encoded, so the link reads back as
/// this file (not an anchor or a query).
fn encode_target(path: &str) -> String {
    let encoded = path
        .replace('%', "%25")
        .replace('#', "%23")
        .replace('?', "%3F");
    // `ab:c.md` would read as a URL (scheme `ab`), `a:b.md` as a drive and `~x.md` as a home
    // folder: `./` keeps each a relative path
    let first = encoded.split('/').next().unwrap_or("");
    if first.contains(':') || encoded.starts_with('~') {
        format!("./{encoded}")
    } else {
        encoded
    }
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

    /// A line of many links, or of many `[x](` never closed, costs its length, not its
    /// length times its links; the links found are the same.
    #[test]
    fn links_on_a_line_are_found_in_linear_work() {
        for unit in [
            "[x](",
            "[x](<",
            "[x](<y.md> ",
            "[x](y.md) ",
            "[x](<a",
            "[x]( ",
        ] {
            let line = unit.repeat(20_000);
            SEARCHED.with(|n| n.set(0));
            let found = links_on_line(&line);
            let work = SEARCHED.with(std::cell::Cell::get);
            assert!(
                work <= 2 * line.len(),
                "{unit:?}: {work} bytes searched for {}",
                line.len()
            );
            let expected = match unit {
                "[x](<y.md> " | "[x](y.md) " => 20_000,
                "[x](<a" => 0,
                _ => found.len(),
            };
            assert_eq!(found.len(), expected, "{unit:?}");
        }
        assert_eq!(
            links_on_line("[a](b.md) [c](<d e.md> [f]( [g]("),
            [
                Target::Inside("b.md".into()),
                Target::Inside("d e.md".into())
            ]
        );
    }

    #[test]
    fn formats_and_shortens() {
        let line = format_entry("T", "f.md", &"word ".repeat(60));
        assert!(utf16_len(&line) <= MAX_ENTRY_UTF16, "{line}");
        assert!(line.ends_with('…'));
        assert_eq!(format_entry("T", "f.md", "short"), "- [T](f.md) — short");
    }

    /// A name too long for one line (as `remember` and doctor's fix write them) is shortened in
    /// the index, the hook keeping some room; a short one, or one beside a file name too long
    /// for any title, is kept whole.
    #[test]
    fn a_long_title_is_shortened_to_fit_the_line() {
        let name = "Deploy checklist for the staging cluster [eu-west] with the on-call rotation and the database migration order, step by step";
        let line = format_entry(
            name,
            "project_deploy_checklist.md",
            "what to run, in which order, and who to call when it fails",
        );
        assert!(
            utf16_len(&line) <= MAX_ENTRY_UTF16,
            "{} units: {line}",
            utf16_len(&line)
        );
        let Line::Entry(e) = classify(&line) else {
            unreachable!("an entry: {line}")
        };
        let title = unescape_title(e.title);
        assert!(
            title.ends_with('…') && name.starts_with(title.trim_end_matches('…')),
            "{title}"
        );
        assert!(
            utf16_len(e.hook) >= MIN_HOOK_UTF16 - 1,
            "the hook keeps its room: {}",
            e.hook
        );
        assert_eq!(e.target, "project_deploy_checklist.md");
        // without a hook the title has the whole line: this one fits whole
        let bare = format_entry(name, "p.md", "");
        assert!(
            utf16_len(&bare) <= MAX_ENTRY_UTF16 && bare.contains(&escape_title(name)),
            "{bare}"
        );
        // a file name too long for any title: the title is kept whole
        let long_path = format!("{}.md", "x".repeat(140));
        assert!(format_entry("Short name", &long_path, "hook").contains("[Short name]"));
        let kept = format_entry(name, &long_path, "hook");
        assert!(kept.contains(&escape_title(name)), "{kept}");
    }

    #[test]
    fn upserts_and_removes() {
        let (t, replaced) =
            upsert_entry("# M\n- [A](a.md) — x\n\n", "a.md", "- [A](a.md) — y", "\n");
        assert!(replaced);
        assert_eq!(t, "# M\n- [A](a.md) — y\n\n");
        let (t, _) = upsert_entry(
            "# M\r\n- [A](a.md) — x\r\n",
            "a.md",
            "- [A](a.md) — y",
            "\r\n",
        );
        assert_eq!(t, "# M\r\n- [A](a.md) — y\r\n");
        let (t, _) = upsert_entry("# M\r\n", "b.md", "- [B](b.md) — z", "\r\n");
        assert_eq!(t, "# M\r\n- [B](b.md) — z\r\n");
        let (t, replaced) = upsert_entry("- [A](a.md) — x\n\n", "b.md", "- [B](b.md) — z", "\n");
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

    #[test]
    fn an_entry_is_pointed_at_a_file_as_format_entry_writes_links() {
        let to = |line: &str, path: &str| retarget_entry(line, path);
        assert_eq!(
            to("- [A](a.md#top) — x", "x (old)/a.md").as_deref(),
            Some("- [A](<x (old)/a.md#top>) — x")
        );
        assert_eq!(
            to("* **[A \\](b\\] c](<./a (1).md>)** — x", "100%/a.md").as_deref(),
            Some("* **[A \\](b\\] c](100%25/a.md)** — x")
        );
        assert_eq!(
            to("- [A](./a.md) — x", "ab:c.md").as_deref(),
            Some("- [A](./ab:c.md) — x")
        );
        assert!(links_to(
            &to("- [A](a.md)", "x (old)/a.md").unwrap_or_default(),
            "x (old)/a.md"
        ));
        assert_eq!(to("- [A](https://x.example/a.md) — x", "a.md"), None);
    }

    #[test]
    fn retargets_by_the_file_a_link_leads_to() {
        let moved = |line: &str, from: &str, to: &str| retarget_entries(line, from, to);
        // escapes decoded to match, encoded again to write
        assert_eq!(
            moved("- [P](100%25.md) — x", "100%.md", "#1.md"),
            ("- [P](%231.md) — x".to_owned(), 1)
        );
        // `./`, anchors, queries and the <…> form kept
        assert_eq!(
            moved("- [A](./a.md#top) — x", "a.md", "b c.md").0,
            "- [A](<./b c.md#top>) — x"
        );
        assert!(
            links_to("- [A](<./b c.md#top>) — x", "b c.md"),
            "the new form reads back"
        );
        assert_eq!(
            moved("- [A](<a (1).md>) — x", "a (1).md", "b (2).md").0,
            "- [A](<b (2).md>) — x"
        );
        assert_eq!(
            moved("* **[A](d/a.md)** — x", "d", "e/f").0,
            "* **[A](e/f/a.md)** — x"
        );
        // another file whose name starts the same is left alone; a link out is not a file here
        assert_eq!(moved("- [A](dd/a.md) — x", "d", "e").1, 0);
        assert_eq!(moved("- [A](../d/a.md) — x", "d", "e").1, 0);
    }
}
