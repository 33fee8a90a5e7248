//! The one place where a resolved choice (provider kind, model, settings)
//! becomes an agent.
//!
//! Responsible for construction only: reading the key from the variable the
//! provider names, applying the provider's and the role's limits, and naming
//! the agent `provider:model` as the configuration calls it. Which provider
//! plays a role is decided before, in `config::resolve`; deadlines are the
//! engine's.

use std::sync::Arc;

use crate::config::ProviderKind;
use crate::config::detect::Environment;
use crate::config::resolve::ResolvedAgent;

use super::command::{CommandAgent, CommandError};
use super::script::{Script, ScriptAgent};
use super::{Agent, AgentInfo};

/// What agents are built with, besides their resolved choice.
pub struct BuildContext<'a> {
    /// The spec's scripted replies, for roles played by `script`.
    pub script: Option<Arc<Script>>,
    /// Pace multiplier of scripted agents.
    pub speed: f64,
    /// Where keys are read from.
    pub env: &'a dyn Environment,
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
    #[error("the {kind} provider is not part of this build of quorum yet")]
    Unavailable { kind: ProviderKind },
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
        ProviderKind::Human => Err(BuildError::HumanNeedsInterface),
        ProviderKind::Command => {
            let argv = provider
                .command
                .iter()
                .map(|arg| arg.replace("{model}", &resolved.model))
                .collect();
            let agent = CommandAgent::new(argv, info).map_err(|source| BuildError::Command {
                provider: provider.name.clone(),
                source,
            })?;
            Ok(Arc::new(agent))
        }
        ProviderKind::Openai | ProviderKind::Anthropic => {
            require_key(resolved, context.env)?;
            Err(BuildError::Unavailable {
                kind: provider.kind,
            })
        }
    }
}

/// Fails when the provider cannot work without a key that is not set.
fn require_key(resolved: &ResolvedAgent, env: &dyn Environment) -> Result<(), BuildError> {
    let provider = &resolved.provider;
    match &provider.api_key_env {
        Some(variable) if provider.key_required && !env.is_set(variable) => {
            Err(BuildError::MissingKey {
                provider: provider.name.clone(),
                variable: variable.clone(),
            })
        }
        _ => Ok(()),
    }
}
