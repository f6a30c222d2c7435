//! One selected memory, rendered as the `<system-reminder>` block to inject: a header fixed at
//! render time (so a cached prompt stays byte-identical), then the file cut to its limits.

use serde::{Deserialize, Serialize};

use crate::freshness::{age_days, age_label, freshness_text};
use crate::limits::{to_usize, Limits};
use crate::scan::Head;
use crate::text::{normalize_text, utf16_len};

/// What to render.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct RenderInput {
    /// Relative path of the memory.
    pub path: String,
    /// Absolute path, used in the header and the truncation note when given.
    #[serde(default)]
    pub absolute_path: Option<String>,
    pub mtime_ms: f64,
    /// The whole file, or at least its first `maxInjectBytes` + a few bytes; text or raw bytes.
    pub content: Head,
    pub now_ms: f64,
    #[serde(default)]
    #[cfg_attr(test, ts(type = "Partial<Limits> | null", optional))]
    pub limits: Option<Limits>,
}

/// Which limit cut the memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Truncation {
    Lines,
    Bytes,
}

/// The rendered block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "RenderedMemory"))]
pub struct Rendered {
    /// `Memory (saved today): path:`, or the staleness caveat, a blank line and `Memory: path:`.
    pub header: String,
    /// The content as injected (cut, neutralised), with the truncation note when cut.
    pub body: String,
    pub truncated: Option<Truncation>,
    /// The whole block: `<system-reminder>\n{header}\n\n{body}\n</system-reminder>`.
    pub text: String,
    /// UTF-16 units of `body`: what counts against the session budget.
    pub utf16_count: u32,
}

/// Bytes of a selected memory a host reads to render it: what `maxInjectBytes` could keep
/// even if every line ended in CRLF (read as LF) and behind a byte-order mark, and a byte
/// more, so a cut is seen for what it is.
pub fn inject_read_bytes(limits: &Limits) -> u32 {
    limits.max_inject_bytes.saturating_mul(2).saturating_add(8)
}

/// Renders a memory per rules §3.7.
pub fn render_memory(input: &RenderInput) -> Rendered {
    let limits = input.limits.unwrap_or_default();
    // a path is shown in the header and the note: it must not close the block either
    let shown_path = neutralize_reminder_tags(
        input
            .absolute_path
            .as_deref()
            .filter(|p| !p.is_empty())
            .unwrap_or(&input.path),
    );
    let shown_path = shown_path.as_str();
    let days = age_days(input.mtime_ms, input.now_ms);
    let header = if days <= 1 {
        format!("Memory (saved {}): {shown_path}:", age_label(days))
    } else {
        format!("{}\n\nMemory: {shown_path}:", freshness_text(days))
    };
    let text = match &input.content {
        Head::Text(text) => std::borrow::Cow::Borrowed(text.as_str()),
        Head::Bytes(bytes) => String::from_utf8_lossy(bytes),
    };
    let content = neutralize_reminder_tags(&normalize_text(&text));
    let (kept, truncated) = cut(
        &content,
        to_usize(limits.max_inject_lines),
        to_usize(limits.max_inject_bytes),
    );
    let body = match truncated {
        None => kept.to_owned(),
        Some(why) => {
            let limit = match why {
                Truncation::Lines => format!("first {} lines", limits.max_inject_lines),
                Truncation::Bytes => format!("{}-byte limit", limits.max_inject_bytes),
            };
            let note = format!(
                "> This memory was truncated ({limit}). Read the whole file at: {shown_path}"
            );
            if kept.is_empty() {
                note
            } else {
                format!("{kept}\n\n{note}")
            }
        }
    };
    let text = format!("<system-reminder>\n{header}\n\n{body}\n</system-reminder>");
    let utf16_count = u32::try_from(utf16_len(&body)).unwrap_or(u32::MAX);
    Rendered {
        header,
        body,
        truncated,
        text,
        utf16_count,
    }
}

/// Keeps whole lines while both limits hold. The byte count is UTF-8 bytes of the kept lines
/// plus the newlines between them. A final newline does not make an extra line (unlike the
/// reference, a 200-line file ending in `\n` is not reported as cut).
fn cut(content: &str, max_lines: usize, max_bytes: usize) -> (&str, Option<Truncation>) {
    let body = content.strip_suffix('\n').unwrap_or(content);
    let mut end = 0usize;
    for (lines, line) in body.split('\n').enumerate() {
        let next_end = if lines == 0 {
            line.len()
        } else {
            end + 1 + line.len()
        };
        if lines >= max_lines {
            return (body.get(..end).unwrap_or(""), Some(Truncation::Lines));
        }
        if next_end > max_bytes {
            return (body.get(..end).unwrap_or(""), Some(Truncation::Bytes));
        }
        end = next_end;
    }
    (body, None)
}

/// A memory must not be able to close (or fake) the block it is injected in: every
/// `<system-reminder` / `</system-reminder` tag, in any case and with inner spaces, has its
/// `<` replaced by `&lt;`.
pub fn neutralize_reminder_tags(text: &str) -> String {
    const TAG: &[u8] = b"system-reminder";
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0usize;
    for (i, _) in text.match_indices('<') {
        let mut j = i + 1;
        let skip_spaces = |mut j: usize| {
            while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                j += 1;
            }
            j
        };
        j = skip_spaces(j);
        if bytes.get(j) == Some(&b'/') {
            j = skip_spaces(j + 1);
        }
        let is_tag = bytes
            .get(j..j + TAG.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(TAG));
        if is_tag {
            out.push_str(text.get(copied..i).unwrap_or(""));
            out.push_str("&lt;");
            copied = i + 1;
        }
    }
    out.push_str(text.get(copied..).unwrap_or(""));
    out
}
