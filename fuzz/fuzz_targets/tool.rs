//! `tool::plan_tool_command` and `tool::run_tool_command` over an arbitrary snapshot: every
//! path the plan resolves and every effect is a safe relative path; an error writes nothing;
//! `view` writes nothing; `str_replace` changes only the replaced span and `insert` only adds
//! its lines — but for an edit of `MEMORY.md` that adds a second entry for a file, which may
//! also drop that file's earlier entries (and says so), leaving one.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::tool::{plan_tool_command, run_tool_command, to_relative};
use memdir::write::{Effect, Snapshot};
use memdir::Limits;
use memdir_fuzz::{
    arg, assert_effects_safe, assert_safe_relative, json_args, limits_arg, FuzzLimits, FuzzPath,
    FuzzSnapshot, FuzzText,
};
use serde_json::{json, Value};

fn check(command: &Value, snapshot: &Snapshot, limits: &Limits) {
    memdir_fuzz::debug(&(command, snapshot, limits));
    let plan = plan_tool_command(command);
    for rel in plan.resolve.iter().chain(&plan.read) {
        if !rel.is_empty() {
            assert_safe_relative(rel, "plan_tool_command");
        }
    }
    let result = run_tool_command(command, snapshot, limits);
    if result.is_error || !plan.writes {
        assert!(result.effects.is_empty(), "{result:?}");
    }
    assert_effects_safe(&result.effects, "run_tool_command");
    if result.is_error {
        return;
    }
    let name = command.get("command").and_then(Value::as_str).unwrap_or("");
    let path = command.get("path").and_then(Value::as_str).unwrap_or("");
    let Ok(rel) = to_relative(path) else { return };
    let Some(Ok(before)) = snapshot.raw_text(&rel) else {
        return;
    };
    let written = result.effects.iter().find_map(|e| match e {
        Effect::Write { path, text, .. } if *path == rel => Some(text.as_str()),
        _ => None,
    });
    let text = |k: &str| command.get(k).and_then(Value::as_str).unwrap_or("");
    let dropped_entries = rel == "MEMORY.md"
        && result
            .text
            .contains("\nAlso removed the earlier entry for ");
    match (name, written) {
        ("str_replace", Some(after)) => {
            let old = text("old_str");
            assert_eq!(
                before.matches(old).count(),
                1,
                "replaced a non-unique old_str"
            );
            let expected = before.replacen(old, text("new_str"), 1);
            if dropped_entries {
                assert_only_earlier_entries_dropped(&expected, after);
            } else {
                assert_eq!(after, expected, "str_replace changed more than the span");
            }
        }
        ("insert", Some(after)) => {
            let at = command.get("insert_line").and_then(Value::as_u64).unwrap() as usize;
            let inserted = text("insert_text");
            let inserted = inserted.strip_suffix('\n').unwrap_or(inserted);
            let mut lines: Vec<&str> = before.split('\n').collect();
            lines.insert(at, inserted);
            let expected = lines.join("\n");
            if dropped_entries {
                assert_only_earlier_entries_dropped(&expected, after);
            } else {
                assert_eq!(after, expected, "insert changed more than its lines");
            }
        }
        _ => {}
    }
}

/// `after` is `expected` less some lines, each an index entry for a file that `after` still
/// links (one line per memory remains).
fn assert_only_earlier_entries_dropped(expected: &str, after: &str) {
    use memdir::write::entry::{classify, Line};
    let file = |l: &str| match classify(l) {
        Line::Entry(e) => e.file(),
        _ => None,
    };
    let kept: Vec<&str> = after.split('\n').collect();
    let mut k = 0;
    let mut dropped = 0;
    for line in expected.split('\n') {
        if kept.get(k) == Some(&line) {
            k += 1;
            continue;
        }
        dropped += 1;
        let f = file(line).expect("a dropped line is an index entry");
        assert!(
            kept.iter().any(|l| file(l).as_deref() == Some(f.as_str())),
            "the dropped entry's file {f} has no entry left"
        );
    }
    assert_eq!(k, kept.len(), "the edit changed lines it did not drop");
    assert!(
        dropped > 0,
        "the result says an entry was dropped, none was"
    );
}

#[derive(Debug)]
struct ToolPath(String);

impl<'a> Arbitrary<'a> for ToolPath {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Self(match u.int_in_range(0..=9u8)? {
            0 => "/memories".to_owned(),
            1 => u.arbitrary()?,
            2 => format!("/memories/{}/", FuzzPath::arbitrary(u)?.0),
            3 => format!("/memories//{}", FuzzPath::arbitrary(u)?.0),
            _ => format!("/memories/{}", FuzzPath::arbitrary(u)?.0),
        }))
    }
}

#[derive(Debug, Arbitrary)]
struct Raw {
    snapshot: FuzzSnapshot,
    limits: FuzzLimits,
    command: u8,
    path: ToolPath,
    new_path: ToolPath,
    text: Option<FuzzText>,
    new_str: Option<FuzzText>,
    /// `old_str` cut from a file of the snapshot: (which file, from char, chars)
    cut: Option<(u8, u8, u8)>,
    line: i8,
    range: Option<Vec<i8>>,
    odd: Option<u8>,
}

const COMMANDS: &[&str] = &[
    "view",
    "create",
    "str_replace",
    "insert",
    "delete",
    "rename",
    "undo_edit",
    "",
];

fn command(raw: &Raw) -> Value {
    let name = COMMANDS[usize::from(raw.command) % COMMANDS.len()];
    let text = raw.text.as_ref().map(|t| t.0.clone());
    let mut path = raw.path.0.clone();
    let mut old_str = text.clone();
    if let Some((file, from, len)) = raw.cut {
        let files: Vec<_> = raw.snapshot.0.contents.keys().collect();
        if !files.is_empty() {
            let rel = files[usize::from(file) % files.len()];
            if let Some(Ok(content)) = raw.snapshot.0.raw_text(rel) {
                old_str = Some(
                    content
                        .chars()
                        .skip(usize::from(from))
                        .take(usize::from(len))
                        .collect(),
                );
                path = format!("/memories/{rel}");
            }
        }
    }
    let mut c = json!({ "command": name, "path": path });
    let m = c.as_object_mut().unwrap();
    match name {
        "view" => {
            if let Some(r) = &raw.range {
                m.insert("view_range".into(), json!(r));
            }
        }
        "create" => {
            m.insert("file_text".into(), json!(text));
        }
        "str_replace" => {
            m.insert("old_str".into(), json!(old_str));
            m.insert("new_str".into(), json!(raw.new_str.as_ref().map(|t| &t.0)));
        }
        "insert" => {
            m.insert("insert_line".into(), json!(raw.line));
            m.insert("insert_text".into(), json!(text));
        }
        "rename" => {
            m.remove("path");
            m.insert("old_path".into(), json!(path));
            m.insert("new_path".into(), json!(raw.new_path.0));
        }
        _ => {}
    }
    match raw.odd {
        Some(0) => {
            m.insert("path".into(), json!(7));
        }
        Some(1) => {
            m.insert("insert_line".into(), json!(1.5));
        }
        Some(2) => {
            m.insert("view_range".into(), json!(["a", 2]));
        }
        Some(3) => {
            m.insert("insert_line".into(), json!(u64::MAX));
        }
        _ => {}
    }
    c
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        let (Some(command), Some(snapshot), Some(limits)) = (
            arg::<Value>(&args, 0),
            arg::<Snapshot>(&args, 1),
            limits_arg(&args, 2),
        ) else {
            return;
        };
        check(&command, &snapshot, &limits);
        return;
    }
    let Ok(raw) = Raw::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    check(&command(&raw), &raw.snapshot.0, &raw.limits.0);
});
