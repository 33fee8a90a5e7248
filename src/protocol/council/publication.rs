//! The council's inventory: Phase 2, where quorum numbers what came in
//! `F001…` (or `P001…`) in roster order and publishes it to every
//! participant (FP-20, FP-21), new findings and proposals added during the
//! rounds, and Phase 4, where it proposes the merges the origins vote on
//! (overlap above 0.70 and the participants' proposals). Not responsible
//! for applying a merge: the final positions decide that
//! ([`super::verdict`]).

use super::model::{DEVIL, Finding, FindingText, Proposal, ProposalStatus, ProposalText, Severity};
use super::{Council, count, verdict};
use crate::protocol::Stage as _;
use crate::protocol::{Effect, LogKind, SharedSteps, Timestamp};
use crate::words::one_line;

impl Council {
    /// Phase 2: numbers what came in, in roster order, and publishes it.
    pub(super) fn publish(&mut self, now: Timestamp) -> Vec<Effect> {
        self.log(now, LogKind::Stage, None, "stage: publication".into());
        let mut renamed: Vec<String> = Vec::new();
        for role in self.participants.clone() {
            // Every item listed takes the id of its place, read or not, so
            // one left out moves no other (issue 59).
            let mut board_ids: Vec<String> = Vec::new();
            if self.proposes() {
                if let Some(held) = self.proposals_in.remove(&role) {
                    let mut texts = held.read.items.into_iter().peekable();
                    for place in 0..held.read.listed {
                        let id = self.next_proposal_id();
                        board_ids.push(id.clone());
                        match texts.next_if(|(at, _)| *at == place) {
                            Some((_, text)) => self.push_proposal(Proposal {
                                id,
                                origin: role.clone(),
                                text,
                                status: ProposalStatus::Proposed,
                                stage: "diverge".into(),
                                expansions: Vec::new(),
                                withdrawn: None,
                            }),
                            None => self.places.last_proposal += 1,
                        }
                    }
                    let effect =
                        "left out of the inventory: nobody weighed it, and it cannot be accepted";
                    self.leave_out_listed(
                        &held.call,
                        held.at,
                        &held.slips,
                        &board_ids,
                        "proposal",
                        effect,
                    );
                }
            } else if let Some(held) = self.findings_in.remove(&role) {
                let mut texts = held.read.items.into_iter().peekable();
                for place in 0..held.read.listed {
                    match texts.next_if(|(at, _)| *at == place) {
                        Some((_, (severity, text))) => {
                            board_ids.push(self.add_finding(&role, severity, text, false));
                        }
                        None => {
                            board_ids.push(self.next_finding_id());
                            self.places.last_finding += 1;
                        }
                    }
                }
                let effect = "left out of the inventory: nobody challenged or confirmed it, and it counts for nothing in the verdict";
                self.leave_out_listed(
                    &held.call,
                    held.at,
                    &held.slips,
                    &board_ids,
                    "finding",
                    effect,
                );
            }
            let written = self.written_ids.remove(&role).unwrap_or_default();
            let pairs: Vec<String> = written
                .iter()
                .zip(&board_ids)
                .filter(|(written, board)| !written.is_empty() && written != board)
                .map(|(written, board)| format!("{} → {board}", one_line(written)))
                .collect();
            if !pairs.is_empty() {
                renamed.push(format!("{role}: {}", pairs.join(", ")));
            }
        }
        // The ids the participants wrote in Phase 1 were their own; from
        // here on every prompt and board uses the board's.
        if !renamed.is_empty() {
            self.log(
                now,
                LogKind::Note,
                None,
                format!(
                    "board ids given to what each participant numbered itself: {}",
                    renamed.join("; ")
                ),
            );
        }
        let listed: Vec<String> = if self.proposes() {
            self.proposals
                .iter()
                .map(|p| format!("{} by {}", p.id, p.origin))
                .collect()
        } else {
            self.findings
                .iter()
                .map(|f| format!("{} {} by {}", f.id, f.severity, f.origins.join(", ")))
                .collect()
        };
        let what = if self.proposes() {
            "proposal"
        } else {
            "finding"
        };
        let message = if listed.is_empty() {
            format!("no participant brought a {what}; nothing to publish")
        } else {
            format!(
                "published {} to every participant: {}",
                count(listed.len(), what, &format!("{what}s")),
                listed.join(", ")
            )
        };
        self.log(now, LogKind::Note, None, message);
        self.exchange.broadcast(
            &self.present(),
            &self.open_ids(),
            if self.proposes() {
                "proposal_packet"
            } else {
                "context_packet"
            },
        );
        if let Some(short) = self.short_of_quorum("a Phase 1 answer", self.phase_one_read()) {
            return self.fail(now, short);
        }
        if self.out.contains(DEVIL) && self.fallback.is_none() && self.debating() {
            self.fallback = Some(
                "the devil's advocate gave no Phase 1 answer and cannot take follow-up rounds"
                    .into(),
            );
            self.log(
                now,
                LogKind::Note,
                None,
                "fallback: phases 3 and 4 are skipped, because the devil's advocate cannot take follow-up rounds".into(),
            );
        }
        if self.open_ids().is_empty() {
            return self.start_final(now);
        }
        if self.proposes() && self.debating() {
            return self.start_expand(now);
        }
        if self.debating() {
            self.core.round = 1;
            return self.start_round(now);
        }
        self.start_final(now)
    }

    /// The participants whose Phase 1 answer quorum could read (an empty
    /// list of findings is an answer).
    fn phase_one_read(&self) -> usize {
        let stage = super::Step::Independent.id();
        self.participants
            .iter()
            .filter(|role| {
                self.submissions.iter().any(|kept| {
                    kept.role == **role && kept.stage == stage && kept.malformed.is_none()
                })
            })
            .count()
    }

    /// Why the council cannot conclude when fewer than a quorum of its
    /// participants gave `what` quorum could read (`read` of them): a
    /// majority of the roster, in the spirit of a decision review's judge
    /// quorum (2 of 3, 3 of 5). Below it the council ends as a recorded
    /// failure, never a verdict made up from the few (issue 60, A18);
    /// `None` at or above it, or for a council journaled before the rule.
    pub(super) fn short_of_quorum(&self, what: &str, read: usize) -> Option<String> {
        if !self
            .config
            .seating
            .edition
            .follows(crate::protocol::Edition::CONCLUSIONS)
        {
            return None;
        }
        let roster = self.participants.len();
        let quorum = roster / 2 + 1;
        (read < quorum).then(|| {
            format!(
                "only {read} of the {roster} participants gave {what} quorum could read, short of the quorum of {quorum}: the council concludes nothing from so few"
            )
        })
    }

    /// Records the items of a Phase 1 answer left out (`slips`), each
    /// named by the board id its place gave it (`ids`, in list order).
    fn leave_out_listed(
        &mut self,
        call: &crate::protocol::supervision::LiveCall,
        at: crate::protocol::Timestamp,
        slips: &[crate::parse::Slip],
        ids: &[String],
        what: &str,
        effect: &str,
    ) {
        let name = |slip: &crate::parse::Slip| match slip.index.and_then(|place| ids.get(place)) {
            Some(id) => format!("{what} {id}"),
            None => format!("{what} {}", crate::protocol::reading::slip_name(slip)),
        };
        self.core
            .leave_out(call, at, slips, name, |_| effect.to_string());
    }

    pub(super) fn add_finding(
        &mut self,
        origin: &str,
        severity: Severity,
        text: FindingText,
        discovered: bool,
    ) -> String {
        let id = self.next_finding_id();
        self.push_finding(Finding {
            id: id.clone(),
            origins: vec![origin.to_string()],
            severity,
            reported_severity: severity,
            text,
            discovered,
            round: if discovered { self.core.round } else { 0 },
            severity_changes: Vec::new(),
            withdrawn: None,
            merged_from: Vec::new(),
            merged_into: None,
        });
        id
    }

    pub(super) fn add_proposal(&mut self, origin: &str, text: ProposalText, stage: &str) -> String {
        let id = self.next_proposal_id();
        // A proposal built from others retires them (FP-47): its author's
        // own at once; another origin's only with that origin's agreement,
        // asked in its final position and applied at the convergence, as a
        // merge of findings is (issue 60). A part split off a proposal
        // retires the whole (FP-43).
        let lineage = text.lineage.clone();
        let retired = [
            (&lineage.merged_from, ProposalStatus::Merged),
            (&lineage.supersedes, ProposalStatus::Superseded),
            (&lineage.split_from, ProposalStatus::Split),
        ];
        let agreed = self
            .config
            .seating
            .edition
            .follows(crate::protocol::Edition::CONCLUSIONS);
        for (ids, status) in retired {
            for target in ids {
                let Some(p) = self.proposal_mut(target) else {
                    continue;
                };
                if p.origin == origin || !agreed {
                    p.status = status;
                    continue;
                }
                let retirement = super::model::Retirement {
                    proposal: p.id.clone(),
                    by: id.clone(),
                    status,
                    claimed_by: origin.to_string(),
                    origin: p.origin.clone(),
                };
                // The origin is asked about the pair in its final position.
                self.propose_merge(super::model::MergeCandidate {
                    findings: [retirement.proposal.clone(), id.clone()],
                    proposed_by: origin.to_string(),
                    overlap: 0.0,
                });
                self.retirements.push(retirement);
            }
        }
        self.push_proposal(Proposal {
            id: id.clone(),
            origin: origin.to_string(),
            text,
            status: ProposalStatus::Proposed,
            stage: stage.to_string(),
            expansions: Vec::new(),
            withdrawn: None,
        });
        id
    }

    /// Phase 4: proposes the merges the origins will vote on.
    pub(super) fn synthesise(&mut self, now: Timestamp) {
        self.log(now, LogKind::Stage, None, "stage: synthesis".into());
        for candidate in verdict::similarity::overlapping(&self.findings) {
            self.propose_merge(candidate);
        }
        let listed: Vec<String> = self
            .merge_candidates
            .iter()
            .map(|m| {
                format!(
                    "{} + {} (by {}, overlap {:.2})",
                    m.findings[0], m.findings[1], m.proposed_by, m.overlap
                )
            })
            .collect();
        let message = if listed.is_empty() {
            "no merge proposed: no two findings overlap by more than 0.70 and no participant proposed one".into()
        } else {
            format!(
                "merges proposed, each applied only if both origins agree: {}",
                listed.join("; ")
            )
        };
        self.log(now, LogKind::Note, None, message);
        self.exchange
            .synthesis(&self.present(), &self.merge_candidates);
    }
}
