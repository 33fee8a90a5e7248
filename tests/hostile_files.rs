//! Hostile input, round two (issue 27), on the real binary: a debate
//! folder or a spec from someone else cannot make quorum write outside it,
//! follow a link, wait on a pipe or quote a file's contents; a key an agent
//! echoes is masked in everything written and shown; a prompt template
//! that loops is stopped and a signal is honoured whatever the engine is
//! doing; a file-size limit fails a write with its path. Each test is named
//! for the defect of the issue it covers.
use crate::support;

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::run::{Ran, Sandbox};

/// A key shaped like a real one, set in quorum's environment.
const KEY: &str = "sk-proj-LEAKEDleaked0123456789abcdefXYZ";

fn out(sandbox: &Sandbox) -> String {
    sandbox.out().to_str().unwrap().to_string()
}

/// A finished scripted decision review whose critique items were all
/// deferred, so `quorum open --resolve` has something to settle.
fn deferred_demo(sandbox: &Sandbox) -> PathBuf {
    sandbox
        .quorum(
            &[
                "demo",
                "--headless",
                "--speed",
                "200",
                "--moderation",
                "defer",
                "--out",
                &out(sandbox),
            ],
            &[],
        )
        .assert_code(0);
    sandbox.run_dir()
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    support::files_under(dir)
}

/// The mode a file created now by this process gets: 0666 less the umask.
fn fresh_file_mode(dir: &Path) -> u32 {
    let probe = dir.join("umask-probe");
    std::fs::write(&probe, "").unwrap();
    let mode = std::fs::metadata(&probe).unwrap().mode() & 0o777;
    std::fs::remove_file(probe).unwrap();
    mode
}

#[test]
fn defect_1_a_lock_file_that_is_a_link_is_refused_and_its_target_untouched() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let victim = sandbox.write("victim.txt", "precious\n");
    let missing = sandbox.path().join("created-by-quorum.txt");
    for target in [&victim, &missing] {
        let lock = dir.join("quorum.lock");
        let _ = std::fs::remove_file(&lock);
        symlink(target, &lock).unwrap();
        for args in [
            vec!["open", dir.to_str().unwrap(), "--resolve", "c1=accept"],
            vec!["resume", dir.to_str().unwrap(), "--headless"],
        ] {
            let ran = sandbox.quorum(&args, &[]);
            assert_ne!(ran.code, 0, "{args:?} went ahead:\n{}", ran.stderr);
            assert!(
                ran.stderr.contains("symbolic link"),
                "{args:?}: the refusal says why\n{}",
                ran.stderr
            );
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
            assert!(!missing.exists(), "{args:?} created the link's target");
        }
    }
}

#[test]
fn defect_1_a_document_that_is_a_link_is_replaced_by_a_file_of_the_users_own() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    let victim = sandbox.write("victim.md", "precious\n");
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o777)).unwrap();
    let summary = dir.join("summary.md");
    std::fs::remove_file(&summary).unwrap();
    symlink(&victim, &summary).unwrap();
    // A regular file left with every permission must not pass it on either.
    let transcript = dir.join("transcript.md");
    std::fs::set_permissions(&transcript, std::fs::Permissions::from_mode(0o777)).unwrap();

    let ran = sandbox.quorum(
        &["open", dir.to_str().unwrap(), "--resolve", "c1=accept"],
        &[],
    );
    ran.assert_code(0);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let expected = fresh_file_mode(sandbox.path());
    for document in [&summary, &transcript] {
        let meta = std::fs::symlink_metadata(document).unwrap();
        assert!(meta.file_type().is_file(), "{document:?} is a file now");
        assert_eq!(meta.mode() & 0o777, expected, "{document:?}'s mode");
    }
    assert!(std::fs::read_to_string(&summary).unwrap().contains("c1"));
}

#[test]
fn defect_1_a_journal_or_a_debate_folder_that_is_a_link_is_refused() {
    let sandbox = Sandbox::new();
    let dir = deferred_demo(&sandbox);
    // The folder itself as a link: whoever made it chose where quorum writes.
    let linked = sandbox.path().join("linked-debate");
    symlink(&dir, &linked).unwrap();
    let before = files(&dir);
    let ran = sandbox.quorum(
        &["open", linked.to_str().unwrap(), "--resolve", "c1=accept"],
        &[],
    );
    assert_ne!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stderr.contains("symbolic link"), "{}", ran.stderr);
    assert_eq!(files(&dir), before);

    // The journal as a link to a copy elsewhere: never appended to.
    let elsewhere = sandbox.path().join("elsewhere.jsonl");
    std::fs::rename(dir.join("journal.jsonl"), &elsewhere).unwrap();
    symlink(&elsewhere, dir.join("journal.jsonl")).unwrap();
    let kept = std::fs::read(&elsewhere).unwrap();
    let ran = sandbox.quorum(
        &["open", dir.to_str().unwrap(), "--resolve", "c1=accept"],
        &[],
    );
    assert_ne!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stderr.contains("symbolic link"), "{}", ran.stderr);
    assert_eq!(std::fs::read(&elsewhere).unwrap(), kept);
}

#[test]
fn defect_4_a_key_an_agent_echoes_is_masked_in_every_file_and_every_output() {
    let sandbox = Sandbox::new();
    // The agent learns the key by a road quorum cannot close (a file it
    // reads), and echoes it in its answer and on stderr, split across
    // writes so the key crosses pieces of the stream.
    sandbox.write("leaked.txt", KEY);
    let (head, tail) = KEY.split_at(11);
    sandbox.write_executable(
        "leaky.sh",
        &format!(
            "#!/bin/sh\ncat >/dev/null\nprintf 'Here is what I found: {head}'\nsleep 0.2\nprintf '{tail} and that is all.\\n'\necho \"debug: key=$(cat leaked.txt)\" >&2\n"
        ),
    );
    sandbox.write(
        "config.yaml",
        &format!(
            "providers:\n  leaky: {{ kind: command, command: [\"{}\"] }}\n",
            sandbox.path().join("leaky.sh").display()
        ),
    );
    let ran = sandbox.quorum(
        &[
            "challenge",
            "We should rewrite the billing service in Rust",
            "--headless",
            "--config",
            "config.yaml",
            "--agent",
            "default=leaky",
            "--out",
            &out(&sandbox),
        ],
        &[("OPENAI_API_KEY", KEY)],
    );
    for (name, text) in [("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
        assert!(!text.contains(KEY), "the key reached {name}:\n{text}");
    }
    let dir = sandbox.run_dir();
    let written = files(&dir);
    let mut masked_in = Vec::new();
    for (path, bytes) in &written {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(KEY), "the key reached {path}");
        assert!(!text.contains(tail), "part of the key reached {path}");
        if text.contains("[masked: OPENAI_API_KEY]") {
            masked_in.push(path.clone());
        }
    }
    for expected in ["journal.jsonl", "transcript.md"] {
        assert!(
            masked_in.iter().any(|path| path.ends_with(expected)),
            "{expected} notes the masking; masked in {masked_in:?}"
        );
    }
}

#[test]
fn defect_5_a_specs_outputs_folder_stays_in_the_specs_folder() {
    let sandbox = Sandbox::new();
    let spec_path = sandbox.path().join("council.yaml");
    sandbox
        .quorum(
            &[
                "demo",
                "--protocol",
                "council",
                "--export-script",
                spec_path.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let spec = std::fs::read_to_string(&spec_path).unwrap();
    // The spec lives in specs/; everything else in the sandbox is outside it.
    let specs = sandbox.path().join("specs");
    std::fs::create_dir(&specs).unwrap();
    let outside = sandbox.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    symlink(&outside, specs.join("link")).unwrap();
    let path = specs.join("council.yaml");
    let run = |outputs: &str, flags: &[&str]| {
        std::fs::write(&path, format!("{spec}\noutputs: \"{outputs}\"\n")).unwrap();
        let mut args = vec![
            "run",
            path.to_str().unwrap(),
            "--headless",
            "--speed",
            "200",
        ];
        args.extend_from_slice(flags);
        let out = out(&sandbox);
        args.extend(["--out", &out]);
        sandbox.quorum(&args, &[])
    };
    for (outputs, why) in [
        (outside.to_str().unwrap(), "absolute path"),
        ("../up", "`..`"),
        ("link/deliverables", "link"),
    ] {
        let ran = run(outputs, &[]);
        ran.assert_code(2);
        assert!(ran.stderr.contains("outputs"), "{}", ran.stderr);
        assert!(ran.stderr.contains(why), "{outputs}: {}", ran.stderr);
        assert!(!sandbox.out().exists(), "{outputs}: a refused run wrote");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        assert!(!sandbox.path().join("up").exists());
    }

    // Inside the spec's folder it lands there, whatever the current folder;
    // the flag, the person's own word, may send it anywhere.
    // The demo's council ends CONCERNS (exit 6).
    let finished = |ran: &Ran| ran.assert_code(6);
    finished(&run("deliverables", &[]));
    assert!(specs.join("deliverables/debate").is_dir());
    finished(&run(
        "deliverables",
        &["--outputs", outside.to_str().unwrap()],
    ));
    assert!(outside.join("debate").is_dir());
}

/// The built-in template `name`, from the source tree.
fn builtin_template(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("prompts")
            .join(name),
    )
    .unwrap()
}

#[test]
fn defect_8_a_prompt_template_that_loops_is_stopped_with_an_error() {
    let sandbox = Sandbox::new();
    let looping = format!(
        "{{% for a in range(100000) %}}{{% for b in range(100000) %}}.{{% endfor %}}{{% endfor %}}\n{}",
        builtin_template("challenge.md.j2")
    );
    sandbox.write("prompts/challenge.md.j2", &looping);
    let started = Instant::now();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--protocol",
            "challenge",
            "--headless",
            "--speed",
            "200",
            "--prompts",
            "prompts",
            "--out",
            &out(&sandbox),
        ],
        &[],
    );
    assert_ne!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("challenge.md.j2"),
        "the error names the template:\n{}",
        ran.stderr
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the loop was not stopped"
    );
}

/// quorum with `args` in `dir`, isolated, its output piped.
fn command(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(support::run::QUORUM);
    support::isolate(&mut command, dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

/// Starts quorum with `args` in `dir`, isolated, without waiting.
fn spawn(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
    command(dir, args, env).spawn().unwrap()
}

/// Waits for `child` up to `limit`; its exit code and stderr.
fn wait(mut child: std::process::Child, limit: Duration) -> (Option<i32>, String) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            return (status.code(), stderr);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("quorum did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn defect_8_a_signal_is_honoured_while_the_engine_is_stuck() {
    let sandbox = Sandbox::new();
    // The engine's thread never comes back after the journal's fifth
    // record, as if stuck in endless work.
    let child = spawn(
        sandbox.path(),
        &[
            "demo",
            "--headless",
            "--speed",
            "200",
            "--out",
            &out(&sandbox),
        ],
        &[("QUORUM_TEST_STOP_AFTER_RECORD", "busy:5")],
    );
    let journal = || {
        std::fs::read_dir(sandbox.out())
            .ok()
            .and_then(|mut runs| runs.next())
            .and_then(|run| std::fs::read_to_string(run.ok()?.path().join("journal.jsonl")).ok())
            .map_or(0, |text| text.lines().count())
    };
    let started = Instant::now();
    while journal() < 5 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no fifth record"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: kill only sends a signal to the child started above.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let signalled = Instant::now();
    let (code, stderr) = wait(child, Duration::from_secs(30));
    assert_eq!(code, Some(128 + libc::SIGTERM), "{stderr}");
    assert!(stderr.contains("terminated while busy"), "{stderr}");
    assert!(signalled.elapsed() < Duration::from_secs(15));
}

#[test]
fn defect_10_a_named_pipe_in_a_specs_folder_is_refused_at_once() {
    let sandbox = Sandbox::new();
    let fifo = sandbox.path().join("notes.md");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    sandbox.write(
        "spec.yaml",
        "protocol: quick\nmode: challenge\ntopic: \"A position\"\ncontext:\n  - path: notes.md\nagents:\n  default: script\n",
    );
    let started = Instant::now();
    let ran = sandbox.quorum(&["run", "spec.yaml", "--headless"], &[]);
    ran.assert_code(2);
    assert!(ran.stderr.contains("named pipe"), "{}", ran.stderr);
    assert!(ran.stderr.contains("context[0].path"), "{}", ran.stderr);
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn defect_11_a_secret_file_given_as_a_theme_is_not_quoted() {
    let sandbox = Sandbox::new();
    sandbox.write("secret.txt", "hunter2-correct-horse-battery\n");
    let ran = sandbox.quorum(
        &[
            "demo",
            "--theme",
            "./secret.txt",
            "--headless",
            "--speed",
            "200",
        ],
        &[],
    );
    assert_ne!(ran.code, 0);
    assert!(ran.stderr.contains("secret.txt"), "{}", ran.stderr);
    for text in [&ran.stdout, &ran.stderr] {
        assert!(
            !text.contains("hunter2"),
            "the file's text was quoted:\n{text}"
        );
    }
}

#[test]
fn defect_11_doctor_masks_a_password_in_ollama_host() {
    let sandbox = Sandbox::new();
    let ran = sandbox.quorum(
        &["doctor"],
        &[("OLLAMA_HOST", "http://admin:hunter2pass@127.0.0.1:9")],
    );
    for text in [&ran.stdout, &ran.stderr] {
        assert!(
            !text.contains("hunter2pass"),
            "a password was shown:\n{text}"
        );
    }
    assert!(ran.stdout.contains("127.0.0.1:9"), "{}", ran.stdout);
}

#[test]
fn defect_11_a_file_size_limit_fails_a_write_with_its_path() {
    use std::os::unix::process::CommandExt;
    let sandbox = Sandbox::new();
    let out = out(&sandbox);
    let mut command = command(
        sandbox.path(),
        &["demo", "--headless", "--speed", "200", "--out", &out],
        &[],
    );
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 4096,
                rlim_max: 4096,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let (code, stderr) = wait(command.spawn().unwrap(), Duration::from_secs(120));
    let ran = Ran {
        code: code.expect("quorum exited with a code, not killed by SIGXFSZ"),
        stdout: String::new(),
        stderr,
        peak_rss_bytes: 0,
    };
    assert_ne!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&out),
        "the error names the file:\n{}",
        ran.stderr
    );
}
