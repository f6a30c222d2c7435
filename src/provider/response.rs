//! Decoding a provider's HTTP response: the first text block after any thinking blocks, the
//! stop reason, a refusal, usage, and the error envelope — into one shape for every provider.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::scrub::{scrub, scrub_message};
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
    /// The request's credentials (`HttpRequest.secrets`): hidden in every failure message, so a
    /// body that echoes the request never carries a key into an error.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub secrets: Vec<String>,
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
    let ok = (200..300).contains(&input.status);
    // an error body loses the request's credentials before it is read: a cut below never
    // leaves part of one
    let scrubbed;
    let raw = if ok {
        &input.body
    } else {
        scrubbed = scrub(&input.body, &input.secrets);
        &scrubbed
    };
    let parsed: Option<Value> = serde_json::from_str(raw).ok().or_else(|| last_ndjson(raw));
    if !ok {
        answer.failure = Some(http_failure(input.status, parsed.as_ref(), raw));
        answer.failure = answer.failure.map(|f| hidden(f, &input.secrets));
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
    answer.failure = answer.failure.map(|f| hidden(f, &input.secrets));
    answer
}

/// A failure with the request's credentials, and any long piece of one, hidden.
fn hidden(mut failure: ProviderFailure, secrets: &[String]) -> ProviderFailure {
    if !secrets.is_empty() {
        failure.message = scrub_message(&failure.message, secrets);
        failure.error_type = failure.error_type.map(|t| scrub_message(&t, secrets));
    }
    failure
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

/// How much of a body that is no error envelope a message quotes.
const RAW_BODY_CHARS: usize = 200;
/// How much of a provider's error message a failure quotes: a sentence or two is what they
/// send; a proxy may send a page.
const MESSAGE_CHARS: usize = 500;

fn cut_message(message: &str) -> String {
    match message.char_indices().nth(MESSAGE_CHARS) {
        Some((at, _)) => format!("{}…", message.get(..at).unwrap_or("")),
        None => message.to_owned(),
    }
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
        .map_or_else(
            || raw.chars().take(RAW_BODY_CHARS).collect::<String>(),
            cut_message,
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::scrub::request_secrets;
    use std::collections::BTreeMap;

    const KEY: &str = "sk-ant-api03-Zq8xW2rT9vLmN4pK\"/x";

    fn decode(status: u16, body: &str, secrets: &[String]) -> ProviderFailure {
        let input = ProviderResponseInput {
            provider: Provider::Anthropic,
            status,
            body: body.to_owned(),
            secrets: secrets.to_vec(),
        };
        decode_provider_response(&input)
            .failure
            .unwrap_or_else(|| failure("none", ""))
    }

    #[test]
    fn a_body_that_echoes_the_request_carries_no_credential_into_the_failure() {
        let headers = BTreeMap::from([
            ("x-api-key".to_owned(), KEY.to_owned()),
            ("authorization".to_owned(), format!("Bearer {KEY}")),
            ("content-type".to_owned(), "application/json".to_owned()),
        ]);
        let secrets = request_secrets(
            "http://127.0.0.1:9/v1?key=q-secret-42/v1/messages",
            &headers,
        );
        let dump = serde_json::to_string(&headers).unwrap_or_default();
        let bodies = [
            // an envelope whose message quotes the key, the header and the URL
            serde_json::json!({"type": "error", "error": {"type": "authentication_error", "message": format!("invalid x-api-key {KEY}; Authorization: Bearer {KEY}; url /v1?key=q-secret-42")}}).to_string(),
            // the headers as JSON inside the message (the key JSON-escaped there)
            serde_json::json!({"error": format!("headers: {dump}")}).to_string(),
            // a proxy's page: the headers JSON-escaped and URL-encoded, and cut at 200 characters inside the key
            format!("<html>{}{dump} {}</html>", ".".repeat(200 - 6 - 30), KEY.replace('/', "%2F")),
            format!("{}{KEY}", ".".repeat(190)),
            // the error type itself
            serde_json::json!({"error": {"type": KEY, "message": "no"}}).to_string(),
        ];
        for body in bodies {
            for status in [401, 500] {
                let f = decode(status, &body, &secrets);
                assert_eq!(f.code, "http_error");
                for piece in [
                    KEY,
                    "Zq8xW2rT",
                    "W2rT9vLm",
                    "q-secret-42",
                    "sk-ant-api03-Zq8x",
                ] {
                    assert!(!f.message.contains(piece), "{piece} in {}", f.message);
                    assert!(!f.error_type.clone().unwrap_or_default().contains(piece));
                }
                assert!(f.message.contains("[redacted]"), "{}", f.message);
            }
        }
        // without secrets (a caller that gives none) the message is as before
        assert_eq!(
            decode(
                401,
                r#"{"error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
                &[]
            )
            .message,
            "HTTP 401 authentication_error: invalid x-api-key"
        );
    }

    #[test]
    fn a_refusal_at_http_200_is_scrubbed_too_and_a_long_message_is_cut() {
        let secrets = request_secrets(
            "http://h/v1/chat/completions",
            &BTreeMap::from([("authorization".to_owned(), format!("Bearer {KEY}"))]),
        );
        let body = serde_json::json!({"choices": [{"message": {"refusal": format!("not with {KEY}"), "content": null}, "finish_reason": "stop"}]}).to_string();
        let input = ProviderResponseInput {
            provider: Provider::Openai,
            status: 200,
            body,
            secrets,
        };
        let f = decode_provider_response(&input)
            .failure
            .unwrap_or_else(|| failure("none", ""));
        assert_eq!(f.message, "the model refused: not with [redacted]");
        let long = serde_json::json!({"error": {"message": "é".repeat(600)}}).to_string();
        assert_eq!(
            decode(500, &long, &[]).message,
            format!("HTTP 500: {}…", "é".repeat(500))
        );
    }
}
