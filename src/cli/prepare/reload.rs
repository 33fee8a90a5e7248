//! Reading a recorded debate back: its journal read and checked, its
//! prompts compiled again, and every record folded through a fresh protocol
//! (see `engine::resume`). What `quorum resume`, `fork`, `open`, `replay`,
//! `report` and `compare` start from, and what `--from DIR` reads its
//! hand-off from; and a debate another process is writing, read as it
//! grows (`quorum attach`).

use std::path::Path;
use std::sync::Arc;

use crate::artifact::Record;
use crate::engine::resume::{Folded, Recorded, fold, fold_by_record};
use crate::engine::{BudgetEvent, JournalEvent, Update};
use crate::prompts::PromptSet;
use crate::protocol::{Protocol, Timestamp};

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
    let protocol = protocol_of(&recorded)?;
    let mut history = Vec::new();
    let folded = fold(protocol, &recorded.records, &mut |at, update| {
        history.push((at, update))
    });
    refuse_impossible(&recorded, &folded)?;
    Ok(Reloaded {
        recorded,
        folded,
        history,
    })
}

/// A debate another process is writing, read back for a watcher (`quorum
/// attach`): what an interface would have shown, each update with the
/// position of the journal record it comes from, the budget's questions
/// and decisions among them.
pub(in crate::cli) struct Followed {
    pub folded: Folded,
    /// Records read (a line still being written is not one yet).
    pub records: usize,
    pub updates: Vec<(usize, Update)>,
    /// When the debate started, as journaled.
    pub started_at: Timestamp,
}

/// Reads `dir`'s journal as it stands and folds it for a watcher.
pub(in crate::cli) fn follow(dir: &Path) -> Result<Followed, ReloadError> {
    let recorded = Recorded::read(dir)?;
    let protocol = protocol_of(&recorded)?;
    let mut updates = Vec::new();
    let folded = fold_by_record(protocol, &recorded.records, &mut |place, _, update| {
        updates.push((place, update))
    });
    refuse_impossible(&recorded, &folded)?;
    Ok(Followed {
        updates: with_budget_updates(updates, &recorded.records),
        records: recorded.records.len(),
        started_at: recorded.started_at(),
        folded,
    })
}

/// `updates` with the budget's questions and decisions the journal holds,
/// each where its record stands. The fold leaves them out (a replay or a
/// resumed run has no held step to ask about); a watcher of a running
/// debate asks.
fn with_budget_updates(
    updates: Vec<(usize, Update)>,
    records: &[Record<JournalEvent>],
) -> Vec<(usize, Update)> {
    let mut budget = records
        .iter()
        .enumerate()
        .filter_map(|(place, record)| match &record.event {
            JournalEvent::Budget {
                budget: BudgetEvent::Reached(question),
            } => Some((place, Update::BudgetReached(question.clone()))),
            JournalEvent::Budget {
                budget: BudgetEvent::Decided { decision },
            } => Some((
                place,
                Update::BudgetDecided {
                    decision: *decision,
                },
            )),
            _ => None,
        })
        .peekable();
    let mut merged = Vec::with_capacity(updates.len());
    for (place, update) in updates {
        while let Some(earlier) = budget.next_if(|(at, _)| *at < place) {
            merged.push(earlier);
        }
        merged.push((place, update));
    }
    merged.extend(budget);
    merged
}

/// A fresh protocol for `recorded`, its prompts compiled again.
fn protocol_of(recorded: &Recorded) -> Result<Box<dyn Protocol>, ReloadError> {
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
    crate::protocol::registry::build(&recorded.definition, Arc::new(prompts)).map_err(|message| {
        ReloadError::Protocol {
            path: recorded.journal_path.clone(),
            message,
        }
    })
}

/// A journal with a record no debate could have written is refused.
fn refuse_impossible(recorded: &Recorded, folded: &Folded) -> Result<(), ReloadError> {
    match &folded.impossible {
        Some((line, message)) => Err(ReloadError::Impossible {
            path: recorded.journal_path.clone(),
            line: *line,
            message: message.clone(),
        }),
        None => Ok(()),
    }
}
