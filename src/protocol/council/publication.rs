//! The council's inventory: Phase 2, where quorum numbers what came in
//! `F001…` (or `P001…`) in roster order and publishes it to every
//! participant (FP-20, FP-21), new findings and proposals added during the
//! rounds, and Phase 4, where it proposes the merges the origins vote on
//! (overlap above 0.70 and the participants' proposals). Not responsible
//! for applying a merge: the final positions decide that
//! ([`super::verdict`]).

use super::model::{DEVIL, Finding, FindingText, Proposal, ProposalStatus, ProposalText, Severity};
use super::{Council, count, verdict};
use crate::protocol::{Effect, LogKind, Timestamp};
use crate::report::one_line;

impl Council {
    /// Phase 2: numbers what came in, in roster order, and publishes it.
    pub(super) fn publish(&mut self, now: Timestamp) -> Vec<Effect> {
        self.log(now, LogKind::Stage, None, "stage: publication".into());
        let mut renamed: Vec<String> = Vec::new();
        for role in self.participants.clone() {
            let mut board_ids: Vec<String> = Vec::new();
            if self.proposes() {
                for text in self.proposals_in.remove(&role).unwrap_or_default() {
                    let id = self.next_proposal_id();
                    board_ids.push(id.clone());
                    self.push_proposal(Proposal {
                        id,
                        origin: role.clone(),
                        text,
                        status: ProposalStatus::Proposed,
                        stage: "diverge".into(),
                        expansions: Vec::new(),
                        withdrawn: None,
                    });
                }
            } else {
                for (severity, text) in self.findings_in.remove(&role).unwrap_or_default() {
                    board_ids.push(self.add_finding(&role, severity, text, false));
                }
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
            self.round = 1;
            return self.start_round(now);
        }
        self.start_final(now)
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
            round: if discovered { self.round } else { 0 },
            severity_changes: Vec::new(),
            withdrawn: None,
            merged_from: Vec::new(),
            merged_into: None,
        });
        id
    }

    pub(super) fn add_proposal(&mut self, origin: &str, text: ProposalText, stage: &str) -> String {
        let id = self.next_proposal_id();
        // A proposal built from others retires them (FP-47).
        let lineage = text.lineage.clone();
        for merged in &lineage.merged_from {
            if let Some(p) = self.proposal_mut(merged) {
                p.status = ProposalStatus::Merged;
            }
        }
        for replaced in &lineage.supersedes {
            if let Some(p) = self.proposal_mut(replaced) {
                p.status = ProposalStatus::Superseded;
            }
        }
        // A part split off a proposal retires the whole (FP-43, FP-47).
        for whole in &lineage.split_from {
            if let Some(p) = self.proposal_mut(whole) {
                p.status = ProposalStatus::Split;
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
        for candidate in verdict::overlapping(&self.findings) {
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
