//! What a planning debate is made of: the critic's challenges and the
//! optimizer's proposals (one kind of item, two sources), the planner's
//! proposed response to each, the moderator's final decision, and the
//! plan's unverified assumptions.

use serde::{Deserialize, Serialize};

use crate::protocol::ItemDecision;

/// Who raised an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A problem (`C1`, ...).
    Critic,
    /// An improvement or a third option (`I1`, ...).
    Optimizer,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Critic => "Critic",
            Source::Optimizer => "Optimizer",
        }
    }
}

/// A challenge's severity (PC-29): there is no LOW.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Critical,
    High,
    Medium,
    /// A proposal's lowest priority; never a challenge's severity.
    Low,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Critical => "CRITICAL",
            Level::High => "HIGH",
            Level::Medium => "MEDIUM",
            Level::Low => "LOW",
        }
    }

    pub fn parse(word: &str) -> Option<Level> {
        match crate::parse::blocks::strip_emphasis(word)
            .to_ascii_uppercase()
            .as_str()
        {
            "CRITICAL" => Some(Level::Critical),
            "HIGH" => Some(Level::High),
            "MEDIUM" => Some(Level::Medium),
            "LOW" => Some(Level::Low),
            _ => None,
        }
    }
}

/// A challenge (PC-29) or a proposal (PC-30).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// `C1`, `I2`: numbered by quorum across the debate.
    pub id: String,
    pub source: Source,
    /// The round it was raised in.
    pub round: u32,
    /// Free text (A25).
    pub category: String,
    /// The one-line summary.
    pub summary: String,
    /// A challenge's severity or a proposal's priority.
    pub level: Level,
    /// The labelled fields as written: Problem, Assumes, Evidence,
    /// Suggestion for a challenge; Current, Proposed, Benefit for a
    /// proposal.
    pub fields: Vec<(String, String)>,
    /// A challenge the critic raises again in round 2 (`Reopens: C2`), or
    /// the challenge a third option is meant to settle (`Resolves: C2`).
    pub refers_to: Option<String>,
}

impl Item {
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(key))
            .map(|(_, value)| value.as_str())
    }

    /// A proposal that offers a third option on a disputed challenge.
    pub fn breaks_deadlock(&self) -> bool {
        self.source == Source::Optimizer && self.refers_to.is_some()
    }
}

/// The planner's proposed response to an item (PC-14, A26).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    pub decision: ItemDecision,
    /// The change it makes (accept), its reasoning (reject) or what the
    /// user must decide (defer).
    pub reason: String,
}

/// Who made an item's final decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The moderator took the planner's proposed response.
    Planner,
    /// The moderator decided otherwise.
    Moderator,
}

/// An item's final decision, as the critique log records it.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub decision: ItemDecision,
    pub by: DecidedBy,
    pub note: Option<String>,
    pub round: u32,
}

/// Where an `[UNVERIFIED]` assumption stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verification {
    /// Nobody could verify or refute it.
    Unverified,
    /// Shown true, with evidence.
    Verified,
    /// Shown false: a challenge carries the correct information.
    Refuted,
}

impl Verification {
    pub fn as_str(self) -> &'static str {
        match self {
            Verification::Unverified => "UNVERIFIED",
            Verification::Verified => "VERIFIED",
            Verification::Refuted => "REFUTED",
        }
    }
}

/// One attempt to verify an assumption.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// `critic` or `optimizer`.
    pub by: String,
    pub round: u32,
    pub result: Verification,
    /// The evidence, the correction, or why it could not be checked.
    pub note: String,
}

/// An assumption the planner marked `[UNVERIFIED]` (PC-24).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assumption {
    /// `U1`, numbered by quorum in the order they appear.
    pub id: String,
    /// The marked sentence, without the marker.
    pub text: String,
    /// Which plan it first appeared in: `draft`, `revision 1`.
    pub from: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
}

impl Assumption {
    /// Where it stands now: verified or refuted once anyone showed it,
    /// else unverified (a later "could not check" undoes nothing).
    pub fn status(&self) -> Verification {
        let shown = |result| self.checks.iter().any(|check| check.result == result);
        if shown(Verification::Refuted) {
            Verification::Refuted
        } else if shown(Verification::Verified) {
            Verification::Verified
        } else {
            Verification::Unverified
        }
    }
}
