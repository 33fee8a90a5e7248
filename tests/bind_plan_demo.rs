//! Issue 26, the planning debate's conformance: the built-in demo run on
//! the real binary, headless, with every moderation item's decision
//! flipped one at a time on stdin (`--moderation ask`). Each flip changes
//! plan.md accordingly: a rejected item is nowhere in the plan's body, an
//! accepted one is carried out by a step that cites it, a deferred one is
//! listed as still to decide; and no run leaves a step against the
//! rulings.
use crate::support;

use std::path::PathBuf;

use support::run::{Ran, Sandbox, only_run, quorum_in};
use yaml_serde::Value;

/// The demo's items in the order the moderator is asked, with what its
/// planner proposes (the baseline): round 1, then round 2.
const ITEMS: [(&str, char); 7] = [
    ("C1", 'a'),
    ("C2", 'r'),
    ("C3", 'a'),
    ("I1", 'a'),
    ("I2", 'd'),
    ("C4", 'r'),
    ("I3", 'a'),
];

/// Runs the demo with `answers` on stdin, one decision a line.
fn run(sandbox: &Sandbox, name: &str, answers: &[char]) -> (Ran, PathBuf) {
    let out = sandbox.path().join(name);
    let stdin: String = answers.iter().map(|a| format!("{a}\n")).collect();
    let ran = quorum_in(
        sandbox.path(),
        &[
            "demo",
            "--protocol",
            "plan",
            "--headless",
            "--speed",
            "50",
            "--moderation",
            "ask",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
        Some(&stdin),
    );
    ran.assert_code(0);
    let dir = only_run(&out);
    (ran, dir)
}

fn read(dir: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|_| panic!("{name} is written"))
}

/// plan.md above its Critique Log: what a reader carries out.
fn body(plan: &str) -> &str {
    plan.split("## Critique Log").next().unwrap()
}

/// `id` as a whole word of `text`.
fn cites(text: &str, id: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric()).any(|w| w == id)
}

/// The final decision on every item of the run, from debate.yaml.
fn decisions(dir: &std::path::Path) -> Vec<(String, String)> {
    let record: Value = yaml_serde::from_str(&read(dir, "debate.yaml")).unwrap();
    record["items"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["id"].as_str().unwrap().to_string(),
                item["decision"]["decision"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect()
}

/// Whatever was decided, the plan follows it: every rejected item is
/// absent from the body, every accepted one cited there, every deferred
/// one under "Still to decide"; quorum found nothing against the rulings.
fn assert_consistent(ran: &Ran, dir: &std::path::Path, label: &str) {
    let plan = read(dir, "plan.md");
    let body = body(&plan);
    assert!(
        !plan.contains("## Not as the moderator decided"),
        "{label}: {plan}"
    );
    let transcript = read(dir, "transcript.md");
    assert!(
        !transcript.contains("goes against your decisions"),
        "{label}: {transcript}"
    );
    assert!(!transcript.contains("cites no critique item"), "{label}");
    let to_decide = body.split("## Still to decide").nth(1).unwrap_or_default();
    for (id, decision) in decisions(dir) {
        match decision.as_str() {
            "reject" => assert!(!cites(body, &id), "{label}: rejected {id} in\n{body}"),
            "accept" => assert!(cites(body, &id), "{label}: accepted {id} not in\n{body}"),
            "defer" => assert!(
                cites(to_decide, &id),
                "{label}: deferred {id} not open in\n{body}"
            ),
            other => panic!("{label}: {id} decided {other:?}"),
        }
    }
    assert!(ran.stdout.contains("Admins will export"), "{label}");
}

/// For every moderation item of the plan demo, flipping that one decision
/// (accepted ↔ rejected, deferred → accepted) changes plan.md: the item's
/// step comes or goes, and the rest stays consistent with the rulings.
#[test]
fn plan_demo_conformance_every_flip_changes_the_plan() {
    let sandbox = Sandbox::new();
    let baseline: Vec<char> = ITEMS.iter().map(|(_, a)| *a).collect();
    let (ran, dir) = run(&sandbox, "base", &baseline);
    assert_consistent(&ran, &dir, "baseline");
    let base_plan = read(&dir, "plan.md");
    for (index, (id, proposed)) in ITEMS.iter().enumerate() {
        let mut answers = baseline.clone();
        answers[index] = if *proposed == 'a' { 'r' } else { 'a' };
        let (ran, dir) = run(&sandbox, &format!("flip-{id}"), &answers);
        let label = format!("{id} flipped to {}", answers[index]);
        assert_consistent(&ran, &dir, &label);
        let plan = read(&dir, "plan.md");
        assert_ne!(plan, base_plan, "{label}: plan.md did not change");
        let body = body(&plan);
        // What the flipped item stands for is there or gone.
        let (phrase, present) = match *id {
            "C1" => ("SET LOCAL", false),
            "C2" => ("every export runs as a background job", true),
            "C3" => ("README", false),
            "I1" => ("REPEATABLE READ", false),
            "I2" => ("email with the download link", true),
            "C4" => ("(I3, C4)", true),
            "I3" => ("50 MB", false),
            _ => unreachable!(),
        };
        assert_eq!(
            body.contains(phrase),
            present,
            "{label}: `{phrase}` in\n{body}"
        );
        if *id == "C2" {
            assert!(
                !cites(&plan, "C4") && !cites(&plan, "I3"),
                "{label}: one round"
            );
        }
        if *id == "I3" {
            assert!(body.contains("## Known risk"), "{label}: {body}");
        }
    }
}

/// Every item rejected, accepted or deferred at once: still a plan that
/// follows the rulings (issue 26: `--moderation reject` claims nothing
/// rejected).
#[test]
fn plan_demo_conformance_all_at_once() {
    let sandbox = Sandbox::new();
    for (name, answer) in [("reject", 'r'), ("accept", 'a'), ("defer", 'd')] {
        let (ran, dir) = run(&sandbox, name, &[answer; 7]);
        assert_consistent(&ran, &dir, name);
    }
}
