//! The ranking of a comparative decision review (DR-52..DR-55, RULES.md
//! A15), derived from the judges' individual scores, never from an agent's
//! own ranking.
//!
//! Every option is argued as blocks of one thesis tree, each block naming
//! its option, and every judge scores every block on its own criteria, so
//! every option is scored on the same criteria tree (DR-52). Then:
//!
//! - an option's score on a criterion is the mean of every score any judge
//!   gave that criterion on any of the option's blocks;
//! - an option has a dealbreaker when a judge whose criteria include risk
//!   scored one of its blocks at most `dealbreaker_max` on risk (DR-31, A1);
//! - options without a dealbreaker come first, ordered by the mean of their
//!   scores on the binding judges' criteria (ties: the mean on every
//!   criterion, then the order the options were given in); options with a
//!   dealbreaker come last, in the same order among themselves;
//! - each criterion also orders the options on its own (DR-54: per
//!   criterion, not by overall eloquence);
//! - the recommendation is the first option without a dealbreaker (none
//!   when every option has one), and the condition that would change it is
//!   the criterion on which the runner-up leads the recommendation by the
//!   widest margin.
//!
//! There is no ADOPT/REVISE/REJECT/ESCALATE here (A15): a comparison ends
//! with a recommendation, not a verdict. [`rank_tree`] is the one
//! derivation of it: for the real round, for each variant of its stability
//! receipt (issue 55) and for `quorum verdict DIR`; under
//! `require_stability` a recommendation that did not hold in every variant
//! is withdrawn ([`with_stability`]), the ranking kept.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::model::{Criterion, JudgeConfig, JudgeResult, JudgeRole, ThesisTree};
use super::verdict::{SCORE_EPSILON, Thresholds};
use crate::protocol::stability::{Guard, Receipt};

/// One option's place in the ranking.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankedOption {
    /// The option's id: `A`.
    pub option: String,
    /// The mean score per criterion that any judge scored on its blocks.
    pub scores: BTreeMap<Criterion, f64>,
    /// The mean over the binding judges' criteria, what orders the ranking.
    #[serialize_always]
    pub binding_mean: Option<f64>,
    /// Why the option cannot be recommended, when it cannot:
    /// `b4 risk 1 (analyst): the migration has no way back`.
    pub dealbreaker: Option<String>,
}

/// The result of a comparison (DR-55).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    /// The first option without a dealbreaker; none when all have one.
    pub recommendation: Option<String>,
    /// Best first, options with a dealbreaker last.
    pub ranking: Vec<RankedOption>,
    /// Each criterion's own order of the options, best first.
    pub per_criterion: BTreeMap<Criterion, Vec<String>>,
    /// Every option ruled out, with why: `B: b2 risk 1 (analyst): …`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dealbreaker: Vec<String>,
    /// "Choose A unless …": what would change the recommendation.
    pub conditional_recommendation: String,
    /// Why no option is recommended though one ranked first without a
    /// dealbreaker: the stability receipt's requirement, as a rule
    /// (`the recommendation of A held in only 2 of 3 … → no option
    /// recommended`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn: Option<String>,
}

impl Ranking {
    /// The ranking in one line, as a rule: `ranking A > C > B; Choose A
    /// unless risk matters most: there C is stronger.`
    pub fn rule(&self) -> String {
        let order: Vec<&str> = self
            .ranking
            .iter()
            .map(|option| option.option.as_str())
            .collect();
        format!(
            "ranking {}; {}",
            order.join(" > "),
            self.conditional_recommendation
        )
    }
}

/// Ranks `options` (ids, in the order given) from the judges' scores of
/// `tree`'s blocks, each block arguing the option it names: the
/// comparison's ranking of its deciding round, of each variant of its
/// stability receipt, and of `quorum verdict DIR`, all from this one
/// function.
pub fn rank_tree(
    options: &[String],
    tree: &ThesisTree,
    panel: &[JudgeConfig],
    results: &BTreeMap<JudgeRole, JudgeResult>,
    thresholds: &Thresholds,
) -> Ranking {
    let block_option: BTreeMap<String, String> = tree
        .blocks
        .iter()
        .filter_map(|block| Some((block.id.clone(), block.option.clone()?)))
        .collect();
    rank(options, &block_option, panel, results, thresholds)
}

/// `ranking` with the stability receipt (issue 55): under the requirement
/// (`required`) a recommendation that did not hold in every variant is
/// withdrawn: no option is recommended, the rule says why, and the
/// ranking itself stays as the judges' scores gave it.
pub fn with_stability(mut ranking: Ranking, receipt: &Receipt, required: bool) -> Ranking {
    let Some(rule) = required
        .then(|| receipt.requirement_rule(Guard::Recommendation))
        .flatten()
    else {
        return ranking;
    };
    if let Some(option) = ranking.recommendation.take() {
        ranking.conditional_recommendation = format!(
            "{option} was recommended in only {} of {} readings in other orders, and this comparison asked for all {}: no option is recommended.",
            receipt.stable(),
            receipt.variants.len(),
            receipt.variants.len()
        );
        ranking.withdrawn = Some(rule);
    }
    ranking
}

/// Ranks `options` (ids, in the order given) from the judges' scores of
/// the blocks in `block_option` (block id → option id).
fn rank(
    options: &[String],
    block_option: &BTreeMap<String, String>,
    panel: &[JudgeConfig],
    results: &BTreeMap<JudgeRole, JudgeResult>,
    thresholds: &Thresholds,
) -> Ranking {
    let binding_criteria: Vec<Criterion> = panel
        .iter()
        .filter(|judge| judge.is_binding())
        .flat_map(|judge| judge.criteria.iter().copied())
        .collect();
    let risk_judges: Vec<JudgeRole> = panel
        .iter()
        .filter(|judge| judge.criteria.contains(&Criterion::Risk))
        .map(|judge| judge.role)
        .collect();
    let mut ranked: Vec<(usize, RankedOption, f64)> = options
        .iter()
        .enumerate()
        .map(|(order, option)| {
            let mut sums: BTreeMap<Criterion, (u32, u32)> = BTreeMap::new();
            let mut dealbreaker: Option<(u8, String)> = None;
            for (role, result) in results {
                let Some(scores) = result.scores() else {
                    continue;
                };
                if !panel.iter().any(|judge| judge.role == *role) {
                    continue;
                }
                for score in &scores.block_scores {
                    if block_option.get(&score.block_id) != Some(option) {
                        continue;
                    }
                    let entry = sums.entry(score.criterion).or_default();
                    entry.0 += u32::from(score.score);
                    entry.1 += 1;
                    let lowest_yet = dealbreaker
                        .as_ref()
                        .is_none_or(|(low, _)| score.score < *low);
                    if score.criterion == Criterion::Risk
                        && score.score <= thresholds.dealbreaker_max
                        && risk_judges.contains(role)
                        && lowest_yet
                    {
                        dealbreaker = Some((
                            score.score,
                            format!(
                                "{} risk {} ({role}): {}",
                                score.block_id,
                                score.score,
                                score.rationale.trim()
                            ),
                        ));
                    }
                }
            }
            let scores: BTreeMap<Criterion, f64> = sums
                .into_iter()
                .map(|(criterion, (sum, count))| (criterion, f64::from(sum) / f64::from(count)))
                .collect();
            let binding_mean = mean(
                scores
                    .iter()
                    .filter(|(criterion, _)| binding_criteria.contains(criterion))
                    .map(|(_, score)| *score),
            );
            let overall = mean(scores.values().copied()).unwrap_or(0.0);
            (
                order,
                RankedOption {
                    option: option.clone(),
                    scores,
                    binding_mean,
                    dealbreaker: dealbreaker.map(|(_, reason)| reason),
                },
                overall,
            )
        })
        .collect();
    ranked.sort_by(|(order_a, a, overall_a), (order_b, b, overall_b)| {
        a.dealbreaker
            .is_some()
            .cmp(&b.dealbreaker.is_some())
            .then_with(|| {
                b.binding_mean
                    .unwrap_or(0.0)
                    .total_cmp(&a.binding_mean.unwrap_or(0.0))
            })
            .then_with(|| overall_b.total_cmp(overall_a))
            .then_with(|| order_a.cmp(order_b))
    });
    let ranking: Vec<RankedOption> = ranked.into_iter().map(|(_, option, _)| option).collect();
    let per_criterion = Criterion::ALL
        .iter()
        .filter(|criterion| {
            ranking
                .iter()
                .any(|option| option.scores.contains_key(criterion))
        })
        .map(|&criterion| {
            let mut order: Vec<&RankedOption> = ranking.iter().collect();
            // A stable sort keeps the overall order among equals.
            order.sort_by(|a, b| {
                let score = |option: &RankedOption| option.scores.get(&criterion).copied();
                score(b).unwrap_or(0.0).total_cmp(&score(a).unwrap_or(0.0))
            });
            (
                criterion,
                order.iter().map(|option| option.option.clone()).collect(),
            )
        })
        .collect();
    // An option nobody scored (its blocks could not be read) is never
    // recommended: nothing was weighed for it (issue 59).
    let recommendation = ranking
        .iter()
        .find(|option| option.dealbreaker.is_none() && !option.scores.is_empty())
        .map(|option| option.option.clone());
    let conditional_recommendation = condition(&ranking, recommendation.as_deref());
    let dealbreaker = ranking
        .iter()
        .filter_map(|option| {
            Some(format!(
                "{}: {}",
                option.option,
                option.dealbreaker.as_deref()?
            ))
        })
        .collect();
    Ranking {
        recommendation,
        ranking,
        per_criterion,
        dealbreaker,
        conditional_recommendation,
        withdrawn: None,
    }
}

/// "Choose A unless …", from the runner-up's widest lead over the
/// recommendation on one criterion.
fn condition(ranking: &[RankedOption], recommendation: Option<&str>) -> String {
    let Some(chosen) = recommendation.and_then(|id| ranking.iter().find(|o| o.option == id)) else {
        return "No option can be recommended: every one has a dealbreaker.".to_string();
    };
    let runner_up = ranking
        .iter()
        .find(|option| option.option != chosen.option && option.dealbreaker.is_none());
    let Some(runner_up) = runner_up else {
        return format!(
            "Choose {}: every other option has a dealbreaker.",
            chosen.option
        );
    };
    let widest = runner_up
        .scores
        .iter()
        .filter_map(|(criterion, theirs)| {
            let ours = chosen.scores.get(criterion)?;
            (theirs - ours > SCORE_EPSILON).then_some((*criterion, theirs - ours, *theirs, *ours))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1));
    // In words a reader needs no scores for (RF-06): the numbers are in
    // the ranking itself.
    match widest {
        Some((criterion, _, _, _)) => format!(
            "Choose {} unless {criterion} matters most: there {} is stronger.",
            chosen.option, runner_up.option
        ),
        None => format!(
            "Choose {}: {} leads it on no criterion.",
            chosen.option, runner_up.option
        ),
    }
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, count) = values.fold((0.0, 0u32), |(sum, count), value| (sum + value, count + 1));
    (count > 0).then(|| sum / f64::from(count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decision_review::model::{
        BlockScore, JudgeScores, SynthesisScore, architecture_panel,
    };

    use Criterion::*;
    use JudgeRole::*;

    /// Options A, B, C with blocks a1/a2, b1, c1.
    fn blocks() -> BTreeMap<String, String> {
        [("a1", "A"), ("a2", "A"), ("b1", "B"), ("c1", "C")]
            .into_iter()
            .map(|(block, option)| (block.to_string(), option.to_string()))
            .collect()
    }

    fn options() -> Vec<String> {
        ["A", "B", "C"].map(str::to_string).to_vec()
    }

    /// Every judge of the architecture panel scores every block `score` on
    /// its criteria, except where `set` says otherwise.
    fn results(
        score: u8,
        set: &[(JudgeRole, &str, Criterion, u8)],
    ) -> BTreeMap<JudgeRole, JudgeResult> {
        architecture_panel(false)
            .iter()
            .map(|judge| {
                let block_scores = blocks()
                    .keys()
                    .flat_map(|block| {
                        judge.criteria.iter().map(move |criterion| BlockScore {
                            block_id: block.clone(),
                            criterion: *criterion,
                            judge: judge.role,
                            score: set
                                .iter()
                                .find(|(role, b, c, _)| {
                                    *role == judge.role && b == block && c == criterion
                                })
                                .map_or(score, |(_, _, _, s)| *s),
                            rationale: format!("{} on {block}", judge.role),
                        })
                    })
                    .collect();
                let scores = JudgeScores {
                    block_scores,
                    synthesis: SynthesisScore {
                        judge: judge.role,
                        integration: 4,
                        risk_coverage: 4,
                        revision_quality: 4,
                    },
                    insufficient_information: Vec::new(),
                };
                (judge.role, JudgeResult::Scored(scores))
            })
            .collect()
    }

    fn ranked(results: &BTreeMap<JudgeRole, JudgeResult>) -> Ranking {
        rank(
            &options(),
            &blocks(),
            &architecture_panel(false),
            results,
            &Thresholds::default(),
        )
    }

    fn order(ranking: &Ranking) -> Vec<&str> {
        ranking
            .ranking
            .iter()
            .map(|option| option.option.as_str())
            .collect()
    }

    /// DR-52, A15: every option is scored on the same criteria, each score
    /// the mean of every judge's scores on the option's blocks.
    #[test]
    fn dr_52_a15_every_option_gets_a_mean_per_criterion() {
        let ranking = ranked(&results(4, &[(Analyst, "a1", Risk, 2)]));
        for option in &ranking.ranking {
            let criteria: Vec<Criterion> = option.scores.keys().copied().collect();
            assert_eq!(criteria.len(), 6, "{option:?}");
        }
        let a = &ranking.ranking.iter().find(|o| o.option == "A").unwrap();
        assert_eq!(a.scores[&Risk], 3.0, "(2 + 4) / 2");
    }

    /// DR-54, A15: options are ordered by their binding criteria, and each
    /// criterion orders them on its own.
    #[test]
    fn dr_54_options_rank_by_binding_criteria_and_per_criterion() {
        let ranking = ranked(&results(
            3,
            &[
                (Analyst, "b1", Correctness, 5),
                (Analyst, "b1", Feasibility, 5),
                (Stylist, "c1", Clarity, 5),
                (Aesthete, "c1", Simplicity, 5),
            ],
        ));
        // B leads on the analyst's (binding) criteria; C's lead is advisory.
        assert_eq!(order(&ranking), ["B", "C", "A"]);
        assert_eq!(ranking.per_criterion[&Clarity][0], "C");
        assert_eq!(ranking.per_criterion[&Correctness][0], "B");
        assert_eq!(ranking.recommendation.as_deref(), Some("B"));
    }

    /// DR-55, A15: an option with a dealbreaker ranks last and is never the
    /// recommendation, however well it scores otherwise; the condition
    /// names where the runner-up leads.
    #[test]
    fn dr_55_a_dealbreaker_ranks_last_and_the_condition_names_the_runner_up() {
        let ranking = ranked(&results(
            3,
            &[
                (Analyst, "a1", Correctness, 5),
                (Analyst, "a2", Correctness, 5),
                (Analyst, "a2", Risk, 1),
                (Analyst, "c1", Correctness, 4),
                (Stylist, "b1", Clarity, 5),
            ],
        ));
        assert_eq!(order(&ranking), ["C", "B", "A"]);
        let a = ranking.ranking.last().unwrap();
        assert_eq!(
            a.dealbreaker.as_deref(),
            Some("a2 risk 1 (analyst): analyst on a2")
        );
        assert_eq!(ranking.recommendation.as_deref(), Some("C"));
        assert_eq!(
            ranking.conditional_recommendation,
            "Choose C unless clarity matters most: there B is stronger."
        );
    }

    #[test]
    fn with_every_option_dealbroken_nothing_is_recommended() {
        let ranking = ranked(&results(
            3,
            &[
                (Analyst, "a1", Risk, 1),
                (Analyst, "b1", Risk, 1),
                (Analyst, "c1", Risk, 1),
            ],
        ));
        assert_eq!(ranking.recommendation, None);
        assert_eq!(order(&ranking), ["A", "B", "C"], "given order among equals");
        assert!(ranking.conditional_recommendation.starts_with("No option"));
    }

    /// JM-52: `rank_tree` reads which option each block argues from the
    /// tree itself and ranks as `rank` does; the rule names the order and
    /// the condition.
    #[test]
    fn jm_52_the_tree_says_which_option_each_block_argues() {
        use crate::protocol::decision_review::model::{Block, BlockType};
        let tree = ThesisTree {
            blocks: blocks()
                .into_iter()
                .map(|(id, option)| Block {
                    id,
                    block_type: BlockType::Claim,
                    text: String::new(),
                    evidence: String::new(),
                    tradeoffs: String::new(),
                    risks: String::new(),
                    option: Some(option),
                })
                .collect(),
        };
        let results = results(3, &[(Analyst, "b1", Correctness, 5)]);
        let from_tree = rank_tree(
            &options(),
            &tree,
            &architecture_panel(false),
            &results,
            &Thresholds::default(),
        );
        assert_eq!(from_tree, ranked(&results));
        assert_eq!(
            from_tree.rule(),
            "ranking B > A > C; Choose B: A leads it on no criterion."
        );
    }

    /// JM-53: under `require_stability` a recommendation that did not hold
    /// in every variant is withdrawn, the ranking kept and the rule in
    /// words; one that held, or a receipt not required, leaves it as is.
    #[test]
    fn jm_53_require_stability_withdraws_an_unstable_recommendation() {
        use crate::protocol::stability::{Counted, VariantVerdict};
        let ranking = ranked(&results(3, &[(Analyst, "b1", Correctness, 5)]));
        let receipt = |second: Option<&str>| Receipt {
            counts: Counted::Recommendation,
            verdict: Some("B".into()),
            variants: [Some("B"), second]
                .into_iter()
                .enumerate()
                .map(|(index, option)| VariantVerdict {
                    variant: index as u32 + 1,
                    verdict: option.map(str::to_string),
                    rule: String::new(),
                })
                .collect(),
        };
        let unstable = receipt(Some("A"));
        assert_eq!(
            with_stability(ranking.clone(), &unstable, false),
            ranking,
            "not required: it stands"
        );
        assert_eq!(
            with_stability(ranking.clone(), &receipt(Some("B")), true),
            ranking,
            "it held"
        );
        let withdrawn = with_stability(ranking.clone(), &unstable, true);
        assert_eq!(withdrawn.recommendation, None);
        assert_eq!(withdrawn.ranking, ranking.ranking, "the ranking stays");
        assert_eq!(
            withdrawn.withdrawn.as_deref(),
            Some(
                "the recommendation of B held in only 1 of 2 re-judged variants, and require_stability asks for all 2 (variant 2 recommended A) → no option recommended"
            )
        );
        assert_eq!(
            withdrawn.conditional_recommendation,
            "B was recommended in only 1 of 2 readings in other orders, and this comparison asked for all 2: no option is recommended."
        );
    }

    /// A missing judge's scores are simply absent; an option no judge
    /// scored has no scores and ranks after those that were.
    #[test]
    fn a_judge_without_scores_counts_for_nothing() {
        let mut results = results(4, &[(Analyst, "b1", Correctness, 5)]);
        results.insert(
            Stylist,
            JudgeResult::Skipped {
                reason: "timed out".into(),
            },
        );
        let ranking = ranked(&results);
        assert_eq!(ranking.recommendation.as_deref(), Some("B"));
        assert!(!ranking.ranking[0].scores.contains_key(&Clarity));
    }
}
