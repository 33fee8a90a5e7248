//! The decision-review protocol: proposal → critique → moderation → revision
//! → evaluation, with REVISE looping back to revision (debate skill,
//! "Decision Review Protocol"; RULES.md DR-01..51).
//!
//! Responsible for the order of the stages, what every prompt carries, how
//! each output is parsed and what a parse failure means, the moderator's
//! decisions on critique items, the judge panel of each round and the verdict
//! that ends (or loops) the run; after a verdict, how deferred items are
//! settled and when the settlement reopens the debate for one more revision
//! and evaluation round. Not responsible for I/O: the raw-output paths
//! it names are written by the engine, and [`Protocol::documents`] only says
//! what the files contain.

mod changes;
pub mod documents;
mod evaluation;
mod evidence;
pub mod kind;
pub mod model;
mod moderation;
pub mod parse;
mod payoff;
pub mod prompts;
mod proposal;
pub mod ranking;
pub mod record;
mod revision;
mod rules;
mod scoreboard;
pub mod stability;
pub mod verdict;
pub mod writing;

pub use kind::KIND;

/// What a spec's `protocol:` says for a decision review.
pub const NAME: &str = "decision-review";
pub use model::HandedItems;

use crate::protocol::fairness::{self, Blindfold, Fairness, Kinship, agreement::Agreement};
use crate::protocol::{Answer, DebateCore, SharedSteps, StageFocus};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::model::{
    ChangeEntry, ChangeType, CritiqueItem, CritiqueMode, ItemDecision, JudgeConfig, JudgeResult,
    JudgeRole, RevisionOutput, ThesisTree, Verdict,
};
use self::parse::ParsedCritique;
use self::prompts::Template;
use self::verdict::{Assessment, Thresholds};
use crate::prompts::PromptSet;

use super::calls::Calls;
use super::roster::{Roster, Seat};
use super::supervision::Slot;
use super::usage::{Price, UsageLedger};
use super::{
    CallSpec, Effect, ItemResolution, LogKind, ModerationItem, Outcome, RoleGroup, Timestamp,
};

pub use super::ContextDoc;
pub use super::calls::CallDiagnostic;

/// The role the proposer plays in the record (DR-22).
pub const PROPOSER_ROLE: &str = "oracle";
/// The role the critic plays in the record (DR-22).
pub const CRITIC_ROLE: &str = "mephistopheles";

/// The role slots a decision review seats, as a spec, a flag or the configuration
/// names them.
pub const SLOTS: &[&str] = &[
    "proposer",
    "critic",
    "judge.analyst",
    "judge.stylist",
    "judge.aesthete",
    "judge.strategist",
    "judge.empiricist",
    "judge.*",
    "synthesizer",
];

/// The words its roles go by (its slots' words and the record's `oracle`
/// and `mephistopheles`), which a reader-first opening does not carry
/// (RF-06, RF-08).
pub fn role_words() -> Vec<&'static str> {
    crate::protocol::kind::slot_words(SLOTS, &[PROPOSER_ROLE, CRITIC_ROLE])
}

/// The decision-review modes (DR-43): one proposal judged for a verdict
/// (architecture), several options compared and ranked (comparative,
/// DR-52..DR-57), or a draft rewritten by the judges and merged (writing,
/// the rewrite-and-merge state machine of [`writing`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewMode {
    #[default]
    Architecture,
    Comparative,
    Writing,
}

impl ReviewMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewMode::Architecture => "architecture",
            ReviewMode::Comparative => "comparative",
            ReviewMode::Writing => "writing",
        }
    }
}

/// One option of a comparative review.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewOption {
    /// `A`: what blocks name in `option:`.
    pub id: String,
    /// The option as given.
    pub text: String,
}

/// Which agent stands behind each role, recorded as `provider:model`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Participants {
    pub proposer: String,
    pub critic: String,
    pub judges: BTreeMap<JudgeRole, String>,
    /// The configured price of each participating `provider:model` that has
    /// one, recorded so that costs can be recomputed from the record alone.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, Price>,
}

impl Participants {
    /// Every role slot with the `provider:model` playing it.
    pub fn by_slot(&self) -> BTreeMap<String, String> {
        [
            ("proposer".to_string(), self.proposer.clone()),
            ("critic".to_string(), self.critic.clone()),
        ]
        .into_iter()
        .chain(
            self.judges
                .iter()
                .map(|(role, agent)| (judge_slot_role(*role), agent.clone())),
        )
        .collect()
    }
}

/// Everything that defines one decision review. Journaled as the first event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewConfig {
    pub topic: String,
    #[serde(default)]
    pub context: Vec<ContextDoc>,
    pub mode: ReviewMode,
    /// The options a comparative review ranks; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<ReviewOption>,
    pub critique_mode: CritiqueMode,
    pub high_stakes: bool,
    /// Judges with their weights and criteria, fixed for the run (INF-29).
    pub panel: Vec<JudgeConfig>,
    /// How many times a REVISE verdict may send the proposal back to the
    /// revision stage; after that a REVISE is final (RULES.md A8).
    pub max_rounds: u32,
    pub thresholds: Thresholds,
    pub participants: Participants,
    pub started_at: Timestamp,
    /// A person moderates live: a round whose judges are all in but one of
    /// them is malformed or skipped waits for them to re-run that judge or
    /// go on without it. Headless runs never wait.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold_for_moderator: bool,
    /// The revision is checked against the moderator's rulings and asked
    /// once more when it goes against them (issue 26). Every debate started
    /// now does; a debate journaled before it (the field absent) folds as
    /// it ran, so resuming or replaying it never starts a call it never had.
    #[serde(default)]
    pub checks_rulings: bool,
    /// Blind judging, each judge's order, the roles' model families and
    /// the recusal policy (issue 29); a debate journaled before it has the
    /// legacy setting and judges as it did.
    #[serde(default, skip_serializing_if = "Fairness::is_legacy")]
    pub fairness: Fairness,
    /// Findings another debate handed on (`--from DIR`): critique items
    /// `f1`, `f2`, … after the critic's own, ruled on like them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handed: Option<HandedItems>,
    /// What the agents may cite, each with its hash at the start (issue 52).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<crate::evidence::SourceRecord>,
    /// Its citations are checked (issue 52). Every review started now is;
    /// one journaled before (the field absent) files none, so that its
    /// files rebuild as they were.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub checks_evidence: bool,
    /// Its verdict says whether the debate paid (issue 55, `payoff`).
    /// Every review started now does; one journaled before (the field
    /// absent) does not, so that its files rebuild as they were.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub weighs_payoff: bool,
    /// The stability receipt asked for (issue 55): `stability: K` and
    /// `require_stability`, flat beside the rest; absent: none.
    #[serde(flatten)]
    pub stability: crate::protocol::stability::Stability,
    /// Binding judges the library's calibration seated advisory (issue
    /// 55), each with its figure and the floor; their weight in `panel` is
    /// already advisory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calibration: Vec<model::Reseated>,
}

/// The protocol's stages, in order (DR-01), plus the moderator's turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Proposal,
    Critique,
    Moderation,
    Revision,
    Evaluation,
    Done,
}

impl crate::protocol::Stage for Stage {
    const DONE: Stage = Stage::Done;
    const EVERY: &'static [Stage] = &[
        Stage::Proposal,
        Stage::Critique,
        Stage::Moderation,
        Stage::Revision,
        Stage::Evaluation,
        Stage::Done,
    ];

    fn id(self) -> &'static str {
        match self {
            Stage::Proposal => "proposal",
            Stage::Critique => "critique",
            Stage::Moderation => "moderation",
            Stage::Revision => "revision",
            Stage::Evaluation => "evaluation",
            Stage::Done => "verdict",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Stage::Proposal => "Proposal",
            Stage::Critique => "Critique",
            Stage::Moderation => "Moderation",
            Stage::Revision => "Revision",
            Stage::Evaluation => "Evaluation",
            Stage::Done => "Verdict",
        }
    }

    fn focus(self) -> StageFocus {
        match self {
            Stage::Proposal | Stage::Revision => StageFocus::Role("proposer".into()),
            Stage::Critique => StageFocus::Role("critic".into()),
            Stage::Moderation => StageFocus::Items,
            Stage::Evaluation => StageFocus::Board,
            Stage::Done => StageFocus::Stay,
        }
    }

    fn moderates(self) -> bool {
        self == Stage::Moderation
    }

    /// A revision and its evaluation are a round's (DR-01); the rounds
    /// have no fixed maximum in the log.
    fn counts_rounds(self) -> bool {
        matches!(self, Stage::Revision | Stage::Evaluation)
    }
}

/// A stage output that parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Collected<T> {
    pub call_id: String,
    pub raw: String,
    pub parsed: T,
    /// What the reader took other than as written (`read target_block
    /// "B2" as b2 (critiques[0])`); empty for an answer in the exact format.
    pub normalised: Vec<String>,
    pub at: Timestamp,
}

/// An output that could not be parsed, kept for the record (INF-07, INF-09).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MalformedOutput {
    pub call_id: String,
    pub role: String,
    pub stage: String,
    pub round: u32,
    pub raw: String,
    pub reason: String,
    pub at: Timestamp,
}

/// The moderator's decision on one critique item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemRuling {
    pub decision: ItemDecision,
    pub note: Option<String>,
    pub at: Timestamp,
    /// Who ruled, where it was recorded.
    pub ruler: Option<crate::protocol::Ruler>,
}

/// A requirement a REVISE verdict sends back to the proposer (RULES.md A8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberedDirective {
    pub id: String,
    pub text: String,
    /// Where it came from, e.g. `analyst on b2 feasibility (2)`.
    pub source: String,
}

/// One revision of the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct RevisionRound {
    pub round: u32,
    pub call_id: String,
    pub raw: String,
    pub output: RevisionOutput,
    /// Ids the change log had to address: accepted items, then directives.
    pub must_address: Vec<String>,
    pub directives: Vec<NumberedDirective>,
    /// What the reader took other than as written.
    pub normalised: Vec<String>,
    /// Where the kept answer still goes against the moderator's rulings
    /// after it was asked once more: stated in the deliverables.
    pub against_rulings: Vec<String>,
    pub at: Timestamp,
}

/// One judge in one round.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JudgeRecord {
    pub call_id: Option<String>,
    /// The attempt of that call (a moderator's re-run is the next one).
    pub attempt: u32,
    /// The prompt this judge was sent, for a moderator's re-run.
    pub prompt: Option<String>,
    /// Answers a moderator's re-run replaced, oldest first; each keeps its
    /// own file (see [`superseded_judge_file`]).
    pub superseded: Vec<SupersededAnswer>,
    /// Verbatim output, as persisted in its judge file.
    pub raw: Option<String>,
    /// `None` while the judge is still working.
    pub result: Option<JudgeResult>,
    /// What the reader took other than as written in the latest answer
    /// (`read score "4" as 4 (b2 feasibility)`).
    pub normalised: Vec<String>,
    /// The blocks in the order this judge read them.
    pub block_order: Vec<String>,
    /// Its criteria in the order it read them.
    pub criteria_order: Vec<String>,
    /// It shares the proposer's model family (flagged or recused).
    pub kinship: Option<Kinship>,
    /// When its latest call started, and when that call answered or was
    /// given up: how long it took, for the missing judges' sentence.
    pub started_at: Option<Timestamp>,
    pub finished_at: Option<Timestamp>,
}

impl JudgeRecord {
    /// How long its latest call ran, when both ends are known.
    pub fn elapsed_ms(&self) -> Option<u64> {
        let ms = (self.finished_at? - self.started_at?).num_milliseconds();
        u64::try_from(ms).ok()
    }
}

/// What every judge of a round reads alike (and every variant of its
/// stability receipt, in its own order).
struct JudgesReading {
    tree: ThesisTree,
    change_log_yaml: String,
    rulings: String,
    context: serde_json::Value,
}

/// A judge's answer that a re-run replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SupersededAnswer {
    pub call_id: String,
    pub attempt: u32,
    /// Verbatim output; `None` for a judge that was skipped.
    pub raw: Option<String>,
    /// Why it did not count.
    pub reason: String,
}

/// One evaluation round.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluationRound {
    pub round: u32,
    pub judges: BTreeMap<JudgeRole, JudgeRecord>,
    pub assessment: Option<Assessment>,
    /// A comparative review's ranking, in place of a verdict (A15).
    pub ranking: Option<ranking::Ranking>,
    /// Every judge is in, one is malformed or skipped, and the moderator
    /// decides whether to re-run it (see [`ReviewConfig::hold_for_moderator`]).
    pub held: bool,
    /// The moderator chose to go on without the missing judges.
    pub released: bool,
    /// What masking hid of the authors' self-identification in what the
    /// judges read (`masked \`Claude\` as [model]`).
    pub masked: Vec<String>,
    /// How far the judges agreed and how many independent votes they were
    /// worth, once every judge is in.
    pub agreement: Option<Agreement>,
    /// The binding judges cited, and none of their citations verified: the
    /// first that failed, in words (issue 52). An ADOPT of this round is
    /// ESCALATE instead.
    pub unverified_binding: Option<String>,
    /// The stability receipt of this round, when it gave the verdict that
    /// ends the debate and the debate asked for one (issue 55).
    pub stability: Option<stability::StabilityRun>,
}

impl EvaluationRound {
    /// Results of the judges that are done.
    pub fn results(&self) -> BTreeMap<JudgeRole, JudgeResult> {
        self.judges
            .iter()
            .filter_map(|(role, record)| Some((*role, record.result.clone()?)))
            .collect()
    }

    /// How far the judges who scored agreed, and how many independent
    /// votes they were worth (issue 29). Judges of one panel score other
    /// criteria, so what they share is each block, taken at the judge's
    /// lowest score on it (the score a binding judge's veto reads), and
    /// the three synthesis values every judge gives.
    pub fn agreement(&self) -> Agreement {
        let scored: Vec<&model::JudgeScores> = self
            .judges
            .values()
            .filter_map(|record| record.result.as_ref()?.scores())
            .collect();
        let mut blocks: Vec<&str> = scored
            .iter()
            .flat_map(|scores| scores.block_scores.iter().map(|s| s.block_id.as_str()))
            .collect();
        blocks.sort_unstable();
        blocks.dedup();
        let lowest = |scores: &model::JudgeScores, block: &str| {
            scores
                .block_scores
                .iter()
                .filter(|score| score.block_id == block)
                .map(|score| score.score)
                .min()
        };
        let mut units: Vec<Vec<Option<u8>>> = blocks
            .iter()
            .map(|block| scored.iter().map(|scores| lowest(scores, block)).collect())
            .collect();
        let synthesis: [fn(&model::SynthesisScore) -> u8; 3] = [
            |s| s.integration,
            |s| s.risk_coverage,
            |s| s.revision_quality,
        ];
        units.extend(synthesis.iter().map(|value| {
            scored
                .iter()
                .map(|scores| Some(value(&scores.synthesis)))
                .collect()
        }));
        crate::protocol::fairness::agreement::agreement(
            &crate::protocol::fairness::agreement::Ratings {
                judges: scored.len(),
                units,
            },
        )
    }
}

/// How the revisions met a critique item or directive they had to
/// address ([`DecisionReview::answer_to`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemAnswer<'a> {
    /// A change made in revision round `round` answers it.
    Changed { round: u32 },
    /// Revision round `round` left the tree as it was for it: the proposer
    /// declined, giving `reason`. The item stands unanswered.
    Declined { round: u32, reason: &'a str },
}

/// The decision fields of an architecture review (DR-50, RULES.md A13),
/// derived by quorum from the record, never written by an agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionRecord {
    pub decision: Verdict,
    pub recommendation: String,
    pub strongest_objection: String,
    pub what_changed: String,
    pub remaining_uncertainty: String,
    pub reversal_trigger: String,
    pub surviving_blocks: Vec<String>,
    /// The rule that decided, in plain words.
    pub deciding_rule: String,
}

/// The file a judge's raw output goes to (INF-05, RULES.md A8). Non-scoring
/// modes (panel review, writing) run one round, so their deliverables land at
/// `judges/judge-{role}.md` with no suffix (INF-11).
pub fn judge_file(role: JudgeRole, round: u32) -> String {
    if round <= 1 {
        format!("judges/judge-{role}.md")
    } else {
        format!("judges/judge-{role}-round-{round}.md")
    }
}

/// The slot name of a judge: `judge.analyst`.
/// Where a judge's answer that a re-run replaced is kept:
/// `judges/judge-stylist-attempt-1.md`, `judges/judge-stylist-round-2-attempt-1.md`.
pub fn superseded_judge_file(role: JudgeRole, round: u32, attempt: u32) -> String {
    let file = judge_file(role, round);
    let stem = file.strip_suffix(".md").unwrap_or(&file);
    format!("{stem}-attempt-{attempt}.md")
}

pub fn judge_slot_role(role: JudgeRole) -> String {
    role.slot()
}

/// A seat of a decision review that judges a proposal or compares
/// options, as its rules name it (the writing mode has its own,
/// [`writing::Role`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Proposer,
    Critic,
    /// A judge of the panel.
    Judge(JudgeRole),
}

/// The seats of a review whose panel is `judges`: the proposer, the
/// critic, then each judge in the panel's order.
pub fn roster(judges: impl IntoIterator<Item = JudgeRole>) -> Roster<Role> {
    let judges = judges.into_iter().map(|judge| {
        let title = crate::words::capitalised(judge.as_str());
        Seat::new(Role::Judge(judge), judge.slot(), title, RoleGroup::Panel)
    });
    let proposer = Seat::new(Role::Proposer, "proposer", "Proposer", RoleGroup::Lead);
    let critic = Seat::new(Role::Critic, "critic", "Critic", RoleGroup::Challenger);
    [proposer, critic].into_iter().chain(judges).collect()
}

/// A running decision review.
pub struct DecisionReview {
    config: ReviewConfig,
    /// Where it stands: its stage and round (DR-01); its proposer, critic
    /// and judges.
    core: DebateCore<Stage, Role>,
    proposal: Option<Collected<ThesisTree>>,
    critique: Option<Collected<ParsedCritique>>,
    /// The ids of the critique's items, to look one up without a scan.
    critique_ids: HashSet<String>,
    /// The moderator's decisions on the critique items, in the book every
    /// protocol keeps them in.
    items: super::items::ItemBook<()>,
    revisions: Vec<RevisionRound>,
    /// For each id a revision had to address, the first revision round
    /// that had to: [`addressed_in_round`](Self::addressed_in_round)
    /// without a scan of every round.
    addressed: HashMap<String, u32>,
    evaluations: Vec<EvaluationRound>,
    malformed: Vec<MalformedOutput>,
    /// Directives of the last REVISE verdict, handed to the next revision.
    pending_directives: Vec<NumberedDirective>,
    /// What sent the proposal back, for the reviser (`the binding judges`,
    /// `the over-engineering guard`, `the synthesis scores`).
    pending_sent_back_by: Vec<&'static str>,
    /// Advisory judges' low scores, passed to the reviser as notes (A6).
    pending_advisory: Vec<String>,
    /// Ids the running revision must address.
    pending_must_address: Vec<String>,
}

crate::lend_core!(DecisionReview, core, Stage, Role);

impl DecisionReview {
    pub fn new(config: ReviewConfig, prompts: Arc<PromptSet>) -> Self {
        let calls = Calls::new(
            config.participants.by_slot(),
            config.participants.prices.clone(),
        );
        let roster = roster(config.panel.iter().map(|judge| judge.role));
        let evidence = crate::protocol::evidence::Evidence::open(
            &config.context,
            &config.sources,
            config.checks_evidence,
        );
        DecisionReview {
            config,
            core: DebateCore::new(Stage::Proposal, roster, calls, prompts).with_evidence(evidence),
            proposal: None,
            critique: None,
            critique_ids: HashSet::new(),
            items: super::items::ItemBook::default(),
            revisions: Vec::new(),
            addressed: HashMap::new(),
            evaluations: Vec::new(),
            malformed: Vec::new(),
            pending_directives: Vec::new(),
            pending_sent_back_by: Vec::new(),
            pending_advisory: Vec::new(),
            pending_must_address: Vec::new(),
        }
    }

    pub fn config(&self) -> &ReviewConfig {
        &self.config
    }
    pub fn stage(&self) -> Stage {
        self.core.stage
    }
    pub fn round(&self) -> u32 {
        self.core.round
    }
    pub fn proposal(&self) -> Option<&Collected<ThesisTree>> {
        self.proposal.as_ref()
    }
    pub fn critique(&self) -> Option<&Collected<ParsedCritique>> {
        self.critique.as_ref()
    }
    pub fn critique_items(&self) -> &[CritiqueItem] {
        self.critique
            .as_ref()
            .map(|critique| critique.parsed.items.as_slice())
            .unwrap_or_default()
    }
    pub fn ruling(&self, item_id: &str) -> Option<ItemRuling> {
        let record = self.items.latest(item_id)?;
        Some(ItemRuling {
            decision: record.decision?,
            note: record.note.clone(),
            at: record.decided_at?,
            ruler: record.ruler,
        })
    }
    /// How a deferred item was settled after a verdict; a later resolution
    /// replaces an earlier one.
    pub fn resolution(&self, item_id: &str) -> Option<&ItemResolution> {
        self.items.resolution(item_id)
    }
    /// The revision round whose change log first responded to `item_id`,
    /// with a change or with a decline: round 1 for an item accepted in
    /// moderation, a reopened round for a deferred item accepted after a
    /// verdict. `None` while no revision has responded to it. Whether the
    /// response answered the item is [`answer_to`](Self::answer_to)'s.
    pub fn addressed_in_round(&self, item_id: &str) -> Option<u32> {
        self.addressed.get(item_id).copied()
    }
    /// How the revisions met an item they had to address, from that round
    /// on: a change answers it (the first round that made one), else the
    /// proposer declined it, with its reason (DR-15, A11). A decline is
    /// never an answer. `None` while no revision has responded to it.
    pub fn answer_to(&self, item_id: &str) -> Option<ItemAnswer<'_>> {
        let from = self.addressed_in_round(item_id)?;
        let entries: Vec<(u32, &ChangeEntry)> = self
            .change_entries()
            .into_iter()
            .filter(|(round, entry)| *round >= from && entry.addresses_critique == item_id)
            .collect();
        if let Some((round, _)) = entries
            .iter()
            .find(|(_, entry)| entry.change_type != ChangeType::Decline)
        {
            return Some(ItemAnswer::Changed { round: *round });
        }
        entries.first().map(|(round, entry)| ItemAnswer::Declined {
            round: *round,
            reason: entry.rationale.as_deref().unwrap_or_default().trim(),
        })
    }
    /// Whether the critique has an item `item_id`.
    fn has_item(&self, item_id: &str) -> bool {
        self.critique_ids.contains(item_id)
    }
    /// Deferred items nobody has settled since, in critique order.
    pub fn open_deferred_items(&self) -> Vec<&CritiqueItem> {
        self.items_decided(ItemDecision::Defer)
            .into_iter()
            .filter(|item| self.resolution(&item.id).is_none())
            .collect()
    }
    /// Deferred items accepted after a verdict that no revision has answered
    /// yet: what a reopened round must address, in critique order.
    pub fn awaiting_reopen(&self) -> Vec<&CritiqueItem> {
        self.items_decided(ItemDecision::Defer)
            .into_iter()
            .filter(|item| {
                self.resolution(&item.id)
                    .is_some_and(|resolution| resolution.decision == ItemDecision::Accept)
                    && self.addressed_in_round(&item.id).is_none()
            })
            .collect()
    }
    fn has_verdict(&self) -> bool {
        matches!(self.core.outcome, Some(Outcome::Decided { .. }))
    }
    pub fn revisions(&self) -> &[RevisionRound] {
        &self.revisions
    }
    pub fn evaluations(&self) -> &[EvaluationRound] {
        &self.evaluations
    }
    pub fn malformed(&self) -> &[MalformedOutput] {
        &self.malformed
    }
    pub fn usage_ledger(&self) -> &UsageLedger {
        self.core.calls.usage()
    }
    pub fn diagnostics(&self) -> &[CallDiagnostic] {
        self.core.calls.diagnostics()
    }
    /// Wall time from the start of the debate to its latest event, in ms.
    /// The time agent calls ran, in ms: the usage line's time (see
    /// [`crate::protocol::usage::calls_time_ms`]), never idle time.
    pub fn duration_ms(&self) -> u64 {
        crate::protocol::usage::calls_time_ms(self.core.calls.log(), self.core.calls.usage())
    }
    pub fn live_call_ids(&self) -> Vec<String> {
        self.core.calls.live_call_ids()
    }

    /// Items with the given decision, in critique order.
    pub fn items_decided(&self, decision: ItemDecision) -> Vec<&CritiqueItem> {
        self.critique_items()
            .iter()
            .filter(|item| self.ruling(&item.id).map(|r| r.decision) == Some(decision))
            .collect()
    }

    /// The tree the judges of the latest round score: the latest revision.
    pub fn current_tree(&self) -> Option<&ThesisTree> {
        match self.revisions.last() {
            Some(revision) => Some(&revision.output.revised_tree),
            None => self.proposal.as_ref().map(|proposal| &proposal.parsed),
        }
    }

    /// The tree the judges of a running round score: the latest revision's
    /// (judges follow a revision).
    fn judged_tree(&self) -> &ThesisTree {
        let revision = self.revisions.last().expect("judges follow a revision");
        &revision.output.revised_tree
    }

    /// The final decision fields; `None` until the debate ends with a
    /// verdict (a failed debate has none, whatever earlier rounds found).
    pub fn decision_record(&self) -> Option<DecisionRecord> {
        if !matches!(self.core.outcome, Some(Outcome::Decided { .. })) {
            return None;
        }
        let evaluation = self.evaluations.last()?;
        let assessment = evaluation.assessment.as_ref()?;
        let tree = &self.revisions.last()?.output.revised_tree;
        Some(record::derive(self, evaluation, assessment, tree))
    }

    fn push_log(&mut self, now: Timestamp, kind: LogKind, call_id: Option<&str>, message: String) {
        self.core.calls.push_log(now, kind, call_id, message);
    }

    /// Keeps the recorded participants in step with the roster after a
    /// moderator's switch, so debate.yaml names who plays each role now.
    fn sync_participants(&mut self) {
        let agents = self.core.calls.agents();
        // A role switched to another model is of that model's family from
        // now on, by the built-in table (an override named the old agent).
        if !self.config.fairness.is_legacy() {
            let before = self.config.participants.by_slot();
            for (slot, agent) in agents.iter() {
                if before.get(slot) == Some(agent) {
                    continue;
                }
                let family = agent
                    .split_once(':')
                    .and_then(|(provider, model)| fairness::family::detect(provider, model));
                let families = &mut self.config.fairness.families;
                match family {
                    Some(family) => families.insert(slot.clone(), family),
                    None => families.remove(slot),
                };
            }
        }
        let participants = &mut self.config.participants;
        if let Some(agent) = agents.get("proposer") {
            participants.proposer = agent.clone();
        }
        if let Some(agent) = agents.get("critic") {
            participants.critic = agent.clone();
        }
        for (role, agent) in participants.judges.iter_mut() {
            if let Some(now) = agents.get(&judge_slot_role(*role)) {
                *agent = now.clone();
            }
        }
        participants.prices = self.core.calls.prices().clone();
    }

    fn enter(&mut self, stage: Stage, round: u32, now: Timestamp) {
        self.core.round = round;
        self.core.enter(stage, now);
    }

    /// Renders `template` and registers a call with the result; a template
    /// that cannot be rendered stops the debate, and the effects say so.
    fn start_rendered(
        &mut self,
        template: Template,
        context: serde_json::Value,
        slot: Slot,
        raw_output_path: Option<String>,
        now: Timestamp,
    ) -> Result<CallSpec, Vec<Effect>> {
        let context = self.with_evidence(context);
        self.start_or_stop(slot, template.spec(), &context, raw_output_path, now)
    }

    /// [`Self::start_rendered`] for a stage with a single call.
    fn start_single(
        &mut self,
        template: Template,
        context: serde_json::Value,
        slot: Slot,
        now: Timestamp,
    ) -> Vec<Effect> {
        let context = self.with_evidence(context);
        self.ask(slot, template.spec(), &context, None, now)
    }

    /// What hides the authors' self-identification from the other agents
    /// when judging is blind: the built-in names and the models this
    /// debate's agents run, but those the question and its material name.
    fn blindfold(&self) -> Blindfold {
        let agents = self.config.participants.by_slot();
        let material = std::iter::once(self.config.topic.as_str())
            .chain(self.config.context.iter().map(|doc| doc.text.as_str()))
            .chain(
                self.config
                    .options
                    .iter()
                    .map(|option| option.text.as_str()),
            );
        Blindfold::for_agents(&self.config.fairness, agents.values().map(String::as_str))
            .sparing(material)
    }

    /// Notes in the transcript what masking hid from `reader`.
    fn note_masked(&mut self, now: Timestamp, reader: &str, masked: Vec<String>) {
        for masking in masked {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!("fair judging: {masking} in what the {reader} reads"),
            );
        }
    }

    fn context_json(&self) -> serde_json::Value {
        json!(self.config.context)
    }

    // ---- failures -------------------------------------------------------

    /// A proposer, critic or reviser output that cannot be parsed gets one
    /// repair call quoting the error; a second failure stops the debate.
    fn repair_malformed(&mut self, answer: Answer<'_>, error: String) -> Vec<Effect> {
        let now = answer.now;
        let call_id = &answer.call.call_id();
        self.malformed.push(MalformedOutput {
            call_id: call_id.to_string(),
            role: answer.call.slot.role.clone(),
            stage: answer.call.slot.stage.clone(),
            round: answer.call.slot.round,
            raw: answer.output.to_string(),
            reason: error.clone(),
            at: now,
        });
        self.push_log(
            now,
            LogKind::Malformed,
            Some(call_id),
            format!(
                "{} {} output could not be parsed: {error}",
                answer.call.slot.role, answer.call.slot.stage
            ),
        );
        let repair = (self.core.prompts.as_ref(), Template::Repair.spec());
        match self.core.calls.repair(answer, &error, repair) {
            Ok(spec) => vec![Effect::StartCall(spec)],
            Err(reason) => self.fail(now, reason),
        }
    }
}

/// Block ids of a tree, in order.
pub fn block_ids(tree: &ThesisTree) -> Vec<String> {
    tree.block_ids().map(str::to_string).collect()
}

/// A tree as the YAML an agent reads.
pub fn tree_yaml(tree: &ThesisTree) -> String {
    yaml_serde::to_string(tree).unwrap_or_default()
}

/// Masks every field of `tree` an agent wrote (fair judging).
fn cover_tree(blindfold: &mut Blindfold, tree: &mut ThesisTree) {
    for block in &mut tree.blocks {
        for field in [
            &mut block.text,
            &mut block.evidence,
            &mut block.tradeoffs,
            &mut block.risks,
        ] {
            blindfold.cover(field);
        }
    }
}

/// A critique item as the moderator sees it.
pub fn moderation_item(item: &CritiqueItem) -> ModerationItem {
    ModerationItem {
        id: item.id.clone(),
        target: item.target_block.clone(),
        severity: severity_word(item).to_string(),
        category: flaw_word(item.flaw_type).to_string(),
        text: item.description.clone(),
        preface: item.steelman.clone().unwrap_or_default(),
        ..Default::default()
    }
}

fn flaw_word(flaw: crate::protocol::decision_review::model::FlawType) -> &'static str {
    match flaw {
        crate::protocol::decision_review::model::FlawType::Assumption => "assumption",
        crate::protocol::decision_review::model::FlawType::Evidence => "evidence",
        crate::protocol::decision_review::model::FlawType::Risk => "risk",
        crate::protocol::decision_review::model::FlawType::Feasibility => "feasibility",
    }
}

/// `c1, c3`.
pub fn item_ids(items: &[&CritiqueItem]) -> String {
    items
        .iter()
        .map(|item| item.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn summarize_items(items: &[CritiqueItem]) -> String {
    items
        .iter()
        .map(|item| format!("{}→{} {}", item.id, item.target_block, severity_word(item)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn severity_word(item: &CritiqueItem) -> &'static str {
    match item.severity {
        crate::protocol::decision_review::model::Severity::Major => "major",
        crate::protocol::decision_review::model::Severity::Minor => "minor",
        crate::protocol::decision_review::model::Severity::Note => "note",
    }
}

/// `strengthened`, `retracted`, ...: what a change did, for sentences.
pub fn change_verb(change_type: ChangeType) -> &'static str {
    match change_type {
        ChangeType::Strengthen => "strengthened",
        ChangeType::Retract => "retracted",
        ChangeType::Replace => "replaced",
        ChangeType::AddFallback => "added a fallback to",
        ChangeType::Decline => "declined to change",
    }
}

fn directive_source(directive: &verdict::Directive) -> String {
    match (
        &directive.judge,
        &directive.block_id,
        &directive.criterion,
        directive.score,
    ) {
        (Some(judge), Some(block), Some(criterion), Some(score)) => {
            format!("{judge} on {block} {criterion} ({score})")
        }
        (_, Some(block), _, _) => format!("panel on {block}"),
        _ => "panel".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RF-06, RF-08: a decision review's role words, which its reader-first
    /// openings do not carry: its slots' words and the record's role names.
    #[test]
    fn the_role_words_are_the_slots_and_the_record_names() {
        let mut words = role_words();
        words.sort_unstable();
        let mut expected = vec![
            "aesthete",
            "stylist",
            "analyst",
            "strategist",
            "empiricist",
            "judge",
            "critic",
            "proposer",
            "oracle",
            "mephistopheles",
            "synthesizer",
        ];
        expected.sort_unstable();
        assert_eq!(words, expected);
    }

    /// INF-05, INF-11, RULES.md A8: round 1 has no suffix, later rounds do.
    #[test]
    fn inf_05_inf_11_judge_file_names() {
        assert_eq!(judge_file(JudgeRole::Analyst, 1), "judges/judge-analyst.md");
        assert_eq!(
            judge_file(JudgeRole::Stylist, 2),
            "judges/judge-stylist-round-2.md"
        );
        assert_eq!(
            judge_file(JudgeRole::Empiricist, 3),
            "judges/judge-empiricist-round-3.md"
        );
    }
}
