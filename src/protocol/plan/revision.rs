//! The rulings that bind: every decision so far as the acting agent's
//! prompt carries it, the check of an answer against them (one request
//! to fix a departure, then the departure stands, recorded), and the
//! planner's revision of the plan to the final decisions (PC-15) that
//! ends a round.
//!
//! Not responsible for how the decisions are taken (`moderation`), nor
//! for reading the critique log against them (`binding`).

use super::{MAX_ROUNDS, Plan, Role, Step, binding, prompts};
use crate::protocol::{Answer, Effect, ItemDecision, LogKind, SharedSteps, Timestamp};
use serde_json::json;

impl Plan {
    /// Every item decided so far with its decision and the moderator's
    /// note, in the order raised.
    fn decided(&self) -> Vec<(String, ItemDecision, Option<String>)> {
        self.items
            .iter()
            .filter_map(|item| {
                let decision = self.decisions.get(&item.id)?;
                Some((item.id.clone(), decision.decision, decision.note.clone()))
            })
            .collect()
    }

    /// The rulings section of the acting agent's prompt.
    pub(super) fn rulings_section(&self) -> String {
        binding::section(&self.decided())
    }

    /// Checks `answer` (that of `what`: `revision 1`, `plan`) against
    /// the decisions. On a departure, asks once more naming it (`Err`
    /// carries the call); asked already, the departures stand, logged and
    /// recorded, and `Ok` lets the answer go on.
    pub(super) fn bind(&mut self, answer: &Answer<'_>, what: &str) -> Result<(), Vec<Effect>> {
        let now = answer.now;
        if !self.config.checks_rulings {
            return Ok(());
        }
        let decided: Vec<(String, ItemDecision)> = self
            .decided()
            .into_iter()
            .map(|(id, decision, _)| (id, decision))
            .collect();
        let checked = binding::departures(answer.output, &decided);
        let call_id = answer.call.call_id();
        if checked.uncited {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!(
                    "the {what} cites no critique item by id, so quorum could not check it against your decisions"
                ),
            );
            self.unchecked.push(what.to_string());
        }
        if checked.departures.is_empty() {
            return Ok(());
        }
        let listed = checked.departures.join("; ");
        match self.core.recheck(answer.clone(), &checked.departures) {
            Some(spec) => {
                // The first answer stays in the record beside the second.
                self.keep(answer, Vec::new());
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    format!("the {what} goes against your decisions: {listed}; asking once more"),
                );
                Err(vec![Effect::StartCall(spec)])
            }
            None => {
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    format!(
                        "the {what} still goes against your decisions after being asked once more: {listed}"
                    ),
                );
                for departure in checked.departures {
                    self.departures.push((what.to_string(), departure));
                }
                Ok(())
            }
        }
    }

    /// The planner revises the plan to the final decisions (PC-15).
    pub(super) fn start_revise(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Revise, now);
        let decided: Vec<serde_json::Value> = self
            .items
            .iter()
            .filter(|item| item.round == self.core.round)
            .map(|item| self.item_json(item))
            .collect();
        let context = json!({
            "goal": self.config.topic,
            "plan": self.plan,
            "round": self.core.round,
            "decisions": decided,
            "rulings": self.rulings_section(),
            "unverified": self.unverified_json(),
        });
        self.start_one(&prompts::REVISE, context, Role::Planner, now)
    }

    pub(super) fn on_revise(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        if answer.output.trim().is_empty() {
            return self.repair_or_stop(answer, "the revised plan is empty");
        }
        let what = format!("revision {}", self.core.round);
        if let Err(asked) = self.bind(&answer, &what) {
            return asked;
        }
        self.keep(&answer, Vec::new());
        self.plan = answer.output.to_string();
        let from = format!("revision {}", self.core.round);
        self.track_markers(answer.output, &from, now);
        self.rounds_run = self.core.round;
        self.after_round(now)
    }

    /// After round 1 the critic reviews the responses; after round 2 the
    /// final words.
    pub(super) fn after_round(&mut self, now: Timestamp) -> Vec<Effect> {
        if self.core.round < MAX_ROUNDS {
            return self.start_review(now);
        }
        self.start_final(true, now)
    }
}
