//! When to retry, as the official SDKs do: honour `x-should-retry`; retry connection errors,
//! timeouts, 408, 409, 429 and 5xx (529 included); wait `retry-after-ms`, else `retry-after`
//! (seconds or an HTTP date) when it is a positive delay under a minute, else
//! `min(0.5 s × 2^n, 8 s)` less up to 25 % jitter (the random number is passed in).

use std::collections::BTreeMap;

use chrono::DateTime;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The facts of one failed attempt.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct RetryInput {
    /// HTTP status; 0 for a connection error or a timeout before any response.
    pub status: u16,
    /// Response headers, lower-case names.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<BTreeMap<String, String>>", optional))]
    pub headers: BTreeMap<String, String>,
    /// The response body, to spot quota errors that must not be retried.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
    pub body: String,
    /// Retries already made (0 on the first failure).
    pub attempt: u32,
    #[serde(default = "two")]
    #[cfg_attr(test, ts(as = "Option<u32>", optional))]
    pub max_retries: u32,
    pub now_ms: f64,
    /// A random number in [0, 1) for the jitter.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub jitter: f64,
}

fn two() -> u32 {
    2
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RetryDecision {
    pub retry: bool,
    pub delay_ms: f64,
    /// Why: `x-should-retry`, `status`, `quota`, `not_retryable` or `max_retries`.
    pub reason: String,
}

fn no(reason: &str) -> RetryDecision {
    RetryDecision {
        retry: false,
        delay_ms: 0.0,
        reason: reason.to_owned(),
    }
}

/// Decides whether to retry and after how long.
pub fn retry_decision(input: &RetryInput) -> RetryDecision {
    if input.attempt >= input.max_retries {
        return no("max_retries");
    }
    let header = |name: &str| input.headers.get(name).map(|v| v.trim());
    let reason = match header("x-should-retry") {
        Some("true") => "x-should-retry",
        Some("false") => return no("x-should-retry"),
        // any other value is not an instruction: the status decides
        _ => {
            if is_quota_error(&input.body) {
                return no("quota");
            }
            if !(matches!(input.status, 0 | 408 | 409 | 429) || input.status >= 500) {
                return no("not_retryable");
            }
            "status"
        }
    };
    // As the SDK: a `retry-after-ms` of 0 (or not a number) counts as absent, so `retry-after`
    // is read; a hint that is not a positive delay under a minute gives the backoff instead.
    let hinted = header("retry-after-ms")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|ms| !ms.is_nan() && *ms != 0.0)
        .or_else(|| {
            let v = header("retry-after")?;
            v.parse::<f64>().ok().map(|s| s * 1000.0).or_else(|| {
                DateTime::parse_from_rfc2822(v)
                    .ok()
                    .map(|d| d.timestamp_millis() as f64 - input.now_ms)
            })
        })
        .filter(|ms| ms.is_finite() && *ms > 0.0 && *ms < 60_000.0);
    let delay_ms = hinted.unwrap_or_else(|| {
        let base = (500.0 * 2f64.powi(i32::try_from(input.attempt).unwrap_or(30))).min(8_000.0);
        base * (1.0 - input.jitter.clamp(0.0, 1.0) * 0.25)
    });
    RetryDecision {
        retry: true,
        delay_ms,
        reason: reason.to_owned(),
    }
}

/// A spend cap or exhausted quota: retrying cannot help.
fn is_quota_error(body: &str) -> bool {
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return false;
    };
    let error = v.get("error");
    let code = error
        .and_then(|e| e.get("details"))
        .and_then(|d| d.get("error_code"))
        .and_then(Value::as_str);
    let openai_code = error.and_then(|e| e.get("code")).and_then(Value::as_str);
    code == Some("enforced_spend_limit_reached") || openai_code == Some("insufficient_quota")
}
