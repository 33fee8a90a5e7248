//! A brainstorm's own stages (FP-43, FP-44): Expand, where every
//! participant improves, combines or adds to the published proposals, and
//! the Handoff a synthesizer writes once the council has converged. The
//! Diverge, Challenge and Converge stages are the council's Phase 1, 3
//! and 5 over proposals instead of findings.

use serde_json::json;

use super::model::{Handoff, ProposalStatus, SYNTHESIZER};
use super::packets::PacketKind;
use super::{Council, Step, documents, parse, pretty, prompts};
use crate::parse::Read;
use crate::protocol::{Answer, ByItem, Effect, LogKind, Outcome, Timestamp};

impl Council {
    /// Expand: every participant still in the council gets the inventory,
    /// as far as the budget allows.
    pub(super) fn start_expand(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Expand, now);
        let mut effects = Vec::new();
        for role in self.present() {
            if !self.affords(1) {
                self.exhaust(now, "before every participant could expand");
                break;
            }
            let mut context = self.base_context(&role);
            context["inventory"] = pretty(self.inventory());
            let file = documents::expand_file(&role);
            match self.start_awaited(
                &prompts::EXPAND,
                context,
                role,
                PacketKind::Reconciliation,
                file,
                now,
            ) {
                Ok(effect) => effects.push(effect),
                Err(failed) => return failed,
            }
        }
        if effects.is_empty() {
            return self.after_expand(now);
        }
        effects
    }

    /// Takes one participant's expansions and new proposals; a new proposal
    /// built from others retires them.
    pub(super) fn on_expand(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let role = answer.call.slot.role.clone();
        let known = self.open_ids();
        let refs: Vec<&str> = known.iter().map(String::as_str).collect();
        let read = |text: &str| parse::read_expansions(text, &role, &refs);
        let may_ask = self.may_ask_again();
        match self
            .core
            .read_by_item_if(&answer, may_ask, read, parse::ExpandAnswer::len)
        {
            ByItem::Asked(effects) => return effects,
            ByItem::Read(reading) => {
                let raw = reading.text(&answer).to_string();
                let Read {
                    value: expanded,
                    notes,
                    slips,
                } = reading.read;
                self.keep_text(&answer, &raw, notes);
                self.core.leave_out(
                    &answer.call,
                    now,
                    &slips,
                    |slip| match &slip.id {
                        Some(id) => format!("expansion of {id}"),
                        None => crate::protocol::reading::slip_name(slip),
                    },
                    |_| "not added to the inventory".to_string(),
                );
                let mut added = Vec::new();
                for (id, expansion) in expanded.expansions {
                    if let Some(p) = self.proposal_mut(&id) {
                        p.expansions.push(expansion);
                        if p.status == ProposalStatus::Proposed {
                            p.status = ProposalStatus::Expanded;
                        }
                        added.push(id);
                    }
                }
                let mut new = Vec::new();
                for text in expanded.proposals {
                    new.push(self.add_proposal(&role, text, "expand"));
                }
                self.log(
                    now,
                    LogKind::Note,
                    Some(&answer.call.call_id()),
                    format!(
                        "{role}: expanded {}; new {}",
                        if added.is_empty() {
                            "none".into()
                        } else {
                            added.join(", ")
                        },
                        if new.is_empty() {
                            "none".into()
                        } else {
                            new.join(", ")
                        }
                    ),
                );
            }
            ByItem::Unreadable(error) => self.malformed(&answer, error.to_string()),
        }
        self.awaiting.remove(&role);
        self.after_expand(now)
    }

    /// Once every expansion is in: the challenge rounds, or the convergence
    /// when the budget ran out.
    pub(super) fn after_expand(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.awaiting.is_empty() {
            return Vec::new();
        }
        if self.budget_exhausted.is_some() {
            return self.start_final(now);
        }
        self.core.round = 1;
        self.start_round(now)
    }

    /// Handoff: the synthesizer gets the proposals with how each ended and
    /// the participants' closing summaries.
    pub(super) fn start_handoff(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Handoff, now);
        // The proposals as they ended, revisions included (issue 52).
        self.file_evidence();
        let mut context = self.base_context(SYNTHESIZER);
        context["inventory"] = pretty(self.inventory());
        context["outcomes"] = pretty(json!(self.proposal_outcomes));
        context["summaries"] = pretty(json!(
            self.positions
                .values()
                .filter(|p| !p.summary.is_empty())
                .map(|p| json!({"participant": p.participant, "summary": p.summary}))
                .collect::<Vec<_>>()
        ));
        self.put_rulings(&mut context, self.challenges.iter());
        let file = documents::HANDOFF_FILE.to_string();
        match self.start_call(
            &prompts::HANDOFF,
            context,
            SYNTHESIZER,
            PacketKind::Reconciliation,
            file,
            now,
        ) {
            Ok(effect) => vec![effect],
            Err(failed) => failed,
        }
    }

    /// Keeps the handoff when it reads; without one the summary lists what
    /// was accepted.
    pub(super) fn on_handoff(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let may_ask = self.may_ask_again();
        let count = |handoff: &Handoff| handoff.open_questions.len() + 1;
        match self
            .core
            .read_by_item_if(&answer, may_ask, parse::read_handoff, count)
        {
            ByItem::Asked(effects) => return effects,
            ByItem::Read(reading) => {
                let raw = reading.text(&answer).to_string();
                let Read {
                    value: handoff,
                    notes,
                    slips,
                } = reading.read;
                self.keep_text(&answer, &raw, notes);
                self.core.leave_out(
                    &answer.call,
                    now,
                    &slips,
                    |slip| {
                        format!(
                            "open question {}",
                            crate::protocol::reading::slip_name(slip)
                        )
                    },
                    |_| "the handoff goes without it".to_string(),
                );
                self.handoff = Some(handoff);
            }
            ByItem::Unreadable(error) => {
                self.malformed(&answer, error.to_string());
                self.core.record_unread(
                    &answer.call,
                    "handoff".into(),
                    error.to_string(),
                    "the summary lists what was accepted instead of the synthesizer's direction and next step".into(),
                );
            }
        }
        self.complete(now)
    }

    /// Ends a brainstorm: a deliverable, no verdict.
    pub(super) fn complete(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Done, now);
        let accepted: Vec<String> = self
            .proposals
            .iter()
            .filter(|p| p.status == ProposalStatus::Accepted)
            .map(|p| p.id.clone())
            .collect();
        let note = format!(
            "{} accepted ({}); handoff {}",
            accepted.len(),
            if accepted.is_empty() {
                "none".into()
            } else {
                accepted.join(", ")
            },
            if self.handoff.is_some() {
                "written by the synthesizer"
            } else {
                "missing: quorum lists the accepted proposals instead"
            }
        );
        self.log(now, LogKind::Verdict, None, format!("completed: {note}"));
        self.exchange.final_summary(&self.present());
        let outcome = Outcome::Completed {
            deliverable: documents::SUMMARY.into(),
            note,
        };
        vec![self.core.finish(outcome)]
    }
}
