//! The record writer, [`Records`]: it owns the journal and its group commit
//! (inputs appended without a fsync of their own while more wait, made
//! durable together), streamed text journaled in batches, the answers'
//! files (their folders, paths, the write beside the journal's fsync before
//! an answer is parsed, and the MALFORMED mark of one the protocol could
//! not use), and the schedule and off-thread rewrite of the run folder's
//! documents (only those whose inputs changed are rendered).
//!
//! It is a small scheduler the engine's loop drives and does not reach
//! into: [`poll_timeout`](Records::poll_timeout) says when it next has
//! work of its own, [`handle_timeout`](Records::handle_timeout) does what
//! fell due, [`before_wait`](Records::before_wait) what is owed before the
//! loop sleeps, [`rewrite_ended`](Records::rewrite_ended) takes a rewrite
//! that finished, and [`finish`](Records::finish) ends the record.
//!
//! Not responsible for what is recorded or when an input is taken (the loop
//! in [`super`] decides), for call tasks ([`super::calls`]) or for what the
//! documents say (the protocol renders them).

use std::time::{Duration, Instant};

use chrono::Utc;

use std::collections::{BTreeMap, HashMap};

use tokio::task::JoinHandle;

use super::{EngineError, JournalEvent};
use crate::artifact::{ArtifactError, Journal, JournalError, RunDir};
use crate::protocol::documents::{Documents, Planned};
use crate::protocol::{Input, Protocol, Publication, Timestamp};

/// Files to write after a step: the run folder's documents that changed,
/// as they go to disk, and the protocol's publications.
pub(super) struct ChangedFiles {
    files: Vec<(String, String)>,
    publications: Vec<Publication>,
    /// What every document holds, changed or not (the cost of the next
    /// rewrite is estimated per byte).
    bytes: usize,
    /// When the rewrite began, on tokio's clock and on the wall clock.
    at: tokio::time::Instant,
    started: Instant,
}

impl ChangedFiles {
    pub(super) fn write(&self, run_dir: &RunDir) -> Result<(), ArtifactError> {
        let files: Vec<(&str, &[u8])> = self
            .files
            .iter()
            .map(|(path, contents)| (path.as_str(), contents.as_bytes()))
            .collect();
        run_dir.write_all(&files)?;
        for publication in &self.publications {
            land(publication)?;
        }
        Ok(())
    }
}

/// Writes `publication` where it goes, unless the file already holds what
/// it would: a whole file, or its entry merged into the index already
/// there. Whether it wrote.
pub(super) fn land(publication: &Publication) -> Result<bool, ArtifactError> {
    // Missing, or not a regular file (the write then refuses it, saying why).
    let existing = crate::artifact::read_regular(&publication.path).ok();
    let contents = publication.landed(existing.as_deref());
    if existing.as_deref() == Some(contents.as_str()) {
        return Ok(false);
    }
    match &publication.within {
        Some(root) => {
            crate::artifact::publish_within(root, &publication.path, contents.as_bytes())?
        }
        None => crate::artifact::publish(&publication.path, contents.as_bytes())?,
    }
    Ok(true)
}

/// `work` done on this thread while the journal's records are made durable
/// on a scoped thread of its own: the fsync waits on the disk, and `work`
/// (writing files, which waits on it too) need not wait for it first.
pub(super) fn sync_journal_beside<R>(
    journal: &mut Journal,
    work: impl FnOnce() -> R,
) -> (Result<(), JournalError>, R) {
    std::thread::scope(|scope| {
        let synced = scope.spawn(|| journal.sync());
        let done = work();
        let synced = synced
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (synced, done)
    })
}

/// What a file was last written from, without its text: its length and a
/// 64-bit hash under a seed drawn once per process. Two different texts of
/// one length share a fingerprint with a chance of about one in 2^64, far
/// below a disk's silent corruption; the journal stays the record either
/// way, and resume rewrites any file that says something else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Fingerprint {
    len: usize,
    hash: u64,
}

impl Fingerprint {
    pub(super) fn of(text: &str) -> Fingerprint {
        use std::hash::BuildHasher;
        // foldhash reads a long text 16 bytes a step, several times faster
        // than the standard library's SipHash. Its seed is drawn once per
        // process, so an agent cannot aim a text at a collision.
        static STATE: std::sync::OnceLock<foldhash::fast::RandomState> = std::sync::OnceLock::new();
        Fingerprint {
            len: text.len(),
            hash: STATE
                .get_or_init(foldhash::fast::RandomState::default)
                .hash_one(text.as_bytes()),
        }
    }
}

/// Text a call streamed since its last journaled batch.
pub(super) struct StreamBatch {
    pub(super) text: String,
    pub(super) reasoning: bool,
    /// When its first chunk arrived, on tokio's clock (which tests pause).
    pub(super) since: tokio::time::Instant,
    /// When its last chunk arrived: the time the batch is journaled with.
    pub(super) last_at: Timestamp,
}

/// Longest time a due rewrite of the artifact files waits for inputs that
/// keep arriving, in milliseconds (they are rewritten as soon as the inbox
/// is empty, normally at once).
pub const DOCUMENTS_WAIT_MAX_MS: u64 = 100;

/// Longest the artifact files lag behind a running debate, in milliseconds:
/// every one of them is rebuilt from the whole debate, and the answers they
/// embed grow with it, so they are rewritten only as often as
/// [`DOCUMENTS_COST_SHARE`] allows, but at least this often; when the
/// debate ends they are written at once. The journal is the record: resume
/// rebuilds every file from it.
pub const DOCUMENTS_LAG_MAX_MS: u64 = 10_000;

/// Rewriting the artifact files takes at most one part in this many of a
/// running debate's time, counting the next rewrite at the last one's cost
/// per byte for what has streamed since: files that take 0.5 ms to write
/// are rewritten after every step (100 ms apart at most), files that take
/// 5 ms every second, 50 ms every 10 s. So rewriting files that grow with
/// the debate costs a bounded share of its time, however long it runs,
/// never a sum that grows quadratically.
///
/// It was 50 until issue 56 measured it: after a 1 MB proposal the
/// rewrites (a few ms each, debate.yaml emitting the proposal verbatim)
/// took a fifth of the interface's whole work, itself about 3% of a core;
/// at 200 they were still a fifth of what the interface did after a 1 MB
/// proposal (debate.yaml, 5 ms a rewrite, once a second), so 1,000: the
/// 10 s bound decides for a debate that large.
pub const DOCUMENTS_COST_SHARE: u32 = 1000;

pub use crate::agent::STREAM_BATCH_MS;

/// Most streamed text journaled per call, answer and reasoning each, in
/// bytes: what a replay shows streaming. The answer itself is journaled
/// whole when the call finishes, so streamed text past this would only
/// store it twice (an agent's 16 MiB answer: 32 MiB of journal); a replay
/// shows the rest of a longer answer at once when its call finishes.
pub const STREAM_JOURNAL_MAX_BYTES: usize = 256 * 1024;

/// How early a batch is journaled when more text of its call arrives, in
/// milliseconds. A stream read once every [`STREAM_BATCH_MS`] (a headless
/// run's paced reads) brings its text as its batch falls due, give or take
/// the scheduler's jitter; journaled then, not at its timer a moment later,
/// a batch costs no wake of its own.
pub const STREAM_BATCH_EARLY_MS: u64 = 10;

/// The record writer: owns the journal (with its group commit and the
/// streamed text batched into it), the raw answer files, and the run
/// folder's documents (which are due, when to rewrite them, the rewrite
/// under way and the fingerprint each file was last written from).
pub(super) struct Records {
    journal: Journal,
    run_dir: RunDir,
    /// Raw-output files of calls that persist on collect, by call id.
    raw_paths: HashMap<String, String>,
    /// Raw-output files of calls just started, whose folders are made
    /// before the engine next waits: while the calls are out, not when
    /// their answers land (a new folder costs its parent an fsync).
    raw_folders_due: Vec<String>,
    /// Per artifact file, the fingerprint of the document contents (before
    /// [`Document::for_disk`]) that its file on disk was last written
    /// from, to skip unchanged documents without rendering them again. A
    /// fingerprint, not the text: the engine holds no copy of the run
    /// folder.
    ///
    /// [`Document::for_disk`]: crate::protocol::Document::for_disk
    written: HashMap<String, Fingerprint>,
    /// A step changed what the documents may say; they are rewritten once
    /// the step's effects have been applied (new calls already running), so
    /// the rewrite is off the path from one call to the next.
    documents_due: Option<tokio::time::Instant>,
    /// Inputs were journaled without an fsync of their own (group commit,
    /// see [`journal_input`](Self::journal_input)).
    inputs_unsynced: bool,
    /// When the artifact files were last rewritten, how long it took and
    /// how many bytes they held.
    documents_written: Option<(tokio::time::Instant, Duration, usize)>,
    /// Bytes streamed since then: the files will hold them too.
    streamed_since_documents: usize,
    /// Since when a rewrite that was due has waited for the inputs already
    /// in the inbox (at most [`DOCUMENTS_WAIT_MAX_MS`]).
    documents_held: Option<tokio::time::Instant>,
    /// Streamed text not yet journaled, per call.
    batches: BTreeMap<String, StreamBatch>,
    /// What each document rendered from a part of the debate was last
    /// rendered from ([`Documents::add_from`]), by path.
    inputs: HashMap<String, u64>,
    /// Streamed text batched so far per call and kind (answer, reasoning),
    /// in bytes, up to [`STREAM_JOURNAL_MAX_BYTES`].
    batched_bytes: HashMap<(String, bool), usize>,
    /// The rewrite of the artifact files under way, if any.
    rewrite: Option<Rewrite>,
}

/// A rewrite of the artifact files on tokio's blocking pool.
type Rewrite = JoinHandle<(ChangedFiles, Result<(), ArtifactError>)>;

impl Records {
    pub(super) fn new(run_dir: RunDir, journal: Journal) -> Self {
        Records {
            journal,
            run_dir,
            raw_paths: HashMap::new(),
            raw_folders_due: Vec::new(),
            written: HashMap::new(),
            inputs: HashMap::new(),
            documents_due: None,
            inputs_unsynced: false,
            documents_written: None,
            streamed_since_documents: 0,
            documents_held: None,
            batches: BTreeMap::new(),
            batched_bytes: HashMap::new(),
            rewrite: None,
        }
    }

    /// The raw answer of `call_id` is to be written to `path` when it
    /// comes; its folder is made before the engine next waits.
    pub(super) fn expect_raw(&mut self, call_id: &str, path: String) {
        self.raw_folders_due.push(path.clone());
        self.raw_paths.insert(call_id.to_string(), path);
    }

    /// Notes that `path` holds `text` as written, so an unchanged document
    /// of that path is not written again.
    fn note_written(&mut self, path: &str, text: &str) {
        self.written.insert(path.to_string(), Fingerprint::of(text));
    }

    /// A step may have changed what the documents say.
    pub(super) fn documents_changed(&mut self) {
        self.documents_due
            .get_or_insert_with(tokio::time::Instant::now);
    }

    /// When the next streamed batch is due to be journaled: about
    /// [`STREAM_BATCH_MS`] after its first text, on a boundary of the clock
    /// answer streams are read on, so that journaling it wakes the process
    /// with a read rather than on its own (issue 56).
    fn batch_at(&self) -> Option<tokio::time::Instant> {
        let read = crate::agent::http::paced::frame_interval();
        self.batches
            .values()
            .map(|batch| {
                let due = batch.since + Duration::from_millis(STREAM_BATCH_MS);
                match due.checked_sub(Duration::from_millis(1)) {
                    Some(before) if !read.is_zero() => {
                        crate::agent::http::paced::next_frame(before, read)
                    }
                    _ => due,
                }
            })
            .min()
    }

    /// Journals `event` after any streamed text before it, without a fsync
    /// of its own (the next input's, or the engine's before it waits,
    /// carries it).
    pub(super) fn record(
        &mut self,
        now: Timestamp,
        event: &JournalEvent,
    ) -> Result<(), EngineError> {
        self.flush_streams()?;
        self.journal.append_unsynced(now, event)?;
        Ok(())
    }

    /// Persist before parse: the answers of `journaled` (journaled without
    /// a fsync) are made durable and written to their raw files, side by
    /// side, and each file is read back; returns each answer's call id and
    /// raw file. A raw file the journal then failed to keep is written
    /// again by resume.
    pub(super) fn persist_answers<'a>(
        &mut self,
        answers: &[(&'a str, &'a str)],
    ) -> Result<Vec<(&'a str, String)>, EngineError> {
        let raw: Vec<(&str, String, &str)> = answers
            .iter()
            .filter_map(|&(call_id, output)| {
                Some((call_id, self.raw_output_path(call_id)?, output))
            })
            .collect();
        if raw.is_empty() {
            self.journal.sync()?;
        } else {
            let run_dir = &self.run_dir;
            let (synced, written) = sync_journal_beside(&mut self.journal, || {
                crate::artifact::side_by_side(&raw, |(_, path, output)| {
                    run_dir.write_unsynced(path, output.as_bytes())?;
                    if run_dir.read_to_string(path)? != *output {
                        return Err(EngineError::ReadBack { path: path.clone() });
                    }
                    Ok(())
                })
                .into_iter()
                .collect::<Result<(), EngineError>>()
            });
            synced?;
            written?;
        }
        self.inputs_unsynced = false;
        Ok(raw
            .into_iter()
            .map(|(call_id, path, output)| {
                self.note_written(&path, output);
                (call_id, path)
            })
            .collect())
    }

    /// Makes the folders of the raw files due ([`raw_folders_due`](Self::raw_folders_due)).
    /// A folder that cannot be made is left to the raw file's own write,
    /// which reports it with the file's path.
    fn make_raw_folders(&mut self) {
        for path in std::mem::take(&mut self.raw_folders_due) {
            let _ = self.run_dir.make_folders_for(&path);
        }
    }

    pub(super) fn raw_output_path(&self, call_id: &str) -> Option<String> {
        self.raw_paths.get(call_id).cloned()
    }

    // ---- the schedule: what the loop asks before it waits, and after ----

    /// When the record writer next has something to do on its own: a
    /// streamed batch falls due ([`STREAM_BATCH_MS`]), or the documents a
    /// step changed are to be rewritten ([`documents_at`](Self::documents_at)).
    /// `None`: nothing until the next input.
    pub(super) fn poll_timeout(&self) -> Option<tokio::time::Instant> {
        [self.batch_at(), self.documents_at()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Whether documents a step changed fall due to be rewritten by `now`.
    pub(super) fn documents_due(&self, now: tokio::time::Instant) -> bool {
        self.documents_at().is_some_and(|at| at <= now)
    }

    /// Does what is due by `now`: journals the streamed batches that have
    /// waited [`STREAM_BATCH_MS`], and starts the rewrite of the documents
    /// when it falls due. While inputs wait in the inbox (`inbox_empty`
    /// false: the other judges of a round finishing together, a policy's
    /// decisions), a due rewrite waits for them, so the documents are
    /// written once for all of them, but never more than
    /// [`DOCUMENTS_WAIT_MAX_MS`].
    pub(super) fn handle_timeout(
        &mut self,
        now: tokio::time::Instant,
        protocol: &(impl Protocol + ?Sized),
        inbox_empty: bool,
    ) -> Result<(), EngineError> {
        if self.batch_at().is_some_and(|at| at <= now) {
            tracing::debug_span!("quorum_stream_flush").in_scope(|| self.flush_due_streams())?;
        }
        if self.documents_due(now) {
            let held = *self.documents_held.get_or_insert(now);
            if inbox_empty || now >= held + Duration::from_millis(DOCUMENTS_WAIT_MAX_MS) {
                self.start_rewrite(protocol)?;
            }
        }
        Ok(())
    }

    /// What is owed before the engine waits for its inbox: the inputs
    /// journaled without a fsync made durable, and the folders of the raw
    /// answers of the calls just started made.
    pub(super) fn before_wait(&mut self) -> Result<(), EngineError> {
        self.sync_inputs()?;
        self.make_raw_folders();
        Ok(())
    }

    /// Whether a rewrite of the documents is under way.
    pub(super) fn rewriting(&self) -> bool {
        self.rewrite.is_some()
    }

    /// Takes the result of the rewrite under way if it has ended; never
    /// waits.
    pub(super) fn poll_rewrite(&mut self) -> Result<(), EngineError> {
        match self.rewrite.as_mut() {
            Some(rewrite) if rewrite.is_finished() => {
                let ended = futures::FutureExt::now_or_never(rewrite)
                    .expect("a finished task has its output");
                self.rewrite_done(ended)
            }
            _ => Ok(()),
        }
    }

    /// Waits until the rewrite under way ends and takes its result; never
    /// resolves when there is none. Cancel-safe: dropped before the rewrite
    /// ends, it leaves the rewrite under way.
    pub(super) async fn rewrite_ended(&mut self) -> Result<(), EngineError> {
        let Some(rewrite) = self.rewrite.as_mut() else {
            return std::future::pending().await;
        };
        let ended = rewrite.await;
        self.rewrite_done(ended)
    }

    /// Waits for the rewrite under way, if any, and takes its result.
    pub(super) async fn settle(&mut self) -> Result<(), EngineError> {
        if self.rewriting() {
            self.rewrite_ended().await?;
        }
        Ok(())
    }

    /// Ends the record, once any rewrite under way has ended
    /// ([`settle`](Self::settle)): journals `end` and writes the documents
    /// that changed while its fsync runs. A crash between the two leaves a
    /// finished journal, and `quorum resume` brings the files up to date
    /// with it.
    pub(super) fn finish(
        &mut self,
        now: Timestamp,
        end: &JournalEvent,
        protocol: &(impl Protocol + ?Sized),
    ) -> Result<(), EngineError> {
        self.record(now, end)?;
        self.write_documents_beside_sync(protocol, true)
    }

    /// Gives the run folder up however the run ended: a rewrite under way
    /// finishes first (its result no longer matters), so no file changes
    /// after this returns.
    pub(super) async fn close(&mut self) {
        if let Some(rewrite) = self.rewrite.take() {
            let _ = rewrite.await;
        }
    }

    // ---- the journal, the raw answers and the streamed text ----

    /// When the journal's last record was written, if it holds any.
    pub(super) fn last_at(&self) -> Option<Timestamp> {
        self.journal.last_at()
    }

    /// Journals `event` (after any streamed text before it) and makes it
    /// durable before returning.
    pub(super) fn record_durable(
        &mut self,
        now: Timestamp,
        event: &JournalEvent,
    ) -> Result<(), EngineError> {
        self.record(now, event)?;
        self.journal.sync()?;
        self.inputs_unsynced = false;
        Ok(())
    }

    /// Puts back the answers of a resumed debate whose files say something
    /// else than the journal (`(path, answer)`), and notes them written.
    pub(super) fn restore_answers<'a>(
        &mut self,
        answers: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<(), EngineError> {
        for (path, answer) in answers {
            if self.run_dir.read_to_string(path).ok().as_deref() != Some(answer) {
                self.run_dir.write(path, answer.as_bytes())?;
            }
            self.note_written(path, answer);
        }
        Ok(())
    }

    /// Adds streamed text to its call's batch, journaling the batch first
    /// when it is of the other kind or older than [`STREAM_BATCH_MS`] (less
    /// [`STREAM_BATCH_EARLY_MS`]).
    pub(super) fn batch(
        &mut self,
        call_id: &str,
        text: &str,
        reasoning: bool,
    ) -> Result<(), EngineError> {
        let due = self.batches.get(call_id).is_some_and(|batch| {
            batch.reasoning != reasoning
                || batch.since.elapsed() + Duration::from_millis(STREAM_BATCH_EARLY_MS)
                    >= Duration::from_millis(STREAM_BATCH_MS)
        });
        if due {
            self.flush_stream(call_id)?;
        }
        self.streamed_since_documents += text.len();
        let batched = self
            .batched_bytes
            .entry((call_id.to_string(), reasoning))
            .or_default();
        let text = crate::text::head_bytes(text, STREAM_JOURNAL_MAX_BYTES.saturating_sub(*batched));
        if text.is_empty() {
            return Ok(());
        }
        *batched += text.len();
        let batch = self
            .batches
            .entry(call_id.to_string())
            .or_insert_with(|| StreamBatch {
                text: String::new(),
                reasoning,
                since: tokio::time::Instant::now(),
                last_at: Utc::now(),
            });
        batch.text.push_str(text);
        batch.last_at = Utc::now();
        Ok(())
    }

    /// Journals the batches that have waited [`STREAM_BATCH_MS`].
    fn flush_due_streams(&mut self) -> Result<(), EngineError> {
        let age = Duration::from_millis(STREAM_BATCH_MS);
        let due: Vec<String> = self
            .batches
            .iter()
            .filter(|(_, batch)| batch.since.elapsed() >= age)
            .map(|(call_id, _)| call_id.clone())
            .collect();
        for call_id in due {
            self.flush_stream(&call_id)?;
        }
        Ok(())
    }

    fn flush_stream(&mut self, call_id: &str) -> Result<(), EngineError> {
        if let Some(batch) = self.batches.remove(call_id) {
            self.journal.append_unsynced(
                batch.last_at,
                &JournalEvent::Streamed {
                    call_id: call_id.to_string(),
                    text: batch.text,
                    reasoning: batch.reasoning,
                },
            )?;
        }
        Ok(())
    }

    /// Journals every pending batch, so streamed text precedes the input or
    /// call that follows it.
    fn flush_streams(&mut self) -> Result<(), EngineError> {
        let call_ids: Vec<String> = self.batches.keys().cloned().collect();
        for call_id in call_ids {
            self.flush_stream(&call_id)?;
        }
        Ok(())
    }

    /// Makes `input` durable at `now` (after any streamed text before it).
    ///
    /// Group commit: while `more_waiting` messages wait in the inbox (a
    /// policy's decisions, say), an input is appended without its own
    /// fsync, and the one that empties the inbox, or the engine before it
    /// waits or writes a file, makes them all durable at once. A crash can
    /// only lose a suffix of the journal, and every file is rebuilt from
    /// what remains. Answers take [`persist_answers`](Self::persist_answers),
    /// which makes them durable before they are parsed (persist-before-parse).
    pub(super) fn journal_input(
        &mut self,
        input: &Input,
        now: Timestamp,
        more_waiting: bool,
    ) -> Result<(), EngineError> {
        self.flush_streams()?;
        let event = JournalEvent::Input {
            input: input.clone(),
        };
        if more_waiting {
            self.journal.append_unsynced(now, &event)?;
            self.inputs_unsynced = true;
        } else {
            self.journal.append(now, &event)?;
            self.inputs_unsynced = false;
        }
        Ok(())
    }

    /// Makes the inputs journaled without their own fsync durable.
    fn sync_inputs(&mut self) -> Result<(), EngineError> {
        if std::mem::take(&mut self.inputs_unsynced) {
            self.journal.sync()?;
        }
        Ok(())
    }

    /// When the documents are to be rewritten, if a step changed them: when
    /// [`DOCUMENTS_COST_SHARE`] allows, [`DOCUMENTS_LAG_MAX_MS`] after the
    /// last rewrite at the latest (and at once when the debate ends). Never
    /// while a rewrite is under way: the next waits for it.
    fn documents_at(&self) -> Option<tokio::time::Instant> {
        if self.rewrite.is_some() {
            return None;
        }
        let since = self.documents_due?;
        Some(match self.documents_written {
            Some((last, took, bytes)) => {
                // The next rewrite costs what the last did per byte, for
                // what they held and what has streamed since.
                let grown = (bytes + self.streamed_since_documents) as f64 / bytes.max(1) as f64;
                let interval = took.mul_f64(f64::from(DOCUMENTS_COST_SHARE) * grown);
                since.max(last + interval.min(Duration::from_millis(DOCUMENTS_LAG_MAX_MS)))
            }
            None => since,
        })
    }

    /// Rewrites the artifact files whose documents changed since they were
    /// last written, when a step has happened since the last call, and
    /// returns when they are on disk.
    pub(super) fn write_documents(
        &mut self,
        protocol: &(impl Protocol + ?Sized),
    ) -> Result<(), EngineError> {
        self.write_documents_beside_sync(protocol, false)
    }

    /// [`write_documents`](Self::write_documents), and with `sync_journal`
    /// the journal's records made durable while the files are written.
    fn write_documents_beside_sync(
        &mut self,
        protocol: &(impl Protocol + ?Sized),
        sync_journal: bool,
    ) -> Result<(), EngineError> {
        debug_assert!(self.rewrite.is_none(), "a rewrite is still under way");
        let Some(changed) = self.changed_files(protocol)? else {
            if sync_journal {
                self.journal.sync()?;
            }
            return Ok(());
        };
        let written = if sync_journal {
            let run_dir = &self.run_dir;
            let (synced, written) =
                sync_journal_beside(&mut self.journal, || changed.write(run_dir));
            synced?;
            written
        } else {
            changed.write(&self.run_dir)
        };
        written?;
        self.documents_written = Some((changed.at, changed.started.elapsed(), changed.bytes));
        Ok(())
    }

    /// Starts rewriting the artifact files like
    /// [`write_documents`](Self::write_documents), on tokio's blocking pool:
    /// the debate carries on while the disk works (an answer that arrives
    /// meanwhile is journaled and parsed at once, and streamed text keeps
    /// flowing however large the files have grown).
    /// [`rewrite_done`](Self::rewrite_done) takes the result.
    fn start_rewrite(&mut self, protocol: &(impl Protocol + ?Sized)) -> Result<(), EngineError> {
        let Some(changed) = self.changed_files(protocol)? else {
            return Ok(());
        };
        let run_dir = self.run_dir.clone();
        let task = tokio::task::spawn_blocking(move || {
            let written = changed.write(&run_dir);
            (changed, written)
        });
        self.rewrite = Some(task);
        Ok(())
    }

    /// Takes the result of the rewrite [`start_rewrite`](Self::start_rewrite)
    /// began, once its task has ended.
    fn rewrite_done(
        &mut self,
        ended: Result<(ChangedFiles, Result<(), ArtifactError>), tokio::task::JoinError>,
    ) -> Result<(), EngineError> {
        self.rewrite = None;
        let (changed, written) = match ended {
            Ok(ended) => ended,
            Err(error) => match error.try_into_panic() {
                Ok(panic) => std::panic::resume_unwind(panic),
                Err(error) => return Err(EngineError::Rewrite(error.to_string())),
            },
        };
        written?;
        self.documents_written = Some((changed.at, changed.started.elapsed(), changed.bytes));
        Ok(())
    }

    /// In a debug build (every test), that each document skipped for
    /// unchanged inputs would have rendered what its file was last written
    /// from: inputs that leave out something a document reads stop here.
    #[cfg(debug_assertions)]
    fn check_skipped(&self, protocol: &(impl Protocol + ?Sized), skipped: &[String]) {
        if skipped.is_empty() {
            return;
        }
        for document in protocol.documents() {
            if skipped.contains(&document.path) {
                assert_eq!(
                    self.written.get(&document.path),
                    Some(&Fingerprint::of(&document.contents)),
                    "{} was not rendered again, but it changed: its inputs leave out something it reads",
                    document.path
                );
            }
        }
    }

    /// Adds `path` to `files`, to be written as `for_disk` makes it, unless
    /// it was last written from `contents` already, or (the first time the
    /// engine sees it: a resumed or reopened debate) its file on disk is up
    /// to date; from here on it counts as written.
    fn note_changed(
        &mut self,
        files: &mut Vec<(String, String)>,
        path: &str,
        contents: &str,
        for_disk: impl FnOnce() -> String,
    ) {
        let fingerprint = Fingerprint::of(contents);
        match self.written.get(path) {
            Some(written) if *written == fingerprint => return,
            Some(_) => files.push((path.to_string(), for_disk())),
            None => {
                let for_disk = for_disk();
                if self.run_dir.read_to_string(path).ok().as_deref() != Some(&for_disk) {
                    files.push((path.to_string(), for_disk));
                }
            }
        }
        self.written.insert(path.to_string(), fingerprint);
    }

    /// The documents and publications that changed since they were last
    /// written, as they go to disk, when a step has happened since; from
    /// here on they count as written. The journal is made durable first: no
    /// file shows an input it could still lose.
    fn changed_files(
        &mut self,
        protocol: &(impl Protocol + ?Sized),
    ) -> Result<Option<ChangedFiles>, EngineError> {
        self.documents_held = None;
        if self.documents_due.take().is_none() {
            return Ok(None);
        }
        // The cost is real time; the interval is on tokio's clock (which tests pause).
        let (at, started) = (tokio::time::Instant::now(), Instant::now());
        let _span = tracing::debug_span!("quorum_documents").entered();
        self.sync_inputs()?;
        let mut files = Vec::new();
        let mut bytes = 0;
        // Only the documents whose inputs changed are rendered.
        let mut documents = Documents::since(&self.inputs);
        protocol.render_documents(&mut documents);
        let mut skipped = Vec::new();
        for planned in documents.into_planned() {
            let (document, inputs) = match planned {
                Planned::Rendered { document, inputs } => (document, inputs),
                Planned::Unchanged { path } => {
                    skipped.push(path);
                    continue;
                }
            };
            bytes += document.contents.len();
            self.note_changed(&mut files, &document.path, &document.contents, || {
                document.for_disk().into_owned()
            });
            match inputs {
                Some(inputs) => self.inputs.insert(document.path, inputs),
                None => self.inputs.remove(&document.path),
            };
        }
        #[cfg(debug_assertions)]
        self.check_skipped(protocol, &skipped);
        // An answer kept other than as it came: the file is the fact
        // turned into bytes, the same way for every protocol.
        for file in protocol.answer_files() {
            let contents = file.for_disk();
            bytes += contents.len();
            self.note_changed(&mut files, &file.path, &contents, || contents.to_string());
        }
        let mut publications = Vec::new();
        for publication in protocol.publications() {
            let key = publication.path.display().to_string();
            let fingerprint = Fingerprint::of(&publication.contents);
            if self.written.get(&key) != Some(&fingerprint) {
                self.written.insert(key, fingerprint);
                publications.push(publication);
            }
        }
        self.streamed_since_documents = 0;
        Ok(Some(ChangedFiles {
            files,
            publications,
            bytes,
            at,
            started,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(dir: &std::path::Path) -> Records {
        let journal = Journal::create(&dir.join("journal.jsonl")).unwrap();
        Records::new(RunDir::open(dir).unwrap(), journal)
    }

    /// Text that arrives as its call's batch falls due, give or take
    /// STREAM_BATCH_EARLY_MS, journals the batch then: a stream read once
    /// every STREAM_BATCH_MS (a headless run) needs no wake of the batch
    /// timer a moment after each read. Text that arrives earlier joins the
    /// batch.
    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_batch_about_to_fall_due_is_journaled_when_more_text_arrives() {
        let dir = tempfile::tempdir().unwrap();
        let mut records = records(dir.path());
        records.batch("c", "one ", false).unwrap();
        let early = Duration::from_millis(STREAM_BATCH_MS - 5);
        tokio::time::advance(early - Duration::from_millis(15)).await;
        records.batch("c", "two ", false).unwrap();
        assert_eq!(records.batches["c"].text, "one two ", "joined: not yet due");
        // The next read, 5 ms early by the timer.
        tokio::time::advance(Duration::from_millis(15)).await;
        records.batch("c", "three", false).unwrap();
        assert_eq!(
            records.batches["c"].text, "three",
            "the batch before it went to the journal"
        );
        let journal = std::fs::read_to_string(dir.path().join("journal.jsonl")).unwrap();
        assert!(journal.contains(r#""text":"one two ""#), "{journal}");
    }

    /// Issue 61, class 10: a call's streamed text is journaled up to
    /// STREAM_JOURNAL_MAX_BYTES, answer and reasoning each, cut between
    /// two characters; the answer itself is journaled whole when the call
    /// finishes, so a long answer is not stored twice. Counted in bytes.
    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn streamed_text_is_journaled_up_to_its_cap_per_call() {
        let dir = tempfile::tempdir().unwrap();
        let mut records = records(dir.path());
        let chunk = "é".repeat(100 * 1024);
        for _ in 0..10 {
            records.batch("big", &chunk, false).unwrap();
            records.batch("big", "thinking ", true).unwrap();
            records.batch("small", "a few words ", false).unwrap();
        }
        records.flush_streams().unwrap();
        let journal = std::fs::read_to_string(dir.path().join("journal.jsonl")).unwrap();
        let mut kept: BTreeMap<(String, bool), usize> = BTreeMap::new();
        for line in journal.lines() {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            let event = &record["event"];
            let reasoning = event["reasoning"].as_bool().unwrap_or(false);
            let call = event["call_id"].as_str().unwrap().to_owned();
            *kept.entry((call, reasoning)).or_default() += event["text"].as_str().unwrap().len();
        }
        let big = kept[&("big".to_owned(), false)];
        assert!(
            big <= STREAM_JOURNAL_MAX_BYTES && big > STREAM_JOURNAL_MAX_BYTES - 2,
            "{big} bytes of a 2 MB answer"
        );
        assert_eq!(kept[&("big".to_owned(), true)], 10 * "thinking ".len());
        assert_eq!(
            kept[&("small".to_owned(), false)],
            10 * "a few words ".len()
        );
    }
}
