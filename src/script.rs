//! A script: the replies scripted agents give, as a spec's `script:` or a
//! `--script` file writes them, read and checked here (every reply names a
//! role, its pace and faults are sound, no reply is shadowed by an earlier
//! one), and the moderator's rulings a reply's `when:` asks for.
//!
//! The reading floor: a spec holds one. Playing one is the scripted
//! provider's (`agent::script`), which picks the reply for a call.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::rulings::{self, Ruled};

/// The provider name of the scripted agents.
pub const SCRIPT_PROVIDER: &str = "script";

/// Default delay before the first chunk of a reply, in milliseconds.
pub const DEFAULT_FIRST_TOKEN_MS: u64 = 800;
/// Default streaming pace, in characters per second.
pub const DEFAULT_CHARS_PER_SECOND: u32 = 300;
/// Default chunk size, in characters (not bytes).
pub const DEFAULT_CHUNK_CHARS: usize = 16;
/// Rough characters per token for the usage a scripted call reports.
pub(crate) const CHARS_PER_TOKEN: u64 = 4;

/// What a `malformed` fault streams when its reply has no `text`: plausible
/// prose with no YAML block in it.
pub const MALFORMED_RAMBLE: &str = "Thanks for the detailed question. Before writing anything formal I want \
to think out loud a little. The main option looks sound to me, although the migration path worries me, \
and I suspect the evidence for the throughput claim is thinner than it looks. I would probably start \
with the claim about operating cost, then move on to the rollout, and keep a fallback in mind in case \
the vendor changes its terms. Let me come back to the exact structure once I have weighed the risks \
properly; for now, my overall impression is cautiously positive.\n";

/// Streaming defaults for every reply of a script.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Pace {
    /// Delay before the first chunk, in milliseconds; 0 streams at once.
    pub first_token_ms: u64,
    /// Streaming pace, in characters per second.
    pub chars_per_second: u32,
    /// Characters per chunk; chunks split on char boundaries.
    pub chunk_chars: usize,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            first_token_ms: DEFAULT_FIRST_TOKEN_MS,
            chars_per_second: DEFAULT_CHARS_PER_SECOND,
            chunk_chars: DEFAULT_CHUNK_CHARS,
        }
    }
}

/// A fault injected into one reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// Stream `stall_after_chars` of the text, then never finish.
    Timeout,
    /// Stream `stall_after_chars` of the text, then fail with `error`.
    Error,
    /// Finish normally with text that cannot be parsed.
    Malformed,
}

/// What a `when:` asks of one item's ruling in the call's prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Condition {
    #[serde(rename = "accepted")]
    Accepted,
    #[serde(rename = "rejected")]
    Rejected,
    #[serde(rename = "deferred")]
    Deferred,
    #[serde(rename = "not accepted")]
    NotAccepted,
    #[serde(rename = "not rejected")]
    NotRejected,
    #[serde(rename = "not deferred")]
    NotDeferred,
    /// Accepted, and not yet answered by an earlier round.
    #[serde(rename = "newly accepted")]
    NewlyAccepted,
}

impl Condition {
    /// Whether an item ruled `ruled` (`None`: the prompt has no ruling on
    /// it) meets the condition.
    fn holds(self, ruled: Option<Ruled>, answered: bool) -> bool {
        match self {
            Condition::NewlyAccepted => ruled == Some(Ruled::Accepted) && !answered,
            Condition::Accepted => ruled == Some(Ruled::Accepted),
            Condition::Rejected => ruled == Some(Ruled::Rejected),
            Condition::Deferred => ruled == Some(Ruled::Deferred),
            Condition::NotAccepted => ruled != Some(Ruled::Accepted),
            Condition::NotRejected => ruled != Some(Ruled::Rejected),
            Condition::NotDeferred => ruled != Some(Ruled::Deferred),
        }
    }
}

/// Item id → what its ruling must be; every entry must hold.
pub type When = BTreeMap<String, Condition>;

/// The rulings a call's prompt carries: each item's ruling, and the
/// accepted items an earlier round already answered.
pub struct Rulings {
    pub ruled: BTreeMap<String, Ruled>,
    pub answered: std::collections::BTreeSet<String>,
}

impl Rulings {
    pub fn of(prompt: &str) -> Rulings {
        Rulings {
            ruled: rulings::read(prompt),
            answered: rulings::read_answered(prompt),
        }
    }
}

pub(crate) fn when_holds(when: &When, rulings: &Rulings) -> bool {
    when.iter().all(|(id, condition)| {
        condition.holds(
            rulings.ruled.get(id).copied(),
            rulings.answered.contains(id),
        )
    })
}

/// A piece of a reply's text, used when its `when:` holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    #[serde(default, skip_serializing_if = "When::is_empty")]
    pub when: When,
    pub text: String,
}

/// What tells replies apart: role, stage, round, attempt, stance, rulings.
type Selector<'a> = (
    &'a str,
    Option<&'a str>,
    Option<u32>,
    Option<u32>,
    Option<&'a str>,
    &'a When,
);

/// The stance a critic's prompt states on its `CRITIQUE MODE:` line.
pub(crate) fn stance_of(prompt: &str) -> Option<&str> {
    prompt
        .lines()
        .find_map(|line| line.trim().strip_prefix("CRITIQUE MODE:"))
        .map(str::trim)
}

/// One scripted reply and the calls it answers.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedReply {
    /// The role slot it answers: `proposer`, `critic`, `judge.analyst`, ...
    pub role: String,
    /// Absent: any stage.
    pub stage: Option<String>,
    /// Absent: any round.
    pub round: Option<u32>,
    /// Absent: any attempt.
    pub attempt: Option<u32>,
    /// The critic's stance the call's prompt states (`CRITIQUE MODE:
    /// strict`); absent: any, so a careful scripted critic can answer each
    /// stance as it asks.
    pub stance: Option<String>,
    /// The rulings the call's prompt must carry; empty: any.
    #[serde(default, skip_serializing_if = "When::is_empty")]
    pub when: When,
    pub text: Option<String>,
    /// The text in pieces, each used when its own `when:` holds; instead
    /// of `text`.
    pub parts: Option<Vec<Part>>,
    pub first_token_ms: Option<u64>,
    pub chars_per_second: Option<u32>,
    pub chunk_chars: Option<usize>,
    pub fault: Option<Fault>,
    /// The provider message of `fault: error`.
    pub error: Option<String>,
    /// For `timeout` and `error`: characters of `text` streamed before the
    /// fault; 0 when absent.
    pub stall_after_chars: Option<usize>,
}

impl ScriptedReply {
    /// A plain reply for `role` in any stage, round and attempt.
    pub fn new(role: impl Into<String>, text: impl Into<String>) -> Self {
        ScriptedReply {
            role: role.into(),
            stage: None,
            round: None,
            attempt: None,
            stance: None,
            when: When::new(),
            text: Some(text.into()),
            parts: None,
            first_token_ms: None,
            chars_per_second: None,
            chunk_chars: None,
            fault: None,
            error: None,
            stall_after_chars: None,
        }
    }

    /// How many of stage, round, attempt and rulings this reply names.
    pub(crate) fn specificity(&self) -> usize {
        [
            self.stage.is_some(),
            self.round.is_some(),
            self.attempt.is_some(),
            self.stance.is_some(),
        ]
        .into_iter()
        .filter(|present| *present)
        .count()
            + self.when.len()
    }

    fn selector(&self) -> Selector<'_> {
        (
            &self.role,
            self.stage.as_deref(),
            self.round,
            self.attempt,
            self.stance.as_deref(),
            &self.when,
        )
    }

    /// The text this reply gives under `ruled`: `text`, or the parts whose
    /// `when:` holds, joined.
    pub fn text_under(&self, ruled: &Rulings) -> Option<String> {
        match &self.parts {
            Some(parts) => Some(
                parts
                    .iter()
                    .filter(|part| when_holds(&part.when, ruled))
                    .map(|part| part.text.as_str())
                    .collect(),
            ),
            None => self.text.clone(),
        }
    }

    /// `judge.analyst at evaluation round 2 (any attempt)`.
    fn describe(&self) -> String {
        let stage = self.stage.as_deref().unwrap_or("any stage");
        let round = self
            .round
            .map_or("any round".to_string(), |round| format!("round {round}"));
        let attempt = self.attempt.map_or("any attempt".to_string(), |attempt| {
            format!("attempt {attempt}")
        });
        let mut when: Vec<String> = self
            .when
            .iter()
            .map(|(id, condition)| format!("{id} {}", condition_word(*condition)))
            .collect();
        if let Some(stance) = &self.stance {
            when.insert(0, format!("the stance is {stance}"));
        }
        if when.is_empty() {
            format!("{} at {stage} {round} {attempt}", self.role)
        } else {
            format!(
                "{} at {stage} {round} {attempt} when {}",
                self.role,
                when.join(", ")
            )
        }
    }

    fn validation_errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        if self.role.trim().is_empty() {
            errors.push("`role` is empty".to_string());
        }
        if self
            .stage
            .as_deref()
            .is_some_and(|stage| stage.trim().is_empty())
        {
            errors.push("`stage` is empty; leave it out to match any stage".to_string());
        }
        if self.round == Some(0) {
            errors.push("`round` counts from 1".to_string());
        }
        if self.attempt == Some(0) {
            errors.push("`attempt` counts from 1".to_string());
        }
        if self.chars_per_second == Some(0) {
            errors.push("`chars_per_second` must be greater than 0".to_string());
        }
        if self.chunk_chars == Some(0) {
            errors.push("`chunk_chars` must be greater than 0".to_string());
        }
        if self.text.is_some() && self.parts.is_some() {
            errors.push("give either `text` or `parts`, not both".to_string());
        }
        if self.parts.as_ref().is_some_and(Vec::is_empty) {
            errors.push("`parts` is empty".to_string());
        }
        if self.parts.is_some() && self.fault.is_some() {
            errors.push("a reply with a fault takes `text`, not `parts`".to_string());
        }
        for id in self.when.keys() {
            if id.trim().is_empty() {
                errors.push("`when` names an empty item id".to_string());
            }
        }
        match self.fault {
            None => {
                if self.text.is_none() && self.parts.is_none() {
                    errors.push("a reply without a fault needs `text` or `parts`".to_string());
                }
            }
            Some(Fault::Error) => {
                if self
                    .error
                    .as_deref()
                    .is_none_or(|error| error.trim().is_empty())
                {
                    errors.push("`fault: error` needs an `error` message".to_string());
                }
            }
            Some(Fault::Timeout | Fault::Malformed) => {}
        }
        if self.error.is_some() && self.fault != Some(Fault::Error) {
            errors.push("`error` is only used with `fault: error`".to_string());
        }
        if let Some(stall_after_chars) = self.stall_after_chars {
            if !matches!(self.fault, Some(Fault::Timeout | Fault::Error)) {
                errors.push(
                    "`stall_after_chars` is only used with `fault: timeout` or `fault: error`"
                        .to_string(),
                );
            }
            let text_chars = self.text.as_deref().map_or(0, |text| text.chars().count());
            if stall_after_chars > text_chars {
                errors.push(format!(
                    "`stall_after_chars` is {stall_after_chars} but `text` has only {text_chars} characters"
                ));
            }
        }
        errors
    }
}

/// A whole script: pace defaults and the replies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    #[serde(default)]
    pub pace: Pace,
    pub replies: Vec<ScriptedReply>,
}

impl Script {
    /// Parses and validates a script.
    pub fn from_yaml(yaml: &str) -> Result<Script, String> {
        let script: Script = yaml_serde::from_str(yaml).map_err(|error| error.to_string())?;
        script.validate()?;
        Ok(script)
    }

    /// Checks what the YAML schema cannot: faults and their fields, positive
    /// pace values, and replies that could never be chosen. All problems are
    /// reported, one per line.
    pub fn validate(&self) -> Result<(), String> {
        let mut errors = Vec::new();
        if self.pace.chars_per_second == 0 {
            errors.push("pace: `chars_per_second` must be greater than 0".to_string());
        }
        if self.pace.chunk_chars == 0 {
            errors.push("pace: `chunk_chars` must be greater than 0".to_string());
        }
        for (index, reply) in self.replies.iter().enumerate() {
            let number = index + 1;
            for error in reply.validation_errors() {
                errors.push(format!("reply {number} ({}): {error}", reply.describe()));
            }
            let shadowing = self.replies[..index]
                .iter()
                .position(|earlier| earlier.selector() == reply.selector());
            if let Some(earlier) = shadowing {
                errors.push(format!(
                    "reply {number} ({}) can never be chosen: reply {} answers the same calls",
                    reply.describe(),
                    earlier + 1
                ));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("\n"))
        }
    }
}

/// `accepted`, `not rejected`, ...: a condition as a script writes it.
fn condition_word(condition: Condition) -> &'static str {
    match condition {
        Condition::Accepted => "accepted",
        Condition::Rejected => "rejected",
        Condition::Deferred => "deferred",
        Condition::NotAccepted => "not accepted",
        Condition::NotRejected => "not rejected",
        Condition::NotDeferred => "not deferred",
        Condition::NewlyAccepted => "newly accepted",
    }
}
