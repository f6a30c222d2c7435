//! The manifest: one line a memory, newest first, that the selector chooses from.

use chrono::{DateTime, Datelike, Timelike};

use crate::scan::Memory;

/// `- [type] path (ISO-8601 mtime): description`; `[type] ` is left out without a valid type,
/// `: description` without a description.
pub fn format_manifest(memories: &[Memory]) -> String {
    let mut out = String::new();
    for (i, memory) in memories.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("- ");
        if let Some(t) = memory.memory_type {
            out.push('[');
            out.push_str(t.as_str());
            out.push_str("] ");
        }
        out.push_str(&memory.path);
        out.push_str(" (");
        out.push_str(&iso_time(memory.time()));
        out.push(')');
        if let Some(description) = &memory.description {
            out.push_str(": ");
            out.push_str(description);
        }
    }
    out
}

/// JavaScript's `new Date(ms).toISOString()`: UTC with milliseconds, `Z`, and the expanded
/// `±YYYYYY` year outside 0000–9999. Fractional milliseconds are truncated, as `Date` does.
/// Times beyond what chrono represents (±262,000 years; `Date` reaches ±275,760) print as the epoch.
pub fn iso_time(mtime_ms: f64) -> String {
    let ms = if mtime_ms.is_finite() {
        mtime_ms.trunc().clamp(-8.64e15, 8.64e15)
    } else {
        0.0
    };
    // in range after the clamp, so the cast is exact
    #[allow(clippy::cast_possible_truncation)]
    let ms = ms as i64;
    let Some(t) = DateTime::from_timestamp_millis(ms) else {
        return "1970-01-01T00:00:00.000Z".to_owned();
    };
    let year = t.year();
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else {
        format!("{year:+07}")
    };
    format!(
        "{year}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.timestamp_subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::iso_time;

    #[test]
    fn iso_matches_javascript() {
        assert_eq!(iso_time(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_time(1_772_714_096_789.9), "2026-03-05T12:34:56.789Z");
        assert_eq!(iso_time(-1.0), "1969-12-31T23:59:59.999Z");
        assert_eq!(
            iso_time(253_402_300_800_000.0),
            "+010000-01-01T00:00:00.000Z"
        );
        assert_eq!(
            iso_time(-62_198_755_200_000.0),
            "-000001-01-01T00:00:00.000Z"
        );
    }
}
