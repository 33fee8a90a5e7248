//! `quorum fork DIR --at STAGE[:ROUND]`: a new debate that shares
//! everything `DIR` recorded before that point and runs on from there,
//! with another agent for a role (`--agent ROLE=PROVIDER[:MODEL]`) or, in a
//! decision review forked before its critique, another stance
//! (`--critique`).
//!
//! The fork is self-contained: its own folder beside the origin (or under
//! `--out`) holds a copy of the origin's journal up to the first record at
//! which the debate stood at STAGE, the new agents as the moderator's
//! switches right after it, and `fork.json` naming the origin. Resuming that
//! journal (the same code as `quorum resume`) starts again every call the
//! cut left unfinished and writes every file. The origin is only read.
//!
//! Not responsible for running the debate on (`resume`) nor for comparing
//! the two (`compare`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use chrono::Utc;

use crate::artifact::{Journal, RunDir, topic_slug, write_atomic};
use crate::config::detect::SystemEnvironment;
use crate::engine::resume::{JOURNAL_FILE, Recorded, fold};
use crate::engine::{JournalEvent, PastRuling, Update};
use crate::prompts::PromptSet;
use crate::protocol::Input;

use super::{Failure, ForkArgs, ResumeArgs, usage};

/// `fork.json` as the public paths of this module have named it.
pub use super::notes::{FORK_FILE, ForkOrigin, forked_from as origin_of, parse_note};

pub async fn run(args: ForkArgs) -> ExitCode {
    super::exit_code(fork(args).await)
}

/// `STAGE` or `STAGE:ROUND`; errors show `at` clipped.
fn parse_at(at: &str) -> Result<(String, Option<u32>), String> {
    let original = at;
    let shown = crate::text::clipped(at);
    let at = shown.as_str();
    let (stage, round) = match original.split_once(':') {
        Some((stage, round)) => {
            let round = round.trim().parse::<u32>().map_err(|_| {
                format!("--at {at}: the round after `:` is a number (`evaluation:2`)")
            })?;
            (stage, Some(round))
        }
        None => (original, None),
    };
    let stage = stage.trim();
    if stage.is_empty() {
        return Err(format!(
            "--at {at}: name a stage (`critique`, `evaluation:2`)"
        ));
    }
    Ok((stage.to_string(), round))
}

/// The last record of the origin the fork keeps: the first input after
/// which the debate stood at `stage` (in `round`, if given), or its
/// definition when the debate starts there. The error lists where the
/// debate did stand, in order.
fn cut(
    recorded: &Recorded,
    prompts: &Arc<PromptSet>,
    stage: &str,
    round: Option<u32>,
) -> Result<usize, String> {
    let stages = crate::engine::resume::stages_reached(
        || crate::protocol::registry::build(&recorded.definition, prompts.clone()),
        &recorded.records,
    )?;
    if let Some((end, _, _)) = stages
        .iter()
        .find(|(_, at, at_round)| at == stage && round.is_none_or(|round| round == *at_round))
    {
        return Ok(*end);
    }
    let mut reached: Vec<String> = Vec::new();
    for (_, at, at_round) in &stages {
        let here = match at_round {
            0 => at.clone(),
            round => format!("{at}:{round}"),
        };
        if !reached.contains(&here) {
            reached.push(here);
        }
    }
    Err(format!(
        "the debate never stood at {}{}; it went through {}",
        crate::text::clipped(stage),
        round.map(|round| format!(":{round}")).unwrap_or_default(),
        reached.join(", ")
    ))
}

async fn fork(args: ForkArgs) -> Result<ExitCode, Failure> {
    let (stage, round) = parse_at(&args.at).map_err(usage)?;
    // Everything read from the origin is read and checked before anything
    // is created: its journal, folded whole (an impossible record is
    // refused), and the `from.json` the fork will name again.
    let recorded = super::prepare::reload(&args.dir)
        .map_err(|error| usage(super::with_causes(&error)))?
        .recorded;
    let chained = super::notes::handed_from(&args.dir).map_err(usage)?;
    let Some(mut setup) = recorded.setup.clone() else {
        return Err(usage(format!(
            "{} was recorded by a quorum that did not keep its agents in the journal; it cannot be forked",
            recorded.journal_path.display()
        )));
    };
    let prompts = PromptSet::with_overrides(&setup.prompt_overrides, &recorded.journal_path)
        .map_err(|error| usage(format!("{}: {error}", recorded.journal_path.display())))?;
    let prompts = Arc::new(prompts);
    let end = cut(&recorded, &prompts, &stage, round).map_err(|why| {
        usage(format!(
            "cannot fork {} at {}: {why}",
            args.dir.display(),
            crate::text::clipped(&args.at)
        ))
    })?;
    let definition = match &args.critique {
        Some(stance) => {
            let protocol = recorded.definition.protocol();
            let kind = crate::protocol::registry::find(protocol)
                .ok_or_else(|| usage(format!("this quorum does not know protocol `{protocol}`")))?;
            kind.with_critique(&recorded.definition, stance, &stage)
                .map_err(usage)?
        }
        None => recorded.definition.clone(),
    };
    // Each new agent joins as the moderator's switch, right after the cut.
    let mut switches = Vec::new();
    for assignment in &args.agent {
        let Some((role, choice)) = assignment.split_once('=') else {
            return Err(usage(format!(
                "--agent {assignment}: expected ROLE=PROVIDER[:MODEL]"
            )));
        };
        let role = role.trim();
        if !setup.roles.contains_key(role) {
            let roles: Vec<&str> = setup.roles.keys().map(String::as_str).collect();
            return Err(usage(format!(
                "--agent {assignment}: this debate has no role {role}; its roles are {}",
                roles.join(", ")
            )));
        }
        let choice = crate::config::AgentChoice::parse(choice.trim())
            .map_err(|why| usage(format!("--agent {assignment}: {why}")))?;
        let (alternative, label) = super::prepare::resolve_alternative(
            role,
            choice,
            &setup,
            args.on.config.as_deref(),
            &SystemEnvironment,
        )
        .map_err(|error| usage(format!("--agent {assignment}: {error}")))?;
        let price = alternative.price;
        if !setup.alternatives.contains(&alternative) {
            setup.alternatives.push(alternative);
        }
        switches.push(Input::AgentSwitched {
            role: role.to_string(),
            agent: label,
            price,
        });
    }
    let origin = args
        .dir
        .canonicalize()
        .map_err(|error| usage(format!("{}: {error}", args.dir.display())))?;
    let root = match &args.out {
        Some(root) => root.clone(),
        None => origin
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
    };
    let topic = folded_topic(&recorded, &prompts);
    let slug = format!("{}-fork", topic_slug(&topic));
    let run_dir = RunDir::create(&root, &slug, chrono::Local::now())?;
    let mut journal = Journal::create(&run_dir.path().join(JOURNAL_FILE))?;
    for (index, record) in recorded.records[..=end].iter().enumerate() {
        let event = match index {
            0 => JournalEvent::DebateStarted {
                definition: Box::new(definition.clone()),
                setup: Some(Box::new(setup.clone())),
            },
            _ => record.event.clone(),
        };
        journal.append_unsynced(record.at, &event)?;
    }
    let now = Utc::now();
    for input in switches {
        journal.append_unsynced(now, &JournalEvent::Input { input })?;
    }
    journal.sync()?;
    drop(journal);
    let provenance = ForkOrigin {
        origin,
        at: args.at.clone(),
        records: end + 1,
        agents: args.agent.clone(),
        critique: args.critique.clone(),
    };
    write_atomic(
        &run_dir.path().join(FORK_FILE),
        serde_json::to_string_pretty(&provenance)
            .unwrap_or_default()
            .as_bytes(),
    )?;
    // A fork of a chained debate took the same input: it names the same
    // source, written anew from what was read and checked above (never a
    // copy of whatever the origin's file was, or led to).
    if let Some(source) = &chained {
        write_atomic(
            &run_dir.path().join(super::notes::CHAIN_FILE),
            serde_json::to_string_pretty(source)
                .unwrap_or_default()
                .as_bytes(),
        )?;
    }
    eprintln!(
        "{}",
        crate::text::sanitize(&format!(
            "quorum: forked {} at {} into {} ({} of its {} journal records shared)",
            args.dir.display(),
            crate::text::clipped(&args.at),
            run_dir.path().display(),
            end + 1,
            recorded.records.len()
        ))
    );
    super::resume::resume(ResumeArgs {
        dir: run_dir.path().to_path_buf(),
        reopen: false,
        on: args.on.clone(),
        past_rulings: Some(past_rulings(&recorded, &prompts, end)),
    })
    .await
}

/// The rulings the origin's moderator made after the cut, each with the
/// text of the item as it was put to them: what a headless fork of a
/// debate a person moderated decides the same items by.
fn past_rulings(recorded: &Recorded, prompts: &Arc<PromptSet>, end: usize) -> Vec<PastRuling> {
    let Ok(protocol) = crate::protocol::registry::build(&recorded.definition, prompts.clone())
    else {
        return Vec::new();
    };
    let mut offered: Vec<(String, String)> = Vec::new();
    fold(protocol, &recorded.records, &mut |_, update| {
        if let Update::ModerationNeeded { items } = update {
            offered.extend(items.into_iter().map(|item| (item.id, item.text)));
        }
    });
    // A ruling journaled before rulers were recorded was the person's
    // whose debate this is: past rulings are taken only from a debate a
    // person moderated (`ask`, as the interface records it).
    let inferred = crate::engine::moderation::inferred_ruler(
        recorded.definition.moderated(),
        recorded.setup.as_ref().map(|setup| setup.moderation),
    )
    .unwrap_or(crate::protocol::Ruler::Person);
    let mut rulings = Vec::new();
    for record in &recorded.records[end + 1..] {
        let JournalEvent::Input {
            input:
                Input::ItemDecided {
                    item_id,
                    decision,
                    note,
                    ruler,
                },
        } = &record.event
        else {
            continue;
        };
        for (id, text) in &offered {
            if id == item_id {
                rulings.push(PastRuling {
                    item_id: item_id.clone(),
                    text: text.clone(),
                    decision: *decision,
                    note: note.clone(),
                    ruler: ruler.unwrap_or(inferred),
                });
            }
        }
    }
    rulings
}

/// The debate's topic, as its protocol describes it.
fn folded_topic(recorded: &Recorded, prompts: &Arc<PromptSet>) -> String {
    crate::protocol::registry::build(&recorded.definition, prompts.clone())
        .map(|protocol| protocol.describe().topic)
        .unwrap_or_else(|_| "debate".to_string())
}
