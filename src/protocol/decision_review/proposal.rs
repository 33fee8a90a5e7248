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
    Collected, DecisionReview, PROPOSER_ROLE, ReviewMode, Role, Stage, block_ids, moderation_item,
    parse, summarize_items, tree_yaml,
};
use crate::parse::{Read, Slip};
use crate::protocol::ByItem;
use crate::protocol::reading::slip_name;
use crate::protocol::{Answer, Effect, LogKind, ModerationItem, SharedSteps, Timestamp};

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
            self.core.slot(&Role::Proposer),
            now,
        )
    }

    pub(super) fn on_proposal(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = &answer.call.call_id();
        let options = self.comparative_options();
        let read = |text: &str| {
            parse::read_thesis_tree(text).map(|mut read| {
                tag_options(options.as_deref(), &mut read);
                read
            })
        };
        let reading = match self
            .core
            .read_by_item(&answer, read, |tree| tree.blocks.len())
        {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => return self.repair_malformed(answer, error.to_string()),
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let Read {
            value: tree,
            notes: normalised,
            slips,
        } = reading.read;
        if tree.blocks.is_empty() {
            // Not one block could be read, even after the repair: there is
            // nothing to critique (A18: no verdict is made up).
            let reason = format!(
                "the proposer's thesis tree has no block quorum could read ({})",
                slips
                    .first()
                    .map_or_else(String::new, |slip| slip.to_string())
            );
            return self.fail(now, reason);
        }
        self.core.calls.note_readings(now, call_id, &normalised);
        let comparative = self.config.mode == ReviewMode::Comparative;
        self.core.leave_out(
            &answer.call,
            now,
            &slips,
            proposal_part,
            |slip| {
                if comparative && slip.id.as_deref().is_some_and(|id| id.starts_with("option ")) {
                    "no block argues it, so the judges score nothing of it and it ranks without scores".to_string()
                } else {
                    "the proposal goes on without it: nobody critiques, revises or scores it".to_string()
                }
            },
        );
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
            raw,
            parsed: tree,
            normalised,
            at: now,
        });
        self.start_critique(now)
    }

    /// The option ids of a comparative review, which every block argues
    /// ([`tag_options`]); `None` in another mode.
    pub(super) fn comparative_options(&self) -> Option<Vec<String>> {
        (self.config.mode == ReviewMode::Comparative)
            .then(|| self.config.options.iter().map(|o| o.id.clone()).collect())
    }

    pub(super) fn start_critique(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Stage::Critique, 1, now);
        let mut tree = self
            .proposal
            .as_ref()
            .expect("critique follows the proposal")
            .parsed
            .clone();
        self.file_blocks(&tree, "proposal");
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
        self.start_single(template, context, self.core.slot(&Role::Critic), now)
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
        let mode = self.config.critique_mode;
        let read = |text: &str| parse::read_critique(text, &tree, mode);
        let reading = match self
            .core
            .read_by_item(&answer, read, |parsed| parsed.items.len())
        {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => return self.repair_malformed(answer, error.to_string()),
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let Read {
            value: mut parsed,
            notes: normalised,
            slips,
        } = reading.read;
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
        self.core.leave_out(
            &answer.call,
            now,
            &slips,
            |slip| format!("critique item {}", slip_name(slip)),
            |_| "it was not put to the moderator, and the revision need not answer it".to_string(),
        );
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
            raw,
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
}

/// How a part of a proposal left out is named: `block b3`, `option B`.
fn proposal_part(slip: &Slip) -> String {
    match &slip.id {
        Some(id) if id.starts_with("option ") => id.clone(),
        Some(id) => format!("block {id}"),
        None => format!("block {}", slip_name(slip)),
    }
}

/// In a comparative review (`options` given) every block argues one of the
/// options and every option has a block (DR-52): an `option:` in another
/// case is read as the option it names (and noted); a block naming no
/// option, or one that is not an option, is left out as a slip, and so is
/// an option left without a block (named `option B`), the rest of the tree
/// read (issue 59).
pub(super) fn tag_options(options: Option<&[String]>, read: &mut Read<ThesisTree>) {
    let Some(ids) = options else {
        return;
    };
    let Read {
        value: tree,
        notes,
        slips,
    } = read;
    let refused = |message: String| parse::ParseError {
        line: None,
        field: None,
        message,
    };
    tree.blocks.retain_mut(|block| {
        let Some(given) = block.option.clone() else {
            slips.push(Slip::of(
                block.id.clone(),
                refused(format!(
                    "block {} names no option; give each block `option:` with one of {}",
                    block.id,
                    ids.join(", ")
                )),
            ));
            return false;
        };
        let Some(id) = ids.iter().find(|id| id.eq_ignore_ascii_case(given.trim())) else {
            slips.push(Slip::of(
                block.id.clone(),
                refused(format!(
                    "block {} argues option \"{}\", which is not one of {}",
                    block.id,
                    crate::text::excerpt(&given),
                    ids.join(", ")
                )),
            ));
            return false;
        };
        if given != *id {
            notes.push(format!("read option {given:?} as {id} ({})", block.id));
            block.option = Some(id.clone());
        }
        true
    });
    for id in ids {
        if !tree
            .blocks
            .iter()
            .any(|b| b.option.as_deref() == Some(id.as_str()))
        {
            slips.push(Slip::of(
                format!("option {id}"),
                refused(format!("option {id} has no block: argue every option")),
            ));
        }
    }
}
