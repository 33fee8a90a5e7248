//! `quorum doctor`: which configuration is in effect, which providers exist
//! and whether they answer, which agent each role slot would get and why,
//! and what the terminal looks like.
//!
//! Responsible for checking and reporting, nothing else: it starts no agent
//! and writes no file. It never prints any part of a key, only whether the
//! variable that should hold it is set. A built-in provider that is neither
//! configured nor has its key set is not contacted at all.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::agent::AgentError;
use crate::agent::factory;
use crate::agent::http::{self, HttpFailureKind, HttpLimits, ProbeKind};
use crate::config::detect::{self, Environment, SystemEnvironment};
use crate::config::resolve::{
    Level, ProviderSetup, Providers, Resolver, Sources, parse_agent_flags,
};
use crate::config::{self, LoadedConfig, ProviderKind};
use crate::protocol::registry;
use crate::spec::{self, DebateSpec};
use crate::text::sanitize;

use super::{DoctorArgs, EXIT_USAGE};

/// How long an endpoint has to accept a connection, in milliseconds.
pub const PROBE_CONNECT_TIMEOUT_MS: u64 = 3_000;
/// How long an endpoint has to answer once connected, in milliseconds.
pub const PROBE_IDLE_TIMEOUT_MS: u64 = 5_000;

/// What a provider check found.
struct Check {
    lines: Vec<String>,
    usable: bool,
}

/// Runs the checks and prints the report on stdout; exit 0 when at least one
/// provider is usable, 2 otherwise (or for a bad configuration).
pub async fn run(args: DoctorArgs) -> ExitCode {
    match report(&args, &SystemEnvironment).await {
        Ok((text, usable)) => {
            print!("{}", sanitize(&text));
            if usable {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_USAGE)
            }
        }
        Err(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error.to_string()));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// The report and whether any provider is usable.
async fn report(
    args: &DoctorArgs,
    env: &dyn Environment,
) -> Result<(String, bool), spec::SpecError> {
    let loaded = config::load(args.config.as_deref())?;
    let agent_flags = parse_agent_flags(&args.agents)?;
    let spec = match &args.spec {
        Some(path) => {
            let (spec, text) = spec::load(path)?;
            spec::validate(&spec).map_err(|error| error.in_file(path, Some(&text)))?;
            Some(spec)
        }
        None => None,
    };
    let mut out = String::from("quorum doctor\n\n");
    out.push_str(&config_section(&loaded));

    out.push_str("\nProviders\n");
    let providers = Providers::new(&loaded.config, env);
    let mut usable = 0usize;
    for setup in providers.listed() {
        let check = check_provider(&setup, &providers, env).await;
        usable += usize::from(check.usable);
        out.push_str(&format!("  {} ({})", setup.name, setup.kind));
        match setup.kind {
            ProviderKind::Command => out.push_str(&format!(" — {}", setup.command.join(" "))),
            _ => out.push_str(&format!(
                " — {}",
                crate::agent::http::shown_url(setup.base_url.as_deref().unwrap_or_default())
            )),
        }
        out.push('\n');
        for line in check.lines {
            out.push_str(&format!("      {line}\n"));
        }
    }
    let ollama = check_ollama(env);
    usable += usize::from(ollama.usable);
    out.push_str(&format!(
        "  ollama (auto-detect) — {}\n",
        detect::ollama_address(env)
    ));
    for line in ollama.lines {
        out.push_str(&format!("      {line}\n"));
    }

    out.push_str(&roles_section(&agent_flags, spec.as_ref(), &loaded, env));
    out.push_str(&terminal_section(env));
    out.push_str(&format!(
        "\n{}\n",
        if usable == 0 {
            "No provider is usable. Set a key variable, configure a provider, or try `quorum demo` (no key needed)."
                .to_string()
        } else {
            format!("{usable} provider(s) usable.")
        }
    ));
    Ok((out, usable > 0))
}

fn config_section(loaded: &LoadedConfig) -> String {
    match &loaded.path {
        Some(path) => format!(
            "Configuration file\n  {} ({} provider(s), {} role default(s), {} price(s))\n",
            path.display(),
            loaded.config.providers.len(),
            loaded.config.roles.len(),
            loaded.config.prices.len()
        ),
        None => format!(
            "Configuration file\n  none (quorum looks for {})\n",
            config::default_path()
                .map(|path| path.display().to_string())
                .unwrap_or_else(|| "$XDG_CONFIG_HOME/quorum/config.yaml".into())
        ),
    }
}

async fn check_provider(
    setup: &ProviderSetup,
    providers: &Providers<'_>,
    env: &dyn Environment,
) -> Check {
    if setup.kind == ProviderKind::Command {
        return match find_program(setup.command.first().map(String::as_str).unwrap_or("")) {
            Some(path) => Check {
                lines: vec![format!("program: found at {}", path.display())],
                usable: true,
            },
            None => Check {
                lines: vec!["program: not found (not on PATH, or not executable)".into()],
                usable: false,
            },
        };
    }
    let key_set = providers.key_is_set(setup);
    let key_line = match &setup.api_key_env {
        Some(variable) if key_set => format!("key: {variable} is set"),
        Some(variable) if setup.key_required => format!("key: {variable} is NOT set"),
        Some(variable) => format!("key: {variable} is not set (optional for this endpoint)"),
        None => "key: none needed".to_string(),
    };
    if !setup.configured && !key_set {
        return Check {
            lines: vec![
                key_line,
                "endpoint: not checked (not configured and no key)".into(),
            ],
            usable: false,
        };
    }
    let limits = HttpLimits {
        connect_timeout: Duration::from_millis(PROBE_CONNECT_TIMEOUT_MS),
        idle_timeout: Some(Duration::from_millis(PROBE_IDLE_TIMEOUT_MS)),
        max_retries: 0,
        ..HttpLimits::default()
    };
    let endpoint = factory::endpoint(setup, limits, env);
    let kind = if setup.kind == ProviderKind::Anthropic {
        ProbeKind::Anthropic
    } else {
        ProbeKind::OpenAi
    };
    let (endpoint_line, answers) = match http::probe(&endpoint, kind).await {
        Ok(detail) => (format!("endpoint: {detail}"), true),
        Err(AgentError::Http(failure)) if failure.kind == HttpFailureKind::Status => (
            format!("endpoint: answers, but refuses the request ({failure})"),
            false,
        ),
        Err(error) => (format!("endpoint: does not answer ({error})"), false),
    };
    Check {
        lines: vec![key_line, endpoint_line],
        usable: answers && (key_set || !setup.key_required),
    }
}

fn check_ollama(env: &dyn Environment) -> Check {
    let address = detect::ollama_address(env);
    match detect::ollama_first_model(
        &address,
        Duration::from_millis(detect::OLLAMA_PROBE_TIMEOUT_MS),
    ) {
        Some(model) => Check {
            lines: vec![format!("endpoint: answers; first model {model}")],
            usable: true,
        },
        None => Check {
            lines: vec!["endpoint: does not answer (or has no model)".into()],
            usable: false,
        },
    }
}

/// The program's path: as given when it has a slash, else the first
/// executable match on `PATH`.
fn find_program(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        path.metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let path = PathBuf::from(program);
        return executable(&path).then_some(path);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| executable(path))
}

fn roles_section(
    agent_flags: &std::collections::BTreeMap<String, config::AgentChoice>,
    spec: Option<&DebateSpec>,
    loaded: &LoadedConfig,
    env: &dyn Environment,
) -> String {
    let no_agents = Default::default();
    let resolver = Resolver::new(Sources {
        flags: agent_flags,
        spec: spec.map_or(&no_agents, |spec| &spec.agents),
        config: loaded,
        env,
    });
    let mut out =
        String::from("\nRoles of every protocol (--agent flag > spec > config > auto-detect)\n");
    for slot in registry::slot_names()
        .into_iter()
        .filter(|slot| !slot.ends_with(".*"))
    {
        let used_by: Vec<String> = registry::KINDS
            .iter()
            .filter(|kind| kind.slots().contains(&slot))
            .map(|kind| match kind.slot_note(slot) {
                Some(note) => format!("{} ({note})", kind.title()),
                None => kind.title().to_string(),
            })
            .collect();
        let note = format!("  [{}]", used_by.join(", "));
        let line = match resolver.resolve(slot) {
            Ok(resolved) => {
                let origin = match resolved.level {
                    Level::Auto => format!("auto: {}", resolved.origin),
                    Level::Flag => resolved.origin.clone(),
                    level => format!("{level}: {}", resolved.origin),
                };
                format!("{:<40} from {origin}", resolved.label())
            }
            Err(error) if error.message.starts_with("no agent plays") => {
                "unassigned: nothing assigns it and auto-detection found nothing".into()
            }
            Err(error) => format!("error: {error}"),
        };
        out.push_str(&format!("  {slot:<18} {line}{note}\n"));
    }
    out
}

fn terminal_section(env: &dyn Environment) -> String {
    format!(
        "\nTerminal\n  stdout is a terminal: {}\n  TERM: {}\n  NO_COLOR: {}\n",
        if std::io::stdout().is_terminal() {
            "yes"
        } else {
            "no"
        },
        env.var("TERM").unwrap_or_else(|| "not set".into()),
        if env.is_set("NO_COLOR") {
            "set (no colours)"
        } else {
            "not set"
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_the_path_or_by_their_path() {
        assert!(find_program("sh").is_some());
        assert!(find_program("/bin/sh").is_some());
        assert!(find_program("quorum-no-such-program").is_none());
        assert!(find_program("").is_none());
    }
}
