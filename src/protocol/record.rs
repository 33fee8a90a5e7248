//! The record every protocol's documents share: the event list of a
//! transcript, usage tables and lines, participants, the answers that could
//! not be used, and the reader-first check of a deliverable's opening.
//!
//! Each protocol renders its own files in its own folder with these and the
//! plain words of [`crate::words`]; nothing here knows one protocol (the
//! role words an opening must not carry are the caller's). Not
//! responsible for writing files (the engine writes what
//! [`super::Protocol::documents`] returns, atomically) or for deciding
//! anything.

use serde::{Deserialize, Serialize};

use super::LogEntry;
use super::usage::{Price, UsageLedger, UsageReport, UsageTotals};
use crate::text::thousands;
use crate::words::{answer_md, dollars, duration_words, one_line, seconds, timestamp};

/// The timestamped list of log entries, one line each.
pub fn log_lines(log: &[LogEntry]) -> String {
    let mut out = String::new();
    for entry in log {
        let call = entry
            .call_id
            .as_deref()
            .map(|id| format!(" `{id}`"))
            .unwrap_or_default();
        out.push_str(&format!(
            "- `{}` **{}**{call} — {}\n",
            timestamp(entry.at),
            entry.kind.label(),
            one_line(&entry.message)
        ));
    }
    out
}

/// What every transcript says of its list of events.
pub const EVERY_EVENT: &str = "Every event in order, timeouts, cancellations, retries and skips \
                               included, each with its call id.";

/// The opening of a transcript: its title, `about` (what ran and when,
/// ending in the space or paragraph break that comes before
/// [`EVERY_EVENT`]), then every event, one line each.
pub fn transcript_opening(topic: &str, about: &str, log: &[LogEntry]) -> String {
    format!(
        "# Transcript — {}\n\n{about}{EVERY_EVENT}\n\n## Events\n\n{}",
        one_line(topic),
        log_lines(log)
    )
}

/// The `meta:` block of a record whose mode names what it delivers (a quick
/// debate's, a writing review's): what ran, in which mode, about what,
/// when, and what it delivers.
#[derive(Debug, Serialize)]
pub struct ModeMeta {
    pub protocol: &'static str,
    pub mode: &'static str,
    pub topic: String,
    pub timestamp: String,
    pub deliverable: &'static str,
    /// What the debate was told to hold to (a quick adversary's
    /// constraints); left out when there is nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
}

/// A role slot and the agent that plays it, as a record's `participants:`
/// list them.
#[derive(Debug, Serialize, Deserialize)]
pub struct Participant {
    pub slot: String,
    pub agent: String,
}

impl Participant {
    /// `slot` and who plays it in `calls` (empty while nobody is known).
    pub fn of(calls: &super::calls::Calls, slot: impl Into<String>) -> Participant {
        let slot = slot.into();
        let agent = calls.agent(&slot).unwrap_or_default().to_string();
        Participant { slot, agent }
    }
}

/// The `usage:` section: totals, per agent, per call, and the prices used.
#[derive(Debug, Serialize, Deserialize)]
pub struct UsageYaml {
    #[serde(flatten)]
    pub report: UsageReport,
    /// USD per million tokens, per `provider:model`, as configured for this run.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub prices: std::collections::BTreeMap<String, Price>,
}

impl UsageYaml {
    /// `None` until a call has finished.
    pub fn of(ledger: &UsageLedger) -> Option<UsageYaml> {
        (!ledger.calls().is_empty()).then(|| UsageYaml {
            report: ledger.report(),
            prices: ledger.prices().clone(),
        })
    }
}

/// The usage section of the transcript: one line per call, then per agent
/// and in total. Estimated token counts are marked `(est.)`.
pub fn usage_md(ledger: &UsageLedger) -> String {
    if ledger.calls().is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Usage\n\n| call | agent | tokens in | tokens out | first token | tok/s | time | cost |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for call in ledger.calls() {
        let marker = if call.estimated { " (est.)" } else { "" };
        let tokens = |count: Option<u64>| {
            count.map_or("—".to_string(), |count| {
                format!("{}{marker}", thousands(count))
            })
        };
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} | {} | {} | {} |\n",
            call.call_id,
            call.agent,
            tokens(call.input_tokens),
            tokens(call.output_tokens),
            call.ttft_ms.map_or("—".to_string(), seconds),
            call.output_tokens_per_second
                .map_or("—".to_string(), |rate| format!("{rate:.0}")),
            seconds(call.elapsed_ms),
            call.cost_usd.map_or("—".to_string(), dollars)
        ));
    }
    out.push_str(
        "\n| agent | calls | tokens in | tokens out | cost | call time |\n|---|---|---|---|---|---|\n",
    );
    let row = |name: &str, totals: &UsageTotals| {
        let marker = if totals.estimated { " (est.)" } else { "" };
        format!(
            "| {name} | {} | {}{marker} | {}{marker} | {} | {} |\n",
            totals.calls,
            thousands(totals.input_tokens),
            thousands(totals.output_tokens),
            totals.cost_usd.map_or("—".to_string(), dollars),
            duration_words(totals.call_time_ms)
        )
    };
    for (agent, totals) in ledger.by_agent() {
        out.push_str(&row(&format!("`{agent}`"), &totals));
    }
    out.push_str(&row("**total**", &ledger.total()));
    out
}

/// The one usage line at the end of `summary.md`: `12,345 tokens in, 6,789
/// out · $0.08 · 4 min 12 s`.
pub fn usage_line(ledger: &UsageLedger, duration_ms: u64) -> Option<String> {
    if ledger.calls().is_empty() {
        return None;
    }
    let total = ledger.total();
    let mut parts = vec![format!(
        "{}{} tokens in, {} out{}",
        if total.estimated { "about " } else { "" },
        thousands(total.input_tokens),
        thousands(total.output_tokens),
        if total.estimated { " (estimated)" } else { "" }
    )];
    if let Some(cost) = total.cost_usd {
        let partial = if total.calls_without_price > 0 || total.calls_without_usage > 0 {
            " for the priced calls"
        } else {
            ""
        };
        parts.push(format!("{}{partial}", dollars(cost)));
    }
    parts.push(duration_words(duration_ms));
    Some(parts.join(" · "))
}

/// The transcript's section of what agents wrote besides their answers (a
/// local program's stderr); empty when there is none.
pub fn diagnostics_md(diagnostics: &[super::calls::CallDiagnostic]) -> String {
    if diagnostics.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Diagnostics\n\nWhat agents wrote besides their answers (a local program's stderr).\n\n",
    );
    for diagnostic in diagnostics {
        out.push_str(&answer_md(
            &diagnostic.call_id,
            &timestamp(diagnostic.at),
            &diagnostic.text,
        ));
    }
    out
}

/// Each answer that could not be used, under its call id and why, as it
/// came: a transcript's part of the agents' outputs.
pub fn unusable_md(unusable: &[super::calls::Unusable]) -> String {
    unusable
        .iter()
        .map(|unusable| {
            answer_md(
                &unusable.call_id,
                &format!("unusable: {}", one_line(&unusable.reason)),
                &unusable.raw,
            )
        })
        .collect()
}

/// How every transcript ends: what agents wrote besides their answers,
/// then what the calls cost.
pub fn calls_md(calls: &super::calls::Calls) -> String {
    diagnostics_md(calls.diagnostics()) + &usage_md(calls.usage())
}

// ---- reader-first openings ------------------------------------------------------

/// Words that narrate the debate instead of its result and name no role:
/// the panel's judges, reviewers, scores. With the debate's own role words
/// (a decision review's `proposer`, `critic`, `oracle`, its judges'
/// names), a reader-first opening carries none (RF-06, RF-08).
const PROCESS_WORDS: &[&str] = &[
    "judge",
    "judges",
    "reviewer",
    "reviewers",
    "critics",
    "score",
    "scores",
    "scored",
];

/// Phrases that report one option discarded for another (RF-08).
const DISCARDED_PHRASES: &[&str] = &[
    "discarded in favour of",
    "discarded in favor of",
    "was discarded",
];

/// What in `opening` narrates the debate rather than its result: the
/// debate's `role_words` (its protocol's `role_words`) and the
/// [`PROCESS_WORDS`] (whole words, any case; a word the topic itself uses
/// is allowed), block ids such as `b2`, scores such as `4/5`, and
/// discarded-in-favour phrasing. Empty when the opening is reader-first.
pub fn provenance(opening: &str, topic: &str, role_words: &[&str]) -> Vec<String> {
    let topic_words: Vec<String> = words(topic).map(str::to_ascii_lowercase).collect();
    let mut found: Vec<String> = Vec::new();
    let mut note = |what: String| {
        if !found.contains(&what) {
            found.push(what);
        }
    };
    for word in words(opening) {
        let lower = word.to_ascii_lowercase();
        let named = role_words.contains(&lower.as_str()) || PROCESS_WORDS.contains(&lower.as_str());
        if named && !topic_words.contains(&lower) {
            note(format!("`{word}`"));
        }
        let is_block_id = lower.len() >= 2
            && lower.starts_with('b')
            && lower[1..].bytes().all(|byte| byte.is_ascii_digit());
        if is_block_id && !topic_words.contains(&lower) {
            note(format!("the block id `{word}`"));
        }
    }
    for (index, _) in opening.match_indices("/5") {
        let before = opening[..index].chars().next_back();
        let after = opening[index + 2..].chars().next();
        if before.is_some_and(|c| c.is_ascii_digit()) && !after.is_some_and(|c| c.is_ascii_digit())
        {
            note("a score out of 5".to_string());
        }
    }
    let lower = opening.to_ascii_lowercase();
    if let Some(phrase) = DISCARDED_PHRASES
        .iter()
        .find(|phrase| lower.contains(*phrase))
    {
        note(format!("\"{phrase}\""));
    }
    found
}

/// The words of `text`: runs of letters, digits, `'` and `-`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .map(|word| word.trim_matches(['\'', '-']))
        .filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RF-06, RF-08: the words that narrate a debate whatever its roles,
    /// and the debate's own role words beside them.
    #[test]
    fn the_process_words_and_the_debates_role_words_are_found() {
        let mut process = PROCESS_WORDS.to_vec();
        process.sort_unstable();
        let expected = [
            "critics",
            "judge",
            "judges",
            "reviewer",
            "reviewers",
            "score",
            "scored",
            "scores",
        ];
        assert_eq!(process, expected);
        let opening = "The Referee found the case sound.";
        assert!(provenance(opening, "", &[]).is_empty());
        assert_eq!(provenance(opening, "", &["referee"]), ["`Referee`"]);
    }
}
