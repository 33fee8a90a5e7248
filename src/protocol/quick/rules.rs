//! A quick debate as the engine and the TUI see it: its
//! [`Rules`](crate::protocol::Rules) (which step an answer is for, a
//! given-up call, the board, the check of an answer before it is kept) and
//! its [`Questions`](crate::protocol::Questions) (roles, item words,
//! changes, hand-off). Not responsible for the steps themselves: the step
//! files hold those, and this file only routes to them.

use super::parse::parse_vulnerabilities;
use super::{
    Angle, Collected, Quick, QuickMode, ReviewState, Role, SentBack, Step, documents,
    failure_modes, prompts,
};
use crate::prompts::TemplateSpec;
use crate::protocol::supervision::LiveCall;
use crate::protocol::{
    Answer, AnswerFile, Board, Description, Effect, GivenUp, LogKind, Progress, Refusals,
    RegionInfo, RoleGroup, SharedSteps, Timestamp, documents::Documents, parses,
};

impl crate::protocol::Rules for Quick {
    /// An answer that cannot be used is asked for once more, quoting what
    /// is wrong with it (A18: the role is required).
    const REPAIR: &'static TemplateSpec = &prompts::REDO;

    fn answered(&mut self, role: Role, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let empty = answer.output.trim().is_empty();
        match self.core.stage {
            Step::Reviews => self.on_review(role, &answer),
            Step::Proposal if empty => self.repair_or_stop(answer, "the answer is empty"),
            Step::Proposal => {
                self.proposal = Some(Collected {
                    call_id,
                    raw: answer.output.to_string(),
                    at: now,
                    normalised: Vec::new(),
                });
                self.start_attack(now)
            }
            Step::Attack(_) if empty => self.repair_or_stop(answer, "the answer is empty"),
            Step::Attack(_) => self.on_attack(answer),
            Step::Revision if empty => {
                if answer.call.repaired {
                    self.revision_skipped = Some(
                        "the proposer's answer to the challenge was empty twice; the document \
                         is written without it"
                            .into(),
                    );
                    self.log(
                        now,
                        LogKind::Skip,
                        Some(&call_id),
                        "revision left out: its answer was empty twice".into(),
                    );
                    return self.start_synthesis(now);
                }
                self.repair_or_stop(answer, "the answer is empty")
            }
            Step::Revision => {
                self.revision = Some(Collected {
                    call_id,
                    raw: answer.output.to_string(),
                    at: now,
                    normalised: Vec::new(),
                });
                self.start_synthesis(now)
            }
            Step::Synthesis => self.on_synthesis(answer),
            Step::Moderation | Step::Done => Vec::new(),
        }
    }

    fn gave_up(&mut self, role: Role, call: LiveCall, why: GivenUp, now: Timestamp) -> Vec<Effect> {
        let GivenUp {
            reason,
            by_moderator,
        } = why;

        let call_id = call.call_id();
        match self.core.stage {
            Step::Reviews => {
                if let Some(index) = self.review_index(role) {
                    let review = &mut self.reviews[index];
                    review.call_id = Some(call_id);
                    review.state = ReviewState::Skipped(reason);
                }
                self.conclude_reviews_if_complete(now)
            }
            Step::Revision => {
                self.revision_skipped = Some(if by_moderator {
                    "the moderator skipped the proposer's answer to the challenge".into()
                } else {
                    format!("the proposer gave no answer to the challenge ({reason})")
                });
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    "revision left out; the synthesis works from the proposal and the challenge"
                        .into(),
                );
                self.start_synthesis(now)
            }
            // The second attempt at a synthesis never came: the first,
            // readable one stands, with its problems stated.
            Step::Synthesis if self.config.checks_rulings && self.sent_back.is_some() => {
                let SentBack { call_id, raw } = self.sent_back.take().expect("checked");
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    "the synthesizer's second attempt gave no answer; its first is kept, with a warning"
                        .into(),
                );
                let extra = format!(
                    "the synthesizer was asked once more to fix this and gave no answer ({})",
                    reason.trim_end_matches('.')
                );
                self.keep_synthesis(call_id, &raw, Some(extra), now)
            }
            // A required agent: no fabricated result (RULES.md A18).
            _ => self.fail(now, call.no_answer(&reason)),
        }
    }

    fn refusals(&self) -> Refusals {
        Refusals {
            rerun: "a quick mode holds no round".into(),
            reopen: format!("{} has no verdict", self.config.mode.a_title()),
            resolution: format!(
                "{} has no verdict to settle items against",
                self.config.mode.a_title()
            ),
        }
    }

    fn begin(&mut self, now: Timestamp) -> Vec<Effect> {
        let message = format!("{}: {}", self.config.mode.title(), self.config.topic);
        self.log(now, LogKind::Note, None, message);
        match self.config.mode {
            QuickMode::Panel => self.start_reviews(now),
            QuickMode::Adversary => self.start_proposal(now),
            _ => self.start_attack(now),
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            round: 0,
            ..Default::default()
        }
    }

    fn documents(&self, out: &mut Documents<'_>) {
        documents::documents(self, out)
    }

    fn answer_files(&self) -> Vec<AnswerFile> {
        documents::answer_files(self)
    }

    fn board(&self) -> Board {
        let items = self.book.board_items();
        let mut required_roles = vec!["critic".to_string(), "synthesizer".to_string()];
        if self.core.stage != Step::Revision {
            required_roles.push("proposer".to_string());
        }
        Board {
            stages: self.stages(),
            items,
            needs_moderator: self.core.moderating(),
            required_roles,
            agreement: self
                .agreement
                .as_ref()
                .map(|agreement| format!("The reviewers' readings: {}", agreement.summary())),
            ..Board::default()
        }
    }

    fn check_answer(&self, _: Role, _: &LiveCall, answer: &str) -> Result<(), String> {
        if self.core.stage == Step::Attack(Angle::Redteam) {
            return parses(parse_vulnerabilities(answer));
        }
        Ok(())
    }
}

impl crate::protocol::Questions for Quick {
    fn describe(&self) -> Description {
        let mode = self.config.mode;
        let roles = self
            .core
            .roster
            .role_infos_with(&self.core.calls, |seat, info| match seat.group {
                RoleGroup::Synthesizer => {
                    info.marked(self.config.seating.fairness.marks(&seat.slot, ""))
                }
                _ => info,
            });
        Description {
            topic: self.config.topic.clone(),
            label: format!("quick · {}", mode.title()),
            roles,
            deliverable: mode.deliverable().to_string(),
            items: (mode == QuickMode::Redteam).then(|| RegionInfo {
                title: "Findings".into(),
                placeholder: "The red team's findings appear here for your decision.".into(),
            }),
            board: None,
            about: mode.about().to_string(),
            ending_note: format!(
                "No verdict: {} delivers a document. Below is what quorum wrote to {}.",
                mode.a_title(),
                mode.deliverable()
            ),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary_lead(self)
    }

    /// Issue 26: the red team's moderator confirms a finding, sets it aside
    /// or leaves it open, the words its report uses too.
    fn item_words(&self) -> crate::protocol::ItemWords {
        if self.config.mode != QuickMode::Redteam {
            return crate::protocol::ItemWords::default();
        }
        crate::protocol::ItemWords {
            accept: "confirm",
            reject: "set aside",
            defer: "leave open",
            about: Some(
                "Each item is a finding of the red team: confirm it as a real weakness, set it \
                 aside as not one (the report leaves it out), or leave it open (the report keeps \
                 it, marked unconfirmed).",
            ),
        }
    }

    /// An architecture challenge's design as proposed and as the proposer
    /// answered the challenge.
    fn changes(&self) -> Vec<crate::protocol::ChangedPart> {
        match (&self.proposal, &self.revision) {
            (Some(proposal), Some(revision)) if proposal.raw != revision.raw => {
                vec![crate::protocol::ChangedPart {
                    part: "the design".into(),
                    before: proposal.raw.clone(),
                    after: revision.raw.clone(),
                    causes: vec!["the proposer's answer to the critic's challenge".into()],
                    markdown: true,
                }]
            }
            _ => Vec::new(),
        }
    }

    /// A red team's findings still standing after triage, most severe
    /// first; a pre-mortem's root causes, as its synthesizer listed them.
    /// Both once the document is written.
    fn handoff(&self) -> Option<crate::protocol::handoff::Handoff> {
        use crate::protocol::handoff::{Handed, HandedFinding, Handoff};
        let synthesis = self.synthesis.as_ref()?;
        let (from, findings) = match self.config.mode {
            QuickMode::Redteam => (
                "red team",
                self.standing_findings()
                    .into_iter()
                    .map(|(finding, standing, _)| HandedFinding {
                        source_id: finding.id.clone(),
                        standing: standing.to_string(),
                        severity: finding.severity.as_str().to_string(),
                        title: finding.title.clone(),
                        detail: finding.description.clone(),
                    })
                    .collect(),
            ),
            QuickMode::Premortem => ("pre-mortem", failure_modes(&synthesis.body)),
            _ => return None,
        };
        Some(Handoff {
            from: from.into(),
            topic: self.config.topic.clone(),
            dir: String::new(),
            ending: String::new(),
            handed: Handed::Findings { findings },
        })
    }
}
