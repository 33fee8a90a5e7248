//! Issue 26 for the root-cause analysis, end to end on the real binary with
//! scripted agents: a conclusion no stronger than its evidence (a hedged
//! surviving claim is restated once or the analysis ends unproven, RC-10,
//! RC-16) and a hypotheses file whose unknown keys are refused with file,
//! line and field.
use crate::support;

use std::path::{Path, PathBuf};

use support::ScriptBuilder;
use support::rca::{answers, critic, findings};
use support::run::{Ran, Sandbox, only_run};
use yaml_serde::Value;

const PROBLEM: &str = "Checkout p99 rose from 180 ms to 2.4 s at 14:03 UTC";

/// Alpha's one hypothesis claims with a hedge; the critic challenges it
/// once, alpha answers, the critic resolves it: H1 survives alone, and
/// alpha is asked to restate it, answering `restatement` (or failing).
fn hedged_survivor(restatement: Option<&str>) -> ScriptBuilder {
    let builder = ScriptBuilder::default()
        .reply(
            "debugger.alpha",
            "findings",
            Some(1),
            None,
            &findings(&["The v2.31.0 deploy probably added a blocking call."]),
        )
        .reply(
            "critic",
            "challenge",
            Some(1),
            None,
            &critic(&[], &[("H1", true)], None),
        )
        .reply(
            "debugger.alpha",
            "answers",
            Some(1),
            None,
            &answers(&[("X1.1", Some("First slow trace 14:02:31, after the deploy."))]),
        )
        .reply(
            "critic",
            "challenge",
            Some(2),
            None,
            &critic(&[("X1.1", "resolved")], &[], Some("Roll back v2.31.0.")),
        );
    match restatement {
        Some(text) => builder.reply(
            "debugger.alpha",
            "restate",
            None,
            None,
            &format!("```yaml\nclaim: \"{text}\"\n```\n"),
        ),
        None => builder.fault("debugger.alpha", "restate", None, None, "error"),
    }
}

/// The critic's ruling on the restated claim (issue 60): `word` is
/// `supported` or `overreaches`.
fn examined(builder: ScriptBuilder, word: &str, reason: &str) -> ScriptBuilder {
    builder.reply(
        "critic",
        "examine",
        None,
        None,
        &format!("```yaml\nruling: {word}\nreason: \"{reason}\"\n```\n"),
    )
}

fn run(sandbox: &Sandbox, script: ScriptBuilder) -> (Ran, PathBuf) {
    let script_path = sandbox.write(
        "script.yaml",
        &yaml_serde::to_string(&script.build()).unwrap(),
    );
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "rca",
            PROBLEM,
            "--debugger",
            "alpha",
            "--script",
            script_path.to_str().unwrap(),
            "--agent",
            "default=script",
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.exists(), "{}\n{}", ran.stdout, ran.stderr);
    let dir = only_run(&out);
    (ran, dir)
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|_| panic!("{name} is written"))
}

fn yaml(dir: &Path) -> Value {
    yaml_serde::from_str(&read(dir, "rca.yaml")).unwrap()
}

/// RC-16, RC-10: the one survivor claims "probably"; asked once, its owner
/// restates it plainly, the critic finds the evidence carries the
/// restatement (issue 60), and the restated claim is the proven root cause.
#[test]
fn rc_16_a_hedged_survivor_restated_plainly_is_proven() {
    let sandbox = Sandbox::new();
    let (ran, dir) = run(
        &sandbox,
        examined(
            hedged_survivor(Some("The v2.31.0 deploy added a blocking call.")),
            "supported",
            "The first slow trace follows the deploy and carries its call.",
        ),
    );
    ran.assert_code(0);
    let summary = read(&dir, "summary.md");
    assert!(
        ran.stdout
            .starts_with("**Root cause: The v2.31.0 deploy added a blocking call.**"),
        "{}",
        ran.stdout
    );
    assert!(
        summary.contains("restated it without hedge words when asked; the critic found the restatement carried by the evidence"),
        "{summary}"
    );
    let record = yaml(&dir);
    assert_eq!(record["conclusion"]["verdict"].as_str(), Some("PROVEN"));
    assert_eq!(
        record["restatement"]["examination"]["ruling"].as_str(),
        Some("supported")
    );
    assert!(dir.join("rounds/round-2/critic-examine.md").exists());
    assert_eq!(
        record["root_cause"]["claim"].as_str(),
        Some("The v2.31.0 deploy added a blocking call.")
    );
    assert_eq!(
        record["restatement"]["hedges"][0].as_str(),
        Some("probably")
    );
    assert!(
        dir.join("rounds/round-2/debugger-alpha-restate.md")
            .exists()
    );
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(0);
    assert!(verdict.stdout.starts_with("PROVEN\n"), "{}", verdict.stdout);
}

/// RC-16, issue 60: a plain restatement that says more than the evidence
/// showed is not printed as the root cause: the critic rules it
/// overreaching, the original hedged claim stands, the analysis is
/// unproven with the reason in words, and `quorum verdict` agrees. Before
/// the rule, the restatement alone proved it.
#[test]
fn rc_16_a_restatement_the_critic_finds_overreaching_leaves_the_cause_unproven() {
    let sandbox = Sandbox::new();
    let (ran, dir) = run(
        &sandbox,
        examined(
            hedged_survivor(Some(
                "The v2.31.0 deploy added a blocking call that caused every slow checkout this quarter.",
            )),
            "overreaches",
            "The evidence covers one afternoon, not the quarter.",
        ),
    );
    ran.assert_code(8);
    let lead = ran.stdout.split("\n\n").next().unwrap();
    assert_eq!(
        lead,
        "**No root cause is proven.** H1 alone survived cross-examination, but its claim says \
         \"probably\" and the critic found that its owner's restatement says more than the \
         evidence shows (The evidence covers one afternoon, not the quarter.), so the original \
         claim stands: a hedged claim is not a proven root cause."
    );
    let record = yaml(&dir);
    assert!(record["root_cause"].is_null(), "no root cause recorded");
    assert_eq!(
        record["hypotheses"][0]["claim"].as_str(),
        Some("The v2.31.0 deploy probably added a blocking call."),
        "the original claim stays"
    );
    let summary = read(&dir, "summary.md");
    assert!(summary.contains("Not taken: the critic found"), "{summary}");
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(8);
}

/// RC-16, RC-10: the restatement still hedges ("likely"): no root cause is
/// proven, the summary says why in words, and `quorum verdict` agrees.
#[test]
fn rc_16_a_survivor_still_hedged_after_restating_is_unproven() {
    let sandbox = Sandbox::new();
    let (ran, dir) = run(
        &sandbox,
        hedged_survivor(Some("The v2.31.0 deploy likely added a blocking call.")),
    );
    ran.assert_code(8);
    let lead = ran.stdout.split("\n\n").next().unwrap();
    assert_eq!(
        lead,
        "**No root cause is proven.** H1 alone survived cross-examination, but its claim says \
         \"probably\" and its owner's restatement still says \"likely\": a hedged claim is not a \
         proven root cause."
    );
    let summary = read(&dir, "summary.md");
    assert!(summary.contains(lead), "{summary}");
    assert!(!summary.contains("**Root cause:"), "{summary}");
    let record = yaml(&dir);
    assert_eq!(record["conclusion"]["verdict"].as_str(), Some("UNPROVEN"));
    assert!(record["root_cause"].is_null(), "no root cause recorded");
    assert_eq!(
        record["restatement"]["still_hedged"][0].as_str(),
        Some("likely")
    );
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(8);
    assert!(
        verdict.stdout.starts_with(
            "UNPROVEN\nH1 is the only hypothesis that SURVIVED, but its claim says \"probably\""
        ),
        "{}",
        verdict.stdout
    );
}

/// RC-16: the restatement call fails (twice, with its retry): unproven,
/// with the failure named; the hedged claim is never stated as the cause.
#[test]
fn rc_16_no_restatement_leaves_the_cause_unproven() {
    let sandbox = Sandbox::new();
    let (ran, dir) = run(&sandbox, hedged_survivor(None));
    ran.assert_code(8);
    assert!(
        ran.stdout.starts_with(
            "**No root cause is proven.** H1 alone survived cross-examination, but its claim says \"probably\" and its owner gave no restatement without them (the call failed"
        ),
        "{}",
        ran.stdout
    );
    let record = yaml(&dir);
    assert!(record["restatement"]["failed"].as_str().is_some());
    assert!(
        read(&dir, "transcript.md").contains("no restatement without hedge words"),
        "logged"
    );
}

/// An unknown key in a hypotheses file (`evidenc:`) is refused with the
/// file, its line and the field, and nothing is written; before, the key
/// was dropped and the evidence-less hypothesis could be proven.
#[test]
fn a_hypotheses_file_with_an_unknown_key_is_refused() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "typo.yaml",
        "hypotheses:\n  - owner: alpha\n    claim: The deploy added a blocking call.\n    evidenc:\n      - deploy log 14:02:10\n",
    );
    let out = sandbox.path().join("typo-out");
    let ran = sandbox.quorum(
        &[
            "rca",
            PROBLEM,
            "--debugger",
            "alpha",
            "--hypotheses",
            "typo.yaml",
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains(
            "typo.yaml:4: hypotheses[0].evidenc: `evidenc` is not a field of a hypothesis (did you mean `evidence`?)"
        ),
        "{}",
        ran.stderr
    );
    assert!(!out.exists(), "nothing written");
}

/// RC-16 is part of an analysis's definition: one journaled before it (no
/// `restates_hedged_claims`) folds as it ran, its hedged survivor proven
/// with no restatement call it never had; a new one asks.
#[test]
fn rc_16_an_analysis_journaled_before_restating_folds_as_it_ran() {
    use std::sync::Arc;

    use quorum::prompts::PromptSet;
    use quorum::protocol::Verdict;
    use quorum::protocol::rca::{Rca, RcaConfig};
    use support::harness::{Harness, t0};

    let journaled: RcaConfig = yaml_serde::from_str(&format!(
        "topic: \"{PROBLEM}\"\ndebuggers: [alpha]\nagents: {{debugger.alpha: \"script:scripted\", critic: \"script:scripted\"}}\nstarted_at: {}\n",
        t0().to_rfc3339()
    ))
    .expect("an old definition reads");
    assert!(!journaled.restates_hedged_claims);
    for restates in [false, true] {
        let config = RcaConfig {
            restates_hedged_claims: restates,
            ..journaled.clone()
        };
        let mut harness = Harness::start(Rca::new(config, Arc::new(PromptSet::builtin())));
        harness.answer(
            "debugger.alpha/findings/r1",
            &findings(&["The deploy probably added a blocking call."]),
        );
        harness.answer("critic/challenge/r1", &critic(&[], &[("H1", true)], None));
        harness.accept_all();
        harness.answer(
            "debugger.alpha/answers/r1",
            &answers(&[("X1.1", Some("Trace 14:02:31."))]),
        );
        harness.answer(
            "critic/challenge/r2",
            &critic(&[("X1.1", "resolved")], &[], None),
        );
        harness.accept_all();
        if restates {
            assert!(harness.is_live("debugger.alpha/restate/r2"));
            assert!(
                harness
                    .prompt_of("debugger.alpha/restate")
                    .contains("it uses probably")
            );
        } else {
            assert!(!harness.was_started("debugger.alpha/restate"));
            assert_eq!(harness.verdict(), Verdict::Proven, "as it ran before");
            assert!(harness.protocol.restatement().is_none());
        }
    }
}
