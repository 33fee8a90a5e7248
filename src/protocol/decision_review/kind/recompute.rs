//! `quorum recompute` for a decision review: the verdict (or a comparison's
//! ranking) derived again from the files on disk, the judge files parsed
//! anew so an edited file changes the result (INF-04, INF-06), and so is
//! its stability receipt, each variant from its own files. Not
//! responsible for refusing a writing review or for the shape of the
//! answer: the parent's `ProtocolKind::recompute` does both.

use std::collections::BTreeMap;

use crate::input::{RecordFileError, RecordFiles};
use crate::parse::Read;
use crate::protocol::Outcome;
use crate::protocol::decision_review::documents::DebateYaml;
use crate::protocol::decision_review::documents::{JudgeStatusYaml, VariantYaml};
use crate::protocol::decision_review::model::JudgeRole;
use crate::protocol::decision_review::model::{JudgeResult, ThesisTree};
use crate::protocol::decision_review::parse::read_judge;
use crate::protocol::decision_review::ranking::{
    rank_tree, with_stability as with_ranking_stability,
};
use crate::protocol::decision_review::stability::{timed, variant_file};
use crate::protocol::decision_review::verdict::{RoundFacts, derive_round, with_stability};
use crate::protocol::decision_review::{ReviewMode, block_ids, judge_file};
use crate::protocol::kind::{RecomputeError, read_record};
use crate::protocol::stability::{Counted, Receipt, VariantVerdict};

/// Recomputes the assessment of the final round of the debate in `dir`:
/// the panel, thresholds and final tree come from `debate.yaml`, the scores
/// from the judge files themselves, parsed again, so editing a judge file
/// changes the verdict (INF-04, INF-06). A file that starts with the
/// MALFORMED marker, or no longer parses, is excluded as malformed. The
/// judge files are read as the live run read them; the notes say what was
/// read other than as written, file by file.
pub(super) fn recompute(
    files: &dyn RecordFiles,
    rechecked: Option<&crate::protocol::evidence::recheck::Rechecked>,
) -> Result<Read<Recomputation>, RecomputeError> {
    let shown = files.shown("debate.yaml");
    let record: DebateYaml = read_record(files, "debate.yaml", "a quorum debate folder")?;
    if let Some(Outcome::Failed { reason }) = &record.outcome {
        return Err(RecomputeError::NoVerdict {
            path: shown,
            reason: format!("this debate failed before it reached a verdict: {reason}"),
        });
    }
    let (Some(evaluation), Some(revision)) = (&record.stages.evaluation, &record.stages.revision)
    else {
        return Err(RecomputeError::NoVerdict {
            path: shown,
            reason: "this debate has no evaluation yet, so there is no verdict to recompute".into(),
        });
    };
    let round = evaluation.latest.round;
    let tree = ThesisTree {
        blocks: revision.revised_tree.clone(),
    };
    let panel = record.participants.panel();
    let mut results = BTreeMap::new();
    let mut readings = Vec::new();
    let mut excluded = Vec::new();
    for judge in &panel {
        let file = judge_file(judge.role, round);
        let live = evaluation
            .latest
            .judges
            .iter()
            .find(|status| status.role == judge.role);
        let result = read_judge_file(
            files,
            judge,
            &tree,
            &file,
            live,
            &mut readings,
            &mut excluded,
        );
        results.insert(judge.role, result);
    }
    // Issue 55: the stability receipt, once done, from each variant's own
    // files, derived by the same code as the round it re-judges.
    let receipt = evaluation
        .latest
        .stability
        .as_ref()
        .filter(|stability| stability.summary.is_some());
    let value = if record.meta.mode == ReviewMode::Comparative.as_str() {
        let ids: Vec<String> = record.options.iter().map(|o| o.id.clone()).collect();
        let rank = |results: &BTreeMap<JudgeRole, JudgeResult>| {
            rank_tree(&ids, &tree, &panel, results, &record.thresholds)
        };
        let ranked = rank(&results);
        match receipt {
            None => Recomputation::Ranking {
                ranking: ranked,
                receipt: None,
                required: false,
            },
            Some(stability) => {
                let mut variants = Vec::new();
                for variant in &stability.variants {
                    let results = read_variant(
                        files,
                        &panel,
                        &tree,
                        round,
                        variant,
                        &mut readings,
                        &mut excluded,
                    );
                    let given = rank(&results);
                    variants.push(VariantVerdict {
                        variant: variant.variant,
                        verdict: given.recommendation.clone(),
                        rule: given.rule(),
                    });
                }
                let made = Receipt {
                    counts: Counted::Recommendation,
                    verdict: ranked.recommendation.clone(),
                    variants,
                };
                readings.append(&mut excluded);
                readings.push(format!("stability receipt: {}", made.summary()));
                Recomputation::Ranking {
                    ranking: with_ranking_stability(ranked, &made, stability.required),
                    receipt: Some(made),
                    required: stability.required,
                }
            }
        }
    } else {
        // EV-09: the binding judges' citations, checked again when
        // `verdict` could, else as the run checked them.
        let unverified = binding_unverified(
            rechecked,
            &panel,
            round,
            evaluation.latest.unverified_binding.clone(),
            &mut readings,
        );
        let kinships: Vec<_> = evaluation
            .latest
            .judges
            .iter()
            .filter_map(|status| status.kinship.clone())
            .collect();
        let blocks = block_ids(&tree);
        // A debate that times its judges names the missing ones (issue 55).
        let names_missing = evaluation.latest.judges.iter().any(|s| s.took_ms.is_some());
        let derive = |results: &BTreeMap<JudgeRole, JudgeResult>, statuses: &[JudgeStatusYaml]| {
            let missing = names_missing
                .then(|| missing_sentence(results, statuses))
                .flatten();
            derive_round(
                &panel,
                results,
                &blocks,
                &record.thresholds,
                RoundFacts {
                    held_out: record.participants.held_out(),
                    unverified: unverified.as_deref(),
                    kinships: &kinships,
                    missing: missing.as_deref(),
                },
            )
        };
        let mut assessment = derive(&results, &evaluation.latest.judges);
        if let Some(stability) = receipt {
            let mut variants = Vec::new();
            for variant in &stability.variants {
                let results = read_variant(
                    files,
                    &panel,
                    &tree,
                    round,
                    variant,
                    &mut readings,
                    &mut excluded,
                );
                let given = derive(&results, &variant.judges);
                variants.push(VariantVerdict {
                    variant: variant.variant,
                    verdict: Some(given.verdict.to_string()),
                    rule: given.rule,
                });
            }
            let made = Receipt {
                counts: Counted::Verdict,
                verdict: Some(assessment.verdict.to_string()),
                variants,
            };
            readings.append(&mut excluded);
            readings.push(format!("stability receipt: {}", made.summary()));
            assessment = with_stability(assessment, &made, stability.required);
        }
        Recomputation::Verdict(assessment)
    };
    readings.extend(excluded);
    Ok(Read {
        value,
        notes: readings,
        slips: Vec::new(),
    })
}

/// The results of a receipt's `variant` of `round`, each judge's from its
/// own file, parsed again as [`read_judge_file`] reads the round's.
fn read_variant(
    files: &dyn RecordFiles,
    panel: &[crate::protocol::decision_review::JudgeConfig],
    tree: &ThesisTree,
    round: u32,
    variant: &VariantYaml,
    readings: &mut Vec<String>,
    excluded: &mut Vec<String>,
) -> BTreeMap<JudgeRole, JudgeResult> {
    let mut results = BTreeMap::new();
    for status in &variant.judges {
        let Some(judge) = panel.iter().find(|judge| judge.role == status.role) else {
            continue;
        };
        let file = variant_file(judge.role, round, variant.variant);
        let result = read_judge_file(files, judge, tree, &file, Some(status), readings, excluded);
        results.insert(judge.role, result);
    }
    results
}

/// The result of `judge` from its answer in `file`, parsed again; `live`
/// is its status in debate.yaml, which says why a judge without a file
/// had none. What was read other than as written goes to `readings`, a
/// judge left out to `excluded`.
fn read_judge_file(
    files: &dyn RecordFiles,
    judge: &crate::protocol::decision_review::JudgeConfig,
    tree: &ThesisTree,
    file: &str,
    live: Option<&JudgeStatusYaml>,
    readings: &mut Vec<String>,
    excluded: &mut Vec<String>,
) -> JudgeResult {
    let read = files.read(file, "judge file");
    let mark = read
        .as_deref()
        .ok()
        .and_then(crate::protocol::AnswerFile::read_mark)
        .map(|(reason, _)| reason);
    match (read, mark) {
        (Ok(_), Some(reason)) => {
            excluded.push(format!(
                "{file}: excluded, as in the live run: its answer was malformed ({reason})"
            ));
            JudgeResult::Malformed { reason }
        }
        (Ok(raw), None) => match read_judge(&raw, judge, tree) {
            Ok(read) => {
                readings.extend(read.notes.iter().map(|note| format!("{file}: {note}")));
                readings.extend(read.slips.iter().map(|slip| {
                    format!("{file}: could not read {slip}; its score counts, with no reason given")
                }));
                JudgeResult::Scored(read.value)
            }
            Err(error) => {
                excluded.push(format!(
                    "{file}: excluded: its answer does not read: {error}"
                ));
                JudgeResult::Malformed {
                    reason: error.to_string(),
                }
            }
        },
        (Err(_), _) if live.is_some_and(|status| status.status == "recused") => {
            JudgeResult::Recused {
                reason: live
                    .and_then(|status| status.reason.clone())
                    .unwrap_or_default(),
            }
        }
        (Err(error), _) => {
            let reason = live
                .and_then(|status| status.reason.clone())
                .unwrap_or_else(|| "no judge file".to_string());
            let scored_live = live.is_some_and(|status| status.status == "scored");
            excluded.push(match &error {
                RecordFileError::Missing(_) if !scored_live => {
                    format!("{file}: excluded, as in the live run: {reason}")
                }
                _ => format!(
                    "{file}: excluded: cannot read it: {error}{}",
                    if scored_live {
                        " (the live run had its scores; the verdict may differ)"
                    } else {
                        ""
                    }
                ),
            });
            JudgeResult::Skipped { reason }
        }
    }
}

/// The missing-judges sentence of a round read back: each judge's result
/// as recomputed, its time as debate.yaml recorded it.
fn missing_sentence(
    results: &BTreeMap<JudgeRole, JudgeResult>,
    statuses: &[JudgeStatusYaml],
) -> Option<String> {
    let timed: Vec<_> = results
        .iter()
        .filter_map(|(role, result)| {
            let took = statuses
                .iter()
                .find(|status| status.role == *role)
                .and_then(|status| status.took_ms);
            timed(*role, result, took)
        })
        .collect();
    crate::protocol::stability::missing_judges("judge", &timed)
}

/// What the files of a decision review imply again: a verdict, or a
/// comparison's ranking (which has none, A15).
#[derive(Debug)]
pub(super) enum Recomputation {
    Verdict(crate::protocol::decision_review::verdict::Assessment),
    /// A comparison's ranking, and its stability receipt when it had one
    /// (`required`: under `require_stability`).
    Ranking {
        ranking: crate::protocol::decision_review::ranking::Ranking,
        receipt: Option<Receipt>,
        required: bool,
    },
}

/// Why the binding judges' citations of `round` leave an ADOPT resting on
/// nothing checked (EV-09): from the citations checked again when there
/// are any (`rechecked`), else `recorded`; a reading says where the two
/// differ.
fn binding_unverified(
    rechecked: Option<&crate::protocol::evidence::recheck::Rechecked>,
    panel: &[crate::protocol::decision_review::JudgeConfig],
    round: u32,
    recorded: Option<String>,
    readings: &mut Vec<String>,
) -> Option<String> {
    let Some(claims) = rechecked else {
        return recorded;
    };
    let mut binding = crate::evidence::Claim::default();
    let binds = panel
        .iter()
        .filter(|judge| judge.weight == crate::protocol::decision_review::model::Weight::Binding);
    for judge in binds {
        if let Some(claim) = claims.get(&format!("judge {}, round {round}", judge.role.as_str())) {
            binding.absorb(claim);
        }
    }
    let fresh = binding.all_failed();
    match (&recorded, &fresh) {
        (None, Some(why)) => readings.push(format!(
            "debate.yaml: the binding judges' citations check now as all failed ({why}); that counts"
        )),
        (Some(_), None) => readings.push(
            "debate.yaml: the binding judges' citations are recorded as all failed, but some check now; that counts"
                .into(),
        ),
        _ => {}
    }
    fresh
}
