//! Phase 3's answers (FP-23, FP-26, FP-27): every accepted challenge put
//! to its target and no one else, the other participants asked with no
//! challenge, each of the six response types applied to the inventory, and
//! the end of a round: another one, or the end of the rounds (A20, A22).
//! Not responsible for raising or moderating challenges:
//! [`super::challenge`] does.

use std::collections::{HashMap, HashSet};

use serde_json::json;

use super::model::{
    Challenge, ChallengeState, MergeCandidate, ProposalStatus, Response, ResponseKind, Role,
    SeverityChange,
};
use super::packets::PacketKind;
use super::verdict::similarity;
use super::{Council, Step, documents, parse, pretty, prompts, rulings, unordered};
use crate::parse::Read;
use crate::protocol::{Answer, ByItem, Effect, ItemDecision, LogKind, Timestamp};
use crate::words::one_line;

impl Council {
    /// Puts every accepted challenge to its target, and to no one else
    /// (FP-26), as far as the budget allows.
    pub(super) fn deliver(&mut self, now: Timestamp) -> Vec<Effect> {
        let round = self.core.round;
        let ready: Vec<String> = self
            .challenges
            .iter()
            .filter(|c| {
                c.state == ChallengeState::Proposed
                    && c.moderation
                        .last()
                        .is_some_and(|m| m.decision == ItemDecision::Accept)
            })
            .map(|c| c.id.clone())
            .collect();
        let mut targets: Vec<String> = Vec::new();
        let mut ready_for: HashMap<String, Vec<String>> = HashMap::new();
        for id in &ready {
            let to = self.challenge(id).map(|c| c.to.clone()).unwrap_or_default();
            let mine = ready_for.entry(to.clone()).or_default();
            if mine.is_empty() {
                targets.push(to);
            }
            mine.push(id.clone());
        }
        targets.sort_by_key(|t| self.participants.iter().position(|p| p == t));
        if !targets.is_empty() {
            self.core.enter(Step::Responses, now);
        }
        let mut effects = Vec::new();
        for target in targets {
            let mine: Vec<String> = ready_for.remove(&target).unwrap_or_default();
            if !self.affords(1) {
                self.exhaust(now, &format!("before {target} could answer"));
                for id in &mine {
                    if let Some(c) = self.challenge_mut(id) {
                        c.state = ChallengeState::Undelivered;
                        c.undelivered = Some("the budget ran out".into());
                    }
                }
                continue;
            }
            for id in &mine {
                let envelope = if let Some(c) = self.challenge_mut(id) {
                    c.state = ChallengeState::Delivered;
                    c.delivered_in = Some(round);
                    Some(c.clone())
                } else {
                    None
                };
                if let Some(c) = envelope {
                    self.exchange.challenge(&c, round);
                }
            }
            if let Some(record) = self.rounds.last_mut() {
                record.delivered.extend(mine.iter().cloned());
            }
            let mut context = self.base_context(&target);
            context["round"] = json!(round);
            context["max_rounds"] = json!(self.config.intensity.max_rounds());
            context["inventory"] = pretty(self.inventory());
            let mine_set: HashSet<&str> = mine.iter().map(String::as_str).collect();
            context["challenges"] = pretty(json!(
                self.challenges
                    .iter()
                    .filter(|c| mine_set.contains(c.id.as_str()))
                    .map(|c| json!({
                        "type": "challenge",
                        "id": c.id,
                        "from": c.from,
                        "to": c.to,
                        "finding_id": c.finding_id,
                        "challenge": c.challenge,
                        "severity_challenge": c.severity_challenge,
                        "basis": c.basis.map(|b| b.as_str()),
                    }))
                    .collect::<Vec<_>>()
            ));
            context["own"] = json!(
                self.open_ids()
                    .into_iter()
                    .filter(|id| self.origins_of(id).contains(&target))
                    .collect::<Vec<_>>()
            );
            context["addressed"] = json!(true);
            self.put_rulings(
                &mut context,
                self.challenges
                    .iter()
                    .filter(|c| mine_set.contains(c.id.as_str())),
            );
            let file = documents::round_file(round, &target);
            self.log(
                now,
                LogKind::Note,
                None,
                format!("to {target} only: {}", mine.join(", ")),
            );
            match self.start_awaited(
                &prompts::RESPOND,
                context,
                target,
                PacketKind::Challenge,
                file,
                now,
            ) {
                Ok(effect) => effects.push(effect),
                Err(failed) => return failed,
            }
        }
        if effects.is_empty() {
            return self.end_round(now);
        }
        match self.ask_bystanders(round, now) {
            Ok(more) => effects.extend(more),
            Err(failed) => return failed,
        }
        effects
    }

    /// FP-23, FP-27: once a challenge is delivered in a round, every other
    /// participant but the devil's advocate is asked as well, with no
    /// challenge of its own (FP-26 still holds: it sees none), so it can
    /// corroborate, cross-challenge, report a discovery or propose a
    /// merge, as far as the budget leaves room for the final positions.
    fn ask_bystanders(&mut self, round: u32, now: Timestamp) -> Result<Vec<Effect>, Vec<Effect>> {
        let mut effects = Vec::new();
        if !self.config.binds_rulings {
            return Ok(effects);
        }
        for role in self.present() {
            let devil = self.core.roster.role_named(&role) == Some(Role::Devil);
            if devil || self.awaiting.contains(&role) {
                continue;
            }
            if !self.affords(1) {
                self.log(
                    now,
                    LogKind::Note,
                    None,
                    format!(
                        "{role} is not asked in round {round}: the budget keeps its calls for the final positions"
                    ),
                );
                continue;
            }
            let mut context = self.base_context(&role);
            context["round"] = json!(round);
            context["max_rounds"] = json!(self.config.intensity.max_rounds());
            context["inventory"] = pretty(self.inventory());
            context["challenges"] = pretty(json!([]));
            context["own"] = json!(
                self.open_ids()
                    .into_iter()
                    .filter(|id| self.origins_of(id).contains(&role))
                    .collect::<Vec<_>>()
            );
            context["addressed"] = json!(false);
            self.put_rulings(&mut context, std::iter::empty());
            let file = documents::round_file(round, &role);
            self.log(
                now,
                LogKind::Note,
                None,
                format!("to {role}: no challenge; it may corroborate, cross-challenge, discover or propose a merge"),
            );
            effects.push(self.start_awaited(
                &prompts::RESPOND,
                context,
                role,
                PacketKind::Challenge,
                file,
                now,
            )?);
        }
        Ok(effects)
    }

    /// The answer of the participant `seated` in a round.
    pub(super) fn on_responses(&mut self, seated: &Role, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        // The participant, as the council's records name it: its slot.
        let role = answer.call.slot.role.clone();
        let round = self.core.round;
        let delivered: Vec<String> = self
            .challenges
            .iter()
            .filter(|c| c.to == role && c.state == ChallengeState::Delivered)
            .map(|c| c.id.clone())
            .collect();
        let known = self.open_ids();
        let refs: Vec<&str> = known.iter().map(String::as_str).collect();
        let domain = seated.domain().to_string();
        let proposes = self.proposes();
        let read = |text: &str| parse::read_responses(text, &refs, &domain, proposes);
        let may_ask = self.may_ask_again();
        let count = |responses: &Vec<parse::ResponseText>| responses.len();
        match self.core.read_by_item_if(&answer, may_ask, read, count) {
            ByItem::Asked(effects) => return effects,
            ByItem::Read(reading) => {
                let raw = reading.text(&answer).to_string();
                let read = reading.read;
                // Every delivered challenge needs a response (a ruling to
                // address): asked once more when one has none.
                let answered: Vec<String> = read
                    .value
                    .iter()
                    .filter(|r| {
                        matches!(
                            r.kind,
                            ResponseKind::Defense
                                | ResponseKind::Withdrawal
                                | ResponseKind::Corroboration
                        )
                    })
                    .map(|r| r.finding_id.clone())
                    .collect();
                let mine: Vec<&Challenge> = delivered
                    .iter()
                    .filter_map(|id| self.challenge(id))
                    .collect();
                let discrepancies = rulings::unanswered(&mine, &answered);
                let Read {
                    value: responses,
                    notes,
                    slips,
                } = read;
                if let Some(again) = self.keep_checked(&answer, &raw, discrepancies, notes) {
                    return vec![again];
                }
                self.core.leave_out(
                    &answer.call,
                    now,
                    &slips,
                    |slip| match &slip.id {
                        Some(id) => format!("response on {id}"),
                        None => format!("response {}", crate::protocol::reading::slip_name(slip)),
                    },
                    |_| {
                        "not taken: a challenge it would have answered counts as unanswered"
                            .to_string()
                    },
                );
                // The challenges delivered to this participant, by the
                // finding they are about, in the order delivered.
                let mut delivered_on: HashMap<String, Vec<String>> = HashMap::new();
                for id in &delivered {
                    if let Some(c) = self.challenge(id) {
                        delivered_on
                            .entry(c.finding_id.clone())
                            .or_default()
                            .push(id.clone());
                    }
                }
                for response in responses {
                    let answering = delivered_on
                        .get(&response.finding_id)
                        .cloned()
                        .unwrap_or_default();
                    self.take_response(&role, response, answering, &answer.call.call_id(), now);
                }
            }
            ByItem::Unreadable(error) => self.malformed(&answer, error.to_string()),
        }
        let unanswered: Vec<String> = delivered
            .iter()
            .filter(|id| {
                self.challenge(id)
                    .is_some_and(|c| c.state == ChallengeState::Delivered)
            })
            .cloned()
            .collect();
        for id in &unanswered {
            if let Some(c) = self.challenge_mut(id) {
                c.state = ChallengeState::Unanswered;
            }
        }
        if !unanswered.is_empty() {
            self.log(
                now,
                LogKind::Note,
                Some(&answer.call.call_id()),
                format!(
                    "{role} left {} unanswered (round {round})",
                    unanswered.join(", ")
                ),
            );
        }
        self.awaiting.remove(&role);
        if self.awaiting.is_empty() {
            return self.end_round(now);
        }
        Vec::new()
    }

    fn take_response(
        &mut self,
        role: &str,
        response: parse::ResponseText,
        answering: Vec<String>,
        call_id: &str,
        now: Timestamp,
    ) {
        let round = self.core.round;
        let mut record = Response {
            by: role.to_string(),
            round,
            kind: response.kind,
            finding_id: response.finding_id.clone(),
            text: response.text.clone(),
            evidence: response.evidence.clone(),
            accepts_severity: response.accepts_severity,
            merge_with: response.merge_with.clone(),
            answers: Vec::new(),
        };
        let own = self
            .origins_of(&response.finding_id)
            .iter()
            .any(|o| o == role);
        match response.kind {
            ResponseKind::Defense => {
                record.answers = answering.clone();
                for id in &answering {
                    let accepted = if let Some(c) = self.challenge_mut(id) {
                        c.state = ChallengeState::Answered;
                        (response.accepts_severity && own)
                            .then_some(c.proposed_severity)
                            .flatten()
                    } else {
                        None
                    };
                    if let Some(to) = accepted
                        && let Some(finding) = self.finding_mut(&response.finding_id)
                        && finding.severity != to
                    {
                        finding.severity_changes.push(SeverityChange {
                            from: finding.severity,
                            to,
                            round,
                            why: format!("{id} accepted by {role}"),
                        });
                        let from = finding.severity;
                        finding.severity = to;
                        self.log(
                            now,
                            LogKind::Note,
                            Some(call_id),
                            format!(
                                "{} goes from {from} to {to}: {role} accepted the severity challenge {id}",
                                response.finding_id
                            ),
                        );
                    }
                }
                if let Some(revision) = &response.revision
                    && own
                    && let Some(p) = self.proposal_mut(&response.finding_id)
                {
                    p.text.summary = revision.clone();
                    p.status = ProposalStatus::Revised;
                }
            }
            ResponseKind::Withdrawal => {
                if own {
                    record.answers = answering.clone();
                    for id in &answering {
                        if let Some(c) = self.challenge_mut(id) {
                            c.state = ChallengeState::Answered;
                        }
                    }
                    let why = format!(
                        "withdrawn by {role} in round {round}: {}",
                        one_line(&response.text)
                    );
                    if let Some(f) = self.finding_mut(&response.finding_id) {
                        f.withdrawn = Some(why);
                    } else if let Some(p) = self.proposal_mut(&response.finding_id) {
                        p.status = ProposalStatus::Parked;
                        p.withdrawn = Some(why);
                    }
                    if let Some(r) = self.rounds.last_mut() {
                        r.withdrawn.push(response.finding_id.clone());
                    }
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!("{role} withdrew {}", response.finding_id),
                    );
                } else {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "{role} cannot withdraw {}, which it did not bring; read as no answer",
                            response.finding_id
                        ),
                    );
                    return;
                }
            }
            ResponseKind::Corroboration => {
                if own {
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "{role}'s corroboration of its own {} is read as a defense",
                            response.finding_id
                        ),
                    );
                    record.kind = ResponseKind::Defense;
                    record.answers = answering.clone();
                    for id in &answering {
                        if let Some(c) = self.challenge_mut(id) {
                            c.state = ChallengeState::Answered;
                        }
                    }
                }
            }
            ResponseKind::CrossChallenge => {
                if let Some(challenge) = response.challenge.clone() {
                    let id = self.raise(role, challenge, round + 1, call_id, now);
                    if let Some(id) = id {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(call_id),
                            format!(
                                "{role} cross-challenges {} ({id}); it goes to the moderator next round",
                                response.finding_id
                            ),
                        );
                    }
                }
            }
            ResponseKind::Discovery => {
                let id = if let Some((severity, text)) = response.discovery.clone() {
                    Some(self.add_finding(role, severity, text, true))
                } else {
                    response
                        .proposal
                        .clone()
                        .map(|text| self.add_proposal(role, text, "challenge"))
                };
                if let Some(id) = id {
                    record.finding_id = id.clone();
                    if let Some(r) = self.rounds.last_mut() {
                        r.discovered.push(id.clone());
                    }
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!("{role} discovered {id}"),
                    );
                }
            }
            ResponseKind::MergeProposal => {
                if let Some(other) = &response.merge_with {
                    let pair = [response.finding_id.clone(), other.clone()];
                    let known = self
                        .places
                        .merge_pairs
                        .contains(&unordered(&pair[0], &pair[1]));
                    if !known && !self.proposes() {
                        let overlap = match (self.finding(&pair[0]), self.finding(&pair[1])) {
                            (Some(a), Some(b)) => {
                                similarity::overlap(&a.text.description, &b.text.description)
                            }
                            _ => 0.0,
                        };
                        self.propose_merge(MergeCandidate {
                            findings: pair,
                            proposed_by: role.to_string(),
                            overlap: (overlap * 100.0).round() / 100.0,
                        });
                    }
                }
            }
        }
        if self.proposes()
            && let Some(p) = self.proposal_mut(&response.finding_id)
            && matches!(
                p.status,
                ProposalStatus::Proposed | ProposalStatus::Expanded
            )
        {
            p.status = ProposalStatus::Challenged;
        }
        self.responses.push(record);
    }

    /// After a round's answers: another round, or the end of the rounds.
    pub(super) fn end_round(&mut self, now: Timestamp) -> Vec<Effect> {
        let round = self.core.round;
        let delivered = self.rounds.last().is_some_and(|r| !r.delivered.is_empty());
        let pending = self.challenges.iter().any(|c| {
            c.state == ChallengeState::Held
                || (c.state == ChallengeState::Proposed && c.round > round)
        });
        if self.budget_exhausted.is_some() {
            return self.end_rounds(now, "the budget ran out".into());
        }
        if !delivered && !pending {
            return self.end_rounds(
                now,
                format!("round {round} delivered no challenge, so the debate has settled"),
            );
        }
        if round >= self.config.intensity.max_rounds() {
            return self.end_rounds(
                now,
                format!(
                    "round {round} was the last ({})",
                    self.config.intensity.as_str()
                ),
            );
        }
        self.core.round += 1;
        self.start_round(now)
    }

    pub(super) fn end_rounds(&mut self, now: Timestamp, why: String) -> Vec<Effect> {
        for c in self.challenges.iter_mut() {
            if matches!(c.state, ChallengeState::Proposed | ChallengeState::Held) {
                c.state = ChallengeState::Undelivered;
                c.undelivered = Some(why.clone());
            }
        }
        self.items.close_all();
        self.log(
            now,
            LogKind::Note,
            None,
            format!("the challenge rounds end: {why}"),
        );
        self.stopped = Some(why);
        if !self.proposes() {
            self.synthesise(now);
        }
        self.start_final(now)
    }
}
