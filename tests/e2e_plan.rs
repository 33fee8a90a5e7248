//! End-to-end runs of the planning debate on the real binary (issue 13,
//! "Tests that must exist"): the demo in order (the journal proves the
//! optimizer started after the critic finished), a moderator overriding
//! the planner and the synthesizer's wrong counts corrected, two rounds
//! then stop, simple mode, a deferred item settled with `quorum open
//! --resolve`, resume after a kill during moderation, and malformed
//! challenges repaired once and then a clear stop.
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use support::plan::draft;
use support::run::{QUORUM, Ran, Sandbox, only_run, quorum_in};
use support::{ScriptBuilder, scripted_spec, spec_yaml};
use yaml_serde::Value;

const GOAL: &str = "Let tenants export their data as CSV";

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|_| panic!("{name} is written"))
}

fn yaml(dir: &Path) -> Value {
    yaml_serde::from_str(&read(dir, "debate.yaml")).unwrap()
}

/// The plan demo's goal as a slug: the names of its docs files.
const DEMO_SLUG: &str = "let-tenants-export-all-their-data-as-csv-from";

/// Every file under `dir`, relative, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// The demo's spec, exported.
fn export_demo(sandbox: &Sandbox) -> PathBuf {
    let path = sandbox.path().join("demo.yaml");
    sandbox
        .quorum(
            &[
                "demo",
                "--protocol",
                "plan",
                "--export-script",
                path.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    path
}

fn run_spec(
    sandbox: &Sandbox,
    spec: &Path,
    out: &str,
    extra: &[&str],
    stdin: Option<&str>,
) -> (Ran, PathBuf) {
    let out = sandbox.path().join(out);
    let mut args = vec![
        "run",
        spec.to_str().unwrap(),
        "--headless",
        "--speed",
        "50",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let ran = quorum_in(sandbox.path(), &args, &[], stdin);
    let dir = only_run(&out);
    (ran, dir)
}

/// The journal's records, in order.
fn journal(dir: &Path) -> Vec<Json> {
    read(dir, "journal.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The seq of the first record matching `event` and `call_id`.
fn seq_of(records: &[Json], event: &str, call_id: &str) -> u64 {
    records
        .iter()
        .find(|record| {
            let body = &record["event"];
            match event {
                "call_started" => body["event"] == "call_started" && body["call_id"] == call_id,
                _ => {
                    body["event"] == "input"
                        && body["input"]["type"] == event
                        && body["input"]["call_id"] == call_id
                }
            }
        })
        .and_then(|record| record["seq"].as_u64())
        .unwrap_or_else(|| panic!("no {event} of {call_id}"))
}

/// The demo runs in the seed's order, two rounds, and writes plan.md with
/// the synthesizer's log, which matches the decisions, counts lines
/// included (PC-32); besides it only the synthesizer's files under docs/
/// (PC-21).
#[test]
fn pc_11_pc_17_pc_21_pc_32_the_demo_runs_in_order_and_writes_a_correct_log() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--protocol",
            "plan",
            "--headless",
            "--speed",
            "50",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let dir = only_run(&out);
    let records = journal(&dir);
    let critic_done = seq_of(&records, "call_finished", "critic/critique/r1/a1");
    let optimizer_started = seq_of(&records, "call_started", "optimizer/optimize/r1/a1");
    assert!(
        optimizer_started > critic_done,
        "PC-11: the optimizer starts after the critic finished"
    );
    assert!(
        seq_of(&records, "call_started", "planner/respond/r1/a1")
            > seq_of(&records, "call_finished", "optimizer/optimize/r1/a1")
    );
    assert!(
        seq_of(&records, "call_started", "critic/review/r2/a1")
            > seq_of(&records, "call_finished", "planner/revise/r1/a1")
    );
    let synthesis_started = seq_of(&records, "call_started", "synthesizer/synthesis/r2/a1");
    for call in [
        "critic/final/r2/a1",
        "optimizer/final/r2/a1",
        "planner/revise/r2/a1",
    ] {
        assert!(
            synthesis_started > seq_of(&records, "call_finished", call),
            "PC-20: after {call}"
        );
    }
    let started: Vec<String> = records
        .iter()
        .filter(|record| record["event"]["event"] == "call_started")
        .map(|record| record["event"]["call_id"].as_str().unwrap().to_string())
        .collect();
    assert!(
        started.iter().all(|id| !id.contains("/r3/")),
        "PC-17: {started:?}"
    );

    let plan = read(&dir, "plan.md");
    assert!(plan.contains("**Critic challenges**: 4 (Accepted: 2 | Rejected: 2 | Deferred: 0)"));
    assert!(plan.contains("**Deadlocks resolved by Optimizer**: 1"));
    assert!(
        !plan.contains("quorum recomputed"),
        "the demo's log is right"
    );
    assert!(plan.contains("- [ ] Investigate: The exports bucket's policy"));
    let entries: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for name in [
        "plan.md",
        "transcript.md",
        "debate.yaml",
        "journal.jsonl",
        "docs",
        "evidence.yaml",
    ] {
        assert!(entries.contains(&name.to_string()), "{name} in {entries:?}");
    }
    assert_eq!(entries.len(), 6, "PC-21: no other file: {entries:?}");
    let docs = files_under(&dir.join("docs"));
    assert_eq!(docs.len(), 3, "{docs:?}");
    assert_eq!(docs[0], format!("adr/0001-{DEMO_SLUG}.md"));
    assert!(
        docs[1].starts_with("plans/2") && docs[1].ends_with(&format!("-{DEMO_SLUG}.md")),
        "PC-21: the synthesizer's plan, its decision record and the index: {docs:?}"
    );
    assert_eq!(docs[2], "plans/README.md");
    assert_eq!(read(&dir.join("docs"), &docs[1]), plan);
    let record = yaml(&dir);
    let u1 = &record["unverified"][0];
    assert_eq!(u1["status"].as_str(), Some("verified"));
    assert_eq!(
        u1["checks"][0]["evidence"]["text"].as_str(),
        Some("https://www.postgresql.org/docs/15/sql-copy.html"),
        "PC-25: the critic verified it with a link"
    );
    assert_eq!(
        record["unverified"][1]["status"].as_str(),
        Some("unverified")
    );
    // The end-of-run message is plan.md's opening, and names what to investigate.
    assert!(
        ran.stdout
            .starts_with("Admins will export all of their tenant's data"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("One assumption is still unverified"));
}

/// The moderator overrides the planner on stdin; the critique log records
/// it, and the synthesizer's log (scripted before the override) is
/// corrected from the decisions, with a line saying so.
#[test]
fn a26_pc_33_a_moderator_overrides_the_planner_and_the_log_is_corrected() {
    let sandbox = Sandbox::new();
    let spec = export_demo(&sandbox);
    let stdin = "a\na: the 60 s timeout is real\na\na\nd\nr\na\n";
    let (ran, dir) = run_spec(
        &sandbox,
        &spec,
        "out",
        &["--moderation", "ask"],
        Some(stdin),
    );
    ran.assert_code(0);
    let record = yaml(&dir);
    let c2 = record["items"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|item| item["id"].as_str() == Some("C2"))
        .unwrap();
    assert_eq!(c2["proposed"]["decision"].as_str(), Some("reject"));
    assert_eq!(c2["decision"]["decision"].as_str(), Some("accept"));
    assert_eq!(c2["decision"]["by"].as_str(), Some("moderator"));
    assert_eq!(
        c2["decision"]["note"].as_str(),
        Some("the 60 s timeout is real")
    );
    let plan = read(&dir, "plan.md");
    assert!(
        plan.contains("decided by the moderator (the planner proposed to reject)"),
        "{plan}"
    );
    // With C2 accepted the critic has nothing to reopen: one round, three
    // challenges, all accepted (the demo follows the rulings, issue 26).
    assert!(
        plan.contains("**Critic challenges**: 3 (Accepted: 3 | Rejected: 0 | Deferred: 0)"),
        "{plan}"
    );
    assert!(plan.contains("(C2)"), "the plan carries out C2: {plan}");
    assert!(
        plan.contains("*quorum recomputed this log from the recorded decisions"),
        "{plan}"
    );
    assert_eq!(plan.matches("## Critique Log").count(), 1);
    assert!(
        read(&dir, "transcript.md")
            .contains("C2 accepted (the planner proposed to reject): the 60 s timeout is real")
    );
}

/// PC-28: `quorum plan --simple` runs the planner and the synthesizer only.
#[test]
fn pc_28_simple_mode_on_the_command_line() {
    let sandbox = Sandbox::new();
    let script = ScriptBuilder::default()
        .reply(
            "planner",
            "draft",
            None,
            None,
            &draft("Export", &["COPY streams 5 GB in 1 GiB."]),
        )
        .reply(
            "synthesizer",
            "synthesis",
            None,
            None,
            "# Export\n\nShip a CSV export.\n\n## Steps\n1. Go.\n",
        )
        .build();
    let script_path = sandbox.write("script.yaml", &yaml_serde::to_string(&script).unwrap());
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "plan",
            GOAL,
            "--simple",
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
    let record = yaml(&dir);
    let roles: Vec<&str> = record["answers"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|answer| answer["role"].as_str())
        .collect();
    assert_eq!(roles, ["planner", "synthesizer"]);
    let plan = read(&dir, "plan.md");
    assert!(
        plan.contains("- [ ] Investigate: COPY streams 5 GB in 1 GiB. (U1)"),
        "{plan}"
    );
    let listed = sandbox.quorum(&["open", "--out", out.to_str().unwrap(), "--headless"], &[]);
    assert!(
        listed
            .stdout
            .contains("to investigate:\n    U1 [UNVERIFIED] COPY streams 5 GB in 1 GiB."),
        "{}",
        listed.stdout
    );
}

/// A deferred item is settled after the debate with `quorum open --resolve`.
#[test]
fn a_deferred_item_is_settled_with_quorum_open() {
    let sandbox = Sandbox::new();
    let spec = export_demo(&sandbox);
    let (ran, dir) = run_spec(&sandbox, &spec, "out", &[], None);
    ran.assert_code(0);
    let listed = sandbox.quorum(&["open", dir.to_str().unwrap(), "--headless"], &[]);
    assert!(
        listed.stdout.contains("1 open deferred item"),
        "{}",
        listed.stdout
    );
    // Issue 62: a plan's item is about the plan, raised by a role.
    assert!(
        listed.stdout.contains("I2  from the optimizer"),
        "{}",
        listed.stdout
    );
    let refused = sandbox.quorum(
        &["open", dir.to_str().unwrap(), "--resolve", "C1=accept"],
        &[],
    );
    refused.assert_code(2);
    assert!(
        refused
            .stderr
            .contains("cannot settle C1: it was accepted in the debate, not deferred"),
        "{}",
        refused.stderr
    );
    let settled = sandbox.quorum(
        &[
            "open",
            dir.to_str().unwrap(),
            "--resolve",
            "I2=accept",
            "--note",
            "product says yes",
        ],
        &[],
    );
    settled.assert_code(0);
    let plan = read(&dir, "plan.md");
    assert!(plan.contains("| I2 | Optimizer | Email the admin when the export is ready | Product | Accepted (after the debate) |"), "{plan}");
    assert!(plan.contains("I2 accepted on"), "{plan}");
    let again = sandbox.quorum(
        &["open", dir.to_str().unwrap(), "--resolve", "I2=reject"],
        &[],
    );
    again.assert_code(2);
    assert!(
        again.stderr.contains("has no deferred items to settle"),
        "{}",
        again.stderr
    );
}

/// Killed with kill -9 during the first moderation and resumed, the debate
/// ends as the uninterrupted run did.
#[test]
fn resume_after_a_kill_during_moderation() {
    let sandbox = Sandbox::new();
    let spec = export_demo(&sandbox);
    let (ran, reference) = run_spec(&sandbox, &spec, "reference", &[], None);
    ran.assert_code(0);
    let records = journal(&reference);
    let decided = records
        .iter()
        .find(|record| record["event"]["input"]["type"] == "item_decided")
        .and_then(|record| record["seq"].as_u64())
        .expect("a decision");

    let out = sandbox.path().join("killed");
    let mut command = Command::new(QUORUM);
    support::isolate(&mut command, sandbox.path())
        .args([
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--speed",
            "50",
            "--out",
            out.to_str().unwrap(),
        ])
        .env("QUORUM_TEST_STOP_AFTER_RECORD", decided.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    loop {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap_or_default();
        if stat
            .rsplit_once(')')
            .and_then(|(_, after)| after.trim_start().chars().next())
            == Some('T')
        {
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
    assert!(!dir.join("plan.md").exists(), "killed during moderation");
    let resumed = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    resumed.assert_code(0);
    assert_eq!(read(&dir, "plan.md"), read(&reference, "plan.md"));
    let decisions = |dir: &Path| -> Vec<(String, String)> {
        yaml(dir)["items"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|item| {
                (
                    item["id"].as_str().unwrap().to_string(),
                    item["decision"]["decision"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(decisions(&dir), decisions(&reference));
}

/// Malformed challenges: one repair quoting the error, then a clear stop
/// (exit 1) with no plan invented.
#[test]
fn malformed_challenges_are_repaired_then_stop() {
    let sandbox = Sandbox::new();
    let script = ScriptBuilder::default()
        .reply("planner", "draft", None, None, &draft("Export", &[]))
        .fault("critic", "critique", None, None, "malformed")
        .build();
    let mut spec = scripted_spec(GOAL, script);
    spec.protocol = "plan".into();
    let path = sandbox.write("spec.yaml", &spec_yaml(&spec));
    let (ran, dir) = run_spec(&sandbox, &path, "out", &[], None);
    ran.assert_code(1);
    let transcript = read(&dir, "transcript.md");
    assert!(
        transcript.contains("**RETRY** `critic/critique/r1/a2`"),
        "one repair"
    );
    assert!(
        ran.stdout.contains(
            "the critic's critique answer could not be parsed, even after a repair attempt"
        ),
        "{}",
        ran.stdout
    );
    assert!(read(&dir, "plan.md").starts_with("# No plan — "));
}

/// PC-25 (issue 60) on the real binary: the demo's critic verifying U1
/// without its link, headless under the plan's default moderation (the
/// suggestions), leaves U1 unverified: nothing turns VERIFIED without
/// evidence or a person. The record, plan.md and `quorum open` say why.
#[test]
fn pc_25_a_bare_verified_stays_unverified_on_the_real_binary() {
    let sandbox = Sandbox::new();
    let spec = export_demo(&sandbox);
    let text = std::fs::read_to_string(&spec).unwrap();
    let link = " (https://www.postgresql.org/docs/15/sql-copy.html)";
    assert!(text.contains(link));
    std::fs::write(&spec, text.replace(link, "")).unwrap();
    let (ran, dir) = run_spec(&sandbox, &spec, "out", &[], None);
    ran.assert_code(0);
    let why = "marked VERIFIED by the critic without an evidence link or quote; the moderator left it to investigate";
    let record = yaml(&dir);
    let u1 = &record["unverified"][0];
    assert_eq!(u1["status"].as_str(), Some("unverified"));
    assert_eq!(u1["why"].as_str(), Some(why));
    let plan = read(&dir, "plan.md");
    assert!(plan.contains(&format!("| Unverified | {why} |")), "{plan}");
    assert!(plan.contains("(U1)\n"), "an investigation task: {plan}");
    assert!(
        ran.stdout.contains("2 assumptions are still unverified"),
        "{}",
        ran.stdout
    );
    let listed = sandbox.quorum(&["open", dir.to_str().unwrap(), "--headless"], &[]);
    assert!(
        listed
            .stdout
            .contains("U1 [UNVERIFIED] `COPY ... TO STDOUT` streams"),
        "{}",
        listed.stdout
    );
}

/// PC-21, PC-22 (issue 60): `--write-docs DIR` lands the synthesizer's
/// files in a repository's docs/: the plan under docs/plans/, its line
/// added to the index there (the rest kept), its decision record numbered
/// after the ones already under docs/adr/. A docs/ that is a symbolic
/// link leading out of the folder is refused, and nothing lands through it.
#[test]
fn pc_21_pc_22_write_docs_lands_the_synthesizers_files_in_a_repository() {
    let sandbox = Sandbox::new();
    let repo = sandbox.path().join("repo");
    std::fs::create_dir_all(repo.join("docs/adr")).unwrap();
    std::fs::create_dir_all(repo.join("docs/plans")).unwrap();
    std::fs::write(
        repo.join("docs/adr/0003-use-postgres.md"),
        "# 3. Use Postgres\n",
    )
    .unwrap();
    let index = "# Plans\n\n- 2026-11-02 [Billing](2026-11-02-billing.md)\n";
    std::fs::write(repo.join("docs/plans/README.md"), index).unwrap();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--protocol",
            "plan",
            "--headless",
            "--speed",
            "50",
            "--write-docs",
            repo.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let dir = only_run(&out);
    let landed = files_under(&repo.join("docs"));
    assert_eq!(landed.len(), 4, "{landed:?}");
    let adr = format!("adr/0004-{DEMO_SLUG}.md");
    assert!(landed.contains(&adr), "{landed:?}");
    let plan_file = landed
        .iter()
        .find(|path| path.starts_with("plans/2"))
        .expect("the plan");
    assert_eq!(read(&repo.join("docs"), plan_file), read(&dir, "plan.md"));
    assert_eq!(
        read(&repo.join("docs"), &adr),
        read(&dir.join("docs"), &adr),
        "the run folder keeps the same record"
    );
    assert!(read(&repo.join("docs"), &adr).starts_with("# 4. Stream small tenant exports"));
    let written_index = read(&repo.join("docs/plans"), "README.md");
    let plan_name = plan_file.trim_start_matches("plans/");
    assert!(written_index.starts_with(index), "{written_index}");
    assert!(
        written_index.ends_with(&format!(
            "[Tenant CSV export]({plan_name}) — decision record [0004](../{adr})\n"
        )),
        "{written_index}"
    );
    let debate = read(&dir, "journal.jsonl");
    assert!(debate.contains("\"adr_number\":4"), "journaled, for resume");

    // A docs/ leading out of the folder: nothing lands through it.
    let sandbox = Sandbox::new();
    let repo = sandbox.path().join("repo");
    let elsewhere = sandbox.path().join("elsewhere");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, repo.join("docs")).unwrap();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--protocol",
            "plan",
            "--headless",
            "--speed",
            "50",
            "--write-docs",
            repo.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert_ne!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("docs is a symbolic link"),
        "{}",
        ran.stderr
    );
    assert!(files_under(&elsewhere).is_empty());
}

/// PC-22 (issue 60): a spec's `write_docs:` is confined to the spec's own
/// folder, like the files it reads; a folder outside it is refused before
/// anything runs, naming the key. Inside it, the docs land there.
#[test]
fn pc_22_a_specs_write_docs_stays_inside_the_specs_folder() {
    let sandbox = Sandbox::new();
    let spec = export_demo(&sandbox);
    let text = std::fs::read_to_string(&spec).unwrap();
    let outside = sandbox.path().parent().unwrap().join("elsewhere");
    for refused in [outside.display().to_string(), "../elsewhere".to_string()] {
        std::fs::write(
            &spec,
            text.replace(
                "protocol: plan\n",
                &format!("protocol: plan\nwrite_docs: {refused}\n"),
            ),
        )
        .unwrap();
        let ran = quorum_in(
            sandbox.path(),
            &["run", spec.to_str().unwrap(), "--headless", "--out", "out"],
            &[],
            None,
        );
        ran.assert_code(2);
        assert!(ran.stderr.contains("write_docs"), "{}", ran.stderr);
        assert!(
            ran.stderr
                .contains("a spec's plan writes docs only inside the spec's folder"),
            "{}",
            ran.stderr
        );
    }
    assert!(!outside.exists());
    std::fs::write(
        &spec,
        text.replace("protocol: plan\n", "protocol: plan\nwrite_docs: repo\n"),
    )
    .unwrap();
    let (ran, _) = run_spec(&sandbox, &spec, "out-inside", &[], None);
    ran.assert_code(0);
    assert_eq!(files_under(&sandbox.path().join("repo/docs")).len(), 3);
}
