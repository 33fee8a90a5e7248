//! Debates recorded by quorum 0.1, before the protocol-neutral core, still
//! resume, replay, open and recompute: the journal's first line is read as
//! the new definition, the decision review rebuilds from it, and every file
//! it renders from the old journal is byte for byte the file 0.1 wrote.
//!
//! The fixtures under `tests/fixtures/legacy/` were written by the 0.1
//! binary: a finished demo whose items were all deferred (the whole folder),
//! and the journal of a demo killed after its twelfth record.
use crate::support;

use std::path::{Path, PathBuf};

use support::run::Sandbox;

const LEGACY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/legacy");

/// A copy of the finished 0.1 debate's journal alone, in a folder of the
/// sandbox: every other file must come back from it.
fn finished_journal_only(sandbox: &Sandbox) -> PathBuf {
    let dir = sandbox.path().join("legacy-finished");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        Path::new(LEGACY).join("v0-finished/journal.jsonl"),
        dir.join("journal.jsonl"),
    )
    .unwrap();
    dir
}

/// `quorum resume` on a finished 0.1 debate rewrites every file from the
/// journal, and each is what 0.1 wrote.
#[test]
fn a_finished_legacy_debate_rebuilds_the_files_it_had() {
    let sandbox = Sandbox::new();
    let dir = finished_journal_only(&sandbox);
    let ran = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    ran.assert_code(0);
    assert!(ran.stdout.contains("is finished: ADOPT"), "{}", ran.stdout);
    let legacy = support::files_under(&Path::new(LEGACY).join("v0-finished"));
    let rebuilt = support::files_under(&dir);
    let mut added_since = 0;
    for (name, bytes) in &legacy {
        let again = rebuilt
            .get(name)
            .unwrap_or_else(|| panic!("{name} was not rebuilt"));
        // What later rules add to the same record, and only that: advisory
        // judges' low scores kept as notes in the decision record (A6).
        let again = without_lines_added_since_0_1(again, &mut added_since);
        // What later rules write differently, and only that: the change
        // list and the strongest objection's standing, written from the
        // moderator's rulings since issue 26.
        let (again, bytes) = (
            without_what_issue_26_rewrote(&again),
            without_what_issue_26_rewrote(bytes),
        );
        assert!(
            again == bytes,
            "{name} differs from what quorum 0.1 wrote:\n{}",
            String::from_utf8_lossy(&again)
        );
    }
    assert_eq!(
        legacy.keys().collect::<Vec<_>>(),
        rebuilt
            .keys()
            .filter(|name| name.as_str() != "quorum.lock")
            .collect::<Vec<_>>()
    );
    assert_eq!(
        added_since, 2,
        "the stylist's low clarity score, in debate.yaml and summary.md"
    );
}

/// `bytes` without the lines rules made after 0.1 add, counted.
fn without_lines_added_since_0_1(bytes: &[u8], added: &mut usize) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let mut kept = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line
            .trim_start()
            .trim_start_matches("- ")
            .starts_with("advisory note, ")
        {
            *added += 1;
        } else {
            kept.push_str(line);
        }
    }
    kept.into_bytes()
}

/// `bytes` without the parts issue 26 writes from the rulings: the change
/// list (summary.md's section, debate.yaml's `what_changed`) and the
/// clause after the strongest objection in the opening ("the revised
/// proposal answers it", now only when the moderator accepted it).
fn without_what_issue_26_rewrote(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let mut kept = String::with_capacity(text.len());
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("## What changed in revision") || line.starts_with("  what_changed:") {
            skipping = true;
            continue;
        }
        if skipping && (line.starts_with("## ") || line.starts_with("  remaining_uncertainty:")) {
            skipping = false;
        }
        if skipping {
            continue;
        }
        let mut line = line
            .replace("; the revised proposal answers it.", ".")
            .replace("; you left it open.", ".")
            // Counted since issue 62: "1 change", not "1 changes".
            .replace(": 1 changes, ", ": 1 change, ");
        // The usage line's time: the time calls ran since issue 62, the
        // whole span before.
        if line.starts_with("Usage: ")
            && let Some(at) = line.rfind(" · ")
        {
            line = format!("{} · (time).\n", &line[..at]);
        }
        kept.push_str(&line);
    }
    kept.into_bytes()
}

/// `quorum verdict`, `open` and `replay` read a 0.1 debate.
#[test]
fn a_legacy_debate_opens_replays_and_recomputes() {
    let sandbox = Sandbox::new();
    let dir = finished_journal_only(&sandbox);
    sandbox
        .quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[])
        .assert_code(0);

    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(0);
    assert!(verdict.stdout.starts_with("ADOPT\n"), "{}", verdict.stdout);

    let shown = sandbox.quorum(&["open", dir.to_str().unwrap(), "--json"], &[]);
    shown.assert_code(0);
    let listing: serde_json::Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(listing["state"], "ADOPT");
    assert_eq!(listing["open_items"].as_array().unwrap().len(), 6);

    let replayed = sandbox.quorum(
        &[
            "replay",
            dir.to_str().unwrap(),
            "--headless",
            "--speed",
            "1000",
        ],
        &[],
    );
    replayed.assert_code(0);
    let last = replayed.stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("ADOPT: "), "{}", replayed.stdout);

    // Settling a deferred item of a 0.1 debate journals it with today's
    // format, after the old lines, and reopens the debate.
    let settled = sandbox.quorum(
        &["open", dir.to_str().unwrap(), "--resolve", "c1=accept"],
        &[],
    );
    settled.assert_code(0);
    assert!(
        settled.stdout.contains("c1: accepted"),
        "{}",
        settled.stdout
    );
    assert!(settled.stdout.contains("reopened"), "{}", settled.stdout);
}

/// A 0.1 debate killed mid-way resumes to its verdict with today's quorum.
#[test]
fn an_interrupted_legacy_debate_resumes_to_its_verdict() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().join("legacy-interrupted");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        Path::new(LEGACY).join("v0-interrupted-journal.jsonl"),
        dir.join("journal.jsonl"),
    )
    .unwrap();
    let ran = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    ran.assert_code(0);
    assert!(
        ran.stderr.contains("resuming the decision review"),
        "{}",
        ran.stderr
    );
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("ADOPT"), "{summary}");
    for judge in ["analyst", "stylist", "aesthete"] {
        assert!(dir.join(format!("judges/judge-{judge}.md")).is_file());
    }
}
