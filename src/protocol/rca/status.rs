//! Statuses and the root cause, derived mechanically from what happened to
//! each challenge (RC-13, RC-15, RULES.md A28), never taken from the
//! critic's own summary. The same functions run live, in a resumed run and
//! in `quorum verdict DIR`, which reads the challenges back from `rca.yaml`.
//!
//! A hypothesis is ELIMINATED when a ruling found it contradicted by its
//! owner's own evidence, or when a critical challenge went unanswered (its
//! owner conceded it, or answered the round and left it out, and never
//! answered it later). It SURVIVED when at least one challenge reached it
//! and every challenge that did was resolved. Anything else is WEAKENED: a
//! challenge unresolved, unanswered (a missed answer for a call that failed
//! counts here, not against the hypothesis), conceded though not critical,
//! or no challenge at all. While the loop runs, ELIMINATED is final at once
//! and SURVIVED once nothing is pending; WEAKENED is only ever an end state
//! (RC-07). The root cause is proven only when exactly one hypothesis
//! SURVIVED.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::model::{Challenge, ChallengeState, ExamWord, MissKind, Restatement, Status};
use crate::protocol::{Edition, Verdict};
use crate::words::one_line;

/// What quorum derived about one hypothesis, with the rule that decided it:
/// `H2: critical challenge X2.1 conceded in round 3 → ELIMINATED`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Derived {
    pub status: Status,
    pub rule: String,
}

/// The end of an analysis: the verdict (root cause proven or not), its
/// rule, and the hypothesis that is the root cause.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conclusion {
    pub verdict: Verdict,
    pub rule: String,
    pub root_cause: Option<String>,
}

/// The challenges among `mine` (a hypothesis's own) that count: the
/// withdrawn ones never reached anyone.
fn counted<'a>(mine: impl IntoIterator<Item = &'a Challenge>) -> Vec<&'a Challenge> {
    mine.into_iter()
        .filter(|challenge| challenge.state != ChallengeState::Withdrawn)
        .collect()
}

/// `id`'s own challenges among `challenges`.
fn own<'a>(id: &'a str, challenges: &'a [Challenge]) -> impl Iterator<Item = &'a Challenge> {
    challenges
        .iter()
        .filter(move |challenge| challenge.hypothesis == id)
}

/// Every challenge of `challenges` by the hypothesis it is about, in the
/// order raised: what [`settled_among`] and [`final_status_among`] take,
/// so that the statuses of every hypothesis cost one pass over the
/// challenges, not one per hypothesis.
pub fn by_hypothesis(challenges: &[Challenge]) -> HashMap<&str, Vec<&Challenge>> {
    let mut grouped: HashMap<&str, Vec<&Challenge>> = HashMap::new();
    for challenge in challenges {
        grouped
            .entry(challenge.hypothesis.as_str())
            .or_default()
            .push(challenge);
    }
    grouped
}

/// The ELIMINATED that is final at once: a contradiction, or a critical
/// challenge conceded.
fn eliminated_now(id: &str, challenges: &[&Challenge]) -> Option<Derived> {
    if let Some(challenge) = challenges
        .iter()
        .find(|challenge| challenge.state == ChallengeState::Contradicted)
    {
        let round = challenge
            .rulings
            .last()
            .map_or(challenge.round, |r| r.round);
        return Some(Derived {
            status: Status::Eliminated,
            rule: format!(
                "{id}: {} ruled contradicted by its owner's own evidence in round {round} → ELIMINATED",
                challenge.id
            ),
        });
    }
    challenges
        .iter()
        .find(|challenge| challenge.text.critical && challenge.state == ChallengeState::Conceded)
        .map(|challenge| {
            let round = challenge
                .answers
                .last()
                .map_or(challenge.round, |a| a.round);
            Derived {
                status: Status::Eliminated,
                rule: format!(
                    "{id}: critical challenge {} conceded in round {round} → ELIMINATED",
                    challenge.id
                ),
            }
        })
}

/// The status of `id` while the loop runs: `Some` once it is final
/// (ELIMINATED, or SURVIVED with nothing pending), `None` while active.
pub fn settled(id: &str, challenges: &[Challenge]) -> Option<Derived> {
    settled_among(id, own(id, challenges))
}

/// [`settled`], from `id`'s own challenges (`mine`) alone.
pub fn settled_among<'a>(
    id: &str,
    mine: impl IntoIterator<Item = &'a Challenge>,
) -> Option<Derived> {
    let mine = counted(mine);
    if let Some(derived) = eliminated_now(id, &mine) {
        return Some(derived);
    }
    let delivered = mine.iter().filter(|c| c.state.delivered()).count();
    let all_resolved = mine
        .iter()
        .all(|challenge| challenge.state == ChallengeState::Resolved);
    (delivered > 0 && all_resolved).then(|| survived(id, delivered))
}

fn survived(id: &str, count: usize) -> Derived {
    let what = match count {
        1 => "its one challenge".to_string(),
        2 => "both its challenges".to_string(),
        n => format!("all {n} of its challenges"),
    };
    Derived {
        status: Status::Survived,
        rule: format!("{id}: {what} resolved → SURVIVED"),
    }
}

/// The status of `id` at the end of the analysis.
pub fn final_status(id: &str, challenges: &[Challenge]) -> Derived {
    final_status_among(id, own(id, challenges))
}

/// [`final_status`], from `id`'s own challenges (`mine`) alone.
pub fn final_status_among<'a>(id: &str, mine: impl IntoIterator<Item = &'a Challenge>) -> Derived {
    let mine = counted(mine);
    if let Some(derived) = eliminated_now(id, &mine) {
        return derived;
    }
    let delivered: Vec<&&Challenge> = mine.iter().filter(|c| c.state.delivered()).collect();
    if let Some(challenge) = delivered.iter().find(|challenge| {
        challenge.text.critical
            && challenge.answers.is_empty()
            && challenge
                .misses
                .iter()
                .any(|miss| miss.kind == MissKind::Omitted)
    }) {
        let rounds: Vec<String> = challenge
            .misses
            .iter()
            .filter(|miss| miss.kind == MissKind::Omitted)
            .map(|miss| miss.round.to_string())
            .collect();
        return Derived {
            status: Status::Eliminated,
            rule: format!(
                "{id}: critical challenge {} never answered (left out in round {}) → ELIMINATED",
                challenge.id,
                rounds.join(", ")
            ),
        };
    }
    if delivered.is_empty() {
        return Derived {
            status: Status::Weakened,
            rule: format!("{id}: no challenge reached it, so nothing was shown → WEAKENED"),
        };
    }
    if delivered
        .iter()
        .all(|challenge| challenge.state == ChallengeState::Resolved)
    {
        return survived(id, delivered.len());
    }
    let gaps: Vec<String> = delivered
        .iter()
        .filter(|challenge| challenge.state != ChallengeState::Resolved)
        .map(|challenge| gap(challenge))
        .collect();
    Derived {
        status: Status::Weakened,
        rule: format!("{id}: {} → WEAKENED", gaps.join("; ")),
    }
}

/// Why a delivered challenge is not resolved, in a few words.
fn gap(challenge: &Challenge) -> String {
    let id = &challenge.id;
    let critical = if challenge.text.critical {
        "critical "
    } else {
        ""
    };
    match challenge.state {
        ChallengeState::Conceded => format!("{critical}challenge {id} conceded"),
        ChallengeState::Answered => format!("{critical}challenge {id} answered but never ruled"),
        ChallengeState::Open if !challenge.rulings.is_empty() => {
            let round = challenge.rulings.last().map_or(0, |ruling| ruling.round);
            format!("{critical}challenge {id} still unresolved after the ruling of round {round}")
        }
        ChallengeState::Open => match challenge.misses.last() {
            Some(miss) if miss.kind == MissKind::Failed => format!(
                "{critical}challenge {id} unanswered: its owner gave no answer in round {}",
                miss.round
            ),
            _ => format!("{critical}challenge {id} unanswered"),
        },
        other => format!("{critical}challenge {id} {}", other.as_str()),
    }
}

/// What decides the root cause beyond the statuses: the rules the
/// analysis runs under and the rivals the moderator ruled out, each with
/// its reason.
#[derive(Clone, Copy, Debug)]
pub struct Rules<'a> {
    pub edition: Edition,
    pub ruled_out: &'a BTreeMap<String, String>,
    /// Hypotheses whose evidence or answers cite something quorum found
    /// wanting, each with the first such citation in words (issue 52).
    pub unverified: &'a BTreeMap<String, String>,
}

impl Rules<'_> {
    /// The rules an analysis from before issue 60 ran under.
    pub fn first() -> Rules<'static> {
        static NONE: BTreeMap<String, String> = BTreeMap::new();
        Rules {
            edition: Edition::FIRST,
            ruled_out: &NONE,
            unverified: &NONE,
        }
    }

    /// A hypothesis SURVIVES only on evidence that verified (issue 52).
    pub fn evidence(&self) -> bool {
        self.edition.follows(Edition::EVIDENCE)
    }

    /// Why `id` cannot SURVIVE on its evidence, under these rules.
    pub fn unverified(&self, id: &str) -> Option<&str> {
        self.evidence()
            .then(|| self.unverified.get(id).map(String::as_str))
            .flatten()
    }

    /// A rival must be ELIMINATED or ruled out, and a restatement examined
    /// (issue 60, A28 as revised).
    pub fn strict(&self) -> bool {
        self.edition.follows(Edition::CONCLUSIONS)
    }
}

/// EV-07: a hypothesis that would SURVIVE but whose evidence or answers
/// cite something that did not verify is WEAKENED instead, the rule
/// saying which citation; any other status stands.
pub fn bound_by_evidence(id: &str, derived: Derived, rules: &Rules<'_>) -> Derived {
    match rules.unverified(id) {
        Some(why) if derived.status == Status::Survived => {
            let resolved = derived
                .rule
                .strip_suffix(" → SURVIVED")
                .unwrap_or(&derived.rule);
            let resolved = resolved
                .strip_prefix(&format!("{id}: "))
                .unwrap_or(resolved);
            Derived {
                status: Status::Weakened,
                rule: format!(
                    "{id}: {resolved}, but it cites {why}: a cause stands only on evidence that verified → WEAKENED"
                ),
            }
        }
        _ => derived,
    }
}

/// The root cause (RC-15, A28): proven only when exactly one hypothesis
/// SURVIVED and, under the revised A28, every other one was ELIMINATED
/// or ruled out by the moderator: a rival left WEAKENED (never examined
/// because its debugger's call failed included) leaves the analysis
/// unproven, the rule saying which rival and why. `statuses` pairs each
/// hypothesis with its final status.
pub fn conclude(statuses: &[(String, Derived)], rules: &Rules<'_>) -> Conclusion {
    let survivors: Vec<&str> = statuses
        .iter()
        .filter(|(_, derived)| derived.status == Status::Survived)
        .map(|(id, _)| id.as_str())
        .collect();
    let others = |except: &[&str]| -> String {
        let rest: Vec<String> = statuses
            .iter()
            .filter(|(id, _)| !except.contains(&id.as_str()))
            .map(|(id, derived)| match rules.ruled_out.get(id) {
                Some(why) if rules.strict() && derived.status == Status::Weakened => format!(
                    "{id} {}, ruled out by the moderator: {}",
                    derived.status.as_str(),
                    one_line(why)
                ),
                _ => format!("{id} {}", derived.status.as_str()),
            })
            .collect();
        // A moderator's note may hold commas of its own.
        let between = if rest
            .iter()
            .any(|r| r.contains("ruled out by the moderator"))
        {
            "; "
        } else {
            ", "
        };
        if rest.is_empty() {
            String::new()
        } else {
            format!(" ({})", rest.join(between))
        }
    };
    match survivors.as_slice() {
        [] if statuses.is_empty() => Conclusion {
            verdict: Verdict::Unproven,
            rule: "no hypothesis was presented → no root cause proven".into(),
            root_cause: None,
        },
        [] => Conclusion {
            verdict: Verdict::Unproven,
            rule: format!(
                "no hypothesis SURVIVED{} → no root cause proven",
                others(&[])
            ),
            root_cause: None,
        },
        [one] => {
            let standing = standing_rivals(statuses, one, rules);
            if standing.is_empty() {
                Conclusion {
                    verdict: Verdict::Proven,
                    rule: format!(
                        "{one} is the only hypothesis that SURVIVED{} → root cause proven",
                        others(&[one])
                    ),
                    root_cause: Some(one.to_string()),
                }
            } else {
                Conclusion {
                    verdict: Verdict::Unproven,
                    rule: format!(
                        "{one} is the only hypothesis that SURVIVED, but {}: a rival neither eliminated nor ruled out leaves the cause unproven → no root cause proven",
                        standing.join("; ")
                    ),
                    root_cause: None,
                }
            }
        }
        several => Conclusion {
            verdict: Verdict::Unproven,
            rule: format!(
                "{} all SURVIVED: the evidence does not single one out{} → no root cause proven",
                several.join(", "),
                others(several)
            ),
            root_cause: None,
        },
    }
}

/// Why a rival still stands, in words: `H2 was left WEAKENED (challenge
/// X2.1 unanswered: its owner gave no answer in round 2)`.
fn rival_gap(id: &str, derived: &Derived) -> String {
    let why = derived
        .rule
        .strip_prefix(&format!("{id}: "))
        .unwrap_or(&derived.rule);
    let why = why.strip_suffix(" → WEAKENED").unwrap_or(why);
    format!(
        "{id} was left {} and not ruled out ({why})",
        derived.status.as_str()
    )
}

/// RC-10, RC-16: a root cause is no stronger than its claim. When the one
/// hypothesis that SURVIVED claims with hedge words (`claim_hedges`), it is
/// proven only once its owner restated it without them, and, under the
/// revised rules (issue 60), once the critic found the restatement
/// supported by the evidence and the moderator left that ruling standing;
/// otherwise the original, hedged claim stands and the analysis is
/// unproven, with the reason in the rule. Any other conclusion comes back
/// as it was.
pub fn bound_by_hedges(
    conclusion: Conclusion,
    claim_hedges: &[String],
    restatement: Option<&Restatement>,
    rules: &Rules<'_>,
) -> Conclusion {
    let Some(id) = conclusion.root_cause.clone() else {
        return conclusion;
    };
    if claim_hedges.is_empty() {
        return conclusion;
    }
    let said = quoted_words(claim_hedges);
    let survived = conclusion
        .rule
        .strip_suffix(" → root cause proven")
        .unwrap_or(&conclusion.rule)
        .to_string();
    let restatement = restatement.filter(|r| r.hypothesis == id);
    match restatement.map(|r| (r, restatement_gap(r, rules.strict()))) {
        Some((r, None)) => {
            let how = if !rules.strict() {
                ""
            } else if r
                .examination
                .as_ref()
                .and_then(|e| e.moderation.as_ref())
                .is_some_and(|m| m.decision == crate::protocol::ItemDecision::Reject)
            {
                ", and the moderator found the restatement supported by the evidence, overturning the critic"
            } else {
                ", and the critic found the restatement supported by the evidence"
            };
            let and = if rules.strict() { "," } else { ", and" };
            Conclusion {
                rule: format!(
                    "{survived}; its claim said {said}{and} its owner restated it without hedge words{how} → root cause proven"
                ),
                ..conclusion
            }
        }
        Some((_, Some(why))) => unproven(&survived, &said, why),
        None => unproven(
            &survived,
            &said,
            "its owner was never asked to restate it".to_string(),
        ),
    }
}

fn unproven(survived: &str, said: &str, why: String) -> Conclusion {
    Conclusion {
        verdict: Verdict::Unproven,
        rule: format!(
            "{survived}, but its claim says {said} and {why}: a hedged claim is not a proven cause → no root cause proven"
        ),
        root_cause: None,
    }
}

/// Why a restatement is not taken as the claim, in words; `None` when it
/// is: plain, and under the revised rules (`strict`) examined and found
/// supported.
pub fn restatement_gap(restatement: &Restatement, strict: bool) -> Option<String> {
    if restatement.plain() && (!strict || restatement.confirmed()) {
        return None;
    }
    Some(match restatement {
        r if r.plain() => unexamined(r),
        r if !r.still_hedged.is_empty() => format!(
            "its owner's restatement still says {}",
            quoted_words(&r.still_hedged)
        ),
        Restatement {
            failed: Some(reason),
            ..
        } => format!("its owner gave no restatement without them ({reason})"),
        _ => "its owner gave no restatement without them".to_string(),
    })
}

/// The rivals of `survivor` that keep it from being proven (issue 60, A28
/// as revised): neither ELIMINATED nor ruled out, each with why, in words.
pub fn standing_rivals(
    statuses: &[(String, Derived)],
    survivor: &str,
    rules: &Rules<'_>,
) -> Vec<String> {
    statuses
        .iter()
        .filter(|(id, derived)| {
            rules.strict()
                && id != survivor
                && derived.status != Status::Eliminated
                && !rules.ruled_out.contains_key(id)
        })
        .map(|(id, derived)| rival_gap(id, derived))
        .collect()
}

/// Why a plain restatement was not taken as the root cause, in words.
fn unexamined(restatement: &Restatement) -> String {
    use crate::protocol::ItemDecision;
    let Some(exam) = &restatement.examination else {
        return "its owner's restatement was never examined".to_string();
    };
    let decision = exam.moderation.as_ref().map(|m| m.decision);
    match (exam.ruling, decision) {
        (None, _) => format!(
            "the critic gave no ruling on its owner's restatement ({}), so the original claim stands",
            exam.failed.as_deref().unwrap_or("none was given")
        ),
        (Some(_), Some(ItemDecision::Defer)) => {
            "the moderator left the critic's ruling on its owner's restatement unconfirmed, so the original claim stands".to_string()
        }
        (Some(ExamWord::Supported), Some(ItemDecision::Reject)) => format!(
            "the moderator overturned the critic's ruling that its owner's restatement is supported ({}), so the original claim stands",
            one_line(&exam.reason)
        ),
        (Some(_), _) => format!(
            "the critic found that its owner's restatement says more than the evidence shows ({}), so the original claim stands",
            one_line(&exam.reason)
        ),
    }
}

/// `"probably"`, `"likely" and "might"`.
pub fn quoted_words(words: &[String]) -> String {
    let quoted: Vec<String> = words.iter().map(|word| format!("\"{word}\"")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ItemDecision;
    use crate::protocol::rca::model::{
        Answer, AnswerText, ChallengeText, Miss, Moderated, Ruling, RulingText, RulingWord, Test,
    };

    fn challenge(id: &str, hypothesis: &str, critical: bool, state: ChallengeState) -> Challenge {
        Challenge {
            id: id.into(),
            hypothesis: hypothesis.into(),
            round: 1,
            text: ChallengeText {
                test: Test::Timeline,
                critical,
                quote: "q".into(),
                why: "w".into(),
                evidence_needed: "e".into(),
                alternative: "a".into(),
            },
            state,
            moderation: vec![Moderated {
                round: 1,
                decision: ItemDecision::Accept,
                note: None,
            }],
            delivered_in: if state.delivered() { vec![1] } else { vec![] },
            answers: Vec::new(),
            misses: Vec::new(),
            rulings: Vec::new(),
        }
    }

    fn answered(mut challenge: Challenge, round: u32) -> Challenge {
        challenge.answers.push(Answer {
            round,
            text: AnswerText {
                concede: false,
                answer: "a".into(),
                evidence: vec![],
            },
            hedges: vec![],
        });
        challenge
    }

    fn ruled(mut challenge: Challenge, round: u32, word: RulingWord) -> Challenge {
        challenge.rulings.push(Ruling {
            round,
            closing: false,
            text: RulingText {
                ruling: word,
                reason: "r".into(),
                missing: String::new(),
                evidence_needed: String::new(),
                alternative: String::new(),
            },
            moderation: None,
        });
        challenge
    }

    fn missed(mut challenge: Challenge, round: u32, kind: MissKind, reason: &str) -> Challenge {
        challenge.misses.push(Miss {
            round,
            kind,
            reason: reason.into(),
        });
        challenge
    }

    /// RC-13, A28: a contradiction eliminates, at once and at the end.
    #[test]
    fn rc_13_a28_a_contradiction_eliminates() {
        let challenges = vec![
            ruled(
                answered(
                    challenge("X3.1", "H3", false, ChallengeState::Contradicted),
                    1,
                ),
                2,
                RulingWord::Contradicted,
            ),
            challenge("X3.2", "H3", true, ChallengeState::Open),
        ];
        let derived = settled("H3", &challenges).expect("final");
        assert_eq!(derived.status, Status::Eliminated);
        assert_eq!(
            derived.rule,
            "H3: X3.1 ruled contradicted by its owner's own evidence in round 2 → ELIMINATED"
        );
        assert_eq!(final_status("H3", &challenges), derived);
    }

    /// RC-13, A28: a critical challenge conceded eliminates at once; one left
    /// out by an owner who answered the round eliminates at the end; one its
    /// owner never got to answer (the call failed) only weakens.
    #[test]
    fn rc_13_a28_an_unanswered_critical_challenge_eliminates() {
        let mut conceded = challenge("X2.1", "H2", true, ChallengeState::Conceded);
        conceded.answers.push(Answer {
            round: 3,
            text: AnswerText {
                concede: true,
                answer: String::new(),
                evidence: vec![],
            },
            hedges: vec![],
        });
        let derived = settled("H2", &[conceded]).expect("final");
        assert_eq!(
            derived.rule,
            "H2: critical challenge X2.1 conceded in round 3 → ELIMINATED"
        );

        let open = challenge("X2.1", "H2", true, ChallengeState::Open);
        let omitted = missed(open.clone(), 2, MissKind::Omitted, "");
        assert_eq!(
            settled("H2", std::slice::from_ref(&omitted)),
            None,
            "still active"
        );
        let derived = final_status("H2", &[omitted]);
        assert_eq!(derived.status, Status::Eliminated);
        assert_eq!(
            derived.rule,
            "H2: critical challenge X2.1 never answered (left out in round 2) → ELIMINATED"
        );

        let failed = missed(open, 4, MissKind::Failed, "timed out twice");
        let derived = final_status("H2", &[failed]);
        assert_eq!(derived.status, Status::Weakened);
        assert_eq!(
            derived.rule,
            "H2: critical challenge X2.1 unanswered: its owner gave no answer in round 4 → WEAKENED"
        );
    }

    /// RC-13, RC-07: SURVIVED once every delivered challenge is resolved and
    /// EV-07: a hypothesis whose every challenge was resolved, but whose
    /// evidence cites what did not verify, ends WEAKENED with the citation
    /// in its rule; before the rule (an older edition) it SURVIVED.
    #[test]
    fn ev_07_a_hypothesis_citing_what_did_not_verify_cannot_survive() {
        let derived = |status: Status, rule: &str| Derived {
            status,
            rule: rule.to_string(),
        };
        let resolved = derived(
            Status::Survived,
            "H1: its one challenge resolved → SURVIVED",
        );
        let unverified: BTreeMap<String, String> = [(
            "H1".to_string(),
            "\"timeout after 30s\" — app.log, not found in app.log nor in any other source"
                .to_string(),
        )]
        .into();
        let none = BTreeMap::new();
        let rules = Rules {
            edition: Edition::CURRENT,
            ruled_out: &none,
            unverified: &unverified,
        };
        let bound = bound_by_evidence("H1", resolved.clone(), &rules);
        assert_eq!(bound.status, Status::Weakened);
        assert_eq!(
            bound.rule,
            "H1: its one challenge resolved, but it cites \"timeout after 30s\" — app.log, not found in app.log nor in any other source: a cause stands only on evidence that verified → WEAKENED"
        );
        let eliminated = derived(Status::Eliminated, "H1: … → ELIMINATED");
        assert_eq!(
            bound_by_evidence("H1", eliminated.clone(), &rules),
            eliminated
        );
        assert_eq!(bound_by_evidence("H2", resolved.clone(), &rules), resolved);
        let before = Rules {
            edition: Edition::CONCLUSIONS,
            ..rules
        };
        assert_eq!(bound_by_evidence("H1", resolved.clone(), &before), resolved);
    }

    /// nothing is pending; WEAKENED is never final while the loop runs.
    #[test]
    fn rc_07_rc_13_survived_needs_every_challenge_resolved() {
        let resolved = |id: &str| {
            ruled(
                answered(challenge(id, "H1", true, ChallengeState::Resolved), 1),
                2,
                RulingWord::Resolved,
            )
        };
        let challenges = vec![
            resolved("X1.1"),
            resolved("X1.2"),
            challenge("X1.3", "H1", false, ChallengeState::Withdrawn),
        ];
        let derived = settled("H1", &challenges).expect("final");
        assert_eq!(derived.rule, "H1: both its challenges resolved → SURVIVED");
        let mut pending = challenges.clone();
        pending.push(challenge("X1.4", "H1", false, ChallengeState::Proposed));
        assert_eq!(settled("H1", &pending), None);
        pending.last_mut().unwrap().state = ChallengeState::Held;
        assert_eq!(settled("H1", &pending), None);

        let unresolved = ruled(
            answered(challenge("X1.5", "H1", false, ChallengeState::Open), 2),
            3,
            RulingWord::Unresolved,
        );
        let mut weakened = challenges.clone();
        weakened.push(unresolved);
        assert_eq!(settled("H1", &weakened), None, "WEAKENED is not final");
        let derived = final_status("H1", &weakened);
        assert_eq!(derived.status, Status::Weakened);
        assert_eq!(
            derived.rule,
            "H1: challenge X1.5 still unresolved after the ruling of round 3 → WEAKENED"
        );
        assert_eq!(final_status("H9", &[]).status, Status::Weakened);
    }

    /// RC-16, RC-10: the one survivor's hedged claim is proven only as
    /// restated without hedge words; still hedged, never given or never
    /// asked, it is not, and the rule says why in words.
    #[test]
    fn rc_16_a_hedged_survivor_is_proven_only_once_restated_plainly() {
        let survived = || Conclusion {
            verdict: Verdict::Proven,
            rule: "H2 is the only hypothesis that SURVIVED (H1 WEAKENED) → root cause proven"
                .into(),
            root_cause: Some("H2".into()),
        };
        let hedges = vec!["probably".to_string()];
        let asked = |claim: Option<&str>, still: &[&str], failed: Option<&str>| Restatement {
            hypothesis: "H2".into(),
            hedges: hedges.clone(),
            claim: claim.map(str::to_string),
            still_hedged: still.iter().map(|w| w.to_string()).collect(),
            failed: failed.map(str::to_string),
            examination: None,
        };
        // No hedge: as it was.
        assert_eq!(
            bound_by_hedges(survived(), &[], None, &Rules::first()),
            survived()
        );
        let plain = asked(Some("The pool was exhausted."), &[], None);
        let proven = bound_by_hedges(survived(), &hedges, Some(&plain), &Rules::first());
        assert_eq!(proven.verdict, Verdict::Proven);
        assert_eq!(proven.root_cause.as_deref(), Some("H2"));
        assert_eq!(
            proven.rule,
            "H2 is the only hypothesis that SURVIVED (H1 WEAKENED); its claim said \"probably\", and its owner restated it without hedge words → root cause proven"
        );
        let still = asked(Some("The pool was likely exhausted."), &["likely"], None);
        let unproven = bound_by_hedges(survived(), &hedges, Some(&still), &Rules::first());
        assert_eq!(unproven.verdict, Verdict::Unproven);
        assert_eq!(unproven.root_cause, None);
        assert_eq!(
            unproven.rule,
            "H2 is the only hypothesis that SURVIVED (H1 WEAKENED), but its claim says \"probably\" and its owner's restatement still says \"likely\": a hedged claim is not a proven cause → no root cause proven"
        );
        let failed = asked(None, &[], Some("the call failed (timed out)"));
        let unproven = bound_by_hedges(survived(), &hedges, Some(&failed), &Rules::first());
        assert_eq!(unproven.verdict, Verdict::Unproven);
        assert!(
            unproven.rule.contains(
                "its owner gave no restatement without them (the call failed (timed out))"
            ),
            "{}",
            unproven.rule
        );
        let never = bound_by_hedges(survived(), &hedges, None, &Rules::first());
        assert_eq!(never.verdict, Verdict::Unproven);
        assert!(never.rule.contains("never asked"), "{}", never.rule);
        // A restatement of another hypothesis proves nothing here.
        let mut other = plain.clone();
        other.hypothesis = "H1".into();
        assert_eq!(
            bound_by_hedges(survived(), &hedges, Some(&other), &Rules::first()).verdict,
            Verdict::Unproven
        );
    }

    /// A28 (revised 2026-12-06, issue 60): the one survivor is proven only
    /// when every rival was ELIMINATED or ruled out by the moderator; a
    /// rival left WEAKENED, never examined because its debugger's call
    /// failed included, leaves the analysis unproven with the reason in
    /// words. An analysis from before the rule concludes as it did.
    #[test]
    fn a28_revised_a_rival_neither_eliminated_nor_ruled_out_keeps_the_cause_unproven() {
        let derived = |status: Status, rule: &str| Derived {
            status,
            rule: rule.to_string(),
        };
        let statuses = vec![
            (
                "H1".to_string(),
                derived(
                    Status::Survived,
                    "H1: both its challenges resolved → SURVIVED",
                ),
            ),
            (
                "H2".to_string(),
                derived(
                    Status::Weakened,
                    "H2: critical challenge X2.1 unanswered: its owner gave no answer in round 1 → WEAKENED",
                ),
            ),
            (
                "H3".to_string(),
                derived(Status::Eliminated, "H3: … → ELIMINATED"),
            ),
        ];
        let none = BTreeMap::new();
        let strict = Rules {
            edition: Edition::CURRENT,
            ruled_out: &none,
            unverified: &none,
        };
        let open = conclude(&statuses, &strict);
        assert_eq!(open.verdict, Verdict::Unproven);
        assert_eq!(open.root_cause, None);
        assert_eq!(
            open.rule,
            "H1 is the only hypothesis that SURVIVED, but H2 was left WEAKENED and not ruled out (critical challenge X2.1 unanswered: its owner gave no answer in round 1): a rival neither eliminated nor ruled out leaves the cause unproven → no root cause proven"
        );
        // Ruled out by the moderator, with why: proven, and the rule says so.
        let ruled: BTreeMap<String, String> = [(
            "H2".to_string(),
            "The pool graphs were flat, checked by hand.".to_string(),
        )]
        .into();
        let proven = conclude(
            &statuses,
            &Rules {
                edition: Edition::CURRENT,
                ruled_out: &ruled,
                unverified: &none,
            },
        );
        assert_eq!(proven.verdict, Verdict::Proven);
        assert_eq!(
            proven.rule,
            "H1 is the only hypothesis that SURVIVED (H2 WEAKENED, ruled out by the moderator: The pool graphs were flat, checked by hand.; H3 ELIMINATED) → root cause proven"
        );
        // Every rival eliminated: proven without a word from anyone.
        let mut eliminated = statuses.clone();
        eliminated[1].1.status = Status::Eliminated;
        assert_eq!(conclude(&eliminated, &strict).verdict, Verdict::Proven);
        // Before the rule: proven beside a WEAKENED rival, as it ran.
        assert_eq!(
            conclude(&statuses, &Rules::first()).verdict,
            Verdict::Proven
        );
    }

    /// RC-16 (issue 60): a plain restatement is the proven claim only once
    /// the critic found the evidence carries it and the moderator left
    /// that standing; overreaching, unexamined, deferred or overturned, the
    /// original hedged claim stands and the rule says why.
    #[test]
    fn rc_16_a_restatement_is_proven_only_once_examined_and_found_supported() {
        use crate::protocol::rca::model::{ExamWord, Examination};
        let survived = || Conclusion {
            verdict: Verdict::Proven,
            rule: "H2 is the only hypothesis that SURVIVED (H1 ELIMINATED) → root cause proven"
                .into(),
            root_cause: Some("H2".into()),
        };
        let hedges = vec!["probably".to_string()];
        let none = BTreeMap::new();
        let strict = Rules {
            edition: Edition::CURRENT,
            ruled_out: &none,
            unverified: &none,
        };
        let examined = |ruling: Option<ExamWord>, decision: Option<ItemDecision>| Restatement {
            hypothesis: "H2".into(),
            hedges: hedges.clone(),
            claim: Some("The pool was exhausted by the job.".into()),
            still_hedged: Vec::new(),
            failed: None,
            examination: Some(Examination {
                ruling,
                reason: "The answers show waits before the latency.".into(),
                failed: ruling
                    .is_none()
                    .then(|| "the call failed (timed out)".to_string()),
                moderation: decision.map(|decision| Moderated {
                    round: 5,
                    decision,
                    note: None,
                }),
            }),
        };
        let conclude_with =
            |r: &Restatement| bound_by_hedges(survived(), &hedges, Some(r), &strict);
        let proven = conclude_with(&examined(
            Some(ExamWord::Supported),
            Some(ItemDecision::Accept),
        ));
        assert_eq!(proven.verdict, Verdict::Proven);
        assert_eq!(
            proven.rule,
            "H2 is the only hypothesis that SURVIVED (H1 ELIMINATED); its claim said \"probably\", its owner restated it without hedge words, and the critic found the restatement supported by the evidence → root cause proven"
        );
        let overturned = conclude_with(&examined(
            Some(ExamWord::Overreaches),
            Some(ItemDecision::Reject),
        ));
        assert_eq!(overturned.verdict, Verdict::Proven);
        assert!(
            overturned.rule.contains("overturning the critic"),
            "{}",
            overturned.rule
        );
        for (restatement, why) in [
            (
                examined(Some(ExamWord::Overreaches), Some(ItemDecision::Accept)),
                "the critic found that its owner's restatement says more than the evidence shows (The answers show waits before the latency.), so the original claim stands",
            ),
            (
                examined(Some(ExamWord::Supported), Some(ItemDecision::Reject)),
                "the moderator overturned the critic's ruling that its owner's restatement is supported",
            ),
            (
                examined(Some(ExamWord::Supported), Some(ItemDecision::Defer)),
                "the moderator left the critic's ruling on its owner's restatement unconfirmed",
            ),
            (
                examined(None, None),
                "the critic gave no ruling on its owner's restatement (the call failed (timed out))",
            ),
        ] {
            let unproven = conclude_with(&restatement);
            assert_eq!(unproven.verdict, Verdict::Unproven, "{}", unproven.rule);
            assert!(unproven.rule.contains(why), "{}", unproven.rule);
        }
        let mut never = examined(None, None);
        never.examination = None;
        assert!(
            conclude_with(&never)
                .rule
                .contains("its owner's restatement was never examined")
        );
    }

    /// RC-15, A28: only a single SURVIVED hypothesis is the root cause.
    #[test]
    fn rc_15_a28_one_survivor_is_the_root_cause() {
        let status = |id: &str, status: Status| {
            (
                id.to_string(),
                Derived {
                    status,
                    rule: String::new(),
                },
            )
        };
        let one = conclude(
            &[
                status("H1", Status::Survived),
                status("H2", Status::Weakened),
                status("H3", Status::Eliminated),
            ],
            &Rules::first(),
        );
        assert_eq!(one.verdict, Verdict::Proven);
        assert_eq!(one.root_cause.as_deref(), Some("H1"));
        assert_eq!(
            one.rule,
            "H1 is the only hypothesis that SURVIVED (H2 WEAKENED, H3 ELIMINATED) → root cause proven"
        );
        let two = conclude(
            &[
                status("H1", Status::Survived),
                status("H2", Status::Survived),
            ],
            &Rules::first(),
        );
        assert_eq!(two.verdict, Verdict::Unproven);
        assert_eq!(two.root_cause, None);
        assert_eq!(
            two.rule,
            "H1, H2 all SURVIVED: the evidence does not single one out → no root cause proven"
        );
        let none = conclude(&[status("H1", Status::Weakened)], &Rules::first());
        assert_eq!(none.verdict, Verdict::Unproven);
        assert_eq!(
            none.rule,
            "no hypothesis SURVIVED (H1 WEAKENED) → no root cause proven"
        );
        assert_eq!(conclude(&[], &Rules::first()).verdict, Verdict::Unproven);
    }
}
