//! Building the HTTP request of the side query.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{default_base_url, default_model, set, Provider};
use crate::side_query::request::SelectionRequest;

/// What to build a request from.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ProviderRequestInput {
    pub provider: Provider,
    /// The output of `buildSelectionRequest` (must not be a skip).
    pub request: SelectionRequest,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub api_key: Option<String>,
    /// Running in a browser: Anthropic then needs its direct-browser-access header.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub browser: bool,
    /// Ask for schema-constrained output (default). `false` is the prompt-only fallback for
    /// a model or server that rejects the schema parameter.
    #[serde(default = "yes")]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub structured: bool,
    /// Put the instructions and the manifest in cacheable system blocks ahead of the query
    /// (Anthropic; default on).
    #[serde(default = "yes")]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub cache: bool,
}

fn yes() -> bool {
    true
}

/// A request for `fetch`: `POST url` with these headers and this JSON body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HttpRequest {
    pub url: String,
    pub headers: BTreeMap<String, String>,
    pub body: String,
    /// The model id sent.
    pub model: String,
}

/// How each Anthropic model must be asked so that 256 tokens are not spent thinking, and no
/// parameter it rejects is sent (`reference/wire.md` §1.2). No sampling parameters, ever.
struct AnthropicShape {
    thinking: Option<&'static str>,
    effort: bool,
}

fn anthropic_shape(model: &str) -> AnthropicShape {
    let id = model.trim();
    let is = |prefix: &str| id == prefix || id.starts_with(&format!("{prefix}-"));
    if is("claude-sonnet-5-5") {
        AnthropicShape {
            thinking: Some("between_tools"),
            effort: true,
        }
    } else if is("claude-haiku-5-5")
        || (is("claude-sonnet-5") && !id.starts_with("claude-sonnet-5-"))
    {
        AnthropicShape {
            thinking: Some("disabled"),
            effort: true,
        }
    } else if is("claude-sonnet-4-6")
        || is("claude-opus-4-5")
        || is("claude-opus-4-6")
        || is("claude-opus-5")
    {
        // effort on Opus ≥ 4.5 (Opus 5 and 5.5 included); their thinking defaults are not documented
        AnthropicShape {
            thinking: None,
            effort: true,
        }
    } else {
        // Sonnet 4.5, Haiku 4.5 and models we do not know: neither field
        AnthropicShape {
            thinking: None,
            effort: false,
        }
    }
}

fn openai_reasoning(model: &str) -> bool {
    ["o1", "o3", "o4", "gpt-5"]
        .iter()
        .any(|p| model.starts_with(p))
}

/// Builds the request for one provider.
pub fn build_provider_request(input: &ProviderRequestInput) -> HttpRequest {
    // trimmed: a model id pasted from an environment variable often ends in a newline
    let model = input
        .model
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .unwrap_or(default_model(input.provider))
        .to_owned();
    let base = input
        .base_url
        .as_deref()
        .filter(|b| !b.is_empty())
        .unwrap_or(default_base_url(input.provider))
        .trim_end_matches('/');
    let r = &input.request;
    let mut headers = BTreeMap::new();
    headers.insert("content-type".to_owned(), "application/json".to_owned());
    let key = input.api_key.as_deref().filter(|k| !k.is_empty());
    let (url, body) = match input.provider {
        Provider::Anthropic => {
            headers.insert("anthropic-version".to_owned(), "2023-06-01".to_owned());
            if let Some(key) = key {
                headers.insert("x-api-key".to_owned(), key.to_owned());
            }
            if input.browser {
                headers.insert(
                    "anthropic-dangerous-direct-browser-access".to_owned(),
                    "true".to_owned(),
                );
            }
            let shape = anthropic_shape(&model);
            let (system, user) = if input.cache {
                let manifest = format!("Available memories:\n{}", r.manifest);
                (
                    json!([{"type": "text", "text": r.system},
                           {"type": "text", "text": manifest, "cache_control": {"type": "ephemeral"}}]),
                    r.query_message.clone(),
                )
            } else {
                (json!(r.system), r.user.clone())
            };
            let mut body = json!({
                "model": model,
                "max_tokens": r.max_tokens,
                "system": system,
                "messages": [{"role": "user", "content": user}],
            });
            if let Some(kind) = shape.thinking {
                set(&mut body, "thinking", json!({"type": kind}));
            }
            let mut output = serde_json::Map::new();
            if shape.effort {
                output.insert("effort".to_owned(), json!("low"));
            }
            if input.structured {
                output.insert(
                    "format".to_owned(),
                    json!({"type": "json_schema", "schema": r.schema}),
                );
            }
            if !output.is_empty() {
                set(&mut body, "output_config", Value::Object(output));
            }
            (format!("{base}/v1/messages"), body)
        }
        Provider::Openai => {
            if let Some(key) = key {
                headers.insert("authorization".to_owned(), format!("Bearer {key}"));
            }
            let official = base.contains("api.openai.com");
            let reasoning = openai_reasoning(&model);
            let mut body = json!({
                "model": model,
                "messages": [{"role": "system", "content": r.system}, {"role": "user", "content": r.user}],
            });
            if official {
                set(&mut body, "max_completion_tokens", json!(r.max_tokens));
            } else {
                // Ollama's /v1, vLLM, llama.cpp and LM Studio read max_tokens
                set(&mut body, "max_tokens", json!(r.max_tokens));
            }
            if reasoning {
                set(&mut body, "reasoning_effort", json!("low"));
            } else {
                set(&mut body, "temperature", json!(0));
            }
            if input.structured {
                let format = json!({"type": "json_schema",
                    "json_schema": {"name": "memory_selection", "strict": true, "schema": r.schema}});
                set(&mut body, "response_format", format);
            }
            (format!("{base}/chat/completions"), body)
        }
        Provider::Ollama => {
            let mut body = json!({
                "model": model,
                "stream": false,
                "think": false,
                "messages": [{"role": "system", "content": r.system}, {"role": "user", "content": r.user}],
                "options": {"temperature": 0, "num_predict": r.max_tokens},
            });
            set(
                &mut body,
                "format",
                if input.structured {
                    r.schema.clone()
                } else {
                    json!("json")
                },
            );
            (format!("{base}/api/chat"), body)
        }
    };
    HttpRequest {
        url,
        headers,
        body: body.to_string(),
        model,
    }
}
