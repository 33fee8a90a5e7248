//! From a spec file, a protocol's command (`quorum review`, `quorum panel`)
//! or a built-in demo to a debate that is ready to run, whatever its
//! protocol: configuration, the protocol's options, agents per role, prompts.
//!
//! Precedence: flags over the spec over the configuration file over defaults
//! (and, for agents, over auto-detection; see `config::resolve`). All checks
//! happen here, before anything is written. The protocol is met only through
//! its registry entry: it reads its own options and says which role slots it
//! seats and how its debate is defined.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::Utc;

use crate::agent::human::HumanDesk;
use crate::agent::script::Script;
use crate::config;
use crate::config::detect::{Environment, SystemEnvironment};
use crate::config::resolve::parse_agent_flags;
use crate::config::roles::AgentSpec;
use crate::engine::{Alternative, ModerationPolicy, Roster, RunSetup};
use crate::evidence::SourceRecord;
use crate::input;
use crate::located::SpecError;
use crate::prompts::{PromptSet, default_override_dir};
use crate::protocol::budget::Budget;
use crate::protocol::fairness::{Fairness, Family, Recusal};
use crate::protocol::handoff::Handoff;
use crate::protocol::kind::{
    Build, Configure, Configured, DebateDefinition, ProtocolKind, Setting,
};
use crate::protocol::registry::{self, Registered};
use crate::protocol::usage::Price;
use crate::protocol::{ContextDoc, Seating};
use crate::spec::{self, ContextSpec, DebateSpec};

use super::RunFlags;

mod agents;
mod calibration;
mod rebuild;
mod reload;
mod sources;

pub use agents::resolve_alternative;
pub(crate) use agents::watch_keys;
use agents::{Assigned, assign_agents};
pub use rebuild::{Rebuilt, rebuild};
pub(super) use reload::{Followed, Reloaded, follow, reload};
use sources::load_sources;

/// How errors and records name a built-in demo.
pub const DEMO_SPEC_NAME: &str = "<built-in demo>";

/// Where a debate's definition comes from.
pub enum Source {
    /// The default protocol's built-in demo (`quorum demo`).
    Demo,
    /// A protocol's built-in demo, by the protocol's name (`quick`) or a
    /// command's (`panel`): `quorum demo --protocol NAME`.
    DemoOf(String),
    /// A protocol's command: `quorum review TOPIC --context FILE`.
    Command {
        command: String,
        subject: String,
        context: Vec<PathBuf>,
        script: Option<PathBuf>,
    },
    /// `quorum run SPEC`.
    Spec(PathBuf),
    /// A spec that never was a file (a tool call of `quorum mcp`): its
    /// text, and the name its errors are located in, whose folder its
    /// relative paths resolve against and are confined to.
    Inline { name: PathBuf, text: String },
}

/// A debate ready to run.
pub struct Prepared {
    /// What the journal's first line records; the protocol is built from it.
    pub definition: DebateDefinition,
    /// `decision review (architecture)`, for the first line of a run.
    pub label: String,
    pub roster: Roster,
    pub moderation: ModerationPolicy,
    pub prompts: Arc<PromptSet>,
    /// Where answers typed for roles played by a person arrive.
    pub human_desk: Arc<HumanDesk>,
    /// Roles played by a person (`--agent ROLE=human`).
    pub human_roles: Vec<String>,
    /// Agents the moderator may switch a stuck role to: every configured
    /// model that can be built, and the models already in the debate.
    pub alternatives: Vec<Alternative>,
    /// The configuration file's theme, if it names one.
    pub theme: Option<String>,
    /// Where that theme is named (`config.yaml:3: theme`), for errors.
    pub theme_source: String,
    /// The configuration's pace of streamed text, and where it is named.
    pub stream_fps: Option<(f64, String)>,
    /// How the agents were put together, for the journal (resume).
    pub setup: RunSetup,
    /// What another debate handed on (`--from DIR`), with its folder.
    pub handed: Option<(PathBuf, Handoff)>,
}

impl Prepared {
    /// The protocol of the prepared debate, ready to run.
    pub fn protocol(&self) -> Box<dyn crate::protocol::Protocol> {
        registry::build(&self.definition, self.prompts.clone())
            .expect("a definition prepare made builds its protocol")
    }
}

/// Builds the debate; every problem is a located [`SpecError`].
pub fn prepare(source: Source, flags: &RunFlags) -> Result<Prepared, SpecError> {
    prepare_in(source, flags, &SystemEnvironment)
}

/// The mode a demo's `--mode` flag asks for, if any.
fn mode_flag(flags: &RunFlags) -> Option<String> {
    flags
        .options
        .iter()
        .rev()
        .find(|flag| flag.key == "mode")
        .and_then(|flag| flag.value.as_str().map(str::to_string))
}

/// The protocol and the demo spec text a demo source names; `mode` (from
/// `--mode`) picks one of the protocol's demos.
fn demo_of(name: Option<&str>, mode: Option<&str>) -> Result<&'static str, SpecError> {
    let Some(name) = name else {
        // `quorum demo` alone runs the default protocol's demo.
        let kind = registry::find(crate::spec::DEFAULT_PROTOCOL).unwrap_or(registry::kinds()[0]);
        return match mode {
            None => kind.demo(None).ok_or_else(|| {
                SpecError::new(format!("the {} has no built-in demo", kind.title()))
                    .field("--protocol")
            }),
            Some(mode) => kind.demo(Some(mode)).ok_or_else(|| {
                SpecError::new(format!(
                    "the {} has no demo of a `{mode}` mode; its modes are {}",
                    kind.title(),
                    kind.modes().join(", ")
                ))
                .field("--mode")
            }),
        };
    };
    let text = match registry::find(name) {
        Some(kind) if mode.is_some() => kind.demo(mode),
        Some(kind) => kind.demo(None),
        None => registry::find_command(name).and_then(|(kind, command)| kind.demo(command.mode)),
    };
    text.ok_or_else(|| {
        let commands: Vec<&str> = registry::kinds()
            .into_iter()
            .flat_map(|kind| kind.commands().iter().map(|command| command.name))
            .collect();
        SpecError::new(format!(
            "no demo called `{name}`; there is one for each protocol ({}) and each command ({})",
            registry::names().join(", "),
            commands.join(", ")
        ))
        .field("--protocol")
    })
}

/// The spec text of a demo source, for `--export-script`.
pub fn demo_text(source: &Source, flags: &RunFlags) -> Result<&'static str, SpecError> {
    let mode = mode_flag(flags);
    match (source, flags.from.as_deref()) {
        // `quorum demo --from DIR`: the demo that receives DIR's hand-off.
        (Source::Demo | Source::DemoOf(_), Some(dir)) => chain_demo(dir, &handoff_of(dir)?),
        (Source::Demo, None) => demo_of(None, mode.as_deref()),
        (Source::DemoOf(name), None) => demo_of(Some(name), mode.as_deref()),
        _ => Err(SpecError::new("only a demo can be exported").field("--export-script")),
    }
}

/// [`prepare`] with the environment variables read from `env`.
///
/// Each step below is a function of its own, run in this order, every
/// check before anything is written; a feature that concerns every debate
/// (a flag, a setting the journal records) adds its step here, or its part
/// to the step it belongs to.
pub fn prepare_in(
    source: Source,
    flags: &RunFlags,
    env: &dyn Environment,
) -> Result<Prepared, SpecError> {
    check_speed(flags)?;
    let handed = handed_on(flags)?;
    let Read {
        mut spec,
        origin,
        script_file,
        demo,
    } = read_source(source, flags, &handed)?;
    let locate = |error: SpecError| origin.locate(error);
    take_handoff_as_context(&mut spec, &handed);
    let kind = protocol_for(&spec, &origin, flags)?;
    let loaded_config = config::load(flags.config.as_deref(), &Registered)?;
    watch_keys(&loaded_config);
    apply_timeout(&mut spec, flags)?;
    let agent_flags = parse_agent_flags(&flags.agents, &Registered)?;
    spec::validate(&spec, &Registered).map_err(locate)?;
    let configured = kind
        .configure(&Configure {
            spec: origin.path.as_deref().zip(origin.text.as_deref()),
            flags: &flags.options,
            allow_outside: flags.allow_outside_context,
            files: &crate::protocol::kind::DiskFiles,
            artifact_root: Some(&flags.out),
        })
        .map_err(locate)?;
    let context =
        load_context(&spec, origin.base(), origin.path.is_some(), flags).map_err(locate)?;
    let (context, sources) =
        load_sources(&spec, origin.base(), origin.path.is_some(), flags, context)
            .map_err(locate)?;
    let human_desk = HumanDesk::new();
    let Assigned {
        roster,
        agents,
        prices,
        families,
        human_roles,
        alternatives,
        roles: role_setups,
        alternative_setups,
    } = assign_agents(
        &spec,
        &configured.roles(),
        flags,
        &agent_flags,
        &loaded_config,
        env,
        &human_desk,
    )
    .map_err(locate)?;
    let prompts = load_prompts(flags)?;
    let moderation = moderation_of(kind, &spec, flags);
    let mut prices = prices;
    if demo && wants_money(&spec, flags, &loaded_config) {
        price_the_demo(&agents, &mut prices);
    }
    let budget = budget_of(&spec, flags, &loaded_config, &agents, &prices).map_err(locate)?;
    let setup = RunSetup {
        budget: budget.is_set().then_some(budget),
        roles: role_setups,
        alternatives: alternative_setups,
        script: spec.script.clone(),
        speed: flags.speed,
        moderation,
        prompt_overrides: prompts.overrides().clone(),
    };
    let fairness = fairness_of(configured.as_ref(), &spec, flags, families).map_err(locate)?;
    let seated_agents = agents.clone();
    let definition = define(
        kind,
        configured.as_ref(),
        &spec,
        context,
        Seated {
            agents,
            prices,
            sources,
        },
        fairness,
        &handed,
    )?;
    let definition = calibration::calibrate(
        definition,
        &loaded_config,
        &seated_agents,
        &setup.prompt_overrides,
    );
    let prompts = Arc::new(prompts);
    if let Some(script) = &spec.script {
        check_script_of(
            script,
            kind,
            configured.as_ref(),
            &definition,
            &prompts,
            script_file.as_ref(),
            &origin,
        )?;
    }
    Ok(Prepared {
        definition,
        label: configured.label(),
        roster,
        moderation,
        prompts,
        human_desk,
        human_roles,
        alternatives,
        theme: loaded_config.config.theme.clone(),
        theme_source: loaded_config.key_location("theme"),
        stream_fps: loaded_config
            .config
            .stream_fps
            .map(|fps| (fps, loaded_config.key_location("stream_fps"))),
        setup,
        handed,
    })
}

/// Step: `--speed` within [`MIN_SPEED`]..=[`MAX_SPEED`].
fn check_speed(flags: &RunFlags) -> Result<(), SpecError> {
    if !(MIN_SPEED..=MAX_SPEED).contains(&flags.speed) {
        return Err(SpecError::new(format!(
            "must be a number from {MIN_SPEED} to {MAX_SPEED}, got {}",
            // 1e-300 as written, not as three hundred digits.
            if (1e-4..1e15).contains(&flags.speed.abs()) {
                flags.speed.to_string()
            } else {
                format!("{:e}", flags.speed)
            }
        ))
        .field("--speed"));
    }
    Ok(())
}

/// Step: what `--from DIR` hands on, with its folder, read before the
/// spec (a demo and a command's topic depend on it).
fn handed_on(flags: &RunFlags) -> Result<Option<(PathBuf, Handoff)>, SpecError> {
    flags
        .from
        .as_deref()
        .map(|dir| handoff_of(dir).map(|handoff| (dir.to_path_buf(), handoff)))
        .transpose()
}

/// Where the spec came from, to locate errors in it: its file and text
/// (none for a protocol's command).
struct SpecOrigin {
    path: Option<PathBuf>,
    text: Option<String>,
}

impl SpecOrigin {
    /// `error` located in the spec file. Errors about flags name the flag,
    /// never the spec file; errors about the configuration file already
    /// name it.
    fn locate(&self, error: SpecError) -> SpecError {
        match &self.path {
            Some(path)
                if error.file.is_none()
                    && !error.field.as_deref().is_some_and(|field| {
                        field.starts_with("--") || field.starts_with("quorum ")
                    }) =>
            {
                error.in_file(path, self.text.as_deref())
            }
            _ => error,
        }
    }

    /// The folder a spec's context files resolve against.
    fn base(&self) -> &Path {
        self.path
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."))
    }
}

/// What [`read_source`] read.
struct Read {
    spec: DebateSpec,
    origin: SpecOrigin,
    /// The file a `--script` came from, and its text, to locate its errors.
    script_file: Option<(PathBuf, String)>,
    /// A built-in demo (its scripted agents may be priced).
    demo: bool,
}

/// Step: the debate's spec, from a demo, a spec file, or a protocol's
/// command and its `--script`.
fn read_source(
    source: Source,
    flags: &RunFlags,
    handed: &Option<(PathBuf, Handoff)>,
) -> Result<Read, SpecError> {
    let mut script_file: Option<(PathBuf, String)> = None;
    let demo = matches!(source, Source::Demo | Source::DemoOf(_));
    let (spec, path, text) = match source {
        Source::Demo | Source::DemoOf(_) => {
            let mode = mode_flag(flags);
            let text = match (&source, handed) {
                (_, Some((dir, handoff))) => chain_demo(dir, handoff)?,
                (Source::DemoOf(name), None) => demo_of(Some(name), mode.as_deref())?,
                _ => demo_of(None, mode.as_deref())?,
            };
            let path = PathBuf::from(DEMO_SPEC_NAME);
            (
                spec::parse(&path, text)?,
                Some(path),
                Some(text.to_string()),
            )
        }
        Source::Spec(path) => {
            let (spec, text) = spec::load(&path)?;
            (spec, Some(path), Some(text))
        }
        Source::Inline { name, text } => (spec::parse(&name, &text)?, Some(name), Some(text)),
        Source::Command {
            command,
            subject,
            context,
            script,
        } => {
            let (kind, _) = registry::find_command(&command).ok_or_else(|| {
                SpecError::new(format!("`{command}` is not a protocol's command"))
            })?;
            // `quorum plan --from DIR` with no goal: the hand-off's.
            let subject = match (handed, subject.trim().is_empty()) {
                (Some((_, handoff)), true) => handoff.topic_for_receiver(),
                _ => subject,
            };
            let mut spec = DebateSpec::for_topic(subject);
            spec.protocol = kind.name().to_string();
            spec.context = context
                .into_iter()
                .map(|path| ContextSpec {
                    name: None,
                    text: None,
                    path: Some(path),
                })
                .collect();
            if let Some(path) = script {
                let text = input::read_text(&path, input::Kind::new("script", input::SCRIPT_LIMIT))
                    .map_err(|error| SpecError::new(error.to_string()).field("--script"))?;
                crate::located::guard(&path, &text)?;
                let script: Script = yaml_serde::from_str(&text)
                    .map_err(|error| crate::located::yaml_error_in(&path, &text, &error))?;
                script.validate().map_err(|message| {
                    SpecError::new(message)
                        .field("script")
                        .in_file(&path, Some(&text))
                })?;
                spec.script = Some(script);
                script_file = Some((path, text));
                spec.agents
                    .insert("default".into(), AgentSpec::Short("script".into()));
            }
            (spec, None, None)
        }
    };
    Ok(Read {
        spec,
        origin: SpecOrigin { path, text },
        script_file,
        demo,
    })
}

/// Step: the hand-off (`--from DIR`) as a context document, so that the
/// record names its source.
fn take_handoff_as_context(spec: &mut DebateSpec, handed: &Option<(PathBuf, Handoff)>) {
    if let Some((_, handoff)) = handed {
        spec.context.push(ContextSpec {
            name: Some(handoff.context_name()),
            text: Some(handoff.context_text()),
            path: None,
        });
    }
}

/// Step: the protocol the spec names, with the spec's keys and the
/// option flags checked against the options it reads.
fn protocol_for(
    spec: &DebateSpec,
    origin: &SpecOrigin,
    flags: &RunFlags,
) -> Result<&'static dyn ProtocolKind, SpecError> {
    let kind = protocol_of(spec).map_err(|error| origin.locate(error))?;
    if let (Some(path), Some(text)) = (&origin.path, &origin.text) {
        let keys: Vec<&str> = kind.options().iter().map(|option| option.key).collect();
        spec::check_keys(path, text, kind.name(), &keys)?;
    }
    for flag in &flags.options {
        if !kind.options().iter().any(|option| option.key == flag.key) {
            return Err(SpecError::new(format!(
                "this debate runs the {} ({}), which has no such option",
                kind.title(),
                kind.name()
            ))
            .field(flag.flag.clone()));
        }
    }
    Ok(kind)
}

/// Step: who decides the items: `--moderation`, else the spec's, else the
/// protocol's default.
fn moderation_of(kind: &dyn ProtocolKind, spec: &DebateSpec, flags: &RunFlags) -> ModerationPolicy {
    flags
        .moderation
        .or(spec.moderation)
        .unwrap_or(if kind.follows_suggestions() {
            ModerationPolicy::Planner
        } else {
            ModerationPolicy::Accept
        })
}

/// Step: fair judging, recorded where the debate applies it: a protocol
/// whose panel does not judge fairly yet keeps no setting it ignores,
/// and is not asked for one (the error is to be located in the spec).
fn fairness_of(
    configured: &dyn Configured,
    spec: &DebateSpec,
    flags: &RunFlags,
    families: BTreeMap<String, Family>,
) -> Result<Fairness, SpecError> {
    let blind_asked = [
        (flags.no_blind, "--no-blind"),
        (spec.blind.is_some(), "blind"),
    ];
    let recusal_asked = [
        (flags.recusal.is_some(), "--recusal"),
        (spec.recusal.is_some(), "recusal"),
    ];
    let recuses = !configured.judged_authors().is_empty();
    let refused = match (configured.reads_blind(), recuses) {
        (false, _) => blind_asked
            .iter()
            .chain(&recusal_asked)
            .find(|(asked, _)| *asked),
        (true, false) => recusal_asked.iter().find(|(asked, _)| *asked),
        (true, true) => None,
    };
    if let Some((_, field)) = refused {
        return Err(SpecError::new(format!(
            "a {} does not apply this part of fair judging yet (see Fair judging in the README)",
            configured.label()
        ))
        .field(*field));
    }
    Ok(match configured.reads_blind() {
        false => Fairness::default(),
        true => Fairness::new(
            !flags.no_blind && spec.blind.unwrap_or(true),
            crate::protocol::fairness::order::seed_of(spec.topic.trim()),
            match recuses {
                true => flags.recusal.or(spec.recusal).unwrap_or_default(),
                false => Recusal::Off,
            },
            families,
        ),
    })
}

/// Who plays each slot (`provider:model`), and the prices of those agents.
struct Seated {
    agents: BTreeMap<String, String>,
    prices: BTreeMap<String, Price>,
    /// What the agents may cite, recorded (issue 52).
    sources: Vec<SourceRecord>,
}

/// Step: the debate's definition, as the protocol defines it, with what
/// `--from DIR` hands on received.
fn define(
    kind: &dyn ProtocolKind,
    configured: &dyn Configured,
    spec: &DebateSpec,
    context: Vec<ContextDoc>,
    Seated {
        agents,
        prices,
        sources,
    }: Seated,
    fairness: Fairness,
    handed: &Option<(PathBuf, Handoff)>,
) -> Result<DebateDefinition, SpecError> {
    let definition = configured.define(Setting {
        topic: spec.topic.trim().to_string(),
        context,
        seating: Seating {
            agents,
            prices,
            started_at: Utc::now(),
            hold_for_moderator: false,
            fairness,
            edition: crate::protocol::Edition::CURRENT,
            sources,
        },
    });
    match handed {
        Some((_, handoff)) => kind
            .receive(&definition, handoff)
            .map_err(|message| SpecError::new(message).field("--from")),
        None => Ok(definition),
    }
}

/// Step: every reply of the spec's script can be chosen in this debate
/// ([`check_script`]); the error names the script's file, else the spec's.
fn check_script_of(
    script: &Script,
    kind: &dyn ProtocolKind,
    configured: &dyn Configured,
    definition: &DebateDefinition,
    prompts: &Arc<PromptSet>,
    script_file: Option<&(PathBuf, String)>,
    origin: &SpecOrigin,
) -> Result<(), SpecError> {
    // The stages a reply may name: the debate's own as configured, and
    // any its protocol can have in another variant.
    let mut stages: Vec<String> = kind
        .build(Build {
            definition,
            prompts: prompts.clone(),
        })
        .map(|protocol| {
            protocol
                .board()
                .stages
                .into_iter()
                .map(|stage| stage.id)
                .collect()
        })
        .unwrap_or_default();
    for stage in kind.every_stage() {
        if !stages.iter().any(|known| known == stage) {
            stages.push(stage.to_string());
        }
    }
    let seated: Vec<String> = configured
        .roles()
        .into_iter()
        .map(|role| role.slot)
        .collect();
    check_script(script, kind, &seated, &stages).map_err(|(field, message)| {
        let error = SpecError::new(message);
        match (script_file, &origin.path) {
            (Some((path, text)), _) => error.field(field).in_file(path, Some(text)),
            (None, Some(_)) => origin.locate(error.field(format!("script.{field}"))),
            (None, None) => error.field(field),
        }
    })
}

/// What the finished debate in `dir` hands on (`--from DIR`), with its
/// folder's name; an error names the folder and says why not.
fn handoff_of(dir: &Path) -> Result<Handoff, SpecError> {
    let refuse = |message: String| SpecError::new(message).field("--from");
    let reloaded = reload(dir).map_err(|error| refuse(super::with_causes(&error)))?;
    let protocol = &reloaded.folded.protocol;
    let mut handoff = protocol.handoff().ok_or_else(|| {
        refuse(format!(
            "{} ({}) hands nothing on: a finished council, red team or pre-mortem hands on its \
             findings, a root-cause analysis that ended PROVEN its cause, a comparative review \
             its recommendation{}",
            dir.display(),
            protocol.describe().label,
            match protocol.outcome() {
                None => "; this debate has not ended",
                Some(_) => "",
            }
        ))
    })?;
    handoff.dir = dir
        .canonicalize()
        .unwrap_or_else(|_| dir.to_path_buf())
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(handoff)
}

/// The built-in demo that receives what `handoff` hands on.
fn chain_demo(dir: &Path, handoff: &Handoff) -> Result<&'static str, SpecError> {
    registry::kinds()
        .iter()
        .find_map(|kind| kind.chain_demo(&handoff.from))
        .ok_or_else(|| {
            SpecError::new(format!(
                "no demo takes what the {} in {} hands on; run the command that does with a topic",
                handoff.from,
                dir.display()
            ))
            .field("--from")
        })
}

/// Whether every reply of `script` can ever be chosen in this debate: its
/// role one the debate seats (or one the protocol can seat, so one script
/// serves a protocol's variants: a high-stakes judge), its stage one of
/// the protocol's or a stability variant's. A reply that names neither would be silently unused
/// and its role left to fail; the error is `(field, message)`.
fn check_script(
    script: &Script,
    kind: &dyn ProtocolKind,
    seated: &[String],
    stages: &[String],
) -> Result<(), (String, String)> {
    for (index, reply) in script.replies.iter().enumerate() {
        let role = reply.role.as_str();
        if !seated.iter().any(|slot| slot == role) && !kind.slots().contains(&role) {
            return Err(unknown_in_reply(index, "role", role, kind, seated));
        }
        // A variant of the stability receipt (`stability-2`) is a stage
        // of every protocol whose panel decides a verdict.
        let variant = |stage: &str| {
            crate::protocol::stability::variant_of_stage(stage)
                .is_some_and(|k| (1..=crate::protocol::stability::MAX_VARIANTS).contains(&k))
        };
        if let Some(stage) = &reply.stage
            && !stages.is_empty()
            && !stages.iter().any(|known| known == stage)
            && !variant(stage)
        {
            return Err(unknown_in_reply(index, "stage", stage, kind, stages));
        }
    }
    Ok(())
}

/// The field of reply `index` that names `name`, not a `what` (role or
/// stage) of the protocol `kind`, and the message that says so.
fn unknown_in_reply(
    index: usize,
    what: &str,
    name: &str,
    kind: &dyn ProtocolKind,
    known: &[String],
) -> (String, String) {
    (
        format!("replies[{index}].{what}"),
        format!(
            "`{}` is not a {what} of this {}; its {what}s are {}",
            crate::text::excerpt(name),
            kind.title(),
            known.join(", ")
        ),
    )
}

/// The registry's entry for the spec's `protocol:`.
fn protocol_of(spec: &DebateSpec) -> Result<&'static dyn ProtocolKind, SpecError> {
    registry::find(&spec.protocol).ok_or_else(|| {
        SpecError::new(format!(
            "unknown protocol `{}`; quorum runs {}",
            spec.protocol,
            registry::names().join(", ")
        ))
        .field("protocol")
    })
}

/// The debate's spending limit: each part from `--budget` /
/// `--budget-tokens`, else the spec, else the configuration. A money limit
/// needs a price for every agent that plays a role (a person's answers cost
/// nothing), or it would count only part of the spend.
fn budget_of(
    spec: &DebateSpec,
    flags: &RunFlags,
    config: &config::LoadedConfig,
    agents: &BTreeMap<String, String>,
    prices: &BTreeMap<String, Price>,
) -> Result<Budget, SpecError> {
    if let Some(usd) = spec.budget
        && let Some(why) = crate::protocol::budget::usd_refusal(usd)
    {
        return Err(SpecError::new(format!(
            "{why}, got {}",
            crate::text::clipped(&usd.to_string())
        ))
        .field("budget"));
    }
    if let Some(tokens) = spec.budget_tokens
        && let Some(why) = crate::protocol::budget::tokens_refusal(tokens)
    {
        return Err(SpecError::new(why).field("budget_tokens"));
    }
    let budget = Budget {
        usd: flags.budget.usd.or(spec.budget).or(config.config.budget),
        tokens: flags
            .budget
            .tokens
            .or(spec.budget_tokens)
            .or(config.config.budget_tokens),
    };
    if budget.usd.is_some() {
        let unpriced: Vec<&str> = agents
            .iter()
            .filter(|(_, agent)| {
                !agent.starts_with(&format!("{}:", crate::agent::human::HUMAN_PROVIDER))
                    && !prices.contains_key(*agent)
            })
            .map(|(_, agent)| agent.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if !unpriced.is_empty() {
            return Err(SpecError::new(format!(
                "a money limit needs the price of every agent, and {} {} none: add {} under \
                 `prices:` in the configuration file, or limit tokens with --budget-tokens",
                unpriced.join(", "),
                if unpriced.len() == 1 { "has" } else { "have" },
                if unpriced.len() == 1 { "it" } else { "them" },
            ))
            .field(match flags.budget.usd {
                Some(_) => "--budget",
                None => "budget",
            }));
        }
    }
    Ok(budget)
}

/// What a demo's scripted agents cost under a money limit, per million
/// tokens in and out: a made-up price, about a large hosted model's, so
/// that `quorum demo --budget 0.10` shows the budget at work with no
/// configuration file.
pub const DEMO_PRICE: Price = Price {
    input: 3.0,
    output: 15.0,
};

/// Whether a money limit is asked for, by the flag, the spec or the
/// configuration.
fn wants_money(spec: &DebateSpec, flags: &RunFlags, config: &config::LoadedConfig) -> bool {
    flags
        .budget
        .usd
        .or(spec.budget)
        .or(config.config.budget)
        .is_some()
}

/// Prices a demo's scripted agents that the configuration does not, at
/// [`DEMO_PRICE`], and says so on stderr: the figures are not a real
/// model's.
fn price_the_demo(agents: &BTreeMap<String, String>, prices: &mut BTreeMap<String, Price>) {
    let scripted = format!("{}:", crate::agent::script::SCRIPT_PROVIDER);
    let mut priced = BTreeSet::new();
    for agent in agents.values() {
        if agent.starts_with(&scripted) && !prices.contains_key(agent) {
            prices.insert(agent.clone(), DEMO_PRICE);
            priced.insert(agent.as_str());
        }
    }
    if !priced.is_empty() {
        eprintln!(
            "quorum: the demo's scripted agents ({}) are priced at a made-up ${} per million \
             tokens in and ${} out, so that the money limit can be tried",
            priced.into_iter().collect::<Vec<_>>().join(", "),
            DEMO_PRICE.input,
            DEMO_PRICE.output
        );
    }
}

/// Applies `--timeout` over the spec (`--agent` is resolved with the other
/// agent sources, in `assign_agents`; the protocol's flags are the
/// protocol's to read).
fn apply_timeout(spec: &mut DebateSpec, flags: &RunFlags) -> Result<(), SpecError> {
    if let Some(timeout) = flags.timeout {
        if !crate::config::limits::valid_seconds(timeout) {
            return Err(SpecError::new(format!(
                "must be {}, got {timeout}",
                crate::config::limits::SECONDS_RANGE
            ))
            .field("--timeout"));
        }
        spec.timeout_secs = timeout;
    }
    Ok(())
}

/// The debate's context documents. A file a spec names resolves against
/// the spec's folder and may not leave it unless the person allows it;
/// each file is bounded by `--context-limit`, and all of them together by
/// four times that, checked before anything is written.
fn load_context(
    spec: &DebateSpec,
    base: &Path,
    from_spec: bool,
    flags: &RunFlags,
) -> Result<Vec<ContextDoc>, SpecError> {
    let kind = input::Kind {
        name: "context file",
        limit: flags.context_limit.unwrap_or(input::CONTEXT_LIMIT),
        raise: Some("--context-limit BYTES"),
    };
    let mut total: u64 = 0;
    let mut documents = Vec::with_capacity(spec.context.len());
    for (index, context) in spec.context.iter().enumerate() {
        let field = |key: &str| {
            if from_spec {
                format!("context[{index}]{key}")
            } else {
                "--context".to_string()
            }
        };
        let document = if let Some(text) = &context.text {
            ContextDoc {
                name: context.name.clone().unwrap_or_default(),
                text: text.clone(),
            }
        } else {
            let path = context.path.as_ref().expect("validated: text or path");
            let resolved = if from_spec && !flags.allow_outside_context {
                input::in_spec_folder(base, path)
                    .map_err(|message| SpecError::new(message).field(field(".path")))?
            } else if from_spec && path.is_relative() {
                base.join(path)
            } else {
                path.clone()
            };
            let text = if from_spec {
                input::read_regular_file(&resolved, kind)
            } else {
                input::read_text(&resolved, kind)
            }
            .map_err(|error| SpecError::new(error.to_string()).field(field(".path")))?;
            ContextDoc {
                name: context.name.clone().unwrap_or_else(|| {
                    path.file_name()
                        .map(|name| name.to_string_lossy().into_owned())
                        .unwrap_or_else(|| path.display().to_string())
                }),
                text,
            }
        };
        total += document.text.len() as u64;
        let budget = kind.limit.saturating_mul(input::CONTEXT_FILES_PER_DEBATE);
        if total > budget {
            return Err(SpecError::new(format!(
                "the context of this debate comes to more than {} in all ({} per file, four \
                 files' worth together); --context-limit BYTES allows more",
                input::bytes(budget),
                input::bytes(kind.limit)
            ))
            .field(field("")));
        }
        documents.push(document);
    }
    Ok(documents)
}

/// Slowest `--speed`: a hundred times slower than scripted.
const MIN_SPEED: f64 = 0.01;
/// Fastest `--speed`.
const MAX_SPEED: f64 = 10_000.0;

fn load_prompts(flags: &RunFlags) -> Result<PromptSet, SpecError> {
    let (dir, field) = match &flags.prompts {
        Some(dir) => {
            if !dir.is_dir() {
                return Err(
                    SpecError::new(format!("{} is not a folder", dir.display())).field("--prompts")
                );
            }
            (Some(dir.clone()), "--prompts")
        }
        None => (default_override_dir(), "prompt templates"),
    };
    PromptSet::load(dir.as_deref()).map_err(|error| SpecError::new(error.to_string()).field(field))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::agents::scripted_deadline;
    use super::*;
    use crate::config::ProviderKind;
    use crate::config::resolve::ProviderSetup;
    use crate::engine::recordable;

    /// An OpenAI-compatible debate prepared in `env`.
    fn openai_debate(env: &BTreeMap<String, String>) -> Prepared {
        let flags = RunFlags {
            agents: vec!["default=openai:local-model".into()],
            speed: 1.0,
            ..RunFlags::default()
        };
        let source = Source::Command {
            command: "review".into(),
            subject: "t".into(),
            context: Vec::new(),
            script: None,
        };
        prepare_in(source, &flags, env).unwrap()
    }

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    const JOURNAL: &str = "/debates/x/journal.jsonl";

    #[test]
    fn a_credential_in_a_base_url_is_not_recorded_and_comes_back_from_the_environment() {
        let secret_url = "http://ops:hunter2@127.0.0.1:9/v1?token=abc123";
        let env = env(&[("OPENAI_BASE_URL", secret_url)]);
        let prepared = openai_debate(&env);
        let journaled = serde_json::to_string(&prepared.setup).unwrap();
        assert!(!journaled.contains("hunter2"), "{journaled}");
        assert!(!journaled.contains("abc123"), "{journaled}");
        assert!(
            journaled.contains("http://***@127.0.0.1:9/v1"),
            "{journaled}"
        );

        let rebuilt = rebuild(&prepared.setup, Path::new(JOURNAL), None, &env).unwrap();
        assert!(rebuilt.roster.get("proposer").is_some());

        // Without it, today's `openai` goes elsewhere: refused, located.
        let error = rebuild(&prepared.setup, Path::new(JOURNAL), None, &BTreeMap::new())
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.starts_with(&format!(
                "{JOURNAL}:1: setup.roles.critic: the debate ran provider `openai`"
            )),
            "{error}"
        );
        assert!(error.contains("at http://***@127.0.0.1:9/v1"), "{error}");
        assert!(error.contains("at https://api.openai.com/v1"), "{error}");
        assert!(!error.contains("hunter2"), "{error}");
    }

    #[test]
    fn a_journal_cannot_send_calls_or_keys_anywhere_the_configuration_does_not() {
        let env = env(&[("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")]);
        let honest = openai_debate(&env).setup;
        let tamper = |change: &dyn Fn(&mut ProviderSetup)| {
            let mut setup = honest.clone();
            for role in setup.roles.values_mut() {
                change(&mut role.agent.provider);
            }
            rebuild(&setup, Path::new(JOURNAL), None, &env)
                .err()
                .map(|error| error.to_string())
        };
        assert_eq!(tamper(&|_| {}), None, "the record as written resumes");
        let elsewhere =
            tamper(&|provider| provider.base_url = Some("http://evil.example/v1".into()));
        assert!(elsewhere.unwrap().contains("at http://evil.example/v1"));
        let other_key =
            tamper(&|provider| provider.api_key_env = Some("AWS_SECRET_ACCESS_KEY".into()));
        assert!(
            other_key
                .unwrap()
                .contains("key from $AWS_SECRET_ACCESS_KEY")
        );
        let program = tamper(&|provider| {
            provider.kind = ProviderKind::Command;
            provider.command = vec!["/bin/sh".into()];
        });
        assert!(program.unwrap().contains("running /bin/sh"));
        let unknown = tamper(&|provider| provider.name = "mine".into());
        assert!(unknown.unwrap().contains("no longer defines"));
    }

    #[test]
    fn a_command_is_recorded_without_its_arguments() {
        let local = env(&[("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")]);
        let mut resolved = openai_debate(&local).setup.roles["critic"].agent.clone();
        resolved.provider.kind = ProviderKind::Command;
        resolved.provider.command = vec!["claude".into(), "--token".into(), "s3cret".into()];
        let recorded = recordable(&resolved);
        assert_eq!(recorded.provider.command, ["claude"]);
    }

    #[test]
    fn scripted_deadlines_scale_with_speed_down_to_a_floor() {
        assert_eq!(scripted_deadline(600.0, 1.0), Duration::from_secs(600));
        assert_eq!(scripted_deadline(600.0, 10.0), Duration::from_secs(60));
        assert_eq!(scripted_deadline(6.0, 200.0), Duration::from_secs(1));
        assert_eq!(scripted_deadline(0.3, 50.0), Duration::from_secs_f64(0.3));
    }
}
