//! Building the HTTP request of the side query.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::scrub::request_secrets;
use super::{default_base_url, default_model, Provider};
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
    /// The credentials this request carries (its key headers' values, its URL's user, password
    /// and query values), in every form an error body may echo them, each once: give them
    /// back to `decodeProviderResponse`, and hide them in any other message about the request.
    pub secrets: Vec<String>,
}

/// How each Anthropic model must be asked so that 256 tokens are not spent thinking, and no
/// parameter it rejects is sent (`docs/providers.md` §1.2). No sampling parameters, ever.
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
            let manifest;
            let (system, user) = if input.cache {
                manifest = format!("Available memories:\n{}", r.manifest);
                let blocks = [
                    Text {
                        kind: "text",
                        text: &r.system,
                        cache_control: None,
                    },
                    Text {
                        kind: "text",
                        text: &manifest,
                        cache_control: Some(Kind { kind: "ephemeral" }),
                    },
                ];
                (System::Blocks(blocks), r.query_message.as_str())
            } else {
                (System::Plain(&r.system), r.user.as_str())
            };
            let output = OutputConfig {
                effort: shape.effort.then_some("low"),
                format: input.structured.then_some(AnthropicFormat {
                    kind: "json_schema",
                    schema: &r.schema,
                }),
            };
            let body = AnthropicBody {
                model: &model,
                max_tokens: r.max_tokens,
                system,
                messages: [Message {
                    role: "user",
                    content: user,
                }],
                thinking: shape.thinking.map(|kind| Kind { kind }),
                output_config: (output.effort.is_some() || output.format.is_some())
                    .then_some(output),
            };
            (format!("{base}/v1/messages"), to_json(&body))
        }
        Provider::Openai => {
            if let Some(key) = key {
                headers.insert("authorization".to_owned(), format!("Bearer {key}"));
            }
            let official = base.contains("api.openai.com");
            let reasoning = openai_reasoning(&model);
            let body = OpenaiBody {
                model: &model,
                messages: system_and_user(&r.system, &r.user),
                // Ollama's /v1, vLLM, llama.cpp and LM Studio read max_tokens
                max_completion_tokens: official.then_some(r.max_tokens),
                max_tokens: (!official).then_some(r.max_tokens),
                reasoning_effort: reasoning.then_some("low"),
                temperature: (!reasoning).then_some(0),
                response_format: input.structured.then_some(OpenaiFormat {
                    kind: "json_schema",
                    json_schema: JsonSchema {
                        name: "memory_selection",
                        strict: true,
                        schema: &r.schema,
                    },
                }),
            };
            (format!("{base}/chat/completions"), to_json(&body))
        }
        Provider::Ollama => {
            let body = OllamaBody {
                model: &model,
                stream: false,
                think: false,
                messages: system_and_user(&r.system, &r.user),
                options: OllamaOptions {
                    temperature: 0,
                    num_predict: r.max_tokens,
                },
                format: if input.structured {
                    OllamaFormat::Schema(&r.schema)
                } else {
                    OllamaFormat::Json("json")
                },
            };
            (format!("{base}/api/chat"), to_json(&body))
        }
    };
    let secrets = request_secrets(&url, &headers);
    HttpRequest {
        url,
        headers,
        body,
        model,
        secrets,
    }
}

// The request bodies, as structs: serialised by derived code, far smaller in the `.wasm` than
// the same objects built with `serde_json::json!` (and no intermediate `Value`).

#[derive(Serialize)]
struct Kind {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<Kind>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum System<'a> {
    Plain(&'a str),
    Blocks([Text<'a>; 2]),
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: &'a str,
}

/// The side query as chat messages: the instructions, then the query and manifest.
fn system_and_user<'a>(system: &'a str, user: &'a str) -> [Message<'a>; 2] {
    [
        Message {
            role: "system",
            content: system,
        },
        Message {
            role: "user",
            content: user,
        },
    ]
}

#[derive(Serialize)]
struct AnthropicFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    schema: &'a Value,
}

#[derive(Serialize)]
struct OutputConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<AnthropicFormat<'a>>,
}

#[derive(Serialize)]
struct AnthropicBody<'a> {
    model: &'a str,
    max_tokens: u32,
    system: System<'a>,
    messages: [Message<'a>; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Kind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<OutputConfig<'a>>,
}

#[derive(Serialize)]
struct JsonSchema<'a> {
    name: &'static str,
    strict: bool,
    schema: &'a Value,
}

#[derive(Serialize)]
struct OpenaiFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    json_schema: JsonSchema<'a>,
}

#[derive(Serialize)]
struct OpenaiBody<'a> {
    model: &'a str,
    messages: [Message<'a>; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<OpenaiFormat<'a>>,
}

#[derive(Serialize)]
struct OllamaOptions {
    temperature: u32,
    num_predict: u32,
}

#[derive(Serialize)]
#[serde(untagged)]
enum OllamaFormat<'a> {
    Schema(&'a Value),
    Json(&'static str),
}

#[derive(Serialize)]
struct OllamaBody<'a> {
    model: &'a str,
    stream: bool,
    think: bool,
    messages: [Message<'a>; 2],
    options: OllamaOptions,
    format: OllamaFormat<'a>,
}

/// A body as JSON text (serialising these structs cannot fail: no maps with non-string keys).
fn to_json<T: Serialize>(body: &T) -> String {
    serde_json::to_string(body).unwrap_or_default()
}
