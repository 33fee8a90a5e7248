//! Phase 3's challenge and moderation (FP-24..FP-29, A22): a round's
//! devil's advocate call and the grave findings it must challenge, each
//! challenge raised and addressed to its target, and the moderator's
//! deliver, hold back or drop on each one. Not responsible for delivering
//! the challenges or reading the answers: [`super::responses`] does.

use std::collections::HashSet;

use serde_json::json;

use super::model::{Challenge, ChallengeState, DEVIL, Moderated, Severity, expert_slot};
use super::packets::PacketKind;
use super::parse::ChallengeText;
use super::{Council, RoundRecord, Step, count, documents, parse, pretty, prompts};
use crate::parse::Read;
use crate::protocol::Stage as _;
use crate::protocol::{
    Answer, ByItem, Effect, ItemDecision, LogKind, Moderation, ModerationItem, Settled, Timestamp,
};
use crate::words::one_line;

impl Council {
    /// Grave findings the devil's advocate must challenge: CRITICAL or
    /// HIGH, active, not its own, never challenged by it (FP-24).
    pub fn mandatory(&self) -> Vec<String> {
        if self.proposes() {
            return Vec::new();
        }
        let challenged: HashSet<&str> = self
            .challenges
            .iter()
            .filter(|c| {
                c.from == DEVIL
                    && !matches!(
                        c.state,
                        ChallengeState::Dropped | ChallengeState::Undelivered
                    )
            })
            .map(|c| c.finding_id.as_str())
            .collect();
        self.findings
            .iter()
            .filter(|f| f.active() && f.severity.is_grave() && !f.from_origin(DEVIL))
            .filter(|f| !challenged.contains(f.id.as_str()))
            .map(|f| f.id.clone())
            .collect()
    }

    pub(super) fn exhaust(&mut self, now: Timestamp, when: &str) {
        if self.budget_exhausted.is_some() {
            return;
        }
        let reason = format!(
            "budget exhausted in round {} {when}: {} of {} calls used, {} kept for the closing phases",
            self.core.round,
            self.budget_used(),
            self.config.budget(),
            self.reserve()
        );
        self.log(now, LogKind::Note, None, reason.clone());
        self.budget_exhausted = Some(reason);
    }

    pub(super) fn start_round(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.affords(1) {
            self.exhaust(now, "before the devil's advocate was asked");
            return self.end_rounds(now, "the budget ran out".into());
        }
        self.core.enter(Step::Challenge, now);
        self.file_evidence();
        let mandatory = self.mandatory();
        self.rounds.push(RoundRecord {
            round: self.core.round,
            mandatory: mandatory.clone(),
            ..RoundRecord::default()
        });
        let mut context = self.base_context(DEVIL);
        context["round"] = json!(self.core.round);
        context["max_rounds"] = json!(self.config.intensity.max_rounds());
        context["inventory"] = pretty(self.inventory());
        context["mandatory"] = json!(mandatory);
        context["history"] = pretty(self.history());
        self.put_rulings(&mut context, self.challenges.iter());
        let file = documents::round_file(self.core.round, DEVIL);
        match self.start_call(
            &prompts::DEVIL_ROUND,
            context,
            DEVIL,
            PacketKind::Challenge,
            file,
            now,
        ) {
            Ok(effect) => vec![effect],
            Err(failed) => failed,
        }
    }

    pub(super) fn on_devil(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let open = self.open_ids();
        let refs: Vec<&str> = open.iter().map(String::as_str).collect();
        let proposes = self.proposes();
        let read = |text: &str| parse::read_devil(text, &refs, proposes);
        let may_ask = self.may_ask_again();
        let reading =
            match self
                .core
                .read_by_item_if(&answer, may_ask, read, parse::DevilAnswer::len)
            {
                ByItem::Asked(effects) => return effects,
                ByItem::Unreadable(error) => {
                    self.malformed(&answer, error.to_string());
                    return self.open_moderation(now);
                }
                ByItem::Read(reading) => reading,
            };
        let raw = reading.text(&answer).to_string();
        let Read {
            value: devil,
            notes,
            slips,
        } = reading.read;
        self.keep_text(&answer, &raw, notes);
        let call_id = answer.call.call_id();
        self.core
            .leave_out(&answer.call, now, &slips, devil_item, devil_effect);
        let round = self.core.round;
        let mut raised = Vec::new();
        for text in devil.challenges {
            if let Some(id) = self.raise(DEVIL, text, round, &call_id, now) {
                raised.push(id);
            }
        }
        let mut discovered = Vec::new();
        for (severity, text) in devil.discoveries {
            discovered.push(self.add_finding(DEVIL, severity, text, true));
        }
        for text in devil.proposals {
            discovered.push(self.add_proposal(DEVIL, text, "challenge"));
        }
        let mandatory = self
            .rounds
            .last()
            .map(|r| r.mandatory.clone())
            .unwrap_or_default();
        let challenged_now: HashSet<&str> = self
            .challenges
            .iter()
            .filter(|c| c.round == round && c.from == DEVIL)
            .map(|c| c.finding_id.as_str())
            .collect();
        let omitted: Vec<String> = mandatory
            .iter()
            .filter(|id| !challenged_now.contains(id.as_str()))
            .cloned()
            .collect();
        for id in &omitted {
            let severity = self.finding(id).map(|f| f.severity.as_str()).unwrap_or("");
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!(
                    "the devil's advocate left {id} ({severity}) unchallenged though it must challenge every CRITICAL and HIGH finding it did not bring; logged, not asked again"
                ),
            );
        }
        if let Some(record) = self.rounds.last_mut() {
            record.omitted = omitted;
            record.raised.extend(raised.iter().cloned());
            record.discovered.extend(discovered.iter().cloned());
        }
        self.log(
            now,
            LogKind::Note,
            Some(&call_id),
            format!(
                "devil's advocate: {}, {}",
                count(raised.len(), "challenge", "challenges"),
                count(discovered.len(), "discovery", "discoveries")
            ),
        );
        self.open_moderation(now)
    }

    /// Records a challenge of `text.finding_id` by `from`, addressed to
    /// the participant it names when that one can take it, else to the
    /// finding's origin (FP-26). `None` when it cannot be raised.
    pub(super) fn raise(
        &mut self,
        from: &str,
        text: ChallengeText,
        round: u32,
        call_id: &str,
        now: Timestamp,
    ) -> Option<String> {
        let origins = self.origins_of(&text.finding_id);
        if origins.iter().any(|o| o == from) {
            self.log(
                now,
                LogKind::Note,
                Some(call_id),
                format!(
                    "left out {from}'s challenge of {}: it is its own",
                    text.finding_id
                ),
            );
            return None;
        }
        let named = self.participant_named(&text.to);
        let to = match named {
            Some(to) if to != from && !self.out.contains(&to) => to,
            _ => {
                let Some(origin) = origins.iter().find(|o| !self.out.contains(*o)).cloned() else {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "left out the challenge of {}: its origin is out of the council",
                            text.finding_id
                        ),
                    );
                    return None;
                };
                if !text.to.is_empty() && named.is_none() {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "a challenge of {} names {}, who is not in the council; addressed to its origin {origin}",
                            text.finding_id,
                            crate::parse::quote(&text.to)
                        ),
                    );
                }
                origin
            }
        };
        let current = self
            .finding(&text.finding_id)
            .map(|f| f.severity)
            .unwrap_or(Severity::Info);
        let proposed_severity = text
            .proposed_severity
            .filter(|s| *s != current)
            .or_else(|| Severity::argued_in(&text.severity_challenge, current))
            .filter(|_| !self.proposes());
        let id = format!("C{}", self.challenges.len() + 1);
        let challenge = Challenge {
            id: id.clone(),
            finding_id: text.finding_id,
            from: from.to_string(),
            to,
            round,
            challenge: text.challenge,
            severity_challenge: text.severity_challenge,
            proposed_severity,
            basis: text.basis,
            state: ChallengeState::Proposed,
            moderation: Vec::new(),
            delivered_in: None,
            undelivered: None,
        };
        self.items
            .push(self.challenge_item(&challenge), id.clone(), round);
        self.push_challenge(challenge);
        Some(id)
    }

    /// The participant `written` names: a slot, or a domain's expert.
    fn participant_named(&self, written: &str) -> Option<String> {
        let written = written.trim().to_ascii_lowercase();
        if written.is_empty() {
            return None;
        }
        let candidates = [
            written.clone(),
            expert_slot(&written),
            written.replace(' ', "-"),
            written.replace(['_', ' '], "-"),
        ];
        self.participants
            .iter()
            .find(|p| candidates.contains(*p))
            .cloned()
    }

    fn challenge_item(&self, challenge: &Challenge) -> ModerationItem {
        let (severity, title) = match self.finding(&challenge.finding_id) {
            Some(f) => (f.severity.as_str().to_string(), f.text.title.clone()),
            None => match self.proposal(&challenge.finding_id) {
                Some(p) => (
                    p.text.proposal_type.as_str().to_string(),
                    p.text.title.clone(),
                ),
                None => (String::new(), String::new()),
            },
        };
        let mut text = challenge.challenge.trim().to_string();
        if !challenge.severity_challenge.is_empty() {
            text.push_str(&format!(
                "\n\nSeverity: {}",
                challenge.severity_challenge.trim()
            ));
        }
        text.push_str(&format!(
            "\n\nOn {} ({severity}): {}\nFrom {} to {}.",
            challenge.finding_id,
            one_line(&title),
            challenge.from,
            challenge.to
        ));
        if challenge.basis.is_none() {
            text.push_str(
                "\nNo basis stated: a valid challenge names a missing assumption, an alternative explanation or a case where the finding does not apply. Reject it if it gives no reason.",
            );
        }
        // The finding (or proposal) as the council holds it, for the
        // moderator to read beside the challenge: its id, severity or kind,
        // and what its origin wrote.
        #[derive(serde::Serialize)]
        struct Entry<'a, T: serde::Serialize> {
            id: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            severity: Option<&'a str>,
            #[serde(flatten)]
            text: &'a T,
        }
        let target_text = match self.finding(&challenge.finding_id) {
            Some(finding) => yaml_serde::to_string(&Entry {
                id: &finding.id,
                severity: Some(finding.severity.as_str()),
                text: &finding.text,
            }),
            None => match self.proposal(&challenge.finding_id) {
                Some(proposal) => yaml_serde::to_string(&Entry {
                    id: &proposal.id,
                    severity: None,
                    text: &proposal.text,
                }),
                None => Ok(String::new()),
            },
        };
        ModerationItem {
            id: challenge.id.clone(),
            target: challenge.finding_id.clone(),
            target_text: target_text.unwrap_or_default(),
            severity,
            category: challenge
                .basis
                .map_or("no basis stated", |basis| basis.as_str())
                .to_string(),
            text,
            ..Default::default()
        }
    }

    pub(super) fn open_moderation(&mut self, now: Timestamp) -> Vec<Effect> {
        // Challenges held back earlier are offered again.
        let round = self.core.round;
        let held: Vec<String> = self
            .challenges
            .iter()
            .filter(|c| c.state == ChallengeState::Held)
            .map(|c| c.id.clone())
            .collect();
        for id in held {
            if let Some(challenge) = self.challenge_mut(&id) {
                challenge.state = ChallengeState::Proposed;
            }
            self.items.reoffer(&id, round);
        }
        let pending = self.items.pending_items();
        if pending.is_empty() {
            return self.deliver(now);
        }
        self.core.enter(Step::Moderation, now);
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "needs moderator: {} to deliver, hold back or drop",
                count(pending.len(), "challenge", "challenges")
            ),
        );
        vec![Effect::AwaitModeration { items: pending }]
    }
}

impl crate::protocol::ItemRules for Council {
    type Subject = String;

    fn moderation(&mut self) -> Moderation<'_, String> {
        Moderation::new(
            &mut self.items,
            &mut self.core.calls,
            self.core.stage.moderates(),
        )
    }

    fn decided_verb(_subject: &String, decision: ItemDecision) -> &'static str {
        decision.choose("to be delivered", "dropped as no challenge", "held back")
    }

    fn items_settled(&mut self, decided: Vec<Settled<String>>, now: Timestamp) -> Vec<Effect> {
        let round = self.core.round;
        let counts = crate::protocol::items::tally(&decided);
        for (id, decision, note) in decided {
            if let Some(challenge) = self.challenge_mut(&id) {
                challenge.moderation.push(Moderated {
                    round,
                    decision,
                    note,
                });
                challenge.state = match decision {
                    // Delivered below, budget permitting.
                    ItemDecision::Accept => ChallengeState::Proposed,
                    ItemDecision::Reject => ChallengeState::Dropped,
                    ItemDecision::Defer => ChallengeState::Held,
                };
            }
        }
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "moderation submitted: {} to deliver, {} dropped, {} held back",
                counts[0], counts[1], counts[2]
            ),
        );
        self.deliver(now)
    }
}

/// How an item of the devil's advocate's answer left out is named: `its
/// challenge of F003`, `a discovery`.
fn devil_item(slip: &crate::parse::Slip) -> String {
    let field = slip.error.field.as_deref().unwrap_or_default();
    match &slip.id {
        Some(id) if field.starts_with("challenges") => format!("challenge of {id}"),
        _ if field.starts_with("challenges") => {
            format!("challenge {}", crate::protocol::reading::slip_name(slip))
        }
        _ => format!("discovery {}", crate::protocol::reading::slip_name(slip)),
    }
}

/// What leaving an item of the devil's advocate's answer out changed.
fn devil_effect(slip: &crate::parse::Slip) -> String {
    let field = slip.error.field.as_deref().unwrap_or_default();
    if field.starts_with("challenges") {
        "it was not raised; a CRITICAL or HIGH finding it leaves unchallenged is logged as omitted"
            .to_string()
    } else {
        "it was not added to the inventory".to_string()
    }
}
