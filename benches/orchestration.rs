//! Orchestration overhead (DESIGN.md section 8): the wall time of a whole
//! decision review against scripted agents with fixed latencies, divided by
//! its critical path (the sequential stages plus the slowest judge of each
//! round). A ratio of 1.00 means quorum itself costs nothing measurable; the
//! machine is noisy, so only the ratio is reported, never a bare time.
//!
//! Run with `cargo bench --bench orchestration`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use quorum::agent::script::{Script, ScriptAgent};
use quorum::artifact::{Journal, RunDir, read_journal};
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
const RUNS: usize = 7;

fn script() -> Script {
    let mut script = support::ScriptBuilder::adopt_path().build();
    script.pace.first_token_ms = CALL_LATENCY_MS;
    script.pace.chars_per_second = u32::MAX;
    script.pace.chunk_chars = 1 << 20;
    script
}

async fn one_debate(high_stakes: bool, root: &std::path::Path) -> (Duration, u64) {
    let panel = architecture_panel(high_stakes);
    let script = Arc::new(script());
    let mut roster = Roster::default();
    let roles = ["proposer".to_string(), "critic".to_string()]
        .into_iter()
        .chain(panel.iter().map(|judge| judge_slot_role(judge.role)));
    for role in roles {
        roster.insert(
            role,
            RoleAgent {
                agent: Arc::new(ScriptAgent::new(script.clone(), 1.0)),
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
    };
    let run_dir = RunDir::create(root, "bench", chrono::Local::now()).expect("run dir");
    let journal_path = run_dir.path().join("journal.jsonl");
    let journal = Journal::create(&journal_path).expect("journal");
    let (updates, _keep) = tokio::sync::mpsc::unbounded_channel();
    let engine = Engine::new(
        DecisionReview::new(config, Arc::new(PromptSet::builtin())),
        run_dir,
        journal,
        roster,
        Moderator::policy(ModerationPolicy::Accept),
        updates,
    );
    let started = Instant::now();
    engine.run().await.expect("debate");
    let elapsed = started.elapsed();
    let events = read_journal::<serde_json::Value>(&journal_path)
        .expect("journal")
        .records
        .len() as u64;
    (elapsed, events)
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
    for high_stakes in [false, true] {
        let mut ratios = Vec::new();
        let mut events = 0;
        for _ in 0..RUNS {
            let (elapsed, journal_events) = runtime.block_on(one_debate(high_stakes, root.path()));
            ratios.push(elapsed.as_secs_f64() / critical_path.as_secs_f64());
            events = journal_events;
        }
        ratios.sort_by(f64::total_cmp);
        let median = ratios[RUNS / 2];
        let overhead_ms = (median - 1.0) * critical_path.as_secs_f64() * 1000.0;
        println!(
            "orchestration/{}-judges: wall / critical path = {median:.3} (min {:.3}, max {:.3}); \
             ≈ {overhead_ms:.1} ms of quorum time over {events} journaled events",
            if high_stakes { 5 } else { 3 },
            ratios[0],
            ratios[RUNS - 1],
        );
    }
}
