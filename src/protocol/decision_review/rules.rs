//! The decision review as the engine and the TUI see it: its
//! [`Rules`](crate::protocol::Rules) (which stage an answer is for, a
//! given-up call, the moderator's overrides, the check of an answer before it
//! is kept) and its [`Questions`](crate::protocol::Questions) (roles, open
//! items, changes, hand-off). Not responsible for the stages themselves: the
//! stage files hold those, and this file only routes to them.

use super::model::{ItemDecision, Weight};
use super::{DecisionReview, Role, Stage, documents, moderation_item, parse};
use crate::protocol::supervision::LiveCall;
use crate::protocol::{
    Answer, AnswerFile, Board, Description, Effect, GivenUp, Input, LogKind, ModerationItem,
    OverrideAction, Progress, Refusals, RegionInfo, SharedSteps, Timestamp, documents::Documents,
};

impl crate::protocol::Rules for DecisionReview {
    fn answered(&mut self, role: Role, answer: Answer<'_>) -> Vec<Effect> {
        if let (Some(_), Role::Judge(judge)) = (variant_of(&answer.call), role) {
            return self.on_variant_judge(judge, &answer);
        }
        match (self.core.stage_of(&answer.call), role) {
            (Some(Stage::Proposal), _) => self.on_proposal(answer),
            (Some(Stage::Critique), _) => self.on_critique(answer),
            (Some(Stage::Revision), _) => self.on_revision(answer),
            (_, Role::Judge(judge)) => self.on_judge(judge, &answer),
            (_, Role::Proposer | Role::Critic) => {
                unreachable!("evaluation calls belong to judges")
            }
        }
    }

    fn gave_up(&mut self, role: Role, call: LiveCall, why: GivenUp, now: Timestamp) -> Vec<Effect> {
        let GivenUp {
            reason,
            by_moderator,
        } = why;
        if by_moderator && self.core.stage == Stage::Evaluation {
            // The moderator chose to go on without this judge; a held
            // round would only ask them again.
            if let Some(evaluation) = self.evaluations.last_mut() {
                evaluation.released = true;
            }
        }
        if let (Some(_), Role::Judge(judge)) = (variant_of(&call), role) {
            return self.on_variant_given_up(judge, &call, reason, now);
        }
        if let Role::Judge(judge) = role {
            return self.on_judge_given_up(judge, &call, reason, now);
        }
        // A required agent: no fabricated verdict (RULES.md A18).
        self.fail(now, call.no_answer(&reason))
    }

    const SETTLED_AFTER: &'static str = "after the verdict";

    fn item_resolved(&mut self, _item_id: &str, was_pending: bool, now: Timestamp) -> Vec<Effect> {
        self.on_item_resolved(was_pending, now)
    }

    fn reopened(&mut self, now: Timestamp) -> Vec<Effect> {
        self.on_reopened(now)
    }

    fn refusals(&self) -> Refusals {
        Refusals {
            reopen: self.reopen_refusal().into(),
            ..Refusals::default()
        }
    }

    /// A held judge can be run again, or left out, while its round is open.
    fn not_live_override(
        &mut self,
        call_id: &str,
        action: OverrideAction,
        now: Timestamp,
    ) -> Vec<Effect> {
        match action {
            OverrideAction::Rerun => self.on_rerun(call_id, now),
            OverrideAction::Skip => self.on_skip_held(call_id, now),
            OverrideAction::RetryNow | OverrideAction::WaitLonger { .. } => Vec::new(),
        }
    }

    /// After the verdict only its deferred items and a reopening apply.
    fn applies_after_end(&self, input: &Input) -> bool {
        matches!(input, Input::ItemResolved { .. } | Input::Reopened)
    }

    fn switched(&mut self) {
        self.sync_participants();
    }

    fn begin(&mut self, now: Timestamp) -> Vec<Effect> {
        self.push_log(
            now,
            LogKind::Note,
            None,
            format!(
                // Worded as quorum 0.1 wrote it: a recorded debate's
                // transcript is rebuilt byte for byte (tests/compat_legacy.rs).
                "decision review ({} mode, critique {}, {} judges, up to {} revise loop(s)): {}",
                self.config.mode.as_str(),
                self.config.critique_mode.as_str(),
                self.config.panel.len(),
                self.config.max_rounds,
                self.config.topic
            ),
        );
        self.start_proposal(now)
    }

    fn progress(&self) -> Progress {
        Progress {
            round: self.core.round,
            ..Default::default()
        }
    }

    fn documents(&self, out: &mut Documents<'_>) {
        documents::documents(self, out)
    }

    fn answer_files(&self) -> Vec<AnswerFile> {
        documents::answer_files(self)
    }

    fn usage_line(&self) -> Option<String> {
        crate::protocol::record::usage_line(self.core.calls.usage(), self.duration_ms())
    }

    fn payoff(&self) -> Option<crate::protocol::payoff::Payoff> {
        self.payoff_section()
    }

    fn result_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut fields = serde_json::Map::new();
        fields.insert(
            "decision".into(),
            serde_json::to_value(self.decision_record()).unwrap_or_default(),
        );
        if let Some(receipt) = self.receipt() {
            let required = self.config.stability.required;
            fields.insert("stability".into(), receipt.json(required));
        }
        fields
    }

    fn resolution_refusal(&self, item_id: &str, decision: ItemDecision) -> Option<String> {
        self.settle_refusal(item_id, decision)
    }

    fn board(&self) -> Board {
        self.board_now()
    }

    fn check_answer(&self, role: Role, call: &LiveCall, answer: &str) -> Result<(), String> {
        let error = match self.core.stage_of(call) {
            Some(Stage::Proposal) => parse::parse_thesis_tree(answer).err(),
            Some(Stage::Critique) => {
                let tree = self
                    .proposal
                    .as_ref()
                    .map(|p| &p.parsed)
                    .ok_or("no proposal yet")?;
                parse::parse_critique(answer, tree, self.config.critique_mode).err()
            }
            Some(Stage::Revision) => {
                parse::parse_revision(answer, &self.pending_must_address).err()
            }
            Some(Stage::Evaluation) => {
                let judge = match role {
                    Role::Judge(judge) => self.judge_config(judge),
                    Role::Proposer | Role::Critic => None,
                };
                let judge = judge.ok_or("not a judge of this panel")?;
                let tree = self.current_tree().ok_or("no revised tree yet")?;
                parse::parse_judge(answer, judge, tree).err()
            }
            // A variant of the stability receipt re-judges the tree the
            // deciding round judged.
            None if variant_of(call).is_some() => {
                let judge = match role {
                    Role::Judge(judge) => self.judge_config(judge),
                    Role::Proposer | Role::Critic => None,
                };
                let judge = judge.ok_or("not a judge of this panel")?;
                let tree = self.current_tree().ok_or("no revised tree yet")?;
                parse::parse_judge(answer, judge, tree).err()
            }
            _ => {
                let stage = &call.slot.stage;
                return Err(format!("no answer is expected in stage {stage}"));
            }
        };
        error.map_or(Ok(()), |error| Err(error.to_string()))
    }

    fn answer_template(&self, _: Role, call: &LiveCall) -> Option<String> {
        last_yaml_fence(&call.prompt)
    }
}

impl crate::protocol::Questions for DecisionReview {
    fn describe(&self) -> Description {
        let config = &self.config;
        let roles = self
            .core
            .roster
            .role_infos_with(&self.core.calls, |seat, info| match seat.role {
                Role::Judge(judge) => {
                    let binding = self.judge_config(judge).map(|judge| judge.weight);
                    info.binding(binding == Some(Weight::Binding))
                        .marked(config.fairness.marks(&seat.slot, "proposer"))
                }
                Role::Proposer | Role::Critic => info,
            });
        let mut label = format!(
            "decision review · {} · {} critique",
            config.mode.as_str(),
            config.critique_mode.as_str()
        );
        if config.high_stakes {
            label.push_str(" · high stakes");
        }
        Description {
            topic: config.topic.clone(),
            label,
            roles,
            deliverable: documents::SUMMARY_FILE.to_string(),
            items: Some(RegionInfo {
                title: "Critique items".into(),
                placeholder: "The critic's items appear here for your decision.".into(),
            }),
            board: Some(RegionInfo {
                title: "Scores".into(),
                placeholder: "Scores appear here as each judge's answer is parsed.".into(),
            }),
            about:
                "quorum runs a debate: a proposer proposes, a critic criticises, you decide each \
                    critique item, the proposer revises, the judges score, and the verdict follows \
                    from the scores."
                    .to_string(),
            ending_note: "The decision follows mechanically from the judges' scores; the \
                          summary below is what quorum wrote to summary.md."
                .to_string(),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        documents::summary_lead(self)
    }

    fn open_items(&self) -> Vec<ModerationItem> {
        self.open_deferred_items()
            .into_iter()
            .map(moderation_item)
            .collect()
    }

    fn changes(&self) -> Vec<crate::protocol::ChangedPart> {
        self.changed_parts()
    }

    /// A comparative review's recommendation, once ranked.
    fn handoff(&self) -> Option<crate::protocol::handoff::Handoff> {
        self.recommendation_handed_on()
    }

    /// Once a debate has ended (with a verdict, or failed in a reopened
    /// round), items accepted after its verdict that no revision has
    /// answered reopen it.
    fn reopen_pending(&self) -> bool {
        self.core.outcome.is_some() && !self.awaiting_reopen().is_empty()
    }
}

/// The variant of the stability receipt `call` is for, if any.
fn variant_of(call: &LiveCall) -> Option<u32> {
    crate::protocol::stability::variant_of_stage(&call.slot.stage)
}

/// The last fenced YAML block of a prompt: every prompt ends with the shape
/// of the answer it expects.
fn last_yaml_fence(prompt: &str) -> Option<String> {
    let start = prompt.rfind("```yaml\n")? + "```yaml\n".len();
    let end = prompt[start..].find("```")? + start;
    Some(prompt[start..end].to_string())
}
