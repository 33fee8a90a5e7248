//! The five-phase council (RULES.md section 10, FP-01..FP-55, A20..A24):
//! domain experts, a devil's advocate and an integration checker look at
//! one scope on their own, quorum publishes what they found, the devil's
//! advocate attacks it, the findings that survive are merged and
//! confirmed, and PASS, CONCERNS or FAIL follows mechanically.
//!
//! How a council goes:
//!
//! 1. **Independent** (Phase 1). Every participant at once, the same scope,
//!    the same neutral task and the material, nobody's output (FP-14,
//!    FP-18). Findings in JSON (FP-16).
//! 2. **Publication** (Phase 2). quorum numbers the findings `F001…` in
//!    roster order and puts the whole list into every later prompt (FP-20,
//!    FP-21).
//! 3. **Challenge rounds** (Phase 3, standard and thorough). The devil's
//!    advocate challenges (every CRITICAL or HIGH finding it did not bring
//!    must be challenged once; an omission is logged, FP-24, A22); the
//!    moderator delivers, holds back or drops each challenge (FP-29); each
//!    delivered challenge goes to its target only (FP-26), who answers with
//!    one of the six response types (FP-27); every other participant is
//!    asked in the same round, with no challenge, and may corroborate,
//!    cross-challenge, discover or propose a merge (FP-23). Rounds stop after
//!    `max_rounds`, or after a round that delivered no challenge (A22), or
//!    when the budget would not leave room for the final positions (A20).
//! 4. **Synthesis** (Phase 4, standard and thorough). quorum proposes
//!    merges: overlapping descriptions (Jaccard > 0.70) and participants'
//!    merge proposals. The origins agree or not in their final positions.
//! 5. **Final positions** (Phase 5). Every participant gives its stance on
//!    every finding and its word on the merges that touch its own; quorum
//!    applies the agreed merges, confirms by weighted share (A21), keeps
//!    the dissent (FP-38) and derives the verdict (A23).
//!
//! Brainstorm and design run Diverge → Expand → Challenge → Converge →
//! Handoff over proposals `P001…` instead, and end with a handoff, not a
//! verdict (FP-43..FP-48). Fallback (a flag, or a devil's advocate that
//! gave no Phase 1 answer) skips phases 3 and 4 and is marked (FP-42, A24).
//!
//! A participant whose Phase 1 call is given up (timed out twice, or
//! skipped by the moderator) is out of the council: it is not asked again
//! and does not count in the shares. Malformed answers are kept with a
//! MALFORMED marker, excluded and never retried.
//!
//! Not responsible for I/O, timers or retries: every answer here was
//! journaled and written to its file before it was read.

mod board;
mod brainstorm;
pub mod documents;
pub mod domains;
pub mod kind;
pub mod model;
pub mod packets;
pub mod parse;
pub mod prompts;
pub mod rulings;
pub mod verdict;

pub use kind::{KIND, NAME};

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::model::{
    CHECKER, Challenge, ChallengeState, CouncilMode, DEVIL, Finding, FindingText, Handoff,
    Intensity, MergeCandidate, Moderated, Params, Positions, Preset, Proposal, ProposalStatus,
    ProposalText, Response, ResponseKind, SYNTHESIZER, Severity, SeverityChange, expert_slot,
    participant_title,
};
use self::packets::{Exchange, PacketKind};
use self::parse::ChallengeText;
use self::verdict::{Assessment, ProposalOutcome};
use super::calls::{Calls, Routed};
use super::items::ItemBook;
use super::supervision::{LiveCall, Slot};
use super::usage::{Price, UsageLedger};
use super::{
    Board, ContextDoc, Description, Document, Effect, Input, ItemDecision, LogEntry, LogKind,
    ModerationItem, Outcome, OverrideAction, Progress, Protocol, Publication, RegionInfo,
    RoleGroup, RoleInfo, Timestamp,
};
use crate::parse::readings_line;
use crate::prompts::{PromptSet, TemplateSpec};
use crate::report::one_line;

/// Everything that defines one council. Journaled as the first event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CouncilConfig {
    /// What is reviewed, researched or designed (`review_scope`).
    pub topic: String,
    /// The material in scope, given to every participant.
    #[serde(default)]
    pub context: Vec<ContextDoc>,
    pub review_id: String,
    pub mode: CouncilMode,
    /// One expert per domain, in this order.
    pub domains: Vec<String>,
    pub intensity: Intensity,
    pub preset: Preset,
    /// Phases 3 and 4 skipped on request (FP-42).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fallback: bool,
    /// The neutral task statement every participant gets (FP-15).
    pub context_summary: String,
    /// Always `minimal-non-leading` (FP-05, FP-18).
    pub context_policy: String,
    /// Where the deliverable pair goes: `{outputs}/debate/` (FP-52).
    pub outputs: String,
    pub agents: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, Price>,
    pub started_at: Timestamp,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold_for_moderator: bool,
    /// Answers are held to the moderator's rulings (issue 26): one that
    /// goes against them is asked about once more, and a round that
    /// delivers a challenge asks every other participant too (FP-23).
    /// Every council started now does; one journaled before (the field
    /// absent) folds as it ran, so resuming or replaying it never starts a
    /// call it never had.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub binds_rulings: bool,
}

impl CouncilConfig {
    /// Every participant slot: the experts in domain order, the integration
    /// checker, then the devil's advocate (FP-13).
    pub fn participants(&self) -> Vec<String> {
        self.domains
            .iter()
            .map(|domain| expert_slot(domain))
            .chain([CHECKER.to_string(), DEVIL.to_string()])
            .collect()
    }

    /// The budget in calls (FP-09, A20).
    pub fn budget(&self) -> u32 {
        self.intensity.budget(self.domains.len() + 2)
    }

    pub fn params(&self) -> Params {
        self.preset.params()
    }
}

/// Where a council is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Independent,
    Expand,
    Challenge,
    Moderation,
    Responses,
    Final,
    Handoff,
    Done,
}

impl Step {
    pub fn id(self) -> &'static str {
        match self {
            Step::Independent => "independent",
            Step::Expand => "expand",
            Step::Challenge => "challenge",
            Step::Moderation => "moderation",
            Step::Responses => "responses",
            Step::Final => "final",
            Step::Handoff => "handoff",
            Step::Done => "done",
        }
    }

    /// Every stage id a council can be in, for scripts.
    pub const IDS: [&'static str; 7] = [
        "independent",
        "expand",
        "challenge",
        "moderation",
        "responses",
        "final",
        "handoff",
    ];
}

/// One answer quorum kept, as it was written before it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    pub call_id: String,
    pub role: String,
    pub stage: String,
    pub round: u32,
    pub file: String,
    pub raw: String,
    /// Why it could not be used: kept with a MALFORMED marker, excluded.
    pub malformed: Option<String>,
    pub normalised: Vec<String>,
    pub at: Timestamp,
}

/// What happened in one challenge round, for the record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRecord {
    pub round: u32,
    /// Grave findings the devil's advocate had to challenge this round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mandatory: Vec<String>,
    /// Those it left unchallenged (FP-24, A22: logged, not retried).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub raised: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delivered: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discovered: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withdrawn: Vec<String>,
}

/// One moderation item (a challenge before delivery, by its id) and its
/// decision.
pub type ItemRecord = super::items::ItemRecord<String>;

/// A running council.
pub struct Council {
    config: CouncilConfig,
    prompts: Arc<PromptSet>,
    calls: Calls,
    step: Step,
    round: u32,
    participants: Vec<String>,
    /// Participants given up in Phase 1: not asked again (see the module).
    out: BTreeSet<String>,
    findings: Vec<Finding>,
    proposals: Vec<Proposal>,
    /// Phase 1 answers in so far, by participant, before they are numbered.
    findings_in: BTreeMap<String, Vec<(Severity, FindingText)>>,
    proposals_in: BTreeMap<String, Vec<ProposalText>>,
    /// The ids each participant wrote on its Phase 1 items, to say which
    /// board id each became.
    written_ids: BTreeMap<String, Vec<String>>,
    awaiting: BTreeSet<String>,
    challenges: Vec<Challenge>,
    responses: Vec<Response>,
    merge_candidates: Vec<MergeCandidate>,
    positions: Positions,
    handoff: Option<Handoff>,
    submissions: Vec<Submission>,
    rounds: Vec<RoundRecord>,
    items: ItemBook<String>,
    /// Why the council runs without phases 3 and 4, when it does.
    fallback: Option<String>,
    budget_exhausted: Option<String>,
    /// Why the challenge rounds stopped.
    stopped: Option<String>,
    assessment: Option<Assessment>,
    proposal_outcomes: Vec<ProposalOutcome>,
    exchange: Exchange,
    outcome: Option<Outcome>,
    places: Places,
    /// Where an answer still went against the moderator's rulings after it
    /// was asked once more, for the deliverable.
    against_rulings: Vec<String>,
}

/// Where each finding, proposal and challenge stands in its list, and the
/// highest number each sequence of ids has reached: a lookup by id, and
/// the next id, cost the same however large the inventory has grown.
#[derive(Default)]
struct Places {
    findings: HashMap<String, usize>,
    proposals: HashMap<String, usize>,
    challenges: HashMap<String, usize>,
    last_finding: u32,
    last_proposal: u32,
    /// Every pair of findings proposed for a merge, the lesser id first.
    merge_pairs: HashSet<(String, String)>,
}

/// A pair of ids in one order whichever way it was written.
fn unordered(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

impl Council {
    pub fn new(config: CouncilConfig, prompts: Arc<PromptSet>) -> Self {
        let calls = Calls::new(config.agents.clone(), config.prices.clone());
        let participants = config.participants();
        let fallback = config
            .fallback
            .then(|| "fallback requested (--fallback)".to_string());
        let exchange = Exchange::new(&config);
        Council {
            config,
            prompts,
            calls,
            step: Step::Independent,
            round: 0,
            participants,
            out: BTreeSet::new(),
            findings: Vec::new(),
            proposals: Vec::new(),
            findings_in: BTreeMap::new(),
            proposals_in: BTreeMap::new(),
            written_ids: BTreeMap::new(),
            awaiting: BTreeSet::new(),
            challenges: Vec::new(),
            responses: Vec::new(),
            merge_candidates: Vec::new(),
            positions: Positions::new(),
            handoff: None,
            submissions: Vec::new(),
            rounds: Vec::new(),
            items: ItemBook::default(),
            fallback,
            budget_exhausted: None,
            stopped: None,
            assessment: None,
            proposal_outcomes: Vec::new(),
            exchange,
            outcome: None,
            places: Places::default(),
            against_rulings: Vec::new(),
        }
    }

    pub fn config(&self) -> &CouncilConfig {
        &self.config
    }
    pub fn step(&self) -> Step {
        self.step
    }
    pub fn round(&self) -> u32 {
        self.round
    }
    pub fn participants(&self) -> &[String] {
        &self.participants
    }
    /// Participants taking part now (not given up in Phase 1).
    pub fn present(&self) -> Vec<String> {
        self.participants
            .iter()
            .filter(|p| !self.out.contains(*p))
            .cloned()
            .collect()
    }
    pub fn out(&self) -> &BTreeSet<String> {
        &self.out
    }
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }
    pub fn proposals(&self) -> &[Proposal] {
        &self.proposals
    }
    pub fn challenges(&self) -> &[Challenge] {
        &self.challenges
    }
    pub fn responses(&self) -> &[Response] {
        &self.responses
    }
    pub fn merge_candidates(&self) -> &[MergeCandidate] {
        &self.merge_candidates
    }
    pub fn positions(&self) -> &Positions {
        &self.positions
    }
    pub fn handoff(&self) -> Option<&Handoff> {
        self.handoff.as_ref()
    }
    pub fn submissions(&self) -> &[Submission] {
        &self.submissions
    }
    pub fn rounds(&self) -> &[RoundRecord] {
        &self.rounds
    }
    pub fn items(&self) -> &[ItemRecord] {
        self.items.records()
    }
    pub fn fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }
    pub fn budget_exhausted(&self) -> Option<&str> {
        self.budget_exhausted.as_deref()
    }
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }
    pub fn assessment(&self) -> Option<&Assessment> {
        self.assessment.as_ref()
    }
    pub fn proposal_outcomes(&self) -> &[ProposalOutcome] {
        &self.proposal_outcomes
    }
    /// Where answers still went against the moderator's rulings after
    /// being asked once more: `role: what`.
    pub fn against_rulings(&self) -> &[String] {
        &self.against_rulings
    }
    pub fn exchange(&self) -> &Exchange {
        &self.exchange
    }
    pub fn calls(&self) -> &Calls {
        &self.calls
    }

    /// Calls made so far, retries included (A20).
    pub fn budget_used(&self) -> u32 {
        self.calls
            .log()
            .iter()
            .filter(|entry| entry.kind == LogKind::CallStarted)
            .count() as u32
    }

    fn proposes(&self) -> bool {
        self.config.mode.proposes()
    }

    /// Calls the closing phases need: a final position per participant,
    /// and a brainstorm's handoff.
    fn reserve(&self) -> u32 {
        self.present().len() as u32 + u32::from(self.proposes())
    }

    /// Whether `calls` more still leave room for the closing phases.
    fn affords(&self, calls: u32) -> bool {
        self.budget_used() + calls + self.reserve() <= self.config.budget()
    }

    fn debating(&self) -> bool {
        self.fallback.is_none() && self.config.intensity.max_rounds() > 0
    }

    pub fn finding(&self, id: &str) -> Option<&Finding> {
        self.places
            .findings
            .get(id)
            .map(|&place| &self.findings[place])
    }

    fn finding_mut(&mut self, id: &str) -> Option<&mut Finding> {
        let place = *self.places.findings.get(id)?;
        self.findings.get_mut(place)
    }

    pub fn proposal(&self, id: &str) -> Option<&Proposal> {
        self.places
            .proposals
            .get(id)
            .map(|&place| &self.proposals[place])
    }

    fn proposal_mut(&mut self, id: &str) -> Option<&mut Proposal> {
        let place = *self.places.proposals.get(id)?;
        self.proposals.get_mut(place)
    }

    fn challenge(&self, id: &str) -> Option<&Challenge> {
        self.places
            .challenges
            .get(id)
            .map(|&place| &self.challenges[place])
    }

    fn challenge_mut(&mut self, id: &str) -> Option<&mut Challenge> {
        let place = *self.places.challenges.get(id)?;
        self.challenges.get_mut(place)
    }

    /// The id the next finding takes: `F007` after `F006`.
    fn next_finding_id(&self) -> String {
        verdict::id_after(self.places.last_finding, 'F')
    }

    /// The id the next proposal takes: `P004` after `P003`.
    fn next_proposal_id(&self) -> String {
        verdict::id_after(self.places.last_proposal, 'P')
    }

    fn push_finding(&mut self, finding: Finding) {
        if let Some(number) = verdict::id_number(&finding.id, 'F') {
            self.places.last_finding = self.places.last_finding.max(number);
        }
        self.places
            .findings
            .entry(finding.id.clone())
            .or_insert(self.findings.len());
        self.findings.push(finding);
    }

    fn push_proposal(&mut self, proposal: Proposal) {
        if let Some(number) = verdict::id_number(&proposal.id, 'P') {
            self.places.last_proposal = self.places.last_proposal.max(number);
        }
        self.places
            .proposals
            .entry(proposal.id.clone())
            .or_insert(self.proposals.len());
        self.proposals.push(proposal);
    }

    /// Proposes `candidate` for a merge unless its pair already is.
    fn propose_merge(&mut self, candidate: MergeCandidate) {
        let [a, b] = &candidate.findings;
        if self.places.merge_pairs.insert(unordered(a, b)) {
            self.merge_candidates.push(candidate);
        }
    }

    fn push_challenge(&mut self, challenge: Challenge) {
        self.places
            .challenges
            .entry(challenge.id.clone())
            .or_insert(self.challenges.len());
        self.challenges.push(challenge);
    }

    /// The ids still in the debate: active findings, or proposals not
    /// retired.
    pub fn open_ids(&self) -> Vec<String> {
        if self.proposes() {
            self.proposals
                .iter()
                .filter(|p| !p.status.retired())
                .map(|p| p.id.clone())
                .collect()
        } else {
            self.findings
                .iter()
                .filter(|f| f.active())
                .map(|f| f.id.clone())
                .collect()
        }
    }

    /// Who brought `id`.
    fn origins_of(&self, id: &str) -> Vec<String> {
        if let Some(finding) = self.finding(id) {
            finding.origins.clone()
        } else if let Some(proposal) = self.proposal(id) {
            vec![proposal.origin.clone()]
        } else {
            Vec::new()
        }
    }

    fn log(&mut self, now: Timestamp, kind: LogKind, call_id: Option<&str>, message: String) {
        self.calls.push_log(now, kind, call_id, message);
    }

    fn enter(&mut self, step: Step, now: Timestamp) {
        self.step = step;
        let message = match step {
            Step::Challenge | Step::Moderation | Step::Responses => format!(
                "stage: {} (round {} of {})",
                step.id(),
                self.round,
                self.config.intensity.max_rounds()
            ),
            _ => format!("stage: {}", step.id()),
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

    /// Renders `template` for `role` and starts the call, its answer
    /// written to `file` before it is read; the packet it carries and the
    /// envelope that delivers it are issued first (FP-49..FP-51).
    fn start_call(
        &mut self,
        template: &TemplateSpec,
        mut context: serde_json::Value,
        role: &str,
        packet: PacketKind,
        file: String,
        now: Timestamp,
    ) -> Result<Effect, Vec<Effect>> {
        let finding_ids: Vec<String> = self.findings.iter().map(|f| f.id.clone()).collect();
        let proposal_ids: Vec<String> = self.proposals.iter().map(|p| p.id.clone()).collect();
        let packet = self.exchange.packet(
            &self.config,
            packet,
            role,
            self.round,
            &finding_ids,
            &proposal_ids,
            &file,
        );
        context["packet"] = pretty(packet);
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

    /// Keeps an answer that was read.
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
        self.exchange.response(
            &call.slot.role,
            call.slot.round,
            call.raw_output_path.as_deref().unwrap_or_default(),
            &call_id,
        );
        self.submissions.push(Submission {
            call_id,
            role: call.slot.role.clone(),
            stage: call.slot.stage.clone(),
            round: call.slot.round,
            file: call.raw_output_path.clone().unwrap_or_default(),
            raw: raw.to_string(),
            malformed: None,
            normalised,
            at: now,
        });
    }

    /// Keeps an answer that could not be read: on disk with a MALFORMED
    /// marker, excluded, not retried.
    fn malformed(&mut self, call: &LiveCall, raw: &str, reason: String, now: Timestamp) {
        let call_id = call.call_id();
        self.log(
            now,
            LogKind::Malformed,
            Some(&call_id),
            format!(
                "{}'s {} answer is malformed ({reason}); kept with a MALFORMED marker, excluded, not retried",
                call.slot.role, call.slot.stage
            ),
        );
        self.submissions.push(Submission {
            call_id,
            role: call.slot.role.clone(),
            stage: call.slot.stage.clone(),
            round: call.slot.round,
            file: call.raw_output_path.clone().unwrap_or_default(),
            raw: raw.to_string(),
            malformed: Some(reason),
            normalised: Vec::new(),
            at: now,
        });
    }

    /// The inventory as every later prompt carries it (FP-21).
    fn inventory(&self) -> serde_json::Value {
        if self.proposes() {
            let proposals: Vec<serde_json::Value> = self
                .proposals
                .iter()
                .map(|p| {
                    json!({
                        "id": p.id,
                        "origin": p.origin,
                        "status": p.status.as_str(),
                        "title": p.text.title,
                        "summary": p.text.summary,
                        "rationale": p.text.rationale,
                        "proposal_type": p.text.proposal_type.as_str(),
                        "maturity": p.text.maturity.as_str(),
                        "tradeoffs": p.text.tradeoffs,
                        "dependencies": p.text.dependencies,
                        "open_questions": p.text.open_questions,
                        "risks": p.text.risks,
                        "lineage": p.text.lineage,
                        "expansions": p.expansions,
                    })
                })
                .collect();
            return json!(proposals);
        }
        let findings: Vec<serde_json::Value> = self
            .findings
            .iter()
            .map(|f| {
                json!({
                    "id": f.id,
                    "origin": f.origins.join(", "),
                    "severity": f.severity.as_str(),
                    "title": f.text.title,
                    "description": f.text.description,
                    "evidence": f.text.evidence,
                    "recommendation": f.text.recommendation,
                    "domains": f.text.domains,
                    "discovered": f.discovered,
                    "withdrawn": f.withdrawn,
                    "merged_into": f.merged_into,
                })
            })
            .collect();
        json!(findings)
    }

    /// What every prompt shares: who this is, the task and the material.
    fn base_context(&self, role: &str) -> serde_json::Value {
        let domain = role.strip_prefix("expert.").unwrap_or_default();
        let found = domains::find(domain);
        json!({
            "role": role,
            "title": participant_title(role),
            "structural": role == DEVIL || role == CHECKER,
            "devil": role == DEVIL,
            "checker": role == CHECKER,
            "domain": domain,
            "focus": found.map(|d| d.focus).unwrap_or_default(),
            "standards": found.map(|d| d.standards).unwrap_or_default(),
            "task": self.config.context_summary,
            "scope": self.config.topic,
            "domains": self.config.domains,
            "mode": self.config.mode.as_str(),
            "task_context": self.config.mode.context().as_str(),
            "context": self.config.context,
            "participants": self.present(),
            "proposes": self.proposes(),
        })
    }

    /// The rulings section over `challenges` and what each was about, into
    /// a prompt's context (`rulings`, `ruled_challenges`).
    fn put_rulings<'a>(
        &self,
        context: &mut serde_json::Value,
        challenges: impl IntoIterator<Item = &'a Challenge>,
    ) {
        let (section, about) = rulings::context(challenges);
        context["rulings"] = json!(section);
        context["ruled_challenges"] = pretty(about);
    }

    /// Asks `call`'s agent once more, naming `discrepancies` with the
    /// moderator's rulings, when it has not been asked again yet; the call
    /// to start, or `None` (then the caller keeps the answer and records
    /// what still disagrees with [`Self::still_against`]).
    fn ask_again(
        &mut self,
        call: &LiveCall,
        output: &str,
        discrepancies: &[String],
        now: Timestamp,
    ) -> Option<Effect> {
        if discrepancies.is_empty() || call.rechecked || !self.config.binds_rulings {
            return None;
        }
        self.log(
            now,
            LogKind::Note,
            Some(&call.call_id()),
            format!(
                "{}'s {} answer goes against the moderator's rulings: {}",
                call.slot.role,
                call.slot.stage,
                discrepancies.join("; ")
            ),
        );
        let prompts = Arc::clone(&self.prompts);
        self.calls
            .recheck(
                call.clone(),
                output,
                discrepancies,
                (prompts.as_ref(), &crate::prompts::RECHECK_TEMPLATE),
                now,
            )
            .map(Effect::StartCall)
    }

    /// Records what still goes against the rulings once the one extra
    /// call is spent: logged, and stated in the deliverable.
    fn still_against(&mut self, call: &LiveCall, discrepancies: Vec<String>, now: Timestamp) {
        if !self.config.binds_rulings {
            return;
        }
        for discrepancy in discrepancies {
            let line = format!("{}: {discrepancy}", call.slot.role);
            self.log(
                now,
                LogKind::Note,
                Some(&call.call_id()),
                format!("still against the moderator's rulings after asking again: {line}"),
            );
            self.against_rulings.push(line);
        }
    }

    // ---- Phase 1 ---------------------------------------------------------

    fn start_independent(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Independent, now);
        let mut effects = Vec::new();
        for role in self.participants.clone() {
            let mut context = self.base_context(&role);
            context["draft_prefix"] = json!(draft_prefix(&role));
            let file = documents::independent_file(&role);
            let template = if self.proposes() {
                &prompts::DIVERGE
            } else {
                &prompts::INDEPENDENT
            };
            match self.start_call(template, context, &role, PacketKind::Discovery, file, now) {
                Ok(effect) => {
                    self.awaiting.insert(role);
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        effects
    }

    fn on_independent(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let role = call.slot.role.clone();
        let domain = role.strip_prefix("expert.").unwrap_or_default().to_string();
        if self.proposes() {
            match parse::read_proposals(output) {
                Ok(read) => {
                    self.keep(&call, output, read.notes, now);
                    self.log(
                        now,
                        LogKind::Note,
                        Some(&call.call_id()),
                        format!(
                            "{role}: {}",
                            count(read.value.len(), "proposal", "proposals")
                        ),
                    );
                    self.proposals_in.insert(role.clone(), read.value);
                    self.written_ids
                        .insert(role.clone(), parse::written_ids(output, "proposals"));
                }
                Err(error) => self.malformed(&call, output, error.to_string(), now),
            }
        } else {
            match parse::read_findings(output, &domain) {
                Ok(read) => {
                    self.keep(&call, output, read.notes, now);
                    self.log(
                        now,
                        LogKind::Note,
                        Some(&call.call_id()),
                        format!("{role}: {}", count(read.value.len(), "finding", "findings")),
                    );
                    self.findings_in.insert(role.clone(), read.value);
                    self.written_ids
                        .insert(role.clone(), parse::written_ids(output, "findings"));
                }
                Err(error) => self.malformed(&call, output, error.to_string(), now),
            }
        }
        self.awaiting.remove(&role);
        self.after_independent(now)
    }

    fn after_independent(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.awaiting.is_empty() {
            return Vec::new();
        }
        self.publish(now)
    }

    /// Phase 2: numbers what came in, in roster order, and publishes it.
    fn publish(&mut self, now: Timestamp) -> Vec<Effect> {
        self.log(now, LogKind::Stage, None, "stage: publication".into());
        let mut renamed: Vec<String> = Vec::new();
        for role in self.participants.clone() {
            let mut board_ids: Vec<String> = Vec::new();
            if self.proposes() {
                for text in self.proposals_in.remove(&role).unwrap_or_default() {
                    let id = self.next_proposal_id();
                    board_ids.push(id.clone());
                    self.push_proposal(Proposal {
                        id,
                        origin: role.clone(),
                        text,
                        status: ProposalStatus::Proposed,
                        stage: "diverge".into(),
                        expansions: Vec::new(),
                        withdrawn: None,
                    });
                }
            } else {
                for (severity, text) in self.findings_in.remove(&role).unwrap_or_default() {
                    board_ids.push(self.add_finding(&role, severity, text, false));
                }
            }
            let written = self.written_ids.remove(&role).unwrap_or_default();
            let pairs: Vec<String> = written
                .iter()
                .zip(&board_ids)
                .filter(|(written, board)| !written.is_empty() && written != board)
                .map(|(written, board)| format!("{} → {board}", one_line(written)))
                .collect();
            if !pairs.is_empty() {
                renamed.push(format!("{role}: {}", pairs.join(", ")));
            }
        }
        // The ids the participants wrote in Phase 1 were their own; from
        // here on every prompt and board uses the board's.
        if !renamed.is_empty() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!(
                    "board ids given to what each participant numbered itself: {}",
                    renamed.join("; ")
                ),
            );
        }
        let listed: Vec<String> = if self.proposes() {
            self.proposals
                .iter()
                .map(|p| format!("{} by {}", p.id, p.origin))
                .collect()
        } else {
            self.findings
                .iter()
                .map(|f| format!("{} {} by {}", f.id, f.severity, f.origins.join(", ")))
                .collect()
        };
        let what = if self.proposes() {
            "proposal"
        } else {
            "finding"
        };
        let message = if listed.is_empty() {
            format!("no participant brought a {what}; nothing to publish")
        } else {
            format!(
                "published {} to every participant: {}",
                count(listed.len(), what, &format!("{what}s")),
                listed.join(", ")
            )
        };
        self.log(now, LogKind::Note, None, message);
        self.exchange.broadcast(
            &self.present(),
            &self.open_ids(),
            if self.proposes() {
                "proposal_packet"
            } else {
                "context_packet"
            },
        );
        if self.out.contains(DEVIL) && self.fallback.is_none() && self.debating() {
            self.fallback = Some(
                "the devil's advocate gave no Phase 1 answer and cannot take follow-up rounds"
                    .into(),
            );
            self.log(
                now,
                LogKind::Note,
                None,
                "fallback: phases 3 and 4 are skipped, because the devil's advocate cannot take follow-up rounds".into(),
            );
        }
        if self.open_ids().is_empty() {
            return self.start_final(now);
        }
        if self.proposes() && self.debating() {
            return self.start_expand(now);
        }
        if self.debating() {
            self.round = 1;
            return self.start_round(now);
        }
        self.start_final(now)
    }

    fn add_finding(
        &mut self,
        origin: &str,
        severity: Severity,
        text: FindingText,
        discovered: bool,
    ) -> String {
        let id = self.next_finding_id();
        self.push_finding(Finding {
            id: id.clone(),
            origins: vec![origin.to_string()],
            severity,
            reported_severity: severity,
            text,
            discovered,
            round: if discovered { self.round } else { 0 },
            severity_changes: Vec::new(),
            withdrawn: None,
            merged_from: Vec::new(),
            merged_into: None,
        });
        id
    }

    fn add_proposal(&mut self, origin: &str, text: ProposalText, stage: &str) -> String {
        let id = self.next_proposal_id();
        // A proposal built from others retires them (FP-47).
        let lineage = text.lineage.clone();
        for merged in &lineage.merged_from {
            if let Some(p) = self.proposal_mut(merged) {
                p.status = ProposalStatus::Merged;
            }
        }
        for replaced in &lineage.supersedes {
            if let Some(p) = self.proposal_mut(replaced) {
                p.status = ProposalStatus::Superseded;
            }
        }
        // A part split off a proposal retires the whole (FP-43, FP-47).
        for whole in &lineage.split_from {
            if let Some(p) = self.proposal_mut(whole) {
                p.status = ProposalStatus::Split;
            }
        }
        self.push_proposal(Proposal {
            id: id.clone(),
            origin: origin.to_string(),
            text,
            status: ProposalStatus::Proposed,
            stage: stage.to_string(),
            expansions: Vec::new(),
            withdrawn: None,
        });
        id
    }

    // ---- Phase 3 ---------------------------------------------------------

    /// Grave findings the devil's advocate must challenge: CRITICAL or
    /// HIGH, active, not its own, never challenged by it (FP-24).
    pub fn mandatory(&self) -> Vec<String> {
        if self.proposes() {
            return Vec::new();
        }
        let challenged: HashSet<&str> = self
            .challenges
            .iter()
            .filter(|c| {
                c.from == DEVIL
                    && !matches!(
                        c.state,
                        ChallengeState::Dropped | ChallengeState::Undelivered
                    )
            })
            .map(|c| c.finding_id.as_str())
            .collect();
        self.findings
            .iter()
            .filter(|f| f.active() && f.severity.is_grave() && !f.from_origin(DEVIL))
            .filter(|f| !challenged.contains(f.id.as_str()))
            .map(|f| f.id.clone())
            .collect()
    }

    fn exhaust(&mut self, now: Timestamp, when: &str) {
        if self.budget_exhausted.is_some() {
            return;
        }
        let reason = format!(
            "budget exhausted in round {} {when}: {} of {} calls used, {} kept for the closing phases",
            self.round,
            self.budget_used(),
            self.config.budget(),
            self.reserve()
        );
        self.log(now, LogKind::Note, None, reason.clone());
        self.budget_exhausted = Some(reason);
    }

    fn start_round(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.affords(1) {
            self.exhaust(now, "before the devil's advocate was asked");
            return self.end_rounds(now, "the budget ran out".into());
        }
        self.enter(Step::Challenge, now);
        let mandatory = self.mandatory();
        self.rounds.push(RoundRecord {
            round: self.round,
            mandatory: mandatory.clone(),
            ..RoundRecord::default()
        });
        let mut context = self.base_context(DEVIL);
        context["round"] = json!(self.round);
        context["max_rounds"] = json!(self.config.intensity.max_rounds());
        context["inventory"] = pretty(self.inventory());
        context["mandatory"] = json!(mandatory);
        context["history"] = pretty(self.history());
        self.put_rulings(&mut context, self.challenges.iter());
        let file = documents::round_file(self.round, DEVIL);
        match self.start_call(
            &prompts::DEVIL_ROUND,
            context,
            DEVIL,
            PacketKind::Challenge,
            file,
            now,
        ) {
            Ok(effect) => vec![effect],
            Err(failed) => failed,
        }
    }

    /// The challenges and responses so far, for later prompts.
    fn history(&self) -> serde_json::Value {
        let mut answers_to: HashMap<&str, Vec<&Response>> = HashMap::new();
        for response in &self.responses {
            let mut answered: HashSet<&str> = HashSet::new();
            for id in &response.answers {
                if answered.insert(id.as_str()) {
                    answers_to.entry(id.as_str()).or_default().push(response);
                }
            }
        }
        let challenges: Vec<serde_json::Value> = self
            .challenges
            .iter()
            .filter(|c| c.state.delivered())
            .map(|c| {
                let answers: Vec<serde_json::Value> = answers_to
                    .get(c.id.as_str())
                    .into_iter()
                    .flatten()
                    .map(|r| json!({"by": r.by, "type": r.kind.as_str(), "response": r.text, "evidence": r.evidence}))
                    .collect();
                json!({
                    "id": c.id,
                    "round": c.round,
                    "from": c.from,
                    "to": c.to,
                    "finding_id": c.finding_id,
                    "challenge": c.challenge,
                    "severity_challenge": c.severity_challenge,
                    "state": c.state.as_str(),
                    "answers": answers,
                })
            })
            .collect();
        let others: Vec<serde_json::Value> = self
            .responses
            .iter()
            .filter(|r| r.answers.is_empty())
            .map(|r| json!({"by": r.by, "round": r.round, "type": r.kind.as_str(), "finding_id": r.finding_id, "response": r.text}))
            .collect();
        json!({"challenges": challenges, "other_responses": others})
    }

    fn on_devil(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let open = self.open_ids();
        let refs: Vec<&str> = open.iter().map(String::as_str).collect();
        let read = match parse::read_devil(output, &refs, self.proposes()) {
            Ok(read) => read,
            Err(error) => {
                self.malformed(&call, output, error.to_string(), now);
                return self.open_moderation(now);
            }
        };
        self.keep(&call, output, read.notes, now);
        let call_id = call.call_id();
        let answer = read.value;
        for left in &answer.left_out {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!("left out {left}"),
            );
        }
        let round = self.round;
        let mut raised = Vec::new();
        for text in answer.challenges {
            if let Some(id) = self.raise(DEVIL, text, round, &call_id, now) {
                raised.push(id);
            }
        }
        let mut discovered = Vec::new();
        for (severity, text) in answer.discoveries {
            discovered.push(self.add_finding(DEVIL, severity, text, true));
        }
        for text in answer.proposals {
            discovered.push(self.add_proposal(DEVIL, text, "challenge"));
        }
        let mandatory = self
            .rounds
            .last()
            .map(|r| r.mandatory.clone())
            .unwrap_or_default();
        let challenged_now: HashSet<&str> = self
            .challenges
            .iter()
            .filter(|c| c.round == round && c.from == DEVIL)
            .map(|c| c.finding_id.as_str())
            .collect();
        let omitted: Vec<String> = mandatory
            .iter()
            .filter(|id| !challenged_now.contains(id.as_str()))
            .cloned()
            .collect();
        for id in &omitted {
            let severity = self.finding(id).map(|f| f.severity.as_str()).unwrap_or("");
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!(
                    "the devil's advocate left {id} ({severity}) unchallenged though it must challenge every CRITICAL and HIGH finding it did not bring; logged, not asked again"
                ),
            );
        }
        if let Some(record) = self.rounds.last_mut() {
            record.omitted = omitted;
            record.raised.extend(raised.iter().cloned());
            record.discovered.extend(discovered.iter().cloned());
        }
        self.log(
            now,
            LogKind::Note,
            Some(&call_id),
            format!(
                "devil's advocate: {}, {}",
                count(raised.len(), "challenge", "challenges"),
                count(discovered.len(), "discovery", "discoveries")
            ),
        );
        self.open_moderation(now)
    }

    /// Records a challenge of `text.finding_id` by `from`, addressed to
    /// the participant it names when that one can take it, else to the
    /// finding's origin (FP-26). `None` when it cannot be raised.
    fn raise(
        &mut self,
        from: &str,
        text: ChallengeText,
        round: u32,
        call_id: &str,
        now: Timestamp,
    ) -> Option<String> {
        let origins = self.origins_of(&text.finding_id);
        if origins.iter().any(|o| o == from) {
            self.log(
                now,
                LogKind::Note,
                Some(call_id),
                format!(
                    "left out {from}'s challenge of {}: it is its own",
                    text.finding_id
                ),
            );
            return None;
        }
        let named = self.participant_named(&text.to);
        let to = match named {
            Some(to) if to != from && !self.out.contains(&to) => to,
            _ => {
                let Some(origin) = origins.iter().find(|o| !self.out.contains(*o)).cloned() else {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "left out the challenge of {}: its origin is out of the council",
                            text.finding_id
                        ),
                    );
                    return None;
                };
                if !text.to.is_empty() && named.is_none() {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "a challenge of {} names {}, who is not in the council; addressed to its origin {origin}",
                            text.finding_id,
                            crate::parse::quote(&text.to)
                        ),
                    );
                }
                origin
            }
        };
        let current = self
            .finding(&text.finding_id)
            .map(|f| f.severity)
            .unwrap_or(Severity::Info);
        let proposed_severity = text
            .proposed_severity
            .filter(|s| *s != current)
            .or_else(|| Severity::argued_in(&text.severity_challenge, current))
            .filter(|_| !self.proposes());
        let id = format!("C{}", self.challenges.len() + 1);
        let challenge = Challenge {
            id: id.clone(),
            finding_id: text.finding_id,
            from: from.to_string(),
            to,
            round,
            challenge: text.challenge,
            severity_challenge: text.severity_challenge,
            proposed_severity,
            basis: text.basis,
            state: ChallengeState::Proposed,
            moderation: Vec::new(),
            delivered_in: None,
            undelivered: None,
        };
        self.items
            .push(self.challenge_item(&challenge), id.clone(), round);
        self.push_challenge(challenge);
        Some(id)
    }

    /// The participant `written` names: a slot, or a domain's expert.
    fn participant_named(&self, written: &str) -> Option<String> {
        let written = written.trim().to_ascii_lowercase();
        if written.is_empty() {
            return None;
        }
        let candidates = [
            written.clone(),
            expert_slot(&written),
            written.replace(' ', "-"),
            written.replace(['_', ' '], "-"),
        ];
        self.participants
            .iter()
            .find(|p| candidates.contains(*p))
            .cloned()
    }

    fn challenge_item(&self, challenge: &Challenge) -> ModerationItem {
        let (severity, title) = match self.finding(&challenge.finding_id) {
            Some(f) => (f.severity.as_str().to_string(), f.text.title.clone()),
            None => match self.proposal(&challenge.finding_id) {
                Some(p) => (
                    p.text.proposal_type.as_str().to_string(),
                    p.text.title.clone(),
                ),
                None => (String::new(), String::new()),
            },
        };
        let mut text = challenge.challenge.trim().to_string();
        if !challenge.severity_challenge.is_empty() {
            text.push_str(&format!(
                "\n\nSeverity: {}",
                challenge.severity_challenge.trim()
            ));
        }
        text.push_str(&format!(
            "\n\nOn {} ({severity}): {}\nFrom {} to {}.",
            challenge.finding_id,
            one_line(&title),
            challenge.from,
            challenge.to
        ));
        if challenge.basis.is_none() {
            text.push_str(
                "\nNo basis stated: a valid challenge names a missing assumption, an alternative explanation or a case where the finding does not apply. Reject it if it gives no reason.",
            );
        }
        ModerationItem {
            id: challenge.id.clone(),
            target: challenge.finding_id.clone(),
            severity,
            category: challenge
                .basis
                .map_or("no basis stated", |basis| basis.as_str())
                .to_string(),
            text,
            preface: String::new(),
            suggestion: None,
        }
    }

    // ---- moderation --------------------------------------------------------

    fn open_moderation(&mut self, now: Timestamp) -> Vec<Effect> {
        // Challenges held back earlier are offered again.
        let round = self.round;
        let held: Vec<String> = self
            .challenges
            .iter()
            .filter(|c| c.state == ChallengeState::Held)
            .map(|c| c.id.clone())
            .collect();
        for id in held {
            if let Some(challenge) = self.challenge_mut(&id) {
                challenge.state = ChallengeState::Proposed;
            }
            self.items.reoffer(&id, round);
        }
        let pending = self.items.pending_items();
        if pending.is_empty() {
            return self.deliver(now);
        }
        self.enter(Step::Moderation, now);
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "needs moderator: {} to deliver, hold back or drop",
                count(pending.len(), "challenge", "challenges")
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
            |_, decision| match decision {
                ItemDecision::Accept => "to be delivered",
                ItemDecision::Reject => "dropped as no challenge",
                ItemDecision::Defer => "held back",
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
        for (id, decision, note) in decided {
            if let Some(challenge) = self.challenge_mut(&id) {
                challenge.moderation.push(Moderated {
                    round,
                    decision,
                    note,
                });
                challenge.state = match decision {
                    // Delivered below, budget permitting.
                    ItemDecision::Accept => ChallengeState::Proposed,
                    ItemDecision::Reject => ChallengeState::Dropped,
                    ItemDecision::Defer => ChallengeState::Held,
                };
            }
        }
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "moderation submitted: {} to deliver, {} dropped, {} held back",
                counts[0], counts[1], counts[2]
            ),
        );
        self.deliver(now)
    }

    /// Puts every accepted challenge to its target, and to no one else
    /// (FP-26), as far as the budget allows.
    fn deliver(&mut self, now: Timestamp) -> Vec<Effect> {
        let round = self.round;
        let ready: Vec<String> = self
            .challenges
            .iter()
            .filter(|c| {
                c.state == ChallengeState::Proposed
                    && c.moderation
                        .last()
                        .is_some_and(|m| m.decision == ItemDecision::Accept)
            })
            .map(|c| c.id.clone())
            .collect();
        let mut targets: Vec<String> = Vec::new();
        let mut ready_for: HashMap<String, Vec<String>> = HashMap::new();
        for id in &ready {
            let to = self.challenge(id).map(|c| c.to.clone()).unwrap_or_default();
            let mine = ready_for.entry(to.clone()).or_default();
            if mine.is_empty() {
                targets.push(to);
            }
            mine.push(id.clone());
        }
        targets.sort_by_key(|t| self.participants.iter().position(|p| p == t));
        if !targets.is_empty() {
            self.enter(Step::Responses, now);
        }
        let mut effects = Vec::new();
        for target in targets {
            let mine: Vec<String> = ready_for.remove(&target).unwrap_or_default();
            if !self.affords(1) {
                self.exhaust(now, &format!("before {target} could answer"));
                for id in &mine {
                    if let Some(c) = self.challenge_mut(id) {
                        c.state = ChallengeState::Undelivered;
                        c.undelivered = Some("the budget ran out".into());
                    }
                }
                continue;
            }
            for id in &mine {
                let envelope = if let Some(c) = self.challenge_mut(id) {
                    c.state = ChallengeState::Delivered;
                    c.delivered_in = Some(round);
                    Some(c.clone())
                } else {
                    None
                };
                if let Some(c) = envelope {
                    self.exchange.challenge(&c, round);
                }
            }
            if let Some(record) = self.rounds.last_mut() {
                record.delivered.extend(mine.iter().cloned());
            }
            let mut context = self.base_context(&target);
            context["round"] = json!(round);
            context["max_rounds"] = json!(self.config.intensity.max_rounds());
            context["inventory"] = pretty(self.inventory());
            let mine_set: HashSet<&str> = mine.iter().map(String::as_str).collect();
            context["challenges"] = pretty(json!(
                self.challenges
                    .iter()
                    .filter(|c| mine_set.contains(c.id.as_str()))
                    .map(|c| json!({
                        "type": "challenge",
                        "id": c.id,
                        "from": c.from,
                        "to": c.to,
                        "finding_id": c.finding_id,
                        "challenge": c.challenge,
                        "severity_challenge": c.severity_challenge,
                        "basis": c.basis.map(|b| b.as_str()),
                    }))
                    .collect::<Vec<_>>()
            ));
            context["own"] = json!(
                self.open_ids()
                    .into_iter()
                    .filter(|id| self.origins_of(id).contains(&target))
                    .collect::<Vec<_>>()
            );
            context["addressed"] = json!(true);
            self.put_rulings(
                &mut context,
                self.challenges
                    .iter()
                    .filter(|c| mine_set.contains(c.id.as_str())),
            );
            let file = documents::round_file(round, &target);
            self.log(
                now,
                LogKind::Note,
                None,
                format!("to {target} only: {}", mine.join(", ")),
            );
            match self.start_call(
                &prompts::RESPOND,
                context,
                &target,
                PacketKind::Challenge,
                file,
                now,
            ) {
                Ok(effect) => {
                    self.awaiting.insert(target);
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        if effects.is_empty() {
            return self.end_round(now);
        }
        match self.ask_bystanders(round, now) {
            Ok(more) => effects.extend(more),
            Err(failed) => return failed,
        }
        effects
    }

    /// FP-23, FP-27: once a challenge is delivered in a round, every other
    /// participant but the devil's advocate is asked as well, with no
    /// challenge of its own (FP-26 still holds: it sees none), so it can
    /// corroborate, cross-challenge, report a discovery or propose a
    /// merge, as far as the budget leaves room for the final positions.
    fn ask_bystanders(&mut self, round: u32, now: Timestamp) -> Result<Vec<Effect>, Vec<Effect>> {
        let mut effects = Vec::new();
        if !self.config.binds_rulings {
            return Ok(effects);
        }
        for role in self.present() {
            if role == DEVIL || self.awaiting.contains(&role) {
                continue;
            }
            if !self.affords(1) {
                self.log(
                    now,
                    LogKind::Note,
                    None,
                    format!(
                        "{role} is not asked in round {round}: the budget keeps its calls for the final positions"
                    ),
                );
                continue;
            }
            let mut context = self.base_context(&role);
            context["round"] = json!(round);
            context["max_rounds"] = json!(self.config.intensity.max_rounds());
            context["inventory"] = pretty(self.inventory());
            context["challenges"] = pretty(json!([]));
            context["own"] = json!(
                self.open_ids()
                    .into_iter()
                    .filter(|id| self.origins_of(id).contains(&role))
                    .collect::<Vec<_>>()
            );
            context["addressed"] = json!(false);
            self.put_rulings(&mut context, std::iter::empty());
            let file = documents::round_file(round, &role);
            self.log(
                now,
                LogKind::Note,
                None,
                format!("to {role}: no challenge; it may corroborate, cross-challenge, discover or propose a merge"),
            );
            let effect = self.start_call(
                &prompts::RESPOND,
                context,
                &role,
                PacketKind::Challenge,
                file,
                now,
            )?;
            self.awaiting.insert(role);
            effects.push(effect);
        }
        Ok(effects)
    }

    fn on_responses(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let role = call.slot.role.clone();
        let round = self.round;
        let delivered: Vec<String> = self
            .challenges
            .iter()
            .filter(|c| c.to == role && c.state == ChallengeState::Delivered)
            .map(|c| c.id.clone())
            .collect();
        let known = self.open_ids();
        let refs: Vec<&str> = known.iter().map(String::as_str).collect();
        let domain = role.strip_prefix("expert.").unwrap_or_default().to_string();
        match parse::read_responses(output, &refs, &domain, self.proposes()) {
            Ok(read) => {
                // Every delivered challenge needs a response (a ruling to
                // address): asked once more when one has none.
                let answered: Vec<String> = read
                    .value
                    .0
                    .iter()
                    .filter(|r| {
                        matches!(
                            r.kind,
                            ResponseKind::Defense
                                | ResponseKind::Withdrawal
                                | ResponseKind::Corroboration
                        )
                    })
                    .map(|r| r.finding_id.clone())
                    .collect();
                let mine: Vec<&Challenge> = delivered
                    .iter()
                    .filter_map(|id| self.challenge(id))
                    .collect();
                let discrepancies = rulings::unanswered(&mine, &answered);
                if let Some(again) = self.ask_again(&call, output, &discrepancies, now) {
                    return vec![again];
                }
                self.still_against(&call, discrepancies, now);
                self.keep(&call, output, read.notes, now);
                let (responses, left_out) = read.value;
                for left in &left_out {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(&call.call_id()),
                        format!("left out {left}"),
                    );
                }
                // The challenges delivered to this participant, by the
                // finding they are about, in the order delivered.
                let mut delivered_on: HashMap<String, Vec<String>> = HashMap::new();
                for id in &delivered {
                    if let Some(c) = self.challenge(id) {
                        delivered_on
                            .entry(c.finding_id.clone())
                            .or_default()
                            .push(id.clone());
                    }
                }
                for response in responses {
                    let answering = delivered_on
                        .get(&response.finding_id)
                        .cloned()
                        .unwrap_or_default();
                    self.take_response(&role, response, answering, &call.call_id(), now);
                }
            }
            Err(error) => self.malformed(&call, output, error.to_string(), now),
        }
        let unanswered: Vec<String> = delivered
            .iter()
            .filter(|id| {
                self.challenge(id)
                    .is_some_and(|c| c.state == ChallengeState::Delivered)
            })
            .cloned()
            .collect();
        for id in &unanswered {
            if let Some(c) = self.challenge_mut(id) {
                c.state = ChallengeState::Unanswered;
            }
        }
        if !unanswered.is_empty() {
            self.log(
                now,
                LogKind::Note,
                Some(&call.call_id()),
                format!(
                    "{role} left {} unanswered (round {round})",
                    unanswered.join(", ")
                ),
            );
        }
        self.awaiting.remove(&role);
        if self.awaiting.is_empty() {
            return self.end_round(now);
        }
        Vec::new()
    }

    fn take_response(
        &mut self,
        role: &str,
        response: parse::ResponseText,
        answering: Vec<String>,
        call_id: &str,
        now: Timestamp,
    ) {
        let round = self.round;
        let mut record = Response {
            by: role.to_string(),
            round,
            kind: response.kind,
            finding_id: response.finding_id.clone(),
            text: response.text.clone(),
            evidence: response.evidence.clone(),
            accepts_severity: response.accepts_severity,
            merge_with: response.merge_with.clone(),
            answers: Vec::new(),
        };
        let own = self
            .origins_of(&response.finding_id)
            .iter()
            .any(|o| o == role);
        match response.kind {
            ResponseKind::Defense => {
                record.answers = answering.clone();
                for id in &answering {
                    let accepted = if let Some(c) = self.challenge_mut(id) {
                        c.state = ChallengeState::Answered;
                        (response.accepts_severity && own)
                            .then_some(c.proposed_severity)
                            .flatten()
                    } else {
                        None
                    };
                    if let Some(to) = accepted
                        && let Some(finding) = self.finding_mut(&response.finding_id)
                        && finding.severity != to
                    {
                        finding.severity_changes.push(SeverityChange {
                            from: finding.severity,
                            to,
                            round,
                            why: format!("{id} accepted by {role}"),
                        });
                        let from = finding.severity;
                        finding.severity = to;
                        self.log(
                            now,
                            LogKind::Note,
                            Some(call_id),
                            format!(
                                "{} goes from {from} to {to}: {role} accepted the severity challenge {id}",
                                response.finding_id
                            ),
                        );
                    }
                }
                if let Some(revision) = &response.revision
                    && own
                    && let Some(p) = self.proposal_mut(&response.finding_id)
                {
                    p.text.summary = revision.clone();
                    p.status = ProposalStatus::Revised;
                }
            }
            ResponseKind::Withdrawal => {
                if own {
                    record.answers = answering.clone();
                    for id in &answering {
                        if let Some(c) = self.challenge_mut(id) {
                            c.state = ChallengeState::Answered;
                        }
                    }
                    let why = format!(
                        "withdrawn by {role} in round {round}: {}",
                        one_line(&response.text)
                    );
                    if let Some(f) = self.finding_mut(&response.finding_id) {
                        f.withdrawn = Some(why);
                    } else if let Some(p) = self.proposal_mut(&response.finding_id) {
                        p.status = ProposalStatus::Parked;
                        p.withdrawn = Some(why);
                    }
                    if let Some(r) = self.rounds.last_mut() {
                        r.withdrawn.push(response.finding_id.clone());
                    }
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!("{role} withdrew {}", response.finding_id),
                    );
                } else {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "{role} cannot withdraw {}, which it did not bring; read as no answer",
                            response.finding_id
                        ),
                    );
                    return;
                }
            }
            ResponseKind::Corroboration => {
                if own {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "{role}'s corroboration of its own {} is read as a defense",
                            response.finding_id
                        ),
                    );
                    record.kind = ResponseKind::Defense;
                    record.answers = answering.clone();
                    for id in &answering {
                        if let Some(c) = self.challenge_mut(id) {
                            c.state = ChallengeState::Answered;
                        }
                    }
                }
            }
            ResponseKind::CrossChallenge => {
                if let Some(challenge) = response.challenge.clone() {
                    let id = self.raise(role, challenge, round + 1, call_id, now);
                    if let Some(id) = id {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(call_id),
                            format!(
                                "{role} cross-challenges {} ({id}); it goes to the moderator next round",
                                response.finding_id
                            ),
                        );
                    }
                }
            }
            ResponseKind::Discovery => {
                let id = if let Some((severity, text)) = response.discovery.clone() {
                    Some(self.add_finding(role, severity, text, true))
                } else {
                    response
                        .proposal
                        .clone()
                        .map(|text| self.add_proposal(role, text, "challenge"))
                };
                if let Some(id) = id {
                    record.finding_id = id.clone();
                    if let Some(r) = self.rounds.last_mut() {
                        r.discovered.push(id.clone());
                    }
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!("{role} discovered {id}"),
                    );
                }
            }
            ResponseKind::MergeProposal => {
                if let Some(other) = &response.merge_with {
                    let pair = [response.finding_id.clone(), other.clone()];
                    let known = self
                        .places
                        .merge_pairs
                        .contains(&unordered(&pair[0], &pair[1]));
                    if !known && !self.proposes() {
                        let overlap = match (self.finding(&pair[0]), self.finding(&pair[1])) {
                            (Some(a), Some(b)) => {
                                verdict::overlap(&a.text.description, &b.text.description)
                            }
                            _ => 0.0,
                        };
                        self.propose_merge(MergeCandidate {
                            findings: pair,
                            proposed_by: role.to_string(),
                            overlap: (overlap * 100.0).round() / 100.0,
                        });
                    }
                }
            }
        }
        if self.proposes()
            && let Some(p) = self.proposal_mut(&response.finding_id)
            && matches!(
                p.status,
                ProposalStatus::Proposed | ProposalStatus::Expanded
            )
        {
            p.status = ProposalStatus::Challenged;
        }
        self.responses.push(record);
    }

    /// After a round's answers: another round, or the end of the rounds.
    fn end_round(&mut self, now: Timestamp) -> Vec<Effect> {
        let round = self.round;
        let delivered = self.rounds.last().is_some_and(|r| !r.delivered.is_empty());
        let pending = self.challenges.iter().any(|c| {
            c.state == ChallengeState::Held
                || (c.state == ChallengeState::Proposed && c.round > round)
        });
        if self.budget_exhausted.is_some() {
            return self.end_rounds(now, "the budget ran out".into());
        }
        if !delivered && !pending {
            return self.end_rounds(
                now,
                format!("round {round} delivered no challenge, so the debate has settled"),
            );
        }
        if round >= self.config.intensity.max_rounds() {
            return self.end_rounds(
                now,
                format!(
                    "round {round} was the last ({})",
                    self.config.intensity.as_str()
                ),
            );
        }
        self.round += 1;
        self.start_round(now)
    }

    fn end_rounds(&mut self, now: Timestamp, why: String) -> Vec<Effect> {
        for c in self.challenges.iter_mut() {
            if matches!(c.state, ChallengeState::Proposed | ChallengeState::Held) {
                c.state = ChallengeState::Undelivered;
                c.undelivered = Some(why.clone());
            }
        }
        self.items.close_all();
        self.log(
            now,
            LogKind::Note,
            None,
            format!("the challenge rounds end: {why}"),
        );
        self.stopped = Some(why);
        if !self.proposes() {
            self.synthesise(now);
        }
        self.start_final(now)
    }

    /// Phase 4: proposes the merges the origins will vote on.
    fn synthesise(&mut self, now: Timestamp) {
        self.log(now, LogKind::Stage, None, "stage: synthesis".into());
        for candidate in verdict::overlapping(&self.findings) {
            self.propose_merge(candidate);
        }
        let listed: Vec<String> = self
            .merge_candidates
            .iter()
            .map(|m| {
                format!(
                    "{} + {} (by {}, overlap {:.2})",
                    m.findings[0], m.findings[1], m.proposed_by, m.overlap
                )
            })
            .collect();
        let message = if listed.is_empty() {
            "no merge proposed: no two findings overlap by more than 0.70 and no participant proposed one".into()
        } else {
            format!(
                "merges proposed, each applied only if both origins agree: {}",
                listed.join("; ")
            )
        };
        self.log(now, LogKind::Note, None, message);
        self.exchange
            .synthesis(&self.present(), &self.merge_candidates);
    }

    // ---- Phase 5 -----------------------------------------------------------

    fn start_final(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Final, now);
        let present = self.present();
        if present.is_empty() {
            return self.conclude(now);
        }
        // Every participant gives a final position (FP-37), budget or not;
        // when that goes over, the record says so (A20).
        let needed = self.budget_used() + self.reserve();
        if needed > self.config.budget() && self.budget_exhausted.is_none() {
            let reason = format!(
                "budget exhausted: the final positions take the council to {needed} calls, {} over its {}; they run anyway, since every participant gives one",
                needed - self.config.budget(),
                self.config.budget()
            );
            self.log(now, LogKind::Note, None, reason.clone());
            self.budget_exhausted = Some(reason);
        }
        let mut effects = Vec::new();
        for role in present {
            let mut context = self.base_context(&role);
            context["inventory"] = pretty(self.inventory());
            context["history"] = pretty(self.history());
            context["own"] = json!(
                self.open_ids()
                    .into_iter()
                    .filter(|id| self.origins_of(id).contains(&role))
                    .collect::<Vec<_>>()
            );
            context["open"] = json!(self.open_ids());
            let merges: Vec<serde_json::Value> = self.merge_candidates
                    .iter()
                    .filter(|m| m.findings.iter().any(|id| self.origins_of(id).contains(&role)))
                    .map(|m| json!({"findings": m.findings, "proposed_by": m.proposed_by, "overlap": m.overlap}))
                    .collect();
            context["merges"] = if merges.is_empty() {
                json!("")
            } else {
                pretty(json!(merges))
            };
            context["fallback"] = json!(self.fallback.is_some());
            self.put_rulings(&mut context, self.challenges.iter());
            let file = documents::final_file(&role);
            match self.start_call(
                &prompts::FINAL,
                context,
                &role,
                PacketKind::FinalPosition,
                file,
                now,
            ) {
                Ok(effect) => {
                    self.awaiting.insert(role);
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        effects
    }

    fn on_final(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        let role = call.slot.role.clone();
        let known: Vec<String> = if self.proposes() {
            self.proposals.iter().map(|p| p.id.clone()).collect()
        } else {
            self.findings.iter().map(|f| f.id.clone()).collect()
        };
        let refs: Vec<&str> = known.iter().map(String::as_str).collect();
        match parse::read_final(output, &role, &refs) {
            Ok(read) => {
                let discrepancies = rulings::final_discrepancies(&read.value.0, &self.challenges);
                if let Some(again) = self.ask_again(&call, output, &discrepancies, now) {
                    return vec![again];
                }
                self.still_against(&call, discrepancies, now);
                self.keep(&call, output, read.notes, now);
                let (position, left_out) = read.value;
                for left in &left_out {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(&call.call_id()),
                        format!("left out {left}"),
                    );
                }
                let tally = |stance: model::Stance| {
                    position
                        .positions
                        .iter()
                        .filter(|p| p.stance == stance)
                        .count()
                };
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call.call_id()),
                    format!(
                        "{role}'s final position: {} endorsed, {} disputed, {} withdrawn",
                        tally(model::Stance::Endorse),
                        tally(model::Stance::Dispute),
                        tally(model::Stance::Withdraw)
                    ),
                );
                self.positions.insert(role.clone(), position);
            }
            Err(error) => self.malformed(&call, output, error.to_string(), now),
        }
        self.awaiting.remove(&role);
        if self.awaiting.is_empty() {
            return self.conclude(now);
        }
        Vec::new()
    }

    /// Everything the assessment reads, as of now.
    pub fn record(&self) -> verdict::Record<'_> {
        verdict::Record {
            participants: &self.participants,
            findings: &self.findings,
            challenges: &self.challenges,
            responses: &self.responses,
            merges: &self.merge_candidates,
            positions: &self.positions,
            preset: self.config.preset,
            params: self.config.params(),
        }
    }

    fn conclude(&mut self, now: Timestamp) -> Vec<Effect> {
        if self.proposes() {
            self.proposal_outcomes = verdict::converge(
                &self.participants,
                &self.proposals,
                &self.positions,
                &self.config.params(),
            );
            for outcome in self.proposal_outcomes.clone() {
                if let Some(p) = self.proposal_mut(&outcome.id) {
                    p.status = outcome.status;
                }
                self.log(
                    now,
                    LogKind::Verdict,
                    None,
                    format!("{}: {}", outcome.id, outcome.rule),
                );
            }
            return self.start_handoff(now);
        }
        self.enter(Step::Done, now);
        let assessment = verdict::assess(&self.record());
        for merge in &assessment.merges {
            let message = match (&merge.into, &merge.refused) {
                (Some(into), _) => format!(
                    "{} and {} merged into {into} (both origins agreed)",
                    merge.findings[0], merge.findings[1]
                ),
                (None, Some(why)) => format!(
                    "{} and {} not merged: {why}",
                    merge.findings[0], merge.findings[1]
                ),
                _ => continue,
            };
            self.log(now, LogKind::Note, None, message);
        }
        for outcome in &assessment.outcomes {
            self.log(
                now,
                LogKind::Verdict,
                None,
                format!("{} {}: {}", outcome.id, outcome.severity, outcome.rule),
            );
        }
        self.log(
            now,
            LogKind::Verdict,
            None,
            format!("{}: {}", assessment.verdict, assessment.rule),
        );
        let outcome = Outcome::Decided {
            verdict: assessment.verdict,
            rule: assessment.rule.clone(),
        };
        self.assessment = Some(assessment);
        self.exchange.final_summary(&self.present());
        self.outcome = Some(outcome.clone());
        vec![Effect::Finished(outcome)]
    }

    // ---- routing -----------------------------------------------------------

    fn on_answer(&mut self, call: LiveCall, output: &str, now: Timestamp) -> Vec<Effect> {
        match (self.step, call.slot.role.as_str()) {
            (Step::Independent, _) => self.on_independent(call, output, now),
            (Step::Expand, _) => self.on_expand(call, output, now),
            (Step::Challenge, DEVIL) => self.on_devil(call, output, now),
            (Step::Responses, _) => self.on_responses(call, output, now),
            (Step::Final, _) => self.on_final(call, output, now),
            (Step::Handoff, _) => self.on_handoff(call, output, now),
            _ => Vec::new(),
        }
    }

    fn on_gave_up(&mut self, call: LiveCall, reason: String, now: Timestamp) -> Vec<Effect> {
        let role = call.slot.role.clone();
        let call_id = call.call_id();
        match self.step {
            Step::Independent => {
                self.out.insert(role.clone());
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!("{role} gave no Phase 1 answer ({reason}); it is out of the council"),
                );
                self.awaiting.remove(&role);
                self.after_independent(now)
            }
            Step::Expand => {
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!("{role} adds nothing to the inventory ({reason})"),
                );
                self.awaiting.remove(&role);
                self.after_expand(now)
            }
            Step::Challenge => {
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!(
                        "the devil's advocate gave no challenges in round {} ({reason})",
                        self.round
                    ),
                );
                self.open_moderation(now)
            }
            Step::Responses => {
                for c in self.challenges.iter_mut() {
                    if c.to == role && c.state == ChallengeState::Delivered {
                        c.state = ChallengeState::Unanswered;
                    }
                }
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!("{role} gave no answer in round {} ({reason}); its challenges stay unanswered", self.round),
                );
                self.awaiting.remove(&role);
                if self.awaiting.is_empty() {
                    return self.end_round(now);
                }
                Vec::new()
            }
            Step::Final => {
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!("{role} gave no final position ({reason}); it is not counted"),
                );
                self.awaiting.remove(&role);
                if self.awaiting.is_empty() {
                    return self.conclude(now);
                }
                Vec::new()
            }
            Step::Handoff => {
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!("no handoff ({reason})"),
                );
                self.complete(now)
            }
            Step::Moderation | Step::Done => Vec::new(),
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
                    OverrideAction::Rerun => "re-run ignored: a council holds no round of judges",
                    _ => "override ignored: the call is not live",
                };
                self.log(now, LogKind::Note, Some(call_id), what.into());
                Vec::new()
            }
            Input::ItemResolved { item_id, .. } => {
                let message = format!(
                    "ignored a resolution of {item_id}: a held-back challenge is not settled after the verdict"
                );
                self.log(now, LogKind::Note, None, message);
                Vec::new()
            }
            Input::Reopened => {
                self.log(
                    now,
                    LogKind::Note,
                    None,
                    "reopen ignored: a council is not reopened".into(),
                );
                Vec::new()
            }
            _ => Vec::new(),
        }
    }
}

/// The prefix of the ids `role` is asked to number its own Phase 1 items
/// with (`security-1`), so they are never taken for board ids.
fn draft_prefix(role: &str) -> &str {
    match role {
        DEVIL => "devil",
        CHECKER => "checker",
        _ => role.strip_prefix("expert.").unwrap_or(role),
    }
}

/// Structured data as the JSON text a prompt shows.
fn pretty(value: serde_json::Value) -> serde_json::Value {
    serde_json::Value::String(serde_json::to_string_pretty(&value).unwrap_or_default())
}

/// `1 finding`, `3 findings`.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Protocol for Council {
    fn start(&mut self, now: Timestamp) -> Vec<Effect> {
        let message = format!(
            "council {} ({}, {} intensity, {} preset, {} experts + devil's advocate + integration checker, budget {} calls): {}",
            self.config.review_id,
            self.config.mode.as_str(),
            self.config.intensity.as_str(),
            self.config.preset.as_str(),
            self.config.domains.len(),
            self.config.budget(),
            self.config.topic
        );
        self.log(now, LogKind::Note, None, message);
        if let Some(why) = self.fallback.clone() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("fallback ({why}): independent answers only; phases 3 and 4 are skipped"),
            );
        }
        self.start_independent(now)
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
            max_round: self.config.intensity.max_rounds(),
            budget: Some((self.budget_used(), self.config.budget())),
            finished: self.outcome.is_some(),
        }
    }

    fn log(&self) -> &[LogEntry] {
        self.calls.log()
    }

    fn documents(&self) -> Vec<Document> {
        documents::documents(self)
    }

    fn publications(&self) -> Vec<Publication> {
        documents::publications(self)
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Issue 26: a council's moderator routes challenges.
    fn item_words(&self) -> crate::protocol::ItemWords {
        crate::protocol::ItemWords {
            accept: "deliver",
            reject: "drop",
            defer: "hold back",
            about: Some(
                "Each item is a challenge to a finding or a proposal: deliver it to its author, \
                 drop it as no real challenge, or hold it back for a later round.",
            ),
        }
    }

    fn describe(&self) -> Description {
        let roles = self
            .participants
            .iter()
            .map(|slot| RoleInfo {
                agent: self.calls.agent(slot).unwrap_or_default().to_string(),
                title: participant_title(slot),
                slot: slot.clone(),
                group: match slot.as_str() {
                    DEVIL => RoleGroup::Challenger,
                    CHECKER => RoleGroup::Lead,
                    _ => RoleGroup::Panel,
                },
                binding: false,
            })
            .chain(self.proposes().then(|| {
                RoleInfo {
                    slot: SYNTHESIZER.into(),
                    title: participant_title(SYNTHESIZER),
                    group: RoleGroup::Synthesizer,
                    agent: self
                        .calls
                        .agent(SYNTHESIZER)
                        .unwrap_or_default()
                        .to_string(),
                    binding: false,
                }
            }))
            .collect();
        let what = if self.proposes() {
            "Proposals"
        } else {
            "Findings"
        };
        Description {
            topic: self.config.topic.clone(),
            label: format!(
                "council {} · {} · {} · {} preset{}",
                self.config.review_id,
                self.config.mode.as_str(),
                self.config.intensity.as_str(),
                self.config.preset.as_str(),
                if self.fallback.is_some() { " · fallback" } else { "" }
            ),
            roles,
            deliverable: documents::SUMMARY.into(),
            items: self.debating().then(|| RegionInfo {
                title: "Challenges".into(),
                placeholder: "The devil's advocate's challenges appear here for you to deliver, hold back or drop.".into(),
            }),
            board: Some(RegionInfo {
                title: what.into(),
                placeholder: format!("{what} appear here once the participants' Phase 1 answers are published."),
            }),
            about: if self.proposes() {
                "A five-phase brainstorm: every participant proposes on its own (Diverge); the inventory is published and improved (Expand); the devil's advocate challenges assumptions, complexity, feasibility and coupling, and you deliver, hold back or drop each challenge; every participant accepts, rejects or parks each proposal (Converge); a synthesizer writes the handoff: the accepted direction, open questions and the next step. No verdict.".into()
            } else {
                "A five-phase adversarial council: domain experts, a devil's advocate and an integration checker each investigate alone; quorum numbers and publishes the findings; the devil's advocate challenges every CRITICAL and HIGH finding it did not bring, you deliver, hold back or drop each challenge, and each goes to its target alone; findings that overlap are merged when both origins agree; every participant gives a final position, and quorum derives confirmed, disputed and withdrawn findings and PASS, CONCERNS or FAIL from them.".into()
            },
            ending_note: if self.proposes() {
                "quorum derived each proposal's status from the weighted final positions; the handoff is the synthesizer's.".into()
            } else {
                "quorum derived each finding's state from the weighted final positions and the verdict from the confirmed and disputed findings.".into()
            },
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
        fields.insert("review_id".into(), json!(self.config.review_id));
        if let Some(assessment) = &self.assessment {
            let states: serde_json::Map<String, serde_json::Value> = assessment
                .outcomes
                .iter()
                .map(|o| (o.id.clone(), json!(o.state.as_str())))
                .collect();
            fields.insert("findings".into(), serde_json::Value::Object(states));
        }
        if !self.proposal_outcomes.is_empty() {
            let states: serde_json::Map<String, serde_json::Value> = self
                .proposal_outcomes
                .iter()
                .map(|o| (o.id.clone(), json!(o.status.as_str())))
                .collect();
            fields.insert("proposals".into(), serde_json::Value::Object(states));
        }
        if let Some(publication) = documents::publications(self).first() {
            fields.insert(
                "artifact".into(),
                json!(publication.path.display().to_string()),
            );
        }
        fields
    }

    fn board(&self) -> Board {
        let index = self.row_index();
        let rows = if self.proposes() {
            self.proposals
                .iter()
                .map(|p| self.proposal_row(p, &index))
                .collect()
        } else {
            let findings = match &self.assessment {
                Some(assessment) => &assessment.findings,
                None => &self.findings,
            };
            findings
                .iter()
                .map(|f| self.finding_row(f, &index))
                .collect()
        };
        let items = self.items.board_items();
        Board {
            stages: self.stages(),
            view: super::BoardView::Rulings(rows),
            items,
            needs_moderator: self.step == Step::Moderation && self.outcome.is_none(),
            ..Board::default()
        }
    }

    fn check_answer(&self, call_id: &str, answer: &str) -> Result<(), String> {
        let Some(call) = self.calls.live_call(call_id) else {
            return Err(format!("{call_id} is not waiting for an answer"));
        };
        let open = self.open_ids();
        let refs: Vec<&str> = open.iter().map(String::as_str).collect();
        let all: Vec<String> = self
            .findings
            .iter()
            .map(|f| f.id.clone())
            .chain(self.proposals.iter().map(|p| p.id.clone()))
            .collect();
        let all_refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let proposes = self.proposes();
        let result = match call.slot.stage.as_str() {
            "independent" if proposes => parse::read_proposals(answer).map(|_| ()),
            "independent" => parse::read_findings(answer, "").map(|_| ()),
            "expand" => parse::read_expansions(answer, "", &refs).map(|_| ()),
            "challenge" => parse::read_devil(answer, &refs, proposes).map(|_| ()),
            "responses" => parse::read_responses(answer, &refs, "", proposes).map(|_| ()),
            "final" => parse::read_final(answer, "", &all_refs).map(|_| ()),
            "handoff" => parse::read_handoff(answer).map(|_| ()),
            _ => Ok(()),
        };
        result.map_err(|error| error.to_string())
    }

    fn answer_template(&self, call_id: &str) -> Option<String> {
        let call = self.calls.live_call(call_id)?;
        Some(documents::answer_template(
            self,
            &call.slot.stage,
            &call.slot.role,
        ))
    }
}
