//! The async driver: runs a protocol's effects, supervises agent calls,
//! journals every input before the protocol sees it, writes the artifact tree
//! and publishes view updates.
//!
//! One loop owns the protocol. Agent calls run as their own tasks and report
//! back on one channel (chunks, finished, failed); moderator decisions arrive
//! on the same channel. For every input the order is fixed: append it to the
//! journal (fsynced; a finished call's answer travels in it), write a
//! finished judge's raw output to its own file (verbatim) and check it reads
//! back the same, hand the input to the protocol, start the calls it asks
//! for, then rewrite the artifact files that changed (after the new calls
//! are under way, and on tokio's blocking pool, so the rewrite is neither on
//! the path from one call to the next nor in the way of answers and text
//! arriving meanwhile). Answers that end together (the judges of a round)
//! are journaled under one fsync and then parsed one by one. A crash at any
//! point loses no finished output and no moderator decision: `quorum
//! resume` folds the journal back ([`resume`]) and rewrites every file from
//! it. Streamed text is journaled in batches too, for replay, and calls
//! started are journaled, both without a fsync of their own (the next
//! input's fsync carries them).
//!
//! Streamed chunks cross from a call's task to this loop in batches: what a
//! provider produced since the loop last heard from that call travels as
//! one message per run of text, so a fast stream costs one wake per batch,
//! not one per chunk.
//!
//! Not responsible for protocol rules (retry counts, what a skip means: the
//! protocol decides) or for presentation (the headless printer and the TUI
//! subscribe to [`Update`]s).
//!
//! Its rooms: this module holds the loop; `intake` turns each message the
//! loop takes into inputs; `calls` runs the call tasks and batches their
//! streams; `records` writes the record (the journal's group commit, the
//! answers' files, the documents' rewrite schedule), a scheduler the loop
//! asks when it next has work and hands the time to; `inbox` brings a
//! person's rulings in from another terminal (`quorum attach`).

mod calls;
pub mod inbox;
mod intake;
pub mod moderation;
mod records;
pub mod resume;
pub mod setup;
pub mod spending;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::agent::human::HumanDesk;
use crate::agent::{Agent, AgentInfo, CallOutput, StreamEvent, Usage};
use crate::artifact::{Journal, JournalError, Record, RunDir};
use crate::protocol::supervision::Slot;
use crate::protocol::{
    Board, CallFailure, CallSpec, Effect, Input, LogEntry, ModerationItem, Outcome, Progress,
    Protocol, Timestamp,
};

use calls::{CallBook, RunningCalls};
use records::Records;

pub use crate::spec::ModerationPolicy;
pub use calls::{
    DIAGNOSTIC_TAIL_BYTES, ESTIMATED_CHARS_PER_TOKEN, STREAM_FORWARD_BYTES, STREAM_FORWARD_MS,
    STREAM_FORWARD_TURNS,
};
pub use moderation::{Moderator, PastRuling};
pub use records::{
    DOCUMENTS_COST_SHARE, DOCUMENTS_LAG_MAX_MS, DOCUMENTS_WAIT_MAX_MS, STREAM_BATCH_EARLY_MS,
    STREAM_BATCH_MS,
};
pub use setup::{AlternativeSetup, RoleSetup, RunSetup, recordable};
pub use spending::{BudgetDecision, BudgetEvent, BudgetQuestion, WhenOver};

use crate::protocol::budget::{Budget, Forecast};
use spending::Spending;

/// An agent bound to a role, with that role's deadline.
#[derive(Clone)]
pub struct RoleAgent {
    pub agent: Arc<dyn Agent>,
    /// A call with no complete answer after this long is timed out (INF-12).
    pub timeout: Duration,
}

/// Which agent plays each role slot (`proposer`, `critic`, `judge.analyst`).
#[derive(Clone, Default)]
pub struct Roster {
    roles: HashMap<String, RoleAgent>,
}

impl Roster {
    pub fn insert(&mut self, role: impl Into<String>, agent: RoleAgent) {
        self.roles.insert(role.into(), agent);
    }

    pub fn get(&self, role: &str) -> Option<&RoleAgent> {
        self.roles.get(role)
    }
}

pub use crate::protocol::kind::DebateDefinition;

/// A journal line's event: the debate's definition, then inputs.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum JournalEvent {
    /// First line of every journal: enough to rebuild the protocol and,
    /// with `setup`, its agents.
    DebateStarted {
        definition: Box<DebateDefinition>,
        /// Absent in journals written before resume existed; such a debate
        /// can be read but not resumed.
        setup: Option<Box<RunSetup>>,
    },
    /// An engine-side fact, recorded for the reader and for resume.
    CallStarted {
        call_id: String,
        role: String,
        agent: String,
        /// The exact prompt sent, so the record shows what every agent was asked.
        prompt: String,
    },
    Input {
        input: Input,
    },
    /// Text a call streamed since the previous batch, for replay. Written
    /// without its own fsync (the next input's fsync carries it); never
    /// treated as output: an unfinished call is started again on resume.
    Streamed {
        call_id: String,
        text: String,
        /// Reasoning text, shown dimmed, not part of the answer.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        reasoning: bool,
    },
    /// The debate was picked up again after an interruption.
    Resumed {
        /// Calls that had not finished and were started again.
        restarted: Vec<String>,
    },
    /// A step was held at the budget, a decision about it, or the stop
    /// before it.
    Budget {
        budget: BudgetEvent,
    },
    Finished {
        outcome: Outcome,
    },
}

/// What the engine tells the user interfaces.
#[derive(Clone, Debug, PartialEq)]
pub enum Update {
    Progress(Progress),
    /// A call started: its slot (role, stage, round) and attempt as the
    /// protocol asked for them, so no reader takes them back out of the
    /// call id.
    CallStarted {
        call_id: String,
        slot: Slot,
        attempt: u32,
        agent: AgentInfo,
    },
    Chunk {
        call_id: String,
        text: String,
    },
    Reasoning {
        call_id: String,
        text: String,
    },
    Log(LogEntry),
    ModerationNeeded {
        items: Vec<ModerationItem>,
    },
    /// The judge's file is on disk and its input is about to be applied.
    RawPersisted {
        call_id: String,
        path: String,
    },
    /// A call finished: its tokens, latency and cost (where a price is known).
    CallUsage {
        call_id: String,
        role: String,
        usage: Option<Usage>,
        /// Time from the start of the call to its first answer text.
        ttft_ms: Option<u64>,
        elapsed_ms: u64,
        cost_usd: Option<f64>,
    },
    /// What the board shows changed (scores, items, decisions); boxed, as
    /// the largest update by far.
    Board(Box<Board>),
    /// A role played by a person needs an answer.
    AnswerWanted {
        call_id: String,
        role: String,
        prompt: String,
        /// The shape of the expected answer, to start from.
        template: Option<String>,
    },
    /// A typed answer did not pass the protocol's parser; the call still waits.
    AnswerRejected {
        call_id: String,
        error: String,
    },
    /// The forecast of the step about to start, and the budget (unset
    /// when the debate has none).
    Forecast {
        step: Forecast,
        limit: Budget,
    },
    /// A step would cross the budget and waits for the person's decision.
    BudgetReached(BudgetQuestion),
    /// The person's decision about a held step took effect.
    BudgetDecided {
        decision: BudgetDecision,
    },
    Finished(Outcome),
}

/// What is left of an interrupted debate, from [`resume::fold`].
pub struct ResumePoint {
    pub unfinished: Vec<CallSpec>,
    pub moderation: Option<Vec<ModerationItem>>,
    pub extended: std::collections::BTreeMap<String, Duration>,
    /// Every answer on record with its raw-output file, as the live run
    /// wrote it when it came: written again where the file is missing or
    /// says something else.
    pub answers: Vec<(String, String)>,
}

impl ResumePoint {
    /// Where `folded`, folded from `records`, stands.
    pub fn new<P: ?Sized>(folded: &resume::Folded<P>, records: &[Record<JournalEvent>]) -> Self {
        ResumePoint {
            unfinished: folded.unfinished.clone(),
            moderation: folded.moderation.clone(),
            extended: folded.extended.clone(),
            answers: resume::answer_texts(&folded.answers, records)
                .into_iter()
                .map(|(path, output)| (path, output.to_owned()))
                .collect(),
        }
    }
}

/// An agent a role may be switched to, with its configured price.
#[derive(Clone)]
pub struct Alternative {
    pub agent: Arc<dyn Agent>,
    pub price: Option<crate::protocol::usage::Price>,
}

/// What an interface can ask of a running engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// A moderator input: an item decision, the submission, an override.
    Moderator(Input),
    /// The answer a person wrote for a call of a role they play.
    HumanAnswer { call_id: String, answer: String },
    /// Give `role` to alternative number `choice` (see
    /// [`Engine::with_alternatives`]), then run `then` (a retry of the
    /// role's running call, or a re-run of its malformed one).
    SwitchAgent {
        role: String,
        choice: usize,
        then: Option<Input>,
    },
    /// The person's decision about a step held at the budget.
    Budget(BudgetDecision),
}

/// A handle an interface keeps to steer the engine.
#[derive(Clone)]
pub struct Controller {
    inbox: mpsc::UnboundedSender<Inbox>,
}

impl Controller {
    /// A controller with no engine behind it, for interfaces that only
    /// show a debate (a replay): every command is refused.
    pub fn detached() -> Controller {
        let (inbox, _) = mpsc::unbounded_channel();
        Controller { inbox }
    }

    /// A controller whose commands go to the receiver handed back, not to
    /// an engine of this process: for an interface over a debate another
    /// process drives (`quorum attach`), which passes them on.
    pub fn channel() -> (Controller, CommandReceiver) {
        let (inbox, receiver) = mpsc::unbounded_channel();
        (Controller { inbox }, CommandReceiver { receiver })
    }

    /// Sends a command; false once the engine has stopped.
    pub fn send(&self, command: Command) -> bool {
        self.inbox.send(Inbox::Command(command)).is_ok()
    }

    /// The engine (or the receiver of [`Controller::channel`]) is gone:
    /// nothing sent from now on arrives.
    pub fn is_closed(&self) -> bool {
        self.inbox.is_closed()
    }
}

/// The receiving end of [`Controller::channel`].
pub struct CommandReceiver {
    receiver: mpsc::UnboundedReceiver<Inbox>,
}

impl CommandReceiver {
    /// The next command sent, or `None` once every controller is gone.
    pub async fn recv(&mut self) -> Option<Command> {
        loop {
            match self.receiver.recv().await? {
                Inbox::Command(command) => return Some(command),
                // A controller sends nothing else.
                _ => continue,
            }
        }
    }
}

/// Why the engine itself could not go on.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Artifact(#[from] crate::artifact::ArtifactError),
    #[error("no agent is assigned to the role `{0}`")]
    NoAgent(String),
    #[error("moderation: {0}")]
    Moderation(String),
    #[error("{path} does not read back as it was written; the disk may be failing")]
    ReadBack { path: String },
    #[error("the artifact files could not be rewritten: {0}")]
    Rewrite(String),
    /// Stopped before a step that would cross the budget; resumable.
    #[error("stopped before a step that would cross the budget: {}", .0.describe())]
    OverBudget(Box<BudgetQuestion>),
    /// The process that drives a debate watched from another (`quorum
    /// attach`) stopped, or its record could not be read: why.
    #[error("{0}")]
    Elsewhere(String),
}

/// Messages into the engine loop.
enum Inbox {
    Stream {
        call_id: String,
        event: StreamEvent,
    },
    Ended {
        call_id: String,
        result: Result<CallOutput, CallFailure>,
        partial_chars: usize,
        /// From the start of the call to its first answer text.
        first_text: Option<Duration>,
        elapsed: Duration,
    },
    Moderator(Input),
    ModeratorGone(String),
    Command(Command),
}

/// A duration in whole milliseconds, as the journal records it.
pub(crate) fn whole_ms(duration: Duration) -> u64 {
    duration.as_millis().min(u128::from(u64::MAX)) as u64
}

/// The engine of one debate: any protocol, held in a box (`Engine`, of
/// `dyn Protocol`, runs one from the registry; a test may hold its own
/// type), so every call reaches the protocol's own method and no
/// hand-written forward can leave one out.
pub struct Engine<P: Protocol + ?Sized = dyn Protocol> {
    protocol: Box<P>,
    /// The journal, the raw answer files and the run folder's documents.
    records: Records,
    roster: Roster,
    moderator: Moderator,
    updates: mpsc::UnboundedSender<Update>,
    /// Whether streamed text is published as [`Update::Chunk`] and
    /// [`Update::Reasoning`] (not when nobody shows it: a headless run).
    stream_updates: bool,
    inbox_tx: mpsc::UnboundedSender<Inbox>,
    inbox_rx: mpsc::UnboundedReceiver<Inbox>,
    running: RunningCalls,
    human_desk: Option<Arc<HumanDesk>>,
    /// Agents the moderator may switch a role to.
    alternatives: Vec<Alternative>,
    /// The board as last published, to publish only changes.
    board: Board,
    /// A step may have changed the board since it was last published: it
    /// is built and published once the inbox is empty (or before the
    /// moderator is asked, or the debate ends), so a burst of inputs (a
    /// policy's decision on every item) builds it once, not once per input.
    board_due: bool,
    /// The stage and round of the progress last published.
    shown_stage: (String, u32),
    /// Role, prompt size and diagnostics of each running call, by call id.
    books: HashMap<String, CallBook>,
    log_published: usize,
    /// Extra time granted to calls before an interruption, added to their
    /// deadline when they are started again.
    extra_time: HashMap<String, Duration>,
    /// A message taken from the inbox while gathering answers that ended
    /// together, handled next.
    pending: Option<Inbox>,
    /// The budget and the step it holds, if any.
    spending: Spending,
}

impl<P: Protocol + ?Sized> Engine<P> {
    pub fn new(
        protocol: Box<P>,
        run_dir: RunDir,
        journal: Journal,
        roster: Roster,
        moderator: Moderator,
        updates: mpsc::UnboundedSender<Update>,
    ) -> Self {
        let (inbox_tx, inbox_rx) = mpsc::unbounded_channel();
        Engine {
            protocol,
            records: Records::new(run_dir, journal),
            roster,
            moderator,
            updates,
            stream_updates: true,
            inbox_tx,
            inbox_rx,
            running: RunningCalls::default(),
            human_desk: None,
            alternatives: Vec::new(),
            board: Board::default(),
            board_due: false,
            shown_stage: (String::new(), 0),
            books: HashMap::new(),
            pending: None,
            log_published: 0,
            extra_time: HashMap::new(),
            spending: Spending::default(),
        }
    }

    /// Publishes no streamed text: for a watcher that shows none (a headless
    /// run), which would otherwise be woken for every batch of it.
    pub fn without_stream_updates(mut self) -> Self {
        self.stream_updates = false;
        self
    }

    /// Roles played by a person get their answers through this desk.
    pub fn with_human_desk(mut self, desk: Arc<HumanDesk>) -> Self {
        self.human_desk = Some(desk);
        self
    }

    /// Agents a role may be switched to during the debate, in the order an
    /// interface lists them.
    pub fn with_alternatives(mut self, alternatives: Vec<Alternative>) -> Self {
        self.alternatives = alternatives;
        self
    }

    /// A handle for an interface to send moderator decisions, overrides and
    /// typed answers.
    pub fn controller(&self) -> Controller {
        Controller {
            inbox: self.inbox_tx.clone(),
        }
    }

    pub fn protocol(&self) -> &P {
        &self.protocol
    }

    fn now(&self) -> Timestamp {
        Utc::now()
    }

    fn publish(&self, update: Update) {
        // A closed receiver only means nobody is watching.
        let _ = self.updates.send(update);
    }

    /// Runs the debate to its outcome.
    pub async fn run(mut self) -> Result<(Outcome, Box<P>), EngineError> {
        // The protocol starts when its definition was journaled, as a fold
        // of the journal will start it.
        let now = self.records.last_at().unwrap_or_else(|| self.now());
        let effects = self.protocol.start(now);
        // The documents are written once the first calls are under way.
        self.after_step()?;
        self.drive(effects).await
    }

    /// Carries on a debate whose journal was folded into this engine's
    /// protocol ([`resume::fold`]): rewrites every document, starts the
    /// unfinished calls again (with any extra time granted to them), asks
    /// the moderator about the items still undecided, and runs to the
    /// outcome. With `reopen`, a finished debate goes back to revision first.
    /// The log entries already in the protocol are taken as shown.
    pub async fn resume(
        mut self,
        folded: ResumePoint,
        reopen: bool,
    ) -> Result<(Outcome, Box<P>), EngineError> {
        let restarted: Vec<String> = folded
            .unfinished
            .iter()
            .map(|call| call.request.call_id.clone())
            .collect();
        let now = self.now();
        let resumed = JournalEvent::Resumed {
            restarted: restarted.clone(),
        };
        self.records.record_durable(now, &resumed)?;
        // What came before was shown when it happened (or folded just
        // now); the line that says the run resumes is new.
        self.log_published = self.protocol.log().len();
        self.protocol.handle(&Input::Resumed { restarted }, now);
        self.raise_on_resume()?;
        self.extra_time = folded.extended.into_iter().collect();
        let kept = self.protocol.answer_files();
        self.records
            .restore_answers(resume::answer_files(&folded.answers, &kept))?;
        self.after_step()?;
        self.records.write_documents(&*self.protocol)?;
        let mut queue = Vec::new();
        if reopen {
            queue = self.step(Input::Reopened)?;
        } else if let Some(outcome) = self.protocol.outcome().cloned() {
            // Decided, but the process stopped before recording the end.
            queue.push(Effect::Finished(outcome));
        } else {
            queue.extend(folded.unfinished.into_iter().map(Effect::StartCall));
            if folded.moderation.is_some() {
                let undecided: Vec<ModerationItem> = self
                    .protocol
                    .board()
                    .items
                    .into_iter()
                    .filter(|item| item.decision.is_none())
                    .map(|item| item.item)
                    .collect();
                queue.push(Effect::AwaitModeration { items: undecided });
            }
        }
        self.drive(queue).await
    }

    /// Applies one input to a debate that is not running (a finished one
    /// whose deferred items are being settled): journaled, handled and
    /// written like any other.
    pub fn settle(&mut self, input: Input) -> Result<(), EngineError> {
        self.step(input)?;
        self.publish_board();
        self.records.write_documents(&*self.protocol)
    }

    /// Serves an interface that settles deferred items of a finished
    /// debate: each [`Input::ItemResolved`] it sends is applied with
    /// [`settle`](Self::settle); other commands are ignored. Runs until
    /// aborted.
    pub async fn serve_settlements(mut self) -> Result<(Outcome, Box<P>), EngineError> {
        self.log_published = self.protocol.log().len();
        self.after_step()?;
        self.publish_board();
        self.records.write_documents(&*self.protocol)?;
        loop {
            let Some(message) = self.inbox_rx.recv().await else {
                unreachable!("the engine holds a sender of its own inbox");
            };
            if let Inbox::Command(Command::Moderator(input @ Input::ItemResolved { .. })) = message
            {
                self.settle(input)?;
            }
        }
    }

    /// Runs the debate to its outcome ([`drive_loop`](Self::drive_loop));
    /// however it ended, a rewrite under way finishes before this returns,
    /// so no file changes after the engine has given up the run folder.
    async fn drive(mut self, effects: Vec<Effect>) -> Result<(Outcome, Box<P>), EngineError> {
        let ended = self.drive_loop(effects).await;
        self.records.close().await;
        ended.map(|outcome| (outcome, self.protocol))
    }

    async fn drive_loop(&mut self, effects: Vec<Effect>) -> Result<Outcome, EngineError> {
        let mut queue = effects;
        let timer = tokio::time::sleep_until(tokio::time::Instant::now());
        tokio::pin!(timer);
        loop {
            for effect in self.admit(std::mem::take(&mut queue))? {
                if let Some(outcome) = self.apply(effect)? {
                    let finished = JournalEvent::Finished {
                        outcome: outcome.clone(),
                    };
                    let now = self.now();
                    self.records.settle().await?;
                    self.records.finish(now, &finished, &*self.protocol)?;
                    self.shutdown();
                    self.publish_board();
                    self.publish(Update::Finished(outcome.clone()));
                    return Ok(outcome);
                }
            }
            if self.spending.stops_now(!self.running.is_empty()) {
                self.records.settle().await?;
                self.records.write_documents(&*self.protocol)?;
                let stop = self.stop_for_budget();
                self.shutdown();
                self.publish_board();
                return Err(stop);
            }
            self.records.poll_rewrite()?;
            let now = tokio::time::Instant::now();
            if !self.running.is_empty() && self.records.documents_due(now) {
                // Let the calls just spawned begin, and answers that are in
                // (the other judges of a round) reach the inbox, before the
                // documents are written: on this thread they would wait.
                tokio::task::yield_now().await;
            }
            let inbox_empty = self.inbox_is_empty();
            self.records
                .handle_timeout(now, &*self.protocol, inbox_empty)?;
            // A message already waiting is taken without arming a timer;
            // otherwise the one timer is moved only when its deadline changes.
            let message = match self
                .pending
                .take()
                .map_or_else(|| self.inbox_rx.try_recv(), Ok)
            {
                Ok(message) => Some(message),
                Err(mpsc::error::TryRecvError::Disconnected) => None,
                Err(mpsc::error::TryRecvError::Empty) => {
                    self.publish_board();
                    self.records.before_wait()?;
                    let wake = self.records.poll_timeout();
                    if let Some(at) = wake {
                        calls::move_timer(timer.as_mut(), at);
                    }
                    let rewriting = self.records.rewriting();
                    tokio::select! {
                        message = self.inbox_rx.recv() => message,
                        // What fell due is done at the top of the loop.
                        () = &mut timer, if wake.is_some() => continue,
                        ended = self.records.rewrite_ended(), if rewriting => {
                            ended?;
                            continue;
                        }
                    }
                }
            };
            let Some(message) = message else {
                unreachable!("the engine holds a sender of its own inbox");
            };
            if self.is_plain_answer(&message) {
                let answers = self.answers_together(message).await?;
                queue = tracing::debug_span!("quorum_input").in_scope(|| self.collect(answers))?;
                continue;
            }
            // Spans for benches/growth (debug level: off in normal use).
            let span = match &message {
                Inbox::Stream {
                    event: StreamEvent::Text(text) | StreamEvent::Reasoning(text),
                    ..
                } => tracing::debug_span!("quorum_stream", bytes = text.len()),
                Inbox::Stream { .. } => tracing::debug_span!("quorum_stream", bytes = 0),
                _ => tracing::debug_span!("quorum_input"),
            };
            queue = span.in_scope(|| self.receive(message))?;
        }
    }

    /// Whether no message waits to be handled.
    fn inbox_is_empty(&self) -> bool {
        self.pending.is_none() && self.inbox_rx.is_empty()
    }

    fn shutdown(&mut self) {
        for (_, call) in std::mem::take(&mut self.running.0) {
            call.task.abort();
        }
        self.books.clear();
        self.moderator.stop();
    }

    /// Applies one effect; returns the outcome when the debate is over.
    fn apply(&mut self, effect: Effect) -> Result<Option<Outcome>, EngineError> {
        match effect {
            Effect::StartCall(spec) => self.start_call(spec)?,
            Effect::CancelCall { call_id } => {
                if let Some(call) = self.running.remove(&call_id) {
                    call.task.abort();
                }
                self.books.remove(&call_id);
            }
            Effect::AwaitModeration { items } => {
                self.publish_board();
                self.publish(Update::ModerationNeeded {
                    items: items.clone(),
                });
                let sender = self.inbox_tx.clone();
                self.moderator.request(
                    items,
                    self.protocol.item_words(),
                    Box::new(move |input| sender.send(Inbox::Moderator(input)).is_ok()),
                    {
                        let sender = self.inbox_tx.clone();
                        Box::new(move |reason| {
                            let _ = sender.send(Inbox::ModeratorGone(reason));
                        })
                    },
                );
            }
            Effect::Finished(outcome) => return Ok(Some(outcome)),
        }
        Ok(None)
    }

    /// Journal, apply, render: the one path every input takes.
    fn step(&mut self, input: Input) -> Result<Vec<Effect>, EngineError> {
        let now = self.now();
        let more_waiting = !self.inbox_is_empty();
        self.records.journal_input(&input, now, more_waiting)?;
        self.apply_input(&input, now)
    }

    fn apply_input(&mut self, input: &Input, now: Timestamp) -> Result<Vec<Effect>, EngineError> {
        let effects = self.protocol.handle(input, now);
        self.after_step()?;
        Ok(effects)
    }

    /// Publishes new log entries and progress; the board is published by
    /// [`publish_board`](Self::publish_board), the files are rewritten by
    /// [`write_documents`](Records::write_documents).
    fn after_step(&mut self) -> Result<(), EngineError> {
        let log = self.protocol.log();
        for entry in &log[self.log_published.min(log.len())..] {
            let _ = self.updates.send(Update::Log(entry.clone()));
        }
        self.log_published = log.len();
        let progress = self.protocol.progress();
        // A new stage or round shows with the board it starts from (the
        // decisions that ended a moderation, the items it is to decide),
        // never an older one: the board is built then too, once a stage.
        if (progress.stage.as_str(), progress.round)
            != (self.shown_stage.0.as_str(), self.shown_stage.1)
        {
            self.board_due = true;
            self.publish_board();
        }
        self.shown_stage = (progress.stage.clone(), progress.round);
        self.publish(Update::Progress(progress));
        self.board_due = true;
        self.records.documents_changed();
        Ok(())
    }

    /// Publishes the board if a step may have changed it since it was
    /// last published and it did change. Building it costs every item of
    /// the debate, so it is done when the engine is about to wait, not
    /// after every input.
    fn publish_board(&mut self) {
        if !std::mem::take(&mut self.board_due) {
            return;
        }
        let board = self.protocol.board();
        if board != self.board {
            self.board = board.clone();
            self.publish(Update::Board(Box::new(board)));
        }
    }
}
