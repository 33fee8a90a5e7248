//! What a council's record adds up to, derived mechanically and the same
//! way live and from disk (`quorum verdict DIR`): which findings merge
//! (FP-34, FP-35, A22), which are confirmed, withdrawn, disputed, merged or
//! unconfirmed (FP-36, A21), who dissents (FP-38), and PASS / CONCERNS /
//! FAIL with the rule that decided it (FP-39..FP-41, A23). A brainstorm's
//! proposals end accepted, rejected or parked by the same weighted count.
//!
//! The confirmation rule, in full (A21): a finding's support is its
//! origins, every participant whose final position endorses it, and every
//! participant who corroborated it during the rounds and said nothing of it
//! at the end; the devil's advocate weighs `da_weight`, everyone else 1.
//! The share is support ÷ the weight of every participant with a usable
//! final position (origins always counted), and it confirms the finding at
//! `consensus_threshold`, or `security_threshold` for a finding tagged
//! `security` (A20). The same count is made for challenged and unchallenged
//! findings alike.
//!
//! Recusal (fair judging, issue 29): a participant whose model family is
//! that of one of a finding's origins is kin on that finding. Under
//! `recusal: flag` its stance counts and the finding's rule names it; under
//! `recuse` its stance, its corroboration and its weight are left out of
//! that finding's count, and a finding that every other counted participant
//! was recused from stays unconfirmed: its origins alone never confirm it.
//!
//! Not responsible for reading answers or files: it takes the record; nor
//! for the merges quorum proposes by word overlap ([`similarity`]) or how
//! a brainstorm's proposals converge ([`convergence`]).

pub mod convergence;
pub mod similarity;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::model::{
    Challenge, ChallengeState, DEVIL, Finding, FindingState, MergeCandidate, Params, Positions,
    Preset, Proposal, Response, ResponseKind, Severity, SeverityChange, Stance,
};
use crate::protocol::Edition;
use crate::protocol::Verdict;
use crate::protocol::fairness::{Fairness, Family};

/// Confirmed MEDIUM findings that make "multiple" (A23).
pub const MULTIPLE_MEDIUM: usize = 2;

/// Confirmed HIGH findings that FAIL a council (FP-39).
pub const FAILING_HIGHS: usize = 3;

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// Everything the assessment reads.
pub struct Record<'a> {
    /// Every participant slot, in roster order.
    pub participants: &'a [String],
    pub findings: &'a [Finding],
    pub challenges: &'a [Challenge],
    pub responses: &'a [Response],
    /// Merges proposed in Phase 4; empty when it did not run.
    pub merges: &'a [MergeCandidate],
    /// The usable final positions, by participant.
    pub positions: &'a Positions,
    pub preset: Preset,
    pub params: Params,
    /// Families and the recusal policy; a council from before fair judging
    /// compares no families.
    pub fairness: &'a Fairness,
    /// The rules the council runs under: from issue 60 on, a participant
    /// counted in a finding's support is counted in its denominator, and a
    /// CRITICAL or HIGH finding is confirmed only on evidence.
    pub edition: crate::protocol::Edition,
    /// Findings none of whose citations verified, each with the first
    /// that failed, in words (issue 52).
    pub unverified: &'a BTreeMap<String, String>,
}

impl Record<'_> {
    /// The family `participant` shares with one of `finding`'s origins,
    /// when the policy compares families and it is not an origin itself.
    pub fn kin_on(&self, participant: &str, finding: &Finding) -> Option<Family> {
        if finding.from_origin(participant) {
            return None;
        }
        finding
            .origins
            .iter()
            .find_map(|origin| self.fairness.kinship(participant, origin))
            .map(|kin| kin.family)
    }

    /// Whether `participant`'s word on `finding` is left out: it is kin to
    /// an origin and the policy recuses.
    pub fn recused_on(&self, participant: &str, finding: &Finding) -> bool {
        self.fairness.recusal == crate::protocol::fairness::Recusal::Recuse
            && self.kin_on(participant, finding).is_some()
    }
}

/// How one finding ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FindingOutcome {
    pub id: String,
    pub state: FindingState,
    pub severity: Severity,
    /// Weighted support ÷ weighted participants (0 for withdrawn and merged).
    pub share: f64,
    /// The share that confirms it.
    pub threshold: f64,
    /// The rule that decided the state, in plain words.
    pub rule: String,
}

/// A finding some participant disputed at the end (FP-38).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dissent {
    pub id: String,
    pub state: FindingState,
    pub severity: Severity,
    pub dissenters: Vec<Dissenter>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dissenter {
    pub participant: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// A merge that happened, or why a proposed one did not.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MergeResult {
    pub findings: [String; 2],
    /// The new finding, when both origins agreed.
    pub into: Option<String>,
    /// Why not, when they did not.
    pub refused: Option<String>,
}

/// What the record adds up to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assessment {
    /// The inventory after withdrawals at the end and merges.
    pub findings: Vec<Finding>,
    pub outcomes: Vec<FindingOutcome>,
    pub merges: Vec<MergeResult>,
    pub disputed_findings: Vec<Dissent>,
    pub verdict: Verdict,
    pub rule: String,
}

impl Assessment {
    pub fn outcome(&self, id: &str) -> Option<&FindingOutcome> {
        self.outcomes.iter().find(|outcome| outcome.id == id)
    }

    /// [`outcome`](Self::outcome) of every id at once, for whoever asks
    /// about every finding: one pass instead of one per finding.
    pub fn outcomes_by_id(&self) -> HashMap<&str, &FindingOutcome> {
        let mut by_id = HashMap::new();
        for outcome in &self.outcomes {
            by_id.entry(outcome.id.as_str()).or_insert(outcome);
        }
        by_id
    }
}

fn weight(participant: &str, params: &Params) -> f64 {
    if participant == DEVIL {
        params.da_weight
    } else {
        1.0
    }
}

/// What [`assess`] asks of the record for every finding, indexed once:
/// each question then costs the same however many findings, stances,
/// challenges and responses there are.
struct Lookup<'a> {
    /// Per participant, each id it took a stance on, with the place of its
    /// first stance on it in its list.
    stances: HashMap<&'a str, HashMap<&'a str, (usize, &'a super::model::Position)>>,
    /// `(participant, id)` of every withdrawal in a final position.
    withdrawals: HashSet<(&'a str, &'a str)>,
    /// Per participant, every pair of findings it agreed to merge.
    agreed: HashMap<&'a str, HashSet<(&'a str, &'a str)>>,
    /// Per participant, every pair whose vote could not be read.
    unreadable_votes: HashMap<&'a str, HashSet<(&'a str, &'a str)>>,
    /// `(participant, id)` of every corroboration in the rounds.
    corroborations: HashSet<(&'a str, &'a str)>,
    /// The ids a delivered challenge reached.
    challenged: HashSet<&'a str>,
}

/// A pair in one order whichever way it was written.
fn pair<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    if a <= b { (a, b) } else { (b, a) }
}

impl<'a> Lookup<'a> {
    fn new(record: &Record<'a>) -> Self {
        let mut lookup = Lookup {
            stances: HashMap::new(),
            withdrawals: HashSet::new(),
            agreed: HashMap::new(),
            unreadable_votes: HashMap::new(),
            corroborations: HashSet::new(),
            challenged: HashSet::new(),
        };
        for (participant, position) in record.positions {
            let stances = lookup.stances.entry(participant.as_str()).or_default();
            for (place, stance) in position.positions.iter().enumerate() {
                stances.entry(stance.id.as_str()).or_insert((place, stance));
                if stance.stance == Stance::Withdraw {
                    lookup
                        .withdrawals
                        .insert((participant.as_str(), stance.id.as_str()));
                }
            }
            let agreed = lookup.agreed.entry(participant.as_str()).or_default();
            for vote in position.merges.iter().filter(|vote| vote.agree) {
                agreed.insert(pair(&vote.findings[0], &vote.findings[1]));
            }
            let unreadable = lookup
                .unreadable_votes
                .entry(participant.as_str())
                .or_default();
            for [a, b] in &position.unreadable_votes {
                unreadable.insert(pair(a, b));
            }
        }
        for response in record.responses {
            if response.kind == ResponseKind::Corroboration {
                lookup
                    .corroborations
                    .insert((response.by.as_str(), response.finding_id.as_str()));
            }
        }
        for challenge in record.challenges {
            if challenge.state.delivered() {
                lookup.challenged.insert(challenge.finding_id.as_str());
            }
        }
        lookup
    }

    /// The stance `participant` takes on `finding` or, for a merged
    /// finding, on one of its parts: the first of them in its list.
    fn stance_on(
        &self,
        participant: &str,
        finding: &Finding,
    ) -> Option<&'a super::model::Position> {
        let stances = self.stances.get(participant)?;
        std::iter::once(&finding.id)
            .chain(&finding.merged_from)
            .filter_map(|id| stances.get(id.as_str()))
            .min_by_key(|(place, _)| *place)
            .map(|(_, stance)| *stance)
    }

    fn agreed_to_merge(&self, participant: &str, a: &str, b: &str) -> bool {
        self.agreed
            .get(participant)
            .is_some_and(|agreed| agreed.contains(&pair(a, b)))
    }

    /// `participant`'s vote on merging `a` and `b` could not be read.
    fn vote_unreadable(&self, participant: &str, a: &str, b: &str) -> bool {
        self.unreadable_votes
            .get(participant)
            .is_some_and(|pairs| pairs.contains(&pair(a, b)))
    }
}

/// Derives states, merges, dissent and the verdict from `record`.
pub fn assess(record: &Record<'_>) -> Assessment {
    let lookup = Lookup::new(record);
    let mut findings: Vec<Finding> = record.findings.to_vec();
    // An origin that withdraws in its final position withdraws the finding.
    for finding in findings.iter_mut().filter(|f| f.active()) {
        let withdrawn_by: Vec<&String> = finding
            .origins
            .iter()
            .filter(|origin| {
                lookup
                    .withdrawals
                    .contains(&(origin.as_str(), finding.id.as_str()))
            })
            .collect();
        if !withdrawn_by.is_empty() && withdrawn_by.len() == finding.origins.len() {
            finding.withdrawn = Some(format!(
                "withdrawn by {} in its final position",
                withdrawn_by
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    let merges = apply_merges(&mut findings, record, &lookup);
    let mut outcomes = Vec::new();
    let mut dissent = Vec::new();
    for finding in &findings {
        let outcome = outcome_of(finding, record, &lookup);
        if finding.active() {
            let dissenters: Vec<Dissenter> = record
                .participants
                .iter()
                .filter(|p| !finding.from_origin(p))
                .filter_map(|p| {
                    let stance = lookup.stance_on(p, finding)?;
                    (stance.stance == Stance::Dispute).then(|| Dissenter {
                        participant: p.clone(),
                        note: stance.note.clone(),
                    })
                })
                .collect();
            if !dissenters.is_empty() {
                dissent.push(Dissent {
                    id: finding.id.clone(),
                    state: outcome.state,
                    severity: finding.severity,
                    dissenters,
                });
            }
        }
        outcomes.push(outcome);
    }
    let (verdict, rule) = verdict_of(&outcomes, record.preset, &findings);
    Assessment {
        findings,
        outcomes,
        merges,
        disputed_findings: dissent,
        verdict,
        rule,
    }
}

/// Applies every proposed merge both origins agreed to (FP-35): the merged
/// finding takes the next id and the gravest severity, its parts become
/// `merged`.
fn apply_merges(
    findings: &mut Vec<Finding>,
    record: &Record<'_>,
    lookup: &Lookup<'_>,
) -> Vec<MergeResult> {
    let mut results = Vec::new();
    // Where the findings of each id stand, and the highest F number.
    let mut places: HashMap<String, Vec<usize>> = HashMap::new();
    for (place, finding) in findings.iter().enumerate() {
        places.entry(finding.id.clone()).or_default().push(place);
    }
    let mut highest = highest_number(findings, 'F');
    for candidate in record.merges {
        let [a, b] = &candidate.findings;
        let parts: Vec<Finding> = [a, b]
            .iter()
            .filter_map(|id| {
                let place = *places.get(id.as_str())?.first()?;
                Some(findings[place].clone())
            })
            .collect();
        let refused = |why: String| MergeResult {
            findings: candidate.findings.clone(),
            into: None,
            refused: Some(why),
        };
        if parts.len() != 2 {
            results.push(refused(
                "a finding of the pair is not in the inventory".into(),
            ));
            continue;
        }
        if let Some(gone) = parts.iter().find(|f| !f.active()) {
            results.push(refused(format!(
                "{} was {} first",
                gone.id,
                if gone.withdrawn.is_some() {
                    "withdrawn"
                } else {
                    "merged"
                }
            )));
            continue;
        }
        let mut origins: Vec<String> = Vec::new();
        for part in &parts {
            for origin in &part.origins {
                if !origins.contains(origin) {
                    origins.push(origin.clone());
                }
            }
        }
        // Why each origin's agreement is missing, said as it happened: a
        // position or a vote quorum could not read is not a refusal
        // (issue 59).
        let mut declined: Vec<&str> = Vec::new();
        let mut missing: Vec<String> = Vec::new();
        for origin in &origins {
            if lookup.agreed_to_merge(origin, a, b) {
                continue;
            }
            if !record.positions.contains_key(origin) {
                missing.push(format!("{origin} has no final position quorum could read"));
            } else if lookup.vote_unreadable(origin, a, b) {
                missing.push(format!("{origin}'s vote on it could not be read"));
            } else {
                declined.push(origin);
            }
        }
        if !declined.is_empty() || !missing.is_empty() {
            let mut why = missing;
            if !declined.is_empty() {
                why.insert(0, format!("{} did not agree", declined.join(" and ")));
            }
            results.push(refused(why.join("; ")));
            continue;
        }
        let id = id_after(highest, 'F');
        highest += 1;
        let gravest = parts
            .iter()
            .min_by_key(|part| part.severity)
            .expect("two parts");
        let mut domains: Vec<String> = Vec::new();
        for part in &parts {
            for domain in &part.text.domains {
                if !domains.contains(domain) {
                    domains.push(domain.clone());
                }
            }
        }
        let join = |field: fn(&Finding) -> &str| {
            parts
                .iter()
                .map(|part| field(part).trim())
                .filter(|text| !text.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n")
        };
        let mut merged = Finding {
            id: id.clone(),
            origins,
            severity: gravest.severity,
            reported_severity: gravest.severity,
            text: super::model::FindingText {
                title: gravest.text.title.clone(),
                description: join(|f| &f.text.description),
                evidence: join(|f| &f.text.evidence),
                recommendation: join(|f| &f.text.recommendation),
                domains,
            },
            discovered: parts.iter().any(|part| part.discovered),
            round: parts.iter().map(|part| part.round).max().unwrap_or(0),
            severity_changes: Vec::new(),
            withdrawn: None,
            merged_from: vec![a.clone(), b.clone()],
            merged_into: None,
        };
        for part in &parts {
            if part.severity != merged.severity {
                merged.severity_changes.push(SeverityChange {
                    from: part.severity,
                    to: merged.severity,
                    round: 0,
                    why: format!("{} merged with {}", part.id, gravest.id),
                });
            }
        }
        for id_of_part in [a, b] {
            for &place in places.get(id_of_part.as_str()).into_iter().flatten() {
                findings[place].merged_into = Some(id.clone());
            }
        }
        places.entry(id.clone()).or_default().push(findings.len());
        findings.push(merged);
        results.push(MergeResult {
            findings: candidate.findings.clone(),
            into: Some(id),
            refused: None,
        });
    }
    results
}

/// The next id of a sequence: `F007` after `F006`.
pub fn next_id<T: HasId>(items: &[T], prefix: char) -> String {
    id_after(highest_number(items, prefix), prefix)
}

/// The highest number of the ids of `items` in the sequence of `prefix`
/// (0 when none is).
pub fn highest_number<T: HasId>(items: &[T], prefix: char) -> u32 {
    items
        .iter()
        .filter_map(|item| id_number(item.id(), prefix))
        .max()
        .unwrap_or(0)
}

/// The number of `id` in the sequence of `prefix`: 7 for `F007`.
pub fn id_number(id: &str, prefix: char) -> Option<u32> {
    id.strip_prefix(prefix)?.parse().ok()
}

/// The id after number `highest` of the sequence of `prefix`.
pub fn id_after(highest: u32, prefix: char) -> String {
    format!("{prefix}{:03}", highest + 1)
}

/// Something with an id of a sequence.
pub trait HasId {
    fn id(&self) -> &str;
}

impl HasId for Finding {
    fn id(&self) -> &str {
        &self.id
    }
}

impl HasId for Proposal {
    fn id(&self) -> &str {
        &self.id
    }
}

/// `a, b and c`.
fn listed(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn outcome_of(finding: &Finding, record: &Record<'_>, lookup: &Lookup<'_>) -> FindingOutcome {
    let params = &record.params;
    let threshold = if finding.is_security() {
        params.security_threshold
    } else {
        params.consensus_threshold
    };
    let base = |state: FindingState, rule: String| FindingOutcome {
        id: finding.id.clone(),
        state,
        severity: finding.severity,
        share: 0.0,
        threshold,
        rule,
    };
    if let Some(why) = &finding.withdrawn {
        return base(FindingState::Withdrawn, why.clone());
    }
    if let Some(into) = &finding.merged_into {
        return base(FindingState::Merged, format!("merged into {into}"));
    }
    let ids: Vec<&str> = std::iter::once(finding.id.as_str())
        .chain(finding.merged_from.iter().map(String::as_str))
        .collect();
    let mut endorsers: Vec<String> = Vec::new();
    let mut corroborators: Vec<String> = Vec::new();
    let mut disputers: Vec<String> = Vec::new();
    let mut counted = 0.0;
    // The weight counted beyond the origins', and who was kin.
    let mut others = 0.0;
    let mut flagged: Vec<(String, Family)> = Vec::new();
    let mut recused: Vec<String> = Vec::new();
    for participant in record.participants {
        let origin = finding.from_origin(participant);
        let position = record.positions.get(participant);
        if let Some(family) = record.kin_on(participant, finding) {
            if record.recused_on(participant, finding) {
                // One who said nothing of it loses nothing by recusal.
                if position.is_some() {
                    recused.push(participant.clone());
                }
                continue;
            }
            if position.is_some() {
                flagged.push((participant.clone(), family));
            }
        }
        if position.is_some() || origin {
            counted += weight(participant, params);
        }
        if origin {
            continue;
        }
        if position.is_some() {
            others += weight(participant, params);
        }
        match position.and_then(|_| lookup.stance_on(participant, finding)) {
            Some(stance) if stance.stance == Stance::Endorse => endorsers.push(participant.clone()),
            Some(stance) if stance.stance == Stance::Dispute => disputers.push(participant.clone()),
            Some(_) => {}
            None => {
                let corroborated = ids
                    .iter()
                    .any(|id| lookup.corroborations.contains(&(participant.as_str(), *id)));
                if corroborated {
                    corroborators.push(participant.clone());
                    // Whoever is counted in the support is counted in the
                    // denominator (issue 60): one who corroborated in a round
                    // and gave no usable final position is in both.
                    if position.is_none() && record.edition.follows(Edition::CONCLUSIONS) {
                        counted += weight(participant, params);
                        others += weight(participant, params);
                    }
                }
            }
        }
    }
    let support: f64 = finding
        .origins
        .iter()
        .chain(&endorsers)
        .chain(&corroborators)
        .map(|p| weight(p, params))
        .sum();
    let share = if counted > 0.0 {
        support / counted
    } else {
        0.0
    };
    let mut backers = vec![format!("origin {}", listed(&finding.origins))];
    if !endorsers.is_empty() {
        backers.push(format!("endorsed by {}", listed(&endorsers)));
    }
    if !corroborators.is_empty() {
        backers.push(format!("corroborated by {}", listed(&corroborators)));
    }
    let which = if finding.is_security() {
        "security threshold"
    } else {
        "consensus threshold"
    };
    for (participant, family) in &flagged {
        backers.push(format!(
            "{participant} shares its origin's model family ({family}): flagged"
        ));
    }
    if !recused.is_empty() {
        backers.push(format!(
            "{} recused: its origin's model family",
            listed(&recused)
        ));
    }
    let tally = format!(
        "{support:.1} of {counted:.1} weighted positions ({share:.2} {} {threshold:.2}, the {which}): {}",
        if share + 1e-9 >= threshold {
            "≥"
        } else {
            "<"
        },
        backers.join("; ")
    );
    let challenged = ids.iter().any(|id| lookup.challenged.contains(id));
    // Recusal never leaves a finding confirmed by its origins alone.
    let origins_alone = !recused.is_empty() && others == 0.0;
    let (state, rule) = if origins_alone {
        (
            FindingState::Unconfirmed,
            format!(
                "unconfirmed: no participant outside its origin's model family was left to confirm it, and its origins alone do not: {tally}"
            ),
        )
    } else if let Some(why) = unverified(finding, record).filter(|_| share + 1e-9 >= threshold) {
        (
            FindingState::Unconfirmed,
            format!(
                "unconfirmed: none of its evidence verified ({why}), and a {} finding is confirmed only on evidence that did (its support would be {tally})",
                finding.severity
            ),
        )
    } else if share + 1e-9 >= threshold && unevidenced(finding, record) {
        (
            FindingState::Unconfirmed,
            format!(
                "unconfirmed: it gives no evidence, and a {} finding is confirmed only on evidence (its support would be {tally})",
                finding.severity
            ),
        )
    } else if share + 1e-9 >= threshold {
        (FindingState::Confirmed, format!("confirmed: {tally}"))
    } else if !disputers.is_empty() {
        (
            FindingState::Disputed,
            format!("disputed by {}: {tally}", listed(&disputers)),
        )
    } else if challenged {
        (
            FindingState::Disputed,
            format!("challenged and not confirmed: {tally}"),
        )
    } else {
        (FindingState::Unconfirmed, format!("unconfirmed: {tally}"))
    };
    FindingOutcome {
        share: round2(share),
        ..base(state, rule)
    }
}

/// A CRITICAL or HIGH finding that gives no evidence, under the rules
/// that confirm such a finding only on evidence (issue 60: every packet
/// says `evidence_required`); its parts' evidence counts for a merged one.
fn unevidenced(finding: &Finding, record: &Record<'_>) -> bool {
    record.edition.follows(Edition::CONCLUSIONS)
        && finding.severity.is_grave()
        && finding.text.evidence.trim().is_empty()
}

/// EV-08: a CRITICAL or HIGH finding that cites, and none of whose
/// citations verified, under the rules that confirm such a finding only on
/// evidence that did (issue 52): the first citation that failed. A merged
/// finding is unverified when every part of it is.
fn unverified<'r>(finding: &Finding, record: &Record<'r>) -> Option<&'r str> {
    if !record.edition.follows(Edition::EVIDENCE) || !finding.severity.is_grave() {
        return None;
    }
    if let Some(why) = record.unverified.get(&finding.id) {
        return Some(why.as_str());
    }
    let parts: Vec<&str> = finding
        .merged_from
        .iter()
        .map(|part| record.unverified.get(part).map(String::as_str))
        .collect::<Option<Vec<_>>>()?;
    parts.first().copied()
}

fn ids_of(outcomes: &[&FindingOutcome]) -> String {
    outcomes
        .iter()
        .map(|o| o.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn count(n: usize, severity: Severity, state: &str) -> String {
    format!(
        "{n} {state} {severity} finding{}",
        if n == 1 { "" } else { "s" }
    )
}

/// FAIL > CONCERNS > PASS (FP-39..FP-41, A23), with every reason at the
/// deciding level. A CRITICAL or HIGH finding left unconfirmed (neither
/// confirmed nor refuted) keeps the council from PASS (A21, revised).
pub fn verdict_of(
    outcomes: &[FindingOutcome],
    preset: Preset,
    findings: &[Finding],
) -> (Verdict, String) {
    let with = |state: FindingState, severity: Severity| -> Vec<&FindingOutcome> {
        outcomes
            .iter()
            .filter(|o| o.state == state && o.severity == severity)
            .collect()
    };
    let critical = with(FindingState::Confirmed, Severity::Critical);
    let high = with(FindingState::Confirmed, Severity::High);
    let medium = with(FindingState::Confirmed, Severity::Medium);
    let mut fail = Vec::new();
    if !critical.is_empty() {
        fail.push(format!(
            "{} ({})",
            count(critical.len(), Severity::Critical, "confirmed"),
            ids_of(&critical)
        ));
    }
    if high.len() >= FAILING_HIGHS {
        fail.push(format!(
            "{} ({})",
            count(high.len(), Severity::High, "confirmed"),
            ids_of(&high)
        ));
    }
    if preset == Preset::SecurityElevated {
        let security: Vec<&FindingOutcome> = outcomes
            .iter()
            .filter(|o| o.state == FindingState::Confirmed && o.severity <= Severity::Low)
            .filter(|o| findings.iter().any(|f| f.id == o.id && f.is_security()))
            .collect();
        if !security.is_empty() {
            fail.push(format!(
                "{} confirmed security finding{} at LOW or above under the security-elevated preset ({})",
                security.len(),
                if security.len() == 1 { "" } else { "s" },
                ids_of(&security)
            ));
        }
    }
    if !fail.is_empty() {
        return (Verdict::Fail, format!("{} → FAIL", fail.join("; ")));
    }
    let mut concerns = Vec::new();
    if !high.is_empty() {
        concerns.push(format!(
            "{} ({})",
            count(high.len(), Severity::High, "confirmed"),
            ids_of(&high)
        ));
    }
    if medium.len() >= MULTIPLE_MEDIUM {
        concerns.push(format!(
            "{} ({})",
            count(medium.len(), Severity::Medium, "confirmed"),
            ids_of(&medium)
        ));
    }
    let disputed: Vec<&FindingOutcome> = outcomes
        .iter()
        .filter(|o| o.state == FindingState::Disputed && o.severity.is_grave())
        .collect();
    if !disputed.is_empty() {
        concerns.push(format!(
            "{} disputed CRITICAL or HIGH finding{} ({})",
            disputed.len(),
            if disputed.len() == 1 { "" } else { "s" },
            ids_of(&disputed)
        ));
    }
    // A21 (revised): a grave finding nobody refuted and too few backed is
    // not silence; it is named, severity by severity.
    for severity in [Severity::Critical, Severity::High] {
        let unsettled = with(FindingState::Unconfirmed, severity);
        if !unsettled.is_empty() {
            concerns.push(format!(
                "{} ({}) that no one refuted",
                count(unsettled.len(), severity, "unconfirmed"),
                ids_of(&unsettled)
            ));
        }
    }
    if !concerns.is_empty() {
        return (
            Verdict::Concerns,
            format!("{} → CONCERNS", concerns.join("; ")),
        );
    }
    let confirmed = outcomes
        .iter()
        .filter(|o| o.state == FindingState::Confirmed)
        .count();
    let rule = if confirmed == 0 {
        "no confirmed finding and nothing grave disputed → PASS".to_string()
    } else {
        format!(
            "no confirmed CRITICAL or HIGH finding, {} confirmed MEDIUM, LOW or INFO, nothing grave disputed → PASS",
            confirmed
        )
    };
    (Verdict::Pass, rule)
}

/// Whether `challenge` was answered by a defense that accepted its
/// severity: the only way a severity moves in the rounds (A21).
pub fn accepted_severity(challenge: &Challenge, responses: &[Response]) -> Option<Severity> {
    let proposed = challenge.proposed_severity?;
    responses
        .iter()
        .any(|r| {
            r.answers.contains(&challenge.id)
                && r.kind == ResponseKind::Defense
                && r.accepts_severity
        })
        .then_some(proposed)
        .filter(|_| challenge.state == ChallengeState::Answered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::council::model::FindingText;

    /// A medium finding `F00n` of one expert (its merge tests use it too).
    pub(super) fn finding(number: usize, description: &str, withdrawn: bool) -> Finding {
        Finding {
            id: format!("F{number:03}"),
            origins: vec!["expert.security".into()],
            severity: Severity::Medium,
            reported_severity: Severity::Medium,
            text: FindingText {
                title: format!("Finding {number}"),
                description: description.to_string(),
                evidence: String::new(),
                recommendation: String::new(),
                domains: Vec::new(),
            },
            discovered: false,
            round: 0,
            severity_changes: Vec::new(),
            withdrawn: withdrawn.then(|| "withdrawn".to_string()),
            merged_from: Vec::new(),
            merged_into: None,
        }
    }

    fn outcome(id: &str, state: FindingState, severity: Severity) -> FindingOutcome {
        FindingOutcome {
            id: id.into(),
            state,
            severity,
            share: 0.2,
            threshold: 0.5,
            rule: String::new(),
        }
    }

    /// F001, raised by `expert.security`, assessed among `seated`: each
    /// participant's slot, model family and final stance on it (none for
    /// the origin), under `recusal`.
    fn assess_kin(
        recusal: crate::protocol::fairness::Recusal,
        seated: &[(&str, &str, Option<Stance>)],
    ) -> Assessment {
        let families = seated
            .iter()
            .map(|(slot, family, _)| (slot.to_string(), Family::new(family).unwrap()))
            .collect();
        let fairness = Fairness::new(true, 7, recusal, families);
        let participants: Vec<String> = seated.iter().map(|(slot, ..)| slot.to_string()).collect();
        let positions: Positions = seated
            .iter()
            .filter_map(|(slot, _, stance)| {
                let position = super::super::model::FinalPosition {
                    participant: slot.to_string(),
                    positions: vec![super::super::model::Position {
                        id: "F001".into(),
                        stance: (*stance)?,
                        note: String::new(),
                    }],
                    ..Default::default()
                };
                Some((slot.to_string(), position))
            })
            .collect();
        let findings = [finding(1, "tokens never expire", false)];
        assess(&Record {
            participants: &participants,
            findings: &findings,
            challenges: &[],
            responses: &[],
            merges: &[],
            positions: &positions,
            preset: Preset::Default,
            params: Preset::Default.params(),
            fairness: &fairness,
            edition: crate::protocol::Edition::FIRST,
            unverified: &BTreeMap::new(),
        })
    }

    /// A council of `expert.security` (the origin of F001), `expert.data`
    /// and `devil-advocate`, where the devil shares the origin's family
    /// and the others endorse or dispute F001 as given.
    fn kin_council(
        recusal: crate::protocol::fairness::Recusal,
        data: Stance,
        devil: Stance,
    ) -> Assessment {
        assess_kin(
            recusal,
            &[
                ("expert.security", "anthropic", None),
                ("expert.data", "openai", Some(data)),
                ("devil-advocate", "anthropic", Some(devil)),
            ],
        )
    }

    /// F001 raised by `expert.security` (at `severity`, with `evidence`),
    /// corroborated in a round by `expert.data`, whose final position is
    /// missing, and disputed in their final positions by `expert.ops`,
    /// the integration checker and the devil's advocate; under `edition`.
    fn corroborated_then_silent(
        severity: Severity,
        evidence: &str,
        edition: Edition,
    ) -> FindingOutcome {
        use super::super::model::{FinalPosition, Position};
        let participants: Vec<String> = [
            "expert.security",
            "expert.data",
            "expert.ops",
            "integration-checker",
            DEVIL,
        ]
        .map(String::from)
        .to_vec();
        let mut finding = finding(1, "tokens never expire", false);
        finding.severity = severity;
        finding.text.evidence = evidence.to_string();
        let findings = [finding];
        let disputes = ["expert.ops", "integration-checker", DEVIL];
        let positions: Positions = disputes
            .iter()
            .map(|slot| {
                let position = FinalPosition {
                    participant: slot.to_string(),
                    positions: vec![Position {
                        id: "F001".into(),
                        stance: Stance::Dispute,
                        note: String::new(),
                    }],
                    ..Default::default()
                };
                (slot.to_string(), position)
            })
            .collect();
        let responses = [Response {
            by: "expert.data".into(),
            round: 1,
            kind: ResponseKind::Corroboration,
            finding_id: "F001".into(),
            text: "Seen the same in the session store.".into(),
            evidence: String::new(),
            accepts_severity: false,
            merge_with: None,
            answers: Vec::new(),
        }];
        let fairness = Fairness::default();
        assess(&Record {
            participants: &participants,
            findings: &findings,
            challenges: &[],
            responses: &responses,
            merges: &[],
            positions: &positions,
            preset: Preset::Default,
            params: Preset::Default.params(),
            fairness: &fairness,
            edition,
            unverified: &BTreeMap::new(),
        })
        .outcome("F001")
        .unwrap()
        .clone()
    }

    /// FP-36 (issue 60): whoever is counted in a finding's support is
    /// counted in the weight it is divided by. A participant who
    /// corroborated in a round and gave no usable final position counts
    /// on both sides: 2 of 4.4, not 2 of 3.4, so three disputes outweigh
    /// the origin and one corroboration, and the rule shows that tally.
    #[test]
    fn fp_36_a_corroborator_without_a_final_position_is_in_the_denominator_too() {
        let outcome = corroborated_then_silent(Severity::Medium, "", Edition::CURRENT);
        assert_eq!(outcome.state, FindingState::Disputed, "{}", outcome.rule);
        assert_eq!(outcome.share, 0.45, "{}", outcome.rule);
        assert!(outcome.rule.contains("2.0 of 4.4"), "{}", outcome.rule);
        // A council journaled before the rule recomputes as it ran.
        let before = corroborated_then_silent(Severity::Medium, "", Edition::FIRST);
        assert_eq!(before.state, FindingState::Confirmed, "{}", before.rule);
        assert!(before.rule.contains("2.0 of 3.4"), "{}", before.rule);
    }

    /// EV-08 (issue 52): a CRITICAL or HIGH finding none of whose
    /// citations verified cannot be confirmed, whatever its support, and
    /// its rule names the citation; at MEDIUM, or under the rules before
    /// issue 52, the same support confirms it.
    #[test]
    fn ev_08_a_grave_finding_whose_citations_all_failed_cannot_be_confirmed() {
        let why = "webhooks.go:L48, out of range: internal/payments/webhooks.go has 24 lines";
        let unverified: BTreeMap<String, String> = [("F001".to_string(), why.to_string())].into();
        let assess_one = |severity: Severity, edition: Edition| {
            endorsed_by_data(severity, "webhooks.go:L48", edition, &unverified)
        };
        for severity in [Severity::Critical, Severity::High] {
            let failed = assess_one(severity, Edition::CURRENT);
            assert_eq!(failed.state, FindingState::Unconfirmed, "{}", failed.rule);
            assert!(
                failed.rule.starts_with(&format!(
                    "unconfirmed: none of its evidence verified ({why}), and a {severity} finding is confirmed only on evidence that did"
                )),
                "{}",
                failed.rule
            );
            let before = assess_one(severity, Edition::CONCLUSIONS);
            assert_eq!(before.state, FindingState::Confirmed, "{}", before.rule);
        }
        assert_eq!(
            assess_one(Severity::Medium, Edition::CURRENT).state,
            FindingState::Confirmed
        );
    }

    /// F001 (`severity`, giving `evidence`) of `expert.security`, endorsed
    /// by `expert.data` in its final position: enough support to confirm
    /// it, all else being well.
    fn endorsed_by_data(
        severity: Severity,
        evidence: &str,
        edition: Edition,
        unverified: &BTreeMap<String, String>,
    ) -> FindingOutcome {
        use super::super::model::{FinalPosition, Position};
        let participants: Vec<String> = ["expert.security", "expert.data"]
            .map(String::from)
            .to_vec();
        let mut finding = finding(1, "tokens never expire", false);
        finding.severity = severity;
        finding.text.evidence = evidence.to_string();
        let findings = [finding];
        let positions: Positions = [(
            "expert.data".to_string(),
            FinalPosition {
                participant: "expert.data".into(),
                positions: vec![Position {
                    id: "F001".into(),
                    stance: Stance::Endorse,
                    note: String::new(),
                }],
                ..Default::default()
            },
        )]
        .into_iter()
        .collect();
        let fairness = Fairness::default();
        assess(&Record {
            participants: &participants,
            findings: &findings,
            challenges: &[],
            responses: &[],
            merges: &[],
            positions: &positions,
            preset: Preset::Default,
            params: Preset::Default.params(),
            fairness: &fairness,
            edition,
            unverified,
        })
        .outcome("F001")
        .unwrap()
        .clone()
    }

    /// FP-49 (issue 60): every packet asks for evidence, so a CRITICAL or
    /// HIGH finding that gives none is kept but cannot be confirmed, and
    /// its rule says why; with evidence, or at MEDIUM, the same support
    /// confirms it.
    #[test]
    fn fp_49_a_grave_finding_without_evidence_cannot_be_confirmed() {
        let none = BTreeMap::new();
        let assess_one = |severity: Severity, evidence: &str| {
            endorsed_by_data(severity, evidence, Edition::CURRENT, &none)
        };
        for severity in [Severity::Critical, Severity::High] {
            let bare = assess_one(severity, "  ");
            assert_eq!(bare.state, FindingState::Unconfirmed, "{}", bare.rule);
            assert!(
                bare.rule.starts_with(&format!(
                    "unconfirmed: it gives no evidence, and a {severity} finding is confirmed only on evidence"
                )),
                "{}",
                bare.rule
            );
            let cited = assess_one(severity, "auth/session.rs:88 sets no expiry");
            assert_eq!(cited.state, FindingState::Confirmed, "{}", cited.rule);
        }
        assert_eq!(
            assess_one(Severity::Medium, "").state,
            FindingState::Confirmed
        );
    }

    /// Issue 29, recusal in the council under `flag`: the kin participant's
    /// word counts, and the finding's rule says it shares the origin's
    /// family.
    #[test]
    fn issue_29_a_kin_participant_is_flagged_and_still_counts() {
        use crate::protocol::fairness::Recusal;
        let assessment = kin_council(Recusal::Flag, Stance::Dispute, Stance::Endorse);
        let outcome = assessment.outcome("F001").unwrap();
        // The origin 1 and the devil's 0.4 of all three: 1.4 of 2.4.
        assert!(outcome.rule.contains("1.4 of 2.4"), "{}", outcome.rule);
        assert!(
            outcome
                .rule
                .contains("devil-advocate shares its origin's model family (anthropic): flagged"),
            "{}",
            outcome.rule
        );
        assert!(
            outcome.rule.contains("endorsed by devil-advocate"),
            "{}",
            outcome.rule
        );
    }

    /// Issue 29, recusal in the council under `recuse`: the kin
    /// participant's word and weight are left out of that finding, and the
    /// others decide it.
    #[test]
    fn issue_29_a_recused_participant_is_left_out_of_its_kins_finding() {
        use crate::protocol::fairness::Recusal;
        let flagged = kin_council(Recusal::Flag, Stance::Dispute, Stance::Endorse);
        let recused = kin_council(Recusal::Recuse, Stance::Dispute, Stance::Endorse);
        let (flagged, recused) = (
            flagged.outcome("F001").unwrap(),
            recused.outcome("F001").unwrap(),
        );
        assert!(
            !recused.rule.contains("endorsed by devil-advocate"),
            "{}",
            recused.rule
        );
        assert!(
            recused
                .rule
                .contains("devil-advocate recused: its origin's model family"),
            "{}",
            recused.rule
        );
        // The origin and the dispute only: 1 of 2 instead of 1.4 of 2.4.
        assert!(recused.rule.contains("1.0 of 2.0"), "{}", recused.rule);
        assert!(flagged.rule.contains("1.4 of 2.4"), "{}", flagged.rule);
        assert_eq!((flagged.share, recused.share), (0.58, 0.5));
    }

    /// Issue 29, the too-few case in the council: when every participant
    /// who could confirm a finding is recused, its origins alone do not
    /// confirm it, and the rule says why.
    #[test]
    fn issue_29_a_finding_left_to_its_origins_by_recusal_stays_unconfirmed() {
        use crate::protocol::fairness::Recusal;
        let seated = [
            ("expert.security", "anthropic", None),
            ("devil-advocate", "anthropic", Some(Stance::Endorse)),
        ];
        let outcome = assess_kin(Recusal::Recuse, &seated)
            .outcome("F001")
            .unwrap()
            .clone();
        assert_eq!(outcome.state, FindingState::Unconfirmed);
        assert!(
            outcome.rule.starts_with(
                "unconfirmed: no participant outside its origin's model family was left to confirm it"
            ),
            "{}",
            outcome.rule
        );
        // Under `flag` the same record confirms it: the recusal is the cause.
        let outcome = assess_kin(Recusal::Flag, &seated)
            .outcome("F001")
            .unwrap()
            .clone();
        assert_eq!(outcome.state, FindingState::Confirmed);
    }

    /// A21 (revised 2026-12-02), FP-41: a CRITICAL or HIGH finding that is
    /// neither confirmed nor refuted keeps the council from PASS, and the
    /// rule names it; an unconfirmed MEDIUM does not.
    #[test]
    fn a21_fp_41_an_unconfirmed_grave_finding_keeps_the_council_from_pass() {
        let findings = [finding(4, "d", false)];
        let (verdict, rule) = verdict_of(
            &[outcome("F004", FindingState::Unconfirmed, Severity::High)],
            Preset::Default,
            &findings,
        );
        assert_eq!(verdict, Verdict::Concerns);
        assert_eq!(
            rule,
            "1 unconfirmed HIGH finding (F004) that no one refuted → CONCERNS"
        );
        let (verdict, rule) = verdict_of(
            &[
                outcome("F001", FindingState::Unconfirmed, Severity::Critical),
                outcome("F002", FindingState::Unconfirmed, Severity::High),
                outcome("F003", FindingState::Unconfirmed, Severity::High),
                outcome("F005", FindingState::Confirmed, Severity::High),
            ],
            Preset::Default,
            &findings,
        );
        assert_eq!(verdict, Verdict::Concerns);
        assert_eq!(
            rule,
            "1 confirmed HIGH finding (F005); 1 unconfirmed CRITICAL finding (F001) that no one refuted; \
             2 unconfirmed HIGH findings (F002, F003) that no one refuted → CONCERNS"
        );
        let (verdict, _) = verdict_of(
            &[outcome("F002", FindingState::Unconfirmed, Severity::Medium)],
            Preset::Default,
            &findings,
        );
        assert_eq!(verdict, Verdict::Pass, "an unconfirmed MEDIUM is not grave");
        // Refuted (withdrawn) is not unconfirmed: it passes.
        let (verdict, _) = verdict_of(
            &[outcome("F004", FindingState::Withdrawn, Severity::High)],
            Preset::Default,
            &findings,
        );
        assert_eq!(verdict, Verdict::Pass);
    }
}
