//! A decision review's proposal → revision, block by block, for a report
//! (`quorum report`, issue 30): each block as the proposal had it and as
//! the last revision left it, with every change-log entry that touched it,
//! the critique item or directive it answered and the moderator's ruling;
//! and, for a comparison, the recommendation it hands to the next debate.
//!
//! Not responsible for drawing any of it (the report module).

use std::collections::BTreeSet;

use serde::Serialize;

use super::DecisionReview;
use super::model::{Block, ChangeEntry};
use crate::protocol::ChangedPart;
use crate::protocol::handoff::{Handed, Handoff};
use crate::words::one_line;

/// A value's serde word: `strengthen`, `implementation`.
fn word<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|value| value.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A block as a reader reads it: the claim, then its evidence, trade-offs
/// and risks, each on its own line.
fn block_text(block: &Block) -> String {
    let mut out = block.text.trim().to_string();
    for (label, text) in [
        ("Evidence", &block.evidence),
        ("Trade-offs", &block.tradeoffs),
        ("Risks", &block.risks),
    ] {
        if !text.trim().is_empty() {
            out.push_str(&format!("\n{label}: {}", text.trim()));
        }
    }
    out
}

impl DecisionReview {
    /// Every change-log entry of every revision, with its round, in order.
    pub(super) fn change_entries(&self) -> Vec<(u32, &ChangeEntry)> {
        self.revisions()
            .iter()
            .flat_map(|revision| {
                revision
                    .output
                    .change_log
                    .iter()
                    .map(move |entry| (revision.round, entry))
            })
            .collect()
    }

    /// A comparative review's recommendation, once ranked: what it hands to
    /// an architecture review of that option (`--from DIR`).
    pub(super) fn recommendation_handed_on(&self) -> Option<Handoff> {
        let ranking = self.evaluations.last()?.ranking.as_ref()?;
        let id = ranking.recommendation.as_deref()?;
        let option = self.config.options.iter().find(|option| option.id == id)?;
        Some(Handoff {
            from: "comparative review".into(),
            topic: self.config.topic.clone(),
            dir: String::new(),
            ending: format!("recommends option {id}"),
            handed: Handed::Recommendation {
                question: self.config.topic.clone(),
                option: format!(
                    "option {id}, {}",
                    super::documents::summary::continued(option.text.trim())
                ),
            },
        })
    }

    /// Every block the revisions changed, added or withdrew, in the order
    /// the proposal and then the revisions list them.
    pub(super) fn changed_parts(&self) -> Vec<ChangedPart> {
        let Some(proposal) = self.proposal() else {
            return Vec::new();
        };
        let Some(last) = self.revisions().last() else {
            return Vec::new();
        };
        let before = &proposal.parsed.blocks;
        let after = &last.output.revised_tree.blocks;
        let entries = self.change_entries();
        let mut seen = BTreeSet::new();
        let ids: Vec<&str> = before
            .iter()
            .chain(after)
            .map(|block| block.id.as_str())
            .filter(|id| seen.insert(*id))
            .collect();
        ids.into_iter()
            .filter_map(|id| {
                let was = before.iter().find(|block| block.id == id);
                let is = after.iter().find(|block| block.id == id);
                let causes: Vec<String> = entries
                    .iter()
                    .filter(|(_, entry)| entry.block_id == id)
                    .map(|(round, entry)| self.cause(*round, entry))
                    .collect();
                let (was_text, is_text) = (was.map(block_text), is.map(block_text));
                if was_text == is_text && causes.is_empty() {
                    return None;
                }
                let kind = is.or(was).map(|block| word(&block.block_type));
                Some(ChangedPart {
                    part: match kind {
                        Some(kind) if !kind.is_empty() => format!("{id} ({kind})"),
                        _ => id.to_string(),
                    },
                    before: was_text.unwrap_or_default(),
                    after: is_text.unwrap_or_default(),
                    causes,
                    markdown: false,
                })
            })
            .collect()
    }

    /// One change-log entry as a cause: what it answered (the critique
    /// item and its ruling, or the directive), how, and why.
    fn cause(&self, round: u32, entry: &ChangeEntry) -> String {
        let id = entry.addresses_critique.as_str();
        let answered = match self.critique_items().iter().find(|item| item.id == id) {
            Some(item) => {
                let noting = |note: Option<&str>| {
                    note.map(|note| format!(", noting \"{}\"", one_line(note)))
                        .unwrap_or_default()
                };
                let ruling = match (self.ruling(id), self.resolution(id)) {
                    // A deferred item settled after the verdict is called
                    // what it became, not only what it was.
                    (Some(ruling), Some(settled)) => format!(
                        "the moderator {} it{}, then {} it after the verdict{}",
                        ruling.decision.past_tense(),
                        noting(ruling.note.as_deref()),
                        settled.decision.past_tense(),
                        noting(settled.note.as_deref())
                    ),
                    (Some(ruling), None) => format!(
                        "the moderator {}{}",
                        ruling.decision.past_tense(),
                        noting(ruling.note.as_deref())
                    ),
                    (None, _) => "no ruling".to_string(),
                };
                format!(
                    "{id}, {} ({ruling}): {}",
                    word(&item.severity),
                    one_line(&item.description)
                )
            }
            None => {
                let directive = self
                    .revisions()
                    .iter()
                    .flat_map(|revision| &revision.directives)
                    .find(|directive| directive.id == id);
                match directive {
                    Some(directive) => format!(
                        "{id}, a requirement of the verdict: {}",
                        one_line(&directive.text)
                    ),
                    None => id.to_string(),
                }
            }
        };
        let declined = entry.change_type == super::model::ChangeType::Decline;
        let why = entry
            .rationale
            .as_deref()
            .filter(|why| !why.trim().is_empty())
            .map(|why| match declined {
                true => format!(" — the proposer's reason: {}", one_line(why)),
                false => format!(" — {}", one_line(why)),
            })
            .unwrap_or_default();
        // A decline leaves the block as it was: it answers nothing.
        let verb = if declined {
            "declined, not answering"
        } else {
            "answers"
        };
        format!(
            "round {round}, {}: {verb} {answered}{why}",
            word(&entry.change_type)
        )
    }
}
