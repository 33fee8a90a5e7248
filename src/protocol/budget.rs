//! The arithmetic of a spending limit: what a debate has spent, what the
//! step it is about to take will cost, and whether that crosses the limit.
//!
//! A limit is money (US dollars at the configured prices), tokens (input and
//! output together), or both. A step's forecast is made from what is known
//! before it runs: each call's prompt, which quorum is about to send (a
//! token per [`CHARS_PER_TOKEN`] characters), and the answers so far (the
//! mean output of the same role's earlier calls, else of every earlier
//! call, else [`FIRST_ANSWER_TOKENS`]).
//!
//! Not responsible for stopping anything (the engine holds a step that
//! would cross the limit and asks) or for measuring (the usage ledger).

use serde::{Deserialize, Serialize};

use super::usage::{Price, TOKENS_PER_PRICE_UNIT, UsageLedger};
use crate::text::thousands;

/// Characters per token in a forecast, as in quorum's own usage estimates.
pub const CHARS_PER_TOKEN: u64 = 4;

/// Output tokens forecast for a call when no answer has come in yet: about
/// a page of markdown.
pub const FIRST_ANSWER_TOKENS: u64 = 1_000;

pub use crate::config::limits::{
    MAX_BUDGET_TOKENS, MAX_BUDGET_USD, MAX_PRICE_USD_PER_MILLION_TOKENS, price_refusal,
    tokens_refusal, usd_refusal,
};

/// A spending limit; a part that is `None` is not limited.
#[serde_with::skip_serializing_none]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// US dollars, at the configured prices.
    pub usd: Option<f64>,
    /// Input and output tokens together.
    pub tokens: Option<u64>,
}

impl Budget {
    pub fn is_set(&self) -> bool {
        self.usd.is_some() || self.tokens.is_some()
    }

    /// This limit with the parts `over` sets replaced.
    pub fn overridden_by(self, over: Budget) -> Budget {
        Budget {
            usd: over.usd.or(self.usd),
            tokens: over.tokens.or(self.tokens),
        }
    }

    /// The parts of this limit that `committed` would cross.
    pub fn crossed_by(&self, committed: Spend) -> Vec<Crossing> {
        let mut crossed = Vec::new();
        if let Some(limit) = self.usd
            && committed.usd > limit
        {
            crossed.push(Crossing::Usd);
        }
        if let Some(limit) = self.tokens
            && committed.tokens > limit
        {
            crossed.push(Crossing::Tokens);
        }
        crossed
    }

    /// Reads a limit as a person writes it: `$5`, `2.50`, `300,000 tokens`,
    /// `300k tokens`, or a money and a token limit joined by `and`.
    pub fn parse(text: &str) -> Result<Budget, String> {
        let mut budget = Budget::default();
        for part in text
            .split(" and ")
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            let lower = part.to_lowercase();
            let count = ["tokens", "token", "tok"]
                .iter()
                .find_map(|unit| lower.strip_suffix(unit));
            match count {
                Some(count) => budget.tokens = Some(parse_tokens(count.trim())?),
                // Not a token limit: a money limit, or neither.
                None => {
                    let usd = parse_usd(part).map_err(|_| {
                        format!(
                            "`{part}` is not a budget: write a money limit ($2.50), a token \
                             limit (300k tokens), or both joined by `and`"
                        )
                    })?;
                    budget.usd = Some(usd);
                }
            }
        }
        Ok(budget)
    }

    /// The limit as a person reads it: `$2.50`, `200,000 tokens`, or both.
    pub fn describe(&self) -> String {
        match (self.usd, self.tokens) {
            (Some(usd), Some(tokens)) => format!("{} and {}", usd_text(usd), tokens_text(tokens)),
            (Some(usd), None) => usd_text(usd),
            (None, Some(tokens)) => tokens_text(tokens),
            (None, None) => "no limit".to_string(),
        }
    }
}

/// Which part of a limit is crossed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Crossing {
    Usd,
    Tokens,
}

/// Money and tokens: spent so far, or forecast for a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    pub usd: f64,
    pub tokens: u64,
}

impl std::ops::Add for Spend {
    type Output = Spend;

    fn add(self, other: Spend) -> Spend {
        Spend {
            usd: self.usd + other.usd,
            tokens: self.tokens.saturating_add(other.tokens),
        }
    }
}

impl Spend {
    /// What the ledger's calls cost: every token counted, and the money of
    /// the calls with a price.
    pub fn of(ledger: &UsageLedger) -> Spend {
        let total = ledger.total();
        Spend {
            usd: total.cost_usd.unwrap_or(0.0),
            tokens: total.input_tokens.saturating_add(total.output_tokens),
        }
    }

    /// `$0.42 · 12,300 tokens`, or only the tokens when no money was counted.
    pub fn describe(&self, priced: bool) -> String {
        self.describe_against(priced, None)
    }

    /// As [`describe`](Self::describe), its money told apart from a money
    /// `limit` it is close to (see [`usd_against`]).
    pub fn describe_against(&self, priced: bool, limit: Option<f64>) -> String {
        let usd = match limit {
            Some(limit) => usd_against(self.usd, limit),
            None => usd_text(self.usd),
        };
        match priced {
            true => format!("{usd} · {}", tokens_text(self.tokens)),
            false => tokens_text(self.tokens),
        }
    }
}

/// One call a step is about to make.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedCall<'a> {
    pub role: &'a str,
    /// `provider:model`, whose price the call is costed at.
    pub agent: &'a str,
    pub prompt_chars: usize,
}

/// What a step is forecast to cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Forecast {
    pub calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The money of the calls with a price.
    pub usd: f64,
    /// Calls whose agent has no configured price, so not in `usd`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unpriced: u32,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

impl Forecast {
    /// The forecast of `calls`, with output sizes from the answers in
    /// `ledger` and prices from its table.
    pub fn of(calls: &[PlannedCall<'_>], ledger: &UsageLedger) -> Forecast {
        Forecast::with_output(calls, ledger, |role| expected_output(role, ledger))
    }

    /// The forecast of `calls` with each call's output tokens from
    /// `output` (by role), and prices from `ledger`'s table: for calls
    /// whose answers are known to be short (`quorum probe`'s one line).
    pub fn with_output(
        calls: &[PlannedCall<'_>],
        ledger: &UsageLedger,
        output: impl Fn(&str) -> u64,
    ) -> Forecast {
        let mut forecast = Forecast::default();
        for call in calls {
            let input = (call.prompt_chars as u64).div_ceil(CHARS_PER_TOKEN);
            let output = output(call.role);
            forecast.calls += 1;
            forecast.input_tokens += input;
            forecast.output_tokens += output;
            match ledger.price_of(call.agent) {
                Some(price) => forecast.usd += cost(price, input, output),
                None => forecast.unpriced += 1,
            }
        }
        forecast
    }

    pub fn spend(&self) -> Spend {
        Spend {
            usd: self.usd,
            tokens: self.input_tokens + self.output_tokens,
        }
    }

    /// `3 calls ≈ $0.04 · 9,800 tokens`.
    pub fn describe(&self, priced: bool) -> String {
        let calls = match self.calls {
            1 => "1 call".to_string(),
            calls => format!("{calls} calls"),
        };
        format!("{calls} ≈ {}", self.spend().describe(priced))
    }
}

fn cost(price: &Price, input_tokens: u64, output_tokens: u64) -> f64 {
    (input_tokens as f64 * price.input + output_tokens as f64 * price.output)
        / TOKENS_PER_PRICE_UNIT
}

/// The output tokens a call of `role` is expected to write: the mean of the
/// role's answers so far, else of every answer so far, else
/// [`FIRST_ANSWER_TOKENS`].
pub fn expected_output(role: &str, ledger: &UsageLedger) -> u64 {
    let mean = |outputs: Vec<u64>| {
        (!outputs.is_empty()).then(|| outputs.iter().sum::<u64>().div_ceil(outputs.len() as u64))
    };
    let answered = |same_role: bool| {
        ledger
            .calls()
            .iter()
            .filter(|call| !same_role || call.role == role)
            .filter_map(|call| call.output_tokens)
            .collect::<Vec<_>>()
    };
    mean(answered(true))
        .or_else(|| mean(answered(false)))
        .unwrap_or(FIRST_ANSWER_TOKENS)
}

/// A money limit: `2.50` or `$2.50`, more than zero.
pub fn parse_usd(text: &str) -> Result<f64, String> {
    let figure = text.trim().trim_start_matches('$').trim();
    let shown = crate::text::clipped(text);
    match figure.parse::<f64>() {
        Ok(usd) => match usd_refusal(usd) {
            None => Ok(usd),
            Some(why) => Err(format!("`{shown}`: {why} (write 2.50 or $2.50)")),
        },
        Err(_) => Err(format!(
            "`{shown}` is not an amount of US dollars (write 2.50 or $2.50)"
        )),
    }
}

/// A token limit: `300000`, `300,000`, `300k` or `1.5M`, more than zero.
pub fn parse_tokens(text: &str) -> Result<u64, String> {
    let digits: String = text
        .trim()
        .chars()
        .filter(|c| *c != ',' && *c != '_')
        .collect();
    let (figure, scale) = match digits.char_indices().last() {
        Some((at, 'k' | 'K')) => (&digits[..at], 1_000.0),
        Some((at, 'm' | 'M')) => (&digits[..at], 1_000_000.0),
        _ => (digits.as_str(), 1.0),
    };
    let shown = crate::text::clipped(text);
    let count = match figure.trim().parse::<f64>() {
        Ok(count) if count.is_finite() => count * scale,
        _ => {
            return Err(format!(
                "`{shown}` is not a number of tokens (write 300000, 300,000 or 300k)"
            ));
        }
    };
    // Compared as a float first: `1e30` would not fit the count.
    let refusal = if count < 1.0 {
        tokens_refusal(0)
    } else if count > MAX_BUDGET_TOKENS as f64 {
        tokens_refusal(MAX_BUDGET_TOKENS + 1)
    } else {
        tokens_refusal(count.round() as u64)
    };
    match refusal {
        None => Ok(count.round() as u64),
        Some(why) => Err(format!("`{shown}`: {why} (write 300000, 300,000 or 300k)")),
    }
}

/// `$2.50`; a figure under a cent keeps four decimals (`$0.0042`).
pub fn usd_text(usd: f64) -> String {
    if usd != 0.0 && usd.abs() < 0.01 {
        format!("${usd:.4}")
    } else {
        format!("${usd:.2}")
    }
}

/// `usd` as [`usd_text`] writes it, with as many more decimals (up to six)
/// as it takes not to read as `limit` when it is not: `$0.0997` spent of
/// a `$0.10` budget, never `$0.10` of `$0.10`.
pub fn usd_against(usd: f64, limit: f64) -> String {
    let shown = usd_text(usd);
    if usd == limit || shown != usd_text(limit) {
        return shown;
    }
    (3..=6)
        .map(|decimals| (format!("${usd:.decimals$}"), format!("${limit:.decimals$}")))
        .find(|(usd, limit)| usd != limit)
        .map_or(shown, |(usd, _)| usd)
}

/// `12,300 tokens`.
pub fn tokens_text(tokens: u64) -> String {
    format!("{} tokens", thousands(tokens))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    /// What was spent never reads as the budget it has not reached.
    #[test]
    fn spent_close_to_the_budget_is_told_apart_from_it() {
        use super::usd_against;
        assert_eq!(usd_against(0.0997, 0.10), "$0.0997");
        assert_eq!(usd_against(0.09997, 0.10), "$0.09997");
        assert_eq!(usd_against(0.0951, 0.10), "$0.095");
        assert_eq!(usd_against(0.42, 2.50), "$0.42");
        assert_eq!(usd_against(0.10, 0.10), "$0.10");
        assert_eq!(usd_against(0.0042, 2.50), "$0.0042");
    }

    use super::*;
    use crate::agent::Usage;
    use crate::protocol::usage::{CallUsage, Measured};

    fn ledger(answers: &[(&str, u64)]) -> UsageLedger {
        let prices = BTreeMap::from([(
            "openai:gpt-4.1".to_string(),
            Price {
                input: 2.0,
                output: 8.0,
            },
        )]);
        let mut ledger = UsageLedger::priced(prices);
        for (index, (role, output)) in answers.iter().enumerate() {
            ledger.record(CallUsage::new(
                &format!("{role}/{index}"),
                role,
                "openai:gpt-4.1",
                Measured {
                    usage: Some(Usage {
                        input_tokens: 1_000,
                        output_tokens: *output,
                    }),
                    ..Measured::default()
                },
                ledger_price(),
            ));
        }
        ledger
    }

    fn ledger_price() -> Option<&'static Price> {
        static PRICE: Price = Price {
            input: 2.0,
            output: 8.0,
        };
        Some(&PRICE)
    }

    fn call<'a>(role: &'a str, agent: &'a str, prompt_chars: usize) -> PlannedCall<'a> {
        PlannedCall {
            role,
            agent,
            prompt_chars,
        }
    }

    #[test]
    fn a_forecast_prices_prompt_sizes_and_the_roles_answers_so_far() {
        // The analyst wrote 400 and 600 tokens (mean 500); the prompt is
        // 8,002 characters: 2,001 tokens (rounded up).
        let ledger = ledger(&[
            ("judge.analyst", 400),
            ("judge.analyst", 600),
            ("critic", 3_000),
        ]);
        let forecast = Forecast::of(&[call("judge.analyst", "openai:gpt-4.1", 8_002)], &ledger);
        assert_eq!(forecast.input_tokens, 2_001);
        assert_eq!(forecast.output_tokens, 500);
        // 2,001 × $2 + 500 × $8 per million = $0.004002 + $0.004 = $0.008002.
        assert!((forecast.usd - 0.008_002).abs() < 1e-12, "{}", forecast.usd);
        assert_eq!(forecast.unpriced, 0);
        assert_eq!(forecast.spend().tokens, 2_501);
    }

    #[test]
    fn a_role_not_yet_heard_is_forecast_from_every_answer_then_from_a_page() {
        let ledger = ledger(&[("critic", 1_200), ("proposer", 2_801)]);
        // Mean over every answer, rounded up: (1,200 + 2,801) / 2 = 2,000.5 → 2,001.
        assert_eq!(expected_output("judge.rigor", &ledger), 2_001);
        assert_eq!(expected_output("critic", &ledger), 1_200);
        assert_eq!(
            expected_output("proposer", &UsageLedger::default()),
            FIRST_ANSWER_TOKENS
        );
    }

    #[test]
    fn an_agent_without_a_price_is_counted_in_tokens_and_named_unpriced() {
        let ledger = ledger(&[]);
        let forecast = Forecast::of(
            &[
                call("proposer", "script:demo", 4_000),
                call("critic", "openai:gpt-4.1", 4_000),
            ],
            &ledger,
        );
        assert_eq!(forecast.calls, 2);
        assert_eq!(forecast.unpriced, 1);
        assert_eq!(forecast.input_tokens, 2_000);
        assert_eq!(forecast.output_tokens, 2 * FIRST_ANSWER_TOKENS);
        // Only the priced call: 1,000 × $2 + 1,000 × $8 per million.
        assert!((forecast.usd - 0.01).abs() < 1e-12);
    }

    #[test]
    fn a_limit_is_crossed_only_by_going_over_it() {
        let budget = Budget {
            usd: Some(1.0),
            tokens: Some(10_000),
        };
        let at = Spend {
            usd: 1.0,
            tokens: 10_000,
        };
        assert!(
            budget.crossed_by(at).is_empty(),
            "reaching a limit is not crossing it"
        );
        let over = Spend {
            usd: 1.01,
            tokens: 10_001,
        };
        assert_eq!(
            budget.crossed_by(over),
            vec![Crossing::Usd, Crossing::Tokens]
        );
        assert!(Budget::default().crossed_by(over).is_empty());
    }

    #[test]
    fn a_raise_replaces_only_the_parts_it_sets() {
        let budget = Budget {
            usd: Some(1.0),
            tokens: Some(10_000),
        };
        let raised = budget.overridden_by(Budget {
            usd: Some(2.5),
            tokens: None,
        });
        assert_eq!(raised.usd, Some(2.5));
        assert_eq!(raised.tokens, Some(10_000));
        assert_eq!(raised.describe(), "$2.50 and 10,000 tokens");
    }

    #[test]
    fn a_limit_reads_as_a_person_writes_it() {
        assert_eq!(
            Budget::parse("$3.00 and 60,000 tokens"),
            Ok(Budget {
                usd: Some(3.0),
                tokens: Some(60_000)
            })
        );
        assert_eq!(Budget::parse("2.5").map(|budget| budget.usd), Ok(Some(2.5)));
        assert_eq!(
            Budget::parse("300k tokens").map(|budget| budget.tokens),
            Ok(Some(300_000))
        );
        assert_eq!(parse_tokens("1.5M"), Ok(1_500_000));
        for bad in ["-1", "$0", "nan", "five dollars", "inf"] {
            assert!(parse_usd(bad).is_err(), "{bad}");
        }
        for bad in ["0", "-5", "lots", "0.0001k"] {
            assert!(parse_tokens(bad).is_err(), "{bad}");
        }
        // What is neither says what would be.
        let error = Budget::parse("10,000 tokensabc").unwrap_err();
        assert!(
            error.contains("is not a budget") && error.contains("300k tokens"),
            "{error}"
        );
        // What `describe` writes reads back as the same limit.
        let budget = Budget {
            usd: Some(12.0),
            tokens: Some(1_250_000),
        };
        assert_eq!(Budget::parse(&budget.describe()), Ok(budget));
    }

    #[test]
    fn spent_is_the_ledgers_tokens_and_priced_money() {
        let ledger = ledger(&[("critic", 500)]);
        let spent = Spend::of(&ledger);
        assert_eq!(spent.tokens, 1_500);
        // 1,000 × $2 + 500 × $8 per million.
        assert!((spent.usd - 0.006).abs() < 1e-12);
        assert_eq!(spent.describe(true), "$0.0060 · 1,500 tokens");
    }
}
