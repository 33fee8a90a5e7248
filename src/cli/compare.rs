//! `quorum compare DIR DIR2`: where two debates of one origin (a debate
//! and its fork, or two forks) went apart: the journal they share, who
//! played each role, the moderator's rulings, each judge's scores per
//! block and criterion, what quorum derived of each finding or hypothesis,
//! and the verdicts. Only what differs is printed.
//!
//! Not responsible for forking (`fork`) nor for what a debate says
//! (`share::Report`, which both sides are read into).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::engine::resume::Recorded;
use crate::share::Report;
use crate::text::sanitize;

use super::prepare::reload;
use super::{CompareArgs, Failure, usage};

pub fn run(args: &CompareArgs) -> ExitCode {
    super::exit_code(compare(args))
}

/// How many journal records two debates share from the start. The first
/// record (the definition) counts as shared when the definitions are the
/// same, when a later record is shared too, or when one is a fork of the
/// other (`related`), which may have changed its definition (another
/// stance); two unrelated debates share none.
fn shared_records(a: &Recorded, b: &Recorded, related: bool) -> usize {
    let later = a
        .records
        .iter()
        .zip(&b.records)
        .skip(1)
        .take_while(|(a, b)| a.event == b.event)
        .count();
    let start = related || later > 0 || a.definition == b.definition;
    if start { later + 1 } else { 0 }
}

/// Each (block, judge, criterion) score of a report's scoreboard.
fn scores(report: &Report) -> BTreeMap<(String, String, String), u8> {
    let mut out = BTreeMap::new();
    if let Some(board) = &report.scoreboard {
        for column in &board.judges {
            for (row, block) in board.blocks.iter().enumerate() {
                for (index, criterion) in column.criteria.iter().enumerate() {
                    if let Some(score) = column.scores.get(row).and_then(|scores| scores[index]) {
                        out.insert(
                            (block.clone(), column.judge.clone(), criterion.clone()),
                            score,
                        );
                    }
                }
            }
        }
    }
    out
}

/// The lines that say how `a` and `b` differ, under their headings.
pub fn differences(a: &Report, b: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let mut section = |title: &str, lines: Vec<String>| {
        if !lines.is_empty() {
            out.push(format!("{title}:"));
            out.extend(lines.into_iter().map(|line| format!("  {line}")));
        }
    };
    let agents = |report: &Report| -> BTreeMap<String, String> {
        report
            .roles
            .iter()
            .map(|role| (role.slot.clone(), role.agent.clone()))
            .collect()
    };
    let (agents_a, agents_b) = (agents(a), agents(b));
    section(
        "Agents",
        agents_a
            .iter()
            .filter_map(|(slot, agent)| {
                let other = agents_b.get(slot)?;
                (other != agent).then(|| format!("{slot}: {agent} → {other}"))
            })
            .collect(),
    );
    let rulings = |report: &Report| -> BTreeMap<String, String> {
        report
            .items
            .iter()
            .map(|item| {
                let note = item
                    .note
                    .as_deref()
                    .map(|note| format!(" ({note})"))
                    .unwrap_or_default();
                (
                    item.item.id.clone(),
                    format!("{}{note}", report.decision_word(item)),
                )
            })
            .collect()
    };
    let (rulings_a, rulings_b) = (rulings(a), rulings(b));
    let mut ids: Vec<&String> = rulings_a.keys().chain(rulings_b.keys()).collect();
    ids.sort();
    ids.dedup();
    section(
        "Rulings",
        ids.into_iter()
            .filter_map(|id| {
                let (was, is) = (rulings_a.get(id), rulings_b.get(id));
                (was != is).then(|| {
                    let word = |ruling: Option<&String>| {
                        ruling.cloned().unwrap_or_else(|| "no such item".into())
                    };
                    format!("{id}: {} → {}", word(was), word(is))
                })
            })
            .collect(),
    );
    let (scores_a, scores_b) = (scores(a), scores(b));
    let mut keys: Vec<&(String, String, String)> = scores_a.keys().chain(scores_b.keys()).collect();
    keys.sort();
    keys.dedup();
    let round = |report: &Report| report.scoreboard.as_ref().map_or(0, |board| board.round);
    section(
        &format!("Scores (round {} → round {})", round(a), round(b)),
        keys.into_iter()
            .filter_map(|key| {
                let (was, is) = (scores_a.get(key), scores_b.get(key));
                (was != is).then(|| {
                    let shown = |score: Option<&u8>| score.map_or("–".to_string(), u8::to_string);
                    format!(
                        "{} {} {}: {} → {}",
                        key.0,
                        key.1,
                        key.2,
                        shown(was),
                        shown(is)
                    )
                })
            })
            .collect(),
    );
    let board = |report: &Report| -> BTreeMap<String, String> {
        report
            .rulings
            .iter()
            .map(|ruling| {
                (
                    ruling.subject.clone(),
                    ruling.word.clone().unwrap_or_else(|| "open".into()),
                )
            })
            .collect()
    };
    let (board_a, board_b) = (board(a), board(b));
    let mut subjects: Vec<&String> = board_a.keys().chain(board_b.keys()).collect();
    subjects.sort();
    subjects.dedup();
    section(
        "Findings and hypotheses",
        subjects
            .into_iter()
            .filter_map(|subject| {
                let (was, is) = (board_a.get(subject), board_b.get(subject));
                (was != is).then(|| {
                    let word = |word: Option<&String>| word.cloned().unwrap_or_else(|| "–".into());
                    format!("{subject}: {} → {}", word(was), word(is))
                })
            })
            .collect(),
    );
    let verdict = |report: &Report| {
        report
            .headline()
            .map_or("no verdict yet".to_string(), |(word, rule)| {
                format!("{word} — {rule}")
            })
    };
    let (verdict_a, verdict_b) = (verdict(a), verdict(b));
    section(
        "Verdict",
        if verdict_a == verdict_b {
            vec![format!("the same: {verdict_a}")]
        } else {
            vec![format!("{verdict_a}"), format!("→ {verdict_b}")]
        },
    );
    out
}

fn compare(args: &CompareArgs) -> Result<ExitCode, Failure> {
    let [a, b] = [&args.dir, &args.other]
        .map(|dir| reload(dir).map_err(|error| usage(super::with_causes(&error))));
    let (a, b) = (a?, b?);
    let (report_a, report_b) = (
        Report::of(a.folded.protocol.as_ref()),
        Report::of(b.folded.protocol.as_ref()),
    );
    if a.recorded.definition.protocol() != b.recorded.definition.protocol() {
        return Err(usage(format!(
            "{} is a {} and {} a {}: compare two debates of one protocol",
            args.dir.display(),
            a.recorded.definition.protocol(),
            args.other.display(),
            b.recorded.definition.protocol()
        )));
    }
    let mut relation = None;
    for (origin, fork) in [(&args.dir, &args.other), (&args.other, &args.dir)] {
        let Some(from) = super::notes::forked_from(fork).map_err(usage)? else {
            continue;
        };
        if Path::new(origin).canonicalize().ok().as_ref() == Some(&from.origin) {
            relation = Some(format!(
                "{} is a fork of {} at {}",
                fork.display(),
                origin.display(),
                crate::text::clipped(&from.at)
            ));
            break;
        }
    }
    let shared = shared_records(&a.recorded, &b.recorded, relation.is_some());
    // Folder names, fork.json and the debates' words are someone else's:
    // everything is written here, then made inert for a terminal at once.
    let mut text = String::new();
    text.push_str(&format!(
        "{}\n{}\n\n",
        args.dir.display(),
        args.other.display()
    ));
    match relation {
        Some(relation) => text.push_str(&format!("{relation}\n")),
        None if shared == 0 => {
            text.push_str("they share no record: they do not come from one origin\n")
        }
        None if shared == 1 => text.push_str(
            "they share no record but the start: forked at its first stage, or two runs of one definition\n",
        ),
        None => {}
    }
    let (of_a, of_b) = (a.recorded.records.len(), b.recorded.records.len());
    text.push_str(&match shared {
        0 => format!("shared: none of their journal records (of {of_a} and {of_b})\n\n"),
        shared => format!("shared: the first {shared} journal records (of {of_a} and {of_b})\n\n"),
    });
    for line in differences(&report_a, &report_b) {
        text.push_str(&line);
        text.push('\n');
    }
    std::io::stdout()
        .lock()
        .write_all(sanitize(&text).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
