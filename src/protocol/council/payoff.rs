//! Did the council pay (issue 55; the section's words and arithmetic are
//! `crate::protocol::payoff`'s): what a plain vote of Phase 1 would have
//! decided, which participant moved on which finding after it, what came
//! before each move, and what the phases after Phase 1 cost.
//!
//! * **A participant's own vote** is the verdict its Phase 1 findings would
//!   give if every one were confirmed as it reported it: the council's own
//!   verdict rule (`verdict::verdict_of`) on that participant's findings
//!   alone. Phase 1 is independent (nobody sees another's answer), so each
//!   participant with a readable Phase 1 answer casts one vote.
//! * **A change** is a participant whose word on a finding moved after its
//!   first word: an origin lowering (or raising) its severity or taking
//!   the finding back; anyone else whose final stance differs from the one
//!   it took in the rounds (a corroboration is an endorsement, a challenge
//!   or cross-challenge a dispute). What preceded it is read from the
//!   exchange on that finding between the two words: a response by someone
//!   else that brought evidence is new evidence; a challenge, or a response
//!   without evidence, is pressure; no exchange on it at all is nothing.
//! * **After the vote**: every call after Phase 1 (the challenge rounds,
//!   the final positions), retries included; a stability receipt's calls
//!   re-judge and are left out.
//!
//! A brainstorm or design council ends with a handoff, not a verdict, and
//! has no section, nor has a council journaled before issue 55 (its files
//! rebuild as they were).

use super::Council;
use super::model::{Finding, FindingState, Response, ResponseKind, Stance};
use super::verdict::{FindingOutcome, verdict_of};
use crate::protocol::payoff::{Payoff, PositionChange, Preceded, Spent, Vote};
use crate::protocol::{Edition, Outcome, Protocol};

impl Council {
    /// The section, once the council has a verdict.
    pub(super) fn payoff_section(&self) -> Option<Payoff> {
        let Some(Outcome::Decided { verdict, .. }) = self.outcome() else {
            return None;
        };
        if !self.config.seating.edition.follows(Edition::PAYOFF) {
            return None;
        }
        let votes = self
            .participants
            .iter()
            .filter(|slot| self.read_in_phase_one.contains(*slot))
            .map(|slot| self.own_vote(slot))
            .collect();
        let mut changes = Vec::new();
        for finding in &self.findings {
            changes.extend(self.changes_on(finding));
        }
        let after_vote = match self.usage() {
            Some(ledger) => Spent::after(ledger, |stage, _| {
                stage != "independent" && !stage.starts_with("stability")
            }),
            None => Spent::default(),
        };
        Some(Payoff::new(
            "the participants' Phase 1 findings",
            votes,
            verdict.to_string(),
            changes,
            after_vote,
        ))
    }

    /// The findings `slot` reported in Phase 1, as it reported them.
    fn first_findings<'a>(&'a self, slot: &'a str) -> impl Iterator<Item = &'a Finding> + 'a {
        self.findings.iter().filter(move |finding| {
            finding.round == 0
                && !finding.discovered
                && finding.merged_from.is_empty()
                && finding.from_origin(slot)
        })
    }

    /// The verdict `slot`'s Phase 1 findings give, every one confirmed at
    /// the severity it reported.
    fn own_vote(&self, slot: &str) -> Vote {
        let mine: Vec<Finding> = self
            .first_findings(slot)
            .map(|finding| Finding {
                severity: finding.reported_severity,
                ..finding.clone()
            })
            .collect();
        let outcomes: Vec<FindingOutcome> = mine
            .iter()
            .map(|finding| FindingOutcome {
                id: finding.id.clone(),
                state: FindingState::Confirmed,
                severity: finding.severity,
                share: 1.0,
                threshold: 0.0,
                rule: String::new(),
            })
            .collect();
        let (verdict, _) = verdict_of(&outcomes, self.config.preset, &mine);
        let why = match mine.len() {
            0 => "no finding".to_string(),
            _ => mine
                .iter()
                .map(|finding| format!("{} {}", finding.id, finding.severity.as_str()))
                .collect::<Vec<_>>()
                .join(", "),
        };
        Vote {
            voter: slot.to_string(),
            decision: verdict.to_string(),
            why,
        }
    }

    /// Every participant's moved word on `finding`.
    fn changes_on(&self, finding: &Finding) -> Vec<PositionChange> {
        let mut changes = Vec::new();
        let origin = finding.origins.first().cloned().unwrap_or_default();
        for moved in &finding.severity_changes {
            let (preceded_by, why) = self.exchange_before(finding, &origin, 0, moved.round);
            changes.push(PositionChange {
                who: origin.clone(),
                on: finding.id.clone(),
                from: moved.from.as_str().into(),
                to: moved.to.as_str().into(),
                when: format!("round {}", moved.round),
                preceded_by,
                why: format!("{why} ({})", moved.why),
            });
        }
        let withdrawal = self.responses.iter().find(|response| {
            response.kind == ResponseKind::Withdrawal
                && response.finding_id == finding.id
                && finding.from_origin(&response.by)
        });
        if let Some(response) = withdrawal {
            let (preceded_by, why) = self.exchange_before(finding, &response.by, 0, response.round);
            changes.push(PositionChange {
                who: response.by.clone(),
                on: finding.id.clone(),
                from: Stance::Endorse.as_str().into(),
                to: Stance::Withdraw.as_str().into(),
                when: format!("round {}", response.round),
                preceded_by,
                why,
            });
        }
        for slot in &self.participants {
            let Some(position) = self
                .positions
                .get(slot)
                .and_then(|position| position.positions.iter().find(|p| p.id == finding.id))
            else {
                continue;
            };
            let (earlier, since) = if finding.from_origin(slot) {
                if withdrawal.is_some_and(|response| &response.by == slot) {
                    continue;
                }
                (Stance::Endorse, finding.round)
            } else {
                match self.first_word(slot, finding) {
                    Some(word) => word,
                    None => continue,
                }
            };
            if position.stance == earlier || position.stance == Stance::Park {
                continue;
            }
            let (preceded_by, why) = self.exchange_before(finding, slot, since, u32::MAX);
            changes.push(PositionChange {
                who: slot.clone(),
                on: finding.id.clone(),
                from: earlier.as_str().into(),
                to: position.stance.as_str().into(),
                when: "the final positions".into(),
                preceded_by,
                why,
            });
        }
        changes
    }

    /// The first word `slot` gave on `finding` in the rounds, and its
    /// round: a challenge or cross-challenge disputes it, a corroboration
    /// endorses it.
    fn first_word(&self, slot: &str, finding: &Finding) -> Option<(Stance, u32)> {
        let challenged = self
            .challenges
            .iter()
            .filter(|challenge| challenge.from == slot && challenge.finding_id == finding.id)
            .map(|challenge| (Stance::Dispute, challenge.round));
        let responded = self
            .responses
            .iter()
            .filter(|response| response.by == slot && response.finding_id == finding.id)
            .filter_map(|response| match response.kind {
                ResponseKind::Corroboration => Some((Stance::Endorse, response.round)),
                ResponseKind::CrossChallenge => Some((Stance::Dispute, response.round)),
                _ => None,
            });
        challenged.chain(responded).min_by_key(|(_, round)| *round)
    }

    /// What reached `slot` on `finding` from round `since` up to round
    /// `until`, by others: a response that brought evidence, a challenge or
    /// a bare response, or nothing.
    fn exchange_before(
        &self,
        finding: &Finding,
        slot: &str,
        since: u32,
        until: u32,
    ) -> (Preceded, String) {
        let within = |round: u32| round >= since && round <= until;
        let on_it = |id: &str| id == finding.id || finding.merged_from.iter().any(|m| m == id);
        // Answers of a round arrive in any order: read them in the
        // roster's, so a resumed or replayed council says the same.
        let seat = |who: &str| self.participants.iter().position(|p| p == who);
        let mut responses: Vec<&Response> = self
            .responses
            .iter()
            .filter(|response| response.by != slot && on_it(&response.finding_id))
            .filter(|response| within(response.round))
            .collect();
        responses.sort_by_key(|response| (response.round, seat(&response.by)));
        if let Some(response) = responses.iter().find(|r| !r.evidence.trim().is_empty()) {
            return (
                Preceded::Evidence,
                format!(
                    "{}'s {} on {} in round {} brought evidence",
                    response.by,
                    response.kind.as_str(),
                    finding.id,
                    response.round
                ),
            );
        }
        let mut challenges: Vec<&super::model::Challenge> = self
            .challenges
            .iter()
            .filter(|challenge| challenge.from != slot && on_it(&challenge.finding_id))
            .filter(|challenge| challenge.state.delivered() && within(challenge.round))
            .collect();
        challenges.sort_by_key(|challenge| (challenge.round, seat(&challenge.from)));
        let challenges: Vec<String> = challenges
            .iter()
            .map(|challenge| format!("{} from {}", challenge.id, challenge.from))
            .collect();
        match (challenges.is_empty(), responses.first()) {
            (false, _) => (
                Preceded::Pressure,
                format!(
                    "challenged ({}) with no evidence brought on {}",
                    challenges.join(", "),
                    finding.id
                ),
            ),
            (true, Some(response)) => (
                Preceded::Pressure,
                format!(
                    "{}'s {} on {} brought no evidence",
                    response.by,
                    response.kind.as_str(),
                    finding.id
                ),
            ),
            (true, None) => (
                Preceded::Nothing,
                format!("nobody else said anything on {} in between", finding.id),
            ),
        }
    }
}
