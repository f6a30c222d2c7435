//! Decoding a provider's HTTP response: the first text block after any thinking blocks, the
//! stop reason, a refusal, usage, and the error envelope — into one shape for every provider.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{set, Provider};
use crate::cost::Usage;

/// What came back.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ProviderResponseInput {
    pub provider: Provider,
    /// HTTP status.
    pub status: u16,
    /// The response body as text.
    pub body: String,
}

/// Why the answer cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ProviderFailure {
    /// `http_error`, `refusal`, `truncated`, `no_text` or `invalid_body`.
    pub code: String,
    pub message: String,
    /// The provider's error type (`rate_limit_error`, `invalid_request_error`, …), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// A 400 that names the schema parameter: retry once without it (prompt-only JSON).
    pub schema_rejected: bool,
}

/// The decoded answer. `text` is set exactly when `failure` is not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ProviderAnswer {
    pub text: Option<String>,
    pub stop_reason: Option<String>,
    pub usage: Usage,
    pub model: Option<String>,
    /// Thinking blocks skipped before the text.
    pub thinking_blocks: u32,
    pub failure: Option<ProviderFailure>,
}

fn failure(code: &str, message: impl Into<String>) -> ProviderFailure {
    ProviderFailure {
        code: code.to_owned(),
        message: message.into(),
        error_type: None,
        schema_rejected: false,
    }
}

fn n(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// Decodes one response.
pub fn decode_provider_response(input: &ProviderResponseInput) -> ProviderAnswer {
    let mut answer = ProviderAnswer {
        text: None,
        stop_reason: None,
        usage: Usage::default(),
        model: None,
        thinking_blocks: 0,
        failure: None,
    };
    let parsed: Option<Value> = serde_json::from_str(&input.body)
        .ok()
        .or_else(|| last_ndjson(&input.body));
    if !(200..300).contains(&input.status) {
        answer.failure = Some(http_failure(input.status, parsed.as_ref(), &input.body));
        return answer;
    }
    let Some(body) = parsed else {
        answer.failure = Some(failure("invalid_body", "the response body is not JSON"));
        return answer;
    };
    answer.model = body.get("model").and_then(Value::as_str).map(str::to_owned);
    match input.provider {
        Provider::Anthropic => decode_anthropic(&body, &mut answer),
        Provider::Openai => decode_openai(&body, &mut answer),
        Provider::Ollama => decode_ollama(&body, &mut answer),
    }
    if answer.failure.is_some() {
        answer.text = None;
    } else if answer.text.is_none() {
        answer.failure = Some(failure("no_text", "the response has no text"));
    }
    answer
}

fn decode_anthropic(body: &Value, answer: &mut ProviderAnswer) {
    if let Some(u) = body.get("usage") {
        let cache_1h = u
            .get("cache_creation")
            .map_or(0, |c| n(c, "ephemeral_1h_input_tokens"));
        answer.usage = Usage {
            input_tokens: n(u, "input_tokens"),
            output_tokens: n(u, "output_tokens"),
            cache_creation_input_tokens: n(u, "cache_creation_input_tokens"),
            cache_read_input_tokens: n(u, "cache_read_input_tokens"),
            cache_creation_1h_input_tokens: cache_1h,
        };
    }
    let stop = body
        .get("stop_reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut thinking = 0u32;
    for block in &blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                answer.text = block.get("text").and_then(Value::as_str).map(str::to_owned);
                break;
            }
            Some("thinking" | "redacted_thinking") => thinking += 1,
            _ => {}
        }
    }
    answer.thinking_blocks = thinking;
    match stop.as_deref() {
        Some("refusal") => {
            let details = body.get("stop_details");
            let category = details
                .and_then(|d| d.get("category"))
                .and_then(Value::as_str)
                .unwrap_or("unspecified");
            answer.failure = Some(failure(
                "refusal",
                format!("the model refused (category: {category})"),
            ));
        }
        Some("max_tokens" | "model_context_window_exceeded") => {
            answer.failure = Some(failure(
                "truncated",
                format!(
                    "the answer was cut off (stop_reason {}; {thinking} thinking block(s))",
                    stop.as_deref().unwrap_or("")
                ),
            ));
        }
        _ => {}
    }
    answer.stop_reason = stop;
}

fn decode_openai(body: &Value, answer: &mut ProviderAnswer) {
    if let Some(u) = body.get("usage") {
        let cached = u
            .get("prompt_tokens_details")
            .map_or(0, |d| n(d, "cached_tokens"));
        answer.usage = Usage {
            input_tokens: n(u, "prompt_tokens").saturating_sub(cached),
            output_tokens: n(u, "completion_tokens"),
            cache_read_input_tokens: cached,
            ..Usage::default()
        };
    }
    let choice = body.get("choices").and_then(|c| c.get(0));
    let message = choice.and_then(|c| c.get("message"));
    let finish = choice
        .and_then(|c| c.get("finish_reason"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(refusal) = message
        .and_then(|m| m.get("refusal"))
        .and_then(Value::as_str)
    {
        answer.failure = Some(failure("refusal", format!("the model refused: {refusal}")));
    } else if finish.as_deref() == Some("length") {
        answer.failure = Some(failure(
            "truncated",
            "the answer was cut off (finish_reason length)",
        ));
    } else if finish.as_deref() == Some("content_filter") {
        answer.failure = Some(failure(
            "refusal",
            "the answer was withheld by a content filter",
        ));
    }
    answer.text = message
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    answer.stop_reason = finish;
}

fn decode_ollama(body: &Value, answer: &mut ProviderAnswer) {
    answer.usage = Usage {
        input_tokens: n(body, "prompt_eval_count"),
        output_tokens: n(body, "eval_count"),
        ..Usage::default()
    };
    let done = body
        .get("done_reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if done.as_deref() == Some("length") {
        answer.failure = Some(failure(
            "truncated",
            "the answer was cut off (done_reason length)",
        ));
    }
    answer.text = body
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    answer.stop_reason = done;
}

/// A streamed (NDJSON) body: the last line is the final object. Content is concatenated.
fn last_ndjson(body: &str) -> Option<Value> {
    let objects: Vec<Value> = body
        .lines()
        .filter_map(|l| serde_json::from_str(l.trim()).ok())
        .collect();
    let mut last = objects.last()?.clone();
    let content: String = objects
        .iter()
        .filter_map(|o| o.get("message")?.get("content")?.as_str())
        .collect();
    if let Some(message) = last.get_mut("message") {
        set(message, "content", Value::String(content));
    }
    Some(last)
}

fn http_failure(status: u16, body: Option<&Value>, raw: &str) -> ProviderFailure {
    // Anthropic: {type:"error", error:{type, message}}; OpenAI-style: {error:{message, type}};
    // Ollama: {error:"…"}; vLLM and others: {message} or {detail}
    let error = body.and_then(|b| b.get("error"));
    let error_type = error
        .and_then(|e| e.get("type"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let message = error
        .and_then(|e| {
            e.get("message")
                .and_then(Value::as_str)
                .or_else(|| e.as_str())
        })
        .or_else(|| {
            body.and_then(|b| b.get("message").or_else(|| b.get("detail")))
                .and_then(Value::as_str)
        })
        .map_or_else(|| raw.chars().take(200).collect::<String>(), str::to_owned);
    let lower = message.to_ascii_lowercase();
    let schema_rejected = status == 400
        && [
            "output_config",
            "output_format",
            "json_schema",
            "response_format",
            "structured output",
            "format",
        ]
        .iter()
        .any(|k| lower.contains(k));
    ProviderFailure {
        code: "http_error".to_owned(),
        message: format!(
            "HTTP {status}{}: {message}",
            error_type
                .as_deref()
                .map(|t| format!(" {t}"))
                .unwrap_or_default()
        ),
        error_type,
        schema_rejected,
    }
}
