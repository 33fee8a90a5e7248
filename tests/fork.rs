//! `quorum fork` and `quorum compare` (issue 30): a fork at every stage of
//! the decision review's demo, and of every protocol's, runs on to its end
//! and leaves its origin as it was; a fork with another agent plays the
//! role from the cut on, and `compare` says where the two went apart.

use crate::support;

use std::path::{Path, PathBuf};

use quorum::protocol::decision_review::model::JudgeRole;
use quorum::protocol::registry;
use support::provider_server::{ProviderServer, ScriptedResponse};
use support::run::Sandbox;

/// A demo run headless in `sandbox`; its folder.
fn demo(sandbox: &Sandbox, args: &[&str]) -> PathBuf {
    let out = sandbox.out();
    let mut all = vec!["demo", "--headless", "--speed", "50", "--out"];
    all.push(out.to_str().unwrap());
    all.extend(args);
    let ran = sandbox.quorum(&all, &[]);
    assert!(
        matches!(ran.code, 0 | 4..=9),
        "{args:?}: {} {}",
        ran.code,
        ran.stderr
    );
    sandbox.run_dir()
}

/// Every debate folder under `out` but `origin`.
fn forks(out: &Path, origin: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.file_name() != origin.file_name())
        // A council's `.outputs/` is no debate.
        .filter(|path| !path.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    dirs.sort();
    dirs
}

/// The stages a debate stood at, in order, as `fork` lists them when asked
/// for one it never reached.
fn stages_of(sandbox: &Sandbox, dir: &Path) -> Vec<String> {
    let ran = sandbox.quorum(
        &[
            "fork",
            dir.to_str().unwrap(),
            "--at",
            "nowhere",
            "--headless",
        ],
        &[],
    );
    ran.assert_code(2);
    let listed = ran
        .stderr
        .split("it went through ")
        .nth(1)
        .unwrap_or_else(|| panic!("{}", ran.stderr));
    listed.trim().split(", ").map(str::to_string).collect()
}

/// The verdict `quorum verdict` recomputes from a debate's files.
fn verdict_word(sandbox: &Sandbox, dir: &Path) -> String {
    let ran = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    ran.stdout.lines().next().unwrap_or_default().to_string()
}

/// Issue 30: the decision review's demo forked at each stage it stood at
/// (each round of each) runs on headless to the same verdict as its origin
/// (the same script plays on), names its origin in fork.json and in
/// `quorum open`, and the origin's files are not touched.
#[test]
fn a_fork_at_every_stage_of_the_demo_runs_on_and_leaves_the_origin_untouched() {
    let sandbox = Sandbox::new();
    let origin = demo(&sandbox, &[]);
    assert_eq!(verdict_word(&sandbox, &origin), "ADOPT");
    let before = support::files_under(&origin);
    let stages = stages_of(&sandbox, &origin);
    assert!(stages.len() >= 7, "{stages:?}");
    for at in stages.iter().filter(|stage| !stage.starts_with("verdict")) {
        let ran = sandbox.quorum(
            &["fork", origin.to_str().unwrap(), "--at", at, "--headless"],
            &[],
        );
        ran.assert_code(0);
        assert!(
            ran.stderr.contains(&format!("at {at} into")),
            "{}",
            ran.stderr
        );
        assert!(ran.stdout.contains("ADOPT"), "{at}: {}", ran.stdout);
    }
    let out = sandbox.out();
    let forked = forks(&out, &origin);
    assert_eq!(forked.len(), stages.len() - 1, "{forked:?}");
    for fork in &forked {
        let provenance: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fork.join("fork.json")).unwrap())
                .unwrap();
        assert_eq!(
            Path::new(provenance["origin"].as_str().unwrap()),
            origin.canonicalize().unwrap()
        );
        assert!(fork.join("summary.md").is_file(), "{}", fork.display());
        assert_eq!(verdict_word(&sandbox, fork), "ADOPT");
    }
    assert_eq!(
        support::files_under(&origin),
        before,
        "the origin is untouched"
    );
    // A fork's report says where it came from.
    sandbox
        .quorum(&["report", forked[0].to_str().unwrap()], &[])
        .assert_code(0);
    let page = std::fs::read_to_string(forked[0].join("report.html")).unwrap();
    assert!(page.contains("<br>forked from "), "{page}");
    let listed = sandbox.quorum(&["open", "--out", out.to_str().unwrap()], &[]);
    listed.assert_code(0);
    // The family: the origin first, each fork after it, naming it.
    let origin_at = listed
        .stdout
        .find(origin.file_name().unwrap().to_str().unwrap())
        .unwrap();
    for fork in &forked {
        let at = listed
            .stdout
            .find(fork.file_name().unwrap().to_str().unwrap())
            .unwrap();
        assert!(at > origin_at, "{}", listed.stdout);
    }
    assert_eq!(listed.stdout.matches("  fork of ").count(), forked.len());
}

/// Issue 30: the demo of every protocol can be forked at its second stage
/// and runs on to an end.
#[test]
fn every_protocols_demo_can_be_forked() {
    for kind in registry::BUILT_IN {
        let sandbox = Sandbox::new();
        let origin = demo(&sandbox, &["--protocol", kind.info().name]);
        let stages = stages_of(&sandbox, &origin);
        let at = stages.get(1).unwrap_or(&stages[0]);
        if kind.info().name != "decision-review" {
            let refused = sandbox.quorum(
                &[
                    "fork",
                    origin.to_str().unwrap(),
                    "--at",
                    at,
                    "--critique",
                    "strict",
                    "--headless",
                ],
                &[],
            );
            refused.assert_code(2);
            assert!(
                refused
                    .stderr
                    .contains("--critique sets a decision review's critic"),
                "{}",
                refused.stderr
            );
        }
        let ran = sandbox.quorum(
            &["fork", origin.to_str().unwrap(), "--at", at, "--headless"],
            &[],
        );
        assert!(
            matches!(ran.code, 0 | 4..=9),
            "{}: fork at {at}: {} {}",
            kind.info().name,
            ran.code,
            ran.stderr
        );
        let forked = forks(&sandbox.out(), &origin);
        assert_eq!(forked.len(), 1, "{}", kind.info().name);
        assert!(forked[0].join("transcript.md").is_file());
    }
}

/// What's asked of a fork that cannot be made is refused, naming why, and
/// nothing is written.
#[test]
fn a_fork_that_cannot_be_made_is_refused() {
    let sandbox = Sandbox::new();
    let origin = demo(&sandbox, &[]);
    for (args, says) in [
        (vec!["--at", "evaluation:9"], "never stood at evaluation:9"),
        (
            vec!["--at", "evaluation:x"],
            "the round after `:` is a number",
        ),
        (
            vec!["--at", "evaluation", "--agent", "oracle=script"],
            "has no role oracle",
        ),
        (
            vec!["--at", "evaluation", "--critique", "strict"],
            "only a fork at proposal or critique",
        ),
        (
            vec!["--at", "critique", "--critique", "loud"],
            "use strict, steelman",
        ),
    ] {
        let mut all = vec!["fork", origin.to_str().unwrap(), "--headless"];
        all.extend(args.iter().copied());
        let ran = sandbox.quorum(&all, &[]);
        ran.assert_code(2);
        assert!(ran.stderr.contains(says), "{args:?}: {}", ran.stderr);
    }
    assert!(forks(&sandbox.out(), &origin).is_empty());
}

/// One OpenAI-shaped streamed answer.
fn openai_answer(text: &str) -> ScriptedResponse {
    let chunk = serde_json::json!({
        "id": "c1", "object": "chat.completion.chunk", "model": "gpt-fork-test",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]
    });
    let end = serde_json::json!({
        "id": "c1", "object": "chat.completion.chunk", "model": "gpt-fork-test",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 300, "total_tokens": 1200}
    });
    ScriptedResponse::sse(format!("data: {chunk}\n\ndata: {end}\n\ndata: [DONE]\n\n"))
}

/// Issue 30: a fork at the second evaluation with the analyst played by
/// another model (a local OpenAI-compatible server): the switch is in the
/// fork's record, the analyst's call goes to the new model, its scores
/// change the verdict, and `quorum compare` names the agent, the scores and
/// the verdicts that differ.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_with_another_agent_and_compare_shows_where_they_diverged() {
    let server = ProviderServer::start().await;
    // The analyst finds every block infeasible: a binding veto.
    server.push(openai_answer(&support::flat_judge_text(
        JudgeRole::Analyst,
        2,
    )));
    let sandbox = Sandbox::new();
    let config = sandbox.write(
        "config.yaml",
        &format!(
            "providers:\n  local: {{ kind: openai, base_url: \"{}\", default_model: gpt-fork-test }}\n",
            server.openai_base_url()
        ),
    );
    let origin = tokio::task::block_in_place(|| demo(&sandbox, &[]));
    let ran = tokio::task::block_in_place(|| {
        sandbox.quorum(
            &[
                "fork",
                origin.to_str().unwrap(),
                "--at",
                "evaluation:2",
                "--agent",
                "judge.analyst=local:gpt-fork-test",
                "--config",
                config.to_str().unwrap(),
                "--headless",
            ],
            &[],
        )
    });
    assert!(
        !ran.stdout.contains("ADOPT"),
        "{} {}",
        ran.stdout,
        ran.stderr
    );
    let fork = forks(&sandbox.out(), &origin).pop().unwrap();
    let transcript = std::fs::read_to_string(fork.join("transcript.md")).unwrap();
    assert!(
        transcript.contains("judge.analyst is now played by local:gpt-fork-test"),
        "{transcript}"
    );
    assert_eq!(server.requests().len(), 1, "one call to the new model");
    let compared = tokio::task::block_in_place(|| {
        sandbox.quorum(
            &["compare", origin.to_str().unwrap(), fork.to_str().unwrap()],
            &[],
        )
    });
    compared.assert_code(0);
    let said = &compared.stdout;
    assert!(said.contains("is a fork of"), "{said}");
    assert!(said.contains("at evaluation:2"), "{said}");
    assert!(
        said.contains("judge.analyst: script:scripted → local:gpt-fork-test"),
        "{said}"
    );
    assert!(said.contains("Scores (round 2 → round 2):"), "{said}");
    assert!(
        said.contains("analyst correctness: 4 → 2") || said.contains("→ 2"),
        "{said}"
    );
    assert!(said.contains("Verdict:\n  ADOPT"), "{said}");
}

/// DR-16, DR-18, issue 60: a writing review forked at its critique with
/// `--critique` asks its critic again in that stance, and records it.
#[test]
fn dr_16_dr_18_a_writing_review_forked_at_its_critique_takes_another_stance() {
    let sandbox = Sandbox::new();
    let origin = demo(&sandbox, &["--mode", "writing"]);
    let ran = sandbox.quorum(
        &[
            "fork",
            origin.to_str().unwrap(),
            "--at",
            "critique",
            "--critique",
            "neutral",
            "--headless",
        ],
        &[],
    );
    ran.assert_code(0);
    let forked = forks(&sandbox.out(), &origin);
    assert_eq!(forked.len(), 1);
    let journal = std::fs::read_to_string(forked[0].join("journal.jsonl")).unwrap();
    let critic = journal
        .lines()
        .rfind(|line| line.contains("call_started") && line.contains(r#""role":"critic""#))
        .expect("the critic is asked again");
    assert!(
        critic.contains(r"\n\nCRITIQUE MODE: neutral\n\n"),
        "{critic}"
    );
    let record = std::fs::read_to_string(forked[0].join("debate.yaml")).unwrap();
    assert!(record.contains("\n  critique_mode: neutral\n"), "{record}");
}

/// Issue 62: a debate a person moderated (here on stdin; in the interface
/// alike) forked headless at its moderation takes the origin's rulings
/// for the items it copies, notes and all, and reads nothing from stdin.
#[test]
fn a_headless_fork_of_a_person_moderated_debate_takes_the_origins_rulings() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let ran = support::run::quorum_in(
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
        Some("reject: not this quarter\naccept\ndefer: ask finance\naccept\naccept\naccept\n"),
    );
    assert!(matches!(ran.code, 0 | 3..=5), "{} {}", ran.code, ran.stderr);
    let origin = sandbox.run_dir();
    let origin_critique = std::fs::read_to_string(origin.join("critique.md")).unwrap();
    assert!(
        origin_critique.contains("not this quarter"),
        "{origin_critique}"
    );
    // No stdin at all: the fork must not need one.
    let forked = sandbox.quorum(
        &[
            "fork",
            origin.to_str().unwrap(),
            "--at",
            "moderation",
            "--headless",
        ],
        &[],
    );
    assert_eq!(forked.code, ran.code, "{}", forked.stderr);
    assert!(!forked.stderr.contains("stdin closed"), "{}", forked.stderr);
    let fork = forks(&out, &origin).pop().unwrap();
    let critique = std::fs::read_to_string(fork.join("critique.md")).unwrap();
    // The rulings, notes and all; when they were made is the fork's own.
    let rulings = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| line.starts_with("Decision: "))
            .map(|line| {
                let (word, rest) = line.split_once(" (").unwrap_or((line, ""));
                let note = rest.split_once(')').map_or("", |(_, note)| note);
                format!("{word}{note}")
            })
            .collect()
    };
    assert_eq!(rulings(&critique), rulings(&origin_critique));
    assert!(
        rulings(&critique)
            .contains(&"Decision: **REJECTED** — moderator's note: not this quarter".to_string()),
        "{critique}"
    );
}
