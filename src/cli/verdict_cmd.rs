//! `quorum verdict DIR`: the verdict recomputed from the files on disk.
//!
//! The journal's first line says which protocol the debate ran; that
//! protocol recomputes its verdict from its own files (a decision review
//! from `debate.yaml` and the judge files, parsed again, so editing a judge
//! file changes the verdict: INF-04, INF-06). A protocol that ends with a
//! deliverable has no verdict to recompute, and says so.

use std::path::Path;
use std::process::ExitCode;

use crate::engine::resume::{RecordError, Recorded};
use crate::protocol::kind::RecomputeError;
use crate::protocol::registry;
use crate::text::sanitize;

use super::{EXIT_FAILURE, EXIT_USAGE};

/// Says on stderr which of the debate's sources no longer read as they did
/// when it started (issue 52): its citations were checked against them as
/// they were then.
pub(super) fn note_changed_sources(definition: &crate::protocol::kind::DebateDefinition) {
    for record in definition.sources() {
        if let Some(changed) = record.changed(crate::evidence::RepoLimits::default()) {
            eprintln!("quorum: note: {}", crate::text::for_stderr(&changed));
        }
    }
}

pub fn run(dir: &Path, json: bool) -> ExitCode {
    let folder = crate::input::RecordFolder::new(dir);
    let mut rechecked = None;
    let protocol = match Recorded::read(dir) {
        Ok(recorded) => {
            note_changed_sources(&recorded.definition);
            // Every citation checked again against the sources as they
            // are now (issue 52): the protocol's evidence rule counts these.
            let readings;
            let definition = &recorded.definition;
            (rechecked, readings) = crate::protocol::evidence::recheck::recheck(
                &definition.context(),
                &definition.sources(),
                &folder,
            );
            for reading in readings {
                eprintln!("quorum: {}", crate::text::for_stderr(&reading));
            }
            recorded.definition.protocol().to_string()
        }
        // A folder with no journal (copied without it): its debate.yaml
        // is a decision review's, the only protocol that wrote one then.
        Err(RecordError::NotADebate { .. }) => crate::spec::DEFAULT_PROTOCOL.to_string(),
        Err(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error.to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let Some(kind) = registry::find(&protocol) else {
        eprintln!(
            "quorum: {}: the debate ran protocol `{protocol}`, which this quorum does not know",
            dir.display()
        );
        return ExitCode::from(EXIT_USAGE);
    };
    match kind.recompute(&folder, rechecked.as_ref()) {
        Ok(recomputed) => {
            for reading in &recomputed.readings {
                eprintln!("quorum: {}", sanitize(reading));
            }
            if json {
                println!(
                    "{}",
                    crate::text::terminal_safe_json(
                        &serde_json::to_string_pretty(&recomputed.detail).unwrap_or_default()
                    )
                );
            } else {
                match recomputed.verdict {
                    Some(verdict) => println!("{verdict}\n{}", sanitize(&recomputed.rule)),
                    // A comparison ranks; it has no verdict to print.
                    None => println!("{}", sanitize(&recomputed.rule)),
                }
            }
            ExitCode::from(recomputed.verdict.map_or(0, |verdict| verdict.exit_code()) as u8)
        }
        Err(error @ RecomputeError::NoVerdict { .. }) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error.to_string()));
            ExitCode::from(EXIT_FAILURE)
        }
        Err(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error.to_string()));
            ExitCode::from(EXIT_USAGE)
        }
    }
}
