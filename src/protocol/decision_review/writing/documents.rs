//! The files of a writing review: the critic's answer verbatim in
//! `critique.md`, each judge's rewrite verbatim in `judges/judge-{role}.md`
//! (no round suffix, DR-61), `summary.md` (the reader's document: the
//! change summary, the revised text, the changes item by item as the
//! moderator ruled them, then how it was made, RF-18), `revised-draft.md`
//! (the revised text alone, ready to use), `transcript.md` (every event and
//! raw answer) and `debate.yaml` (mode writing, the draft, the critique
//! with its rulings, the rewrites' files, and the merge's `revised_draft`
//! and `changes`, DR-60).
//!
//! The change list of `summary.md` is written by quorum from the rulings,
//! not taken from the merge's word: every critique item says where the
//! moderator left it and which changes answer it, and a change made
//! against a ruling is called that. What the merge says is checked against
//! the revised draft ([`super::bearing`]): an item is answered only by a
//! change the text shows, and a change it does not show is said as such,
//! in the change list, the opening and `debate.yaml`.
//!
//! The opening of `summary.md` names no judge and no score (RF-06); those
//! are in its closing section and in the audit files (RF-02).

use serde::Serialize;

use super::bearing::{self, Bearing, Untouched};
use super::parse::{Aspect, Change, CritiqueItem};
use super::{DELIVERABLE, RewriteState, WritingReview};
use crate::protocol::documents::Documents;
use crate::protocol::judges::JudgeRole;
use crate::protocol::record::{ModeMeta, UsageYaml, transcript_opening, unusable_md};
use crate::protocol::ruler::rulers_md;
use crate::protocol::{AnswerFile, ItemDecision, MarkedChange, Outcome, Protocol, RevisionView};
use crate::words::{answer_md, fenced, one_line, timestamp, with_full_stop};

/// The audit record.
pub const TRANSCRIPT: &str = "transcript.md";

/// The revised text alone.
pub const REVISED_DRAFT: &str = "revised-draft.md";

/// The critic's answer, verbatim.
pub const CRITIQUE: &str = "critique.md";

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
        if crate::protocol::record::provenance(&reason, allowed, &super::super::role_words())
            .is_empty()
        {
            out.push_str(&format!(
                " In {}: {}",
                one_line(&change.location),
                with_full_stop(&reason)
            ));
        }
    }
    out
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
            let against = if merged.against_rulings.is_empty() {
                String::new()
            } else {
                let said: Vec<String> = merged
                    .against_rulings
                    .iter()
                    .map(|against| against.describe("you"))
                    .collect();
                format!(
                    "\n\n**Against your rulings.** Asked once more, the revised text still goes \
                     against what you decided: {}.",
                    said.join("; ")
                )
            };
            // The merge's word checked against its text (issue 60).
            let unshown = not_borne_out(review);
            let unshown = if unshown.is_empty() {
                String::new()
            } else {
                format!(
                    "\n\n**Not in the revised text.** What the changes claim and what the revised \
                     text shows disagree: {}.",
                    unshown.join("; ")
                )
            };
            Some(format!(
                "**What changed:** {}{against}{unshown}\n\n## Revised text\n\n{}",
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

/// The judges' rewrites that could not be read, each in its file with the
/// reason; the critique and every other rewrite are the answers as they
/// came.
pub fn answer_files(review: &WritingReview) -> Vec<AnswerFile> {
    review
        .judges()
        .iter()
        .filter_map(|judge| match (&judge.raw, &judge.state) {
            (Some(raw), RewriteState::Malformed(reason)) => Some(AnswerFile::unusable(
                judge_file(judge.seat.role),
                raw.clone(),
                reason.clone(),
            )),
            _ => None,
        })
        .collect()
}

/// Every file of the tree that has content yet. The revised draft is
/// rendered from the merge alone; the others read the log or the rulings,
/// and are rendered every time.
pub fn documents(review: &WritingReview, out: &mut Documents<'_>) {
    out.add(TRANSCRIPT, || transcript_md(review));
    out.add_some(DELIVERABLE, || summary_md(review));
    let merge = review.merged().map(|merged| &merged.merge.revised_draft);
    out.add_from(REVISED_DRAFT, merge, || {
        let mut text = merge?.trim_end().to_string();
        text.push('\n');
        Some(text)
    });
    out.add("debate.yaml", || {
        yaml_serde::to_string(&DebateYaml::of(review)).unwrap_or_default()
    });
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
    out.push_str(&changes_md(review, &merged.merge.changes));
    out.push_str("\n## How this was made\n\n");
    out.push_str(&rulers_md(&Protocol::board(review).items));
    out.push_str(&provenance_md(review));
    Some(out)
}

/// Each change the merge made, as it was and as it reads now, with the
/// critique item it answers and the moderator's ruling, for a report.
pub fn changed_parts(review: &WritingReview) -> Vec<crate::protocol::ChangedPart> {
    let Some(merged) = review.merged() else {
        return Vec::new();
    };
    let revised = merged.merge.revised_draft.as_str();
    merged
        .merge
        .changes
        .iter()
        .map(|change| {
            let mut cause = format!("{}: {}", change.kind, one_line(&change.rationale));
            if let Some(id) = &change.answers {
                let ruling = review
                    .ruling(id)
                    .map(|(decision, _)| format!(", which the moderator {}", decision.past_tense()))
                    .unwrap_or_default();
                let item = review
                    .critique_items()
                    .iter()
                    .find(|item| &item.id == id)
                    .map(|item| format!(" ({})", one_line(&item.text)))
                    .unwrap_or_default();
                cause.push_str(&format!("; answers {id}{item}{ruling}"));
            }
            if let Some(said) = bearing::bearing(change, &review.config().draft.text, revised)
                .against_label(change, change.answers.as_deref())
            {
                cause.push_str(&format!("; not in the revised draft: {said}"));
            }
            crate::protocol::ChangedPart {
                part: one_line(&change.location),
                before: change.before.clone(),
                after: change.after.clone(),
                causes: vec![cause],
                markdown: false,
            }
        })
        .collect()
}

/// How the review was kept fair and how far the judges' scores agreed
/// (issue 29); nothing for a review from before fair judging.
fn fairness_md(review: &WritingReview) -> String {
    let Some(agreement) = review.agreement() else {
        return String::new();
    };
    let blind = match review.config().seating.fairness.blind {
        true => {
            "The judges read the critic's items, and the merge read the rewrites, with any \
                 self-identification of their authors masked; the merge read the rewrites in an \
                 order of its own."
        }
        false => {
            "The merge read the rewrites in an order of its own (not blind: \
                  self-identification was left as written)."
        }
    };
    let mut out = format!(
        "\n{blind} The judges' scores of the draft, asked on every aspect, decide nothing; \
         they show how alike the judges read it: {}.\n",
        agreement.summary()
    );
    if agreement.fewer_than_two_votes() {
        out.push_str(
            "\n**Still uncertain:** the judges were worth fewer than two independent votes, so \
             where their rewrites agree, read it as one view of the draft rather than several.\n",
        );
    }
    out
}

/// One change as a list entry indented by `indent` spaces, with a line
/// saying so when the revised draft does not show it.
fn change_md(change: &Change, indent: usize, draft: &str, revised: &str) -> String {
    let pad = " ".repeat(indent);
    let mut out = format!(
        "{pad}- **{}** ({}): {}\n",
        one_line(&change.location),
        change.kind,
        with_full_stop(&one_line(&change.rationale))
    );
    if !change.before.is_empty() {
        out.push_str(&format!(
            "{pad}  - before: “{}”\n",
            one_line(&change.before)
        ));
    }
    if !change.after.is_empty() {
        out.push_str(&format!("{pad}  - after: “{}”\n", one_line(&change.after)));
    }
    if let Some(said) =
        bearing::bearing(change, draft, revised).against_label(change, change.answers.as_deref())
    {
        out.push_str(&format!("{pad}  - not in the revised draft: {said}\n"));
    }
    out
}

/// The change list, written from the rulings and checked against the
/// revised draft ([`bearing`]): each critique item with where the
/// moderator left it and the changes that name it. An accepted item is
/// answered only by a change the revised draft shows, and a rejected or
/// deferred one is left as the draft had it only when the wording it
/// quotes is still there; a change against a ruling, an accepted item no
/// change answers and a change the text does not show are said as such.
/// Then the changes that answer no item.
fn changes_md(review: &WritingReview, changes: &[Change]) -> String {
    let items = review.critique_items();
    let mut out = String::new();
    if changes.is_empty() && items.is_empty() {
        return "Nothing: the text stands as written.\n".to_string();
    }
    let draft = review.config().draft.text.as_str();
    let revised = review
        .merged()
        .map_or(draft, |merged| merged.merge.revised_draft.as_str());
    let made = |change: &Change| bearing::bearing(change, draft, revised) == Bearing::Made;
    for item in items {
        let named: Vec<&Change> = changes
            .iter()
            .filter(|change| change.answers.as_deref() == Some(item.id.as_str()))
            .collect();
        let shown = named.iter().filter(|change| made(change)).count();
        let what = item_md(item);
        let id = &item.id;
        let ruling = review.ruling(id).map(|(decision, _)| decision);
        let what = match review.ruling(id).and_then(|(_, note)| note) {
            Some(note) => format!("{what} Your note: {}", with_full_stop(&one_line(note))),
            None => what,
        };
        let untouched = || bearing::untouched(item, draft, revised);
        let line = match (ruling, named.is_empty()) {
            (Some(ItemDecision::Accept), false) if shown == named.len() => {
                format!("- {id} (accepted): answered. {what}")
            }
            (Some(ItemDecision::Accept), false) if shown > 0 => format!(
                "- {id} (accepted): answered in part: the revised draft shows {shown} of the {} changes labelled as answering it. {what}",
                named.len()
            ),
            (Some(ItemDecision::Accept), false) => format!(
                "- {id} (accepted): not answered, although you accepted it: the revised draft does not show the {} labelled as answering it. {what}",
                if named.len() == 1 {
                    "change"
                } else {
                    "changes"
                }
            ),
            (Some(ItemDecision::Accept), true) => {
                format!("- {id} (accepted): no change answers it, although you accepted it. {what}")
            }
            (Some(ItemDecision::Reject), true) => match untouched() {
                Untouched::Yes => format!("- {id} (rejected): no change, as you ruled. {what}"),
                Untouched::Changed(wording) => format!(
                    "- {id} (rejected): no change names it, yet the revised draft no longer has “{wording}”, the wording it points at: the text changed there, against your ruling. {what}"
                ),
                Untouched::Unchecked => format!(
                    "- {id} (rejected): no change names it, as you ruled (the item quotes none of the draft's wording, so the text could not be checked). {what}"
                ),
            },
            (Some(ItemDecision::Reject), false) if shown == 0 => format!(
                "- {id} (rejected): a change is labelled as made for it, against your ruling, but the revised draft does not show it. {what}"
            ),
            (Some(ItemDecision::Reject), false) => format!(
                "- {id} (rejected): the merge changed the text for it anyway, against your ruling. {what}"
            ),
            (Some(ItemDecision::Defer), true) => match untouched() {
                Untouched::Yes => format!("- {id} (deferred): left open, as you ruled. {what}"),
                Untouched::Changed(wording) => format!(
                    "- {id} (deferred): you left it open and no change names it, yet the revised draft no longer has “{wording}”, the wording it points at. {what}"
                ),
                Untouched::Unchecked => format!(
                    "- {id} (deferred): no change names it, left open as you ruled (the item quotes none of the draft's wording, so the text could not be checked). {what}"
                ),
            },
            (Some(ItemDecision::Defer), false) if shown == 0 => format!(
                "- {id} (deferred): you left it open; a change is labelled as made for it, against your ruling, but the revised draft does not show it. {what}"
            ),
            (Some(ItemDecision::Defer), false) => format!(
                "- {id} (deferred): you left it open, but the merge acted on it anyway, against your ruling. {what}"
            ),
            (None, true) => format!("- {id} (not ruled on): no change. {what}"),
            (None, false) if shown == 0 => format!(
                "- {id} (not ruled on): not answered: the revised draft does not show the change labelled as answering it. {what}"
            ),
            (None, false) => format!("- {id} (not ruled on): answered. {what}"),
        };
        out.push_str(&line);
        out.push('\n');
        for change in named {
            out.push_str(&change_md(change, 2, draft, revised));
        }
    }
    let known: std::collections::HashSet<&str> =
        items.iter().map(|item| item.id.as_str()).collect();
    let others: Vec<&Change> = changes
        .iter()
        .filter(|change| {
            change
                .answers
                .as_deref()
                .is_none_or(|id| !known.contains(id))
        })
        .collect();
    if others.is_empty() {
        return out;
    }
    if !items.is_empty() {
        out.push_str("\nChanges that answer no critique item:\n\n");
    }
    for change in others {
        out.push_str(&change_md(change, 0, draft, revised));
        if let Some(named) = &change.answers {
            out.push_str(&format!(
                "  - names {}, which is no item of the critique\n",
                one_line(named)
            ));
        }
    }
    out
}

/// Where the revised draft does not bear out what the merge says of it,
/// one sentence each, in change-list order: a change the text does not
/// show (`the change to “third paragraph” is labelled as answering c3, but
/// the revised draft still has the old text`), and a rejected or deferred
/// item whose quoted wording changed with no change naming it. Empty for a
/// review with no merge yet.
pub fn not_borne_out(review: &WritingReview) -> Vec<String> {
    let Some(merged) = review.merged() else {
        return Vec::new();
    };
    let draft = review.config().draft.text.as_str();
    let revised = merged.merge.revised_draft.as_str();
    let mut out: Vec<String> = merged
        .merge
        .changes
        .iter()
        .filter_map(|change| {
            let said = bearing::bearing(change, draft, revised)
                .against_label(change, change.answers.as_deref())?;
            Some(format!(
                "the change to “{}” is {said}",
                one_line(&change.location)
            ))
        })
        .collect();
    for item in review.critique_items() {
        let Some((decision, _)) = review.ruling(&item.id) else {
            continue;
        };
        let named = merged
            .merge
            .changes
            .iter()
            .any(|change| change.answers.as_deref() == Some(item.id.as_str()));
        if decision == ItemDecision::Accept || named {
            continue;
        }
        if let Untouched::Changed(wording) = bearing::untouched(item, draft, revised) {
            out.push(format!(
                "no change names {}, which you {}, yet the revised draft no longer has “{wording}”",
                item.id,
                match decision {
                    ItemDecision::Defer => "left open",
                    _ => "rejected",
                }
            ));
        }
    }
    out
}

/// What the critic said of an item: `*second paragraph* (clarity,
/// major): ...`.
fn item_md(item: &CritiqueItem) -> String {
    format!(
        "*{}* ({}, {}): {}",
        one_line(&item.location),
        item.kind,
        item.severity,
        with_full_stop(&one_line(&item.text))
    )
}

/// The closing section: who rewrote what, who was left out, and the
/// scores judges gave the draft (process detail after the result, RF-06).
fn provenance_md(review: &WritingReview) -> String {
    let critique = match review.critique() {
        Some(critique) => {
            let [accepted, rejected, deferred] = [
                ItemDecision::Accept,
                ItemDecision::Reject,
                ItemDecision::Defer,
            ]
            .map(|decision| {
                critique
                    .items
                    .iter()
                    .filter(|item| review.ruling(&item.id).map(|(d, _)| d) == Some(decision))
                    .count()
            });
            let stance = review
                .config()
                .stance()
                .map(|stance| format!(", in the {} stance,", stance.as_str()))
                .unwrap_or_default();
            format!(
                "A critic read the draft first{stance} and raised {} (`{CRITIQUE}`); you accepted \
                 {accepted}, rejected {rejected} and deferred {deferred}, and every judge and the \
                 merge were given your rulings. ",
                crate::words::counted(critique.items.len(), "item", "items")
            )
        }
        None => String::new(),
    };
    let mut out = format!(
        "{critique}Each judge rewrote the draft (`{}`) on their own; one merge step then combined \
         the rewrites, following the aesthete's and the stylist's aspects first. No score decides \
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
            crate::words::capitalised(role.as_str()),
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
    out.push_str(&fairness_md(review));
    out.push_str(&format!(
        "\nEvery raw answer, every event and what the calls cost are in `{TRANSCRIPT}`.\n"
    ));
    out
}

fn transcript_md(review: &WritingReview) -> String {
    let config = review.config();
    let stance = config
        .stance()
        .map(|stance| format!(", critique {}", stance.as_str()))
        .unwrap_or_default();
    let about = format!(
        "A writing review of `{}`{stance}, started {}. ",
        one_line(&config.draft.name),
        timestamp(config.seating.started_at)
    );
    let mut out = transcript_opening(&config.topic, &about, review.log());
    out.push_str("\n## The draft\n\n");
    out.push_str(&fenced(&config.draft.text, "text"));
    out.push_str("\n## Agent outputs\n\n");
    if let Some(critique) = review.critique() {
        out.push_str(&answer_md(&critique.call_id, "the critique", &critique.raw));
    }
    for judge in review.judges() {
        if let (Some(call_id), Some(raw)) = (&judge.call_id, &judge.raw) {
            let what = format!("the {} rewrite", judge.seat.role);
            out.push_str(&answer_md(call_id, &what, raw));
        }
    }
    if let Some(merged) = review.merged() {
        out.push_str(&answer_md(&merged.call_id, "the merge", &merged.raw));
    }
    out.push_str(&unusable_md(review.unusable()));
    for asked in review.asked_again() {
        let what = format!("asked again: {}", one_line(&asked.reason));
        out.push_str(&answer_md(&asked.call_id, &what, &asked.raw));
    }
    out.push_str(&crate::protocol::record::calls_md(review.calls()));
    out
}

/// `debate.yaml` of a writing review, laid out as every decision review's
/// (DR-43..DR-45): `meta` (with the critic's `critique_mode`),
/// `participants` (`proposer`, `critic`, `judges`, and the `synthesizer`
/// that merges), `stages` (`proposal`, `critique`, `revision`,
/// `evaluation`) and `decision`, with what only a writing review has kept
/// in its place. The draft is the person's own, so `proposer` is null and
/// the proposal stage names the draft, given in full under `draft`; the
/// judges' rewrites (scores of the draft optional) are the evaluation, and
/// the merge that turns them into the revised draft is the revision.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct DebateYaml {
    meta: MetaYaml,
    draft: DraftYaml,
    participants: ParticipantsYaml,
    stages: Stages,
    /// The mode's fields (RULES.md A13): the revised text and the changes.
    decision: Option<DecisionYaml>,
    #[serialize_always]
    outcome: Option<Outcome>,
    /// What could not be read of the answers, and what that changed
    /// (issue 59); absent when everything was read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unread: Vec<crate::protocol::Unread>,
    usage: Option<UsageYaml>,
}

/// `meta`: the mode's, with the critic's stance (DR-43), absent for a
/// review journaled before the writing critic took one.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct MetaYaml {
    #[serde(flatten)]
    mode: ModeMeta,
    critique_mode: Option<&'static str>,
}

#[derive(Debug, Serialize)]
struct DraftYaml {
    name: String,
    text: String,
}

/// An agent and the role it plays, as every decision review records it.
#[derive(Debug, Serialize)]
struct AgentYaml {
    agent: String,
    role: &'static str,
}

/// A judge of the panel: its weight and the aspects it reads for.
#[derive(Debug, Serialize)]
struct JudgeYaml {
    role: JudgeRole,
    agent: String,
    weight: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    aspects: Vec<Aspect>,
}

/// `participants` (DR-44): no proposer (the draft is the person's own),
/// the critic (none in a review journaled before the critique existed),
/// the judges and the synthesizer who merges their rewrites.
#[derive(Debug, Serialize)]
struct ParticipantsYaml {
    proposer: Option<AgentYaml>,
    critic: Option<AgentYaml>,
    judges: Vec<JudgeYaml>,
    synthesizer: AgentYaml,
}

/// `stages` (DR-45), each `null` until it has run.
#[derive(Debug, Serialize)]
struct Stages {
    proposal: ProposalYaml,
    critique: Option<CritiqueYaml>,
    /// The merge: the revised draft and its changes are under `decision`.
    revision: Option<MergeYaml>,
    /// The judges' rewrites.
    evaluation: EvaluationYaml,
}

/// The proposal is the person's draft, given in full under `draft`.
#[derive(Debug, Serialize)]
struct ProposalYaml {
    draft: String,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct EvaluationYaml {
    judges: Vec<RewriteYaml>,
    /// How far the judges' scores of the draft agreed (issue 29).
    agreement: Option<AgreementYaml>,
    /// Each self-identification masked in what the judges and the merge
    /// read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    masked: Vec<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct AgreementYaml {
    alpha: Option<f64>,
    effective_votes: Option<f64>,
    judges: usize,
    aspects: usize,
    summary: String,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct RewriteYaml {
    role: String,
    file: String,
    status: &'static str,
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
    /// Where the kept merge still went against the rulings after quorum
    /// asked once more.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    against_rulings: Vec<String>,
    /// Where the revised draft does not bear out what the merge says of
    /// it (issue 60): a change it does not show, an item's wording changed
    /// with no change naming it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_in_revised_draft: Vec<String>,
}

#[derive(Debug, Serialize)]
struct CritiqueYaml {
    call_id: String,
    at: String,
    file: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    normalised: Vec<String>,
    /// The items, each with the moderator's ruling.
    critiques: Vec<ItemYaml>,
    /// The critic's answer as it came (also in [`CRITIQUE`]).
    raw_output: String,
}

/// A critique item with the moderator's ruling on it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct ItemYaml {
    #[serde(flatten)]
    item: CritiqueItem,
    decision: Option<&'static str>,
    note: Option<String>,
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
        let agent = |slot: &str| review.calls().agent(slot).unwrap_or_default().to_string();
        let participants = ParticipantsYaml {
            proposer: None,
            critic: config.critiqued().then(|| AgentYaml {
                agent: agent(super::CRITIC),
                role: crate::protocol::decision_review::CRITIC_ROLE,
            }),
            judges: config
                .panel
                .iter()
                .map(|seat| JudgeYaml {
                    role: seat.role,
                    agent: agent(&seat.role.slot()),
                    weight: seat.weight.as_str(),
                    aspects: seat.aspects.clone(),
                })
                .collect(),
            synthesizer: AgentYaml {
                agent: agent(super::SYNTHESIZER),
                role: super::SYNTHESIZER,
            },
        };
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
            meta: MetaYaml {
                mode: ModeMeta {
                    protocol: super::super::NAME,
                    mode: "writing",
                    topic: config.topic.clone(),
                    timestamp: timestamp(config.seating.started_at),
                    deliverable: DELIVERABLE,
                    constraints: Vec::new(),
                },
                critique_mode: config.stance().map(|stance| stance.as_str()),
            },
            draft: DraftYaml {
                name: config.draft.name.clone(),
                text: config.draft.text.clone(),
            },
            participants,
            stages: Stages {
                proposal: ProposalYaml {
                    draft: config.draft.name.clone(),
                },
                critique: review.critique().map(|critique| CritiqueYaml {
                    call_id: critique.call_id.clone(),
                    at: timestamp(critique.at),
                    file: CRITIQUE,
                    normalised: critique.readings.clone(),
                    critiques: critique
                        .items
                        .iter()
                        .map(|item| {
                            let ruling = review.ruling(&item.id);
                            ItemYaml {
                                item: item.clone(),
                                decision: ruling.map(|(decision, _)| decision.past_tense()),
                                note: ruling.and_then(|(_, note)| note.map(str::to_string)),
                            }
                        })
                        .collect(),
                    raw_output: critique.raw.clone(),
                }),
                revision: review.merged().map(|merged| MergeYaml {
                    call_id: merged.call_id.clone(),
                    at: timestamp(merged.at),
                    raw_output: merged.raw.clone(),
                    normalised: merged.readings.clone(),
                    against_rulings: merged
                        .against_rulings
                        .iter()
                        .map(|against| against.describe("you"))
                        .collect(),
                    not_in_revised_draft: not_borne_out(review),
                }),
                evaluation: EvaluationYaml {
                    judges: rewrites,
                    agreement: review.agreement().map(|agreement| AgreementYaml {
                        alpha: agreement.alpha,
                        effective_votes: agreement.effective_votes,
                        judges: agreement.judges,
                        aspects: agreement.units,
                        summary: agreement.summary(),
                    }),
                    masked: review.masked().to_vec(),
                },
            },
            decision: review.merged().map(|merged| DecisionYaml {
                summary: merged.summary.clone(),
                revised_draft: merged.merge.revised_draft.clone(),
                changes: merged.merge.changes.clone(),
            }),
            outcome: review.outcome().cloned(),
            unread: review.core.unread.clone(),
            usage: UsageYaml::of(review.calls().usage()),
        }
    }
}
