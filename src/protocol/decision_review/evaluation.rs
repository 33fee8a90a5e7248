//! Stage 4 of a decision review: the judge panel of a round, all at once
//! (DR-03), a moderator's re-run of a malformed or skipped judge, and the
//! end of the round: the verdict and a REVISE's loop back to revision
//! (RULES.md A8), or a comparison's ranking (A15). Not responsible for the
//! scoring rules: [`super::verdict`] and [`super::ranking`] hold them.

use std::collections::BTreeMap;

use serde_json::json;

use super::model::{
    Criterion, JudgeConfig, JudgeResult, JudgeRole, RevisionOutput, ThesisTree, Verdict, Weight,
};
use super::prompts::Template;
use super::stability::{Decided, missing_sentence};
use super::{
    CRITIC_ROLE, DecisionReview, EvaluationRound, JudgeRecord, JudgesReading, NumberedDirective,
    PROPOSER_ROLE, ReviewMode, Stage, SupersededAnswer, block_ids, cover_tree, directive_source,
    documents, judge_file, judge_slot_role, parse, ranking, tree_yaml, verdict,
};
use crate::parse::Read;
use crate::protocol::reading::slip_name;
use crate::protocol::supervision::{LiveCall, Slot};
use crate::protocol::{Answer, Effect, LogKind, Outcome, Timestamp};

impl DecisionReview {
    /// Starts every judge of the panel at once (DR-03), but a judge held
    /// out for the final revision (issue 29).
    pub(super) fn start_evaluation(&mut self, round: u32, now: Timestamp) -> Vec<Effect> {
        self.enter(Stage::Evaluation, round, now);
        let judged = self.judged_tree().clone();
        self.file_blocks(&judged, &format!("revision {round}"));
        // What every judge reads alike is masked once for the panel; each
        // judge then reads the blocks in its own order.
        let (reading, masked) = self.judges_reading();
        let mut effects = Vec::new();
        let mut judges = BTreeMap::new();
        for judge in self.config.panel.clone() {
            let slot_role = judge_slot_role(judge.role);
            // A held-out judge scores only the revision that decides.
            if self.config.fairness.holds_out(&slot_role) {
                continue;
            }
            match self.start_judge(&judge, round, &reading, now) {
                Ok((record, spec)) => {
                    judges.insert(judge.role, record);
                    effects.extend(spec.map(Effect::StartCall));
                }
                Err(failed) => return failed,
            }
        }
        self.evaluations.push(EvaluationRound {
            round,
            judges,
            assessment: None,
            ranking: None,
            held: false,
            released: false,
            masked,
            agreement: None,
            unverified_binding: None,
            stability: None,
        });
        if effects.is_empty() {
            // Every judge was recused: the round ends at once, on the
            // verdict rule's missing-judge checks.
            return self.conclude_round_if_complete(now);
        }
        effects
    }

    /// What every judge of a round reads alike, masked once, and each
    /// masking made.
    pub(super) fn judges_reading(&self) -> (JudgesReading, Vec<String>) {
        let (
            RevisionOutput {
                revised_tree: tree,
                change_log,
            },
            masked,
        ) = self.revision_for_judges();
        let reading = JudgesReading {
            tree,
            change_log_yaml: yaml_serde::to_string(&change_log).unwrap_or_default(),
            rulings: crate::rulings::listing(
                &self.standing_rulings(),
                "The revision was bound by these: it had to answer the accepted items, act on no \
                 rejected one and leave the deferred ones open. Weigh how well it did in \
                 revision_quality.",
            ),
            context: self.context_json(),
        };
        (reading, masked)
    }

    /// Starts `judge` on `reading`, in its own order of blocks and
    /// criteria; a judge recused for its family is recorded and not asked
    /// (no call).
    fn start_judge(
        &mut self,
        judge: &JudgeConfig,
        round: u32,
        reading: &JudgesReading,
        now: Timestamp,
    ) -> Result<(JudgeRecord, Option<crate::protocol::CallSpec>), Vec<Effect>> {
        let slot_role = judge_slot_role(judge.role);
        let fairness = &self.config.fairness;
        let shuffled = fairness.order_seed.is_some();
        let kinship = fairness.kinship(&slot_role, "proposer");
        if let Some(kin) = kinship.as_ref().filter(|kin| kin.recused()) {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!("fair judging: {}", kin.describe()),
            );
            let record = JudgeRecord {
                result: Some(JudgeResult::Recused {
                    reason: kin.describe(),
                }),
                kinship: kinship.clone(),
                ..JudgeRecord::default()
            };
            return Ok((record, None));
        }
        let blocks = ThesisTree {
            blocks: fairness.arrange(&reading.tree.blocks, &slot_role),
        };
        let block_ids = block_ids(&blocks);
        let own_criteria = fairness.arrange_criteria(&judge.criteria, &slot_role);
        let labels = [
            format!("proposer ({PROPOSER_ROLE})"),
            format!("critic ({CRITIC_ROLE})"),
        ];
        let context = self.judge_context(judge, round, reading, &blocks, &own_criteria, &labels);
        // Orders are the record's when they were drawn: a debate from
        // before fair judging read as written and says nothing.
        let (block_order, criteria_order) = if shuffled {
            let criteria = own_criteria.iter().map(|c| c.as_str().to_string());
            (block_ids.clone(), criteria.collect())
        } else {
            Default::default()
        };
        let slot = Slot::new(
            slot_role,
            crate::protocol::Stage::id(Stage::Evaluation),
            round,
        );
        let raw_output_path = Some(judge_file(judge.role, round));
        let spec = self.start_rendered(Template::Judge, context, slot, raw_output_path, now)?;
        let record = JudgeRecord {
            call_id: Some(spec.request.call_id.clone()),
            prompt: Some(spec.request.prompt.clone()),
            block_order,
            criteria_order,
            kinship,
            started_at: Some(now),
            ..JudgeRecord::default()
        };
        Ok((record, Some(spec)))
    }

    /// The held-out judge, once the rest of the panel decided on the
    /// final revision: asked to score it now, in the same round (issue
    /// 29). Empty when no judge is held out, or it is already in the round.
    fn start_held_out(&mut self, round: u32, now: Timestamp) -> Result<Vec<Effect>, Vec<Effect>> {
        let Some(judge) = self
            .config
            .panel
            .iter()
            .find(|judge| self.config.fairness.holds_out(&judge_slot_role(judge.role)))
            .cloned()
        else {
            return Ok(Vec::new());
        };
        let evaluation = self.evaluations.last().expect("a round is running");
        if evaluation.judges.contains_key(&judge.role) {
            return Ok(Vec::new());
        }
        let (reading, _) = self.judges_reading();
        let (record, spec) = self.start_judge(&judge, round, &reading, now)?;
        self.evaluations
            .last_mut()
            .expect("a round is running")
            .judges
            .insert(judge.role, record);
        Ok(match spec {
            Some(spec) => vec![Effect::StartCall(spec)],
            // Recused for its family: the verdict goes on without it.
            None => self.conclude_round_if_complete(now),
        })
    }

    /// The judge whose latest call is `call_id`, in a round still open,
    /// whose answer was malformed or who was skipped.
    pub(super) fn held_judge(&self, call_id: &str) -> Option<JudgeRole> {
        let evaluation = self.evaluations.last()?;
        if evaluation.assessment.is_some() {
            return None;
        }
        evaluation
            .judges
            .iter()
            .find(|(_, record)| {
                record.call_id.as_deref() == Some(call_id)
                    && matches!(
                        record.result,
                        Some(JudgeResult::Malformed { .. } | JudgeResult::Skipped { .. })
                    )
            })
            .map(|(role, _)| *role)
    }

    /// A moderator's re-run of a malformed or skipped judge while its round
    /// is open: the same prompt, as a new attempt with its own retry.
    pub(super) fn on_rerun(&mut self, call_id: &str, now: Timestamp) -> Vec<Effect> {
        let Some(role) = self.held_judge(call_id) else {
            self.push_log(
                now,
                LogKind::Note,
                Some(call_id),
                "re-run ignored: only a malformed or skipped judge of the open round can be re-run"
                    .into(),
            );
            return Vec::new();
        };
        let round = self.core.round;
        let evaluation = self
            .evaluations
            .last_mut()
            .expect("held_judge found a round");
        evaluation.held = false;
        let record = evaluation
            .judges
            .get_mut(&role)
            .expect("held_judge found it");
        let prompt = record.prompt.clone().unwrap_or_default();
        let attempt = record.attempt.max(1);
        let reason = match record.result.take() {
            Some(JudgeResult::Malformed { reason } | JudgeResult::Skipped { reason }) => reason,
            _ => String::new(),
        };
        // The replaced answer keeps a file of its own: the re-run writes
        // the judge's usual file.
        record.superseded.push(SupersededAnswer {
            call_id: call_id.to_string(),
            attempt,
            raw: record.raw.take(),
            reason,
        });
        record.normalised.clear();
        record.started_at = Some(now);
        record.finished_at = None;
        self.push_log(
            now,
            LogKind::Override,
            Some(call_id),
            format!("moderator: re-run {role} with the same prompt"),
        );
        let spec = self.core.calls.relaunch(
            Slot::new(
                judge_slot_role(role),
                crate::protocol::Stage::id(Stage::Evaluation),
                round,
            ),
            attempt + 1,
            prompt,
            Some(judge_file(role, round)),
            now,
        );
        self.evaluations
            .last_mut()
            .expect("a round is open")
            .judges
            .get_mut(&role)
            .expect("held_judge found it")
            .call_id = Some(spec.request.call_id.clone());
        vec![Effect::StartCall(spec)]
    }

    /// A held judge left out by the moderator: the round goes on without it.
    pub(super) fn on_skip_held(&mut self, call_id: &str, now: Timestamp) -> Vec<Effect> {
        if self.held_judge(call_id).is_none() {
            self.push_log(
                now,
                LogKind::Note,
                Some(call_id),
                "override ignored: the call is not live".into(),
            );
            return Vec::new();
        }
        self.push_log(
            now,
            LogKind::Override,
            Some(call_id),
            "moderator: go on without this judge".into(),
        );
        if let Some(evaluation) = self.evaluations.last_mut() {
            evaluation.released = true;
        }
        self.conclude_round_if_complete(now)
    }

    pub(super) fn judge_config(&self, role: JudgeRole) -> Option<&JudgeConfig> {
        self.config.panel.iter().find(|judge| judge.role == role)
    }

    pub(super) fn on_judge(&mut self, role: JudgeRole, answer: &Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = &answer.call.call_id();
        let judge = self
            .judge_config(role)
            .expect("judge slots come from the panel")
            .clone();
        let tree = self.judged_tree().clone();
        let round = self.core.round;
        // What an earlier answer of this judge in this round left unread no
        // longer stands: this answer (a re-run) replaces it.
        self.core.forget_unread_of(&answer.call);
        let mut normalised = Vec::new();
        let result = match parse::read_judge(answer.output, &judge, &tree) {
            Ok(Read {
                value: scores,
                notes,
                slips,
            }) => {
                self.core.calls.note_readings(now, call_id, &notes);
                normalised = notes;
                // A judge is never asked again (A14): a rationale missing is
                // said, and its score counts.
                self.core.leave_out(
                    &answer.call,
                    now,
                    &slips,
                    |slip| format!("reason for its {} score", slip_name(slip)),
                    |_| "the score counts; the judge gave no reason for it".to_string(),
                );
                self.push_log(
                    now,
                    LogKind::Note,
                    Some(call_id),
                    format!(
                        "{role}: {} block scores parsed from {}",
                        scores.block_scores.len(),
                        judge_file(role, round)
                    ),
                );
                JudgeResult::Scored(scores)
            }
            Err(error) => {
                // Persisted, excluded from scoring, never retried (INF-07..10).
                self.push_log(
                    now,
                    LogKind::Malformed,
                    Some(call_id),
                    format!(
                        "{role}: output unusable, excluded from scoring (not retried): {error}"
                    ),
                );
                let effect = self.without_judge(&judge);
                let what = if round > 1 {
                    format!("scores in round {round}")
                } else {
                    "scores".to_string()
                };
                self.core
                    .record_unread(&answer.call, what, error.to_string(), effect);
                JudgeResult::Malformed {
                    reason: error.to_string(),
                }
            }
        };
        let record = self.judge_answered(role, &answer.call, result, now);
        record.raw = Some(answer.output.to_string());
        record.normalised = normalised;
        self.conclude_round_if_complete(now)
    }

    /// What leaving `judge`'s scores out changes, in words: the rest of the
    /// panel decides, and without a binding judge nothing is adopted (A7).
    fn without_judge(&self, judge: &JudgeConfig) -> String {
        let decides = if self.config.mode == ReviewMode::Comparative {
            "the ranking rests on the other judges"
        } else {
            "the verdict rests on the other judges"
        };
        if judge.is_binding() && self.config.mode != ReviewMode::Comparative {
            format!(
                "its scores are left out: {decides}, and it cannot be ADOPT without this binding judge"
            )
        } else if judge.is_binding() {
            format!("its scores are left out, binding as it is: {decides}")
        } else {
            format!("its scores are left out: {decides}")
        }
    }

    pub(super) fn on_judge_given_up(
        &mut self,
        role: JudgeRole,
        call: &LiveCall,
        reason: String,
        now: Timestamp,
    ) -> Vec<Effect> {
        self.judge_answered(role, call, JudgeResult::Skipped { reason }, now);
        self.conclude_round_if_complete(now)
    }

    /// `role`'s record in the running round, with `result` and the call
    /// (and attempt) it came from.
    fn judge_answered(
        &mut self,
        role: JudgeRole,
        call: &LiveCall,
        result: JudgeResult,
        now: Timestamp,
    ) -> &mut JudgeRecord {
        let evaluation = self
            .evaluations
            .last_mut()
            .expect("judges belong to a round");
        let record = evaluation.judges.entry(role).or_default();
        record.call_id = Some(call.call_id());
        record.attempt = call.attempt;
        record.result = Some(result);
        record.finished_at = Some(now);
        record
    }

    pub(super) fn conclude_round_if_complete(&mut self, now: Timestamp) -> Vec<Effect> {
        let hold = self.config.hold_for_moderator;
        let evaluation = self.evaluations.last_mut().expect("a round is running");
        if evaluation
            .judges
            .values()
            .any(|record| record.result.is_none())
        {
            return Vec::new();
        }
        let missing: Vec<String> = evaluation
            .judges
            .iter()
            .filter(|(_, record)| {
                // A recused judge was never asked: there is nothing to re-run.
                !matches!(
                    record.result,
                    Some(JudgeResult::Scored(_) | JudgeResult::Recused { .. })
                )
            })
            .map(|(role, _)| role.to_string())
            .collect();
        if hold && !evaluation.released && !missing.is_empty() {
            evaluation.held = true;
            let message = format!(
                "waiting for the moderator: re-run {} or go on without {}",
                missing.join(", "),
                if missing.len() == 1 { "it" } else { "them" }
            );
            self.push_log(now, LogKind::Moderation, None, message);
            return Vec::new();
        }
        evaluation.held = false;
        let round = evaluation.round;
        if let Some(effects) = self.held_out_turn(round, now) {
            return effects;
        }
        let evaluation = self.evaluations.last_mut().expect("a round is running");
        // A debate from before fair judging keeps the record it had.
        if !self.config.fairness.is_legacy() {
            let agreement = evaluation.agreement();
            evaluation.agreement = Some(agreement);
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!("round {round}: {}", agreement.summary()),
            );
        }
        // Every judge's rationales are checked (issue 52); only a verdict
        // they could make an ADOPT is bound by them (EV-09).
        let unverified = self.file_judges(round);
        if self.config.mode == ReviewMode::Comparative {
            return self.conclude_comparison(round, now);
        }
        if let Some(evaluation) = self.evaluations.last_mut() {
            evaluation.unverified_binding = unverified.clone();
        }
        let evaluation = self.evaluations.last().expect("a round is running");
        let missing = self
            .config
            .stability
            .names_missing
            .then(|| missing_sentence(&evaluation.judges))
            .flatten();
        let kinships: Vec<_> = evaluation
            .judges
            .values()
            .filter_map(|record| record.kinship.clone())
            .collect();
        let assessment = verdict::derive_round(
            &self.config.panel,
            &evaluation.results(),
            &block_ids(self.judged_tree()),
            &self.config.thresholds,
            verdict::RoundFacts {
                held_out: self.held_out_role(),
                unverified: unverified.as_deref(),
                kinships: &kinships,
                missing: missing.as_deref(),
            },
        );
        if !assessment.quorum.met {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!(
                    "quorum shortfall: {} of {} judges gave usable output, {} needed; proceeding without blocking",
                    assessment.quorum.present,
                    self.config.panel.len(),
                    assessment.quorum.required
                ),
            );
        }
        self.push_log(
            now,
            LogKind::Verdict,
            None,
            format!(
                "round {round}: {} — {}",
                assessment.verdict, assessment.rule
            ),
        );
        let verdict = assessment.verdict;
        let directives: Vec<NumberedDirective> = assessment
            .directives
            .iter()
            .enumerate()
            .map(|(index, directive)| NumberedDirective {
                id: format!("d{}", index + 1),
                text: directive.text.clone(),
                source: directive_source(directive),
            })
            .collect();
        let rule = assessment.rule.clone();
        let mut sent_back_by: Vec<&'static str> = Vec::new();
        for directive in &assessment.directives {
            let by = match (&directive.judge, directive.criterion) {
                (Some(_), _) => "the binding judges",
                (None, Some(_)) => "the over-engineering guard",
                (None, None) => "the synthesis scores",
            };
            if !sent_back_by.contains(&by) {
                sent_back_by.push(by);
            }
        }
        let advisory: Vec<String> = assessment
            .advisory_notes
            .iter()
            .map(|note| format!("{} (advisory): {}", directive_source(note), note.text))
            .collect();
        self.evaluations
            .last_mut()
            .expect("a round is running")
            .assessment = Some(assessment);

        let loops_used = round - 1;
        if verdict == Verdict::Revise && loops_used < self.config.max_rounds {
            for directive in &directives {
                self.push_log(
                    now,
                    LogKind::Note,
                    None,
                    format!(
                        "directive {} ({}): {}",
                        directive.id, directive.source, directive.text
                    ),
                );
            }
            let ids = directives.iter().map(|d| d.id.clone()).collect();
            self.pending_directives = directives;
            self.pending_sent_back_by = sent_back_by;
            self.pending_advisory = advisory;
            return self.start_revision(round + 1, ids, now);
        }
        if verdict == Verdict::Revise {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!(
                    "REVISE is final: {} allowed and used",
                    crate::words::counted(
                        self.config.max_rounds as usize,
                        "revision loop",
                        "revision loops"
                    )
                ),
            );
        }
        self.end_with_verdict(round, verdict, rule, now)
    }

    /// The judge held out for the final revision, if any (issue 29).
    /// Files every scored judge's citations of `round` (its rationales),
    /// checked, as `judge analyst, round 1`; returns, when the binding
    /// judges cited and none of their citations verified, the first that
    /// failed (issue 52, EV-09).
    fn file_judges(&mut self, round: u32) -> Option<String> {
        let evaluation = self.evaluations.last()?;
        let scored: Vec<(JudgeRole, Vec<String>)> = evaluation
            .results()
            .into_iter()
            .filter_map(|(role, result)| {
                let scores = result.scores()?;
                let texts = scores
                    .block_scores
                    .iter()
                    .map(|score| score.rationale.clone())
                    .collect();
                Some((role, texts))
            })
            .collect();
        let mut binding = crate::protocol::evidence::Claim::default();
        for (role, texts) in scored {
            let claim = self.core.evidence.file(
                &format!("judge {}, round {round}", role.as_str()),
                texts.iter().map(String::as_str),
            );
            let binds = self
                .config
                .panel
                .iter()
                .any(|judge| judge.role == role && judge.weight == Weight::Binding);
            if binds {
                binding.absorb(claim);
            }
        }
        binding.all_failed()
    }

    pub(super) fn held_out_role(&self) -> Option<JudgeRole> {
        self.config
            .panel
            .iter()
            .map(|judge| judge.role)
            .find(|role| self.config.fairness.holds_out(&judge_slot_role(*role)))
    }

    /// The judges whose scores decide `evaluation` as it stands: the whole
    /// panel, but a held-out judge not asked in it.
    pub(super) fn deciding_panel(&self, evaluation: &EvaluationRound) -> Vec<JudgeConfig> {
        let absent = self
            .held_out_role()
            .filter(|role| !evaluation.judges.contains_key(role));
        verdict::seated_without(&self.config.panel, absent)
    }

    /// With a judge held out (issue 29): once the rest of the panel's
    /// verdict ends the debate (anything but a REVISE with a loop left),
    /// the held-out judge scores the same, final revision before the
    /// verdict is given. `None` when there is nothing to wait for.
    fn held_out_turn(&mut self, round: u32, now: Timestamp) -> Option<Vec<Effect>> {
        if self.config.mode != ReviewMode::Architecture {
            return None;
        }
        let role = self.held_out_role()?;
        let evaluation = self.evaluations.last()?;
        if evaluation.judges.contains_key(&role) {
            return None;
        }
        let tree = &self.revisions.last()?.output.revised_tree;
        let provisional = verdict::derive_verdict(
            &verdict::seated_without(&self.config.panel, Some(role)),
            &evaluation.results(),
            &block_ids(tree),
            &self.config.thresholds,
        );
        let loop_left = round - 1 < self.config.max_rounds;
        if provisional.verdict == Verdict::Revise && loop_left {
            return None;
        }
        self.push_log(
            now,
            LogKind::Note,
            None,
            format!(
                "round {round}: the panel says {} ({}); the held-out {role} now scores this final revision",
                provisional.verdict,
                provisional
                    .rule
                    .rsplit_once(" → ")
                    .map_or(provisional.rule.as_str(), |(reason, _)| reason)
            ),
        );
        Some(
            self.start_held_out(round, now)
                .unwrap_or_else(|failed| failed),
        )
    }

    /// A comparison ends after one evaluation, with the ranking the judges'
    /// scores imply and no verdict (A15); it never loops back to revise.
    /// With a stability receipt asked for, the receipt comes first.
    fn conclude_comparison(&mut self, round: u32, now: Timestamp) -> Vec<Effect> {
        let tree = self.judged_tree();
        let results = self
            .evaluations
            .last()
            .expect("a round is running")
            .results();
        let ranked = self.rank_options(tree, &results);
        let evaluation = self.evaluations.last_mut().expect("a round is running");
        evaluation.ranking = Some(ranked.clone());
        let order: Vec<&str> = ranked.ranking.iter().map(|o| o.option.as_str()).collect();
        self.push_log(
            now,
            LogKind::Verdict,
            None,
            format!(
                "round {round}: ranking {} — {}",
                order.join(" > "),
                ranked.conditional_recommendation
            ),
        );
        for option in ranked.ranking.iter().filter(|o| o.dealbreaker.is_some()) {
            self.push_log(
                now,
                LogKind::Note,
                None,
                format!(
                    "option {} has a dealbreaker: {}",
                    option.option,
                    option.dealbreaker.as_deref().unwrap_or_default()
                ),
            );
        }
        if self.config.stability.is_on() {
            return self.start_receipt(round, Decided::Ranking(ranked), now);
        }
        self.end_comparison(round, now)
    }

    /// The end of a comparison, once ranked (and its receipt in, when one
    /// was asked for): its recommendation, or why there is none.
    pub(super) fn end_comparison(&mut self, round: u32, now: Timestamp) -> Vec<Effect> {
        let evaluation = self.evaluations.last().expect("a round is running");
        let scored = evaluation
            .results()
            .values()
            .filter(|r| r.scores().is_some())
            .count();
        let needed = verdict::quorum_required(self.config.panel.len());
        let ranked = evaluation.ranking.as_ref().expect("ranked before it ends");
        let mut note = match (&ranked.recommendation, &ranked.withdrawn) {
            (Some(id), _) => format!("recommendation: {id}"),
            (None, Some(withdrawn)) => withdrawn.clone(),
            (None, None) => "no option can be recommended".to_string(),
        };
        if scored < needed {
            note.push_str(&format!(
                "; only {scored} of {} judges scored, below the quorum of {needed}",
                self.config.panel.len()
            ));
        }
        if let Some(receipt) = self.receipt()
            && ranked.withdrawn.is_none()
        {
            note.push_str(&format!("; {}", receipt.summary()));
        }
        self.enter(Stage::Done, round, now);
        let outcome = Outcome::Completed {
            deliverable: documents::SUMMARY_FILE.to_string(),
            note,
        };
        vec![self.core.finish(outcome)]
    }

    /// What the judge template is rendered with for `judge` in `round`:
    /// the blocks and its criteria in the order it reads them, and what the
    /// proposer and the critic are called (`labels`). The round's judges
    /// and a stability receipt's variants read through this one place.
    pub(super) fn judge_context(
        &self,
        judge: &JudgeConfig,
        round: u32,
        reading: &JudgesReading,
        blocks: &ThesisTree,
        criteria: &[Criterion],
        labels: &[String; 2],
    ) -> serde_json::Value {
        let criteria: Vec<_> = criteria
            .iter()
            .map(|criterion| json!({"name": criterion.as_str(), "question": criterion.question()}))
            .collect();
        json!({
            "topic": self.config.topic,
            "options": self.config.options,
            "context": reading.context,
            "role": judge.role.as_str(),
            "focus": judge.role.focus(),
            "weight": judge.weight.as_str(),
            "criteria": criteria,
            "block_ids": block_ids(blocks),
            "revised_yaml": tree_yaml(blocks),
            "change_log_yaml": reading.change_log_yaml,
            "rulings": reading.rulings,
            "proposer_label": labels[0],
            "critic_label": labels[1],
            "round": round,
        })
    }

    /// The options ranked by the judges' `results`, `tree` saying which
    /// option each block argues for (A15): at the end of a comparison, and
    /// on the board while judges are still scoring.
    pub(super) fn rank_options(
        &self,
        tree: &ThesisTree,
        results: &BTreeMap<JudgeRole, JudgeResult>,
    ) -> ranking::Ranking {
        self.rank_options_by(tree, &self.config.panel, results)
    }

    /// The options ranked by `panel` alone (a judge's own pick, `payoff`).
    pub(super) fn rank_options_by(
        &self,
        tree: &ThesisTree,
        panel: &[JudgeConfig],
        results: &BTreeMap<JudgeRole, JudgeResult>,
    ) -> ranking::Ranking {
        let ids: Vec<String> = self.config.options.iter().map(|o| o.id.clone()).collect();
        ranking::rank_tree(&ids, tree, panel, results, &self.config.thresholds)
    }

    /// The latest revision as the judges read it, with what masking hid:
    /// when judging is blind, an author's naming of itself (`As Claude, …`)
    /// is masked in every field an agent wrote.
    fn revision_for_judges(&self) -> (RevisionOutput, Vec<String>) {
        let mut revision = self
            .revisions
            .last()
            .expect("evaluation follows a revision")
            .output
            .clone();
        let mut blindfold = self.blindfold();
        cover_tree(&mut blindfold, &mut revision.revised_tree);
        for entry in &mut revision.change_log {
            blindfold.cover(&mut entry.before);
            blindfold.cover(&mut entry.after);
            if let Some(rationale) = &mut entry.rationale {
                blindfold.cover(rationale);
            }
        }
        (revision, blindfold.into_masked())
    }
}
