//! A three-way merge of `MEMORY.md`, for git's merge driver (`memdir merge-index`, rules §1.4):
//! every entry either side added or edited is kept, a line goes only when one side removed it
//! and the other left it as it was, and the result never holds conflict markers.
//!
//! Lines are compared whole (after a byte-order mark and each line's `\r` are set aside) and
//! aligned with the base as `diff` aligns them ([`crate::diff`]). The merge is ours, in ours'
//! order, less the base lines theirs removed; then each line theirs added goes after the line
//! it followed in theirs (after what ours added there too, up to a blank line or a heading,
//! unless that line is theirs too: theirs' runs stay whole). Lines theirs put in place of base
//! lines ours still has as they were go where the first of those stood.
//! A line theirs added that the merge already holds is not added twice. An entry theirs added
//! that links where an entry ours added links (both edited one entry) goes right after ours':
//! the two lines stay, adjacent, and doctor's `duplicate_link` joins them keeping every word.
//! A blank line theirs added beside a blank line, or at the top, is not added; runs of blank
//! lines are no longer than the longest run either side has; the merge does not start or end
//! with a blank line unless ours does. The newline (LF or CRLF), the byte-order mark and the
//! final newline are ours' (theirs' when ours is empty).

use serde::Serialize;

use crate::write::entry::{classify, Line};

/// The merged index, and what the merge kept twice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MergedIndex {
    /// The merged `MEMORY.md`.
    pub text: String,
    /// The links (as written) of entries both sides changed differently: each is kept as two
    /// adjacent lines, which `memdir doctor` reports (`duplicate_link`) and `--fix` joins.
    pub both_edited: Vec<String>,
}

/// One side's text as lines.
struct Side<'a> {
    bom: bool,
    crlf: bool,
    has_newline: bool,
    final_newline: bool,
    lines: Vec<&'a str>,
}

fn side(text: &str) -> Side<'_> {
    let (bom, body) = match text.strip_prefix('\u{FEFF}') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let first_newline = body.find('\n');
    let lines = if body.is_empty() {
        Vec::new()
    } else {
        body.strip_suffix('\n')
            .unwrap_or(body)
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect()
    };
    Side {
        bom,
        crlf: first_newline
            .is_some_and(|i| i > 0 && body.get(..i).is_some_and(|s| s.ends_with('\r'))),
        has_newline: first_newline.is_some(),
        final_newline: body.ends_with('\n'),
        lines,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A line of ours that is in the base, and that theirs kept.
    Base,
    /// A line ours added (or changed).
    Ours,
    /// A line theirs added (or changed).
    Theirs,
    /// A line of ours that is in the base and that theirs removed: not in the merge, but where
    /// theirs' replacement for it goes.
    Gone,
}

struct Node<'a> {
    text: &'a str,
    origin: Origin,
    id: usize,
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// A blank line or a heading: where one block of entries ends and another begins.
fn is_break(line: &str) -> bool {
    matches!(classify(line), Line::Blank | Line::Heading)
}

/// The link of an entry line, as written.
fn link_of(line: &str) -> Option<&str> {
    match classify(line) {
        Line::Entry(e) => Some(e.target),
        _ => None,
    }
}

/// Merges `ours` and `theirs`, both changed from `base` (empty when both added the file).
pub fn merge_index(base: &str, ours: &str, theirs: &str) -> MergedIndex {
    let (b, o, t) = (side(base), side(ours), side(theirs));
    let in_ours = crate::diff::kept_lines(&b.lines, &o.lines);
    let in_theirs = crate::diff::kept_lines(&b.lines, &t.lines);

    // ours' lines, less the base lines theirs removed
    let mut ours_base: Vec<Option<usize>> = vec![None; o.lines.len()];
    for (i, j) in in_ours.iter().enumerate() {
        if let Some(slot) = j.and_then(|j| ours_base.get_mut(j)) {
            *slot = Some(i);
        }
    }
    let theirs_kept = |i: usize| in_theirs.get(i).copied().flatten().is_some();
    let mut merged: Vec<Node> = Vec::with_capacity(o.lines.len() + t.lines.len());
    for (j, text) in o.lines.iter().enumerate() {
        match ours_base.get(j).copied().flatten() {
            None => merged.push(Node {
                text,
                origin: Origin::Ours,
                id: j,
            }),
            Some(i) if theirs_kept(i) => merged.push(Node {
                text,
                origin: Origin::Base,
                id: j,
            }),
            Some(_) => merged.push(Node {
                text,
                origin: Origin::Gone,
                id: j,
            }),
        }
    }

    // where each line of theirs is in the merge (by node id), once placed
    let mut theirs_base: Vec<Option<usize>> = vec![None; t.lines.len()];
    for (i, k) in in_theirs.iter().enumerate() {
        if let Some(slot) = k.and_then(|k| theirs_base.get_mut(k)) {
            *slot = Some(i);
        }
    }
    let position = |merged: &[Node], id: usize| merged.iter().position(|n| n.id == id);
    // the first line of a run theirs added in place of base lines (a change, not an insertion):
    // the first of those base lines that ours has as it was (in the merge as `Gone`)
    let replaced = |k: usize| -> Option<usize> {
        let first_of_run = k == 0 || theirs_base.get(k - 1).copied().flatten().is_some();
        if !first_of_run {
            return None;
        }
        let before = theirs_base.iter().take(k).rev().find_map(|i| *i);
        let after = theirs_base.iter().skip(k).find_map(|i| *i);
        let from = before.map_or(0, |i| i + 1);
        let to = after.unwrap_or(b.lines.len());
        (from..to).find_map(|i| in_ours.get(i).copied().flatten())
    };
    let mut at: Vec<Option<usize>> = vec![None; t.lines.len()];
    let mut both_edited: Vec<String> = Vec::new();
    for (k, text) in t.lines.iter().enumerate() {
        let id = o.lines.len() + k;
        if let Some(i) = theirs_base.get(k).copied().flatten() {
            // a base line: where ours has it, if the merge kept it
            // (theirs kept it, so the merge has it wherever ours has it)
            if let Some(slot) = at.get_mut(k) {
                *slot = in_ours.get(i).copied().flatten();
            }
            continue;
        }
        let blank = is_blank(text);
        if !blank {
            let same = merged
                .iter()
                .find(|n| n.origin != Origin::Gone && n.text == *text);
            if let Some(same) = same {
                if let Some(slot) = at.get_mut(k) {
                    *slot = Some(same.id);
                }
                continue;
            }
        }
        // both changed one entry: theirs right after ours
        let twin = link_of(text).and_then(|link| {
            merged
                .iter()
                .rposition(|n| n.origin == Origin::Ours && link_of(n.text) == Some(link))
                .map(|p| (link, p))
        });
        let pos = if let Some((link, p)) = twin {
            if !both_edited.iter().any(|l| l == link) {
                both_edited.push(link.to_owned());
            }
            let mut pos = p + 1;
            while merged
                .get(pos)
                .is_some_and(|n| matches!(n.origin, Origin::Theirs | Origin::Gone))
            {
                pos += 1;
            }
            pos
        } else if let Some(p) = replaced(k).and_then(|id| position(&merged, id)) {
            // in place of the base line it replaced, which ours has as it was
            p
        } else {
            let anchor = at.iter().take(k).rev().find_map(|a| *a);
            let anchor = anchor.and_then(|id| position(&merged, id));
            let mut pos = anchor.map_or(0, |p| p + 1);
            // after a line of theirs: right after it (theirs' run stays whole); else after
            // what ours added there too, up to a blank line or a heading
            let theirs_run = anchor
                .and_then(|p| merged.get(p))
                .is_some_and(|n| n.origin == Origin::Theirs);
            while !theirs_run
                && merged.get(pos).is_some_and(|n| {
                    n.origin == Origin::Gone || (n.origin == Origin::Ours && !is_break(n.text))
                })
            {
                pos += 1;
            }
            pos
        };
        if blank {
            let shown = |n: &&Node| n.origin != Origin::Gone;
            let before = merged.iter().take(pos).rev().find(shown);
            let next = merged.iter().skip(pos).find(shown);
            let beside = match (before, next) {
                (None, _) => Some(None),
                (Some(n), _) if is_blank(n.text) => Some(Some(n.id)),
                (_, Some(n)) if is_blank(n.text) => Some(Some(n.id)),
                _ => None,
            };
            if let Some(anchor) = beside {
                if let Some(slot) = at.get_mut(k) {
                    *slot = anchor;
                }
                continue;
            }
        }
        merged.insert(
            pos,
            Node {
                text,
                origin: Origin::Theirs,
                id,
            },
        );
        if let Some(slot) = at.get_mut(k) {
            *slot = Some(id);
        }
    }

    let shown = merged.iter().filter(|n| n.origin != Origin::Gone);
    let lines = tidy_blank_lines(shown.map(|n| n.text).collect(), &o, &t);
    MergedIndex {
        text: render(&lines, &b, &o, &t),
        both_edited,
    }
}

/// Runs of blank lines cut to the longest either side has; none at the top or the bottom
/// unless ours (theirs when ours is empty) has one there.
fn tidy_blank_lines<'a>(lines: Vec<&'a str>, o: &Side, t: &Side) -> Vec<&'a str> {
    let longest = |lines: &[&str]| {
        let (mut best, mut run) = (0usize, 0usize);
        for l in lines {
            run = if is_blank(l) { run + 1 } else { 0 };
            best = best.max(run);
        }
        best
    };
    let max_run = longest(&o.lines).max(longest(&t.lines)).max(1);
    let shape = if o.lines.is_empty() { t } else { o };
    let keep_top = shape.lines.first().is_some_and(|l| is_blank(l));
    let keep_bottom = shape.lines.last().is_some_and(|l| is_blank(l));
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    let mut run = 0usize;
    for line in lines {
        if is_blank(line) {
            if (out.is_empty() && !keep_top) || run >= max_run {
                continue;
            }
            run += 1;
        } else {
            run = 0;
        }
        out.push(line);
    }
    if !keep_bottom {
        while out.last().is_some_and(|l| is_blank(l)) {
            out.pop();
        }
    }
    out
}

fn render(lines: &[&str], b: &Side, o: &Side, t: &Side) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let crlf = [o, t, b]
        .into_iter()
        .find(|s| s.has_newline)
        .is_some_and(|s| s.crlf);
    let newline = if crlf { "\r\n" } else { "\n" };
    let shape = [o, t, b].into_iter().find(|s| !s.lines.is_empty());
    let mut text = String::new();
    if shape.is_some_and(|s| s.bom) {
        text.push('\u{FEFF}');
    }
    text.push_str(&lines.join(newline));
    if shape.is_none_or(|s| s.final_newline) {
        text.push_str(newline);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::merge_index;

    fn merged(base: &str, ours: &str, theirs: &str) -> String {
        merge_index(base, ours, theirs).text
    }

    #[test]
    fn both_append() {
        assert_eq!(
            merged(
                "- [A](a.md) — a\n",
                "- [A](a.md) — a\n- [B](b.md) — b\n",
                "- [A](a.md) — a\n- [C](c.md) — c\n"
            ),
            "- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n"
        );
    }

    #[test]
    fn removed_on_one_side_goes() {
        let base = "- [A](a.md) — a\n- [B](b.md) — b\n";
        assert_eq!(merged(base, "- [A](a.md) — a\n", base), "- [A](a.md) — a\n");
        assert_eq!(merged(base, base, "- [B](b.md) — b\n"), "- [B](b.md) — b\n");
    }

    #[test]
    fn both_edited_one_entry() {
        let base = "- [A](a.md) — a\n- [B](b.md) — b\n";
        let m = merge_index(
            base,
            "- [A](a.md) — a ours\n- [B](b.md) — b\n",
            "- [A](a.md) — a theirs\n- [B](b.md) — b\n",
        );
        assert_eq!(
            m.text,
            "- [A](a.md) — a ours\n- [A](a.md) — a theirs\n- [B](b.md) — b\n"
        );
        assert_eq!(m.both_edited, vec!["a.md".to_owned()]);
    }

    #[test]
    fn crlf_bom_and_no_final_newline() {
        assert_eq!(
            merged(
                "\u{feff}- [A](a.md) — a",
                "\u{feff}- [A](a.md) — a\r\n- [B](b.md) — b",
                "- [A](a.md) — a\n- [C](c.md) — c\n"
            ),
            "\u{feff}- [A](a.md) — a\r\n- [B](b.md) — b\r\n- [C](c.md) — c"
        );
    }

    #[test]
    fn both_added_the_file() {
        assert_eq!(
            merged(
                "",
                "# Memory\n\n- [A](a.md) — a\n",
                "# Memory\n\n- [B](b.md) — b\n"
            ),
            "# Memory\n\n- [A](a.md) — a\n- [B](b.md) — b\n"
        );
    }
}
