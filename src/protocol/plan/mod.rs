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
mod rules;

pub use kind::KIND;

/// What a spec's `protocol:` says for a planning debate.
pub const NAME: &str = "plan";

use crate::protocol::{Answer, DebateCore, Edition, Seating, SharedSteps};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::model::{
    Assumption, Check, Confirmation, DecidedBy, Decision, Item, Response, Source, Verification,
};
use self::parse::Written;
use super::calls::{Calls, Submission, Unusable};
use super::items::ItemBook;
use super::roster::{Roster, Seat};
use super::{
    ContextDoc, Effect, ItemDecision, ItemResolution, LogKind, RoleGroup, StageFocus, Timestamp,
};
use crate::prompts::{PromptSet, TemplateSpec};
use crate::protocol::Stage as _;

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

/// A seat of a planning debate, as its rules name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Planner,
    Critic,
    Optimizer,
    Synthesizer,
}

/// The seats of a planning debate: the planner, the critic and the
/// optimizer unless it is `simple` (PC-28), then the synthesizer, played
/// by the planner's agent unless it is named.
pub fn roster(simple: bool) -> Roster<Role> {
    let seat =
        |role, slot: &str, group| Seat::new(role, slot, crate::words::capitalised(slot), group);
    let planner = seat(Role::Planner, PLANNER, RoleGroup::Lead);
    let critic = seat(Role::Critic, CRITIC, RoleGroup::Challenger);
    let optimizer = seat(Role::Optimizer, OPTIMIZER, RoleGroup::Panel);
    let synthesizer =
        seat(Role::Synthesizer, SYNTHESIZER, RoleGroup::Synthesizer).defaulting_to(PLANNER);
    match simple {
        true => Roster::new([planner, synthesizer]),
        false => Roster::new([planner, critic, optimizer, synthesizer]),
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
    const EVERY: &'static [Step] = &Step::COMPLEX;

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
    /// Where it stands: its step, and the round of critique (PL-03); its
    /// seats.
    core: DebateCore<Step, Role>,
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
    awaiting: BTreeSet<Role>,
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

crate::lend_core!(Plan, core, Step, Role);

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
        let roster = roster(config.simple);
        let evidence = config.seating.evidence(&config.context);
        Plan {
            config,
            core: DebateCore::new(Step::Draft, roster, calls, prompts)
                .with_rounds(MAX_ROUNDS)
                .with_evidence_by_answer(evidence),
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
    /// Its seats.
    pub fn roster(&self) -> &Roster<Role> {
        &self.core.roster
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
        role: Role,
        now: Timestamp,
    ) -> Result<Effect, Vec<Effect>> {
        let slot = self.core.slot(&role);
        let started = self.start_or_stop(slot, template, &context, None, now);
        started.map(Effect::StartCall)
    }

    fn start_one(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: Role,
        now: Timestamp,
    ) -> Vec<Effect> {
        let slot = self.core.slot(&role);
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
        let added = self.track_assumptions(parse::unverified_markers(plan), PLANNER, from);
        if !added.is_empty() {
            let message = format!("[UNVERIFIED] in the {from}: {}", added.join(", "));
            self.log(now, LogKind::Note, None, message);
        }
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
        let by = slot.role.clone();
        let added = self.track_assumptions(parse::raised_markers(text), &by, &from);
        if !added.is_empty() {
            let message = format!(
                "[UNVERIFIED] marked by the {by} ({from}): {}",
                added.join(", ")
            );
            self.log(answer.now, LogKind::Note, None, message);
        }
    }

    /// Tracks each of `texts` not tracked yet as an assumption raised `by`
    /// a role slot `from` a stage; the ids of those added.
    fn track_assumptions(&mut self, texts: Vec<String>, by: &str, from: &str) -> Vec<String> {
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
        added
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
