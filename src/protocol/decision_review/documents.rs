//! The files of a decision review (DESIGN.md section 4; RULES.md DR-41..46):
//! `proposal.md`, `critique.md`, `revision.md`, `judges/judge-{role}[-round-N].md`,
//! `debate.yaml`, `transcript.md` and the reader-first `summary.md`.
//!
//! Audit files keep every process detail (RF-02); `summary.md` opens with the
//! result in plain language and keeps judge names, block ids and scores out of
//! its opening (RF-04..06). The end-of-run message printed by the CLI is the
//! opening of `summary.md`, word for word (RF-07, RF-10).

use serde::{Deserialize, Serialize};

use super::model::{
    BlockScore, ChangeEntry, CritiqueItem, ItemDecision, JudgeConfig, JudgeResult, SynthesisScore,
    ThesisTree, Verdict,
};
use super::record::main_claim;
use super::verdict::{Assessment, Check, QuorumStatus, Thresholds};
use super::{
    CRITIC_ROLE, DecisionRecord, DecisionReview, PROPOSER_ROLE, ReviewConfig, item_ids, judge_file,
    superseded_judge_file,
};
use crate::protocol::{Document, Outcome, Protocol};
use crate::report::{UsageYaml, fenced, log_lines, one_line, timestamp, usage_line, usage_md};

/// The decision review's reader-first deliverable (RF-19, RULES.md A19).
pub const SUMMARY_FILE: &str = "summary.md";

/// Every file of the tree that has content yet.
pub fn documents(review: &DecisionReview) -> Vec<Document> {
    let mut documents = Vec::new();
    let push = |documents: &mut Vec<Document>, path: &str, contents: String| {
        documents.push(Document::new(path.to_string(), contents))
    };
    if let Some(proposal) = proposal_md(review) {
        push(&mut documents, "proposal.md", proposal);
    }
    if let Some(critique) = critique_md(review) {
        push(&mut documents, "critique.md", critique);
    }
    if let Some(revision) = revision_md(review) {
        push(&mut documents, "revision.md", revision);
    }
    for evaluation in review.evaluations() {
        for (role, record) in &evaluation.judges {
            for old in &record.superseded {
                let Some(raw) = &old.raw else { continue };
                documents.push(Document::raw(
                    superseded_judge_file(*role, evaluation.round, old.attempt),
                    format!(
                        "<!-- MALFORMED: {} (replaced by a re-run) -->\n{raw}",
                        crate::text::sanitize(&one_line(&old.reason)).replace("--", "- -")
                    ),
                ));
            }
            let Some(raw) = &record.raw else { continue };
            let contents = match &record.result {
                Some(JudgeResult::Malformed { reason }) => {
                    format!(
                        "<!-- MALFORMED: {} -->\n{raw}",
                        crate::text::sanitize(&one_line(reason)).replace("--", "- -")
                    )
                }
                _ => raw.clone(),
            };
            documents.push(Document::raw(judge_file(*role, evaluation.round), contents));
        }
    }
    push(
        &mut documents,
        "debate.yaml",
        yaml_serde::to_string(&DebateYaml::of(review)).unwrap_or_default(),
    );
    push(&mut documents, "transcript.md", transcript_md(review));
    if let Some(summary) = summary_md(review) {
        push(&mut documents, "summary.md", summary);
    }
    documents
}

// ---- proposal, critique, revision ---------------------------------------

fn tree_md(tree: &ThesisTree) -> String {
    let mut out = String::new();
    for block in &tree.blocks {
        out.push_str(&format!(
            "### {} ({}{})\n\n{}\n\n- **Evidence:** {}\n- **Tradeoffs:** {}\n- **Risks:** {}\n\n",
            block.id,
            yaml_word(&block.block_type),
            block
                .option
                .as_deref()
                .map(|option| format!(", option {option}"))
                .unwrap_or_default(),
            block.text.trim(),
            one_line(&block.evidence),
            one_line(&block.tradeoffs),
            one_line(&block.risks)
        ));
    }
    out
}

fn malformed_sections(review: &DecisionReview, stage: &str) -> String {
    let mut out = String::new();
    for malformed in review.malformed().iter().filter(|m| m.stage == stage) {
        out.push_str(&format!(
            "## Unusable output `{}` ({})\n\n<!-- MALFORMED: {} -->\n\n{}\n",
            malformed.call_id,
            timestamp(malformed.at),
            one_line(&malformed.reason).replace("--", "- -"),
            fenced(&malformed.raw, "text")
        ));
    }
    out
}

fn proposal_md(review: &DecisionReview) -> Option<String> {
    let malformed = malformed_sections(review, "proposal");
    let proposal = review.proposal();
    if proposal.is_none() && malformed.is_empty() {
        return None;
    }
    let mut out = format!(
        "# Proposal — stage 1\n\nTopic: {}\n\n",
        one_line(&review.config().topic)
    );
    if let Some(proposal) = proposal {
        out.push_str(&format!(
            "## Raw output `{}` ({})\n\n{}\n## Thesis tree\n\n{}",
            proposal.call_id,
            timestamp(proposal.at),
            fenced(&proposal.raw, "text"),
            tree_md(&proposal.parsed)
        ));
    }
    out.push_str(&malformed);
    Some(out)
}

fn decision_word(decision: ItemDecision) -> &'static str {
    match decision {
        ItemDecision::Accept => "ACCEPTED",
        ItemDecision::Reject => "REJECTED",
        ItemDecision::Defer => "DEFERRED",
    }
}

fn decision_label(review: &DecisionReview, item: &CritiqueItem) -> String {
    let Some(ruling) = review.ruling(&item.id) else {
        return "**undecided**".to_string();
    };
    let word = decision_word(ruling.decision);
    let mut label = match &ruling.note {
        Some(note) => format!(
            "**{word}** ({}) — moderator's note: {}",
            timestamp(ruling.at),
            one_line(note)
        ),
        None => format!("**{word}** ({})", timestamp(ruling.at)),
    };
    if let Some(resolution) = review.resolution(&item.id) {
        label.push_str(&format!(
            " → **{}** after the verdict ({})",
            decision_word(resolution.decision),
            timestamp(resolution.at)
        ));
        if let Some(note) = &resolution.note {
            label.push_str(&format!(" — note: {}", one_line(note)));
        }
        if resolution.decision == ItemDecision::Accept {
            match review.addressed_in_round(&item.id) {
                Some(round) => label.push_str(&format!("; answered in revision round {round}")),
                None => label.push_str("; waits for another revision round"),
            }
        }
    }
    label
}

/// What a reader must do about a reopened debate, or `None` if it is not.
fn reopen_notice(review: &DecisionReview) -> Option<String> {
    if !review.reopen_pending() {
        return None;
    }
    let waiting = review.awaiting_reopen();
    let (items, them) = if waiting.len() == 1 {
        ("item", "it")
    } else {
        ("items", "them")
    };
    Some(format!(
        "After the verdict the moderator accepted deferred {items} {}, which no revision has answered yet, \
         so the verdict does not take {them} into account. Run `quorum resume --reopen` on this folder for another revision and evaluation round.",
        item_ids(&waiting)
    ))
}

fn critique_md(review: &DecisionReview) -> Option<String> {
    let malformed = malformed_sections(review, "critique");
    let critique = review.critique();
    if critique.is_none() && malformed.is_empty() {
        return None;
    }
    let mut out = format!(
        "# Critique — stage 2\n\nCritique mode: {}\n\n",
        review.config().critique_mode.as_str()
    );
    if let Some(notice) = reopen_notice(review) {
        out.push_str(&format!("**Reopened.** {notice}\n\n"));
    }
    if let Some(critique) = critique {
        out.push_str("## Items and the moderator's decisions\n\n");
        if critique.parsed.items.is_empty() {
            out.push_str("The critic raised no items.\n\n");
        }
        for item in &critique.parsed.items {
            out.push_str(&format!(
                "### {} → {} · {} · {}\n\nDecision: {}\n\n",
                item.id,
                item.target_block,
                yaml_word(&item.flaw_type),
                yaml_word(&item.severity),
                decision_label(review, item)
            ));
            if let Some(steelman) = &item.steelman {
                out.push_str(&format!("Strongest form: {}\n\n", one_line(steelman)));
            }
            out.push_str(&format!("{}\n\n", item.description.trim()));
        }
        for dropped in &critique.parsed.dropped {
            out.push_str(&format!(
                "- Dropped critique #{} (target `{}`): {}\n",
                dropped.index + 1,
                dropped.target_block,
                dropped.reason
            ));
        }
        out.push_str(&format!(
            "\n## Raw output `{}` ({})\n\n{}",
            critique.call_id,
            timestamp(critique.at),
            fenced(&critique.raw, "text")
        ));
    }
    out.push_str(&malformed);
    Some(out)
}

fn change_log_md(change_log: &[ChangeEntry]) -> String {
    let mut out =
        String::from("| addresses | block | change | after / rationale |\n|---|---|---|---|\n");
    for entry in change_log {
        let detail = match (&entry.rationale, entry.after.trim()) {
            (Some(rationale), "") => rationale.clone(),
            (Some(rationale), after) => format!("{after} — {rationale}"),
            (None, after) => after.to_string(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            entry.addresses_critique,
            entry.block_id,
            yaml_word(&entry.change_type),
            one_line(&detail).replace('|', "\\|")
        ));
    }
    out
}

fn revision_md(review: &DecisionReview) -> Option<String> {
    let malformed = malformed_sections(review, "revision");
    if review.revisions().is_empty() && malformed.is_empty() {
        return None;
    }
    let mut out = String::from("# Revision — stage 3\n\n");
    let open = review.open_deferred_items();
    if !open.is_empty() {
        out.push_str(&format!(
            "Deferred items, still open: {}\n\n",
            item_ids(&open)
        ));
    }
    for revision in review.revisions() {
        out.push_str(&format!("## Round {}\n\n", revision.round));
        let reopened_for: Vec<&str> = revision
            .must_address
            .iter()
            .filter(|id| review.resolution(id).is_some())
            .map(String::as_str)
            .collect();
        if !reopened_for.is_empty() {
            out.push_str(&format!(
                "Reopened after the verdict for {}, accepted by the moderator after first deferring them.\n\n",
                reopened_for.join(", ")
            ));
        }
        if !revision.must_address.is_empty() {
            out.push_str(&format!(
                "Had to address: {}\n\n",
                revision.must_address.join(", ")
            ));
        }
        for directive in &revision.directives {
            out.push_str(&format!(
                "- Directive {} ({}): {}\n",
                directive.id,
                directive.source,
                one_line(&directive.text)
            ));
        }
        if !revision.directives.is_empty() {
            out.push('\n');
        }
        if !revision.against_rulings.is_empty() {
            out.push_str(
                "**Against your rulings.** quorum asked the proposer once more, and this answer still goes against them:\n\n",
            );
            for discrepancy in &revision.against_rulings {
                out.push_str(&format!("- {discrepancy}\n"));
            }
            out.push('\n');
        }
        out.push_str(&format!(
            "### Change log\n\n{}\n### Revised tree\n\n{}### Raw output `{}` ({})\n\n{}\n",
            change_log_md(&revision.output.change_log),
            tree_md(&revision.output.revised_tree)
                .replace("\n### ", "\n#### ")
                .replacen("### ", "#### ", 1),
            revision.call_id,
            timestamp(revision.at),
            fenced(&revision.raw, "text")
        ));
    }
    out.push_str(&malformed);
    Some(out)
}

// ---- debate.yaml ----------------------------------------------------------

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
#[derive(Debug, Serialize, Deserialize)]
pub struct DebateYaml {
    pub meta: Meta,
    pub participants: ParticipantsYaml,
    pub stages: StagesYaml,
    /// The mode's result fields (RULES.md A13): an architecture review's
    /// decision record (DR-50), a comparison's recommendation, ranking and
    /// conditional recommendation (DR-55).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<DecisionBlock>,
    /// A comparative review's options, as given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<crate::protocol::decision_review::ReviewOption>,
    #[serde(default)]
    pub deferred_items: Vec<ItemYaml>,
    pub thresholds: Thresholds,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Tokens, latency and cost; absent until a call has finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageYaml>,
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
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ParticipantsYaml {
    pub proposer: AgentYaml,
    pub critic: AgentYaml,
    pub judges: Vec<JudgeYaml>,
}

impl ParticipantsYaml {
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

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct StagesYaml {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<ProposalYaml>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critique: Option<CritiqueYaml>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<RevisionYaml>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
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

#[derive(Debug, Serialize, Deserialize)]
pub struct ItemYaml {
    #[serde(flatten)]
    pub item: CritiqueItem,
    pub decision: Option<ItemDecision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
    /// How a deferred item was settled after the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<ResolutionYaml>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ResolutionYaml {
    pub decision: ItemDecision,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub at: String,
    /// The reopened revision round that answered an accepted item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addressed_in_round: Option<u32>,
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

#[derive(Debug, Serialize, Deserialize)]
pub struct JudgeStatusYaml {
    pub role: crate::protocol::decision_review::model::JudgeRole,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// What quorum read other than as written, when the answer was not in
    /// the exact format (`read score "4" as 4 (b2 feasibility)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub normalised: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct EvaluationRoundYaml {
    pub round: u32,
    pub block_scores: Vec<BlockScore>,
    pub synthesis_scores: Vec<SynthesisScore>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synthesis_mean: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quorum: Option<QuorumStatus>,
    #[serde(default)]
    pub uncertainty: Vec<String>,
    pub judges: Vec<JudgeStatusYaml>,
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
struct FlatEvaluationYaml {
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
            },
            rounds: flat.rounds,
        }
    }
}

fn item_yaml(review: &DecisionReview, item: &CritiqueItem) -> ItemYaml {
    let ruling = review.ruling(&item.id);
    ItemYaml {
        item: item.clone(),
        decision: ruling.as_ref().map(|r| r.decision),
        note: ruling.as_ref().and_then(|r| r.note.clone()),
        decided_at: ruling.as_ref().map(|r| timestamp(r.at)),
        resolution: review
            .resolution(&item.id)
            .map(|resolution| ResolutionYaml {
                decision: resolution.decision,
                note: resolution.note.clone(),
                at: timestamp(resolution.at),
                addressed_in_round: (resolution.decision == ItemDecision::Accept)
                    .then(|| review.addressed_in_round(&item.id))
                    .flatten(),
            }),
    }
}

fn evaluation_round_yaml(
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
        };
        judges.push(JudgeStatusYaml {
            role: judge.role,
            status,
            reason,
            file: record
                .and_then(|record| record.raw.as_ref())
                .map(|_| judge_file(judge.role, evaluation.round)),
            call_id: record.and_then(|record| record.call_id.clone()),
            normalised: record
                .map(|record| record.normalised.clone())
                .unwrap_or_default(),
        });
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
    }
}

impl DebateYaml {
    pub fn of(review: &DecisionReview) -> DebateYaml {
        let config: &ReviewConfig = review.config();
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
                    .map(|item| item_yaml(review, item))
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
                .map(|item| item_yaml(review, item))
                .collect(),
            thresholds: config.thresholds.clone(),
            outcome: review.outcome().cloned(),
            usage: UsageYaml::of(review.usage_ledger()),
        }
    }
}

// ---- transcript.md ----------------------------------------------------------

fn transcript_md(review: &DecisionReview) -> String {
    let config = review.config();
    let mut out = format!(
        "# Transcript — {}\n\nDecision review, {} mode, critique {}, started {}.\n\n\
         Every event in order, timeouts, cancellations, retries and skips included, each with its call id.\n\n## Events\n\n",
        one_line(&config.topic),
        config.mode.as_str(),
        config.critique_mode.as_str(),
        timestamp(config.started_at)
    );
    out.push_str(&log_lines(review.log()));
    out.push_str("\n## Agent outputs\n\n");
    if let Some(proposal) = review.proposal() {
        out.push_str(&format!(
            "### `{}`\n\n{}\n",
            proposal.call_id,
            fenced(&proposal.raw, "text")
        ));
    }
    if let Some(critique) = review.critique() {
        out.push_str(&format!(
            "### `{}`\n\n{}\n",
            critique.call_id,
            fenced(&critique.raw, "text")
        ));
    }
    for revision in review.revisions() {
        out.push_str(&format!(
            "### `{}`\n\n{}\n",
            revision.call_id,
            fenced(&revision.raw, "text")
        ));
    }
    for evaluation in review.evaluations() {
        for record in evaluation.judges.values() {
            if let (Some(call_id), Some(raw)) = (&record.call_id, &record.raw) {
                out.push_str(&format!("### `{call_id}`\n\n{}\n", fenced(raw, "text")));
            }
        }
    }
    for malformed in review.malformed() {
        out.push_str(&format!(
            "### `{}` (unusable: {})\n\n{}\n",
            malformed.call_id,
            one_line(&malformed.reason),
            fenced(&malformed.raw, "text")
        ));
    }
    out.push_str(&crate::report::diagnostics_md(review.diagnostics()));
    out.push_str(&usage_md(review.usage_ledger()));
    out
}

// ---- summary.md ---------------------------------------------------------------

/// The opening of `summary.md`: the result in plain language, with no judge
/// names, block ids or scores (RF-04, RF-06, RF-16). The CLI prints exactly
/// this as its end-of-run message.
/// While a round reopened after a verdict runs, the summary says so, and
/// the earlier verdict no longer stands as the result. `None` for a debate
/// that has never had a verdict (it has no summary yet).
fn reopened_summary(review: &DecisionReview) -> Option<String> {
    let previous = review
        .evaluations()
        .iter()
        .rev()
        .find_map(|evaluation| evaluation.assessment.as_ref())?;
    Some(format!(
        "# {}\n\n**No decision yet: reopened.** The debate had reached a verdict ({}), then \
         items deferred during moderation were accepted afterwards. Another revision answers \
         them and the proposal is judged again; the new verdict replaces this page. If that \
         was interrupted, `quorum resume` on this folder carries it on.\n",
        one_line(&review.config().topic),
        previous.verdict.as_str(),
    ))
}

pub fn summary_lead(review: &DecisionReview) -> Option<String> {
    if let Some(lead) = comparison_lead(review) {
        return Some(lead);
    }
    let outcome = review.outcome()?;
    let tree = review.current_tree();
    let plain = |text: &str| first_sentence(&plain_block_refs(text, tree));
    if let Outcome::Failed { reason } = outcome {
        let earlier = review
            .evaluations()
            .iter()
            .rev()
            .find_map(|evaluation| evaluation.assessment.as_ref())
            .map(|assessment| match assessment.verdict {
                Verdict::Revise => {
                    " An earlier round had asked for changes before the review stopped."
                }
                _ => "",
            })
            .unwrap_or_default();
        return Some(format!(
            "**No decision.** The review stopped before it could reach a verdict: {}.{earlier} \
             Nothing was fabricated in its place; fix the cause and run the review again.",
            reason.trim_end_matches('.')
        ));
    }
    let record = review.decision_record()?;
    let assessment = review.evaluations().last()?.assessment.as_ref()?;
    let objection = if review.critique_items().is_empty() {
        "The critic found nothing to object to".to_string()
    } else {
        format!(
            "The hardest objection was that {}",
            lowercase_first(&plain(&record.strongest_objection))
        )
    };
    let opening = match record.decision {
        Verdict::Adopt => {
            let claim = tree
                .and_then(main_claim)
                .map(|block| plain(&block.text))
                .unwrap_or_default();
            // Said only as the rulings and the change log bear it out.
            let objection_item = review
                .critique_items()
                .iter()
                .find(|item| item.description == record.strongest_objection);
            let answered = match objection_item {
                None => "",
                Some(item) => match review.standing_decision(&item.id) {
                    Some(ItemDecision::Accept) if review.addressed_in_round(&item.id).is_some() => {
                        "; the revised proposal answers it"
                    }
                    Some(ItemDecision::Reject) => "; you set it aside",
                    Some(ItemDecision::Defer) => "; you left it open",
                    _ => "; no revision has answered it yet",
                },
            };
            format!(
                "**Go ahead (ADOPT: the proposal is strong enough to act on).** {claim}. {objection}{answered}. \
                 Next: carry it out, and watch for the warning sign in \"What would make us revisit this\"."
            )
        }
        Verdict::Revise => format!(
            "**Not yet: revise first (REVISE: the idea has merit but needs changes before it goes ahead).** \
             What still falls short: {}. {objection}. \
             Next: make the changes listed under \"What to do\" and review the proposal again.",
            lowercase_first(&revise_reason(assessment, &plain))
        ),
        Verdict::Reject => format!(
            "**Do not proceed (REJECT: the proposal is flawed beyond revision).** {}. {objection}. \
             Next: start over or weigh another approach.",
            reject_reason(review, &plain)
        ),
        Verdict::Escalate => format!(
            "**Undecided: more information is needed (ESCALATE: the review could not settle the question with what it had).** \
             {}. {objection}. Next: gather what is listed under \"What is still uncertain\", then decide.",
            escalate_reason(review, assessment)
        ),
        Verdict::Pass | Verdict::Concerns | Verdict::Fail | Verdict::Proven | Verdict::Unproven => {
            unreachable!("a decision review derives only ADOPT, REVISE, REJECT or ESCALATE")
        }
    };
    Some(opening)
}

/// The opening of a finished comparison: the recommendation, the
/// condition that would change it, and every dealbreaker, in plain words.
fn comparison_lead(review: &DecisionReview) -> Option<String> {
    let config = review.config();
    if config.mode != crate::protocol::decision_review::ReviewMode::Comparative {
        return None;
    }
    let Some(Outcome::Completed { .. }) = review.outcome() else {
        return None;
    };
    let ranking = review.evaluations().last()?.ranking.as_ref()?;
    let text_of = |id: &str| {
        config
            .options
            .iter()
            .find(|option| option.id == id)
            .map(|option| first_sentence(&option.text))
            .unwrap_or_default()
    };
    let mut lead = match &ranking.recommendation {
        Some(id) => format!(
            "**Recommendation: option {id}, {}.** ",
            text_of(id).trim_end_matches('.')
        ),
        None => "**No option can be recommended.** ".to_string(),
    };
    lead.push_str(&ranking.conditional_recommendation);
    let tree = review.current_tree();
    for option in ranking.ranking.iter().filter(|o| o.dealbreaker.is_some()) {
        let reason = option
            .dealbreaker
            .as_deref()
            .and_then(|reason| reason.split_once("): "))
            .map(|(_, rationale)| first_sentence(&plain_block_refs(rationale, tree)))
            .filter(|rationale| reader_first(rationale));
        lead.push_str(&match reason {
            Some(reason) => format!(
                " {} is ruled out by a risk with no acceptable answer: {}.",
                option.option,
                lowercase_first(reason.trim_end_matches('.'))
            ),
            None => format!(
                " {} is ruled out by a risk with no acceptable answer.",
                option.option
            ),
        });
    }
    Some(lead)
}

/// The summary of a finished comparison (RF-17): the recommendation, the
/// condition that would change it and any dealbreaker first, in words a
/// reader needs no scores for (RF-06, RF-08); the ranking and its numbers
/// after.
fn comparison_summary(review: &DecisionReview) -> Option<String> {
    let lead = comparison_lead(review)?;
    let config = review.config();
    let ranking = review.evaluations().last()?.ranking.as_ref()?;
    let mut out = format!("# {}\n\n{lead}\n\n", one_line(&config.topic));
    out.push_str("## The options\n\n");
    for option in &config.options {
        out.push_str(&format!(
            "- **{}**: {}\n",
            option.id,
            one_line(&option.text)
        ));
    }
    let criteria: Vec<_> = ranking.per_criterion.keys().copied().collect();
    out.push_str("\n## The ranking\n\n| Rank | Option |");
    for criterion in &criteria {
        out.push_str(&format!(" {criterion} |"));
    }
    out.push_str(" Dealbreaker |\n|---|---|");
    out.push_str(&"---|".repeat(criteria.len() + 1));
    out.push('\n');
    for (rank, option) in ranking.ranking.iter().enumerate() {
        out.push_str(&format!("| {} | {} |", rank + 1, option.option));
        for criterion in &criteria {
            out.push_str(&match option.scores.get(criterion) {
                Some(score) => format!(" {score:.2} |"),
                None => " – |".to_string(),
            });
        }
        out.push_str(&format!(
            " {} |\n",
            option
                .dealbreaker
                .as_deref()
                .map(|reason| one_line(reason).replace('|', "\\|"))
                .unwrap_or_else(|| "none".to_string())
        ));
    }
    out.push_str("\n## Where each option is strongest\n\n");
    for (criterion, order) in &ranking.per_criterion {
        out.push_str(&format!("- {criterion}: {}\n", order.join(", ")));
    }
    out.push_str(
        "\n## How this was ranked\n\nEvery option was argued as blocks of one thesis tree, critiqued, revised \
         and scored by every judge on the same criteria. An option's score on a criterion is the mean of \
         every judge's scores on its blocks; an option with a dealbreaker (a risk scored at the lowest \
         level) ranks last; the rest are ordered by their scores on the binding judges' criteria. The \
         ranking is derived mechanically from the judges' scores, never taken from an agent.\n",
    );
    if let Some(usage) = usage_line(review.usage_ledger(), review.duration_ms()) {
        out.push_str(&format!("\nUsage: {usage}.\n"));
    }
    out.push_str(
        "\nFull record: `debate.yaml` (structured), `transcript.md` (every event), `judges/` (raw judge output).\n",
    );
    Some(crate::text::for_markdown(&out))
}

/// Why the panel asked for changes, in words a reader needs no scores for.
fn revise_reason(assessment: &Assessment, plain: &dyn Fn(&str) -> String) -> String {
    match assessment.check {
        Check::BindingJudge => assessment
            .directives
            .iter()
            .find(|directive| directive.judge.is_some())
            .map(|directive| plain(&directive.text))
            .filter(|text| reader_first(text))
            .unwrap_or_else(|| "a required assessment found a serious gap".to_string()),
        Check::Guard => "part of the plan is more complex than what it achieves".to_string(),
        _ => "the revised proposal does not yet hold together, cover its main risks and answer its critiques well enough"
            .to_string(),
    }
}

/// The risk the panel found unacceptable, in the judge's own words.
fn reject_reason(review: &DecisionReview, plain: &dyn Fn(&str) -> String) -> String {
    review
        .evaluations()
        .last()
        .into_iter()
        .flat_map(|evaluation| evaluation.judges.values())
        .filter_map(|record| record.result.as_ref()?.scores())
        .flat_map(|scores| scores.block_scores.iter())
        .filter(|score| score.criterion == crate::protocol::decision_review::model::Criterion::Risk)
        .min_by_key(|score| score.score)
        .map(|score| plain(&score.rationale))
        .filter(|reason| reader_first(reason))
        .map(|reason| {
            format!(
                "It carries a risk with no acceptable answer: {}",
                lowercase_first(&reason)
            )
        })
        .unwrap_or_else(|| "It carries a risk with no acceptable answer".to_string())
}

/// Whether a judge's sentence may stand in the opening as it is: it names
/// no judge, role, block id or score (RF-06). One that does is left to the
/// sections below, and the opening says the same thing in general words.
fn reader_first(text: &str) -> bool {
    crate::report::provenance(text, "").is_empty()
        && !text
            .to_ascii_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|word| matches!(word, "panel" | "rated" | "rate" | "rating"))
}

/// What kept the panel from deciding.
fn escalate_reason(review: &DecisionReview, assessment: &Assessment) -> &'static str {
    let lacked_information = review
        .evaluations()
        .last()
        .into_iter()
        .flat_map(|evaluation| evaluation.judges.values())
        .filter_map(|record| record.result.as_ref()?.scores())
        .any(|scores| !scores.insufficient_information.is_empty());
    if !assessment.quorum.met || !assessment.missing_binding.is_empty() {
        "Too few of the required assessments came back usable to decide"
    } else if lacked_information {
        "The reviewers lacked the information to assess part of the plan"
    } else {
        "The reviewers disagreed too sharply about part of the plan to call it"
    }
}

/// Replaces block ids (`b2`) with what the block is, so a reader who never
/// saw the thesis tree can follow (RF-05, RF-06).
fn plain_block_refs(text: &str, tree: Option<&ThesisTree>) -> String {
    let Some(tree) = tree else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let word_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        if word_end == 0 {
            let c = rest.chars().next().expect("non-empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let word = &rest[..word_end];
        match tree.block(word) {
            Some(block) => out.push_str(match block.block_type {
                crate::protocol::decision_review::model::BlockType::Claim => "the main claim",
                crate::protocol::decision_review::model::BlockType::Implementation => {
                    "the implementation plan"
                }
                crate::protocol::decision_review::model::BlockType::Fallback => "the fallback plan",
            }),
            None => out.push_str(word),
        }
        rest = &rest[word_end..];
    }
    out
}

/// The first sentence of `text`, without its final period.
fn first_sentence(text: &str) -> String {
    let text = one_line(text);
    let end = text
        .match_indices(". ")
        .map(|(index, _)| index)
        .find(|&index| index > 20)
        .unwrap_or(text.len());
    text[..end].trim_end_matches('.').to_string()
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        // `Replay` → `replay`, and the article `A failover` → `a failover`,
        // but `SOC 2` and `I` stay.
        Some(first)
            if chars.clone().next().is_some_and(char::is_lowercase)
                || (first == 'A' && chars.clone().next() == Some(' ')) =>
        {
            first.to_lowercase().chain(chars).collect()
        }
        Some(first) => std::iter::once(first).chain(chars).collect(),
        None => String::new(),
    }
}

fn summary_md(review: &DecisionReview) -> Option<String> {
    if review.outcome().is_none() {
        return reopened_summary(review);
    }
    if let Some(comparison) = comparison_summary(review) {
        return Some(comparison);
    }
    let lead = summary_lead(review)?;
    let config = review.config();
    let mut out = format!("# {}\n\n{lead}\n\n", one_line(&config.topic));
    if let Some(notice) = reopen_notice(review) {
        out.push_str(&format!("## Reopened after the verdict\n\n{notice}\n\n"));
    }
    if let Some(record) = review.decision_record() {
        out.push_str(&format!(
            "## What to do\n\n{}\n\n## The strongest objection\n\n{}\n\n## What is still uncertain\n\n{}\n\n\
             ## What would make us revisit this\n\n{}\n\n## What changed in revision\n\n{}\n\n",
            record.recommendation.trim(),
            record.strongest_objection.trim(),
            bullet_lines(&record.remaining_uncertainty),
            record.reversal_trigger.trim(),
            bullet_lines(&record.what_changed),
        ));
        out.push_str(&settled_after_verdict(review));
        out.push_str(&format!(
            "## How this was decided\n\nThe verdict is derived mechanically from the judges' scores, never taken from an agent. \
             Deciding rule: `{}`. Blocks that held up: {}.\n\n",
            record.deciding_rule,
            if record.surviving_blocks.is_empty() {
                "none".to_string()
            } else {
                record.surviving_blocks.join(", ")
            }
        ));
        if let Some(evaluation) = review.evaluations().last() {
            out.push_str(&scores_table(review, evaluation));
        }
    }
    if let Some(usage) = usage_line(review.usage_ledger(), review.duration_ms()) {
        out.push_str(&format!("\nUsage: {usage}.\n"));
    }
    out.push_str(
        "\nFull record: `debate.yaml` (structured), `transcript.md` (every event), `judges/` (raw judge output).\n",
    );
    Some(out)
}

/// The deferred items settled after the verdict, with their times.
fn settled_after_verdict(review: &DecisionReview) -> String {
    let lines: Vec<String> = review
        .items_decided(ItemDecision::Defer)
        .into_iter()
        .filter_map(|item| {
            let resolution = review.resolution(&item.id)?;
            let verb = match resolution.decision {
                ItemDecision::Accept => "accepted",
                ItemDecision::Reject => "rejected",
                ItemDecision::Defer => "deferred",
            };
            let note = resolution
                .note
                .as_deref()
                .map(|note| format!(" — {}", one_line(note)))
                .unwrap_or_default();
            let answered = match (resolution.decision, review.addressed_in_round(&item.id)) {
                (ItemDecision::Accept, Some(round)) => {
                    format!("; answered in revision round {round}")
                }
                (ItemDecision::Accept, None) => "; not answered by a revision yet".to_string(),
                _ => String::new(),
            };
            Some(format!(
                "- {} {verb} ({}): {}{note}{answered}",
                item.id,
                timestamp(resolution.at),
                one_line(&item.description)
            ))
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "## Deferred items settled after the verdict\n\n{}\n\n",
        lines.join("\n")
    )
}

fn bullet_lines(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| format!("- {}", line.trim()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn scores_table(
    review: &DecisionReview,
    evaluation: &crate::protocol::decision_review::EvaluationRound,
) -> String {
    let mut out = format!(
        "Scores of the final round ({}):\n\n| judge | weight | block | criterion | score |\n|---|---|---|---|---|\n",
        evaluation.round
    );
    for judge in &review.config().panel {
        match evaluation
            .judges
            .get(&judge.role)
            .and_then(|record| record.result.as_ref())
        {
            Some(JudgeResult::Scored(scores)) => {
                for score in &scores.block_scores {
                    out.push_str(&format!(
                        "| {} | {} | {} | {} | {} |\n",
                        judge.role,
                        judge.weight.as_str(),
                        score.block_id,
                        score.criterion,
                        score.score
                    ));
                }
            }
            Some(JudgeResult::Malformed { .. }) => out.push_str(&format!(
                "| {} | {} | — | malformed, excluded | — |\n",
                judge.role,
                judge.weight.as_str()
            )),
            Some(JudgeResult::Skipped { .. }) | None => out.push_str(&format!(
                "| {} | {} | — | skipped | — |\n",
                judge.role,
                judge.weight.as_str()
            )),
        }
    }
    out
}

/// A serde enum value as the YAML word (`add_fallback`, `major`).
fn yaml_word<T: Serialize>(value: &T) -> String {
    yaml_serde::to_string(value)
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RF-06: a judge's sentence that names a judge, a block or a score
    /// never stands in the opening; a plain one may.
    #[test]
    fn rf_06_a_rationale_with_process_detail_is_not_quoted_in_the_opening() {
        for leaky in [
            "As the analyst, I find the rollback untested",
            "b2 has no rollback",
            "Risk 1/5: the rollback is untested",
            "I scored this low because the rollback is untested",
            "The panel agrees the rollback is untested",
            "The critic was right that the rollback is untested",
        ] {
            assert!(!reader_first(leaky), "{leaky}");
        }
        assert!(reader_first(
            "A failed migration cannot be rolled back without losing a day of invoices"
        ));
    }
}
