//! The exports of scopes (see `crate::scopes`): each decodes, calls the core, encodes.

use wasm_bindgen::prelude::*;

use super::convert::{from_js, string_arg, to_js, to_js_error};
use crate::scopes;

type JsResult = Result<JsValue, JsValue>;

/// The memories of every scope as one list for selection: each path as `<scope>:<path>`
/// (`superseded_by` too), newest first, ties in the scopes' order. `INVALID_ARGUMENT` for a
/// bad or repeated scope name.
#[wasm_bindgen(js_name = mergeScoped, unchecked_return_type = "Memory[]")]
pub fn merge_scoped(
    #[wasm_bindgen(unchecked_param_type = "{ scope: string; memories: Memory[] }[]")]
    scans: JsValue,
) -> JsResult {
    let scans: Vec<scopes::ScopeScan> = from_js(scans, "scans")?;
    to_js(&scopes::merge_scoped(scans).map_err(|e| to_js_error(&e))?)
}

/// `<scope>:<path>` as `[scope, path]` when the prefix is one of `scopes`; `null` otherwise
/// (the path as given: a file's own name may hold a colon).
#[wasm_bindgen(js_name = splitScoped, unchecked_return_type = "[string, string] | null")]
pub fn split_scoped(
    #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[]")] scopes: JsValue,
) -> JsResult {
    let path = string_arg(&path, "path")?;
    let names: Vec<String> = from_js(scopes, "scopes")?;
    to_js(&scopes::split_scoped(&path, &names))
}

/// Where a write goes: the named scope, else the first whose `types` holds the memory's type,
/// else the first that takes any; `INVALID_ARGUMENT` when none can (or the named one is
/// read-only or unknown).
#[wasm_bindgen(js_name = writeScope, unchecked_return_type = "string")]
pub fn write_scope(
    #[wasm_bindgen(
        unchecked_param_type = "{ name: string; types?: string[] | null; readOnly?: boolean }[]"
    )]
    rules: JsValue,
    requested: Option<String>,
    memory_type: Option<String>,
) -> JsResult {
    let rules: Vec<scopes::ScopeRule> = from_js(rules, "scopes")?;
    let chosen = scopes::write_scope(&rules, requested.as_deref(), memory_type.as_deref());
    to_js(&chosen.map_err(|e| to_js_error(&e))?)
}

/// The section the main model reads: the scopes, where each is, and which wins.
#[wasm_bindgen(js_name = scopesPrompt, unchecked_return_type = "string")]
pub fn scopes_prompt(
    #[wasm_bindgen(unchecked_param_type = "{ name: string; root: string; readOnly?: boolean }[]")]
    scopes: JsValue,
) -> JsResult {
    let roots: Vec<scopes::ScopeRoot> = from_js(scopes, "scopes")?;
    to_js(&scopes::scopes_prompt(&roots).map_err(|e| to_js_error(&e))?)
}
