//! The command line as clap sees it: the built-in commands (derived in
//! [`super::Cli`]) plus one command per protocol command of the registry
//! (`quorum review`, `quorum panel`, …), each with the flags of its
//! protocol's own options; `run` and `demo` take every protocol's flags,
//! since the spec (or `--protocol`) decides the protocol. Completions and
//! the manual page are generated from this same definition, so they never
//! drift from what the parser accepts.
//!
//! Not responsible for what a flag means: a protocol flag becomes a
//! [`FlagValue`] (spec key and typed value) and the protocol reads it.

use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Args, CommandFactory, FromArgMatches};

use super::{Command, ProtocolArgs, RunFlags};
use crate::protocol::kind::{CommandSpec, FlagValue, OptionSpec, ValueKind};
use crate::protocol::registry;

/// What the command line asked for.
#[derive(Debug)]
pub enum Invocation {
    /// A protocol's command: `quorum panel TOPIC …`.
    Protocol(ProtocolArgs),
    /// One of the built-in commands.
    Builtin(Command),
}

/// Adds a protocol family defined outside quorum to the registry
/// ([`registry::register`]), refusing one whose command is one of quorum's
/// own (`run`, `resume`, …). Call it before [`parse_from`].
pub fn register(kind: &'static dyn crate::protocol::kind::ProtocolKind) -> Result<(), String> {
    let builtin = super::Cli::command();
    if let Some(command) = kind.commands().iter().find(|command| {
        builtin
            .get_subcommands()
            .any(|taken| taken.get_name() == command.name)
    }) {
        return Err(format!(
            "`{}` cannot offer the command `{}`: it is one of quorum's own",
            kind.name(),
            command.name
        ));
    }
    registry::register(kind)
}

/// The whole command line: the built-in commands and every protocol's.
pub fn command() -> clap::Command {
    let mut command = super::Cli::command();
    let mut order = 2;
    for kind in registry::kinds() {
        for spec in kind.commands() {
            command =
                command.subcommand(protocol_command(kind.options(), kind.slots(), spec, order));
            order += 1;
        }
    }
    let every_flag = every_protocol_flag();
    let every_slot = agent_help(&registry::slot_names());
    command = command.mut_subcommand("run", |run| {
        add_flags(run, &every_flag, false).mut_arg("agents", |arg| arg.help(every_slot.clone()))
    });
    command = command.mut_subcommand("doctor", |doctor| {
        doctor.mut_arg("agents", |arg| arg.help(every_slot.clone()))
    });
    command.mut_subcommand("demo", |demo| {
        add_flags(demo, &every_flag, false)
            .mut_arg("agents", |arg| arg.help(every_slot.clone()))
            .mut_arg("protocol", |arg| arg.help(demo_protocol_help()))
    })
}

/// `quorum demo --protocol`'s help: every protocol's demo and every
/// command's, as the registry lists them.
fn demo_protocol_help() -> String {
    let protocols: Vec<String> = registry::kinds()
        .into_iter()
        .map(|kind| {
            let mut notes = Vec::new();
            if kind.name() == crate::spec::DEFAULT_PROTOCOL {
                notes.push("the default".to_string());
            }
            if !kind.modes().is_empty() {
                notes.push(format!("--mode {}", kind.modes().join(", ")));
            }
            match notes.is_empty() {
                true => kind.name().to_string(),
                false => format!("{} ({})", kind.name(), notes.join("; ")),
            }
        })
        .collect();
    let commands: Vec<&str> = registry::kinds()
        .into_iter()
        .flat_map(|kind| kind.commands().iter().map(|command| command.name))
        .collect();
    format!(
        "The demo to show, by a protocol's name: {}; or by a command's name: {}",
        protocols.join("; "),
        commands.join(", ")
    )
}

/// `--agent`'s help, naming `slots` (a `group.*` slot stands for its
/// family, `debugger.alpha`, and for all of it).
fn agent_help(slots: &[&str]) -> String {
    format!(
        "Assign a role as ROLE=PROVIDER or ROLE=PROVIDER:MODEL (repeatable); the roles: {}, \
         or default for every role nothing else names (a `.*` role is a family: one of it, \
         such as debugger.alpha, or all of it)",
        slots.join(", ")
    )
}

/// Parses `args` (the program name first); exits with clap's message (code
/// 2) on a usage error, and prints help or the version (code 0) when asked.
pub fn parse_from<I, T>(args: I) -> Invocation
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let parsed = command()
        .try_get_matches_from(args)
        .and_then(|matches| invocation(&matches));
    match parsed {
        Ok(invocation) => invocation,
        Err(error) if !error.use_stderr() => error.exit(),
        Err(error) => {
            // clap quotes a refused value whole: a flag's value someone
            // pasted (100,000 characters, terminal escapes) is shown as
            // every other value quorum quotes, made inert and cut; an
            // ordinary message keeps clap's own styling.
            let plain = error.render().to_string();
            let bounded = bounded_message(&plain);
            if bounded == plain {
                error.exit();
            }
            eprint!("{bounded}");
            std::process::exit(error.exit_code());
        }
    }
}

/// Longest line of a usage error shown whole, in characters.
const USAGE_LINE_CHARS: usize = 300;

/// `message` (clap's, quoting what was typed) with nothing that acts on a
/// terminal, and each line longer than [`USAGE_LINE_CHARS`] cut there with
/// its length given.
fn bounded_message(message: &str) -> String {
    crate::text::sanitize(message)
        .split_inclusive('\n')
        .map(|line| {
            let body = line.trim_end_matches('\n');
            let count = body.chars().count();
            if count <= USAGE_LINE_CHARS {
                return line.to_owned();
            }
            let cut: String = body.chars().take(USAGE_LINE_CHARS).collect();
            format!(
                "{cut}… ({} characters)\n",
                crate::text::thousands(count as u64)
            )
        })
        .collect()
}

fn invocation(matches: &ArgMatches) -> Result<Invocation, clap::Error> {
    let Some((name, sub)) = matches.subcommand() else {
        return Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand));
    };
    if let Some((kind, spec)) = registry::find_command(name) {
        let mut run = RunFlags::from_arg_matches(sub)?;
        run.options = flag_values(sub, kind.options(), spec.options);
        if let Some(mode) = spec.mode {
            run.options
                .insert(0, FlagValue::new(format!("quorum {name}"), "mode", mode));
        }
        return Ok(Invocation::Protocol(ProtocolArgs {
            command: name.to_string(),
            subject: sub
                .get_one::<String>("subject")
                .cloned()
                .unwrap_or_default(),
            context: sub
                .get_many::<PathBuf>("context")
                .map(|paths| paths.cloned().collect())
                .unwrap_or_default(),
            script: sub.get_one::<PathBuf>("script").cloned(),
            run,
        }));
    }
    let mut command = Command::from_arg_matches(matches)?;
    if let Command::Run(args) = &mut command {
        args.run.options = every_flag_value(sub);
    }
    if let Command::Demo(args) = &mut command {
        args.run.options = every_flag_value(sub);
        args.run_flags_given = run_flags_given(sub);
    }
    Ok(Invocation::Builtin(command))
}

/// `quorum NAME SUBJECT [--context FILE]… [--script FILE] [run flags]` with
/// the protocol's flags for this command.
fn protocol_command(
    options: &[OptionSpec],
    slots: &[&str],
    spec: &CommandSpec,
    order: usize,
) -> clap::Command {
    let command = clap::Command::new(spec.name)
        .about(spec.about)
        .display_order(order)
        .arg(
            Arg::new("subject")
                .value_name(spec.subject)
                .help(spec.subject_help)
                .required_unless_present("from"),
        )
        .arg(
            Arg::new("context")
                .long("context")
                .value_name("FILE")
                .help("A file to give the agents as context (repeatable)")
                .action(ArgAction::Append)
                .value_parser(clap::value_parser!(PathBuf)),
        )
        .arg(
            Arg::new("script")
                .long("script")
                .value_name("FILE")
                .help("Scripted replies (YAML) for the roles played by the `script` provider")
                .value_parser(clap::value_parser!(PathBuf)),
        );
    // `augment_args` sets the command's about from `RunFlags`' doc comment;
    // the protocol's own line goes back on top of it.
    let command = RunFlags::augment_args(command)
        .about(spec.about)
        .mut_arg("agents", |arg| arg.help(agent_help(slots)));
    let own: Vec<OptionSpec> = options
        .iter()
        .filter(|option| spec.options.contains(&option.key))
        .copied()
        .collect();
    add_flags(command, &own, true)
}

/// Every protocol option that has a flag, each flag once (registry order
/// decides whose help text a shared flag such as `--mode` shows).
fn every_protocol_flag() -> Vec<OptionSpec> {
    let mut flags: Vec<OptionSpec> = Vec::new();
    for kind in registry::kinds() {
        for option in kind.options() {
            if !option.flag.is_empty() && !flags.iter().any(|seen| seen.flag == option.flag) {
                flags.push(*option);
            }
        }
    }
    flags
}

/// Adds `options` as flags; `strict` restricts values to the listed ones
/// (a protocol's own command), otherwise the protocol checks them (`run`
/// and `demo`, whose protocol is known only once the spec is read).
fn add_flags(mut command: clap::Command, options: &[OptionSpec], strict: bool) -> clap::Command {
    for option in options.iter().filter(|option| !option.flag.is_empty()) {
        let mut arg = Arg::new(option.flag).long(option.flag).help(option.help);
        arg = match option.kind {
            ValueKind::Switch(_) => arg.action(ArgAction::SetTrue),
            ValueKind::List => arg.value_name(option.value_name).action(ArgAction::Append),
            ValueKind::Text | ValueKind::Integer | ValueKind::Number => {
                arg.value_name(option.value_name).action(ArgAction::Set)
            }
        };
        if strict && !option.values.is_empty() {
            arg = arg.value_parser(clap::builder::PossibleValuesParser::new(option.values));
        }
        command = command.arg(arg);
    }
    command
}

/// The protocol flags given on a command line, as spec values, for the
/// options `offered` (by key) of a protocol's own command.
fn flag_values(matches: &ArgMatches, options: &[OptionSpec], offered: &[&str]) -> Vec<FlagValue> {
    options
        .iter()
        .filter(|option| offered.contains(&option.key) && !option.flag.is_empty())
        .filter_map(|option| flag_value(matches, option))
        .collect()
}

/// Every protocol flag given to `run` or `demo`.
fn every_flag_value(matches: &ArgMatches) -> Vec<FlagValue> {
    every_protocol_flag()
        .iter()
        .filter_map(|option| flag_value(matches, option))
        .collect()
}

/// The run flags given to `demo` (not its own nor a protocol's), as
/// typed: `--speed`, `--headless`.
fn run_flags_given(matches: &ArgMatches) -> Vec<String> {
    let protocol_flags = every_protocol_flag();
    let demo = command();
    let Some(demo) = demo.find_subcommand("demo") else {
        return Vec::new();
    };
    demo.get_arguments()
        .filter(|arg| !matches!(arg.get_id().as_str(), "protocol" | "export_script"))
        .filter(|arg| !protocol_flags.iter().any(|flag| arg.get_id() == flag.flag))
        .filter(|arg| {
            matches.value_source(arg.get_id().as_str())
                == Some(clap::parser::ValueSource::CommandLine)
        })
        .filter_map(|arg| arg.get_long().map(|long| format!("--{long}")))
        .collect()
}

/// One flag's value, if it was given. A value that does not fit its kind
/// (`--max-rounds two`) is kept as text for the protocol to refuse with the
/// flag's name.
fn flag_value(matches: &ArgMatches, option: &OptionSpec) -> Option<FlagValue> {
    let texts: Vec<String> = match option.kind {
        ValueKind::Switch(_) => {
            if !matches.get_flag(option.flag) {
                return None;
            }
            Vec::new()
        }
        _ => matches.get_many::<String>(option.flag)?.cloned().collect(),
    };
    let value = option
        .value_of(&texts)
        .unwrap_or_else(|_| yaml_serde::Value::String(texts.last().cloned().unwrap_or_default()));
    Some(FlagValue::new(
        format!("--{}", option.flag),
        option.key,
        value,
    ))
}

/// `quorum completions SHELL`.
pub fn print_completions(shell: clap_complete::Shell) {
    let mut command = completable(command());
    clap_complete::generate(shell, &mut command, "quorum", &mut std::io::stdout());
}

/// `command` with the values a shell should offer where an argument takes
/// a name rather than a file: `demo --protocol` completes the registry's
/// protocols and commands, `--moderation` its policies. Only completion
/// sees them, so a wrong name is still answered by quorum's own message,
/// which lists the demos (or the policies).
fn completable(command: clap::Command) -> clap::Command {
    let mut names: Vec<&'static str> = Vec::new();
    for kind in registry::kinds() {
        names.push(kind.name());
        names.extend(kind.commands().iter().map(|command| command.name));
    }
    names.sort_unstable();
    names.dedup();
    let policies = crate::spec::ModerationPolicy::ALL.map(crate::spec::ModerationPolicy::as_str);
    command
        .mut_subcommand("demo", |demo| {
            demo.mut_arg("protocol", |arg| {
                arg.value_parser(clap::builder::PossibleValuesParser::new(names))
            })
        })
        .mut_subcommands(|sub| {
            if sub.get_arguments().any(|arg| arg.get_id() == "moderation") {
                sub.mut_arg("moderation", |arg| {
                    arg.value_parser(clap::builder::PossibleValuesParser::new(policies))
                })
            } else {
                sub
            }
        })
}

/// `quorum man`: the manual page, roff, with every command in it.
pub fn print_man_page() -> std::io::Result<()> {
    let command = command();
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(command.clone()).render(&mut out)?;
    for sub in command.get_subcommands() {
        if sub.is_hide_set() {
            continue;
        }
        let mut page = Vec::new();
        let name: &'static str = Box::leak(format!("quorum-{}", sub.get_name()).into_boxed_str());
        clap_mangen::Man::new(sub.clone().name(name)).render_name_section(&mut page)?;
        clap_mangen::Man::new(sub.clone()).render_description_section(&mut page)?;
        clap_mangen::Man::new(sub.clone()).render_options_section(&mut page)?;
        std::io::Write::write_all(&mut out, &page)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Invocation, clap::Error> {
        let matches = command().try_get_matches_from(args)?;
        invocation(&matches)
    }

    #[test]
    fn the_command_line_is_consistent() {
        command().debug_assert();
        completable(command()).debug_assert();
    }

    /// The script `quorum completions bash` prints.
    fn bash_completions() -> String {
        let mut script = Vec::new();
        clap_complete::generate(
            clap_complete::Shell::Bash,
            &mut completable(command()),
            "quorum",
            &mut script,
        );
        String::from_utf8(script).unwrap()
    }

    /// `quorum completions bash` offers the demos' names after `demo
    /// --protocol`, not file names, and every protocol is among them.
    #[test]
    fn completions_offer_the_demos_by_name() {
        let script = bash_completions();
        let at = script
            .find("quorum__subcmd__demo)")
            .expect("a case for the demo subcommand");
        let demo = &script[at..];
        let protocol = &demo[demo.find("--protocol)").expect("a case for --protocol")..];
        let reply = protocol.lines().nth(1).unwrap();
        assert!(!reply.contains("compgen -f"), "{reply}");
        for kind in registry::kinds() {
            assert!(
                reply.contains(kind.name()),
                "{} missing: {reply}",
                kind.name()
            );
        }
    }

    /// Issue 54: `--moderation` completes to the policies, `person`
    /// among them, wherever it is taken.
    #[test]
    fn completions_offer_the_moderation_policies() {
        let script = bash_completions();
        for subcommand in ["run", "resume", "review"] {
            let at = script
                .find(&format!("quorum__subcmd__{subcommand})"))
                .unwrap_or_else(|| panic!("a case for {subcommand}"));
            let case = &script[at..];
            let moderation = &case[case.find("--moderation)").expect("a case for --moderation")..];
            let reply = moderation.lines().nth(1).unwrap();
            assert!(
                reply.contains("accept") && reply.contains("person"),
                "{subcommand}: {reply}"
            );
        }
        let attach = command();
        let attach = attach
            .find_subcommand("attach")
            .expect("quorum attach is a command");
        assert!(attach.get_arguments().any(|arg| arg.get_id() == "dir"));
    }

    #[test]
    fn a_protocol_command_carries_its_flags_as_spec_values() {
        let Ok(Invocation::Protocol(args)) = parse(&[
            "quorum",
            "review",
            "Should we?",
            "--critique",
            "strict",
            "--high-stakes",
            "--max-rounds",
            "1",
            "--headless",
        ]) else {
            panic!("a protocol command");
        };
        assert_eq!(args.command, "review");
        assert_eq!(args.subject, "Should we?");
        assert!(args.run.headless);
        let keys: Vec<(&str, &yaml_serde::Value)> = args
            .run
            .options
            .iter()
            .map(|flag| (flag.key.as_str(), &flag.value))
            .collect();
        assert!(keys.contains(&("critique", &yaml_serde::Value::from("strict"))));
        assert!(keys.contains(&("high_stakes", &yaml_serde::Value::Bool(true))));
        assert!(keys.contains(&("max_rounds", &yaml_serde::Value::from(1))));
    }

    #[test]
    fn a_protocol_command_refuses_a_value_it_does_not_list() {
        let error = parse(&["quorum", "review", "T", "--critique", "harsh"])
            .err()
            .unwrap();
        assert_eq!(error.kind(), clap::error::ErrorKind::InvalidValue);
    }

    #[test]
    fn run_takes_every_protocols_flags() {
        let Ok(Invocation::Builtin(Command::Run(args))) =
            parse(&["quorum", "run", "spec.yaml", "--max-rounds", "0"])
        else {
            panic!("run");
        };
        assert_eq!(args.run.options.len(), 1);
        assert_eq!(args.run.options[0].flag, "--max-rounds");
    }

    /// The long help of `quorum NAME`, as `quorum NAME --help` prints it.
    fn help_of(name: &str) -> String {
        let mut command = command();
        command.build();
        command
            .find_subcommand_mut(name)
            .expect(name)
            .render_long_help()
            .to_string()
    }

    /// The words of `help`, without the wrapping clap adds.
    fn words(help: &str) -> Vec<String> {
        help.split(|c: char| c.is_whitespace() || ",;()".contains(c))
            .filter(|word| !word.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn demo_help_names_every_protocol_and_command_of_the_registry() {
        let help = help_of("demo");
        let protocol = help
            .split("--protocol <NAME>")
            .nth(1)
            .and_then(|rest| rest.split("--export-script").next())
            .expect("--protocol in the help");
        let said = words(protocol);
        for kind in registry::kinds() {
            assert!(
                said.iter().any(|word| word == kind.name()),
                "{}: {protocol}",
                kind.name()
            );
            for mode in kind.modes() {
                assert!(said.iter().any(|word| word == mode), "{mode}: {protocol}");
            }
            for spec in kind.commands() {
                assert!(
                    said.iter().any(|word| word == spec.name),
                    "{}: {protocol}",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn agent_help_names_every_slot_of_the_registry() {
        let slots = registry::slot_names();
        for name in ["demo", "run", "doctor"] {
            let help = help_of(name);
            let agent = help
                .split("--agent <ROLE=PROVIDER[:MODEL]>")
                .nth(1)
                .expect("--agent in the help");
            let agent = agent.split("\n\n").next().unwrap_or_default();
            let said = words(agent);
            for slot in &slots {
                assert!(
                    said.iter().any(|word| word == slot),
                    "{name}: {slot}: {agent}"
                );
            }
        }
        // A protocol's command names its own slots.
        for kind in registry::kinds() {
            for spec in kind.commands() {
                let help = help_of(spec.name);
                let said = words(&help);
                for slot in kind.slots() {
                    assert!(
                        said.iter().any(|word| word == slot),
                        "{}: {slot}",
                        spec.name
                    );
                }
            }
        }
    }

    #[test]
    fn completions_name_every_protocol_command() {
        let mut out = Vec::new();
        let mut command = command();
        clap_complete::generate(clap_complete::Shell::Bash, &mut command, "quorum", &mut out);
        let script = String::from_utf8(out).unwrap();
        for kind in registry::kinds() {
            for spec in kind.commands() {
                assert!(script.contains(spec.name), "{}", spec.name);
            }
        }
    }
}
