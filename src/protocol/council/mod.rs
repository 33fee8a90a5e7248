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
//! skipped by the moderator) takes no part in the rounds; it is still
//! asked for a final position on what the others found (FP-37, issue 60),
//! and counts in the shares only if it gives one. Malformed answers are kept with a
//! MALFORMED marker, excluded and never retried.
//!
//! Not responsible for I/O, timers or retries: every answer here was
//! journaled and written to its file before it was read.

mod board;
mod brainstorm;
mod challenge;
pub mod documents;
pub mod domains;
mod final_positions;
mod independent;
pub mod kind;
pub mod model;
pub mod packets;
pub mod parse;
mod payoff;
mod plumbing;
pub mod prompts;
mod publication;
mod responses;
mod rules;
pub mod rulings;
pub mod stability;
pub mod verdict;

pub use kind::KIND;

/// What a spec's `protocol:` says for a council.
pub const NAME: &str = "council";

use crate::protocol::fairness::agreement::Agreement;
use crate::protocol::{DebateCore, Seating, StageFocus};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use self::model::{
    Challenge, CouncilMode, DEVIL, Finding, FindingText, Handoff, Intensity, MergeCandidate,
    Params, Positions, Preset, Proposal, ProposalText, Response, Role, SYNTHESIZER, Severity,
};
use self::packets::Exchange;
use self::verdict::{Assessment, convergence::ProposalOutcome};
use super::calls::Calls;
use super::items::ItemBook;
use super::roster::{Roster, Seat};
use super::supervision::LiveCall;
use super::{ContextDoc, LogKind, Timestamp};
use crate::prompts::PromptSet;

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
    /// Always `minimal-non-leading` (FP-05, FP-18): settable, and refused
    /// otherwise, since the first round must use it.
    pub context_policy: String,
    /// The task context named for the council, when it is not the mode's
    /// own (`--task-context content`, issue 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_context: Option<model::TaskContext>,
    /// Where the deliverable pair goes: `{outputs}/debate/` (FP-52).
    pub outputs: String,
    /// Who plays each role, at what price, since when, and whether a
    /// person moderates.
    #[serde(flatten)]
    pub seating: Seating,
    /// Answers are held to the moderator's rulings (issue 26): one that
    /// goes against them is asked about once more, and a round that
    /// delivers a challenge asks every other participant too (FP-23).
    /// Every council started now does; one journaled before (the field
    /// absent) folds as it ran, so resuming or replaying it never starts a
    /// call it never had.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub binds_rulings: bool,
    /// The stability receipt asked for (issue 55): `stability: K` and
    /// `require_stability`, flat beside the rest, and whether a verdict
    /// with participants missing names them (every council started now;
    /// one journaled before keeps its old words).
    #[serde(flatten)]
    pub stability: crate::protocol::stability::Stability,
}

impl CouncilConfig {
    /// Its seats ([`model::roster`]).
    pub fn roster(&self) -> Roster<Role> {
        model::roster(&self.domains, self.mode.proposes())
    }

    /// Every participant slot: the experts in domain order, the integration
    /// checker, then the devil's advocate (FP-13); every seat but the
    /// synthesizer's.
    pub fn participants(&self) -> Vec<String> {
        let roster = self.roster();
        participant_seats(&roster)
            .map(|seat| seat.slot.clone())
            .collect()
    }

    /// The task context: named, or the mode's own (A22).
    pub fn task_context(&self) -> model::TaskContext {
        self.task_context.unwrap_or_else(|| self.mode.context())
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

impl crate::protocol::Stage for Step {
    const DONE: Step = Step::Done;
    const EVERY: &'static [Step] = &[
        Step::Independent,
        Step::Expand,
        Step::Challenge,
        Step::Moderation,
        Step::Responses,
        Step::Final,
        Step::Handoff,
        Step::Done,
    ];

    fn id(self) -> &'static str {
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

    /// A council's titles; a brainstorm names some stages its own way
    /// (its board's `stages`).
    fn title(self) -> &'static str {
        match self {
            Step::Independent => "Independent",
            Step::Expand => "Expand",
            Step::Challenge => "Challenge",
            Step::Moderation => "Moderation",
            Step::Responses => "Responses",
            Step::Final => "Final positions",
            Step::Handoff => "Synthesis",
            Step::Done => "Verdict",
        }
    }

    fn focus(self) -> StageFocus {
        match self {
            Step::Challenge => StageFocus::Role(DEVIL.into()),
            Step::Moderation => StageFocus::Items,
            Step::Handoff => StageFocus::Role(SYNTHESIZER.into()),
            Step::Expand | Step::Done => StageFocus::Board,
            Step::Independent | Step::Responses | Step::Final => StageFocus::Stay,
        }
    }

    fn moderates(self) -> bool {
        self == Step::Moderation
    }

    /// The challenge, its moderation and the responses are a round's.
    fn counts_rounds(self) -> bool {
        matches!(self, Step::Challenge | Step::Moderation | Step::Responses)
    }
}

impl Step {
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

pub use crate::protocol::calls::Submission;

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
    /// Where it stands: its step, and the challenge round (0 before the
    /// first); its seats.
    core: DebateCore<Step, Role>,
    participants: Vec<String>,
    /// Participants given up in Phase 1: not asked again (see the module).
    out: BTreeSet<String>,
    findings: Vec<Finding>,
    /// Findings none of whose citations verified, each with the first that
    /// failed, in words (issue 52).
    unverified: BTreeMap<String, String>,
    proposals: Vec<Proposal>,
    /// Phase 1 answers in so far, by participant, before they are numbered.
    findings_in: BTreeMap<String, Held<(Severity, FindingText)>>,
    proposals_in: BTreeMap<String, Held<ProposalText>>,
    /// The ids each participant wrote on its Phase 1 items, to say which
    /// board id each became.
    written_ids: BTreeMap<String, Vec<String>>,
    /// Participants whose Phase 1 answer could be read: the voters of a
    /// plain vote of Phase 1 (`payoff`).
    read_in_phase_one: BTreeSet<String>,
    awaiting: BTreeSet<String>,
    challenges: Vec<Challenge>,
    responses: Vec<Response>,
    merge_candidates: Vec<MergeCandidate>,
    /// New proposals that would retire another origin's, waiting for its
    /// agreement (issue 60).
    retirements: Vec<model::Retirement>,
    positions: Positions,
    /// How far the final positions agreed and how many independent votes
    /// they were worth (fair judging; a council from before it has none).
    agreement: Option<Agreement>,
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
    places: Places,
    /// Where an answer still went against the moderator's rulings after it
    /// was asked once more, for the deliverable.
    against_rulings: Vec<String>,
    /// Each participant's final-position call: when it ran, and whether it
    /// counted (the missing-participants sentence, issue 55).
    final_calls: BTreeMap<String, stability::FinalCall>,
    /// The length of each participant's final-position prompt, which the
    /// stability receipt's forecast reads.
    final_prompts: BTreeMap<String, usize>,
    /// The stability receipt, running or done (issue 55).
    stability: Option<stability::StabilityRun>,
}

crate::lend_core!(Council, core, Step, Role);

/// A Phase 1 answer read item by item, held until every participant's is
/// in: the items with their places, and the items left out, which the
/// publication names by the ids their places give them (issue 59).
struct Held<T> {
    read: parse::Listed<T>,
    slips: Vec<crate::parse::Slip>,
    call: LiveCall,
    at: Timestamp,
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
        let rounds = config.intensity.max_rounds();
        let (roster, calls) = (config.roster(), config.seating.calls());
        let mut core = DebateCore::new(Step::Independent, roster, calls, prompts)
            .with_rounds(rounds)
            .with_evidence(config.seating.evidence(&config.context));
        // Round 0 until the first challenge.
        core.round = 0;
        let participants = config.participants();
        let fallback = config
            .fallback
            .then(|| "fallback requested (--fallback)".to_string());
        let exchange = Exchange::new(&config);
        Council {
            config,
            core,
            participants,
            out: BTreeSet::new(),
            findings: Vec::new(),
            proposals: Vec::new(),
            findings_in: BTreeMap::new(),
            proposals_in: BTreeMap::new(),
            written_ids: BTreeMap::new(),
            read_in_phase_one: BTreeSet::new(),
            awaiting: BTreeSet::new(),
            challenges: Vec::new(),
            responses: Vec::new(),
            merge_candidates: Vec::new(),
            retirements: Vec::new(),
            positions: Positions::new(),
            agreement: None,
            handoff: None,
            submissions: Vec::new(),
            rounds: Vec::new(),
            items: ItemBook::default(),
            fallback,
            budget_exhausted: None,
            unverified: BTreeMap::new(),
            stopped: None,
            assessment: None,
            proposal_outcomes: Vec::new(),
            exchange,
            places: Places::default(),
            against_rulings: Vec::new(),
            final_calls: BTreeMap::new(),
            final_prompts: BTreeMap::new(),
            stability: None,
        }
    }

    pub fn config(&self) -> &CouncilConfig {
        &self.config
    }
    pub fn step(&self) -> Step {
        self.core.stage
    }
    pub fn round(&self) -> u32 {
        self.core.round
    }
    pub fn participants(&self) -> &[String] {
        &self.participants
    }
    /// Its seats.
    pub fn roster(&self) -> &Roster<Role> {
        &self.core.roster
    }
    /// The participants' seats, in the order of [`Council::participants`].
    pub fn participant_seats(&self) -> impl Iterator<Item = &Seat<Role>> {
        participant_seats(&self.core.roster)
    }
    /// Participants taking part now (not given up in Phase 1).
    pub fn present(&self) -> Vec<String> {
        self.participants
            .iter()
            .filter(|p| !self.out.contains(*p))
            .cloned()
            .collect()
    }
    /// Who is asked for a final position: every participant, one given up
    /// in Phase 1 included, answering on what the others found (FP-37: all
    /// participants submit final positions; issue 60); before that rule,
    /// only those still present.
    pub fn final_roster(&self) -> Vec<String> {
        if self
            .config
            .seating
            .edition
            .follows(crate::protocol::Edition::CONCLUSIONS)
        {
            self.participants.clone()
        } else {
            self.present()
        }
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
    pub fn retirements(&self) -> &[model::Retirement] {
        &self.retirements
    }
    pub fn positions(&self) -> &Positions {
        &self.positions
    }
    pub fn agreement(&self) -> Option<&Agreement> {
        self.agreement.as_ref()
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
        &self.core.calls
    }

    /// Calls made so far, retries included (A20).
    pub fn budget_used(&self) -> u32 {
        self.core
            .calls
            .log()
            .iter()
            .filter(|entry| entry.kind == LogKind::CallStarted)
            .count() as u32
    }

    pub fn proposes(&self) -> bool {
        self.config.mode.proposes()
    }

    /// Calls the closing phases need: a final position per participant,
    /// and a brainstorm's handoff.
    fn reserve(&self) -> u32 {
        self.final_roster().len() as u32 + u32::from(self.proposes())
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
        self.core.calls.push_log(now, kind, call_id, message);
    }

    // ---- routing -----------------------------------------------------------
}

/// Every seat of `roster` but the synthesizer's: the participants.
fn participant_seats(roster: &Roster<Role>) -> impl Iterator<Item = &Seat<Role>> {
    let seats = roster.seats().iter();
    seats.filter(|seat| seat.role != Role::Synthesizer)
}

/// The prefix of the ids `role` is asked to number its own Phase 1 items
/// with (`security-1`), so they are never taken for board ids.
fn draft_prefix(role: &Role) -> &str {
    match role {
        Role::Devil => "devil",
        Role::Checker => "checker",
        Role::Expert(domain) => domain,
        Role::Synthesizer => SYNTHESIZER,
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
