//! Hostile agents and hostile names of agents, on the real binary (issue 27,
//! round two): a model name never reaches a shell (2), a command agent gets
//! no key it was not given (4), an HTTP answer cannot grow without bound
//! (6), and an agent's processes neither outlive quorum nor hold its answer
//! hostage (9). Each test is named after its defect's number in the issue.
use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use quorum::protocol::decision_review::model::JudgeRole;
use support::provider_server::{Frame, ProviderServer, ScriptedResponse, openai_text_chunk};
use support::run::{Sandbox, quorum_in_async};
use support::{ScriptBuilder, flat_judge_text, scripted_spec, spec_yaml};

const TOPIC: &str = "Should we adopt the fixture plan?";

/// A scripted decision review on the adopt path, every role played by the
/// script unless a flag says otherwise.
fn scripted(sandbox: &Sandbox) -> PathBuf {
    sandbox.write(
        "spec.yaml",
        &spec_yaml(&scripted_spec(TOPIC, ScriptBuilder::adopt_path().build())),
    )
}

fn out(sandbox: &Sandbox) -> String {
    sandbox.out().to_str().unwrap().to_string()
}

/// Whether `pid` is a live process (a zombie is not: it only waits to be
/// collected).
fn is_running(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_none_or(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => true,
    }
}

/// The pids a program wrote into `file`, one or more per line.
fn pids_in(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_else(|error| panic!("{}: {error}", file.display()))
        .split_whitespace()
        .map(|pid| pid.parse().expect("a pid"))
        .collect()
}

/// Fails unless every one of `pids` is gone within `limit` (a generous
/// bound for the kernel to finish a SIGKILL, not a timing assertion).
fn assert_gone(pids: &[i32], limit: Duration, what: &str) {
    let started = Instant::now();
    while pids.iter().any(|pid| is_running(*pid)) {
        if started.elapsed() > limit {
            let alive: Vec<i32> = pids
                .iter()
                .copied()
                .filter(|pid| is_running(*pid))
                .collect();
            for pid in &alive {
                // SAFETY: the test cleans up after a failure of its own.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            panic!("{what}: still running after {limit:?}: {alive:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// 2. A model name reaches a shell.

/// A command provider that puts its model into `sh -c`, the way a wrapper
/// script often does.
fn shell_provider_config(sandbox: &Sandbox) -> PathBuf {
    sandbox.write(
        "quorum.yaml",
        "providers:\n  mycli:\n    kind: command\n    command: [\"sh\", \"-c\", \"cat > /dev/null; echo {model}\"]\n",
    )
}

#[test]
fn defect_2_a_model_name_with_shell_syntax_is_refused_before_anything_runs() {
    let sandbox = Sandbox::new();
    let config = shell_provider_config(&sandbox);
    let config = config.to_str().unwrap();
    let out = out(&sandbox);
    let spec = sandbox.write(
        "spec.yaml",
        "topic: x\nagents:\n  default: \"mycli:x; touch pwned; echo\"\n",
    );
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--config",
            config,
            "--out",
            &out,
        ],
        &[],
    );
    ran.assert_code(2);
    assert!(
        ran.stderr.contains("spec.yaml:3: agents.default: "),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("`;`"), "{}", ran.stderr);

    // The same from a flag, and from the configuration's roles and
    // default_model.
    let roles = sandbox.write(
        "roles.yaml",
        "providers:\n  mycli: { kind: command, command: [sh, -c, \"echo {model}\"] }\nroles:\n  default: \"mycli:$(touch pwned)\"\n",
    );
    let default_model = sandbox.write(
        "default-model.yaml",
        "providers:\n  mycli:\n    kind: command\n    command: [sh, -c, \"echo {model}\"]\n    default_model: \"x`touch pwned`\"\n",
    );
    for (args, place) in [
        (
            vec![
                "review",
                "T",
                "--config",
                config,
                "--agent",
                "default=mycli:x;touch pwned",
            ],
            "--agent: ",
        ),
        (
            vec!["review", "T", "--config", roles.to_str().unwrap()],
            "roles.yaml:4: roles.default: ",
        ),
        (
            vec![
                "review",
                "T",
                "--config",
                default_model.to_str().unwrap(),
                "--agent",
                "default=mycli",
            ],
            "default-model.yaml:2: providers.mycli: `default_model`: ",
        ),
    ] {
        let mut args = args;
        args.extend(["--headless", "--out", &out]);
        let ran = sandbox.quorum(&args, &[]);
        ran.assert_code(2);
        assert!(ran.stderr.contains(place), "{args:?}: {}", ran.stderr);
    }
    assert!(!sandbox.out().exists(), "nothing ran, nothing was written");
    assert!(
        !sandbox.path().join("pwned").exists(),
        "a model name reached a shell"
    );
}

// 4. Command agents inherit key variables.

#[test]
fn defect_4_a_command_agent_gets_only_the_key_variables_its_env_lists() {
    let sandbox = Sandbox::new();
    sandbox.write("judge/answer.md", &flat_judge_text(JudgeRole::Analyst, 4));
    let seen = sandbox.path().join("judge/seen-env");
    let program = sandbox.write_executable(
        "judge/judge.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\nenv > {}\ncat \"$(dirname \"$0\")/answer.md\"\n",
            seen.display()
        ),
    );
    let config = sandbox.write(
        "quorum.yaml",
        &format!(
            "providers:\n  \
             envcli:\n    kind: command\n    command: [\"{}\"]\n    env: [ANTHROPIC_API_KEY]\n  \
             local: {{ kind: openai, base_url: \"http://127.0.0.1:9/v1\", api_key_env: LOCAL_SECRET }}\n",
            program.display()
        ),
    );
    let spec = scripted(&sandbox);
    let out = out(&sandbox);
    let keys = [
        ("OPENAI_API_KEY", "sk-canary-openai-0d1c2b3a4f5e"),
        ("GROQ_API_KEY", "gsk-canary-groq-9a8b7c6d"),
        ("LOCAL_SECRET", "canary-local-secret-5e4d3c"),
        ("SOMEVENDOR_API_KEY", "canary-vendor-1f2e3d4c"),
        ("ANTHROPIC_API_KEY", "sk-ant-canary-given-7a6b5c"),
        ("QUORUM_TEST_PLAIN", "plain-value-passes"),
    ];
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "judge.analyst=envcli",
            "--out",
            &out,
        ],
        &keys,
    );
    ran.assert_code(0);
    let env = std::fs::read_to_string(&seen).expect("the program ran");
    for (name, value) in &keys[..4] {
        assert!(
            !env.contains(value) && !env.contains(&format!("{name}=")),
            "{name} reached the program:\n{env}"
        );
    }
    assert!(
        env.contains("ANTHROPIC_API_KEY=sk-ant-canary-given-7a6b5c"),
        "a variable listed in env: passes:\n{env}"
    );
    assert!(
        env.contains("QUORUM_TEST_PLAIN=plain-value-passes") && env.contains("PATH="),
        "other variables are inherited:\n{env}"
    );
}

// 6. An HTTP answer has no size cap.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn defect_6_an_endless_stream_is_cut_at_the_cap_and_fails_its_call() {
    let cap = quorum::agent::http::MAX_ANSWER_STREAM_BYTES;
    let server = ProviderServer::start().await;
    // A quarter of each piece is answer text, the rest a comment: the
    // journal, which keeps the text, stays well below the cap.
    let text = "x".repeat(4 * 1024);
    let piece = format!(
        ": {}\ndata: {}\n\n",
        "p".repeat(12 * 1024),
        openai_text_chunk(&text)
    );
    // Endless as far as the client can tell: four times the cap, then
    // silence until the call's deadline, should the cap not hold.
    let times = 4 * cap / piece.len();
    for _attempt in 0..2 {
        server.push(ScriptedResponse::stream(vec![
            Frame::Repeat {
                bytes: piece.clone().into_bytes(),
                times,
            },
            Frame::Delay(Duration::from_secs(600)),
        ]));
    }
    let sandbox = Sandbox::new();
    let config = sandbox.write(
        "quorum.yaml",
        &format!(
            "providers:\n  local: {{ kind: openai, base_url: \"{}\", default_model: test-model, max_retries: 0 }}\n",
            server.openai_base_url()
        ),
    );
    let spec = scripted(&sandbox);
    let started = Instant::now();
    let timeout_secs = 45;
    let ran = quorum_in_async(
        sandbox.path(),
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "proposer=local",
            "--timeout",
            &timeout_secs.to_string(),
            "--out",
            &out(&sandbox),
        ],
        &[],
    )
    .await;
    let elapsed = started.elapsed();
    assert_ne!(ran.code, 0, "{}", ran.stderr);
    let journal = sandbox.run_dir().join("journal.jsonl");
    let journal_text = std::fs::read_to_string(&journal).unwrap();
    let reason = "the answer's stream passed 64 MiB, the most quorum reads for one answer (MAX_ANSWER_STREAM_BYTES)";
    assert!(
        journal_text.contains(reason),
        "the failed call names the limit\n--- stderr\n{}",
        ran.stderr
    );
    assert!(
        elapsed < Duration::from_secs(timeout_secs),
        "the call was cut at the cap, not at its deadline: {elapsed:?}"
    );
    let journal_bytes = std::fs::metadata(&journal).unwrap().len() as usize;
    assert!(
        journal_bytes < cap,
        "journal of {journal_bytes} bytes, the cap is {cap}"
    );
    assert!(
        server
            .wait_for_abandoned_bodies(2, Duration::from_secs(10))
            .await
            .is_some(),
        "quorum stopped reading both streams"
    );
}

// 9. Agent processes outlive quorum.

#[test]
fn defect_9_an_agent_that_ignores_sigterm_is_gone_once_quorum_has_exited() {
    let sandbox = Sandbox::new();
    let pids = sandbox.path().join("pids");
    let program = sandbox.write_executable(
        "stubborn.sh",
        &format!(
            "#!/bin/sh\ntrap '' TERM\ncat > /dev/null\nsleep 1000 &\necho $$ $! >> {}\nwait\n",
            pids.display()
        ),
    );
    let config = sandbox.write(
        "quorum.yaml",
        &format!(
            "providers:\n  stubborn: {{ kind: command, command: [\"{}\"], timeout_secs: 1 }}\n",
            program.display()
        ),
    );
    let spec = scripted(&sandbox);
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "proposer=stubborn",
            "--out",
            &out(&sandbox),
        ],
        &[],
    );
    assert_ne!(ran.code, 0, "the proposer never answers: {}", ran.stderr);
    let pids = pids_in(&pids);
    assert!(pids.len() >= 2, "the program ran: {pids:?}");
    // quorum has exited: the SIGKILL after the grace was sent before. The
    // bound only lets the kernel finish delivering it.
    assert_gone(&pids, Duration::from_secs(5), "after quorum exited");
}

#[test]
fn defect_9_an_agent_that_exits_gives_its_answer_though_a_child_holds_its_stdout() {
    let sandbox = Sandbox::new();
    sandbox.write("judge/answer.md", &flat_judge_text(JudgeRole::Analyst, 4));
    let pid_file = sandbox.path().join("judge/sleeper");
    let program = sandbox.write_executable(
        "judge/judge.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\ncat \"$(dirname \"$0\")/answer.md\"\nsleep 1000 &\necho $! > {}\nexit 0\n",
            pid_file.display()
        ),
    );
    let timeout_secs = 30;
    let config = sandbox.write(
        "quorum.yaml",
        &format!(
            "providers:\n  leaver: {{ kind: command, command: [\"{}\"], timeout_secs: {timeout_secs} }}\n",
            program.display()
        ),
    );
    let spec = scripted(&sandbox);
    let started = Instant::now();
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "judge.analyst=leaver",
            "--out",
            &out(&sandbox),
        ],
        &[],
    );
    let elapsed = started.elapsed();
    ran.assert_code(0);
    assert!(
        elapsed < Duration::from_secs(timeout_secs / 2),
        "the answer was taken when the program exited, not at its deadline: {elapsed:?}"
    );
    let debate = std::fs::read_to_string(sandbox.run_dir().join("debate.yaml")).unwrap();
    assert!(debate.contains("ADOPT"), "{debate}");
    assert_gone(
        &pids_in(&pid_file),
        Duration::from_secs(5),
        "the child holding stdout",
    );
}
