//! `diff::unified_diff`: never panics, is empty exactly for equal texts, and applying the hunks
//! to the old text gives back the new text, byte for byte.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::diff::unified_diff;
use memdir_fuzz::{arg, json_args, FuzzText};

/// `(start, count)` of `-l,s` or `+l,s`.
fn range(s: &str) -> (usize, usize) {
    match s.split_once(',') {
        Some((l, n)) => (l.parse().unwrap(), n.parse().unwrap()),
        None => (s.parse().unwrap(), 1),
    }
}

/// Applies a unified diff (as `unified_diff` prints it) to `old`.
fn apply(old: &str, diff: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out: Vec<String> = Vec::new();
    let mut next = 0usize; // next old line to copy
    let mut lines = diff.split_inclusive('\n').skip(2).peekable();
    while let Some(header) = lines.next() {
        let header = header.strip_suffix('\n').unwrap();
        let inner = header
            .strip_prefix("@@ -")
            .and_then(|h| h.strip_suffix(" @@"))
            .unwrap_or_else(|| panic!("not a hunk header: {header:?}"));
        let (old_part, new_part) = inner.split_once(" +").unwrap();
        let ((l0, s0), (_, s1)) = (range(old_part), range(new_part));
        let start = if s0 == 0 { l0 } else { l0 - 1 };
        assert!(start >= next, "hunks out of order");
        out.extend(a[next..start].iter().map(|l| (*l).to_owned()));
        next = start;
        let (mut seen0, mut seen1) = (0, 0);
        while seen0 < s0 || seen1 < s1 {
            let line = lines.next().expect("hunk shorter than its header says");
            let (tag, body) = line.split_at(1);
            let mut body = body.to_owned();
            if lines.peek() == Some(&"\\ No newline at end of file\n") {
                lines.next();
                body.pop();
            }
            match tag {
                " " => {
                    assert_eq!(a[next], body, "context line differs");
                    out.push(body);
                    next += 1;
                    seen0 += 1;
                    seen1 += 1;
                }
                "-" => {
                    assert_eq!(a[next], body, "removed line differs");
                    next += 1;
                    seen0 += 1;
                }
                "+" => {
                    out.push(body);
                    seen1 += 1;
                }
                _ => panic!("bad line {line:?}"),
            }
        }
    }
    out.extend(a[next..].iter().map(|l| (*l).to_owned()));
    out.concat()
}

fn check(path: &str, old: &str, new: &str) {
    memdir_fuzz::debug(&(path, old, new));
    let diff = unified_diff(path, old, new);
    assert_eq!(diff.is_empty(), old == new);
    if diff.is_empty() || path.contains('\n') {
        return;
    }
    assert_eq!(
        apply(old, &diff),
        new,
        "the diff does not turn old into new:\n{diff}"
    );
}

#[derive(Debug, Arbitrary)]
struct Raw {
    old: Vec<FuzzText>,
    edits: Vec<(u8, u8, FuzzText)>,
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        if let (Some(path), Some(old), Some(new)) = (
            arg::<String>(&args, 0),
            arg::<String>(&args, 1),
            arg::<String>(&args, 2),
        ) {
            check(&path, &old, &new);
        }
        return;
    }
    let Ok(raw) = Raw::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    // lines of the old text, then a few line edits: similar texts make real hunks
    let mut lines: Vec<String> = raw.old.iter().map(|t| t.0.clone()).collect();
    let old = lines.join("\n");
    for (op, at, text) in raw.edits {
        let at = usize::from(at) % (lines.len() + 1);
        match op % 3 {
            0 => lines.insert(at, text.0),
            1 if at < lines.len() => {
                lines.remove(at);
            }
            _ if at < lines.len() => lines[at] = text.0,
            _ => lines.push(text.0),
        }
    }
    check("MEMORY.md", &old, &lines.join("\n"));
});
