//! Which provider and model play each role slot, and why.
//!
//! Four levels, highest first: `--agent` flags, the spec's `agents:`, the
//! configuration file's `roles:`, and auto-detection ([`super::detect`]).
//! Within a level the exact role (`judge.analyst`) beats `judge.*`, which
//! beats `default`. The provider named is a built-in one (`openai`,
//! `anthropic`, `command`, `script`, `human`) or one from the file's
//! `providers:`, whose settings are merged over the built-in defaults; a model
//! left out is the provider's `default_model`.
//!
//! Responsible for the choice and for every error about it, each naming the
//! flag, spec key or configuration key at fault. Not responsible for building
//! agents (`agent::factory`) or for reading keys: a provider records the name
//! of its key variable and whether that variable is set, nothing more.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::fmt;

use super::detect::{
    self, ANTHROPIC_KEY_VAR, Detected, Environment, OPENAI_BASE_URL_VAR, OPENAI_KEY_VAR,
};
use super::family::Family;
use super::roles::{AgentSpec, RoleBook, known_role, role_keys, unknown_role};
use super::{AgentChoice, Config, LoadedConfig, ProviderKind, unknown_provider};
use crate::located::SpecError;

/// OpenAI's own API; local servers and gateways use their own base URL.
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Anthropic's own API; a proxy or gateway uses its own base URL.
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model of the built-in `openai` provider unless configured.
pub const OPENAI_DEFAULT_MODEL: &str = "gpt-4.1";
/// The model of the built-in `anthropic` provider unless configured.
pub const ANTHROPIC_DEFAULT_MODEL: &str = "claude-sonnet-4-5";
/// The model label of scripted agents.
pub const SCRIPT_MODEL: &str = "scripted";
/// The model label of the human provider.
pub const HUMAN_MODEL: &str = "human";

/// Where a role's agent was chosen.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Level {
    Flag,
    Spec,
    Config,
    Auto,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Flag => "flag",
            Level::Spec => "spec",
            Level::Config => "config",
            Level::Auto => "auto",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// HTTP limits a provider or a role overrides; the rest keep their defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LimitOverrides {
    pub connect_timeout_secs: Option<f64>,
    pub idle_timeout_secs: Option<f64>,
    pub max_retries: Option<u32>,
    pub retry_after_cap_secs: Option<f64>,
}

/// A provider with its settings merged: configuration over built-in defaults.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProviderSetup {
    /// As `--agent` and the records name it: `openai`, `ollama`, `claude-cli`.
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: Option<String>,
    /// The environment variable that holds the key (never the key).
    pub api_key_env: Option<String>,
    /// Whether a call cannot work without that key (official endpoints, or a
    /// key variable named in the configuration).
    pub key_required: bool,
    pub default_model: Option<String>,
    pub max_tokens: Option<u32>,
    /// `command` providers: the program and its arguments.
    pub command: Vec<String>,
    /// `command` providers: the key variables the program is given (its
    /// configuration's `env:`); it gets no other.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// This provider's call deadline, in seconds.
    pub timeout_secs: Option<f64>,
    pub limits: LimitOverrides,
    /// Defined in the configuration file (not only built in).
    pub configured: bool,
    /// The model family the configuration gives this provider's models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
}

/// Limits a spec gives one role (`agents.ROLE` in its full form).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RoleLimits {
    pub timeout_secs: Option<f64>,
    pub idle_timeout_secs: Option<f64>,
    pub max_retries: Option<u32>,
}

/// The agent chosen for one role slot.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ResolvedAgent {
    pub role: String,
    pub level: Level,
    /// What decided: `--agent judge.*`, `agents.default`, `roles.critic`, or
    /// the auto-detection reason.
    pub origin: String,
    /// The flag or key errors about this choice name.
    pub field: String,
    pub provider: ProviderSetup,
    pub model: String,
    pub role_limits: RoleLimits,
    /// The model family a spec's `agents.ROLE.family` gives this role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
}

impl ResolvedAgent {
    /// The model family of this agent and where it came from: the spec's
    /// `family:` for the role, the provider's in the configuration, or the
    /// built-in table (`model name claude-*`); none when unknown.
    pub fn family(&self) -> Option<(Family, String)> {
        let configured =
            |text: &String, origin: String| Family::new(text).ok().map(|family| (family, origin));
        if let Some(family) = &self.family {
            return configured(family, format!("{}.family", self.origin));
        }
        if let Some(family) = &self.provider.family {
            return configured(family, format!("providers.{}.family", self.provider.name));
        }
        super::family::detect_with_reason(&self.provider.name, &self.model)
    }

    /// `provider:model`, as panes and records show it.
    pub fn label(&self) -> String {
        format!("{}:{}", self.provider.name, self.model)
    }

    /// The call deadline in seconds: the spec's per-role value, then
    /// `--timeout`, then the provider's `timeout_secs`, then the spec's
    /// `timeout_secs` (600 by default).
    pub fn deadline_secs(&self, flag_timeout: Option<f64>, spec_timeout: f64) -> f64 {
        self.role_limits
            .timeout_secs
            .or(flag_timeout)
            .or(self.provider.timeout_secs)
            .unwrap_or(spec_timeout)
    }

    /// HTTP limits: the role's over the provider's.
    pub fn limits(&self) -> LimitOverrides {
        LimitOverrides {
            idle_timeout_secs: self
                .role_limits
                .idle_timeout_secs
                .or(self.provider.limits.idle_timeout_secs),
            max_retries: self
                .role_limits
                .max_retries
                .or(self.provider.limits.max_retries),
            ..self.provider.limits
        }
    }
}

/// Built-in and configured providers, as the environment completes them.
pub struct Providers<'a> {
    config: &'a Config,
    env: &'a dyn Environment,
}

impl<'a> Providers<'a> {
    pub fn new(config: &'a Config, env: &'a dyn Environment) -> Self {
        Providers { config, env }
    }

    /// The provider called `name`, or `None` if nobody defined it.
    pub fn get(&self, name: &str) -> Option<ProviderSetup> {
        let configured = self.config.providers.get(name);
        let kind = match ProviderKind::built_in(name) {
            Some(kind) => kind,
            None => configured?.kind?,
        };
        let built_in_name = ProviderKind::built_in(name).is_some();
        let (default_url, default_key, default_model) = match kind {
            ProviderKind::Openai => {
                let url = self
                    .env
                    .var(OPENAI_BASE_URL_VAR)
                    .filter(|url| built_in_name && !url.trim().is_empty())
                    .unwrap_or_else(|| OPENAI_DEFAULT_BASE_URL.to_string());
                (Some(url), Some(OPENAI_KEY_VAR), Some(OPENAI_DEFAULT_MODEL))
            }
            ProviderKind::Anthropic => (
                Some(ANTHROPIC_DEFAULT_BASE_URL.to_string()),
                Some(ANTHROPIC_KEY_VAR),
                Some(ANTHROPIC_DEFAULT_MODEL),
            ),
            _ => (None, None, None),
        };
        // Custom providers get exactly the key variable they name.
        let (default_key, default_model) = if built_in_name {
            (default_key, default_model)
        } else {
            (None, None)
        };
        let settings = configured.cloned().unwrap_or_default();
        let base_url = settings.base_url.clone().or(default_url);
        let official = base_url
            .as_deref()
            .is_some_and(|url| url == OPENAI_DEFAULT_BASE_URL || url == ANTHROPIC_DEFAULT_BASE_URL);
        let key_required = settings.api_key_env.is_some() || (official && default_key.is_some());
        Some(ProviderSetup {
            name: name.to_string(),
            kind,
            base_url,
            api_key_env: settings
                .api_key_env
                .clone()
                .or(default_key.map(str::to_string)),
            key_required,
            default_model: settings
                .default_model
                .clone()
                .or(default_model.map(str::to_string)),
            max_tokens: settings.max_tokens,
            command: settings.command.clone().unwrap_or_default(),
            env: settings.env.clone().unwrap_or_default(),
            timeout_secs: settings.timeout_secs,
            limits: LimitOverrides {
                connect_timeout_secs: settings.connect_timeout_secs,
                idle_timeout_secs: settings.idle_timeout_secs,
                max_retries: settings.max_retries,
                retry_after_cap_secs: settings.retry_after_cap_secs,
            },
            configured: configured.is_some(),
            family: settings.family.clone(),
        })
    }

    /// The providers worth showing: the built-in HTTP ones, then every
    /// configured one.
    pub fn listed(&self) -> Vec<ProviderSetup> {
        let mut names: Vec<&str> = vec!["anthropic", "openai"];
        for name in self.config.providers.keys() {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
            .into_iter()
            .filter_map(|name| self.get(name))
            .collect()
    }

    /// Whether the key of `setup` is present in the environment.
    pub fn key_is_set(&self, setup: &ProviderSetup) -> bool {
        setup
            .api_key_env
            .as_deref()
            .is_some_and(|variable| self.env.is_set(variable))
    }
}

/// One assignment at one level.
#[derive(Clone, Debug, PartialEq)]
struct Assignment {
    choice: AgentChoice,
    limits: RoleLimits,
    family: Option<String>,
    field: String,
}

/// Parses `--agent ROLE=PROVIDER[:MODEL]` flags; a later flag for the same
/// role wins.
pub fn parse_agent_flags(
    flags: &[String],
    book: &dyn RoleBook,
) -> Result<BTreeMap<String, AgentChoice>, SpecError> {
    let mut choices = BTreeMap::new();
    for assignment in flags {
        let Some((role, agent)) = assignment.split_once('=') else {
            return Err(
                SpecError::new(format!("`{assignment}` is not ROLE=PROVIDER[:MODEL]"))
                    .field("--agent"),
            );
        };
        if !known_role(book, role) {
            return Err(SpecError::new(unknown_role(book, role)).field("--agent"));
        }
        let choice = AgentChoice::parse(agent)
            .map_err(|message| SpecError::new(message).field("--agent"))?;
        choices.insert(role.to_string(), choice);
    }
    Ok(choices)
}

/// Everything a choice can come from.
pub struct Sources<'a> {
    /// Parsed `--agent` flags.
    pub flags: &'a BTreeMap<String, AgentChoice>,
    /// The spec's `agents:` (empty for `quorum review` without a script).
    pub spec: &'a BTreeMap<String, AgentSpec>,
    pub config: &'a LoadedConfig,
    pub env: &'a dyn Environment,
}

/// Resolves role slots; auto-detection runs at most once, and only if a
/// slot needs it.
pub struct Resolver<'a> {
    sources: Sources<'a>,
    detected: OnceCell<Option<Detected>>,
}

/// The exact role, then its group's wildcard (`judge.*`), then `default`.
fn lookup<'m, V>(map: &'m BTreeMap<String, V>, role: &str) -> Option<(&'m str, &'m V)> {
    role_keys(role)
        .iter()
        .find_map(|key| map.get_key_value(key))
        .map(|(key, value)| (key.as_str(), value))
}

impl<'a> Resolver<'a> {
    pub fn new(sources: Sources<'a>) -> Self {
        Resolver {
            sources,
            detected: OnceCell::new(),
        }
    }

    pub fn providers(&self) -> Providers<'a> {
        Providers::new(&self.sources.config.config, self.sources.env)
    }

    /// What auto-detection finds (looked up once).
    pub fn detected(&self) -> Option<&Detected> {
        self.detected
            .get_or_init(|| detect::detect(self.sources.env))
            .as_ref()
    }

    /// The assignment for `role` at `level`, if that level has one.
    fn assignment(&self, level: Level, role: &str) -> Result<Option<Assignment>, SpecError> {
        Ok(match level {
            Level::Flag => lookup(self.sources.flags, role).map(|(key, choice)| Assignment {
                choice: choice.clone(),
                limits: RoleLimits::default(),
                family: None,
                field: format!("--agent {key}"),
            }),
            Level::Spec => match lookup(self.sources.spec, role) {
                None => None,
                Some((key, spec)) => {
                    let field = format!("agents.{key}");
                    let (choice, limits, family) = match spec {
                        AgentSpec::Short(text) => (
                            AgentChoice::parse(text)
                                .map_err(|message| SpecError::new(message).field(&field))?,
                            RoleLimits::default(),
                            None,
                        ),
                        AgentSpec::Full(detail) => (
                            AgentChoice {
                                provider: detail.provider.clone(),
                                model: detail.model.clone(),
                            },
                            RoleLimits {
                                timeout_secs: detail.timeout_secs,
                                idle_timeout_secs: detail.idle_timeout_secs,
                                max_retries: detail.max_retries,
                            },
                            detail.family.clone(),
                        ),
                    };
                    Some(Assignment {
                        choice,
                        limits,
                        family,
                        field,
                    })
                }
            },
            Level::Config => match lookup(&self.sources.config.config.roles, role) {
                None => None,
                Some((key, text)) => {
                    let field = format!("roles.{key}");
                    let choice = AgentChoice::parse(text).map_err(|message| {
                        self.sources.config.locate(
                            SpecError::new(message).field(&field),
                            "roles",
                            key,
                        )
                    })?;
                    Some(Assignment {
                        choice,
                        limits: RoleLimits::default(),
                        family: None,
                        field,
                    })
                }
            },
            Level::Auto => None,
        })
    }

    /// Whether a flag, the spec or the configuration names `role` itself
    /// (not through a wildcard or `default`).
    pub fn names(&self, role: &str) -> bool {
        self.sources.flags.contains_key(role)
            || self.sources.spec.contains_key(role)
            || self.sources.config.config.roles.contains_key(role)
    }

    /// The agent for one role slot.
    pub fn resolve(&self, role: &str) -> Result<ResolvedAgent, SpecError> {
        for level in [Level::Flag, Level::Spec, Level::Config] {
            if let Some(assignment) = self.assignment(level, role)? {
                return self.complete(role, level, assignment);
            }
        }
        self.auto(role)
    }

    fn complete(
        &self,
        role: &str,
        level: Level,
        assignment: Assignment,
    ) -> Result<ResolvedAgent, SpecError> {
        let Assignment {
            choice,
            limits,
            family,
            field,
        } = assignment;
        let error_field = if level == Level::Flag {
            "--agent".to_string()
        } else {
            field.clone()
        };
        let located = |message: String| {
            let error = SpecError::new(message).field(&error_field);
            match (level, field.split_once('.')) {
                (Level::Config, Some((section, key))) => {
                    self.sources.config.locate(error, section, key)
                }
                _ => error,
            }
        };
        let provider = self.providers().get(&choice.provider).ok_or_else(|| {
            located(unknown_provider(
                &choice.provider,
                &self.sources.config.config,
            ))
        })?;
        let model =
            model_for(&provider, choice.model.as_deref(), self.sources.config).map_err(located)?;
        // A named model was checked where it was read; a command provider's
        // label taken from its program's name is checked here.
        super::check_model_name(&model).map_err(|message| {
            located(match choice.model {
                Some(_) => message,
                None => format!(
                    "{message} (the `{}` provider has no default_model, so its program's name is the model; set default_model under providers.{})",
                    provider.name, provider.name
                ),
            })
        })?;
        Ok(ResolvedAgent {
            role: role.to_string(),
            level,
            origin: field,
            field: error_field,
            provider,
            model,
            role_limits: limits,
            family,
        })
    }

    fn auto(&self, role: &str) -> Result<ResolvedAgent, SpecError> {
        let Some(detected) = self.detected() else {
            return Err(SpecError::new(nothing_found(role, self.sources.config)));
        };
        let providers = self.providers();
        let (provider, model) = match detected {
            Detected::Anthropic => {
                let provider = providers.get("anthropic").expect("built in");
                let model = provider
                    .default_model
                    .clone()
                    .unwrap_or_else(|| ANTHROPIC_DEFAULT_MODEL.into());
                (provider, model)
            }
            Detected::OpenAi => {
                let provider = providers.get("openai").expect("built in");
                let model = provider
                    .default_model
                    .clone()
                    .unwrap_or_else(|| OPENAI_DEFAULT_MODEL.into());
                (provider, model)
            }
            Detected::Ollama { base_url, model } => (
                ProviderSetup {
                    name: "ollama".into(),
                    kind: ProviderKind::Openai,
                    base_url: Some(base_url.clone()),
                    api_key_env: None,
                    key_required: false,
                    default_model: Some(model.clone()),
                    max_tokens: None,
                    command: Vec::new(),
                    env: Vec::new(),
                    timeout_secs: None,
                    limits: LimitOverrides::default(),
                    configured: false,
                    family: None,
                },
                model.clone(),
            ),
        };
        Ok(ResolvedAgent {
            role: role.to_string(),
            level: Level::Auto,
            origin: detected.reason(),
            field: String::new(),
            provider,
            model,
            role_limits: RoleLimits::default(),
            family: None,
        })
    }
}

/// The model a choice runs: the one named, else the provider's default.
fn model_for(
    provider: &ProviderSetup,
    named: Option<&str>,
    config: &LoadedConfig,
) -> Result<String, String> {
    let where_configured = || match &config.path {
        Some(path) => format!("the configuration file {}", path.display()),
        None => format!(
            "the configuration file ({})",
            super::default_path()
                .map(|path| path.display().to_string())
                .unwrap_or_else(|| "$XDG_CONFIG_HOME/quorum/config.yaml".into())
        ),
    };
    match provider.kind {
        ProviderKind::Script => match named {
            None | Some(SCRIPT_MODEL) => Ok(SCRIPT_MODEL.into()),
            Some(model) => Err(format!(
                "the script provider plays its script; it has no model `{model}`"
            )),
        },
        ProviderKind::Human => Ok(HUMAN_MODEL.into()),
        ProviderKind::Command => {
            let Some(program) = provider.command.first() else {
                return Err(format!(
                    "the `{}` provider needs `command: [PROGRAM, ARGUMENT, ...]` under providers.{} in {}",
                    provider.name,
                    provider.name,
                    where_configured()
                ));
            };
            Ok(named
                .map(str::to_string)
                .or_else(|| provider.default_model.clone())
                .unwrap_or_else(|| {
                    program
                        .rsplit('/')
                        .next()
                        .unwrap_or(program)
                        .to_string()
                }))
        }
        ProviderKind::Openai | ProviderKind::Anthropic => named
            .map(str::to_string)
            .or_else(|| provider.default_model.clone())
            .ok_or_else(|| {
                format!(
                    "`{}` has no default_model; name the model as {}:MODEL, or set default_model in {}",
                    provider.name,
                    provider.name,
                    where_configured()
                )
            }),
    }
}

/// The one paragraph shown when no agent can be found for a role.
pub fn nothing_found(role: &str, config: &LoadedConfig) -> String {
    let config_path = config
        .path
        .clone()
        .or_else(super::default_path)
        .map(|path| path.display().to_string())
        .unwrap_or_else(|| "$XDG_CONFIG_HOME/quorum/config.yaml".into());
    format!(
        "no agent plays `{role}`, and none was found automatically. quorum looks for {ANTHROPIC_KEY_VAR}, \
         then {OPENAI_KEY_VAR} (with {OPENAI_BASE_URL_VAR} for another OpenAI-compatible server), then an Ollama \
         server on 127.0.0.1:11434 (or at OLLAMA_HOST). Set one of them, name providers and roles in {config_path}, \
         or choose per role with --agent ROLE=PROVIDER[:MODEL] (for example --agent default=anthropic:{ANTHROPIC_DEFAULT_MODEL}). \
         `quorum doctor` shows what quorum can reach, and `quorum demo` runs a complete debate with no key and no network."
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::roles::AgentDetail;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        let mut env: BTreeMap<String, String> = pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        // Never probe a real Ollama from a unit test.
        env.entry("OLLAMA_HOST".into())
            .or_insert_with(|| "127.0.0.1:1".into());
        env
    }

    fn config(yaml: &str) -> LoadedConfig {
        super::super::parse(
            Path::new("config.yaml"),
            yaml,
            &crate::protocol::registry::Registered,
        )
        .unwrap()
    }

    fn flags(values: &[&str]) -> BTreeMap<String, AgentChoice> {
        parse_agent_flags(
            &values.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
            &crate::protocol::registry::Registered,
        )
        .unwrap()
    }

    fn spec_agents(pairs: &[(&str, AgentSpec)]) -> BTreeMap<String, AgentSpec> {
        pairs
            .iter()
            .map(|(role, spec)| (role.to_string(), spec.clone()))
            .collect()
    }

    fn short(text: &str) -> AgentSpec {
        AgentSpec::Short(text.into())
    }

    struct Case {
        flags: BTreeMap<String, AgentChoice>,
        spec: BTreeMap<String, AgentSpec>,
        config: LoadedConfig,
        env: BTreeMap<String, String>,
    }

    impl Case {
        fn resolve(&self, role: &str) -> Result<ResolvedAgent, SpecError> {
            Resolver::new(Sources {
                flags: &self.flags,
                spec: &self.spec,
                config: &self.config,
                env: &self.env,
            })
            .resolve(role)
        }

        fn who(&self, role: &str) -> (String, Level, String) {
            let resolved = self.resolve(role).unwrap();
            (resolved.label(), resolved.level, resolved.origin)
        }
    }

    const CONFIG: &str = r#"
providers:
  ollama: { kind: openai, base_url: "http://127.0.0.1:11434/v1", default_model: "llama3.1" }
  anthropic: { default_model: claude-opus-4-1 }
  claude-cli: { kind: command, command: ["/usr/local/bin/claude", "-p"], timeout_secs: 900 }
roles:
  default: anthropic
  judge.*: ollama
  judge.analyst: openai:gpt-4.1-mini
"#;

    #[test]
    fn flags_beat_the_spec_which_beats_the_config_which_beats_auto_detection() {
        let case = Case {
            flags: flags(&["critic=openai:o3"]),
            spec: spec_agents(&[("critic", short("script")), ("proposer", short("script"))]),
            config: config(CONFIG),
            env: env(&[("OPENAI_API_KEY", "x")]),
        };
        assert_eq!(
            case.who("critic"),
            ("openai:o3".into(), Level::Flag, "--agent critic".into())
        );
        assert_eq!(
            case.who("proposer"),
            (
                "script:scripted".into(),
                Level::Spec,
                "agents.proposer".into()
            )
        );
        assert_eq!(
            case.who("judge.stylist"),
            (
                "ollama:llama3.1".into(),
                Level::Config,
                "roles.judge.*".into()
            )
        );
        let without_config = Case {
            config: LoadedConfig::default(),
            ..case
        };
        assert_eq!(
            without_config.who("judge.stylist"),
            (
                "openai:gpt-4.1".into(),
                Level::Auto,
                "OPENAI_API_KEY is set".into()
            )
        );
    }

    #[test]
    fn within_a_level_exact_beats_wildcard_beats_default() {
        let case = Case {
            flags: flags(&[
                "default=openai:a",
                "judge.*=openai:b",
                "judge.analyst=openai:c",
            ]),
            spec: BTreeMap::new(),
            config: LoadedConfig::default(),
            env: env(&[]),
        };
        assert_eq!(case.who("judge.analyst").0, "openai:c");
        assert_eq!(case.who("judge.stylist").0, "openai:b");
        assert_eq!(case.who("proposer").0, "openai:a");
        let config_case = Case {
            flags: BTreeMap::new(),
            config: config(CONFIG),
            ..case
        };
        assert_eq!(config_case.who("judge.analyst").0, "openai:gpt-4.1-mini");
        assert_eq!(config_case.who("judge.aesthete").0, "ollama:llama3.1");
        assert_eq!(config_case.who("critic").0, "anthropic:claude-opus-4-1");
    }

    #[test]
    fn configured_built_ins_keep_their_defaults_and_custom_providers_get_only_their_settings() {
        let loaded = config(CONFIG);
        let environment = env(&[("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1")]);
        let providers = Providers::new(&loaded.config, &environment);
        let anthropic = providers.get("anthropic").unwrap();
        assert_eq!(
            anthropic.base_url.as_deref(),
            Some(ANTHROPIC_DEFAULT_BASE_URL)
        );
        assert_eq!(anthropic.api_key_env.as_deref(), Some("ANTHROPIC_API_KEY"));
        assert!(anthropic.key_required);
        assert!(anthropic.configured);
        let openai = providers.get("openai").unwrap();
        assert_eq!(openai.base_url.as_deref(), Some("http://127.0.0.1:9999/v1"));
        assert!(
            !openai.key_required,
            "a local OpenAI-compatible server may need no key"
        );
        let ollama = providers.get("ollama").unwrap();
        assert_eq!(ollama.kind, ProviderKind::Openai);
        assert_eq!(ollama.api_key_env, None);
        assert!(!ollama.key_required);
        let cli = providers.get("claude-cli").unwrap();
        assert_eq!(cli.command, ["/usr/local/bin/claude", "-p"]);
        assert_eq!(cli.timeout_secs, Some(900.0));
        assert!(providers.get("nowhere").is_none());
        let names: Vec<String> = providers.listed().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["anthropic", "openai", "claude-cli", "ollama"]);
        let official = env(&[]);
        assert!(
            Providers::new(&loaded.config, &official)
                .get("openai")
                .unwrap()
                .key_required
        );
    }

    #[test]
    fn a_command_provider_is_labelled_by_its_program_unless_given_a_model() {
        let case = Case {
            flags: flags(&["critic=claude-cli", "proposer=claude-cli:opus"]),
            spec: BTreeMap::new(),
            config: config(CONFIG),
            env: env(&[]),
        };
        assert_eq!(case.who("critic").0, "claude-cli:claude");
        assert_eq!(case.who("proposer").0, "claude-cli:opus");
        let resolved = case.resolve("critic").unwrap();
        assert_eq!(resolved.deadline_secs(None, 600.0), 900.0);
        assert_eq!(resolved.deadline_secs(Some(30.0), 600.0), 30.0);
    }

    #[test]
    fn the_unconfigured_command_provider_says_what_it_needs() {
        let case = Case {
            flags: flags(&["critic=command"]),
            spec: BTreeMap::new(),
            config: LoadedConfig::default(),
            env: env(&[]),
        };
        let error = case.resolve("critic").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("--agent"));
        assert!(error.message.contains("providers.command"), "{error}");
    }

    #[test]
    fn unknown_providers_and_missing_models_name_the_flag_or_key() {
        let case = Case {
            flags: flags(&["critic=nowhere"]),
            spec: spec_agents(&[("judge.*", short("custom"))]),
            config: config("providers:\n  custom: { kind: openai, base_url: \"http://h/v1\" }\n"),
            env: env(&[]),
        };
        let error = case.resolve("critic").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("--agent"));
        assert!(
            error.message.contains("unknown provider `nowhere`"),
            "{error}"
        );
        assert!(error.message.contains("adds custom"), "{error}");
        let error = case.resolve("judge.analyst").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("agents.judge.*"));
        assert!(error.message.contains("no default_model"), "{error}");
    }

    #[test]
    fn human_is_accepted_with_no_model() {
        let case = Case {
            flags: flags(&["critic=human"]),
            spec: BTreeMap::new(),
            config: LoadedConfig::default(),
            env: env(&[]),
        };
        let resolved = case.resolve("critic").unwrap();
        assert_eq!(resolved.provider.kind, ProviderKind::Human);
        assert_eq!(resolved.label(), "human:human");
    }

    #[test]
    fn spec_role_limits_override_the_provider_limits() {
        let case = Case {
            flags: BTreeMap::new(),
            spec: spec_agents(&[(
                "critic",
                AgentSpec::Full(AgentDetail {
                    provider: "slow".into(),
                    model: Some("m".into()),
                    timeout_secs: Some(45.0),
                    idle_timeout_secs: Some(20.0),
                    max_retries: None,
                    family: None,
                }),
            )]),
            config: config(
                "providers:\n  slow: { kind: openai, idle_timeout_secs: 90, max_retries: 5, connect_timeout_secs: 3 }\n",
            ),
            env: env(&[]),
        };
        let resolved = case.resolve("critic").unwrap();
        assert_eq!(resolved.deadline_secs(Some(10.0), 600.0), 45.0);
        let limits = resolved.limits();
        assert_eq!(limits.idle_timeout_secs, Some(20.0));
        assert_eq!(limits.max_retries, Some(5));
        assert_eq!(limits.connect_timeout_secs, Some(3.0));
    }

    #[test]
    fn auto_detection_prefers_anthropic_and_uses_the_configured_default_model() {
        let case = Case {
            flags: BTreeMap::new(),
            spec: BTreeMap::new(),
            config: config("providers:\n  anthropic: { default_model: claude-haiku-4-5 }\n"),
            env: env(&[("ANTHROPIC_API_KEY", "x"), ("OPENAI_API_KEY", "y")]),
        };
        assert_eq!(
            case.who("proposer"),
            (
                "anthropic:claude-haiku-4-5".into(),
                Level::Auto,
                "ANTHROPIC_API_KEY is set".into()
            )
        );
    }

    #[test]
    fn nothing_found_is_one_paragraph_with_every_way_out() {
        let case = Case {
            flags: BTreeMap::new(),
            spec: BTreeMap::new(),
            config: LoadedConfig::default(),
            env: env(&[]),
        };
        let error = case.resolve("proposer").unwrap_err();
        let text = error.to_string();
        for needle in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "Ollama",
            "config.yaml",
            "--agent",
            "quorum demo",
        ] {
            assert!(text.contains(needle), "{needle} missing: {text}");
        }
        assert!(!text.contains('\n'), "one paragraph: {text}");
    }

    #[test]
    fn bad_agent_flags_keep_their_messages() {
        let error = parse_agent_flags(
            &["no-equals".into()],
            &crate::protocol::registry::Registered,
        )
        .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("--agent"));
        assert!(error.message.contains("ROLE=PROVIDER"));
        let error = parse_agent_flags(
            &["judge.poet=openai".into()],
            &crate::protocol::registry::Registered,
        )
        .unwrap_err();
        assert!(error.message.contains("judge.poet"));
        let error = parse_agent_flags(
            &["critic=openai:".into()],
            &crate::protocol::registry::Registered,
        )
        .unwrap_err();
        assert!(error.message.contains("empty model"));
    }
}
