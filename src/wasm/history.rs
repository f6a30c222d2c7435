//! The history's exports (see `crate::history`): each decodes, calls the core, encodes.

use std::collections::BTreeMap;

use wasm_bindgen::prelude::*;

use super::convert::{from_js, from_js_opt, number_arg, string_arg, to_js, to_js_error};
use super::limits_arg;
use crate::history::{self, hash, journal::Journal, policy, record, reverse};
use crate::scan::Head;
use crate::write::snapshot::Entry;
use crate::write::Effect;

type JsResult = Result<JsValue, JsValue>;

fn segments_arg(value: JsValue) -> Result<Vec<String>, JsValue> {
    from_js(value, "segments")
}

/// The journal's segments in a listing, oldest first (the live one last).
#[wasm_bindgen(js_name = historySegments, unchecked_return_type = "string[]")]
pub fn history_segments(
    #[wasm_bindgen(unchecked_param_type = "SnapshotEntry[]")] entries: JsValue,
) -> JsResult {
    let entries: Vec<Entry> = from_js(entries, "entries")?;
    to_js(&history::segments(&entries))
}

/// What to read before journaling `effects` (given the listing when a first plan asked for it).
#[wasm_bindgen(js_name = historyReadPlan, unchecked_return_type = "HistoryReadPlan")]
pub fn history_read_plan(
    #[wasm_bindgen(unchecked_param_type = "Effect[]")] effects: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SnapshotEntry[] | null")] entries: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | null")] if_match_path: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let effects: Vec<Effect> = from_js(effects, "effects")?;
    let entries: Option<Vec<Entry>> = from_js_opt(entries, "entries")?;
    let if_match: Option<String> = from_js_opt(if_match_path, "ifMatchPath")?;
    to_js(&record::read_plan(
        &effects,
        entries.as_deref(),
        if_match.as_deref(),
        limits_arg(limits)?.max_file_bytes,
    ))
}

/// The record of a change and the writes that journal it.
#[wasm_bindgen(js_name = planHistoryRecord, unchecked_return_type = "HistoryRecordPlan")]
pub fn plan_history_record(
    #[wasm_bindgen(unchecked_param_type = "HistoryRecordInput")] input: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let input: record::RecordInput = from_js(input, "input")?;
    to_js(
        &record::plan_record(&input, limits_arg(limits)?.max_file_bytes)
            .map_err(|e| to_js_error(&e))?,
    )
}

/// The history files to remove to keep within the policy (after a segment was closed).
#[wasm_bindgen(js_name = planHistoryPrune, unchecked_return_type = "string[]")]
pub fn plan_history_prune(
    #[wasm_bindgen(unchecked_param_type = "SnapshotEntry[]")] entries: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] segment: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] now_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "HistoryPolicy | null")] policy: JsValue,
) -> JsResult {
    let entries: Vec<Entry> = from_js(entries, "entries")?;
    let segment = string_arg(&segment, "segment")?;
    let policy: Option<policy::HistoryPolicy> = from_js_opt(policy, "policy")?;
    let first = Journal::read([segment.as_str()])
        .entries
        .first()
        .map(|e| e.record.id.clone());
    to_js(&policy::plan_prune(
        &entries,
        first.as_deref(),
        number_arg(&now_ms, "nowMs")?,
        &policy.unwrap_or_default(),
    ))
}

/// What to read before rolling back the live segment's interrupted writes (none: nothing to do).
#[wasm_bindgen(js_name = historyRecoveryReadPlan, unchecked_return_type = "string[]")]
pub fn history_recovery_read_plan(
    #[wasm_bindgen(unchecked_param_type = "string")] segment: JsValue,
) -> JsResult {
    to_js(&reverse::recovery_read_plan(&string_arg(
        &segment, "segment",
    )?))
}

/// The rollback of interrupted writes, and the live segment with each marked `aborted`.
#[wasm_bindgen(js_name = planHistoryRecovery, unchecked_return_type = "HistoryRecoveryPlan")]
pub fn plan_history_recovery(
    #[wasm_bindgen(unchecked_param_type = "string")] segment: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, string | Uint8Array>")] contents: JsValue,
) -> JsResult {
    let contents: BTreeMap<String, Head> = from_js(contents, "contents")?;
    to_js(&reverse::plan_recovery(
        &string_arg(&segment, "segment")?,
        &contents,
    ))
}

/// What to read before `undo` of `id`, or `restore` to `atMs` (give one).
#[wasm_bindgen(js_name = historyReverseReadPlan, unchecked_return_type = "string[]")]
pub fn history_reverse_read_plan(
    #[wasm_bindgen(unchecked_param_type = "string[]")] segments: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | null")] id: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number | null")] at_ms: JsValue,
) -> JsResult {
    let segments = segments_arg(segments)?;
    if id.is_null() || id.is_undefined() {
        to_js(&reverse::restore_read_plan(
            &segments,
            number_arg(&at_ms, "atMs")?,
        ))
    } else {
        to_js(
            &reverse::undo_read_plan(&segments, &string_arg(&id, "id")?)
                .map_err(|e| to_js_error(&e))?,
        )
    }
}

/// `undo` (with `id`) or `restore` (with `atMs`): the effects and their diff.
#[wasm_bindgen(js_name = planHistoryReverse, unchecked_return_type = "HistoryReversePlan")]
pub fn plan_history_reverse(
    #[wasm_bindgen(unchecked_param_type = "HistoryReverseInput")] input: JsValue,
) -> JsResult {
    let input: reverse::ReverseInput = from_js(input, "input")?;
    let plan = if input.id.is_some() {
        reverse::plan_undo(&input)
    } else {
        reverse::plan_restore(&input)
    };
    to_js(&plan.map_err(|e| to_js_error(&e))?)
}

/// The history, newest first: all of it, or one file's, at or after a time.
#[wasm_bindgen(js_name = historyItems, unchecked_return_type = "HistoryItem[]")]
pub fn history_items(
    #[wasm_bindgen(unchecked_param_type = "string[]")] segments: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | null")] file: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number | null")] since_ms: JsValue,
) -> JsResult {
    let file = if file.is_null() || file.is_undefined() {
        None
    } else {
        Some(string_arg(&file, "file")?)
    };
    let since = if since_ms.is_null() || since_ms.is_undefined() {
        None
    } else {
        Some(number_arg(&since_ms, "sinceMs")?)
    };
    to_js(&reverse::history_items(
        &segments_arg(segments)?,
        file.as_deref(),
        since,
    ))
}

/// The SHA-256 of a file's content (text as UTF-8), in hex: what `ifMatch` compares.
#[wasm_bindgen(js_name = contentHash, unchecked_return_type = "string")]
pub fn content_hash(
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] content: JsValue,
) -> JsResult {
    let content: Head = from_js(content, "content")?;
    to_js(&hash::sha256_hex(match &content {
        Head::Text(t) => t.as_bytes(),
        Head::Bytes(b) => b,
    }))
}
