//! The agents of a recorded debate built again from the setup its journal
//! keeps, against today's configuration and environment (`quorum resume`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::agent::factory::{self, BuildContext};
use crate::agent::human::HumanDesk;
use crate::config::detect::Environment;
use crate::config::resolve::{ProviderSetup, ResolvedAgent, Resolver, Sources};
use crate::config::{self, ProviderKind};
use crate::engine::{Alternative, RoleAgent, Roster, RunSetup};
use crate::located::SpecError;

use super::watch_keys;

/// The agents of a recorded debate, built again from its [`RunSetup`]
/// (keys are read from `env` now, as they were then).
pub struct Rebuilt {
    pub roster: Roster,
    pub alternatives: Vec<Alternative>,
    /// Roles played by a person.
    pub human_roles: Vec<String>,
    pub human_desk: Arc<HumanDesk>,
}

/// Builds the roster and the alternatives a journal's [`RunSetup`] describes.
///
/// A journal is a file anyone could have handed over, so it chooses only
/// providers by name, models and limits: where a provider's calls go, which
/// environment variable holds its key and which program it runs come from
/// today's configuration (`config`, else the default file) and environment,
/// and must match what the journal recorded, or the debate is not resumed.
/// `journal` names the file in errors.
pub fn rebuild(
    setup: &RunSetup,
    journal: &Path,
    config: Option<&Path>,
    env: &dyn Environment,
) -> Result<Rebuilt, SpecError> {
    let loaded = config::load(config, &crate::protocol::registry::Registered)?;
    watch_keys(&loaded);
    let (no_flags, no_spec) = (BTreeMap::new(), BTreeMap::new());
    let resolver = Resolver::new(Sources {
        flags: &no_flags,
        spec: &no_spec,
        config: &loaded,
        env,
    });
    let providers = resolver.providers();
    let human_desk = HumanDesk::new();
    let context = BuildContext {
        script: setup.script.clone().map(Arc::new),
        speed: setup.speed,
        env,
        human_desk: Some(human_desk.clone()),
        key_variables: loaded.key_variables(),
    };
    let located = |error: SpecError, field: String| {
        let mut error = error.field(format!("setup.{field}")).in_file(journal, None);
        error.line = Some(1);
        error
    };
    let build = |recorded: &ResolvedAgent, field: String| {
        let resolved = with_todays_provider(recorded, &providers)
            .map_err(|error| located(error, field.clone()))?;
        factory::build(&resolved, &context).map_err(|error| {
            located(
                SpecError::new(format!("cannot rebuild {}: {error}", resolved.label())),
                field,
            )
        })
    };
    let mut roster = Roster::default();
    let mut human_roles = Vec::new();
    for (role, recorded) in &setup.roles {
        if recorded.agent.provider.kind == ProviderKind::Human {
            human_roles.push(role.clone());
        }
        roster.insert(
            role.clone(),
            RoleAgent {
                agent: build(&recorded.agent, format!("roles.{role}"))?,
                timeout: Duration::from_millis(recorded.timeout_ms),
            },
        );
    }
    // An alternative that cannot be built today (its key is gone, its
    // provider changed) is simply not offered.
    let alternatives = setup
        .alternatives
        .iter()
        .filter_map(|recorded| {
            Some(Alternative {
                agent: build(&recorded.agent, String::new()).ok()?,
                price: recorded.price,
            })
        })
        .collect();
    Ok(Rebuilt {
        roster,
        alternatives,
        human_roles,
        human_desk,
    })
}

/// `recorded` with its provider as configured today, which must send calls
/// where the journal says they went: same kind, same base URL (credentials
/// aside), same key variable, same program.
fn with_todays_provider(
    recorded: &ResolvedAgent,
    providers: &crate::config::resolve::Providers<'_>,
) -> Result<ResolvedAgent, SpecError> {
    let was = &recorded.provider;
    if matches!(was.kind, ProviderKind::Script | ProviderKind::Human) {
        return Ok(recorded.clone());
    }
    let Some(now) = providers.get(&was.name) else {
        return Err(SpecError::new(format!(
            "the debate ran provider `{}`, which the configuration no longer defines; \
             define it again (or pass the debate's --config) to resume",
            was.name
        )));
    };
    let describe = |setup: &ProviderSetup| {
        let mut parts = vec![format!("kind {:?}", setup.kind).to_lowercase()];
        if let Some(url) = &setup.base_url {
            parts.push(format!("at {}", crate::agent::http::shown_url(url)));
        }
        if let Some(variable) = &setup.api_key_env {
            parts.push(format!("key from ${variable}"));
        }
        if let Some(program) = setup.command.first() {
            parts.push(format!("running {program}"));
        }
        parts.join(", ")
    };
    let same = now.kind == was.kind
        && now.base_url.as_deref().map(crate::agent::http::shown_url) == was.base_url
        && now.api_key_env == was.api_key_env
        && now.command.first() == was.command.first();
    if !same {
        return Err(SpecError::new(format!(
            "the debate ran provider `{}` as {}; the configuration now says {}. \
             quorum resumes only against the provider the debate used: restore it, \
             or start a new debate",
            was.name,
            describe(was),
            describe(&now)
        )));
    }
    Ok(ResolvedAgent {
        provider: now,
        ..recorded.clone()
    })
}
