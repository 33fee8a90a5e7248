//! The files of a council. In the run folder: every raw answer under
//! `phase-1/`, `expand/`, `phase-3/round-N/`, `phase-5/` and `handoff/`
//! (written before it is read; an unusable one starts with a MALFORMED
//! marker), `council.json` (the whole record, which `quorum verdict`
//! reads back with the final positions), `packets.jsonl` (every packet
//! and envelope, FP-49..FP-51), `transcript.md` and the reader's
//! `summary.md`. Outside it, once the council ends, the seed's
//! deliverable pair: `{outputs}/debate/{YYYYMMDD-HHMMSS}-debate-{review_id}.md`
//! with its front matter and the `.json` companion of the same stem
//! (FP-52..FP-55); no symlink, no "latest".

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::model::{
    Challenge, ChallengeState, DEVIL, Finding, FindingState, MergeCandidate, Positions, Preset,
    ProposalStatus, Response, Severity, participant_title,
};
use super::verdict::{self, Assessment};
use super::{Council, Step};
use crate::protocol::Stage as _;
use crate::protocol::kind::{RecomputeError, Recomputed};
use crate::protocol::record::transcript_opening;
use crate::protocol::{Document, Outcome, Protocol, Publication};
use crate::words::{one_line, raw_md, timestamp};

/// The reader's document.
pub const SUMMARY: &str = "summary.md";
/// The whole record, for machines and `quorum verdict`.
pub const RECORD: &str = "council.json";
/// Every packet and envelope, one per line.
pub const PACKETS: &str = "packets.jsonl";
/// Every event and every raw answer.
pub const TRANSCRIPT: &str = "transcript.md";
/// The synthesizer's raw handoff.
pub const HANDOFF_FILE: &str = "handoff/synthesizer.md";
/// The deliverable's folder under the outputs root (FP-52).
pub const DEBATE_FOLDER: &str = "debate";

/// `phase-1/expert.security.md`: a participant's Phase 1 answer.
pub fn independent_file(role: &str) -> String {
    format!("phase-1/{role}.md")
}

/// `expand/expert.security.md`.
pub fn expand_file(role: &str) -> String {
    format!("expand/{role}.md")
}

/// `phase-3/round-2/devil-advocate.md`.
pub fn round_file(round: u32, role: &str) -> String {
    format!("phase-3/round-{round}/{role}.md")
}

/// `phase-5/integration-checker.md`.
pub fn final_file(role: &str) -> String {
    format!("phase-5/{role}.md")
}

/// The marker an unusable answer's file starts with.
pub fn malformed_marker(reason: &str) -> String {
    format!(
        "<!-- MALFORMED: {} -->\n",
        one_line(reason).replace("--", "- -")
    )
}

/// Every file of the run folder that has content yet.
pub fn documents(council: &Council) -> Vec<Document> {
    let mut documents = Vec::new();
    // An answer is the engine's, written to its file once as it came; a
    // document only marks one that could not be read.
    for submission in council.submissions() {
        if let Some(reason) = &submission.malformed {
            let contents = format!("{}{}", malformed_marker(reason), submission.raw);
            documents.push(Document::raw(submission.file.clone(), contents));
        }
    }
    documents.push(Document::new(
        RECORD,
        serde_json::to_string_pretty(&companion(council)).unwrap_or_default() + "\n",
    ));
    documents.push(Document::new(PACKETS, council.exchange().jsonl()));
    documents.push(Document::new(TRANSCRIPT, transcript_md(council)));
    if let Some(summary) = summary_md(council) {
        documents.push(Document::new(SUMMARY, summary));
    }
    documents
}

/// `20261201-143000-debate-{review_id}`: the stem of the deliverable pair,
/// stamped with the council's start so a resumed run writes the same pair.
pub fn stem(council: &Council) -> String {
    format!(
        "{}-debate-{}",
        council.config().seating.started_at.format("%Y%m%d-%H%M%S"),
        council.config().review_id
    )
}

/// The deliverable pair, once the council has ended (FP-52, FP-53).
pub fn publications(council: &Council) -> Vec<Publication> {
    if council.outcome().is_none() {
        return Vec::new();
    }
    let Some(summary) = summary_md(council) else {
        return Vec::new();
    };
    let folder = PathBuf::from(&council.config().outputs).join(DEBATE_FOLDER);
    let stem = stem(council);
    let markdown = format!("{}{summary}", front_matter(council));
    let json = serde_json::to_string_pretty(&companion(council)).unwrap_or_default() + "\n";
    vec![
        Publication::whole(
            folder.join(format!("{stem}.md")),
            crate::text::for_markdown(&markdown),
        ),
        Publication::whole(folder.join(format!("{stem}.json")), json),
    ]
}

/// A YAML string, quoted and escaped.
fn yaml_text(text: &str) -> String {
    serde_json::to_string(&one_line(text)).unwrap_or_default()
}

/// The seed's front matter (FP-52); a brainstorm's carries no verdict and
/// a fallback's is marked (A24).
fn front_matter(council: &Council) -> String {
    let config = council.config();
    let mut out = String::from("---\nskill: debate-protocol\n");
    let finished = council
        .calls()
        .log()
        .last()
        .map_or(config.seating.started_at, |entry| entry.at);
    out.push_str(&format!("timestamp: {}\n", timestamp(finished)));
    out.push_str("artifact_type: debate\n");
    out.push_str(&format!("domains: [{}]\n", config.domains.join(", ")));
    if let Some(Outcome::Decided { verdict, .. }) = council.outcome() {
        out.push_str(&format!("verdict: {verdict}\n"));
    }
    out.push_str(&format!("intensity: {}\n", config.intensity.as_str()));
    out.push_str(&format!("review_id: {}\n", yaml_text(&config.review_id)));
    out.push_str(&format!(
        "context_summary: {}\n",
        yaml_text(&config.context_summary)
    ));
    out.push_str(&format!("mode: {}\n", config.mode.as_str()));
    out.push_str(&format!("preset: {}\n", config.preset.as_str()));
    if council.fallback().is_some() {
        out.push_str("type: debate-protocol-fallback\n");
    }
    if council.budget_exhausted().is_some() {
        out.push_str("budget_exhausted: true\n");
    }
    out.push_str("---\n\n");
    out
}

// ---- the record ------------------------------------------------------------

/// One participant, as the record lists it.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParticipantRecord {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub agent: String,
    /// Given up in Phase 1: not asked again, not counted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub out: bool,
    /// Its final position's file, when it gave one.
    pub final_position: Option<String>,
}

/// What `quorum verdict` reads back from `council.json`.
#[derive(Clone, Debug, Deserialize)]
struct RecordIn {
    preset: Preset,
    participants: Vec<ParticipantRecord>,
    #[serde(default)]
    inventory: Vec<Finding>,
    #[serde(default)]
    challenges: Vec<Challenge>,
    #[serde(default)]
    responses: Vec<Response>,
    #[serde(default)]
    merges: MergesIn,
    #[serde(default)]
    verdict: Option<String>,
    #[serde(default)]
    mode: String,
    #[serde(default)]
    failed: Option<String>,
    /// Families and the recusal policy; none before fair judging.
    #[serde(default)]
    fairness: crate::protocol::fairness::Fairness,
    /// The rules it ran under; none before issue 60.
    #[serde(default)]
    edition: crate::protocol::Edition,
}

#[derive(Clone, Debug, Default, Deserialize)]
struct MergesIn {
    #[serde(default)]
    proposed: Vec<MergeCandidate>,
}

/// The JSON companion and `council.json`: the full inventory, the rounds,
/// every challenge and response, the merges, every final position, the
/// dissent and the result (A24). Its schema is in the README.
pub fn companion(council: &Council) -> Value {
    let config = council.config();
    let assessment = council.assessment();
    let participants: Vec<ParticipantRecord> = council
        .participants()
        .iter()
        .map(|slot| ParticipantRecord {
            id: slot.clone(),
            title: participant_title(slot),
            agent: council.calls().agent(slot).unwrap_or_default().to_string(),
            out: council.out().contains(slot),
            final_position: council
                .submissions()
                .iter()
                .find(|s| s.role == *slot && s.stage == Step::Final.id())
                .map(|s| s.file.clone()),
        })
        .collect();
    let (verdict, rule, failed) = match council.outcome() {
        Some(Outcome::Decided { verdict, rule }) => {
            (Some(verdict.to_string()), Some(rule.clone()), None)
        }
        Some(Outcome::Failed { reason }) => (None, None, Some(reason.clone())),
        _ => (None, None, None),
    };
    let findings: Vec<Value> = match assessment {
        Some(assessment) => {
            let outcomes = assessment.outcomes_by_id();
            assessment
                .findings
                .iter()
                .map(|finding| {
                    let outcome = outcomes.get(finding.id.as_str());
                    let mut value = serde_json::to_value(finding).unwrap_or_default();
                    if let (Some(outcome), Some(map)) = (outcome, value.as_object_mut()) {
                        map.insert("state".into(), json!(outcome.state));
                        map.insert("share".into(), json!(outcome.share));
                        map.insert("threshold".into(), json!(outcome.threshold));
                        map.insert("rule".into(), json!(outcome.rule));
                    }
                    value
                })
                .collect()
        }
        None => Vec::new(),
    };
    let mut record = json!({
        "type": if council.fallback().is_some() { "debate-protocol-fallback" } else { "debate-protocol" },
        "schema_version": "1.0",
        "skill": "debate-protocol",
        "review_id": config.review_id,
        "started_at": timestamp(config.seating.started_at),
        "scope": config.topic,
        "context_summary": config.context_summary,
        "context_policy": config.context_policy,
        "task_context": config.task_context().word(),
        "mode": config.mode.as_str(),
        "intensity": config.intensity.as_str(),
        "phases": config.intensity.phases(),
        "max_rounds": config.intensity.max_rounds(),
        "preset": config.preset,
        "params": config.params(),
        "domains": config.domains,
        "participants": participants,
        "budget": {
            "limit": config.budget(),
            "used": council.budget_used(),
            "exhausted": council.budget_exhausted().is_some(),
            "reason": council.budget_exhausted(),
        },
        "fallback": council.fallback(),
        "stopped": council.stopped(),
        "verdict": verdict,
        "rule": rule,
        "failed": failed,
        "inventory": council.findings(),
        "findings": findings,
        "rounds": council.rounds(),
        "challenges": council.challenges(),
        "responses": council.responses(),
        "merges": {
            "proposed": council.merge_candidates(),
            "results": assessment.map(|a| a.merges.clone()).unwrap_or_default(),
        },
        "positions": council.positions(),
        "disputed_findings": assessment.map(|a| a.disputed_findings.clone()).unwrap_or_default(),
        "rulings": council.challenges().iter().filter_map(|challenge| {
            let ruling = super::rulings::ruling_of(challenge)?;
            Some(json!({
                "id": challenge.id,
                "about": challenge.finding_id,
                "ruling": super::rulings::verb(ruling.ruled),
                "note": ruling.note,
            }))
        }).collect::<Vec<_>>(),
        "against_rulings": council.against_rulings(),
    });
    // How the final positions were kept fair, and how far they agreed
    // (fair judging; neither before it).
    let fairness = &config.seating.fairness;
    if let (false, Some(map)) = (fairness.is_legacy(), record.as_object_mut()) {
        map.insert("fairness".into(), json!(fairness));
    }
    if let (Some(agreement), Some(map)) = (council.agreement(), record.as_object_mut()) {
        map.insert(
            "agreement".into(),
            json!({
                "alpha": agreement.alpha,
                "effective_votes": agreement.effective_votes,
                "participants": agreement.judges,
                "findings": agreement.units,
                "summary": agreement.summary(),
            }),
        );
    }
    if council.config().mode.proposes()
        && let Some(map) = record.as_object_mut()
    {
        map.remove("verdict");
        map.remove("rule");
        map.remove("disputed_findings");
        map.insert("proposals".into(), json!(council.proposals()));
        map.insert("convergence".into(), json!(council.proposal_outcomes()));
        if !council.retirements().is_empty() {
            map.insert("retirements".into(), json!(council.retirements()));
        }
        map.insert("handoff".into(), json!(council.handoff()));
    }
    // The rules it ran under, which `quorum verdict` recomputes with.
    let edition = config.seating.edition;
    if let (false, Some(map)) = (edition.is_first(), record.as_object_mut()) {
        map.insert("edition".into(), json!(edition));
    }
    // What could not be read, and what that changed (issue 59).
    if let (false, Some(map)) = (council.core.unread.is_empty(), record.as_object_mut()) {
        map.insert("unread".into(), json!(council.core.unread));
    }
    record
}

/// The verdict derived again from `council.json` and the final-position
/// files on disk: editing a final position changes it.
pub fn recompute(files: &dyn crate::input::RecordFiles) -> Result<Recomputed, RecomputeError> {
    let shown = files.shown(RECORD);
    let record: RecordIn =
        crate::protocol::kind::read_record(files, RECORD, "a quorum council folder")?;
    if let Some(reason) = &record.failed {
        return Err(RecomputeError::NoVerdict {
            path: shown,
            reason: format!("this council failed before it reached a verdict: {reason}"),
        });
    }
    if super::model::CouncilMode::parse(&record.mode).is_some_and(|mode| mode.proposes()) {
        return Err(RecomputeError::NotApplicable(
            "a brainstorm or design council ends with a handoff, not a verdict".into(),
        ));
    }
    if record.verdict.is_none() {
        return Err(RecomputeError::NoVerdict {
            path: shown,
            reason: "this council has not finished, so there is no verdict to recompute yet".into(),
        });
    }
    let known: Vec<&str> = record.inventory.iter().map(|f| f.id.as_str()).collect();
    let mut positions = Positions::new();
    let mut readings = Vec::new();
    for participant in &record.participants {
        let Some(file) = &participant.final_position else {
            continue;
        };
        let text =
            files
                .read(file, "final position")
                .map_err(|error| RecomputeError::Unreadable {
                    path: files.shown(file),
                    message: error.to_string(),
                })?;
        if text.starts_with("<!-- MALFORMED") {
            readings.push(format!("{file}: marked MALFORMED, left out"));
            continue;
        }
        match super::parse::read_final(&text, &participant.id, &known) {
            Ok(read) => {
                for note in read.notes {
                    readings.push(format!("{file}: {note}"));
                }
                for slip in read.slips {
                    readings.push(format!("{file}: could not read {slip}; left out"));
                }
                positions.insert(participant.id.clone(), read.value);
            }
            Err(error) => readings.push(format!("{file}: does not read ({error}), left out")),
        }
    }
    let ids: Vec<String> = record.participants.iter().map(|p| p.id.clone()).collect();
    let assessment = verdict::assess(&verdict::Record {
        participants: &ids,
        findings: &record.inventory,
        challenges: &record.challenges,
        responses: &record.responses,
        merges: &record.merges.proposed,
        positions: &positions,
        preset: record.preset,
        params: record.preset.params(),
        fairness: &record.fairness,
        edition: record.edition,
    });
    let mut rule = assessment.rule.clone();
    for outcome in &assessment.outcomes {
        rule.push_str(&format!(
            "\n{} {}: {}",
            outcome.id, outcome.severity, outcome.rule
        ));
    }
    Ok(Recomputed {
        verdict: Some(assessment.verdict),
        rule,
        detail: json!({
            "verdict": assessment.verdict,
            "rule": assessment.rule,
            "findings": assessment.outcomes,
            "disputed_findings": assessment.disputed_findings,
            "merges": assessment.merges,
        }),
        readings,
    })
}

// ---- summary.md --------------------------------------------------------------

/// The opening of `summary.md`, word for word: what the end of a run
/// prints (RF-07). `None` while the council runs.
pub fn summary_lead(council: &Council) -> Option<String> {
    let lead = lead_of_outcome(council)?;
    Some(if council.against_rulings().is_empty() {
        lead
    } else {
        format!(
            "{lead} Some answers still go against the moderator's rulings, so read this with the list below in mind."
        )
    })
}

fn lead_of_outcome(council: &Council) -> Option<String> {
    match council.outcome()? {
        Outcome::Failed { reason } if council.proposes() => Some(format!(
            "**No result.** The council stopped before it finished and has nothing to hand off: {}. What was collected is in {TRANSCRIPT} and {RECORD}.",
            reason.trim_end_matches('.')
        )),
        Outcome::Failed { reason } => Some(format!(
            "**No result.** The council stopped before it finished: {}. What was collected is in {TRANSCRIPT} and {RECORD}.",
            reason.trim_end_matches('.')
        )),
        Outcome::Completed { .. } => Some(handoff_lead(council)),
        Outcome::Decided { verdict, .. } => {
            let assessment = council.assessment()?;
            Some(verdict_lead(*verdict, assessment))
        }
    }
}

fn sentence(text: &str) -> String {
    let text = one_line(text);
    let text = text.trim_end_matches(['.', ' ']);
    format!("{text}.")
}

/// The findings that ended in `state` with a severity that `counts`, in
/// the assessment's order.
fn findings_in(
    assessment: &Assessment,
    state: FindingState,
    counts: impl Fn(Severity) -> bool,
) -> Vec<&Finding> {
    let outcomes = assessment.outcomes_by_id();
    assessment
        .findings
        .iter()
        .filter(|f| {
            counts(f.severity)
                && outcomes
                    .get(f.id.as_str())
                    .is_some_and(|o| o.state == state)
        })
        .collect()
}

fn confirmed(assessment: &Assessment, severity: Severity) -> Vec<&Finding> {
    findings_in(assessment, FindingState::Confirmed, |s| s == severity)
}

fn verdict_lead(verdict: crate::protocol::Verdict, assessment: &Assessment) -> String {
    let grave: Vec<&Finding> = confirmed(assessment, Severity::Critical)
        .into_iter()
        .chain(confirmed(assessment, Severity::High))
        .collect();
    let disputed = findings_in(assessment, FindingState::Disputed, Severity::is_grave);
    let mut lead = match verdict {
        crate::protocol::Verdict::Fail => "**FAIL.** Do not ship this as it stands.".to_string(),
        crate::protocol::Verdict::Concerns => {
            "**CONCERNS.** This can go ahead only once the problems below are dealt with or knowingly accepted.".to_string()
        }
        _ => "**PASS.** Nothing serious survived scrutiny.".to_string(),
    };
    if let Some(first) = grave.first() {
        lead.push_str(&format!(
            " The most serious problem, checked and agreed: {} {}",
            sentence(&first.text.title),
            if first.text.recommendation.is_empty() {
                String::new()
            } else {
                format!("Next step: {}", sentence(&first.text.recommendation))
            }
        ));
        if grave.len() > 1 {
            lead.push_str(&format!(
                " {} more serious problem{} stand{} (listed below).",
                grave.len() - 1,
                if grave.len() == 2 { "" } else { "s" },
                if grave.len() == 2 { "s" } else { "" }
            ));
        }
    } else {
        let medium = confirmed(assessment, Severity::Medium);
        if let Some(first) = medium.first() {
            lead.push_str(&format!(
                " The main problem to fix: {}",
                sentence(&first.text.title)
            ));
        }
    }
    if !disputed.is_empty() {
        let titles: Vec<String> = disputed
            .iter()
            .map(|f| one_line(&f.text.title).trim_end_matches('.').to_string())
            .collect();
        lead.push_str(&format!(
            " Still contested, and worth settling before you rely on it: {}.",
            titles.join("; ")
        ));
    }
    // A21 (revised): a grave finding nobody refuted is not cleared just
    // because too few backed it.
    let unsettled: Vec<String> =
        findings_in(assessment, FindingState::Unconfirmed, Severity::is_grave)
            .into_iter()
            .map(|f| {
                format!(
                    "{} ({})",
                    one_line(&f.text.title).trim_end_matches('.'),
                    f.severity.as_str().to_ascii_lowercase()
                )
            })
            .collect();
    if !unsettled.is_empty() {
        lead.push_str(&format!(
            " Raised, never refuted, and not confirmed either, so check it before you rely on the code: {}.",
            unsettled.join("; ")
        ));
    }
    lead.trim_end().to_string()
}

fn handoff_lead(council: &Council) -> String {
    match council.handoff() {
        Some(handoff) => {
            let mut lead = format!("**Direction:** {}", sentence(&handoff.accepted_direction));
            lead.push_str(&format!(" **Next step:** {}", sentence(&handoff.next_step)));
            lead
        }
        None => {
            let accepted: Vec<String> = council
                .proposals()
                .iter()
                .filter(|p| p.status == ProposalStatus::Accepted)
                .map(|p| one_line(&p.text.title))
                .collect();
            if accepted.is_empty() {
                "**No direction was accepted.** Nothing the council proposed won enough support; the open questions below are where to start.".into()
            } else {
                format!(
                    "**Direction:** {}. The handoff could not be written, so this lists what was accepted.",
                    accepted.join("; ")
                )
            }
        }
    }
}

fn summary_md(council: &Council) -> Option<String> {
    let lead = summary_lead(council)?;
    let config = council.config();
    let mut out = format!("# {}\n\n{lead}\n\n", one_line(&config.topic));
    out.push_str(&against_rulings_md(council));
    if council.config().mode.proposes() {
        out.push_str(&brainstorm_body(council));
    } else if let Some(assessment) = council.assessment() {
        out.push_str(&findings_body(assessment));
    }
    out.push_str(&rulings_md(council));
    out.push_str(&process_md(council));
    Some(out)
}

/// What still went against the moderator's rulings after quorum asked
/// once more: stated plainly, near the top, never as done.
fn against_rulings_md(council: &Council) -> String {
    let against = council.against_rulings();
    if against.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "## Against the moderator's rulings\n\nThese answers still went against what the moderator decided after quorum asked once more. What follows counts them as they were written; weigh it knowing this.\n\n",
    );
    for line in against {
        out.push_str(&format!("- {}\n", one_line(line)));
    }
    out.push('\n');
    out
}

/// The challenges the moderator dropped or held back, written from the
/// rulings themselves: what was set aside (and why), and what was never
/// answered and so stays open.
fn rulings_md(council: &Council) -> String {
    let mut dropped = String::new();
    let mut held = String::new();
    for challenge in council.challenges() {
        let Some(ruling) = super::rulings::ruling_of(challenge) else {
            continue;
        };
        let about = council
            .finding(&challenge.finding_id)
            .map(|f| f.text.title.clone())
            .or_else(|| {
                council
                    .proposal(&challenge.finding_id)
                    .map(|p| p.text.title.clone())
            })
            .unwrap_or_default();
        let why = ruling
            .note
            .as_deref()
            .map(|note| format!(" The moderator's note: {}", sentence(note)))
            .unwrap_or_default();
        match ruling.ruled {
            crate::rulings::Ruled::Rejected => dropped.push_str(&format!(
                "- {} on {} ({}): {}'s challenge, dropped by the moderator, never put to {} and not counted.{why}\n",
                challenge.id,
                challenge.finding_id,
                one_line(&about),
                challenge.from,
                challenge.to
            )),
            crate::rulings::Ruled::Deferred => held.push_str(&format!(
                "- {} on {} ({}): {}{why}\n",
                challenge.id,
                challenge.finding_id,
                one_line(&about),
                sentence(&challenge.challenge)
            )),
            crate::rulings::Ruled::Accepted => {}
        }
    }
    let mut out = String::new();
    if !held.is_empty() {
        out.push_str("## Open questions the moderator held back\n\nThese challenges were never answered, so nothing above settles them.\n\n");
        out.push_str(&held);
        out.push('\n');
    }
    if !dropped.is_empty() {
        out.push_str("## Challenges the moderator set aside\n\n");
        out.push_str(&dropped);
        out.push('\n');
    }
    out
}

fn finding_md(finding: &Finding) -> String {
    let mut out = format!(
        "- **{}** ({}): {}",
        one_line(&finding.text.title),
        finding.severity.as_str().to_ascii_lowercase(),
        sentence(&finding.text.description)
    );
    if !finding.text.recommendation.is_empty() {
        out.push_str(&format!(
            " What to do: {}",
            sentence(&finding.text.recommendation)
        ));
    }
    out.push('\n');
    out
}

fn findings_body(assessment: &Assessment) -> String {
    let mut out = String::new();
    let outcomes = assessment.outcomes_by_id();
    let in_state = |state: FindingState| -> Vec<&Finding> {
        let mut list: Vec<&Finding> = assessment
            .findings
            .iter()
            .filter(|f| {
                outcomes
                    .get(f.id.as_str())
                    .is_some_and(|o| o.state == state)
            })
            .collect();
        list.sort_by_key(|f| f.severity);
        list
    };
    let sections = [
        (
            FindingState::Confirmed,
            "## What the council stands behind",
            "These problems were checked against the material and enough of the council agreed they are real at the severity shown (critical is worst, then high, medium, low, info).",
        ),
        (
            FindingState::Disputed,
            "## Contested",
            "Raised, then challenged or doubted, and not settled: treat them as open questions, not facts.",
        ),
        (
            FindingState::Unconfirmed,
            "## Raised but not confirmed",
            "Nobody argued against these, but too few backed them to count. A critical or high one among them keeps the council from PASS (nothing serious left standing) until someone settles it.",
        ),
    ];
    for (state, heading, intro) in sections {
        let list = in_state(state);
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("{heading}\n\n{intro}\n\n"));
        for finding in list {
            out.push_str(&finding_md(finding));
        }
        out.push('\n');
    }
    let withdrawn = in_state(FindingState::Withdrawn);
    let downgraded: Vec<&Finding> = assessment
        .findings
        .iter()
        .filter(|f| f.active() && f.severity_changes.iter().any(|c| c.to > c.from))
        .collect();
    if !withdrawn.is_empty() || !downgraded.is_empty() {
        out.push_str("## What did not survive\n\n");
        for finding in withdrawn {
            out.push_str(&format!(
                "- **{}**: withdrawn: the evidence did not hold up under challenge.\n",
                one_line(&finding.text.title)
            ));
        }
        for finding in downgraded {
            out.push_str(&format!(
                "- **{}**: less severe than first reported ({} → {}).\n",
                one_line(&finding.text.title),
                finding.reported_severity.as_str().to_ascii_lowercase(),
                finding.severity.as_str().to_ascii_lowercase()
            ));
        }
        out.push('\n');
    }
    out
}

fn brainstorm_body(council: &Council) -> String {
    let mut out = String::new();
    if let Some(handoff) = council.handoff()
        && !handoff.open_questions.is_empty()
    {
        out.push_str("## Open questions\n\n");
        for question in &handoff.open_questions {
            out.push_str(&format!("- {}\n", one_line(question)));
        }
        out.push('\n');
    }
    for (status, heading) in [
        (ProposalStatus::Accepted, "## Accepted"),
        (ProposalStatus::Parked, "## Parked for later"),
        (ProposalStatus::Rejected, "## Rejected"),
    ] {
        let list: Vec<_> = council
            .proposals()
            .iter()
            .filter(|p| p.status == status)
            .collect();
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("{heading}\n\n"));
        for proposal in list {
            out.push_str(&format!(
                "- **{}**: {}\n",
                one_line(&proposal.text.title),
                sentence(&proposal.text.summary)
            ));
        }
        out.push('\n');
    }
    out
}

/// The supporting section: how the result was reached, ids and rules
/// included (RF-06 allows process detail here, after the result).
fn process_md(council: &Council) -> String {
    let config = council.config();
    let mut out = String::from("## How this was decided\n\n");
    out.push_str(&format!(
        "Council `{}`: {} mode, {} intensity (phases {}), {} preset (devil's advocate weight {:.2}, consensus {:.2}, security {:.2}). Participants: {}.\n\n",
        config.review_id,
        config.mode.as_str(),
        config.intensity.as_str(),
        config
            .intensity
            .phases()
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        config.preset.as_str(),
        config.params().da_weight,
        config.params().consensus_threshold,
        config.params().security_threshold,
        council
            .participants()
            .iter()
            .map(|p| if council.out().contains(p) {
                format!("{p} (no Phase 1 answer)")
            } else {
                p.clone()
            })
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if let Some(why) = council.fallback() {
        out.push_str(&format!(
            "**Fallback** (`debate-protocol-fallback`): {why}. Independent answers only; no challenge rounds and no merges.\n\n"
        ));
    }
    out.push_str(&format!(
        "Budget: {} of {} calls{}.",
        council.budget_used(),
        config.budget(),
        match council.budget_exhausted() {
            Some(why) => format!(" — {why}"),
            None => String::new(),
        }
    ));
    if let Some(stopped) = council.stopped() {
        out.push_str(&format!(" Challenge rounds: {stopped}."));
    }
    out.push_str("\n\n");
    if let Some(Outcome::Decided { rule, .. }) = council.outcome() {
        out.push_str(&format!("Verdict rule: {rule}.\n\n"));
    }
    if let Some(fairness) = config.seating.fairness.describe() {
        out.push_str(&format!("The final positions read {fairness}.\n\n"));
    }
    if let Some(agreement) = council.agreement() {
        out.push_str(&format!("Final positions: {}.", agreement.summary()));
        if agreement.fewer_than_two_votes() {
            out.push_str(
                " Still uncertain: the participants were effectively fewer than two independent votes, so the confirmations rest on less than the headcount suggests.",
            );
        }
        out.push_str("\n\n");
    }
    if let Some(assessment) = council.assessment() {
        out.push_str("| Finding | Severity | Origin | State | Why |\n|---|---|---|---|---|\n");
        let outcomes = assessment.outcomes_by_id();
        for finding in &assessment.findings {
            let outcome = outcomes.get(finding.id.as_str());
            out.push_str(&format!(
                "| {} | {} | {}{} | {} | {} |\n",
                finding.id,
                finding.severity,
                finding.origins.join(" + "),
                if finding.discovered {
                    " (discovered)"
                } else {
                    ""
                },
                outcome.map_or("", |o| o.state.as_str()),
                outcome
                    .map(|o| one_line(&o.rule).replace('|', "/"))
                    .unwrap_or_default()
            ));
        }
        out.push('\n');
        if !assessment.disputed_findings.is_empty() {
            out.push_str("Dissent at the end (`disputed_findings`):\n\n");
            for dissent in &assessment.disputed_findings {
                for dissenter in &dissent.dissenters {
                    out.push_str(&format!(
                        "- {} ({}): {} disputes it{}\n",
                        dissent.id,
                        dissent.state.as_str(),
                        dissenter.participant,
                        if dissenter.note.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", one_line(&dissenter.note))
                        }
                    ));
                }
            }
            out.push('\n');
        }
        for merge in &assessment.merges {
            out.push_str(&match (&merge.into, &merge.refused) {
                (Some(into), _) => format!(
                    "- Merged {} and {} into {into}.\n",
                    merge.findings[0], merge.findings[1]
                ),
                (None, Some(why)) => format!(
                    "- Did not merge {} and {}: {why}.\n",
                    merge.findings[0], merge.findings[1]
                ),
                _ => String::new(),
            });
        }
        if !assessment.merges.is_empty() {
            out.push('\n');
        }
    }
    for outcome in council.proposal_outcomes() {
        out.push_str(&format!("- {}: {}\n", outcome.id, outcome.rule));
    }
    if !council.proposal_outcomes().is_empty() {
        out.push('\n');
    }
    for challenge in council.challenges() {
        out.push_str(&challenge_line(challenge));
    }
    if !council.challenges().is_empty() {
        out.push('\n');
    }
    out.push_str(&format!(
        "The full record is in `{RECORD}`, every exchange in `{PACKETS}`, and every event and raw answer in `{TRANSCRIPT}`.\n"
    ));
    out
}

fn challenge_line(challenge: &Challenge) -> String {
    let mut line = format!(
        "- {} (round {}, {} → {}) on {}: {}",
        challenge.id,
        challenge.round,
        challenge.from,
        challenge.to,
        challenge.finding_id,
        challenge.state.as_str()
    );
    if let Some(why) = &challenge.undelivered {
        line.push_str(&format!(" ({why})"));
    }
    if challenge.state == ChallengeState::Dropped {
        let note = challenge
            .moderation
            .last()
            .and_then(|m| m.note.clone())
            .unwrap_or_default();
        if !note.is_empty() {
            line.push_str(&format!(" by the moderator: {}", one_line(&note)));
        }
    }
    line.push('\n');
    line
}

// ---- transcript.md -----------------------------------------------------------

fn transcript_md(council: &Council) -> String {
    let config = council.config();
    let about = format!(
        "Council `{}`, started {}: {} mode, {} intensity, {} preset; {} experts ({}), the devil's advocate and the integration checker. ",
        config.review_id,
        timestamp(config.seating.started_at),
        config.mode.as_str(),
        config.intensity.as_str(),
        config.preset.as_str(),
        config.domains.len(),
        config.domains.join(", ")
    );
    let mut out = transcript_opening(&config.topic, &about, council.log());
    out.push_str("\n## Agent outputs\n\n");
    for submission in council.submissions() {
        let label = match &submission.malformed {
            Some(reason) => format!(" — MALFORMED: {}", one_line(reason)),
            None => String::new(),
        };
        out.push_str(&raw_md(
            &format!(
                "`{}` ({}, round {}, `{}`){label}",
                submission.call_id, submission.stage, submission.round, submission.file
            ),
            &submission.raw,
        ));
    }
    out.push_str(&crate::protocol::record::calls_md(council.calls()));
    out
}

// ---- answer templates ----------------------------------------------------------

/// What a person answering in place of `role` fills in at `stage`.
pub fn answer_template(council: &Council, stage: &str, role: &str) -> String {
    let open = council.open_ids();
    let first = open.first().cloned().unwrap_or_else(|| "F001".into());
    let body = match stage {
        "independent" if council.config().mode.proposes() => json!({
            "participant": role, "phase": 1,
            "proposals": [{"title": "", "summary": "", "rationale": "", "proposal_type": "implementation", "maturity": "seed", "tradeoffs": [], "dependencies": [], "open_questions": [], "risks": []}],
        }),
        "independent" => json!({
            "participant": role, "phase": 1,
            "findings": [{"severity": "MEDIUM", "title": "", "description": "", "evidence": "", "recommendation": "", "domains": []}],
        }),
        "expand" => json!({"expansions": [{"proposal_id": first, "note": ""}], "proposals": []}),
        "challenge" => json!({
            "challenges": council.mandatory().iter().map(|id| json!({
                "type": "challenge", "from": DEVIL, "to": "", "finding_id": id,
                "basis": "missing-assumption", "challenge": "", "severity_challenge": "",
            })).collect::<Vec<_>>(),
            "discoveries": [],
        }),
        "responses" => json!({
            "responses": council.challenges().iter()
                .filter(|c| c.to == role && c.state == ChallengeState::Delivered)
                .map(|c| json!({"type": "defense", "finding_id": c.finding_id, "response": "", "evidence": ""}))
                .collect::<Vec<_>>(),
        }),
        "final" => json!({
            "participant": role,
            "positions": open.iter().map(|id| json!({"id": id, "stance": "endorse", "note": ""})).collect::<Vec<_>>(),
            "merges": [],
            "summary": "",
        }),
        _ => json!({"accepted_direction": "", "open_questions": [], "next_step": ""}),
    };
    format!(
        "```json\n{}\n```\n",
        serde_json::to_string_pretty(&body).unwrap_or_default()
    )
}
