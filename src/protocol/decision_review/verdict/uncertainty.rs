//! Check 5 of the verdict, major uncertainty → ESCALATE (DR-34, A4, A7):
//! every reason that applies, read off the scoresheet in the order the
//! parent module's docs list them, (a) to (e).
//!
//! Not responsible for what the reasons decide: the parent runs the checks
//! in order, and uncertainty decides only when no check before it fired.

use super::{Mark, QuorumStatus, Scoresheet, Standing, at_least, mean, number};
use crate::protocol::decision_review::model::{Criterion, JudgeRole, JudgeScores};

impl Scoresheet<'_> {
    /// Every reason for major uncertainty, in the order of the module docs.
    pub(super) fn uncertainty(&self, quorum: &QuorumStatus) -> Vec<String> {
        let mut reasons = Vec::new();
        if quorum.present == 0 {
            reasons.push("no judge produced a usable score".to_string());
        }
        if !quorum.met {
            reasons.push(format!(
                "below quorum: {} of {} judges produced usable scores, {} needed",
                quorum.present, quorum.panel_size, quorum.required
            ));
        }
        if !self.seats.iter().any(|seat| seat.config.is_binding()) {
            reasons.push("the panel has no binding judge".to_string());
        }
        for seat in &self.seats {
            if let (true, Standing::Missing(absence)) = (seat.config.is_binding(), &seat.standing) {
                reasons.push(format!(
                    "{} is missing ({}), a binding judge",
                    seat.config.role,
                    absence.label()
                ));
            }
        }
        reasons.extend(
            self.present()
                .filter_map(|(seat_index, scores)| self.lacking_information(seat_index, scores)),
        );
        reasons.extend(
            self.judged_blocks()
                .filter_map(|block| self.disagreement(block)),
        );
        if self.blocks.is_empty() {
            reasons.push("there are no blocks to judge".to_string());
        }
        reasons.extend(
            self.present()
                .filter_map(|(seat_index, scores)| self.unscored(seat_index, scores)),
        );
        reasons
    }

    /// The blocks a judge declared it could not score, as one reason.
    fn lacking_information(&self, seat_index: usize, scores: &JudgeScores) -> Option<String> {
        let lacking: Vec<&str> = self
            .judged_blocks()
            .filter(|&block| self.lacks_information(scores, block))
            .map(|block| self.blocks[block].as_str())
            .collect();
        (!lacking.is_empty()).then(|| {
            format!(
                "{} lacks the information to score {}",
                self.seats[seat_index].config.role,
                lacking.join(", ")
            )
        })
    }

    /// The own criteria a judge left unscored without saying why, as one
    /// reason: `analyst left unscored: b2 (risk), b3 (correctness, risk)`.
    fn unscored(&self, seat_index: usize, scores: &JudgeScores) -> Option<String> {
        let config = self.seats[seat_index].config;
        let is_scored = |block: usize, criterion: Criterion| {
            self.marks.iter().any(|mark| {
                mark.seat == seat_index && mark.block == block && mark.criterion == criterion
            })
        };
        let gaps: Vec<String> = self
            .judged_blocks()
            .filter(|&block| !self.lacks_information(scores, block))
            .filter_map(|block| {
                let unscored: Vec<&str> = config
                    .criteria
                    .iter()
                    .filter(|&&criterion| !is_scored(block, criterion))
                    .map(|criterion| criterion.as_str())
                    .collect();
                (!unscored.is_empty())
                    .then(|| format!("{} ({})", self.blocks[block], unscored.join(", ")))
            })
            .collect();
        (!gaps.is_empty()).then(|| format!("{} left unscored: {}", config.role, gaps.join(", ")))
    }

    fn lacks_information(&self, scores: &JudgeScores, block: usize) -> bool {
        scores
            .insufficient_information
            .iter()
            .any(|block_id| *block_id == self.blocks[block])
    }

    /// Disagreement on `block`, if it reaches the threshold: first the raw
    /// scores two judges gave the same criterion (a 5 against a 2 on risk is
    /// a split whatever else they scored), then the span of per-judge means,
    /// which is what compares judges whose criteria do not overlap (the
    /// three-judge panel shares none).
    fn disagreement(&self, block: usize) -> Option<String> {
        for criterion in Criterion::ALL {
            let on_it: Vec<&Mark<'_>> = self
                .marks
                .iter()
                .filter(|mark| mark.block == block && mark.criterion == criterion)
                .collect();
            let low = on_it.iter().min_by_key(|mark| mark.score);
            let high = on_it.iter().max_by_key(|mark| mark.score);
            if let (Some(low), Some(high)) = (low, high) {
                let span = f64::from(high.score - low.score);
                if low.seat != high.seat && at_least(span, self.thresholds.disagreement_span) {
                    return Some(format!(
                        "{} {criterion}: {} scored {}, {} scored {}, a span of {} ≥ {}",
                        self.blocks[block],
                        self.role(low),
                        low.score,
                        self.role(high),
                        high.score,
                        number(span),
                        number(self.thresholds.disagreement_span)
                    ));
                }
            }
        }
        let judge_means: Vec<(JudgeRole, f64)> = self
            .present()
            .filter_map(|(seat_index, _)| {
                let judge_mean = mean(
                    self.marks
                        .iter()
                        .filter(|mark| mark.seat == seat_index && mark.block == block)
                        .map(|mark| mark.score),
                )?;
                Some((self.seats[seat_index].config.role, judge_mean))
            })
            .collect();
        let (low_role, low) = judge_means
            .iter()
            .copied()
            .min_by(|a, b| a.1.total_cmp(&b.1))?;
        let (high_role, high) = judge_means
            .iter()
            .copied()
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        let span = high - low;
        at_least(span, self.thresholds.disagreement_span).then(|| {
            format!(
                "{}: judges' means range from {} ({low_role}) to {} ({high_role}), a span of {} ≥ {}",
                self.blocks[block],
                number(low),
                number(high),
                number(span),
                number(self.thresholds.disagreement_span)
            )
        })
    }
}
