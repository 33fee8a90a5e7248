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

/// What shows a verification true (PC-25, issue 60): what quorum found in
/// the note, or the moderator's confirmation of a verification that gave
/// none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "text", rename_all = "snake_case")]
pub enum Evidence {
    /// A web address: `https://www.postgresql.org/docs/15/sql-copy.html`.
    Link(String),
    /// A quoted passage of three words or more, as written.
    Quote(String),
    /// A place in a file: `db/policies.sql:8`, `jobs/runner.py:40-57`.
    Place(String),
    /// The moderator confirmed it, with the note, if any.
    Moderator(Option<String>),
}

impl Evidence {
    /// `a link, https://…`, `the moderator's confirmation`: for the record's
    /// sentences.
    pub fn describe(&self) -> String {
        match self {
            Evidence::Link(link) => format!("link {link}"),
            Evidence::Quote(quote) => format!("quote {quote}"),
            Evidence::Place(place) => format!("file {place}"),
            Evidence::Moderator(None) => "confirmed by the moderator".into(),
            Evidence::Moderator(Some(note)) => format!("confirmed by the moderator: {note}"),
        }
    }
}

/// Where the moderator's confirmation of a `[VERIFIED]` that gave no
/// evidence stands (issue 60): until the moderator confirms it, it verifies
/// nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confirmation {
    /// Not put to the moderator yet.
    Pending,
    /// Put to the moderator, who has not decided yet.
    Asked,
    /// The moderator confirmed it: it verifies the assumption.
    Confirmed,
    /// The moderator rejected it: the assumption stays unverified.
    Rejected,
    /// The moderator deferred it: the assumption stays unverified, to
    /// investigate.
    Deferred,
}

/// One attempt to verify an assumption.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// `critic` or `optimizer`.
    pub by: String,
    pub round: u32,
    pub result: Verification,
    /// The evidence, the correction, or why it could not be checked.
    pub note: String,
    /// What shows a `[VERIFIED]` true, under the rules that ask for it
    /// (issue 60): what the note gives, or the moderator's confirmation.
    #[serde(default)]
    pub evidence: Option<Evidence>,
    /// A `[VERIFIED]` whose note gives no evidence, under those rules:
    /// where the moderator's confirmation stands. `None` for every other
    /// check, and for every check of a debate from before them.
    #[serde(default)]
    pub confirmation: Option<Confirmation>,
}

impl Check {
    /// Whether this check shows its assumption true: a `[VERIFIED]` with
    /// evidence, or one the moderator confirmed (a debate from before issue
    /// 60: any `[VERIFIED]`).
    pub fn verifies(&self) -> bool {
        self.result == Verification::Verified
            && matches!(self.confirmation, None | Some(Confirmation::Confirmed))
    }

    /// A `[VERIFIED]` that verifies nothing: it gave no evidence and the
    /// moderator has not confirmed it.
    pub fn unevidenced(&self) -> bool {
        self.result == Verification::Verified && !self.verifies()
    }
}

/// Who raised an assumption: the planner in a plan, or the critic or the
/// optimizer marking one `[UNVERIFIED]` in its own answer (issue 60).
fn planner() -> String {
    "planner".into()
}

fn is_planner(by: &String) -> bool {
    by == "planner"
}

/// An assumption marked `[UNVERIFIED]` (PC-24): by the planner in a plan,
/// or by the critic or the optimizer in its answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assumption {
    /// `U1`, numbered by quorum in the order they appear.
    pub id: String,
    /// The marked sentence, without the marker.
    pub text: String,
    /// Which answer it first appeared in: `draft`, `revision 1`,
    /// `critique, round 1`.
    pub from: String,
    /// The role that marked it: `planner`, `critic` or `optimizer`.
    #[serde(default = "planner", skip_serializing_if = "is_planner")]
    pub raised_by: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
}

impl Assumption {
    /// Where it stands now: refuted once anyone showed it false, verified
    /// once a check showed it true (with evidence, or confirmed by the
    /// moderator: issue 60), else unverified (a later "could not check"
    /// undoes nothing).
    pub fn status(&self) -> Verification {
        if self
            .checks
            .iter()
            .any(|check| check.result == Verification::Refuted)
        {
            Verification::Refuted
        } else if self.checks.iter().any(Check::verifies) {
            Verification::Verified
        } else {
            Verification::Unverified
        }
    }

    /// Why it is still unverified when someone marked it `[VERIFIED]`
    /// (issue 60): `marked VERIFIED by the critic without an evidence link
    /// or quote`, with what the moderator made of it. `None` when nobody
    /// did, or when it stands verified or refuted.
    pub fn why_unverified(&self) -> Option<String> {
        if self.status() != Verification::Unverified {
            return None;
        }
        let bare: Vec<&Check> = self.checks.iter().filter(|c| c.unevidenced()).collect();
        if bare.is_empty() {
            return None;
        }
        let mut by: Vec<String> = Vec::new();
        for check in &bare {
            let role = format!("the {}", check.by);
            if !by.contains(&role) {
                by.push(role);
            }
        }
        let mut why = format!(
            "marked VERIFIED by {} without an evidence link or quote",
            by.join(" and ")
        );
        let confirmations: Vec<Confirmation> =
            bare.iter().filter_map(|check| check.confirmation).collect();
        if confirmations.contains(&Confirmation::Asked) {
            why.push_str("; the moderator is asked to confirm it");
        } else if confirmations.contains(&Confirmation::Rejected) {
            why.push_str("; the moderator did not confirm it");
        } else if confirmations.contains(&Confirmation::Deferred) {
            why.push_str("; the moderator left it to investigate");
        }
        Some(why)
    }
}
