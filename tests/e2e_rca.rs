//! End-to-end runs of the root-cause critic on the real binary (issue 14,
//! "Tests that must exist"): the built-in demo, `quorum rca` with a script
//! that converges before round 5, two survivors, a debugger that times
//! out, a moderator overriding a ruling on stdin, a team's hypotheses file
//! (and a bad one), `quorum verdict` recomputing from `rca.yaml`, and a
//! resume after a kill -9 in the middle of a round.
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use quorum::agent::script::Script;
use support::rca::{answers, critic, findings};
use support::run::{QUORUM, Ran, Sandbox, only_run, quorum_in};
use support::{ScriptBuilder, scripted_spec, spec_yaml};
use yaml_serde::Value;

const PROBLEM: &str = "Checkout p99 rose from 180 ms to 2.4 s at 14:03 UTC";

/// A spec of a root-cause analysis with `debuggers`, every role scripted.
fn spec(script: Script, debuggers: &[&str], extra: &str) -> String {
    let mut spec = scripted_spec(PROBLEM, script);
    spec.protocol = "rca".into();
    spec.options.insert(
        Value::String("debuggers".into()),
        Value::Sequence(
            debuggers
                .iter()
                .map(|d| Value::String(d.to_string()))
                .collect(),
        ),
    );
    format!("{}{extra}", spec_yaml(&spec))
}

/// Runs `quorum run SPEC --headless` in `sandbox`; returns what ran and the
/// run folder.
fn run(sandbox: &Sandbox, spec_text: &str, extra: &[&str], stdin: Option<&str>) -> (Ran, PathBuf) {
    let path = sandbox.write("spec.yaml", spec_text);
    let out = sandbox.out();
    let mut args = vec![
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let ran = quorum_in(sandbox.path(), &args, &[], stdin);
    let dir = only_run(&out);
    (ran, dir)
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|_| panic!("{name} is written"))
}

fn yaml(dir: &Path) -> Value {
    yaml_serde::from_str(&read(dir, "rca.yaml")).unwrap()
}

fn status(record: &Value, id: &str) -> String {
    record["hypotheses"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|h| h["id"].as_str() == Some(id))
        .and_then(|h| h["status"].as_str())
        .unwrap_or_else(|| panic!("no status for {id}"))
        .to_string()
}

/// Alpha presents H1, beta H2, the critic challenges both critically; then
/// `rest` goes on from the answers of round 1.
fn opening() -> ScriptBuilder {
    ScriptBuilder::default()
        .reply(
            "debugger.alpha",
            "findings",
            Some(1),
            None,
            &findings(&["The v2.31.0 deploy added a blocking call."]),
        )
        .reply(
            "debugger.beta",
            "findings",
            Some(1),
            None,
            &findings(&["The pool was exhausted."]),
        )
        .reply(
            "critic",
            "challenge",
            Some(1),
            None,
            &critic(&[], &[("H1", true), ("H2", true)], None),
        )
        .reply(
            "debugger.alpha",
            "answers",
            Some(1),
            None,
            &answers(&[("X1.1", Some("First slow trace 14:02:31."))]),
        )
}

/// EV-07 in the demo: headless, it leaves H4 WEAKENED — H4 survived its
/// one challenge, but the log line it cites is not in the log — and with
/// nobody to rule H4 out, H1 is not proven (A28 as revised): exit 8, the
/// reason in words, and `quorum verdict` derives the same from rca.yaml.
#[test]
fn ev_07_the_demo_weakens_a_hypothesis_on_a_quote_not_in_the_log() {
    let sandbox = Sandbox::new();
    let ran = sandbox.demo_into("out", &["--protocol", "rca"]);
    ran.assert_code(8);
    let dir = only_run(&sandbox.path().join("out"));
    let record = yaml(&dir);
    assert_eq!(status(&record, "H1"), "SURVIVED");
    assert_eq!(status(&record, "H4"), "WEAKENED");
    let rule = record["hypotheses"][3]["rule"].as_str().unwrap();
    assert!(
        rule.contains("\"fraud-svc p99=1.9s baseline=0.21s\" — checkout-api.log, not found"),
        "{rule}"
    );
    let summary = read(&dir, "summary.md");
    assert!(
        summary.starts_with("# Root-cause analysis")
            && summary.contains("**No root cause is proven.** H1 alone survived cross-examination, but H4 was left WEAKENED (neither shown nor eliminated) and not ruled out (its one challenge resolved, but it cites \"fraud-svc p99=1.9s"),
        "{summary}"
    );
    assert!(record["root_cause"].is_null(), "{record:?}");
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(8);
    assert!(
        verdict.stdout.starts_with("UNPROVEN\n"),
        "{}",
        verdict.stdout
    );
    assert!(
        verdict
            .stdout
            .contains("H4 was left WEAKENED and not ruled out"),
        "{}",
        verdict.stdout
    );
}

/// The demo moderated on stdin by a person who rules H4 out at the end
/// proves H1; `quorum verdict` recomputes the same from rca.yaml, and
/// another verdict when a challenge's recorded outcome is edited (A28).
#[test]
fn the_demo_proves_its_root_cause_and_verdict_recomputes_it() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let ran = support::rca::demo_asked(sandbox.path(), &out, &support::rca::demo_ruling_out_h4());
    ran.assert_code(0);
    let dir = only_run(&out);
    let summary = read(&dir, "summary.md");
    let lead = ran.stdout.split("\n\n").next().unwrap();
    assert!(
        lead.starts_with("**Root cause: The checkout-api v2.31.0 deploy"),
        "{}",
        ran.stdout
    );
    assert!(summary.contains(lead));
    let record = yaml(&dir);
    assert_eq!(status(&record, "H1"), "SURVIVED");
    // Five rounds on, the critic rules beta's own evidence contradicts H2;
    // H3 falls in round 2, and H4, left WEAKENED by its quote, is ruled
    // out by the person: H1 is proven (A28 as revised).
    assert_eq!(status(&record, "H2"), "ELIMINATED");
    assert_eq!(status(&record, "H3"), "ELIMINATED");
    assert_eq!(status(&record, "H4"), "WEAKENED");
    assert!(
        lead.contains(
            "2 others were eliminated. The moderator ruled out H4 (the fraud service's p99"
        ),
        "{lead}"
    );
    assert_eq!(
        record["hypotheses"][1]["hedges"][0].as_str(),
        Some("probably"),
        "A29"
    );
    assert_eq!(record["root_cause"]["hypothesis"].as_str(), Some("H1"));
    assert!(dir.join("rounds/round-5/critic-ruling.md").exists());
    assert!(
        read(&dir, "transcript.md")
            .contains("hedge words flagged in beta's answer to X2.1: likely")
    );

    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(0);
    assert!(
        verdict
            .stdout
            .starts_with("PROVEN\nH1 is the only hypothesis that SURVIVED"),
        "{}",
        verdict.stdout
    );
    assert!(
        verdict.stdout.contains("H3: X3.1 ruled contradicted"),
        "{}",
        verdict.stdout
    );

    // Unsettle H1's first challenge on disk: no root cause is proven.
    let text = read(&dir, "rca.yaml");
    let at = text.find("- id: X1.1").expect("X1.1 in rca.yaml");
    let state = at + text[at..].find("state: resolved").unwrap();
    let edited = format!(
        "{}state: open{}",
        &text[..state],
        &text[state + "state: resolved".len()..]
    );
    std::fs::write(dir.join("rca.yaml"), edited).unwrap();
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(8);
    assert!(
        verdict
            .stdout
            .starts_with("UNPROVEN\nno hypothesis SURVIVED"),
        "{}",
        verdict.stdout
    );
}

/// RC-06: `quorum rca` with named debuggers stops once every hypothesis is
/// settled, here after the ruling of round 2.
#[test]
fn rc_06_quorum_rca_converges_before_round_five() {
    let sandbox = Sandbox::new();
    let script = opening()
        .reply(
            "debugger.beta",
            "answers",
            Some(1),
            None,
            &answers(&[("X2.1", Some("Pool wait rose at 14:04."))]),
        )
        .reply(
            "critic",
            "challenge",
            Some(2),
            None,
            &critic(
                &[("X1.1", "resolved"), ("X2.1", "contradicted")],
                &[],
                Some("Roll back v2.31.0."),
            ),
        )
        .build();
    let script_path = sandbox.write("script.yaml", &yaml_serde::to_string(&script).unwrap());
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "rca",
            PROBLEM,
            "--debugger",
            "alpha",
            "--debugger",
            "beta",
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
    ran.assert_code(0);
    let dir = only_run(&out);
    assert!(!dir.join("rounds/round-3").exists(), "no third round");
    let record = yaml(&dir);
    assert_eq!(record["meta"]["rounds_run"].as_u64(), Some(2));
    assert_eq!(
        record["meta"]["stopped"].as_str(),
        Some("every hypothesis SURVIVED or was ELIMINATED by round 2 of 5")
    );
    let participants: Vec<&str> = record["participants"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|p| p["slot"].as_str())
        .collect();
    assert_eq!(participants, ["debugger.alpha", "debugger.beta", "critic"]);
}

/// RC-15, A28: two hypotheses both SURVIVED: no root cause, exit 8.
#[test]
fn rc_15_two_survivors_end_unproven() {
    let sandbox = Sandbox::new();
    let script = opening()
        .reply(
            "debugger.beta",
            "answers",
            Some(1),
            None,
            &answers(&[("X2.1", Some("Shown too."))]),
        )
        .reply(
            "critic",
            "challenge",
            Some(2),
            None,
            &critic(&[("X1.1", "resolved"), ("X2.1", "resolved")], &[], None),
        )
        .build();
    let (ran, dir) = run(&sandbox, &spec(script, &["alpha", "beta"], ""), &[], None);
    ran.assert_code(8);
    assert!(
        ran.stdout
            .starts_with("**No root cause is proven.** H1 and H2 all survived cross-examination"),
        "{}",
        ran.stdout
    );
    let record = yaml(&dir);
    assert!(record["root_cause"].is_null());
    assert_eq!(record["conclusion"]["verdict"].as_str(), Some("UNPROVEN"));
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(8);
}

/// A debugger that times out every round: its hypothesis stays active and
/// is reported, not eliminated. A28 (revised, issue 60): a rival never
/// examined keeps the other from being proven; headless, the closing
/// moderation keeps it standing, the analysis ends UNPROVEN saying why,
/// and `quorum verdict` agrees until the record says the rival was ruled
/// out.
#[test]
fn a_debugger_that_times_out_is_reported_not_eliminated() {
    let sandbox = Sandbox::new();
    let mut builder = opening()
        .fault("debugger.beta", "answers", None, None, "timeout")
        .reply(
            "critic",
            "challenge",
            Some(2),
            None,
            &critic(&[("X1.1", "resolved")], &[], None),
        );
    for round in 3..=5 {
        builder = builder.reply(
            "critic",
            "challenge",
            Some(round),
            None,
            &critic(&[], &[], None),
        );
    }
    let (ran, dir) = run(
        &sandbox,
        &spec(builder.build(), &["alpha", "beta"], ""),
        &["--timeout", "0.3"],
        None,
    );
    ran.assert_code(8);
    assert!(
        ran.stdout.starts_with(
            "**No root cause is proven.** H1 alone survived cross-examination, but H2 was left WEAKENED (neither shown nor eliminated) and not ruled out (critical challenge X2.1 unanswered: its owner gave no answer in round 5)"
        ),
        "{}",
        ran.stdout
    );
    let record = yaml(&dir);
    assert_eq!(status(&record, "H1"), "SURVIVED");
    assert_eq!(status(&record, "H2"), "WEAKENED");
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(8);
    // Ruled out on the record: the recomputed verdict proves H1.
    let text = read(&dir, "rca.yaml");
    std::fs::write(
        dir.join("rca.yaml"),
        format!("{text}ruled_out:\n  H2: The pool graphs were flat all afternoon.\n"),
    )
    .unwrap();
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(0);
    assert!(
        verdict.stdout.contains(
            "H2 WEAKENED, ruled out by the moderator: The pool graphs were flat all afternoon."
        ),
        "{}",
        verdict.stdout
    );
    let rule = record["hypotheses"][1]["rule"].as_str().unwrap();
    assert_eq!(
        rule,
        "H2: critical challenge X2.1 unanswered: its owner gave no answer in round 5 → WEAKENED"
    );
    let transcript = read(&dir, "transcript.md");
    assert!(
        transcript.contains("**TIMEOUT** `debugger.beta/answers/r1/a1`"),
        "{transcript}"
    );
    assert!(transcript.contains("stay open and its hypotheses active"));
}

/// The moderator overturns the critic's ruling on stdin, with a note; the
/// challenge goes back to its owner, and the override is on record.
#[test]
fn a_moderator_overrides_a_ruling() {
    let sandbox = Sandbox::new();
    let script = ScriptBuilder::default()
        .reply(
            "debugger.alpha",
            "findings",
            Some(1),
            None,
            &findings(&["The deploy added a blocking call."]),
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
            &answers(&[("X1.1", Some("A staging trace."))]),
        )
        .reply(
            "critic",
            "challenge",
            Some(2),
            None,
            &critic(&[("X1.1", "resolved")], &[], None),
        )
        .reply(
            "debugger.alpha",
            "answers",
            Some(2),
            None,
            &answers(&[("X1.1", Some("The production trace 1c07e2."))]),
        )
        .reply(
            "critic",
            "challenge",
            Some(3),
            None,
            &critic(&[("X1.1", "resolved")], &[], Some("Roll back v2.31.0.")),
        )
        .build();
    let stdin = "accept\nreject: that trace is from staging\naccept\n";
    let (ran, dir) = run(
        &sandbox,
        &spec(script, &["alpha"], ""),
        &["--moderation", "ask"],
        Some(stdin),
    );
    ran.assert_code(0);
    let record = yaml(&dir);
    let rulings = record["challenges"][0]["rulings"].as_sequence().unwrap();
    assert_eq!(rulings.len(), 2);
    assert_eq!(
        rulings[0]["moderation"]["decision"].as_str(),
        Some("reject")
    );
    assert_eq!(
        rulings[0]["moderation"]["note"].as_str(),
        Some("that trace is from staging")
    );
    assert_eq!(
        rulings[1]["moderation"]["decision"].as_str(),
        Some("accept")
    );
    assert!(
        dir.join("rounds/round-2/debugger-alpha-answers.md")
            .exists()
    );
    assert!(
        read(&dir, "transcript.md")
            .contains("X1.1-r2 ruling overturned: that trace is from staging")
    );
    assert!(read(&dir, "summary.md").contains("1 dropped or overturned"));
}

/// A team's hypotheses file: its owners are the debuggers, and an owner
/// with hypotheses already is not asked for findings.
#[test]
fn a_hypotheses_file_seeds_the_board() {
    let sandbox = Sandbox::new();
    sandbox.write(
        "hypotheses.yaml",
        "hypotheses:\n  - owner: alpha\n    claim: The v2.31.0 deploy added a blocking call.\n    evidence: [deploy log 14:02:10]\n",
    );
    let script = ScriptBuilder::default()
        .reply(
            "debugger.beta",
            "findings",
            Some(1),
            None,
            &findings(&["The pool was exhausted."]),
        )
        .reply(
            "critic",
            "challenge",
            Some(1),
            None,
            &critic(&[], &[("H1", true), ("H2", true)], None),
        )
        .reply(
            "debugger.alpha",
            "answers",
            Some(1),
            None,
            &answers(&[("X1.1", Some("First slow trace 14:02:31."))]),
        )
        .reply(
            "debugger.beta",
            "answers",
            Some(1),
            None,
            &answers(&[("X2.1", None)]),
        )
        .reply(
            "critic",
            "challenge",
            Some(2),
            None,
            &critic(&[("X1.1", "resolved")], &[], None),
        )
        .build();
    let (ran, dir) = run(
        &sandbox,
        &spec(script, &["alpha", "beta"], "hypotheses: hypotheses.yaml\n"),
        &[],
        None,
    );
    ran.assert_code(0);
    assert!(
        !dir.join("rounds/round-1/debugger-alpha-findings.md")
            .exists()
    );
    let record = yaml(&dir);
    assert_eq!(
        record["hypotheses"][0]["source"].as_str(),
        Some("hypotheses file")
    );
    assert_eq!(
        status(&record, "H2"),
        "ELIMINATED",
        "beta conceded a critical challenge"
    );

    // A bad file is named with its line and field; nothing is written.
    sandbox.write("bad.yaml", "hypotheses:\n  - owner: alpha\n    claim: The deploy.\n  - owner: gamma\n    claim: The pool.\n");
    let bad_out = sandbox.path().join("bad-out");
    let ran = sandbox.quorum(
        &[
            "rca",
            PROBLEM,
            "--debugger",
            "alpha",
            "--hypotheses",
            "bad.yaml",
            "--headless",
            "--out",
            bad_out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains(
            "bad.yaml:4: hypotheses[1].owner: `gamma` is not one of the debuggers (alpha)"
        ),
        "{}",
        ran.stderr
    );
    assert!(!bad_out.exists());
    sandbox.write(
        "empty.yaml",
        "hypotheses:\n  - owner: alpha\n    evidence: [x]\n",
    );
    let ran = sandbox.quorum(
        &["rca", PROBLEM, "--hypotheses", "empty.yaml", "--headless"],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr
            .contains("empty.yaml:2: hypotheses[0].claim: required field is missing\n"),
        "{}",
        ran.stderr
    );
    let ran = sandbox.quorum(&["rca", PROBLEM, "--debugger", "../x", "--headless"], &[]);
    ran.assert_code(2);
    assert!(
        ran.stderr
            .contains("--debugger: `../x` cannot name a debugger"),
        "{}",
        ran.stderr
    );
}

/// The demo killed with kill -9 in the middle of round 2 and resumed ends
/// as the uninterrupted run did: same verdict, same summary, same record.
#[test]
fn resume_after_a_kill_mid_round() {
    let sandbox = Sandbox::new();
    let exported = sandbox.path().join("demo.yaml");
    sandbox
        .quorum(
            &[
                "demo",
                "--protocol",
                "rca",
                "--export-script",
                exported.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let args = |out: &Path| -> Vec<String> {
        [
            "run",
            exported.to_str().unwrap(),
            "--headless",
            "--speed",
            "20",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(str::to_string)
        .to_vec()
    };
    let reference_out = sandbox.path().join("reference");
    let ran = quorum_in(
        sandbox.path(),
        &args(&reference_out)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        &[],
        None,
    );
    // Headless, nobody rules the rival H4 out: unproven (EV-07, A28).
    ran.assert_code(8);
    let reference = only_run(&reference_out);
    // The record just after beta's round-2 answers were started.
    let journal = read(&reference, "journal.jsonl");
    let seq = journal
        .lines()
        .position(|line| line.contains("debugger.beta/answers/r2/a1"))
        .expect("beta answers in round 2") as u64
        + 1;

    let out = sandbox.path().join("killed");
    let mut command = Command::new(QUORUM);
    support::isolate(&mut command, sandbox.path())
        .args(args(&out))
        .env("QUORUM_TEST_STOP_AFTER_RECORD", seq.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    loop {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, after)| after.trim_start().chars().next());
        if state == Some('T') {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "quorum ended before the hook stopped it"
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "quorum never stopped"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let dir = only_run(&out);
    assert!(!dir.join("summary.md").exists(), "killed before the end");

    let resumed = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    resumed.assert_code(8);
    assert_eq!(read(&dir, "summary.md"), read(&reference, "summary.md"));
    let without_clock = |text: String| -> String {
        text.lines()
            .filter(|line| {
                !line.contains("timestamp:") && !line.contains("_ms:") && !line.contains("tokens")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let strip_usage = |text: String| -> String {
        match text.find("\nusage:") {
            Some(at) => text[..at].to_string(),
            None => text,
        }
    };
    assert_eq!(
        without_clock(strip_usage(read(&dir, "rca.yaml"))),
        without_clock(strip_usage(read(&reference, "rca.yaml")))
    );
    for round in 1..=5 {
        for file in ["critic-challenge.md", "debugger-beta-answers.md"] {
            let path = format!("rounds/round-{round}/{file}");
            assert_eq!(read(&dir, &path), read(&reference, &path), "{path}");
        }
    }
}
