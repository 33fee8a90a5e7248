//! Comparing debate folders across interruptions: every file but the
//! journal, times blanked, and the answers and decisions a journal holds.
//! Shared by the resume tests and the conformance suite.

use std::collections::BTreeMap;
use std::path::Path;

use std::sync::Arc;

use quorum::artifact::{Journal, RunDir};
use quorum::cli::rebuild;
use quorum::config::detect::SystemEnvironment;
use quorum::engine::resume::{Recorded, fold};
use quorum::engine::{Engine, JournalEvent, Moderator, ResumePoint};
use quorum::prompts::PromptSet;
use quorum::protocol::registry::build;
use quorum::protocol::{Input, Outcome};
use tokio::sync::mpsc;

/// Every file of a debate folder but the journal and the lock, by path.
pub fn tree(dir: &Path) -> BTreeMap<String, String> {
    super::files_under(dir)
        .into_iter()
        .filter(|(name, _)| name != "journal.jsonl" && name != "quorum.lock")
        .map(|(name, bytes)| (name, String::from_utf8(bytes).unwrap()))
        .collect()
}

/// `text` with times blanked: ISO stamps, clock times, and measured
/// durations (a call's latency is timed on the real clock, which the paused
/// test clock does not stop).
pub fn without_times(text: &str) -> String {
    let iso =
        regex::Regex::new(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")
            .unwrap();
    let clock = regex::Regex::new(r"\b\d{2}:\d{2}:\d{2}\b").unwrap();
    let measured = regex::Regex::new(
        r#""?(elapsed_ms|ttft_ms|call_time_ms|duration_ms|took_ms|output_tokens_per_second)"?: [\d.]+"#,
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

pub fn normalised(files: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(path, text)| (path.clone(), without_times(text)))
        .collect()
}

/// What `transcript.md` says where a run is picked up again: the one line
/// a resumed run has that an uninterrupted one cannot.
pub const RESUMED_LINE: &str = "and is resumed here";

/// `text` of `path` without the line that says where the run resumed, of
/// which a run resumed once has at most one.
fn without_the_resume(path: &str, text: &str, cut: usize) -> String {
    if path != "transcript.md" {
        return text.to_string();
    }
    let said = text.matches(RESUMED_LINE).count();
    assert!(said <= 1, "cut after record {cut}: {said} resumes said");
    text.split('\n')
        .filter(|line| !line.contains(RESUMED_LINE))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Fails naming the first file and line that differ, the line that says
/// where the run resumed aside.
pub fn assert_same_tree(
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
        let got = &without_the_resume(path, &actual[path], cut);
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
pub fn settled_inputs(journal: &str) -> Vec<Input> {
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

/// The kind of a journal line: its event, or its input's type.
pub fn cut_kind(line: &str) -> String {
    let record: serde_json::Value = serde_json::from_str(line).unwrap();
    let event = &record["event"];
    match event["event"].as_str() {
        Some("input") => event["input"]["type"].as_str().unwrap().to_string(),
        Some(other) => other.to_string(),
        None => panic!("no event in {line}"),
    }
}

/// Folds `dir`'s journal through its protocol, from the registry, and,
/// unless it is finished, resumes it to the end with the agents its setup
/// recorded and `moderator` deciding the items still undecided.
pub async fn resume(dir: &Path, moderator: Moderator) -> Option<Outcome> {
    let recorded = Recorded::read(dir).unwrap();
    let setup = recorded.setup.clone().expect("the setup is journaled");
    let protocol = build(&recorded.definition, Arc::new(PromptSet::builtin())).unwrap();
    let folded = fold(protocol, &recorded.records, &mut |_, _| {});
    if folded.is_finished() {
        return None;
    }
    let point = ResumePoint::new(&folded, &recorded.records);
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
    Some(engine.resume(point, false).await.unwrap().0)
}
