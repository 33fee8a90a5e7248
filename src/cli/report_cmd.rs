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

use super::resume::reload;
use super::{Failure, ReportArgs, ReportFormat, usage};

pub fn run(args: &ReportArgs) -> ExitCode {
    super::exit_code(write(args))
}

fn write(args: &ReportArgs) -> Result<ExitCode, Failure> {
    let reloaded = reload(&args.dir).map_err(|error| usage(super::with_causes(&error)))?;
    let mut report = Report::of(reloaded.folded.protocol.as_ref());
    report.origin = super::fork::origin_of(&args.dir)
        .map(|fork| format!("{} at {}", fork.origin.display(), fork.at));
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
    report.handed_from = super::chain::origin_of(&args.dir).map(|origin| {
        format!(
            "{} (its report: quorum report {})",
            origin.describe(),
            super::shell_path(&origin.source)
        )
    });
    let (text, name) = match args.format {
        ReportFormat::Html => (html::render(&report), "report.html"),
        ReportFormat::Md => (markdown::render(&report), "report.md"),
    };
    match args.output.as_deref() {
        Some(path) if path == Path::new("-") => {
            std::io::stdout().lock().write_all(text.as_bytes())?;
        }
        output => {
            let path = output.map_or_else(|| args.dir.join(name), Path::to_path_buf);
            crate::artifact::write_atomic(&path, text.as_bytes()).map_err(|error| {
                Failure::Run(color_eyre::eyre::eyre!(
                    "cannot write {}: {error}",
                    path.display()
                ))
            })?;
            println!("Report written to {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
