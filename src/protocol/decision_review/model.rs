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

/// A binding judge seated advisory by the library's calibration (issue
/// 55): its agreement with the moderator, over enough labels, fell below
/// the configured floor. Decided once when the debate was prepared and
/// recorded in its definition, so resume and replay seat alike without
/// reading the library.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reseated {
    pub judge: JudgeRole,
    /// Who plays it, `provider:model`.
    pub agent: String,
    /// Cohen's kappa of its labels against the moderator's rulings.
    pub kappa: f64,
    pub labels: u64,
    /// The share of those items the person accepted.
    pub base_rate: f64,
    /// The configured floor (`calibration.judge_kappa_floor`).
    pub floor: f64,
}

impl Reseated {
    /// Why, in one sentence: `judge.analyst (openai:gpt-x) is seated
    /// advisory: its agreement with the moderator in the library, kappa
    /// 0.05 over 24 labels (base rate 0.58), is below the floor 0.20`.
    pub fn why(&self) -> String {
        format!(
            "judge.{} ({}) is seated advisory instead of binding: its agreement with the moderator \
             in the library, kappa {:.2} over {} labels (base rate {:.2}), is below the floor {:.2}",
            self.judge.as_str(),
            self.agent,
            self.kappa,
            self.labels,
            self.base_rate,
            self.floor
        )
    }
}

pub use crate::protocol::kind::JudgeFigure;

/// Seats advisory every binding judge of `panel` whose figure has at least
/// `min_labels` labels and a kappa below `floor` (JM-28); `figure_of` gives
/// a judge's figure and agent. A panel keeps one binding judge (DR-37):
/// when every binding judge falls below the floor, the one that agrees
/// best stays binding. What was reseated, to record.
pub fn reseat_below_floor(
    panel: &mut [JudgeConfig],
    floor: f64,
    min_labels: u64,
    figure_of: &dyn Fn(JudgeRole) -> Option<(String, JudgeFigure)>,
) -> Vec<Reseated> {
    let mut below: Vec<Reseated> = panel
        .iter()
        .filter(|judge| judge.is_binding())
        .filter_map(|judge| {
            let (agent, (kappa, labels, base_rate)) = figure_of(judge.role)?;
            let kappa = kappa?;
            (labels >= min_labels && kappa < floor).then_some(Reseated {
                judge: judge.role,
                agent,
                kappa,
                labels,
                base_rate,
                floor,
            })
        })
        .collect();
    let binding = panel.iter().filter(|judge| judge.is_binding()).count();
    if !below.is_empty() && below.len() == binding {
        let best = below
            .iter()
            .enumerate()
            .max_by(|(_, a), (_, b)| a.kappa.total_cmp(&b.kappa))
            .map(|(place, _)| place);
        if let Some(place) = best {
            below.remove(place);
        }
    }
    for reseated in &below {
        for judge in panel
            .iter_mut()
            .filter(|judge| judge.role == reseated.judge)
        {
            judge.weight = Weight::Advisory;
        }
    }
    below
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

#[cfg(test)]
mod calibration_tests {
    use super::*;

    fn figures(
        table: &'static [(JudgeRole, Option<f64>, u64)],
    ) -> impl Fn(JudgeRole) -> Option<(String, JudgeFigure)> {
        move |role| {
            table
                .iter()
                .find(|(judge, _, _)| *judge == role)
                .map(|(judge, kappa, labels)| {
                    (format!("p:{}", judge.as_str()), (*kappa, *labels, 0.6))
                })
        }
    }

    fn weights(panel: &[JudgeConfig]) -> Vec<(JudgeRole, Weight)> {
        panel
            .iter()
            .map(|judge| (judge.role, judge.weight))
            .collect()
    }

    /// JM-28: a binding judge whose kappa is below the floor over at least
    /// `min_labels` labels is seated advisory, with its figure recorded; one
    /// with too few labels, an undefined kappa, or a kappa at the floor
    /// keeps its seat; an advisory judge is never touched; and the panel
    /// keeps one binding judge, the one that agrees best.
    #[test]
    fn jm_28_a_binding_judge_below_the_floor_is_seated_advisory() {
        let mut panel = architecture_panel(true);
        let reseated = reseat_below_floor(
            &mut panel,
            0.2,
            20,
            &figures(&[
                (JudgeRole::Analyst, Some(0.05), 25),
                (JudgeRole::Strategist, Some(0.9), 25),
                (JudgeRole::Stylist, Some(-0.5), 99),
            ]),
        );
        assert_eq!(reseated.len(), 1);
        assert_eq!(reseated[0].judge, JudgeRole::Analyst);
        assert_eq!(reseated[0].agent, "p:analyst");
        assert_eq!((reseated[0].labels, reseated[0].floor), (25, 0.2));
        let why = reseated[0].why();
        assert!(
            why.contains("judge.analyst (p:analyst) is seated advisory"),
            "{why}"
        );
        assert!(
            why.contains("kappa 0.05 over 25 labels (base rate 0.60)"),
            "{why}"
        );
        assert!(why.contains("below the floor 0.20"), "{why}");
        let after = weights(&panel);
        assert!(after.contains(&(JudgeRole::Analyst, Weight::Advisory)));
        assert!(after.contains(&(JudgeRole::Strategist, Weight::Binding)));

        for table in [
            &[(JudgeRole::Analyst, Some(0.05), 19)][..],
            &[(JudgeRole::Analyst, None, 50)][..],
            &[(JudgeRole::Analyst, Some(0.2), 50)][..],
        ] {
            let table: &'static [(JudgeRole, Option<f64>, u64)] = Box::leak(table.to_vec().into());
            let mut panel = architecture_panel(true);
            let before = weights(&panel);
            assert!(reseat_below_floor(&mut panel, 0.2, 20, &figures(table)).is_empty());
            assert_eq!(weights(&panel), before);
        }

        // Every binding judge below: the best of them stays binding.
        let mut panel = architecture_panel(true);
        let reseated = reseat_below_floor(
            &mut panel,
            0.5,
            10,
            &figures(&[
                (JudgeRole::Analyst, Some(0.1), 30),
                (JudgeRole::Strategist, Some(0.3), 30),
            ]),
        );
        assert_eq!(
            reseated.iter().map(|r| r.judge).collect::<Vec<_>>(),
            [JudgeRole::Analyst]
        );
        assert!(weights(&panel).contains(&(JudgeRole::Strategist, Weight::Binding)));
        assert!(panel.iter().any(JudgeConfig::is_binding));
    }
}
