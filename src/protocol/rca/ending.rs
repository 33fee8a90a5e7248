//! How a root-cause run ends: the statuses derived, the one survivor's
//! owner asked once to restate a hedged claim (RC-10, RC-16), the critic
//! asked whether the evidence carries the restatement, the moderator asked
//! about that ruling and about every rival left standing (issue 60, A28 as
//! revised), and the verdict concluded from all of it (RC-15).
//!
//! Not responsible for deriving the statuses themselves (`status`), nor
//! for the critic's final assessment prompt (`critic`).

use super::model::{ChallengeState, Examination, Moderated, Restatement, Status};
use super::{
    CRITIC, ItemSubject, Rca, Role, Step, debugger_slot, documents, hedge, parse, prompts, status,
};
use crate::parse::Read;
use crate::protocol::{
    Answer, ByItem, Effect, ItemDecision, LogKind, ModerationItem, SharedSteps, Timestamp,
};
use crate::words::one_line;
use serde_json::json;

impl Rca {
    pub(super) fn finish(&mut self, now: Timestamp, stopped: String) -> Vec<Effect> {
        self.stopped = Some(stopped.clone());
        self.core.enter(Step::Done, now);
        self.log(
            now,
            LogKind::Note,
            None,
            format!("the analysis stops: {stopped}"),
        );
        let rules = self.rules();
        let statuses = self
            .hypotheses
            .iter()
            .map(|h| {
                let derived = status::final_status_among(&h.id, self.challenges_of(&h.id));
                (
                    h.id.clone(),
                    status::bound_by_evidence(&h.id, derived, &rules),
                )
            })
            .collect();
        self.statuses = statuses;
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
            None => self.close(now),
        }
    }

    /// The one hypothesis that SURVIVED, when exactly one did, whatever
    /// became of its rivals.
    fn lone_survivor(&self) -> Option<String> {
        let mut survivors = self
            .statuses
            .iter()
            .filter(|(_, derived)| derived.status == Status::Survived);
        match (survivors.next(), survivors.next()) {
            (Some((id, _)), None) => Some(id.clone()),
            _ => None,
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
        let id = self.lone_survivor()?;
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
            examination: None,
        });
        self.core.enter(Step::Restate, now);
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
        let file = documents::round_file(self.core.round, &slot, "restate");
        let role = Role::Debugger(hypothesis.owner.clone());
        Some(
            match self.start_call(&prompts::RESTATE, context, &role, file, now) {
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
        self.after_restate(now)
    }

    /// After the restatement: a plain one goes to the critic to examine
    /// (issue 60); anything else, or an analysis from before that rule,
    /// goes on to the end.
    pub(super) fn after_restate(&mut self, now: Timestamp) -> Vec<Effect> {
        let plain = self.restatement.as_ref().is_some_and(Restatement::plain);
        if plain && self.rules().strict() {
            return self.start_examine(now);
        }
        self.close(now)
    }

    /// Issue 60: a restatement can say more than the evidence did, so the
    /// critic, who has read every answer, rules whether the evidence
    /// carries it before it is printed as the root cause.
    fn start_examine(&mut self, now: Timestamp) -> Vec<Effect> {
        let Some(restatement) = self.restatement.clone() else {
            return self.close(now);
        };
        let Some(hypothesis) = self.hypothesis(&restatement.hypothesis).cloned() else {
            return self.close(now);
        };
        self.core.enter(Step::Examine, now);
        self.log(
            now,
            LogKind::Note,
            None,
            format!(
                "asking the critic whether the evidence carries {}'s restated claim",
                hypothesis.id
            ),
        );
        let resolved: Vec<serde_json::Value> = self
            .challenges_of(&hypothesis.id)
            .filter(|c| c.state == ChallengeState::Resolved)
            .map(|c| {
                let answer = c.answers.last();
                json!({
                    "id": c.id,
                    "test": c.text.test.as_str(),
                    "quote": c.text.quote,
                    "answer": answer.map(|a| a.text.answer.clone()).unwrap_or_default(),
                    "evidence": answer.map(|a| a.text.evidence.clone()).unwrap_or_default(),
                })
            })
            .collect();
        let context = json!({
            "problem": self.config.topic,
            "hypothesis": {
                "id": hypothesis.id,
                "owner": hypothesis.owner,
                "claim": hypothesis.finding.claim,
                "evidence": hypothesis.finding.evidence,
                "reasoning": hypothesis.finding.reasoning,
            },
            "hedges": restatement.hedges,
            "restated": restatement.claim.clone().unwrap_or_default(),
            "resolved": resolved,
        });
        let file = documents::round_file(self.core.round, CRITIC, "examine");
        match self.start_call(&prompts::EXAMINE, context, &Role::Critic, file, now) {
            Ok(effect) => vec![effect],
            Err(failed) => failed,
        }
    }

    pub(super) fn on_examine(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let reading = match self
            .core
            .read_by_item(&answer, parse::read_examination, |_| 1)
        {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => {
                return match self.repair(answer, error) {
                    Ok(effects) => effects,
                    Err(reason) => {
                        self.examine_failed(reason, now);
                        self.close(now)
                    }
                };
            }
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let Read {
            value: (word, reason),
            notes,
            ..
        } = reading.read;
        self.keep_text(&answer, &raw, notes);
        self.log(
            now,
            LogKind::Note,
            Some(&call_id),
            format!(
                "the critic rules the restatement {}: {}",
                word.as_str(),
                one_line(&reason)
            ),
        );
        if let Some(restatement) = &mut self.restatement {
            restatement.examination = Some(Examination {
                ruling: Some(word),
                reason,
                failed: None,
                moderation: None,
            });
        }
        self.close(now)
    }

    pub(super) fn examine_failed(&mut self, reason: String, now: Timestamp) {
        self.log(
            now,
            LogKind::Skip,
            None,
            format!("no ruling on the restatement: {reason}; the original claim stands"),
        );
        if let Some(restatement) = &mut self.restatement {
            restatement.examination = Some(Examination {
                ruling: None,
                reason: String::new(),
                failed: Some(reason),
                moderation: None,
            });
        }
    }

    /// The end of the analysis: under the revised rules, the moderator is
    /// asked about the critic's ruling on a restatement and about every
    /// rival the one survivor still has (issue 60); then the verdict.
    pub(super) fn close(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.rules().strict() {
            self.core.stage = Step::Done;
            return self.conclude(now);
        }
        let items = self.closing_items();
        if items.is_empty() {
            self.core.stage = Step::Done;
            return self.conclude(now);
        }
        self.core.enter(Step::Closing, now);
        let rivals = items
            .iter()
            .filter(|(_, subject)| matches!(subject, ItemSubject::Rival(_)))
            .count();
        let restated = items.len() - rivals;
        let mut asks = Vec::new();
        if restated > 0 {
            asks.push(
                "the critic's ruling on the restated claim to uphold or overturn".to_string(),
            );
        }
        if rivals > 0 {
            asks.push(format!(
                "{} to keep standing or rule out",
                crate::protocol::rca::count(rivals, "rival", "rivals")
            ));
        }
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!("needs moderator before the conclusion: {}", asks.join("; ")),
        );
        let round = self.core.round;
        for (item, subject) in items {
            let target_text = self.hypothesis_entry(&item.target);
            self.items.push(
                ModerationItem {
                    target_text,
                    ..item
                },
                subject,
                round,
            );
        }
        vec![Effect::AwaitModeration {
            items: self.items.pending_items(),
        }]
    }

    /// What the moderator is asked before the conclusion: the critic's
    /// ruling on the restated claim, and, when the one survivor could be
    /// proven, each rival neither ELIMINATED nor ruled out.
    fn closing_items(&self) -> Vec<(ModerationItem, ItemSubject)> {
        let mut items = Vec::new();
        let Some(survivor) = self.lone_survivor() else {
            return items;
        };
        let examined = self
            .restatement
            .as_ref()
            .filter(|r| r.hypothesis == survivor && r.plain())
            .and_then(|r| r.examination.as_ref().map(|e| (r, e)));
        if let Some((restatement, exam)) = examined
            && let Some(word) = exam.ruling
        {
            items.push((
                ModerationItem {
                    id: format!("{survivor}-restated"),
                    target: survivor.clone(),
                    severity: word.as_str().to_string(),
                    category: "restatement".into(),
                    text: format!(
                        "Claimed first: {}\nRestated: {}\nThe critic rules it {}: {}\nUphold to take the critic's word, overturn to take the other; deferred, the original claim stands.",
                        one_line(
                            &self
                                .hypothesis(&survivor)
                                .map(|h| h.finding.claim.clone())
                                .unwrap_or_default()
                        ),
                        one_line(restatement.claim.as_deref().unwrap_or_default()),
                        word.as_str(),
                        one_line(&exam.reason)
                    ),
                    ..Default::default()
                },
                ItemSubject::Restatement(survivor.clone()),
            ));
        }
        let hedged = !self.claim_hedges(&survivor).is_empty();
        if hedged && examined.and_then(|(_, e)| e.ruling).is_none() {
            // The original, hedged claim stands: nothing a rival's
            // ruling could change.
            return items;
        }
        for (id, derived) in &self.statuses {
            if *id == survivor || derived.status == Status::Eliminated {
                continue;
            }
            items.push((
                ModerationItem {
                    id: format!("{id}-rival"),
                    target: id.clone(),
                    severity: derived.status.as_str().to_string(),
                    category: "rival".into(),
                    text: format!(
                        "{id} is still a rival of {survivor}: {}\nAccept to keep it standing (no root cause is proven while it stands); reject to rule it out, saying why in the note.",
                        derived.rule
                    ),
                    ..Default::default()
                },
                ItemSubject::Rival(id.clone()),
            ));
        }
        items
    }

    /// The moderator's decisions at the close, applied; then the verdict.
    pub(super) fn closing_settled(
        &mut self,
        subject: ItemSubject,
        moderated: Moderated,
        now: Timestamp,
    ) {
        match subject {
            ItemSubject::Rival(id) if moderated.decision == ItemDecision::Reject => {
                let why = moderated
                    .note
                    .clone()
                    .unwrap_or_else(|| "no reason given".to_string());
                self.log(
                    now,
                    LogKind::Moderation,
                    None,
                    format!("{id} ruled out by the moderator: {}", one_line(&why)),
                );
                self.ruled_out.insert(id, why);
            }
            ItemSubject::Restatement(_) => {
                if let Some(exam) = self
                    .restatement
                    .as_mut()
                    .and_then(|r| r.examination.as_mut())
                {
                    exam.moderation = Some(moderated);
                }
            }
            _ => {}
        }
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

    /// The verdict, from the statuses, the rivals ruled out and the
    /// restatement when there was one (RC-15, RC-16, A28).
    pub(super) fn conclude(&mut self, now: Timestamp) -> Vec<Effect> {
        let rules = self.rules();
        let concluded = status::conclude(&self.statuses, &rules);
        let conclusion = match &self.restatement {
            Some(restatement) => {
                status::bound_by_hedges(concluded, &restatement.hedges, Some(restatement), &rules)
            }
            None => concluded,
        };
        let finished = self
            .core
            .decide(now, conclusion.verdict, conclusion.rule.clone());
        self.conclusion = Some(conclusion);
        // RC-17: the critic's task is marked completed once it has sent
        // its final assessment; without one, the log says so instead.
        let message = match (&self.assessment, &self.assessment_refused) {
            (Some(_), _) => "critic: final assessment delivered; task completed".to_string(),
            (None, Some(why)) => {
                format!("critic: no final recommendation ({why}); the task ends without one")
            }
            (None, None) => {
                "critic: no final assessment was read; the task ends without one".to_string()
            }
        };
        self.log(now, LogKind::Note, None, message);
        vec![finished]
    }
}
