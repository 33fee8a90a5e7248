//! The conformance suite's machinery, for any protocol the registry
//! knows (the built-in ones in `tests/conformance.rs`, the seventh in
//! `tests/seventh_protocol.rs`): a demo recorded whole with a spy on the
//! protocol, and each check the suite makes of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use chrono::{Local, TimeZone, Utc};
use quorum::artifact::{Journal, Record, RunDir};
use quorum::cli::{RunFlags, Source, prepare};
use quorum::engine::resume::{Recorded, fold};
use quorum::engine::{Engine, JournalEvent, ModerationPolicy, Moderator, Update};
use quorum::prompts::PromptSet;
use quorum::protocol::documents::Documents;
use quorum::protocol::kind::FlagValue;
use quorum::protocol::registry::build;
use quorum::protocol::{
    AnswerFile, Board, Description, Document, Effect, Input, LogEntry, Outcome, Progress, Protocol,
    Timestamp,
};
use quorum::tui::app::Moment;
use quorum::tui::{App, DebateInfo};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use tokio::sync::mpsc;

use super::cuts::{assert_same_tree, normalised, resume, settled_inputs, tree};

/// What the live protocol was after one input: the journal's length then,
/// and its documents, the answers it keeps marked, its board and progress.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    records: usize,
    documents: Vec<Document>,
    answer_files: Vec<AnswerFile>,
    board: Board,
    progress: Progress,
}

pub fn snapshot(protocol: &dyn Protocol, records: usize) -> Snapshot {
    Snapshot {
        records,
        documents: protocol.documents(),
        answer_files: protocol.answer_files(),
        board: protocol.board(),
        progress: protocol.progress(),
    }
}

/// Wraps a protocol to check persist-before-parse on every answer it is
/// handed, and to keep a snapshot after every input.
pub struct Spy {
    inner: Box<dyn Protocol>,
    run_dir: PathBuf,
    /// Raw-output files of the calls started, by call id.
    pub raw_paths: BTreeMap<String, String>,
    pub snapshots: Vec<Snapshot>,
    pub checked: usize,
    /// How many records the journal held up to the last input handled.
    handled_at: usize,
}

impl Spy {
    fn journal_lines(&self) -> Vec<String> {
        std::fs::read_to_string(self.run_dir.join("journal.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn note_calls(&mut self, effects: &[Effect]) {
        for effect in effects {
            if let Effect::StartCall(spec) = effect
                && let Some(path) = &spec.raw_output_path
            {
                self.raw_paths
                    .insert(spec.request.call_id.clone(), path.clone());
            }
        }
    }
}

impl Protocol for Spy {
    fn start(&mut self, now: Timestamp) -> Vec<Effect> {
        let effects = self.inner.start(now);
        self.note_calls(&effects);
        let records = self.journal_lines().len();
        self.snapshots.push(snapshot(self.inner.as_ref(), records));
        effects
    }

    fn handle(&mut self, input: &Input, now: Timestamp) -> Vec<Effect> {
        // The input is on record, after the last one handled; only the
        // answers journaled together with it (and their streamed text) may
        // follow it, each to be handled in turn.
        let lines = self.journal_lines();
        let journaled = JournalEvent::Input {
            input: input.clone(),
        };
        let mut position = lines.len();
        loop {
            assert!(
                position > self.handled_at,
                "every input is journaled before the protocol sees it: {input:?}"
            );
            let record: Record<JournalEvent> = serde_json::from_str(&lines[position - 1]).unwrap();
            if record.event == journaled {
                break;
            }
            assert!(
                matches!(
                    record.event,
                    JournalEvent::Streamed { .. }
                        | JournalEvent::Input {
                            input: Input::CallFinished { .. }
                        }
                ),
                "only answers collected together follow an input its protocol has not seen: {:?}",
                record.event
            );
            position -= 1;
        }
        self.handled_at = position;
        if let Input::CallFinished {
            call_id, output, ..
        } = input
        {
            if let Some(path) = self.raw_paths.get(call_id) {
                let on_disk = std::fs::read_to_string(self.run_dir.join(path))
                    .unwrap_or_else(|_| panic!("{path} is on disk before {call_id} is parsed"));
                assert_eq!(&on_disk, output, "{path} holds the answer verbatim");
            }
            self.checked += 1;
        }
        let effects = self.inner.handle(input, now);
        self.note_calls(&effects);
        self.snapshots.push(snapshot(self.inner.as_ref(), position));
        effects
    }

    fn progress(&self) -> Progress {
        self.inner.progress()
    }
    fn log(&self) -> &[LogEntry] {
        self.inner.log()
    }
    fn render_documents(&self, out: &mut Documents<'_>) {
        self.inner.render_documents(out)
    }
    fn answer_files(&self) -> Vec<AnswerFile> {
        self.inner.answer_files()
    }
    fn outcome(&self) -> Option<&Outcome> {
        self.inner.outcome()
    }
    fn board(&self) -> Board {
        self.inner.board()
    }
}

impl quorum::protocol::Questions for Spy {
    fn describe(&self) -> Description {
        self.inner.describe()
    }

    fn summary_lead(&self) -> Option<String> {
        self.inner.summary_lead()
    }

    fn item_words(&self) -> quorum::protocol::ItemWords {
        self.inner.item_words()
    }

    fn open_items(&self) -> Vec<quorum::protocol::ModerationItem> {
        self.inner.open_items()
    }

    fn open_questions(&self) -> Vec<String> {
        self.inner.open_questions()
    }

    fn changes(&self) -> Vec<quorum::protocol::ChangedPart> {
        self.inner.changes()
    }

    fn handoff(&self) -> Option<quorum::protocol::handoff::Handoff> {
        self.inner.handoff()
    }

    fn reopen_pending(&self) -> bool {
        self.inner.reopen_pending()
    }
}

/// One demo debate recorded whole.
pub struct Whole {
    _out: tempfile::TempDir,
    pub dir: PathBuf,
    pub outcome: Outcome,
    pub spy: Spy,
    pub updates: Vec<Update>,
}

/// Runs the demo `source` picks in-process (its folder named after
/// `name`), every item accepted, with the spy.
pub async fn record_whole(name: &str, source: Source, options: Vec<FlagValue>) -> Whole {
    let out = tempfile::tempdir().unwrap();
    let flags = RunFlags {
        options,
        out: out.path().to_path_buf(),
        speed: 10.0,
        ..RunFlags::default()
    };
    let prepared = prepare(source, &flags).unwrap();
    let protocol = prepared.protocol();
    let run_dir = RunDir::create(out.path(), name, Local::now()).unwrap();
    let mut journal = Journal::create(&run_dir.path().join("journal.jsonl")).unwrap();
    journal
        .append(
            Utc::now(),
            &JournalEvent::DebateStarted {
                definition: Box::new(prepared.definition.clone()),
                setup: Some(Box::new(prepared.setup.clone())),
            },
        )
        .unwrap();
    let spy = Spy {
        inner: protocol,
        run_dir: run_dir.path().to_path_buf(),
        raw_paths: BTreeMap::new(),
        snapshots: Vec::new(),
        checked: 0,
        handled_at: 0,
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    let engine = Engine::new(
        Box::new(spy),
        run_dir.clone(),
        journal,
        prepared.roster,
        Moderator::policy(ModerationPolicy::Accept),
        tx,
    );
    let (outcome, spy) = engine.run().await.unwrap();
    let mut updates = Vec::new();
    while let Ok(update) = rx.try_recv() {
        updates.push(update);
    }
    Whole {
        dir: run_dir.path().to_path_buf(),
        _out: out,
        outcome,
        spy: *spy,
        updates,
    }
}

pub fn records_of(dir: &Path) -> Vec<Record<JournalEvent>> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

pub fn fresh_protocol(dir: &Path) -> Box<dyn Protocol> {
    let recorded = Recorded::read(dir).unwrap();
    build(&recorded.definition, Arc::new(PromptSet::builtin())).unwrap()
}

/// Persist before parse (INF-02, INF-03): the demo ended well and its
/// answers were checked on disk before they were parsed.
pub fn check_persisted(name: &str, whole: &Whole) {
    assert!(
        matches!(
            whole.outcome,
            Outcome::Decided { .. } | Outcome::Completed { .. }
        ),
        "{name}: the demo ends well: {:?}",
        whole.outcome
    );
    assert!(whole.spy.checked >= 1, "{name}: answers were checked");
}

/// The fold of any journal prefix is the state the live protocol had then.
pub fn check_fold(name: &str, whole: &Whole) {
    let records = records_of(&whole.dir);
    let snapshots = &whole.spy.snapshots;
    for cut in 1..=records.len() {
        let live = snapshots
            .iter()
            .rev()
            .find(|snapshot| snapshot.records <= cut)
            .unwrap_or_else(|| panic!("{name}: no live state at record {cut}"));
        let folded = fold(fresh_protocol(&whole.dir), &records[..cut], &mut |_, _| {});
        let again = snapshot(folded.protocol.as_ref(), live.records);
        assert!(
            again == *live,
            "{name}: the fold of {cut} records differs from the live state"
        );
    }
}

/// Cut after any record and resumed, the debate ends with the files of the
/// uninterrupted run and loses no answer or decision; returns how many cuts
/// resumed.
pub async fn check_resume(name: &str, whole: &Whole) -> usize {
    let expected = normalised(&tree(&whole.dir));
    let journal = std::fs::read_to_string(whole.dir.join("journal.jsonl")).unwrap();
    let lines: Vec<&str> = journal.lines().collect();
    let scratch = tempfile::tempdir().unwrap();
    let mut resumed = 0;
    for cut in 1..lines.len() {
        let dir = scratch.path().join(format!("{name}-{cut:03}"));
        std::fs::create_dir(&dir).unwrap();
        let prefix: String = lines[..cut]
            .iter()
            .map(|line| format!("{line}\n"))
            .collect();
        std::fs::write(dir.join("journal.jsonl"), &prefix).unwrap();
        let Some(outcome) = resume(&dir, Moderator::policy(ModerationPolicy::Accept)).await else {
            continue;
        };
        assert_eq!(outcome, whole.outcome, "{name}, cut after record {cut}");
        let after = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
        let before = settled_inputs(&prefix);
        assert_eq!(
            settled_inputs(&after)[..before.len()],
            before[..],
            "{name}, cut {cut}: an answer or decision on record was lost"
        );
        assert_same_tree(&expected, &normalised(&tree(&dir)), cut);
        resumed += 1;
    }
    resumed
}

/// The recorded moments played back in the interface end where the debate
/// ended; `shown` gets the live interface a third of the way in
/// (`running`) and at the end with the result shown (`ended`), to draw.
pub fn check_replay(name: &str, whole: &Whole, mut shown: impl FnMut(&str, &mut App)) {
    let mut history = Vec::new();
    let folded = fold(
        fresh_protocol(&whole.dir),
        &records_of(&whole.dir),
        &mut |at, update| history.push((at, update)),
    );
    let info = DebateInfo::of(&*folded.protocol, PathBuf::from("/tmp/run"));
    let now = Instant::now();
    let mut app = App::new(info.clone(), Default::default(), now).replaying(1000.0, now);
    let start = history.first().map(|(at, _)| *at).unwrap();
    for (at, update) in history {
        let moment = Moment {
            at: (at - start).to_std().unwrap_or_default(),
            recorded: (at - start).to_std().unwrap_or_default(),
            update: pinned(update),
        };
        app.play(moment, now);
    }
    assert_eq!(app.outcome.as_ref(), Some(&whole.outcome), "{name}");

    // Live: mid-debate, then at the end with the result view.
    let mut live = App::new(info, Default::default(), now);
    // A third of the way by the updates that are not streamed text or a
    // step's forecast, so that how text is batched on its way (or a new
    // kind of figure) does not move the moment.
    let events = |updates: &[Update]| {
        updates
            .iter()
            .filter(|update| {
                !matches!(
                    update,
                    Update::Chunk { .. } | Update::Reasoning { .. } | Update::Forecast { .. }
                )
            })
            .count()
    };
    let third = events(&whole.updates) / 3;
    let halfway = (0..=whole.updates.len())
        .find(|&taken| events(&whole.updates[..taken]) >= third)
        .unwrap_or(whole.updates.len());
    for update in whole.updates.iter().take(halfway) {
        live.apply(pinned(update.clone()), now);
    }
    shown("running", &mut live);
    for update in whole.updates.iter().skip(halfway) {
        live.apply(pinned(update.clone()), now);
    }
    let lead = folded.protocol.summary_lead().unwrap();
    live.show_report(&lead, vec![folded.protocol.describe().deliverable]);
    shown("ended", &mut live);
}

/// `app` drawn at `width`×`height` in a `TestBackend`, the local clock time
/// of the pinned log entries shown as `12:00:00`.
pub fn draw(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    app.prepare(Rect::new(0, 0, width, height));
    terminal
        .draw(|frame| quorum::tui::view::draw(app, frame))
        .unwrap();
    let local = Utc
        .with_ymd_and_hms(2026, 12, 1, 12, 0, 0)
        .unwrap()
        .with_timezone(&Local)
        .format("%H:%M:%S")
        .to_string();
    terminal.backend().to_string().replace(&local, "12:00:00")
}

/// Log times and measured durations, pinned so screens read the same on
/// every run.
pub fn pinned(update: Update) -> Update {
    match update {
        Update::Log(mut entry) => {
            entry.at = Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap();
            entry.message = regex::Regex::new(r"answered in [\d.]+ s")
                .unwrap()
                .replace_all(&entry.message, "answered in 0.0 s")
                .into_owned();
            Update::Log(entry)
        }
        other => other,
    }
}
