//! The command line: argument parsing (each protocol's commands come from
//! the registry), turning flags and spec files into a ready-to-run debate
//! of any protocol, and the drivers that run, resume, open, replay and
//! recompute one, headless or in the interface, or attach the interface to
//! one another process runs.
//!
//! Every configuration problem is found here, before the run folder exists,
//! and exits with code 2; nothing is written for a bad invocation.

mod attach;
mod browse;
pub mod chain;
mod commands;
mod compare;
mod doctor;
mod export;
pub mod fork;
mod headless;
mod interactive;
pub mod library;
mod mcp;
mod notes;
mod open;
mod prepare;
mod probe;
mod replay;
mod report_cmd;
mod resume;
mod session;
mod start;
mod verdict_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use tokio::sync::mpsc;

use crate::artifact::{Journal, RunDir};
use crate::engine::{Engine, ModerationPolicy, Moderator, Roster, Update};
use crate::protocol::Protocol;
use crate::protocol::fairness::Recusal;
use crate::protocol::kind::FlagValue;

pub use commands::{Invocation, command, parse_from, register};
pub use prepare::{DEMO_SPEC_NAME, Prepared, Rebuilt, Source, prepare, rebuild};

/// What `quorum probe --help` adds: the metrics and the exit codes.
const PROBE_HELP: &str = "\
Metrics for --fail-under (each a share from 0 to 1, higher is better):
  position  pairs whose preferred answer survived the swap of their order
  length    answers whose score padding did not raise
  self      answers not scored higher when named as the judge's own family's
  leniency  content-free answers scored below a real answer
Exit codes: 0 done, 1 no answer at all, 2 bad input, 9 stopped at the budget,
10 a figure under its --fail-under floor";

/// Exit codes, shown in `--help` and the README.
pub const EXIT_CODES: &str = crate::protocol::EXIT_CODE_TABLE;

/// Exit code for usage and configuration errors.
pub const EXIT_USAGE: u8 = crate::protocol::EXIT_USAGE as u8;
/// Exit code for a failed run.
pub const EXIT_FAILURE: u8 = crate::protocol::EXIT_FAILED as u8;
/// A run stopped at its budget.
pub const EXIT_BUDGET: u8 = crate::protocol::EXIT_BUDGET as u8;

/// What a run stopped at its budget says on stderr: why, and the command
/// that continues it with a budget that lets the held step run.
pub(crate) fn budget_stop_lines(
    dir: &std::path::Path,
    question: &crate::engine::BudgetQuestion,
) -> String {
    let suggested = question.suggested();
    let mut command = format!("quorum resume {}", shell_path(dir));
    if let Some(usd) = suggested.usd {
        command.push_str(&format!(" --budget {usd:.2}"));
    }
    if let Some(tokens) = suggested.tokens {
        command.push_str(&format!(" --budget-tokens {tokens}"));
    }
    format!(
        "quorum: stopped before a step that would cross the budget: {}\n\
         quorum: the record so far is in {}\n\
         quorum: continue it with a larger budget: {command}",
        crate::text::for_stderr(&question.describe()),
        dir.display()
    )
}

/// The commands that are not a protocol's; each protocol's commands
/// (`review`, `panel`, …) are added from the registry ([`command`]).
#[derive(Debug, Parser)]
#[command(
    name = "quorum",
    version,
    about = "Run and moderate live debates between AI agents, with verdicts derived mechanically from the record",
    after_help = EXIT_CODES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a debate on built-in scripted agents (no key, no network): a
    /// decision review, or any protocol with --protocol
    #[command(display_order = 1)]
    Demo(DemoArgs),
    /// Run a debate from a spec file, any protocol
    #[command(display_order = 20)]
    Run(RunArgs),
    /// Continue an interrupted debate from its journal
    #[command(display_order = 21)]
    Resume(ResumeArgs),
    /// List debates with their verdicts and open deferred items; open one to
    /// browse it and settle its deferred items
    #[command(display_order = 22)]
    Open(OpenArgs),
    /// Moderate, from this terminal, a debate another process drives
    /// (started with --moderation person): the live interface, its rulings
    /// sent to that process
    #[command(display_order = 22)]
    Attach(AttachArgs),
    /// Play a recorded debate back as it happened
    #[command(display_order = 23)]
    Replay(ReplayArgs),
    /// Recompute the verdict of a debate from the files on disk
    #[command(display_order = 24)]
    Verdict(VerdictArgs),
    /// Write a debate as one file anyone can open: a self-contained HTML
    /// page (or Markdown with --format md)
    #[command(display_order = 24)]
    Report(ReportArgs),
    /// Start a new debate that shares a recorded one up to a stage and runs
    /// on from there, with another agent or stance
    #[command(display_order = 22)]
    Fork(ForkArgs),
    /// Show where two debates of one origin (a debate and its fork) went
    /// apart: agents, rulings, scores, verdicts
    #[command(display_order = 22)]
    Compare(CompareArgs),
    /// Show the configuration, the providers and whether they answer, the agent
    /// each role would get, and the terminal (exit 2 when no provider is usable)
    #[command(display_order = 25)]
    Doctor(DoctorArgs),
    /// Test the judges a decision review would seat on generated material:
    /// position, length, self-preference and leniency, each figure with its
    /// count and 95% interval; saved, and shown in `doctor` and reports
    #[command(display_order = 25, after_help = PROBE_HELP)]
    Probe(probe::ProbeArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell) on stdout
    #[command(display_order = 26)]
    Completions(CompletionsArgs),
    /// Print the manual page (roff) on stdout
    #[command(display_order = 27)]
    Man,
    /// Serve the protocols as Model Context Protocol tools over stdio, for
    /// coding agents (Claude Code, Codex CLI): start a debate, follow it,
    /// rule on its items, read its result and deliverables
    #[command(
        display_order = 28,
        after_help = "Add it to Claude Code:  claude mcp add quorum -- quorum mcp\n\
                      Add it to Codex CLI (~/.codex/config.toml):\n  \
                      [mcp_servers.quorum]\n  command = \"quorum\"\n  args = [\"mcp\"]\n\
                      `quorum doctor` says whether each client knows it."
    )]
    Mcp(McpArgs),
    /// Past debates and rulings, newest first, searched by QUERY (topics
    /// and item texts); --calibration for each model's figures; `add DIR...`
    /// files debates already on disk. Nothing leaves this machine
    #[command(display_order = 25, args_conflicts_with_subcommands = true)]
    Library(LibraryArgs),
}

#[derive(Debug, Args)]
pub struct LibraryArgs {
    #[command(subcommand)]
    pub action: Option<LibraryAction>,
    /// Only debates whose topic or an item's text holds this (ASCII letters in any case)
    pub query: Option<String>,
    /// Each critic's acceptance precision and each judge's agreement with
    /// the moderator (Cohen's kappa), per model and prompt hash
    #[arg(long)]
    pub calibration: bool,
    /// Fewest labels a figure needs before it is shown as a number
    /// (default: the configuration's calibration.min_labels, else 20)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub min_labels: Option<u64>,
    /// Most debates listed
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: usize,
    /// Print JSON instead of lines
    #[arg(long)]
    pub json: bool,
    /// Configuration file (default: $XDG_CONFIG_HOME/quorum/config.yaml)
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum LibraryAction {
    /// File debates already on disk (each a folder holding journal.jsonl);
    /// a folder filed before is filed again, replacing what was kept
    Add {
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Artifact root: where the debates the tools start are recorded, and
    /// what `list`, `result`, `resume` and the resources read
    #[arg(long, value_name = "DIR", default_value = ".sisyphus/debates")]
    pub out: PathBuf,
    /// Configuration file: providers, prices, role defaults
    /// (default: $XDG_CONFIG_HOME/quorum/config.yaml, if it exists)
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Folder of prompt templates that replace the built-in ones
    #[arg(long, value_name = "DIR")]
    pub prompts: Option<PathBuf>,
    /// Pace multiplier for scripted agents (2 = twice as fast)
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub speed: f64,
    /// Let a tool call's context, repo and log paths lie outside the folder
    /// the server was started in
    #[arg(long)]
    pub allow_outside_context: bool,
}

/// Flags shared by every command that runs a debate.
#[derive(Debug, Args, Clone, Default)]
pub struct RunFlags {
    /// No interactive interface: progress on stderr, the result on stdout
    /// (also what happens when stdin or stdout is not a terminal)
    #[arg(long)]
    pub headless: bool,
    /// Colour theme of the interface: dark, light, high-contrast, a name from
    /// $XDG_CONFIG_HOME/quorum/themes, or a path to a theme file
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Print the result as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// Artifact root; each debate gets its own folder inside
    #[arg(long, value_name = "DIR", default_value = ".sisyphus/debates")]
    pub out: PathBuf,
    /// Deadline for each agent call, in seconds (default 600)
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    #[command(flatten)]
    pub budget: BudgetFlags,
    /// Take what a finished debate hands on: a council's, red team's or
    /// pre-mortem's findings (as critique items), a proven root cause (as a
    /// plan's goal), a comparison's recommendation (as the topic)
    #[arg(long, value_name = "DIR")]
    pub from: Option<PathBuf>,
    /// How the moderator's items are decided without a person at the
    /// keyboard: accept, reject or defer them all, ask (one line per item
    /// on stdin), planner (what the planner proposed) or person (a person
    /// in another terminal, with `quorum attach DIR`)
    #[arg(long, value_name = "POLICY", value_parser = parse_moderation)]
    pub moderation: Option<ModerationPolicy>,
    /// Let judges read an author's self-identification unmasked (judging is
    /// blind by default; each judge still reads in its own order)
    #[arg(long)]
    pub no_blind: bool,
    /// A judge of the same model family as the author it judges: flag
    /// (scored and marked, the default), recuse (left out) or off
    #[arg(long, value_name = "POLICY", value_parser = parse_recusal)]
    pub recusal: Option<Recusal>,
    /// Assign a role as ROLE=PROVIDER or ROLE=PROVIDER:MODEL (repeatable; the
    /// help lists the roles from the registry)
    #[arg(long = "agent", value_name = "ROLE=PROVIDER[:MODEL]")]
    pub agents: Vec<String>,
    /// Pace multiplier for scripted agents (2 = twice as fast)
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub speed: f64,
    /// Frames a second the interface draws streamed text at, 1 to 60
    /// (default about 31; keys are drawn at once; slower while the terminal
    /// is not focused)
    #[arg(long, value_name = "FPS")]
    pub stream_fps: Option<f64>,
    /// Folder of prompt templates that replace the built-in ones
    /// (default: $XDG_CONFIG_HOME/quorum/prompts)
    #[arg(long, value_name = "DIR")]
    pub prompts: Option<PathBuf>,
    /// Configuration file: providers, prices, role defaults
    /// (default: $XDG_CONFIG_HOME/quorum/config.yaml, if it exists)
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Largest context file quorum reads, in bytes or with K, M or G (default
    /// 4M); all the context of one debate may be four times that
    #[arg(long, value_name = "BYTES", value_parser = crate::input::parse_size)]
    pub context_limit: Option<u64>,
    /// Let a spec's context (and hypotheses) files lie outside the spec's
    /// folder: absolute paths, `..`, links leading out
    #[arg(long)]
    pub allow_outside_context: bool,
    /// A source tree the agents may cite, read-only (.gitignore honoured,
    /// links not followed, binary and large files left out); every
    /// citation of it is checked
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Log files the agents may cite (repeatable); every citation of them
    /// is checked
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub logs: Vec<PathBuf>,
    /// The protocol's own options given as flags (`--critique strict`),
    /// by spec key; they win over the spec.
    #[arg(skip)]
    pub options: Vec<FlagValue>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The demo to show (the help lists every protocol's and command's,
    /// from the registry)
    #[arg(long, value_name = "NAME")]
    pub protocol: Option<String>,
    /// Write the demo's spec and script to FILE (to edit and run with `quorum run`) and exit
    #[arg(long, value_name = "FILE")]
    pub export_script: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunFlags,
    /// The run flags given that are not protocol flags (`--speed`), as
    /// typed: what `--export-script` cannot write into a spec.
    #[arg(skip)]
    pub run_flags_given: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The debate spec (YAML)
    pub spec: PathBuf,
    #[command(flatten)]
    pub run: RunFlags,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell
    pub shell: clap_complete::Shell,
}

/// A command that starts a debate of a protocol (`quorum panel TOPIC`),
/// as parsed from the registry-built command line.
#[derive(Debug)]
pub struct ProtocolArgs {
    /// The command's name: `review`, `panel`.
    pub command: String,
    pub subject: String,
    pub context: Vec<PathBuf>,
    pub script: Option<PathBuf>,
    pub run: RunFlags,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Configuration file (default: $XDG_CONFIG_HOME/quorum/config.yaml, if it exists)
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Role assignments to take into account, as for a debate (repeatable)
    #[arg(long = "agent", value_name = "ROLE=PROVIDER[:MODEL]")]
    pub agents: Vec<String>,
    /// A spec file whose `agents:` to take into account
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Where `quorum probe` saved its probes (their latest is shown)
    #[arg(long, value_name = "DIR", default_value = probe::DEFAULT_PROBES_DIR)]
    pub probes: PathBuf,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// A debate folder (the one holding journal.jsonl)
    pub dir: PathBuf,
    /// Run another revision and evaluation round for the deferred items
    /// accepted after the verdict (see `quorum open --resolve`)
    #[arg(long)]
    pub reopen: bool,
    #[command(flatten)]
    pub on: RunOn,
    /// A fork's: the rulings a person made in its origin, to decide the
    /// same items again headless (`None` for `quorum resume`).
    #[arg(skip)]
    pub past_rulings: Option<Vec<crate::engine::PastRuling>>,
}

/// How a recorded debate runs on (`quorum resume`, `quorum fork`).
#[derive(Debug, Args, Clone, Default)]
pub struct RunOn {
    /// No interactive interface: progress on stderr, the result on stdout
    #[arg(long)]
    pub headless: bool,
    /// Print the result as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// How the items still undecided are decided: accept, reject, defer,
    /// ask (on stdin), planner or person (from another terminal, with
    /// `quorum attach DIR`) (default: as the debate was started; at the
    /// interface, the person decides)
    #[arg(long, value_name = "POLICY", value_parser = parse_moderation)]
    pub moderation: Option<ModerationPolicy>,
    /// Colour theme of the interface
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Configuration file whose providers the debate's agents are checked
    /// against and built from (default: $XDG_CONFIG_HOME/quorum/config.yaml)
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// A raised budget (the recorded one otherwise)
    #[command(flatten)]
    pub budget: BudgetFlags,
}

/// A spending limit given as flags.
#[derive(Debug, Args, Clone, Copy, Default)]
pub struct BudgetFlags {
    /// Money limit in US dollars at the configured prices: before a step
    /// that would cross it, the interface asks; headless stops (exit 9)
    #[arg(long = "budget", value_name = "USD", value_parser = crate::protocol::budget::parse_usd)]
    pub usd: Option<f64>,
    /// Token limit, input and output together (300000, 300k)
    #[arg(long = "budget-tokens", value_name = "N", value_parser = crate::protocol::budget::parse_tokens)]
    pub tokens: Option<u64>,
}

impl BudgetFlags {
    pub fn limit(&self) -> crate::protocol::budget::Budget {
        crate::protocol::budget::Budget {
            usd: self.usd,
            tokens: self.tokens,
        }
    }
}

#[derive(Debug, Args)]
pub struct OpenArgs {
    /// A debate folder; without one, every debate under --out is listed
    pub dir: Option<PathBuf>,
    /// Artifact root to list
    #[arg(long, value_name = "DIR", default_value = ".sisyphus/debates")]
    pub out: PathBuf,
    /// Settle a deferred item after the verdict: ID=accept or ID=reject
    /// (repeatable; needs DIR)
    #[arg(long = "resolve", value_name = "ID=accept|reject")]
    pub resolve: Vec<String>,
    /// Note recorded with the items settled by --resolve
    #[arg(long, value_name = "TEXT", requires = "resolve")]
    pub note: Option<String>,
    /// No interactive interface: print instead
    #[arg(long)]
    pub headless: bool,
    /// Print as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// Colour theme of the interface
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
}

#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The folder of a debate another process is running (the one holding
    /// journal.jsonl)
    pub dir: PathBuf,
    /// Colour theme of the interface
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A debate folder (the one holding journal.jsonl)
    pub dir: PathBuf,
    /// Playback speed (2 = twice as fast as it happened)
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub speed: f64,
    /// No interactive interface: print the transcript lines at their pace
    #[arg(long)]
    pub headless: bool,
    /// Colour theme of the interface
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
}

#[derive(Debug, Args)]
pub struct ForkArgs {
    /// The debate to fork (its folder)
    pub dir: PathBuf,
    /// Where the fork starts: a stage, or STAGE:ROUND (`critique`,
    /// `moderation`, `evaluation:2`); everything before it is shared
    #[arg(long, value_name = "STAGE[:ROUND]")]
    pub at: String,
    /// Who plays a role from the fork on (repeatable)
    #[arg(long, value_name = "ROLE=PROVIDER[:MODEL]")]
    pub agent: Vec<String>,
    /// A decision review's critic stance, for a fork at proposal or critique
    #[arg(long, value_name = "STANCE")]
    pub critique: Option<String>,
    /// Artifact root of the fork (default: the origin's)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub on: RunOn,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// One debate folder
    pub dir: PathBuf,
    /// The other (a fork of the first, or of the same origin)
    pub other: PathBuf,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A debate folder
    pub dir: PathBuf,
    /// html (one self-contained page, the default) or md (one Markdown file)
    #[arg(long, value_enum, default_value_t = ReportFormat::Html)]
    pub format: ReportFormat,
    /// Where to write it (default: report.html or report.md in the debate's
    /// folder); `-` prints it
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Where `quorum probe` saved its probes (default: `probes` beside the
    /// debate's artifact root, `.sisyphus/probes` for `.sisyphus/debates/…`)
    #[arg(long, value_name = "DIR")]
    pub probes: Option<PathBuf>,
}

/// What `quorum report` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Html,
    Md,
}

#[derive(Debug, Args)]
pub struct VerdictArgs {
    /// A debate folder (the one holding debate.yaml)
    pub dir: PathBuf,
    /// Print the assessment as JSON
    #[arg(long)]
    pub json: bool,
}

/// Why a command on a recorded debate stopped.
/// `error` with the causes it wraps, as a person reads it: `cannot lock
/// X: it is a symbolic link, …`. A cause the message already quotes is
/// not repeated.
pub(super) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(source) = cause {
        let text = source.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = source.source();
    }
    message
}

enum Failure {
    /// Nothing was written: the folder, the flags or the lock said no.
    Usage(String),
    Run(color_eyre::Report),
}

impl<E: Into<color_eyre::Report>> From<E> for Failure {
    fn from(error: E) -> Self {
        Failure::Run(error.into())
    }
}

/// An engine for `protocol` that records into `run_dir`, and the receiver of
/// what it publishes, holding `earlier` (what was recorded before) first.
fn engine_with_updates<P: Protocol + ?Sized>(
    protocol: Box<P>,
    run_dir: RunDir,
    journal: Journal,
    roster: Roster,
    moderator: Moderator,
    earlier: impl IntoIterator<Item = Update>,
) -> (Engine<P>, mpsc::UnboundedReceiver<Update>) {
    let (updates_tx, updates_rx) = mpsc::unbounded_channel();
    for update in earlier {
        let _ = updates_tx.send(update);
    }
    let engine = Engine::new(protocol, run_dir, journal, roster, moderator, updates_tx);
    (engine, updates_rx)
}

fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

/// The exit code of a command's result, its failure said on stderr. A
/// reader that stopped early (`| head`) is not a failure.
fn exit_code(result: Result<ExitCode, Failure>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(Failure::Usage(message)) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&message));
            ExitCode::from(EXIT_USAGE)
        }
        Err(Failure::Run(error))
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|error| error.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(Failure::Run(error)) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&format!("{error:#}")));
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

/// `text` as one shell word: as is when it is plainly safe, else quoted.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A folder as a command to copy and paste names it.
pub(crate) fn shell_path(dir: &std::path::Path) -> String {
    shell_word(&dir.display().to_string())
}

/// `words` as one command to copy and paste into a POSIX shell, each word
/// quoted by [`shell_word`] (the one quoting of every command quorum
/// shows), so the shell reads back exactly `words`. None when a word holds
/// a character that cannot be shown as it is (a control other than tab and
/// newline, a bidi control): the command would not be the one shown.
pub(crate) fn shell_command(words: &[&str]) -> Option<String> {
    let shown = |word: &&str| {
        word.chars()
            .all(|c| matches!(c, '\n' | '\t') || crate::text::is_displayable(c))
    };
    words.iter().all(shown).then(|| {
        words
            .iter()
            .map(|word| shell_word(word))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

fn parse_moderation(text: &str) -> Result<ModerationPolicy, String> {
    text.parse()
}

fn parse_recusal(text: &str) -> Result<Recusal, String> {
    text.parse()
}

/// Runs the parsed command line; returns the process exit code.
pub async fn run(invocation: Invocation) -> ExitCode {
    match invocation {
        Invocation::Protocol(args) => {
            let source = Source::Command {
                command: args.command,
                subject: args.subject,
                context: args.context,
                script: args.script,
            };
            start::run_debate(source, args.run).await
        }
        Invocation::Builtin(Command::Demo(args)) => {
            let source = match &args.protocol {
                None => Source::Demo,
                Some(name) => Source::DemoOf(name.clone()),
            };
            if let Some(path) = &args.export_script {
                return export_demo(&source, &args.run, &args.run_flags_given, path);
            }
            start::run_debate(source, args.run).await
        }
        Invocation::Builtin(Command::Run(args)) => {
            start::run_debate(Source::Spec(args.spec), args.run).await
        }
        Invocation::Builtin(Command::Resume(args)) => resume::run(args).await,
        Invocation::Builtin(Command::Open(args)) => open::run(args).await,
        Invocation::Builtin(Command::Attach(args)) => attach::run(args).await,
        Invocation::Builtin(Command::Replay(args)) => replay::run(args).await,
        Invocation::Builtin(Command::Verdict(args)) => verdict_cmd::run(&args.dir, args.json),
        Invocation::Builtin(Command::Report(args)) => report_cmd::run(&args),
        Invocation::Builtin(Command::Fork(args)) => fork::run(args).await,
        Invocation::Builtin(Command::Compare(args)) => compare::run(&args),
        Invocation::Builtin(Command::Doctor(args)) => doctor::run(args).await,
        Invocation::Builtin(Command::Probe(args)) => probe::run(args).await,
        Invocation::Builtin(Command::Completions(args)) => {
            commands::print_completions(args.shell);
            ExitCode::SUCCESS
        }
        Invocation::Builtin(Command::Mcp(args)) => mcp::run(args).await,
        Invocation::Builtin(Command::Library(args)) => library::run(args),
        Invocation::Builtin(Command::Man) => match commands::print_man_page() {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("quorum: cannot write the manual page: {error}");
                ExitCode::from(EXIT_FAILURE)
            }
        },
    }
}

/// `quorum demo --export-script FILE`: the demo's spec, with the protocol
/// flags given written in, to edit and run; `run_flags` (`--speed`) are
/// not part of a spec, and the message names them.
fn export_demo(
    source: &Source,
    flags: &RunFlags,
    run_flags: &[String],
    path: &std::path::Path,
) -> ExitCode {
    let cwd = std::env::current_dir().unwrap_or_default();
    let exported = prepare::demo_text(source, flags)
        .and_then(|text| export::with_flags(text, &flags.options, path, &cwd));
    let (text, mut left_out) = match exported {
        Ok(exported) => (exported.text, exported.left_out),
        Err(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error.to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    left_out.extend(run_flags.iter().cloned());
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes()));
    match written {
        Ok(()) => {
            let shown = shell_path(path);
            let mut message = format!("wrote the demo spec to {shown}");
            if !flags.options.is_empty() {
                let mut written: Vec<&str> = flags
                    .options
                    .iter()
                    .map(|flag| flag.flag.as_str())
                    .filter(|flag| !left_out.iter().any(|out| out.starts_with(flag)))
                    .collect();
                written.dedup();
                if !written.is_empty() {
                    message.push_str(&format!(" with {} in it", written.join(", ")));
                }
            }
            message.push_str(&format!("; edit it and run `quorum run {shown}`"));
            if !left_out.is_empty() {
                message.push_str(&format!(
                    ". Not exported (a spec does not hold them; give them to `quorum run` \
                     again): {}",
                    left_out.join(", ")
                ));
            }
            eprintln!("quorum: {}", crate::text::for_stderr(&message));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "quorum: cannot write {}: {error} (an existing file is never overwritten)",
                path.display()
            );
            ExitCode::from(EXIT_USAGE)
        }
    }
}

#[cfg(test)]
mod tests {
    /// What a real shell reads back from `command`: its words, each ended
    /// by a NUL.
    fn words_read_by_sh(command: &str) -> Vec<String> {
        let ran = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s\\0' {command}"))
            .output()
            .expect("sh runs");
        assert!(ran.status.success(), "{command}: {ran:?}");
        let out = String::from_utf8(ran.stdout).unwrap();
        out.split_terminator('\0').map(str::to_string).collect()
    }

    /// Issue 61: a command quorum shows reads back, in a real shell, as the
    /// words it was made of, whatever a folder's name holds.
    #[test]
    fn a_shown_command_reads_back_as_its_words_in_a_real_shell() {
        let hostile = [
            "/tmp/plain-folder",
            "/tmp/it's",
            "/tmp/x'; touch pwned; '",
            "/tmp/$(touch pwned)",
            "/tmp/`touch pwned`",
            "/tmp/a\nb",
            "/tmp/back\\slash\\'",
            "/tmp/pipe | cell",
            "/tmp/\"double\" & ; > < * ? ~ # !",
            "",
            "-n",
            "/tmp/über ```",
        ];
        for word in hostile {
            let command = super::shell_command(&["quorum", "report", word]).unwrap();
            assert_eq!(
                words_read_by_sh(&command),
                ["quorum", "report", word],
                "{command}"
            );
        }
        assert_eq!(
            super::shell_command(&["quorum", "report", "/tmp/\u{1b}[31m"]),
            None
        );
        assert_eq!(
            super::shell_command(&["quorum", "report", "/tmp/\u{202e}x"]),
            None
        );
    }
}
