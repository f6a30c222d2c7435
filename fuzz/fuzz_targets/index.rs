//! `index::truncate_index`: the kept part stays within both limits, is a prefix of the trimmed
//! text, and truncating it again cuts nothing; the warning is the only thing added.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::index::truncate_index;
use memdir::text::{js_trim, normalize_text, utf16_len};
use memdir::Limits;
use memdir_fuzz::{arg, json_args, limits_arg, FuzzLimits, FuzzText};

fn check(raw: &str, limits: &Limits) {
    memdir_fuzz::debug(&(raw, limits));
    let view = truncate_index(raw, limits);
    let normalized = normalize_text(raw);
    let trimmed = js_trim(&normalized);
    let max_lines = limits.max_index_lines as usize;
    let max_utf16 = limits.max_index_utf16 as usize;
    if !view.was_line_truncated && !view.was_size_truncated {
        assert_eq!(view.content, trimmed);
        return;
    }
    let marker = "\n\n> WARNING: MEMORY.md is ";
    let at = view
        .content
        .rfind(marker)
        .expect("a truncated index ends with the warning");
    let kept = &view.content[..at];
    let warning = &view.content[at + 2..];
    assert!(!warning.contains('\n'), "the warning is one line");
    assert!(trimmed.starts_with(kept), "the kept part is a prefix");
    let kept_lines = if kept.is_empty() {
        0
    } else {
        kept.split('\n').count()
    };
    assert!(
        kept_lines <= max_lines,
        "{kept_lines} lines kept, limit {max_lines}"
    );
    assert!(
        utf16_len(kept) <= max_utf16,
        "kept part over {max_utf16} units"
    );
    // truncating the kept part cuts nothing more; it is only normalised again, and
    // normalising is not idempotent ("\r\r\n" → "\r\n", as JavaScript's replace does)
    let again = truncate_index(kept, limits);
    assert!(!again.was_line_truncated && !again.was_size_truncated);
    assert_eq!(again.content, js_trim(&normalize_text(kept)));
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        if let (Some(text), Some(limits)) = (arg::<String>(&args, 0), limits_arg(&args, 1)) {
            check(&text, &limits);
        }
        return;
    }
    let mut u = Unstructured::new(data);
    let (Ok(limits), Ok(text)) = (FuzzLimits::arbitrary(&mut u), FuzzText::arbitrary(&mut u))
    else {
        return;
    };
    check(&text.0, &limits.0);
    check(&String::from_utf8_lossy(data), &limits.0);
});
