//! What a root-cause analysis is made of: hypotheses with their evidence,
//! the critic's challenges to them, the owners' answers and the critic's
//! rulings on those answers, each step kept for the record.

use serde::{Deserialize, Serialize};

/// A moderator's decision on a challenge or a ruling, for the record.
pub use crate::protocol::moderated::Moderated;

/// The nine tests the critic applies to every finding (RC-08).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// What shows X caused Y rather than came before it.
    Causation,
    /// Could the same evidence be explained by something else.
    Alternatives,
    /// A factor the debugger did not account for.
    Confounders,
    /// A consequence that must also hold if the hypothesis is true.
    Contradictions,
    /// Timestamps proving the order of cause and effect.
    Timeline,
    /// The cited code path runs under the bug's conditions.
    Reachability,
    /// More than one data point; coincidence ruled out.
    Sufficiency,
    /// The specific commit or change, with its diff.
    CulpritChange,
    /// The change was live when the problem began.
    ReleaseTiming,
}

impl Test {
    pub const ALL: [Test; 9] = [
        Test::Causation,
        Test::Alternatives,
        Test::Confounders,
        Test::Contradictions,
        Test::Timeline,
        Test::Reachability,
        Test::Sufficiency,
        Test::CulpritChange,
        Test::ReleaseTiming,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Test::Causation => "causation",
            Test::Alternatives => "alternatives",
            Test::Confounders => "confounders",
            Test::Contradictions => "contradictions",
            Test::Timeline => "timeline",
            Test::Reachability => "reachability",
            Test::Sufficiency => "sufficiency",
            Test::CulpritChange => "culprit_change",
            Test::ReleaseTiming => "release_timing",
        }
    }

    /// What the test asks, in a line, for prompts and the record.
    pub fn question(self) -> &'static str {
        match self {
            Test::Causation => "what shows the cause produced the effect, not merely preceded it",
            Test::Alternatives => {
                "which other explanation fits the same evidence, and what rules it out"
            }
            Test::Confounders => {
                "which other factor changed at the same time, and how it was excluded"
            }
            Test::Contradictions => {
                "what else must be true if the hypothesis holds, and whether it was checked"
            }
            Test::Timeline => "timestamps that put the cause before the effect",
            Test::Reachability => {
                "proof the cited code path runs under the conditions of the failure"
            }
            Test::Sufficiency => "more than one data point, and what rules out coincidence",
            Test::CulpritChange => {
                "the specific commit or change that introduced it, with its diff"
            }
            Test::ReleaseTiming => "that the change was live when the problem first appeared",
        }
    }
}

/// Where a hypothesis stands (RC-05, RC-13). `None` on a hypothesis means
/// it is still active.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// Every challenge answered and resolved.
    Survived,
    /// Something stayed unanswered or unresolved; not definitive (RC-07).
    Weakened,
    /// Contradicted by the owner's own evidence, or a critical challenge
    /// went unanswered.
    Eliminated,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Survived => "SURVIVED",
            Status::Weakened => "WEAKENED",
            Status::Eliminated => "ELIMINATED",
        }
    }

    pub fn tone(self) -> crate::protocol::Tone {
        match self {
            Status::Survived => crate::protocol::Tone::Positive,
            Status::Weakened => crate::protocol::Tone::Caution,
            Status::Eliminated => crate::protocol::Tone::Negative,
        }
    }
}

/// A hypothesis as a debugger (or a team's hypotheses file) put it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The proposed root cause, as one claim.
    pub claim: String,
    /// What it rests on: log entries, traces, `file:line`, commits, graphs.
    #[serde(default)]
    pub evidence: Vec<String>,
    /// The chain from the evidence to the claim.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
}

/// One hypothesis on the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hypothesis {
    /// `H1`, numbered by quorum.
    pub id: String,
    /// The debugger that owns it: its name, without `debugger.`.
    pub owner: String,
    pub finding: Finding,
    /// Where it came from: `round 1 findings` or `hypotheses file`.
    pub source: String,
    /// Hedge words in its claim and reasoning (A29).
    pub hedges: Vec<&'static str>,
}

/// The critic's verdict on one answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RulingWord {
    /// The answer settles the challenge with concrete evidence.
    Resolved,
    /// It does not; the critic says what is still missing (RC-12).
    Unresolved,
    /// The answer or the owner's own evidence contradicts the hypothesis.
    Contradicted,
}

impl RulingWord {
    pub fn as_str(self) -> &'static str {
        match self {
            RulingWord::Resolved => "resolved",
            RulingWord::Unresolved => "unresolved",
            RulingWord::Contradicted => "contradicted",
        }
    }
}

/// A challenge as the critic wrote it (RC-09, A28).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeText {
    pub test: Test,
    /// A critical challenge left unanswered eliminates its hypothesis.
    pub critical: bool,
    /// (a) the claim it challenges, quoted.
    pub quote: String,
    /// (b) why the evidence is insufficient or suspect.
    pub why: String,
    /// (c) exactly what evidence would settle it.
    pub evidence_needed: String,
    /// (d) the alternative explanation the owner must rule out.
    pub alternative: String,
}

/// The critic's ruling on an answer, as written (RC-12 for `unresolved`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulingText {
    pub ruling: RulingWord,
    pub reason: String,
    /// For `unresolved`: what is missing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub missing: String,
    /// For `unresolved`: what evidence would satisfy the critic.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub evidence_needed: String,
    /// For `unresolved`: the alternative still to disprove.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub alternative: String,
}

/// An owner's answer to one challenge, as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerText {
    /// The owner says it cannot answer: the challenge stands unanswered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub concede: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub answer: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
}

/// Where one challenge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeState {
    /// Raised by the critic; the moderator has not decided it.
    Proposed,
    /// The moderator deferred it: offered again at the next moderation.
    Held,
    /// The moderator rejected it: never delivered, not counted.
    Withdrawn,
    /// Delivered to the owner; waiting for an answer.
    Open,
    /// Answered; waiting for the critic's ruling.
    Answered,
    /// The critic ruled the answer settles it.
    Resolved,
    /// The critic ruled the hypothesis contradicted.
    Contradicted,
    /// The owner conceded it cannot answer.
    Conceded,
}

impl ChallengeState {
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeState::Proposed => "proposed",
            ChallengeState::Held => "held",
            ChallengeState::Withdrawn => "withdrawn",
            ChallengeState::Open => "open",
            ChallengeState::Answered => "answered",
            ChallengeState::Resolved => "resolved",
            ChallengeState::Contradicted => "contradicted",
            ChallengeState::Conceded => "conceded",
        }
    }

    /// It reached its owner.
    pub fn delivered(self) -> bool {
        !matches!(
            self,
            ChallengeState::Proposed | ChallengeState::Held | ChallengeState::Withdrawn
        )
    }
}

/// An owner's answer, with the round it came in and its hedge words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub round: u32,
    #[serde(flatten)]
    pub text: AnswerText,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hedges: Vec<String>,
}

/// A ruling of the critic, with the moderator's word on it.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ruling {
    pub round: u32,
    /// The closing ruling after the last round, not a round's own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closing: bool,
    #[serde(flatten)]
    pub text: RulingText,
    /// Upheld (accept), overturned (reject) or sent back to the critic
    /// (defer); `None` while the moderator has not decided.
    pub moderation: Option<Moderated>,
}

impl Ruling {
    /// How its moderation item is named: `X2.1-r3`, `X2.1-final`.
    pub fn item_id(&self, challenge: &str) -> String {
        if self.closing {
            format!("{challenge}-final")
        } else {
            format!("{challenge}-r{}", self.round)
        }
    }

    /// What the ruling comes to once the moderator has had a say: the
    /// critic's word upheld, or overturned (resolved and unresolved swap; a
    /// contradiction overturned is unresolved). `None` when the moderator
    /// sent it back or has not decided.
    pub fn effective(&self) -> Option<RulingWord> {
        use crate::protocol::ItemDecision;
        match self.moderation.as_ref().map(|moderated| moderated.decision) {
            Some(ItemDecision::Accept) => Some(self.text.ruling),
            Some(ItemDecision::Reject) => Some(match self.text.ruling {
                RulingWord::Resolved | RulingWord::Contradicted => RulingWord::Unresolved,
                RulingWord::Unresolved => RulingWord::Resolved,
            }),
            Some(ItemDecision::Defer) | None => None,
        }
    }
}

/// Why a delivered challenge got no answer in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissKind {
    /// The owner answered, but not this challenge.
    Omitted,
    /// The owner's call gave no usable answer (timed out, failed, skipped,
    /// unparseable): no fault of the hypothesis.
    Failed,
}

/// A round in which a delivered challenge got no answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Miss {
    pub round: u32,
    pub kind: MissKind,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// One challenge and everything that happened to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    /// `X2.1`: the first challenge to `H2`, numbered by quorum.
    pub id: String,
    /// The hypothesis it challenges, `H2`.
    pub hypothesis: String,
    /// The round the critic raised it in.
    pub round: u32,
    #[serde(flatten)]
    pub text: ChallengeText,
    pub state: ChallengeState,
    /// The moderator's decisions on delivering it, one per moderation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moderation: Vec<Moderated>,
    /// The rounds it was put to its owner in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delivered_in: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<Answer>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misses: Vec<Miss>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rulings: Vec<Ruling>,
}

/// What became of asking the owner of the one surviving hypothesis to
/// restate a claim that hedges (RC-10, RC-16): a hedged claim is not a
/// proven root cause, so the owner gets one chance to state it plainly.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restatement {
    /// The hypothesis that survived alone, `H2`.
    pub hypothesis: String,
    /// The hedge words of its claim as first written.
    pub hedges: Vec<String>,
    /// The claim as its owner restated it, when it gave one.
    pub claim: Option<String>,
    /// Hedge words still in the restatement.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub still_hedged: Vec<String>,
    /// Why there is no usable restatement, when there is none.
    pub failed: Option<String>,
    /// The critic's ruling on a plain restatement, and the moderator's
    /// decision on it (issue 60): a restatement can say more than the
    /// evidence did, so it is examined before it is printed as the root
    /// cause. Absent from an analysis from before that rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examination: Option<Examination>,
}

impl Restatement {
    /// The owner stated the claim without a hedge word.
    pub fn plain(&self) -> bool {
        self.claim.is_some() && self.still_hedged.is_empty() && self.failed.is_none()
    }

    /// The plain restatement, examined and found supported by the
    /// evidence: the critic's ruling as the moderator left it.
    pub fn confirmed(&self) -> bool {
        self.plain()
            && self.examination.as_ref().and_then(Examination::effective)
                == Some(ExamWord::Supported)
    }
}

/// The critic's word on a restated claim: does the evidence carry it?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExamWord {
    /// The evidence shows what the restatement says.
    Supported,
    /// The restatement says more than the evidence shows.
    Overreaches,
}

impl ExamWord {
    pub fn as_str(self) -> &'static str {
        match self {
            ExamWord::Supported => "supported",
            ExamWord::Overreaches => "overreaches",
        }
    }

    fn flipped(self) -> ExamWord {
        match self {
            ExamWord::Supported => ExamWord::Overreaches,
            ExamWord::Overreaches => ExamWord::Supported,
        }
    }
}

/// The critic's examination of a restated claim (issue 60).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Examination {
    /// The critic's ruling, when it gave one quorum could read.
    pub ruling: Option<ExamWord>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Why there is no ruling, when there is none.
    pub failed: Option<String>,
    /// Upheld (accept), overturned (reject) or left unconfirmed (defer).
    pub moderation: Option<Moderated>,
}

impl Examination {
    /// The ruling as the moderator left it: upheld or undecided, as the
    /// critic gave it; overturned, the other way; deferred, none.
    pub fn effective(&self) -> Option<ExamWord> {
        use crate::protocol::ItemDecision;
        let ruling = self.ruling?;
        match self.moderation.as_ref().map(|moderated| moderated.decision) {
            None | Some(ItemDecision::Accept) => Some(ruling),
            Some(ItemDecision::Reject) => Some(ruling.flipped()),
            Some(ItemDecision::Defer) => None,
        }
    }
}
