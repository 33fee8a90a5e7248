//! The files of a root-cause analysis (RULES.md A30): a raw file per call
//! and round under `rounds/` (written before it is read), `rca.yaml` for
//! machines and for `quorum verdict` (hypotheses, challenges, rulings,
//! statuses, the root cause, open questions), `transcript.md` (every event
//! and every raw answer) and the reader's `summary.md`, which leads with the
//! proven root cause or says plainly that none is proven and what evidence
//! would settle it (RC-14, RF-04).

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::model::{Challenge, ChallengeState, Restatement, Status};
use super::status::{Conclusion, Derived};
use super::{MAX_ROUNDS, Rca};
use crate::protocol::documents::Documents;
use crate::protocol::kind::{RecomputeError, Recomputed};
use crate::protocol::record::{Participant, UsageYaml, transcript_opening};
use crate::protocol::{Edition, ItemDecision, Outcome, Protocol};
use crate::words::{answer_md, one_line, table_cell, timestamp, with_full_stop};

/// The reader's document.
pub const SUMMARY: &str = "summary.md";
/// The structured record.
pub const RCA_YAML: &str = "rca.yaml";
/// Every event and every raw answer.
pub const TRANSCRIPT: &str = "transcript.md";

/// What a person playing a debugger fills in for its findings.
pub const FINDINGS_TEMPLATE: &str = "```yaml\nhypotheses:\n  - claim: \"\"\n    evidence:\n      - \"\"\n    reasoning: \"\"\n```\n";

/// Where a call's answer is written before it is read:
/// `rounds/round-2/debugger-alpha-answers.md`, `rounds/round-1/critic-challenge.md`.
pub fn round_file(round: u32, slot: &str, stage: &str) -> String {
    format!("rounds/round-{round}/{}-{stage}.md", slot.replace('.', "-"))
}

/// Every file of the tree that has content yet, but the answers: the
/// engine writes each to its round file as it comes, once.
pub fn documents(rca: &Rca, out: &mut Documents<'_>) {
    out.add(RCA_YAML, || {
        yaml_serde::to_string(&RcaYaml::of(rca)).unwrap_or_default()
    });
    out.add(TRANSCRIPT, || transcript_md(rca));
    out.add_some(SUMMARY, || summary_md(rca));
}

// ---- summary.md --------------------------------------------------------------

/// The opening of `summary.md`, word for word: what the end of a run
/// prints. `None` while the analysis runs.
pub fn summary_lead(rca: &Rca) -> Option<String> {
    match rca.outcome()? {
        Outcome::Failed { reason } => Some(format!(
            "**No result.** The analysis stopped before it finished: {}. What was collected is in \
             {TRANSCRIPT} and {RCA_YAML}; fix the cause and run it again.",
            reason.trim_end_matches('.')
        )),
        _ => {
            let conclusion = rca.conclusion()?;
            Some(match &conclusion.root_cause {
                Some(id) => proven_lead(rca, id),
                None => unproven_lead(rca),
            })
        }
    }
}

fn proven_lead(rca: &Rca, id: &str) -> String {
    let Some(hypothesis) = rca.hypothesis(id) else {
        return format!("**Root cause: {id}.**");
    };
    let resolved: Vec<&Challenge> = rca
        .challenges_of(id)
        .filter(|c| c.state == ChallengeState::Resolved)
        .collect();
    // Evidence in an answer is optional: say "with evidence" only of
    // answers that gave some (issue 60).
    let bare = resolved
        .iter()
        .filter(|c| {
            c.answers
                .last()
                .is_none_or(|a| a.text.evidence.iter().all(|e| e.trim().is_empty()))
        })
        .count();
    let how = match (resolved.len(), bare) {
        (_, 0) => "every one answered with evidence and resolved".to_string(),
        (1, _) => "resolved on an answer that cited no evidence".to_string(),
        (n, b) if b == n => "every one resolved, on answers that cited no evidence".to_string(),
        (_, b) => format!("every one resolved, {b} of them on an answer that cited no evidence"),
    };
    let rest = others_lead(rca, id);
    let restated = match rca.restatement().filter(|r| {
        r.hypothesis == id && super::status::restatement_gap(r, rca.rules().strict()).is_none()
    }) {
        Some(r) if rca.rules().strict() => format!(
            " Its owner first claimed it with {} and restated it without hedge words when asked; the critic found the restatement carried by the evidence.",
            super::status::quoted_words(&r.hedges)
        ),
        Some(r) => format!(
            " Its owner first claimed it with {} and restated it without hedge words when asked.",
            super::status::quoted_words(&r.hedges)
        ),
        None => String::new(),
    };
    format!(
        "**Root cause: {}** It is the only hypothesis that survived cross-examination: {} {} \
         put to it, {how}.{restated}{rest}",
        sentence(rca.claim_of(id).unwrap_or(&hypothesis.finding.claim)),
        resolved.len(),
        if resolved.len() == 1 {
            "challenge"
        } else {
            "challenges"
        }
    )
}

/// What became of the proven cause's rivals, in a sentence: eliminated,
/// or, under the revised rules, ruled out by the moderator with why.
fn others_lead(rca: &Rca, id: &str) -> String {
    let others = rca.hypotheses().len().saturating_sub(1);
    if !rca.rules().strict() {
        return match others {
            0 => String::new(),
            1 => " The other hypothesis did not survive.".to_string(),
            n => format!(" The other {n} hypotheses did not survive."),
        };
    }
    let ruled_out: Vec<String> = rca
        .statuses()
        .iter()
        .filter(|(other, _)| other != id)
        .filter_map(|(other, _)| {
            rca.ruled_out()
                .get(other)
                .map(|why| format!("{other} ({})", one_line(why).trim_end_matches('.')))
        })
        .collect();
    let eliminated = others - ruled_out.len();
    let eliminated = match (others, eliminated) {
        (0, _) | (_, 0) => String::new(),
        (1, 1) => " The other hypothesis was eliminated.".to_string(),
        (n, e) if n == e => format!(" The other {n} hypotheses were eliminated."),
        (_, 1) => " One other hypothesis was eliminated.".to_string(),
        (_, e) => format!(" {e} others were eliminated."),
    };
    let ruled = if ruled_out.is_empty() {
        String::new()
    } else {
        format!(" The moderator ruled out {}.", ruled_out.join(" and "))
    };
    format!("{eliminated}{ruled}")
}

/// What WEAKENED means, where a reader first meets the word (RF-05).
const WEAKENED_MEANS: &str =
    "a challenge stayed open, none reached it, or what it cites did not verify";

fn unproven_lead(rca: &Rca) -> String {
    let survivors: Vec<&str> = rca
        .statuses()
        .iter()
        .filter(|(_, derived)| derived.status == Status::Survived)
        .map(|(id, _)| id.as_str())
        .collect();
    let strict = rca.rules().strict();
    let hedged = rca.restatement().and_then(|r| {
        let gap = super::status::restatement_gap(r, strict)?;
        (survivors.len() == 1 && survivors[0] == r.hypothesis).then_some((r, gap))
    });
    let rivals = match survivors.as_slice() {
        [one] => super::status::standing_rivals(rca.statuses(), one, &rca.rules()),
        _ => Vec::new(),
    };
    let why = if rca.hypotheses().is_empty() {
        "No debugger presented a hypothesis.".to_string()
    } else if let Some((r, what)) = hedged {
        format!(
            "{} alone survived cross-examination, but its claim says {} and {what}: a hedged \
             claim is not a proven root cause.",
            r.hypothesis,
            super::status::quoted_words(&r.hedges)
        )
    } else if !rivals.is_empty() {
        // RF-05: the status word is defined where the reader first meets
        // it, which here is before the table that defines every status.
        let rivals =
            rivals
                .join("; ")
                .replacen("WEAKENED", "WEAKENED (neither shown nor eliminated)", 1);
        format!(
            "{} alone survived cross-examination, but {rivals}: a rival that was neither \
             eliminated nor ruled out leaves the cause open.",
            survivors[0],
        )
    } else if survivors.len() > 1 {
        format!(
            "{} all survived cross-examination, and the evidence does not single one of them out.",
            survivors.join(" and ")
        )
    } else {
        "No hypothesis survived cross-examination.".to_string()
    };
    let needed = evidence_needed(rca);
    let settle = if needed.is_empty() {
        String::new()
    } else {
        format!(" What would settle it: {}.", needed.join("; "))
    };
    format!("**No root cause is proven.** {why}{settle}")
}

/// What the critic still asks for on hypotheses that are not eliminated:
/// the evidence each unresolved challenge names.
fn evidence_needed(rca: &Rca) -> Vec<String> {
    let eliminated: HashSet<&str> = rca
        .statuses()
        .iter()
        .filter(|(_, derived)| derived.status == Status::Eliminated)
        .map(|(hypothesis, _)| hypothesis.as_str())
        .collect();
    let eliminated = |id: &str| eliminated.contains(id);
    rca.challenges()
        .iter()
        .filter(|c| c.state.delivered() && c.state != ChallengeState::Resolved)
        .filter(|c| !eliminated(&c.hypothesis))
        .map(|c| {
            let wanted = c
                .rulings
                .last()
                .map(|r| r.text.evidence_needed.trim())
                .filter(|text| !text.is_empty())
                .unwrap_or(c.text.evidence_needed.trim());
            format!(
                "for {}, {}",
                c.hypothesis,
                lower_first(wanted.trim_end_matches('.'))
            )
        })
        .collect()
}

/// `text` on one line, as a sentence ending in a full stop.
fn sentence(text: &str) -> String {
    with_full_stop(&one_line(text))
}

/// `text` with its first word lowercased when it is an ordinary
/// capitalised word (`A`, `Connection`); acronyms and ids (`P99`, `PR`)
/// stay as written.
fn lower_first(text: &str) -> String {
    let first_word = text.split_whitespace().next().unwrap_or_default();
    let mut chars = first_word.chars();
    let ordinary = chars.next().is_some_and(char::is_uppercase) && chars.all(char::is_lowercase);
    if !ordinary {
        return text.to_string();
    }
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

fn summary_md(rca: &Rca) -> Option<String> {
    let lead = summary_lead(rca)?;
    let mut out = format!(
        "# Root-cause analysis — {}\n\n{lead}\n\n",
        one_line(&rca.config().topic)
    );
    if let Some(id) = rca.conclusion().and_then(|c| c.root_cause.clone())
        && let Some(hypothesis) = rca.hypothesis(&id)
    {
        out.push_str(&format!(
            "## The evidence\n\n{}\n\n",
            hypothesis
                .finding
                .evidence
                .iter()
                .map(|item| format!("- {}", one_line(item)))
                .collect::<Vec<_>>()
                .join("\n")
        ));
        if !hypothesis.finding.reasoning.trim().is_empty() {
            out.push_str(&format!("{}\n\n", hypothesis.finding.reasoning.trim()));
        }
    }
    if !rca.hypotheses().is_empty() {
        // RF-05: the status words are defined where they first appear.
        out.push_str(&format!(
            "## Every hypothesis\n\nEach ended SURVIVED (every challenge that reached it was \
                 resolved, and what it cites verified), WEAKENED ({WEAKENED_MEANS}) or ELIMINATED \
                 (its owner's own evidence contradicted it, or a critical challenge was conceded \
                 or never answered).\n\n| | status | claim | from |\n|---|---|---|---|\n"
        ));
        for hypothesis in rca.hypotheses() {
            let status = rca
                .status_of(&hypothesis.id)
                .map_or("active", |derived| derived.status.as_str());
            out.push_str(&format!(
                "| {} | {status} | {} | {} |\n",
                hypothesis.id,
                table_cell(&hypothesis.finding.claim),
                hypothesis.owner
            ));
        }
        out.push('\n');
        for hypothesis in rca.hypotheses() {
            out.push_str(&hypothesis_md(rca, &hypothesis.id));
        }
    }
    let open = open_questions(rca);
    if !open.is_empty() {
        out.push_str("## Open questions\n\n");
        for question in open {
            out.push_str(&format!("- {question}\n"));
        }
        out.push('\n');
    }
    if let Some(assessment) = rca.assessment() {
        out.push_str(&format!(
            "## The critic's recommendation\n\n{}\n\n",
            assessment.recommendation.trim()
        ));
    } else if let Some(refused) = rca.assessment_refused() {
        out.push_str(&format!(
            "## The critic's recommendation\n\nNone: {refused}.\n\n"
        ));
    }
    out.push_str("## How this was made\n\n");
    out.push_str(&provenance_md(rca));
    Some(out)
}

/// One hypothesis: its status with the rule, its claim and evidence, and
/// every challenge with what became of it (RC-14).
fn hypothesis_md(rca: &Rca, id: &str) -> String {
    let Some(hypothesis) = rca.hypothesis(id) else {
        return String::new();
    };
    let derived = rca.status_of(id);
    let mut out = format!(
        "### {id} — {}\n\n{}\n\n",
        derived.as_ref().map_or("active", |d| d.status.as_str()),
        sentence(&hypothesis.finding.claim)
    );
    if let Some(derived) = &derived {
        out.push_str(&format!("Rule: {}.\n\n", derived.rule));
    }
    out.push_str(&format!(
        "From {} ({}).",
        hypothesis.owner, hypothesis.source
    ));
    if !hypothesis.hedges.is_empty() {
        out.push_str(&format!(
            " Hedge words flagged in it: {}.",
            hypothesis.hedges.join(", ")
        ));
    }
    if let Some(r) = rca.restatement().filter(|r| r.hypothesis == id) {
        match (&r.claim, &r.failed) {
            (Some(claim), _) if r.still_hedged.is_empty() => out.push_str(&format!(
                " Asked to restate it without hedge words, its owner wrote: {}",
                sentence(claim)
            )),
            (Some(claim), _) => out.push_str(&format!(
                " Asked to restate it without hedge words, its owner still wrote {}: {}",
                super::status::quoted_words(&r.still_hedged),
                sentence(claim)
            )),
            (None, Some(reason)) => out.push_str(&format!(
                " Asked to restate it without hedge words, its owner gave no restatement ({}).",
                reason.trim_end_matches('.')
            )),
            (None, None) => {}
        }
        if let Some(exam) = &r.examination {
            let gap = super::status::restatement_gap(r, rca.rules().strict());
            out.push_str(&match (exam.ruling, gap) {
                (Some(word), None) => format!(
                    " The critic ruled the restatement {} ({}){}, and it is the claim proven.",
                    word.as_str(),
                    one_line(&exam.reason).trim_end_matches('.'),
                    if exam
                        .moderation
                        .as_ref()
                        .is_some_and(|m| m.decision == ItemDecision::Reject)
                    {
                        "; the moderator overturned that ruling"
                    } else {
                        ""
                    }
                ),
                (_, Some(gap)) => format!(" Not taken: {gap}."),
                (None, None) => String::new(),
            });
        }
    }
    if let Some(why) = rca.ruled_out().get(id) {
        out.push_str(&format!(
            " Ruled out by the moderator as a rival of the root cause: {}",
            sentence(why)
        ));
    }
    out.push_str("\n\n");
    for challenge in rca.challenges_of(id) {
        out.push_str(&challenge_md(challenge));
    }
    out.push('\n');
    out
}

fn challenge_md(challenge: &Challenge) -> String {
    let critical = if challenge.text.critical {
        ", critical"
    } else {
        ""
    };
    let fate = match challenge.state {
        ChallengeState::Resolved => {
            let round = challenge.rulings.last().map_or(0, |r| r.round);
            format!("resolved in round {round}")
        }
        ChallengeState::Contradicted => "the answer contradicted the hypothesis".to_string(),
        ChallengeState::Conceded => "conceded by its owner".to_string(),
        ChallengeState::Withdrawn => "dropped by the moderator, never delivered".to_string(),
        ChallengeState::Held | ChallengeState::Proposed => {
            "held back by the moderator, never delivered".to_string()
        }
        ChallengeState::Answered => "answered, never ruled".to_string(),
        ChallengeState::Open if challenge.answers.is_empty() => "never answered".to_string(),
        ChallengeState::Open => "not resolved".to_string(),
    };
    let mut out = format!(
        "- **{}** ({}{critical}): {} — *{fate}*\n",
        challenge.id,
        challenge.text.test.as_str().replace('_', " "),
        one_line(&challenge.text.why)
    );
    if let Some(answer) = challenge.answers.last()
        && !answer.text.answer.trim().is_empty()
    {
        out.push_str(&format!(
            "  - answer (round {}): {}\n",
            answer.round,
            one_line(&answer.text.answer)
        ));
    }
    if let Some(ruling) = challenge.rulings.last() {
        let moderator = match ruling.moderation.as_ref().map(|m| m.decision) {
            Some(ItemDecision::Reject) => " — overturned by the moderator",
            Some(ItemDecision::Defer) => " — sent back by the moderator",
            _ => "",
        };
        out.push_str(&format!(
            "  - ruling (round {}): {} — {}{moderator}\n",
            ruling.round,
            ruling.text.ruling.as_str(),
            one_line(&ruling.text.reason)
        ));
    }
    out
}

/// What the analysis leaves open: the critic's own list, challenges held
/// back, and what unresolved challenges still ask for.
fn open_questions(rca: &Rca) -> Vec<String> {
    let mut questions: Vec<String> = rca
        .assessment()
        .map(|a| a.open_questions.iter().map(|q| one_line(q)).collect())
        .unwrap_or_default();
    for challenge in rca.challenges() {
        if matches!(
            challenge.state,
            ChallengeState::Held | ChallengeState::Proposed
        ) {
            questions.push(format!(
                "{} on {} was held back and never put to its owner: {}",
                challenge.id,
                challenge.hypothesis,
                one_line(&challenge.text.evidence_needed)
            ));
        }
    }
    let mut asked: HashSet<String> = questions.iter().cloned().collect();
    for line in evidence_needed(rca) {
        if asked.insert(line.clone()) {
            questions.push(line);
        }
    }
    questions
}

fn provenance_md(rca: &Rca) -> String {
    let config = rca.config();
    let stopped = rca.stopped().unwrap_or("it did not finish");
    let moderated = rca.items().iter().filter(|r| r.settled).count();
    let overturned = rca
        .items()
        .iter()
        .filter(|r| r.settled && r.decision == Some(ItemDecision::Reject))
        .count();
    let mut out = format!(
        "{} debuggers ({}) presented hypotheses with their evidence; a critic who saw only \
         their findings and answers challenged each one, and ruled each answer. The analysis \
         ran {} of at most {MAX_ROUNDS} rounds and stopped because {stopped}. The moderator \
         decided {moderated} challenges and rulings ({overturned} dropped or overturned). Each \
         status was derived by quorum from what happened to its challenges, not taken from the \
         critic.\n\n",
        config.debuggers.len(),
        config.debuggers.join(", "),
        rca.round()
    );
    out.push_str(&format!(
        "Every raw answer is under `rounds/`; every event and what the calls cost are in \
         `{TRANSCRIPT}`; the structured record is `{RCA_YAML}` (`quorum verdict` recomputes the \
         statuses from it).\n"
    ));
    out
}

// ---- transcript.md -----------------------------------------------------------

fn transcript_md(rca: &Rca) -> String {
    let config = rca.config();
    let about = format!(
        "Root-cause analysis, started {}: debuggers {}, a critic, up to {MAX_ROUNDS} rounds. ",
        timestamp(config.seating.started_at),
        config.debuggers.join(", ")
    );
    let mut out = transcript_opening(&config.topic, &about, rca.log());
    out.push_str("\n## Agent outputs\n\n");
    for submission in rca.submissions() {
        out.push_str(&answer_md(
            &submission.call_id,
            &format!("{}, `{}`", submission.stage, submission.file),
            &submission.raw,
        ));
    }
    out.push_str(&crate::protocol::record::unusable_md(rca.unusable()));
    out.push_str(&crate::protocol::record::calls_md(rca.calls()));
    out
}

// ---- rca.yaml ------------------------------------------------------------------

/// The structured record of an analysis; `quorum verdict` reads the
/// hypotheses and challenges back and derives the statuses again.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct RcaYaml {
    pub meta: Meta,
    #[serde(default)]
    pub participants: Vec<Participant>,
    pub hypotheses: Vec<HypothesisYaml>,
    #[serde(default)]
    pub challenges: Vec<Challenge>,
    pub root_cause: Option<RootCause>,
    /// The one survivor's hedged claim restated, or why not (RC-16).
    pub restatement: Option<Restatement>,
    /// Rivals of the one survivor the moderator ruled out, with why
    /// (issue 60).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ruled_out: BTreeMap<String, String>,
    /// Hypotheses citing something that did not verify, each with the
    /// first such citation in words (issue 52); the checks themselves are
    /// in `evidence.yaml`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unverified: BTreeMap<String, String>,
    /// The rules the analysis ran under; absent before issue 60.
    #[serde(default, skip_serializing_if = "Edition::is_first")]
    pub edition: Edition,
    pub conclusion: Option<Conclusion>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_questions: Vec<String>,
    pub recommendation: Option<String>,
    pub recommendation_refused: Option<String>,
    pub outcome: Option<Outcome>,
    /// What could not be read of the answers, and what that changed
    /// (issue 59); absent when everything was read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<crate::protocol::Unread>,
    pub usage: Option<UsageYaml>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct Meta {
    pub protocol: String,
    pub topic: String,
    pub timestamp: String,
    pub debuggers: Vec<String>,
    pub rounds_run: u32,
    pub max_rounds: u32,
    pub stopped: Option<String>,
    pub quorum_version: String,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct HypothesisYaml {
    pub id: String,
    pub owner: String,
    pub source: String,
    pub claim: String,
    #[serde(default)]
    pub evidence: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hedges: Vec<String>,
    /// The final status; absent while the hypothesis is active.
    pub status: Option<Status>,
    pub rule: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct RootCause {
    pub hypothesis: String,
    pub claim: String,
    pub owner: String,
}

impl RcaYaml {
    fn of(rca: &Rca) -> RcaYaml {
        let config = rca.config();
        let participants = rca
            .roster()
            .seats()
            .iter()
            .map(|seat| Participant::of(rca.calls(), seat.slot.clone()))
            .collect();
        let hypotheses = rca
            .hypotheses()
            .iter()
            .map(|h| {
                let derived: Option<Derived> = rca.status_of(&h.id);
                HypothesisYaml {
                    id: h.id.clone(),
                    owner: h.owner.clone(),
                    source: h.source.clone(),
                    claim: h.finding.claim.clone(),
                    evidence: h.finding.evidence.clone(),
                    reasoning: h.finding.reasoning.clone(),
                    hedges: h.hedges.iter().map(|w| w.to_string()).collect(),
                    status: derived.as_ref().map(|d| d.status),
                    rule: derived.map(|d| d.rule),
                }
            })
            .collect();
        let root_cause = rca
            .conclusion()
            .and_then(|c| c.root_cause.as_deref())
            .and_then(|id| rca.hypothesis(id))
            .map(|h| RootCause {
                hypothesis: h.id.clone(),
                claim: rca.claim_of(&h.id).unwrap_or(&h.finding.claim).to_string(),
                owner: h.owner.clone(),
            });
        RcaYaml {
            meta: Meta {
                protocol: super::NAME.into(),
                topic: config.topic.clone(),
                timestamp: timestamp(config.seating.started_at),
                debuggers: config.debuggers.clone(),
                rounds_run: rca.round(),
                max_rounds: MAX_ROUNDS,
                stopped: rca.stopped().map(str::to_string),
                quorum_version: env!("CARGO_PKG_VERSION").into(),
            },
            participants,
            hypotheses,
            challenges: rca.challenges().to_vec(),
            root_cause,
            restatement: rca.restatement().cloned(),
            ruled_out: rca.ruled_out().clone(),
            unverified: rca.unverified().clone(),
            edition: config.seating.edition,
            conclusion: rca.conclusion().cloned(),
            open_questions: if rca.outcome().is_some() {
                open_questions(rca)
            } else {
                Vec::new()
            },
            recommendation: rca.assessment().map(|a| a.recommendation.clone()),
            recommendation_refused: rca.assessment_refused().map(str::to_string),
            outcome: rca.outcome().cloned(),
            unread: rca.core.unread.clone(),
            usage: UsageYaml::of(rca.calls().usage()),
        }
    }
}

/// The verdict of the analysis in `dir`, derived again from the
/// challenges `rca.yaml` records (A28): editing a challenge's outcome there
/// changes it.
pub fn recompute(
    files: &dyn crate::input::RecordFiles,
    rechecked: Option<&crate::protocol::evidence::recheck::Rechecked>,
) -> Result<Recomputed, RecomputeError> {
    let shown = files.shown(RCA_YAML);
    let record: RcaYaml =
        crate::protocol::kind::read_record(files, RCA_YAML, "a quorum root-cause analysis folder")?;
    match &record.outcome {
        Some(Outcome::Failed { reason }) => {
            return Err(RecomputeError::NoVerdict {
                path: shown,
                reason: format!("this analysis failed before it reached a verdict: {reason}"),
            });
        }
        None => {
            return Err(RecomputeError::NoVerdict {
                path: shown,
                reason: "this analysis has not finished, so there is no verdict to recompute yet"
                    .into(),
            });
        }
        Some(_) => {}
    }
    let ids: Vec<String> = record.hypotheses.iter().map(|h| h.id.clone()).collect();
    // EV-07 from the citations checked again, when `verdict` could.
    let mut readings = Vec::new();
    let unverified = crate::protocol::evidence::recheck::unverified_now(
        rechecked,
        RCA_YAML,
        &record.unverified,
        ids.iter().cloned(),
        crate::evidence::Claim::first_failure,
        &mut readings,
    );
    let rules = super::status::Rules {
        edition: record.edition,
        ruled_out: &record.ruled_out,
        unverified: &unverified,
    };
    let (statuses, conclusion) = super::assess(&ids, &record.challenges, &rules);
    // RC-16: a survivor that claims with hedge words is proven only as
    // restated without them.
    let claim_hedges: Vec<String> = conclusion
        .root_cause
        .as_deref()
        .and_then(|id| record.hypotheses.iter().find(|h| h.id == id))
        .map(|h| {
            super::hedge::hedges(&h.claim)
                .into_iter()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let conclusion = super::status::bound_by_hedges(
        conclusion,
        &claim_hedges,
        record.restatement.as_ref(),
        &rules,
    );
    let mut rule = conclusion.rule.clone();
    for (_, derived) in &statuses {
        rule.push_str(&format!("\n{}", derived.rule));
    }
    Ok(Recomputed {
        verdict: Some(conclusion.verdict),
        rule,
        detail: serde_json::json!({
            "verdict": conclusion.verdict,
            "rule": conclusion.rule,
            "root_cause": conclusion.root_cause,
            "hypotheses": statuses.iter().map(|(id, d)| serde_json::json!({
                "id": id, "status": d.status, "rule": d.rule,
            })).collect::<Vec<_>>(),
        }),
        readings,
    })
}
