//! Orchestration overhead (DESIGN.md section 8): the wall time of a whole
//! decision review against scripted agents with fixed latencies, divided by
//! its critical path (the sequential stages plus the slowest judge of each
//! round). A ratio of 1.00 means quorum itself costs nothing measurable; the
//! machine is noisy, so the ratio is the figure, and the milliseconds over
//! the critical path are split by the journal's timestamps into time with no
//! call in flight (before the first call, between calls, after the last
//! answer: quorum's alone) and time with a call in flight beyond its latency
//! (answers that end together wait their turn to be journaled).
//!
//! The agents wait out their latency two ways: as I/O (the answer arrives on
//! a socket, written by one "network" thread when it is due: the figure the
//! target is about), and
//! on the scripted agent's tokio timer, whose millisecond tick adds about a
//! millisecond per call that is the agent's, not quorum's.
//!
//! A debate creates about thirty files, so the ratio moves with what a file
//! costs to create: the bench first prints the median creation time of a
//! file in its folder, before and after the debates. (On an ext4 without a
//! journal, as on the machine this was written on, that time grows from
//! ~15 µs to hundreds of µs for minutes after many files are deleted, by a
//! test run, a build or this bench's own runs: the inode allocator skips
//! recently freed inodes there.)
//!
//! Run with `cargo bench --bench orchestration`; with `ORCHESTRATION_TIMELINE=1`
//! it also prints the median debate's journal, record by record, in
//! milliseconds from the start.

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;
use quorum::agent::script::{Script, ScriptAgent};
use quorum::agent::{Agent, AgentError, AgentInfo, CallOutput, CallRequest, EventSender};
use quorum::artifact::{Journal, Record, RunDir, read_journal};
use quorum::engine::{Engine, ModerationPolicy, Moderator, RoleAgent, Roster};
use quorum::prompts::PromptSet;
use quorum::protocol::decision_review::model::{CritiqueMode, architecture_panel};
use quorum::protocol::decision_review::verdict::Thresholds;
use quorum::protocol::decision_review::{
    DecisionReview, Participants, ReviewConfig, ReviewMode, judge_slot_role,
};

/// Latency of every scripted call before its (instant) answer, in ms.
const CALL_LATENCY_MS: u64 = 150;
/// Runs per panel size; the median ratio is reported.
const RUNS: usize = 11;

/// How the agents wait out their latency.
#[derive(Clone, Copy)]
enum Wait {
    /// As an HTTP agent does: the answer arrives as I/O (here on a socket
    /// that one thread writes to when the latency is up), so the only time
    /// over the latency is quorum's.
    Io,
    /// The scripted agent's own pace: a tokio timer, which rounds up to its
    /// millisecond tick and so adds about a millisecond to every call.
    Timer,
}

/// The adopt path's scripted answers, each after `wait` and at once in full.
fn script(wait: Wait) -> Script {
    let mut script = support::ScriptBuilder::adopt_path().build();
    script.pace.first_token_ms = match wait {
        Wait::Io => 0,
        Wait::Timer => CALL_LATENCY_MS,
    };
    script.pace.chars_per_second = u32::MAX;
    script.pace.chunk_chars = 1 << 20;
    script
}

/// A scripted agent whose answer arrives [`CALL_LATENCY_MS`] after the call
/// over a socket, as an HTTP agent's does: the call waits for its socket to
/// become readable in quorum's runtime, and one thread (the "network", see
/// [`network`]) writes to each socket when its time comes. What follows,
/// waking the runtime and everything after, is quorum's time.
struct IoLatency(ScriptAgent);

impl Agent for IoLatency {
    fn info(&self) -> AgentInfo {
        self.0.info()
    }

    fn call<'a>(
        &'a self,
        request: CallRequest,
        events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        let due = Instant::now() + Duration::from_millis(CALL_LATENCY_MS);
        let (ours, theirs) = UnixStream::pair().expect("socket pair");
        ours.set_nonblocking(true).expect("non-blocking socket");
        network().send((due, theirs)).expect("the network thread");
        Box::pin(async move {
            let socket = tokio::net::UnixStream::from_std(ours).expect("socket");
            let mut byte = [0u8; 1];
            loop {
                socket.readable().await.expect("readable");
                match socket.try_read(&mut byte) {
                    Ok(_) => break,
                    Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => continue,
                    Err(error) => panic!("reading the socket: {error}"),
                }
            }
            self.0.call(request, events).await
        })
    }
}

/// The one thread that answers every [`IoLatency`] call: it writes a byte to
/// each call's socket once its due time has come. The wait is measured from
/// the call, the thread asks the kernel for no timer slack (Linux lets a
/// sleep end up to 50 µs late by default), and calls due together are
/// answered together by one wake of this thread, as a network card's
/// packets are by one interrupt. (A thread per call, as this bench used to
/// have, counted its spawn against quorum, and five of them waking at once
/// on a 2-core machine queued for the cores.)
fn network() -> &'static std::sync::mpsc::Sender<(Instant, UnixStream)> {
    static NETWORK: OnceLock<std::sync::mpsc::Sender<(Instant, UnixStream)>> = OnceLock::new();
    NETWORK.get_or_init(|| {
        let (calls, incoming) = std::sync::mpsc::channel::<(Instant, UnixStream)>();
        std::thread::spawn(move || {
            // SAFETY: sets this thread's timer slack to 1 ns; no pointers.
            unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1) };
            let mut waiting: Vec<(Instant, UnixStream)> = Vec::new();
            loop {
                let next = waiting.iter().map(|(due, _)| *due).min();
                let received = match next {
                    None => incoming.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    Some(due) => {
                        incoming.recv_timeout(due.saturating_duration_since(Instant::now()))
                    }
                };
                match received {
                    Ok(call) => waiting.push(call),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return,
                }
                let now = Instant::now();
                for (_, mut socket) in waiting.extract_if(.., |(due, _)| *due <= now) {
                    // The call may be gone (cancelled): nobody reads then.
                    let _ = socket.write_all(b"!");
                }
            }
        });
        calls
    })
}

/// One debate's wall time, taken apart with the journal's timestamps.
struct Run {
    wall: Duration,
    events: u64,
    /// From the engine's start to the first call started.
    before_first: Duration,
    /// Between the first call started and the last answer, with no call in flight.
    between: Duration,
    /// From the last answer to the engine's return.
    after_last: Duration,
    /// Each record's time since the start and what it was.
    timeline: Vec<(f64, String)>,
}

/// Splits `wall` (which began at `t0`) by the calls in the journal: the time
/// no call was in flight is quorum's own, the rest is the agents'.
fn breakdown(journal: &[Record<serde_json::Value>], t0: DateTime<Utc>, wall: Duration) -> Run {
    let call_id = |event: &serde_json::Value| event["call_id"].as_str().map(str::to_owned);
    let mut in_flight = std::collections::HashSet::new();
    let (mut first, mut last, mut idle_since) = (None, None, None);
    let mut between = chrono::TimeDelta::zero();
    let mut timeline = Vec::new();
    for record in journal {
        let event = &record.event;
        let what = [
            &event["event"],
            &event["input"]["type"],
            &event["call_id"],
            &event["input"]["call_id"],
        ]
        .into_iter()
        .filter_map(|part| part.as_str())
        .collect::<Vec<_>>()
        .join(" ");
        timeline.push((
            (record.at - t0).num_microseconds().unwrap_or(0) as f64 / 1000.0,
            what,
        ));
        if event["event"] == "call_started" {
            if let (Some(since), true) = (idle_since.take(), in_flight.is_empty()) {
                between += record.at - since;
            }
            first.get_or_insert(record.at);
            in_flight.extend(call_id(event));
        } else if event["event"] == "input"
            && ["call_finished", "call_failed"]
                .contains(&event["input"]["type"].as_str().unwrap_or(""))
            && call_id(&event["input"]).is_some_and(|id| in_flight.remove(&id))
            && in_flight.is_empty()
        {
            idle_since = Some(record.at);
            last = Some(record.at);
        }
    }
    let std = |delta: chrono::TimeDelta| delta.to_std().unwrap_or_default();
    let before_first = std(first.expect("a call") - t0);
    let after_last = wall.saturating_sub(std(last.expect("an answer") - t0));
    Run {
        wall,
        events: journal.len() as u64,
        before_first,
        between: std(between),
        after_last,
        timeline,
    }
}

async fn one_debate(high_stakes: bool, wait: Wait, root: &std::path::Path) -> Run {
    let panel = architecture_panel(high_stakes);
    let script = Arc::new(script(wait));
    let mut roster = Roster::default();
    let roles = ["proposer".to_string(), "critic".to_string()]
        .into_iter()
        .chain(panel.iter().map(|judge| judge_slot_role(judge.role)));
    for role in roles {
        roster.insert(
            role,
            RoleAgent {
                agent: match wait {
                    Wait::Io => Arc::new(IoLatency(ScriptAgent::new(script.clone(), 1.0))),
                    Wait::Timer => Arc::new(ScriptAgent::new(script.clone(), 1.0)),
                },
                timeout: Duration::from_secs(60),
            },
        );
    }
    let config = ReviewConfig {
        topic: "Should we benchmark the orchestrator?".into(),
        context: Vec::new(),
        mode: ReviewMode::Architecture,
        options: Vec::new(),
        critique_mode: CritiqueMode::GenerousSteelman,
        high_stakes,
        panel,
        max_rounds: 2,
        thresholds: Thresholds::default(),
        participants: Participants::default(),
        started_at: chrono::Utc::now(),
        hold_for_moderator: false,
        checks_rulings: true,
        fairness: Default::default(),
        handed: None,
        sources: Vec::new(),
        checks_evidence: true,
        weighs_payoff: true,
        stability: Default::default(),
        calibration: Vec::new(),
    };
    let run_dir = RunDir::create(root, "bench", chrono::Local::now()).expect("run dir");
    let journal_path = run_dir.path().join("journal.jsonl");
    let journal = Journal::create(&journal_path).expect("journal");
    let (updates, _keep) = tokio::sync::mpsc::unbounded_channel();
    let engine = Engine::new(
        Box::new(DecisionReview::new(config, Arc::new(PromptSet::builtin()))),
        run_dir,
        journal,
        roster,
        Moderator::policy(ModerationPolicy::Accept),
        updates,
    );
    let (t0, started) = (Utc::now(), Instant::now());
    engine.run().await.expect("debate");
    let wall = started.elapsed();
    let journal = read_journal::<serde_json::Value>(&journal_path).expect("journal");
    breakdown(&journal.records, t0, wall)
}

/// The median time to create an empty file in `folder`, over 50 files
/// (removed again).
fn file_create_median(folder: &std::path::Path) -> Duration {
    let probe = tempfile::tempdir_in(folder).expect("a probe folder");
    let mut times: Vec<Duration> = (0..50)
        .map(|index| {
            let started = Instant::now();
            std::fs::File::create_new(probe.path().join(format!("f{index}"))).expect("a file");
            started.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    // The binary's runtime shape (src/main.rs).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let root = tempfile::tempdir().expect("tempdir");
    // Proposal, critique, revision, then the judges in parallel: four call latencies.
    let critical_path = Duration::from_millis(4 * CALL_LATENCY_MS);
    let create_us = |at: &str| {
        let median = file_create_median(root.path());
        println!(
            "orchestration: creating a file takes {:.0} µs (median of 50, {at})",
            median.as_secs_f64() * 1e6
        );
    };
    create_us("before the debates");
    for (high_stakes, wait) in [
        (false, Wait::Io),
        (true, Wait::Io),
        (false, Wait::Timer),
        (true, Wait::Timer),
    ] {
        let mut runs: Vec<Run> = (0..RUNS)
            .map(|_| runtime.block_on(one_debate(high_stakes, wait, root.path())))
            .collect();
        runs.sort_by_key(|run| run.wall);
        let ratio = |run: &Run| run.wall.as_secs_f64() / critical_path.as_secs_f64();
        let median = &runs[RUNS / 2];
        let ms = |duration: Duration| duration.as_secs_f64() * 1000.0;
        let quorum = median.before_first + median.between + median.after_last;
        println!(
            "orchestration/{}-judges/{}: wall / critical path = {:.3} (min {:.3}, max {:.3}); \
             {:.1} ms over the critical path in {} journaled events: {:.1} ms with no call in \
             flight (before the first {:.1}, between calls {:.1}, after the last {:.1}), \
             {:.1} ms with a call in flight beyond its latency",
            if high_stakes { 5 } else { 3 },
            match wait {
                Wait::Io => "io-latency",
                Wait::Timer => "timer-latency",
            },
            ratio(median),
            ratio(&runs[0]),
            ratio(&runs[RUNS - 1]),
            ms(median.wall.saturating_sub(critical_path)),
            median.events,
            ms(quorum),
            ms(median.before_first),
            ms(median.between),
            ms(median.after_last),
            ms(median.wall.saturating_sub(critical_path + quorum)),
        );
        if std::env::var_os("ORCHESTRATION_TIMELINE").is_some() {
            for (at, what) in &median.timeline {
                println!("  {at:8.2} ms  {what}");
            }
            println!("  {:8.2} ms  returned", ms(median.wall));
        }
    }
    create_us("after them");
}
