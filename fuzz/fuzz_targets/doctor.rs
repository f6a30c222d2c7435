//! `doctor::doctor` and `doctor::fix::plan_doctor_fixes`: any directory; the counts add up,
//! the fixes only write (never remove), at safe paths that were read (or `MEMORY.md`), never
//! fix more than was found, the diff is empty exactly when nothing is written, and fixing the
//! fixed directory writes nothing more.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::codes::EntryKind;
use memdir::doctor::fix::plan_doctor_fixes;
use memdir::doctor::{doctor, DoctorInput};
use memdir::scan::Head;
use memdir::write::Effect;
use memdir_fuzz::{arg, assert_effects_safe, file_entry, json_args, FuzzLimits, FuzzSnapshot};

fn check(input: &DoctorInput) {
    memdir_fuzz::debug(&(input,));
    let report = doctor(input);
    assert_eq!(
        (report.errors + report.warnings + report.infos) as usize,
        report.findings.len()
    );
    let plan = plan_doctor_fixes(input);
    assert_effects_safe(&plan.effects, "plan_doctor_fixes");
    assert!(plan.fixed <= plan.before.fixable.max(plan.before.findings.len() as u32));
    for effect in &plan.effects {
        let Effect::Write { path, .. } = effect else {
            panic!("doctor --fix planned {effect:?}");
        };
        assert!(
            path == "MEMORY.md" || input.contents.contains_key(path),
            "doctor --fix writes {path:?}, which it did not read"
        );
    }
    assert_eq!(plan.diff.is_empty(), plan.effects.is_empty());
    // the fixes are complete: planning again on the fixed directory writes nothing more.
    // Only for a listing that agrees with what was read (as a real directory's does): when
    // MEMORY.md was read but not listed, doctor sees no index, yet the fixed one is listed.
    let listed = |p: &String| {
        input
            .entries
            .iter()
            .any(|e| &e.path == p && e.kind == EntryKind::File)
    };
    if !input.contents.keys().all(listed) {
        return;
    }
    // and a listing names each path once (a directory cannot list a name twice)
    let mut names = std::collections::HashSet::new();
    if !input.entries.iter().all(|e| names.insert(e.path.as_str())) {
        return;
    }
    let mut fixed = input.clone();
    for effect in &plan.effects {
        if let Effect::Write { path, text, .. } = effect {
            fixed
                .contents
                .insert(path.clone(), Head::Text(text.clone()));
            if !fixed.entries.iter().any(|e| &e.path == path) {
                fixed.entries.push(file_entry(path, text.len()));
            }
        }
    }
    let again = plan_doctor_fixes(&fixed);
    assert!(
        again.effects.is_empty(),
        "fixing twice writes again:\n{}",
        again.diff
    );
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        if let Some(input) = arg::<DoctorInput>(&args, 0) {
            check(&input);
        }
        return;
    }
    let mut u = Unstructured::new(data);
    let Ok((snapshot, limits, now, stale)) =
        <(FuzzSnapshot, FuzzLimits, u32, Option<u8>)>::arbitrary(&mut u)
    else {
        return;
    };
    let input = DoctorInput {
        entries: snapshot.0.entries,
        contents: snapshot.0.contents,
        now_ms: f64::from(now) * 1_000_000.0,
        limits: if u.ratio(1u8, 2u8).unwrap_or(false) {
            Some(limits.0)
        } else {
            None
        },
        stale_core_days: stale.map(u32::from),
        outside: Default::default(),
    };
    check(&input);
});
