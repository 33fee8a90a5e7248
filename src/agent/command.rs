//! The `command` provider: a local program answers the call, such as another
//! agent's command-line interface or a small script.
//!
//! The program is started from an argument list, never through a shell. It
//! gets the prompt on stdin (closed once written) and its stdout is the answer,
//! streamed as it arrives. Its stderr is passed on as
//! [`StreamEvent::Diagnostic`]s for the transcript, and its last part is kept
//! for the error message when the program fails. Exit code 0 is an answer;
//! anything else is an [`AgentError`].
//!
//! The program runs in a process group of its own. When the call future is
//! dropped (the engine cancelled the call or its deadline passed), the whole
//! group is sent SIGTERM and, after [`KILL_GRACE_MS`], SIGKILL, so a program
//! that started helpers of its own leaves nothing running.
//!
//! The program does not inherit the variables that hold keys
//! ([`crate::config::keys`]) unless its provider's `env:` lists them; every
//! other variable it inherits as it is.
//!
//! Not responsible for deadlines (the engine drops the future), token counts
//! (a program reports none; the engine estimates them) or parsing the answer.

use std::ffi::OsString;
use std::io::ErrorKind;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::{
    Agent, AgentError, AgentInfo, CallOutput, CallRequest, EventSender, FinishReason, StreamEvent,
};

/// How much of a program's stderr is kept for its error message, in bytes
/// (the last part; the transcript gets all of it through the engine).
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;
/// How many characters of that stderr tail an error message quotes.
pub const ERROR_STDERR_CHARS: usize = 2_000;
/// Largest answer accepted on stdout, in bytes; a program that writes more
/// fails the call instead of filling memory.
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
/// After SIGTERM, how long a cancelled program's group has to exit before
/// SIGKILL, in milliseconds.
pub const KILL_GRACE_MS: u64 = 300;
/// How often a terminating group is checked for survivors, in milliseconds.
const GROUP_POLL_MS: u64 = 20;
/// Size of one read from the program's pipes, in bytes.
const READ_CHUNK_BYTES: usize = 8 * 1024;

/// A problem with how a command agent was set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("the command is empty: give the program and its arguments as a list")]
    EmptyArgv,
}

/// An agent backed by a local program.
pub struct CommandAgent {
    argv: Vec<String>,
    info: AgentInfo,
    /// Variables that hold keys ([`crate::config::keys::key_variables`]).
    key_variables: Vec<String>,
    /// The key variables the program is given all the same (`env:`).
    given_variables: Vec<String>,
}

impl CommandAgent {
    /// `argv[0]` is the program (looked up on `PATH` when it has no slash),
    /// the rest its arguments. `info` is how panes and records name it. The
    /// program gets no well-known key variable; see [`Self::with_variables`].
    pub fn new(argv: Vec<String>, info: AgentInfo) -> Result<Self, CommandError> {
        if argv.first().is_none_or(|program| program.is_empty()) {
            return Err(CommandError::EmptyArgv);
        }
        Ok(CommandAgent {
            argv,
            info,
            key_variables: crate::config::keys::KNOWN_KEY_VARIABLES
                .iter()
                .map(|name| name.to_string())
                .collect(),
            given_variables: Vec::new(),
        })
    }

    /// Withholds `key_variables` (and every variable
    /// [`crate::config::keys::is_key_variable`] recognises) from the
    /// program, except those in `given`.
    pub fn with_variables(mut self, key_variables: Vec<String>, given: Vec<String>) -> Self {
        self.key_variables = key_variables;
        self.given_variables = given;
        self
    }

    /// The variables among `names` (quorum's environment) the program does
    /// not get.
    fn withheld_among(&self, names: impl Iterator<Item = OsString>) -> Vec<OsString> {
        names
            .filter(|name| {
                // A name that is not UTF-8 is judged by its readable part.
                let text = name.to_string_lossy();
                crate::config::keys::is_key_variable(&text, &self.key_variables)
                    && !self.given_variables.iter().any(|given| *given == text)
            })
            .collect()
    }

    fn program(&self) -> &str {
        &self.argv[0]
    }

    async fn run(
        &self,
        request: CallRequest,
        events: EventSender,
    ) -> Result<CallOutput, AgentError> {
        let mut command = Command::new(self.program());
        command
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        for name in self.withheld_among(std::env::vars_os().map(|(name, _)| name)) {
            command.env_remove(name);
        }
        let mut child = command.spawn().map_err(|error| {
            AgentError::Provider(format!("cannot start `{}`: {error}", self.program()))
        })?;
        let mut group = child.id().map(ProcessGroupGuard::new);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();

        let write_prompt = async {
            let Some(mut stdin) = stdin else { return };
            // A program may answer without reading all of its input.
            let _ = stdin.write_all(request.prompt.as_bytes()).await;
            let _ = stdin.shutdown().await;
        };
        let read_answer = read_stream(stdout, MAX_ANSWER_BYTES, |text| {
            events.send(StreamEvent::Text(text));
        });
        let read_stderr = read_tail(stderr, STDERR_TAIL_BYTES, |text| {
            events.send(StreamEvent::Diagnostic(text));
        });
        let ((), answer, stderr_tail) = tokio::join!(write_prompt, read_answer, read_stderr);
        let answer = answer.map_err(|error| self.read_failed("stdout", error))?;
        let stderr_tail = stderr_tail.map_err(|error| self.read_failed("stderr", error))?;
        let status = child.wait().await.map_err(|error| {
            AgentError::Provider(format!("waiting for `{}`: {error}", self.program()))
        })?;
        // The leader has been reaped: its group id may be reused from now on.
        if let Some(group) = group.as_mut() {
            group.disarm();
        }
        if status.success() {
            return Ok(CallOutput {
                text: answer,
                usage: None,
                finish: FinishReason::Stop,
            });
        }
        let how = match (status.code(), status.signal()) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(signal)) => format!("was killed by signal {signal}"),
            (None, None) => "ended abnormally".to_string(),
        };
        let quoted = last_chars(stderr_tail.trim_end(), ERROR_STDERR_CHARS);
        let message = if quoted.is_empty() {
            format!("`{}` {how} and wrote nothing on stderr", self.program())
        } else {
            format!("`{}` {how}; stderr ends with: {quoted}", self.program())
        };
        Err(AgentError::Provider(message))
    }

    fn read_failed(&self, stream: &str, error: ReadError) -> AgentError {
        match error {
            ReadError::TooLarge => AgentError::Provider(format!(
                "`{}` wrote more than {} MiB on {stream}; the call was stopped",
                self.program(),
                MAX_ANSWER_BYTES / (1024 * 1024)
            )),
            ReadError::Io(error) => {
                AgentError::Provider(format!("reading `{}` {stream}: {error}", self.program()))
            }
        }
    }
}

impl Agent for CommandAgent {
    fn info(&self) -> AgentInfo {
        self.info.clone()
    }

    fn call<'a>(
        &'a self,
        request: CallRequest,
        events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        Box::pin(self.run(request, events))
    }
}

enum ReadError {
    TooLarge,
    Io(std::io::Error),
}

/// Reads `stream` to its end, handing each decoded piece to `on_text` as it
/// arrives; returns the whole text.
async fn read_stream(
    stream: Option<impl AsyncRead + Unpin>,
    max_bytes: usize,
    mut on_text: impl FnMut(String),
) -> Result<String, ReadError> {
    let mut whole = String::new();
    let Some(mut stream) = stream else {
        return Ok(whole);
    };
    let mut decoder = Utf8Decoder::default();
    let mut buffer = vec![0u8; READ_CHUNK_BYTES];
    let mut total_bytes = 0usize;
    loop {
        let read = match stream.read(&mut buffer).await {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == ErrorKind::Interrupted => continue,
            Err(error) => return Err(ReadError::Io(error)),
        };
        total_bytes += read;
        if total_bytes > max_bytes {
            return Err(ReadError::TooLarge);
        }
        let text = decoder.push(&buffer[..read]);
        if !text.is_empty() {
            whole.push_str(&text);
            on_text(text);
        }
    }
    let rest = decoder.finish();
    if !rest.is_empty() {
        whole.push_str(&rest);
        on_text(rest);
    }
    Ok(whole)
}

/// Like [`read_stream`], but keeps only the last `tail_bytes` (roughly: cut
/// on a character boundary) and never fails for size.
async fn read_tail(
    stream: Option<impl AsyncRead + Unpin>,
    tail_bytes: usize,
    mut on_text: impl FnMut(String),
) -> Result<String, ReadError> {
    let mut tail = String::new();
    read_stream(stream, usize::MAX, |text| {
        tail.push_str(&text);
        if tail.len() > tail_bytes {
            let mut cut = tail.len() - tail_bytes;
            while !tail.is_char_boundary(cut) {
                cut += 1;
            }
            tail.drain(..cut);
        }
        on_text(text);
    })
    .await?;
    Ok(tail)
}

/// The last `count` characters of `text`.
fn last_chars(text: &str, count: usize) -> &str {
    let skip = text.chars().count().saturating_sub(count);
    match text.char_indices().nth(skip) {
        Some((index, _)) => &text[index..],
        None => "",
    }
}

/// Decodes UTF-8 that arrives in arbitrary pieces: a character split across
/// two reads is held back until it is complete; invalid bytes become U+FFFD.
#[derive(Default)]
struct Utf8Decoder {
    pending: Vec<u8>,
}

impl Utf8Decoder {
    fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        let mut start = 0;
        loop {
            match std::str::from_utf8(&self.pending[start..]) {
                Ok(text) => {
                    out.push_str(text);
                    start = self.pending.len();
                    break;
                }
                Err(error) => {
                    let valid = start + error.valid_up_to();
                    out.push_str(
                        std::str::from_utf8(&self.pending[start..valid]).expect("valid up to here"),
                    );
                    match error.error_len() {
                        Some(invalid) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            start = valid + invalid;
                        }
                        // An incomplete character at the end: wait for the rest.
                        None => {
                            start = valid;
                            break;
                        }
                    }
                }
            }
        }
        self.pending.drain(..start);
        out
    }

    fn finish(self) -> String {
        String::from_utf8_lossy(&self.pending).into_owned()
    }
}

/// Terminates a program's whole process group when dropped, unless disarmed
/// after the program was waited for.
struct ProcessGroupGuard {
    group_id: libc::pid_t,
    armed: bool,
}

impl ProcessGroupGuard {
    /// The group of a child started with `process_group(0)` has the child's id.
    fn new(child_id: u32) -> Self {
        ProcessGroupGuard {
            group_id: child_id as libc::pid_t,
            armed: true,
        }
    }

    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for ProcessGroupGuard {
    fn drop(&mut self) {
        if !self.armed || self.group_id <= 1 {
            return;
        }
        let group_id = self.group_id;
        // SAFETY: killpg only sends a signal; the group leader has not been
        // waited for, so the id still names this program's group.
        if unsafe { libc::killpg(group_id, libc::SIGTERM) } != 0 {
            return;
        }
        // A drop cannot wait: a short-lived thread gives the group its grace
        // period and then kills what is left.
        let _ = std::thread::Builder::new()
            .name("quorum-command-reaper".into())
            .spawn(move || {
                let deadline = Instant::now() + Duration::from_millis(KILL_GRACE_MS);
                while Instant::now() < deadline {
                    // SAFETY: signal 0 only checks that the group still exists.
                    if unsafe { libc::killpg(group_id, 0) } != 0 {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(GROUP_POLL_MS));
                }
                // SAFETY: as above; the group still exists.
                unsafe { libc::killpg(group_id, libc::SIGKILL) };
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_split_across_reads_are_decoded_whole() {
        let text = "Grüße — 日本語 🦀";
        let bytes = text.as_bytes();
        for split in 0..=bytes.len() {
            let mut decoder = Utf8Decoder::default();
            let mut out = decoder.push(&bytes[..split]);
            out.push_str(&decoder.push(&bytes[split..]));
            out.push_str(&decoder.finish());
            assert_eq!(out, text, "split at byte {split}");
        }
        let mut decoder = Utf8Decoder::default();
        let out: String = bytes
            .iter()
            .map(|byte| decoder.push(std::slice::from_ref(byte)))
            .collect();
        assert_eq!(out + &decoder.finish(), text);
    }

    #[test]
    fn invalid_bytes_become_replacement_characters() {
        let mut decoder = Utf8Decoder::default();
        assert_eq!(
            decoder.push(b"ok \xff\xfe then"),
            "ok \u{fffd}\u{fffd} then"
        );
        // A truncated character at the very end is flushed lossily.
        assert_eq!(decoder.push(b" \xe6\x97"), " ");
        assert_eq!(decoder.finish(), "\u{fffd}");
    }

    #[test]
    fn last_chars_counts_characters() {
        assert_eq!(last_chars("日本語です", 2), "です");
        assert_eq!(last_chars("ab", 5), "ab");
        assert_eq!(last_chars("", 5), "");
    }

    #[test]
    fn an_empty_command_is_refused() {
        let info = AgentInfo {
            provider: "command".into(),
            model: "x".into(),
        };
        assert_eq!(
            CommandAgent::new(Vec::new(), info.clone()).err(),
            Some(CommandError::EmptyArgv)
        );
        assert!(CommandAgent::new(vec![String::new()], info).is_err());
    }

    // ---- real programs ---------------------------------------------------------

    use std::os::unix::fs::PermissionsExt;
    use std::path::{Path, PathBuf};

    /// Writes an executable `#!/bin/sh` script into `dir`.
    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn agent(argv: &[&str]) -> CommandAgent {
        CommandAgent::new(
            argv.iter().map(|arg| arg.to_string()).collect(),
            AgentInfo {
                provider: "command".into(),
                model: "test".into(),
            },
        )
        .unwrap()
    }

    fn request(prompt: &str) -> CallRequest {
        CallRequest {
            call_id: "critic/critique/r1/a1".into(),
            role: "critic".into(),
            stage: "critique".into(),
            round: 1,
            attempt: 1,
            prompt: prompt.into(),
        }
    }

    fn drain(events: &mut crate::agent::events::EventReceiver) -> (String, String) {
        let (mut text, mut diagnostics) = (String::new(), String::new());
        while let Some(event) = events.try_recv() {
            match event {
                StreamEvent::Text(piece) => text.push_str(&piece),
                StreamEvent::Diagnostic(piece) => diagnostics.push_str(&piece),
                other => panic!("unexpected {other:?}"),
            }
        }
        (text, diagnostics)
    }

    /// Whether `pid` is a live process (a zombie counts as gone: it only
    /// waits for its parent to collect it).
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

    #[tokio::test]
    async fn the_prompt_goes_to_stdin_and_stdout_is_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let echo = script(dir.path(), "echo.sh", "echo \"args: $*\"\ncat\n");
        let agent = agent(&[echo.to_str().unwrap(), "--flag", "two words"]);
        let prompt = "Judge this: 日本語 ✓\n".repeat(20_000);
        let (sender, mut events) = crate::agent::events::channel();
        let output = agent.call(request(&prompt), sender).await.unwrap();
        let expected = format!("args: --flag two words\n{prompt}");
        assert_eq!(output.text, expected);
        assert_eq!(output.finish, FinishReason::Stop);
        assert_eq!(output.usage, None);
        let (streamed, diagnostics) = drain(&mut events);
        assert_eq!(streamed, expected);
        assert_eq!(diagnostics, "");
    }

    #[tokio::test]
    async fn stdout_streams_before_the_program_ends() {
        let dir = tempfile::tempdir().unwrap();
        let go = dir.path().join("go");
        let slow = script(
            dir.path(),
            "slow.sh",
            "echo first\nwhile [ ! -e \"$1\" ]; do sleep 0.01; done\necho second\n",
        );
        let agent = std::sync::Arc::new(agent(&[slow.to_str().unwrap(), go.to_str().unwrap()]));
        let (sender, mut events) = crate::agent::events::channel();
        let call = tokio::spawn({
            let agent = agent.clone();
            async move { agent.call(request(""), sender).await }
        });
        assert_eq!(
            events.recv().await,
            Some(StreamEvent::Text("first\n".into()))
        );
        assert!(!call.is_finished(), "the program is still waiting for `go`");
        std::fs::write(&go, "").unwrap();
        let output = call.await.unwrap().unwrap();
        assert_eq!(output.text, "first\nsecond\n");
    }

    #[tokio::test]
    async fn a_non_zero_exit_is_an_error_with_the_code_and_the_end_of_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let failing = script(
            dir.path(),
            "fail.sh",
            "echo partial answer\necho 'warming up' >&2\necho 'quota exhausted for today' >&2\nexit 3\n",
        );
        let agent = agent(&[failing.to_str().unwrap()]);
        let (sender, mut events) = crate::agent::events::channel();
        let error = agent.call(request("x"), sender).await.unwrap_err();
        let AgentError::Provider(message) = error else {
            panic!("expected a provider error, got {error:?}");
        };
        assert!(message.contains("exited with code 3"), "{message}");
        assert!(message.contains("quota exhausted for today"), "{message}");
        let (streamed, diagnostics) = drain(&mut events);
        assert_eq!(streamed, "partial answer\n");
        assert_eq!(diagnostics, "warming up\nquota exhausted for today\n");
    }

    #[tokio::test]
    async fn a_missing_program_is_an_error_naming_it() {
        let agent = agent(&["/nonexistent/quorum-test-agent"]);
        let (sender, _events) = crate::agent::events::channel();
        let error = agent.call(request("x"), sender).await.unwrap_err();
        assert!(
            error
                .to_string()
                .contains("cannot start `/nonexistent/quorum-test-agent`"),
            "{error}"
        );
    }

    #[test]
    fn key_variables_are_withheld_unless_given() {
        let agent = agent(&["x"]).with_variables(
            vec!["OPENAI_API_KEY".into(), "LOCAL_SECRET".into()],
            vec!["OPENAI_API_KEY".into()],
        );
        let names = [
            "PATH",
            "HOME",
            "OPENAI_API_KEY",
            "LOCAL_SECRET",
            "VENDOR_API_KEY",
        ]
        .map(OsString::from);
        assert_eq!(
            agent.withheld_among(names.into_iter()),
            [
                OsString::from("LOCAL_SECRET"),
                OsString::from("VENDOR_API_KEY")
            ]
        );
        let by_default = self::agent(&["x"]).withheld_among(
            ["ANTHROPIC_API_KEY", "HF_TOKEN", "TERM"]
                .map(OsString::from)
                .into_iter(),
        );
        assert_eq!(
            by_default,
            [
                OsString::from("ANTHROPIC_API_KEY"),
                OsString::from("HF_TOKEN")
            ]
        );
    }

    #[tokio::test]
    async fn dropping_the_call_kills_the_program_and_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let spawner = script(
            dir.path(),
            "spawner.sh",
            "sleep 1000 &\necho \"$$ $!\"\nsleep 1000\n",
        );
        let agent = agent(&[spawner.to_str().unwrap()]);
        let (sender, mut events) = crate::agent::events::channel();
        let mut call = agent.call(request(""), sender);
        // The line may arrive in more than one read of the pipe.
        let mut line = String::new();
        while !line.contains('\n') {
            tokio::select! {
                event = events.recv() => match event {
                    Some(StreamEvent::Text(text)) => line.push_str(&text),
                    other => panic!("expected the pids, got {other:?} after {line:?}"),
                },
                result = &mut call => panic!("the program ended early: {result:?}"),
            }
        }
        let pids: Vec<i32> = line
            .split_whitespace()
            .map(|pid| pid.parse().unwrap())
            .collect();
        assert_eq!(pids.len(), 2, "{line:?}");
        assert!(pids.iter().all(|pid| is_running(*pid)));
        drop(call);
        // Generous: SIGTERM should end both at once, SIGKILL follows after the grace.
        let deadline = Instant::now() + Duration::from_secs(10);
        while pids.iter().any(|pid| is_running(*pid)) {
            assert!(
                Instant::now() < deadline,
                "still running 10 s after the cancel: {pids:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
