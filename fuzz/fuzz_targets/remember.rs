//! `write::remember::plan_remember`: a planned write touches only its topic file and
//! `MEMORY.md`, at safe paths; the topic file is a topic file (never an index); the new index
//! breaks no limit it did not already break.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::scan::{is_topic_path, INDEX_FILE_NAME};
use memdir::write::guard::index_size;
use memdir::write::remember::{plan_remember, RememberInput};
use memdir::write::{Effect, Snapshot};
use memdir::Limits;
use memdir_fuzz::{
    arg, assert_effects_safe, json_args, limits_arg, FuzzLimits, FuzzPath, FuzzSnapshot, FuzzText,
};

fn check(input: &RememberInput, snapshot: &Snapshot, limits: &Limits) {
    memdir_fuzz::debug(&(input, snapshot, limits));
    let Ok(plan) = plan_remember(input, snapshot, limits) else {
        return;
    };
    assert_effects_safe(&plan.effects, "plan_remember");
    assert!(
        is_topic_path(&plan.file),
        "{:?} is not a topic file",
        plan.file
    );
    let (old_lines, old_units) = index_size(&snapshot.index_text());
    for effect in &plan.effects {
        match effect {
            Effect::Write { path, .. } if *path == plan.file => {}
            Effect::Write { path, text, .. } if path == INDEX_FILE_NAME => {
                let (lines, units) = index_size(text);
                assert!(
                    lines <= (limits.max_index_lines as usize).max(old_lines),
                    "index lines"
                );
                assert!(
                    units <= (limits.max_index_utf16 as usize).max(old_units),
                    "index size"
                );
            }
            other => panic!("remember planned {other:?}"),
        }
    }
}

#[derive(Debug, Arbitrary)]
struct Raw {
    snapshot: FuzzSnapshot,
    limits: FuzzLimits,
    memory_type: u8,
    name: FuzzText,
    description: FuzzText,
    body: FuzzText,
    file: Option<FuzzPath>,
}

const TYPES: &[&str] = &[
    "user",
    "feedback",
    "project",
    "reference",
    " user ",
    "other",
    "",
];

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        let (Some(input), Some(snapshot), Some(limits)) = (
            arg::<RememberInput>(&args, 0),
            arg::<Snapshot>(&args, 1),
            limits_arg(&args, 2),
        ) else {
            return;
        };
        check(&input, &snapshot, &limits);
        return;
    }
    let Ok(raw) = Raw::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    let input = RememberInput {
        memory_type: TYPES[usize::from(raw.memory_type) % TYPES.len()].to_owned(),
        name: raw.name.0,
        description: raw.description.0,
        body: raw.body.0,
        file: raw.file.map(|f| f.0),
        session_id: None,
        now_ms: None,
    };
    check(&input, &raw.snapshot.0, &raw.limits.0);
});
