//! `summary.md`, the reader's document: the result in plain words first
//! (the verdict and what to fix, or a brainstorm's direction), what still
//! goes against the moderator's rulings, the findings or proposals by how
//! they ended, the challenges the moderator held back or set aside, then
//! how it was decided, ids and rules included (RF-06, RF-07).
//!
//! Not responsible for the record, the transcript or the deliverable pair
//! around it (the parent module).

use super::{PACKETS, RECORD, TRANSCRIPT};
use crate::protocol::council::Council;
use crate::protocol::council::model::{
    Challenge, ChallengeState, Finding, FindingState, ProposalStatus, Severity,
};
use crate::protocol::council::rulings::ruling_of;
use crate::protocol::council::verdict::Assessment;
use crate::protocol::ruler::rulers_md;
use crate::protocol::{Outcome, Protocol};
use crate::words::one_line;

/// The opening of `summary.md`, word for word: what the end of a run
/// prints (RF-07). `None` while the council runs.
pub fn summary_lead(council: &Council) -> Option<String> {
    let lead = lead_of_outcome(council)?;
    Some(if council.against_rulings().is_empty() {
        lead
    } else {
        format!(
            "{lead} Some answers still go against the moderator's rulings, so read this with the list below in mind."
        )
    })
}

fn lead_of_outcome(council: &Council) -> Option<String> {
    match council.outcome()? {
        Outcome::Failed { reason } if council.proposes() => Some(format!(
            "**No result.** The council stopped before it finished and has nothing to hand off: {}. What was collected is in {TRANSCRIPT} and {RECORD}.",
            reason.trim_end_matches('.')
        )),
        Outcome::Failed { reason } => Some(format!(
            "**No result.** The council stopped before it finished: {}. What was collected is in {TRANSCRIPT} and {RECORD}.",
            reason.trim_end_matches('.')
        )),
        Outcome::Completed { .. } => Some(handoff_lead(council)),
        Outcome::Decided { verdict, .. } => {
            let assessment = council.assessment()?;
            Some(verdict_lead(*verdict, assessment))
        }
    }
}

fn sentence(text: &str) -> String {
    let text = one_line(text);
    let text = text.trim_end_matches(['.', ' ']);
    format!("{text}.")
}

/// The findings that ended in `state` with a severity that `counts`, in
/// the assessment's order.
fn findings_in(
    assessment: &Assessment,
    state: FindingState,
    counts: impl Fn(Severity) -> bool,
) -> Vec<&Finding> {
    let outcomes = assessment.outcomes_by_id();
    assessment
        .findings
        .iter()
        .filter(|f| {
            counts(f.severity)
                && outcomes
                    .get(f.id.as_str())
                    .is_some_and(|o| o.state == state)
        })
        .collect()
}

fn confirmed(assessment: &Assessment, severity: Severity) -> Vec<&Finding> {
    findings_in(assessment, FindingState::Confirmed, |s| s == severity)
}

fn verdict_lead(verdict: crate::protocol::Verdict, assessment: &Assessment) -> String {
    let grave: Vec<&Finding> = confirmed(assessment, Severity::Critical)
        .into_iter()
        .chain(confirmed(assessment, Severity::High))
        .collect();
    let disputed = findings_in(assessment, FindingState::Disputed, Severity::is_grave);
    let mut lead = match verdict {
        crate::protocol::Verdict::Fail => "**FAIL.** Do not ship this as it stands.".to_string(),
        crate::protocol::Verdict::Concerns => {
            "**CONCERNS.** This can go ahead only once the problems below are dealt with or knowingly accepted.".to_string()
        }
        _ => "**PASS.** Nothing serious survived scrutiny.".to_string(),
    };
    if let Some(first) = grave.first() {
        lead.push_str(&format!(
            " The most serious problem, checked and agreed: {} {}",
            sentence(&first.text.title),
            if first.text.recommendation.is_empty() {
                String::new()
            } else {
                format!("Next step: {}", sentence(&first.text.recommendation))
            }
        ));
        if grave.len() > 1 {
            lead.push_str(&format!(
                " {} more serious problem{} stand{} (listed below).",
                grave.len() - 1,
                if grave.len() == 2 { "" } else { "s" },
                if grave.len() == 2 { "s" } else { "" }
            ));
        }
    } else {
        let medium = confirmed(assessment, Severity::Medium);
        if let Some(first) = medium.first() {
            lead.push_str(&format!(
                " The main problem to fix: {}",
                sentence(&first.text.title)
            ));
        }
    }
    if !disputed.is_empty() {
        let titles: Vec<String> = disputed
            .iter()
            .map(|f| one_line(&f.text.title).trim_end_matches('.').to_string())
            .collect();
        lead.push_str(&format!(
            " Still contested, and worth settling before you rely on it: {}.",
            titles.join("; ")
        ));
    }
    // A21 (revised): a grave finding nobody refuted is not cleared just
    // because too few backed it.
    let unsettled: Vec<String> =
        findings_in(assessment, FindingState::Unconfirmed, Severity::is_grave)
            .into_iter()
            .map(|f| {
                format!(
                    "{} ({})",
                    one_line(&f.text.title).trim_end_matches('.'),
                    f.severity.as_str().to_ascii_lowercase()
                )
            })
            .collect();
    if !unsettled.is_empty() {
        lead.push_str(&format!(
            " Raised, never refuted, and not confirmed either, so check it before you rely on the code: {}.",
            unsettled.join("; ")
        ));
    }
    lead.trim_end().to_string()
}

fn handoff_lead(council: &Council) -> String {
    match council.handoff() {
        Some(handoff) => {
            let mut lead = format!("**Direction:** {}", sentence(&handoff.accepted_direction));
            lead.push_str(&format!(" **Next step:** {}", sentence(&handoff.next_step)));
            lead
        }
        None => {
            let accepted: Vec<String> = council
                .proposals()
                .iter()
                .filter(|p| p.status == ProposalStatus::Accepted)
                .map(|p| one_line(&p.text.title))
                .collect();
            if accepted.is_empty() {
                "**No direction was accepted.** Nothing the council proposed won enough support; the open questions below are where to start.".into()
            } else {
                format!(
                    "**Direction:** {}. The handoff could not be written, so this lists what was accepted.",
                    accepted.join("; ")
                )
            }
        }
    }
}

pub(super) fn summary_md(council: &Council) -> Option<String> {
    let lead = summary_lead(council)?;
    let config = council.config();
    let mut out = format!("# {}\n\n{lead}\n\n", one_line(&config.topic));
    out.push_str(&against_rulings_md(council));
    if council.config().mode.proposes() {
        out.push_str(&brainstorm_body(council));
    } else if let Some(assessment) = council.assessment() {
        out.push_str(&findings_body(assessment));
    }
    out.push_str(&rulings_md(council));
    out.push_str(&process_md(council));
    if let Some(payoff) = council.payoff_section() {
        out.push_str(&format!("\n{}", payoff.markdown()));
    }
    Some(out)
}

/// What still went against the moderator's rulings after quorum asked
/// once more: stated plainly, near the top, never as done.
fn against_rulings_md(council: &Council) -> String {
    let against = council.against_rulings();
    if against.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "## Against the moderator's rulings\n\nThese answers still went against what the moderator decided after quorum asked once more. What follows counts them as they were written; weigh it knowing this.\n\n",
    );
    for line in against {
        out.push_str(&format!("- {}\n", one_line(line)));
    }
    out.push('\n');
    out
}

/// The challenges the moderator dropped or held back, written from the
/// rulings themselves: what was set aside (and why), and what was never
/// answered and so stays open.
fn rulings_md(council: &Council) -> String {
    let mut dropped = String::new();
    let mut held = String::new();
    for challenge in council.challenges() {
        let Some(ruling) = ruling_of(challenge) else {
            continue;
        };
        let about = council
            .finding(&challenge.finding_id)
            .map(|f| f.text.title.clone())
            .or_else(|| {
                council
                    .proposal(&challenge.finding_id)
                    .map(|p| p.text.title.clone())
            })
            .unwrap_or_default();
        let why = ruling
            .note
            .as_deref()
            .map(|note| format!(" The moderator's note: {}", sentence(note)))
            .unwrap_or_default();
        match ruling.ruled {
            crate::rulings::Ruled::Rejected => dropped.push_str(&format!(
                "- {} on {} ({}): {}'s challenge, dropped by the moderator, never put to {} and not counted.{why}\n",
                challenge.id,
                challenge.finding_id,
                one_line(&about),
                challenge.from,
                challenge.to
            )),
            crate::rulings::Ruled::Deferred => held.push_str(&format!(
                "- {} on {} ({}): {}{why}\n",
                challenge.id,
                challenge.finding_id,
                one_line(&about),
                sentence(&challenge.challenge)
            )),
            crate::rulings::Ruled::Accepted => {}
        }
    }
    let mut out = String::new();
    if !held.is_empty() {
        out.push_str("## Open questions the moderator held back\n\nThese challenges were never answered, so nothing above settles them.\n\n");
        out.push_str(&held);
        out.push('\n');
    }
    if !dropped.is_empty() {
        out.push_str("## Challenges the moderator set aside\n\n");
        out.push_str(&dropped);
        out.push('\n');
    }
    out
}

fn finding_md(finding: &Finding) -> String {
    let mut out = format!(
        "- **{}** ({}): {}",
        one_line(&finding.text.title),
        finding.severity.as_str().to_ascii_lowercase(),
        sentence(&finding.text.description)
    );
    if !finding.text.recommendation.is_empty() {
        out.push_str(&format!(
            " What to do: {}",
            sentence(&finding.text.recommendation)
        ));
    }
    out.push('\n');
    out
}

fn findings_body(assessment: &Assessment) -> String {
    let mut out = String::new();
    let outcomes = assessment.outcomes_by_id();
    let in_state = |state: FindingState| -> Vec<&Finding> {
        let mut list: Vec<&Finding> = assessment
            .findings
            .iter()
            .filter(|f| {
                outcomes
                    .get(f.id.as_str())
                    .is_some_and(|o| o.state == state)
            })
            .collect();
        list.sort_by_key(|f| f.severity);
        list
    };
    let sections = [
        (
            FindingState::Confirmed,
            "## What the council stands behind",
            "These problems were checked against the material and enough of the council agreed they are real at the severity shown (critical is worst, then high, medium, low, info).",
        ),
        (
            FindingState::Disputed,
            "## Contested",
            "Raised, then challenged or doubted, and not settled: treat them as open questions, not facts.",
        ),
        (
            FindingState::Unconfirmed,
            "## Raised but not confirmed",
            "Nobody argued against these, but too few backed them to count. A critical or high one among them keeps the council from PASS (nothing serious left standing) until someone settles it.",
        ),
    ];
    for (state, heading, intro) in sections {
        let list = in_state(state);
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("{heading}\n\n{intro}\n\n"));
        for finding in list {
            out.push_str(&finding_md(finding));
        }
        out.push('\n');
    }
    let withdrawn = in_state(FindingState::Withdrawn);
    let downgraded: Vec<&Finding> = assessment
        .findings
        .iter()
        .filter(|f| f.active() && f.severity_changes.iter().any(|c| c.to > c.from))
        .collect();
    if !withdrawn.is_empty() || !downgraded.is_empty() {
        out.push_str("## What did not survive\n\n");
        for finding in withdrawn {
            out.push_str(&format!(
                "- **{}**: withdrawn: the evidence did not hold up under challenge.\n",
                one_line(&finding.text.title)
            ));
        }
        for finding in downgraded {
            out.push_str(&format!(
                "- **{}**: less severe than first reported ({} → {}).\n",
                one_line(&finding.text.title),
                finding.reported_severity.as_str().to_ascii_lowercase(),
                finding.severity.as_str().to_ascii_lowercase()
            ));
        }
        out.push('\n');
    }
    out
}

fn brainstorm_body(council: &Council) -> String {
    let mut out = String::new();
    if let Some(handoff) = council.handoff()
        && !handoff.open_questions.is_empty()
    {
        out.push_str("## Open questions\n\n");
        for question in &handoff.open_questions {
            out.push_str(&format!("- {}\n", one_line(question)));
        }
        out.push('\n');
    }
    for (status, heading) in [
        (ProposalStatus::Accepted, "## Accepted"),
        (ProposalStatus::Parked, "## Parked for later"),
        (ProposalStatus::Rejected, "## Rejected"),
    ] {
        let list: Vec<_> = council
            .proposals()
            .iter()
            .filter(|p| p.status == status)
            .collect();
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("{heading}\n\n"));
        for proposal in list {
            out.push_str(&format!(
                "- **{}**: {}\n",
                one_line(&proposal.text.title),
                sentence(&proposal.text.summary)
            ));
        }
        out.push('\n');
    }
    out
}

/// The supporting section: how the result was reached, ids and rules
/// included (RF-06 allows process detail here, after the result).
fn process_md(council: &Council) -> String {
    let config = council.config();
    let mut out = String::from("## How this was decided\n\n");
    out.push_str(&format!(
        "Council `{}`: {} mode, {} intensity (phases {}), {} preset (devil's advocate weight {:.2}, consensus {:.2}, security {:.2}). Participants: {}.\n\n",
        config.review_id,
        config.mode.as_str(),
        config.intensity.as_str(),
        config
            .intensity
            .phases()
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        config.preset.as_str(),
        config.params().da_weight,
        config.params().consensus_threshold,
        config.params().security_threshold,
        council
            .participants()
            .iter()
            .map(|p| if council.out().contains(p) {
                format!("{p} (no Phase 1 answer)")
            } else {
                p.clone()
            })
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if let Some(why) = council.fallback() {
        out.push_str(&format!(
            "**Fallback** (`debate-protocol-fallback`): {why}. Independent answers only; no challenge rounds and no merges.\n\n"
        ));
    }
    out.push_str(&format!(
        "Budget: {} of {} calls{}.",
        council.budget_used(),
        config.budget(),
        match council.budget_exhausted() {
            Some(why) => format!(" — {why}"),
            None => String::new(),
        }
    ));
    if let Some(stopped) = council.stopped() {
        out.push_str(&format!(" Challenge rounds: {stopped}."));
    }
    out.push_str("\n\n");
    if let Some(Outcome::Decided { rule, .. }) = council.outcome() {
        out.push_str(&format!("Verdict rule: {rule}.\n\n"));
    }
    if let Some(fairness) = config.seating.fairness.describe() {
        out.push_str(&format!("The final positions read {fairness}.\n\n"));
    }
    out.push_str(&rulers_md(&Protocol::board(council).items));
    if let Some(agreement) = council.agreement() {
        out.push_str(&format!("Final positions: {}.", agreement.summary()));
        if agreement.fewer_than_two_votes() {
            out.push_str(
                " Still uncertain: the participants were effectively fewer than two independent votes, so the confirmations rest on less than the headcount suggests.",
            );
        }
        out.push_str("\n\n");
    }
    out.push_str(&stability_lines(council));
    if let Some(assessment) = council.assessment() {
        out.push_str("| Finding | Severity | Origin | State | Why |\n|---|---|---|---|---|\n");
        let outcomes = assessment.outcomes_by_id();
        for finding in &assessment.findings {
            let outcome = outcomes.get(finding.id.as_str());
            out.push_str(&format!(
                "| {} | {} | {}{} | {} | {} |\n",
                finding.id,
                finding.severity,
                finding.origins.join(" + "),
                if finding.discovered {
                    " (discovered)"
                } else {
                    ""
                },
                outcome.map_or("", |o| o.state.as_str()),
                outcome
                    .map(|o| one_line(&o.rule).replace('|', "/"))
                    .unwrap_or_default()
            ));
        }
        out.push('\n');
        if !assessment.disputed_findings.is_empty() {
            out.push_str("Dissent at the end (`disputed_findings`):\n\n");
            for dissent in &assessment.disputed_findings {
                for dissenter in &dissent.dissenters {
                    out.push_str(&format!(
                        "- {} ({}): {} disputes it{}\n",
                        dissent.id,
                        dissent.state.as_str(),
                        dissenter.participant,
                        if dissenter.note.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", one_line(&dissenter.note))
                        }
                    ));
                }
            }
            out.push('\n');
        }
        for merge in &assessment.merges {
            out.push_str(&match (&merge.into, &merge.refused) {
                (Some(into), _) => format!(
                    "- Merged {} and {} into {into}.\n",
                    merge.findings[0], merge.findings[1]
                ),
                (None, Some(why)) => format!(
                    "- Did not merge {} and {}: {why}.\n",
                    merge.findings[0], merge.findings[1]
                ),
                _ => String::new(),
            });
        }
        if !assessment.merges.is_empty() {
            out.push('\n');
        }
    }
    for outcome in council.proposal_outcomes() {
        out.push_str(&format!("- {}: {}\n", outcome.id, outcome.rule));
    }
    if !council.proposal_outcomes().is_empty() {
        out.push('\n');
    }
    for challenge in council.challenges() {
        out.push_str(&challenge_line(challenge));
    }
    if !council.challenges().is_empty() {
        out.push('\n');
    }
    out.push_str(&format!(
        "The full record is in `{RECORD}`, every exchange in `{PACKETS}`, and every event and raw answer in `{TRANSCRIPT}`.\n"
    ));
    out
}

fn challenge_line(challenge: &Challenge) -> String {
    let mut line = format!(
        "- {} (round {}, {} → {}) on {}: {}",
        challenge.id,
        challenge.round,
        challenge.from,
        challenge.to,
        challenge.finding_id,
        challenge.state.as_str()
    );
    if let Some(why) = &challenge.undelivered {
        line.push_str(&format!(" ({why})"));
    }
    if challenge.state == ChallengeState::Dropped {
        let note = challenge
            .moderation
            .last()
            .and_then(|m| m.note.clone())
            .unwrap_or_default();
        if !note.is_empty() {
            line.push_str(&format!(" by the moderator: {}", one_line(&note)));
        }
    }
    line.push('\n');
    line
}

/// The stability receipt in "How this was decided" (issue 55): in how
/// many variants the verdict held, what each that flipped gave, and what
/// the requirement did; empty when none was asked for.
fn stability_lines(council: &Council) -> String {
    let Some(run) = council.stability_run() else {
        return String::new();
    };
    let Some(receipt) = &run.receipt else {
        return "Stability receipt: not finished.\n\n".to_string();
    };
    receipt.markdown(
        [
            "the final positions were asked for again",
            "each participant reading the findings and the exchange in another order, the authors under neutral labels where named",
        ],
        council.config().stability.required,
        crate::protocol::council::stability::GUARD,
    )
}
