//! Did the review pay (issue 55; the section's words and arithmetic are
//! `crate::protocol::payoff`'s): what a plain vote of the judges' first
//! round would have decided, which judge moved in a later round and what
//! came before it, and what the rounds after the first cost.
//!
//! * **A judge's own vote** is the verdict its scores of a round would give
//!   were it the whole panel and binding: the same rules (`verdict`), run
//!   on one judge. A comparison's judge votes for the option its own scores
//!   rank first (`ranking`, likewise on one judge).
//! * **The first round** is evaluation round 1: every judge scores the
//!   revision without seeing another judge's scores, so its votes are
//!   independent. A judge held out for the final revision votes there only
//!   when round 1 is the final one.
//! * **A change** is a judge whose vote in round N+1 differs from its vote
//!   in round N. New evidence preceded it when the revision between the two
//!   rewrote a block behind either vote (a block the judge scored below the
//!   pass mark, or at a dealbreaker, in either round); otherwise the judge
//!   was only asked again (pressure).
//! * **After the vote**: every call of round 2 and later (revisions and
//!   judges).
//!
//! The writing mode decides no verdict and has no section, nor has a
//! review journaled before issue 55 (its files rebuild as they were).

use std::collections::BTreeMap;

use super::model::{Criterion, JudgeConfig, JudgeResult, ThesisTree, Verdict, Weight};
use super::{DecisionReview, EvaluationRound, ReviewMode, judge_slot_role, verdict};
use crate::protocol::Protocol;
use crate::protocol::payoff::{Payoff, PositionChange, Preceded, Spent, Vote};

impl DecisionReview {
    /// The section, once the review has decided (a verdict, or a
    /// comparison's recommendation); none in the writing mode.
    pub(super) fn payoff_section(&self) -> Option<Payoff> {
        let outcome = self.outcome()?;
        if !self.config.weighs_payoff || self.config.mode == ReviewMode::Writing {
            return None;
        }
        let first = self.evaluations.first()?;
        let last = self.evaluations.last()?;
        let comparative = self.config.mode == ReviewMode::Comparative;
        let decided = match outcome {
            crate::protocol::Outcome::Decided { verdict, .. } => verdict.to_string(),
            crate::protocol::Outcome::Completed { .. } if comparative => {
                option_words(last.ranking.as_ref()?.recommendation.as_deref())
            }
            _ => return None,
        };
        let votes = self.votes_of(first);
        let mut changes = Vec::new();
        for pair in self.evaluations.windows(2) {
            changes.extend(self.changes_between(&pair[0], &pair[1]));
        }
        let after_vote = match self.usage() {
            Some(ledger) => Spent::after(ledger, |stage, round| {
                round >= 2 && matches!(stage, "revision" | "evaluation")
            }),
            None => Spent::default(),
        };
        let first_round = match self.evaluations.len() {
            1 => "the judges' scores (one round)".to_string(),
            _ => "the judges' scores of round 1".to_string(),
        };
        Some(Payoff::new(
            first_round,
            votes,
            decided,
            changes,
            after_vote,
        ))
    }

    /// Each scored judge's own vote in `round`, in panel order.
    fn votes_of(&self, round: &EvaluationRound) -> Vec<Vote> {
        self.config
            .panel
            .iter()
            .filter_map(|judge| {
                let (decision, why) = self.own_vote(judge, round)?;
                Some(Vote {
                    voter: judge_slot_role(judge.role),
                    decision,
                    why,
                })
            })
            .collect()
    }

    /// What `judge`'s scores of `round` decide on their own, with why;
    /// none when it gave no usable scores there.
    fn own_vote(&self, judge: &JudgeConfig, round: &EvaluationRound) -> Option<(String, String)> {
        let result = round.judges.get(&judge.role)?.result.clone()?;
        result.scores()?;
        let alone = [JudgeConfig {
            weight: Weight::Binding,
            ..judge.clone()
        }];
        let results = BTreeMap::from([(judge.role, result)]);
        let tree = self.tree_of(round.round)?;
        if self.config.mode == ReviewMode::Comparative {
            let ranked = self.rank_options_by(tree, &alone, &results);
            return Some((
                option_words(ranked.recommendation.as_deref()),
                String::new(),
            ));
        }
        let blocks: Vec<String> = tree.block_ids().map(str::to_string).collect();
        let assessment =
            verdict::derive_verdict(&alone, &results, &blocks, &self.config.thresholds);
        let why = match assessment.verdict {
            Verdict::Adopt => String::new(),
            _ => self
                .marked_down(judge, round)
                .into_iter()
                .take(3)
                .collect::<Vec<_>>()
                .join(", "),
        };
        Some((assessment.verdict.to_string(), why))
    }

    /// The judged tree of evaluation round `round`: the revision of that
    /// round.
    fn tree_of(&self, round: u32) -> Option<&ThesisTree> {
        self.revisions
            .iter()
            .find(|revision| revision.round == round)
            .map(|revision| &revision.output.revised_tree)
    }

    /// `b2 correctness 2`: each score of `judge` in `round` on its own
    /// criteria below the pass mark, or at a dealbreaker.
    fn marked_down(&self, judge: &JudgeConfig, round: &EvaluationRound) -> Vec<String> {
        let Some(scores) = round
            .judges
            .get(&judge.role)
            .and_then(|record| record.result.as_ref())
            .and_then(JudgeResult::scores)
        else {
            return Vec::new();
        };
        let thresholds = &self.config.thresholds;
        scores
            .block_scores
            .iter()
            .filter(|score| judge.criteria.contains(&score.criterion))
            .filter(|score| {
                score.score < thresholds.binding
                    || (score.criterion == Criterion::Risk
                        && score.score <= thresholds.dealbreaker_max)
            })
            .map(|score| {
                format!(
                    "{} {} {}",
                    score.block_id,
                    score.criterion.as_str(),
                    score.score
                )
            })
            .collect()
    }

    /// The judges whose vote moved from `before` to `after`.
    fn changes_between(
        &self,
        before: &EvaluationRound,
        after: &EvaluationRound,
    ) -> Vec<PositionChange> {
        let (Some(old_tree), Some(new_tree)) =
            (self.tree_of(before.round), self.tree_of(after.round))
        else {
            return Vec::new();
        };
        self.config
            .panel
            .iter()
            .filter_map(|judge| {
                let (from, _) = self.own_vote(judge, before)?;
                let (to, _) = self.own_vote(judge, after)?;
                (from != to).then(|| {
                    let behind: Vec<String> = self
                        .marked_down(judge, before)
                        .into_iter()
                        .chain(self.marked_down(judge, after))
                        .filter_map(|mark| mark.split(' ').next().map(str::to_string))
                        .collect();
                    let (preceded_by, why) = rewritten(&behind, old_tree, new_tree);
                    PositionChange {
                        who: judge_slot_role(judge.role),
                        on: "the verdict".into(),
                        from,
                        to,
                        when: format!("round {}", after.round),
                        preceded_by,
                        why,
                    }
                })
            })
            .collect()
    }
}

/// Whether the revision from `old` to `new` rewrote one of the blocks
/// `behind` a vote, and what it did, in words.
fn rewritten(behind: &[String], old: &ThesisTree, new: &ThesisTree) -> (Preceded, String) {
    let mut ids: Vec<&str> = behind.iter().map(String::as_str).collect();
    ids.sort_unstable();
    ids.dedup();
    let changed: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| old.block(id) != new.block(id))
        .collect();
    match (changed.is_empty(), ids.is_empty()) {
        (false, _) => (
            Preceded::Evidence,
            format!(
                "the revision rewrote {}, where its scores were below the pass mark",
                changed.join(", ")
            ),
        ),
        (true, false) => (
            Preceded::Pressure,
            format!(
                "asked again with {} unchanged, where its scores were below the pass mark",
                ids.join(", ")
            ),
        ),
        (true, true) => (
            Preceded::Pressure,
            "asked again; no score of a block moved it, only its overall scores or its doubts"
                .into(),
        ),
    }
}

/// `option A`, or `no option` when none could be recommended.
fn option_words(option: Option<&str>) -> String {
    match option {
        Some(option) => format!("option {option}"),
        None => "no option".into(),
    }
}
