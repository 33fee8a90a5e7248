//! Chained debates (issue 30): one debate's structured result is another's
//! input, with `--from DIR` on the receiving command, on the real binary
//! and scripted agents. A council's confirmed and disputed findings, a red
//! team's standing findings and a pre-mortem's root causes become a
//! decision review's critique items `f1`, `f2`, … (ruled on as usual and
//! answered by the revision); a root-cause analysis's proven cause becomes a
//! planning debate's goal; a comparative review's recommendation becomes an
//! architecture review's topic. The receiving record names its source
//! (`from.json`, a context document in the journal), the report and
//! `quorum open` say where it came from, and what cannot be chained is
//! refused before anything is written.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use support::run::{Ran, Sandbox, only_run};
use yaml_serde::Value as Yaml;

/// A source demo run headless under `sandbox/NAME`; its folder.
fn source(sandbox: &Sandbox, name: &str, args: &[&str]) -> PathBuf {
    let ran = sandbox.demo_into(name, args);
    assert!(matches!(ran.code, 0 | 6 | 7), "{args:?}: {}", ran.stderr);
    only_run(&sandbox.path().join(name))
}

/// `quorum demo --from DIR`, headless, recording under `sandbox/NAME`.
fn chained_demo(sandbox: &Sandbox, name: &str, from: &Path) -> (Ran, PathBuf) {
    let ran = sandbox.demo_into(name, &["--from", from.to_str().unwrap()]);
    let out = sandbox.path().join(name);
    let dir = if out.exists() {
        only_run(&out)
    } else {
        PathBuf::new()
    };
    (ran, dir)
}

/// The `script:` of a built-in chain demo, as a `--script` file.
fn demo_script(sandbox: &Sandbox, demo: &str) -> PathBuf {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("demo")
            .join(demo),
    )
    .unwrap();
    let spec: Yaml = yaml_serde::from_str(&text).unwrap();
    let script = yaml_serde::to_string(&spec["script"]).unwrap();
    sandbox.write(&format!("{demo}.script.yaml"), &script)
}

/// The receiving command with `--from` and no topic, on `script`.
fn chained_command(
    sandbox: &Sandbox,
    name: &str,
    command: &str,
    from: &Path,
    script: &Path,
) -> (Ran, PathBuf) {
    let out = sandbox.path().join(name);
    let ran = sandbox.quorum(
        &[
            command,
            "--from",
            from.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
            "--headless",
            "--json",
            "--speed",
            "50",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    (ran, only_run(&out))
}

fn json(ran: &Ran) -> Json {
    serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", ran.stdout, ran.stderr))
}

/// The debate's definition, from its journal's first line.
fn definition(dir: &Path) -> Json {
    let text = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let first: Json = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["event"]["definition"].clone()
}

/// What every chained record says of its source: `from.json`, the context
/// document naming it, the report's line, `quorum open`'s line.
fn assert_names_its_source(sandbox: &Sandbox, dir: &Path, source: &Path, kind: &str) {
    let origin: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("from.json")).unwrap()).unwrap();
    assert_eq!(
        origin["source"].as_str().unwrap(),
        source.canonicalize().unwrap().to_str().unwrap()
    );
    assert_eq!(origin["from"], kind);
    let definition = definition(dir);
    let source_name = source.file_name().unwrap().to_str().unwrap();
    let context = definition["context"].as_array().unwrap();
    let handed = context
        .iter()
        .find(|doc| doc["name"] == format!("handed-on-from-{source_name}.md"))
        .unwrap_or_else(|| panic!("no context document names {source_name}: {context:?}"));
    assert!(
        handed["text"]
            .as_str()
            .unwrap()
            .starts_with(&format!("# Handed on from a {kind}")),
        "{handed}"
    );
    let report = sandbox.quorum(&["report", dir.to_str().unwrap(), "-o", "-"], &[]);
    report.assert_code(0);
    assert!(
        report.stdout.contains(&format!(
            "takes what was handed on from the {kind} in {}",
            source.canonicalize().unwrap().display()
        )),
        "the report names its source"
    );
    let open = sandbox.quorum(&["open", dir.to_str().unwrap()], &[]);
    open.assert_code(0);
    assert!(
        open.stdout.contains(&format!("takes what the {kind} in")),
        "{}",
        open.stdout
    );
}

/// The critique items of a decision review's record, `(id, description)`.
fn critique_items(dir: &Path) -> Vec<(String, String, String)> {
    let debate: Yaml =
        yaml_serde::from_str(&std::fs::read_to_string(dir.join("debate.yaml")).unwrap()).unwrap();
    debate["stages"]["critique"]["critiques"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["id"].as_str().unwrap().to_string(),
                item["description"].as_str().unwrap_or_default().to_string(),
                item["decision"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The ids the revision's change log answered.
fn addressed(dir: &Path) -> Vec<String> {
    let debate: Yaml =
        yaml_serde::from_str(&std::fs::read_to_string(dir.join("debate.yaml")).unwrap()).unwrap();
    let mut ids: Vec<String> = debate["stages"]["revision"]
        .as_sequence()
        .map(|rounds| rounds.iter().collect::<Vec<_>>())
        .unwrap_or_else(|| vec![&debate["stages"]["revision"]])
        .into_iter()
        .flat_map(|round| {
            round["change_log"]
                .as_sequence()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|entry| entry["addresses_critique"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// A chain of findings: every handed finding is an item `fN` after the
/// critic's, accepted by the headless policy, answered by the revision, and
/// the review reaches ADOPT.
fn assert_findings_chain(sandbox: &Sandbox, source: &Path, kind: &str, expected: &[&str]) {
    let (ran, dir) = chained_demo(sandbox, "chained", source);
    ran.assert_code(0);
    assert_eq!(json(&ran)["verdict"], "ADOPT");
    assert_names_its_source(sandbox, &dir, source, kind);
    let items = critique_items(&dir);
    let handed: Vec<&(String, String, String)> = items
        .iter()
        .filter(|(id, _, _)| id.starts_with('f'))
        .collect();
    assert_eq!(
        handed.len(),
        expected.len(),
        "every handed finding is an item: {items:?}"
    );
    for (index, ((id, description, decision), source_id)) in handed.iter().zip(expected).enumerate()
    {
        assert_eq!(id, &format!("f{}", index + 1));
        assert!(
            description.contains(&format!("(from the {kind}: {source_id} ")),
            "{id} names where it came from: {description}"
        );
        assert_eq!(decision, "accept", "ruled on like the critic's");
    }
    let answered = addressed(&dir);
    for (id, _, _) in &handed {
        assert!(answered.contains(id), "{id} answered: {answered:?}");
    }
    assert!(
        items.iter().any(|(id, _, _)| id == "c1"),
        "the critic's own items come first"
    );
}

#[test]
fn a_councils_confirmed_and_disputed_findings_become_critique_items() {
    let sandbox = Sandbox::new();
    let council = source(&sandbox, "council", &["--protocol", "council"]);
    // What council.json says was confirmed or disputed, in its order.
    let record: Json =
        serde_json::from_str(&std::fs::read_to_string(council.join("council.json")).unwrap())
            .unwrap();
    let handed: Vec<String> = record["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| matches!(finding["state"].as_str(), Some("confirmed" | "disputed")))
        .map(|finding| finding["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        handed,
        ["F002", "F003", "F006", "F008"],
        "the demo's council"
    );
    let handed: Vec<&str> = handed.iter().map(String::as_str).collect();
    assert_findings_chain(&sandbox, &council, "council", &handed);
}

#[test]
fn a_red_teams_standing_findings_become_critique_items() {
    let sandbox = Sandbox::new();
    let red_team = source(&sandbox, "redteam", &["--protocol", "redteam"]);
    let expected = red_team_order();
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_findings_chain(&sandbox, &red_team, "red team", &expected);
}

/// The red team's findings as handed on: most severe first, in the
/// critic's order within a severity (`v1` is its first), every one
/// standing (the headless triage accepts them all). Read from the demo's
/// script, where the critic lists them with their severity.
fn red_team_order() -> Vec<String> {
    let script = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/quick-redteam.yaml"),
    )
    .unwrap();
    let rank = |severity: &str| {
        ["critical", "high", "medium", "low"]
            .iter()
            .position(|known| *known == severity)
            .unwrap()
    };
    let mut found: Vec<(usize, usize)> = script
        .lines()
        .filter_map(|line| line.trim().strip_prefix("severity: "))
        .enumerate()
        .map(|(index, severity)| (rank(severity.trim()), index))
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|(_, index)| format!("v{}", index + 1))
        .collect()
}

#[test]
fn a_pre_mortems_root_causes_become_critique_items() {
    let sandbox = Sandbox::new();
    let pre_mortem = source(&sandbox, "premortem", &["--protocol", "premortem"]);
    assert_findings_chain(
        &sandbox,
        &pre_mortem,
        "pre-mortem",
        &[
            "root cause 1",
            "root cause 2",
            "root cause 3",
            "root cause 4",
            "root cause 5",
        ],
    );
}

#[test]
fn a_proven_cause_becomes_a_planning_debates_goal() {
    let sandbox = Sandbox::new();
    // Headless with nobody to rule the rival H4 out, the demo proves
    // nothing (A28 as revised), and an unproven analysis hands nothing on.
    let unproven = sandbox.demo_into("unproven", &["--protocol", "rca"]);
    unproven.assert_code(8);
    let unproven = only_run(&sandbox.path().join("unproven"));
    let (ran, _) = chained_demo(&sandbox, "refused", &unproven);
    ran.assert_code(2);
    assert!(ran.stderr.contains("hands nothing on"), "{}", ran.stderr);
    // A person who rules H4 out proves H1.
    let out = sandbox.path().join("rca");
    let ran = support::rca::demo_asked(sandbox.path(), &out, &support::rca::demo_ruling_out_h4());
    ran.assert_code(0);
    let analysis = only_run(&out);
    let cause = proven_claim(&analysis);
    // The demo that receives it.
    let (ran, dir) = chained_demo(&sandbox, "chained", &analysis);
    ran.assert_code(0);
    assert_names_its_source(&sandbox, &dir, &analysis, "root-cause analysis");
    assert!(dir.join("plan.md").exists());
    // `quorum plan --from DIR` with no goal: the cause is the goal.
    let script = demo_script(&sandbox, "chain-rca-plan.yaml");
    let (ran, dir) = chained_command(&sandbox, "command", "plan", &analysis, &script);
    ran.assert_code(0);
    let topic = definition(&dir)["topic"].as_str().unwrap().to_string();
    assert_eq!(topic, format!("Fix the proven root cause: {cause}"));
    assert_names_its_source(&sandbox, &dir, &analysis, "root-cause analysis");
}

/// The claim of the hypothesis a root-cause analysis proved, from its
/// record (`rca.yaml`'s `root_cause:`).
fn proven_claim(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("rca.yaml")).unwrap();
    let record: Yaml = yaml_serde::from_str(&text).unwrap();
    record["root_cause"]["claim"]
        .as_str()
        .unwrap_or_else(|| panic!("no proven cause in {text}"))
        .trim()
        .to_string()
}

#[test]
fn a_comparisons_recommendation_becomes_an_architecture_reviews_topic() {
    let sandbox = Sandbox::new();
    let comparison = source(&sandbox, "comparative", &["--mode", "comparative"]);
    let (ran, dir) = chained_demo(&sandbox, "chained", &comparison);
    ran.assert_code(0);
    assert_eq!(json(&ran)["verdict"], "ADOPT");
    assert_names_its_source(&sandbox, &dir, &comparison, "comparative review");
    // `quorum review --from DIR` with no topic: the recommendation is it.
    let script = demo_script(&sandbox, "chain-comparative-review.yaml");
    let (ran, dir) = chained_command(&sandbox, "command", "review", &comparison, &script);
    ran.assert_code(0);
    let topic = definition(&dir)["topic"].as_str().unwrap().to_string();
    assert!(
        topic.starts_with(
            "Which job queue should the order service use? Build it as recommended: option A, "
        ),
        "{topic}"
    );
    let context = definition(&dir)["context"].to_string();
    assert!(
        context.contains("The recommendation: option A"),
        "{context}"
    );
    // The receiving demo can be exported like any demo, to edit and run.
    let exported = sandbox.path().join("chained-demo.yaml");
    sandbox
        .quorum(
            &[
                "demo",
                "--from",
                comparison.to_str().unwrap(),
                "--export-script",
                exported.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let demo = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/chain-comparative-review.yaml"),
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(&exported).unwrap().lines().next(),
        demo.lines().next()
    );
    // A fork of a chained debate names the same source.
    let fork_root = sandbox.path().join("forks");
    let forked = sandbox.quorum(
        &[
            "fork",
            dir.to_str().unwrap(),
            "--at",
            "evaluation",
            "--headless",
            "--out",
            fork_root.to_str().unwrap(),
        ],
        &[],
    );
    forked.assert_code(0);
    let fork = only_run(&fork_root);
    assert_eq!(
        std::fs::read(fork.join("from.json")).unwrap(),
        std::fs::read(dir.join("from.json")).unwrap()
    );
}

#[test]
fn what_cannot_be_chained_is_refused_before_anything_is_written() {
    let sandbox = Sandbox::new();
    let challenge = source(&sandbox, "challenge", &["--protocol", "challenge"]);
    let comparison = source(&sandbox, "comparative", &["--mode", "comparative"]);
    let out = sandbox.path().join("refused");
    // `COMMAND --from DIR ARGS --headless`, refused with a usage error.
    let refused = |command: &str, from: &Path, args: &[&str]| {
        let mut all = vec![command, "--from", from.to_str().unwrap()];
        all.extend(args);
        all.extend(["--headless", "--out", out.to_str().unwrap()]);
        let ran = sandbox.quorum(&all, &[]);
        ran.assert_code(2);
        assert!(ran.stderr.contains("--from"), "{}", ran.stderr);
        ran.stderr
    };
    // A 1:1 challenge hands nothing on.
    let stderr = refused("review", &challenge, &[]);
    assert!(stderr.contains("hands nothing on"), "{stderr}");
    // A recommendation is not a plan's goal.
    let script = demo_script(&sandbox, "chain-rca-plan.yaml");
    let stderr = refused("plan", &comparison, &["--script", script.to_str().unwrap()]);
    assert!(
        stderr.contains("a comparative review hands on a recommendation"),
        "{stderr}"
    );
    // Not a debate at all.
    refused("plan", sandbox.path(), &[]);
    assert!(!out.exists(), "nothing was written");
}
