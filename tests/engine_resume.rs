//! Resume on the library engine, exhaustively: a debate recorded whole is
//! cut after every one of its journal records — every point a crash could
//! stop it, mid-stream included — and each cut is folded and resumed with
//! the same scripted agents. Every resumed debate must end exactly as the
//! uninterrupted one did: same outcome, same files (times aside), and every
//! answer and moderator decision on record before the cut still on record,
//! unchanged.
//!
//! Tokio's clock is paused, so the scripted agents pace in virtual time and
//! the durations they report are the same in every run.

use crate::support;

use support::cuts::{assert_same_tree, cut_kind, normalised, resume, settled_inputs, tree};

use std::path::Path;

use chrono::{Local, Utc};
use quorum::artifact::{Journal, RunDir};
use quorum::cli::{Prepared, RunFlags, Source, prepare};
use quorum::engine::{Engine, JournalEvent, ModerationPolicy, Moderator};
use quorum::protocol::Outcome;
use quorum::protocol::decision_review::DecisionReview;
use tokio::sync::mpsc;

/// The demo, prepared with `moderation`, recorded whole into a new folder
/// under `out`; returns the folder and the outcome.
async fn record_whole(out: &Path, moderator: Moderator) -> (RunDir, Outcome) {
    let flags = RunFlags {
        out: out.to_path_buf(),
        speed: 10.0,
        ..RunFlags::default()
    };
    let Prepared {
        definition,
        roster,
        prompts,
        setup,
        ..
    } = prepare(Source::Demo, &flags).unwrap();
    let run_dir = RunDir::create(out, "whole", Local::now()).unwrap();
    let mut journal = Journal::create(&run_dir.path().join("journal.jsonl")).unwrap();
    journal
        .append(
            Utc::now(),
            &JournalEvent::DebateStarted {
                definition: Box::new(definition.clone()),
                setup: Some(Box::new(setup)),
            },
        )
        .unwrap();
    let (tx, _rx) = mpsc::unbounded_channel();
    let engine = Engine::new(
        Box::new(DecisionReview::from_definition(&definition, prompts).unwrap()),
        run_dir.clone(),
        journal,
        roster,
        moderator,
        tx,
    );
    let (outcome, _) = engine.run().await.unwrap();
    (run_dir, outcome)
}

/// Cuts the debate `moderator` decides after every journal record, resumes
/// each cut, and checks it ends as the uninterrupted debate did; returns how
/// many cuts were resumed.
async fn resume_every_cut(moderator: impl Fn() -> Moderator) -> usize {
    let out = tempfile::tempdir().unwrap();
    let (whole, outcome) = record_whole(out.path(), moderator()).await;
    let expected = normalised(&tree(whole.path()));
    let journal = std::fs::read_to_string(whole.path().join("journal.jsonl")).unwrap();
    let lines: Vec<&str> = journal.lines().collect();
    assert!(
        lines
            .iter()
            .any(|line| line.contains(r#""event":"streamed""#)),
        "the journal keeps streamed text"
    );
    let mut resumed_cuts = 0;
    let mut kinds = std::collections::BTreeSet::new();
    for cut in 1..=lines.len() {
        let dir = out.path().join(format!("cut-{cut:03}"));
        std::fs::create_dir(&dir).unwrap();
        let prefix: String = lines[..cut]
            .iter()
            .map(|line| format!("{line}\n"))
            .collect();
        std::fs::write(dir.join("journal.jsonl"), &prefix).unwrap();

        let resumed = resume(&dir, moderator()).await;
        let last = lines[cut - 1];
        if last.contains(r#""event":"finished""#) {
            assert_eq!(resumed, None, "a finished debate has nothing to resume");
            continue;
        }
        assert_eq!(
            resumed.as_ref(),
            Some(&outcome),
            "cut after record {cut}: {last}"
        );
        resumed_cuts += 1;
        kinds.insert(cut_kind(last));
        let after = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
        assert!(
            after.starts_with(&prefix),
            "cut {cut}: the journal is append-only"
        );
        assert!(after[prefix.len()..].contains(r#""event":"resumed""#));
        let before = settled_inputs(&prefix);
        assert_eq!(
            settled_inputs(&after)[..before.len()],
            before[..],
            "cut {cut}: an answer or a decision on record was lost or changed"
        );
        assert_same_tree(&expected, &normalised(&tree(&dir)), cut);
    }
    for kind in [
        "debate_started",
        "call_started",
        "streamed",
        "call_finished",
        "item_decided",
        "moderation_submitted",
    ] {
        assert!(
            kinds.contains(kind),
            "no cut right after a {kind} record: {kinds:?}"
        );
    }
    resumed_cuts
}

#[tokio::test(start_paused = true)]
async fn a_debate_cut_after_any_journal_record_resumes_to_the_same_end() {
    let cuts = resume_every_cut(|| Moderator::policy(ModerationPolicy::Accept)).await;
    println!("{cuts} cuts resumed");
    assert!(cuts >= 40, "only {cuts} cuts");
}

#[tokio::test(start_paused = true)]
async fn moderator_decisions_made_before_a_cut_survive_it() {
    use quorum::protocol::decision_review::model::ItemDecision;
    let decisions = || {
        Moderator::listed(vec![
            (
                "c2".into(),
                ItemDecision::Reject,
                Some("tax is recorded already".into()),
            ),
            (
                "c3".into(),
                ItemDecision::Defer,
                Some("ask the platform team".into()),
            ),
            ("c5".into(), ItemDecision::Defer, None),
        ])
    };
    let cuts = resume_every_cut(decisions).await;
    println!("{cuts} cuts resumed");
    assert!(cuts >= 40, "only {cuts} cuts");
}
