//! The debuggers' answers in each round: every owner is asked about the
//! challenges put to it and to no one else (RC-04), with the moderator's
//! rulings on its earlier answers; its answers are read and recorded, a
//! missed answer is noted against each open challenge, and once every
//! owner is in the next round starts or the run ends (RC-06, RC-07).
//!
//! Not responsible for the critic's rulings on these answers (`critic`),
//! nor for how the run ends (`ending`).

use super::model::{Answer, Challenge, ChallengeState, Miss, MissKind};
use super::{MAX_ROUNDS, Rca, Role, Step, debugger_slot, documents, hedge, parse, prompts};
use crate::parse::Read;
use crate::protocol::{ByItem, Effect, LogKind, SharedSteps, Timestamp};
use serde_json::json;
use std::collections::{BTreeSet, HashSet};

impl Rca {
    /// The open challenges of `owner`, in the order they were raised.
    pub(super) fn open_challenges_of(&self, owner: &str) -> Vec<&Challenge> {
        self.challenges
            .iter()
            .filter(|challenge| challenge.state == ChallengeState::Open)
            .filter(|challenge| self.owner_of(challenge) == owner)
            .collect()
    }

    pub(super) fn start_answers(&mut self, now: Timestamp) -> Vec<Effect> {
        let round = self.core.round;
        let owners: Vec<String> = self
            .config
            .debuggers
            .iter()
            .filter(|name| !self.open_challenges_of(name).is_empty())
            .cloned()
            .collect();
        if owners.is_empty() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("round {round}: no challenge is open, so no debugger is asked"),
            );
            return self.next_round(now);
        }
        self.core.enter(Step::Answers, now);
        let mut effects = Vec::new();
        for name in owners {
            let ids: Vec<String> = self
                .open_challenges_of(&name)
                .iter()
                .map(|challenge| challenge.id.clone())
                .collect();
            for id in &ids {
                if let Some(challenge) = self.challenge_mut(id)
                    && !challenge.delivered_in.contains(&round)
                {
                    challenge.delivered_in.push(round);
                }
            }
            let context = self.answers_prompt(&name);
            let slot = debugger_slot(&name);
            let file = documents::round_file(round, &slot, "answers");
            let role = Role::Debugger(name.clone());
            match self.start_call(&prompts::ANSWERS, context, &role, file, now) {
                Ok(effect) => {
                    self.log(
                        now,
                        LogKind::Note,
                        None,
                        format!("to {name} only: {}", ids.join(", ")),
                    );
                    self.awaiting.insert(name);
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        effects
    }

    /// What a debugger is shown: its own hypotheses and the challenges put
    /// to it, and no one else's (RC-04).
    fn answers_prompt(&self, name: &str) -> serde_json::Value {
        let hypotheses: Vec<serde_json::Value> = self
            .hypotheses
            .iter()
            .filter(|h| h.owner == name)
            .map(|h| {
                json!({
                    "id": h.id,
                    "claim": h.finding.claim,
                    "evidence": h.finding.evidence,
                    "reasoning": h.finding.reasoning,
                })
            })
            .collect();
        let challenges: Vec<serde_json::Value> = self
            .open_challenges_of(name)
            .into_iter()
            .map(|challenge| {
                let claim = self
                    .hypothesis(&challenge.hypothesis)
                    .map(|h| h.finding.claim.clone())
                    .unwrap_or_default();
                let last_ruling = challenge.rulings.last().map(|ruling| {
                    json!({
                        "round": ruling.round,
                        "reason": ruling.text.reason,
                        "missing": ruling.text.missing,
                        "evidence_needed": ruling.text.evidence_needed,
                        "alternative": ruling.text.alternative,
                    })
                });
                json!({
                    "id": challenge.id,
                    "hypothesis": challenge.hypothesis,
                    "claim": claim,
                    "test": challenge.text.test.as_str(),
                    "test_question": challenge.text.test.question(),
                    "critical": challenge.text.critical,
                    "quote": challenge.text.quote,
                    "why": challenge.text.why,
                    "evidence_needed": challenge.text.evidence_needed,
                    "alternative": challenge.text.alternative,
                    "previous": challenge.answers.iter().map(|a| json!({"round": a.round, "answer": a.text.answer})).collect::<Vec<_>>(),
                    "last_ruling": last_ruling,
                })
            })
            .collect();
        json!({
            "problem": self.config.topic,
            "context": self.config.context,
            "sources": self.core.evidence.prompt(&self.config.topic),
            "debugger": name,
            "round": self.core.round,
            "max_rounds": MAX_ROUNDS,
            "hypotheses": hypotheses,
            "challenges": challenges,
            "rulings": self.rulings_of(name),
        })
    }

    /// The rulings section of the critic's prompt (issue 26): the
    /// moderator's latest word on every challenge it raised (delivered,
    /// dropped or held back) and on every ruling it made (upheld,
    /// overturned or sent back), by item id (`X2.1`, `X2.1-r3`).
    pub(super) fn moderator_rulings(&self) -> String {
        crate::rulings::section(&self.items.rulings())
    }

    /// The rulings section of `name`'s answers prompt (issue 26): the
    /// challenges the moderator accepted and put to it this round, with
    /// the moderator's note, as what it must answer. A dropped or held
    /// challenge never reaches its owner, so it is not named (RC-04).
    fn rulings_of(&self, name: &str) -> String {
        use crate::rulings::{Ruled, Ruling};
        let rulings: Vec<Ruling> = self
            .open_challenges_of(name)
            .into_iter()
            .map(|challenge| {
                let note = challenge
                    .moderation
                    .last()
                    .and_then(|moderated| moderated.note.as_deref());
                Ruling::new(challenge.id.clone(), Ruled::Accepted, note)
            })
            .collect();
        crate::rulings::section(&rulings)
    }

    /// The answers of the debugger `name` to the challenges put to it.
    pub(super) fn on_answers(
        &mut self,
        name: String,
        answer: crate::protocol::Answer<'_>,
    ) -> Vec<Effect> {
        let now = answer.now;
        let delivered: Vec<String> = self
            .open_challenges_of(&name)
            .iter()
            .map(|challenge| challenge.id.clone())
            .collect();
        let refs: Vec<&str> = delivered.iter().map(String::as_str).collect();
        let read = |text: &str| parse::read_answers(text, &refs);
        match self.core.read_by_item(&answer, read, Vec::len) {
            ByItem::Asked(effects) => return effects,
            ByItem::Read(reading) => {
                let raw = reading.text(&answer).to_string();
                let Read {
                    value,
                    notes,
                    slips,
                } = reading.read;
                self.keep_text(&answer, &raw, notes);
                // A28 (revised 2026-12-06): an answer quorum could not read
                // counts as that answer failing, as a failed call does, not
                // as the debugger leaving the challenge unanswered. One whose
                // challenge cannot be told makes every challenge the answer
                // leaves out count so.
                let failed: HashSet<String> = if slips
                    .iter()
                    .any(|slip| slip.id.as_deref().is_none_or(|id| !refs.contains(&id)))
                {
                    delivered.iter().cloned().collect()
                } else {
                    slips.iter().filter_map(|slip| slip.id.clone()).collect()
                };
                self.core.leave_out(
                    &answer.call,
                    now,
                    &slips,
                    |slip| match &slip.id {
                        Some(id) => format!("answer to {id}"),
                        None => crate::protocol::reading::slip_name(slip),
                    },
                    |_| "the challenge counts as unanswered through no choice of its owner: its hypothesis is weakened, not eliminated".to_string(),
                );
                let round = self.core.round;
                let mut conceded = Vec::new();
                for (id, text) in &value {
                    let hedges: Vec<String> = hedge::hedges(&text.answer)
                        .into_iter()
                        .map(str::to_string)
                        .collect();
                    if !hedges.is_empty() {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(&answer.call.call_id()),
                            format!(
                                "hedge words flagged in {name}'s answer to {id}: {}",
                                hedges.join(", ")
                            ),
                        );
                    }
                    if text.concede {
                        conceded.push(id.clone());
                    }
                    if let Some(challenge) = self.challenge_mut(id) {
                        challenge.state = if text.concede {
                            ChallengeState::Conceded
                        } else {
                            ChallengeState::Answered
                        };
                        challenge.answers.push(Answer {
                            round,
                            text: text.clone(),
                            hedges,
                        });
                    }
                }
                let answered_hypotheses: BTreeSet<String> = value
                    .iter()
                    .filter_map(|(id, _)| {
                        let place = self.places.challenges.get(id)?;
                        Some(self.challenges[*place].hypothesis.clone())
                    })
                    .collect();
                for hypothesis in &answered_hypotheses {
                    self.file_evidence(hypothesis);
                }
                let answered: HashSet<&str> = value.iter().map(|(id, _)| id.as_str()).collect();
                let omitted: Vec<String> = delivered
                    .iter()
                    .filter(|id| !answered.contains(id.as_str()))
                    .cloned()
                    .collect();
                for id in &omitted {
                    let unreadable = failed.contains(id);
                    if let Some(challenge) = self.challenge_mut(id) {
                        challenge.misses.push(if unreadable {
                            Miss {
                                round,
                                kind: MissKind::Failed,
                                reason: "its answer could not be read".to_string(),
                            }
                        } else {
                            Miss {
                                round,
                                kind: MissKind::Omitted,
                                reason: String::new(),
                            }
                        });
                    }
                }
                let mut message = format!("{name}: {} answered", value.len() - conceded.len());
                if !conceded.is_empty() {
                    message.push_str(&format!(", conceded {}", conceded.join(", ")));
                }
                if !omitted.is_empty() {
                    message.push_str(&format!(", left out {}", omitted.join(", ")));
                }
                self.log(now, LogKind::Note, Some(&answer.call.call_id()), message);
            }
            ByItem::Unreadable(error) => match self.repair(answer, error.to_string()) {
                Ok(effects) => return effects,
                Err(reason) => self.missed_all(&name, &reason, now),
            },
        }
        self.awaiting.remove(&name);
        self.conclude_answers_if_complete(now)
    }

    /// Every challenge put to `name` this round went unanswered, through
    /// no choice of its owner: its hypotheses stay active.
    pub(super) fn missed_all(&mut self, name: &str, reason: &str, now: Timestamp) {
        let round = self.core.round;
        let ids: Vec<String> = self
            .open_challenges_of(name)
            .iter()
            .map(|challenge| challenge.id.clone())
            .collect();
        for id in &ids {
            if let Some(challenge) = self.challenge_mut(id) {
                challenge.misses.push(Miss {
                    round,
                    kind: MissKind::Failed,
                    reason: reason.to_string(),
                });
            }
        }
        self.log(
            now,
            LogKind::Skip,
            None,
            format!(
                "{name} gave no usable answer in round {round} ({reason}); {} stay open and its hypotheses active",
                ids.join(", ")
            ),
        );
    }

    pub(super) fn conclude_answers_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.awaiting.is_empty() {
            return Vec::new();
        }
        self.next_round(now)
    }

    /// The next round, or after the last one the closing ruling of what
    /// is still unruled.
    fn next_round(&mut self, now: Timestamp) -> Vec<Effect> {
        if self.core.round < MAX_ROUNDS {
            self.core.round += 1;
            return self.start_challenge(now);
        }
        let to_rule = self
            .challenges
            .iter()
            .any(|challenge| challenge.state == ChallengeState::Answered);
        if to_rule {
            return self.start_closing(now);
        }
        self.finish(
            now,
            format!("round {MAX_ROUNDS} ended with nothing left to rule"),
        )
    }
}
