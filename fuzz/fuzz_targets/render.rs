//! `render::render_memory` (the injected block of one memory): whatever the file, its path and
//! its times, the block opens and closes exactly once — nothing inside can close or fake it —
//! and the kept content is within `maxInjectLines` and `maxInjectBytes`.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::render::{neutralize_reminder_tags, render_memory, RenderInput, Truncation};
use memdir_fuzz::{arg, fuzz_head, json_args, FuzzLimits, FuzzPath};

/// Whether `text` holds an opening or closing `system-reminder` tag, in any case, with ASCII
/// white space after `<` and around `/`.
fn has_tag(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len()).filter(|&i| b[i] == b'<').any(|i| {
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if j < b.len() && b[j] == b'/' {
            j += 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
        }
        b.len() >= j + 15 && b[j..j + 15].eq_ignore_ascii_case(b"system-reminder")
    })
}

fn check(input: &RenderInput) {
    memdir_fuzz::debug(&input);
    let r = render_memory(input);
    let inner = r
        .text
        .strip_prefix("<system-reminder>\n")
        .and_then(|t| t.strip_suffix("\n</system-reminder>"))
        .expect("the block is wrapped once");
    assert!(
        !has_tag(inner),
        "the block can be closed or faked from inside: {inner:?}"
    );
    assert_eq!(inner, format!("{}\n\n{}", r.header, r.body));
    assert_eq!(r.utf16_count as usize, r.body.encode_utf16().count());
    let limits = input.limits.unwrap_or_default();
    // the note names the limit and the path (which may hold anything, the note's words too)
    let shown = input
        .absolute_path
        .as_deref()
        .filter(|p| !p.is_empty())
        .unwrap_or(&input.path);
    let kept = match r.truncated {
        None => r.body.as_str(),
        Some(why) => {
            let limit = match why {
                Truncation::Lines => format!("first {} lines", limits.max_inject_lines),
                Truncation::Bytes => format!("{}-byte limit", limits.max_inject_bytes),
            };
            let note = format!(
                "> This memory was truncated ({limit}). Read the whole file at: {}",
                neutralize_reminder_tags(shown)
            );
            let rest = r
                .body
                .strip_suffix(&note)
                .expect("the body ends with the note");
            rest.strip_suffix("\n\n").unwrap_or(rest)
        }
    };
    if r.truncated.is_some() {
        assert!(
            kept.len() <= limits.max_inject_bytes as usize,
            "kept {} bytes",
            kept.len()
        );
        let lines = if kept.is_empty() {
            0
        } else {
            kept.split('\n').count()
        };
        assert!(
            lines <= limits.max_inject_lines as usize,
            "kept {lines} lines"
        );
    }
}

#[derive(Debug)]
struct Raw(RenderInput);

impl<'a> Arbitrary<'a> for Raw {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let now_ms = 1_772_714_096_789.0;
        Ok(Self(RenderInput {
            path: FuzzPath::arbitrary(u)?.0,
            absolute_path: Option::<String>::arbitrary(u)?,
            mtime_ms: match u.int_in_range(0..=3u8)? {
                0 => u.arbitrary()?,
                n => now_ms - f64::from(n) * f64::from(u.arbitrary::<u16>()?) * 3_600_000.0,
            },
            content: fuzz_head(u)?,
            now_ms: if u.ratio(1u8, 8u8)? {
                u.arbitrary()?
            } else {
                now_ms
            },
            limits: if u.arbitrary()? {
                Some(FuzzLimits::arbitrary(u)?.0)
            } else {
                None
            },
        }))
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        if let Some(input) = arg::<RenderInput>(&args, 0) {
            check(&input);
        }
        return;
    }
    if let Ok(raw) = Raw::arbitrary(&mut Unstructured::new(data)) {
        check(&raw.0);
    }
});
