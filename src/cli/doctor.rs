//! `quorum doctor`: which configuration is in effect, which providers exist
//! and whether they answer, which agent each role slot would get and why,
//! and what the terminal looks like.
//!
//! Responsible for checking and reporting, nothing else: it starts no agent
//! and writes no file. It never prints any part of a key, only whether the
//! variable that should hold it is set. A built-in provider that is neither
//! configured nor has its key set is not contacted at all.

use std::collections::{BTreeMap, BTreeSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::agent::AgentError;
use crate::agent::factory;
use crate::agent::http::{HttpFailureKind, HttpLimits};
use crate::agent::probe::{ProbeKind, probe};
use crate::config::detect::{self, Environment, SystemEnvironment};
use crate::config::resolve::{
    Level, ProviderSetup, Providers, Resolver, Sources, parse_agent_flags,
};
use crate::config::{self, LoadedConfig, ProviderKind};
use crate::protocol::fairness::Family;
use crate::protocol::registry;
use crate::spec;
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
) -> Result<(String, bool), crate::located::SpecError> {
    let loaded = config::load(args.config.as_deref(), &registry::Registered)?;
    let agent_flags = parse_agent_flags(&args.agents, &registry::Registered)?;
    let spec = match &args.spec {
        Some(path) => {
            let (spec, text) = spec::load(path)?;
            spec::validate(&spec, &registry::Registered)
                .map_err(|error| error.in_file(path, Some(&text)))?;
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

    let no_agents = Default::default();
    let resolver = Resolver::new(Sources {
        flags: &agent_flags,
        spec: spec.as_ref().map_or(&no_agents, |spec| &spec.agents),
        config: &loaded,
        env,
    });
    out.push_str(&roles_section(&resolver));
    out.push_str(&probe_section(&resolver, &args.probes));
    out.push_str(&terminal_section(env));
    out.push_str(&mcp_section(env, find_program("quorum").is_some()));
    out.push_str(&library_section(&loaded));
    out.push_str(&format!(
        "\n{}\n",
        if usable == 0 {
            "No provider is usable. Set a key variable, configure a provider, or try `quorum demo` (no key needed)."
                .to_string()
        } else {
            let providers = crate::words::counted(usable, "provider", "providers");
            format!("{providers} usable.")
        }
    ));
    Ok((out, usable > 0))
}

fn config_section(loaded: &LoadedConfig) -> String {
    match &loaded.path {
        Some(path) => format!(
            "Configuration file\n  {} ({}, {}, {})\n",
            path.display(),
            crate::words::counted(loaded.config.providers.len(), "provider", "providers"),
            crate::words::counted(loaded.config.roles.len(), "role default", "role defaults"),
            crate::words::counted(loaded.config.prices.len(), "price", "prices")
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
    let (endpoint_line, answers) = match probe(&endpoint, kind).await {
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

/// One way a protocol runs (a mode, or the protocol itself when it has
/// none) and the role slots it seats there, read from the protocol's own
/// configuration of its demo.
struct Variant {
    kind: &'static dyn crate::protocol::kind::ProtocolKind,
    mode: Option<&'static str>,
    roles: Vec<crate::protocol::kind::RoleSlot>,
    /// `(judge, author)` pairs the variant judges fairly.
    judged_authors: Vec<(String, String)>,
}

/// Every protocol's variants, each configured as its built-in demo is; a
/// variant that cannot be configured is left out.
fn variants() -> Vec<Variant> {
    let mut variants = Vec::new();
    for kind in registry::kinds().into_iter() {
        let modes: Vec<Option<&'static str>> = match kind.modes() {
            [] => vec![None],
            modes => modes.iter().copied().map(Some).collect(),
        };
        for mode in modes {
            let Some(text) = kind.demo(mode) else {
                continue;
            };
            let flags: Vec<crate::protocol::kind::FlagValue> = mode
                .map(|mode| crate::protocol::kind::FlagValue::new("--mode", "mode", mode))
                .into_iter()
                .collect();
            let spec = Path::new(super::DEMO_SPEC_NAME);
            let configured = kind.configure(&crate::protocol::kind::Configure::from_spec(
                spec, text, &flags,
            ));
            if let Ok(configured) = configured {
                variants.push(Variant {
                    kind,
                    mode,
                    roles: configured.roles(),
                    judged_authors: configured.judged_authors(),
                });
            }
        }
    }
    variants
}

/// Where `slot` is seated, one entry per protocol that has it: `decision
/// review (architecture, comparative)` when only some of its modes seat
/// it, with what else it depends on (`high-stakes only`).
fn seated_in(slot: &str, variants: &[Variant]) -> Vec<String> {
    registry::kinds()
        .into_iter()
        .filter(|kind| kind.slots().contains(&slot))
        .map(|kind| {
            let of_kind: Vec<&Variant> = variants
                .iter()
                .filter(|variant| variant.kind.name() == kind.name())
                .collect();
            let seating: Vec<&str> = of_kind
                .iter()
                .filter(|variant| variant.roles.iter().any(|role| role.slot == slot))
                .filter_map(|variant| variant.mode)
                .collect();
            let mut notes = Vec::new();
            if !seating.is_empty() && seating.len() < of_kind.len() {
                notes.push(seating.join(", "));
            }
            if let Some(note) = kind.slot_note(slot) {
                notes.push(note.to_string());
            }
            match notes.is_empty() {
                true => kind.title().to_string(),
                false => format!("{} ({})", kind.title(), notes.join("; ")),
            }
        })
        .collect()
}

/// The slots `slot` falls back to when nothing names it (a synthesizer
/// plays with its lead's agent), each with the variants where it does.
fn defaults_of(slot: &str, variants: &[Variant]) -> Vec<(String, Vec<String>)> {
    let mut leads: Vec<(String, Vec<String>)> = Vec::new();
    for variant in variants {
        let Some(lead) = variant
            .roles
            .iter()
            .find(|role| role.slot == slot)
            .and_then(|role| role.defaults_to.clone())
        else {
            continue;
        };
        let name = match variant.mode {
            Some(mode) => format!("{} {mode}", variant.kind.title()),
            None => variant.kind.title().to_string(),
        };
        match leads.iter_mut().find(|(seen, _)| *seen == lead) {
            Some((_, names)) => names.push(name),
            None => leads.push((lead, vec![name])),
        }
    }
    leads
}

fn roles_section(resolver: &Resolver<'_>) -> String {
    let variants = variants();
    let resolved_line = |slot: &str| match resolver.resolve(slot) {
        Ok(resolved) => {
            let origin = match resolved.level {
                Level::Auto => format!("auto: {}", resolved.origin),
                Level::Flag => resolved.origin.clone(),
                level => format!("{level}: {}", resolved.origin),
            };
            let family = match resolved.family() {
                Some((family, why)) => format!("family {family} ({why})"),
                None => "family unknown".to_string(),
            };
            format!("{:<40} from {origin}; {family}", resolved.label())
        }
        Err(error) if error.message.starts_with("no agent plays") => {
            "unassigned: nothing assigns it and auto-detection found nothing".into()
        }
        Err(error) => format!("error: {error}"),
    };
    let mut out =
        String::from("\nRoles of every protocol (--agent flag > spec > config > auto-detect)\n");
    let slots = registry::slot_names();
    // A group's wildcard stands for its members where the debate names
    // them (`debugger.*`, `expert.*`); where the slots are fixed
    // (`judge.analyst` …), they have their own lines.
    let named_members = |slot: &str| {
        slot.strip_suffix(".*").is_some_and(|group| {
            slots.iter().any(|other| {
                other
                    .strip_prefix(group)
                    .is_some_and(|rest| rest.starts_with('.') && rest != ".*")
            })
        })
    };
    for slot in slots.iter().copied().filter(|slot| !named_members(slot)) {
        let note = format!("  [{}]", seated_in(slot, &variants).join(", "));
        let leads = defaults_of(slot, &variants);
        if leads.is_empty() || resolver.names(slot) {
            out.push_str(&format!("  {slot:<18} {}{note}\n", resolved_line(slot)));
            continue;
        }
        // As a run seats it: nothing names the slot itself, so it plays
        // with the agent of the slot it defaults to, not `default`'s.
        out.push_str(&format!(
            "  {slot:<18} {:<40} (nothing names {slot} itself){note}\n",
            "the agent of the debate's lead:"
        ));
        for (lead, names) in leads {
            out.push_str(&format!(
                "  {:<18}   as {lead} ({}): {}\n",
                "",
                names.join(", "),
                resolved_line(&lead)
            ));
        }
    }
    out.push_str(&kinship_section(resolver, &variants));
    out
}

/// The latest `quorum probe` of each judge a decision review would seat
/// (the high-stakes panel included), by its `provider:model`: one line a
/// figure, with the probe's date; or that none was run.
fn probe_section(resolver: &Resolver<'_>, probes: &Path) -> String {
    let mut judges: Vec<(String, String)> = Vec::new();
    for slot in super::probe::panel_slots(true) {
        if let Ok(resolved) = resolver.resolve(&slot) {
            judges.push((slot, resolved.label()));
        }
    }
    let mut out = format!(
        "\nJudge probes (latest `quorum probe` in {})\n",
        probes.display()
    );
    let latest = super::probe::saved::latest_of(probes, &judges);
    for ((slot, agent), found) in judges.iter().zip(latest) {
        match found {
            None => out.push_str(&format!(
                "  {slot:<18} {agent}: not probed yet (`quorum probe`)\n"
            )),
            Some(latest) => {
                out.push_str(&format!("  {slot:<18} {agent}: probed {}\n", latest.date));
                for line in latest.lines {
                    out.push_str(&format!("  {:<18}   {line}\n", ""));
                }
            }
        }
    }
    if judges.is_empty() {
        out.push_str("  no judge resolves to an agent\n");
    }
    out
}

/// The judges that would share a model family with the author whose work
/// they judge, protocol by protocol, under the default `recusal: flag`;
/// the modes of a protocol where the same would happen share a line.
fn kinship_section(resolver: &Resolver<'_>, variants: &[Variant]) -> String {
    let family = |slot: &str| {
        resolver
            .resolve(slot)
            .ok()?
            .family()
            .map(|(family, _)| family)
    };
    // (protocol, what happens) → the modes it happens in, in order.
    let mut found: Vec<((&str, String), Vec<&str>)> = Vec::new();
    let mut note = |kind: &'static str, mode: Option<&'static str>, what: String| {
        let key = (kind, what);
        let at = match found.iter().position(|(seen, _)| *seen == key) {
            Some(at) => at,
            None => {
                found.push((key, Vec::new()));
                found.len() - 1
            }
        };
        found[at].1.extend(mode);
    };
    for variant in variants {
        let pairs = &variant.judged_authors;
        // Where each judges each other's work (a council), one line per
        // family names everyone in it.
        let mut mutual: BTreeMap<Family, BTreeSet<&str>> = BTreeMap::new();
        for (judge, lead) in pairs {
            let Some(shared) =
                family(lead).filter(|lead_family| family(judge).as_ref() == Some(lead_family))
            else {
                continue;
            };
            if pairs.contains(&(lead.clone(), judge.clone())) {
                mutual
                    .entry(shared)
                    .or_default()
                    .extend([judge.as_str(), lead.as_str()]);
                continue;
            }
            note(
                variant.kind.title(),
                variant.mode,
                format!(
                    "{judge} shares the {lead}'s model family ({shared}) in the {{debate}}: flagged by default, left out with --recusal recuse"
                ),
            );
        }
        for (shared, slots) in mutual {
            let slots: Vec<&str> = slots.into_iter().collect();
            let (last, rest) = slots.split_last().expect("a pair");
            note(
                variant.kind.title(),
                variant.mode,
                format!(
                    "{} and {last} share a model family ({shared}) in the {{debate}}, each judging the others' work: flagged by default, each left out of the others' findings with --recusal recuse",
                    rest.join(", ")
                ),
            );
        }
    }
    if found.is_empty() {
        return "\nRecusal\n  no judge shares a known model family with the author it judges\n"
            .into();
    }
    let lines: String = found
        .into_iter()
        .map(|((kind, what), modes)| {
            let debate = match modes.is_empty() {
                true => kind.to_string(),
                false => format!("{kind} ({})", modes.join(", ")),
            };
            format!("  {}\n", what.replace("{debate}", &debate))
        })
        .collect();
    format!("\nRecusal\n{lines}")
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

/// Whether the coding agents' MCP clients know `quorum mcp` (issue 54):
/// Claude Code's `~/.claude.json` (any scope) or a project's `.mcp.json`
/// naming a `quorum` server, Codex's `config.toml` with an
/// `[mcp_servers.quorum]` table; with the line that adds it where it is
/// missing, and whether `quorum` is on the PATH a client starts it from.
/// The library of past debates (issue 55): where, its schema, what it
/// holds, whether it can be used, and what the calibration floor is.
fn library_section(loaded: &LoadedConfig) -> String {
    let mut out = String::from("\nLibrary\n");
    for line in super::library::doctor_lines() {
        out.push_str(&line);
        out.push('\n');
    }
    let floor = loaded.config.calibration.and_then(|calibration| {
        calibration
            .judge_kappa_floor
            .map(|floor| (floor, calibration.min_labels))
    });
    out.push_str(&match floor {
        Some((floor, min_labels)) => format!(
            "  judge floor: a binding judge with kappa below {floor} over at least {min_labels} labels is seated advisory\n"
        ),
        None => "  judge floor: off (calibration.judge_kappa_floor is not set)\n".to_string(),
    });
    out
}

fn mcp_section(env: &dyn Environment, on_path: bool) -> String {
    let home = env.var("HOME").map(PathBuf::from);
    let read = |path: &Path| std::fs::read_to_string(path).ok();
    let names_quorum = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text).is_ok_and(|json| {
            json["mcpServers"].get("quorum").is_some()
                || json["projects"].as_object().is_some_and(|projects| {
                    projects
                        .values()
                        .any(|project| project["mcpServers"].get("quorum").is_some())
                })
        })
    };
    let claude = home
        .as_ref()
        .map(|home| home.join(".claude.json"))
        .into_iter()
        .chain([PathBuf::from(".mcp.json")])
        .find(|path| read(path).is_some_and(|text| names_quorum(&text)));
    let codex_config = env
        .var("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".codex")))
        .map(|dir| dir.join("config.toml"));
    let codex = codex_config.as_ref().filter(|path| {
        read(path).is_some_and(|text| {
            text.lines()
                .any(|line| line.trim() == "[mcp_servers.quorum]")
        })
    });
    let tools: Vec<String> = super::mcp::tool_names();
    let mut out = format!(
        "\nMCP server (quorum mcp)\n  tools: {}\n  quorum on PATH: {}\n",
        tools.join(", "),
        if on_path {
            "yes"
        } else {
            "no (a client starts `quorum mcp` by name: put quorum on PATH or give the client its full path)"
        }
    );
    out.push_str(&match claude {
        Some(path) => format!("  Claude Code: registered in {}\n", path.display()),
        None => "  Claude Code: not registered; add it with: claude mcp add quorum -- quorum mcp\n"
            .to_string(),
    });
    out.push_str(&match codex {
        Some(path) => format!("  Codex CLI: registered in {}\n", path.display()),
        None => "  Codex CLI: not registered; add to ~/.codex/config.toml: [mcp_servers.quorum] command = \"quorum\", args = [\"mcp\"]\n"
            .to_string(),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The roles section as `quorum doctor` shows it for `flags`.
    fn roles_for(
        flags: &std::collections::BTreeMap<String, config::AgentChoice>,
        loaded: &LoadedConfig,
        env: &dyn Environment,
    ) -> String {
        let no_agents = Default::default();
        roles_section(&Resolver::new(Sources {
            flags,
            spec: &no_agents,
            config: loaded,
            env,
        }))
    }

    /// Issue 54: the doctor says whether each client knows `quorum mcp`,
    /// with the line that adds it where it does not.
    #[test]
    fn the_doctor_checks_the_mcp_set_up() {
        let home = tempfile::tempdir().unwrap();
        let env: std::collections::BTreeMap<String, String> =
            [("HOME".to_string(), home.path().display().to_string())].into();
        let report = mcp_section(&env, false);
        assert!(report.contains("decision_review"), "{report}");
        assert!(
            report.contains("claude mcp add quorum -- quorum mcp"),
            "{report}"
        );
        assert!(report.contains("[mcp_servers.quorum]"), "{report}");
        assert!(report.contains("quorum on PATH: no"), "{report}");
        std::fs::write(
            home.path().join(".claude.json"),
            r#"{"projects": {"/p": {"mcpServers": {"quorum": {"command": "quorum", "args": ["mcp"]}}}}}"#,
        )
        .unwrap();
        std::fs::create_dir(home.path().join(".codex")).unwrap();
        std::fs::write(
            home.path().join(".codex/config.toml"),
            "[mcp_servers.quorum]\ncommand = \"quorum\"\nargs = [\"mcp\"]\n",
        )
        .unwrap();
        let report = mcp_section(&env, true);
        assert!(report.contains("Claude Code: registered in"), "{report}");
        assert!(report.contains("Codex CLI: registered in"), "{report}");
    }

    /// Every mode of every protocol configures from its demo, so the
    /// labels come from what the protocols seat, not from a list.
    #[test]
    fn every_mode_of_every_protocol_is_read() {
        let expected: usize = registry::kinds()
            .into_iter()
            .map(|kind| kind.modes().len().max(1))
            .sum();
        assert_eq!(variants().len(), expected);
    }

    #[test]
    fn a_slot_is_labelled_with_the_modes_that_seat_it() {
        let variants = variants();
        let proposer = seated_in("proposer", &variants);
        assert_eq!(
            proposer,
            [
                "decision review (architecture, comparative)",
                "quick mode (adversary)"
            ]
        );
        let critic = seated_in("critic", &variants);
        assert!(
            critic.contains(&"decision review".to_string()),
            "{critic:?}"
        );
        assert!(
            seated_in("judge.strategist", &variants)
                .contains(&"decision review (high-stakes only)".to_string())
        );
    }

    /// Nothing naming the synthesizer, a run seats the lead's agent: the
    /// doctor names, for each mode, the slot the protocol defaults it to.
    #[test]
    fn the_synthesizer_is_reported_as_the_leads_agent() {
        let variants = variants();
        let leads = defaults_of("synthesizer", &variants);
        for variant in &variants {
            for role in &variant.roles {
                let Some(lead) = &role.defaults_to else {
                    continue;
                };
                assert!(
                    leads.iter().any(|(slot, names)| slot == lead
                        && names
                            .iter()
                            .any(|name| name.starts_with(variant.kind.title()))),
                    "{} {:?}: {lead} in {leads:?}",
                    variant.kind.name(),
                    variant.mode
                );
            }
        }
        assert!(leads.iter().all(|(slot, _)| slot != "default"));
        let loaded = LoadedConfig::default();
        let flags = parse_agent_flags(
            &["critic=script".to_string()],
            &crate::protocol::registry::Registered,
        )
        .unwrap();
        let env = std::collections::BTreeMap::<String, String>::new();
        let report = roles_for(&flags, &loaded, &env);
        let synthesizer = report
            .split("  synthesizer ")
            .nth(1)
            .expect("a synthesizer line");
        assert!(
            synthesizer.contains("the agent of the debate's lead"),
            "{report}"
        );
        let as_critic = synthesizer
            .lines()
            .find(|line| line.trim_start().starts_with("as critic ("))
            .expect("the critic leads some debates");
        assert!(as_critic.contains("script:scripted"), "{report}");
        assert!(as_critic.contains("--agent critic"), "{report}");
        // Named itself, it is resolved as any slot.
        let flags = parse_agent_flags(
            &["synthesizer=script".to_string()],
            &crate::protocol::registry::Registered,
        )
        .unwrap();
        let report = roles_for(&flags, &loaded, &env);
        let line = report
            .lines()
            .find(|line| line.trim_start().starts_with("synthesizer "))
            .unwrap();
        assert!(line.contains("script:scripted"), "{line}");
        assert!(!report.contains("as critic ("), "{report}");
    }

    #[test]
    fn programs_are_found_on_the_path_or_by_their_path() {
        assert!(find_program("sh").is_some());
        assert!(find_program("/bin/sh").is_some());
        assert!(find_program("quorum-no-such-program").is_none());
        assert!(find_program("").is_none());
    }
}
