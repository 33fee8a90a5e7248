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

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use chrono::{Local, Utc};
use quorum::artifact::{Journal, RunDir};
use quorum::cli::{Prepared, RunFlags, Source, prepare, rebuild};
use quorum::config::detect::SystemEnvironment;
use quorum::engine::resume::{Recorded, fold};
use quorum::engine::{Engine, JournalEvent, ModerationPolicy, Moderator, ResumePoint};
use quorum::prompts::PromptSet;
use quorum::protocol::decision_review::DecisionReview;
use quorum::protocol::{Input, Outcome};
use tokio::sync::mpsc;

/// Every file of a debate folder but the journal and the lock, by path.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    support::files_under(dir)
        .into_iter()
        .filter(|(name, _)| name != "journal.jsonl" && name != "quorum.lock")
        .map(|(name, bytes)| (name, String::from_utf8(bytes).unwrap()))
        .collect()
}

/// `text` with times blanked: ISO stamps, clock times, and measured
/// durations (a call's latency is timed on the real clock, which the paused
/// test clock does not stop).
fn without_times(text: &str) -> String {
    let iso =
        regex::Regex::new(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")
            .unwrap();
    let clock = regex::Regex::new(r"\b\d{2}:\d{2}:\d{2}\b").unwrap();
    let measured = regex::Regex::new(
        r"(elapsed_ms|ttft_ms|call_time_ms|duration_ms|output_tokens_per_second): [\d.]+",
    )
    .unwrap();
    let seconds = regex::Regex::new(r"\b\d+(\.\d+)? s\b").unwrap();
    // Tokens per second exist only when streaming took measurable time.
    let rate_line = regex::Regex::new(r"(?m)^ *output_tokens_per_second: .*\n").unwrap();
    // The per-call table's first token, tok/s and time columns.
    let call_row =
        regex::Regex::new(r"(?m)^(\| `[^`]+` \| `[^`]+` \| [^|]+\| [^|]+\|)[^|]+\|[^|]+\|[^|]+\|")
            .unwrap();
    let text = rate_line.replace_all(text, "");
    let text = call_row.replace_all(&text, "$1 <measured> |");
    let text = iso.replace_all(&text, "<time>");
    let text = clock.replace_all(&text, "<clock>");
    let text = measured.replace_all(&text, "$1: <measured>");
    seconds.replace_all(&text, "<seconds>").into_owned()
}

fn normalised(files: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(path, text)| (path.clone(), without_times(text)))
        .collect()
}

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
        DecisionReview::from_definition(&definition, prompts).unwrap(),
        run_dir.clone(),
        journal,
        roster,
        moderator,
        tx,
    );
    let (outcome, _) = engine.run().await.unwrap();
    (run_dir, outcome)
}

/// Folds `dir`'s journal and, unless it is finished, resumes it to the end
/// with `moderator` deciding the items still undecided.
async fn resume(dir: &Path, moderator: Moderator) -> Option<Outcome> {
    let recorded = Recorded::read(dir).unwrap();
    let setup = recorded.setup.clone().expect("the setup is journaled");
    let folded = fold(
        DecisionReview::from_definition(&recorded.definition, Arc::new(PromptSet::builtin()))
            .unwrap(),
        &recorded.records,
        &mut |_, _| {},
    );
    if folded.is_finished() {
        return None;
    }
    let rebuilt = rebuild(&setup, &recorded.journal_path, None, &SystemEnvironment).unwrap();
    let (tx, _rx) = mpsc::unbounded_channel();
    let engine = Engine::new(
        folded.protocol,
        RunDir::open(dir).unwrap(),
        Journal::open_append(&recorded.journal_path, recorded.next_seq()).unwrap(),
        rebuilt.roster,
        moderator,
        tx,
    );
    let point = ResumePoint {
        unfinished: folded.unfinished,
        moderation: folded.moderation,
        extended: folded.extended,
    };
    Some(engine.resume(point, false).await.unwrap().0)
}

/// Fails naming the first file and line that differ.
fn assert_same_tree(
    expected: &BTreeMap<String, String>,
    actual: &BTreeMap<String, String>,
    cut: usize,
) {
    let paths = |tree: &BTreeMap<String, String>| tree.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        paths(actual),
        paths(expected),
        "cut after record {cut}: the files"
    );
    for (path, want) in expected {
        let got = &actual[path];
        if got == want {
            continue;
        }
        let (line, (want_line, got_line)) = want
            .lines()
            .zip(got.lines())
            .enumerate()
            .find(|(_, (want, got))| want != got)
            .map(|(index, pair)| (index + 1, pair))
            .unwrap_or((0, ("<end>", "<end>")));
        panic!(
            "cut after record {cut}: {path} differs at line {line}:\n  uninterrupted: {want_line}\n  resumed:       {got_line}"
        );
    }
}

/// The answers and moderator decisions of a journal, in order.
fn settled_inputs(journal: &str) -> Vec<Input> {
    journal
        .lines()
        .filter_map(|line| {
            serde_json::from_str::<quorum::artifact::Record<JournalEvent>>(line).ok()
        })
        .filter_map(|record| match record.event {
            JournalEvent::Input { input } => Some(input),
            _ => None,
        })
        .filter(|input| {
            matches!(
                input,
                Input::CallFinished { .. } | Input::ItemDecided { .. } | Input::ModerationSubmitted
            )
        })
        .collect()
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

/// The kind of a journal line: its event, or its input's type.
fn cut_kind(line: &str) -> String {
    let record: serde_json::Value = serde_json::from_str(line).unwrap();
    let event = &record["event"];
    match event["event"].as_str() {
        Some("input") => event["input"]["type"].as_str().unwrap().to_string(),
        Some(other) => other.to_string(),
        None => panic!("no event in {line}"),
    }
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
