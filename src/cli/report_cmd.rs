//! `quorum report DIR`: the debate as one file anyone can open, written
//! from its journal: a self-contained HTML page, or one Markdown file with
//! `--format md`. The debate itself is only read; the report goes beside
//! it (`report.html`) unless `--output` says where, and `-` prints it.
//!
//! Not responsible for what the report says ([`crate::share`]).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::share::{Report, html, markdown};

use super::prepare::reload;
use super::{Failure, ReportArgs, ReportFormat, usage};

pub fn run(args: &ReportArgs) -> ExitCode {
    super::exit_code(write(args))
}

fn write(args: &ReportArgs) -> Result<ExitCode, Failure> {
    let reloaded = reload(&args.dir).map_err(|error| usage(super::with_causes(&error)))?;
    let mut report = Report::of(reloaded.folded.protocol.as_ref());
    report.origin = super::notes::forked_from(&args.dir)
        .map_err(usage)?
        .map(|fork| {
            format!(
                "{} at {}",
                fork.origin.display(),
                crate::text::clipped(&fork.at)
            )
        });
    report.budget = reloaded
        .recorded
        .records
        .iter()
        .filter_map(|record| match &record.event {
            crate::engine::JournalEvent::Budget { budget } => Some((
                record.at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
                budget.describe(),
            )),
            _ => None,
        })
        .collect();
    if let Some(origin) = super::notes::handed_from(&args.dir).map_err(usage)? {
        report.handed_from = Some(origin.describe());
        report.handed_from_command =
            super::shell_command(&["quorum", "report", &origin.source.display().to_string()]);
    }
    report.judge_probes = Some(judge_probes(args, &report));
    let (text, name) = match args.format {
        ReportFormat::Html => (html::render(&report), "report.html"),
        ReportFormat::Md => (markdown::render(&report), "report.md"),
    };
    match args.output.as_deref() {
        Some(path) if path == Path::new("-") => {
            std::io::stdout().lock().write_all(text.as_bytes())?;
        }
        Some(path) => {
            write_output(path, text.as_bytes())?;
            println!(
                "{}",
                crate::text::sanitize(&format!("Report written to {}", path.display()))
            );
        }
        None => {
            // Beside the debate: a file of quorum's own, replaced whole
            // (a link or a pipe planted there is replaced, never followed).
            let path = args.dir.join(name);
            crate::artifact::write_atomic(&path, text.as_bytes()).map_err(|error| {
                Failure::Run(color_eyre::eyre::eyre!(
                    "cannot write {}: {error}",
                    path.display()
                ))
            })?;
            println!(
                "{}",
                crate::text::sanitize(&format!("Report written to {}", path.display()))
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes `contents` to `path`, a file the person named with `--output`.
/// A link is followed to what it names (the person's own choice). A
/// regular file, or none yet, is replaced whole (a temporary file renamed
/// over it); when its folder may not be written but the file may, it is
/// written in place. A FIFO or a character device (`/dev/null`,
/// `>(gzip > r.gz)`) is written through, never renamed over; a directory,
/// a block device or a socket is refused before anything is written.
pub(super) fn write_output(path: &Path, contents: &[u8]) -> Result<(), Failure> {
    use std::os::unix::fs::FileTypeExt;
    let cannot = |error: &dyn std::fmt::Display| {
        Failure::Run(color_eyre::eyre::eyre!(
            "cannot write {}: {error}",
            path.display()
        ))
    };
    let target = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            path.canonicalize().map_err(|error| cannot(&error))?
        }
        _ => path.to_path_buf(),
    };
    let kind = match std::fs::metadata(&target) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(cannot(&error)),
        Ok(meta) => Some(meta.file_type()),
    };
    let refuse = |what: &str| {
        Err(usage(format!(
            "--output {}: it is {what}; name a file to write, or `-` to print the report",
            path.display()
        )))
    };
    match kind {
        Some(kind) if kind.is_dir() => return refuse("a directory"),
        Some(kind) if kind.is_block_device() => return refuse("a block device"),
        Some(kind) if kind.is_socket() => return refuse("a socket"),
        Some(kind) if kind.is_fifo() || kind.is_char_device() => {
            let contents = crate::secrets::mask_bytes(contents);
            return std::fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .and_then(|mut file| file.write_all(&contents))
                .map_err(|error| cannot(&error));
        }
        _ => {}
    }
    match crate::artifact::write_atomic(&target, contents) {
        Ok(()) => Ok(()),
        // The folder may not be written, the file itself may: in place.
        Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied && kind.is_some() => {
            let contents = crate::secrets::mask_bytes(contents);
            std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&target)
                .and_then(|mut file| file.write_all(&contents))
                .map_err(|in_place| cannot(&in_place))
        }
        Err(error) => Err(cannot(&error)),
    }
}

/// The latest probe of each of the debate's judges (its role slots
/// `judge.*`), looked for in `--probes` or in `probes` beside the
/// debate's artifact root.
fn judge_probes(args: &ReportArgs, report: &Report) -> crate::share::JudgeProbes {
    let root = args.probes.clone().unwrap_or_else(|| {
        let dir = std::path::absolute(&args.dir).unwrap_or_else(|_| args.dir.clone());
        dir.parent()
            .and_then(Path::parent)
            .map(|above| above.join("probes"))
            .unwrap_or_else(|| Path::new(super::probe::DEFAULT_PROBES_DIR).to_path_buf())
    });
    let judges: Vec<(String, String)> = report
        .roles
        .iter()
        .filter(|role| role.slot.starts_with("judge."))
        .map(|role| (role.slot.clone(), role.agent.clone()))
        .collect();
    let latest = super::probe::saved::latest_of(&root, &judges);
    crate::share::JudgeProbes {
        root: root.display().to_string(),
        judges: judges
            .into_iter()
            .zip(latest)
            .map(|((role, agent), latest)| crate::share::ProbedJudge {
                role,
                agent,
                latest,
            })
            .collect(),
    }
}
