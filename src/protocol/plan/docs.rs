//! The files the synthesizer writes beside `plan.md` (PC-21, PC-22, issue
//! 60), in the layout the seed names: the plan under `docs/plans/`, the
//! plan's line in the index `docs/plans/README.md`, and its decision
//! record under `docs/adr/`. They go into the run folder's `docs/`, and
//! into a repository's `docs/` only when the person names it
//! (`--write-docs DIR`).
//!
//! The decision record is the synthesizer's: its answer ends with a
//! `## Decision Record` section (Title, Context, Decision, Consequences,
//! Alternatives), read field by field, any field it left out filled from
//! the debate's record and said so. quorum renders the file around it (the
//! number, the date, how it was decided), so it is whole whatever the
//! answer held; the index line is quorum's own. Every name comes from the
//! goal, never from an agent's text: `{date}-{goal-slug}.md` and
//! `{NNNN}-{goal-slug}.md`.
//!
//! Not responsible for writing them (the engine lands documents and
//! publications atomically) nor for where the person's folder is
//! confined (the kind's `configure`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Plan;
use crate::protocol::{Document, IndexEntry, ItemDecision, Outcome, Protocol, Publication};
use crate::words::one_line;

/// The index of plans, in `docs/plans/`.
pub const INDEX: &str = "README.md";

/// The heading the synthesizer's decision record goes under.
pub const RECORD_HEADING: &str = "## Decision Record";

/// Where a repository's copies go (`--write-docs DIR`), as the debate's
/// definition journals it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocsTarget {
    /// The folder the person chose, absolute: the files go to its
    /// `docs/plans/` and `docs/adr/`.
    pub root: String,
    /// The decision record's number there: one past the highest under its
    /// `docs/adr/` when the debate was set up.
    pub adr_number: u32,
}

/// The highest `NNNN-` number of the files in `adr_folder`, 0 when there
/// are none (or no folder).
pub fn highest_adr(adr_folder: &std::path::Path) -> u32 {
    let Ok(entries) = std::fs::read_dir(adr_folder) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
            (!digits.is_empty() && name[digits.len()..].starts_with('-'))
                .then(|| digits.parse::<u32>().ok())
                .flatten()
        })
        .max()
        .unwrap_or(0)
}

/// A decision record's fields as the synthesizer wrote them, any of them
/// missing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WrittenRecord {
    pub title: Option<String>,
    pub context: Option<String>,
    pub decision: Option<String>,
    pub consequences: Option<String>,
    pub alternatives: Option<String>,
    /// Byte range of the whole section in the answer.
    pub span: (usize, usize),
}

/// The fields a decision record may have, by the labels that name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Title,
    Context,
    Decision,
    Consequences,
    Alternatives,
    /// Status and date are quorum's: read past.
    Ignored,
}

fn field_named(label: &str) -> Option<Field> {
    let label = label.trim().to_lowercase();
    Some(match label.as_str() {
        "title" | "name" => Field::Title,
        "context" | "context and problem" | "problem" => Field::Context,
        "decision" | "decision outcome" => Field::Decision,
        "consequences" => Field::Consequences,
        "alternatives" | "alternatives considered" | "options considered" | "options" => {
            Field::Alternatives
        }
        "status" | "date" => Field::Ignored,
        _ => return None,
    })
}

/// The heading level and text of a markdown heading line.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|c| *c == '#').count();
    (level > 0 && line[level..].starts_with(' ')).then(|| (level, line[level..].trim()))
}

/// A heading's text without emphasis or a closing colon, lower case.
fn plain(text: &str) -> String {
    crate::parse::blocks::strip_emphasis(text.trim())
        .trim_end_matches(':')
        .trim()
        .to_lowercase()
}

/// The synthesizer's decision record: the section under a heading named
/// `Decision Record` (or `Architecture Decision Record`, `ADR`, with or
/// without `: title` after it), to the next heading as high. Its fields
/// are read with the usual leniency: `Context:` or `**Context**:` at the
/// start of a line, or a sub-heading `### Context`, any case; a field's
/// text runs to the next field. What it cannot place is read past.
pub fn read_record(answer: &str) -> Option<WrittenRecord> {
    let mut offset = 0;
    let mut start: Option<(usize, usize)> = None;
    let mut record = WrittenRecord::default();
    let mut current: Option<Field> = None;
    let mut texts: Vec<(Field, String)> = Vec::new();
    let mut end = answer.len();
    for line in answer.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let trimmed = line.trim_end_matches(['\n', '\r']);
        match start {
            None => {
                if let Some((level, text)) = heading(trimmed) {
                    let name = plain(text);
                    let (name, titled) = match name.split_once(':') {
                        Some((name, title)) => (name.trim().to_string(), Some(title.trim())),
                        None => (name, None),
                    };
                    if matches!(
                        name.as_str(),
                        "decision record" | "architecture decision record" | "adr"
                    ) {
                        start = Some((at, level));
                        if titled.is_some_and(|title| !title.is_empty()) {
                            let written = text.split_once(':').map_or("", |(_, title)| title);
                            let written = crate::parse::blocks::strip_emphasis(written);
                            texts.push((Field::Title, written));
                        }
                    }
                }
            }
            Some((_, level)) => {
                if let Some((inner, text)) = heading(trimmed) {
                    if inner <= level {
                        end = at;
                        break;
                    }
                    if let Some(field) = field_named(&plain(text)) {
                        current = Some(field);
                        texts.push((field, String::new()));
                        continue;
                    }
                }
                let body = trimmed
                    .trim_start()
                    .trim_start_matches(['-', '*', '+'])
                    .trim_start();
                let body_plain = crate::parse::blocks::strip_emphasis(body);
                let labelled = body_plain.split_once(':').and_then(|(label, rest)| {
                    field_named(label.trim_matches(['*', '_'])).map(|field| (field, rest))
                });
                match labelled {
                    Some((field, rest)) => {
                        current = Some(field);
                        let rest = rest.trim_start_matches(['*', '_']).trim();
                        texts.push((field, rest.to_string()));
                    }
                    None => {
                        if let (Some(_), Some((_, text))) = (current, texts.last_mut()) {
                            if !text.is_empty() || !trimmed.trim().is_empty() {
                                text.push('\n');
                            }
                            text.push_str(trimmed);
                        }
                    }
                }
            }
        }
    }
    let (first, _) = start?;
    record.span = (first, end);
    for (field, text) in texts {
        let text = text.trim().to_string();
        if text.is_empty() {
            continue;
        }
        let slot = match field {
            Field::Title => &mut record.title,
            Field::Context => &mut record.context,
            Field::Decision => &mut record.decision,
            Field::Consequences => &mut record.consequences,
            Field::Alternatives => &mut record.alternatives,
            Field::Ignored => continue,
        };
        // The first time a field is given is the one read.
        if slot.is_none() {
            *slot = Some(text);
        }
    }
    Some(record)
}

/// `answer` without its decision record, which is a file of its own.
pub fn without_record(answer: &str) -> String {
    match read_record(answer) {
        Some(record) => {
            let (start, end) = record.span;
            let head = answer[..start].trim_end();
            let tail = answer[end..].trim_start();
            if tail.is_empty() {
                format!("{head}\n")
            } else {
                format!("{head}\n\n{tail}")
            }
        }
        None => answer.to_string(),
    }
}

/// The names of a plan's files, from its goal and start: never from an
/// agent's text.
pub struct Names {
    /// `2026-12-01-let-tenants-export-their-data-as-csv.md`.
    pub plan: String,
    /// `0001-let-tenants-export-their-data-as-csv.md`.
    pub adr: String,
    pub adr_number: u32,
}

impl Names {
    pub fn of(plan: &Plan) -> Names {
        let config = plan.config();
        let slug = crate::artifact::topic_slug(&config.topic);
        let adr_number = config.docs.as_ref().map_or(1, |docs| docs.adr_number);
        Names {
            plan: format!("{}-{slug}.md", config.seating.started_at.format("%Y-%m-%d")),
            adr: format!("{adr_number:04}-{slug}.md"),
            adr_number,
        }
    }
}

/// The plan's title: its first `# ` line, else the goal.
fn title_of(plan: &Plan, document: &str) -> String {
    document
        .lines()
        .find_map(|line| line.strip_prefix("# "))
        .map(one_line)
        .filter(|title| !title.is_empty())
        .unwrap_or_else(|| one_line(&plan.config().topic))
}

/// The decision record, rendered whole: the synthesizer's fields, those
/// it left out filled from the record and said so, with quorum's number,
/// date, status and account of how it was decided.
pub fn adr_md(plan: &Plan, document: &str) -> String {
    let names = Names::of(plan);
    let written = plan
        .synthesis()
        .and_then(|kept| read_record(&kept.raw))
        .unwrap_or_default();
    let mut filled: Vec<&str> = Vec::new();
    let title = written
        .title
        .map(|title| one_line(&title))
        .unwrap_or_else(|| {
            filled.push("the title");
            title_of(plan, document)
        });
    let context = written.context.unwrap_or_else(|| {
        filled.push("the context");
        format!(
            "The goal: {}.",
            one_line(&plan.config().topic).trim_end_matches('.')
        )
    });
    let decision = written.decision.unwrap_or_else(|| {
        filled.push("the decision");
        let (opening, _) = crate::protocol::quick::parse::split_opening(document);
        let first = opening.split("\n\n").next().unwrap_or_default().trim();
        if first.is_empty() {
            "Carry out the plan.".to_string()
        } else {
            first.to_string()
        }
    });
    let consequences = written.consequences.unwrap_or_else(|| {
        filled.push("the consequences");
        consequences_from_record(plan)
    });
    let started = plan.config().seating.started_at.format("%Y-%m-%d");
    let mut out = format!(
        "# {}. {title}\n\nDate: {started}\n\nStatus: Proposed\n\n## Context\n\n{context}\n\n## Decision\n\n{decision}\n\n## Consequences\n\n{consequences}\n",
        names.adr_number
    );
    if let Some(alternatives) = written.alternatives {
        out.push_str(&format!("\n## Alternatives considered\n\n{alternatives}\n"));
    }
    out.push_str(&format!(
        "\n## How it was decided\n\n{}; the plan is [{}](../plans/{}).\n",
        how_it_ran(plan),
        title_of(plan, document),
        names.plan
    ));
    let decided = decided_lines(plan);
    if !decided.is_empty() {
        out.push('\n');
        out.push_str(&decided);
    }
    if !filled.is_empty() {
        out.push_str(&format!(
            "\n*quorum filled in {} from the debate's record: the synthesizer's decision record gave none.*\n",
            filled.join(", ")
        ));
    }
    out
}

/// `A planning debate quorum ran (2 rounds)`.
fn how_it_ran(plan: &Plan) -> String {
    if plan.config().simple {
        "A simple planning debate quorum ran (a planner and a synthesizer)".to_string()
    } else {
        format!(
            "A planning debate quorum ran ({} of a planner, a critic and an optimizer, the moderator deciding each item, and a synthesizer)",
            crate::words::counted(plan.rounds_run() as usize, "round", "rounds")
        )
    }
}

/// Each item under its final decision, and what is still unverified.
fn decided_lines(plan: &Plan) -> String {
    let mut out = String::new();
    for (decision, label) in [
        (ItemDecision::Accept, "Accepted"),
        (ItemDecision::Reject, "Rejected"),
        (ItemDecision::Defer, "Deferred, for the user to decide"),
    ] {
        let items: Vec<String> = plan
            .items()
            .iter()
            .filter(|item| plan.final_decision(&item.id) == Some(decision))
            .map(|item| format!("{} {}", item.id, sentence(&item.summary)))
            .collect();
        if !items.is_empty() {
            out.push_str(&format!("- {label}: {}.\n", items.join("; ")));
        }
    }
    let open: Vec<String> = plan
        .open_assumptions()
        .iter()
        .map(|assumption| format!("{} {}", assumption.id, sentence(&assumption.text)))
        .collect();
    if !open.is_empty() {
        out.push_str(&format!(
            "- Still unverified, to investigate before implementing: {}.\n",
            open.join("; ")
        ));
    }
    out
}

/// `text` on one line, without a closing full stop: a part of a list.
fn sentence(text: &str) -> String {
    one_line(text).trim_end_matches('.').to_string()
}

/// What follows from the plan when the synthesizer did not say: each
/// accepted item, and each assumption still to investigate.
fn consequences_from_record(plan: &Plan) -> String {
    let mut lines: Vec<String> = plan
        .items()
        .iter()
        .filter(|item| plan.final_decision(&item.id) == Some(ItemDecision::Accept))
        .map(|item| format!("- {} ({})", one_line(&item.summary), item.id))
        .collect();
    lines.extend(plan.open_assumptions().iter().map(|assumption| {
        format!(
            "- Still unverified, to investigate before implementing: {} ({})",
            one_line(&assumption.text),
            assumption.id
        )
    }));
    if lines.is_empty() {
        "The plan is carried out as written.".to_string()
    } else {
        lines.join("\n")
    }
}

/// The plan's line in the index: `- 2026-12-01 [Title](file.md) — decision
/// record [0001](../adr/0001-….md)`; keyed by the plan's file.
fn index_entry(plan: &Plan, document: &str) -> IndexEntry {
    let names = Names::of(plan);
    let title: String = title_of(plan, document)
        .chars()
        .filter(|c| !matches!(c, '[' | ']'))
        .collect();
    let started = plan.config().seating.started_at.format("%Y-%m-%d");
    IndexEntry {
        key: format!("]({})", names.plan),
        line: format!(
            "- {started} [{title}]({}) — decision record [{:04}](../adr/{})",
            names.plan, names.adr_number, names.adr
        ),
    }
}

/// The index as first written, with the plan's line alone.
fn index_md(entry: &IndexEntry) -> String {
    format!(
        "# Plans\n\nThe plans of quorum's planning debates, each with its decision record under `../adr/`.\n\n{}\n",
        entry.line
    )
}

/// Whether the debate delivers these files: it ended with a plan, under
/// the rules that write them (a debate from before wrote plan.md alone).
fn delivers(plan: &Plan) -> bool {
    plan.follows_conclusions()
        && matches!(plan.outcome(), Some(Outcome::Completed { .. }))
        && plan.synthesis().is_some()
}

/// The run folder's `docs/`: the plan, the index, the decision record.
pub fn documents(plan: &Plan, plan_md: &str) -> Vec<Document> {
    if !delivers(plan) {
        return Vec::new();
    }
    let names = Names::of(plan);
    let entry = index_entry(plan, plan_md);
    vec![
        Document::new(format!("docs/plans/{}", names.plan), plan_md.to_string()),
        Document::new(format!("docs/plans/{INDEX}"), index_md(&entry)),
        Document::new(format!("docs/adr/{}", names.adr), adr_md(plan, plan_md)),
    ]
}

/// The same files in the person's folder (`--write-docs DIR`): the plan and
/// the decision record whole, the index by its entry alone.
pub fn publications(plan: &Plan, plan_md: &str) -> Vec<Publication> {
    let Some(target) = plan.config().docs.as_ref() else {
        return Vec::new();
    };
    if !delivers(plan) {
        return Vec::new();
    }
    let root = PathBuf::from(&target.root);
    let names = Names::of(plan);
    let entry = index_entry(plan, plan_md);
    let within = |path: PathBuf, contents: String, entry: Option<IndexEntry>| Publication {
        path,
        contents,
        within: Some(root.clone()),
        entry,
    };
    let plans = root.join("docs").join("plans");
    vec![
        within(plans.join(&names.plan), plan_md.to_string(), None),
        within(plans.join(INDEX), index_md(&entry), Some(entry.clone())),
        within(
            root.join("docs").join("adr").join(&names.adr),
            adr_md(plan, plan_md),
            None,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 60: the synthesizer's decision record is read field by field,
    /// whatever the labels look like, to the next heading as high.
    #[test]
    fn pc_21_a_decision_record_is_read_field_by_field() {
        let answer = "# Plan\n\nDo it.\n\n## Critique Log\n\n| x |\n\n## Decision Record\n\nTitle: Move large exports to the job runner\n**Context**: Requests time out after 60 s.\nThe largest tenant holds 5.2 GB.\n\n### Decision\n\nExports over 50 MB run as jobs.\n\n- Consequences: one more moving part.\nStatus: Accepted\n\n## After\n\nMore.\n";
        let record = read_record(answer).unwrap();
        assert_eq!(
            record.title.as_deref(),
            Some("Move large exports to the job runner")
        );
        assert_eq!(
            record.context.as_deref(),
            Some("Requests time out after 60 s.\nThe largest tenant holds 5.2 GB.")
        );
        assert_eq!(
            record.decision.as_deref(),
            Some("Exports over 50 MB run as jobs.")
        );
        assert_eq!(
            record.consequences.as_deref(),
            Some("one more moving part.")
        );
        assert_eq!(record.alternatives, None);
        assert!(answer[record.span.1..].starts_with("## After"));
        assert_eq!(
            without_record(answer),
            "# Plan\n\nDo it.\n\n## Critique Log\n\n| x |\n\n## After\n\nMore.\n"
        );
        let titled = read_record("## ADR: Stream small exports\nDecision: stream\n").unwrap();
        assert_eq!(titled.title.as_deref(), Some("Stream small exports"));
        assert_eq!(titled.decision.as_deref(), Some("stream"));
        assert!(read_record("# Plan\n\n## Steps\n- Decision: none\n").is_none());
    }
}
