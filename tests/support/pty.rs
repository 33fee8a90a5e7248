//! The real `quorum` binary in a pseudo-terminal, for end-to-end tests of the
//! interface: a pty of a chosen size, the program's output fed into a vt100
//! screen on a reader thread, keys written to it, and waits for what the
//! screen shows.
//!
//! Every wait is a wait for a condition with a generous limit, woken by new
//! output; none is a timed assertion. The child gets a throwaway home (and
//! XDG folders) and a plain environment, so no user configuration leaks in.
//! Not responsible for what the tests check: it only runs, reads and types.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize, native_pty_system};

/// How long crossterm must see nothing after a lone ESC to read it as the Esc
/// key rather than the start of an Alt+key or escape sequence, in
/// milliseconds.
pub const ESC_ALONE_MS: u64 = 150;
/// Lines of scrollback the vt100 screen keeps.
const SCROLLBACK_LINES: usize = 1000;
/// Bytes read from the pty per read call.
const READ_CHUNK_BYTES: usize = 8192;

/// What the reader thread has collected.
struct Output {
    screen: vt100::Parser,
    /// Every byte the program wrote, in order.
    raw: Vec<u8>,
    /// The pty reported end of file: every writer of the terminal is gone.
    closed: bool,
}

struct Shared {
    output: Mutex<Output>,
    changed: Condvar,
}

/// A running `quorum` in a pty; killed when dropped.
pub struct PtyRun {
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    shared: Arc<Shared>,
    reader: Option<JoinHandle<()>>,
    status: Option<ExitStatus>,
    /// The child's HOME and XDG folders; removed with the run.
    _home: tempfile::TempDir,
}

impl PtyRun {
    /// Starts `quorum args…` in `cwd` in a `cols` × `rows` terminal with
    /// TERM=xterm-256color and NO_COLOR unset.
    pub fn spawn(args: &[&str], cwd: &Path, cols: u16, rows: u16) -> PtyRun {
        PtyRun::spawn_with_env(args, cwd, cols, rows, &[])
    }

    /// [`PtyRun::spawn`] with these variables added to the environment.
    pub fn spawn_with_env(
        args: &[&str],
        cwd: &Path,
        cols: u16,
        rows: u16,
        env: &[(&str, &str)],
    ) -> PtyRun {
        PtyRun::spawn_watching(args, cwd, cols, rows, env, |_, _| {})
    }

    /// [`PtyRun::spawn_with_env`], with `watch` shown the screen after each
    /// read of the program's output, with the instant the read returned.
    pub fn spawn_watching(
        args: &[&str],
        cwd: &Path,
        cols: u16,
        rows: u16,
        env: &[(&str, &str)],
        mut watch: impl FnMut(&vt100::Screen, Instant) + Send + 'static,
    ) -> PtyRun {
        let home = tempfile::tempdir().expect("a temporary home");
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_quorum"));
        command.args(args);
        command.cwd(cwd);
        command.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        command.env("TERM", "xterm-256color");
        command.env("LANG", "C.UTF-8");
        command.env("HOME", home.path());
        for (variable, folder) in [
            ("XDG_CONFIG_HOME", ".config"),
            ("XDG_STATE_HOME", ".local/state"),
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_CACHE_HOME", ".cache"),
        ] {
            command.env(variable, home.path().join(folder));
        }
        for (name, value) in env {
            command.env(name, value);
        }
        let child = pair.slave.spawn_command(command).expect("quorum starts");
        // Our copy of the terminal's far side must close, or the reader never
        // sees the end of the output when the child exits.
        drop(pair.slave);
        let mut source = pair.master.try_clone_reader().expect("a pty reader");
        let writer = pair.master.take_writer().expect("a pty writer");
        let shared = Arc::new(Shared {
            output: Mutex::new(Output {
                screen: vt100::Parser::new(nonzero(rows), nonzero(cols), SCROLLBACK_LINES),
                raw: Vec::new(),
                closed: false,
            }),
            changed: Condvar::new(),
        });
        let feed = Arc::clone(&shared);
        let reader = std::thread::spawn(move || {
            let mut buffer = vec![0u8; READ_CHUNK_BYTES];
            loop {
                // Linux reports the far side closing as EIO, not as 0 bytes.
                // A read a signal interrupted is no end: it is tried again
                // (the suite's other tests install signal handlers).
                let read = match source.read(&mut buffer) {
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                    read => read.unwrap_or(0),
                };
                let read_at = Instant::now();
                let mut output = feed.output.lock().unwrap_or_else(|e| e.into_inner());
                if read == 0 {
                    output.closed = true;
                    feed.changed.notify_all();
                    return;
                }
                output.screen.process(&buffer[..read]);
                watch(output.screen.screen(), read_at);
                output.raw.extend_from_slice(&buffer[..read]);
                feed.changed.notify_all();
            }
        });
        PtyRun {
            master: pair.master,
            writer,
            child,
            shared,
            reader: Some(reader),
            status: None,
            _home: home,
        }
    }

    fn output(&self) -> MutexGuard<'_, Output> {
        self.shared
            .output
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("the child has a pid")
    }

    /// Types `bytes` into the terminal.
    pub fn send(&mut self, bytes: impl AsRef<[u8]>) {
        self.writer.write_all(bytes.as_ref()).expect("write to pty");
        self.writer.flush().expect("flush pty");
    }

    /// Presses Esc on its own, then leaves crossterm time to read it as Esc
    /// rather than as the first byte of Alt+(next key).
    pub fn send_escape(&mut self) {
        self.send(b"\x1b");
        std::thread::sleep(Duration::from_millis(ESC_ALONE_MS));
    }

    /// Resizes the terminal (the child gets SIGWINCH) and the screen model.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        let mut output = self.output();
        output.screen.set_size(nonzero(rows), nonzero(cols));
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize the pty");
    }

    /// The screen as text, one line per row.
    pub fn screen_text(&self) -> String {
        self.output().screen.screen().contents()
    }

    /// One row of the screen as text (0 is the top row).
    pub fn row_text(&self, row: u16) -> String {
        let output = self.output();
        let screen = output.screen.screen();
        let (_, cols) = screen.size();
        screen
            .rows(0, cols.get())
            .nth(usize::from(row))
            .unwrap_or_default()
    }

    /// Whether the terminal is on its alternate screen, and whether it
    /// reports mouse events, as the program last left it.
    pub fn screen_modes(&self) -> (bool, vt100::MouseProtocolMode) {
        let output = self.output();
        let screen = output.screen.screen();
        (screen.alternate_screen(), screen.mouse_protocol_mode())
    }

    /// Every byte the program has written so far.
    pub fn raw_output(&self) -> Vec<u8> {
        self.output().raw.clone()
    }

    /// Waits until `condition` holds for the screen; panics with the screen
    /// and `what` when `timeout` passes first.
    pub fn wait_until(
        &self,
        what: &str,
        timeout: Duration,
        condition: impl Fn(&vt100::Screen) -> bool,
    ) {
        let deadline = Instant::now() + timeout;
        let mut output = self.output();
        loop {
            if condition(output.screen.screen()) {
                return;
            }
            let now = Instant::now();
            if now >= deadline || output.closed {
                let screen = output.screen.screen().contents();
                let why = if output.closed {
                    "the program closed the terminal"
                } else {
                    "timed out"
                };
                drop(output);
                panic!("waiting for {what}: {why}; the screen:\n{screen}");
            }
            output = self
                .shared
                .changed
                .wait_timeout(output, deadline - now)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }

    /// Waits until the screen shows `text`.
    pub fn wait_for(&self, text: &str, timeout: Duration) {
        self.wait_until(&format!("{text:?} on screen"), timeout, |screen| {
            screen.contents().contains(text)
        });
    }

    /// Waits for the program to exit and for all of its output; panics when
    /// `timeout` passes first.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        if let Some(status) = &self.status {
            return status.clone();
        }
        let deadline = Instant::now() + timeout;
        {
            let mut output = self.output();
            while !output.closed {
                let now = Instant::now();
                if now >= deadline {
                    let screen = output.screen.screen().contents();
                    drop(output);
                    panic!("quorum did not exit in {timeout:?}; the screen:\n{screen}");
                }
                output = self
                    .shared
                    .changed
                    .wait_timeout(output, deadline - now)
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .0;
            }
        }
        let status = self.child.wait().expect("wait for quorum");
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        self.status = Some(status.clone());
        status
    }

    /// The terminal's local modes (`c_lflag`) as the program left them.
    pub fn local_modes(&self) -> libc::tcflag_t {
        let fd = self.master.as_raw_fd().expect("a pty fd");
        // SAFETY: an all-zero termios is a valid value to be overwritten,
        // and `fd` is the open master of this run's pty.
        let mut termios: libc::termios = unsafe { std::mem::zeroed() };
        let result = unsafe { libc::tcgetattr(fd, &mut termios) };
        assert_eq!(result, 0, "tcgetattr on the pty");
        termios.c_lflag
    }
}

impl Drop for PtyRun {
    fn drop(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn nonzero(cells: u16) -> NonZeroU16 {
    NonZeroU16::new(cells).expect("a terminal is at least one cell in each direction")
}

/// Where `needle` last occurs in `haystack`.
pub fn rfind_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .rposition(|window| window == needle)
}
