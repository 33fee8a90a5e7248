//! Verdict derivation: from the judges' individual scores to ADOPT, REVISE,
//! REJECT or ESCALATE, with the rule that decided it and what to fix.
//!
//! Responsible for: the check order, every total and mean (always recomputed
//! from the individual scores, never taken from a judge, INF-06), quorum, the
//! directives a REVISE carries back to the proposer, and `surviving_blocks`.
//! Not responsible for: parsing or validating judge output (`parse` does that,
//! and decides what is malformed), persisting anything (`artifact`), or what
//! happens after a verdict (`protocol` loops on REVISE and stops on REJECT).
//! Pure: no I/O, no clock, and the same input always gives the same answer.
//! The reasons of check 5 (major uncertainty) are gathered in `uncertainty.rs`.
//!
//! # What counts
//!
//! * Only judges of the panel count, and of them only those whose result is
//!   [`JudgeResult::Scored`]. A malformed or skipped judge, or one not yet in
//!   `results` (still running), is *missing* (INF-20, A7). The map key says
//!   whose output it is; the `judge` field inside a score is not consulted.
//! * A judge's scores count only on its own criteria (A1); a score on another
//!   criterion is ignored everywhere. `blocks` is the authority on which
//!   blocks exist; scores naming any other block id are ignored.
//! * Means of whole-number scores are compared with a tolerance of
//!   [`SCORE_EPSILON`], so a mean that is exactly on a threshold is on it.
//!
//! # The checks, in order; the first that fires decides
//!
//! Dealbreaker and binding come first (DR-30); the anti-overengineering guard
//! sits after them and before the synthesis check (A5).
//!
//! 1. **Dealbreaker → REJECT.** A risk score `≤ dealbreaker_max` from a judge
//!    whose criteria include risk (DR-31, A6).
//! 2. **Binding judge → REVISE.** A binding judge that is present has a score
//!    `< binding` on one of its own criteria, on any block (DR-32, DR-35).
//! 3. **Guard → REVISE.** On some block, the mean correctness is
//!    `≥ guard_correctness_min` and the mean simplicity `≤ guard_simplicity_max`,
//!    each mean taken over the judges that scored that criterion (DR-49, A5).
//! 4. **Synthesis → REVISE.** The mean of every synthesis value (integration,
//!    risk coverage, revision quality) of every present judge is `< synthesis`
//!    (DR-33, A3).
//! 5. **Major uncertainty → ESCALATE** (DR-34, A4, A7). Any of:
//!    * no judge produced a usable score;
//!    * (a) fewer judges are present than [`quorum_required`] (INF-18, INF-19);
//!    * (b) a binding judge is missing (pending, skipped or malformed), or the
//!      panel has no binding judge at all (INF-20, DR-37);
//!    * (c) a judge lists a block in `insufficient_information`;
//!    * (d) on some block, two judges' raw scores on the same criterion span
//!      `≥ disagreement_span`, or the per-judge means (each present judge's
//!      mean over its own criteria on that block) do;
//!    * (e) a present judge left one of its own criteria unscored on a block it
//!      did not list as insufficient information, or there are no blocks.
//!
//!    Every reason that applies is recorded, in that order. A missing judge
//!    or a shortfall only turns what would be ADOPT into ESCALATE; a REJECT
//!    or REVISE from the judges who did score stands (A7).
//! 6. Otherwise **ADOPT**.
//!
//! When several instances of the deciding check fire, the rule line names the
//! most severe: lowest score, then block order, then panel order, then the
//! judge's criterion order. Advisory judges never veto on their own (A6):
//! outside a dealbreaker on a criterion they were given, their scores act only
//! through the guard, the synthesis mean and the uncertainty rule.
//!
//! # Directives (A8)
//!
//! Whatever check decided, the assessment lists one directive per binding
//! score below threshold (carrying the judge's rationale), one per block that
//! fails the guard, and one for a failed synthesis mean. A REJECT still lists
//! them; the caller decides what to do with them.

mod uncertainty;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::protocol::decision_review::model::{
    Criterion, JudgeConfig, JudgeResult, JudgeRole, JudgeScores, Verdict,
};

/// Lowest score a judge can give, on the 1–5 scale (A14).
const SCORE_MIN: u8 = 1;
/// Highest score a judge can give, on the 1–5 scale (A14).
const SCORE_MAX: u8 = 5;

/// Tolerance, in score points, when a mean is compared with a threshold or
/// two means are subtracted: means of whole numbers are not always exact in
/// binary floating point.
pub const SCORE_EPSILON: f64 = 1e-9;

/// The numbers the checks compare against (A2). All are in score points on
/// the 1–5 scale, are configurable, and belong in `debate.yaml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Thresholds {
    /// A binding judge passes when its lowest score on its own criteria,
    /// across all blocks, is at least this many points (DR-32). Default 3.
    pub binding: u8,
    /// Synthesis passes when the mean of all synthesis values of every judge
    /// with valid output is at least this many points (DR-33, A3). Default 3.0.
    pub synthesis: f64,
    /// A risk score of at most this many points is a dealbreaker (DR-31).
    /// Default 1.
    pub dealbreaker_max: u8,
    /// Anti-overengineering guard: a block's mean correctness at or above
    /// this many points counts as high (DR-49, A5). Default 4.0.
    pub guard_correctness_min: f64,
    /// Anti-overengineering guard: a block's mean simplicity at or below this
    /// many points counts as low (DR-49, A5). Default 2.0.
    pub guard_simplicity_max: f64,
    /// Judges disagree on a block when their per-judge means on it differ by
    /// at least this many points (A4). Default 3.0.
    pub disagreement_span: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            binding: 3,
            synthesis: 3.0,
            dealbreaker_max: 1,
            guard_correctness_min: 4.0,
            guard_simplicity_max: 2.0,
            disagreement_span: 3.0,
        }
    }
}

/// A threshold outside the range that makes sense for it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("threshold `{name}` is {value}; it must be {allowed}")]
pub struct ThresholdError {
    pub name: &'static str,
    pub value: String,
    pub allowed: &'static str,
}

impl Thresholds {
    /// Checks that every threshold is a finite number inside the score scale.
    /// Reports the first one that is not.
    pub fn validate(&self) -> Result<(), ThresholdError> {
        const ON_SCALE: &str = "a score from 1 to 5";
        let whole = [
            ("binding", self.binding),
            ("dealbreaker_max", self.dealbreaker_max),
        ];
        for (name, value) in whole {
            if !(SCORE_MIN..=SCORE_MAX).contains(&value) {
                return Err(ThresholdError {
                    name,
                    value: value.to_string(),
                    allowed: ON_SCALE,
                });
            }
        }
        let fractional = [
            ("synthesis", self.synthesis),
            ("guard_correctness_min", self.guard_correctness_min),
            ("guard_simplicity_max", self.guard_simplicity_max),
        ];
        let scale = f64::from(SCORE_MIN)..=f64::from(SCORE_MAX);
        for (name, value) in fractional {
            if !scale.contains(&value) {
                return Err(ThresholdError {
                    name,
                    value: value.to_string(),
                    allowed: ON_SCALE,
                });
            }
        }
        let widest_span = f64::from(SCORE_MAX - SCORE_MIN);
        if !(self.disagreement_span > 0.0 && self.disagreement_span <= widest_span) {
            return Err(ThresholdError {
                name: "disagreement_span",
                value: self.disagreement_span.to_string(),
                allowed: "more than 0 and at most 4 points",
            });
        }
        Ok(())
    }
}

/// How many judges of a panel must produce usable scores: a strict majority,
/// 2 of 3 or 3 of 5 (INF-18).
pub fn quorum_required(panel_size: usize) -> usize {
    panel_size / 2 + 1
}

/// Which check decided the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    Dealbreaker,
    BindingJudge,
    Guard,
    Synthesis,
    Uncertainty,
    AllPassed,
}

/// How many judges produced usable scores against how many are needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuorumStatus {
    pub panel_size: usize,
    pub required: usize,
    pub present: usize,
    pub met: bool,
}

/// Why a judge of the panel has no usable scores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Absence {
    /// No result yet: the judge is still running.
    Pending,
    Skipped {
        reason: String,
    },
    Malformed {
        reason: String,
    },
    /// Left out for its model family (issue 29): not counted in the
    /// panel's quorum, but a binding judge's place is still empty.
    Recused {
        reason: String,
    },
}

impl Absence {
    pub fn label(&self) -> &'static str {
        match self {
            Absence::Pending => "pending",
            Absence::Skipped { .. } => "skipped",
            Absence::Malformed { .. } => "malformed",
            Absence::Recused { .. } => "recused",
        }
    }
}

impl fmt::Display for Absence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Absence::Pending => f.write_str("pending"),
            Absence::Skipped { reason }
            | Absence::Malformed { reason }
            | Absence::Recused { reason } => {
                write!(f, "{}: {reason}", self.label())
            }
        }
    }
}

/// A judge of the panel whose scores do not count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MissingJudge {
    pub role: JudgeRole,
    #[serde(flatten)]
    pub absence: Absence,
}

/// One thing the proposer is asked to fix in the next revision (A8).
///
/// A binding score below threshold fills every field and carries the judge's
/// rationale; a guard failure names its block and `simplicity`; a failed
/// synthesis mean names nothing but its text.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Directive {
    pub judge: Option<JudgeRole>,
    pub block_id: Option<String>,
    pub criterion: Option<Criterion>,
    pub score: Option<u8>,
    pub text: String,
}

impl fmt::Display for Directive {
    /// `b2 feasibility 2 (analyst): <text>`, leaving out what is not set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut place = Vec::new();
        if let Some(block_id) = &self.block_id {
            place.push(block_id.clone());
        }
        if let Some(criterion) = self.criterion {
            place.push(criterion.to_string());
        }
        if let Some(score) = self.score {
            place.push(score.to_string());
        }
        if let Some(judge) = self.judge {
            place.push(format!("({judge})"));
        }
        if place.is_empty() {
            f.write_str(&self.text)
        } else {
            write!(f, "{}: {}", place.join(" "), self.text)
        }
    }
}

/// The verdict the scores imply, and everything that went into it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Assessment {
    pub verdict: Verdict,
    /// The check that decided.
    pub check: Check,
    /// The deciding rule in plain words, one line ending in `→ VERDICT`.
    pub rule: String,
    pub quorum: QuorumStatus,
    /// Judges of the panel, in panel order, whose scores do not count.
    pub missing_judges: Vec<MissingJudge>,
    /// The binding judges among `missing_judges`.
    pub missing_binding: Vec<JudgeRole>,
    /// Mean of all synthesis values of the present judges; `None` when no
    /// judge is present.
    pub synthesis_mean: Option<f64>,
    /// Every reason for major uncertainty that applies, whatever decided.
    pub uncertainty: Vec<String>,
    /// What a revision should address, whatever decided (A8).
    pub directives: Vec<Directive>,
    /// An advisory judge's scores below the binding threshold on its own
    /// criteria: never a directive or a veto (A6), but notes for the
    /// decision record and the reviser's next prompt, most severe first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub advisory_notes: Vec<Directive>,
}

/// Derives the verdict the scores imply right now. Judges of `panel` not in
/// `results` count as missing (pending), so this also gives the provisional
/// verdict while judges are still running. `blocks` lists the block ids of the
/// judged tree in order. Results of judges outside `panel` are ignored, and a
/// role listed twice in `panel` sits once, with its first configuration. See
/// the module docs for the checks and definitions.
pub fn derive_verdict(
    panel: &[JudgeConfig],
    results: &BTreeMap<JudgeRole, JudgeResult>,
    blocks: &[String],
    thresholds: &Thresholds,
) -> Assessment {
    let sheet = Scoresheet::new(panel, results, blocks, thresholds);
    let quorum = sheet.quorum();
    let missing_judges = sheet.missing_judges();
    let missing_binding = sheet
        .seats
        .iter()
        .filter(|seat| seat.config.is_binding() && seat.scores().is_none())
        .map(|seat| seat.config.role)
        .collect();
    let synthesis = sheet.synthesis();
    let guard_failures = sheet.guard_failures();
    let uncertainty = sheet.uncertainty(&quorum);
    let directives = sheet.directives(&guard_failures, synthesis.as_ref());
    let advisory_notes = sheet.advisory_notes();

    let (verdict, check, rule) =
        sheet.decide(&guard_failures, synthesis.as_ref(), &uncertainty, &quorum);
    Assessment {
        verdict,
        check,
        rule,
        quorum,
        missing_judges,
        missing_binding,
        synthesis_mean: synthesis.map(|means| means.overall),
        uncertainty,
        directives,
        advisory_notes,
    }
}

/// The panel without a held-out judge: who decides every round but the
/// last (issue 29).
pub fn seated_without(panel: &[JudgeConfig], held_out: Option<JudgeRole>) -> Vec<JudgeConfig> {
    panel
        .iter()
        .filter(|judge| Some(judge.role) != held_out)
        .cloned()
        .collect()
}

/// EV-09 (issue 52): an ADOPT whose binding judges cited, and none of
/// whose citations verified (`unverified`: the first that failed), is
/// ESCALATE: the panel's case for adopting rests on nothing quorum could
/// check. Any other verdict stands.
pub fn bound_by_evidence(mut assessment: Assessment, unverified: Option<&str>) -> Assessment {
    let Some(why) = unverified else {
        return assessment;
    };
    if assessment.verdict != Verdict::Adopt {
        return assessment;
    }
    let why = format!(
        "the binding judges' citations all failed to verify ({why}), so the panel's ADOPT rests on nothing quorum could check"
    );
    assessment.rule = format!(
        "{}; {why} → ESCALATE",
        assessment.rule.trim_end_matches(" → ADOPT")
    );
    assessment.verdict = Verdict::Escalate;
    assessment.check = Check::Uncertainty;
    assessment.uncertainty.push(why);
    assessment
}

/// The verdict of a round with a held-out judge (issue 29): a judge that
/// scores only the final revision, so that the revise loop is never tuned
/// to its taste. The rest of the panel decides as [`derive_verdict`] does;
/// the held-out judge can stop an ADOPT and nothing else. When the rest
/// say ADOPT, the whole panel's scores, the held-out judge's with its
/// weight included, must say ADOPT too; if they do not, or the held-out
/// judge gave no usable scores, the verdict is ESCALATE and a person
/// decides. Any other verdict stands, with the held-out judge's scores in
/// the record. Without a held-out judge this is [`derive_verdict`].
pub fn derive_with_held_out(
    panel: &[JudgeConfig],
    results: &BTreeMap<JudgeRole, JudgeResult>,
    blocks: &[String],
    thresholds: &Thresholds,
    held_out: Option<JudgeRole>,
) -> Assessment {
    let Some(role) = held_out else {
        return derive_verdict(panel, results, blocks, thresholds);
    };
    let seated = seated_without(panel, held_out);
    let mut base = derive_verdict(&seated, results, blocks, thresholds);
    let scored = matches!(results.get(&role), Some(JudgeResult::Scored(_)));
    if base.verdict != Verdict::Adopt {
        if scored {
            base.rule.push_str(&format!(
                " (the held-out {role} scored the final revision too; it can only stop an ADOPT)"
            ));
        }
        return base;
    }
    if !scored {
        let what = match results.get(&role) {
            Some(JudgeResult::Recused { .. }) => "was recused for its model family",
            _ => "gave no usable scores of the final revision",
        };
        let why = format!("the held-out {role} {what}, so the panel's ADOPT is unconfirmed");
        base.rule = format!(
            "{}; {why} → ESCALATE",
            base.rule.trim_end_matches(" → ADOPT")
        );
        base.verdict = Verdict::Escalate;
        base.check = Check::Uncertainty;
        base.uncertainty.push(why);
        return base;
    }
    let mut whole = derive_verdict(panel, results, blocks, thresholds);
    if whole.verdict == Verdict::Adopt {
        whole.rule = format!(
            "{} (confirmed by the held-out {role}, who scored only the final revision)",
            whole.rule
        );
        return whole;
    }
    let reason = whole
        .rule
        .rsplit_once(" → ")
        .map_or(whole.rule.as_str(), |(reason, _)| reason);
    let why = format!(
        "the held-out {role} did not confirm the panel's ADOPT: with its scores the panel says {} ({reason})",
        whole.verdict
    );
    whole.rule = format!("{why} → ESCALATE");
    whole.verdict = Verdict::Escalate;
    whole.check = Check::Uncertainty;
    whole.uncertainty.push(why);
    whole
}

/// What a deciding round's verdict is derived from, beyond the scores:
/// the held-out judge, the binding judges' unverified citations, the
/// judges that scored their own family's work, and the sentence naming
/// the judges missing (issue 55).
#[derive(Clone, Copy, Debug, Default)]
pub struct RoundFacts<'a> {
    pub held_out: Option<JudgeRole>,
    /// Why the binding judges' citations all failed (EV-09), if they did.
    pub unverified: Option<&'a str>,
    pub kinships: &'a [crate::protocol::fairness::Kinship],
    /// [`crate::protocol::stability::missing_judges`]'s sentence.
    pub missing: Option<&'a str>,
}

/// The verdict of a round as the debate gives it: [`derive_with_held_out`],
/// bound by the evidence (EV-09), the kinships flagged, the missing judges
/// named. The one function the live round, every variant of the stability
/// receipt and `quorum verdict DIR` derive a verdict with.
pub fn derive_round(
    panel: &[JudgeConfig],
    results: &BTreeMap<JudgeRole, JudgeResult>,
    blocks: &[String],
    thresholds: &Thresholds,
    facts: RoundFacts<'_>,
) -> Assessment {
    let assessment = derive_with_held_out(panel, results, blocks, thresholds, facts.held_out);
    let mut assessment = bound_by_evidence(assessment, facts.unverified);
    assessment.rule =
        crate::protocol::fairness::rule_with_flags(assessment.rule, facts.kinships.iter());
    if let Some(sentence) = facts.missing {
        assessment.rule = crate::protocol::stability::rule_with(&assessment.rule, sentence);
    }
    assessment
}

/// What `require_stability` guards in an architecture review: an ADOPT
/// that did not hold in every variant of the stability receipt is
/// ESCALATE; any other verdict stands.
pub const STABILITY_GUARD: crate::protocol::stability::Guard =
    crate::protocol::stability::Guard::Verdict([Verdict::Adopt, Verdict::Escalate]);

/// `assessment` with the stability receipt (issue 55): its rule says in
/// how many variants the verdict held; under the requirement an ADOPT
/// that did not hold in every variant is ESCALATE, the rule saying why.
pub fn with_stability(
    mut assessment: Assessment,
    receipt: &crate::protocol::stability::Receipt,
    required: bool,
) -> Assessment {
    let requirement = required
        .then(|| receipt.requirement_rule(STABILITY_GUARD))
        .flatten();
    let Some(requirement) = requirement else {
        assessment.rule =
            crate::protocol::stability::rule_with(&assessment.rule, &receipt.summary());
        return assessment;
    };
    assessment.rule = crate::protocol::stability::rule_turned(&assessment.rule, &requirement);
    assessment.verdict = Verdict::Escalate;
    assessment.check = Check::Uncertainty;
    assessment.uncertainty.push(receipt.summary());
    assessment
}

/// The blocks, in order, that held up under judging (DR-51, A13): every score
/// a binding judge gave on its own criteria is at least `thresholds.binding`,
/// and no risk score is a dealbreaker. A block without a single binding score
/// does not survive. Retracted blocks are the caller's to leave out of
/// `blocks`.
pub fn surviving_blocks(
    panel: &[JudgeConfig],
    results: &BTreeMap<JudgeRole, JudgeResult>,
    blocks: &[String],
    thresholds: &Thresholds,
) -> Vec<String> {
    let sheet = Scoresheet::new(panel, results, blocks, thresholds);
    let mut has_binding_score = vec![false; blocks.len()];
    let mut fallen = vec![false; blocks.len()];
    for mark in &sheet.marks {
        if sheet.seats[mark.seat].config.is_binding() {
            has_binding_score[mark.block] = true;
        }
        if sheet.is_binding_failure(mark) || sheet.is_dealbreaker(mark) {
            fallen[mark.block] = true;
        }
    }
    blocks
        .iter()
        .enumerate()
        .filter(|&(index, _)| sheet.is_judged(index) && has_binding_score[index] && !fallen[index])
        .map(|(_, block_id)| block_id.clone())
        .collect()
}

/// A judge of the panel and what it produced.
struct Seat<'a> {
    config: &'a JudgeConfig,
    standing: Standing<'a>,
}

enum Standing<'a> {
    Present(&'a JudgeScores),
    Missing(Absence),
}

impl<'a> Seat<'a> {
    fn scores(&self) -> Option<&'a JudgeScores> {
        match self.standing {
            Standing::Present(scores) => Some(scores),
            Standing::Missing(_) => None,
        }
    }
}

/// One counted score: a present judge, a known block, one of its own criteria.
struct Mark<'a> {
    seat: usize,
    block: usize,
    /// Position of the criterion in the judge's own list.
    criterion_rank: usize,
    criterion: Criterion,
    score: u8,
    rationale: &'a str,
}

impl Mark<'_> {
    /// Most severe first: lowest score, then block, panel and criterion order.
    fn severity_key(&self) -> (u8, usize, usize, usize, &str) {
        (
            self.score,
            self.block,
            self.seat,
            self.criterion_rank,
            self.rationale,
        )
    }
}

/// The synthesis means of the present judges, overall and per field.
struct SynthesisMeans {
    overall: f64,
    integration: f64,
    risk_coverage: f64,
    revision_quality: f64,
}

/// A block that scores high on correctness but low on simplicity.
struct GuardFailure {
    block: usize,
    correctness: f64,
    simplicity: f64,
}

/// The panel's results arranged for the checks.
struct Scoresheet<'a> {
    seats: Vec<Seat<'a>>,
    blocks: &'a [String],
    /// Whether each entry of `blocks` is the first with its id; repeats are
    /// not judged twice.
    first_of_id: Vec<bool>,
    /// Sorted most severe first.
    marks: Vec<Mark<'a>>,
    thresholds: &'a Thresholds,
}

impl<'a> Scoresheet<'a> {
    fn new(
        panel: &'a [JudgeConfig],
        results: &'a BTreeMap<JudgeRole, JudgeResult>,
        blocks: &'a [String],
        thresholds: &'a Thresholds,
    ) -> Self {
        let mut block_positions: HashMap<&str, usize> = HashMap::new();
        let mut first_of_id = Vec::with_capacity(blocks.len());
        for (index, block_id) in blocks.iter().enumerate() {
            let first = !block_positions.contains_key(block_id.as_str());
            block_positions.entry(block_id.as_str()).or_insert(index);
            first_of_id.push(first);
        }

        let mut seats: Vec<Seat<'a>> = Vec::with_capacity(panel.len());
        for config in panel {
            if seats.iter().any(|seat| seat.config.role == config.role) {
                continue;
            }
            let standing = match results.get(&config.role) {
                None => Standing::Missing(Absence::Pending),
                Some(JudgeResult::Scored(scores)) => Standing::Present(scores),
                Some(JudgeResult::Skipped { reason }) => Standing::Missing(Absence::Skipped {
                    reason: reason.clone(),
                }),
                Some(JudgeResult::Malformed { reason }) => Standing::Missing(Absence::Malformed {
                    reason: reason.clone(),
                }),
                Some(JudgeResult::Recused { reason }) => Standing::Missing(Absence::Recused {
                    reason: reason.clone(),
                }),
            };
            seats.push(Seat { config, standing });
        }

        let mut marks = Vec::new();
        for (seat_index, seat) in seats.iter().enumerate() {
            let Some(scores) = seat.scores() else {
                continue;
            };
            for block_score in &scores.block_scores {
                let Some(&block) = block_positions.get(block_score.block_id.as_str()) else {
                    continue;
                };
                let Some(criterion_rank) = seat
                    .config
                    .criteria
                    .iter()
                    .position(|&own| own == block_score.criterion)
                else {
                    continue;
                };
                marks.push(Mark {
                    seat: seat_index,
                    block,
                    criterion_rank,
                    criterion: block_score.criterion,
                    score: block_score.score,
                    rationale: block_score.rationale.as_str(),
                });
            }
        }
        marks.sort_by(|a, b| a.severity_key().cmp(&b.severity_key()));

        Scoresheet {
            seats,
            blocks,
            first_of_id,
            marks,
            thresholds,
        }
    }

    /// Whether `block` is judged: the first entry of `blocks` with its id.
    fn is_judged(&self, block: usize) -> bool {
        self.first_of_id[block]
    }

    fn role(&self, mark: &Mark<'_>) -> JudgeRole {
        self.seats[mark.seat].config.role
    }

    fn present(&self) -> impl Iterator<Item = (usize, &'a JudgeScores)> + '_ {
        self.seats
            .iter()
            .enumerate()
            .filter_map(|(index, seat)| seat.scores().map(|scores| (index, scores)))
    }

    fn quorum(&self) -> QuorumStatus {
        // A recused judge is not of the panel the quorum counts (issue 29).
        let panel_size = self
            .seats
            .iter()
            .filter(|seat| !matches!(seat.standing, Standing::Missing(Absence::Recused { .. })))
            .count();
        let required = quorum_required(panel_size);
        let present = self.present().count();
        QuorumStatus {
            panel_size,
            required,
            present,
            met: present >= required,
        }
    }

    fn missing_judges(&self) -> Vec<MissingJudge> {
        self.seats
            .iter()
            .filter_map(|seat| match &seat.standing {
                Standing::Present(_) => None,
                Standing::Missing(absence) => Some(MissingJudge {
                    role: seat.config.role,
                    absence: absence.clone(),
                }),
            })
            .collect()
    }

    /// Marks are counted only on a judge's own criteria, so every risk mark
    /// comes from a judge whose criteria include risk (A6).
    fn is_dealbreaker(&self, mark: &Mark<'_>) -> bool {
        mark.criterion == Criterion::Risk && mark.score <= self.thresholds.dealbreaker_max
    }

    fn is_binding_failure(&self, mark: &Mark<'_>) -> bool {
        self.seats[mark.seat].config.is_binding() && mark.score < self.thresholds.binding
    }

    fn criterion_mean(&self, block: usize, criterion: Criterion) -> Option<f64> {
        mean(
            self.marks
                .iter()
                .filter(|mark| mark.block == block && mark.criterion == criterion)
                .map(|mark| mark.score),
        )
    }

    /// Blocks failing the guard, most over-engineered first (lowest mean
    /// simplicity, then block order).
    fn guard_failures(&self) -> Vec<GuardFailure> {
        let mut failures: Vec<GuardFailure> = self
            .judged_blocks()
            .filter_map(|block| {
                let correctness = self.criterion_mean(block, Criterion::Correctness)?;
                let simplicity = self.criterion_mean(block, Criterion::Simplicity)?;
                let fails = at_least(correctness, self.thresholds.guard_correctness_min)
                    && at_most(simplicity, self.thresholds.guard_simplicity_max);
                fails.then_some(GuardFailure {
                    block,
                    correctness,
                    simplicity,
                })
            })
            .collect();
        failures.sort_by(|a, b| {
            a.simplicity
                .total_cmp(&b.simplicity)
                .then(a.block.cmp(&b.block))
        });
        failures
    }

    fn synthesis(&self) -> Option<SynthesisMeans> {
        let syntheses: Vec<_> = self
            .present()
            .map(|(_, scores)| &scores.synthesis)
            .collect();
        Some(SynthesisMeans {
            overall: mean(syntheses.iter().flat_map(|synthesis| synthesis.values()))?,
            integration: mean(syntheses.iter().map(|synthesis| synthesis.integration))?,
            risk_coverage: mean(syntheses.iter().map(|synthesis| synthesis.risk_coverage))?,
            revision_quality: mean(syntheses.iter().map(|synthesis| synthesis.revision_quality))?,
        })
    }

    fn judged_blocks(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.blocks.len()).filter(|&block| self.is_judged(block))
    }

    /// Low scores of advisory judges on their own criteria, as notes (A6).
    fn advisory_notes(&self) -> Vec<Directive> {
        let mut marks: Vec<&Mark<'_>> = self
            .marks
            .iter()
            .filter(|mark| {
                !self.seats[mark.seat].config.is_binding() && mark.score < self.thresholds.binding
            })
            .collect();
        marks.sort_by_key(|mark| mark.severity_key());
        marks
            .into_iter()
            .map(|mark| Directive {
                judge: Some(self.role(mark)),
                block_id: Some(self.blocks[mark.block].clone()),
                criterion: Some(mark.criterion),
                score: Some(mark.score),
                text: match mark.rationale.trim() {
                    "" => "no rationale given".to_string(),
                    rationale => rationale.to_string(),
                },
            })
            .collect()
    }

    /// Directives for every REVISE condition that holds (A8).
    fn directives(
        &self,
        guard_failures: &[GuardFailure],
        synthesis: Option<&SynthesisMeans>,
    ) -> Vec<Directive> {
        let mut directives: Vec<Directive> = self
            .marks
            .iter()
            .filter(|mark| self.is_binding_failure(mark))
            .map(|mark| {
                let rationale = mark.rationale.trim();
                Directive {
                    judge: Some(self.role(mark)),
                    block_id: Some(self.blocks[mark.block].clone()),
                    criterion: Some(mark.criterion),
                    score: Some(mark.score),
                    text: if rationale.is_empty() {
                        format!(
                            "below the binding threshold of {} (no rationale given)",
                            self.thresholds.binding
                        )
                    } else {
                        rationale.to_string()
                    },
                }
            })
            .collect();

        for failure in guard_failures {
            let notes: Vec<String> = self
                .marks
                .iter()
                .filter(|mark| {
                    mark.block == failure.block
                        && mark.criterion == Criterion::Simplicity
                        && at_most(f64::from(mark.score), self.thresholds.guard_simplicity_max)
                        && !mark.rationale.trim().is_empty()
                })
                .map(|mark| format!("{}: {}", self.role(mark), mark.rationale.trim()))
                .collect();
            let mut text = format!(
                "{} is over-engineered for what it achieves (correctness {}, simplicity {}); \
                 make it simpler without losing what makes it correct",
                self.blocks[failure.block],
                number(failure.correctness),
                number(failure.simplicity)
            );
            if !notes.is_empty() {
                text.push_str(". ");
                text.push_str(&notes.join("; "));
            }
            directives.push(Directive {
                judge: None,
                block_id: Some(self.blocks[failure.block].clone()),
                criterion: Some(Criterion::Simplicity),
                score: None,
                text,
            });
        }

        if let Some(means) = synthesis.filter(|means| self.synthesis_fails(means)) {
            directives.push(Directive {
                judge: None,
                block_id: None,
                criterion: None,
                score: None,
                text: format!(
                    "the revision does not hold together as a whole: synthesis mean {} < {} \
                     (integration {}, risk coverage {}, revision quality {})",
                    number(means.overall),
                    number(self.thresholds.synthesis),
                    number(means.integration),
                    number(means.risk_coverage),
                    number(means.revision_quality)
                ),
            });
        }
        directives
    }

    fn synthesis_fails(&self, means: &SynthesisMeans) -> bool {
        !at_least(means.overall, self.thresholds.synthesis)
    }

    /// Runs the checks in order; the first that fires decides.
    fn decide(
        &self,
        guard_failures: &[GuardFailure],
        synthesis: Option<&SynthesisMeans>,
        uncertainty: &[String],
        quorum: &QuorumStatus,
    ) -> (Verdict, Check, String) {
        let thresholds = self.thresholds;
        if let Some(mark) = self.marks.iter().find(|mark| self.is_dealbreaker(mark)) {
            let rule = format!(
                "{} scored {} risk {} ≤ {} (dealbreaker) → REJECT",
                self.role(mark),
                self.blocks[mark.block],
                mark.score,
                thresholds.dealbreaker_max
            );
            return (Verdict::Reject, Check::Dealbreaker, rule);
        }
        if let Some(mark) = self.marks.iter().find(|mark| self.is_binding_failure(mark)) {
            let rule = format!(
                "{} scored {} {} {} < {} → REVISE",
                self.role(mark),
                self.blocks[mark.block],
                mark.criterion,
                mark.score,
                thresholds.binding
            );
            return (Verdict::Revise, Check::BindingJudge, rule);
        }
        if let Some(failure) = guard_failures.first() {
            let rule = format!(
                "{}: correctness {} ≥ {} but simplicity {} ≤ {} (over-engineered) → REVISE",
                self.blocks[failure.block],
                number(failure.correctness),
                number(thresholds.guard_correctness_min),
                number(failure.simplicity),
                number(thresholds.guard_simplicity_max)
            );
            return (Verdict::Revise, Check::Guard, rule);
        }
        if let Some(means) = synthesis.filter(|means| self.synthesis_fails(means)) {
            let rule = format!(
                "synthesis mean {} < {} → REVISE",
                number(means.overall),
                number(thresholds.synthesis)
            );
            return (Verdict::Revise, Check::Synthesis, rule);
        }
        if quorum.present == 0 {
            let rule = "no judge produced a usable score → ESCALATE".to_string();
            return (Verdict::Escalate, Check::Uncertainty, rule);
        }
        if let Some(first) = uncertainty.first() {
            let more = match uncertainty.len() - 1 {
                0 => String::new(),
                1 => " (+1 more reason)".to_string(),
                n => format!(" (+{n} more reasons)"),
            };
            let rule = format!("{first} → ESCALATE{more}");
            return (Verdict::Escalate, Check::Uncertainty, rule);
        }
        let synthesis_mean = synthesis.map_or(0.0, |means| means.overall);
        let rule = format!(
            "all checks passed: binding judges ≥ {}, synthesis mean {} ≥ {}, no dealbreaker, \
             no over-engineered block, quorum {} of {} → ADOPT",
            thresholds.binding,
            number(synthesis_mean),
            number(thresholds.synthesis),
            quorum.present,
            quorum.panel_size
        );
        (Verdict::Adopt, Check::AllPassed, rule)
    }
}

fn mean(scores: impl IntoIterator<Item = u8>) -> Option<f64> {
    let (sum, count) = scores
        .into_iter()
        .fold((0u32, 0u32), |(sum, count), score| {
            (sum + u32::from(score), count + 1)
        });
    (count > 0).then(|| f64::from(sum) / f64::from(count))
}

fn at_least(value: f64, threshold: f64) -> bool {
    value >= threshold - SCORE_EPSILON
}

fn at_most(value: f64, threshold: f64) -> bool {
    value <= threshold + SCORE_EPSILON
}

/// A score or mean for a rule line: at most two decimals, no trailing zeros.
fn number(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decision_review::model::{
        BlockScore, SynthesisScore, Weight, architecture_panel,
    };

    use Criterion::*;
    use JudgeRole::*;

    fn block_ids(count: usize) -> Vec<String> {
        (1..=count).map(|n| format!("b{n}")).collect()
    }

    /// A judge that gives `score` on every block and each of its criteria,
    /// and `score` on every synthesis field.
    fn uniform_scores(config: &JudgeConfig, blocks: &[String], score: u8) -> JudgeScores {
        let block_scores = blocks
            .iter()
            .flat_map(|block_id| {
                config.criteria.iter().map(move |&criterion| BlockScore {
                    block_id: block_id.clone(),
                    criterion,
                    judge: config.role,
                    score,
                    rationale: format!("{} on {block_id}: fine", criterion.as_str()),
                })
            })
            .collect();
        JudgeScores {
            block_scores,
            synthesis: SynthesisScore {
                judge: config.role,
                integration: score,
                risk_coverage: score,
                revision_quality: score,
            },
            insufficient_information: Vec::new(),
        }
    }

    fn scores_of(
        results: &mut BTreeMap<JudgeRole, JudgeResult>,
        role: JudgeRole,
    ) -> &mut JudgeScores {
        match results.get_mut(&role) {
            Some(JudgeResult::Scored(scores)) => scores,
            other => panic!("{role} has no scores: {other:?}"),
        }
    }

    /// Sets one block score, replacing the judge's existing one if any.
    fn rescore(
        results: &mut BTreeMap<JudgeRole, JudgeResult>,
        role: JudgeRole,
        block_id: &str,
        criterion: Criterion,
        score: u8,
        rationale: &str,
    ) {
        unscore(results, role, block_id, criterion);
        scores_of(results, role).block_scores.push(BlockScore {
            block_id: block_id.to_string(),
            criterion,
            judge: role,
            score,
            rationale: rationale.to_string(),
        });
    }

    /// Removes the judge's score of `block_id` on `criterion`, if any.
    fn unscore(
        results: &mut BTreeMap<JudgeRole, JudgeResult>,
        role: JudgeRole,
        block_id: &str,
        criterion: Criterion,
    ) {
        scores_of(results, role)
            .block_scores
            .retain(|s| !(s.block_id == block_id && s.criterion == criterion));
    }

    fn skipped(reason: &str) -> JudgeResult {
        JudgeResult::Skipped {
            reason: reason.into(),
        }
    }

    fn malformed(reason: &str) -> JudgeResult {
        JudgeResult::Malformed {
            reason: reason.into(),
        }
    }

    /// Issue 29, the held-out judge as the verdict uses it: without one,
    /// the rule is the panel's; a held-out judge with no usable scores
    /// leaves an ADOPT unconfirmed (ESCALATE); any other verdict of the
    /// rest stands whatever it scored.
    /// Every judge of `panel` scoring every block `score`.
    fn every_judge_scoring(
        panel: &[JudgeConfig],
        blocks: &[String],
        score: u8,
    ) -> BTreeMap<JudgeRole, JudgeResult> {
        panel
            .iter()
            .map(|judge| {
                let scores = uniform_scores(judge, blocks, score);
                (judge.role, JudgeResult::Scored(scores))
            })
            .collect()
    }

    /// EV-09 (issue 52): an ADOPT whose binding judges cited, none of it
    /// verified, is ESCALATE with the citation in its rule; any other
    /// verdict, or an ADOPT with nothing failed, stands.
    #[test]
    fn ev_09_an_adopt_resting_on_citations_that_all_failed_escalates() {
        let panel = architecture_panel(false);
        let blocks = block_ids(3);
        let all = |score: u8| every_judge_scoring(&panel, &blocks, score);
        let thresholds = Thresholds::default();
        let adopt = derive_verdict(&panel, &all(4), &blocks, &thresholds);
        assert_eq!(adopt.verdict, Verdict::Adopt);
        assert_eq!(bound_by_evidence(adopt.clone(), None), adopt);
        let why = "\"p99 of 40 ms\" — bench.md, not found in bench.md nor in any other source";
        let bound = bound_by_evidence(adopt.clone(), Some(why));
        assert_eq!(bound.verdict, Verdict::Escalate);
        assert_eq!(bound.check, Check::Uncertainty);
        assert!(
            bound.rule.ends_with(&format!(
                "the binding judges' citations all failed to verify ({why}), so the panel's ADOPT rests on nothing quorum could check → ESCALATE"
            )),
            "{}",
            bound.rule
        );
        let reject = derive_verdict(&panel, &all(1), &blocks, &thresholds);
        assert_ne!(reject.verdict, Verdict::Adopt);
        assert_eq!(bound_by_evidence(reject.clone(), Some(why)), reject);
    }

    #[test]
    fn issue_29_a_held_out_judge_can_only_stop_an_adopt() {
        let panel = architecture_panel(true);
        let blocks = block_ids(3);
        let all = |score: u8| every_judge_scoring(&panel, &blocks, score);
        let thresholds = Thresholds::default();
        let plain = derive_verdict(&panel, &all(4), &blocks, &thresholds);
        assert_eq!(
            derive_with_held_out(&panel, &all(4), &blocks, &thresholds, None),
            plain
        );
        let mut silent = all(4);
        silent.insert(Strategist, skipped("timed out twice"));
        let unconfirmed =
            derive_with_held_out(&panel, &silent, &blocks, &thresholds, Some(Strategist));
        assert_eq!(unconfirmed.verdict, Verdict::Escalate);
        assert!(
            unconfirmed
                .rule
                .ends_with("the held-out strategist gave no usable scores of the final revision, so the panel's ADOPT is unconfirmed → ESCALATE"),
            "{}",
            unconfirmed.rule
        );
        let mut recused = all(4);
        recused.insert(
            Strategist,
            JudgeResult::Recused {
                reason: "judge.strategist shares the proposer's model family".into(),
            },
        );
        let left_out =
            derive_with_held_out(&panel, &recused, &blocks, &thresholds, Some(Strategist));
        assert_eq!(left_out.verdict, Verdict::Escalate);
        assert!(
            left_out
                .rule
                .contains("the held-out strategist was recused for its model family"),
            "{}",
            left_out.rule
        );
        // The rest send it back: the held-out judge's praise changes nothing.
        let mut revise = all(2);
        let strategist = panel.iter().find(|judge| judge.role == Strategist).unwrap();
        revise.insert(
            Strategist,
            JudgeResult::Scored(uniform_scores(strategist, &blocks, 5)),
        );
        let kept = derive_with_held_out(&panel, &revise, &blocks, &thresholds, Some(Strategist));
        let rest = derive_verdict(
            &seated_without(&panel, Some(Strategist)),
            &revise,
            &blocks,
            &thresholds,
        );
        assert_eq!(kept.verdict, rest.verdict);
        assert!(
            kept.rule.ends_with("it can only stop an ADOPT)"),
            "{}",
            kept.rule
        );
    }

    /// One block score a test sets: judge, block, criterion, score, rationale.
    type NewScore = (JudgeRole, &'static str, Criterion, u8, &'static str);

    /// A panel, its blocks and the judges' results, which a test changes
    /// and then assesses against the default thresholds.
    struct Scene {
        panel: Vec<JudgeConfig>,
        blocks: Vec<String>,
        results: BTreeMap<JudgeRole, JudgeResult>,
    }

    impl Scene {
        /// The architecture panel on `blocks` blocks, every judge scoring 4
        /// everywhere: an ADOPT.
        fn new(high_stakes: bool, blocks: usize) -> Self {
            Self::uniform(architecture_panel(high_stakes), blocks, 4)
        }

        /// `panel` on `blocks` blocks, every judge scoring `score` everywhere.
        fn uniform(panel: Vec<JudgeConfig>, blocks: usize, score: u8) -> Self {
            let blocks = block_ids(blocks);
            let results = panel
                .iter()
                .map(|config| {
                    let scores = uniform_scores(config, &blocks, score);
                    (config.role, JudgeResult::Scored(scores))
                })
                .collect();
            Scene {
                panel,
                blocks,
                results,
            }
        }

        /// Sets each block score, replacing the judge's existing one if any.
        fn rescore(&mut self, scores: &[NewScore]) -> &mut Self {
            for &(role, block_id, criterion, score, rationale) in scores {
                rescore(
                    &mut self.results,
                    role,
                    block_id,
                    criterion,
                    score,
                    rationale,
                );
            }
            self
        }

        fn unscore(&mut self, role: JudgeRole, block_id: &str, criterion: Criterion) {
            unscore(&mut self.results, role, block_id, criterion);
        }

        /// Gives each of `roles` the synthesis scores `values`.
        fn set_synthesis(&mut self, roles: &[JudgeRole], values: [u8; 3]) {
            for &role in roles {
                let synthesis = &mut self.scores_of(role).synthesis;
                synthesis.integration = values[0];
                synthesis.risk_coverage = values[1];
                synthesis.revision_quality = values[2];
            }
        }

        fn scores_of(&mut self, role: JudgeRole) -> &mut JudgeScores {
            scores_of(&mut self.results, role)
        }

        fn assess(&self) -> Assessment {
            self.assess_with(&Thresholds::default())
        }

        fn assess_with(&self, thresholds: &Thresholds) -> Assessment {
            derive_verdict(&self.panel, &self.results, &self.blocks, thresholds)
        }
    }

    #[test]
    fn dr_30_checks_run_in_order_dealbreaker_first() {
        let mut scene = Scene::new(false, 3);
        scene.rescore(&[
            (Analyst, "b3", Risk, 1, "data loss on failover"),
            (Analyst, "b2", Feasibility, 2, "needs a team we lack"),
            (Analyst, "b1", Correctness, 5, "solves it"),
            (Aesthete, "b1", Simplicity, 1, "three queues for one job"),
        ]);
        scene.set_synthesis(&[Analyst, Stylist, Aesthete], [2, 2, 2]);
        scene.scores_of(Stylist).insufficient_information = vec!["b2".into()];

        let ladder = [
            (Verdict::Reject, Check::Dealbreaker),
            (Verdict::Revise, Check::BindingJudge),
            (Verdict::Revise, Check::Guard),
            (Verdict::Revise, Check::Synthesis),
            (Verdict::Escalate, Check::Uncertainty),
            (Verdict::Adopt, Check::AllPassed),
        ];
        for (step, expected) in ladder.into_iter().enumerate() {
            let assessment = scene.assess();
            assert_eq!(
                (assessment.verdict, assessment.check),
                expected,
                "step {step}: {}",
                assessment.rule
            );
            match step {
                0 => {
                    scene.rescore(&[(Analyst, "b3", Risk, 4, "contained")]);
                }
                1 => {
                    scene.rescore(&[(Analyst, "b2", Feasibility, 4, "doable")]);
                }
                2 => {
                    scene.rescore(&[(Aesthete, "b1", Simplicity, 3, "acceptable")]);
                }
                3 => scene.set_synthesis(&[Analyst, Stylist, Aesthete], [4, 4, 4]),
                4 => scene.scores_of(Stylist).insufficient_information.clear(),
                _ => {}
            }
        }
    }

    #[test]
    fn dr_31_risk_of_one_is_a_dealbreaker() {
        let mut scene = Scene::new(false, 3);
        let assessment = scene
            .rescore(&[(Analyst, "b3", Risk, 1, "no rollback path")])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Reject);
        assert_eq!(assessment.check, Check::Dealbreaker);
        assert_eq!(
            assessment.rule,
            "analyst scored b3 risk 1 ≤ 1 (dealbreaker) → REJECT"
        );

        let assessment = scene
            .rescore(&[(Analyst, "b3", Risk, 2, "rollback is manual")])
            .assess();
        assert_eq!(
            assessment.verdict,
            Verdict::Revise,
            "a 2 is low but not a dealbreaker"
        );
    }

    #[test]
    fn a6_advisory_judge_cannot_veto() {
        let mut scene = Scene::new(false, 2);
        for block_id in ["b1", "b2"] {
            scene.rescore(&[
                (Stylist, block_id, Clarity, 1, "hard to follow"),
                (Stylist, block_id, Reversibility, 3, "undoable"),
            ]);
        }
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Adopt, "{}", assessment.rule);
        assert!(
            assessment.directives.is_empty(),
            "advisory lows are not binding directives"
        );
        // They do not vanish: notes, most severe first, 3 is not low.
        let notes: Vec<String> = assessment
            .advisory_notes
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].contains("b1") && notes[0].contains("hard to follow"),
            "{notes:?}"
        );
    }

    #[test]
    fn a6_risk_score_outside_a_judges_criteria_is_ignored() {
        let assessment = Scene::new(false, 1)
            .rescore(&[(Stylist, "b1", Risk, 1, "scary")])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Adopt, "{}", assessment.rule);
    }

    #[test]
    fn a6_advisory_judge_given_risk_can_raise_a_dealbreaker() {
        let panel = vec![
            JudgeConfig::new(Analyst, Weight::Binding, &[Correctness, Feasibility]),
            JudgeConfig::new(Empiricist, Weight::Advisory, &[Risk]),
            JudgeConfig::new(Aesthete, Weight::Advisory, &[Simplicity]),
        ];
        let assessment = Scene::uniform(panel, 2, 4)
            .rescore(&[(Empiricist, "b2", Risk, 1, "outage data says so")])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Reject);
        assert_eq!(
            assessment.rule,
            "empiricist scored b2 risk 1 ≤ 1 (dealbreaker) → REJECT"
        );
    }

    #[test]
    fn dr_32_binding_judge_below_threshold_revises() {
        let mut scene = Scene::new(false, 3);
        let assessment = scene
            .rescore(&[(
                Analyst,
                "b2",
                Feasibility,
                2,
                "needs a team of ten for a year",
            )])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Revise);
        assert_eq!(assessment.check, Check::BindingJudge);
        assert_eq!(
            assessment.rule,
            "analyst scored b2 feasibility 2 < 3 → REVISE"
        );
        assert_eq!(
            assessment.directives,
            vec![Directive {
                judge: Some(Analyst),
                block_id: Some("b2".into()),
                criterion: Some(Feasibility),
                score: Some(2),
                text: "needs a team of ten for a year".into(),
            }]
        );
        assert_eq!(
            assessment.directives[0].to_string(),
            "b2 feasibility 2 (analyst): needs a team of ten for a year"
        );

        scene.rescore(&[(Analyst, "b2", Feasibility, 3, "tight but possible")]);
        assert_eq!(
            scene.assess().verdict,
            Verdict::Adopt,
            "3 is on the threshold"
        );
    }

    #[test]
    fn dr_32_rule_names_the_most_severe_instance() {
        let mut scene = Scene::new(true, 3);
        let assessment = scene
            .rescore(&[
                (Analyst, "b1", Correctness, 2, "partly"),
                (Strategist, "b3", Reversibility, 2, "one-way door"),
                (Strategist, "b2", Reversibility, 2, "hard to undo"),
                (Analyst, "b2", Feasibility, 2, "stretch"),
            ])
            .assess();
        // All are 2: block order first (b1), then panel order, then criterion order.
        assert_eq!(
            assessment.rule,
            "analyst scored b1 correctness 2 < 3 → REVISE"
        );
        let order: Vec<_> = assessment
            .directives
            .iter()
            .map(|d| (d.block_id.clone().unwrap(), d.judge.unwrap()))
            .collect();
        assert_eq!(
            order,
            vec![
                ("b1".to_string(), Analyst),
                ("b2".to_string(), Analyst),
                ("b2".to_string(), Strategist),
                ("b3".to_string(), Strategist),
            ]
        );

        let assessment = scene
            .rescore(&[(Strategist, "b3", Reversibility, 1, "irreversible")])
            .assess();
        assert_eq!(
            assessment.rule, "strategist scored b3 reversibility 1 < 3 → REVISE",
            "lowest score wins"
        );
    }

    #[test]
    fn dr_33_synthesis_mean_is_recomputed_over_all_fields() {
        let mut scene = Scene::new(false, 2);
        // Integration alone would pass; the three fields of every judge do not.
        scene.set_synthesis(&[Analyst, Stylist], [5, 2, 2]);
        scene.set_synthesis(&[Aesthete], [5, 2, 1]);
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Revise);
        assert_eq!(assessment.check, Check::Synthesis);
        assert_eq!(assessment.rule, "synthesis mean 2.89 < 3 → REVISE");
        assert_eq!(assessment.synthesis_mean, Some(26.0 / 9.0));
        let directive = assessment.directives.last().unwrap();
        assert_eq!(
            (directive.judge, directive.block_id.as_deref()),
            (None, None)
        );
        assert!(
            directive
                .text
                .contains("integration 5, risk coverage 2, revision quality 1.67"),
            "{}",
            directive.text
        );
    }

    #[test]
    fn a3_synthesis_mean_counts_advisory_judges_too() {
        let mut scene = Scene::new(false, 1);
        scene.set_synthesis(&[Analyst], [5, 5, 5]);
        scene.set_synthesis(&[Stylist], [1, 1, 1]);
        scene.set_synthesis(&[Aesthete], [2, 2, 2]);
        assert_eq!(scene.assess().rule, "synthesis mean 2.67 < 3 → REVISE");
    }

    #[test]
    fn dr_34_disagreement_escalates() {
        let mut scene = Scene::new(false, 2);
        for criterion in [Correctness, Feasibility, Risk] {
            scene.rescore(&[(Analyst, "b2", criterion, 5, "strong")]);
        }
        let assessment = scene
            .rescore(&[
                (Stylist, "b2", Clarity, 2, "opaque"),
                (Stylist, "b2", Reversibility, 2, "sticky"),
            ])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Escalate);
        assert_eq!(
            assessment.rule,
            "b2: judges' means range from 2 (stylist) to 5 (analyst), a span of 3 ≥ 3 → ESCALATE"
        );

        let assessment = scene
            .rescore(&[(Stylist, "b2", Reversibility, 3, "some effort")])
            .assess();
        assert_eq!(
            assessment.verdict,
            Verdict::Adopt,
            "a span of 2.5 is not major: {}",
            assessment.rule
        );
    }

    /// A4: a 5 against a 2 on the same block and criterion is a split even
    /// when each judge's mean over its criteria hides it.
    #[test]
    fn a4_a_raw_split_on_one_criterion_escalates_though_the_means_agree() {
        // An advisory judge's 2 against a binding judge's 5 on the same
        // block and criterion: no binding judge fails (so nothing revises
        // first, DR-30), and the means stay close (analyst 4.33, empiricist
        // 3.5).
        let assessment = Scene::new(true, 2)
            .rescore(&[
                (Analyst, "b1", Correctness, 5, "proven in the spike"),
                (Empiricist, "b1", Correctness, 2, "one benchmark only"),
                (Empiricist, "b1", Feasibility, 5, "the team has done it"),
            ])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Escalate, "{}", assessment.rule);
        assert!(
            assessment.rule.ends_with("→ ESCALATE")
                && assessment
                    .rule
                    .contains("b1 correctness: empiricist scored 2, analyst scored 5"),
            "{}",
            assessment.rule
        );
        assert!(
            assessment.uncertainty.iter().any(|reason| reason
                == "b1 correctness: empiricist scored 2, analyst scored 5, a span of 3 ≥ 3"),
            "{:?}",
            assessment.uncertainty
        );
    }

    /// DR-30 order: the same raw split beside a failing binding judge
    /// revises first, and the split is still recorded as uncertainty.
    #[test]
    fn dr_30_a_raw_split_beside_a_binding_failure_revises_and_is_recorded() {
        let assessment = Scene::new(true, 2)
            .rescore(&[
                (Analyst, "b1", Risk, 5, "well contained"),
                (Strategist, "b1", Risk, 2, "one region only"),
                (Strategist, "b1", Reversibility, 5, "flag off"),
            ])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Revise, "{}", assessment.rule);
        assert!(
            assessment.uncertainty.iter().any(|reason| reason
                == "b1 risk: strategist scored 2, analyst scored 5, a span of 3 ≥ 3"),
            "{:?}",
            assessment.uncertainty
        );
    }

    #[test]
    fn a4_insufficient_information_escalates() {
        let mut scene = Scene::new(false, 3);
        let stylist = scene.scores_of(Stylist);
        stylist.insufficient_information = vec!["b3".into(), "b1".into()];
        stylist.block_scores.retain(|s| s.block_id == "b2");
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Escalate);
        assert_eq!(
            assessment.rule,
            "stylist lacks the information to score b1, b3 → ESCALATE"
        );
        assert_eq!(
            assessment.uncertainty.len(),
            1,
            "declared gaps are not also unscored gaps"
        );
    }

    #[test]
    fn a4_unscored_criterion_escalates() {
        let mut scene = Scene::new(false, 2);
        scene.unscore(Analyst, "b2", Risk);
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Escalate);
        assert_eq!(
            assessment.rule,
            "analyst left unscored: b2 (risk) → ESCALATE"
        );
    }

    #[test]
    fn a4_every_uncertainty_reason_is_recorded_in_order() {
        let mut scene = Scene::new(true, 2);
        scene.results.insert(Strategist, skipped("timed out twice"));
        scene.results.insert(Stylist, malformed("no YAML"));
        scene.results.remove(&Empiricist);
        scene.rescore(&[
            (Analyst, "b1", Correctness, 3, "partly"),
            (Analyst, "b1", Feasibility, 5, "easy"),
            (Analyst, "b1", Risk, 5, "contained"),
            (Aesthete, "b1", Simplicity, 1, "sprawling"),
        ]);
        scene.scores_of(Aesthete).insufficient_information = vec!["b2".into()];
        scene.unscore(Analyst, "b2", Risk);
        let assessment = scene.assess();
        assert_eq!(
            assessment.uncertainty,
            vec![
                "below quorum: 2 of 5 judges produced usable scores, 3 needed",
                "strategist is missing (skipped), a binding judge",
                "aesthete lacks the information to score b2",
                "b1: judges' means range from 1 (aesthete) to 4.33 (analyst), a span of 3.33 ≥ 3",
                "analyst left unscored: b2 (risk)",
            ]
        );
        assert_eq!(
            assessment.rule,
            "below quorum: 2 of 5 judges produced usable scores, 3 needed → ESCALATE (+4 more reasons)"
        );
        assert_eq!(assessment.missing_binding, vec![Strategist]);
        let missing: Vec<_> = assessment.missing_judges.iter().map(|m| m.role).collect();
        assert_eq!(
            missing,
            vec![Stylist, Strategist, Empiricist],
            "panel order"
        );
    }

    #[test]
    fn dr_35_one_binding_failure_blocks_adopt() {
        let mut scene = Scene::uniform(architecture_panel(true), 4, 5);
        assert_eq!(scene.assess().verdict, Verdict::Adopt);
        let assessment = scene
            .rescore(&[(
                Strategist,
                "b4",
                Reversibility,
                2,
                "schema change cannot be rolled back",
            )])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Revise);
        assert_eq!(
            assessment.rule,
            "strategist scored b4 reversibility 2 < 3 → REVISE"
        );
    }

    #[test]
    fn dr_36_advisory_cannot_force_adopt_past_binding_veto() {
        let assessment = Scene::uniform(architecture_panel(true), 2, 5)
            .rescore(&[(Analyst, "b1", Correctness, 2, "misses the latency goal")])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Revise);
        assert_eq!(assessment.check, Check::BindingJudge);
    }

    #[test]
    fn dr_37_missing_binding_judge_never_adopts() {
        let mut scene = Scene::new(false, 2);
        scene.results.insert(Analyst, skipped("timed out twice"));
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Escalate);
        assert_eq!(
            assessment.rule,
            "analyst is missing (skipped), a binding judge → ESCALATE"
        );
        assert!(assessment.quorum.met, "2 of 3 is a quorum");
        assert_eq!(assessment.missing_binding, vec![Analyst]);
        assert_eq!(
            assessment.missing_judges,
            vec![MissingJudge {
                role: Analyst,
                absence: Absence::Skipped {
                    reason: "timed out twice".into()
                },
            }]
        );

        scene.results.remove(&Analyst);
        assert_eq!(
            scene.assess().rule,
            "analyst is missing (pending), a binding judge → ESCALATE"
        );

        // A7: a REVISE condition still stands when a binding judge is missing.
        scene.set_synthesis(&[Stylist, Aesthete], [2, 2, 2]);
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Revise);
        assert_eq!(assessment.check, Check::Synthesis);
        assert_eq!(
            assessment.uncertainty,
            vec!["analyst is missing (pending), a binding judge".to_string()]
        );
    }

    #[test]
    fn inf_18_quorum_two_of_three_three_of_five() {
        assert_eq!(quorum_required(3), 2);
        assert_eq!(quorum_required(5), 3);
        let mut scene = Scene::new(true, 1);
        scene.results.remove(&Stylist);
        scene.results.insert(Empiricist, malformed("score 7"));
        assert_eq!(
            scene.assess().quorum,
            QuorumStatus {
                panel_size: 5,
                required: 3,
                present: 3,
                met: true
            }
        );
        scene.results.insert(Aesthete, skipped("no output"));
        let assessment = scene.assess();
        assert!(!assessment.quorum.met);
        assert_eq!(assessment.verdict, Verdict::Escalate);
        assert_eq!(
            assessment.rule,
            "below quorum: 2 of 5 judges produced usable scores, 3 needed → ESCALATE"
        );
    }

    #[test]
    fn inf_19_below_quorum_still_yields_a_verdict() {
        let mut scene = Scene::new(false, 2);
        scene.results.remove(&Stylist);
        scene.results.remove(&Aesthete);
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Escalate);
        assert_eq!(assessment.quorum.present, 1);
        assert!(assessment.uncertainty[0].starts_with("below quorum: 1 of 3"));

        let assessment = scene
            .rescore(&[(Analyst, "b1", Risk, 1, "single point of failure")])
            .assess();
        assert_eq!(
            assessment.verdict,
            Verdict::Reject,
            "a shortfall does not hide a dealbreaker"
        );
        assert!(
            !assessment.uncertainty.is_empty(),
            "the shortfall is still recorded"
        );
    }

    #[test]
    fn inf_19_no_usable_output_escalates() {
        let mut scene = Scene::new(false, 2);
        scene.results = BTreeMap::from([
            (Analyst, malformed("not YAML")),
            (Stylist, skipped("timed out twice")),
        ]);
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Escalate);
        assert_eq!(
            assessment.rule,
            "no judge produced a usable score → ESCALATE"
        );
        assert_eq!(assessment.synthesis_mean, None);
        assert_eq!(assessment.missing_judges.len(), 3);
        assert_eq!(assessment.missing_judges[2].absence, Absence::Pending);
        assert!(assessment.directives.is_empty());
    }

    #[test]
    fn inf_20_malformed_binding_judge_counts_as_missing() {
        let mut scene = Scene::new(false, 2);
        scene.results.insert(Analyst, malformed("score 6 on b1"));
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Escalate);
        assert_eq!(
            assessment.rule,
            "analyst is missing (malformed), a binding judge → ESCALATE"
        );
        assert_eq!(assessment.quorum.present, 2);
        assert_eq!(
            assessment.missing_judges[0].absence.to_string(),
            "malformed: score 6 on b1"
        );
    }

    #[test]
    fn dr_49_overengineering_guard_revises() {
        let mut scene = Scene::new(true, 3);
        let assessment = scene
            .rescore(&[
                (Analyst, "b2", Correctness, 5, "handles every case"),
                (
                    Aesthete,
                    "b2",
                    Simplicity,
                    2,
                    "a plugin system for two formats",
                ),
            ])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Revise);
        assert_eq!(assessment.check, Check::Guard);
        assert_eq!(
            assessment.rule,
            "b2: correctness 4.5 ≥ 4 but simplicity 2 ≤ 2 (over-engineered) → REVISE"
        );
        let directive = &assessment.directives[0];
        assert_eq!(directive.block_id.as_deref(), Some("b2"));
        assert_eq!(directive.criterion, Some(Simplicity));
        assert!(
            directive
                .text
                .starts_with("b2 is over-engineered for what it achieves")
        );
        assert!(
            directive
                .text
                .ends_with("aesthete: a plugin system for two formats")
        );

        scene.rescore(&[(Aesthete, "b2", Simplicity, 3, "fair")]);
        assert_eq!(scene.assess().verdict, Verdict::Adopt);
    }

    #[test]
    fn a5_guard_is_checked_before_synthesis() {
        let mut scene = Scene::new(false, 1);
        scene.rescore(&[(Aesthete, "b1", Simplicity, 2, "heavy")]);
        scene.set_synthesis(&[Analyst, Stylist, Aesthete], [2, 2, 2]);
        let assessment = scene.assess();
        assert_eq!(assessment.check, Check::Guard);
        assert_eq!(
            assessment.directives.len(),
            2,
            "guard and synthesis directives"
        );
    }

    #[test]
    fn a8_directives_are_listed_even_when_rejected() {
        let mut scene = Scene::new(false, 3);
        scene.rescore(&[
            (Analyst, "b2", Feasibility, 2, "no budget"),
            (Analyst, "b3", Risk, 1, "silent corruption"),
            (Aesthete, "b1", Simplicity, 1, "needless layers"),
        ]);
        scene.set_synthesis(&[Analyst, Stylist, Aesthete], [2, 3, 2]);
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Reject);
        let summary: Vec<_> = assessment
            .directives
            .iter()
            .map(|d| (d.block_id.as_deref(), d.criterion, d.score))
            .collect();
        assert_eq!(
            summary,
            vec![
                (Some("b3"), Some(Risk), Some(1)),
                (Some("b2"), Some(Feasibility), Some(2)),
                (Some("b1"), Some(Simplicity), None),
                (None, None, None),
            ]
        );
    }

    #[test]
    fn inf_06_totals_recomputed() {
        // The judge's own summary says all is well and b2 averages 4; the
        // single score of 2 still decides.
        let summary = "overall 4.3/5, PASS, verdict ADOPT";
        let assessment = Scene::new(false, 2)
            .rescore(&[
                (Analyst, "b2", Correctness, 5, summary),
                (Analyst, "b2", Risk, 5, summary),
                (Analyst, "b2", Feasibility, 2, summary),
            ])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Revise);
        assert_eq!(
            assessment.rule,
            "analyst scored b2 feasibility 2 < 3 → REVISE"
        );
    }

    #[test]
    fn inf_06_scores_on_unknown_blocks_are_not_counted() {
        let assessment = Scene::new(false, 2)
            .rescore(&[(Analyst, "b9", Risk, 1, "a block that is not in the tree")])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Adopt);
    }

    #[test]
    fn dr_28_verdict_is_one_of_four() {
        let mut scene = Scene::new(false, 2);
        let adopt = scene.assess();
        let revise = scene
            .rescore(&[(Analyst, "b1", Feasibility, 2, "slow")])
            .assess();
        let reject = scene.rescore(&[(Analyst, "b1", Risk, 1, "fatal")]).assess();
        scene.results.clear();
        let escalate = scene.assess();
        for (assessment, word) in [
            (adopt, "ADOPT"),
            (revise, "REVISE"),
            (reject, "REJECT"),
            (escalate, "ESCALATE"),
        ] {
            assert!(
                assessment.rule.ends_with(&format!("→ {word}")),
                "{}",
                assessment.rule
            );
            let json = serde_json::to_value(&assessment).unwrap();
            assert_eq!(json["verdict"], word);
        }
    }

    #[test]
    fn dr_28_adopt_rule_states_what_passed() {
        let mut scene = Scene::new(false, 2);
        scene.set_synthesis(&[Analyst], [3, 3, 3]);
        let assessment = scene.assess();
        assert_eq!(
            assessment.rule,
            "all checks passed: binding judges ≥ 3, synthesis mean 3.67 ≥ 3, no dealbreaker, \
             no over-engineered block, quorum 3 of 3 → ADOPT"
        );
        assert!(assessment.uncertainty.is_empty() && assessment.directives.is_empty());
    }

    #[test]
    fn a13_surviving_blocks() {
        let mut scene = Scene::new(true, 5);
        scene.rescore(&[
            (Analyst, "b2", Feasibility, 2, "too slow to build"),
            (Strategist, "b3", Risk, 1, "cascading failure"),
        ]);
        for role in [Analyst, Strategist] {
            scene
                .scores_of(role)
                .block_scores
                .retain(|s| s.block_id != "b4");
        }
        scene.rescore(&[(
            Stylist,
            "b5",
            Clarity,
            1,
            "advisory lows do not sink a block",
        )]);
        let survivors = surviving_blocks(
            &scene.panel,
            &scene.results,
            &scene.blocks,
            &Thresholds::default(),
        );
        assert_eq!(survivors, vec!["b1".to_string(), "b5".to_string()]);
    }

    #[test]
    fn inf_28_high_stakes_panel_strategist_binding() {
        let mut scene = Scene::new(true, 2);
        assert_eq!(scene.panel.len(), 5);
        let assessment = scene
            .rescore(&[(Strategist, "b1", Risk, 2, "blast radius is the whole fleet")])
            .assess();
        assert_eq!(assessment.rule, "strategist scored b1 risk 2 < 3 → REVISE");
        scene.results.insert(Strategist, skipped("timed out twice"));
        let assessment = scene.assess();
        assert_eq!(assessment.verdict, Verdict::Escalate);
        assert_eq!(assessment.missing_binding, vec![Strategist]);

        let mut scene = Scene::new(true, 2);
        let assessment = scene
            .rescore(&[(Empiricist, "b1", Feasibility, 2, "no benchmark supports it")])
            .assess();
        assert_eq!(
            assessment.verdict,
            Verdict::Adopt,
            "the empiricist is advisory: {}",
            assessment.rule
        );
        // A 1 against the analyst's 4 is no veto either, but a split the
        // panel must resolve (A4).
        let assessment = scene
            .rescore(&[(Empiricist, "b1", Feasibility, 1, "no benchmark supports it")])
            .assess();
        assert_eq!(assessment.verdict, Verdict::Escalate, "{}", assessment.rule);
        assert!(
            assessment
                .rule
                .starts_with("b1 feasibility: empiricist scored 1"),
            "{}",
            assessment.rule
        );
    }

    #[test]
    fn a2_thresholds_default_and_reject_unknown_keys() {
        let parsed: Thresholds = serde_json::from_str("{}").unwrap();
        assert_eq!(parsed, Thresholds::default());
        assert_eq!(
            (parsed.binding, parsed.synthesis, parsed.dealbreaker_max),
            (3, 3.0, 1)
        );
        let partial: Thresholds = serde_json::from_str(r#"{"binding": 4}"#).unwrap();
        assert_eq!((partial.binding, partial.disagreement_span), (4, 3.0));
        assert!(serde_json::from_str::<Thresholds>(r#"{"threshold": 3}"#).is_err());
        assert_eq!(Thresholds::default().validate(), Ok(()));

        let too_high = Thresholds {
            binding: 6,
            ..Thresholds::default()
        };
        assert_eq!(
            too_high.validate().unwrap_err().to_string(),
            "threshold `binding` is 6; it must be a score from 1 to 5"
        );
        let not_a_number = Thresholds {
            synthesis: f64::NAN,
            ..Thresholds::default()
        };
        assert_eq!(not_a_number.validate().unwrap_err().name, "synthesis");
        let no_span = Thresholds {
            disagreement_span: 0.0,
            ..Thresholds::default()
        };
        assert_eq!(no_span.validate().unwrap_err().name, "disagreement_span");
    }

    #[test]
    fn thresholds_are_configurable() {
        let strict = Thresholds {
            binding: 5,
            ..Thresholds::default()
        };
        let assessment = Scene::new(false, 1).assess_with(&strict);
        assert_eq!(
            assessment.rule,
            "analyst scored b1 correctness 4 < 5 → REVISE"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        #[derive(Clone, Debug)]
        struct Case {
            panel: Vec<JudgeConfig>,
            blocks: Vec<String>,
            results: BTreeMap<JudgeRole, JudgeResult>,
        }

        /// Scores lean towards passing so that every verdict shows up.
        fn score() -> impl Strategy<Value = u8> {
            prop_oneof![1 => 1u8..=5, 3 => 3u8..=5]
        }

        /// One judge's result, or `None` while it is pending. `gap_permille`
        /// is the chance, in thousandths, that a score is left out;
        /// `unsure_permille` that a block is declared insufficient information.
        fn judge_result(
            config: JudgeConfig,
            blocks: Vec<String>,
            gap_permille: u32,
            unsure_permille: u32,
        ) -> BoxedStrategy<Option<JudgeResult>> {
            let cells = blocks.len() * config.criteria.len();
            let scored = (
                proptest::collection::vec((score(), 0u32..1000), cells),
                (score(), score(), score()),
                proptest::collection::vec(0u32..1000, blocks.len()),
            )
                .prop_map(
                    move |(cells, (integration, risk_coverage, revision_quality), unsure)| {
                        let cell_places = blocks.iter().flat_map(|block_id| {
                            config.criteria.iter().map(move |&c| (block_id, c))
                        });
                        let block_scores = cell_places
                            .zip(cells)
                            .filter_map(|((block_id, criterion), score)| {
                                Some(BlockScore {
                                    block_id: block_id.clone(),
                                    criterion,
                                    judge: config.role,
                                    score: (score.1 >= gap_permille).then_some(score.0)?,
                                    rationale: format!("{} {block_id} {criterion}", config.role),
                                })
                            })
                            .collect();
                        let insufficient_information = blocks
                            .iter()
                            .zip(unsure)
                            .filter(|(_, roll)| *roll < unsure_permille)
                            .map(|(block_id, _)| block_id.clone())
                            .collect();
                        Some(JudgeResult::Scored(JudgeScores {
                            block_scores,
                            synthesis: SynthesisScore {
                                judge: config.role,
                                integration,
                                risk_coverage,
                                revision_quality,
                            },
                            insufficient_information,
                        }))
                    },
                );
            prop_oneof![
                10 => scored,
                1 => Just(Some(JudgeResult::Malformed { reason: "unparseable".into() })),
                1 => Just(Some(JudgeResult::Skipped { reason: "timed out twice".into() })),
                1 => Just(None),
            ]
            .boxed()
        }

        fn case_with(gap_permille: u32, unsure_permille: u32) -> impl Strategy<Value = Case> {
            (any::<bool>(), 1usize..=4)
                .prop_flat_map(move |(high_stakes, block_count)| {
                    let panel = architecture_panel(high_stakes);
                    let blocks = block_ids(block_count);
                    let judges: Vec<_> = panel
                        .iter()
                        .map(|config| {
                            judge_result(
                                config.clone(),
                                blocks.clone(),
                                gap_permille,
                                unsure_permille,
                            )
                        })
                        .collect();
                    (Just(panel), Just(blocks), judges)
                })
                .prop_map(|(panel, blocks, judged)| {
                    let results = panel
                        .iter()
                        .zip(judged)
                        .filter_map(|(config, result)| Some((config.role, result?)))
                        .collect();
                    Case {
                        panel,
                        blocks,
                        results,
                    }
                })
        }

        /// Noisy cases (gaps, doubts) and clean ones, where ADOPT is common.
        fn case() -> impl Strategy<Value = Case> {
            prop_oneof![case_with(50, 50), case_with(0, 0)]
        }

        fn verdict_of(case: &Case) -> Assessment {
            derive_verdict(
                &case.panel,
                &case.results,
                &case.blocks,
                &Thresholds::default(),
            )
        }

        /// A small deterministic shuffle, so a failing case replays exactly.
        fn shuffle<T>(items: &mut [T], seed: &mut u64) {
            for index in (1..items.len()).rev() {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                let other = (*seed % (index as u64 + 1)) as usize;
                items.swap(index, other);
            }
        }

        proptest! {
            // About one case in six is an ADOPT and one in three a binding
            // failure; enough cases make the implications bite.
            #![proptest_config(ProptestConfig::with_cases(1024))]

            #[test]
            fn dr_35_adopt_implies_every_condition(case in case()) {
                let assessment = verdict_of(&case);
                if assessment.verdict != Verdict::Adopt {
                    return Ok(());
                }
                let thresholds = Thresholds::default();
                let present: Vec<(&JudgeConfig, &JudgeScores)> = case
                    .panel
                    .iter()
                    .filter_map(|config| Some((config, case.results.get(&config.role)?.scores()?)))
                    .collect();
                prop_assert!(present.len() >= quorum_required(case.panel.len()));
                for config in case.panel.iter().filter(|config| config.is_binding()) {
                    let scores = case.results.get(&config.role).and_then(JudgeResult::scores);
                    prop_assert!(scores.is_some(), "{} missing", config.role);
                    let scores = scores.unwrap();
                    for block_id in &case.blocks {
                        for criterion in &config.criteria {
                            let own = scores
                                .block_scores
                                .iter()
                                .find(|s| &s.block_id == block_id && s.criterion == *criterion);
                            prop_assert!(own.is_some_and(|s| s.score >= thresholds.binding));
                        }
                    }
                }
                for (config, scores) in &present {
                    if config.criteria.contains(&Risk) {
                        prop_assert!(scores.block_scores.iter().all(|s| s.criterion != Risk || s.score > 1));
                    }
                }
                let synthesis: Vec<u8> = present.iter().flat_map(|(_, s)| s.synthesis.values()).collect();
                let synthesis_mean =
                    synthesis.iter().map(|&v| f64::from(v)).sum::<f64>() / synthesis.len() as f64;
                prop_assert!(synthesis_mean >= thresholds.synthesis);
            }

            #[test]
            fn dr_36_raising_advisory_scores_cannot_lift_a_binding_veto(case in case()) {
                let before = verdict_of(&case);
                if before.check != Check::BindingJudge {
                    return Ok(());
                }
                let mut raised = case.clone();
                for config in case.panel.iter().filter(|config| !config.is_binding()) {
                    let perfect = uniform_scores(config, &case.blocks, 5);
                    raised.results.insert(config.role, JudgeResult::Scored(perfect));
                }
                let after = verdict_of(&raised);
                prop_assert_eq!(after.verdict, Verdict::Revise);
                prop_assert_eq!(after.check, Check::BindingJudge);
                prop_assert_eq!(after.rule, before.rule);
            }

            #[test]
            fn inf_06_verdict_ignores_insertion_and_score_order(case in case(), seed in 1u64..) {
                let mut seed = seed;
                let mut reordered: Vec<(JudgeRole, JudgeResult)> =
                    case.results.clone().into_iter().collect();
                for (_, result) in &mut reordered {
                    if let JudgeResult::Scored(scores) = result {
                        shuffle(&mut scores.block_scores, &mut seed);
                        shuffle(&mut scores.insufficient_information, &mut seed);
                    }
                }
                shuffle(&mut reordered, &mut seed);
                let mut results = BTreeMap::new();
                for (role, result) in reordered {
                    results.insert(role, result);
                }
                let reordered = Case { results, ..case.clone() };
                prop_assert_eq!(verdict_of(&reordered), verdict_of(&case));
                prop_assert_eq!(verdict_of(&case), verdict_of(&case));
                let thresholds = Thresholds::default();
                prop_assert_eq!(
                    surviving_blocks(&reordered.panel, &reordered.results, &reordered.blocks, &thresholds),
                    surviving_blocks(&case.panel, &case.results, &case.blocks, &thresholds)
                );
            }

            #[test]
            fn dr_31_any_risk_of_one_rejects(
                case in case(),
                pick_judge in any::<prop::sample::Index>(),
                pick_block in any::<prop::sample::Index>(),
            ) {
                let mut case = case;
                let risk_judges: Vec<&JudgeConfig> =
                    case.panel.iter().filter(|config| config.criteria.contains(&Risk)).collect();
                let config = pick_judge.get(&risk_judges);
                let block_id = pick_block.get(&case.blocks).clone();
                if case.results.get(&config.role).and_then(JudgeResult::scores).is_none() {
                    let fallback = uniform_scores(config, &case.blocks, 4);
                    case.results.insert(config.role, JudgeResult::Scored(fallback));
                }
                rescore(&mut case.results, config.role, &block_id, Risk, 1, "unrecoverable");
                let assessment = verdict_of(&case);
                prop_assert_eq!(assessment.verdict, Verdict::Reject);
                prop_assert_eq!(assessment.check, Check::Dealbreaker);
            }
        }
    }
}
