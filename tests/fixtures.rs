//! Runs every case of `tests/fixtures/*.json` against the native core. The JS runners (Node,
//! `tests/js/fixtures.test.mjs`, and Chromium, `tests/browser/core.test.mjs`) run the same files
//! against the built package through one checker, `tests/fixtures/check.mjs`, whose rules this
//! file mirrors; `tests/fixtures/README.md` is the case format.

// A test may panic on a malformed fixture: that is a failing test, not a runtime fault.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
use std::fs;
use std::path::Path;

use memdir::side_query::{answer, request as selection};
use memdir::{
    cost, diff, doctor, freshness, index, instructions, manifest, paths, provider, render, scan,
    secrets, tool, write, Error, Limits,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

/// Expands the generator objects described in `tests/fixtures/gen/common.py`.
fn expand(v: &Value) -> Value {
    match v {
        Value::Object(map) if map.contains_key("$repeat") => {
            let args = map["$repeat"].as_array().expect("$repeat takes [s, n]");
            let s = text(&expand(&args[0]));
            Value::String(s.repeat(args[1].as_u64().expect("count") as usize))
        }
        Value::Object(map) if map.contains_key("$concat") => {
            let parts = map["$concat"].as_array().expect("$concat takes a list");
            Value::String(parts.iter().map(|p| text(&expand(p))).collect())
        }
        Value::Object(map) if map.contains_key("$lines") => {
            let args = map["$lines"].as_array().expect("$lines takes [t, n]");
            let t = text(&expand(&args[0]));
            let n = args[1].as_u64().expect("count");
            Value::String(
                (1..=n)
                    .map(|i| t.replace("{i}", &i.to_string()))
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        }
        // bytes reach the core as a sequence of numbers, as serde-wasm-bindgen hands over a Uint8Array
        Value::Object(map) if map.contains_key("$bytes") => map["$bytes"].clone(),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, x)| (k.clone(), expand(x))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(expand).collect()),
        other => other.clone(),
    }
}

fn text(v: &Value) -> String {
    v.as_str().expect("a string").to_owned()
}

fn arg<T: DeserializeOwned>(args: &[Value], i: usize, name: &str) -> Result<T, Error> {
    let v = args.get(i).cloned().unwrap_or(Value::Null);
    serde_json::from_value(v).map_err(|e| Error::InvalidArgument(format!("{name}: {e}")))
}

fn opt<T: DeserializeOwned>(args: &[Value], i: usize, name: &str) -> Result<Option<T>, Error> {
    match args.get(i) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => arg(args, i, name).map(Some),
    }
}

fn limits(args: &[Value], i: usize) -> Result<Limits, Error> {
    Ok(opt(args, i, "limits")?.unwrap_or_default())
}

fn num(args: &[Value], i: usize, name: &str) -> Result<f64, Error> {
    args.get(i)
        .and_then(Value::as_f64)
        .ok_or_else(|| Error::InvalidArgument(format!("{name} must be a number")))
}

fn out<T: Serialize>(v: T) -> Result<Value, Error> {
    Ok(serde_json::to_value(v).expect("serialisable"))
}

/// The same names and argument orders as the JS exports.
fn call(name: &str, a: &[Value]) -> Result<Value, Error> {
    match name {
        "truncateIndex" => out(index::truncate_index(
            &arg::<String>(a, 0, "text")?,
            &limits(a, 1)?,
        )),
        "indexReadPlan" => out(index::index_read_plan(&limits(a, 0)?)),
        "rememberReadPlan" => out(write::read_plan::remember_read_plan(
            opt::<String>(a, 0, "file")?.as_deref(),
            opt::<String>(a, 2, "supersedes")?.as_deref(),
            &limits(a, 1)?,
        )),
        "forgetReadPlan" => out(write::read_plan::forget_read_plan(
            &arg::<String>(a, 0, "file")?,
            &limits(a, 1)?,
        )),
        "doctorReadPlan" => out(write::read_plan::doctor_read_plan(&limits(a, 0)?)),
        "fileReadBytes" => out(write::read_plan::file_read_bytes(&limits(a, 0)?)),
        "injectReadBytes" => out(render::inject_read_bytes(&limits(a, 0)?)),
        "tempFileName" => out(memdir::temp::temp_file_name(
            &arg::<String>(a, 0, "name")?,
            &arg::<String>(a, 1, "token")?,
        )),
        "parseTempFile" => out(memdir::temp::parse_temp_file(&arg::<String>(a, 0, "path")?)),
        "selectorDefaults" => out(provider::SELECTOR_DEFAULTS),
        "defaultSelector" => out(provider::default_selector(&arg(a, 0, "env")?)),
        "indexPrompt" => out(index::index_prompt(&arg(a, 0, "input")?)),
        "mergeScoped" => out(memdir::scopes::merge_scoped(arg(a, 0, "scans")?)?),
        "splitScoped" => out(memdir::scopes::split_scoped(
            &arg::<String>(a, 0, "path")?,
            &arg::<Vec<String>>(a, 1, "scopes")?,
        )),
        "writeScope" => out(memdir::scopes::write_scope(
            &arg::<Vec<memdir::scopes::ScopeRule>>(a, 0, "scopes")?,
            opt::<String>(a, 1, "requested")?.as_deref(),
            opt::<String>(a, 2, "memoryType")?.as_deref(),
        )?),
        "scopesPrompt" => out(memdir::scopes::scopes_prompt(&arg::<
            Vec<memdir::scopes::ScopeRoot>,
        >(a, 0, "scopes")?)?),
        "planScan" => out(scan::plan_scan(
            &arg::<Vec<scan::FileHead>>(a, 0, "files")?,
            &limits(a, 1)?,
        )),
        "scanMemories" => out(scan::scan_memories(
            &arg::<Vec<scan::FileHead>>(a, 0, "files")?,
            &limits(a, 1)?,
        )),
        "formatManifest" => out(manifest::format_manifest(&arg::<Vec<scan::Memory>>(
            a, 0, "memories",
        )?)),
        "buildSelectionRequest" => out(selection::build_selection_request(&arg(a, 0, "input")?)),
        "parseSelection" => out(answer::parse_selection(
            &arg::<String>(a, 0, "answerText")?,
            &arg::<Vec<String>>(a, 1, "candidates")?,
            &opt::<Vec<String>>(a, 2, "alreadySurfaced")?.unwrap_or_default(),
            &limits(a, 3)?,
        )),
        "memoryAgeDays" => out(freshness::age_days(
            num(a, 0, "mtimeMs")?,
            num(a, 1, "nowMs")?,
        )),
        "memoryAge" => out(freshness::age_label(freshness::age_days(
            num(a, 0, "mtimeMs")?,
            num(a, 1, "nowMs")?,
        ))),
        "memoryFreshnessText" => out(freshness::freshness_text(freshness::age_days(
            num(a, 0, "mtimeMs")?,
            num(a, 1, "nowMs")?,
        ))),
        "memoryFreshnessNote" => out(freshness::freshness_note(freshness::age_days(
            num(a, 0, "mtimeMs")?,
            num(a, 1, "nowMs")?,
        ))),
        "renderMemory" => out(render::render_memory(&arg(a, 0, "input")?)),
        "sanitizePath" => out(paths::sanitize_path(&arg::<String>(a, 0, "name")?)),
        "agentMemoryDir" => out(paths::agent_memory_dir(&arg(a, 0, "input")?)?),
        "projectMemoryDir" => out(paths::project_memory_dir(&arg(a, 0, "input")?)?),
        "checkRelativePath" => {
            paths::check_relative_path(&arg::<String>(a, 0, "path")?).map(|()| Value::Null)
        }
        "planToolCommand" => out(tool::plan_tool_command(&arg::<Value>(a, 0, "command")?)),
        "runToolCommand" => out(tool::run_tool_command(
            &arg::<Value>(a, 0, "command")?,
            &arg::<write::Snapshot>(a, 1, "snapshot")?,
            &limits(a, 2)?,
        )),
        "memoryToolInputSchema" => out(serde_json::from_str::<Value>(&tool::input_schema(
            opt(a, 0, "options")?.unwrap_or_default(),
        ))
        .expect("the schema is JSON")),
        "planRemember" => out(write::remember::plan_remember(
            &arg(a, 0, "input")?,
            &arg(a, 1, "snapshot")?,
            &limits(a, 2)?,
        )?),
        "buildExtractionRequest" => out(memdir::keep::extract::build_extraction_request(&arg(
            a, 0, "input",
        )?)),
        "parseExtraction" => out(memdir::keep::extract::parse_extraction(
            &arg::<String>(a, 0, "answer")?,
            &arg::<Vec<String>>(a, 1, "files")?,
        )),
        "extractionReadPlan" => out(memdir::keep::extract::extraction_read_plan(
            &arg::<Vec<memdir::keep::extract::Proposal>>(a, 0, "proposals")?,
            &limits(a, 1)?,
        )),
        "planExtraction" => {
            let session: Option<String> = opt(a, 4, "sessionId")?;
            out(memdir::keep::extract::plan_extraction(
                &arg::<Vec<memdir::keep::extract::Proposal>>(a, 0, "proposals")?,
                &arg(a, 1, "snapshot")?,
                &limits(a, 2)?,
                opt(a, 3, "nowMs")?,
                session.as_deref(),
            ))
        }
        "touchReadPlan" => out(write::touch::touch_read_plan(
            &arg::<String>(a, 0, "file")?,
            &limits(a, 1)?,
        )),
        "planTouch" => out(write::touch::plan_touch(
            &arg::<String>(a, 0, "file")?,
            &arg(a, 1, "snapshot")?,
            arg(a, 2, "nowMs")?,
            &limits(a, 3)?,
        )?),
        "buildConsolidationRequest" => out(memdir::keep::consolidate::build_consolidation_request(
            &arg(a, 0, "snapshot")?,
            &limits(a, 1)?,
            opt::<bool>(a, 2, "force")?.unwrap_or(false),
        )),
        "planConsolidation" => out(memdir::keep::consolidate::plan_consolidation(
            &arg::<String>(a, 0, "answer")?,
            &arg(a, 1, "snapshot")?,
            &limits(a, 2)?,
            arg(a, 3, "nowMs")?,
            opt(a, 4, "maxFilesChanged")?,
        )),
        "consolidationDue" => {
            let schedule: Option<memdir::keep::schedule::ConsolidationSchedule> =
                opt(a, 2, "schedule")?;
            out(memdir::keep::schedule::consolidation_due(
                &arg(a, 0, "state")?,
                arg(a, 1, "nowMs")?,
                &schedule.unwrap_or_default(),
            ))
        }
        "contentHash" => out(memdir::history::hash::sha256_hex(&match arg::<scan::Head>(
            a, 0, "content",
        )? {
            scan::Head::Text(t) => t.into_bytes(),
            scan::Head::Bytes(b) => b,
        })),
        "historySegments" => out(memdir::history::segments(&arg::<
            Vec<write::snapshot::Entry>,
        >(a, 0, "entries")?)),
        "historyReadPlan" => {
            let effects: Vec<write::Effect> = arg(a, 0, "effects")?;
            let entries: Option<Vec<write::snapshot::Entry>> = opt(a, 1, "entries")?;
            let if_match: Option<String> = opt(a, 2, "ifMatchPath")?;
            out(memdir::history::record::read_plan(
                &effects,
                entries.as_deref(),
                if_match.as_deref(),
                limits(a, 3)?.max_file_bytes,
            ))
        }
        "planHistoryRecord" => out(memdir::history::record::plan_record(
            &arg(a, 0, "input")?,
            limits(a, 1)?.max_file_bytes,
        )?),
        "planHistoryPrune" => {
            let segment: String = arg(a, 1, "segment")?;
            let first = memdir::history::journal::Journal::read([segment.as_str()])
                .entries
                .first()
                .map(|e| e.record.id.clone());
            let policy: Option<memdir::history::policy::HistoryPolicy> = opt(a, 3, "policy")?;
            out(memdir::history::policy::plan_prune(
                &arg::<Vec<write::snapshot::Entry>>(a, 0, "entries")?,
                first.as_deref(),
                num(a, 2, "nowMs")?,
                &policy.unwrap_or_default(),
            ))
        }
        "historyRecoveryReadPlan" => {
            out(memdir::history::reverse::recovery_read_plan(
                &arg::<String>(a, 0, "segment")?,
            ))
        }
        "planHistoryRecovery" => out(memdir::history::reverse::plan_recovery(
            &arg::<String>(a, 0, "segment")?,
            &arg(a, 1, "contents")?,
        )),
        "historyReverseReadPlan" => {
            let segments: Vec<String> = arg(a, 0, "segments")?;
            match opt::<String>(a, 1, "id")? {
                Some(id) => out(memdir::history::reverse::undo_read_plan(&segments, &id)?),
                None => out(memdir::history::reverse::restore_read_plan(
                    &segments,
                    num(a, 2, "atMs")?,
                )),
            }
        }
        "planHistoryReverse" => {
            let input: memdir::history::reverse::ReverseInput = arg(a, 0, "input")?;
            out(if input.id.is_some() {
                memdir::history::reverse::plan_undo(&input)?
            } else {
                memdir::history::reverse::plan_restore(&input)?
            })
        }
        "historyItems" => {
            let file: Option<String> = opt(a, 1, "file")?;
            let since = match a.get(2) {
                None | Some(Value::Null) => None,
                Some(_) => Some(num(a, 2, "sinceMs")?),
            };
            out(memdir::history::reverse::history_items(
                &arg::<Vec<String>>(a, 0, "segments")?,
                file.as_deref(),
                since,
            ))
        }
        "planForget" => out(write::forget::plan_forget(
            &arg::<String>(a, 0, "file")?,
            &arg(a, 1, "snapshot")?,
            &limits(a, 2)?,
        )?),
        "runDoctor" => out(doctor::doctor(&arg(a, 0, "input")?)),
        "lexicalSelect" => out(memdir::lexical::lexical_select(&arg(a, 0, "input")?)),
        "outsideLinks" => out(doctor::outside_links(&arg::<String>(a, 0, "indexText")?)),
        "planDoctorFixes" => out(doctor::fix::plan_doctor_fixes(&arg(a, 0, "input")?)),
        "findSecrets" => out(secrets::find_secrets(&arg::<String>(a, 0, "text")?)),
        "mergeIndex" => out(memdir::merge_index::merge_index(
            &arg::<String>(a, 0, "base")?,
            &arg::<String>(a, 1, "ours")?,
            &arg::<String>(a, 2, "theirs")?,
        )),
        "unifiedDiff" => out(diff::unified_diff(
            &arg::<String>(a, 0, "path")?,
            &arg::<String>(a, 1, "old")?,
            &arg::<String>(a, 2, "new")?,
        )),
        "estimateCost" => out(cost::estimate_cost(&arg(a, 0, "input")?)),
        "defaultLimits" => out(Limits::default()),
        "buildProviderRequest" => out(provider::build_provider_request(&arg(a, 0, "input")?)),
        "decodeProviderResponse" => out(provider::decode_provider_response(&arg(a, 0, "input")?)),
        "retryDecision" => out(provider::retry_decision(&arg(a, 0, "input")?)),
        "memoryInstructions" => out(instructions::memory_instructions(
            &arg::<String>(a, 0, "dir")?,
            opt::<String>(a, 1, "via")?.map_or(Ok(instructions::WriteVia::Files), |v| {
                instructions::WriteVia::parse(&v)
            })?,
            opt::<String>(a, 2, "extract")?
                .map(|m| memdir::keep::KeepMode::parse_arg(&m, "extract"))
                .transpose()?,
        )),
        other => panic!("fixture calls unknown function {other}"),
    }
}

/// Deep equality where numbers compare by value (`200` equals `200.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 600 {
        format!(
            "{}… ({} chars)",
            &s[..s.char_indices().nth(600).map_or(s.len(), |(i, _)| i)],
            s.len()
        )
    } else {
        s
    }
}

/// `[code, file, line]` of every finding of a doctor report, sorted.
fn finding_codes(report: &Value) -> Vec<Value> {
    let mut codes: Vec<Value> = report["findings"]
        .as_array()
        .map(|fs| {
            fs.iter()
                .map(|f| json!([f["code"], f["file"], f["line"]]))
                .collect()
        })
        .unwrap_or_default();
    codes.sort_by_key(|v| v.to_string());
    codes
}

/// The keys a case may have (as `CASE_KEYS` in `tests/fixtures/check.mjs`).
const CASE_KEYS: [&str; 11] = [
    "name",
    "call",
    "args",
    "expect",
    "expectFields",
    "expectError",
    "expectCodes",
    "expectAfterCodes",
    "expectContains",
    "expectJsonFields",
    "expectNotContains",
];

fn check_case(file: &str, case: &Value) -> Result<(), String> {
    let name = case["name"].as_str().unwrap_or("?");
    let fail = |msg: String| Err(format!("{file} › {name}: {msg}"));
    let keys = case.as_object().expect("a case is an object");
    let unknown: Vec<&str> = keys
        .keys()
        .map(String::as_str)
        .filter(|k| !CASE_KEYS.contains(k))
        .collect();
    if !unknown.is_empty() {
        return fail(format!("unknown case keys {}", unknown.join(", ")));
    }
    if !CASE_KEYS[3..].iter().any(|k| keys.contains_key(*k)) {
        return fail("the case expects nothing".to_owned());
    }
    let func = case["call"].as_str().expect("call");
    let args: Vec<Value> = case["args"]
        .as_array()
        .map(|a| a.iter().map(expand).collect())
        .unwrap_or_default();
    let result = call(func, &args);
    if let Some(code) = case.get("expectError").and_then(Value::as_str) {
        return match result {
            Err(e) if e.code().as_str() == code => Ok(()),
            Err(e) => fail(format!(
                "expected error {code}, got {} ({e})",
                e.code().as_str()
            )),
            Ok(v) => fail(format!("expected error {code}, got {}", short(&v))),
        };
    }
    let got = match result {
        Ok(v) => v,
        Err(e) => return fail(format!("unexpected error {} ({e})", e.code().as_str())),
    };
    if let Some(expect) = case.get("expect") {
        let expect = expand(expect);
        if !same(&got, &expect) {
            return fail(format!(
                "\n  expected {}\n  got      {}",
                short(&expect),
                short(&got)
            ));
        }
    }
    for (key, report) in [
        ("expectCodes", Some(&got)),
        ("expectAfterCodes", got.get("after")),
    ] {
        if let Some(want) = case.get(key) {
            let have = finding_codes(report.unwrap_or(&Value::Null));
            let mut want: Vec<Value> = want.as_array().cloned().unwrap_or_default();
            want.sort_by_key(|v| v.to_string());
            if have != want {
                return fail(format!(
                    "{key}:\n  expected {}\n  got      {}",
                    Value::Array(want),
                    Value::Array(have)
                ));
            }
        }
    }
    if let Some(fields) = case.get("expectFields").and_then(Value::as_object) {
        for (key, want) in fields {
            let want = expand(want);
            let have = got.get(key).cloned().unwrap_or(Value::Null);
            if !same(&have, &want) {
                return fail(format!(
                    "field {key}:\n  expected {}\n  got      {}",
                    short(&want),
                    short(&have)
                ));
            }
        }
    }
    if let Some(fields) = case.get("expectJsonFields").and_then(Value::as_object) {
        for (key, want) in fields {
            let want = expand(want);
            let text = got.get(key).and_then(Value::as_str).unwrap_or("");
            let Ok(have) = serde_json::from_str::<Value>(text) else {
                return fail(format!(
                    "field {key} is not JSON text: {}",
                    short(&got[key])
                ));
            };
            if !same(&have, &want) {
                return fail(format!(
                    "field {key} as JSON:\n  expected {}\n  got      {}",
                    short(&want),
                    short(&have)
                ));
            }
        }
    }
    if let Some(parts) = case.get("expectContains") {
        let Some(text) = got.as_str() else {
            return fail(format!(
                "expectContains needs a string result, got {}",
                short(&got)
            ));
        };
        for part in parts.as_array().expect("expectContains takes a list") {
            let part = expand(part);
            if !text.contains(part.as_str().expect("a string")) {
                return fail(format!("the result does not contain {}", short(&part)));
            }
        }
    }
    if let Some(parts) = case.get("expectNotContains") {
        let Some(text) = got.as_str() else {
            return fail(format!(
                "expectNotContains needs a string result, got {}",
                short(&got)
            ));
        };
        for part in parts.as_array().expect("expectNotContains takes a list") {
            let part = expand(part);
            if text.contains(part.as_str().expect("a string")) {
                return fail(format!("the result contains {}", short(&part)));
            }
        }
    }
    Ok(())
}

#[test]
fn every_fixture_case_holds_natively() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("fixtures dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut count = 0;
    for path in &files {
        let doc: Value =
            serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("fixture JSON");
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        for case in doc["cases"].as_array().expect("cases") {
            count += 1;
            if let Err(msg) = check_case(&file, case) {
                failures.push(msg);
            }
        }
    }
    assert!(count > 0, "no fixture cases found");
    assert!(
        failures.is_empty(),
        "{} of {count} fixture cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let _ = json!(null);
}
