//! Step: the library's calibration of a new decision review's panel (issue
//! 55). `agents` are who plays each slot, `provider:model`. With `calibration.judge_kappa_floor` configured, a binding judge
//! whose agreement with the moderator (Cohen's kappa, from the library,
//! for its `provider:model` and the debate's prompt hash) is below the
//! floor over at least `min_labels` labels is seated advisory; the
//! definition records who and why, so resume and replay seat alike
//! without reading the library.
//!
//! Not responsible for the rule itself (each protocol's
//! `ProtocolKind::calibrate`: a decision review reseats its binding
//! judges, a protocol without binding judges changes nothing) nor for the
//! figures (`crate::store`). A library that cannot be read is said once on
//! stderr and the debate runs without calibration.

use std::collections::BTreeMap;

use crate::config::LoadedConfig;
use crate::protocol::kind::DebateDefinition;
use crate::store::Library;

/// `definition` with the judges the library finds below the floor
/// reseated by its protocol.
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
    let Some(kind) = crate::protocol::registry::find(definition.protocol()) else {
        return definition;
    };
    // The library is opened when the protocol first asks for a figure:
    // a protocol without binding judges never reads it.
    let figures = std::cell::OnceCell::new();
    let prompt_hash =
        crate::protocol::registry::prompt_hash(definition.protocol(), prompt_overrides);
    let figure_of = |slot: &str| {
        let figures = figures
            .get_or_init(|| {
                match Library::open_default().and_then(|library| library.judge_figures()) {
                    Ok(figures) => Some(figures),
                    Err(error) => {
                        eprintln!(
                            "quorum: library: {}; the debate runs without calibration",
                            crate::text::for_stderr(&error.to_string())
                        );
                        None
                    }
                }
            })
            .as_ref()?;
        let agent = agents.get(slot)?;
        let figure = figures
            .iter()
            .find(|figure| figure.agent == *agent && figure.prompt_hash == prompt_hash)?;
        let kappa = figure.kappa?;
        Some((agent.clone(), (kappa.kappa, kappa.labels, kappa.base_rate)))
    };
    let said = kind.calibrate(&mut definition, floor, calibration.min_labels, &figure_of);
    for line in said {
        eprintln!("quorum: calibration: {}", crate::text::for_stderr(&line));
    }
    definition
}
