//! The files of a planning debate: `plan.md`, the synthesizer's document
//! and the deliverable (PC-21, A27), with its `## Critique Log` and
//! Progress Tracking checked against the record, and beside it the
//! synthesizer's files under `docs/` (`docs`); `transcript.md` (every
//! event and every raw answer); `debate.yaml` for machines.
//!
//! quorum never trusts the synthesizer's arithmetic (PC-33, A27): the log's
//! rows and counts are recomputed from the recorded decisions; when the
//! synthesizer's differ, or are missing, quorum's replace them, with a line
//! saying so. Every assumption still `[UNVERIFIED]` gets a row and an
//! `Investigate:` task (PC-26, PC-27).

use serde::Serialize;

use super::model::{DecidedBy, Source, Verification};
use super::parse::{WrittenRow, critique_log};
use super::{PLANNER, Plan};
use crate::protocol::documents::Documents;
use crate::protocol::record::{Participant, UsageYaml, transcript_opening};
use crate::protocol::{ItemDecision, Outcome, Protocol};
use crate::words::{answer_md, capitalised, one_line, table_cell, timestamp, with_full_stop};

/// The deliverable (A27).
pub const PLAN: &str = "plan.md";
/// Every event and every raw answer.
pub const TRANSCRIPT: &str = "transcript.md";
/// The structured record.
pub const DEBATE_YAML: &str = "debate.yaml";

/// Every file of the tree that has content yet: with the plan, the
/// synthesizer's files under `docs/` (issue 60), which carry the plan as
/// plan.md does.
pub fn documents(plan: &Plan, out: &mut Documents<'_>) {
    // The plan and the files made from it are rendered together: the
    // files take the plan's text.
    if let Some(contents) = plan_md(plan) {
        let unread = &plan.core.unread;
        let evidence = plan.core.evidence.section();
        let files = super::docs::documents(plan, &contents);
        out.add(PLAN, || contents);
        for document in files {
            out.add(&document.path, || {
                let contents = crate::protocol::unread::with_unread(&document.contents, unread);
                // As the same file says it where it is published (an
                // index is published by its line alone).
                let whole = document.path.ends_with(".md") && !document.path.ends_with("README.md");
                match (&evidence, whole) {
                    (Some(section), true) => {
                        crate::protocol::evidence::with_section(&contents, section)
                    }
                    _ => contents,
                }
            });
        }
    }
    out.add(TRANSCRIPT, || transcript_md(plan));
    out.add(DEBATE_YAML, || {
        yaml_serde::to_string(&DebateYaml::of(plan)).unwrap_or_default()
    });
}

// ---- the critique log ------------------------------------------------------------

/// One row of the critique log (PC-31), with `Unverified` as a fourth
/// resolution (A27).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogRow {
    pub id: String,
    pub source: String,
    pub summary: String,
    pub category: String,
    pub resolution: String,
    pub detail: String,
}

/// The rows, challenges first, then proposals, then the assumptions still
/// unverified; deferred items settled after the debate as settled.
pub fn log_rows(plan: &Plan) -> Vec<LogRow> {
    rows_as(plan, true)
}

/// The rows as of the debate's end (`settled` false) or now.
fn rows_as(plan: &Plan, settled: bool) -> Vec<LogRow> {
    let mut items: Vec<_> = plan.items().iter().collect();
    items.sort_by_key(|item| (item.source == Source::Optimizer, item_number(&item.id)));
    let mut rows: Vec<LogRow> = items
        .into_iter()
        .map(|item| {
            let decision = plan.decision(&item.id);
            let resolution_after = plan.resolution(&item.id).filter(|_| settled);
            let resolution = match (decision, resolution_after) {
                (_, Some(settled)) => format!("{} (after the debate)", capital(settled.decision)),
                (Some(decision), None) => capital(decision.decision),
                (None, None) => "Undecided".to_string(),
            };
            let mut detail = why_ruled(plan, &item.id, settled);
            if let (Source::Optimizer, Some(other)) = (item.source, &item.refers_to) {
                detail.push_str(&format!(" — third option for {other}"));
            }
            LogRow {
                id: item.id.clone(),
                source: item.source.as_str().to_string(),
                summary: one_line(&item.summary),
                category: one_line(&item.category),
                resolution,
                detail,
            }
        })
        .collect();
    rows.extend(plan.open_assumptions().into_iter().map(|assumption| {
        let note = match assumption.why_unverified() {
            Some(why) => why,
            None => assumption
                .checks
                .last()
                .map(|check| format!("{}: {}", check.by, one_line(&check.note)))
                .unwrap_or_else(|| "nobody could check it during the debate".into()),
        };
        LogRow {
            id: assumption.id.clone(),
            // Whoever marked it `[UNVERIFIED]`: the planner in a plan, or
            // the critic or the optimizer in its own answer (issue 60).
            source: capitalised(&assumption.raised_by),
            summary: one_line(&assumption.text),
            category: "Unverified assumption".into(),
            resolution: "Unverified".into(),
            detail: note,
        }
    }));
    rows
}

/// Why an item was ruled as it was, in one line: the planner's reason
/// only when the moderator ruled as it proposed (its reason argues for its
/// own proposal), else that the moderator decided otherwise and what the
/// planner had proposed; then the moderator's note, and the note it was
/// settled with after the debate (`settled`). The critique log's detail
/// and the board's reason alike.
pub fn why_ruled(plan: &Plan, id: &str, settled: bool) -> String {
    let decision = plan.decision(id);
    let overruled = decision.is_some_and(|d| d.by == DecidedBy::Moderator);
    let mut detail = if overruled {
        let proposed = plan
            .response(id)
            .map(|response| response.decision.as_str())
            .unwrap_or("nothing");
        format!("decided by the moderator (the planner proposed to {proposed})")
    } else {
        plan.response(id)
            .map(|response| one_line(&response.reason))
            .unwrap_or_default()
    };
    if let Some(note) = decision.and_then(|decision| decision.note.as_ref()) {
        detail.push_str(&format!(" — note: {}", one_line(note)));
    }
    if settled
        && let Some(resolution) = plan.resolution(id)
        && let Some(note) = &resolution.note
    {
        detail.push_str(&format!(" — settled: {}", one_line(note)));
    }
    detail
}

/// `C3` → 3; anything else (ids are quorum's own, but never trust a slice
/// of text to fall on a character boundary) → 0.
fn item_number(id: &str) -> u32 {
    id.get(1..)
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

fn capital(decision: ItemDecision) -> String {
    crate::words::capitalised(decision.past_tense())
}

/// The counts under the table (PC-32), recomputed from the decisions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    pub rounds: u32,
    /// Accepted, rejected, deferred.
    pub critic: [usize; 3],
    pub optimizer: [usize; 3],
    pub deadlocks: usize,
    pub unverified: usize,
}

impl Counts {
    /// The lines as the log shows them.
    pub fn lines(&self) -> Vec<String> {
        let tally = |label: &str, [accepted, rejected, deferred]: [usize; 3]| {
            format!(
                "**{label}**: {} (Accepted: {accepted} | Rejected: {rejected} | Deferred: {deferred})",
                accepted + rejected + deferred
            )
        };
        vec![
            format!("**Debate rounds**: {}", self.rounds),
            tally("Critic challenges", self.critic),
            tally("Optimizer proposals", self.optimizer),
            format!("**Deadlocks resolved by Optimizer**: {}", self.deadlocks),
            format!("**Unverified assumptions**: {}", self.unverified),
        ]
    }
}

pub fn counts(plan: &Plan) -> Counts {
    counts_as(plan, true)
}

/// The counts as of the debate's end (`settled` false) or now.
fn counts_as(plan: &Plan, settled: bool) -> Counts {
    let decision = |id: &str| {
        if settled {
            plan.final_decision(id)
        } else {
            plan.decision(id).map(|decision| decision.decision)
        }
    };
    let tally = |source: Source| {
        let mut counts = [0usize; 3];
        for item in plan.items().iter().filter(|item| item.source == source) {
            match decision(&item.id) {
                Some(ItemDecision::Accept) => counts[0] += 1,
                Some(ItemDecision::Reject) => counts[1] += 1,
                Some(ItemDecision::Defer) => counts[2] += 1,
                None => {}
            }
        }
        counts
    };
    Counts {
        rounds: plan.rounds_run(),
        critic: tally(Source::Critic),
        optimizer: tally(Source::Optimizer),
        deadlocks: deadlocks(plan, &decision),
        unverified: plan.open_assumptions().len(),
    }
}

/// The deadlocks an accepted third option broke: the distinct challenges
/// that the planner and the critic really disagreed on (the planner
/// proposed to reject or defer it) and that an accepted proposal of the
/// optimizer was put forward to settle. A challenge the planner conceded
/// was never a deadlock, whatever the optimizer said about it.
fn deadlocks(plan: &Plan, decision: &dyn Fn(&str) -> Option<ItemDecision>) -> usize {
    let mut broken: Vec<&str> = plan
        .items()
        .iter()
        .filter(|item| item.breaks_deadlock())
        .filter(|item| decision(&item.id) == Some(ItemDecision::Accept))
        .filter_map(|item| item.refers_to.as_deref())
        .filter(|challenge| {
            plan.items()
                .iter()
                .any(|other| other.id == *challenge && other.source == Source::Critic)
        })
        .filter(|challenge| {
            plan.response(challenge)
                .is_some_and(|response| response.decision != ItemDecision::Accept)
        })
        .collect();
    broken.sort_unstable();
    broken.dedup();
    broken.len()
}

/// The `## Critique Log` section quorum computes.
pub fn log_md(plan: &Plan) -> String {
    let mut out = String::from(
        "## Critique Log\n\n| # | Source | Challenge/Proposal | Category | Resolution | Detail |\n|---|--------|-------------------|----------|------------|--------|\n",
    );
    for row in log_rows(plan) {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            row.id,
            row.source,
            table_cell(&row.summary),
            table_cell(&row.category),
            row.resolution,
            table_cell(&row.detail)
        ));
    }
    out.push('\n');
    out.push_str(&counts(plan).lines().join("\n\n"));
    out.push('\n');
    out
}

/// Lowercase, without spaces or emphasis: for comparing count lines.
fn squeezed(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '*' | '_'))
        .collect::<String>()
        .to_lowercase()
}

/// What in the synthesizer's document differs from the record, each as a
/// sentence; empty when it matches.
pub fn corrections(plan: &Plan) -> Vec<String> {
    let Some(document) = written_plan(plan) else {
        return Vec::new();
    };
    let mut found = log_corrections(plan, &document);
    found.extend(tracking_corrections(plan, &document));
    found
}

/// The synthesizer's plan as it wrote it, without the decision record that
/// becomes a file of its own (issue 60; a debate from before had none
/// asked of it, so kept its answer whole).
fn written_plan(plan: &Plan) -> Option<String> {
    let raw = &plan.synthesis()?.raw;
    Some(if plan.follows_conclusions() {
        super::docs::without_record(raw)
    } else {
        raw.clone()
    })
}

fn log_corrections(plan: &Plan, document: &str) -> Vec<String> {
    let Some(written) = critique_log(document) else {
        return vec![
            "the plan had no Critique Log; quorum added it from the recorded decisions".into(),
        ];
    };
    let mut found = Vec::new();
    let rows = rows_as(plan, false);
    if written.rows.len() != rows.len() {
        found.push(format!(
            "the Critique Log had {} rows where the debate has {}",
            written.rows.len(),
            rows.len()
        ));
    }
    // PC-31, PC-33: every row is matched to its item by id, so two rows
    // whose resolutions were swapped do not pass for a correct log.
    let rows_by_id = |id: &str| rows.iter().find(|row| row.id.eq_ignore_ascii_case(id));
    let mut by_id = Vec::new();
    for row in &rows {
        let theirs: Vec<&WrittenRow> = written
            .rows
            .iter()
            .filter(|w| w.id.eq_ignore_ascii_case(&row.id))
            .collect();
        match theirs.as_slice() {
            [] => by_id.push(format!("the Critique Log has no row for {}", row.id)),
            [one] => {
                if resolution_word(&one.resolution) != resolution_word(&row.resolution) {
                    by_id.push(format!(
                        "it gives {} as {} where the record has {}",
                        row.id,
                        one_line(&one.resolution),
                        row.resolution
                    ));
                } else if !one.source.eq_ignore_ascii_case(&row.source) {
                    by_id.push(format!(
                        "it gives {} to {} where {} raised it",
                        row.id,
                        one_line(&one.source),
                        row.source
                    ));
                }
            }
            _ => by_id.push(format!(
                "the Critique Log has {} rows for {}",
                theirs.len(),
                row.id
            )),
        }
    }
    for extra in written.rows.iter().filter(|w| rows_by_id(&w.id).is_none()) {
        by_id.push(format!(
            "the Critique Log has a row `{}` that names no item of the debate",
            one_line(&extra.id)
        ));
    }
    if !by_id.is_empty() && written.rows.len() == rows.len() {
        found.push("the Critique Log's resolutions differ from the recorded decisions".into());
    }
    let theirs: Vec<String> = written.counts.iter().map(|line| squeezed(line)).collect();
    for line in counts_as(plan, false).lines() {
        let label = line.split("**:").next().unwrap_or_default().to_string() + "**:";
        let label_key = squeezed(&label);
        match theirs
            .iter()
            .find(|written| written.starts_with(&label_key))
        {
            Some(written) if *written == squeezed(&line) => {}
            Some(_) => {
                let shown = written
                    .counts
                    .iter()
                    .find(|written| squeezed(written).starts_with(&label_key))
                    .cloned()
                    .unwrap_or_default();
                found.push(format!(
                    "the log said `{shown}`; the decisions give `{line}`"
                ));
            }
            None => found.push(format!("the log left out `{line}`")),
        }
    }
    found.extend(by_id);
    found
}

/// `accepted` of `Accepted (after the debate)`, `**Rejected**`.
fn resolution_word(resolution: &str) -> String {
    resolution
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// Assumptions still unverified whose `Investigate:` task the plan lacks.
fn missing_tasks<'a>(plan: &'a Plan, document: &str) -> Vec<&'a super::model::Assumption> {
    let section = tracking_section(document)
        .unwrap_or_default()
        .to_lowercase();
    plan.open_assumptions()
        .into_iter()
        .filter(|assumption| {
            let probe: String = assumption.text.to_lowercase().chars().take(40).collect();
            !(section.contains("investigate") && section.contains(probe.trim()))
        })
        .collect()
}

fn tracking_corrections(plan: &Plan, document: &str) -> Vec<String> {
    let missing = missing_tasks(plan, document);
    if missing.is_empty() {
        return Vec::new();
    }
    let ids: Vec<&str> = missing.iter().map(|a| a.id.as_str()).collect();
    if tracking_section(document).is_none() {
        vec![format!(
            "the plan had no Progress Tracking section; quorum added one with the investigation tasks for {}",
            ids.join(", ")
        )]
    } else {
        vec![format!(
            "Progress Tracking lacked the investigation tasks for {}; quorum added them",
            ids.join(", ")
        )]
    }
}

/// The Progress Tracking section's text, heading to the next `## `.
fn tracking_section(document: &str) -> Option<&str> {
    let (start, end) = tracking_span(document)?;
    Some(&document[start..end])
}

fn tracking_span(document: &str) -> Option<(usize, usize)> {
    let lower = document.to_ascii_lowercase();
    let start = lower.find("## progress tracking")?;
    let after = start + "## progress tracking".len();
    let end = lower[after..]
        .find("\n## ")
        .map_or(document.len(), |offset| after + offset + 1);
    Some((start, end))
}

/// `plan.md`: the synthesizer's document, its Critique Log replaced by
/// quorum's when it differs from the record (with a line saying so), and
/// every open assumption an `Investigate:` task. `None` until written.
pub fn plan_md(plan: &Plan) -> Option<String> {
    if let Some(Outcome::Failed { .. }) = plan.outcome() {
        return Some(format!(
            "# No plan — {}

{}
",
            one_line(&plan.config().topic),
            summary_lead(plan)?
        ));
    }
    let written = written_plan(plan)?.trim_end().to_string();
    let mut document = format!("{written}\n");
    let log_fixes = log_corrections(plan, &document);
    let settled = settled_lines(plan);
    if !log_fixes.is_empty() || !settled.is_empty() {
        let mut log = log_md(plan);
        if !log_fixes.is_empty() {
            log.push_str(&format!(
                "\n*quorum recomputed this log from the recorded decisions: {}.*\n",
                log_fixes.join("; ")
            ));
        }
        if !settled.is_empty() {
            log.push_str(&format!(
                "\n*Settled after the debate, so the plan above does not reflect them yet: {}.*\n",
                settled.join("; ")
            ));
        }
        document = match critique_log(&document) {
            Some(written) => {
                let (start, end) = written.span;
                let tail = &document[end..];
                let separator = if tail.is_empty() { "" } else { "\n" };
                format!("{}{log}{separator}{tail}", &document[..start])
            }
            None => format!("{}\n\n{log}", document.trim_end()),
        };
    }
    let departures = plan.plan_departures();
    if !departures.is_empty() {
        document = with_departures(&document, &departures);
    }
    if plan.unchecked().iter().any(|what| what == "plan") {
        document = after_opening(&document, UNCHECKED_SECTION);
    }
    let missing = missing_tasks(plan, &document);
    if !missing.is_empty() {
        let tasks: String = missing
            .iter()
            .map(|assumption| {
                format!(
                    "- [ ] Investigate: {} ({})\n",
                    one_line(&assumption.text),
                    assumption.id
                )
            })
            .collect();
        document = match tracking_span(&document) {
            Some((_, end)) => {
                let (head, tail) = document.split_at(end);
                let separator = if tail.is_empty() { "" } else { "\n" };
                format!("{}\n{tasks}{separator}{tail}", head.trim_end())
            }
            None => format!("{}\n\n## Progress Tracking\n\n{tasks}", document.trim_end()),
        };
    }
    Some(document)
}

/// The heading of the section that states where the plan still goes
/// against the moderator's decisions.
pub const DEPARTURES_HEADING: &str = "## Not as the moderator decided";

/// `document` with a section after its opening paragraph stating plainly
/// where it still goes against the moderator's decisions, so no reader
/// takes those steps as agreed.
fn with_departures(document: &str, departures: &[&str]) -> String {
    let mut section = format!(
        "{DEPARTURES_HEADING}\n\nquorum checked this plan against the moderator's decisions and asked the synthesizer once more; these parts still go against them, so do not carry them out as written:\n\n"
    );
    for departure in departures {
        section.push_str(&format!("- {}\n", with_full_stop(&capitalised(departure))));
    }
    section.push('\n');
    after_opening(document, &section)
}

/// What plan.md says when the plan cites no item id: it was not checked,
/// so it is not presented as following the decisions.
pub const UNCHECKED_SECTION: &str = "## Not checked against the moderator's decisions\n\nThis plan cites no critique item by id, so quorum could not check it against the moderator's decisions. Read its steps against the Critique Log below before carrying them out.\n\n";

/// `document` with `section` after its opening paragraph.
fn after_opening(document: &str, section: &str) -> String {
    match document.find("\n## ") {
        Some(at) => format!("{}{section}{}", &document[..at + 1], &document[at + 1..]),
        None => format!("{}\n\n{section}", document.trim_end()),
    }
}

/// `I2 accepted on 2026-12-01 (note)` for each deferred item settled after
/// the debate.
fn settled_lines(plan: &Plan) -> Vec<String> {
    plan.items()
        .iter()
        .filter_map(|item| {
            let settled = plan.resolution(&item.id)?;
            let note = settled
                .note
                .as_deref()
                .map(|note| format!(" ({})", one_line(note)))
                .unwrap_or_default();
            Some(format!(
                "{} {} on {}{note}",
                item.id,
                settled.decision.past_tense(),
                settled.at.format("%Y-%m-%d")
            ))
        })
        .collect()
}

/// The opening of `plan.md`, word for word: what the end of a run prints.
pub fn summary_lead(plan: &Plan) -> Option<String> {
    match plan.outcome()? {
        Outcome::Failed { reason } => Some(format!(
            "**No plan.** The planning debate stopped before it finished: {}. What was collected is in {TRANSCRIPT}; fix the cause and run it again.",
            reason.trim_end_matches('.')
        )),
        _ => {
            let document = plan_md(plan)?;
            let (opening, _) = crate::protocol::quick::parse::split_opening(&document);
            let first = opening
                .split("\n\n")
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            let open = plan.open_assumptions().len();
            let mut tail = match open {
                0 => String::new(),
                1 => " One assumption is still unverified: investigate it before implementing (see Progress Tracking).".to_string(),
                n => format!(" {n} assumptions are still unverified: investigate them before implementing (see Progress Tracking)."),
            };
            let departures = plan.plan_departures().len();
            if departures > 0 {
                tail.push_str(&format!(
                    " The plan still goes against the moderator's decisions in {departures} {} (see \"Not as the moderator decided\").",
                    if departures == 1 { "place" } else { "places" }
                ));
            }
            Some(format!("{first}{tail}"))
        }
    }
}

// ---- transcript.md -----------------------------------------------------------------

fn transcript_md(plan: &Plan) -> String {
    let config = plan.config();
    let about = format!(
        "Planning debate{}, started {}. ",
        if config.simple { " (simple mode)" } else { "" },
        timestamp(config.seating.started_at)
    );
    let mut out = transcript_opening(&config.topic, &about, plan.log());
    out.push_str(if plan.follows_conclusions() {
        "\n## Agent outputs\n\nOnly the synthesizer's answer becomes files (plan.md and docs/); every other answer is kept here, raw.\n\n"
    } else {
        "\n## Agent outputs\n\nOnly the synthesizer writes a file; every other answer is kept here, raw.\n\n"
    });
    for kept in plan.kept() {
        out.push_str(&answer_md(
            &kept.call_id,
            &format!("{} {}, round {}", kept.role, kept.stage, kept.round),
            &kept.raw,
        ));
    }
    out.push_str(&crate::protocol::record::unusable_md(plan.unusable()));
    out.push_str(&crate::protocol::record::calls_md(plan.calls()));
    out
}

// ---- debate.yaml -------------------------------------------------------------------

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct DebateYaml {
    meta: Meta,
    participants: Vec<Participant>,
    answers: Vec<Answer>,
    items: Vec<ItemYaml>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unverified: Vec<AssumptionYaml>,
    critique_log: LogYaml,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    corrections: Vec<String>,
    /// Where a revision or the plan still went against the moderator's
    /// decisions after being asked once more.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    departures: Vec<DepartureYaml>,
    /// Answers that cited no item, so were not checked by id.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unchecked: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    missing: Vec<String>,
    outcome: Option<Outcome>,
    /// What could not be read of the answers, and what that changed
    /// (issue 59); absent when everything was read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unread: Vec<crate::protocol::Unread>,
    usage: Option<UsageYaml>,
}

#[derive(Debug, Serialize)]
struct Meta {
    protocol: &'static str,
    topic: String,
    timestamp: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    simple: bool,
    rounds_run: u32,
    deliverable: &'static str,
    quorum_version: &'static str,
}

#[derive(Debug, Serialize)]
struct Answer {
    call_id: String,
    role: String,
    stage: String,
    round: u32,
    at: String,
    raw_output: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    normalised: Vec<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct ItemYaml {
    #[serde(flatten)]
    item: super::model::Item,
    proposed: Option<super::model::Response>,
    decision: Option<super::model::Decision>,
    settled: Option<crate::protocol::ItemResolution>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct AssumptionYaml {
    #[serde(flatten)]
    assumption: super::model::Assumption,
    status: Verification,
    /// Why it is unverified though someone marked it verified (issue 60).
    why: Option<String>,
}

#[derive(Debug, Serialize)]
struct DepartureYaml {
    answer: String,
    departure: String,
}

#[derive(Debug, Serialize)]
struct LogYaml {
    rows: Vec<LogRow>,
    counts: Vec<String>,
}

impl DebateYaml {
    fn of(plan: &Plan) -> DebateYaml {
        let config = plan.config();
        DebateYaml {
            meta: Meta {
                protocol: super::NAME,
                topic: config.topic.clone(),
                timestamp: timestamp(config.seating.started_at),
                simple: config.simple,
                rounds_run: plan.rounds_run(),
                deliverable: PLAN,
                quorum_version: env!("CARGO_PKG_VERSION"),
            },
            participants: plan
                .roster()
                .seats()
                .iter()
                .map(|seat| Participant::of(plan.calls(), seat.slot.clone()))
                .collect(),
            answers: plan
                .kept()
                .iter()
                .map(|kept| Answer {
                    call_id: kept.call_id.clone(),
                    role: kept.role.clone(),
                    stage: kept.stage.clone(),
                    round: kept.round,
                    at: timestamp(kept.at),
                    raw_output: kept.raw.clone(),
                    normalised: kept.normalised.clone(),
                })
                .collect(),
            items: plan
                .items()
                .iter()
                .map(|item| ItemYaml {
                    item: item.clone(),
                    proposed: plan.response(&item.id).cloned(),
                    decision: plan.decision(&item.id).cloned(),
                    settled: plan.resolution(&item.id).cloned(),
                })
                .collect(),
            unverified: plan
                .assumptions()
                .iter()
                .map(|assumption| AssumptionYaml {
                    assumption: assumption.clone(),
                    status: assumption.status(),
                    why: assumption.why_unverified(),
                })
                .collect(),
            critique_log: LogYaml {
                rows: log_rows(plan),
                counts: counts(plan).lines(),
            },
            corrections: corrections(plan),
            departures: plan
                .departures()
                .iter()
                .map(|(answer, departure)| DepartureYaml {
                    answer: answer.clone(),
                    departure: departure.clone(),
                })
                .collect(),
            unchecked: plan.unchecked().to_vec(),
            missing: plan.missing().to_vec(),
            outcome: plan.outcome().cloned(),
            unread: plan.core.unread.clone(),
            usage: UsageYaml::of(plan.calls().usage()),
        }
    }
}

/// Who a row's decision came from, for the interface.
pub fn decided_by(by: DecidedBy) -> &'static str {
    match by {
        DecidedBy::Planner => PLANNER,
        DecidedBy::Moderator => "moderator",
    }
}
