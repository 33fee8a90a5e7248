//! Hostile and careless input on the real binary (issue 16): every file
//! quorum reads is bounded and type-checked, YAML that would cost time or
//! memory is refused at once, errors name the file, line and field and
//! never echo a secret, Markdown for people holds no terminal control, a
//! spec cannot read outside its folder, scripts are checked against the
//! protocol, and a refused command leaves the folder as it was. Each case
//! is numbered as in the issue; `malformed_inputs_are_refused_with_their_place`
//! runs the corpus.
use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use support::run::{Ran, Sandbox, quorum_in};

/// A key shaped like the real thing: it must never reach any output.
const CANARY: &str = "sk-CANARYcanary0123456789abcdefXYZ";

/// Every file under the sandbox, to prove a refusal wrote nothing.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    support::files_under(dir)
}

/// Runs quorum and checks what every refusal must be: exit 2, a message
/// holding each of `expected`, no canary anywhere, nothing written.
fn refused(sandbox: &Sandbox, args: &[&str], expected: &[&str]) -> Ran {
    let before = snapshot(sandbox.path());
    let ran = quorum_in(sandbox.path(), args, &[], None);
    ran.assert_code(2);
    for part in expected {
        assert!(
            ran.stderr.contains(part),
            "{args:?}: expected {part:?} in\n{}",
            ran.stderr
        );
    }
    no_canary(&ran);
    assert_eq!(
        snapshot(sandbox.path()),
        before,
        "{args:?} changed the folder"
    );
    ran
}

fn no_canary(ran: &Ran) {
    for (name, text) in [("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
        assert!(
            !text.contains("CANARY") && !text.contains("hunter2"),
            "a secret reached {name}:\n{text}"
        );
    }
}

/// The built-in demo's spec: a complete scripted decision review.
fn demo_spec(sandbox: &Sandbox) -> String {
    let path = sandbox.path().join("exported.yaml");
    sandbox
        .quorum(&["demo", "--export-script", path.to_str().unwrap()], &[])
        .assert_code(0);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    text
}

fn out(sandbox: &Sandbox) -> String {
    sandbox.out().to_str().unwrap().to_string()
}

// 1. Unbounded reads.

#[test]
fn case_1_devices_are_refused_for_every_file_quorum_reads() {
    let sandbox = Sandbox::new();
    let out = out(&sandbox);
    for args in [
        vec!["run", "/dev/zero", "--headless"],
        vec!["demo", "--config", "/dev/zero", "--headless"],
        vec!["demo", "--theme", "/dev/zero", "--headless"],
        vec!["review", "T", "--context", "/dev/zero", "--headless"],
    ] {
        let mut args = args;
        args.extend(["--out", &out]);
        refused(&sandbox, &args, &["/dev/zero is a character device"]);
    }
    refused(
        &sandbox,
        &["run", sandbox.path().to_str().unwrap(), "--headless"],
        &["is a directory"],
    );
}

#[test]
fn case_1_a_context_file_over_its_limit_is_named_with_its_size() {
    let sandbox = Sandbox::new();
    let big = sandbox.write("big.md", &"x".repeat(5 << 20));
    let out = out(&sandbox);
    refused(
        &sandbox,
        &[
            "review",
            "T",
            "--context",
            big.to_str().unwrap(),
            "--headless",
            "--out",
            &out,
        ],
        &[
            "--context",
            "big.md is 5 MiB, more than a context file may be (4 MiB)",
            "--context-limit BYTES allows more",
        ],
    );
    // Four files' worth together at most: five files of 1,000 bytes under
    // a 1K limit come to more.
    let mut args = vec!["review".to_string(), "T".to_string()];
    for index in 0..5 {
        let path = sandbox.write(&format!("part{index}.md"), &"y".repeat(1000));
        args.extend(["--context".to_string(), path.display().to_string()]);
    }
    args.extend(
        ["--context-limit", "1K", "--headless", "--out", &out]
            .iter()
            .map(|arg| arg.to_string()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(
        &sandbox,
        &args,
        &[
            "more than 4 KiB in all",
            "--context-limit BYTES allows more",
        ],
    );
    refused(
        &sandbox,
        &["review", "T", "--context-limit", "4X", "--headless"],
        &["`4X` is not a size"],
    );
}

#[test]
fn case_1_a_pipe_is_read_with_the_same_cap() {
    let sandbox = Sandbox::new();
    let fifo = sandbox.path().join("diff.fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            // Opens when quorum opens the pipe to read; quorum stops at the
            // cap and closes it, so a broken pipe here is expected.
            let mut pipe = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            let _ = pipe.write_all(&vec![b'z'; 4096]);
        })
    };
    let out = out(&sandbox);
    let ran = quorum_in(
        sandbox.path(),
        &[
            "review",
            "T",
            "--context",
            fifo.to_str().unwrap(),
            "--context-limit",
            "1K",
            "--headless",
            "--out",
            &out,
        ],
        &[],
        None,
    );
    ran.assert_code(2);
    assert!(
        ran.stderr
            .contains("gave more than a context file may be (1 KiB); stopped reading"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("from a pipe"), "{}", ran.stderr);
    assert!(!sandbox.out().exists());
    // Should quorum ever stop before opening the pipe, the writer would
    // wait for a reader forever: open the read end (without blocking) so
    // it can finish either way.
    {
        use std::os::unix::fs::OpenOptionsExt;
        let _reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(0o4000) // O_NONBLOCK
            .open(&fifo);
        writer.join().unwrap();
    }
}

// 2. and 3. YAML that costs time or memory.

#[test]
fn case_2_deep_nesting_is_refused_at_once_in_specs_configs_and_themes() {
    let sandbox = Sandbox::new();
    let deep = format!("topic: {}1{}\n", "[".repeat(200_000), "]".repeat(200_000));
    let spec = sandbox.write("deep.yaml", &deep);
    let config = sandbox.write("deep-config.yaml", &deep);
    // A theme may be 256 KiB at most, so its deep file is a little smaller.
    let theme = sandbox.write(
        "deep-theme.yaml",
        &format!("a: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000)),
    );
    let out = out(&sandbox);
    refused(
        &sandbox,
        &["run", spec.to_str().unwrap(), "--headless", "--out", &out],
        &["deep.yaml:1", "nests deeper than 64 levels"],
    );
    refused(
        &sandbox,
        &[
            "demo",
            "--config",
            config.to_str().unwrap(),
            "--headless",
            "--out",
            &out,
        ],
        &["deep-config.yaml:1", "nests deeper than 64 levels"],
    );
    refused(
        &sandbox,
        &[
            "demo",
            "--theme",
            theme.to_str().unwrap(),
            "--headless",
            "--out",
            &out,
        ],
        &["deep-theme.yaml:1", "nests deeper than 64 levels"],
    );
}

#[test]
fn case_3_aliases_that_multiply_text_are_refused_before_anything_is_written() {
    let sandbox = Sandbox::new();
    let mut spec = format!(
        "topic: Should we?\ncontext:\n  - name: a\n    text: &big \"{}\"\n",
        "w".repeat(100_000)
    );
    for index in 0..200 {
        spec.push_str(&format!("  - name: c{index}\n    text: *big\n"));
    }
    let path = sandbox.write("bomb.yaml", &spec);
    let out = out(&sandbox);
    refused(
        &sandbox,
        &["run", path.to_str().unwrap(), "--headless", "--out", &out],
        &["bomb.yaml:", "alias"],
    );
    assert!(!sandbox.out().exists());
}

// 4. Secrets in error messages.

#[test]
fn case_4_no_error_path_echoes_a_key_or_a_password() {
    let sandbox = Sandbox::new();
    let env_file = sandbox.write(".env", &format!("OPENAI_API_KEY={CANARY}\nOTHER=1\n"));
    let spec = sandbox.write(
        "keyed.yaml",
        &format!("topic: x\nagents:\n  default: {CANARY}\n"),
    );
    let config = sandbox.write(
        "url.yaml",
        "providers:\n  mine:\n    kind: openai\n    base_url: ftp://me:hunter2@example.test/v1\n",
    );
    let config_key = sandbox.write(
        "config-key.yaml",
        &format!("providers:\n  mine:\n    kind: openai\n    api_key: {CANARY}\n"),
    );
    let out = out(&sandbox);
    let critic = format!("critic={CANARY}");
    let critic_model = format!("critic=openai:{CANARY}");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["demo", "--config", env_file.to_str().unwrap()],
            ".env:1",
        ),
        (vec!["run", spec.to_str().unwrap()], "keyed.yaml:3"),
        (vec!["review", "T", "--agent", &critic], "--agent"),
        (vec!["review", "T", "--agent", &critic_model], ""),
        (
            vec!["demo", "--config", config.to_str().unwrap()],
            "url.yaml:",
        ),
        (
            vec!["demo", "--config", config_key.to_str().unwrap()],
            "config-key.yaml:",
        ),
        (vec!["demo", "--theme", "/etc/passwd"], "--theme"),
    ];
    for (mut args, place) in cases {
        args.extend(["--headless", "--out", &out]);
        let ran = refused(&sandbox, &args, &[place]);
        assert!(
            !ran.stderr.contains("daemon:x:1"),
            "a file was printed whole: {}",
            ran.stderr
        );
    }
}

// 5. Control characters in what quorum writes for people.

#[test]
fn case_5_markdown_for_people_holds_no_terminal_control() {
    let sandbox = Sandbox::new();
    let hostile = r#""Should we? \e]52;c;aGVsbG8=\a now \e[2J\a done""#;
    let spec = demo_spec(&sandbox).replacen(
        "topic: \"Should we move billing to event sourcing?\"",
        &format!("topic: {hostile}"),
        1,
    );
    let path = sandbox.write("hostile.yaml", &spec);
    let out = out(&sandbox);
    sandbox
        .quorum(
            &[
                "run",
                path.to_str().unwrap(),
                "--headless",
                "--speed",
                "200",
                "--moderation",
                "defer",
                "--out",
                &out,
            ],
            &[],
        )
        .assert_code(0);
    let dir = sandbox.run_dir();
    sandbox
        .quorum(
            &[
                "open",
                dir.to_str().unwrap(),
                "--resolve",
                "c1=accept",
                "--note",
                "ok \u{1b}[2J\u{7} \u{1b}]52;c;Zm9v\u{7} \u{9b}31m",
            ],
            &[],
        )
        .assert_code(0);
    let mut checked = 0;
    for (name, bytes) in snapshot(&dir) {
        if !name.ends_with(".md") {
            continue;
        }
        checked += 1;
        let text = String::from_utf8(bytes).unwrap();
        for c in text.chars() {
            assert!(
                c == '\n' || c == '\t' || c == '\r' || !c.is_control(),
                "{name} holds {c:?}"
            );
        }
    }
    assert!(checked >= 4, "only {checked} Markdown files");
    // The journal keeps what was given, escaped as JSON.
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert!(
        journal.contains(r"\u001b]52;c;aGVsbG8="),
        "the journal keeps the topic as given"
    );
}

// 6. A spec reads only its own folder.

#[test]
fn case_6_a_spec_cannot_read_outside_its_folder() {
    let sandbox = Sandbox::new();
    sandbox.write("secret.txt", CANARY);
    sandbox.write("specs/notes.md", "notes");
    std::os::unix::fs::symlink(
        sandbox.path().join("secret.txt"),
        sandbox.path().join("specs/link.md"),
    )
    .unwrap();
    let out = out(&sandbox);
    for (path, why) in [
        ("../secret.txt", "climbs out with `..`"),
        ("/etc/shadow", "is an absolute path"),
        ("~/.ssh/id_rsa", "starts at a home folder"),
        ("link.md", "is a link that leads outside"),
    ] {
        let spec = sandbox.write(
            "specs/spec.yaml",
            &format!("topic: x\ncontext:\n  - name: ok\n    path: notes.md\n  - name: n\n    path: {path}\n"),
        );
        refused(
            &sandbox,
            &["run", spec.to_str().unwrap(), "--headless", "--out", &out],
            &[
                "spec.yaml:6: context[1].path:",
                why,
                "--allow-outside-context",
            ],
        );
    }
    // A root-cause analysis's hypotheses file, the same.
    let spec = sandbox.write(
        "specs/rca.yaml",
        "protocol: rca\ntopic: x\nhypotheses: ../secret.txt\n",
    );
    refused(
        &sandbox,
        &["run", spec.to_str().unwrap(), "--headless", "--out", &out],
        &["rca.yaml:3: hypotheses:", "climbs out with `..`"],
    );
}

#[test]
fn case_6_the_person_can_allow_a_spec_to_read_outside() {
    let sandbox = Sandbox::new();
    sandbox.write("shared/glossary.md", "GLOSSARY-TEXT-FROM-OUTSIDE");
    let spec = demo_spec(&sandbox).replacen(
        "context:\n",
        "context:\n  - name: glossary\n    path: ../shared/glossary.md\n",
        1,
    );
    let path = sandbox.write("specs/spec.yaml", &spec);
    let out = out(&sandbox);
    refused(
        &sandbox,
        &["run", path.to_str().unwrap(), "--headless", "--out", &out],
        &["context[0].path", "climbs out"],
    );
    sandbox
        .quorum(
            &[
                "run",
                path.to_str().unwrap(),
                "--allow-outside-context",
                "--headless",
                "--speed",
                "200",
                "--out",
                &out,
            ],
            &[],
        )
        .assert_code(0);
    // The agents were sent it.
    let journal = std::fs::read_to_string(sandbox.run_dir().join("journal.jsonl")).unwrap();
    assert!(journal.contains("GLOSSARY-TEXT-FROM-OUTSIDE"));
}

// 7. Script replies are checked against the protocol.

#[test]
fn case_7_a_script_reply_for_an_unknown_role_or_stage_is_refused() {
    let sandbox = Sandbox::new();
    let spec = demo_spec(&sandbox);
    let out = out(&sandbox);
    let typo = sandbox.write(
        "typo.yaml",
        &spec.replacen("- role: judge.analyst", "- role: judge.analist", 1),
    );
    let line = std::fs::read_to_string(&typo)
        .unwrap()
        .lines()
        .position(|line| line.contains("judge.analist"))
        .unwrap()
        + 1;
    refused(
        &sandbox,
        &["run", typo.to_str().unwrap(), "--headless", "--out", &out],
        &[
            &format!("typo.yaml:{line}: script.replies["),
            "].role: `judge.analist` is not a role of this decision review",
        ],
    );
    let stage = sandbox.write(
        "stage.yaml",
        &spec.replacen("stage: proposal", "stage: propsal", 1),
    );
    refused(
        &sandbox,
        &["run", stage.to_str().unwrap(), "--headless", "--out", &out],
        &[
            "script.replies[0].stage: `propsal` is not a stage",
            "proposal, critique",
        ],
    );
    // A script given with --script is checked the same way, against its file.
    let script = sandbox.write(
        "replies.yaml",
        "replies:\n  - role: critic\n    text: fine\n  - role: judge.nobody\n    text: hi\n",
    );
    refused(
        &sandbox,
        &[
            "challenge",
            "T",
            "--script",
            script.to_str().unwrap(),
            "--headless",
            "--out",
            &out,
        ],
        &["replies.yaml:4: replies[1].role: `judge.nobody` is not a role"],
    );
}

// 8. A refused command leaves the folder as it was.

#[test]
fn case_8_a_refused_settlement_keeps_a_stale_lock() {
    let sandbox = Sandbox::new();
    let out = out(&sandbox);
    sandbox
        .quorum(
            &[
                "demo",
                "--headless",
                "--speed",
                "200",
                "--moderation",
                "defer",
                "--out",
                &out,
            ],
            &[],
        )
        .assert_code(0);
    let dir = sandbox.run_dir();
    // As `kill -9` leaves it: the journal stops before the verdict, and
    // the lock file names a process that is gone.
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let kept: String = journal
        .lines()
        .take_while(|line| !line.contains(r#""type":"moderation_submitted""#))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(dir.join("journal.jsonl"), kept).unwrap();
    std::fs::write(
        dir.join("quorum.lock"),
        "pid 4194301\nhost gone\nsince 2026-01-01 00:00:00\nfor quorum run\n",
    )
    .unwrap();
    refused(
        &sandbox,
        &["open", dir.to_str().unwrap(), "--resolve", "c1=accept"],
        &["has no recorded verdict yet"],
    );
    assert!(dir.join("quorum.lock").exists());
}

// 9. `quorum verdict` on an edited record.

/// A finished demo, and the line of its first `score:` in debate.yaml.
fn finished_demo(sandbox: &Sandbox) -> PathBuf {
    let out = out(sandbox);
    sandbox
        .quorum(
            &["demo", "--headless", "--speed", "200", "--out", &out],
            &[],
        )
        .assert_code(0);
    sandbox.run_dir()
}

fn edit_first_score(dir: &Path, to: &str) -> usize {
    let path = dir.join("debate.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text
        .lines()
        .position(|line| line.trim() == "score: 4")
        .expect("a score of 4");
    let edited: String = text
        .lines()
        .enumerate()
        .map(|(index, text)| {
            if index == line {
                format!("{}\n", text.replace("score: 4", &format!("score: {to}")))
            } else {
                format!("{text}\n")
            }
        })
        .collect();
    std::fs::write(&path, edited).unwrap();
    line + 1
}

#[test]
fn case_9_an_edited_score_is_refused_where_it_stands() {
    let sandbox = Sandbox::new();
    let dir = finished_demo(&sandbox);
    let original = std::fs::read_to_string(dir.join("debate.yaml")).unwrap();
    let line = edit_first_score(&dir, "7");
    let ran = refused(&sandbox, &["verdict", dir.to_str().unwrap()], &[]);
    assert!(
        ran.stderr.contains(&format!("debate.yaml:{line}:")),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("expected a score from 1 to 5"),
        "{}",
        ran.stderr
    );
    std::fs::write(dir.join("debate.yaml"), original).unwrap();
    let line = edit_first_score(&dir, "high");
    let ran = refused(&sandbox, &["verdict", dir.to_str().unwrap()], &[]);
    assert!(
        ran.stderr.contains(&format!("debate.yaml:{line}:")),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(".score: invalid type"),
        "{}",
        ran.stderr
    );
}

#[test]
fn case_9_every_judge_left_out_of_a_recomputed_verdict_is_explained() {
    let sandbox = Sandbox::new();
    let dir = finished_demo(&sandbox);
    let judges = dir.join("judges");
    let latest: Vec<PathBuf> = std::fs::read_dir(&judges)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with("-round-2.md"))
        .collect();
    assert_eq!(latest.len(), 3, "{latest:?}");
    let analyst = judges.join("judge-analyst-round-2.md");
    let stylist = judges.join("judge-stylist-round-2.md");
    std::fs::remove_file(&analyst).unwrap();
    std::fs::write(&stylist, "scores: [\n").unwrap();
    let ran = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    ran.assert_code(5);
    assert!(ran.stdout.starts_with("ESCALATE"), "{}", ran.stdout);
    assert!(
        ran.stderr
            .contains("judges/judge-analyst-round-2.md: excluded: cannot read")
            && ran.stderr.contains("the live run had its scores"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(
            "judges/judge-stylist-round-2.md: excluded: its answer does not read: line 1"
        ),
        "{}",
        ran.stderr
    );
}

// 10. The smaller ones.

#[test]
fn case_10_flags_are_blamed_for_what_they_cause() {
    let sandbox = Sandbox::new();
    let spec = sandbox.write("spec.yaml", "topic: x\nmax_rounds: 2\n");
    let out = out(&sandbox);
    let ran = refused(
        &sandbox,
        &[
            "run",
            spec.to_str().unwrap(),
            "--max-rounds",
            "1000000",
            "--headless",
            "--out",
            &out,
        ],
        &["--max-rounds: at most 10"],
    );
    assert!(!ran.stderr.contains("spec.yaml"), "{}", ran.stderr);
    let ran = refused(
        &sandbox,
        &["demo", "--speed", "1e-300", "--headless", "--out", &out],
        &["--speed: must be a number from 0.01 to 10000, got 1e-300"],
    );
    assert!(ran.stderr.len() < 200, "{}", ran.stderr);
    let config = sandbox.write("config.yaml", "# mine\ntheme: nosuch\n");
    refused(
        &sandbox,
        &[
            "demo",
            "--config",
            config.to_str().unwrap(),
            "--headless",
            "--out",
            &out,
        ],
        &["config.yaml:2: theme: no theme named \"nosuch\""],
    );
    let unclosed = sandbox.write(
        "unclosed.yaml",
        "topic: x\nagents: [script,\nmode: architecture\n",
    );
    let ran = refused(
        &sandbox,
        &[
            "run",
            unclosed.to_str().unwrap(),
            "--headless",
            "--out",
            &out,
        ],
        &["unclosed.yaml:2", "never closed"],
    );
    assert!(!ran.stderr.contains("YAML tag"), "{}", ran.stderr);
}

#[test]
fn case_10_contradictory_settlements_and_unreadable_debates() {
    let sandbox = Sandbox::new();
    let out = out(&sandbox);
    sandbox
        .quorum(
            &[
                "demo",
                "--headless",
                "--speed",
                "200",
                "--moderation",
                "defer",
                "--out",
                &out,
            ],
            &[],
        )
        .assert_code(0);
    let dir = sandbox.run_dir();
    refused(
        &sandbox,
        &[
            "open",
            dir.to_str().unwrap(),
            "--resolve",
            "c1=accept",
            "--resolve",
            "c1=reject",
        ],
        &["--resolve names c1 twice, as accept and as reject"],
    );
    // An unreadable debate counts in the listing's header.
    let broken = sandbox.out().join("broken-20260101-000000");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("journal.jsonl"), "{not json\n").unwrap();
    let listed = sandbox.quorum(&["open", "--out", &out], &[]);
    listed.assert_code(0);
    assert!(
        listed.stdout.starts_with("2 debates under") && listed.stdout.contains("(1 unreadable)"),
        "{}",
        listed.stdout
    );
}

// The corpus: malformed files of every kind a person hands quorum.

/// What a malformed file is handed as.
#[derive(Clone, Copy)]
enum As {
    Spec,
    Config,
    Theme,
    Script,
}

/// `(name, kind, text, what the error must say besides the file's name)`.
const CORPUS: &[(&str, As, &str, &str)] = &[
    ("empty spec", As::Spec, "", "topic"),
    ("only a comment", As::Spec, "# nothing\n", "topic"),
    (
        "a list, not a mapping",
        As::Spec,
        "- topic: x\n",
        "spec.yaml:1",
    ),
    ("a scalar", As::Spec, "just words\n", "spec.yaml:1"),
    ("no topic", As::Spec, "mode: architecture\n", "topic"),
    ("empty topic", As::Spec, "topic: \"  \"\n", "topic"),
    (
        "unknown key",
        As::Spec,
        "topic: x\nmodel: gpt\n",
        "spec.yaml:2",
    ),
    (
        "unknown protocol",
        As::Spec,
        "topic: x\nprotocol: chess\n",
        "spec.yaml:2: protocol",
    ),
    (
        "unknown mode",
        As::Spec,
        "topic: x\nmode: poetry\n",
        "spec.yaml:2",
    ),
    (
        "bad critique",
        As::Spec,
        "topic: x\ncritique: harsh\n",
        "spec.yaml:2",
    ),
    (
        "rounds as text",
        As::Spec,
        "topic: x\nmax_rounds: many\n",
        "spec.yaml:2",
    ),
    (
        "negative rounds",
        As::Spec,
        "topic: x\nmax_rounds: -1\n",
        "spec.yaml:2",
    ),
    (
        "too many rounds",
        As::Spec,
        "topic: x\nmax_rounds: 99\n",
        "spec.yaml:2",
    ),
    (
        "timeout zero",
        As::Spec,
        "topic: x\ntimeout_secs: 0\n",
        "timeout",
    ),
    (
        "timeout text",
        As::Spec,
        "topic: x\ntimeout_secs: soon\n",
        "spec.yaml:2",
    ),
    (
        "unknown role",
        As::Spec,
        "topic: x\nagents:\n  judge.poet: script\n",
        "spec.yaml:3",
    ),
    (
        "unknown provider",
        As::Spec,
        "topic: x\nagents:\n  critic: telepathy\n",
        "spec.yaml:3",
    ),
    (
        "context without text or path",
        As::Spec,
        "topic: x\ncontext:\n  - name: a\n",
        "context[0]",
    ),
    (
        "context with both",
        As::Spec,
        "topic: x\ncontext:\n  - name: a\n    text: t\n    path: p\n",
        "context[0]",
    ),
    (
        "missing context file",
        As::Spec,
        "topic: x\ncontext:\n  - path: nothing-here.md\n",
        "spec.yaml:3: context[0].path",
    ),
    (
        "tab indentation mixed",
        As::Spec,
        "topic: x\nagents:\n\tcritic: script\n",
        "spec.yaml:3",
    ),
    (
        "unclosed flow sequence",
        As::Spec,
        "topic: x\nagents: [a, b\n",
        "spec.yaml:2",
    ),
    (
        "unclosed flow mapping",
        As::Spec,
        "topic: {a: 1\n",
        "spec.yaml:1",
    ),
    (
        "unclosed quote",
        As::Spec,
        "topic: \"never ends\nmode: x\n",
        "spec.yaml:1",
    ),
    (
        "duplicate key",
        As::Spec,
        "topic: x\ntopic: y\n",
        "spec.yaml:2",
    ),
    (
        "moderation unknown",
        As::Spec,
        "topic: x\nmoderation: vote\n",
        "spec.yaml:2",
    ),
    (
        "high stakes as text",
        As::Spec,
        "topic: x\nhigh_stakes: maybe\n",
        "spec.yaml:2",
    ),
    (
        "debuggers not a list",
        As::Spec,
        "protocol: rca\ntopic: x\ndebuggers: 3\n",
        "spec.yaml:3",
    ),
    (
        "bad debugger name",
        As::Spec,
        "protocol: rca\ntopic: x\ndebuggers: [\"Bad Name\"]\n",
        "debuggers",
    ),
    (
        "deep nesting",
        As::Spec,
        "topic: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
        "nests deeper than 64",
    ),
    (
        "config a list",
        As::Config,
        "- providers\n",
        "config.yaml:1",
    ),
    (
        "config unknown key",
        As::Config,
        "colour: red\n",
        "config.yaml:1",
    ),
    (
        "config provider without kind",
        As::Config,
        "providers:\n  mine:\n    base_url: http://x\n",
        "config.yaml:",
    ),
    (
        "config unknown kind",
        As::Config,
        "providers:\n  mine:\n    kind: carrier-pigeon\n",
        "config.yaml:",
    ),
    (
        "config bad url",
        As::Config,
        "providers:\n  mine:\n    kind: openai\n    base_url: not a url\n",
        "config.yaml:",
    ),
    (
        "config price as text",
        As::Config,
        "prices:\n  openai:gpt:\n    input_per_mtok: cheap\n",
        "config.yaml:",
    ),
    (
        "config role unknown",
        As::Config,
        "roles:\n  judge.poet: openai\n",
        "config.yaml:",
    ),
    (
        "config a .env file",
        As::Config,
        "OPENAI_API_KEY=sk-CANARYcanary0123456789abcdefXYZ\n",
        "config.yaml:1",
    ),
    ("theme a list", As::Theme, "- dark\n", "theme.yaml:1"),
    (
        "theme unknown colour",
        As::Theme,
        "colors:\n  text: chartreuse-ish\n",
        "theme.yaml:",
    ),
    (
        "theme unknown key",
        As::Theme,
        "font: serif\n",
        "theme.yaml:1",
    ),
    (
        "theme nested deep",
        As::Theme,
        "a: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
        "nests deeper than 64",
    ),
    ("script no replies", As::Script, "pace: {}\n", "replies"),
    (
        "script reply without text",
        As::Script,
        "replies:\n  - role: critic\n",
        "replies.yaml",
    ),
    (
        "script round zero",
        As::Script,
        "replies:\n  - role: critic\n    round: 0\n    text: x\n",
        "round",
    ),
    (
        "script unknown fault",
        As::Script,
        "replies:\n  - role: critic\n    fault: meteor\n    text: x\n",
        "replies.yaml:",
    ),
    (
        "script unknown role",
        As::Script,
        "replies:\n  - role: judge.analist\n    text: x\n",
        "replies.yaml:2: replies[0].role",
    ),
    (
        "script unknown stage",
        As::Script,
        "replies:\n  - role: critic\n    stage: lunch\n    text: x\n",
        "replies.yaml:3: replies[0].stage",
    ),
];

#[test]
fn malformed_inputs_are_refused_with_their_place() {
    assert!(CORPUS.len() >= 40, "{} inputs", CORPUS.len());
    let sandbox = Sandbox::new();
    let out = out(&sandbox);
    let mut failures = Vec::new();
    for (name, kind, text, expected) in CORPUS {
        let (file, args): (&str, Vec<String>) = match kind {
            As::Spec => ("spec.yaml", vec!["run".into(), "{}".into()]),
            As::Config => (
                "config.yaml",
                vec!["demo".into(), "--config".into(), "{}".into()],
            ),
            As::Theme => (
                "theme.yaml",
                vec!["demo".into(), "--theme".into(), "{}".into()],
            ),
            As::Script => (
                "replies.yaml",
                vec![
                    "challenge".into(),
                    "T".into(),
                    "--script".into(),
                    "{}".into(),
                ],
            ),
        };
        let path = sandbox.write(file, text);
        let mut args: Vec<String> = args
            .into_iter()
            .map(|arg| arg.replace("{}", path.to_str().unwrap()))
            .collect();
        args.extend(["--headless".into(), "--out".into(), out.clone()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = quorum_in(sandbox.path(), &args, &[], None);
        no_canary(&ran);
        let problem = if ran.code != 2 {
            Some(format!("exit {}", ran.code))
        } else if !ran.stderr.contains(file) {
            Some("the file is not named".to_string())
        } else if !ran.stderr.contains(expected) {
            Some(format!("no {expected:?}"))
        } else if sandbox.out().exists() {
            Some("something was written".to_string())
        } else {
            None
        };
        if let Some(problem) = problem {
            failures.push(format!("{name}: {problem}\n  {}", ran.stderr.trim()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
