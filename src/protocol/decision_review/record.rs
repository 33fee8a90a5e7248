//! The decision record of a finished decision review (DR-50, RULES.md A13):
//! quorum's own synthesis step, derived from the record rather than asked of
//! an agent, so it can never disagree with the mechanical verdict.
//!
//! How each field is derived:
//! - `decision` is the mechanical verdict of the last round.
//! - `recommendation` follows from the verdict: go ahead with the revised
//!   claim, rework the directives, stop on the dealbreaker, or gather the data
//!   the panel lacked.
//! - `strongest_objection` is the critique item that was hardest to answer:
//!   among accepted items (all items if none was accepted), the most severe,
//!   then the one whose block scored lowest in the final round.
//! - `what_changed` says, item by item, where the moderator's ruling left it
//!   and what the revisions did about it (a change against a ruling is
//!   called that, and an accepted item the proposer only declined is said
//!   to be declined, with its reason, never answered), then the changes
//!   made for the verdict's requirements.
//! - `remaining_uncertainty` gathers the deferred items nobody has settled,
//!   those accepted after the verdict that no revision has answered yet, the
//!   uncertainty the verdict found, and the judges that gave no usable output.
//! - `reversal_trigger` is the risk statement (with its detection signal) of
//!   the block the strongest objection targeted, else of the main claim.
//! - `surviving_blocks` are the blocks whose binding scores all pass.

use std::collections::BTreeMap;

use crate::protocol::decision_review::model::{
    ChangeEntry, ChangeType, CritiqueItem, ItemDecision, JudgeResult, ThesisTree, Verdict,
};
use crate::protocol::decision_review::verdict::{self, Assessment};

use super::{DecisionRecord, DecisionReview, EvaluationRound, block_ids, change_verb};

pub(super) fn derive(
    review: &DecisionReview,
    evaluation: &EvaluationRound,
    assessment: &Assessment,
    tree: &ThesisTree,
) -> DecisionRecord {
    let results = evaluation.results();
    let block_means = block_means(&results);
    let objection = strongest_objection(review, &block_means);
    let surviving = verdict::surviving_blocks(
        &review.config().panel,
        &results,
        &block_ids(tree),
        &review.config().thresholds,
    );
    DecisionRecord {
        decision: assessment.verdict,
        recommendation: recommendation(assessment, tree, &results),
        strongest_objection: match objection {
            Some(item) => item.description.clone(),
            None => "The critic raised no objection that survived parsing.".to_string(),
        },
        what_changed: what_changed(review),
        remaining_uncertainty: remaining_uncertainty(review, assessment),
        reversal_trigger: reversal_trigger(tree, objection),
        surviving_blocks: surviving,
        deciding_rule: assessment.rule.clone(),
    }
}

/// The main claim of a tree: its first `claim` block, else its first block.
pub fn main_claim(tree: &ThesisTree) -> Option<&crate::protocol::decision_review::model::Block> {
    tree.blocks
        .iter()
        .find(|block| block.block_type == crate::protocol::decision_review::model::BlockType::Claim)
        .or_else(|| tree.blocks.first())
}

fn recommendation(
    assessment: &Assessment,
    tree: &ThesisTree,
    results: &BTreeMap<crate::protocol::decision_review::model::JudgeRole, JudgeResult>,
) -> String {
    let claim = main_claim(tree)
        .map(|block| block.text.trim().to_string())
        .unwrap_or_else(|| "the revised proposal".to_string());
    match assessment.verdict {
        Verdict::Adopt => format!("Go ahead with the revised proposal: {claim}"),
        Verdict::Revise => {
            let work: Vec<_> = assessment
                .directives
                .iter()
                .map(|directive| directive.text.trim().trim_end_matches('.').to_string())
                .collect();
            if work.is_empty() {
                "Do not proceed yet: rework the proposal where it fell short, then review it again."
                    .to_string()
            } else {
                format!(
                    "Do not proceed yet. Rework the proposal first: {}.",
                    work.join("; ")
                )
            }
        }
        Verdict::Reject => {
            let dealbreaker = results
                .values()
                .filter_map(JudgeResult::scores)
                .flat_map(|scores| scores.block_scores.iter())
                .filter(|score| score.criterion == crate::protocol::decision_review::model::Criterion::Risk)
                .min_by_key(|score| score.score)
                .map(|score| score.rationale.trim().to_string());
            match dealbreaker {
                Some(reason) => format!(
                    "Do not proceed; look for another approach. The proposal carries a risk with no acceptable answer: {reason}"
                ),
                None => "Do not proceed; look for another approach.".to_string(),
            }
        }
        Verdict::Escalate => {
            "Do not decide yet: gather the missing information, or get the missing assessments, and run the review again."
                .to_string()
        }
        Verdict::Pass
        | Verdict::Concerns
        | Verdict::Fail
        | Verdict::Proven
        | Verdict::Unproven => {
            unreachable!("a decision review derives only ADOPT, REVISE, REJECT or ESCALATE")
        }
    }
}

/// Mean score of each block over every valid score in the round.
fn block_means(
    results: &BTreeMap<crate::protocol::decision_review::model::JudgeRole, JudgeResult>,
) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for scores in results.values().filter_map(JudgeResult::scores) {
        for score in &scores.block_scores {
            let entry = sums.entry(score.block_id.clone()).or_default();
            entry.0 += f64::from(score.score);
            entry.1 += 1.0;
        }
    }
    sums.into_iter()
        .map(|(block, (sum, count))| (block, sum / count))
        .collect()
}

fn strongest_objection<'a>(
    review: &'a DecisionReview,
    block_means: &BTreeMap<String, f64>,
) -> Option<&'a CritiqueItem> {
    let accepted = review.items_decided(ItemDecision::Accept);
    let candidates: Vec<&CritiqueItem> = if accepted.is_empty() {
        review.critique_items().iter().collect()
    } else {
        accepted
    };
    candidates.into_iter().min_by(|a, b| {
        let mean =
            |item: &CritiqueItem| block_means.get(&item.target_block).copied().unwrap_or(6.0);
        a.severity
            .cmp(&b.severity)
            .then(mean(a).total_cmp(&mean(b)))
    })
}

/// What the revisions did, written from the moderator's rulings rather than
/// from the change log alone: every critique item says where it stands and
/// what was done about it (a rejected item "no change, as ruled", or the
/// change made against the ruling, said as such), then the changes that
/// answer the verdict's requirements or no moderated item.
fn what_changed(review: &DecisionReview) -> String {
    let entries = review.change_entries();
    let change = |round: u32, entry: &ChangeEntry| {
        let head = format!(
            "round {round} {} {}",
            change_verb(entry.change_type),
            entry.block_id
        );
        // A decline changes nothing: what it carries is the reason.
        let (detail, lead) = match entry.change_type {
            ChangeType::Decline => (
                entry.rationale.as_deref().unwrap_or_default(),
                ", the proposer's reason: ",
            ),
            _ => (entry.after.as_str(), ": "),
        };
        let detail = detail.trim().trim_end_matches('.');
        if detail.is_empty() {
            head
        } else {
            format!("{head}{lead}{detail}")
        }
    };
    let mut lines = Vec::new();
    for item in review.critique_items() {
        let id = &item.id;
        let made: Vec<String> = entries
            .iter()
            .filter(|(_, entry)| entry.addresses_critique == *id)
            .map(|(round, entry)| change(*round, entry))
            .collect();
        let acted = entries.iter().any(|(_, entry)| {
            entry.addresses_critique == *id && entry.change_type != ChangeType::Decline
        });
        let line = match review.standing_decision(id) {
            Some(ItemDecision::Accept) if made.is_empty() => {
                format!("{id} (accepted): not answered by any revision yet.")
            }
            // Declined is not answered (DR-15, A11), and says so first.
            Some(ItemDecision::Accept) if !acted => format!(
                "{id} (accepted): declined, not answered by any change; {}.",
                made.join("; ")
            ),
            Some(ItemDecision::Accept) => format!("{id} (accepted): {}.", made.join("; ")),
            Some(ItemDecision::Reject) if acted => format!(
                "{id} (rejected): no change was to be made, but the revision made one anyway, \
                 against your ruling: {}.",
                made.join("; ")
            ),
            Some(ItemDecision::Reject) => format!("{id} (rejected): no change, as you ruled."),
            Some(ItemDecision::Defer) if acted => format!(
                "{id} (deferred): left open by you, but the revision acted on it anyway: {}.",
                made.join("; ")
            ),
            Some(ItemDecision::Defer) => format!("{id} (deferred): left open."),
            None => continue,
        };
        lines.push(line);
    }
    let items: std::collections::HashSet<&str> = review
        .critique_items()
        .iter()
        .map(|item| item.id.as_str())
        .collect();
    for (round, entry) in &entries {
        if items.contains(entry.addresses_critique.as_str()) {
            continue;
        }
        let source = review
            .revisions()
            .iter()
            .flat_map(|revision| &revision.directives)
            .find(|directive| directive.id == entry.addresses_critique)
            .map_or("not a moderated item", |_| "a requirement of the verdict");
        lines.push(format!(
            "{} ({source}): {}.",
            entry.addresses_critique,
            change(*round, entry)
        ));
    }
    if lines.is_empty() {
        "Nothing changed in revision.".to_string()
    } else {
        lines.join("\n")
    }
}

fn remaining_uncertainty(review: &DecisionReview, assessment: &Assessment) -> String {
    let mut lines: Vec<String> = review
        .open_deferred_items()
        .into_iter()
        .map(|item| {
            let note = review
                .ruling(&item.id)
                .and_then(|ruling| ruling.note)
                .map(|note| format!(" (moderator: {note})"))
                .unwrap_or_default();
            format!("deferred {}: {}{note}", item.id, item.description.trim())
        })
        .collect();
    lines.extend(review.awaiting_reopen().into_iter().map(|item| {
        let note = review
            .resolution(&item.id)
            .and_then(|resolution| resolution.note.as_deref())
            .map(|note| format!(" (moderator: {note})"))
            .unwrap_or_default();
        format!(
            "{}, accepted after the verdict, not yet answered by a revision: {}{note}",
            item.id,
            item.description.trim()
        )
    }));
    // A revision that went against the rulings even when asked again: the
    // adopted tree carries a change the moderator did not want.
    for revision in review.revisions() {
        lines.extend(revision.against_rulings.iter().map(|discrepancy| {
            format!(
                "revision round {} went against your rulings: {discrepancy}",
                revision.round
            )
        }));
    }
    lines.extend(assessment.uncertainty.iter().cloned());
    // A panel that voted as one is weaker evidence than its size says.
    if let Some(agreement) = review
        .evaluations()
        .last()
        .and_then(|evaluation| evaluation.agreement)
        .filter(|agreement| agreement.fewer_than_two_votes())
    {
        lines.push(format!(
            "the judges were effectively fewer than two independent votes: {}",
            agreement.summary()
        ));
    }
    // Advisory lows: not a reason to revise (A6), but worth knowing.
    lines.extend(
        assessment
            .advisory_notes
            .iter()
            .map(|note| format!("advisory note, {note}")),
    );
    for missing in &assessment.missing_judges {
        lines.push(format!(
            "no usable assessment from {}: {}",
            missing.role, missing.absence
        ));
    }
    if lines.is_empty() {
        "Nothing was deferred, and the panel left no open question.".to_string()
    } else {
        lines.join("\n")
    }
}

fn reversal_trigger(tree: &ThesisTree, objection: Option<&CritiqueItem>) -> String {
    let block = objection
        .and_then(|item| tree.block(&item.target_block))
        .or_else(|| main_claim(tree));
    match block {
        Some(block) => format!("Revisit if this risk materialises: {}", block.risks.trim()),
        None => "Revisit if the assumptions behind the proposal change.".to_string(),
    }
}
