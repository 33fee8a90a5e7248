//! The journal: an append-only JSON-lines event log, the source of truth for
//! `quorum resume`.
//!
//! One [`Record`] per line, written with a single `write_all` and made durable
//! with `sync_data` before [`Journal::append`] returns, so an event the caller
//! has been told about survives a kill -9 or a power cut. A crash in the middle
//! of an append can leave a last line without its `\n`: [`read_journal`]
//! reports it as a [`TornTail`] and [`truncate_torn_tail`] cuts it off before
//! appending resumes. Anything else that does not parse is an error naming the
//! file and line: a journal is never silently repaired.
//!
//! The event type is the caller's; this module knows nothing of protocols.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

use super::fs::{open_regular, sync_dir};

/// Format version written into every record. Readers refuse records with a
/// higher version instead of misreading them.
pub const JOURNAL_VERSION: u32 = 1;

/// Sequence number of a journal's first record.
pub const FIRST_SEQ: u64 = 1;

/// One line of the journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record<E> {
    /// Format version, [`JOURNAL_VERSION`] when written by this build.
    pub v: u32,
    /// Strictly increasing within a journal, starting at [`FIRST_SEQ`].
    pub seq: u64,
    pub at: DateTime<Utc>,
    pub event: E,
}

/// Just enough of a record to tell a newer format from a corrupt line.
#[derive(Deserialize)]
struct VersionProbe {
    v: u32,
}

/// A last line without its `\n` that does not parse: the remains of an append
/// cut short by a crash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TornTail {
    /// 1-based line number.
    pub line: usize,
    /// Length of the torn line in bytes.
    pub bytes: usize,
}

/// Everything a journal holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalContents<E> {
    pub records: Vec<Record<E>>,
    /// Dropped from `records`; cut it with [`truncate_torn_tail`] before
    /// appending.
    pub torn_tail: Option<TornTail>,
}

impl<E> JournalContents<E> {
    /// The seq the next appended record must carry.
    pub fn next_seq(&self) -> u64 {
        self.records
            .last()
            .map_or(FIRST_SEQ, |record| record.seq + 1)
    }
}

/// A failure reading or writing a journal; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot {action} journal {}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot serialise event {seq} for journal {}", path.display())]
    Serialize {
        path: PathBuf,
        seq: u64,
        #[source]
        source: serde_json::Error,
    },
    /// Serialisation produced a raw newline, which would split the record.
    #[error("event {seq} for journal {} does not serialise to a single line", path.display())]
    NotOneLine { path: PathBuf, seq: u64 },
    /// A complete line that is not a valid record.
    #[error("journal {} line {line} is not a valid record: {message}", path.display())]
    Corrupt {
        path: PathBuf,
        line: usize,
        /// serde's description of what is wrong.
        message: String,
    },
    #[error(
        "journal {} line {line} was written by a newer quorum (format v{found}, this build reads up to v{supported}): upgrade quorum to open this debate",
        path.display()
    )]
    NewerVersion {
        path: PathBuf,
        line: usize,
        found: u32,
        supported: u32,
    },
    #[error(
        "journal {} line {line}: seq {found} does not follow seq {previous}",
        path.display()
    )]
    SeqNotIncreasing {
        path: PathBuf,
        line: usize,
        previous: u64,
        found: u64,
    },
    /// `open_append` found a torn last line; appending would glue a record to it.
    #[error(
        "journal {} line {line} is an incomplete record; cut it (as resume does) before appending",
        path.display()
    )]
    UnterminatedTail { path: PathBuf, line: usize },
    /// `truncate_torn_tail` found the end of the file different from what was read.
    #[error(
        "journal {} changed since it was read: torn line {line} is no longer at its end",
        path.display()
    )]
    TailMismatch { path: PathBuf, line: usize },
    /// An earlier append failed part-way; what reached the disk is unknown.
    #[error(
        "an earlier write to journal {} failed; reopen it (resume) to continue",
        path.display()
    )]
    Broken { path: PathBuf },
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> JournalError {
    let path = path.to_path_buf();
    move |source| JournalError::Io {
        action,
        path,
        source,
    }
}

/// serde's message for an error inside one journal line. serde_json counts
/// lines within the text it was given, always line 1 here, which would read as
/// a contradiction next to the journal line number; keep only the column.
fn describe_within_line(err: &serde_json::Error) -> String {
    let message = err.to_string();
    let position = format!(" at line {} column {}", err.line(), err.column());
    match message.strip_suffix(&position) {
        Some(what) => format!("{what} (column {})", err.column()),
        None => message,
    }
}

/// The writing end of a journal file.
#[derive(Debug)]
pub struct Journal {
    file: File,
    next_seq: u64,
    path: PathBuf,
    fsync_count: u64,
    /// Records written since the last sync.
    unsynced: bool,
    /// Set when an append failed part-way; further appends are refused.
    broken: bool,
    /// See [`STOP_AFTER_RECORD_ENV`].
    #[cfg(feature = "crash-test")]
    stop_after: Option<TestStop>,
    /// Time of the last record this handle appended.
    last_at: Option<DateTime<Utc>>,
}

/// Crash-test hook: when this environment variable holds a seq, the process
/// stops itself (SIGSTOP) right after that record is written, so a test
/// harness can `kill -9` it at an exact point of a debate; `busy:SEQ`
/// instead keeps the thread busy there for good, as an engine stuck in
/// endless work would (the signal backstop's test). Only a build with the
/// `crash-test` feature has the hook: the test builds (the package lists
/// itself as a dev-dependency with it), never a build people run.
pub const STOP_AFTER_RECORD_ENV: &str = "QUORUM_TEST_STOP_AFTER_RECORD";

/// What the crash-test hook does at its record.
#[cfg(feature = "crash-test")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TestStop {
    Stop(u64),
    Busy(u64),
}

#[cfg(feature = "crash-test")]
impl TestStop {
    fn seq(self) -> u64 {
        match self {
            TestStop::Stop(seq) | TestStop::Busy(seq) => seq,
        }
    }
}

#[cfg(feature = "crash-test")]
fn stop_after_from_env() -> Option<TestStop> {
    let value = std::env::var(STOP_AFTER_RECORD_ENV).ok()?;
    match value.trim().strip_prefix("busy:") {
        Some(seq) => seq.parse().ok().map(TestStop::Busy),
        None => value.trim().parse().ok().map(TestStop::Stop),
    }
}

/// Stops this process until it is killed or continued, or keeps its
/// thread busy for good.
#[cfg(feature = "crash-test")]
fn crash_test_stop(how: TestStop) {
    match how {
        // SAFETY: raise only sends a signal to the calling process.
        TestStop::Stop(_) => unsafe {
            libc::raise(libc::SIGSTOP);
        },
        TestStop::Busy(_) => loop {
            std::hint::spin_loop();
        },
    }
}

impl Journal {
    /// A journal that appends to `file`, at `path`, from `next_seq` on, with
    /// nothing written or synced yet.
    fn appending(file: File, path: &Path, next_seq: u64) -> Journal {
        Journal {
            file,
            next_seq,
            path: path.to_path_buf(),
            fsync_count: 0,
            unsynced: false,
            broken: false,
            #[cfg(feature = "crash-test")]
            stop_after: stop_after_from_env(),
            last_at: None,
        }
    }

    /// Creates a new, empty journal; fails if the file exists. The file and
    /// its folder entry are fsynced, so the journal's existence is durable.
    pub fn create(path: &Path) -> Result<Journal, JournalError> {
        let file = open_regular(path, OpenOptions::new().append(true).create_new(true))
            .map_err(io_error("create", path))?;
        let mut journal = Journal::appending(file, path, FIRST_SEQ);
        journal.file.sync_all().map_err(io_error("sync", path))?;
        journal.fsync_count += 1;
        let folder = path.parent().unwrap_or(Path::new("."));
        sync_dir(folder).map_err(io_error("sync the folder of", path))?;
        journal.fsync_count += 1;
        Ok(journal)
    }

    /// Opens an existing journal to append records from `next_seq` on
    /// (usually [`JournalContents::next_seq`] after [`read_journal`] and
    /// [`truncate_torn_tail`]).
    ///
    /// Refuses a file whose last line is an incomplete record, and a
    /// `next_seq` not above the last record's seq. A last record that is
    /// complete but lacks its `\n` (a crash between the two) gets the `\n`.
    pub fn open_append(path: &Path, next_seq: u64) -> Result<Journal, JournalError> {
        let mut file = open_regular(path, OpenOptions::new().read(true).append(true))
            .map_err(io_error("open", path))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(io_error("read", path))?;
        let mut journal = Journal::appending(file, path, next_seq);

        let terminated_len = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let complete_lines = bytes[..terminated_len]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        let unterminated = &bytes[terminated_len..];
        let (last_line, last_raw) = if !unterminated.is_empty() {
            (complete_lines + 1, unterminated)
        } else if terminated_len > 0 {
            let body = &bytes[..terminated_len - 1];
            let start = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            (complete_lines, &body[start..])
        } else {
            return Ok(journal);
        };

        let last: Record<IgnoredAny> = match serde_json::from_slice(last_raw) {
            Ok(record) => record,
            Err(_) if !unterminated.is_empty() => {
                return Err(JournalError::UnterminatedTail {
                    path: journal.path,
                    line: last_line,
                });
            }
            Err(err) => {
                return Err(JournalError::Corrupt {
                    path: journal.path,
                    line: last_line,
                    message: describe_within_line(&err),
                });
            }
        };
        if next_seq <= last.seq {
            return Err(JournalError::SeqNotIncreasing {
                path: journal.path,
                line: last_line + 1,
                previous: last.seq,
                found: next_seq,
            });
        }
        if !unterminated.is_empty() {
            journal
                .file
                .write_all(b"\n")
                .and_then(|()| journal.file.sync_data())
                .map_err(io_error("repair the last line of", path))?;
            journal.fsync_count += 1;
        }
        Ok(journal)
    }

    /// Appends `event` as one line and makes it durable before returning its
    /// seq. After a failed append the journal refuses further appends.
    pub fn append<E: Serialize>(
        &mut self,
        at: DateTime<Utc>,
        event: &E,
    ) -> Result<u64, JournalError> {
        self.write_record(at, event, true)
    }

    /// Appends `event` without waiting for the disk: for records whose loss
    /// in a crash costs nothing (streamed text kept for replay). The next
    /// [`append`](Self::append) makes it durable along with its own record.
    pub fn append_unsynced<E: Serialize>(
        &mut self,
        at: DateTime<Utc>,
        event: &E,
    ) -> Result<u64, JournalError> {
        self.write_record(at, event, false)
    }

    /// Makes every record appended so far durable; nothing to do when the
    /// last append was durable already.
    pub fn sync(&mut self) -> Result<(), JournalError> {
        if !self.unsynced {
            return Ok(());
        }
        if self.broken {
            return Err(JournalError::Broken {
                path: self.path.clone(),
            });
        }
        if let Err(source) = self.file.sync_data() {
            self.broken = true;
            return Err(io_error("sync", &self.path)(source));
        }
        self.fsync_count += 1;
        self.unsynced = false;
        Ok(())
    }

    fn write_record<E: Serialize>(
        &mut self,
        at: DateTime<Utc>,
        event: &E,
        durable: bool,
    ) -> Result<u64, JournalError> {
        if self.broken {
            return Err(JournalError::Broken {
                path: self.path.clone(),
            });
        }
        let seq = self.next_seq;
        let record = Record {
            v: JOURNAL_VERSION,
            seq,
            at,
            event,
        };
        let mut line =
            serde_json::to_string(&record).map_err(|source| JournalError::Serialize {
                path: self.path.clone(),
                seq,
                source,
            })?;
        if line.contains('\n') {
            return Err(JournalError::NotOneLine {
                path: self.path.clone(),
                seq,
            });
        }
        line.push('\n');
        // A key an agent echoed is masked here too, whatever road it took.
        let line = crate::secrets::mask_bytes(line.as_bytes());
        let written = self.file.write_all(&line).and_then(|()| {
            if durable {
                self.file.sync_data()
            } else {
                Ok(())
            }
        });
        if let Err(source) = written {
            self.broken = true;
            return Err(io_error("append to", &self.path)(source));
        }
        if durable {
            self.fsync_count += 1;
        }
        self.unsynced = !durable;
        self.next_seq += 1;
        self.last_at = Some(at);
        #[cfg(feature = "crash-test")]
        if let Some(how) = self.stop_after
            && how.seq() == seq
        {
            crash_test_stop(how);
        }
        Ok(seq)
    }

    /// When the last record this handle appended was stamped.
    pub fn last_at(&self) -> Option<DateTime<Utc>> {
        self.last_at
    }

    /// The seq the next [`append`](Self::append) will use.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// fsyncs this handle has issued: two on `create` (file and folder), one
    /// per append, one if `open_append` had to end the last line.
    pub fn fsync_count(&self) -> u64 {
        self.fsync_count
    }
}

/// The largest journal quorum reads back, in bytes: far above what any
/// debate writes (a review of 1,000 items journals a few MiB), and a bound
/// on what an edited or planted one can cost.
pub const JOURNAL_LIMIT_BYTES: u64 = 256 << 20;

/// Reads every record of a journal, checking versions and seq order; one
/// larger than [`JOURNAL_LIMIT_BYTES`] is refused before it is read.
///
/// A last line without `\n` that does not parse is reported as
/// [`JournalContents::torn_tail`] and left out; one that parses is a record.
pub fn read_journal<E: DeserializeOwned>(path: &Path) -> Result<JournalContents<E>, JournalError> {
    let file = open_regular(path, OpenOptions::new().read(true))
        .and_then(|file| {
            let size = file.metadata()?.len();
            if size > JOURNAL_LIMIT_BYTES {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "it is {}, more than a journal may be ({})",
                        crate::text::bytes(size),
                        crate::text::bytes(JOURNAL_LIMIT_BYTES)
                    ),
                ));
            }
            Ok(file)
        })
        .map_err(io_error("read", path))?;
    // Line by line: a record's bytes are let go once it is parsed, so
    // reading never holds the journal twice (its text and its records).
    let mut reader = std::io::BufReader::new(file.take(JOURNAL_LIMIT_BYTES));
    let mut contents = JournalContents {
        records: Vec::new(),
        torn_tail: None,
    };
    let mut raw = Vec::new();
    for line in 1.. {
        raw.clear();
        std::io::BufRead::read_until(&mut reader, b'\n', &mut raw)
            .map_err(io_error("read", path))?;
        let terminated = raw.last() == Some(&b'\n');
        if terminated {
            raw.pop();
        } else if raw.is_empty() {
            break;
        }
        parse_line(&mut contents, &raw, line, terminated, path)?;
        if !terminated || contents.torn_tail.is_some() {
            break;
        }
    }
    Ok(contents)
}

/// [`read_journal`] of `bytes` already read from `path` (named in errors).
pub fn parse_journal<E: DeserializeOwned>(
    bytes: &[u8],
    path: &Path,
) -> Result<JournalContents<E>, JournalError> {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    let mut contents = JournalContents {
        records: Vec::new(),
        torn_tail: None,
    };
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let terminated = index < newlines;
        if !terminated && raw.is_empty() {
            break;
        }
        parse_line(&mut contents, raw, index + 1, terminated, path)?;
        if contents.torn_tail.is_some() {
            break;
        }
    }
    Ok(contents)
}

/// Reads `raw`, the journal's `line` (`terminated` by a newline or the
/// file's last), into `contents`: a record, or the torn tail.
fn parse_line<E: DeserializeOwned>(
    contents: &mut JournalContents<E>,
    raw: &[u8],
    line: usize,
    terminated: bool,
    path: &Path,
) -> Result<(), JournalError> {
    let newer_version = |found| JournalError::NewerVersion {
        path: path.to_path_buf(),
        line,
        found,
        supported: JOURNAL_VERSION,
    };
    let record: Record<E> = match serde_json::from_slice(raw) {
        Ok(record) => record,
        Err(err) => {
            // A newer format may not parse as today's events: say so first.
            if let Ok(probe) = serde_json::from_slice::<VersionProbe>(raw)
                && probe.v > JOURNAL_VERSION
            {
                return Err(newer_version(probe.v));
            }
            if terminated {
                return Err(JournalError::Corrupt {
                    path: path.to_path_buf(),
                    line,
                    message: describe_within_line(&err),
                });
            }
            contents.torn_tail = Some(TornTail {
                line,
                bytes: raw.len(),
            });
            return Ok(());
        }
    };
    if record.v > JOURNAL_VERSION {
        return Err(newer_version(record.v));
    }
    if let Some(previous) = contents.records.last()
        && record.seq <= previous.seq
    {
        return Err(JournalError::SeqNotIncreasing {
            path: path.to_path_buf(),
            line,
            previous: previous.seq,
            found: record.seq,
        });
    }
    contents.records.push(record);
    Ok(())
}

/// Cuts `tail` (as reported by [`read_journal`]) off the end of the journal,
/// leaving it ending after its last complete line, and fsyncs the file.
/// Refuses if the end of the file no longer matches `tail`.
pub fn truncate_torn_tail(path: &Path, tail: &TornTail) -> Result<(), JournalError> {
    let mismatch = || JournalError::TailMismatch {
        path: path.to_path_buf(),
        line: tail.line,
    };
    let mut file = open_regular(path, OpenOptions::new().read(true).write(true))
        .map_err(io_error("open", path))?;
    let len = file.metadata().map_err(io_error("inspect", path))?.len();
    let cut = u64::try_from(tail.bytes)
        .ok()
        .and_then(|bytes| len.checked_sub(bytes))
        .ok_or_else(mismatch)?;
    // Read the torn bytes and the byte before them, which must end a line.
    let mut end = Vec::with_capacity(tail.bytes + 1);
    file.seek(SeekFrom::Start(cut.saturating_sub(1)))
        .and_then(|_| file.read_to_end(&mut end))
        .map_err(io_error("read", path))?;
    let torn = if cut == 0 {
        &end[..]
    } else {
        match end.split_first() {
            Some((b'\n', torn)) => torn,
            _ => return Err(mismatch()),
        }
    };
    if torn.len() != tail.bytes || torn.contains(&b'\n') {
        return Err(mismatch());
    }
    file.set_len(cut)
        .and_then(|()| file.sync_all())
        .map_err(io_error("truncate", path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use std::fs;

    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum TestEvent {
        Started { topic: String },
        AgentFinished { call_id: String, text: String },
    }

    fn at(second: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, 14, 25, second).unwrap()
    }

    fn started(topic: &str) -> TestEvent {
        TestEvent::Started {
            topic: topic.to_owned(),
        }
    }

    /// A journal with three records, returned with its folder and path.
    fn journal_with_three_records() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        let mut journal = Journal::create(&path).unwrap();
        for (second, topic) in [(1, "one"), (2, "two"), (3, "three")] {
            journal.append(at(second), &started(topic)).unwrap();
        }
        (tmp, path)
    }

    fn record_line(v: u32, seq: u64, topic: &str) -> String {
        let record = Record {
            v,
            seq,
            at: at(0),
            event: started(topic),
        };
        serde_json::to_string(&record).unwrap() + "\n"
    }

    fn append_raw(path: &Path, bytes: &[u8]) {
        OpenOptions::new()
            .append(true)
            .open(path)
            .unwrap()
            .write_all(bytes)
            .unwrap();
    }

    #[test]
    fn append_and_read_round_trip() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        let mut journal = Journal::create(&path).unwrap();
        let events = [
            started("Billing → event sourcing?"),
            TestEvent::AgentFinished {
                call_id: "judge.analyst/evaluation/r1/a1".into(),
                text: "line one\nline two\r\n\u{1b}[31m\0 \"quoted\"".into(),
            },
        ];
        assert_eq!(journal.append(at(1), &events[0]).unwrap(), 1);
        assert_eq!(journal.append(at(2), &events[1]).unwrap(), 2);
        assert_eq!(journal.next_seq(), 3);

        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert!(text.ends_with('\n'));

        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        assert_eq!(contents.torn_tail, None);
        assert_eq!(contents.next_seq(), 3);
        let expected: Vec<Record<TestEvent>> = events
            .iter()
            .zip(1..)
            .map(|(event, seq)| Record {
                v: JOURNAL_VERSION,
                seq,
                at: at(seq as u32),
                event: event.clone(),
            })
            .collect();
        assert_eq!(contents.records, expected);
    }

    #[test]
    fn empty_journal_reads_as_no_records() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        Journal::create(&path).unwrap();
        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        assert!(contents.records.is_empty());
        assert_eq!(contents.torn_tail, None);
        assert_eq!(contents.next_seq(), FIRST_SEQ);
    }

    #[test]
    fn create_refuses_an_existing_file() {
        let (_tmp, path) = journal_with_three_records();
        let err = Journal::create(&path).unwrap_err();
        assert!(matches!(err, JournalError::Io { .. }), "{err}");
        assert!(err.to_string().contains("journal.jsonl"), "{err}");
        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        assert_eq!(contents.records.len(), 3);
    }

    #[test]
    fn fsync_count_is_two_for_create_and_one_per_append() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        let mut journal = Journal::create(&path).unwrap();
        assert_eq!(journal.fsync_count(), 2);
        for second in 0..5 {
            journal.append(at(second), &started("x")).unwrap();
        }
        assert_eq!(journal.fsync_count(), 7);
        drop(journal);

        let mut reopened = Journal::open_append(&path, 6).unwrap();
        assert_eq!(reopened.fsync_count(), 0);
        reopened.append(at(9), &started("y")).unwrap();
        assert_eq!(reopened.fsync_count(), 1);
    }

    #[test]
    fn unsynced_records_take_a_seq_but_no_fsync_of_their_own() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        let mut journal = Journal::create(&path).unwrap();
        assert_eq!(journal.last_at(), None);
        assert_eq!(
            journal.append_unsynced(at(1), &started("chunk")).unwrap(),
            1
        );
        assert_eq!(
            journal.append_unsynced(at(2), &started("chunk")).unwrap(),
            2
        );
        assert_eq!(journal.fsync_count(), 2, "only create's two");
        assert_eq!(journal.append(at(3), &started("input")).unwrap(), 3);
        assert_eq!(journal.fsync_count(), 3);
        assert_eq!(journal.last_at(), Some(at(3)));
        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        let seqs: Vec<u64> = contents.records.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, [1, 2, 3]);
    }

    #[test]
    fn sync_makes_unsynced_records_durable_once() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        let mut journal = Journal::create(&path).unwrap();
        journal.sync().unwrap();
        assert_eq!(journal.fsync_count(), 2, "nothing to sync after create");
        journal.append_unsynced(at(1), &started("a")).unwrap();
        journal.append_unsynced(at(2), &started("b")).unwrap();
        journal.sync().unwrap();
        journal.sync().unwrap();
        assert_eq!(journal.fsync_count(), 3, "one sync for both records");
        journal.append(at(3), &started("c")).unwrap();
        journal.sync().unwrap();
        assert_eq!(
            journal.fsync_count(),
            4,
            "a durable append leaves nothing to sync"
        );
    }

    #[test]
    fn torn_tail_is_reported_truncated_and_appending_resumes() {
        let (_tmp, path) = journal_with_three_records();
        let intact = fs::read(&path).unwrap();
        let torn = br#"{"v":1,"seq":4,"at":"2026-11-30T14:2"#;
        append_raw(&path, torn);

        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        assert_eq!(contents.records.len(), 3);
        let tail = contents.torn_tail.unwrap();
        assert_eq!(
            tail,
            TornTail {
                line: 4,
                bytes: torn.len()
            }
        );

        let err = Journal::open_append(&path, contents.next_seq()).unwrap_err();
        assert!(
            matches!(err, JournalError::UnterminatedTail { line: 4, .. }),
            "{err}"
        );

        truncate_torn_tail(&path, &tail).unwrap();
        assert_eq!(fs::read(&path).unwrap(), intact);

        let mut journal = Journal::open_append(&path, contents.next_seq()).unwrap();
        assert_eq!(journal.append(at(4), &started("four")).unwrap(), 4);
        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        assert_eq!(contents.torn_tail, None);
        let seqs: Vec<u64> = contents.records.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, [1, 2, 3, 4]);
    }

    #[test]
    fn a_torn_first_line_truncates_to_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        Journal::create(&path).unwrap();
        append_raw(&path, b"{\"v\":1,\"se");
        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        let tail = contents.torn_tail.unwrap();
        assert_eq!(tail, TornTail { line: 1, bytes: 10 });
        truncate_torn_tail(&path, &tail).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"");
    }

    #[test]
    fn truncate_refuses_when_the_file_changed() {
        let (_tmp, path) = journal_with_three_records();
        append_raw(&path, b"{\"v\":1");
        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        let tail = contents.torn_tail.unwrap();
        append_raw(&path, b",\"seq\":4}\n");
        let before = fs::read(&path).unwrap();
        let err = truncate_torn_tail(&path, &tail).unwrap_err();
        assert!(matches!(err, JournalError::TailMismatch { .. }), "{err}");
        assert_eq!(fs::read(&path).unwrap(), before);
    }

    #[test]
    fn a_complete_last_record_without_newline_is_kept_and_repaired() {
        let (_tmp, path) = journal_with_three_records();
        let line = record_line(1, 4, "four");
        append_raw(&path, line.trim_end().as_bytes());

        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        assert_eq!(contents.torn_tail, None);
        assert_eq!(contents.records.len(), 4);

        let mut journal = Journal::open_append(&path, contents.next_seq()).unwrap();
        assert_eq!(journal.fsync_count(), 1);
        journal.append(at(5), &started("five")).unwrap();
        let contents: JournalContents<TestEvent> = read_journal(&path).unwrap();
        let seqs: Vec<u64> = contents.records.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_corrupt_middle_line_is_an_error_with_its_line_number() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        let text = record_line(1, 1, "one")
            + "{\"v\":1,\"seq\":2,\"at\":nope}\n"
            + &record_line(1, 3, "three");
        fs::write(&path, text).unwrap();
        let err = read_journal::<TestEvent>(&path).unwrap_err();
        assert!(
            matches!(err, JournalError::Corrupt { line: 2, .. }),
            "{err}"
        );
        let message = err.to_string();
        assert!(message.contains("journal.jsonl"), "{message}");
        assert!(message.contains("line 2"), "{message}");
        assert!(
            message.ends_with("is not a valid record: expected ident (column 22)"),
            "{message}"
        );
    }

    #[test]
    fn a_complete_last_line_that_does_not_parse_is_an_error_not_a_torn_tail() {
        let (_tmp, path) = journal_with_three_records();
        append_raw(&path, b"{\"v\":1,\"seq\":4,\"at\":\"2026-11-30T14:25:04Z\",\"event\":{\"type\":\"unknown\"}}\n");
        let err = read_journal::<TestEvent>(&path).unwrap_err();
        assert!(
            matches!(err, JournalError::Corrupt { line: 4, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("unknown variant"), "{err}");
    }

    #[test]
    fn a_newer_version_asks_the_user_to_upgrade() {
        let (_tmp, path) = journal_with_three_records();
        // A future record whose event this build cannot even parse.
        append_raw(
            &path,
            b"{\"v\":2,\"seq\":4,\"at\":\"2026-11-30T14:25:04Z\",\"event\":{\"type\":\"hologram\"}}\n",
        );
        let err = read_journal::<TestEvent>(&path).unwrap_err();
        match &err {
            JournalError::NewerVersion {
                line,
                found,
                supported,
                ..
            } => assert_eq!((*line, *found, *supported), (4, 2, JOURNAL_VERSION)),
            other => panic!("unexpected {other}"),
        }
        let message = err.to_string();
        assert!(message.contains("upgrade quorum"), "{message}");
        assert!(message.contains("journal.jsonl line 4"), "{message}");
    }

    #[test]
    fn a_newer_version_that_parses_is_still_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        fs::write(&path, record_line(1, 1, "one") + &record_line(7, 2, "two")).unwrap();
        let err = read_journal::<TestEvent>(&path).unwrap_err();
        assert!(
            matches!(
                err,
                JournalError::NewerVersion {
                    line: 2,
                    found: 7,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn seq_must_strictly_increase() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        for (seqs, bad_line, previous, found) in [([1, 3, 2], 3, 3, 2), ([1, 1, 2], 2, 1, 1)] {
            let text: String = seqs.iter().map(|&seq| record_line(1, seq, "x")).collect();
            fs::write(&path, text).unwrap();
            let err = read_journal::<TestEvent>(&path).unwrap_err();
            match &err {
                JournalError::SeqNotIncreasing {
                    line,
                    previous: p,
                    found: f,
                    ..
                } => assert_eq!((*line, *p, *f), (bad_line, previous, found)),
                other => panic!("{seqs:?}: unexpected {other}"),
            }
            assert!(
                err.to_string().contains(&format!("line {bad_line}")),
                "{err}"
            );
        }
    }

    #[test]
    fn open_append_refuses_a_seq_that_does_not_follow() {
        let (_tmp, path) = journal_with_three_records();
        for next_seq in [1, 3] {
            let err = Journal::open_append(&path, next_seq).unwrap_err();
            assert!(
                matches!(
                    err,
                    JournalError::SeqNotIncreasing {
                        line: 4,
                        previous: 3,
                        ..
                    }
                ),
                "{err}"
            );
        }
        let mut journal = Journal::open_append(&path, 4).unwrap();
        assert_eq!(journal.append(at(4), &started("four")).unwrap(), 4);
    }

    #[test]
    fn open_append_on_a_missing_file_names_it() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        let err = Journal::open_append(&path, FIRST_SEQ).unwrap_err();
        assert!(matches!(err, JournalError::Io { .. }), "{err}");
        assert!(err.to_string().contains("journal.jsonl"), "{err}");
    }

    #[test]
    fn events_that_fail_to_serialise_leave_the_journal_usable() {
        use std::collections::HashMap;
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        let mut journal = Journal::create(&path).unwrap();
        let bad: HashMap<(u8, u8), u8> = HashMap::from([((1, 2), 3)]);
        let err = journal.append(at(0), &bad).unwrap_err();
        assert!(
            matches!(err, JournalError::Serialize { seq: 1, .. }),
            "{err}"
        );
        assert_eq!(journal.append(at(1), &started("ok")).unwrap(), 1);
    }
}
