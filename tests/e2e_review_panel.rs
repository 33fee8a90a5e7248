//! A decision review's panel set per run (issue 11, INF-29): a spec's
//! `panel:` names each judge's weight and criteria, `debate.yaml` records
//! them, the verdict and `quorum verdict` read them, and a panel that
//! cannot decide is refused with its file, line and field.
use crate::support;

use support::run::{Sandbox, only_run};
use yaml_serde::Value;

/// The demo's spec, deciding in one round, with `panel` (YAML lines) added.
fn spec(sandbox: &Sandbox, panel: &str) -> String {
    let path = sandbox.path().join("exported.yaml");
    sandbox
        .quorum(&["demo", "--export-script", path.to_str().unwrap()], &[])
        .assert_code(0);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    text.replacen("max_rounds: 2\n", &format!("max_rounds: 0\n{panel}"), 1)
}

const STYLIST_BINDING: &str = "panel:\n  - { role: analyst, weight: advisory, criteria: [correctness, feasibility, risk] }\n  - { role: stylist, weight: binding, criteria: [reversibility, clarity] }\n  - { role: aesthete, weight: advisory, criteria: [simplicity] }\n";

#[test]
fn inf_29_a_spec_panel_decides_who_binds() {
    let sandbox = Sandbox::new();
    let mut rules = Vec::new();
    for (name, panel) in [("built-in", ""), ("custom", STYLIST_BINDING)] {
        let path = sandbox.write(&format!("{name}.yaml"), &spec(&sandbox, panel));
        let out = sandbox.path().join(name);
        let ran = sandbox.quorum(
            &[
                "run",
                path.to_str().unwrap(),
                "--headless",
                "--speed",
                "200",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        ran.assert_code(3);
        let dir = only_run(&out);
        let record: Value =
            yaml_serde::from_str(&std::fs::read_to_string(dir.join("debate.yaml")).unwrap())
                .unwrap();
        let weights: Vec<(String, String)> = record["participants"]["judges"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|judge| {
                (
                    judge["role"].as_str().unwrap().to_string(),
                    judge["weight"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let recomputed = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
        recomputed.assert_code(3);
        rules.push((
            weights,
            record["outcome"]["rule"].as_str().unwrap().to_string(),
        ));
        assert!(
            recomputed.stdout.contains(&rules.last().unwrap().1),
            "{}",
            recomputed.stdout
        );
    }
    assert_eq!(rules[0].1, "analyst scored b2 feasibility 2 < 3 → REVISE");
    assert_eq!(rules[1].1, "stylist scored b2 reversibility 2 < 3 → REVISE");
    assert_eq!(
        rules[1].0,
        [
            ("analyst".to_string(), "advisory".to_string()),
            ("stylist".to_string(), "binding".to_string()),
            ("aesthete".to_string(), "advisory".to_string()),
        ]
    );
}

#[test]
fn a_panel_that_cannot_decide_is_refused_where_it_stands() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let cases = [
        (
            STYLIST_BINDING.replace("weight: binding", "weight: advisory"),
            "panel: a panel needs a binding judge",
        ),
        (
            STYLIST_BINDING.replace("role: aesthete", "role: stylist"),
            ":11: panel[2].role: the stylist sits on the panel twice",
        ),
        (
            STYLIST_BINDING.replace("[simplicity]", "[]"),
            ":11: panel[2].criteria: the aesthete needs at least one criterion",
        ),
        (
            STYLIST_BINDING.replace("role: aesthete", "role: poet"),
            ":11",
        ),
        (STYLIST_BINDING.replace("[simplicity]", "[elegance]"), ":11"),
        (
            STYLIST_BINDING.replace(
                "weight: advisory, criteria: [simplicity]",
                "weight: heavy, criteria: [simplicity]",
            ),
            ":11",
        ),
    ];
    for (panel, expected) in cases {
        let path = sandbox.write("panel.yaml", &spec(&sandbox, &panel));
        let ran = sandbox.quorum(
            &[
                "run",
                path.to_str().unwrap(),
                "--headless",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        ran.assert_code(2);
        assert!(ran.stderr.contains("panel.yaml"), "{}", ran.stderr);
        assert!(ran.stderr.contains(expected), "{expected}: {}", ran.stderr);
        assert!(!out.exists());
    }
    let path = sandbox.write("panel.yaml", &spec(&sandbox, STYLIST_BINDING));
    let ran = sandbox.quorum(
        &[
            "run",
            path.to_str().unwrap(),
            "--high-stakes",
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr
            .contains("--high-stakes: `high_stakes` picks the built-in"),
        "{}",
        ran.stderr
    );
}

/// The same answers, a different panel, a different verdict: without
/// feasibility among the binding judge's criteria, the low feasibility
/// score that sent the demo back no longer binds, and it adopts.
#[test]
fn inf_29_a_spec_panel_changes_the_verdict() {
    let sandbox = Sandbox::new();
    let narrower = "panel:\n  - { role: analyst, weight: binding, criteria: [correctness, risk] }\n  - { role: stylist, weight: advisory, criteria: [reversibility, clarity] }\n  - { role: aesthete, weight: advisory, criteria: [simplicity] }\n";
    let mut verdicts = Vec::new();
    for (name, panel) in [("built-in", ""), ("narrower", narrower)] {
        let path = sandbox.write(&format!("{name}.yaml"), &spec(&sandbox, panel));
        let out = sandbox.path().join(name);
        let ran = sandbox.quorum(
            &[
                "run",
                path.to_str().unwrap(),
                "--headless",
                "--speed",
                "200",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        let dir = only_run(&out);
        let record: Value =
            yaml_serde::from_str(&std::fs::read_to_string(dir.join("debate.yaml")).unwrap())
                .unwrap();
        verdicts.push((
            ran.code,
            record["outcome"]["verdict"].as_str().unwrap().to_string(),
        ));
    }
    assert_eq!(
        verdicts,
        [(3, "REVISE".to_string()), (0, "ADOPT".to_string())]
    );
}
