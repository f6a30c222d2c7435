//! Cost of a side query from the provider's usage fields and a price table of current
//! Anthropic models (USD per million tokens, `docs/providers.md` §1.8).

use serde::{Deserialize, Serialize};

/// Token counts of one call. Anthropic's fields, in camelCase; other providers map onto them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct Usage {
    /// Uncached input tokens (after the last cache breakpoint).
    pub input_tokens: u64,
    /// Output tokens, thinking included.
    pub output_tokens: u64,
    /// Tokens written to the cache (all of them, whatever the TTL).
    pub cache_creation_input_tokens: u64,
    /// Tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Of the cache writes, those with the 1-hour TTL (billed at the 1h rate; the rest at 5m).
    pub cache_creation_1h_input_tokens: u64,
}

/// Input to [`estimate_cost`].
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct CostInput {
    pub model: String,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Usage>", optional))]
    pub usage: Usage,
}

/// The cost, `usd: null` for a model not in the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Cost {
    pub usd: Option<f64>,
    /// The price-table row used (the model id without a date suffix), when known.
    pub priced_as: Option<String>,
}

/// Prices in picodollars per token (= USD per million tokens × 10^6), so every sum is exact.
#[derive(Debug, Clone, Copy)]
struct Prices {
    input: u64,
    output: u64,
    write_5m: u64,
    write_1h: u64,
    read: u64,
}

const fn p(input: u64, output: u64, write_5m: u64, write_1h: u64, read: u64) -> Prices {
    Prices {
        input,
        output,
        write_5m,
        write_1h,
        read,
    }
}

const TABLE: &[(&str, Prices)] = &[
    (
        "claude-sonnet-5-5",
        p(2_000_000, 10_000_000, 2_500_000, 4_000_000, 100_000),
    ),
    (
        "claude-sonnet-5",
        p(2_000_000, 10_000_000, 2_500_000, 4_000_000, 200_000),
    ),
    (
        "claude-sonnet-4-6",
        p(3_000_000, 15_000_000, 3_750_000, 6_000_000, 300_000),
    ),
    (
        "claude-sonnet-4-5",
        p(3_000_000, 15_000_000, 3_750_000, 6_000_000, 300_000),
    ),
    (
        "claude-haiku-5-5",
        p(100_000, 500_000, 125_000, 200_000, 10_000),
    ),
    (
        "claude-haiku-4-5",
        p(1_000_000, 5_000_000, 1_250_000, 2_000_000, 100_000),
    ),
];
/// Haiku 5.5 bills every token of a request whose prompt is over 100k tokens at this band.
const HAIKU_5_5_LONG: Prices = p(500_000, 2_500_000, 625_000, 1_000_000, 50_000);
const LONG_PROMPT_TOKENS: u64 = 100_000;

/// `claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`.
fn strip_date(model: &str) -> &str {
    match model.rsplit_once('-') {
        Some((head, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => model,
    }
}

/// Cost in USD of one call.
pub fn estimate_cost(input: &CostInput) -> Cost {
    let id = strip_date(input.model.trim());
    let Some((row, base)) = TABLE.iter().find(|(name, _)| *name == id).copied() else {
        return Cost {
            usd: None,
            priced_as: None,
        };
    };
    let u = input.usage;
    let prompt = u
        .input_tokens
        .saturating_add(u.cache_read_input_tokens)
        .saturating_add(u.cache_creation_input_tokens);
    let prices = if row == "claude-haiku-5-5" && prompt > LONG_PROMPT_TOKENS {
        HAIKU_5_5_LONG
    } else {
        base
    };
    let write_1h = u
        .cache_creation_1h_input_tokens
        .min(u.cache_creation_input_tokens);
    let write_5m = u.cache_creation_input_tokens - write_1h;
    let pico: u128 = [
        (u.input_tokens, prices.input),
        (u.output_tokens, prices.output),
        (write_5m, prices.write_5m),
        (write_1h, prices.write_1h),
        (u.cache_read_input_tokens, prices.read),
    ]
    .iter()
    .map(|&(tokens, price)| u128::from(tokens) * u128::from(price))
    .sum();
    // picodollars → dollars; u128 → f64 rounds once
    #[allow(clippy::cast_precision_loss)]
    let usd = pico as f64 / 1e12;
    Cost {
        usd: Some(usd),
        priced_as: Some(row.to_owned()),
    }
}
