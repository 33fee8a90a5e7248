//! Hostile input, round three (issue 61), on the real binary: a debate
//! folder from someone else cannot make a fork copy a file it links to,
//! put terminal control on the screen, hang a command on a pipe, lead a
//! command through a link to another folder, or pass off a record no
//! debate could have written; `--output` never replaces what is not a
//! file; every command quorum prints is one quorum accepts; a long value
//! is cut, not echoed whole. Each test is named for the class of the issue
//! it covers.
use crate::support;

use std::os::unix::fs::{FileTypeExt, symlink};
use std::path::{Path, PathBuf};

use support::run::{Ran, Sandbox};

/// A finished decision review whose critique items were all deferred.
fn deferred_demo(sandbox: &Sandbox) -> PathBuf {
    let out = sandbox.out();
    sandbox
        .quorum(
            &[
                "demo",
                "--headless",
                "--speed",
                "500",
                "--moderation",
                "defer",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    sandbox.run_dir()
}

/// The folders directly under `dir`.
fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    found.sort();
    found
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

fn no_terminal_control(ran: &Ran) {
    for (name, text) in [("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{9b}') && !text.contains('\u{7}'),
            "{name} holds terminal control:\n{text:?}"
        );
    }
}

fn refused_naming(ran: &Ran, parts: &[&str]) {
    ran.assert_code(2);
    for part in parts {
        assert!(ran.stderr.contains(part), "{part:?} in\n{}", ran.stderr);
    }
}

#[test]
fn class_1_a_fork_copies_no_file_its_origin_links_to() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let secret = sandbox.write("secret.txt", "{\"password\": \"hunter2\"}\n");
    symlink(&secret, dir.join("from.json")).unwrap();
    let before = folders(&sandbox.out());
    let ran = sandbox.quorum(
        &[
            "fork",
            dir.to_str().unwrap(),
            "--at",
            "critique",
            "--headless",
        ],
        &[],
    );
    refused_naming(&ran, &["from.json", "symbolic link"]);
    assert_eq!(folders(&sandbox.out()), before, "nothing was created");
    assert!(!ran.stdout.contains("hunter2") && !ran.stderr.contains("hunter2"));
}

#[test]
fn class_2_folder_names_and_fork_notes_reach_no_terminal() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "fork",
            dir.to_str().unwrap(),
            "--at",
            "critique",
            "--headless",
        ],
        &[],
    );
    assert!(matches!(ran.code, 0 | 4..=9), "{}", ran.stderr);
    let fork = folders(&out).into_iter().find(|d| *d != dir).unwrap();
    // The fork's note says it was forked at a clipboard write and a clear
    // screen, 100,000 characters long.
    let note = std::fs::read_to_string(fork.join("fork.json")).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&note).unwrap();
    let at = format!("\u{1b}]52;c;aGk=\u{7}\u{1b}[2J{}", "x".repeat(100_000));
    value["at"] = serde_json::Value::String(at);
    std::fs::write(fork.join("fork.json"), value.to_string()).unwrap();
    // And the origin's folder is named with them.
    let hostile = out.join("debate-\u{1b}]52;c;aGk=\u{7}-\u{1b}[2J-20261206-101010");
    std::fs::rename(&dir, &hostile).unwrap();

    let listed = sandbox.quorum(&["open", "--out", out.to_str().unwrap()], &[]);
    listed.assert_code(0);
    no_terminal_control(&listed);
    assert!(
        listed.stdout.contains("(100,016 characters)") && listed.stdout.len() < 20_000,
        "{}",
        listed.stdout
    );
    let shown = sandbox.quorum(&["open", fork.to_str().unwrap(), "--headless"], &[]);
    shown.assert_code(0);
    no_terminal_control(&shown);
    let compared = sandbox.quorum(
        &["compare", hostile.to_str().unwrap(), fork.to_str().unwrap()],
        &[],
    );
    compared.assert_code(0);
    no_terminal_control(&compared);
}

#[test]
fn class_3_output_never_replaces_what_is_not_a_file() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let fifo = sandbox.path().join("report.pipe");
    mkfifo(&fifo);
    let reader_path = fifo.clone();
    let reader = std::thread::spawn(move || std::fs::read_to_string(reader_path).unwrap());
    let ran = sandbox.quorum(
        &[
            "report",
            dir.to_str().unwrap(),
            "--format",
            "md",
            "-o",
            fifo.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    // Checked first: a pipe renamed over would leave the reader waiting.
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "the pipe is still a pipe"
    );
    assert!(reader.join().unwrap().contains("event sourcing"));

    let folder = sandbox.path().join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    let ran = sandbox.quorum(
        &[
            "report",
            dir.to_str().unwrap(),
            "-o",
            folder.to_str().unwrap(),
        ],
        &[],
    );
    refused_naming(&ran, &["a-folder", "directory"]);
    assert!(folder.is_dir());

    let file = sandbox.write("report.html", "old\n");
    sandbox
        .quorum(
            &[
                "report",
                dir.to_str().unwrap(),
                "-o",
                file.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    assert!(std::fs::read_to_string(&file).unwrap().contains("<html"));
}

#[test]
fn class_5_a_pipe_or_a_device_in_a_folder_hangs_nothing() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let out = sandbox.out();
    mkfifo(&dir.join("fork.json"));
    let before = folders(&out);
    let ran = sandbox.quorum(&["report", dir.to_str().unwrap(), "-o", "-"], &[]);
    refused_naming(&ran, &["fork.json", "named pipe"]);
    let ran = sandbox.quorum(&["open", dir.to_str().unwrap(), "--headless"], &[]);
    refused_naming(&ran, &["fork.json", "named pipe"]);
    let listed = sandbox.quorum(&["open", "--out", out.to_str().unwrap()], &[]);
    listed.assert_code(0);
    assert!(
        listed.stdout.contains("unreadable") && listed.stdout.contains("fork.json"),
        "{}",
        listed.stdout
    );
    std::fs::remove_file(dir.join("fork.json")).unwrap();

    mkfifo(&dir.join("from.json"));
    let ran = sandbox.quorum(
        &[
            "fork",
            dir.to_str().unwrap(),
            "--at",
            "critique",
            "--headless",
        ],
        &[],
    );
    refused_naming(&ran, &["from.json", "named pipe"]);
    assert_eq!(folders(&out), before, "fork created nothing");
    std::fs::remove_file(dir.join("from.json")).unwrap();

    // A device behind a link: refused as a link, never read.
    symlink("/dev/zero", dir.join("from.json")).unwrap();
    let ran = sandbox.quorum(&["report", dir.to_str().unwrap(), "-o", "-"], &[]);
    refused_naming(&ran, &["from.json", "symbolic link"]);
}

#[test]
fn class_6_every_command_refuses_a_debate_folder_that_is_a_link() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let linked = sandbox.path().join("linked");
    symlink(&dir, &linked).unwrap();
    let other = sandbox.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let before = support::files_under(sandbox.path());
    let link = linked.to_str().unwrap();
    let trailing = format!("{link}/");
    let out = other.to_str().unwrap();
    for args in [
        vec!["report", link],
        vec!["report", &trailing],
        vec!["fork", link, "--at", "critique", "--headless", "--out", out],
        vec!["verdict", link],
        vec!["replay", link, "--headless"],
        vec!["compare", link, dir.to_str().unwrap()],
        vec!["open", link, "--headless"],
        vec!["resume", &trailing, "--headless"],
        vec!["demo", "--headless", "--from", link, "--out", out],
    ] {
        let ran = sandbox.quorum(&args, &[]);
        assert_ne!(ran.code, 0, "{args:?} went ahead:\n{}", ran.stdout);
        assert!(
            ran.stderr.contains("symbolic link"),
            "{args:?}: the refusal says why\n{}",
            ran.stderr
        );
    }
    assert_eq!(support::files_under(sandbox.path()), before);
}

#[test]
fn class_11_prices_and_budgets_are_finite_and_bounded() {
    let sandbox = Sandbox::new();
    let config = sandbox.write(
        "config.yaml",
        "prices:\n  script:scripted: { input: 1e308, output: 15 }\n",
    );
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--headless",
            "--config",
            config.to_str().unwrap(),
            "--budget",
            "0.05",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    refused_naming(&ran, &["prices.script:scripted", "at most"]);
    assert!(!out.exists(), "nothing was written");
    for (flag, value) in [("--budget", "1e308"), ("--budget-tokens", "1e18")] {
        let ran = sandbox.quorum(&["demo", "--headless", flag, value], &[]);
        refused_naming(&ran, &[flag, "at most"]);
        assert!(!ran.stderr.contains("more than zero"), "{}", ran.stderr);
    }

    // The dearest price quorum takes: the command it prints to go on is
    // one it accepts.
    let config = sandbox.write(
        "config.yaml",
        "prices:\n  script:scripted: { input: 100000, output: 100000 }\n",
    );
    let held = sandbox.quorum(
        &[
            "demo",
            "--headless",
            "--config",
            config.to_str().unwrap(),
            "--budget",
            "0.05",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    held.assert_code(quorum::protocol::EXIT_BUDGET);
    let command = held
        .stderr
        .split("continue it with a larger budget: quorum ")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_else(|| panic!("{}", held.stderr));
    let mut args: Vec<&str> = command.split_whitespace().collect();
    args.extend(["--headless", "--config", config.to_str().unwrap()]);
    let resumed = sandbox.quorum(&args, &[]);
    assert_ne!(resumed.code, 2, "{command}: {}", resumed.stderr);

    // A price or a raised budget edited into a journal past what a
    // configuration may say is refused by every reader, with its line.
    let dir = support::run::only_run(&out);
    let journal = dir.join("journal.jsonl");
    let original = std::fs::read_to_string(&journal).unwrap();
    let (first, rest) = original.split_once('\n').unwrap();
    let mut record: serde_json::Value = serde_json::from_str(first).unwrap();
    // Wherever the protocol keeps its prices (a review under
    // `participants`).
    fn dearer(value: &mut serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(price) = map
                    .get_mut("prices")
                    .and_then(|prices| prices.get_mut("script:scripted"))
                {
                    price["input"] = serde_json::json!(1e308);
                    return true;
                }
                map.values_mut().any(dearer)
            }
            _ => false,
        }
    }
    assert!(dearer(&mut record["event"]["definition"]), "{first}");
    std::fs::write(&journal, format!("{record}\n{rest}")).unwrap();
    let dir_arg = dir.to_str().unwrap();
    for args in [
        vec!["open", dir_arg, "--headless"],
        vec!["report", dir_arg, "-o", "-"],
        vec!["resume", dir_arg, "--headless", "--budget", "1"],
    ] {
        let ran = sandbox.quorum(&args, &[]);
        refused_naming(
            &ran,
            &[
                "journal.jsonl line 1",
                "the price of script:scripted",
                "at most",
            ],
        );
    }
    std::fs::write(&journal, &original).unwrap();
    append_record(
        &dir,
        r#"{"v":1,"seq":SEQ,"at":"2026-12-01T12:00:00Z","event":{"event":"budget","budget":{"kind":"decided","decision":{"decision":"raise","limit":{"usd":1e300}}}}}"#,
    );
    let ran = sandbox.quorum(&["open", dir_arg, "--headless"], &[]);
    refused_naming(&ran, &["journal.jsonl line", "a raised budget", "at most"]);
}

/// `dir`'s journal with `line` appended.
fn append_record(dir: &Path, line: &str) {
    use std::io::Write;
    let journal = dir.join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let seq = text.lines().count() + 1;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap();
    let record = line.replace("SEQ", &seq.to_string());
    writeln!(file, "{record}").unwrap();
}

#[test]
fn class_12_a_record_no_debate_could_write_is_refused_with_its_line() {
    for (record, named) in [
        (
            r#"{"v":1,"seq":SEQ,"at":"2030-01-01T00:00:00Z","event":{"event":"input","input":{"type":"item_resolved","item_id":"c99","decision":"accept"}}}"#,
            "c99",
        ),
        (
            r#"{"v":1,"seq":SEQ,"at":"2030-01-01T00:00:00Z","event":{"event":"input","input":{"type":"item_decided","item_id":"c1","decision":"accept"}}}"#,
            "after the debate ended",
        ),
    ] {
        let sandbox = Sandbox::new();
        let dir = deferred_demo(&sandbox);
        append_record(&dir, record);
        let line = std::fs::read_to_string(dir.join("journal.jsonl"))
            .unwrap()
            .lines()
            .count();
        let place = format!("line {line}");
        let dir = dir.to_str().unwrap();
        for args in [
            vec!["open", dir, "--headless"],
            vec!["report", dir, "-o", "-"],
            vec!["resume", dir, "--headless"],
        ] {
            let ran = sandbox.quorum(&args, &[]);
            refused_naming(&ran, &["journal.jsonl", &place, named]);
        }
    }
}

#[test]
fn class_13_long_values_are_cut_and_refusals_say_why() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let long = "x".repeat(100_000);
    let at = format!("{long}:1");
    let resolve = format!("{long}=accept");
    // A value clap itself refuses is cut too, and its escapes made inert.
    let budget = format!("{long}\u{1b}]52;c;aGk=\u{7}");
    for args in [
        vec!["fork", dir.to_str().unwrap(), "--at", &at, "--headless"],
        vec!["fork", dir.to_str().unwrap(), "--at", &long, "--headless"],
        vec!["open", dir.to_str().unwrap(), "--resolve", &resolve],
        vec!["demo", "--headless", "--budget", &budget],
    ] {
        let ran = sandbox.quorum(&args, &[]);
        ran.assert_code(2);
        assert!(
            ran.stderr.len() < 2_000 && ran.stderr.contains("(100,"),
            "{} bytes: {}",
            ran.stderr.len(),
            &ran.stderr[..ran.stderr.len().min(300)]
        );
        assert!(!ran.stderr.contains('\u{1b}'), "{}", ran.stderr);
    }

    // Two debates of one protocol that share nothing say so.
    let other_out = sandbox.path().join("other");
    let ran = sandbox.quorum(
        &[
            "demo",
            "--headless",
            "--speed",
            "500",
            "--mode",
            "comparative",
            "--out",
            other_out.to_str().unwrap(),
        ],
        &[],
    );
    assert!(matches!(ran.code, 0 | 4..=9), "{}", ran.stderr);
    let other = support::run::only_run(&other_out);
    let compared = sandbox.quorum(
        &["compare", dir.to_str().unwrap(), other.to_str().unwrap()],
        &[],
    );
    compared.assert_code(0);
    assert!(
        compared.stdout.contains("share no record:")
            && compared.stdout.contains("none of their journal records"),
        "{}",
        compared.stdout
    );
}
