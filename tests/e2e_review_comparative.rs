//! The decision review's comparative mode end to end (issue 11; DR-52..
//! DR-57, RF-17, A15): the built-in demo compares three job queues, one of
//! which has a dealbreaker; the summary leads with the recommendation, the
//! condition that would change it and the dealbreaker, in plain words; the
//! ranking is recorded and `quorum verdict` derives it again from the judge
//! files; bad options are refused before anything is written.
use crate::support;

use std::path::{Path, PathBuf};

use support::run::{Sandbox, only_run};
use yaml_serde::Value;

fn run_demo(sandbox: &Sandbox) -> PathBuf {
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--mode",
            "comparative",
            "--headless",
            "--speed",
            "200",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    assert!(
        ran.stdout.starts_with("**Recommendation: option A,"),
        "{}",
        ran.stdout
    );
    only_run(&out)
}

fn record(dir: &Path) -> Value {
    yaml_serde::from_str(&std::fs::read_to_string(dir.join("debate.yaml")).unwrap()).unwrap()
}

/// DR-55, A15, RF-17: three options ranked by the judges' scores, the one
/// with a dealbreaker last and never recommended, no verdict, exit 0.
#[test]
fn dr_55_rf_17_three_options_one_with_a_dealbreaker() {
    let sandbox = Sandbox::new();
    let dir = run_demo(&sandbox);
    let record = record(&dir);
    assert_eq!(record["meta"]["mode"].as_str(), Some("comparative"));
    assert_eq!(record["outcome"]["kind"].as_str(), Some("completed"));
    // RULES.md A13: the mode's fields are the top-level `decision` block.
    assert!(record["comparison"].is_null(), "one place for the result");
    let comparison = &record["decision"];
    assert!(comparison["conditional_recommendation"].is_string());
    assert_eq!(comparison["recommendation"].as_str(), Some("A"));
    let order: Vec<&str> = comparison["ranking"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|option| option["option"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["A", "C", "B"]);
    assert!(
        comparison["ranking"][2]["dealbreaker"]
            .as_str()
            .unwrap()
            .starts_with("b2 risk 1 (analyst)")
    );
    assert_eq!(
        comparison["conditional_recommendation"].as_str(),
        Some("Choose A unless risk matters most: there C is stronger.")
    );
    // Every option was scored on the same criteria (DR-52).
    for option in comparison["ranking"].as_sequence().unwrap() {
        assert_eq!(
            option["scores"].as_mapping().unwrap().len(),
            6,
            "{option:?}"
        );
    }
    // The summary leads with the recommendation, the condition and the
    // dealbreaker, and its opening narrates no process (RF-06, RF-08).
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    let opening = summary.lines().nth(2).unwrap();
    assert!(
        opening.starts_with("**Recommendation: option A, a jobs table"),
        "{opening}"
    );
    assert!(
        opening.contains("Choose A unless risk matters most"),
        "{opening}"
    );
    assert!(
        opening.contains(
            "B is ruled out by a risk with no acceptable answer: a failover can drop jobs"
        ),
        "{opening}"
    );
    assert!(
        quorum::protocol::record::provenance(
            opening,
            "Which job queue should the order service use?",
            &quorum::protocol::decision_review::role_words()
        )
        .is_empty(),
        "{opening}"
    );
    assert!(summary.contains("| 3 | B |"), "{summary}");
    assert!(!summary.contains("ADOPT") && !summary.contains("REVISE"));
}

/// A15: `quorum verdict` derives the ranking again from the judge files, so
/// editing a judge's answer changes it.
#[test]
fn a15_quorum_verdict_recomputes_the_ranking_from_the_judge_files() {
    let sandbox = Sandbox::new();
    let dir = run_demo(&sandbox);
    let ran = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    ran.assert_code(0);
    assert_eq!(
        ran.stdout.trim(),
        "ranking A > C > B; Choose A unless risk matters most: there C is stronger."
    );
    // The analyst now sees a way back for Redis and a dealbreaker in Postgres.
    let analyst = dir.join("judges/judge-analyst.md");
    let text = std::fs::read_to_string(&analyst).unwrap();
    let edited = text
        .replace(
            "  - block_id: b2\n    criterion: risk\n    score: 1",
            "  - block_id: b2\n    criterion: risk\n    score: 4",
        )
        .replace(
            "  - block_id: a1\n    criterion: risk\n    score: 4",
            "  - block_id: a1\n    criterion: risk\n    score: 1",
        );
    assert_ne!(edited, text);
    std::fs::write(&analyst, edited).unwrap();
    let ran = sandbox.quorum(&["verdict", dir.to_str().unwrap(), "--json"], &[]);
    ran.assert_code(0);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["recommendation"], "C");
    assert_eq!(json["ranking"][2]["option"], "A");
}

/// Options are checked like any spec value, before anything is written.
#[test]
fn dr_56_options_are_checked_before_anything_is_written() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let out = out.to_str().unwrap();
    for (args, expected) in [
        (
            vec![
                "review",
                "T",
                "--mode",
                "comparative",
                "--option",
                "A: only one",
            ],
            "--option: a comparison needs 2 to 6 options (--option \"A: …\", or `options:` in a spec), got 1",
        ),
        (
            vec!["review", "T", "--option", "A: x", "--option", "B: y"],
            "--option: options are compared in the comparative mode",
        ),
        (
            vec![
                "review",
                "T",
                "--mode",
                "comparative",
                "--option",
                "A: x",
                "--option",
                "a: y",
            ],
            "--option[1]: option `a` is named twice",
        ),
        (
            vec![
                "review",
                "T",
                "--mode",
                "comparative",
                "--option",
                "A:",
                "--option",
                "B: y",
            ],
            "--option[0]: an option needs its text",
        ),
    ] {
        let mut args = args;
        args.extend(["--headless", "--out", out]);
        let ran = sandbox.quorum(&args, &[]);
        ran.assert_code(2);
        assert!(ran.stderr.contains(expected), "{expected}: {}", ran.stderr);
    }
    assert!(!sandbox.out().exists());
}

/// An option may be a file beside the spec (`{name, path}`), read like a
/// context file: inside the spec's folder unless allowed, with its limit.
#[test]
fn an_option_may_be_a_file_beside_the_spec() {
    let sandbox = Sandbox::new();
    let exported = sandbox.path().join("specs/compare.yaml");
    std::fs::create_dir_all(exported.parent().unwrap()).unwrap();
    sandbox
        .quorum(
            &[
                "demo",
                "--mode",
                "comparative",
                "--export-script",
                exported.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let spec = std::fs::read_to_string(&exported).unwrap();
    sandbox.write(
        "specs/options/postgres.md",
        "A jobs table in the Postgres we already run\n",
    );
    sandbox.write("outside.md", "Redis Streams\n");
    let with_files = spec.replacen(
        "  - \"A: A jobs table in the Postgres we already run (SKIP LOCKED)\"\n",
        "  - { name: A, path: options/postgres.md }\n",
        1,
    );
    assert_ne!(with_files, spec);
    std::fs::write(&exported, &with_files).unwrap();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "run",
            exported.to_str().unwrap(),
            "--headless",
            "--speed",
            "200",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let record = record(&only_run(&out));
    assert_eq!(
        record["options"][0]["text"].as_str(),
        Some("A jobs table in the Postgres we already run")
    );
    let outside = with_files.replacen(
        "  - \"B: Redis Streams on the cache team's cluster\"\n",
        "  - { name: B, path: ../outside.md }\n",
        1,
    );
    std::fs::write(&exported, &outside).unwrap();
    let ran = sandbox.quorum(
        &[
            "run",
            exported.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr
            .contains("options[1]: `../outside.md` climbs out with `..`"),
        "{}",
        ran.stderr
    );
}

/// A deferred item accepted after the ranking reopens the comparison like
/// a verdict: one more revision and evaluation, and a new ranking.
#[test]
fn an_item_accepted_after_the_ranking_reopens_the_comparison() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    sandbox
        .quorum(
            &[
                "demo",
                "--mode",
                "comparative",
                "--moderation",
                "defer",
                "--headless",
                "--speed",
                "200",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let dir = only_run(&out);
    let dir_text = dir.to_str().unwrap();
    let settled = sandbox.quorum(&["open", dir_text, "--resolve", "c2=accept"], &[]);
    settled.assert_code(0);
    assert!(
        settled.stdout.contains("The debate is reopened"),
        "{}",
        settled.stdout
    );
    sandbox
        .quorum(&["resume", dir_text, "--reopen", "--headless"], &[])
        .assert_code(0);
    let record = record(&dir);
    let rounds = record["stages"]["evaluation"]["rounds"]
        .as_sequence()
        .unwrap();
    assert_eq!(rounds.len(), 2);
    assert_eq!(record["decision"]["recommendation"].as_str(), Some("A"));
    assert_eq!(record["outcome"]["kind"].as_str(), Some("completed"));
}
