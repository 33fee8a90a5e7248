//! Phase 1, the independent investigation (FP-14..FP-18): every
//! participant at once, the same scope and neutral task, nobody's output;
//! its findings (or a brainstorm's proposals) held until all are in. A
//! participant that gives no answer is out of the council (see
//! [`super::Council::on_gave_up`]). Not responsible for numbering or
//! publishing what came in: [`super::publication`] does.

use serde_json::json;

use super::model::Role;
use super::packets::PacketKind;
use super::{Council, Held, Step, count, documents, draft_prefix, parse, prompts};
use crate::parse::Read;
use crate::protocol::roster::Seat;
use crate::protocol::{Answer, ByItem, Effect, LogKind, Timestamp};

impl Council {
    pub(super) fn start_independent(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Independent, now);
        let mut effects = Vec::new();
        let seats: Vec<Seat<Role>> = self.participant_seats().cloned().collect();
        for seat in seats {
            let role = seat.slot;
            let mut context = self.base_context(&role);
            context["draft_prefix"] = json!(draft_prefix(&seat.role));
            let file = documents::independent_file(&role);
            let template = if self.proposes() {
                &prompts::DIVERGE
            } else {
                &prompts::INDEPENDENT
            };
            match self.start_awaited(template, context, role, PacketKind::Discovery, file, now) {
                Ok(effect) => effects.push(effect),
                Err(failed) => return failed,
            }
        }
        effects
    }

    /// The Phase 1 answer of the participant `seated`.
    pub(super) fn on_independent(&mut self, seated: &Role, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        // The participant, as the council's records name it: its slot.
        let role = answer.call.slot.role.clone();
        let domain = seated.domain().to_string();
        let may_ask = self.may_ask_again();
        let (notes, counted, key, raw) = if self.proposes() {
            let kept = |listed: &parse::Listed<_>| listed.items.len();
            let reading =
                match self
                    .core
                    .read_by_item_if(&answer, may_ask, parse::read_proposals, kept)
                {
                    ByItem::Asked(effects) => return effects,
                    ByItem::Unreadable(error) => {
                        self.malformed(&answer, error.to_string());
                        return self.after_answer(&role, now);
                    }
                    ByItem::Read(reading) => reading,
                };
            let raw = reading.text(&answer).to_string();
            let Read {
                value,
                notes,
                slips,
            } = reading.read;
            let counted = count(value.items.len(), "proposal", "proposals");
            let held = Held {
                read: value,
                slips,
                call: answer.call.clone(),
                at: now,
            };
            self.proposals_in.insert(role.clone(), held);
            (notes, counted, "proposals", raw)
        } else {
            let read = |text: &str| parse::read_findings(text, &domain);
            let kept = |listed: &parse::Listed<_>| listed.items.len();
            let reading = match self.core.read_by_item_if(&answer, may_ask, read, kept) {
                ByItem::Asked(effects) => return effects,
                ByItem::Unreadable(error) => {
                    self.malformed(&answer, error.to_string());
                    return self.after_answer(&role, now);
                }
                ByItem::Read(reading) => reading,
            };
            let raw = reading.text(&answer).to_string();
            let Read {
                value,
                notes,
                slips,
            } = reading.read;
            let counted = count(value.items.len(), "finding", "findings");
            let held = Held {
                read: value,
                slips,
                call: answer.call.clone(),
                at: now,
            };
            self.findings_in.insert(role.clone(), held);
            (notes, counted, "findings", raw)
        };
        self.keep_text(&answer, &raw, notes);
        let call_id = answer.call.call_id();
        self.log(
            now,
            LogKind::Note,
            Some(&call_id),
            format!("{role}: {counted}"),
        );
        let written = parse::written_ids(&raw, key);
        self.written_ids.insert(role.clone(), written);
        self.read_in_phase_one.insert(role.clone());
        self.after_answer(&role, now)
    }

    /// `role` answered Phase 1: once everyone has, the inventory is
    /// published.
    fn after_answer(&mut self, role: &str, now: Timestamp) -> Vec<Effect> {
        self.awaiting.remove(role);
        self.after_independent(now)
    }

    pub(super) fn after_independent(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.awaiting.is_empty() {
            return Vec::new();
        }
        self.publish(now)
    }
}
