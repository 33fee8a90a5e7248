//! End to end (issue 17): the built-in demo run twice on the real binary,
//! once as scripted and once with its binding judge answering the way a
//! careless model does (scores as text, block ids in upper case). The
//! verdict, the scores and the recomputed verdict are the same; the record
//! says what was read other than as written; the judge's file is what the
//! judge sent, byte for byte.
use crate::support;

use std::path::{Path, PathBuf};

use regex::Regex;
use support::run::{Ran, Sandbox, only_run};
use yaml_serde::Value;

/// The demo's spec with every answer of `role` passed through `change`.
fn with_answers_of(spec: &str, role: &str, change: impl Fn(&str) -> String) -> String {
    let reply = Regex::new(r"^\s*- role: (\S+)\s*$").unwrap();
    let mut current: Option<String> = None;
    spec.lines()
        .map(|line| {
            if let Some(caps) = reply.captures(line) {
                current = Some(caps[1].to_string());
            }
            let line = if current.as_deref() == Some(role) {
                change(line)
            } else {
                line.to_string()
            };
            line + "\n"
        })
        .collect()
}

/// `score: 4` → `score: "4"`, `block_id: b2` → `block_id: B2`.
fn careless(line: &str) -> String {
    let score = Regex::new(r"^(\s+)score: (\d)$").unwrap();
    let block = Regex::new(r"^(\s+- block_id: )b(\d+)$").unwrap();
    let line = score.replace(line, "${1}score: \"${2}\"");
    block.replace(&line, "${1}B${2}").into_owned()
}

fn run(sandbox: &Sandbox, spec: &Path, out: &str) -> (Ran, PathBuf) {
    let out = sandbox.path().join(out);
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--speed",
            "200",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    (ran, only_run(&out))
}

fn yaml(dir: &Path) -> Value {
    yaml_serde::from_str(&std::fs::read_to_string(dir.join("debate.yaml")).unwrap()).unwrap()
}

/// Every round's analyst status in debate.yaml.
fn analyst_statuses(record: &Value) -> Vec<Value> {
    record["stages"]["evaluation"]["rounds"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|round| round["judges"].as_sequence().unwrap().clone())
        .filter(|judge| judge["role"].as_str() == Some("analyst"))
        .collect()
}

#[test]
fn inf_10_a_binding_judge_answering_carelessly_reaches_the_same_verdict() {
    let sandbox = Sandbox::new();
    let exported = sandbox.path().join("demo.yaml");
    sandbox
        .quorum(
            &["demo", "--export-script", exported.to_str().unwrap()],
            &[],
        )
        .assert_code(0);
    let clean_spec = std::fs::read_to_string(&exported).unwrap();
    let careless_spec = with_answers_of(&clean_spec, "judge.analyst", careless);
    assert!(careless_spec.contains("score: \"4\"") && careless_spec.contains("- block_id: B2"));
    let careless_path = sandbox.write("careless.yaml", &careless_spec);

    let (clean_ran, clean_dir) = run(&sandbox, &exported, "clean");
    let (careless_ran, careless_dir) = run(&sandbox, &careless_path, "careless");
    careless_ran.assert_code(clean_ran.code);
    assert_eq!(clean_ran.code, 0, "the demo adopts: {}", clean_ran.stderr);

    // The same verdict, rounds and scores.
    let (clean, messy) = (yaml(&clean_dir), yaml(&careless_dir));
    assert_eq!(messy["decision"], clean["decision"]);
    assert_eq!(
        messy["stages"]["evaluation"]["rounds"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|round| (round["verdict"].clone(), round["block_scores"].clone()))
            .collect::<Vec<_>>(),
        clean["stages"]["evaluation"]["rounds"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|round| (round["verdict"].clone(), round["block_scores"].clone()))
            .collect::<Vec<_>>(),
    );

    // The record says what was read, on the call and in the transcript.
    let statuses = analyst_statuses(&messy);
    assert!(!statuses.is_empty());
    for status in &statuses {
        assert_eq!(status["status"].as_str(), Some("scored"), "{status:?}");
        let notes: Vec<&str> = status["normalised"]
            .as_sequence()
            .expect("the analyst's readings are recorded")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            notes.contains(&"read block_id \"B2\" as b2 (b2 correctness)"),
            "{notes:?}"
        );
        assert!(
            notes.iter().any(
                |note| note.starts_with("read score \"") && note.ends_with(" (b2 feasibility)")
            ),
            "{notes:?}"
        );
    }
    for status in analyst_statuses(&clean) {
        assert!(status.get("normalised").is_none(), "{status:?}");
    }
    let transcript = std::fs::read_to_string(careless_dir.join("transcript.md")).unwrap();
    let noted = transcript
        .lines()
        .find(|line| line.contains("answer read leniently:"))
        .expect("a transcript note of the readings");
    assert!(noted.contains("`judge.analyst/evaluation/r1"), "{noted}");
    assert!(
        noted.contains("read score \\\"4\\\" as 4 (b1 correctness)")
            || noted.contains("read score \"4\" as 4 (b1 correctness)"),
        "{noted}"
    );
    let clean_transcript = std::fs::read_to_string(clean_dir.join("transcript.md")).unwrap();
    assert!(!clean_transcript.contains("answer read leniently"));

    // The judge's file is what it sent, byte for byte (the demo's judges
    // answer by the rulings, which accepted every item here).
    let spec = quorum::spec::parse(&careless_path, &careless_spec).unwrap();
    let sent = spec
        .script
        .unwrap()
        .replies
        .iter()
        .find(|reply| reply.role == "judge.analyst" && reply.round == Some(1))
        .and_then(support::text_with_every_item_accepted)
        .expect("the analyst's round-1 answer");
    assert!(sent.contains("score: \"4\"") && sent.contains("- block_id: B1"));
    let judge_file = std::fs::read_to_string(careless_dir.join("judges/judge-analyst.md")).unwrap();
    assert_eq!(judge_file, sent);

    // `quorum verdict` reads the files the same way, and says so.
    let clean_verdict = sandbox.quorum(&["verdict", clean_dir.to_str().unwrap()], &[]);
    let careless_verdict = sandbox.quorum(&["verdict", careless_dir.to_str().unwrap()], &[]);
    careless_verdict.assert_code(clean_verdict.code);
    assert_eq!(careless_verdict.stdout, clean_verdict.stdout);
    assert!(clean_verdict.stderr.is_empty(), "{}", clean_verdict.stderr);
    assert!(
        careless_verdict.stderr.contains(
            "quorum: judges/judge-analyst-round-2.md: read block_id \"B1\" as b1 (b1 correctness)"
        ),
        "{}",
        careless_verdict.stderr
    );
}

/// README rule 5 and DR-34 (A4): an advisory judge that leaves one of its
/// criteria unscored is read, not thrown out as malformed, and the gap is
/// major uncertainty: the demo that adopts escalates, naming the gap.
#[test]
fn dr_34_an_advisory_judge_leaving_a_criterion_unscored_escalates() {
    let sandbox = Sandbox::new();
    let exported = sandbox.path().join("demo.yaml");
    sandbox
        .quorum(
            &["demo", "--export-script", exported.to_str().unwrap()],
            &[],
        )
        .assert_code(0);
    let spec = std::fs::read_to_string(&exported).unwrap();
    // The aesthete's last answer scores b1 on a criterion it does not
    // judge, which is ignored (A1): its own, simplicity, is left unscored.
    let last = spec.rfind("- role: judge.aesthete").unwrap();
    let at = last + spec[last..].find("criterion: simplicity").unwrap();
    let edited = format!(
        "{}criterion: correctness{}",
        &spec[..at],
        &spec[at + "criterion: simplicity".len()..]
    );
    let path = sandbox.write("gap.yaml", &edited);
    let (ran, dir) = run(&sandbox, &path, "gap");
    ran.assert_code(5);
    let record = yaml(&dir);
    let rounds = record["stages"]["evaluation"]["rounds"]
        .as_sequence()
        .unwrap();
    let last_round = rounds.last().unwrap();
    let aesthete = last_round["judges"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|judge| judge["role"].as_str() == Some("aesthete"))
        .unwrap();
    assert_eq!(aesthete["status"].as_str(), Some("scored"), "{aesthete:?}");
    assert_eq!(last_round["verdict"].as_str(), Some("ESCALATE"));
    let rule = last_round["rule"].as_str().unwrap();
    assert!(
        rule.contains("aesthete left unscored: b1 (simplicity)"),
        "{rule}"
    );
}
