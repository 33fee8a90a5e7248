//! What the interfaces show of a decision review: its board (stage strip,
//! items and rulings), and the scoreboard of the latest evaluation round, each judge's scores by block
//! (or by option in a comparison) with the verdict or ranking they imply so
//! far. Not responsible for deciding anything: the verdict and the ranking
//! are derived in [`super::evaluation`].

use crate::protocol::fairness::agreement::Agreement;

use super::model::{ItemDecision, JudgeResult};
use super::{DecisionReview, ReviewMode, Stage, block_ids, moderation_item, verdict};
use crate::protocol::{
    Board, BoardItem, BoardView, ImpliedVerdict, JudgeState, ModerationItem, ScoreColumn,
    Scoreboard, StageInfo,
};

impl DecisionReview {
    /// The proposal's block `id` as the moderator reads it beside an item
    /// that attacks it: its keys as YAML; empty when there is no such block.
    fn block_entry(&self, id: &str) -> String {
        let proposal = self.proposal.as_ref();
        let block = proposal.and_then(|proposal| {
            let blocks = &proposal.parsed.blocks;
            blocks.iter().find(|block| block.id == id)
        });
        block
            .and_then(|block| yaml_serde::to_string(block).ok())
            .unwrap_or_default()
    }

    /// What the interfaces show now: the stage strip, the scoreboard, every
    /// critique item with its ruling, and what the moderator may do.
    pub(super) fn board_now(&self) -> Board {
        let items = self
            .critique_items()
            .iter()
            .map(|item| {
                let ruling = self.ruling(&item.id);
                BoardItem {
                    item: ModerationItem {
                        target_text: self.block_entry(&item.target_block),
                        ..moderation_item(item)
                    },
                    decision: ruling.as_ref().map(|ruling| ruling.decision),
                    ruler: ruling.as_ref().and_then(|ruling| ruling.ruler),
                    note: ruling.and_then(|ruling| ruling.note),
                    resolution: self.resolution(&item.id).cloned(),
                    evidence: Vec::new(),
                }
            })
            .collect();
        Board {
            stages: stages(),
            view: self.scoreboard().map_or(BoardView::None, BoardView::Scores),
            items,
            needs_moderator: self.core.stage == Stage::Moderation
                || self.evaluations.last().is_some_and(|round| round.held),
            held_calls: self
                .evaluations
                .last()
                .filter(|round| round.held)
                .map(|round| {
                    round
                        .judges
                        .values()
                        .filter(|record| {
                            matches!(
                                record.result,
                                Some(JudgeResult::Malformed { .. } | JudgeResult::Skipped { .. })
                            )
                        })
                        .filter_map(|record| record.call_id.clone())
                        .collect()
                })
                .unwrap_or_default(),
            required_roles: vec!["proposer".into(), "critic".into()],
            resolvable: self.has_verdict()
                && self
                    .items_decided(ItemDecision::Defer)
                    .iter()
                    .any(|item| self.addressed_in_round(&item.id).is_none()),
            reopen_pending: crate::protocol::Questions::reopen_pending(self),
            agreement: self
                .evaluations
                .last()
                .and_then(|round| round.agreement.as_ref())
                .map(|agreement| format!("The panel: {}", agreement.summary())),
            ..Board::default()
        }
    }

    /// The scoreboard of the latest evaluation round.
    pub(super) fn scoreboard(&self) -> Option<Scoreboard> {
        let evaluation = self.evaluations.last()?;
        let tree = self.current_tree()?;
        let comparative = self.config.mode == ReviewMode::Comparative;
        // A comparison's rows are its options, each the blocks arguing it.
        let rows: Vec<(String, Vec<String>)> = if comparative {
            self.config
                .options
                .iter()
                .map(|option| {
                    let blocks = tree
                        .blocks
                        .iter()
                        .filter(|block| block.option.as_deref() == Some(option.id.as_str()))
                        .map(|block| block.id.clone())
                        .collect();
                    (option.id.clone(), blocks)
                })
                .collect()
        } else {
            block_ids(tree)
                .into_iter()
                .map(|block| (block.clone(), vec![block]))
                .collect()
        };
        let blocks = block_ids(tree);
        let judges = self
            .config
            .panel
            .iter()
            .map(|judge| {
                let record = evaluation.judges.get(&judge.role);
                let result = record.and_then(|record| record.result.as_ref());
                let held_out = record.is_none()
                    && self
                        .config
                        .fairness
                        .holds_out(&super::judge_slot_role(judge.role));
                let state = match result {
                    None if held_out => JudgeState::HeldOut,
                    None => JudgeState::Pending,
                    Some(JudgeResult::Scored(_)) => JudgeState::Scored,
                    Some(JudgeResult::Malformed { reason }) => {
                        JudgeState::Malformed(reason.clone())
                    }
                    Some(JudgeResult::Skipped { reason }) => JudgeState::Skipped(reason.clone()),
                    Some(JudgeResult::Recused { reason }) => JudgeState::Recused(reason.clone()),
                };
                let scored = result.and_then(JudgeResult::scores);
                let scores = rows
                    .iter()
                    .map(|(_, row_blocks)| {
                        judge
                            .criteria
                            .iter()
                            .map(|criterion| {
                                let given: Vec<u8> = scored
                                    .map(|scores| {
                                        scores
                                            .block_scores
                                            .iter()
                                            .filter(|s| {
                                                row_blocks.contains(&s.block_id)
                                                    && s.criterion == *criterion
                                            })
                                            .map(|s| s.score)
                                            .collect()
                                    })
                                    .unwrap_or_default();
                                let sum: u32 = given.iter().map(|&v| u32::from(v)).sum();
                                // One block's score, or the rounded mean of an option's.
                                (!given.is_empty())
                                    .then(|| ((f64::from(sum) / given.len() as f64).round()) as u8)
                            })
                            .collect()
                    })
                    .collect();
                ScoreColumn {
                    judge: judge.role.as_str().to_string(),
                    binding: judge.is_binding(),
                    criteria: judge
                        .criteria
                        .iter()
                        .map(|c| c.as_str().to_string())
                        .collect(),
                    state,
                    scores,
                    synthesis: scored.map(|scores| {
                        let values = scores.synthesis.values();
                        values.iter().map(|v| f64::from(*v)).sum::<f64>() / values.len() as f64
                    }),
                    kin: record
                        .and_then(|record| record.kinship.as_ref())
                        .filter(|kin| !kin.recused())
                        .map(|kin| kin.describe()),
                }
            })
            .collect::<Vec<_>>();
        let pending = judges
            .iter()
            .filter(|column| column.state == JudgeState::Pending)
            .count();
        let leader = comparative.then(|| {
            let ranked = evaluation
                .ranking
                .clone()
                .unwrap_or_else(|| self.rank_options(tree, &evaluation.results()));
            let order: Vec<&str> = ranked.ranking.iter().map(|o| o.option.as_str()).collect();
            let so_far = if pending > 0 {
                format!(
                    "so far ({pending} judge{} pending): ",
                    if pending == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            };
            format!(
                "{so_far}{} · {}",
                order.join(" > "),
                ranked.conditional_recommendation
            )
        });
        let implied = match &evaluation.assessment {
            _ if comparative => None,
            Some(assessment) => Some(ImpliedVerdict {
                verdict: assessment.verdict,
                rule: assessment.rule.clone(),
                pending: 0,
            }),
            None if pending < judges.len() => {
                let assessment = verdict::derive_verdict(
                    &self.deciding_panel(evaluation),
                    &evaluation.results(),
                    &blocks,
                    &self.config.thresholds,
                );
                Some(ImpliedVerdict {
                    verdict: assessment.verdict,
                    rule: assessment.rule,
                    pending,
                })
            }
            None => None,
        };
        Some(Scoreboard {
            round: evaluation.round,
            blocks: rows.into_iter().map(|(label, _)| label).collect(),
            judges,
            binding_threshold: self.config.thresholds.binding,
            implied,
            leader,
            fairness: self.config.fairness.describe(),
            agreement: evaluation.agreement.as_ref().map(Agreement::summary),
        })
    }
}

/// The stage strip of a decision review (DR-01), the moderator's turn and
/// the verdict included.
pub(super) fn stages() -> Vec<StageInfo> {
    <Stage as crate::protocol::Stage>::EVERY
        .iter()
        .copied()
        .map(crate::protocol::Stage::info)
        .collect()
}
