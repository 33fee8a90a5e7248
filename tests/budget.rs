//! Budgets with a forecast (issue 30), on the real binary: a headless run
//! stops before the step that would cross its budget, with its own exit
//! code and none of that step sent; `quorum resume DIR --budget X` runs it
//! on to the verdict an unbudgeted run of the same script reaches; a money
//! limit without prices is refused; every protocol's demo stops and resumes
//! the same way; at the interface the person is asked, and each answer
//! (go on once, raise, stop here) is kept in the journal.

use crate::support;

use std::path::Path;
use std::time::Duration;

use serde_json::Value as Json;
use support::pty::PtyRun;
use support::run::{Ran, Sandbox};

/// The budget's exit code, from the one table.
const EXIT_BUDGET: i32 = quorum::protocol::EXIT_BUDGET;

/// A token limit the decision review's demo crosses before its judges.
const TIGHT_TOKENS: &str = "12000";

fn demo(sandbox: &Sandbox, out: &str, extra: &[&str]) -> Ran {
    sandbox.demo_into(out, extra)
}

/// The journal's events, in order.
fn journal(dir: &Path) -> Vec<Json> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Json>(line).unwrap()["event"].clone())
        .collect()
}

/// The budget records of a journal, as `kind` (and the decision).
fn budget_records(dir: &Path) -> Vec<String> {
    journal(dir)
        .iter()
        .filter(|event| event["event"] == "budget")
        .map(|event| {
            let budget = &event["budget"];
            match budget["decision"]["decision"].as_str() {
                Some(decision) => format!("{}:{decision}", budget["kind"].as_str().unwrap()),
                None => budget["kind"].as_str().unwrap().to_string(),
            }
        })
        .collect()
}

/// The verdict and its rule from a `--json` result.
fn verdict_of(ran: &Ran) -> (String, String) {
    let result: Json = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", ran.stdout, ran.stderr));
    (
        result["verdict"].as_str().unwrap_or("").to_string(),
        result["rule"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn headless_stops_before_the_step_and_a_raised_resume_reaches_the_unbudgeted_verdict() {
    let sandbox = Sandbox::new();
    let free = demo(&sandbox, "free", &[]);
    free.assert_code(0);
    let unbudgeted = verdict_of(&free);

    let held = demo(&sandbox, "held", &["--budget-tokens", TIGHT_TOKENS]);
    held.assert_code(EXIT_BUDGET);
    assert!(
        held.stderr
            .contains("stopped before a step that would cross the budget"),
        "{}",
        held.stderr
    );
    assert!(held.stderr.contains("--budget-tokens"), "{}", held.stderr);
    let dir = support::run::only_run(&sandbox.path().join("held"));
    assert_eq!(budget_records(&dir), ["reached", "stopped"]);
    // The held step is the first round's judges: not one of them was sent.
    let events = journal(&dir);
    let reached = events
        .iter()
        .find(|event| event["budget"]["kind"] == "reached")
        .unwrap();
    assert_eq!(reached["budget"]["step"]["calls"], 3, "{reached}");
    assert_eq!(reached["budget"]["crossed"], serde_json::json!(["tokens"]));
    assert!(
        !events.iter().any(|event| event["event"] == "call_started"
            && event["role"].as_str().unwrap().starts_with("judge.")),
        "no judge was called before the budget stop"
    );
    assert!(
        !dir.join("summary.md").exists()
            || !std::fs::read_to_string(dir.join("summary.md"))
                .unwrap()
                .contains("ADOPT")
    );

    // Resumed without more, it stops again at once.
    let again = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    again.assert_code(EXIT_BUDGET);

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
    assert_eq!(verdict_of(&resumed), unbudgeted);
    assert_eq!(
        budget_records(&dir),
        ["reached", "stopped", "reached", "stopped", "decided:raise"]
    );
    assert!(resumed.stderr.contains("budget raised: 1,000,000 tokens"));
    // The report lists every budget fact of the record, in order.
    let report = sandbox.quorum(
        &["report", dir.to_str().unwrap(), "--format", "md", "-o", "-"],
        &[],
    );
    report.assert_code(0);
    let section = report
        .stdout
        .split("## The budget\n\n")
        .nth(1)
        .expect("a budget section");
    let lines: Vec<&str> = section
        .lines()
        .take_while(|line| !line.is_empty())
        .collect();
    assert_eq!(lines.len(), 5, "{section}");
    assert!(lines[0].contains("held a step: spent"), "{}", lines[0]);
    assert!(
        lines[1].contains("stopped before the held step"),
        "{}",
        lines[1]
    );
    assert!(
        lines[4].contains("raised the budget: 1,000,000 tokens"),
        "{}",
        lines[4]
    );
}

/// The demo's scripted agents carry a made-up price under a money limit,
/// said on stderr, so `quorum demo --budget 0.10` shows the budget with no
/// configuration file; the same scripted agents in a spec of one's own
/// have no price, and a money limit there needs one.
#[test]
fn the_demo_can_try_a_money_budget_with_its_made_up_prices() {
    let sandbox = Sandbox::new();
    let held = demo(&sandbox, "out", &["--budget", "0.05"]);
    held.assert_code(EXIT_BUDGET);
    assert!(held.stderr.contains("made-up $3"), "{}", held.stderr);
    let dir = support::run::only_run(&sandbox.path().join("out"));
    let reached = journal(&dir)
        .into_iter()
        .find(|event| event["budget"]["kind"] == "reached")
        .unwrap();
    assert_eq!(reached["budget"]["crossed"], serde_json::json!(["usd"]));
    // Without a money limit, the demo is priced as before: not at all.
    let free = demo(&sandbox, "free", &[]);
    free.assert_code(0);
    assert!(!free.stderr.contains("made-up"), "{}", free.stderr);
}

#[test]
fn a_money_budget_counts_the_configured_prices_and_needs_them() {
    let sandbox = Sandbox::new();
    let spec = sandbox.path().join("demo.yaml");
    sandbox
        .quorum(&["demo", "--export-script", spec.to_str().unwrap()], &[])
        .assert_code(0);
    let spec = spec.to_str().unwrap();
    // Without a price for the scripted agents, a money limit cannot count.
    let refused = sandbox.run_spec(spec, &["--budget", "0.05"]);
    refused.assert_code(2);
    assert!(
        refused.stderr.contains("--budget")
            && refused.stderr.contains("script:scripted")
            && refused.stderr.contains("prices:"),
        "{}",
        refused.stderr
    );
    assert!(!sandbox.out().exists(), "nothing was written");

    let config = sandbox.write(
        "config.yaml",
        "prices:\n  script:scripted: { input: 3, output: 15 }\n",
    );
    let config = config.to_str().unwrap();
    let held = sandbox.run_spec(spec, &["--config", config, "--budget", "0.05"]);
    held.assert_code(EXIT_BUDGET);
    assert!(held.stderr.contains("$0.05"), "{}", held.stderr);
    assert!(held.stderr.contains("--budget "), "{}", held.stderr);
    assert!(!held.stderr.contains("made-up"), "{}", held.stderr);
    let dir = sandbox.run_dir();
    let reached = journal(&dir)
        .into_iter()
        .find(|event| event["budget"]["kind"] == "reached")
        .unwrap();
    let committed = reached["budget"]["spent"]["usd"].as_f64().unwrap()
        + reached["budget"]["running"]["usd"].as_f64().unwrap()
        + reached["budget"]["step"]["usd"].as_f64().unwrap();
    assert!(committed > 0.05, "{reached}");
    assert!(reached["budget"]["spent"]["usd"].as_f64().unwrap() <= 0.05);
    assert_eq!(reached["budget"]["crossed"], serde_json::json!(["usd"]));

    let resumed = sandbox.quorum(
        &[
            "resume",
            dir.to_str().unwrap(),
            "--headless",
            "--config",
            config,
            "--budget",
            "20",
        ],
        &[],
    );
    resumed.assert_code(0);
}

#[test]
fn flags_a_spec_and_the_config_set_a_budget_and_bad_ones_name_their_field() {
    let sandbox = Sandbox::new();
    let bad = sandbox.write("config.yaml", "budget_tokens: 0\n");
    let ran = demo(&sandbox, "out", &["--config", bad.to_str().unwrap()]);
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("config.yaml:1") && ran.stderr.contains("budget_tokens"),
        "{}",
        ran.stderr
    );
    let good = sandbox.write("good.yaml", &format!("budget_tokens: {TIGHT_TOKENS}\n"));
    let ran = demo(&sandbox, "out", &["--config", good.to_str().unwrap()]);
    ran.assert_code(EXIT_BUDGET);
    let bad_flag = demo(&sandbox, "out2", &["--budget", "0"]);
    bad_flag.assert_code(2);
    assert!(bad_flag.stderr.contains("--budget"), "{}", bad_flag.stderr);

    // A spec's limit holds its debate; a bad one is named by file, line
    // and field before anything is written.
    let mut spec = support::scripted_spec(
        "Is a budget kept?",
        support::ScriptBuilder::adopt_path().build(),
    );
    spec.budget_tokens = Some(2_000);
    let text = support::spec_yaml(&spec);
    let path = sandbox.write("spec.yaml", &text);
    let out = sandbox.path().join("spec-out");
    let args = [
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--out",
        out.to_str().unwrap(),
    ];
    sandbox.quorum(&args, &[]).assert_code(EXIT_BUDGET);
    let path = sandbox.write(
        "spec.yaml",
        &text.replace("budget_tokens: 2000", "budget: -1"),
    );
    let refused = sandbox.quorum(&args, &[]);
    refused.assert_code(2);
    let line = text
        .lines()
        .position(|line| line.starts_with("budget_tokens:"))
        .unwrap()
        + 1;
    assert!(
        refused
            .stderr
            .contains(&format!("{}:{line}: budget:", path.display())),
        "{}",
        refused.stderr
    );
}

/// Every protocol's demo, on a budget of a few tokens, stops before its
/// first step that crosses it and resumes with a raise to the end its
/// unbudgeted demo reaches.
#[test]
fn every_protocols_demo_stops_at_its_budget_and_resumes_to_the_same_end() {
    for kind in quorum::protocol::registry::BUILT_IN {
        let protocol = kind.info().name;
        let sandbox = Sandbox::new();
        let free = demo(&sandbox, "free", &["--protocol", protocol]);
        assert!(
            matches!(free.code, 0 | 3..=8),
            "{protocol}: {}",
            free.stderr
        );
        let held = demo(
            &sandbox,
            "held",
            &["--protocol", protocol, "--budget-tokens", "1000"],
        );
        assert_eq!(held.code, EXIT_BUDGET, "{protocol}: {}", held.stderr);
        let dir = support::run::only_run(&sandbox.path().join("held"));
        let resumed = sandbox.quorum(
            &[
                "resume",
                dir.to_str().unwrap(),
                "--headless",
                "--json",
                "--budget-tokens",
                "100M",
            ],
            &[],
        );
        assert_eq!(resumed.code, free.code, "{protocol}: {}", resumed.stderr);
        assert_eq!(verdict_of(&resumed), verdict_of(&free), "{protocol}");
    }
}

/// The decision review's demo at the interface on a tight budget.
fn budget_demo(dir: &Path) -> PtyRun {
    PtyRun::spawn(
        &[
            "demo",
            "--out",
            "out",
            "--speed",
            "20",
            "--moderation",
            "accept",
            "--budget-tokens",
            TIGHT_TOKENS,
        ],
        dir,
        120,
        40,
    )
}

const WAIT: Duration = Duration::from_secs(30);
const QUESTION: &str = "The next step would cross the budget";

#[test]
fn the_interface_asks_and_keeps_each_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = budget_demo(dir.path());
    run.wait_for(QUESTION, WAIT);
    run.wait_for("go on once", WAIT);
    // Over the limit, the header says so beside the figures.
    assert!(
        run.screen_text()
            .contains("of 12.0k tok · step ≈ 17.2k tok"),
        "{}",
        run.screen_text()
    );
    run.send("o");
    run.wait_for("this step goes on over the budget", WAIT);
    // The next step crosses it again: raised to what is suggested.
    run.wait_for(QUESTION, WAIT);
    run.send("r");
    run.wait_for("The new budget", WAIT);
    run.send("\r");
    run.wait_for("budget raised", WAIT);
    // Asked again whenever a later step would cross the raised limit.
    run.wait_until("the verdict", Duration::from_secs(60), |screen| {
        let contents = screen.contents();
        contents.contains("Written to") || contents.contains(QUESTION)
    });
    while !run.screen_text().contains("Written to") {
        run.send("r");
        run.wait_for("The new budget", WAIT);
        run.send("\r");
        run.wait_until("the verdict", Duration::from_secs(60), |screen| {
            let contents = screen.contents();
            contents.contains("Written to")
                || (contents.contains(QUESTION) && !contents.contains("The new budget"))
        });
    }
    run.send("q");
    let status = run.wait_exit(WAIT);
    assert_eq!(status.exit_code(), 0, "{}", run.screen_text());
    let folder = support::run::only_run(&dir.path().join("out"));
    let records = budget_records(&folder);
    assert_eq!(
        records[..4],
        ["reached", "decided:go_once", "reached", "decided:raise"]
    );
    assert!(!records.contains(&"stopped".to_string()), "{records:?}");
}

#[test]
fn stop_here_at_the_interface_ends_the_run_resumable() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = budget_demo(dir.path());
    run.wait_for(QUESTION, WAIT);
    run.send("s");
    let status = run.wait_exit(WAIT);
    assert_eq!(
        status.exit_code(),
        EXIT_BUDGET as u32,
        "{}",
        run.screen_text()
    );
    let after = run.screen_text();
    assert!(
        after.contains("continue it with a larger budget"),
        "{after}"
    );
    let folder = support::run::only_run(&dir.path().join("out"));
    assert_eq!(
        budget_records(&folder),
        ["reached", "decided:stop", "stopped"]
    );
    let resumed = support::run::quorum_in(
        dir.path(),
        &[
            "resume",
            folder.to_str().unwrap(),
            "--headless",
            "--budget-tokens",
            "1M",
        ],
        &[],
        None,
    );
    resumed.assert_code(0);
}
