//! The side query on the wire, for each provider: the exact request to send (shaped per
//! model), the decoding of whatever comes back, and whether and when to retry. The JS layer
//! only performs the `fetch` these describe.

mod request;
mod response;
mod retry;

pub use request::{build_provider_request, HttpRequest, ProviderRequestInput};
pub use response::{
    decode_provider_response, ProviderAnswer, ProviderFailure, ProviderResponseInput,
};
pub use retry::{retry_decision, RetryDecision, RetryInput};

use serde::{Deserialize, Serialize};

/// The model APIs memdir speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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

/// Sets `key` on a JSON object (no-op on anything else: never panics).
pub(crate) fn set(target: &mut serde_json::Value, key: &str, value: serde_json::Value) {
    if let serde_json::Value::Object(map) = target {
        map.insert(key.to_owned(), value);
    }
}
