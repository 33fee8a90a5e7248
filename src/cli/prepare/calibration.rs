//! Step: the library's calibration of a new decision review's panel (issue
//! 55). `agents` are who plays each slot, `provider:model`. With `calibration.judge_kappa_floor` configured, a binding judge
//! whose agreement with the moderator (Cohen's kappa, from the library,
//! for its `provider:model` and the debate's prompt hash) is below the
//! floor over at least `min_labels` labels is seated advisory; the
//! definition records who and why, so resume and replay seat alike
//! without reading the library.
//!
//! Not responsible for the rule itself
//! ([`reseat_below_floor`](crate::protocol::decision_review::model::reseat_below_floor))
//! nor for the figures (`crate::store`). A library that cannot be read is
//! said once on stderr and the debate runs without calibration; other
//! protocols have no binding judge and are left as they are.

use std::collections::BTreeMap;

use crate::config::LoadedConfig;
use crate::protocol::decision_review::model::{JudgeConfig, reseat_below_floor};
use crate::protocol::kind::DebateDefinition;
use crate::store::Library;

/// The protocol whose panel has binding judges.
const WITH_BINDING_JUDGES: &str = "decision-review";

/// `definition` with its binding judges below the floor seated advisory.
pub(super) fn calibrate(
    mut definition: DebateDefinition,
    loaded: &LoadedConfig,
    agents: &BTreeMap<String, String>,
    prompt_overrides: &BTreeMap<String, String>,
) -> DebateDefinition {
    let Some(calibration) = loaded.config.calibration else {
        return definition;
    };
    let Some(floor) = calibration.judge_kappa_floor else {
        return definition;
    };
    // A writing review derives no verdict: its weights decide nothing.
    let writing = definition.value("mode").and_then(serde_json::Value::as_str) == Some("writing");
    if definition.protocol() != WITH_BINDING_JUDGES || writing {
        return definition;
    }
    let Some(mut panel) = definition
        .value("panel")
        .and_then(|panel| serde_json::from_value::<Vec<JudgeConfig>>(panel.clone()).ok())
    else {
        return definition;
    };
    let figures = match Library::open_default().and_then(|library| library.judge_figures()) {
        Ok(figures) => figures,
        Err(error) => {
            eprintln!(
                "quorum: library: {}; the debate runs without calibration",
                crate::text::for_stderr(&error.to_string())
            );
            return definition;
        }
    };
    let prompt_hash =
        crate::protocol::registry::prompt_hash(definition.protocol(), prompt_overrides);
    let figure_of = |role: crate::protocol::judges::JudgeRole| {
        let agent = agents.get(&crate::protocol::decision_review::judge_slot_role(role))?;
        let figure = figures
            .iter()
            .find(|figure| figure.agent == *agent && figure.prompt_hash == prompt_hash)?;
        let kappa = figure.kappa?;
        Some((agent.clone(), (kappa.kappa, kappa.labels, kappa.base_rate)))
    };
    let reseated = reseat_below_floor(&mut panel, floor, calibration.min_labels, &figure_of);
    if reseated.is_empty() {
        return definition;
    }
    for judge in &reseated {
        eprintln!(
            "quorum: calibration: {}",
            crate::text::for_stderr(&judge.why())
        );
    }
    match (
        serde_json::to_value(&panel),
        serde_json::to_value(&reseated),
    ) {
        (Ok(panel), Ok(reseated)) => {
            definition.set_value("panel", panel);
            definition.set_value("calibration", reseated);
        }
        _ => eprintln!(
            "quorum: calibration: the panel could not be written; it is seated as configured"
        ),
    }
    definition
}
