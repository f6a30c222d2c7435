//! The side query on the wire, for each provider: the exact request to send (shaped per
//! model), the decoding of whatever comes back, and whether and when to retry. The JS layer
//! only performs the `fetch` these describe.

mod request;
mod response;
mod retry;
mod scrub;

pub use request::{build_provider_request, HttpRequest, ProviderRequestInput};
pub use response::{
    decode_provider_response, ProviderAnswer, ProviderFailure, ProviderResponseInput,
};
pub use retry::{retry_decision, RetryDecision, RetryInput};

use serde::{Deserialize, Serialize};

/// The model APIs memdir speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ProviderName"))]
pub enum Provider {
    /// Anthropic's Messages API (the default).
    Anthropic,
    /// OpenAI Chat Completions, and servers that speak it (vLLM, llama.cpp, LM Studio, Ollama's `/v1`).
    Openai,
    /// Ollama's native `/api/chat`.
    Ollama,
}

/// The default model of each provider.
pub fn default_model(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "claude-sonnet-5-5",
        Provider::Openai => "gpt-4o-mini",
        Provider::Ollama => "qwen3:8b",
    }
}

/// The default base URL of each provider.
pub fn default_base_url(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "https://api.anthropic.com",
        Provider::Openai => "https://api.openai.com/v1",
        Provider::Ollama => "http://localhost:11434",
    }
}

/// The side query's own defaults, when the caller gives none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SelectorDefaults {
    /// Deadline of the whole side query, retries included.
    pub timeout_ms: u32,
    /// Retries after the first attempt (the SDKs' default).
    pub max_retries: u32,
    /// A provider's answer is read no further than this: a 256-token answer is small, and a
    /// server that streams without end must not cost more.
    pub max_response_bytes: u32,
}

pub const SELECTOR_DEFAULTS: SelectorDefaults = SelectorDefaults {
    timeout_ms: 10_000,
    max_retries: 2,
    max_response_bytes: 1 << 20,
};

/// Which keys the environment has, for [`default_selector`].
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SelectorEnv {
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub anthropic_key: bool,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub openai_key: bool,
}

/// The selector to use when none is configured, and why, in words for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DefaultSelector {
    /// `anthropic`, `openai` or `lexical`.
    pub provider: String,
    pub reason: String,
}

/// Anthropic when its key is set, else OpenAI when its key is, else the offline selector.
pub fn default_selector(env: &SelectorEnv) -> DefaultSelector {
    let (provider, reason) = if env.anthropic_key {
        ("anthropic", "ANTHROPIC_API_KEY is set")
    } else if env.openai_key {
        ("openai", "OPENAI_API_KEY is set (ANTHROPIC_API_KEY is not)")
    } else {
        (
            "lexical",
            "no model key is set: the offline lexical selector chose; set ANTHROPIC_API_KEY (or OPENAI_API_KEY) for model selection",
        )
    };
    DefaultSelector {
        provider: provider.to_owned(),
        reason: reason.to_owned(),
    }
}

/// Sets `key` on a JSON object (no-op on anything else: never panics).
pub(crate) fn set(target: &mut serde_json::Value, key: &str, value: serde_json::Value) {
    if let serde_json::Value::Object(map) = target {
        map.insert(key.to_owned(), value);
    }
}
