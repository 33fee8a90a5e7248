//! The quick modes on the real binary: each mode's demo headless, file by
//! file; each command with a script of its own; a panel whose reviewer
//! times out twice; an architecture challenge without its revision; and
//! what `verdict`, `open` and `replay` say of a quick debate.

use crate::support;

use std::path::{Path, PathBuf};

use support::run::{Ran, Sandbox};

/// The five modes: command, deliverable, the files besides it.
const MODES: [(&str, &str, &[&str]); 5] = [
    ("challenge", "transcript.md", &[]),
    (
        "panel",
        "panel-review.md",
        &[
            "judges/judge-aesthete.md",
            "judges/judge-stylist.md",
            "judges/judge-analyst.md",
        ],
    ),
    ("premortem", "pre-mortem.md", &[]),
    ("redteam", "red-team-report.md", &[]),
    ("adversary", "architecture-challenge.md", &[]),
];

fn demo(sandbox: &Sandbox, mode: &str, extra: &[&str]) -> (Ran, PathBuf) {
    let out = sandbox.out();
    let mut args = vec![
        "demo",
        "--protocol",
        mode,
        "--headless",
        "--speed",
        "50",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let ran = sandbox.quorum(&args, &[]);
    (ran, sandbox.run_dir())
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|_| panic!("{name} is written"))
}

/// QS-02, QM-03, QM-07, QM-12, QM-15, QM-22, A9, RF-07, RF-09: every quick mode's
/// demo finishes headless with exit 0 and writes its files into a
/// `{topic-slug}-{YYYYMMDD-HHMMSS}` folder; stdout is the deliverable's
/// opening, word for word, then a pointer to it.
#[test]
fn every_quick_demo_runs_headless_and_writes_its_files() {
    let slug = regex::Regex::new(r"^[a-z0-9-]+-\d{8}-\d{6}$").unwrap();
    for (mode, deliverable, others) in MODES {
        let sandbox = Sandbox::new();
        let (ran, dir) = demo(&sandbox, mode, &[]);
        ran.assert_code(0);
        let name = dir.file_name().unwrap().to_str().unwrap();
        assert!(slug.is_match(name), "{mode}: run folder {name}");
        for file in ["transcript.md", "debate.yaml", "journal.jsonl", deliverable]
            .iter()
            .chain(others.iter())
        {
            assert!(dir.join(file).is_file(), "{mode}: {file}");
        }
        assert!(
            !dir.join("summary.md").exists(),
            "{mode}: no decision document"
        );
        let document = read(&dir, deliverable);
        let (opening, pointer) = ran
            .stdout
            .trim_end()
            .rsplit_once("\n\nFull record: ")
            .unwrap_or_else(|| panic!("{mode}: a pointer ends the summary:\n{}", ran.stdout));
        assert!(
            pointer.ends_with(deliverable),
            "{mode}: RF-09, the pointer names {deliverable}: {pointer}"
        );
        assert!(
            document.contains(opening),
            "{mode}: RF-07, the summary is the document's own text:\n{opening}"
        );
        assert!(
            ran.stderr.contains("quorum: quick"),
            "{mode}: {}",
            ran.stderr
        );
        let yaml: yaml_serde::Value = yaml_serde::from_str(&read(&dir, "debate.yaml")).unwrap();
        assert_eq!(yaml["meta"]["protocol"].as_str(), Some("quick"));
        assert_eq!(yaml["meta"]["mode"].as_str(), Some(mode));
        assert_eq!(yaml["outcome"]["kind"].as_str(), Some("completed"));
    }
}

/// QS-01: `--json` says there is no verdict and the exit code is 0.
#[test]
fn qs_01_a_quick_mode_prints_no_verdict() {
    let sandbox = Sandbox::new();
    let (ran, _) = demo(&sandbox, "premortem", &["--json"]);
    ran.assert_code(0);
    let result: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(result["verdict"], serde_json::Value::Null);
    assert_eq!(result["exit_code"], 0);
    assert!(
        result["deliverable"]
            .as_str()
            .unwrap()
            .ends_with("pre-mortem.md")
    );
    assert!(!result["summary"].as_str().unwrap().is_empty());
}

/// A pace fast enough for tests, and a synthesizer's reader-first answer.
const PACE: &str = "pace: { first_token_ms: 5, chars_per_second: 20000, chunk_chars: 40 }\n";
const SYNTHESIS: &str = "      text: |\n        The handbook works for a first page but fails the night it is needed most.\n\n        ## What to change\n\n        Put the escalation table first.\n";

fn review(role: &str) -> String {
    format!(
        "    - role: judge.{role}\n      text: |\n        ## Strongest aspect\n\n        {role} likes the table.\n\n        ## Biggest concern\n\n        {role} worries about paging.\n\n        ## One improvement\n\n        {role} would add a diagram.\n"
    )
}

/// QM-09, INF-12, INF-13, INF-17: a reviewer that times out twice is
/// skipped, logged with its call id, and the synthesis goes on with the
/// others; its judge file is never written.
#[test]
fn qm_09_a_reviewer_timing_out_twice_is_skipped_and_the_panel_goes_on() {
    let sandbox = Sandbox::new();
    let spec = format!(
        "protocol: quick\nmode: panel\ntopic: Review the on-call handbook\nagents:\n  default: script\n  judge.stylist: {{ provider: script, timeout_secs: 1 }}\nscript:\n  {PACE}  replies:\n{}{}    - role: judge.stylist\n      fault: timeout\n    - role: synthesizer\n{SYNTHESIS}",
        review("aesthete"),
        review("analyst"),
    );
    let path = sandbox.write("panel.yaml", &spec);
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
        "**TIMEOUT** `judge.stylist/reviews/r1/a1`",
        "**RETRY** `judge.stylist/reviews/r1/a1`",
        "**call** `judge.stylist/reviews/r1/a2`",
        "**SKIP** `judge.stylist/reviews/r1/a2`",
        "2 of 3 reviews in",
    ] {
        assert!(transcript.contains(needle), "{needle}:\n{transcript}");
    }
    let panel = read(&dir, "panel-review.md");
    assert!(panel.starts_with(
        "# Panel review — Review the on-call handbook\n\nThe handbook works for a first page"
    ));
    assert!(panel.contains("Stylist (clarity, persuasiveness, rhetorical skill, accessibility): no review (skipped: timed out twice"));
    let journal = read(&dir, "journal.jsonl");
    let synthesis = journal
        .lines()
        .find(|line| {
            line.contains(r#""call_id":"synthesizer/synthesis/r1/a1""#)
                && line.contains("call_started")
        })
        .expect("the synthesis started");
    assert!(synthesis.contains("aesthete likes the table"));
    assert!(!synthesis.contains("stylist likes"));
}

/// QM-21: `--no-revision` leaves the proposer's answer out; the document
/// says so, and the revision stage never runs.
#[test]
fn qm_21_an_architecture_challenge_without_its_revision() {
    let sandbox = Sandbox::new();
    let (ran, dir) = demo(&sandbox, "adversary", &["--no-revision"]);
    ran.assert_code(0);
    let journal = read(&dir, "journal.jsonl");
    assert!(!journal.contains("proposer/revision/"));
    assert!(journal.contains("synthesizer/synthesis/r1/a1"));
    let document = read(&dir, "architecture-challenge.md");
    assert!(
        document.contains("the proposer's answer to it is missing"),
        "{document}"
    );
}

/// Each command starts its mode from the command line, with a script of
/// its own; `--constraint` reaches the adversary's proposer.
#[test]
fn each_command_runs_its_mode() {
    let sandbox = Sandbox::new();
    let script = sandbox.write(
        "script.yaml",
        &format!(
            "{PACE}replies:\n    - role: critic\n      text: \"Points.\\n\\nBottom line: it holds with a rollback plan.\"\n    - role: proposer\n      text: \"A queue and workers.\"\n    - role: synthesizer\n{SYNTHESIS}"
        ),
    );
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "challenge",
            "We should move CI to GitHub Actions",
            "--script",
            script.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    assert!(
        ran.stdout
            .starts_with("**Bottom line:** it holds with a rollback plan."),
        "{}",
        ran.stdout
    );
    let adversary_out = sandbox.path().join("adversary-out");
    let ran = sandbox.quorum(
        &[
            "adversary",
            "How should we fan out notifications?",
            "--constraint",
            "Runs in one region",
            "--constraint",
            "No new datastore",
            "--script",
            script.to_str().unwrap(),
            "--headless",
            "--out",
            adversary_out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let dir = support::run::only_run(&adversary_out);
    let journal = read(&dir, "journal.jsonl");
    assert!(journal.contains("- Runs in one region\\n- No new datastore"));
    // Flags of another protocol are refused, naming the flag.
    let ran = sandbox.quorum(
        &[
            "run",
            sandbox
                .write("quick.yaml", "protocol: quick\nmode: panel\ntopic: x\n")
                .to_str()
                .unwrap(),
            "--high-stakes",
            "--headless",
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr
            .contains("--high-stakes: this debate runs the quick mode"),
        "{}",
        ran.stderr
    );
}

/// `quorum verdict` on a quick debate says there is none (exit 2); `open`
/// lists it as completed; `replay` plays it back to its ending.
#[test]
fn verdict_open_and_replay_of_a_quick_debate() {
    let sandbox = Sandbox::new();
    let (ran, dir) = demo(&sandbox, "challenge", &[]);
    ran.assert_code(0);
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(2);
    assert!(
        verdict
            .stderr
            .contains("a quick mode ends with a deliverable, not a verdict"),
        "{}",
        verdict.stderr
    );
    let listed = sandbox.quorum(&["open", "--out", sandbox.out().to_str().unwrap()], &[]);
    listed.assert_code(0);
    assert!(
        listed.stdout.contains("completed: transcript.md"),
        "{}",
        listed.stdout
    );
    let replayed = sandbox.quorum(
        &[
            "replay",
            dir.to_str().unwrap(),
            "--headless",
            "--speed",
            "1000",
        ],
        &[],
    );
    replayed.assert_code(0);
    let last = replayed.stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("completed: transcript.md"),
        "{}",
        replayed.stdout
    );
}

/// A red team run headless with `--moderation reject` sets every finding
/// aside, and the report lists them as such.
#[test]
fn a_red_team_triaged_headless() {
    let sandbox = Sandbox::new();
    let (ran, dir) = demo(&sandbox, "redteam", &["--moderation", "reject"]);
    ran.assert_code(0);
    let report = read(&dir, "red-team-report.md");
    assert!(report.contains("## Findings set aside"), "{report}");
    let yaml = read(&dir, "debate.yaml");
    assert!(yaml.contains("decision: reject"));
    assert!(!yaml.contains("decision: accept"));
}

/// Shell completions and the manual page come from the same definition as
/// the parser, every protocol's commands included.
#[test]
fn completions_and_the_manual_page_name_every_command() {
    let sandbox = Sandbox::new();
    for shell in ["bash", "zsh", "fish"] {
        let ran = sandbox.quorum(&["completions", shell], &[]);
        ran.assert_code(0);
        for command in [
            "review",
            "challenge",
            "panel",
            "premortem",
            "redteam",
            "adversary",
        ] {
            assert!(ran.stdout.contains(command), "{shell}: {command}");
        }
    }
    let man = sandbox.quorum(&["man"], &[]);
    man.assert_code(0);
    assert!(
        man.stdout.starts_with(".ie") || man.stdout.contains(".TH"),
        "{}",
        &man.stdout[..200.min(man.stdout.len())]
    );
    assert!(man.stdout.contains("quorum\\-panel") || man.stdout.contains("quorum-panel"));
    assert!(man.stdout.contains("--no-revision") || man.stdout.contains("\\-\\-no\\-revision"));
}

/// Issue 29, end to end: the panel review's demo shows its fair judging:
/// the synthesizer's reading noted, each reviewer's reading and the panel's
/// agreement in panel-review.md and debate.yaml, and `--no-blind` turns the
/// masking off while the order stays the synthesizer's own.
#[test]
fn the_panel_demo_judges_fairly_and_gives_its_agreement() {
    let sandbox = Sandbox::new();
    let (ran, dir) = demo(&sandbox, "panel", &[]);
    ran.assert_code(0);
    let panel = read(&dir, "panel-review.md");
    assert!(
        panel.contains("The synthesizer read the reviews without knowing which model wrote which"),
        "{panel}"
    );
    assert!(
        panel.contains("- Analyst: elegance 6 · clarity 6 · rigour 3"),
        "{panel}"
    );
    assert!(
        panel.contains("agreement 0.") || panel.contains("agreement:"),
        "{panel}"
    );
    let yaml = read(&dir, "debate.yaml");
    assert!(yaml.contains("  agreement:\n    alpha:"), "{yaml}");
    let transcript = read(&dir, "transcript.md");
    assert!(
        transcript.contains("fair judging: the synthesizer reads the reviews without their readings, self-identification masked, in its own order"),
        "{transcript}"
    );

    let sandbox = Sandbox::new();
    let (ran, dir) = demo(&sandbox, "panel", &["--no-blind"]);
    ran.assert_code(0);
    assert!(
        read(&dir, "transcript.md")
            .contains("without their readings, unmasked (not blind), in its own order")
    );
    // Recusal has no author to apply to in a panel review: refused.
    let sandbox = Sandbox::new();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--protocol",
            "panel",
            "--headless",
            "--recusal",
            "recuse",
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("--recusal: a quick panel review"),
        "{}",
        ran.stderr
    );
}
