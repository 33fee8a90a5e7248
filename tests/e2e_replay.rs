//! `quorum replay --headless`: a recorded demo printed back, line for line
//! as the live run printed it, at no less than the recorded pace (scaled by
//! `--speed`, long pauses shortened); and the usage errors.
//!
//! The only timing assertion is a minimum: the replay cannot have waited
//! less than the recording says it must.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use support::run::{Ran, quorum_in};

/// The longest recorded pause a replay keeps, as `quorum replay` documents
/// it (`MAX_REPLAY_GAP_MS`).
const MAX_REPLAY_GAP: Duration = Duration::from_millis(3000);

fn quorum(dir: &Path, args: &[&str]) -> Ran {
    quorum_in(dir, args, &[], None)
}

/// Records the demo under `dir/out`; its folder and the progress lines the
/// live run printed.
fn record_demo(dir: &Path) -> (PathBuf, Vec<String>) {
    let ran = quorum(
        dir,
        &[
            "demo",
            "--headless",
            "--speed",
            "20",
            "--moderation",
            "defer",
            "--out",
            "out",
        ],
    );
    assert!(matches!(ran.code, 0 | 3), "{}", ran.stderr);
    let folders: Vec<PathBuf> = std::fs::read_dir(dir.join("out"))
        .expect("the artifact root")
        .map(|entry| entry.expect("entry").path())
        .collect();
    assert_eq!(folders.len(), 1);
    let lines = ran
        .stderr
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with("quorum:"))
        .map(str::to_string)
        .collect();
    (folders[0].clone(), lines)
}

/// A progress line without its clock time (`# 12:00:00 stage …` →
/// `# stage …`): the live run and the fold may stamp the first entries a
/// few milliseconds apart.
fn without_time(line: &str) -> String {
    let mut chars = line.chars();
    let marker: String = chars.by_ref().take(1).collect();
    let rest: String = chars.skip(10).collect();
    format!("{marker} {rest}")
}

/// The least a replay at `speed` must take: the journal's gaps, each
/// shortened to the cap, divided by the speed.
fn minimum_replay_time(folder: &Path, speed: f64) -> Duration {
    let journal = std::fs::read_to_string(folder.join("journal.jsonl")).expect("journal");
    let times: Vec<chrono::DateTime<chrono::Utc>> = journal
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).expect("JSON");
            record["at"]
                .as_str()
                .expect("a time")
                .parse()
                .expect("an RFC 3339 time")
        })
        .collect();
    let played: Duration = times
        .windows(2)
        .map(|pair| {
            (pair[1] - pair[0])
                .to_std()
                .unwrap_or_default()
                .min(MAX_REPLAY_GAP)
        })
        .sum();
    played.div_f64(speed)
}

#[test]
fn headless_replay_prints_the_transcript_in_order_at_the_recorded_pace() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (folder, live_lines) = record_demo(dir.path());
    let record = folder.to_str().expect("a UTF-8 path");
    let speed = 2.0;
    let minimum = minimum_replay_time(&folder, speed);
    assert!(minimum > Duration::ZERO, "the recording took some time");

    let started = Instant::now();
    let ran = quorum(
        dir.path(),
        &["replay", record, "--headless", "--speed", "2"],
    );
    let took = started.elapsed();
    ran.assert_code(0);
    assert!(
        took >= minimum,
        "the replay took {took:?}, less than the recording's {minimum:?} at ×{speed}"
    );

    let mut printed: Vec<&str> = ran.stdout.lines().collect();
    let outcome = printed.pop().expect("an outcome line");
    assert!(
        outcome.starts_with("ADOPT: ") || outcome.starts_with("REVISE: "),
        "{outcome}"
    );
    let replayed: Vec<String> = printed.iter().map(|line| without_time(line)).collect();
    let live: Vec<String> = live_lines.iter().map(|line| without_time(line)).collect();
    assert_eq!(replayed, live, "the transcript as the live run printed it");
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);
}

#[test]
fn replay_says_what_is_wrong_with_its_arguments() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ran = quorum(dir.path(), &["replay", ".", "--headless"]);
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("is not a debate folder"),
        "{}",
        ran.stderr
    );

    let (folder, _) = record_demo(dir.path());
    let record = folder.to_str().expect("a UTF-8 path");
    for speed in ["0", "20000", "NaN"] {
        let ran = quorum(
            dir.path(),
            &["replay", record, "--headless", "--speed", speed],
        );
        ran.assert_code(2);
        assert!(
            ran.stderr
                .contains("--speed must be between 0.01 and 10000"),
            "{speed}: {}",
            ran.stderr
        );
    }
}
