//! The debate skeleton: what every protocol does the same way, written once.
//!
//! A protocol implements [`Rules`], the narrow trait of its own decisions:
//! how it starts, what an answer means, what a call given up means, and
//! what it shows (progress, board, documents, description); and
//! [`ItemRules`], beside its moderation code: its item book, what a
//! decision means and how the submitted decisions move it on. Everything else that
//! makes it a [`Protocol`] is here, once, for every protocol: inputs go
//! through the shared call plumbing ([`Calls::route`]) first; the
//! moderator's decisions go into the protocol's [`ItemBook`] and a
//! submission settles them there (the protocol hears only which items were
//! settled how), and so does a deferred item settled after the end (the
//! protocol says only whether it may be); a reopening goes ahead only while
//! the protocol says one waits; a finished debate takes only the inputs
//! that still apply after its end; an input a protocol has no use for is
//! logged as ignored with the protocol's reason; the log and usage come
//! from the plumbing, and a debate ends or stops through its
//! [`DebateCore`]. Its core holds its [`Roster`], the seats it declared
//! once: the skeleton reads an answer's slot back into the protocol's typed
//! role ([`Roster::role_of`]) and hands the role on with the answer, so a
//! protocol matches its stage and its role, never a slot's text. The steps
//! a protocol takes alike from inside its rules
//! (stop the debate, start a call or stop when its prompt cannot be built,
//! repair an unusable answer) are [`SharedSteps`], over its
//! [`Rules::stopping`].
//!
//! Not responsible for any protocol rule: what an answer, a skip or a
//! decision does is the protocol's.

use std::sync::Arc;

use super::calls::{Answer, Calls, Routed, Unusable};
use super::documents::Documents;
use super::items::ItemBook;
use super::roster::Roster;
use super::supervision::{LiveCall, Slot};
use super::usage::UsageLedger;
use super::{
    AnswerFile, Board, CallSpec, Effect, Input, ItemDecision, LogEntry, LogKind, Outcome,
    OverrideAction, Progress, Protocol, Publication, Questions, StageFocus, StageInfo, Timestamp,
    Verdict,
};
use crate::prompts::{PromptSet, TemplateSpec};

/// Why a protocol ignores the moderator's inputs it has no use for, each
/// the text after `re-run ignored: `, `reopen ignored: ` and `ignored a
/// resolution of c3: ` in the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusals {
    /// A re-run of a call that is not live (only a held judge can be run
    /// again).
    pub rerun: String,
    /// A reopening, while none waits.
    pub reopen: String,
    /// Settling a deferred item after the end, for a protocol that never
    /// does (the default [`Rules::resolution_refusal`]).
    pub resolution: String,
}

impl Default for Refusals {
    fn default() -> Self {
        Refusals {
            rerun: "this debate holds no round of judges".into(),
            reopen: "this debate is not reopened".into(),
            resolution: "this debate has no deferred items to settle".into(),
        }
    }
}

/// A debate's item book, the plumbing its decisions are logged through,
/// and whether a moderation is open now ([`Rules::moderation`]).
pub struct Moderation<'a, S> {
    pub book: &'a mut ItemBook<S>,
    pub calls: &'a mut Calls,
    pub open: bool,
}

impl<'a, S> Moderation<'a, S> {
    /// A debate's `book`, its `calls`, and whether a moderation is `open`.
    pub fn new(book: &'a mut ItemBook<S>, calls: &'a mut Calls, open: bool) -> Self {
        Moderation { book, calls, open }
    }
}

/// Why a slot was given up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenUp {
    /// What went wrong, for the log and the record.
    pub reason: String,
    /// The moderator skipped it (otherwise its retry failed too).
    pub by_moderator: bool,
}

/// An item settled by a submitted moderation: what it is about, the
/// decision and the moderator's note.
pub type Settled<S> = (S, ItemDecision, Option<String>);

/// One stage of a protocol, as its own type (an enum, usually): what the
/// skeleton needs to know of where a debate stands. The protocol decides
/// when to move on; its [`DebateCore`] holds the stage and the round, logs
/// each entry, names the calls it starts and answers the questions that
/// follow from it (is a moderation open, what the strip shows).
pub trait Stage: Copy + Eq + std::fmt::Debug + Send + Sync + 'static {
    /// Where a debate that has ended, or stopped, stands.
    const DONE: Self;
    /// Every stage, so a call's stage can be read back from its slot
    /// ([`Stage::of_id`]).
    const EVERY: &'static [Self];
    /// The stage whose [`id`](Stage::id) is `id`: the one place a call's
    /// stage is read back from its slot's text.
    fn of_id(id: &str) -> Option<Self> {
        Self::EVERY.iter().copied().find(|stage| stage.id() == id)
    }
    /// What progress, the log and its calls' ids say while it runs:
    /// `critique`.
    fn id(self) -> &'static str;
    /// How the stage strip shows it: `Critique`.
    fn title(self) -> &'static str;
    /// What it wants in front of the person while it runs.
    fn focus(self) -> StageFocus;
    /// The moderator's items are open while the debate stands here.
    fn moderates(self) -> bool {
        false
    }
    /// Entering it says the round (`stage: challenge (round 2 of 5)`).
    fn counts_rounds(self) -> bool {
        false
    }
    /// Its entry on the stage strip.
    fn info(self) -> StageInfo {
        StageInfo::new(self.id(), self.title(), self.focus())
    }
}

/// What every debate holds the same way: where it stands (its stage and
/// round), who sits where (its roster of typed roles `R`), the call
/// plumbing (with the log and the usage), the prompts its calls are
/// rendered from and how the debate ended. A protocol keeps one and lends
/// it to the skeleton ([`Lends`], [`lend_core!`](crate::lend_core)).
#[derive(Debug)]
pub struct DebateCore<S, R> {
    /// The stage the debate stands at ([`DebateCore::enter`]).
    pub stage: S,
    /// The round it is in: the first is 1; a protocol without rounds
    /// leaves it as it began.
    pub round: u32,
    /// The most rounds the debate holds, as the log says them (`round 2
    /// of 5`); `None`: the log says the round alone.
    pub max_round: Option<u32>,
    /// Every seat of the debate, built once from its options: what names
    /// a call's slot ([`DebateCore::slot`]) and reads it back into a role.
    pub roster: Roster<R>,
    pub calls: Calls,
    /// The templates every prompt of the debate is rendered from.
    pub prompts: Arc<PromptSet>,
    /// The debate's sources and every citation its answers made, checked
    /// (issue 52).
    pub evidence: super::evidence::Evidence,
    /// Every answer's citations are filed under its call, as it comes: for
    /// a protocol whose claims are its answers (a quick mode, a plan, a
    /// writing review); one that files per claim leaves it off.
    pub evidence_by_answer: bool,
    /// Answers that could not be used, each with why, for the record.
    pub unusable: Vec<Unusable>,
    /// What could not be read of the answers the debate went on with, and
    /// what leaving it out changed (issue 59), for every deliverable.
    pub unread: Vec<super::Unread>,
    /// Items that only a repair made readable, for the interfaces.
    pub repaired: Vec<super::unread::Repaired>,
    /// Answers' files that hold an answer other than the last one written
    /// to them: the first answer, read because its repair read worse.
    /// Written with the protocol's own [`Rules::answer_files`] unless those
    /// name the file already.
    pub kept_files: Vec<AnswerFile>,
    /// How the debate ended, once it has.
    pub outcome: Option<Outcome>,
}

impl<S: Stage, R: Clone + PartialEq> DebateCore<S, R> {
    /// A debate that has not ended, standing at `first` in round 1, with
    /// its roster, its plumbing and its prompts.
    pub fn new(first: S, roster: Roster<R>, calls: Calls, prompts: Arc<PromptSet>) -> Self {
        DebateCore {
            stage: first,
            round: 1,
            max_round: None,
            roster,
            calls,
            prompts,
            evidence: super::evidence::Evidence::none(),
            evidence_by_answer: false,
            unusable: Vec::new(),
            unread: Vec::new(),
            repaired: Vec::new(),
            kept_files: Vec::new(),
            outcome: None,
        }
    }

    /// The same debate citing `evidence`'s sources.
    pub fn with_evidence(self, evidence: super::evidence::Evidence) -> Self {
        DebateCore { evidence, ..self }
    }

    /// The same debate citing `evidence`'s sources, each answer's
    /// citations filed under its call.
    pub fn with_evidence_by_answer(self, evidence: super::evidence::Evidence) -> Self {
        DebateCore {
            evidence,
            evidence_by_answer: true,
            ..self
        }
    }

    /// The same debate holding at most `rounds` rounds, as its log says
    /// them.
    pub fn with_rounds(self, rounds: u32) -> Self {
        DebateCore {
            max_round: Some(rounds),
            ..self
        }
    }

    /// Moves the debate to `stage`, logged as `stage: critique`, with the
    /// round where the stage counts them.
    pub fn enter(&mut self, stage: S, now: Timestamp) {
        self.stage = stage;
        let message = match (stage.counts_rounds(), self.max_round) {
            (false, _) => format!("stage: {}", stage.id()),
            (true, Some(most)) => format!("stage: {} (round {} of {most})", stage.id(), self.round),
            (true, None) => format!("stage: {} (round {})", stage.id(), self.round),
        };
        self.calls.push_log(now, LogKind::Stage, None, message);
    }

    /// The slot of `role`'s call in the stage and round the debate stands
    /// at, named by the role's seat.
    ///
    /// Panics when the roster does not seat `role`: a protocol asks only
    /// the roles it seated, and a test of any call of it finds the slip.
    pub fn slot(&self, role: &R) -> Slot {
        let seat = self.roster.slot_of(role);
        let seat = seat.expect("a debate asks only the roles its roster seats");
        Slot::new(seat, self.stage.id(), self.round)
    }

    /// The stage `call` was started in, read back from its slot (`None`
    /// for a stage this debate does not have).
    pub fn stage_of(&self, call: &LiveCall) -> Option<S> {
        S::of_id(&call.slot.stage)
    }

    /// A moderation is open: the debate stands at a stage that moderates,
    /// and has not ended.
    pub fn moderating(&self) -> bool {
        self.stage.moderates() && self.outcome.is_none()
    }

    /// Notes that `answer` could not be used (`error` says why), keeps it
    /// for the record and asks for the slot's one repair with `template`;
    /// `Err` says why there is none.
    pub fn refuse_answer(
        &mut self,
        answer: Answer<'_>,
        error: &str,
        template: &TemplateSpec,
    ) -> Result<CallSpec, String> {
        let template = (self.prompts.as_ref(), template);
        let (unusable, spec) = self.calls.refuse_answer(answer, error, template);
        self.unusable.push(unusable);
        spec
    }

    /// Renders `template` with `context` and starts the first attempt of
    /// `slot`, its answer written to `raw_output_path` before it is read;
    /// `Err` says why the prompt cannot be built (a debate stops on it).
    pub fn start(
        &mut self,
        slot: Slot,
        template: &TemplateSpec,
        context: &serde_json::Value,
        raw_output_path: Option<String>,
        now: Timestamp,
    ) -> Result<CallSpec, String> {
        // A template that takes the sources gets them here, unless its
        // protocol gave them (issue 52): what may be cited, and how; and
        // what the role asked to be shown in its last answer.
        let takes_sources = template.variables.contains(&"sources");
        let asked = takes_sources
            .then(|| self.evidence.take_requested(&slot.role))
            .flatten();
        let with_sources;
        let context = if takes_sources && (context.get("sources").is_none() || asked.is_some()) {
            let topic = ["topic", "problem", "scope", "goal"]
                .iter()
                .find_map(|key| context.get(*key).and_then(serde_json::Value::as_str))
                .unwrap_or_default();
            let mut sources = match context.get("sources") {
                Some(given) => given.as_str().unwrap_or_default().to_string(),
                None => self.evidence.prompt(topic),
            };
            if let Some(asked) = asked {
                sources.push('\n');
                sources.push_str(&asked);
            }
            let mut extended = context.clone();
            extended["sources"] = serde_json::json!(sources);
            with_sources = extended;
            &with_sources
        } else {
            context
        };
        let template = (self.prompts.as_ref(), template);
        let calls = &mut self.calls;
        let spec = calls.start_rendered(slot, template, context, raw_output_path, now)?;
        if self.evidence_by_answer {
            // Its answer's claim takes its place now, in the order asked.
            self.evidence.reserve(claim_of(&spec.request.call_id));
        }
        Ok(spec)
    }

    /// Asks `answer`'s agent once more, naming `discrepancies` with the
    /// moderator's rulings, unless it was asked again already (then
    /// `None`): the answer goes against decisions that bind it.
    pub fn recheck(&mut self, answer: Answer<'_>, discrepancies: &[String]) -> Option<CallSpec> {
        let template = (self.prompts.as_ref(), &crate::prompts::RECHECK_TEMPLATE);
        self.calls.recheck(answer, discrepancies, template)
    }

    /// Ends the debate with `outcome`: the effect that says so.
    pub fn finish(&mut self, outcome: Outcome) -> Effect {
        self.outcome = Some(outcome.clone());
        Effect::Finished(outcome)
    }

    /// Ends the debate with the verdict its rule derived, logged as
    /// `verdict: rule`.
    pub fn decide(&mut self, now: Timestamp, verdict: Verdict, rule: String) -> Effect {
        let line = format!("{verdict}: {rule}");
        self.calls.push_log(now, LogKind::Verdict, None, line);
        self.finish(Outcome::Decided { verdict, rule })
    }

    /// Ends a debate that delivers a document rather than a verdict:
    /// logged as `no verdict (… delivers …): deliverable — note`, where
    /// `delivers` says who delivers what (`a planning debate delivers a
    /// plan`).
    pub fn complete(
        &mut self,
        now: Timestamp,
        delivers: &str,
        deliverable: &str,
        note: String,
    ) -> Effect {
        let line = format!("no verdict ({delivers}): {deliverable} — {note}");
        self.calls.push_log(now, LogKind::Verdict, None, line);
        let deliverable = deliverable.to_string();
        self.finish(Outcome::Completed { deliverable, note })
    }

    /// Stops the debate for `reason`: logged, every live call cancelled,
    /// and it ends [`Outcome::Failed`]. Nothing is made up in place of
    /// what is missing (RULES.md A18).
    pub fn fail(&mut self, now: Timestamp, reason: String) -> Vec<Effect> {
        let mut effects = self.calls.stop(now, Some(&reason));
        effects.push(self.finish(Outcome::Failed { reason }));
        effects
    }
}

/// A protocol's [`DebateCore`], lent to the skeleton; written by
/// [`lend_core!`](crate::lend_core).
pub trait Lends {
    /// The protocol's stages.
    type Stage: Stage;
    /// The protocol's roles, as its roster seats them: what its rules
    /// match on with the stage.
    type Role: Clone + Eq + std::fmt::Debug + Send;
    fn core(&self) -> &DebateCore<Self::Stage, Self::Role>;
    fn core_mut(&mut self) -> &mut DebateCore<Self::Stage, Self::Role>;
}

/// Lends a protocol's [`DebateCore`] field to the skeleton: implements
/// [`Lends`] for the type, with its stage type and its role type.
///
/// ```ignore
/// quorum::lend_core!(Advocate, core, Step, Role);
/// ```
#[macro_export]
macro_rules! lend_core {
    ($type:ty, $field:ident, $stage:ty, $role:ty) => {
        impl $crate::protocol::Lends for $type {
            type Stage = $stage;
            type Role = $role;
            fn core(&self) -> &$crate::protocol::DebateCore<$stage, $role> {
                &self.$field
            }
            fn core_mut(&mut self) -> &mut $crate::protocol::DebateCore<$stage, $role> {
                &mut self.$field
            }
        }
    };
}

/// A protocol's items: the book the moderator's decisions are kept in,
/// what a decision means for an item's subject, and what the items settled
/// by a submission do. Implemented beside the protocol's moderation code.
pub trait ItemRules {
    /// What a moderator's item is about, in the protocol's terms (a
    /// challenge, a hypothesis's ruling, a plan section).
    type Subject: Clone;

    /// Its item book, and whether a moderation is open now: decisions are
    /// recorded there until the moderation is submitted.
    fn moderation(&mut self) -> Moderation<'_, Self::Subject>;
    /// What a decision means for its subject, for the log (`held back`).
    fn decided_verb(subject: &Self::Subject, decision: ItemDecision) -> &'static str {
        let _ = subject;
        decision.past_tense()
    }
    /// Why a decision on `item_id` is refused before the book sees it
    /// (`moderation is over`); `None` leaves it to the book.
    fn decision_refusal(&self, item_id: &str) -> Option<String> {
        let _ = item_id;
        None
    }
    /// The moderation was submitted with every item decided: what the
    /// decisions do, in the order the items were raised.
    fn items_settled(
        &mut self,
        settled: Vec<Settled<Self::Subject>>,
        now: Timestamp,
    ) -> Vec<Effect>;
}

/// A protocol's own decisions. Implementing it (and lending its
/// [`DebateCore`]) makes a type a [`Protocol`]: the skeleton routes the
/// inputs and answers for the rest.
pub trait Rules: Send + Lends + ItemRules + Questions {
    /// The first effects of a new debate.
    fn begin(&mut self, now: Timestamp) -> Vec<Effect>;
    /// A live call of `role` answered; its usage is already recorded.
    fn answered(&mut self, role: Self::Role, answer: Answer<'_>) -> Vec<Effect>;
    /// `role`'s slot is given up: its retry failed too, or the moderator
    /// skipped it.
    fn gave_up(
        &mut self,
        role: Self::Role,
        call: LiveCall,
        why: GivenUp,
        now: Timestamp,
    ) -> Vec<Effect>;
    /// The debate is stopping ([`SharedSteps::fail`]): by default its
    /// stage moves to [`Stage::DONE`], so its progress shows it over.
    fn stopping(&mut self) {
        self.core_mut().stage = Self::Stage::DONE;
    }

    /// How the log names the end after which a deferred item is settled
    /// (`c3 deferred → accepted after the verdict`).
    const SETTLED_AFTER: &'static str = "after the debate";
    /// The template an unusable answer's one repair is rendered from
    /// ([`SharedSteps::repair_or_stop`]).
    const REPAIR: &'static TemplateSpec = &crate::prompts::REPAIR_TEMPLATE;
    /// A deferred item was settled after the end: the book holds the
    /// settlement and logged it ([`resolution_refusal`](Self::resolution_refusal)
    /// allowed it). `reopen_was_pending` says whether a reopening waited
    /// before it.
    fn item_resolved(
        &mut self,
        item_id: &str,
        reopen_was_pending: bool,
        now: Timestamp,
    ) -> Vec<Effect> {
        let _ = (item_id, reopen_was_pending, now);
        Vec::new()
    }
    /// Another revision and evaluation after the verdict, while
    /// [`reopen_pending`](Self::reopen_pending) says one waits; otherwise
    /// the skeleton logs [`Refusals::reopen`].
    fn reopened(&mut self, now: Timestamp) -> Vec<Effect> {
        let _ = now;
        Vec::new()
    }
    /// An override of a call that is not live (a held judge's re-run or
    /// skip); by default refused in the log.
    fn not_live_override(
        &mut self,
        call_id: &str,
        action: OverrideAction,
        now: Timestamp,
    ) -> Vec<Effect> {
        let message = match action {
            OverrideAction::Rerun => format!("re-run ignored: {}", self.refusals().rerun),
            _ => "override ignored: the call is not live".to_string(),
        };
        calls_mut(self).push_log(now, LogKind::Note, Some(call_id), message);
        Vec::new()
    }
    /// The inputs after the end that still apply: by default the
    /// moderator's (a late answer is dropped).
    fn applies_after_end(&self, input: &Input) -> bool {
        !is_plumbing(input)
    }
    /// A role was switched to another agent (the plumbing recorded it).
    fn switched(&mut self) {}
    /// The words of the log lines for inputs this protocol ignores.
    fn refusals(&self) -> Refusals {
        Refusals::default()
    }
    /// Where the debate stands; the skeleton fills in its stage and whether
    /// it has ended.
    fn progress(&self) -> Progress;
    /// Hands the artifact files to `out` as they should read now, each
    /// with what it is rendered from (see [`Documents`]).
    fn documents(&self, out: &mut Documents<'_>);
    /// The answers' files that are to hold something other than the answer
    /// written to them when it came: the answers that could not be used.
    /// See [`Protocol::answer_files`].
    fn answer_files(&self) -> Vec<AnswerFile> {
        Vec::new()
    }
    /// See [`Protocol::usage_line`]; by default the span is the log's.
    fn usage_line(&self) -> Option<String> {
        let calls = calls(self);
        crate::protocol::record::usage_line(
            calls.usage(),
            super::usage::calls_time_ms(calls.log(), calls.usage()),
        )
    }
    /// What the interfaces show.
    fn board(&self) -> Board {
        Board::default()
    }
    /// See [`Protocol::publications`].
    fn publications(&self) -> Vec<Publication> {
        Vec::new()
    }
    /// See [`Protocol::result_fields`].
    fn result_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }
    /// See [`Protocol::payoff`].
    fn payoff(&self) -> Option<crate::protocol::payoff::Payoff> {
        None
    }
    /// See [`Protocol::resolution_refusal`].
    fn resolution_refusal(&self, item_id: &str, decision: ItemDecision) -> Option<String> {
        let _ = (item_id, decision);
        Some(self.refusals().resolution)
    }
    /// Checks an answer a person typed for `call`, a call of `role` that
    /// waits for one, before it is taken as that call's output; the error
    /// says what to fix. The skeleton has already refused an empty answer
    /// and a call that waits for none ([`Protocol::check_answer`]).
    fn check_answer(&self, role: Self::Role, call: &LiveCall, answer: &str) -> Result<(), String> {
        let _ = (role, call, answer);
        Ok(())
    }
    /// A skeleton of the answer `call`, a call of `role`, expects, for a
    /// person to fill in ([`Protocol::answer_template`]).
    fn answer_template(&self, role: Self::Role, call: &LiveCall) -> Option<String> {
        let _ = (role, call);
        None
    }
}

/// The steps every protocol takes the same way with its [`DebateCore`]
/// and its own [`Rules::stopping`]: stopping the debate, starting a call
/// that stops the debate when its prompt cannot be built, and repairing an
/// answer that cannot be used. Implemented for every [`Rules`] type; a
/// protocol imports it to call them on itself.
pub trait SharedSteps: Rules {
    /// Stops the debate for `reason`: the protocol's stage ends, the reason
    /// is logged, every live call is cancelled and the debate ends
    /// [`Outcome::Failed`] (RULES.md A18: nothing is made up in place of
    /// what is missing).
    fn fail(&mut self, now: Timestamp, reason: String) -> Vec<Effect> {
        self.stopping();
        self.core_mut().fail(now, reason)
    }

    /// Renders `template` with `context` and starts the first attempt of
    /// `slot` ([`DebateCore::start`]); a prompt that cannot be built stops
    /// the debate, and `Err` holds the effects that say so.
    fn start_or_stop(
        &mut self,
        slot: Slot,
        template: &TemplateSpec,
        context: &serde_json::Value,
        raw_output_path: Option<String>,
        now: Timestamp,
    ) -> Result<CallSpec, Vec<Effect>> {
        let started = self
            .core_mut()
            .start(slot, template, context, raw_output_path, now);
        started.map_err(|reason| self.fail(now, reason))
    }
    /// [`start_or_stop`](Self::start_or_stop) for a stage of a single call:
    /// the effects that start it, or those that stop the debate.
    fn ask(
        &mut self,
        slot: Slot,
        template: &TemplateSpec,
        context: &serde_json::Value,
        raw_output_path: Option<String>,
        now: Timestamp,
    ) -> Vec<Effect> {
        match self.start_or_stop(slot, template, context, raw_output_path, now) {
            Ok(spec) => vec![Effect::StartCall(spec)],
            Err(stopped) => stopped,
        }
    }
    /// An answer that cannot be used (`error` says why) is kept for the
    /// record and its slot gets its one repair, rendered from
    /// [`Rules::REPAIR`] ([`DebateCore::refuse_answer`]); `Err`
    /// says why there is none (the repair was used, or its prompt cannot
    /// be built).
    fn repair(
        &mut self,
        answer: Answer<'_>,
        error: impl std::fmt::Display,
    ) -> Result<Vec<Effect>, String> {
        let (error, template) = (error.to_string(), Self::REPAIR);
        let spec = self.core_mut().refuse_answer(answer, &error, template);
        spec.map(|spec| vec![Effect::StartCall(spec)])
    }
    /// [`repair`](Self::repair) a required role's answer: when there is no
    /// repair the debate stops (A18).
    fn repair_or_stop(&mut self, answer: Answer<'_>, error: impl std::fmt::Display) -> Vec<Effect> {
        let now = answer.now;
        let repaired = self.repair(answer, error);
        repaired.unwrap_or_else(|reason| self.fail(now, reason))
    }
}

impl<R: Rules> SharedSteps for R {}

fn calls<R: Rules + ?Sized>(rules: &R) -> &Calls {
    &rules.core().calls
}

fn calls_mut<R: Rules + ?Sized>(rules: &mut R) -> &mut Calls {
    &mut rules.core_mut().calls
}

/// Checks what `answer` cites (issue 52): in every protocol the tally and
/// each citation's line go into the transcript and under the answer in its
/// pane ([`LogKind::Cited`]); for a protocol whose evidence is its answers
/// they are also filed, under the call (`critic/critique/r1`). A protocol
/// that files its own claims leaves [`DebateCore::evidence_by_answer`] off.
fn file_answer<R: Rules + ?Sized>(rules: &mut R, answer: &Answer<'_>) {
    let core = rules.core_mut();
    let call_id = answer.call.call_id();
    let whose = &answer.call.slot.role;
    // What the agent asked to be shown is no citation of it.
    let cited = crate::parse::without_request_blocks(answer.output);
    let marks = if core.evidence_by_answer {
        let claim = core.evidence.file(claim_of(&call_id), [cited.as_ref()]);
        (!claim.checked.is_empty() || claim.excess).then(|| (claim.tally(), claim.lines()))
    } else {
        core.evidence.marks(&cited)
    };
    if let Some((tally, lines)) = marks {
        core.calls.push_log_details(
            answer.now,
            LogKind::Cited,
            Some(&call_id),
            format!("{whose} {tally}"),
            lines,
        );
    }
    if let Some(line) = core.evidence.file_requests(whose, answer.output) {
        core.calls
            .push_log(answer.now, LogKind::Note, Some(&call_id), line);
    }
}

/// The claim an answer is filed under: its call without the attempt
/// (`critic/critique/r1` for `critic/critique/r1/a2`).
fn claim_of(call_id: &str) -> &str {
    call_id.rsplit_once("/a").map_or(call_id, |(call, _)| call)
}

fn ended<R: Rules + ?Sized>(rules: &R) -> Option<&Outcome> {
    rules.core().outcome.as_ref()
}

/// The role `call`'s slot seats in `rules`' roster.
fn role_of<R: Rules + ?Sized>(rules: &R, call: &LiveCall) -> Option<R::Role> {
    rules.core().roster.role_of(&call.slot)
}

/// Why a call whose slot holds no seat is not taken. It cannot come, as
/// every call is started from a seat ([`DebateCore::slot`]); were one to,
/// the debate stops rather than guess whose it is (A18).
fn unseated(call: &LiveCall) -> String {
    format!("the {} holds no seat in this debate", call.slot.role)
}

/// An input about calls rather than about the debate. Every kind of input
/// is named, so a new one must be placed here.
fn is_plumbing(input: &Input) -> bool {
    match input {
        Input::CallFinished { .. }
        | Input::CallDiagnostic { .. }
        | Input::CallRetrying { .. }
        | Input::CallFailed { .. }
        | Input::AgentSwitched { .. }
        | Input::Resumed { .. } => true,
        Input::ItemDecided { .. }
        | Input::ModerationSubmitted
        | Input::Override { .. }
        | Input::ItemResolved { .. }
        | Input::Reopened => false,
    }
}

/// The moderator's inputs, each to its decision.
fn own<R: Rules + ?Sized>(rules: &mut R, input: &Input, now: Timestamp) -> Vec<Effect> {
    match input {
        Input::ItemDecided {
            item_id,
            decision,
            note,
            ruler,
        } => {
            if let Some(why) = rules.decision_refusal(item_id) {
                let message = format!("ignored a decision on {item_id}: {why}");
                calls_mut(rules).push_log(now, LogKind::Note, None, message);
                return Vec::new();
            }
            let Moderation { book, calls, open } = rules.moderation();
            let decided = (item_id.as_str(), *decision, note.as_deref(), *ruler);
            book.decide(calls, now, open, decided, R::decided_verb);
            Vec::new()
        }
        Input::ModerationSubmitted => {
            let Moderation { book, calls, open } = rules.moderation();
            if !open {
                let message = "ignored a submission: no moderation is open".to_string();
                calls.push_log(now, LogKind::Note, None, message);
                return Vec::new();
            }
            match book.submit(calls, now) {
                Some(settled) => rules.items_settled(settled, now),
                None => Vec::new(),
            }
        }
        Input::ItemResolved {
            item_id,
            decision,
            note,
            ruler,
        } => {
            if let Some(why) = rules.resolution_refusal(item_id, *decision) {
                let message = format!("ignored a resolution of {item_id}: {why}");
                calls_mut(rules).push_log(now, LogKind::Note, None, message);
                return Vec::new();
            }
            let reopen_was_pending = rules.reopen_pending();
            let Moderation { book, calls, .. } = rules.moderation();
            let resolved = (item_id.as_str(), *decision, note.as_deref(), *ruler);
            book.resolve(calls, now, resolved, R::SETTLED_AFTER);
            rules.item_resolved(item_id, reopen_was_pending, now)
        }
        Input::Reopened => {
            if rules.reopen_pending() {
                return rules.reopened(now);
            }
            let message = format!("reopen ignored: {}", rules.refusals().reopen);
            calls_mut(rules).push_log(now, LogKind::Note, None, message);
            Vec::new()
        }
        Input::Override { call_id, action } => rules.not_live_override(call_id, *action, now),
        // Call plumbing, routed before it gets here (or after the end,
        // dropped).
        _ => Vec::new(),
    }
}

impl<R: Rules> Protocol for R {
    fn start(&mut self, now: Timestamp) -> Vec<Effect> {
        self.begin(now)
    }

    fn handle(&mut self, input: &Input, now: Timestamp) -> Vec<Effect> {
        if let Input::Resumed { restarted } = input {
            // Said whether or not the debate has ended (a settlement after
            // the verdict resumes a finished run).
            calls_mut(self).note_resumed(restarted, now);
            return Vec::new();
        }
        if ended(self).is_some() {
            if !self.applies_after_end(input) {
                return Vec::new();
            }
            return own(self, input, now);
        }
        match calls_mut(self).route(input, now) {
            Routed::Handled(effects) => {
                if matches!(input, Input::AgentSwitched { .. }) {
                    self.switched();
                }
                effects
            }
            Routed::Answered(answer) => match role_of(self, &answer.call) {
                Some(role) => {
                    file_answer(self, &answer);
                    self.answered(role, answer)
                }
                None => {
                    let reason = unseated(&answer.call);
                    self.fail(answer.now, reason)
                }
            },
            Routed::GaveUp {
                call,
                reason,
                by_moderator,
                mut effects,
            } => {
                let Some(role) = role_of(self, &call) else {
                    effects.extend(self.fail(now, unseated(&call)));
                    return effects;
                };
                if let Some(first) = call.first_reply.clone() {
                    // The repair of the items that could not be read never
                    // answered: the first answer is read without them.
                    let message = format!(
                        "the repair brought no answer ({reason}): the first answer stands, without the items it could not read"
                    );
                    let call_id = call.call_id();
                    calls_mut(self).push_log(now, LogKind::Note, Some(&call_id), message);
                    let call = LiveCall {
                        first_reply: None,
                        ..call
                    };
                    let answer = Answer {
                        call,
                        output: &first,
                        now,
                    };
                    file_answer(self, &answer);
                    effects.extend(self.answered(role, answer));
                    return effects;
                }
                let why = GivenUp {
                    reason,
                    by_moderator,
                };
                effects.extend(self.gave_up(role, call, why, now));
                effects
            }
            Routed::Protocol(input) => own(self, input, now),
        }
    }

    fn progress(&self) -> Progress {
        let core = self.core();
        Progress {
            stage: core.stage.id().to_string(),
            finished: core.outcome.is_some(),
            ..Rules::progress(self)
        }
    }
    fn log(&self) -> &[LogEntry] {
        calls(self).log()
    }
    fn render_documents(&self, out: &mut Documents<'_>) {
        let core = self.core();
        // The reader-first deliverable says what could not be read, and
        // what that changed (issue 59), whichever protocol wrote it.
        let deliverable = Questions::describe(self).deliverable;
        // It says what its citations were found to be, too (issue 52).
        let evidence = core.evidence.section();
        out.depends(&deliverable, (&core.unread, &evidence));
        Rules::documents(self, out);
        if !core.unread.is_empty() {
            out.edit(&deliverable, |contents| {
                super::unread::with_unread(contents, &core.unread)
            });
        }
        if let Some(section) = &evidence {
            out.edit(&deliverable, |contents| {
                super::evidence::with_section(contents, section)
            });
            out.add(super::evidence::EVIDENCE_YAML, || core.evidence.yaml());
        }
    }
    fn answer_files(&self) -> Vec<AnswerFile> {
        let mut files = Rules::answer_files(self);
        for kept in &self.core().kept_files {
            if !files.iter().any(|file| file.path == kept.path) {
                files.push(kept.clone());
            }
        }
        files
    }
    fn publications(&self) -> Vec<Publication> {
        let core = self.core();
        let mut publications = Rules::publications(self);
        // What a deliverable says of its citations goes wherever it is
        // published (issue 52), as what could not be read does.
        if let Some(section) = core.evidence.section() {
            for publication in &mut publications {
                if publication.entry.is_none()
                    && publication.path.extension().is_some_and(|ext| ext == "md")
                {
                    // A publication is written as it is: the section's
                    // quotes are agent text, made inert here.
                    let section = crate::text::for_markdown(&section);
                    publication.contents =
                        super::evidence::with_section(&publication.contents, &section);
                }
            }
        }
        if !core.unread.is_empty() {
            // An index's entry is one line of someone else's file: it
            // carries no note.
            for publication in &mut publications {
                if publication.entry.is_none()
                    && publication.path.extension().is_some_and(|ext| ext == "md")
                {
                    publication.contents =
                        super::unread::with_unread(&publication.contents, &core.unread);
                }
            }
        }
        publications
    }
    fn outcome(&self) -> Option<&Outcome> {
        ended(self)
    }
    fn usage(&self) -> Option<&UsageLedger> {
        Some(calls(self).usage())
    }
    fn usage_line(&self) -> Option<String> {
        Rules::usage_line(self)
    }
    fn result_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut fields = Rules::result_fields(self);
        let unread = &self.core().unread;
        if !unread.is_empty() {
            fields.insert(
                "unread".into(),
                serde_json::to_value(unread).unwrap_or_default(),
            );
        }
        if let Some(payoff) = Rules::payoff(self) {
            fields.insert(
                "payoff".into(),
                serde_json::to_value(payoff).unwrap_or_default(),
            );
        }
        fields
    }
    fn payoff(&self) -> Option<crate::protocol::payoff::Payoff> {
        Rules::payoff(self)
    }
    fn board(&self) -> Board {
        let core = self.core();
        let mut board = Board {
            unread: core.unread.clone(),
            repaired: core.repaired.clone(),
            payoff: Rules::payoff(self)
                .map(|payoff| payoff.lines())
                .unwrap_or_default(),
            ..Rules::board(self)
        };
        // Whether an item's evidence checked out, beside the item (issue 52).
        for entry in &mut board.items {
            let item = &entry.item;
            let texts = [item.text.as_str(), item.target_text.as_str()];
            entry.evidence = core.evidence.lines_for(texts);
        }
        board
    }
    fn resolution_refusal(&self, item_id: &str, decision: ItemDecision) -> Option<String> {
        Rules::resolution_refusal(self, item_id, decision)
    }
    fn check_answer(&self, call_id: &str, answer: &str) -> Result<(), String> {
        let Some(call) = self.core().calls.live_call(call_id) else {
            return Err(format!("{call_id} is not waiting for an answer"));
        };
        if answer.trim().is_empty() {
            return Err("the answer is empty".into());
        }
        let Some(role) = role_of(self, call) else {
            return Err(unseated(call));
        };
        Rules::check_answer(self, role, call, answer)
    }
    fn answer_template(&self, call_id: &str) -> Option<String> {
        let call = self.core().calls.live_call(call_id)?;
        Rules::answer_template(self, role_of(self, call)?, call)
    }
    fn unread(&self) -> Vec<super::Unread> {
        self.core().unread.clone()
    }
}

/// Whether a parser took an answer, as [`Rules::check_answer`] reports it:
/// the parsed value is not needed, only what was wrong with it.
pub fn parses<T, E: std::fmt::Display>(parsed: Result<T, E>) -> Result<(), String> {
    parsed.map(drop).map_err(|error| error.to_string())
}
