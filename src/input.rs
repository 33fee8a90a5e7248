//! Reading what a person hands quorum (a spec, a configuration, a theme, a
//! script, a prompt, a context file): bounded, typed and located.
//!
//! Every file is read through [`read_text`] with a limit of its kind: a
//! regular file larger than the limit is refused before it is read; a pipe
//! (`--context <(git diff)`) is read up to the limit and refused beyond it;
//! anything else (a directory, `/dev/zero`, a socket) is refused at once.
//! Each error names the file, and for size what the limit is and how to
//! raise it where it can be raised.
//!
//! Not responsible for what the text means (the readers of each kind), nor
//! for the journal, which quorum writes itself.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A spec file.
pub const SPEC_LIMIT: u64 = 1 << 20;
/// A configuration file.
pub const CONFIG_LIMIT: u64 = 1 << 20;
/// A theme file.
pub const THEME_LIMIT: u64 = 256 << 10;
/// A script of scripted replies.
pub const SCRIPT_LIMIT: u64 = 16 << 20;
/// A prompt template.
pub const PROMPT_LIMIT: u64 = 1 << 20;
/// A root-cause analysis's hypotheses file.
pub const HYPOTHESES_LIMIT: u64 = 4 << 20;
/// One context file, unless `--context-limit` says otherwise.
pub const CONTEXT_LIMIT: u64 = 4 << 20;
/// All the context of one debate together: a multiple of the per-file
/// limit, so raising one raises both.
pub const CONTEXT_FILES_PER_DEBATE: u64 = 4;

/// What a file is for, in errors: `spec`, `context file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    pub name: &'static str,
    pub limit: u64,
    /// How to allow more, when one can: `--context-limit BYTES`.
    pub raise: Option<&'static str>,
}

impl Kind {
    pub const fn new(name: &'static str, limit: u64) -> Self {
        Kind {
            name,
            limit,
            raise: None,
        }
    }
}

/// Why a file could not be read.
#[derive(Debug)]
pub enum InputError {
    /// Not a regular file or a pipe.
    NotAFile { path: PathBuf, what: &'static str },
    /// Larger than its kind allows.
    TooLarge {
        path: PathBuf,
        size: Option<u64>,
        kind: Kind,
    },
    /// Not UTF-8 text.
    NotText { path: PathBuf },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::NotAFile { path, what } => {
                write!(f, "{} is {what}, not a file", path.display())
            }
            InputError::TooLarge { path, size, kind } => {
                match size {
                    Some(size) => write!(
                        f,
                        "{} is {}, more than a {} may be ({})",
                        path.display(),
                        bytes(*size),
                        kind.name,
                        bytes(kind.limit)
                    )?,
                    None => write!(
                        f,
                        "{} gave more than a {} may be ({}); stopped reading",
                        path.display(),
                        kind.name,
                        bytes(kind.limit)
                    )?,
                }
                if let Some(raise) = kind.raise {
                    write!(f, "; {raise} allows more")?;
                }
                Ok(())
            }
            InputError::NotText { path } => write!(f, "{} is not UTF-8 text", path.display()),
            InputError::Io { path, error } => write!(f, "cannot read {}: {error}", path.display()),
        }
    }
}

impl std::error::Error for InputError {}

pub use crate::text::bytes;

/// The text of `path`, if it is a regular file or a pipe within `kind`'s
/// limit.
pub fn read_text(path: &Path, kind: Kind) -> Result<String, InputError> {
    let metadata = std::fs::metadata(path).map_err(io_error(path))?;
    refuse_unreadable(path, &metadata, false)?;
    if metadata.file_type().is_file() && metadata.len() > kind.limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            size: Some(metadata.len()),
            kind,
        });
    }
    if !metadata.file_type().is_file() {
        eprintln!(
            "quorum: reading {} from a pipe; waiting for whoever writes to it",
            path.display()
        );
    }
    let file = std::fs::File::open(path).map_err(io_error(path))?;
    read_within(file, path, kind, metadata.file_type().is_file())
}

/// The text of `path`, a file someone else named: one a spec names
/// (`context[].path`, `hypotheses:`, `draft:`, an option's `path`) or one
/// in a debate's folder (`quorum verdict`): like [`read_text`], but only a
/// regular file will do. A FIFO, socket or device shipped in someone
/// else's spec folder is refused at once, without waiting on it: the file
/// is opened without blocking and checked once open, so it cannot be
/// swapped for a pipe between a look and the read. A pipe the person gives
/// on the command line (`--context <(git diff)`) goes through [`read_text`].
pub fn read_regular_file(path: &Path, kind: Kind) -> Result<String, InputError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io_error(path))?;
    let metadata = file.metadata().map_err(io_error(path))?;
    refuse_unreadable(path, &metadata, true)?;
    if metadata.len() > kind.limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            size: Some(metadata.len()),
            kind,
        });
    }
    read_within(file, path, kind, true)
}

/// What a debate's folder names its neighbours in: `fork.json` (the debate
/// it was forked from) and `from.json` (the debate it took its input from).
/// Far more than either holds (a chained debate's `from.json` carries the
/// items handed on); a bound on what an edited one can cost.
pub const DEBATE_NOTE: Kind = Kind::new("debate's note file", 4 << 20);

/// The text of `name` in the debate folder `dir`, or `None` when there is
/// no such file: a folder from someone else, read like a spec's files and
/// more strictly. `dir` must be a real folder, not a symbolic link; `name`
/// must be a regular file in it, not a link (none is followed, wherever it
/// leads), a FIFO, socket or device (refused once open, without waiting on
/// it); within `kind`'s limit and UTF-8. Each error names the file.
pub fn read_debate_file(dir: &Path, name: &str, kind: Kind) -> Result<Option<String>, InputError> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Err(crate::artifact::ArtifactError::LinkedFolder { .. }) =
        crate::artifact::RunDir::open(dir)
    {
        return Err(InputError::NotAFile {
            path: dir.to_path_buf(),
            what: "a symbolic link to a debate's folder (quorum follows no link to one)",
        });
    }
    let path = dir.join(name);
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path)
    {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) if error.raw_os_error() == Some(libc::ELOOP) => {
            return Err(InputError::NotAFile {
                path,
                what: "a symbolic link (quorum follows no link in a debate's folder)",
            });
        }
        Err(error) => return Err(InputError::Io { path, error }),
    };
    let metadata = file.metadata().map_err(io_error(&path))?;
    refuse_unreadable(&path, &metadata, true)?;
    if metadata.len() > kind.limit {
        return Err(InputError::TooLarge {
            path,
            size: Some(metadata.len()),
            kind,
        });
    }
    read_within(file, &path, kind, true).map(Some)
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> InputError + '_ {
    move |error| InputError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Refuses what is neither a regular file nor, unless `regular_only`, a
/// pipe: a directory, a device, a socket.
fn refuse_unreadable(
    path: &Path,
    metadata: &std::fs::Metadata,
    regular_only: bool,
) -> Result<(), InputError> {
    use std::os::unix::fs::FileTypeExt;
    let file_type = metadata.file_type();
    let what = if file_type.is_file() {
        return Ok(());
    } else if file_type.is_fifo() {
        if !regular_only {
            return Ok(());
        }
        "a named pipe (only a regular file is read here)"
    } else if file_type.is_dir() {
        "a directory"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(InputError::NotAFile {
        path: path.to_path_buf(),
        what,
    })
}

/// Reads `file` up to `kind`'s limit; more than that is refused (with its
/// size when `sized`, a regular file's).
fn read_within(
    file: std::fs::File,
    path: &Path,
    kind: Kind,
    sized: bool,
) -> Result<String, InputError> {
    let mut raw = Vec::new();
    file.take(kind.limit + 1)
        .read_to_end(&mut raw)
        .map_err(io_error(path))?;
    if raw.len() as u64 > kind.limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            size: sized.then_some(raw.len() as u64),
            kind,
        });
    }
    String::from_utf8(raw).map_err(|_| InputError::NotText {
        path: path.to_path_buf(),
    })
}

/// How to let a spec read files outside its folder.
pub const ALLOW_OUTSIDE: &str = "--allow-outside-context";

/// Where `path`, written in a spec in `spec_dir`, points: the spec's folder
/// joined with it, refused when it would leave that folder (an absolute
/// path, `~`, `..`, or a symbolic link leading out), so that someone else's
/// spec cannot send `~/.ssh/id_rsa` to the agents. The error says why, for
/// the caller to name the field.
pub fn in_spec_folder(spec_dir: &Path, path: &Path) -> Result<PathBuf, String> {
    use std::path::Component;
    // `spec.yaml` given bare has the empty path as its parent: the current
    // folder, which must still be resolved for the link check below.
    let spec_dir = if spec_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        spec_dir
    };
    let refuse = |why: &str| {
        Err(format!(
            "`{}` {why}; a spec reads only files in its own folder (give the file with \
             --context, or run with {ALLOW_OUTSIDE})",
            path.display()
        ))
    };
    if path.is_absolute() || path.has_root() {
        return refuse("is an absolute path");
    }
    if path.starts_with("~") {
        return refuse("starts at a home folder");
    }
    if path
        .components()
        .any(|component| matches!(component, Component::ParentDir | Component::Prefix(_)))
    {
        return refuse("climbs out with `..`");
    }
    let joined = spec_dir.join(path);
    // A link inside the folder may still lead out of it, and so may a link
    // to a folder on the way to a file not made yet (an outputs folder):
    // the nearest part of the path that exists is where it really goes.
    let existing = joined.ancestors().find(|part| part.exists());
    if let (Some(Ok(target)), Ok(folder)) =
        (existing.map(Path::canonicalize), spec_dir.canonicalize())
        && !target.starts_with(&folder)
    {
        return refuse("is a link that leads outside the spec's folder");
    }
    Ok(joined)
}

/// `--context-limit`'s value: bytes, or a number with K, M or G (powers of
/// 1024, an optional `iB` or `B` after it): `4M`, `512KiB`, `1048576`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => {
            return Err(format!(
                "`{}` is not a size: write bytes, or a number with K, M or G",
                crate::text::excerpt(trimmed)
            ));
        }
    };
    let value: u64 = number.parse().map_err(|_| {
        format!(
            "`{}` is not a size: write bytes, or a number with K, M or G",
            crate::text::excerpt(trimmed)
        )
    })?;
    match value.checked_mul(1 << shift) {
        Some(0) => Err("a size of 0 would refuse every context file".to_string()),
        Some(size) if size <= 1 << 40 => Ok(size),
        _ => Err(format!(
            "`{}` is more than 1 TiB",
            crate::text::excerpt(trimmed)
        )),
    }
}

/// The largest record `quorum verdict` reads back: far above what any
/// debate writes, and a bound on what an edited file can cost.
pub const RECORD_LIMIT: u64 = 256 << 20;

/// The files of a finished debate, as `quorum verdict` hands them to its
/// protocol. The caller reads them (bounded, regular files inside the
/// debate's folder: [`RecordFolder`]); a protocol only asks
/// for them by name, so recomputing a verdict stays pure.
pub trait RecordFiles {
    /// The text of `relative`, a path inside the debate's folder; `what`
    /// names the file in messages (`judge file`).
    fn read(&self, relative: &str, what: &'static str) -> Result<String, RecordFileError>;
    /// How a file of the debate is named in messages: the folder and
    /// `relative`.
    fn shown(&self, relative: &str) -> String;
}

/// Why a file of a debate did not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordFileError {
    /// There is no such file.
    Missing(String),
    /// It is there but does not read: too large, not a file, outside the
    /// folder, not text.
    Unreadable(String),
}

impl std::fmt::Display for RecordFileError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordFileError::Missing(message) | RecordFileError::Unreadable(message) => {
                formatter.write_str(message)
            }
        }
    }
}

/// The folder of a finished debate, read for `quorum verdict`: each file
/// asked for must lie inside it (no `..`, no link leading out), be a
/// regular file and stay under [`RECORD_LIMIT`].
pub struct RecordFolder {
    dir: PathBuf,
}

impl RecordFolder {
    pub fn new(dir: &Path) -> Self {
        RecordFolder {
            dir: dir.to_path_buf(),
        }
    }
}

impl RecordFiles for RecordFolder {
    fn read(&self, relative: &str, what: &'static str) -> Result<String, RecordFileError> {
        let path =
            in_spec_folder(&self.dir, Path::new(relative)).map_err(RecordFileError::Unreadable)?;
        let kind = Kind::new(what, RECORD_LIMIT);
        read_regular_file(&path, kind).map_err(|error| match &error {
            InputError::Io { error: io, .. } if io.kind() == std::io::ErrorKind::NotFound => {
                RecordFileError::Missing(io.to_string())
            }
            InputError::Io { error: io, .. } => RecordFileError::Unreadable(io.to_string()),
            other => RecordFileError::Unreadable(other.to_string()),
        })
    }

    fn shown(&self, relative: &str) -> String {
        self.dir.join(relative).display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Kind = Kind::new("spec", 16);

    #[test]
    fn a_regular_file_within_its_limit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.yaml");
        std::fs::write(&path, "topic: x\n").unwrap();
        assert_eq!(read_text(&path, SMALL).unwrap(), "topic: x\n");
    }

    #[test]
    fn a_larger_file_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.yaml");
        std::fs::write(&path, "x".repeat(2048)).unwrap();
        let error = read_text(&path, SMALL).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("big.yaml is 2 KiB, more than a spec may be (16 bytes)"),
            "{error}"
        );
        let kind = Kind {
            raise: Some("--context-limit BYTES"),
            ..Kind::new("context file", 16)
        };
        let error = read_text(&path, kind).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("; --context-limit BYTES allows more"),
            "{error}"
        );
    }

    #[test]
    fn devices_and_directories_are_refused_at_once() {
        let error = read_text(Path::new("/dev/zero"), SMALL).unwrap_err();
        assert_eq!(
            error.to_string(),
            "/dev/zero is a character device, not a file"
        );
        let dir = tempfile::tempdir().unwrap();
        let error = read_text(dir.path(), SMALL).unwrap_err();
        assert!(
            error.to_string().ends_with("is a directory, not a file"),
            "{error}"
        );
    }

    #[test]
    fn a_pipe_is_read_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pipe");
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo only creates a file system entry at a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let writer_path = path.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut pipe = std::fs::OpenOptions::new()
                .write(true)
                .open(writer_path)
                .unwrap();
            let _ = pipe.write_all(&[b'y'; 100]);
        });
        let error = read_text(&path, SMALL).unwrap_err();
        writer.join().unwrap();
        assert!(error.to_string().contains("stopped reading"), "{error}");
    }

    #[test]
    fn sizes_read_like_people_write_them() {
        assert_eq!(bytes(12), "12 bytes");
        assert_eq!(bytes(256 << 10), "256 KiB");
        assert_eq!(bytes(4 << 20), "4 MiB");
        assert_eq!(bytes(75 * 1024 * 1024 + 300_000), "75.3 MiB");
    }

    #[test]
    fn a_spec_reads_only_its_own_folder() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("specs");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("notes.md"), "n").unwrap();
        std::fs::write(root.path().join("secret"), "s").unwrap();
        assert_eq!(
            in_spec_folder(&folder, Path::new("notes.md")).unwrap(),
            folder.join("notes.md")
        );
        for (path, why) in [
            ("/etc/shadow", "absolute"),
            ("~/.ssh/id_rsa", "home folder"),
            ("../secret", "`..`"),
            ("sub/../../secret", "`..`"),
        ] {
            let error = in_spec_folder(&folder, Path::new(path)).unwrap_err();
            assert!(
                error.contains(why) && error.contains(ALLOW_OUTSIDE),
                "{path}: {error}"
            );
        }
        std::os::unix::fs::symlink(root.path().join("secret"), folder.join("link")).unwrap();
        let error = in_spec_folder(&folder, Path::new("link")).unwrap_err();
        assert!(error.contains("link that leads outside"), "{error}");
        // A spec named bare (`spec.yaml`) has the empty path for its folder:
        // the current one, where a link leading out is caught the same.
        let here = std::env::current_dir().unwrap();
        let link = here.join(format!("quorum-test-link-{}", std::process::id()));
        std::os::unix::fs::symlink(root.path().join("secret"), &link).unwrap();
        let refused = in_spec_folder(Path::new(""), Path::new(link.file_name().unwrap()));
        std::fs::remove_file(&link).unwrap();
        assert!(refused.unwrap_err().contains("link that leads outside"));
    }

    #[test]
    fn sizes_are_bytes_or_binary_multiples() {
        assert_eq!(parse_size("1048576").unwrap(), 1 << 20);
        assert_eq!(parse_size("4M").unwrap(), 4 << 20);
        assert_eq!(parse_size("512KiB").unwrap(), 512 << 10);
        assert_eq!(parse_size("2g").unwrap(), 2 << 30);
        for bad in ["", "4X", "-1", "1.5M", "0", "99999999999T", "2000G"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
