//! The planning debate's entry in the registry: `quorum plan GOAL
//! [--simple] [--write-docs DIR]`, the spec keys `simple` and
//! `write_docs`, the role slots, the demo, and a headless run that takes
//! the planner's proposed responses unless `--moderation` says otherwise.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::NAME;
use super::{CRITIC, OPTIMIZER, PLANNER, Plan, PlanConfig, SYNTHESIZER};
use crate::located::SpecError;
use crate::protocol::Protocol;
use crate::protocol::kind::{
    Build, CommandSpec, Configure, Configured, DebateDefinition, KindInfo, OptionSpec,
    ProtocolKind, RoleSlot, Setting, ValueKind, read_options,
};

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
    /// A repository's folder the synthesizer's files also go to
    /// (issue 60): its `docs/plans/` and `docs/adr/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    write_docs: Option<String>,
    /// The decision record's number there, found when the debate is set
    /// up; not a spec key.
    #[serde(skip)]
    adr_number: u32,
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
        options: &["simple", "write_docs"],
    }],
    options: &[
        OptionSpec {
            key: "simple",
            flag: "simple",
            value_name: "",
            help: "Simple mode: the planner drafts and the synthesizer writes the plan, with no critic or optimizer",
            kind: ValueKind::Switch(true),
            values: &[],
        },
        OptionSpec {
            key: "write_docs",
            flag: "write-docs",
            value_name: "DIR",
            help: "Also write the plan, its decision record and the index line into DIR/docs/plans/ and DIR/docs/adr/ (a repository's own); without it they go only to the run folder's docs/",
            kind: ValueKind::Text,
            values: &[],
        },
    ],
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
        let mut options: PlanOptions = read_options(input)?;
        if let Some(written) = options.write_docs.clone() {
            let field = input.field("write_docs");
            if written.trim().is_empty() {
                return Err(SpecError::new("the folder to write docs into is empty").field(field));
            }
            let from_flag = input.flags.iter().any(|flag| flag.key == "write_docs");
            // A spec's folder is confined like the files it reads: it lies
            // in the spec's own folder. Only `--write-docs`, the person's
            // own word, may name any folder.
            let root = match input.spec {
                Some((spec, _)) if !from_flag => {
                    let folder = spec.parent().unwrap_or(Path::new("."));
                    crate::input::in_spec_folder(folder, Path::new(&written))
                        .map_err(|why| {
                            SpecError::new(format!(
                                "{why}; a spec's plan writes docs only inside the spec's folder unless --write-docs says otherwise"
                            ))
                            .field(field)
                        })
                        .map(|inside| crate::protocol::council::kind::absolute(&inside))?
                }
                _ => crate::protocol::council::kind::absolute(&PathBuf::from(&written)),
            };
            options.adr_number =
                super::docs::highest_adr(&root.join("docs").join("adr")).saturating_add(1);
            options.write_docs = Some(root.display().to_string());
        }
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
            docs: self.write_docs.clone().map(|root| super::docs::DocsTarget {
                root,
                adr_number: self.adr_number.max(1),
            }),
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
        super::roster(self.simple).role_slots()
    }

    fn define(&self, setting: Setting) -> DebateDefinition {
        DebateDefinition::new(NAME, &self.config(setting))
    }
}
