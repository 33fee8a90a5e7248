//! Phase 1, the independent investigation (FP-14..FP-18): every
//! participant at once, the same scope and neutral task, nobody's output;
//! its findings (or a brainstorm's proposals) held until all are in. A
//! participant that gives no answer is out of the council (see
//! [`super::Council::on_gave_up`]). Not responsible for numbering or
//! publishing what came in: [`super::publication`] does.

use serde_json::json;

use super::packets::PacketKind;
use super::{Council, Step, count, documents, draft_prefix, parse, prompts};
use crate::protocol::{Answer, Effect, LogKind, Timestamp};

impl Council {
    pub(super) fn start_independent(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Independent, now);
        let mut effects = Vec::new();
        for role in self.participants.clone() {
            let mut context = self.base_context(&role);
            context["draft_prefix"] = json!(draft_prefix(&role));
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

    pub(super) fn on_independent(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let role = answer.call.slot.role.clone();
        let domain = role.strip_prefix("expert.").unwrap_or_default().to_string();
        // What the answer holds, taken in: its reading notes, a count for the
        // log and the key its written ids stand under.
        let taken = if self.proposes() {
            parse::read_proposals(answer.output).map(|read| {
                let counted = count(read.value.len(), "proposal", "proposals");
                self.proposals_in.insert(role.clone(), read.value);
                (read.notes, counted, "proposals")
            })
        } else {
            parse::read_findings(answer.output, &domain).map(|read| {
                let counted = count(read.value.len(), "finding", "findings");
                self.findings_in.insert(role.clone(), read.value);
                (read.notes, counted, "findings")
            })
        };
        match taken {
            Ok((notes, counted, key)) => {
                self.keep(&answer, notes);
                let call_id = answer.call.call_id();
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    format!("{role}: {counted}"),
                );
                let written = parse::written_ids(answer.output, key);
                self.written_ids.insert(role.clone(), written);
            }
            Err(error) => self.malformed(&answer, error.to_string()),
        }
        self.awaiting.remove(&role);
        self.after_independent(now)
    }

    pub(super) fn after_independent(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.awaiting.is_empty() {
            return Vec::new();
        }
        self.publish(now)
    }
}
