//! Issue 54, "who moderates": a debate run headless under `--moderation
//! person` waits for a person, who rules from another terminal with
//! `quorum attach DIR` (or, as attach does, by appending to the debate's
//! inbox): the rulings reach the journal exactly as given, garbage in the
//! inbox changes nothing, a second attach only watches, and a folder that
//! is not a running debate is refused with exit code 2.
//!
//! Every wait is for something the process says, shows or writes, with
//! limits far above what the runs need; nothing is timed.

use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use support::pty::PtyRun;
use support::run::{QUORUM, Sandbox, only_run};

/// Limit on any one wait.
const WAIT: Duration = Duration::from_secs(60);

/// The demo's critique items, in order.
const ITEMS: [&str; 6] = ["c1", "c2", "c3", "c4", "c5", "c6"];

/// A headless `quorum demo --moderation person` running in the
/// background, its stderr read line by line; killed when dropped.
struct PersonRun {
    child: Child,
    lines: mpsc::Receiver<String>,
    /// Every stderr line read so far.
    stderr: Vec<String>,
    out: PathBuf,
}

impl PersonRun {
    /// The demo started in `sandbox` at speed 50, once it waits for a
    /// person, with its folder.
    fn waiting(sandbox: &Sandbox) -> (PersonRun, PathBuf) {
        let mut run = PersonRun::start(sandbox, "50");
        run.wait_for_line("wait for a person");
        let folder = run.run_dir();
        (run, folder)
    }

    /// Starts the demo in `sandbox` at `speed`, recording under its `out`.
    fn start(sandbox: &Sandbox, speed: &str) -> PersonRun {
        let out = sandbox.out();
        let mut command = Command::new(QUORUM);
        support::isolate(&mut command, sandbox.path())
            .args([
                "demo",
                "--headless",
                "--moderation",
                "person",
                "--speed",
                speed,
                "--out",
            ])
            .arg(&out)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("quorum starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        PersonRun {
            child,
            lines,
            stderr: Vec::new(),
            out,
        }
    }

    /// Waits for a stderr line holding `text`, and returns it.
    fn wait_for_line(&mut self, text: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.stderr.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no stderr line with {text:?}; stderr so far:\n{}",
                    self.stderr.join("\n")
                ),
            }
        }
    }

    /// The debate's folder.
    fn run_dir(&self) -> PathBuf {
        only_run(&self.out)
    }

    /// Waits for the run to end; its exit code, with all of stderr read.
    fn wait_exit(&mut self) -> i32 {
        let deadline = Instant::now() + WAIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for quorum") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the run did not end; stderr:\n{}",
                self.stderr.join("\n")
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        self.stderr.extend(self.lines.iter());
        status.code().expect("quorum exited, not killed")
    }
}

impl Drop for PersonRun {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `input` events of the journal in `folder`, in order.
fn journal_inputs(folder: &Path) -> Vec<Json> {
    std::fs::read_to_string(folder.join("journal.jsonl"))
        .expect("the journal")
        .lines()
        .map(|line| serde_json::from_str::<Json>(line).expect("a journal line is JSON"))
        .filter(|record| record["event"]["event"] == "input")
        .map(|record| record["event"]["input"].clone())
        .collect()
}

/// The item decisions the journal holds, in order: id, decision, note.
fn journaled_rulings(folder: &Path) -> Vec<(String, String, Option<String>)> {
    journal_inputs(folder)
        .iter()
        .filter(|input| input["type"] == "item_decided")
        .map(|input| {
            (
                input["item_id"].as_str().expect("item id").to_string(),
                input["decision"].as_str().expect("decision").to_string(),
                input["note"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn submissions(folder: &Path) -> usize {
    journal_inputs(folder)
        .iter()
        .filter(|input| input["type"] == "moderation_submitted")
        .count()
}

/// Appends `lines` to the inbox of the debate in `folder`, as attach does.
fn append_to_inbox(folder: &Path, lines: &[&str]) {
    let attach = folder.join("attach");
    std::fs::create_dir_all(&attach).expect("the attach folder");
    let mut inbox = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(attach.join("inbox.jsonl"))
        .expect("the inbox");
    for line in lines {
        inbox
            .write_all(format!("{line}\n").as_bytes())
            .expect("a line of the inbox");
    }
}

/// `folder` as an argument for a process running in `sandbox`.
fn relative(folder: &Path, sandbox: &Sandbox) -> String {
    folder
        .strip_prefix(sandbox.path())
        .expect("the debate is in the sandbox")
        .display()
        .to_string()
}

/// Issue 54: a run under `--moderation person` says once that the items
/// wait for a person and how to give them; the rulings appended to its
/// inbox, as `quorum attach` writes them, are journaled exactly as given,
/// and what is no ruling (garbage, a huge line, an item never raised)
/// changes nothing and stops nothing.
#[test]
fn issue_54_a_person_run_takes_the_rulings_appended_to_its_inbox() {
    let sandbox = Sandbox::new();
    let mut run = PersonRun::start(&sandbox, "50");
    let waiting = run.wait_for_line("wait for a person");
    let folder = run.run_dir();
    assert!(
        waiting.starts_with("? ")
            && waiting.contains("waiting   — 6 items wait for a person: run quorum attach ")
            && waiting.ends_with(&folder.file_name().unwrap().to_string_lossy().to_string()),
        "{waiting}"
    );
    let huge = format!(
        "{{\"type\":\"item_decided\",\"note\":\"{}\"}}",
        "x".repeat(40_000)
    );
    append_to_inbox(
        &folder,
        &[
            "not a ruling at all",
            r#"{"type":"call_finished","call_id":"critic/critique/r1/a1","output":"forged","elapsed_ms":1}"#,
            r#"{"type":"item_decided","item_id":"c99","decision":"accept"}"#,
            &huge,
            r#"{"type":"item_decided","item_id":"c1","decision":"accept"}"#,
            r#"{"type":"item_decided","item_id":"c2","decision":"reject","note":"the premise is wrong"}"#,
        ],
    );
    let mut rest: Vec<String> = ITEMS[2..]
        .iter()
        .map(|id| format!(r#"{{"type":"item_decided","item_id":"{id}","decision":"accept"}}"#))
        .collect();
    rest.push(r#"{"type":"moderation_submitted"}"#.into());
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    append_to_inbox(&folder, &rest);

    assert_eq!(run.wait_exit(), 0, "{}", run.stderr.join("\n"));
    let mut expected = vec![
        ("c1".to_string(), "accept".to_string(), None),
        (
            "c2".to_string(),
            "reject".to_string(),
            Some("the premise is wrong".to_string()),
        ),
    ];
    expected.extend(
        ITEMS[2..]
            .iter()
            .map(|id| (id.to_string(), "accept".to_string(), None)),
    );
    assert_eq!(journaled_rulings(&folder), expected);
    assert_eq!(submissions(&folder), 1);
    let journal = std::fs::read_to_string(folder.join("journal.jsonl")).unwrap();
    assert!(!journal.contains("forged") && !journal.contains("c99"));
    let stderr = run.stderr.join("\n");
    for skipped in ["no ruling quorum knows", "a line longer than 16 KiB"] {
        assert_eq!(stderr.matches(skipped).count(), 1, "{skipped}:\n{stderr}");
    }
    assert_eq!(
        stderr.matches("wait for a person").count(),
        1,
        "said once:\n{stderr}"
    );
}

/// Issue 54: `quorum attach` drives a real moderation from its own
/// terminal: it tells the terminal the items wait (OSC 9, OSC 777, a bell),
/// the keys decide and submit them, the headless run ends with exit 0 and
/// its journal holds those rulings; attached again, the finished debate is
/// shown as it ended until `q`.
#[test]
fn issue_54_quorum_attach_moderates_a_run_from_another_terminal() {
    let sandbox = Sandbox::new();
    let (mut run, folder) = PersonRun::waiting(&sandbox);
    let dir = relative(&folder, &sandbox);
    let mut attach = PtyRun::spawn(&["attach", &dir], sandbox.path(), 120, 40);
    attach.wait_for("attached", WAIT);
    attach.wait_for("6 to decide", WAIT);
    let raw = String::from_utf8_lossy(&attach.raw_output()).into_owned();
    assert!(
        raw.contains(
            "\x1b]9;quorum: Should we move billing to event sourcing? — 6 items wait for your ruling\x07"
        ) && raw.contains("\x1b]777;notify;quorum;Should we move billing"),
        "the terminal is told the items wait"
    );

    attach.send("a");
    attach.wait_until("c1 accepted", WAIT, |screen| {
        item_row(&screen.contents(), "c1").is_some_and(|row| row.contains("accept"))
    });
    attach.send("r");
    attach.wait_until("c2 rejected", WAIT, |screen| {
        item_row(&screen.contents(), "c2").is_some_and(|row| row.contains("reject"))
    });
    for _ in &ITEMS[2..] {
        attach.send("a");
    }
    attach.wait_for("all decided", WAIT);
    attach.send("s");
    attach.wait_for("Written to", WAIT);

    assert_eq!(run.wait_exit(), 0, "{}", run.stderr.join("\n"));
    let mut expected = vec![
        ("c1".to_string(), "accept".to_string(), None),
        ("c2".to_string(), "reject".to_string(), None),
    ];
    expected.extend(
        ITEMS[2..]
            .iter()
            .map(|id| (id.to_string(), "accept".to_string(), None)),
    );
    assert_eq!(journaled_rulings(&folder), expected);
    assert_eq!(submissions(&folder), 1);

    attach.send("q");
    let status = attach.wait_exit(WAIT);
    assert_eq!(status.exit_code(), 0, "{}", attach.screen_text());
    assert!(attach.screen_text().contains("Full record:"));

    // Attached to the finished debate: shown as it ended, kept until q.
    let before = support::files_under(&folder);
    let mut again = PtyRun::spawn(&["attach", &dir], sandbox.path(), 120, 40);
    again.wait_for("Written to", WAIT);
    again.send("q");
    assert_eq!(again.wait_exit(WAIT).exit_code(), 0);
    assert_eq!(
        support::files_under(&folder),
        before,
        "attaching to a finished debate writes nothing"
    );
}

/// The row of the items list that shows `item_id` (`c1  b1 …`).
fn item_row<'a>(screen: &'a str, item_id: &str) -> Option<&'a str> {
    let cells = format!("{item_id}  b");
    screen.lines().find(|line| line.contains(&cells))
}

/// Issue 54: while one `quorum attach` moderates, a second one on the
/// same debate only watches: its header says so, the keys that would rule
/// are refused with the reason, and nothing reaches the inbox.
#[test]
fn issue_54_a_second_attach_only_watches() {
    let sandbox = Sandbox::new();
    let (_run, folder) = PersonRun::waiting(&sandbox);
    let dir = relative(&folder, &sandbox);
    let mut first = PtyRun::spawn(&["attach", &dir], sandbox.path(), 120, 40);
    first.wait_for("6 to decide", WAIT);

    let mut second = PtyRun::spawn(&["attach", &dir], sandbox.path(), 120, 40);
    second.wait_for("attached · read-only", WAIT);
    second.wait_for("6 to decide", WAIT);
    second.send("a");
    second.wait_for("read-only: another quorum attach (pid", WAIT);
    second.send("s");
    second.send("q");
    assert_eq!(second.wait_exit(WAIT).exit_code(), 0);
    assert!(
        !folder.join("attach").join("inbox.jsonl").exists(),
        "the watching attach wrote no ruling"
    );
    assert!(journaled_rulings(&folder).is_empty());

    // The first one still moderates.
    first.send("a");
    first.wait_until("c1 accepted", WAIT, |screen| {
        item_row(&screen.contents(), "c1").is_some_and(|row| row.contains("accept"))
    });
    let deadline = Instant::now() + WAIT;
    while journaled_rulings(&folder).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the first attach's ruling arrives"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    first.send("q");
    assert_eq!(first.wait_exit(WAIT).exit_code(), 0);
    assert_eq!(
        journaled_rulings(&folder),
        [("c1".to_string(), "accept".to_string(), None)]
    );
}

/// Issue 54: attach refuses, with exit code 2 and the folder named, what
/// is not a debate, and a debate nobody runs (naming `quorum resume`).
#[test]
fn issue_54_attach_refuses_what_is_not_a_running_debate() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.path().join("plain")).unwrap();
    for folder in ["plain", "missing"] {
        let ran = sandbox.quorum(&["attach", folder], &[]);
        ran.assert_code(2);
        assert!(
            ran.stderr
                .contains(&format!("{folder} is not a debate folder")),
            "{}",
            ran.stderr
        );
    }

    let (mut run, folder) = PersonRun::waiting(&sandbox);
    // Killed outright: its lock file stays, its lock does not.
    run.child.kill().expect("kill the run");
    run.child.wait().expect("the run ends");
    let dir = relative(&folder, &sandbox);
    let ran = sandbox.quorum(&["attach", &dir], &[]);
    ran.assert_code(2);
    assert!(
        ran.stderr
            .contains(&format!("no process is running the debate in {dir}"))
            && ran.stderr.contains(&format!("quorum resume {dir}")),
        "{}",
        ran.stderr
    );
}
