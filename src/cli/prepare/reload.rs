//! Reading a recorded debate back: its journal read and checked, its
//! prompts compiled again, and every record folded through a fresh protocol
//! (see `engine::resume`). What `quorum resume`, `fork`, `open`, `replay`,
//! `report` and `compare` start from, and what `--from DIR` reads its
//! hand-off from.

use std::path::Path;
use std::sync::Arc;

use crate::engine::Update;
use crate::engine::resume::{Folded, Recorded, fold};
use crate::prompts::PromptSet;
use crate::protocol::Timestamp;

/// A debate read back and folded, ready to carry on.
pub(in crate::cli) struct Reloaded {
    pub recorded: Recorded,
    pub folded: Folded,
    /// What an interface would have shown, with the times it happened.
    pub history: Vec<(Timestamp, Update)>,
}

/// Why a folder cannot be reloaded.
#[derive(Debug, thiserror::Error)]
pub(in crate::cli) enum ReloadError {
    #[error(transparent)]
    Record(#[from] crate::engine::resume::RecordError),
    #[error("{}: the recorded prompt templates no longer compile: {source}", path.display())]
    Prompts {
        path: std::path::PathBuf,
        #[source]
        source: crate::prompts::PromptError,
    },
    #[error("{}:1: {message}", path.display())]
    Protocol {
        path: std::path::PathBuf,
        message: String,
    },
    /// A record no debate could have written.
    #[error("journal {} line {line} cannot be: {message}", path.display())]
    Impossible {
        path: std::path::PathBuf,
        line: usize,
        message: String,
    },
}

/// Reads `dir`'s journal and folds it through a fresh protocol.
pub(in crate::cli) fn reload(dir: &Path) -> Result<Reloaded, ReloadError> {
    let recorded = Recorded::read(dir)?;
    let overrides = recorded
        .setup
        .as_ref()
        .map(|setup| setup.prompt_overrides.clone())
        .unwrap_or_default();
    let prompts =
        PromptSet::with_overrides(&overrides, &recorded.journal_path).map_err(|source| {
            ReloadError::Prompts {
                path: recorded.journal_path.clone(),
                source,
            }
        })?;
    let protocol = crate::protocol::registry::build(&recorded.definition, Arc::new(prompts))
        .map_err(|message| ReloadError::Protocol {
            path: recorded.journal_path.clone(),
            message,
        })?;
    let mut history = Vec::new();
    let folded = fold(protocol, &recorded.records, &mut |at, update| {
        history.push((at, update))
    });
    if let Some((line, message)) = &folded.impossible {
        return Err(ReloadError::Impossible {
            path: recorded.journal_path.clone(),
            line: *line,
            message: message.clone(),
        });
    }
    Ok(Reloaded {
        recorded,
        folded,
        history,
    })
}
