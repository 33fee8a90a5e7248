//! `quorum open DIR` at a terminal: a finished debate in the interface, to
//! read and to settle its deferred items.
//!
//! The journal is folded and everything it recorded is shown at once: every
//! agent's final text in its pane (read-only), the scoreboard and the items
//! as they ended, each deferred item with how it was settled after the
//! verdict. An engine serving settlements runs behind the interface: `a` or
//! `r` on a deferred item still open sends [`Input::ItemResolved`], which
//! the engine journals, applies and writes into the debate's documents
//! before its new board shows it. The debate's lock is held for the whole
//! session, so no other quorum writes the folder meanwhile.
//!
//! Not responsible for listing debates or for `--resolve` (see `open`), nor
//! for the rules of settling (the protocol's).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use color_eyre::eyre::WrapErr;

use crate::engine::{Moderator, Roster};
use crate::protocol::{ItemResolution, Protocol};
use crate::text::sanitize;
use crate::tui::run::Ending;

use super::prepare::{Reloaded, reload};
use super::{EXIT_FAILURE, EXIT_USAGE};

/// Opens the finished debate in `dir` in the interface until the person
/// quits; 0 then, 2 when the folder cannot be opened (not a debate, not
/// finished, another quorum holds it, a theme that does not load).
pub(super) async fn open_interactive(
    dir: &Path,
    theme: Option<&str>,
) -> color_eyre::Result<ExitCode> {
    let usage = |message: String| {
        eprintln!("quorum: {}", crate::text::for_stderr(&message));
        Ok(ExitCode::from(EXIT_USAGE))
    };
    let theme = match super::interactive::choose_theme(theme, None) {
        Ok(theme) => theme,
        Err(error) => return usage(format!("--theme: {error}")),
    };
    let (
        lock,
        Reloaded {
            recorded,
            folded,
            history,
        },
    ) = match super::resume::lock_and_reload(dir, "quorum open") {
        Ok(locked) => locked,
        Err(error) => return usage(error),
    };
    if !folded.is_finished() {
        return usage(format!(
            "{} has not finished yet: `quorum resume {}` carries it on",
            dir.display(),
            super::shell_path(dir)
        ));
    }
    let review = &*folded.protocol;
    let before = resolutions(review);
    let info = crate::tui::DebateInfo::of(review, dir.to_path_buf());
    let recorded_duration = recorded
        .records
        .last()
        .map(|record| record.at - recorded.started_at())
        .and_then(|duration| duration.to_std().ok())
        .unwrap_or_default();

    let (journal, run_dir) = super::resume::take_over(&recorded, dir, &*folded.protocol)?;
    // What was recorded first; the engine then publishes only what changes.
    let (engine, updates_rx) = super::engine_with_updates(
        folded.protocol,
        run_dir,
        journal,
        Roster::default(),
        Moderator::external(),
        history.into_iter().map(|(_, update)| update),
    );
    let controller = engine.controller();
    let task = tokio::spawn(engine.serve_settlements());

    let _log = super::interactive::log_to_file();
    tracing::info!(dir = %dir.display(), "opened a finished debate");
    let mut app = crate::tui::App::new(info, theme, Instant::now()).archived();
    app.elapsed = recorded_duration;
    let ending = crate::tui::run::run(app, updates_rx, controller, task)
        .await
        .wrap_err("running the interface")?;

    // What the session settled, read back from the journal under the lock.
    let after = reload(dir).map_err(|error| color_eyre::eyre::eyre!("{error}"))?;
    drop(lock);
    let mut settled = false;
    for (item_id, resolution) in resolutions(after.folded.protocol.as_ref()) {
        if before.get(&item_id) != Some(&resolution) {
            settled = true;
            println!(
                "{item_id} {} after the verdict{}",
                resolution.decision.past_tense(),
                resolution
                    .note
                    .as_deref()
                    .map(|note| format!(": {}", sanitize(note)))
                    .unwrap_or_default()
            );
        }
    }
    if settled {
        // A person settled them: the library keeps the debate with its new rulings.
        super::library::file_ended(dir);
    }
    if after.folded.protocol.reopen_pending() {
        println!(
            "deferred items were accepted after the verdict: `quorum resume {} --reopen` runs another round",
            super::shell_path(dir)
        );
    }
    if let Ending::Failed(error) = ending {
        eprintln!("quorum: {}", crate::text::for_stderr(&error));
        return Ok(ExitCode::from(EXIT_FAILURE));
    }
    Ok(ExitCode::SUCCESS)
}

/// Every settlement on record, by item.
fn resolutions(review: &dyn Protocol) -> BTreeMap<String, ItemResolution> {
    review
        .board()
        .items
        .into_iter()
        .filter_map(|entry| Some((entry.item.id, entry.resolution?)))
        .collect()
}
