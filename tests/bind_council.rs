//! The council's conclusions and the moderator's rulings, end to end on the
//! real binary (issue 26): a grave finding nobody settled keeps a council
//! from PASS (A21 revised, FP-41), and the council's demos follow every
//! ruling the moderator can give.
use crate::support;

use std::path::{Path, PathBuf};

use quorum::agent::script::Script;
use serde_json::Value as Json;
use support::ScriptBuilder;
use support::council::{finding, findings, position};
use support::run::{Ran, Sandbox, only_run, quorum_in};

const SCOPE: &str = "The order service's checkout endpoint before the holiday peak";

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|_| panic!("{name} is written"))
}

fn record(dir: &Path) -> Json {
    serde_json::from_str(&read(dir, "council.json")).expect("council.json is JSON")
}

/// `args` with `--out OUT` after them, in the sandbox, `stdin` fed; the one
/// run folder under OUT.
fn run_in(sandbox: &Sandbox, args: &[&str], out: &str, stdin: Option<&str>) -> (Ran, PathBuf) {
    let out = sandbox.path().join(out);
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--out", out.to_str().unwrap()]);
    let ran = quorum_in(sandbox.path(), &all, &[], stdin);
    assert!(
        out.exists(),
        "no run folder\n--- stdout\n{}\n--- stderr\n{}",
        ran.stdout,
        ran.stderr
    );
    let dir = only_run(&out);
    (ran, dir)
}

/// `quorum council SCOPE` on `script`, two experts, quick intensity.
fn quick_council(sandbox: &Sandbox, script: &Script, out: &str) -> (Ran, PathBuf) {
    let path = sandbox.write(
        &format!("{out}-script.yaml"),
        &yaml_serde::to_string(script).unwrap(),
    );
    let outputs = sandbox.path().join(format!("{out}-outputs"));
    let args = [
        "council",
        SCOPE,
        "--outputs",
        outputs.to_str().unwrap(),
        "--domain",
        "security",
        "--domain",
        "performance",
        "--intensity",
        "quick",
        "--review-id",
        "e2e-a21",
        "--script",
        path.to_str().unwrap(),
        "--agent",
        "default=script",
        "--headless",
    ];
    run_in(sandbox, &args, out, None)
}

/// A21 (revised 2026-12-02), FP-41: at quick intensity nobody challenges;
/// the security expert's HIGH finding is backed by its origin alone and
/// nobody disputes it, so it is neither confirmed nor refuted. The council
/// ends CONCERNS (exit 6), not PASS, with the rule in words, and the
/// summary names the finding instead of saying nothing serious survived.
#[test]
fn a21_fp_41_an_unconfirmed_high_finding_that_no_one_refuted_is_concerns() {
    let sandbox = Sandbox::new();
    let abstain = [("F001", "abstain")];
    let script = ScriptBuilder::default()
        .reply(
            "expert.security",
            "independent",
            None,
            None,
            &findings(
                "expert.security",
                &[finding(
                    "HIGH",
                    "Session tokens never expire",
                    &["security"],
                )],
            ),
        )
        .reply(
            "expert.performance",
            "independent",
            None,
            None,
            &findings("expert.performance", &[]),
        )
        .reply(
            "integration-checker",
            "independent",
            None,
            None,
            &findings("integration-checker", &[]),
        )
        .reply(
            "devil-advocate",
            "independent",
            None,
            None,
            &findings("devil-advocate", &[]),
        )
        .reply(
            "expert.security",
            "final",
            None,
            None,
            &position("expert.security", &[]),
        )
        .reply(
            "expert.performance",
            "final",
            None,
            None,
            &position("expert.performance", &abstain),
        )
        .reply(
            "integration-checker",
            "final",
            None,
            None,
            &position("integration-checker", &abstain),
        )
        .reply(
            "devil-advocate",
            "final",
            None,
            None,
            &position("devil-advocate", &abstain),
        )
        .build();
    let (ran, dir) = quick_council(&sandbox, &script, "a21");
    ran.assert_code(6);
    let council = record(&dir);
    assert_eq!(council["verdict"], "CONCERNS", "{council}");
    assert_eq!(
        council["rule"],
        "1 unconfirmed HIGH finding (F001) that no one refuted → CONCERNS"
    );
    assert_eq!(council["findings"][0]["state"], "unconfirmed");
    let summary = read(&dir, "summary.md");
    assert!(!summary.contains("Nothing serious survived"), "{summary}");
    let lead = summary.lines().nth(2).unwrap_or_default();
    assert!(lead.starts_with("**CONCERNS.**"), "{summary}");
    assert!(
        lead.contains("Session tokens never expire (high)"),
        "{summary}"
    );
    assert!(
        summary.contains(
            "Verdict rule: 1 unconfirmed HIGH finding (F001) that no one refuted → CONCERNS."
        ),
        "{summary}"
    );
    // `quorum verdict` derives the same from disk.
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(6);
    assert!(
        verdict
            .stdout
            .starts_with("CONCERNS\n1 unconfirmed HIGH finding (F001) that no one refuted"),
        "{}",
        verdict.stdout
    );
}

// ---- the demos honour every ruling --------------------------------------------

/// How the moderator rules on one challenge of a demo in a conformance run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ruling {
    Deliver,
    Drop,
    HoldBack,
}

/// The moderator's note given with every dropped challenge.
const DROP_NOTE: &str = "no mechanism shown";

/// The stdin lines of `--moderation ask` for a demo whose round 1 raises
/// `rulings.len()` challenges: one line each in round 1, then one for each
/// held-back challenge each time it is offered again (rounds 2 and 3).
fn answers(rulings: &[Ruling]) -> String {
    let line = |ruling: Ruling| match ruling {
        Ruling::Deliver => "accept\n".to_string(),
        Ruling::Drop => format!("reject: {DROP_NOTE}\n"),
        Ruling::HoldBack => "defer\n".to_string(),
    };
    let mut stdin: String = rulings.iter().map(|r| line(*r)).collect();
    let held = rulings.iter().filter(|r| **r == Ruling::HoldBack).count();
    for _ in 0..2 {
        stdin.push_str(&"defer\n".repeat(held));
    }
    stdin
}

/// A demo of the council, moderated on stdin with `rulings`.
fn moderated_demo(sandbox: &Sandbox, mode: &str, rulings: &[Ruling], out: &str) -> PathBuf {
    let args = [
        "demo",
        "--protocol",
        "council",
        "--mode",
        mode,
        "--headless",
        "--speed",
        "50",
        "--moderation",
        "ask",
    ];
    let (ran, dir) = run_in(sandbox, &args, out, Some(&answers(rulings)));
    assert!(
        [0, 6, 7].contains(&ran.code),
        "{rulings:?}: exit {}\n--- stdout\n{}\n--- stderr\n{}",
        ran.code,
        ran.stdout,
        ran.stderr
    );
    dir
}

fn state_of(council: &Json, id: &str) -> String {
    council["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .map(|f| f["state"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// Whether any response of the rounds answers `challenge`.
fn answered(council: &Json, challenge: &str) -> bool {
    council["responses"].as_array().unwrap().iter().any(|r| {
        r["answers"]
            .as_array()
            .is_some_and(|answers| answers.iter().any(|a| a == challenge))
    })
}

/// What every run of a demo must show of the ruling on `challenge`, which
/// the devil's advocate addressed to `target`: delivered and answered, or
/// dropped (with its note) or held back, and then answered by nobody (its
/// target, asked in the round as any other participant is, sees none of
/// it), and nothing against the rulings left over.
fn check_ruling(dir: &Path, challenge: &str, target: &str, ruling: Ruling) {
    let council = record(dir);
    let summary = read(dir, "summary.md");
    let listed = council["rulings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == challenge)
        .unwrap_or_else(|| panic!("{challenge} is in the record's rulings"))
        .clone();
    assert_eq!(
        council["against_rulings"],
        serde_json::json!([]),
        "the demo's answers follow the rulings"
    );
    let asked = dir.join(format!("phase-3/round-1/{target}.md")).exists();
    match ruling {
        Ruling::Deliver => {
            assert_eq!(listed["ruling"], "delivered");
            assert!(answered(&council, challenge), "{challenge} is answered");
            assert!(asked, "{target} answered {challenge}");
        }
        Ruling::Drop => {
            assert_eq!(listed["ruling"], "dropped");
            assert_eq!(listed["note"], DROP_NOTE);
            assert!(!answered(&council, challenge), "{challenge} was never put");
            if asked {
                let answer = read(dir, &format!("phase-3/round-1/{target}.md"));
                assert!(!answer.contains(&format!("\"{challenge}\"")), "{answer}");
            }
            let section = summary
                .split("## Challenges the moderator set aside")
                .nth(1)
                .unwrap_or_else(|| panic!("a set-aside section\n{summary}"));
            assert!(
                section.contains(&format!("- {challenge} on "))
                    && section.contains(&format!("The moderator's note: {DROP_NOTE}.")),
                "{summary}"
            );
        }
        Ruling::HoldBack => {
            assert_eq!(listed["ruling"], "held back");
            assert!(!answered(&council, challenge), "{challenge} was never put");
            if asked {
                let answer = read(dir, &format!("phase-3/round-1/{target}.md"));
                assert!(!answer.contains(&format!("\"{challenge}\"")), "{answer}");
            }
            let section = summary
                .split("## Open questions the moderator held back")
                .nth(1)
                .unwrap_or_else(|| panic!("an open-questions section\n{summary}"));
            assert!(section.contains(&format!("- {challenge} on ")), "{summary}");
        }
    }
}

/// Issue 26, conformance of the review demo (`demo/council-webhooks.yaml`):
/// with every challenge delivered, F001 is withdrawn, F003 is disputed,
/// F004 and F005 merge, and data's answer discovers F007. Flipping one
/// ruling at a time to drop or hold back changes the deliverable exactly
/// there: the finding stays (F001, unconfirmed and named in the verdict),
/// is no longer disputed on the challenge's ground (F003), does not merge
/// (F004/F005), or nothing is discovered (F007); the challenge is never
/// answered, and the summary lists it as set aside (with the note) or as
/// an open question.
#[test]
fn issue_26_the_review_demo_honours_every_ruling_on_every_challenge() {
    let sandbox = Sandbox::new();
    const TARGETS: [(&str, &str); 4] = [
        ("C1", "expert.security"),
        ("C2", "expert.performance"),
        ("C3", "expert.reliability"),
        ("C4", "expert.data"),
    ];
    let all = [Ruling::Deliver; 4];
    let base = moderated_demo(&sandbox, "review", &all, "review-base");
    let base_council = record(&base);
    let base_summary = read(&base, "summary.md");
    for (challenge, target) in TARGETS {
        check_ruling(&base, challenge, target, Ruling::Deliver);
    }
    assert_eq!(state_of(&base_council, "F001"), "withdrawn");
    assert_eq!(state_of(&base_council, "F003"), "disputed");
    assert_eq!(base_council["merges"]["results"][0]["into"], "F008");
    assert_ne!(state_of(&base_council, "F007"), "", "F007 is discovered");

    for (index, (challenge, target)) in TARGETS.iter().enumerate() {
        for flip in [Ruling::Drop, Ruling::HoldBack] {
            let mut rulings = all;
            rulings[index] = flip;
            let dir = moderated_demo(
                &sandbox,
                "review",
                &rulings,
                &format!("review-{challenge}-{flip:?}"),
            );
            check_ruling(&dir, challenge, target, flip);
            let council = record(&dir);
            let summary = read(&dir, "summary.md");
            assert_ne!(
                summary, base_summary,
                "{challenge} {flip:?} changes the summary"
            );
            match *challenge {
                "C1" => {
                    assert_eq!(state_of(&council, "F001"), "unconfirmed");
                    assert!(
                        council["rule"]
                            .as_str()
                            .unwrap()
                            .contains("unconfirmed HIGH finding (F001) that no one refuted"),
                        "{}",
                        council["rule"]
                    );
                    assert!(!summary.contains("## What did not survive"), "{summary}");
                }
                "C2" => {
                    assert_eq!(state_of(&council, "F003"), "unconfirmed");
                    assert!(
                        council["disputed_findings"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .all(|d| d["id"] != "F003"),
                        "nobody disputes F003 on the ground of an unanswered challenge"
                    );
                }
                "C3" => {
                    assert_eq!(council["merges"]["proposed"], serde_json::json!([]));
                    assert_eq!(state_of(&council, "F004"), "confirmed");
                    assert_eq!(state_of(&council, "F008"), "");
                }
                _ => {
                    assert!(
                        council["inventory"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .all(|f| f["discovered"] != true),
                        "nothing discovered"
                    );
                    // The merge does not depend on C4; with no discovery
                    // before it, it takes F007.
                    assert_eq!(council["merges"]["results"][0]["into"], "F007");
                }
            }
        }
    }
}

/// Issue 26, conformance of the brainstorm demo
/// (`demo/council-brainstorm.yaml`): with every challenge delivered, P007
/// and P003 are revised in answer to C1 and C3 and the handoff builds on
/// the revisions, and the devil's advocate disputes P002 on C2's ground.
/// Dropping or holding back one challenge leaves that proposal as written
/// and the handoff without the revision (a held-back one becomes an open
/// question), or the devil's advocate takes no stand on P002.
#[test]
fn issue_26_the_brainstorm_demo_honours_every_ruling_on_every_challenge() {
    let sandbox = Sandbox::new();
    const TARGETS: [(&str, &str); 3] = [
        ("C1", "expert.data"),
        ("C2", "expert.data"),
        ("C3", "expert.security"),
    ];
    let all = [Ruling::Deliver; 3];
    let base = moderated_demo(&sandbox, "brainstorm", &all, "brainstorm-base");
    for (challenge, target) in TARGETS {
        check_ruling(&base, challenge, target, Ruling::Deliver);
    }
    let base_summary = read(&base, "summary.md");
    let lead = |summary: &str| summary.lines().nth(2).unwrap_or_default().to_string();
    assert!(lead(&base_summary).contains("in one consistent transaction"));
    assert!(lead(&base_summary).contains("signed-in administrator's session"));
    assert!(base_summary.contains("REPEATABLE READ"));
    assert!(
        base_summary.contains("P002: parked") && base_summary.contains("against: devil-advocate")
    );

    for (index, (challenge, target)) in TARGETS.iter().enumerate() {
        for flip in [Ruling::Drop, Ruling::HoldBack] {
            let mut rulings = all;
            rulings[index] = flip;
            let dir = moderated_demo(
                &sandbox,
                "brainstorm",
                &rulings,
                &format!("brainstorm-{challenge}-{flip:?}"),
            );
            check_ruling(&dir, challenge, target, flip);
            let summary = read(&dir, "summary.md");
            assert_ne!(
                summary, base_summary,
                "{challenge} {flip:?} changes the summary"
            );
            let open_questions = summary
                .split("## Open questions\n")
                .nth(1)
                .and_then(|rest| rest.split("\n## ").next())
                .unwrap_or_default()
                .to_string();
            match *challenge {
                "C1" => {
                    assert!(
                        !lead(&summary).contains("in one consistent transaction"),
                        "{summary}"
                    );
                    assert!(!summary.contains("REPEATABLE READ"), "{summary}");
                    assert_eq!(
                        open_questions.contains("keep its tables consistent"),
                        flip == Ruling::HoldBack,
                        "{summary}"
                    );
                }
                "C2" => {
                    let p002 = summary
                        .lines()
                        .find(|line| line.starts_with("- P002: "))
                        .unwrap_or_default();
                    assert!(!p002.contains("devil-advocate"), "{p002}");
                }
                _ => {
                    assert!(
                        !lead(&summary).contains("signed-in administrator's session"),
                        "{summary}"
                    );
                    assert!(
                        lead(&summary).contains("signed link that expires"),
                        "{summary}"
                    );
                    assert_eq!(
                        open_questions.contains("Is a signed link enough on its own"),
                        flip == Ruling::HoldBack,
                        "{summary}"
                    );
                }
            }
        }
    }
}

// ---- a brainstorm proposal split in two -------------------------------------

fn proposal(title: &str, lineage: Json) -> Json {
    serde_json::json!({
        "title": title,
        "summary": format!("{title}, in one paragraph."),
        "rationale": "Because it helps.",
        "proposal_type": "implementation",
        "maturity": "sketched",
        "lineage": lineage,
    })
}

fn json_answer(value: Json) -> String {
    format!("```json\n{value}\n```\n")
}

/// FP-43, FP-47 (issue 26), through the engine on the real binary: in the
/// Expand stage the integration checker splits a proposal that bundles two
/// ideas into one proposal per idea (`lineage.split_from`). The original
/// is retired as `split` once its origin agrees in its final position
/// (issue 60), is not voted on, and each part converges on its own: one
/// accepted, one parked.
#[test]
fn fp_43_fp_47_a_brainstorm_proposal_is_split_in_two_and_each_part_converges_alone() {
    let sandbox = Sandbox::new();
    let none = serde_json::json!({});
    let split = serde_json::json!({"split_from": ["P001"]});
    let empty_expand = json_answer(serde_json::json!({"expansions": [], "proposals": []}));
    let script = ScriptBuilder::default()
        .reply(
            "expert.architecture",
            "independent",
            None,
            None,
            &json_answer(serde_json::json!({"participant": "expert.architecture", "phase": 1,
                "proposals": [proposal("Nightly dump and a change feed", none.clone())]})),
        )
        .reply(
            "integration-checker",
            "independent",
            None,
            None,
            &json_answer(serde_json::json!({"participant": "integration-checker", "phase": 1, "proposals": []})),
        )
        .reply(
            "devil-advocate",
            "independent",
            None,
            None,
            &json_answer(serde_json::json!({"participant": "devil-advocate", "phase": 1, "proposals": []})),
        )
        .reply("expert.architecture", "expand", None, None, &empty_expand)
        .reply(
            "integration-checker",
            "expand",
            None,
            None,
            &json_answer(serde_json::json!({"expansions": [], "proposals": [
                proposal("Nightly dump", split.clone()),
                proposal("Change feed", split.clone()),
            ]})),
        )
        .reply("devil-advocate", "expand", None, None, &empty_expand)
        .reply(
            "devil-advocate",
            "challenge",
            None,
            None,
            &json_answer(serde_json::json!({"challenges": [], "discoveries": []})),
        )
        .reply(
            "expert.architecture",
            "final",
            None,
            None,
            &json_answer(serde_json::json!({
                "participant": "expert.architecture",
                "positions": [{"id": "P002", "stance": "endorse"}, {"id": "P003", "stance": "park"}],
                // P001 is its own: the split retires it only with its word (issue 60).
                "merges": [
                    {"findings": ["P001", "P002"], "agree": true},
                    {"findings": ["P001", "P003"], "agree": true},
                ],
                "summary": "Two ideas, two proposals.",
            })),
        )
        .reply(
            "integration-checker",
            "final",
            None,
            None,
            &position("integration-checker", &[]),
        )
        .reply(
            "devil-advocate",
            "final",
            None,
            None,
            &position("devil-advocate", &[("P002", "endorse"), ("P003", "park")]),
        )
        .reply(
            "synthesizer",
            "handoff",
            None,
            None,
            &json_answer(serde_json::json!({"accepted_direction": "Ship the nightly dump.",
                "open_questions": ["Is the change feed worth it later?"], "next_step": "Build the dump."})),
        )
        .build();
    let path = sandbox.write(
        "split-script.yaml",
        &yaml_serde::to_string(&script).unwrap(),
    );
    let outputs = sandbox.path().join("split-outputs");
    let args = [
        "council",
        SCOPE,
        "--mode",
        "brainstorm",
        "--outputs",
        outputs.to_str().unwrap(),
        "--domain",
        "architecture",
        "--review-id",
        "e2e-split",
        "--script",
        path.to_str().unwrap(),
        "--agent",
        "default=script",
        "--headless",
    ];
    let (ran, dir) = run_in(&sandbox, &args, "split", None);
    ran.assert_code(0);
    let council = record(&dir);
    let proposals = council["proposals"].as_array().unwrap();
    let status = |id: &str| {
        proposals
            .iter()
            .find(|p| p["id"] == id)
            .map(|p| p["status"].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    assert_eq!(status("P001"), "split");
    assert_eq!(status("P002"), "accepted");
    assert_eq!(status("P003"), "parked");
    assert_eq!(
        proposals[1]["lineage"]["split_from"],
        serde_json::json!(["P001"])
    );
    let convergence = council["convergence"].as_array().unwrap();
    let retired = "split by P002 (integration-checker) and P003 (integration-checker), with its origin expert.architecture's agreement";
    assert_eq!(convergence[0]["rule"], retired);
    let summary = read(&dir, "summary.md");
    assert!(summary.contains(&format!("- P001: {retired}")), "{summary}");
    assert!(summary.contains("**Nightly dump**"), "{summary}");
}
