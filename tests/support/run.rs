//! Running the real binary from end-to-end tests: one private folder per
//! test ([`Sandbox`]), an isolated environment (no key variable, no config,
//! no Ollama), and what the process did ([`Ran`]).

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const QUORUM: &str = env!("CARGO_BIN_EXE_quorum");
/// How long one invocation may take before the test kills it.
pub const PROCESS_DEADLINE: Duration = Duration::from_secs(120);

/// What one invocation of the binary did.
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The most memory the process was seen to hold at once (its peak
    /// resident set, `VmHWM`, read every few milliseconds while it ran), in
    /// bytes: a test of memory counts bytes, never time. Not the kernel's
    /// `ru_maxrss`, which for a child of the test process starts at the
    /// test process's own size.
    pub peak_rss_bytes: u64,
}

impl Ran {
    pub fn assert_code(&self, expected: i32) {
        assert_eq!(
            self.code, expected,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
    }
}

/// Runs the binary in `dir` (isolated, see [`super::isolate`]) with `args`
/// and extra `env`; `stdin`, if any, is written and closed. A process still
/// running after [`PROCESS_DEADLINE`] is killed and the test fails.
pub fn quorum_in(dir: &Path, args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> Ran {
    let mut command = Command::new(QUORUM);
    super::isolate(&mut command, dir)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("start quorum");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().expect("piped stdin");
        // quorum may stop reading early; a broken pipe is its business.
        let _ = pipe.write_all(text.as_bytes());
    }
    let reader = |mut stream: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            stream.read_to_string(&mut text).expect("utf-8 output");
            text
        })
    };
    let stdout = reader(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = reader(Box::new(child.stderr.take().expect("piped stderr")));
    let started = Instant::now();
    let mut peak_rss_bytes = 0;
    let status = loop {
        peak_rss_bytes = peak_rss_bytes.max(high_water_mark(child.id()));
        if let Some(status) = child.try_wait().expect("wait for quorum") {
            break status;
        }
        if started.elapsed() > PROCESS_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("quorum {args:?} still running after {PROCESS_DEADLINE:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ran {
        code: status
            .code()
            .expect("quorum exited, not killed by a signal"),
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
        peak_rss_bytes,
    }
}

/// The peak resident set of process `pid` so far (`VmHWM` in its
/// `/proc` status), in bytes; 0 once it has exited.
fn high_water_mark(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(0)
}

/// [`quorum_in`] from async tests, off the runtime's threads (the test may
/// serve the binary's HTTP requests on that runtime).
pub async fn quorum_in_async(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    let dir = dir.to_path_buf();
    let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let env: Vec<(&str, &str)> = env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        quorum_in(&dir, &args, &env, None)
    })
    .await
    .expect("the runner thread")
}

/// One test's private folder: specs, the artifact root and an empty config
/// home, so no user prompt override or configuration can leak in; no key
/// variable and no Ollama server are visible either.
pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox::new()
    }
}

impl Sandbox {
    pub fn new() -> Self {
        Sandbox {
            dir: tempfile::tempdir().expect("temporary folder"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The `--out` root of every run.
    pub fn out(&self) -> PathBuf {
        self.path().join("out")
    }

    /// Writes `text` to `name` under the sandbox, creating folders.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a test folder");
        }
        std::fs::write(&path, text).expect("write a test file");
        path
    }

    pub fn write_executable(&self, name: &str, text: &str) -> PathBuf {
        let path = self.write(name, text);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("make it executable");
        path
    }

    /// Runs quorum in the sandbox with `args` and extra environment variables.
    pub fn quorum(&self, args: &[&str], env: &[(&str, &str)]) -> Ran {
        quorum_in(self.path(), args, env, None)
    }

    /// `quorum demo --headless --json --speed 50 --out ROOT` and `args`,
    /// ROOT being `root` under the sandbox.
    pub fn demo_into(&self, root: &str, args: &[&str]) -> Ran {
        self.headless(&["demo", "--json"], &self.path().join(root), args)
    }

    /// `quorum run SPEC --headless --speed 50 --out OUT` and `args`, the
    /// spec a file under the sandbox, OUT [`Sandbox::out`].
    pub fn run_spec(&self, spec: &str, args: &[&str]) -> Ran {
        self.headless(&["run", spec], &self.out(), args)
    }

    /// `quorum HEAD… --headless --speed 50 --out OUT ARGS…`.
    fn headless(&self, head: &[&str], out: &Path, args: &[&str]) -> Ran {
        let mut all = head.to_vec();
        all.extend([
            "--headless",
            "--speed",
            "50",
            "--out",
            out.to_str().expect("a UTF-8 path"),
        ]);
        all.extend(args);
        self.quorum(&all, &[])
    }

    /// The one debate folder under `out`.
    pub fn run_dir(&self) -> PathBuf {
        only_run(&self.out())
    }
}

/// The one debate folder under the artifact root `out` (a council's
/// `.outputs/` beside it is not one).
pub fn only_run(out: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(out)
        .expect("the artifact root exists")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| !path.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert_eq!(runs.len(), 1, "exactly one run folder: {runs:?}");
    runs.into_iter().next().unwrap()
}
