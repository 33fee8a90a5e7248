//! The planning debate's entry in the registry: `quorum plan GOAL
//! [--simple]`, the spec key `simple`, the role slots, the demo, and a
//! headless run that takes the planner's proposed responses unless
//! `--moderation` says otherwise.

use serde::{Deserialize, Serialize};

use super::{CRITIC, OPTIMIZER, PLANNER, Plan, PlanConfig, SYNTHESIZER};
use crate::protocol::Protocol;
use crate::protocol::registry::{
    Build, CommandSpec, Configure, Configured, DebateDefinition, KindInfo, OptionSpec,
    ProtocolKind, RoleSlot, Setting, ValueKind, read_options,
};
use crate::spec::SpecError;

/// What a spec's `protocol:` says for a planning debate.
pub const NAME: &str = "plan";

/// The registry's entry for the planning debate.
pub struct PlanKind;

/// The one instance the registry lists.
pub static KIND: PlanKind = PlanKind;

/// A planning debate's own spec keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct PlanOptions {
    /// Planner and synthesizer only.
    #[serde(default)]
    simple: bool,
}

/// What a planning debate is.
const INFO: KindInfo = KindInfo {
    name: NAME,
    title: "planning debate",
    modes: &[],
    commands: &[CommandSpec {
        name: "plan",
        about: "A planning debate: planner, critic and optimizer argue a plan; you decide each item; a synthesizer writes plan.md",
        subject: "GOAL",
        subject_help: "What to plan, e.g. \"Let tenants export their data as CSV\"",
        mode: None,
        options: &["simple"],
    }],
    options: &[OptionSpec {
        key: "simple",
        flag: "simple",
        value_name: "",
        help: "Simple mode: the planner drafts and the synthesizer writes the plan, with no critic or optimizer",
        kind: ValueKind::Switch(true),
        values: &[],
    }],
    templates: super::prompts::TEMPLATES,
    slots: &[PLANNER, CRITIC, OPTIMIZER, SYNTHESIZER],
    // A scripted planning debate.
    demos: &[include_str!("../../../demo/plan-tenant-export.yaml")],
};

impl ProtocolKind for PlanKind {
    fn info(&self) -> &KindInfo {
        &INFO
    }

    /// The plan that fixes the root-cause demo's proven cause.
    fn chain_demo(&self, from: &str) -> Option<&'static str> {
        (from == "root-cause analysis").then_some(include_str!("../../../demo/chain-rca-plan.yaml"))
    }

    /// A proven root cause is the plan's goal (set by the caller, with the
    /// cause in the context): nothing else of the plan changes.
    fn receive(
        &self,
        definition: &DebateDefinition,
        handoff: &crate::protocol::handoff::Handoff,
    ) -> Result<DebateDefinition, String> {
        match handoff.handed {
            crate::protocol::handoff::Handed::Cause { .. } => Ok(definition.clone()),
            _ => Err(format!(
                "a {} hands on {}, which {} takes, not a planning debate",
                handoff.from,
                handoff.handed.takes().what(),
                handoff.handed.takes().receiver()
            )),
        }
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

    fn build(&self, input: Build<'_>) -> Result<Box<dyn Protocol>, String> {
        input.protocol("planning debate", Plan::new)
    }
}

impl PlanOptions {
    fn config(&self, setting: Setting) -> PlanConfig {
        PlanConfig {
            topic: setting.topic,
            context: setting.context,
            simple: self.simple,
            seating: setting.seating,
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
        RoleSlot::led_by(self.config(Setting::default()).slots(), PLANNER)
    }

    fn define(&self, setting: Setting) -> DebateDefinition {
        DebateDefinition::new(NAME, &self.config(setting))
    }
}
