//! Supervision of agent calls, shared by every protocol.
//!
//! The rule (debate skill, "Retry & Recovery"; RULES.md INF-12..17 and A18): a
//! call that times out or fails is cancelled and retried once with the
//! byte-identical prompt; if the retry also fails, the slot is given up
//! (a judge is skipped for the round, a required agent stops the debate).
//! Malformed output is never retried here: a protocol may ask for one
//! *repair* call for agents whose output the debate cannot go on without.
//! Every timeout, cancellation, retry and skip is logged with the call id.
//!
//! Not responsible for: timers (the engine reports timeouts as inputs) or what
//! a given-up slot means for the debate (the protocol decides).

use std::collections::BTreeMap;

use crate::agent::CallRequest;

use super::{CallFailure, CallSpec, LogEntry, LogKind, Timestamp};

/// Said after a timeout the `script` provider was told to stage, so a
/// demo's deliberate fault does not read as a real one.
pub const STAGED_BY_SCRIPT: &str = " (staged by the script)";

/// A role's place in the debate: who, in which stage, in which round.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Slot {
    pub role: String,
    pub stage: String,
    pub round: u32,
}

impl Slot {
    pub fn new(role: impl Into<String>, stage: impl Into<String>, round: u32) -> Self {
        Slot {
            role: role.into(),
            stage: stage.into(),
            round,
        }
    }

    pub(crate) fn call_id(&self, attempt: u32) -> String {
        format!("{}/{}/r{}/a{}", self.role, self.stage, self.round, attempt)
    }
}

/// Why a finished slot is asked once more, beyond its retry: each reason
/// is granted once a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AskAgain {
    /// Its output could not be parsed; the prompt quotes the parse error.
    Repair,
    /// Some items of its output could not be read; the prompt names each
    /// (issue 59). It spends the slot's repair.
    RepairItems,
    /// Its readable answer went against the moderator's rulings; the
    /// prompt names where.
    Recheck,
}

/// A call in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveCall {
    pub slot: Slot,
    pub attempt: u32,
    pub prompt: String,
    pub raw_output_path: Option<String>,
    /// The one automatic retry has been used for this slot.
    pub retried: bool,
    /// The one repair call has been used for this slot.
    pub repaired: bool,
    /// The one call asking again against the moderator's rulings has been
    /// used for this slot.
    pub rechecked: bool,
    /// The answer whose unreadable items this call was asked to repair
    /// ([`AskAgain::RepairItems`]): what the debate reads when the repair
    /// reads worse, or never comes.
    pub first_reply: Option<std::sync::Arc<str>>,
}

impl LiveCall {
    /// Why a debate that needs this call's answer stops without one: `the
    /// critic gave no answer in the critique stage, even after a retry
    /// (timeout)`. Nothing is made up in its place (RULES.md A18).
    pub fn no_answer(&self, reason: &str) -> String {
        format!(
            "the {} gave no answer in the {} stage, even after a retry ({reason})",
            self.slot.role, self.slot.stage
        )
    }

    /// The id of this attempt, e.g. `judge.analyst/evaluation/r1/a2`.
    pub fn call_id(&self) -> String {
        self.slot.call_id(self.attempt)
    }

    fn spec(&self) -> CallSpec {
        CallSpec {
            request: CallRequest {
                call_id: self.slot.call_id(self.attempt),
                role: self.slot.role.clone(),
                stage: self.slot.stage.clone(),
                round: self.slot.round,
                attempt: self.attempt,
                prompt: self.prompt.clone(),
            },
            raw_output_path: self.raw_output_path.clone(),
        }
    }
}

/// What became of a failed call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// Start this retry (identical prompt).
    Retry(CallSpec),
    /// The slot is given up; the protocol decides what that means.
    GiveUp(LiveCall),
}

/// Live calls keyed by call id.
#[derive(Clone, Debug, Default)]
pub struct Supervisor {
    live: BTreeMap<String, LiveCall>,
}

impl Supervisor {
    /// Registers the first attempt of a slot and returns the call to start.
    pub fn start(
        &mut self,
        slot: Slot,
        prompt: String,
        raw_output_path: Option<String>,
        now: Timestamp,
        log: &mut Vec<LogEntry>,
    ) -> CallSpec {
        self.relaunch(slot, 1, prompt, raw_output_path, now, log)
    }

    /// Starts `attempt` of a slot that had finished, on the moderator's
    /// word: a fresh call with its own retry and repair.
    pub fn relaunch(
        &mut self,
        slot: Slot,
        attempt: u32,
        prompt: String,
        raw_output_path: Option<String>,
        now: Timestamp,
        log: &mut Vec<LogEntry>,
    ) -> CallSpec {
        self.launch(
            LiveCall {
                slot,
                attempt,
                prompt,
                raw_output_path,
                retried: false,
                repaired: false,
                rechecked: false,
                first_reply: None,
            },
            now,
            log,
        )
    }

    fn launch(&mut self, call: LiveCall, now: Timestamp, log: &mut Vec<LogEntry>) -> CallSpec {
        let spec = call.spec();
        log.push(LogEntry {
            at: now,
            kind: LogKind::CallStarted,
            call_id: Some(spec.request.call_id.clone()),
            details: Vec::new(),
            message: format!(
                "{} started ({}, round {}, attempt {})",
                call.slot.role, call.slot.stage, call.slot.round, call.attempt
            ),
        });
        self.live.insert(spec.request.call_id.clone(), call);
        spec
    }

    pub fn live_call(&self, call_id: &str) -> Option<&LiveCall> {
        self.live.get(call_id)
    }

    pub fn is_live(&self, call_id: &str) -> bool {
        self.live.contains_key(call_id)
    }

    pub fn live_calls(&self) -> impl Iterator<Item = (&str, &LiveCall)> {
        self.live.iter().map(|(id, call)| (id.as_str(), call))
    }

    /// Removes a call whose output arrived. `None` for a call that is no
    /// longer live (cancelled, superseded): its output is ignored.
    pub fn finish(&mut self, call_id: &str) -> Option<LiveCall> {
        self.live.remove(call_id)
    }

    /// Applies the timeout → cancel → retry once → skip rule.
    pub fn fail(
        &mut self,
        call_id: &str,
        failure: &CallFailure,
        now: Timestamp,
        log: &mut Vec<LogEntry>,
    ) -> Option<AfterFailure> {
        let call = self.live.remove(call_id)?;
        let entry = |kind, message: String| LogEntry {
            at: now,
            kind,
            call_id: Some(call_id.to_string()),
            details: Vec::new(),
            message,
        };
        match failure {
            CallFailure::TimedOut { after_ms, staged } => {
                log.push(entry(
                    LogKind::Timeout,
                    format!(
                        "{} produced no answer within {}{}",
                        call.slot.role,
                        format_duration_ms(*after_ms),
                        if *staged { STAGED_BY_SCRIPT } else { "" }
                    ),
                ));
                log.push(entry(LogKind::Cancel, format!("{call_id} cancelled")));
            }
            CallFailure::Error { message } => {
                log.push(entry(
                    LogKind::Failure,
                    format!("{} failed: {message}", call.slot.role),
                ));
            }
            CallFailure::Refused { message } => {
                log.push(entry(
                    LogKind::Failure,
                    format!("{} failed: {message}", call.slot.role),
                ));
                // A refused key or permission fails the same way every time.
                log.push(entry(
                    LogKind::Skip,
                    format!(
                        "{} skipped for {} round {}: the provider refused the request (its key or a permission), which asking again cannot change",
                        call.slot.role, call.slot.stage, call.slot.round
                    ),
                ));
                return Some(AfterFailure::GiveUp(call));
            }
        }
        if call.retried {
            log.push(entry(
                LogKind::Skip,
                format!(
                    "{} skipped for {} round {}: the retry failed too",
                    call.slot.role, call.slot.stage, call.slot.round
                ),
            ));
            return Some(AfterFailure::GiveUp(call));
        }
        let retry = LiveCall {
            attempt: call.attempt + 1,
            retried: true,
            ..call
        };
        log.push(entry(
            LogKind::Retry,
            format!(
                "retrying {} once with the identical prompt as {}",
                retry.slot.role,
                retry.slot.call_id(retry.attempt)
            ),
        ));
        Some(AfterFailure::Retry(self.launch(retry, now, log)))
    }

    /// Starts the one call of `finished`'s slot asked again for `reason`,
    /// with `prompt`. `None` when the slot had that call already: each
    /// reason is granted once a slot.
    pub fn ask_once(
        &mut self,
        reason: AskAgain,
        finished: LiveCall,
        prompt: String,
        now: Timestamp,
        log: &mut Vec<LogEntry>,
    ) -> Option<CallSpec> {
        let mut call = finished;
        let spent = match reason {
            AskAgain::Repair | AskAgain::RepairItems => &mut call.repaired,
            AskAgain::Recheck => &mut call.rechecked,
        };
        if std::mem::replace(spent, true) {
            return None;
        }
        let why = match reason {
            AskAgain::Repair => "to repair its answer, quoting the parse error",
            AskAgain::RepairItems => "about the items of its answer that could not be read",
            AskAgain::Recheck => "more, naming where its answer went against the rulings",
        };
        Some(self.ask_again(call, prompt, why, now, log))
    }

    /// The next attempt of `finished`'s slot with `prompt`, logged as
    /// "asking ROLE once {why}".
    fn ask_again(
        &mut self,
        finished: LiveCall,
        prompt: String,
        why: &str,
        now: Timestamp,
        log: &mut Vec<LogEntry>,
    ) -> CallSpec {
        let call = LiveCall {
            attempt: finished.attempt + 1,
            prompt,
            ..finished
        };
        log.push(LogEntry {
            at: now,
            kind: LogKind::Retry,
            call_id: Some(call.slot.call_id(call.attempt)),
            details: Vec::new(),
            message: format!("asking {} once {why}", call.slot.role),
        });
        self.launch(call, now, log)
    }

    /// A moderator override: cancel the live call, then either start a fresh
    /// attempt with the same prompt or give the slot up.
    pub fn override_call(
        &mut self,
        call_id: &str,
        retry: bool,
        now: Timestamp,
        log: &mut Vec<LogEntry>,
    ) -> Option<AfterFailure> {
        let call = self.live.remove(call_id)?;
        log.push(LogEntry {
            at: now,
            kind: LogKind::Override,
            call_id: Some(call_id.to_string()),
            details: Vec::new(),
            message: if retry {
                format!("moderator: retry {} now", call.slot.role)
            } else {
                format!("moderator: skip {}", call.slot.role)
            },
        });
        log.push(LogEntry {
            at: now,
            kind: LogKind::Cancel,
            call_id: Some(call_id.to_string()),
            details: Vec::new(),
            message: format!("{call_id} cancelled by the moderator"),
        });
        if retry {
            let again = LiveCall {
                attempt: call.attempt + 1,
                ..call
            };
            Some(AfterFailure::Retry(self.launch(again, now, log)))
        } else {
            log.push(LogEntry {
                at: now,
                kind: LogKind::Skip,
                call_id: Some(call_id.to_string()),
                details: Vec::new(),
                message: format!(
                    "{} skipped for {} round {} by the moderator",
                    call.slot.role, call.slot.stage, call.slot.round
                ),
            });
            Some(AfterFailure::GiveUp(call))
        }
    }
}

/// `90 s`, `10 min`, `2.5 s`: durations for people.
pub fn format_duration_ms(ms: u64) -> String {
    if ms >= 60_000 && ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> Timestamp {
        chrono::Utc
            .with_ymd_and_hms(2026, 11, 30, 12, 0, 0)
            .unwrap()
    }

    fn started(supervisor: &mut Supervisor, log: &mut Vec<LogEntry>) -> CallSpec {
        supervisor.start(
            Slot::new("judge.analyst", "evaluation", 1),
            "score this".into(),
            Some("judges/judge-analyst.md".into()),
            now(),
            log,
        )
    }

    /// Times `call_id` out after `after_ms`; what the supervisor does then.
    fn time_out(
        supervisor: &mut Supervisor,
        call_id: &str,
        after_ms: u64,
        log: &mut Vec<LogEntry>,
    ) -> Option<AfterFailure> {
        let failure = CallFailure::TimedOut {
            after_ms,
            staged: false,
        };
        supervisor.fail(call_id, &failure, now(), log)
    }

    #[test]
    fn a_call_id_names_its_slot_and_attempt() {
        let slot = Slot::new("judge.analyst", "evaluation", 2);
        assert_eq!(slot.call_id(3), "judge.analyst/evaluation/r2/a3");
    }

    /// INF-12: a timed-out call is cancelled and retried once with the identical prompt.
    #[test]
    fn inf_12_timeout_cancels_and_retries_with_identical_prompt() {
        let (mut supervisor, mut log) = (Supervisor::default(), Vec::new());
        let first = started(&mut supervisor, &mut log);
        let after = time_out(&mut supervisor, &first.request.call_id, 600_000, &mut log);
        let Some(AfterFailure::Retry(retry)) = after else {
            panic!("expected a retry, got {after:?}")
        };
        assert_eq!(retry.request.prompt, first.request.prompt);
        assert_eq!(retry.request.attempt, 2);
        assert_eq!(retry.raw_output_path, first.raw_output_path);
        assert_eq!(retry.request.call_id, "judge.analyst/evaluation/r1/a2");
        let kinds: Vec<_> = log.iter().map(|entry| entry.kind).collect();
        assert_eq!(
            kinds,
            [
                LogKind::CallStarted,
                LogKind::Timeout,
                LogKind::Cancel,
                LogKind::Retry,
                LogKind::CallStarted
            ]
        );
        assert!(log[1].message.contains("10 min"));
    }

    /// INF-13, INF-14: the retry failing too gives the slot up; never a second retry.
    #[test]
    fn inf_13_inf_14_second_failure_skips_and_never_retries_twice() {
        let (mut supervisor, mut log) = (Supervisor::default(), Vec::new());
        let first = started(&mut supervisor, &mut log);
        let Some(AfterFailure::Retry(retry)) = supervisor.fail(
            &first.request.call_id,
            &CallFailure::Error {
                message: "503".into(),
            },
            now(),
            &mut log,
        ) else {
            panic!("expected a retry")
        };
        let after = time_out(&mut supervisor, &retry.request.call_id, 1000, &mut log);
        assert!(matches!(after, Some(AfterFailure::GiveUp(_))));
        assert_eq!(log.last().unwrap().kind, LogKind::Skip);
        assert!(!supervisor.is_live(&retry.request.call_id));
    }

    /// INF-17: every supervision entry carries the call id.
    #[test]
    fn inf_17_supervision_entries_carry_call_ids() {
        let (mut supervisor, mut log) = (Supervisor::default(), Vec::new());
        let first = started(&mut supervisor, &mut log);
        time_out(&mut supervisor, &first.request.call_id, 5, &mut log);
        assert!(log.iter().all(|entry| entry.call_id.is_some()));
    }

    /// INF-15: a late answer from a cancelled call is not accepted.
    #[test]
    fn inf_15_cancelled_call_output_is_not_live() {
        let (mut supervisor, mut log) = (Supervisor::default(), Vec::new());
        let first = started(&mut supervisor, &mut log);
        time_out(&mut supervisor, &first.request.call_id, 5, &mut log);
        assert!(supervisor.finish(&first.request.call_id).is_none());
    }

    /// A repair and a recheck are each granted once, and one does not use
    /// up the other: an answer repaired into readable form may still be
    /// asked again about the rulings.
    #[test]
    fn a_repair_and_a_recheck_are_each_offered_once() {
        let (mut supervisor, mut log) = (Supervisor::default(), Vec::new());
        let first = started(&mut supervisor, &mut log);
        let call = supervisor.finish(&first.request.call_id).unwrap();
        let repair = supervisor
            .ask_once(AskAgain::Repair, call, "fix it".into(), now(), &mut log)
            .unwrap();
        assert_eq!(repair.request.attempt, 2);
        let call = supervisor.finish(&repair.request.call_id).unwrap();
        let again = supervisor.ask_once(
            AskAgain::Repair,
            call.clone(),
            "again".into(),
            now(),
            &mut log,
        );
        assert!(again.is_none(), "a second repair");
        let recheck = supervisor
            .ask_once(AskAgain::Recheck, call, "rulings".into(), now(), &mut log)
            .unwrap();
        assert_eq!(recheck.request.attempt, 3);
        let asked = log.iter().rev().find(|entry| entry.kind == LogKind::Retry);
        assert!(
            asked.unwrap().message.contains("against the rulings"),
            "{log:?}"
        );
        let call = supervisor.finish(&recheck.request.call_id).unwrap();
        assert!((call.repaired, call.rechecked) == (true, true));
        for reason in [AskAgain::Repair, AskAgain::Recheck] {
            let again = supervisor.ask_once(reason, call.clone(), "more".into(), now(), &mut log);
            assert!(again.is_none(), "{reason:?} granted twice");
        }
    }

    #[test]
    fn moderator_override_retry_and_skip() {
        let (mut supervisor, mut log) = (Supervisor::default(), Vec::new());
        let first = started(&mut supervisor, &mut log);
        let Some(AfterFailure::Retry(again)) =
            supervisor.override_call(&first.request.call_id, true, now(), &mut log)
        else {
            panic!("expected a retry")
        };
        assert_eq!(again.request.prompt, first.request.prompt);
        let after = supervisor.override_call(&again.request.call_id, false, now(), &mut log);
        assert!(matches!(after, Some(AfterFailure::GiveUp(_))));
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration_ms(600_000), "10 min");
        assert_eq!(format_duration_ms(4_000), "4 s");
        assert_eq!(format_duration_ms(2_500), "2.5 s");
    }
}
