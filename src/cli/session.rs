//! What a new debate's two drivers share, headless and in the interface:
//! the folder and journal a debate is recorded in, and the line that says
//! how to pick an interrupted debate up again.

use std::path::Path;

use chrono::Local;

use crate::artifact::{DebateLock, Journal, RunDir, topic_slug};
use crate::engine::{DebateDefinition, JournalEvent, RunSetup};

use super::RunFlags;

/// Creates the debate's folder and its journal, whose first line defines
/// the debate.
pub(super) fn open_record(
    definition: &DebateDefinition,
    setup: &RunSetup,
    flags: &RunFlags,
) -> color_eyre::Result<(RunDir, Journal, DebateLock)> {
    use color_eyre::eyre::WrapErr;
    let run_dir = RunDir::create(&flags.out, &topic_slug(definition.topic()), Local::now())
        .wrap_err("creating the debate folder")?;
    let lock = DebateLock::acquire(run_dir.path(), "a new debate")?;
    let mut journal =
        Journal::create(&run_dir.path().join("journal.jsonl")).wrap_err("creating the journal")?;
    journal.append(
        chrono::Utc::now(),
        &JournalEvent::DebateStarted {
            definition: Box::new(definition.clone()),
            setup: Some(Box::new(setup.clone())),
        },
    )?;
    Ok((run_dir, journal, lock))
}

/// The line that tells a person how to pick an interrupted debate up again.
pub(super) fn resume_hint(dir: &Path) -> String {
    format!(
        "quorum: continue it with: quorum resume {}",
        super::shell_path(dir)
    )
}
