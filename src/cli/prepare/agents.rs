//! Who plays each role of a new debate, as flags, the spec, the
//! configuration and the environment choose (see `config::resolve`), and
//! the agents the moderator may switch a role to; also an alternative
//! chosen for a recorded debate (`quorum fork --agent`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::agent::Agent;
use crate::agent::factory::{self, BuildContext};
use crate::agent::human::HumanDesk;
use crate::config::detect::Environment;
use crate::config::resolve::{Level, ResolvedAgent, Resolver, Sources};
use crate::config::{self, AgentChoice, LoadedConfig, ProviderKind};
use crate::engine::{
    Alternative, AlternativeSetup, RoleAgent, RoleSetup, Roster, RunSetup, recordable,
};
use crate::located::SpecError;
use crate::protocol::fairness::Family;
use crate::protocol::kind::RoleSlot;
use crate::protocol::registry::Registered;
use crate::protocol::usage::Price;
use crate::spec::DebateSpec;

use crate::cli::RunFlags;

/// What [`assign_agents`] decided.
pub(super) struct Assigned {
    pub(super) roster: Roster,
    /// Who plays each slot, as `provider:model`.
    pub(super) agents: BTreeMap<String, String>,
    /// The configured prices of those agents.
    pub(super) prices: BTreeMap<String, Price>,
    /// The model family of each slot whose family is known.
    pub(super) families: BTreeMap<String, Family>,
    pub(super) human_roles: Vec<String>,
    pub(super) alternatives: Vec<Alternative>,
    pub(super) roles: BTreeMap<String, RoleSetup>,
    pub(super) alternative_setups: Vec<AlternativeSetup>,
}

/// A person has this long to write a role's answer, in seconds, unless the
/// spec gives the role its own `timeout_secs`.
const HUMAN_DEADLINE_SECS: u64 = 24 * 60 * 60;

/// Plays every role slot of the debate: the agent for each, from the
/// flags, the spec, the configuration and the environment, as
/// [`Resolver`] ranks them; what the journal records of them; and the
/// agents the moderator may switch a stuck role to.
pub(super) fn assign_agents(
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
pub(crate) fn watch_keys(loaded: &config::LoadedConfig) {
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

/// Shortest deadline that `--speed` may scale a scripted role's deadline
/// down to, in seconds: real time keeps its own granularity (scheduling, the
/// timer wheel), and a deadline of a few milliseconds would fail replies that
/// the script paced well inside it.
const MIN_SCALED_DEADLINE_SECS: f64 = 1.0;

/// A scripted role's deadline: scripted time runs `speed` times faster,
/// deadlines included, but scaling never takes a deadline below
/// [`MIN_SCALED_DEADLINE_SECS`] (or below the configured value, if shorter).
pub(super) fn scripted_deadline(timeout_secs: f64, speed: f64) -> Duration {
    let floor = timeout_secs.min(MIN_SCALED_DEADLINE_SECS);
    Duration::from_secs_f64((timeout_secs / speed).max(floor))
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
    let loaded = config::load(config_path, &Registered)?;
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
