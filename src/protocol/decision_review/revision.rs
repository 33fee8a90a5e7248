//! Stage 3 of a decision review: the proposer revises the tree, answering
//! the accepted items (round 1), a REVISE verdict's directives (DR-39) or
//! the items accepted after a verdict (a reopened round), and the check
//! that the revision's change log keeps to the moderator's rulings, asked
//! once more when it does not (issue 26). Not responsible for the rulings
//! themselves: [`super::moderation`] records them.

use std::collections::HashSet;

use serde_json::json;

use super::model::{ChangeType, CritiqueItem, ItemDecision, RevisionOutput};
use super::prompts::Template;
use super::{DecisionReview, RevisionRound, Role, Stage, change_verb, parse, tree_yaml};
use crate::parse::{Read, Slip};
use crate::protocol::fairness::Blindfold;
use crate::protocol::reading::slip_name;
use crate::protocol::{Answer, ByItem, Effect, LogKind, SharedSteps, Timestamp};

impl DecisionReview {
    /// Every decided critique item as the agent acting on the rulings reads
    /// it, in critique order: an accepted item a revision answered says so,
    /// and one it declined says that, with the proposer's reason (DR-15).
    pub fn standing_rulings(&self) -> Vec<crate::rulings::Ruling> {
        self.critique_items()
            .iter()
            .filter_map(|item| {
                let ruled = crate::rulings::Ruled::from(self.standing_decision(&item.id)?);
                let ruling = crate::rulings::Ruling::new(
                    item.id.clone(),
                    ruled,
                    self.standing_note(&item.id).as_deref(),
                );
                if ruled != crate::rulings::Ruled::Accepted {
                    return Some(ruling);
                }
                // A decline is said as one, with its reason: never "answered".
                Some(match self.answer_to(&item.id) {
                    Some(super::ItemAnswer::Changed { round }) => ruling.answered_in(round),
                    Some(super::ItemAnswer::Declined { round, reason }) => {
                        ruling.declined_in(round, reason)
                    }
                    None => ruling,
                })
            })
            .collect()
    }

    /// Where a revision's change log goes against the rulings, one sentence
    /// each: a change made for an item the moderator rejected, or for one
    /// they left open. Declining to change is always allowed.
    pub fn against_rulings(&self, revision: &RevisionOutput) -> Vec<String> {
        revision
            .change_log
            .iter()
            .filter(|entry| entry.change_type != ChangeType::Decline)
            .filter_map(|entry| {
                let id = &entry.addresses_critique;
                let why = match self.standing_decision(id)? {
                    ItemDecision::Accept => return None,
                    ItemDecision::Reject => "which the moderator rejected",
                    ItemDecision::Defer => "which the moderator left open (deferred)",
                };
                Some(format!(
                    "the revision {} {} for {id}, {why}",
                    change_verb(entry.change_type),
                    entry.block_id
                ))
            })
            .collect()
    }

    /// An item as the reviser reads it; the note is the latest word on it:
    /// the resolution's note after a verdict, else the moderation note.
    fn item_json(&self, item: &CritiqueItem, blindfold: &mut Blindfold) -> serde_json::Value {
        let mut description = item.description.clone();
        blindfold.cover(&mut description);
        let note = self
            .resolution(&item.id)
            .and_then(|resolution| resolution.note.clone())
            .or_else(|| self.ruling(&item.id).and_then(|ruling| ruling.note));
        json!({
            "id": item.id,
            "target_block": item.target_block,
            "flaw_type": item.flaw_type,
            "severity": item.severity,
            "description": description,
            "note": note.unwrap_or_default(),
        })
    }

    /// Starts revision `round`. Round 1 must address the accepted items;
    /// later rounds the directives of the REVISE verdict (DR-39), and a
    /// reopened round the items accepted after the verdict. The critique
    /// items among `must_address` are shown to the reviser in full.
    pub(super) fn start_revision(
        &mut self,
        round: u32,
        must_address: Vec<String>,
        now: Timestamp,
    ) -> Vec<Effect> {
        self.enter(Stage::Revision, round, now);
        let tree = self
            .current_tree()
            .expect("a revision follows a tree")
            .clone();
        let directives = self.pending_directives.clone();
        let must: HashSet<&str> = must_address.iter().map(String::as_str).collect();
        let to_answer: Vec<&CritiqueItem> = self
            .critique_items()
            .iter()
            .filter(|item| must.contains(item.id.as_str()))
            .collect();
        let reopened = to_answer
            .iter()
            .any(|item| self.resolution(&item.id).is_some());
        // The critic's words as the reviser reads them (fair judging).
        let mut blindfold = self.blindfold();
        let accepted: Vec<_> = to_answer
            .into_iter()
            .map(|item| self.item_json(item, &mut blindfold))
            .collect();
        let deferred: Vec<_> = self
            .open_deferred_items()
            .into_iter()
            .map(|item| self.item_json(item, &mut blindfold))
            .collect();
        let rejected: Vec<_> = self
            .critique_items()
            .iter()
            .filter(|item| self.standing_decision(&item.id) == Some(ItemDecision::Reject))
            .map(|item| self.item_json(item, &mut blindfold))
            .collect();
        self.note_masked(now, "reviser", blindfold.into_masked());
        let context = json!({
            "topic": self.config.topic,
            "options": self.config.options,
            "context": self.context_json(),
            "round": round,
            "reopened": reopened,
            "tree_yaml": tree_yaml(&tree),
            "accepted": accepted,
            "deferred": deferred,
            "rejected": rejected,
            "rulings": crate::rulings::section(&self.standing_rulings()),
            "directives": directives,
            "sent_back_by": std::mem::take(&mut self.pending_sent_back_by),
            "advisory_notes": std::mem::take(&mut self.pending_advisory),
            "must_address": must_address,
        });
        self.pending_must_address = must_address;
        self.start_single(
            Template::Reviser,
            context,
            self.core.slot(&Role::Proposer),
            now,
        )
    }

    pub(super) fn on_revision(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = &answer.call.call_id();
        let must_address = self.pending_must_address.clone();
        let options = self.comparative_options();
        let read = |text: &str| {
            parse::read_revision(text, &must_address).map(|read| {
                let Read {
                    value: revision,
                    notes,
                    slips,
                } = read;
                let mut tree = Read {
                    value: revision.revised_tree,
                    notes,
                    slips,
                };
                super::proposal::tag_options(options.as_deref(), &mut tree);
                Read {
                    value: RevisionOutput {
                        revised_tree: tree.value,
                        change_log: revision.change_log,
                    },
                    notes: tree.notes,
                    slips: tree.slips,
                }
            })
        };
        let count = |revision: &RevisionOutput| {
            revision.revised_tree.blocks.len() + revision.change_log.len()
        };
        let reading = match self.core.read_by_item(&answer, read, count) {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => return self.repair_malformed(answer, error.to_string()),
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let Read {
            value: revision,
            notes: normalised,
            slips,
        } = reading.read;
        if revision.revised_tree.blocks.is_empty() {
            let reason = format!(
                "the proposer's revised tree in round {} has no block quorum could read",
                answer.call.slot.round
            );
            return self.fail(now, reason);
        }
        let against = if self.config.checks_rulings {
            self.against_rulings(&revision)
        } else {
            Vec::new()
        };
        if !against.is_empty() {
            if let Some(spec) = self.core.recheck(answer.clone(), &against) {
                self.push_log(
                    now,
                    LogKind::Note,
                    Some(call_id),
                    format!(
                        "revision round {} goes against your rulings: {}",
                        answer.call.slot.round,
                        against.join("; ")
                    ),
                );
                return vec![Effect::StartCall(spec)];
            }
            self.push_log(
                now,
                LogKind::Note,
                Some(call_id),
                format!(
                    "revision round {} still goes against your rulings after being asked again: {}",
                    answer.call.slot.round,
                    against.join("; ")
                ),
            );
        }
        self.core.calls.note_readings(now, call_id, &normalised);
        self.core
            .leave_out(&answer.call, now, &slips, revision_part, revision_effect);
        self.push_log(
            now,
            LogKind::Note,
            Some(call_id),
            format!(
                "revision round {}: {}, {} in the revised tree",
                answer.call.slot.round,
                crate::words::counted(revision.change_log.len(), "change", "changes"),
                crate::words::counted(revision.revised_tree.blocks.len(), "block", "blocks")
            ),
        );
        for id in &must_address {
            if revision
                .change_log
                .iter()
                .any(|entry| entry.addresses_critique == *id)
            {
                self.addressed
                    .entry(id.clone())
                    .or_insert(answer.call.slot.round);
            }
        }
        self.revisions.push(RevisionRound {
            round: answer.call.slot.round,
            call_id: call_id.to_string(),
            raw,
            output: revision,
            must_address,
            directives: std::mem::take(&mut self.pending_directives),
            normalised,
            against_rulings: against,
            at: now,
        });
        self.start_evaluation(answer.call.slot.round, now)
    }
}

/// How a part of a revision left out is named: `the answer to c3` (an id
/// the revision had to address), a block, or a change-log entry.
fn revision_part(slip: &Slip) -> String {
    let field = slip.error.field.as_deref().unwrap_or_default();
    match &slip.id {
        Some(id) if field.starts_with("change_log") && !field.contains('[') => {
            format!("answer to {id}")
        }
        Some(id) if id.starts_with("option ") => id.clone(),
        Some(id) => format!("block {id}"),
        None if field.starts_with("change_log") => format!("change-log entry {}", slip_name(slip)),
        None => format!("revised block {}", slip_name(slip)),
    }
}

/// What leaving a part of a revision out changed.
fn revision_effect(slip: &Slip) -> String {
    let field = slip.error.field.as_deref().unwrap_or_default();
    if field.starts_with("change_log") && !field.contains('[') {
        "the revision does not answer it; the judges see that it is unanswered".to_string()
    } else if field.starts_with("change_log") {
        "the change it records is not credited to any critique item".to_string()
    } else {
        "the revised tree goes on without it: the judges do not score it".to_string()
    }
}
