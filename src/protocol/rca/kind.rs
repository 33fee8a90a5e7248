//! The root-cause analysis's entry in the registry: `quorum rca PROBLEM`,
//! the spec keys `debuggers` and `hypotheses`, the role slots
//! (`debugger.<name>` and `critic`), the demo, and the verdict recomputed
//! from `rca.yaml`.

use serde::{Deserialize, Serialize};

use super::NAME;
use super::parse::{Seeded, read_hypotheses_file};
use super::{Rca, RcaConfig, SeededHypothesis};
use crate::input::RecordFiles;
use crate::located::SpecError;
use crate::protocol::Protocol;
use crate::protocol::kind::{
    Build, CommandSpec, Configure, Configured, DebateDefinition, KindInfo, OptionSpec,
    ProtocolKind, RecomputeError, Recomputed, RoleSlot, Setting, ValueKind, read_options,
};

/// The registry's entry for the root-cause analysis.
pub struct RcaKind;

/// The one instance the registry lists.
pub static KIND: RcaKind = RcaKind;

/// The debuggers of an analysis that names none.
pub const DEFAULT_DEBUGGERS: [&str; 2] = ["alpha", "beta"];

/// Longest debugger name, in chars: it names a role slot and files.
const MAX_NAME_CHARS: usize = 24;

/// Where a team's hypotheses come from: a file, or the spec itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum HypothesesSource {
    File(String),
    Inline(yaml_serde::Value),
}

/// A root-cause analysis's own spec keys.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct RcaOptions {
    #[serde(default)]
    debuggers: Vec<String>,
    hypotheses: Option<HypothesesSource>,
    /// The hypotheses read from the file or the spec, owners resolved.
    #[serde(skip)]
    seeded: Vec<SeededHypothesis>,
}

/// What a root-cause analysis is.
const INFO: KindInfo = KindInfo {
    name: NAME,
    title: "root-cause analysis",
    modes: &[],
    commands: &[CommandSpec {
        name: "rca",
        about: "A root-cause analysis: debuggers' hypotheses cross-examined by a critic until one is proven",
        subject: "PROBLEM",
        subject_help: "What went wrong, as observed, e.g. \"Checkout p99 latency rose from 180 ms to 2.4 s at 14:03 UTC\"",
        mode: None,
        options: &["debuggers", "hypotheses"],
    }],
    options: &[
        OptionSpec {
            key: "debuggers",
            flag: "debugger",
            value_name: "NAME",
            help: "A debugger, as a role slot debugger.NAME (repeatable; default: alpha and beta, or the owners in --hypotheses)",
            kind: ValueKind::List,
            values: &[],
        },
        OptionSpec {
            key: "hypotheses",
            flag: "hypotheses",
            value_name: "FILE",
            help: "A YAML file of hypotheses the team already has (claim, evidence, reasoning, owner)",
            kind: ValueKind::Text,
            values: &[],
        },
    ],
    templates: super::prompts::TEMPLATES,
    slots: &["debugger.*", "critic"],
    // A latency spike, three hypotheses, one of each status.
    demos: &[include_str!("../../../demo/rca-latency.yaml")],
};

/// Whether `name` can name a debugger: lowercase letters, digits and `-`,
/// starting with a letter or digit.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
}

impl ProtocolKind for RcaKind {
    fn info(&self) -> &KindInfo {
        &INFO
    }

    fn every_stage(&self) -> Vec<&'static str> {
        super::every_stage()
    }

    fn seats(&self, slot: &str) -> bool {
        self.slots().contains(&slot) || slot.strip_prefix("debugger.").is_some_and(valid_name)
    }

    fn configure(&self, input: &Configure<'_>) -> Result<Box<dyn Configured>, SpecError> {
        let mut options: RcaOptions = read_options(input)?;
        let field = |key: &str| input.field(key);
        for (index, name) in options.debuggers.iter().enumerate() {
            if !valid_name(name) {
                return Err(SpecError::new(format!(
                    "`{name}` cannot name a debugger: use 1 to {MAX_NAME_CHARS} lowercase letters, digits or `-`"
                ))
                .field(if field("debuggers").starts_with("--") {
                    field("debuggers")
                } else {
                    format!("debuggers[{index}]")
                }));
            }
            if options.debuggers[..index].contains(name) {
                return Err(SpecError::new(format!("debugger `{name}` is named twice"))
                    .field(field("debuggers")));
            }
        }
        let seeded = match &options.hypotheses {
            None => Vec::new(),
            Some(source) => read_seeded(source, input, &field("hypotheses"), &options.debuggers)?,
        };
        if options.debuggers.is_empty() {
            for seed in &seeded {
                if let Some(owner) = &seed.owner
                    && !options.debuggers.contains(owner)
                {
                    options.debuggers.push(owner.clone());
                }
            }
        }
        if options.debuggers.is_empty() {
            options.debuggers = DEFAULT_DEBUGGERS.map(str::to_string).to_vec();
        }
        options.seeded = seeded
            .into_iter()
            .map(|seed| {
                let owner = seed.owner.unwrap_or_else(|| options.debuggers[0].clone());
                SeededHypothesis {
                    owner,
                    finding: seed.finding,
                }
            })
            .collect();
        Ok(Box::new(options))
    }

    fn build(&self, input: Build<'_>) -> Result<Box<dyn Protocol>, String> {
        input.protocol("root-cause analysis", Rca::new)
    }

    fn recompute(
        &self,
        files: &dyn RecordFiles,
        rechecked: Option<&crate::protocol::evidence::recheck::Rechecked>,
    ) -> Result<Recomputed, RecomputeError> {
        super::documents::recompute(files, rechecked)
    }
}

/// The hypotheses of `source`, every owner checked against the debuggers
/// named; errors name the file, the line and the field.
fn read_seeded(
    source: &HypothesesSource,
    input: &Configure<'_>,
    field: &str,
    debuggers: &[String],
) -> Result<Vec<Seeded>, SpecError> {
    let (file, text) = match source {
        HypothesesSource::File(path) => {
            let kind = crate::input::Kind::new("hypotheses file", crate::input::HYPOTHESES_LIMIT);
            let (path, text) = input
                .read_named(path, field, kind)
                .map_err(|why| SpecError::new(why).field(field.to_string()))?;
            crate::located::guard(&path, &text)?;
            (Some(path), text)
        }
        HypothesesSource::Inline(value) => (
            None,
            yaml_serde::to_string(&serde_json::json!({ "hypotheses": value })).unwrap_or_default(),
        ),
    };
    let seeded = read_hypotheses_file(&text).map_err(|error| {
        // A file is not an agent's answer: no hint about fences.
        let message = error.message.trim_end_matches(crate::parse::NO_FENCE_HINT);
        let mut spec_error = SpecError::new(message);
        spec_error.field = error.field.clone().or_else(|| Some(field.to_string()));
        match &file {
            Some(path) => {
                spec_error.file = Some(path.clone());
                spec_error.line = error.line;
                spec_error
            }
            None => spec_error.field(format!(
                "hypotheses{}",
                error
                    .field
                    .as_deref()
                    .and_then(|f| f.strip_prefix("hypotheses"))
                    .unwrap_or_default()
            )),
        }
    })?;
    for (index, seed) in seeded.iter().enumerate() {
        let Some(owner) = &seed.owner else { continue };
        let problem = if !valid_name(owner) {
            format!(
                "`{owner}` cannot name a debugger: use 1 to {MAX_NAME_CHARS} lowercase letters, digits or `-`"
            )
        } else if !debuggers.is_empty() && !debuggers.contains(owner) {
            format!(
                "`{owner}` is not one of the debuggers ({}); name it with --debugger or change the owner",
                debuggers.join(", ")
            )
        } else {
            continue;
        };
        let mut error = SpecError::new(problem).field(format!("hypotheses[{index}].owner"));
        if let Some(path) = &file {
            error.file = Some(path.clone());
            error.line = super::parse::hypotheses_entry_line(&text, index);
        }
        return Err(error);
    }
    Ok(seeded)
}

impl RcaOptions {
    fn config(&self, setting: Setting) -> RcaConfig {
        RcaConfig {
            topic: setting.topic,
            context: setting.context,
            debuggers: self.debuggers.clone(),
            seeded: self.seeded.clone(),
            seating: setting.seating,
            restates_hedged_claims: true,
        }
    }
}

impl Configured for RcaOptions {
    fn label(&self) -> String {
        format!("root-cause analysis ({})", self.debuggers.join(", "))
    }

    fn roles(&self) -> Vec<RoleSlot> {
        super::roster(&self.debuggers).role_slots()
    }

    fn define(&self, setting: Setting) -> DebateDefinition {
        DebateDefinition::new(NAME, &self.config(setting))
    }
}
