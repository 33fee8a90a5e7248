//! What the interfaces show of a root-cause analysis: the stage strip and
//! one board row per hypothesis.
//!
//! Not responsible for where an answer goes (the `Rules` implementation in
//! `mod.rs`) nor for what each step does with it (the stage modules).

use super::model::{Challenge, ChallengeState, Hypothesis};
use super::{Rca, Step};
use crate::protocol::Stage as _;
use crate::protocol::{Fact, StageInfo};
use crate::words::one_line;

impl Rca {
    /// The stages; the restatement only when one was asked for.
    pub(super) fn stages(&self) -> Vec<StageInfo> {
        let mut steps = Step::ALL.to_vec();
        if self.restatement.is_some() {
            steps.insert(steps.len() - 1, Step::Restate);
        }
        steps.iter().map(|step| step.info()).collect()
    }

    /// One row of the hypotheses board.
    pub(super) fn board_row(&self, hypothesis: &Hypothesis) -> crate::protocol::Ruling {
        let derived = self.status_of(&hypothesis.id);
        let mine: Vec<&Challenge> = self.challenges_of(&hypothesis.id).collect();
        let count = |states: &[ChallengeState]| {
            mine.iter()
                .filter(|challenge| states.contains(&challenge.state))
                .count()
                .to_string()
        };
        let mut facts = vec![
            Fact::new("owner", &hypothesis.owner),
            Fact::new(
                "open",
                &count(&[
                    ChallengeState::Open,
                    ChallengeState::Proposed,
                    ChallengeState::Held,
                ]),
            ),
            Fact::new("answered", &count(&[ChallengeState::Answered])),
            Fact::new("resolved", &count(&[ChallengeState::Resolved])),
            Fact::new("evidence", &hypothesis.finding.evidence.len().to_string()),
        ];
        let mut hedges: Vec<String> = hypothesis.hedges.iter().map(|h| h.to_string()).collect();
        for challenge in &mine {
            for answer in &challenge.answers {
                for word in &answer.hedges {
                    if !hedges.contains(word) {
                        hedges.push(word.clone());
                    }
                }
            }
        }
        if !hedges.is_empty() {
            facts.push(Fact::warning("hedges", &hedges.join(", ")));
        }
        let rule = match &derived {
            Some(derived) => match self.ruled_out().get(&hypothesis.id) {
                Some(why) => format!(
                    "{}; ruled out by the moderator: {}",
                    derived.rule,
                    one_line(why)
                ),
                None => derived.rule.clone(),
            },
            None => {
                let pending: Vec<String> = mine
                    .iter()
                    .filter(|c| {
                        !matches!(
                            c.state,
                            ChallengeState::Resolved | ChallengeState::Withdrawn
                        )
                    })
                    .map(|c| format!("{} {}", c.id, c.state.as_str()))
                    .collect();
                if pending.is_empty() {
                    "active".to_string()
                } else {
                    format!("active: {}", pending.join(", "))
                }
            }
        };
        crate::protocol::Ruling {
            subject: hypothesis.id.clone(),
            title: one_line(&hypothesis.finding.claim),
            word: derived.as_ref().map(|d| d.status.as_str().to_string()),
            tone: derived.as_ref().map(|d| d.status.tone()),
            rule,
            facts,
        }
    }
}
