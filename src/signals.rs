//! A backstop for SIGINT, SIGTERM and SIGHUP while a debate runs.
//!
//! quorum runs on one thread: the headless printer and the interface each
//! take these signals in their own event loop and stop the debate cleanly.
//! That loop only runs between two pieces of the engine's work, so a piece
//! that does not end (a template that loops, a reader handed something
//! pathological) would leave a signal unanswered. [`Backstop`] watches the
//! same signals from a thread of its own: a signal that the event loop has
//! not taken ([`acknowledge`]) within [`UNANSWERED_SIGNAL_MS`] ends the
//! process there and then. The journal is written before anything else, so
//! what was recorded up to that moment is whole and `quorum resume`
//! continues it.
//!
//! Before it ends the process it runs what its installer handed it: the
//! command line and the interface both kill the process group of every
//! `command` agent still running (whose calls will never be dropped), and
//! the interface puts the terminal back.
//!
//! On the ground floor, below both the command line (`cli`) and the
//! interface (`tui`), which install it: it imports nothing of quorum's.
//! Not responsible for the clean stop itself (the event loops).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::{Handle, Signals};

/// How long the event loop has to take a signal before the backstop ends
/// the process, in milliseconds: a loop that is turning takes it in
/// microseconds; a clean stop that follows may take longer, and is not cut
/// short once the signal is taken.
pub const UNANSWERED_SIGNAL_MS: u64 = 3_000;

/// How often the backstop looks whether the signal was taken, in
/// milliseconds.
const POLL_MS: u64 = 20;

/// Set by the event loop when it takes a signal.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The event loop has taken a signal and is stopping the debate.
pub fn acknowledge() {
    TAKEN.store(true, Ordering::SeqCst);
}

/// The watching thread, while a debate runs; dropping it stops the watch.
pub struct Backstop {
    handle: Option<Handle>,
}

impl Backstop {
    /// Starts watching. `before_exit` runs before an abrupt exit: it stops
    /// what the process started that would outlive it and, when the
    /// terminal is in the interface's modes, puts it back.
    pub fn install(before_exit: fn()) -> Backstop {
        let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            // Without the backstop the event loops still take signals.
            return Backstop { handle: None };
        };
        let handle = signals.handle();
        let spawned = std::thread::Builder::new()
            .name("signal-backstop".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    wait_for_the_event_loop(signal, before_exit);
                }
            });
        if spawned.is_err() {
            handle.close();
            return Backstop { handle: None };
        }
        Backstop {
            handle: Some(handle),
        }
    }
}

impl Drop for Backstop {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.close();
        }
    }
}

/// Gives the event loop [`UNANSWERED_SIGNAL_MS`] to take `signal`, and ends
/// the process if it does not, after `before_exit`.
fn wait_for_the_event_loop(signal: i32, before_exit: fn()) {
    let deadline = Instant::now() + Duration::from_millis(UNANSWERED_SIGNAL_MS);
    while Instant::now() < deadline {
        if TAKEN.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }
    if TAKEN.load(Ordering::SeqCst) {
        return;
    }
    before_exit();
    let name = match signal {
        SIGINT => "interrupted",
        SIGTERM => "terminated",
        _ => "hung up",
    };
    eprintln!(
        "quorum: {name} while busy: stopped at once; the record is whole up to its last journal line, and `quorum resume` continues it"
    );
    std::process::exit(128 + signal);
}
