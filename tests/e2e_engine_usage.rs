//! The engine's side of usage and diagnostics, on the library: every
//! finished call is published as an `Update::CallUsage` (role, tokens, time to
//! first token, cost where a price is known), its figures are journaled with
//! the call, and a command agent's stderr is journaled as a diagnostic just
//! before its result.
use crate::support;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Duration;

use chrono::{Local, Utc};
use quorum::agent::command::CommandAgent;
use quorum::agent::script::ScriptAgent;
use quorum::agent::{Agent, AgentInfo};
use quorum::artifact::{Journal, RunDir, read_journal};
use quorum::engine::{
    DebateDefinition, Engine, JournalEvent, ModerationPolicy, Moderator, RoleAgent, Roster, Update,
};
use quorum::prompts::PromptSet;
use quorum::protocol::decision_review::model::{CritiqueMode, JudgeRole, architecture_panel};
use quorum::protocol::decision_review::verdict::Thresholds;
use quorum::protocol::decision_review::{
    DecisionReview, Participants, ReviewConfig, ReviewMode, judge_slot_role,
};
use quorum::protocol::usage::Price;
use serde_json::Value as Json;
use support::{ScriptBuilder, flat_judge_text};
use tokio::sync::mpsc;

const DEADLINE: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_finished_call_publishes_its_usage_and_command_stderr_is_journaled() {
    let temp = tempfile::tempdir().unwrap();
    let run_dir = RunDir::create(temp.path(), "usage", Local::now()).unwrap();
    let script = Arc::new(ScriptBuilder::adopt_path().build());
    // The stylist and the aesthete are a program that writes to stderr.
    for role in [JudgeRole::Stylist, JudgeRole::Aesthete] {
        std::fs::write(
            temp.path().join(format!("answer-{role}.md")),
            flat_judge_text(role, 4),
        )
        .unwrap();
    }
    let program = temp.path().join("judge.sh");
    std::fs::write(
        &program,
        "#!/bin/sh\ncat > /dev/null\necho \"judging as $1\" >&2\ncat \"$(dirname \"$0\")/answer-$1.md\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();

    let panel = architecture_panel(false);
    let mut roster = Roster::default();
    let mut participants = Participants::default();
    let slots = ["proposer".to_string(), "critic".to_string()]
        .into_iter()
        .chain(panel.iter().map(|judge| judge_slot_role(judge.role)));
    for slot in slots {
        let judge = slot.strip_prefix("judge.").and_then(JudgeRole::parse);
        let agent: Arc<dyn Agent> = match judge {
            Some(role @ (JudgeRole::Stylist | JudgeRole::Aesthete)) => Arc::new(
                CommandAgent::new(
                    vec![program.display().to_string(), role.to_string()],
                    AgentInfo {
                        provider: "judge-cli".into(),
                        model: role.to_string(),
                    },
                )
                .unwrap(),
            ),
            _ => Arc::new(ScriptAgent::new(script.clone(), 1.0)),
        };
        let id = agent.info().to_string();
        match judge {
            Some(role) => {
                participants.judges.insert(role, id);
            }
            None if slot == "proposer" => participants.proposer = id,
            None => participants.critic = id,
        }
        roster.insert(
            slot,
            RoleAgent {
                agent,
                timeout: DEADLINE,
            },
        );
    }
    let price = Price {
        input: 1.0,
        output: 4.0,
    };
    participants.prices.insert("script:scripted".into(), price);
    let config = ReviewConfig {
        topic: "Are usage figures published?".into(),
        context: Vec::new(),
        mode: ReviewMode::Architecture,
        options: Vec::new(),
        critique_mode: CritiqueMode::default(),
        high_stakes: false,
        panel,
        max_rounds: 2,
        thresholds: Thresholds::default(),
        participants,
        started_at: Utc::now(),
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
    let mut journal = Journal::create(&run_dir.path().join("journal.jsonl")).unwrap();
    journal
        .append(
            Utc::now(),
            &JournalEvent::DebateStarted {
                definition: Box::new(DebateDefinition::from(config.clone())),
                setup: None,
            },
        )
        .unwrap();
    let (updates_tx, mut updates_rx) = mpsc::unbounded_channel();
    let engine = Engine::new(
        Box::new(DecisionReview::new(config, Arc::new(PromptSet::builtin()))),
        run_dir.clone(),
        journal,
        roster,
        Moderator::policy(ModerationPolicy::Accept),
        updates_tx,
    );
    let (outcome, review) = engine.run().await.expect("the debate runs");
    assert_eq!(outcome.exit_code(), 0, "{outcome:?}");

    let mut usage_updates = BTreeMap::new();
    while let Ok(update) = updates_rx.try_recv() {
        if let Update::CallUsage {
            call_id,
            role,
            usage,
            ttft_ms,
            elapsed_ms,
            cost_usd,
        } = update
        {
            usage_updates.insert(call_id, (role, usage, ttft_ms, elapsed_ms, cost_usd));
        }
    }
    let records = read_journal::<Json>(&run_dir.path().join("journal.jsonl"))
        .unwrap()
        .records;
    let inputs: Vec<&Json> = records
        .iter()
        .filter(|record| record.event["event"] == "input")
        .map(|record| &record.event["input"])
        .collect();
    let finished: Vec<&Json> = inputs
        .iter()
        .copied()
        .filter(|input| input["type"] == "call_finished")
        .collect();
    assert_eq!(finished.len(), 6);
    assert_eq!(usage_updates.len(), 6, "{usage_updates:#?}");
    for input in &finished {
        let call_id = input["call_id"].as_str().unwrap();
        let (role, usage, ttft_ms, elapsed_ms, cost_usd) = &usage_updates[call_id];
        assert!(
            call_id.starts_with(&format!("{role}/")),
            "{call_id} by {role}"
        );
        let usage = usage.expect("scripted and command calls are counted");
        assert_eq!(input["usage"]["input_tokens"], usage.input_tokens);
        assert_eq!(input["usage"]["output_tokens"], usage.output_tokens);
        assert_eq!(input["usage_estimated"], true, "{input}");
        assert_eq!(input["elapsed_ms"], *elapsed_ms);
        let ttft = ttft_ms.expect("text arrived");
        assert_eq!(input["ttft_ms"], ttft);
        assert!(ttft <= *elapsed_ms);
        let command = role == "judge.stylist" || role == "judge.aesthete";
        match cost_usd {
            Some(cost) => {
                assert!(!command, "{call_id} has no price");
                let expected = (usage.input_tokens as f64 * price.input
                    + usage.output_tokens as f64 * price.output)
                    / 1_000_000.0;
                assert!((cost - expected).abs() < 1e-12, "{call_id}");
            }
            None => assert!(command, "{call_id} has a price"),
        }
    }
    // The program's stderr: journaled just before the result it belongs to.
    for role in ["stylist", "aesthete"] {
        let call_id = format!("judge.{role}/evaluation/r1/a1");
        let position = |kind: &str| {
            inputs
                .iter()
                .position(|input| input["type"] == kind && input["call_id"] == call_id.as_str())
                .unwrap_or_else(|| panic!("no {kind} for {call_id}"))
        };
        let diagnostic = position("call_diagnostic");
        assert_eq!(diagnostic + 1, position("call_finished"));
        assert_eq!(inputs[diagnostic]["text"], format!("judging as {role}\n"));
    }
    assert_eq!(review.diagnostics().len(), 2);
    assert_eq!(review.usage_ledger().calls().len(), 6);
}

/// A journal line written before time to first token and estimates existed
/// still reads.
#[test]
fn older_call_finished_lines_still_read() {
    let input: quorum::protocol::Input = serde_json::from_str(
        r#"{"type":"call_finished","call_id":"critic/critique/r1/a1","output":"x","usage":{"input_tokens":3,"output_tokens":1},"elapsed_ms":40}"#,
    )
    .unwrap();
    let quorum::protocol::Input::CallFinished {
        ttft_ms,
        usage_estimated,
        ..
    } = input
    else {
        panic!("a finished call");
    };
    assert_eq!((ttft_ms, usage_estimated), (None, false));
}
