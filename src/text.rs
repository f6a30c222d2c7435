//! Text helpers shared by the rules: JavaScript-compatible trimming and whitespace,
//! UTF-16 measurement, newline normalisation and Claude Code's file-size format.

use std::borrow::Cow;

/// `true` for the characters JavaScript's `String.prototype.trim` and `/\s/` treat as
/// white space (WhiteSpace + LineTerminator). This differs from Rust's `char::is_whitespace`:
/// JS counts U+FEFF and not U+0085.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{D}'
            | ' '
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// JavaScript's `s.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// Length in UTF-16 code units (JavaScript's `s.length`).
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The byte offset of the last character boundary whose UTF-16 offset is `<= units`.
/// A cut here never splits a UTF-8 sequence or a surrogate pair.
pub fn byte_offset_at_utf16(s: &str, units: usize) -> usize {
    let mut seen = 0usize;
    for (offset, c) in s.char_indices() {
        let next = seen + c.len_utf16();
        if next > units {
            return offset;
        }
        seen = next;
    }
    s.len()
}

/// Strips one leading byte-order mark and turns CRLF into LF, as the reference's file
/// reader does. Borrows when there is nothing to change.
pub fn normalize_text(s: &str) -> Cow<'_, str> {
    let s = s.strip_prefix('\u{FEFF}').unwrap_or(s);
    // a `\r` is rare: found by a byte search, then checked for its `\n`
    if s.split('\r').skip(1).any(|after| after.starts_with('\n')) {
        Cow::Owned(s.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(s)
    }
}

/// The first `max_lines` lines of `s` (split on `\n`), without the newline that ends the last one.
pub fn first_lines(s: &str, max_lines: usize) -> &str {
    if max_lines == 0 {
        return "";
    }
    match s.match_indices('\n').nth(max_lines - 1) {
        Some((offset, _)) => s.get(..offset).unwrap_or(s),
        None => s,
    }
}

/// Folds every run of white space (newlines included) into one space and trims the ends,
/// so a value stays on one manifest line.
pub fn fold_whitespace(s: &str) -> String {
    // nearly every value is ASCII with single spaces between words: nothing to fold
    let bytes = s.as_bytes();
    let folded_already = bytes.first().is_some_and(|&b| b != b' ')
        && bytes.last().is_some_and(|&b| b != b' ')
        && bytes.iter().all(|&b| (b' '..=b'~').contains(&b))
        && !s.contains("  ");
    if folded_already {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    for word in s.split(is_js_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Claude Code's `formatFileSize`: `N bytes` under 1024, else KB / MB / GB with one decimal
/// (rounded half up, as JavaScript's `toFixed(1)` does on these exact values) and `.0` dropped.
/// 25,000 → `24.4KB`.
pub fn format_size(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("KB", 1 << 10), ("MB", 1 << 20), ("GB", 1 << 30)];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let (unit, divisor) = UNITS
        .iter()
        .rev()
        .find(|(_, d)| n >= *d)
        .copied()
        .unwrap_or(("KB", 1 << 10));
    // tenths, rounded half up, computed exactly in integers
    let tenths = (u128::from(n) * 10 + u128::from(divisor) / 2) / u128::from(divisor);
    let (whole, frac) = (tenths / 10, tenths % 10);
    if frac == 0 {
        format!("{whole}{unit}")
    } else {
        format!("{whole}.{frac}{unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_trim_matches_javascript() {
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
    }

    #[test]
    fn utf16_offsets_never_split_a_pair() {
        let s = "ab😀c";
        assert_eq!(utf16_len(s), 5);
        assert_eq!(byte_offset_at_utf16(s, 3), 2);
        assert_eq!(byte_offset_at_utf16(s, 4), 6);
        assert_eq!(byte_offset_at_utf16(s, 99), s.len());
    }

    #[test]
    fn sizes() {
        assert_eq!(format_size(1023), "1023 bytes");
        assert_eq!(format_size(1024), "1KB");
        assert_eq!(format_size(25_000), "24.4KB");
        assert_eq!(format_size(1280), "1.3KB");
        assert_eq!(format_size(3 * 1024 * 1024), "3MB");
    }

    #[test]
    fn lines() {
        assert_eq!(first_lines("a\nb\nc", 2), "a\nb");
        assert_eq!(first_lines("a\nb", 5), "a\nb");
        assert_eq!(first_lines("a", 0), "");
        assert_eq!(fold_whitespace(" a\n  b\tc "), "a b c");
    }
}
