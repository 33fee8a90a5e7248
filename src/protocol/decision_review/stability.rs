//! The decision review's stability receipt (issue 55): once the deciding
//! round has given the verdict that ends the debate (a comparison: its
//! ranking), and only when the debate asked for it (`stability: K`), the
//! judges who scored that round score the same revision again under K
//! variants, each judge reading in another order and the authors under
//! other neutral labels; each variant's verdict is derived by
//! [`verdict::derive_round`] (its ranking by [`ranking::rank_tree`]
//! through the review's `rank_options`), as the real one is, and the
//! receipt says in how many it held. Under `require_stability` an ADOPT
//! that did not hold in all K is ESCALATE, and a comparison's
//! recommendation that did not is withdrawn.
//!
//! Responsible for starting the variants (all at once: one step the budget
//! forecasts and holds as a whole), taking their answers (persisted by the
//! engine before they are read, a malformed or missing judge left out as
//! in a headless round, never held for the moderator), and ending the
//! debate with the outcome the receipt leaves. Not responsible for what a
//! variant may change or how the receipt reads ([`crate::protocol::stability`]),
//! or for the verdict and ranking rules ([`verdict`], [`ranking`]).

use std::collections::BTreeMap;

use super::model::{JudgeResult, JudgeRole, ThesisTree, Verdict};
use super::prompts::Template;
use super::ranking::{self, Ranking};
use super::verdict::{self, Assessment};
use super::{DecisionReview, JudgeRecord, Stage, block_ids, judge_slot_role, parse};
use crate::parse::Read;
use crate::protocol::budget::{Forecast, PlannedCall};
use crate::protocol::stability::{
    self as receipt, Counted, Receipt, Timed, Variant, VariantVerdict,
};
use crate::protocol::supervision::{LiveCall, Slot};
use crate::protocol::{Answer, CallSpec, Effect, LogKind, Outcome, Timestamp};

/// The receipt of a deciding round, while it runs and once it is done.
#[derive(Clone, Debug, PartialEq)]
pub struct StabilityRun {
    /// What the round gave, before the receipt.
    pub decided: Decided,
    pub variants: Vec<VariantRound>,
    /// Once every variant is in.
    pub receipt: Option<Receipt>,
}

/// What a round (or a variant of it) gave: an architecture review's
/// verdict, or a comparison's ranking, which has none (A15).
#[derive(Clone, Debug, PartialEq)]
pub enum Decided {
    Verdict(Assessment),
    Ranking(Ranking),
}

impl Decided {
    /// What the receipt counts.
    pub fn counts(&self) -> Counted {
        match self {
            Decided::Verdict(_) => Counted::Verdict,
            Decided::Ranking(_) => Counted::Recommendation,
        }
    }

    /// What the receipt compares: the verdict's word, or the option
    /// recommended (none when every option has a dealbreaker).
    pub fn outcome(&self) -> Option<String> {
        match self {
            Decided::Verdict(assessment) => Some(assessment.verdict.to_string()),
            Decided::Ranking(ranking) => ranking.recommendation.clone(),
        }
    }

    /// How it was derived, in one line: the verdict's rule, or the
    /// ranking and its conditional recommendation.
    pub fn rule(&self) -> String {
        match self {
            Decided::Verdict(assessment) => assessment.rule.clone(),
            Decided::Ranking(ranking) => ranking.rule(),
        }
    }

    /// `ADOPT`, `recommendation A`, `no recommendation`: what the
    /// transcript says the receipt re-judges.
    fn describe(&self) -> String {
        match (self, self.outcome()) {
            (Decided::Verdict(_), outcome) => outcome.unwrap_or_default(),
            (Decided::Ranking(_), Some(option)) => format!("recommendation {option}"),
            (Decided::Ranking(_), None) => "no recommendation".to_string(),
        }
    }

    /// The verdict; none for a comparison.
    pub fn verdict(&self) -> Option<Verdict> {
        match self {
            Decided::Verdict(assessment) => Some(assessment.verdict),
            Decided::Ranking(_) => None,
        }
    }

    /// The option a comparison recommended; none for a verdict.
    pub fn recommendation(&self) -> Option<String> {
        match self {
            Decided::Verdict(_) => None,
            Decided::Ranking(ranking) => ranking.recommendation.clone(),
        }
    }
}

/// One variant: the judges asked again, and what they gave.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantRound {
    pub variant: Variant,
    pub judges: BTreeMap<JudgeRole, JudgeRecord>,
    /// Once every judge of the variant is in.
    pub decided: Option<Decided>,
}

impl VariantRound {
    pub fn results(&self) -> BTreeMap<JudgeRole, JudgeResult> {
        self.judges
            .iter()
            .filter_map(|(role, record)| Some((*role, record.result.clone()?)))
            .collect()
    }
}

/// Where variant `k`'s answer of `role` to round `round` is kept:
/// `judges/stability/variant-2/judge-analyst.md` (a later round's under
/// `judges/stability/round-2/variant-2/`).
pub fn variant_file(role: JudgeRole, round: u32, k: u32) -> String {
    if round <= 1 {
        format!("judges/stability/variant-{k}/judge-{role}.md")
    } else {
        format!("judges/stability/round-{round}/variant-{k}/judge-{role}.md")
    }
}

/// The sentence naming the judges of `judges` whose scores do not count,
/// and whether they were the slowest; `None` when every judge counts.
pub(super) fn missing_sentence(judges: &BTreeMap<JudgeRole, JudgeRecord>) -> Option<String> {
    let timed: Vec<Timed> = judges
        .iter()
        .filter_map(|(role, record)| timed(*role, record.result.as_ref()?, record.elapsed_ms()))
        .collect();
    receipt::missing_judges("judge", &timed)
}

/// A judge as the missing-judges sentence reads it; `None` for a judge
/// recused for its family (never asked, so neither missing nor timed).
pub fn timed(role: JudgeRole, result: &JudgeResult, elapsed_ms: Option<u64>) -> Option<Timed> {
    let missing = match result {
        JudgeResult::Scored(_) => None,
        JudgeResult::Recused { .. } => return None,
        JudgeResult::Malformed { .. } => Some("its answer was malformed".to_string()),
        JudgeResult::Skipped { reason } => {
            Some(format!("skipped: {}", crate::text::excerpt(reason.trim())))
        }
    };
    Some(Timed {
        who: role.to_string(),
        missing,
        elapsed_ms,
    })
}

impl DecisionReview {
    /// The verdict that ends the debate: after the stability receipt, when
    /// the debate asked for one and this round has none yet.
    pub(super) fn end_with_verdict(
        &mut self,
        round: u32,
        verdict: Verdict,
        rule: String,
        now: Timestamp,
    ) -> Vec<Effect> {
        let asked = self.config.stability.is_on();
        let evaluation = self.evaluations.last().expect("a round is running");
        if asked
            && evaluation.stability.is_none()
            && let Some(assessment) = &evaluation.assessment
        {
            let decided = Decided::Verdict(assessment.clone());
            return self.start_receipt(round, decided, now);
        }
        self.enter(Stage::Done, round, now);
        vec![self.core.finish(Outcome::Decided { verdict, rule })]
    }

    /// Starts every variant's judges at once: the judges who scored the
    /// deciding round, the same revision, each in the variant's order and
    /// under its labels. The forecast of the whole receipt is said first.
    pub(super) fn start_receipt(
        &mut self,
        round: u32,
        decided: Decided,
        now: Timestamp,
    ) -> Vec<Effect> {
        let count = self.config.stability.variants;
        let seed = self.config.fairness.order_seed.unwrap_or_default();
        let evaluation = self.evaluations.last().expect("a round is running");
        // Only judges whose scores counted are asked again: a variant
        // changes how the panel reads, never who is on it.
        let scored: Vec<JudgeRole> = evaluation
            .judges
            .iter()
            .filter(|(_, record)| matches!(record.result, Some(JudgeResult::Scored(_))))
            .map(|(role, _)| *role)
            .collect();
        let absent: BTreeMap<JudgeRole, JudgeRecord> = evaluation
            .judges
            .iter()
            .filter(|(role, _)| !scored.contains(role))
            .map(|(role, record)| {
                let copy = JudgeRecord {
                    result: record.result.clone(),
                    kinship: record.kinship.clone(),
                    started_at: record.started_at,
                    finished_at: record.finished_at,
                    ..JudgeRecord::default()
                };
                (*role, copy)
            })
            .collect();
        // The whole receipt is forecast, and said, before any of it is
        // asked: each variant's prompt is its judge's prompt of the round
        // in another order, as long within a few labels.
        let forecast = {
            let planned: Vec<PlannedCall<'_>> = scored
                .iter()
                .flat_map(|role| std::iter::repeat_n(role, count as usize))
                .map(|role| PlannedCall {
                    role: self
                        .core
                        .roster
                        .slot_of(&super::Role::Judge(*role))
                        .unwrap_or_default(),
                    agent: self
                        .config
                        .participants
                        .judges
                        .get(role)
                        .map_or("", String::as_str),
                    prompt_chars: evaluation.judges[role]
                        .prompt
                        .as_deref()
                        .map_or(0, |prompt| prompt.chars().count()),
                })
                .collect();
            Forecast::of(&planned, self.core.calls.usage())
        };
        self.push_log(
            now,
            LogKind::Note,
            None,
            format!(
                "round {round}: {}; the stability receipt judges it again under {}: {}",
                decided.describe(),
                crate::words::counted(count as usize, "variant", "variants"),
                forecast.describe(forecast.usd > 0.0)
            ),
        );
        let (reading, _) = self.judges_reading();
        let mut specs = Vec::new();
        let mut variants = Vec::new();
        for variant in Variant::all(seed, count) {
            let mut judges = absent.clone();
            for role in &scored {
                let judge = self
                    .judge_config(*role)
                    .expect("judges come from the panel")
                    .clone();
                let spec = match self.start_variant_judge(&judge, round, &variant, &reading, now) {
                    Ok(spec) => spec,
                    Err(failed) => return failed,
                };
                judges.insert(
                    *role,
                    JudgeRecord {
                        call_id: Some(spec.request.call_id.clone()),
                        prompt: Some(spec.request.prompt.clone()),
                        started_at: Some(now),
                        ..JudgeRecord::default()
                    },
                );
                specs.push(spec);
            }
            variants.push(VariantRound {
                variant,
                judges,
                decided: None,
            });
        }
        for variant in &variants {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!("stability {}", variant.variant.describe()),
            );
        }
        let evaluation = self.evaluations.last_mut().expect("a round is running");
        evaluation.stability = Some(StabilityRun {
            decided,
            variants,
            receipt: None,
        });
        if specs.is_empty() {
            // No judge scored: nothing to re-judge, every variant is the
            // round as it was.
            return self.conclude_receipt_if_complete(now);
        }
        specs.into_iter().map(Effect::StartCall).collect()
    }

    /// Starts `judge` on variant `variant` of round `round`.
    fn start_variant_judge(
        &mut self,
        judge: &super::model::JudgeConfig,
        round: u32,
        variant: &Variant,
        reading: &super::JudgesReading,
        now: Timestamp,
    ) -> Result<CallSpec, Vec<Effect>> {
        let slot_role = judge_slot_role(judge.role);
        let blocks = ThesisTree {
            blocks: variant.arrange(&reading.tree.blocks, &slot_role),
        };
        let criteria = variant.arrange_criteria(&judge.criteria, &slot_role);
        let labels = [
            variant.author_label.clone(),
            variant.challenger_label.clone(),
        ];
        let context = self.judge_context(judge, round, reading, &blocks, &criteria, &labels);
        let slot = Slot::new(slot_role, receipt::stage_of_variant(variant.number), round);
        let path = Some(variant_file(judge.role, round, variant.number));
        self.start_rendered(Template::Judge, context, slot, path, now)
    }

    /// The variant, still running, that `call` belongs to.
    fn running_variant(&mut self, call: &LiveCall) -> Option<&mut VariantRound> {
        let k = receipt::variant_of_stage(&call.slot.stage)?;
        let run = self.evaluations.last_mut()?.stability.as_mut()?;
        if run.receipt.is_some() {
            return None;
        }
        run.variants
            .iter_mut()
            .find(|variant| variant.variant.number == k)
    }

    /// A variant judge's answer: read as the round's judges are read (a
    /// malformed answer is kept and left out, never asked again).
    pub(super) fn on_variant_judge(&mut self, role: JudgeRole, answer: &Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let Some(judge) = self.judge_config(role).cloned() else {
            return Vec::new();
        };
        let tree = self.judged_tree().clone();
        let (result, normalised) = match parse::read_judge(answer.output, &judge, &tree) {
            Ok(Read { value, notes, .. }) => (JudgeResult::Scored(value), notes),
            Err(error) => {
                self.push_log(
                    now,
                    LogKind::Malformed,
                    Some(&call_id),
                    format!(
                        "{role} in stability {}: output unusable, left out of that variant (not retried): {error}",
                        answer.call.slot.stage
                    ),
                );
                let reason = error.to_string();
                (JudgeResult::Malformed { reason }, Vec::new())
            }
        };
        let Some(variant) = self.running_variant(&answer.call) else {
            return Vec::new();
        };
        let record = variant.judges.entry(role).or_default();
        record.call_id = Some(call_id);
        record.attempt = answer.call.attempt;
        record.raw = Some(answer.output.to_string());
        record.result = Some(result);
        record.normalised = normalised;
        record.finished_at = Some(now);
        self.conclude_receipt_if_complete(now)
    }

    /// A variant judge given up (timed out or failed after its retry, or
    /// skipped by the moderator): left out of that variant.
    pub(super) fn on_variant_given_up(
        &mut self,
        role: JudgeRole,
        call: &LiveCall,
        reason: String,
        now: Timestamp,
    ) -> Vec<Effect> {
        let Some(variant) = self.running_variant(call) else {
            return Vec::new();
        };
        let record = variant.judges.entry(role).or_default();
        record.call_id = Some(call.call_id());
        record.attempt = call.attempt;
        record.result = Some(JudgeResult::Skipped { reason });
        record.finished_at = Some(now);
        self.conclude_receipt_if_complete(now)
    }

    /// Once every variant's judges are in: each variant's verdict (or
    /// ranking), by the code of the real one; the receipt; the outcome it
    /// leaves.
    fn conclude_receipt_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        let Some(evaluation) = self.evaluations.last() else {
            return Vec::new();
        };
        let round = evaluation.round;
        let Some(run) = &evaluation.stability else {
            return Vec::new();
        };
        let pending = run
            .variants
            .iter()
            .flat_map(|variant| variant.judges.values())
            .any(|record| record.result.is_none());
        if pending || run.receipt.is_some() {
            return Vec::new();
        }
        let derived: Vec<Decided> = run
            .variants
            .iter()
            .map(|variant| self.decide_variant(&run.decided, variant))
            .collect();
        let made = Receipt {
            counts: run.decided.counts(),
            verdict: run.decided.outcome(),
            variants: run
                .variants
                .iter()
                .zip(&derived)
                .map(|(variant, decided)| VariantVerdict {
                    variant: variant.variant.number,
                    verdict: decided.outcome(),
                    rule: decided.rule(),
                })
                .collect(),
        };
        for variant in &made.variants {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!(
                    "stability variant {}: {} — {}",
                    variant.variant,
                    made.outcome_of(variant),
                    variant.rule
                ),
            );
        }
        self.push_log(
            now,
            LogKind::Note,
            None,
            format!("round {round}: {}", made.summary()),
        );
        let required = self.config.stability.required;
        let evaluation = self.evaluations.last_mut().expect("a round is running");
        let run = evaluation.stability.as_mut().expect("checked above");
        for (variant, decided) in run.variants.iter_mut().zip(derived) {
            variant.decided = Some(decided);
        }
        run.receipt = Some(made.clone());
        let real = run.decided.clone();
        match real {
            Decided::Ranking(_) => {
                if let Some(ranked) = evaluation.ranking.take() {
                    let bound = ranking::with_stability(ranked, &made, required);
                    if let Some(withdrawn) = &bound.withdrawn {
                        self.push_log(
                            now,
                            LogKind::Verdict,
                            None,
                            format!("round {round}: {withdrawn}"),
                        );
                    }
                    let evaluation = self.evaluations.last_mut().expect("a round is running");
                    evaluation.ranking = Some(bound);
                }
                self.end_comparison(round, now)
            }
            Decided::Verdict(real) => {
                let (mut verdict, mut rule) = (real.verdict, real.rule);
                if let Some(assessment) = evaluation.assessment.take() {
                    let bound = verdict::with_stability(assessment, &made, required);
                    self.push_log(
                        now,
                        LogKind::Verdict,
                        None,
                        format!("round {round}: {} — {}", bound.verdict, bound.rule),
                    );
                    (verdict, rule) = (bound.verdict, bound.rule.clone());
                    let evaluation = self.evaluations.last_mut().expect("a round is running");
                    evaluation.assessment = Some(bound);
                }
                self.end_with_verdict(round, verdict, rule, now)
            }
        }
    }

    /// What `variant`'s judges gave, derived as the round's `real` was:
    /// a verdict by [`verdict::derive_round`] with the round's facts (its
    /// own missing judges named), a ranking by the review's `rank_options`.
    fn decide_variant(&self, real: &Decided, variant: &VariantRound) -> Decided {
        if let Decided::Ranking(_) = real {
            return Decided::Ranking(self.rank_options(self.judged_tree(), &variant.results()));
        }
        let evaluation = self.evaluations.last().expect("a round is running");
        let kinships: Vec<_> = evaluation
            .judges
            .values()
            .filter_map(|record| record.kinship.clone())
            .collect();
        let missing = self
            .config
            .stability
            .names_missing
            .then(|| missing_sentence(&variant.judges))
            .flatten();
        Decided::Verdict(verdict::derive_round(
            &self.config.panel,
            &variant.results(),
            &block_ids(self.judged_tree()),
            &self.config.thresholds,
            verdict::RoundFacts {
                held_out: self.held_out_role(),
                unverified: evaluation.unverified_binding.as_deref(),
                kinships: &kinships,
                missing: missing.as_deref(),
            },
        ))
    }

    /// The receipt of the deciding round, once it is done.
    pub fn receipt(&self) -> Option<&Receipt> {
        self.evaluations
            .last()?
            .stability
            .as_ref()?
            .receipt
            .as_ref()
    }

    /// The stability run of the deciding round, running or done.
    pub fn stability_run(&self) -> Option<&StabilityRun> {
        self.evaluations.last()?.stability.as_ref()
    }
}
