//! Faults inside the engine's own tasks: a provider that panics fails its
//! call like any error (retried once, then the slot is given up) instead of
//! leaving the debate waiting for an answer that can never come.

mod support;

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
