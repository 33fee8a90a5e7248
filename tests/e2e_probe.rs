//! `quorum probe` through the real binary (issue 55, JM-03..JM-09): the
//! demo's planted position bias found and the other judges cleared, the
//! `--fail-under` exit code, bad input refused before anything is
//! written, the forecast and the budget, answers saved before they are
//! read, and the latest probe shown by `quorum doctor` and `quorum report`.

use std::path::{Path, PathBuf};

use crate::support::run::{Ran, Sandbox};
use serde_json::Value as Json;

/// `quorum probe --out OUT ARGS…` in the sandbox, OUT its `probes`.
fn probe(sandbox: &Sandbox, args: &[&str]) -> Ran {
    let out = probes_root(sandbox);
    let mut all = vec!["probe", "--out", out.to_str().expect("a UTF-8 path")];
    all.extend(args);
    sandbox.quorum(&all, &[])
}

fn probes_root(sandbox: &Sandbox) -> PathBuf {
    sandbox.path().join("probes")
}

/// The one probe folder under the sandbox's probes root.
fn only_probe(sandbox: &Sandbox) -> PathBuf {
    let folders: Vec<PathBuf> = std::fs::read_dir(probes_root(sandbox))
        .expect("the probes root exists")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    folders.into_iter().next().unwrap()
}

fn json(ran: &Ran) -> Json {
    serde_json::from_str(&ran.stdout).unwrap_or_else(|error| panic!("{error}: {}", ran.stdout))
}

fn judge<'a>(result: &'a Json, role: &str) -> &'a Json {
    result["probe"]["judges"]
        .as_array()
        .expect("judges")
        .iter()
        .find(|judge| judge["role"] == role)
        .unwrap_or_else(|| panic!("no {role} in {result}"))
}

fn figure<'a>(judge: &'a Json, metric: &str) -> &'a Json {
    judge["figures"]
        .as_array()
        .expect("figures")
        .iter()
        .find(|figure| figure["metric"] == metric)
        .unwrap_or_else(|| panic!("no {metric} in {judge}"))
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn jm_03_the_demo_probe_finds_the_planted_position_bias_and_clears_the_others() {
    let sandbox = Sandbox::new();
    let ran = probe(&sandbox, &["--demo", "--json"]);
    ran.assert_code(0);
    let result = json(&ran);
    let biased = judge(&result, "judge.aesthete");
    assert_eq!(figure(biased, "position")["estimate"]["value"], 0.0);
    assert_eq!(figure(biased, "position.first")["estimate"]["value"], 1.0);
    assert_eq!(figure(biased, "position.first")["estimate"]["count"], 12);
    for fair in ["judge.analyst", "judge.stylist"] {
        let fair = judge(&result, fair);
        assert_eq!(figure(fair, "position")["estimate"]["value"], 1.0);
        assert!(figure(fair, "position.first")["estimate"].is_null());
    }
    // Every other figure clears all three: padding, the named family and
    // a content-free answer change nothing of what they score.
    for role in ["judge.analyst", "judge.stylist", "judge.aesthete"] {
        let judge = judge(&result, role);
        assert_eq!(figure(judge, "length.gain")["estimate"]["value"], 0.0);
        assert_eq!(figure(judge, "self.gain")["estimate"]["value"], 0.0);
        assert_eq!(figure(judge, "leniency")["estimate"]["value"], 1.0);
        assert_eq!(judge["read"], 120, "{judge}");
    }
    let dir = only_probe(&sandbox);
    let md = std::fs::read_to_string(dir.join("probe.md")).expect("probe.md");
    assert!(
        md.contains("1 of 3 judges shows a bias: judge.aesthete prefers the answer it reads first"),
        "{md}"
    );
    // Human output says the same, first.
    let human = probe(&sandbox, &["--demo"]);
    human.assert_code(0);
    assert!(
        human.stdout.starts_with(
            "1 of 3 judges shows a bias: judge.aesthete prefers the answer it reads first"
        ),
        "{}",
        human.stdout
    );
}

#[test]
fn jm_04_a_figure_under_its_floor_exits_10_and_names_the_judge() {
    let sandbox = Sandbox::new();
    let ran = probe(
        &sandbox,
        &["--demo", "--fail-under", "position=0.8", "--json"],
    );
    ran.assert_code(10);
    assert!(
        ran.stderr
            .contains("judge.aesthete: position is 0.00, under its floor 0.80"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("judge.analyst:"), "{}", ran.stderr);
    assert_eq!(json(&ran)["exit_code"], 10);
    // Floors the panel reaches pass.
    probe(
        &sandbox,
        &[
            "--demo",
            "--trials",
            "3",
            "--fail-under",
            "leniency=1",
            "--fail-under",
            "self=0.5",
        ],
    )
    .assert_code(0);
}

#[test]
fn jm_06_bad_input_is_refused_naming_its_flag_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let config = sandbox.write("bad.yaml", "providers: [\n");
    let cases: &[(&[&str], &str)] = &[
        (&["--trials", "0"], "--trials"),
        (&["--trials", "201"], "--trials"),
        (&["--seed", "-1"], "--seed"),
        (&["--seed", "seven"], "--seed"),
        (&["--fail-under", "colour=0.5"], "--fail-under"),
        (&["--fail-under", "position=2"], "--fail-under"),
        (&["--timeout", "0"], "--timeout"),
        (&["--agent", "critic=script"], "--agent"),
        (&["--agent", "debugger.*=script"], "--agent"),
        (&["--demo", "--agent", "judge.*=script"], "--agent"),
        (&["--config", config.to_str().unwrap()], "bad.yaml"),
    ];
    for (args, named) in cases {
        let mut all = vec!["--demo"];
        all.extend(*args);
        if matches!(args[0], "--agent" | "--config" | "--demo") {
            all.remove(0);
        }
        let ran = probe(&sandbox, &all);
        ran.assert_code(2);
        assert!(ran.stderr.contains(named), "{args:?}: {}", ran.stderr);
        assert!(!probes_root(&sandbox).exists(), "{args:?} wrote something");
    }
}

#[test]
fn jm_07_the_forecast_comes_first_and_alone_with_forecast() {
    let sandbox = Sandbox::new();
    let ran = probe(&sandbox, &["--demo", "--forecast", "--json"]);
    ran.assert_code(0);
    let forecast = json(&ran);
    assert_eq!(forecast["forecast"]["calls"], 360);
    assert_eq!(forecast["judges"].as_array().unwrap().len(), 3);
    assert!(!probes_root(&sandbox).exists(), "a forecast writes nothing");
    let human = probe(
        &sandbox,
        &["--demo", "--dry-run", "--high-stakes", "--trials", "2"],
    );
    human.assert_code(0);
    assert!(
        human
            .stdout
            .contains("5 judges, 2 questions each (seed 55): 100 calls ≈"),
        "{}",
        human.stdout
    );
    // A real run says the forecast on stderr before anything else.
    let ran = probe(&sandbox, &["--demo", "--trials", "1"]);
    ran.assert_code(0);
    assert!(
        ran.stderr
            .starts_with("quorum probe: 3 judges, 1 question each"),
        "{}",
        ran.stderr
    );
}

#[test]
fn jm_07_a_token_budget_stops_before_the_call_that_would_cross_it() {
    let sandbox = Sandbox::new();
    let ran = probe(
        &sandbox,
        &[
            "--demo",
            "--trials",
            "4",
            "--budget-tokens",
            "5000",
            "--json",
        ],
    );
    ran.assert_code(9);
    let result = json(&ran);
    let spent = result["probe"]["spent"]["tokens"].as_u64().unwrap();
    assert!(spent <= 5000, "spent {spent}");
    assert!(
        result["probe"]["stopped"]
            .as_str()
            .unwrap()
            .contains("budget")
    );
    let not_made: u64 = result["probe"]["judges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|judge| judge["not_made"].as_u64().unwrap())
        .sum();
    assert!(not_made > 0);
    let md = std::fs::read_to_string(only_probe(&sandbox).join("probe.md")).unwrap();
    assert!(md.contains("**Incomplete:**"), "{md}");
}

/// A configuration whose judges are all played by a program that answers
/// every prompt with `reply` (a `printf` format: `\n` is a new line).
fn command_judge(sandbox: &Sandbox, reply: &str) -> PathBuf {
    let program = sandbox.write_executable(
        "judge.sh",
        &format!("#!/bin/sh\ncat > /dev/null\nprintf '{reply}'\n"),
    );
    sandbox.write(
        "config.yaml",
        &format!(
            "providers:\n  judge-cli:\n    kind: command\n    command: [\"{}\"]\n    default_model: fixed-judge\n    family: openai\nroles:\n  judge.*: judge-cli\n",
            program.display()
        ),
    )
}

#[test]
fn jm_05_answers_are_saved_before_they_are_read_and_unreadable_ones_kept_marked() {
    let sandbox = Sandbox::new();
    let config = command_judge(&sandbox, "Both answers look fine to me.\\n");
    let ran = probe(
        &sandbox,
        &[
            "--config",
            config.to_str().unwrap(),
            "--trials",
            "1",
            "--json",
        ],
    );
    // Not one answer could be read: the probe failed, and says so.
    ran.assert_code(1);
    let result = json(&ran);
    let analyst = judge(&result, "judge.analyst");
    assert_eq!(analyst["malformed"], 10);
    assert_eq!(analyst["read"], 0);
    assert!(figure(analyst, "position")["estimate"].is_null());
    let dir = only_probe(&sandbox);
    let raw = files_under(&dir.join("raw"));
    assert_eq!(raw.len(), 30, "{raw:?}");
    for file in &raw {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.starts_with("<!-- MALFORMED: no `"), "{text}");
        assert!(text.ends_with("Both answers look fine to me.\n"), "{text}");
    }
    let log = std::fs::read_to_string(dir.join("calls.log")).unwrap();
    assert_eq!(
        log.lines()
            .filter(|line| line.contains("malformed"))
            .count(),
        30
    );
}

#[test]
fn jm_05_a_command_judge_that_always_picks_the_first_is_found() {
    let sandbox = Sandbox::new();
    let config = command_judge(&sandbox, "PREFER: 1\\nSCORE: 7\\n");
    let ran = probe(
        &sandbox,
        &[
            "--config",
            config.to_str().unwrap(),
            "--trials",
            "6",
            "--json",
        ],
    );
    ran.assert_code(0);
    let result = json(&ran);
    for role in ["judge.analyst", "judge.stylist", "judge.aesthete"] {
        let judge = judge(&result, role);
        assert_eq!(judge["family"], "openai");
        assert_eq!(figure(judge, "position.first")["estimate"]["value"], 1.0);
        // Scoring everything 7 leaves a content-free answer level with a
        // real one: lenient.
        assert_eq!(figure(judge, "leniency")["estimate"]["value"], 0.0);
    }
    let dir = only_probe(&sandbox);
    let answer =
        std::fs::read_to_string(dir.join("raw/judge.analyst/position-001-better-first.md"))
            .unwrap();
    assert_eq!(answer, "PREFER: 1\nSCORE: 7\n");
}

#[test]
fn jm_08_doctor_and_report_show_the_latest_probe_of_the_judges() {
    let sandbox = Sandbox::new();
    let root = sandbox.path().join("runs");
    let debates = root.join("debates");
    let probes = root.join("probes");
    let doctor = |sandbox: &Sandbox| {
        sandbox.quorum(
            &[
                "doctor",
                "--agent",
                "judge.*=script",
                "--probes",
                probes.to_str().unwrap(),
            ],
            &[],
        )
    };
    let before = doctor(&sandbox);
    assert!(before.stdout.contains("Judge probes"), "{}", before.stdout);
    assert!(
        before.stdout.contains("not probed yet"),
        "{}",
        before.stdout
    );

    sandbox
        .quorum(
            &[
                "demo",
                "--headless",
                "--speed",
                "50",
                "--out",
                debates.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let debate = crate::support::run::only_run(&debates);
    let report = |sandbox: &Sandbox| {
        sandbox.quorum(
            &[
                "report",
                debate.to_str().unwrap(),
                "--format",
                "md",
                "-o",
                "-",
            ],
            &[],
        )
    };
    let none = report(&sandbox);
    none.assert_code(0);
    assert!(
        none.stdout
            .contains("No `quorum probe` of this debate's judges was found"),
        "{}",
        none.stdout
    );

    sandbox
        .quorum(
            &[
                "probe",
                "--agent",
                "judge.*=script",
                "--trials",
                "4",
                "--out",
                probes.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let after = doctor(&sandbox);
    assert!(
        after
            .stdout
            .contains("judge.analyst      script:scripted: probed 20"),
        "{}",
        after.stdout
    );
    assert!(
        after.stdout.contains("position 1.00 [0.51, 1.00] n=4"),
        "{}",
        after.stdout
    );
    // The script provider's judges share a name; each slot shows its own.
    assert!(
        after
            .stdout
            .contains("position.first 1.00 [0.51, 1.00] n=4 — prefers the answer it reads first"),
        "{}",
        after.stdout
    );
    let shown = report(&sandbox);
    shown.assert_code(0);
    assert!(
        shown.stdout.contains("## The judges, probed"),
        "{}",
        shown.stdout
    );
    let page = sandbox.quorum(&["report", debate.to_str().unwrap(), "-o", "-"], &[]);
    page.assert_code(0);
    assert!(
        page.stdout.contains("<section id=\"probes\">"),
        "{}",
        page.stdout
    );
    // Each slot its own probe: the script provider's judges share a name.
    assert!(
        page.stdout
            .contains("judge.aesthete · script:scripted · probed 20"),
        "{}",
        page.stdout
    );
    assert!(
        page.stdout.contains("prefers the answer it reads first"),
        "{}",
        page.stdout
    );
    assert!(
        shown
            .stdout
            .contains("judge.analyst · script:scripted · probed 20"),
        "{}",
        shown.stdout
    );
}

#[test]
fn jm_09_exit_code_10_is_in_the_table_and_the_help() {
    assert!(quorum::protocol::EXIT_CODE_TABLE.contains(" 10  quorum probe"));
    assert_eq!(quorum::protocol::EXIT_PROBE_FLOOR, 10);
    let sandbox = Sandbox::new();
    let help = sandbox.quorum(&["probe", "--help"], &[]);
    help.assert_code(0);
    for metric in ["position", "length", "self", "leniency"] {
        assert!(
            help.stdout.contains(&format!("  {metric} ")),
            "{}",
            help.stdout
        );
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains("| 10 | `quorum probe`"));
    assert!(readme.contains("### Probing the judges: `quorum probe`"));
}
