//! Shared fixtures for the integration tests: agent answers in the formats
//! the prompts ask for, built from a few parameters, and a scripted spec
//! builder for end-to-end runs.
#![allow(dead_code)]

pub mod conformance;
pub mod council;
pub mod cuts;
pub mod harness;
pub mod plan;
pub mod provider_server;
pub mod pty;
pub mod rca;
pub mod run;

use std::collections::BTreeMap;

use quorum::agent::script::{Script, ScriptedReply};
use quorum::protocol::decision_review::model::{
    Criterion, JudgeConfig, JudgeRole, architecture_panel,
};

/// Every file under `dir`, by its `/`-separated path relative to `dir`:
/// to compare a debate folder with itself or with another run.
pub fn files_under(dir: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("read a folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let name = path.strip_prefix(dir).expect("inside the folder");
            let name = name.to_str().expect("a UTF-8 file name").replace('\\', "/");
            files.insert(name, std::fs::read(&path).expect("read a file"));
        }
    }
    files
}

/// The block ids every fixture tree uses.
pub const BLOCKS: [&str; 4] = ["b1", "b2", "b3", "b4"];

/// A proposer answer with four blocks, prose around the fence.
pub fn proposal_text() -> String {
    let mut yaml = String::from("blocks:\n");
    for (id, kind) in BLOCKS
        .iter()
        .zip(["claim", "implementation", "implementation", "fallback"])
    {
        yaml.push_str(&format!(
            "  - id: {id}\n    type: {kind}\n    text: \"Claim of {id}.\"\n    evidence: \"Evidence for {id}.\"\n    \
             tradeoffs: \"Tradeoffs of {id}.\"\n    risks: \"Risk of {id}; watch the {id} dashboard.\"\n"
        ));
    }
    format!("Here is my thesis tree.\n\n```yaml\n{yaml}```\n")
}

/// A critic answer: one item per `(target, severity)`, steelman included.
pub fn critique_text(items: &[(&str, &str)]) -> String {
    let mut yaml = String::from("critiques:\n");
    if items.is_empty() {
        yaml = "critiques: []\n".to_string();
    }
    for (target, severity) in items {
        yaml.push_str(&format!(
            "  - target_block: {target}\n    steelman: \"At its strongest, {target} holds.\"\n    \
             flaw_type: risk\n    severity: {severity}\n    description: \"Weakness of {target} ({severity}).\"\n"
        ));
    }
    format!("My critique.\n\n```yaml\n{yaml}```\n")
}

/// The default critique: every severity, every block.
pub fn default_critique() -> String {
    critique_text(&[
        ("b1", "major"),
        ("b2", "minor"),
        ("b3", "note"),
        ("b4", "minor"),
    ])
}

/// A reviser answer that keeps the four blocks and addresses `ids`.
pub fn revision_text(ids: &[&str]) -> String {
    let mut yaml = String::from("revised_tree:\n");
    for (id, kind) in BLOCKS
        .iter()
        .zip(["claim", "implementation", "implementation", "fallback"])
    {
        yaml.push_str(&format!(
            "  - id: {id}\n    type: {kind}\n    text: \"Revised claim of {id}.\"\n    evidence: \"Better evidence for {id}.\"\n    \
             tradeoffs: \"Tradeoffs of {id}.\"\n    risks: \"Risk of {id}; watch the {id} dashboard.\"\n"
        ));
    }
    if ids.is_empty() {
        yaml.push_str("change_log: []\n");
    } else {
        yaml.push_str("change_log:\n");
        for id in ids {
            yaml.push_str(&format!(
                "  - addresses_critique: {id}\n    block_id: b1\n    change_type: strengthen\n    \
                 before: \"old\"\n    after: \"new for {id}\"\n"
            ));
        }
    }
    format!("Revised.\n\n```yaml\n{yaml}```\n")
}

/// Every id c1..cn.
pub fn critique_ids(count: usize) -> Vec<String> {
    (1..=count).map(|n| format!("c{n}")).collect()
}

/// A judge answer scoring every block on the judge's criteria with
/// `score(block, criterion)`, and the given synthesis.
pub fn judge_text(
    judge: &JudgeConfig,
    score: impl Fn(&str, Criterion) -> u8,
    synthesis: [u8; 3],
) -> String {
    let mut yaml = String::from("block_scores:\n");
    for block in BLOCKS {
        for criterion in &judge.criteria {
            yaml.push_str(&format!(
                "  - block_id: {block}\n    criterion: {criterion}\n    score: {}\n    rationale: \"{} on {block} {criterion}.\"\n",
                score(block, *criterion),
                judge.role
            ));
        }
    }
    yaml.push_str(&format!(
        "synthesis:\n  integration: {}\n  risk_coverage: {}\n  revision_quality: {}\n",
        synthesis[0], synthesis[1], synthesis[2]
    ));
    format!("My scores.\n\n```yaml\n{yaml}```\n")
}

/// A judge answer with every score equal to `value`.
pub fn flat_judge_text(role: JudgeRole, value: u8) -> String {
    let judge = judge_config(role, true);
    judge_text(&judge, |_, _| value, [value, value, value])
}

/// The configuration of `role` in the (high-stakes) architecture panel.
pub fn judge_config(role: JudgeRole, high_stakes: bool) -> JudgeConfig {
    architecture_panel(high_stakes)
        .into_iter()
        .find(|judge| judge.role == role)
        .expect("role in panel")
}

/// Builds scripts reply by reply for end-to-end runs.
#[derive(Default)]
pub struct ScriptBuilder {
    replies: Vec<ScriptedReply>,
}

impl ScriptBuilder {
    /// A script with proposal, default critique, revision of c1..c4 and
    /// judges that all score 4 in every round: an ADOPT path.
    pub fn adopt_path() -> Self {
        let mut builder = ScriptBuilder::default()
            .reply("proposer", "proposal", None, None, &proposal_text())
            .reply("critic", "critique", None, None, &default_critique())
            .careful_revision(&["c1", "c2", "c3", "c4"]);
        for role in JudgeRole::ALL {
            builder = builder.reply(
                &format!("judge.{role}"),
                "evaluation",
                None,
                None,
                &flat_judge_text(role, 4),
            );
        }
        builder
    }

    /// A reply for `role` at `stage` (and `round`, `attempt` when given),
    /// in place of any reply that answered exactly those calls, whatever
    /// the rulings.
    pub fn reply(
        mut self,
        role: &str,
        stage: &str,
        round: Option<u32>,
        attempt: Option<u32>,
        text: &str,
    ) -> Self {
        let mut reply = ScriptedReply::new(role, text);
        reply.stage = Some(stage.to_string());
        reply.round = round;
        reply.attempt = attempt;
        self.replies.retain(|earlier| {
            (
                &earlier.role,
                &earlier.stage,
                earlier.round,
                earlier.attempt,
            ) != (&reply.role, &reply.stage, reply.round, reply.attempt)
        });
        self.replies.insert(0, reply);
        self
    }

    /// A round-1 reviser that follows the moderator's rulings in its prompt,
    /// as a careful agent would: the change log answers each of `ids` that
    /// was accepted and no other, and is empty when none was.
    pub fn careful_revision(mut self, ids: &[&str]) -> Self {
        let text = revision_text(ids);
        let (head, _) = text.split_once("change_log:").expect("a change log");
        let mut parts = vec![format!("{head}change_log:\n")];
        let mut conditions = vec![String::new()];
        for id in ids {
            parts.push(format!(
                "  - addresses_critique: {id}\n    block_id: b1\n    change_type: strengthen\n    \
                 before: \"old\"\n    after: \"new for {id}\"\n"
            ));
            conditions.push(format!("{{{id}: accepted}}"));
        }
        parts.push("```\n".to_string());
        conditions.push(String::new());
        let mut yaml = String::from("role: proposer\nstage: revision\nround: 1\nparts:\n");
        for (part, when) in parts.iter().zip(&conditions) {
            if !when.is_empty() {
                yaml.push_str(&format!(
                    "  - when: {when}\n    text: {}\n",
                    json_string(part)
                ));
            } else {
                yaml.push_str(&format!("  - text: {}\n", json_string(part)));
            }
        }
        let careful: ScriptedReply = yaml_serde::from_str(&yaml).expect("careful revision");
        let mut nothing: ScriptedReply = yaml_serde::from_str(&format!(
            "role: proposer\nstage: revision\nround: 1\nwhen: {{{}}}\ntext: {}\n",
            ids.iter()
                .map(|id| format!("{id}: not accepted"))
                .collect::<Vec<_>>()
                .join(", "),
            json_string(&revision_text(&[]))
        ))
        .expect("revision for no accepted item");
        nothing.round = Some(1);
        self.replies.retain(|earlier| {
            !(earlier.role == "proposer" && earlier.stage.as_deref() == Some("revision"))
                || earlier.round != Some(1)
                || earlier.attempt.is_some()
        });
        self.replies.insert(0, careful);
        self.replies.insert(0, nothing);
        self
    }

    /// A fault for one attempt (`timeout`, `error`, `malformed`).
    pub fn fault(
        mut self,
        role: &str,
        stage: &str,
        round: Option<u32>,
        attempt: Option<u32>,
        fault: &str,
    ) -> Self {
        let mut reply: ScriptedReply = yaml_serde::from_str(&format!(
            "role: {role}\nstage: {stage}\nfault: {fault}\n{}",
            if fault == "error" {
                "error: \"503 overloaded\"\n"
            } else {
                ""
            }
        ))
        .expect("fault reply");
        reply.round = round;
        reply.attempt = attempt;
        self.replies.insert(0, reply);
        self
    }

    pub fn build(self) -> Script {
        let mut script: Script = yaml_serde::from_str("replies: []\n").expect("empty script");
        script.pace.first_token_ms = 10;
        script.pace.chars_per_second = 100_000;
        script.pace.chunk_chars = 64;
        script.replies = self.replies;
        script
    }
}

/// A prompt whose rulings accept every item a demo could raise (`c1`..`c20`,
/// `C1`..`C20`, `F001`..`F020`), for tests that play a demo's script
/// outside the scripted provider.
pub fn every_item_accepted_prompt() -> String {
    let ids = (1..=20).flat_map(|n| [format!("c{n}"), format!("C{n}"), format!("F{n:03}")]);
    let rulings: Vec<quorum::rulings::Ruling> = ids
        .map(|id| quorum::rulings::Ruling::new(id, quorum::rulings::Ruled::Accepted, None))
        .collect();
    quorum::rulings::section(&rulings)
}

/// The text `reply` gives when the moderator accepted every item.
pub fn text_with_every_item_accepted(reply: &ScriptedReply) -> Option<String> {
    reply.text_under(&quorum::agent::script::Rulings::of(
        &every_item_accepted_prompt(),
    ))
}

/// `text` as a YAML (JSON) double-quoted string.
fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string")
}

/// Scores keyed by `(block, criterion)` with a default.
pub fn scores(default: u8, overrides: &[(&str, Criterion, u8)]) -> impl Fn(&str, Criterion) -> u8 {
    let table: BTreeMap<(String, Criterion), u8> = overrides
        .iter()
        .map(|(block, criterion, score)| ((block.to_string(), *criterion), *score))
        .collect();
    move |block, criterion| {
        table
            .get(&(block.to_string(), criterion))
            .copied()
            .unwrap_or(default)
    }
}

/// A spec for `topic` with every default, whose every role is played by the
/// `script` provider with `script`'s replies.
pub fn scripted_spec(topic: &str, script: Script) -> quorum::spec::DebateSpec {
    let mut spec = quorum::spec::DebateSpec::for_topic(topic);
    spec.script = Some(script);
    spec.agents.insert(
        "default".to_string(),
        quorum::config::roles::AgentSpec::Short("script".to_string()),
    );
    spec
}

/// `spec` as the YAML text of a spec file.
pub fn spec_yaml(spec: &quorum::spec::DebateSpec) -> String {
    spec.to_yaml()
}

/// A judge answer like [`judge_text`] that also lists `blocks` under
/// `insufficient_information`.
pub fn with_insufficient_information(judge_answer: &str, blocks: &[&str]) -> String {
    assert!(judge_answer.contains("synthesis:"), "not a judge answer");
    judge_answer.replacen(
        "synthesis:",
        &format!(
            "insufficient_information: [{}]\nsynthesis:",
            blocks.join(", ")
        ),
        1,
    )
}

/// `127.0.0.1:PORT` where nothing listens (a port the system just handed out
/// and that was closed again): for `OLLAMA_HOST` and unreachable endpoints.
pub fn closed_address() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    listener.local_addr().expect("local address").to_string()
}

/// The variables that could make quorum pick an agent of the developer's.
pub const AGENT_VARIABLES: [&str; 3] = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"];

/// Runs `command` (the quorum binary) in `dir` with nothing of the
/// developer's environment that could choose an agent or a prompt: an empty
/// config home, a library of its own (under `dir/data`), no key variables,
/// and an `OLLAMA_HOST` where nothing listens.
pub fn isolate<'c>(
    command: &'c mut std::process::Command,
    dir: &std::path::Path,
) -> &'c mut std::process::Command {
    command
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove(quorum::store::LIBRARY_ENV)
        .env("HOME", dir.join("home"))
        .env("OLLAMA_HOST", closed_address());
    for variable in AGENT_VARIABLES {
        command.env_remove(variable);
    }
    command
}

/// An engine over the decision review `prepared` describes, as `quorum run`
/// builds one, in a new run folder under `out` named for `slug`, with the
/// moderator accepting every item; with the run folder and the engine's
/// updates.
pub fn review_engine(
    prepared: quorum::cli::Prepared,
    out: &std::path::Path,
    slug: &str,
) -> (
    quorum::engine::Engine<quorum::protocol::decision_review::DecisionReview>,
    quorum::artifact::RunDir,
    tokio::sync::mpsc::UnboundedReceiver<quorum::engine::Update>,
) {
    use quorum::engine::{Engine, ModerationPolicy, Moderator};
    let run_dir = quorum::artifact::RunDir::create(out, slug, chrono::Local::now()).unwrap();
    let journal = quorum::artifact::Journal::create(&run_dir.path().join("journal.jsonl")).unwrap();
    let (updates_tx, updates) = tokio::sync::mpsc::unbounded_channel();
    let review = quorum::protocol::decision_review::DecisionReview::from_definition(
        &prepared.definition,
        prepared.prompts,
    )
    .unwrap();
    let engine = Engine::new(
        Box::new(review),
        run_dir.clone(),
        journal,
        prepared.roster,
        Moderator::policy(ModerationPolicy::Accept),
        updates_tx,
    )
    .with_human_desk(prepared.human_desk);
    (engine, run_dir, updates)
}
