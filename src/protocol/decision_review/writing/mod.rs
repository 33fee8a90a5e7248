//! The decision review's writing mode (RULES.md DR-58..DR-61, A16, RF-18):
//! a critic reviews the draft and the moderator rules on its items; the
//! judges each rewrite the draft with the accepted items as directives;
//! one merge step turns their rewrites into a revised draft with a list of
//! changes, each naming the item it answers, if any. There is no proposer
//! and no verdict; the run completes with a document (`summary.md`) and
//! exits 0.
//!
//! | stage | calls | what is kept |
//! |---|---|---|
//! | critique | the critic | `critique.md`, verbatim, before it is read; items `c1`, `c2`, ... |
//! | moderation | none: the moderator accepts, rejects or defers each item | the rulings and their notes |
//! | rewrites | every judge at once, blind to each other | `judges/judge-{role}.md`, verbatim, before it is read (INF-11, DR-61) |
//! | merge | the synthesizer | `revised_draft`, `changes` and a change summary (DR-60) |
//!
//! The critic takes the stance the run sets (`critique:`, `--critique`),
//! as the architecture critic does (DR-16..DR-21): strict,
//! generous-steelman (the default) or neutral, stated in its prompt and
//! recorded as `meta.critique_mode`; `debate.yaml` is laid out as every
//! decision review's (DR-43..DR-45, [`documents`]).
//!
//! The critic is required: an unreadable critique is repaired once, and a
//! critic with no usable answer after its retry and repair ends the run
//! failed (A18). A judge's answer that cannot be read is kept with a
//! MALFORMED marker and left out of the merge, never retried (INF-07..10);
//! a judge that times out twice is skipped and the merge goes on with the
//! others. The merge is required: an unreadable merge is asked once more
//! with the problem quoted, and a second failure (or no answer at all) ends
//! the run failed. The aesthete and the stylist stay advisory, yet their
//! aspects lead the directives the merge gets (DR-58).
//!
//! The rulings bind (A16): every judge's and the merge's prompt carries
//! them, and quorum checks the merge's changes against them. A change made
//! for a rejected or deferred item, a change naming no item of the
//! critique, or an accepted item no change answers is named to the merge
//! once more ([`Calls::recheck`]); what still disagrees after that is kept,
//! logged and said plainly in `summary.md` and `debate.yaml`.
//!
//! A review journaled before the critique existed (its agents name no
//! critic) runs, resumes and replays as it did: rewrites, then the merge.
//!
//! Responsible for the order of the calls, what each prompt carries and
//! what each answer means. Not responsible for I/O, timers or retries (the
//! engine and the shared call plumbing), nor for drawing.

pub mod bearing;
mod critique;
pub mod documents;
mod fairness;
pub mod parse;
pub mod prompts;
mod rewrites;

use crate::protocol::{Answer, DebateCore, GivenUp, Seating, SharedSteps, parses};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::parse::{
    Aspect, CritiqueItem, Merge, Rewrite, parse_critique, parse_merge_naming, parse_rewrite,
};
use super::ReviewMode;
use super::model::{CritiqueMode, Weight};
use crate::parse::Read;
use crate::prompts::PromptSet;
use crate::protocol::Stage as _;
use crate::protocol::calls::{Calls, Unusable};
use crate::protocol::fairness::agreement::Agreement;
use crate::protocol::items::ItemBook;
use crate::protocol::judges::JudgeRole;
use crate::protocol::roster::{Roster, Seat};
use crate::protocol::supervision::LiveCall;
use crate::protocol::{
    Board, BoardView, ContextDoc, Description, Effect, ItemDecision, LogKind, ModerationItem,
    Progress, RegionInfo, RoleGroup, StageFocus, StageInfo, Timestamp, documents::Documents,
};
use crate::protocol::{Moderation, Refusals, Settled};
use crate::rulings::{Ruled, Ruling};

/// The slot of the role that merges the rewrites.
pub const SYNTHESIZER: &str = "synthesizer";

/// The slot of the role that critiques the draft: the decision review's
/// critic, so `--agent critic=...` seats it in either mode.
pub const CRITIC: &str = "critic";

/// The document a writing review delivers.
pub const DELIVERABLE: &str = "summary.md";

/// A seat of a writing review, as its rules name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The critic who reviews the draft first (A16).
    Critic,
    /// A judge of the panel, who rewrites the draft.
    Judge(JudgeRole),
    /// The role that merges the rewrites.
    Synthesizer,
}

/// The seats of a writing review of `panel`: the critic, when the review
/// is `critiqued` (A16), each judge of the panel, then the synthesizer who
/// merges their rewrites. The merge is played by the analyst's agent
/// unless it is named: the analyst chairs the panel (A17), as in a panel
/// review.
pub fn roster(critiqued: bool, panel: &[WritingSeat]) -> Roster<Role> {
    let critic = Seat::new(Role::Critic, CRITIC, "Critic", RoleGroup::Challenger);
    let judges = panel.iter().map(|seat| {
        let title = crate::words::capitalised(seat.role.as_str());
        Seat::new(
            Role::Judge(seat.role),
            seat.role.slot(),
            title,
            RoleGroup::Panel,
        )
    });
    let (slot, title) = (SYNTHESIZER, "Synthesizer");
    let synthesizer = Seat::new(Role::Synthesizer, slot, title, RoleGroup::Synthesizer)
        .defaulting_to(JudgeRole::Analyst.slot());
    critiqued
        .then_some(critic)
        .into_iter()
        .chain(judges)
        .chain([synthesizer])
        .collect()
}

/// The draft under review, as the user gave it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draft {
    /// The file it came from, or `draft` when the spec carried it inline.
    pub name: String,
    pub text: String,
}

/// One judge of a writing panel: its weight and the aspects it reads for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WritingSeat {
    pub role: JudgeRole,
    /// Kept from the panel's defaults; a writing review derives no
    /// verdict, so a weight never decides anything here. What gives the
    /// aesthete and the stylist their pull is [`directives`] (DR-58).
    pub weight: Weight,
    pub aspects: Vec<Aspect>,
}

/// The writing panel: the aesthete and the stylist advisory, as in every
/// decision review, the analyst binding (DR-58). The two writers' judges
/// read for clarity, structure and tone; the analyst for evidence.
pub fn writing_panel() -> Vec<WritingSeat> {
    vec![
        WritingSeat {
            role: JudgeRole::Aesthete,
            weight: Weight::Advisory,
            aspects: vec![Aspect::Structure, Aspect::Tone],
        },
        WritingSeat {
            role: JudgeRole::Stylist,
            weight: Weight::Advisory,
            aspects: vec![Aspect::Clarity, Aspect::Tone],
        },
        WritingSeat {
            role: JudgeRole::Analyst,
            weight: Weight::Binding,
            aspects: vec![Aspect::Evidence],
        },
    ]
}

/// Whether `role`'s aspects lead the merge's directives (DR-58).
pub fn leads_the_merge(role: JudgeRole) -> bool {
    matches!(role, JudgeRole::Aesthete | JudgeRole::Stylist)
}

/// One directive the merge follows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Directive {
    /// It wins when rewrites pull in different directions (DR-58).
    pub leading: bool,
    pub text: String,
}

/// The merge's directives, strongest first: the aesthete's and the
/// stylist's aspects lead whatever their weight; the other judges' aspects
/// follow as corrections the merge keeps unless they undo a leading one.
pub fn directives(panel: &[WritingSeat]) -> Vec<Directive> {
    let mut leading: Vec<&WritingSeat> = panel.iter().filter(|s| leads_the_merge(s.role)).collect();
    let following: Vec<&WritingSeat> = panel.iter().filter(|s| !leads_the_merge(s.role)).collect();
    leading.sort_by_key(|seat| seat.role != JudgeRole::Stylist);
    let mut out = Vec::new();
    let mut said: Vec<Aspect> = Vec::new();
    for (seats, lead) in [(leading, true), (following, false)] {
        for seat in seats {
            for aspect in &seat.aspects {
                if lead && said.contains(aspect) {
                    continue;
                }
                said.push(*aspect);
                let text = if lead {
                    format!(
                        "{} (follow the {}'s rewrite): {}",
                        crate::words::capitalised(aspect.as_str()),
                        seat.role,
                        aspect.question()
                    )
                } else {
                    format!(
                        "{} (keep the {}'s corrections): {}",
                        crate::words::capitalised(aspect.as_str()),
                        seat.role,
                        aspect.question()
                    )
                };
                out.push(Directive {
                    leading: lead,
                    text,
                });
            }
        }
    }
    out
}

/// Everything that defines one writing review. Journaled as the first
/// event, under the decision review's name with `mode: writing`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WritingConfig {
    pub topic: String,
    /// Always [`ReviewMode::Writing`]: the key the decision review's entry
    /// reads to build this state machine rather than the architecture one.
    pub mode: ReviewMode,
    pub draft: Draft,
    #[serde(default)]
    pub context: Vec<ContextDoc>,
    pub panel: Vec<WritingSeat>,
    /// The critic's stance (DR-16..DR-21), as in the architecture mode:
    /// stated in its prompt and recorded as `meta.critique_mode`. Absent
    /// from a review journaled before the writing critic took a stance,
    /// which asks its critic as it did, with no stance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critique_mode: Option<CritiqueMode>,
    /// Who plays each role, at what price, since when, and whether a
    /// person moderates.
    #[serde(flatten)]
    pub seating: Seating,
}

impl WritingConfig {
    /// Whether the review opens with a critique the moderator rules on: a
    /// critic is seated. A review journaled before the critique existed
    /// seats none and runs as it did, rewrites first.
    pub fn critiqued(&self) -> bool {
        self.seating.agents.contains_key(CRITIC)
    }

    /// The stance the critic takes: none without a critic, or for a review
    /// journaled before the writing critic took one.
    pub fn stance(&self) -> Option<CritiqueMode> {
        self.critique_mode.filter(|_| self.critiqued())
    }

    /// Its seats, in the order panes are laid out.
    pub fn roster(&self) -> Roster<Role> {
        roster(self.critiqued(), &self.panel)
    }
}

/// Where a writing review is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Critique,
    Moderation,
    Rewrites,
    Merge,
    Done,
}

impl crate::protocol::Stage for Step {
    const DONE: Step = Step::Done;
    const EVERY: &'static [Step] = &[
        Step::Critique,
        Step::Moderation,
        Step::Rewrites,
        Step::Merge,
        Step::Done,
    ];

    fn id(self) -> &'static str {
        match self {
            Step::Critique => "critique",
            Step::Moderation => "moderation",
            Step::Rewrites => "rewrites",
            Step::Merge => "merge",
            Step::Done => "done",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Step::Critique => "Critique",
            Step::Moderation => "Moderation",
            Step::Rewrites => "Rewrites",
            Step::Merge => "Merge",
            Step::Done => "Done",
        }
    }

    fn focus(self) -> StageFocus {
        match self {
            Step::Critique => StageFocus::Role(CRITIC.into()),
            Step::Moderation => StageFocus::Items,
            Step::Rewrites | Step::Done => StageFocus::Stay,
            Step::Merge => StageFocus::Role(SYNTHESIZER.into()),
        }
    }

    fn moderates(self) -> bool {
        self == Step::Moderation
    }
}

/// The critique as quorum read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Critique {
    pub call_id: String,
    /// Verbatim, as persisted in [`documents::CRITIQUE`].
    pub raw: String,
    pub items: Vec<CritiqueItem>,
    pub readings: Vec<String>,
    pub at: Timestamp,
}

/// Where a kept merge goes against the moderator's rulings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Against {
    /// A change names an item the moderator rejected or deferred.
    Acted {
        location: String,
        item: String,
        ruled: Ruled,
    },
    /// No change names an item the moderator accepted.
    Unanswered { item: String, location: String },
    /// A change names something that is no item of the critique.
    Unknown { location: String, named: String },
}

impl Against {
    /// One sentence; `who` is whoever ruled as the reader calls them
    /// (`you` in the deliverables, `the moderator` to the agent).
    pub fn describe(&self, who: &str) -> String {
        let place = |location: &str| format!("“{}”", crate::words::one_line(location));
        match self {
            Against::Acted {
                location,
                item,
                ruled,
            } => {
                let why = match ruled {
                    Ruled::Deferred => format!("which {who} left open (deferred)"),
                    other => format!("which {who} {}", other.word()),
                };
                format!("the merge changed {} for {item}, {why}", place(location))
            }
            Against::Unanswered { item, location } => format!(
                "no change answers {item} ({}), which {who} accepted",
                crate::words::one_line(location)
            ),
            Against::Unknown { location, named } => format!(
                "the change to {} names {}, which is no item of the critique",
                place(location),
                crate::words::one_line(named)
            ),
        }
    }
}

/// Where one judge's rewrite is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RewriteState {
    Pending,
    /// Read; what the reader took other than as written is in `readings`.
    Rewritten {
        rewrite: Rewrite,
        readings: Vec<String>,
    },
    /// Persisted but unreadable: left out of the merge (INF-07, INF-08).
    Malformed(String),
    /// No answer after the retry.
    Skipped(String),
}

/// One judge of the panel and its rewrite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeRewrite {
    pub seat: WritingSeat,
    pub call_id: Option<String>,
    /// Verbatim, as persisted in its judge file.
    pub raw: Option<String>,
    pub at: Option<Timestamp>,
    pub state: RewriteState,
}

/// The merge as quorum took it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    pub call_id: String,
    pub raw: String,
    pub merge: Merge,
    /// The change summary the reader gets: the merge's own, or one quorum
    /// wrote from the changes when the merge's named the process.
    pub summary: String,
    pub readings: Vec<String>,
    /// Where the kept merge still goes against the rulings after it was
    /// asked once more: stated in the deliverables, never passed as done.
    pub against_rulings: Vec<Against>,
    pub at: Timestamp,
}

/// A running writing review.
pub struct WritingReview {
    config: WritingConfig,
    /// Where it stands: its step (a writing review has one round); its
    /// critic, judges and synthesizer.
    core: DebateCore<Step, Role>,
    critique: Option<Critique>,
    /// The critique's items and the moderator's decisions, by item id.
    items: ItemBook<String>,
    judges: Vec<JudgeRewrite>,
    merged: Option<Merged>,
    /// Readable answers asked again because they went against the rulings.
    asked_again: Vec<Unusable>,
    /// How far the judges' scores of the draft agreed (issue 29), once
    /// every rewrite is in; none for a review from before fair judging.
    agreement: Option<Agreement>,
    /// Each self-identification masked in what the judges and the merge
    /// read.
    masked: Vec<String>,
}

crate::lend_core!(WritingReview, core, Step, Role);

impl WritingReview {
    pub fn new(config: WritingConfig, prompts: Arc<PromptSet>) -> Self {
        let calls = config.seating.calls();
        let judges = config
            .panel
            .iter()
            .map(|seat| JudgeRewrite {
                seat: seat.clone(),
                call_id: None,
                raw: None,
                at: None,
                state: RewriteState::Pending,
            })
            .collect();
        let step = if config.critiqued() {
            Step::Critique
        } else {
            Step::Rewrites
        };
        let roster = config.roster();
        let evidence = config.seating.evidence(&config.context);
        WritingReview {
            config,
            core: DebateCore::new(step, roster, calls, prompts).with_evidence_by_answer(evidence),
            critique: None,
            items: ItemBook::default(),
            judges,
            merged: None,
            asked_again: Vec::new(),
            agreement: None,
            masked: Vec::new(),
        }
    }

    pub fn config(&self) -> &WritingConfig {
        &self.config
    }
    pub fn judges(&self) -> &[JudgeRewrite] {
        &self.judges
    }
    pub fn merged(&self) -> Option<&Merged> {
        self.merged.as_ref()
    }
    pub fn unusable(&self) -> &[Unusable] {
        &self.core.unusable
    }
    /// Readable answers quorum asked about again, against the rulings.
    pub fn asked_again(&self) -> &[Unusable] {
        &self.asked_again
    }
    pub fn critique(&self) -> Option<&Critique> {
        self.critique.as_ref()
    }
    /// The critique's items, empty before the critique is read.
    pub fn critique_items(&self) -> &[CritiqueItem] {
        self.critique
            .as_ref()
            .map_or(&[], |critique| critique.items.as_slice())
    }

    /// The moderator's submitted decision on `item_id` and its note.
    pub fn ruling(&self, item_id: &str) -> Option<(ItemDecision, Option<&str>)> {
        self.items
            .records()
            .iter()
            .rev()
            .find(|record| record.settled && record.subject == item_id)
            .and_then(|record| Some((record.decision?, record.note.as_deref())))
    }

    /// Every ruled item as the acting agents read it, in critique order.
    pub fn rulings(&self) -> Vec<Ruling> {
        self.critique_items()
            .iter()
            .filter_map(|item| {
                let (decision, note) = self.ruling(&item.id)?;
                Some(Ruling::new(item.id.clone(), ruled(decision), note))
            })
            .collect()
    }

    /// The items ruled `decision`, in critique order, as prompts show them:
    /// the critic's naming of itself masked when the review is blind.
    fn items_json(
        &self,
        decision: ItemDecision,
        blindfold: &mut crate::protocol::fairness::Blindfold,
    ) -> Vec<serde_json::Value> {
        self.critique_items()
            .iter()
            .filter_map(|item| {
                let (ruled, note) = self.ruling(&item.id)?;
                (ruled == decision).then(|| {
                    let mut text = item.text.trim().to_string();
                    blindfold.cover(&mut text);
                    json!({
                        "id": item.id,
                        "location": crate::words::one_line(&item.location),
                        "type": item.kind.as_str(),
                        "severity": item.severity.as_str(),
                        "text": text,
                        "note": note.unwrap_or_default(),
                    })
                })
            })
            .collect()
    }

    /// The rulings as every acting prompt carries them: the items by
    /// decision, in detail, and the one standard section.
    fn rulings_context(&self) -> serde_json::Value {
        self.rulings_context_with(&mut self.blindfold())
    }

    /// [`Self::rulings_context`], the critic's text masked through
    /// `blindfold`.
    fn rulings_context_with(
        &self,
        blindfold: &mut crate::protocol::fairness::Blindfold,
    ) -> serde_json::Value {
        json!({
            "accepted": self.items_json(ItemDecision::Accept, blindfold),
            "rejected": self.items_json(ItemDecision::Reject, blindfold),
            "deferred": self.items_json(ItemDecision::Defer, blindfold),
            "rulings": crate::rulings::section(&self.rulings()),
        })
    }

    /// Where `merge` goes against the rulings: a change made for an item
    /// the moderator rejected or deferred, a change naming no item of the
    /// critique, an accepted item no change answers. A change that names
    /// no item is always allowed.
    pub fn against_rulings(&self, merge: &Merge) -> Vec<Against> {
        let mut against = Vec::new();
        let items: std::collections::HashMap<&str, &CritiqueItem> = self
            .critique_items()
            .iter()
            .map(|item| (item.id.as_str(), item))
            .collect();
        let mut answered = std::collections::HashSet::new();
        for change in &merge.changes {
            let Some(id) = &change.answers else { continue };
            if !items.contains_key(id.as_str()) {
                against.push(Against::Unknown {
                    location: change.location.clone(),
                    named: id.clone(),
                });
                continue;
            }
            answered.insert(id.as_str());
            match self.ruling(id).map(|(decision, _)| ruled(decision)) {
                Some(Ruled::Accepted) | None => {}
                Some(ruled) => against.push(Against::Acted {
                    location: change.location.clone(),
                    item: id.clone(),
                    ruled,
                }),
            }
        }
        for item in self.critique_items() {
            if self.ruling(&item.id).map(|(decision, _)| decision) == Some(ItemDecision::Accept)
                && !answered.contains(item.id.as_str())
            {
                against.push(Against::Unanswered {
                    item: item.id.clone(),
                    location: item.location.clone(),
                });
            }
        }
        against
    }
    pub fn calls(&self) -> &Calls {
        &self.core.calls
    }
    pub fn step(&self) -> Step {
        self.core.stage
    }

    fn log(&mut self, now: Timestamp, kind: LogKind, call_id: Option<&str>, message: String) {
        self.core.calls.push_log(now, kind, call_id, message);
    }

    fn finish(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Done, now);
        let rewritten = self
            .judges
            .iter()
            .filter(|judge| matches!(judge.state, RewriteState::Rewritten { .. }))
            .count();
        let changes = self.merged.as_ref().map_or(0, |m| m.merge.changes.len());
        let note = format!(
            "{rewritten} of {} merged, {}",
            crate::words::counted(self.judges.len(), "rewrite", "rewrites"),
            crate::words::counted(changes, "change", "changes")
        );
        let delivers = "a writing review delivers a revised draft";
        vec![self.core.complete(now, delivers, DELIVERABLE, note)]
    }

    fn stages(&self) -> Vec<StageInfo> {
        let critique: &[Step] = if self.config.critiqued() {
            &[Step::Critique, Step::Moderation]
        } else {
            &[]
        };
        critique
            .iter()
            .copied()
            .chain([Step::Rewrites, Step::Merge, Step::Done])
            .map(|step| step.info())
            .collect()
    }
}

impl crate::protocol::Rules for WritingReview {
    fn answered(&mut self, role: Role, answer: Answer<'_>) -> Vec<Effect> {
        match (self.core.stage, role) {
            (Step::Critique, _) => self.on_critique(answer),
            (Step::Rewrites, Role::Judge(judge)) => self.on_rewrite(judge, &answer),
            (Step::Merge, _) => self.on_merge(answer),
            (Step::Rewrites, Role::Critic | Role::Synthesizer)
            | (Step::Moderation | Step::Done, _) => Vec::new(),
        }
    }

    fn gave_up(&mut self, role: Role, call: LiveCall, why: GivenUp, now: Timestamp) -> Vec<Effect> {
        let reason = why.reason;

        match (self.core.stage, role) {
            // The critic is required, as the merge is (A18).
            (Step::Critique, _) => self.fail(now, call.no_answer(&reason)),
            (Step::Rewrites, role) => {
                if let Some(index) = self.judge_index(role) {
                    let judge = &mut self.judges[index];
                    judge.call_id = Some(call.call_id());
                    judge.state = RewriteState::Skipped(reason);
                }
                self.conclude_rewrites_if_complete(now)
            }
            // The merge is required: no fabricated result (RULES.md A18).
            _ => self.fail(now, call.no_answer(&reason)),
        }
    }

    fn refusals(&self) -> Refusals {
        Refusals {
            rerun: "a writing review holds no round".into(),
            reopen: "a writing review has no verdict".into(),
            resolution: "a writing review has no verdict after which a deferred item is settled"
                .into(),
        }
    }

    fn begin(&mut self, now: Timestamp) -> Vec<Effect> {
        let message = format!(
            "writing review of {} ({} chars): {}",
            self.config.draft.name,
            self.config.draft.text.chars().count(),
            self.config.topic
        );
        self.log(now, LogKind::Note, None, message);
        if self.config.critiqued() {
            self.start_critique(now)
        } else {
            self.start_rewrites(now)
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            round: 0,
            ..Default::default()
        }
    }

    fn documents(&self, out: &mut Documents<'_>) {
        documents::documents(self, out)
    }

    fn answer_files(&self) -> Vec<crate::protocol::AnswerFile> {
        documents::answer_files(self)
    }

    fn board(&self) -> Board {
        let required_roles = if self.config.critiqued() {
            vec![CRITIC.to_string(), SYNTHESIZER.to_string()]
        } else {
            vec![SYNTHESIZER.to_string()]
        };
        Board {
            stages: self.stages(),
            view: BoardView::Revision(documents::revision_view(self)),
            items: self.items.board_items(),
            needs_moderator: self.core.moderating(),
            required_roles,
            agreement: self.agreement.as_ref().map(|agreement| {
                format!("The judges' scores of the draft: {}", agreement.summary())
            }),
            ..Board::default()
        }
    }

    fn check_answer(&self, role: Role, _: &LiveCall, answer: &str) -> Result<(), String> {
        match role {
            Role::Synthesizer => {
                let items = self.critique_items();
                let ids: Vec<&str> = items.iter().map(|item| item.id.as_str()).collect();
                parses(parse_merge_naming(answer, &ids))
            }
            Role::Critic => parses(parse_critique(answer)),
            Role::Judge(_) => parses(parse_rewrite(answer)),
        }
    }

    fn answer_template(&self, role: Role, _: &LiveCall) -> Option<String> {
        Some(match role {
            Role::Synthesizer => "```yaml\nsummary: \nrevised_draft: |\n  \nchanges:\n  - location: \n    type: clarity\n    before: \n    after: \n    rationale: \n    answers: \n```\n".to_string(),
            Role::Critic => "```yaml\nitems:\n  - location: \n    type: clarity\n    severity: major\n    text: \n```\n".to_string(),
            Role::Judge(_) => "```yaml\nrewrite: |\n  \nnotes:\n  - \n```\n".to_string(),
        })
    }
}

impl crate::protocol::Questions for WritingReview {
    fn describe(&self) -> Description {
        let roles = self
            .core
            .roster
            .role_infos_with(&self.core.calls, |seat, info| match seat.role {
                Role::Judge(judge) => {
                    let seat = self.config.panel.iter().find(|seat| seat.role == judge);
                    info.binding(seat.is_some_and(|seat| seat.weight == Weight::Binding))
                }
                Role::Synthesizer => {
                    info.marked(self.config.seating.fairness.marks(&seat.slot, ""))
                }
                Role::Critic => info,
            });
        Description {
            topic: self.config.topic.clone(),
            label: format!("decision review · writing · {}", self.config.draft.name),
            roles,
            deliverable: DELIVERABLE.to_string(),
            items: self.config.critiqued().then(|| RegionInfo {
                title: "Critique items".into(),
                placeholder: "The critic's items show here once the draft is critiqued; accept, reject or defer each.".into(),
            }),
            board: Some(RegionInfo {
                title: "Draft and revision".into(),
                placeholder: "The draft shows here; the revised draft appears beside it once the rewrites are merged.".into(),
            }),
            about: "A writing review: a critic reads the draft and lists what should change, \
                    and you accept, reject or defer each item. Then each judge rewrites the \
                    draft on their own with the accepted items as directives (the aesthete and \
                    the stylist for structure, tone and clarity, the analyst for evidence), and \
                    one merge step turns the rewrites into a revised draft whose changes name \
                    the items they answer. quorum checks the changes against your rulings. The \
                    aesthete's and stylist's aspects lead the merge. No scores decide anything \
                    and there is no verdict."
                .into(),
            ending_note: format!(
                "No verdict: a writing review delivers a revised draft. Below is the opening of {DELIVERABLE}."
            ),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary_lead(self)
    }

    fn changes(&self) -> Vec<crate::protocol::ChangedPart> {
        documents::changed_parts(self)
    }
}

/// What the moderator decided, as the acting agent reads it.
fn ruled(decision: ItemDecision) -> Ruled {
    decision.into()
}

/// A critique item as the moderator decides on it.
fn moderation_item(item: &CritiqueItem) -> ModerationItem {
    ModerationItem {
        id: item.id.clone(),
        target: crate::words::one_line(&item.location),
        severity: item.severity.as_str().to_string(),
        category: item.kind.as_str().to_string(),
        text: item.text.trim().to_string(),
        ..Default::default()
    }
}

/// Adds `extra`'s keys to the JSON object `context`.
fn merge_into(context: &mut serde_json::Value, extra: serde_json::Value) {
    if let (Some(context), serde_json::Value::Object(extra)) = (context.as_object_mut(), extra) {
        context.extend(extra);
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{config, document, finished, now, timed_out};
    use super::*;
    use crate::protocol::{CallSpec, Outcome, Protocol, Questions};

    /// The draft under review; this review runs without a critic.
    const DRAFT: &str = "Welcome to on-call. It is very important that you read everything.";

    const JUDGES: [&str; 3] = ["aesthete", "stylist", "analyst"];

    fn started() -> (WritingReview, Vec<CallSpec>) {
        let slots = [
            "judge.aesthete",
            "judge.stylist",
            "judge.analyst",
            SYNTHESIZER,
        ];
        let mut review = WritingReview::new(config(&slots, DRAFT), Arc::new(PromptSet::builtin()));
        let calls = review
            .start(now())
            .into_iter()
            .map(|effect| match effect {
                Effect::StartCall(spec) => spec,
                other => panic!("expected calls, got {other:?}"),
            })
            .collect();
        (review, calls)
    }

    fn rewrite(role: &str) -> String {
        format!(
            "```yaml\nrewrite: |\n  On-call, rewritten by the {role}.\nscores:\n  clarity: 2\n```\n"
        )
    }

    const MERGE: &str = "```yaml\nsummary: The first page now says what to do in the first hour.\nrevised_draft: |\n  Welcome to on-call. Read the first-hour list first.\nchanges:\n  - location: first paragraph\n    type: clarity\n    before: It is very important that you read everything.\n    after: Read the first-hour list first.\n    rationale: One task beats a plea to read it all.\n```\n";

    fn call_of<'a>(calls: &'a [CallSpec], slot: &str) -> &'a CallSpec {
        calls
            .iter()
            .find(|spec| spec.request.call_id.starts_with(&format!("{slot}/")))
            .unwrap()
    }

    fn merge_call(effects: &[Effect]) -> CallSpec {
        effects
            .iter()
            .find_map(|effect| match effect {
                Effect::StartCall(spec) if spec.request.call_id.starts_with("synthesizer/") => {
                    Some(spec.clone())
                }
                _ => None,
            })
            .expect("the merge starts")
    }

    /// Each of `roles` answers its judge call with its rewrite; returns the
    /// merge call that follows.
    fn rewrites_from(review: &mut WritingReview, calls: &[CallSpec], roles: &[&str]) -> CallSpec {
        let mut effects = Vec::new();
        for role in roles {
            let id = &call_of(calls, &format!("judge.{role}")).request.call_id;
            effects = review.handle(&finished(id, &rewrite(role)), now());
        }
        merge_call(&effects)
    }

    /// DR-61, INF-11: every judge's answer goes to `judges/judge-{role}.md`,
    /// with no round suffix, and the engine writes it before the protocol
    /// reads it (the call carries the path).
    #[test]
    fn dr_61_judge_files_have_no_round_suffix() {
        let (_, calls) = started();
        let mut paths: Vec<_> = calls
            .iter()
            .map(|spec| spec.raw_output_path.clone().unwrap())
            .collect();
        paths.sort();
        assert_eq!(
            paths,
            [
                "judges/judge-aesthete.md",
                "judges/judge-analyst.md",
                "judges/judge-stylist.md"
            ]
        );
        assert!(paths.iter().all(|path| !path.contains("round")));
        assert_eq!(
            documents::judge_file(JudgeRole::Stylist),
            "judges/judge-stylist.md"
        );
    }

    /// DR-59, A16: each judge is asked for a rewrite of the whole draft,
    /// scores optional; the rewrites are what the merge gets.
    #[test]
    fn dr_59_judges_return_rewrites_and_the_merge_gets_them() {
        let (mut review, calls) = started();
        for spec in &calls {
            assert!(spec.request.prompt.contains("Rewrite the whole draft"));
            assert!(
                spec.request
                    .prompt
                    .contains("It is very important that you read everything.")
            );
        }
        let merge = rewrites_from(&mut review, &calls, &JUDGES);
        for role in ["aesthete", "stylist", "analyst"] {
            assert!(
                merge
                    .request
                    .prompt
                    .contains(&format!("rewritten by the {role}")),
                "{role}"
            );
        }
        assert!(merge.raw_output_path.is_none());
    }

    /// DR-58: the aesthete and the stylist stay advisory, but their aspects
    /// lead the merge's directives, ahead of the binding analyst's.
    #[test]
    fn dr_58_aesthete_and_stylist_advisory_but_lead_the_directives() {
        let panel = writing_panel();
        for role in [JudgeRole::Aesthete, JudgeRole::Stylist] {
            let seat = panel.iter().find(|seat| seat.role == role).unwrap();
            assert_eq!(seat.weight, Weight::Advisory, "{role}");
        }
        let directives = directives(&panel);
        let first_following = directives
            .iter()
            .position(|directive| !directive.leading)
            .unwrap();
        assert!(first_following > 0);
        assert!(directives[first_following..].iter().all(|d| !d.leading));
        for directive in &directives[..first_following] {
            assert!(
                directive.text.contains("stylist") || directive.text.contains("aesthete"),
                "{}",
                directive.text
            );
        }
        assert!(directives[first_following].text.contains("analyst"));
        // The merge's prompt carries them in that order, the leading marked.
        let (review, _) = started();
        let prompt = PromptSet::builtin()
            .render(&prompts::MERGE, &review.merge_context())
            .unwrap();
        let leading = prompt
            .find("**Leading.** Clarity (follow the stylist")
            .unwrap();
        let evidence = prompt.find("Evidence (keep the analyst").unwrap();
        assert!(leading < evidence);
        assert!(prompt.contains("the leading directives decide"));
    }

    /// DR-60, A16: the merge's `revised_draft` and `changes` are the result;
    /// the run completes with a document and no verdict (exit 0).
    #[test]
    fn dr_60_the_merge_gives_the_revised_draft_and_changes_and_no_verdict() {
        let (mut review, calls) = started();
        let merge = rewrites_from(&mut review, &calls, &JUDGES);
        let effects = review.handle(&finished(&merge.request.call_id, MERGE), now());
        let Some(Effect::Finished(outcome)) = effects.last() else {
            panic!("expected the end, got {effects:?}");
        };
        assert!(
            matches!(outcome, Outcome::Completed { deliverable, .. } if deliverable == "summary.md")
        );
        assert_eq!(outcome.exit_code(), 0);
        assert_eq!(outcome.verdict(), None);
        let merged = review.merged().unwrap();
        assert_eq!(merged.merge.changes[0].kind, Aspect::Clarity);
        let yaml = document(&review, "debate.yaml");
        for needle in [
            "mode: writing",
            "revised_draft:",
            "changes:",
            "type: clarity",
            "file: judges/judge-stylist.md",
        ] {
            assert!(yaml.contains(needle), "{needle}:\n{yaml}");
        }
    }

    /// RF-18: the summary delivers the revised text and a concise change
    /// summary, and its opening names no judge and no score (RF-06); the
    /// scores are in the closing section only.
    #[test]
    fn rf_18_summary_leads_with_the_change_summary_and_revised_text() {
        let (mut review, calls) = started();
        let merge = rewrites_from(&mut review, &calls, &JUDGES);
        // A summary that names the process is sent back once.
        let narrated = MERGE.replace(
            "summary: The first page",
            "summary: The stylist and the analyst agreed that the first page",
        );
        let effects = review.handle(&finished(&merge.request.call_id, &narrated), now());
        let redo = merge_call(&effects);
        assert!(
            redo.request.prompt.contains("`stylist`"),
            "{}",
            redo.request.prompt
        );
        review.handle(&finished(&redo.request.call_id, MERGE), now());
        let lead = review.summary_lead().unwrap();
        assert!(lead.starts_with(
            "**What changed:** The first page now says what to do in the first hour.\n\n## Revised text\n\nWelcome to on-call. Read the first-hour list first."
        ), "{lead}");
        assert!(
            crate::protocol::record::provenance(
                &lead,
                "",
                &crate::protocol::decision_review::role_words()
            )
            .is_empty(),
            "{lead}"
        );
        let summary = document(&review, "summary.md");
        assert!(summary.starts_with(
            "# Revised draft — The on-call handbook's first page\n\n**What changed:**"
        ));
        let closing = summary.find("## How this was made").unwrap();
        let changes = summary.find("## What changed and why").unwrap();
        assert!(changes < closing);
        assert!(
            summary[changes..]
                .contains("**first paragraph** (clarity): One task beats a plea to read it all.")
        );
        assert!(!summary[..closing].contains("2/5"));
        assert!(summary[closing..].contains("clarity 2/5"));
    }

    /// A judge that times out twice is skipped, and the merge goes on with
    /// the others' rewrites; the timeouts are in the log.
    #[test]
    fn a_judge_timing_out_twice_is_skipped_and_the_merge_goes_on() {
        let (mut review, calls) = started();
        let stylist = call_of(&calls, "judge.stylist").request.call_id.clone();
        let effects = review.handle(&timed_out(&stylist), now());
        let [Effect::StartCall(retry)] = effects.as_slice() else {
            panic!("expected a retry, got {effects:?}");
        };
        assert_eq!(
            retry.raw_output_path.as_deref(),
            Some("judges/judge-stylist.md")
        );
        review.handle(&timed_out(&retry.request.call_id), now());
        let merge = rewrites_from(&mut review, &calls, &["aesthete", "analyst"]);
        assert!(!merge.request.prompt.contains("rewritten by the stylist"));
        assert!(
            merge
                .request
                .prompt
                .contains("The stylist's rewrite is missing: timed out twice")
        );
        let log: Vec<_> = review.log().iter().map(|entry| entry.kind).collect();
        assert!(
            log.contains(&LogKind::Timeout) && log.contains(&LogKind::Skip),
            "{log:?}"
        );
        assert!(
            review
                .log()
                .iter()
                .any(|entry| entry.message
                    == "2 of 3 rewrites in; the merge goes on without the rest")
        );
        review.handle(&finished(&merge.request.call_id, MERGE), now());
        assert!(matches!(review.outcome(), Some(Outcome::Completed { .. })));
    }

    /// INF-07, INF-08, INF-10: an unreadable rewrite is kept with the
    /// MALFORMED marker, left out of the merge and never retried; with no
    /// usable rewrite at all, the review fails.
    #[test]
    fn an_unreadable_rewrite_is_marked_left_out_and_not_retried() {
        let (mut review, calls) = started();
        let mut effects = Vec::new();
        for role in JUDGES {
            let id = &call_of(&calls, &format!("judge.{role}")).request.call_id;
            let answer = if role == "analyst" {
                "I liked it.".to_string()
            } else {
                rewrite(role)
            };
            effects = review.handle(&finished(id, &answer), now());
            if role == "analyst" {
                assert!(
                    effects
                        .iter()
                        .all(|effect| !matches!(effect, Effect::StartCall(spec) if spec.request.call_id.starts_with("judge."))),
                    "not retried"
                );
            }
        }
        let merge = merge_call(&effects);
        assert!(!merge.request.prompt.contains("rewritten by the analyst"));
        let file = review
            .answer_files()
            .into_iter()
            .find(|file| file.path == "judges/judge-analyst.md")
            .unwrap();
        let contents = file.for_disk();
        assert!(contents.starts_with("<!-- MALFORMED: "), "{contents}");
        assert!(contents.ends_with("\nI liked it."));

        let (mut failing, calls) = started();
        let mut effects = Vec::new();
        for spec in &calls {
            effects = failing.handle(&finished(&spec.request.call_id, "no yaml here"), now());
        }
        assert!(matches!(
            effects.last(),
            Some(Effect::Finished(Outcome::Failed { reason })) if reason.contains("no judge gave a usable rewrite")
        ));
    }

    /// A merge that cannot be read is asked once more; a second failure
    /// ends the review failed, with no invented result. One change that
    /// cannot be read costs that change (issue 59): asked about once, then
    /// left out, and the revised draft is delivered, saying so.
    #[test]
    fn an_unreadable_merge_is_repaired_once_then_fails() {
        let (mut review, calls) = started();
        let merge = rewrites_from(&mut review, &calls, &JUDGES);
        let bad = MERGE.replace("type: clarity", "type: grammar");
        let effects = review.handle(&finished(&merge.request.call_id, &bad), now());
        let repair = merge_call(&effects);
        assert!(
            repair.request.prompt.contains("changes[0].type"),
            "{}",
            repair.request.prompt
        );
        let effects = review.handle(&finished(&repair.request.call_id, &bad), now());
        assert!(matches!(
            effects.last(),
            Some(Effect::Finished(Outcome::Completed { .. }))
        ));
        let summary = document(&review, DELIVERABLE);
        assert!(summary.contains("## What could not be read"), "{summary}");
        assert!(summary.contains("change 1 ("), "{summary}");

        let (mut review, calls) = started();
        let merge = rewrites_from(&mut review, &calls, &JUDGES);
        let prose = "Merged it all, looks good.";
        let effects = review.handle(&finished(&merge.request.call_id, prose), now());
        let repair = merge_call(&effects);
        let effects = review.handle(&finished(&repair.request.call_id, prose), now());
        assert!(matches!(
            effects.last(),
            Some(Effect::Finished(Outcome::Failed { .. }))
        ));
        assert!(
            review
                .summary_lead()
                .unwrap()
                .starts_with("**No revised draft.**")
        );
    }

    /// Agent text is untrusted: a terminal escape in a rewrite and in the
    /// merge stays verbatim in the judge file (an agent's answer, kept as
    /// it came) but never reaches the Markdown written for people.
    #[test]
    fn escapes_in_agent_text_stay_out_of_the_documents_for_people() {
        let (mut review, calls) = started();
        let mut effects = Vec::new();
        for spec in &calls {
            // YAML refuses a raw escape, so this rewrite is malformed: kept
            // as it came, marked, left out.
            let answer = if spec.request.call_id.starts_with("judge.analyst/") {
                rewrite("x").replace("On-call,", "On-call,\u{1b}]0;pwned\u{7}")
            } else {
                rewrite("x")
            };
            effects = review.handle(&finished(&spec.request.call_id, &answer), now());
        }
        // A bidi override is valid YAML and reaches the merge's text.
        let hostile = MERGE.replace("Read the first-hour", "Read the \u{202e}first-hour");
        review.handle(
            &finished(&merge_call(&effects).request.call_id, &hostile),
            now(),
        );
        assert!(
            review
                .merged()
                .unwrap()
                .merge
                .revised_draft
                .contains('\u{202e}')
        );
        let kept = review.answer_files();
        assert_eq!(kept[0].path, "judges/judge-analyst.md");
        assert!(kept[0].for_disk().contains('\u{1b}'), "kept verbatim");
        for document in review.documents() {
            let disk = document.for_disk();
            if document.path.ends_with(".md") {
                assert!(
                    !disk.contains('\u{1b}') && !disk.contains('\u{202e}'),
                    "{} holds a terminal control",
                    document.path
                );
            }
        }
    }

    /// The board shows the draft, then the revision beside it with the
    /// changes to mark.
    #[test]
    fn the_board_shows_the_draft_and_then_the_revision() {
        let (mut review, calls) = started();
        let BoardView::Revision(view) = review.board().view else {
            panic!("a revision board");
        };
        assert!(view.original.contains("very important"));
        assert!(view.revised.is_none());
        let merge = rewrites_from(&mut review, &calls, &JUDGES);
        review.handle(&finished(&merge.request.call_id, MERGE), now());
        let BoardView::Revision(view) = review.board().view else {
            panic!("a revision board");
        };
        assert!(view.revised.unwrap().contains("first-hour list"));
        assert_eq!(
            view.changes[0].before,
            "It is very important that you read everything."
        );
    }
}

#[cfg(test)]
mod rulings_tests;
#[cfg(test)]
mod test_support;
