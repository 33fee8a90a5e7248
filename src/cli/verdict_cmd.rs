//! `quorum verdict DIR`: the verdict recomputed from the files on disk.
//!
//! The panel, thresholds and final tree come from `debate.yaml`; the scores
//! come from the judge files themselves, parsed again, so editing a judge file
//! changes the verdict (INF-04, INF-06). A file that starts with the
//! MALFORMED marker, or no longer parses, is excluded as malformed.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use crate::artifact::render::decision_review::DebateYaml;
use crate::model::{JudgeResult, ThesisTree};
use crate::parse::parse_judge;
use crate::protocol::decision_review::judge_file;
use crate::protocol::{Outcome, verdict_exit_code};
use crate::text::sanitize;
use crate::verdict::{Assessment, derive_verdict};

use super::{EXIT_FAILURE, EXIT_USAGE};

/// Why a verdict could not be recomputed.
#[derive(Debug, thiserror::Error)]
pub enum RecomputeError {
    #[error("{path}: {message}")]
    Unreadable { path: String, message: String },
    #[error("{path}: this debate has no evaluation yet, so there is no verdict to recompute")]
    NoEvaluation { path: String },
    #[error("{path}: this debate failed before it reached a verdict: {reason}")]
    Failed { path: String, reason: String },
}

/// Recomputes the assessment of the final round of the debate in `dir`.
pub fn recompute(dir: &Path) -> Result<Assessment, RecomputeError> {
    let yaml_path = dir.join("debate.yaml");
    let shown = yaml_path.display().to_string();
    let text = std::fs::read_to_string(&yaml_path).map_err(|error| RecomputeError::Unreadable {
        path: shown.clone(),
        message: format!("{error} (is this a quorum debate folder?)"),
    })?;
    let record: DebateYaml =
        yaml_serde::from_str(&text).map_err(|error| RecomputeError::Unreadable {
            path: shown.clone(),
            message: error.to_string(),
        })?;
    if let Some(Outcome::Failed { reason }) = &record.outcome {
        return Err(RecomputeError::Failed {
            path: shown,
            reason: reason.clone(),
        });
    }
    let (Some(evaluation), Some(revision)) = (&record.stages.evaluation, &record.stages.revision)
    else {
        return Err(RecomputeError::NoEvaluation { path: shown });
    };
    let round = evaluation.latest.round;
    let tree = ThesisTree {
        blocks: revision.revised_tree.clone(),
    };
    let panel = record.participants.panel();
    let mut results = BTreeMap::new();
    for judge in &panel {
        let path = dir.join(judge_file(judge.role, round));
        match std::fs::read_to_string(&path) {
            Ok(raw) => {
                let result = if raw.starts_with("<!-- MALFORMED") {
                    let reason = raw
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .trim_start_matches("<!-- MALFORMED:")
                        .trim_end_matches("-->")
                        .trim()
                        .to_string();
                    JudgeResult::Malformed { reason }
                } else {
                    match parse_judge(&raw, judge, &tree) {
                        Ok(scores) => JudgeResult::Scored(scores),
                        Err(error) => JudgeResult::Malformed {
                            reason: error.to_string(),
                        },
                    }
                };
                results.insert(judge.role, result);
            }
            Err(_) => {
                let reason = evaluation
                    .latest
                    .judges
                    .iter()
                    .find(|status| status.role == judge.role)
                    .and_then(|status| status.reason.clone())
                    .unwrap_or_else(|| "no judge file".to_string());
                results.insert(judge.role, JudgeResult::Skipped { reason });
            }
        }
    }
    Ok(derive_verdict(
        &panel,
        &results,
        &crate::protocol::decision_review::block_ids(&tree),
        &record.thresholds,
    ))
}

pub fn run(dir: &Path, json: bool) -> ExitCode {
    match recompute(dir) {
        Ok(assessment) => {
            if json {
                println!(
                    "{}",
                    crate::text::terminal_safe_json(
                        &serde_json::to_string_pretty(&assessment).unwrap_or_default()
                    )
                );
            } else {
                println!("{}\n{}", assessment.verdict, sanitize(&assessment.rule));
            }
            ExitCode::from(verdict_exit_code(assessment.verdict) as u8)
        }
        Err(error @ (RecomputeError::NoEvaluation { .. } | RecomputeError::Failed { .. })) => {
            eprintln!("quorum: {}", sanitize(&error.to_string()));
            ExitCode::from(EXIT_FAILURE)
        }
        Err(error) => {
            eprintln!("quorum: {}", sanitize(&error.to_string()));
            ExitCode::from(EXIT_USAGE)
        }
    }
}
