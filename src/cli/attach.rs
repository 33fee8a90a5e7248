//! `quorum attach DIR`: the live interface over a debate another process
//! drives (issue 54): a headless run under `--moderation person`, and
//! later an MCP server's debate. A person moderates it from this terminal
//! while the other process runs it.
//!
//! It never writes the debate. It takes no lock of the debate's (its
//! driver holds it), and reads `journal.jsonl` as it grows: at the start
//! the journal is folded as `quorum replay` folds it and every update is
//! shown at once; then, every [`JOURNAL_POLL_MS`], when the journal has
//! grown, it is folded again (off the interface's thread) and the updates
//! of the records not shown yet are shown. The person's rulings are the
//! only thing it writes: one line each to `attach/inbox.jsonl`, which the
//! driver watches ([`crate::engine::inbox`]). One person moderates: the
//! first attach holds `attach/attach.lock`; another one only watches, and
//! says so in its header.
//!
//! When the debate waits on the person (items to rule on, a step held at
//! the budget, a held round), a terminal notification says so once
//! ([`crate::tui::notify`]): what waits as the interface opens, then each
//! new wait as it comes. A finished debate is shown as it ended, until
//! the person quits; quitting a running one leaves it running.
//!
//! Not responsible for running anything: a debate nobody drives is
//! refused, naming `quorum resume`.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use color_eyre::eyre::WrapErr;
use tokio::sync::mpsc;

use crate::artifact::DebateLock;
use crate::engine::inbox::{self, InboxCommand};
use crate::engine::resume::JOURNAL_FILE;
use crate::engine::{CommandReceiver, Controller, EngineError, Update};
use crate::protocol::{LogEntry, LogKind};
use crate::tui::notify::{RulingWatch, Wanted, notification};
use crate::tui::run::Ending;

use super::prepare::{Followed, follow};
use super::{AttachArgs, EXIT_FAILURE, EXIT_USAGE};

/// How often the journal is looked at for new records, in milliseconds.
pub const JOURNAL_POLL_MS: u64 = 200;
/// The lock the moderating attach holds, inside the attach folder.
pub const ATTACH_LOCK_FILE: &str = "attach.lock";

pub async fn run(args: AttachArgs) -> ExitCode {
    match attach(args).await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&format!("{error:#}")));
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

/// A refusal before the interface opens: said on stderr, exit 2.
fn refuse(message: &str) -> color_eyre::Result<ExitCode> {
    eprintln!("quorum: {}", crate::text::for_stderr(message));
    Ok(ExitCode::from(EXIT_USAGE))
}

async fn attach(args: AttachArgs) -> color_eyre::Result<ExitCode> {
    let dir = args.dir;
    let theme = match super::interactive::choose_theme(args.theme.as_deref(), None) {
        Ok(theme) => theme,
        Err(error) => return refuse(&format!("--theme: {error}")),
    };
    let first = match follow(&dir) {
        Ok(first) => first,
        Err(error) => return refuse(&super::with_causes(&error)),
    };
    let finished = first.folded.is_finished();
    if !finished && DebateLock::holder(&dir).is_none() {
        return refuse(&format!(
            "no process is running the debate in {}: `quorum resume {}` carries it on \
             (with --moderation person, to moderate it from here)",
            dir.display(),
            super::shell_path(&dir)
        ));
    }
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdin())
        && std::io::IsTerminal::is_terminal(&std::io::stdout());
    if !terminal {
        return refuse(&format!(
            "quorum attach is the live interface and needs a terminal; `quorum replay {} \
             --headless` prints what happened so far",
            super::shell_path(&dir)
        ));
    }
    // A finished debate waits on nobody: it is shown, never moderated.
    let (claim, read_only) = if finished {
        (None, None)
    } else {
        match claim_moderation(&dir) {
            Ok(claim) => (Some(claim), None),
            Err(why) => (None, Some(why)),
        }
    };
    let _log = super::interactive::log_to_file();
    tracing::info!(dir = %dir.display(), read_only = read_only.is_some(), "attached");
    let shown = show(dir, first, theme, read_only).await;
    // The moderator's seat is let go once the interface has closed.
    drop(claim);
    shown
}

/// Runs the interface over the debate in `dir` (read back as `first`)
/// until the person quits; says how it ended.
async fn show(
    dir: PathBuf,
    first: Followed,
    theme: crate::tui::theme::Theme,
    read_only: Option<String>,
) -> color_eyre::Result<ExitCode> {
    let info = crate::tui::DebateInfo::of(&*first.folded.protocol, dir.clone());
    let deliverable = info.deliverable.clone();
    let topic = info.topic.clone();
    let now = Instant::now();
    let mut app = crate::tui::App::new(info, theme, now).attached(read_only.clone());
    let running_for = (chrono::Utc::now() - first.started_at)
        .to_std()
        .unwrap_or_default();
    app.started = now.checked_sub(running_for).unwrap_or(now);

    let (updates_tx, updates_rx) = mpsc::unbounded_channel();
    let mut waits = RulingWatch::default();
    let finished = first.folded.is_finished();
    let pending = waiting_now(&first);
    for (_, update) in first.updates {
        // What the debate waited on and got is history: said only when it
        // waits still (below).
        waits.see(&update);
        let _ = updates_tx.send(update);
    }
    for wanted in pending {
        notify(&notification(&topic, &wanted));
    }
    let (controller, commands) = Controller::channel();
    let sender = read_only
        .is_none()
        .then(|| tokio::spawn(send_rulings(dir.clone(), commands, updates_tx.clone())));
    let follower = tokio::spawn(follow_journal(
        Following {
            dir: dir.clone(),
            shown: first.records,
            finished,
            topic,
            waits,
        },
        updates_tx,
    ));
    let ending = crate::tui::run::run(app, updates_rx, controller, follower)
        .await
        .wrap_err("running the interface")?;
    // The interface dropped its controller: what the person did last is
    // written before this returns.
    if let Some(sender) = sender {
        let _ = sender.await;
    }
    tracing::info!("detached");
    Ok(match ending {
        Ending::Finished(outcome) => {
            println!(
                "{}\nFull record: {}",
                super::interactive::outcome_line(&outcome),
                dir.join(&deliverable).display()
            );
            ExitCode::SUCCESS
        }
        Ending::Interrupted => {
            eprintln!(
                "quorum: left the debate in {}; it goes on (`quorum attach {}` comes back to it)",
                dir.display(),
                super::shell_path(&dir)
            );
            ExitCode::SUCCESS
        }
        Ending::Failed(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error));
            ExitCode::from(EXIT_FAILURE)
        }
        Ending::OverBudget(question) => {
            eprintln!("{}", super::budget_stop_lines(&dir, &question));
            ExitCode::from(super::EXIT_BUDGET)
        }
    })
}

/// What the debate read back as `first` waits on the person for right
/// now: said once as the interface opens, each later wait as it comes.
fn waiting_now(first: &Followed) -> Vec<Wanted> {
    let mut waiting = Vec::new();
    let board = first.folded.protocol.board();
    if !board.held_calls.is_empty() {
        waiting.push(Wanted::Held(board.held_calls.len()));
    } else if let Some(items) = &first.folded.moderation
        && !items.is_empty()
    {
        waiting.push(Wanted::Items(items.len()));
    }
    let budget_held = first
        .updates
        .iter()
        .rev()
        .find_map(|(_, update)| match update {
            Update::BudgetReached(_) => Some(true),
            Update::BudgetDecided { .. } => Some(false),
            _ => None,
        });
    if budget_held == Some(true) {
        waiting.push(Wanted::Budget);
    }
    waiting
}

/// Takes the moderator's seat of the debate in `dir`: an exclusive lock on
/// `attach/attach.lock`, held as long as the file stays open. Refused,
/// with why, when another attach holds it or the folder cannot be written.
fn claim_moderation(dir: &Path) -> Result<File, String> {
    let cannot = |error: std::io::Error| {
        format!(
            "cannot take the moderator's seat in {}: {error}",
            dir.display()
        )
    };
    let path = inbox::attach_folder(dir)
        .map_err(cannot)?
        .join(ATTACH_LOCK_FILE);
    let mut file = crate::artifact::open_lock_file(&path).map_err(cannot)?;
    match file.try_lock() {
        Ok(()) => {
            // Who holds it, for the next attach's header.
            let _ = file
                .set_len(0)
                .and_then(|()| file.write_all(format!("pid {}\n", std::process::id()).as_bytes()));
            Ok(file)
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = Read::by_ref(&mut file).take(64).read_to_string(&mut holder);
            let pid = holder
                .lines()
                .next()
                .filter(|line| line.starts_with("pid "))
                .map(|line| format!(" ({})", crate::text::sanitize(line.trim())))
                .unwrap_or_default();
            Err(format!(
                "another quorum attach{pid} moderates this debate; this one only watches"
            ))
        }
        Err(std::fs::TryLockError::Error(error)) => Err(cannot(error)),
    }
}

/// Turns each command the person's keys make into a line of the debate's
/// inbox; what cannot travel (a typed answer, a switch of agent) or cannot
/// be written is said in the transcript.
async fn send_rulings(
    dir: PathBuf,
    mut commands: CommandReceiver,
    updates: mpsc::UnboundedSender<Update>,
) {
    while let Some(command) = commands.recv().await {
        let said = match InboxCommand::from_command(&command) {
            None => Err(
                "not sent: from another terminal only rulings reach the process \
                 running the debate (no typed answer, no switch of agent)"
                    .to_string(),
            ),
            Some(ruling) => inbox::append(&dir, &ruling).map_err(|error| {
                format!(
                    "not sent: cannot write {}: {error}",
                    inbox::inbox_path(&dir).display()
                )
            }),
        };
        if let Err(message) = said {
            tracing::warn!("{message}");
            let _ = updates.send(Update::Log(LogEntry {
                at: chrono::Utc::now(),
                kind: LogKind::Note,
                call_id: None,
                message,
                details: Vec::new(),
            }));
        }
    }
}

/// Where the following of a journal stands.
struct Following {
    dir: PathBuf,
    /// Records whose updates have been shown.
    shown: usize,
    /// The journal holds the outcome: nothing more comes.
    finished: bool,
    /// The debate's topic, sanitised, for the notifications.
    topic: String,
    waits: RulingWatch,
}

/// Shows what the debate in `following.dir` records from now on, until
/// its outcome; ends with an error once its driver has gone without one,
/// or when the journal can no longer be read.
async fn follow_journal(
    mut following: Following,
    updates: mpsc::UnboundedSender<Update>,
) -> Result<(), EngineError> {
    let journal = following.dir.join(JOURNAL_FILE);
    let size = || std::fs::metadata(&journal).map_or(0, |meta| meta.len());
    let mut seen_size = size();
    let mut ticker = tokio::time::interval(Duration::from_millis(JOURNAL_POLL_MS));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    while !following.finished {
        ticker.tick().await;
        // The lock is looked at before the size: a driver that has let go
        // wrote all it will before, and that is read below.
        let driven = DebateLock::holder(&following.dir).is_some();
        let grown = size();
        if grown != seen_size {
            seen_size = grown;
            show_new_records(&mut following, &updates).await?;
        } else if !driven {
            return Err(EngineError::Elsewhere(format!(
                "the process running this debate stopped before it ended; `quorum resume {}` \
                 carries it on",
                super::shell_path(&following.dir)
            )));
        }
        if updates.is_closed() {
            break;
        }
    }
    Ok(())
}

/// Folds the journal again (off the interface's thread) and shows the
/// updates of the records not shown yet, notifying the person of what the
/// debate waits on them for.
async fn show_new_records(
    following: &mut Following,
    updates: &mpsc::UnboundedSender<Update>,
) -> Result<(), EngineError> {
    let dir = following.dir.clone();
    let followed = tokio::task::spawn_blocking(move || follow(&dir))
        .await
        .map_err(|error| EngineError::Elsewhere(error.to_string()))?
        .map_err(|error| EngineError::Elsewhere(super::with_causes(&error)))?;
    for (_, update) in followed
        .updates
        .into_iter()
        .filter(|(place, _)| *place >= following.shown)
    {
        if let Some(wanted) = following.waits.see(&update) {
            notify(&notification(&following.topic, &wanted));
        }
        following.finished |= matches!(update, Update::Finished(_));
        let _ = updates.send(update);
    }
    following.shown = followed.records;
    Ok(())
}

/// Writes a notification to the terminal the interface draws on, between
/// two frames (the frames are written from this same thread).
fn notify(bytes: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes).and_then(|()| stdout.flush());
}
