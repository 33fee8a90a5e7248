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
mod rules;
mod steps;
mod synthesis;
mod triage;

pub use kind::KIND;

/// What a spec's `protocol:` says for a quick mode.
pub const NAME: &str = "quick";

use crate::protocol::{DebateCore, Seating, SharedSteps};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::parse::{Vulnerability, bottom_line};
use super::calls::{Calls, Unusable};
use super::fairness::agreement::Agreement;
use super::items::{ItemBook, ItemRecord};
use super::judges::JudgeRole;
use super::roster::{Roster, Seat};
use super::{
    ContextDoc, Effect, ItemDecision, LogKind, RoleGroup, StageFocus, StageInfo, Timestamp,
};
use crate::prompts::{PromptSet, TemplateSpec};
use crate::protocol::Stage as _;

/// The role the proposer plays in the record.
pub const PROPOSER_ROLE: &str = "oracle";
/// The role the critic plays in the record.
pub const CRITIC_ROLE: &str = "mephistopheles";

/// The role slots a quick mode seats, as a spec, a flag or the configuration
/// names them.
pub const SLOTS: &[&str] = &[
    "critic",
    "proposer",
    "judge.aesthete",
    "judge.stylist",
    "judge.analyst",
    "judge.*",
    "synthesizer",
];

/// The words its roles go by (its slots' words and the record's `oracle`
/// and `mephistopheles`), which a reader-first opening does not carry
/// (RF-06, RF-08).
pub fn role_words() -> Vec<&'static str> {
    crate::protocol::kind::slot_words(SLOTS, &[PROPOSER_ROLE, CRITIC_ROLE])
}

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
            QuickMode::Challenge => vec![Step::Attack(self.angle()), Step::Done],
            QuickMode::Panel => vec![Step::Reviews, Step::Synthesis, Step::Done],
            QuickMode::Premortem => vec![Step::Attack(self.angle()), Step::Synthesis, Step::Done],
            QuickMode::Redteam => vec![
                Step::Attack(self.angle()),
                Step::Moderation,
                Step::Synthesis,
                Step::Done,
            ],
            QuickMode::Adversary if revision => vec![
                Step::Proposal,
                Step::Attack(self.angle()),
                Step::Revision,
                Step::Synthesis,
                Step::Done,
            ],
            QuickMode::Adversary => {
                vec![
                    Step::Proposal,
                    Step::Attack(self.angle()),
                    Step::Synthesis,
                    Step::Done,
                ]
            }
        }
    }

    /// How its critic attacks: the stage its call runs in (its call ids
    /// say it).
    fn angle(self) -> Angle {
        match self {
            QuickMode::Premortem => Angle::Premortem,
            QuickMode::Redteam => Angle::Redteam,
            _ => Angle::Challenge,
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
    /// Who plays each role, at what price, since when, and whether a
    /// person moderates.
    #[serde(flatten)]
    pub seating: Seating,
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

/// A seat of a quick debate, as its rules name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Proposer,
    Critic,
    /// A reviewer of a panel review.
    Reviewer(JudgeRole),
    /// The role that writes the reader's document (RF-01).
    Synthesizer,
}

/// The seats of a quick debate in `mode`, in the order they are listed:
/// the adversary's proposer and critic, the panel's reviewers, or the
/// critic; then the synthesizer of every mode but the challenge, played by
/// the lead's agent unless it is named: the proposer, the panel's chair,
/// or the critic.
pub fn roster(mode: QuickMode) -> Roster<Role> {
    let proposer = Seat::new(Role::Proposer, "proposer", "Proposer", RoleGroup::Lead);
    let critic = Seat::new(Role::Critic, "critic", "Critic", RoleGroup::Challenger);
    let reviewer = |judge: JudgeRole| {
        let title = crate::words::capitalised(judge.as_str());
        Seat::new(Role::Reviewer(judge), judge.slot(), title, RoleGroup::Panel)
    };
    let (seats, lead) = match mode {
        QuickMode::Adversary => (vec![proposer, critic], "proposer".to_string()),
        QuickMode::Panel => (PANEL.map(reviewer).to_vec(), JudgeRole::Analyst.slot()),
        _ => (vec![critic], "critic".to_string()),
    };
    let (slot, title) = ("synthesizer", "Synthesizer");
    let synthesizer = Seat::new(Role::Synthesizer, slot, title, RoleGroup::Synthesizer);
    let synthesizer = (mode != QuickMode::Challenge).then(|| synthesizer.defaulting_to(lead));
    seats.into_iter().chain(synthesizer).collect()
}

/// Where a quick debate is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Proposal,
    /// The critic's attack, from the mode's angle.
    Attack(Angle),
    Reviews,
    Moderation,
    Revision,
    Synthesis,
    Done,
}

/// The angle of a critic's attack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Angle {
    Challenge,
    Premortem,
    Redteam,
}

/// Every stage a quick debate can be in, in any mode.
pub fn every_stage() -> Vec<&'static str> {
    let mut stages: Vec<&'static str> = Vec::new();
    for mode in QuickMode::ALL {
        for step in [
            Step::Proposal,
            Step::Attack(mode.angle()),
            Step::Reviews,
            Step::Moderation,
            Step::Revision,
            Step::Synthesis,
            Step::Done,
        ] {
            if !stages.contains(&step.id()) {
                stages.push(step.id());
            }
        }
    }
    stages
}

impl crate::protocol::Stage for Step {
    const DONE: Step = Step::Done;
    const EVERY: &'static [Step] = &[
        Step::Proposal,
        Step::Attack(Angle::Challenge),
        Step::Attack(Angle::Premortem),
        Step::Attack(Angle::Redteam),
        Step::Reviews,
        Step::Moderation,
        Step::Revision,
        Step::Synthesis,
        Step::Done,
    ];

    fn id(self) -> &'static str {
        match self {
            Step::Proposal => "proposal",
            Step::Attack(Angle::Challenge) => "challenge",
            Step::Attack(Angle::Premortem) => "pre-mortem",
            Step::Attack(Angle::Redteam) => "red-team",
            Step::Reviews => "reviews",
            Step::Moderation => "moderation",
            Step::Revision => "revision",
            Step::Synthesis => "synthesis",
            Step::Done => "done",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Step::Proposal => "Proposal",
            Step::Attack(Angle::Challenge) => "Challenge",
            Step::Attack(Angle::Premortem) => "Pre-mortem",
            Step::Attack(Angle::Redteam) => "Red team",
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
            Step::Attack(_) => StageFocus::Role("critic".into()),
            Step::Moderation => StageFocus::Items,
            Step::Synthesis => StageFocus::Role("synthesizer".into()),
            Step::Reviews | Step::Done => StageFocus::Stay,
        }
    }

    fn moderates(self) -> bool {
        self == Step::Moderation
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
    /// Its reading of the work on each lens ([`parse::LENSES`]), 1 to 10,
    /// when the panel is judged fairly (issue 29); none before.
    pub reading: [Option<u8>; 3],
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
    /// Where it stands: its step (a quick debate has one round); the
    /// mode's seats.
    core: DebateCore<Step, Role>,
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
    /// How far the panel's readings agreed (issue 29): measured once every
    /// review is in; none for a panel from before fair judging.
    agreement: Option<Agreement>,
    /// Each self-identification masked in what the synthesizer read.
    masked: Vec<String>,
}

crate::lend_core!(Quick, core, Step, Role);

impl Quick {
    pub fn new(config: QuickConfig, prompts: Arc<PromptSet>) -> Self {
        let calls = config.seating.calls();
        let reviews = if config.mode == QuickMode::Panel {
            PANEL
                .into_iter()
                .map(|role| Review {
                    role,
                    call_id: None,
                    raw: None,
                    state: ReviewState::Pending,
                    reading: [None; 3],
                })
                .collect()
        } else {
            Vec::new()
        };
        let first = config.mode.steps(config.revision)[0];
        let roster = roster(config.mode);
        let evidence = config.seating.evidence(&config.context);
        Quick {
            config,
            core: DebateCore::new(first, roster, calls, prompts).with_evidence_by_answer(evidence),
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
            agreement: None,
            masked: Vec::new(),
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
    /// How far a panel's readings agreed, once every review is in.
    pub fn agreement(&self) -> Option<&Agreement> {
        self.agreement.as_ref()
    }
    /// Each self-identification masked in what the synthesizer read.
    pub fn masked(&self) -> &[String] {
        &self.masked
    }
    pub fn unusable(&self) -> &[Unusable] {
        &self.core.unusable
    }
    pub fn calls(&self) -> &Calls {
        &self.core.calls
    }
    /// The mode's seats.
    pub fn roster(&self) -> &Roster<Role> {
        &self.core.roster
    }

    /// The challenge's bottom line, as the critic wrote it (RF-11).
    pub fn bottom_line(&self) -> Option<String> {
        self.attack
            .as_ref()
            .and_then(|attack| bottom_line(&attack.raw))
    }

    /// The critic gave bottom lines that say different things, so neither
    /// is the result (issue 59).
    pub fn bottom_lines_differ(&self) -> bool {
        self.attack
            .as_ref()
            .is_some_and(|attack| !parse::read_bottom_line(&attack.raw).slips.is_empty())
    }

    fn log(&mut self, now: Timestamp, kind: LogKind, call_id: Option<&str>, message: String) {
        self.core.calls.push_log(now, kind, call_id, message);
    }

    fn context_json(&self) -> serde_json::Value {
        json!(self.config.context)
    }

    /// Renders `template` and starts one call in `step`'s stage.
    fn start_call(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: &Role,
        raw_output_path: Option<String>,
        now: Timestamp,
    ) -> Result<Effect, Vec<Effect>> {
        let slot = self.core.slot(role);
        let started = self.start_or_stop(slot, template, &context, raw_output_path, now);
        started.map(Effect::StartCall)
    }

    fn start_single(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: &Role,
        now: Timestamp,
    ) -> Vec<Effect> {
        let slot = self.core.slot(role);
        self.ask(slot, template, &context, None, now)
    }

    fn finish(&mut self, now: Timestamp, note: String) -> Vec<Effect> {
        self.core.enter(Step::Done, now);
        let delivers = format!("{} delivers a document", self.config.mode.a_title());
        let deliverable = self.config.mode.deliverable();
        vec![self.core.complete(now, &delivers, deliverable, note)]
    }

    fn stages(&self) -> Vec<StageInfo> {
        let steps = self.config.mode.steps(self.config.revision);
        steps.into_iter().map(|step| step.info()).collect()
    }
}

/// A finding's ruling in the book, once it has a decision.
fn as_ruling(record: &ItemRecord<String>) -> Option<Ruling> {
    Some(Ruling {
        decision: record.decision?,
        note: record.note.clone(),
    })
}

/// A pre-mortem's failure modes: the items of the section its synthesizer
/// heads "Root causes" (or "Failure modes"), each `- **Title.** why`.
fn failure_modes(body: &str) -> Vec<super::handoff::HandedFinding> {
    let mut items: Vec<String> = Vec::new();
    let mut inside = false;
    for line in body.lines() {
        if let Some(heading) = line.strip_prefix('#') {
            let heading = heading.trim_start_matches('#').trim().to_lowercase();
            inside = heading.contains("root cause") || heading.contains("failure mode");
            continue;
        }
        if !inside {
            continue;
        }
        let trimmed = line.trim_start();
        let bullet = ["- ", "* "]
            .iter()
            .find_map(|mark| trimmed.strip_prefix(mark))
            .filter(|_| line.len() - trimmed.len() < 2);
        match (bullet, items.last_mut()) {
            (Some(text), _) => items.push(text.trim().to_string()),
            (None, Some(last)) if !trimmed.is_empty() => {
                last.push(' ');
                last.push_str(trimmed.trim());
            }
            _ => {}
        }
    }
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            let (title, detail) = match item
                .strip_prefix("**")
                .and_then(|rest| rest.split_once("**"))
            {
                Some((title, rest)) => (title.trim().to_string(), rest.trim().to_string()),
                None => match item.split_once(". ") {
                    Some((title, rest)) => (title.to_string(), rest.trim().to_string()),
                    None => (item.clone(), String::new()),
                },
            };
            super::handoff::HandedFinding {
                source_id: format!("root cause {}", index + 1),
                standing: "failure mode".into(),
                severity: String::new(),
                title: title.trim_end_matches('.').to_string(),
                detail,
            }
        })
        .collect()
}

#[cfg(test)]
mod handoff_tests {
    #[test]
    fn a_pre_mortems_root_causes_are_its_failure_modes() {
        let body = "## How it fails\n\n- not this one\n\n## Root causes\n\n\
            - **The admin tool bypasses the dual write.** It has its own driver,\n  \
            so its writes never reach Postgres.\n\
            - A second writer. It is unordered.\n\n## Knock-on effects\n\n- **Search** slows.\n";
        let modes = super::failure_modes(body);
        assert_eq!(modes.len(), 2, "{modes:?}");
        assert_eq!(modes[0].title, "The admin tool bypasses the dual write");
        assert_eq!(
            modes[0].detail,
            "It has its own driver, so its writes never reach Postgres."
        );
        assert_eq!(modes[0].source_id, "root cause 1");
        assert_eq!(modes[1].title, "A second writer");
        assert_eq!(modes[1].detail, "It is unordered.");
    }
}
