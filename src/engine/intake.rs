//! What arrives on the engine's inbox, turned into inputs: streamed text
//! into its batch, answers that ended together gathered and persisted
//! before the protocol parses any of them (INF-02..04), failed calls, the
//! moderator's decisions and the interface's commands (a person's answer,
//! an agent switch, a budget decision).
//!
//! Not responsible for the loop that waits on the inbox or for what an
//! input means: the parent runs the loop, the protocol decides.

use std::time::Duration;

use super::calls::{CallBook, estimated_usage};
use super::{
    Alternative, Command, Engine, EngineError, Inbox, JournalEvent, RoleAgent, Update, whole_ms,
};
use crate::agent::{CallOutput, StreamEvent};
use crate::protocol::{Effect, Input, OverrideAction, Protocol};

/// A call's answer as it reached the engine, before it is journaled.
pub(super) struct Answer {
    call_id: String,
    output: CallOutput,
    book: Option<CallBook>,
    first_text: Option<Duration>,
    elapsed: Duration,
}

impl<P: Protocol + ?Sized> Engine<P> {
    /// Whether `message` is an answer that can be collected with others:
    /// a running call's, with no diagnostics to journal before it.
    pub(super) fn is_plain_answer(&self, message: &Inbox) -> bool {
        matches!(message, Inbox::Ended { call_id, result: Ok(_), .. }
            if self.running.contains_key(call_id)
                && self
                    .books
                    .get(call_id)
                    .is_none_or(|book| book.diagnostics.trim().is_empty()))
    }

    /// `first` (a plain answer) and the plain answers that ended with it:
    /// the other calls get a turn to hand theirs in (on this thread they
    /// would otherwise wait until the engine next waits), another as long
    /// as the last brought one in and calls are still out, and whatever is
    /// already in the inbox is taken up to the first message that is
    /// neither an answer nor streamed text, which is kept for next.
    pub(super) async fn answers_together(
        &mut self,
        first: Inbox,
    ) -> Result<Vec<Answer>, EngineError> {
        let mut messages = vec![first];
        let mut gathered = 0;
        while self.pending.is_none()
            && messages.len() < self.running.len()
            && gathered < messages.len()
        {
            gathered = messages.len();
            tokio::task::yield_now().await;
            while let Ok(next) = self.inbox_rx.try_recv() {
                if self.is_plain_answer(&next) {
                    messages.push(next);
                } else if let Inbox::Stream {
                    event:
                        StreamEvent::Text(_) | StreamEvent::Reasoning(_) | StreamEvent::Diagnostic(_),
                    ..
                } = &next
                {
                    // No input: text joins its batch, a diagnostic its call.
                    self.receive(next)?;
                } else {
                    self.pending = Some(next);
                    break;
                }
            }
        }
        Ok(messages
            .into_iter()
            .map(|message| {
                let Inbox::Ended {
                    call_id,
                    result: Ok(output),
                    first_text,
                    elapsed,
                    ..
                } = message
                else {
                    unreachable!("only plain answers are gathered");
                };
                let book = self.books.remove(&call_id);
                self.running.remove(&call_id);
                tracing::info!(%call_id, elapsed_ms = whole_ms(elapsed), ok = true, "call ended");
                Answer {
                    call_id,
                    output,
                    book,
                    first_text,
                    elapsed,
                }
            })
            .collect())
    }

    /// Turns one inbox message into protocol effects.
    pub(super) fn receive(&mut self, message: Inbox) -> Result<Vec<Effect>, EngineError> {
        match message {
            Inbox::Stream { call_id, event } => {
                match event {
                    StreamEvent::Text(text) => {
                        self.records.batch(&call_id, &text, false)?;
                        if self.stream_updates {
                            self.publish(Update::Chunk { call_id, text })
                        }
                    }
                    StreamEvent::Reasoning(text) => {
                        self.records.batch(&call_id, &text, true)?;
                        if self.stream_updates {
                            self.publish(Update::Reasoning { call_id, text })
                        }
                    }
                    StreamEvent::Diagnostic(text) => {
                        if let Some(book) = self.books.get_mut(&call_id) {
                            book.add_diagnostic(&text);
                        }
                    }
                    StreamEvent::Retrying {
                        retry,
                        of,
                        reason,
                        wait,
                    } => {
                        return self.step(Input::CallRetrying {
                            call_id,
                            retry,
                            of,
                            reason: crate::text::redact(&reason),
                            wait_ms: whole_ms(wait),
                        });
                    }
                }
                Ok(Vec::new())
            }
            Inbox::Ended {
                call_id,
                result,
                partial_chars,
                first_text,
                elapsed,
            } => {
                let book = self.books.remove(&call_id);
                if self.running.remove(&call_id).is_none() {
                    // Cancelled while its result was in flight: not an input.
                    return Ok(Vec::new());
                }
                let mut effects = Vec::new();
                if let Some(book) = &book
                    && !book.diagnostics.trim().is_empty()
                {
                    effects.extend(self.step(Input::CallDiagnostic {
                        call_id: call_id.clone(),
                        text: book.diagnostics.clone(),
                    })?);
                }
                tracing::info!(%call_id, elapsed_ms = whole_ms(elapsed), ok = result.is_ok(), "call ended");
                match result {
                    Ok(output) => effects.extend(self.collect(vec![Answer {
                        call_id,
                        output,
                        book,
                        first_text,
                        elapsed,
                    }])?),
                    Err(failure) => effects.extend(self.step(Input::CallFailed {
                        call_id,
                        failure,
                        partial_chars,
                        elapsed_ms: whole_ms(elapsed),
                    })?),
                }
                Ok(effects)
            }
            Inbox::Command(Command::Moderator(input)) if self.names_no_item_to_decide(&input) => {
                tracing::warn!(
                    ?input,
                    "a decision on no item the debate put to the moderator"
                );
                Ok(Vec::new())
            }
            Inbox::Moderator(input) | Inbox::Command(Command::Moderator(input)) => {
                if let Input::Override {
                    call_id,
                    action: OverrideAction::WaitLonger { extra_ms },
                } = &input
                    && let Some(call) = self.running.get(call_id)
                {
                    let _ = call.extend.send(Duration::from_millis(*extra_ms));
                }
                self.step(input)
            }
            Inbox::Command(Command::HumanAnswer { call_id, answer }) => {
                let accepted = self
                    .protocol
                    .check_answer(&call_id, &answer)
                    .and_then(|()| {
                        let desk = self
                            .human_desk
                            .as_ref()
                            .ok_or("no role is played by a person")?;
                        if desk.deliver(&call_id, answer) {
                            Ok(())
                        } else {
                            Err(format!("{call_id} is no longer waiting for an answer"))
                        }
                    });
                if let Err(error) = accepted {
                    self.publish(Update::AnswerRejected { call_id, error });
                }
                Ok(Vec::new())
            }
            Inbox::Command(Command::SwitchAgent { role, choice, then }) => {
                let Some(Alternative { agent, price }) = self.alternatives.get(choice).cloned()
                else {
                    return Ok(Vec::new());
                };
                let Some(current) = self.roster.get(&role).cloned() else {
                    return Ok(Vec::new());
                };
                let label = agent.info().to_string();
                self.roster.insert(
                    role.clone(),
                    RoleAgent {
                        agent,
                        timeout: current.timeout,
                    },
                );
                let mut effects = self.step(Input::AgentSwitched {
                    role,
                    agent: label,
                    price,
                })?;
                if let Some(input) = then {
                    effects.extend(self.step(input)?);
                }
                Ok(effects)
            }
            Inbox::Command(Command::Budget(decision)) => self.decide_budget(decision),
            Inbox::ModeratorGone(reason) => Err(EngineError::Moderation(reason)),
        }
    }

    /// Whether `input`, sent from outside the engine (an interface, or a
    /// person's line in the attach inbox), decides or settles an item the
    /// debate never put to the moderator, or decides one after the debate
    /// ended. No debate could journal such a record (a reader of the
    /// journal refuses it), so it is dropped before it is journaled.
    fn names_no_item_to_decide(&self, input: &Input) -> bool {
        let (item_id, decided) = match input {
            Input::ItemDecided { item_id, .. } => (item_id, true),
            Input::ItemResolved { item_id, .. } => (item_id, false),
            _ => return false,
        };
        (decided && self.protocol.outcome().is_some())
            || !self
                .protocol
                .board()
                .items
                .iter()
                .any(|entry| entry.item.id == *item_id)
    }

    /// Persist-on-collect (INF-02..04) for answers that arrived together
    /// (one, or the judges of a round finishing at once): every answer is
    /// journaled and one fsync makes them all durable, so no crash can lose
    /// one; meanwhile each raw-output file is written verbatim, read back
    /// and checked; only then does the protocol parse them, one by one in
    /// the journal's order.
    pub(super) fn collect(&mut self, answers: Vec<Answer>) -> Result<Vec<Effect>, EngineError> {
        let mut journaled = Vec::with_capacity(answers.len());
        for answer in answers {
            let Answer {
                call_id,
                output,
                book,
                first_text,
                elapsed,
            } = answer;
            let (usage, usage_estimated) = match (output.usage, &book) {
                (Some(usage), book) => (
                    Some(usage),
                    book.as_ref().is_some_and(|book| book.usage_is_estimated),
                ),
                (None, Some(book)) if book.estimate_missing_usage => {
                    (Some(estimated_usage(book.prompt_chars, &output.text)), true)
                }
                (None, _) => (None, false),
            };
            let input = Input::CallFinished {
                call_id,
                output: output.text,
                usage,
                usage_estimated,
                ttft_ms: first_text.map(whole_ms),
                elapsed_ms: whole_ms(elapsed),
            };
            let now = self.now();
            let event = JournalEvent::Input {
                input: input.clone(),
            };
            self.records.record(now, &event)?;
            journaled.push((input, now, book.map(|book| book.role)));
        }
        let answers: Vec<(&str, &str)> = journaled
            .iter()
            .map(|(input, ..)| match input {
                Input::CallFinished {
                    call_id, output, ..
                } => (call_id.as_str(), output.as_str()),
                _ => unreachable!("only answers are collected"),
            })
            .collect();
        let persisted = self.records.persist_answers(&answers)?;
        for (call_id, path) in persisted {
            self.publish(Update::RawPersisted {
                call_id: call_id.to_string(),
                path,
            });
        }
        let mut effects = Vec::new();
        for (input, now, role) in journaled {
            effects.extend(self.apply_input(&input, now)?);
            let Input::CallFinished {
                call_id,
                usage,
                ttft_ms,
                elapsed_ms,
                ..
            } = input
            else {
                unreachable!("only answers are collected");
            };
            let cost_usd = self
                .protocol
                .usage()
                .and_then(|ledger| ledger.get(&call_id))
                .and_then(|figures| figures.cost_usd);
            self.publish(Update::CallUsage {
                call_id,
                role: role.unwrap_or_default(),
                usage,
                ttft_ms,
                elapsed_ms,
                cost_usd,
            });
        }
        Ok(effects)
    }
}
