//! `ScanSession`, owned by JavaScript: one opened memory's scans (see
//! `crate::scan_session`). Each method decodes its arguments, calls the session, and encodes.
//!
//! A session lives in the module's memory: after the module is restarted (a trap), a session
//! made before it is gone, and the JavaScript side makes a new one (`js/scan-session.ts`).

use js_sys::{Float64Array, Object, Reflect, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{from_js, from_js_opt, invalid, string_arg, to_js, to_js_error};
use crate::packed::{PackedHeads, PackedListing};
use crate::side_query::request::SelectionInput;

type JsResult = Result<JsValue, JsValue>;

/// One opened memory's scans, kept between turns: the listing, the heads, what was parsed.
#[wasm_bindgen]
pub struct ScanSession(crate::scan_session::ScanSession);

fn field(object: &JsValue, key: &str, what: &str) -> Result<JsValue, JsValue> {
    Reflect::get(object, &JsValue::from_str(key))
        .map_err(|_| invalid(&format!("{what} must be an object")))
}

/// A typed array field, copied in; anything else is `INVALID_ARGUMENT`.
fn typed<T: JsCast>(object: &JsValue, key: &str, what: &str, kind: &str) -> Result<T, JsValue> {
    field(object, key, what)?
        .dyn_into::<T>()
        .map_err(|_| invalid(&format!("{what}.{key} must be a {kind}")))
}

/// A string field, or its UTF-8 bytes in a `Uint8Array` (copied in at once, where a string
/// crosses a character at a time); bytes that are not UTF-8 are `INVALID_ARGUMENT`.
fn text(object: &JsValue, key: &str, what: &str) -> Result<String, JsValue> {
    let value = field(object, key, what)?;
    match value.dyn_ref::<Uint8Array>() {
        Some(bytes) => String::from_utf8(bytes.to_vec())
            .map_err(|_| invalid(&format!("{what}.{key} must be UTF-8"))),
        None => string_arg(&value, &format!("{what}.{key}")),
    }
}

#[wasm_bindgen]
impl ScanSession {
    /// A session scanning with `limits` (the defaults where left out; fixed for its life).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
    ) -> Result<ScanSession, JsValue> {
        let limits = from_js_opt(limits, "limits")?.unwrap_or_default();
        Ok(Self(crate::scan_session::ScanSession::new(limits)))
    }

    /// Takes the listing, packed (`{paths, mtimes, kinds, problems}`: every path NUL-ended as
    /// text or UTF-8 bytes, a `Float64Array` of times, a `Uint8Array` of kinds, the problems
    /// NUL-ended), and returns the entries to read, newest first. `timesOnly`: the listing of
    /// the last plan with new times; only `mtimes` is read.
    pub fn plan(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "{ paths: string | Uint8Array; mtimes: Float64Array; kinds: Uint8Array; problems: string }"
        )]
        listing: JsValue,
        times_only: bool,
    ) -> Result<Uint32Array, JsValue> {
        let what = "listing";
        let mtimes = typed::<Float64Array>(&listing, "mtimes", what, "Float64Array")?.to_vec();
        let (paths, kinds, problems) = if times_only {
            (String::new(), Vec::new(), String::new())
        } else {
            (
                text(&listing, "paths", what)?,
                typed::<Uint8Array>(&listing, "kinds", what, "Uint8Array")?.to_vec(),
                text(&listing, "problems", what)?,
            )
        };
        let listing = PackedListing {
            paths: &paths,
            mtimes: &mtimes,
            kinds: &kinds,
            problems: &problems,
        };
        let order = self
            .0
            .plan(&listing, times_only)
            .map_err(|e| to_js_error(&e))?;
        Ok(Uint32Array::from(order.as_slice()))
    }

    /// Scans the listing of the last plan with the heads read this turn (`{bytes, entries,
    /// ends}`: one buffer, each head's entry, where each ends) and the entries whose read
    /// failed (`failedEntries`, with `failedProblems` NUL-ended). Returns `{json,
    /// droppedEntries, droppedMtimes, same, sameEntries}` (see `PackedScan`).
    pub fn scan(
        &mut self,
        #[wasm_bindgen(
            unchecked_param_type = "{ bytes: Uint8Array; entries: Uint32Array; ends: Uint32Array; failedEntries: Uint32Array; failedProblems: string }"
        )]
        heads: JsValue,
    ) -> JsResult {
        let what = "heads";
        let bytes = typed::<Uint8Array>(&heads, "bytes", what, "Uint8Array")?.to_vec();
        let entries = typed::<Uint32Array>(&heads, "entries", what, "Uint32Array")?.to_vec();
        let ends = typed::<Uint32Array>(&heads, "ends", what, "Uint32Array")?.to_vec();
        let failed_entries =
            typed::<Uint32Array>(&heads, "failedEntries", what, "Uint32Array")?.to_vec();
        let problems = text(&heads, "failedProblems", what)?;
        let problems: Vec<&str> = problems.split_terminator('\0').collect();
        if problems.len() != failed_entries.len() {
            return Err(invalid("heads: one problem per failed entry"));
        }
        let failed: Vec<(usize, String)> = failed_entries
            .iter()
            .zip(problems)
            .map(|(&e, p)| (usize::try_from(e).unwrap_or(usize::MAX), p.to_owned()))
            .collect();
        let heads = PackedHeads {
            bytes: &bytes,
            entries: &entries,
            ends: &ends,
        };
        let out = self.0.scan(&heads, &failed).map_err(|e| to_js_error(&e))?;
        let result = Object::new();
        let set = |key: &str, value: JsValue| {
            // a fresh plain object: setting a property cannot fail
            let _ = Reflect::set(&result, &JsValue::from_str(key), &value);
        };
        set("json", JsValue::from_str(&out.json));
        set(
            "droppedEntries",
            Uint32Array::from(out.dropped_entries.as_slice()).into(),
        );
        set(
            "droppedMtimes",
            Float64Array::from(out.dropped_mtimes.as_slice()).into(),
        );
        set("same", Uint32Array::from(out.same.as_slice()).into());
        set(
            "sameEntries",
            Uint32Array::from(out.same_entries.as_slice()).into(),
        );
        Ok(result.into())
    }

    /// `buildSelectionRequest` for the last scan: `input.memories` empty, the session's are
    /// used (no crossing of 200 memories field by field).
    #[wasm_bindgen(js_name = selectionRequest, unchecked_return_type = "SelectionRequest")]
    pub fn selection_request(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SelectionInput")] input: JsValue,
    ) -> JsResult {
        let input: SelectionInput = from_js(input, "input")?;
        to_js(
            &self
                .0
                .selection_request(input)
                .map_err(|e| to_js_error(&e))?,
        )
    }

    /// `lexicalSelect` among `candidates` of the last scan, with the heads it read; each
    /// memory's terms are made once per head and kept.
    #[wasm_bindgen(js_name = lexicalSelect, unchecked_return_type = "LexicalSelection")]
    pub fn lexical_select(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string[]")] candidates: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string[]")] recent_tools: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
    ) -> JsResult {
        let query = string_arg(&query, "query")?;
        let candidates: Vec<String> = from_js(candidates, "candidates")?;
        let recent_tools: Vec<String> = from_js(recent_tools, "recentTools")?;
        let limits = from_js_opt(limits, "limits")?.unwrap_or_default();
        to_js(
            &self
                .0
                .lexical_select(&query, &candidates, &recent_tools, &limits),
        )
    }
}
