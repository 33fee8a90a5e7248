//! The end of a planning debate: the critic's final assessment and the
//! optimizer's final proposals (PC-18, PC-19), the synthesizer's plan
//! written from those and the final plan only (PC-20), and the outcome
//! (PC-26, PC-31..PC-33, A27).
//!
//! Not responsible for the documents the outcome is written to
//! (`documents`).

use super::{Plan, Role, Step, documents, parse, prompts};
use crate::parse::Read;
use crate::protocol::{Answer, ByItem, Effect, ItemDecision, LogKind, SharedSteps, Timestamp};
use crate::words::counted;
use serde_json::json;

impl Plan {
    /// The critic's final assessment (unless its review was one) and the
    /// optimizer's final proposals, at once (PC-18, PC-19).
    pub(super) fn start_final(&mut self, with_critic: bool, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Final, now);
        let items: Vec<serde_json::Value> =
            self.items.iter().map(|item| self.item_json(item)).collect();
        let mut effects = Vec::new();
        if with_critic {
            let context = self.critic_prompt("assessment");
            match self.start_call(&prompts::CRITIC, context, Role::Critic, now) {
                Ok(effect) => {
                    self.awaiting.insert(Role::Critic);
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        let context = json!({
            "goal": self.config.topic,
            "context": self.config.context,
            "plan": self.plan,
            "round": self.core.round,
            "stage": "final",
            "challenges": Vec::<serde_json::Value>::new(),
            "earlier": items,
            "unverified": self.unverified_json(),
            "rulings": self.rulings_section(),
            "asks_evidence": self.follows_conclusions(),
        });
        match self.start_call(&prompts::OPTIMIZER, context, Role::Optimizer, now) {
            Ok(effect) => {
                self.awaiting.insert(Role::Optimizer);
                effects.push(effect);
            }
            Err(failed) => return failed,
        }
        effects
    }

    /// The final words of `role`: the critic's assessment or the
    /// optimizer's proposals.
    pub(super) fn on_final(&mut self, role: Role, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        if answer.output.trim().is_empty() {
            return if role == Role::Critic {
                self.repair_or_stop(answer, "the final assessment is empty")
            } else {
                match self.repair(answer, "the final proposals are empty") {
                    Ok(effects) => effects,
                    Err(reason) => {
                        self.missing
                            .push(format!("no final proposals from the optimizer ({reason})"));
                        self.awaiting.remove(&Role::Optimizer);
                        self.conclude_final(now)
                    }
                }
            };
        }
        let known: Vec<String> = self.assumptions.iter().map(|a| a.id.clone()).collect();
        let known: Vec<&str> = known.iter().map(String::as_str).collect();
        let read = |text: &str| Ok(parse::read_verifications(text, &known));
        let reading = match self.core.read_by_item(&answer, read, Vec::len) {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => return self.repair_or_stop(answer, error.to_string()),
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let Read {
            value: checks,
            notes,
            slips,
        } = reading.read;
        self.keep_checked(&answer, &raw, notes, checks);
        self.core.leave_out(
            &answer.call,
            now,
            &slips,
            crate::protocol::reading::slip_name,
            |_| "the assumption keeps the status it had: this check is not counted".to_string(),
        );
        if role == Role::Critic {
            self.assessment = Some(raw);
        } else {
            self.final_proposals = Some(raw);
        }
        self.awaiting.remove(&role);
        self.conclude_final(now)
    }

    /// Once both final words are in: the moderator confirms or leaves
    /// unverified what was marked `[VERIFIED]` without evidence and not put
    /// to a moderation yet (issue 60), then the synthesis.
    pub(super) fn conclude_final(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.awaiting.is_empty() {
            return Vec::new();
        }
        if let Some(moderation) = self.open_confirmations(now) {
            return moderation;
        }
        self.start_synthesis(now)
    }

    /// The synthesizer starts only with the final plan, the critic's final
    /// assessment and the optimizer's final proposals (PC-20).
    pub(super) fn start_synthesis(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Synthesis, now);
        let log = documents::log_rows(self);
        let counts = documents::counts(self);
        let context = json!({
            "goal": self.config.topic,
            "simple": self.config.simple,
            "plan": self.plan,
            "assessment": self.assessment.clone().unwrap_or_default(),
            "final_proposals": self.final_proposals.clone().unwrap_or_default(),
            "log": log.iter().map(|row| json!({
                "id": row.id, "source": row.source, "summary": row.summary,
                "category": row.category, "resolution": row.resolution, "detail": row.detail,
            })).collect::<Vec<_>>(),
            "counts": counts.lines(),
            "rulings": self.rulings_section(),
            "unverified": self.unverified_json(),
            "files": self.synthesis_files(),
        });
        self.start_one(&prompts::SYNTHESIS, context, Role::Synthesizer, now)
    }

    /// The files the synthesizer's answer becomes besides plan.md (issue
    /// 60, PC-21, PC-22): the plan under `docs/plans/` and its decision
    /// record under `docs/adr/`; none for a debate from before, which wrote
    /// plan.md alone.
    fn synthesis_files(&self) -> serde_json::Value {
        if !self.follows_conclusions() {
            return serde_json::Value::Null;
        }
        let names = super::docs::Names::of(self);
        json!({
            "plan": format!("docs/plans/{}", names.plan),
            "adr": format!("docs/adr/{}", names.adr),
            "index": format!("docs/plans/{}", super::docs::INDEX),
        })
    }

    pub(super) fn on_synthesis(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        if answer.output.trim().is_empty() {
            return self.repair_or_stop(answer, "the plan document is empty");
        }
        let call_id = answer.call.call_id();
        if let Err(asked) = self.bind(&answer, "plan") {
            return asked;
        }
        self.keep(&answer, Vec::new());
        self.synthesis = self.kept.last().cloned();
        for correction in documents::corrections(self) {
            self.log(now, LogKind::Note, Some(&call_id), correction);
        }
        self.finish(now)
    }

    fn finish(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Done, now);
        let open = self.open_assumptions().len();
        let deferred = self
            .decisions
            .values()
            .filter(|d| d.decision == ItemDecision::Defer)
            .count();
        let note = if self.config.simple {
            format!(
                "simple mode: the planner's plan, {} to investigate",
                counted(open, "unverified assumption", "unverified assumptions")
            )
        } else {
            format!(
                "{}, {} decided ({deferred} deferred), {} to investigate",
                counted(self.rounds_run as usize, "round", "rounds"),
                counted(self.decisions.len(), "item", "items"),
                counted(open, "unverified assumption", "unverified assumptions")
            )
        };
        let delivers = "a planning debate delivers a plan";
        vec![self.core.complete(now, delivers, documents::PLAN, note)]
    }
}
