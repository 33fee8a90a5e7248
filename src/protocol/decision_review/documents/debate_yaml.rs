//! `debate.yaml` of a decision review: the structured record (DR-43..46),
//! built from the review and read back by `quorum verdict`.
//!
//! Not responsible for the markdown files or the summary (the parent
//! module and [`super::summary`]).

use super::*;
use crate::protocol::Questions;
use crate::protocol::decision_review::stability::Decided;
use crate::protocol::fairness::{Kinship, agreement::Agreement};
use crate::protocol::ruler::{Ruler, several_rulers};

/// The top-level `decision` block of debate.yaml: the fields of the
/// review's mode (RULES.md A13).
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DecisionBlock {
    Architecture(DecisionRecord),
    Comparison(crate::protocol::decision_review::ranking::Ranking),
}

/// The structured record (DR-43..46): the seed's top-level schema, plus the
/// decision record, deferred items, the panel's configuration and the rounds.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct DebateYaml {
    pub meta: Meta,
    pub participants: ParticipantsYaml,
    pub stages: StagesYaml,
    /// The mode's result fields (RULES.md A13): an architecture review's
    /// decision record (DR-50), a comparison's recommendation, ranking and
    /// conditional recommendation (DR-55).
    pub decision: Option<DecisionBlock>,
    /// A comparative review's options, as given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<crate::protocol::decision_review::ReviewOption>,
    #[serde(default)]
    pub deferred_items: Vec<ItemYaml>,
    pub thresholds: Thresholds,
    pub outcome: Option<Outcome>,
    /// What could not be read of the answers, and what that changed
    /// (issue 59); absent when everything was read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<crate::protocol::Unread>,
    /// Tokens, latency and cost; absent until a call has finished.
    pub usage: Option<UsageYaml>,
    /// Did the debate pay (issue 55): the plain vote of the judges' first
    /// round beside the verdict, the changes after it and their cost;
    /// absent until the review decides, and in the writing mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payoff: Option<crate::protocol::payoff::Payoff>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Meta {
    pub topic: String,
    pub mode: String,
    pub timestamp: String,
    pub critique_mode: String,
    pub protocol: String,
    pub high_stakes: bool,
    pub max_rounds: u32,
    pub quorum_version: String,
    /// Items accepted after the verdict wait for another revision and
    /// evaluation round (`quorum resume --reopen`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reopened: bool,
    /// The ids of those items.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reopen_items: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct AgentYaml {
    pub agent: String,
    pub role: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct JudgeYaml {
    pub role: crate::protocol::decision_review::model::JudgeRole,
    /// The analyst chairs the panel: a label only (INF-23).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub chair: bool,
    pub agent: String,
    pub weight: crate::protocol::decision_review::model::Weight,
    pub criteria: Vec<crate::protocol::decision_review::model::Criterion>,
    /// It scores only the final revision and can only stop an ADOPT
    /// (issue 29).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held_out: bool,
    /// Why the library's calibration seated it advisory (issue 55).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ParticipantsYaml {
    pub proposer: AgentYaml,
    pub critic: AgentYaml,
    pub judges: Vec<JudgeYaml>,
}

impl ParticipantsYaml {
    /// The judge that scored only the final revision, if one did.
    pub fn held_out(&self) -> Option<crate::protocol::decision_review::model::JudgeRole> {
        self.judges
            .iter()
            .find(|judge| judge.held_out)
            .map(|judge| judge.role)
    }

    pub fn panel(&self) -> Vec<JudgeConfig> {
        self.judges
            .iter()
            .map(|judge| JudgeConfig {
                role: judge.role,
                weight: judge.weight,
                criteria: judge.criteria.clone(),
            })
            .collect()
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct StagesYaml {
    pub proposal: Option<ProposalYaml>,
    pub critique: Option<CritiqueYaml>,
    pub revision: Option<RevisionYaml>,
    pub evaluation: Option<EvaluationYaml>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ProposalYaml {
    pub thesis_tree: Vec<crate::protocol::decision_review::model::Block>,
    pub raw_output: String,
    /// What quorum read other than as written, when the answer was not in
    /// the exact format (`read target_block "B2" as b2 (critiques[0])`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub normalised: Vec<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct ItemYaml {
    #[serde(flatten)]
    pub item: CritiqueItem,
    #[serialize_always]
    pub decision: Option<ItemDecision>,
    pub note: Option<String>,
    pub decided_at: Option<String>,
    /// Who made the decision (`person`, `caller`, `script` or the policy,
    /// `accept`, …), said only when not every item was ruled by one.
    pub ruled_by: Option<String>,
    /// How a deferred item was settled after the verdict.
    pub resolution: Option<ResolutionYaml>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct ResolutionYaml {
    pub decision: ItemDecision,
    pub note: Option<String>,
    pub at: String,
    /// Who settled it, said as the item's `ruled_by` is.
    pub ruled_by: Option<String>,
    /// The reopened revision round that answered an accepted item with a
    /// change. A decline is no answer: it is in the two fields below.
    pub addressed_in_round: Option<u32>,
    /// The reopened revision round that declined an accepted item, leaving
    /// it unanswered (DR-15, A11); absent from a record written before.
    pub declined_in_round: Option<u32>,
    /// The proposer's reason for that decline.
    pub declined_reason: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct CritiqueYaml {
    pub critiques: Vec<ItemYaml>,
    pub raw_output: String,
    /// What quorum read other than as written, when the answer was not in
    /// the exact format (`read target_block "B2" as b2 (critiques[0])`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub normalised: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct RevisionRoundYaml {
    pub round: u32,
    pub must_address: Vec<String>,
    #[serde(default)]
    pub directives: Vec<crate::protocol::decision_review::NumberedDirective>,
    pub revised_tree: Vec<crate::protocol::decision_review::model::Block>,
    pub change_log: Vec<ChangeEntry>,
    pub raw_output: String,
    /// What quorum read other than as written, when the answer was not in
    /// the exact format (`read target_block "B2" as b2 (critiques[0])`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub normalised: Vec<String>,
    /// Where the kept answer still went against the moderator's rulings
    /// after quorum asked once more.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub against_rulings: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct RevisionYaml {
    /// The latest round's tree and change log, as the seed's schema has them.
    pub revised_tree: Vec<crate::protocol::decision_review::model::Block>,
    pub change_log: Vec<ChangeEntry>,
    pub raw_output: String,
    pub rounds: Vec<RevisionRoundYaml>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct JudgeStatusYaml {
    pub role: crate::protocol::decision_review::model::JudgeRole,
    pub status: String,
    pub reason: Option<String>,
    pub file: Option<String>,
    pub call_id: Option<String>,
    /// What quorum read other than as written, when the answer was not in
    /// the exact format (`read score "4" as 4 (b2 feasibility)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub normalised: Vec<String>,
    /// The blocks in the order this judge read them (fair judging).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_blocks: Vec<String>,
    /// Its criteria in the order it read them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_criteria: Vec<String>,
    /// It shares the proposer's model family: flagged or recused.
    pub kinship: Option<Kinship>,
    /// How long its call ran, to its answer or to giving up: what says
    /// whether a missing judge was the slowest (issue 55).
    #[serde(default)]
    pub took_ms: Option<u64>,
}

/// The stability receipt of the deciding round (issue 55), as
/// `quorum verdict` reads it back.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct StabilityYaml {
    /// `verdict stable in 2 of 3 (variant 2 gave REVISE)`, once done.
    pub summary: Option<String>,
    /// An ADOPT must hold in every variant (a comparison's recommendation).
    #[serde(default)]
    pub required: bool,
    /// The round's verdict and rule before the receipt; a comparison has
    /// no verdict (A15), its rule is its ranking.
    pub verdict: Option<Verdict>,
    /// A comparison's recommendation before the receipt, when it had one.
    pub recommendation: Option<String>,
    pub rule: String,
    pub variants: Vec<VariantYaml>,
}

/// One variant of the receipt.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct VariantYaml {
    pub variant: u32,
    /// What it changed: the reading order drawn (or reversed) and labels.
    pub changed: String,
    pub verdict: Option<Verdict>,
    /// The option a comparison's variant recommended, when it did.
    pub recommendation: Option<String>,
    pub rule: Option<String>,
    pub judges: Vec<JudgeStatusYaml>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize, Deserialize)]
pub struct EvaluationRoundYaml {
    pub round: u32,
    pub block_scores: Vec<BlockScore>,
    pub synthesis_scores: Vec<SynthesisScore>,
    pub verdict: Option<Verdict>,
    pub rule: Option<String>,
    pub synthesis_mean: Option<f64>,
    pub quorum: Option<QuorumStatus>,
    #[serde(default)]
    pub uncertainty: Vec<String>,
    pub judges: Vec<JudgeStatusYaml>,
    /// How far the judges agreed and how many independent votes they were
    /// worth (fair judging; evidence for the reader, not a verdict rule).
    pub agreement: Option<AgreementYaml>,
    /// What masking hid of the authors' self-identification.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<String>,
    /// The binding judges cited and none of it verified: the first that
    /// failed (issue 52); what turns an ADOPT into ESCALATE, and what
    /// `quorum verdict` recomputes with.
    #[serde(default)]
    pub unverified_binding: Option<String>,
    /// The stability receipt, when this round ended the debate and one
    /// was asked for.
    #[serde(default)]
    pub stability: Option<StabilityYaml>,
}

/// [`Agreement`] as `debate.yaml` writes it, with the sentence a reader
/// reads.
#[derive(Debug, Serialize, Deserialize)]
pub struct AgreementYaml {
    pub alpha: Option<f64>,
    pub effective_votes: Option<f64>,
    pub judges: usize,
    pub units: usize,
    pub summary: String,
}

impl From<&Agreement> for AgreementYaml {
    fn from(agreement: &Agreement) -> Self {
        AgreementYaml {
            alpha: agreement.alpha.map(two_places),
            effective_votes: agreement.effective_votes.map(two_places),
            judges: agreement.judges,
            units: agreement.units,
            summary: agreement.summary(),
        }
    }
}

/// A measure as the record keeps it: two decimals are what it can claim.
fn two_places(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(from = "FlatEvaluationYaml")]
pub struct EvaluationYaml {
    /// The final (latest) round, flattened as the seed's schema has it.
    #[serde(flatten)]
    pub latest: EvaluationRoundYaml,
    pub rounds: Vec<EvaluationRoundYaml>,
}

/// [`EvaluationYaml`] as it is read: the latest round's fields spelled
/// out, because a flattened field loses its line (an edited score would be
/// blamed on `evaluation:`, not on the score).
#[derive(Deserialize)]
pub(super) struct FlatEvaluationYaml {
    round: u32,
    block_scores: Vec<BlockScore>,
    synthesis_scores: Vec<SynthesisScore>,
    #[serde(default)]
    verdict: Option<Verdict>,
    #[serde(default)]
    rule: Option<String>,
    #[serde(default)]
    synthesis_mean: Option<f64>,
    #[serde(default)]
    quorum: Option<QuorumStatus>,
    #[serde(default)]
    uncertainty: Vec<String>,
    judges: Vec<JudgeStatusYaml>,
    #[serde(default)]
    agreement: Option<AgreementYaml>,
    #[serde(default)]
    masked: Vec<String>,
    #[serde(default)]
    unverified_binding: Option<String>,
    #[serde(default)]
    stability: Option<StabilityYaml>,
    rounds: Vec<EvaluationRoundYaml>,
}

impl From<FlatEvaluationYaml> for EvaluationYaml {
    fn from(flat: FlatEvaluationYaml) -> Self {
        EvaluationYaml {
            latest: EvaluationRoundYaml {
                round: flat.round,
                block_scores: flat.block_scores,
                synthesis_scores: flat.synthesis_scores,
                verdict: flat.verdict,
                rule: flat.rule,
                synthesis_mean: flat.synthesis_mean,
                quorum: flat.quorum,
                uncertainty: flat.uncertainty,
                judges: flat.judges,
                agreement: flat.agreement,
                masked: flat.masked,
                unverified_binding: flat.unverified_binding,
                stability: flat.stability,
            },
            rounds: flat.rounds,
        }
    }
}

/// `item` as the record keeps it; `name_rulers` when not every item was
/// ruled by one ruler ([`several_rulers`]): only then is it said who ruled.
pub(super) fn item_yaml(
    review: &DecisionReview,
    item: &CritiqueItem,
    name_rulers: bool,
) -> ItemYaml {
    let ruling = review.ruling(&item.id);
    let named = |ruler: Option<Ruler>| {
        ruler
            .filter(|_| name_rulers)
            .map(|ruler| ruler.as_str().to_string())
    };
    ItemYaml {
        item: item.clone(),
        decision: ruling.as_ref().map(|r| r.decision),
        note: ruling.as_ref().and_then(|r| r.note.clone()),
        decided_at: ruling.as_ref().map(|r| timestamp(r.at)),
        ruled_by: named(ruling.as_ref().and_then(|r| r.ruler)),
        resolution: review.resolution(&item.id).map(|resolution| {
            let answer = (resolution.decision == ItemDecision::Accept)
                .then(|| review.answer_to(&item.id))
                .flatten();
            let (addressed_in_round, declined) = match answer {
                Some(ItemAnswer::Changed { round }) => (Some(round), None),
                Some(ItemAnswer::Declined { round, reason }) => (None, Some((round, reason))),
                None => (None, None),
            };
            ResolutionYaml {
                decision: resolution.decision,
                note: resolution.note.clone(),
                at: timestamp(resolution.at),
                ruled_by: named(resolution.ruler),
                addressed_in_round,
                declined_in_round: declined.map(|(round, _)| round),
                declined_reason: declined
                    .map(|(_, reason)| reason.to_string())
                    .filter(|reason| !reason.is_empty()),
            }
        }),
    }
}

pub(super) fn evaluation_round_yaml(
    review: &DecisionReview,
    evaluation: &crate::protocol::decision_review::EvaluationRound,
) -> EvaluationRoundYaml {
    let mut block_scores = Vec::new();
    let mut synthesis_scores = Vec::new();
    let mut judges = Vec::new();
    for judge in &review.config().panel {
        let record = evaluation.judges.get(&judge.role);
        let result = record.and_then(|record| record.result.as_ref());
        let (status, reason) = match result {
            None => ("pending".to_string(), None),
            Some(JudgeResult::Scored(scores)) => {
                block_scores.extend(scores.block_scores.iter().cloned());
                synthesis_scores.push(scores.synthesis.clone());
                ("scored".to_string(), None)
            }
            Some(JudgeResult::Malformed { reason }) => {
                ("malformed".to_string(), Some(reason.clone()))
            }
            Some(JudgeResult::Skipped { reason }) => ("skipped".to_string(), Some(reason.clone())),
            Some(JudgeResult::Recused { reason }) => ("recused".to_string(), Some(reason.clone())),
        };
        let file = judge_file(judge.role, evaluation.round);
        judges.push(judge_status(
            review, judge.role, status, reason, record, file,
        ));
    }
    let assessment = evaluation.assessment.as_ref();
    EvaluationRoundYaml {
        round: evaluation.round,
        block_scores,
        synthesis_scores,
        verdict: assessment.map(|a| a.verdict),
        rule: assessment.map(|a| a.rule.clone()),
        synthesis_mean: assessment.and_then(|a| a.synthesis_mean),
        quorum: assessment.map(|a| a.quorum),
        uncertainty: assessment
            .map(|a| a.uncertainty.clone())
            .unwrap_or_default(),
        judges,
        agreement: evaluation.agreement.as_ref().map(AgreementYaml::from),
        masked: evaluation.masked.clone(),
        unverified_binding: evaluation.unverified_binding.clone(),
        stability: evaluation
            .stability
            .as_ref()
            .map(|run| stability_yaml(review, evaluation.round, run)),
    }
}

/// A judge's status as debate.yaml keeps it; `file` is where its answer
/// is, named when it has one.
fn judge_status(
    review: &DecisionReview,
    role: crate::protocol::decision_review::model::JudgeRole,
    status: String,
    reason: Option<String>,
    record: Option<&crate::protocol::decision_review::JudgeRecord>,
    file: String,
) -> JudgeStatusYaml {
    JudgeStatusYaml {
        role,
        status,
        reason,
        file: record.and_then(|record| record.raw.as_ref()).map(|_| file),
        call_id: record.and_then(|record| record.call_id.clone()),
        normalised: record
            .map(|record| record.normalised.clone())
            .unwrap_or_default(),
        read_blocks: record
            .map(|record| record.block_order.clone())
            .unwrap_or_default(),
        read_criteria: record
            .map(|record| record.criteria_order.clone())
            .unwrap_or_default(),
        kinship: record.and_then(|record| record.kinship.clone()),
        // A debate journaled before issue 55 keeps the record it had.
        took_ms: record
            .filter(|_| review.config().stability.names_missing)
            .and_then(|record| record.elapsed_ms()),
    }
}

/// `status` and `reason` of a judge's result, as debate.yaml words them.
fn status_of(result: Option<&JudgeResult>) -> (String, Option<String>) {
    match result {
        None => ("pending".to_string(), None),
        Some(JudgeResult::Scored(_)) => ("scored".to_string(), None),
        Some(JudgeResult::Malformed { reason }) => ("malformed".to_string(), Some(reason.clone())),
        Some(JudgeResult::Skipped { reason }) => ("skipped".to_string(), Some(reason.clone())),
        Some(JudgeResult::Recused { reason }) => ("recused".to_string(), Some(reason.clone())),
    }
}

fn stability_yaml(
    review: &DecisionReview,
    round: u32,
    run: &crate::protocol::decision_review::stability::StabilityRun,
) -> StabilityYaml {
    use crate::protocol::decision_review::stability::variant_file;
    StabilityYaml {
        summary: run.receipt.as_ref().map(|receipt| receipt.summary()),
        required: review.config().stability.required,
        verdict: run.decided.verdict(),
        recommendation: run.decided.recommendation(),
        rule: run.decided.rule(),
        variants: run
            .variants
            .iter()
            .map(|variant| VariantYaml {
                variant: variant.variant.number,
                changed: variant.variant.describe(),
                verdict: variant.decided.as_ref().and_then(Decided::verdict),
                recommendation: variant.decided.as_ref().and_then(Decided::recommendation),
                rule: variant.decided.as_ref().map(Decided::rule),
                judges: variant
                    .judges
                    .iter()
                    .map(|(role, record)| {
                        let (status, reason) = status_of(record.result.as_ref());
                        let file = variant_file(*role, round, variant.variant.number);
                        judge_status(review, *role, status, reason, Some(record), file)
                    })
                    .collect(),
            })
            .collect(),
    }
}

impl DebateYaml {
    pub fn of(review: &DecisionReview) -> DebateYaml {
        let config: &ReviewConfig = review.config();
        let name_rulers = several_rulers(&review.board_now().items);
        let revision_rounds: Vec<RevisionRoundYaml> = review
            .revisions()
            .iter()
            .map(|revision| RevisionRoundYaml {
                round: revision.round,
                must_address: revision.must_address.clone(),
                directives: revision.directives.clone(),
                revised_tree: revision.output.revised_tree.blocks.clone(),
                change_log: revision.output.change_log.clone(),
                raw_output: revision.raw.clone(),
                normalised: revision.normalised.clone(),
                against_rulings: revision.against_rulings.clone(),
            })
            .collect();
        let evaluation_rounds: Vec<EvaluationRoundYaml> = review
            .evaluations()
            .iter()
            .map(|evaluation| evaluation_round_yaml(review, evaluation))
            .collect();
        let stages = StagesYaml {
            proposal: review.proposal().map(|proposal| ProposalYaml {
                thesis_tree: proposal.parsed.blocks.clone(),
                raw_output: proposal.raw.clone(),
                normalised: proposal.normalised.clone(),
            }),
            critique: review.critique().map(|critique| CritiqueYaml {
                critiques: critique
                    .parsed
                    .items
                    .iter()
                    .map(|item| item_yaml(review, item, name_rulers))
                    .collect(),
                raw_output: critique.raw.clone(),
                normalised: critique.normalised.clone(),
            }),
            revision: review.revisions().last().map(|latest| RevisionYaml {
                revised_tree: latest.output.revised_tree.blocks.clone(),
                change_log: latest.output.change_log.clone(),
                raw_output: latest.raw.clone(),
                rounds: revision_rounds,
            }),
            evaluation: review.evaluations().last().map(|latest| EvaluationYaml {
                latest: evaluation_round_yaml(review, latest),
                rounds: evaluation_rounds,
            }),
        };
        DebateYaml {
            meta: Meta {
                topic: config.topic.clone(),
                mode: config.mode.as_str().to_string(),
                timestamp: config
                    .started_at
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                critique_mode: config.critique_mode.as_str().to_string(),
                protocol: "decision-review".to_string(),
                high_stakes: config.high_stakes,
                max_rounds: config.max_rounds,
                quorum_version: env!("CARGO_PKG_VERSION").to_string(),
                reopened: review.reopen_pending(),
                reopen_items: if review.reopen_pending() {
                    review
                        .awaiting_reopen()
                        .into_iter()
                        .map(|item| item.id.clone())
                        .collect()
                } else {
                    Vec::new()
                },
            },
            options: config.options.clone(),
            participants: ParticipantsYaml {
                proposer: AgentYaml {
                    agent: config.participants.proposer.clone(),
                    role: PROPOSER_ROLE.to_string(),
                },
                critic: AgentYaml {
                    agent: config.participants.critic.clone(),
                    role: CRITIC_ROLE.to_string(),
                },
                judges: config
                    .panel
                    .iter()
                    .map(|judge| JudgeYaml {
                        role: judge.role,
                        chair: crate::protocol::decision_review::model::is_chair(judge.role),
                        agent: config
                            .participants
                            .judges
                            .get(&judge.role)
                            .cloned()
                            .unwrap_or_default(),
                        weight: judge.weight,
                        criteria: judge.criteria.clone(),
                        held_out: config.fairness.holds_out(
                            &crate::protocol::decision_review::judge_slot_role(judge.role),
                        ),
                        calibration: config
                            .calibration
                            .iter()
                            .find(|reseated| reseated.judge == judge.role)
                            .map(crate::protocol::decision_review::model::Reseated::why),
                    })
                    .collect(),
            },
            stages,
            decision: match review
                .evaluations()
                .last()
                .and_then(|evaluation| evaluation.ranking.clone())
            {
                Some(ranking) => Some(DecisionBlock::Comparison(ranking)),
                None => review.decision_record().map(DecisionBlock::Architecture),
            },
            deferred_items: review
                .items_decided(ItemDecision::Defer)
                .into_iter()
                .map(|item| item_yaml(review, item, name_rulers))
                .collect(),
            thresholds: config.thresholds.clone(),
            outcome: review.outcome().cloned(),
            unread: review.core.unread.clone(),
            usage: UsageYaml::of(review.usage_ledger()),
            payoff: review.payoff_section(),
        }
    }
}
