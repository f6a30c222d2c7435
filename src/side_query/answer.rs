//! The selector's answer: JSON (bare, fenced, or inside prose) checked against the candidates.
//! Whatever is wrong with it is reported as data — a bad model answer is never an exception.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::limits::{to_usize, Limits};
use crate::paths::check_relative_path;

/// How many `{` positions are tried when looking for JSON inside prose; bounds the work on
/// hostile text.
const MAX_JSON_STARTS: usize = 64;

/// A value the parser refused, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Rejected {
    /// The value as the model gave it (any JSON value).
    pub value: Value,
    /// `not_a_string`, `unsafe_path`, `already_surfaced`, `unknown`, `duplicate` or `over_limit`.
    pub reason: String,
}

/// Why the answer as a whole could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "SelectionFailure"))]
pub struct Failure {
    /// `empty_answer`, `invalid_json`, `missing_selected_memories` or `not_an_array`.
    pub code: String,
    pub message: String,
}

/// The parsed selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Selection {
    /// Candidate paths, in the model's order, no duplicates, at most `maxSelected`.
    pub selected: Vec<String>,
    pub rejected: Vec<Rejected>,
    /// Set when no list could be read at all; `selected` is then empty.
    pub failure: Option<Failure>,
}

fn failed(code: &str, message: &str) -> Selection {
    Selection {
        selected: Vec::new(),
        rejected: Vec::new(),
        failure: Some(Failure {
            code: code.to_owned(),
            message: message.to_owned(),
        }),
    }
}

/// Parses the model's answer per rules §3.5.
pub fn parse_selection(
    answer: &str,
    candidates: &[String],
    already_surfaced: &[String],
    limits: &Limits,
) -> Selection {
    let text = strip_think(answer);
    if text.trim().is_empty() {
        return failed("empty_answer", "the model's answer is empty");
    }
    let Some(value) = find_json(text) else {
        return failed(
            "invalid_json",
            "no JSON object with selected_memories was found in the answer",
        );
    };
    let Some(list) = value.get("selected_memories") else {
        return failed(
            "missing_selected_memories",
            "the answer's JSON has no selected_memories field",
        );
    };
    let Value::Array(items) = list else {
        return failed("not_an_array", "selected_memories is not a list");
    };

    let candidates: HashSet<&str> = candidates.iter().map(String::as_str).collect();
    let surfaced: HashSet<&str> = already_surfaced.iter().map(String::as_str).collect();
    let max = to_usize(limits.max_selected);
    let mut selection = Selection {
        selected: Vec::new(),
        rejected: Vec::new(),
        failure: None,
    };
    for item in items {
        let reason = match item {
            Value::String(path) if check_relative_path(path).is_err() => "unsafe_path",
            Value::String(path) if surfaced.contains(path.as_str()) => "already_surfaced",
            Value::String(path) if !candidates.contains(path.as_str()) => "unknown",
            Value::String(path) if selection.selected.contains(path) => "duplicate",
            Value::String(_) if selection.selected.len() >= max => "over_limit",
            Value::String(path) => {
                selection.selected.push(path.clone());
                continue;
            }
            _ => "not_a_string",
        };
        selection.rejected.push(Rejected {
            value: item.clone(),
            reason: reason.to_owned(),
        });
    }
    selection
}

/// Local reasoning models wrap their thoughts in `<think>…</think>` before the answer.
pub(crate) fn strip_think(text: &str) -> &str {
    match text.rfind("</think>") {
        Some(end) => text.get(end + "</think>".len()..).unwrap_or(text),
        None => text,
    }
}

/// The whole text as JSON; else a fenced block; else the first JSON object inside prose that
/// has `selected_memories` (or, failing that, the first object at all).
fn find_json(text: &str) -> Option<Value> {
    find_json_with(text, "selected_memories")
}

/// [`find_json`] for an answer whose object has the field `key` (every side query's answer).
pub(crate) fn find_json_with(text: &str, key: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
        if value.is_object() {
            return Some(value);
        }
    }
    if let Some(value) =
        fenced(trimmed).and_then(|inner| serde_json::from_str::<Value>(inner.trim()).ok())
    {
        if value.is_object() {
            return Some(value);
        }
    }
    let mut first_object = None;
    for (start, _) in trimmed.match_indices('{').take(MAX_JSON_STARTS) {
        let Some(rest) = trimmed.get(start..) else {
            continue;
        };
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        if let Some(Ok(value)) = stream.next() {
            if value.get(key).is_some() {
                return Some(value);
            }
            if first_object.is_none() && value.is_object() {
                first_object = Some(value);
            }
        }
    }
    first_object
}

/// The inside of the first ``` fenced block (with or without a `json` tag).
fn fenced(text: &str) -> Option<&str> {
    let open = text.find("```")?;
    let after = text.get(open + 3..)?;
    let body_start = after.find('\n').map_or(0, |n| n + 1);
    let body = after.get(body_start..)?;
    let close = body.find("```")?;
    body.get(..close)
}
