//! One writer per debate: an advisory lock on `quorum.lock` in the debate's
//! folder, held for as long as a process may write the debate.
//!
//! The lock is the kernel's (`flock` through [`File::try_lock`]), so it dies
//! with its process: a debate whose writer was killed, even with kill -9,
//! is free again at once. The file itself says who holds it (pid, host, when,
//! what), for the error a second process shows; a file left behind by a dead
//! process is a stale lock, recovered and reported. The holder removes the
//! file when it lets go.
//!
//! Not responsible for what the holder writes.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The lock's file name inside a debate's folder.
pub const LOCK_FILE: &str = "quorum.lock";

/// Attempts at taking the lock when the file is replaced under us (its
/// holder let go and removed it between our open and our lock), or when a
/// reader is looking at it ([`DebateLock::holder`]).
const LOCK_ATTEMPTS: usize = 5;

/// Pause between attempts, in milliseconds: a reader's look lasts
/// microseconds, a writer's hold the whole debate.
const LOCK_RETRY_MS: u64 = 20;

/// How much of a lock file is read to say who holds it, in bytes: the
/// four lines a holder writes fit many times over.
const HOLDER_TEXT_BYTES: u64 = 4096;

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "another quorum is writing this debate ({holder}); wait for it to finish, or stop it first ({})",
        path.display()
    )]
    Held { path: PathBuf, holder: String },
    #[error("cannot lock {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// The held lock; dropping it removes the file and lets go.
#[derive(Debug)]
pub struct DebateLock {
    file: File,
    path: PathBuf,
    /// Who held the lock before, when their process had died without
    /// letting go.
    stale: Option<String>,
}

impl DebateLock {
    /// Takes the lock of the debate in `dir`, for `purpose` (shown to a
    /// second process: `quorum resume`, `quorum open --resolve`).
    pub fn acquire(dir: &Path, purpose: &str) -> Result<DebateLock, LockError> {
        let path = dir.join(LOCK_FILE);
        let io_error = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        for attempt in 0..LOCK_ATTEMPTS {
            let mut file = super::fs::open_lock_file(&path).map_err(io_error)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) if attempt + 1 < LOCK_ATTEMPTS => {
                    std::thread::sleep(std::time::Duration::from_millis(LOCK_RETRY_MS));
                    continue;
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(LockError::Held {
                        path,
                        holder: describe(&read_holder(&mut file)),
                    });
                }
                Err(fs::TryLockError::Error(source)) => return Err(io_error(source)),
            }
            if !same_file(&file, &path) {
                // The holder removed the file between our open and our lock.
                continue;
            }
            let previous = read_holder(&mut file);
            let holder = format!(
                "pid {}\nhost {}\nsince {}\nfor {purpose}\n",
                std::process::id(),
                hostname(),
                chrono::Local::now().format("%Y-%m-%d %H:%M:%S"),
            );
            file.set_len(0)
                .and_then(|()| {
                    use std::io::Seek;
                    file.seek(io::SeekFrom::Start(0))
                })
                .and_then(|_| file.write_all(holder.as_bytes()))
                .and_then(|()| file.sync_data())
                .map_err(io_error)?;
            let stale = (!previous.trim().is_empty()).then(|| describe(&previous));
            return Ok(DebateLock { file, path, stale });
        }
        Err(LockError::Held {
            holder: "its lock file keeps changing".into(),
            path,
        })
    }

    /// The holder a stale lock named, when one was recovered.
    pub fn recovered_stale(&self) -> Option<&str> {
        self.stale.as_deref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Who holds the lock of the debate in `dir` right now, if anyone. The
    /// look takes a shared lock for an instant; a writer starting at that
    /// very moment tries again ([`LOCK_RETRY_MS`]).
    pub fn holder(dir: &Path) -> Option<String> {
        let path = dir.join(LOCK_FILE);
        let mut file = super::fs::open_regular(&path, OpenOptions::new().read(true)).ok()?;
        match file.try_lock_shared() {
            Ok(()) => None,
            Err(_) => Some(describe(&read_holder(&mut file))),
        }
    }
}

impl Drop for DebateLock {
    fn drop(&mut self) {
        // Remove while still holding, so nobody locks a file on its way out.
        let _ = fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// What a lock file says about its holder: its first
/// [`HOLDER_TEXT_BYTES`], which is all a holder writes (a file left by
/// someone else may be any size).
fn read_holder(file: &mut File) -> String {
    use std::io::Seek;
    let mut bytes = Vec::new();
    let _ = file.seek(io::SeekFrom::Start(0));
    let _ = Read::by_ref(file)
        .take(HOLDER_TEXT_BYTES)
        .read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `pid 4242 on build-1 since 2026-11-30 10:42:03 (quorum resume)` from the
/// file's lines.
fn describe(contents: &str) -> String {
    let field = |name: &str| {
        contents.lines().find_map(|line| {
            line.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix(' '))
                .map(str::trim)
        })
    };
    match field("pid") {
        Some(pid) => {
            let mut text = format!("pid {pid}");
            if let Some(host) = field("host") {
                text.push_str(&format!(" on {host}"));
            }
            if let Some(since) = field("since") {
                text.push_str(&format!(" since {since}"));
            }
            if let Some(purpose) = field("for") {
                text.push_str(&format!(" ({purpose})"));
            }
            text
        }
        None => "a process that did not say who it is".into(),
    }
}

/// The file open as `file` is still the one at `path`.
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

fn hostname() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| fs::read_to_string("/etc/hostname"))
        .map(|name| name.trim().to_string())
        .unwrap_or_else(|_| "this machine".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_with_the_first_ones_name() {
        let tmp = tempfile::tempdir().unwrap();
        let first = DebateLock::acquire(tmp.path(), "quorum resume").unwrap();
        assert!(first.recovered_stale().is_none());
        let error = DebateLock::acquire(tmp.path(), "quorum open").unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains(&format!("pid {}", std::process::id())),
            "{message}"
        );
        assert!(message.contains("(quorum resume)"), "{message}");
        assert!(DebateLock::holder(tmp.path()).is_some());
        drop(first);
        assert!(!tmp.path().join(LOCK_FILE).exists());
        assert!(DebateLock::holder(tmp.path()).is_none());
        DebateLock::acquire(tmp.path(), "quorum open").unwrap();
    }

    #[test]
    fn a_reader_looking_at_the_lock_does_not_turn_a_writer_away() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(LOCK_FILE);
        fs::write(&path, "").unwrap();
        let reader = File::open(&path).unwrap();
        reader.try_lock_shared().unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(LOCK_RETRY_MS));
            reader.unlock().unwrap();
        });
        DebateLock::acquire(tmp.path(), "quorum resume").unwrap();
        release.join().unwrap();
    }

    #[test]
    fn a_lock_file_left_by_a_dead_process_is_recovered_and_reported() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(
            tmp.path().join(LOCK_FILE),
            "pid 999999\nhost elsewhere\nsince 2026-11-29 23:59:00\nfor quorum run\n",
        )
        .unwrap();
        assert!(DebateLock::holder(tmp.path()).is_none());
        let lock = DebateLock::acquire(tmp.path(), "quorum resume").unwrap();
        assert_eq!(
            lock.recovered_stale(),
            Some("pid 999999 on elsewhere since 2026-11-29 23:59:00 (quorum run)")
        );
        let written = fs::read_to_string(lock.path()).unwrap();
        assert!(written.starts_with(&format!("pid {}\n", std::process::id())));
    }
}
