//! The council as the engine and the TUI see it: its
//! [`Rules`](crate::protocol::Rules) (which phase an answer is for, a
//! given-up call, the board, the check of an answer before it is kept) and
//! its [`Questions`](crate::protocol::Questions) (roles, item words, the
//! hand-off to a decision review). Not responsible for the phases
//! themselves: the phase files hold those, and this file only routes to them.

use serde_json::json;

use super::model::{self, ChallengeState, Role};
use super::{Council, Step, documents, parse};
use crate::protocol::supervision::LiveCall;
use crate::protocol::{
    Answer, Board, Description, Effect, GivenUp, LogKind, Progress, Publication, Refusals,
    RegionInfo, Timestamp, documents::Documents,
};

impl crate::protocol::Rules for Council {
    fn answered(&mut self, role: Role, answer: Answer<'_>) -> Vec<Effect> {
        // A variant of the stability receipt, whatever the step.
        if crate::protocol::stability::variant_of_stage(&answer.call.slot.stage).is_some() {
            return self.on_variant_final(&answer);
        }
        match (self.core.stage, role) {
            (Step::Independent, role) => self.on_independent(&role, answer),
            (Step::Expand, _) => self.on_expand(answer),
            (Step::Challenge, Role::Devil) => self.on_devil(answer),
            (Step::Responses, role) => self.on_responses(&role, answer),
            (Step::Final, _) => self.on_final(answer),
            (Step::Handoff, _) => self.on_handoff(answer),
            _ => Vec::new(),
        }
    }

    fn gave_up(&mut self, _: Role, call: LiveCall, why: GivenUp, now: Timestamp) -> Vec<Effect> {
        let reason = why.reason;

        // The participant, as the council's records name it: its slot.
        let role = call.slot.role.clone();
        let call_id = call.call_id();
        if crate::protocol::stability::variant_of_stage(&call.slot.stage).is_some() {
            return self.on_variant_given_up(&call, &reason, now);
        }
        match self.core.stage {
            Step::Independent => {
                self.out.insert(role.clone());
                let asked_at_the_end = self
                    .config
                    .seating
                    .edition
                    .follows(crate::protocol::Edition::CONCLUSIONS);
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    if asked_at_the_end {
                        format!(
                            "{role} gave no Phase 1 answer ({reason}); it takes no part in the rounds and is asked for a final position on what the others found"
                        )
                    } else {
                        format!("{role} gave no Phase 1 answer ({reason}); it is out of the council")
                    },
                );
                self.awaiting.remove(&role);
                self.after_independent(now)
            }
            Step::Expand => {
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!("{role} adds nothing to the inventory ({reason})"),
                );
                self.awaiting.remove(&role);
                self.after_expand(now)
            }
            Step::Challenge => {
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!(
                        "the devil's advocate gave no challenges in round {} ({reason})",
                        self.core.round
                    ),
                );
                self.open_moderation(now)
            }
            Step::Responses => {
                for c in self.challenges.iter_mut() {
                    if c.to == role && c.state == ChallengeState::Delivered {
                        c.state = ChallengeState::Unanswered;
                    }
                }
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!("{role} gave no answer in round {} ({reason}); its challenges stay unanswered", self.core.round),
                );
                self.awaiting.remove(&role);
                if self.awaiting.is_empty() {
                    return self.end_round(now);
                }
                Vec::new()
            }
            Step::Final => {
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!("{role} gave no final position ({reason}); it is not counted"),
                );
                let missing = format!("skipped: {}", crate::text::excerpt(reason.trim()));
                self.final_ended(&role, now, Some(missing));
                self.awaiting.remove(&role);
                if self.awaiting.is_empty() {
                    return self.conclude(now);
                }
                Vec::new()
            }
            Step::Handoff => {
                self.log(
                    now,
                    LogKind::Skip,
                    Some(&call_id),
                    format!("no handoff ({reason})"),
                );
                self.complete(now)
            }
            Step::Moderation | Step::Done => Vec::new(),
        }
    }

    fn refusals(&self) -> Refusals {
        Refusals {
            rerun: "a council holds no round of judges".into(),
            reopen: "a council is not reopened".into(),
            resolution: "a held-back challenge is not settled after the verdict".into(),
        }
    }

    fn begin(&mut self, now: Timestamp) -> Vec<Effect> {
        let message = format!(
            "council {} ({}, {} intensity, {} preset, {} experts + devil's advocate + integration checker, budget {} calls): {}",
            self.config.review_id,
            self.config.mode.as_str(),
            self.config.intensity.as_str(),
            self.config.preset.as_str(),
            self.config.domains.len(),
            self.config.budget(),
            self.config.topic
        );
        self.log(now, LogKind::Note, None, message);
        if let Some(why) = self.fallback.clone() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("fallback ({why}): independent answers only; phases 3 and 4 are skipped"),
            );
        }
        self.start_independent(now)
    }

    fn progress(&self) -> Progress {
        Progress {
            round: self.core.round,
            max_round: self.config.intensity.max_rounds(),
            budget: Some((self.budget_used(), self.config.budget())),
            ..Default::default()
        }
    }

    fn documents(&self, out: &mut Documents<'_>) {
        documents::documents(self, out)
    }

    fn answer_files(&self) -> Vec<crate::protocol::AnswerFile> {
        documents::answer_files(self)
    }

    fn publications(&self) -> Vec<Publication> {
        documents::publications(self)
    }

    fn payoff(&self) -> Option<crate::protocol::payoff::Payoff> {
        self.payoff_section()
    }

    fn result_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut fields = serde_json::Map::new();
        fields.insert("review_id".into(), json!(self.config.review_id));
        if let Some(receipt) = self.receipt() {
            let mut value = serde_json::to_value(receipt).unwrap_or_default();
            value["summary"] = receipt.summary().into();
            value["stable"] = receipt.stable().into();
            value["required"] = self.config.stability.required.into();
            fields.insert("stability".into(), value);
        }
        if let Some(assessment) = &self.assessment {
            let states: serde_json::Map<String, serde_json::Value> = assessment
                .outcomes
                .iter()
                .map(|o| (o.id.clone(), json!(o.state.as_str())))
                .collect();
            fields.insert("findings".into(), serde_json::Value::Object(states));
        }
        if !self.proposal_outcomes.is_empty() {
            let states: serde_json::Map<String, serde_json::Value> = self
                .proposal_outcomes
                .iter()
                .map(|o| (o.id.clone(), json!(o.status.as_str())))
                .collect();
            fields.insert("proposals".into(), serde_json::Value::Object(states));
        }
        if let Some(publication) = documents::publications(self).first() {
            fields.insert(
                "artifact".into(),
                json!(publication.path.display().to_string()),
            );
        }
        fields
    }

    fn board(&self) -> Board {
        let index = self.row_index();
        let rows = if self.proposes() {
            self.proposals
                .iter()
                .map(|p| self.proposal_row(p, &index))
                .collect()
        } else {
            let findings = match &self.assessment {
                Some(assessment) => &assessment.findings,
                None => &self.findings,
            };
            findings
                .iter()
                .map(|f| self.finding_row(f, &index))
                .collect()
        };
        let items = self.items.board_items();
        Board {
            stages: self.stages(),
            view: crate::protocol::BoardView::Rulings(rows),
            items,
            needs_moderator: self.core.moderating(),
            agreement: self
                .agreement
                .as_ref()
                .map(|agreement| format!("The final positions: {}", agreement.summary())),
            ..Board::default()
        }
    }

    fn check_answer(&self, _: Role, call: &LiveCall, answer: &str) -> Result<(), String> {
        let open = self.open_ids();
        let refs: Vec<&str> = open.iter().map(String::as_str).collect();
        let all: Vec<String> = self
            .findings
            .iter()
            .map(|f| f.id.clone())
            .chain(self.proposals.iter().map(|p| p.id.clone()))
            .collect();
        let all_refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let proposes = self.proposes();
        // A person is asked to fix an item quorum cannot read, rather than
        // have it left out.
        use crate::parse::whole;
        let result = match self.core.stage_of(call) {
            Some(Step::Independent) if proposes => {
                parse::read_proposals(answer).and_then(whole).map(drop)
            }
            Some(Step::Independent) => parse::read_findings(answer, "").and_then(whole).map(drop),
            Some(Step::Expand) => parse::read_expansions(answer, "", &refs)
                .and_then(whole)
                .map(drop),
            Some(Step::Challenge) => parse::read_devil(answer, &refs, proposes)
                .and_then(whole)
                .map(drop),
            Some(Step::Responses) => parse::read_responses(answer, &refs, "", proposes)
                .and_then(whole)
                .map(drop),
            Some(Step::Final) => parse::read_final(answer, "", &all_refs)
                .and_then(whole)
                .map(drop),
            Some(Step::Handoff) => parse::read_handoff(answer).and_then(whole).map(drop),
            _ => Ok(()),
        };
        result.map_err(|error| error.to_string())
    }

    fn answer_template(&self, _: Role, call: &LiveCall) -> Option<String> {
        Some(documents::answer_template(
            self,
            &call.slot.stage,
            &call.slot.role,
        ))
    }
}

impl crate::protocol::Questions for Council {
    fn describe(&self) -> Description {
        let roles = self
            .core
            .roster
            .role_infos_with(&self.core.calls, |seat, info| match seat.role {
                Role::Synthesizer => info,
                _ => info.marked(self.fairness_marks(&seat.slot)),
            });
        let what = if self.proposes() {
            "Proposals"
        } else {
            "Findings"
        };
        Description {
            topic: self.config.topic.clone(),
            label: format!(
                "council {} · {} · {} · {} preset{}",
                self.config.review_id,
                self.config.mode.as_str(),
                self.config.intensity.as_str(),
                self.config.preset.as_str(),
                if self.fallback.is_some() { " · fallback" } else { "" }
            ),
            roles,
            deliverable: documents::SUMMARY.into(),
            items: self.debating().then(|| RegionInfo {
                title: "Challenges".into(),
                placeholder: "The devil's advocate's challenges appear here for you to deliver, hold back or drop.".into(),
            }),
            board: Some(RegionInfo {
                title: what.into(),
                placeholder: format!("{what} appear here once the participants' Phase 1 answers are published."),
            }),
            about: if self.proposes() {
                "A five-phase brainstorm: every participant proposes on its own (Diverge); the inventory is published and improved (Expand); the devil's advocate challenges assumptions, complexity, feasibility and coupling, and you deliver, hold back or drop each challenge; every participant accepts, rejects or parks each proposal (Converge); a synthesizer writes the handoff: the accepted direction, open questions and the next step. No verdict.".into()
            } else {
                "A five-phase adversarial council: domain experts, a devil's advocate and an integration checker each investigate alone; quorum numbers and publishes the findings; the devil's advocate challenges every CRITICAL and HIGH finding it did not bring, you deliver, hold back or drop each challenge, and each goes to its target alone; findings that overlap are merged when both origins agree; every participant gives a final position, and quorum derives confirmed, disputed and withdrawn findings and PASS, CONCERNS or FAIL from them.".into()
            },
            ending_note: if self.proposes() {
                "quorum derived each proposal's status from the weighted final positions; the handoff is the synthesizer's.".into()
            } else {
                "quorum derived each finding's state from the weighted final positions and the verdict from the confirmed and disputed findings.".into()
            },
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary::summary_lead(self)
    }

    /// Issue 26: a council's moderator routes challenges.
    fn item_words(&self) -> crate::protocol::ItemWords {
        crate::protocol::ItemWords {
            accept: "deliver",
            reject: "drop",
            defer: "hold back",
            about: Some(
                "Each item is a challenge to a finding or a proposal: deliver it to its author, \
                 drop it as no real challenge, or hold it back for a later round.",
            ),
        }
    }

    /// The confirmed and disputed findings, in the inventory's order: what
    /// a decision review's moderator then rules on as critique items.
    fn handoff(&self) -> Option<crate::protocol::handoff::Handoff> {
        use crate::protocol::handoff::{Handed, HandedFinding, Handoff};
        let assessment = self.assessment.as_ref()?;
        let outcomes = assessment.outcomes_by_id();
        let findings = assessment
            .findings
            .iter()
            .filter_map(|finding| {
                let outcome = outcomes.get(finding.id.as_str())?;
                matches!(
                    outcome.state,
                    model::FindingState::Confirmed | model::FindingState::Disputed
                )
                .then(|| HandedFinding {
                    source_id: finding.id.clone(),
                    standing: outcome.state.as_str().to_string(),
                    severity: outcome.severity.as_str().to_lowercase(),
                    title: finding.text.title.clone(),
                    detail: finding.text.description.clone(),
                })
            })
            .collect();
        Some(Handoff {
            from: "council".into(),
            topic: self.describe().topic,
            dir: String::new(),
            ending: assessment.verdict.as_str().to_string(),
            handed: Handed::Findings { findings },
        })
    }
}
