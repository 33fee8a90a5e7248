//! The calls before the synthesis: the proposal, the critic's attack, the
//! panel's reviewers at once and blind to each other (QM-04) and the
//! proposer's revision; what each answer means when it comes back,
//! empty, unusable or not at all, and what follows it.
//!
//! Not responsible for the moderator's triage (`triage`) nor the
//! synthesis (`synthesis`).

use super::documents::reading_words;
use super::parse::{Vulnerability, parse_vulnerabilities, read_bottom_line};
use super::{Collected, Quick, QuickMode, ReviewState, Role, Step, documents, parse, prompts};
use crate::parse::Read;
use crate::protocol::fairness::agreement::{self, Agreement};
use crate::protocol::reading::slip_name;
use crate::protocol::{Answer, ByItem, Effect, LogKind, SharedSteps, Timestamp};
use serde_json::json;

impl Quick {
    pub(super) fn start_proposal(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Proposal, now);
        let context = json!({
            "topic": self.config.topic,
            "context": self.context_json(),
            "constraints": self.config.constraints,
        });
        self.start_single(&prompts::ADVERSARY_PROPOSAL, context, &Role::Proposer, now)
    }

    pub(super) fn start_attack(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Attack(self.config.mode.angle()), now);
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
        self.start_single(template, context, &Role::Critic, now)
    }

    /// Starts every reviewer at once, each blind to the others (QM-04).
    pub(super) fn start_reviews(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Reviews, now);
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
                &Role::Reviewer(role),
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
        self.core.enter(Step::Revision, now);
        let context = json!({
            "topic": self.config.topic,
            "proposal": self.proposal.as_ref().map(|p| p.raw.clone()).unwrap_or_default(),
            "critique": self.attack.as_ref().map(|a| a.raw.clone()).unwrap_or_default(),
        });
        self.start_single(&prompts::ADVERSARY_REVISION, context, &Role::Proposer, now)
    }

    /// The critic's attack, on disk: a challenge's bottom line, or a red
    /// team's findings, read item by item (issue 59); the other modes go
    /// on to what follows.
    pub(super) fn on_attack(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let keep = |quick: &mut Quick, raw: &str, normalised: Vec<String>| {
            quick.attack = Some(Collected {
                call_id: call_id.clone(),
                raw: raw.to_string(),
                at: now,
                normalised,
            });
        };
        match self.config.mode {
            QuickMode::Challenge => {
                let read = |text: &str| Ok(read_bottom_line(text));
                let count = |line: &Option<String>| usize::from(line.is_some());
                let reading = match self.core.read_by_item(&answer, read, count) {
                    ByItem::Asked(effects) => return effects,
                    ByItem::Unreadable(_) => unreachable!("a challenge always reads"),
                    ByItem::Read(reading) => reading,
                };
                keep(self, reading.text(&answer), reading.read.notes.clone());
                self.core
                    .calls
                    .note_readings(now, &call_id, &reading.read.notes);
                self.core
                    .leave_out(&answer.call, now, &reading.read.slips, slip_name, |_| {
                        "neither is taken: the result says the critic gave no one bottom line"
                            .to_string()
                    });
                let note = match &reading.read.value {
                    Some(line) => {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(&call_id),
                            format!("bottom line: {line}"),
                        );
                        "the critic's challenge, with its bottom line".to_string()
                    }
                    None => {
                        self.log(
                            now,
                            LogKind::Note,
                            Some(&call_id),
                            "the critic gave no one `Bottom line:`; the result line says so".into(),
                        );
                        "the critic's challenge; it gave no one bottom line".to_string()
                    }
                };
                self.finish(now, note)
            }
            QuickMode::Redteam => {
                let count = |found: &Vec<Vulnerability>| found.len();
                let reading = match self
                    .core
                    .read_by_item(&answer, parse_vulnerabilities, count)
                {
                    ByItem::Asked(effects) => return effects,
                    ByItem::Unreadable(error) => {
                        // The report is prose first: without a readable list
                        // there is nothing to triage, and the synthesizer
                        // works from the report as written.
                        keep(self, answer.output, Vec::new());
                        self.log(
                            now,
                            LogKind::Note,
                            Some(&call_id),
                            format!(
                                "the vulnerability list could not be read ({error}); no triage, the report goes to the synthesis as written"
                            ),
                        );
                        self.vulnerability_error = Some(error.to_string());
                        return self.start_synthesis(now);
                    }
                    ByItem::Read(reading) => reading,
                };
                let Read {
                    value: found,
                    notes,
                    slips,
                } = reading.read.clone();
                keep(self, reading.text(&answer), notes.clone());
                self.core.calls.note_readings(now, &call_id, &notes);
                self.core.leave_out(
                    &answer.call,
                    now,
                    &slips,
                    |slip| format!("finding {}", slip_name(slip)),
                    |_| "it was not put to you for triage, so the report does not list it among the findings that stand".to_string(),
                );
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
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
            _ => {
                keep(self, answer.output, Vec::new());
                self.after_attack(now)
            }
        }
    }

    /// What follows the attack in a mode that reads nothing of it.
    fn after_attack(&mut self, now: Timestamp) -> Vec<Effect> {
        match self.config.mode {
            QuickMode::Challenge | QuickMode::Redteam => Vec::new(),
            QuickMode::Premortem => self.start_synthesis(now),
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

    /// The answer of `role`, a reviewer, already on disk in its judge file
    /// (QM-06).
    pub(super) fn on_review(&mut self, role: Role, answer: &Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let Some(index) = self.review_index(role) else {
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
                let read = parse::read_reading(answer.output);
                let reading = read.value;
                // A reviewer is never asked again: a lens rated twice with
                // different numbers is said, and left out.
                self.core
                    .leave_out(&answer.call, now, &read.slips, slip_name, |_| {
                        "left out of the measure of how alike the reviewers read the work"
                            .to_string()
                    });
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

    /// Where `role`'s review stands among the panel's; `None` for a role
    /// that is no reviewer.
    pub(super) fn review_index(&self, role: Role) -> Option<usize> {
        let Role::Reviewer(role) = role else {
            return None;
        };
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
