//! Verified evidence from the command line (issue 52): sources given with
//! `--repo` and `--logs` (and a spec's `repo:` and `logs:`) are recorded
//! with their hashes and checked against; a source outside what the person
//! named is refused, file, line and field; a hostile citation is never a
//! path quorum opens.

use crate::support;

use quorum::protocol::evidence::EvidenceRecord;
use quorum::protocol::registry;
use support::run::{Sandbox, only_run};

/// The rca demo run headless in `sandbox` with a log and a small tree as
/// sources: its debate folder.
fn rca_with_sources(sandbox: &Sandbox) -> std::path::PathBuf {
    sandbox.write("svc/.gitignore", "build/\n");
    sandbox.write(
        "svc/src/submit.rs",
        "fn submit() {\n    fraud::score();\n}\n",
    );
    sandbox.write("svc/build/generated.rs", "IGNORED-BY-GIT\n");
    sandbox.write("logs/checkout.log", "14:02:10 deploy v2.31.0\n");
    let repo = sandbox.path().join("svc");
    let log = sandbox.path().join("logs/checkout.log");
    let ran = sandbox.demo_into(
        "out",
        &[
            "--protocol",
            "rca",
            "--repo",
            repo.to_str().unwrap(),
            "--logs",
            log.to_str().unwrap(),
        ],
    );
    // Headless, nobody rules out H4, whose log line is not in the log.
    ran.assert_code(8);
    sandbox.run_dir()
}

/// EV-01: the tree and the log are recorded with their hashes in the
/// journal's first line, a git-ignored file is never read, and the record
/// carries the checks.
#[test]
fn ev_01_repo_and_logs_are_recorded_with_their_hashes_and_cited_against() {
    let sandbox = Sandbox::new();
    let dir = rca_with_sources(&sandbox);
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let first = journal.lines().next().unwrap();
    for part in [
        "\"kind\":\"log\"",
        "\"name\":\"checkout.log\"",
        "\"kind\":\"repo\"",
        "\"name\":\"svc\"",
        "\"files\":1",
        "\"sha256\":\"",
    ] {
        assert!(first.contains(part), "EV-01: {part} in {first}");
    }
    assert!(
        !journal.contains("IGNORED-BY-GIT"),
        "a git-ignored file is no source"
    );
    let evidence = std::fs::read_to_string(dir.join("evidence.yaml")).unwrap();
    assert!(evidence.contains("kind: repo"), "{evidence}");
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("## Evidence"), "{summary}");
}

/// EV-04: a source that changed since the debate started is reported by
/// `quorum verdict` and `quorum open`, naming it; unchanged, nothing is said.
#[test]
fn ev_04_a_source_changed_since_the_debate_is_reported_by_verdict_and_open() {
    let sandbox = Sandbox::new();
    let dir = rca_with_sources(&sandbox);
    let dir_text = dir.to_str().unwrap();
    let before = sandbox.quorum(&["verdict", dir_text], &[]);
    assert!(
        !before.stderr.contains("changed since"),
        "{}",
        before.stderr
    );
    sandbox.write("logs/checkout.log", "14:02:10 deploy v2.31.1\n");
    sandbox.write("svc/src/submit.rs", "fn submit() {}\n");
    let verdict = sandbox.quorum(&["verdict", dir_text], &[]);
    for part in [
        "note: log `checkout.log`",
        "note: source tree `svc`",
        "changed since the debate started",
    ] {
        assert!(verdict.stderr.contains(part), "{part}: {}", verdict.stderr);
    }
    let open = sandbox.quorum(&["open", dir_text, "--headless"], &[]);
    assert!(
        open.stderr.contains("note: log `checkout.log`"),
        "{}",
        open.stderr
    );
}

/// EV-06: a spec's repo outside its folder is refused with file, line and
/// field, and nothing is written; `--repo` naming no folder is refused
/// naming the flag.
#[test]
fn ev_06_a_repo_outside_the_spec_folder_or_missing_is_refused() {
    let sandbox = Sandbox::new();
    sandbox.write("outside/secret.rs", "CANARY\n");
    let spec = sandbox.write(
        "specs/spec.yaml",
        "protocol: rca\ntopic: x\nrepo: ../outside\n",
    );
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("spec.yaml:3: repo:") && ran.stderr.contains("climbs out with `..`"),
        "{}",
        ran.stderr
    );
    assert!(!out.exists(), "nothing written");
    let ran = sandbox.quorum(
        &[
            "demo",
            "--protocol",
            "rca",
            "--headless",
            "--repo",
            sandbox.path().join("nowhere").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(ran.stderr.contains("--repo"), "{}", ran.stderr);
    let ran = sandbox.quorum(
        &[
            "demo",
            "--protocol",
            "rca",
            "--headless",
            "--logs",
            sandbox.path().join("nowhere.log").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(ran.stderr.contains("--logs"), "{}", ran.stderr);
}

/// EV-05: each answer's citations, checked, are a line of the transcript
/// and of the headless progress (`!` when one failed), naming the first
/// that failed; the live pane lists each under the answer (the app's own
/// test).
#[test]
fn ev_05_each_answers_citations_are_tallied_in_the_transcript_and_progress() {
    let sandbox = Sandbox::new();
    let ran = sandbox.demo_into("out", &["--protocol", "rca"]);
    ran.assert_code(8);
    let failed = ran
        .stderr
        .lines()
        .find(|line| line.starts_with('!') && line.contains(" cited "))
        .unwrap_or_else(|| panic!("a failed citation's tally: {}", ran.stderr));
    assert!(failed.contains("failed (\""), "names the first: {failed}");
    assert!(
        ran.stderr
            .lines()
            .any(|line| line.starts_with(' ') && line.contains("verified")),
        "{}",
        ran.stderr
    );
    let transcript = std::fs::read_to_string(sandbox.run_dir().join("transcript.md")).unwrap();
    assert!(transcript.contains("**cited**"), "{transcript}");
}

/// EV-10: an agent that asks to be shown sources in a `request` block is
/// shown them, numbered, in its next prompt (journaled with the call); a
/// name quorum did not load is refused in the transcript and never opened.
#[test]
fn ev_10_a_debugger_asking_for_a_file_is_shown_it_in_its_next_prompt() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "svc/src/submit.rs",
        "fn submit() {\n    fraud::score();\n}\n",
    );
    let spec = sandbox.path().join("rca.yaml");
    sandbox
        .quorum(
            &[
                "demo",
                "--protocol",
                "rca",
                "--export-script",
                spec.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let exported = std::fs::read_to_string(&spec).unwrap();
    let opening =
        "        One hypothesis. The timing and the code both point at the 14:02 deploy.\n";
    assert!(exported.contains(opening), "the demo's first answer");
    let asking = format!(
        "{opening}        ```request\n        - src/submit.rs:L2\n        - ../../etc/passwd\n        ```\n"
    );
    sandbox.write("rca.yaml", &exported.replacen(opening, &asking, 1));
    let repo = sandbox.path().join("svc");
    let ran = sandbox.run_spec("rca.yaml", &["--repo", repo.to_str().unwrap()]);
    ran.assert_code(8);
    let dir = sandbox.run_dir();
    let transcript = std::fs::read_to_string(dir.join("transcript.md")).unwrap();
    assert!(
        transcript.contains("debugger.alpha asked to be shown src/submit.rs:L2"),
        "{transcript}"
    );
    assert!(
        transcript.contains("../../etc/passwd: no source of that name"),
        "{transcript}"
    );
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let shown: Vec<&str> = journal
        .lines()
        .filter(|line| line.contains("The sources you asked for"))
        .collect();
    assert_eq!(shown.len(), 1, "shown once, in the next prompt");
    assert!(shown[0].contains("debugger.alpha/answers"), "{}", shown[0]);
    assert!(
        shown[0].contains("    2      fraud::score();"),
        "{}",
        shown[0]
    );
    assert!(!journal.contains("root:x:0"), "never opened");
}

/// EV-04: `quorum verdict` checks every recorded citation again against
/// the sources: a record edited to drop a hypothesis's failed citation
/// from `unverified`, or to mark it verified in `evidence.yaml`, changes
/// nothing, and the reading says the fresh check counts.
#[test]
fn ev_04_verdict_checks_the_citations_again_and_an_edited_record_does_not_count() {
    let sandbox = Sandbox::new();
    sandbox
        .demo_into("out", &["--protocol", "rca"])
        .assert_code(8);
    let dir = sandbox.run_dir();
    let dir_text = dir.to_str().unwrap();
    let before = sandbox.quorum(&["verdict", dir_text], &[]);
    assert!(!before.stderr.contains("checks now"), "{}", before.stderr);

    let rca = std::fs::read_to_string(dir.join("rca.yaml")).unwrap();
    let mut record: yaml_serde::Value = yaml_serde::from_str(&rca).unwrap();
    let unverified = record.get_mut("unverified").expect("a failed citation");
    let (id, _) = unverified
        .as_mapping()
        .and_then(|map| map.iter().next())
        .map(|(id, why)| (id.as_str().unwrap().to_string(), why.clone()))
        .expect("one hypothesis");
    *unverified = yaml_serde::Value::Mapping(Default::default());
    std::fs::write(
        dir.join("rca.yaml"),
        yaml_serde::to_string(&record).unwrap(),
    )
    .unwrap();
    let evidence = std::fs::read_to_string(dir.join("evidence.yaml")).unwrap();
    std::fs::write(
        dir.join("evidence.yaml"),
        evidence.replace(
            "      status: not_found\n      source: checkout-api.log\n",
            "      status: verified\n      source: checkout-api.log\n      lines:\n        first: 1\n        last: 1\n",
        ),
    )
    .unwrap();

    let after = sandbox.quorum(&["verdict", dir_text], &[]);
    assert_eq!(after.stdout, before.stdout, "the verdict stands");
    assert_eq!(after.code, before.code);
    for part in [
        "and checks now as not found",
        &format!("rca.yaml: {id} counts as unverified, as its citations check now"),
    ] {
        assert!(after.stderr.contains(part), "{part}: {}", after.stderr);
    }
}

/// Every built-in demo, once each: the protocol's name and the mode that
/// picks it (none for a protocol without modes); modes that share a demo
/// run it once.
fn every_demo() -> Vec<(&'static str, Option<&'static str>)> {
    let mut seen: Vec<&'static str> = Vec::new();
    let mut demos = Vec::new();
    for kind in registry::BUILT_IN {
        let modes: Vec<Option<&'static str>> = match kind.modes() {
            [] => vec![None],
            modes => modes.iter().copied().map(Some).collect(),
        };
        for mode in modes {
            let text = kind.demo(mode).expect("every mode has a demo");
            if seen.contains(&text) {
                continue;
            }
            seen.push(text);
            demos.push((kind.name(), mode));
        }
    }
    demos
}

/// EV-05 (the README names no rule for what the demos show; EV-05 is the
/// one id the evidence rules leave free): every built-in demo cites its
/// sources, and what it shows a newcomer includes both outcomes, at least
/// one citation that verified and one that did not, in `evidence.yaml`
/// and in the Evidence section of what it delivers.
#[test]
fn ev_05_every_demo_cites_a_source_that_verifies_and_one_that_does_not() {
    let sandbox = Sandbox::new();
    let demos = every_demo();
    assert!(demos.len() >= 12, "{demos:?}");
    for (index, (protocol, mode)) in demos.iter().enumerate() {
        let label = match mode {
            Some(mode) => format!("{protocol} --mode {mode}"),
            None => protocol.to_string(),
        };
        let root = format!("demo-{index}");
        let mut args = vec!["--protocol", protocol];
        if let Some(mode) = mode {
            args.extend(["--mode", mode]);
        }
        let ran = sandbox.demo_into(&root, &args);
        assert!(
            ![1, 2].contains(&ran.code),
            "{label}: the demo ran (exit {})\n{}",
            ran.code,
            ran.stderr
        );
        let dir = only_run(&sandbox.path().join(&root));
        let yaml = std::fs::read_to_string(dir.join("evidence.yaml"))
            .unwrap_or_else(|_| panic!("{label}: evidence.yaml is written"));
        let record = EvidenceRecord::read(&yaml).expect("evidence.yaml reads");
        let verified: usize = record.claims.values().map(|c| c.verified()).sum();
        let failed: usize = record.claims.values().map(|c| c.failed()).sum();
        assert!(
            verified >= 1 && failed >= 1,
            "{label}: {verified} verified, {failed} failed\n{yaml}"
        );
        let sections: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .filter_map(|text| {
                let at = text.find("\n## Evidence\n")?;
                let rest = &text[at + 1..];
                let end = rest[3..].find("\n## ").map_or(rest.len(), |end| end + 3);
                Some(rest[..end].to_string())
            })
            .collect();
        assert!(
            sections
                .iter()
                .any(|section| section.contains("- ✓ ") && section.contains("- ✗ ")),
            "{label}: a deliverable's Evidence section shows both\n{sections:?}"
        );
    }
}
