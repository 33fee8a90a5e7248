//! The council's stability receipt (issue 55): once the final positions
//! have given a verdict (review, audit, research and synthesis; a
//! brainstorm or design ends with a handoff and has none), and only when
//! the council asked for it (`stability: K`), every participant whose
//! final position counted is asked for it again under K variants: the
//! inventory, the open findings and the exchange in another order, the
//! authors under neutral labels where the prompt names them. Each
//! variant's verdict is derived by [`decided`], the very code of the real
//! one, on the record with that variant's positions; the receipt says in
//! how many it held. Under `require_stability` a PASS that did not hold
//! in all K is CONCERNS.
//!
//! Also the sentence a verdict reached with participants missing from the
//! final positions carries: which, why, and whether they were the slowest
//! ([`missing_sentence`]).
//!
//! Responsible for starting the variants (all at once: one step the
//! budget forecasts and holds as a whole), taking their answers (persisted
//! by the engine before they are read, an unreadable or missing one left
//! out of its variant, never asked again and never held for the
//! moderator), and the verdict the receipt leaves. Not responsible for
//! what a variant may change or how the receipt reads
//! ([`crate::protocol::stability`]), or for the verdict rules
//! ([`verdict`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::model::{FinalPosition, Positions};
use super::{Council, parse, pretty, prompts, verdict};
use crate::protocol::budget::{Forecast, PlannedCall};
use crate::protocol::stability::{
    self as receipt, Counted, Guard, Receipt, Timed, Variant, VariantVerdict,
};
use crate::protocol::supervision::{LiveCall, Slot};
use crate::protocol::{Answer, Effect, LogKind, SharedSteps, Timestamp, Verdict};

/// One participant's final-position call, for the missing-participants
/// sentence: when it started, when it ended, and why it does not count
/// (`None` while it runs, or once it counted).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalCall {
    #[serde(skip)]
    pub started: Option<Timestamp>,
    #[serde(skip)]
    pub finished: Option<Timestamp>,
    /// How long it ran, from its start to its answer or to giving up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    /// Why it does not count (`skipped: timed out`, `its final position
    /// was unreadable`); `None` once it counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// It answered and its position counts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub counted: bool,
}

impl FinalCall {
    fn started_at(now: Timestamp) -> FinalCall {
        FinalCall {
            started: Some(now),
            ..FinalCall::default()
        }
    }

    fn end(&mut self, now: Timestamp, missing: Option<String>) {
        self.finished = Some(now);
        self.elapsed_ms = self
            .started
            .map(|started| (now - started).num_milliseconds().max(0) as u64);
        self.counted = missing.is_none();
        self.missing = missing;
    }
}

/// The sentence naming the participants of `calls` whose final position
/// does not count, and whether they were the slowest; `None` when every
/// one asked counts (or none ended yet).
pub fn missing_sentence(calls: &BTreeMap<String, FinalCall>) -> Option<String> {
    let timed: Vec<Timed> = calls
        .iter()
        .filter(|(_, call)| call.counted || call.missing.is_some())
        .map(|(who, call)| Timed {
            who: who.clone(),
            missing: call.missing.clone(),
            elapsed_ms: call.elapsed_ms,
        })
        .collect();
    receipt::missing_judges("participant", &timed)
}

/// The verdict of the final positions as the council gives it:
/// [`verdict::assess`], with the sentence naming the participants missing
/// (issue 55). The one function the live verdict, every variant of the
/// stability receipt and `quorum verdict DIR` derive a verdict with.
pub fn decided(record: &verdict::Record<'_>, missing: Option<&str>) -> verdict::Assessment {
    let mut assessment = verdict::assess(record);
    if let Some(sentence) = missing {
        assessment.rule = receipt::rule_with(&assessment.rule, sentence);
    }
    assessment
}

/// `assessment` with the stability receipt: its rule says in how many
/// variants the verdict held; under the requirement a PASS that did not
/// hold in every variant is CONCERNS, the rule saying why.
pub fn with_stability(
    mut assessment: verdict::Assessment,
    made: &Receipt,
    required: bool,
) -> verdict::Assessment {
    let requirement = required.then(|| made.requirement_rule(GUARD)).flatten();
    match requirement {
        Some(requirement) => {
            assessment.rule = receipt::rule_turned(&assessment.rule, &requirement);
            assessment.verdict = Verdict::Concerns;
        }
        None => assessment.rule = receipt::rule_with(&assessment.rule, &made.summary()),
    }
    assessment
}

/// What `require_stability` guards in a council: a PASS that did not hold
/// in every variant is CONCERNS.
pub const GUARD: Guard = Guard::Verdict([Verdict::Pass, Verdict::Concerns]);

/// Where variant `k`'s answer of `role` is kept:
/// `phase-5/stability/variant-2/expert.security.md`.
pub fn variant_file(role: &str, k: u32) -> String {
    format!("phase-5/stability/variant-{k}/{role}.md")
}

/// The receipt of the final positions, while it runs and once it is done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StabilityRun {
    /// The verdict and rule of the final positions, before the receipt.
    pub verdict: Verdict,
    pub rule: String,
    pub variants: Vec<VariantRun>,
    /// Once every variant is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
}

/// One variant: the participants asked again, what they answered, and the
/// verdict it gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantRun {
    pub variant: Variant,
    /// Each participant asked again: its call, and the file its answer is in.
    pub calls: BTreeMap<String, FinalCall>,
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    #[serde(skip)]
    pub positions: Positions,
    /// Each answer as it came, for the transcript.
    #[serde(skip)]
    pub raw: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

impl VariantRun {
    fn pending(&self) -> bool {
        self.calls
            .values()
            .any(|call| !call.counted && call.missing.is_none())
    }
}

/// The missing participants of a variant: those missing from the real
/// final positions (with their real times), and those whose variant
/// answer did not count.
pub fn variant_calls(
    real: &BTreeMap<String, FinalCall>,
    variant: &BTreeMap<String, FinalCall>,
) -> BTreeMap<String, FinalCall> {
    let mut calls: BTreeMap<String, FinalCall> = real
        .iter()
        .filter(|(_, call)| call.missing.is_some())
        .map(|(who, call)| (who.clone(), call.clone()))
        .collect();
    calls.extend(
        variant
            .iter()
            .map(|(who, call)| (who.clone(), call.clone())),
    );
    calls
}

/// What reading a variant's answer of `role` gives: its position, or why
/// it is left out of the variant.
pub fn read_variant(text: &str, role: &str, known: &[&str]) -> Result<FinalPosition, String> {
    if text.starts_with("<!-- MALFORMED") {
        return Err("its answer was marked MALFORMED".into());
    }
    parse::read_final(text, role, known)
        .map(|read| read.value)
        .map_err(|error| format!("its answer was unreadable: {error}"))
}

impl Council {
    /// The verdict of the final positions `positions`, with the
    /// participants missing from them named (when this council names
    /// them: one journaled before keeps its old words).
    pub(super) fn decide_on(
        &self,
        positions: &Positions,
        calls: &BTreeMap<String, FinalCall>,
    ) -> verdict::Assessment {
        let mut record = self.record();
        record.positions = positions;
        let missing = self
            .config
            .stability
            .names_missing
            .then(|| missing_sentence(calls))
            .flatten();
        decided(&record, missing.as_deref())
    }

    /// Notes the start of `role`'s final-position call.
    pub(super) fn final_started(&mut self, role: &str, now: Timestamp) {
        self.final_calls
            .insert(role.to_string(), FinalCall::started_at(now));
    }

    /// Notes the end of `role`'s final-position call: counted, or why not.
    pub(super) fn final_ended(&mut self, role: &str, now: Timestamp, missing: Option<String>) {
        if let Some(call) = self.final_calls.get_mut(role) {
            call.end(now, missing);
        }
    }

    /// Each final-position call of the council, by participant.
    pub fn final_calls(&self) -> &BTreeMap<String, FinalCall> {
        &self.final_calls
    }

    /// The stability receipt, running or done.
    pub fn stability_run(&self) -> Option<&StabilityRun> {
        self.stability.as_ref()
    }

    /// The receipt, once every variant is in.
    pub fn receipt(&self) -> Option<&Receipt> {
        self.stability.as_ref()?.receipt.as_ref()
    }

    /// Starts every variant at once, when the council asked for a receipt
    /// and has none yet: every participant whose final position counted,
    /// asked again in the variant's order and under its labels. The
    /// forecast of the whole receipt is said first. `None`: no receipt to
    /// start (not asked, or already run).
    pub(super) fn start_receipt(&mut self, now: Timestamp) -> Option<Vec<Effect>> {
        if !self.config.stability.is_on() || self.stability.is_some() {
            return None;
        }
        let count = self.config.stability.variants;
        let seed = self.config.seating.fairness.order_seed.unwrap_or_default();
        let real = self.decide_on(&self.positions, &self.final_calls);
        let asked: Vec<String> = self
            .participants
            .iter()
            .filter(|p| self.positions.contains_key(*p))
            .cloned()
            .collect();
        let forecast = {
            let prompts: BTreeMap<String, usize> = self
                .final_prompts
                .iter()
                .map(|(role, chars)| (role.clone(), *chars))
                .collect();
            let planned: Vec<PlannedCall<'_>> = asked
                .iter()
                .flat_map(|role| std::iter::repeat_n(role, count as usize))
                .map(|role| PlannedCall {
                    role: role.as_str(),
                    agent: self.calls().agent(role).unwrap_or_default(),
                    prompt_chars: prompts.get(role).copied().unwrap_or_default(),
                })
                .collect();
            Forecast::of(&planned, self.core.calls.usage())
        };
        self.log(
            now,
            LogKind::Note,
            None,
            format!(
                "final positions: {}; the stability receipt asks for them again under {}: {}",
                real.verdict,
                crate::words::counted(count as usize, "variant", "variants"),
                forecast.describe(forecast.usd > 0.0)
            ),
        );
        let mut specs = Vec::new();
        let mut variants = Vec::new();
        for variant in Variant::all(seed, count) {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("stability {}", describe(&variant)),
            );
            let mut run = VariantRun {
                variant: variant.clone(),
                calls: BTreeMap::new(),
                files: BTreeMap::new(),
                positions: Positions::new(),
                raw: BTreeMap::new(),
                verdict: None,
                rule: None,
            };
            for role in &asked {
                let mut context = self.final_context(role, Some(&variant));
                context["packet"] = pretty(json!({
                    "type": "stability-variant",
                    "review_id": self.config.review_id,
                    "variant": variant.number,
                    "of": "final positions",
                }));
                let slot = Slot::new(
                    role.clone(),
                    receipt::stage_of_variant(variant.number),
                    self.core.round,
                );
                let file = variant_file(role, variant.number);
                match self.start_or_stop(slot, &prompts::FINAL, &context, Some(file.clone()), now) {
                    Ok(spec) => specs.push(Effect::StartCall(spec)),
                    Err(failed) => return Some(failed),
                }
                run.calls.insert(role.clone(), FinalCall::started_at(now));
                run.files.insert(role.clone(), file);
            }
            variants.push(run);
        }
        self.stability = Some(StabilityRun {
            verdict: real.verdict,
            rule: real.rule,
            variants,
            receipt: None,
        });
        if specs.is_empty() {
            return Some(self.conclude_receipt_if_complete(now));
        }
        Some(specs)
    }

    /// The variant, still running, that `call` belongs to.
    fn running_variant(&mut self, call: &LiveCall) -> Option<&mut VariantRun> {
        let k = receipt::variant_of_stage(&call.slot.stage)?;
        let run = self.stability.as_mut()?;
        if run.receipt.is_some() {
            return None;
        }
        run.variants.iter_mut().find(|v| v.variant.number == k)
    }

    /// A variant's answer: read as a final position is, an unreadable one
    /// kept on disk and left out of its variant (never asked again).
    pub(super) fn on_variant_final(&mut self, answer: &Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let role = answer.call.slot.role.clone();
        let known: Vec<String> = self.findings.iter().map(|f| f.id.clone()).collect();
        let refs: Vec<&str> = known.iter().map(String::as_str).collect();
        let read = read_variant(answer.output, &role, &refs);
        if let Err(why) = &read {
            self.log(
                now,
                LogKind::Malformed,
                Some(&answer.call.call_id()),
                format!(
                    "{role} in {}: {why}; left out of that variant (not retried)",
                    answer.call.slot.stage
                ),
            );
        }
        let Some(variant) = self.running_variant(&answer.call) else {
            return Vec::new();
        };
        variant.raw.insert(role.clone(), answer.output.to_string());
        let call = variant.calls.entry(role.clone()).or_default();
        match read {
            Ok(position) => {
                call.end(now, None);
                variant.positions.insert(role, position);
            }
            Err(why) => call.end(now, Some(why)),
        }
        self.conclude_receipt_if_complete(now)
    }

    /// A variant's call given up (timed out or failed after its retry, or
    /// skipped by the moderator): left out of that variant.
    pub(super) fn on_variant_given_up(
        &mut self,
        call: &LiveCall,
        reason: &str,
        now: Timestamp,
    ) -> Vec<Effect> {
        let role = call.slot.role.clone();
        self.log(
            now,
            LogKind::Skip,
            Some(&call.call_id()),
            format!(
                "{role} gave no answer in {} ({reason}); left out of that variant",
                call.slot.stage
            ),
        );
        let Some(variant) = self.running_variant(call) else {
            return Vec::new();
        };
        let missing = format!("skipped: {}", crate::text::excerpt(reason.trim()));
        variant
            .calls
            .entry(role)
            .or_default()
            .end(now, Some(missing));
        self.conclude_receipt_if_complete(now)
    }

    /// Once every variant is in: each variant's verdict by the code of the
    /// real one, the receipt, and the council's conclusion.
    fn conclude_receipt_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        let Some(run) = &self.stability else {
            return Vec::new();
        };
        if run.receipt.is_some() || run.variants.iter().any(VariantRun::pending) {
            return Vec::new();
        }
        let derived: Vec<verdict::Assessment> = run
            .variants
            .iter()
            .map(|variant| {
                let calls = variant_calls(&self.final_calls, &variant.calls);
                self.decide_on(&variant.positions, &calls)
            })
            .collect();
        let made = Receipt {
            counts: Counted::Verdict,
            verdict: Some(run.verdict.to_string()),
            variants: run
                .variants
                .iter()
                .zip(&derived)
                .map(|(variant, assessment)| VariantVerdict {
                    variant: variant.variant.number,
                    verdict: Some(assessment.verdict.to_string()),
                    rule: assessment.rule.clone(),
                })
                .collect(),
        };
        for variant in &made.variants {
            self.log(
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
        self.log(
            now,
            LogKind::Note,
            None,
            format!("final positions: {}", made.summary()),
        );
        let run = self.stability.as_mut().expect("checked above");
        for (variant, assessment) in run.variants.iter_mut().zip(derived) {
            variant.verdict = Some(assessment.verdict);
            variant.rule = Some(assessment.rule);
        }
        run.receipt = Some(made);
        self.conclude(now)
    }
}

/// How a council's variant reads: [`Variant::describe`] in the council's
/// words (participants, not judges).
fn describe(variant: &Variant) -> String {
    let order = if variant.reversed {
        format!(
            "each participant reads variant {}'s order back to front",
            variant.number - 1
        )
    } else {
        "each participant reads in an order drawn afresh".to_string()
    };
    format!(
        "variant {} ({order}; where the prompt names authors, they are \"{}\", \"{}\", …)",
        variant.number,
        label_of(variant, 0),
        label_of(variant, 1)
    )
}

/// The neutral label variant `variant` gives the `n`th other participant
/// (from 0): `author A 1`, `the first writer 2`, …
pub fn label_of(variant: &Variant, n: usize) -> String {
    format!("{} {}", variant.author_label, n + 1)
}

/// The receipt's record for `council.json`: what was asked, each
/// variant's files and verdict, and the receipt.
pub fn record_of(council: &Council) -> Option<serde_json::Value> {
    let run = council.stability_run()?;
    let setting = council.config().stability;
    Some(json!({
        "stability": setting.variants,
        "require_stability": setting.required,
        "verdict": run.verdict,
        "rule": run.rule,
        "variants": run.variants,
        "receipt": run.receipt,
        "summary": run.receipt.as_ref().map(Receipt::summary),
    }))
}
