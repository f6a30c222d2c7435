//! Age and staleness of a memory. `now_ms` is always passed in.

const DAY_MS: f64 = 86_400_000.0;

/// Whole 24-hour periods since `mtime_ms`: `max(0, floor((now - mtime) / 86,400,000))`.
/// A future or invalid time counts as 0.
pub fn age_days(mtime_ms: f64, now_ms: f64) -> u32 {
    let days = ((now_ms - mtime_ms) / DAY_MS).floor();
    if days.is_nan() || days <= 0.0 {
        return 0;
    }
    // clamped to u32 range first, so the cast is exact
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let days = days.min(f64::from(u32::MAX)) as u32;
    days
}

/// `today`, `yesterday` or `N days ago`.
pub fn age_label(days: u32) -> String {
    match days {
        0 => "today".to_owned(),
        1 => "yesterday".to_owned(),
        n => format!("{n} days ago"),
    }
}

/// The staleness caveat, or an empty string for a memory saved today or yesterday.
pub fn freshness_text(days: u32) -> String {
    if days <= 1 {
        return String::new();
    }
    format!(
        "This memory is {days} days old. Memories are observations from a point in time, not live state: \
         what it says about code behaviour, and any file:line citation, may be out of date. \
         Check it against the current code before stating it as fact."
    )
}

/// The caveat wrapped as `<system-reminder>…</system-reminder>\n`, or empty when fresh.
pub fn freshness_note(days: u32) -> String {
    let text = freshness_text(days);
    if text.is_empty() {
        text
    } else {
        format!("<system-reminder>{text}</system-reminder>\n")
    }
}
