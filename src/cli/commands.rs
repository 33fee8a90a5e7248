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
use crate::protocol::registry::{self, CommandSpec, FlagValue, OptionSpec, ValueKind};

/// What the command line asked for.
#[derive(Debug)]
pub enum Invocation {
    /// A protocol's command: `quorum panel TOPIC …`.
    Protocol(ProtocolArgs),
    /// One of the built-in commands.
    Builtin(Command),
}

/// The whole command line: the built-in commands and every protocol's.
pub fn command() -> clap::Command {
    let mut command = super::Cli::command();
    let mut order = 2;
    for kind in registry::KINDS {
        for spec in kind.commands() {
            command = command.subcommand(protocol_command(kind.options(), spec, order));
            order += 1;
        }
    }
    let every_flag = every_protocol_flag();
    command = command.mut_subcommand("run", |run| add_flags(run, &every_flag, false));
    command.mut_subcommand("demo", |demo| add_flags(demo, &every_flag, false))
}

/// Parses `args` (the program name first); exits with clap's message (code
/// 2) on a usage error, and prints help or the version (code 0) when asked.
pub fn parse_from<I, T>(args: I) -> Invocation
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let matches = command().get_matches_from(args);
    match invocation(&matches) {
        Ok(invocation) => invocation,
        Err(error) => error.exit(),
    }
}

fn invocation(matches: &ArgMatches) -> Result<Invocation, clap::Error> {
    let Some((name, sub)) = matches.subcommand() else {
        return Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand));
    };
    if let Some((kind, spec)) = registry::find_command(name) {
        let mut run = RunFlags::from_arg_matches(sub)?;
        run.options = flag_values(sub, kind.options(), spec.options);
        if let Some(mode) = spec.mode {
            run.options.insert(
                0,
                FlagValue {
                    flag: format!("quorum {name}"),
                    key: "mode".into(),
                    value: yaml_serde::Value::String(mode.into()),
                },
            );
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
    }
    Ok(Invocation::Builtin(command))
}

/// `quorum NAME SUBJECT [--context FILE]… [--script FILE] [run flags]` with
/// the protocol's flags for this command.
fn protocol_command(options: &[OptionSpec], spec: &CommandSpec, order: usize) -> clap::Command {
    let command = clap::Command::new(spec.name)
        .about(spec.about)
        .display_order(order)
        .arg(
            Arg::new("subject")
                .value_name(spec.subject)
                .help(spec.subject_help)
                .required(true),
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
    let command = RunFlags::augment_args(command).about(spec.about);
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
    for kind in registry::KINDS {
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
    Some(FlagValue {
        flag: format!("--{}", option.flag),
        key: option.key.to_string(),
        value,
    })
}

/// `quorum completions SHELL`.
pub fn print_completions(shell: clap_complete::Shell) {
    let mut command = command();
    clap_complete::generate(shell, &mut command, "quorum", &mut std::io::stdout());
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

    #[test]
    fn completions_name_every_protocol_command() {
        let mut out = Vec::new();
        let mut command = command();
        clap_complete::generate(clap_complete::Shell::Bash, &mut command, "quorum", &mut out);
        let script = String::from_utf8(out).unwrap();
        for kind in registry::KINDS {
            for spec in kind.commands() {
                assert!(script.contains(spec.name), "{}", spec.name);
            }
        }
    }
}
