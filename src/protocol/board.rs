//! What the interfaces show of a debate, in protocol-neutral terms: the
//! board (stages, the protocol's view, the moderation items with their
//! decisions and settlements), the scoreboard of a scored protocol, the
//! rulings of a protocol that derives them, and the revision's marked
//! changes. Every protocol builds one from its state; the engine publishes
//! it, the interface and the report draw it.

use serde::{Deserialize, Serialize};

use super::*;

/// What the interfaces show of a debate right now, in protocol-neutral
/// terms: the stage strip, the protocol's board view and the moderation
/// items with their decisions. Derived from the protocol's state, so a
/// resumed or replayed debate shows the same board.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Board {
    /// The protocol's stages in order; the last is where a finished debate
    /// stands.
    pub stages: Vec<StageInfo>,
    pub view: BoardView,
    pub items: Vec<BoardItem>,
    /// The moderator's decisions are needed before the debate can go on.
    pub needs_moderator: bool,
    /// Calls of judges a held round waits on: re-run them or go on
    /// without them. Empty when the wait is for the items.
    pub held_calls: Vec<String>,
    /// Role slots the debate cannot go on without right now: skipping one
    /// ends it.
    pub required_roles: Vec<String>,
    /// The debate has a verdict and deferred items that can still be
    /// accepted or rejected ([`Input::ItemResolved`]).
    pub resolvable: bool,
    /// Items accepted after the verdict wait for another round
    /// ([`Protocol::reopen_pending`]).
    pub reopen_pending: bool,
    /// How far the panel that decided agreed, in one line (`judges'
    /// agreement 0.62 (1 = full, 0 = chance), worth 2.4 of 3 independent
    /// judges, on 7 shared scores`), shown
    /// beside the verdict or the result (fair judging); none until it is
    /// measured, and never for a debate from before fair judging.
    pub agreement: Option<String>,
    /// Did the debate pay (issue 55): the plain vote of the panel's first
    /// round against the verdict, the positions that changed after it and
    /// their cost, a line each; empty until the verdict, and for a protocol
    /// whose panel decides no verdict.
    pub payoff: Vec<String>,
    /// What of the answers could not be read and was left out, with what
    /// that changed (issue 59): shown beside the items, so the moderator
    /// sees it before ruling, and marked on the pane of the role whose
    /// answer it was.
    pub unread: Vec<Unread>,
    /// Items of an answer that only its repair made readable: marked on the
    /// pane of the role, one line each (`critic: c3`).
    pub repaired: Vec<unread::Repaired>,
}

/// The kinds of board the interfaces know how to draw. A protocol picks one;
/// new kinds (findings, hypotheses, a critique log) join as their protocols
/// arrive.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum BoardView {
    /// No board: the panes and the items say everything.
    #[default]
    None,
    /// Blocks × criteria × judges of one evaluation round (decision review).
    Scores(Scoreboard),
    /// One ruling per subject, each derived by a stated rule (a hypothesis
    /// SURVIVED, WEAKENED or ELIMINATED; a finding confirmed or disputed).
    Rulings(Vec<Ruling>),
    /// A text and its revision side by side, the changes marked in both
    /// (a decision review in writing mode).
    Revision(RevisionView),
}

/// A draft and, once there is one, its revised text with what changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RevisionView {
    pub original: String,
    pub revised: Option<String>,
    pub changes: Vec<MarkedChange>,
}

/// One change to mark: its wording before (in the draft) and after (in
/// the revision); either may be empty.
#[derive(Clone, Debug, PartialEq)]
pub struct MarkedChange {
    pub location: String,
    /// `clarity`, `structure`, `tone`, `evidence`.
    pub kind: String,
    pub before: String,
    pub after: String,
}

/// What quorum derived about one subject of a debate (a hypothesis, a
/// finding), in the protocol's own word, with the rule that decided it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ruling {
    /// What it is about: `H2`, `F007`.
    pub subject: String,
    /// One line on the subject itself.
    pub title: String,
    /// The protocol's word: `SURVIVED`, `confirmed`; `None` while open.
    pub word: Option<String>,
    /// How the word reads, for its colour.
    #[serde(skip)]
    pub tone: Option<Tone>,
    /// The rule that decided it, in plain words.
    pub rule: String,
    /// Short facts about the subject, in the order shown: its owner, how
    /// many challenges are open, the hedge words flagged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<Fact>,
}

/// One labelled fact on a board row: `owner alpha`, `open 2`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    pub label: String,
    pub value: String,
    /// Something the moderator should look at (a hedge word).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub warn: bool,
}

impl Fact {
    pub fn new(label: &str, value: &str) -> Self {
        Fact {
            label: label.to_string(),
            value: value.to_string(),
            warn: false,
        }
    }

    /// A fact that calls for attention.
    pub fn warning(label: &str, value: &str) -> Self {
        Fact {
            warn: true,
            ..Fact::new(label, value)
        }
    }
}

impl BoardView {
    /// The score matrix, if this board is one.
    pub fn scoreboard(&self) -> Option<&Scoreboard> {
        match self {
            BoardView::Scores(scoreboard) => Some(scoreboard),
            BoardView::Rulings(_) | BoardView::Revision(_) | BoardView::None => None,
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, BoardView::None)
    }
}

/// One moderation item and what the moderator made of it so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardItem {
    pub item: ModerationItem,
    pub decision: Option<ItemDecision>,
    pub note: Option<String>,
    /// Who made the decision, where it was recorded.
    pub ruler: Option<Ruler>,
    /// How a deferred item was settled after the verdict, if it was.
    pub resolution: Option<ItemResolution>,
    /// Each citation in the item and the text it targets, checked
    /// against the debate's sources (issue 52): `✓ "…" — app.log
    /// (verified at app.log:L3)`. Filled by the skeleton; empty when
    /// nothing is cited.
    pub evidence: Vec<String>,
}

/// One part of what a debate proposed (a block, a paragraph), as it was
/// and as it ended, with what changed it, for a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedPart {
    /// `b2 (implementation)`, `second paragraph`.
    pub part: String,
    /// Empty for a part the revision added.
    pub before: String,
    /// Empty for a part the revision withdrew.
    pub after: String,
    /// What caused the change, one line each: the critique item or
    /// directive, the moderator's ruling and the author's reason.
    pub causes: Vec<String>,
    /// Whether the part is a Markdown document (a plan, a design), shown
    /// rendered (inert) rather than as plain text.
    pub markdown: bool,
}

/// How a deferred item was settled after the verdict ([`Input::ItemResolved`]).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemResolution {
    /// Accept or reject; a resolution never defers again.
    pub decision: ItemDecision,
    pub note: Option<String>,
    pub at: Timestamp,
    /// Who settled it, where it was recorded.
    #[serde(default)]
    pub ruler: Option<Ruler>,
}

/// Blocks × criteria × judges of one evaluation round.
#[derive(Clone, Debug, PartialEq)]
pub struct Scoreboard {
    pub round: u32,
    pub blocks: Vec<String>,
    pub judges: Vec<ScoreColumn>,
    /// A binding judge's score below this fails the proposal.
    pub binding_threshold: u8,
    /// The verdict the scores so far imply, with the rule that decides it.
    pub implied: Option<ImpliedVerdict>,
    /// A comparison's standing instead of a verdict: the options ranked so
    /// far and what would change the leader (rows are then options, each
    /// score a judge's mean over the option's blocks, rounded).
    pub leader: Option<String>,
    /// How the panel was kept fair (`blind · each judge its own order ·
    /// recusal: flag`); none for a debate from before fair judging.
    pub fairness: Option<String>,
    /// How far the judges agreed, once all are in, as
    /// [`Agreement::summary`](fairness::agreement::Agreement::summary)
    /// says it.
    pub agreement: Option<String>,
}

/// One judge's column group on the scoreboard.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreColumn {
    pub judge: String,
    pub binding: bool,
    pub criteria: Vec<String>,
    pub state: JudgeState,
    /// `scores[block][criterion]`, in the order of `blocks` and `criteria`.
    pub scores: Vec<Vec<Option<u8>>>,
    /// Mean of the three synthesis values, once scored.
    pub synthesis: Option<f64>,
    /// The judge shares the model family of the author it judges
    /// (`shares the proposer's model family (anthropic): flagged`).
    pub kin: Option<String>,
}

/// Where a judge is in the current round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JudgeState {
    Pending,
    Scored,
    Malformed(String),
    Skipped(String),
    /// Left out: it shares the model family of the author it would judge.
    Recused(String),
    /// Not asked this round: it scores only the final revision (issue 29).
    HeldOut,
}

/// The verdict the scores imply before every judge is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpliedVerdict {
    pub verdict: Verdict,
    pub rule: String,
    /// Judges still working; the verdict can change until this is 0.
    pub pending: usize,
}
