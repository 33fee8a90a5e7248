//! The planner's proposed response to every challenge and proposal of the
//! round (PC-12, PC-14), each offered to the moderator as an item to
//! confirm or override (A26), and the submission that closes the round's
//! decisions.
//!
//! Not responsible for holding later answers to those decisions
//! (`revision`), nor for settling deferred items after the fact (the
//! shared item book, with the refusal in `mod.rs`).

use super::model::{DecidedBy, Decision, Item, Source};
use super::{PLANNER, Plan, PlanSubject, Step, listed, parse, prompts};
use crate::parse::Read;
use crate::protocol::{
    Answer, ByItem, Effect, ItemDecision, LogKind, Moderation, ModerationItem, Settled,
    SharedSteps, Suggestion, Timestamp,
};
use serde_json::json;

impl Plan {
    pub(super) fn start_respond(&mut self, now: Timestamp) -> Vec<Effect> {
        let challenges: Vec<serde_json::Value> = self
            .round_items(Source::Critic)
            .into_iter()
            .map(|item| self.item_json(item))
            .collect();
        let proposals: Vec<serde_json::Value> = self
            .round_items(Source::Optimizer)
            .into_iter()
            .map(|item| self.item_json(item))
            .collect();
        if challenges.is_empty() && proposals.is_empty() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("round {}: nothing to respond to", self.round),
            );
            self.rounds_run = self.rounds_run.max(self.round);
            return self.after_round(now);
        }
        self.enter(Step::Respond, now);
        let context = json!({
            "goal": self.config.topic,
            "plan": self.plan,
            "round": self.round,
            "challenges": challenges,
            "proposals": proposals,
        });
        self.start_one(&prompts::RESPOND, context, PLANNER, now)
    }

    pub(super) fn round_ids(&self) -> Vec<String> {
        self.items
            .iter()
            .filter(|item| item.round == self.round)
            .map(|item| item.id.clone())
            .collect()
    }

    pub(super) fn on_respond(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let ids = self.round_ids();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let read = |text: &str| parse::read_responses(text, &refs);
        let reading = match self.core.read_by_item(&answer, read, Vec::len) {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => return self.repair_or_stop(answer, error.to_string()),
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let Read {
            value,
            notes,
            slips,
        } = reading.read;
        self.keep_text(&answer, &raw, notes);
        self.core.leave_out(
            &answer.call,
            answer.now,
            &slips,
            crate::protocol::reading::slip_name,
            |slip| {
                if slip.error.message.contains("is no challenge or proposal") {
                    "there is no such item this round: the response is read past".to_string()
                } else {
                    "the moderator rules on the item with no proposal from the planner".to_string()
                }
            },
        );
        for (id, response) in value {
            self.responses.insert(id, response);
        }
        self.open_moderation(answer.now)
    }

    pub(super) fn moderation_item(&self, item: &Item) -> ModerationItem {
        let mut text = item.summary.clone();
        for (key, value) in &item.fields {
            text.push_str(&format!("\n{key}: {value}"));
        }
        if let Some(other) = &item.refers_to {
            let verb = match item.source {
                Source::Critic => "Reopens",
                Source::Optimizer => "Third option for",
            };
            text.push_str(&format!("\n{verb}: {other}"));
        }
        ModerationItem {
            id: item.id.clone(),
            target: item.source.as_str().to_lowercase(),
            severity: item.level.as_str().to_string(),
            category: item.category.clone(),
            text,
            suggestion: self.responses.get(&item.id).map(|response| Suggestion {
                decision: response.decision,
                by: PLANNER.into(),
                reason: response.reason.clone(),
            }),
            ..Default::default()
        }
    }

    fn open_moderation(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Moderation, now);
        let items: Vec<ModerationItem> = self
            .items
            .iter()
            .filter(|item| item.round == self.round)
            .map(|item| self.moderation_item(item))
            .collect();
        for item in &items {
            let subject = PlanSubject {
                id: item.id.clone(),
                proposed: self.responses.get(&item.id).map(|r| r.decision),
            };
            self.book.push(item.clone(), subject, self.round);
        }
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "needs moderator: confirm or override the planner's response to {}",
                listed(
                    &items.iter().map(|i| i.id.clone()).collect::<Vec<_>>(),
                    "item",
                    "items"
                )
            ),
        );
        vec![Effect::AwaitModeration { items }]
    }
}

impl crate::protocol::ItemRules for Plan {
    type Subject = PlanSubject;

    fn moderation(&mut self) -> Moderation<'_, PlanSubject> {
        Moderation::new(
            &mut self.book,
            &mut self.core.calls,
            self.step == Step::Moderation,
        )
    }

    fn decided_verb(subject: &PlanSubject, decision: ItemDecision) -> &'static str {
        subject.how(decision)
    }

    /// Only an item of the round under moderation can be decided.
    fn decision_refusal(&self, item_id: &str) -> Option<String> {
        let open = self.step == Step::Moderation
            && self
                .item(item_id)
                .is_some_and(|item| item.round == self.round);
        (!open).then(|| "it is not open".to_string())
    }

    fn items_settled(&mut self, decided: Vec<Settled<PlanSubject>>, now: Timestamp) -> Vec<Effect> {
        let count = decided.len();
        let mut overridden = 0;
        for (subject, decision, note) in decided {
            let id = subject.id;
            let by = if subject.proposed == Some(decision) {
                DecidedBy::Planner
            } else {
                overridden += 1;
                DecidedBy::Moderator
            };
            self.decisions.insert(
                id.clone(),
                Decision {
                    decision,
                    by,
                    note,
                    round: self.round,
                },
            );
        }
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "moderation submitted: {count} decided, {overridden} against the planner's proposal"
            ),
        );
        self.start_revise(now)
    }
}
