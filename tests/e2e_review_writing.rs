//! The decision review's writing mode on the real binary: the built-in
//! demo headless, file by file; a run from a spec in which one judge times
//! out twice and the others' rewrites are merged; `quorum review --mode
//! writing --draft FILE` with a script of its own; and what `verdict` says
//! of a writing review.

use crate::support;

use std::path::Path;

use support::run::Sandbox;

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|_| panic!("{name} is written"))
}

/// A pace fast enough for tests.
const PACE: &str = "pace: { first_token_ms: 5, chars_per_second: 20000, chunk_chars: 40 }\n";

fn rewrite(role: &str) -> String {
    format!(
        "    - role: judge.{role}\n      text: |\n        ```yaml\n        rewrite: |\n          The {role} says: deploys stop at 16:00 on Fridays.\n        notes: [Shorter.]\n        ```\n"
    )
}

const MERGE: &str = "    - role: synthesizer\n      text: |\n        ```yaml\n        summary: The rule now fits in one sentence with its time.\n        revised_draft: |\n          Deploys stop at 16:00 on Fridays.\n        changes:\n          - location: first sentence\n            type: clarity\n            before: We would prefer that deploys do not happen late on Fridays.\n            after: Deploys stop at 16:00 on Fridays.\n            rationale: A time is a rule; a preference is not.\n            answers: c1\n        ```\n";

/// The critic's one item, which the merge answers; a headless run accepts it.
const CRITIC: &str = "    - role: critic\n      text: |\n        ```yaml\n        items:\n          - location: first sentence\n            type: clarity\n            severity: major\n            text: A preference is not a rule; give the time.\n        ```\n";

const DRAFT: &str = "We would prefer that deploys do not happen late on Fridays.\n";

/// RF-18, DR-60, DR-61, RF-07: the writing demo finishes headless with
/// exit 0 and no verdict; stdout is the summary's opening (the change
/// summary, then the revised text); the judges' files carry no round
/// suffix; debate.yaml records the mode, the draft and the merge.
#[test]
fn rf_18_the_writing_demo_delivers_the_revised_text_and_its_changes() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--mode",
            "writing",
            "--headless",
            "--speed",
            "50",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let dir = sandbox.run_dir();
    assert!(
        ran.stdout
            .starts_with("**What changed:** The announcement now opens"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("## Revised text\n\nSubject: Incident reviews are blameless from 1 March")
    );
    assert!(!ran.stdout.contains("ADOPT") && !ran.stdout.contains("verdict:"));
    for role in ["aesthete", "stylist", "analyst"] {
        let file = read(&dir, &format!("judges/judge-{role}.md"));
        assert!(file.starts_with("```yaml\nrewrite: |"), "{role}: {file}");
    }
    let summary = read(&dir, "summary.md");
    let opening = &summary[..summary.find("## How this was made").unwrap()];
    for word in ["aesthete", "stylist", "analyst", "judge ", "judges", "/5"] {
        assert!(
            !opening.to_lowercase().contains(word),
            "{word} in the opening:\n{opening}"
        );
    }
    let yaml = read(&dir, "debate.yaml");
    for needle in [
        "mode: writing",
        "name: incident-review-announcement.md",
        "file: judges/judge-analyst.md",
        "revised_draft: |",
        "type: evidence",
        "rationale:",
    ] {
        assert!(yaml.contains(needle), "{needle}:\n{yaml}");
    }
    assert!(read(&dir, "revised-draft.md").starts_with("Subject: Incident reviews are blameless"));
    assert!(dir.join("journal.jsonl").is_file());

    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    assert_ne!(verdict.code, 0);
    assert!(
        verdict.stderr.contains("a writing review has no verdict"),
        "{}",
        verdict.stderr
    );
}

/// DR-59, A16, INF-17: one judge times out twice; the others' rewrites are
/// merged, the timeout and the skip are in the transcript with their call
/// ids, and its judge file is never written. The spec's `draft:` is read
/// from beside the spec.
#[test]
fn a_judge_timing_out_leaves_the_others_rewrites_to_merge() {
    let sandbox = Sandbox::new();
    sandbox.write("friday.md", DRAFT);
    let spec = format!(
        "protocol: decision-review\nmode: writing\ntopic: The Friday deploy rule\ndraft: friday.md\nagents:\n  default: script\n  judge.stylist: {{ provider: script, timeout_secs: 1 }}\nscript:\n  {PACE}  replies:\n{CRITIC}{}{}    - role: judge.stylist\n      fault: timeout\n{MERGE}",
        rewrite("aesthete"),
        rewrite("analyst"),
    );
    let path = sandbox.write("writing.yaml", &spec);
    let out = sandbox.out();
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
    ran.assert_code(0);
    let dir = sandbox.run_dir();
    assert!(dir.join("judges/judge-aesthete.md").is_file());
    assert!(dir.join("judges/judge-analyst.md").is_file());
    assert!(!dir.join("judges/judge-stylist.md").exists());
    let transcript = read(&dir, "transcript.md");
    for needle in [
        "**TIMEOUT** `judge.stylist/rewrites/r1/a1`",
        "**call** `judge.stylist/rewrites/r1/a2`",
        "**SKIP** `judge.stylist/rewrites/r1/a2`",
        "2 of 3 rewrites in; the merge goes on without the rest",
    ] {
        assert!(transcript.contains(needle), "{needle}:\n{transcript}");
    }
    let journal = read(&dir, "journal.jsonl");
    let merge = journal
        .lines()
        .find(|line| {
            line.contains(r#""call_id":"synthesizer/merge/r1/a1""#) && line.contains("call_started")
        })
        .expect("the merge started");
    assert!(merge.contains("The aesthete says"));
    assert!(merge.contains("The analyst says"));
    assert!(!merge.contains("The stylist says"));
    assert!(merge.contains("The stylist's rewrite is missing"));
    let summary = read(&dir, "summary.md");
    assert!(summary.contains("Deploys stop at 16:00 on Fridays."));
    assert!(
        summary.contains(
            "- Stylist (advisory, reads for clarity, tone): no rewrite (skipped: timed out twice"
        ),
        "{summary}"
    );
}

/// `quorum review --mode writing --draft FILE`: the flag's file is read as
/// given; a spec's draft outside its folder is refused with the field.
#[test]
fn review_mode_writing_with_a_draft_flag() {
    let sandbox = Sandbox::new();
    let draft = sandbox.write("friday.md", DRAFT);
    let script = sandbox.write(
        "script.yaml",
        &format!(
            "{PACE}replies:\n{CRITIC}{}{}{}{MERGE}",
            rewrite("aesthete"),
            rewrite("stylist"),
            rewrite("analyst")
        ),
    );
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "review",
            "The Friday deploy rule",
            "--mode",
            "writing",
            "--draft",
            draft.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let dir = sandbox.run_dir();
    assert_eq!(
        read(&dir, "revised-draft.md"),
        "Deploys stop at 16:00 on Fridays.\n"
    );

    let outside = sandbox.write(
        "spec.yaml",
        "protocol: decision-review\nmode: writing\ntopic: x\ndraft: ../elsewhere.md\nagents:\n  default: script\n",
    );
    let ran = sandbox.quorum(&["run", outside.to_str().unwrap(), "--headless"], &[]);
    assert_ne!(ran.code, 0);
    assert!(ran.stderr.contains("draft"), "{}", ran.stderr);
    assert!(ran.stderr.contains("climbs out"), "{}", ran.stderr);
}

/// Issue 29, end to end: the writing demo judges fairly: the merge reads
/// the rewrites blind and in its own order, the judges' scores of the draft
/// on every aspect give an agreement in summary.md and debate.yaml, and
/// recusal, with no one's work to judge, is refused.
#[test]
fn the_writing_demo_reads_blind_and_gives_its_judges_agreement() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let out = out.to_str().unwrap();
    let args = [
        "demo",
        "--mode",
        "writing",
        "--headless",
        "--speed",
        "50",
        "--out",
        out,
    ];
    sandbox.quorum(&args, &[]).assert_code(0);
    let dir = sandbox.run_dir();
    let summary = read(&dir, "summary.md");
    assert!(
        summary.contains("The judges' scores of the draft, asked on every aspect, decide nothing"),
        "{summary}"
    );
    assert!(summary.contains("judges' agreement"), "{summary}");
    assert!(read(&dir, "debate.yaml").contains("\n  evaluation:\n    judges:"));
    assert!(read(&dir, "debate.yaml").contains("\n    agreement:\n      alpha:"));
    assert!(
        read(&dir, "transcript.md")
            .contains("fair judging: the merge read blind, the rewrites in its own order")
    );
    let refused = Sandbox::new().quorum(
        &[
            "demo",
            "--mode",
            "writing",
            "--headless",
            "--recusal",
            "flag",
        ],
        &[],
    );
    refused.assert_code(2);
    assert!(
        refused
            .stderr
            .contains("--recusal: a decision review (writing"),
        "{}",
        refused.stderr
    );
}

/// DR-16, DR-18, DR-43, on the real binary: `quorum review --mode writing
/// --critique strict` is accepted, the critic's prompt states the stance,
/// and debate.yaml and the transcript record it.
#[test]
fn dr_16_dr_18_dr_43_review_mode_writing_takes_the_critics_stance() {
    let sandbox = Sandbox::new();
    let draft = sandbox.write("friday.md", DRAFT);
    let script = sandbox.write(
        "script.yaml",
        &format!(
            "{PACE}replies:\n{CRITIC}{}{}{}{MERGE}",
            rewrite("aesthete"),
            rewrite("stylist"),
            rewrite("analyst")
        ),
    );
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "review",
            "The Friday deploy rule",
            "--mode",
            "writing",
            "--draft",
            draft.to_str().unwrap(),
            "--critique",
            "strict",
            "--script",
            script.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let dir = sandbox.run_dir();
    let journal = read(&dir, "journal.jsonl");
    let critic = journal
        .lines()
        .find(|line| {
            line.contains(r#""call_id":"critic/critique/r1/a1""#) && line.contains("call_started")
        })
        .expect("the critic started");
    assert!(
        critic.contains(r"\n\nCRITIQUE MODE: strict\n\n"),
        "{critic}"
    );
    assert!(
        critic.contains("Give the draft no benefit of the doubt."),
        "{critic}"
    );
    let record: yaml_serde::Value = yaml_serde::from_str(&read(&dir, "debate.yaml")).unwrap();
    assert_eq!(record["meta"]["critique_mode"], "strict");
    assert!(read(&dir, "transcript.md").contains("critique strict, started"));
}

/// The keys of a YAML mapping, in order.
fn keys(value: &yaml_serde::Value) -> Vec<String> {
    value
        .as_mapping()
        .unwrap_or_else(|| panic!("a mapping: {value:?}"))
        .keys()
        .map(|key| key.as_str().unwrap().to_string())
        .collect()
}

/// DR-43, DR-44, DR-45, on the real binary: the writing demo's debate.yaml
/// has the layout of the architecture demo's: the same `meta` keys the
/// seed names, `participants` with `proposer`, `critic` and `judges` (each
/// judge with its role, agent and weight), `stages` with `proposal`,
/// `critique`, `revision` and `evaluation`, and the top-level `decision`,
/// `outcome` and `usage`; what only a writing review has is kept beside
/// them.
#[test]
fn dr_43_dr_44_dr_45_the_writing_record_has_the_architecture_records_layout() {
    let record = |mode: &str| {
        let sandbox = Sandbox::new();
        let out = sandbox.out();
        sandbox
            .quorum(
                &[
                    "demo",
                    "--mode",
                    mode,
                    "--headless",
                    "--speed",
                    "200",
                    "--out",
                    out.to_str().unwrap(),
                ],
                &[],
            )
            .assert_code(0);
        let yaml: yaml_serde::Value =
            yaml_serde::from_str(&read(&sandbox.run_dir(), "debate.yaml")).unwrap();
        yaml
    };
    let architecture = record("architecture");
    let writing = record("writing");
    let within = |part: &[String], whole: &[String], what: &str| {
        for key in part {
            assert!(whole.contains(key), "{what}: {key} missing from {whole:?}");
        }
    };
    for key in [
        "meta",
        "participants",
        "stages",
        "decision",
        "outcome",
        "usage",
    ] {
        assert!(
            architecture.get(key).is_some() && writing.get(key).is_some(),
            "{key}"
        );
    }
    within(
        &["topic", "mode", "timestamp", "critique_mode", "protocol"].map(String::from),
        &keys(&writing["meta"]),
        "meta",
    );
    within(
        &keys(&architecture["participants"]),
        &keys(&writing["participants"]),
        "participants",
    );
    assert_eq!(keys(&architecture["stages"]), keys(&writing["stages"]));
    within(
        &keys(&architecture["participants"]["critic"]),
        &keys(&writing["participants"]["critic"]),
        "the critic",
    );
    assert_eq!(
        architecture["participants"]["critic"]["role"],
        writing["participants"]["critic"]["role"]
    );
    for judge in writing["participants"]["judges"].as_sequence().unwrap() {
        within(
            &["role", "agent", "weight"].map(String::from),
            &keys(judge),
            "a judge",
        );
    }
    for (stage, key) in [
        ("critique", "critiques"),
        ("critique", "raw_output"),
        ("revision", "raw_output"),
    ] {
        assert!(
            architecture["stages"][stage].get(key).is_some()
                && writing["stages"][stage].get(key).is_some(),
            "{stage}.{key}"
        );
    }
    // What only a writing review records stays.
    assert!(writing["draft"]["text"].is_string());
    assert!(writing["decision"]["revised_draft"].is_string());
    assert_eq!(
        writing["stages"]["evaluation"]["judges"][0]["file"],
        "judges/judge-aesthete.md"
    );
    assert!(writing["stages"]["evaluation"]["agreement"]["summary"].is_string());
}
