//! The files of a decision review (DESIGN.md section 4; RULES.md DR-41..46):
//! `proposal.md`, `critique.md`, `revision.md`, `judges/judge-{role}[-round-N].md`,
//! `debate.yaml`, `transcript.md` and the reader-first `summary.md`.
//!
//! Audit files keep every process detail (RF-02); `summary.md` opens with the
//! result in plain language and keeps judge names, block ids and scores out of
//! its opening (RF-04..06). The end-of-run message printed by the CLI is the
//! opening of `summary.md`, word for word (RF-07, RF-10).

use serde::{Deserialize, Serialize};

use super::model::{
    BlockScore, ChangeEntry, CritiqueItem, ItemDecision, JudgeConfig, JudgeResult, SynthesisScore,
    ThesisTree, Verdict,
};
use super::record::main_claim;
use super::verdict::{Assessment, Check, QuorumStatus, Thresholds};
use super::{
    CRITIC_ROLE, DecisionRecord, DecisionReview, ItemAnswer, PROPOSER_ROLE, ReviewConfig, item_ids,
    judge_file, superseded_judge_file,
};
use crate::protocol::Questions;
use crate::protocol::documents::Documents;
use crate::protocol::record::{UsageYaml, transcript_opening, usage_line};
use crate::protocol::{AnswerFile, Outcome, Protocol};
use crate::words::{answer_md, embedded_answer, fenced, one_line, raw_md, table_cell, timestamp};

mod debate_yaml;
pub(super) mod summary;

pub use debate_yaml::*;
pub use summary::*;

/// The decision review's reader-first deliverable (RF-19, RULES.md A19).
pub const SUMMARY_FILE: &str = "summary.md";

/// Every file of the tree that has content yet. The proposal's is
/// rendered from the proposal and the answers that could not be used; the
/// others read the moderator's rulings or the log, and are rendered every
/// time.
pub fn documents(review: &DecisionReview, out: &mut Documents<'_>) {
    let proposal = review
        .proposal()
        .map(|proposal| (&proposal.call_id, proposal.raw.len(), proposal.at));
    let inputs = (proposal, review.malformed().len());
    out.add_from("proposal.md", inputs, || proposal_md(review));
    out.add_some("critique.md", || critique_md(review));
    out.add_some("revision.md", || revision_md(review));
    out.add("debate.yaml", || {
        yaml_serde::to_string(&DebateYaml::of(review)).unwrap_or_default()
    });
    out.add("transcript.md", || transcript_md(review));
    out.add_some("summary.md", || summary_md(review));
}

/// The judges' files that hold an answer that could not be used: a judge
/// whose answer was malformed, and every answer a re-run replaced (kept in
/// a file of its own). Every other judge's file is the answer as it came.
pub fn answer_files(review: &DecisionReview) -> Vec<AnswerFile> {
    let mut files = Vec::new();
    for evaluation in review.evaluations() {
        for (role, record) in &evaluation.judges {
            for old in &record.superseded {
                let Some(raw) = &old.raw else { continue };
                files.push(AnswerFile::unusable(
                    superseded_judge_file(*role, evaluation.round, old.attempt),
                    raw.clone(),
                    format!("{} (replaced by a re-run)", old.reason),
                ));
            }
            if let (Some(raw), Some(JudgeResult::Malformed { reason })) =
                (&record.raw, &record.result)
            {
                files.push(AnswerFile::unusable(
                    judge_file(*role, evaluation.round),
                    raw.clone(),
                    reason.clone(),
                ));
            }
        }
        let variants = evaluation.stability.iter().flat_map(|run| &run.variants);
        for variant in variants {
            for (role, record) in &variant.judges {
                if let (Some(raw), Some(JudgeResult::Malformed { reason })) =
                    (&record.raw, &record.result)
                {
                    files.push(AnswerFile::unusable(
                        super::stability::variant_file(
                            *role,
                            evaluation.round,
                            variant.variant.number,
                        ),
                        raw.clone(),
                        reason.clone(),
                    ));
                }
            }
        }
    }
    files
}

// ---- proposal, critique, revision ---------------------------------------

fn tree_md(tree: &ThesisTree) -> String {
    let mut out = String::new();
    for block in &tree.blocks {
        out.push_str(&format!(
            "### {} ({}{})\n\n{}\n\n- **Evidence:** {}\n- **Tradeoffs:** {}\n- **Risks:** {}\n\n",
            block.id,
            yaml_word(&block.block_type),
            block
                .option
                .as_deref()
                .map(|option| format!(", option {option}"))
                .unwrap_or_default(),
            block.text.trim(),
            one_line(&block.evidence),
            one_line(&block.tradeoffs),
            one_line(&block.risks)
        ));
    }
    out
}

fn malformed_sections(review: &DecisionReview, stage: &str) -> String {
    let mut out = String::new();
    for malformed in review.malformed().iter().filter(|m| m.stage == stage) {
        out.push_str(&format!(
            "## Unusable output `{}` ({})\n\n<!-- MALFORMED: {} -->\n\n{}\n",
            malformed.call_id,
            timestamp(malformed.at),
            one_line(&malformed.reason).replace("--", "- -"),
            fenced(&embedded_answer(&malformed.raw), "text")
        ));
    }
    out
}

fn proposal_md(review: &DecisionReview) -> Option<String> {
    let malformed = malformed_sections(review, "proposal");
    let proposal = review.proposal();
    if proposal.is_none() && malformed.is_empty() {
        return None;
    }
    let mut out = format!(
        "# Proposal — stage 1\n\nTopic: {}\n\n",
        one_line(&review.config().topic)
    );
    if let Some(proposal) = proposal {
        out.push_str(&format!(
            "## Raw output `{}` ({})\n\n{}\n## Thesis tree\n\n{}",
            proposal.call_id,
            timestamp(proposal.at),
            fenced(&embedded_answer(&proposal.raw), "text"),
            tree_md(&proposal.parsed)
        ));
    }
    out.push_str(&malformed);
    Some(out)
}

fn decision_word(decision: ItemDecision) -> &'static str {
    decision.choose("ACCEPTED", "REJECTED", "DEFERRED")
}

fn decision_label(review: &DecisionReview, item: &CritiqueItem) -> String {
    let Some(ruling) = review.ruling(&item.id) else {
        return "**undecided**".to_string();
    };
    let word = decision_word(ruling.decision);
    let mut label = match &ruling.note {
        Some(note) => format!(
            "**{word}** ({}) — moderator's note: {}",
            timestamp(ruling.at),
            one_line(note)
        ),
        None => format!("**{word}** ({})", timestamp(ruling.at)),
    };
    if let Some(resolution) = review.resolution(&item.id) {
        label.push_str(&format!(
            " → **{}** after the verdict ({})",
            decision_word(resolution.decision),
            timestamp(resolution.at)
        ));
        if let Some(note) = &resolution.note {
            label.push_str(&format!(" — note: {}", one_line(note)));
        }
        if resolution.decision == ItemDecision::Accept {
            match review.answer_to(&item.id) {
                Some(ItemAnswer::Changed { round }) => {
                    label.push_str(&format!("; answered in revision round {round}"))
                }
                Some(ItemAnswer::Declined { round, reason }) => {
                    label.push_str(&format!("; {}", declined_in_round(round, reason)))
                }
                None => label.push_str("; waits for another revision round"),
            }
        }
    }
    label
}

/// What a reader must do about a reopened debate, or `None` if it is not.
fn reopen_notice(review: &DecisionReview) -> Option<String> {
    if !review.reopen_pending() {
        return None;
    }
    let waiting = review.awaiting_reopen();
    let (items, them) = if waiting.len() == 1 {
        ("item", "it")
    } else {
        ("items", "them")
    };
    Some(format!(
        "After the verdict the moderator accepted deferred {items} {}, which no revision has answered yet, \
         so the verdict does not take {them} into account. Run `quorum resume --reopen` on this folder for another revision and evaluation round.",
        item_ids(&waiting)
    ))
}

fn critique_md(review: &DecisionReview) -> Option<String> {
    let malformed = malformed_sections(review, "critique");
    let critique = review.critique();
    if critique.is_none() && malformed.is_empty() {
        return None;
    }
    let mut out = format!(
        "# Critique — stage 2\n\nCritique mode: {}\n\n",
        review.config().critique_mode.as_str()
    );
    if let Some(notice) = reopen_notice(review) {
        out.push_str(&format!("**Reopened.** {notice}\n\n"));
    }
    if let Some(critique) = critique {
        out.push_str("## Items and the moderator's decisions\n\n");
        if critique.parsed.items.is_empty() {
            out.push_str("The critic raised no items.\n\n");
        }
        for item in &critique.parsed.items {
            out.push_str(&format!(
                "### {} → {} · {} · {}\n\nDecision: {}\n\n",
                item.id,
                item.target_block,
                yaml_word(&item.flaw_type),
                yaml_word(&item.severity),
                decision_label(review, item)
            ));
            if let Some(steelman) = &item.steelman {
                out.push_str(&format!("Strongest form: {}\n\n", one_line(steelman)));
            }
            out.push_str(&format!("{}\n\n", item.description.trim()));
        }
        for unread in review
            .core
            .unread
            .iter()
            .filter(|unread| unread.call_id == critique.call_id)
        {
            out.push_str(&format!("- Left out, {}: {}\n", unread.what, unread.why));
        }
        out.push_str(&format!(
            "\n## Raw output `{}` ({})\n\n{}",
            critique.call_id,
            timestamp(critique.at),
            fenced(&embedded_answer(&critique.raw), "text")
        ));
    }
    out.push_str(&malformed);
    Some(out)
}

fn change_log_md(change_log: &[ChangeEntry]) -> String {
    let mut out =
        String::from("| addresses | block | change | after / rationale |\n|---|---|---|---|\n");
    for entry in change_log {
        let detail = match (&entry.rationale, entry.after.trim()) {
            (Some(rationale), "") => rationale.clone(),
            (Some(rationale), after) => format!("{after} — {rationale}"),
            (None, after) => after.to_string(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            entry.addresses_critique,
            entry.block_id,
            yaml_word(&entry.change_type),
            table_cell(&detail)
        ));
    }
    out
}

fn revision_md(review: &DecisionReview) -> Option<String> {
    let malformed = malformed_sections(review, "revision");
    if review.revisions().is_empty() && malformed.is_empty() {
        return None;
    }
    let mut out = String::from("# Revision — stage 3\n\n");
    let open = review.open_deferred_items();
    if !open.is_empty() {
        out.push_str(&format!(
            "Deferred items, still open: {}\n\n",
            item_ids(&open)
        ));
    }
    for revision in review.revisions() {
        out.push_str(&format!("## Round {}\n\n", revision.round));
        let reopened_for: Vec<&str> = revision
            .must_address
            .iter()
            .filter(|id| review.resolution(id).is_some())
            .map(String::as_str)
            .collect();
        if !reopened_for.is_empty() {
            out.push_str(&format!(
                "Reopened after the verdict for {}, accepted by the moderator after first deferring them.\n\n",
                reopened_for.join(", ")
            ));
        }
        if !revision.must_address.is_empty() {
            out.push_str(&format!(
                "Had to address: {}\n\n",
                revision.must_address.join(", ")
            ));
        }
        for directive in &revision.directives {
            out.push_str(&format!(
                "- Directive {} ({}): {}\n",
                directive.id,
                directive.source,
                one_line(&directive.text)
            ));
        }
        if !revision.directives.is_empty() {
            out.push('\n');
        }
        if !revision.against_rulings.is_empty() {
            out.push_str(
                "**Against your rulings.** quorum asked the proposer once more, and this answer still goes against them:\n\n",
            );
            for discrepancy in &revision.against_rulings {
                out.push_str(&format!("- {discrepancy}\n"));
            }
            out.push('\n');
        }
        out.push_str(&format!(
            "### Change log\n\n{}\n### Revised tree\n\n{}### Raw output `{}` ({})\n\n{}\n",
            change_log_md(&revision.output.change_log),
            tree_md(&revision.output.revised_tree)
                .replace("\n### ", "\n#### ")
                .replacen("### ", "#### ", 1),
            revision.call_id,
            timestamp(revision.at),
            fenced(&embedded_answer(&revision.raw), "text")
        ));
    }
    out.push_str(&malformed);
    Some(out)
}

// ---- transcript.md ----------------------------------------------------------

fn transcript_md(review: &DecisionReview) -> String {
    let config = review.config();
    let mut about = format!(
        "Decision review, {} mode, critique {}, started {}.\n\n",
        config.mode.as_str(),
        config.critique_mode.as_str(),
        timestamp(config.started_at)
    );
    // The library's calibration seated these judges (issue 55).
    for reseated in &config.calibration {
        about.push_str(&format!(
            "Calibration: {}.\n\n",
            crate::words::one_line(&reseated.why())
        ));
    }
    let mut out = transcript_opening(&config.topic, &about, review.log());
    out.push_str("\n## Agent outputs\n\n");
    let mut answer = |call_id: &str, raw: &str| out.push_str(&raw_md(&format!("`{call_id}`"), raw));
    if let Some(proposal) = review.proposal() {
        answer(&proposal.call_id, &proposal.raw);
    }
    if let Some(critique) = review.critique() {
        answer(&critique.call_id, &critique.raw);
    }
    for revision in review.revisions() {
        answer(&revision.call_id, &revision.raw);
    }
    for evaluation in review.evaluations() {
        for record in evaluation.judges.values() {
            if let (Some(call_id), Some(raw)) = (&record.call_id, &record.raw) {
                answer(call_id, raw);
            }
        }
    }
    for malformed in review.malformed() {
        out.push_str(&answer_md(
            &malformed.call_id,
            &format!("unusable: {}", one_line(&malformed.reason)),
            &malformed.raw,
        ));
    }
    out.push_str(&crate::protocol::record::calls_md(&review.core.calls));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RF-06: a judge's sentence that names a judge, a block or a score
    /// never stands in the opening; a plain one may.
    #[test]
    fn rf_06_a_rationale_with_process_detail_is_not_quoted_in_the_opening() {
        for leaky in [
            "As the analyst, I find the rollback untested",
            "b2 has no rollback",
            "Risk 1/5: the rollback is untested",
            "I scored this low because the rollback is untested",
            "The panel agrees the rollback is untested",
            "The critic was right that the rollback is untested",
        ] {
            assert!(!reader_first(leaky), "{leaky}");
        }
        assert!(reader_first(
            "A failed migration cannot be rolled back without losing a day of invoices"
        ));
    }
}
