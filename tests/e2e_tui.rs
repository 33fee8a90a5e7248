//! The real `quorum` binary in a pseudo-terminal, driven by key presses:
//! a whole moderated demo to its verdict and its record on disk, resizing
//! while agents stream, the override modal's retry, the quit question, the
//! terminal put back as it was on every way out (quit, verdict, SIGTERM), a
//! recorded debate replayed (paused, sped up) without a byte written, and a
//! finished debate opened to accept a deferred item with a note.
//!
//! Every wait is for something the screen shows (or for the process to end),
//! with limits far above what the runs need; nothing is timed.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use quorum::config::roles::{AgentDetail, AgentSpec};
use serde_json::Value as Json;
use support::pty::{PtyRun, rfind_bytes};
use support::{ScriptBuilder, scripted_spec, spec_yaml};
use yaml_serde::Value as Yaml;

/// Limit on any one wait for the screen or for the process to exit.
const WAIT: Duration = Duration::from_secs(30);

/// Ends a synchronized update: the app wraps every frame in one.
const FRAME_END: &[u8] = b"\x1b[?2026l";
const LEAVE_ALTERNATE_SCREEN: &[u8] = b"\x1b[?1049l";
const MOUSE_REPORTING_OFF: &[u8] = b"\x1b[?1000l";
const CURSOR_SHOWN: &[u8] = b"\x1b[?25h";

/// The demo's critique items in order: `(id, target block)`.
const DEMO_ITEMS: [(&str, &str); 6] = [
    ("c1", "b1"),
    ("c2", "b2"),
    ("c3", "b2"),
    ("c4", "b3"),
    ("c5", "b4"),
    ("c6", "b2"),
];

fn demo_note(item_id: &str) -> String {
    format!("ask the data team about {item_id} first")
}

/// The row of the items list that shows `item_id` (the transcript spells
/// items `c1→b1`, never `c1  b1`).
fn item_row<'a>(screen: &'a str, item_id: &str, target: &str) -> Option<&'a str> {
    let cells = format!("{item_id}  {target}");
    screen.lines().find(|line| line.contains(&cells))
}

fn wait_for_item(run: &PtyRun, item_id: &str, target: &str, shows: &[&str]) {
    run.wait_until(
        &format!("item {item_id} showing {shows:?}"),
        WAIT,
        |screen| {
            let contents = screen.contents();
            item_row(&contents, item_id, target)
                .is_some_and(|row| shows.iter().all(|text| row.contains(text)))
        },
    );
}

/// The one run folder under `out`.
fn run_folder(out: &Path) -> PathBuf {
    let entries: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap_or_else(|error| panic!("no artifact root {}: {error}", out.display()))
        .map(|entry| entry.expect("folder entry").path())
        .collect();
    assert_eq!(entries.len(), 1, "one run folder in {}", out.display());
    entries[0].clone()
}

fn read(folder: &Path, relative: &str) -> String {
    std::fs::read_to_string(folder.join(relative))
        .unwrap_or_else(|error| panic!("read {relative}: {error}"))
}

/// The `input` events of the journal, in order.
fn journal_inputs(folder: &Path) -> Vec<Json> {
    read(folder, "journal.jsonl")
        .lines()
        .map(|line| serde_json::from_str::<Json>(line).expect("a journal line is JSON"))
        .filter(|record| record["event"]["event"] == "input")
        .map(|record| record["event"]["input"].clone())
        .collect()
}

/// The terminal is as the program found it: main screen, no mouse
/// reporting, cursor shown, canonical mode and echo back on, and the
/// sequences that undo the TUI's modes written after the last frame.
fn assert_terminal_restored(run: &PtyRun) {
    let raw = run.raw_output();
    let last_frame = rfind_bytes(&raw, FRAME_END).expect("at least one frame was drawn");
    for (sequence, name) in [
        (LEAVE_ALTERNATE_SCREEN, "leave the alternate screen"),
        (MOUSE_REPORTING_OFF, "mouse reporting off"),
        (CURSOR_SHOWN, "cursor shown"),
    ] {
        let at =
            rfind_bytes(&raw, sequence).unwrap_or_else(|| panic!("the output never says: {name}"));
        assert!(at > last_frame, "{name} comes after the last frame");
    }
    let (alternate, mouse) = run.screen_modes();
    assert!(!alternate, "back on the main screen");
    assert_eq!(mouse, vt100::MouseProtocolMode::None, "no mouse reporting");
    let modes = run.local_modes();
    assert!(
        modes & libc::ICANON != 0 && modes & libc::ECHO != 0,
        "raw mode is off again (line editing and echo): c_lflag {modes:#o}"
    );
}

/// The artifact root, relative to the folder each test runs in.
const OUT: &str = "out";

/// `quorum demo` in `dir`, recording under `dir/out`.
fn spawn_demo(dir: &Path, speed: &str, cols: u16, rows: u16) -> PtyRun {
    PtyRun::spawn(&["demo", "--out", OUT, "--speed", speed], dir, cols, rows)
}

/// Expected exit code for a verdict word.
fn exit_code_of(verdict: &str) -> u32 {
    match verdict {
        "ADOPT" => 0,
        "REVISE" => 3,
        "REJECT" => 4,
        "ESCALATE" => 5,
        other => panic!("not a verdict: {other}"),
    }
}

#[test]
fn moderates_the_demo_to_a_verdict() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join(OUT);
    let mut run = spawn_demo(dir.path(), "6", 120, 40);

    run.wait_for("needs moderator", WAIT);
    run.wait_for("6 to decide", WAIT);

    run.send("a");
    wait_for_item(&run, "c1", "b1", &["accept"]);
    run.send("r");
    wait_for_item(&run, "c2", "b2", &["reject"]);
    // A note written before the decision is kept and goes with it; the
    // cursor then moves on to the next undecided item.
    for (item_id, target) in &DEMO_ITEMS[2..] {
        run.send("n");
        run.wait_for(&format!("Note on {item_id}"), WAIT);
        run.send(demo_note(item_id));
        run.wait_for(&demo_note(item_id), WAIT);
        run.send("\x13"); // Ctrl-S
        run.wait_for(
            &format!("note kept; it goes with {item_id}'s decision"),
            WAIT,
        );
        run.send("d");
        wait_for_item(&run, item_id, target, &["defer", "✎"]);
    }
    run.wait_for("all decided", WAIT);
    run.send("s");
    run.wait_until("moderation submitted", WAIT, |screen| {
        !screen.contents().contains("needs moderator")
    });

    // The aesthete times out once in round 1 and is retried by quorum's own
    // rule; its modal stays up while the retry runs and closes by itself
    // once the retry answers, so it may or may not be seen here.
    run.wait_until("the aesthete's modal or the verdict", WAIT, |screen| {
        let contents = screen.contents();
        contents.contains("Aesthete timed out") || contents.contains("Written to")
    });
    if run.screen_text().contains("Aesthete timed out") {
        run.send_escape();
    }
    run.wait_for("Written to", WAIT);
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_terminal_restored(&run);

    // After the TUI, the main screen shows the verdict line and the record.
    let after = run.screen_text();
    let verdict = after
        .lines()
        .find_map(|line| line.split_once(':').map(|(word, _)| word.trim()))
        .expect("a verdict line after the interface closed");
    assert!(
        matches!(verdict, "ADOPT" | "REVISE"),
        "the demo ends in ADOPT or REVISE, not {verdict}:\n{after}"
    );
    assert!(after.contains("Full record:"), "{after}");
    assert_eq!(status.signal(), None);
    assert_eq!(status.exit_code(), exit_code_of(verdict), "{after}");

    let folder = run_folder(&out);
    let decisions: Vec<(String, String, Option<String>)> = journal_inputs(&folder)
        .iter()
        .filter(|input| input["type"] == "item_decided")
        .map(|input| {
            (
                input["item_id"].as_str().expect("item id").to_string(),
                input["decision"].as_str().expect("decision").to_string(),
                input["note"].as_str().map(str::to_string),
            )
        })
        .collect();
    let mut expected = vec![
        ("c1".to_string(), "accept".to_string(), None),
        ("c2".to_string(), "reject".to_string(), None),
    ];
    for (item_id, _) in &DEMO_ITEMS[2..] {
        expected.push((
            item_id.to_string(),
            "defer".to_string(),
            Some(demo_note(item_id)),
        ));
    }
    assert_eq!(decisions, expected, "item_decided inputs in the journal");
    assert!(
        journal_inputs(&folder)
            .iter()
            .any(|input| input["type"] == "moderation_submitted"),
        "the submission is journaled"
    );

    let critique = read(&folder, "critique.md");
    for (item_id, _) in DEMO_ITEMS {
        let section = critique
            .split("### ")
            .find(|section| section.starts_with(&format!("{item_id} ")))
            .unwrap_or_else(|| panic!("critique.md has no section for {item_id}"));
        let decision = section
            .lines()
            .find(|line| line.starts_with("Decision: "))
            .unwrap_or_else(|| panic!("{item_id} has no decision line"));
        match item_id {
            "c1" => assert!(decision.contains("**ACCEPTED**"), "{decision}"),
            "c2" => assert!(decision.contains("**REJECTED**"), "{decision}"),
            _ => {
                assert!(decision.contains("**DEFERRED**"), "{decision}");
                assert!(
                    decision.contains(&format!("moderator's note: {}", demo_note(item_id))),
                    "{decision}"
                );
            }
        }
    }

    let debate: Yaml = yaml_serde::from_str(&read(&folder, "debate.yaml")).expect("YAML");
    let items = debate["stages"]["critique"]["critiques"]
        .as_sequence()
        .expect("critique items in debate.yaml");
    let recorded: Vec<(&str, &str, Option<&str>)> = items
        .iter()
        .map(|item| {
            (
                item["id"].as_str().expect("id"),
                item["decision"].as_str().expect("decision"),
                item["note"].as_str(),
            )
        })
        .collect();
    let expected_recorded: Vec<(&str, &str, Option<&str>)> = expected
        .iter()
        .map(|(id, decision, note)| (id.as_str(), decision.as_str(), note.as_deref()))
        .collect();
    assert_eq!(recorded, expected_recorded, "decisions in debate.yaml");
    let deferred: Vec<&str> = debate["deferred_items"]
        .as_sequence()
        .expect("deferred items")
        .iter()
        .map(|item| item["id"].as_str().expect("id"))
        .collect();
    assert_eq!(deferred, ["c3", "c4", "c5", "c6"]);
}

#[test]
fn resize_during_streaming_keeps_drawing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join(OUT);
    let mut run = spawn_demo(dir.path(), "3", 200, 60);

    run.wait_until("the proposer streaming", WAIT, |screen| {
        let contents = screen.contents();
        contents.contains("Proposer") && contents.contains("streaming")
    });
    run.resize(80, 24);
    // Narrow: a tab strip under the two header rows, one region at a time.
    // (The transcript is a tab there, not a region of its own.)
    run.wait_until("the tab strip on row 3", WAIT, |screen| {
        let tabs = screen.rows(0, 80).nth(2).unwrap_or_default();
        tabs.contains("Critique items")
            && tabs.contains("│Transcript")
            && screen.contents().matches("Transcript").count() == 1
    });
    run.resize(200, 60);
    run.wait_until("the wide layout again", WAIT, |screen| {
        let contents = screen.contents();
        let row_3 = screen.rows(0, 200).nth(2).unwrap_or_default();
        !row_3.contains("│Transcript")
            && contents.contains(" Transcript ")
            && contents.contains("Critique items")
    });
    // And it goes on drawing as the debate moves: the critique arrives.
    run.wait_for("to decide", WAIT);

    run.send("q");
    run.wait_for("Quit?", WAIT);
    run.send("y");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.signal(), None);
    assert_eq!(status.exit_code(), 1, "interrupted");
    assert_terminal_restored(&run);
    let folder = run_folder(&out);
    assert!(
        read(&folder, "journal.jsonl").lines().count() > 1,
        "the run folder holds a journal"
    );
}

/// Seconds the aesthete has per attempt in the retry test: long enough that
/// its hung second attempt is still running when the modal's key arrives.
const AESTHETE_DEADLINE_SECS: f64 = 4.0;

#[test]
fn timeout_modal_retry_now() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The aesthete's first two attempts hang; any later attempt answers.
    let script = ScriptBuilder::adopt_path()
        .fault("judge.aesthete", "evaluation", Some(1), Some(1), "timeout")
        .fault("judge.aesthete", "evaluation", Some(1), Some(2), "timeout")
        .build();
    let mut spec = scripted_spec("Should the nightly batch move to streaming?", script);
    spec.agents.insert(
        "judge.aesthete".to_string(),
        AgentSpec::Full(AgentDetail {
            provider: "script".into(),
            model: None,
            timeout_secs: Some(AESTHETE_DEADLINE_SECS),
            idle_timeout_secs: None,
            max_retries: None,
            family: None,
        }),
    );
    let spec_path = dir.path().join("spec.yaml");
    std::fs::write(&spec_path, spec_yaml(&spec)).expect("write the spec");
    let out = dir.path().join(OUT);
    let mut run = PtyRun::spawn(
        &["run", "spec.yaml", "--out", OUT, "--moderation", "accept"],
        dir.path(),
        120,
        40,
    );

    // quorum has already started the second attempt when the modal shows.
    let second_attempt = "judge.aesthete/evaluation/r1/a2";
    run.wait_until("the timeout modal over the retry", WAIT, |screen| {
        let contents = screen.contents();
        contents.contains("Aesthete timed out")
            && contents.contains(&format!("quorum is running {second_attempt} now"))
    });
    run.send("r");
    run.wait_for("Written to", WAIT);
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.signal(), None);
    assert_eq!(status.exit_code(), 0, "ADOPT:\n{}", run.screen_text());
    assert_terminal_restored(&run);

    let folder = run_folder(&out);
    let overrides: Vec<Json> = journal_inputs(&folder)
        .into_iter()
        .filter(|input| input["type"] == "override")
        .collect();
    assert_eq!(overrides.len(), 1, "one override: {overrides:?}");
    assert_eq!(overrides[0]["call_id"], second_attempt);
    assert_eq!(overrides[0]["action"], "retry_now");
    let transcript = read(&folder, "transcript.md");
    assert!(
        transcript.contains("moderator: retry judge.aesthete now"),
        "the transcript records the moderator's retry:\n{transcript}"
    );
    assert!(
        transcript.contains("judge.aesthete/evaluation/r1/a3"),
        "a third attempt ran"
    );
}

/// With a person moderating, a round whose stylist answered something
/// unparseable waits; `m` in the modal re-runs the stylist with the same
/// prompt and the debate reaches its verdict on the new answer.
#[test]
fn a_held_round_reruns_a_malformed_judge_from_the_modal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = ScriptBuilder::adopt_path()
        .fault("judge.stylist", "evaluation", Some(1), Some(1), "malformed")
        .build();
    let spec = scripted_spec("Should the nightly batch move to streaming?", script);
    std::fs::write(dir.path().join("spec.yaml"), spec_yaml(&spec)).expect("write the spec");
    let out = dir.path().join(OUT);
    let mut run = PtyRun::spawn(&["run", "spec.yaml", "--out", OUT], dir.path(), 120, 40);

    run.wait_for("to decide", WAIT);
    // `a` accepts the item under the cursor and moves to the next open one.
    for _ in 0..8 {
        run.send("a");
    }
    run.wait_until("every item decided", WAIT, |screen| {
        !screen.contents().contains("to decide")
    });
    run.send("s");
    run.wait_for("the round waits for you", WAIT);
    run.send("m");
    run.wait_for("Written to", WAIT);
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.exit_code(), 0, "ADOPT:\n{}", run.screen_text());
    assert_terminal_restored(&run);

    let folder = run_folder(&out);
    let overrides: Vec<Json> = journal_inputs(&folder)
        .into_iter()
        .filter(|input| input["type"] == "override")
        .collect();
    assert_eq!(overrides.len(), 1, "one override: {overrides:?}");
    assert_eq!(overrides[0]["call_id"], "judge.stylist/evaluation/r1/a1");
    assert_eq!(overrides[0]["action"], "rerun");
    let transcript = read(&folder, "transcript.md");
    assert!(
        transcript.contains("re-run stylist or go on without it"),
        "{transcript}"
    );
    assert!(
        transcript.contains("moderator: re-run stylist"),
        "{transcript}"
    );
    let replaced = read(&folder, "judges/judge-stylist-attempt-1.md");
    assert!(
        replaced.starts_with("<!-- MALFORMED"),
        "the malformed answer keeps its own file:\n{replaced}"
    );
    let stylist = read(&folder, "judges/judge-stylist.md");
    assert!(
        !stylist.starts_with("<!-- MALFORMED"),
        "the re-run's answer replaced the malformed one:\n{stylist}"
    );
}

#[test]
fn quit_asks_and_restores() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join(OUT);
    let mut run = spawn_demo(dir.path(), "4", 120, 40);

    run.wait_for("streaming", WAIT);
    run.send("q");
    run.wait_for("Quit?", WAIT);
    run.send("n");
    run.wait_until("the question gone", WAIT, |screen| {
        !screen.contents().contains("Quit?")
    });
    // Still running: the debate reaches the moderation.
    run.wait_for("to decide", WAIT);
    run.send("q");
    run.wait_for("Quit?", WAIT);
    run.send("y");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.signal(), None);
    assert_eq!(status.exit_code(), 1, "interrupted");
    assert_terminal_restored(&run);

    let folder = run_folder(&out);
    let after = run.screen_text();
    let relative = folder
        .strip_prefix(dir.path())
        .expect("the run folder is under the temp dir");
    assert!(
        after.contains("stopped before it finished")
            && after.contains(&relative.display().to_string()),
        "the screen says where the record is:\n{after}"
    );
    assert!(
        after.contains(&format!(
            "continue it with: quorum resume {}",
            relative.display()
        )),
        "the screen says how to go on:\n{after}"
    );
    assert!(folder.join("journal.jsonl").is_file());
    assert!(!folder.join("quorum.lock").exists(), "the lock is let go");

    // The command it printed finishes the debate. A person was moderating,
    // so without the interface the items left are asked on stdin; here a
    // policy decides them.
    let folder_arg = relative.display().to_string();
    let asked = support::run::quorum_in(
        dir.path(),
        &["resume", &folder_arg, "--headless"],
        &[],
        None,
    );
    asked.assert_code(1);
    assert!(
        asked
            .stderr
            .contains("stdin closed before every item was decided"),
        "{}",
        asked.stderr
    );
    let resumed = support::run::quorum_in(
        dir.path(),
        &[
            "resume",
            &folder_arg,
            "--headless",
            "--moderation",
            "accept",
        ],
        &[],
        None,
    );
    resumed.assert_code(0);
    assert!(folder.join("summary.md").is_file());
}

#[test]
fn sigterm_while_streaming_restores_the_terminal() {
    signal_while_streaming_restores_the_terminal(libc::SIGTERM, "SIGTERM");
}

/// The same for an interrupt sent from outside (in raw mode Ctrl-C is a
/// key, so SIGINT only comes from `kill`) and for a closed terminal.
#[test]
fn sigint_and_sighup_restore_the_terminal_too() {
    signal_while_streaming_restores_the_terminal(libc::SIGINT, "SIGINT");
    signal_while_streaming_restores_the_terminal(libc::SIGHUP, "SIGHUP");
}

fn signal_while_streaming_restores_the_terminal(signal: libc::c_int, name: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut run = spawn_demo(dir.path(), "2", 120, 40);

    // The rate shows once text has streamed for a while.
    run.wait_for("tok/s", WAIT);
    let pid = libc::pid_t::try_from(run.pid()).expect("a pid");
    // SAFETY: plain kill(2) on our own child.
    let sent = unsafe { libc::kill(pid, signal) };
    assert_eq!(sent, 0, "{name} sent");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.signal(), None, "quorum handles {name} itself");
    assert_eq!(status.exit_code(), 1, "interrupted");
    assert_terminal_restored(&run);
    assert!(
        run.screen_text().contains("stopped before it finished")
            && run
                .screen_text()
                .contains("continue it with: quorum resume "),
        "{}",
        run.screen_text()
    );
}

/// A finished demo whose critique items were all deferred, recorded
/// headless under `dir/out`: its folder.
fn deferred_demo_record(dir: &Path) -> PathBuf {
    let ran = support::run::quorum_in(
        dir,
        &[
            "demo",
            "--headless",
            "--speed",
            "20",
            "--moderation",
            "defer",
            "--out",
            OUT,
        ],
        &[],
        None,
    );
    assert!(
        matches!(ran.code, 0 | 3),
        "the demo reaches a verdict:\n{}",
        ran.stderr
    );
    run_folder(&dir.join(OUT))
}

/// `folder` relative to `dir`, as an argument for a run in `dir`.
fn relative(folder: &Path, dir: &Path) -> String {
    folder
        .strip_prefix(dir)
        .expect("the record is under the test's folder")
        .display()
        .to_string()
}

/// Every file of `folder` with its bytes.
fn snapshot_files(folder: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    support::files_under(folder)
}

#[test]
fn replays_a_recorded_debate_to_its_verdict_without_writing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = deferred_demo_record(dir.path());
    let before = snapshot_files(&folder);
    let record = relative(&folder, dir.path());
    let mut run = PtyRun::spawn(&["replay", &record, "--speed", "50"], dir.path(), 120, 40);

    run.wait_for("replay ×50", WAIT);
    // The verdict view, as at the end of a live run.
    run.wait_for("Written to", WAIT);
    // Keys that would moderate a live debate do nothing here.
    run.send("as");
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.signal(), None);
    assert_eq!(status.exit_code(), 0, "{}", run.screen_text());
    assert_terminal_restored(&run);
    let after = run.screen_text();
    assert!(
        after.contains("ADOPT:") || after.contains("REVISE:"),
        "the verdict line after the interface:\n{after}"
    );
    assert_eq!(
        snapshot_files(&folder),
        before,
        "a replay writes nothing, not even a lock"
    );
}

#[test]
fn a_replay_pauses_and_changes_its_speed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = deferred_demo_record(dir.path());
    let record = relative(&folder, dir.path());
    // A tenth of the recorded pace: it only ends in time once sped up.
    let mut run = PtyRun::spawn(&["replay", &record, "--speed", "0.1"], dir.path(), 120, 40);

    run.wait_for("replay ×0.1 ", WAIT);
    run.send(" ");
    run.wait_for(" paused ", WAIT);
    run.send("+");
    run.wait_for("replay ×0.2 ", WAIT);
    run.send("--");
    run.wait_for("replay ×0.05 ", WAIT);
    run.send(" ");
    run.wait_until("the replay going on", WAIT, |screen| {
        !screen.contents().contains(" paused ")
    });
    // ×0.05 doubled ten times is ×51.2.
    run.send("++++++++++");
    run.wait_for("replay ×51.2 ", WAIT);
    run.wait_for("Written to", WAIT);
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.exit_code(), 0, "{}", run.screen_text());
    assert_terminal_restored(&run);
}

#[test]
fn open_accepts_a_deferred_item_with_a_note() {
    const NOTE: &str = "finance agreed to compare the ledger first";
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = deferred_demo_record(dir.path());
    let record = relative(&folder, dir.path());
    let mut run = PtyRun::spawn(&["open", &record], dir.path(), 120, 40);

    run.wait_for("archive", WAIT);
    run.wait_for("6 to settle", WAIT);
    run.send("n");
    run.wait_for("Note on c1, for its settlement", WAIT);
    run.send(NOTE);
    run.wait_for(NOTE, WAIT);
    run.send("\x13"); // Ctrl-S
    run.wait_for("note kept; a accepts c1", WAIT);
    run.send("a");
    // Issue 62: it asks first, showing what will be recorded.
    run.wait_for("Record c1 as accepted after the verdict?", WAIT);
    run.wait_for("with your note: finance", WAIT);
    run.send("y");
    wait_for_item(&run, "c1", "b1", &["defer", "→accept"]);
    run.wait_for("5 to settle", WAIT);
    run.wait_for("--reopen", WAIT);
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.signal(), None);
    assert_eq!(status.exit_code(), 0, "{}", run.screen_text());
    assert_terminal_restored(&run);
    let after = run.screen_text();
    assert!(
        after.contains(&format!("c1 accepted after the verdict: {NOTE}")),
        "{after}"
    );
    assert!(after.contains("--reopen"), "{after}");
    assert!(
        !folder.join("quorum.lock").exists(),
        "the lock is let go on the way out"
    );

    let resolved: Vec<Json> = journal_inputs(&folder)
        .into_iter()
        .filter(|input| input["type"] == "item_resolved")
        .collect();
    assert_eq!(resolved.len(), 1, "one settlement: {resolved:?}");
    assert_eq!(resolved[0]["item_id"], "c1");
    assert_eq!(resolved[0]["decision"], "accept");
    assert_eq!(resolved[0]["note"], NOTE);

    let critique = read(&folder, "critique.md");
    let section = critique
        .split("### ")
        .find(|section| section.starts_with("c1 "))
        .expect("critique.md has a section for c1");
    assert!(
        section.contains("→ **ACCEPTED** after the verdict") && section.contains(NOTE),
        "{section}"
    );
    let debate: Yaml = yaml_serde::from_str(&read(&folder, "debate.yaml")).expect("YAML");
    let c1 = debate["stages"]["critique"]["critiques"]
        .as_sequence()
        .expect("critique items in debate.yaml")
        .iter()
        .find(|item| item["id"].as_str() == Some("c1"))
        .expect("c1 in debate.yaml");
    assert_eq!(c1["decision"].as_str(), Some("defer"));
    assert_eq!(
        c1["resolution"]["decision"].as_str(),
        Some("accept"),
        "{c1:?}"
    );
    assert_eq!(c1["resolution"]["note"].as_str(), Some(NOTE));
    assert!(c1["resolution"]["at"].as_str().is_some(), "with its time");
}

#[test]
fn resume_in_the_interface_shows_what_was_finished_and_asks_for_the_rest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ran = support::run::quorum_in(
        dir.path(),
        &["demo", "--headless", "--speed", "50", "--out", OUT],
        &[],
        None,
    );
    ran.assert_code(0);
    let folder = run_folder(&dir.path().join(OUT));
    // Cut the journal where a crash during moderation would have: the
    // critique is in, no item is decided.
    let journal = read(&folder, "journal.jsonl");
    let kept: String = journal
        .lines()
        .take_while(|line| !line.contains(r#""type":"item_decided""#))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(folder.join("journal.jsonl"), kept).expect("cut the journal");

    let relative = relative(&folder, dir.path());
    let mut run = PtyRun::spawn(&["resume", &relative], dir.path(), 120, 40);
    // What was finished is on screen at once, and the person decides the rest.
    run.wait_for("6 to decide", WAIT);
    run.wait_until("the proposer's and the critic's answers", WAIT, |screen| {
        let text = screen.contents();
        text.contains("needs moderator")
            && text.matches("scripted ─").count() >= 2
            && text.matches(" done ╮").count() >= 2
    });
    for _ in 0..6 {
        run.send("a");
    }
    run.wait_for("all decided", WAIT);
    run.send("s");
    run.wait_for("Written to", WAIT);
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.exit_code(), 0, "{}", run.screen_text());
    assert_terminal_restored(&run);
    let inputs = journal_inputs(&folder);
    let decided = inputs
        .iter()
        .filter(|input| input["type"] == "item_decided")
        .count();
    assert_eq!(decided, 6);
    assert!(read(&folder, "journal.jsonl").contains(r#""event":"resumed""#));
    assert!(read(&folder, "summary.md").contains("ADOPT"));
}

/// A quick mode in the real interface: the red team's findings are triaged
/// with single keys (a reject with a note), the layout has no score board,
/// and the result view shows the protocol's own deliverable, opening first.
#[test]
fn a_red_team_is_triaged_at_the_keyboard_and_ends_on_its_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join(OUT);
    let mut run = PtyRun::spawn(
        &[
            "demo",
            "--protocol",
            "redteam",
            "--out",
            OUT,
            "--speed",
            "20",
        ],
        dir.path(),
        200,
        60,
    );
    run.wait_until("the findings wait for the moderator", WAIT, |screen| {
        screen.contents().contains("6 to decide")
    });
    let screen = run.screen_text();
    assert!(!screen.contains("Scores"), "no score board for a red team");
    assert!(screen.contains("Red team ▸ Triage ▸ Synthesis ▸ Done"));
    for _ in 0..5 {
        run.send("a");
    }
    run.send("r");
    run.send("n");
    run.send("the compare runs on a hash");
    run.send("\x13"); // Ctrl-S keeps the note
    run.wait_until("every finding decided", WAIT, |screen| {
        screen.contents().contains("all decided · s submits")
    });
    run.send("s");
    run.wait_until("the result view", WAIT, |screen| {
        let contents = screen.contents();
        contents.contains("DONE") && contents.contains("Anyone on the internet can take over")
    });
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert!(status.success(), "{status:?}");
    let folder = run_folder(&out);
    let report = read(&folder, "red-team-report.md");
    assert!(report.contains("## Findings set aside"), "{report}");
    assert!(report.contains("the compare runs on a hash"), "{report}");
    let inputs = journal_inputs(&folder);
    // The note goes with the decision again, the latest word on v6.
    let v6 = inputs
        .iter()
        .rfind(|input| input["type"] == "item_decided" && input["item_id"] == "v6")
        .expect("v6 was decided");
    assert_eq!(v6["decision"], "reject");
    assert_eq!(v6["note"], "the compare runs on a hash");
    assert!(
        inputs
            .iter()
            .filter(|input| input["decision"] == "reject")
            .all(|input| input["item_id"] == "v6")
    );
    assert_terminal_restored(&run);
}

/// At 80×24 an item longer than its pop-up scrolls: the pop-up says which
/// rows show and how to scroll, `j`, `↓` and `PgDn` move down to the end of
/// the item, `k` moves back, and the decision keys stay on screen all along.
/// The selected item below the list scrolls with `PgDn` as well.
#[test]
fn a_long_item_scrolls_in_its_pop_up_at_80x24() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sentences: Vec<String> = (1..=40)
        .map(|n| format!("Point {n:02} of the argument stands on its own."))
        .collect();
    let description = format!("{} LAST-WORDS.", sentences.join(" "));
    let critique = format!(
        "One long item.\n\n```yaml\ncritiques:\n  - target_block: b1\n    steelman: \"b1 holds.\"\n    \
         flaw_type: risk\n    severity: major\n    description: \"{description}\"\n```\n"
    );
    let script = ScriptBuilder::adopt_path()
        .reply("critic", "critique", None, None, &critique)
        .build();
    let spec = scripted_spec("Should the nightly batch move to streaming?", script);
    std::fs::write(dir.path().join("spec.yaml"), spec_yaml(&spec)).expect("write the spec");
    let mut run = PtyRun::spawn(&["run", "spec.yaml", "--out", OUT], dir.path(), 80, 24);
    run.wait_until("the item waits for a decision", WAIT, |screen| {
        screen.contents().contains("1 to decide")
    });
    // Below the list, the item in full says there is more.
    run.wait_for("PgDn more", WAIT);
    run.send("\x1b[6~");
    run.wait_until(
        "the item below the list scrolled to its end",
        WAIT,
        |screen| screen.contents().contains("LAST-WORDS"),
    );

    run.send("\r");
    run.wait_until("the pop-up says how to scroll", WAIT, |screen| {
        let contents = screen.contents();
        contents.contains("j/k PgDn/PgUp scroll") && contents.contains("rows 1–")
    });
    assert!(
        !run.screen_text().contains("LAST-WORDS"),
        "{}",
        run.screen_text()
    );
    run.send("j");
    run.wait_for("rows 2–", WAIT);
    run.send("\x1b[B"); // ↓
    run.wait_for("rows 3–", WAIT);
    run.send("\x1b[6~"); // PgDn
    run.send("\x1b[6~");
    run.send("\x1b[6~");
    run.wait_until("the end of the item", WAIT, |screen| {
        let contents = screen.contents();
        contents.contains("LAST-WORDS") && contents.contains("a accept")
    });
    let (first, last, of) = pop_up_rows(&run.screen_text()).expect("the pop-up's rows");
    assert_eq!(last, of, "scrolled to the last row");
    assert!(first > 3, "PgDn moves by pages: {first}");
    run.send("k");
    run.wait_until("one row back", WAIT, |screen| {
        pop_up_rows(&screen.contents()).is_some_and(|(now, _, _)| now + 1 == first)
    });
    // The decision keys work from the pop-up; then the decisions go in.
    run.send("a");
    run.wait_for("all decided", WAIT);
    run.send("s");
    run.wait_for("Written to", WAIT);
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.exit_code(), 0, "{}", run.screen_text());
    assert_terminal_restored(&run);
}

/// `(first, last, total)` of the pop-up's "rows A–B of N".
fn pop_up_rows(screen: &str) -> Option<(usize, usize, usize)> {
    let pattern = regex::Regex::new(r"rows (\d+)–(\d+) of (\d+)").expect("a pattern");
    let found = pattern.captures(screen)?;
    let number = |index: usize| found[index].parse::<usize>().ok();
    Some((number(1)?, number(2)?, number(3)?))
}

/// A spec whose proposer and analyst are of one model family (the scripted
/// agents have none of their own, so the spec gives them one).
fn kin_spec(dir: &Path) {
    let script = ScriptBuilder::adopt_path().build();
    let mut spec = scripted_spec("Should the nightly batch move to streaming?", script);
    for slot in ["proposer", "judge.analyst"] {
        spec.agents.insert(
            slot.to_string(),
            AgentSpec::Full(AgentDetail {
                provider: "script".into(),
                model: None,
                timeout_secs: None,
                idle_timeout_secs: None,
                max_retries: None,
                family: Some("anthropic".into()),
            }),
        );
    }
    std::fs::write(dir.join("spec.yaml"), spec_yaml(&spec)).expect("write the spec");
}

/// Issue 29, end to end: the analyst shares the proposer's family, so under
/// the default policy it scores and is flagged, on screen, in debate.yaml
/// and in transcript.md.
#[test]
fn a_judge_of_the_proposers_family_is_flagged_on_screen_and_in_the_record() {
    let dir = tempfile::tempdir().expect("temp dir");
    kin_spec(dir.path());
    let mut run = PtyRun::spawn(
        &["run", "spec.yaml", "--out", OUT, "--moderation", "accept"],
        dir.path(),
        200,
        60,
    );
    let flagged = "judge.analyst shares the proposer's model family (anthropic): flagged";
    // The verdict's rule, as the verdict screen wraps it.
    run.wait_until("the verdict flags the analyst", WAIT, |screen| {
        let contents = screen.contents();
        let words: Vec<&str> = contents
            .split(|c: char| c.is_whitespace() || c == '┃')
            .filter(|word| !word.is_empty())
            .collect();
        words.join(" ").contains(&format!("ADOPT ({flagged})"))
    });
    run.wait_for("Written to", WAIT);
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.exit_code(), 0, "ADOPT:\n{}", run.screen_text());

    let folder = run_folder(&dir.path().join(OUT));
    let yaml: Yaml = yaml_serde::from_str(&read(&folder, "debate.yaml")).expect("debate.yaml");
    let analyst = &yaml["stages"]["evaluation"]["judges"][0];
    assert_eq!(analyst["status"].as_str(), Some("scored"));
    assert_eq!(analyst["kinship"]["policy"].as_str(), Some("flag"));
    assert_eq!(analyst["kinship"]["family"].as_str(), Some("anthropic"));
    assert!(
        yaml["stages"]["evaluation"]["rule"]
            .as_str()
            .is_some_and(|rule| rule.contains(flagged)),
        "{:?}",
        yaml["stages"]["evaluation"]["rule"]
    );
    let transcript = read(&folder, "transcript.md");
    assert!(transcript.contains(flagged), "{transcript}");
    assert!(transcript.contains("agreement"), "{transcript}");
}

/// Issue 29, end to end: `--recusal recuse` leaves the analyst out; it is
/// the binding judge, so the verdict cannot be ADOPT and says why.
#[test]
fn recusal_recuse_leaves_the_binding_judge_out_and_the_verdict_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    kin_spec(dir.path());
    let ran = std::process::Command::new(env!("CARGO_BIN_EXE_quorum"))
        .args([
            "run",
            "spec.yaml",
            "--out",
            OUT,
            "--headless",
            "--moderation",
            "accept",
            "--recusal",
            "recuse",
        ])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("quorum runs");
    assert_eq!(
        ran.status.code(),
        Some(5),
        "ESCALATE:\n{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let folder = run_folder(&dir.path().join(OUT));
    let yaml: Yaml = yaml_serde::from_str(&read(&folder, "debate.yaml")).expect("debate.yaml");
    let evaluation = &yaml["stages"]["evaluation"];
    assert_eq!(evaluation["judges"][0]["status"].as_str(), Some("recused"));
    assert!(
        evaluation["rule"]
            .as_str()
            .is_some_and(|rule| rule.contains("analyst is missing (recused), a binding judge")),
        "{:?}",
        evaluation["rule"]
    );
    assert!(!folder.join("judges/judge-analyst.md").exists());
    // Recomputed from the files alone, the verdict and its rule are the same.
    let recomputed = std::process::Command::new(env!("CARGO_BIN_EXE_quorum"))
        .args(["verdict", folder.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .expect("quorum verdict runs");
    let said = String::from_utf8_lossy(&recomputed.stdout);
    assert_eq!(recomputed.status.code(), Some(5), "{said}");
    assert!(
        said.contains("analyst is missing (recused), a binding judge"),
        "{said}"
    );
    let transcript = read(&folder, "transcript.md");
    assert!(
        transcript.contains(
            "fair judging: judge.analyst shares the proposer's model family (anthropic): recused"
        ),
        "{transcript}"
    );
}
