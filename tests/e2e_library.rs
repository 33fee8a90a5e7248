//! The library of past debates (issue 55), end to end through the real
//! binary: a debate a person ruled lands in it and moves the figures, a
//! policy's rulings do not; `quorum library` lists, searches and prints the
//! figures; `quorum library add` files folders on disk; `quorum doctor`
//! reports it; a damaged library never stops a debate; and a binding judge
//! below the configured floor is seated advisory, recorded in the journal's
//! definition and said in the record.
//!
//! Each test's library is its own: the sandbox's `XDG_DATA_HOME`.
use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use support::run::{Ran, Sandbox, only_run, quorum_in};

/// The library's file in a sandbox.
fn library_file(sandbox: &Sandbox) -> PathBuf {
    sandbox
        .path()
        .join("data")
        .join("quorum")
        .join(quorum::store::LIBRARY_FILE)
}

/// `quorum demo` (a decision review) headless into `root`, its items ruled
/// by `moderation`, with `stdin` as the person's answers.
fn demo(sandbox: &Sandbox, root: &str, extra: &[&str], stdin: Option<&str>) -> (Ran, PathBuf) {
    let out = sandbox.path().join(root);
    let mut args = vec![
        "demo",
        "--headless",
        "--speed",
        "50",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let ran = quorum_in(sandbox.path(), &args, &[], stdin);
    // Any verdict will do (a high-stakes demo escalates: its strategist has
    // no script); a failed run (1) or a refused one (2) will not.
    assert!(
        ran.code != 1 && ran.code != 2,
        "the demo ran to a verdict: {}\n{}",
        ran.stdout,
        ran.stderr
    );
    (ran, only_run(&out))
}

fn json_of(ran: &Ran) -> Json {
    assert_eq!(ran.code, 0, "{}\n{}", ran.stdout, ran.stderr);
    serde_json::from_str(&ran.stdout).unwrap_or_else(|error| panic!("{error}: {}", ran.stdout))
}

/// The critics' labels the figures count: accepted and rejected by a person.
fn critic_labels(sandbox: &Sandbox) -> (u64, u64) {
    let figures = json_of(&sandbox.quorum(
        &["library", "--calibration", "--json", "--min-labels", "1"],
        &[],
    ));
    figures["critics"]
        .as_array()
        .unwrap()
        .iter()
        .fold((0, 0), |(accepted, rejected), figure| {
            (
                accepted + figure["accepted"].as_u64().unwrap(),
                rejected + figure["rejected"].as_u64().unwrap(),
            )
        })
}

/// A person's answers for every item the demo raises: accept, reject in turn.
fn answers() -> String {
    "accept\nreject\n".repeat(20)
}

/// JM-20: a debate whose items a person ruled (`--moderation ask`) is filed
/// when it ends, with its rulings as labels, and the figures count them; a
/// debate a policy ruled (`--moderation accept`) is filed too but moves no
/// figure; search finds topics and items; `quorum library add` files the
/// folders again into a new library; `quorum doctor` reports it.
#[test]
fn jm_20_a_persons_rulings_land_in_the_library_and_move_the_figures() {
    let sandbox = Sandbox::new();
    let (ran, first) = demo(&sandbox, "one", &["--moderation", "ask"], Some(&answers()));
    assert!(!ran.stderr.contains("library:"), "{}", ran.stderr);
    assert!(
        library_file(&sandbox).is_file(),
        "the debate created the library"
    );

    let listed = json_of(&sandbox.quorum(&["library", "--json"], &[]));
    let debates = listed["debates"].as_array().unwrap();
    assert_eq!(debates.len(), 1, "{listed}");
    let folder = std::fs::canonicalize(&first).unwrap();
    assert_eq!(debates[0]["folder"], folder.display().to_string());
    assert_eq!(debates[0]["protocol"], "decision-review");
    let person_rulings = debates[0]["person_rulings"].as_u64().unwrap();
    assert!(person_rulings >= 2, "{listed}");
    assert_eq!(debates[0]["rulings"].as_u64().unwrap(), person_rulings);
    let (accepted, rejected) = critic_labels(&sandbox);
    assert!(accepted >= 1 && rejected >= 1, "{accepted} {rejected}");
    assert_eq!(accepted + rejected, person_rulings);

    // A policy's rulings are kept, never counted.
    demo(&sandbox, "two", &["--moderation", "accept"], None);
    let listed = json_of(&sandbox.quorum(&["library", "--json"], &[]));
    assert_eq!(listed["debates"].as_array().unwrap().len(), 2);
    assert_eq!(listed["debates"][0]["person_rulings"], 0, "newest first");
    assert_eq!(critic_labels(&sandbox), (accepted, rejected));

    // Another ruled by a person: the figures move.
    demo(
        &sandbox,
        "three",
        &["--moderation", "ask"],
        Some(&answers()),
    );
    assert_eq!(critic_labels(&sandbox), (2 * accepted, 2 * rejected));

    // The human-readable figures: too few labels says so, enough gives the number.
    let words = sandbox.quorum(&["library", "--calibration"], &[]);
    assert_eq!(words.code, 0, "{}", words.stderr);
    assert!(words.stdout.contains("too few labels"), "{}", words.stdout);
    let words = sandbox.quorum(&["library", "--calibration", "--min-labels", "1"], &[]);
    assert!(words.stdout.contains("accepted of"), "{}", words.stdout);
    assert!(words.stdout.contains("kappa"), "{}", words.stdout);

    // Search: the topic, then an item's text, then nothing.
    let topic = listed["debates"][0]["topic"].as_str().unwrap().to_string();
    let word = topic
        .split_whitespace()
        .max_by_key(|word| word.len())
        .unwrap();
    let found = json_of(&sandbox.quorum(&["library", word, "--json"], &[]));
    assert_eq!(found["debates"].as_array().unwrap().len(), 3, "{found}");
    let none = json_of(&sandbox.quorum(&["library", "no-such-words-anywhere", "--json"], &[]));
    assert!(none["debates"].as_array().unwrap().is_empty());
    let plain = sandbox.quorum(&["library"], &[]);
    assert!(plain.stdout.contains("decision-review"), "{}", plain.stdout);
    assert!(plain.stdout.contains("by a person"), "{}", plain.stdout);

    // `quorum library add` files what is on disk into a fresh library.
    std::fs::remove_file(library_file(&sandbox)).unwrap();
    let added = sandbox.quorum(
        &[
            "library",
            "add",
            first.to_str().unwrap(),
            sandbox.path().join("nowhere").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(
        added.code, 2,
        "a folder that is no debate fails the command"
    );
    assert!(added.stderr.contains("quorum: filed"), "{}", added.stderr);
    assert!(added.stderr.contains("cannot file"), "{}", added.stderr);
    assert_eq!(critic_labels(&sandbox), (accepted, rejected));

    let doctor = sandbox.quorum(&["doctor"], &[]);
    assert!(doctor.stdout.contains("\nLibrary\n"), "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("schema version 2 · 1 debate ·"),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor.stdout.contains("judge floor: off"),
        "{}",
        doctor.stdout
    );
}

/// JM-24 (end to end): a library that is not a database is reported once
/// and left as it is; the debate runs to its verdict as ever; `quorum
/// library` and `quorum doctor` name the file.
#[test]
fn jm_24_a_damaged_library_never_stops_a_debate() {
    let sandbox = Sandbox::new();
    let garbage = "not a database, whatever its name says\n".repeat(200);
    let file = library_file(&sandbox);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, &garbage).unwrap();
    let (ran, dir) = demo(&sandbox, "out", &["--moderation", "accept"], None);
    assert!(dir.join("summary.md").is_file());
    assert_eq!(
        ran.stderr.matches("quorum: library:").count(),
        1,
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("is not a quorum library"),
        "{}",
        ran.stderr
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), garbage);
    let listed = sandbox.quorum(&["library"], &[]);
    assert_eq!(listed.code, 1);
    assert!(
        listed.stderr.contains(quorum::store::LIBRARY_FILE),
        "{}",
        listed.stderr
    );
    let doctor = sandbox.quorum(&["doctor"], &[]);
    assert!(doctor.stdout.contains("unusable:"), "{}", doctor.stdout);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), garbage);
}

/// A debate of `agent` judging as `judge`, whose labels disagree with the
/// person's rulings on every one of `count` items.
fn disagreeing_debate(
    folder: &str,
    judge: &str,
    agent: &str,
    count: usize,
) -> quorum::store::FiledDebate {
    use quorum::store::{FiledDebate, FiledRuling, JudgeLabel};
    let prompt_hash =
        quorum::cli::library::prompt_hash("decision-review", &std::collections::BTreeMap::new());
    let rulings: Vec<FiledRuling> = (0..count)
        .map(|n| FiledRuling {
            item_id: format!("c{n}"),
            target: "b1".to_string(),
            text: format!("item {n}"),
            raised_by: Some("critic".to_string()),
            agent: Some("script:critic".to_string()),
            decision: if n % 4 == 0 { "reject" } else { "accept" }.to_string(),
            by_person: true,
        })
        .collect();
    FiledDebate {
        folder: folder.to_string(),
        protocol: "decision-review".to_string(),
        mode: "decision review".to_string(),
        topic: "Earlier".to_string(),
        verdict: "ADOPT".to_string(),
        started_at: "2026-01-01T00:00:00+00:00".to_string(),
        ended_at: None,
        moderated_by: "person".to_string(),
        prompt_hash,
        seats: Vec::new(),
        judge_labels: rulings
            .iter()
            .map(|ruling| JudgeLabel {
                item_id: ruling.item_id.clone(),
                judge: judge.to_string(),
                agent: agent.to_string(),
                // Flags what the person rejected, passes what they accepted.
                flagged: ruling.decision == "reject",
                binding: true,
            })
            .collect(),
        rulings,
    }
}

/// The agent that played `slot` in the debate in `dir`.
fn agent_of(dir: &Path, slot: &str) -> String {
    let filed = quorum::cli::library::filed(dir).unwrap();
    filed
        .seats
        .iter()
        .find(|seat| seat.slot == slot)
        .unwrap_or_else(|| panic!("{slot} in {:?}", filed.seats))
        .agent
        .clone()
}

/// JM-29: with `calibration.judge_kappa_floor` configured, a binding judge
/// whose kappa in the library is below it over enough labels is seated
/// advisory: said on stderr, recorded in the journal's definition (its
/// weight and why), in debate.yaml and in the summary's "How this was
/// decided"; `quorum verdict` recomputes from the record without the
/// library. Without the floor the same library changes nothing.
#[test]
fn jm_29_a_judge_below_the_floor_is_seated_advisory_and_the_record_says_why() {
    let sandbox = Sandbox::new();
    let (_, first) = demo(
        &sandbox,
        "first",
        &["--moderation", "accept", "--high-stakes"],
        None,
    );
    let analyst = agent_of(&first, "judge.analyst");
    {
        let mut library = quorum::store::Library::open(&library_file(&sandbox)).unwrap();
        library
            .file(&disagreeing_debate(
                "/earlier",
                "judge.analyst",
                &analyst,
                24,
            ))
            .unwrap();
    }
    // No floor configured: the panel is seated as configured.
    let (ran, plain) = demo(
        &sandbox,
        "plain",
        &["--moderation", "accept", "--high-stakes"],
        None,
    );
    assert!(!ran.stderr.contains("calibration"), "{}", ran.stderr);
    let journal = std::fs::read_to_string(plain.join("journal.jsonl")).unwrap();
    assert!(!journal.lines().next().unwrap().contains("\"calibration\""));

    sandbox.write(
        "config/quorum/config.yaml",
        "calibration:\n  judge_kappa_floor: 0.2\n  min_labels: 20\n",
    );
    let (ran, dir) = demo(
        &sandbox,
        "floored",
        &["--moderation", "accept", "--high-stakes"],
        None,
    );
    assert!(
        ran.stderr.contains("quorum: calibration: judge.analyst"),
        "{}",
        ran.stderr
    );
    let definition: Json = serde_json::from_str(
        std::fs::read_to_string(dir.join("journal.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let text = definition.to_string();
    assert!(text.contains("\"calibration\":[{"), "{text}");
    assert!(text.contains("\"labels\":24"), "{text}");
    let yaml = std::fs::read_to_string(dir.join("debate.yaml")).unwrap();
    assert!(
        yaml.contains("is seated advisory instead of binding"),
        "{yaml}"
    );
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("Calibration: judge.analyst"), "{summary}");
    assert!(summary.contains("below the floor 0.20"), "{summary}");
    let transcript = std::fs::read_to_string(dir.join("transcript.md")).unwrap();
    assert!(
        transcript.contains("Calibration: judge.analyst"),
        "{transcript}"
    );

    // The record alone decides: the library gone, the verdict recomputes.
    std::fs::remove_file(library_file(&sandbox)).unwrap();
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    assert_eq!(
        verdict.code, ran.code,
        "{}\n{}",
        verdict.stdout, verdict.stderr
    );

    // A floor out of range is refused, naming the file and the field.
    sandbox.write(
        "config/quorum/config.yaml",
        "calibration:\n  judge_kappa_floor: 3\n",
    );
    let refused = sandbox.quorum(&["library", "--calibration"], &[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("config.yaml:2"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("calibration.judge_kappa_floor"),
        "{}",
        refused.stderr
    );
}

/// JM-20: what agents wrote (a topic, an item's text) reaches the terminal
/// inert: no escape sequence, no bidirectional control, in the lines and in
/// the JSON alike.
#[test]
fn jm_20_agent_text_from_the_library_reaches_the_terminal_inert() {
    let sandbox = Sandbox::new();
    let mut debate = disagreeing_debate("/hostile", "judge.analyst", "p:m", 2);
    debate.topic = "Red \u{1b}[31mALERT\u{1b}[0m and \u{202e}reversed".to_string();
    debate.rulings[0].text = "item \u{1b}]0;title\u{7} with \u{9b}31m".to_string();
    quorum::store::Library::open(&library_file(&sandbox))
        .unwrap()
        .file(&debate)
        .unwrap();
    for args in [
        &["library"][..],
        &["library", "item"][..],
        &["library", "--json"][..],
        &["library", "item", "--json"][..],
        &["library", "--calibration", "--min-labels", "1"][..],
    ] {
        let ran = sandbox.quorum(args, &[]);
        assert_eq!(ran.code, 0, "{args:?}: {}", ran.stderr);
        for bad in ['\u{1b}', '\u{202e}', '\u{9b}', '\u{7}'] {
            assert!(
                !ran.stdout.contains(bad),
                "{args:?} printed {bad:?}: {:?}",
                ran.stdout
            );
        }
        assert!(ran.stdout.contains("ALERT") || args.contains(&"--calibration"));
    }
}

/// JM-25 (end to end): while another process holds the library's write
/// lock, a debate runs to its verdict, says once that the library is
/// locked, and is not filed; the holder's data is untouched.
#[test]
fn jm_25_a_locked_library_never_stops_a_debate() {
    let sandbox = Sandbox::new();
    let file = library_file(&sandbox);
    quorum::store::Library::open(&file)
        .unwrap()
        .file(&disagreeing_debate("/held", "judge.analyst", "p:m", 3))
        .unwrap();
    let holder = rusqlite::Connection::open(&file).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let (ran, dir) = demo(&sandbox, "out", &["--moderation", "accept"], None);
    assert!(dir.join("summary.md").is_file());
    assert_eq!(
        ran.stderr.matches("quorum: library:").count(),
        1,
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("locked by another process"),
        "{}",
        ran.stderr
    );
    holder.execute_batch("ROLLBACK;").unwrap();
    drop(holder);
    let listed = json_of(&sandbox.quorum(&["library", "--json"], &[]));
    let folders: Vec<&str> = listed["debates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|debate| debate["folder"].as_str().unwrap())
        .collect();
    assert_eq!(folders, ["/held"]);
}

/// JM-20: a debate that stopped before its end (here at its budget) is not
/// filed; `quorum resume` that carries it to its verdict files it.
#[test]
fn jm_20_a_resumed_debate_is_filed_when_it_ends() {
    let sandbox = Sandbox::new();
    let out = sandbox.path().join("out");
    let ran = sandbox.quorum(
        &[
            "demo",
            "--headless",
            "--speed",
            "50",
            "--moderation",
            "accept",
            "--budget",
            "0.10",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(ran.code, 9, "stopped at its budget: {}", ran.stderr);
    let dir = only_run(&out);
    let listed = sandbox.quorum(&["library", "--json"], &[]);
    let empty = listed.code != 0 || json_of(&listed)["debates"].as_array().unwrap().is_empty();
    assert!(
        empty,
        "an unfinished debate is not filed: {}",
        listed.stdout
    );
    let resumed = sandbox.quorum(
        &[
            "resume",
            dir.to_str().unwrap(),
            "--headless",
            "--budget",
            "5.00",
        ],
        &[],
    );
    assert!(
        resumed.code != 1 && resumed.code != 2 && resumed.code != 9,
        "{}",
        resumed.stderr
    );
    let listed = json_of(&sandbox.quorum(&["library", "--json"], &[]));
    let debates = listed["debates"].as_array().unwrap();
    assert_eq!(debates.len(), 1, "{listed}");
    assert_ne!(debates[0]["verdict"], "unfinished");
    assert_eq!(debates[0]["person_rulings"], 0, "a policy ruled");
}

/// JM-20: a deferred item a person settles after the verdict (`quorum open
/// DIR --resolve`) is a person's ruling: the library files the debate again
/// with it.
#[test]
fn jm_20_a_settlement_after_the_verdict_is_a_persons_ruling() {
    let sandbox = Sandbox::new();
    let (_, dir) = demo(&sandbox, "out", &["--moderation", "defer"], None);
    let person_rulings = |sandbox: &Sandbox| {
        json_of(&sandbox.quorum(&["library", "--json"], &[]))["debates"][0]["person_rulings"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(person_rulings(&sandbox), 0, "a policy deferred them all");
    let settled = sandbox.quorum(
        &["open", dir.to_str().unwrap(), "--resolve", "c1=reject"],
        &[],
    );
    assert_eq!(settled.code, 0, "{}", settled.stderr);
    assert_eq!(person_rulings(&sandbox), 1);
    assert_eq!(critic_labels(&sandbox), (0, 1));
}

/// A demo moderated on stdin whose person answered only `answers` (one
/// line each) before stdin closed: the run stops at its moderation,
/// unfiled; its folder.
fn stopped_at_moderation(sandbox: &Sandbox, root: &str, answers: &str) -> PathBuf {
    let out = sandbox.path().join(root);
    let ran = quorum_in(
        sandbox.path(),
        &[
            "demo",
            "--headless",
            "--speed",
            "50",
            "--moderation",
            "ask",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
        Some(answers),
    );
    assert!(ran.stderr.contains("stdin closed"), "{}", ran.stderr);
    only_run(&out)
}

/// Each item decision of `dir`'s journal: the item and who it records
/// ruled (`null` when none).
fn rulers_in_journal(dir: &Path) -> Vec<(String, Json)> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Json>(line).unwrap())
        .filter(|record| record["event"]["input"]["type"] == "item_decided")
        .map(|record| {
            let input = &record["event"]["input"];
            (
                input["item_id"].as_str().unwrap().to_string(),
                input["ruler"].clone(),
            )
        })
        .collect()
}

/// The library's listing of its only debate: (rulings, by a person).
fn only_debates_rulings(sandbox: &Sandbox) -> (u64, u64) {
    let listed = json_of(&sandbox.quorum(&["library", "--json"], &[]));
    let debates = listed["debates"].as_array().unwrap();
    assert_eq!(debates.len(), 1, "{listed}");
    (
        debates[0]["rulings"].as_u64().unwrap(),
        debates[0]["person_rulings"].as_u64().unwrap(),
    )
}

/// JM-66: a debate a person moderated at the interface (its definition
/// holds rounds for them, its setup asks) and taken up again under
/// `--moderation accept` is ruled by the policy, item by item: the library
/// files its rulings and counts none as a label, though the debate as a
/// whole reads as moderated.
#[test]
fn jm_66_the_interface_under_an_accept_policy_files_no_persons_labels() {
    let sandbox = Sandbox::new();
    let dir = stopped_at_moderation(&sandbox, "out", "");
    let journal = dir.join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    // As the interface records a debate a person moderates.
    let first = first.replace(
        r#""started_at":"#,
        r#""hold_for_moderator":true,"started_at":"#,
    );
    assert!(first.contains(r#""moderation":"ask""#), "{first}");
    std::fs::write(&journal, format!("{first}\n{rest}")).unwrap();
    let resumed = sandbox.quorum(
        &[
            "resume",
            dir.to_str().unwrap(),
            "--headless",
            "--moderation",
            "accept",
        ],
        &[],
    );
    assert!([0, 3].contains(&resumed.code), "{}", resumed.stderr);
    let rulers = rulers_in_journal(&dir);
    assert!(!rulers.is_empty());
    for (item, ruler) in &rulers {
        assert_eq!(ruler, &serde_json::json!({"policy": "accept"}), "{item}");
    }
    let (rulings, by_person) = only_debates_rulings(&sandbox);
    assert_eq!((rulings, by_person), (rulers.len() as u64, 0));
    assert_eq!(critic_labels(&sandbox), (0, 0));
}

/// JM-69: the journal records who made each ruling, and a debate taken up
/// again keeps it: the person's rulings before the stop stay theirs, the
/// policy's after it are the policy's, and the library counts only the
/// person's.
#[test]
fn jm_69_a_resumed_debate_keeps_who_ruled_before_the_stop() {
    let sandbox = Sandbox::new();
    let dir = stopped_at_moderation(&sandbox, "out", "reject\n");
    let person = Json::from("person");
    assert_eq!(
        rulers_in_journal(&dir),
        [("c1".to_string(), person.clone())]
    );
    let resumed = sandbox.quorum(
        &[
            "resume",
            dir.to_str().unwrap(),
            "--headless",
            "--moderation",
            "accept",
        ],
        &[],
    );
    assert!([0, 3].contains(&resumed.code), "{}", resumed.stderr);
    let rulers = rulers_in_journal(&dir);
    assert_eq!(rulers[0], ("c1".to_string(), person));
    let policy = serde_json::json!({"policy": "accept"});
    assert!(rulers.len() > 1, "{rulers:?}");
    assert!(
        rulers[1..].iter().all(|(_, ruler)| *ruler == policy),
        "{rulers:?}"
    );
    assert_eq!(only_debates_rulings(&sandbox), (rulers.len() as u64, 1));
    assert_eq!(critic_labels(&sandbox), (0, 1));
}

/// JM-67, JM-69: a fork of a debate a person half ruled decides the items
/// they ruled as they did, still theirs, and the rest by `--moderation
/// accept`: the journal records each ruling's ruler, the library counts
/// exactly the person's as labels, and the summary and debate.yaml say who
/// ruled what.
#[test]
fn jm_67_a_fork_files_exactly_the_persons_replayed_rulings_as_labels() {
    let sandbox = Sandbox::new();
    let origin = stopped_at_moderation(&sandbox, "out", "reject: not now\naccept\n");
    let person = Json::from("person");
    assert_eq!(
        rulers_in_journal(&origin),
        [
            ("c1".to_string(), person.clone()),
            ("c2".to_string(), person.clone())
        ]
    );
    let forked = sandbox.quorum(
        &[
            "fork",
            origin.to_str().unwrap(),
            "--at",
            "moderation",
            "--headless",
            "--moderation",
            "accept",
        ],
        &[],
    );
    assert!([0, 3].contains(&forked.code), "{}", forked.stderr);
    let fork = std::fs::read_dir(sandbox.path().join("out"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| *path != origin)
        .expect("the fork's folder");
    let rulers = rulers_in_journal(&fork);
    let policy = serde_json::json!({"policy": "accept"});
    assert_eq!(
        &rulers[..2],
        [
            ("c1".to_string(), person.clone()),
            ("c2".to_string(), person)
        ]
    );
    assert!(rulers.len() > 2, "{rulers:?}");
    assert!(
        rulers[2..].iter().all(|(_, ruler)| *ruler == policy),
        "{rulers:?}"
    );
    let (rulings, by_person) = only_debates_rulings(&sandbox);
    assert_eq!((rulings, by_person), (rulers.len() as u64, 2));
    assert_eq!(critic_labels(&sandbox), (1, 1));
    let summary = std::fs::read_to_string(fork.join("summary.md")).unwrap();
    let line = format!(
        "Rulings: {} items ruled by the accept policy, 2 by you.",
        rulers.len() - 2
    );
    assert!(summary.contains(&line), "{summary}");
    let record = std::fs::read_to_string(fork.join("debate.yaml")).unwrap();
    assert_eq!(record.matches("ruled_by: person").count(), 2, "{record}");
    assert_eq!(
        record.matches("ruled_by: accept").count(),
        rulers.len() - 2,
        "{record}"
    );
}

/// JM-68: a journal from before rulers were recorded (no `ruler` on its
/// decisions) is still read as before: its rulings are the person's when
/// a person moderated, none when a policy did; and its record names no
/// ruler.
#[test]
fn jm_68_a_journal_without_rulers_still_infers_who_ruled() {
    let sandbox = Sandbox::new();
    let (_, asked) = demo(
        &sandbox,
        "asked",
        &["--moderation", "ask"],
        Some(&answers()),
    );
    let (_, accepted) = demo(&sandbox, "accepted", &["--moderation", "accept"], None);
    let library = library_file(&sandbox);
    std::fs::remove_file(&library).unwrap();
    for dir in [&asked, &accepted] {
        let journal = dir.join("journal.jsonl");
        let text = std::fs::read_to_string(&journal).unwrap();
        let legacy = text
            .replace(r#","ruler":"person""#, "")
            .replace(r#","ruler":{"policy":"accept"}"#, "");
        assert_ne!(legacy, text, "the journal recorded its rulers");
        assert!(!legacy.contains(r#""ruler""#));
        std::fs::write(&journal, legacy).unwrap();
        assert!(
            rulers_in_journal(dir)
                .iter()
                .all(|(_, ruler)| ruler.is_null())
        );
        sandbox
            .quorum(&["library", "add", dir.to_str().unwrap()], &[])
            .assert_code(0);
        let rebuilt = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
        assert_eq!(rebuilt.code, 0, "{}", rebuilt.stderr);
        let record = std::fs::read_to_string(dir.join("debate.yaml")).unwrap();
        assert!(!record.contains("ruled_by"), "{record}");
    }
    let listed = json_of(&sandbox.quorum(&["library", "--json"], &[]));
    let by_folder = |dir: &Path| {
        let folder = std::fs::canonicalize(dir).unwrap().display().to_string();
        listed["debates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|debate| debate["folder"] == folder.as_str())
            .map(|debate| {
                (
                    debate["rulings"].as_u64().unwrap(),
                    debate["person_rulings"].as_u64().unwrap(),
                )
            })
            .unwrap_or_else(|| panic!("{folder} in {listed}"))
    };
    let (rulings, by_person) = by_folder(&asked);
    assert!(rulings >= 2);
    assert_eq!(by_person, rulings, "a person moderated on stdin");
    let (rulings, by_person) = by_folder(&accepted);
    assert!(rulings >= 2);
    assert_eq!(by_person, 0, "the accept policy ruled");
}
