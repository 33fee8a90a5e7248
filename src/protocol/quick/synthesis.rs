//! The synthesizer's document: its prompt per mode, the check that its
//! opening names none of the debate's machinery and passes no verdict
//! (RF-06, RF-08, QS-01), a red team's report checked against the
//! moderator's rulings, the one request to fix what is wrong, and what is
//! kept, with its warnings, when it is still wrong after that.
//!
//! Not responsible for the calls before it (`steps`, `triage`), nor for the
//! documents it ends up in (`documents`).

use super::parse::{split_opening, without_reading};
use super::{Quick, QuickMode, ReviewState, Role, SentBack, Step, Synthesis, binding, prompts};
use crate::protocol::calls::Unusable;
use crate::protocol::fairness::Blindfold;
use crate::protocol::record::provenance;
use crate::protocol::{Answer, Effect, LogKind, SharedSteps, Timestamp};
use crate::rulings::{self};
use serde_json::json;
use std::collections::BTreeSet;

impl Quick {
    pub(super) fn start_synthesis(&mut self, now: Timestamp) -> Vec<Effect> {
        self.core.enter(Step::Synthesis, now);
        let topic = self.config.topic.clone();
        let (template, context) = match self.config.mode {
            QuickMode::Panel => {
                let reviews = self.reviews_as_read(now);
                let missing: Vec<_> = self
                    .reviews
                    .iter()
                    .filter_map(|review| match &review.state {
                        ReviewState::Malformed(reason) | ReviewState::Skipped(reason) => {
                            Some(json!({"perspective": review.role.focus(), "reason": reason}))
                        }
                        _ => None,
                    })
                    .collect();
                (
                    &prompts::SYNTHESIS_PANEL,
                    json!({"topic": topic, "reviews": reviews, "missing": missing}),
                )
            }
            QuickMode::Premortem => (
                &prompts::SYNTHESIS_PREMORTEM,
                json!({"topic": topic, "analysis": self.attack_text()}),
            ),
            QuickMode::Redteam => {
                let findings: Vec<_> = self
                    .standing_findings()
                    .into_iter()
                    .map(|(finding, status, note)| {
                        json!({
                            "id": finding.id,
                            "severity": finding.severity.as_str(),
                            "status": status,
                            "title": finding.title,
                            "note": note.unwrap_or_default(),
                        })
                    })
                    .collect();
                let set_aside = self.set_aside().len();
                (
                    &prompts::SYNTHESIS_REDTEAM,
                    json!({
                        "topic": topic,
                        "report": self.attack_text(),
                        "findings": findings,
                        "set_aside": set_aside,
                        "rulings": rulings::section(&self.shared_rulings()),
                    }),
                )
            }
            QuickMode::Adversary => (
                &prompts::SYNTHESIS_ADVERSARY,
                json!({
                    "topic": topic,
                    "proposal": self.proposal.as_ref().map(|p| p.raw.clone()).unwrap_or_default(),
                    "critique": self.attack_text(),
                    "revision": self.revision.as_ref().map(|r| r.raw.clone()).unwrap_or_default(),
                    "revision_note": self.revision_skipped.clone().unwrap_or_default(),
                }),
            ),
            QuickMode::Challenge => unreachable!("a challenge has no synthesis"),
        };
        // What the answers cite that did not verify (issue 52), so the
        // reader's document does not pass it on as fact.
        let mut context = context;
        context["evidence_checks"] = json!(self.core.evidence.findings_in_all());
        self.start_single(template, context, &Role::Synthesizer, now)
    }

    /// The answered reviews as the synthesizer reads them. When the panel
    /// is judged fairly (issue 29): without their readings, an author's
    /// naming of itself masked (each masking noted once), in the
    /// synthesizer's own order, so the first review it reads is not the
    /// same one in every debate.
    fn reviews_as_read(&mut self, now: Timestamp) -> Vec<serde_json::Value> {
        let fairness = self.config.seating.fairness.clone();
        let material = std::iter::once(self.config.topic.as_str())
            .chain(self.config.context.iter().map(|doc| doc.text.as_str()));
        let mut blindfold = Blindfold::for_agents(
            &fairness,
            self.config.seating.agents.values().map(String::as_str),
        )
        .sparing(material);
        let reviews: Vec<serde_json::Value> = self
            .reviews
            .iter()
            .filter(|review| review.state == ReviewState::Answered)
            .map(|review| {
                let raw = review.raw.clone().unwrap_or_default();
                let mut text = match fairness.is_legacy() {
                    true => raw,
                    false => without_reading(&raw),
                };
                blindfold.cover(&mut text);
                json!({"perspective": review.role.focus(), "text": text})
            })
            .collect();
        if !fairness.is_legacy() {
            let how = match fairness.blind {
                true => "without their readings, self-identification masked, in its own order",
                false => "without their readings, unmasked (not blind), in its own order",
            };
            self.log(
                now,
                LogKind::Note,
                None,
                format!("fair judging: the synthesizer reads the reviews {how}"),
            );
        }
        let masked = blindfold.into_distinct();
        for masking in &masked {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("fair judging: {masking} in what the synthesizer reads"),
            );
        }
        self.masked = masked;
        fairness.arrange(&reviews, "synthesizer")
    }

    fn attack_text(&self) -> String {
        self.attack
            .as_ref()
            .map(|attack| attack.raw.clone())
            .unwrap_or_default()
    }

    /// What a synthesis opening names that a reader's opening must not:
    /// roles, scores, block or finding ids (RF-06, RF-08), a verdict
    /// (QS-01, RF-13, RF-14).
    fn narration(&self, opening: &str) -> Vec<String> {
        let mut found = provenance(opening, &self.config.topic, &super::role_words());
        if !self.config.checks_rulings {
            return found;
        }
        let known: BTreeSet<String> = self.vulnerability_ids.iter().cloned().collect();
        for id in binding::ids_in_opening(opening, &known) {
            found.push(format!("the finding id `{id}`"));
        }
        found.extend(binding::verdicts(opening));
        found
    }

    /// What keeps the opening from putting the bottom line first (RF-04,
    /// RF-12..RF-15, issue 60): an opening that begins by describing the
    /// document or the work, or a red team's that leads with a lesser
    /// finding than the most severe one still standing. Checked in every
    /// debate started under the rules that brought it.
    fn buried_lead(&self, opening: &str) -> Vec<String> {
        use crate::protocol::Edition;
        if !self.config.seating.edition.follows(Edition::CONCLUSIONS) {
            return Vec::new();
        }
        let mut found = Vec::new();
        if let Some(words) = binding::framing(opening) {
            found.push(format!(
                "it begins \"{words}…\", describing the document or the work instead of giving the result"
            ));
        }
        if self.config.mode == QuickMode::Redteam {
            let standing: Vec<(u8, String)> = self
                .standing_findings()
                .into_iter()
                .map(|(finding, _, _)| (finding.severity as u8, finding.title.clone()))
                .collect();
            let standing: Vec<(u8, &str)> = standing
                .iter()
                .map(|(rank, title)| (*rank, title.as_str()))
                .collect();
            found.extend(binding::lesser_lead(opening, &standing));
        }
        found
    }

    /// The synthesizer's document: usable when it is not empty. Its
    /// opening must name none of the debate's machinery and pass no
    /// verdict, and a red team's report must follow the moderator's
    /// rulings on its findings. An answer that does not is sent back once,
    /// naming each problem (one redo for the opening, else one recheck
    /// against the rulings); what is still wrong after that is kept, with
    /// a warning the reader sees first: the reader gets a document either
    /// way, never one presented as clean when it is not.
    pub(super) fn on_synthesis(&mut self, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let call_id = answer.call.call_id();
        let (opening, _) = split_opening(answer.output);
        if opening.is_empty()
            && self.config.checks_rulings
            && let Some(SentBack { call_id, raw }) = self.sent_back.take()
        {
            self.core.unusable.push(Unusable {
                call_id: answer.call.call_id(),
                raw: answer.output.to_string(),
                reason: "the second attempt has no opening paragraph".into(),
            });
            let extra = "the synthesizer was asked once more to fix this, and its second \
                         attempt had no opening paragraph, so the first is kept"
                .to_string();
            return self.keep_synthesis(call_id, &raw, Some(extra), now);
        }
        if opening.is_empty() {
            return self.repair_or_stop(
                answer,
                "the document has no opening paragraph before its first `## ` section",
            );
        }
        let narration = self.narration(&opening);
        let buried = self.buried_lead(&opening);
        let discrepancies = binding::summarise(&binding::against_rulings(
            answer.output,
            &self.ruled_findings(),
        ));
        if !answer.call.repaired && !answer.call.rechecked {
            if !narration.is_empty() || !buried.is_empty() {
                let mut problems = Vec::new();
                if !narration.is_empty() {
                    problems.push(format!(
                        "the opening paragraph names how the result was reached ({}); say the \
                         result itself, without naming roles, reviewers, scores, ids or a verdict",
                        narration.join(", ")
                    ));
                }
                if !buried.is_empty() {
                    problems.push(format!(
                        "the opening paragraph does not put the bottom line first ({}); open \
                         with the result a reader needs, in plain words",
                        buried.join("; ")
                    ));
                }
                let mut problem = problems.join("\n\nAlso, ");
                if !discrepancies.is_empty() {
                    problem.push_str("\n\nThe report also goes against the moderator's rulings:");
                    for discrepancy in &discrepancies {
                        problem.push_str(&format!("\n- {discrepancy}"));
                    }
                }
                self.sent_back = Some(SentBack {
                    call_id: call_id.clone(),
                    raw: answer.output.to_string(),
                });
                return self.repair_or_stop(answer, problem);
            }
            if !discrepancies.is_empty()
                && let Some(spec) = self.core.recheck(answer.clone(), &discrepancies)
            {
                self.core.unusable.push(Unusable {
                    call_id: call_id.clone(),
                    raw: answer.output.to_string(),
                    reason: format!(
                        "went against the moderator's rulings: {}",
                        discrepancies.join("; ")
                    ),
                });
                self.sent_back = Some(SentBack {
                    call_id,
                    raw: answer.output.to_string(),
                });
                return vec![Effect::StartCall(spec)];
            }
        }
        self.keep_synthesis(call_id, answer.output, None, now)
    }

    /// Takes `output` as the document, with a warning for whatever in it
    /// still goes against the rules or the rulings (`extra`: one more,
    /// such as a second attempt that never came), then ends the debate.
    pub(super) fn keep_synthesis(
        &mut self,
        call_id: String,
        output: &str,
        extra: Option<String>,
        now: Timestamp,
    ) -> Vec<Effect> {
        self.sent_back = None;
        let (opening, body) = split_opening(output);
        let mut warnings = Vec::new();
        let narration = self.narration(&opening);
        if !narration.is_empty() {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!(
                    "reader-first check: the opening still names {}; kept with a warning",
                    narration.join(", ")
                ),
            );
            warnings.push(format!(
                "its opening still names how the result was reached ({}), so read it as the \
                 synthesizer's account rather than a plain result",
                narration.join(", ")
            ));
        }
        for buried in self.buried_lead(&opening) {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!("reader-first check: {buried}; kept with a warning"),
            );
            warnings.push(format!(
                "its opening does not put the bottom line first: {buried}"
            ));
        }
        let discrepancies = binding::against_rulings(output, &self.ruled_findings());
        let describes_set_aside = discrepancies.iter().any(|discrepancy| {
            matches!(discrepancy, binding::Discrepancy::DescribesRejected { .. })
        });
        for discrepancy in binding::summarise(&discrepancies) {
            self.log(
                now,
                LogKind::Note,
                Some(&call_id),
                format!("rulings check: {discrepancy}; kept with a warning"),
            );
            warnings.push(discrepancy);
        }
        warnings.extend(extra);
        self.synthesis = Some(Synthesis {
            call_id,
            raw: output.to_string(),
            opening,
            body,
            at: now,
            warnings,
            describes_set_aside,
        });
        let mut note = match self.config.mode {
            QuickMode::Panel => {
                let answered = self
                    .reviews
                    .iter()
                    .filter(|review| review.state == ReviewState::Answered)
                    .count();
                format!("{answered} of {} reviews, synthesized", self.reviews.len())
            }
            QuickMode::Redteam => {
                let standing = self.standing_findings().len();
                format!(
                    "{} standing, {} set aside",
                    crate::words::counted(standing, "finding", "findings"),
                    self.set_aside().len()
                )
            }
            QuickMode::Adversary if self.revision.is_some() => {
                "proposal, challenge and revision, synthesized".to_string()
            }
            QuickMode::Adversary => "proposal and challenge, synthesized; no revision".to_string(),
            _ => "synthesized".to_string(),
        };
        let warned = self
            .synthesis
            .as_ref()
            .map_or(0, |synthesis| synthesis.warnings.len());
        if warned > 0 {
            note.push_str(&format!(
                "; WARNING: {} the synthesizer did not fix, stated at the top of the document",
                crate::words::counted(warned, "problem", "problems")
            ));
        }
        self.finish(now, note)
    }
}
