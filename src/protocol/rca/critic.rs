//! The critic's turn in each round and its closing ruling: the ids its
//! answer is read against, its prompt (the delivered challenges with their
//! answers and rulings, RC-01, RC-02), reading its answer, and taking its
//! rulings and its new challenges into the record as items for the
//! moderator (RC-03, RC-09, A28).
//!
//! Not responsible for what the moderator decides about those items
//! (`moderation`), nor for the statuses they lead to (`status`).

use super::model::{Challenge, ChallengeState, Ruling, RulingWord, Test};
use super::parse::{CriticAnswer, CriticContext};
use super::{
    CRITIC, CriticIds, ItemSubject, MAX_ROUNDS, Rca, Role, Step, as_refs, count, documents, hedge,
    parse, prompts,
};
use crate::parse::{ParseError, Read, Slip};
use crate::protocol::{Answer, ByItem, Effect, LogKind, ModerationItem, SharedSteps, Timestamp};
use crate::words::one_line;
use serde_json::json;

impl Rca {
    /// Ids the critic's answer is read against, as of now.
    pub(super) fn critic_ids(&self) -> CriticIds {
        let hypotheses = self.hypotheses.iter().map(|h| h.id.clone()).collect();
        let settled = self
            .hypotheses
            .iter()
            .filter(|h| self.settled(&h.id).is_some())
            .map(|h| h.id.clone())
            .collect();
        let unchallenged = self
            .hypotheses
            .iter()
            .filter(|h| self.challenges_of(&h.id).next().is_none())
            .map(|h| h.id.clone())
            .collect();
        let to_rule = self
            .challenges
            .iter()
            .filter(|challenge| challenge.state == ChallengeState::Answered)
            .map(|challenge| challenge.id.clone())
            .collect();
        CriticIds {
            hypotheses,
            challenges: self.challenges.iter().map(|c| c.id.clone()).collect(),
            settled,
            unchallenged,
            to_rule,
        }
    }

    pub(super) fn start_challenge(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Challenge, now);
        self.start_critic(false, now)
    }

    pub(super) fn start_closing(&mut self, now: Timestamp) -> Vec<Effect> {
        self.closing = true;
        self.core.enter(Step::Ruling, now);
        self.start_critic(true, now)
    }

    fn start_critic(&mut self, closing: bool, now: Timestamp) -> Vec<Effect> {
        let context = self.critic_prompt(closing);
        let file = documents::round_file(
            self.core.round,
            CRITIC,
            if closing { "ruling" } else { "challenge" },
        );
        match self.start_call(&prompts::CRITIC, context, &Role::Critic, file, now) {
            Ok(effect) => vec![effect],
            Err(failed) => failed,
        }
    }

    /// What the critic is shown: the debuggers' names, their findings and
    /// answers, and nothing they did not present (RC-01, RC-02).
    fn critic_prompt(&self, closing: bool) -> serde_json::Value {
        let ids = self.critic_ids();
        let hypotheses: Vec<serde_json::Value> = self
            .hypotheses
            .iter()
            .map(|h| {
                let challenges: Vec<serde_json::Value> = self
                    .challenges_of(&h.id)
                    .filter(|challenge| challenge.state.delivered())
                    .map(challenge_json)
                    .collect();
                json!({
                    "id": h.id,
                    "owner": h.owner,
                    "claim": h.finding.claim,
                    "evidence": h.finding.evidence,
                    "reasoning": h.finding.reasoning,
                    "hedges": h.hedges,
                    "settled": self.settled(&h.id).map(|d| d.status.as_str()),
                    "checks": self.core.evidence.findings_for([h.id.as_str()]),
                    "challenges": challenges,
                })
            })
            .collect();
        let to_rule: Vec<serde_json::Value> = self
            .challenges
            .iter()
            .filter(|challenge| challenge.state == ChallengeState::Answered)
            .map(|challenge| {
                let answer = challenge.answers.last();
                json!({
                    "id": challenge.id,
                    "hypothesis": challenge.hypothesis,
                    "owner": self.owner_of(challenge),
                    "test": challenge.text.test.as_str(),
                    "critical": challenge.text.critical,
                    "evidence_needed": challenge.text.evidence_needed,
                    "answer": answer.map(|a| a.text.answer.clone()).unwrap_or_default(),
                    "evidence": answer.map(|a| a.text.evidence.clone()).unwrap_or_default(),
                    "hedges": answer.map(|a| a.hedges.clone()).unwrap_or_default(),
                })
            })
            .collect();
        let tests: Vec<serde_json::Value> = Test::ALL
            .iter()
            .map(|test| json!({"name": test.as_str(), "question": test.question()}))
            .collect();
        json!({
            "rulings": self.moderator_rulings(),
            "problem": self.config.topic,
            "debuggers": self.config.debuggers,
            "round": self.core.round,
            "max_rounds": MAX_ROUNDS,
            "closing": closing,
            "hypotheses": hypotheses,
            "to_rule": to_rule,
            "unchallenged": ids.unchallenged,
            "tests": tests,
            "hedge_words": hedge::HEDGE_WORDS,
        })
    }

    /// Reads the critic's answer item by item against the debate as it
    /// stands; a recommendation with a hedge word is a slip of its own
    /// (RC-16), asked about once like any other.
    pub(super) fn read_critic(
        &self,
        output: &str,
        closing: bool,
    ) -> Result<Read<CriticAnswer>, ParseError> {
        read_critic_with(output, &self.critic_ids(), closing)
    }

    pub(super) fn on_critic(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let closing = self.closing;
        let call_id = answer.call.call_id();
        let ids = self.critic_ids();
        let read = |text: &str| read_critic_with(text, &ids, closing);
        let reading = match self.core.read_by_item(&answer, read, CriticAnswer::len) {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => {
                return match self.repair(answer, error) {
                    Ok(effects) => effects,
                    // The critic is required (A18): no fabricated result.
                    Err(reason) => self.fail(now, reason),
                };
            }
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let Read {
            value: mut critique,
            notes,
            slips,
        } = reading.read;
        if let Some(slip) = slips
            .iter()
            .find(|slip| slip.id.as_deref() == Some("assessment"))
            && slip.error.message.starts_with("uses hedge words")
        {
            // RC-16: a hedged recommendation is refused, not repaired twice.
            let hedged = slip.error.message.split(';').next().unwrap_or_default();
            self.assessment_refused = Some(format!(
                "the critic's recommendation {} and was refused",
                hedged.replacen("uses", "used", 1)
            ));
        }
        self.keep_text(&answer, &raw, notes);
        self.core
            .leave_out(&answer.call, now, &slips, critic_item, critic_effect);
        for left_out in &critique.left_out {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!("left out {left_out}"),
            );
        }
        if let Some(assessment) = critique.assessment.take() {
            self.assessment = Some(assessment);
            self.assessment_refused = None;
        }
        self.take_rulings(&critique);
        if !closing {
            self.take_challenges(&critique);
        }
        self.log(
            now,
            LogKind::Note,
            Some(&call_id),
            format!(
                "critic: {}, {}",
                count(critique.rulings.len(), "ruling", "rulings"),
                count(critique.challenges.len(), "new challenge", "new challenges")
            ),
        );
        self.open_moderation(now)
    }

    fn take_rulings(&mut self, answer: &CriticAnswer) {
        let (round, closing) = (self.core.round, self.closing);
        for (id, text) in &answer.rulings {
            let Some(challenge) = self.challenge_mut(id) else {
                continue;
            };
            challenge.rulings.push(Ruling {
                round,
                closing,
                text: text.clone(),
                moderation: None,
            });
            let index = challenge.rulings.len() - 1;
            let challenge = challenge.clone();
            let owner = self.owner_of(&challenge);
            let item = ModerationItem {
                target_text: self.hypothesis_entry(&challenge.hypothesis),
                ..ruling_item(&challenge, &owner)
            };
            self.items.push(
                item,
                ItemSubject::Ruling {
                    challenge: id.clone(),
                    index,
                },
                round,
            );
        }
    }

    fn take_challenges(&mut self, answer: &CriticAnswer) {
        let round = self.core.round;
        for (hypothesis, text) in &answer.challenges {
            let number = hypothesis.trim_start_matches(['H', 'h']);
            let count = self.challenges_of(hypothesis).count();
            let challenge = Challenge {
                id: format!("X{number}.{}", count + 1),
                hypothesis: hypothesis.clone(),
                round,
                text: text.clone(),
                state: ChallengeState::Proposed,
                moderation: Vec::new(),
                delivered_in: Vec::new(),
                answers: Vec::new(),
                misses: Vec::new(),
                rulings: Vec::new(),
            };
            let item = ModerationItem {
                target_text: self.hypothesis_entry(&challenge.hypothesis),
                ..challenge_item(&challenge)
            };
            self.items
                .push(item, ItemSubject::Challenge(challenge.id.clone()), round);
            self.push_challenge(challenge);
        }
        // Challenges held back at an earlier moderation are offered again.
        for challenge in &mut self.challenges {
            if challenge.state == ChallengeState::Held {
                challenge.state = ChallengeState::Proposed;
                self.items.reoffer(&challenge.id, round);
            }
        }
    }
}

/// A delivered challenge, as the critic sees it in later rounds.
fn challenge_json(challenge: &Challenge) -> serde_json::Value {
    json!({
        "id": challenge.id,
        "test": challenge.text.test.as_str(),
        "critical": challenge.text.critical,
        "quote": challenge.text.quote,
        "evidence_needed": challenge.text.evidence_needed,
        "state": challenge.state.as_str(),
        "answers": challenge.answers.iter().map(|a| json!({
            "round": a.round,
            "concede": a.text.concede,
            "answer": a.text.answer,
            "evidence": a.text.evidence,
            "hedges": a.hedges,
        })).collect::<Vec<_>>(),
        "rulings": challenge.rulings.iter().map(|r| json!({
            "round": r.round,
            "ruling": r.text.ruling.as_str(),
            "reason": r.text.reason,
            "moderator": r.moderation.as_ref().map(|m| m.decision.past_tense()),
        })).collect::<Vec<_>>(),
    })
}

/// A challenge as the moderator sees it before it is delivered.
fn challenge_item(challenge: &Challenge) -> ModerationItem {
    ModerationItem {
        id: challenge.id.clone(),
        target: challenge.hypothesis.clone(),
        severity: if challenge.text.critical {
            "critical".into()
        } else {
            "normal".into()
        },
        category: challenge.text.test.as_str().to_string(),
        text: format!(
            "{}\n\nWhy: {}\nWould settle it: {}\nRule out: {}",
            challenge.text.quote.trim(),
            challenge.text.why.trim(),
            challenge.text.evidence_needed.trim(),
            challenge.text.alternative.trim()
        ),
        ..Default::default()
    }
}

/// The critic's latest ruling on a challenge's answer, as the moderator
/// sees it: the answer first, then the ruling. Accept upholds it, reject
/// overturns it, defer sends it back to the critic.
fn ruling_item(challenge: &Challenge, owner: &str) -> ModerationItem {
    let ruling = challenge.rulings.last();
    let answer = challenge.answers.last();
    let mut text = match answer {
        Some(answer) => format!(
            "{owner} answered (round {}): {}",
            answer.round,
            one_line(&answer.text.answer)
        ),
        None => format!("{owner} gave no answer"),
    };
    if let Some(ruling) = ruling {
        text.push_str(&format!(
            "\nRuled {}: {}",
            ruling.text.ruling.as_str(),
            ruling.text.reason.trim()
        ));
        if ruling.text.ruling == RulingWord::Unresolved {
            text.push_str(&format!(
                "\nMissing: {}\nWould settle it: {}\nRule out: {}",
                ruling.text.missing.trim(),
                ruling.text.evidence_needed.trim(),
                ruling.text.alternative.trim()
            ));
        }
    }
    ModerationItem {
        id: ruling.map_or_else(|| challenge.id.clone(), |r| r.item_id(&challenge.id)),
        target: challenge.hypothesis.clone(),
        severity: ruling.map_or("", |r| r.text.ruling.as_str()).to_string(),
        category: "ruling".into(),
        text,
        ..Default::default()
    }
}

/// How an item of the critic's answer left out is named: `ruling on X1.2`,
/// `challenge to H2`, `recommendation`.
fn critic_item(slip: &Slip) -> String {
    let field = slip.error.field.as_deref().unwrap_or_default();
    match &slip.id {
        Some(id) if id == "assessment" => "recommendation".to_string(),
        Some(id) if field.starts_with("rulings") => format!("ruling on {id}"),
        Some(id) if field.starts_with("challenges") => format!("challenge to {id}"),
        _ => crate::protocol::reading::slip_name(slip),
    }
}

/// What leaving an item of the critic's answer out changed.
fn critic_effect(slip: &Slip) -> String {
    let field = slip.error.field.as_deref().unwrap_or_default();
    if slip.id.as_deref() == Some("assessment") {
        "the final assessment has no recommendation from the critic".to_string()
    } else if field.starts_with("rulings") {
        "the answer stays unruled and waits for a ruling next round".to_string()
    } else {
        "the challenge was not raised; a hypothesis left with none is challenged next round"
            .to_string()
    }
}

/// [`Rca::read_critic`] against `ids`, gathered before the read.
fn read_critic_with(
    output: &str,
    ids: &super::CriticIds,
    closing: bool,
) -> Result<Read<CriticAnswer>, ParseError> {
    let (hypotheses, challenges, settled, unchallenged, to_rule) = (
        as_refs(&ids.hypotheses),
        as_refs(&ids.challenges),
        as_refs(&ids.settled),
        as_refs(&ids.unchallenged),
        as_refs(&ids.to_rule),
    );
    let mut read = parse::read_critic(
        output,
        &CriticContext {
            hypotheses: &hypotheses,
            challenges: &challenges,
            settled: &settled,
            unchallenged: &unchallenged,
            to_rule: &to_rule,
            closing,
        },
    )?;
    if let Some(assessment) = &read.value.assessment {
        let hedged = hedge::hedges(&assessment.recommendation);
        if !hedged.is_empty() {
            read.slips.push(Slip::of(
                    "assessment",
                    ParseError {
                        line: None,
                        field: Some("assessment.recommendation".into()),
                        message: format!(
                            "uses hedge words ({}); state what the evidence shows without them, or leave the recommendation out",
                            hedged.join(", ")
                        ),
                    },
                ));
            read.value.assessment = None;
        }
    }
    Ok(read)
}
