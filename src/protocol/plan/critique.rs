//! The first half of a planning round: the planner's draft (PC-24), the
//! critic's challenges on it or, in round 2, its review of the planner's
//! responses (PC-08, PC-09, PC-16), and the optimizer's improvements and
//! third options, given only the plan and the challenges (PC-10, PC-11).
//!
//! Not responsible for the planner's responses and the moderator
//! (`moderation`), nor for the revision (`revision`).

use super::model::Source;
use super::{MAX_ROUNDS, Plan, Role, Step, listed, parse, prompts};
use crate::parse::Read;
use crate::protocol::{Answer, ByItem, Effect, LogKind, SharedSteps, Timestamp};
use serde_json::json;

impl Plan {
    pub(super) fn start_draft(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Draft, now);
        let context = json!({
            "goal": self.config.topic,
            "context": self.config.context,
            "simple": self.config.simple,
        });
        self.start_one(&prompts::DRAFT, context, Role::Planner, now)
    }

    pub(super) fn on_draft(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        if answer.output.trim().is_empty() {
            return self.repair_or_stop(answer, "the plan is empty");
        }
        self.keep(&answer, Vec::new());
        self.plan = answer.output.to_string();
        self.track_markers(answer.output, "draft", now);
        if self.config.simple {
            return self.start_synthesis(now);
        }
        self.start_critique(now)
    }

    fn start_critique(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Critique, now);
        let context = self.critic_prompt("critique");
        self.start_one(&prompts::CRITIC, context, Role::Critic, now)
    }

    pub(super) fn critic_prompt(&self, stage: &str) -> serde_json::Value {
        let items: Vec<serde_json::Value> =
            self.items.iter().map(|item| self.item_json(item)).collect();
        json!({
            "goal": self.config.topic,
            "context": self.config.context,
            "plan": self.plan,
            "round": self.core.round,
            "max_rounds": MAX_ROUNDS,
            "stage": stage,
            "unverified": self.unverified_json(),
            "items": items,
            "rulings": self.rulings_section(),
            "asks_evidence": self.follows_conclusions(),
        })
    }

    pub(super) fn on_critique(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let reading = match self.read_contribution(&answer, Source::Critic) {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => return self.repair_or_stop(answer, error.to_string()),
            ByItem::Read(reading) => reading,
        };
        let value = self.take_contribution(&answer, reading);
        let call_id = answer.call.call_id();
        let ids = self.take_items(value, Source::Critic);
        let message = format!("critic: {}", listed(&ids, "challenge", "challenges"));
        self.log(now, LogKind::Note, Some(&call_id), message);
        self.start_optimize(now)
    }

    /// Reads a critic's or an optimizer's answer item by item: its items
    /// (a `Reopens:` or `Resolves:` naming an item raised so far) and its
    /// checks of the assumptions.
    fn read_contribution(
        &mut self,
        answer: &Answer<'_>,
        source: Source,
    ) -> ByItem<parse::Contribution> {
        let raised: Vec<String> = self.items.iter().map(|item| item.id.clone()).collect();
        let challenges: Vec<String> = self
            .items
            .iter()
            .filter(|item| item.source == Source::Critic)
            .map(|item| item.id.clone())
            .collect();
        let assumptions: Vec<String> = self.assumptions.iter().map(|a| a.id.clone()).collect();
        let raised: Vec<&str> = raised.iter().map(String::as_str).collect();
        let challenges: Vec<&str> = challenges.iter().map(String::as_str).collect();
        let assumptions: Vec<&str> = assumptions.iter().map(String::as_str).collect();
        let read = |text: &str| {
            let items = |text: &str| match source {
                Source::Critic => parse::read_challenges(text, &raised),
                Source::Optimizer => parse::read_proposals(text, &challenges),
            };
            parse::read_contribution(text, items, &assumptions)
        };
        self.core
            .read_by_item(answer, read, parse::Contribution::len)
    }

    /// Keeps what a critic or an optimizer answered, read item by item: its
    /// checks of the assumptions taken, what could not be read left out;
    /// its items, to number.
    fn take_contribution(
        &mut self,
        answer: &Answer<'_>,
        reading: crate::protocol::ItemReading<parse::Contribution>,
    ) -> Vec<parse::Written> {
        let raw = reading.text(answer).to_string();
        let Read {
            value,
            notes,
            slips,
        } = reading.read;
        self.keep_checked(answer, &raw, notes, value.checks);
        self.core.leave_out(
            &answer.call,
            answer.now,
            &slips,
            crate::protocol::reading::slip_name,
            contribution_effect,
        );
        value.items
    }

    /// Round 2: the critic checks the planner's responses (PC-16). What it
    /// challenges again starts round 2; nothing, and its answer is its
    /// final assessment.
    pub(super) fn start_review(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.round = 2;
        self.core.enter(Step::Review, now);
        let context = self.critic_prompt("review");
        self.start_one(&prompts::CRITIC, context, Role::Critic, now)
    }

    pub(super) fn on_review(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let reading = match self.read_contribution(&answer, Source::Critic) {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => return self.repair_or_stop(answer, error.to_string()),
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let value = self.take_contribution(&answer, reading);
        let call_id = answer.call.call_id();
        if value.is_empty() {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                "critic: the responses hold; no second round, and this is its final assessment"
                    .into(),
            );
            self.assessment = Some(raw);
            self.core.round = 1;
            return self.start_final(false, now);
        }
        let ids = self.take_items(value, Source::Critic);
        self.log(
            now,
            LogKind::Note,
            Some(&call_id),
            format!(
                "critic disputes the responses: {}; round 2",
                listed(&ids, "challenge", "challenges")
            ),
        );
        self.start_optimize(now)
    }

    /// The optimizer starts only with the plan and the critic's challenges
    /// in hand (PC-10, PC-11); in round 2 it gets the disputed items.
    fn start_optimize(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Optimize, now);
        let challenges: Vec<serde_json::Value> = self
            .round_items(Source::Critic)
            .into_iter()
            .map(|item| self.item_json(item))
            .collect();
        let earlier: Vec<serde_json::Value> = self
            .items
            .iter()
            .filter(|item| item.round < self.core.round)
            .map(|item| self.item_json(item))
            .collect();
        let context = json!({
            "goal": self.config.topic,
            "context": self.config.context,
            "plan": self.plan,
            "round": self.core.round,
            "stage": "optimize",
            "challenges": challenges,
            "earlier": earlier,
            "unverified": self.unverified_json(),
            "rulings": self.rulings_section(),
            "asks_evidence": self.follows_conclusions(),
        });
        self.start_one(&prompts::OPTIMIZER, context, Role::Optimizer, now)
    }

    pub(super) fn on_optimize(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let reading = match self.read_contribution(&answer, Source::Optimizer) {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => {
                return match self.repair(answer, error.to_string()) {
                    Ok(effects) => effects,
                    Err(reason) => self.optimizer_missing(reason, now),
                };
            }
            ByItem::Read(reading) => reading,
        };
        let value = self.take_contribution(&answer, reading);
        let call_id = answer.call.call_id();
        let ids = self.take_items(value, Source::Optimizer);
        let message = format!("optimizer: {}", listed(&ids, "proposal", "proposals"));
        self.log(now, LogKind::Note, Some(&call_id), message);
        self.start_respond(now)
    }

    /// The optimizer gave nothing usable: the round goes on without its
    /// proposals, and the record says so.
    pub(super) fn optimizer_missing(&mut self, reason: String, now: Timestamp) -> Vec<Effect> {
        let message = format!(
            "round {}: no proposals from the optimizer ({reason})",
            self.core.round
        );
        self.log(now, LogKind::Skip, None, message.clone());
        self.missing.push(message);
        self.start_respond(now)
    }
}

/// What leaving an item of a critic's or an optimizer's answer out
/// changed.
fn contribution_effect(slip: &crate::parse::Slip) -> String {
    let name = slip.id.as_deref().unwrap_or_default();
    if name.starts_with("check of") {
        "the assumption keeps the status it had: this check is not counted".to_string()
    } else if name.ends_with("Resolves") || name.ends_with("Reopens") {
        "the item stands without it: it names no other item".to_string()
    } else {
        "it was not raised: no response, ruling or log row is given to it".to_string()
    }
}
