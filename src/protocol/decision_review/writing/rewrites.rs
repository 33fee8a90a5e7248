//! The judges' rewrites and the merge of a writing-mode review: asking
//! each judge for a rewrite under its directive, reading them, and the
//! merge that gives the revised draft, checked against the moderator's
//! rulings.
//!
//! Not responsible for the critique and its moderation ([`super::critique`])
//! or the files (the documents module).

use super::*;
use crate::protocol::reading::slip_name;
use crate::protocol::{Answer, ByItem};

impl WritingReview {
    /// Every judge at once, each blind to the others; each answer goes to
    /// its judge file before it is read (INF-11, DR-61).
    pub(super) fn start_rewrites(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Rewrites, now);
        self.note_fair_reading("the judges", now);
        let mut effects = Vec::new();
        for index in 0..self.judges.len() {
            let seat = self.judges[index].seat.clone();
            let criteria: Vec<_> = seat
                .aspects
                .iter()
                .map(|aspect| json!({"name": aspect.as_str(), "question": aspect.question()}))
                .collect();
            // A fair panel scores the draft on every aspect, so that its
            // agreement can be measured (issue 29).
            let every_aspect = !self.config.seating.fairness.is_legacy();
            let scored: Vec<_> = match every_aspect {
                true => Aspect::ALL
                    .iter()
                    .map(|aspect| json!({"name": aspect.as_str()}))
                    .collect(),
                false => criteria.clone(),
            };
            let mut context = json!({
                "topic": self.config.topic,
                "draft": self.config.draft.text,
                "context": self.config.context,
                "role": seat.role.as_str(),
                "focus": seat.role.focus(),
                "criteria": criteria,
                "scored": scored,
                "every_aspect": every_aspect,
            });
            merge_into(&mut context, self.rulings_context());
            let slot = self.core.slot(&Role::Judge(seat.role));
            let file = Some(documents::judge_file(seat.role));
            let spec = match self.start_or_stop(slot, &prompts::REWRITE, &context, file, now) {
                Ok(spec) => spec,
                Err(effects) => return effects,
            };
            self.judges[index].call_id = Some(spec.request.call_id.clone());
            effects.push(Effect::StartCall(spec));
        }
        effects
    }

    /// The merge of the rewrites there are, under the directives (A16, DR-58).
    pub(super) fn start_merge(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Merge, now);
        self.note_fair_reading("the merge", now);
        let slot = self.core.slot(&Role::Synthesizer);
        let context = self.merge_context();
        self.ask(slot, &prompts::MERGE, &context, None, now)
    }

    /// What the merge's prompt is rendered from.
    pub fn merge_context(&self) -> serde_json::Value {
        let rewrites = self.rewrites_as_read(&mut self.blindfold());
        let missing: Vec<_> = self
            .judges
            .iter()
            .filter_map(|judge| match &judge.state {
                RewriteState::Malformed(reason) | RewriteState::Skipped(reason) => {
                    Some(json!({"role": judge.seat.role.as_str(), "reason": reason}))
                }
                _ => None,
            })
            .collect();
        let mut context = json!({
            "topic": self.config.topic,
            "draft": self.config.draft.text,
            "rewrites": rewrites,
            "missing": missing,
            "directives": directives(&self.config.panel),
        });
        merge_into(&mut context, self.rulings_context());
        context
    }

    /// Where `role`'s rewrite stands among the panel's; `None` for a role
    /// that is no judge of it.
    pub(super) fn judge_index(&self, role: Role) -> Option<usize> {
        let Role::Judge(role) = role else {
            return None;
        };
        self.judges.iter().position(|judge| judge.seat.role == role)
    }

    /// The answer of `judge`, already on disk in its judge file.
    pub(super) fn on_rewrite(&mut self, judge: JudgeRole, answer: &Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let Some(index) = self.judge_index(Role::Judge(judge)) else {
            return Vec::new();
        };
        let role = self.judges[index].seat.role;
        let file = documents::judge_file(role);
        let state = match parse_rewrite(answer.output) {
            Ok(Read {
                value: rewrite,
                notes,
                slips,
            }) => {
                self.core.calls.note_readings(now, &call_id, &notes);
                // A judge is never asked again: what of its rewrite cannot
                // be read is said, and the rewrite is used.
                self.core
                    .leave_out(&answer.call, now, &slips, slip_name, |_| {
                        "left out; the rewrite itself is used, and scores decide nothing here"
                            .to_string()
                    });
                let scored = if rewrite.scores.is_empty() {
                    String::new()
                } else {
                    let scores = crate::words::counted(rewrite.scores.len(), "score", "scores");
                    format!(", {scores} of the draft")
                };
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    format!("{role}: rewrite read from {file}{scored}"),
                );
                RewriteState::Rewritten {
                    rewrite,
                    readings: notes,
                }
            }
            Err(error) => {
                self.log(
                    now,
                    LogKind::Malformed,
                    Some(&call_id),
                    format!("{role}: the rewrite in {file} could not be read ({error}); left out of the merge, not retried"),
                );
                self.core.record_unread(
                    &answer.call,
                    "rewrite".into(),
                    error.to_string(),
                    "left out of the merge: the revised draft rests on the other rewrites".into(),
                );
                RewriteState::Malformed(error.to_string())
            }
        };
        let judge = &mut self.judges[index];
        judge.call_id = Some(call_id);
        judge.raw = Some(answer.output.to_string());
        judge.at = Some(now);
        judge.state = state;
        self.conclude_rewrites_if_complete(now)
    }

    /// Once every judge rewrote or was left out, the merge starts with the
    /// rewrites there are; with none there is nothing to merge.
    pub(super) fn conclude_rewrites_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        if self.core.stage != Step::Rewrites
            || self
                .judges
                .iter()
                .any(|judge| judge.state == RewriteState::Pending)
        {
            return Vec::new();
        }
        let usable = self
            .judges
            .iter()
            .filter(|judge| matches!(judge.state, RewriteState::Rewritten { .. }))
            .count();
        if usable == 0 {
            return self.fail(now, "no judge gave a usable rewrite".into());
        }
        if usable < self.judges.len() {
            let message = format!(
                "{usable} of {} rewrites in; the merge goes on without the rest",
                self.judges.len()
            );
            self.log(now, LogKind::Note, None, message);
        }
        self.measure_agreement(now);
        self.start_merge(now)
    }

    /// The merge: usable when it reads and its summary names none of the
    /// process; otherwise asked once more with the problem quoted. A
    /// summary that still narrates after that is replaced by one quorum
    /// writes from the changes.
    pub(super) fn on_merge(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let ids: Vec<String> = self
            .critique_items()
            .iter()
            .map(|item| item.id.clone())
            .collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let read = |text: &str| parse_merge_naming(text, &ids);
        let reading = match self
            .core
            .read_by_item(&answer, read, |merge| merge.changes.len())
        {
            ByItem::Asked(effects) => return effects,
            ByItem::Unreadable(error) => return self.redo_or_stop(answer, error.to_string()),
            ByItem::Read(reading) => reading,
        };
        let raw = reading.text(&answer).to_string();
        let Read {
            value: merge,
            notes,
            slips,
        } = reading.read;
        let against = self.against_rulings(&merge);
        if !against.is_empty() {
            let said: Vec<String> = against
                .iter()
                .map(|a| a.describe("the moderator"))
                .collect();
            if let Some(spec) = self.core.recheck(answer.clone(), &said) {
                let yours: Vec<String> = against.iter().map(|a| a.describe("you")).collect();
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    format!("the merge goes against your rulings: {}", yours.join("; ")),
                );
                self.asked_again.push(Unusable {
                    call_id,
                    raw: answer.output.to_string(),
                    reason: format!("against the rulings: {}", said.join("; ")),
                });
                return vec![Effect::StartCall(spec)];
            }
            let yours: Vec<String> = against.iter().map(|a| a.describe("you")).collect();
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!(
                    "the merge still goes against your rulings after being asked again; kept as it is and said so in {DELIVERABLE}: {}",
                    yours.join("; ")
                ),
            );
        }
        self.core.calls.note_readings(now, &call_id, &notes);
        self.core.leave_out(
            &answer.call,
            now,
            &slips,
            |slip| crate::protocol::reading::numbered(slip, "change"),
            |_| "the revised draft is used as written, but this change is not listed or credited to any item".to_string(),
        );
        let allowed = format!("{} {}", self.config.topic, self.config.draft.text);
        let narrated = merge
            .summary
            .as_deref()
            .map(|summary| {
                crate::protocol::record::provenance(summary, &allowed, &super::super::role_words())
            })
            .unwrap_or_default();
        let summary = match &merge.summary {
            Some(summary) if narrated.is_empty() => summary.clone(),
            Some(_) if !answer.call.repaired => {
                let problem = format!(
                    "the summary names how the text was revised ({}); say what changed in the \
                     text and why, without naming judges, roles, rewrites or scores",
                    narrated.join(", ")
                );
                return self.redo_or_stop(answer, problem);
            }
            Some(_) => {
                self.log(
                    now,
                    LogKind::Note,
                    Some(&call_id),
                    format!(
                        "reader-first check: the summary still names {} after one redo; quorum wrote one from the changes instead",
                        narrated.join(", ")
                    ),
                );
                documents::composed_summary(&merge.changes, &allowed)
            }
            None => documents::composed_summary(&merge.changes, &allowed),
        };
        self.log(
            now,
            LogKind::Note,
            Some(&call_id),
            format!(
                "merge read: revised draft of {} chars, {}",
                merge.revised_draft.chars().count(),
                crate::words::counted(merge.changes.len(), "change", "changes")
            ),
        );
        self.merged = Some(Merged {
            call_id,
            raw,
            merge,
            summary,
            readings: notes,
            against_rulings: against,
            at: now,
        });
        self.finish(now)
    }

    pub(super) fn redo_or_stop(&mut self, answer: Answer<'_>, problem: String) -> Vec<Effect> {
        let now = answer.now;
        let redo = &crate::protocol::quick::prompts::REDO;
        match self.core.refuse_answer(answer, &problem, redo) {
            Ok(spec) => vec![Effect::StartCall(spec)],
            Err(reason) => self.fail(now, reason),
        }
    }
}
