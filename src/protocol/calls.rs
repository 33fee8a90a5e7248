//! The call plumbing every protocol shares: which calls are live, who plays
//! each role slot now, what each finished call cost, what agents wrote on
//! the side, and the human-readable log — and the handling of every input
//! that is about calls rather than about the debate.
//!
//! A protocol owns one [`Calls`] and hands each input to [`Calls::route`]
//! first. Plumbing is dealt with there, the same way for every protocol: a
//! finished call's usage is recorded and logged, a failure goes through the
//! retry-once rule ([`Supervisor`]), a moderator's retry or wait is applied,
//! a role switched to another agent is recorded, a late answer from a call
//! that is no longer live is ignored. What is left for the protocol comes
//! back as a [`Routed`]: an answer to parse, a slot given up, or an input of
//! the protocol's own (an item decision, a re-run of a held judge).
//!
//! Not responsible for what an answer means, what giving a slot up means
//! (skip a judge, stop the debate), or which calls to start: the protocol
//! decides all three.

use std::collections::BTreeMap;

use super::supervision::{
    AfterFailure, AskAgain, LiveCall, STAGED_BY_SCRIPT, Slot, Supervisor, format_duration_ms,
};
use super::usage::{CallUsage, Measured, Price, UsageLedger};
use super::{
    CallFailure, CallSpec, Effect, Input, LogEntry, LogKind, OverrideAction, RoleGroup, RoleInfo,
    Timestamp,
};
use crate::prompts::{PromptSet, TemplateSpec};

/// What a provider said about a call besides its answer (a local program's
/// stderr), kept for the transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallDiagnostic {
    pub call_id: String,
    pub text: String,
    pub at: Timestamp,
}

/// An answer that could not be used, kept for the transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unusable {
    pub call_id: String,
    pub raw: String,
    pub reason: String,
}

/// An answer a protocol kept as it was written before it was read, for the
/// record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    pub call_id: String,
    /// The role slot: `debugger.alpha`, `critic`.
    pub role: String,
    /// The stage it answered in: `findings`, `challenge`.
    pub stage: String,
    pub round: u32,
    /// The file it was written to before it was read; empty when none.
    pub file: String,
    pub raw: String,
    /// Why it could not be used, when it was kept anyway (a council keeps
    /// such an answer with a MALFORMED marker, excluded).
    pub malformed: Option<String>,
    /// What the reader took other than as written.
    pub normalised: Vec<String>,
    pub at: Timestamp,
}

impl Submission {
    /// `call`'s answer `raw`, kept at `now`.
    pub fn of(call: &LiveCall, raw: &str, now: Timestamp) -> Self {
        Submission {
            call_id: call.call_id(),
            role: call.slot.role.clone(),
            stage: call.slot.stage.clone(),
            round: call.slot.round,
            file: call.raw_output_path.clone().unwrap_or_default(),
            raw: raw.to_string(),
            malformed: None,
            normalised: Vec::new(),
            at: now,
        }
    }
}

/// A live call's answer, as the plumbing hands it to a protocol: the call
/// it answers, its text (on disk before anything reads it) and when it
/// came.
#[derive(Clone, Debug)]
pub struct Answer<'a> {
    pub call: LiveCall,
    pub output: &'a str,
    pub now: Timestamp,
}

/// What is left for the protocol after [`Calls::route`].
#[derive(Debug)]
pub enum Routed<'a> {
    /// The plumbing dealt with the input; these are its effects (often none).
    Handled(Vec<Effect>),
    /// A live call answered. Its usage is recorded and logged; the protocol
    /// reads the answer.
    Answered(Answer<'a>),
    /// A slot is given up: its retry failed too, or the moderator skipped
    /// its running call (`effects` then cancels it). The protocol says what
    /// that means; its effects come after `effects`.
    GaveUp {
        call: LiveCall,
        reason: String,
        by_moderator: bool,
        effects: Vec<Effect>,
    },
    /// Not about calls, or about a call that is not live (a re-run of a held
    /// judge): the protocol's own.
    Protocol(&'a Input),
}

/// Live calls, the role roster, usage, diagnostics and the log of one debate.
#[derive(Clone, Debug, Default)]
pub struct Calls {
    supervisor: Supervisor,
    log: Vec<LogEntry>,
    usage: UsageLedger,
    diagnostics: Vec<CallDiagnostic>,
    /// Who plays each role slot now, as `provider:model`.
    agents: BTreeMap<String, String>,
}

impl Calls {
    /// The plumbing of a debate whose roles start with these agents.
    pub fn new(agents: BTreeMap<String, String>, prices: BTreeMap<String, Price>) -> Self {
        Calls {
            agents,
            usage: UsageLedger::priced(prices),
            ..Calls::default()
        }
    }

    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    pub fn usage(&self) -> &UsageLedger {
        &self.usage
    }

    pub fn diagnostics(&self) -> &[CallDiagnostic] {
        &self.diagnostics
    }

    /// Who plays `slot` now (after any switch).
    pub fn agent(&self, slot: &str) -> Option<&str> {
        self.agents.get(slot).map(String::as_str)
    }

    /// Every role slot with who plays it now.
    pub fn agents(&self) -> &BTreeMap<String, String> {
        &self.agents
    }

    /// Configured prices by `provider:model`, switches included.
    pub fn prices(&self) -> &BTreeMap<String, Price> {
        self.usage.prices()
    }

    pub fn live_call(&self, call_id: &str) -> Option<&LiveCall> {
        self.supervisor.live_call(call_id)
    }

    pub fn is_live(&self, call_id: &str) -> bool {
        self.supervisor.is_live(call_id)
    }

    pub fn live_call_ids(&self) -> Vec<String> {
        self.supervisor
            .live_calls()
            .map(|(id, _)| id.to_string())
            .collect()
    }

    pub fn live_calls(&self) -> impl Iterator<Item = &LiveCall> {
        self.supervisor.live_calls().map(|(_, call)| call)
    }

    pub fn push_log(
        &mut self,
        now: Timestamp,
        kind: LogKind,
        call_id: Option<&str>,
        message: String,
    ) {
        self.push_log_details(now, kind, call_id, message, Vec::new());
    }

    /// [`push_log`](Self::push_log) with the lines that go with the
    /// message ([`LogEntry::details`]).
    pub fn push_log_details(
        &mut self,
        now: Timestamp,
        kind: LogKind,
        call_id: Option<&str>,
        message: String,
        details: Vec<String>,
    ) {
        self.log.push(LogEntry {
            at: now,
            kind,
            call_id: call_id.map(str::to_string),
            message,
            details,
        });
    }

    /// Registers the first attempt of a slot; returns the call to start.
    pub fn start(
        &mut self,
        slot: Slot,
        prompt: String,
        raw_output_path: Option<String>,
        now: Timestamp,
    ) -> CallSpec {
        self.supervisor
            .start(slot, prompt, raw_output_path, now, &mut self.log)
    }

    /// The role `slot` as the interfaces introduce it, with the agent that
    /// plays it now.
    pub fn role_info(&self, slot: &str, title: impl Into<String>, group: RoleGroup) -> RoleInfo {
        RoleInfo::new(slot, title, group, self.agent(slot).unwrap_or_default())
    }

    /// Renders `template` with `context` and registers the first attempt of
    /// `slot` with the prompt; `Err` says why the prompt cannot be built
    /// (a debate stops on it).
    pub fn start_rendered(
        &mut self,
        slot: Slot,
        (prompts, template): (&PromptSet, &TemplateSpec),
        context: &serde_json::Value,
        raw_output_path: Option<String>,
        now: Timestamp,
    ) -> Result<CallSpec, String> {
        let prompt = prompts
            .render(template, context)
            .map_err(|error| format!("could not build the prompt: {error}"))?;
        Ok(self.start(slot, prompt, raw_output_path, now))
    }

    /// Logs what was read other than as written in `call_id`'s answer
    /// (`answer read leniently: …`), when anything was.
    pub fn note_readings(&mut self, now: Timestamp, call_id: &str, readings: &[String]) {
        if !readings.is_empty() {
            let message = crate::parse::readings_line(readings);
            self.push_log(now, LogKind::Note, Some(call_id), message);
        }
    }

    /// Keeps `answer`, read with `normalised` noted (and logged, see
    /// [`Self::note_readings`]).
    pub fn keep(&mut self, answer: &Answer<'_>, normalised: Vec<String>) -> Submission {
        let kept = Submission {
            normalised,
            ..Submission::of(&answer.call, answer.output, answer.now)
        };
        self.note_readings(answer.now, &kept.call_id, &kept.normalised);
        kept
    }

    /// Starts `attempt` of a slot that had finished, on the moderator's word.
    pub fn relaunch(
        &mut self,
        slot: Slot,
        attempt: u32,
        prompt: String,
        raw_output_path: Option<String>,
        now: Timestamp,
    ) -> CallSpec {
        self.supervisor
            .relaunch(slot, attempt, prompt, raw_output_path, now, &mut self.log)
    }

    /// Stops every live call: the debate is over. Logs `reason` as a
    /// failure when there is one; returns the cancellations.
    pub fn stop(&mut self, now: Timestamp, failure: Option<&str>) -> Vec<Effect> {
        if let Some(reason) = failure {
            self.push_log(
                now,
                LogKind::Failure,
                None,
                format!("debate stopped: {reason}"),
            );
        }
        let cancels = self
            .live_call_ids()
            .into_iter()
            .map(|call_id| Effect::CancelCall { call_id })
            .collect();
        self.supervisor = Supervisor::default();
        cancels
    }

    /// One repair call for a finished slot whose answer could not be used,
    /// quoting `error` (a slot gets one), asked with `template` (given
    /// `original_prompt`, `previous_output` and `error`). `Err` carries why
    /// the debate cannot go on: the repair was used already, or its prompt
    /// cannot be built.
    pub fn repair(
        &mut self,
        Answer { call, output, now }: Answer<'_>,
        error: &str,
        (prompts, template): (&PromptSet, &TemplateSpec),
    ) -> Result<CallSpec, String> {
        let (role, stage) = (call.slot.role.clone(), call.slot.stage.clone());
        if call.repaired {
            return Err(format!(
                "the {role}'s {stage} answer could not be parsed, even after a repair attempt: {error}"
            ));
        }
        let prompt = again_prompt(&call, output, ("error", error.into()), prompts, template)
            .map_err(|error| format!("could not build the prompt: {error}"))?;
        self.supervisor
            .ask_once(AskAgain::Repair, call, prompt, now, &mut self.log)
            .ok_or_else(|| format!("the {role}'s {stage} answer could not be parsed: {error}"))
    }

    /// Asks `answer`'s agent once more when the readable answer went against
    /// the moderator's rulings, naming each of `discrepancies`, with
    /// `template` (given `original_prompt`, `previous_output` and
    /// `discrepancies`). `None` when the slot was asked again already (or
    /// the prompt cannot be built: logged): the protocol then keeps the
    /// answer and states what still disagrees.
    pub fn recheck(
        &mut self,
        Answer { call, output, now }: Answer<'_>,
        discrepancies: &[String],
        (prompts, template): (&PromptSet, &TemplateSpec),
    ) -> Option<CallSpec> {
        if call.rechecked {
            return None;
        }
        // What the recheck answers is read whole, on its own: the answer
        // of the items repaired before it has been read already.
        let call = LiveCall {
            first_reply: None,
            ..call
        };
        let named = ("discrepancies", discrepancies.into());
        match again_prompt(&call, output, named, prompts, template) {
            Ok(prompt) => {
                let (supervisor, log) = (&mut self.supervisor, &mut self.log);
                supervisor.ask_once(AskAgain::Recheck, call, prompt, now, log)
            }
            Err(error) => {
                let message = format!("could not build the prompt asking again: {error}");
                self.push_log(now, LogKind::Note, Some(&call.call_id()), message);
                None
            }
        }
    }

    /// Asks `answer`'s agent once about the items of its answer that could
    /// not be read, naming each of `problems`, with `template` (given
    /// `original_prompt`, `previous_output` and `problems`); the call
    /// carries the answer as its [`LiveCall::first_reply`]. `None` when the
    /// slot's repair was used already, or its prompt cannot be built
    /// (logged): the protocol then reads the answer without those items.
    pub fn repair_items(
        &mut self,
        Answer { call, output, now }: Answer<'_>,
        problems: &[String],
        (prompts, template): (&PromptSet, &TemplateSpec),
    ) -> Option<CallSpec> {
        if call.repaired {
            return None;
        }
        let named = ("problems", problems.into());
        match again_prompt(&call, output, named, prompts, template) {
            Ok(prompt) => {
                let call = LiveCall {
                    first_reply: Some(output.into()),
                    ..call
                };
                let (supervisor, log) = (&mut self.supervisor, &mut self.log);
                supervisor.ask_once(AskAgain::RepairItems, call, prompt, now, log)
            }
            Err(error) => {
                let message = format!("could not build the prompt asking again: {error}");
                self.push_log(now, LogKind::Note, Some(&call.call_id()), message);
                None
            }
        }
    }

    /// Notes that `answer` could not be used (`error` says why) and
    /// asks for its one repair with `template`. The unusable answer comes
    /// back for the record with the repair, or with why there is none.
    pub fn refuse_answer(
        &mut self,
        answer: Answer<'_>,
        error: &str,
        template: (&PromptSet, &TemplateSpec),
    ) -> (Unusable, Result<CallSpec, String>) {
        let (call, call_id) = (&answer.call, answer.call.call_id());
        let message = format!(
            "{} {} answer could not be read: {error}",
            call.slot.role, call.slot.stage
        );
        self.push_log(answer.now, LogKind::Malformed, Some(&call_id), message);
        let unusable = Unusable {
            call_id,
            raw: answer.output.to_string(),
            reason: error.to_string(),
        };
        (unusable, self.repair(answer, error, template))
    }

    /// Deals with the plumbing of `input`; what is left comes back.
    pub fn route<'a>(&mut self, input: &'a Input, now: Timestamp) -> Routed<'a> {
        match input {
            Input::CallFinished {
                call_id,
                output,
                usage,
                usage_estimated,
                ttft_ms,
                elapsed_ms,
            } => {
                let Some(call) = self.supervisor.finish(call_id) else {
                    self.push_log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        "late output from a call that is no longer live: ignored".into(),
                    );
                    return Routed::Handled(Vec::new());
                };
                let figures = self.record_usage(
                    call_id,
                    &call.slot.role,
                    Measured {
                        usage: *usage,
                        estimated: *usage_estimated,
                        ttft_ms: *ttft_ms,
                        elapsed_ms: *elapsed_ms,
                    },
                );
                let tokens = figures
                    .input_tokens
                    .zip(figures.output_tokens)
                    .map(|(input, output)| format!(", {input} tokens in / {output} out"))
                    .unwrap_or_default();
                self.push_log(
                    now,
                    LogKind::CallFinished,
                    Some(call_id),
                    format!(
                        "{} answered in {} ({} chars{tokens})",
                        call.slot.role,
                        format_duration_ms(*elapsed_ms),
                        output.chars().count()
                    ),
                );
                Routed::Answered(Answer { call, output, now })
            }
            Input::CallFailed {
                call_id,
                failure,
                partial_chars,
                ..
            } => {
                if *partial_chars > 0 && self.supervisor.is_live(call_id) {
                    self.push_log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        format!("{partial_chars} chars had streamed before the failure; discarded"),
                    );
                }
                let reason = match failure {
                    CallFailure::TimedOut { after_ms, staged } => {
                        format!(
                            "timed out twice; last after {}{}",
                            format_duration_ms(*after_ms),
                            if *staged { STAGED_BY_SCRIPT } else { "" }
                        )
                    }
                    CallFailure::Error { message } => format!("failed twice; last: {message}"),
                    CallFailure::Refused { message } => {
                        format!("refused, so not asked again: {message}")
                    }
                };
                match self.supervisor.fail(call_id, failure, now, &mut self.log) {
                    None => Routed::Handled(Vec::new()),
                    Some(AfterFailure::Retry(spec)) => {
                        Routed::Handled(vec![Effect::StartCall(spec)])
                    }
                    Some(AfterFailure::GiveUp(call)) => Routed::GaveUp {
                        call,
                        reason,
                        by_moderator: false,
                        effects: Vec::new(),
                    },
                }
            }
            Input::CallDiagnostic { call_id, text } => {
                let lines = text.lines().filter(|line| !line.trim().is_empty()).count();
                self.push_log(
                    now,
                    LogKind::Note,
                    Some(call_id),
                    format!(
                        "the agent wrote {} of diagnostics (stderr); they are at the end of the transcript",
                        crate::words::counted(lines, "line", "lines")
                    ),
                );
                self.diagnostics.push(CallDiagnostic {
                    call_id: call_id.clone(),
                    text: text.clone(),
                    at: now,
                });
                Routed::Handled(Vec::new())
            }
            Input::CallRetrying {
                call_id,
                retry,
                of,
                reason,
                wait_ms,
            } => {
                self.push_log(
                    now,
                    LogKind::Retry,
                    Some(call_id),
                    format!(
                        "transport retry {retry} of {of} in {}: {reason}",
                        crate::words::seconds(*wait_ms)
                    ),
                );
                Routed::Handled(Vec::new())
            }
            Input::AgentSwitched { role, agent, price } => {
                if let Some(price) = price {
                    self.usage.set_price(agent, *price);
                }
                let message = match self.agents.get_mut(role) {
                    Some(slot) => {
                        let before = std::mem::replace(slot, agent.clone());
                        format!("moderator: {role} is now played by {agent} (was {before})")
                    }
                    None => format!("switch ignored: no role {role} in this debate"),
                };
                self.push_log(now, LogKind::Override, None, message);
                Routed::Handled(Vec::new())
            }
            Input::Override {
                call_id,
                action: OverrideAction::WaitLonger { extra_ms },
            } => {
                let (kind, message) = match self.supervisor.live_call(call_id) {
                    Some(call) => (
                        LogKind::Override,
                        format!(
                            "moderator: wait {} longer for {}",
                            format_duration_ms(*extra_ms),
                            call.slot.role
                        ),
                    ),
                    None => (
                        LogKind::Note,
                        "override ignored: the call is not live".to_string(),
                    ),
                };
                self.push_log(now, kind, Some(call_id), message);
                Routed::Handled(Vec::new())
            }
            Input::Override {
                call_id,
                action: action @ (OverrideAction::RetryNow | OverrideAction::Skip),
            } => {
                let retry = *action == OverrideAction::RetryNow;
                if !self.supervisor.is_live(call_id) {
                    if !retry {
                        // A skip of a call that is not running is about a
                        // finished slot (a held judge): the protocol's.
                        return Routed::Protocol(input);
                    }
                    self.push_log(
                        now,
                        LogKind::Note,
                        Some(call_id),
                        "override ignored: the call is not live".into(),
                    );
                    return Routed::Handled(Vec::new());
                }
                let cancel = Effect::CancelCall {
                    call_id: call_id.clone(),
                };
                match self
                    .supervisor
                    .override_call(call_id, retry, now, &mut self.log)
                {
                    Some(AfterFailure::Retry(spec)) => {
                        Routed::Handled(vec![cancel, Effect::StartCall(spec)])
                    }
                    Some(AfterFailure::GiveUp(call)) => Routed::GaveUp {
                        call,
                        reason: "skipped by the moderator".into(),
                        by_moderator: true,
                        effects: vec![cancel],
                    },
                    None => Routed::Handled(Vec::new()),
                }
            }
            Input::Override {
                action: OverrideAction::Rerun,
                ..
            }
            | Input::ItemDecided { .. }
            | Input::ModerationSubmitted
            | Input::ItemResolved { .. }
            | Input::Reopened => Routed::Protocol(input),
            Input::Resumed { restarted } => {
                self.note_resumed(restarted, now);
                Routed::Handled(Vec::new())
            }
        }
    }

    /// Logs that the run was interrupted and resumed at `now`, naming the
    /// calls started again.
    pub fn note_resumed(&mut self, restarted: &[String], now: Timestamp) {
        let again = match restarted {
            [] => "no call was under way".to_string(),
            calls => format!(
                "{} started again: {}",
                crate::words::counted(calls.len(), "unfinished call", "unfinished calls"),
                calls.join(", ")
            ),
        };
        let message = format!(
            "the run stopped or was interrupted before this point and is resumed here; {again}"
        );
        self.push_log(now, LogKind::Note, None, message);
    }

    /// Records a finished call's figures, priced by the agent playing its role.
    fn record_usage(&mut self, call_id: &str, role: &str, measured: Measured) -> CallUsage {
        let agent = self.agents.get(role).cloned().unwrap_or_default();
        let figures = CallUsage::new(call_id, role, &agent, measured, self.usage.price_of(&agent));
        self.usage.record(figures.clone());
        figures
    }
}

/// The prompt that asks `call`'s agent once more with `template`, given the
/// original prompt, the answer it gave and what was wrong with it (`named`:
/// the template's key and value).
fn again_prompt(
    call: &LiveCall,
    output: &str,
    (key, value): (&str, serde_json::Value),
    prompts: &PromptSet,
    template: &TemplateSpec,
) -> Result<String, String> {
    let mut context = serde_json::json!({
        "original_prompt": call.prompt,
        "previous_output": previous_output(output),
    });
    context[key] = value;
    prompts
        .render(template, &context)
        .map_err(|e| e.to_string())
}

/// Most of an agent's previous answer a prompt asking it again quotes, in
/// bytes: far more than any answer in the format (a thousand items of a
/// few hundred words), and a bound on what an answer refused for its size
/// costs the next prompt, the journal and the agent's bill.
pub const PREVIOUS_OUTPUT_QUOTED_MAX_BYTES: usize = 256 * 1024;

/// `output` as a prompt asking again quotes it: whole, or its start up to
/// [`PREVIOUS_OUTPUT_QUOTED_MAX_BYTES`] and a line saying how much is left
/// out.
fn previous_output(output: &str) -> String {
    let quoted = crate::text::head_bytes(output, PREVIOUS_OUTPUT_QUOTED_MAX_BYTES);
    if quoted.len() == output.len() {
        return output.to_owned();
    }
    format!(
        "{quoted}\n[... the rest of this reply, {} more, is not repeated here]",
        crate::text::bytes((output.len() - quoted.len()) as u64)
    )
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn now() -> Timestamp {
        chrono::Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap()
    }

    fn calls() -> Calls {
        Calls::new(
            BTreeMap::from([("critic".to_string(), "script:demo".to_string())]),
            BTreeMap::new(),
        )
    }

    fn finished(call_id: &str) -> Input {
        Input::CallFinished {
            call_id: call_id.into(),
            output: "answer".into(),
            usage: None,
            usage_estimated: false,
            ttft_ms: None,
            elapsed_ms: 1500,
        }
    }

    #[test]
    fn an_answer_against_the_rulings_is_asked_about_once_naming_each_discrepancy() {
        let mut calls = calls();
        let prompts = PromptSet::builtin();
        let template = prompts.template("recheck.md.j2").unwrap();
        let spec = calls.start(
            Slot::new("critic", "challenge", 1),
            "the request".into(),
            None,
            now(),
        );
        let input = finished(&spec.request.call_id);
        let Routed::Answered(answer) = calls.route(&input, now()) else {
            panic!("expected an answer");
        };
        let discrepancies = vec!["the change to b2 cites c2, which the moderator rejected".into()];
        let again = calls
            .recheck(answer, &discrepancies, (&prompts, &template))
            .expect("the first discrepancy is asked about");
        assert_eq!(again.request.call_id, "critic/challenge/r1/a2");
        assert!(again.request.prompt.starts_with("the request"));
        assert!(
            again
                .request
                .prompt
                .contains("- the change to b2 cites c2, which the moderator rejected"),
            "{}",
            again.request.prompt
        );
        let input = finished(&again.request.call_id);
        let Routed::Answered(answer) = calls.route(&input, now()) else {
            panic!("expected the second answer");
        };
        assert!(answer.call.rechecked);
        assert_eq!(
            calls.recheck(answer, &discrepancies, (&prompts, &template)),
            None,
            "a slot is asked again once"
        );
    }

    #[test]
    fn an_answer_of_a_live_call_is_recorded_and_handed_over() {
        let mut calls = calls();
        let spec = calls.start(Slot::new("critic", "challenge", 1), "p".into(), None, now());
        let input = finished(&spec.request.call_id);
        let Routed::Answered(answer) = calls.route(&input, now()) else {
            panic!("expected an answer");
        };
        assert_eq!(answer.call.slot.role, "critic");
        assert_eq!(answer.output, "answer");
        assert_eq!(calls.usage().calls().len(), 1);
        assert_eq!(calls.log().last().unwrap().kind, LogKind::CallFinished);
    }

    /// INF-15: an answer from a call that is no longer live is ignored.
    #[test]
    fn inf_15_late_answers_are_ignored() {
        let mut calls = calls();
        assert!(matches!(
            calls.route(&finished("critic/challenge/r1/a1"), now()),
            Routed::Handled(effects) if effects.is_empty()
        ));
        assert!(calls.log().last().unwrap().message.contains("late output"));
    }

    /// INF-12, INF-13: a failure retries once, the second gives the slot up.
    #[test]
    fn inf_12_inf_13_failures_retry_once_then_give_up() {
        let mut calls = calls();
        let spec = calls.start(Slot::new("critic", "challenge", 1), "p".into(), None, now());
        let failed = |call_id: &str| Input::CallFailed {
            call_id: call_id.into(),
            failure: CallFailure::TimedOut {
                after_ms: 600_000,
                staged: false,
            },
            partial_chars: 0,
            elapsed_ms: 600_000,
        };
        let Routed::Handled(effects) = calls.route(&failed(&spec.request.call_id), now()) else {
            panic!("expected a retry");
        };
        let [Effect::StartCall(retry)] = effects.as_slice() else {
            panic!("expected one retry, got {effects:?}");
        };
        assert_eq!(retry.request.prompt, "p");
        let Routed::GaveUp {
            reason,
            by_moderator,
            ..
        } = calls.route(&failed(&retry.request.call_id), now())
        else {
            panic!("expected the slot given up");
        };
        assert!(!by_moderator);
        assert!(reason.contains("timed out twice"), "{reason}");
    }

    #[test]
    fn a_moderator_skip_cancels_and_gives_up_a_live_call() {
        let mut calls = calls();
        let spec = calls.start(Slot::new("critic", "challenge", 1), "p".into(), None, now());
        let skip = Input::Override {
            call_id: spec.request.call_id.clone(),
            action: OverrideAction::Skip,
        };
        let Routed::GaveUp {
            by_moderator,
            effects,
            ..
        } = calls.route(&skip, now())
        else {
            panic!("expected a skip");
        };
        assert!(by_moderator);
        assert_eq!(
            effects,
            [Effect::CancelCall {
                call_id: spec.request.call_id
            }]
        );
        // A skip of a call that is not running is the protocol's to judge.
        assert!(matches!(calls.route(&skip, now()), Routed::Protocol(_)));
    }

    #[test]
    fn a_switched_role_prices_its_next_calls_with_the_new_agent() {
        let mut calls = calls();
        let price = Price {
            input: 1.0,
            output: 2.0,
        };
        calls.route(
            &Input::AgentSwitched {
                role: "critic".into(),
                agent: "openai:gpt".into(),
                price: Some(price),
            },
            now(),
        );
        assert_eq!(calls.agent("critic"), Some("openai:gpt"));
        assert_eq!(calls.prices().get("openai:gpt"), Some(&price));
        calls.route(
            &Input::AgentSwitched {
                role: "nobody".into(),
                agent: "openai:gpt".into(),
                price: None,
            },
            now(),
        );
        assert!(calls.log().last().unwrap().message.contains("ignored"));
    }

    /// Issue 61, class 10: a prompt asking an agent again quotes at most
    /// PREVIOUS_OUTPUT_QUOTED_MAX_BYTES of its previous answer and says
    /// how much it left out; an answer of an ordinary size is quoted whole.
    #[test]
    fn a_prompt_asking_again_quotes_a_huge_answer_only_in_part() {
        let ordinary = "critiques:\n  - target_block: b1\n".repeat(1000);
        assert_eq!(previous_output(&ordinary), ordinary);
        let huge = "é".repeat(1 << 20);
        let quoted = previous_output(&huge);
        assert!(
            quoted.len() < PREVIOUS_OUTPUT_QUOTED_MAX_BYTES + 100,
            "{}",
            quoted.len()
        );
        assert!(huge.starts_with(quoted.lines().next().unwrap()));
        assert!(
            quoted.ends_with("[... the rest of this reply, 1.8 MiB more, is not repeated here]"),
            "{}",
            &quoted[quoted.len() - 100..]
        );
    }
}
