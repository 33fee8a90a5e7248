//! How a brainstorm's proposals end: each one still in the running is
//! accepted, rejected or parked by the weighted count of the final
//! positions, and one that another origin's would retire (FP-47) is retired
//! only with its own origin's agreement (issue 60).
//!
//! Not responsible for findings or the verdict (the parent module).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{listed, pair, round2, weight};
use crate::protocol::council::model::{
    Params, Positions, Proposal, ProposalStatus, Retirement, Stance,
};

/// How one proposal ended, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProposalOutcome {
    pub id: String,
    pub status: ProposalStatus,
    pub accept_share: f64,
    pub reject_share: f64,
    pub rule: String,
}

/// Converges a brainstorm: each proposal still in the running is accepted
/// when its weighted accept share reaches the consensus threshold,
/// rejected when its reject share does, and parked otherwise; its origin
/// counts as accepting unless it says otherwise. Retired proposals
/// (merged, split, superseded) keep their status.
pub fn converge(
    participants: &[String],
    proposals: &[Proposal],
    positions: &Positions,
    params: &Params,
    retirements: &[Retirement],
) -> Vec<ProposalOutcome> {
    // A proposal another origin's would retire is retired here only when
    // its own origin agreed in its final position (issue 60); otherwise
    // both stand and converge on their own.
    let mut proposals: Vec<Proposal> = proposals.to_vec();
    let mut retired_by: HashMap<String, String> = HashMap::new();
    for proposal in proposals.iter_mut() {
        let claims: Vec<&Retirement> = retirements
            .iter()
            .filter(|r| r.proposal == proposal.id)
            .collect();
        let Some(first) = claims.first() else {
            continue;
        };
        let agreed_to = |r: &Retirement| {
            positions.get(&r.origin).is_some_and(|position| {
                position.merges.iter().any(|vote| {
                    vote.agree
                        && pair(&vote.findings[0], &vote.findings[1]) == pair(&r.proposal, &r.by)
                })
            })
        };
        let (agreed, refused): (Vec<&&Retirement>, Vec<_>) =
            claims.iter().partition(|r| agreed_to(r));
        let by = |list: &[&&Retirement]| {
            listed(
                &list
                    .iter()
                    .map(|r| format!("{} ({})", r.by, r.claimed_by))
                    .collect::<Vec<_>>(),
            )
        };
        if let (Some(taken), false) = (agreed.first(), proposal.status.retired()) {
            proposal.status = taken.status;
            retired_by.insert(
                proposal.id.clone(),
                format!(
                    "{} by {}, with its origin {}'s agreement",
                    taken.status.as_str(),
                    by(&agreed),
                    first.origin
                ),
            );
        } else if agreed.is_empty() {
            retired_by.insert(
                proposal.id.clone(),
                format!(
                    "{} would have it {}, but its origin {} did not agree, so it stands on its own",
                    by(&refused),
                    first.status.as_str(),
                    first.origin
                ),
            );
        }
    }
    let proposals = &proposals;
    // Each participant's first stance on each id, looked up per proposal.
    let stances: HashMap<&str, HashMap<&str, Stance>> = positions
        .iter()
        .map(|(participant, position)| {
            let mut first: HashMap<&str, Stance> = HashMap::new();
            for stance in &position.positions {
                first.entry(stance.id.as_str()).or_insert(stance.stance);
            }
            (participant.as_str(), first)
        })
        .collect();
    let mut outcomes = Vec::new();
    for proposal in proposals {
        if proposal.status.retired() {
            outcomes.push(ProposalOutcome {
                id: proposal.id.clone(),
                status: proposal.status,
                accept_share: 0.0,
                reject_share: 0.0,
                rule: retired_by.get(&proposal.id).cloned().unwrap_or_else(|| {
                    format!("{} before the convergence", proposal.status.as_str())
                }),
            });
            continue;
        }
        let (mut accept, mut reject, mut counted) = (0.0, 0.0, 0.0);
        let mut for_it = Vec::new();
        let mut against = Vec::new();
        for participant in participants {
            let position = positions.get(participant);
            let origin = proposal.origin == *participant;
            if position.is_none() && !origin {
                continue;
            }
            let w = weight(participant, params);
            counted += w;
            let stance = position
                .and_then(|_| stances.get(participant.as_str()))
                .and_then(|first| first.get(proposal.id.as_str()).copied());
            let withdrawn = origin && proposal.withdrawn.is_some();
            match (stance, origin) {
                _ if withdrawn && stance != Some(Stance::Endorse) => {
                    reject += w;
                    against.push(participant.clone());
                }
                (Some(Stance::Endorse), _) | (None, true) => {
                    accept += w;
                    for_it.push(participant.clone());
                }
                (Some(Stance::Dispute | Stance::Withdraw), _) => {
                    reject += w;
                    against.push(participant.clone());
                }
                _ => {}
            }
        }
        let (accept_share, reject_share) = if counted > 0.0 {
            (accept / counted, reject / counted)
        } else {
            (0.0, 0.0)
        };
        let threshold = params.consensus_threshold;
        let status = if accept_share + 1e-9 >= threshold {
            ProposalStatus::Accepted
        } else if reject_share + 1e-9 >= threshold {
            ProposalStatus::Rejected
        } else {
            ProposalStatus::Parked
        };
        let rule = format!(
            "{}: accept {accept:.1} of {counted:.1} ({:.2}), reject {reject:.1} ({:.2}), threshold {threshold:.2}{}{}",
            status.as_str(),
            accept_share,
            reject_share,
            if for_it.is_empty() {
                String::new()
            } else {
                format!("; for: {}", listed(&for_it))
            },
            if against.is_empty() {
                String::new()
            } else {
                format!("; against: {}", listed(&against))
            },
        );
        let rule = match retired_by.get(&proposal.id) {
            Some(claim) => format!("{rule}; {claim}"),
            None => rule,
        };
        outcomes.push(ProposalOutcome {
            id: proposal.id.clone(),
            status,
            accept_share: round2(accept_share),
            reject_share: round2(reject_share),
            rule,
        });
    }
    outcomes
}
