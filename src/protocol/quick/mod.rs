//! The quick modes of the debate skill (RULES.md sections 3-8): a 1:1
//! direct challenge, a panel review, a pre-mortem, a red team and an
//! architecture adversary. None derives a verdict (QS-01); each ends with a
//! document.
//!
//! | mode | calls, in order | the document |
//! |---|---|---|
//! | challenge | critic | `transcript.md`, its result line first (RF-11) |
//! | panel | three reviewers in parallel, then the synthesizer | `panel-review.md` |
//! | premortem | critic, then the synthesizer | `pre-mortem.md` |
//! | redteam | critic, the moderator's triage of its findings, the synthesizer | `red-team-report.md` |
//! | adversary | proposer, critic, the proposer's revision (skippable), the synthesizer | `architecture-challenge.md` |
//!
//! Raw agents get each mode's fixed prompt and nothing about readers
//! (RF-01); the synthesizer, a role of its own, writes the reader's document
//! from the persisted raw answers, and quorum checks that its opening names
//! none of the debate's machinery before taking it (RF-06, RF-08). Every
//! answer is journaled before it is read; a reviewer's is also written to
//! `judges/judge-{role}.md` first (QM-06).
//!
//! Responsible for the order of the calls, what each prompt carries, what a
//! missing or unusable answer means in each mode, and what the documents
//! say. Not responsible for I/O, timers or retries (the shared call plumbing
//! and the engine).

pub mod binding;
pub mod documents;
pub mod kind;
pub mod parse;
pub mod prompts;

pub use kind::{KIND, NAME};

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::parse::{Vulnerability, bottom_line, parse_vulnerabilities, provenance, split_opening};
use super::calls::{Calls, Routed, Unusable};
use super::items::{ItemBook, ItemRecord, tally};
use super::judges::JudgeRole;
use super::supervision::{LiveCall, Slot};
use super::usage::{Price, UsageLedger};
use super::{
    Board, ContextDoc, Description, Document, Effect, Input, ItemDecision, LogEntry, LogKind,
    ModerationItem, Outcome, OverrideAction, Progress, Protocol, RegionInfo, RoleGroup, RoleInfo,
    StageFocus, StageInfo, Timestamp,
};
use crate::parse::{Read, readings_line};
use crate::prompts::{PromptSet, RECHECK_TEMPLATE, TemplateSpec};
use crate::rulings::{self, Ruled};

/// The role the proposer plays in the record.
pub const PROPOSER_ROLE: &str = "oracle";
/// The role the critic plays in the record.
pub const CRITIC_ROLE: &str = "mephistopheles";

/// The reviewers of a panel review, in the order they are laid out
/// (INF-26, QM-04).
pub const PANEL: [JudgeRole; 3] = [JudgeRole::Aesthete, JudgeRole::Stylist, JudgeRole::Analyst];

/// One of the five quick modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuickMode {
    Challenge,
    Panel,
    Premortem,
    Redteam,
    Adversary,
}

impl QuickMode {
    pub const ALL: [QuickMode; 5] = [
        QuickMode::Challenge,
        QuickMode::Panel,
        QuickMode::Premortem,
        QuickMode::Redteam,
        QuickMode::Adversary,
    ];

    /// The word a spec's `mode:` and the command use.
    pub fn as_str(self) -> &'static str {
        match self {
            QuickMode::Challenge => "challenge",
            QuickMode::Panel => "panel",
            QuickMode::Premortem => "premortem",
            QuickMode::Redteam => "redteam",
            QuickMode::Adversary => "adversary",
        }
    }

    /// How people call it.
    pub fn title(self) -> &'static str {
        match self {
            QuickMode::Challenge => "1:1 challenge",
            QuickMode::Panel => "panel review",
            QuickMode::Premortem => "pre-mortem",
            QuickMode::Redteam => "red team",
            QuickMode::Adversary => "architecture challenge",
        }
    }

    /// The title with its article: `a panel review`, `an architecture challenge`.
    pub fn a_title(self) -> String {
        let title = self.title();
        let article = if title.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {title}")
    }

    /// The document the mode delivers (QM-03, QM-07, QM-12, QM-15, QM-22).
    pub fn deliverable(self) -> &'static str {
        match self {
            QuickMode::Challenge => documents::TRANSCRIPT,
            QuickMode::Panel => "panel-review.md",
            QuickMode::Premortem => "pre-mortem.md",
            QuickMode::Redteam => "red-team-report.md",
            QuickMode::Adversary => "architecture-challenge.md",
        }
    }

    /// The steps it runs, in order; `revision` says whether an adversary
    /// debate runs its revision.
    fn steps(self, revision: bool) -> Vec<Step> {
        match self {
            QuickMode::Challenge => vec![Step::Attack, Step::Done],
            QuickMode::Panel => vec![Step::Reviews, Step::Synthesis, Step::Done],
            QuickMode::Premortem => vec![Step::Attack, Step::Synthesis, Step::Done],
            QuickMode::Redteam => vec![Step::Attack, Step::Moderation, Step::Synthesis, Step::Done],
            QuickMode::Adversary if revision => vec![
                Step::Proposal,
                Step::Attack,
                Step::Revision,
                Step::Synthesis,
                Step::Done,
            ],
            QuickMode::Adversary => {
                vec![Step::Proposal, Step::Attack, Step::Synthesis, Step::Done]
            }
        }
    }

    /// The stage the critic's call runs in (its call ids say it).
    fn attack_stage(self) -> &'static str {
        match self {
            QuickMode::Premortem => "pre-mortem",
            QuickMode::Redteam => "red-team",
            _ => "challenge",
        }
    }

    /// One paragraph on how the mode runs, for the help overlay.
    fn about(self) -> &'static str {
        match self {
            QuickMode::Challenge => {
                "A 1:1 challenge: one critic pushes on the position, generously, and ends with a \
                 bottom line on whether it holds. No judges, no rounds, no verdict."
            }
            QuickMode::Panel => {
                "A panel review: three reviewers (elegance, clarity, rigour) review the work \
                 independently and at once; then a synthesizer turns their reviews into one \
                 document for a reader. No scores, no verdict."
            }
            QuickMode::Premortem => {
                "A pre-mortem: the critic imagines the plan has failed six months from now and \
                 explains how; a synthesizer then writes the risks up for a reader. No verdict."
            }
            QuickMode::Redteam => {
                "A red team: the critic attacks the target as an adversary would; you confirm \
                 each finding, set it aside or leave it open; a synthesizer writes the report \
                 from what stands, and quorum checks it against your rulings. No verdict."
            }
            QuickMode::Adversary => {
                "An architecture challenge: a proposer designs, a critic attacks, the proposer \
                 defends or revises (skip it with S on the proposer's pane), and a synthesizer \
                 writes where the design stands. No judges, no verdict."
            }
        }
    }
}

/// Everything that defines one quick debate. Journaled as the first event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuickConfig {
    pub mode: QuickMode,
    /// The position, the design, the plan, the target or the question.
    pub topic: String,
    #[serde(default)]
    pub context: Vec<ContextDoc>,
    /// The architecture adversary's constraints (QM-18).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
    /// The architecture adversary runs its revision step (A19: by default).
    #[serde(default = "yes")]
    pub revision: bool,
    /// Who plays each role slot, as `provider:model`.
    pub agents: BTreeMap<String, String>,
    /// The configured price of each participating `provider:model` that has one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, Price>,
    pub started_at: Timestamp,
    /// A person moderates live.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold_for_moderator: bool,
    /// The checks issue 26 added run: a red team's report against the
    /// moderator's rulings, an opening for finding ids and verdicts, and a
    /// synthesis sent back once whose second attempt never comes keeps the
    /// first. Every debate started now has them; a debate journaled before
    /// (the field absent) folds as it ran, so resuming or replaying it
    /// never starts a call it never had.
    #[serde(default)]
    pub checks_rulings: bool,
}

fn yes() -> bool {
    true
}

impl QuickConfig {
    /// The role slots of this mode, in the order they are listed.
    pub fn slots(&self) -> Vec<(String, RoleGroup)> {
        let mut slots = Vec::new();
        match self.mode {
            QuickMode::Adversary => {
                slots.push(("proposer".to_string(), RoleGroup::Lead));
                slots.push(("critic".to_string(), RoleGroup::Challenger));
            }
            QuickMode::Panel => {
                for role in PANEL {
                    slots.push((format!("judge.{role}"), RoleGroup::Panel));
                }
            }
            _ => slots.push(("critic".to_string(), RoleGroup::Challenger)),
        }
        if self.mode != QuickMode::Challenge {
            slots.push(("synthesizer".to_string(), RoleGroup::Synthesizer));
        }
        slots
    }
}

/// Where a quick debate is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Proposal,
    Attack,
    Reviews,
    Moderation,
    Revision,
    Synthesis,
    Done,
}

/// Every stage a quick debate can be in, in any mode.
pub fn every_stage() -> Vec<&'static str> {
    let mut stages: Vec<&'static str> = Vec::new();
    for mode in QuickMode::ALL {
        for step in [
            Step::Proposal,
            Step::Attack,
            Step::Reviews,
            Step::Moderation,
            Step::Revision,
            Step::Synthesis,
            Step::Done,
        ] {
            if !stages.contains(&step.id(mode)) {
                stages.push(step.id(mode));
            }
        }
    }
    stages
}

impl Step {
    fn id(self, mode: QuickMode) -> &'static str {
        match self {
            Step::Proposal => "proposal",
            Step::Attack => mode.attack_stage(),
            Step::Reviews => "reviews",
            Step::Moderation => "moderation",
            Step::Revision => "revision",
            Step::Synthesis => "synthesis",
            Step::Done => "done",
        }
    }

    fn title(self, mode: QuickMode) -> &'static str {
        match self {
            Step::Proposal => "Proposal",
            Step::Attack => match mode {
                QuickMode::Premortem => "Pre-mortem",
                QuickMode::Redteam => "Red team",
                _ => "Challenge",
            },
            Step::Reviews => "Reviews",
            Step::Moderation => "Triage",
            Step::Revision => "Revision",
            Step::Synthesis => "Synthesis",
            Step::Done => "Done",
        }
    }

    fn focus(self) -> StageFocus {
        match self {
            Step::Proposal | Step::Revision => StageFocus::Role("proposer".into()),
            Step::Attack => StageFocus::Role("critic".into()),
            Step::Moderation => StageFocus::Items,
            Step::Synthesis => StageFocus::Role("synthesizer".into()),
            Step::Reviews | Step::Done => StageFocus::Stay,
        }
    }
}

/// A finished answer quorum kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collected {
    pub call_id: String,
    pub raw: String,
    pub at: Timestamp,
    /// What the reader took other than as written in the YAML it read out
    /// of this answer (a red team's findings); empty otherwise.
    pub normalised: Vec<String>,
}

/// Where one reviewer of a panel is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReviewState {
    Pending,
    Answered,
    /// Persisted but unusable (empty): left out of the synthesis (INF-08).
    Malformed(String),
    /// No answer after the retry (QM-09).
    Skipped(String),
}

/// One reviewer of a panel review.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Review {
    pub role: JudgeRole,
    pub call_id: Option<String>,
    /// Verbatim, as persisted in its judge file.
    pub raw: Option<String>,
    pub state: ReviewState,
}

/// The moderator's decision on a red team's finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    pub decision: ItemDecision,
    pub note: Option<String>,
}

/// The synthesizer's document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Synthesis {
    pub call_id: String,
    pub raw: String,
    /// Its opening paragraph(s): the result, for a reader.
    pub opening: String,
    /// Its supporting sections.
    pub body: String,
    pub at: Timestamp,
    /// What still goes against the reader-first rules or the moderator's
    /// rulings after the synthesizer was asked once more: said plainly at
    /// the top of the document and in the end-of-run message.
    pub warnings: Vec<String>,
    /// It still describes a finding the moderator rejected.
    pub describes_set_aside: bool,
}

/// A readable synthesis that was sent back once, kept in case the second
/// attempt gives no answer at all.
#[derive(Clone, Debug, PartialEq, Eq)]
struct SentBack {
    call_id: String,
    raw: String,
}

/// A running quick debate.
pub struct Quick {
    config: QuickConfig,
    prompts: Arc<PromptSet>,
    calls: Calls,
    step: Step,
    proposal: Option<Collected>,
    attack: Option<Collected>,
    revision: Option<Collected>,
    /// Why the adversary's revision did not run, when it did not.
    revision_skipped: Option<String>,
    reviews: Vec<Review>,
    vulnerabilities: Vec<Vulnerability>,
    /// The ids of `vulnerabilities`, to look one up without a scan.
    vulnerability_ids: HashSet<String>,
    /// Why the red team's findings could not be read, when they could not.
    vulnerability_error: Option<String>,
    /// The moderator's book of the red team's findings (the subject is the
    /// finding's id): deciding, notes and submitting work as in every
    /// protocol that puts items before the moderator.
    book: ItemBook<String>,
    synthesis: Option<Synthesis>,
    /// The synthesis sent back for one more attempt, while that runs.
    sent_back: Option<SentBack>,
    unusable: Vec<Unusable>,
    outcome: Option<Outcome>,
}

impl Quick {
    pub fn new(config: QuickConfig, prompts: Arc<PromptSet>) -> Self {
        let calls = Calls::new(config.agents.clone(), config.prices.clone());
        let reviews = if config.mode == QuickMode::Panel {
            PANEL
                .into_iter()
                .map(|role| Review {
                    role,
                    call_id: None,
                    raw: None,
                    state: ReviewState::Pending,
                })
                .collect()
        } else {
            Vec::new()
        };
        Quick {
            step: config.mode.steps(config.revision)[0],
            config,
            prompts,
            calls,
            proposal: None,
            attack: None,
            revision: None,
            revision_skipped: None,
            reviews,
            vulnerabilities: Vec::new(),
            vulnerability_ids: HashSet::new(),
            vulnerability_error: None,
            book: ItemBook::default(),
            synthesis: None,
            sent_back: None,
            unusable: Vec::new(),
            outcome: None,
        }
    }

    pub fn config(&self) -> &QuickConfig {
        &self.config
    }
    pub fn mode(&self) -> QuickMode {
        self.config.mode
    }
    pub fn proposal(&self) -> Option<&Collected> {
        self.proposal.as_ref()
    }
    /// The critic's answer: the challenge, the pre-mortem or the red-team report.
    pub fn attack(&self) -> Option<&Collected> {
        self.attack.as_ref()
    }
    pub fn revision(&self) -> Option<&Collected> {
        self.revision.as_ref()
    }
    pub fn revision_skipped(&self) -> Option<&str> {
        self.revision_skipped.as_deref()
    }
    pub fn reviews(&self) -> &[Review] {
        &self.reviews
    }
    pub fn vulnerabilities(&self) -> &[Vulnerability] {
        &self.vulnerabilities
    }
    pub fn vulnerability_error(&self) -> Option<&str> {
        self.vulnerability_error.as_deref()
    }
    /// The moderator's decision on the finding `id`, once there is one.
    pub fn ruling(&self, id: &str) -> Option<Ruling> {
        self.book
            .records()
            .iter()
            .find(|record| record.subject == id)
            .and_then(as_ruling)
    }

    /// Every decided finding's ruling, by its id.
    fn rulings(&self) -> BTreeMap<&str, Ruling> {
        self.book
            .records()
            .iter()
            .filter_map(|record| Some((record.subject.as_str(), as_ruling(record)?)))
            .collect()
    }
    pub fn synthesis(&self) -> Option<&Synthesis> {
        self.synthesis.as_ref()
    }
    pub fn unusable(&self) -> &[Unusable] {
        &self.unusable
    }
    pub fn calls(&self) -> &Calls {
        &self.calls
    }

    /// The challenge's bottom line, as the critic wrote it (RF-11).
    pub fn bottom_line(&self) -> Option<String> {
        self.attack
            .as_ref()
            .and_then(|attack| bottom_line(&attack.raw))
    }

    fn log(&mut self, now: Timestamp, kind: LogKind, call_id: Option<&str>, message: String) {
        self.calls.push_log(now, kind, call_id, message);
    }

    fn enter(&mut self, step: Step, now: Timestamp) {
        self.step = step;
        let message = format!("stage: {}", step.id(self.config.mode));
        self.log(now, LogKind::Stage, None, message);
    }

    fn context_json(&self) -> serde_json::Value {
        json!(self.config.context)
    }

    /// Renders `template` and starts one call in `step`'s stage.
    fn start_call(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: &str,
        raw_output_path: Option<String>,
        now: Timestamp,
    ) -> Result<Effect, Vec<Effect>> {
        let stage = self.step.id(self.config.mode);
        match self.prompts.render(template, &context) {
            Ok(prompt) => Ok(Effect::StartCall(self.calls.start(
                Slot::new(role, stage, 1),
                prompt,
                raw_output_path,
                now,
            ))),
            Err(error) => Err(self.fail(now, format!("could not build the prompt: {error}"))),
        }
    }

    fn start_single(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: &str,
        now: Timestamp,
    ) -> Vec<Effect> {
        match self.start_call(template, context, role, None, now) {
            Ok(effect) => vec![effect],
            Err(effects) => effects,
        }
    }

    fn fail(&mut self, now: Timestamp, reason: String) -> Vec<Effect> {
        let mut effects = self.calls.stop(now, Some(&reason));
        self.step = Step::Done;
        let outcome = Outcome::Failed { reason };
        self.outcome = Some(outcome.clone());
        effects.push(Effect::Finished(outcome));
        effects
    }

    fn finish(&mut self, now: Timestamp, note: String) -> Vec<Effect> {
        self.enter(Step::Done, now);
        let deliverable = self.config.mode.deliverable().to_string();
        self.log(
            now,
            LogKind::Verdict,
            None,
            format!(
                "no verdict ({} delivers a document): {deliverable} — {note}",
                self.config.mode.a_title()
            ),
        );
        let outcome = Outcome::Completed { deliverable, note };
        self.outcome = Some(outcome.clone());
        vec![Effect::Finished(outcome)]
    }

    /// One more call, quoting `problem`, for an answer that cannot be used;
    /// a second failure stops the debate (A18: the role is required).
    fn redo_or_stop(
        &mut self,
        call: LiveCall,
        output: &str,
        problem: String,
        now: Timestamp,
    ) -> Vec<Effect> {
        let redo = (self.prompts.as_ref(), &prompts::REDO);
        let (unusable, spec) = self.calls.refuse_answer(call, output, &problem, redo, now);
        self.unusable.push(unusable);
        match spec {
            Ok(spec) => vec![Effect::StartCall(spec)],
            Err(reason) => self.fail(now, reason),
        }
    }

    // ---- the steps ---------------------------------------------------

    fn start_proposal(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Proposal, now);
        let context = json!({
            "topic": self.config.topic,
            "context": self.context_json(),
            "constraints": self.config.constraints,
        });
        self.start_single(&prompts::ADVERSARY_PROPOSAL, context, "proposer", now)
    }

    fn start_attack(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Attack, now);
        let mut context = json!({
            "topic": self.config.topic,
            "context": self.context_json(),
        });
        let template = match self.config.mode {
            QuickMode::Challenge => &prompts::CHALLENGE,
            QuickMode::Premortem => &prompts::PREMORTEM,
            QuickMode::Redteam => &prompts::REDTEAM,
            QuickMode::Adversary => {
                let proposal = self.proposal.as_ref().map(|p| p.raw.clone());
                context["proposal"] = json!(proposal.unwrap_or_default());
                &prompts::ADVERSARY_CHALLENGE
            }
            QuickMode::Panel => unreachable!("a panel review has no critic"),
        };
        self.start_single(template, context, "critic", now)
    }

    /// Starts every reviewer at once, each blind to the others (QM-04).
    fn start_reviews(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Reviews, now);
        let mut effects = Vec::new();
        for index in 0..self.reviews.len() {
            let role = self.reviews[index].role;
            let context = json!({
                "topic": self.config.topic,
                "context": self.context_json(),
                "role": role.as_str(),
                "perspective": role.focus(),
            });
            let raw_output_path = Some(documents::review_file(role));
            match self.start_call(
                &prompts::PANEL_REVIEWER,
                context,
                &format!("judge.{role}"),
                raw_output_path,
                now,
            ) {
                Ok(effect) => {
                    if let Effect::StartCall(spec) = &effect {
                        self.reviews[index].call_id = Some(spec.request.call_id.clone());
                    }
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        effects
    }

    fn start_revision(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Revision, now);
        let context = json!({
            "topic": self.config.topic,
            "proposal": self.proposal.as_ref().map(|p| p.raw.clone()).unwrap_or_default(),
            "critique": self.attack.as_ref().map(|a| a.raw.clone()).unwrap_or_default(),
        });
        self.start_single(&prompts::ADVERSARY_REVISION, context, "proposer", now)
    }

    fn start_moderation(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Moderation, now);
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "needs moderator: {} findings to accept, reject or defer",
                self.vulnerabilities.len()
            ),
        );
        for finding in &self.vulnerabilities {
            self.book
                .push(moderation_item(finding), finding.id.clone(), 1);
        }
        vec![Effect::AwaitModeration {
            items: self.book.pending_items(),
        }]
    }

    fn start_synthesis(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Synthesis, now);
        let topic = self.config.topic.clone();
        let (template, context) = match self.config.mode {
            QuickMode::Panel => {
                let reviews: Vec<_> = self
                    .reviews
                    .iter()
                    .filter(|review| review.state == ReviewState::Answered)
                    .map(|review| {
                        json!({
                            "perspective": review.role.focus(),
                            "text": review.raw.clone().unwrap_or_default(),
                        })
                    })
                    .collect();
                let missing: Vec<_> = self
                    .reviews
                    .iter()
                    .filter_map(|review| match &review.state {
                        ReviewState::Malformed(reason) | ReviewState::Skipped(reason) => {
                            Some(json!({"perspective": review.role.focus(), "reason": reason}))
                        }
                        _ => None,
                    })
                    .collect();
                (
                    &prompts::SYNTHESIS_PANEL,
                    json!({"topic": topic, "reviews": reviews, "missing": missing}),
                )
            }
            QuickMode::Premortem => (
                &prompts::SYNTHESIS_PREMORTEM,
                json!({"topic": topic, "analysis": self.attack_text()}),
            ),
            QuickMode::Redteam => {
                let findings: Vec<_> = self
                    .standing_findings()
                    .into_iter()
                    .map(|(finding, status, note)| {
                        json!({
                            "id": finding.id,
                            "severity": finding.severity.as_str(),
                            "status": status,
                            "title": finding.title,
                            "note": note.unwrap_or_default(),
                        })
                    })
                    .collect();
                let set_aside = self.set_aside().len();
                (
                    &prompts::SYNTHESIS_REDTEAM,
                    json!({
                        "topic": topic,
                        "report": self.attack_text(),
                        "findings": findings,
                        "set_aside": set_aside,
                        "rulings": rulings::section(&self.shared_rulings()),
                    }),
                )
            }
            QuickMode::Adversary => (
                &prompts::SYNTHESIS_ADVERSARY,
                json!({
                    "topic": topic,
                    "proposal": self.proposal.as_ref().map(|p| p.raw.clone()).unwrap_or_default(),
                    "critique": self.attack_text(),
                    "revision": self.revision.as_ref().map(|r| r.raw.clone()).unwrap_or_default(),
                    "revision_note": self.revision_skipped.clone().unwrap_or_default(),
                }),
            ),
            QuickMode::Challenge => unreachable!("a challenge has no synthesis"),
        };
        self.start_single(template, context, "synthesizer", now)
    }

    fn attack_text(&self) -> String {
        self.attack
            .as_ref()
            .map(|attack| attack.raw.clone())
            .unwrap_or_default()
    }

    /// The red team's findings that stand after triage, most severe first:
    /// accepted ones as `confirmed`, deferred ones as `unconfirmed`, with
    /// the moderator's note. Findings never triaged (no moderator was
    /// asked) stand as reported.
    pub fn standing_findings(&self) -> Vec<(&Vulnerability, &'static str, Option<String>)> {
        let rulings = self.rulings();
        let mut standing: Vec<_> = self
            .vulnerabilities
            .iter()
            .filter_map(|finding| match rulings.get(finding.id.as_str()) {
                Some(ruling) if ruling.decision == ItemDecision::Reject => None,
                Some(ruling) => Some((
                    finding,
                    if ruling.decision == ItemDecision::Accept {
                        "confirmed"
                    } else {
                        "unconfirmed"
                    },
                    ruling.note.clone(),
                )),
                None => Some((finding, "as reported", None)),
            })
            .collect();
        standing.sort_by_key(|(finding, _, _)| finding.severity);
        standing
    }

    /// The moderator's rulings on the red team's findings, in the order the
    /// critic listed them, as the synthesizer's prompt carries them.
    pub fn shared_rulings(&self) -> Vec<rulings::Ruling> {
        let decided = self.rulings();
        self.vulnerabilities
            .iter()
            .filter_map(|finding| {
                let ruling = decided.get(finding.id.as_str())?;
                Some(rulings::Ruling::new(
                    finding.id.as_str(),
                    ruled(ruling.decision),
                    ruling.note.as_deref(),
                ))
            })
            .collect()
    }

    /// Each ruled finding's id, title and ruling, to check a report against
    /// (none for a debate journaled before the check).
    fn ruled_findings(&self) -> Vec<(String, String, Ruled)> {
        if !self.config.checks_rulings {
            return Vec::new();
        }
        let decided = self.rulings();
        self.vulnerabilities
            .iter()
            .filter_map(|finding| {
                let ruling = decided.get(finding.id.as_str())?;
                Some((
                    finding.id.clone(),
                    finding.title.clone(),
                    ruled(ruling.decision),
                ))
            })
            .collect()
    }

    /// The findings the moderator rejected, with their notes.
    pub fn set_aside(&self) -> Vec<(&Vulnerability, Option<String>)> {
        let decided = self.rulings();
        self.vulnerabilities
            .iter()
            .filter_map(|finding| {
                let ruling = decided.get(finding.id.as_str())?;
                (ruling.decision == ItemDecision::Reject).then(|| (finding, ruling.note.clone()))
            })
            .collect()
    }

    // ---- answers -----------------------------------------------------

    fn on_answer(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let call_id = call.call_id();
        let empty = output.trim().is_empty();
        match self.step {
            Step::Reviews => self.on_review(&call, output, now),
            Step::Proposal if empty => {
                self.redo_or_stop(call, output, "the answer is empty".into(), now)
            }
            Step::Proposal => {
                self.proposal = Some(Collected {
                    call_id,
                    raw: output.to_string(),
                    at: now,
                    normalised: Vec::new(),
                });
                self.start_attack(now)
            }
            Step::Attack if empty => {
                self.redo_or_stop(call, output, "the answer is empty".into(), now)
            }
            Step::Attack => {
                self.attack = Some(Collected {
                    call_id: call_id.clone(),
                    raw: output.to_string(),
                    at: now,
                    normalised: Vec::new(),
                });
                self.after_attack(&call_id, output, now)
            }
            Step::Revision if empty => {
                if call.repaired {
                    self.revision_skipped = Some(
                        "the proposer's answer to the challenge was empty twice; the document \
                         is written without it"
                            .into(),
                    );
                    self.log(
                        now,
                        LogKind::Skip,
                        Some(&call_id),
                        "revision left out: its answer was empty twice".into(),
                    );
                    return self.start_synthesis(now);
                }
                self.redo_or_stop(call, output, "the answer is empty".into(), now)
            }
            Step::Revision => {
                self.revision = Some(Collected {
                    call_id,
                    raw: output.to_string(),
                    at: now,
                    normalised: Vec::new(),
                });
                self.start_synthesis(now)
            }
            Step::Synthesis => self.on_synthesis(call, output, now),
            Step::Moderation | Step::Done => Vec::new(),
        }
    }

    fn after_attack(&mut self, call_id: &str, output: &str, now: Timestamp) -> Vec<Effect> {
        match self.config.mode {
            QuickMode::Challenge => {
                let note = match bottom_line(output) {
                    Some(line) => {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(call_id),
                            format!("bottom line: {line}"),
                        );
                        "the critic's challenge, with its bottom line".to_string()
                    }
                    None => {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(call_id),
                            "the critic gave no `Bottom line:`; the result line says so".into(),
                        );
                        "the critic's challenge; it gave no bottom line".to_string()
                    }
                };
                self.finish(now, note)
            }
            QuickMode::Premortem => self.start_synthesis(now),
            QuickMode::Redteam => match parse_vulnerabilities(output) {
                Ok(Read {
                    value: found,
                    notes,
                }) => {
                    if !notes.is_empty() {
                        self.log(now, LogKind::Note, Some(call_id), readings_line(&notes));
                    }
                    if let Some(attack) = &mut self.attack {
                        attack.normalised = notes;
                    }
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "{} findings: {}",
                            found.len(),
                            found
                                .iter()
                                .map(|f| format!("{} {}", f.id, f.severity.as_str()))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                    self.vulnerability_ids = found.iter().map(|f| f.id.clone()).collect();
                    self.vulnerabilities = found;
                    self.start_moderation(now)
                }
                Err(error) => {
                    // The report is prose first: without a readable list
                    // there is nothing to triage, and the synthesizer works
                    // from the report as written.
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "the vulnerability list could not be read ({error}); no triage, the report goes to the synthesis as written"
                        ),
                    );
                    self.vulnerability_error = Some(error.to_string());
                    self.start_synthesis(now)
                }
            },
            QuickMode::Adversary if self.config.revision => self.start_revision(now),
            QuickMode::Adversary => {
                self.revision_skipped =
                    Some("the revision step was left out (`--no-revision`)".into());
                self.log(
                    now,
                    LogKind::Note,
                    None,
                    "revision left out: the debate was started without it".into(),
                );
                self.start_synthesis(now)
            }
            QuickMode::Panel => Vec::new(),
        }
    }

    /// A reviewer's answer, already on disk in its judge file (QM-06).
    fn on_review(&mut self, call: &LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let call_id = call.call_id();
        let Some(index) = self.review_index(&call.slot.role) else {
            return Vec::new();
        };
        let role = self.reviews[index].role;
        let state = if output.trim().is_empty() {
            // Persisted, left out of the synthesis, never retried (INF-07..10).
            self.log(
                now,
                LogKind::Malformed,
                Some(&call_id),
                format!("{role}: empty review, left out of the synthesis (not retried)"),
            );
            ReviewState::Malformed("the review is empty".into())
        } else {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!("{role}: review written to {}", documents::review_file(role)),
            );
            ReviewState::Answered
        };
        let review = &mut self.reviews[index];
        review.call_id = Some(call_id);
        review.raw = Some(output.to_string());
        review.state = state;
        self.conclude_reviews_if_complete(now)
    }

    fn review_index(&self, slot: &str) -> Option<usize> {
        let role = slot.strip_prefix("judge.").and_then(JudgeRole::parse)?;
        self.reviews.iter().position(|review| review.role == role)
    }

    /// Once every reviewer answered or was skipped, the synthesis starts
    /// with the reviews there are (QM-09); with none, there is nothing to
    /// synthesize.
    fn conclude_reviews_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        if self
            .reviews
            .iter()
            .any(|review| review.state == ReviewState::Pending)
        {
            return Vec::new();
        }
        let answered = self
            .reviews
            .iter()
            .filter(|review| review.state == ReviewState::Answered)
            .count();
        if answered == 0 {
            return self.fail(now, "no reviewer gave a usable review".into());
        }
        if answered < self.reviews.len() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!(
                    "{answered} of {} reviews in; the synthesis goes on without the rest",
                    self.reviews.len()
                ),
            );
        }
        self.start_synthesis(now)
    }

    /// What a synthesis opening names that a reader's opening must not:
    /// roles, scores, block or finding ids (RF-06, RF-08), a verdict
    /// (QS-01, RF-13, RF-14).
    fn narration(&self, opening: &str) -> Vec<String> {
        let mut found = provenance(opening, &self.config.topic);
        if !self.config.checks_rulings {
            return found;
        }
        let known: BTreeSet<String> = self.vulnerability_ids.iter().cloned().collect();
        for id in binding::ids_in_opening(opening, &known) {
            found.push(format!("the finding id `{id}`"));
        }
        found.extend(binding::verdicts(opening));
        found
    }

    /// The synthesizer's document: usable when it is not empty. Its
    /// opening must name none of the debate's machinery and pass no
    /// verdict, and a red team's report must follow the moderator's
    /// rulings on its findings. An answer that does not is sent back once,
    /// naming each problem (one redo for the opening, else one recheck
    /// against the rulings); what is still wrong after that is kept, with
    /// a warning the reader sees first: the reader gets a document either
    /// way, never one presented as clean when it is not.
    fn on_synthesis(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let call_id = call.call_id();
        let (opening, _) = split_opening(output);
        if opening.is_empty()
            && self.config.checks_rulings
            && let Some(SentBack { call_id, raw }) = self.sent_back.take()
        {
            self.unusable.push(Unusable {
                call_id: call.call_id(),
                raw: output.to_string(),
                reason: "the second attempt has no opening paragraph".into(),
            });
            let extra = "the synthesizer was asked once more to fix this, and its second \
                         attempt had no opening paragraph, so the first is kept"
                .to_string();
            return self.keep_synthesis(call_id, &raw, Some(extra), now);
        }
        if opening.is_empty() {
            return self.redo_or_stop(
                call,
                output,
                "the document has no opening paragraph before its first `## ` section".into(),
                now,
            );
        }
        let narration = self.narration(&opening);
        let discrepancies =
            binding::summarise(&binding::against_rulings(output, &self.ruled_findings()));
        if !call.repaired && !call.rechecked {
            if !narration.is_empty() {
                let mut problem = format!(
                    "the opening paragraph names how the result was reached ({}); say the \
                     result itself, without naming roles, reviewers, scores, ids or a verdict",
                    narration.join(", ")
                );
                if !discrepancies.is_empty() {
                    problem.push_str("\n\nThe report also goes against the moderator's rulings:");
                    for discrepancy in &discrepancies {
                        problem.push_str(&format!("\n- {discrepancy}"));
                    }
                }
                self.sent_back = Some(SentBack {
                    call_id: call_id.clone(),
                    raw: output.to_string(),
                });
                return self.redo_or_stop(call, output, problem, now);
            }
            if !discrepancies.is_empty() {
                let template = (self.prompts.as_ref(), &RECHECK_TEMPLATE);
                if let Some(spec) = self
                    .calls
                    .recheck(call, output, &discrepancies, template, now)
                {
                    self.unusable.push(Unusable {
                        call_id: call_id.clone(),
                        raw: output.to_string(),
                        reason: format!(
                            "went against the moderator's rulings: {}",
                            discrepancies.join("; ")
                        ),
                    });
                    self.sent_back = Some(SentBack {
                        call_id,
                        raw: output.to_string(),
                    });
                    return vec![Effect::StartCall(spec)];
                }
            }
        }
        self.keep_synthesis(call_id, output, None, now)
    }

    /// Takes `output` as the document, with a warning for whatever in it
    /// still goes against the rules or the rulings (`extra`: one more,
    /// such as a second attempt that never came), then ends the debate.
    fn keep_synthesis(
        &mut self,
        call_id: String,
        output: &str,
        extra: Option<String>,
        now: Timestamp,
    ) -> Vec<Effect> {
        self.sent_back = None;
        let (opening, body) = split_opening(output);
        let mut warnings = Vec::new();
        let narration = self.narration(&opening);
        if !narration.is_empty() {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!(
                    "reader-first check: the opening still names {}; kept with a warning",
                    narration.join(", ")
                ),
            );
            warnings.push(format!(
                "its opening still names how the result was reached ({}), so read it as the \
                 synthesizer's account rather than a plain result",
                narration.join(", ")
            ));
        }
        let discrepancies = binding::against_rulings(output, &self.ruled_findings());
        let describes_set_aside = discrepancies.iter().any(|discrepancy| {
            matches!(discrepancy, binding::Discrepancy::DescribesRejected { .. })
        });
        for discrepancy in binding::summarise(&discrepancies) {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!("rulings check: {discrepancy}; kept with a warning"),
            );
            warnings.push(discrepancy);
        }
        warnings.extend(extra);
        self.synthesis = Some(Synthesis {
            call_id,
            raw: output.to_string(),
            opening,
            body,
            at: now,
            warnings,
            describes_set_aside,
        });
        let mut note = match self.config.mode {
            QuickMode::Panel => {
                let answered = self
                    .reviews
                    .iter()
                    .filter(|review| review.state == ReviewState::Answered)
                    .count();
                format!("{answered} of {} reviews, synthesized", self.reviews.len())
            }
            QuickMode::Redteam => {
                let standing = self.standing_findings().len();
                format!(
                    "{standing} finding(s) standing, {} set aside",
                    self.set_aside().len()
                )
            }
            QuickMode::Adversary if self.revision.is_some() => {
                "proposal, challenge and revision, synthesized".to_string()
            }
            QuickMode::Adversary => "proposal and challenge, synthesized; no revision".to_string(),
            _ => "synthesized".to_string(),
        };
        let warned = self
            .synthesis
            .as_ref()
            .map_or(0, |synthesis| synthesis.warnings.len());
        if warned > 0 {
            note.push_str(&format!(
                "; WARNING: {warned} problem(s) the synthesizer did not fix, stated at the top of the document"
            ));
        }
        self.finish(now, note)
    }

    fn on_gave_up(
        &mut self,
        call: LiveCall,
        reason: String,
        by_moderator: bool,
        now: Timestamp,
    ) -> Vec<Effect> {
        let call_id = call.call_id();
        match self.step {
            Step::Reviews => {
                if let Some(index) = self.review_index(&call.slot.role) {
                    let review = &mut self.reviews[index];
                    review.call_id = Some(call_id);
                    review.state = ReviewState::Skipped(reason);
                }
                self.conclude_reviews_if_complete(now)
            }
            Step::Revision => {
                self.revision_skipped = Some(if by_moderator {
                    "the moderator skipped the proposer's answer to the challenge".into()
                } else {
                    format!("the proposer gave no answer to the challenge ({reason})")
                });
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    "revision left out; the synthesis works from the proposal and the challenge"
                        .into(),
                );
                self.start_synthesis(now)
            }
            // The second attempt at a synthesis never came: the first,
            // readable one stands, with its problems stated.
            Step::Synthesis if self.config.checks_rulings && self.sent_back.is_some() => {
                let SentBack { call_id, raw } = self.sent_back.take().expect("checked");
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    "the synthesizer's second attempt gave no answer; its first is kept, with a warning"
                        .into(),
                );
                let extra = format!(
                    "the synthesizer was asked once more to fix this and gave no answer ({})",
                    reason.trim_end_matches('.')
                );
                self.keep_synthesis(call_id, &raw, Some(extra), now)
            }
            // A required agent: no fabricated result (RULES.md A18).
            _ => self.fail(
                now,
                format!(
                    "the {} gave no answer in the {} stage, even after a retry ({reason})",
                    call.slot.role, call.slot.stage
                ),
            ),
        }
    }

    // ---- moderation --------------------------------------------------

    fn on_item_decided(
        &mut self,
        item_id: &str,
        decision: ItemDecision,
        note: Option<&str>,
        now: Timestamp,
    ) -> Vec<Effect> {
        let open = self.step == Step::Moderation;
        self.book.decide(
            &mut self.calls,
            now,
            open,
            (item_id, decision, note),
            |_, decision| match decision {
                ItemDecision::Accept => "confirmed",
                ItemDecision::Reject => "set aside",
                ItemDecision::Defer => "left open",
            },
        );
        Vec::new()
    }

    fn on_moderation_submitted(&mut self, now: Timestamp) -> Vec<Effect> {
        if self.step != Step::Moderation {
            return Vec::new();
        }
        let Some(decided) = self.book.submit(&mut self.calls, now) else {
            return Vec::new();
        };
        let [accepted, rejected, deferred] = tally(&decided);
        let message = format!(
            "triage submitted: {accepted} accepted, {rejected} rejected, {deferred} deferred"
        );
        self.log(now, LogKind::Moderation, None, message);
        self.start_synthesis(now)
    }

    /// The inputs that are the quick modes' own, not call plumbing.
    fn handle_own(&mut self, input: &Input, now: Timestamp) -> Vec<Effect> {
        match input {
            Input::ItemDecided {
                item_id,
                decision,
                note,
            } => self.on_item_decided(item_id, *decision, note.as_deref(), now),
            Input::ModerationSubmitted => self.on_moderation_submitted(now),
            Input::Override { call_id, action } => {
                let what = match action {
                    OverrideAction::Rerun => "re-run ignored: a quick mode holds no round",
                    _ => "override ignored: the call is not live",
                };
                self.log(now, LogKind::Note, Some(call_id), what.into());
                Vec::new()
            }
            Input::ItemResolved { item_id, .. } => {
                let message = format!(
                    "ignored a resolution of {item_id}: {} has no verdict to settle items against",
                    self.config.mode.a_title()
                );
                self.log(now, LogKind::Note, None, message);
                Vec::new()
            }
            Input::Reopened => {
                let message = format!(
                    "reopen ignored: {} has no verdict",
                    self.config.mode.a_title()
                );
                self.log(now, LogKind::Note, None, message);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn stages(&self) -> Vec<StageInfo> {
        let mode = self.config.mode;
        mode.steps(self.config.revision)
            .into_iter()
            .map(|step| StageInfo::new(step.id(mode), step.title(mode), step.focus()))
            .collect()
    }
}

/// A finding's ruling in the book, once it has a decision.
fn as_ruling(record: &ItemRecord<String>) -> Option<Ruling> {
    Some(Ruling {
        decision: record.decision?,
        note: record.note.clone(),
    })
}

/// A moderator's decision as the agent acting on it reads it.
fn ruled(decision: ItemDecision) -> Ruled {
    decision.into()
}

/// A red team's finding as the moderator sees it: no target (the whole
/// target is under attack), its title leading the text.
fn moderation_item(finding: &Vulnerability) -> ModerationItem {
    let mut text = finding.title.clone();
    if !finding.description.is_empty() {
        text.push_str(&format!("\n\n{}", finding.description));
    }
    text.push_str(&format!("\n\nExploit: {}", finding.exploit));
    ModerationItem {
        id: finding.id.clone(),
        target: String::new(),
        severity: finding.severity.as_str().to_string(),
        category: "weakness".to_string(),
        text,
        preface: String::new(),
        suggestion: None,
    }
}

impl Protocol for Quick {
    fn start(&mut self, now: Timestamp) -> Vec<Effect> {
        let message = format!("{}: {}", self.config.mode.title(), self.config.topic);
        self.log(now, LogKind::Note, None, message);
        match self.config.mode {
            QuickMode::Panel => self.start_reviews(now),
            QuickMode::Adversary => self.start_proposal(now),
            _ => self.start_attack(now),
        }
    }

    fn handle(&mut self, input: &Input, now: Timestamp) -> Vec<Effect> {
        if self.outcome.is_some() {
            return self.handle_own(input, now);
        }
        match self.calls.route(input, now) {
            Routed::Handled(effects) => effects,
            Routed::Answered { call, output } => self.on_answer(call, output, now),
            Routed::GaveUp {
                call,
                reason,
                by_moderator,
                mut effects,
            } => {
                effects.extend(self.on_gave_up(call, reason, by_moderator, now));
                effects
            }
            Routed::Protocol(input) => self.handle_own(input, now),
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            stage: self.step.id(self.config.mode).to_string(),
            round: 0,
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

    /// Issue 26: the red team's moderator confirms a finding, sets it aside
    /// or leaves it open, the words its report uses too.
    fn item_words(&self) -> super::ItemWords {
        if self.config.mode != QuickMode::Redteam {
            return super::ItemWords::default();
        }
        super::ItemWords {
            accept: "confirm",
            reject: "set aside",
            defer: "leave open",
            about: Some(
                "Each item is a finding of the red team: confirm it as a real weakness, set it \
                 aside as not one (the report leaves it out), or leave it open (the report keeps \
                 it, marked unconfirmed).",
            ),
        }
    }

    fn describe(&self) -> Description {
        let mode = self.config.mode;
        let roles = self
            .config
            .slots()
            .into_iter()
            .map(|(slot, group)| {
                let title = match slot.strip_prefix("judge.") {
                    Some(role) => crate::report::capitalised(role),
                    None => crate::report::capitalised(&slot),
                };
                RoleInfo {
                    agent: self.calls.agent(&slot).unwrap_or_default().to_string(),
                    slot,
                    title,
                    group,
                    binding: false,
                }
            })
            .collect();
        Description {
            topic: self.config.topic.clone(),
            label: format!("quick · {}", mode.title()),
            roles,
            deliverable: mode.deliverable().to_string(),
            items: (mode == QuickMode::Redteam).then(|| RegionInfo {
                title: "Findings".into(),
                placeholder: "The red team's findings appear here for your decision.".into(),
            }),
            board: None,
            about: mode.about().to_string(),
            ending_note: format!(
                "No verdict: {} delivers a document. Below is what quorum wrote to {}.",
                mode.a_title(),
                mode.deliverable()
            ),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary_lead(self)
    }

    fn usage(&self) -> Option<&UsageLedger> {
        Some(self.calls.usage())
    }

    fn board(&self) -> Board {
        let items = self.book.board_items();
        let mut required_roles = vec!["critic".to_string(), "synthesizer".to_string()];
        if self.step != Step::Revision {
            required_roles.push("proposer".to_string());
        }
        Board {
            stages: self.stages(),
            items,
            needs_moderator: self.step == Step::Moderation && self.outcome.is_none(),
            required_roles,
            ..Board::default()
        }
    }

    fn check_answer(&self, call_id: &str, answer: &str) -> Result<(), String> {
        if !self.calls.is_live(call_id) {
            return Err(format!("{call_id} is not waiting for an answer"));
        }
        if answer.trim().is_empty() {
            return Err("the answer is empty".into());
        }
        if self.step == Step::Attack && self.config.mode == QuickMode::Redteam {
            return parse_vulnerabilities(answer)
                .map(|_| ())
                .map_err(|error| error.to_string());
        }
        Ok(())
    }
}
