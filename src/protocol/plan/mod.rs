//! The planning debate (RULES.md section 11a, PC-01..PC-33, A25-A27): a
//! planner drafts, a critic raises problems, an optimizer proposes
//! improvements and third options, the planner proposes a response to
//! every item and the moderator confirms or overrides it, and a synthesizer
//! writes the plan with its critique log.
//!
//! The order, as the seed gives it and A26 defines a round:
//!
//! 1. **Draft.** The planner writes the plan, marking every technical
//!    assumption it is not sure of `[UNVERIFIED]` (PC-24).
//! 2. **Round 1.** The critic gets the whole draft and answers with
//!    challenges, most severe first (PC-08, PC-09, PC-29); only then the
//!    optimizer gets the draft and the challenges and proposes improvements
//!    and third options (PC-10, PC-11, PC-13, PC-30); the planner proposes
//!    a response to each challenge, then each proposal (PC-12, PC-14); the
//!    moderator confirms or overrides each one (A26); the planner revises
//!    the plan to the final decisions (PC-15). Critic and optimizer also
//!    try to verify each `[UNVERIFIED]` assumption (PC-25): a `[VERIFIED]`
//!    counts with a link, a quote or a file and line, or once the
//!    moderator confirms it, offered beside the round's items (issue 60).
//! 3. **Round 2, if the critic disputes.** The critic reviews the
//!    planner's responses (PC-16): what it finds unsound it challenges
//!    again, and the optimizer gets those disputed items to break; the
//!    planner responds, the moderator decides, the planner revises. Two
//!    rounds at most (PC-17).
//! 4. **Final words.** The critic's final assessment and the optimizer's
//!    final proposals (PC-18, PC-19) (a `[VERIFIED]` without evidence in
//!    them gets a moderation of its own), then the synthesizer, with all
//!    three (PC-20), writes `plan.md` and its decision record, filed under
//!    `docs/` (PC-21, PC-22); quorum checks its critique log against the
//!    recorded decisions, corrects it when it differs, and makes sure every
//!    assumption still unverified is a task in Progress Tracking (PC-26,
//!    PC-31..PC-33, A27).
//!
//! Simple mode is the planner and the synthesizer only (PC-28).
//!
//! Not responsible for I/O, timers or retries: every answer was journaled
//! before it is read, and only the synthesizer's becomes files (PC-21).
//! A debate journaled before issue 60 ([`Edition::FIRST`]) folds as it
//! ran: any `[VERIFIED]` verifies, only the plan's markers are tracked, and
//! `plan.md` is its one file.

pub mod binding;
mod board;
mod closing;
mod critique;
pub mod docs;
pub mod documents;
pub mod kind;
pub mod model;
mod moderation;
pub mod parse;
pub mod prompts;
mod revision;

pub use kind::KIND;

/// What a spec's `protocol:` says for a planning debate.
pub const NAME: &str = "plan";

use crate::protocol::{Answer, DebateCore, Edition, GivenUp, Seating, SharedSteps, parses};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::model::{
    Assumption, Check, Confirmation, DecidedBy, Decision, Item, Response, Source, Verification,
};
use self::parse::Written;
use super::Refusals;
use super::calls::{Calls, Submission, Unusable};
use super::items::ItemBook;
use super::supervision::{LiveCall, Slot};
use super::{
    Board, BoardItem, BoardView, ContextDoc, Description, Effect, ItemDecision, ItemResolution,
    LogKind, ModerationItem, Outcome, Progress, RegionInfo, RoleGroup, StageFocus, Timestamp,
    documents::Documents,
};
use crate::prompts::{PromptSet, TemplateSpec};
use crate::protocol::Stage as _;
use crate::words::one_line;

/// At most this many rounds of critic–planner exchange (PC-17).
pub const MAX_ROUNDS: u32 = 2;

pub const PLANNER: &str = "planner";
pub const CRITIC: &str = "critic";
pub const OPTIMIZER: &str = "optimizer";
pub const SYNTHESIZER: &str = "synthesizer";

/// Everything that defines one planning debate. Journaled as the first
/// event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanConfig {
    /// The goal to plan for.
    pub topic: String,
    #[serde(default)]
    pub context: Vec<ContextDoc>,
    /// Planner and synthesizer only (PC-28).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub simple: bool,
    /// Who plays each role, at what price, since when, and whether a
    /// person moderates.
    #[serde(flatten)]
    pub seating: Seating,
    /// The revisions and the plan are checked against the moderator's
    /// decisions and asked once more when they go against them (issue 26).
    /// Every debate started now does; one journaled before (the field
    /// absent) folds as it ran, so resuming or replaying it never starts a
    /// call it never had.
    #[serde(default)]
    pub checks_rulings: bool,
    /// A repository's folder the synthesizer's files also go to
    /// (`--write-docs DIR`, issue 60); none: the run folder's `docs/`
    /// alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<docs::DocsTarget>,
}

impl PlanConfig {
    /// The role slots it seats, with their groups.
    pub fn slots(&self) -> Vec<(&'static str, RoleGroup)> {
        if self.simple {
            vec![
                (PLANNER, RoleGroup::Lead),
                (SYNTHESIZER, RoleGroup::Synthesizer),
            ]
        } else {
            vec![
                (PLANNER, RoleGroup::Lead),
                (CRITIC, RoleGroup::Challenger),
                (OPTIMIZER, RoleGroup::Panel),
                (SYNTHESIZER, RoleGroup::Synthesizer),
            ]
        }
    }
}

/// Where a planning debate is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Draft,
    Critique,
    Optimize,
    Respond,
    Moderation,
    Revise,
    Review,
    Final,
    Synthesis,
    Done,
}

/// Every stage a planning debate can be in, simple or not.
pub fn every_stage() -> Vec<&'static str> {
    Step::COMPLEX.iter().map(|step| step.id()).collect()
}

impl Step {
    const COMPLEX: [Step; 10] = [
        Step::Draft,
        Step::Critique,
        Step::Optimize,
        Step::Respond,
        Step::Moderation,
        Step::Revise,
        Step::Review,
        Step::Final,
        Step::Synthesis,
        Step::Done,
    ];
}

impl crate::protocol::Stage for Step {
    const DONE: Step = Step::Done;

    fn id(self) -> &'static str {
        match self {
            Step::Draft => "draft",
            Step::Critique => "critique",
            Step::Optimize => "optimize",
            Step::Respond => "respond",
            Step::Moderation => "moderation",
            Step::Revise => "revise",
            Step::Review => "review",
            Step::Final => "final",
            Step::Synthesis => "synthesis",
            Step::Done => "done",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Step::Draft => "Draft",
            Step::Critique => "Critique",
            Step::Optimize => "Optimize",
            Step::Respond => "Responses",
            Step::Moderation => "Moderation",
            Step::Revise => "Revision",
            Step::Review => "Review",
            Step::Final => "Final words",
            Step::Synthesis => "Synthesis",
            Step::Done => "Plan",
        }
    }

    fn focus(self) -> StageFocus {
        match self {
            Step::Draft | Step::Respond | Step::Revise => StageFocus::Role(PLANNER.into()),
            Step::Critique | Step::Review => StageFocus::Role(CRITIC.into()),
            Step::Optimize => StageFocus::Role(OPTIMIZER.into()),
            Step::Moderation => StageFocus::Items,
            Step::Synthesis => StageFocus::Role(SYNTHESIZER.into()),
            Step::Final | Step::Done => StageFocus::Stay,
        }
    }

    fn moderates(self) -> bool {
        self == Step::Moderation
    }

    /// The critique, the responses, the moderation, the revision and its
    /// review are a round's (PL-03).
    fn counts_rounds(self) -> bool {
        !matches!(
            self,
            Step::Draft | Step::Final | Step::Synthesis | Step::Done
        )
    }
}

/// A running planning debate.
pub struct Plan {
    config: PlanConfig,
    /// Where it stands: its step, and the round of critique (PL-03).
    core: DebateCore<Step>,
    /// Rounds of exchange that ran to a revision.
    rounds_run: u32,
    /// The plan as it stands: the draft, then each revision.
    plan: String,
    items: Vec<Item>,
    responses: BTreeMap<String, Response>,
    /// The moderator's decisions, in the book every protocol keeps them
    /// in: each item with the planner's proposal, decided and submitted
    /// there; `decisions` keeps what a submission settled.
    book: ItemBook<PlanSubject>,
    decisions: BTreeMap<String, Decision>,
    assumptions: Vec<Assumption>,
    kept: Vec<Submission>,
    /// The critic's final assessment (PC-18).
    assessment: Option<String>,
    /// The optimizer's final proposals (PC-19).
    final_proposals: Option<String>,
    /// Roles whose call of the current step has not ended.
    awaiting: BTreeSet<String>,
    /// Why a role's part is missing, for the record.
    missing: Vec<String>,
    /// The synthesizer's document, as written.
    synthesis: Option<Submission>,
    /// Where a revision or the plan still went against the moderator's
    /// decisions after it was asked once more: `(what, departure)`, what
    /// being `revision 1` or `plan`.
    departures: Vec<(String, String)>,
    /// Answers that cite no item, so were not checked by id: `revision 1`,
    /// `plan`.
    unchecked: Vec<String>,
    /// The moderation open now is the one before the synthesis, for the
    /// verifications without evidence the final words brought (issue 60).
    confirming: bool,
    places: Places,
}

crate::lend_core!(Plan, core, Step);

/// What the plan's item book knows of an item: its id and what the planner
/// proposed for it, so a decision says whether it confirms or overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanSubject {
    pub id: String,
    pub proposed: Option<ItemDecision>,
    /// An assumption marked `[VERIFIED]` without evidence, for the
    /// moderator to confirm (issue 60), rather than a challenge or a
    /// proposal.
    pub verification: bool,
}

impl PlanSubject {
    /// `accepted as the planner proposed`, `rejected (the planner proposed
    /// to accept)`: the decision, and whether it confirms the planner; for
    /// a verification, what it does to the assumption.
    fn how(&self, decision: ItemDecision) -> &'static str {
        use ItemDecision::{Accept, Defer, Reject};
        if self.verification {
            return match decision {
                Accept => "confirmed verified by the moderator",
                Reject => "not confirmed: it stays unverified",
                Defer => "left unverified, to investigate",
            };
        }
        match (self.proposed, decision) {
            (Some(proposed), decision) if proposed == decision => match decision {
                Accept => "accepted as the planner proposed",
                Reject => "rejected as the planner proposed",
                Defer => "deferred as the planner proposed",
            },
            (Some(Accept), Reject) => "rejected (the planner proposed to accept)",
            (Some(Accept), _) => "deferred (the planner proposed to accept)",
            (Some(Reject), Accept) => "accepted (the planner proposed to reject)",
            (Some(Reject), _) => "deferred (the planner proposed to reject)",
            (Some(Defer), Accept) => "accepted (the planner proposed to defer)",
            (Some(Defer), _) => "rejected (the planner proposed to defer)",
            (None, decision) => decision.past_tense(),
        }
    }
}

/// Where each item and assumption stands in its list, how many items each
/// source has raised and which assumption texts are tracked: a lookup by
/// id and a new number cost the same however many there are.
#[derive(Default)]
struct Places {
    items: HashMap<String, usize>,
    raised_by: HashMap<Source, usize>,
    assumptions: HashMap<String, usize>,
    assumption_texts: HashSet<String>,
}

impl Plan {
    pub fn new(config: PlanConfig, prompts: Arc<PromptSet>) -> Self {
        let calls = config.seating.calls();
        Plan {
            config,
            core: DebateCore::new(Step::Draft, calls, prompts).with_rounds(MAX_ROUNDS),
            rounds_run: 0,
            plan: String::new(),
            items: Vec::new(),
            responses: BTreeMap::new(),
            book: ItemBook::default(),
            decisions: BTreeMap::new(),
            assumptions: Vec::new(),
            kept: Vec::new(),
            assessment: None,
            final_proposals: None,
            awaiting: BTreeSet::new(),
            missing: Vec::new(),
            synthesis: None,
            departures: Vec::new(),
            unchecked: Vec::new(),
            confirming: false,
            places: Places::default(),
        }
    }

    pub fn config(&self) -> &PlanConfig {
        &self.config
    }
    pub fn items(&self) -> &[Item] {
        &self.items
    }
    pub fn response(&self, id: &str) -> Option<&Response> {
        self.responses.get(id)
    }
    pub fn decision(&self, id: &str) -> Option<&Decision> {
        self.decisions.get(id)
    }
    pub fn resolution(&self, id: &str) -> Option<&ItemResolution> {
        self.book.resolution(id)
    }
    pub fn assumptions(&self) -> &[Assumption] {
        &self.assumptions
    }
    pub fn kept(&self) -> &[Submission] {
        &self.kept
    }
    pub fn unusable(&self) -> &[Unusable] {
        &self.core.unusable
    }
    pub fn assessment(&self) -> Option<&str> {
        self.assessment.as_deref()
    }
    pub fn final_proposals(&self) -> Option<&str> {
        self.final_proposals.as_deref()
    }
    pub fn synthesis(&self) -> Option<&Submission> {
        self.synthesis.as_ref()
    }
    pub fn missing(&self) -> &[String] {
        &self.missing
    }
    pub fn rounds_run(&self) -> u32 {
        self.rounds_run
    }
    /// Where an answer still went against the moderator's decisions after
    /// being asked once more: `(what, departure)`.
    pub fn departures(&self) -> &[(String, String)] {
        &self.departures
    }
    /// The departures of the plan itself, the synthesizer's document.
    pub fn plan_departures(&self) -> Vec<&str> {
        self.departures
            .iter()
            .filter(|(what, _)| what == "plan")
            .map(|(_, text)| text.as_str())
            .collect()
    }
    /// Answers that cited no item, so could not be checked by id.
    pub fn unchecked(&self) -> &[String] {
        &self.unchecked
    }
    pub fn current_plan(&self) -> &str {
        &self.plan
    }
    pub fn calls(&self) -> &Calls {
        &self.core.calls
    }

    /// The assumptions still unverified.
    pub fn open_assumptions(&self) -> Vec<&Assumption> {
        self.assumptions
            .iter()
            .filter(|assumption| assumption.status() == Verification::Unverified)
            .collect()
    }

    fn item(&self, id: &str) -> Option<&Item> {
        self.places.items.get(id).map(|&place| &self.items[place])
    }

    /// Whether the debate follows the rules of issue 60: an assumption is
    /// verified only with evidence or the moderator's confirmation, and
    /// the critic and the optimizer may mark assumptions of their own. A
    /// debate journaled before them folds as it ran.
    fn follows_conclusions(&self) -> bool {
        self.config.seating.edition.follows(Edition::CONCLUSIONS)
    }

    fn log(&mut self, now: Timestamp, kind: LogKind, call_id: Option<&str>, message: String) {
        self.core.calls.push_log(now, kind, call_id, message);
    }

    fn start_call(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: &str,
        now: Timestamp,
    ) -> Result<Effect, Vec<Effect>> {
        let slot = self.core.slot(role);
        let started = self.start_or_stop(slot, template, &context, None, now);
        started.map(Effect::StartCall)
    }

    fn start_one(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: &str,
        now: Timestamp,
    ) -> Vec<Effect> {
        let slot = Slot::new(role, self.core.stage.id(), self.core.round);
        self.ask(slot, template, &context, None, now)
    }

    fn keep(&mut self, answer: &Answer<'_>, normalised: Vec<String>) {
        self.keep_text(answer, answer.output, normalised);
    }

    /// Keeps the `text` of `answer` that was read: its own, or the first
    /// answer of a repair that read worse (issue 59).
    fn keep_text(&mut self, answer: &Answer<'_>, text: &str, normalised: Vec<String>) {
        let read = Answer {
            call: answer.call.clone(),
            output: text,
            now: answer.now,
        };
        let kept = self.core.calls.keep(&read, normalised);
        self.kept.push(kept);
    }

    fn unverified_json(&self) -> Vec<serde_json::Value> {
        self.assumptions
            .iter()
            .map(|assumption| {
                json!({
                    "id": assumption.id,
                    "text": assumption.text,
                    "status": assumption.status().as_str(),
                    "why": assumption.why_unverified(),
                    "raised_by": assumption.raised_by,
                    "checks": assumption.checks.iter().map(|check| json!({
                        "by": check.by, "round": check.round, "result": check.result.as_str(), "note": check.note,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect()
    }

    fn item_json(&self, item: &Item) -> serde_json::Value {
        let response = self.responses.get(&item.id);
        let decision = self.decisions.get(&item.id);
        json!({
            "id": item.id,
            "source": item.source.as_str(),
            "round": item.round,
            "category": item.category,
            "summary": item.summary,
            "level": item.level.as_str(),
            "fields": item.fields.iter().map(|(key, value)| json!({"key": key, "value": value})).collect::<Vec<_>>(),
            "refers_to": item.refers_to,
            "response": response.map(|r| r.decision.as_str()),
            "reason": response.map(|r| r.reason.clone()),
            "decision": decision.map(|d| d.decision.past_tense()),
            "by": decision.map(|d| match d.by { DecidedBy::Planner => "planner", DecidedBy::Moderator => "moderator" }),
            "note": decision.and_then(|d| d.note.clone()),
        })
    }

    /// Adds the `[UNVERIFIED]` markers of `plan` not tracked yet, raised
    /// by the planner.
    fn track_markers(&mut self, plan: &str, from: &str, now: Timestamp) {
        self.track_assumptions(parse::unverified_markers(plan), PLANNER, from, now);
    }

    /// Adds the assumptions a critic's or an optimizer's `answer` marks
    /// `[UNVERIFIED]` at the start of a line (issue 60); a debate journaled
    /// before it tracked the plan's alone.
    fn track_raised(&mut self, answer: &Answer<'_>, text: &str) {
        if !self.follows_conclusions() {
            return;
        }
        let slot = &answer.call.slot;
        let from = format!("{}, round {}", slot.stage, slot.round);
        let role = slot.role.clone();
        self.track_assumptions(parse::raised_markers(text), &role, &from, answer.now);
    }

    fn track_assumptions(&mut self, texts: Vec<String>, by: &str, from: &str, now: Timestamp) {
        let mut added = Vec::new();
        for text in texts {
            if !self.places.assumption_texts.insert(text.clone()) {
                continue;
            }
            let id = format!("U{}", self.assumptions.len() + 1);
            added.push(id.clone());
            self.places
                .assumptions
                .entry(id.clone())
                .or_insert(self.assumptions.len());
            self.assumptions.push(Assumption {
                id,
                text,
                from: from.to_string(),
                raised_by: by.to_string(),
                checks: Vec::new(),
            });
        }
        if !added.is_empty() {
            let message = if by == PLANNER {
                format!("[UNVERIFIED] in the {from}: {}", added.join(", "))
            } else {
                format!(
                    "[UNVERIFIED] marked by the {by} ({from}): {}",
                    added.join(", ")
                )
            };
            self.log(now, LogKind::Note, None, message);
        }
    }

    /// Records what `by` reported about the tracked assumptions.
    fn take_checks(
        &mut self,
        checks: Vec<parse::Checked>,
        by: &str,
        now: Timestamp,
        call_id: &str,
    ) {
        let round = self.core.round;
        let asks_evidence = self.follows_conclusions();
        let mut seen = Vec::new();
        for (id, result, note) in checks {
            let place = self.places.assumptions.get(&id).copied();
            if let Some(assumption) = place.map(|place| &mut self.assumptions[place]) {
                // Issue 60, PC-25: a `[VERIFIED]` counts with an evidence
                // link or quote; without one it waits for the moderator.
                let (evidence, confirmation) = match result {
                    Verification::Verified if asks_evidence => match parse::evidence_in(&note) {
                        Some(evidence) => (Some(evidence), None),
                        None => (None, Some(Confirmation::Pending)),
                    },
                    _ => (None, None),
                };
                let bare = confirmation.is_some();
                assumption.checks.push(Check {
                    by: by.to_string(),
                    round,
                    result,
                    note,
                    evidence,
                    confirmation,
                });
                seen.push(if bare {
                    format!(
                        "{id} VERIFIED without an evidence link or quote, so it stays unverified unless the moderator confirms it"
                    )
                } else {
                    format!("{id} {}", result.as_str())
                });
            }
        }
        if !seen.is_empty() {
            self.log(
                now,
                LogKind::Note,
                Some(call_id),
                format!("{by} checked {}", seen.join(", ")),
            );
        }
    }

    /// Keeps `answer` (its `text` that was read) and the assumption
    /// `checks` it reports (under its role's name); its call id, for the
    /// lines that follow.
    fn keep_checked(
        &mut self,
        answer: &Answer<'_>,
        text: &str,
        notes: Vec<String>,
        checks: Vec<parse::Checked>,
    ) -> String {
        let call_id = answer.call.call_id();
        self.keep_text(answer, text, notes);
        let role = &answer.call.slot.role;
        self.take_checks(checks, role, answer.now, &call_id);
        self.track_raised(answer, text);
        call_id
    }

    /// Numbers `written` items of `source` raised in this round.
    fn take_items(&mut self, written: Vec<Written>, source: Source) -> Vec<String> {
        let prefix = match source {
            Source::Critic => "C",
            Source::Optimizer => "I",
        };
        let mut ids = Vec::new();
        for item in written {
            let raised = self.places.raised_by.entry(source).or_default();
            *raised += 1;
            let id = format!("{prefix}{raised}");
            ids.push(id.clone());
            self.places
                .items
                .entry(id.clone())
                .or_insert(self.items.len());
            self.items.push(Item {
                id,
                source,
                round: self.core.round,
                category: item.category,
                summary: item.summary,
                level: item.level,
                fields: item.fields,
                refers_to: item.refers_to,
            });
        }
        ids
    }

    fn round_items(&self, source: Source) -> Vec<&Item> {
        self.items
            .iter()
            .filter(|item| item.round == self.core.round && item.source == source)
            .collect()
    }
}

/// `2 challenges: C1, C2`, `no proposals`.
fn listed(ids: &[String], one: &str, many: &str) -> String {
    match ids.len() {
        0 => format!("no {many}"),
        1 => format!("1 {one}: {}", ids[0]),
        n => format!("{n} {many}: {}", ids.join(", ")),
    }
}

impl crate::protocol::Rules for Plan {
    fn answered(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        match self.core.stage {
            Step::Draft => self.on_draft(answer),
            Step::Critique => self.on_critique(answer),
            Step::Review => self.on_review(answer),
            Step::Optimize => self.on_optimize(answer),
            Step::Respond => self.on_respond(answer),
            Step::Revise => self.on_revise(answer),
            Step::Final => self.on_final(answer),
            Step::Synthesis => self.on_synthesis(answer),
            Step::Moderation | Step::Done => Vec::new(),
        }
    }

    fn gave_up(&mut self, call: LiveCall, why: GivenUp, now: Timestamp) -> Vec<Effect> {
        let reason = why.reason;

        let role = call.slot.role.clone();
        if role == OPTIMIZER {
            if self.core.stage == Step::Final {
                self.missing
                    .push(format!("no final proposals from the optimizer ({reason})"));
                self.awaiting.remove(OPTIMIZER);
                return self.conclude_final(now);
            }
            return self.optimizer_missing(reason, now);
        }
        // The planner, the critic and the synthesizer are required (A18).
        self.fail(now, call.no_answer(&reason))
    }

    fn refusals(&self) -> Refusals {
        Refusals {
            rerun: "a planning debate holds no round of judges".into(),
            reopen: "a planning debate is not reopened".into(),
            resolution: Refusals::default().resolution,
        }
    }

    fn begin(&mut self, now: Timestamp) -> Vec<Effect> {
        let mode = if self.config.simple {
            "simple mode: planner and synthesizer"
        } else {
            "planner, critic, optimizer and synthesizer, up to 2 rounds"
        };
        let message = format!("planning debate ({mode}): {}", self.config.topic);
        self.log(now, LogKind::Note, None, message);
        self.start_draft(now)
    }

    fn progress(&self) -> Progress {
        Progress {
            round: if self.config.simple {
                0
            } else {
                self.core.round
            },
            max_round: if self.config.simple { 0 } else { MAX_ROUNDS },
            ..Default::default()
        }
    }

    fn documents(&self, out: &mut Documents<'_>) {
        documents::documents(self, out)
    }

    /// The synthesizer's files in the person's folder, when named
    /// (`--write-docs DIR`).
    fn publications(&self) -> Vec<crate::protocol::Publication> {
        match documents::plan_md(self) {
            Some(plan) => docs::publications(self, &plan),
            None => Vec::new(),
        }
    }

    fn board(&self) -> Board {
        let mut items: Vec<BoardItem> = self
            .items
            .iter()
            .map(|item| {
                let (decision, note) = match self.decisions.get(&item.id) {
                    Some(decision) => (Some(decision.decision), decision.note.clone()),
                    None => match self.book.latest(&item.id) {
                        Some(record) if !record.settled => (record.decision, record.note.clone()),
                        _ => (None, None),
                    },
                };
                BoardItem {
                    item: self.moderation_item(item),
                    decision,
                    note,
                    resolution: self.book.resolution(&item.id).cloned(),
                }
            })
            .collect();
        items.extend(self.verification_board_items());
        let mut required_roles = vec![PLANNER.to_string(), SYNTHESIZER.to_string()];
        if !self.config.simple {
            required_roles.push(CRITIC.to_string());
        }
        Board {
            stages: self.stages(),
            view: BoardView::Rulings(self.board_rows()),
            items,
            needs_moderator: self.core.moderating(),
            required_roles,
            resolvable: matches!(self.core.outcome, Some(Outcome::Completed { .. }))
                && !crate::protocol::Questions::open_items(self).is_empty(),
            ..Board::default()
        }
    }

    fn resolution_refusal(&self, item_id: &str, decision: ItemDecision) -> Option<String> {
        match &self.core.outcome {
            None => return Some("the debate is still running".into()),
            Some(Outcome::Failed { .. }) => {
                return Some("the debate stopped without a plan".into());
            }
            _ => {}
        }
        if self.item(item_id).is_none() {
            return Some("there is no such item".into());
        }
        if decision == ItemDecision::Defer {
            return Some("it is deferred already; settle it with accept or reject".into());
        }
        match self.decisions.get(item_id).map(|d| d.decision) {
            Some(ItemDecision::Defer) if self.book.resolution(item_id).is_some() => {
                Some("it was settled already".into())
            }
            Some(ItemDecision::Defer) => None,
            Some(other) => Some(format!(
                "it was {} in the debate, not deferred",
                other.past_tense()
            )),
            None => Some("it was never decided".into()),
        }
    }

    /// A person is asked to fix an item quorum cannot read, rather than
    /// have it left out.
    fn check_answer(&self, call: &LiveCall, answer: &str) -> Result<(), String> {
        use crate::parse::whole;
        let raised: Vec<&str> = self.items.iter().map(|item| item.id.as_str()).collect();
        match call.slot.stage.as_str() {
            "critique" | "review" => {
                parses(parse::read_challenges(answer, &raised).and_then(whole))
            }
            "optimize" => parses(parse::read_proposals(answer, &raised).and_then(whole)),
            "respond" => {
                let ids = self.round_ids();
                let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                parses(parse::read_responses(answer, &refs).and_then(whole))
            }
            _ => Ok(()),
        }
    }

    fn answer_template(&self, call: &LiveCall) -> Option<String> {
        match call.slot.stage.as_str() {
            "respond" => Some(
                self.round_ids()
                    .iter()
                    .map(|id| format!("- {id}: accept — \n"))
                    .collect(),
            ),
            "critique" | "review" => Some(
                "**Challenge 1**: Category - One-line summary\nProblem: \nAssumes: \nEvidence: \nSuggestion: \nSeverity: HIGH\n".into(),
            ),
            "optimize" => Some(
                "**Improvement 1**: Category - One-line summary\nCurrent: \nProposed: \nBenefit: \nPriority: MEDIUM\n".into(),
            ),
            _ => None,
        }
    }
}

impl crate::protocol::Questions for Plan {
    fn describe(&self) -> Description {
        let roles = self
            .config
            .slots()
            .into_iter()
            .map(|(slot, group)| {
                let title = crate::words::capitalised(slot);
                self.core.calls.role_info(slot, title, group)
            })
            .collect();
        let complex = !self.config.simple;
        Description {
            topic: self.config.topic.clone(),
            label: if complex {
                "planning debate".into()
            } else {
                "planning debate · simple".into()
            },
            roles,
            deliverable: documents::PLAN.into(),
            items: complex.then(|| RegionInfo {
                title: "Critique items".into(),
                placeholder: "The critic's challenges and the optimizer's proposals appear here, with the planner's proposed response, for your decision.".into(),
            }),
            board: Some(RegionInfo {
                title: "Critique log".into(),
                placeholder: "Challenges, proposals and [UNVERIFIED] assumptions appear here as the debate raises them.".into(),
            }),
            about: if complex {
                "A planning debate: the planner drafts (marking unsure assumptions [UNVERIFIED]), the \
                 critic raises problems, then the optimizer proposes improvements and third options; \
                 the planner proposes a response to each item and you confirm or override it (a / r / d, \
                 n for a note) before the planner revises. Up to two rounds; then the critic's final \
                 assessment, the optimizer's final proposals, and the synthesizer writes plan.md with \
                 its critique log, which quorum checks against your decisions."
                    .into()
            } else {
                "A simple planning debate: the planner drafts and the synthesizer writes plan.md; every \
                 [UNVERIFIED] assumption becomes a task to investigate."
                    .into()
            },
            ending_note: "No verdict: a planning debate delivers a plan. Below is the opening of plan.md."
                .into(),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary_lead(self)
    }

    /// Issue 26: the plan's moderator confirms or overrides the planner.
    fn item_words(&self) -> crate::protocol::ItemWords {
        crate::protocol::ItemWords {
            about: Some(
                "Each item carries the planner's proposed decision: answering with the same \
                 decision confirms it, another overrides it. An assumption marked VERIFIED \
                 without evidence (U…) stays unverified unless you accept it.",
            ),
            ..crate::protocol::ItemWords::default()
        }
    }

    fn open_items(&self) -> Vec<ModerationItem> {
        self.items
            .iter()
            .filter(|item| {
                self.decisions
                    .get(&item.id)
                    .is_some_and(|d| d.decision == ItemDecision::Defer)
                    && self.book.resolution(&item.id).is_none()
            })
            .map(|item| self.moderation_item(item))
            .collect()
    }

    fn open_questions(&self) -> Vec<String> {
        self.open_assumptions()
            .iter()
            .map(|assumption| {
                let why = assumption
                    .why_unverified()
                    .map(|why| format!(" ({why})"))
                    .unwrap_or_default();
                format!(
                    "{} [UNVERIFIED] {}{why}",
                    assumption.id,
                    one_line(&assumption.text)
                )
            })
            .collect()
    }

    /// The plan as first drafted and as it ended, with every item the
    /// planner took on and your ruling on it.
    fn changes(&self) -> Vec<crate::protocol::ChangedPart> {
        let Some(draft) = self.kept.iter().find(|kept| kept.stage == "draft") else {
            return Vec::new();
        };
        if draft.raw == self.plan {
            return Vec::new();
        }
        let causes = self
            .items
            .iter()
            .filter_map(|item| {
                let decision = self.decisions.get(&item.id)?;
                (decision.decision == ItemDecision::Accept).then(|| {
                    let note = decision
                        .note
                        .as_deref()
                        .map(|note| format!(", noting \"{}\"", one_line(note)))
                        .unwrap_or_default();
                    format!(
                        "{} ({}, round {}), accepted{note}: {}",
                        item.id,
                        one_line(&item.category),
                        item.round,
                        one_line(&item.summary)
                    )
                })
            })
            .collect();
        vec![crate::protocol::ChangedPart {
            part: "the plan".into(),
            before: draft.raw.clone(),
            after: self.plan.clone(),
            causes,
            markdown: true,
        }]
    }
}
