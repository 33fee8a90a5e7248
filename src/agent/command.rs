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
//! The program does not inherit the variables that hold keys
//! ([`crate::config::keys`]) unless its provider's `env:` lists them; every
//! other variable it inherits as it is.
//!
//! The program runs in a process group of its own, and the group is ended in
//! every path: SIGTERM to the whole group and, after [`KILL_GRACE_MS`],
//! SIGKILL to whatever is left of it. When the program exits, the call takes
//! what its pipes hold and, once they close or [`PIPE_DRAIN_GRACE_MS`] has
//! passed (a helper it left behind may hold them open for ever), returns the
//! answer and ends the group. When the call future is dropped (the engine
//! cancelled the call or its deadline passed), the group is ended too. The
//! program is not reaped before its group has been sent SIGTERM, so the
//! group's id cannot meanwhile name someone else's; a reaper thread sends the
//! SIGKILL and reaps it, and [`wait_for_ending_groups`] finishes that work
//! before quorum exits, which would otherwise end the thread first.
//!
//! Not responsible for deadlines (the engine drops the future), token counts
//! (a program reports none; the engine estimates them) or parsing the answer.

use std::ffi::OsString;
use std::io::ErrorKind;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::Stdio;
use std::sync::{Condvar, Mutex, Once};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;

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
/// After SIGTERM, how long a program's group has to exit before SIGKILL, in
/// milliseconds.
pub const KILL_GRACE_MS: u64 = 300;
/// Once the program has exited, how long its pipes may stay open before the
/// answer is taken as it stands, in milliseconds: whatever the program wrote
/// is already in them, and only something it left running keeps them open.
pub const PIPE_DRAIN_GRACE_MS: u64 = 200;
/// How often a group being ended is checked for survivors, in milliseconds.
const GROUP_POLL_MS: u64 = 20;
/// How often a running program is checked for having exited when no SIGCHLD
/// says so, in milliseconds (a safety net: SIGCHLD normally wakes the check).
const EXIT_POLL_MS: u64 = 250;
/// Longest wait, after a group's SIGKILL, for its program to be reaped before
/// quorum exits anyway, in milliseconds.
const REAP_AFTER_KILL_MS: u64 = 1_000;
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

    fn program(&self) -> &str {
        &self.argv[0]
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

    async fn run(
        &self,
        request: CallRequest,
        events: EventSender,
    ) -> Result<CallOutput, AgentError> {
        let mut command = std::process::Command::new(self.program());
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
        // From here on, dropping `group` ends the program and its group.
        let group = ProcessGroup::new(child.id());
        let pipe_failed = |error: std::io::Error| {
            AgentError::Provider(format!("`{}`: its pipes: {error}", self.program()))
        };
        let stdin = child
            .stdin
            .take()
            .map(|stdin| pipe::Sender::from_owned_fd(OwnedFd::from(stdin)))
            .transpose()
            .map_err(pipe_failed)?;
        let receiver = |fd: Option<OwnedFd>| {
            fd.map(pipe::Receiver::from_owned_fd)
                .transpose()
                .map_err(pipe_failed)
        };
        let stdout = receiver(child.stdout.take().map(OwnedFd::from))?;
        let stderr = receiver(child.stderr.take().map(OwnedFd::from))?;
        // The program is reaped by the group's ending, not by `child`.
        drop(child);

        let mut answer = PipeText::whole(MAX_ANSWER_BYTES);
        let mut stderr_tail = PipeText::tail(STDERR_TAIL_BYTES);
        let ended = {
            let write_prompt = async move {
                if let Some(mut stdin) = stdin {
                    // A program may answer without reading all of its
                    // input; dropping the pipe closes its stdin.
                    let _ = stdin.write_all(request.prompt.as_bytes()).await;
                }
                Ok::<(), (&str, ReadError)>(())
            };
            let read_answer = pump(stdout, &mut answer, |text| {
                events.send(StreamEvent::Text(text));
            });
            let read_stderr = pump(stderr, &mut stderr_tail, |text| {
                events.send(StreamEvent::Diagnostic(text));
            });
            let pipes = async {
                tokio::try_join!(
                    write_prompt,
                    async { read_answer.await.map_err(|error| ("stdout", error)) },
                    async { read_stderr.await.map_err(|error| ("stderr", error)) },
                )
                .map(|_| PipesEnded::Closed)
            };
            let mut pipes = std::pin::pin!(pipes);
            // Too much output fails the call whatever the program does next.
            tokio::select! {
                pipes = &mut pipes => match pipes {
                    Ok(ended) => Ok((ended, group.exited().await)),
                    Err(failed) => Err(failed),
                },
                exit = group.exited() => {
                    let grace = Duration::from_millis(PIPE_DRAIN_GRACE_MS);
                    match tokio::time::timeout(grace, &mut pipes).await {
                        Ok(pipes) => pipes.map(|ended| (ended, exit)),
                        Err(_) => Ok((PipesEnded::HeldOpen, exit)),
                    }
                },
            }
        };
        if let Some(rest) = answer.finish() {
            events.send(StreamEvent::Text(rest));
        }
        if let Some(rest) = stderr_tail.finish() {
            events.send(StreamEvent::Diagnostic(rest));
        }
        // Whatever happened, the group is ended now: SIGTERM, then SIGKILL.
        drop(group);
        let (pipes, exit) = ended.map_err(|(stream, error)| self.read_failed(stream, error))?;
        if let PipesEnded::HeldOpen = pipes {
            events.send(StreamEvent::Diagnostic(format!(
                "quorum: `{}` exited, but something it started kept its pipes open; \
                 its answer was taken {PIPE_DRAIN_GRACE_MS} ms later and its process group ended\n",
                self.program()
            )));
        }
        let exit = exit.map_err(|error| {
            AgentError::Provider(format!("waiting for `{}`: {error}", self.program()))
        })?;
        let how = match exit {
            ProgramExit::Code(0) => {
                return Ok(CallOutput {
                    text: answer.text,
                    usage: None,
                    finish: FinishReason::Stop,
                });
            }
            ProgramExit::Code(code) => format!("exited with code {code}"),
            ProgramExit::Signal(signal) => format!("was killed by signal {signal}"),
        };
        let quoted = last_chars(stderr_tail.text.trim_end(), ERROR_STDERR_CHARS);
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

/// How the program's pipes ended.
enum PipesEnded {
    /// Both reached their end.
    Closed,
    /// The program exited, but they stayed open past [`PIPE_DRAIN_GRACE_MS`].
    HeldOpen,
}

/// How the program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ProgramExit {
    Code(i32),
    Signal(i32),
}

enum ReadError {
    TooLarge,
    Io(std::io::Error),
}

/// What came through one pipe: all of it (stdout) or its last part
/// (stderr), decoded as UTF-8 across reads. It lives outside the reading
/// future, so what arrived is kept when reading stops early.
struct PipeText {
    text: String,
    decoder: Utf8Decoder,
    bytes: usize,
    /// Stdout: the most bytes accepted.
    max_bytes: Option<usize>,
    /// Stderr: how many bytes of the end are kept.
    tail_bytes: Option<usize>,
}

impl PipeText {
    fn whole(max_bytes: usize) -> Self {
        PipeText {
            text: String::new(),
            decoder: Utf8Decoder::default(),
            bytes: 0,
            max_bytes: Some(max_bytes),
            tail_bytes: None,
        }
    }

    fn tail(tail_bytes: usize) -> Self {
        PipeText {
            max_bytes: None,
            tail_bytes: Some(tail_bytes),
            ..PipeText::whole(0)
        }
    }

    /// Takes the next bytes; returns the text they complete.
    fn push(&mut self, bytes: &[u8]) -> Result<String, ReadError> {
        self.bytes += bytes.len();
        if self.max_bytes.is_some_and(|max| self.bytes > max) {
            return Err(ReadError::TooLarge);
        }
        let text = self.decoder.push(bytes);
        self.keep(&text);
        Ok(text)
    }

    fn keep(&mut self, text: &str) {
        self.text.push_str(text);
        if let Some(tail_bytes) = self.tail_bytes
            && self.text.len() > tail_bytes
        {
            let mut cut = self.text.len() - tail_bytes;
            while !self.text.is_char_boundary(cut) {
                cut += 1;
            }
            self.text.drain(..cut);
        }
    }

    /// The last incomplete character, lossily; `None` when nothing was
    /// pending.
    fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.decoder).finish();
        if rest.is_empty() {
            return None;
        }
        self.keep(&rest);
        Some(rest)
    }
}

/// Reads `stream` to its end into `into`, handing each decoded piece to
/// `on_text` as it arrives.
async fn pump(
    stream: Option<impl AsyncRead + Unpin>,
    into: &mut PipeText,
    mut on_text: impl FnMut(String),
) -> Result<(), ReadError> {
    let Some(mut stream) = stream else {
        return Ok(());
    };
    let mut buffer = vec![0u8; READ_CHUNK_BYTES];
    loop {
        let read = match stream.read(&mut buffer).await {
            Ok(0) => return Ok(()),
            Ok(read) => read,
            Err(error) if error.kind() == ErrorKind::Interrupted => continue,
            Err(error) => return Err(ReadError::Io(error)),
        };
        let text = into.push(&buffer[..read])?;
        if !text.is_empty() {
            on_text(text);
        }
    }
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

/// A running program's process group, whose id is the program's. Dropping
/// it ends the group ([`end_group`]); until then the program is never
/// reaped, so the id stays the program's even after it exits.
struct ProcessGroup {
    group_id: libc::pid_t,
}

impl ProcessGroup {
    /// The group of a child started with `process_group(0)` has the child's id.
    fn new(child_id: u32) -> Self {
        let group_id = child_id as libc::pid_t;
        lock_running().push(group_id);
        ProcessGroup { group_id }
    }

    /// How the program ended, if it has, leaving it unreaped.
    fn peek_exit(&self) -> std::io::Result<Option<ProgramExit>> {
        loop {
            // SAFETY: a zeroed siginfo_t is a valid value to be filled in.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            // SAFETY: waitid writes only into `info`; WNOWAIT leaves the
            // child waitable, WNOHANG returns at once.
            let result = unsafe {
                libc::waitid(
                    libc::P_PID,
                    self.group_id as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                )
            };
            if result != 0 {
                let error = std::io::Error::last_os_error();
                if error.kind() == ErrorKind::Interrupted {
                    continue;
                }
                return Err(error);
            }
            // SAFETY: waitid succeeded, so `info` holds a SIGCHLD's fields
            // (all zero when the child has not exited yet).
            let (pid, status) = unsafe { (info.si_pid(), info.si_status()) };
            if pid == 0 {
                return Ok(None);
            }
            return Ok(Some(match info.si_code {
                libc::CLD_EXITED => ProgramExit::Code(status),
                _ => ProgramExit::Signal(status),
            }));
        }
    }

    /// Resolves once the program has exited (it stays unreaped). SIGCHLD
    /// wakes the check; a slow poll stands in if it cannot be listened to.
    async fn exited(&self) -> std::io::Result<ProgramExit> {
        use tokio::signal::unix::{SignalKind, signal};
        let mut sigchld = signal(SignalKind::child()).ok();
        loop {
            if let Some(exit) = self.peek_exit()? {
                return Ok(exit);
            }
            let poll = tokio::time::sleep(Duration::from_millis(EXIT_POLL_MS));
            match &mut sigchld {
                Some(listener) => tokio::select! {
                    received = listener.recv() => if received.is_none() {
                        sigchld = None;
                    },
                    () = poll => {}
                },
                None => poll.await,
            }
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        lock_running().retain(|group_id| *group_id != self.group_id);
        end_group(self.group_id);
    }
}

/// The groups of programs whose calls are still out.
static RUNNING: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

fn lock_running() -> std::sync::MutexGuard<'static, Vec<libc::pid_t>> {
    RUNNING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sends SIGKILL to every program group quorum started that may still be
/// running, at once: for a process about to exit without its calls being
/// dropped (the signal backstop, `crate::signals`), which would
/// otherwise leave them behind.
pub fn kill_every_group_now() {
    let running: Vec<libc::pid_t> = lock_running().clone();
    let ending: Vec<libc::pid_t> = lock_endings()
        .iter()
        .map(|ending| ending.group_id)
        .collect();
    for group_id in running.into_iter().chain(ending) {
        if group_id > 1 {
            // SAFETY: killpg only sends a signal; none of these programs
            // has been reaped, so each id still names its group.
            unsafe { libc::killpg(group_id, libc::SIGKILL) };
        }
    }
}

/// A process group being ended: SIGTERM sent, SIGKILL due at `kill_at`.
struct Ending {
    group_id: libc::pid_t,
    kill_at: Instant,
    killed: bool,
    leader_reaped: bool,
}

impl Ending {
    /// Reaps the program once it has exited, sends SIGKILL when due;
    /// returns whether nothing is left to do.
    fn step(&mut self, now: Instant) -> bool {
        if !self.leader_reaped {
            let mut status = 0;
            // SAFETY: waits for our own child, without blocking.
            let reaped = unsafe { libc::waitpid(self.group_id, &mut status, libc::WNOHANG) };
            // 0: still running; -1 with ECHILD: nothing left to reap.
            self.leader_reaped = reaped > 0
                || (reaped < 0 && std::io::Error::last_os_error().kind() != ErrorKind::Interrupted);
        }
        // SAFETY: signal 0 only checks whether the group still exists.
        if self.leader_reaped && unsafe { libc::killpg(self.group_id, 0) } != 0 {
            return true;
        }
        if !self.killed && now >= self.kill_at {
            // SAFETY: killpg only sends a signal; the group still exists.
            unsafe { libc::killpg(self.group_id, libc::SIGKILL) };
            self.killed = true;
        }
        self.killed && self.leader_reaped
    }
}

/// The groups being ended, and a wake-up for the reaper thread.
struct Reaper {
    endings: Mutex<Vec<Ending>>,
    added: Condvar,
}

static REAPER: Reaper = Reaper {
    endings: Mutex::new(Vec::new()),
    added: Condvar::new(),
};
static REAPER_THREAD: Once = Once::new();

/// Ends a program's process group: SIGTERM now, SIGKILL after
/// [`KILL_GRACE_MS`] to whatever is left, and the program reaped, by the
/// reaper thread (or by [`wait_for_ending_groups`] at exit).
fn end_group(group_id: libc::pid_t) {
    if group_id <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal; the program has not been reaped,
    // so the id still names its group.
    unsafe { libc::killpg(group_id, libc::SIGTERM) };
    let ending = Ending {
        group_id,
        kill_at: Instant::now() + Duration::from_millis(KILL_GRACE_MS),
        killed: false,
        leader_reaped: false,
    };
    lock_endings().push(ending);
    REAPER.added.notify_one();
    REAPER_THREAD.call_once(|| {
        // Without the thread, the work waits for wait_for_ending_groups.
        let _ = std::thread::Builder::new()
            .name("quorum-group-reaper".into())
            .spawn(reap_forever);
    });
}

fn lock_endings() -> std::sync::MutexGuard<'static, Vec<Ending>> {
    REAPER
        .endings
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn reap_forever() {
    loop {
        let mut endings = lock_endings();
        while endings.is_empty() {
            endings = REAPER
                .added
                .wait(endings)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        let now = Instant::now();
        endings.retain_mut(|ending| !ending.step(now));
        drop(endings);
        std::thread::sleep(Duration::from_millis(GROUP_POLL_MS));
    }
}

/// Finishes ending every program group still being ended: blocks until each
/// is gone or killed and reaped, at most [`KILL_GRACE_MS`] and a little more.
/// Call it before the process exits (and after the runtime, whose dropped
/// calls end their groups, is gone): the reaper thread dies with the
/// process, and a program that ignores SIGTERM would outlive quorum.
pub fn wait_for_ending_groups() {
    let give_up = Instant::now() + Duration::from_millis(KILL_GRACE_MS + REAP_AFTER_KILL_MS);
    loop {
        let mut endings = lock_endings();
        let now = Instant::now();
        endings.retain_mut(|ending| !ending.step(now));
        if endings.is_empty() || now >= give_up {
            return;
        }
        drop(endings);
        std::thread::sleep(Duration::from_millis(GROUP_POLL_MS));
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

    /// An agent that runs a new executable `#!/bin/sh` script, written into
    /// `dir`, with `args`.
    /// An agent running `body` as a shell script. The shell reads the
    /// file rather than the kernel executing it: a script just written
    /// can be refused as busy (ETXTBSY) while another test's child, forked
    /// in that instant, still holds its write handle.
    fn script_agent(dir: &Path, name: &str, body: &str, args: &[&str]) -> CommandAgent {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut argv = vec!["/bin/sh", path.to_str().unwrap()];
        argv.extend_from_slice(args);
        agent(&argv)
    }

    /// An agent whose script writes pids into the file `pids` in `dir`, and
    /// that file; `{pids}` in `body` stands for its path.
    fn pid_writer(dir: &Path, name: &str, body: &str) -> (CommandAgent, PathBuf) {
        let pids = dir.join("pids");
        let body = body.replace("{pids}", &pids.display().to_string());
        (script_agent(dir, name, &body, &[]), pids)
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
        let agent = script_agent(
            dir.path(),
            "echo.sh",
            "echo \"args: $*\"\ncat\n",
            &["--flag", "two words"],
        );
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
        let agent = std::sync::Arc::new(script_agent(
            dir.path(),
            "slow.sh",
            "echo first\nwhile [ ! -e \"$1\" ]; do sleep 0.01; done\necho second\n",
            &[go.to_str().unwrap()],
        ));
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
        let agent = script_agent(
            dir.path(),
            "fail.sh",
            "echo partial answer\necho 'warming up' >&2\necho 'quota exhausted for today' >&2\nexit 3\n",
            &[],
        );
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

    /// Waits (generously: 10 s) until none of `pids` runs.
    async fn until_gone(pids: &[i32], what: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while pids.iter().any(|pid| is_running(*pid)) {
            assert!(
                Instant::now() < deadline,
                "{what}: still running after 10 s: {pids:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The pids a script wrote into `file`, once it has.
    async fn pids_in(file: &Path) -> Vec<i32> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(text) = std::fs::read_to_string(file)
                && text.ends_with('\n')
            {
                return text
                    .split_whitespace()
                    .map(|pid| pid.parse().unwrap())
                    .collect();
            }
            assert!(Instant::now() < deadline, "no pids in {}", file.display());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The pids the started `call` writes into `file`; it fails if the call
    /// ends first.
    async fn pids_while_running(
        call: &mut BoxFuture<'_, Result<CallOutput, AgentError>>,
        file: &Path,
    ) -> Vec<i32> {
        tokio::select! {
            pids = pids_in(file) => pids,
            result = call => panic!("the program ended early: {result:?}"),
        }
    }

    #[tokio::test]
    async fn an_exited_program_gives_its_answer_though_a_helper_holds_its_output() {
        let dir = tempfile::tempdir().unwrap();
        let (agent, pids) = pid_writer(
            dir.path(),
            "leaver.sh",
            "echo 'the answer'\nsleep 1000 &\necho $! > {pids}\nexit 0\n",
        );
        let (sender, mut events) = crate::agent::events::channel();
        let started = Instant::now();
        let output = tokio::time::timeout(Duration::from_secs(30), agent.call(request(""), sender))
            .await
            .expect("the call ends once the program has exited")
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "took {:?}",
            started.elapsed()
        );
        assert_eq!(output.text, "the answer\n");
        let (_, diagnostics) = drain(&mut events);
        assert!(diagnostics.contains("kept its pipes open"), "{diagnostics}");
        until_gone(&pids_in(&pids).await, "the helper holding stdout").await;
    }

    #[tokio::test]
    async fn a_helper_left_behind_by_a_finished_program_is_ended() {
        let dir = tempfile::tempdir().unwrap();
        let (agent, pids) = pid_writer(
            dir.path(),
            "daemon.sh",
            "sleep 1000 </dev/null >/dev/null 2>&1 &\necho $! > {pids}\necho done\n",
        );
        let (sender, mut events) = crate::agent::events::channel();
        let output = agent.call(request(""), sender).await.unwrap();
        assert_eq!(output.text, "done\n");
        let (_, diagnostics) = drain(&mut events);
        assert_eq!(diagnostics, "", "its pipes closed with it");
        until_gone(&pids_in(&pids).await, "the helper").await;
    }

    #[tokio::test]
    async fn a_program_that_ignores_sigterm_is_killed_after_the_grace() {
        let dir = tempfile::tempdir().unwrap();
        let (agent, pids) = pid_writer(
            dir.path(),
            "stubborn.sh",
            "trap '' TERM\nsleep 1000 &\necho $$ $! > {pids}\nwait\n",
        );
        let (sender, _events) = crate::agent::events::channel();
        let mut call = agent.call(request(""), sender);
        let pids = pids_while_running(&mut call, &pids).await;
        assert!(pids.iter().all(|pid| is_running(*pid)));
        drop(call);
        // SIGTERM is ignored; the survivors get SIGKILL after the grace.
        until_gone(&pids, "after SIGKILL").await;
    }

    #[tokio::test]
    async fn waiting_for_ending_groups_kills_what_ignores_sigterm_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let (agent, pids) = pid_writer(
            dir.path(),
            "stubborn.sh",
            "trap '' TERM\necho $$ > {pids}\nwhile :; do sleep 1; done\n",
        );
        let (sender, _events) = crate::agent::events::channel();
        let mut call = agent.call(request(""), sender);
        let pids = pids_while_running(&mut call, &pids).await;
        drop(call);
        // What quorum does before it exits: blocks until the group is gone.
        let started = Instant::now();
        wait_for_ending_groups();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(!is_running(pids[0]), "killed before the wait returned");
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
        let agent = script_agent(
            dir.path(),
            "spawner.sh",
            "sleep 1000 &\necho \"$$ $!\"\nsleep 1000\n",
            &[],
        );
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
        // SIGTERM should end both at once, SIGKILL follows after the grace.
        until_gone(&pids, "after the cancel").await;
    }
}
