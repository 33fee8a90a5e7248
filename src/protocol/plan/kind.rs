//! The planning debate's entry in the registry: `quorum plan GOAL
//! [--simple]`, the spec key `simple`, the role slots, the demo, and a
//! headless run that takes the planner's proposed responses unless
//! `--moderation` says otherwise.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{CRITIC, OPTIMIZER, PLANNER, Plan, PlanConfig, SYNTHESIZER};
use crate::prompts::{PromptSet, TemplateSpec};
use crate::protocol::registry::{
    CommandSpec, Configure, Configured, DebateDefinition, OptionSpec, ProtocolKind, RoleSlot,
    Setting, ValueKind, read_options,
};
use crate::protocol::{Protocol, RoleGroup};
use crate::spec::SpecError;

/// What a spec's `protocol:` says for a planning debate.
pub const NAME: &str = "plan";

/// The registry's entry for the planning debate.
pub struct PlanKind;

/// The one instance the registry lists.
pub static KIND: PlanKind = PlanKind;

/// The built-in demo: a scripted planning debate.
const DEMO: &str = include_str!("../../../demo/plan-tenant-export.yaml");

/// A planning debate's own spec keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct PlanOptions {
    /// Planner and synthesizer only.
    #[serde(default)]
    simple: bool,
}

const OPTIONS: &[OptionSpec] = &[OptionSpec {
    key: "simple",
    flag: "simple",
    value_name: "",
    help: "Simple mode: the planner drafts and the synthesizer writes the plan, with no critic or optimizer",
    kind: ValueKind::Switch(true),
    values: &[],
}];

const COMMANDS: &[CommandSpec] = &[CommandSpec {
    name: "plan",
    about: "A planning debate: planner, critic and optimizer argue a plan; you decide each item; a synthesizer writes plan.md",
    subject: "GOAL",
    subject_help: "What to plan, e.g. \"Let tenants export their data as CSV\"",
    mode: None,
    options: &["simple"],
}];

const SLOTS: &[&str] = &[PLANNER, CRITIC, OPTIMIZER, SYNTHESIZER];

impl ProtocolKind for PlanKind {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "planning debate"
    }

    fn commands(&self) -> &'static [CommandSpec] {
        COMMANDS
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn templates(&self) -> &'static [TemplateSpec] {
        super::prompts::TEMPLATES
    }

    fn slots(&self) -> &'static [&'static str] {
        SLOTS
    }

    fn every_stage(&self) -> Vec<&'static str> {
        super::every_stage()
    }

    fn slot_note(&self, slot: &str) -> Option<&'static str> {
        matches!(slot, CRITIC | OPTIMIZER).then_some("not in --simple")
    }

    fn follows_suggestions(&self) -> bool {
        true
    }

    fn configure(&self, input: &Configure<'_>) -> Result<Box<dyn Configured>, SpecError> {
        let options: PlanOptions = read_options(input)?;
        Ok(Box::new(options))
    }

    fn build(
        &self,
        definition: &DebateDefinition,
        prompts: Arc<PromptSet>,
    ) -> Result<Box<dyn Protocol>, String> {
        let config: PlanConfig = definition
            .config()
            .map_err(|error| format!("the planning debate's definition does not read: {error}"))?;
        Ok(Box::new(Plan::new(config, prompts)))
    }

    fn demo(&self, mode: Option<&str>) -> Option<&'static str> {
        mode.is_none().then_some(DEMO)
    }
}

impl PlanOptions {
    fn config(&self, setting: Setting) -> PlanConfig {
        PlanConfig {
            topic: setting.topic,
            context: setting.context,
            simple: self.simple,
            agents: setting.agents,
            prices: setting.prices,
            started_at: setting.started_at,
            hold_for_moderator: false,
            checks_rulings: true,
        }
    }
}

impl Configured for PlanOptions {
    fn label(&self) -> String {
        if self.simple {
            "planning debate (simple)".into()
        } else {
            "planning debate".into()
        }
    }

    fn roles(&self) -> Vec<RoleSlot> {
        let config = self.config(Setting {
            topic: String::new(),
            context: Vec::new(),
            agents: Default::default(),
            prices: Default::default(),
            started_at: chrono::DateTime::UNIX_EPOCH,
        });
        config
            .slots()
            .into_iter()
            .map(|(slot, group)| match group {
                RoleGroup::Synthesizer => RoleSlot::new(slot, group).defaulting_to(PLANNER),
                _ => RoleSlot::new(slot, group),
            })
            .collect()
    }

    fn define(&self, setting: Setting) -> DebateDefinition {
        DebateDefinition::new(NAME, &self.config(setting))
    }
}
