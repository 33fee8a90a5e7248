//! The quick modes' entry in the registry: one command per mode
//! (`quorum challenge`, `panel`, `premortem`, `redteam`, `adversary`), the
//! spec keys (`mode`, and the adversary's `constraints` and `revision`),
//! the role slots, the demos, and how a debate is defined from them.

use serde::{Deserialize, Serialize};

use super::NAME;
use super::{Quick, QuickConfig, QuickMode};
use crate::located::SpecError;
use crate::protocol::Protocol;
use crate::protocol::kind::{
    Build, CommandSpec, Configure, Configured, DebateDefinition, KindInfo, OptionSpec,
    ProtocolKind, RoleSlot, Setting, ValueKind, read_options,
};

/// The registry's entry for the quick modes.
pub struct QuickKind;

/// The one instance the registry lists.
pub static KIND: QuickKind = QuickKind;

/// A quick debate's own spec keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct QuickOptions {
    #[serde(default = "default_mode")]
    mode: QuickMode,
    /// The architecture adversary's constraints.
    #[serde(default)]
    constraints: Vec<String>,
    /// The architecture adversary runs its revision step.
    #[serde(default = "yes")]
    revision: bool,
}

fn default_mode() -> QuickMode {
    QuickMode::Challenge
}

fn yes() -> bool {
    true
}

/// The quick modes, in the order `mode` lists them, the first the default.
const MODES: &[&str] = &["challenge", "panel", "premortem", "redteam", "adversary"];

/// What the quick modes are.
const INFO: KindInfo = KindInfo {
    name: NAME,
    title: "quick mode",
    modes: MODES,
    commands: &[
        CommandSpec {
            name: "challenge",
            about: "A 1:1 challenge: one critic pushes on a position and says whether it holds",
            subject: "POSITION",
            subject_help: "The position to challenge, e.g. \"We should rewrite the billing service in Go\"",
            mode: Some("challenge"),
            options: &[],
        },
        CommandSpec {
            name: "panel",
            about: "A panel review: three independent reviewers, then one document for a reader",
            subject: "TOPIC",
            subject_help: "What to review, e.g. \"The on-call handbook draft\" (attach it with --context)",
            mode: Some("panel"),
            options: &[],
        },
        CommandSpec {
            name: "premortem",
            about: "A pre-mortem: imagine the plan failed six months from now, and learn why",
            subject: "PLAN",
            subject_help: "The project or plan about to start",
            mode: Some("premortem"),
            options: &[],
        },
        CommandSpec {
            name: "redteam",
            about: "A red team: attack a target as an adversary would; triage the findings",
            subject: "TARGET",
            subject_help: "What to attack, e.g. \"The password-reset flow\" (attach its code or design with --context)",
            mode: Some("redteam"),
            options: &[],
        },
        CommandSpec {
            name: "adversary",
            about: "An architecture challenge: propose, attack, revise, with no judges",
            subject: "QUESTION",
            subject_help: "The architecture question, e.g. \"How should we fan out notifications?\"",
            mode: Some("adversary"),
            options: &["constraints", "revision"],
        },
    ],
    options: &[
        OptionSpec {
            key: "mode",
            flag: "mode",
            value_name: "MODE",
            help: "Which quick mode: challenge, panel, premortem, redteam or adversary",
            kind: ValueKind::Text,
            values: MODES,
        },
        OptionSpec {
            key: "constraints",
            flag: "constraint",
            value_name: "TEXT",
            help: "A constraint the architecture must meet (repeatable)",
            kind: ValueKind::List,
            values: &[],
        },
        OptionSpec {
            key: "revision",
            flag: "no-revision",
            value_name: "",
            help: "Leave out the proposer's answer to the challenge (it runs by default)",
            kind: ValueKind::Switch(false),
            values: &[],
        },
    ],
    templates: super::prompts::TEMPLATES,
    slots: super::SLOTS,
    demos: &[
        include_str!("../../../demo/quick-challenge.yaml"),
        include_str!("../../../demo/quick-panel.yaml"),
        include_str!("../../../demo/quick-premortem.yaml"),
        include_str!("../../../demo/quick-redteam.yaml"),
        include_str!("../../../demo/quick-adversary.yaml"),
    ],
};

impl ProtocolKind for QuickKind {
    fn info(&self) -> &KindInfo {
        &INFO
    }

    fn role_words(&self) -> Vec<&'static str> {
        super::role_words()
    }

    fn every_stage(&self) -> Vec<&'static str> {
        super::every_stage()
    }

    fn configure(&self, input: &Configure<'_>) -> Result<Box<dyn Configured>, SpecError> {
        let options: QuickOptions = read_options(input)?;
        let field = |key: &str| input.field(key);
        if options.mode != QuickMode::Adversary {
            if !options.constraints.is_empty() {
                return Err(SpecError::new(format!(
                    "constraints belong to the adversary mode; {} has none",
                    options.mode.a_title()
                ))
                .field(field("constraints")));
            }
            if !options.revision {
                return Err(SpecError::new(format!(
                    "only the adversary mode has a revision to leave out; {} has none",
                    options.mode.a_title()
                ))
                .field(field("revision")));
            }
        }
        if let Some(index) = options
            .constraints
            .iter()
            .position(|constraint| constraint.trim().is_empty())
        {
            return Err(SpecError::new("a constraint must not be empty")
                .field(format!("{}[{index}]", field("constraints"))));
        }
        Ok(Box::new(options))
    }

    fn build(&self, input: Build<'_>) -> Result<Box<dyn Protocol>, String> {
        input.protocol("quick debate", Quick::new)
    }
}

impl QuickOptions {
    /// The configuration these options give, before its agents are known.
    fn config(&self, setting: Setting) -> QuickConfig {
        QuickConfig {
            mode: self.mode,
            topic: setting.topic,
            context: setting.context,
            constraints: self
                .constraints
                .iter()
                .map(|constraint| constraint.trim().to_string())
                .collect(),
            revision: self.revision,
            seating: setting.seating,
            checks_rulings: true,
        }
    }
}

impl Configured for QuickOptions {
    fn label(&self) -> String {
        format!("quick {}", self.mode.title())
    }

    /// A panel review's synthesizer reads the reviews blind and in its own
    /// order, and the reviewers' readings measure the panel's agreement
    /// (fair judging). No one's work is scored, so there is no recusal.
    fn reads_blind(&self) -> bool {
        self.mode == QuickMode::Panel
    }

    /// The mode's seats ([`super::roster`]): the synthesizer defaults to
    /// the lead's agent.
    fn roles(&self) -> Vec<RoleSlot> {
        super::roster(self.mode).role_slots()
    }

    fn define(&self, setting: Setting) -> DebateDefinition {
        DebateDefinition::new(NAME, &self.config(setting))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::prompts::PromptSet;
    use crate::protocol::kind::FlagValue;

    fn configure(spec: &str, flags: &[FlagValue]) -> Result<Box<dyn Configured>, SpecError> {
        KIND.configure(&Configure::from_spec(Path::new("spec.yaml"), spec, flags))
    }

    fn slots(configured: &dyn Configured) -> Vec<String> {
        configured
            .roles()
            .into_iter()
            .map(|role| role.slot)
            .collect()
    }

    /// The modes are the quick modes, in order, the first the default.
    #[test]
    fn the_modes_are_the_quick_modes() {
        let modes: Vec<&str> = QuickMode::ALL.map(QuickMode::as_str).to_vec();
        assert_eq!(MODES, modes);
        assert_eq!(default_mode(), QuickMode::ALL[0]);
    }

    /// QM-01, QM-04, QM-10, QM-13, QM-16: each mode seats exactly its roles;
    /// INF-25: the challenge seats no judge, INF-26: the panel three.
    #[test]
    fn qm_01_inf_25_inf_26_each_mode_seats_its_roles() {
        let seats = |mode: &str| {
            slots(
                configure(&format!("topic: x\nmode: {mode}\n"), &[])
                    .unwrap()
                    .as_ref(),
            )
        };
        assert_eq!(seats("challenge"), ["critic"]);
        assert_eq!(
            seats("panel"),
            [
                "judge.aesthete",
                "judge.stylist",
                "judge.analyst",
                "synthesizer"
            ]
        );
        assert_eq!(seats("premortem"), ["critic", "synthesizer"]);
        assert_eq!(seats("redteam"), ["critic", "synthesizer"]);
        assert_eq!(seats("adversary"), ["proposer", "critic", "synthesizer"]);
    }

    #[test]
    fn the_synthesizer_defaults_to_the_leads_agent() {
        let roles = configure("topic: x\nmode: adversary\n", &[])
            .unwrap()
            .roles();
        let synthesizer = roles
            .iter()
            .find(|role| role.slot == "synthesizer")
            .unwrap();
        assert_eq!(synthesizer.defaults_to.as_deref(), Some("proposer"));
        let roles = configure("topic: x\nmode: panel\n", &[]).unwrap().roles();
        let synthesizer = roles
            .iter()
            .find(|role| role.slot == "synthesizer")
            .unwrap();
        assert_eq!(synthesizer.defaults_to.as_deref(), Some("judge.analyst"));
    }

    #[test]
    fn adversary_options_belong_to_the_adversary() {
        let error = configure("topic: x\nmode: panel\nconstraints: [a]\n", &[])
            .err()
            .unwrap();
        assert_eq!(error.field.as_deref(), Some("constraints"));
        let error = configure(
            "topic: x\nmode: challenge\n",
            &[FlagValue::new("--no-revision", "revision", false)],
        )
        .err()
        .unwrap();
        assert_eq!(error.field.as_deref(), Some("--no-revision"));
        let error = configure("topic: x\nmode: adversary\nconstraints: [\"  \"]\n", &[])
            .err()
            .unwrap();
        assert_eq!(error.field.as_deref(), Some("constraints[0]"));
        let error = configure("topic: x\nmode: sideways\n", &[]).err().unwrap();
        assert_eq!(error.line, Some(2), "{error}");
    }

    /// The definition a quick debate journals builds the protocol back.
    #[test]
    fn a_definition_builds_its_protocol() {
        let configured = configure(
            "topic: How should we fan out notifications?\nmode: adversary\nconstraints: [one region]\nrevision: false\n",
            &[],
        )
        .unwrap();
        let definition = configured.define(Setting {
            topic: "How should we fan out notifications?".into(),
            ..Setting::default()
        });
        assert_eq!(definition.protocol(), NAME);
        let config: QuickConfig = definition.config().unwrap();
        assert_eq!(config.constraints, ["one region"]);
        assert!(!config.revision);
        let protocol =
            crate::protocol::registry::build(&definition, Arc::new(PromptSet::builtin())).unwrap();
        assert_eq!(protocol.describe().deliverable, "architecture-challenge.md");
    }
}
