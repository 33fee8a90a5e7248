//! The files of a council. In the run folder: every raw answer under
//! `phase-1/`, `expand/`, `phase-3/round-N/`, `phase-5/` and `handoff/`
//! (written before it is read; an unusable one starts with a MALFORMED
//! marker), `council.json` (the whole record, which `quorum verdict`
//! reads back with the final positions), `packets.jsonl` (every packet
//! and envelope, FP-49..FP-51), `transcript.md` and the reader's
//! `summary.md`. Outside it, once the council ends, the seed's
//! deliverable pair: `{outputs}/debate/{YYYYMMDD-HHMMSS}-debate-{review_id}.md`
//! with its front matter and the `.json` companion of the same stem
//! (FP-52..FP-55); no symlink, no "latest". The reader's `summary.md` is
//! written by [`summary`].

pub mod summary;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::model::{
    Challenge, ChallengeState, DEVIL, Finding, MergeCandidate, Positions, Preset, Response,
};
use super::stability::{self, FinalCall, VariantRun};
use super::verdict;
use super::{Council, Step};
use crate::protocol::Stage as _;
use crate::protocol::documents::Documents;
use crate::protocol::kind::{RecomputeError, Recomputed};
use crate::protocol::record::transcript_opening;
use crate::protocol::{AnswerFile, Outcome, Protocol, Publication};
use crate::words::{one_line, raw_md, timestamp};
use std::collections::BTreeMap;
use summary::summary_md;

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

/// The answers that could not be used, each in its file with the reason
/// (kept, excluded); every other answer's file is the answer as it came.
pub fn answer_files(council: &Council) -> Vec<AnswerFile> {
    let mut files: Vec<AnswerFile> = council
        .submissions()
        .iter()
        .filter_map(|submission| {
            let reason = submission.malformed.as_ref()?;
            Some(AnswerFile::unusable(
                submission.file.clone(),
                submission.raw.clone(),
                reason.clone(),
            ))
        })
        .collect();
    // A stability variant's answer that did not read (issue 55).
    let variants = council
        .stability_run()
        .into_iter()
        .flat_map(|run| &run.variants);
    for variant in variants {
        for (role, raw) in &variant.raw {
            let reason = variant
                .calls
                .get(role)
                .and_then(|call| call.missing.as_ref());
            if let (Some(reason), Some(file)) = (reason, variant.files.get(role)) {
                files.push(AnswerFile::unusable(
                    file.clone(),
                    raw.clone(),
                    reason.clone(),
                ));
            }
        }
    }
    files
}

/// Every file of the run folder that has content yet. The packet list
/// only grows, and is rendered again when it has; the others read the log
/// or the findings as they stand, and are rendered every time.
pub fn documents(council: &Council, out: &mut Documents<'_>) {
    out.add(RECORD, || {
        serde_json::to_string_pretty(&companion(council)).unwrap_or_default() + "\n"
    });
    let packets = council.exchange().records().len();
    out.add_from(PACKETS, packets, || Some(council.exchange().jsonl()));
    out.add(TRANSCRIPT, || transcript_md(council));
    out.add_some(SUMMARY, || summary_md(council));
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
    /// Findings none of whose citations verified (issue 52).
    #[serde(default)]
    unverified: std::collections::BTreeMap<String, String>,
    /// A verdict with participants missing names them (issue 55); a
    /// council from before keeps its old words.
    #[serde(default)]
    names_missing_participants: bool,
    /// Each participant's final-position call: how long it ran, and why
    /// it did not count, if it did not.
    #[serde(default)]
    final_calls: BTreeMap<String, FinalCall>,
    /// The stability receipt, when one was asked for.
    #[serde(default)]
    stability: Option<StabilityIn>,
}

/// The stability receipt as `council.json` keeps it.
#[derive(Clone, Debug, Deserialize)]
struct StabilityIn {
    #[serde(default)]
    require_stability: bool,
    #[serde(default)]
    variants: Vec<VariantRun>,
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
        .participant_seats()
        .map(|seat| {
            let slot = &seat.slot;
            ParticipantRecord {
                id: slot.clone(),
                title: seat.title.clone(),
                agent: council.calls().agent(slot).unwrap_or_default().to_string(),
                out: council.out().contains(slot),
                final_position: council
                    .submissions()
                    .iter()
                    .find(|s| s.role == *slot && s.stage == Step::Final.id())
                    .map(|s| s.file.clone()),
            }
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
    // Did the council pay (issue 55): beside the verdict, once there is one.
    if let (Some(payoff), Some(map)) = (council.payoff_section(), record.as_object_mut()) {
        map.insert("payoff".into(), json!(payoff));
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
    // Findings whose citations all failed, which `quorum verdict` needs
    // (issue 52).
    if let (false, Some(map)) = (council.unverified().is_empty(), record.as_object_mut()) {
        map.insert("unverified".into(), json!(council.unverified()));
    }
    // Who gave a final position, how long each took, and the stability
    // receipt (issue 55), which `quorum verdict` derives again.
    if let (true, Some(map)) = (config.stability.names_missing, record.as_object_mut()) {
        map.insert("names_missing_participants".into(), json!(true));
        map.insert("final_calls".into(), json!(council.final_calls()));
    }
    if let (Some(receipt), Some(map)) = (stability::record_of(council), record.as_object_mut()) {
        map.insert("stability".into(), receipt);
    }
    // What could not be read, and what that changed (issue 59).
    if let (false, Some(map)) = (council.core.unread.is_empty(), record.as_object_mut()) {
        map.insert("unread".into(), json!(council.core.unread));
    }
    record
}

/// The verdict derived again from `council.json` and the final-position
/// files on disk: editing a final position changes it.
pub fn recompute(
    files: &dyn crate::input::RecordFiles,
    rechecked: Option<&crate::protocol::evidence::recheck::Rechecked>,
) -> Result<Recomputed, RecomputeError> {
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
    let mut calls = record.final_calls.clone();
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
            mark(&mut calls, &participant.id, false);
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
                mark(&mut calls, &participant.id, true);
            }
            Err(error) => {
                readings.push(format!("{file}: does not read ({error}), left out"));
                mark(&mut calls, &participant.id, false);
            }
        }
    }
    let ids: Vec<String> = record.participants.iter().map(|p| p.id.clone()).collect();
    // EV-08 from the citations checked again, when `verdict` could.
    let unverified = crate::protocol::evidence::recheck::unverified_now(
        rechecked,
        RECORD,
        &record.unverified,
        record.inventory.iter().map(|f| f.id.clone()),
        crate::evidence::Claim::all_failed,
        &mut readings,
    );
    let assess = |positions: &Positions, calls: &BTreeMap<String, FinalCall>| {
        let missing = record
            .names_missing_participants
            .then(|| stability::missing_sentence(calls))
            .flatten();
        stability::decided(
            &verdict::Record {
                participants: &ids,
                findings: &record.inventory,
                challenges: &record.challenges,
                responses: &record.responses,
                merges: &record.merges.proposed,
                positions,
                preset: record.preset,
                params: record.preset.params(),
                fairness: &record.fairness,
                edition: record.edition,
                unverified: &unverified,
            },
            missing.as_deref(),
        )
    };
    let mut assessment = assess(&positions, &calls);
    // Every variant of the stability receipt from its files, by the same
    // code (issue 55).
    let mut receipt = None;
    if let Some(kept) = &record.stability {
        let mut made = crate::protocol::stability::Receipt {
            counts: crate::protocol::stability::Counted::Verdict,
            verdict: Some(assessment.verdict.to_string()),
            variants: Vec::new(),
        };
        for variant in &kept.variants {
            let mut positions = Positions::new();
            let mut asked = variant.calls.clone();
            for (participant, file) in &variant.files {
                let text = match files.read(file, "stability variant") {
                    Ok(text) => text,
                    Err(error) => {
                        readings.push(format!("{file}: {error}; left out of its variant"));
                        continue;
                    }
                };
                match stability::read_variant(&text, participant, &known) {
                    Ok(position) => {
                        positions.insert(participant.clone(), position);
                        mark(&mut asked, participant, true);
                    }
                    Err(why) => {
                        readings.push(format!("{file}: {why}, left out of its variant"));
                        mark(&mut asked, participant, false);
                    }
                }
            }
            let calls = stability::variant_calls(&calls, &asked);
            let derived = assess(&positions, &calls);
            made.variants
                .push(crate::protocol::stability::VariantVerdict {
                    variant: variant.variant.number,
                    verdict: Some(derived.verdict.to_string()),
                    rule: derived.rule,
                });
        }
        readings.push(format!("stability receipt: {}", made.summary()));
        assessment = stability::with_stability(assessment, &made, kept.require_stability);
        receipt = Some(made);
    }
    let mut rule = assessment.rule.clone();
    for outcome in &assessment.outcomes {
        rule.push_str(&format!(
            "\n{} {}: {}",
            outcome.id, outcome.severity, outcome.rule
        ));
    }
    let mut detail = json!({
        "verdict": assessment.verdict,
        "rule": assessment.rule,
        "findings": assessment.outcomes,
        "disputed_findings": assessment.disputed_findings,
        "merges": assessment.merges,
    });
    if let Some(receipt) = receipt {
        detail["stability"] = json!({
            "summary": receipt.summary(),
            "stable": receipt.stable(),
            "variants": receipt.variants,
        });
    }
    Ok(Recomputed {
        verdict: Some(assessment.verdict),
        rule,
        detail,
        readings,
    })
}

/// `participant`'s call in `calls` as its file reads now: counted, or
/// left out (with the reason recorded when it ran, else that its answer
/// does not read).
fn mark(calls: &mut BTreeMap<String, FinalCall>, participant: &str, counted: bool) {
    let Some(call) = calls.get_mut(participant) else {
        return;
    };
    call.counted = counted;
    if counted {
        call.missing = None;
    } else if call.missing.is_none() {
        call.missing = Some("its final position was unreadable".into());
    }
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
    // The stability receipt's answers (issue 55), each under its variant.
    for variant in council.stability_run().iter().flat_map(|run| &run.variants) {
        for (role, raw) in &variant.raw {
            let file = variant.files.get(role).map_or("", String::as_str);
            out.push_str(&raw_md(
                &format!(
                    "{role} (stability variant {}, `{file}`)",
                    variant.variant.number
                ),
                raw,
            ));
        }
    }
    out.push_str(&crate::protocol::record::calls_md(council.calls()));
    out
}

// ---- answer templates ----------------------------------------------------------

/// What a person answering in place of `role` fills in at `stage`.
pub fn answer_template(council: &Council, stage: &str, role: &str) -> String {
    // A stability variant asks for a final position again (issue 55).
    let stage = match crate::protocol::stability::variant_of_stage(stage) {
        Some(_) => "final",
        None => stage,
    };
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
