//! The root-cause critic (RULES.md section 11b, RC-01..RC-18, A28-A30):
//! debuggers present hypotheses with evidence; a critic who never
//! investigates cross-examines them; each hypothesis ends SURVIVED,
//! WEAKENED or ELIMINATED by a stated rule, and the root cause is proven
//! only when exactly one survives.
//!
//! How a run goes:
//!
//! 1. **Findings.** Every debugger (`debugger.<name>`) is asked, at once,
//!    for its hypotheses with their evidence; a team's hypotheses file may
//!    bring some already, and a debugger that owns one is not asked. quorum
//!    numbers them `H1..Hn` in the order of the debuggers.
//! 2. **Rounds**, at most five (RC-06). In each, the critic rules every
//!    answer of the round before (`resolved`, `unresolved` with what is
//!    missing, or `contradicted`) and challenges the hypotheses still
//!    active (every new one at least once, RC-03) in the four-part form
//!    plus `critical` (RC-09, A28). The person upholds or overturns each
//!    ruling and delivers, holds back or drops each challenge; then every
//!    owner answers the challenges put to it, and to no one else (RC-04).
//! 3. **The end.** After a round in which every hypothesis SURVIVED or was
//!    ELIMINATED, or after round five (RC-06, RC-07), with a closing ruling
//!    of the last answers. Statuses and the root cause are derived by
//!    [`status`] from what happened to each challenge (A28).
//!
//! The critic gets the debuggers' names, findings and answers and nothing
//! else: no context files (RC-01, RC-02). Hedge words in what debuggers
//! assert are flagged for the critic and the moderator (A29); the critic's
//! final recommendation may not use one (RC-16).
//!
//! Not responsible for I/O, timers or retries (the engine and the shared
//! call plumbing): every answer here was journaled and written to its file
//! under `rounds/` before it was read.

mod answers;
mod board;
mod critic;
pub mod documents;
mod ending;
mod findings;
pub mod hedge;
pub mod kind;
pub mod model;
mod moderation;
pub mod parse;
pub mod prompts;
pub mod status;

pub use kind::KIND;

/// What a spec's `protocol:` says for a root-cause analysis.
pub const NAME: &str = "rca";

use crate::protocol::{Answer, DebateCore, GivenUp, Seating, SharedSteps, parses};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::model::{Challenge, Finding, Hypothesis, Restatement};
use self::parse::CriticAssessment;
use self::status::{Conclusion, Derived};
use super::calls::{Calls, Unusable};
use super::items::ItemBook;
use super::roster::{Roster, Seat};
use super::supervision::LiveCall;
use super::{
    Board, ContextDoc, Description, Effect, LogKind, Progress, Refusals, RegionInfo, RoleGroup,
    StageFocus, Timestamp, documents::Documents,
};
use crate::prompts::{PromptSet, TemplateSpec};
use crate::protocol::Stage as _;

/// At most this many challenge-and-answer rounds (RC-06).
pub const MAX_ROUNDS: u32 = 5;

/// The critic's role slot.
pub const CRITIC: &str = "critic";

/// A debugger's role slot: `debugger.alpha`.
pub fn debugger_slot(name: &str) -> String {
    format!("debugger.{name}")
}

/// A seat of a root-cause analysis, as its rules name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A debugger, by its name: `alpha` sits in `debugger.alpha`.
    Debugger(String),
    /// The critic, who never investigates.
    Critic,
}

impl Role {
    /// The debugger's name; `None` for the critic.
    pub fn debugger(&self) -> Option<&str> {
        match self {
            Role::Debugger(name) => Some(name),
            Role::Critic => None,
        }
    }
}

/// The seats of an analysis by `debuggers`: each debugger, in the order
/// their hypotheses are numbered, then the critic.
pub fn roster(debuggers: &[String]) -> Roster<Role> {
    let debuggers = debuggers.iter().map(|name| {
        let (slot, title) = (debugger_slot(name), format!("Debugger {name}"));
        Seat::new(Role::Debugger(name.clone()), slot, title, RoleGroup::Lead)
    });
    let critic = Seat::new(Role::Critic, CRITIC, "Critic", RoleGroup::Challenger);
    debuggers.chain([critic]).collect()
}

/// A hypothesis a team brought, as the definition records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeededHypothesis {
    pub owner: String,
    #[serde(flatten)]
    pub finding: Finding,
}

/// Everything that defines one analysis. Journaled as the first event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RcaConfig {
    /// The problem under analysis: what went wrong, as observed.
    pub topic: String,
    /// Material the debuggers investigate; never shown to the critic.
    #[serde(default)]
    pub context: Vec<ContextDoc>,
    /// The debuggers' names, in the order their hypotheses are numbered.
    pub debuggers: Vec<String>,
    /// Hypotheses a team brought with the run (`--hypotheses FILE`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeded: Vec<SeededHypothesis>,
    /// Who plays each role, at what price, since when, and whether a
    /// person moderates.
    #[serde(flatten)]
    pub seating: Seating,
    /// The one survivor's hedged claim is restated by its owner before it
    /// is proven (RC-16). Every analysis started now does; one journaled
    /// before (the field absent) folds as it ran, so resuming or replaying
    /// it never starts a call it never had.
    #[serde(default)]
    pub restates_hedged_claims: bool,
}

/// Every stage an analysis can be in, the restatement of a hedged
/// survivor included: what a script may name.
pub fn every_stage() -> Vec<&'static str> {
    let mut stages: Vec<&'static str> = Step::ALL.iter().map(|step| step.id()).collect();
    let done = stages.len() - 1;
    for step in [Step::Restate, Step::Examine, Step::Closing].iter().rev() {
        stages.insert(done, step.id());
    }
    stages
}

/// Where an analysis is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Findings,
    Challenge,
    Moderation,
    Answers,
    Ruling,
    /// The owner of the one survivor restates a hedged claim (RC-16).
    Restate,
    /// The critic rules whether the evidence carries the restated claim
    /// (issue 60).
    Examine,
    /// The moderator rules on the restatement's ruling and on the rivals
    /// left standing, before the conclusion (issue 60, A28 as revised).
    Closing,
    Done,
}

impl Step {
    const ALL: [Step; 6] = [
        Step::Findings,
        Step::Challenge,
        Step::Moderation,
        Step::Answers,
        Step::Ruling,
        Step::Done,
    ];
}

impl crate::protocol::Stage for Step {
    const DONE: Step = Step::Done;
    const EVERY: &'static [Step] = &[
        Step::Findings,
        Step::Challenge,
        Step::Moderation,
        Step::Answers,
        Step::Ruling,
        Step::Restate,
        Step::Examine,
        Step::Closing,
        Step::Done,
    ];

    fn id(self) -> &'static str {
        match self {
            Step::Findings => "findings",
            Step::Challenge => "challenge",
            Step::Moderation => "moderation",
            Step::Answers => "answers",
            Step::Ruling => "ruling",
            Step::Restate => "restate",
            Step::Examine => "examine",
            Step::Closing => "closing",
            Step::Done => "done",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Step::Findings => "Findings",
            Step::Challenge => "Challenges",
            Step::Moderation => "Moderation",
            Step::Answers => "Answers",
            Step::Ruling => "Closing ruling",
            Step::Restate => "Restatement",
            Step::Examine => "Restatement examined",
            Step::Closing => "Before the conclusion",
            Step::Done => "Assessment",
        }
    }

    fn focus(self) -> StageFocus {
        match self {
            Step::Challenge | Step::Ruling | Step::Examine => StageFocus::Role(CRITIC.into()),
            Step::Moderation | Step::Closing => StageFocus::Items,
            Step::Done => StageFocus::Board,
            Step::Findings | Step::Answers | Step::Restate => StageFocus::Stay,
        }
    }

    fn moderates(self) -> bool {
        matches!(self, Step::Moderation | Step::Closing)
    }

    /// Every stage but the findings and the end is within a round (RC-06).
    fn counts_rounds(self) -> bool {
        !matches!(self, Step::Findings | Step::Done)
    }
}

pub use crate::protocol::calls::Submission;

/// What a moderation item is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemSubject {
    /// Deliver, hold back or drop this challenge.
    Challenge(String),
    /// Uphold, overturn or send back a ruling on this challenge's answer:
    /// its `index` among the challenge's rulings.
    Ruling { challenge: String, index: usize },
    /// Keep this rival of the one survivor standing, or rule it out
    /// (issue 60).
    Rival(String),
    /// Uphold or overturn the critic's ruling on this hypothesis's
    /// restated claim (issue 60).
    Restatement(String),
}

/// One item the moderator was asked about, with the decision.
pub type ItemRecord = super::items::ItemRecord<ItemSubject>;

/// A running root-cause analysis.
pub struct Rca {
    config: RcaConfig,
    /// Where it stands: its step, and the round of challenges (RC-06);
    /// its debuggers and its critic.
    core: DebateCore<Step, Role>,
    hypotheses: Vec<Hypothesis>,
    challenges: Vec<Challenge>,
    /// Findings in so far, by debugger, before they are numbered.
    findings_in: BTreeMap<String, Vec<Finding>>,
    /// Debuggers whose call of the current step has not ended.
    awaiting: BTreeSet<String>,
    submissions: Vec<Submission>,
    items: ItemBook<ItemSubject>,
    assessment: Option<CriticAssessment>,
    /// Why the critic's recommendation was left out, when it was.
    assessment_refused: Option<String>,
    /// The closing ruling after the last round has started.
    closing: bool,
    /// Why the loop stopped.
    stopped: Option<String>,
    statuses: Vec<(String, Derived)>,
    /// The one survivor's claim restated without hedge words, or why not
    /// (RC-16); asked at most once.
    restatement: Option<Restatement>,
    /// Rivals of the one survivor the moderator ruled out, with why
    /// (issue 60, A28 as revised).
    ruled_out: BTreeMap<String, String>,
    /// Hypotheses citing something that did not verify, with the first
    /// such citation in words (issue 52).
    unverified: BTreeMap<String, String>,
    conclusion: Option<Conclusion>,
    places: Places,
}

crate::lend_core!(Rca, core, Step, Role);

/// Where each hypothesis, challenge and final status stands in its list,
/// and which challenges each hypothesis has, in the order raised: every
/// lookup by id costs the same however many there are, so an analysis of
/// thousands of hypotheses is not a scan of them all per hypothesis.
#[derive(Default)]
struct Places {
    hypotheses: HashMap<String, usize>,
    challenges: HashMap<String, usize>,
    challenges_of: HashMap<String, Vec<usize>>,
    statuses: HashMap<String, usize>,
}

impl Rca {
    pub fn new(config: RcaConfig, prompts: Arc<PromptSet>) -> Self {
        let calls = config.seating.calls();
        let hypotheses: Vec<Hypothesis> = config
            .seeded
            .iter()
            .enumerate()
            .map(|(index, seeded)| {
                hypothesis(index + 1, &seeded.owner, &seeded.finding, "hypotheses file")
            })
            .collect();
        let places = Places {
            hypotheses: hypotheses
                .iter()
                .enumerate()
                .map(|(place, h)| (h.id.clone(), place))
                .collect(),
            ..Places::default()
        };
        let roster = roster(&config.debuggers);
        let evidence = config.seating.evidence(&config.context);
        Rca {
            config,
            core: DebateCore::new(Step::Findings, roster, calls, prompts)
                .with_rounds(MAX_ROUNDS)
                .with_evidence(evidence),
            hypotheses,
            challenges: Vec::new(),
            findings_in: BTreeMap::new(),
            awaiting: BTreeSet::new(),
            submissions: Vec::new(),
            items: ItemBook::default(),
            assessment: None,
            assessment_refused: None,
            closing: false,
            stopped: None,
            statuses: Vec::new(),
            restatement: None,
            ruled_out: BTreeMap::new(),
            unverified: BTreeMap::new(),
            conclusion: None,
            places,
        }
    }

    pub fn config(&self) -> &RcaConfig {
        &self.config
    }
    pub fn hypotheses(&self) -> &[Hypothesis] {
        &self.hypotheses
    }
    pub fn challenges(&self) -> &[Challenge] {
        &self.challenges
    }
    pub fn submissions(&self) -> &[Submission] {
        &self.submissions
    }
    pub fn unusable(&self) -> &[Unusable] {
        &self.core.unusable
    }
    pub fn items(&self) -> &[ItemRecord] {
        self.items.records()
    }
    pub fn assessment(&self) -> Option<&CriticAssessment> {
        self.assessment.as_ref()
    }
    pub fn assessment_refused(&self) -> Option<&str> {
        self.assessment_refused.as_deref()
    }
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }
    /// The final statuses, once the analysis has ended.
    pub fn statuses(&self) -> &[(String, Derived)] {
        &self.statuses
    }
    pub fn conclusion(&self) -> Option<&Conclusion> {
        self.conclusion.as_ref()
    }
    /// The survivor's restated claim, when one was asked for (RC-16).
    pub fn restatement(&self) -> Option<&Restatement> {
        self.restatement.as_ref()
    }
    /// Rivals of the one survivor the moderator ruled out, with why.
    pub fn ruled_out(&self) -> &BTreeMap<String, String> {
        &self.ruled_out
    }
    /// What decides the root cause beyond the statuses.
    pub fn rules(&self) -> status::Rules<'_> {
        status::Rules {
            edition: self.config.seating.edition,
            ruled_out: &self.ruled_out,
            unverified: &self.unverified,
        }
    }

    /// Hypotheses citing something that did not verify, each with the
    /// first such citation in words (issue 52).
    pub fn unverified(&self) -> &BTreeMap<String, String> {
        &self.unverified
    }

    /// Files what `id` cites, checked: its evidence, its reasoning and
    /// every answer its owner gave to a challenge of it (issue 52).
    pub(super) fn file_evidence(&mut self, id: &str) {
        let Some(hypothesis) = self.hypothesis(id) else {
            return;
        };
        let mut texts: Vec<String> = hypothesis.finding.evidence.clone();
        texts.push(hypothesis.finding.reasoning.clone());
        for challenge in self.challenges_of(id) {
            for answer in &challenge.answers {
                texts.push(answer.text.answer.clone());
                texts.extend(answer.text.evidence.iter().cloned());
            }
        }
        let failure = self
            .core
            .evidence
            .file(id, texts.iter().map(String::as_str))
            .first_failure();
        match failure {
            Some(why) => self.unverified.insert(id.to_string(), why),
            None => self.unverified.remove(id),
        };
    }
    /// The claim a hypothesis stands on: restated without hedge words when
    /// its owner did so (RC-16) and, under the revised rules, the
    /// restatement was found supported (issue 60); else as first written.
    pub fn claim_of(&self, id: &str) -> Option<&str> {
        let taken = |r: &Restatement| {
            if self.rules().strict() {
                r.confirmed()
            } else {
                r.plain()
            }
        };
        if let Some(restatement) = self.restatement.as_ref().filter(|r| r.hypothesis == id)
            && taken(restatement)
            && let Some(claim) = &restatement.claim
        {
            return Some(claim);
        }
        self.hypothesis(id).map(|h| h.finding.claim.as_str())
    }
    pub fn calls(&self) -> &Calls {
        &self.core.calls
    }
    /// Its debuggers and its critic.
    pub fn roster(&self) -> &Roster<Role> {
        &self.core.roster
    }
    pub fn round(&self) -> u32 {
        self.core.round
    }

    /// `id`'s status now: final once the analysis ended, else settled (or
    /// `None` while active).
    pub fn status_of(&self, id: &str) -> Option<Derived> {
        match self.places.statuses.get(id) {
            Some(&place) => Some(self.statuses[place].1.clone()),
            None => self.settled(id),
        }
    }

    /// `id`'s status while the loop runs ([`status::settled`]): a
    /// hypothesis citing what did not verify never SURVIVES, so it stays
    /// active until the end (issue 52).
    fn settled(&self, id: &str) -> Option<Derived> {
        status::settled_among(id, self.challenges_of(id)).filter(|derived| {
            derived.status != model::Status::Survived || self.rules().unverified(id).is_none()
        })
    }

    pub fn hypothesis(&self, id: &str) -> Option<&Hypothesis> {
        self.places
            .hypotheses
            .get(id)
            .map(|&place| &self.hypotheses[place])
    }

    /// `id`'s challenges, in the order they were raised.
    pub fn challenges_of<'a>(&'a self, id: &str) -> impl Iterator<Item = &'a Challenge> + 'a {
        self.places
            .challenges_of
            .get(id)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|&place| &self.challenges[place])
    }

    fn challenge_mut(&mut self, id: &str) -> Option<&mut Challenge> {
        let place = *self.places.challenges.get(id)?;
        self.challenges.get_mut(place)
    }

    fn push_hypothesis(&mut self, hypothesis: Hypothesis) {
        let id = hypothesis.id.clone();
        self.places
            .hypotheses
            .insert(hypothesis.id.clone(), self.hypotheses.len());
        self.hypotheses.push(hypothesis);
        self.file_evidence(&id);
    }

    fn push_challenge(&mut self, challenge: Challenge) {
        let place = self.challenges.len();
        self.places.challenges.insert(challenge.id.clone(), place);
        self.places
            .challenges_of
            .entry(challenge.hypothesis.clone())
            .or_default()
            .push(place);
        self.challenges.push(challenge);
    }

    fn owner_of(&self, challenge: &Challenge) -> String {
        self.hypothesis(&challenge.hypothesis)
            .map(|hypothesis| hypothesis.owner.clone())
            .unwrap_or_default()
    }

    fn log(&mut self, now: Timestamp, kind: LogKind, call_id: Option<&str>, message: String) {
        self.core.calls.push_log(now, kind, call_id, message);
    }

    /// Renders `template` and starts a call of `role` in the current step,
    /// its answer written to `file` before it is read.
    fn start_call(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: &Role,
        file: String,
        now: Timestamp,
    ) -> Result<Effect, Vec<Effect>> {
        let slot = self.core.slot(role);
        let started = self.start_or_stop(slot, template, &context, Some(file), now);
        started.map(Effect::StartCall)
    }

    /// Hypothesis `id` as the moderator reads it beside an item about it:
    /// its id, owner and finding as YAML; empty for no such hypothesis.
    fn hypothesis_entry(&self, id: &str) -> String {
        let Some(hypothesis) = self.hypothesis(id) else {
            return String::new();
        };
        #[derive(Serialize)]
        struct Entry<'a> {
            id: &'a str,
            owner: &'a str,
            #[serde(flatten)]
            finding: &'a Finding,
        }
        let entry = Entry {
            id: &hypothesis.id,
            owner: &hypothesis.owner,
            finding: &hypothesis.finding,
        };
        yaml_serde::to_string(&entry).unwrap_or_default()
    }

    /// The hypotheses with their owners: `h1 by debugger.alpha, h2 by …`.
    fn listed(&self) -> String {
        let listed: Vec<String> = self
            .hypotheses
            .iter()
            .map(|h| format!("{} by {}", h.id, h.owner))
            .collect();
        listed.join(", ")
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
        self.submissions.push(kept);
    }
}

/// The ids a critic's answer is read against.
pub(super) struct CriticIds {
    hypotheses: Vec<String>,
    challenges: Vec<String>,
    settled: Vec<String>,
    unchallenged: Vec<String>,
    to_rule: Vec<String>,
}

/// `1 ruling`, `3 rulings`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn as_refs(ids: &[String]) -> Vec<&str> {
    ids.iter().map(String::as_str).collect()
}

fn hypothesis(number: usize, owner: &str, finding: &Finding, source: &str) -> Hypothesis {
    let mut hedges = hedge::hedges(&finding.claim);
    for word in hedge::hedges(&finding.reasoning) {
        if !hedges.contains(&word) {
            hedges.push(word);
        }
    }
    Hypothesis {
        id: format!("H{number}"),
        owner: owner.to_string(),
        finding: finding.clone(),
        source: source.to_string(),
        hedges,
    }
}

impl crate::protocol::Rules for Rca {
    fn answered(&mut self, role: Role, answer: Answer<'_>) -> Vec<Effect> {
        match (self.core.stage, role) {
            (Step::Findings, Role::Debugger(name)) => self.on_findings(name, answer),
            (Step::Challenge | Step::Ruling, Role::Critic) => self.on_critic(answer),
            (Step::Answers, Role::Debugger(name)) => self.on_answers(name, answer),
            (Step::Restate, _) => self.on_restate(answer),
            (Step::Examine, Role::Critic) => self.on_examine(answer),
            _ => Vec::new(),
        }
    }

    fn gave_up(&mut self, role: Role, call: LiveCall, why: GivenUp, now: Timestamp) -> Vec<Effect> {
        let reason = why.reason;

        match (self.core.stage, role) {
            (Step::Findings, Role::Debugger(name)) => {
                self.presents_none(name, &call.call_id(), &reason, now)
            }
            (Step::Answers, Role::Debugger(name)) => {
                self.missed_all(&name, &reason, now);
                self.awaiting.remove(&name);
                self.conclude_answers_if_complete(now)
            }
            (Step::Restate, _) => {
                self.restate_failed(format!("the call failed ({reason})"), now);
                self.after_restate(now)
            }
            (Step::Examine, _) => {
                self.examine_failed(format!("the call failed ({reason})"), now);
                self.close(now)
            }
            // The critic is required (A18).
            _ => self.fail(now, call.no_answer(&reason)),
        }
    }

    fn refusals(&self) -> Refusals {
        Refusals {
            rerun: "a root-cause analysis holds no round of judges".into(),
            reopen: "a root-cause analysis is not reopened".into(),
            resolution: "a held-back challenge is an open question of the analysis, not an item to settle later".into(),
        }
    }

    fn begin(&mut self, now: Timestamp) -> Vec<Effect> {
        let message = format!(
            "root-cause analysis ({} debuggers, a critic, up to {MAX_ROUNDS} rounds): {}",
            self.config.debuggers.len(),
            self.config.topic
        );
        self.log(now, LogKind::Note, None, message);
        if !self.hypotheses.is_empty() {
            let message = format!("from the hypotheses file: {}", self.listed());
            self.log(now, LogKind::Note, None, message);
        }
        self.start_findings(now)
    }

    fn progress(&self) -> Progress {
        Progress {
            round: self.core.round,
            max_round: MAX_ROUNDS,
            ..Default::default()
        }
    }

    fn documents(&self, out: &mut Documents<'_>) {
        documents::documents(self, out)
    }

    fn result_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut fields = serde_json::Map::new();
        if let Some(conclusion) = &self.conclusion {
            fields.insert("root_cause".into(), json!(conclusion.root_cause));
            let statuses: serde_json::Map<String, serde_json::Value> = self
                .statuses
                .iter()
                .map(|(id, derived)| (id.clone(), json!(derived.status.as_str())))
                .collect();
            fields.insert("hypotheses".into(), serde_json::Value::Object(statuses));
        }
        fields
    }

    fn board(&self) -> Board {
        let rows = self
            .hypotheses
            .iter()
            .map(|hypothesis| self.board_row(hypothesis))
            .collect();
        Board {
            stages: self.stages(),
            view: super::BoardView::Rulings(rows),
            items: self.items.board_items(),
            needs_moderator: matches!(self.core.stage, Step::Moderation | Step::Closing)
                && self.core.outcome.is_none(),
            required_roles: vec![CRITIC.to_string()],
            ..Board::default()
        }
    }

    /// A person is asked to fix an item quorum cannot read, rather than
    /// have it left out.
    fn check_answer(&self, role: Role, call: &LiveCall, answer: &str) -> Result<(), String> {
        use crate::parse::whole;
        match self.core.stage_of(call) {
            Some(Step::Findings) => parses(parse::read_findings(answer).and_then(whole)),
            Some(Step::Challenge) => parses(self.read_critic(answer, false).and_then(whole)),
            Some(Step::Ruling) => parses(self.read_critic(answer, true).and_then(whole)),
            Some(Step::Restate) => parses(parse::read_restatement(answer)),
            Some(Step::Examine) => parses(parse::read_examination(answer).and_then(whole)),
            Some(Step::Answers) => {
                let open = self.open_challenges_of(role.debugger().unwrap_or_default());
                let ids: Vec<&str> = open.iter().map(|challenge| challenge.id.as_str()).collect();
                parses(parse::read_answers(answer, &ids).and_then(whole))
            }
            _ => Ok(()),
        }
    }

    fn answer_template(&self, role: Role, call: &LiveCall) -> Option<String> {
        Some(match self.core.stage_of(call)? {
            Step::Findings => documents::FINDINGS_TEMPLATE.to_string(),
            Step::Restate => "```yaml\nclaim: \"\"\n```\n".to_string(),
            Step::Examine => "```yaml\nruling: supported\nreason: \"\"\n```\n".to_string(),
            Step::Answers => {
                let name = role.debugger().unwrap_or_default();
                let mut text = String::from("```yaml\nanswers:\n");
                for challenge in self.open_challenges_of(name) {
                    text.push_str(&format!(
                        "  - challenge: {}\n    answer: \"\"\n    evidence: []\n",
                        challenge.id
                    ));
                }
                text.push_str("```\n");
                text
            }
            _ => {
                let ids = self.critic_ids();
                let mut text = String::from("```yaml\nrulings:\n");
                for id in &ids.to_rule {
                    text.push_str(&format!(
                        "  - challenge: {id}\n    ruling: resolved\n    reason: \"\"\n"
                    ));
                }
                text.push_str("challenges:\n");
                for id in &ids.unchallenged {
                    text.push_str(&format!(
                        "  - hypothesis: {id}\n    test: causation\n    critical: false\n    quote: \"\"\n    why: \"\"\n    evidence_needed: \"\"\n    alternative: \"\"\n"
                    ));
                }
                text.push_str("```\n");
                text
            }
        })
    }
}

impl crate::protocol::Questions for Rca {
    fn describe(&self) -> Description {
        let roles = self.core.roster.role_infos(&self.core.calls);
        Description {
            topic: self.config.topic.clone(),
            label: format!(
                "root-cause analysis · {} debuggers",
                self.config.debuggers.len()
            ),
            roles,
            deliverable: documents::SUMMARY.into(),
            items: Some(RegionInfo {
                title: "Challenges & rulings".into(),
                placeholder: "The critic's challenges and rulings appear here for your decision."
                    .into(),
            }),
            board: Some(RegionInfo {
                title: "Hypotheses".into(),
                placeholder: "Hypotheses appear here once the debuggers present them.".into(),
            }),
            about: "A root-cause analysis: debuggers present hypotheses with evidence; a critic \
                    who never investigates challenges each one (causation, alternatives, \
                    confounders, contradictions, timeline, reachability, sufficiency, the culprit \
                    change, release timing); owners answer; the critic rules each answer. You \
                    deliver, hold back or drop each challenge and uphold or overturn each ruling. \
                    At most five rounds; each hypothesis ends SURVIVED, WEAKENED or ELIMINATED by \
                    a stated rule, and the root cause is proven only when exactly one survives \
                    and you have ruled out every rival that was not eliminated."
                .into(),
            ending_note: "quorum derived each status from what happened to its challenges and \
                          whether what each cites verified; the root cause is proven only when \
                          exactly one hypothesis SURVIVED, its claim does not hedge, and every \
                          other one was ELIMINATED or ruled out by you."
                .into(),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary_lead(self)
    }

    /// The proven root cause (a PROVEN analysis only): the goal of a
    /// planning debate.
    fn handoff(&self) -> Option<crate::protocol::handoff::Handoff> {
        use crate::protocol::handoff::{Handed, Handoff};
        let conclusion = self.conclusion.as_ref()?;
        if conclusion.verdict != crate::protocol::Verdict::Proven {
            return None;
        }
        let id = conclusion.root_cause.as_deref()?;
        // The claim it was proven on: restated, when it was (RC-16).
        let cause = self.claim_of(id)?.to_string();
        Some(Handoff {
            from: "root-cause analysis".into(),
            topic: self.config.topic.clone(),
            dir: String::new(),
            ending: format!("PROVEN: {id}"),
            handed: Handed::Cause {
                problem: self.config.topic.clone(),
                cause,
            },
        })
    }
}

/// The statuses `challenges` give `hypotheses` at the end, and the root
/// cause: what `quorum verdict DIR` recomputes from `rca.yaml`.
pub fn assess(
    hypotheses: &[String],
    challenges: &[Challenge],
    rules: &status::Rules<'_>,
) -> (Vec<(String, Derived)>, Conclusion) {
    let by_hypothesis = status::by_hypothesis(challenges);
    let statuses: Vec<(String, Derived)> = hypotheses
        .iter()
        .map(|id| {
            let mine = by_hypothesis
                .get(id.as_str())
                .into_iter()
                .flatten()
                .copied();
            let derived = status::final_status_among(id, mine);
            (id.clone(), status::bound_by_evidence(id, derived, rules))
        })
        .collect();
    let conclusion = status::conclude(&statuses, rules);
    (statuses, conclusion)
}
