//! The files of a writing review: each judge's rewrite verbatim in
//! `judges/judge-{role}.md` (no round suffix, DR-61), `summary.md` (the
//! reader's document: the change summary, the revised text, the changes,
//! then how it was made, RF-18), `revised-draft.md` (the revised text
//! alone, ready to use), `transcript.md` (every event and raw answer) and
//! `debate.yaml` (mode writing, the draft, the rewrites' files, and the
//! merge's `revised_draft` and `changes`, DR-60).
//!
//! The opening of `summary.md` names no judge and no score (RF-06); those
//! are in its closing section and in the audit files (RF-02).

use serde::Serialize;

use super::parse::{Aspect, Change};
use super::{DELIVERABLE, RewriteState, WritingReview};
use crate::protocol::judges::JudgeRole;
use crate::protocol::{Document, MarkedChange, Outcome, Protocol, RevisionView};
use crate::report::{UsageYaml, diagnostics_md, fenced, log_lines, one_line, timestamp, usage_md};

/// The audit record.
pub const TRANSCRIPT: &str = "transcript.md";

/// The revised text alone.
pub const REVISED_DRAFT: &str = "revised-draft.md";

/// Where a judge's rewrite goes: `judges/judge-{role}.md`, with no round
/// suffix, as in every non-scoring mode (INF-11, DR-61).
pub fn judge_file(role: JudgeRole) -> String {
    format!("judges/judge-{role}.md")
}

/// A change summary quorum writes from the changes when the merge gave
/// none it could use: how many changes of each type, and the reasons of
/// the first ones when they name nothing of the process.
pub fn composed_summary(changes: &[Change], allowed: &str) -> String {
    if changes.is_empty() {
        return "The text needed no changes; it stands as written.".to_string();
    }
    let counts: Vec<String> = Aspect::ALL
        .iter()
        .filter_map(|aspect| {
            let count = changes
                .iter()
                .filter(|change| change.kind == *aspect)
                .count();
            (count > 0).then(|| format!("{count} for {aspect}"))
        })
        .collect();
    let mut out = format!(
        "The revised text makes {} change{} ({}).",
        changes.len(),
        if changes.len() == 1 { "" } else { "s" },
        counts.join(", ")
    );
    for change in changes.iter().take(2) {
        let reason = one_line(&change.rationale);
        if crate::report::provenance(&reason, allowed).is_empty() {
            out.push_str(&format!(
                " In {}: {}",
                one_line(&change.location),
                with_stop(&reason)
            ));
        }
    }
    out
}

fn with_stop(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// The opening of `summary.md`, word for word: what the end of a run
/// prints (RF-07, RF-18). `None` while the review runs.
pub fn summary_lead(review: &WritingReview) -> Option<String> {
    match review.outcome()? {
        Outcome::Failed { reason } => Some(format!(
            "**No revised draft.** The writing review stopped before it finished: {}. What was \
             collected is in {TRANSCRIPT}; fix the cause and run it again.",
            reason.trim_end_matches('.')
        )),
        _ => {
            let merged = review.merged()?;
            Some(format!(
                "**What changed:** {}\n\n## Revised text\n\n{}",
                merged.summary.trim(),
                merged.merge.revised_draft.trim()
            ))
        }
    }
}

/// What the board shows: the draft, and beside it the revision with the
/// changes marked, once there is one.
pub fn revision_view(review: &WritingReview) -> RevisionView {
    let merged = review.merged();
    RevisionView {
        original: review.config().draft.text.clone(),
        revised: merged.map(|merged| merged.merge.revised_draft.clone()),
        changes: merged
            .map(|merged| {
                merged
                    .merge
                    .changes
                    .iter()
                    .map(|change| MarkedChange {
                        location: change.location.clone(),
                        kind: change.kind.as_str().to_string(),
                        before: change.before.clone(),
                        after: change.after.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Every file of the tree that has content yet.
pub fn documents(review: &WritingReview) -> Vec<Document> {
    let mut documents = Vec::new();
    for judge in review.judges() {
        let Some(raw) = &judge.raw else { continue };
        let contents = match &judge.state {
            RewriteState::Malformed(reason) => format!(
                "<!-- MALFORMED: {} -->\n{raw}",
                one_line(reason).replace("--", "- -")
            ),
            _ => raw.clone(),
        };
        documents.push(Document::raw(judge_file(judge.seat.role), contents));
    }
    documents.push(Document::new(TRANSCRIPT, transcript_md(review)));
    if let Some(summary) = summary_md(review) {
        documents.push(Document::new(DELIVERABLE, summary));
    }
    if let Some(merged) = review.merged() {
        let mut text = merged.merge.revised_draft.trim_end().to_string();
        text.push('\n');
        documents.push(Document::new(REVISED_DRAFT, text));
    }
    documents.push(Document::new(
        "debate.yaml",
        yaml_serde::to_string(&DebateYaml::of(review)).unwrap_or_default(),
    ));
    documents
}

fn summary_md(review: &WritingReview) -> Option<String> {
    let lead = summary_lead(review)?;
    let mut out = format!(
        "# Revised draft — {}\n\n{}\n\n",
        one_line(&review.config().topic),
        lead.trim()
    );
    let Some(merged) = review.merged() else {
        return Some(out);
    };
    out.push_str("## What changed and why\n\n");
    if merged.merge.changes.is_empty() {
        out.push_str("Nothing: the text stands as written.\n\n");
    }
    for change in &merged.merge.changes {
        out.push_str(&format!(
            "- **{}** ({}): {}\n",
            one_line(&change.location),
            change.kind,
            with_stop(&one_line(&change.rationale))
        ));
        if !change.before.is_empty() {
            out.push_str(&format!("  - before: “{}”\n", one_line(&change.before)));
        }
        if !change.after.is_empty() {
            out.push_str(&format!("  - after: “{}”\n", one_line(&change.after)));
        }
    }
    out.push_str("\n## How this was made\n\n");
    out.push_str(&provenance_md(review));
    Some(out)
}

/// The closing section: who rewrote what, who was left out, and the
/// scores judges gave the draft (process detail after the result, RF-06).
fn provenance_md(review: &WritingReview) -> String {
    let mut out = format!(
        "Each judge rewrote the draft (`{}`) on their own; one merge step then combined the \
         rewrites, following the aesthete's and the stylist's aspects first. No score decides \
         anything in a writing review.\n\n",
        one_line(&review.config().draft.name)
    );
    for judge in review.judges() {
        let role = judge.seat.role;
        let status = match &judge.state {
            RewriteState::Rewritten { rewrite, .. } => {
                let scores: Vec<String> = rewrite
                    .scores
                    .iter()
                    .map(|(aspect, score)| format!("{aspect} {score}/5"))
                    .collect();
                let scores = if scores.is_empty() {
                    String::new()
                } else {
                    format!("; scored the draft {}", scores.join(", "))
                };
                format!("`{}`{scores}", judge_file(role))
            }
            RewriteState::Malformed(reason) => format!(
                "`{}` (unreadable, left out: {})",
                judge_file(role),
                one_line(reason)
            ),
            RewriteState::Skipped(reason) => format!("no rewrite (skipped: {})", one_line(reason)),
            RewriteState::Pending => "still working".to_string(),
        };
        out.push_str(&format!(
            "- {} ({}, reads for {}): {status}\n",
            crate::report::capitalised(role.as_str()),
            judge.seat.weight.as_str(),
            judge
                .seat
                .aspects
                .iter()
                .map(|aspect| aspect.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out.push_str(&format!(
        "\nEvery raw answer, every event and what the calls cost are in `{TRANSCRIPT}`.\n"
    ));
    out
}

fn transcript_md(review: &WritingReview) -> String {
    let config = review.config();
    let mut out = format!("# Transcript — {}\n\n", one_line(&config.topic));
    out.push_str(&format!(
        "A writing review of `{}`, started {}. Every event in order, timeouts, cancellations, \
         retries and skips included, each with its call id.\n\n## Events\n\n",
        one_line(&config.draft.name),
        timestamp(config.started_at)
    ));
    out.push_str(&log_lines(review.log()));
    out.push_str("\n## The draft\n\n");
    out.push_str(&fenced(&config.draft.text, "text"));
    out.push_str("\n## Agent outputs\n\n");
    let mut answer = |call_id: &str, what: &str, raw: &str| {
        out.push_str(&format!(
            "### `{call_id}` ({what})\n\n{}\n",
            fenced(raw, "text")
        ));
    };
    for judge in review.judges() {
        if let (Some(call_id), Some(raw)) = (&judge.call_id, &judge.raw) {
            answer(call_id, &format!("the {} rewrite", judge.seat.role), raw);
        }
    }
    if let Some(merged) = review.merged() {
        answer(&merged.call_id, "the merge", &merged.raw);
    }
    for unusable in review.unusable() {
        answer(
            &unusable.call_id,
            &format!("unusable: {}", one_line(&unusable.reason)),
            &unusable.raw,
        );
    }
    out.push_str(&diagnostics_md(review.calls().diagnostics()));
    out.push_str(&usage_md(review.calls().usage()));
    out
}

/// `debate.yaml` of a writing review.
#[derive(Debug, Serialize)]
struct DebateYaml {
    meta: Meta,
    draft: DraftYaml,
    participants: Vec<Participant>,
    stages: Stages,
    /// The mode's fields (RULES.md A13): the revised text and the changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<DecisionYaml>,
    outcome: Option<Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<UsageYaml>,
}

#[derive(Debug, Serialize)]
struct Meta {
    protocol: &'static str,
    mode: &'static str,
    topic: String,
    timestamp: String,
    deliverable: &'static str,
}

#[derive(Debug, Serialize)]
struct DraftYaml {
    name: String,
    text: String,
}

#[derive(Debug, Serialize)]
struct Participant {
    slot: String,
    agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    aspects: Vec<Aspect>,
}

#[derive(Debug, Serialize)]
struct Stages {
    rewrites: Vec<RewriteYaml>,
    #[serde(skip_serializing_if = "Option::is_none")]
    merge: Option<MergeYaml>,
}

#[derive(Debug, Serialize)]
struct RewriteYaml {
    role: String,
    file: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    scores: std::collections::BTreeMap<Aspect, u8>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    normalised: Vec<String>,
}

#[derive(Debug, Serialize)]
struct MergeYaml {
    call_id: String,
    at: String,
    raw_output: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    normalised: Vec<String>,
}

#[derive(Debug, Serialize)]
struct DecisionYaml {
    summary: String,
    revised_draft: String,
    changes: Vec<Change>,
}

impl DebateYaml {
    fn of(review: &WritingReview) -> DebateYaml {
        let config = review.config();
        let participants = config
            .slots()
            .into_iter()
            .map(|(slot, _)| {
                let seat = config
                    .panel
                    .iter()
                    .find(|seat| format!("judge.{}", seat.role) == slot);
                Participant {
                    agent: review.calls().agent(&slot).unwrap_or_default().to_string(),
                    weight: seat.map(|seat| seat.weight.as_str()),
                    aspects: seat.map(|seat| seat.aspects.clone()).unwrap_or_default(),
                    slot,
                }
            })
            .collect();
        let rewrites = review
            .judges()
            .iter()
            .map(|judge| {
                let (status, reason, scores, normalised) = match &judge.state {
                    RewriteState::Pending => ("pending", None, Default::default(), Vec::new()),
                    RewriteState::Rewritten { rewrite, readings } => {
                        ("rewritten", None, rewrite.scores.clone(), readings.clone())
                    }
                    RewriteState::Malformed(reason) => (
                        "malformed",
                        Some(reason.clone()),
                        Default::default(),
                        Vec::new(),
                    ),
                    RewriteState::Skipped(reason) => (
                        "skipped",
                        Some(reason.clone()),
                        Default::default(),
                        Vec::new(),
                    ),
                };
                RewriteYaml {
                    role: judge.seat.role.to_string(),
                    file: judge_file(judge.seat.role),
                    status,
                    reason,
                    scores,
                    normalised,
                }
            })
            .collect();
        DebateYaml {
            meta: Meta {
                protocol: super::super::NAME,
                mode: "writing",
                topic: config.topic.clone(),
                timestamp: timestamp(config.started_at),
                deliverable: DELIVERABLE,
            },
            draft: DraftYaml {
                name: config.draft.name.clone(),
                text: config.draft.text.clone(),
            },
            participants,
            stages: Stages {
                rewrites,
                merge: review.merged().map(|merged| MergeYaml {
                    call_id: merged.call_id.clone(),
                    at: timestamp(merged.at),
                    raw_output: merged.raw.clone(),
                    normalised: merged.readings.clone(),
                }),
            },
            decision: review.merged().map(|merged| DecisionYaml {
                summary: merged.summary.clone(),
                revised_draft: merged.merge.revised_draft.clone(),
                changes: merged.merge.changes.clone(),
            }),
            outcome: review.outcome().cloned(),
            usage: UsageYaml::of(review.calls().usage()),
        }
    }
}
