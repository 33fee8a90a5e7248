//! Agent calls as tasks of their own: starting one for a [`CallSpec`]
//! ([`Engine::start_call`]), running it under its deadline, masking API keys
//! in what it streams and batching the stream so the engine loop wakes once
//! per run of text, not once per chunk; the book kept about each running
//! call and the usage estimated for a provider that reports none.
//!
//! Not responsible for what an answer means or what happens next (the loop
//! in [`super`] hands it to the protocol) or for the record (journal, raw
//! files and documents are [`super::records`]'s).

use std::collections::BTreeMap;
use std::pin::Pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::{Engine, EngineError, Inbox, JournalEvent, RoleAgent, Update, whole_ms};
use crate::agent::human::HUMAN_PROVIDER;
use crate::agent::{CallRequest, StreamEvent, Usage};
use crate::protocol::supervision::Slot;
use crate::protocol::{CallFailure, CallSpec, Protocol};

/// A call task, and how to push its deadline back.
pub(super) struct RunningCall {
    pub(super) task: JoinHandle<()>,
    pub(super) extend: mpsc::UnboundedSender<Duration>,
}

/// Sets `timer` for `at`. tokio's `Sleep::reset` to a later deadline
/// leaves a timer that has not fired where it was in the timer wheel, and
/// looks at the new deadline only when the old one comes: the thread wakes
/// then for nothing. A new timer in its place (the old one leaves the wheel
/// as it is dropped) wakes the thread only when it is due.
pub(super) fn move_timer(mut timer: Pin<&mut tokio::time::Sleep>, at: tokio::time::Instant) {
    if timer.deadline() != at {
        timer.set(tokio::time::sleep_until(at));
    }
}

/// The message a panic carried, if it was a string.
pub(super) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Runs one call on its own task until it ends: with the provider's result,
/// a failure, or a timeout once its deadline (moved by any extra time
/// granted) has passed. What the provider streams meanwhile gathers until
/// the runtime has run everything that was ready (a paced connection
/// delivers a frame's events in one such turn, or a few when the scheduler
/// cuts it, up to [`STREAM_FORWARD_TURNS`]), or, when the last batch went
/// less than [`STREAM_FORWARD_MS`] ago, until that much time has passed
/// since it (or [`STREAM_FORWARD_BYTES`] have gathered); it crosses to the
/// engine loop as one message per run of text or reasoning: one wake of the
/// engine per batch, not per chunk.
///
/// One poll does everything a wake needs: the provider is polled with its
/// sends held (they wake nobody, see [`crate::agent::events`]), what it sent
/// is taken at once, and each timer is polled only when it may have fired or
/// has not yet been given this task's waker. So a stream costs this task one
/// poll per socket read, not one for the read and one for what it sent.
pub(super) async fn run_call(
    role_agent: RoleAgent,
    request: CallRequest,
    mut extend: mpsc::UnboundedReceiver<Duration>,
    inbox: mpsc::UnboundedSender<Inbox>,
) {
    let started = Instant::now();
    let call_id = request.call_id.clone();
    let staged = role_agent.agent.stages_timeout(&request);
    let (events, mut received) = crate::agent::events::channel();
    // A provider that panics fails its call like any error; it must not take
    // the task down silently and leave the debate waiting.
    let mut call = std::pin::pin!(futures::FutureExt::catch_unwind(
        std::panic::AssertUnwindSafe(role_agent.agent.call(request, events))
    ));
    let mut deadline = std::pin::pin!(tokio::time::sleep(role_agent.timeout));
    let mut forward_timer = std::pin::pin!(tokio::time::sleep(Duration::ZERO));
    let mut deadline_listens = false;
    let mut forward_listens = false;
    let mut gathering = false;
    let mut after_turn: Option<std::sync::Arc<AfterTurn>> = None;
    // What had arrived when the turn being waited for began, and how many
    // turns this batch has waited.
    let (mut turn_began_with, mut turns) = (0usize, 0u32);
    let mut last_forward: Option<tokio::time::Instant> = None;
    let mut gathered_bytes = 0usize;
    let mut streamed_chars = 0usize;
    let mut first_text = None;
    let mut arrived = Vec::new();
    let mut masks = StreamMasks::new(crate::secrets::current());
    let mut forward = |arrived: &mut Vec<StreamEvent>, streamed_chars: &mut usize, last: bool| {
        let mut events = masks.mask(coalesce(arrived.drain(..)));
        if last {
            events.extend(masks.finish());
        }
        for event in events {
            if let StreamEvent::Text(text) = &event {
                *streamed_chars += text.chars().count();
            }
            let _ = inbox.send(Inbox::Stream {
                call_id: call_id.clone(),
                event,
            });
        }
    };
    let result = std::future::poll_fn(|cx| {
        received.hold_wakes();
        let done = call.as_mut().poll(cx);
        let before = arrived.len();
        if received.poll_recv_many(cx, &mut arrived).is_ready() {
            let new = &arrived[before..];
            gathered_bytes += new.iter().map(text_bytes).sum::<usize>();
            if first_text.is_none() && new.iter().any(is_text) {
                first_text = Some(started.elapsed());
            }
        }
        if let Poll::Ready(result) = done {
            forward(&mut arrived, &mut streamed_chars, true);
            let masker = crate::secrets::current();
            return Poll::Ready(match result {
                Ok(Ok(mut output)) => {
                    if let std::borrow::Cow::Owned(masked) = masker.mask(&output.text) {
                        output.text = masked;
                    }
                    Ok(output)
                }
                Ok(Err(error)) => {
                    let message = masker.mask(&error.to_string()).into_owned();
                    Err(if error.is_refusal() {
                        CallFailure::Refused { message }
                    } else {
                        CallFailure::Error { message }
                    })
                }
                Err(panic) => Err(CallFailure::Error {
                    message: format!("the agent crashed: {}", panic_message(panic.as_ref())),
                }),
            });
        }
        let mut forward_now = gathered_bytes >= STREAM_FORWARD_BYTES;
        if !forward_now && !gathering && arrived.len() > before {
            gathering = true;
            let now = tokio::time::Instant::now();
            let due = last_forward.map_or(now, |at| at + Duration::from_millis(STREAM_FORWARD_MS));
            if due <= now {
                after_turn = Some(AfterTurn::wake(cx));
                (turn_began_with, turns) = (arrived.len(), 1);
            } else {
                move_timer(forward_timer.as_mut(), due);
                forward_listens = false;
            }
        }
        if gathering {
            let turn_ended = after_turn.as_ref().map(|turn| turn.has_ended());
            forward_now |= match turn_ended {
                // Events came during the turn: the provider is still handing
                // on one read, and the runtime cut the turn short (tokio's
                // scheduler looks at its timers and sockets, and wakes the
                // tasks that yielded, every 61 polls, while a connection
                // hands its body over one event a poll). Wait for a turn
                // that brings none, so the read crosses whole.
                Some(true) if arrived.len() > turn_began_with && turns < STREAM_FORWARD_TURNS => {
                    after_turn = Some(AfterTurn::wake(cx));
                    (turn_began_with, turns) = (arrived.len(), turns + 1);
                    false
                }
                Some(ended) => ended,
                None => {
                    may_have_fired(&forward_timer, &mut forward_listens)
                        && forward_timer.as_mut().poll(cx).is_ready()
                }
            };
        }
        if forward_now {
            forward(&mut arrived, &mut streamed_chars, false);
            (gathered_bytes, gathering, after_turn) = (0, false, None);
            last_forward = Some(tokio::time::Instant::now());
        }
        while may_have_fired(&deadline, &mut deadline_listens)
            && deadline.as_mut().poll(cx).is_ready()
        {
            // Extra time granted meanwhile moves the deadline now, rather
            // than being listened for on every wake.
            let mut extra = Duration::ZERO;
            while let Ok(more) = extend.try_recv() {
                extra += more;
            }
            if extra.is_zero() {
                forward(&mut arrived, &mut streamed_chars, true);
                return Poll::Ready(Err(CallFailure::TimedOut {
                    after_ms: whole_ms(role_agent.timeout),
                    staged,
                }));
            }
            let later = deadline.deadline() + extra;
            deadline.as_mut().reset(later);
            // A timer that fired gave its waker up: poll the moved one.
            deadline_listens = false;
        }
        Poll::Pending
    })
    .await;
    let _ = inbox.send(Inbox::Ended {
        call_id: call_id.clone(),
        result,
        partial_chars: streamed_chars,
        first_text,
        elapsed: started.elapsed(),
    });
}

/// Wakes a call task once the runtime has run every task that was ready
/// and looked at its sockets (tokio defers a yielding task's wake until
/// then): the events of one socket read, passed from the connection's task
/// chunk by chunk, have all arrived by that time.
pub(super) struct AfterTurn {
    ended: std::sync::atomic::AtomicBool,
    task: std::task::Waker,
}

impl AfterTurn {
    /// Asks for a wake of `cx`'s task after this turn of the runtime.
    pub(super) fn wake(cx: &std::task::Context<'_>) -> std::sync::Arc<AfterTurn> {
        let turn = std::sync::Arc::new(AfterTurn {
            ended: std::sync::atomic::AtomicBool::new(false),
            task: cx.waker().clone(),
        });
        let waker = std::task::Waker::from(turn.clone());
        let mut yielding = std::pin::pin!(tokio::task::yield_now());
        // The first poll hands the waker to the runtime's deferred wakes and
        // is pending; the future is not needed after it.
        let _ = yielding
            .as_mut()
            .poll(&mut std::task::Context::from_waker(&waker));
        turn
    }

    /// Whether the turn has ended.
    pub(super) fn has_ended(&self) -> bool {
        self.ended.load(std::sync::atomic::Ordering::Acquire)
    }
}

impl std::task::Wake for AfterTurn {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.ended.store(true, std::sync::atomic::Ordering::Release);
        self.task.wake_by_ref();
    }
}

/// Whether `timer` needs a poll: when it has no waker of this task yet (it
/// was just made or moved) or it has fired. Polling a timer on every wake of
/// a stream would hand it the task's waker thousands of times over, and
/// reading the clock to see whether it is due costs about as much; polled
/// only here, it keeps the waker of its first poll and wakes the task when
/// it fires, and whether it has is one atomic load.
pub(super) fn may_have_fired(timer: &tokio::time::Sleep, listens: &mut bool) -> bool {
    !std::mem::replace(listens, true) || timer.is_elapsed()
}

/// Most diagnostic text (a local program's stderr) kept per call, in bytes;
/// beyond it the oldest part is dropped.
pub const DIAGNOSTIC_TAIL_BYTES: usize = 64 * 1024;

/// Characters per token for usage that quorum estimates itself, when a
/// provider reports none.
pub const ESTIMATED_CHARS_PER_TOKEN: u64 = 4;

/// Token counts estimated from the text, for calls whose provider reported none.
pub(super) fn estimated_usage(prompt_chars: usize, output: &str) -> Usage {
    Usage {
        input_tokens: prompt_chars as u64 / ESTIMATED_CHARS_PER_TOKEN,
        output_tokens: output.chars().count() as u64 / ESTIMATED_CHARS_PER_TOKEN,
    }
}

/// The call tasks in flight, by call id. Dropping the set aborts them all,
/// so an engine that is dropped (its task aborted on quit or a signal)
/// cancels its calls, and a `command` agent's process group is killed.
#[derive(Default)]
pub(super) struct RunningCalls(pub(super) BTreeMap<String, RunningCall>);

impl std::ops::Deref for RunningCalls {
    type Target = BTreeMap<String, RunningCall>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for RunningCalls {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Drop for RunningCalls {
    fn drop(&mut self) {
        for call in self.0.values() {
            call.task.abort();
        }
    }
}

/// What the engine keeps about a running call besides its task.
pub(super) struct CallBook {
    pub(super) role: String,
    pub(super) prompt_chars: usize,
    pub(super) usage_is_estimated: bool,
    /// Estimate tokens from the text when the provider reports none.
    pub(super) estimate_missing_usage: bool,
    pub(super) diagnostics: String,
}

impl CallBook {
    pub(super) fn add_diagnostic(&mut self, text: &str) {
        self.diagnostics.push_str(text);
        if self.diagnostics.len() > DIAGNOSTIC_TAIL_BYTES {
            let mut cut = self.diagnostics.len() - DIAGNOSTIC_TAIL_BYTES;
            while !self.diagnostics.is_char_boundary(cut) {
                cut += 1;
            }
            self.diagnostics.drain(..cut);
        }
    }
}

/// The shortest time between two batches a call task hands to the engine,
/// in milliseconds: a stream read at every arrival of a few characters would
/// otherwise wake the engine for each. A paced stream's batches come a frame
/// apart and never wait for it. Well under a frame (16 ms), so nobody sees
/// it.
pub const STREAM_FORWARD_MS: u64 = 4;

/// Bytes of gathered text that are handed to the engine at once, without
/// waiting for [`STREAM_FORWARD_MS`].
pub const STREAM_FORWARD_BYTES: usize = 16 * 1024;

/// Most turns of the runtime a batch waits for a turn that brings no more
/// events, before it crosses anyway.
pub const STREAM_FORWARD_TURNS: u32 = 8;

/// Bytes of answer or reasoning text an event carries.
pub(super) fn text_bytes(event: &StreamEvent) -> usize {
    match event {
        StreamEvent::Text(text) | StreamEvent::Reasoning(text) => text.len(),
        _ => 0,
    }
}

/// Whether an event carries answer text (what time to first text measures).
pub(super) fn is_text(event: &StreamEvent) -> bool {
    matches!(event, StreamEvent::Text(text) if !text.is_empty())
}

/// A call's streams as they leave its task: the values of API keys masked
/// ([`crate::secrets`]) in its text, its reasoning, what its program says
/// on stderr and its retry reasons, each stream holding back what could be
/// the start of a key until the next piece shows whether it is one.
pub(super) struct StreamMasks {
    text: crate::secrets::StreamMasker,
    reasoning: crate::secrets::StreamMasker,
    diagnostic: crate::secrets::StreamMasker,
    masker: std::sync::Arc<crate::secrets::Masker>,
}

impl StreamMasks {
    pub(super) fn new(masker: std::sync::Arc<crate::secrets::Masker>) -> Self {
        use crate::secrets::StreamMasker;
        StreamMasks {
            text: StreamMasker::new(masker.clone()),
            reasoning: StreamMasker::new(masker.clone()),
            diagnostic: StreamMasker::new(masker.clone()),
            masker,
        }
    }

    pub(super) fn mask(&mut self, events: Vec<StreamEvent>) -> Vec<StreamEvent> {
        if self.masker.is_empty() {
            return events;
        }
        events
            .into_iter()
            .filter_map(|event| {
                let event = match event {
                    StreamEvent::Text(text) => StreamEvent::Text(self.text.push(text)),
                    StreamEvent::Reasoning(text) => {
                        StreamEvent::Reasoning(self.reasoning.push(text))
                    }
                    StreamEvent::Diagnostic(text) => {
                        StreamEvent::Diagnostic(self.diagnostic.push(text))
                    }
                    StreamEvent::Retrying {
                        retry,
                        of,
                        reason,
                        wait,
                    } => StreamEvent::Retrying {
                        retry,
                        of,
                        reason: self.masker.mask(&reason).into_owned(),
                        wait,
                    },
                };
                let empty = matches!(
                    &event,
                    StreamEvent::Text(text) | StreamEvent::Reasoning(text) | StreamEvent::Diagnostic(text)
                        if text.is_empty()
                );
                (!empty).then_some(event)
            })
            .collect()
    }

    /// What the streams still hold, at the call's end.
    pub(super) fn finish(&mut self) -> Vec<StreamEvent> {
        [
            StreamEvent::Text(self.text.finish()),
            StreamEvent::Reasoning(self.reasoning.finish()),
            StreamEvent::Diagnostic(self.diagnostic.finish()),
        ]
        .into_iter()
        .filter(|event| {
            !matches!(event, StreamEvent::Text(text) | StreamEvent::Reasoning(text) | StreamEvent::Diagnostic(text) if text.is_empty())
        })
        .collect()
    }
}

/// `events` with each run of consecutive text pieces joined into one, and
/// each run of reasoning pieces too; anything else stays where it was.
pub(super) fn coalesce(events: impl Iterator<Item = StreamEvent>) -> Vec<StreamEvent> {
    let mut merged: Vec<StreamEvent> = Vec::new();
    for event in events {
        match (merged.last_mut(), event) {
            (Some(StreamEvent::Text(text)), StreamEvent::Text(more)) => text.push_str(&more),
            (Some(StreamEvent::Reasoning(text)), StreamEvent::Reasoning(more)) => {
                text.push_str(&more)
            }
            (_, event) => merged.push(event),
        }
    }
    merged
}

impl<P: Protocol + ?Sized> Engine<P> {
    pub(super) fn start_call(&mut self, spec: CallSpec) -> Result<(), EngineError> {
        let request = spec.request;
        let role_agent = self
            .roster
            .get(&request.role)
            .cloned()
            .ok_or_else(|| EngineError::NoAgent(request.role.clone()))?;
        let info = role_agent.agent.info();
        let mut role_agent = role_agent;
        if let Some(extra) = self.extra_time.remove(&request.call_id) {
            role_agent.timeout += extra;
        }
        self.books.insert(
            request.call_id.clone(),
            CallBook {
                role: request.role.clone(),
                prompt_chars: request.prompt.chars().count(),
                usage_is_estimated: role_agent.agent.usage_is_estimated(),
                // A typed answer costs no tokens.
                estimate_missing_usage: info.provider != HUMAN_PROVIDER,
                diagnostics: String::new(),
            },
        );
        // Without a fsync of its own: the next input's fsync carries it. A
        // crash that loses it loses everything after it too, which leaves
        // the journal as a crash just before this call started would have.
        self.records.record(
            self.now(),
            &JournalEvent::CallStarted {
                call_id: request.call_id.clone(),
                role: request.role.clone(),
                agent: info.to_string(),
                prompt: request.prompt.clone(),
            },
        )?;
        tracing::info!(call_id = %request.call_id, agent = %info, "call started");
        let human = info.provider == HUMAN_PROVIDER;
        self.publish(Update::CallStarted {
            call_id: request.call_id.clone(),
            slot: Slot::new(&request.role, &request.stage, request.round),
            attempt: request.attempt,
            agent: info,
        });
        if human {
            self.publish(Update::AnswerWanted {
                call_id: request.call_id.clone(),
                role: request.role.clone(),
                prompt: request.prompt.clone(),
                template: self.protocol.answer_template(&request.call_id),
            });
        }
        let (extend_tx, extend_rx) = mpsc::unbounded_channel::<Duration>();
        let task_call_id = request.call_id.clone();
        let task = tokio::spawn(run_call(
            role_agent,
            request,
            extend_rx,
            self.inbox_tx.clone(),
        ));
        if let Some(path) = spec.raw_output_path {
            self.records.expect_raw(&task_call_id, path);
        }
        let running = RunningCall {
            task,
            extend: extend_tx,
        };
        if let Some(previous) = self.running.insert(task_call_id, running) {
            previous.task.abort();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::AfterTurn;
    use crate::agent::{Agent, AgentError, AgentInfo, CallOutput, CallRequest, FinishReason};
    use crate::agent::{StreamEvent, events::EventSender};
    use crate::engine::{Inbox, RoleAgent};
    use std::time::Duration;

    /// An agent whose connection hands its answer over the way hyper hands
    /// over a body: one event a poll, through a channel of one, from a task
    /// of its own. It sends `events` one-character pieces at once, then
    /// holds the call open for 50 ms.
    struct OneEventAPoll {
        events: usize,
    }

    impl Agent for OneEventAPoll {
        fn info(&self) -> AgentInfo {
            AgentInfo {
                provider: "test".into(),
                model: "one-event-a-poll".into(),
            }
        }

        fn call<'a>(
            &'a self,
            _request: CallRequest,
            events: EventSender,
        ) -> futures::future::BoxFuture<'a, Result<CallOutput, AgentError>> {
            let count = self.events;
            Box::pin(async move {
                let (connection, mut body) = tokio::sync::mpsc::channel::<String>(1);
                tokio::spawn(async move {
                    for _ in 0..count {
                        connection.send("x".to_string()).await.unwrap();
                    }
                });
                let mut text = String::new();
                while let Some(piece) = body.recv().await {
                    text.push_str(&piece);
                    events.send(StreamEvent::Text(piece));
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                Ok(CallOutput {
                    text,
                    usage: None,
                    finish: FinishReason::Stop,
                })
            })
        }
    }

    /// The text of one read crosses to the engine as one batch, however
    /// many polls its connection takes to hand it over: tokio's scheduler
    /// ends a turn after 61 polls to look at its timers, and 200 events
    /// handed over one a poll (two polls each, the connection's and the
    /// call's) span several such turns. Before, the batch crossed when the
    /// first turn was cut and the rest waited STREAM_FORWARD_MS for a
    /// second batch: one more wake of the engine every read.
    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_read_handed_over_in_many_polls_crosses_as_one_batch() {
        let events = 200;
        let role_agent = RoleAgent {
            agent: Arc::new(OneEventAPoll { events }),
            timeout: Duration::from_secs(60),
        };
        let request = CallRequest {
            call_id: "proposer/proposal/r1/a1".into(),
            role: "proposer".into(),
            stage: "proposal".into(),
            round: 1,
            attempt: 1,
            prompt: "p".into(),
        };
        let (_extend, extend) = tokio::sync::mpsc::unbounded_channel();
        let (inbox, mut received) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(super::run_call(role_agent, request, extend, inbox));
        let mut batches = Vec::new();
        while let Some(message) = received.recv().await {
            match message {
                Inbox::Stream {
                    event: StreamEvent::Text(text),
                    ..
                } => batches.push(text.len()),
                Inbox::Ended { .. } => break,
                _ => {}
            }
        }
        assert_eq!(batches, vec![events], "one batch of the whole read");
    }

    /// How often the thread parks until a timer due at 100 ms fires: one
    /// set there at once, or (`moved`) one set for 5 ms, in the timer wheel,
    /// then moved to 100 ms by [`super::move_timer`]. Each park is a wake
    /// of the process, on tokio's paused clock as on the real one.
    fn parks_until_due(moved: bool) -> usize {
        use std::pin::pin;
        use tokio::time::{Instant, sleep_until};
        let (runtime, parks) = crate::agent::http::paced::runtime_counting_parks();
        runtime.block_on(async {
            let start = Instant::now();
            let due = start + Duration::from_millis(100);
            let first = if moved {
                start + Duration::from_millis(5)
            } else {
                due
            };
            let mut timer = pin!(sleep_until(first));
            // Polled once: in the timer wheel, as the engine's timer is.
            let polled =
                std::future::poll_fn(|cx| std::task::Poll::Ready(timer.as_mut().poll(cx))).await;
            assert!(polled.is_pending());
            super::move_timer(timer.as_mut(), due);
            let before = parks.load(Ordering::SeqCst);
            timer.as_mut().await;
            assert_eq!(Instant::now(), due);
            parks.load(Ordering::SeqCst) - before
        })
    }

    /// A timer the engine moves later (the batch of a stream journaled as
    /// the next read came, the next batch due a read later) wakes the
    /// process no more often than one set there in the first place: never
    /// at its old deadline. With tokio's `reset`, a headless run woke a
    /// millisecond or two after every read for nothing.
    #[test]
    fn a_timer_moved_later_wakes_nobody_at_its_old_deadline() {
        assert_eq!(parks_until_due(true), parks_until_due(false));
    }

    /// The turn ends only once tasks that became ready during it have run:
    /// the task spawned by another task after the turn was asked for runs
    /// first. A wake at once would put the asking task back in the queue
    /// before that one.
    #[tokio::test(flavor = "current_thread")]
    async fn a_turn_ends_after_the_tasks_it_made_ready() {
        let ran = Arc::new(AtomicUsize::new(0));
        let seen = {
            let ran = ran.clone();
            let mut turn = None;
            tokio::spawn(std::future::poll_fn(move |cx| {
                let turn = turn.get_or_insert_with(|| AfterTurn::wake(cx));
                if turn.has_ended() {
                    std::task::Poll::Ready(ran.load(Ordering::SeqCst))
                } else {
                    std::task::Poll::Pending
                }
            }))
        };
        let later = ran.clone();
        tokio::spawn(async move {
            tokio::spawn(async move {
                later.fetch_add(1, Ordering::SeqCst);
            });
        });
        assert_eq!(seen.await.unwrap(), 1);
    }
}
