//! Phase 1 of every turn: `MEMORY.md`, trimmed and held to its line and size limits, with a
//! visible warning whenever a limit cut it (the reference cuts, we also say so).

use serde::{Deserialize, Serialize};

use crate::limits::{to_usize, Limits};
use crate::text::{
    byte_offset_at_utf16, first_lines, format_size, js_trim, normalize_text, utf16_len,
};

/// The index as it goes into the prompt, with the figures measured on the original.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexView {
    /// The text to inject: the trimmed index, cut if needed, plus the warning when cut.
    pub content: String,
    /// Lines of the original trimmed text (0 when empty).
    pub line_count: u32,
    /// UTF-16 code units of the original trimmed text.
    pub utf16_count: u32,
    /// The line limit fired (measured on the original).
    pub was_line_truncated: bool,
    /// The size limit fired (measured on the original).
    pub was_size_truncated: bool,
}

/// Truncates the index text per SPEC §3 "Index".
///
/// Lines first, then size: the size cut goes to the last `\n` at or before the limit (the
/// newline is dropped), or hard at the limit when there is none — never inside a character.
/// Both flags are measured on the original trimmed text, so the warning states the real size.
pub fn truncate_index(raw: &str, limits: &Limits) -> IndexView {
    let normalized = normalize_text(raw);
    let trimmed = js_trim(&normalized);
    let line_count = if trimmed.is_empty() {
        0
    } else {
        trimmed.split('\n').count()
    };
    let utf16_count = utf16_len(trimmed);
    let max_lines = to_usize(limits.max_index_lines);
    let max_utf16 = to_usize(limits.max_index_utf16);
    let was_line_truncated = line_count > max_lines;
    let was_size_truncated = utf16_count > max_utf16;

    let mut view = IndexView {
        content: trimmed.to_owned(),
        line_count: saturate(line_count),
        utf16_count: saturate(utf16_count),
        was_line_truncated,
        was_size_truncated,
    };
    if !was_line_truncated && !was_size_truncated {
        return view;
    }

    let mut kept = if was_line_truncated {
        first_lines(trimmed, max_lines)
    } else {
        trimmed
    };
    if utf16_len(kept) > max_utf16 {
        kept = cut_at_utf16(kept, max_utf16);
    }
    view.content = format!("{kept}\n\n{}", warning(line_count, utf16_count, limits));
    view
}

/// The last newline at UTF-16 index `<= max_utf16` (dropped), else a hard cut at the limit.
fn cut_at_utf16(text: &str, max_utf16: usize) -> &str {
    let limit = byte_offset_at_utf16(text, max_utf16);
    let search_end = if text.as_bytes().get(limit) == Some(&b'\n') {
        limit + 1
    } else {
        limit
    };
    let head = text.get(..search_end).unwrap_or(text);
    match head.rfind('\n') {
        Some(newline) if newline > 0 => text.get(..newline).unwrap_or(text),
        _ => text.get(..limit).unwrap_or(text),
    }
}

fn warning(line_count: usize, utf16_count: usize, limits: &Limits) -> String {
    let size = format_size(utf16_count as u64);
    let max_size = format_size(u64::from(limits.max_index_utf16));
    let max_lines = limits.max_index_lines;
    let measured = match (
        line_count > to_usize(max_lines),
        utf16_count > to_usize(limits.max_index_utf16),
    ) {
        (true, true) => {
            format!("{line_count} lines and {size} (limits: {max_lines} lines, {max_size})")
        }
        (true, false) => format!("{line_count} lines (limit: {max_lines} lines)"),
        _ => format!("{size} (limit: {max_size})"),
    };
    format!(
        "> WARNING: MEMORY.md is {measured}, so only part of it was loaded. \
         Keep each index entry to one short line and move the detail into topic files."
    )
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
