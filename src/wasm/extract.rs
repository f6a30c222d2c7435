//! Extraction's exports (see `crate::keep::extract`): each decodes, calls the core, encodes.

use wasm_bindgen::prelude::*;

use super::convert::{from_js, from_js_opt, string_arg, to_js};
use super::limits_arg;
use crate::keep::extract::{self, ExtractionInput, Proposal};
use crate::write::Snapshot;

type JsResult = Result<JsValue, JsValue>;

/// The extraction's side query over the messages and the saved memories, or why none is sent.
#[wasm_bindgen(js_name = buildExtractionRequest, unchecked_return_type = "ExtractionRequest")]
pub fn build_extraction_request(
    #[wasm_bindgen(unchecked_param_type = "ExtractionInput")] input: JsValue,
) -> JsResult {
    let input: ExtractionInput = from_js(input, "input")?;
    to_js(&extract::build_extraction_request(&input))
}

/// The model's answer checked for shape: proposals, and what was refused (never throws).
#[wasm_bindgen(js_name = parseExtraction, unchecked_return_type = "Extraction")]
pub fn parse_extraction(
    #[wasm_bindgen(unchecked_param_type = "string")] answer: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[]")] files: JsValue,
) -> JsResult {
    let files: Vec<String> = from_js(files, "files")?;
    to_js(&extract::parse_extraction(
        &string_arg(&answer, "answer")?,
        &files,
    ))
}

/// What to read before `planExtraction`.
#[wasm_bindgen(js_name = extractionReadPlan, unchecked_return_type = "ReadPlan")]
pub fn extraction_read_plan(
    #[wasm_bindgen(unchecked_param_type = "Proposal[]")] proposals: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let proposals: Vec<Proposal> = from_js(proposals, "proposals")?;
    to_js(&extract::extraction_read_plan(
        &proposals,
        &limits_arg(limits)?,
    ))
}

/// Each proposal checked as `remember` checks a write, and the writes of all that pass.
#[wasm_bindgen(js_name = planExtraction, unchecked_return_type = "ExtractionPlan")]
pub fn plan_extraction(
    #[wasm_bindgen(unchecked_param_type = "Proposal[]")] proposals: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Snapshot")] snapshot: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number | null")] now_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | null")] session_id: JsValue,
) -> JsResult {
    let proposals: Vec<Proposal> = from_js(proposals, "proposals")?;
    let snapshot: Snapshot = from_js(snapshot, "snapshot")?;
    let now_ms: Option<f64> = from_js_opt(now_ms, "nowMs")?;
    let session_id: Option<String> = from_js_opt(session_id, "sessionId")?;
    to_js(&extract::plan_extraction(
        &proposals,
        &snapshot,
        &limits_arg(limits)?,
        now_ms,
        session_id.as_deref(),
    ))
}
