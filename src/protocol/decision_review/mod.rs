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

pub mod documents;
pub mod kind;
pub mod model;
pub mod parse;
pub mod prompts;
pub mod ranking;
pub mod record;
pub mod verdict;
pub mod writing;

pub use kind::{KIND, NAME};

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::model::{
    ChangeType, CritiqueItem, CritiqueMode, ItemDecision, JudgeConfig, JudgeResult, JudgeRole,
    RevisionOutput, ThesisTree, Verdict, Weight,
};
use self::parse::ParsedCritique;
use self::prompts::Template;
use self::verdict::{Assessment, Thresholds};
use crate::parse::{Read, readings_line};
use crate::prompts::PromptSet;

use super::calls::{Calls, Routed};
use super::supervision::{LiveCall, Slot, split_call_id};
use super::usage::{Price, UsageLedger};
use super::{
    Board, BoardItem, BoardView, CallSpec, Description, Document, Effect, ImpliedVerdict, Input,
    ItemResolution, JudgeState, LogEntry, LogKind, ModerationItem, Outcome, OverrideAction,
    Progress, Protocol, RegionInfo, RoleGroup, RoleInfo, ScoreColumn, Scoreboard, StageFocus,
    StageInfo, Timestamp,
};

pub use super::ContextDoc;
pub use super::calls::CallDiagnostic;

/// The role the proposer plays in the record (DR-22).
pub const PROPOSER_ROLE: &str = "oracle";
/// The role the critic plays in the record (DR-22).
pub const CRITIC_ROLE: &str = "mephistopheles";

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

    /// The `provider:model` that plays a role slot (`proposer`, `critic`,
    /// `judge.analyst`).
    pub fn agent_for_role(&self, role: &str) -> Option<&str> {
        match role {
            "proposer" => Some(&self.proposer),
            "critic" => Some(&self.critic),
            _ => self
                .judges
                .get(&role.strip_prefix("judge.").and_then(JudgeRole::parse)?)
                .map(String::as_str),
        }
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

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Proposal => "proposal",
            Stage::Critique => "critique",
            Stage::Moderation => "moderation",
            Stage::Revision => "revision",
            Stage::Evaluation => "evaluation",
            Stage::Done => "verdict",
        }
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
}

impl EvaluationRound {
    /// Results of the judges that are done.
    pub fn results(&self) -> BTreeMap<JudgeRole, JudgeResult> {
        self.judges
            .iter()
            .filter_map(|(role, record)| Some((*role, record.result.clone()?)))
            .collect()
    }
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
    format!("judge.{role}")
}

/// A running decision review.
pub struct DecisionReview {
    config: ReviewConfig,
    prompts: Arc<PromptSet>,
    stage: Stage,
    round: u32,
    calls: Calls,
    proposal: Option<Collected<ThesisTree>>,
    critique: Option<Collected<ParsedCritique>>,
    /// The ids of the critique's items, to look one up without a scan.
    critique_ids: HashSet<String>,
    /// The moderator's decisions on the critique items, in the book every
    /// protocol keeps them in.
    items: super::items::ItemBook<()>,
    /// Deferred items settled after a verdict, by item id.
    resolutions: BTreeMap<String, ItemResolution>,
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
    outcome: Option<Outcome>,
}

impl DecisionReview {
    pub fn new(config: ReviewConfig, prompts: Arc<PromptSet>) -> Self {
        let calls = Calls::new(
            config.participants.by_slot(),
            config.participants.prices.clone(),
        );
        DecisionReview {
            config,
            prompts,
            stage: Stage::Proposal,
            round: 1,
            calls,
            proposal: None,
            critique: None,
            critique_ids: HashSet::new(),
            items: super::items::ItemBook::default(),
            resolutions: BTreeMap::new(),
            revisions: Vec::new(),
            addressed: HashMap::new(),
            evaluations: Vec::new(),
            malformed: Vec::new(),
            pending_directives: Vec::new(),
            pending_sent_back_by: Vec::new(),
            pending_advisory: Vec::new(),
            pending_must_address: Vec::new(),
            outcome: None,
        }
    }

    pub fn config(&self) -> &ReviewConfig {
        &self.config
    }
    pub fn stage(&self) -> Stage {
        self.stage
    }
    pub fn round(&self) -> u32 {
        self.round
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
        })
    }
    /// How a deferred item was settled after a verdict; a later resolution
    /// replaces an earlier one.
    pub fn resolution(&self, item_id: &str) -> Option<&ItemResolution> {
        self.resolutions.get(item_id)
    }
    /// The revision round whose change log answered `item_id`: round 1 for
    /// an item accepted in moderation, a reopened round for a deferred item
    /// accepted after a verdict. `None` while no revision has answered it.
    pub fn addressed_in_round(&self, item_id: &str) -> Option<u32> {
        self.addressed.get(item_id).copied()
    }
    /// Whether the critique has an item `item_id`.
    fn has_item(&self, item_id: &str) -> bool {
        self.critique_ids.contains(item_id)
    }
    /// Deferred items nobody has settled since, in critique order.
    pub fn open_deferred_items(&self) -> Vec<&CritiqueItem> {
        self.items_decided(ItemDecision::Defer)
            .into_iter()
            .filter(|item| !self.resolutions.contains_key(&item.id))
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
        matches!(self.outcome, Some(Outcome::Decided { .. }))
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
        self.calls.usage()
    }
    pub fn diagnostics(&self) -> &[CallDiagnostic] {
        self.calls.diagnostics()
    }
    /// Wall time from the start of the debate to its latest event, in ms.
    pub fn duration_ms(&self) -> u64 {
        self.calls.duration_ms(self.config.started_at)
    }
    pub fn live_call_ids(&self) -> Vec<String> {
        self.calls.live_call_ids()
    }

    /// Where `item_id` stands now: settled after a verdict, else as the
    /// moderation decided it; `None` while undecided.
    pub fn standing_decision(&self, item_id: &str) -> Option<ItemDecision> {
        self.resolution(item_id)
            .map(|resolution| resolution.decision)
            .or_else(|| self.ruling(item_id).map(|ruling| ruling.decision))
    }

    /// The note that goes with where `item_id` stands.
    fn standing_note(&self, item_id: &str) -> Option<String> {
        match self.resolution(item_id) {
            Some(resolution) => resolution.note.clone(),
            None => self.ruling(item_id).and_then(|ruling| ruling.note),
        }
    }

    /// Every decided critique item as the agent acting on the rulings reads
    /// it, in critique order.
    pub fn standing_rulings(&self) -> Vec<crate::rulings::Ruling> {
        self.critique_items()
            .iter()
            .filter_map(|item| {
                let ruled = crate::rulings::Ruled::from(self.standing_decision(&item.id)?);
                let ruling = crate::rulings::Ruling::new(
                    item.id.clone(),
                    ruled,
                    self.standing_note(&item.id).as_deref(),
                );
                Some(match self.addressed_in_round(&item.id) {
                    Some(round) if ruled == crate::rulings::Ruled::Accepted => {
                        ruling.answered_in(round)
                    }
                    _ => ruling,
                })
            })
            .collect()
    }

    /// Where a revision's change log goes against the rulings, one sentence
    /// each: a change made for an item the moderator rejected, or for one
    /// they left open. Declining to change is always allowed.
    pub fn against_rulings(&self, revision: &RevisionOutput) -> Vec<String> {
        revision
            .change_log
            .iter()
            .filter(|entry| entry.change_type != ChangeType::Decline)
            .filter_map(|entry| {
                let id = &entry.addresses_critique;
                let why = match self.standing_decision(id)? {
                    ItemDecision::Accept => return None,
                    ItemDecision::Reject => "which the moderator rejected",
                    ItemDecision::Defer => "which the moderator left open (deferred)",
                };
                Some(format!(
                    "the revision {} {} for {id}, {why}",
                    change_verb(entry.change_type),
                    entry.block_id
                ))
            })
            .collect()
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

    /// The final decision fields; `None` until the debate ends with a
    /// verdict (a failed debate has none, whatever earlier rounds found).
    pub fn decision_record(&self) -> Option<DecisionRecord> {
        if !matches!(self.outcome, Some(Outcome::Decided { .. })) {
            return None;
        }
        let evaluation = self.evaluations.last()?;
        let assessment = evaluation.assessment.as_ref()?;
        let tree = &self.revisions.last()?.output.revised_tree;
        Some(record::derive(self, evaluation, assessment, tree))
    }

    fn push_log(&mut self, now: Timestamp, kind: LogKind, call_id: Option<&str>, message: String) {
        self.calls.push_log(now, kind, call_id, message);
    }

    /// Notes, in one line of the log, what the reader took other than as
    /// written in `call_id`'s answer; nothing for an exact answer.
    fn note_readings(&mut self, now: Timestamp, call_id: &str, notes: &[String]) {
        if !notes.is_empty() {
            self.push_log(now, LogKind::Note, Some(call_id), readings_line(notes));
        }
    }

    /// Keeps the recorded participants in step with the roster after a
    /// moderator's switch, so debate.yaml names who plays each role now.
    fn sync_participants(&mut self) {
        let agents = self.calls.agents();
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
        participants.prices = self.calls.prices().clone();
    }

    fn enter(&mut self, stage: Stage, round: u32, now: Timestamp) {
        self.stage = stage;
        self.round = round;
        let message = match stage {
            Stage::Proposal | Stage::Critique | Stage::Moderation => {
                format!("stage: {}", stage.as_str())
            }
            Stage::Revision | Stage::Evaluation => {
                format!("stage: {} (round {round})", stage.as_str())
            }
            Stage::Done => "stage: verdict".to_string(),
        };
        self.push_log(now, LogKind::Stage, None, message);
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
        match self.prompts.render(template.spec(), &context) {
            Ok(prompt) => Ok(self.calls.start(slot, prompt, raw_output_path, now)),
            Err(error) => Err(self.fail(now, format!("could not build the prompt: {error}"))),
        }
    }

    /// [`Self::start_rendered`] for a stage with a single call.
    fn start_single(
        &mut self,
        template: Template,
        context: serde_json::Value,
        slot: Slot,
        now: Timestamp,
    ) -> Vec<Effect> {
        match self.start_rendered(template, context, slot, None, now) {
            Ok(spec) => vec![Effect::StartCall(spec)],
            Err(effects) => effects,
        }
    }

    fn fail(&mut self, now: Timestamp, reason: String) -> Vec<Effect> {
        let cancels = self.calls.stop(now, Some(&reason));
        self.stage = Stage::Done;
        let outcome = Outcome::Failed { reason };
        self.outcome = Some(outcome.clone());
        cancels
            .into_iter()
            .chain([Effect::Finished(outcome)])
            .collect()
    }

    fn context_json(&self) -> serde_json::Value {
        json!(self.config.context)
    }

    // ---- stage 1 -------------------------------------------------------

    fn start_proposal(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Stage::Proposal, 1, now);
        let context = json!({
            "topic": self.config.topic,
            "options": self.config.options,
            "context": self.context_json(),
            "mode": self.config.mode.as_str(),
        });
        self.start_single(
            Template::Proposer,
            context,
            Slot::new("proposer", "proposal", 1),
            now,
        )
    }

    fn on_proposal(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let call_id = &call.call_id();
        let read = parse::read_thesis_tree(output).and_then(|mut read| {
            self.tag_options(&mut read.value, &mut read.notes)?;
            Ok(read)
        });
        match read {
            Ok(Read {
                value: tree,
                notes: normalised,
            }) => {
                self.note_readings(now, call_id, &normalised);
                self.push_log(
                    now,
                    LogKind::Note,
                    Some(call_id),
                    format!(
                        "thesis tree with {} blocks: {}",
                        tree.blocks.len(),
                        block_ids(&tree).join(", ")
                    ),
                );
                self.proposal = Some(Collected {
                    call_id: call_id.to_string(),
                    raw: output.to_string(),
                    parsed: tree,
                    normalised,
                    at: now,
                });
                self.start_critique(now)
            }
            Err(error) => self.repair_or_stop(call, output, error.to_string(), now),
        }
    }

    /// In a comparative review every block argues one of the options and
    /// every option has a block (DR-52): an `option:` in another case is
    /// read as the option it names (and noted), one naming no option or an
    /// option left without a block makes the answer unusable.
    fn tag_options(
        &self,
        tree: &mut ThesisTree,
        notes: &mut Vec<String>,
    ) -> Result<(), parse::ParseError> {
        if self.config.mode != ReviewMode::Comparative {
            return Ok(());
        }
        let ids: Vec<&str> = self.config.options.iter().map(|o| o.id.as_str()).collect();
        let refused = |message: String| parse::ParseError {
            line: None,
            field: None,
            message,
        };
        for block in &mut tree.blocks {
            let Some(given) = block.option.clone() else {
                return Err(refused(format!(
                    "block {} names no option; give each block `option:` with one of {}",
                    block.id,
                    ids.join(", ")
                )));
            };
            let Some(id) = ids.iter().find(|id| id.eq_ignore_ascii_case(given.trim())) else {
                return Err(refused(format!(
                    "block {} argues option \"{}\", which is not one of {}",
                    block.id,
                    crate::text::excerpt(&given),
                    ids.join(", ")
                )));
            };
            if given != *id {
                notes.push(format!("read option {given:?} as {id} ({})", block.id));
                block.option = Some(id.to_string());
            }
        }
        let bare: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| !tree.blocks.iter().any(|b| b.option.as_deref() == Some(*id)))
            .collect();
        if !bare.is_empty() {
            return Err(refused(format!(
                "option{} {} {} no block: argue every option",
                if bare.len() == 1 { "" } else { "s" },
                bare.join(", "),
                if bare.len() == 1 { "has" } else { "have" }
            )));
        }
        Ok(())
    }

    // ---- stage 2 -------------------------------------------------------

    fn start_critique(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Stage::Critique, 1, now);
        let tree = &self
            .proposal
            .as_ref()
            .expect("critique follows the proposal")
            .parsed;
        let context = json!({
            "topic": self.config.topic,
            "options": self.config.options,
            "context": self.context_json(),
            "proposal_yaml": tree_yaml(tree),
            "proposer_label": format!("proposer ({PROPOSER_ROLE})"),
            "critique_mode": self.config.critique_mode.as_str(),
        });
        let template = Template::Critic(self.config.critique_mode);
        self.start_single(template, context, Slot::new("critic", "critique", 1), now)
    }

    fn on_critique(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let call_id = &call.call_id();
        let tree = self
            .proposal
            .as_ref()
            .expect("critique follows the proposal")
            .parsed
            .clone();
        match parse::read_critique(output, &tree, self.config.critique_mode) {
            Ok(Read {
                value: parsed,
                notes: normalised,
            }) => {
                self.note_readings(now, call_id, &normalised);
                for dropped in &parsed.dropped {
                    self.push_log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "critique #{} dropped: it targets block `{}`, {}",
                            dropped.index + 1,
                            dropped.target_block,
                            dropped.reason
                        ),
                    );
                }
                let items = parsed.items.clone();
                self.push_log(
                    now,
                    LogKind::Note,
                    Some(call_id),
                    format!(
                        "{} critique items: {}",
                        items.len(),
                        summarize_items(&items)
                    ),
                );
                self.critique_ids = items.iter().map(|item| item.id.clone()).collect();
                self.critique = Some(Collected {
                    call_id: call_id.to_string(),
                    raw: output.to_string(),
                    parsed,
                    normalised,
                    at: now,
                });
                if items.is_empty() {
                    self.push_log(
                        now,
                        LogKind::Moderation,
                        None,
                        "no critique items to moderate".into(),
                    );
                    return self.start_revision(1, Vec::new(), now);
                }
                self.enter(Stage::Moderation, 1, now);
                self.push_log(
                    now,
                    LogKind::Moderation,
                    None,
                    format!(
                        "needs moderator: {} items to accept, reject or defer",
                        items.len()
                    ),
                );
                let items: Vec<ModerationItem> = items.iter().map(moderation_item).collect();
                for item in &items {
                    self.items.push(item.clone(), (), 1);
                }
                vec![Effect::AwaitModeration { items }]
            }
            Err(error) => self.repair_or_stop(call, output, error.to_string(), now),
        }
    }

    fn on_item_decided(
        &mut self,
        item_id: &str,
        decision: ItemDecision,
        note: Option<&str>,
        now: Timestamp,
    ) -> Vec<Effect> {
        if self.stage != Stage::Moderation {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!("ignored a decision on {item_id}: moderation is over"),
            );
            return Vec::new();
        }
        if !self.has_item(item_id) {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!("ignored a decision on unknown item {item_id}"),
            );
            return Vec::new();
        }
        let note = clean_note(note);
        self.items.decide(
            &mut self.calls,
            now,
            true,
            (item_id, decision, note.as_deref()),
            |_, decision| past_tense(decision),
        );
        Vec::new()
    }

    fn on_moderation_submitted(&mut self, now: Timestamp) -> Vec<Effect> {
        if self.stage != Stage::Moderation {
            return Vec::new();
        }
        if self.items.submit(&mut self.calls, now).is_none() {
            return Vec::new();
        }
        let accepted: Vec<String> = self
            .items_decided(ItemDecision::Accept)
            .into_iter()
            .map(|item| item.id.clone())
            .collect();
        self.push_log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "moderation submitted: {} accepted, {} rejected, {} deferred",
                accepted.len(),
                self.items_decided(ItemDecision::Reject).len(),
                self.items_decided(ItemDecision::Defer).len()
            ),
        );
        self.start_revision(1, accepted, now)
    }

    // ---- stage 3 -------------------------------------------------------

    /// An item as the reviser reads it; the note is the latest word on it:
    /// the resolution's note after a verdict, else the moderation note.
    fn item_json(&self, item: &CritiqueItem) -> serde_json::Value {
        let note = self
            .resolution(&item.id)
            .and_then(|resolution| resolution.note.clone())
            .or_else(|| self.ruling(&item.id).and_then(|ruling| ruling.note));
        json!({
            "id": item.id,
            "target_block": item.target_block,
            "flaw_type": item.flaw_type,
            "severity": item.severity,
            "description": item.description,
            "note": note.unwrap_or_default(),
        })
    }

    /// Starts revision `round`. Round 1 must address the accepted items;
    /// later rounds the directives of the REVISE verdict (DR-39), and a
    /// reopened round the items accepted after the verdict. The critique
    /// items among `must_address` are shown to the reviser in full.
    fn start_revision(
        &mut self,
        round: u32,
        must_address: Vec<String>,
        now: Timestamp,
    ) -> Vec<Effect> {
        self.enter(Stage::Revision, round, now);
        let tree = self
            .current_tree()
            .expect("a revision follows a tree")
            .clone();
        let directives = self.pending_directives.clone();
        let must: HashSet<&str> = must_address.iter().map(String::as_str).collect();
        let to_answer: Vec<&CritiqueItem> = self
            .critique_items()
            .iter()
            .filter(|item| must.contains(item.id.as_str()))
            .collect();
        let reopened = to_answer
            .iter()
            .any(|item| self.resolutions.contains_key(&item.id));
        let accepted: Vec<_> = to_answer
            .into_iter()
            .map(|item| self.item_json(item))
            .collect();
        let deferred: Vec<_> = self
            .open_deferred_items()
            .into_iter()
            .map(|item| self.item_json(item))
            .collect();
        let rejected: Vec<_> = self
            .critique_items()
            .iter()
            .filter(|item| self.standing_decision(&item.id) == Some(ItemDecision::Reject))
            .map(|item| self.item_json(item))
            .collect();
        let context = json!({
            "topic": self.config.topic,
            "options": self.config.options,
            "context": self.context_json(),
            "round": round,
            "reopened": reopened,
            "tree_yaml": tree_yaml(&tree),
            "accepted": accepted,
            "deferred": deferred,
            "rejected": rejected,
            "rulings": crate::rulings::section(&self.standing_rulings()),
            "directives": directives,
            "sent_back_by": std::mem::take(&mut self.pending_sent_back_by),
            "advisory_notes": std::mem::take(&mut self.pending_advisory),
            "must_address": must_address,
        });
        self.pending_must_address = must_address;
        self.start_single(
            Template::Reviser,
            context,
            Slot::new("proposer", "revision", round),
            now,
        )
    }

    fn on_revision(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let call_id = &call.call_id();
        let must_address = self.pending_must_address.clone();
        let read = parse::read_revision(output, &must_address).and_then(|mut read| {
            self.tag_options(&mut read.value.revised_tree, &mut read.notes)?;
            Ok(read)
        });
        match read {
            Ok(Read {
                value: revision,
                notes: normalised,
            }) => {
                let against = if self.config.checks_rulings {
                    self.against_rulings(&revision)
                } else {
                    Vec::new()
                };
                if !against.is_empty() {
                    let template = (self.prompts.as_ref(), &crate::prompts::RECHECK_TEMPLATE);
                    if let Some(spec) =
                        self.calls
                            .recheck(call.clone(), output, &against, template, now)
                    {
                        self.push_log(
                            now,
                            LogKind::Note,
                            Some(call_id),
                            format!(
                                "revision round {} goes against your rulings: {}",
                                call.slot.round,
                                against.join("; ")
                            ),
                        );
                        return vec![Effect::StartCall(spec)];
                    }
                    self.push_log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "revision round {} still goes against your rulings after being asked again: {}",
                            call.slot.round,
                            against.join("; ")
                        ),
                    );
                }
                self.note_readings(now, call_id, &normalised);
                self.push_log(
                    now,
                    LogKind::Note,
                    Some(call_id),
                    format!(
                        "revision round {}: {} changes, {} blocks in the revised tree",
                        call.slot.round,
                        revision.change_log.len(),
                        revision.revised_tree.blocks.len()
                    ),
                );
                for id in &must_address {
                    self.addressed.entry(id.clone()).or_insert(call.slot.round);
                }
                self.revisions.push(RevisionRound {
                    round: call.slot.round,
                    call_id: call_id.to_string(),
                    raw: output.to_string(),
                    output: revision,
                    must_address,
                    directives: std::mem::take(&mut self.pending_directives),
                    normalised,
                    against_rulings: against,
                    at: now,
                });
                self.start_evaluation(call.slot.round, now)
            }
            Err(error) => self.repair_or_stop(call, output, error.to_string(), now),
        }
    }

    // ---- after the verdict ----------------------------------------------

    /// Why settling `item_id` with `decision` after the verdict would be
    /// refused, or `None` when it would be applied.
    pub fn settle_refusal(&self, item_id: &str, decision: ItemDecision) -> Option<String> {
        match &self.outcome {
            None => return Some("the debate is still running".into()),
            // A comparison's ranking stands where a verdict would: an item
            // accepted after it reopens the comparison like a verdict.
            Some(Outcome::Completed { .. }) if self.config.mode == ReviewMode::Comparative => {}
            Some(Outcome::Failed { .. } | Outcome::Completed { .. }) => {
                return Some("the debate ended without a verdict".into());
            }
            Some(Outcome::Decided { .. }) => {}
        }
        if !self.has_item(item_id) {
            return Some("there is no such item".into());
        }
        match self.ruling(item_id).map(|ruling| ruling.decision) {
            Some(ItemDecision::Defer) => {}
            Some(other) => {
                return Some(format!(
                    "it was {} in moderation, not deferred",
                    past_tense(other)
                ));
            }
            None => return Some("it was not deferred in moderation".into()),
        }
        if decision == ItemDecision::Defer {
            return Some("a deferred item is settled by accepting or rejecting it".into());
        }
        self.addressed_in_round(item_id).map(|round| {
            format!("it was accepted after the verdict and revision round {round} has answered it")
        })
    }

    fn on_item_resolved(
        &mut self,
        item_id: &str,
        decision: ItemDecision,
        note: Option<&str>,
        now: Timestamp,
    ) -> Vec<Effect> {
        if let Some(reason) = self.settle_refusal(item_id, decision) {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!("ignored a resolution of {item_id}: {reason}"),
            );
            return Vec::new();
        }
        let note = clean_note(note);
        let was_pending = self.reopen_pending();
        let mut message = format!(
            "{item_id} deferred → {} after the verdict",
            past_tense(decision)
        );
        if let Some(earlier) = self.resolution(item_id) {
            message.push_str(&format!(
                ", replacing the earlier resolution ({})",
                past_tense(earlier.decision)
            ));
        }
        if let Some(note) = &note {
            message.push_str(&format!(": {note}"));
        }
        self.push_log(now, LogKind::Moderation, None, message);
        self.resolutions.insert(
            item_id.to_string(),
            ItemResolution {
                decision,
                note,
                at: now,
            },
        );
        match (was_pending, self.reopen_pending()) {
            (false, true) => {
                let ids = item_ids(&self.awaiting_reopen());
                self.push_log(
                    now,
                    LogKind::Note,
                    None,
                    format!(
                        "debate reopened: {ids} must be answered in another revision and evaluation round (`quorum resume --reopen`)"
                    ),
                );
            }
            (true, false) => self.push_log(
                now,
                LogKind::Note,
                None,
                "no longer reopened: no item accepted after the verdict waits for a revision"
                    .into(),
            ),
            _ => {}
        }
        Vec::new()
    }

    /// Sends a debate with items accepted after its verdict back to revision.
    /// The reopened round is the moderator's call, so it runs even when the
    /// automatic REVISE loops are used up; a REVISE verdict after it loops
    /// only while `round - 1 < max_rounds`, as for any round.
    fn on_reopened(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.reopen_pending() {
            let reason = if self.outcome.is_none() {
                "the debate is still running"
            } else {
                "no item accepted after the verdict waits for a revision"
            };
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!("reopen ignored: {reason}"),
            );
            return Vec::new();
        }
        let ids: Vec<String> = self
            .awaiting_reopen()
            .into_iter()
            .map(|item| item.id.clone())
            .collect();
        let round = self.round + 1;
        self.push_log(
            now,
            LogKind::Note,
            None,
            format!(
                "debate reopened for {} (accepted after the verdict): revision and evaluation round {round}",
                ids.join(", ")
            ),
        );
        self.outcome = None;
        self.pending_directives.clear();
        self.start_revision(round, ids, now)
    }

    // ---- stage 4 -------------------------------------------------------

    /// Starts every judge of the panel at once (DR-03).
    fn start_evaluation(&mut self, round: u32, now: Timestamp) -> Vec<Effect> {
        self.enter(Stage::Evaluation, round, now);
        // What every judge reads alike is rendered once for the panel.
        let revision = &self
            .revisions
            .last()
            .expect("evaluation follows a revision")
            .output;
        let block_ids = block_ids(&revision.revised_tree);
        let revised_yaml = tree_yaml(&revision.revised_tree);
        let change_log_yaml = yaml_serde::to_string(&revision.change_log).unwrap_or_default();
        let rulings = crate::rulings::listing(
            &self.standing_rulings(),
            "The revision was bound by these: it had to answer the accepted items, act on no \
             rejected one and leave the deferred ones open. Weigh how well it did in \
             revision_quality.",
        );
        let context = self.context_json();
        let mut effects = Vec::new();
        let mut judges = BTreeMap::new();
        for judge in self.config.panel.clone() {
            let criteria: Vec<_> = judge
                .criteria
                .iter()
                .map(|criterion| json!({"name": criterion.as_str(), "question": criterion.question()}))
                .collect();
            let context = json!({
                "topic": self.config.topic,
                "options": self.config.options,
                "context": context,
                "role": judge.role.as_str(),
                "focus": judge.role.focus(),
                "weight": judge.weight.as_str(),
                "criteria": criteria,
                "block_ids": block_ids,
                "revised_yaml": revised_yaml,
                "change_log_yaml": change_log_yaml,
                "rulings": rulings,
                "proposer_label": format!("proposer ({PROPOSER_ROLE})"),
                "critic_label": format!("critic ({CRITIC_ROLE})"),
                "round": round,
            });
            let slot = Slot::new(judge_slot_role(judge.role), "evaluation", round);
            let raw_output_path = Some(judge_file(judge.role, round));
            let spec =
                match self.start_rendered(Template::Judge, context, slot, raw_output_path, now) {
                    Ok(spec) => spec,
                    Err(effects) => return effects,
                };
            judges.insert(
                judge.role,
                JudgeRecord {
                    call_id: Some(spec.request.call_id.clone()),
                    prompt: Some(spec.request.prompt.clone()),
                    ..JudgeRecord::default()
                },
            );
            effects.push(Effect::StartCall(spec));
        }
        self.evaluations.push(EvaluationRound {
            round,
            judges,
            assessment: None,
            ranking: None,
            held: false,
            released: false,
        });
        effects
    }

    /// The judge whose latest call is `call_id`, in a round still open,
    /// whose answer was malformed or who was skipped.
    fn held_judge(&self, call_id: &str) -> Option<JudgeRole> {
        let evaluation = self.evaluations.last()?;
        if evaluation.assessment.is_some() {
            return None;
        }
        evaluation
            .judges
            .iter()
            .find(|(_, record)| {
                record.call_id.as_deref() == Some(call_id)
                    && matches!(
                        record.result,
                        Some(JudgeResult::Malformed { .. } | JudgeResult::Skipped { .. })
                    )
            })
            .map(|(role, _)| *role)
    }

    /// A moderator's re-run of a malformed or skipped judge while its round
    /// is open: the same prompt, as a new attempt with its own retry.
    fn on_rerun(&mut self, call_id: &str, now: Timestamp) -> Vec<Effect> {
        let Some(role) = self.held_judge(call_id) else {
            self.push_log(
                now,
                LogKind::Note,
                Some(call_id),
                "re-run ignored: only a malformed or skipped judge of the open round can be re-run"
                    .into(),
            );
            return Vec::new();
        };
        let round = self.round;
        let evaluation = self
            .evaluations
            .last_mut()
            .expect("held_judge found a round");
        evaluation.held = false;
        let record = evaluation
            .judges
            .get_mut(&role)
            .expect("held_judge found it");
        let prompt = record.prompt.clone().unwrap_or_default();
        let attempt = split_call_id(call_id).map_or(1, |(_, _, _, attempt)| attempt);
        let reason = match record.result.take() {
            Some(JudgeResult::Malformed { reason } | JudgeResult::Skipped { reason }) => reason,
            _ => String::new(),
        };
        // The replaced answer keeps a file of its own: the re-run writes
        // the judge's usual file.
        record.superseded.push(SupersededAnswer {
            call_id: call_id.to_string(),
            attempt,
            raw: record.raw.take(),
            reason,
        });
        record.normalised.clear();
        self.push_log(
            now,
            LogKind::Override,
            Some(call_id),
            format!("moderator: re-run {role} with the same prompt"),
        );
        let spec = self.calls.relaunch(
            Slot::new(judge_slot_role(role), "evaluation", round),
            attempt + 1,
            prompt,
            Some(judge_file(role, round)),
            now,
        );
        self.evaluations
            .last_mut()
            .expect("a round is open")
            .judges
            .get_mut(&role)
            .expect("held_judge found it")
            .call_id = Some(spec.request.call_id.clone());
        vec![Effect::StartCall(spec)]
    }

    fn judge_config(&self, role: JudgeRole) -> Option<&JudgeConfig> {
        self.config.panel.iter().find(|judge| judge.role == role)
    }

    fn on_judge(
        &mut self,
        role: JudgeRole,
        call_id: &str,
        output: &str,
        now: Timestamp,
    ) -> Vec<Effect> {
        let judge = self
            .judge_config(role)
            .expect("judge slots come from the panel")
            .clone();
        let tree = self
            .revisions
            .last()
            .expect("judges follow a revision")
            .output
            .revised_tree
            .clone();
        let mut normalised = Vec::new();
        let result = match parse::read_judge(output, &judge, &tree) {
            Ok(Read {
                value: scores,
                notes,
            }) => {
                self.note_readings(now, call_id, &notes);
                normalised = notes;
                self.push_log(
                    now,
                    LogKind::Note,
                    Some(call_id),
                    format!(
                        "{role}: {} block scores parsed from {}",
                        scores.block_scores.len(),
                        judge_file(role, self.round)
                    ),
                );
                JudgeResult::Scored(scores)
            }
            Err(error) => {
                // Persisted, excluded from scoring, never retried (INF-07..10).
                self.push_log(
                    now,
                    LogKind::Malformed,
                    Some(call_id),
                    format!(
                        "{role}: output unusable, excluded from scoring (not retried): {error}"
                    ),
                );
                JudgeResult::Malformed {
                    reason: error.to_string(),
                }
            }
        };
        let evaluation = self
            .evaluations
            .last_mut()
            .expect("judges belong to a round");
        let record = evaluation.judges.entry(role).or_default();
        record.call_id = Some(call_id.to_string());
        record.raw = Some(output.to_string());
        record.result = Some(result);
        record.normalised = normalised;
        self.conclude_round_if_complete(now)
    }

    fn on_judge_given_up(
        &mut self,
        role: JudgeRole,
        call_id: &str,
        reason: String,
        now: Timestamp,
    ) -> Vec<Effect> {
        let evaluation = self
            .evaluations
            .last_mut()
            .expect("judges belong to a round");
        let record = evaluation.judges.entry(role).or_default();
        record.call_id = Some(call_id.to_string());
        record.result = Some(JudgeResult::Skipped { reason });
        self.conclude_round_if_complete(now)
    }

    fn conclude_round_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        let hold = self.config.hold_for_moderator;
        let evaluation = self.evaluations.last_mut().expect("a round is running");
        if evaluation
            .judges
            .values()
            .any(|record| record.result.is_none())
        {
            return Vec::new();
        }
        let missing: Vec<String> = evaluation
            .judges
            .iter()
            .filter(|(_, record)| !matches!(record.result, Some(JudgeResult::Scored(_))))
            .map(|(role, _)| role.to_string())
            .collect();
        if hold && !evaluation.released && !missing.is_empty() {
            evaluation.held = true;
            let message = format!(
                "waiting for the moderator: re-run {} or go on without {}",
                missing.join(", "),
                if missing.len() == 1 { "it" } else { "them" }
            );
            self.push_log(now, LogKind::Moderation, None, message);
            return Vec::new();
        }
        evaluation.held = false;
        let round = evaluation.round;
        if self.config.mode == ReviewMode::Comparative {
            return self.conclude_comparison(round, now);
        }
        let tree = &self
            .revisions
            .last()
            .expect("judges follow a revision")
            .output
            .revised_tree;
        let assessment = verdict::derive_verdict(
            &self.config.panel,
            &evaluation.results(),
            &block_ids(tree),
            &self.config.thresholds,
        );
        if !assessment.quorum.met {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!(
                    "quorum shortfall: {} of {} judges gave usable output, {} needed; proceeding without blocking",
                    assessment.quorum.present,
                    self.config.panel.len(),
                    assessment.quorum.required
                ),
            );
        }
        self.push_log(
            now,
            LogKind::Verdict,
            None,
            format!(
                "round {round}: {} — {}",
                assessment.verdict, assessment.rule
            ),
        );
        let verdict = assessment.verdict;
        let directives: Vec<NumberedDirective> = assessment
            .directives
            .iter()
            .enumerate()
            .map(|(index, directive)| NumberedDirective {
                id: format!("d{}", index + 1),
                text: directive.text.clone(),
                source: directive_source(directive),
            })
            .collect();
        let rule = assessment.rule.clone();
        let mut sent_back_by: Vec<&'static str> = Vec::new();
        for directive in &assessment.directives {
            let by = match (&directive.judge, directive.criterion) {
                (Some(_), _) => "the binding judges",
                (None, Some(_)) => "the over-engineering guard",
                (None, None) => "the synthesis scores",
            };
            if !sent_back_by.contains(&by) {
                sent_back_by.push(by);
            }
        }
        let advisory: Vec<String> = assessment
            .advisory_notes
            .iter()
            .map(|note| format!("{} (advisory): {}", directive_source(note), note.text))
            .collect();
        self.evaluations
            .last_mut()
            .expect("a round is running")
            .assessment = Some(assessment);

        let loops_used = round - 1;
        if verdict == Verdict::Revise && loops_used < self.config.max_rounds {
            for directive in &directives {
                self.push_log(
                    now,
                    LogKind::Note,
                    None,
                    format!(
                        "directive {} ({}): {}",
                        directive.id, directive.source, directive.text
                    ),
                );
            }
            let ids = directives.iter().map(|d| d.id.clone()).collect();
            self.pending_directives = directives;
            self.pending_sent_back_by = sent_back_by;
            self.pending_advisory = advisory;
            return self.start_revision(round + 1, ids, now);
        }
        if verdict == Verdict::Revise {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!(
                    "REVISE is final: {} revision loop(s) allowed and used",
                    self.config.max_rounds
                ),
            );
        }
        self.enter(Stage::Done, round, now);
        let outcome = Outcome::Decided { verdict, rule };
        self.outcome = Some(outcome.clone());
        vec![Effect::Finished(outcome)]
    }

    /// A comparison ends after one evaluation, with the ranking the judges'
    /// scores imply and no verdict (A15); it never loops back to revise.
    fn conclude_comparison(&mut self, round: u32, now: Timestamp) -> Vec<Effect> {
        let tree = &self
            .revisions
            .last()
            .expect("judges follow a revision")
            .output
            .revised_tree;
        let block_option: BTreeMap<String, String> = tree
            .blocks
            .iter()
            .filter_map(|block| Some((block.id.clone(), block.option.clone()?)))
            .collect();
        let ids: Vec<String> = self.config.options.iter().map(|o| o.id.clone()).collect();
        let evaluation = self.evaluations.last_mut().expect("a round is running");
        let results = evaluation.results();
        let ranked = ranking::rank(
            &ids,
            &block_option,
            &self.config.panel,
            &results,
            &self.config.thresholds,
        );
        let scored = results.values().filter(|r| r.scores().is_some()).count();
        let needed = verdict::quorum_required(self.config.panel.len());
        evaluation.ranking = Some(ranked.clone());
        let order: Vec<&str> = ranked.ranking.iter().map(|o| o.option.as_str()).collect();
        self.push_log(
            now,
            LogKind::Verdict,
            None,
            format!(
                "round {round}: ranking {} — {}",
                order.join(" > "),
                ranked.conditional_recommendation
            ),
        );
        for option in ranked.ranking.iter().filter(|o| o.dealbreaker.is_some()) {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!(
                    "option {} has a dealbreaker: {}",
                    option.option,
                    option.dealbreaker.as_deref().unwrap_or_default()
                ),
            );
        }
        let mut note = match &ranked.recommendation {
            Some(id) => format!("recommendation: {id}"),
            None => "no option can be recommended".to_string(),
        };
        if scored < needed {
            note.push_str(&format!(
                "; only {scored} of {} judges scored, below the quorum of {needed}",
                self.config.panel.len()
            ));
        }
        self.enter(Stage::Done, round, now);
        let outcome = Outcome::Completed {
            deliverable: documents::SUMMARY_FILE.to_string(),
            note,
        };
        self.outcome = Some(outcome.clone());
        vec![Effect::Finished(outcome)]
    }

    // ---- failures -------------------------------------------------------

    /// A proposer, critic or reviser output that cannot be parsed gets one
    /// repair call quoting the error; a second failure stops the debate.
    fn repair_or_stop(
        &mut self,
        call: LiveCall,
        output: &str,
        error: String,
        now: Timestamp,
    ) -> Vec<Effect> {
        let call_id = &call.call_id();
        self.malformed.push(MalformedOutput {
            call_id: call_id.to_string(),
            role: call.slot.role.clone(),
            stage: call.slot.stage.clone(),
            round: call.slot.round,
            raw: output.to_string(),
            reason: error.clone(),
            at: now,
        });
        self.push_log(
            now,
            LogKind::Malformed,
            Some(call_id),
            format!(
                "{} {} output could not be parsed: {error}",
                call.slot.role, call.slot.stage
            ),
        );
        let repair = (self.prompts.as_ref(), Template::Repair.spec());
        match self.calls.repair(call, output, &error, repair, now) {
            Ok(spec) => vec![Effect::StartCall(spec)],
            Err(reason) => self.fail(now, reason),
        }
    }

    fn on_gave_up(&mut self, call: LiveCall, reason: String, now: Timestamp) -> Vec<Effect> {
        let call_id = &call.call_id();
        if let Some(role) = call
            .slot
            .role
            .strip_prefix("judge.")
            .and_then(JudgeRole::parse)
        {
            return self.on_judge_given_up(role, call_id, reason, now);
        }
        // A required agent: no fabricated verdict (RULES.md A18).
        self.fail(
            now,
            format!(
                "the {} gave no answer in the {} stage, even after a retry ({reason})",
                call.slot.role, call.slot.stage
            ),
        )
    }
}

impl DecisionReview {
    /// The inputs that are the decision review's own, not call plumbing.
    fn handle_own(&mut self, input: &Input, now: Timestamp) -> Vec<Effect> {
        match input {
            Input::ItemDecided {
                item_id,
                decision,
                note,
            } => self.on_item_decided(item_id, *decision, note.as_deref(), now),
            Input::ModerationSubmitted => self.on_moderation_submitted(now),
            Input::Override {
                call_id,
                action: OverrideAction::Rerun,
            } => self.on_rerun(call_id, now),
            Input::Override {
                call_id,
                action: OverrideAction::Skip,
            } => {
                if self.held_judge(call_id).is_none() {
                    self.push_log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        "override ignored: the call is not live".into(),
                    );
                    return Vec::new();
                }
                self.push_log(
                    now,
                    LogKind::Override,
                    Some(call_id),
                    "moderator: go on without this judge".into(),
                );
                if let Some(evaluation) = self.evaluations.last_mut() {
                    evaluation.released = true;
                }
                self.conclude_round_if_complete(now)
            }
            Input::ItemResolved {
                item_id,
                decision,
                note,
            } => self.on_item_resolved(item_id, *decision, note.as_deref(), now),
            Input::Reopened => self.on_reopened(now),
            // Everything else is call plumbing, routed before it gets here.
            _ => Vec::new(),
        }
    }
}

impl Protocol for DecisionReview {
    fn start(&mut self, now: Timestamp) -> Vec<Effect> {
        self.push_log(
            now,
            LogKind::Note,
            None,
            format!(
                "decision review ({} mode, critique {}, {} judges, up to {} revise loop(s)): {}",
                self.config.mode.as_str(),
                self.config.critique_mode.as_str(),
                self.config.panel.len(),
                self.config.max_rounds,
                self.config.topic
            ),
        );
        self.start_proposal(now)
    }

    fn handle(&mut self, input: &Input, now: Timestamp) -> Vec<Effect> {
        let after_verdict = matches!(input, Input::ItemResolved { .. } | Input::Reopened);
        if self.outcome.is_some() && !after_verdict {
            return Vec::new();
        }
        match self.calls.route(input, now) {
            Routed::Handled(effects) => {
                if matches!(input, Input::AgentSwitched { .. }) {
                    self.sync_participants();
                }
                effects
            }
            Routed::Answered { call, output } => match call.slot.stage.as_str() {
                "proposal" => self.on_proposal(call, output, now),
                "critique" => self.on_critique(call, output, now),
                "revision" => self.on_revision(call, output, now),
                _ => {
                    let role = call
                        .slot
                        .role
                        .strip_prefix("judge.")
                        .and_then(JudgeRole::parse)
                        .expect("evaluation calls belong to judges");
                    let call_id = call.call_id();
                    self.on_judge(role, &call_id, output, now)
                }
            },
            Routed::GaveUp {
                call,
                reason,
                by_moderator,
                mut effects,
            } => {
                if by_moderator && self.stage == Stage::Evaluation {
                    // The moderator chose to go on without this judge; a
                    // held round would only ask them again.
                    if let Some(evaluation) = self.evaluations.last_mut() {
                        evaluation.released = true;
                    }
                }
                effects.extend(self.on_gave_up(call, reason, now));
                effects
            }
            Routed::Protocol(input) => self.handle_own(input, now),
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            stage: self.stage.as_str().to_string(),
            round: self.round,
            max_round: 0,
            budget: None,
            finished: self.outcome.is_some(),
        }
    }

    fn log(&self) -> &[LogEntry] {
        self.calls.log()
    }

    fn documents(&self) -> Vec<Document> {
        documents::documents(self)
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn describe(&self) -> Description {
        let config = &self.config;
        let participants = &config.participants;
        let role =
            |slot: &str, title: &str, group: RoleGroup, agent: &str, binding: bool| RoleInfo {
                slot: slot.to_string(),
                title: title.to_string(),
                group,
                agent: agent.to_string(),
                binding,
            };
        let mut roles = vec![
            role(
                "proposer",
                "Proposer",
                RoleGroup::Lead,
                &participants.proposer,
                false,
            ),
            role(
                "critic",
                "Critic",
                RoleGroup::Challenger,
                &participants.critic,
                false,
            ),
        ];
        for judge in &config.panel {
            roles.push(role(
                &judge_slot_role(judge.role),
                &crate::report::capitalised(judge.role.as_str()),
                RoleGroup::Panel,
                participants
                    .judges
                    .get(&judge.role)
                    .map(String::as_str)
                    .unwrap_or_default(),
                judge.weight == Weight::Binding,
            ));
        }
        let mut label = format!(
            "decision review · {} · {} critique",
            config.mode.as_str(),
            config.critique_mode.as_str()
        );
        if config.high_stakes {
            label.push_str(" · high stakes");
        }
        Description {
            topic: config.topic.clone(),
            label,
            roles,
            deliverable: documents::SUMMARY_FILE.to_string(),
            items: Some(RegionInfo {
                title: "Critique items".into(),
                placeholder: "The critic's items appear here for your decision.".into(),
            }),
            board: Some(RegionInfo {
                title: "Scores".into(),
                placeholder: "Scores appear here as each judge's answer is parsed.".into(),
            }),
            about:
                "quorum runs a debate: a proposer proposes, a critic criticises, you decide each \
                    critique item, the proposer revises, the judges score, and the verdict follows \
                    from the scores."
                    .to_string(),
            ending_note: "The decision follows mechanically from the judges' scores; the \
                          summary below is what quorum wrote to summary.md."
                .to_string(),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary_lead(self)
    }

    fn usage(&self) -> Option<&UsageLedger> {
        Some(self.calls.usage())
    }

    fn usage_line(&self) -> Option<String> {
        crate::report::usage_line(self.calls.usage(), self.duration_ms())
    }

    fn result_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut fields = serde_json::Map::new();
        fields.insert(
            "decision".into(),
            serde_json::to_value(self.decision_record()).unwrap_or_default(),
        );
        fields
    }

    fn resolution_refusal(&self, item_id: &str, decision: ItemDecision) -> Option<String> {
        self.settle_refusal(item_id, decision)
    }

    fn board(&self) -> Board {
        let items = self
            .critique_items()
            .iter()
            .map(|item| {
                let ruling = self.ruling(&item.id);
                BoardItem {
                    item: moderation_item(item),
                    decision: ruling.as_ref().map(|ruling| ruling.decision),
                    note: ruling.and_then(|ruling| ruling.note),
                    resolution: self.resolution(&item.id).cloned(),
                }
            })
            .collect();
        Board {
            stages: stages(),
            view: self.scoreboard().map_or(BoardView::None, BoardView::Scores),
            items,
            needs_moderator: self.stage == Stage::Moderation
                || self.evaluations.last().is_some_and(|round| round.held),
            held_calls: self
                .evaluations
                .last()
                .filter(|round| round.held)
                .map(|round| {
                    round
                        .judges
                        .values()
                        .filter(|record| {
                            matches!(
                                record.result,
                                Some(JudgeResult::Malformed { .. } | JudgeResult::Skipped { .. })
                            )
                        })
                        .filter_map(|record| record.call_id.clone())
                        .collect()
                })
                .unwrap_or_default(),
            required_roles: vec!["proposer".into(), "critic".into()],
            resolvable: self.has_verdict()
                && self
                    .items_decided(ItemDecision::Defer)
                    .iter()
                    .any(|item| self.addressed_in_round(&item.id).is_none()),
            reopen_pending: self.reopen_pending(),
        }
    }

    fn open_items(&self) -> Vec<ModerationItem> {
        self.open_deferred_items()
            .into_iter()
            .map(moderation_item)
            .collect()
    }

    /// Once a debate has ended (with a verdict, or failed in a reopened
    /// round), items accepted after its verdict that no revision has
    /// answered reopen it.
    fn reopen_pending(&self) -> bool {
        self.outcome.is_some() && !self.awaiting_reopen().is_empty()
    }

    fn check_answer(&self, call_id: &str, answer: &str) -> Result<(), String> {
        let call = self
            .calls
            .live_call(call_id)
            .ok_or_else(|| format!("{call_id} is not waiting for an answer"))?;
        let error = match call.slot.stage.as_str() {
            "proposal" => parse::parse_thesis_tree(answer).err(),
            "critique" => {
                let tree = self
                    .proposal
                    .as_ref()
                    .map(|p| &p.parsed)
                    .ok_or("no proposal yet")?;
                parse::parse_critique(answer, tree, self.config.critique_mode).err()
            }
            "revision" => parse::parse_revision(answer, &self.pending_must_address).err(),
            "evaluation" => {
                let judge = call
                    .slot
                    .role
                    .strip_prefix("judge.")
                    .and_then(JudgeRole::parse)
                    .and_then(|role| self.judge_config(role))
                    .ok_or("not a judge of this panel")?;
                let tree = self.current_tree().ok_or("no revised tree yet")?;
                parse::parse_judge(answer, judge, tree).err()
            }
            other => return Err(format!("no answer is expected in stage {other}")),
        };
        error.map_or(Ok(()), |error| Err(error.to_string()))
    }

    fn answer_template(&self, call_id: &str) -> Option<String> {
        let call = self.calls.live_call(call_id)?;
        last_yaml_fence(&call.prompt)
    }
}

/// The stage strip of a decision review (DR-01), the moderator's turn and
/// the verdict included.
fn stages() -> Vec<StageInfo> {
    [
        (Stage::Proposal, StageFocus::Role("proposer".into())),
        (Stage::Critique, StageFocus::Role("critic".into())),
        (Stage::Moderation, StageFocus::Items),
        (Stage::Revision, StageFocus::Role("proposer".into())),
        (Stage::Evaluation, StageFocus::Board),
        (Stage::Done, StageFocus::Stay),
    ]
    .into_iter()
    .map(|(stage, focus)| {
        StageInfo::new(
            stage.as_str(),
            &crate::report::capitalised(stage.as_str()),
            focus,
        )
    })
    .collect()
}

/// The last fenced YAML block of a prompt: every prompt ends with the shape
/// of the answer it expects.
fn last_yaml_fence(prompt: &str) -> Option<String> {
    let start = prompt.rfind("```yaml\n")? + "```yaml\n".len();
    let end = prompt[start..].find("```")? + start;
    Some(prompt[start..end].to_string())
}

impl DecisionReview {
    /// The scoreboard of the latest evaluation round.
    fn scoreboard(&self) -> Option<Scoreboard> {
        let evaluation = self.evaluations.last()?;
        let tree = self.current_tree()?;
        let comparative = self.config.mode == ReviewMode::Comparative;
        // A comparison's rows are its options, each the blocks arguing it.
        let rows: Vec<(String, Vec<String>)> = if comparative {
            self.config
                .options
                .iter()
                .map(|option| {
                    let blocks = tree
                        .blocks
                        .iter()
                        .filter(|block| block.option.as_deref() == Some(option.id.as_str()))
                        .map(|block| block.id.clone())
                        .collect();
                    (option.id.clone(), blocks)
                })
                .collect()
        } else {
            block_ids(tree)
                .into_iter()
                .map(|block| (block.clone(), vec![block]))
                .collect()
        };
        let blocks = block_ids(tree);
        let judges = self
            .config
            .panel
            .iter()
            .map(|judge| {
                let record = evaluation.judges.get(&judge.role);
                let result = record.and_then(|record| record.result.as_ref());
                let state = match result {
                    None => JudgeState::Pending,
                    Some(JudgeResult::Scored(_)) => JudgeState::Scored,
                    Some(JudgeResult::Malformed { reason }) => {
                        JudgeState::Malformed(reason.clone())
                    }
                    Some(JudgeResult::Skipped { reason }) => JudgeState::Skipped(reason.clone()),
                };
                let scored = result.and_then(JudgeResult::scores);
                let scores = rows
                    .iter()
                    .map(|(_, row_blocks)| {
                        judge
                            .criteria
                            .iter()
                            .map(|criterion| {
                                let given: Vec<u8> = scored
                                    .map(|scores| {
                                        scores
                                            .block_scores
                                            .iter()
                                            .filter(|s| {
                                                row_blocks.contains(&s.block_id)
                                                    && s.criterion == *criterion
                                            })
                                            .map(|s| s.score)
                                            .collect()
                                    })
                                    .unwrap_or_default();
                                let sum: u32 = given.iter().map(|&v| u32::from(v)).sum();
                                // One block's score, or the rounded mean of an option's.
                                (!given.is_empty())
                                    .then(|| ((f64::from(sum) / given.len() as f64).round()) as u8)
                            })
                            .collect()
                    })
                    .collect();
                ScoreColumn {
                    judge: judge.role.as_str().to_string(),
                    binding: judge.is_binding(),
                    criteria: judge
                        .criteria
                        .iter()
                        .map(|c| c.as_str().to_string())
                        .collect(),
                    state,
                    scores,
                    synthesis: scored.map(|scores| {
                        let values = scores.synthesis.values();
                        values.iter().map(|v| f64::from(*v)).sum::<f64>() / values.len() as f64
                    }),
                }
            })
            .collect::<Vec<_>>();
        let pending = judges
            .iter()
            .filter(|column| column.state == JudgeState::Pending)
            .count();
        let leader = comparative.then(|| {
            let ranked = evaluation.ranking.clone().unwrap_or_else(|| {
                let block_option: BTreeMap<String, String> = tree
                    .blocks
                    .iter()
                    .filter_map(|block| Some((block.id.clone(), block.option.clone()?)))
                    .collect();
                let ids: Vec<String> = self.config.options.iter().map(|o| o.id.clone()).collect();
                ranking::rank(
                    &ids,
                    &block_option,
                    &self.config.panel,
                    &evaluation.results(),
                    &self.config.thresholds,
                )
            });
            let order: Vec<&str> = ranked.ranking.iter().map(|o| o.option.as_str()).collect();
            let so_far = if pending > 0 {
                format!(
                    "so far ({pending} judge{} pending): ",
                    if pending == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            };
            format!(
                "{so_far}{} · {}",
                order.join(" > "),
                ranked.conditional_recommendation
            )
        });
        let implied = match &evaluation.assessment {
            _ if comparative => None,
            Some(assessment) => Some(ImpliedVerdict {
                verdict: assessment.verdict,
                rule: assessment.rule.clone(),
                pending: 0,
            }),
            None if pending < judges.len() => {
                let assessment = verdict::derive_verdict(
                    &self.config.panel,
                    &evaluation.results(),
                    &blocks,
                    &self.config.thresholds,
                );
                Some(ImpliedVerdict {
                    verdict: assessment.verdict,
                    rule: assessment.rule,
                    pending,
                })
            }
            None => None,
        };
        Some(Scoreboard {
            round: evaluation.round,
            blocks: rows.into_iter().map(|(label, _)| label).collect(),
            judges,
            binding_threshold: self.config.thresholds.binding,
            implied,
            leader,
        })
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

/// A critique item as the moderator sees it.
pub fn moderation_item(item: &CritiqueItem) -> ModerationItem {
    ModerationItem {
        id: item.id.clone(),
        target: item.target_block.clone(),
        severity: severity_word(item).to_string(),
        category: flaw_word(item.flaw_type).to_string(),
        text: item.description.clone(),
        preface: item.steelman.clone().unwrap_or_default(),
        suggestion: None,
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

/// A moderator's note, trimmed; an empty one is no note.
fn clean_note(note: Option<&str>) -> Option<String> {
    note.map(str::trim)
        .filter(|note| !note.is_empty())
        .map(str::to_string)
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

fn past_tense(decision: ItemDecision) -> &'static str {
    match decision {
        ItemDecision::Accept => "accepted",
        ItemDecision::Reject => "rejected",
        ItemDecision::Defer => "deferred",
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
