//! The decision review's stability receipt (issue 55): once the deciding
//! round has given the verdict that ends the debate, and only when the
//! debate asked for it (`stability: K`), the judges who scored that round
//! score the same revision again under K variants, each judge reading in
//! another order and the authors under other neutral labels; each
//! variant's verdict is derived by [`verdict::derive_round`], as the real
//! one is, and the receipt says in how many it held. Under
//! `require_stability` an ADOPT that did not hold in all K is ESCALATE.
//!
//! Responsible for starting the variants (all at once: one step the budget
//! forecasts and holds as a whole), taking their answers (persisted by the
//! engine before they are read, a malformed or missing judge left out as
//! in a headless round, never held for the moderator), and ending the
//! debate with the verdict the receipt leaves. Not responsible for what a
//! variant may change or how the receipt reads ([`crate::protocol::stability`]),
//! or for the verdict rules ([`verdict`]).

use std::collections::BTreeMap;

use super::model::{JudgeResult, JudgeRole, ThesisTree, Verdict};
use super::prompts::Template;
use super::verdict::{self, Assessment};
use super::{DecisionReview, JudgeRecord, Stage, block_ids, judge_slot_role, parse};
use crate::parse::Read;
use crate::protocol::budget::{Forecast, PlannedCall};
use crate::protocol::stability::{self as receipt, Receipt, Timed, Variant, VariantVerdict};
use crate::protocol::supervision::{LiveCall, Slot};
use crate::protocol::{Answer, CallSpec, Effect, LogKind, Outcome, Timestamp};

/// The receipt of a deciding round, while it runs and once it is done.
#[derive(Clone, Debug, PartialEq)]
pub struct StabilityRun {
    /// The verdict and rule of the round, before the receipt.
    pub verdict: Verdict,
    pub rule: String,
    pub variants: Vec<VariantRound>,
    /// Once every variant is in.
    pub receipt: Option<Receipt>,
}

/// One variant: the judges asked again, and the verdict they gave.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantRound {
    pub variant: Variant,
    pub judges: BTreeMap<JudgeRole, JudgeRecord>,
    pub assessment: Option<Assessment>,
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
        if asked && evaluation.stability.is_none() {
            return self.start_receipt(round, verdict, rule, now);
        }
        self.enter(Stage::Done, round, now);
        vec![self.core.finish(Outcome::Decided { verdict, rule })]
    }

    /// Starts every variant's judges at once: the judges who scored the
    /// deciding round, the same revision, each in the variant's order and
    /// under its labels. The forecast of the whole receipt is said first.
    fn start_receipt(
        &mut self,
        round: u32,
        verdict: Verdict,
        rule: String,
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
                "round {round}: {verdict}; the stability receipt judges it again under {}: {}",
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
                assessment: None,
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
            verdict,
            rule,
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

    /// Once every variant's judges are in: each variant's verdict, by the
    /// code of the real one; the receipt; the verdict it leaves.
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
        let unverified = evaluation.unverified_binding.clone();
        let kinships: Vec<_> = evaluation
            .judges
            .values()
            .filter_map(|record| record.kinship.clone())
            .collect();
        let names_missing = self.config.stability.names_missing;
        let blocks = block_ids(self.judged_tree());
        let held_out = self.held_out_role();
        let assessments: Vec<Assessment> = run
            .variants
            .iter()
            .map(|variant| {
                let missing = names_missing
                    .then(|| missing_sentence(&variant.judges))
                    .flatten();
                verdict::derive_round(
                    &self.config.panel,
                    &variant.results(),
                    &blocks,
                    &self.config.thresholds,
                    verdict::RoundFacts {
                        held_out,
                        unverified: unverified.as_deref(),
                        kinships: &kinships,
                        missing: missing.as_deref(),
                    },
                )
            })
            .collect();
        let (verdict, rule) = (run.verdict, run.rule.clone());
        let made = Receipt {
            verdict: verdict.to_string(),
            variants: run
                .variants
                .iter()
                .zip(&assessments)
                .map(|(variant, assessment)| VariantVerdict {
                    variant: variant.variant.number,
                    verdict: assessment.verdict.to_string(),
                    rule: assessment.rule.clone(),
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
                    variant.variant, variant.verdict, variant.rule
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
        for (variant, assessment) in run.variants.iter_mut().zip(assessments) {
            variant.assessment = Some(assessment);
        }
        run.receipt = Some(made.clone());
        let mut rule = rule;
        let mut verdict = verdict;
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
