//! The shared vocabulary of a decision review: thesis trees, critique items,
//! revisions, judges and their scores.
//!
//! These are plain data. `parse` produces them from agent text, `protocol`
//! moves them through the stages, `verdict` derives a decision from them and
//! `artifact` writes them out. Nothing here does I/O or knows about stages.

use std::fmt;

use serde::{Deserialize, Serialize};

pub use crate::protocol::judges::{JudgeRole, is_chair};
pub use crate::protocol::{ItemDecision, Verdict};

/// The kind of a thesis block. A closed set (RULES.md A14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockType {
    Claim,
    Implementation,
    Fallback,
}

/// One block of a thesis tree: a claim with its support.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    pub id: String,
    #[serde(rename = "type")]
    pub block_type: BlockType,
    /// The claim itself.
    pub text: String,
    pub evidence: String,
    pub tradeoffs: String,
    /// What could go wrong and how it would be noticed.
    pub risks: String,
    /// In a comparative review, the option this block argues (`A`).
    pub option: Option<String>,
}

/// A proposal decomposed into blocks with unique ids.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThesisTree {
    pub blocks: Vec<Block>,
}

impl ThesisTree {
    pub fn block(&self, id: &str) -> Option<&Block> {
        self.blocks.iter().find(|block| block.id == id)
    }

    pub fn block_ids(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().map(|block| block.id.as_str())
    }
}

/// What kind of flaw a critique item points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlawType {
    Assumption,
    Evidence,
    Risk,
    Feasibility,
}

/// How much a critique item matters. Ordered from most to least severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Major,
    Minor,
    Note,
}

/// One critique item. Ids `c1..cN` are assigned by quorum in the order the
/// critic wrote them (RULES.md A10), never taken from the critic.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CritiqueItem {
    pub id: String,
    pub target_block: String,
    pub flaw_type: FlawType,
    pub severity: Severity,
    pub description: String,
    /// The strongest form of the block, stated first in steelman mode.
    pub steelman: Option<String>,
}

/// How a revision changed a block. `decline` is our addition (RULES.md A11):
/// an explicit refusal with a rationale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeType {
    Strengthen,
    Retract,
    Replace,
    AddFallback,
    Decline,
}

/// One entry of a revision's change log.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeEntry {
    /// A critique id (`c3`) or, from round 2 on, a directive id (`d1`).
    pub addresses_critique: String,
    pub block_id: String,
    pub change_type: ChangeType,
    #[serde(default)]
    pub before: String,
    #[serde(default)]
    pub after: String,
    /// Required for `decline`, optional otherwise.
    pub rationale: Option<String>,
}

/// Stage 3 output: the revised tree and what changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionOutput {
    pub revised_tree: ThesisTree,
    pub change_log: Vec<ChangeEntry>,
}

/// Whether a judge can block ADOPT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Weight {
    Binding,
    Advisory,
}

impl Weight {
    pub fn as_str(self) -> &'static str {
        match self {
            Weight::Binding => "binding",
            Weight::Advisory => "advisory",
        }
    }
}

/// A scoring criterion of a mode's criteria tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    Correctness,
    Feasibility,
    Risk,
    Simplicity,
    Reversibility,
    Clarity,
}

impl Criterion {
    pub const ALL: [Criterion; 6] = [
        Criterion::Correctness,
        Criterion::Feasibility,
        Criterion::Risk,
        Criterion::Simplicity,
        Criterion::Reversibility,
        Criterion::Clarity,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Criterion::Correctness => "correctness",
            Criterion::Feasibility => "feasibility",
            Criterion::Risk => "risk",
            Criterion::Simplicity => "simplicity",
            Criterion::Reversibility => "reversibility",
            Criterion::Clarity => "clarity",
        }
    }

    /// The question a judge answers for this criterion (DR-48), in our words.
    pub fn question(self) -> &'static str {
        match self {
            Criterion::Correctness => "Does this block actually solve the problem as stated?",
            Criterion::Feasibility => "Can it be built with the people, time and tools at hand?",
            Criterion::Risk => {
                "What breaks, and what happens next? (1 = an unacceptable failure with no answer)"
            }
            Criterion::Simplicity => "Is it more complex than the problem needs?",
            Criterion::Reversibility => "If it turns out wrong, how cheaply can it be undone?",
            Criterion::Clarity => "Could the team understand it and keep it working?",
        }
    }

    pub fn parse(name: &str) -> Option<Criterion> {
        Criterion::ALL
            .into_iter()
            .find(|criterion| criterion.as_str().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Criterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One judge of a panel, with its weight and the criteria it scores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeConfig {
    pub role: JudgeRole,
    pub weight: Weight,
    pub criteria: Vec<Criterion>,
}

impl JudgeConfig {
    pub fn new(role: JudgeRole, weight: Weight, criteria: &[Criterion]) -> Self {
        JudgeConfig {
            role,
            weight,
            criteria: criteria.to_vec(),
        }
    }

    pub fn is_binding(&self) -> bool {
        self.weight == Weight::Binding
    }
}

/// The panel for an architecture decision review (DR-47, INF-27, INF-28,
/// RULES.md A1 and A17): the criteria tree decides who scores what.
pub fn architecture_panel(high_stakes: bool) -> Vec<JudgeConfig> {
    use Criterion::*;
    let mut panel = vec![
        JudgeConfig::new(
            JudgeRole::Analyst,
            Weight::Binding,
            &[Correctness, Feasibility, Risk],
        ),
        JudgeConfig::new(
            JudgeRole::Stylist,
            Weight::Advisory,
            &[Reversibility, Clarity],
        ),
        JudgeConfig::new(JudgeRole::Aesthete, Weight::Advisory, &[Simplicity]),
    ];
    if high_stakes {
        panel.push(JudgeConfig::new(
            JudgeRole::Strategist,
            Weight::Binding,
            &[Risk, Reversibility],
        ));
        panel.push(JudgeConfig::new(
            JudgeRole::Empiricist,
            Weight::Advisory,
            &[Correctness, Feasibility],
        ));
    }
    panel
}

/// One judge's score of one block on one criterion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockScore {
    pub block_id: String,
    pub criterion: Criterion,
    pub judge: JudgeRole,
    /// An integer from 1 to 5; anything else makes the judge's output malformed.
    #[serde(deserialize_with = "one_to_five")]
    pub score: u8,
    pub rationale: String,
}

/// One judge's view of the revised proposal as a whole (DR-27).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SynthesisScore {
    pub judge: JudgeRole,
    #[serde(deserialize_with = "one_to_five")]
    pub integration: u8,
    #[serde(deserialize_with = "one_to_five")]
    pub risk_coverage: u8,
    #[serde(deserialize_with = "one_to_five")]
    pub revision_quality: u8,
}

/// A score read back from a record (`debate.yaml`, the journal): an
/// integer from 1 to 5, so an edited 7 is refused where it stands.
fn one_to_five<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u8, D::Error> {
    // Checked in the visitor, so the error points at the number itself.
    struct OneToFive;
    impl serde::de::Visitor<'_> for OneToFive {
        type Value = u8;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a score from 1 to 5")
        }
        fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<u8, E> {
            match u8::try_from(value) {
                Ok(score @ 1..=5) => Ok(score),
                _ => Err(E::invalid_value(
                    serde::de::Unexpected::Unsigned(value),
                    &self,
                )),
            }
        }
        fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<u8, E> {
            match u64::try_from(value) {
                Ok(value) => self.visit_u64(value),
                Err(_) => Err(E::invalid_value(
                    serde::de::Unexpected::Signed(value),
                    &self,
                )),
            }
        }
    }
    deserializer.deserialize_u64(OneToFive)
}

impl SynthesisScore {
    pub fn values(&self) -> [u8; 3] {
        [self.integration, self.risk_coverage, self.revision_quality]
    }
}

/// Everything quorum takes from one judge's valid output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeScores {
    pub block_scores: Vec<BlockScore>,
    pub synthesis: SynthesisScore,
    /// Blocks the judge said it could not score with the information given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub insufficient_information: Vec<String>,
}

/// What became of one judge in one evaluation round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum JudgeResult {
    /// Output parsed; these scores count.
    Scored(JudgeScores),
    /// Output persisted but unusable; excluded from scoring (INF-08).
    Malformed { reason: String },
    /// No usable output after the retry; skipped for this round (INF-13).
    Skipped { reason: String },
    /// Not asked: the judge shares the model family of the author it would
    /// judge, under `recusal: recuse` (issue 29). The quorum counts the
    /// panel without it; a binding judge recused still cannot be done
    /// without, so the verdict cannot be ADOPT.
    Recused { reason: String },
}

impl JudgeResult {
    pub fn scores(&self) -> Option<&JudgeScores> {
        match self {
            JudgeResult::Scored(scores) => Some(scores),
            _ => None,
        }
    }
}

/// The critic's stance for one run (DR-16).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CritiqueMode {
    Strict,
    #[default]
    #[serde(alias = "steelman")]
    GenerousSteelman,
    Neutral,
}

impl CritiqueMode {
    pub fn as_str(self) -> &'static str {
        match self {
            CritiqueMode::Strict => "strict",
            CritiqueMode::GenerousSteelman => "generous-steelman",
            CritiqueMode::Neutral => "neutral",
        }
    }
}

/// Findings handed on from another debate (`--from DIR`), and which kind
/// of debate: critique items `f1`, `f2`, … after the critic's own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandedItems {
    /// `council`, `red team`, `pre-mortem`.
    pub from: String,
    pub findings: Vec<crate::protocol::handoff::HandedFinding>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// INF-27, INF-28: three judges by default, five when the stakes are high,
    /// with the analyst and strategist binding.
    #[test]
    fn inf_27_inf_28_decision_review_panels() {
        let default = architecture_panel(false);
        assert_eq!(default.len(), 3);
        assert_eq!(
            default
                .iter()
                .filter(|judge| judge.is_binding())
                .map(|judge| judge.role)
                .collect::<Vec<_>>(),
            [JudgeRole::Analyst]
        );
        let high = architecture_panel(true);
        assert_eq!(high.len(), 5);
        assert_eq!(
            high.iter()
                .filter(|judge| judge.is_binding())
                .map(|judge| judge.role)
                .collect::<Vec<_>>(),
            [JudgeRole::Analyst, JudgeRole::Strategist]
        );
    }

    /// INF-24, RULES.md A17: strategist and empiricist only in high-stakes
    /// panels, with the default criteria quorum gives them.
    #[test]
    fn inf_24_high_stakes_judges_and_their_criteria() {
        assert!(
            architecture_panel(false)
                .iter()
                .all(|judge| !matches!(judge.role, JudgeRole::Strategist | JudgeRole::Empiricist))
        );
        let high = architecture_panel(true);
        let criteria = |role| {
            high.iter()
                .find(|judge| judge.role == role)
                .unwrap()
                .criteria
                .clone()
        };
        assert_eq!(
            criteria(JudgeRole::Strategist),
            [Criterion::Risk, Criterion::Reversibility]
        );
        assert_eq!(
            criteria(JudgeRole::Empiricist),
            [Criterion::Correctness, Criterion::Feasibility]
        );
    }

    /// DR-47: the architecture criteria tree decides who scores what.
    #[test]
    fn dr_47_architecture_criteria_tree() {
        let panel = architecture_panel(false);
        let criteria = |role| {
            panel
                .iter()
                .find(|judge| judge.role == role)
                .unwrap()
                .criteria
                .clone()
        };
        assert_eq!(
            criteria(JudgeRole::Analyst),
            [
                Criterion::Correctness,
                Criterion::Feasibility,
                Criterion::Risk
            ]
        );
        assert_eq!(criteria(JudgeRole::Aesthete), [Criterion::Simplicity]);
        assert_eq!(
            criteria(JudgeRole::Stylist),
            [Criterion::Reversibility, Criterion::Clarity]
        );
    }
}
