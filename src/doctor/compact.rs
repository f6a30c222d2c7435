//! The way out of an over-limit index. `MEMORY.md` over 200 lines or 25,000 units is cut
//! silently by Claude Code, and memdir refuses writes that would grow it; compaction brings it
//! back under both without losing a word:
//!
//! 1. content lines (notes that are not entries) move, section by section, into a topic file
//!    of their own with frontmatter, and one entry links to it where they stood;
//! 2. if that is not enough, the tail of the largest section's entries moves into a
//!    sub-index topic file (`reference_index_….md`), linked from one entry in that section,
//!    until the index is under 90 % of each limit (room for the next memories).
//!
//! Every word moves; nothing is shortened but the new entries' hooks, whose whole text is the
//! new file's.

use std::collections::HashSet;

use crate::frontmatter::MemoryType;
use crate::limits::{to_usize, Limits};
use crate::text::utf16_len;
use crate::write::entry::{classify, classify_all, format_entry, shorten, unescape_title, Line};
use crate::write::guard::index_size;
use crate::write::remember::slug;
use crate::write::yaml::{topic_file, TopicMeta};
use crate::write::Snapshot;

/// What compaction writes: the new index (in the stored form it was given) and the new files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Compaction {
    pub index: String,
    /// New topic files, by path: written exclusively, before the index.
    pub files: Vec<(String, String)>,
    /// Content lines moved into topic files.
    pub moved_content_lines: usize,
    /// Entries moved into sub-index files.
    pub moved_entries: usize,
    /// Lines of the index's tail moved whole into a sub-index (when moving notes and entries
    /// was not enough).
    pub moved_tail_lines: usize,
}

/// Share of each limit a compacted index is brought under.
const TARGET_PERCENT: usize = 90;

/// One line of the index while it is rearranged.
#[derive(Debug, Clone)]
struct Slot {
    /// The line without its `\r`.
    text: String,
    kind: Kind,
    /// The section (0: before any heading) it belongs to.
    section: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Entry,
    Content,
    /// Frontmatter or an HTML comment: a block never cut in two.
    Markup,
    Other,
}

/// Compacts `index` (stored text without its BOM; CRLF kept) when it is over its limits and a
/// compaction brings it under them; `None` otherwise.
pub(super) fn compact_index(
    index: &str,
    snapshot: &Snapshot,
    limits: &Limits,
    new_paths: &HashSet<String>,
) -> Option<Compaction> {
    let (lines, units) = index_size(index);
    let max_lines = to_usize(limits.max_index_lines);
    let max_units = to_usize(limits.max_index_utf16);
    if lines <= max_lines && units <= max_units {
        return None;
    }
    let crlf = index.contains("\r\n");
    let lf = index.replace("\r\n", "\n");
    let slots = slots_of(&lf);
    let titles = section_titles(&slots);
    // every path listed or written new by the plan, lower-cased: a file system may not tell
    // `Project_notes.md` from `project_notes.md`
    let mut taken: HashSet<String> = snapshot
        .entries
        .iter()
        .map(|e| e.path.to_lowercase())
        .chain(new_paths.iter().cloned())
        .collect();
    let mut files = Vec::new();
    // files for notes and sections while the folder has room under maxFiles for them and the
    // last step's one (an index of 10,000 small sections wrote 20,000 files, every older
    // memory pushed out of recall); that step's one file is written in any case
    let topics = snapshot.topic_files().count() + new_paths.len();
    let budget = to_usize(limits.max_files)
        .saturating_sub(topics)
        .saturating_sub(1);

    // 1. content, section by section, into topic files (one pass to find each section's notes,
    //    one to rebuild: linear in the index)
    let mut notes: Vec<Option<(usize, usize, usize)>> = vec![None; titles.len()]; // first, last, count
    for (i, slot) in slots.iter().enumerate() {
        if slot.kind == Kind::Content {
            if let Some(n) = notes.get_mut(slot.section) {
                let (first, _, count) = n.unwrap_or((i, i, 0));
                *n = Some((first, i, count + 1));
            }
        }
    }
    // the sections past the budget keep their notes
    for n in notes.iter_mut().filter(|n| n.is_some()).skip(budget) {
        *n = None;
    }
    let moved_content_lines = notes.iter().flatten().map(|&(_, _, c)| c).sum();
    let mut entry_at: Vec<Option<Slot>> = vec![None; slots.len()];
    for (section, found) in notes.iter().enumerate() {
        let Some(&(first, last, _)) = found.as_ref() else {
            continue;
        };
        // the notes as written, blank lines between them kept; entries among them stay
        let body: Vec<&str> = slots
            .get(first..=last)
            .unwrap_or_default()
            .iter()
            .filter(|s| s.kind != Kind::Entry)
            .map(|s| s.text.as_str())
            .collect();
        let first_note = slots.get(first).map_or("", |s| s.text.as_str());
        let title = titles
            .get(section)
            .cloned()
            .flatten()
            .unwrap_or_else(|| shorten(note_text(first_note), 60));
        let (path, nth) = free_path("project", &title, &mut taken);
        let hook = shorten(note_text(first_note), 150);
        // a description that says where the notes came from (a note of one word would be a
        // vague one), and a name no other new file has
        let description = shorten(&format!("Notes from MEMORY.md's {title}: {hook}"), 150);
        let text = topic_file(
            &format!("{title} (from MEMORY.md{})", numbered(nth)),
            &description,
            MemoryType::Project,
            &TopicMeta::default(),
            &body.join("\n"),
        );
        if let Some(at) = entry_at.get_mut(first) {
            *at = Some(Slot {
                text: format_entry(&title, &path, &hook),
                kind: Kind::Entry,
                section,
            });
        }
        files.push((path, text));
    }
    let in_notes = |i: usize, section: usize| {
        notes
            .get(section)
            .copied()
            .flatten()
            .is_some_and(|(first, last, _)| first <= i && i <= last)
    };
    let slots: Vec<Slot> = slots
        .into_iter()
        .enumerate()
        .filter_map(
            |(i, slot)| match entry_at.get_mut(i).and_then(Option::take) {
                Some(entry) => Some(entry),
                None if in_notes(i, slot.section) && slot.kind != Kind::Entry => None,
                None => Some(slot),
            },
        )
        .collect();

    // 2. entries, from the end of the largest sections, into sub-index files: each section is
    //    visited once, largest first, until the index is under its target
    let target_lines = max_lines * TARGET_PERCENT / 100;
    let target_units = max_units * TARGET_PERCENT / 100;
    let mut by_section: Vec<Vec<usize>> = vec![Vec::new(); titles.len()];
    for (i, slot) in slots.iter().enumerate() {
        if slot.kind == Kind::Entry {
            if let Some(list) = by_section.get_mut(slot.section) {
                list.push(i);
            }
        }
    }
    let units_of = |list: &[usize]| -> usize {
        list.iter()
            .filter_map(|&i| slots.get(i))
            .map(|s| utf16_len(&s.text))
            .sum()
    };
    let mut order: Vec<(usize, usize)> = by_section
        .iter()
        .enumerate()
        .filter(|(_, list)| list.len() >= 2)
        .map(|(sec, list)| (units_of(list), sec))
        .collect();
    crate::sort::sort_by(&mut order, |a, b| b.cmp(a));
    let (mut n, mut u) = measure(&slots);
    let mut gone: Vec<bool> = vec![false; slots.len()];
    let mut pointers: Vec<Option<Slot>> = vec![None; slots.len()];
    let mut moved_entries = 0;
    for (_, section) in order {
        if (n <= target_lines && u <= target_units) || files.len() >= budget {
            break;
        }
        let Some(entries) = by_section.get(section) else {
            continue;
        };
        // keep the first entries that fit beside one pointer line; move the rest
        let (mut n2, mut u2) = (n + 1, u + 151);
        let mut moved: Vec<usize> = Vec::new();
        for &i in entries.iter().rev() {
            if n2 <= target_lines && u2 <= target_units {
                break;
            }
            let Some(slot) = slots.get(i) else { continue };
            n2 = n2.saturating_sub(1);
            u2 = u2.saturating_sub(utf16_len(&slot.text) + 1);
            moved.push(i);
        }
        if moved.len() < 2 {
            continue; // moving one entry to add one pointer gains nothing
        }
        moved.reverse();
        let title = titles
            .get(section)
            .cloned()
            .flatten()
            .unwrap_or_else(|| "Index".to_owned());
        let (path, nth) = free_path("reference_index", &title, &mut taken);
        let moved_lines: Vec<&str> = moved
            .iter()
            .filter_map(|&i| slots.get(i).map(|s| s.text.as_str()))
            .collect();
        let names: Vec<String> = moved_lines
            .iter()
            .filter_map(|l| match classify(l) {
                Line::Entry(e) => Some(unescape_title(e.title)),
                _ => None,
            })
            .take(6)
            .collect();
        let description = shorten(
            &format!(
                "{} more entries of MEMORY.md's {title}: {}",
                moved_lines.len(),
                names.join(", ")
            ),
            150,
        );
        let name = format!("{title} (more entries{})", numbered(nth));
        let text = topic_file(
            &name,
            &description,
            MemoryType::Reference,
            &TopicMeta::default(),
            &moved_lines.join("\n"),
        );
        let pointer = Slot {
            text: format_entry(&name, &path, &description),
            kind: Kind::Other,
            section,
        };
        n = n2;
        u = u2.saturating_sub(151) + utf16_len(&pointer.text) + 1;
        moved_entries += moved.len();
        if let Some(at) = moved.first().and_then(|&first| pointers.get_mut(first)) {
            *at = Some(pointer);
        }
        for i in moved {
            if let Some(g) = gone.get_mut(i) {
                *g = true;
            }
        }
        files.push((path, text));
    }
    let slots: Vec<Slot> = slots
        .into_iter()
        .enumerate()
        .filter_map(
            |(i, slot)| match pointers.get_mut(i).and_then(Option::take) {
                Some(pointer) => Some(pointer),
                None if gone.get(i).copied().unwrap_or(false) => None,
                None => Some(slot),
            },
        )
        .collect();

    // 3. still over (small sections, headings alone, a line too long to keep): the index's
    //    tail, whatever it holds, moves whole into one sub-index linked from where it began
    let (n, u) = measure(&slots);
    let mut moved_tail_lines = 0;
    let slots = if n > target_lines || u > target_units {
        let (slots, tail) = move_tail(slots, target_lines, target_units, &mut taken);
        if let Some((path, text, count)) = tail {
            files.push((path, text));
            moved_tail_lines = count;
        }
        slots
    } else {
        slots
    };

    let newline = if crlf { "\r\n" } else { "\n" };
    let new_index = slots
        .iter()
        .map(|s| s.text.as_str())
        .collect::<Vec<_>>()
        .join(newline);
    let (lines, units) = index_size(&new_index);
    (lines <= max_lines && units <= max_units && !files.is_empty()).then_some(Compaction {
        index: new_index,
        files,
        moved_content_lines,
        moved_entries,
        moved_tail_lines,
    })
}

/// Units a pointer line may take (an entry is kept under 150), with its newline.
const POINTER_UTF16: usize = 151;

/// `slots` with the lines from the first that does not fit beside one pointer line (under
/// the target) moved into a sub-index file, the pointer in their place; a block of markup is
/// not cut in two. Returns the new slots and the file (path, text, lines moved).
fn move_tail(
    slots: Vec<Slot>,
    target_lines: usize,
    target_units: usize,
    taken: &mut HashSet<String>,
) -> (Vec<Slot>, Option<(String, String, usize)>) {
    // the longest head that fits beside the pointer
    let (mut lines, mut units, mut keep) = (1, POINTER_UTF16, 0);
    for slot in &slots {
        lines += 1;
        units += utf16_len(&slot.text) + 1;
        if lines > target_lines || units > target_units {
            break;
        }
        keep += 1;
    }
    while keep > 0
        && slots.get(keep).is_some_and(|s| s.kind == Kind::Markup)
        && slots.get(keep - 1).is_some_and(|s| s.kind == Kind::Markup)
    {
        keep -= 1;
    }
    let tail = slots.get(keep..).unwrap_or_default();
    let (tail_lines, tail_units) = measure(tail);
    if tail_lines < 2 && tail_units <= POINTER_UTF16 {
        return (slots, None); // one short line for one pointer gains nothing
    }
    let (path, nth) = free_path("reference_index", "continued", taken);
    let name = format!("MEMORY.md, continued{}", numbered(nth));
    let titles: Vec<String> = tail
        .iter()
        .filter_map(|s| match classify(&s.text) {
            Line::Entry(e) => Some(unescape_title(e.title)),
            Line::Heading => Some(s.text.trim().trim_start_matches('#').trim().to_owned()),
            _ => None,
        })
        .filter(|t| !t.is_empty())
        .take(6)
        .map(|t| shorten(&t, 40))
        .collect();
    let description = shorten(
        &format!(
            "The rest of MEMORY.md from its line {}: {}",
            keep + 1,
            titles.join(", ")
        ),
        150,
    );
    let body: Vec<&str> = tail.iter().map(|s| s.text.as_str()).collect();
    let text = topic_file(
        &name,
        &description,
        MemoryType::Reference,
        &TopicMeta::default(),
        body.join("\n").trim_end(),
    );
    let count = tail.len();
    let section = tail.first().map_or(0, |s| s.section);
    let mut slots = slots;
    slots.truncate(keep);
    slots.push(Slot {
        text: format_entry(&name, &path, &description),
        kind: Kind::Other,
        section,
    });
    (slots, Some((path, text, count)))
}

/// `", 2"` for the second file of a name, nothing for the first.
fn numbered(nth: usize) -> String {
    if nth > 1 {
        format!(", {nth}")
    } else {
        String::new()
    }
}

fn slots_of(lf: &str) -> Vec<Slot> {
    let mut section = 0;
    lf.split('\n')
        .zip(classify_all(lf))
        .map(|(text, kind)| {
            let kind = match kind {
                Line::Entry(_) => Kind::Entry,
                Line::Content => Kind::Content,
                Line::Markup => Kind::Markup,
                Line::Heading if text.trim_start().starts_with('#') => {
                    section += 1;
                    Kind::Other
                }
                _ => Kind::Other,
            };
            Slot {
                text: text.to_owned(),
                kind,
                section,
            }
        })
        .collect()
}

/// Each section's heading text (`None` for the lines before the first heading).
fn section_titles(slots: &[Slot]) -> Vec<Option<String>> {
    let mut titles = vec![None];
    let mut last = 0;
    for s in slots {
        if s.section != last {
            last = s.section;
            let title = s.text.trim().trim_start_matches('#').trim();
            titles.push((!title.is_empty()).then(|| shorten(title, 60)));
        }
    }
    titles
}

/// A note's words without its list marker or quote mark.
fn note_text(line: &str) -> &str {
    line.trim()
        .trim_start_matches(['-', '*', '+', '>'])
        .trim_start()
}

/// `{prefix}_{slug}.md`, with `_2`, `_3`… when taken, and which of the name it is; the path
/// is then taken.
fn free_path(prefix: &str, title: &str, taken: &mut HashSet<String>) -> (String, usize) {
    let slug = slug(title);
    let mut n = 1;
    loop {
        let candidate = if n == 1 {
            format!("{prefix}_{slug}.md")
        } else {
            format!("{prefix}_{slug}_{n}.md")
        };
        if !taken.contains(&candidate) {
            taken.insert(candidate.clone());
            return (candidate, n);
        }
        n += 1;
    }
}

/// Lines and units of the slots as the loader would count them (close enough to steer by;
/// the result is measured exactly).
fn measure(slots: &[Slot]) -> (usize, usize) {
    // blank lines at the end are not loaded
    let n = slots
        .iter()
        .rposition(|s| !s.text.trim().is_empty())
        .map_or(0, |i| i + 1);
    let u: usize = slots.iter().take(n).map(|s| utf16_len(&s.text) + 1).sum();
    (n, u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::kept_words::words;
    use crate::write::snapshot::Entry;
    use std::collections::{BTreeMap, BTreeSet};

    fn snapshot() -> Snapshot {
        Snapshot::new(Vec::<Entry>::new(), BTreeMap::new(), BTreeMap::new())
    }

    fn all_words(texts: &[&str]) -> BTreeSet<String> {
        texts.iter().flat_map(|t| words(t)).collect()
    }

    #[test]
    fn notes_move_into_topic_files_and_entries_into_sub_indexes() {
        let mut index = String::from("# Memory\n");
        for i in 0..150 {
            index.push_str(&format!("- [Topic {i}](topic_{i}.md) — hook number {i}\n"));
        }
        index.push_str("## Notes\n");
        for i in 0..99 {
            index.push_str(&format!("The server {i} answers on port {}.\n", 8000 + i));
        }
        let limits = Limits::default();
        let Some(c) = compact_index(&index, &snapshot(), &limits, &HashSet::new()) else {
            unreachable!("a 251-line index is compacted")
        };
        let (lines, _) = index_size(&c.index);
        assert!(lines <= 180, "{lines} lines");
        assert_eq!(c.moved_content_lines, 99);
        let mut after: Vec<&str> = vec![&c.index];
        after.extend(c.files.iter().map(|(_, t)| t.as_str()));
        let before = all_words(&[&index]);
        let kept = all_words(&after);
        let lost: Vec<_> = before.difference(&kept).collect();
        assert!(lost.is_empty(), "lost {lost:?}");
        // every new file is linked from the index
        for (path, _) in &c.files {
            assert!(c.index.contains(&format!("]({path})")), "{path} is linked");
        }
    }

    /// Sections of one heading and one entry each, headings alone, a heading of 30,000
    /// characters: neither notes nor a section's entries can be moved, so the index's tail
    /// moves whole into one sub-index (each of these was left over its limits, with no fix).
    #[test]
    fn what_no_section_can_give_moves_as_the_index_tail() {
        let limits = Limits::default();
        let small: String = (0..150)
            .map(|i| format!("## Part {i}\n- [Topic {i}](topic_{i}.md) — hook {i}\n"))
            .collect();
        let headings: String = (0..260).map(|i| format!("## Heading {i}\n")).collect();
        let wide = format!("# {}\n- [A](a.md) — a\n", "wide ".repeat(6_000));
        for index in [small, headings, wide] {
            let Some(c) = compact_index(&index, &snapshot(), &limits, &HashSet::new()) else {
                unreachable!("compacted: {:?}", index.lines().next())
            };
            let (lines, units) = index_size(&c.index);
            assert!(
                lines <= 180 && units <= 22_500,
                "{lines} lines, {units} units"
            );
            assert!(c.moved_tail_lines > 0);
            let mut after: Vec<&str> = vec![&c.index];
            after.extend(c.files.iter().map(|(_, t)| t.as_str()));
            let lost: Vec<_> = all_words(&[&index])
                .difference(&all_words(&after))
                .cloned()
                .collect();
            assert!(lost.is_empty(), "lost {lost:?}");
            for (path, _) in &c.files {
                assert!(c.index.contains(&format!("]({path})")), "{path} is linked");
            }
        }
    }

    /// Compaction writes files only while the folder has room under maxFiles (and one more,
    /// its last step's): 100 small sections with notes wrote 100 notes files and sub-indexes
    /// besides, pushing every older memory out of recall.
    #[test]
    fn compaction_writes_files_within_the_room_under_max_files() {
        let index: String = (0..100)
            .map(|i| {
                format!(
                    "## Part {i}\n- [Topic {i}](topic_{i}.md) — hook {i}\nnote {i} on port {i}\n"
                )
            })
            .collect();
        let limits = Limits {
            max_files: 10,
            ..Limits::default()
        };
        let Some(c) = compact_index(&index, &snapshot(), &limits, &HashSet::new()) else {
            unreachable!("compacted")
        };
        assert!(c.files.len() <= 10, "{} files", c.files.len());
        let (lines, units) = index_size(&c.index);
        assert!(
            lines <= 200 && units <= 25_000,
            "{lines} lines, {units} units"
        );
        let mut after: Vec<&str> = vec![&c.index];
        after.extend(c.files.iter().map(|(_, t)| t.as_str()));
        assert!(all_words(&[&index]).is_subset(&all_words(&after)));
    }

    #[test]
    fn an_index_under_its_limits_is_left_alone_and_crlf_is_kept() {
        assert_eq!(
            compact_index(
                "- [A](a.md) — x\n",
                &snapshot(),
                &Limits::default(),
                &HashSet::new()
            ),
            None
        );
        let index = "- [A](a.md) — x\r\n".repeat(250);
        let Some(c) = compact_index(&index, &snapshot(), &Limits::default(), &HashSet::new())
        else {
            unreachable!("compacted")
        };
        assert!(c.index.contains("\r\n") && !c.index.replace("\r\n", "").contains('\n'));
        assert!(c.moved_entries > 50);
    }
}
