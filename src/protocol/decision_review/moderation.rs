//! The moderator's word on the critique items: the decisions of the
//! moderation stage, where each item stands now, and after a verdict the
//! settling of deferred items, which may reopen the debate for one more
//! revision and evaluation round. Not responsible for what the revision
//! makes of the rulings: [`super::revision`] checks that.

use super::model::ItemDecision;
use super::{DecisionReview, ReviewMode, Stage, item_ids};
use crate::protocol::{Effect, LogKind, Moderation, Outcome, Questions, Settled, Timestamp};

impl DecisionReview {
    /// Where `item_id` stands now: settled after a verdict, else as the
    /// moderation decided it; `None` while undecided.
    pub fn standing_decision(&self, item_id: &str) -> Option<ItemDecision> {
        self.resolution(item_id)
            .map(|resolution| resolution.decision)
            .or_else(|| self.ruling(item_id).map(|ruling| ruling.decision))
    }

    /// The note that goes with where `item_id` stands.
    pub(super) fn standing_note(&self, item_id: &str) -> Option<String> {
        match self.resolution(item_id) {
            Some(resolution) => resolution.note.clone(),
            None => self.ruling(item_id).and_then(|ruling| ruling.note),
        }
    }

    /// Why settling `item_id` with `decision` after the verdict would be
    /// refused, or `None` when it would be applied.
    pub fn settle_refusal(&self, item_id: &str, decision: ItemDecision) -> Option<String> {
        match &self.core.outcome {
            None => return Some("the debate is still running".into()),
            // A comparison's ranking stands where a verdict would: an item
            // accepted after it reopens the comparison like a verdict.
            Some(Outcome::Completed { .. }) if self.config.mode == ReviewMode::Comparative => {}
            Some(Outcome::Failed { .. } | Outcome::Completed { .. }) => {
                return Some("the debate ended without a verdict".into());
            }
            Some(Outcome::Decided { .. }) => {}
        }
        if !self.has_item(item_id) {
            return Some("there is no such item".into());
        }
        match self.ruling(item_id).map(|ruling| ruling.decision) {
            Some(ItemDecision::Defer) => {}
            Some(other) => {
                return Some(format!(
                    "it was {} in moderation, not deferred",
                    other.past_tense()
                ));
            }
            None => return Some("it was not deferred in moderation".into()),
        }
        if decision == ItemDecision::Defer {
            return Some("a deferred item is settled by accepting or rejecting it".into());
        }
        self.answer_to(item_id).map(|answer| match answer {
            super::ItemAnswer::Changed { round } => format!(
                "it was accepted after the verdict and revision round {round} has answered it"
            ),
            super::ItemAnswer::Declined { round, .. } => format!(
                "it was accepted after the verdict and revision round {round} has declined it"
            ),
        })
    }

    /// A deferred item was settled after the verdict (the book logged
    /// it): says when that reopens the debate, or no longer does.
    pub(super) fn on_item_resolved(&mut self, was_pending: bool, now: Timestamp) -> Vec<Effect> {
        match (was_pending, self.reopen_pending()) {
            (false, true) => {
                let ids = item_ids(&self.awaiting_reopen());
                self.push_log(
                    now,
                    LogKind::Note,
                    None,
                    format!(
                        "debate reopened: {ids} must be answered in another revision and evaluation round (`quorum resume --reopen`)"
                    ),
                );
            }
            (true, false) => self.push_log(
                now,
                LogKind::Note,
                None,
                "no longer reopened: no item accepted after the verdict waits for a revision"
                    .into(),
            ),
            _ => {}
        }
        Vec::new()
    }

    /// Why a reopening is refused while none waits.
    pub(super) fn reopen_refusal(&self) -> &'static str {
        if self.core.outcome.is_none() {
            "the debate is still running"
        } else {
            "no item accepted after the verdict waits for a revision"
        }
    }

    /// Sends a debate with items accepted after its verdict back to revision.
    /// The reopened round is the moderator's call, so it runs even when the
    /// automatic REVISE loops are used up; a REVISE verdict after it loops
    /// only while `round - 1 < max_rounds`, as for any round.
    pub(super) fn on_reopened(&mut self, now: Timestamp) -> Vec<Effect> {
        let ids: Vec<String> = self
            .awaiting_reopen()
            .into_iter()
            .map(|item| item.id.clone())
            .collect();
        let round = self.core.round + 1;
        self.push_log(
            now,
            LogKind::Note,
            None,
            format!(
                "debate reopened for {} (accepted after the verdict): revision and evaluation round {round}",
                ids.join(", ")
            ),
        );
        self.core.outcome = None;
        self.pending_directives.clear();
        self.start_revision(round, ids, now)
    }
}

impl crate::protocol::ItemRules for DecisionReview {
    type Subject = ();

    fn moderation(&mut self) -> Moderation<'_, ()> {
        Moderation::new(
            &mut self.items,
            &mut self.core.calls,
            crate::protocol::Stage::moderates(self.core.stage),
        )
    }

    /// A decision outside the moderation, or on an item the debate does
    /// not have, is refused.
    fn decision_refusal(&self, item_id: &str) -> Option<String> {
        if self.core.stage != Stage::Moderation {
            return Some("moderation is over".into());
        }
        (!self.has_item(item_id)).then(|| "it is not an item of this debate".into())
    }

    fn items_settled(&mut self, _settled: Vec<Settled<()>>, now: Timestamp) -> Vec<Effect> {
        let accepted: Vec<String> = self
            .items_decided(ItemDecision::Accept)
            .into_iter()
            .map(|item| item.id.clone())
            .collect();
        self.push_log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "moderation submitted: {} accepted, {} rejected, {} deferred",
                accepted.len(),
                self.items_decided(ItemDecision::Reject).len(),
                self.items_decided(ItemDecision::Defer).len()
            ),
        );
        self.start_revision(1, accepted, now)
    }
}
