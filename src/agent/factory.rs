//! The one place where a resolved choice (provider kind, model, settings)
//! becomes an agent.
//!
//! Responsible for construction only: reading the key from the variable the
//! provider names, applying the provider's and the role's limits, and naming
//! the agent `provider:model` as the configuration calls it. Which provider
//! plays a role is decided before, in `config::resolve`; deadlines are the
//! engine's.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::config::ProviderKind;
use crate::config::detect::Environment;
use crate::config::resolve::{LimitOverrides, ProviderSetup, ResolvedAgent};

use super::anthropic::AnthropicAgent;
use super::command::{CommandAgent, CommandError};
use super::http::{ApiKey, Endpoint, HttpLimits};
use super::human::{HumanAgent, HumanDesk};
use super::openai::OpenAiAgent;
use super::script::{Script, ScriptAgent};
use super::{Agent, AgentError, AgentInfo, CallOutput, CallRequest, EventSender};

/// What agents are built with, besides their resolved choice.
pub struct BuildContext<'a> {
    /// The spec's scripted replies, for roles played by `script`.
    pub script: Option<Arc<Script>>,
    /// Pace multiplier of scripted agents.
    pub speed: f64,
    /// Where keys are read from.
    pub env: &'a dyn Environment,
    /// Where answers typed for roles played by a person arrive; without
    /// one, a `human` role cannot be built.
    pub human_desk: Option<Arc<HumanDesk>>,
    /// The variables that hold keys ([`crate::config::keys::key_variables`]):
    /// a `command` program gets only those its provider's `env:` lists.
    pub key_variables: Vec<String>,
}

/// Why an agent could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(
        "`{role}` is played by the script provider, but there is no `script:` section (or --script FILE) with its replies"
    )]
    NoScript { role: String },
    #[error("a human agent needs the interactive interface; drop --headless")]
    HumanNeedsInterface,
    #[error(
        "`{provider}` needs an API key in the environment variable {variable}, which is not set"
    )]
    MissingKey { provider: String, variable: String },
    #[error("`{provider}`: {source}")]
    Command {
        provider: String,
        source: CommandError,
    },
    #[error("`{provider}`: {message}; it is not put in the program's arguments")]
    UnsafeModel { provider: String, message: String },
}

/// Builds the agent for one resolved role slot.
pub fn build(
    resolved: &ResolvedAgent,
    context: &BuildContext<'_>,
) -> Result<Arc<dyn Agent>, BuildError> {
    let provider = &resolved.provider;
    let info = AgentInfo {
        provider: provider.name.clone(),
        model: resolved.model.clone(),
    };
    match provider.kind {
        ProviderKind::Script => {
            let script = context.script.clone().ok_or_else(|| BuildError::NoScript {
                role: resolved.role.clone(),
            })?;
            Ok(Arc::new(ScriptAgent::new(script, context.speed)))
        }
        ProviderKind::Human => match &context.human_desk {
            Some(desk) => Ok(Arc::new(HumanAgent::new(desk.clone()))),
            None => Err(BuildError::HumanNeedsInterface),
        },
        ProviderKind::Command => {
            // Checked where the model was named, and again here, where it
            // becomes part of a program's arguments (a journal handed over
            // for `resume` names models too): what passes holds nothing a
            // shell would read as syntax.
            crate::config::check_model_name(&resolved.model).map_err(|message| {
                BuildError::UnsafeModel {
                    provider: provider.name.clone(),
                    message,
                }
            })?;
            let argv = provider
                .command
                .iter()
                .map(|arg| arg.replace("{model}", &resolved.model))
                .collect();
            let agent = CommandAgent::new(argv, info)
                .map_err(|source| BuildError::Command {
                    provider: provider.name.clone(),
                    source,
                })?
                .with_variables(context.key_variables.clone(), provider.env.clone());
            Ok(Arc::new(agent))
        }
        ProviderKind::Openai | ProviderKind::Anthropic => {
            let endpoint = endpoint(provider, http_limits(resolved.limits()), context.env);
            if provider.key_required
                && endpoint.api_key.is_none()
                && let Some(variable) = &provider.api_key_env
            {
                return Err(BuildError::MissingKey {
                    provider: provider.name.clone(),
                    variable: variable.clone(),
                });
            }
            let model = resolved.model.clone();
            let inner: Arc<dyn Agent> = if provider.kind == ProviderKind::Openai {
                Arc::new(OpenAiAgent::new(endpoint, model).with_max_tokens(provider.max_tokens))
            } else {
                let agent = AnthropicAgent::new(endpoint, model);
                Arc::new(match provider.max_tokens {
                    Some(max_tokens) => agent.with_max_tokens(max_tokens),
                    None => agent,
                })
            };
            Ok(Arc::new(Labelled { inner, info }))
        }
    }
}

/// Where an HTTP provider lives: its base URL, its key (read from the
/// variable it names, if set) and `limits`.
pub fn endpoint(provider: &ProviderSetup, limits: HttpLimits, env: &dyn Environment) -> Endpoint {
    let api_key = provider
        .api_key_env
        .as_deref()
        .and_then(|variable| env.var(variable))
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
        .map(ApiKey::new);
    Endpoint {
        base_url: provider.base_url.clone().unwrap_or_default(),
        api_key,
        limits,
    }
}

/// The default HTTP limits with the configured ones applied.
pub fn http_limits(overrides: LimitOverrides) -> HttpLimits {
    let defaults = HttpLimits::default();
    let seconds =
        |value: Option<f64>, default: Duration| value.map_or(default, Duration::from_secs_f64);
    HttpLimits {
        connect_timeout: seconds(overrides.connect_timeout_secs, defaults.connect_timeout),
        idle_timeout: overrides
            .idle_timeout_secs
            .map(Duration::from_secs_f64)
            .or(defaults.idle_timeout),
        max_retries: overrides.max_retries.unwrap_or(defaults.max_retries),
        retry_after_cap: seconds(overrides.retry_after_cap_secs, defaults.retry_after_cap),
        ..defaults
    }
}

/// An agent shown under the name the configuration gives its provider
/// (`ollama:llama3.1` rather than the transport's `openai:llama3.1`).
struct Labelled {
    inner: Arc<dyn Agent>,
    info: AgentInfo,
}

impl Agent for Labelled {
    fn info(&self) -> AgentInfo {
        self.info.clone()
    }

    fn usage_is_estimated(&self) -> bool {
        self.inner.usage_is_estimated()
    }

    fn stages_timeout(&self, request: &CallRequest) -> bool {
        self.inner.stages_timeout(request)
    }

    fn call<'a>(
        &'a self,
        request: CallRequest,
        events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        self.inner.call(request, events)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::config::resolve::{Level, RoleLimits};

    fn resolved(provider: ProviderSetup, model: &str) -> ResolvedAgent {
        ResolvedAgent {
            role: "critic".into(),
            level: Level::Flag,
            origin: "--agent critic".into(),
            field: "--agent".into(),
            provider,
            model: model.into(),
            role_limits: RoleLimits::default(),
            family: None,
        }
    }

    fn http_provider(name: &str, kind: ProviderKind, key_required: bool) -> ProviderSetup {
        ProviderSetup {
            name: name.into(),
            kind,
            base_url: Some("http://127.0.0.1:9/v1".into()),
            api_key_env: Some("TEST_KEY".into()),
            key_required,
            default_model: None,
            max_tokens: None,
            command: Vec::new(),
            env: Vec::new(),
            timeout_secs: None,
            limits: LimitOverrides::default(),
            configured: true,
            family: None,
        }
    }

    fn context(env: &BTreeMap<String, String>) -> BuildContext<'_> {
        BuildContext {
            script: None,
            speed: 1.0,
            env,
            human_desk: None,
            key_variables: crate::config::keys::key_variables(&Default::default()),
        }
    }

    #[test]
    fn http_agents_carry_the_configured_name_and_model() {
        let env = BTreeMap::from([("TEST_KEY".to_string(), " sk-test ".to_string())]);
        for kind in [ProviderKind::Openai, ProviderKind::Anthropic] {
            let agent = build(
                &resolved(http_provider("local", kind, true), "m-1"),
                &context(&env),
            )
            .unwrap();
            assert_eq!(agent.info().to_string(), "local:m-1");
            assert!(!agent.usage_is_estimated());
        }
    }

    #[test]
    fn a_required_key_that_is_not_set_is_named_and_never_shown() {
        let env = BTreeMap::new();
        let error = build(
            &resolved(http_provider("openai", ProviderKind::Openai, true), "m"),
            &context(&env),
        )
        .err()
        .expect("a missing key");
        assert_eq!(
            error.to_string(),
            "`openai` needs an API key in the environment variable TEST_KEY, which is not set"
        );
        let optional = build(
            &resolved(http_provider("vllm", ProviderKind::Openai, false), "m"),
            &context(&env),
        );
        assert!(optional.is_ok(), "a local server may need no key");
    }

    #[test]
    fn the_endpoint_reads_the_key_and_applies_the_limits() {
        let env = BTreeMap::from([("TEST_KEY".to_string(), "sk-secret-value".to_string())]);
        let provider = http_provider("openai", ProviderKind::Openai, true);
        let limits = http_limits(LimitOverrides {
            connect_timeout_secs: Some(2.5),
            idle_timeout_secs: None,
            max_retries: Some(0),
            retry_after_cap_secs: Some(10.0),
        });
        let endpoint = endpoint(&provider, limits, &env);
        assert_eq!(endpoint.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(
            endpoint.limits.connect_timeout,
            Duration::from_millis(2_500)
        );
        assert_eq!(
            endpoint.limits.idle_timeout,
            HttpLimits::default().idle_timeout
        );
        assert_eq!(endpoint.limits.max_retries, 0);
        assert_eq!(endpoint.limits.retry_after_cap, Duration::from_secs(10));
        let shown = format!("{endpoint:?}");
        assert!(!shown.contains("sk-secret-value"), "{shown}");
        assert!(endpoint.api_key.is_some());
    }

    #[test]
    fn human_and_scriptless_roles_say_what_they_need() {
        let env = BTreeMap::new();
        let mut human = http_provider("human", ProviderKind::Human, false);
        human.base_url = None;
        let error = build(&resolved(human, "human"), &context(&env))
            .err()
            .unwrap();
        assert!(error.to_string().contains("drop --headless"), "{error}");
        let mut script = http_provider("script", ProviderKind::Script, false);
        script.base_url = None;
        let error = build(&resolved(script, "scripted"), &context(&env))
            .err()
            .unwrap();
        assert!(
            error.to_string().contains("no `script:` section"),
            "{error}"
        );
    }

    #[test]
    fn a_command_gets_its_model_in_place_of_the_placeholder() {
        let env = BTreeMap::new();
        let mut command = http_provider("cli", ProviderKind::Command, false);
        command.base_url = None;
        command.command = vec!["my-agent".into(), "--model={model}".into()];
        let agent = build(&resolved(command.clone(), "big"), &context(&env)).unwrap();
        assert_eq!(agent.info().to_string(), "cli:big");
        // A model that slipped past the checks where it was named (a
        // journal handed over for resume) never reaches the arguments.
        let error = build(&resolved(command, "x; touch pwned"), &context(&env))
            .err()
            .expect("refused");
        assert!(matches!(error, BuildError::UnsafeModel { .. }), "{error}");
        assert!(error.to_string().contains("`;`"), "{error}");
    }
}
