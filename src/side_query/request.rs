//! The side-query request: which memories are candidates, and the exact prompt, schema and
//! token budget to send — or why no model call should be made this turn.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::keep::supersede::superseded;
use crate::limits::{to_usize, Limits};
use crate::manifest::format_manifest;
use crate::scan::Memory;
use crate::text::js_trim;

/// The instructions of the selector, in our own words.
pub const SELECTOR_INSTRUCTIONS: &str = "You choose which saved memories an AI coding agent should read before it answers a query. \
You get the query and a list of memory files, each with its file name, type, save time and a one-line description.\n\
\n\
Return the file names of the memories that will clearly help with this query: at most 5, copied exactly as listed. \
Judge only by the file name and description. If you are not sure a memory will help, leave it out; \
an empty list is a good answer when nothing clearly helps.\n\
\n\
When the query lists recently used tools, skip memories that are usage guides or API references for those tools, \
since the agent is already using them, but do choose memories that warn about those tools or record known problems with them.\n\
\n\
Answer with JSON only: {\"selected_memories\": [\"file.md\", ...]}";

/// What the caller passes in.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct SelectionInput {
    pub query: String,
    /// The scan's `memories` (newest first, already capped).
    pub memories: Vec<Memory>,
    /// Paths surfaced earlier in the session.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub already_surfaced: Vec<String>,
    /// Names of tools the agent used successfully in the previous turn.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub recent_tools: Vec<String>,
    /// UTF-16 units of memory content surfaced so far in the session.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub surfaced_utf16: f64,
    #[serde(default)]
    #[cfg_attr(test, ts(type = "Partial<Limits> | null", optional))]
    pub limits: Option<Limits>,
}

/// Why no model call is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "SkipReason"))]
pub enum Skip {
    /// No topic file is a candidate: there are none, or every one a newer memory replaces.
    NoMemories,
    /// Every memory that could be a candidate was surfaced earlier this session: memories exist,
    /// the session has them already.
    AlreadySurfaced,
    /// The query is one word (no white space, at most one CJK character).
    OneWord,
    /// The session's surfaced-content budget is spent.
    BudgetSpent,
}

/// The request to send, or `skip` with empty fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SelectionRequest {
    pub skip: Option<Skip>,
    /// The selector's instructions (system prompt).
    pub system: String,
    /// `Query: …\n\nAvailable memories:\n…` plus the recently used tools.
    pub user: String,
    /// The manifest alone, for providers that cache it as its own system block.
    pub manifest: String,
    /// The query alone (trimmed), with the tools line, for the cached layout.
    pub query_message: String,
    /// `{selected_memories: string[]}`, `additionalProperties: false`, `required`.
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub schema: Value,
    pub max_tokens: u32,
    /// The candidate paths, newest first.
    pub candidates: Vec<String>,
}

/// The JSON schema of the answer. No `maxItems`: Anthropic rejects it; the cap of 5 is in
/// the prompt and enforced by [`crate::side_query::answer::parse_selection`].
pub fn selection_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"selected_memories": {"type": "array", "items": {"type": "string"}}},
        "required": ["selected_memories"],
        "additionalProperties": false
    })
}

/// Builds the side query per rules §3.4. The cap on files applies before
/// already-surfaced files are removed, as in the reference.
pub fn build_selection_request(input: &SelectionInput) -> SelectionRequest {
    let limits = input.limits.unwrap_or_default();
    let mut request = SelectionRequest {
        skip: None,
        system: String::new(),
        user: String::new(),
        manifest: String::new(),
        query_message: String::new(),
        schema: selection_schema(),
        max_tokens: limits.max_output_tokens,
        candidates: Vec::new(),
    };
    let query = js_trim(&input.query);
    // one word: a CJK sentence has no spaces but many words (a deliberate difference: the
    // reference skips it)
    if crate::words::is_one_word(query) {
        request.skip = Some(Skip::OneWord);
        return request;
    }
    if input.surfaced_utf16 >= f64::from(limits.max_session_utf16) {
        request.skip = Some(Skip::BudgetSpent);
        return request;
    }
    let surfaced: HashSet<&str> = input.already_surfaced.iter().map(String::as_str).collect();
    let kept = input
        .memories
        .get(..to_usize(limits.max_files).min(input.memories.len()))
        .unwrap_or(&[]);
    // a memory a newer one replaces is no candidate; the newer one is (rules §4.7)
    let replaced = superseded(kept);
    let candidates: Vec<Memory> = kept
        .iter()
        .filter(|m| !surfaced.contains(m.path.as_str()) && !replaced.contains(&m.path))
        .cloned()
        .collect();
    if candidates.is_empty() {
        let surfaced_any = kept
            .iter()
            .any(|m| surfaced.contains(m.path.as_str()) && !replaced.contains(&m.path));
        request.skip = Some(if surfaced_any {
            Skip::AlreadySurfaced
        } else {
            Skip::NoMemories
        });
        return request;
    }
    let manifest = format_manifest(&candidates);
    let tools: Vec<&str> = input
        .recent_tools
        .iter()
        .map(|t| js_trim(t))
        .filter(|t| !t.is_empty())
        .collect();
    let tools_line = if tools.is_empty() {
        String::new()
    } else {
        format!("\n\nRecently used tools: {}", tools.join(", "))
    };
    request.system = SELECTOR_INSTRUCTIONS.to_owned();
    request.user = format!("Query: {query}\n\nAvailable memories:\n{manifest}{tools_line}");
    request.query_message = format!("Query: {query}{tools_line}");
    request.manifest = manifest;
    request.candidates = candidates.into_iter().map(|m| m.path).collect();
    request
}
