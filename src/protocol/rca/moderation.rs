//! The moderator's part of a round: the critic's rulings and challenges
//! offered as items, each decision taken as it comes, and on submission
//! the rulings upheld or overturned and the challenges delivered, held
//! back or dropped, before the debuggers are asked to answer.
//!
//! Not responsible for turning the critic's answer into items (`critic`)
//! nor for asking the debuggers (`answers`).

use super::model::{ChallengeState, Moderated, RulingWord};
use super::{ItemSubject, MAX_ROUNDS, Rca, Step, count};
use crate::protocol::Stage as _;
use crate::protocol::{Effect, ItemDecision, LogKind, Moderation, Settled, Timestamp};

impl Rca {
    pub(super) fn open_moderation(&mut self, now: Timestamp) -> Vec<Effect> {
        let pending = self.items.pending_items();
        if pending.is_empty() {
            return self.after_moderation(now);
        }
        self.core.enter(Step::Moderation, now);
        let challenges = self
            .items
            .pending()
            .filter(|record| matches!(record.subject, ItemSubject::Challenge(_)))
            .count();
        let rulings = pending.len() - challenges;
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "needs moderator: {} to deliver, hold back or drop; {} to uphold, overturn or send back",
                count(challenges, "challenge", "challenges"),
                count(rulings, "ruling", "rulings")
            ),
        );
        vec![Effect::AwaitModeration { items: pending }]
    }

    /// After a round's rulings and challenges are settled: stop if every
    /// hypothesis is settled, else put the open challenges to their owners.
    fn after_moderation(&mut self, now: Timestamp) -> Vec<Effect> {
        let unsettled: Vec<&str> = self
            .hypotheses
            .iter()
            .filter(|h| self.settled(&h.id).is_none())
            .map(|h| h.id.as_str())
            .collect();
        if unsettled.is_empty() {
            return self.finish(
                now,
                format!(
                    "every hypothesis SURVIVED or was ELIMINATED by round {} of {MAX_ROUNDS}",
                    self.core.round
                ),
            );
        }
        if self.closing {
            return self.finish(
                now,
                format!(
                    "round {MAX_ROUNDS} ended with {} still unsettled",
                    unsettled.join(", ")
                ),
            );
        }
        self.start_answers(now)
    }
}

impl crate::protocol::ItemRules for Rca {
    type Subject = ItemSubject;

    fn moderation(&mut self) -> Moderation<'_, ItemSubject> {
        Moderation::new(
            &mut self.items,
            &mut self.core.calls,
            self.core.stage.moderates(),
        )
    }

    fn decided_verb(subject: &ItemSubject, decision: ItemDecision) -> &'static str {
        match (subject, decision) {
            (ItemSubject::Challenge(_), ItemDecision::Accept) => "to be delivered",
            (ItemSubject::Challenge(_), ItemDecision::Reject) => "dropped",
            (ItemSubject::Challenge(_), ItemDecision::Defer) => "held back",
            (ItemSubject::Ruling { .. }, ItemDecision::Accept) => "ruling upheld",
            (ItemSubject::Ruling { .. }, ItemDecision::Reject) => "ruling overturned",
            (ItemSubject::Ruling { .. }, ItemDecision::Defer) => "ruling sent back to the critic",
            (ItemSubject::Rival(_), ItemDecision::Accept) => "stands as a rival",
            (ItemSubject::Rival(_), ItemDecision::Reject) => "ruled out",
            (ItemSubject::Rival(_), ItemDecision::Defer) => "left standing",
            (ItemSubject::Restatement(_), ItemDecision::Accept) => "ruling upheld",
            (ItemSubject::Restatement(_), ItemDecision::Reject) => "ruling overturned",
            (ItemSubject::Restatement(_), ItemDecision::Defer) => "left unconfirmed",
        }
    }

    fn items_settled(&mut self, decided: Vec<Settled<ItemSubject>>, now: Timestamp) -> Vec<Effect> {
        let round = self.core.round;
        let counts = crate::protocol::items::tally(&decided);
        if self.core.stage == Step::Closing {
            for (subject, decision, note) in decided {
                let moderated = Moderated {
                    round,
                    decision,
                    note,
                };
                self.closing_settled(subject, moderated, now);
            }
            self.log(
                now,
                LogKind::Moderation,
                None,
                format!(
                    "moderation submitted: {} upheld or left standing, {} overturned or ruled out, {} left unconfirmed or standing",
                    counts[0], counts[1], counts[2]
                ),
            );
            self.core.stage = Step::Done;
            return self.conclude(now);
        }
        for (subject, decision, note) in decided {
            let moderated = Moderated {
                round,
                decision,
                note,
            };
            match subject {
                ItemSubject::Challenge(id) => {
                    if let Some(challenge) = self.challenge_mut(&id) {
                        challenge.state = match decision {
                            ItemDecision::Accept => ChallengeState::Open,
                            ItemDecision::Reject => ChallengeState::Withdrawn,
                            ItemDecision::Defer => ChallengeState::Held,
                        };
                        challenge.moderation.push(moderated);
                    }
                }
                ItemSubject::Ruling {
                    challenge: id,
                    index,
                } => {
                    if let Some(challenge) = self.challenge_mut(&id)
                        && let Some(ruling) = challenge.rulings.get_mut(index)
                    {
                        ruling.moderation = Some(moderated);
                        if let Some(word) = ruling.effective() {
                            challenge.state = match word {
                                RulingWord::Resolved => ChallengeState::Resolved,
                                RulingWord::Unresolved => ChallengeState::Open,
                                RulingWord::Contradicted => ChallengeState::Contradicted,
                            };
                        }
                    }
                }
                // Asked only at the close.
                ItemSubject::Rival(_) | ItemSubject::Restatement(_) => {}
            }
        }
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "moderation submitted: {} accepted or upheld, {} dropped or overturned, {} held back or sent back",
                counts[0], counts[1], counts[2]
            ),
        );
        self.after_moderation(now)
    }
}
