//! The event loop: one loop, three sources — engine updates (or, in a
//! replay, recorded moments as they fall due), terminal events and a clock —
//! drained in batches, applied to the state, and drawn at most once per
//! frame interval when the state's damage says something changed (a frame
//! that only streamed text redraws just those panes: see `screen`). Render
//! rate is not token rate: a burst of a thousand chunks costs one frame.
//! What the person does (a key, the mouse, a resize) is drawn at once,
//! without waiting for the interval: people type far slower than the frame
//! rate, and their answer should not wait behind the stream.
//!
//! A frame window opens at each boundary of the clock answer streams are
//! read on, and its frame is drawn once the runtime has run everything that
//! was ready ([`super::idle`]): every stream read at that boundary is in the
//! frame, and the frame needs no wake of its own. A runtime that stays busy
//! gets its frame [`FRAME_PHASE_MS`] after the boundary. The loop keeps
//! that pace through a [`FramePacer`].
//!
//! The loop reads nothing from disk: the result view's deliverable and the
//! run folder's listing are read on a blocking thread once the outcome
//! arrives (`ReportReader`), and shown when they are in.

use std::collections::VecDeque;
use std::path::Path;
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyEventKind};
use futures::StreamExt;
use ratatui::layout::Size;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::engine::{Controller, EngineError, Update};
use crate::protocol::Outcome;

use super::app::{App, Moment};
use super::events::TerminalEvents;
use super::pacer::FramePacer;
use super::screen::{Damage, Screen};
use super::terminal::TerminalGuard;

pub use super::pacer::{FRAME_INTERVAL_MS, FRAME_PHASE_MS};
/// How often the clock-driven parts (elapsed time, tokens/s) refresh, in
/// milliseconds: a whole number of the read clock's frames, on its
/// boundaries, so that a tick wakes the process with the reads rather than
/// on its own (issue 56).
pub const TICK_INTERVAL_MS: u64 = 256;
/// Most engine updates applied per batch before input is looked at again.
pub const UPDATE_BATCH: usize = 1024;

/// How the interactive session ended.
pub enum Ending {
    /// The debate reached its outcome (and the person then quit).
    Finished(Outcome),
    /// The person quit (or SIGTERM arrived) while the debate was running.
    Interrupted,
    /// The engine stopped with an error.
    Failed(String),
    /// The run stopped before a step that would cross its budget.
    OverBudget(Box<crate::engine::BudgetQuestion>),
}

/// Runs the TUI until the person quits. `engine` resolves when the debate
/// ends; its updates arrive on `updates`.
pub async fn run<T: Send + 'static>(
    app: App,
    updates: mpsc::UnboundedReceiver<Update>,
    controller: Controller,
    engine: JoinHandle<Result<T, EngineError>>,
) -> std::io::Result<Ending> {
    drive(app, updates, controller, engine, VecDeque::new()).await
}

/// Plays `timeline` back in `app` (made with [`App::replaying`]) at the
/// pace its clock sets, until the person quits.
pub async fn replay(app: App, timeline: Vec<Moment>) -> std::io::Result<Ending> {
    // Nothing runs behind a replay: no updates, no engine, no commands.
    let (_, updates) = mpsc::unbounded_channel();
    let engine = tokio::spawn(std::future::pending::<Result<(), EngineError>>());
    drive(
        app,
        updates,
        Controller::detached(),
        engine,
        timeline.into(),
    )
    .await
}

/// Shows the moments of `timeline` whose time has come, at most
/// [`UPDATE_BATCH`] at once, starting `report` when the outcome is among
/// them; returns when the next one falls due.
fn play_due(
    app: &mut App,
    timeline: &mut VecDeque<Moment>,
    report: &mut ReportReader,
    now: Instant,
) -> Option<Instant> {
    let position = app.playback()?.position(now);
    let mut shown = 0;
    while shown < UPDATE_BATCH && timeline.front().is_some_and(|moment| moment.at <= position) {
        let Some(moment) = timeline.pop_front() else {
            break;
        };
        shown += 1;
        let finished = matches!(moment.update, Update::Finished(_));
        app.play(moment, now);
        if finished {
            report.start(app);
        }
    }
    let Some(next) = timeline.front() else {
        app.end_of_recording(now);
        return None;
    };
    app.playback()?.due(next.at, now)
}

async fn drive<T: Send + 'static>(
    mut app: App,
    mut updates: mpsc::UnboundedReceiver<Update>,
    controller: Controller,
    mut engine: JoinHandle<Result<T, EngineError>>,
    mut timeline: VecDeque<Moment>,
) -> std::io::Result<Ending> {
    let guard = TerminalGuard::enter()?;
    let (columns, rows) = crossterm::terminal::size()?;
    let mut screen = Screen::new(std::io::stdout(), Size::new(columns, rows));
    let mut events = TerminalEvents::default();
    let tick = Duration::from_millis(TICK_INTERVAL_MS);
    let mut ticker = tokio::time::interval_at(
        crate::agent::http::paced::next_frame(tokio::time::Instant::now(), tick),
        tick,
    );
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    use tokio::signal::unix::{SignalKind, signal};
    // In raw mode Ctrl-C arrives as a key; these come from elsewhere (kill,
    // a closed terminal) and end the session with the terminal restored.
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let _backstop = crate::signals::Backstop::install(|| {
        crate::agent::command::kill_every_group_now();
        super::terminal::restore();
    });
    let mut pacer = FramePacer::default();
    let mut report = ReportReader::default();
    let mut batch = Vec::with_capacity(UPDATE_BATCH);
    let mut updates_open = true;
    let mut engine_running = true;
    let mut over_budget = None;
    loop {
        let now = Instant::now();
        let next_moment = play_due(&mut app, &mut timeline, &mut report, now);
        pacer.hidden_only(app.damage.is_off_screen(&app.layout));
        let window = pacer.window(now);
        if pacer.frame_due(&window, app.damage.any()) {
            screen.draw(&mut app)?;
            pacer.drawn(Instant::now());
        }
        if app.quit {
            break;
        }
        // Damage waits for its window to open, then for the runtime to go
        // idle, or at the latest for the phase after the window opened.
        let awaiting_idle = app.damage.any() && window.is_open();
        let next_frame = tokio::time::Instant::from_std(window.next_frame());
        tokio::select! {
            received = updates.recv_many(&mut batch, UPDATE_BATCH), if updates_open => {
                if received == 0 {
                    updates_open = false;
                }
                let now = Instant::now();
                for update in batch.drain(..) {
                    let finished = matches!(update, Update::Finished(_));
                    app.apply(update, now);
                    if finished {
                        report.start(&app);
                    }
                }
            }
            Some(event) = events.next() => {
                let now = Instant::now();
                let event = event?;
                match event {
                    // The focus sets the text's pace; it draws nothing.
                    Event::FocusGained => pacer.focus(true),
                    Event::FocusLost => pacer.focus(false),
                    _ => pacer.person_acted(),
                }
                match event {
                    Event::Key(key) if key.kind != KeyEventKind::Release => {
                        for command in app.handle_key(key, now) {
                            controller.send(command);
                        }
                    }
                    Event::Mouse(mouse) => app.handle_mouse(mouse),
                    Event::Resize(columns, rows) => {
                        screen.resize(Size::new(columns, rows));
                        app.damage = Damage::Whole;
                    }
                    _ => {}
                }
            }
            Some((summary, paths)) = report.read() => app.show_report(&summary, paths),
            _ = ticker.tick() => app.tick(Instant::now()),
            () = tokio::time::sleep_until(next_frame), if app.damage.any() => {}
            () = super::idle::until_idle(), if awaiting_idle => pacer.idle_came(),
            () = tokio::time::sleep_until(
                tokio::time::Instant::from_std(next_moment.unwrap_or(now))
            ), if next_moment.is_some() => {}
            _ = sigterm.recv() => {
                crate::signals::acknowledge();
                break;
            }
            _ = sigint.recv() => {
                crate::signals::acknowledge();
                break;
            }
            _ = sighup.recv() => {
                crate::signals::acknowledge();
                break;
            }
            result = &mut engine, if engine_running => {
                engine_running = false;
                match result {
                    Ok(Ok(_)) => {}
                    Ok(Err(EngineError::OverBudget(question))) => {
                        // The person chose to stop here: the run ends.
                        over_budget = Some(question);
                        app.quit = true;
                    }
                    Ok(Err(error)) => {
                        app.engine_error = Some(crate::text::sanitize(&error.to_string()));
                    }
                    Err(error) => app.engine_error = Some(crate::text::sanitize(&error.to_string())),
                }
                app.damage = Damage::Whole;
            }
        }
    }
    engine.abort();
    drop(guard);
    if let Some(question) = over_budget {
        return Ok(Ending::OverBudget(question));
    }
    Ok(match (&app.outcome, &app.engine_error) {
        (Some(outcome), _) => Ending::Finished(outcome.clone()),
        (None, Some(error)) => Ending::Failed(error.clone()),
        (None, None) => Ending::Interrupted,
    })
}

/// The result view's reading of the run folder, off the loop: started when
/// the outcome arrives, read on a blocking thread, handed over once.
#[derive(Default)]
struct ReportReader {
    task: Option<JoinHandle<(String, Vec<String>)>>,
}

impl ReportReader {
    /// Starts reading `app`'s deliverable and run folder.
    fn start(&mut self, app: &App) {
        let run_dir = app.info.run_dir.clone();
        let deliverable = app.info.deliverable.clone();
        self.task = Some(tokio::task::spawn_blocking(move || {
            read_report(&run_dir, &deliverable)
        }));
    }

    /// The deliverable and the files, once read; pending while nothing is
    /// being read. A read that failed to finish shows nothing.
    async fn read(&mut self) -> Option<(String, Vec<String>)> {
        let Some(task) = &mut self.task else {
            return std::future::pending().await;
        };
        let read = task.await;
        self.task = None;
        read.ok()
    }
}

/// The protocol's deliverable (`summary.md`, `panel-review.md`, …) and
/// the files of a finished debate, for the result view.
fn read_report(run_dir: &Path, deliverable: &str) -> (String, Vec<String>) {
    let summary = crate::artifact::read_regular(&run_dir.join(deliverable)).unwrap_or_default();
    let mut paths = Vec::new();
    collect_files(run_dir, run_dir, &mut paths);
    reader_first(&mut paths, deliverable);
    (summary, paths)
}

/// Orders the files written for a reader, who may see only the first few:
/// the deliverable, then the run folder's own files before those in its
/// folders, the documents (Markdown) before the machine records at each
/// depth, and by name.
fn reader_first(paths: &mut [String], deliverable: &str) {
    paths.sort_by_cached_key(|path| {
        (
            path != deliverable,
            path.matches('/').count(),
            !path.ends_with(".md"),
            path.clone(),
        )
    });
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // A link is listed, never followed: one to `/` would list the disk.
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            collect_files(root, &path, out);
        } else if let Ok(relative) = path.strip_prefix(root) {
            // The lock this session holds is not part of the record.
            if relative != Path::new(crate::artifact::LOCK_FILE) {
                out.push(relative.display().to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_written_are_listed_for_a_reader() {
        let mut paths: Vec<String> = [
            "council.json",
            "journal.jsonl",
            "phase-1/expert.data.md",
            "review.md",
            "summary.md",
            "transcript.md",
            "phase-1/raw/expert.data.txt",
        ]
        .map(String::from)
        .into();
        reader_first(&mut paths, "summary.md");
        assert_eq!(
            paths,
            [
                "summary.md",
                "review.md",
                "transcript.md",
                "council.json",
                "journal.jsonl",
                "phase-1/expert.data.md",
                "phase-1/raw/expert.data.txt",
            ]
        );
    }
}
