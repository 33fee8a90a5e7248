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
//! Like the engine, it shows a run of moderator decisions (a policy's
//! decision on every item) as one board after the last of them, so folding
//! thousands of decisions builds and keeps one board, not one per decision.
//!
//! Not responsible for running anything: [`Engine::resume`](super::Engine::resume)
//! picks up from a [`Folded`] debate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agent::AgentInfo;
use crate::artifact::{JournalError, Record, TornTail, read_journal};
use crate::protocol::supervision::Slot;
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
    /// The folder is a symbolic link to one.
    #[error(transparent)]
    Folder(#[from] crate::artifact::ArtifactError),
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
        // A link to a debate's folder is refused as `quorum resume` refuses
        // it, by every command: whoever made it chose where quorum reads
        // (and, for `report`, writes).
        if let Err(error @ crate::artifact::ArtifactError::LinkedFolder { .. }) =
            crate::artifact::RunDir::open(dir)
        {
            return Err(error.into());
        }
        let journal_path = dir.join(JOURNAL_FILE);
        // Only a missing journal makes a folder no debate: a link, a FIFO
        // or a device in its place is refused by the reader, naming it.
        if std::fs::symlink_metadata(&journal_path).is_err() {
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
pub struct Folded<P: ?Sized = dyn Protocol> {
    pub protocol: Box<P>,
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
    /// The first record no debate could have written (a decision on an
    /// item never raised, a decision after the debate ended), if any: its
    /// line in the journal and why. It is left out of the fold; a reader
    /// of someone else's folder refuses the journal for it.
    pub impossible: Option<(usize, String)>,
    /// Every answer on record whose call had a raw-output file: the file
    /// and the position of the record that holds the answer, as the live
    /// run wrote it when the answer came ([`answer_texts`] reads them). A
    /// protocol's documents do not carry them; resume restores them. By
    /// position, not copied: a reader of the record (a report, a verdict)
    /// does not hold every answer twice.
    pub answers: Vec<(String, usize)>,
}

/// The answers of `answers` (files and record positions, as
/// [`Folded::answers`] holds them) with their texts in `records`.
pub fn answer_texts<'r>(
    answers: &[(String, usize)],
    records: &'r [Record<JournalEvent>],
) -> Vec<(String, &'r str)> {
    answers
        .iter()
        .filter_map(|(path, place)| match &records.get(*place)?.event {
            JournalEvent::Input {
                input: Input::CallFinished { output, .. },
            } => Some((path.clone(), output.as_str())),
            _ => None,
        })
        .collect()
}

impl<P: Protocol + ?Sized> Folded<P> {
    /// The debate has its outcome and the outcome is on record.
    pub fn is_finished(&self) -> bool {
        self.protocol.outcome().is_some() && self.finish_journaled
    }
}

/// The file of each answer on record with its latest answer, but those
/// the protocol keeps otherwise (`kept`: the marked copy of an answer that
/// could not be used, the first answer its repair did not better): what
/// resume restores.
pub fn answer_files<'a, S: AsRef<str>>(
    answers: &'a [(String, S)],
    kept: &[crate::protocol::AnswerFile],
) -> BTreeMap<&'a str, &'a str> {
    let mut files: BTreeMap<&str, &str> = answers
        .iter()
        .map(|(path, output)| (path.as_str(), output.as_ref()))
        .collect();
    for file in kept {
        files.remove(file.path.as_str());
    }
    files
}

/// Rewrites every raw answer and every document of a folded debate whose
/// file on disk says something else (a crash came between journaling an
/// input and rewriting the files); returns the paths rewritten.
pub fn rewrite_stale_documents<P: Protocol + ?Sized>(
    folded: &Folded<P>,
    records: &[Record<JournalEvent>],
    run_dir: &crate::artifact::RunDir,
) -> Result<Vec<String>, crate::artifact::ArtifactError> {
    let protocol = &folded.protocol;
    let kept = protocol.answer_files();
    let mut rewritten = Vec::new();
    let answers = answer_texts(&folded.answers, records);
    let answers = answer_files(&answers, &kept)
        .into_iter()
        .map(|(path, output)| (path.to_string(), std::borrow::Cow::Borrowed(output)));
    let kept = kept.iter().map(|file| (file.path.clone(), file.for_disk()));
    let documents = protocol.documents();
    let documents = documents
        .iter()
        .map(|document| (document.path.clone(), document.for_disk()));
    for (path, contents) in answers.chain(kept).chain(documents) {
        if run_dir.read_to_string(&path).ok().as_deref() == Some(contents.as_ref()) {
            continue;
        }
        run_dir.write(&path, contents.as_bytes())?;
        rewritten.push(path);
    }
    for publication in protocol.publications() {
        if super::records::land(&publication)? {
            rewritten.push(publication.path.display().to_string());
        }
    }
    Ok(rewritten)
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
    observe: &'a mut dyn FnMut(usize, Timestamp, Update),
    /// The record being folded, by its position in the journal.
    place: usize,
    log_published: usize,
    board: Board,
    /// The answer text each call streamed, as journaled (at most
    /// [`STREAM_JOURNAL_MAX_BYTES`](super::records::STREAM_JOURNAL_MAX_BYTES)
    /// of it), until the call finishes.
    streamed: BTreeMap<String, String>,
}

impl Observer<'_> {
    /// Hands `update` to the watcher, with the record it comes from.
    fn emit(&mut self, at: Timestamp, update: Update) {
        (self.observe)(self.place, at, update);
    }

    fn after_step<P: Protocol + ?Sized>(&mut self, protocol: &P, at: Timestamp) {
        let log = protocol.log();
        for entry in &log[self.log_published.min(log.len())..] {
            self.emit(at, Update::Log(entry.clone()));
        }
        self.log_published = log.len();
        self.emit(at, Update::Progress(protocol.progress()));
    }

    /// Shows the board, if it changed since it was last shown.
    fn show_board<P: Protocol + ?Sized>(&mut self, protocol: &P, at: Timestamp) {
        let board = protocol.board();
        if board != self.board {
            self.board = board.clone();
            self.emit(at, Update::Board(Box::new(board)));
        }
    }
}

/// Whether `event` is a moderator's decision on one item.
fn is_decision(event: &JournalEvent) -> bool {
    matches!(
        event,
        JournalEvent::Input {
            input: Input::ItemDecided { .. }
        }
    )
}

/// Applies the effects the fold produced: which calls are running, whether
/// the moderator is being asked.
fn take_effects(
    effects: Vec<Effect>,
    at: Timestamp,
    unfinished: &mut Vec<CallSpec>,
    moderation: &mut Option<Vec<ModerationItem>>,
    observer: &mut Observer<'_>,
    raised: &mut BTreeSet<String>,
) {
    for effect in effects {
        if let Effect::AwaitModeration { items } = &effect {
            raised.extend(items.iter().map(|item| item.id.clone()));
        }
        match effect {
            Effect::StartCall(spec) => {
                unfinished.retain(|call| call.request.call_id != spec.request.call_id);
                unfinished.push(spec);
            }
            Effect::CancelCall { call_id } => {
                unfinished.retain(|call| call.request.call_id != call_id);
            }
            Effect::AwaitModeration { items } => {
                observer.emit(
                    at,
                    Update::ModerationNeeded {
                        items: items.clone(),
                    },
                );
                *moderation = Some(items);
            }
            // The engine stops every call when the debate ends.
            Effect::Finished(_) => {
                unfinished.clear();
                *moderation = None;
            }
        }
    }
}

/// Folds `records` (a whole journal, definition first) into `protocol`, a
/// fresh protocol built from that definition. `observe` receives the
/// updates an interface would have seen, with their journaled times.
pub fn fold<P: Protocol + ?Sized>(
    protocol: Box<P>,
    records: &[Record<JournalEvent>],
    observe: &mut dyn FnMut(Timestamp, Update),
) -> Folded<P> {
    fold_watching(
        protocol,
        records,
        &mut |_, at, update| observe(at, update),
        &mut |_, _| {},
    )
}

/// [`fold`], each update handed over with the position in `records` of
/// the record it comes from: a watcher of a journal that grows (`quorum
/// attach`) folds it again and takes the updates of the records it had
/// not seen. The updates of a record are the same in every fold of a
/// journal that holds it, but for a board a decision shows: it waits for
/// the last decision of a run of them, so a later fold may show it with a
/// later record instead.
pub fn fold_by_record<P: Protocol + ?Sized>(
    protocol: Box<P>,
    records: &[Record<JournalEvent>],
    observe: &mut dyn FnMut(usize, Timestamp, Update),
) -> Folded<P> {
    fold_watching(protocol, records, observe, &mut |_, _| {})
}

/// Where a debate stood, in order, each the first time it stood there:
/// `(place, stage, round)`, `place` the record (its definition, or an
/// input) after which it stood at `stage` in `round`. The journal is
/// folded once, into the one protocol `build` makes (`quorum fork --at`
/// looks its stage up here, instead of folding every prefix again).
pub fn stages_reached<P: Protocol + ?Sized, E>(
    mut build: impl FnMut() -> Result<Box<P>, E>,
    records: &[Record<JournalEvent>],
) -> Result<Vec<(usize, String, u32)>, E> {
    let mut reached: Vec<(usize, String, u32)> = Vec::new();
    fold_watching(
        build()?,
        records,
        &mut |_, _, _| {},
        &mut |place, protocol| {
            let progress = protocol.progress();
            if !reached
                .iter()
                .any(|(_, stage, round)| *stage == progress.stage && *round == progress.round)
            {
                reached.push((place, progress.stage, progress.round));
            }
        },
    );
    Ok(reached)
}

/// [`fold`], showing `after` the protocol as it stands after the first
/// record and after each input, with the record's place.
fn fold_watching<P: Protocol + ?Sized>(
    mut protocol: Box<P>,
    records: &[Record<JournalEvent>],
    observe: &mut dyn FnMut(usize, Timestamp, Update),
    after: &mut dyn FnMut(usize, &P),
) -> Folded<P> {
    let mut observer = Observer {
        observe,
        place: 0,
        log_published: 0,
        board: Board::default(),
        streamed: BTreeMap::new(),
    };
    let mut unfinished: Vec<CallSpec> = Vec::new();
    let mut moderation = None;
    let mut switches = Vec::new();
    let mut extended: BTreeMap<String, Duration> = BTreeMap::new();
    let mut finish_journaled = false;
    let mut inputs = 0;
    let mut answers = Vec::new();

    // Every item a moderator was asked about: the only ones a decision or
    // a settlement can name.
    let mut raised: BTreeSet<String> = BTreeSet::new();
    let mut impossible = None;

    let mut started = false;
    for (place, record) in records.iter().enumerate() {
        observer.place = place;
        let at = record.at;
        match &record.event {
            JournalEvent::DebateStarted { setup, .. } => {
                if started {
                    continue;
                }
                started = true;
                if let Some(why) = limits_refusal(&*protocol, setup.as_deref()) {
                    impossible.get_or_insert((place + 1, why));
                }
                let effects = protocol.start(at);
                observer.after_step(&*protocol, at);
                observer.show_board(&*protocol, at);
                take_effects(
                    effects,
                    at,
                    &mut unfinished,
                    &mut moderation,
                    &mut observer,
                    &mut raised,
                );
            }
            JournalEvent::CallStarted {
                call_id,
                role,
                agent,
                ..
            } => {
                // The protocol asked for the call just before: its slot
                // and attempt are in the request (a call the journal
                // started that the protocol no longer has shows its role).
                let (slot, attempt) = unfinished
                    .iter()
                    .find(|spec| spec.request.call_id == *call_id)
                    .map_or_else(
                        || (Slot::new(role, "", 0), 1),
                        |spec| {
                            let request = &spec.request;
                            let slot = Slot::new(&request.role, &request.stage, request.round);
                            (slot, request.attempt)
                        },
                    );
                observer.emit(
                    at,
                    Update::CallStarted {
                        call_id: call_id.clone(),
                        slot,
                        attempt,
                        agent: agent_info(agent),
                    },
                )
            }
            JournalEvent::Streamed {
                call_id,
                text,
                reasoning,
            } => {
                let streamed = observer.streamed.entry(call_id.clone()).or_default();
                if !*reasoning {
                    streamed.push_str(text);
                }
                let (call_id, text) = (call_id.clone(), text.clone());
                observer.emit(
                    at,
                    if *reasoning {
                        Update::Reasoning { call_id, text }
                    } else {
                        Update::Chunk { call_id, text }
                    },
                );
            }
            JournalEvent::Input { input } => {
                if let Some(why) = impossible_input(input, &*protocol, &raised) {
                    impossible.get_or_insert((place + 1, why));
                    continue;
                }
                inputs += 1;
                let decided_before = protocol.outcome().is_some();
                match input {
                    Input::CallFinished {
                        call_id, output, ..
                    } => {
                        // What the journal did not keep of the stream: all
                        // of an answer that streamed none of its text, the
                        // rest of one whose stream it kept the start of.
                        let shown = observer.streamed.remove(call_id);
                        let rest = match shown.as_deref() {
                            None => Some(output.as_str()),
                            Some(shown) => {
                                output.strip_prefix(shown).filter(|rest| !rest.is_empty())
                            }
                        };
                        if let Some(rest) = rest {
                            observer.emit(
                                at,
                                Update::Chunk {
                                    call_id: call_id.clone(),
                                    text: rest.to_owned(),
                                },
                            );
                        }
                        if let Some(path) = unfinished
                            .iter()
                            .find(|call| &call.request.call_id == call_id)
                            .and_then(|call| call.raw_output_path.clone())
                        {
                            answers.push((path, place));
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
                observer.after_step(&*protocol, at);
                // A decision another decision follows changes no more than
                // its item: the board waits for the last of the run.
                let run_goes_on = is_decision(&record.event)
                    && records
                        .get(place + 1)
                        .is_some_and(|next| is_decision(&next.event));
                if !run_goes_on {
                    observer.show_board(&*protocol, at);
                }
                if let Input::CallFinished {
                    call_id,
                    usage,
                    ttft_ms,
                    elapsed_ms,
                    ..
                } = input
                {
                    let figures = protocol.usage().and_then(|ledger| ledger.get(call_id));
                    observer.emit(
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
                take_effects(
                    effects,
                    at,
                    &mut unfinished,
                    &mut moderation,
                    &mut observer,
                    &mut raised,
                );
                // The board just shown is the protocol's now: a decision
                // never ends a moderation, its submission does.
                if !run_goes_on && moderation.is_some() && !observer.board.needs_moderator {
                    moderation = None;
                }
            }
            JournalEvent::Resumed { restarted } => {
                let resumed = Input::Resumed {
                    restarted: restarted.clone(),
                };
                protocol.handle(&resumed, at);
            }
            JournalEvent::Budget {
                budget:
                    super::spending::BudgetEvent::Decided {
                        decision: super::spending::BudgetDecision::Raise { limit },
                    },
            } => {
                if let Some(why) = budget_refusal(limit) {
                    impossible.get_or_insert((place + 1, format!("a raised budget: {why}")));
                }
            }
            JournalEvent::Budget { .. } => {}
            JournalEvent::Finished { outcome } => {
                finish_journaled = true;
                observer.emit(at, Update::Finished(outcome.clone()));
            }
        }
        if place == 0 || matches!(record.event, JournalEvent::Input { .. }) {
            after(place, &protocol);
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
        answers,
        impossible,
    }
}

/// Why no debate could have journaled `input` where it stands, if none
/// could: a moderator's decision or settlement on an item never raised, or
/// a decision after the debate ended (a deferred item is settled after the
/// verdict with `item_resolved`, never `item_decided`). Inputs the
/// protocol refuses for reasons of timing (a decision that came as a
/// moderation closed) are a live run's to journal and ignore.
/// Why the prices `protocol` was set up with, or the first budget and the
/// alternatives' prices of `setup`, could not have come from a
/// configuration or a flag (not finite, negative, past their bound): an
/// edited journal cannot make `quorum resume` forecast `$inf`, or print a
/// command its own `--budget` refuses.
fn limits_refusal<P: Protocol + ?Sized>(protocol: &P, setup: Option<&RunSetup>) -> Option<String> {
    let priced = |agent: &str, price: &Price| {
        crate::config::limits::price_refusal(price.input)
            .or_else(|| crate::config::limits::price_refusal(price.output))
            .map(|why| format!("the price of {agent}: {why}"))
    };
    let seated = protocol.usage().and_then(|ledger| {
        ledger
            .prices()
            .iter()
            .find_map(|(agent, price)| priced(agent, price))
    });
    seated.or_else(|| {
        let setup = setup?;
        let first = setup
            .budget
            .as_ref()
            .and_then(budget_refusal)
            .map(|why| format!("the budget: {why}"));
        first.or_else(|| {
            setup.alternatives.iter().find_map(|alternative| {
                priced(&alternative.agent.label(), alternative.price.as_ref()?)
            })
        })
    })
}

/// Why `budget` could not have come from a flag, a spec or a configuration.
fn budget_refusal(budget: &crate::protocol::budget::Budget) -> Option<String> {
    budget
        .usd
        .and_then(crate::config::limits::usd_refusal)
        .or_else(|| {
            budget
                .tokens
                .and_then(crate::config::limits::tokens_refusal)
        })
}

fn impossible_input<P: Protocol + ?Sized>(
    input: &Input,
    protocol: &P,
    raised: &BTreeSet<String>,
) -> Option<String> {
    let (event, item_id) = match input {
        Input::ItemDecided { item_id, .. } => ("item_decided", item_id),
        Input::ItemResolved { item_id, .. } => ("item_resolved", item_id),
        _ => return None,
    };
    let shown = crate::text::clipped(item_id);
    if !raised.contains(item_id) {
        return Some(format!(
            "`{event}` names item {shown}, which the debate never raised"
        ));
    }
    if event == "item_decided" && protocol.outcome().is_some() {
        return Some(format!(
            "`{event}` on {shown} after the debate ended: a deferred item is settled after \
             the verdict with `quorum open DIR --resolve`, journaled as `item_resolved`"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::agent::CallRequest;
    use crate::artifact::JOURNAL_VERSION;
    use crate::protocol::{LogEntry, Outcome, Progress, Questions};

    /// A protocol whose every step is fixed, to watch the fold's bookkeeping:
    /// start → proposer; its answer → moderation; submission → two judges;
    /// a retry of one; both answers → a verdict; a reopen → one more call.
    #[derive(Default)]
    struct Fixed {
        outcome: Option<Outcome>,
        needs_moderator: bool,
        log: Vec<LogEntry>,
        handled: Vec<Input>,
        /// Inputs handled by every protocol that shares it.
        handled_by_all: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    fn call(call_id: &str) -> Effect {
        Effect::StartCall(CallSpec {
            request: CallRequest {
                call_id: call_id.into(),
                role: call_id.split('/').next().unwrap().into(),
                stage: "stage".into(),
                round: 1,
                attempt: 1,
                prompt: format!("prompt of {call_id}"),
            },
            raw_output_path: None,
        })
    }

    impl Protocol for Fixed {
        fn start(&mut self, _: Timestamp) -> Vec<Effect> {
            vec![call("proposer/a1")]
        }

        fn handle(&mut self, input: &Input, _: Timestamp) -> Vec<Effect> {
            self.handled.push(input.clone());
            self.handled_by_all
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            match input {
                Input::CallFinished { call_id, .. } if call_id == "proposer/a1" => {
                    self.needs_moderator = true;
                    vec![Effect::AwaitModeration {
                        items: vec![ModerationItem {
                            id: "c1".into(),
                            target: "b1".into(),
                            severity: "major".into(),
                            category: "risk".into(),
                            text: "a flaw".into(),
                            ..Default::default()
                        }],
                    }]
                }
                Input::ModerationSubmitted => {
                    self.needs_moderator = false;
                    vec![call("judge.a/a1"), call("judge.b/a1")]
                }
                Input::Override {
                    call_id,
                    action: OverrideAction::RetryNow,
                } => vec![
                    Effect::CancelCall {
                        call_id: call_id.clone(),
                    },
                    call("judge.a/a2"),
                ],
                Input::CallFinished { call_id, .. } if call_id == "judge.a/a2" => {
                    let outcome = Outcome::Failed {
                        reason: "fixed".into(),
                    };
                    self.outcome = Some(outcome.clone());
                    vec![Effect::Finished(outcome)]
                }
                Input::Reopened => {
                    self.outcome = None;
                    vec![call("proposer/a9")]
                }
                _ => Vec::new(),
            }
        }

        fn progress(&self) -> Progress {
            Progress {
                stage: "stage".into(),
                round: 1,
                finished: self.outcome.is_some(),
                ..Default::default()
            }
        }

        fn log(&self) -> &[LogEntry] {
            &self.log
        }

        fn render_documents(&self, _: &mut crate::protocol::documents::Documents<'_>) {}

        fn outcome(&self) -> Option<&Outcome> {
            self.outcome.as_ref()
        }

        fn board(&self) -> Board {
            Board {
                needs_moderator: self.needs_moderator,
                ..Board::default()
            }
        }
    }

    impl crate::protocol::Questions for Fixed {
        fn describe(&self) -> crate::protocol::Description {
            crate::protocol::Description {
                topic: "fixed".into(),
                label: "fixed".into(),
                roles: Vec::new(),
                deliverable: "summary.md".into(),
                items: None,
                board: None,
                about: String::new(),
                ending_note: String::new(),
            }
        }

        fn summary_lead(&self) -> Option<String> {
            None
        }

        fn changes(&self) -> Vec<crate::protocol::ChangedPart> {
            vec![crate::protocol::ChangedPart {
                part: "the one part".into(),
                before: "as proposed".into(),
                after: "as revised".into(),
                causes: vec!["c1 accepted".into()],
                markdown: false,
            }]
        }
    }

    fn at(second: u32) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, second).unwrap()
    }

    fn finished(call_id: &str) -> JournalEvent {
        JournalEvent::Input {
            input: Input::CallFinished {
                call_id: call_id.into(),
                output: format!("answer of {call_id}"),
                usage: None,
                usage_estimated: false,
                ttft_ms: None,
                elapsed_ms: 5,
            },
        }
    }

    fn input(input: Input) -> JournalEvent {
        JournalEvent::Input { input }
    }

    /// The first record: a definition the fold only carries (the fixed
    /// protocol above is what runs), so it names no real protocol.
    fn started() -> JournalEvent {
        JournalEvent::DebateStarted {
            definition: Box::new(DebateDefinition::new(
                "fixed",
                &serde_json::json!({ "topic": "t" }),
            )),
            setup: None,
        }
    }

    fn records(events: Vec<JournalEvent>) -> Vec<Record<JournalEvent>> {
        events
            .into_iter()
            .zip(1..)
            .map(|(event, seq)| Record {
                v: JOURNAL_VERSION,
                seq,
                at: at(seq as u32),
                event,
            })
            .collect()
    }

    fn fold_events(events: Vec<JournalEvent>) -> (Folded<Fixed>, Vec<(Timestamp, Update)>) {
        let mut seen = Vec::new();
        let folded = fold(
            Box::new(Fixed::default()),
            &records(events),
            &mut |at, update| seen.push((at, update)),
        );
        (folded, seen)
    }

    /// Issue 63: a protocol from the registry is a `Box<dyn Protocol>`,
    /// and the fold holds it as it is (so does the engine): each question
    /// reaches the protocol's own method. A hand-written `impl Protocol for
    /// Box<dyn Protocol>` once forwarded every method but `changes`, which
    /// then answered nothing through the box.
    #[test]
    fn a_boxed_protocol_answers_with_its_own_methods() {
        let boxed: Box<dyn Protocol> = Box::new(Fixed::default());
        let folded = fold(boxed, &records(Vec::new()), &mut |_, _| {});
        let own = Fixed::default();
        assert_eq!(folded.protocol.changes(), own.changes());
        assert_eq!(folded.protocol.changes().len(), 1);
        assert_eq!(folded.protocol.describe(), own.describe());
    }

    fn unfinished(folded: &Folded<Fixed>) -> Vec<&str> {
        folded
            .unfinished
            .iter()
            .map(|call| call.request.call_id.as_str())
            .collect()
    }

    /// Issue 61: where a debate stood is found in one fold of its journal,
    /// not one fold per input (`fork --at` on 1,000 critique items took
    /// 10.7 s): one protocol built, each input handled once.
    #[test]
    fn the_stages_a_debate_stood_at_are_found_in_one_fold() {
        let mut records = vec![started(), finished("proposer/a1")];
        // Each record a second apart, all in one minute.
        for _ in 0..50 {
            records.push(input(Input::ItemDecided {
                item_id: "c1".into(),
                decision: crate::protocol::ItemDecision::Reject,
                note: None,
                ruler: None,
            }));
        }
        records.push(input(Input::ModerationSubmitted));
        let inputs = records.len() - 1;
        let records = super::tests::records(records);
        let built = std::cell::Cell::new(0);
        let handled = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let stages = stages_reached(
            || {
                built.set(built.get() + 1);
                Ok::<_, ()>(Box::new(Fixed {
                    handled_by_all: handled.clone(),
                    ..Fixed::default()
                }))
            },
            &records,
        )
        .unwrap();
        let handled = handled.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!((built.get(), handled), (1, inputs));
        assert_eq!(stages[0].0, 0, "{stages:?}");
    }

    #[test]
    fn a_call_started_but_never_ended_is_left_to_do_even_before_its_record() {
        // The protocol asked for the proposer; the crash came before the
        // engine journaled the call's start.
        let (folded, _) = fold_events(vec![started()]);
        assert_eq!(unfinished(&folded), ["proposer/a1"]);
        assert_eq!(
            folded.unfinished[0].request.prompt, "prompt of proposer/a1",
            "restarted with the same prompt"
        );
        assert!(!folded.is_finished());
    }

    #[test]
    fn moderation_is_pending_until_submitted_and_decisions_are_inputs() {
        let decided = input(Input::ItemDecided {
            item_id: "c1".into(),
            decision: crate::protocol::ItemDecision::Reject,
            note: Some("no".into()),
            ruler: None,
        });
        let (folded, updates) = fold_events(vec![started(), finished("proposer/a1"), decided]);
        assert!(unfinished(&folded).is_empty());
        assert_eq!(folded.moderation.as_ref().map(Vec::len), Some(1));
        assert!(
            updates
                .iter()
                .any(|(_, update)| matches!(update, Update::ModerationNeeded { .. }))
        );
        assert!(matches!(
            folded.protocol.handled.last(),
            Some(Input::ItemDecided { .. })
        ));

        let (folded, _) = fold_events(vec![
            started(),
            finished("proposer/a1"),
            input(Input::ModerationSubmitted),
        ]);
        assert_eq!(folded.moderation, None);
        assert_eq!(unfinished(&folded), ["judge.a/a1", "judge.b/a1"]);
    }

    /// Issue 54: a watcher of a growing journal (`quorum attach`) folds it
    /// again and shows the updates of the records it had not shown yet.
    /// Wherever the journal was cut, that shows what one fold of the whole
    /// journal shows, each update once, but for a board a later decision
    /// shows instead; the last board shown is the same.
    #[test]
    fn a_journal_folded_again_as_it_grows_shows_each_update_once() {
        let decided = || {
            input(Input::ItemDecided {
                item_id: "c1".into(),
                decision: crate::protocol::ItemDecision::Accept,
                note: None,
                ruler: None,
            })
        };
        let all = records(vec![
            started(),
            finished("proposer/a1"),
            decided(),
            decided(),
            input(Input::ModerationSubmitted),
            finished("judge.a/a1"),
            finished("judge.b/a1"),
        ]);
        let placed = |upto: usize| {
            let mut seen = Vec::new();
            fold_by_record(
                Box::new(Fixed::default()),
                &all[..upto],
                &mut |place, _, update| seen.push((place, update)),
            );
            seen
        };
        let whole: Vec<Update> = placed(all.len()).into_iter().map(|(_, u)| u).collect();
        let board = |update: &&Update| matches!(update, Update::Board(_));
        let others = |updates: &[Update]| -> Vec<Update> {
            updates.iter().filter(|u| !board(u)).cloned().collect()
        };
        for cut in 1..all.len() {
            let mut shown: Vec<Update> = placed(cut).into_iter().map(|(_, u)| u).collect();
            shown.extend(
                placed(all.len())
                    .into_iter()
                    .filter(|(place, _)| *place >= cut)
                    .map(|(_, u)| u),
            );
            assert_eq!(others(&shown), others(&whole), "cut after record {cut}");
            assert_eq!(
                shown.iter().rev().find(board),
                whole.iter().rev().find(board),
                "cut after record {cut}"
            );
        }
    }

    #[test]
    fn a_retried_call_replaces_its_cancelled_attempt_and_keeps_extra_time() {
        let (folded, _) = fold_events(vec![
            started(),
            finished("proposer/a1"),
            input(Input::ModerationSubmitted),
            input(Input::Override {
                call_id: "judge.b/a1".into(),
                action: OverrideAction::WaitLonger { extra_ms: 300_000 },
            }),
            input(Input::Override {
                call_id: "judge.b/a1".into(),
                action: OverrideAction::WaitLonger { extra_ms: 60_000 },
            }),
            input(Input::Override {
                call_id: "judge.a/a1".into(),
                action: OverrideAction::RetryNow,
            }),
            input(Input::AgentSwitched {
                role: "judge.a".into(),
                agent: "openai:gpt-x".into(),
                price: None,
            }),
        ]);
        assert_eq!(unfinished(&folded), ["judge.b/a1", "judge.a/a2"]);
        assert_eq!(
            folded.extended,
            BTreeMap::from([("judge.b/a1".to_string(), Duration::from_secs(360))])
        );
        assert_eq!(
            folded.switches,
            [("judge.a".to_string(), "openai:gpt-x".to_string(), None)]
        );
    }

    #[test]
    fn a_verdict_is_finished_only_once_its_record_is_journaled_and_settling_keeps_it_so() {
        let to_verdict = vec![
            started(),
            finished("proposer/a1"),
            input(Input::ModerationSubmitted),
            input(Input::Override {
                call_id: "judge.a/a1".into(),
                action: OverrideAction::RetryNow,
            }),
            finished("judge.a/a2"),
        ];
        let (folded, _) = fold_events(to_verdict.clone());
        assert!(folded.protocol.outcome().is_some());
        assert!(!folded.is_finished(), "the crash came before `finished`");
        assert!(
            unfinished(&folded).is_empty(),
            "a decided debate runs nothing"
        );

        let outcome = folded.protocol.outcome().cloned().unwrap();
        let mut whole = to_verdict;
        whole.push(JournalEvent::Finished { outcome });
        whole.push(input(Input::ItemResolved {
            item_id: "c1".into(),
            decision: crate::protocol::ItemDecision::Accept,
            note: None,
            ruler: None,
        }));
        let (folded, _) = fold_events(whole.clone());
        assert!(folded.is_finished(), "settling an item keeps it finished");

        whole.push(input(Input::Reopened));
        let (folded, _) = fold_events(whole);
        assert!(!folded.is_finished());
        assert_eq!(unfinished(&folded), ["proposer/a9"]);
    }

    #[test]
    fn the_fold_shows_each_answer_once_streamed_or_not() {
        let (_, updates) = fold_events(vec![
            started(),
            JournalEvent::CallStarted {
                call_id: "proposer/a1".into(),
                role: "proposer".into(),
                agent: "openai:gpt-x".into(),
                prompt: "p".into(),
            },
            JournalEvent::Streamed {
                call_id: "proposer/a1".into(),
                text: "answer of ".into(),
                reasoning: false,
            },
            JournalEvent::Streamed {
                call_id: "proposer/a1".into(),
                text: "thinking".into(),
                reasoning: true,
            },
            finished("proposer/a1"),
            input(Input::ModerationSubmitted),
            finished("judge.b/a1"),
        ]);
        let texts: Vec<(u32, String)> = updates
            .iter()
            .filter_map(|(at, update)| match update {
                Update::Chunk { call_id, text } => {
                    Some((chrono::Timelike::second(at), format!("{call_id}: {text}")))
                }
                Update::Reasoning { call_id, text } => Some((
                    chrono::Timelike::second(at),
                    format!("{call_id} reasoning: {text}"),
                )),
                _ => None,
            })
            .collect();
        assert_eq!(
            texts,
            [
                (3, "proposer/a1: answer of ".to_string()),
                (4, "proposer/a1 reasoning: thinking".to_string()),
                // The rest of an answer whose stream the journal kept only
                // the start of (STREAM_JOURNAL_MAX_BYTES) comes with it.
                (5, "proposer/a1: proposer/a1".to_string()),
                (7, "judge.b/a1: answer of judge.b/a1".to_string()),
            ]
        );
        let started = updates.iter().find_map(|(_, update)| match update {
            Update::CallStarted { agent, .. } => Some(agent.clone()),
            _ => None,
        });
        assert_eq!(started, Some(agent_info("openai:gpt-x")));
    }

    #[test]
    fn resume_restores_each_answer_file_once_with_its_latest_answer_unless_a_document_marks_it() {
        let answers = vec![
            ("judges/judge-analyst.md".to_string(), "first".to_string()),
            (
                "judges/judge-stylist.md".to_string(),
                "unreadable".to_string(),
            ),
            (
                "judges/judge-analyst.md".to_string(),
                "repaired".to_string(),
            ),
        ];
        let marked = crate::protocol::AnswerFile::unusable(
            "judges/judge-stylist.md",
            "unreadable",
            "no scores",
        );
        let files = answer_files(&answers, &[marked]);
        assert_eq!(
            files.into_iter().collect::<Vec<_>>(),
            [("judges/judge-analyst.md", "repaired")]
        );
    }

    #[test]
    fn a_folder_without_a_journal_or_definition_is_not_a_debate() {
        let tmp = tempfile::tempdir().unwrap();
        let error = Recorded::read(tmp.path()).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("is not a debate folder: it has no journal.jsonl"),
            "{error}"
        );
        let path = tmp.path().join(JOURNAL_FILE);
        let mut journal = crate::artifact::Journal::create(&path).unwrap();
        journal.append(at(1), &finished("x")).unwrap();
        let error = Recorded::read(tmp.path()).unwrap_err();
        assert!(
            error.to_string().contains("line 1: a journal must start"),
            "{error}"
        );
    }
}
