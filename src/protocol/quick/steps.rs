//! The calls before the synthesis: the proposal, the critic's attack, the
//! panel's reviewers at once and blind to each other (QM-04) and the
//! proposer's revision; what each answer means when it comes back,
//! empty, unusable or not at all, and what follows it.
//!
//! Not responsible for the moderator's triage (`triage`) nor the
//! synthesis (`synthesis`).

use super::parse::{bottom_line, parse_vulnerabilities};
use super::{Quick, QuickMode, ReviewState, Step, documents, parse, prompts};
use crate::parse::Read;
use crate::protocol::fairness::agreement::{self, Agreement};
use crate::protocol::judges::JudgeRole;
use crate::protocol::{Answer, Effect, LogKind, SharedSteps, Timestamp};
use serde_json::json;

impl Quick {
    pub(super) fn start_proposal(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Proposal, now);
        let context = json!({
            "topic": self.config.topic,
            "context": self.context_json(),
            "constraints": self.config.constraints,
        });
        self.start_single(&prompts::ADVERSARY_PROPOSAL, context, "proposer", now)
    }

    pub(super) fn start_attack(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Attack, now);
        let mut context = json!({
            "topic": self.config.topic,
            "context": self.context_json(),
        });
        let template = match self.config.mode {
            QuickMode::Challenge => &prompts::CHALLENGE,
            QuickMode::Premortem => &prompts::PREMORTEM,
            QuickMode::Redteam => &prompts::REDTEAM,
            QuickMode::Adversary => {
                let proposal = self.proposal.as_ref().map(|p| p.raw.clone());
                context["proposal"] = json!(proposal.unwrap_or_default());
                &prompts::ADVERSARY_CHALLENGE
            }
            QuickMode::Panel => unreachable!("a panel review has no critic"),
        };
        self.start_single(template, context, "critic", now)
    }

    /// Starts every reviewer at once, each blind to the others (QM-04).
    pub(super) fn start_reviews(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Reviews, now);
        let mut effects = Vec::new();
        for index in 0..self.reviews.len() {
            let role = self.reviews[index].role;
            let context = json!({
                "topic": self.config.topic,
                "context": self.context_json(),
                "role": role.as_str(),
                "perspective": role.focus(),
                "readings": !self.config.seating.fairness.is_legacy(),
            });
            let raw_output_path = Some(documents::review_file(role));
            match self.start_call(
                &prompts::PANEL_REVIEWER,
                context,
                &role.slot(),
                raw_output_path,
                now,
            ) {
                Ok(effect) => {
                    if let Effect::StartCall(spec) = &effect {
                        self.reviews[index].call_id = Some(spec.request.call_id.clone());
                    }
                    effects.push(effect);
                }
                Err(failed) => return failed,
            }
        }
        effects
    }

    fn start_revision(&mut self, now: Timestamp) -> Vec<Effect> {
        self.enter(Step::Revision, now);
        let context = json!({
            "topic": self.config.topic,
            "proposal": self.proposal.as_ref().map(|p| p.raw.clone()).unwrap_or_default(),
            "critique": self.attack.as_ref().map(|a| a.raw.clone()).unwrap_or_default(),
        });
        self.start_single(&prompts::ADVERSARY_REVISION, context, "proposer", now)
    }

    pub(super) fn after_attack(
        &mut self,
        call_id: &str,
        output: &str,
        now: Timestamp,
    ) -> Vec<Effect> {
        match self.config.mode {
            QuickMode::Challenge => {
                let note = match bottom_line(output) {
                    Some(line) => {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(call_id),
                            format!("bottom line: {line}"),
                        );
                        "the critic's challenge, with its bottom line".to_string()
                    }
                    None => {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(call_id),
                            "the critic gave no `Bottom line:`; the result line says so".into(),
                        );
                        "the critic's challenge; it gave no bottom line".to_string()
                    }
                };
                self.finish(now, note)
            }
            QuickMode::Premortem => self.start_synthesis(now),
            QuickMode::Redteam => match parse_vulnerabilities(output) {
                Ok(Read {
                    value: found,
                    notes,
                }) => {
                    self.core.calls.note_readings(now, call_id, &notes);
                    if let Some(attack) = &mut self.attack {
                        attack.normalised = notes;
                    }
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "{} findings: {}",
                            found.len(),
                            found
                                .iter()
                                .map(|f| format!("{} {}", f.id, f.severity.as_str()))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                    self.vulnerability_ids = found.iter().map(|f| f.id.clone()).collect();
                    self.vulnerabilities = found;
                    self.start_moderation(now)
                }
                Err(error) => {
                    // The report is prose first: without a readable list
                    // there is nothing to triage, and the synthesizer works
                    // from the report as written.
                    self.log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!(
                            "the vulnerability list could not be read ({error}); no triage, the report goes to the synthesis as written"
                        ),
                    );
                    self.vulnerability_error = Some(error.to_string());
                    self.start_synthesis(now)
                }
            },
            QuickMode::Adversary if self.config.revision => self.start_revision(now),
            QuickMode::Adversary => {
                self.revision_skipped =
                    Some("the revision step was left out (`--no-revision`)".into());
                self.log(
                    now,
                    LogKind::Note,
                    None,
                    "revision left out: the debate was started without it".into(),
                );
                self.start_synthesis(now)
            }
            QuickMode::Panel => Vec::new(),
        }
    }

    /// A reviewer's answer, already on disk in its judge file (QM-06).
    pub(super) fn on_review(&mut self, answer: &Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let Some(index) = self.review_index(&answer.call.slot.role) else {
            return Vec::new();
        };
        let role = self.reviews[index].role;
        let state = if answer.output.trim().is_empty() {
            // Persisted, left out of the synthesis, never retried (INF-07..10).
            self.log(
                now,
                LogKind::Malformed,
                Some(&call_id),
                format!("{role}: empty review, left out of the synthesis (not retried)"),
            );
            ReviewState::Malformed("the review is empty".into())
        } else {
            let mut note = format!("{role}: review written to {}", documents::review_file(role));
            if !self.config.seating.fairness.is_legacy() {
                let reading = parse::reading(answer.output);
                self.reviews[index].reading = reading;
                note.push_str(&format!("; its reading: {}", reading_words(&reading)));
            }
            self.log(now, LogKind::Note, Some(&call_id), note);
            ReviewState::Answered
        };
        let review = &mut self.reviews[index];
        review.call_id = Some(call_id);
        review.raw = Some(answer.output.to_string());
        review.state = state;
        self.conclude_reviews_if_complete(now)
    }

    pub(super) fn review_index(&self, slot: &str) -> Option<usize> {
        let role = JudgeRole::of_slot(slot)?;
        self.reviews.iter().position(|review| review.role == role)
    }

    /// Once every reviewer answered or was skipped, the synthesis starts
    /// with the reviews there are (QM-09); with none, there is nothing to
    /// synthesize.
    pub(super) fn conclude_reviews_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        if self
            .reviews
            .iter()
            .any(|review| review.state == ReviewState::Pending)
        {
            return Vec::new();
        }
        let answered = self
            .reviews
            .iter()
            .filter(|review| review.state == ReviewState::Answered)
            .count();
        if answered == 0 {
            return self.fail(now, "no reviewer gave a usable review".into());
        }
        if !self.config.seating.fairness.is_legacy() {
            let agreement = self.reading_agreement();
            self.log(
                now,
                LogKind::Note,
                None,
                format!("the reviewers' readings: {}", agreement.summary()),
            );
            self.agreement = Some(agreement);
        }
        if answered < self.reviews.len() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!(
                    "{answered} of {} reviews in; the synthesis goes on without the rest",
                    self.reviews.len()
                ),
            );
        }
        self.start_synthesis(now)
    }
}

impl Quick {
    /// How far the reviewers' readings agreed (issue 29): each lens a
    /// unit, each answered reviewer's reading of it a vote.
    fn reading_agreement(&self) -> Agreement {
        let readers: Vec<&super::Review> = self
            .reviews
            .iter()
            .filter(|review| review.state == ReviewState::Answered)
            .collect();
        let units = (0..parse::LENSES.len())
            .map(|lens| readers.iter().map(|review| review.reading[lens]).collect())
            .collect();
        agreement::agreement(&agreement::Ratings {
            judges: readers.len(),
            units,
        })
    }
}

/// `elegance 7 · clarity 6 · rigour —`.
pub(super) fn reading_words(reading: &[Option<u8>; 3]) -> String {
    parse::LENSES
        .iter()
        .zip(reading)
        .map(|(lens, score)| match score {
            Some(score) => format!("{lens} {score}"),
            None => format!("{lens} —"),
        })
        .collect::<Vec<_>>()
        .join(" · ")
}
