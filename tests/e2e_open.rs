//! `quorum open` and `quorum resume --reopen` on the real binary: listing
//! debates with their open deferred items, settling deferred items after the
//! verdict (journaled, written into debate.yaml, critique.md, transcript.md
//! and summary.md with their time), refusing bad settlements before anything
//! is written, and a reopened debate running another round.
use crate::support;

use std::collections::BTreeMap;
use std::path::Path;

use support::run::Sandbox;

/// Every file of a folder, by path, to prove nothing changed.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    support::files_under(dir)
}

/// A finished demo whose critique items were all deferred.
fn deferred_demo(sandbox: &Sandbox) -> std::path::PathBuf {
    let out = sandbox.out();
    sandbox
        .quorum(
            &[
                "demo",
                "--headless",
                "--speed",
                "50",
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

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn open_lists_debates_with_their_verdict_and_open_deferred_items() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let out = sandbox.out();
    let listed = sandbox.quorum(&["open", "--out", out.to_str().unwrap()], &[]);
    listed.assert_code(0);
    assert!(
        listed.stdout.starts_with("1 debate under "),
        "{}",
        listed.stdout
    );
    assert!(
        listed.stdout.contains("6 open deferred items"),
        "{}",
        listed.stdout
    );
    assert!(
        listed.stdout.contains("ADOPT · 6 open deferred items"),
        "{}",
        listed.stdout
    );
    for id in ["c1", "c2", "c3", "c4", "c5", "c6"] {
        assert!(
            listed.stdout.contains(&format!("\n    {id}  ")),
            "{id}: {}",
            listed.stdout
        );
    }
    assert!(
        listed.stdout.contains("--resolve ID=accept|reject"),
        "{}",
        listed.stdout
    );

    let json = sandbox.quorum(&["open", "--out", out.to_str().unwrap(), "--json"], &[]);
    json.assert_code(0);
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let debate = &value["debates"][0];
    assert_eq!(debate["state"], "ADOPT");
    assert_eq!(debate["dir"], dir.display().to_string());
    assert_eq!(debate["open_items"].as_array().unwrap().len(), 6);
    assert_eq!(debate["reopen_pending"], false);
}

#[test]
fn open_lists_an_interrupted_debate_with_the_resume_command() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    // Cut the journal back to before the verdict, as a crash would have.
    let journal = read(&dir, "journal.jsonl");
    let kept: String = journal
        .lines()
        .take_while(|line| !line.contains(r#""type":"moderation_submitted""#))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(dir.join("journal.jsonl"), kept).unwrap();
    let out = sandbox.out();
    let listed = sandbox.quorum(&["open", "--out", out.to_str().unwrap()], &[]);
    listed.assert_code(0);
    assert!(
        listed.stdout.contains("interrupted at moderation"),
        "{}",
        listed.stdout
    );
    assert!(
        listed
            .stdout
            .contains(&format!("next: quorum resume {}", dir.display())),
        "{}",
        listed.stdout
    );
}

#[test]
fn a_deferred_item_accepted_after_the_verdict_is_recorded_and_reopens_the_debate() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let settled = sandbox.quorum(
        &[
            "open",
            dir.to_str().unwrap(),
            "--resolve",
            "c2=accept",
            "--note",
            "replay must never call Avalara",
        ],
        &[],
    );
    settled.assert_code(0);
    assert!(
        settled
            .stdout
            .contains("c2: accepted after the verdict (replay must never call Avalara)"),
        "{}",
        settled.stdout
    );
    assert!(settled.stdout.contains("--reopen"), "{}", settled.stdout);

    let journal = read(&dir, "journal.jsonl");
    let last = journal.lines().last().unwrap();
    assert!(last.contains(r#""type":"item_resolved""#), "{last}");
    assert!(last.contains(r#""item_id":"c2""#), "{last}");
    let yaml = read(&dir, "debate.yaml");
    assert!(yaml.contains("reopened: true"), "{yaml}");
    assert!(
        yaml.contains("note: replay must never call Avalara"),
        "{yaml}"
    );
    assert!(read(&dir, "critique.md").contains("**ACCEPTED** after the verdict"));
    assert!(read(&dir, "transcript.md").contains("c2 deferred → accepted after the verdict"));
    assert!(read(&dir, "summary.md").contains("Reopened after the verdict"));
    assert!(!dir.join("quorum.lock").exists(), "the lock is let go");

    // Plain resume says what to do; --reopen runs revision and judges again.
    let plain = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    plain.assert_code(0);
    assert!(
        plain.stdout.contains("nothing to resume"),
        "{}",
        plain.stdout
    );
    assert!(plain.stdout.contains("--reopen"), "{}", plain.stdout);

    let reopened = sandbox.quorum(
        &["resume", dir.to_str().unwrap(), "--headless", "--reopen"],
        &[],
    );
    reopened.assert_code(0);
    assert!(
        reopened.stderr.contains("stage: revision (round 3)"),
        "{}",
        reopened.stderr
    );
    for judge in ["analyst", "stylist", "aesthete"] {
        assert!(
            dir.join(format!("judges/judge-{judge}-round-3.md"))
                .is_file()
        );
    }
    let revision = read(&dir, "revision.md");
    assert!(
        revision.contains("Reopened after the verdict for c2"),
        "{revision}"
    );
    // Issue 26: the reopened round answers c2, the one item accepted since,
    // and claims nothing for the items still deferred.
    let round_three = revision.split("## Round 3").nth(1).unwrap();
    let rows: Vec<&str> = round_three
        .lines()
        .filter(|line| line.starts_with("| c") || line.starts_with("| d"))
        .collect();
    assert_eq!(rows.len(), 1, "{round_three}");
    assert!(rows[0].starts_with("| c2 | b2 | strengthen |"), "{rows:?}");
    let summary = read(&dir, "summary.md");
    assert!(
        summary.contains("- c2 (accepted): round 3 strengthened b2"),
        "{summary}"
    );
    assert!(summary.contains("- c1 (deferred): left open."), "{summary}");
    let yaml = read(&dir, "debate.yaml");
    assert!(!yaml.contains("reopened: true"), "the reopen is done");
    assert!(yaml.contains("addressed_in_round: 3"), "{yaml}");
    // The report calls c2 what it became, not only what it was.
    let report = sandbox.quorum(&["report", dir.to_str().unwrap(), "-o", "-"], &[]);
    report.assert_code(0);
    assert!(
        report.stdout.contains(
            "the moderator deferred it, then accepted it after the verdict, noting &quot;replay must never call Avalara&quot;"
        ),
        "{}",
        report.stdout
    );
    let listed = sandbox.quorum(&["open", dir.to_str().unwrap(), "--headless"], &[]);
    assert!(
        listed.stdout.contains("ADOPT · 5 open deferred items"),
        "{}",
        listed.stdout
    );
}

#[test]
fn a_deferred_item_rejected_after_the_verdict_does_not_reopen() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let settled = sandbox.quorum(
        &[
            "open",
            dir.to_str().unwrap(),
            "--resolve",
            "c6=reject",
            "--resolve",
            "c4=reject",
        ],
        &[],
    );
    settled.assert_code(0);
    assert!(!settled.stdout.contains("--reopen"), "{}", settled.stdout);
    assert!(
        settled.stdout.contains("4 deferred items still open."),
        "{}",
        settled.stdout
    );
    assert!(!read(&dir, "debate.yaml").contains("reopened: true"));
    let again = sandbox.quorum(
        &["resume", dir.to_str().unwrap(), "--reopen", "--headless"],
        &[],
    );
    again.assert_code(2);
    assert!(
        again.stderr.contains("nothing to reopen"),
        "{}",
        again.stderr
    );
}

#[test]
fn bad_settlements_are_refused_before_anything_is_written() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let before = snapshot(&dir);
    let cases: [(&[&str], &str); 5] = [
        (
            &["--resolve", "c9=accept"],
            "cannot settle c9: there is no such item (items: c1, c2, c3, c4, c5, c6)",
        ),
        (&["--resolve", "c1=defer"], "already deferred"),
        (
            &["--resolve", "c1=maybe"],
            "`maybe` is not accept or reject",
        ),
        (&["--resolve", "c1"], "expected ID=accept or ID=reject"),
        (
            &["--resolve", "c1=accept", "--resolve", "c7=reject"],
            "cannot settle c7: there is no such item",
        ),
    ];
    for (flags, expected) in cases {
        let mut args = vec!["open", dir.to_str().unwrap()];
        args.extend_from_slice(flags);
        let ran = sandbox.quorum(&args, &[]);
        ran.assert_code(2);
        assert!(ran.stderr.contains(expected), "{flags:?}: {}", ran.stderr);
        assert_eq!(snapshot(&dir), before, "{flags:?} changed the debate");
    }
    let no_dir = sandbox.quorum(&["open", "--resolve", "c1=accept"], &[]);
    no_dir.assert_code(2);
    assert!(
        no_dir.stderr.contains("needs the debate's folder"),
        "{}",
        no_dir.stderr
    );
}

#[test]
fn an_item_the_moderator_decided_cannot_be_settled_again() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    sandbox
        .quorum(
            &[
                "demo",
                "--headless",
                "--speed",
                "50",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let dir = sandbox.run_dir();
    let ran = sandbox.quorum(
        &["open", dir.to_str().unwrap(), "--resolve", "c1=reject"],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr
            .contains("cannot settle c1: it was accepted in moderation, not deferred"),
        "{}",
        ran.stderr
    );
}

#[test]
fn settling_is_refused_while_another_quorum_writes_the_debate() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let held = quorum::artifact::DebateLock::acquire(&dir, "a test").unwrap();
    let before = snapshot(&dir);
    let ran = sandbox.quorum(
        &["open", dir.to_str().unwrap(), "--resolve", "c1=accept"],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("another quorum is writing this debate"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(&format!("pid {}", std::process::id())),
        "{}",
        ran.stderr
    );
    assert_eq!(snapshot(&dir), before);
    let listed = sandbox.quorum(&["open", dir.to_str().unwrap(), "--headless"], &[]);
    // It has its verdict: the listing says so, and who has it open.
    assert!(
        listed.stdout.contains("still open in another quorum (pid"),
        "{}",
        listed.stdout
    );
    assert!(!listed.stdout.contains("running"), "{}", listed.stdout);
    drop(held);
    sandbox
        .quorum(
            &["open", dir.to_str().unwrap(), "--resolve", "c1=accept"],
            &[],
        )
        .assert_code(0);
}

#[test]
fn open_and_resume_refuse_a_folder_that_is_not_a_debate() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.path().join("notes")).unwrap();
    for command in ["open", "resume", "replay"] {
        let ran = sandbox.quorum(&[command, "notes", "--headless"], &[]);
        ran.assert_code(2);
        assert!(
            ran.stderr
                .contains("notes is not a debate folder: it has no journal.jsonl"),
            "{command}: {}",
            ran.stderr
        );
    }
    let missing = sandbox.quorum(&["open", "--out", "nowhere"], &[]);
    missing.assert_code(2);
    assert!(
        missing.stderr.contains("nowhere does not exist"),
        "{}",
        missing.stderr
    );
}

#[test]
fn a_crash_between_a_settlement_and_its_files_is_repaired_by_resume() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let records = read(&dir, "journal.jsonl").lines().count();
    // Stop the settling process right after its journal line, and kill it.
    let mut command = std::process::Command::new(support::run::QUORUM);
    support::isolate(&mut command, sandbox.path())
        .args(["open", dir.to_str().unwrap(), "--resolve", "c5=reject"])
        .env("QUORUM_TEST_STOP_AFTER_RECORD", (records + 1).to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = command.spawn().unwrap();
    let stat = format!("/proc/{}/stat", child.id());
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&stat).is_ok_and(|text| text.contains(") T ")) {
        assert!(
            started.elapsed() < support::run::PROCESS_DEADLINE,
            "never stopped"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        read(&dir, "journal.jsonl")
            .lines()
            .last()
            .unwrap()
            .contains("item_resolved")
    );
    assert!(
        !read(&dir, "debate.yaml").contains("resolution:"),
        "the files lag"
    );

    let resumed = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    resumed.assert_code(0);
    assert!(
        resumed.stderr.contains("up to date with the journal"),
        "{}",
        resumed.stderr
    );
    assert!(
        resumed.stdout.contains("nothing to resume"),
        "{}",
        resumed.stdout
    );
    assert!(read(&dir, "debate.yaml").contains("decision: reject"));
    assert!(read(&dir, "transcript.md").contains("c5 deferred → rejected after the verdict"));
    assert!(!dir.join("quorum.lock").exists());
    let again = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    assert!(!again.stderr.contains("up to date"), "{}", again.stderr);
}
