//! What the interfaces show of a planning debate: the stage strip, each
//! item's final decision (a deferred one settled afterwards included) and
//! the board's rows.
//!
//! Not responsible for where an answer goes (the `Rules` implementation in
//! `mod.rs`) nor for what each step does with it (the stage modules).

use super::model::{DecidedBy, Source, Verification};
use super::{Plan, Step};
use crate::protocol::Stage as _;
use crate::protocol::{Fact, ItemDecision, Ruling, StageInfo, Tone};
use crate::words::one_line;

impl Plan {
    pub(super) fn stages(&self) -> Vec<StageInfo> {
        let steps: Vec<Step> = if self.config.simple {
            vec![Step::Draft, Step::Synthesis, Step::Done]
        } else {
            Step::COMPLEX.to_vec()
        };
        steps.into_iter().map(|step| step.info()).collect()
    }

    /// The final decision on `id`, a deferred one settled afterwards
    /// included.
    pub fn final_decision(&self, id: &str) -> Option<ItemDecision> {
        match (self.decisions.get(id), self.book.resolution(id)) {
            (_, Some(resolution)) => Some(resolution.decision),
            (Some(decision), None) => Some(decision.decision),
            (None, None) => None,
        }
    }

    pub(super) fn board_rows(&self) -> Vec<Ruling> {
        let mut rows: Vec<Ruling> = self
            .items
            .iter()
            .map(|item| {
                let decision = self.decisions.get(&item.id);
                let settled = self.book.resolution(&item.id);
                let word = match (decision, settled) {
                    (Some(_), Some(resolution)) => Some(format!(
                        "DEFERRED→{}",
                        resolution.decision.past_tense().to_uppercase()
                    )),
                    (Some(decision), None) => Some(decision.decision.past_tense().to_uppercase()),
                    _ => None,
                };
                let tone = self
                    .final_decision(&item.id)
                    .map(|decision| match decision {
                        ItemDecision::Accept => Tone::Positive,
                        ItemDecision::Reject => Tone::Negative,
                        ItemDecision::Defer => Tone::Caution,
                    });
                let mut facts = vec![
                    Fact::new(&item.source.as_str().to_lowercase(), &item.category),
                    Fact::new(
                        match item.source {
                            Source::Critic => "severity",
                            Source::Optimizer => "priority",
                        },
                        item.level.as_str(),
                    ),
                ];
                if let Some(response) = self.responses.get(&item.id) {
                    facts.push(Fact::new("planner", response.decision.as_str()));
                }
                if let Some(decision) = decision {
                    if decision.by == DecidedBy::Moderator {
                        facts.push(Fact::warning("decided by", "moderator"));
                    }
                    if decision.note.is_some() {
                        facts.push(Fact::new("✎", "note"));
                    }
                }
                if let Some(other) = &item.refers_to {
                    facts.push(Fact::new(
                        match item.source {
                            Source::Critic => "reopens",
                            Source::Optimizer => "third option for",
                        },
                        other,
                    ));
                }
                Ruling {
                    subject: item.id.clone(),
                    title: one_line(&item.summary),
                    word,
                    tone,
                    // What decided it: the planner's reason only when the
                    // moderator ruled as it proposed.
                    rule: super::documents::why_ruled(self, &item.id, true),
                    facts,
                }
            })
            .collect();
        rows.extend(self.assumptions.iter().map(|assumption| {
            let status = assumption.status();
            let last = assumption
                .checks
                .iter()
                .rev()
                .find(|check| check.result == status)
                .or(assumption.checks.last());
            Ruling {
                subject: assumption.id.clone(),
                title: one_line(&assumption.text),
                word: Some(status.as_str().to_string()),
                tone: Some(match status {
                    Verification::Verified => Tone::Positive,
                    Verification::Refuted => Tone::Negative,
                    Verification::Unverified => Tone::Caution,
                }),
                rule: match (assumption.why_unverified(), last) {
                    (Some(why), _) => why,
                    (None, Some(check)) => {
                        let confirmed = match &check.evidence {
                            Some(evidence @ super::model::Evidence::Moderator(_)) => {
                                format!(" ({})", evidence.describe())
                            }
                            _ => String::new(),
                        };
                        format!(
                            "{} (round {}): {}{confirmed}",
                            check.by,
                            check.round,
                            one_line(&check.note)
                        )
                    }
                    (None, None) => "nobody has checked it yet".into(),
                },
                facts: {
                    let mut facts = vec![Fact::new("from", &assumption.from)];
                    if assumption.raised_by != super::PLANNER {
                        facts.push(Fact::new("raised by", &assumption.raised_by));
                    }
                    facts
                },
            }
        }));
        rows
    }
}
