//! The critic of a writing-mode review and the moderator's decisions on
//! its items, which bind the rewrites and the merge.
//!
//! Not responsible for the rewrites and the merge ([`super::rewrites`]).

use super::*;
use crate::protocol::reading::slip_name;
use crate::protocol::{Answer, ByItem};

impl WritingReview {
    /// The critic reads the draft first (A16); its answer goes to
    /// [`documents::CRITIQUE`] before it is read.
    pub(super) fn start_critique(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Critique, now);
        let aspects: Vec<_> = Aspect::ALL
            .iter()
            .map(|aspect| json!({"name": aspect.as_str(), "question": aspect.question()}))
            .collect();
        // A review journaled before the critic took a stance asks it as it
        // did, with none (the template leaves the stance out).
        let stance = self.config.stance().map_or("", CritiqueMode::as_str);
        let context = json!({
            "topic": self.config.topic,
            "draft": self.config.draft.text,
            "context": self.config.context,
            "aspects": aspects,
            "critique_mode": stance,
        });
        let slot = self.core.slot(&Role::Critic);
        let file = Some(documents::CRITIQUE.to_string());
        self.ask(slot, &prompts::CRITIQUE, &context, file, now)
    }

    /// The critique, already on disk: its items go to the moderator; with
    /// none, the rewrites start at once. An unreadable critique is
    /// repaired once, then ends the run (the critic is required).
    pub(super) fn on_critique(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let count = |items: &Vec<CritiqueItem>| items.len();
        let reading = match self.core.read_by_item(&answer, parse_critique, count) {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => return self.repair_or_stop(answer, error),
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let Read {
            value: items,
            notes,
            slips,
        } = reading.read;
        self.core.calls.note_readings(now, &call_id, &notes);
        self.core.leave_out(
            &answer.call,
            now,
            &slips,
            |slip| format!("critique item {}", slip_name(slip)),
            |_| {
                "it was not put to you, and the rewrites and the merge need not answer it"
                    .to_string()
            },
        );
        let listed: Vec<String> = items
            .iter()
            .map(|item| format!("{} {} {}", item.id, item.kind, item.severity))
            .collect();
        self.log(
            now,
            LogKind::Note,
            Some(&call_id),
            format!(
                "critique read from {}: {}{}",
                documents::CRITIQUE,
                crate::words::counted(items.len(), "item", "items"),
                if listed.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", listed.join(", "))
                }
            ),
        );
        for item in &items {
            self.items.push(moderation_item(item), item.id.clone(), 1);
        }
        let empty = items.is_empty();
        self.critique = Some(Critique {
            call_id,
            raw,
            items,
            readings: notes,
            at: now,
        });
        if empty {
            self.log(
                now,
                LogKind::Moderation,
                None,
                "no critique items to moderate".into(),
            );
            return self.start_rewrites(now);
        }
        self.core.enter(Step::Moderation, now);
        let pending = self.items.pending_items();
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "needs moderator: {} items to accept, reject or defer",
                pending.len()
            ),
        );
        vec![Effect::AwaitModeration { items: pending }]
    }
}

impl crate::protocol::ItemRules for WritingReview {
    type Subject = String;

    fn moderation(&mut self) -> Moderation<'_, String> {
        let open = self.core.moderating();
        Moderation::new(&mut self.items, &mut self.core.calls, open)
    }

    fn items_settled(&mut self, decided: Vec<Settled<String>>, now: Timestamp) -> Vec<Effect> {
        let [accepted, rejected, deferred] = crate::protocol::items::tally(&decided);
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "moderation submitted: {accepted} accepted, {rejected} rejected, {deferred} deferred"
            ),
        );
        self.start_rewrites(now)
    }
}
