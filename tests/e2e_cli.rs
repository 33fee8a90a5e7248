//! End-to-end runs of the real `quorum` binary on scripted specs (issue 2,
//! "Tests that must exist").
//!
//! Every test works in its own temporary folder: it writes a spec built from
//! [`ScriptBuilder`], runs `quorum run SPEC --out DIR --headless`, and checks
//! the exit code, stdout and the artifact tree file by file. Every tree a run
//! writes is then handed to `quorum verdict`, which must recompute the same
//! verdict, rule and exit code from the files on disk.
use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quorum::agent::script::MALFORMED_RAMBLE;
use quorum::config::roles::{AgentDetail, AgentSpec};
use quorum::protocol::decision_review::model::{Criterion, JudgeRole};
use quorum::spec::{ContextSpec, DebateSpec};
use serde_json::Value as Json;
use support::run::{Ran, Sandbox, quorum_in};
use support::{
    ScriptBuilder, critique_ids, default_critique, judge_config, judge_text, proposal_text,
    revision_text, scores, scripted_spec, spec_yaml, with_insufficient_information,
};
use yaml_serde::Value;

const TOPIC: &str = "Should we adopt the fixture plan?";
/// The panel of a default run, in panel order.
const PANEL: [&str; 3] = ["analyst", "stylist", "aesthete"];

// ---- running the binary ------------------------------------------------------

/// What these tests add to the shared sandbox: spec files and the usual
/// `run` / `verdict` invocations.
trait CliSandbox {
    fn write_spec(&self, spec: &DebateSpec) -> PathBuf;
    fn quorum_with_stdin(&self, args: &[&str], stdin: Option<&str>) -> Ran;
    fn run(&self, spec: &DebateSpec, extra: &[&str]) -> (Ran, Tree);
    fn run_with_stdin(&self, spec: &DebateSpec, extra: &[&str], stdin: Option<&str>)
    -> (Ran, Tree);
    fn verdict(&self, tree: &Tree, extra: &[&str]) -> Ran;
}

impl CliSandbox for Sandbox {
    fn write_spec(&self, spec: &DebateSpec) -> PathBuf {
        self.write("spec.yaml", &spec_yaml(spec))
    }

    fn quorum_with_stdin(&self, args: &[&str], stdin: Option<&str>) -> Ran {
        quorum_in(self.path(), args, &[], stdin)
    }

    /// `quorum run SPEC --out OUT --headless [extra]` and the folder it wrote.
    fn run(&self, spec: &DebateSpec, extra: &[&str]) -> (Ran, Tree) {
        self.run_with_stdin(spec, extra, None)
    }

    fn run_with_stdin(
        &self,
        spec: &DebateSpec,
        extra: &[&str],
        stdin: Option<&str>,
    ) -> (Ran, Tree) {
        let spec_path = self.write_spec(spec);
        let out = self.out();
        let mut args = vec![
            "run",
            spec_path.to_str().expect("utf-8 path"),
            "--out",
            out.to_str().expect("utf-8 path"),
            "--headless",
        ];
        args.extend_from_slice(extra);
        let ran = self.quorum_with_stdin(&args, stdin);
        let tree = Tree::only_run_in(&out, &ran);
        (ran, tree)
    }

    /// `quorum verdict DIR [extra]`.
    fn verdict(&self, tree: &Tree, extra: &[&str]) -> Ran {
        let mut args = vec!["verdict", tree.dir.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra);
        self.quorum(&args, &[])
    }
}

// ---- reading the artifact tree -------------------------------------------------

/// One run folder.
struct Tree {
    dir: PathBuf,
}

impl Tree {
    /// The single run folder inside `out`.
    fn only_run_in(out: &Path, ran: &Ran) -> Tree {
        let entries: Vec<PathBuf> = std::fs::read_dir(out)
            .unwrap_or_else(|error| {
                panic!(
                    "no artifact root {}: {error}\n--- stderr\n{}",
                    out.display(),
                    ran.stderr
                )
            })
            .map(|entry| entry.expect("folder entry").path())
            .collect();
        assert_eq!(
            entries.len(),
            1,
            "one run folder in {}: {entries:?}",
            out.display()
        );
        assert!(entries[0].is_dir(), "{} is a folder", entries[0].display());
        Tree {
            dir: entries[0].clone(),
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.join(relative)
    }

    fn exists(&self, relative: &str) -> bool {
        self.path(relative).exists()
    }

    fn file(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative))
            .unwrap_or_else(|error| panic!("read {relative}: {error}"))
    }

    fn yaml(&self) -> Value {
        yaml_serde::from_str(&self.file("debate.yaml")).expect("debate.yaml is YAML")
    }

    /// Every journal line, each checked to be a JSON record with v, seq, at
    /// and event, seq counting up from 1.
    fn journal(&self) -> Vec<Json> {
        let text = self.file("journal.jsonl");
        assert!(text.ends_with('\n'), "the journal ends with a full line");
        text.lines()
            .enumerate()
            .map(|(index, line)| {
                let record: Json = serde_json::from_str(line)
                    .unwrap_or_else(|error| panic!("journal line {}: {error}", index + 1));
                assert_eq!(record["v"], 1, "journal line {}: v", index + 1);
                assert_eq!(
                    record["seq"].as_u64(),
                    Some(index as u64 + 1),
                    "journal line {}: seq",
                    index + 1
                );
                let at = record["at"].as_str().expect("at is a string");
                chrono::DateTime::parse_from_rfc3339(at)
                    .unwrap_or_else(|error| panic!("journal line {}: at {at}: {error}", index + 1));
                assert!(
                    record["event"]["event"].is_string(),
                    "journal line {}: event names its kind",
                    index + 1
                );
                record
            })
            .collect()
    }

    /// `judges/…` files, relative to the run folder.
    fn judge_files(&self) -> BTreeSet<String> {
        match std::fs::read_dir(self.path("judges")) {
            Ok(entries) => entries
                .map(|entry| {
                    format!(
                        "judges/{}",
                        entry.expect("entry").file_name().to_string_lossy()
                    )
                })
                .collect(),
            Err(_) => BTreeSet::new(),
        }
    }

    /// Transcript event lines for `call_id` carrying the bold `label`.
    fn transcript_events(&self, label: &str, call_id: &str) -> Vec<String> {
        self.file("transcript.md")
            .lines()
            .filter(|line| line.contains(&format!("**{label}** `{call_id}`")))
            .map(str::to_string)
            .collect()
    }

    /// Call ids the journal says were started, in order.
    fn started_calls(&self) -> Vec<String> {
        self.journal()
            .iter()
            .filter(|record| record["event"]["event"] == "call_started")
            .map(|record| record["event"]["call_id"].as_str().unwrap().to_string())
            .collect()
    }
}

fn judge_file(role: &str, round: u32) -> String {
    if round == 1 {
        format!("judges/judge-{role}.md")
    } else {
        format!("judges/judge-{role}-round-{round}.md")
    }
}

fn judge_files(roles: &[&str], rounds: u32) -> BTreeSet<String> {
    (1..=rounds)
        .flat_map(|round| roles.iter().map(move |role| judge_file(role, round)))
        .collect()
}

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("expected a string, found {value:?}"))
}

fn list(value: &Value) -> &Vec<Value> {
    value
        .as_sequence()
        .unwrap_or_else(|| panic!("expected a list, found {value:?}"))
}

/// The 1-based line of `yaml` that starts (after indentation) with `key`.
fn line_of(yaml: &str, key: &str) -> usize {
    yaml.lines()
        .position(|line| line.trim_start().starts_with(key))
        .unwrap_or_else(|| panic!("no line starting with {key:?} in\n{yaml}"))
        + 1
}

// ---- specs -----------------------------------------------------------------------

fn analyst_config() -> quorum::protocol::decision_review::model::JudgeConfig {
    judge_config(JudgeRole::Analyst, false)
}

/// An analyst answer: every score 4 except `overrides`.
fn analyst_text(overrides: &[(&str, Criterion, u8)]) -> String {
    judge_text(&analyst_config(), scores(4, overrides), [4, 4, 4])
}

fn spec(builder: ScriptBuilder) -> DebateSpec {
    scripted_spec(TOPIC, builder.build())
}

/// A REVISE in round 1 (analyst: b2 feasibility 2), ADOPT in round 2.
fn revise_then_adopt() -> ScriptBuilder {
    ScriptBuilder::adopt_path()
        .reply(
            "judge.analyst",
            "evaluation",
            Some(1),
            None,
            &analyst_text(&[("b2", Criterion::Feasibility, 2)]),
        )
        .reply(
            "proposer",
            "revision",
            Some(2),
            None,
            &revision_text(&["d1"]),
        )
}

// ---- the shared file-by-file check -------------------------------------------------

/// What a decided run should have written.
struct Expect<'a> {
    verdict: &'a str,
    exit: i32,
    /// Revision and evaluation rounds that ran.
    rounds: u32,
    /// `accept`, `reject` or `defer` for c1..c4.
    decisions: [&'a str; 4],
    /// Every file under `judges/`.
    judge_files: BTreeSet<String>,
}

impl Expect<'_> {
    fn adopt() -> Expect<'static> {
        Expect {
            verdict: "ADOPT",
            exit: 0,
            rounds: 1,
            decisions: ["accept"; 4],
            judge_files: judge_files(&PANEL, 1),
        }
    }
}

fn decision_word(decision: &str) -> &'static str {
    match decision {
        "accept" => "ACCEPTED",
        "reject" => "REJECTED",
        "defer" => "DEFERRED",
        other => panic!("no decision {other}"),
    }
}

/// The opening paragraph of `summary.md`: what the CLI prints (RF-07).
fn summary_lead(tree: &Tree) -> String {
    let summary = tree.file("summary.md");
    summary
        .split("\n\n")
        .nth(1)
        .expect("summary.md has a lead paragraph")
        .to_string()
}

/// Checks a decided run's exit code, stdout and every file of its tree, then
/// that `quorum verdict` recomputes the same verdict, rule and exit code.
fn check_decided_tree(sandbox: &Sandbox, ran: &Ran, tree: &Tree, expect: &Expect<'_>) {
    ran.assert_code(expect.exit);

    // stdout: the summary's lead, word for word, and the pointer (RF-07, RF-09).
    let lead = summary_lead(tree);
    assert!(
        lead.contains(&format!("({}:", expect.verdict)),
        "the lead names the verdict {}: {lead}",
        expect.verdict
    );
    assert_eq!(
        ran.stdout,
        format!(
            "{lead}\n\nFull record: {}\n",
            tree.path("summary.md").display()
        ),
        "stdout is the summary lead plus the Full record line"
    );

    // proposal.md (DR-07)
    let proposal = tree.file("proposal.md");
    assert!(proposal.starts_with("# Proposal — stage 1\n"), "{proposal}");
    assert!(proposal.contains(TOPIC));
    assert!(proposal.contains("## Raw output `proposer/proposal/r1/a1`"));
    for (id, kind) in [
        ("b1", "claim"),
        ("b2", "implementation"),
        ("b3", "implementation"),
        ("b4", "fallback"),
    ] {
        assert!(
            proposal.contains(&format!("### {id} ({kind})\n\nClaim of {id}.")),
            "proposal.md shows block {id}"
        );
    }

    // critique.md: every item with its decision.
    let critique = tree.file("critique.md");
    assert!(critique.starts_with("# Critique — stage 2\n"), "{critique}");
    assert!(critique.contains("Critique mode: generous-steelman"));
    for ((id, (block, severity)), decision) in critique_ids(4)
        .iter()
        .zip([
            ("b1", "major"),
            ("b2", "minor"),
            ("b3", "note"),
            ("b4", "minor"),
        ])
        .zip(expect.decisions)
    {
        let header = format!("### {id} → {block} · risk · {severity}\n\nDecision: **");
        let at = critique
            .find(&header)
            .unwrap_or_else(|| panic!("critique.md has {header:?}:\n{critique}"));
        let rest = &critique[at + header.len()..];
        assert!(
            rest.starts_with(&format!("{}** (", decision_word(decision))),
            "{id} is {decision}: {}",
            rest.lines().next().unwrap_or_default()
        );
        assert!(rest.contains(&format!("Weakness of {block} ({severity}).")));
    }
    assert!(critique.contains("## Raw output `critic/critique/r1/a1`"));

    // revision.md: one section per round (A8).
    let revision = tree.file("revision.md");
    assert!(revision.starts_with("# Revision — stage 3\n"), "{revision}");
    for round in 1..=expect.rounds {
        assert!(
            revision.contains(&format!("## Round {round}\n")),
            "revision.md has round {round}"
        );
        assert!(revision.contains(&format!("Raw output `proposer/revision/r{round}/a1`")));
    }
    assert!(
        !revision.contains(&format!("## Round {}\n", expect.rounds + 1)),
        "no revision round {}",
        expect.rounds + 1
    );

    // judges/ (INF-05): exactly the expected files, none empty.
    assert_eq!(tree.judge_files(), expect.judge_files, "judge files");
    for file in &expect.judge_files {
        assert!(!tree.file(file).trim().is_empty(), "{file} is empty");
    }

    // debate.yaml (DR-43..46, DR-50).
    let yaml = tree.yaml();
    let meta = &yaml["meta"];
    assert_eq!(text(&meta["topic"]), TOPIC);
    assert_eq!(text(&meta["mode"]), "architecture");
    assert_eq!(text(&meta["critique_mode"]), "generous-steelman");
    assert_eq!(text(&meta["protocol"]), "decision-review");
    chrono::DateTime::parse_from_rfc3339(text(&meta["timestamp"])).expect("ISO 8601 timestamp");
    let participants = &yaml["participants"];
    assert_eq!(text(&participants["proposer"]["role"]), "oracle");
    assert_eq!(text(&participants["critic"]["role"]), "mephistopheles");
    assert_eq!(text(&participants["proposer"]["agent"]), "script:scripted");
    let judges: Vec<(&str, &str)> = list(&participants["judges"])
        .iter()
        .map(|judge| (text(&judge["role"]), text(&judge["weight"])))
        .collect();
    assert_eq!(
        judges,
        [
            ("analyst", "binding"),
            ("stylist", "advisory"),
            ("aesthete", "advisory")
        ]
    );
    let stages = &yaml["stages"];
    assert_eq!(list(&stages["proposal"]["thesis_tree"]).len(), 4);
    assert_eq!(text(&stages["proposal"]["raw_output"]), proposal_text());
    assert_eq!(text(&stages["critique"]["raw_output"]), default_critique());
    let items = list(&stages["critique"]["critiques"]);
    let decided: Vec<(&str, &str)> = items
        .iter()
        .map(|item| (text(&item["id"]), text(&item["decision"])))
        .collect();
    let expected: Vec<(&str, &str)> = ["c1", "c2", "c3", "c4"]
        .into_iter()
        .zip(expect.decisions)
        .collect();
    assert_eq!(decided, expected, "critique decisions in debate.yaml");
    let deferred: Vec<&str> = list(&yaml["deferred_items"])
        .iter()
        .map(|item| text(&item["id"]))
        .collect();
    let expected_deferred: Vec<&str> = expected
        .iter()
        .filter(|(_, decision)| *decision == "defer")
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(deferred, expected_deferred, "deferred_items");
    assert_eq!(
        list(&stages["revision"]["rounds"]).len() as u32,
        expect.rounds
    );
    assert_eq!(list(&stages["revision"]["revised_tree"]).len(), 4);
    let evaluation = &stages["evaluation"];
    assert_eq!(list(&evaluation["rounds"]).len() as u32, expect.rounds);
    assert_eq!(evaluation["round"].as_u64(), Some(u64::from(expect.rounds)));
    assert_eq!(text(&evaluation["verdict"]), expect.verdict);
    let rule = text(&evaluation["rule"]).to_string();
    assert!(rule.ends_with(&format!("→ {}", expect.verdict)), "{rule}");
    assert_eq!(text(&yaml["decision"]["decision"]), expect.verdict);
    assert_eq!(text(&yaml["decision"]["deciding_rule"]), rule);
    for field in [
        "recommendation",
        "strongest_objection",
        "what_changed",
        "remaining_uncertainty",
        "reversal_trigger",
    ] {
        assert!(
            !text(&yaml["decision"][field]).trim().is_empty(),
            "decision.{field} is filled"
        );
    }
    assert!(yaml["decision"]["surviving_blocks"].is_sequence());
    assert_eq!(text(&yaml["outcome"]["kind"]), "decided");
    assert_eq!(text(&yaml["outcome"]["verdict"]), expect.verdict);
    assert_eq!(yaml["thresholds"]["binding"].as_u64(), Some(3));

    // transcript.md (DR-42, INF-17): every call, with its id.
    let transcript = tree.file("transcript.md");
    assert!(
        transcript.starts_with(&format!("# Transcript — {TOPIC}\n")),
        "{transcript}"
    );
    assert!(transcript.contains("## Events\n"));
    for call_id in tree.started_calls() {
        assert!(
            !tree.transcript_events("call", &call_id).is_empty(),
            "transcript.md records the start of {call_id}"
        );
    }
    assert!(
        transcript.contains(&format!(
            "**verdict** — round {}: {}",
            expect.rounds, expect.verdict
        )),
        "transcript.md records the final verdict"
    );
    for line in transcript
        .lines()
        .skip_while(|line| *line != "## Events")
        .skip(2)
        .take_while(|line| !line.is_empty())
    {
        assert!(line.starts_with("- `20"), "timestamped event line: {line}");
    }

    // summary.md (RF-04, RF-16, RF-19).
    let summary = tree.file("summary.md");
    assert!(
        summary.starts_with(&format!("# {TOPIC}\n\n**")),
        "{summary}"
    );
    assert!(summary.contains("## How this was decided"));
    assert!(summary.contains(&rule));

    // journal.jsonl: the definition first, the outcome last.
    let journal = tree.journal();
    assert_eq!(journal[0]["event"]["event"], "debate_started");
    assert_eq!(
        journal[0]["event"]["definition"]["protocol"],
        "decision-review"
    );
    assert_eq!(journal[0]["event"]["definition"]["topic"], TOPIC);
    let last = journal.last().expect("journal records");
    assert_eq!(last["event"]["event"], "finished");
    assert_eq!(last["event"]["outcome"]["verdict"], expect.verdict);

    // quorum verdict recomputes the same verdict, rule and exit code (INF-06).
    let recomputed = sandbox.verdict(tree, &[]);
    recomputed.assert_code(expect.exit);
    assert_eq!(
        recomputed.stdout,
        format!("{}\n{rule}\n", expect.verdict),
        "quorum verdict on the written tree"
    );
}

fn decided(verdict: &'static str, exit: i32, judge_files: BTreeSet<String>) -> Expect<'static> {
    Expect {
        verdict,
        exit,
        rounds: 1,
        decisions: ["accept"; 4],
        judge_files,
    }
}

fn files(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|name| name.to_string()).collect()
}

/// The entry of `role` under `stages.evaluation.judges` (final round).
fn judge_status<'a>(yaml: &'a Value, role: &str) -> &'a Value {
    list(&yaml["stages"]["evaluation"]["judges"])
        .iter()
        .find(|judge| text(&judge["role"]) == role)
        .unwrap_or_else(|| panic!("no status for {role}"))
}

fn stylist_config() -> quorum::protocol::decision_review::model::JudgeConfig {
    judge_config(JudgeRole::Stylist, false)
}

// ---- the scenarios of issue 2 ----------------------------------------------------------

/// DR-01, DR-03, DR-07, DR-41..46, INF-05, RF-07, RF-09: the ADOPT path
/// writes every file of the tree, judges verbatim, and `quorum verdict` agrees.
#[test]
fn dr_41_adopt_path_writes_the_whole_tree_and_verdict_agrees() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run(
        &spec(ScriptBuilder::adopt_path()),
        &["--moderation", "accept"],
    );
    check_decided_tree(&sandbox, &ran, &tree, &Expect::adopt());

    // The run folder is {topic-slug}-{YYYYMMDD-HHMMSS} (DR-41, A9).
    let name = tree.dir.file_name().unwrap().to_string_lossy().into_owned();
    let stamp = name
        .strip_prefix("should-we-adopt-the-fixture-plan-")
        .unwrap_or_else(|| panic!("slugged folder name: {name}"));
    assert_eq!(stamp.len(), 15, "{stamp}");
    assert!(stamp.chars().enumerate().all(|(index, c)| if index == 8 {
        c == '-'
    } else {
        c.is_ascii_digit()
    }));

    // Judge files hold the raw answers verbatim (INF-02).
    for role in [JudgeRole::Analyst, JudgeRole::Stylist, JudgeRole::Aesthete] {
        assert_eq!(
            tree.file(&judge_file(role.as_str(), 1)),
            support::flat_judge_text(role, 4)
        );
    }

    // Stages strictly in order, then the three judges all at once (DR-01..04).
    let started = tree.started_calls();
    assert_eq!(
        started[..3],
        [
            "proposer/proposal/r1/a1",
            "critic/critique/r1/a1",
            "proposer/revision/r1/a1"
        ]
    );
    let judges: BTreeSet<&str> = started[3..].iter().map(String::as_str).collect();
    assert_eq!(
        judges,
        BTreeSet::from([
            "judge.analyst/evaluation/r1/a1",
            "judge.stylist/evaluation/r1/a1",
            "judge.aesthete/evaluation/r1/a1"
        ])
    );
    let journal = tree.journal();
    let first_judge_done = journal
        .iter()
        .position(|record| {
            record["event"]["input"]["type"] == "call_finished"
                && record["event"]["input"]["call_id"]
                    .as_str()
                    .unwrap()
                    .starts_with("judge.")
        })
        .expect("a judge finished");
    let judge_starts: Vec<usize> = journal
        .iter()
        .enumerate()
        .filter(|(_, record)| {
            record["event"]["event"] == "call_started"
                && record["event"]["role"]
                    .as_str()
                    .unwrap()
                    .starts_with("judge.")
        })
        .map(|(index, _)| index)
        .collect();
    assert_eq!(judge_starts.len(), 3);
    assert!(
        judge_starts.iter().all(|start| *start < first_judge_done),
        "every judge was started before the first one finished (DR-03)"
    );

    // Every score is recorded, recomputed, with the quorum (DR-45, INF-18).
    let yaml = tree.yaml();
    let evaluation = &yaml["stages"]["evaluation"];
    assert_eq!(list(&evaluation["block_scores"]).len(), 4 * (3 + 2 + 1));
    assert_eq!(list(&evaluation["synthesis_scores"]).len(), 3);
    assert_eq!(evaluation["quorum"]["present"].as_u64(), Some(3));
    assert_eq!(evaluation["quorum"]["met"].as_bool(), Some(true));
    for role in PANEL {
        let status = judge_status(&yaml, role);
        assert_eq!(text(&status["status"]), "scored");
        assert_eq!(text(&status["file"]), judge_file(role, 1));
    }
    assert_eq!(
        list(&yaml["decision"]["surviving_blocks"])
            .iter()
            .map(text)
            .collect::<Vec<_>>(),
        ["b1", "b2", "b3", "b4"]
    );
}

/// DR-39, A8, INF-05: REVISE goes back to the revision with the binding
/// judge's directive; round 2 writes `-round-2` judge files and revision.md
/// gets a second section; the final verdict is ADOPT.
#[test]
fn dr_39_revise_then_adopt_writes_round_two_files() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run(&spec(revise_then_adopt()), &["--moderation", "accept"]);
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &Expect {
            rounds: 2,
            judge_files: judge_files(&PANEL, 2),
            ..Expect::adopt()
        },
    );

    assert_eq!(
        tree.file("judges/judge-analyst.md"),
        analyst_text(&[("b2", Criterion::Feasibility, 2)])
    );
    assert_eq!(
        tree.file("judges/judge-analyst-round-2.md"),
        support::flat_judge_text(JudgeRole::Analyst, 4)
    );

    let revision = tree.file("revision.md");
    let round_2 = &revision[revision.find("## Round 2\n").unwrap()..];
    let round_1 =
        &revision[revision.find("## Round 1\n").unwrap()..revision.find("## Round 2\n").unwrap()];
    assert!(
        round_1.contains("Had to address: c1, c2, c3, c4"),
        "{round_1}"
    );
    assert!(round_2.contains("Had to address: d1"), "{round_2}");
    assert!(
        round_2.contains("- Directive d1 (analyst on b2 feasibility (2)): "),
        "{round_2}"
    );

    let yaml = tree.yaml();
    let rounds = list(&yaml["stages"]["evaluation"]["rounds"]);
    assert_eq!(text(&rounds[0]["verdict"]), "REVISE");
    assert_eq!(
        text(&rounds[0]["rule"]),
        "analyst scored b2 feasibility 2 < 3 → REVISE"
    );
    assert_eq!(text(&rounds[1]["verdict"]), "ADOPT");
    let revisions = list(&yaml["stages"]["revision"]["rounds"]);
    assert_eq!(
        list(&revisions[1]["must_address"])
            .iter()
            .map(text)
            .collect::<Vec<_>>(),
        ["d1"]
    );
    assert_eq!(text(&revisions[1]["directives"][0]["id"]), "d1");
    assert!(
        tree.started_calls()
            .iter()
            .filter(|id| id.contains("/r2/"))
            .count()
            == 4,
        "round 2 ran the revision and three judges, and nothing else (no new critique)"
    );
    let transcript = tree.file("transcript.md");
    assert!(
        transcript.contains(
            "**verdict** — round 1: REVISE — analyst scored b2 feasibility 2 < 3 → REVISE"
        )
    );
}

/// A8, DR-32: once the allowed revise loops are used, REVISE is final: exit 3.
#[test]
fn a8_revise_is_final_when_no_loop_is_left() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run(
        &spec(revise_then_adopt()),
        &["--moderation", "accept", "--max-rounds", "0"],
    );
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &decided("REVISE", 3, judge_files(&PANEL, 1)),
    );
    assert!(
        tree.file("transcript.md")
            .contains("REVISE is final: 0 revision loops allowed and used")
    );
}

/// DR-31, DR-38: a risk score of 1 is a dealbreaker: REJECT, exit 4, and no
/// second round.
#[test]
fn dr_38_dealbreaker_rejects_without_a_second_round() {
    let sandbox = Sandbox::new();
    let builder = ScriptBuilder::adopt_path().reply(
        "judge.analyst",
        "evaluation",
        Some(1),
        None,
        &analyst_text(&[("b3", Criterion::Risk, 1)]),
    );
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept"]);
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &decided("REJECT", 4, judge_files(&PANEL, 1)),
    );
    let yaml = tree.yaml();
    let rule = text(&yaml["stages"]["evaluation"]["rule"]);
    assert!(rule.contains("b3") && rule.contains("risk"), "{rule}");
    assert!(
        tree.started_calls().iter().all(|id| id.contains("/r1/")),
        "no call after the REJECT: {:?}",
        tree.started_calls()
    );
    assert!(
        ran.stdout.starts_with("**Do not proceed (REJECT:"),
        "{}",
        ran.stdout
    );
}

/// DR-34, DR-40, A4: a judge that flags insufficient information makes the
/// verdict ESCALATE (exit 5), with no loop.
#[test]
fn dr_34_insufficient_information_escalates() {
    let sandbox = Sandbox::new();
    let stylist =
        with_insufficient_information(&judge_text(&stylist_config(), |_, _| 4, [4, 4, 4]), &["b3"]);
    let builder =
        ScriptBuilder::adopt_path().reply("judge.stylist", "evaluation", Some(1), None, &stylist);
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept"]);
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &decided("ESCALATE", 5, judge_files(&PANEL, 1)),
    );
    let yaml = tree.yaml();
    let uncertainty = list(&yaml["stages"]["evaluation"]["uncertainty"]);
    assert!(
        uncertainty
            .iter()
            .any(|reason| text(reason).contains("stylist") && text(reason).contains("b3")),
        "{uncertainty:?}"
    );
    assert!(text(&yaml["decision"]["remaining_uncertainty"]).contains("b3"));
    assert!(tree.started_calls().iter().all(|id| id.contains("/r1/")));
}

/// INF-12..17, INF-18: a judge that times out is cancelled, retried once with
/// the same prompt, times out again and is skipped; 2 of 3 judges keep the
/// quorum, and every step is in transcript.md with its call id.
#[test]
fn inf_13_timed_out_judge_is_retried_then_skipped_and_quorum_holds() {
    let sandbox = Sandbox::new();
    let builder = ScriptBuilder::adopt_path()
        .fault("judge.stylist", "evaluation", Some(1), Some(1), "timeout")
        .fault("judge.stylist", "evaluation", Some(1), Some(2), "timeout");
    let mut spec = spec(builder);
    spec.agents.insert(
        "judge.stylist".to_string(),
        AgentSpec::Full(AgentDetail {
            provider: "script".to_string(),
            model: None,
            timeout_secs: Some(0.3),
            idle_timeout_secs: None,
            max_retries: None,
            family: None,
        }),
    );
    let (ran, tree) = sandbox.run(&spec, &["--moderation", "accept"]);
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &decided(
            "ADOPT",
            0,
            files(&["judges/judge-aesthete.md", "judges/judge-analyst.md"]),
        ),
    );

    let (a1, a2) = (
        "judge.stylist/evaluation/r1/a1",
        "judge.stylist/evaluation/r1/a2",
    );
    for (label, call_id) in [
        ("TIMEOUT", a1),
        ("CANCEL", a1),
        ("RETRY", a1),
        ("call", a2),
        ("TIMEOUT", a2),
        ("CANCEL", a2),
        ("SKIP", a2),
    ] {
        let lines = tree.transcript_events(label, call_id);
        assert_eq!(lines.len(), 1, "one {label} line for {call_id}");
        assert!(lines[0].starts_with("- `20"), "timestamped: {}", lines[0]);
    }
    let transcript = tree.file("transcript.md");
    let position = |needle: &str| {
        transcript
            .find(needle)
            .unwrap_or_else(|| panic!("{needle}"))
    };
    assert!(position(&format!("**TIMEOUT** `{a1}`")) < position(&format!("**RETRY** `{a1}`")));
    assert!(position(&format!("**RETRY** `{a1}`")) < position(&format!("**call** `{a2}`")));
    assert!(position(&format!("**call** `{a2}`")) < position(&format!("**SKIP** `{a2}`")));
    assert!(
        tree.transcript_events("TIMEOUT", a1)[0].contains("within 0.3 s"),
        "the role's own deadline applies"
    );
    assert!(
        !tree.started_calls().iter().any(|id| id.ends_with("/a3")),
        "never a second retry (INF-14)"
    );

    // The retry used the byte-identical prompt, as the journal records it.
    let journal = tree.journal();
    let prompt = |call_id: &str| {
        journal
            .iter()
            .find(|record| record["event"]["call_id"] == call_id)
            .map(|record| record["event"]["prompt"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert!(!prompt(a1).is_empty());
    assert_eq!(prompt(a1), prompt(a2));

    let yaml = tree.yaml();
    let stylist = judge_status(&yaml, "stylist");
    assert_eq!(text(&stylist["status"]), "skipped");
    assert!(
        text(&stylist["reason"]).contains("timed out"),
        "{stylist:?}"
    );
    assert_eq!(text(&stylist["call_id"]), a2);
    assert!(stylist["file"].is_null(), "a skipped judge has no file");
    let quorum = &yaml["stages"]["evaluation"]["quorum"];
    assert_eq!(quorum["present"].as_u64(), Some(2));
    assert_eq!(quorum["required"].as_u64(), Some(2));
    assert_eq!(quorum["met"].as_bool(), Some(true));
}

/// INF-18, INF-19, A7: with two judges failing twice, the quorum is lost;
/// the run still reaches a verdict, but never ADOPT.
#[test]
fn inf_19_quorum_lost_never_adopts() {
    let sandbox = Sandbox::new();
    let mut builder = ScriptBuilder::adopt_path();
    for role in ["judge.stylist", "judge.aesthete"] {
        for attempt in [1, 2] {
            builder = builder.fault(role, "evaluation", Some(1), Some(attempt), "error");
        }
    }
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept"]);
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &decided("ESCALATE", 5, files(&["judges/judge-analyst.md"])),
    );
    for role in ["stylist", "aesthete"] {
        let a1 = format!("judge.{role}/evaluation/r1/a1");
        let a2 = format!("judge.{role}/evaluation/r1/a2");
        assert_eq!(tree.transcript_events("FAILURE", &a1).len(), 1);
        assert_eq!(tree.transcript_events("RETRY", &a1).len(), 1);
        assert_eq!(tree.transcript_events("FAILURE", &a2).len(), 1);
        assert_eq!(tree.transcript_events("SKIP", &a2).len(), 1);
    }
    let yaml = tree.yaml();
    let quorum = &yaml["stages"]["evaluation"]["quorum"];
    assert_eq!(quorum["present"].as_u64(), Some(1));
    assert_eq!(quorum["met"].as_bool(), Some(false));
    assert!(tree.file("transcript.md").contains("quorum shortfall"));
}

/// INF-07..10: a malformed judge answer is persisted behind the MALFORMED
/// marker, noted in the transcript, never retried, and left out of the
/// verdict. Counted, its scores would have changed the verdict.
#[test]
fn inf_08_malformed_judge_is_persisted_marked_and_excluded() {
    let sandbox = Sandbox::new();
    // All ones (far from the others: counted, that would escalate), but a 9
    // makes it unusable.
    let counted = judge_text(&stylist_config(), |_, _| 1, [1, 1, 1]);
    let raw = counted.replacen("score: 1", "score: 9", 1);
    let builder =
        ScriptBuilder::adopt_path().reply("judge.stylist", "evaluation", Some(1), None, &raw);
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept"]);
    check_decided_tree(&sandbox, &ran, &tree, &Expect::adopt());

    let file = tree.file("judges/judge-stylist.md");
    let (marker, rest) = file.split_once('\n').unwrap();
    assert!(marker.starts_with("<!-- MALFORMED: "), "{marker}");
    assert!(marker.ends_with(" -->"), "{marker}");
    assert_eq!(rest, raw, "the verbatim raw output follows the marker");
    let call = "judge.stylist/evaluation/r1/a1";
    assert_eq!(tree.transcript_events("MALFORMED", call).len(), 1);
    assert!(tree.transcript_events("RETRY", call).is_empty());
    assert!(
        !tree
            .started_calls()
            .iter()
            .any(|id| id == "judge.stylist/evaluation/r1/a2"),
        "malformed output is never retried (INF-10)"
    );

    let yaml = tree.yaml();
    let evaluation = &yaml["stages"]["evaluation"];
    assert!(
        list(&evaluation["block_scores"])
            .iter()
            .all(|score| text(&score["judge"]) != "stylist")
    );
    assert_eq!(list(&evaluation["synthesis_scores"]).len(), 2);
    assert_eq!(evaluation["quorum"]["present"].as_u64(), Some(2));
    assert_eq!(text(&judge_status(&yaml, "stylist")["status"]), "malformed");

    // The same scores, made valid, do count and escalate (judges 3 points apart).
    std::fs::write(tree.path("judges/judge-stylist.md"), &counted).unwrap();
    let recounted = sandbox.verdict(&tree, &[]);
    recounted.assert_code(5);
    assert!(
        recounted.stdout.starts_with("ESCALATE\n"),
        "{}",
        recounted.stdout
    );
}

/// INF-20, DR-37, A18: the binding analyst fails twice and is skipped; the
/// verdict cannot be ADOPT.
#[test]
fn inf_20_missing_binding_judge_never_adopts() {
    let sandbox = Sandbox::new();
    let builder = ScriptBuilder::adopt_path()
        .fault("judge.analyst", "evaluation", Some(1), Some(1), "error")
        .fault("judge.analyst", "evaluation", Some(1), Some(2), "error");
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept"]);
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &decided(
            "ESCALATE",
            5,
            files(&["judges/judge-aesthete.md", "judges/judge-stylist.md"]),
        ),
    );
    let yaml = tree.yaml();
    assert!(text(&yaml["stages"]["evaluation"]["rule"]).contains("analyst"));
    assert_eq!(text(&judge_status(&yaml, "analyst")["status"]), "skipped");
    assert!(
        tree.transcript_events("SKIP", "judge.analyst/evaluation/r1/a2")
            .len()
            == 1
    );
}

/// INF-07, INF-20, A7: a binding judge whose answer is malformed counts as
/// missing; its file keeps the unparseable answer behind the marker.
#[test]
fn inf_20_malformed_binding_judge_counts_as_missing() {
    let sandbox = Sandbox::new();
    let builder = ScriptBuilder::adopt_path().fault(
        "judge.analyst",
        "evaluation",
        Some(1),
        None,
        "malformed",
    );
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept"]);
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &decided("ESCALATE", 5, judge_files(&PANEL, 1)),
    );
    let file = tree.file("judges/judge-analyst.md");
    let (marker, rest) = file.split_once('\n').unwrap();
    assert!(marker.starts_with("<!-- MALFORMED: ") && marker.ends_with(" -->"));
    assert_eq!(rest, MALFORMED_RAMBLE);
    assert_eq!(
        text(&judge_status(&tree.yaml(), "analyst")["status"]),
        "malformed"
    );
}

/// Moderation: `--moderation defer` leaves every item open; they are listed
/// in debate.yaml and revision.md, and the revision still happens (DR-05).
#[test]
fn dr_05_all_items_deferred_still_revises() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run(
        &spec(ScriptBuilder::adopt_path()),
        &["--moderation", "defer"],
    );
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &Expect {
            decisions: ["defer"; 4],
            ..Expect::adopt()
        },
    );
    let revision = tree.file("revision.md");
    assert!(revision.contains("Deferred items, still open: c1, c2, c3, c4"));
    assert!(!revision.contains("Had to address"), "{revision}");
    let yaml = tree.yaml();
    assert!(list(&yaml["stages"]["revision"]["rounds"][0]["must_address"]).is_empty());
    let uncertainty = text(&yaml["decision"]["remaining_uncertainty"]);
    for id in ["c1", "c2", "c3", "c4"] {
        assert!(
            uncertainty.contains(&format!("deferred {id}")),
            "{uncertainty}"
        );
    }
    assert!(
        tree.file("transcript.md")
            .contains("moderation submitted: 0 accepted, 0 rejected, 4 deferred")
    );
}

/// Moderation: `--moderation reject` rejects every item; nothing is sent to
/// the revision as a must-address item, nothing is deferred.
#[test]
fn dr_15_all_items_rejected() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run(
        &spec(ScriptBuilder::adopt_path()),
        &["--moderation", "reject"],
    );
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &Expect {
            decisions: ["reject"; 4],
            ..Expect::adopt()
        },
    );
    let revision = tree.file("revision.md");
    assert!(!revision.contains("Had to address"), "{revision}");
    assert!(!revision.contains("Deferred items"), "{revision}");
    assert!(list(&tree.yaml()["stages"]["revision"]["rounds"][0]["must_address"]).is_empty());
    assert!(
        tree.file("transcript.md")
            .contains("moderation submitted: 0 accepted, 4 rejected, 0 deferred")
    );
}

/// `--moderation ask` reads one decision per item from stdin, with optional
/// notes (an unreadable line is asked again); the notes land in critique.md
/// and debate.yaml.
#[test]
fn moderation_ask_reads_decisions_and_notes_from_stdin() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run_with_stdin(
        &spec(ScriptBuilder::adopt_path()),
        &["--moderation", "ask"],
        Some("maybe\naccept\nreject: wrong premise\ndefer\nd: ask finance\n"),
    );
    check_decided_tree(
        &sandbox,
        &ran,
        &tree,
        &Expect {
            decisions: ["accept", "reject", "defer", "defer"],
            ..Expect::adopt()
        },
    );
    let critique = tree.file("critique.md");
    assert!(
        critique.contains(") — moderator's note: wrong premise\n"),
        "{critique}"
    );
    assert!(
        critique.contains(") — moderator's note: ask finance\n"),
        "{critique}"
    );
    let yaml = tree.yaml();
    let items = list(&yaml["stages"]["critique"]["critiques"]);
    let notes: Vec<Option<&str>> = items.iter().map(|item| item["note"].as_str()).collect();
    assert_eq!(
        notes,
        [None, Some("wrong premise"), None, Some("ask finance")]
    );
    assert_eq!(text(&yaml["deferred_items"][1]["note"]), "ask finance");
    let must_address: Vec<&str> = list(&yaml["stages"]["revision"]["rounds"][0]["must_address"])
        .iter()
        .map(text)
        .collect();
    assert_eq!(must_address, ["c1"]);
    assert!(
        tree.file("revision.md")
            .contains("Deferred items, still open: c3, c4")
    );
    assert!(
        tree.file("transcript.md")
            .contains("c2 rejected: wrong premise")
    );
    assert!(
        ran.stderr.contains("decision>"),
        "the items are asked on stderr"
    );
    assert!(
        ran.stderr.contains("please answer accept, reject or defer"),
        "an unreadable answer is asked again: {}",
        ran.stderr
    );
    // The moderation's own log lines wait until the last answer: none lands
    // between two questions.
    let last_question = ran.stderr.rfind("decision>").unwrap();
    let first_decision_line = ran.stderr.find("c1 accepted").unwrap();
    assert!(
        first_decision_line > last_question,
        "progress lines held while asking:\n{}",
        ran.stderr
    );
}

/// `--moderation ask` with stdin closed before every item is decided stops
/// with a clear error and exit 1; no verdict is printed.
#[test]
fn moderation_ask_with_stdin_closed_early_fails_clearly() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run_with_stdin(
        &spec(ScriptBuilder::adopt_path()),
        &["--moderation", "ask"],
        Some("accept\n"),
    );
    ran.assert_code(1);
    assert!(
        ran.stderr
            .contains("stdin closed before every item was decided (undecided: c2, c3, c4)"),
        "{}",
        ran.stderr
    );
    assert!(ran.stdout.is_empty(), "{}", ran.stdout);
    assert!(
        !tree.exists("revision.md"),
        "no revision without a full moderation"
    );
    assert!(tree.judge_files().is_empty());
    for record in tree.journal() {
        assert_ne!(record["event"]["event"], "finished");
    }
}

/// A18: a required agent (the proposer) failing twice stops the run with
/// exit 1 and a recorded failure, never a fabricated verdict.
#[test]
fn a18_failing_proposer_stops_the_run_without_a_verdict() {
    let sandbox = Sandbox::new();
    let builder = ScriptBuilder::adopt_path()
        .fault("proposer", "proposal", Some(1), Some(1), "error")
        .fault("proposer", "proposal", Some(1), Some(2), "error");
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept"]);
    ran.assert_code(1);
    let lead = summary_lead(&tree);
    assert!(lead.starts_with("**No decision.**"), "{lead}");
    assert_eq!(
        ran.stdout,
        format!(
            "{lead}\n\nFull record: {}\n",
            tree.path("summary.md").display()
        )
    );
    let yaml = tree.yaml();
    assert!(yaml["decision"].is_null(), "no decision record");
    assert_eq!(text(&yaml["outcome"]["kind"]), "failed");
    assert!(text(&yaml["outcome"]["reason"]).contains("503 overloaded"));
    assert_eq!(
        tree.transcript_events("SKIP", "proposer/proposal/r1/a2")
            .len(),
        1
    );
    assert!(!tree.exists("critique.md"));
    assert_eq!(
        tree.journal().last().unwrap()["event"]["outcome"]["kind"],
        "failed"
    );
    let recomputed = sandbox.verdict(&tree, &[]);
    recomputed.assert_code(1);
    assert!(
        recomputed
            .stderr
            .contains("failed before it reached a verdict")
            && recomputed.stderr.contains("503 overloaded"),
        "{}",
        recomputed.stderr
    );
}

// ---- quorum verdict on edited trees ----------------------------------------------------

/// INF-04, INF-06: `quorum verdict` parses the judge files again, so lowering
/// an analyst score in the final round's file turns ADOPT into REVISE.
#[test]
fn inf_04_editing_a_judge_file_changes_the_recomputed_verdict() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run(&spec(revise_then_adopt()), &["--moderation", "accept"]);
    ran.assert_code(0);
    let before = sandbox.verdict(&tree, &[]);
    before.assert_code(0);
    assert!(before.stdout.starts_with("ADOPT\n"));

    let file = "judges/judge-analyst-round-2.md";
    let edited = tree.file(file).replacen("score: 4", "score: 2", 1);
    std::fs::write(tree.path(file), edited).unwrap();
    let after = sandbox.verdict(&tree, &[]);
    after.assert_code(3);
    assert_eq!(
        after.stdout,
        "REVISE\nanalyst scored b1 correctness 2 < 3 → REVISE\n"
    );
    // The round-1 file is not the one that counts.
    std::fs::write(
        tree.path("judges/judge-analyst-round-2.md"),
        support::flat_judge_text(JudgeRole::Analyst, 4),
    )
    .unwrap();
    std::fs::write(tree.path("judges/judge-analyst.md"), "garbage").unwrap();
    sandbox.verdict(&tree, &[]).assert_code(0);
}

/// INF-07, INF-20: a judge file replaced with garbage counts as malformed:
/// an advisory judge drops out of the quorum, the binding one blocks ADOPT.
#[test]
fn inf_07_garbage_judge_file_counts_as_malformed() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run(
        &spec(ScriptBuilder::adopt_path()),
        &["--moderation", "accept"],
    );
    ran.assert_code(0);

    std::fs::write(
        tree.path("judges/judge-stylist.md"),
        "garbage, not scores\n",
    )
    .unwrap();
    let stylist = sandbox.verdict(&tree, &["--json"]);
    stylist.assert_code(0);
    let assessment: Json = serde_json::from_str(&stylist.stdout).expect("one JSON object");
    assert_eq!(assessment["verdict"], "ADOPT");
    assert_eq!(assessment["quorum"]["present"], 2);
    assert_eq!(assessment["missing_judges"][0]["role"], "stylist");
    assert_eq!(assessment["missing_judges"][0]["status"], "malformed");

    std::fs::write(
        tree.path("judges/judge-analyst.md"),
        "```yaml\nblock_scores: [\n```\n",
    )
    .unwrap();
    let analyst = sandbox.verdict(&tree, &[]);
    analyst.assert_code(5);
    assert!(
        analyst.stdout.starts_with("ESCALATE\n"),
        "{}",
        analyst.stdout
    );
}

// ---- bad input: exit 2, located, nothing written ------------------------------------------

/// Runs `quorum run` on `yaml` and checks exit 2, that stderr names
/// `needles`, and that the artifact root was not created.
fn refused(sandbox: &Sandbox, yaml: &str, extra: &[&str]) -> Ran {
    let spec_path = sandbox.write("spec.yaml", yaml);
    let out = sandbox.out();
    let mut args = vec![
        "run",
        spec_path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--headless",
    ];
    args.extend_from_slice(extra);
    let ran = sandbox.quorum(&args, &[]);
    ran.assert_code(2);
    assert!(ran.stdout.is_empty(), "{}", ran.stdout);
    assert!(!out.exists(), "nothing is written for a bad invocation");
    ran
}

fn spec_location(sandbox: &Sandbox, line: usize) -> String {
    format!("{}:{line}", sandbox.path().join("spec.yaml").display())
}

/// Issue 2 §9: an unknown spec field → exit 2, `file:line` and the field on
/// stderr, no artifact root.
#[test]
fn bad_spec_unknown_field_is_located_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let yaml = spec_yaml(&spec(ScriptBuilder::adopt_path())) + "rounds: 3\n";
    let line = line_of(&yaml, "rounds:");
    let ran = refused(&sandbox, &yaml, &[]);
    assert!(
        ran.stderr.contains(&spec_location(&sandbox, line)),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("rounds"), "{}", ran.stderr);
}

/// Issue 2 §9: a bad enum value (`critique: harsh`) → exit 2, located.
#[test]
fn bad_spec_enum_value_is_located_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let yaml = spec_yaml(&spec(ScriptBuilder::adopt_path()).with_option("critique", "harsh"));
    let line = line_of(&yaml, "critique: harsh");
    let ran = refused(&sandbox, &yaml, &[]);
    assert!(
        ran.stderr.contains(&spec_location(&sandbox, line)),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("critique"), "{}", ran.stderr);
    assert!(ran.stderr.contains("harsh"), "{}", ran.stderr);
}

/// Issue 2 §9, INF-21: an unknown role under `agents:` → exit 2, located.
#[test]
fn bad_spec_unknown_role_is_located_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let mut spec = spec(ScriptBuilder::adopt_path());
    spec.agents.insert(
        "judge.poet".to_string(),
        AgentSpec::Short("script".to_string()),
    );
    let yaml = spec_yaml(&spec);
    let line = line_of(&yaml, "judge.poet:");
    let ran = refused(&sandbox, &yaml, &[]);
    assert!(
        ran.stderr.contains(&spec_location(&sandbox, line)),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("agents.judge.poet"), "{}", ran.stderr);
}

/// Issue 2 §9: a context file that does not exist → exit 2, located at its
/// list item, naming the file.
#[test]
fn bad_spec_missing_context_file_is_located_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let mut spec = spec(ScriptBuilder::adopt_path());
    spec.context = vec![ContextSpec {
        name: None,
        text: None,
        path: Some(PathBuf::from("missing-context.md")),
    }];
    let yaml = spec_yaml(&spec);
    let line = line_of(&yaml, "- path: missing-context.md");
    let ran = refused(&sandbox, &yaml, &[]);
    assert!(
        ran.stderr.contains(&spec_location(&sandbox, line)),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("context[0]"), "{}", ran.stderr);
    assert!(ran.stderr.contains("missing-context.md"), "{}", ran.stderr);
}

/// Issue 2 §9: bad `--agent` flags (unknown role, no `=`, unknown provider)
/// → exit 2, naming the flag or the role, nothing written.
#[test]
fn bad_agent_flags_are_named_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let yaml = spec_yaml(&spec(ScriptBuilder::adopt_path()));
    for (flag, needles) in [
        ("judge.poet=script", ["--agent", "judge.poet"]),
        ("no-equals-sign", ["--agent", "ROLE=PROVIDER"]),
        ("proposer=openai", ["--agent", "openai"]),
    ] {
        let ran = refused(&sandbox, &yaml, &["--agent", flag]);
        for needle in needles {
            assert!(
                ran.stderr.contains(needle),
                "--agent {flag}: {}",
                ran.stderr
            );
        }
    }
}

/// Issue 2 §9: `--speed 0` → exit 2 for `run` and `demo`, nothing written.
#[test]
fn zero_speed_is_refused_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let yaml = spec_yaml(&spec(ScriptBuilder::adopt_path()));
    let ran = refused(&sandbox, &yaml, &["--speed", "0"]);
    assert!(ran.stderr.contains("--speed"), "{}", ran.stderr);
    // The demo too.
    let out = sandbox.out();
    let demo = sandbox.quorum(
        &[
            "demo",
            "--headless",
            "--speed",
            "0",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    demo.assert_code(2);
    assert!(!out.exists());
}

// ---- the demo ----------------------------------------------------------------------------

/// Runs `quorum demo --headless --speed SPEED` and returns the run and its tree.
fn demo(sandbox: &Sandbox, speed: &str) -> (Ran, Tree) {
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--headless",
            "--speed",
            speed,
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let tree = Tree::only_run_in(&out, &ran);
    (ran, tree)
}

/// Issue 2, "Done means": `quorum demo --headless --speed 50` finishes with
/// exit 0 and a complete two-round tree that `quorum verdict` agrees with.
#[test]
fn demo_headless_writes_a_complete_two_round_tree() {
    let sandbox = Sandbox::new();
    let (ran, tree) = demo(&sandbox, "50");
    for file in [
        "proposal.md",
        "critique.md",
        "revision.md",
        "debate.yaml",
        "transcript.md",
        "summary.md",
        "journal.jsonl",
    ] {
        assert!(!tree.file(file).trim().is_empty(), "{file}");
    }
    assert_eq!(tree.judge_files(), judge_files(&PANEL, 2));
    assert!(!tree.file("transcript.md").contains("**SKIP**"));
    let revision = tree.file("revision.md");
    assert!(revision.contains("## Round 1\n") && revision.contains("## Round 2\n"));
    assert!(tree.file("critique.md").contains("Decision: **ACCEPTED**"));
    // The scripted timeout of the aesthete's first attempt, and its retry.
    assert_eq!(
        tree.transcript_events("TIMEOUT", "judge.aesthete/evaluation/r1/a1")
            .len(),
        1
    );
    assert_eq!(
        tree.transcript_events("RETRY", "judge.aesthete/evaluation/r1/a1")
            .len(),
        1
    );
    let yaml = tree.yaml();
    assert_eq!(list(&yaml["stages"]["evaluation"]["rounds"]).len(), 2);
    assert_eq!(
        text(&yaml["stages"]["evaluation"]["rounds"][0]["verdict"]),
        "REVISE"
    );
    assert_eq!(text(&yaml["decision"]["decision"]), "ADOPT");
    assert!(tree.journal().len() > 10);
    let lead = summary_lead(&tree);
    assert_eq!(
        ran.stdout,
        format!(
            "{lead}\n\nFull record: {}\n",
            tree.path("summary.md").display()
        )
    );
    let recomputed = sandbox.verdict(&tree, &[]);
    recomputed.assert_code(0);
    assert!(recomputed.stdout.starts_with("ADOPT\n"));
}

/// `--speed` is a pace multiplier for scripted agents: it must not change
/// the debate. At `--speed 200` the demo still writes three judge files per
/// round and skips nobody.
#[test]
fn demo_speed_changes_nothing_but_the_pace() {
    let sandbox = Sandbox::new();
    let (_ran, tree) = demo(&sandbox, "200");
    assert_eq!(tree.judge_files(), judge_files(&PANEL, 2));
    assert!(
        !tree.file("transcript.md").contains("**SKIP**"),
        "nobody is skipped at --speed 200"
    );
}

/// `quorum demo --export-script F` writes the demo's spec once (never over
/// an existing file: exit 2), and `quorum run F` reaches the same verdict.
#[test]
fn demo_export_script_writes_once_and_runs_to_the_same_verdict() {
    let sandbox = Sandbox::new();
    let exported = sandbox.path().join("demo.yaml");
    let ran = sandbox.quorum(
        &["demo", "--export-script", exported.to_str().unwrap()],
        &[],
    );
    ran.assert_code(0);
    let text_written = std::fs::read_to_string(&exported).unwrap();
    assert_eq!(
        text_written,
        quorum::protocol::decision_review::kind::DEMO_SPEC
    );
    quorum::spec::parse(&exported, &text_written).expect("the export is a valid spec");

    let again = sandbox.quorum(
        &["demo", "--export-script", exported.to_str().unwrap()],
        &[],
    );
    again.assert_code(2);
    assert!(
        again.stderr.contains("never overwritten"),
        "{}",
        again.stderr
    );
    let kept = sandbox.write("kept.yaml", "keep me\n");
    sandbox
        .quorum(&["demo", "--export-script", kept.to_str().unwrap()], &[])
        .assert_code(2);
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "keep me\n");

    let out = sandbox.out();
    let run = sandbox.quorum(
        &[
            "run",
            exported.to_str().unwrap(),
            "--speed",
            "50",
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    run.assert_code(0);
    let tree = Tree::only_run_in(&out, &run);
    assert!(
        run.stdout.starts_with("**Go ahead (ADOPT:"),
        "{}",
        run.stdout
    );
    assert_eq!(text(&tree.yaml()["decision"]["decision"]), "ADOPT");
}

// ---- output formats, slugs, help ------------------------------------------------------------

/// `--json` prints one JSON object with verdict, rule, run_dir and exit_code.
#[test]
fn json_prints_one_object_with_the_result() {
    let sandbox = Sandbox::new();
    let builder = ScriptBuilder::adopt_path()
        .fault("judge.analyst", "evaluation", Some(1), Some(1), "error")
        .fault("judge.analyst", "evaluation", Some(1), Some(2), "error");
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept", "--json"]);
    ran.assert_code(5);
    let result: Json = serde_json::from_str(&ran.stdout).expect("stdout is one JSON object");
    assert!(result.is_object());
    assert_eq!(result["verdict"], "ESCALATE");
    assert_eq!(result["exit_code"], 5);
    assert_eq!(
        result["rule"].as_str().unwrap(),
        text(&tree.yaml()["stages"]["evaluation"]["rule"])
    );
    assert_eq!(
        result["run_dir"].as_str().unwrap(),
        tree.dir.to_str().unwrap()
    );
    assert_eq!(result["summary"].as_str().unwrap(), summary_lead(&tree));
}

/// The slug cannot escape the artifact root, whatever the topic says.
#[test]
fn a_topic_with_path_segments_stays_inside_out() {
    let sandbox = Sandbox::new();
    let nested_out = sandbox.path().join("a").join("b").join("out");
    let spec = scripted_spec("../../etc/passwd", ScriptBuilder::adopt_path().build());
    let spec_path = sandbox.write_spec(&spec);
    let ran = sandbox.quorum(
        &[
            "run",
            spec_path.to_str().unwrap(),
            "--out",
            nested_out.to_str().unwrap(),
            "--headless",
        ],
        &[],
    );
    ran.assert_code(0);
    let tree = Tree::only_run_in(&nested_out, &ran);
    assert_eq!(
        tree.dir.parent().unwrap().canonicalize().unwrap(),
        nested_out.canonicalize().unwrap()
    );
    let name = tree.dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("etc-passwd-"), "{name}");
    // `data/` is the sandbox's XDG data dir, where the library (issue 55)
    // lives: quorum's own file, never a debate's.
    let mut top: Vec<String> = std::fs::read_dir(sandbox.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "data")
        .collect();
    top.sort();
    assert_eq!(top, ["a", "spec.yaml"], "nothing outside --out");
    assert_eq!(
        std::fs::read_dir(sandbox.path().join("a/b"))
            .unwrap()
            .count(),
        1,
        "only out/ inside a/b"
    );
}

/// `quorum --help` documents the exit codes.
#[test]
fn help_lists_the_exit_codes() {
    let sandbox = Sandbox::new();
    let ran = sandbox.quorum(&["--help"], &[]);
    ran.assert_code(0);
    assert!(ran.stdout.contains("Exit codes:"), "{}", ran.stdout);
    for (code, word) in [
        ("0", "ADOPT"),
        ("1", "failed"),
        ("2", "usage"),
        ("3", "REVISE"),
        ("4", "REJECT"),
        ("5", "ESCALATE"),
    ] {
        assert!(
            ran.stdout
                .lines()
                .any(|line| line.trim_start().starts_with(code) && line.contains(word)),
            "exit code {code} ({word}) in --help:\n{}",
            ran.stdout
        );
    }
}

/// `text` with rationales that do not name the judge who wrote them.
fn neutral_rationales(text: &str) -> String {
    PANEL.iter().fold(text.to_string(), |text, role| {
        text.replace(
            &format!("rationale: \"{role} on "),
            "rationale: \"Judged on ",
        )
    })
}

/// RF-06, RF-08, RF-16: whatever the verdict, the end-of-run message names
/// it and carries no block ids, no judge labels and no deciding-rule
/// arithmetic (the judges' own rationales are kept free of labels here).
#[test]
fn rf_08_end_of_run_message_has_no_block_ids_or_judge_labels() {
    let low = |overrides: &[(&str, Criterion, u8)]| neutral_rationales(&analyst_text(overrides));
    let stylist_unsure =
        with_insufficient_information(&judge_text(&stylist_config(), |_, _| 4, [4, 4, 4]), &["b3"]);
    let scenarios = [
        ("ADOPT", revise_then_adopt(), vec![]),
        (
            "REVISE",
            ScriptBuilder::adopt_path().reply(
                "judge.analyst",
                "evaluation",
                Some(1),
                None,
                &low(&[("b2", Criterion::Feasibility, 2)]),
            ),
            vec!["--max-rounds", "0"],
        ),
        (
            "REJECT",
            ScriptBuilder::adopt_path().reply(
                "judge.analyst",
                "evaluation",
                Some(1),
                None,
                &low(&[("b3", Criterion::Risk, 1)]),
            ),
            vec![],
        ),
        (
            "ESCALATE",
            ScriptBuilder::adopt_path().reply(
                "judge.stylist",
                "evaluation",
                Some(1),
                None,
                &stylist_unsure,
            ),
            vec![],
        ),
    ];
    for (verdict, builder, extra) in scenarios {
        let sandbox = Sandbox::new();
        let mut args = vec!["--moderation", "accept"];
        args.extend(extra);
        let (ran, _tree) = sandbox.run(&spec(builder), &args);
        let lead = ran.stdout.split("\n\nFull record: ").next().unwrap();
        assert_eq!(lead_verdict(lead), Some(verdict), "{lead}");
        let words: BTreeSet<String> = lead
            .split(|c: char| !c.is_ascii_alphanumeric())
            .map(str::to_lowercase)
            .collect();
        for banned in ["b1", "b2", "b3", "b4", "analyst", "stylist", "aesthete"] {
            assert!(
                !words.contains(banned),
                "{verdict}: `{banned}` in the end-of-run message:\n{lead}"
            );
        }
        assert!(
            !lead.contains('→') && !lead.contains(" < "),
            "{verdict}: {lead}"
        );
    }
}

// ---- repairs and late failures ---------------------------------------------------------------

/// A malformed critic answer gets one repair call that quotes the parse
/// error; the unusable answer stays on record in critique.md.
#[test]
fn malformed_critic_answer_is_repaired_once_and_kept_on_record() {
    let sandbox = Sandbox::new();
    let builder =
        ScriptBuilder::adopt_path().fault("critic", "critique", Some(1), Some(1), "malformed");
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept"]);
    ran.assert_code(0);
    let critique = tree.file("critique.md");
    assert!(
        critique.contains("## Unusable output `critic/critique/r1/a1`"),
        "{critique}"
    );
    assert!(critique.contains("<!-- MALFORMED: "));
    assert!(critique.contains(MALFORMED_RAMBLE.lines().next().unwrap()));
    assert!(critique.contains("## Raw output `critic/critique/r1/a2`"));
    assert_eq!(
        tree.transcript_events("MALFORMED", "critic/critique/r1/a1")
            .len(),
        1
    );
    let repair = tree.transcript_events("RETRY", "critic/critique/r1/a2");
    assert_eq!(repair.len(), 1);
    assert!(repair[0].contains("repair"), "{}", repair[0]);
    assert_eq!(text(&tree.yaml()["decision"]["decision"]), "ADOPT");
    sandbox.verdict(&tree, &[]).assert_code(0);
}

/// A reviser whose answer is still malformed after the repair stops the
/// debate with a clear message and exit 1.
#[test]
fn reviser_malformed_after_repair_stops_the_debate() {
    let sandbox = Sandbox::new();
    let builder = ScriptBuilder::adopt_path()
        .fault("proposer", "revision", Some(1), Some(1), "malformed")
        .fault("proposer", "revision", Some(1), Some(2), "malformed");
    let (ran, tree) = sandbox.run(&spec(builder), &["--moderation", "accept"]);
    ran.assert_code(1);
    assert!(ran.stdout.starts_with("**No decision.**"), "{}", ran.stdout);
    let yaml = tree.yaml();
    assert_eq!(text(&yaml["outcome"]["kind"]), "failed");
    assert!(
        text(&yaml["outcome"]["reason"]).contains("even after a repair attempt"),
        "{:?}",
        yaml["outcome"]
    );
    assert!(tree.judge_files().is_empty(), "no judge ran");
    let revision = tree.file("revision.md");
    assert!(revision.contains("## Unusable output `proposer/revision/r1/a1`"));
    assert!(revision.contains("## Unusable output `proposer/revision/r1/a2`"));
    sandbox.verdict(&tree, &[]).assert_code(1);
}

/// Round 1 says REVISE, then the reviser gives no answer in round 2.
fn failing_in_round_two() -> DebateSpec {
    spec(
        revise_then_adopt()
            .fault("proposer", "revision", Some(2), Some(1), "error")
            .fault("proposer", "revision", Some(2), Some(2), "error"),
    )
}

/// The verdict word a lead names, if any: `(REVISE:` → REVISE.
fn lead_verdict(lead: &str) -> Option<&'static str> {
    ["ADOPT", "REVISE", "REJECT", "ESCALATE"]
        .into_iter()
        .find(|word| lead.contains(&format!("({word}:")))
}

/// A18, RF-07, RF-16: a run that fails in round 2 (the reviser gives no
/// answer after round 1's REVISE) exits 1 with no decision; its end-of-run
/// message, summary.md and debate.yaml must not present a verdict the exit
/// code contradicts.
#[test]
fn a18_failure_in_round_two_is_not_reported_as_a_verdict() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run(&failing_in_round_two(), &["--moderation", "accept"]);
    ran.assert_code(1);
    let yaml = tree.yaml();
    assert_eq!(text(&yaml["outcome"]["kind"]), "failed");
    assert!(
        text(&yaml["outcome"]["reason"]).contains("revision stage"),
        "{:?}",
        yaml["outcome"]
    );
    assert_eq!(
        lead_verdict(&ran.stdout),
        None,
        "exit 1 (no decision), yet the end-of-run message names a verdict:\n{}",
        ran.stdout
    );
    assert_eq!(lead_verdict(&summary_lead(&tree)), None, "summary.md");
    assert!(
        yaml["decision"].is_null(),
        "debate.yaml records a decision for a failed debate: {:?}",
        yaml["decision"]
    );
}

/// INF-06: `quorum verdict` on the tree of a run that failed in round 2
/// agrees with the live run (exit 1) instead of reviving round 1's REVISE.
#[test]
fn verdict_of_a_run_that_failed_in_round_two_agrees_with_the_live_run() {
    let sandbox = Sandbox::new();
    let (ran, tree) = sandbox.run(&failing_in_round_two(), &["--moderation", "accept"]);
    ran.assert_code(1);
    let recomputed = sandbox.verdict(&tree, &[]);
    assert_eq!(
        recomputed.code, ran.code,
        "quorum verdict disagrees with the live run:\n{}{}",
        recomputed.stdout, recomputed.stderr
    );
}

/// `quorum review TOPIC --context FILE --script FILE` with the debate flags:
/// the context reaches every prompt, the flags shape the panel and the stance,
/// and the tree records them.
#[test]
fn review_command_takes_context_script_and_debate_flags() {
    let sandbox = Sandbox::new();
    let script = yaml_serde::to_string(&ScriptBuilder::adopt_path().build()).unwrap();
    let script_path = sandbox.write("replies.yaml", &script);
    let context_path = sandbox.write(
        "billing-notes.md",
        "Invoices are rewritten in place by the proration job.",
    );
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "review",
            "Should we adopt the fixture plan?",
            "--context",
            context_path.to_str().unwrap(),
            "--script",
            script_path.to_str().unwrap(),
            "--critique",
            "strict",
            "--high-stakes",
            "--max-rounds",
            "1",
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let tree = Tree::only_run_in(&out, &ran);
    let yaml = tree.yaml();
    assert_eq!(text(&yaml["meta"]["critique_mode"]), "strict");
    assert_eq!(yaml["meta"]["max_rounds"].as_u64(), Some(1));
    assert_eq!(list(&yaml["participants"]["judges"]).len(), 5);
    assert_eq!(
        tree.judge_files(),
        judge_files(
            &["analyst", "stylist", "aesthete", "strategist", "empiricist"],
            1
        )
    );
    let prompts: Vec<String> = tree
        .journal()
        .iter()
        .filter(|record| record["event"]["event"] == "call_started")
        .map(|record| record["event"]["prompt"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        prompts.len(),
        8,
        "proposer, critic, reviser and five judges"
    );
    for prompt in &prompts {
        assert!(prompt.contains("billing-notes.md"), "{prompt}");
        assert!(
            prompt.contains("rewritten in place by the proration job"),
            "{prompt}"
        );
    }
    assert!(prompts[1].contains("CRITIQUE MODE: strict"));
}

/// `quorum review` with no agent configured fails with a clear paragraph
/// pointing at the demo, exit 2, and writes nothing.
#[test]
fn review_without_agents_points_at_the_demo() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &["review", "Should we?", "--out", out.to_str().unwrap()],
        &[],
    );
    ran.assert_code(2);
    assert!(ran.stderr.contains("quorum demo"), "{}", ran.stderr);
    assert!(!out.exists());
}

/// Issue 62: `--help` lists what `--moderation` takes, for a debate and for
/// `resume` and `fork`.
#[test]
fn moderation_help_lists_its_values() {
    let sandbox = Sandbox::new();
    for command in ["review", "run", "resume", "fork"] {
        let ran = sandbox.quorum(&[command, "--help"], &[]);
        ran.assert_code(0);
        let help = ran.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        let at = help
            .find("--moderation")
            .unwrap_or_else(|| panic!("{command}: {help}"));
        let option = &help[at..(at + 300).min(help.len())];
        for value in ["accept", "reject", "defer", "ask", "planner"] {
            assert!(option.contains(value), "{command}: {value}: {option}");
        }
    }
}
