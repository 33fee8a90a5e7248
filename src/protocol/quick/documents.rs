//! The files of a quick debate: `transcript.md` (every event and every raw
//! answer, the audit record), the mode's reader deliverable
//! (`panel-review.md`, `pre-mortem.md`, `red-team-report.md`,
//! `architecture-challenge.md`; a challenge's result line heads its
//! transcript), a reviewer's raw answer in `judges/judge-{role}.md`, and
//! `debate.yaml` for machines.
//!
//! A deliverable opens with the synthesizer's reader-first paragraph (RF-04)
//! and keeps process detail to its closing section (RF-06); the end-of-run
//! message is that opening, word for word (RF-07). When the synthesizer's
//! document still broke a rule or a ruling after it was asked once more, a
//! warning saying what precedes the opening, in the document and in the
//! end-of-run message alike: it is never presented as clean. A red team's
//! lists of the findings that stand and of those set aside are quorum's
//! own, written from the moderator's rulings, not from the synthesizer's
//! text.

use std::collections::BTreeMap;

use serde::Serialize;

use super::parse::Vulnerability;
use super::{Quick, QuickMode, ReviewState};
use crate::protocol::documents::Documents;
use crate::protocol::judges::JudgeRole;
use crate::protocol::record::{
    EVERY_EVENT, ModeMeta, UsageYaml, diagnostics_md, log_lines, unusable_md, usage_md,
};
use crate::protocol::ruler::rulers_md;
use crate::protocol::{AnswerFile, Outcome, Protocol};
use crate::words::{answer_md, nested_markdown, one_line, timestamp};

/// The audit record every quick mode writes.
pub const TRANSCRIPT: &str = "transcript.md";

/// Where a reviewer's raw answer goes: `judges/judge-{role}.md`, no round
/// suffix, as in every non-scoring mode (INF-11, QM-06).
pub fn review_file(role: JudgeRole) -> String {
    format!("judges/judge-{role}.md")
}

/// The reviews' files that hold an answer that could not be used; every
/// other answer's file is the answer as it came.
pub fn answer_files(quick: &Quick) -> Vec<AnswerFile> {
    quick
        .reviews()
        .iter()
        .filter_map(|review| match (&review.raw, &review.state) {
            (Some(raw), ReviewState::Malformed(reason)) => Some(AnswerFile::unusable(
                review_file(review.role),
                raw.clone(),
                reason.clone(),
            )),
            _ => None,
        })
        .collect()
}

/// Every file of the tree that has content yet: each reads the log or the
/// reviews as they stand, so each is rendered every time.
pub fn documents(quick: &Quick, out: &mut Documents<'_>) {
    out.add(TRANSCRIPT, || transcript_md(quick));
    if quick.mode() != QuickMode::Challenge {
        out.add_some(quick.mode().deliverable(), || deliverable_md(quick));
    }
    out.add("debate.yaml", || {
        yaml_serde::to_string(&DebateYaml::of(quick)).unwrap_or_default()
    });
}

/// The opening of the deliverable, word for word: what the end of a run
/// prints (RF-07). `None` while the debate runs.
pub fn summary_lead(quick: &Quick) -> Option<String> {
    match quick.outcome()? {
        Outcome::Failed { reason } => Some(format!(
            "**No result.** The {} stopped before it finished: {}. What was collected is in {TRANSCRIPT}; \
             fix the cause and run it again.",
            quick.mode().title(),
            reason.trim_end_matches('.')
        )),
        _ if quick.mode() == QuickMode::Challenge => Some(challenge_result(quick)),
        _ => quick.synthesis().map(|synthesis| {
            let mut lead = warning_md(&synthesis.warnings);
            lead.push_str(&synthesis.opening);
            lead
        }),
    }
}

/// What the synthesizer left wrong after its one more attempt, as a block
/// the reader meets before anything else; empty when nothing was.
fn warning_md(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "> **Warning:** quorum asked the synthesizer once more, and this document still does \
         not hold to what it was asked:\n",
    );
    for (index, warning) in warnings.iter().enumerate() {
        let end = if index + 1 == warnings.len() {
            '.'
        } else {
            ';'
        };
        out.push_str(&format!(
            "> - {}{end}\n",
            one_line(warning).trim_end_matches(['.', ';'])
        ));
    }
    out.push('\n');
    out
}

/// A challenge's result in a sentence or two: the critic's bottom line
/// (RF-11).
fn challenge_result(quick: &Quick) -> String {
    match quick.bottom_line() {
        Some(line) => format!("**Bottom line:** {line}"),
        None if quick.bottom_lines_differ() => "**No bottom line.** The critic challenged the \
                 position (below) but gave bottom lines that say different things, so neither is \
                 taken."
            .to_string(),
        None => "**No bottom line.** The critic challenged the position (below) but did not say \
                 whether it holds."
            .to_string(),
    }
}

/// `Panel review`, the deliverable's title word.
fn document_title(mode: QuickMode) -> &'static str {
    match mode {
        QuickMode::Challenge => "Challenge",
        QuickMode::Panel => "Panel review",
        QuickMode::Premortem => "Pre-mortem",
        QuickMode::Redteam => "Red-team report",
        QuickMode::Adversary => "Architecture challenge",
    }
}

fn deliverable_md(quick: &Quick) -> Option<String> {
    let lead = summary_lead(quick)?;
    let mut out = format!(
        "# {} — {}\n\n{}\n\n",
        document_title(quick.mode()),
        one_line(&quick.config().topic),
        lead.trim()
    );
    if let Some(synthesis) = quick.synthesis()
        && !synthesis.body.is_empty()
    {
        out.push_str(synthesis.body.trim());
        out.push_str("\n\n");
    }
    if quick.mode() == QuickMode::Redteam && !quick.vulnerabilities().is_empty() {
        out.push_str(&standing_md(quick));
        let set_aside = quick.set_aside();
        if !set_aside.is_empty() {
            let described = quick
                .synthesis()
                .is_some_and(|synthesis| synthesis.describes_set_aside);
            out.push_str(if described {
                "## Findings set aside\n\nThe moderator judged these not to be real weaknesses \
                 of the target. They should have been left out above, and some were not: see the \
                 warning at the top.\n\n"
            } else {
                "## Findings set aside\n\nThe moderator judged these not to be real weaknesses \
                 of the target; they are left out above.\n\n"
            });
            for (finding, note) in set_aside {
                out.push_str(&finding_item(finding, "", note));
            }
            out.push('\n');
        }
    }
    out.push_str("## How this was made\n\n");
    out.push_str(&rulers_md(&Protocol::board(quick).items));
    out.push_str(&provenance_md(quick));
    Some(out)
}

/// The red team's findings that stand, written from the rulings: accepted
/// ones as confirmed, deferred ones as open, none the moderator rejected.
fn standing_md(quick: &Quick) -> String {
    let standing = quick.standing_findings();
    let mut out = String::from("## Findings that stand\n\n");
    if standing.is_empty() {
        out.push_str(
            "None: the moderator set aside every finding the attack reported, so no \
             vulnerability of the target stands.\n\n",
        );
        return out;
    }
    out.push_str(
        "As the moderator ruled, most severe first; an open one is not confirmed yet.\n\n",
    );
    for (finding, status, note) in standing {
        let status = match status {
            "confirmed" => "confirmed",
            "unconfirmed" => "open, not confirmed",
            _ => "as reported, not triaged",
        };
        out.push_str(&finding_item(finding, &format!(", {status}"), note));
    }
    out.push('\n');
    out
}

/// A red-team finding as a list item: its title, its severity and
/// `status` (`, confirmed`, or nothing), and the moderator's note.
fn finding_item(finding: &Vulnerability, status: &str, note: Option<String>) -> String {
    format!(
        "- **{}** ({}{status}){}\n",
        one_line(&finding.title),
        finding.severity.as_str(),
        note.map(|note| format!(": {}", one_line(&note)))
            .unwrap_or_default()
    )
}

/// The closing section: where the result came from, for whoever wants the
/// process (RF-02, RF-06: process detail after the result, never before).
fn provenance_md(quick: &Quick) -> String {
    let mut out = match quick.mode() {
        QuickMode::Panel => {
            let mut lines = String::from(
                "Three reviewers looked at the work independently, each from one angle, without \
                 seeing each other's review; a synthesizer then wrote this document from their \
                 reviews.\n\n",
            );
            for review in quick.reviews() {
                let status = match &review.state {
                    ReviewState::Answered => format!("`{}`", review_file(review.role)),
                    ReviewState::Malformed(reason) => format!(
                        "`{}` (unusable, left out: {})",
                        review_file(review.role),
                        one_line(reason)
                    ),
                    ReviewState::Skipped(reason) => {
                        format!("no review (skipped: {})", one_line(reason))
                    }
                    ReviewState::Pending => "still working".to_string(),
                };
                lines.push_str(&format!(
                    "- {} ({}): {status}\n",
                    crate::words::capitalised(review.role.as_str()),
                    review.role.focus()
                ));
            }
            lines.push_str(&fairness_md(quick));
            lines
        }
        QuickMode::Premortem => "A critic imagined the plan had failed six months from now and \
                                 explained the failure; a synthesizer wrote this document from \
                                 that analysis.\n"
            .to_string(),
        QuickMode::Redteam => {
            let mut text = String::from(
                "A critic attacked the target as an adversary would; the moderator confirmed \
                 each finding, set it aside or left it open; a synthesizer wrote this document \
                 from the report and the moderator's rulings (open findings as unconfirmed), and \
                 quorum checked it against those rulings and wrote the lists of findings that \
                 stand and that were set aside.\n",
            );
            if let Some(error) = quick.vulnerability_error() {
                text.push_str(&format!(
                    "\nThe report's list of findings could not be read ({}), so nothing was \
                     triaged and the report was used as written.\n",
                    one_line(error)
                ));
            }
            text
        }
        QuickMode::Adversary => {
            let mut text =
                String::from("A proposer designed the architecture, a critic attacked it");
            match quick.revision_skipped() {
                None if quick.revision().is_some() => {
                    text.push_str(", and the proposer answered the attack");
                }
                None => {}
                Some(reason) => text.push_str(&format!(
                    "; the proposer's answer to it is missing ({})",
                    reason.trim_end_matches('.')
                )),
            }
            text.push_str("; a synthesizer wrote this document from their texts.\n");
            text
        }
        QuickMode::Challenge => String::new(),
    };
    out.push_str(&format!(
        "\nEvery raw answer, every event and what the calls cost are in `{TRANSCRIPT}`.\n"
    ));
    out
}

/// How the panel was kept fair and how far it agreed (issue 29); nothing
/// for a panel from before fair judging.
fn fairness_md(quick: &Quick) -> String {
    let Some(agreement) = quick.agreement() else {
        return String::new();
    };
    let fairness = &quick.config().seating.fairness;
    let mut out = String::from("\n");
    out.push_str(match fairness.blind {
        true => {
            "The synthesizer read the reviews without knowing which model wrote which, \
                 with any self-identification masked, and in an order of its own."
        }
        false => {
            "The synthesizer read the reviews in an order of its own (not blind: \
                  self-identification was left as written)."
        }
    });
    out.push_str(&format!(
        " Each reviewer also read the work on all three angles, 1 to 10; these readings are \
         no score and decide nothing, they show how alike the reviewers read it: {}.\n\n",
        agreement.summary()
    ));
    for review in quick
        .reviews()
        .iter()
        .filter(|review| review.state == ReviewState::Answered)
    {
        out.push_str(&format!(
            "- {}: {}\n",
            crate::words::capitalised(review.role.as_str()),
            reading_words(&review.reading)
        ));
    }
    if agreement.fewer_than_two_votes() {
        out.push_str(
            "\n**Still uncertain:** the three reviews were worth fewer than two independent \
             votes, so where they agree, read it as one view of the work rather than three.\n",
        );
    }
    out
}

/// The transcript's section of every event, in order.
fn events_md(quick: &Quick) -> String {
    format!(
        "## Events\n\nA quick {} (`{}` mode), started {}. {EVERY_EVENT}\n\n{}",
        quick.mode().title(),
        quick.mode().as_str(),
        timestamp(quick.config().seating.started_at),
        log_lines(quick.log())
    )
}

/// A challenge's transcript is its deliverable: the bottom line, then the
/// critique as the critic wrote it, rendered as Markdown (its headings
/// kept inside its section, raw HTML shown as text), then what it cost, and
/// the event log last. The critique's raw text, byte for byte, is in
/// `debate.yaml` and the journal.
fn challenge_transcript_md(quick: &Quick) -> String {
    let mut out = format!("# Challenge — {}\n\n", one_line(&quick.config().topic));
    if let Some(lead) = summary_lead(quick) {
        out.push_str(&format!("{lead}\n\n"));
    }
    if let Some(attack) = quick.attack() {
        out.push_str(&format!(
            "## The critique\n\nAs the critic wrote it (`{}`).\n\n{}",
            attack.call_id,
            nested_markdown(attack.raw.trim(), 2)
        ));
    }
    let unusable = quick.unusable();
    if !unusable.is_empty() {
        out.push_str("## Answers quorum could not use\n\n");
        for unusable in unusable {
            out.push_str(&answer_md(
                &unusable.call_id,
                &one_line(&unusable.reason),
                &unusable.raw,
            ));
        }
    }
    out.push_str(&diagnostics_md(quick.calls().diagnostics()));
    out.push_str(&usage_md(quick.calls().usage()));
    out.push('\n');
    out.push_str(&events_md(quick));
    out
}

fn transcript_md(quick: &Quick) -> String {
    if quick.mode() == QuickMode::Challenge {
        return challenge_transcript_md(quick);
    }
    let config = quick.config();
    let mut out = format!("# Transcript — {}\n\n", one_line(&config.topic));
    out.push_str(&events_md(quick));
    out.push_str("\n## Agent outputs\n\n");
    if let Some(proposal) = quick.proposal() {
        out.push_str(&answer_md(&proposal.call_id, "the proposal", &proposal.raw));
    }
    if let Some(attack) = quick.attack() {
        out.push_str(&answer_md(&attack.call_id, "the critic", &attack.raw));
    }
    for review in quick.reviews() {
        if let (Some(call_id), Some(raw)) = (&review.call_id, &review.raw) {
            let what = format!("the {} review", review.role);
            out.push_str(&answer_md(call_id, &what, raw));
        }
    }
    if let Some(revision) = quick.revision() {
        out.push_str(&answer_md(&revision.call_id, "the revision", &revision.raw));
    }
    if let Some(synthesis) = quick.synthesis() {
        out.push_str(&answer_md(
            &synthesis.call_id,
            "the synthesis",
            &synthesis.raw,
        ));
    }
    out.push_str(&unusable_md(quick.unusable()));
    out.push_str(&crate::protocol::record::calls_md(quick.calls()));
    out
}

/// `debate.yaml` of a quick debate: what ran, who played what, every raw
/// answer, the triage, how it ended and what it cost.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct DebateYaml {
    meta: ModeMeta,
    participants: Vec<Participant>,
    stages: Stages,
    #[serialize_always]
    outcome: Option<Outcome>,
    /// What could not be read of the answers, and what that changed
    /// (issue 59); absent when everything was read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unread: Vec<crate::protocol::Unread>,
    usage: Option<UsageYaml>,
}

#[derive(Debug, Serialize)]
struct Participant {
    slot: String,
    /// The role in the record: `oracle`, `mephistopheles`, a judge role,
    /// `synthesizer`.
    role: String,
    agent: String,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, Serialize)]
struct Stages {
    proposal: Option<Raw>,
    critic: Option<Raw>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    reviews: Vec<ReviewYaml>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    findings: Vec<FindingYaml>,
    revision: Option<Raw>,
    revision_skipped: Option<String>,
    synthesis: Option<Raw>,
    /// What the synthesis still got wrong after one more attempt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    synthesis_warnings: Vec<String>,
    /// How far a panel's readings agreed (issue 29).
    agreement: Option<AgreementYaml>,
    /// Each self-identification masked in what the synthesizer read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    masked: Vec<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct AgreementYaml {
    alpha: Option<f64>,
    effective_votes: Option<f64>,
    reviewers: usize,
    lenses: usize,
    summary: String,
}

#[derive(Debug, Serialize)]
struct Raw {
    call_id: String,
    at: String,
    raw_output: String,
    /// What quorum read other than as written in it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    normalised: Vec<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct ReviewYaml {
    role: String,
    file: String,
    status: &'static str,
    reason: Option<String>,
    /// Its reading of the work per lens, when it gave one (issue 29).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    reading: BTreeMap<&'static str, u8>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
struct FindingYaml {
    id: String,
    title: String,
    severity: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    description: String,
    exploit: String,
    decision: Option<&'static str>,
    note: Option<String>,
}

impl DebateYaml {
    fn of(quick: &Quick) -> DebateYaml {
        let config = quick.config();
        let raw = |collected: &super::Collected| Raw {
            call_id: collected.call_id.clone(),
            at: timestamp(collected.at),
            raw_output: collected.raw.clone(),
            normalised: collected.normalised.clone(),
        };
        let participants = quick
            .roster()
            .seats()
            .iter()
            .map(|seat| {
                let role = match seat.role {
                    super::Role::Proposer => super::PROPOSER_ROLE.to_string(),
                    super::Role::Critic => super::CRITIC_ROLE.to_string(),
                    super::Role::Reviewer(judge) => judge.to_string(),
                    super::Role::Synthesizer => seat.slot.clone(),
                };
                Participant {
                    agent: quick
                        .calls()
                        .agent(&seat.slot)
                        .unwrap_or_default()
                        .to_string(),
                    slot: seat.slot.clone(),
                    role,
                }
            })
            .collect();
        let stages = Stages {
            proposal: quick.proposal().map(raw),
            critic: quick.attack().map(raw),
            reviews: quick
                .reviews()
                .iter()
                .map(|review| {
                    let (status, reason) = match &review.state {
                        ReviewState::Pending => ("pending", None),
                        ReviewState::Answered => ("answered", None),
                        ReviewState::Malformed(reason) => ("malformed", Some(reason.clone())),
                        ReviewState::Skipped(reason) => ("skipped", Some(reason.clone())),
                    };
                    ReviewYaml {
                        role: review.role.to_string(),
                        file: review_file(review.role),
                        status,
                        reason,
                        reading: super::parse::LENSES
                            .into_iter()
                            .zip(review.reading)
                            .filter_map(|(lens, score)| Some((lens, score?)))
                            .collect(),
                    }
                })
                .collect(),
            findings: quick
                .vulnerabilities()
                .iter()
                .map(|finding| {
                    let ruling = quick.ruling(&finding.id);
                    FindingYaml {
                        id: finding.id.clone(),
                        title: finding.title.clone(),
                        severity: finding.severity.as_str(),
                        description: finding.description.clone(),
                        exploit: finding.exploit.clone(),
                        decision: ruling.as_ref().map(|ruling| ruling.decision.as_str()),
                        note: ruling.and_then(|ruling| ruling.note),
                    }
                })
                .collect(),
            revision: quick.revision().map(raw),
            revision_skipped: quick.revision_skipped().map(str::to_string),
            synthesis: quick.synthesis().map(|synthesis| Raw {
                call_id: synthesis.call_id.clone(),
                at: timestamp(synthesis.at),
                raw_output: synthesis.raw.clone(),
                normalised: Vec::new(),
            }),
            synthesis_warnings: quick
                .synthesis()
                .map(|synthesis| synthesis.warnings.clone())
                .unwrap_or_default(),
            agreement: quick.agreement().map(|agreement| AgreementYaml {
                alpha: agreement.alpha,
                effective_votes: agreement.effective_votes,
                reviewers: agreement.judges,
                lenses: agreement.units,
                summary: agreement.summary(),
            }),
            masked: quick.masked().to_vec(),
        };
        DebateYaml {
            meta: ModeMeta {
                protocol: super::NAME,
                mode: config.mode.as_str(),
                topic: config.topic.clone(),
                timestamp: timestamp(config.seating.started_at),
                deliverable: config.mode.deliverable(),
                constraints: config.constraints.clone(),
            },
            participants,
            stages,
            outcome: quick.outcome().cloned(),
            unread: quick.core.unread.clone(),
            usage: UsageYaml::of(quick.calls().usage()),
        }
    }
}

/// `elegance 7 · clarity 6 · rigour —`.
pub(super) fn reading_words(reading: &[Option<u8>; 3]) -> String {
    super::parse::LENSES
        .iter()
        .zip(reading)
        .map(|(lens, score)| match score {
            Some(score) => format!("{lens} {score}"),
            None => format!("{lens} —"),
        })
        .collect::<Vec<_>>()
        .join(" · ")
}
