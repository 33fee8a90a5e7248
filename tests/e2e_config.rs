//! End-to-end runs of the real `quorum` binary about choosing models: the
//! configuration file, the precedence of `--agent` over the spec over the
//! file, the `command` provider inside a whole debate, usage and cost in the
//! record, `quorum doctor`, and keys that never reach anything quorum writes.
//!
//! Every test works in its own temporary folder with an isolated environment
//! ([`support::isolate`]): no key, no Ollama and no configuration of the
//! developer's can leak in.
use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quorum::config::roles::AgentSpec;
use quorum::protocol::decision_review::model::JudgeRole;
use serde_json::Value as Json;
use support::run::Sandbox;
use support::{ScriptBuilder, flat_judge_text, scripted_spec, spec_yaml};
use yaml_serde::Value;

const TOPIC: &str = "Should we adopt the fixture plan?";
/// Canary keys: if any byte of them shows up in a file or an output, a key leaked.
const OPENAI_CANARY: &str = "sk-canary-openai-3f9d27c1e8b4a6";
const ANTHROPIC_CANARY: &str = "sk-ant-canary-7b1e5c93d0a2f4";

/// What these tests add to the shared sandbox.
trait ConfigSandbox {
    fn judge_program(&self) -> PathBuf;
}

impl ConfigSandbox for Sandbox {
    /// A judge program: answers with `answer-{ROLE}.md` (ROLE from its first
    /// argument) and says on stderr what it did.
    fn judge_program(&self) -> PathBuf {
        for role in JudgeRole::ALL {
            self.write(
                &format!("judges/answer-{role}.md"),
                &flat_judge_text(role, 4),
            );
        }
        self.write_executable(
            "judges/judge.sh",
            "#!/bin/sh\ncat > /dev/null\necho \"judging as $1\" >&2\ncat \"$(dirname \"$0\")/answer-$1.md\"\n",
        )
    }
}

fn yaml_of(path: &Path) -> Value {
    yaml_serde::from_str(&std::fs::read_to_string(path).expect("read yaml")).expect("parse yaml")
}

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value:?}"))
}

/// Every file under `dir`, with its contents (lossy).
fn all_files(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).expect("read folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read file");
                files.insert(path, String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    files
}

/// A spec whose proposer and critic are scripted, and which leaves the
/// judges to whoever else assigns them.
fn spec_without_judges() -> String {
    let mut spec = scripted_spec(TOPIC, ScriptBuilder::adopt_path().build());
    spec.agents.clear();
    spec.agents
        .insert("proposer".into(), AgentSpec::Short("script".into()));
    spec.agents
        .insert("critic".into(), AgentSpec::Short("script".into()));
    spec_yaml(&spec)
}

/// A configuration with the judge program as provider `judge-cli` (the
/// judge's role is its model, passed as `{model}`), the stylist and the other
/// judges assigned to it, and prices for the scripted agents.
fn judge_config(sandbox: &Sandbox) -> String {
    let program = sandbox.judge_program();
    format!(
        "providers:\n  judge-cli:\n    kind: command\n    command: [\"/bin/sh\", \"{}\", \"{{model}}\"]\n    timeout_secs: 60\n\
         prices:\n  \"script:scripted\": {{ input: 1.5, output: 6.0 }}\n\
         roles:\n  judge.*: judge-cli:aesthete\n  judge.stylist: judge-cli:stylist\n",
        program.display()
    )
}

/// `--agent` beats the spec, the spec beats the file, `judge.*` and exact
/// roles in the file both apply; command judges answer a whole debate and
/// their stderr lands in the transcript; usage and cost are recorded.
#[test]
fn the_configuration_file_and_command_judges_run_a_whole_debate() {
    let sandbox = Sandbox::new();
    let spec = sandbox.write("spec.yaml", &spec_without_judges());
    let config = sandbox.write("quorum.yaml", &judge_config(&sandbox));
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "judge.analyst=judge-cli:analyst",
        ],
        &[],
    );
    ran.assert_code(0);
    let dir = sandbox.run_dir();
    let yaml = yaml_of(&dir.join("debate.yaml"));
    let participants = &yaml["participants"];
    assert_eq!(text(&participants["proposer"]["agent"]), "script:scripted");
    assert_eq!(text(&participants["critic"]["agent"]), "script:scripted");
    let judges: BTreeMap<&str, &str> = participants["judges"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|judge| (text(&judge["role"]), text(&judge["agent"])))
        .collect();
    assert_eq!(
        judges,
        BTreeMap::from([
            ("analyst", "judge-cli:analyst"),
            ("stylist", "judge-cli:stylist"),
            ("aesthete", "judge-cli:aesthete"),
        ])
    );
    assert_eq!(text(&yaml["outcome"]["verdict"]), "ADOPT");

    // Usage: every call, estimated for scripted and command agents, priced
    // only where a price is configured.
    let usage = &yaml["usage"];
    let calls = usage["calls"].as_sequence().unwrap();
    assert_eq!(calls.len(), 6, "proposal, critique, revision, three judges");
    for call in calls {
        assert_eq!(call["estimated"].as_bool(), Some(true), "{call:?}");
        assert!(call["input_tokens"].as_u64().unwrap() > 0, "{call:?}");
        assert!(call["elapsed_ms"].as_u64().is_some(), "{call:?}");
        let priced = text(&call["agent"]) == "script:scripted";
        assert_eq!(call["cost_usd"].as_f64().is_some(), priced, "{call:?}");
    }
    let total = &usage["total"];
    assert_eq!(total["calls"].as_u64(), Some(6));
    assert_eq!(total["calls_without_price"].as_u64(), Some(3));
    assert_eq!(
        usage["prices"]["script:scripted"]["output"].as_f64(),
        Some(6.0)
    );
    let scripted = &usage["agents"]["script:scripted"];
    let expected_cost = (scripted["input_tokens"].as_u64().unwrap() as f64 * 1.5
        + scripted["output_tokens"].as_u64().unwrap() as f64 * 6.0)
        / 1_000_000.0;
    let cost = total["cost_usd"].as_f64().unwrap();
    assert!(
        (cost - expected_cost).abs() < 1e-9,
        "{cost} vs {expected_cost}"
    );

    // The judges' stderr is kept in the transcript, with their call ids.
    let transcript = std::fs::read_to_string(dir.join("transcript.md")).unwrap();
    let diagnostics = transcript
        .split("\n## Diagnostics\n")
        .nth(1)
        .expect("a diagnostics section");
    for role in ["analyst", "stylist", "aesthete"] {
        assert!(
            diagnostics.contains(&format!("judge.{role}/evaluation/r1/a1")),
            "{diagnostics}"
        );
        assert!(
            diagnostics.contains(&format!("judging as {role}")),
            "{diagnostics}"
        );
    }
    assert!(transcript.contains("\n## Usage\n"), "{transcript}");
    assert!(
        transcript.contains("tokens in /"),
        "per-call figures: {transcript}"
    );
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    let usage_line = summary
        .lines()
        .find(|line| line.starts_with("Usage: "))
        .expect("a usage line in summary.md");
    assert!(usage_line.contains("tokens in"), "{usage_line}");
    assert!(usage_line.contains("(estimated)"), "{usage_line}");
    assert!(usage_line.contains("for the priced calls"), "{usage_line}");
    assert!(ran.stderr.contains("quorum: usage: "), "{}", ran.stderr);

    // The prices are part of the debate's definition.
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let first: Json = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["event"]["definition"]["participants"]["prices"]["script:scripted"]["input"],
        1.5
    );

    // The verdict recomputed from disk agrees.
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(0);
}

/// The file in `$XDG_CONFIG_HOME/quorum/config.yaml` is read without
/// `--config`; its `roles:` yield to a spec's `agents:`.
#[test]
fn the_default_configuration_file_is_read_and_the_spec_beats_it() {
    let sandbox = Sandbox::new();
    let config = judge_config(&sandbox).replace(
        "roles:\n",
        "roles:\n  default: judge-cli:critic\n  judge.analyst: judge-cli:analyst\n",
    );
    sandbox.write("config/quorum/config.yaml", &config);
    let spec = sandbox.write("spec.yaml", &spec_without_judges());
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let yaml = yaml_of(&sandbox.run_dir().join("debate.yaml"));
    assert_eq!(
        text(&yaml["participants"]["proposer"]["agent"]),
        "script:scripted",
        "agents.proposer in the spec beats roles.default in the file"
    );
    let judges = &yaml["participants"]["judges"];
    assert_eq!(text(&judges[0]["role"]), "analyst");
    assert_eq!(
        text(&judges[0]["agent"]),
        "judge-cli:analyst",
        "roles.judge.analyst beats roles.judge.*"
    );
    assert_eq!(text(&judges[2]["role"]), "aesthete");
    assert_eq!(
        text(&judges[2]["agent"]),
        "judge-cli:aesthete",
        "roles.judge.* beats roles.default"
    );
    assert_eq!(text(&yaml["outcome"]["verdict"]), "ADOPT");
}

/// A bad configuration file is refused before anything is written, with
/// its file, line and field.
#[test]
fn a_bad_configuration_is_located_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let spec = sandbox.write("spec.yaml", &spec_without_judges());
    let out = sandbox.out();
    for (yaml, line, needle) in [
        ("providers:\n  openai:\n    model: x\n", 3, "model"),
        (
            "roles:\n  critic: nowhere\n",
            2,
            "unknown provider `nowhere`",
        ),
        (
            "providers:\n  local: { base_url: \"http://h\" }\n",
            2,
            "kind",
        ),
        (
            "providers:\n  local:\n    kind: openai\n    family: Anthropic\n",
            2,
            "`family`: ",
        ),
    ] {
        let config = sandbox.write("bad.yaml", yaml);
        let ran = sandbox.quorum(
            &[
                "run",
                spec.to_str().unwrap(),
                "--headless",
                "--out",
                out.to_str().unwrap(),
                "--config",
                config.to_str().unwrap(),
            ],
            &[],
        );
        ran.assert_code(2);
        assert!(
            ran.stderr.contains(&format!("{}:{line}", config.display())),
            "{yaml}: {}",
            ran.stderr
        );
        assert!(ran.stderr.contains(needle), "{yaml}: {}", ran.stderr);
        assert!(!out.exists(), "nothing is written for {yaml}");
    }
    let ran = sandbox.quorum(
        &["run", spec.to_str().unwrap(), "--config", "missing.yaml"],
        &[],
    );
    ran.assert_code(2);
    assert!(ran.stderr.contains("missing.yaml"), "{}", ran.stderr);
}

/// With nothing configured and nothing detected, one paragraph says every
/// way out; exit 2, nothing written.
#[test]
fn nothing_to_run_is_one_clear_paragraph() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "review",
            TOPIC,
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    let message = ran.stderr.trim_end();
    assert_eq!(message.lines().count(), 1, "one paragraph: {message}");
    for needle in [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "Ollama",
        "config/quorum/config.yaml",
        "--agent",
        "quorum doctor",
        "quorum demo",
    ] {
        assert!(message.contains(needle), "{needle}: {message}");
    }
    assert!(!out.exists());
}

/// `human` is accepted by resolution but needs the interactive interface.
#[test]
fn a_human_role_needs_the_interactive_interface() {
    let sandbox = Sandbox::new();
    let spec = sandbox.write(
        "spec.yaml",
        &spec_yaml(&scripted_spec(TOPIC, ScriptBuilder::adopt_path().build())),
    );
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
            "--agent",
            "critic=human",
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("critic is played by a person"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("drop --headless"), "{}", ran.stderr);
    assert!(!out.exists());
}

/// The line of `quorum doctor`'s role table for `slot`.
fn role_line(report: &str, slot: &str) -> String {
    report
        .lines()
        .find(|line| line.trim_start().starts_with(&format!("{slot} ")))
        .unwrap_or_else(|| panic!("no line for {slot}:\n{report}"))
        .to_string()
}

/// `quorum doctor`: the file used, each provider with its key state and
/// whether it answers, the role table with levels, the terminal; exit 0
/// with a usable provider. No key is ever printed.
#[test]
fn doctor_reports_providers_roles_and_terminal() {
    let sandbox = Sandbox::new();
    let program = sandbox.judge_program();
    let closed = support::closed_address();
    let config = sandbox.write(
        "doctor.yaml",
        &format!(
            "providers:\n  judge-cli: {{ kind: command, command: [\"{}\"] }}\n  \
             missing-cli: {{ kind: command, command: [\"quorum-test-no-such-program\"] }}\n  \
             openai: {{ base_url: \"http://{closed}/v1\", api_key_env: OPENAI_API_KEY }}\n\
             roles:\n  judge.*: judge-cli:aesthete\n  default: openai:test-model\n",
            program.display()
        ),
    );
    let ran = sandbox.quorum(
        &[
            "doctor",
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "critic=judge-cli:critic",
        ],
        &[("OPENAI_API_KEY", OPENAI_CANARY), ("NO_COLOR", "1")],
    );
    ran.assert_code(0);
    let report = &ran.stdout;
    assert!(report.contains(&config.display().to_string()), "{report}");
    for needle in [
        "openai (openai)",
        &format!("http://{closed}/v1"),
        "key: OPENAI_API_KEY is set",
        "endpoint: does not answer",
        "judge-cli (command)",
        &format!("program: found at {}", program.display()),
        "missing-cli (command)",
        "program: not found",
        "anthropic (anthropic)",
        "ANTHROPIC_API_KEY is NOT set",
        "not checked",
        "ollama (auto-detect)",
    ] {
        assert!(report.contains(needle), "{needle}:\n{report}");
    }
    for (slot, needle) in [
        ("proposer", "openai:test-model"),
        ("proposer", "config: roles.default"),
        ("critic", "judge-cli:critic"),
        ("critic", "--agent critic"),
        ("judge.analyst", "roles.judge.*"),
        ("judge.strategist", "high-stakes only"),
        // Issue 62: the groups whose members a debate names (a root-cause
        // analysis's debuggers, a council's experts) have their line too.
        ("debugger.*", "config: roles.default"),
        ("debugger.*", "root-cause analysis"),
        ("expert.*", "config: roles.default"),
        ("expert.*", "council"),
    ] {
        assert!(
            role_line(report, slot).contains(needle),
            "{slot}, {needle}:\n{report}"
        );
    }
    // A run seats the lead's agent as synthesizer, not `default`'s.
    let synthesizer = report
        .split("  synthesizer ")
        .nth(1)
        .unwrap_or_else(|| panic!("no synthesizer line:\n{report}"));
    assert!(
        synthesizer.contains("the agent of the debate's lead"),
        "{report}"
    );
    let as_critic = synthesizer
        .lines()
        .find(|line| line.trim_start().starts_with("as critic ("))
        .unwrap_or_else(|| panic!("no lead line for the critic:\n{report}"));
    assert!(as_critic.contains("judge-cli:critic"), "{report}");
    assert!(
        role_line(report, "proposer").contains("decision review (architecture, comparative)"),
        "{report}"
    );
    assert!(report.contains("stdout is a terminal: no"), "{report}");
    assert!(report.contains("NO_COLOR: set"), "{report}");
    for output in [&ran.stdout, &ran.stderr] {
        assert!(!output.contains("canary"), "a key leaked:\n{output}");
    }
}

/// Issue 29: a spec's fair-judging keys reach the journal's first line, and
/// a family that is not a family name is refused naming its file, line and
/// field before anything is written.
#[test]
fn a_specs_fair_judging_keys_are_recorded_and_a_bad_family_is_located() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let spec = spec_without_judges() + "blind: false\nrecusal: recuse\n";
    let spec = sandbox.write("spec.yaml", &spec);
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
            "--agent",
            "judge.*=script",
        ],
        &[],
    );
    ran.assert_code(0);
    let folder = sandbox.run_dir();
    let journal = std::fs::read_to_string(folder.join("journal.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    let fairness = &first["event"]["definition"]["fairness"];
    assert_eq!(fairness["blind"], false, "{first}");
    assert_eq!(fairness["recusal"], "recuse", "{first}");
    assert!(fairness["order_seed"].is_u64(), "{first}");

    let bad = spec_without_judges().replace(
        "  proposer: script\n",
        "  proposer:\n    provider: script\n    family: Big Lab\n",
    );
    assert_ne!(
        bad,
        spec_without_judges(),
        "the fixture names the proposer so"
    );
    let bad = sandbox.write("bad.yaml", &bad);
    let empty = sandbox.path().join("empty-out");
    let ran = sandbox.quorum(
        &[
            "run",
            bad.to_str().unwrap(),
            "--headless",
            "--out",
            empty.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("agents.proposer.family"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(&format!("{}:", bad.display())),
        "{}",
        ran.stderr
    );
    assert!(!empty.exists(), "nothing is written");
}

/// Issue 29: a part of fair judging asked of a protocol that does not apply
/// it yet (recusal in a root-cause analysis, which scores no one's work) is
/// refused, naming the flag, before anything is written.
#[test]
fn fair_judging_asked_of_a_protocol_without_it_is_refused() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--protocol",
            "rca",
            "--headless",
            "--recusal",
            "recuse",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("--recusal: a root-cause")
            && ran
                .stderr
                .contains("does not apply this part of fair judging yet"),
        "{}",
        ran.stderr
    );
    assert!(!out.exists(), "nothing is written");
}

/// Issue 29, recusal in the council, end to end: the demo council with the
/// security expert and the devil's advocate given one family and
/// `--recusal recuse`; the devil is left out of the security expert's
/// findings in council.json, the transcript and `quorum verdict`.
#[test]
fn a_council_participant_of_the_origins_family_is_recused_from_its_findings() {
    let sandbox = Sandbox::new();
    sandbox
        .quorum(
            &[
                "demo",
                "--protocol",
                "council",
                "--export-script",
                "demo.yaml",
            ],
            &[],
        )
        .assert_code(0);
    let exported = std::fs::read_to_string(sandbox.path().join("demo.yaml")).unwrap();
    let kin = "agents:\n  default: script\n  \
               expert.security: {provider: script, family: anthropic}\n  \
               devil-advocate: {provider: script, family: anthropic}\n";
    assert!(
        exported.contains("agents:\n  default: script\n"),
        "{exported}"
    );
    sandbox.write(
        "spec.yaml",
        &exported.replace("agents:\n  default: script\n", kin),
    );
    let out = sandbox.out();
    let out = out.to_str().unwrap();
    let ran = sandbox.quorum(
        &[
            "run",
            "spec.yaml",
            "--headless",
            "--speed",
            "50",
            "--recusal",
            "recuse",
            "--out",
            out,
        ],
        &[],
    );
    ran.assert_code(6); // CONCERNS, as the demo ends
    let folder = sandbox.run_dir();
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("council.json")).unwrap())
            .unwrap();
    assert_eq!(record["fairness"]["recusal"], "recuse");
    let recused = "devil-advocate recused: its origin's model family";
    let rules: Vec<&str> = record["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["origins"] == serde_json::json!(["expert.security"]))
        .filter_map(|finding| finding["rule"].as_str())
        .filter(|rule| rule.contains(recused))
        .collect();
    assert!(!rules.is_empty(), "{}", record["findings"]);
    let transcript = std::fs::read_to_string(folder.join("transcript.md")).unwrap();
    assert!(transcript.contains(recused), "{transcript}");
    let verdict = sandbox.quorum(&["verdict", folder.to_str().unwrap()], &[]);
    assert!(verdict.stdout.contains(rules[0]), "{}", verdict.stdout);
}

/// Issue 29, the held-out judge end to end: the demo review with its
/// stylist held out; the stylist scores only the revision that decides
/// (no round-1 file), debate.yaml marks it, the rule says it confirmed the
/// ADOPT, and `quorum verdict` gives the same rule from the files.
#[test]
fn a_held_out_judge_scores_only_the_final_revision_end_to_end() {
    let sandbox = Sandbox::new();
    sandbox
        .quorum(&["demo", "--export-script", "demo.yaml"], &[])
        .assert_code(0);
    let exported = std::fs::read_to_string(sandbox.path().join("demo.yaml")).unwrap();
    assert!(exported.contains("\ntopic: "), "{exported}");
    sandbox.write(
        "spec.yaml",
        &exported.replacen("\ntopic: ", "\nheld_out: stylist\ntopic: ", 1),
    );
    let ran = sandbox.run_spec("spec.yaml", &[]);
    ran.assert_code(0);
    let folder = sandbox.run_dir();
    assert!(!folder.join("judges/judge-stylist.md").exists());
    assert!(folder.join("judges/judge-stylist-round-2.md").exists());
    let yaml = std::fs::read_to_string(folder.join("debate.yaml")).unwrap();
    assert!(yaml.contains("held_out: true"), "{yaml}");
    let confirmed = "(confirmed by the held-out stylist, who scored only the final revision)";
    let transcript = std::fs::read_to_string(folder.join("transcript.md")).unwrap();
    assert!(transcript.contains(confirmed), "{transcript}");
    assert!(
        transcript.contains("the held-out stylist now scores this final revision"),
        "{transcript}"
    );
    let verdict = sandbox.quorum(&["verdict", folder.to_str().unwrap()], &[]);
    verdict.assert_code(0);
    assert!(verdict.stdout.contains(confirmed), "{}", verdict.stdout);
}

/// Issue 29: `quorum doctor` gives each role's model family and where it
/// came from (the table, a provider's `family:` in the configuration), and
/// names each judge that would share a family with the author it judges.
#[test]
fn doctor_shows_each_roles_family_and_the_recusals_it_would_cause() {
    let sandbox = Sandbox::new();
    let closed = support::closed_address();
    let config = sandbox.write(
        "doctor.yaml",
        &format!(
            "providers:\n  local: {{ kind: openai, base_url: \"http://{closed}/v1\", family: anthropic }}\n"
        ),
    );
    let ran = sandbox.quorum(
        &[
            "doctor",
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "proposer=local:house-model",
            "--agent",
            "judge.analyst=anthropic:claude-sonnet-4-5",
            "--agent",
            "judge.stylist=openai:gpt-4.1-mini",
            "--agent",
            "devil-advocate=local:house-model",
            "--agent",
            "expert.security=anthropic:claude-haiku-4-5",
        ],
        &[("NO_COLOR", "1")],
    );
    let report = &ran.stdout;
    for (slot, family) in [
        ("proposer", "family anthropic (providers.local.family)"),
        ("judge.analyst", "family anthropic (model name claude*)"),
        ("judge.stylist", "family openai"),
    ] {
        assert!(role_line(report, slot).contains(family), "{slot}: {report}");
    }
    // The Recusal section, up to the judge probes that follow it.
    let recusal = report
        .split("\nRecusal\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no Recusal section:\n{report}"))
        .split("\nJudge probes")
        .next()
        .unwrap_or_default();
    assert!(
        recusal.contains(
            "judge.analyst shares the proposer's model family (anthropic) in the decision review (architecture, comparative)"
        ),
        "{report}"
    );
    // In a council each judges each other's findings: one line per family.
    assert!(
        recusal.contains(
            "devil-advocate and expert.security share a model family (anthropic) in the council (review, audit, research, synthesis), each judging the others' work"
        ),
        "{report}"
    );
    assert!(!recusal.contains("judge.stylist"), "{report}");
}

/// `quorum doctor` exits 2 when no provider is usable.
#[test]
fn doctor_without_a_usable_provider_exits_2() {
    let sandbox = Sandbox::new();
    let closed = support::closed_address();
    let config = sandbox.write(
        "doctor.yaml",
        &format!("providers:\n  openai: {{ base_url: \"http://{closed}/v1\" }}\n"),
    );
    let ran = sandbox.quorum(&["doctor", "--config", config.to_str().unwrap()], &[]);
    ran.assert_code(2);
    assert!(ran.stdout.contains("does not answer"), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("No provider is usable"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("unassigned"), "{}", ran.stdout);
    assert!(ran.stdout.contains("Configuration file"), "{}", ran.stdout);
}

/// Canary keys in the environment while a whole debate runs (scripted and
/// command agents, `--json`): no byte of them in any file of the run, on
/// stdout or on stderr.
#[test]
fn keys_in_the_environment_never_reach_the_record() {
    let sandbox = Sandbox::new();
    let spec = sandbox.write("spec.yaml", &spec_without_judges());
    let config = sandbox.write("quorum.yaml", &judge_config(&sandbox));
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--json",
            "--out",
            out.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "judge.analyst=judge-cli:analyst",
        ],
        &[
            ("OPENAI_API_KEY", OPENAI_CANARY),
            ("ANTHROPIC_API_KEY", ANTHROPIC_CANARY),
        ],
    );
    ran.assert_code(0);
    let json: Json = serde_json::from_str(&ran.stdout).expect("--json prints one object");
    assert_eq!(json["usage"]["total"]["calls"], 6);
    let files = all_files(&out);
    assert!(files.len() >= 9, "the whole tree: {:?}", files.keys());
    for canary in [OPENAI_CANARY, ANTHROPIC_CANARY] {
        let fragment = &canary[..12];
        for (path, contents) in &files {
            assert!(
                !contents.contains(fragment),
                "{} holds a key",
                path.display()
            );
        }
        assert!(!ran.stdout.contains(fragment), "stdout holds a key");
        assert!(!ran.stderr.contains(fragment), "stderr holds a key");
    }
}

/// The demo reports usage (estimated) with time to first token in every
/// call, and in `--json`.
#[test]
fn the_demo_reports_usage_and_latency() {
    let sandbox = Sandbox::new();
    let ran = sandbox.demo_into("out", &[]);
    ran.assert_code(0);
    let json: Json = serde_json::from_str(&ran.stdout).unwrap();
    let total = &json["usage"]["total"];
    assert_eq!(total["estimated"], true);
    assert!(total["output_tokens"].as_u64().unwrap() > 1_000, "{total}");
    assert!(
        total.get("cost_usd").is_none(),
        "no price configured: {total}"
    );
    for call in json["usage"]["calls"].as_array().unwrap() {
        let ttft = call["ttft_ms"].as_u64().expect("time to first token");
        assert!(ttft <= call["elapsed_ms"].as_u64().unwrap(), "{call}");
        assert_eq!(call["agent"], "script:scripted");
    }
    let yaml = yaml_of(&sandbox.run_dir().join("debate.yaml"));
    assert_eq!(
        yaml["usage"]["total"]["calls"].as_u64(),
        json["usage"]["total"]["calls"].as_u64()
    );
}

/// A theme that does not load stops any run before anything is written:
/// an unknown name lists the built-in ones, a bad file is located to the
/// line, column and slot.
#[test]
fn a_bad_theme_is_a_configuration_error_in_either_mode() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--headless",
            "--theme",
            "nope",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(ran.stderr.contains("--theme"), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("dark, light, high-contrast"),
        "{}",
        ran.stderr
    );
    let theme = sandbox.write(
        "mine.yaml",
        "name: mine\nslots:\n  title: { fg: \"#zz0000\" }\n",
    );
    let ran = sandbox.quorum(
        &[
            "demo",
            "--headless",
            "--theme",
            theme.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(ran.stderr.contains("mine.yaml:3:"), "{}", ran.stderr);
    assert!(ran.stderr.contains("slots.title.fg"), "{}", ran.stderr);
    let config = sandbox.write("config/quorum/config.yaml", "theme: neon\n");
    assert!(config.exists());
    let ran = sandbox.quorum(&["demo", "--headless", "--out", out.to_str().unwrap()], &[]);
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("config/quorum/config.yaml:1: theme: "),
        "{}",
        ran.stderr
    );
    assert!(!out.exists(), "nothing is written");
}

/// Issue 56: the pace of streamed text (`--stream-fps`, the
/// configuration's `stream_fps`) out of 1..=60 stops any run before
/// anything is written, naming where it was given.
#[test]
fn a_stream_pace_out_of_range_is_a_configuration_error() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let out_arg = out.to_str().unwrap();
    let ran = sandbox.quorum(
        &["demo", "--headless", "--stream-fps", "0", "--out", out_arg],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("--stream-fps: 0 is not a frame rate"),
        "{}",
        ran.stderr
    );
    sandbox.write("config/quorum/config.yaml", "stream_fps: 500\n");
    let ran = sandbox.quorum(&["demo", "--headless", "--out", out_arg], &[]);
    ran.assert_code(2);
    assert!(
        ran.stderr
            .contains("config/quorum/config.yaml:1: stream_fps: 500 is not a frame rate"),
        "{}",
        ran.stderr
    );
    assert!(!out.exists(), "nothing is written");
    sandbox.write("config/quorum/config.yaml", "stream_fps: 20\n");
    sandbox
        .quorum(
            &["demo", "--headless", "--speed", "50", "--out", out_arg],
            &[],
        )
        .assert_code(0);
}

/// Ctrl-C (SIGINT) during a headless run whose proposer is a command that
/// started a helper of its own: quorum says where the record is, exits 1,
/// and the program's whole process group is gone.
#[test]
fn an_interrupted_headless_run_kills_its_command_agents() {
    let sandbox = Sandbox::new();
    let pids = sandbox.path().join("pids");
    let program = sandbox.write_executable(
        "slow.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\nsleep 1000 &\necho $$ $! > {}\nwait\n",
            pids.display()
        ),
    );
    let config = sandbox.write(
        "quorum.yaml",
        &format!(
            "providers:\n  slow:\n    kind: command\n    command: [\"{}\"]\nroles:\n  default: script\n",
            program.display()
        ),
    );
    let spec = sandbox.write("spec.yaml", &spec_without_judges());
    let out = sandbox.out();
    let mut command = std::process::Command::new(support::run::QUORUM);
    support::isolate(&mut command, sandbox.path())
        .args([
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "proposer=slow",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("start quorum");
    let started = std::time::Instant::now();
    let (program_pid, helper_pid) = loop {
        if let Ok(text) = std::fs::read_to_string(&pids)
            && let Some((a, b)) = text.trim().split_once(' ')
        {
            break (a.parse::<i32>().unwrap(), b.parse::<i32>().unwrap());
        }
        if started.elapsed().as_secs() > 30 || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "the program never started:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // SAFETY: kill(2) on our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let output = child.wait_with_output().expect("quorum exits");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("interrupted: stopped before it finished"),
        "{stderr}"
    );
    let alive = |pid: i32| unsafe { libc::kill(pid, 0) } == 0;
    let gone = std::time::Instant::now();
    while (alive(program_pid) || alive(helper_pid)) && gone.elapsed().as_secs() < 5 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!alive(program_pid), "the program was killed");
    assert!(!alive(helper_pid), "its helper, in the same group, too");
}
