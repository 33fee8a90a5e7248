//! Token usage, latency and cost of the calls of a debate.
//!
//! Responsible for the arithmetic: one [`CallUsage`] per finished call, the
//! totals per agent and for the whole debate, and the cost of a call where a
//! price is known. Prices come from the debate's definition (they are recorded
//! with the participants), so every figure is a pure function of the journal.
//!
//! Not responsible for measuring (the engine times each call and counts or
//! estimates tokens) or for presentation (the artifact renderers and the
//! interfaces format these figures).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agent::Usage;
use crate::protocol::{LogEntry, LogKind, Timestamp};

/// Tokens per unit a [`Price`] is quoted for.
pub const TOKENS_PER_PRICE_UNIT: f64 = 1_000_000.0;

pub use crate::config::limits::Price;

impl Price {
    /// The cost of `usage`, in US dollars.
    pub fn cost_usd(&self, usage: &Usage) -> f64 {
        (usage.input_tokens as f64 * self.input + usage.output_tokens as f64 * self.output)
            / TOKENS_PER_PRICE_UNIT
    }
}

/// One finished call's figures.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallUsage {
    pub call_id: String,
    pub role: String,
    /// `provider:model` of the agent that answered.
    pub agent: String,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// The token counts are quorum's estimate, not the provider's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
    /// Time from the start of the call to its first answer text.
    pub ttft_ms: Option<u64>,
    pub elapsed_ms: u64,
    /// Output tokens per second of streaming (after the first token).
    pub output_tokens_per_second: Option<f64>,
    pub cost_usd: Option<f64>,
}

/// What the engine measured of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measured {
    pub usage: Option<Usage>,
    /// `usage` is quorum's estimate.
    pub estimated: bool,
    pub ttft_ms: Option<u64>,
    pub elapsed_ms: u64,
}

impl CallUsage {
    /// The figures of one call; `price` is the answering agent's, if known.
    pub fn new(
        call_id: &str,
        role: &str,
        agent: &str,
        measured: Measured,
        price: Option<&Price>,
    ) -> Self {
        let Measured {
            usage,
            estimated,
            ttft_ms,
            elapsed_ms,
        } = measured;
        CallUsage {
            call_id: call_id.to_string(),
            role: role.to_string(),
            agent: agent.to_string(),
            input_tokens: usage.map(|usage| usage.input_tokens),
            output_tokens: usage.map(|usage| usage.output_tokens),
            estimated: estimated && usage.is_some(),
            ttft_ms,
            elapsed_ms,
            output_tokens_per_second: usage
                .and_then(|usage| tokens_per_second(usage.output_tokens, ttft_ms, elapsed_ms)),
            cost_usd: usage
                .zip(price)
                .map(|(usage, price)| price.cost_usd(&usage)),
        }
    }
}

/// Shortest streaming time a rate is computed over, in milliseconds; over
/// less, the rate says more about timer granularity than about the model.
pub const MIN_RATE_WINDOW_MS: u64 = 100;

/// Output tokens over the streaming time (elapsed minus time to first
/// token), to one decimal; `None` when that time is too short to measure.
pub fn tokens_per_second(output_tokens: u64, ttft_ms: Option<u64>, elapsed_ms: u64) -> Option<f64> {
    let streaming_ms = elapsed_ms.checked_sub(ttft_ms?)?;
    (streaming_ms >= MIN_RATE_WINDOW_MS && output_tokens > 0)
        .then(|| (output_tokens as f64 * 10_000.0 / streaming_ms as f64).round() / 10.0)
}

/// Sums over several calls.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageTotals {
    pub calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Some of the counts are quorum's estimates.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
    /// Calls whose provider reported no token counts.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub calls_without_usage: u32,
    /// Sum over the calls with a known price; `None` when none had one.
    pub cost_usd: Option<f64>,
    /// Calls with token counts but no price, so left out of `cost_usd`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub calls_without_price: u32,
    /// Sum of the calls' durations (parallel calls overlap).
    pub call_time_ms: u64,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

impl UsageTotals {
    fn add(&mut self, call: &CallUsage) {
        self.calls += 1;
        self.call_time_ms += call.elapsed_ms;
        match (call.input_tokens, call.output_tokens) {
            (Some(input), Some(output)) => {
                self.input_tokens = self.input_tokens.saturating_add(input);
                self.output_tokens = self.output_tokens.saturating_add(output);
                self.estimated |= call.estimated;
                match call.cost_usd {
                    Some(cost) => *self.cost_usd.get_or_insert(0.0) += cost,
                    None => self.calls_without_price += 1,
                }
            }
            _ => self.calls_without_usage += 1,
        }
    }
}

/// Every finished call of a debate, in the order they finished, and the
/// prices they were costed with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UsageLedger {
    calls: Vec<CallUsage>,
    /// USD per million tokens, per `provider:model`, as configured for this
    /// run (switches included).
    prices: BTreeMap<String, Price>,
}

impl UsageLedger {
    /// An empty ledger that costs calls with `prices`.
    pub fn priced(prices: BTreeMap<String, Price>) -> Self {
        UsageLedger {
            calls: Vec::new(),
            prices,
        }
    }

    pub fn record(&mut self, call: CallUsage) {
        self.calls.push(call);
    }

    pub fn prices(&self) -> &BTreeMap<String, Price> {
        &self.prices
    }

    /// The price of `agent` (`provider:model`), if one is configured.
    pub fn price_of(&self, agent: &str) -> Option<&Price> {
        self.prices.get(agent)
    }

    /// Records the configured price of `agent` (a role switched to it).
    pub fn set_price(&mut self, agent: &str, price: Price) {
        self.prices.insert(agent.to_string(), price);
    }

    pub fn calls(&self) -> &[CallUsage] {
        &self.calls
    }

    pub fn get(&self, call_id: &str) -> Option<&CallUsage> {
        self.calls.iter().rev().find(|call| call.call_id == call_id)
    }

    /// Totals per `provider:model`.
    pub fn by_agent(&self) -> BTreeMap<String, UsageTotals> {
        let mut totals: BTreeMap<String, UsageTotals> = BTreeMap::new();
        for call in &self.calls {
            totals.entry(call.agent.clone()).or_default().add(call);
        }
        totals
    }

    pub fn total(&self) -> UsageTotals {
        self.total_of(|_| true)
    }

    /// Totals of the calls `keep` keeps.
    pub fn total_of(&self, keep: impl Fn(&CallUsage) -> bool) -> UsageTotals {
        let mut total = UsageTotals::default();
        for call in self.calls.iter().filter(|call| keep(call)) {
            total.add(call);
        }
        total
    }

    /// The section `debate.yaml` and `--json` carry.
    pub fn report(&self) -> UsageReport {
        UsageReport {
            total: self.total(),
            agents: self.by_agent(),
            calls: self.calls.clone(),
        }
    }
}

/// Wall-clock time at least one agent call was running, in milliseconds:
/// the union of the calls' intervals, so parallel calls count once and the
/// idle time between calls (a moderator deciding, a debate waiting to be
/// resumed, settled or forked) not at all. A finished call spans its
/// measured time up to its `CallFinished` entry; one that ended otherwise
/// (a timeout, a failure, a cancel) from its start to the last entry about
/// it.
pub fn calls_time_ms(log: &[LogEntry], ledger: &UsageLedger) -> u64 {
    let mut intervals: Vec<(Timestamp, Timestamp)> = Vec::new();
    let mut running: BTreeMap<&str, (Timestamp, Timestamp)> = BTreeMap::new();
    for entry in log {
        let Some(call_id) = entry.call_id.as_deref() else {
            continue;
        };
        match entry.kind {
            LogKind::CallStarted => {
                if let Some(interval) = running.insert(call_id, (entry.at, entry.at)) {
                    intervals.push(interval);
                }
            }
            LogKind::CallFinished => {
                let started = running.remove(call_id).map(|(start, _)| start);
                let measured = ledger
                    .get(call_id)
                    .map(|call| entry.at - chrono::Duration::milliseconds(call.elapsed_ms as i64));
                if let Some(start) = measured.or(started) {
                    intervals.push((start.min(entry.at), entry.at));
                }
            }
            _ => {
                if let Some((_, last)) = running.get_mut(call_id) {
                    *last = entry.at.max(*last);
                }
            }
        }
    }
    intervals.extend(running.into_values());
    intervals.sort();
    let mut total_ms = 0u64;
    let mut open: Option<(Timestamp, Timestamp)> = None;
    for (start, end) in intervals {
        open = match open {
            Some((from, to)) if start <= to => Some((from, to.max(end))),
            Some((from, to)) => {
                total_ms += (to - from).num_milliseconds().max(0) as u64;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    if let Some((from, to)) = open {
        total_ms += (to - from).num_milliseconds().max(0) as u64;
    }
    total_ms
}

/// Usage as recorded: the total, per agent, and per call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageReport {
    pub total: UsageTotals,
    #[serde(default)]
    pub agents: BTreeMap<String, UsageTotals>,
    #[serde(default)]
    pub calls: Vec<CallUsage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input_tokens: u64, output_tokens: u64) -> Option<Usage> {
        Some(Usage {
            input_tokens,
            output_tokens,
        })
    }

    fn measured(
        usage: Option<Usage>,
        estimated: bool,
        ttft_ms: Option<u64>,
        elapsed_ms: u64,
    ) -> Measured {
        Measured {
            usage,
            estimated,
            ttft_ms,
            elapsed_ms,
        }
    }

    /// Issue 62: the union of the calls' intervals, parallel calls once,
    /// the gaps between them not at all.
    #[test]
    fn calls_time_is_the_union_of_the_calls_not_the_gaps() {
        let t0 = chrono::DateTime::parse_from_rfc3339("2026-01-01T10:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let at = |seconds: i64| t0 + chrono::Duration::seconds(seconds);
        let entry = |seconds: i64, kind: LogKind, call: &str| LogEntry {
            at: at(seconds),
            kind,
            call_id: Some(call.to_string()),
            details: Vec::new(),
            message: String::new(),
        };
        let mut ledger = UsageLedger::default();
        for (call, elapsed_ms) in [("a", 10_000), ("b", 5_000), ("c", 3_000)] {
            ledger.record(CallUsage::new(
                call,
                "critic",
                "script:scripted",
                measured(usage(1, 1), true, None, elapsed_ms),
                None,
            ));
        }
        let log = vec![
            entry(0, LogKind::CallStarted, "a"),
            entry(2, LogKind::CallStarted, "b"),
            entry(7, LogKind::CallFinished, "b"),
            entry(10, LogKind::CallFinished, "a"),
            // An hour of nobody calling anyone.
            entry(3_600, LogKind::Moderation, "x"),
            entry(3_610, LogKind::CallStarted, "c"),
            entry(3_613, LogKind::CallFinished, "c"),
            // A call that timed out: from its start to its last entry.
            entry(3_700, LogKind::CallStarted, "d"),
            entry(3_706, LogKind::Timeout, "d"),
        ];
        assert_eq!(calls_time_ms(&log, &ledger), 10_000 + 3_000 + 6_000);
    }

    #[test]
    fn cost_is_per_million_tokens() {
        let price = Price {
            input: 2.0,
            output: 8.0,
        };
        let cost = price.cost_usd(&Usage {
            input_tokens: 500_000,
            output_tokens: 250_000,
        });
        assert!((cost - 3.0).abs() < 1e-12, "{cost}");
    }

    #[test]
    fn tokens_per_second_leaves_out_the_wait_for_the_first_token() {
        assert_eq!(tokens_per_second(300, Some(1_000), 4_000), Some(100.0));
        assert_eq!(tokens_per_second(300, None, 4_000), None);
        assert_eq!(tokens_per_second(300, Some(4_000), 4_000), None);
        assert_eq!(tokens_per_second(0, Some(1_000), 4_000), None);
        assert_eq!(
            tokens_per_second(300, Some(1_000), 1_050),
            None,
            "50 ms is too short"
        );
    }

    #[test]
    fn totals_sum_tokens_and_only_the_priced_costs() {
        let price = Price {
            input: 1.0,
            output: 2.0,
        };
        let mut ledger = UsageLedger::default();
        ledger.record(CallUsage::new(
            "proposer/proposal/r1/a1",
            "proposer",
            "openai:m",
            measured(usage(1_000_000, 500_000), false, Some(100), 1_100),
            Some(&price),
        ));
        ledger.record(CallUsage::new(
            "critic/critique/r1/a1",
            "critic",
            "script:scripted",
            measured(usage(40, 20), true, Some(100), 300),
            None,
        ));
        ledger.record(CallUsage::new(
            "judge.analyst/evaluation/r1/a1",
            "judge.analyst",
            "command:judge",
            measured(None, true, None, 50),
            None,
        ));
        let total = ledger.total();
        assert_eq!(total.calls, 3);
        assert_eq!(total.input_tokens, 1_000_040);
        assert_eq!(total.output_tokens, 500_020);
        assert!(total.estimated);
        assert_eq!(total.cost_usd, Some(2.0));
        assert_eq!(total.calls_without_price, 1);
        assert_eq!(total.calls_without_usage, 1);
        assert_eq!(total.call_time_ms, 1_450);
        let agents = ledger.by_agent();
        assert_eq!(agents.len(), 3);
        assert_eq!(agents["openai:m"].cost_usd, Some(2.0));
        assert!(!agents["openai:m"].estimated);
        assert_eq!(agents["script:scripted"].cost_usd, None);
        assert_eq!(
            ledger
                .get("critic/critique/r1/a1")
                .unwrap()
                .output_tokens_per_second,
            Some(100.0)
        );
        assert!(
            !ledger
                .get("judge.analyst/evaluation/r1/a1")
                .unwrap()
                .estimated
        );
    }
}
