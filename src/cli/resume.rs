//! `quorum resume DIR`: picks an interrupted debate up from its journal.
//!
//! The journal is folded back into a fresh protocol (see
//! `engine::resume`), the agents are rebuilt from the setup it recorded, and
//! the engine carries on: the calls that had not finished are started again,
//! the moderator is asked about the items still undecided, and the artifacts
//! end up as an uninterrupted run would have left them. With `--reopen`, a
//! finished debate whose deferred items were accepted afterwards goes through
//! another revision and evaluation round.
//!
//! Not responsible for the fold itself or for how a debate is shown.

use std::path::Path;
use std::process::ExitCode;

use crate::artifact::{DebateLock, Journal, RunDir, truncate_torn_tail};
use crate::config::detect::SystemEnvironment;
use crate::engine::resume::{Folded, Recorded};
use crate::engine::{ModerationPolicy, Moderator, ResumePoint, RoleAgent, WhenOver};
use crate::protocol::{Outcome, Protocol};
use crate::text::sanitize;

use super::headless::{Watch, watch};
use super::prepare::{Rebuilt, Reloaded, rebuild, reload};
use super::{Failure, ResumeArgs, usage};

pub async fn run(args: ResumeArgs) -> ExitCode {
    super::exit_code(resume(args).await)
}

pub(super) async fn resume(args: ResumeArgs) -> Result<ExitCode, Failure> {
    let dir = args.dir.as_path();
    let (
        lock,
        Reloaded {
            recorded,
            folded,
            history,
        },
    ) = lock_and_reload(dir, "quorum resume").map_err(usage)?;
    let description = folded.protocol.describe();

    if args.reopen {
        if folded.protocol.outcome().is_none() {
            return Err(usage(format!(
                "{} has no verdict yet: resume it without --reopen",
                dir.display()
            )));
        }
        if !folded.protocol.reopen_pending() {
            return Err(usage(format!(
                "nothing to reopen in {}: no deferred item was accepted after the verdict \
                 (accept one with `quorum open {} --resolve ID=accept`)",
                dir.display(),
                super::shell_path(dir)
            )));
        }
    } else if folded.is_finished() {
        // A crash may have come between a settlement's journal line and
        // the files it changes.
        let run_dir = RunDir::open(dir)?;
        report_swept(&run_dir, &*folded.protocol)?;
        let rewritten =
            crate::engine::resume::rewrite_stale_documents(&folded, &recorded.records, &run_dir)?;
        if !rewritten.is_empty() {
            eprintln!(
                "quorum: brought {} up to date with the journal",
                rewritten.join(", ")
            );
        }
        println!(
            "{} is finished: {}; nothing to resume",
            dir.display(),
            outcome_words(folded.protocol.outcome())
        );
        if folded.protocol.reopen_pending() {
            println!(
                "deferred items were accepted after the verdict: `quorum resume {} --reopen` runs another round",
                super::shell_path(dir)
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let Some(setup) = recorded.setup.as_ref() else {
        return Err(usage(format!(
            "{} was recorded by a quorum that did not keep its agents in the journal; it can be read (quorum open) but not resumed",
            recorded.journal_path.display()
        )));
    };
    let Rebuilt {
        roster,
        alternatives,
        human_roles,
        human_desk,
    } = rebuild_agents(setup, &recorded, &folded, args.on.config.as_deref())?;
    let interactive = !args.on.headless
        && std::io::IsTerminal::is_terminal(&std::io::stdin())
        && std::io::IsTerminal::is_terminal(&std::io::stdout());
    if !interactive && !human_roles.is_empty() {
        return Err(usage(format!(
            "{} played by a person (`human`): resume it in a terminal, without --headless",
            human_roles.join(", ")
        )));
    }

    let (journal, run_dir) = take_over(&recorded, dir, &*folded.protocol)?;
    let point = ResumePoint::new(&folded, &recorded.records);
    let budget = crate::engine::spending::recorded_limit(
        setup.budget.unwrap_or_default(),
        recorded.records.iter().map(|record| &record.event),
    );
    let moderation = args.on.moderation.unwrap_or(setup.moderation);

    if interactive {
        let person_moderates = matches!(
            args.on.moderation,
            None | Some(ModerationPolicy::Ask | ModerationPolicy::Person)
        );
        let moderator = if person_moderates {
            Moderator::external()
        } else {
            Moderator::policy(moderation)
        };
        let (engine, updates_rx) = super::engine_with_updates(
            folded.protocol,
            run_dir.clone(),
            journal,
            roster,
            moderator,
            history.into_iter().map(|(_, update)| update),
        );
        let engine = engine
            .with_human_desk(human_desk)
            .with_alternatives(alternatives.clone())
            .with_budget(budget, WhenOver::Ask)
            .with_budget_raised(args.on.budget.limit());
        let reopen = args.reopen;
        let code = super::interactive::attach(
            engine,
            move |engine| engine.resume(point, reopen),
            super::interactive::Session {
                run_dir: &run_dir,
                alternatives: &alternatives,
                updates: updates_rx,
            },
            args.on.theme.as_deref(),
        )
        .await?;
        drop(lock);
        return Ok(code);
    }

    eprintln!(
        "quorum: resuming the {} of {:?} from {}",
        description.label,
        sanitize(&description.topic),
        run_dir.path().display()
    );
    eprintln!("quorum: {}", resume_summary(&point, &folded, args.reopen));
    // A fork of a debate a person moderated decides the items it copies as
    // they did; only new items need `--moderation`.
    let past = args
        .past_rulings
        .filter(|_| setup.moderation == ModerationPolicy::Ask);
    let policy = match &past {
        Some(_) => args.on.moderation,
        None => Some(moderation),
    };
    let asks_on_stdin = policy == Some(ModerationPolicy::Ask);
    let person = policy == Some(ModerationPolicy::Person);
    let moderator = match past {
        Some(rulings) => Moderator::past_rulings(rulings, args.on.moderation),
        None => super::headless::moderator_for(moderation),
    };
    let (engine, updates_rx) = super::engine_with_updates(
        folded.protocol,
        run_dir.clone(),
        journal,
        roster,
        moderator,
        [],
    );
    let engine = engine
        .with_alternatives(alternatives)
        .without_stream_updates()
        .with_budget(budget, super::headless::when_over(person))
        .with_budget_raised(args.on.budget.limit());
    let controller = engine.controller();
    let code = watch(
        engine.resume(point, args.reopen),
        Watch {
            updates: updates_rx,
            controller,
            run_dir: &run_dir,
            hold_moderation_lines: asks_on_stdin,
            person,
            json: args.on.json,
        },
    )
    .await?;
    drop(lock);
    Ok(code)
}

/// The agents of a debate taken up again, as its journal recorded them,
/// with every switch the moderator made since applied.
fn rebuild_agents(
    setup: &crate::engine::RunSetup,
    recorded: &Recorded,
    folded: &Folded,
    config: Option<&Path>,
) -> Result<Rebuilt, Failure> {
    let Rebuilt {
        mut roster,
        alternatives,
        human_roles,
        human_desk,
    } = rebuild(setup, &recorded.journal_path, config, &SystemEnvironment)
        .map_err(|error| usage(super::with_causes(&error)))?;
    for (role, label, _) in &folded.switches {
        let Some(alternative) = alternatives
            .iter()
            .find(|alternative| alternative.agent.info().to_string() == *label)
        else {
            return Err(usage(format!(
                "the moderator had switched {role} to {label}, which cannot be built now (is its key set?)"
            )));
        };
        let timeout = roster
            .get(role)
            .map(|current| current.timeout)
            .unwrap_or_default();
        roster.insert(
            role.clone(),
            RoleAgent {
                agent: alternative.agent.clone(),
                timeout,
            },
        );
    }
    Ok(Rebuilt {
        roster,
        alternatives,
        human_roles,
        human_desk,
    })
}

/// An interrupted debate taken up again with no person at a terminal,
/// ready to run: what `quorum mcp`'s `resume` tool drives. Nothing is
/// printed on stdout (the tool's transport); a finished debate, one
/// recorded before agents were journaled, or one with a role a person
/// plays is refused in words.
pub(super) struct TakenUp {
    pub lock: DebateLock,
    pub run_dir: RunDir,
    pub engine: crate::engine::Engine,
    pub updates: tokio::sync::mpsc::UnboundedReceiver<crate::engine::Update>,
    pub point: ResumePoint,
    pub label: String,
}

pub(super) fn take_up(
    dir: &Path,
    config: Option<&Path>,
    moderator: impl FnOnce(ModerationPolicy) -> Moderator,
    when_over: WhenOver,
) -> Result<TakenUp, String> {
    let message = |failure: Failure| match failure {
        Failure::Usage(message) => message,
        Failure::Run(error) => format!("{error:#}"),
    };
    let (
        lock,
        Reloaded {
            recorded, folded, ..
        },
    ) = lock_and_reload(dir, "quorum mcp resume")?;
    if folded.is_finished() {
        return Err(format!(
            "{} is finished: {}; nothing to resume",
            dir.display(),
            outcome_words(folded.protocol.outcome())
        ));
    }
    let Some(setup) = recorded.setup.as_ref() else {
        return Err(format!(
            "{} was recorded by a quorum that did not keep its agents in the journal; it cannot be resumed",
            recorded.journal_path.display()
        ));
    };
    let Rebuilt {
        roster,
        alternatives,
        human_roles,
        ..
    } = rebuild_agents(setup, &recorded, &folded, config).map_err(message)?;
    if !human_roles.is_empty() {
        return Err(format!(
            "{} played by a person (`human`): resume it in a terminal with quorum resume",
            human_roles.join(", ")
        ));
    }
    let label = folded.protocol.describe().label;
    let (journal, run_dir) =
        take_over(&recorded, dir, &*folded.protocol).map_err(|error| format!("{error:#}"))?;
    let point = ResumePoint::new(&folded, &recorded.records);
    let budget = crate::engine::spending::recorded_limit(
        setup.budget.unwrap_or_default(),
        recorded.records.iter().map(|record| &record.event),
    );
    let (engine, updates) = super::engine_with_updates(
        folded.protocol,
        run_dir.clone(),
        journal,
        roster,
        moderator(setup.moderation),
        [],
    );
    let engine = engine
        .with_alternatives(alternatives)
        .without_stream_updates()
        .with_budget(budget, when_over);
    Ok(TakenUp {
        lock,
        run_dir,
        engine,
        updates,
        point,
        label,
    })
}

/// Takes the lock of the debate in `dir` for `purpose`, then reads the
/// debate under it (the journal may have grown until then). A folder that
/// is not a debate is refused before any lock file is made there. Errors
/// are messages for the person.
pub(super) fn lock_and_reload(dir: &Path, purpose: &str) -> Result<(DebateLock, Reloaded), String> {
    Recorded::read(dir).map_err(|error| super::with_causes(&error))?;
    // The folder itself is checked before anything is written in it.
    RunDir::open(dir).map_err(|error| super::with_causes(&error))?;
    let lock = DebateLock::acquire(dir, purpose).map_err(|error| super::with_causes(&error))?;
    if let Some(stale) = lock.recovered_stale() {
        eprintln!("quorum: recovered a stale lock: {stale} had stopped without letting go");
    }
    let reloaded = reload(dir).map_err(|error| super::with_causes(&error))?;
    Ok((lock, reloaded))
}

/// Takes a debate's folder over for writing, under its lock: a last journal
/// line a crash cut short is dropped, the journal is opened to append, and
/// the remains of cut writes are removed; each repair is reported.
pub(super) fn take_over(
    recorded: &Recorded,
    dir: &Path,
    protocol: &dyn Protocol,
) -> color_eyre::Result<(Journal, RunDir)> {
    if let Some(tail) = &recorded.torn_tail {
        eprintln!(
            "quorum: {} line {} was cut short by the interruption ({} bytes): dropped",
            recorded.journal_path.display(),
            tail.line,
            tail.bytes
        );
        truncate_torn_tail(&recorded.journal_path, tail)?;
    }
    let journal = Journal::open_append(&recorded.journal_path, recorded.next_seq())?;
    let run_dir = RunDir::open(dir)?;
    report_swept(&run_dir, protocol)?;
    Ok((journal, run_dir))
}

/// Removes what writes cut short by the interruption left, and says so.
pub(super) fn report_swept(
    run_dir: &RunDir,
    protocol: &dyn Protocol,
) -> Result<(), crate::artifact::ArtifactError> {
    let artifacts: Vec<String> = protocol
        .documents()
        .into_iter()
        .map(|document| document.path)
        .collect();
    for name in run_dir.remove_interrupted_writes(&artifacts)? {
        eprintln!("quorum: removed {name}, the remains of a write the interruption cut short");
    }
    Ok(())
}

/// One line on what the journal held and what happens next.
fn resume_summary(point: &ResumePoint, folded: &Folded, reopen: bool) -> String {
    let finished = folded
        .protocol
        .usage()
        .map_or(0, |ledger| ledger.calls().len());
    let mut line = format!(
        "{} inputs on record, {finished} calls finished, at {}",
        folded.inputs,
        folded.protocol.progress().stage
    );
    if reopen {
        line.push_str("; reopening for the items accepted after the verdict");
        return line;
    }
    if !point.unfinished.is_empty() {
        let ids: Vec<&str> = point
            .unfinished
            .iter()
            .map(|call| call.request.call_id.as_str())
            .collect();
        line.push_str(&format!("; starting again: {}", ids.join(", ")));
    }
    if point.moderation.is_some() {
        let undecided = folded
            .protocol
            .board()
            .items
            .iter()
            .filter(|item| item.decision.is_none())
            .count();
        let items = folded
            .protocol
            .describe()
            .items
            .map_or_else(|| "items".into(), |items| items.title.to_lowercase());
        line.push_str(&format!("; {undecided} of the {items} still to decide"));
    }
    line
}

fn outcome_words(outcome: Option<&Outcome>) -> String {
    match outcome {
        Some(Outcome::Decided { verdict, rule }) => format!("{} ({rule})", verdict.as_str()),
        Some(Outcome::Completed { deliverable, .. }) => format!("completed ({deliverable})"),
        Some(Outcome::Failed { reason }) => format!("no verdict ({reason})"),
        None => "no verdict".into(),
    }
}
