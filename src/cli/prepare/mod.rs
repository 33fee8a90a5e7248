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
use std::time::Duration;

use chrono::Utc;

use crate::agent::Agent;
use crate::agent::factory::{self, BuildContext};
use crate::agent::human::HumanDesk;
use crate::agent::script::Script;
use crate::config::detect::{Environment, SystemEnvironment};
use crate::config::resolve::{Level, ResolvedAgent, Resolver, Sources, parse_agent_flags};
use crate::config::{self, AgentChoice, LoadedConfig, ProviderKind};
use crate::engine::{
    Alternative, AlternativeSetup, ModerationPolicy, RoleAgent, RoleSetup, Roster, RunSetup,
    recordable,
};
use crate::input;
use crate::prompts::{PromptSet, default_override_dir};
use crate::protocol::budget::Budget;
use crate::protocol::fairness::{Fairness, Family, Recusal};
use crate::protocol::handoff::Handoff;
use crate::protocol::registry::{
    self, Build, Configure, DebateDefinition, ProtocolKind, RoleSlot, Setting,
};
use crate::protocol::usage::Price;
use crate::protocol::{ContextDoc, Seating};
use crate::spec::{self, AgentSpec, ContextSpec, DebateSpec, SpecError};

use super::RunFlags;

mod rebuild;
mod reload;

pub use rebuild::{Rebuilt, rebuild};
pub(super) use reload::{Reloaded, reload};

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
pub fn prepare_in(
    source: Source,
    flags: &RunFlags,
    env: &dyn Environment,
) -> Result<Prepared, SpecError> {
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
    let handed = flags
        .from
        .as_deref()
        .map(|dir| handoff_of(dir).map(|handoff| (dir.to_path_buf(), handoff)))
        .transpose()?;
    // The file a `--script` came from, and its text, to locate its errors.
    let mut script_file: Option<(PathBuf, String)> = None;
    let demo = matches!(source, Source::Demo | Source::DemoOf(_));
    let (mut spec, spec_path, source_text) = match source {
        Source::Demo | Source::DemoOf(_) => {
            let mode = mode_flag(flags);
            let text = match (&source, &handed) {
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
            let subject = match (&handed, subject.trim().is_empty()) {
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
                spec::guard(&path, &text)?;
                let script: Script = yaml_serde::from_str(&text)
                    .map_err(|error| spec::yaml_error_in(&path, &text, &error))?;
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
    // Errors about flags name the flag, never the spec file; errors about the
    // configuration file already name it.
    let locate = |error: SpecError| match &spec_path {
        Some(path)
            if error.file.is_none()
                && !error.field.as_deref().is_some_and(|field| {
                    field.starts_with("--") || field.starts_with("quorum ")
                }) =>
        {
            error.in_file(path, source_text.as_deref())
        }
        _ => error,
    };
    if let Some((_, handoff)) = &handed {
        // The record names its source: the hand-off is a context document.
        spec.context.push(ContextSpec {
            name: Some(handoff.context_name()),
            text: Some(handoff.context_text()),
            path: None,
        });
    }
    let kind = protocol_of(&spec).map_err(locate)?;
    if let (Some(path), Some(text)) = (&spec_path, &source_text) {
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
    let loaded_config = config::load(flags.config.as_deref())?;
    watch_keys(&loaded_config);
    apply_timeout(&mut spec, flags)?;
    let agent_flags = parse_agent_flags(&flags.agents)?;
    spec::validate(&spec).map_err(locate)?;
    let configured = kind
        .configure(&Configure {
            spec: spec_path.as_deref().zip(source_text.as_deref()),
            flags: &flags.options,
            allow_outside: flags.allow_outside_context,
            files: &crate::protocol::registry::DiskFiles,
            artifact_root: Some(&flags.out),
        })
        .map_err(locate)?;
    let base = spec_path
        .as_deref()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    let context = load_context(&spec, base, spec_path.is_some(), flags).map_err(locate)?;
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
    let moderation =
        flags
            .moderation
            .or(spec.moderation)
            .unwrap_or(if kind.follows_suggestions() {
                ModerationPolicy::Planner
            } else {
                ModerationPolicy::Accept
            });
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
    // Fair judging is recorded where the debate applies it: a protocol
    // whose panel does not judge fairly yet keeps no setting it ignores,
    // and is not asked for one.
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
        return Err(locate(
            SpecError::new(format!(
                "a {} does not apply this part of fair judging yet (see Fair judging in the README)",
                configured.label()
            ))
            .field(*field),
        ));
    }
    let fairness = match configured.reads_blind() {
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
    };
    let mut definition = configured.define(Setting {
        topic: spec.topic.trim().to_string(),
        context,
        seating: Seating {
            agents,
            prices,
            started_at: Utc::now(),
            hold_for_moderator: false,
            fairness,
            edition: crate::protocol::Edition::CURRENT,
        },
    });
    if let Some((_, handoff)) = &handed {
        definition = kind
            .receive(&definition, handoff)
            .map_err(|message| SpecError::new(message).field("--from"))?;
    }
    let prompts = Arc::new(prompts);
    if let Some(script) = &spec.script {
        // The stages a reply may name: the debate's own as configured, and
        // any its protocol can have in another variant.
        let mut stages: Vec<String> = kind
            .build(Build {
                definition: &definition,
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
            match (&script_file, &spec_path) {
                (Some((path, text)), _) => error.field(field).in_file(path, Some(text)),
                (None, Some(_)) => locate(error.field(format!("script.{field}"))),
                (None, None) => error.field(field),
            }
        })?;
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
        setup,
        handed,
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
/// the protocol's. A reply that names neither would be silently unused
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
        if let Some(stage) = &reply.stage
            && !stages.is_empty()
            && !stages.iter().any(|known| known == stage)
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

/// What [`assign_agents`] decided.
struct Assigned {
    roster: Roster,
    /// Who plays each slot, as `provider:model`.
    agents: BTreeMap<String, String>,
    /// The configured prices of those agents.
    prices: BTreeMap<String, Price>,
    /// The model family of each slot whose family is known.
    families: BTreeMap<String, Family>,
    human_roles: Vec<String>,
    alternatives: Vec<Alternative>,
    roles: BTreeMap<String, RoleSetup>,
    alternative_setups: Vec<AlternativeSetup>,
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

/// A person has this long to write a role's answer, in seconds, unless the
/// spec gives the role its own `timeout_secs`.
const HUMAN_DEADLINE_SECS: u64 = 24 * 60 * 60;

/// Applies `--timeout` over the spec (`--agent` is resolved with the other
/// agent sources, in `assign_agents`; the protocol's flags are the
/// protocol's to read).
fn apply_timeout(spec: &mut DebateSpec, flags: &RunFlags) -> Result<(), SpecError> {
    if let Some(timeout) = flags.timeout {
        if !spec::valid_seconds(timeout) {
            return Err(
                SpecError::new(format!("must be {}, got {timeout}", spec::SECONDS_RANGE))
                    .field("--timeout"),
            );
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

fn assign_agents(
    spec: &DebateSpec,
    slots: &[RoleSlot],
    flags: &RunFlags,
    agent_flags: &BTreeMap<String, AgentChoice>,
    loaded_config: &LoadedConfig,
    env: &dyn Environment,
    human_desk: &Arc<HumanDesk>,
) -> Result<Assigned, SpecError> {
    let mut roster = Roster::default();
    let mut agents = BTreeMap::new();
    let mut prices = BTreeMap::new();
    let mut families = BTreeMap::new();
    let mut human_roles = Vec::new();
    let mut alternatives: Vec<(Alternative, AlternativeSetup)> = Vec::new();
    let mut roles = BTreeMap::new();
    let priced = |agent: Arc<dyn Agent>, resolved: &ResolvedAgent| {
        let info = agent.info();
        let price = loaded_config.config.price_of(&info.provider, &info.model);
        let setup = AlternativeSetup {
            agent: recordable(resolved),
            price,
        };
        (Alternative { agent, price }, setup)
    };
    let resolver = Resolver::new(Sources {
        flags: agent_flags,
        spec: &spec.agents,
        config: loaded_config,
        env,
    });
    let context = BuildContext {
        script: spec.script.clone().map(Arc::new),
        speed: flags.speed,
        env,
        human_desk: Some(human_desk.clone()),
        key_variables: loaded_config.key_variables(),
    };
    // A mistake in what names an agent (a provider typo on the critic) is
    // what to report, before "no agent found" for a role nothing names.
    for slot in slots.iter().filter(|slot| resolver.names(&slot.slot)) {
        resolver.resolve(&slot.slot)?;
    }
    for RoleSlot {
        slot: role,
        defaults_to,
        ..
    } in slots
    {
        let role = role.clone();
        let resolved = match defaults_to {
            // A slot nothing names itself is played by its default's agent
            // (a synthesizer by the lead's), not by `default` or a wildcard.
            Some(lead) if !resolver.names(&role) => ResolvedAgent {
                role: role.clone(),
                origin: format!("as {lead}: nothing names {role} itself"),
                ..resolver.resolve(lead)?
            },
            _ => resolver.resolve(&role)?,
        };
        let agent = factory::build(&resolved, &context)
            .map_err(|error| choice_error(&resolved, loaded_config, error.to_string()))?;
        let deadline_secs = resolved.deadline_secs(flags.timeout, spec.timeout_secs);
        let timeout = match resolved.provider.kind {
            ProviderKind::Script => scripted_deadline(deadline_secs, flags.speed),
            ProviderKind::Human => {
                human_roles.push(role.clone());
                resolved.role_limits.timeout_secs.map_or(
                    Duration::from_secs(HUMAN_DEADLINE_SECS),
                    Duration::from_secs_f64,
                )
            }
            _ => Duration::from_secs_f64(deadline_secs),
        };
        if switchable(resolved.provider.kind) {
            alternatives.push(priced(agent.clone(), &resolved));
        }
        roles.insert(
            role.clone(),
            RoleSetup {
                agent: recordable(&resolved),
                timeout_ms: crate::engine::whole_ms(timeout),
            },
        );
        let info = agent.info();
        let id = info.to_string();
        if let Some((family, _)) = resolved.family() {
            families.insert(role.clone(), family);
        }
        if let Some(price) = loaded_config.config.price_of(&info.provider, &info.model) {
            prices.insert(id.clone(), price);
        }
        agents.insert(role.clone(), id);
        roster.insert(role, RoleAgent { agent, timeout });
    }
    // Every configured model that can be built is an alternative too.
    for setup in resolver.providers().listed() {
        let Some(model) = setup.default_model.clone() else {
            continue;
        };
        if !switchable(setup.kind)
            || (setup.key_required && !resolver.providers().key_is_set(&setup))
        {
            continue;
        }
        let resolved = ResolvedAgent {
            role: "alternative".into(),
            level: Level::Config,
            origin: format!("providers.{}", setup.name),
            field: String::new(),
            provider: setup,
            model,
            role_limits: Default::default(),
            family: None,
        };
        if let Ok(agent) = factory::build(&resolved, &context) {
            alternatives.push(priced(agent, &resolved));
        }
    }
    let mut seen = BTreeSet::new();
    alternatives.retain(|(alternative, _)| seen.insert(alternative.agent.info().to_string()));
    let (alternatives, alternative_setups) = alternatives.into_iter().unzip();
    Ok(Assigned {
        roster,
        agents,
        prices,
        families,
        human_roles,
        alternatives,
        roles,
        alternative_setups,
    })
}

/// Masks the values of every key variable quorum knows in everything a
/// debate writes and shows ([`crate::secrets`]): the same variables a
/// command agent is not given ([`config::keys`]).
fn watch_keys(loaded: &config::LoadedConfig) {
    let in_effect = config::keys::key_variables(&loaded.config);
    let by_suffix: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| config::keys::is_key_variable(name, &in_effect))
        .collect();
    crate::secrets::install(in_effect.iter().chain(&by_suffix).map(String::as_str));
}

/// Providers a stuck role may be switched to: real models, not scripts or
/// a person.
fn switchable(kind: ProviderKind) -> bool {
    !matches!(kind, ProviderKind::Script | ProviderKind::Human)
}

/// An error about a resolved choice, naming the flag or key that made it.
fn choice_error(resolved: &ResolvedAgent, loaded: &LoadedConfig, message: String) -> SpecError {
    let message = match resolved.level {
        Level::Auto => format!("{message} (chosen automatically: {})", resolved.origin),
        _ => message,
    };
    let error = SpecError::new(message);
    if resolved.field.is_empty() {
        return error;
    }
    let error = error.field(&resolved.field);
    match (resolved.level, resolved.field.split_once('.')) {
        (Level::Config, Some((section, key))) => loaded.locate(error, section, key),
        _ => error,
    }
}

/// Slowest `--speed`: a hundred times slower than scripted.
const MIN_SPEED: f64 = 0.01;
/// Fastest `--speed`.
const MAX_SPEED: f64 = 10_000.0;

/// Shortest deadline that `--speed` may scale a scripted role's deadline
/// down to, in seconds: real time keeps its own granularity (scheduling, the
/// timer wheel), and a deadline of a few milliseconds would fail replies that
/// the script paced well inside it.
const MIN_SCALED_DEADLINE_SECS: f64 = 1.0;

/// A scripted role's deadline: scripted time runs `speed` times faster,
/// deadlines included, but scaling never takes a deadline below
/// [`MIN_SCALED_DEADLINE_SECS`] (or below the configured value, if shorter).
fn scripted_deadline(timeout_secs: f64, speed: f64) -> Duration {
    let floor = timeout_secs.min(MIN_SCALED_DEADLINE_SECS);
    Duration::from_secs_f64((timeout_secs / speed).max(floor))
}

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

/// `choice` for `role`, resolved against today's configuration as a new
/// run would resolve it, as an alternative a recorded debate can switch to
/// (`quorum fork --agent`): its setup and the label it answers under
/// (`openai:gpt-4.1`). `setup` gives the script and pace a `script`
/// choice plays with.
pub fn resolve_alternative(
    role: &str,
    choice: AgentChoice,
    setup: &RunSetup,
    config_path: Option<&Path>,
    env: &dyn Environment,
) -> Result<(AlternativeSetup, String), SpecError> {
    let loaded = config::load(config_path)?;
    watch_keys(&loaded);
    let flags = BTreeMap::from([(role.to_string(), choice)]);
    let no_spec = BTreeMap::new();
    let resolver = Resolver::new(Sources {
        flags: &flags,
        spec: &no_spec,
        config: &loaded,
        env,
    });
    let resolved = resolver.resolve(role)?;
    let context = BuildContext {
        script: setup.script.clone().map(Arc::new),
        speed: setup.speed,
        env,
        human_desk: None,
        key_variables: loaded.key_variables(),
    };
    let agent = factory::build(&resolved, &context)
        .map_err(|error| choice_error(&resolved, &loaded, error.to_string()))?;
    let info = agent.info();
    let price = loaded.config.price_of(&info.provider, &info.model);
    Ok((
        AlternativeSetup {
            agent: recordable(&resolved),
            price,
        },
        info.to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::resolve::ProviderSetup;

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
