//! How a root-cause run ends: the statuses derived, the one survivor's
//! owner asked once to restate a hedged claim (RC-10, RC-16), and the
//! verdict concluded from the statuses and the restatement (RC-15).
//!
//! Not responsible for deriving the statuses themselves (`status`), nor
//! for the critic's final assessment prompt (`critic`).

use super::model::{ChallengeState, Restatement};
use super::{Rca, Step, debugger_slot, documents, hedge, parse, prompts, status};
use crate::parse::Read;
use crate::protocol::{Answer, Effect, LogKind, SharedSteps, Timestamp};
use crate::report::one_line;
use serde_json::json;

impl Rca {
    pub(super) fn finish(&mut self, now: Timestamp, stopped: String) -> Vec<Effect> {
        self.stopped = Some(stopped.clone());
        self.enter(Step::Done, now);
        self.log(
            now,
            LogKind::Note,
            None,
            format!("the analysis stops: {stopped}"),
        );
        self.statuses = self
            .hypotheses
            .iter()
            .map(|h| {
                let derived = status::final_status_among(&h.id, self.challenges_of(&h.id));
                (h.id.clone(), derived)
            })
            .collect();
        self.places.statuses = self
            .statuses
            .iter()
            .enumerate()
            .map(|(place, (id, _))| (id.clone(), place))
            .collect();
        for (_, derived) in self.statuses.clone() {
            self.log(now, LogKind::Verdict, None, derived.rule);
        }
        match self.start_restate(now) {
            Some(effects) => effects,
            None => self.conclude(now),
        }
    }

    /// The hedge words of `id`'s claim as first written (RC-10).
    fn claim_hedges(&self, id: &str) -> Vec<String> {
        self.hypothesis(id)
            .map(|h| hedge::hedges(&h.finding.claim))
            .unwrap_or_default()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// RC-16: when the one survivor's claim hedges, asks its owner once to
    /// restate it without the hedge. `None` when nothing is to be asked.
    fn start_restate(&mut self, now: Timestamp) -> Option<Vec<Effect>> {
        if self.restatement.is_some() || !self.config.restates_hedged_claims {
            return None;
        }
        let id = status::conclude(&self.statuses).root_cause?;
        let hedges = self.claim_hedges(&id);
        if hedges.is_empty() {
            return None;
        }
        let hypothesis = self.hypothesis(&id)?.clone();
        self.restatement = Some(Restatement {
            hypothesis: id.clone(),
            hedges: hedges.clone(),
            claim: None,
            still_hedged: Vec::new(),
            failed: None,
        });
        self.enter(Step::Restate, now);
        self.log(
            now,
            LogKind::Note,
            None,
            format!(
                "{id} survived alone, but its claim says {}: asking {} once to restate it without hedge words",
                status::quoted_words(&hedges),
                hypothesis.owner
            ),
        );
        let resolved: Vec<serde_json::Value> = self
            .challenges_of(&id)
            .filter(|c| c.state == ChallengeState::Resolved)
            .map(|c| {
                json!({
                    "id": c.id,
                    "test": c.text.test.as_str(),
                    "answer": c.answers.last().map(|a| a.text.answer.clone()).unwrap_or_default(),
                })
            })
            .collect();
        let context = json!({
            "problem": self.config.topic,
            "debugger": hypothesis.owner,
            "hypothesis": {
                "id": hypothesis.id,
                "claim": hypothesis.finding.claim,
                "evidence": hypothesis.finding.evidence,
                "reasoning": hypothesis.finding.reasoning,
            },
            "hedges": hedges,
            "resolved": resolved,
            "hedge_words": hedge::HEDGE_WORDS,
        });
        let slot = debugger_slot(&hypothesis.owner);
        let file = documents::round_file(self.round, &slot, "restate");
        Some(
            match self.start_call(&prompts::RESTATE, context, &slot, file, now) {
                Ok(effect) => vec![effect],
                Err(failed) => failed,
            },
        )
    }

    pub(super) fn on_restate(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        match parse::read_restatement(answer.output) {
            Ok(Read { value, notes, .. }) => {
                self.keep(&answer, notes);
                let still: Vec<String> = hedge::hedges(&value)
                    .into_iter()
                    .map(str::to_string)
                    .collect();
                let message = if still.is_empty() {
                    format!("restated without hedge words: {}", one_line(&value))
                } else {
                    format!(
                        "the restatement still says {}: {}",
                        status::quoted_words(&still),
                        one_line(&value)
                    )
                };
                self.log(now, LogKind::Note, Some(&answer.call.call_id()), message);
                if let Some(restatement) = &mut self.restatement {
                    restatement.claim = Some(value);
                    restatement.still_hedged = still;
                }
            }
            Err(error) => match self.repair(answer, error.to_string()) {
                Ok(effects) => return effects,
                Err(reason) => self.restate_failed(reason, now),
            },
        }
        self.step = Step::Done;
        self.conclude(now)
    }

    pub(super) fn restate_failed(&mut self, reason: String, now: Timestamp) {
        self.log(
            now,
            LogKind::Skip,
            None,
            format!("no restatement without hedge words: {reason}"),
        );
        if let Some(restatement) = &mut self.restatement {
            restatement.failed = Some(reason);
        }
    }

    /// The verdict, from the statuses and the restatement when there was
    /// one (RC-15, RC-16).
    pub(super) fn conclude(&mut self, now: Timestamp) -> Vec<Effect> {
        let conclusion = match &self.restatement {
            Some(restatement) => status::bound_by_hedges(
                status::conclude(&self.statuses),
                &restatement.hedges,
                Some(restatement),
            ),
            None => status::conclude(&self.statuses),
        };
        let finished = self
            .core
            .decide(now, conclusion.verdict, conclusion.rule.clone());
        self.conclusion = Some(conclusion);
        // RC-17: the critic's work is done.
        self.log(
            now,
            LogKind::Note,
            None,
            "critic: final assessment delivered; task completed".into(),
        );
        vec![finished]
    }
}
