//! Interactive runs: the same engine as headless, with the TUI attached and
//! the person at the keyboard as the moderator.

use std::process::ExitCode;
use std::time::Instant;

use color_eyre::eyre::WrapErr;
use tokio::sync::mpsc;

use crate::artifact::RunDir;
use crate::engine::{
    Alternative, Engine, EngineError, ModerationPolicy, Moderator, Update, WhenOver,
};
use crate::protocol::{Outcome, Protocol};
use crate::tui::run::Ending;
use crate::tui::theme::{Theme, no_color_requested};

use super::prepare::Prepared;
use super::session::{open_record, resume_hint};
use super::{EXIT_FAILURE, EXIT_USAGE, RunFlags};

/// The theme of a prepared debate: `--theme`, else the configuration's;
/// an error names which of the two, with the file and line, ready for
/// stderr.
pub fn theme_of(flags: &RunFlags, prepared: &Prepared) -> Result<Theme, String> {
    choose_theme(flags.theme.as_deref(), prepared.theme.as_deref()).map_err(|error| {
        let source = if flags.theme.is_some() {
            "--theme"
        } else {
            &prepared.theme_source
        };
        format!("{source}: {}", crate::text::for_stderr(&error))
    })
}

/// The pace of streamed text a prepared debate's interface draws at:
/// `--stream-fps`, else the configuration's `stream_fps`, else the default
/// (`None`); out of range is an error naming where it was given.
pub fn stream_fps_of(flags: &RunFlags, prepared: &Prepared) -> Result<Option<f64>, String> {
    let (fps, source) = match (flags.stream_fps, &prepared.stream_fps) {
        (Some(fps), _) => (fps, "--stream-fps".to_string()),
        (None, Some((fps, source))) => (*fps, source.clone()),
        (None, None) => return Ok(None),
    };
    let (min, max) = (
        crate::tui::pacer::MIN_STREAM_FPS,
        crate::tui::pacer::MAX_STREAM_FPS,
    );
    if !(min..=max).contains(&fps) {
        return Err(format!(
            "{source}: {fps} is not a frame rate from {min} to {max}"
        ));
    }
    Ok(Some(fps))
}

/// Default theme name.
pub const DEFAULT_THEME: &str = "dark";

/// The theme `--theme` names, else the configuration's, else the default,
/// with `NO_COLOR` applied.
pub fn choose_theme(flag: Option<&str>, configured: Option<&str>) -> Result<Theme, String> {
    let name = flag.or(configured).unwrap_or(DEFAULT_THEME);
    let user_dir = crate::prompts::default_override_dir()
        .and_then(|prompts| prompts.parent().map(|quorum| quorum.join("themes")));
    let theme = Theme::load(name, user_dir.as_deref()).map_err(|error| error.to_string())?;
    Ok(if no_color_requested() {
        theme.no_color()
    } else {
        theme
    })
}

/// Lines the log's writer thread may have queued before new ones are
/// dropped. The crate's default, 128,000, is a channel of 4 MB that is
/// written through when it is made: a third of the interface's memory at
/// start, for a log that writes about ten lines a debate.
const LOG_QUEUE_LINES: usize = 1024;

/// Where the interface's log goes: `$XDG_STATE_HOME/quorum/quorum.log`
/// (never the screen). The guard flushes it when dropped.
pub(super) fn log_to_file() -> Option<tracing_appender::non_blocking::WorkerGuard> {
    use etcetera::BaseStrategy;
    let dir = etcetera::choose_base_strategy()
        .ok()?
        .state_dir()?
        .join("quorum");
    std::fs::create_dir_all(&dir).ok()?;
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(LOG_QUEUE_LINES)
        .finish(tracing_appender::rolling::never(&dir, "quorum.log"));
    let filter = tracing_subscriber::EnvFilter::try_from_env("QUORUM_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(guard)
}

pub async fn drive(prepared: Prepared, flags: &RunFlags) -> color_eyre::Result<ExitCode> {
    let _log = log_to_file();
    let theme = match theme_of(flags, &prepared) {
        Ok(theme) => theme,
        Err(error) => {
            eprintln!("quorum: {error}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    match stream_fps_of(flags, &prepared) {
        Ok(Some(fps)) => {
            let _ = crate::tui::pacer::set_stream_fps(fps);
        }
        Ok(None) => {}
        Err(error) => {
            eprintln!("quorum: {error}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    }
    let Prepared {
        mut definition,
        roster,
        moderation,
        prompts,
        human_desk,
        alternatives,
        setup,
        handed,
        ..
    } = prepared;
    // A person at the keyboard decides whether a malformed or skipped judge
    // is re-run; with an automatic policy nobody would answer.
    // `ask` and `person` mean "a person decides": at the interface that is
    // the items list, not stdin (which the interface reads as keys), nor
    // another terminal.
    let person_moderates = matches!(
        flags.moderation,
        None | Some(ModerationPolicy::Ask | ModerationPolicy::Person)
    );
    definition.set_moderated(person_moderates);
    let protocol = crate::protocol::registry::build(&definition, prompts)
        .map_err(|error| color_eyre::eyre::eyre!(error))?;
    let mut setup = setup;
    if person_moderates {
        // Resumed without the interface, the items left are asked on stdin,
        // never decided by a default the person did not choose.
        setup.moderation = ModerationPolicy::Ask;
    }
    let (run_dir, journal, _lock) = open_record(&definition, &setup, flags)?;
    if let Some((dir, handoff)) = &handed {
        super::chain::record(&run_dir, dir, handoff)?;
    }
    let moderator = if person_moderates {
        Moderator::external()
    } else {
        Moderator::policy(moderation)
    };
    let (engine, updates_rx) =
        super::engine_with_updates(protocol, run_dir.clone(), journal, roster, moderator, []);
    let engine = engine
        .with_human_desk(human_desk)
        .with_alternatives(alternatives.clone())
        .with_budget(setup.budget.unwrap_or_default(), WhenOver::Ask);
    attach_with_theme(
        engine,
        Engine::run,
        Session {
            run_dir: &run_dir,
            alternatives: &alternatives,
            updates: updates_rx,
        },
        theme,
    )
    .await
}

/// What the interface needs besides the engine.
pub(super) struct Session<'a> {
    pub run_dir: &'a RunDir,
    pub alternatives: &'a [Alternative],
    pub updates: mpsc::UnboundedReceiver<Update>,
}

/// Runs `engine` (through `start`: a new debate or a resumed one) with the
/// interface attached, in the theme `--theme` names (or the default), until
/// the person quits; prints how it ended.
pub(super) async fn attach<F, Fut>(
    engine: Engine,
    start: F,
    session: Session<'_>,
    theme: Option<&str>,
) -> color_eyre::Result<ExitCode>
where
    F: FnOnce(Engine) -> Fut,
    Fut: Future<Output = Result<(Outcome, Box<dyn Protocol>), EngineError>> + Send + 'static,
{
    let theme = match choose_theme(theme, None) {
        Ok(theme) => theme,
        Err(error) => {
            eprintln!(
                "quorum: --theme: {}",
                crate::text::for_stderr(&error.to_string())
            );
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let _log = log_to_file();
    attach_with_theme(engine, start, session, theme).await
}

async fn attach_with_theme<F, Fut>(
    engine: Engine,
    start: F,
    session: Session<'_>,
    theme: Theme,
) -> color_eyre::Result<ExitCode>
where
    F: FnOnce(Engine) -> Fut,
    Fut: Future<Output = Result<(Outcome, Box<dyn Protocol>), EngineError>> + Send + 'static,
{
    let Session {
        run_dir,
        alternatives,
        updates,
    } = session;
    let info = crate::tui::DebateInfo::of(engine.protocol(), run_dir.path().to_path_buf());
    let deliverable = info.deliverable.clone();
    let controller = engine.controller();
    tracing::info!(run_dir = %run_dir.path().display(), "interactive debate started");
    let task = tokio::spawn(start(engine));
    let mut app = crate::tui::App::new(info, theme, Instant::now());
    app.set_alternatives(
        alternatives
            .iter()
            .map(|alternative| alternative.agent.info().to_string()),
    );
    let ending = crate::tui::run::run(app, updates, controller, task)
        .await
        .wrap_err("running the interface")?;
    let record = run_dir.path().display();
    tracing::info!("interface closed");
    Ok(match ending {
        Ending::Finished(outcome) => {
            super::library::file_ended(run_dir.path());
            println!(
                "{}\nFull record: {}",
                outcome_line(&outcome),
                run_dir.path().join(&deliverable).display()
            );
            ExitCode::from(outcome.exit_code() as u8)
        }
        Ending::Interrupted => {
            eprintln!(
                "quorum: stopped before it finished; the record so far is in {record}\n{}",
                resume_hint(run_dir.path())
            );
            ExitCode::from(EXIT_FAILURE)
        }
        Ending::OverBudget(question) => {
            eprintln!("{}", super::budget_stop_lines(run_dir.path(), &question));
            ExitCode::from(super::EXIT_BUDGET)
        }
        Ending::Failed(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error));
            ExitCode::from(EXIT_FAILURE)
        }
    })
}

pub(super) fn outcome_line(outcome: &crate::protocol::Outcome) -> String {
    crate::text::sanitize(&outcome.headline())
}
