//! What the interfaces show of a council: its stage strip (the phases it
//! will run, by mode and intensity) and the board, one row per finding or
//! proposal with the facts a moderator looks at and, once decided, its
//! state and the rule that decided it.

use std::collections::HashMap;

use super::Council;
use super::model::{
    self, Challenge, ChallengeState, DEVIL, Finding, Proposal, Response, ResponseKind, SYNTHESIZER,
};
use super::verdict::{FindingOutcome, convergence::ProposalOutcome};
use crate::protocol::{Fact, Ruling, StageFocus, StageInfo};
use crate::words::one_line;

/// What the rows of one board look up, indexed once for all of them: a
/// row costs what its own finding has, not a scan of every challenge,
/// response and outcome of the council.
pub(super) struct RowIndex<'a> {
    /// Each finding's or proposal's challenges, in the order raised.
    challenges: HashMap<&'a str, Vec<&'a Challenge>>,
    /// The responses about each finding, in the order given.
    responses: HashMap<&'a str, Vec<&'a Response>>,
    outcomes: HashMap<&'a str, &'a FindingOutcome>,
    proposal_outcomes: HashMap<&'a str, &'a ProposalOutcome>,
}

impl Council {
    pub(super) fn row_index(&self) -> RowIndex<'_> {
        let mut challenges: HashMap<&str, Vec<&Challenge>> = HashMap::new();
        for challenge in &self.challenges {
            challenges
                .entry(challenge.finding_id.as_str())
                .or_default()
                .push(challenge);
        }
        let mut responses: HashMap<&str, Vec<&Response>> = HashMap::new();
        for response in &self.responses {
            responses
                .entry(response.finding_id.as_str())
                .or_default()
                .push(response);
        }
        let mut proposal_outcomes = HashMap::new();
        for outcome in &self.proposal_outcomes {
            proposal_outcomes
                .entry(outcome.id.as_str())
                .or_insert(outcome);
        }
        RowIndex {
            challenges,
            responses,
            outcomes: self
                .assessment
                .as_ref()
                .map(|assessment| assessment.outcomes_by_id())
                .unwrap_or_default(),
            proposal_outcomes,
        }
    }

    pub(super) fn stages(&self) -> Vec<StageInfo> {
        let board = StageFocus::Board;
        let mut stages = vec![StageInfo::new(
            "independent",
            if self.proposes() {
                "Diverge"
            } else {
                "Independent"
            },
            StageFocus::Stay,
        )];
        let debating = self.debating();
        if self.proposes() && debating {
            stages.push(StageInfo::new("expand", "Expand", board.clone()));
        }
        if debating {
            stages.push(StageInfo::new(
                "challenge",
                "Challenge",
                StageFocus::Role(DEVIL.into()),
            ));
            stages.push(StageInfo::new(
                "moderation",
                "Moderation",
                StageFocus::Items,
            ));
            stages.push(StageInfo::new("responses", "Responses", StageFocus::Stay));
        }
        stages.push(StageInfo::new(
            "final",
            if self.proposes() {
                "Converge"
            } else {
                "Final positions"
            },
            StageFocus::Stay,
        ));
        if self.proposes() {
            stages.push(StageInfo::new(
                "handoff",
                "Synthesis",
                StageFocus::Role(SYNTHESIZER.into()),
            ));
            // The synthesizer's work is the stage before; what it hands
            // over is the result.
            stages.push(StageInfo::new("done", "Handoff", board));
        } else {
            stages.push(StageInfo::new("done", "Verdict", board));
        }
        stages
    }

    /// One row of the findings board.
    pub(super) fn finding_row(&self, finding: &Finding, index: &RowIndex<'_>) -> Ruling {
        let outcome = index.outcomes.get(finding.id.as_str()).copied();
        let mine: &[&Challenge] = index
            .challenges
            .get(finding.id.as_str())
            .map_or(&[], Vec::as_slice);
        let answers: Vec<String> = index
            .responses
            .get(finding.id.as_str())
            .into_iter()
            .flatten()
            .filter(|r| r.kind != ResponseKind::Discovery)
            .map(|r| r.kind.as_str().to_string())
            .collect();
        let mut facts = vec![
            Fact::new("severity", finding.severity.as_str()),
            Fact::new("origin", &finding.origins.join("+")),
            Fact::new("domain", &finding.text.domains.join(",")),
        ];
        if finding.discovered {
            facts.push(Fact::new("discovered", &format!("round {}", finding.round)));
        }
        if !mine.is_empty() {
            let ids: Vec<String> = mine
                .iter()
                .map(|c| format!("{} {}", c.id, c.state.as_str()))
                .collect();
            facts.push(Fact::new("challenges", &ids.join(", ")));
        }
        if !answers.is_empty() {
            facts.push(Fact::new("responses", &answers.join(", ")));
        }
        if finding.severity != finding.reported_severity {
            facts.push(Fact::warning("was", finding.reported_severity.as_str()));
        }
        if let Some(into) = &finding.merged_into {
            facts.push(Fact::new("merged into", into));
        }
        if !finding.merged_from.is_empty() {
            facts.push(Fact::new("merges", &finding.merged_from.join("+")));
        }
        let (word, tone, rule) = match outcome {
            Some(outcome) => (
                Some(outcome.state.as_str().to_string()),
                Some(outcome.state.tone()),
                outcome.rule.clone(),
            ),
            None if finding.withdrawn.is_some() => (
                Some("withdrawn".to_string()),
                Some(model::FindingState::Withdrawn.tone()),
                finding.withdrawn.clone().unwrap_or_default(),
            ),
            None => {
                let open: Vec<String> = mine
                    .iter()
                    .filter(|c| {
                        matches!(
                            c.state,
                            ChallengeState::Proposed
                                | ChallengeState::Held
                                | ChallengeState::Delivered
                        )
                    })
                    .map(|c| c.id.clone())
                    .collect();
                let rule = if open.is_empty() {
                    "open until the final positions".to_string()
                } else {
                    format!("open: {} pending", open.join(", "))
                };
                (None, None, rule)
            }
        };
        Ruling {
            subject: finding.id.clone(),
            title: one_line(&finding.text.title),
            word,
            tone,
            rule,
            facts,
        }
    }

    /// One row of a brainstorm's proposals board.
    pub(super) fn proposal_row(&self, proposal: &Proposal, index: &RowIndex<'_>) -> Ruling {
        let outcome = index.proposal_outcomes.get(proposal.id.as_str()).copied();
        let mut facts = vec![
            Fact::new("type", proposal.text.proposal_type.as_str()),
            Fact::new("maturity", proposal.text.maturity.as_str()),
            Fact::new("origin", &proposal.origin),
        ];
        if !proposal.expansions.is_empty() {
            facts.push(Fact::new(
                "expansions",
                &proposal.expansions.len().to_string(),
            ));
        }
        let lineage = &proposal.text.lineage;
        if !lineage.is_empty() {
            let mut parts = Vec::new();
            if !lineage.merged_from.is_empty() {
                parts.push(format!("merges {}", lineage.merged_from.join("+")));
            }
            if !lineage.supersedes.is_empty() {
                parts.push(format!("supersedes {}", lineage.supersedes.join("+")));
            }
            if !lineage.derived_from.is_empty() {
                parts.push(format!("from {}", lineage.derived_from.join("+")));
            }
            facts.push(Fact::new("lineage", &parts.join("; ")));
        }
        let challenged: Vec<String> = index
            .challenges
            .get(proposal.id.as_str())
            .into_iter()
            .flatten()
            .map(|c| format!("{} {}", c.id, c.state.as_str()))
            .collect();
        if !challenged.is_empty() {
            facts.push(Fact::new("challenges", &challenged.join(", ")));
        }
        Ruling {
            subject: proposal.id.clone(),
            title: one_line(&proposal.text.title),
            word: Some(proposal.status.as_str().to_string()),
            tone: proposal.status.tone(),
            rule: outcome.map_or_else(|| format!("from {}", proposal.stage), |o| o.rule.clone()),
            facts,
        }
    }
}
