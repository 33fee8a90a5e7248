//! The moderator's triage of a red team's findings: the findings offered
//! as items, each decision and the submission, what stands afterwards
//! (confirmed, unconfirmed, set aside) as the synthesis and the checks
//! read it, and the inputs that are the quick modes' own.
//!
//! Not responsible for reading the findings out of the critic's answer
//! (`steps`, `parse`), nor for checking a report against the rulings
//! (`binding`).

use super::parse::Vulnerability;
use super::{Quick, Step};
use crate::protocol::Stage as _;
use crate::protocol::items::tally;
use crate::protocol::{
    Effect, ItemDecision, LogKind, Moderation, ModerationItem, Settled, Timestamp,
};
use crate::rulings::{self, Ruled};

impl Quick {
    pub(super) fn start_moderation(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Moderation, now);
        self.log(
            now,
            LogKind::Moderation,
            None,
            format!(
                "needs moderator: {} findings to accept, reject or defer",
                self.vulnerabilities.len()
            ),
        );
        for finding in &self.vulnerabilities {
            self.book
                .push(moderation_item(finding), finding.id.clone(), 1);
        }
        vec![Effect::AwaitModeration {
            items: self.book.pending_items(),
        }]
    }
    /// The red team's findings that stand after triage, most severe first:
    /// accepted ones as `confirmed`, deferred ones as `unconfirmed`, with
    /// the moderator's note. Findings never triaged (no moderator was
    /// asked) stand as reported.
    pub fn standing_findings(&self) -> Vec<(&Vulnerability, &'static str, Option<String>)> {
        let rulings = self.rulings();
        let mut standing: Vec<_> = self
            .vulnerabilities
            .iter()
            .filter_map(|finding| match rulings.get(finding.id.as_str()) {
                Some(ruling) if ruling.decision == ItemDecision::Reject => None,
                Some(ruling) => Some((
                    finding,
                    if ruling.decision == ItemDecision::Accept {
                        "confirmed"
                    } else {
                        "unconfirmed"
                    },
                    ruling.note.clone(),
                )),
                None => Some((finding, "as reported", None)),
            })
            .collect();
        standing.sort_by_key(|(finding, _, _)| finding.severity);
        standing
    }

    /// The moderator's rulings on the red team's findings, in the order the
    /// critic listed them, as the synthesizer's prompt carries them.
    pub fn shared_rulings(&self) -> Vec<rulings::Ruling> {
        let decided = self.rulings();
        self.vulnerabilities
            .iter()
            .filter_map(|finding| {
                let ruling = decided.get(finding.id.as_str())?;
                Some(rulings::Ruling::new(
                    finding.id.as_str(),
                    ruled(ruling.decision),
                    ruling.note.as_deref(),
                ))
            })
            .collect()
    }

    /// Each ruled finding's id, title and ruling, to check a report against
    /// (none for a debate journaled before the check).
    pub(super) fn ruled_findings(&self) -> Vec<(String, String, Ruled)> {
        if !self.config.checks_rulings {
            return Vec::new();
        }
        let decided = self.rulings();
        self.vulnerabilities
            .iter()
            .filter_map(|finding| {
                let ruling = decided.get(finding.id.as_str())?;
                Some((
                    finding.id.clone(),
                    finding.title.clone(),
                    ruled(ruling.decision),
                ))
            })
            .collect()
    }

    /// The findings the moderator rejected, with their notes.
    pub fn set_aside(&self) -> Vec<(&Vulnerability, Option<String>)> {
        let decided = self.rulings();
        self.vulnerabilities
            .iter()
            .filter_map(|finding| {
                let ruling = decided.get(finding.id.as_str())?;
                (ruling.decision == ItemDecision::Reject).then(|| (finding, ruling.note.clone()))
            })
            .collect()
    }
}

/// A moderator's decision as the agent acting on it reads it.
fn ruled(decision: ItemDecision) -> Ruled {
    decision.into()
}

/// A red team's finding as the moderator sees it: no target (the whole
/// target is under attack), its title leading the text.
fn moderation_item(finding: &Vulnerability) -> ModerationItem {
    let mut text = finding.title.clone();
    if !finding.description.is_empty() {
        text.push_str(&format!("\n\n{}", finding.description));
    }
    text.push_str(&format!("\n\nExploit: {}", finding.exploit));
    ModerationItem {
        id: finding.id.clone(),
        target: String::new(),
        severity: finding.severity.as_str().to_string(),
        category: "weakness".to_string(),
        text,
        ..Default::default()
    }
}

impl crate::protocol::ItemRules for Quick {
    type Subject = String;

    fn moderation(&mut self) -> Moderation<'_, String> {
        Moderation::new(
            &mut self.book,
            &mut self.core.calls,
            self.core.stage.moderates(),
        )
    }

    fn decided_verb(_subject: &String, decision: ItemDecision) -> &'static str {
        decision.choose("confirmed", "set aside", "left open")
    }

    fn items_settled(&mut self, decided: Vec<Settled<String>>, now: Timestamp) -> Vec<Effect> {
        let [accepted, rejected, deferred] = tally(&decided);
        let message = format!(
            "triage submitted: {accepted} accepted, {rejected} rejected, {deferred} deferred"
        );
        self.log(now, LogKind::Moderation, None, message);
        self.start_synthesis(now)
    }
}
