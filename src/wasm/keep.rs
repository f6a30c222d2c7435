//! The exports of the writers that record facts about a memory (see `crate::write::touch`):
//! each decodes, calls the core, encodes.

use wasm_bindgen::prelude::*;

use super::convert::{from_js, number_arg, string_arg, to_js, to_js_error};
use super::limits_arg;
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
