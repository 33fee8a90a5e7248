//! The planning debate as the engine and the TUI see it: its
//! [`Rules`](crate::protocol::Rules) (which step an answer is for, a
//! given-up call, the board, the settling of a deferred item, the check of
//! an answer before it is kept) and its
//! [`Questions`](crate::protocol::Questions) (roles, item words, open items
//! and questions, changes). Not responsible for the steps themselves: the
//! step files hold those, and this file only routes to them.

use super::{CRITIC, MAX_ROUNDS, PLANNER, Plan, Role, SYNTHESIZER, Step, docs, documents, parse};
use crate::protocol::supervision::LiveCall;
use crate::protocol::{
    Answer, Board, BoardItem, BoardView, Description, Effect, GivenUp, ItemDecision, LogKind,
    ModerationItem, Outcome, Progress, Refusals, RegionInfo, SharedSteps, Timestamp,
    documents::Documents, parses,
};
use crate::words::one_line;

impl crate::protocol::Rules for Plan {
    fn answered(&mut self, role: Role, answer: Answer<'_>) -> Vec<Effect> {
        match self.core.stage {
            Step::Draft => self.on_draft(answer),
            Step::Critique => self.on_critique(answer),
            Step::Review => self.on_review(answer),
            Step::Optimize => self.on_optimize(answer),
            Step::Respond => self.on_respond(answer),
            Step::Revise => self.on_revise(answer),
            Step::Final => self.on_final(role, answer),
            Step::Synthesis => self.on_synthesis(answer),
            Step::Moderation | Step::Done => Vec::new(),
        }
    }

    fn gave_up(&mut self, role: Role, call: LiveCall, why: GivenUp, now: Timestamp) -> Vec<Effect> {
        let reason = why.reason;

        if role == Role::Optimizer {
            if self.core.stage == Step::Final {
                self.missing
                    .push(format!("no final proposals from the optimizer ({reason})"));
                self.awaiting.remove(&Role::Optimizer);
                return self.conclude_final(now);
            }
            return self.optimizer_missing(reason, now);
        }
        // The planner, the critic and the synthesizer are required (A18).
        self.fail(now, call.no_answer(&reason))
    }

    fn refusals(&self) -> Refusals {
        Refusals {
            rerun: "a planning debate holds no round of judges".into(),
            reopen: "a planning debate is not reopened".into(),
            resolution: Refusals::default().resolution,
        }
    }

    fn begin(&mut self, now: Timestamp) -> Vec<Effect> {
        let mode = if self.config.simple {
            "simple mode: planner and synthesizer"
        } else {
            "planner, critic, optimizer and synthesizer, up to 2 rounds"
        };
        let message = format!("planning debate ({mode}): {}", self.config.topic);
        self.log(now, LogKind::Note, None, message);
        self.start_draft(now)
    }

    fn progress(&self) -> Progress {
        Progress {
            round: if self.config.simple {
                0
            } else {
                self.core.round
            },
            max_round: if self.config.simple { 0 } else { MAX_ROUNDS },
            ..Default::default()
        }
    }

    fn documents(&self, out: &mut Documents<'_>) {
        documents::documents(self, out)
    }

    /// The synthesizer's files in the person's folder, when named
    /// (`--write-docs DIR`).
    fn publications(&self) -> Vec<crate::protocol::Publication> {
        match documents::plan_md(self) {
            Some(plan) => docs::publications(self, &plan),
            None => Vec::new(),
        }
    }

    fn board(&self) -> Board {
        let mut items: Vec<BoardItem> = self
            .items
            .iter()
            .map(|item| {
                let (decision, note, ruler) = match self.decisions.get(&item.id) {
                    Some(decision) => (
                        Some(decision.decision),
                        decision.note.clone(),
                        self.book.settled_ruler(&item.id),
                    ),
                    None => match self.book.latest(&item.id) {
                        Some(record) if !record.settled => {
                            (record.decision, record.note.clone(), record.ruler)
                        }
                        _ => (None, None, None),
                    },
                };
                BoardItem {
                    item: self.moderation_item(item),
                    decision,
                    note,
                    ruler,
                    resolution: self.book.resolution(&item.id).cloned(),
                    evidence: Vec::new(),
                }
            })
            .collect();
        items.extend(self.verification_board_items());
        let mut required_roles = vec![PLANNER.to_string(), SYNTHESIZER.to_string()];
        if !self.config.simple {
            required_roles.push(CRITIC.to_string());
        }
        Board {
            stages: self.stages(),
            view: BoardView::Rulings(self.board_rows()),
            items,
            needs_moderator: self.core.moderating(),
            required_roles,
            resolvable: matches!(self.core.outcome, Some(Outcome::Completed { .. }))
                && !crate::protocol::Questions::open_items(self).is_empty(),
            ..Board::default()
        }
    }

    fn resolution_refusal(&self, item_id: &str, decision: ItemDecision) -> Option<String> {
        match &self.core.outcome {
            None => return Some("the debate is still running".into()),
            Some(Outcome::Failed { .. }) => {
                return Some("the debate stopped without a plan".into());
            }
            _ => {}
        }
        if self.item(item_id).is_none() {
            return Some("there is no such item".into());
        }
        if decision == ItemDecision::Defer {
            return Some("it is deferred already; settle it with accept or reject".into());
        }
        match self.decisions.get(item_id).map(|d| d.decision) {
            Some(ItemDecision::Defer) if self.book.resolution(item_id).is_some() => {
                Some("it was settled already".into())
            }
            Some(ItemDecision::Defer) => None,
            Some(other) => Some(format!(
                "it was {} in the debate, not deferred",
                other.past_tense()
            )),
            None => Some("it was never decided".into()),
        }
    }

    /// A person is asked to fix an item quorum cannot read, rather than
    /// have it left out.
    fn check_answer(&self, _: Role, call: &LiveCall, answer: &str) -> Result<(), String> {
        use crate::parse::whole;
        let raised: Vec<&str> = self.items.iter().map(|item| item.id.as_str()).collect();
        match self.core.stage_of(call) {
            Some(Step::Critique | Step::Review) => {
                parses(parse::read_challenges(answer, &raised).and_then(whole))
            }
            Some(Step::Optimize) => parses(parse::read_proposals(answer, &raised).and_then(whole)),
            Some(Step::Respond) => {
                let ids = self.round_ids();
                let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                parses(parse::read_responses(answer, &refs).and_then(whole))
            }
            _ => Ok(()),
        }
    }

    fn answer_template(&self, _: Role, call: &LiveCall) -> Option<String> {
        match self.core.stage_of(call)? {
            Step::Respond => Some(
                self.round_ids()
                    .iter()
                    .map(|id| format!("- {id}: accept — \n"))
                    .collect(),
            ),
            Step::Critique | Step::Review => Some(
                "**Challenge 1**: Category - One-line summary\nProblem: \nAssumes: \nEvidence: \nSuggestion: \nSeverity: HIGH\n".into(),
            ),
            Step::Optimize => Some(
                "**Improvement 1**: Category - One-line summary\nCurrent: \nProposed: \nBenefit: \nPriority: MEDIUM\n".into(),
            ),
            _ => None,
        }
    }
}

impl crate::protocol::Questions for Plan {
    fn describe(&self) -> Description {
        let roles = self.core.roster.role_infos(&self.core.calls);
        let complex = !self.config.simple;
        Description {
            topic: self.config.topic.clone(),
            label: if complex {
                "planning debate".into()
            } else {
                "planning debate · simple".into()
            },
            roles,
            deliverable: documents::PLAN.into(),
            items: complex.then(|| RegionInfo {
                title: "Critique items".into(),
                placeholder: "The critic's challenges and the optimizer's proposals appear here, with the planner's proposed response, for your decision.".into(),
            }),
            board: Some(RegionInfo {
                title: "Critique log".into(),
                placeholder: "Challenges, proposals and [UNVERIFIED] assumptions appear here as the debate raises them.".into(),
            }),
            about: if complex {
                "A planning debate: the planner drafts (marking unsure assumptions [UNVERIFIED]), the \
                 critic raises problems, then the optimizer proposes improvements and third options; \
                 the planner proposes a response to each item and you confirm or override it (a / r / d, \
                 n for a note) before the planner revises. Up to two rounds; then the critic's final \
                 assessment, the optimizer's final proposals, and the synthesizer writes plan.md with \
                 its critique log, which quorum checks against your decisions."
                    .into()
            } else {
                "A simple planning debate: the planner drafts and the synthesizer writes plan.md; every \
                 [UNVERIFIED] assumption becomes a task to investigate."
                    .into()
            },
            ending_note: "No verdict: a planning debate delivers a plan. Below is the opening of plan.md."
                .into(),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary_lead(self)
    }

    /// Issue 26: the plan's moderator confirms or overrides the planner.
    fn item_words(&self) -> crate::protocol::ItemWords {
        crate::protocol::ItemWords {
            about: Some(
                "Each item carries the planner's proposed decision: answering with the same \
                 decision confirms it, another overrides it. An assumption marked VERIFIED \
                 without evidence (U…) stays unverified unless you accept it.",
            ),
            ..crate::protocol::ItemWords::default()
        }
    }

    fn open_items(&self) -> Vec<ModerationItem> {
        self.items
            .iter()
            .filter(|item| {
                self.decisions
                    .get(&item.id)
                    .is_some_and(|d| d.decision == ItemDecision::Defer)
                    && self.book.resolution(&item.id).is_none()
            })
            .map(|item| self.moderation_item(item))
            .collect()
    }

    fn open_questions(&self) -> Vec<String> {
        self.open_assumptions()
            .iter()
            .map(|assumption| {
                let why = assumption
                    .why_unverified()
                    .map(|why| format!(" ({why})"))
                    .unwrap_or_default();
                format!(
                    "{} [UNVERIFIED] {}{why}",
                    assumption.id,
                    one_line(&assumption.text)
                )
            })
            .collect()
    }

    /// The plan as first drafted and as it ended, with every item the
    /// planner took on and your ruling on it.
    fn changes(&self) -> Vec<crate::protocol::ChangedPart> {
        let Some(draft) = self.kept.iter().find(|kept| kept.stage == "draft") else {
            return Vec::new();
        };
        if draft.raw == self.plan {
            return Vec::new();
        }
        let causes = self
            .items
            .iter()
            .filter_map(|item| {
                let decision = self.decisions.get(&item.id)?;
                (decision.decision == ItemDecision::Accept).then(|| {
                    let note = decision
                        .note
                        .as_deref()
                        .map(|note| format!(", noting \"{}\"", one_line(note)))
                        .unwrap_or_default();
                    format!(
                        "{} ({}, round {}), accepted{note}: {}",
                        item.id,
                        one_line(&item.category),
                        item.round,
                        one_line(&item.summary)
                    )
                })
            })
            .collect();
        vec![crate::protocol::ChangedPart {
            part: "the plan".into(),
            before: draft.raw.clone(),
            after: self.plan.clone(),
            causes,
            markdown: true,
        }]
    }
}
