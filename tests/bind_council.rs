//! The council's conclusions and the moderator's rulings, end to end on the
//! real binary (issue 26): a grave finding nobody settled keeps a council
//! from PASS (A21 revised, FP-41), and the council's demos follow every
//! ruling the moderator can give.
mod support;

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
