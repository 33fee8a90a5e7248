//! The stability receipt (issue 55, JM-10..JM-19) through the engine and
//! the real binary: the decision review's demo with `--stability 3`, whose
//! scripted analyst reads variant 2 in reverse and marks a block down.
//! Its answers are persisted before they are read, the fold equals the
//! live state after every record, a cut at any record resumes to the same
//! files; the budget holds the whole receipt as one step, and a raised
//! resume runs it; `quorum verdict DIR` derives the receipt again from the
//! variant files, so editing one changes it. The sans-IO rules are in
//! `protocol_decision_review.rs` (`jm_…`).
//!
//! A comparison's receipt (JM-50..JM-59) through the binary: the
//! comparative demo's careful scripted judges recommend A in every variant;
//! a copy of it whose analyst marks A down in variant 2 shows the
//! requirement withdraw the recommendation; `quorum verdict DIR` ranks
//! every variant again from its files; the budget holds the receipt as one
//! step; a cut anywhere resumes to the same files.

use crate::support;

use quorum::cli::Source;
use quorum::protocol::kind::FlagValue;
use serde_json::Value as Json;
use support::conformance;
use support::run::Sandbox;

/// `--stability 3`, and `--require-stability` when `required`.
fn receipt_flags(required: bool) -> Vec<FlagValue> {
    let mut flags = vec![FlagValue {
        flag: "--stability".into(),
        key: "stability".into(),
        value: 3.into(),
    }];
    if required {
        flags.push(FlagValue {
            flag: "--require-stability".into(),
            key: "require_stability".into(),
            value: true.into(),
        });
    }
    flags
}

fn result_of(ran: &support::run::Ran) -> Json {
    serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", ran.stdout, ran.stderr))
}

/// JM-16, JM-18: the receipt's answers are on disk before they are read;
/// the fold of any prefix of its journal is the live state; cut at any
/// record (mid-receipt included) and resumed, it ends with the same files.
#[tokio::test(start_paused = true)]
async fn jm_16_jm_18_the_receipt_persists_folds_and_resumes_from_any_cut() {
    let whole = conformance::record_whole("stability", Source::Demo, receipt_flags(true)).await;
    conformance::check_persisted("stability", &whole);
    let variant_files: Vec<&String> = whole
        .spy
        .raw_paths
        .values()
        .filter(|path| path.starts_with("judges/stability/"))
        .collect();
    assert_eq!(variant_files.len(), 9, "{:?}", whole.spy.raw_paths);
    assert!(
        whole
            .dir
            .join("judges/stability/round-2/variant-2/judge-analyst.md")
            .exists()
    );
    conformance::check_fold("stability", &whole);
    let resumed = conformance::check_resume("stability", &whole).await;
    assert!(resumed >= 5, "only {resumed} cuts resumed");
}

/// JM-10, JM-13, JM-15 on the binary: without the flag no variant is
/// asked; with it the receipt says stable in 2 of 3, naming the flip; with
/// the requirement the ADOPT is ESCALATE, and the --json result, summary.md
/// and debate.yaml all say so.
#[test]
fn jm_10_jm_13_jm_15_the_demo_shows_the_receipt_everywhere_the_verdict_is() {
    let sandbox = Sandbox::new();
    let plain = sandbox.demo_into("plain", &[]);
    plain.assert_code(0);
    assert!(result_of(&plain).get("stability").is_none());
    assert!(!plain.stderr.contains("stability-1"), "{}", plain.stderr);

    let asked = sandbox.demo_into("asked", &["--stability", "3"]);
    asked.assert_code(0);
    let result = result_of(&asked);
    assert_eq!(result["verdict"], "ADOPT");
    assert_eq!(
        result["stability"]["summary"],
        "verdict stable in 2 of 3 (variant 2 gave REVISE)"
    );
    assert!(
        result["rule"]
            .as_str()
            .unwrap()
            .contains("verdict stable in 2 of 3"),
        "{result}"
    );
    // The forecast of the whole receipt is said before it runs.
    assert!(
        asked
            .stderr
            .contains("the stability receipt judges it again under 3 variants: 9 calls ≈"),
        "{}",
        asked.stderr
    );

    let required = sandbox.demo_into("required", &["--stability", "3", "--require-stability"]);
    let result = result_of(&required);
    assert_eq!(result["verdict"], "ESCALATE", "{result}");
    let rule = result["rule"].as_str().unwrap();
    assert!(
        rule.contains(
            "the ADOPT held in only 2 of 3 re-judged variants, and require_stability asks for all 3 (variant 2 gave REVISE) → ESCALATE"
        ),
        "{rule}"
    );
    let dir = support::run::only_run(&sandbox.path().join("required"));
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        summary.contains("Stability was required for an ADOPT, so the verdict is ESCALATE."),
        "{summary}"
    );
    let debate: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(dir.join("debate.yaml")).unwrap()).unwrap();
    let stability = &debate["stages"]["evaluation"]["stability"];
    assert_eq!(stability["verdict"], "ADOPT");
    assert_eq!(stability["variants"][1]["verdict"], "REVISE");
    assert_eq!(debate["stages"]["evaluation"]["verdict"], "ESCALATE");
}

/// JM-17: the budget holds the whole receipt as one step, before any of
/// it is sent, and a resume with a larger budget runs it to the receipt
/// an unbudgeted run gives.
#[test]
fn jm_17_the_budget_holds_the_receipt_and_a_raised_resume_runs_it() {
    let sandbox = Sandbox::new();
    // The demo without the receipt takes about 44,000 tokens, the receipt
    // about 37,000 more.
    let held = sandbox.demo_into("held", &["--stability", "3", "--budget-tokens", "60000"]);
    held.assert_code(quorum::protocol::EXIT_BUDGET);
    let dir = support::run::only_run(&sandbox.path().join("held"));
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let events: Vec<Json> = journal
        .lines()
        .map(|line| serde_json::from_str::<Json>(line).unwrap()["event"].clone())
        .collect();
    let reached = events
        .iter()
        .find(|event| event["event"] == "budget" && event["budget"]["kind"] == "reached")
        .expect("the budget held a step");
    assert_eq!(reached["budget"]["step"]["calls"], 9, "{reached}");
    assert!(
        !events.iter().any(|event| event["event"] == "call_started"
            && event["call_id"]
                .as_str()
                .is_some_and(|id| id.contains("/stability-"))),
        "no variant call was sent before the budget stop"
    );

    let resumed = sandbox.quorum(
        &[
            "resume",
            dir.to_str().unwrap(),
            "--headless",
            "--json",
            "--budget-tokens",
            "1M",
        ],
        &[],
    );
    resumed.assert_code(0);
    let result = result_of(&resumed);
    assert_eq!(
        result["stability"]["summary"], "verdict stable in 2 of 3 (variant 2 gave REVISE)",
        "{result}"
    );
}

/// JM-19: `quorum verdict DIR` derives every variant from its file again,
/// with the code of the real verdict: the recorded receipt recomputes as
/// it ran, and an edited variant file changes it.
#[test]
fn jm_19_quorum_verdict_recomputes_the_receipt_from_the_variant_files() {
    let sandbox = Sandbox::new();
    let ran = sandbox.demo_into("run", &["--stability", "3", "--require-stability"]);
    assert_eq!(result_of(&ran)["verdict"], "ESCALATE");
    let dir = support::run::only_run(&sandbox.path().join("run"));
    let dir_arg = dir.to_str().unwrap();

    let again = sandbox.quorum(&["verdict", dir_arg], &[]);
    assert!(again.stdout.starts_with("ESCALATE\n"), "{}", again.stdout);
    assert!(
        again
            .stderr
            .contains("verdict stable in 2 of 3 (variant 2 gave REVISE)"),
        "{}",
        again.stderr
    );

    // The flipped variant's analyst, edited to score as in the real round:
    // the receipt holds, and the ADOPT stands.
    let file = dir.join("judges/stability/round-2/variant-2/judge-analyst.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = text.replacen("score: 2", "score: 4", 1);
    assert_ne!(edited, text);
    std::fs::write(&file, edited).unwrap();
    let edited = sandbox.quorum(&["verdict", dir_arg], &[]);
    assert!(edited.stdout.starts_with("ADOPT\n"), "{}", edited.stdout);
    assert!(
        edited.stdout.contains("verdict stable in 3 of 3"),
        "{}",
        edited.stdout
    );
}

// ---- the council's receipt (JM-40..JM-49) ---------------------------------------

/// `--stability 2` for the council's demo.
fn council_flags() -> Vec<FlagValue> {
    vec![FlagValue {
        flag: "--stability".into(),
        key: "stability".into(),
        value: 2.into(),
    }]
}

/// JM-40, JM-43, JM-47 (persisted before parse), JM-48: the council demo's
/// receipt: every variant answer is on disk under
/// `phase-5/stability/variant-K/` before it is read; the fold of any
/// prefix of the journal is the live state; cut at any record (mid-receipt
/// included) and resumed, it ends with the same files.
#[tokio::test(start_paused = true)]
async fn jm_47_jm_48_the_councils_receipt_persists_folds_and_resumes_from_any_cut() {
    let whole = conformance::record_whole(
        "council-stability",
        Source::DemoOf("council".into()),
        council_flags(),
    )
    .await;
    conformance::check_persisted("council-stability", &whole);
    let variant_files: Vec<&String> = whole
        .spy
        .raw_paths
        .values()
        .filter(|path| path.starts_with("phase-5/stability/"))
        .collect();
    assert_eq!(variant_files.len(), 12, "{:?}", whole.spy.raw_paths);
    assert!(
        whole
            .dir
            .join("phase-5/stability/variant-2/devil-advocate.md")
            .exists()
    );
    conformance::check_fold("council-stability", &whole);
    let resumed = conformance::check_resume("council-stability", &whole).await;
    assert!(resumed >= 5, "only {resumed} cuts resumed");
}

/// JM-40, JM-43 on the binary: without the flag the council asks no
/// variant; with `--stability 2` the careful scripted participants take
/// the same stances in both variants, and the --json result, council.json
/// and summary.md say "verdict stable in 2 of 2".
#[test]
fn jm_40_jm_43_the_council_demo_shows_the_receipt() {
    let sandbox = Sandbox::new();
    let plain = sandbox.demo_into("plain", &["--protocol", "council"]);
    let result = result_of(&plain);
    assert!(result.get("stability").is_none(), "{result}");
    assert!(!plain.stderr.contains("stability-1"), "{}", plain.stderr);

    let asked = sandbox.demo_into("asked", &["--protocol", "council", "--stability", "2"]);
    let result = result_of(&asked);
    assert_eq!(result["verdict"], "CONCERNS", "{result}");
    assert_eq!(result["stability"]["summary"], "verdict stable in 2 of 2");
    assert!(
        result["rule"]
            .as_str()
            .unwrap()
            .ends_with("; verdict stable in 2 of 2 → CONCERNS"),
        "{result}"
    );
    assert!(
        asked
            .stderr
            .contains("the stability receipt asks for them again under 2 variants: 12 calls ≈"),
        "{}",
        asked.stderr
    );
    let dir = support::run::only_run(&sandbox.path().join("asked"));
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        summary.contains(
            "Stability receipt: the final positions were asked for again under 2 variants"
        ),
        "{summary}"
    );
    let record: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("council.json")).unwrap()).unwrap();
    assert_eq!(record["stability"]["summary"], "verdict stable in 2 of 2");
    assert_eq!(record["stability"]["variants"][1]["verdict"], "CONCERNS");
}

/// The demo run with `args` (a receipt and a budget too small for it):
/// the budget holds the receipt's `calls` as one step before any variant
/// is sent (exit 9), and a resume with a larger budget runs it; the resume.
fn held_then_resumed(sandbox: &Sandbox, args: &[&str], calls: u64) -> support::run::Ran {
    let held = sandbox.demo_into("held", args);
    held.assert_code(quorum::protocol::EXIT_BUDGET);
    let dir = support::run::only_run(&sandbox.path().join("held"));
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let events: Vec<Json> = journal
        .lines()
        .map(|line| serde_json::from_str::<Json>(line).unwrap()["event"].clone())
        .collect();
    let reached = events
        .iter()
        .find(|event| event["event"] == "budget" && event["budget"]["kind"] == "reached")
        .expect("the budget held a step");
    assert_eq!(reached["budget"]["step"]["calls"], calls, "{reached}");
    assert!(
        !events.iter().any(|event| event["event"] == "call_started"
            && event["call_id"]
                .as_str()
                .is_some_and(|id| id.contains("/stability-"))),
        "no variant call was sent before the budget stop"
    );
    sandbox.quorum(
        &[
            "resume",
            dir.to_str().unwrap(),
            "--headless",
            "--json",
            "--budget-tokens",
            "1M",
        ],
        &[],
    )
}

/// JM-47: the budget holds the whole receipt as one step, before any of
/// it is sent, and a resume with a larger budget runs it to the receipt.
#[test]
fn jm_47_the_budget_holds_the_councils_receipt_and_a_raised_resume_runs_it() {
    let sandbox = Sandbox::new();
    // The council's demo takes about 38,000 tokens, the receipt of two
    // variants about 37,000 more.
    let resumed = held_then_resumed(
        &sandbox,
        &[
            "--protocol",
            "council",
            "--stability",
            "2",
            "--budget-tokens",
            "50000",
        ],
        12,
    );
    let result = result_of(&resumed);
    assert_eq!(
        result["stability"]["summary"], "verdict stable in 2 of 2",
        "{result}"
    );
}

/// JM-49: `quorum verdict DIR` derives every variant of the council's
/// receipt from its files again, with the code of the real verdict: the
/// recorded receipt recomputes as it ran, and an edited variant file
/// changes that variant's rule.
#[test]
fn jm_49_quorum_verdict_recomputes_the_councils_receipt_from_the_variant_files() {
    let sandbox = Sandbox::new();
    let ran = sandbox.demo_into("run", &["--protocol", "council", "--stability", "2"]);
    assert_eq!(result_of(&ran)["verdict"], "CONCERNS");
    let dir = support::run::only_run(&sandbox.path().join("run"));
    let dir_arg = dir.to_str().unwrap();
    let again = sandbox.quorum(&["verdict", dir_arg], &[]);
    assert!(again.stdout.starts_with("CONCERNS\n"), "{}", again.stdout);
    assert!(
        again.stdout.contains("verdict stable in 2 of 2 → CONCERNS"),
        "{}",
        again.stdout
    );

    // The two who disputed F003 in variant 2, edited to endorse it.
    for role in ["devil-advocate", "expert.data"] {
        let file = dir.join(format!("phase-5/stability/variant-2/{role}.md"));
        let text = std::fs::read_to_string(&file).unwrap();
        let edited = text.replacen(
            r#""F003", "stance": "dispute""#,
            r#""F003", "stance": "endorse""#,
            1,
        );
        assert_ne!(edited, text, "{role}");
        std::fs::write(&file, edited).unwrap();
    }
    let edited = sandbox.quorum(&["verdict", dir_arg, "--json"], &[]);
    let detail = result_of(&edited);
    let variant = &detail["stability"]["variants"][1];
    assert!(
        variant["rule"]
            .as_str()
            .unwrap()
            .starts_with("2 confirmed HIGH findings (F003, F008)"),
        "{detail}"
    );
    // The real final positions were not edited: the verdict is as it ran.
    assert_eq!(detail["verdict"], "CONCERNS");
}

// ---- a comparison's receipt (JM-50..JM-59) ----------------------------------------------

/// `--mode comparative --stability 3`, and `--require-stability` when
/// `required`.
fn comparison_flags(required: bool) -> Vec<FlagValue> {
    let mut flags = vec![FlagValue {
        flag: "--mode".into(),
        key: "mode".into(),
        value: "comparative".into(),
    }];
    flags.extend(receipt_flags(required));
    flags
}

/// The comparative demo, its analyst answering variant 2 with option A's
/// a1 scored two points lower on feasibility: C ranks first there.
fn comparison_flipping_in_variant_2() -> String {
    let demo = quorum::protocol::decision_review::kind::COMPARATIVE_DEMO;
    let start = demo
        .find("    - role: judge.analyst\n      stage: evaluation\n")
        .expect("the analyst's scores");
    let end = start + demo[start..].find("    - role: judge.stylist\n").unwrap();
    let scored =
        "          - block_id: a1\n            criterion: feasibility\n            score: 5\n";
    let reply = &demo[start..end];
    assert!(reply.contains(scored), "{reply}");
    let variant = reply
        .replace("stage: evaluation", "stage: stability-2")
        .replace(scored, &scored.replace("score: 5", "score: 3"));
    format!("{}{variant}{}", &demo[..end], &demo[end..])
}

/// JM-50, JM-54 on the binary: `quorum demo --mode comparative
/// --stability 3` runs the receipt after the ranking (its forecast said
/// first) and shows it wherever the recommendation is: the --json result,
/// the note, summary.md's "How this was ranked" and debate.yaml. Its
/// careful judges recommend A in every variant; with the requirement A
/// stays recommended.
#[test]
fn jm_50_jm_54_the_comparison_demo_shows_the_receipt() {
    let sandbox = Sandbox::new();
    let plain = sandbox.demo_into("plain", &["--mode", "comparative"]);
    plain.assert_code(0);
    assert!(result_of(&plain).get("stability").is_none());

    let asked = sandbox.demo_into(
        "asked",
        &[
            "--mode",
            "comparative",
            "--stability",
            "3",
            "--require-stability",
        ],
    );
    asked.assert_code(0);
    let result = result_of(&asked);
    assert_eq!(
        result["stability"]["summary"],
        "recommendation stable in 3 of 3"
    );
    assert_eq!(result["stability"]["counts"], "recommendation");
    assert_eq!(result["stability"]["verdict"], "A");
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .starts_with("**Recommendation: option A,"),
        "{result}"
    );
    assert!(
        asked.stderr.contains(
            "round 1: recommendation A; the stability receipt judges it again under 3 variants: 9 calls ≈"
        ),
        "{}",
        asked.stderr
    );
    let dir = support::run::only_run(&sandbox.path().join("asked"));
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        summary.contains(
            "Stability receipt: the deciding round was judged again under 3 variants (each judge reading in another order, the authors under other neutral labels): recommendation stable in 3 of 3. Stability was required, and it held."
        ),
        "{summary}"
    );
    assert!(summary.starts_with("# "), "{summary}");
    let debate: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(dir.join("debate.yaml")).unwrap()).unwrap();
    let stability = &debate["stages"]["evaluation"]["stability"];
    assert_eq!(stability["recommendation"], "A");
    assert_eq!(stability["variants"][2]["recommendation"], "A");
    let transcript = std::fs::read_to_string(dir.join("transcript.md")).unwrap();
    assert!(
        transcript.contains("round 1: recommendation stable in 3 of 3"),
        "{transcript}"
    );
}

/// JM-53, JM-54 on the binary: a variant recommending C, under the
/// requirement: no option is recommended, the rule in words in the note
/// (the report's headline), the --json result and debate.yaml; the
/// ranking is still shown; the
/// exit code is a comparison's (0) and `--from` hands nothing on, as when
/// every option has a dealbreaker.
#[test]
fn jm_53_jm_54_an_unstable_recommendation_is_withdrawn() {
    let sandbox = Sandbox::new();
    sandbox.write("flip.yaml", &comparison_flipping_in_variant_2());
    let ran = sandbox.run_spec(
        "flip.yaml",
        &["--json", "--stability", "3", "--require-stability"],
    );
    ran.assert_code(0);
    let result = result_of(&ran);
    let rule = "the recommendation of A held in only 2 of 3 re-judged variants, and require_stability asks for all 3 (variant 2 recommended C) → no option recommended";
    assert_eq!(
        result["stability"]["summary"],
        "recommendation stable in 2 of 3 (variant 2 recommended C)"
    );
    // As when every option has a dealbreaker, the result's summary says
    // there is no recommendation.
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .starts_with("**No option is recommended.**"),
        "{result}"
    );
    let dir = sandbox.run_dir();
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(
        summary.contains("**No option is recommended.** A was recommended in only 2 of 3 readings in other orders"),
        "{summary}"
    );
    assert!(
        summary
            .contains("Stability was required for a recommendation, so no option is recommended."),
        "{summary}"
    );
    assert!(
        summary.contains("- Variant 2: recommended C — ranking C > A > B"),
        "{summary}"
    );
    assert!(
        summary.contains("| 1 | A |"),
        "the ranking is shown: {summary}"
    );
    let debate: yaml_serde::Value =
        yaml_serde::from_str(&std::fs::read_to_string(dir.join("debate.yaml")).unwrap()).unwrap();
    assert!(debate["decision"]["recommendation"].is_null());
    assert_eq!(debate["decision"]["withdrawn"], rule);
    assert_eq!(debate["decision"]["ranking"][0]["option"], "A");
    assert_eq!(debate["outcome"]["note"], rule);
    // The report's headline is the note, as the result screen's is.
    let report = sandbox.path().join("report.md");
    sandbox
        .quorum(
            &[
                "report",
                dir.to_str().unwrap(),
                "--format",
                "md",
                "-o",
                report.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let report = std::fs::read_to_string(report).unwrap();
    let shown = rule.replace('_', "\\_");
    assert!(report.contains(&format!("**DONE** — {shown}")), "{report}");
    let handed = sandbox.quorum(
        &["demo", "--from", dir.to_str().unwrap(), "--headless"],
        &[],
    );
    assert_ne!(handed.code, 0);
    assert!(
        handed.stderr.contains("hands nothing on"),
        "{}",
        handed.stderr
    );
}

/// JM-52, JM-55: `quorum verdict DIR` ranks every variant again from its
/// files, through the function that ranked the real round: the recorded
/// receipt recomputes as it ran, and an edited variant file that puts C
/// first there withdraws the recommendation under the requirement.
#[test]
fn jm_52_jm_55_quorum_verdict_recomputes_the_comparisons_receipt() {
    let sandbox = Sandbox::new();
    let ran = sandbox.demo_into(
        "run",
        &[
            "--mode",
            "comparative",
            "--stability",
            "3",
            "--require-stability",
        ],
    );
    ran.assert_code(0);
    let dir = support::run::only_run(&sandbox.path().join("run"));
    let dir_arg = dir.to_str().unwrap();
    let again = sandbox.quorum(&["verdict", dir_arg], &[]);
    again.assert_code(0);
    assert_eq!(
        again.stdout,
        "ranking A > C > B; Choose A unless risk matters most: there C is stronger.\nrecommendation stable in 3 of 3\n"
    );

    let file = dir.join("judges/stability/variant-2/judge-analyst.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = text.replacen("score: 5", "score: 3", 1);
    assert_ne!(edited, text);
    std::fs::write(&file, edited).unwrap();
    let edited = sandbox.quorum(&["verdict", dir_arg], &[]);
    edited.assert_code(0);
    assert!(
        edited.stdout.ends_with(
            "\nthe recommendation of A held in only 2 of 3 re-judged variants, and require_stability asks for all 3 (variant 2 recommended C) → no option recommended\n"
        ),
        "{}",
        edited.stdout
    );
    let detail = result_of(&sandbox.quorum(&["verdict", dir_arg, "--json"], &[]));
    assert!(detail["recommendation"].is_null(), "{detail}");
    assert_eq!(
        detail["stability"]["summary"],
        "recommendation stable in 2 of 3 (variant 2 recommended C)"
    );
    assert_eq!(detail["stability"]["required"], true);
    assert_eq!(
        detail["ranking"][0]["option"], "A",
        "the real ranking stays"
    );
}

/// JM-58: the budget holds a comparison's whole receipt as one step,
/// before any of it is sent, and a resume with a larger budget runs it.
#[test]
fn jm_58_the_budget_holds_the_comparisons_receipt_and_a_raised_resume_runs_it() {
    let sandbox = Sandbox::new();
    // The comparison takes about 16,000 tokens, its receipt about 25,000
    // more.
    let resumed = held_then_resumed(
        &sandbox,
        &[
            "--mode",
            "comparative",
            "--stability",
            "3",
            "--budget-tokens",
            "25000",
        ],
        9,
    );
    resumed.assert_code(0);
    assert_eq!(
        result_of(&resumed)["stability"]["summary"],
        "recommendation stable in 3 of 3"
    );
}

/// JM-56, JM-57: the comparison's receipt answers are on disk before they
/// are read; the fold of any prefix of its journal is the live state; cut
/// at any record (mid-receipt included) and resumed, it ends with the same
/// files.
#[tokio::test(start_paused = true)]
async fn jm_56_jm_57_the_comparisons_receipt_persists_folds_and_resumes_from_any_cut() {
    let whole =
        conformance::record_whole("comparison-stability", Source::Demo, comparison_flags(true))
            .await;
    conformance::check_persisted("comparison-stability", &whole);
    let variant_files: Vec<&String> = whole
        .spy
        .raw_paths
        .values()
        .filter(|path| path.starts_with("judges/stability/"))
        .collect();
    assert_eq!(variant_files.len(), 9, "{:?}", whole.spy.raw_paths);
    assert!(
        whole
            .dir
            .join("judges/stability/variant-2/judge-analyst.md")
            .exists()
    );
    conformance::check_fold("comparison-stability", &whole);
    let resumed = conformance::check_resume("comparison-stability", &whole).await;
    assert!(resumed >= 5, "only {resumed} cuts resumed");
}
