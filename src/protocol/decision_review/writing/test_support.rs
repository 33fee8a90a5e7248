//! What the writing review's test modules (`tests` in mod.rs and in
//! fairness.rs, and `rulings_tests`) share: a fixed clock, the slots of a
//! whole review and a configuration, the inputs a call ends with, the
//! calls a step starts and the documents a review writes.

use chrono::TimeZone;

use super::*;
use crate::protocol::{CallFailure, CallSpec, Input, Protocol};

/// Every slot of a review with a critic.
pub(super) const SLOTS: [&str; 5] = [
    CRITIC,
    "judge.aesthete",
    "judge.stylist",
    "judge.analyst",
    SYNTHESIZER,
];

pub(super) fn now() -> Timestamp {
    chrono::Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap()
}

/// The on-call handbook's review of `draft`, every one of `slots` run by
/// the scripted agent.
pub(super) fn config(slots: &[&str], draft: &str) -> WritingConfig {
    let agents = slots
        .iter()
        .map(|slot| (slot.to_string(), "script:scripted".to_string()))
        .collect();
    WritingConfig {
        topic: "The on-call handbook's first page".into(),
        mode: ReviewMode::Writing,
        draft: Draft {
            name: "handbook.md".into(),
            text: draft.into(),
        },
        context: Vec::new(),
        panel: writing_panel(),
        critique_mode: Some(CritiqueMode::GenerousSteelman),
        seating: Seating {
            agents,
            started_at: now(),
            ..Seating::default()
        },
    }
}

pub(super) fn finished(call_id: &str, output: &str) -> Input {
    Input::CallFinished {
        call_id: call_id.into(),
        output: output.into(),
        usage: None,
        usage_estimated: false,
        ttft_ms: None,
        elapsed_ms: 1000,
    }
}

pub(super) fn timed_out(call_id: &str) -> Input {
    Input::CallFailed {
        call_id: call_id.into(),
        failure: CallFailure::TimedOut {
            after_ms: 1000,
            staged: false,
        },
        partial_chars: 0,
        elapsed_ms: 1000,
    }
}

/// The calls `effects` start.
pub(super) fn calls(effects: &[Effect]) -> Vec<CallSpec> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::StartCall(spec) => Some(spec.clone()),
            _ => None,
        })
        .collect()
}

/// The one call `effects` start.
pub(super) fn only_call(effects: &[Effect]) -> CallSpec {
    let calls = calls(effects);
    assert_eq!(calls.len(), 1, "{effects:?}");
    calls[0].clone()
}

/// The document `review` writes at `path`.
pub(super) fn document(review: &WritingReview, path: &str) -> String {
    review
        .documents()
        .into_iter()
        .find(|doc| doc.path == path)
        .unwrap_or_else(|| panic!("{path} is written"))
        .contents
}
