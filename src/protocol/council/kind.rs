//! The council's entry in the registry: `quorum council SCOPE`, the spec
//! keys (`domains`, `mode`, `intensity`, `preset`, `review_id`,
//! `fallback`, `context_summary`, `outputs`, `task_context`,
//! `context_policy`), the role slots
//! (`expert.<domain>`, `devil-advocate`, `integration-checker`, and a
//! brainstorm's `synthesizer`), the demos and the verdict recomputed from
//! the files on disk.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::NAME;
use super::model::{
    CHECKER, CouncilMode, DEVIL, Intensity, Preset, Role, SYNTHESIZER, TaskContext, roster,
};
use super::{Council, CouncilConfig, Step, domains};
use crate::input::RecordFiles;
use crate::located::SpecError;
use crate::protocol::Protocol;
use crate::protocol::kind::{
    Build, CommandSpec, Configure, Configured, DebateDefinition, KindInfo, OptionSpec,
    ProtocolKind, RecomputeError, Recomputed, RoleSlot, Setting, ValueKind, read_options,
};
use crate::protocol::roster::Roster;

/// The registry's entry for the council.
pub struct CouncilKind;

/// The one instance the registry lists.
pub static KIND: CouncilKind = CouncilKind;

/// The built-in demo of the findings modes: a payment webhook reviewed by
/// four experts.
const DEMO: &str = include_str!("../../../demo/council-webhooks.yaml");
/// The built-in demo of the proposing modes: a brainstorm.
const BRAINSTORM_DEMO: &str = include_str!("../../../demo/council-brainstorm.yaml");

/// At most this many experts: with the devil's advocate and the
/// integration checker, eight panes stay readable.
pub const MAX_EXPERTS: usize = 6;

/// Longest review id, in chars: it names the deliverable's files.
const MAX_REVIEW_ID_CHARS: usize = 64;

/// Where the deliverable pair goes when nothing says (FP-52).
pub const DEFAULT_OUTPUTS: &str = ".outputs";

/// The council's own spec keys.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct CouncilOptions {
    #[serde(default)]
    mode: CouncilMode,
    #[serde(default)]
    domains: Vec<String>,
    #[serde(default)]
    intensity: Intensity,
    #[serde(default)]
    preset: Preset,
    review_id: Option<String>,
    #[serde(default)]
    fallback: bool,
    context_summary: Option<String>,
    outputs: Option<String>,
    /// The task context, when it is not the mode's own (issue 60).
    task_context: Option<String>,
    /// Round 1's context policy (FP-01, FP-05).
    context_policy: Option<String>,
    /// How many variants of the final positions the stability receipt asks
    /// for after the verdict (issue 55); 0 or absent: none.
    #[serde(default, skip_serializing_if = "is_zero")]
    stability: u32,
    /// A PASS must hold in every variant of the receipt, else CONCERNS.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    require_stability: bool,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// `--domain`'s help, with every domain of the registry (a test keeps
/// the two together).
const DOMAIN_HELP: &str = "A domain to seat an expert for (repeatable, at most 6; default by mode): accessibility, api, architecture, brand, compliance, content, correctness, cost, data, documentation, evidence, maintainability, operations, performance, privacy, product, reliability, scalability, security, testing, ux";

/// The task contexts `--task-context` names.
const TASK_CONTEXTS: &[&str] = &["code", "security", "architecture", "research", "content"];

/// The council's modes, the first the default.
const MODES: &[&str] = &[
    "review",
    "audit",
    "brainstorm",
    "design",
    "research",
    "synthesis",
];

/// What a council is.
const INFO: KindInfo = KindInfo {
    name: NAME,
    title: "council",
    modes: MODES,
    commands: &[CommandSpec {
        name: "council",
        about: "A five-phase council: independent experts, a devil's advocate, challenge rounds, PASS / CONCERNS / FAIL",
        subject: "SCOPE",
        subject_help: "What the council reviews, audits, researches or designs, e.g. \"The payment webhook handler\" (attach the material with --context)",
        mode: None,
        options: &[
            "mode",
            "domains",
            "intensity",
            "preset",
            "review_id",
            "fallback",
            "context_summary",
            "outputs",
            "task_context",
            "context_policy",
            "stability",
            "require_stability",
        ],
    }],
    options: &[
        OptionSpec {
            key: "mode",
            flag: "mode",
            value_name: "MODE",
            help: "What the council does: review, audit, research, synthesis (findings and a verdict), brainstorm or design (proposals and a handoff)",
            kind: ValueKind::Text,
            values: MODES,
        },
        OptionSpec {
            key: "domains",
            flag: "domain",
            value_name: "DOMAIN",
            help: DOMAIN_HELP,
            kind: ValueKind::List,
            values: &[],
        },
        OptionSpec {
            key: "intensity",
            flag: "intensity",
            value_name: "LEVEL",
            help: "quick (no challenge rounds), standard (up to 3) or thorough (up to 5)",
            kind: ValueKind::Text,
            values: &["quick", "standard", "thorough"],
        },
        OptionSpec {
            key: "preset",
            flag: "preset",
            value_name: "PRESET",
            help: "default, or security-elevated (higher bars; any confirmed security finding fails)",
            kind: ValueKind::Text,
            values: &["default", "security-elevated"],
        },
        OptionSpec {
            key: "review_id",
            flag: "review-id",
            value_name: "ID",
            help: "The council's id, in the deliverable's file name (default: a new UUID)",
            kind: ValueKind::Text,
            values: &[],
        },
        OptionSpec {
            key: "fallback",
            flag: "fallback",
            value_name: "",
            help: "Independent answers only: skip the challenge rounds and the merges, and mark the result",
            kind: ValueKind::Switch(true),
            values: &[],
        },
        OptionSpec {
            key: "context_summary",
            flag: "summary",
            value_name: "TEXT",
            help: "A neutral statement of the task every participant gets (default: the scope)",
            kind: ValueKind::Text,
            values: &[],
        },
        OptionSpec {
            key: "task_context",
            flag: "task-context",
            value_name: "CONTEXT",
            help: "What the devil's advocate and the integration checker look for, when not the mode's own: code, security, architecture, research, or content (creative, UX and content work; default experts ux, content, accessibility)",
            kind: ValueKind::Text,
            values: TASK_CONTEXTS,
        },
        OptionSpec {
            key: "context_policy",
            flag: "context-policy",
            value_name: "POLICY",
            help: "How much the first round is told: minimal-non-leading, the one policy the first round may use (the default)",
            kind: ValueKind::Text,
            values: super::model::CONTEXT_POLICIES,
        },
        OptionSpec {
            key: "outputs",
            flag: "outputs",
            value_name: "DIR",
            help: "Where the deliverable pair goes: DIR/debate/ (default: .outputs under --out)",
            kind: ValueKind::Text,
            values: &[],
        },
        crate::protocol::stability::STABILITY_OPTION,
        crate::protocol::stability::REQUIRE_STABILITY_OPTION,
    ],
    templates: super::prompts::TEMPLATES,
    slots: &["expert.*", DEVIL, CHECKER, SYNTHESIZER],
    // One scripted council serves every findings mode and one every
    // proposing mode: `--mode` sets the mode over the demo's own.
    demos: &[DEMO, DEMO, BRAINSTORM_DEMO, BRAINSTORM_DEMO, DEMO, DEMO],
};

/// Whether `id` can name a review: letters, digits, `.`, `_` and `-`, not
/// starting with `.` or `-`; it becomes part of a file name.
pub fn valid_review_id(id: &str) -> bool {
    !id.is_empty()
        && id.chars().count() <= MAX_REVIEW_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !id.starts_with(['.', '-'])
}

impl ProtocolKind for CouncilKind {
    fn info(&self) -> &KindInfo {
        &INFO
    }

    fn seats(&self, slot: &str) -> bool {
        self.slots().contains(&slot)
            || slot
                .strip_prefix("expert.")
                .is_some_and(|domain| domains::find(domain).is_some())
    }

    fn every_stage(&self) -> Vec<&'static str> {
        Step::IDS.to_vec()
    }

    fn configure(&self, input: &Configure<'_>) -> Result<Box<dyn Configured>, SpecError> {
        let mut options: CouncilOptions = read_options(input)?;
        let field = |key: &str| input.field(key);
        let entry = |key: &str, index: usize| {
            let named = field(key);
            if named.starts_with("--") {
                named
            } else {
                format!("{key}[{index}]")
            }
        };
        for (index, domain) in options.domains.iter_mut().enumerate() {
            *domain = domain.trim().to_ascii_lowercase();
            if domains::find(domain).is_none() {
                return Err(SpecError::new(format!(
                    "`{domain}` is not a domain quorum knows; the domains are {}",
                    domains::names().join(", ")
                ))
                .field(entry("domains", index)));
            }
        }
        for (index, domain) in options.domains.iter().enumerate() {
            if options.domains[..index].contains(domain) {
                return Err(SpecError::new(format!(
                    "domain `{domain}` is named twice; a council seats one expert per domain"
                ))
                .field(entry("domains", index)));
            }
        }
        if options.domains.len() > MAX_EXPERTS {
            return Err(SpecError::new(format!(
                "{} domains is more than a council seats ({MAX_EXPERTS} experts, with the devil's advocate and the integration checker)",
                options.domains.len()
            ))
            .field(field("domains")));
        }
        let task_context = match &options.task_context {
            Some(word) => {
                let word = word.trim().to_ascii_lowercase();
                let Some(context) = TaskContext::ALL.into_iter().find(|c| c.word() == word) else {
                    return Err(SpecError::new(format!(
                        "`{word}` is not a task context; the task contexts are {}",
                        TASK_CONTEXTS.join(", ")
                    ))
                    .field(field("task_context")));
                };
                options.task_context = Some(word);
                Some(context)
            }
            None => None,
        };
        if let Some(policy) = &options.context_policy
            && !super::model::CONTEXT_POLICIES.contains(&policy.trim())
        {
            return Err(SpecError::new(format!(
                "`{policy}` is not a context policy quorum can run: a council's first round (discovery, or diverging in a brainstorm) must be minimal-non-leading, so that is the one policy"
            ))
            .field(field("context_policy")));
        }
        if options.domains.is_empty() {
            options.domains = domains::defaults_for(options.mode, task_context)
                .iter()
                .map(|d| d.to_string())
                .collect();
        }
        match &options.review_id {
            Some(id) if !valid_review_id(id) => {
                return Err(SpecError::new(format!(
                    "`{id}` cannot be a review id: use 1 to {MAX_REVIEW_ID_CHARS} letters, digits, `.`, `_` or `-`, not starting with `.` or `-` (it names the deliverable's files)"
                ))
                .field(field("review_id")));
            }
            Some(_) => {}
            None => options.review_id = Some(new_review_id()),
        }
        if let Some(summary) = &options.context_summary
            && summary.trim().is_empty()
        {
            options.context_summary = None;
        }
        crate::protocol::stability::check(
            options.stability,
            options.require_stability,
            options
                .mode
                .proposes()
                .then_some("a brainstorm or design council ends with a handoff"),
        )
        .map_err(|(key, problem)| SpecError::new(problem).field(field(key)))?;
        let options_named_outputs = options.outputs.is_some();
        // The specification's `.outputs/debate/…`, under the artifact root
        // (`--out`), not hidden in the working directory.
        let outputs = options.outputs.clone().unwrap_or_else(|| {
            input
                .artifact_root
                .map_or_else(
                    || PathBuf::from(DEFAULT_OUTPUTS),
                    |root| root.join(DEFAULT_OUTPUTS),
                )
                .display()
                .to_string()
        });
        if outputs.trim().is_empty() {
            return Err(SpecError::new("the outputs folder is empty").field(field("outputs")));
        }
        let outputs = PathBuf::from(outputs);
        let from_flag = input.flags.iter().any(|flag| flag.key == "outputs");
        // A spec's outputs folder is confined like the files it reads: it
        // lies in the spec's own folder. Only `--outputs`, the person's
        // own word, may send the deliverable anywhere.
        let outputs = match input.spec {
            Some((spec, _)) if !from_flag && options_named_outputs => {
                let folder = spec.parent().unwrap_or(Path::new("."));
                crate::input::in_spec_folder(folder, &outputs)
                    .map_err(|why| {
                        SpecError::new(format!(
                            "{why}; the deliverable of a spec's council lands in the spec's folder unless --outputs says otherwise"
                        ))
                        .field(field("outputs"))
                    })
                    .map(|inside| absolute(&inside))?
            }
            _ => absolute(&outputs),
        };
        options.outputs = Some(outputs.display().to_string());
        Ok(Box::new(options))
    }

    fn build(&self, input: Build<'_>) -> Result<Box<dyn Protocol>, String> {
        let config: CouncilConfig = input.config("council")?;
        // The review id names the deliverable's files: one from an edited
        // journal must not lead them out of the outputs folder.
        if !valid_review_id(&config.review_id) {
            return Err(format!(
                "the council's review id `{}` cannot name a file; the journal was edited",
                crate::text::sanitize(&config.review_id)
            ));
        }
        Ok(Box::new(Council::new(config, input.prompts)))
    }

    fn recompute(
        &self,
        files: &dyn RecordFiles,
        rechecked: Option<&crate::protocol::evidence::recheck::Rechecked>,
    ) -> Result<Recomputed, RecomputeError> {
        super::documents::recompute(files, rechecked)
    }
}

/// A fresh review id: a random (version 4) UUID (FP-02).
pub fn new_review_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

impl CouncilOptions {
    fn config(&self, setting: Setting) -> CouncilConfig {
        CouncilConfig {
            context_summary: self
                .context_summary
                .clone()
                .unwrap_or_else(|| setting.topic.clone()),
            topic: setting.topic,
            context: setting.context,
            review_id: self.review_id.clone().unwrap_or_default(),
            mode: self.mode,
            domains: self.domains.clone(),
            intensity: self.intensity,
            preset: self.preset,
            fallback: self.fallback,
            context_policy: self
                .context_policy
                .as_deref()
                .map(str::trim)
                .unwrap_or(super::model::CONTEXT_POLICIES[0])
                .to_string(),
            task_context: self.task_context.as_deref().and_then(|word| {
                TaskContext::ALL
                    .into_iter()
                    .find(|context| context.word() == word)
            }),
            outputs: self.outputs.clone().unwrap_or_default(),
            seating: setting.seating,
            binds_rulings: true,
            stability: crate::protocol::stability::Stability {
                variants: self.stability,
                required: self.require_stability,
                names_missing: true,
            },
        }
    }
}

impl CouncilOptions {
    /// The seats these options give a council ([`roster`]).
    fn roster(&self) -> Roster<Role> {
        roster(&self.domains, self.mode.proposes())
    }
}

impl Configured for CouncilOptions {
    /// Every participant's final position reads the findings blind and in
    /// its own order (fair judging), a brainstorm's proposals too.
    fn reads_blind(&self) -> bool {
        true
    }

    /// In a review, every participant confirms or disputes the others'
    /// findings: each judges each other's work. A brainstorm's convergence
    /// has no recusal yet.
    fn judged_authors(&self) -> Vec<(String, String)> {
        if self.mode.proposes() {
            return Vec::new();
        }
        let roster = self.roster();
        let seats = roster.seats().iter();
        let slots: Vec<String> = seats
            .filter(|seat| seat.role != Role::Synthesizer)
            .map(|seat| seat.slot.clone())
            .collect();
        slots
            .iter()
            .flat_map(|judge| {
                slots
                    .iter()
                    .filter(move |author| *author != judge)
                    .map(move |author| (judge.clone(), author.clone()))
            })
            .collect()
    }

    fn label(&self) -> String {
        format!(
            "council ({}, {}, {})",
            self.mode.as_str(),
            self.intensity.as_str(),
            self.domains.join(", ")
        )
    }

    fn roles(&self) -> Vec<RoleSlot> {
        self.roster().role_slots()
    }

    fn define(&self, setting: Setting) -> DebateDefinition {
        DebateDefinition::new(NAME, &self.config(setting))
    }
}

/// `path` made absolute against the current folder, so the deliverable
/// lands in the same place when the debate is resumed from elsewhere.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|dir| dir.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    // `./out` beside a spec given bare is `out`: one folder, one name.
    path.components()
        .filter(|part| !matches!(part, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::prompts::PromptSet;

    #[test]
    fn the_domain_help_lists_the_registry() {
        let listed = DOMAIN_HELP.rsplit_once(": ").unwrap().1;
        assert_eq!(listed, domains::names().join(", "));
    }

    /// The modes are the council's own, in order, each with the demo of
    /// what it ends with.
    #[test]
    fn each_mode_has_the_demo_of_its_kind() {
        let modes: Vec<&str> = CouncilMode::ALL.map(CouncilMode::as_str).to_vec();
        assert_eq!(MODES, modes);
        for mode in CouncilMode::ALL {
            let demo = if mode.proposes() {
                BRAINSTORM_DEMO
            } else {
                DEMO
            };
            assert_eq!(KIND.demo(Some(mode.as_str())), Some(demo), "{mode:?}");
        }
    }

    #[test]
    fn a_definition_with_an_unsafe_review_id_does_not_build() {
        use crate::protocol::kind::{Configure, Setting};
        let configured = KIND.configure(&Configure::default()).unwrap();
        let definition = configured.define(Setting {
            topic: "t".into(),
            ..Setting::default()
        });
        let mut map: serde_json::Map<String, serde_json::Value> = definition.into();
        map.insert("review_id".into(), "../../escape".into());
        let edited: DebateDefinition =
            serde_json::from_value(serde_json::Value::Object(map)).unwrap();
        let prompts = Arc::new(PromptSet::builtin());
        let error = crate::protocol::registry::build(&edited, prompts)
            .err()
            .expect("refused");
        assert!(error.contains("cannot name a file"), "{error}");
    }

    #[test]
    fn review_ids_name_files_safely() {
        for good in ["demo-webhooks", "2026.q4_audit", "a"] {
            assert!(valid_review_id(good), "{good}");
        }
        for bad in ["", "../x", "a/b", ".hidden", "-x", "a b", &"x".repeat(65)] {
            assert!(!valid_review_id(bad), "{bad}");
        }
    }
}
