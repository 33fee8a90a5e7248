//! Phase 5 and the end (FP-37, FP-38, A21, A23): every participant's final
//! stance on every finding and its word on the merges that touch its own,
//! then the assessment that applies the agreed merges, confirms by
//! weighted share and derives the verdict (a brainstorm converges and
//! hands off instead). Not responsible for the rules of the assessment
//! themselves: [`super::verdict`] holds them.

use std::collections::BTreeMap;

use serde_json::json;

use super::model;
use super::packets::PacketKind;
use super::{Council, Step, documents, parse, pretty, prompts, rulings, stability, verdict};
use crate::parse::Read;
use crate::protocol::fairness::Blindfold;
use crate::protocol::fairness::agreement::{self, Agreement};
use crate::protocol::stability::Variant;
use crate::protocol::{Answer, ByItem, Effect, LogKind, SharedSteps, Timestamp};

impl Council {
    /// The inventory and the exchange as `role` reads them for its final
    /// position. When the council judges blind, nothing says who raised,
    /// challenged or answered what (the participant's own are listed apart,
    /// and the merges it is asked about name their origins, which a merge
    /// needs), and an author's naming of itself is masked; each participant
    /// reads the inventory in its own order. A variant of the stability
    /// receipt (issue 55) reads the inventory and the exchange in the
    /// variant's order instead, the authors under its neutral labels.
    fn final_reading(
        &self,
        role: &str,
        blindfold: &mut Blindfold,
        variant: Option<&Variant>,
    ) -> (serde_json::Value, serde_json::Value) {
        let fairness = &self.config.seating.fairness;
        let mut inventory = self.inventory();
        let mut history = self.history();
        if fairness.blind {
            unsigned(&mut inventory, &["origin"]);
            unsigned(&mut history, &["by", "from", "to"]);
            blindfold.cover_json(&mut inventory);
            blindfold.cover_json(&mut history);
        }
        if let Some(variant) = variant {
            let labels = self.variant_labels(role, variant);
            relabelled(&mut inventory, &["origin"], &labels);
            relabelled(&mut history, &["by", "from", "to"], &labels);
            if let serde_json::Value::Array(items) = &mut inventory {
                *items = variant.arrange(items, role);
            }
            for list in ["challenges", "other_responses"] {
                if let Some(serde_json::Value::Array(items)) = history.get_mut(list) {
                    *items = variant.arrange(items, role);
                }
            }
            return (inventory, history);
        }
        if let serde_json::Value::Array(items) = &mut inventory {
            *items = fairness.arrange(items, role);
        }
        (inventory, history)
    }

    /// The neutral label each other participant goes by in `variant` of
    /// what `role` reads: numbered in the variant's order, so no label is
    /// a role's name and none keeps its place from variant to variant.
    /// `role` itself keeps its name: it is asked about its own findings.
    fn variant_labels(&self, role: &str, variant: &Variant) -> BTreeMap<String, String> {
        let others: Vec<String> = self
            .participants
            .iter()
            .filter(|p| *p != role)
            .cloned()
            .collect();
        variant
            .arrange(&others, role)
            .into_iter()
            .enumerate()
            .map(|(n, other)| (other, stability::label_of(variant, n)))
            .collect()
    }

    /// How far the final positions agreed (issue 29): each finding still
    /// standing is a unit, each participant's stance on it a vote (dispute
    /// 1, abstain 2, endorse 3); an origin's word on its own finding, a
    /// recused participant's, a withdrawal or a parked proposal is no vote.
    fn final_agreement(&self, assessment: &verdict::Assessment) -> Agreement {
        let record = self.record();
        let voters: Vec<&model::FinalPosition> = self.positions.values().collect();
        let units = assessment
            .findings
            .iter()
            .filter(|finding| finding.active())
            .map(|finding| {
                voters
                    .iter()
                    .map(|position| {
                        if finding.origins.contains(&position.participant)
                            || record.recused_on(&position.participant, finding)
                        {
                            return None;
                        }
                        // A merged finding takes a stance on any of its parts.
                        let stance = position
                            .positions
                            .iter()
                            .find(|p| p.id == finding.id || finding.merged_from.contains(&p.id))?;
                        match stance.stance {
                            model::Stance::Dispute => Some(1),
                            model::Stance::Abstain => Some(2),
                            model::Stance::Endorse => Some(3),
                            model::Stance::Withdraw | model::Stance::Park => None,
                        }
                    })
                    .collect()
            })
            .collect();
        agreement::agreement(&agreement::Ratings {
            judges: voters.len(),
            units,
        })
    }

    /// How `slot` judges the others' findings, a word or two each for its
    /// pane: `blind`, `own order`, and the model family it shares with
    /// another participant (`≈ anthropic`, or `≈ anthropic recused` when
    /// its word on their findings is left out).
    pub(super) fn fairness_marks(&self, slot: &str) -> Vec<String> {
        let fairness = &self.config.seating.fairness;
        let mut marks = fairness.marks(slot, "");
        let kin = self
            .participants
            .iter()
            .filter(|other| *other != slot)
            .find_map(|other| fairness.kinship(slot, other));
        if let Some(kin) = kin {
            marks.push(match kin.recused() {
                true => format!("≈ {} recused", kin.family),
                false => format!("≈ {}", kin.family),
            });
        }
        marks
    }

    /// What hides the authors' self-identification in a blind council: the
    /// built-in names and the models its participants run.
    fn blindfold(&self) -> Blindfold {
        let seating = &self.config.seating;
        let material = std::iter::once(self.config.topic.as_str())
            .chain(self.config.context.iter().map(|doc| doc.text.as_str()));
        Blindfold::for_agents(
            &seating.fairness,
            seating.agents.values().map(String::as_str),
        )
        .sparing(material)
    }

    /// What `role`'s final-position prompt carries (but its packet): the
    /// inventory and the exchange as it reads them ([`Self::final_reading`]),
    /// its own findings, the open ids in its order, the merges that touch
    /// its own, the rulings. `variant`: as a variant of the stability
    /// receipt reads them.
    pub(super) fn final_context(&self, role: &str, variant: Option<&Variant>) -> serde_json::Value {
        let mut blindfold = self.blindfold();
        self.final_context_with(role, variant, &mut blindfold)
    }

    fn final_context_with(
        &self,
        role: &str,
        variant: Option<&Variant>,
        blindfold: &mut Blindfold,
    ) -> serde_json::Value {
        let mut context = self.base_context(role);
        let (inventory, history) = self.final_reading(role, blindfold, variant);
        context["inventory"] = pretty(inventory);
        context["history"] = pretty(history);
        context["own"] = json!(
            self.open_ids()
                .into_iter()
                .filter(|id| self.origins_of(id).iter().any(|origin| origin == role))
                .collect::<Vec<_>>()
        );
        context["open"] = json!(match variant {
            Some(variant) => variant.arrange(&self.open_ids(), role),
            None => self.config.seating.fairness.arrange(&self.open_ids(), role),
        });
        let merges: Vec<serde_json::Value> = self.merge_candidates
                .iter()
                .filter(|m| m.findings.iter().any(|id| self.origins_of(id).iter().any(|origin| origin == role)))
                .map(|m| {
                    let mut pair = json!({"findings": m.findings, "proposed_by": m.proposed_by, "overlap": m.overlap});
                    // A new proposal that would retire another's says how.
                    if let Some(r) = self.retirements.iter().find(|r| m.findings == [r.proposal.clone(), r.by.clone()]) {
                        pair["would"] = json!(format!("{} {} {}", r.by, match r.status {
                            model::ProposalStatus::Superseded => "supersedes",
                            model::ProposalStatus::Split => "splits",
                            _ => "merges in",
                        }, r.proposal));
                    }
                    pair
                })
                .collect();
        context["merges"] = if merges.is_empty() {
            json!("")
        } else {
            pretty(json!(merges))
        };
        context["fallback"] = json!(self.fallback.is_some());
        self.put_rulings(&mut context, self.challenges.iter());
        context
    }

    pub(super) fn start_final(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Final, now);
        let present = self.final_roster();
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
        if let Some(fairness) = self.config.seating.fairness.describe() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("fair judging: the final positions read {fairness}"),
            );
        }
        let mut blindfold = self.blindfold();
        for role in present {
            let context = self.final_context_with(&role, None, &mut blindfold);
            let file = documents::final_file(&role);
            match self.start_awaited(
                &prompts::FINAL,
                context,
                role.clone(),
                PacketKind::FinalPosition,
                file,
                now,
            ) {
                Ok(effect) => {
                    if let Effect::StartCall(spec) = &effect {
                        self.final_prompts
                            .insert(role.clone(), spec.request.prompt.chars().count());
                    }
                    self.final_started(&role, now);
                    effects.push(effect)
                }
                Err(failed) => return failed,
            }
        }
        // Each masking once, however many participants read it.
        let masked = blindfold.into_distinct();
        for masking in masked {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("fair judging: {masking} in what the final positions read"),
            );
        }
        effects
    }

    pub(super) fn on_final(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let role = answer.call.slot.role.clone();
        let known: Vec<String> = if self.proposes() {
            self.proposals.iter().map(|p| p.id.clone()).collect()
        } else {
            self.findings.iter().map(|f| f.id.clone()).collect()
        };
        let refs: Vec<&str> = known.iter().map(String::as_str).collect();
        let read = |text: &str| parse::read_final(text, &role, &refs);
        let count =
            |position: &model::FinalPosition| position.positions.len() + position.merges.len();
        let may_ask = self.may_ask_again();
        match self.core.read_by_item_if(&answer, may_ask, read, count) {
            ByItem::Asked(effects) => return effects,
            ByItem::Read(reading) => {
                let raw = reading.text(&answer).to_string();
                let Read {
                    value: position,
                    notes,
                    slips,
                } = reading.read;
                let discrepancies = rulings::final_discrepancies(&position, &self.challenges);
                if let Some(again) = self.keep_checked(&answer, &raw, discrepancies, notes) {
                    return vec![again];
                }
                self.core
                    .leave_out(&answer.call, now, &slips, final_item, final_effect);
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
                    Some(&answer.call.call_id()),
                    format!(
                        "{role}'s final position: {} endorsed, {} disputed, {} withdrawn",
                        tally(model::Stance::Endorse),
                        tally(model::Stance::Dispute),
                        tally(model::Stance::Withdraw)
                    ),
                );
                self.positions.insert(role.clone(), position);
                self.final_ended(&role, now, None);
            }
            ByItem::Unreadable(error) => {
                self.final_ended(
                    &role,
                    now,
                    Some("its final position was unreadable".to_string()),
                );
                self.malformed(&answer, error.to_string());
                self.core.record_unread(
                    &answer.call,
                    "final position".into(),
                    error.to_string(),
                    "it is not counted: the findings' shares are over the participants whose positions were read, and no merge of its findings can have its agreement".into(),
                );
            }
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
            fairness: &self.config.seating.fairness,
            edition: self.config.seating.edition,
            unverified: &self.unverified,
        }
    }

    pub(super) fn conclude(&mut self, now: Timestamp) -> Vec<Effect> {
        if let Some(short) = self.short_of_quorum("a final position", self.positions.len()) {
            return self.fail(now, short);
        }
        if self.proposes() {
            self.proposal_outcomes = verdict::convergence::converge(
                &self.participants,
                &self.proposals,
                &self.positions,
                &self.config.params(),
                &self.retirements,
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
        if self.stability.is_none() {
            self.file_evidence();
        }
        // The stability receipt (issue 55), when asked, before the verdict
        // is given: the council ends once every variant is in.
        if let Some(effects) = self.start_receipt(now) {
            return effects;
        }
        self.core.enter(Step::Done, now);
        let mut assessment = self.decide_on(&self.positions, &self.final_calls);
        if let Some(made) = self.receipt() {
            assessment =
                stability::with_stability(assessment, made, self.config.stability.required);
        }
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
        if !self.config.seating.fairness.is_legacy() {
            let agreement = self.final_agreement(&assessment);
            self.log(
                now,
                LogKind::Note,
                None,
                format!("the final positions: {}", agreement.summary()),
            );
            self.agreement = Some(agreement);
        }
        let (verdict, rule) = (assessment.verdict, assessment.rule.clone());
        self.assessment = Some(assessment);
        self.exchange.final_summary(&self.present());
        vec![self.core.decide(now, verdict, rule)]
    }
}

/// `value` with the fields named `keys`, at every depth, naming a
/// participant of `labels` by its label instead (a list of names, `a, b`,
/// each in turn).
fn relabelled(value: &mut serde_json::Value, keys: &[&str], labels: &BTreeMap<String, String>) {
    match value {
        serde_json::Value::Array(items) => items
            .iter_mut()
            .for_each(|item| relabelled(item, keys, labels)),
        serde_json::Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                match field {
                    serde_json::Value::String(names) if keys.contains(&key.as_str()) => {
                        let named: Vec<&str> = names
                            .split(", ")
                            .map(|name| labels.get(name).map_or(name, String::as_str))
                            .collect();
                        *names = named.join(", ");
                    }
                    _ => relabelled(field, keys, labels),
                }
            }
        }
        _ => {}
    }
}

/// `value` with the fields named `keys` taken out at every depth: who
/// wrote what, for a blind reader.
fn unsigned(value: &mut serde_json::Value, keys: &[&str]) {
    match value {
        serde_json::Value::Array(items) => items.iter_mut().for_each(|item| unsigned(item, keys)),
        serde_json::Value::Object(fields) => {
            fields.retain(|key, _| !keys.contains(&key.as_str()));
            fields.values_mut().for_each(|field| unsigned(field, keys));
        }
        _ => {}
    }
}

/// How an item of a final position left out is named: `stance on F003`,
/// `vote on a merge`, `summary`.
fn final_item(slip: &crate::parse::Slip) -> String {
    let field = slip.error.field.as_deref().unwrap_or_default();
    match &slip.id {
        Some(id) if field.starts_with("positions") => format!("stance on {id}"),
        Some(id) if id == "summary" => "summary".to_string(),
        _ if field.starts_with("merges") => {
            format!("vote {}", crate::protocol::reading::slip_name(slip))
        }
        _ => format!("stance {}", crate::protocol::reading::slip_name(slip)),
    }
}

/// What leaving an item of a final position out changed.
fn final_effect(slip: &crate::parse::Slip) -> String {
    let field = slip.error.field.as_deref().unwrap_or_default();
    if field.starts_with("merges") {
        "its agreement to that merge is missing, so the merge cannot go ahead on it".to_string()
    } else if slip.id.as_deref() == Some("summary") {
        "the final position counts without it".to_string()
    } else {
        "it counts as no stance: its weight stays in the count without backing or disputing the finding".to_string()
    }
}
