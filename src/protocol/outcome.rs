//! How a debate ends, in one vocabulary for every protocol family.
//!
//! A debate ends with a [`Verdict`] derived by quorum from the record (the
//! decision review's ADOPT / REVISE / REJECT / ESCALATE, the five-phase
//! analysis's PASS / CONCERNS / FAIL, the root-cause analysis's PROVEN /
//! UNPROVEN), with a deliverable that carries no verdict (the quick modes,
//! the planning debate), or with a failure. Each
//! ending has one process exit code ([`Outcome::exit_code`]), documented in
//! `--help` and the README, so a script can act on any protocol alike.
//!
//! Also here: the moderator's three answers to an item ([`ItemDecision`]),
//! which every protocol with moderation shares, and the [`Tone`] a verdict
//! is drawn in, so a new protocol needs no new colours.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Every verdict quorum derives, across protocol families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// Decision review: act on the proposal (DR-28).
    Adopt,
    /// Decision review: the proposal needs another revision.
    Revise,
    /// Decision review: a dealbreaker; do not act on it.
    Reject,
    /// Decision review: the record is too uncertain; a person decides.
    Escalate,
    /// Five-phase analysis: nothing confirmed that blocks (FP-41).
    Pass,
    /// Five-phase analysis: confirmed or disputed findings to address (FP-40).
    Concerns,
    /// Five-phase analysis: a confirmed critical finding, or too many high ones (FP-39).
    Fail,
    /// Root-cause analysis: exactly one hypothesis SURVIVED; it is the root
    /// cause (RC-15, A28).
    Proven,
    /// Root-cause analysis: no hypothesis SURVIVED, or several did; no root
    /// cause is proven.
    Unproven,
}

impl Verdict {
    pub const ALL: [Verdict; 9] = [
        Verdict::Adopt,
        Verdict::Revise,
        Verdict::Reject,
        Verdict::Escalate,
        Verdict::Pass,
        Verdict::Concerns,
        Verdict::Fail,
        Verdict::Proven,
        Verdict::Unproven,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Adopt => "ADOPT",
            Verdict::Revise => "REVISE",
            Verdict::Reject => "REJECT",
            Verdict::Escalate => "ESCALATE",
            Verdict::Pass => "PASS",
            Verdict::Concerns => "CONCERNS",
            Verdict::Fail => "FAIL",
            Verdict::Proven => "PROVEN",
            Verdict::Unproven => "UNPROVEN",
        }
    }

    /// The process exit code of a debate that ends with this verdict: 0 for
    /// the verdicts that clear the way, a distinct code for every other one.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Adopt | Verdict::Pass | Verdict::Proven => 0,
            Verdict::Revise => 3,
            Verdict::Reject => 4,
            Verdict::Escalate => 5,
            Verdict::Concerns => 6,
            Verdict::Fail => 7,
            Verdict::Unproven => 8,
        }
    }

    /// How the verdict reads: go, careful, stop, or undecided.
    pub fn tone(self) -> Tone {
        match self {
            Verdict::Adopt | Verdict::Pass | Verdict::Proven => Tone::Positive,
            Verdict::Revise | Verdict::Concerns => Tone::Caution,
            Verdict::Reject | Verdict::Fail => Tone::Negative,
            Verdict::Escalate | Verdict::Unproven => Tone::Uncertain,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The semantic colour of an ending or a ruling, shared by every protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tone {
    Positive,
    Caution,
    Negative,
    Uncertain,
}

/// Exit code of a debate that failed (a required agent gave no usable
/// answer) or of an I/O error.
pub const EXIT_FAILED: i32 = 1;
/// Exit code of a usage or configuration error; nothing was written.
pub const EXIT_USAGE: i32 = 2;

/// Exit code of a run stopped before a step that would cross its budget;
/// `quorum resume DIR --budget X` continues it.
pub const EXIT_BUDGET: i32 = 9;
/// `quorum probe`: a judge's figure fell under its `--fail-under` floor.
pub const EXIT_PROBE_FLOOR: i32 = 10;

/// The exit-code table, as `--help` and the README show it.
pub const EXIT_CODE_TABLE: &str = "\
Exit codes:
  0  ADOPT, PASS or PROVEN, a protocol that delivered its document (no verdict), or a command that succeeded
  1  the debate failed: a required agent gave no usable answer, or an I/O error
  2  usage or configuration error (bad flag, spec, script or context file); nothing was written
  3  REVISE
  4  REJECT
  5  ESCALATE
  6  CONCERNS
  7  FAIL
  8  UNPROVEN (a root-cause analysis that proved no single root cause)
  9  stopped before a step that would cross the budget (--budget, --budget-tokens); quorum resume DIR --budget X continues
 10  quorum probe: a judge's figure fell under its --fail-under floor";

/// How a debate ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// A verdict was derived from the record, by the rule it states.
    Decided { verdict: Verdict, rule: String },
    /// The protocol delivers a document and no verdict (a quick mode, a
    /// planning debate): `deliverable` is its path in the run folder, `note`
    /// one line on how it came about.
    Completed { deliverable: String, note: String },
    /// A required agent could not produce usable output; no verdict exists.
    Failed { reason: String },
}

impl Outcome {
    /// The process exit code for this outcome (see [`EXIT_CODE_TABLE`]).
    pub fn exit_code(&self) -> i32 {
        match self {
            Outcome::Decided { verdict, .. } => verdict.exit_code(),
            Outcome::Completed { .. } => 0,
            Outcome::Failed { .. } => EXIT_FAILED,
        }
    }

    pub fn verdict(&self) -> Option<Verdict> {
        match self {
            Outcome::Decided { verdict, .. } => Some(*verdict),
            _ => None,
        }
    }

    /// `ADOPT: analyst scored …`, `completed: panel-review.md (…)`,
    /// `no verdict: …`: the ending on one line, for people.
    pub fn headline(&self) -> String {
        match self {
            Outcome::Decided { verdict, rule } => format!("{verdict}: {rule}"),
            Outcome::Completed { deliverable, note } if note.is_empty() => {
                format!("completed: {deliverable}")
            }
            Outcome::Completed { deliverable, note } => {
                format!("completed: {deliverable} ({note})")
            }
            Outcome::Failed { reason } => format!("no verdict: {reason}"),
        }
    }

    /// The same outcome with its free text passed through `clean` (agent
    /// text reaches rules and reasons, so interfaces sanitise them).
    pub fn map_text(&self, clean: impl Fn(&str) -> String) -> Outcome {
        match self {
            Outcome::Decided { verdict, rule } => Outcome::Decided {
                verdict: *verdict,
                rule: clean(rule),
            },
            Outcome::Completed { deliverable, note } => Outcome::Completed {
                deliverable: clean(deliverable),
                note: clean(note),
            },
            Outcome::Failed { reason } => Outcome::Failed {
                reason: clean(reason),
            },
        }
    }
}

/// The moderator's call on one item (a critique item, a vulnerability, a
/// challenge): the same three answers in every protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemDecision {
    Accept,
    Reject,
    Defer,
}

impl ItemDecision {
    /// The one of three values that goes with this decision: `accept` for
    /// an acceptance, `reject` for a rejection, `defer` for a deferral.
    pub fn choose<T>(self, accept: T, reject: T, defer: T) -> T {
        match self {
            ItemDecision::Accept => accept,
            ItemDecision::Reject => reject,
            ItemDecision::Defer => defer,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.choose("accept", "reject", "defer")
    }

    /// `accepted`, `rejected`, `deferred`.
    pub fn past_tense(self) -> &'static str {
        self.choose("accepted", "rejected", "deferred")
    }

    /// Accepts `accept|a`, `reject|r`, `defer|d`, any case.
    pub fn parse(word: &str) -> Option<ItemDecision> {
        match word.trim().to_ascii_lowercase().as_str() {
            "a" | "accept" | "accepted" => Some(ItemDecision::Accept),
            "r" | "reject" | "rejected" => Some(ItemDecision::Reject),
            "d" | "defer" | "deferred" => Some(ItemDecision::Defer),
            _ => None,
        }
    }
}

/// A decision as the agent acting on it reads it in its prompt.
impl From<ItemDecision> for crate::rulings::Ruled {
    fn from(decision: ItemDecision) -> Self {
        match decision {
            ItemDecision::Accept => crate::rulings::Ruled::Accepted,
            ItemDecision::Reject => crate::rulings::Ruled::Rejected,
            ItemDecision::Defer => crate::rulings::Ruled::Deferred,
        }
    }
}

/// What a protocol calls the moderator's three decisions (issue 26): one
/// place for the words the interface's footer, help, item list and the
/// headless moderation prompt use. The keys stay `a`, `r`, `d` everywhere;
/// only the words follow the protocol (a council delivers, drops or holds
/// back a challenge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemWords {
    pub accept: &'static str,
    pub reject: &'static str,
    pub defer: &'static str,
    /// One sentence on what a decision means in this protocol, for the
    /// help and the moderation prompt; `None`: nothing beyond the words.
    pub about: Option<&'static str>,
}

impl Default for ItemWords {
    fn default() -> Self {
        ItemWords {
            accept: "accept",
            reject: "reject",
            defer: "defer",
            about: None,
        }
    }
}

impl ItemWords {
    /// The word for `decision`.
    pub fn word(&self, decision: ItemDecision) -> &'static str {
        match decision {
            ItemDecision::Accept => self.accept,
            ItemDecision::Reject => self.reject,
            ItemDecision::Defer => self.defer,
        }
    }

    /// `deliver, drop or hold back (a/r/d)`.
    pub fn choices(&self) -> String {
        format!("{}, {} or {} (a/r/d)", self.accept, self.reject, self.defer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 26: a protocol names its decisions in its own words (the
    /// moderation prompt reads them back: `engine::moderation`).
    #[test]
    fn a_protocols_words_name_and_read_its_decisions() {
        let council = ItemWords {
            accept: "deliver",
            reject: "drop",
            defer: "hold back",
            about: None,
        };
        assert_eq!(council.word(ItemDecision::Defer), "hold back");
        assert_eq!(council.choices(), "deliver, drop or hold back (a/r/d)");
        assert_eq!(
            ItemWords::default().choices(),
            "accept, reject or defer (a/r/d)"
        );
    }

    /// Every verdict has its own exit code; only the verdicts that clear the
    /// way exit 0, and none collides with failure (1) or usage (2).
    #[test]
    fn exit_codes_are_distinct_per_verdict() {
        let mut seen = std::collections::BTreeMap::new();
        for verdict in Verdict::ALL {
            let code = verdict.exit_code();
            assert!(code != EXIT_FAILED && code != EXIT_USAGE, "{verdict}");
            if code != 0 {
                assert_eq!(seen.insert(code, verdict), None, "{verdict} shares {code}");
            }
            assert!(
                EXIT_CODE_TABLE.contains(&format!("{code}  ")),
                "{verdict}'s code {code} is in the table"
            );
            assert!(EXIT_CODE_TABLE.contains(verdict.as_str()), "{verdict}");
        }
        assert_eq!(Verdict::Adopt.exit_code(), 0);
        assert_eq!(Verdict::Pass.exit_code(), 0);
    }

    #[test]
    fn endings_exit_as_documented() {
        let completed = Outcome::Completed {
            deliverable: "panel-review.md".into(),
            note: String::new(),
        };
        assert_eq!(completed.exit_code(), 0);
        assert_eq!(completed.verdict(), None);
        let failed = Outcome::Failed { reason: "x".into() };
        assert_eq!(failed.exit_code(), 1);
    }

    /// Journals written before the vocabulary grew still read.
    #[test]
    fn decided_outcomes_keep_their_journal_shape() {
        let outcome: Outcome =
            serde_json::from_str(r#"{"kind":"decided","verdict":"REVISE","rule":"r"}"#).unwrap();
        assert_eq!(outcome.verdict(), Some(Verdict::Revise));
    }
}
