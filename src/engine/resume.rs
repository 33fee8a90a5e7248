//! Reading a debate back from its journal: the fold that rebuilds the
//! protocol's exact state, and what is left to do.
//!
//! The journal is the source of truth. Folding its inputs, with the times
//! they were recorded, through a fresh protocol gives the state the
//! interrupted process had; the effects the protocol answers with say which
//! calls were started and never ended (they are started again: a partial
//! stream is not an answer) and whether the moderator still had items to
//! decide. Along the way the fold produces the [`Update`]s the engine would
//! have published, with their times, so an interface can show what was
//! finished (`quorum resume`, `quorum open`) or play it back (`quorum replay`).
//!
//! Not responsible for running anything: [`Engine::resume`](super::Engine::resume)
//! picks up from a [`Folded`] debate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agent::AgentInfo;
use crate::artifact::{JournalError, Record, TornTail, read_journal};
use crate::protocol::usage::Price;
use crate::protocol::{
    Board, CallSpec, Effect, Input, ModerationItem, OverrideAction, Protocol, Timestamp,
};

use super::{DebateDefinition, JournalEvent, RunSetup, Update};

/// The journal's file name inside a debate's folder.
pub const JOURNAL_FILE: &str = "journal.jsonl";

/// Why a folder cannot be read back as a debate.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{} is not a debate folder: it has no {JOURNAL_FILE}", dir.display())]
    NotADebate { dir: PathBuf },
    #[error("{} line 1: a journal must start with the debate's definition (`debate_started`)", path.display())]
    NoDefinition { path: PathBuf },
    #[error(transparent)]
    Journal(#[from] JournalError),
}

/// A debate's journal, read and checked.
#[derive(Debug)]
pub struct Recorded {
    pub journal_path: PathBuf,
    pub definition: DebateDefinition,
    /// How the agents were built; `None` in journals older than resume.
    pub setup: Option<RunSetup>,
    /// Every record, the definition included.
    pub records: Vec<Record<JournalEvent>>,
    /// An incomplete last line left by a crash, not part of `records`.
    pub torn_tail: Option<TornTail>,
}

impl Recorded {
    /// Reads `dir`'s journal. A torn last line is reported, not an error.
    pub fn read(dir: &Path) -> Result<Recorded, RecordError> {
        let journal_path = dir.join(JOURNAL_FILE);
        if !journal_path.is_file() {
            return Err(RecordError::NotADebate {
                dir: dir.to_path_buf(),
            });
        }
        let contents = read_journal::<JournalEvent>(&journal_path)?;
        let Some(JournalEvent::DebateStarted { definition, setup }) =
            contents.records.first().map(|record| &record.event)
        else {
            return Err(RecordError::NoDefinition { path: journal_path });
        };
        Ok(Recorded {
            definition: (**definition).clone(),
            setup: setup.as_deref().cloned(),
            journal_path,
            records: contents.records,
            torn_tail: contents.torn_tail,
        })
    }

    /// The seq the next appended record must carry.
    pub fn next_seq(&self) -> u64 {
        self.records
            .last()
            .map_or(crate::artifact::FIRST_SEQ, |record| record.seq + 1)
    }

    /// When the debate started, as journaled.
    pub fn started_at(&self) -> Timestamp {
        self.records
            .first()
            .map(|record| record.at)
            .unwrap_or_default()
    }
}

/// A protocol with the journal folded into it, and what was left undone.
pub struct Folded<P> {
    pub protocol: P,
    /// Calls started and never ended, in the order they were started.
    pub unfinished: Vec<CallSpec>,
    /// Items the moderator was asked about and had not all submitted.
    pub moderation: Option<Vec<ModerationItem>>,
    /// Roles the moderator gave to another agent, in order: role, agent
    /// label, price.
    pub switches: Vec<(String, String, Option<Price>)>,
    /// Extra time the moderator granted to calls in `unfinished`.
    pub extended: BTreeMap<String, Duration>,
    /// The journal ends with the outcome the protocol reached.
    pub finish_journaled: bool,
    /// Inputs folded, for the resume message.
    pub inputs: usize,
}

impl<P: Protocol> Folded<P> {
    /// The debate has its outcome and the outcome is on record.
    pub fn is_finished(&self) -> bool {
        self.protocol.outcome().is_some() && self.finish_journaled
    }
}

/// `provider:model` back into its parts.
pub fn agent_info(label: &str) -> AgentInfo {
    let (provider, model) = label.split_once(':').unwrap_or((label, ""));
    AgentInfo {
        provider: provider.to_string(),
        model: model.to_string(),
    }
}

/// What the engine would have published while the journal was written.
struct Observer<'a> {
    observe: &'a mut dyn FnMut(Timestamp, Update),
    log_published: usize,
    board: Board,
    /// Calls whose text was journaled as it streamed.
    streamed: BTreeSet<String>,
}

impl Observer<'_> {
    fn after_step<P: Protocol>(&mut self, protocol: &P, at: Timestamp) {
        let log = protocol.log();
        for entry in &log[self.log_published.min(log.len())..] {
            (self.observe)(at, Update::Log(entry.clone()));
        }
        self.log_published = log.len();
        (self.observe)(at, Update::Progress(protocol.progress()));
        let board = protocol.board();
        if board != self.board {
            self.board = board.clone();
            (self.observe)(at, Update::Board(board));
        }
    }
}

/// Applies the effects the fold produced: which calls are running, whether
/// the moderator is being asked.
fn take_effects(
    effects: Vec<Effect>,
    at: Timestamp,
    unfinished: &mut Vec<CallSpec>,
    moderation: &mut Option<Vec<ModerationItem>>,
    observer: &mut Observer<'_>,
) {
    for effect in effects {
        match effect {
            Effect::StartCall(spec) => {
                unfinished.retain(|call| call.request.call_id != spec.request.call_id);
                unfinished.push(spec);
            }
            Effect::CancelCall { call_id } => {
                unfinished.retain(|call| call.request.call_id != call_id);
            }
            Effect::AwaitModeration { items } => {
                (observer.observe)(
                    at,
                    Update::ModerationNeeded {
                        items: items.clone(),
                    },
                );
                *moderation = Some(items);
            }
            Effect::Finished(_) => {}
        }
    }
}

/// Folds `records` (a whole journal, definition first) into `protocol`, a
/// fresh protocol built from that definition. `observe` receives the
/// updates an interface would have seen, with their journaled times.
pub fn fold<P: Protocol>(
    mut protocol: P,
    records: &[Record<JournalEvent>],
    observe: &mut dyn FnMut(Timestamp, Update),
) -> Folded<P> {
    let mut observer = Observer {
        observe,
        log_published: 0,
        board: Board::default(),
        streamed: BTreeSet::new(),
    };
    let mut unfinished: Vec<CallSpec> = Vec::new();
    let mut moderation = None;
    let mut switches = Vec::new();
    let mut extended: BTreeMap<String, Duration> = BTreeMap::new();
    let mut finish_journaled = false;
    let mut inputs = 0;

    let mut started = false;
    for record in records {
        let at = record.at;
        match &record.event {
            JournalEvent::DebateStarted { .. } => {
                if started {
                    continue;
                }
                started = true;
                let effects = protocol.start(at);
                observer.after_step(&protocol, at);
                take_effects(effects, at, &mut unfinished, &mut moderation, &mut observer);
            }
            JournalEvent::CallStarted {
                call_id,
                role,
                agent,
                ..
            } => (observer.observe)(
                at,
                Update::CallStarted {
                    call_id: call_id.clone(),
                    role: role.clone(),
                    agent: agent_info(agent),
                },
            ),
            JournalEvent::Streamed {
                call_id,
                text,
                reasoning,
            } => {
                observer.streamed.insert(call_id.clone());
                let (call_id, text) = (call_id.clone(), text.clone());
                (observer.observe)(
                    at,
                    if *reasoning {
                        Update::Reasoning { call_id, text }
                    } else {
                        Update::Chunk { call_id, text }
                    },
                );
            }
            JournalEvent::Input { input } => {
                inputs += 1;
                let decided_before = protocol.outcome().is_some();
                match input {
                    Input::CallFinished {
                        call_id, output, ..
                    } => {
                        if !observer.streamed.contains(call_id) {
                            (observer.observe)(
                                at,
                                Update::Chunk {
                                    call_id: call_id.clone(),
                                    text: output.clone(),
                                },
                            );
                        }
                        unfinished.retain(|call| &call.request.call_id != call_id);
                        extended.remove(call_id);
                    }
                    Input::CallFailed { call_id, .. } => {
                        unfinished.retain(|call| &call.request.call_id != call_id);
                        extended.remove(call_id);
                    }
                    Input::AgentSwitched { role, agent, price } => {
                        switches.push((role.clone(), agent.clone(), *price));
                    }
                    Input::Override {
                        call_id,
                        action: OverrideAction::WaitLonger { extra_ms },
                    } => {
                        *extended.entry(call_id.clone()).or_default() +=
                            Duration::from_millis(*extra_ms);
                    }
                    _ => {}
                }
                let effects = protocol.handle(input, at);
                if protocol.outcome().is_some() != decided_before {
                    // Decided (its `finished` record follows) or reopened.
                    finish_journaled = false;
                }
                observer.after_step(&protocol, at);
                if let Input::CallFinished {
                    call_id,
                    usage,
                    ttft_ms,
                    elapsed_ms,
                    ..
                } = input
                {
                    let figures = protocol.usage().and_then(|ledger| ledger.get(call_id));
                    (observer.observe)(
                        at,
                        Update::CallUsage {
                            call_id: call_id.clone(),
                            role: figures.map(|f| f.role.clone()).unwrap_or_default(),
                            usage: *usage,
                            ttft_ms: *ttft_ms,
                            elapsed_ms: *elapsed_ms,
                            cost_usd: figures.and_then(|f| f.cost_usd),
                        },
                    );
                }
                take_effects(effects, at, &mut unfinished, &mut moderation, &mut observer);
                if moderation.is_some() && !protocol.board().needs_moderator {
                    moderation = None;
                }
            }
            JournalEvent::Resumed { .. } => {}
            JournalEvent::Finished { outcome } => {
                finish_journaled = true;
                (observer.observe)(at, Update::Finished(outcome.clone()));
            }
        }
    }
    // A debate that is over has nothing left to run.
    if protocol.outcome().is_some() {
        unfinished.clear();
        moderation = None;
    }
    extended.retain(|call_id, _| {
        unfinished
            .iter()
            .any(|call| &call.request.call_id == call_id)
    });
    Folded {
        protocol,
        unfinished,
        moderation,
        switches,
        extended,
        finish_journaled,
        inputs,
    }
}
