//! Stages 1 and 2 of a decision review (DR-01..): the proposer's thesis
//! tree, with a comparative review's blocks tagged by the option each
//! argues (DR-52), and the critic's critique, whose items go to the
//! moderator. Not responsible for the moderator's decisions on those
//! items: [`super::moderation`] takes them.

use super::model::{CritiqueItem, FlawType, Severity};
use serde_json::json;

use super::model::ThesisTree;
use super::prompts::Template;
use super::{
    Collected, DecisionReview, PROPOSER_ROLE, ReviewMode, Stage, block_ids, moderation_item, parse,
    summarize_items, tree_yaml,
};
use crate::parse::Read;
use crate::protocol::supervision::Slot;
use crate::protocol::{Answer, Effect, LogKind, ModerationItem, Timestamp};

impl DecisionReview {
    pub(super) fn start_proposal(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Stage::Proposal, 1, now);
        let context = json!({
            "topic": self.config.topic,
            "options": self.config.options,
            "context": self.context_json(),
            "mode": self.config.mode.as_str(),
        });
        self.start_single(
            Template::Proposer,
            context,
            Slot::new("proposer", "proposal", 1),
            now,
        )
    }

    pub(super) fn on_proposal(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = &answer.call.call_id();
        let read = parse::read_thesis_tree(answer.output).and_then(|mut read| {
            self.tag_options(&mut read.value, &mut read.notes)?;
            Ok(read)
        });
        match read {
            Ok(Read {
                value: tree,
                notes: normalised,
            }) => {
                self.core.calls.note_readings(now, call_id, &normalised);
                self.push_log(
                    now,
                    LogKind::Note,
                    Some(call_id),
                    format!(
                        "thesis tree with {} blocks: {}",
                        tree.blocks.len(),
                        block_ids(&tree).join(", ")
                    ),
                );
                self.proposal = Some(Collected {
                    call_id: call_id.to_string(),
                    raw: answer.output.to_string(),
                    parsed: tree,
                    normalised,
                    at: now,
                });
                self.start_critique(now)
            }
            Err(error) => self.repair_malformed(answer, error.to_string()),
        }
    }

    /// In a comparative review every block argues one of the options and
    /// every option has a block (DR-52): an `option:` in another case is
    /// read as the option it names (and noted), one naming no option or an
    /// option left without a block makes the answer unusable.
    pub(super) fn tag_options(
        &self,
        tree: &mut ThesisTree,
        notes: &mut Vec<String>,
    ) -> Result<(), parse::ParseError> {
        if self.config.mode != ReviewMode::Comparative {
            return Ok(());
        }
        let ids: Vec<&str> = self.config.options.iter().map(|o| o.id.as_str()).collect();
        let refused = |message: String| parse::ParseError {
            line: None,
            field: None,
            message,
        };
        for block in &mut tree.blocks {
            let Some(given) = block.option.clone() else {
                return Err(refused(format!(
                    "block {} names no option; give each block `option:` with one of {}",
                    block.id,
                    ids.join(", ")
                )));
            };
            let Some(id) = ids.iter().find(|id| id.eq_ignore_ascii_case(given.trim())) else {
                return Err(refused(format!(
                    "block {} argues option \"{}\", which is not one of {}",
                    block.id,
                    crate::text::excerpt(&given),
                    ids.join(", ")
                )));
            };
            if given != *id {
                notes.push(format!("read option {given:?} as {id} ({})", block.id));
                block.option = Some(id.to_string());
            }
        }
        let bare: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| !tree.blocks.iter().any(|b| b.option.as_deref() == Some(*id)))
            .collect();
        if !bare.is_empty() {
            return Err(refused(format!(
                "option{} {} {} no block: argue every option",
                if bare.len() == 1 { "" } else { "s" },
                bare.join(", "),
                if bare.len() == 1 { "has" } else { "have" }
            )));
        }
        Ok(())
    }

    pub(super) fn start_critique(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Stage::Critique, 1, now);
        let mut tree = self
            .proposal
            .as_ref()
            .expect("critique follows the proposal")
            .parsed
            .clone();
        let mut blindfold = self.blindfold();
        super::cover_tree(&mut blindfold, &mut tree);
        self.note_masked(now, "critic", blindfold.into_masked());
        let context = json!({
            "topic": self.config.topic,
            "options": self.config.options,
            "context": self.context_json(),
            "proposal_yaml": tree_yaml(&tree),
            "proposer_label": format!("proposer ({PROPOSER_ROLE})"),
            "critique_mode": self.config.critique_mode.as_str(),
        });
        let template = Template::Critic(self.config.critique_mode);
        self.start_single(template, context, Slot::new("critic", "critique", 1), now)
    }

    /// The findings another debate handed on, as critique items `f1`,
    /// `f2`, … aimed at the tree's first block (the proposal as a whole).
    fn handed_items(&self, tree: &ThesisTree) -> Vec<CritiqueItem> {
        let Some(handed) = &self.config.handed else {
            return Vec::new();
        };
        let Some(first) = tree.blocks.first() else {
            return Vec::new();
        };
        handed
            .findings
            .iter()
            .enumerate()
            .map(|(index, finding)| CritiqueItem {
                id: crate::protocol::handoff::item_id(index),
                target_block: first.id.clone(),
                flaw_type: FlawType::Risk,
                severity: match finding.severity.as_str() {
                    "critical" | "high" => Severity::Major,
                    "medium" => Severity::Minor,
                    "low" | "info" => Severity::Note,
                    // A failure mode, or a finding without a severity.
                    _ => Severity::Major,
                },
                description: finding.description(&handed.from),
                steelman: None,
            })
            .collect()
    }

    pub(super) fn on_critique(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = &answer.call.call_id();
        let tree = self
            .proposal
            .as_ref()
            .expect("critique follows the proposal")
            .parsed
            .clone();
        match parse::read_critique(answer.output, &tree, self.config.critique_mode) {
            Ok(Read {
                value: mut parsed,
                notes: normalised,
            }) => {
                let handed = self.handed_items(&tree);
                if !handed.is_empty() {
                    self.push_log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "{} handed on from the {}: {}",
                            handed.len(),
                            self.config
                                .handed
                                .as_ref()
                                .map_or("", |handed| &handed.from),
                            summarize_items(&handed)
                        ),
                    );
                }
                parsed.items.extend(handed);
                self.core.calls.note_readings(now, call_id, &normalised);
                for dropped in &parsed.dropped {
                    self.push_log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "critique #{} dropped: it targets block `{}`, {}",
                            dropped.index + 1,
                            dropped.target_block,
                            dropped.reason
                        ),
                    );
                }
                let items = parsed.items.clone();
                self.push_log(
                    now,
                    LogKind::Note,
                    Some(call_id),
                    format!(
                        "{} critique items: {}",
                        items.len(),
                        summarize_items(&items)
                    ),
                );
                self.critique_ids = items.iter().map(|item| item.id.clone()).collect();
                self.critique = Some(Collected {
                    call_id: call_id.to_string(),
                    raw: answer.output.to_string(),
                    parsed,
                    normalised,
                    at: now,
                });
                if items.is_empty() {
                    self.push_log(
                        now,
                        LogKind::Moderation,
                        None,
                        "no critique items to moderate".into(),
                    );
                    return self.start_revision(1, Vec::new(), now);
                }
                self.enter(Stage::Moderation, 1, now);
                self.push_log(
                    now,
                    LogKind::Moderation,
                    None,
                    format!(
                        "needs moderator: {} items to accept, reject or defer",
                        items.len()
                    ),
                );
                let items: Vec<ModerationItem> = items.iter().map(moderation_item).collect();
                for item in &items {
                    self.items.push(item.clone(), (), 1);
                }
                vec![Effect::AwaitModeration { items }]
            }
            Err(error) => self.repair_malformed(answer, error.to_string()),
        }
    }
}
