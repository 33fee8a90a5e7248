//! The council's hand-offs to the shared call plumbing: what every
//! prompt carries (who is asked, the task, the inventory, the history of
//! the challenges and the moderator's rulings), starting a call with the
//! packet it delivers (FP-49..FP-51), keeping an answer that was read or
//! marking one MALFORMED, and asking once more when an answer goes against
//! the rulings. Not responsible for which call a phase starts or what an
//! answer changes: the phase handlers decide that.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::json;

use super::model::{Challenge, Response, Role};
use super::packets::PacketKind;
use super::{Council, Submission, domains, pretty, rulings};
use crate::prompts::TemplateSpec;
use crate::protocol::supervision::LiveCall;
use crate::protocol::{Answer, Effect, LogKind, SharedSteps, Timestamp};

impl Council {
    /// Renders `template` for the participant in the slot `role` and
    /// starts the call, its answer written to `file` before it is read;
    /// the packet it carries and the envelope that delivers it are issued
    /// first (FP-49..FP-51).
    pub(super) fn start_call(
        &mut self,
        template: &TemplateSpec,
        mut context: serde_json::Value,
        role: &str,
        packet: PacketKind,
        file: String,
        now: Timestamp,
    ) -> Result<Effect, Vec<Effect>> {
        let seated = self.core.roster.role_named(role);
        let seated = seated.expect("a council asks only the participants its roster seats");
        let finding_ids: Vec<String> = self.findings.iter().map(|f| f.id.clone()).collect();
        let proposal_ids: Vec<String> = self.proposals.iter().map(|p| p.id.clone()).collect();
        let packet = self.exchange.packet(
            &self.config,
            packet,
            role,
            self.core.round,
            &finding_ids,
            &proposal_ids,
            &file,
        );
        context["packet"] = pretty(packet);
        let slot = self.core.slot(&seated);
        let started = self.start_or_stop(slot, template, &context, Some(file), now);
        started.map(Effect::StartCall)
    }

    /// [`Self::start_call`] for one of a step's several calls: `role` is
    /// awaited until it answers.
    pub(super) fn start_awaited(
        &mut self,
        template: &TemplateSpec,
        context: serde_json::Value,
        role: String,
        packet: PacketKind,
        file: String,
        now: Timestamp,
    ) -> Result<Effect, Vec<Effect>> {
        let effect = self.start_call(template, context, &role, packet, file, now)?;
        self.awaiting.insert(role);
        Ok(effect)
    }

    /// Keeps the text of `answer` that was read: its own, or the first
    /// answer of a repair that read worse (issue 59).
    pub(super) fn keep_text(&mut self, answer: &Answer<'_>, text: &str, normalised: Vec<String>) {
        let read = Answer {
            call: answer.call.clone(),
            output: text,
            now: answer.now,
        };
        let kept = self.core.calls.keep(&read, normalised);
        let (role, round) = (&kept.role, kept.round);
        self.exchange
            .response(role, round, &kept.file, &kept.call_id);
        self.submissions.push(kept);
    }

    /// Whether a participant may be asked once about the items of its
    /// answer that could not be read: only with a call to spare in the
    /// budget (A20: every call counts), else why not.
    pub(super) fn may_ask_again(&self) -> Result<(), String> {
        if self.affords(1) {
            Ok(())
        } else {
            Err(format!(
                "the budget has no call to spare ({} of {} used)",
                self.budget_used(),
                self.config.budget()
            ))
        }
    }

    /// Keeps an answer that could not be read: on disk with a MALFORMED
    /// marker, excluded, not retried.
    pub(super) fn malformed(&mut self, answer: &Answer<'_>, reason: String) {
        let now = answer.now;
        let call_id = answer.call.call_id();
        self.log(
            now,
            LogKind::Malformed,
            Some(&call_id),
            format!(
                "{}'s {} answer is malformed ({reason}); kept with a MALFORMED marker, excluded, not retried",
                answer.call.slot.role, answer.call.slot.stage
            ),
        );
        self.submissions.push(Submission {
            malformed: Some(reason),
            ..Submission::of(&answer.call, answer.output, now)
        });
    }

    /// Files every finding's citations, checked (issue 52): its evidence
    /// and its description; a finding none of whose citations verified is
    /// noted with the first that failed. A brainstorm's proposals are filed
    /// the same way (their summary and rationale), binding nothing: the
    /// devil's advocate is shown what did not verify.
    pub(super) fn file_evidence(&mut self) {
        let findings: Vec<(String, String, String)> = self
            .findings
            .iter()
            .map(|f| {
                (
                    f.id.clone(),
                    f.text.evidence.clone(),
                    f.text.description.clone(),
                )
            })
            .collect();
        for (id, evidence, description) in findings {
            let claim = self
                .core
                .evidence
                .file(&id, [evidence.as_str(), description.as_str()]);
            match claim.all_failed() {
                Some(why) => self.unverified.insert(id, why),
                None => self.unverified.remove(&id),
            };
        }
        let proposals: Vec<(String, String, String)> = self
            .proposals
            .iter()
            .map(|p| {
                (
                    p.id.clone(),
                    p.text.summary.clone(),
                    p.text.rationale.clone(),
                )
            })
            .collect();
        for (id, summary, rationale) in proposals {
            self.core
                .evidence
                .file(&id, [summary.as_str(), rationale.as_str()]);
        }
    }

    /// Findings none of whose citations verified, each with the first that
    /// failed (issue 52).
    pub fn unverified(&self) -> &BTreeMap<String, String> {
        &self.unverified
    }

    /// The inventory as every later prompt carries it (FP-21).
    pub(super) fn inventory(&self) -> serde_json::Value {
        if self.proposes() {
            let proposals: Vec<serde_json::Value> = self
                .proposals
                .iter()
                .map(|p| {
                    json!({
                        "id": p.id,
                        "origin": p.origin,
                        "status": p.status.as_str(),
                        "title": p.text.title,
                        "summary": p.text.summary,
                        "rationale": p.text.rationale,
                        "proposal_type": p.text.proposal_type.as_str(),
                        "maturity": p.text.maturity.as_str(),
                        "tradeoffs": p.text.tradeoffs,
                        "dependencies": p.text.dependencies,
                        "open_questions": p.text.open_questions,
                        "risks": p.text.risks,
                        "lineage": p.text.lineage,
                        "expansions": p.expansions,
                        "evidence_checks": self.core.evidence.findings_for([p.id.as_str()]),
                    })
                })
                .collect();
            return json!(proposals);
        }
        let findings: Vec<serde_json::Value> = self
            .findings
            .iter()
            .map(|f| {
                json!({
                    "id": f.id,
                    "origin": f.origins.join(", "),
                    "severity": f.severity.as_str(),
                    "title": f.text.title,
                    "description": f.text.description,
                    "evidence": f.text.evidence,
                    "evidence_checks": self.core.evidence.findings_for([f.id.as_str()]),
                    "recommendation": f.text.recommendation,
                    "domains": f.text.domains,
                    "discovered": f.discovered,
                    "withdrawn": f.withdrawn,
                    "merged_into": f.merged_into,
                })
            })
            .collect();
        json!(findings)
    }

    /// What every prompt shares: who this is (the participant in the slot
    /// `role`), the task and the material.
    pub(super) fn base_context(&self, role: &str) -> serde_json::Value {
        let seat = self.core.roster.seat_named(role);
        let seat = seat.expect("a council asks only the participants its roster seats");
        let domain = seat.role.domain();
        let found = domains::find(domain);
        json!({
            "role": role,
            "title": seat.title,
            "structural": matches!(seat.role, Role::Devil | Role::Checker),
            "devil": seat.role == Role::Devil,
            "checker": seat.role == Role::Checker,
            "domain": domain,
            "focus": found.map(|d| d.focus).unwrap_or_default(),
            "standards": found.map(|d| d.standards).unwrap_or_default(),
            "task": self.config.context_summary,
            "scope": self.config.topic,
            "domains": self.config.domains,
            "mode": self.config.mode.as_str(),
            "task_context": self.config.task_context().as_str(),
            "context": self.config.context,
            "sources": self.core.evidence.prompt(&self.config.topic),
            "participants": self.present(),
            "proposes": self.proposes(),
        })
    }

    /// The rulings section over `challenges` and what each was about, into
    /// a prompt's context (`rulings`, `ruled_challenges`).
    pub(super) fn put_rulings<'a>(
        &self,
        context: &mut serde_json::Value,
        challenges: impl IntoIterator<Item = &'a Challenge>,
    ) {
        let (section, about) = rulings::context(challenges);
        context["rulings"] = json!(section);
        context["ruled_challenges"] = pretty(about);
    }

    /// Asks `answer`'s agent once more, naming `discrepancies` with the
    /// moderator's rulings, when it has not been asked again yet; the call
    /// to start, or `None` (then the caller keeps the answer and records
    /// what still disagrees with [`Self::still_against`]).
    pub(super) fn ask_again(
        &mut self,
        answer: &Answer<'_>,
        discrepancies: &[String],
    ) -> Option<Effect> {
        if discrepancies.is_empty() || answer.call.rechecked || !self.config.binds_rulings {
            return None;
        }
        self.log(
            answer.now,
            LogKind::Note,
            Some(&answer.call.call_id()),
            format!(
                "{}'s {} answer goes against the moderator's rulings: {}",
                answer.call.slot.role,
                answer.call.slot.stage,
                discrepancies.join("; ")
            ),
        );
        let again = self.core.recheck(answer.clone(), discrepancies);
        again.map(Effect::StartCall)
    }

    /// Keeps `answer` (its `text` that was read), checked against the
    /// moderator's rulings: unless it is asked once more
    /// ([`Self::ask_again`], the call to start), what still goes against
    /// them is recorded.
    pub(super) fn keep_checked(
        &mut self,
        answer: &Answer<'_>,
        text: &str,
        discrepancies: Vec<String>,
        notes: Vec<String>,
    ) -> Option<Effect> {
        let now = answer.now;
        if let Some(again) = self.ask_again(answer, &discrepancies) {
            return Some(again);
        }
        self.still_against(&answer.call, discrepancies, now);
        self.keep_text(answer, text, notes);
        None
    }

    /// Records what still goes against the rulings once the one extra
    /// call is spent: logged, and stated in the deliverable.
    pub(super) fn still_against(
        &mut self,
        call: &LiveCall,
        discrepancies: Vec<String>,
        now: Timestamp,
    ) {
        if !self.config.binds_rulings {
            return;
        }
        for discrepancy in discrepancies {
            let line = format!("{}: {discrepancy}", call.slot.role);
            self.log(
                now,
                LogKind::Note,
                Some(&call.call_id()),
                format!("still against the moderator's rulings after asking again: {line}"),
            );
            self.against_rulings.push(line);
        }
    }

    /// The challenges and responses so far, for later prompts.
    pub(super) fn history(&self) -> serde_json::Value {
        let mut answers_to: HashMap<&str, Vec<&Response>> = HashMap::new();
        for response in &self.responses {
            let mut answered: HashSet<&str> = HashSet::new();
            for id in &response.answers {
                if answered.insert(id.as_str()) {
                    answers_to.entry(id.as_str()).or_default().push(response);
                }
            }
        }
        let challenges: Vec<serde_json::Value> = self
            .challenges
            .iter()
            .filter(|c| c.state.delivered())
            .map(|c| {
                let answers: Vec<serde_json::Value> = answers_to
                    .get(c.id.as_str())
                    .into_iter()
                    .flatten()
                    .map(|r| json!({"by": r.by, "type": r.kind.as_str(), "response": r.text, "evidence": r.evidence}))
                    .collect();
                json!({
                    "id": c.id,
                    "round": c.round,
                    "from": c.from,
                    "to": c.to,
                    "finding_id": c.finding_id,
                    "challenge": c.challenge,
                    "severity_challenge": c.severity_challenge,
                    "state": c.state.as_str(),
                    "answers": answers,
                })
            })
            .collect();
        let others: Vec<serde_json::Value> = self
            .responses
            .iter()
            .filter(|r| r.answers.is_empty())
            .map(|r| json!({"by": r.by, "round": r.round, "type": r.kind.as_str(), "finding_id": r.finding_id, "response": r.text}))
            .collect();
        json!({"challenges": challenges, "other_responses": others})
    }
}
