//! The bounds of what a person may ask quorum to spend and what a price
//! may be: read wherever a limit or a price is written (flags, a spec,
//! the configuration), so every command quorum prints stays one it takes.

use serde::{Deserialize, Serialize};

use crate::text::thousands;

/// What a model costs, in US dollars per million tokens, as configured
/// (within [`MAX_PRICE_USD_PER_MILLION_TOKENS`]). What a call cost at it
/// is the protocol's arithmetic (`protocol::usage`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// USD per million input (prompt) tokens.
    pub input: f64,
    /// USD per million output (answer) tokens.
    pub output: f64,
}

/// The largest money limit quorum takes, in US dollars: far above any
/// debate's spend, and small enough that every sum of it prints as a
/// figure `--budget` reads back.
pub const MAX_BUDGET_USD: f64 = 1_000_000.0;

/// The largest token limit quorum takes: a trillion tokens.
pub const MAX_BUDGET_TOKENS: u64 = 1_000_000_000_000;

/// The largest price quorum takes, in US dollars per million tokens
/// (input or output): a hundred times today's dearest model.
pub const MAX_PRICE_USD_PER_MILLION_TOKENS: f64 = 100_000.0;

/// Why `usd` cannot be a money limit, if it cannot.
pub fn usd_refusal(usd: f64) -> Option<String> {
    if !(usd.is_finite() && usd > 0.0) {
        Some("a money limit is US dollars more than zero".to_string())
    } else if usd > MAX_BUDGET_USD {
        Some(format!(
            "a money limit is at most {} US dollars",
            thousands(MAX_BUDGET_USD as u64)
        ))
    } else {
        None
    }
}

/// Why `tokens` cannot be a token limit, if it cannot.
pub fn tokens_refusal(tokens: u64) -> Option<String> {
    if tokens == 0 {
        Some("a token limit is a number of tokens more than zero".to_string())
    } else if tokens > MAX_BUDGET_TOKENS {
        Some(format!(
            "a token limit is at most {} tokens",
            thousands(MAX_BUDGET_TOKENS)
        ))
    } else {
        None
    }
}

/// Why `usd` cannot be a price per million tokens, if it cannot.
pub fn price_refusal(usd: f64) -> Option<String> {
    if !(usd.is_finite() && usd >= 0.0) {
        Some("a price is US dollars per million tokens, zero or more".to_string())
    } else if usd > MAX_PRICE_USD_PER_MILLION_TOKENS {
        Some(format!(
            "a price is at most {} US dollars per million tokens",
            thousands(MAX_PRICE_USD_PER_MILLION_TOKENS as u64)
        ))
    } else {
        None
    }
}

/// Longest deadline or timeout quorum accepts, in seconds (a year): beyond
/// it a value is a typo, and it would not fit a timer.
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// Whether `value` is a usable number of seconds: positive, finite and at
/// most [`MAX_SECONDS`].
pub fn valid_seconds(value: f64) -> bool {
    value.is_finite() && value > 0.0 && value <= MAX_SECONDS
}

/// How the errors about seconds describe the valid range.
pub const SECONDS_RANGE: &str = "a positive number of seconds, at most a year (31536000)";
