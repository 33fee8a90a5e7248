//! `quorum probe` (issue 55): controlled tests of the judges a decision
//! review would seat, on generated material, each figure with its count
//! and 95% interval. The judges are resolved exactly as a debate resolves
//! them (`--agent`, `--config`, the configuration's roles,
//! auto-detection) and built by the same factory; `--demo`, and any slot
//! the `script` provider plays, gets the built-in scripted judges
//! ([`demo`]), one of which prefers what it reads first.
//!
//! The probe is a lean driver, not a protocol on the engine: its calls are
//! independent of each other (no stage waits on another's answer, no
//! moderator, nothing to resume into), so the engine's journal and panes
//! would add a record to replay with nothing to decide in it. It keeps
//! what matters of a debate's calls: every call under its deadline with
//! one retry of a failure or timeout, then skipped (INF-13..15); every raw
//! answer written to disk, keys masked, before it is read (INF-02), an
//! unreadable one marked `<!-- MALFORMED: … -->` and left out of the
//! figures (INF-07); every timeout, retry and skip logged with its time
//! (INF-17); the forecast before any call and the budget checked before
//! each, as debates do.
//!
//! Responsible for resolving, forecasting, calling, saving and printing.
//! Not responsible for the material, the prompts, the reading or the
//! statistics ([`crate::protocol::probe`]), nor for which floors exist.

pub mod demo;
pub mod saved;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;

use crate::agent::factory::{self, BuildContext};
use crate::agent::{Agent, CallRequest};
use crate::config::detect::{Environment, SystemEnvironment};
use crate::config::resolve::{Resolver, Sources, parse_agent_flags};
use crate::config::{self, ProviderKind};
use crate::located::SpecError;
use crate::protocol::budget::{Budget, Forecast, PlannedCall, Spend};
use crate::protocol::fairness::Family;
use crate::protocol::probe::{
    self, Breach, Floor, JudgeRecord, Kinship, ProbeCall, ProbeRecord, Reading, material,
};
use crate::protocol::registry;
use crate::protocol::usage::{CallUsage, Measured, Price, UsageLedger};

use super::{BudgetFlags, EXIT_BUDGET, EXIT_FAILURE, EXIT_USAGE};

/// Output tokens a probe call is forecast to write before any has
/// answered: the one line asked for and a few sentences of reasons.
pub const PROBE_ANSWER_TOKENS: u64 = 150;
/// Deadline of a probe call when neither `--timeout` nor the role's
/// configuration sets one, in seconds: a probe answer is one line, far
/// shorter than a debate's.
pub const PROBE_TIMEOUT_SECS: f64 = 120.0;
/// Where probes are saved when `--out` is not given.
pub const DEFAULT_PROBES_DIR: &str = ".sisyphus/probes";

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Probe the built-in scripted judges (no key, no network); one of
    /// them, judge.aesthete's, prefers whatever it reads first
    #[arg(long)]
    pub demo: bool,
    /// Questions per judge, 1 to 200 (default 12); each costs ten calls
    /// of each judge whose family is known, six otherwise
    #[arg(long, value_name = "N", value_parser = parse_trials, allow_hyphen_values = true)]
    pub trials: Option<u32>,
    /// Seed of the generated material: the same seed, the same questions
    /// (default 55)
    #[arg(long, value_name = "N", value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Probe the high-stakes panel too (judge.strategist, judge.empiricist)
    #[arg(long)]
    pub high_stakes: bool,
    /// Exit 10 when a judge's figure is under SHARE (repeatable): METRIC is
    /// position, length, self or leniency
    #[arg(long = "fail-under", value_name = "METRIC=SHARE", value_parser = Floor::parse)]
    pub fail_under: Vec<Floor>,
    /// Print the forecast (calls, tokens, money) and stop before any call
    #[arg(long, visible_alias = "dry-run")]
    pub forecast: bool,
    /// Print the result as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// Where probes are saved, each in a folder of its own
    #[arg(long, value_name = "DIR", default_value = DEFAULT_PROBES_DIR)]
    pub out: PathBuf,
    /// Deadline for each call, in seconds (default 120)
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    #[command(flatten)]
    pub budget: BudgetFlags,
    /// Assign a judge as ROLE=PROVIDER or ROLE=PROVIDER:MODEL (repeatable),
    /// as for a debate
    #[arg(long = "agent", value_name = "ROLE=PROVIDER[:MODEL]")]
    pub agents: Vec<String>,
    /// Configuration file: providers, prices, role defaults
    /// (default: $XDG_CONFIG_HOME/quorum/config.yaml, if it exists)
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

fn parse_trials(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=probe::MAX_TRIALS).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{}` is not a count from 1 to {}",
            crate::text::clipped(text),
            probe::MAX_TRIALS
        )),
    }
}

fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| {
        format!(
            "`{}` is not a whole number from 0 to {}",
            crate::text::clipped(text),
            u64::MAX
        )
    })
}

/// One judge to probe.
struct Judge {
    role: String,
    agent: Arc<dyn Agent>,
    label: String,
    family: Option<Family>,
    deadline: Duration,
    price: Option<Price>,
    calls: Vec<ProbeCall>,
    kinship: Option<Kinship>,
}

/// Runs `quorum probe`.
pub async fn run(args: ProbeArgs) -> ExitCode {
    match probe_judges(&args, &SystemEnvironment).await {
        Ok(code) => code,
        Err(Stop::Usage(error)) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error));
            ExitCode::from(EXIT_USAGE)
        }
        Err(Stop::Failed(error)) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error));
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

enum Stop {
    Usage(String),
    Failed(String),
}

impl From<SpecError> for Stop {
    fn from(error: SpecError) -> Stop {
        Stop::Usage(error.to_string())
    }
}

/// The judge slots the registered protocols seat, each once, in the
/// order the first protocol that seats it does.
pub(crate) fn panel_slots(high_stakes: bool) -> Vec<String> {
    let mut slots: Vec<String> = Vec::new();
    for slot in registry::kinds()
        .into_iter()
        .flat_map(|kind| kind.judge_slots(high_stakes))
    {
        if !slots.contains(&slot) {
            slots.push(slot);
        }
    }
    slots
}

/// The judges, resolved and built as a debate's are; the `script`
/// provider's (and every one under `--demo`) are the demo judges.
fn judges(
    args: &ProbeArgs,
    env: &dyn Environment,
    items: &[material::Item],
) -> Result<(Vec<Judge>, config::LoadedConfig), Stop> {
    let loaded = config::load(args.config.as_deref(), &registry::Registered)?;
    let agent_flags = parse_agent_flags(&args.agents, &registry::Registered)?;
    let slots = panel_slots(args.high_stakes);
    if args.demo && !args.agents.is_empty() {
        return Err(Stop::Usage(
            "--agent: --demo probes the built-in scripted judges; drop --agent, or drop --demo to probe the judges it names"
                .to_string(),
        ));
    }
    for role in agent_flags.keys() {
        if !slots.contains(role) && role != "judge.*" && role != "default" {
            return Err(Stop::Usage(format!(
                "--agent: `{role}` is not a judge quorum probe seats; it probes {}",
                slots.join(", ")
            )));
        }
    }
    if let Some(timeout) = args.timeout
        && !config::limits::valid_seconds(timeout)
    {
        return Err(Stop::Usage(format!(
            "--timeout: must be {}, got {timeout}",
            config::limits::SECONDS_RANGE
        )));
    }
    let no_spec = BTreeMap::new();
    let resolver = Resolver::new(Sources {
        flags: &agent_flags,
        spec: &no_spec,
        config: &loaded,
        env,
    });
    let context = BuildContext {
        script: None,
        speed: 1.0,
        env,
        human_desk: None,
        key_variables: loaded.key_variables(),
    };
    let key = Arc::new(demo::answer_key(items));
    let demo_family = Family::new(demo::DEMO_FAMILY).ok();
    let mut judges = Vec::new();
    for role in slots {
        let (agent, family, deadline_secs): (Arc<dyn Agent>, Option<Family>, f64) = if args.demo {
            (
                Arc::new(demo::DemoJudge::for_slot(&role, None, key.clone())),
                demo_family.clone(),
                args.timeout.unwrap_or(PROBE_TIMEOUT_SECS),
            )
        } else {
            let resolved = resolver.resolve(&role)?;
            let deadline = resolved.deadline_secs(args.timeout, PROBE_TIMEOUT_SECS);
            match resolved.provider.kind {
                ProviderKind::Script => (
                    Arc::new(demo::DemoJudge::for_slot(
                        &role,
                        Some(&resolved.model),
                        key.clone(),
                    )),
                    resolved
                        .family()
                        .map(|(family, _)| family)
                        .or(demo_family.clone()),
                    deadline,
                ),
                ProviderKind::Human => {
                    return Err(Stop::Usage(format!(
                        "{}: {role} is played by a person; quorum probe tests models",
                        resolved.field
                    )));
                }
                _ => {
                    let agent = factory::build(&resolved, &context)
                        .map_err(|error| Stop::Usage(format!("{}: {error}", resolved.field)))?;
                    (agent, resolved.family().map(|(family, _)| family), deadline)
                }
            }
        };
        let info = agent.info();
        let price = loaded.config.price_of(&info.provider, &info.model);
        let kinship = Kinship::of(family.as_ref());
        judges.push(Judge {
            label: info.to_string(),
            calls: probe::plan(items, kinship.as_ref()),
            role,
            agent,
            family,
            deadline: Duration::from_secs_f64(deadline_secs),
            price,
            kinship,
        });
    }
    Ok((judges, loaded))
}

/// The ledger the forecast and the spend are counted in: each judge at its
/// configured price; under a money limit, demo judges at the demos'
/// made-up price (as `quorum demo --budget` does).
fn ledger_of(judges: &[Judge], budget: Budget, demo: bool) -> Result<UsageLedger, Stop> {
    let mut prices = BTreeMap::new();
    let mut unpriced = Vec::new();
    let mut demo_priced = Vec::new();
    for judge in judges {
        match judge.price {
            Some(price) => {
                prices.insert(judge.label.clone(), price);
            }
            None if demo || judge.label.starts_with("script:") => {
                if budget.usd.is_some() {
                    prices.insert(judge.label.clone(), super::prepare::DEMO_PRICE);
                    demo_priced.push(judge.label.clone());
                }
            }
            None => unpriced.push(judge.label.clone()),
        }
    }
    if budget.usd.is_some() && !unpriced.is_empty() {
        unpriced.dedup();
        return Err(Stop::Usage(format!(
            "--budget: a money limit needs a price for every judge; none is configured for {} \
             (add it to `prices:` in the configuration, or use --budget-tokens)",
            unpriced.join(", ")
        )));
    }
    if !demo_priced.is_empty() {
        let price = super::prepare::DEMO_PRICE;
        eprintln!(
            "quorum probe: the scripted judges are priced at a made-up ${} per million tokens in and ${} out, for the budget",
            price.input, price.output
        );
    }
    Ok(UsageLedger::priced(prices))
}

/// The output tokens a call of `role` is expected to write: the mean of
/// its answers so far, else [`PROBE_ANSWER_TOKENS`].
fn expected_output(role: &str, ledger: &UsageLedger) -> u64 {
    let outputs: Vec<u64> = ledger
        .calls()
        .iter()
        .filter(|call| call.role == role)
        .filter_map(|call| call.output_tokens)
        .collect();
    match outputs.len() {
        0 => PROBE_ANSWER_TOKENS,
        n => outputs.iter().sum::<u64>().div_ceil(n as u64),
    }
}

fn forecast_of(judges: &[Judge], ledger: &UsageLedger) -> Forecast {
    let planned: Vec<PlannedCall<'_>> = judges
        .iter()
        .flat_map(|judge| {
            judge.calls.iter().map(|call| PlannedCall {
                role: &judge.role,
                agent: &judge.label,
                prompt_chars: call.prompt.len(),
            })
        })
        .collect();
    Forecast::with_output(&planned, ledger, |role| expected_output(role, ledger))
}

async fn probe_judges(args: &ProbeArgs, env: &dyn Environment) -> Result<ExitCode, Stop> {
    let trials = args.trials.unwrap_or(probe::DEFAULT_TRIALS);
    let seed = args.seed.unwrap_or(probe::DEFAULT_SEED);
    let items = material::generate(seed, trials);
    let (judges, loaded) = judges(args, env, &items)?;
    super::prepare::watch_keys(&loaded);
    let budget = args.budget.limit();
    let ledger = ledger_of(&judges, budget, args.demo)?;
    let priced = !ledger.prices().is_empty();
    let forecast = forecast_of(&judges, &ledger);
    let forecast_line = format!(
        "quorum probe: {} judges, {} each (seed {seed}): {}{}",
        judges.len(),
        crate::words::counted(trials as usize, "question", "questions"),
        forecast.describe(priced),
        match forecast.unpriced {
            n if n > 0 && priced => format!(" ({n} calls without a configured price)"),
            _ => String::new(),
        }
    );
    if args.forecast {
        if args.json {
            let json = serde_json::json!({
                "forecast": forecast,
                "seed": seed,
                "trials": trials,
                "judges": judges.iter().map(|judge| serde_json::json!({
                    "role": judge.role,
                    "agent": judge.label,
                    "calls": judge.calls.len(),
                })).collect::<Vec<_>>(),
            });
            println!("{}", crate::text::terminal_safe_json(&json.to_string()));
        } else {
            println!("{}", crate::text::sanitize(&forecast_line));
            for judge in &judges {
                println!(
                    "  {:<18} {:<32} {} calls",
                    judge.role,
                    crate::text::sanitize(&judge.label),
                    judge.calls.len()
                );
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("{}", crate::text::for_stderr(&forecast_line));
    if budget.is_set() {
        eprintln!(
            "quorum probe: budget {} (stops before a call that would cross it)",
            budget.describe()
        );
    }

    let started = chrono::Utc::now();
    let folder = saved::ProbeFolder::create(&args.out, started, seed)
        .map_err(|error| Stop::Failed(format!("cannot create the probe's folder: {error}")))?;
    let spending = Spending {
        ledger: Mutex::new(ledger),
        reserved: Mutex::new(Spend::default()),
        stopped: Mutex::new(None),
        budget,
        priced,
    };
    // The judges are probed side by side, each one call at a time.
    let records = futures::future::join_all(
        judges
            .iter()
            .map(|judge| probe_one(judge, &folder, &spending)),
    )
    .await;
    let Spending {
        ledger, stopped, ..
    } = spending;
    let ledger = ledger
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let stopped = stopped
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());

    let record = ProbeRecord {
        version: probe::RECORD_VERSION,
        at: started.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        seed,
        trials,
        demo: args.demo,
        forecast,
        spent: Spend::of(&ledger),
        stopped: stopped.clone(),
        judges: records,
    };
    folder
        .save(&record, priced)
        .map_err(|error| Stop::Failed(format!("cannot save the probe: {error}")))?;
    let breaches = probe::breaches(&record.judges, &args.fail_under);
    let answered: u32 = record.judges.iter().map(|judge| judge.read).sum();
    let code = if stopped.is_some() {
        EXIT_BUDGET
    } else if answered == 0 {
        EXIT_FAILURE
    } else if !breaches.is_empty() {
        crate::protocol::EXIT_PROBE_FLOOR as u8
    } else {
        0
    };
    print_result(args, &record, &folder, &breaches, code, priced);
    Ok(ExitCode::from(code))
}

/// What the judges probed side by side share: the spend, the forecasts of
/// the calls running now, and why the probe stopped, once it has.
struct Spending {
    ledger: Mutex<UsageLedger>,
    /// The forecast of every call running now: counted against the budget
    /// with what was spent, so that judges in parallel cannot cross it
    /// together.
    reserved: Mutex<Spend>,
    stopped: Mutex<Option<String>>,
    budget: Budget,
    priced: bool,
}

fn locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing panics while holding these locks; a poisoned one still
    // holds consistent figures.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Spending {
    /// Reserves the forecast of `call` of `judge` when it fits in the
    /// budget with everything spent and reserved; otherwise records why the
    /// probe stops and returns none.
    fn reserve(&self, judge: &Judge, call: &ProbeCall) -> Option<Spend> {
        let ledger = locked(&self.ledger);
        let next = Forecast::with_output(
            &[PlannedCall {
                role: &judge.role,
                agent: &judge.label,
                prompt_chars: call.prompt.len(),
            }],
            &ledger,
            |role| expected_output(role, &ledger),
        )
        .spend();
        let mut reserved = locked(&self.reserved);
        let spent = Spend::of(&ledger);
        if !self.budget.crossed_by(spent + *reserved + next).is_empty() {
            locked(&self.stopped).get_or_insert_with(|| {
                format!(
                    "stopped before a call that would cross the budget {}: spent {}, the next call ≈ {}",
                    self.budget.describe(),
                    spent.describe(self.priced),
                    next.describe(self.priced)
                )
            });
            return None;
        }
        *reserved = *reserved + next;
        Some(next)
    }

    fn release(&self, reservation: Spend) {
        let mut reserved = locked(&self.reserved);
        reserved.usd = (reserved.usd - reservation.usd).max(0.0);
        reserved.tokens = reserved.tokens.saturating_sub(reservation.tokens);
    }
}

/// Every call of one judge, one at a time, until the budget stops the
/// probe.
async fn probe_one(judge: &Judge, folder: &saved::ProbeFolder, spending: &Spending) -> JudgeRecord {
    eprintln!(
        "quorum probe: {} ({}): {} calls",
        judge.role,
        crate::text::for_stderr(&judge.label),
        judge.calls.len()
    );
    let mut readings = BTreeMap::new();
    let mut not_made = 0u32;
    for call in &judge.calls {
        if locked(&spending.stopped).is_some() {
            not_made += 1;
            continue;
        }
        let Some(reservation) = spending.reserve(judge, call) else {
            not_made += 1;
            continue;
        };
        let reading = run_call(judge, call, folder, &spending.ledger).await;
        spending.release(reservation);
        readings.insert(call.id.clone(), reading);
    }
    record_of(judge, &readings, not_made)
}

/// One call under its deadline, retried once after a failure or a
/// timeout, then skipped; its answer saved before it is read.
async fn run_call(
    judge: &Judge,
    call: &ProbeCall,
    folder: &saved::ProbeFolder,
    ledger: &Mutex<UsageLedger>,
) -> Reading {
    let mut last_failure = String::new();
    for attempt in 1..=2u32 {
        let request = CallRequest {
            call_id: format!("{}/{}/a{attempt}", judge.role, call.id),
            role: judge.role.clone(),
            stage: "probe".to_string(),
            round: call.trial,
            attempt,
            prompt: call.prompt.clone(),
        };
        let (events, receiver) = crate::agent::events::channel();
        drop(receiver);
        let began = Instant::now();
        let outcome = tokio::time::timeout(judge.deadline, judge.agent.call(request, events)).await;
        let elapsed_ms = began.elapsed().as_millis() as u64;
        let failure = match outcome {
            Ok(Ok(output)) => {
                let estimated = output.usage.is_none() || judge.agent.usage_is_estimated();
                let usage = output.usage.or_else(|| {
                    Some(crate::agent::Usage {
                        input_tokens: (call.prompt.len() as u64)
                            .div_ceil(crate::protocol::budget::CHARS_PER_TOKEN),
                        output_tokens: (output.text.len() as u64)
                            .div_ceil(crate::protocol::budget::CHARS_PER_TOKEN),
                    })
                });
                {
                    let mut ledger = locked(ledger);
                    let price = ledger.price_of(&judge.label).copied();
                    ledger.record(CallUsage::new(
                        &format!("{}/{}", judge.role, call.id),
                        &judge.role,
                        &judge.label,
                        Measured {
                            usage,
                            estimated,
                            ttft_ms: None,
                            elapsed_ms,
                        },
                        price.as_ref(),
                    ));
                }
                // Persist on collect: the answer is on disk before it is read.
                if let Err(error) = folder.save_raw(&judge.role, &call.id, &output.text, None) {
                    folder.log(
                        &judge.role,
                        &call.id,
                        attempt,
                        &format!("cannot save the answer: {error}"),
                    );
                    return Reading::NoAnswer {
                        reason: format!("the answer could not be saved: {error}"),
                    };
                }
                let reading = Reading::of(call, &output.text);
                if let Reading::Malformed { reason } = &reading {
                    folder.log(
                        &judge.role,
                        &call.id,
                        attempt,
                        &format!("malformed: {reason}"),
                    );
                    let _ = folder.save_raw(&judge.role, &call.id, &output.text, Some(reason));
                }
                return reading;
            }
            Ok(Err(error)) => format!("failed: {error}"),
            Err(_) => format!(
                "timed out after {}",
                crate::protocol::supervision::format_duration_ms(judge.deadline.as_millis() as u64)
            ),
        };
        folder.log(&judge.role, &call.id, attempt, &failure);
        last_failure = failure;
        if attempt == 1 {
            folder.log(
                &judge.role,
                &call.id,
                attempt,
                "retrying once with the same prompt",
            );
        }
    }
    folder.log(
        &judge.role,
        &call.id,
        2,
        "skipped: no answer after the retry",
    );
    Reading::NoAnswer {
        reason: last_failure,
    }
}

fn record_of(judge: &Judge, readings: &BTreeMap<String, Reading>, not_made: u32) -> JudgeRecord {
    let mut planned = BTreeMap::new();
    for call in &judge.calls {
        *planned
            .entry(call.probe.as_str().to_string())
            .or_insert(0u32) += 1;
    }
    for probe in probe::Probe::ALL {
        planned.entry(probe.as_str().to_string()).or_insert(0);
    }
    let count = |test: fn(&Reading) -> bool| readings.values().filter(|r| test(r)).count() as u32;
    JudgeRecord {
        role: judge.role.clone(),
        agent: judge.label.clone(),
        family: judge.family.as_ref().map(ToString::to_string),
        other_family: judge.kinship.as_ref().map(|kin| kin.other.to_string()),
        planned,
        read: count(|r| matches!(r, Reading::Prefer { .. } | Reading::Score { .. })),
        malformed: count(|r| matches!(r, Reading::Malformed { .. })),
        unanswered: count(|r| matches!(r, Reading::NoAnswer { .. })),
        not_made,
        figures: probe::figures(&judge.calls, readings),
    }
}

fn print_result(
    args: &ProbeArgs,
    record: &ProbeRecord,
    folder: &saved::ProbeFolder,
    breaches: &[Breach],
    code: u8,
    priced: bool,
) {
    if args.json {
        let json = serde_json::json!({
            "dir": folder.path().display().to_string(),
            "exit_code": code,
            "breaches": breaches,
            "probe": record,
        });
        println!("{}", crate::text::terminal_safe_json(&json.to_string()));
    } else {
        let mut out = std::io::stdout().lock();
        let _ = write!(
            out,
            "{}",
            crate::text::sanitize(&saved::summary(record, priced))
        );
        let _ = writeln!(out, "Saved in {}", folder.path().display());
    }
    if let Some(stopped) = &record.stopped {
        eprintln!("quorum probe: {}", crate::text::for_stderr(stopped));
    }
    for breach in breaches {
        eprintln!(
            "quorum probe: under its floor: {}",
            crate::text::for_stderr(&breach.describe())
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{AgentError, AgentInfo, CallOutput, EventSender, FinishReason};
    use crate::protocol::probe::{Probe, Variant};
    use futures::future::BoxFuture;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// Fails its first `failures` calls, then answers `SCORE: 7`; never
    /// answers at all when `hangs`.
    struct Staged {
        failures: u32,
        hangs: bool,
        calls: AtomicU32,
    }

    impl Agent for Staged {
        fn info(&self) -> AgentInfo {
            AgentInfo {
                provider: "test".into(),
                model: "staged".into(),
            }
        }

        fn call<'a>(
            &'a self,
            _request: CallRequest,
            _events: EventSender,
        ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
            Box::pin(async move {
                let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
                if self.hangs {
                    futures::future::pending::<()>().await;
                }
                if n <= self.failures {
                    return Err(AgentError::Provider(format!("refused call {n}")));
                }
                Ok(CallOutput {
                    text: "Fine.\nSCORE: 7\n".into(),
                    usage: None,
                    finish: FinishReason::Stop,
                })
            })
        }
    }

    fn judge(agent: Staged) -> (Judge, Arc<Staged>) {
        let agent = Arc::new(agent);
        let judge = Judge {
            role: "judge.analyst".into(),
            agent: agent.clone(),
            label: "test:staged".into(),
            family: None,
            deadline: Duration::from_secs(30),
            price: None,
            calls: Vec::new(),
            kinship: None,
        };
        (judge, agent)
    }

    fn call() -> ProbeCall {
        ProbeCall {
            id: "length-001-plain".into(),
            probe: Probe::Length,
            trial: 1,
            variant: Variant::Plain,
            prompt: "Score this.".into(),
        }
    }

    fn folder(root: &std::path::Path) -> saved::ProbeFolder {
        saved::ProbeFolder::create(root, chrono::Utc::now(), 1).unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn jm_05_a_failed_call_is_retried_once_and_logged() {
        let root = tempfile::tempdir().unwrap();
        let folder = folder(root.path());
        let (judge, agent) = judge(Staged {
            failures: 1,
            hangs: false,
            calls: AtomicU32::new(0),
        });
        let ledger = Mutex::new(UsageLedger::default());
        let reading = run_call(&judge, &call(), &folder, &ledger).await;
        assert_eq!(reading, Reading::Score { score: 7 });
        assert_eq!(agent.calls.load(Ordering::SeqCst), 2);
        let log = std::fs::read_to_string(folder.path().join("calls.log")).unwrap();
        assert!(
            log.contains("judge.analyst/length-001-plain attempt 1: failed: refused call 1"),
            "{log}"
        );
        assert!(log.contains("retrying once"), "{log}");
        // The usage is estimated from the text when the provider gives none.
        let ledger = ledger.into_inner().unwrap();
        assert_eq!(ledger.calls().len(), 1);
        assert!(ledger.calls()[0].estimated);
    }

    #[tokio::test(start_paused = true)]
    async fn jm_05_a_call_that_times_out_twice_is_skipped_never_retried_again() {
        let root = tempfile::tempdir().unwrap();
        let folder = folder(root.path());
        let (judge, agent) = judge(Staged {
            failures: 0,
            hangs: true,
            calls: AtomicU32::new(0),
        });
        let ledger = Mutex::new(UsageLedger::default());
        let reading = run_call(&judge, &call(), &folder, &ledger).await;
        assert!(
            matches!(&reading, Reading::NoAnswer { reason } if reason.contains("timed out")),
            "{reading:?}"
        );
        assert_eq!(
            agent.calls.load(Ordering::SeqCst),
            2,
            "one retry, never a second"
        );
        let log = std::fs::read_to_string(folder.path().join("calls.log")).unwrap();
        assert!(log.contains("skipped: no answer after the retry"), "{log}");
        assert!(
            !folder.path().join("raw").exists(),
            "nothing answered, nothing saved"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn jm_05_an_answer_that_cannot_be_saved_is_not_read() {
        let root = tempfile::tempdir().unwrap();
        let folder = folder(root.path());
        // A file where the raw answers' folder would go: the save fails.
        std::fs::write(folder.path().join("raw"), "in the way").unwrap();
        let (judge, _agent) = judge(Staged {
            failures: 0,
            hangs: false,
            calls: AtomicU32::new(0),
        });
        let ledger = Mutex::new(UsageLedger::default());
        let reading = run_call(&judge, &call(), &folder, &ledger).await;
        assert!(
            matches!(&reading, Reading::NoAnswer { reason } if reason.contains("could not be saved")),
            "an answer is read only once it is on disk: {reading:?}"
        );
    }

    #[test]
    fn jm_06_trials_and_seed_are_bounded_and_named() {
        assert_eq!(parse_trials("12"), Ok(12));
        assert_eq!(parse_trials("200"), Ok(probe::MAX_TRIALS));
        assert!(parse_trials("0").unwrap_err().contains("from 1 to 200"));
        assert!(parse_trials("201").is_err());
        assert!(parse_trials("1e3").is_err());
        assert_eq!(parse_seed("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_seed("-1").is_err());
    }
}
