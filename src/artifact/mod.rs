//! The artifact layer: everything quorum puts on disk, made crash-safe.
//!
//! Responsible for:
//! - atomic files: a file is replaced whole or not at all, and is durable once
//!   the write returns (temp file in the same folder, fsync, rename, fsync the
//!   folder), via [`write_atomic`] and [`RunDir::write`];
//! - safe paths: one [`RunDir`] per debate, named by a sanitised
//!   [`topic_slug`], and every path inside it checked by [`RunDir::resolve`],
//!   so no slug or model text can name a file outside it;
//! - the journal: an append-only, per-event fsynced JSON-lines log
//!   ([`Journal`], [`read_journal`]) that is the source of truth for resume,
//!   with torn-tail detection and repair after a crash.
//!
//! Not responsible for: what goes into the files (rendering markdown, YAML and
//! transcripts is done by the engine and its renderers), which events exist
//! (the journal is generic over the caller's event type), or when to write
//! (persist-on-collect is the engine's rule).

mod fs;
mod journal;
mod lock;
mod slug;

pub(crate) use fs::side_by_side;
pub use fs::{
    ArtifactError, MAX_RUN_DIR_ATTEMPTS, RunDir, open_lock_file, open_regular, publish,
    publish_within, read_regular, write_atomic,
};
pub use journal::{
    FIRST_SEQ, JOURNAL_VERSION, Journal, JournalContents, JournalError, Record,
    STOP_AFTER_RECORD_ENV, TornTail, parse_journal, read_journal, truncate_torn_tail,
};
pub use lock::{DebateLock, LOCK_FILE, LockError};
pub use slug::{FALLBACK_SLUG, MAX_SLUG_CHARS, topic_slug};
