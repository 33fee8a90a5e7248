//! Round 1 of a root-cause run: every debugger that does not already own a
//! hypothesis from the team's file is asked, at once, for its hypotheses
//! with their evidence (RC-01, RC-02); once the last answer is in, quorum
//! numbers them `H1..Hn` in the order of the debuggers and the critic's
//! first round starts.
//!
//! Not responsible for the critic's challenges or the debuggers' answers
//! to them (`critic`, `answers`), nor for the call plumbing (`mod.rs`).

use super::{Rca, Role, Step, count, debugger_slot, documents, hypothesis, parse, prompts};
use crate::parse::Read;
use crate::protocol::{Answer, ByItem, Effect, LogKind, SharedSteps, Timestamp};
use serde_json::json;
use std::collections::BTreeSet;

impl Rca {
    pub(super) fn start_findings(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Findings, now);
        let owners: BTreeSet<&str> = self.hypotheses.iter().map(|h| h.owner.as_str()).collect();
        let asked: Vec<String> = self
            .config
            .debuggers
            .iter()
            .filter(|name| !owners.contains(name.as_str()))
            .cloned()
            .collect();
        if asked.is_empty() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!(
                    "every debugger brought its hypotheses in the hypotheses file ({}); no findings are asked for",
                    self.hypotheses.len()
                ),
            );
            return self.number_findings(now);
        }
        let mut effects = Vec::new();
        for name in asked {
            let teammates: Vec<&String> = self
                .config
                .debuggers
                .iter()
                .filter(|other| **other != name)
                .collect();
            let known: Vec<serde_json::Value> = self
                .hypotheses
                .iter()
                .map(|h| json!({"id": h.id, "owner": h.owner, "claim": h.finding.claim}))
                .collect();
            let context = json!({
                "problem": self.config.topic,
                "context": self.config.context,
                "sources": self.core.evidence.prompt(&self.config.topic),
                "debugger": name,
                "teammates": teammates,
                "known": known,
            });
            let file = documents::round_file(1, &debugger_slot(&name), "findings");
            let role = Role::Debugger(name.clone());
            match self.start_call(&prompts::FINDINGS, context, &role, file, now) {
                Ok(effect) => {
                    self.awaiting.insert(name);
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        effects
    }

    /// The findings of the debugger `name`.
    pub(super) fn on_findings(&mut self, name: String, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        match self
            .core
            .read_by_item(&answer, parse::read_findings, Vec::len)
        {
            ByItem::Asked(effects) => return effects,
            ByItem::Read(reading) => {
                let raw = reading.text(&answer).to_string();
                let Read {
                    value,
                    notes,
                    slips,
                } = reading.read;
                self.keep_text(&answer, &raw, notes);
                self.core.leave_out(
                    &answer.call,
                    now,
                    &slips,
                    |slip| match slip.index {
                        Some(place) => format!("hypothesis {} as it listed them", place + 1),
                        None => crate::protocol::reading::slip_name(slip),
                    },
                    |_| {
                        "not numbered or cross-examined: it plays no part in the analysis"
                            .to_string()
                    },
                );
                self.log(
                    now,
                    LogKind::Note,
                    Some(&answer.call.call_id()),
                    format!("{name}: {}", count(value.len(), "hypothesis", "hypotheses")),
                );
                self.findings_in.insert(name.clone(), value);
            }
            ByItem::Unreadable(error) => {
                return match self.repair(answer.clone(), error.to_string()) {
                    Ok(effects) => effects,
                    Err(reason) => self.presents_none(name, &answer.call.call_id(), &reason, now),
                };
            }
        }
        self.awaiting.remove(&name);
        self.conclude_findings_if_complete(now)
    }

    /// A debugger whose findings never came, or never read: logged, and
    /// the round goes on without it.
    pub(super) fn presents_none(
        &mut self,
        name: String,
        call_id: &str,
        reason: &str,
        now: Timestamp,
    ) -> Vec<Effect> {
        self.log(
            now,
            LogKind::Skip,
            Some(call_id),
            format!("{name} presents no hypotheses: {reason}"),
        );
        self.awaiting.remove(&name);
        self.conclude_findings_if_complete(now)
    }

    pub(super) fn conclude_findings_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        if !self.awaiting.is_empty() {
            return Vec::new();
        }
        self.number_findings(now)
    }

    /// Numbers the findings in debugger order, then starts round 1.
    fn number_findings(&mut self, now: Timestamp) -> Vec<Effect> {
        for name in self.config.debuggers.clone() {
            for finding in self.findings_in.remove(&name).unwrap_or_default() {
                let number = self.hypotheses.len() + 1;
                self.push_hypothesis(hypothesis(number, &name, &finding, "round 1 findings"));
            }
        }
        if self.hypotheses.is_empty() {
            return self.finish(now, "no debugger presented a hypothesis".into());
        }
        let flagged: Vec<String> = self
            .hypotheses
            .iter()
            .filter(|h| !h.hedges.is_empty())
            .map(|h| format!("{} ({})", h.id, h.hedges.join(", ")))
            .collect();
        let counted = count(self.hypotheses.len(), "hypothesis", "hypotheses");
        let message = format!("{counted}: {}", self.listed());
        self.log(now, LogKind::Note, None, message);
        if !flagged.is_empty() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("hedge words flagged: {}", flagged.join("; ")),
            );
        }
        self.start_challenge(now)
    }
}
