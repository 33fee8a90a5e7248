//! The terminal's modes: alternate screen, raw mode, mouse capture and focus
//! reports on the way in; all undone on every way out — normal exit, error (the guard's
//! `Drop`), panic (a hook that restores before the report prints) and SIGTERM
//! (the event loop stops and the guard drops).

use std::io::{self, Write};
use std::sync::Once;

use crossterm::event::{
    DisableFocusChange, DisableMouseCapture, EnableFocusChange, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
/// Holds the terminal's modes while the TUI runs; restores them when
/// dropped.
pub struct TerminalGuard(());

/// Puts the terminal back as it was. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let mut stdout = io::stdout();
    let _ = execute!(
        stdout,
        DisableFocusChange,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = stdout.flush();
}

/// A panic on the thread that draws ends the interface: the terminal is put
/// back before the report prints. A panic elsewhere (an agent call, which
/// the engine turns into a failed call; the engine, which the interface
/// reports in its header) goes to the log file, not over the screen.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        let interface_thread = std::thread::current().id();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().id() == interface_thread {
                restore();
                previous(info);
            } else {
                tracing::error!(
                    thread = std::thread::current().name().unwrap_or("unnamed"),
                    "panic: {info}"
                );
            }
        }));
    });
}

impl TerminalGuard {
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        enable_raw_mode()?;
        let mut stdout = io::stdout();
        if let Err(error) = execute!(
            stdout,
            EnterAlternateScreen,
            EnableMouseCapture,
            // Focus reports slow the text's pace while the person looks
            // elsewhere (`tui::pacer`); a terminal without them ignores it.
            EnableFocusChange
        ) {
            restore();
            return Err(error);
        }
        Ok(TerminalGuard(()))
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}
