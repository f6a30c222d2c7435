//! The WebAssembly edge. Each export decodes its arguments, calls the core, and encodes the
//! result; no rule lives here. Arguments arrive as `JsValue` so that a wrong type is a typed
//! `MemdirError` (`code: "INVALID_ARGUMENT"`) rather than a coercion or a trap.

mod convert;
mod extract;
mod history;
mod keep;
mod scan_session;
mod scopes;
mod strict;
mod types;

use wasm_bindgen::prelude::*;

use self::convert::{from_js, from_js_opt, number_arg, string_arg, to_js, to_js_error};
use crate::side_query::{answer, request as selection};
use crate::{
    cost, diff, doctor, freshness, index, instructions, lexical, manifest, merge_index, paths,
    provider, render, scan, secrets, temp, tool, write, Limits,
};

type JsResult = Result<JsValue, JsValue>;

fn limits_arg(value: JsValue) -> Result<Limits, JsValue> {
    Ok(from_js_opt(value, "limits")?.unwrap_or_default())
}

/// Trims `MEMORY.md` and holds it to `maxIndexLines` lines and `maxIndexUtf16` UTF-16 units,
/// appending a warning that names the limit when it cuts.
///
/// ```ts
/// const view = truncateIndex(await readFile("MEMORY.md", "utf8"));
/// if (view.wasLineTruncated) console.warn(`index has ${view.lineCount} lines`);
/// ```
#[wasm_bindgen(js_name = truncateIndex, unchecked_return_type = "IndexView")]
pub fn truncate_index(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let text = string_arg(&text, "text")?;
    to_js(&index::truncate_index(&text, &limits_arg(limits)?))
}

/// What to read of `MEMORY.md`: its path, and how far (what the limits could keep, plus a
/// margin). A larger file is read only this far: pass its size as `fileBytes` to `indexPrompt`.
#[wasm_bindgen(js_name = indexReadPlan, unchecked_return_type = "IndexReadPlan")]
pub fn index_read_plan(
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    to_js(&index::index_read_plan(&limits_arg(limits)?))
}

/// `MEMORY.md` as the model sees it: the truncated view and the prompt block
/// (`Contents of {absolutePath} (…):`), from what the host read (`content`, and the file's
/// size as `fileBytes` when only its start was read). Tags that could close a
/// `<system-reminder>` are neutralised.
#[wasm_bindgen(js_name = indexPrompt, unchecked_return_type = "IndexPrompt")]
pub fn index_prompt(
    #[wasm_bindgen(unchecked_param_type = "IndexInput")] input: JsValue,
) -> JsResult {
    let input: index::IndexInput = from_js(input, "input")?;
    to_js(&index::index_prompt(&input))
}

/// Orders the listing so a host reads only the heads it needs: topic files newest first
/// (ties by path). Read the first `maxFiles`; if one cannot be read, read the next.
#[wasm_bindgen(js_name = planScan, unchecked_return_type = "ScanPlan")]
pub fn plan_scan(
    #[wasm_bindgen(unchecked_param_type = "FileHead[]")] files: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let files: Vec<scan::FileHead> = from_js(files, "files")?;
    to_js(&scan::plan_scan(&files, &limits_arg(limits)?))
}

/// Scans topic files: `.md` files other than `MEMORY.md`, frontmatter from their first
/// `maxHeaderLines` lines, newest first, capped at `maxFiles` (the rest in `dropped`).
/// Never throws for file contents: problems are `diagnostics`.
#[wasm_bindgen(js_name = scanMemories, unchecked_return_type = "ScanResult")]
pub fn scan_memories(
    #[wasm_bindgen(unchecked_param_type = "FileHead[]")] files: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let files: Vec<scan::FileHead> = from_js(files, "files")?;
    to_js(&scan::scan_memories(&files, &limits_arg(limits)?))
}

/// The manifest the selector reads: `- [type] path (ISO mtime): description`, one line each.
#[wasm_bindgen(js_name = formatManifest)]
pub fn format_manifest(
    #[wasm_bindgen(unchecked_param_type = "Memory[]")] memories: JsValue,
) -> Result<String, JsValue> {
    let memories: Vec<scan::Memory> = from_js(memories, "memories")?;
    Ok(manifest::format_manifest(&memories))
}

/// Builds the side query for one turn, or says why none should be sent (`skip`).
#[wasm_bindgen(js_name = buildSelectionRequest, unchecked_return_type = "SelectionRequest")]
pub fn build_selection_request(
    #[wasm_bindgen(unchecked_param_type = "SelectionInput")] input: JsValue,
) -> JsResult {
    let input: selection::SelectionInput = from_js(input, "input")?;
    to_js(&selection::build_selection_request(&input))
}

/// Reads the selector's answer text (JSON, fenced JSON or JSON in prose) against the
/// candidates. A bad answer is data: `failure` and `rejected`, never an exception.
#[wasm_bindgen(js_name = parseSelection, unchecked_return_type = "Selection")]
pub fn parse_selection(
    #[wasm_bindgen(unchecked_param_type = "string")] answer_text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[]")] candidates: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[] | null")] already_surfaced: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let answer_text = string_arg(&answer_text, "answerText")?;
    let candidates: Vec<String> = from_js(candidates, "candidates")?;
    let surfaced: Vec<String> =
        from_js_opt(already_surfaced, "alreadySurfaced")?.unwrap_or_default();
    to_js(&answer::parse_selection(
        &answer_text,
        &candidates,
        &surfaced,
        &limits_arg(limits)?,
    ))
}

/// Whole 24-hour periods between `mtimeMs` and `nowMs` (0 for the future).
#[wasm_bindgen(js_name = memoryAgeDays)]
pub fn memory_age_days(
    #[wasm_bindgen(unchecked_param_type = "number")] mtime_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] now_ms: JsValue,
) -> Result<u32, JsValue> {
    Ok(freshness::age_days(
        number_arg(&mtime_ms, "mtimeMs")?,
        number_arg(&now_ms, "nowMs")?,
    ))
}

/// `"today"`, `"yesterday"` or `"N days ago"`.
#[wasm_bindgen(js_name = memoryAge)]
pub fn memory_age(
    #[wasm_bindgen(unchecked_param_type = "number")] mtime_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] now_ms: JsValue,
) -> Result<String, JsValue> {
    Ok(freshness::age_label(memory_age_days(mtime_ms, now_ms)?))
}

/// The staleness caveat for a memory older than a day, else `""`.
#[wasm_bindgen(js_name = memoryFreshnessText)]
pub fn memory_freshness_text(
    #[wasm_bindgen(unchecked_param_type = "number")] mtime_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] now_ms: JsValue,
) -> Result<String, JsValue> {
    Ok(freshness::freshness_text(memory_age_days(
        mtime_ms, now_ms,
    )?))
}

/// The caveat as `<system-reminder>…</system-reminder>\n`, else `""`.
#[wasm_bindgen(js_name = memoryFreshnessNote)]
pub fn memory_freshness_note(
    #[wasm_bindgen(unchecked_param_type = "number")] mtime_ms: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] now_ms: JsValue,
) -> Result<String, JsValue> {
    Ok(freshness::freshness_note(memory_age_days(
        mtime_ms, now_ms,
    )?))
}

/// Renders one memory as the `<system-reminder>` block to inject, cut to `maxInjectLines`
/// lines and `maxInjectBytes` UTF-8 bytes at a complete line.
#[wasm_bindgen(js_name = renderMemory, unchecked_return_type = "RenderedMemory")]
pub fn render_memory(
    #[wasm_bindgen(unchecked_param_type = "RenderInput")] input: JsValue,
) -> JsResult {
    let input: render::RenderInput = from_js(input, "input")?;
    to_js(&render::render_memory(&input))
}

/// Claude Code's `sanitizePath`: non-alphanumeric UTF-16 units become `-`; long names are
/// cut to 200 and suffixed with a hash.
#[wasm_bindgen(js_name = sanitizePath)]
pub fn sanitize_path(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
) -> Result<String, JsValue> {
    Ok(paths::sanitize_path(&string_arg(&name, "name")?))
}

/// The default memory directory, `~/.claude/projects/<sanitized root>/memory/`.
#[wasm_bindgen(js_name = projectMemoryDir)]
pub fn project_memory_dir(
    #[wasm_bindgen(unchecked_param_type = "MemoryDirInput")] input: JsValue,
) -> Result<String, JsValue> {
    let input: paths::MemoryDirInput = from_js(input, "input")?;
    paths::project_memory_dir(&input).map_err(|e| to_js_error(&e))
}

/// A subagent's own memory folder (Claude Code's agent memory) for the scope `user`,
/// `project` or `local`.
#[wasm_bindgen(js_name = agentMemoryDir)]
pub fn agent_memory_dir(
    #[wasm_bindgen(unchecked_param_type = "AgentMemoryInput")] input: JsValue,
) -> Result<String, JsValue> {
    let input: paths::AgentMemoryInput = from_js(input, "input")?;
    paths::agent_memory_dir(&input).map_err(|e| to_js_error(&e))
}

/// Checks a path relative to the memory directory; throws `UNSAFE_PATH` saying why.
#[wasm_bindgen(js_name = checkRelativePath)]
pub fn check_relative_path(
    #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
) -> Result<(), JsValue> {
    paths::check_relative_path(&string_arg(&path, "path")?).map_err(|e| to_js_error(&e))
}

/// US dollars for one call from its usage; `usd: null` for a model not in the price table.
#[wasm_bindgen(js_name = estimateCost, unchecked_return_type = "Cost")]
pub fn estimate_cost(
    #[wasm_bindgen(unchecked_param_type = "CostInput")] input: JsValue,
) -> JsResult {
    let input: cost::CostInput = from_js(input, "input")?;
    to_js(&cost::estimate_cost(&input))
}

/// The default limits (rules §2).
#[wasm_bindgen(js_name = defaultLimits, unchecked_return_type = "Limits")]
pub fn default_limits() -> JsResult {
    to_js(&Limits::default())
}

/// The HTTP request of the side query for one provider, shaped for the model (thinking and
/// effort settings it accepts, no sampling parameters), with the manifest as a cacheable
/// system block for Anthropic.
#[wasm_bindgen(js_name = buildProviderRequest, unchecked_return_type = "HttpRequest")]
pub fn build_provider_request(
    #[wasm_bindgen(unchecked_param_type = "ProviderRequestInput")] input: JsValue,
) -> JsResult {
    let input: provider::ProviderRequestInput = from_js(input, "input")?;
    to_js(&provider::build_provider_request(&input))
}

/// Decodes a provider's response: the first text block after any thinking blocks, the stop
/// reason, refusals, usage and error envelopes, the same shape for every provider.
#[wasm_bindgen(js_name = decodeProviderResponse, unchecked_return_type = "ProviderAnswer")]
pub fn decode_provider_response(
    #[wasm_bindgen(unchecked_param_type = "ProviderResponseInput")] input: JsValue,
) -> JsResult {
    let input: provider::ProviderResponseInput = from_js(input, "input")?;
    to_js(&provider::decode_provider_response(&input))
}

/// Whether to retry a failed attempt, and after how many milliseconds (the SDKs' rules).
#[wasm_bindgen(js_name = retryDecision, unchecked_return_type = "RetryDecision")]
pub fn retry_decision(
    #[wasm_bindgen(unchecked_param_type = "RetryInput")] input: JsValue,
) -> JsResult {
    let input: provider::RetryInput = from_js(input, "input")?;
    to_js(&provider::retry_decision(&input))
}

/// The offline selector: BM25 over name, description and path, with a threshold.
#[wasm_bindgen(js_name = lexicalSelect, unchecked_return_type = "LexicalSelection")]
pub fn lexical_select(
    #[wasm_bindgen(unchecked_param_type = "LexicalInput")] input: JsValue,
) -> JsResult {
    let input: lexical::LexicalInput = from_js(input, "input")?;
    to_js(&lexical::lexical_select(&input))
}

/// The system-prompt section that teaches the main model how to keep the memory in `dir`,
/// in the words of the way it writes (`via`: `files`, the default, `memory-tool` or
/// `remember-tool`), and what it is told of extraction after a turn (`extract`, its mode).
#[wasm_bindgen(js_name = memoryInstructions)]
pub fn memory_instructions(
    #[wasm_bindgen(unchecked_param_type = "string")] dir: JsValue,
    #[wasm_bindgen(unchecked_param_type = "WriteVia | null | undefined")] via: JsValue,
    #[wasm_bindgen(unchecked_param_type = "KeepMode | null | undefined")] extract: JsValue,
) -> Result<String, JsValue> {
    let dir = string_arg(&dir, "dir")?;
    let via = if via.is_null() || via.is_undefined() {
        instructions::WriteVia::Files
    } else {
        instructions::WriteVia::parse(&string_arg(&via, "via")?).map_err(|e| to_js_error(&e))?
    };
    let extract = if extract.is_null() || extract.is_undefined() {
        None
    } else {
        let mode = string_arg(&extract, "extract")?;
        Some(crate::keep::KeepMode::parse_arg(&mode, "extract").map_err(|e| to_js_error(&e))?)
    };
    Ok(instructions::memory_instructions(&dir, via, extract))
}

/// Step 1 of a memory-tool command: the paths to resolve and the files to read. `result`
/// is set when the command is answered already (malformed, or a path outside `/memories`).
#[wasm_bindgen(js_name = planToolCommand, unchecked_return_type = "ToolPlan")]
pub fn plan_tool_command(
    #[wasm_bindgen(unchecked_param_type = "MemoryToolCommand")] command: JsValue,
) -> JsResult {
    let command: serde_json::Value = from_js(command, "command")?;
    to_js(&tool::plan_tool_command(&command))
}

/// Step 2 of a memory-tool command: the result text and the effects to apply, from what the
/// host found. Never throws for a bad command: that is an error result.
#[wasm_bindgen(js_name = runToolCommand, unchecked_return_type = "ToolResult")]
pub fn run_tool_command(
    #[wasm_bindgen(unchecked_param_type = "MemoryToolCommand")] command: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Snapshot")] snapshot: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let command: serde_json::Value = from_js(command, "command")?;
    let snapshot: write::Snapshot = from_js(snapshot, "snapshot")?;
    to_js(&tool::run_tool_command(
        &command,
        &snapshot,
        &limits_arg(limits)?,
    ))
}

/// The JSON Schema of one memory-tool command, as `planToolCommand` and `runToolCommand`
/// accept it: for a validator or a tool loop that needs one. `{flat: true}` leaves out the
/// root `oneOf`, which Anthropic's and OpenAI's APIs refuse in a tool's schema:
///
/// ```ts
/// tools.push({ type: "function", function: { name: "memory", parameters: memoryToolInputSchema({ flat: true }) } });
/// ```
/// (The schema crosses as JSON text, which the facade parses: far smaller in the wasm.)
#[wasm_bindgen(js_name = memoryToolInputSchema)]
pub fn memory_tool_input_schema(
    #[wasm_bindgen(unchecked_param_type = "MemoryToolSchemaOptions | null")] options: JsValue,
) -> Result<String, JsValue> {
    let options: tool::SchemaOptions = from_js_opt(options, "options")?.unwrap_or_default();
    Ok(tool::input_schema(options))
}

/// Plans `remember`: the topic file and its index line, or a typed refusal
/// (`INVALID_MEMORY`, `SECRET_DETECTED`, `LIMIT_EXCEEDED`, `DUPLICATE_MEMORY`, `INDEX_ONLY`, `UNSAFE_PATH`).
#[wasm_bindgen(js_name = planRemember, unchecked_return_type = "WritePlan")]
pub fn plan_remember(
    #[wasm_bindgen(unchecked_param_type = "RememberInput")] input: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Snapshot")] snapshot: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let input: write::remember::RememberInput = from_js(input, "input")?;
    let snapshot: write::Snapshot = from_js(snapshot, "snapshot")?;
    let plan = write::remember::plan_remember(&input, &snapshot, &limits_arg(limits)?);
    to_js(&plan.map_err(|e| to_js_error(&e))?)
}

/// Plans `forget`: the index entries and the file removed, or `NOT_FOUND`.
#[wasm_bindgen(js_name = planForget, unchecked_return_type = "WritePlan")]
pub fn plan_forget(
    #[wasm_bindgen(unchecked_param_type = "string")] file: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Snapshot")] snapshot: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    let snapshot: write::Snapshot = from_js(snapshot, "snapshot")?;
    let plan =
        write::forget::plan_forget(&string_arg(&file, "file")?, &snapshot, &limits_arg(limits)?);
    to_js(&plan.map_err(|e| to_js_error(&e))?)
}

/// The links of `MEMORY.md` that leave the memory folder (decoded, anchors dropped): a host
/// that can look outside checks them for `DoctorInput.outside`.
#[wasm_bindgen(js_name = outsideLinks, unchecked_return_type = "string[]")]
pub fn outside_links(
    #[wasm_bindgen(unchecked_param_type = "string")] index_text: JsValue,
) -> JsResult {
    to_js(&doctor::outside_links(&string_arg(
        &index_text,
        "indexText",
    )?))
}

/// What to read before `planRemember`: the index, every topic file's head, and where the
/// index and the file (when named) really are.
#[wasm_bindgen(js_name = rememberReadPlan, unchecked_return_type = "ReadPlan")]
pub fn remember_read_plan(
    #[wasm_bindgen(unchecked_param_type = "string | null")] file: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] supersedes: JsValue,
) -> JsResult {
    let file: Option<String> = from_js_opt(file, "file")?;
    let supersedes: Option<String> = from_js_opt(supersedes, "supersedes")?;
    to_js(&write::read_plan::remember_read_plan(
        file.as_deref(),
        supersedes.as_deref(),
        &limits_arg(limits)?,
    ))
}

/// What to read before `planForget`.
#[wasm_bindgen(js_name = forgetReadPlan, unchecked_return_type = "ReadPlan")]
pub fn forget_read_plan(
    #[wasm_bindgen(unchecked_param_type = "string")] file: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    to_js(&write::read_plan::forget_read_plan(
        &string_arg(&file, "file")?,
        &limits_arg(limits)?,
    ))
}

/// What to read before a doctor run: the index and every topic file, whole.
#[wasm_bindgen(js_name = doctorReadPlan, unchecked_return_type = "ReadPlan")]
pub fn doctor_read_plan(
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> JsResult {
    to_js(&write::read_plan::doctor_read_plan(&limits_arg(limits)?))
}

/// Bytes of a file to read whole for a write: one past `maxFileBytes`.
#[wasm_bindgen(js_name = fileReadBytes)]
pub fn file_read_bytes(
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> Result<u32, JsValue> {
    Ok(write::read_plan::file_read_bytes(&limits_arg(limits)?))
}

/// Bytes of a selected memory to read to render it (`renderMemory`).
#[wasm_bindgen(js_name = injectReadBytes)]
pub fn inject_read_bytes(
    #[wasm_bindgen(unchecked_param_type = "Partial<Limits> | null")] limits: JsValue,
) -> Result<u32, JsValue> {
    Ok(render::inject_read_bytes(&limits_arg(limits)?))
}

/// The temporary file an atomic write of `name` goes through: `.<name>.tmp-<token>`.
#[wasm_bindgen(js_name = tempFileName)]
pub fn temp_file_name(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] token: JsValue,
) -> Result<String, JsValue> {
    Ok(temp::temp_file_name(
        &string_arg(&name, "name")?,
        &string_arg(&token, "token")?,
    ))
}

/// The file a temporary file was for, or `null` when `path` is not a temporary file.
#[wasm_bindgen(js_name = parseTempFile, unchecked_return_type = "TempFile | null")]
pub fn parse_temp_file(#[wasm_bindgen(unchecked_param_type = "string")] path: JsValue) -> JsResult {
    to_js(&temp::parse_temp_file(&string_arg(&path, "path")?))
}

/// The side query's defaults: deadline, retries, the largest answer read.
#[wasm_bindgen(js_name = selectorDefaults, unchecked_return_type = "SelectorDefaults")]
pub fn selector_defaults() -> JsResult {
    to_js(&provider::SELECTOR_DEFAULTS)
}

/// The selector to use when none is configured, from which keys the environment has.
#[wasm_bindgen(js_name = defaultSelector, unchecked_return_type = "DefaultSelector")]
pub fn default_selector(
    #[wasm_bindgen(unchecked_param_type = "SelectorEnv")] env: JsValue,
) -> JsResult {
    let env: provider::SelectorEnv = from_js(env, "env")?;
    to_js(&provider::default_selector(&env))
}

/// Every doctor check over a directory (rules §5).
#[wasm_bindgen(js_name = runDoctor, unchecked_return_type = "DoctorReport")]
pub fn run_doctor(
    #[wasm_bindgen(unchecked_param_type = "DoctorInput")] input: JsValue,
) -> JsResult {
    let input: doctor::DoctorInput = from_js(input, "input")?;
    to_js(&doctor::doctor(&input))
}

/// The safe fixes, as effects and a unified diff, with the report before and after.
#[wasm_bindgen(js_name = planDoctorFixes, unchecked_return_type = "FixPlan")]
pub fn plan_doctor_fixes(
    #[wasm_bindgen(unchecked_param_type = "DoctorInput")] input: JsValue,
) -> JsResult {
    let input: doctor::DoctorInput = from_js(input, "input")?;
    to_js(&doctor::fix::plan_doctor_fixes(&input))
}

/// High-confidence credentials in a text: kind, line and a redacted preview, never the secret.
#[wasm_bindgen(js_name = findSecrets, unchecked_return_type = "SecretFinding[]")]
pub fn find_secrets(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> JsResult {
    to_js(&secrets::find_secrets(&string_arg(&text, "text")?))
}

/// A unified diff of two texts (`--- a/path` / `+++ b/path`), empty when equal.
#[wasm_bindgen(js_name = unifiedDiff)]
pub fn unified_diff(
    #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] old: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] new: JsValue,
) -> Result<String, JsValue> {
    Ok(diff::unified_diff(
        &string_arg(&path, "path")?,
        &string_arg(&old, "old")?,
        &string_arg(&new, "new")?,
    ))
}

/// A three-way merge of `MEMORY.md` (git's merge driver): every entry either side added or
/// edited kept, a line dropped only when one side removed it and the other left it as it was,
/// never a conflict marker.
#[wasm_bindgen(js_name = mergeIndex, unchecked_return_type = "MergedIndex")]
pub fn merge_index(
    #[wasm_bindgen(unchecked_param_type = "string")] base: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] ours: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] theirs: JsValue,
) -> JsResult {
    to_js(&merge_index::merge_index(
        &string_arg(&base, "base")?,
        &string_arg(&ours, "ours")?,
        &string_arg(&theirs, "theirs")?,
    ))
}
