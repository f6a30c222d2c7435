//! Phase 1 of every turn: `MEMORY.md`, trimmed and held to its line and size limits, with a
//! visible warning whenever a limit cut it (the reference cuts, we also say so).

use serde::{Deserialize, Serialize};

use crate::limits::{to_usize, Limits};
use crate::render::neutralize_reminder_tags;
use crate::scan::Head;
use crate::text::{
    byte_offset_at_utf16, first_lines, format_size, js_trim, normalize_text, utf16_len,
};

/// The index as it goes into the prompt, with the figures measured on the original.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
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

/// Truncates the index text per rules §3.1.
///
/// Lines first, then size: the size cut goes to the last `\n` at or before the limit (the
/// newline is dropped), or hard at the limit when there is none — never inside a character.
/// Both flags are measured on the original trimmed text, so the warning states the real size.
pub fn truncate_index(raw: &str, limits: &Limits) -> IndexView {
    let normalized = normalize_text(raw);
    let (mut view, kept) = measure_and_cut(js_trim(&normalized), limits);
    if let Some(kept) = kept {
        view.content = format!(
            "{kept}\n\n{}",
            warning(view.line_count, view.utf16_count, limits)
        );
    }
    view
}

/// The view of a trimmed index with its content left whole, and the part to keep when a
/// limit fired.
fn measure_and_cut<'a>(trimmed: &'a str, limits: &Limits) -> (IndexView, Option<&'a str>) {
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

    let view = IndexView {
        content: trimmed.to_owned(),
        line_count: saturate(line_count),
        utf16_count: saturate(utf16_count),
        was_line_truncated,
        was_size_truncated,
    };
    if !was_line_truncated && !was_size_truncated {
        return (view, None);
    }

    let mut kept = if was_line_truncated {
        first_lines(trimmed, max_lines)
    } else {
        trimmed
    };
    if utf16_len(kept) > max_utf16 {
        kept = cut_at_utf16(kept, max_utf16);
    }
    (view, Some(kept))
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

fn warning(line_count: u32, utf16_count: u32, limits: &Limits) -> String {
    let (line_count, utf16_count) = (to_usize(line_count), to_usize(utf16_count));
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

/// What a host reads of the index for [`index_prompt`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct IndexReadPlan {
    /// `MEMORY.md`.
    pub path: String,
    /// Every byte the limits could keep (a UTF-16 unit is at most 3 UTF-8 bytes) and a margin
    /// for a byte-order mark and trimmed white space: reading a 700 MB index whole to keep
    /// 25,000 units of it would cost seconds and gigabytes.
    pub read_bytes: u32,
}

pub fn index_read_plan(limits: &Limits) -> IndexReadPlan {
    IndexReadPlan {
        path: crate::scan::INDEX_FILE_NAME.to_owned(),
        read_bytes: limits
            .max_index_utf16
            .saturating_mul(3)
            .saturating_add(INDEX_READ_MARGIN_BYTES),
    }
}

const INDEX_READ_MARGIN_BYTES: u32 = 4096;

/// What a host read of `MEMORY.md`, for [`index_prompt`].
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct IndexInput {
    /// The whole file, or its first [`IndexReadPlan::read_bytes`] bytes.
    pub content: Head,
    /// The file's size in bytes; larger than `content` when only its start was read.
    #[serde(default)]
    pub file_bytes: Option<f64>,
    /// Where the index is, named in the prompt (`Contents of …`).
    pub absolute_path: String,
    #[serde(default)]
    #[cfg_attr(test, ts(type = "Partial<Limits> | null", optional))]
    pub limits: Option<Limits>,
    /// The scope this index is of, when the memory has several (rules §1.6): named in the prompt.
    #[serde(default)]
    pub scope: Option<String>,
}

/// The index as the model sees it: the view and the block to put in the context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct IndexPrompt {
    #[serde(flatten)]
    pub view: IndexView,
    /// `Contents of {path} (…):` and the content; `""` when the index is missing or empty.
    pub prompt: String,
    /// Only the start of the file was read (it is larger than [`IndexReadPlan::read_bytes`]); the
    /// counts are then of the part read.
    pub read_partially: bool,
}

/// [`truncate_index`] over what the host read, and the prompt block. Nothing in the index
/// can close the `<system-reminder>` it may be injected in: tags are neutralised.
pub fn index_prompt(input: &IndexInput) -> IndexPrompt {
    let limits = input.limits.unwrap_or_default();
    let bytes = match &input.content {
        Head::Text(t) => t.as_bytes(),
        Head::Bytes(b) => b.as_slice(),
    };
    let read = bytes.len() as f64;
    let file_bytes = input.file_bytes.filter(|n| n.is_finite()).unwrap_or(read);
    let read_partially = file_bytes > read;
    // a partial read may end inside a character: drop that character, not the rest
    let bytes = match std::str::from_utf8(bytes) {
        Err(e) if read_partially && e.error_len().is_none() => {
            bytes.get(..e.valid_up_to()).unwrap_or(bytes)
        }
        _ => bytes,
    };
    let text = String::from_utf8_lossy(bytes);
    let normalized = normalize_text(&text);
    let text = without_markup(&normalized);
    let view = if read_partially {
        let normalized = normalize_text(&text);
        let (mut view, kept) = measure_and_cut(js_trim(&normalized), &limits);
        let kept = kept.unwrap_or(&view.content).to_owned();
        view.was_size_truncated = true;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a file size
        let size = format_size(file_bytes as u64);
        view.content = format!(
            "{kept}\n\n> WARNING: MEMORY.md is {size}, far past its limits ({} lines, {}), so only its start was read and only part of that was loaded. \
             Keep each index entry to one short line and move the detail into topic files.",
            limits.max_index_lines,
            format_size(u64::from(limits.max_index_utf16))
        );
        view
    } else {
        truncate_index(&text, &limits)
    };
    let prompt = if view.content.is_empty() {
        String::new()
    } else {
        let scope = input.scope.as_deref();
        let what = match scope.filter(|s| crate::scopes::check_scope_name(s).is_ok()) {
            Some(scope) => format!("the `{scope}` scope's memory index"),
            None => "the memory index".to_owned(),
        };
        neutralize_reminder_tags(&format!(
            "Contents of {} ({what}, kept across conversations):\n\n{}",
            input.absolute_path, view.content
        ))
    };
    IndexPrompt {
        view,
        prompt,
        read_partially,
    }
}

/// The index without what Claude Code strips before injecting it: frontmatter at the top and
/// HTML comment blocks. Unchanged (borrowed) when it has neither.
pub fn without_markup(text: &str) -> std::borrow::Cow<'_, str> {
    use crate::write::entry::{classify_all, Line};
    let kinds = classify_all(text);
    if !kinds.contains(&Line::Markup) {
        return std::borrow::Cow::Borrowed(text);
    }
    let kept: Vec<&str> = text
        .split('\n')
        .zip(kinds)
        .filter(|(_, k)| *k != Line::Markup)
        .map(|(l, _)| l)
        .collect();
    std::borrow::Cow::Owned(kept.join("\n"))
}
