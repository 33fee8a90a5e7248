//! `summary.md`, the reader-first deliverable, and its opening: the result
//! in plain language first, process detail (judges, blocks, scores) after
//! (RF-04..RF-19).
//!
//! Not responsible for the audit files or debate.yaml (the parent module
//! and [`super::debate_yaml`]).

use super::*;
use crate::protocol::decision_review::stability::Decided;
use crate::protocol::decision_review::verdict::STABILITY_GUARD;
use crate::protocol::ruler::rulers_md;
use crate::protocol::stability::Guard;

/// The opening of `summary.md`: the result in plain language, with no judge
/// names, block ids or scores (RF-04, RF-06, RF-16). The CLI prints exactly
/// this as its end-of-run message.
/// While a round reopened after a verdict runs, the summary says so, and
/// the earlier verdict no longer stands as the result. `None` for a debate
/// that has never had a verdict (it has no summary yet).
pub(super) fn reopened_summary(review: &DecisionReview) -> Option<String> {
    let previous = review
        .evaluations()
        .iter()
        .rev()
        .find_map(|evaluation| evaluation.assessment.as_ref())?;
    Some(format!(
        "# {}\n\n**No decision yet: reopened.** The debate had reached a verdict ({}), then \
         items deferred during moderation were accepted afterwards. Another revision answers \
         them and the proposal is judged again; the new verdict replaces this page. If that \
         was interrupted, `quorum resume` on this folder carries it on.\n",
        one_line(&review.config().topic),
        previous.verdict.as_str(),
    ))
}

pub fn summary_lead(review: &DecisionReview) -> Option<String> {
    if let Some(lead) = comparison_lead(review) {
        return Some(lead);
    }
    let outcome = review.outcome()?;
    let tree = review.current_tree();
    let plain = |text: &str| first_sentence(&plain_block_refs(text, tree));
    if let Outcome::Failed { reason } = outcome {
        let earlier = review
            .evaluations()
            .iter()
            .rev()
            .find_map(|evaluation| evaluation.assessment.as_ref())
            .map(|assessment| match assessment.verdict {
                Verdict::Revise => {
                    " An earlier round had asked for changes before the review stopped."
                }
                _ => "",
            })
            .unwrap_or_default();
        return Some(format!(
            "**No decision.** The review stopped before it could reach a verdict: {}.{earlier} \
             Nothing was fabricated in its place; fix the cause and run the review again.",
            reason.trim_end_matches('.')
        ));
    }
    let record = review.decision_record()?;
    let assessment = review.evaluations().last()?.assessment.as_ref()?;
    let objection = if review.critique_items().is_empty() {
        "The critic found nothing to object to".to_string()
    } else {
        format!(
            "The hardest objection was that {}",
            lowercase_first(&plain(&record.strongest_objection))
        )
    };
    let opening = match record.decision {
        Verdict::Adopt => {
            let claim = tree
                .and_then(main_claim)
                .map(|block| plain(&block.text))
                .unwrap_or_default();
            // Said only as the rulings and the change log bear it out.
            let objection_item = review
                .critique_items()
                .iter()
                .find(|item| item.description == record.strongest_objection);
            let answered = match objection_item {
                None => String::new(),
                Some(item) => match review.standing_decision(&item.id) {
                    Some(ItemDecision::Accept) => match review.answer_to(&item.id) {
                        Some(ItemAnswer::Changed { .. }) => {
                            "; the revised proposal answers it".to_string()
                        }
                        // Declined is not answered (DR-15, A11): said with
                        // the reason, where it reads without process words.
                        Some(ItemAnswer::Declined { reason, .. }) => {
                            declined_clause(&plain(reason))
                        }
                        None => "; no revision has answered it yet".to_string(),
                    },
                    Some(ItemDecision::Reject) => "; you set it aside".to_string(),
                    Some(ItemDecision::Defer) => "; you left it open".to_string(),
                    None => "; no revision has answered it yet".to_string(),
                },
            };
            format!(
                "**Go ahead (ADOPT: the proposal is strong enough to act on).** {claim}. {objection}{answered}. \
                 Next: carry it out, and watch for the warning sign in \"What would make us revisit this\"."
            )
        }
        Verdict::Revise => format!(
            "**Not yet: revise first (REVISE: the idea has merit but needs changes before it goes ahead).** \
             What still falls short: {}. {objection}. \
             Next: make the changes listed under \"What to do\" and review the proposal again.",
            lowercase_first(&revise_reason(assessment, &plain))
        ),
        Verdict::Reject => format!(
            "**Do not proceed (REJECT: the proposal is flawed beyond revision).** {}. {objection}. \
             Next: start over or weigh another approach.",
            reject_reason(review, &plain)
        ),
        Verdict::Escalate => format!(
            "**Undecided: more information is needed (ESCALATE: the review could not settle the question with what it had).** \
             {}. {objection}. Next: gather what is listed under \"What is still uncertain\", then decide.",
            escalate_reason(review, assessment)
        ),
        Verdict::Pass | Verdict::Concerns | Verdict::Fail | Verdict::Proven | Verdict::Unproven => {
            unreachable!("a decision review derives only ADOPT, REVISE, REJECT or ESCALATE")
        }
    };
    Some(opening)
}

/// What the opening says of a strongest objection the revision declined
/// to change anything for: declined, not answered, and why, in the
/// proposer's words when they name no judge, role, block or score (RF-06),
/// else pointing to where the reason is.
pub(super) fn declined_clause(reason: &str) -> String {
    let reason = reason.trim().trim_end_matches('.');
    if reason.is_empty() {
        "; it was declined rather than answered".to_string()
    } else if reader_first(reason) {
        format!("; it was declined rather than answered, for this reason: {reason}")
    } else {
        "; it was declined rather than answered (the reason is under \"What changed in revision\")"
            .to_string()
    }
}

/// The opening of a finished comparison: the recommendation, the
/// condition that would change it, and every dealbreaker, in plain words.
pub(super) fn comparison_lead(review: &DecisionReview) -> Option<String> {
    let config = review.config();
    if config.mode != crate::protocol::decision_review::ReviewMode::Comparative {
        return None;
    }
    let Some(Outcome::Completed { .. }) = review.outcome() else {
        return None;
    };
    let ranking = review.evaluations().last()?.ranking.as_ref()?;
    let text_of = |id: &str| {
        config
            .options
            .iter()
            .find(|option| option.id == id)
            .map(|option| first_sentence(&option.text))
            .unwrap_or_default()
    };
    let mut lead = match (&ranking.recommendation, &ranking.withdrawn) {
        (Some(id), _) => format!(
            "**Recommendation: option {id}, {}.** ",
            continued(text_of(id).trim_end_matches('.'))
        ),
        // The stability receipt's requirement withdrew it (issue 55).
        (None, Some(_)) => "**No option is recommended.** ".to_string(),
        (None, None) => "**No option can be recommended.** ".to_string(),
    };
    lead.push_str(&ranking.conditional_recommendation);
    let tree = review.current_tree();
    for option in ranking.ranking.iter().filter(|o| o.dealbreaker.is_some()) {
        let reason = option
            .dealbreaker
            .as_deref()
            .and_then(|reason| reason.split_once("): "))
            .map(|(_, rationale)| first_sentence(&plain_block_refs(rationale, tree)))
            .filter(|rationale| reader_first(rationale));
        lead.push_str(&match reason {
            Some(reason) => format!(
                " {} is ruled out by a risk with no acceptable answer: {}.",
                option.option,
                lowercase_first(reason.trim_end_matches('.'))
            ),
            None => format!(
                " {} is ruled out by a risk with no acceptable answer.",
                option.option
            ),
        });
    }
    Some(lead)
}

/// The summary of a finished comparison (RF-17): the recommendation, the
/// condition that would change it and any dealbreaker first, in words a
/// reader needs no scores for (RF-06, RF-08); the ranking and its numbers
/// after.
pub(super) fn comparison_summary(review: &DecisionReview) -> Option<String> {
    let lead = comparison_lead(review)?;
    let config = review.config();
    let ranking = review.evaluations().last()?.ranking.as_ref()?;
    let mut out = format!("# {}\n\n{lead}\n\n", one_line(&config.topic));
    out.push_str("## The options\n\n");
    for option in &config.options {
        out.push_str(&format!(
            "- **{}**: {}\n",
            option.id,
            one_line(&option.text)
        ));
    }
    let criteria: Vec<_> = ranking.per_criterion.keys().copied().collect();
    out.push_str("\n## The ranking\n\n| Rank | Option |");
    for criterion in &criteria {
        out.push_str(&format!(" {criterion} |"));
    }
    out.push_str(" Dealbreaker |\n|---|---|");
    out.push_str(&"---|".repeat(criteria.len() + 1));
    out.push('\n');
    for (rank, option) in ranking.ranking.iter().enumerate() {
        out.push_str(&format!("| {} | {} |", rank + 1, option.option));
        for criterion in &criteria {
            out.push_str(&match option.scores.get(criterion) {
                Some(score) => format!(" {score:.2} |"),
                None => " – |".to_string(),
            });
        }
        out.push_str(&format!(
            " {} |\n",
            option
                .dealbreaker
                .as_deref()
                .map(table_cell)
                .unwrap_or_else(|| "none".to_string())
        ));
    }
    out.push_str("\n## Where each option is strongest\n\n");
    for (criterion, order) in &ranking.per_criterion {
        out.push_str(&format!("- {criterion}: {}\n", order.join(", ")));
    }
    out.push_str(
        "\n## How this was ranked\n\nEvery option was argued as blocks of one thesis tree, critiqued, revised \
         and scored by every judge on the same criteria. An option's score on a criterion is the mean of \
         every judge's scores on its blocks; an option with a dealbreaker (a risk scored at the lowest \
         level) ranks last; the rest are ordered by their scores on the binding judges' criteria. The \
         ranking is derived mechanically from the judges' scores, never taken from an agent.\n",
    );
    let receipt = stability_lines(review);
    if !receipt.is_empty() {
        out.push_str(&format!("\n{}\n", receipt.trim_end()));
    }
    let rulers = rulers_md(&review.board_now().items);
    if !rulers.is_empty() {
        out.push_str(&format!("\n{}\n", rulers.trim_end()));
    }
    if let Some(payoff) = review.payoff_section() {
        out.push_str(&format!("\n{}", payoff.markdown()));
    }
    if let Some(usage) = usage_line(review.usage_ledger(), review.duration_ms()) {
        out.push_str(&format!("\nUsage: {usage}.\n"));
    }
    out.push_str(
        "\nFull record: `debate.yaml` (structured), `transcript.md` (every event), `judges/` (raw judge output).\n",
    );
    Some(crate::text::for_markdown(&out))
}

/// Why the panel asked for changes, in words a reader needs no scores for.
pub(super) fn revise_reason(assessment: &Assessment, plain: &dyn Fn(&str) -> String) -> String {
    match assessment.check {
        Check::BindingJudge => assessment
            .directives
            .iter()
            .find(|directive| directive.judge.is_some())
            .map(|directive| plain(&directive.text))
            .filter(|text| reader_first(text))
            .unwrap_or_else(|| "a required assessment found a serious gap".to_string()),
        Check::Guard => "part of the plan is more complex than what it achieves".to_string(),
        _ => "the revised proposal does not yet hold together, cover its main risks and answer its critiques well enough"
            .to_string(),
    }
}

/// The risk the panel found unacceptable, in the judge's own words.
pub(super) fn reject_reason(review: &DecisionReview, plain: &dyn Fn(&str) -> String) -> String {
    review
        .evaluations()
        .last()
        .into_iter()
        .flat_map(|evaluation| evaluation.judges.values())
        .filter_map(|record| record.result.as_ref()?.scores())
        .flat_map(|scores| scores.block_scores.iter())
        .filter(|score| score.criterion == crate::protocol::decision_review::model::Criterion::Risk)
        .min_by_key(|score| score.score)
        .map(|score| plain(&score.rationale))
        .filter(|reason| reader_first(reason))
        .map(|reason| {
            format!(
                "It carries a risk with no acceptable answer: {}",
                lowercase_first(&reason)
            )
        })
        .unwrap_or_else(|| "It carries a risk with no acceptable answer".to_string())
}

/// Whether a judge's sentence may stand in the opening as it is: it names
/// no judge, role, block id or score (RF-06). One that does is left to the
/// sections below, and the opening says the same thing in general words.
pub(super) fn reader_first(text: &str) -> bool {
    crate::protocol::record::provenance(text, "", &super::super::role_words()).is_empty()
        && !text
            .to_ascii_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|word| matches!(word, "panel" | "rated" | "rate" | "rating"))
}

/// What kept the panel from deciding.
pub(super) fn escalate_reason(review: &DecisionReview, assessment: &Assessment) -> &'static str {
    let lacked_information = review
        .evaluations()
        .last()
        .into_iter()
        .flat_map(|evaluation| evaluation.judges.values())
        .filter_map(|record| record.result.as_ref()?.scores())
        .any(|scores| !scores.insufficient_information.is_empty());
    // The receipt's requirement turned an ADOPT (issue 55).
    let unstable = review.config().stability.required
        && review
            .receipt()
            .is_some_and(|receipt| receipt.requirement_rule(STABILITY_GUARD).is_some());
    if unstable {
        "Read again with the plan's parts in other orders, the assessment did not come out the \
         same every time, and this review asks that it does before going ahead"
    } else if !assessment.quorum.met || !assessment.missing_binding.is_empty() {
        "Too few of the required assessments came back usable to decide"
    } else if lacked_information {
        "The reviewers lacked the information to assess part of the plan"
    } else {
        "The reviewers disagreed too sharply about part of the plan to call it"
    }
}

/// Replaces block ids (`b2`) with what the block is, so a reader who never
/// saw the thesis tree can follow (RF-05, RF-06).
pub(super) fn plain_block_refs(text: &str, tree: Option<&ThesisTree>) -> String {
    let Some(tree) = tree else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let word_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        if word_end == 0 {
            let c = rest.chars().next().expect("non-empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let word = &rest[..word_end];
        match tree.block(word) {
            Some(block) => out.push_str(match block.block_type {
                crate::protocol::decision_review::model::BlockType::Claim => "the main claim",
                crate::protocol::decision_review::model::BlockType::Implementation => {
                    "the implementation plan"
                }
                crate::protocol::decision_review::model::BlockType::Fallback => "the fallback plan",
            }),
            None => out.push_str(word),
        }
        rest = &rest[word_end..];
    }
    out
}

/// The first sentence of `text`, without its final period.
/// `text` as it reads after a comma: an opening article in lower case
/// (`option A, a jobs table`), any other word as written (`Postgres`).
pub(in crate::protocol::decision_review) fn continued(text: &str) -> String {
    let first = text.split_whitespace().next().unwrap_or_default();
    match first {
        "A" | "An" | "The" => format!("{}{}", first.to_lowercase(), &text[first.len()..]),
        _ => text.to_string(),
    }
}

pub(super) fn first_sentence(text: &str) -> String {
    let text = one_line(text);
    let end = text
        .match_indices(". ")
        .map(|(index, _)| index)
        .find(|&index| index > 20)
        .unwrap_or(text.len());
    text[..end].trim_end_matches('.').to_string()
}

pub(super) fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        // `Replay` → `replay`, and the article `A failover` → `a failover`,
        // but `SOC 2` and `I` stay.
        Some(first)
            if chars.clone().next().is_some_and(char::is_lowercase)
                || (first == 'A' && chars.clone().next() == Some(' ')) =>
        {
            first.to_lowercase().chain(chars).collect()
        }
        Some(first) => std::iter::once(first).chain(chars).collect(),
        None => String::new(),
    }
}

pub(super) fn summary_md(review: &DecisionReview) -> Option<String> {
    if review.outcome().is_none() {
        return reopened_summary(review);
    }
    if let Some(comparison) = comparison_summary(review) {
        return Some(comparison);
    }
    let lead = summary_lead(review)?;
    let config = review.config();
    let mut out = format!("# {}\n\n{lead}\n\n", one_line(&config.topic));
    if let Some(notice) = reopen_notice(review) {
        out.push_str(&format!("## Reopened after the verdict\n\n{notice}\n\n"));
    }
    if let Some(record) = review.decision_record() {
        out.push_str(&format!(
            "## What to do\n\n{}\n\n## The strongest objection\n\n{}\n\n## What is still uncertain\n\n{}\n\n\
             ## What would make us revisit this\n\n{}\n\n## What changed in revision\n\n{}\n\n",
            record.recommendation.trim(),
            record.strongest_objection.trim(),
            bullet_lines(&record.remaining_uncertainty),
            record.reversal_trigger.trim(),
            bullet_lines(&record.what_changed),
        ));
        out.push_str(&settled_after_verdict(review));
        out.push_str(&format!(
            "## How this was decided\n\nThe verdict is derived mechanically from the judges' scores, never taken from an agent. \
             Deciding rule: `{}`. Blocks that held up: {}.\n\n",
            record.deciding_rule,
            if record.surviving_blocks.is_empty() {
                "none".to_string()
            } else {
                record.surviving_blocks.join(", ")
            }
        ));
        if let Some(fairness) = review.config().fairness.describe() {
            out.push_str(&format!("Fair judging: {fairness}.\n\n"));
        }
        for reseated in &review.config().calibration {
            out.push_str(&format!(
                "Calibration: {}.\n\n",
                crate::words::one_line(&reseated.why())
            ));
        }
        out.push_str(&rulers_md(&review.board_now().items));
        if let Some(evaluation) = review.evaluations().last() {
            if let Some(agreement) = &evaluation.agreement {
                out.push_str(&format!("Panel {}.\n\n", agreement.summary()));
            }
            out.push_str(&stability_lines(review));
            out.push_str(&scores_table(review, evaluation));
        }
        if let Some(payoff) = review.payoff_section() {
            out.push_str(&format!("\n{}", payoff.markdown()));
        }
    }
    if let Some(usage) = usage_line(review.usage_ledger(), review.duration_ms()) {
        out.push_str(&format!("\nUsage: {usage}.\n"));
    }
    out.push_str(
        "\nFull record: `debate.yaml` (structured), `transcript.md` (every event), `judges/` (raw judge output).\n",
    );
    Some(out)
}

/// The stability receipt in "How this was decided" (a comparison's "How
/// this was ranked"; issue 55): in how many variants the verdict (the
/// recommendation) held, what each that flipped gave, and what the
/// requirement did; empty when none was asked for.
pub(super) fn stability_lines(review: &DecisionReview) -> String {
    let Some(run) = review.stability_run() else {
        return String::new();
    };
    let Some(receipt) = &run.receipt else {
        return "Stability receipt: not finished.\n\n".to_string();
    };
    let guard = match run.decided {
        Decided::Verdict(_) => STABILITY_GUARD,
        Decided::Ranking(_) => Guard::Recommendation,
    };
    receipt.markdown(
        [
            "the deciding round was judged again",
            "each judge reading in another order, the authors under other neutral labels",
        ],
        review.config().stability.required,
        guard,
    )
}

/// The deferred items settled after the verdict, with their times.
pub(super) fn settled_after_verdict(review: &DecisionReview) -> String {
    let lines: Vec<String> = review
        .items_decided(ItemDecision::Defer)
        .into_iter()
        .filter_map(|item| {
            let resolution = review.resolution(&item.id)?;
            let verb = match resolution.decision {
                ItemDecision::Accept => "accepted",
                ItemDecision::Reject => "rejected",
                ItemDecision::Defer => "deferred",
            };
            let note = resolution
                .note
                .as_deref()
                .map(|note| format!(" — {}", one_line(note)))
                .unwrap_or_default();
            let answered = match (resolution.decision, review.answer_to(&item.id)) {
                (ItemDecision::Accept, Some(ItemAnswer::Changed { round })) => {
                    format!("; answered in revision round {round}")
                }
                (ItemDecision::Accept, Some(ItemAnswer::Declined { round, reason })) => {
                    format!("; {}", declined_in_round(round, reason))
                }
                (ItemDecision::Accept, None) => "; not answered by a revision yet".to_string(),
                _ => String::new(),
            };
            Some(format!(
                "- {} {verb} ({}): {}{note}{answered}",
                item.id,
                timestamp(resolution.at),
                one_line(&item.description)
            ))
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "## Deferred items settled after the verdict\n\n{}\n\n",
        lines.join("\n")
    )
}

/// An accepted item a revision declined, for the audit and the sections
/// below the opening: `declined in revision round 2, not answered; the
/// proposer's reason: …`.
pub(super) fn declined_in_round(round: u32, reason: &str) -> String {
    let reason = one_line(reason);
    if reason.is_empty() {
        format!("declined in revision round {round}, not answered")
    } else {
        format!("declined in revision round {round}, not answered; the proposer's reason: {reason}")
    }
}

pub(super) fn bullet_lines(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| format!("- {}", line.trim()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(super) fn scores_table(
    review: &DecisionReview,
    evaluation: &crate::protocol::decision_review::EvaluationRound,
) -> String {
    let mut out = format!(
        "Scores of the final round ({}):\n\n| judge | weight | block | criterion | score |\n|---|---|---|---|---|\n",
        evaluation.round
    );
    for judge in &review.config().panel {
        match evaluation
            .judges
            .get(&judge.role)
            .and_then(|record| record.result.as_ref())
        {
            Some(JudgeResult::Scored(scores)) => {
                for score in &scores.block_scores {
                    out.push_str(&format!(
                        "| {} | {} | {} | {} | {} |\n",
                        judge.role,
                        judge.weight.as_str(),
                        score.block_id,
                        score.criterion,
                        score.score
                    ));
                }
            }
            Some(JudgeResult::Malformed { .. }) => out.push_str(&format!(
                "| {} | {} | — | malformed, excluded | — |\n",
                judge.role,
                judge.weight.as_str()
            )),
            Some(JudgeResult::Skipped { .. }) | None => out.push_str(&format!(
                "| {} | {} | — | skipped | — |\n",
                judge.role,
                judge.weight.as_str()
            )),
            Some(JudgeResult::Recused { .. }) => out.push_str(&format!(
                "| {} | {} | — | recused (the proposer's model family) | — |\n",
                judge.role,
                judge.weight.as_str()
            )),
        }
    }
    out
}

/// A serde enum value as the YAML word (`add_fallback`, `major`).
pub(super) fn yaml_word<T: Serialize>(value: &T) -> String {
    yaml_serde::to_string(value)
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    /// An option's text after a comma reads on: its article in lower
    /// case, a name as written.
    #[test]
    fn an_options_text_reads_on_after_a_comma() {
        use super::continued;
        assert_eq!(
            continued("A jobs table in Postgres"),
            "a jobs table in Postgres"
        );
        assert_eq!(continued("The managed Kafka"), "the managed Kafka");
        assert_eq!(
            continued("Postgres (SKIP LOCKED)"),
            "Postgres (SKIP LOCKED)"
        );
        assert_eq!(continued("Apache Kafka"), "Apache Kafka");
        assert_eq!(continued(""), "");
    }
}
