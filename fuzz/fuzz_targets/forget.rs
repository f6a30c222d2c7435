//! `write::forget::plan_forget`: a planned forget removes only its topic file and rewrites only
//! `MEMORY.md`, at safe paths, and removes only lines that link to the file.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::scan::INDEX_FILE_NAME;
use memdir::write::entry::links_to;
use memdir::write::forget::plan_forget;
use memdir::write::{Effect, Snapshot};
use memdir_fuzz::{arg, assert_effects_safe, json_args, FuzzPath, FuzzSnapshot};

fn check(file: &str, snapshot: &Snapshot) {
    memdir_fuzz::debug(&(file, snapshot));
    let Ok(plan) = plan_forget(file, snapshot, &memdir::Limits::default()) else {
        return;
    };
    assert_effects_safe(&plan.effects, "plan_forget");
    let old = snapshot.index_text();
    for effect in &plan.effects {
        match effect {
            Effect::Remove { path } if path == file => {}
            Effect::Write { path, text, .. } if path == INDEX_FILE_NAME => {
                let kept: Vec<&str> = old.split('\n').filter(|l| !links_to(l, file)).collect();
                assert_eq!(
                    *text,
                    kept.join("\n"),
                    "forget changed lines that do not link to {file}"
                );
            }
            other => panic!("forget planned {other:?}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        if let (Some(file), Some(snapshot)) = (arg::<String>(&args, 0), arg::<Snapshot>(&args, 1)) {
            check(&file, &snapshot);
        }
        return;
    }
    let Ok((file, snapshot)) = <(FuzzPath, FuzzSnapshot)>::arbitrary(&mut Unstructured::new(data))
    else {
        return;
    };
    check(&file.0, &snapshot.0);
});
