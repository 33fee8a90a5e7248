//! Where an answer, a call given up on or one of the run's own inputs
//! (a moderator's decision, a submission, an override) goes, by the step
//! the run is in; and what the interfaces show of it: the stage strip and
//! one board row per hypothesis.
//!
//! Not responsible for what each step does with what it gets (the stage
//! modules), nor for the `Protocol` implementation itself (`mod.rs`).

use super::model::{Challenge, ChallengeState, Hypothesis};
use super::{CRITIC, Rca, Step, debugger_name};
use crate::protocol::supervision::LiveCall;
use crate::protocol::{Effect, Fact, LogKind, StageInfo, Timestamp};
use crate::report::one_line;

impl Rca {
    pub(super) fn on_answer(
        &mut self,
        call: LiveCall,
        output: &str,
        now: Timestamp,
    ) -> Vec<Effect> {
        match (self.step, call.slot.role.as_str()) {
            (Step::Findings, _) => self.on_findings(call, output, now),
            (Step::Challenge | Step::Ruling, CRITIC) => self.on_critic(call, output, now),
            (Step::Answers, _) => self.on_answers(call, output, now),
            (Step::Restate, _) => self.on_restate(call, output, now),
            _ => Vec::new(),
        }
    }

    pub(super) fn on_gave_up(
        &mut self,
        call: LiveCall,
        reason: String,
        now: Timestamp,
    ) -> Vec<Effect> {
        let role = call.slot.role.clone();
        match self.step {
            Step::Findings => {
                let name = debugger_name(&role).to_string();
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call.call_id()),
                    format!("{name} presents no hypotheses: {reason}"),
                );
                self.awaiting.remove(&name);
                self.conclude_findings_if_complete(now)
            }
            Step::Answers => {
                let name = debugger_name(&role).to_string();
                self.missed_all(&name, &reason, now);
                self.awaiting.remove(&name);
                self.conclude_answers_if_complete(now)
            }
            Step::Restate => {
                self.restate_failed(format!("the call failed ({reason})"), now);
                self.step = Step::Done;
                self.conclude(now)
            }
            // The critic is required (A18).
            _ => self.fail(
                now,
                format!(
                    "the {role} gave no answer in the {} stage, even after a retry ({reason})",
                    call.slot.stage
                ),
            ),
        }
    }

    /// The stages; the restatement only when one was asked for.
    pub(super) fn stages(&self) -> Vec<StageInfo> {
        let mut steps = Step::ALL.to_vec();
        if self.restatement.is_some() {
            steps.insert(steps.len() - 1, Step::Restate);
        }
        steps
            .iter()
            .map(|step| StageInfo::new(step.id(), step.title(), step.focus()))
            .collect()
    }

    /// One row of the hypotheses board.
    pub(super) fn board_row(&self, hypothesis: &Hypothesis) -> crate::protocol::Ruling {
        let derived = self.status_of(&hypothesis.id);
        let mine: Vec<&Challenge> = self.challenges_of(&hypothesis.id).collect();
        let count = |states: &[ChallengeState]| {
            mine.iter()
                .filter(|challenge| states.contains(&challenge.state))
                .count()
                .to_string()
        };
        let mut facts = vec![
            Fact::new("owner", &hypothesis.owner),
            Fact::new(
                "open",
                &count(&[
                    ChallengeState::Open,
                    ChallengeState::Proposed,
                    ChallengeState::Held,
                ]),
            ),
            Fact::new("answered", &count(&[ChallengeState::Answered])),
            Fact::new("resolved", &count(&[ChallengeState::Resolved])),
            Fact::new("evidence", &hypothesis.finding.evidence.len().to_string()),
        ];
        let mut hedges: Vec<String> = hypothesis.hedges.iter().map(|h| h.to_string()).collect();
        for challenge in &mine {
            for answer in &challenge.answers {
                for word in &answer.hedges {
                    if !hedges.contains(word) {
                        hedges.push(word.clone());
                    }
                }
            }
        }
        if !hedges.is_empty() {
            facts.push(Fact::warning("hedges", &hedges.join(", ")));
        }
        let rule = match &derived {
            Some(derived) => derived.rule.clone(),
            None => {
                let pending: Vec<String> = mine
                    .iter()
                    .filter(|c| {
                        !matches!(
                            c.state,
                            ChallengeState::Resolved | ChallengeState::Withdrawn
                        )
                    })
                    .map(|c| format!("{} {}", c.id, c.state.as_str()))
                    .collect();
                if pending.is_empty() {
                    "active".to_string()
                } else {
                    format!("active: {}", pending.join(", "))
                }
            }
        };
        crate::protocol::Ruling {
            subject: hypothesis.id.clone(),
            title: one_line(&hypothesis.finding.claim),
            word: derived.as_ref().map(|d| d.status.as_str().to_string()),
            tone: derived.as_ref().map(|d| d.status.tone()),
            rule,
            facts,
        }
    }
}
