//! The exports of the writers that keep the memory (see `crate::write::touch`,
//! `crate::keep::consolidate`, `crate::keep::schedule`): each decodes, calls the core, encodes.

use wasm_bindgen::prelude::*;

use super::convert::{from_js, from_js_opt, number_arg, string_arg, to_js, to_js_error};
use super::limits_arg;
use crate::keep::{consolidate, schedule};
use crate::write::{touch, Snapshot};

type JsResult = Result<JsValue, JsValue>;

/// What to read before `planTouch`: the file whole.
#[wasm_bindgen(js_name = touchReadPlan, unchecked_return_type = "ReadPlan")]
pub fn touch_read_plan(
    #[wasm_bindgen(unchecked_param_type = "string")] file: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    to_js(&touch::touch_read_plan(
        &string_arg(&file, "file")?,
        &limits_arg(limits)?,
    ))
}

/// Plans `touch`: `metadata.modified` set to `nowMs`, every other byte kept; or `NOT_FOUND`,
/// `INVALID_MEMORY` (no frontmatter), `UNSAFE_PATH`.
#[wasm_bindgen(js_name = planTouch, unchecked_return_type = "WritePlan")]
pub fn plan_touch(
    #[wasm_bindgen(unchecked_param_type = "string")] file: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Snapshot")] snapshot: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] now_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let snapshot: Snapshot = from_js(snapshot, "snapshot")?;
    let plan = touch::plan_touch(
        &string_arg(&file, "file")?,
        &snapshot,
        number_arg(&now_ms, "nowMs")?,
        &limits_arg(limits)?,
    );
    to_js(&plan.map_err(|e| to_js_error(&e))?)
}

/// The consolidation's side query over the folder (every topic file read whole, as doctor
/// reads it), or `skip` when no memories look alike (unless `force`).
#[wasm_bindgen(js_name = buildConsolidationRequest, unchecked_return_type = "ConsolidationRequest")]
pub fn build_consolidation_request(
    #[wasm_bindgen(unchecked_param_type = "Snapshot")] snapshot: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
    force: Option<bool>,
) -> JsResult {
    let snapshot: Snapshot = from_js(snapshot, "snapshot")?;
    to_js(&consolidate::build_consolidation_request(
        &snapshot,
        &limits_arg(limits)?,
        force.unwrap_or(false),
    ))
}

/// The model's answer checked against the folder: the changes that lose no word, the writes,
/// the diff, and what was refused (never throws for a bad answer).
#[wasm_bindgen(js_name = planConsolidation, unchecked_return_type = "ConsolidationPlan")]
pub fn plan_consolidation(
    #[wasm_bindgen(unchecked_param_type = "string")] answer: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Snapshot")] snapshot: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] now_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number | null")] max_files_changed: JsValue,
) -> JsResult {
    let snapshot: Snapshot = from_js(snapshot, "snapshot")?;
    let max: Option<u32> = from_js_opt(max_files_changed, "maxFilesChanged")?;
    to_js(&consolidate::plan_consolidation(
        &string_arg(&answer, "answer")?,
        &snapshot,
        &limits_arg(limits)?,
        number_arg(&now_ms, "nowMs")?,
        max,
    ))
}

/// Whether consolidation is due on its own: time and sessions since the last run.
#[wasm_bindgen(js_name = consolidationDue, unchecked_return_type = "ConsolidationDue")]
pub fn consolidation_due(
    #[wasm_bindgen(unchecked_param_type = "ConsolidationState")] state: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] now_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<ConsolidationSchedule> | null")]
    schedule: JsValue,
) -> JsResult {
    let state: schedule::ConsolidationState = from_js(state, "state")?;
    let plan: Option<schedule::ConsolidationSchedule> = from_js_opt(schedule, "schedule")?;
    to_js(&schedule::consolidation_due(
        &state,
        number_arg(&now_ms, "nowMs")?,
        &plan.unwrap_or_default(),
    ))
}
