//! `quorum library`: past debates and rulings, listed and searched, and the
//! calibration figures (issue 55); `quorum library add DIR...` files
//! debates already on disk; and the filing of every debate that ends, by
//! whichever driver ran it ([`file_ended`]).
//!
//! Responsible for reading a debate's folder into what the library keeps
//! ([`filed`]: its journal folded, each item's ruling with whether a person
//! gave it, read per ruling from who the journal says ruled, each judge's
//! own label on the item) and for what the command prints (sanitised:
//! agent text is untrusted). Not responsible for the
//! file itself or the arithmetic (`crate::store`), nor for seating a judge
//! by its figure (`prepare`'s calibration step).
//!
//! Filing never fails a debate: a library that cannot be opened, is
//! locked or refuses the debate is said once on stderr, and the debate's
//! own record, in its folder, is as complete as ever.

use std::path::Path;
use std::process::ExitCode;

use crate::engine::JournalEvent;
use crate::engine::moderation::inferred_ruler;
use crate::protocol::{BoardView, Outcome, Ruler};
use crate::store::{FiledDebate, FiledRuling, JudgeLabel, Library, LibraryError, Seat};
use crate::text::{clipped, sanitize};
use crate::words::counted;

use super::prepare::{Reloaded, reload};
use super::{EXIT_FAILURE, EXIT_USAGE, LibraryAction, LibraryArgs};

pub use crate::protocol::registry::{PROMPT_HASH_HEX, prompt_hash};

/// `dir`'s debate as the library keeps it.
pub fn filed(dir: &Path) -> Result<FiledDebate, String> {
    let Reloaded {
        recorded, folded, ..
    } = reload(dir).map_err(|error| super::with_causes(&error))?;
    let definition = &recorded.definition;
    let protocol = &folded.protocol;
    let overrides = recorded
        .setup
        .as_ref()
        .map(|setup| setup.prompt_overrides.clone())
        .unwrap_or_default();
    let prompt_hash = prompt_hash(definition.protocol(), &overrides);
    // Who ruled where the journal does not say (a debate journaled before
    // each ruling recorded its ruler): what the debate recorded once for
    // all its items.
    let inferred = inferred_ruler(
        definition.moderated(),
        recorded.setup.as_ref().map(|setup| setup.moderation),
    );
    let description = protocol.describe();
    // Who played each slot as the protocol describes it, each switch the
    // moderator made applied: the agent that ended the debate.
    let mut agents: std::collections::BTreeMap<String, String> = description
        .roles
        .iter()
        .filter(|role| !role.agent.is_empty())
        .map(|role| (role.slot.clone(), role.agent.clone()))
        .collect();
    for (role, agent, _) in &folded.switches {
        agents.insert(role.clone(), agent.clone());
    }
    let board = protocol.board();
    let mut rulers: Vec<&'static str> = Vec::new();
    let rulings: Vec<FiledRuling> = board
        .items
        .iter()
        .filter_map(|entry| {
            let (decision, ruler) = entry.standing_ruling()?;
            // A deferred item settled after the verdict without a recorded
            // ruler was settled by a person (`quorum open`, `quorum
            // attach`, the only ways there were).
            let ruler = match (ruler, &entry.resolution) {
                (Some(ruler), _) => Some(ruler),
                (None, Some(_)) => Some(Ruler::Person),
                (None, None) => inferred,
            };
            let name = ruler.map_or("unknown", Ruler::as_str);
            if !rulers.contains(&name) {
                rulers.push(name);
            }
            let raised_by = raiser(&entry.item.raised_by, &agents);
            Some(FiledRuling {
                item_id: entry.item.id.clone(),
                target: entry.item.target.clone(),
                text: entry.item.text.clone(),
                agent: raised_by
                    .as_ref()
                    .and_then(|slot| agents.get(slot).cloned()),
                raised_by,
                decision: decision.choose("accept", "reject", "defer").to_string(),
                by_person: ruler.is_some_and(Ruler::is_person),
            })
        })
        .collect();
    let judge_labels = judge_labels(&board.view, &board.items, &agents);
    let ended_at = recorded.records.iter().rev().find_map(|record| {
        matches!(record.event, JournalEvent::Finished { .. }).then(|| record.at.to_rfc3339())
    });
    let verdict = match protocol.outcome() {
        Some(Outcome::Decided { verdict, .. }) => verdict.as_str().to_string(),
        Some(Outcome::Completed { .. }) => "completed".to_string(),
        Some(Outcome::Failed { .. }) => "failed".to_string(),
        None => "unfinished".to_string(),
    };
    // Who ruled, as one word, or each in the order they first ruled.
    let moderated_by = match rulers.as_slice() {
        [] => inferred.map_or("unknown", Ruler::as_str).to_string(),
        rulers => rulers.join(", "),
    };
    let folder = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    Ok(FiledDebate {
        folder: folder.display().to_string(),
        protocol: definition.protocol().to_string(),
        mode: description.label,
        topic: description.topic,
        verdict,
        started_at: recorded.started_at().to_rfc3339(),
        ended_at,
        moderated_by,
        prompt_hash,
        seats: agents
            .iter()
            .map(|(slot, agent)| Seat {
                slot: slot.clone(),
                agent: agent.clone(),
            })
            .collect(),
        rulings,
        judge_labels,
    })
}

/// The slot that raised an item: the one it names, else the debate's only
/// critic (`critic`, `critic.*`); `None` when the debate does not say.
fn raiser(raised_by: &str, agents: &std::collections::BTreeMap<String, String>) -> Option<String> {
    if !raised_by.is_empty() {
        return agents
            .keys()
            .find(|slot| *slot == raised_by || slot.ends_with(&format!(".{raised_by}")))
            .cloned()
            .or_else(|| Some(raised_by.to_string()));
    }
    let mut critics = agents
        .keys()
        .filter(|slot| *slot == "critic" || slot.starts_with("critic."));
    match (critics.next(), critics.next()) {
        (Some(only), None) => Some(only.clone()),
        _ => None,
    }
}

/// Each judge's own label on each item, where the protocol has one: in a
/// decision review's scoreboard (its latest round), a judge flags an item
/// when it scored the block the item targets below the binding threshold
/// on some criterion. A comparison (rows are options), the writing mode
/// (no scoreboard), an item about the whole text and a judge that did not
/// score have no label.
fn judge_labels(
    view: &BoardView,
    items: &[crate::protocol::BoardItem],
    agents: &std::collections::BTreeMap<String, String>,
) -> Vec<JudgeLabel> {
    let BoardView::Scores(scoreboard) = view else {
        return Vec::new();
    };
    if scoreboard.leader.is_some() {
        return Vec::new();
    }
    let mut labels = Vec::new();
    for column in &scoreboard.judges {
        if column.state != crate::protocol::JudgeState::Scored {
            continue;
        }
        let slot = format!("judge.{}", column.judge);
        let Some(agent) = agents.get(&slot) else {
            continue;
        };
        for entry in items {
            let Some(row) = scoreboard
                .blocks
                .iter()
                .position(|block| *block == entry.item.target)
            else {
                continue;
            };
            let Some(scores) = column.scores.get(row) else {
                continue;
            };
            if scores.iter().all(Option::is_none) {
                continue;
            }
            let flagged = scores
                .iter()
                .flatten()
                .any(|score| *score < scoreboard.binding_threshold);
            labels.push(JudgeLabel {
                item_id: entry.item.id.clone(),
                judge: slot.clone(),
                agent: agent.clone(),
                flagged,
                binding: column.binding,
            });
        }
    }
    labels
}

/// Files the debate in `dir` after it ended, whatever drove it. Never
/// fails: what went wrong is said once on stderr, and the debate's own
/// record is untouched.
pub fn file_ended(dir: &Path) {
    if let Err(message) = try_file(dir) {
        eprintln!(
            "quorum: library: {} (the debate's record in its folder is complete; it is not in the library)",
            crate::text::for_stderr(&message)
        );
    }
}

fn try_file(dir: &Path) -> Result<(), String> {
    let debate = filed(dir)?;
    let mut library = Library::open_default().map_err(|error| error.to_string())?;
    library.file(&debate).map_err(|error| error.to_string())
}

/// `quorum library`.
pub fn run(args: LibraryArgs) -> ExitCode {
    if let Some(LibraryAction::Add { dirs }) = &args.action {
        return add(dirs);
    }
    let library = match Library::open_default() {
        Ok(library) => library,
        Err(error) => return refuse(&error),
    };
    if args.calibration {
        let min_labels = match args.min_labels {
            Some(min_labels) => min_labels,
            None => match configured_min_labels(args.config.as_deref()) {
                Ok(min_labels) => min_labels,
                Err(message) => {
                    eprintln!("quorum: {}", crate::text::for_stderr(&message));
                    return ExitCode::from(EXIT_USAGE);
                }
            },
        };
        return calibration(&library, min_labels, args.json);
    }
    let listed = match library.list(args.query.as_deref(), args.limit) {
        Ok(listed) => listed,
        Err(error) => return refuse(&error),
    };
    if args.json {
        return print_json(&serde_json::json!({
            "library": library.path().display().to_string(),
            "debates": listed,
        }));
    }
    if listed.is_empty() {
        let why = match &args.query {
            Some(query) => format!(
                "no debate in {} matches {:?}",
                library.path().display(),
                sanitize(query)
            ),
            None => format!(
                "{} holds no debate yet: each debate is filed when it ends (or `quorum library add DIR`)",
                library.path().display()
            ),
        };
        println!("{}", sanitize(&why));
        return ExitCode::SUCCESS;
    }
    for debate in &listed {
        println!(
            "{}  {}  {}  {}",
            sanitize(&debate.started_at.chars().take(16).collect::<String>()),
            sanitize(&debate.verdict),
            sanitize(&debate.protocol),
            sanitize(&clipped(&crate::words::one_line(&debate.topic)))
        );
        println!(
            "    {}  ·  {} rulings, {} by a person",
            sanitize(&debate.folder),
            debate.rulings,
            debate.person_rulings
        );
        for item in &debate.matching_items {
            println!(
                "    · {}",
                sanitize(&clipped(&crate::words::one_line(item)))
            );
        }
    }
    ExitCode::SUCCESS
}

/// `calibration.min_labels` of the configuration, else the default.
fn configured_min_labels(config: Option<&Path>) -> Result<u64, String> {
    let loaded = crate::config::load(config, &crate::protocol::registry::Registered)
        .map_err(|error| error.to_string())?;
    Ok(loaded.config.calibration.map_or(
        crate::config::Calibration::DEFAULT_MIN_LABELS,
        |calibration| calibration.min_labels,
    ))
}

fn refuse(error: &LibraryError) -> ExitCode {
    eprintln!(
        "quorum: library: {}",
        crate::text::for_stderr(&error.to_string())
    );
    ExitCode::from(EXIT_FAILURE)
}

fn print_json(value: &serde_json::Value) -> ExitCode {
    match serde_json::to_string_pretty(value) {
        Ok(text) => {
            println!("{}", crate::text::terminal_safe_json(&text));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("quorum: library: {error}");
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

/// `quorum library add DIR...`: each folder filed, or why not.
fn add(dirs: &[std::path::PathBuf]) -> ExitCode {
    let mut library = match Library::open_default() {
        Ok(library) => library,
        Err(error) => return refuse(&error),
    };
    let mut failed = false;
    for dir in dirs {
        let filed = filed(dir).and_then(|debate| {
            library
                .file(&debate)
                .map(|()| debate)
                .map_err(|error| error.to_string())
        });
        match filed {
            Ok(debate) => {
                let labels = debate
                    .rulings
                    .iter()
                    .filter(|ruling| ruling.by_person && ruling.decision != "defer")
                    .count();
                eprintln!(
                    "quorum: filed {}: {} rulings ({labels} by a person), {} judges' labels",
                    crate::text::for_stderr(&dir.display().to_string()),
                    debate.rulings.len(),
                    debate.judge_labels.len()
                );
            }
            Err(message) => {
                failed = true;
                eprintln!(
                    "quorum: cannot file {}: {}",
                    crate::text::for_stderr(&dir.display().to_string()),
                    crate::text::for_stderr(&message)
                );
            }
        }
    }
    if failed {
        ExitCode::from(EXIT_USAGE)
    } else {
        ExitCode::SUCCESS
    }
}

/// A figure's words: the number, or why there is none.
fn figure_words(labels: u64, min_labels: u64, number: Option<String>) -> String {
    match number {
        _ if labels < min_labels => {
            format!("too few labels ({labels} of the {min_labels} a figure needs)")
        }
        Some(number) => number,
        None => "not defined (every label alike)".to_string(),
    }
}

/// `quorum library --calibration`.
fn calibration(library: &Library, min_labels: u64, json: bool) -> ExitCode {
    let (critics, judges) = match library
        .critic_figures()
        .and_then(|critics| Ok((critics, library.judge_figures()?)))
    {
        Ok(figures) => figures,
        Err(error) => return refuse(&error),
    };
    if json {
        let critics: Vec<serde_json::Value> = critics
            .iter()
            .map(|figure| {
                let labels = figure.accepted + figure.rejected;
                serde_json::json!({
                    "agent": figure.agent,
                    "prompt_hash": figure.prompt_hash,
                    "accepted": figure.accepted,
                    "rejected": figure.rejected,
                    "enough_labels": labels >= min_labels,
                    "precision": figure.precision.map(|p| p.share),
                    "interval_95": figure.precision.map(|p| [p.low, p.high]),
                })
            })
            .collect();
        let judges: Vec<serde_json::Value> = judges
            .iter()
            .map(|figure| {
                let kappa = figure.kappa;
                serde_json::json!({
                    "agent": figure.agent,
                    "prompt_hash": figure.prompt_hash,
                    "labels": figure.table.labels(),
                    "enough_labels": figure.table.labels() >= min_labels,
                    "kappa": kappa.and_then(|k| k.kappa),
                    "base_rate": kappa.map(|k| k.base_rate),
                    "observed_agreement": kappa.map(|k| k.observed),
                    "table": {
                        "judge_flagged_person_accepted": figure.table.both,
                        "judge_flagged_person_rejected": figure.table.judge_only,
                        "judge_passed_person_accepted": figure.table.person_only,
                        "judge_passed_person_rejected": figure.table.neither,
                    },
                })
            })
            .collect();
        return print_json(&serde_json::json!({
            "library": library.path().display().to_string(),
            "min_labels": min_labels,
            "critics": critics,
            "judges": judges,
        }));
    }
    println!(
        "Calibration from {} (a person's accept or reject is a label; a figure needs {min_labels})",
        sanitize(&library.path().display().to_string())
    );
    println!(
        "\nCritics: acceptance precision (the share of their items a person accepted, 95% interval)"
    );
    if critics.is_empty() {
        println!("  no labels yet");
    }
    for figure in &critics {
        let labels = figure.accepted + figure.rejected;
        let number = figure.precision.map(|p| {
            format!(
                "{:.2} ({:.2}–{:.2}), {} accepted of {labels}",
                p.share, p.low, p.high, figure.accepted
            )
        });
        println!(
            "  {}  prompts {}  {}",
            sanitize(&figure.agent),
            sanitize(&figure.prompt_hash),
            figure_words(labels, min_labels, number)
        );
    }
    println!(
        "\nJudges: agreement with the moderator (Cohen's kappa; base rate: the share a person accepted)"
    );
    if judges.is_empty() {
        println!("  no labels yet");
    }
    for figure in &judges {
        let labels = figure.table.labels();
        let number = figure.kappa.and_then(|k| {
            k.kappa.map(|kappa| {
                format!(
                    "kappa {kappa:.2}, base rate {:.2}, agreed on {:.0}% of {labels}",
                    k.base_rate,
                    k.observed * 100.0
                )
            })
        });
        println!(
            "  {}  prompts {}  {}",
            sanitize(&figure.agent),
            sanitize(&figure.prompt_hash),
            figure_words(labels, min_labels, number)
        );
    }
    ExitCode::SUCCESS
}

/// The library's lines of `quorum doctor`: where it is, its schema, what
/// it holds, or why it cannot be used (which never stops a debate).
pub fn doctor_lines() -> Vec<String> {
    let Some(path) = crate::store::library_path() else {
        return vec![format!("  {}", LibraryError::NoPath)];
    };
    let shown = sanitize(&path.display().to_string());
    if !path.exists() {
        return vec![
            format!("  path: {shown}"),
            "  not created yet: the first debate that ends creates it".to_string(),
        ];
    }
    match Library::open(&path).and_then(|library| library.health()) {
        Ok(health) => vec![
            format!("  path: {shown}"),
            format!(
                "  schema version {} · {} · {} (a person's rulings) · {}",
                health.schema_version,
                counted(health.debates as usize, "debate", "debates"),
                counted(health.labels as usize, "label", "labels"),
                counted(
                    health.judge_labels as usize,
                    "judge's label",
                    "judges' labels"
                )
            ),
            "  healthy · nothing in it leaves this machine".to_string(),
        ],
        Err(error) => vec![
            format!("  path: {shown}"),
            format!(
                "  unusable: {} (debates run without calibration)",
                sanitize(&error.to_string())
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// JM-27: the prompt hash is the protocol's templates as the debate ran
    /// them: stable, changed by an override of one of them, blind to a file
    /// no template of the protocol has, and different per protocol.
    #[test]
    fn jm_27_the_prompt_hash_follows_the_templates_a_debate_ran_with() {
        let none = std::collections::BTreeMap::new();
        let built_in = prompt_hash("decision-review", &none);
        assert_eq!(built_in.len(), PROMPT_HASH_HEX);
        assert_eq!(built_in, prompt_hash("decision-review", &none));
        let mut changed = none.clone();
        changed.insert("judge.md.j2".to_string(), "Score {{ topic }}".to_string());
        assert_ne!(built_in, prompt_hash("decision-review", &changed));
        let mut elsewhere = none.clone();
        elsewhere.insert("not-a-template.md.j2".to_string(), "x".to_string());
        assert_eq!(built_in, prompt_hash("decision-review", &elsewhere));
        assert_ne!(built_in, prompt_hash("plan", &none));
    }
}
