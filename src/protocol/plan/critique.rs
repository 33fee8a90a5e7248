//! The first half of a planning round: the planner's draft (PC-24), the
//! critic's challenges on it or, in round 2, its review of the planner's
//! responses (PC-08, PC-09, PC-16), and the optimizer's improvements and
//! third options, given only the plan and the challenges (PC-10, PC-11).
//!
//! Not responsible for the planner's responses and the moderator
//! (`moderation`), nor for the revision (`revision`).

use super::model::Source;
use super::{CRITIC, MAX_ROUNDS, OPTIMIZER, PLANNER, Plan, Step, listed, parse, prompts};
use crate::parse::Read;
use crate::protocol::{Answer, Effect, LogKind, SharedSteps, Timestamp};
use serde_json::json;

impl Plan {
    pub(super) fn start_draft(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Draft, now);
        let context = json!({
            "goal": self.config.topic,
            "context": self.config.context,
            "simple": self.config.simple,
        });
        self.start_one(&prompts::DRAFT, context, PLANNER, now)
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
        self.enter(Step::Critique, now);
        let context = self.critic_prompt("critique");
        self.start_one(&prompts::CRITIC, context, CRITIC, now)
    }

    pub(super) fn critic_prompt(&self, stage: &str) -> serde_json::Value {
        let items: Vec<serde_json::Value> =
            self.items.iter().map(|item| self.item_json(item)).collect();
        json!({
            "goal": self.config.topic,
            "context": self.config.context,
            "plan": self.plan,
            "round": self.round,
            "max_rounds": MAX_ROUNDS,
            "stage": stage,
            "unverified": self.unverified_json(),
            "items": items,
            "rulings": self.rulings_section(),
        })
    }

    pub(super) fn on_critique(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        match parse::read_challenges(answer.output) {
            Ok(Read { value, notes }) => {
                let call_id = self.keep_checked(&answer, notes);
                let ids = self.take_items(value, Source::Critic);
                let message = format!("critic: {}", listed(&ids, "challenge", "challenges"));
                self.log(now, LogKind::Note, Some(&call_id), message);
                self.start_optimize(now)
            }
            Err(error) => self.repair_or_stop(answer, error.to_string()),
        }
    }

    /// Round 2: the critic checks the planner's responses (PC-16). What it
    /// challenges again starts round 2; nothing, and its answer is its
    /// final assessment.
    pub(super) fn start_review(&mut self, now: Timestamp) -> Vec<Effect> {
        self.round = 2;
        self.enter(Step::Review, now);
        let context = self.critic_prompt("review");
        self.start_one(&prompts::CRITIC, context, CRITIC, now)
    }

    pub(super) fn on_review(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        match parse::read_challenges(answer.output) {
            Ok(Read { value, notes }) => {
                let call_id = self.keep_checked(&answer, notes);
                if value.is_empty() {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(&call_id),
                        "critic: the responses hold; no second round, and this is its final assessment"
                            .into(),
                    );
                    self.assessment = Some(answer.output.to_string());
                    self.round = 1;
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
            Err(error) => self.repair_or_stop(answer, error.to_string()),
        }
    }

    /// The optimizer starts only with the plan and the critic's challenges
    /// in hand (PC-10, PC-11); in round 2 it gets the disputed items.
    fn start_optimize(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Optimize, now);
        let challenges: Vec<serde_json::Value> = self
            .round_items(Source::Critic)
            .into_iter()
            .map(|item| self.item_json(item))
            .collect();
        let earlier: Vec<serde_json::Value> = self
            .items
            .iter()
            .filter(|item| item.round < self.round)
            .map(|item| self.item_json(item))
            .collect();
        let context = json!({
            "goal": self.config.topic,
            "context": self.config.context,
            "plan": self.plan,
            "round": self.round,
            "stage": "optimize",
            "challenges": challenges,
            "earlier": earlier,
            "unverified": self.unverified_json(),
            "rulings": self.rulings_section(),
        });
        self.start_one(&prompts::OPTIMIZER, context, OPTIMIZER, now)
    }

    pub(super) fn on_optimize(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        match parse::read_proposals(answer.output) {
            Ok(Read { value, notes }) => {
                let call_id = self.keep_checked(&answer, notes);
                let ids = self.take_items(value, Source::Optimizer);
                let message = format!("optimizer: {}", listed(&ids, "proposal", "proposals"));
                self.log(now, LogKind::Note, Some(&call_id), message);
                self.start_respond(now)
            }
            Err(error) => match self.repair(answer, error.to_string()) {
                Ok(effects) => effects,
                Err(reason) => self.optimizer_missing(reason, now),
            },
        }
    }

    /// The optimizer gave nothing usable: the round goes on without its
    /// proposals, and the record says so.
    pub(super) fn optimizer_missing(&mut self, reason: String, now: Timestamp) -> Vec<Effect> {
        let message = format!(
            "round {}: no proposals from the optimizer ({reason})",
            self.round
        );
        self.log(now, LogKind::Skip, None, message.clone());
        self.missing.push(message);
        self.start_respond(now)
    }
}
