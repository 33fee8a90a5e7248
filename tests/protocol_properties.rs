//! Property tests of the decision-review state machine: whatever the agents
//! answer and whatever fails, in whatever order, the protocol never panics,
//! never starts a call twice, never exceeds the retry rules, finishes at most
//! once, and only ever adopts with every binding judge scored.

use crate::support;

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{TimeZone, Utc};
use proptest::prelude::*;
use quorum::prompts::PromptSet;
use quorum::protocol::decision_review::model::{
    CritiqueMode, ItemDecision, JudgeResult, JudgeRole, Verdict, architecture_panel,
};
use quorum::protocol::decision_review::verdict::Thresholds;
use quorum::protocol::decision_review::{DecisionReview, Participants, ReviewConfig, ReviewMode};
use quorum::protocol::{CallFailure, CallSpec, Effect, Input, Outcome, OverrideAction, Protocol};

/// What happens to the next live call (or to moderation).
#[derive(Clone, Debug)]
enum Step {
    /// Answer the call in position `pick` with a valid answer scored `score`.
    Valid {
        pick: usize,
        score: u8,
    },
    /// Answer with prose that does not parse.
    Garbage {
        pick: usize,
    },
    TimeOut {
        pick: usize,
    },
    Error {
        pick: usize,
    },
    Override {
        pick: usize,
        retry: bool,
    },
    /// Decide every item with decisions drawn from `seed`, then submit.
    Moderate {
        seed: u8,
    },
    /// A stale answer for a call id that was never live.
    Stale,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..6usize, 1..=5u8).prop_map(|(pick, score)| Step::Valid { pick, score }),
        1 => (0..6usize).prop_map(|pick| Step::Garbage { pick }),
        1 => (0..6usize).prop_map(|pick| Step::TimeOut { pick }),
        1 => (0..6usize).prop_map(|pick| Step::Error { pick }),
        1 => (0..6usize, any::<bool>()).prop_map(|(pick, retry)| Step::Override { pick, retry }),
        2 => any::<u8>().prop_map(|seed| Step::Moderate { seed }),
        1 => Just(Step::Stale),
    ]
}

fn config(high_stakes: bool, max_rounds: u32) -> ReviewConfig {
    ReviewConfig {
        topic: "Should we?".into(),
        context: Vec::new(),
        mode: ReviewMode::Architecture,
        options: Vec::new(),
        critique_mode: CritiqueMode::GenerousSteelman,
        high_stakes,
        panel: architecture_panel(high_stakes),
        max_rounds,
        thresholds: Thresholds::default(),
        participants: Participants::default(),
        started_at: Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).unwrap(),
        hold_for_moderator: false,
        checks_rulings: true,
        fairness: Default::default(),
        handed: None,
        sources: Vec::new(),
        checks_evidence: true,
        weighs_payoff: true,
        stability: Default::default(),
        calibration: Vec::new(),
    }
}

fn valid_answer(spec: &CallSpec, score: u8) -> String {
    match spec.request.stage.as_str() {
        "proposal" => support::proposal_text(),
        "critique" => support::default_critique(),
        "revision" => {
            let ids: Vec<String> = (1..=4)
                .map(|n| format!("c{n}"))
                .chain((1..=40).map(|n| format!("d{n}")))
                .collect();
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            support::revision_text(&ids)
        }
        _ => {
            let role = spec
                .request
                .role
                .strip_prefix("judge.")
                .and_then(JudgeRole::parse)
                .expect("judge role");
            support::flat_judge_text(role, score)
        }
    }
}

struct Run {
    review: DecisionReview,
    live: Vec<CallSpec>,
    started: BTreeMap<String, u32>,
    pending_items: Vec<String>,
    finished: Vec<Outcome>,
    tick: i64,
}

impl Run {
    fn apply(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            assert!(
                self.finished.is_empty(),
                "effect after the debate finished: {effect:?}"
            );
            match effect {
                Effect::StartCall(spec) => {
                    let id = spec.request.call_id.clone();
                    assert!(!self.started.contains_key(&id), "call {id} started twice");
                    self.started.insert(id, spec.request.attempt);
                    self.live.push(spec);
                }
                Effect::CancelCall { call_id } => {
                    self.live.retain(|spec| spec.request.call_id != call_id)
                }
                Effect::AwaitModeration { items } => {
                    self.pending_items = items.into_iter().map(|item| item.id).collect();
                }
                Effect::Finished(outcome) => self.finished.push(outcome),
            }
        }
    }

    fn input(&mut self, input: Input) {
        self.tick += 1;
        let now = Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).unwrap()
            + chrono::Duration::seconds(self.tick);
        let effects = self.review.handle(&input, now);
        self.apply(effects);
    }

    fn take(&mut self, pick: usize) -> Option<CallSpec> {
        if self.live.is_empty() {
            return None;
        }
        let index = pick % self.live.len();
        Some(self.live.remove(index))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// INF-10, INF-14, INF-15, DR-38, DR-35: the state machine's invariants
    /// under arbitrary answers, failures and overrides.
    #[test]
    fn decision_review_invariants_hold_under_any_sequence(
        high_stakes in any::<bool>(),
        max_rounds in 0..3u32,
        steps in proptest::collection::vec(step(), 1..80),
    ) {
        let mut run = Run {
            review: DecisionReview::new(config(high_stakes, max_rounds), Arc::new(PromptSet::builtin())),
            live: Vec::new(),
            started: BTreeMap::new(),
            pending_items: Vec::new(),
            finished: Vec::new(),
            tick: 0,
        };
        let first = run.review.start(Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).unwrap());
        run.apply(first);
        for step in steps {
            if !run.finished.is_empty() {
                break;
            }
            match step {
                Step::Valid { pick, score } => {
                    if let Some(spec) = run.take(pick) {
                        let output = valid_answer(&spec, score);
                        run.input(Input::CallFinished { call_id: spec.request.call_id, output, usage: None, usage_estimated: false, ttft_ms: None, elapsed_ms: 5 });
                    }
                }
                Step::Garbage { pick } => {
                    if let Some(spec) = run.take(pick) {
                        run.input(Input::CallFinished { call_id: spec.request.call_id, output: "I think it is fine.".into(), usage: None, usage_estimated: false, ttft_ms: None, elapsed_ms: 5 });
                    }
                }
                Step::TimeOut { pick } => {
                    if let Some(spec) = run.take(pick) {
                        run.input(Input::CallFailed { call_id: spec.request.call_id, failure: CallFailure::TimedOut { after_ms: 600_000, staged: false }, partial_chars: 0, elapsed_ms: 600_000 });
                    }
                }
                Step::Error { pick } => {
                    if let Some(spec) = run.take(pick) {
                        run.input(Input::CallFailed { call_id: spec.request.call_id, failure: CallFailure::Error { message: "503".into() }, partial_chars: 12, elapsed_ms: 40 });
                    }
                }
                Step::Override { pick, retry } => {
                    if let Some(spec) = run.take(pick) {
                        let action = if retry { OverrideAction::RetryNow } else { OverrideAction::Skip };
                        run.input(Input::Override { call_id: spec.request.call_id, action });
                    }
                }
                Step::Moderate { seed } => {
                    for (index, item_id) in std::mem::take(&mut run.pending_items).into_iter().enumerate() {
                        let decision = match (seed as usize + index) % 3 {
                            0 => ItemDecision::Accept,
                            1 => ItemDecision::Reject,
                            _ => ItemDecision::Defer,
                        };
                        run.input(Input::ItemDecided { item_id, decision, note: None, ruler: None });
                    }
                    run.input(Input::ModerationSubmitted);
                }
                Step::Stale => run.input(Input::CallFinished { call_id: "judge.analyst/evaluation/r9/a9".into(), output: String::new(), usage: None, usage_estimated: false, ttft_ms: None, elapsed_ms: 1 }),
            }
        }
        prop_assert!(run.finished.len() <= 1);
        // Without overrides a slot gets at most three attempts (first, retry,
        // repair), a revision one more (asked again against the moderator's
        // rulings, issue 26), and a judge at most two (malformed output is
        // never retried).
        let overrides_used = run.review.log().iter().any(|entry| entry.message.starts_with("moderator:"));
        if !overrides_used {
            for (call_id, attempt) in &run.started {
                let limit = if call_id.starts_with("judge.") {
                    2
                } else if call_id.starts_with("proposer/revision/") {
                    4
                } else {
                    3
                };
                prop_assert!(*attempt <= limit, "{call_id} reached attempt {attempt}");
            }
        }
        if let Some(Outcome::Decided { verdict: Verdict::Adopt, .. }) = run.finished.first() {
            let last = run.review.evaluations().last().expect("an adopted debate was evaluated");
            for judge in architecture_panel(high_stakes).iter().filter(|judge| judge.is_binding()) {
                let scored = matches!(last.judges.get(&judge.role).and_then(|record| record.result.as_ref()), Some(JudgeResult::Scored(_)));
                prop_assert!(scored, "ADOPT without binding judge {}", judge.role);
            }
        }
        if let Some(Outcome::Decided { verdict: Verdict::Reject, .. }) = run.finished.first() {
            // DR-38: REJECT is terminal; nothing runs after it.
            prop_assert!(run.review.live_call_ids().is_empty());
        }
        // Documents always render, at every point.
        prop_assert!(run.review.documents().iter().any(|document| document.path == "transcript.md"));
    }
}
