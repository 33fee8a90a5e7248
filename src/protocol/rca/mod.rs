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

pub mod documents;
pub mod hedge;
pub mod kind;
pub mod model;
pub mod parse;
pub mod prompts;
pub mod status;

pub use kind::{KIND, NAME};

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::model::{
    Answer, Challenge, ChallengeState, Finding, Hypothesis, Miss, MissKind, Moderated, Restatement,
    Ruling, RulingWord, Test,
};
use self::parse::{CriticAnswer, CriticAssessment, CriticContext};
use self::status::{Conclusion, Derived};
use super::calls::{Calls, Routed, Unusable};
use super::items::ItemBook;
use super::supervision::{LiveCall, Slot};
use super::usage::{Price, UsageLedger};
use super::{
    Board, ContextDoc, Description, Document, Effect, Fact, Input, ItemDecision, LogEntry, LogKind,
    ModerationItem, Outcome, OverrideAction, Progress, Protocol, RegionInfo, RoleGroup, RoleInfo,
    StageFocus, StageInfo, Timestamp,
};
use crate::parse::{Read, readings_line};
use crate::prompts::{PromptSet, REPAIR_TEMPLATE, TemplateSpec};
use crate::report::one_line;

/// At most this many challenge-and-answer rounds (RC-06).
pub const MAX_ROUNDS: u32 = 5;

/// The critic's role slot.
pub const CRITIC: &str = "critic";

/// A debugger's role slot: `debugger.alpha`.
pub fn debugger_slot(name: &str) -> String {
    format!("debugger.{name}")
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
    /// Who plays each role slot, as `provider:model`.
    pub agents: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, Price>,
    pub started_at: Timestamp,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold_for_moderator: bool,
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
    stages.insert(stages.len() - 1, Step::Restate.id());
    stages
}

/// Where an analysis is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Findings,
    Challenge,
    Moderation,
    Answers,
    Ruling,
    /// The owner of the one survivor restates a hedged claim (RC-16).
    Restate,
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

    fn id(self) -> &'static str {
        match self {
            Step::Findings => "findings",
            Step::Challenge => "challenge",
            Step::Moderation => "moderation",
            Step::Answers => "answers",
            Step::Ruling => "ruling",
            Step::Restate => "restate",
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
            Step::Done => "Assessment",
        }
    }

    fn focus(self) -> StageFocus {
        match self {
            Step::Challenge | Step::Ruling => StageFocus::Role(CRITIC.into()),
            Step::Moderation => StageFocus::Items,
            Step::Done => StageFocus::Board,
            Step::Findings | Step::Answers | Step::Restate => StageFocus::Stay,
        }
    }
}

/// One answer quorum kept: a debugger's findings or answers, a critic's
/// challenges or closing ruling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    pub call_id: String,
    /// The role slot: `debugger.alpha`, `critic`.
    pub role: String,
    /// `findings`, `challenge`, `answers`, `ruling`.
    pub stage: String,
    pub round: u32,
    /// The file it was written to before it was read.
    pub file: String,
    pub raw: String,
    /// What the reader took other than as written.
    pub normalised: Vec<String>,
    pub at: Timestamp,
}

/// What a moderation item is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ItemSubject {
    /// Deliver, hold back or drop this challenge.
    Challenge(String),
    /// Uphold, overturn or send back a ruling on this challenge's answer:
    /// its `index` among the challenge's rulings.
    Ruling { challenge: String, index: usize },
}

/// One item the moderator was asked about, with the decision.
pub type ItemRecord = super::items::ItemRecord<ItemSubject>;

/// A running root-cause analysis.
pub struct Rca {
    config: RcaConfig,
    prompts: Arc<PromptSet>,
    calls: Calls,
    step: Step,
    round: u32,
    hypotheses: Vec<Hypothesis>,
    challenges: Vec<Challenge>,
    /// Findings in so far, by debugger, before they are numbered.
    findings_in: BTreeMap<String, Vec<Finding>>,
    /// Debuggers whose call of the current step has not ended.
    awaiting: BTreeSet<String>,
    submissions: Vec<Submission>,
    unusable: Vec<Unusable>,
    /// Every round file as the engine last wrote it, by path.
    raw_files: BTreeMap<String, String>,
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
    conclusion: Option<Conclusion>,
    outcome: Option<Outcome>,
    places: Places,
}

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
        let calls = Calls::new(config.agents.clone(), config.prices.clone());
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
        Rca {
            config,
            prompts,
            calls,
            step: Step::Findings,
            round: 1,
            hypotheses,
            challenges: Vec::new(),
            findings_in: BTreeMap::new(),
            awaiting: BTreeSet::new(),
            submissions: Vec::new(),
            unusable: Vec::new(),
            raw_files: BTreeMap::new(),
            items: ItemBook::default(),
            assessment: None,
            assessment_refused: None,
            closing: false,
            stopped: None,
            statuses: Vec::new(),
            restatement: None,
            conclusion: None,
            outcome: None,
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
        &self.unusable
    }
    /// Every round file, by path, as it was written before it was read.
    pub fn raw_files(&self) -> &BTreeMap<String, String> {
        &self.raw_files
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
    /// The claim a hypothesis stands on: restated without hedge words when
    /// its owner did so (RC-16), else as first written.
    pub fn claim_of(&self, id: &str) -> Option<&str> {
        if let Some(restatement) = self.restatement.as_ref().filter(|r| r.hypothesis == id)
            && restatement.plain()
            && let Some(claim) = &restatement.claim
        {
            return Some(claim);
        }
        self.hypothesis(id).map(|h| h.finding.claim.as_str())
    }
    pub fn calls(&self) -> &Calls {
        &self.calls
    }
    pub fn round(&self) -> u32 {
        self.round
    }

    /// `id`'s status now: final once the analysis ended, else settled (or
    /// `None` while active).
    pub fn status_of(&self, id: &str) -> Option<Derived> {
        match self.places.statuses.get(id) {
            Some(&place) => Some(self.statuses[place].1.clone()),
            None => self.settled(id),
        }
    }

    /// `id`'s status while the loop runs ([`status::settled`]).
    fn settled(&self, id: &str) -> Option<Derived> {
        status::settled_among(id, self.challenges_of(id))
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
        self.places
            .hypotheses
            .insert(hypothesis.id.clone(), self.hypotheses.len());
        self.hypotheses.push(hypothesis);
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
        self.calls.push_log(now, kind, call_id, message);
    }

    fn enter(&mut self, step: Step, now: Timestamp) {
        self.step = step;
        let message = match step {
            Step::Findings | Step::Done => format!("stage: {}", step.id()),
            _ => format!(
                "stage: {} (round {} of {MAX_ROUNDS})",
                step.id(),
                self.round
            ),
        };
        self.log(now, LogKind::Stage, None, message);
    }

    fn fail(&mut self, now: Timestamp, reason: String) -> Vec<Effect> {
        let mut effects = self.calls.stop(now, Some(&reason));
        self.step = Step::Done;
        let outcome = Outcome::Failed { reason };
        self.outcome = Some(outcome.clone());
        effects.push(Effect::Finished(outcome));
        effects
    }

    /// Renders `template` and starts a call of `role` in the current step,
    /// its answer written to `file` before it is read.
    fn start_call(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: &str,
        file: String,
        now: Timestamp,
    ) -> Result<Effect, Vec<Effect>> {
        match self.prompts.render(template, &context) {
            Ok(prompt) => Ok(Effect::StartCall(self.calls.start(
                Slot::new(role, self.step.id(), self.round),
                prompt,
                Some(file),
                now,
            ))),
            Err(error) => Err(self.fail(now, format!("could not build the prompt: {error}"))),
        }
    }

    fn keep(&mut self, call: &LiveCall, raw: &str, normalised: Vec<String>, now: Timestamp) {
        let call_id = call.call_id();
        if !normalised.is_empty() {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                readings_line(&normalised),
            );
        }
        self.submissions.push(Submission {
            call_id,
            role: call.slot.role.clone(),
            stage: call.slot.stage.clone(),
            round: call.slot.round,
            file: call.raw_output_path.clone().unwrap_or_default(),
            raw: raw.to_string(),
            normalised,
            at: now,
        });
    }

    /// Asks for one repair, quoting `error`; `Err` carries why there is
    /// none (the repair was used, or its prompt cannot be built).
    fn repair(
        &mut self,
        call: LiveCall,
        output: &str,
        error: String,
        now: Timestamp,
    ) -> Result<Vec<Effect>, String> {
        let repair = (self.prompts.as_ref(), &REPAIR_TEMPLATE);
        let (unusable, spec) = self.calls.refuse_answer(call, output, &error, repair, now);
        self.unusable.push(unusable);
        spec.map(|spec| vec![Effect::StartCall(spec)])
    }

    // ---- findings ------------------------------------------------------

    fn start_findings(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Findings, now);
        let owners: BTreeSet<&str> = self.hypotheses.iter().map(|h| h.owner.as_str()).collect();
        let asked: Vec<String> = self
            .config
            .debuggers
            .iter()
            .filter(|name| !owners.contains(name.as_str()))
            .cloned()
            .collect();
        if asked.is_empty() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!(
                    "every debugger brought its hypotheses in the hypotheses file ({}); no findings are asked for",
                    self.hypotheses.len()
                ),
            );
            return self.number_findings(now);
        }
        let mut effects = Vec::new();
        for name in asked {
            let teammates: Vec<&String> = self
                .config
                .debuggers
                .iter()
                .filter(|other| **other != name)
                .collect();
            let known: Vec<serde_json::Value> = self
                .hypotheses
                .iter()
                .map(|h| json!({"id": h.id, "owner": h.owner, "claim": h.finding.claim}))
                .collect();
            let context = json!({
                "problem": self.config.topic,
                "context": self.config.context,
                "debugger": name,
                "teammates": teammates,
                "known": known,
            });
            let file = documents::round_file(1, &debugger_slot(&name), "findings");
            match self.start_call(
                &prompts::FINDINGS,
                context,
                &debugger_slot(&name),
                file,
                now,
            ) {
                Ok(effect) => {
                    self.awaiting.insert(name);
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        effects
    }

    fn on_findings(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let name = debugger_name(&call.slot.role).to_string();
        match parse::read_findings(output) {
            Ok(Read { value, notes }) => {
                self.keep(&call, output, notes, now);
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call.call_id()),
                    format!("{name}: {}", count(value.len(), "hypothesis", "hypotheses")),
                );
                self.findings_in.insert(name.clone(), value);
            }
            Err(error) => match self.repair(call.clone(), output, error.to_string(), now) {
                Ok(effects) => return effects,
                Err(reason) => {
                    self.log(
                        now,
                        LogKind::Skip,
                        Some(&call.call_id()),
                        format!("{name} presents no hypotheses: {reason}"),
                    );
                }
            },
        }
        self.awaiting.remove(&name);
        self.conclude_findings_if_complete(now)
    }

    fn conclude_findings_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.awaiting.is_empty() {
            return Vec::new();
        }
        self.number_findings(now)
    }

    /// Numbers the findings in debugger order, then starts round 1.
    fn number_findings(&mut self, now: Timestamp) -> Vec<Effect> {
        for name in self.config.debuggers.clone() {
            for finding in self.findings_in.remove(&name).unwrap_or_default() {
                let number = self.hypotheses.len() + 1;
                self.push_hypothesis(hypothesis(number, &name, &finding, "round 1 findings"));
            }
        }
        if self.hypotheses.is_empty() {
            return self.finish(now, "no debugger presented a hypothesis".into());
        }
        let flagged: Vec<String> = self
            .hypotheses
            .iter()
            .filter(|h| !h.hedges.is_empty())
            .map(|h| format!("{} ({})", h.id, h.hedges.join(", ")))
            .collect();
        let listed: Vec<String> = self
            .hypotheses
            .iter()
            .map(|h| format!("{} by {}", h.id, h.owner))
            .collect();
        self.log(
            now,
            LogKind::Note,
            None,
            format!(
                "{}: {}",
                count(self.hypotheses.len(), "hypothesis", "hypotheses"),
                listed.join(", ")
            ),
        );
        if !flagged.is_empty() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("hedge words flagged: {}", flagged.join("; ")),
            );
        }
        self.start_challenge(now)
    }

    // ---- the critic ----------------------------------------------------

    /// Ids the critic's answer is read against, as of now.
    fn critic_ids(&self) -> CriticIds {
        let hypotheses = self.hypotheses.iter().map(|h| h.id.clone()).collect();
        let settled = self
            .hypotheses
            .iter()
            .filter(|h| self.settled(&h.id).is_some())
            .map(|h| h.id.clone())
            .collect();
        let unchallenged = self
            .hypotheses
            .iter()
            .filter(|h| self.challenges_of(&h.id).next().is_none())
            .map(|h| h.id.clone())
            .collect();
        let to_rule = self
            .challenges
            .iter()
            .filter(|challenge| challenge.state == ChallengeState::Answered)
            .map(|challenge| challenge.id.clone())
            .collect();
        CriticIds {
            hypotheses,
            settled,
            unchallenged,
            to_rule,
        }
    }

    fn start_challenge(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Challenge, now);
        self.start_critic(false, now)
    }

    fn start_closing(&mut self, now: Timestamp) -> Vec<Effect> {
        self.closing = true;
        self.enter(Step::Ruling, now);
        self.start_critic(true, now)
    }

    fn start_critic(&mut self, closing: bool, now: Timestamp) -> Vec<Effect> {
        let context = self.critic_prompt(closing);
        let file = documents::round_file(
            self.round,
            CRITIC,
            if closing { "ruling" } else { "challenge" },
        );
        match self.start_call(&prompts::CRITIC, context, CRITIC, file, now) {
            Ok(effect) => vec![effect],
            Err(failed) => failed,
        }
    }

    /// What the critic is shown: the debuggers' names, their findings and
    /// answers, and nothing they did not present (RC-01, RC-02).
    fn critic_prompt(&self, closing: bool) -> serde_json::Value {
        let ids = self.critic_ids();
        let hypotheses: Vec<serde_json::Value> = self
            .hypotheses
            .iter()
            .map(|h| {
                let challenges: Vec<serde_json::Value> = self
                    .challenges_of(&h.id)
                    .filter(|challenge| challenge.state.delivered())
                    .map(challenge_json)
                    .collect();
                json!({
                    "id": h.id,
                    "owner": h.owner,
                    "claim": h.finding.claim,
                    "evidence": h.finding.evidence,
                    "reasoning": h.finding.reasoning,
                    "hedges": h.hedges,
                    "settled": self.settled(&h.id).map(|d| d.status.as_str()),
                    "challenges": challenges,
                })
            })
            .collect();
        let to_rule: Vec<serde_json::Value> = self
            .challenges
            .iter()
            .filter(|challenge| challenge.state == ChallengeState::Answered)
            .map(|challenge| {
                let answer = challenge.answers.last();
                json!({
                    "id": challenge.id,
                    "hypothesis": challenge.hypothesis,
                    "owner": self.owner_of(challenge),
                    "test": challenge.text.test.as_str(),
                    "critical": challenge.text.critical,
                    "evidence_needed": challenge.text.evidence_needed,
                    "answer": answer.map(|a| a.text.answer.clone()).unwrap_or_default(),
                    "evidence": answer.map(|a| a.text.evidence.clone()).unwrap_or_default(),
                    "hedges": answer.map(|a| a.hedges.clone()).unwrap_or_default(),
                })
            })
            .collect();
        let tests: Vec<serde_json::Value> = Test::ALL
            .iter()
            .map(|test| json!({"name": test.as_str(), "question": test.question()}))
            .collect();
        json!({
            "rulings": self.moderator_rulings(),
            "problem": self.config.topic,
            "debuggers": self.config.debuggers,
            "round": self.round,
            "max_rounds": MAX_ROUNDS,
            "closing": closing,
            "hypotheses": hypotheses,
            "to_rule": to_rule,
            "unchallenged": ids.unchallenged,
            "tests": tests,
            "hedge_words": hedge::HEDGE_WORDS,
        })
    }

    fn read_critic(&self, output: &str, closing: bool) -> Result<Read<CriticAnswer>, String> {
        let ids = self.critic_ids();
        let (hypotheses, settled, unchallenged, to_rule) = (
            as_refs(&ids.hypotheses),
            as_refs(&ids.settled),
            as_refs(&ids.unchallenged),
            as_refs(&ids.to_rule),
        );
        parse::read_critic(
            output,
            &CriticContext {
                hypotheses: &hypotheses,
                settled: &settled,
                unchallenged: &unchallenged,
                to_rule: &to_rule,
                closing,
            },
        )
        .map_err(|error| error.to_string())
    }

    fn on_critic(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let closing = self.closing;
        let call_id = call.call_id();
        let read = match self.read_critic(output, closing) {
            Ok(read) => read,
            Err(error) => {
                return match self.repair(call, output, error, now) {
                    Ok(effects) => effects,
                    // The critic is required (A18): no fabricated result.
                    Err(reason) => self.fail(now, reason),
                };
            }
        };
        let Read { value, notes } = read;
        let mut answer = value;
        if let Some(assessment) = &answer.assessment {
            let hedged = hedge::hedges(&assessment.recommendation);
            if !hedged.is_empty() {
                let problem = format!(
                    "assessment.recommendation uses hedge words ({}); state what the evidence shows without them, or leave the recommendation out",
                    hedged.join(", ")
                );
                if !call.repaired {
                    return match self.repair(call, output, problem, now) {
                        Ok(effects) => effects,
                        Err(reason) => self.fail(now, reason),
                    };
                }
                // RC-16: a hedged recommendation is refused, not repaired twice.
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    format!("the critic's recommendation is left out: {problem}"),
                );
                self.assessment_refused = Some(format!(
                    "the critic's recommendation used hedge words ({}) and was refused",
                    hedged.join(", ")
                ));
                answer.assessment = None;
            }
        }
        self.keep(&call, output, notes, now);
        for left_out in &answer.left_out {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!("left out {left_out}"),
            );
        }
        if let Some(assessment) = answer.assessment.take() {
            self.assessment = Some(assessment);
            self.assessment_refused = None;
        }
        self.take_rulings(&answer);
        if !closing {
            self.take_challenges(&answer);
        }
        self.log(
            now,
            LogKind::Note,
            Some(&call_id),
            format!(
                "critic: {}, {}",
                count(answer.rulings.len(), "ruling", "rulings"),
                count(answer.challenges.len(), "new challenge", "new challenges")
            ),
        );
        self.open_moderation(now)
    }

    fn take_rulings(&mut self, answer: &CriticAnswer) {
        let (round, closing) = (self.round, self.closing);
        for (id, text) in &answer.rulings {
            let Some(challenge) = self.challenge_mut(id) else {
                continue;
            };
            challenge.rulings.push(Ruling {
                round,
                closing,
                text: text.clone(),
                moderation: None,
            });
            let index = challenge.rulings.len() - 1;
            let challenge = challenge.clone();
            let owner = self.owner_of(&challenge);
            self.items.push(
                ruling_item(&challenge, &owner),
                ItemSubject::Ruling {
                    challenge: id.clone(),
                    index,
                },
                round,
            );
        }
    }

    fn take_challenges(&mut self, answer: &CriticAnswer) {
        let round = self.round;
        for (hypothesis, text) in &answer.challenges {
            let number = hypothesis.trim_start_matches(['H', 'h']);
            let count = self.challenges_of(hypothesis).count();
            let challenge = Challenge {
                id: format!("X{number}.{}", count + 1),
                hypothesis: hypothesis.clone(),
                round,
                text: text.clone(),
                state: ChallengeState::Proposed,
                moderation: Vec::new(),
                delivered_in: Vec::new(),
                answers: Vec::new(),
                misses: Vec::new(),
                rulings: Vec::new(),
            };
            self.items.push(
                challenge_item(&challenge),
                ItemSubject::Challenge(challenge.id.clone()),
                round,
            );
            self.push_challenge(challenge);
        }
        // Challenges held back at an earlier moderation are offered again.
        for challenge in &mut self.challenges {
            if challenge.state == ChallengeState::Held {
                challenge.state = ChallengeState::Proposed;
                self.items.reoffer(&challenge.id, round);
            }
        }
    }

    // ---- moderation ----------------------------------------------------

    fn open_moderation(&mut self, now: Timestamp) -> Vec<Effect> {
        let pending = self.items.pending_items();
        if pending.is_empty() {
            return self.after_moderation(now);
        }
        self.enter(Step::Moderation, now);
        let challenges = self
            .items
            .pending()
            .filter(|record| matches!(record.subject, ItemSubject::Challenge(_)))
            .count();
        let rulings = pending.len() - challenges;
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "needs moderator: {} to deliver, hold back or drop; {} to uphold, overturn or send back",
                count(challenges, "challenge", "challenges"),
                count(rulings, "ruling", "rulings")
            ),
        );
        vec![Effect::AwaitModeration { items: pending }]
    }

    fn on_item_decided(
        &mut self,
        item_id: &str,
        decision: ItemDecision,
        note: Option<&str>,
        now: Timestamp,
    ) -> Vec<Effect> {
        let open = self.step == Step::Moderation;
        self.items.decide(
            &mut self.calls,
            now,
            open,
            (item_id, decision, note),
            |subject, decision| match (subject, decision) {
                (ItemSubject::Challenge(_), ItemDecision::Accept) => "to be delivered",
                (ItemSubject::Challenge(_), ItemDecision::Reject) => "dropped",
                (ItemSubject::Challenge(_), ItemDecision::Defer) => "held back",
                (ItemSubject::Ruling { .. }, ItemDecision::Accept) => "ruling upheld",
                (ItemSubject::Ruling { .. }, ItemDecision::Reject) => "ruling overturned",
                (ItemSubject::Ruling { .. }, ItemDecision::Defer) => {
                    "ruling sent back to the critic"
                }
            },
        );
        Vec::new()
    }

    fn on_moderation_submitted(&mut self, now: Timestamp) -> Vec<Effect> {
        if self.step != Step::Moderation {
            return Vec::new();
        }
        let Some(decided) = self.items.submit(&mut self.calls, now) else {
            return Vec::new();
        };
        let round = self.round;
        let counts = super::items::tally(&decided);
        for (subject, decision, note) in decided {
            let moderated = Moderated {
                round,
                decision,
                note,
            };
            match subject {
                ItemSubject::Challenge(id) => {
                    if let Some(challenge) = self.challenge_mut(&id) {
                        challenge.state = match decision {
                            ItemDecision::Accept => ChallengeState::Open,
                            ItemDecision::Reject => ChallengeState::Withdrawn,
                            ItemDecision::Defer => ChallengeState::Held,
                        };
                        challenge.moderation.push(moderated);
                    }
                }
                ItemSubject::Ruling {
                    challenge: id,
                    index,
                } => {
                    if let Some(challenge) = self.challenge_mut(&id)
                        && let Some(ruling) = challenge.rulings.get_mut(index)
                    {
                        ruling.moderation = Some(moderated);
                        if let Some(word) = ruling.effective() {
                            challenge.state = match word {
                                RulingWord::Resolved => ChallengeState::Resolved,
                                RulingWord::Unresolved => ChallengeState::Open,
                                RulingWord::Contradicted => ChallengeState::Contradicted,
                            };
                        }
                    }
                }
            }
        }
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "moderation submitted: {} accepted or upheld, {} dropped or overturned, {} held back or sent back",
                counts[0], counts[1], counts[2]
            ),
        );
        self.after_moderation(now)
    }

    /// After a round's rulings and challenges are settled: stop if every
    /// hypothesis is settled, else put the open challenges to their owners.
    fn after_moderation(&mut self, now: Timestamp) -> Vec<Effect> {
        let unsettled: Vec<&str> = self
            .hypotheses
            .iter()
            .filter(|h| self.settled(&h.id).is_none())
            .map(|h| h.id.as_str())
            .collect();
        if unsettled.is_empty() {
            return self.finish(
                now,
                format!(
                    "every hypothesis SURVIVED or was ELIMINATED by round {} of {MAX_ROUNDS}",
                    self.round
                ),
            );
        }
        if self.closing {
            return self.finish(
                now,
                format!(
                    "round {MAX_ROUNDS} ended with {} still unsettled",
                    unsettled.join(", ")
                ),
            );
        }
        self.start_answers(now)
    }

    // ---- the debuggers' answers -----------------------------------------

    /// The open challenges of `owner`, in the order they were raised.
    fn open_challenges_of(&self, owner: &str) -> Vec<&Challenge> {
        self.challenges
            .iter()
            .filter(|challenge| challenge.state == ChallengeState::Open)
            .filter(|challenge| self.owner_of(challenge) == owner)
            .collect()
    }

    fn start_answers(&mut self, now: Timestamp) -> Vec<Effect> {
        let round = self.round;
        let owners: Vec<String> = self
            .config
            .debuggers
            .iter()
            .filter(|name| !self.open_challenges_of(name).is_empty())
            .cloned()
            .collect();
        if owners.is_empty() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("round {round}: no challenge is open, so no debugger is asked"),
            );
            return self.next_round(now);
        }
        self.enter(Step::Answers, now);
        let mut effects = Vec::new();
        for name in owners {
            let ids: Vec<String> = self
                .open_challenges_of(&name)
                .iter()
                .map(|challenge| challenge.id.clone())
                .collect();
            for id in &ids {
                if let Some(challenge) = self.challenge_mut(id)
                    && !challenge.delivered_in.contains(&round)
                {
                    challenge.delivered_in.push(round);
                }
            }
            let context = self.answers_prompt(&name);
            let slot = debugger_slot(&name);
            let file = documents::round_file(round, &slot, "answers");
            match self.start_call(&prompts::ANSWERS, context, &slot, file, now) {
                Ok(effect) => {
                    self.log(
                        now,
                        LogKind::Note,
                        None,
                        format!("to {name} only: {}", ids.join(", ")),
                    );
                    self.awaiting.insert(name);
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        effects
    }

    /// What a debugger is shown: its own hypotheses and the challenges put
    /// to it, and no one else's (RC-04).
    fn answers_prompt(&self, name: &str) -> serde_json::Value {
        let hypotheses: Vec<serde_json::Value> = self
            .hypotheses
            .iter()
            .filter(|h| h.owner == name)
            .map(|h| {
                json!({
                    "id": h.id,
                    "claim": h.finding.claim,
                    "evidence": h.finding.evidence,
                    "reasoning": h.finding.reasoning,
                })
            })
            .collect();
        let challenges: Vec<serde_json::Value> = self
            .open_challenges_of(name)
            .into_iter()
            .map(|challenge| {
                let claim = self
                    .hypothesis(&challenge.hypothesis)
                    .map(|h| h.finding.claim.clone())
                    .unwrap_or_default();
                let last_ruling = challenge.rulings.last().map(|ruling| {
                    json!({
                        "round": ruling.round,
                        "reason": ruling.text.reason,
                        "missing": ruling.text.missing,
                        "evidence_needed": ruling.text.evidence_needed,
                        "alternative": ruling.text.alternative,
                    })
                });
                json!({
                    "id": challenge.id,
                    "hypothesis": challenge.hypothesis,
                    "claim": claim,
                    "test": challenge.text.test.as_str(),
                    "test_question": challenge.text.test.question(),
                    "critical": challenge.text.critical,
                    "quote": challenge.text.quote,
                    "why": challenge.text.why,
                    "evidence_needed": challenge.text.evidence_needed,
                    "alternative": challenge.text.alternative,
                    "previous": challenge.answers.iter().map(|a| json!({"round": a.round, "answer": a.text.answer})).collect::<Vec<_>>(),
                    "last_ruling": last_ruling,
                })
            })
            .collect();
        json!({
            "problem": self.config.topic,
            "context": self.config.context,
            "debugger": name,
            "round": self.round,
            "max_rounds": MAX_ROUNDS,
            "hypotheses": hypotheses,
            "challenges": challenges,
            "rulings": self.rulings_of(name),
        })
    }

    /// The rulings section of the critic's prompt (issue 26): the
    /// moderator's latest word on every challenge it raised (delivered,
    /// dropped or held back) and on every ruling it made (upheld,
    /// overturned or sent back), by item id (`X2.1`, `X2.1-r3`).
    fn moderator_rulings(&self) -> String {
        use crate::rulings::{Ruled, Ruling};
        let mut order: Vec<String> = Vec::new();
        let mut latest: HashMap<String, Ruling> = HashMap::new();
        for record in self.items.records().iter().filter(|r| r.settled) {
            let Some(decision) = record.decision else {
                continue;
            };
            let ruled = Ruled::from(decision);
            let id = record.item.id.clone();
            if !latest.contains_key(&id) {
                order.push(id.clone());
            }
            latest.insert(id.clone(), Ruling::new(id, ruled, record.note.as_deref()));
        }
        let rulings: Vec<Ruling> = order.iter().filter_map(|id| latest.remove(id)).collect();
        crate::rulings::section(&rulings)
    }

    /// The rulings section of `name`'s answers prompt (issue 26): the
    /// challenges the moderator accepted and put to it this round, with
    /// the moderator's note, as what it must answer. A dropped or held
    /// challenge never reaches its owner, so it is not named (RC-04).
    fn rulings_of(&self, name: &str) -> String {
        use crate::rulings::{Ruled, Ruling};
        let rulings: Vec<Ruling> = self
            .open_challenges_of(name)
            .into_iter()
            .map(|challenge| {
                let note = challenge
                    .moderation
                    .last()
                    .and_then(|moderated| moderated.note.as_deref());
                Ruling::new(challenge.id.clone(), Ruled::Accepted, note)
            })
            .collect();
        crate::rulings::section(&rulings)
    }

    fn on_answers(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let name = debugger_name(&call.slot.role).to_string();
        let delivered: Vec<String> = self
            .open_challenges_of(&name)
            .iter()
            .map(|challenge| challenge.id.clone())
            .collect();
        let refs: Vec<&str> = delivered.iter().map(String::as_str).collect();
        match parse::read_answers(output, &refs) {
            Ok(Read { value, notes }) => {
                self.keep(&call, output, notes, now);
                let round = self.round;
                let mut conceded = Vec::new();
                for (id, text) in &value {
                    let hedges: Vec<String> = hedge::hedges(&text.answer)
                        .into_iter()
                        .map(str::to_string)
                        .collect();
                    if !hedges.is_empty() {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(&call.call_id()),
                            format!(
                                "hedge words flagged in {name}'s answer to {id}: {}",
                                hedges.join(", ")
                            ),
                        );
                    }
                    if text.concede {
                        conceded.push(id.clone());
                    }
                    if let Some(challenge) = self.challenge_mut(id) {
                        challenge.state = if text.concede {
                            ChallengeState::Conceded
                        } else {
                            ChallengeState::Answered
                        };
                        challenge.answers.push(Answer {
                            round,
                            text: text.clone(),
                            hedges,
                        });
                    }
                }
                let answered: HashSet<&str> = value.iter().map(|(id, _)| id.as_str()).collect();
                let omitted: Vec<String> = delivered
                    .iter()
                    .filter(|id| !answered.contains(id.as_str()))
                    .cloned()
                    .collect();
                for id in &omitted {
                    if let Some(challenge) = self.challenge_mut(id) {
                        challenge.misses.push(Miss {
                            round,
                            kind: MissKind::Omitted,
                            reason: String::new(),
                        });
                    }
                }
                let mut message = format!("{name}: {} answered", value.len() - conceded.len());
                if !conceded.is_empty() {
                    message.push_str(&format!(", conceded {}", conceded.join(", ")));
                }
                if !omitted.is_empty() {
                    message.push_str(&format!(", left out {}", omitted.join(", ")));
                }
                self.log(now, LogKind::Note, Some(&call.call_id()), message);
            }
            Err(error) => match self.repair(call.clone(), output, error.to_string(), now) {
                Ok(effects) => return effects,
                Err(reason) => self.missed_all(&name, &reason, now),
            },
        }
        self.awaiting.remove(&name);
        self.conclude_answers_if_complete(now)
    }

    /// Every challenge put to `name` this round went unanswered, through
    /// no choice of its owner: its hypotheses stay active.
    fn missed_all(&mut self, name: &str, reason: &str, now: Timestamp) {
        let round = self.round;
        let ids: Vec<String> = self
            .open_challenges_of(name)
            .iter()
            .map(|challenge| challenge.id.clone())
            .collect();
        for id in &ids {
            if let Some(challenge) = self.challenge_mut(id) {
                challenge.misses.push(Miss {
                    round,
                    kind: MissKind::Failed,
                    reason: reason.to_string(),
                });
            }
        }
        self.log(
            now,
            LogKind::Skip,
            None,
            format!(
                "{name} gave no usable answer in round {round} ({reason}); {} stay open and its hypotheses active",
                ids.join(", ")
            ),
        );
    }

    fn conclude_answers_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.awaiting.is_empty() {
            return Vec::new();
        }
        self.next_round(now)
    }

    /// The next round, or after the last one the closing ruling of what
    /// is still unruled.
    fn next_round(&mut self, now: Timestamp) -> Vec<Effect> {
        if self.round < MAX_ROUNDS {
            self.round += 1;
            return self.start_challenge(now);
        }
        let to_rule = self
            .challenges
            .iter()
            .any(|challenge| challenge.state == ChallengeState::Answered);
        if to_rule {
            return self.start_closing(now);
        }
        self.finish(
            now,
            format!("round {MAX_ROUNDS} ended with nothing left to rule"),
        )
    }

    // ---- the end ---------------------------------------------------------

    fn finish(&mut self, now: Timestamp, stopped: String) -> Vec<Effect> {
        self.stopped = Some(stopped.clone());
        self.enter(Step::Done, now);
        self.log(
            now,
            LogKind::Note,
            None,
            format!("the analysis stops: {stopped}"),
        );
        self.statuses = self
            .hypotheses
            .iter()
            .map(|h| {
                let derived = status::final_status_among(&h.id, self.challenges_of(&h.id));
                (h.id.clone(), derived)
            })
            .collect();
        self.places.statuses = self
            .statuses
            .iter()
            .enumerate()
            .map(|(place, (id, _))| (id.clone(), place))
            .collect();
        for (_, derived) in self.statuses.clone() {
            self.log(now, LogKind::Verdict, None, derived.rule);
        }
        match self.start_restate(now) {
            Some(effects) => effects,
            None => self.conclude(now),
        }
    }

    /// The hedge words of `id`'s claim as first written (RC-10).
    fn claim_hedges(&self, id: &str) -> Vec<String> {
        self.hypothesis(id)
            .map(|h| hedge::hedges(&h.finding.claim))
            .unwrap_or_default()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// RC-16: when the one survivor's claim hedges, asks its owner once to
    /// restate it without the hedge. `None` when nothing is to be asked.
    fn start_restate(&mut self, now: Timestamp) -> Option<Vec<Effect>> {
        if self.restatement.is_some() || !self.config.restates_hedged_claims {
            return None;
        }
        let id = status::conclude(&self.statuses).root_cause?;
        let hedges = self.claim_hedges(&id);
        if hedges.is_empty() {
            return None;
        }
        let hypothesis = self.hypothesis(&id)?.clone();
        self.restatement = Some(Restatement {
            hypothesis: id.clone(),
            hedges: hedges.clone(),
            claim: None,
            still_hedged: Vec::new(),
            failed: None,
        });
        self.enter(Step::Restate, now);
        self.log(
            now,
            LogKind::Note,
            None,
            format!(
                "{id} survived alone, but its claim says {}: asking {} once to restate it without hedge words",
                status::quoted_words(&hedges),
                hypothesis.owner
            ),
        );
        let resolved: Vec<serde_json::Value> = self
            .challenges_of(&id)
            .filter(|c| c.state == ChallengeState::Resolved)
            .map(|c| {
                json!({
                    "id": c.id,
                    "test": c.text.test.as_str(),
                    "answer": c.answers.last().map(|a| a.text.answer.clone()).unwrap_or_default(),
                })
            })
            .collect();
        let context = json!({
            "problem": self.config.topic,
            "debugger": hypothesis.owner,
            "hypothesis": {
                "id": hypothesis.id,
                "claim": hypothesis.finding.claim,
                "evidence": hypothesis.finding.evidence,
                "reasoning": hypothesis.finding.reasoning,
            },
            "hedges": hedges,
            "resolved": resolved,
            "hedge_words": hedge::HEDGE_WORDS,
        });
        let slot = debugger_slot(&hypothesis.owner);
        let file = documents::round_file(self.round, &slot, "restate");
        Some(
            match self.start_call(&prompts::RESTATE, context, &slot, file, now) {
                Ok(effect) => vec![effect],
                Err(failed) => failed,
            },
        )
    }

    fn on_restate(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        match parse::read_restatement(output) {
            Ok(Read { value, notes }) => {
                self.keep(&call, output, notes, now);
                let still: Vec<String> = hedge::hedges(&value)
                    .into_iter()
                    .map(str::to_string)
                    .collect();
                let message = if still.is_empty() {
                    format!("restated without hedge words: {}", one_line(&value))
                } else {
                    format!(
                        "the restatement still says {}: {}",
                        status::quoted_words(&still),
                        one_line(&value)
                    )
                };
                self.log(now, LogKind::Note, Some(&call.call_id()), message);
                if let Some(restatement) = &mut self.restatement {
                    restatement.claim = Some(value);
                    restatement.still_hedged = still;
                }
            }
            Err(error) => match self.repair(call.clone(), output, error.to_string(), now) {
                Ok(effects) => return effects,
                Err(reason) => self.restate_failed(reason, now),
            },
        }
        self.step = Step::Done;
        self.conclude(now)
    }

    fn restate_failed(&mut self, reason: String, now: Timestamp) {
        self.log(
            now,
            LogKind::Skip,
            None,
            format!("no restatement without hedge words: {reason}"),
        );
        if let Some(restatement) = &mut self.restatement {
            restatement.failed = Some(reason);
        }
    }

    /// The verdict, from the statuses and the restatement when there was
    /// one (RC-15, RC-16).
    fn conclude(&mut self, now: Timestamp) -> Vec<Effect> {
        let conclusion = match &self.restatement {
            Some(restatement) => status::bound_by_hedges(
                status::conclude(&self.statuses),
                &restatement.hedges,
                Some(restatement),
            ),
            None => status::conclude(&self.statuses),
        };
        self.log(
            now,
            LogKind::Verdict,
            None,
            format!("{}: {}", conclusion.verdict, conclusion.rule),
        );
        let outcome = Outcome::Decided {
            verdict: conclusion.verdict,
            rule: conclusion.rule.clone(),
        };
        self.conclusion = Some(conclusion);
        self.outcome = Some(outcome.clone());
        // RC-17: the critic's work is done.
        self.log(
            now,
            LogKind::Note,
            None,
            "critic: final assessment delivered; task completed".into(),
        );
        vec![Effect::Finished(outcome)]
    }

    // ---- routing ---------------------------------------------------------

    fn on_answer(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        if let Some(path) = &call.raw_output_path {
            self.raw_files.insert(path.clone(), output.to_string());
        }
        match (self.step, call.slot.role.as_str()) {
            (Step::Findings, _) => self.on_findings(call, output, now),
            (Step::Challenge | Step::Ruling, CRITIC) => self.on_critic(call, output, now),
            (Step::Answers, _) => self.on_answers(call, output, now),
            (Step::Restate, _) => self.on_restate(call, output, now),
            _ => Vec::new(),
        }
    }

    fn on_gave_up(&mut self, call: LiveCall, reason: String, now: Timestamp) -> Vec<Effect> {
        let role = call.slot.role.clone();
        match self.step {
            Step::Findings => {
                let name = debugger_name(&role).to_string();
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call.call_id()),
                    format!("{name} presents no hypotheses: {reason}"),
                );
                self.awaiting.remove(&name);
                self.conclude_findings_if_complete(now)
            }
            Step::Answers => {
                let name = debugger_name(&role).to_string();
                self.missed_all(&name, &reason, now);
                self.awaiting.remove(&name);
                self.conclude_answers_if_complete(now)
            }
            Step::Restate => {
                self.restate_failed(format!("the call failed ({reason})"), now);
                self.step = Step::Done;
                self.conclude(now)
            }
            // The critic is required (A18).
            _ => self.fail(
                now,
                format!(
                    "the {role} gave no answer in the {} stage, even after a retry ({reason})",
                    call.slot.stage
                ),
            ),
        }
    }

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
                    OverrideAction::Rerun => {
                        "re-run ignored: a root-cause analysis holds no round of judges"
                    }
                    _ => "override ignored: the call is not live",
                };
                self.log(now, LogKind::Note, Some(call_id), what.into());
                Vec::new()
            }
            Input::ItemResolved { item_id, .. } => {
                let message = format!(
                    "ignored a resolution of {item_id}: a held-back challenge is an open question of the analysis, not an item to settle later"
                );
                self.log(now, LogKind::Note, None, message);
                Vec::new()
            }
            Input::Reopened => {
                self.log(
                    now,
                    LogKind::Note,
                    None,
                    "reopen ignored: a root-cause analysis is not reopened".into(),
                );
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// The stages; the restatement only when one was asked for.
    fn stages(&self) -> Vec<StageInfo> {
        let mut steps = Step::ALL.to_vec();
        if self.restatement.is_some() {
            steps.insert(steps.len() - 1, Step::Restate);
        }
        steps
            .iter()
            .map(|step| StageInfo::new(step.id(), step.title(), step.focus()))
            .collect()
    }

    /// One row of the hypotheses board.
    fn board_row(&self, hypothesis: &Hypothesis) -> super::Ruling {
        let derived = self.status_of(&hypothesis.id);
        let mine: Vec<&Challenge> = self.challenges_of(&hypothesis.id).collect();
        let count = |states: &[ChallengeState]| {
            mine.iter()
                .filter(|challenge| states.contains(&challenge.state))
                .count()
                .to_string()
        };
        let mut facts = vec![
            Fact::new("owner", &hypothesis.owner),
            Fact::new(
                "open",
                &count(&[
                    ChallengeState::Open,
                    ChallengeState::Proposed,
                    ChallengeState::Held,
                ]),
            ),
            Fact::new("answered", &count(&[ChallengeState::Answered])),
            Fact::new("resolved", &count(&[ChallengeState::Resolved])),
            Fact::new("evidence", &hypothesis.finding.evidence.len().to_string()),
        ];
        let mut hedges: Vec<String> = hypothesis.hedges.iter().map(|h| h.to_string()).collect();
        for challenge in &mine {
            for answer in &challenge.answers {
                for word in &answer.hedges {
                    if !hedges.contains(word) {
                        hedges.push(word.clone());
                    }
                }
            }
        }
        if !hedges.is_empty() {
            facts.push(Fact::warning("hedges", &hedges.join(", ")));
        }
        let rule = match &derived {
            Some(derived) => derived.rule.clone(),
            None => {
                let pending: Vec<String> = mine
                    .iter()
                    .filter(|c| {
                        !matches!(
                            c.state,
                            ChallengeState::Resolved | ChallengeState::Withdrawn
                        )
                    })
                    .map(|c| format!("{} {}", c.id, c.state.as_str()))
                    .collect();
                if pending.is_empty() {
                    "active".to_string()
                } else {
                    format!("active: {}", pending.join(", "))
                }
            }
        };
        super::Ruling {
            subject: hypothesis.id.clone(),
            title: one_line(&hypothesis.finding.claim),
            word: derived.as_ref().map(|d| d.status.as_str().to_string()),
            tone: derived.as_ref().map(|d| d.status.tone()),
            rule,
            facts,
        }
    }
}

/// The ids a critic's answer is read against.
struct CriticIds {
    hypotheses: Vec<String>,
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

/// `alpha` of `debugger.alpha`.
pub fn debugger_name(slot: &str) -> &str {
    slot.strip_prefix("debugger.").unwrap_or(slot)
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

/// A delivered challenge, as the critic sees it in later rounds.
fn challenge_json(challenge: &Challenge) -> serde_json::Value {
    json!({
        "id": challenge.id,
        "test": challenge.text.test.as_str(),
        "critical": challenge.text.critical,
        "quote": challenge.text.quote,
        "evidence_needed": challenge.text.evidence_needed,
        "state": challenge.state.as_str(),
        "answers": challenge.answers.iter().map(|a| json!({
            "round": a.round,
            "concede": a.text.concede,
            "answer": a.text.answer,
            "evidence": a.text.evidence,
            "hedges": a.hedges,
        })).collect::<Vec<_>>(),
        "rulings": challenge.rulings.iter().map(|r| json!({
            "round": r.round,
            "ruling": r.text.ruling.as_str(),
            "reason": r.text.reason,
            "moderator": r.moderation.as_ref().map(|m| m.decision.past_tense()),
        })).collect::<Vec<_>>(),
    })
}

/// A challenge as the moderator sees it before it is delivered.
fn challenge_item(challenge: &Challenge) -> ModerationItem {
    ModerationItem {
        id: challenge.id.clone(),
        target: challenge.hypothesis.clone(),
        severity: if challenge.text.critical {
            "critical".into()
        } else {
            "normal".into()
        },
        category: challenge.text.test.as_str().to_string(),
        text: format!(
            "{}\n\nWhy: {}\nWould settle it: {}\nRule out: {}",
            challenge.text.quote.trim(),
            challenge.text.why.trim(),
            challenge.text.evidence_needed.trim(),
            challenge.text.alternative.trim()
        ),
        preface: String::new(),
        suggestion: None,
    }
}

/// The critic's latest ruling on a challenge's answer, as the moderator
/// sees it: the answer first, then the ruling. Accept upholds it, reject
/// overturns it, defer sends it back to the critic.
fn ruling_item(challenge: &Challenge, owner: &str) -> ModerationItem {
    let ruling = challenge.rulings.last();
    let answer = challenge.answers.last();
    let mut text = match answer {
        Some(answer) => format!(
            "{owner} answered (round {}): {}",
            answer.round,
            one_line(&answer.text.answer)
        ),
        None => format!("{owner} gave no answer"),
    };
    if let Some(ruling) = ruling {
        text.push_str(&format!(
            "\nRuled {}: {}",
            ruling.text.ruling.as_str(),
            ruling.text.reason.trim()
        ));
        if ruling.text.ruling == RulingWord::Unresolved {
            text.push_str(&format!(
                "\nMissing: {}\nWould settle it: {}\nRule out: {}",
                ruling.text.missing.trim(),
                ruling.text.evidence_needed.trim(),
                ruling.text.alternative.trim()
            ));
        }
    }
    ModerationItem {
        id: ruling.map_or_else(|| challenge.id.clone(), |r| r.item_id(&challenge.id)),
        target: challenge.hypothesis.clone(),
        severity: ruling.map_or("", |r| r.text.ruling.as_str()).to_string(),
        category: "ruling".into(),
        text,
        preface: String::new(),
        suggestion: None,
    }
}

impl Protocol for Rca {
    fn start(&mut self, now: Timestamp) -> Vec<Effect> {
        let message = format!(
            "root-cause analysis ({} debuggers, a critic, up to {MAX_ROUNDS} rounds): {}",
            self.config.debuggers.len(),
            self.config.topic
        );
        self.log(now, LogKind::Note, None, message);
        if !self.hypotheses.is_empty() {
            let listed: Vec<String> = self
                .hypotheses
                .iter()
                .map(|h| format!("{} by {}", h.id, h.owner))
                .collect();
            self.log(
                now,
                LogKind::Note,
                None,
                format!("from the hypotheses file: {}", listed.join(", ")),
            );
        }
        self.start_findings(now)
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
                mut effects,
                ..
            } => {
                effects.extend(self.on_gave_up(call, reason, now));
                effects
            }
            Routed::Protocol(input) => self.handle_own(input, now),
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            stage: self.step.id().to_string(),
            round: self.round,
            max_round: MAX_ROUNDS,
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
        let mut roles: Vec<RoleInfo> = self
            .config
            .debuggers
            .iter()
            .map(|name| {
                let slot = debugger_slot(name);
                RoleInfo {
                    agent: self.calls.agent(&slot).unwrap_or_default().to_string(),
                    title: format!("Debugger {name}"),
                    slot,
                    group: RoleGroup::Lead,
                    binding: false,
                }
            })
            .collect();
        roles.push(RoleInfo {
            slot: CRITIC.into(),
            title: "Critic".into(),
            group: RoleGroup::Challenger,
            agent: self.calls.agent(CRITIC).unwrap_or_default().to_string(),
            binding: false,
        });
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
                    a stated rule, and the root cause is proven only when exactly one survives."
                .into(),
            ending_note: "quorum derived each status from what happened to its challenges; the \
                          root cause is proven only when exactly one hypothesis SURVIVED."
                .into(),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary_lead(self)
    }

    fn usage(&self) -> Option<&UsageLedger> {
        Some(self.calls.usage())
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
            needs_moderator: self.step == Step::Moderation && self.outcome.is_none(),
            required_roles: vec![CRITIC.to_string()],
            ..Board::default()
        }
    }

    fn check_answer(&self, call_id: &str, answer: &str) -> Result<(), String> {
        let Some(call) = self.calls.live_call(call_id) else {
            return Err(format!("{call_id} is not waiting for an answer"));
        };
        match call.slot.stage.as_str() {
            "findings" => parse::read_findings(answer)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            "challenge" => self.read_critic(answer, false).map(|_| ()),
            "ruling" => self.read_critic(answer, true).map(|_| ()),
            "restate" => parse::read_restatement(answer)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            "answers" => {
                let name = debugger_name(&call.slot.role);
                let ids: Vec<String> = self
                    .open_challenges_of(name)
                    .iter()
                    .map(|challenge| challenge.id.clone())
                    .collect();
                let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                parse::read_answers(answer, &refs)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
            _ => Ok(()),
        }
    }

    fn answer_template(&self, call_id: &str) -> Option<String> {
        let call = self.calls.live_call(call_id)?;
        Some(match call.slot.stage.as_str() {
            "findings" => documents::FINDINGS_TEMPLATE.to_string(),
            "restate" => "```yaml\nclaim: \"\"\n```\n".to_string(),
            "answers" => {
                let name = debugger_name(&call.slot.role);
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

/// The statuses `challenges` give `hypotheses` at the end, and the root
/// cause: what `quorum verdict DIR` recomputes from `rca.yaml`.
pub fn assess(
    hypotheses: &[String],
    challenges: &[Challenge],
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
            (id.clone(), status::final_status_among(id, mine))
        })
        .collect();
    let conclusion = status::conclude(&statuses);
    (statuses, conclusion)
}
