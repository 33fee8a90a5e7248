//! The record writer: the journal's group commit (inputs appended without
//! a fsync of their own while more wait, made durable together), streamed
//! text journaled in batches, the folders and paths of raw answer files, and
//! the schedule and off-thread rewrite of the run folder's documents.
//!
//! Not responsible for what is recorded or when an input is taken (the loop
//! in [`super`] decides), for call tasks ([`super::calls`]) or for what the
//! documents say (the protocol renders them).

use std::time::{Duration, Instant};

use chrono::Utc;

use super::{Engine, EngineError, JournalEvent};
use crate::artifact::{ArtifactError, Journal, JournalError, RunDir};
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
            crate::artifact::publish(&publication.path, publication.contents.as_bytes())?;
        }
        Ok(())
    }
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
/// per byte for what has streamed since: files that take 2 ms to write are
/// rewritten after every step (100 ms apart at most), files that take
/// 100 ms every 5 s. So rewriting files that grow with the debate costs a
/// bounded share of its time, however long it runs, never a sum that grows
/// quadratically.
pub const DOCUMENTS_COST_SHARE: u32 = 50;

/// How long streamed text gathers before it is journaled as one batch, in
/// milliseconds: fine enough for a replay to look live, coarse enough that a
/// fast stream costs a handful of writes a second.
pub const STREAM_BATCH_MS: u64 = 100;

impl<P: Protocol> Engine<P> {
    /// Makes the folders of the raw files due ([`raw_folders_due`](Self::raw_folders_due)).
    /// A folder that cannot be made is left to the raw file's own write,
    /// which reports it with the file's path.
    pub(super) fn make_raw_folders(&mut self) {
        for path in std::mem::take(&mut self.raw_folders_due) {
            let _ = self.run_dir.make_folders_for(&path);
        }
    }

    pub(super) fn raw_output_path(&self, call_id: &str) -> Option<String> {
        self.raw_paths.get(call_id).cloned()
    }

    /// Adds streamed text to its call's batch, journaling the batch first
    /// when it is older than [`STREAM_BATCH_MS`] or of the other kind.
    pub(super) fn batch(
        &mut self,
        call_id: &str,
        text: &str,
        reasoning: bool,
    ) -> Result<(), EngineError> {
        let due = self.batches.get(call_id).is_some_and(|batch| {
            batch.reasoning != reasoning
                || batch.since.elapsed() >= Duration::from_millis(STREAM_BATCH_MS)
        });
        if due {
            self.flush_stream(call_id)?;
        }
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
        self.streamed_since_documents += text.len();
        Ok(())
    }

    /// Journals the batches that have waited [`STREAM_BATCH_MS`].
    pub(super) fn flush_due_streams(&mut self) -> Result<(), EngineError> {
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

    pub(super) fn flush_stream(&mut self, call_id: &str) -> Result<(), EngineError> {
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
    pub(super) fn flush_streams(&mut self) -> Result<(), EngineError> {
        let call_ids: Vec<String> = self.batches.keys().cloned().collect();
        for call_id in call_ids {
            self.flush_stream(&call_id)?;
        }
        Ok(())
    }

    /// Makes `input` durable (after any streamed text before it); returns
    /// the time it was journaled with, which the protocol is given too.
    ///
    /// Group commit: while more messages wait in the inbox (a policy's
    /// decisions, say), an input is appended without its own fsync, and the
    /// one that empties the inbox, or the engine before it waits or writes
    /// a file, makes them all durable at once. A crash can only lose a
    /// suffix of the journal, and every file is rebuilt from what remains.
    /// Answers take [`collect`](Self::collect), which makes them durable
    /// before they are parsed (persist-before-parse).
    pub(super) fn journal_input(&mut self, input: &Input) -> Result<Timestamp, EngineError> {
        self.flush_streams()?;
        let now = self.now();
        let event = JournalEvent::Input {
            input: input.clone(),
        };
        if self.inbox_is_empty() {
            self.journal.append(now, &event)?;
            self.inputs_unsynced = false;
        } else {
            self.journal.append_unsynced(now, &event)?;
            self.inputs_unsynced = true;
        }
        Ok(now)
    }

    /// Makes the inputs journaled without their own fsync durable.
    pub(super) fn sync_inputs(&mut self) -> Result<(), EngineError> {
        if std::mem::take(&mut self.inputs_unsynced) {
            self.journal.sync()?;
        }
        Ok(())
    }

    /// When the documents are to be rewritten, if a step changed them: when
    /// [`DOCUMENTS_COST_SHARE`] allows, [`DOCUMENTS_LAG_MAX_MS`] after the
    /// last rewrite at the latest (and at once when the debate ends). Never
    /// while a rewrite is under way: the next waits for it.
    pub(super) fn documents_at(&self) -> Option<tokio::time::Instant> {
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
    pub(super) fn write_documents(&mut self) -> Result<(), EngineError> {
        self.write_documents_beside_sync(false)
    }

    /// [`write_documents`](Self::write_documents), and with `sync_journal`
    /// the journal's records made durable while the files are written.
    pub(super) fn write_documents_beside_sync(
        &mut self,
        sync_journal: bool,
    ) -> Result<(), EngineError> {
        debug_assert!(self.rewrite.is_none(), "a rewrite is still under way");
        let Some(changed) = self.changed_files()? else {
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
    pub(super) fn start_rewrite(&mut self) -> Result<(), EngineError> {
        let Some(changed) = self.changed_files()? else {
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
    pub(super) fn rewrite_done(
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

    /// The documents and publications that changed since they were last
    /// written, as they go to disk, when a step has happened since; from
    /// here on they count as written. The journal is made durable first: no
    /// file shows an input it could still lose.
    pub(super) fn changed_files(&mut self) -> Result<Option<ChangedFiles>, EngineError> {
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
        for document in self.protocol.documents() {
            bytes += document.contents.len();
            let fingerprint = Fingerprint::of(&document.contents);
            if self.written.get(&document.path) == Some(&fingerprint) {
                continue;
            }
            let for_disk = document.for_disk().into_owned();
            let current = !self.written.contains_key(&document.path)
                && self
                    .run_dir
                    .read_to_string(&document.path)
                    .is_ok_and(|on_disk| on_disk == for_disk);
            if !current {
                // (When current: a resumed or reopened debate, its file up to date.)
                files.push((document.path.clone(), for_disk));
            }
            self.written.insert(document.path, fingerprint);
        }
        let mut publications = Vec::new();
        for publication in self.protocol.publications() {
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
