//! What crash safety costs (issue 5): the time of one journal append with
//! its fsync against one without, six documents written one at a time
//! against all at once, and what a whole debate journals — records by kind
//! and the fsyncs they take. The machine is noisy: medians and
//! ratios, never bare assertions.
//!
//! Run with `cargo bench --bench journal`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use chrono::Utc;
use quorum::artifact::{Journal, read_journal};
use quorum::cli::{RunFlags, Source, prepare};
use quorum::engine::{Engine, JournalEvent, ModerationPolicy, Moderator};
use quorum::protocol::Input;
use tokio::sync::mpsc;

/// Appends timed per kind.
const APPENDS: usize = 300;
/// Size of the answer in a timed `call_finished` record, in bytes: a long
/// judge answer.
const ANSWER_BYTES: usize = 8 * 1024;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time_appends(journal: &mut Journal, event: &JournalEvent, durable: bool) -> Duration {
    let samples = (0..APPENDS)
        .map(|_| {
            let started = Instant::now();
            if durable {
                journal.append(Utc::now(), event).expect("append");
            } else {
                journal.append_unsynced(Utc::now(), event).expect("append");
            }
            started.elapsed()
        })
        .collect();
    median(samples)
}

fn appends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut journal = Journal::create(&dir.path().join("journal.jsonl")).expect("journal");
    let answer = JournalEvent::Input {
        input: Input::CallFinished {
            call_id: "judge.analyst/evaluation/r1/a1".into(),
            output: "x".repeat(ANSWER_BYTES),
            usage: None,
            usage_estimated: false,
            ttft_ms: Some(900),
            elapsed_ms: 4000,
        },
    };
    let chunk = JournalEvent::Streamed {
        call_id: "judge.analyst/evaluation/r1/a1".into(),
        text: "y".repeat(200),
        reasoning: false,
    };
    let durable = time_appends(&mut journal, &answer, true);
    let unsynced_answer = time_appends(&mut journal, &answer, false);
    let unsynced_chunk = time_appends(&mut journal, &chunk, false);
    println!(
        "journal/append: fsynced {:.0} µs, unsynced {:.0} µs ({ANSWER_BYTES} B answer; fsynced/unsynced = {:.0}×); a 200 B streamed batch {:.1} µs",
        durable.as_secs_f64() * 1e6,
        unsynced_answer.as_secs_f64() * 1e6,
        durable.as_secs_f64() / unsynced_answer.as_secs_f64(),
        unsynced_chunk.as_secs_f64() * 1e6,
    );
}

/// The demo, at speed 20, recorded whole: its journal's records by kind.
async fn demo_records(root: &std::path::Path) -> (Duration, BTreeMap<String, usize>, u64) {
    let flags = RunFlags {
        out: root.to_path_buf(),
        speed: 20.0,
        ..RunFlags::default()
    };
    let prepared = prepare(Source::Demo, &flags).expect("the demo prepares");
    let run_dir =
        quorum::artifact::RunDir::create(root, "bench", chrono::Local::now()).expect("run folder");
    let path = run_dir.path().join("journal.jsonl");
    let mut journal = Journal::create(&path).expect("journal");
    journal
        .append(
            Utc::now(),
            &JournalEvent::DebateStarted {
                definition: Box::new(prepared.definition.clone()),
                setup: Some(Box::new(prepared.setup.clone())),
            },
        )
        .expect("definition");
    let (tx, _rx) = mpsc::unbounded_channel();
    let started = Instant::now();
    Engine::new(
        Box::new(
            quorum::protocol::decision_review::DecisionReview::from_definition(
                &prepared.definition,
                prepared.prompts,
            )
            .unwrap(),
        ),
        run_dir,
        journal,
        prepared.roster,
        Moderator::policy(ModerationPolicy::Accept),
        tx,
    )
    .run()
    .await
    .expect("the demo runs");
    let elapsed = started.elapsed();
    let contents = read_journal::<JournalEvent>(&path).expect("read back");
    let mut kinds = BTreeMap::new();
    for record in &contents.records {
        let value = serde_json::to_value(&record.event).expect("json");
        let kind = match value["event"].as_str() {
            Some("input") => value["input"]["type"]
                .as_str()
                .unwrap_or("input")
                .to_string(),
            Some(other) => other.to_string(),
            None => "unknown".into(),
        };
        *kinds.entry(kind).or_insert(0) += 1;
    }
    let bytes = std::fs::metadata(&path).map(|meta| meta.len()).unwrap_or(0);
    (elapsed, kinds, bytes)
}

/// Six documents of a debate's size written one at a time (each its own
/// atomic write: fsync of the file and of the folder) against all at once
/// (`RunDir::write_all`: temporaries fsynced side by side, one folder fsync).
fn document_writes() {
    const REPS: usize = 40;
    let dir = tempfile::tempdir().expect("tempdir");
    let run = quorum::artifact::RunDir::create(dir.path(), "bench", chrono::Local::now())
        .expect("run dir");
    let contents: Vec<(String, Vec<u8>)> = [
        "proposal.md",
        "critique.md",
        "revision.md",
        "summary.md",
        "debate.yaml",
        "transcript.md",
    ]
    .iter()
    .map(|name| (name.to_string(), vec![b'x'; 4 * 1024]))
    .collect();
    let files: Vec<(&str, &[u8])> = contents
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let (mut apart, mut together) = (Vec::new(), Vec::new());
    for _ in 0..REPS {
        let started = Instant::now();
        for (name, bytes) in &files {
            run.write(name, bytes).expect("write");
        }
        apart.push(started.elapsed());
        let started = Instant::now();
        run.write_all(&files).expect("write_all");
        together.push(started.elapsed());
    }
    let (apart, together) = (median(apart), median(together));
    println!(
        "journal/documents: six 4 KB files one at a time {:.2} ms, all at once {:.2} ms (ratio {:.2})",
        apart.as_secs_f64() * 1e3,
        together.as_secs_f64() * 1e3,
        apart.as_secs_f64() / together.as_secs_f64(),
    );
}

fn main() {
    appends();
    document_writes();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let root = tempfile::tempdir().expect("tempdir");
    let (elapsed, kinds, bytes) = runtime.block_on(demo_records(root.path()));
    let records: usize = kinds.values().sum();
    let streamed = kinds.get("streamed").copied().unwrap_or(0);
    // Two on create (file and folder), then at most one per record that
    // is neither a streamed batch nor a call started (those ride on the
    // next fsync); inputs that arrive together share one.
    let started = kinds.get("call_started").copied().unwrap_or(0);
    let fsyncs = 2 + records - streamed - started;
    println!(
        "journal/demo: {records} records in {:.1} s ({bytes} bytes): {kinds:?}; at most {fsyncs} journal fsyncs ({streamed} streamed batches and {started} calls started ride on them)",
        elapsed.as_secs_f64()
    );
}
