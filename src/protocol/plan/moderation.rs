//! The planner's proposed response to every challenge and proposal of the
//! round (PC-12, PC-14), each offered to the moderator as an item to
//! confirm or override (A26), and the submission that closes the round's
//! decisions. Beside them, every assumption the critic or the optimizer
//! marked `[VERIFIED]` without an evidence link or quote, for the
//! moderator to confirm (issue 60, PC-25): accepted, the confirmation is
//! its evidence; rejected or deferred, it stays unverified. What the final
//! words bring of those gets a moderation of its own before the synthesis.
//!
//! Not responsible for holding later answers to those decisions
//! (`revision`), nor for settling deferred items after the fact (the
//! shared item book, with the refusal in `mod.rs`).

use super::model::{Confirmation, DecidedBy, Decision, Evidence, Item, Source, Verification};
use super::{PLANNER, Plan, PlanSubject, Role, Step, listed, parse, prompts};
use crate::parse::Read;
use crate::protocol::Stage as _;
use crate::protocol::{
    Answer, ByItem, Effect, ItemDecision, LogKind, Moderation, ModerationItem, Settled,
    SharedSteps, Suggestion, Timestamp,
};
use crate::words::one_line;
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
                format!("round {}: nothing to respond to", self.core.round),
            );
            self.rounds_run = self.rounds_run.max(self.core.round);
            return self.after_round(now);
        }
        self.core.enter(Step::Respond, now);
        let context = json!({
            "goal": self.config.topic,
            "plan": self.plan,
            "round": self.core.round,
            "challenges": challenges,
            "proposals": proposals,
        });
        self.start_one(&prompts::RESPOND, context, Role::Planner, now)
    }

    pub(super) fn round_ids(&self) -> Vec<String> {
        self.items
            .iter()
            .filter(|item| item.round == self.core.round)
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
            raised_by: item.source.as_str().to_lowercase(),
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
        self.core.enter(Step::Moderation, now);
        let mut items: Vec<ModerationItem> = self
            .items
            .iter()
            .filter(|item| item.round == self.core.round)
            .map(|item| self.moderation_item(item))
            .collect();
        for item in &items {
            let subject = PlanSubject {
                id: item.id.clone(),
                proposed: self.responses.get(&item.id).map(|r| r.decision),
                verification: false,
            };
            self.book.push(item.clone(), subject, self.core.round);
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
        items.extend(self.offer_verifications(now));
        vec![Effect::AwaitModeration { items }]
    }

    /// The moderation before the synthesis, when the final words marked an
    /// assumption `[VERIFIED]` without evidence (issue 60); `None` when
    /// there is nothing to confirm.
    pub(super) fn open_confirmations(&mut self, now: Timestamp) -> Option<Vec<Effect>> {
        if self.unconfirmed().is_empty() {
            return None;
        }
        self.core.enter(Step::Moderation, now);
        self.confirming = true;
        let items = self.offer_verifications(now);
        Some(vec![Effect::AwaitModeration { items }])
    }

    /// The assumptions still unverified that a `[VERIFIED]` without
    /// evidence waits on the moderator for.
    fn unconfirmed(&self) -> Vec<usize> {
        self.assumptions
            .iter()
            .enumerate()
            .filter(|(_, assumption)| {
                assumption.status() == Verification::Unverified
                    && assumption
                        .checks
                        .iter()
                        .any(|check| check.confirmation == Some(Confirmation::Pending))
            })
            .map(|(place, _)| place)
            .collect()
    }

    /// Puts every assumption a bare `[VERIFIED]` waits on before the
    /// moderator, with quorum's suggestion to leave it unverified (so a
    /// headless run following suggestions verifies nothing without
    /// evidence), and returns the items.
    fn offer_verifications(&mut self, now: Timestamp) -> Vec<ModerationItem> {
        let mut items = Vec::new();
        for place in self.unconfirmed() {
            let assumption = &mut self.assumptions[place];
            let mut marked = Vec::new();
            for check in &mut assumption.checks {
                if check.confirmation == Some(Confirmation::Pending) {
                    check.confirmation = Some(Confirmation::Asked);
                    marked.push(format!(
                        "The {} (round {}) marked it VERIFIED without an evidence link or quote: {}",
                        check.by,
                        check.round,
                        one_line(&check.note)
                    ));
                }
            }
            let item = ModerationItem {
                id: assumption.id.clone(),
                target: "assumption".into(),
                severity: Verification::Unverified.as_str().into(),
                category: "Verification without evidence".into(),
                text: format!(
                    "{}\n{}\nAccept to confirm it verified: your confirmation is its evidence. Reject or defer to leave it unverified, to investigate.",
                    one_line(&assumption.text),
                    marked.join("\n")
                ),
                suggestion: Some(Suggestion {
                    decision: ItemDecision::Defer,
                    by: "quorum".into(),
                    reason: "no evidence link or quote was given: it stays unverified, to investigate, unless you know it is true".into(),
                }),
                ..Default::default()
            };
            let subject = PlanSubject {
                id: item.id.clone(),
                proposed: Some(ItemDecision::Defer),
                verification: true,
            };
            self.book.push(item.clone(), subject, self.core.round);
            items.push(item);
        }
        if !items.is_empty() {
            let ids: Vec<String> = items.iter().map(|item| item.id.clone()).collect();
            self.log(
                now,
                LogKind::Moderation,
                None,
                format!(
                    "needs moderator: {} marked VERIFIED without an evidence link or quote; accept to confirm, or leave unverified",
                    listed(&ids, "assumption", "assumptions")
                ),
            );
        }
        items
    }

    /// The verifications put to the moderator, each as last offered, for
    /// the board's items list.
    pub(super) fn verification_board_items(&self) -> Vec<crate::protocol::BoardItem> {
        let mut seen: Vec<&str> = Vec::new();
        let mut items = Vec::new();
        for record in self.book.records().iter().rev() {
            if !record.subject.verification || seen.contains(&record.item.id.as_str()) {
                continue;
            }
            seen.push(&record.item.id);
            items.push(crate::protocol::BoardItem {
                item: record.item.clone(),
                decision: record.decision,
                note: record.note.clone(),
                ruler: record.ruler,
                resolution: None,
                evidence: Vec::new(),
            });
        }
        items.reverse();
        items
    }

    /// The moderator's decision on an assumption marked `[VERIFIED]`
    /// without evidence: accepted, its confirmation is the evidence;
    /// otherwise it stays unverified. `U1 confirmed`, for the log.
    fn settle_verification(
        &mut self,
        id: &str,
        decision: ItemDecision,
        note: Option<String>,
    ) -> Option<String> {
        let place = self.places.assumptions.get(id).copied()?;
        let assumption = &mut self.assumptions[place];
        for check in &mut assumption.checks {
            if check.confirmation != Some(Confirmation::Asked) {
                continue;
            }
            check.confirmation = Some(match decision {
                ItemDecision::Accept => Confirmation::Confirmed,
                ItemDecision::Reject => Confirmation::Rejected,
                ItemDecision::Defer => Confirmation::Deferred,
            });
            if decision == ItemDecision::Accept {
                check.evidence = Some(Evidence::Moderator(note.clone()));
            }
        }
        Some(match decision {
            ItemDecision::Accept => format!("{id} confirmed verified"),
            _ => format!("{id} left unverified"),
        })
    }
}

impl crate::protocol::ItemRules for Plan {
    type Subject = PlanSubject;

    fn moderation(&mut self) -> Moderation<'_, PlanSubject> {
        Moderation::new(
            &mut self.book,
            &mut self.core.calls,
            self.core.stage.moderates(),
        )
    }

    fn decided_verb(subject: &PlanSubject, decision: ItemDecision) -> &'static str {
        subject.how(decision)
    }

    /// Only an item of the round under moderation, or an assumption put
    /// to it to confirm, can be decided.
    fn decision_refusal(&self, item_id: &str) -> Option<String> {
        let open = self.core.stage == Step::Moderation
            && (self
                .item(item_id)
                .is_some_and(|item| item.round == self.core.round)
                || self
                    .book
                    .pending()
                    .any(|record| record.subject.verification && record.item.id == item_id));
        (!open).then(|| "it is not open".to_string())
    }

    fn items_settled(&mut self, decided: Vec<Settled<PlanSubject>>, now: Timestamp) -> Vec<Effect> {
        let (verifications, decided): (Vec<_>, Vec<_>) = decided
            .into_iter()
            .partition(|(subject, _, _)| subject.verification);
        let confirmed: Vec<String> = verifications
            .into_iter()
            .filter_map(|(subject, decision, note)| {
                self.settle_verification(&subject.id, decision, note)
            })
            .collect();
        if self.confirming {
            self.confirming = false;
            self.log(
                now,
                LogKind::Moderation,
                None,
                format!("moderation submitted: {}", confirmed.join(", ")),
            );
            return self.start_synthesis(now);
        }
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
                    round: self.core.round,
                },
            );
        }
        self.log(
            now,
            LogKind::Moderation,
            None,
            if confirmed.is_empty() {
                format!(
                    "moderation submitted: {count} decided, {overridden} against the planner's proposal"
                )
            } else {
                format!(
                    "moderation submitted: {count} decided, {overridden} against the planner's proposal; {}",
                    confirmed.join(", ")
                )
            },
        );
        self.start_revise(now)
    }
}
