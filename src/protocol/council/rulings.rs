//! The moderator's rulings on challenges, as the agents that act after them
//! read them, and the checks of their answers against them (issue 26).
//!
//! In a council the moderator rules on every challenge before it goes
//! anywhere: deliver (accepted: the participant it names must answer it),
//! drop (rejected: it was never put, and nothing may rest on it) or hold
//! back (deferred: an open question). The devil's advocate's later rounds,
//! the responses, the final positions and a brainstorm's handoff carry the
//! standard section ([`crate::rulings::section`]) and a list saying which
//! finding or proposal each ruled challenge is about.
//!
//! Where ids make it checkable, an answer is checked against the rulings:
//! a response that leaves a delivered challenge unanswered, and a final
//! position whose notes or summary rest on a dropped challenge, or settle
//! one held back. The council asks once more naming each discrepancy; what
//! still disagrees is logged and stated in the deliverable.
//!
//! Not responsible for delivering challenges or for the verdict.

use serde_json::{Value, json};

use super::model::{Challenge, ChallengeState, FinalPosition, Stance};
use crate::protocol::ItemDecision;
use crate::rulings::{Ruled, Ruling};

/// The moderator's last word on `challenge`, as the acting agent reads it;
/// `None` while undecided. A challenge let through that the budget never
/// put to anyone is an open question, not one to address.
pub fn ruling_of(challenge: &Challenge) -> Option<Ruling> {
    let last = challenge.moderation.last()?;
    let ruled = match last.decision {
        ItemDecision::Accept if challenge.state == ChallengeState::Undelivered => Ruled::Deferred,
        decision => Ruled::from(decision),
    };
    Some(Ruling::new(
        challenge.id.clone(),
        ruled,
        last.note.as_deref(),
    ))
}

/// The moderator's word on a challenge in the council's own verbs.
pub fn verb(ruled: Ruled) -> &'static str {
    match ruled {
        Ruled::Accepted => "delivered",
        Ruled::Rejected => "dropped",
        Ruled::Deferred => "held back",
    }
}

/// The standard rulings section over `challenges` (those the moderator
/// ruled on), and the list of what each was about, for a prompt's
/// `rulings` and `ruled_challenges`.
pub fn context<'a>(challenges: impl IntoIterator<Item = &'a Challenge>) -> (String, Value) {
    let mut rulings = Vec::new();
    let mut about = Vec::new();
    for challenge in challenges {
        let Some(ruling) = ruling_of(challenge) else {
            continue;
        };
        about.push(json!({
            "id": challenge.id,
            "about": challenge.finding_id,
            "from": challenge.from,
            "to": challenge.to,
            "round": challenge.round,
            "ruling": verb(ruling.ruled),
            "note": ruling.note.clone().unwrap_or_default(),
        }));
        rulings.push(ruling);
    }
    (crate::rulings::section(&rulings), json!(about))
}

/// A stance as a noun: `dispute`, `endorsement`.
fn stance_noun(stance: Stance) -> &'static str {
    match stance {
        Stance::Endorse => "endorsement",
        Stance::Dispute => "dispute",
        Stance::Abstain => "abstention",
        Stance::Withdraw => "withdrawal",
        Stance::Park => "parking",
    }
}

/// Whether `text` names `id` as a word of its own (`C2`, not `C21`).
pub fn cites(text: &str, id: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .any(|word| word == id)
}

/// Where `position` goes against the rulings on `challenges`: a note or
/// the summary resting on a dropped challenge, or a stance other than
/// abstaining that cites one held back (which settles an open question).
pub fn final_discrepancies(position: &FinalPosition, challenges: &[Challenge]) -> Vec<String> {
    let mut found = Vec::new();
    for challenge in challenges {
        let Some(ruling) = ruling_of(challenge) else {
            continue;
        };
        let note = ruling
            .note
            .as_deref()
            .map(|note| format!(" (the moderator's note: {note})"))
            .unwrap_or_default();
        match ruling.ruled {
            Ruled::Rejected => {
                for stance in &position.positions {
                    if cites(&stance.note, &challenge.id) {
                        found.push(format!(
                            "your {} of {} rests on {}, a challenge of {} the moderator dropped{note}: nothing may rest on it",
                            stance_noun(stance.stance),
                            stance.id,
                            challenge.id,
                            challenge.finding_id
                        ));
                    }
                }
                if cites(&position.summary, &challenge.id) {
                    found.push(format!(
                        "your summary rests on {}, a challenge of {} the moderator dropped{note}: nothing may rest on it",
                        challenge.id, challenge.finding_id
                    ));
                }
            }
            Ruled::Deferred => {
                for stance in &position.positions {
                    if stance.stance != Stance::Abstain && cites(&stance.note, &challenge.id) {
                        found.push(format!(
                            "your {} of {} settles {}, a challenge of {} the moderator held back as an open question{note}: leave it open",
                            stance_noun(stance.stance),
                            stance.id,
                            challenge.id,
                            challenge.finding_id
                        ));
                    }
                }
            }
            Ruled::Accepted => {}
        }
    }
    found
}

/// The delivered challenges among `delivered` that `answered` (the ids of
/// the findings or proposals the responses were about) leaves without a
/// response: each is a ruling to address left unaddressed.
pub fn unanswered(delivered: &[&Challenge], answered: &[String]) -> Vec<String> {
    delivered
        .iter()
        .filter(|challenge| !answered.contains(&challenge.finding_id))
        .map(|challenge| {
            format!(
                "{} (on {}) was delivered to you and your answer gives no response about {}",
                challenge.id, challenge.finding_id, challenge.finding_id
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::council::model::{Moderated, Position};

    fn challenge(id: &str, on: &str, decision: ItemDecision, note: Option<&str>) -> Challenge {
        Challenge {
            id: id.into(),
            finding_id: on.into(),
            from: "devil-advocate".into(),
            to: "expert.security".into(),
            round: 1,
            challenge: "It assumes X.".into(),
            severity_challenge: String::new(),
            proposed_severity: None,
            basis: None,
            state: match decision {
                ItemDecision::Accept => ChallengeState::Delivered,
                ItemDecision::Reject => ChallengeState::Dropped,
                ItemDecision::Defer => ChallengeState::Held,
            },
            moderation: vec![Moderated {
                round: 1,
                decision,
                note: note.map(str::to_string),
            }],
            delivered_in: None,
            undelivered: None,
        }
    }

    #[test]
    fn the_section_says_what_each_ruling_binds_in_the_standard_shape() {
        let challenges = [
            challenge("C1", "F001", ItemDecision::Reject, Some("line 14 is fine")),
            challenge("C2", "F003", ItemDecision::Accept, None),
            challenge("C3", "F004", ItemDecision::Defer, None),
        ];
        let (section, about) = context(&challenges);
        let read = crate::rulings::read(&section);
        assert_eq!(read.get("C1"), Some(&Ruled::Rejected));
        assert_eq!(read.get("C2"), Some(&Ruled::Accepted));
        assert_eq!(read.get("C3"), Some(&Ruled::Deferred));
        assert!(
            section
                .contains("- C1: rejected — do not act on it. Moderator's note: line 14 is fine"),
            "{section}"
        );
        assert_eq!(about[0]["about"], "F001");
        assert_eq!(about[0]["ruling"], "dropped");
        assert_eq!(about[2]["ruling"], "held back");
    }

    #[test]
    fn a_final_position_resting_on_a_dropped_challenge_or_settling_a_held_one_is_found() {
        let challenges = [
            challenge("C1", "F001", ItemDecision::Reject, Some("line 14 is fine")),
            challenge("C2", "F003", ItemDecision::Defer, None),
            challenge("C12", "F005", ItemDecision::Accept, None),
        ];
        let position = FinalPosition {
            participant: "devil-advocate".into(),
            positions: vec![
                Position {
                    id: "F001".into(),
                    stance: Stance::Dispute,
                    note: "As C1 showed, hmac.Equal is constant-time.".into(),
                },
                Position {
                    id: "F003".into(),
                    stance: Stance::Dispute,
                    note: "C2 stands unanswered.".into(),
                },
                Position {
                    id: "F005".into(),
                    stance: Stance::Endorse,
                    note: "C12 was answered.".into(),
                },
            ],
            merges: Vec::new(),
            unreadable_votes: Vec::new(),
            summary: "Nothing else.".into(),
        };
        let found = final_discrepancies(&position, &challenges);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].starts_with("your dispute of F001 rests on C1"),
            "{found:?}"
        );
        assert!(found[0].contains("line 14 is fine"), "{found:?}");
        assert!(
            found[1].starts_with("your dispute of F003 settles C2"),
            "{found:?}"
        );
        assert!(cites("see C1.", "C1") && !cites("see C12", "C1"));
    }
}
