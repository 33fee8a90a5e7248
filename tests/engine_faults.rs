//! Faults inside the engine's own tasks: a provider that panics fails its
//! call like any error (retried once, then the slot is given up) instead of
//! leaving the debate waiting for an answer that can never come.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use quorum::agent::{Agent, AgentError, AgentInfo, CallOutput, CallRequest, EventSender};
use quorum::cli::{RunFlags, Source, prepare};
use quorum::engine::RoleAgent;
use quorum::protocol::Outcome;

struct Panicking;

impl Agent for Panicking {
    fn info(&self) -> AgentInfo {
        AgentInfo {
            provider: "test".into(),
            model: "panics".into(),
        }
    }

    fn call<'a>(
        &'a self,
        _request: CallRequest,
        _events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        Box::pin(async { panic!("provider bug") })
    }
}

#[tokio::test(start_paused = true)]
async fn a_panicking_provider_fails_its_call_and_the_debate_ends() {
    let out = tempfile::tempdir().unwrap();
    let flags = RunFlags {
        out: out.path().to_path_buf(),
        speed: 1.0,
        ..RunFlags::default()
    };
    let mut prepared = prepare(Source::Demo, &flags).unwrap();
    prepared.roster.insert(
        "proposer",
        RoleAgent {
            agent: Arc::new(Panicking),
            timeout: Duration::from_secs(600),
        },
    );
    let (engine, run_dir, _updates) = support::review_engine(prepared, out.path(), "panic");
    let (outcome, _) = tokio::time::timeout(Duration::from_secs(60), engine.run())
        .await
        .expect("the debate ends instead of waiting forever")
        .unwrap();
    let Outcome::Failed { reason } = outcome else {
        panic!("the proposer is required: {outcome:?}")
    };
    assert!(
        reason.contains("the agent crashed: provider bug"),
        "{reason}"
    );
    let transcript = std::fs::read_to_string(run_dir.path().join("transcript.md")).unwrap();
    assert!(
        transcript.contains("proposer/proposal/r1/a2"),
        "retried once"
    );
}

/// A provider that never answers: a real timeout.
struct Hanging;

impl Agent for Hanging {
    fn info(&self) -> AgentInfo {
        AgentInfo {
            provider: "test".into(),
            model: "hangs".into(),
        }
    }

    fn call<'a>(
        &'a self,
        _request: CallRequest,
        _events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        Box::pin(std::future::pending())
    }
}

/// The transcript's timeout lines of the demo, run with `hanging` (if
/// any) in place of the aesthete.
async fn aesthete_timeouts(hanging: bool) -> Vec<String> {
    let out = tempfile::tempdir().unwrap();
    let flags = RunFlags {
        out: out.path().to_path_buf(),
        speed: 1.0,
        ..RunFlags::default()
    };
    let mut prepared = prepare(Source::Demo, &flags).unwrap();
    if hanging {
        prepared.roster.insert(
            "judge.aesthete",
            RoleAgent {
                agent: Arc::new(Hanging),
                timeout: Duration::from_secs(5),
            },
        );
    }
    let (engine, run_dir, _updates) = support::review_engine(prepared, out.path(), "staged");
    tokio::time::timeout(Duration::from_secs(3600), engine.run())
        .await
        .expect("the debate ends")
        .unwrap();
    let transcript = std::fs::read_to_string(run_dir.path().join("transcript.md")).unwrap();
    transcript
        .lines()
        .filter(|line| line.contains("**TIMEOUT**") && line.contains("judge.aesthete"))
        .map(str::to_string)
        .collect()
}

/// The default demo's aesthete times out because its script says so: the
/// transcript says the fault is staged, so it does not read as a real one.
/// A real provider's timeout never says so.
#[tokio::test(start_paused = true)]
async fn a_timeout_the_script_stages_says_so_and_a_real_one_does_not() {
    let staged = aesthete_timeouts(false).await;
    assert_eq!(staged.len(), 1, "{staged:?}");
    assert!(staged[0].contains("staged by the script"), "{staged:?}");
    let real = aesthete_timeouts(true).await;
    assert!(real.len() >= 2, "timed out, retried, timed out: {real:?}");
    assert!(real.iter().all(|line| !line.contains("staged")), "{real:?}");
}
