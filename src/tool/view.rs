//! `view`: a directory two levels deep with sizes, or a file with numbered lines.

use super::path::display_path;
use super::ToolResult;
use crate::codes::EntryKind;
use crate::error::{Error, Refusal};
use crate::limits::Limits;
use crate::write::snapshot::Entry;
use crate::write::Snapshot;

/// Lines a file may have for `view` (the SDK's limit).
pub const MAX_VIEW_LINES: usize = 999_999;
/// Width of the line numbers (`999999` has six digits).
pub const LINE_NUMBER_WIDTH: usize = 6;

pub fn view(
    given: &str,
    rel: &str,
    range: Option<&[i64]>,
    snapshot: &Snapshot,
    limits: &Limits,
) -> ToolResult {
    if snapshot.is_dir(rel) {
        return ToolResult::ok(directory(rel, snapshot), Vec::new());
    }
    match snapshot.entry(rel) {
        None => ToolResult::error(format!(
            "The path {given} does not exist. Please provide a valid path."
        )),
        Some(e) if e.kind != EntryKind::File || e.problem.is_some() => {
            ToolResult::error(format!("Unsupported file type for {given}"))
        }
        Some(_) => match snapshot.whole_text(rel, limits) {
            Ok(None) => ToolResult::error(format!(
                "The file {given} no longer exists (may have been deleted or renamed concurrently)."
            )),
            Ok(Some(text)) => file(given, text, range),
            // not UTF-8: shown with U+FFFD for the bad bytes (edits refuse it)
            Err(Error::Refused {
                refusal: Refusal::InvalidUtf8,
                ..
            }) => file(given, &snapshot.text(rel).unwrap_or_default(), range),
            // not read whole: never shown cut as if it were the file
            Err(e) => ToolResult::error(format!("Cannot view {given}: {e}")),
        },
    }
}

fn file(given: &str, content: &str, range: Option<&[i64]>) -> ToolResult {
    let lines: Vec<&str> = content.split('\n').collect();
    if lines.len() > MAX_VIEW_LINES {
        return ToolResult::error(format!(
            "File {given} has too many lines ({}). Maximum is 999,999 lines.",
            lines.len()
        ));
    }
    let (start, end) = match range {
        None => (0, lines.len()),
        Some([first, last]) => {
            let count = i64::try_from(lines.len()).unwrap_or(i64::MAX);
            if *first < 1 || *first > count.max(1) {
                return ToolResult::error(format!(
                    "Invalid `view_range`: [{first}, {last}]. Its first element `{first}` should be within the range of lines of the file: [1, {count}]"
                ));
            }
            if *last != -1 && *last < *first {
                return ToolResult::error(format!(
                    "Invalid `view_range`: [{first}, {last}]. Its second element `{last}` should be larger or equal than its first `{first}`"
                ));
            }
            let end = if *last == -1 { count } else { (*last).min(count) };
            (usize::try_from(*first - 1).unwrap_or(0), usize::try_from(end).unwrap_or(0))
        }
        Some(other) => {
            return ToolResult::error(format!(
                "Invalid `view_range`: {other:?}. It should be a list of two integers, [start, end], with end -1 for the end of the file"
            ))
        }
    };
    let numbered = number_lines(lines.get(start..end).unwrap_or(&[]), start + 1);
    ToolResult::ok(
        format!("Here's the content of {given} with line numbers:\n{numbered}"),
        Vec::new(),
    )
}

/// Lines with 6-wide right-aligned numbers and a tab, starting at `first`.
pub fn number_lines(lines: &[&str], first: usize) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{:>width$}\t{line}", i + first, width = LINE_NUMBER_WIDTH))
        .collect::<Vec<_>>()
        .join("\n")
}

fn hidden(segment: &str) -> bool {
    segment.starts_with('.') || segment == "node_modules"
}

/// Entries below `rel`: `(path below rel, entry)`, nothing hidden, nothing unusable.
fn below<'a>(rel: &str, snapshot: &'a Snapshot) -> Vec<(&'a str, &'a Entry)> {
    snapshot
        .entries
        .iter()
        .filter_map(|e| {
            let inner = if rel.is_empty() {
                Some(e.path.as_str())
            } else {
                e.path.strip_prefix(rel).and_then(|r| r.strip_prefix('/'))
            };
            inner.map(|inner| (inner, e))
        })
        .filter(|(inner, e)| {
            !inner.is_empty()
                && !inner.split('/').any(hidden)
                && e.problem.is_none()
                && e.kind != EntryKind::Other
        })
        .collect()
}

fn directory(rel: &str, snapshot: &Snapshot) -> String {
    let items = below(rel, snapshot);
    let size_of = |prefix: &str| -> f64 {
        items
            .iter()
            .filter(|(inner, e)| {
                e.kind == EntryKind::File
                    && (prefix.is_empty()
                        || inner
                            .strip_prefix(prefix)
                            .is_some_and(|r| r.starts_with('/')))
            })
            .map(|(_, e)| e.size)
            .sum()
    };
    let mut shown: Vec<(&str, &Entry)> = items
        .iter()
        .copied()
        .filter(|(inner, _)| inner.split('/').count() <= 2)
        .collect();
    // each folder's names in UTF-16 order (as JavaScript sorts), folders before their contents
    crate::sort::sort_by(&mut shown, |a, b| {
        let key = |p: &str| {
            p.split('/')
                .map(|s| s.encode_utf16().collect::<Vec<_>>())
                .collect::<Vec<_>>()
        };
        key(a.0).cmp(&key(b.0))
    });
    let root = display_path(rel);
    let mut lines = vec![format!("{}\t{root}", format_size(size_of("")))];
    for (inner, e) in shown {
        if e.kind == EntryKind::Directory {
            lines.push(format!("{}\t{root}/{inner}/", format_size(size_of(inner))));
        } else {
            lines.push(format!("{}\t{root}/{inner}", format_size(e.size)));
        }
    }
    format!(
        "Here're the files and directories up to 2 levels deep in {root}, excluding hidden items and node_modules:\n{}",
        lines.join("\n")
    )
}

/// The SDK's sizes: `0B`, `512B`, `1.5K`, `4K`, `2.3M`, `1G`.
pub fn format_size(bytes: f64) -> String {
    if !bytes.is_finite() || bytes <= 0.0 {
        return "0B".to_owned();
    }
    const UNITS: [&str; 4] = ["B", "K", "M", "G"];
    let mut size = bytes;
    let mut unit = 0;
    while size >= 1024.0 && unit < UNITS.len() - 1 {
        size /= 1024.0;
        unit += 1;
    }
    let text = if size.fract() == 0.0 {
        format!("{size}")
    } else {
        format!("{size:.1}")
    };
    format!("{text}{}", UNITS.get(unit).unwrap_or(&"G"))
}
