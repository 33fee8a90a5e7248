//! Headless runs: progress lines on stderr, the result on stdout.
//!
//! The result is the opening of `summary.md`, word for word, and a pointer to
//! the record (RF-07..10); `--json` prints it as one JSON object instead.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use chrono::Local;
use tokio::sync::mpsc;

use crate::artifact::RunDir;
use crate::engine::{
    Command, Controller, EngineError, ModerationPolicy, Moderator, Update, WhenOver,
};
use crate::protocol::record::UsageYaml;
use crate::protocol::{Input, LogKind, Outcome, OverrideAction, Protocol};
use crate::text::sanitize;

use super::prepare::Prepared;
use super::session::{open_record, resume_hint};
use super::{EXIT_FAILURE, RunFlags};

/// Runs a prepared debate headless: progress on stderr, the result on
/// stdout. With `--moderation person` the rulings come from `quorum attach`
/// in another terminal: the run waits for them (and for the person's word
/// on a held round or a step held at the budget), and says so.
pub(super) async fn drive(
    mut prepared: Prepared,
    flags: &RunFlags,
) -> color_eyre::Result<ExitCode> {
    let person = prepared.moderation == ModerationPolicy::Person;
    // A person moderates live: a round that needs their word waits for it.
    prepared.definition.set_moderated(person);
    let protocol = prepared.protocol();
    let Prepared {
        definition,
        label,
        roster,
        moderation,
        setup,
        handed,
        ..
    } = prepared;
    let (run_dir, journal, _lock) = open_record(&definition, &setup, flags)?;
    if let Some((dir, handoff)) = &handed {
        super::chain::record(&run_dir, dir, handoff)?;
        eprintln!(
            "quorum: taking what the {} in {} hands on",
            handoff.from,
            dir.display()
        );
    }
    eprintln!(
        "quorum: {label} of {:?}\nquorum: recording to {}",
        sanitize(definition.topic()),
        run_dir.path().display()
    );
    let (engine, updates_rx) = super::engine_with_updates(
        protocol,
        run_dir.clone(),
        journal,
        roster,
        moderator_for(moderation),
        [],
    );
    let engine = engine
        .without_stream_updates()
        .with_budget(setup.budget.unwrap_or_default(), when_over(person));
    let controller = engine.controller();
    watch(
        engine.run(),
        Watch {
            updates: updates_rx,
            controller,
            run_dir: &run_dir,
            hold_moderation_lines: moderation == ModerationPolicy::Ask,
            person,
            json: flags.json,
        },
    )
    .await
}

/// The moderator of a headless run under `policy`: with `person`, nobody
/// here (the rulings come through the inbox [`watch`] tails).
pub(super) fn moderator_for(policy: ModerationPolicy) -> Moderator {
    match policy {
        ModerationPolicy::Person => Moderator::external(),
        policy => Moderator::policy(policy),
    }
}

/// Who answers for a step held at the budget: the person moderating from
/// another terminal, or nobody (the run stops before the step).
pub(super) fn when_over(person: bool) -> WhenOver {
    if person {
        WhenOver::Ask
    } else {
        WhenOver::Stop
    }
}

/// What a headless run shows and steers while the engine runs.
pub(super) struct Watch<'a> {
    pub updates: mpsc::UnboundedReceiver<Update>,
    pub controller: Controller,
    pub run_dir: &'a RunDir,
    /// `--moderation ask`: hold moderation lines until the questions are done.
    pub hold_moderation_lines: bool,
    /// `--moderation person`: the rulings come from `quorum attach` through
    /// the debate's inbox, which is watched while the debate runs.
    pub person: bool,
    pub json: bool,
}

/// Runs `debate` with progress on stderr until its outcome, then prints the
/// result; on SIGINT, SIGTERM or SIGHUP it stops, leaving a resumable record,
/// and says how to continue.
pub(super) async fn watch<F>(debate: F, watch: Watch<'_>) -> color_eyre::Result<ExitCode>
where
    F: Future<Output = Result<(Outcome, Box<dyn Protocol>), EngineError>> + Send + 'static,
{
    use color_eyre::eyre::WrapErr;
    // Nobody watches the answers stream here: their sockets are read at the
    // pace the record is written, not a frame's.
    crate::agent::http::paced::read_unwatched();
    let run_dir = watch.run_dir;
    let inbox = watch
        .person
        .then(|| crate::engine::inbox::watch_inbox(run_dir.path(), watch.controller.clone()));
    let printer = tokio::spawn(print_progress(
        watch.updates,
        Printing {
            hold_during_moderation: watch.hold_moderation_lines,
            attach: watch.person.then(|| super::shell_path(run_dir.path())),
        },
        watch.controller,
    ));
    let _backstop = crate::signals::Backstop::install(crate::agent::command::kill_every_group_now);
    let mut run = tokio::spawn(debate);
    let result = tokio::select! {
        result = &mut run => result.wrap_err("the debate's task")?,
        signal = interrupted() => {
            // Dropping the engine cancels its calls; a command agent's
            // process group gets SIGTERM and, after its grace, SIGKILL.
            run.abort();
            let _ = run.await;
            tokio::time::sleep(Duration::from_millis(COMMAND_GRACE_MS)).await;
            eprintln!(
                "quorum: {signal}: stopped before it finished; the record so far is in {}\n{}",
                run_dir.path().display(),
                resume_hint(run_dir.path())
            );
            return Ok(ExitCode::from(EXIT_FAILURE));
        }
    };
    let _ = printer.await;
    if let Some(inbox) = inbox {
        inbox.abort();
    }
    let (outcome, protocol) = match result {
        Ok(ended) => ended,
        Err(EngineError::OverBudget(question)) => {
            eprintln!("{}", super::budget_stop_lines(run_dir.path(), &question));
            return Ok(ExitCode::from(super::EXIT_BUDGET));
        }
        Err(error) => return Err(error).wrap_err("running the debate"),
    };
    if let Some(usage) = protocol.usage_line() {
        eprintln!("quorum: usage: {usage}");
    }
    super::library::file_ended(run_dir.path());
    print_result(&outcome, protocol.as_ref(), run_dir.path(), watch.json)?;
    Ok(ExitCode::from(outcome.exit_code() as u8))
}

/// How long an interrupted run waits, in milliseconds, for the programs of
/// cancelled `command` calls to be killed before it exits (their grace is
/// [`crate::agent::command::KILL_GRACE_MS`]).
const COMMAND_GRACE_MS: u64 = crate::agent::command::KILL_GRACE_MS + 100;

/// Resolves when SIGINT, SIGTERM or SIGHUP arrives, with its name.
async fn interrupted() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    let name = tokio::select! {
        _ = int.recv() => "interrupted",
        _ = term.recv() => "terminated",
        _ = hup.recv() => "hung up",
    };
    crate::signals::acknowledge();
    name
}

/// How the progress lines are printed.
struct Printing {
    /// `--moderation ask`: the lines of the moderation stage wait until
    /// the person has answered.
    hold_during_moderation: bool,
    /// `--moderation person`: the debate's folder as a shell word, for the
    /// line that says a person is waited for and how they can answer.
    attach: Option<String>,
}

/// Prints log entries as they come; chunks are for the TUI. With
/// `--moderation ask` the lines of the moderation stage wait until the
/// person has answered, so they never land in the middle of a question.
///
/// Nobody is at a keyboard to decide about a held evaluation round (one
/// recorded by an interactive run and resumed here), so its missing judges
/// are let go, as a headless run would have done from the start; unless a
/// person moderates from another terminal: then the run waits for them,
/// and a line says so once for each thing it waits on them for.
async fn print_progress(
    mut updates: mpsc::UnboundedReceiver<Update>,
    printing: Printing,
    controller: Controller,
) {
    let mut stderr = std::io::stderr();
    let mut held: Vec<String> = Vec::new();
    let mut moderating = false;
    let mut released = std::collections::BTreeSet::new();
    let mut waits = crate::tui::notify::RulingWatch::default();
    while let Some(update) = updates.recv().await {
        if let Some(attach) = &printing.attach
            && let Some(wanted) = waits.see(&update)
        {
            let _ = writeln!(stderr, "{}", waiting_line(&wanted, attach));
        }
        match update {
            Update::Progress(progress) => {
                moderating = printing.hold_during_moderation && progress.stage == "moderation";
                if !moderating {
                    for line in held.drain(..) {
                        let _ = writeln!(stderr, "{line}");
                    }
                }
            }
            Update::Board(board) if printing.attach.is_none() => {
                for call_id in board.held_calls {
                    if released.insert(call_id.clone()) {
                        controller.send(Command::Moderator(Input::Override {
                            call_id,
                            action: OverrideAction::Skip,
                        }));
                    }
                }
            }
            Update::Log(entry) => {
                let line = progress_line(&entry);
                if moderating && entry.kind == LogKind::Moderation {
                    held.push(line);
                } else {
                    let _ = writeln!(stderr, "{line}");
                }
            }
            Update::BudgetReached(question) => {
                let then = match printing.attach {
                    Some(_) => "",
                    None => "; stopping once the calls under way have answered",
                };
                let _ = writeln!(
                    stderr,
                    "$ budget: {}{then}",
                    crate::text::for_stderr(&question.describe())
                );
            }
            Update::BudgetDecided { decision } => {
                if let Some(line) = budget_decided_line(&decision, printing.attach.is_some()) {
                    let _ = writeln!(stderr, "{line}");
                }
            }
            _ => {}
        }
    }
    for line in held {
        let _ = writeln!(stderr, "{line}");
    }
}

/// The line that says a person's decision about a held step took effect:
/// a raised limit always; going on once or stopping when a person chose it
/// from another terminal.
fn budget_decided_line(decision: &crate::engine::BudgetDecision, person: bool) -> Option<String> {
    use crate::engine::BudgetDecision;
    match decision {
        BudgetDecision::Raise { limit } => Some(format!("$ budget raised: {}", limit.describe())),
        BudgetDecision::GoOnce if person => {
            Some("$ budget: the held step goes on once, over the budget".into())
        }
        BudgetDecision::Stop if person => {
            Some("$ budget: stopping once the calls under way have answered".into())
        }
        _ => None,
    }
}

/// `? 14:03:11 waiting   — 6 items wait for a person: run quorum attach
/// DIR`: what a run under `--moderation person` waits for, and how to give
/// it (`attach` is the debate's folder as a shell word).
fn waiting_line(wanted: &crate::tui::notify::Wanted, attach: &str) -> String {
    use crate::tui::notify::Wanted;
    let what = match wanted {
        Wanted::Items(1) => "1 item waits for a person".to_string(),
        Wanted::Items(count) => format!("{count} items wait for a person"),
        Wanted::Budget => "a step held at the budget waits for a person".to_string(),
        Wanted::Held(1) => "a round waits for a person to re-run a judge or go on".to_string(),
        Wanted::Held(count) => {
            format!("a round waits for a person to re-run {count} judges or go on")
        }
    };
    format!(
        "? {} {:<9} — {what}: run quorum attach {attach}",
        Local::now().format("%H:%M:%S"),
        "waiting"
    )
}

/// One stderr line for a transcript entry.
pub(super) fn progress_line(entry: &crate::protocol::LogEntry) -> String {
    let call = entry
        .call_id
        .as_deref()
        .map(|id| format!(" {id}"))
        .unwrap_or_default();
    let failed = entry.details.iter().any(|line| line.starts_with('✗'));
    let marker = match entry.kind {
        LogKind::Cited if failed => "!",
        LogKind::Timeout
        | LogKind::Failure
        | LogKind::Malformed
        | LogKind::LeftOut
        | LogKind::Skip => "!",
        LogKind::Retry | LogKind::Cancel | LogKind::Override => "~",
        LogKind::Verdict | LogKind::Stage => "#",
        _ => " ",
    };
    format!(
        "{marker} {} {:<9}{call} — {}",
        entry.at.with_timezone(&Local).format("%H:%M:%S"),
        entry.kind.label(),
        sanitize(&crate::words::one_line(&entry.message))
    )
}

/// The result of a finished debate as `--json` prints it (and `quorum
/// mcp`'s `result` tool returns it): the verdict and its rule, or the
/// failure, the exit code, the folder and deliverable, the summary's lead,
/// and what the protocol adds of its own.
pub(super) fn result_json(
    outcome: &Outcome,
    protocol: &dyn Protocol,
    dir: &Path,
) -> serde_json::Value {
    let description = protocol.describe();
    let deliverable = dir.join(&description.deliverable);
    let (verdict, rule, reason) = match outcome {
        Outcome::Decided { verdict, rule } => (Some(verdict.as_str()), Some(rule.as_str()), None),
        Outcome::Completed { .. } => (None, None, None),
        Outcome::Failed { reason } => (None, None, Some(reason.as_str())),
    };
    let mut value = serde_json::json!({
        "protocol": description.label,
        "verdict": verdict,
        "rule": rule,
        "failure": reason,
        "exit_code": outcome.exit_code(),
        "run_dir": dir.display().to_string(),
        "deliverable": deliverable.display().to_string(),
        "summary": protocol.summary_lead().unwrap_or_default(),
        "progress": protocol.progress(),
        "usage": protocol.usage().and_then(UsageYaml::of),
    });
    if let serde_json::Value::Object(map) = &mut value {
        map.extend(protocol.result_fields());
    }
    value
}

fn print_result(
    outcome: &Outcome,
    protocol: &dyn Protocol,
    dir: &Path,
    json: bool,
) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    let lead = protocol.summary_lead().unwrap_or_default();
    let description = protocol.describe();
    let deliverable = dir.join(&description.deliverable);
    if json {
        let value = result_json(outcome, protocol, dir);
        writeln!(
            stdout,
            "{}",
            crate::text::terminal_safe_json(
                &serde_json::to_string_pretty(&value).unwrap_or_default()
            )
        )
    } else {
        writeln!(
            stdout,
            "{}\n\nFull record: {}",
            sanitize(&lead),
            deliverable.display()
        )?;
        // What the protocol delivered outside the run folder (a council's
        // deliverable pair).
        for publication in protocol.publications() {
            writeln!(stdout, "Delivered: {}", publication.path.display())?;
        }
        Ok(())
    }
}
