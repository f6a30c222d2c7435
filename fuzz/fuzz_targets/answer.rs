//! `answer::parse_selection`: whatever the model says, the selection is a duplicate-free list of
//! safe candidate paths, at most `maxSelected`, none already surfaced; a failure selects nothing.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::side_query::answer::parse_selection;
use memdir::Limits;
use memdir_fuzz::{
    arg, assert_safe_relative, json_args, limits_arg, FuzzLimits, FuzzPath, FuzzText,
};

fn check(answer: &str, candidates: &[String], surfaced: &[String], limits: &Limits) {
    memdir_fuzz::debug(&(answer, candidates, surfaced, limits));
    let selection = parse_selection(answer, candidates, surfaced, limits);
    let s = &selection.selected;
    assert!(
        s.len() <= limits.max_selected as usize,
        "over maxSelected: {s:?}"
    );
    if selection.failure.is_some() {
        assert!(s.is_empty(), "a failure selects nothing");
    }
    for (i, path) in s.iter().enumerate() {
        assert!(candidates.contains(path), "{path:?} is not a candidate");
        assert!(!surfaced.contains(path), "{path:?} was already surfaced");
        assert!(!s[..i].contains(path), "{path:?} selected twice");
        assert_safe_relative(path, "parse_selection");
    }
}

#[derive(Debug, Arbitrary)]
struct Raw {
    answer: FuzzText,
    /// paths listed in the answer, as a JSON list (the usual shape)
    listed: Vec<FuzzPath>,
    candidates: Vec<FuzzPath>,
    surfaced: Vec<FuzzPath>,
    limits: FuzzLimits,
    wrap: u8,
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        let (Some(answer), Some(candidates), Some(limits)) = (
            arg::<String>(&args, 0),
            arg::<Vec<String>>(&args, 1),
            limits_arg(&args, 3),
        ) else {
            return;
        };
        let surfaced = arg::<Option<Vec<String>>>(&args, 2)
            .flatten()
            .unwrap_or_default();
        check(&answer, &candidates, &surfaced, &limits);
        return;
    }
    let Ok(raw) = Raw::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    let strings = |v: &[FuzzPath]| v.iter().map(|p| p.0.clone()).collect::<Vec<_>>();
    let (candidates, surfaced) = (strings(&raw.candidates), strings(&raw.surfaced));
    let listed = serde_json::json!({ "selected_memories": strings(&raw.listed) }).to_string();
    let answer = match raw.wrap % 4 {
        0 => listed,
        1 => format!("```json\n{listed}\n```"),
        2 => format!("{}{listed}{}", raw.answer.0, raw.answer.0),
        _ => raw.answer.0,
    };
    check(&answer, &candidates, &surfaced, &raw.limits.0);
});
