//! The `quorum` binary: parses the command line and hands over to `quorum::cli`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let _ = color_eyre::install();
    // Over a file-size limit (`ulimit -f`) a write fails with EFBIG and
    // quorum reports it with the file's path; by default SIGXFSZ would end
    // the process mid-write without a word.
    // SAFETY: setting a signal's disposition to "ignore" before any thread
    // starts has no preconditions.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    // Besides the runtime's own thread, quorum's threads are short blocking
    // workers (a journal's fsync, a file written); glibc would give each its
    // own malloc arena, 1.1 MB of a headless run's 21.6 MB peak. One arena
    // serves them all.
    // SAFETY: mallopt only sets an allocator parameter; no thread has
    // started yet.
    #[cfg(target_env = "gnu")]
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
    let invocation = quorum::cli::parse_from(std::env::args_os());
    let _end_agent_groups = EndAgentGroups;
    // The clock paced reads share starts with the runtime's timers, so that
    // its frames fall where tokio's timer wheel wakes anyway.
    quorum::agent::http::paced::start_clock();
    // One thread: the engine, the interface and the agent calls are all
    // waiting on I/O, and passing a chunk between tasks on one thread costs
    // no cross-thread wake-up. Blocking work (the journal's fsyncs, drawing a
    // frame) is short and bounded.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        // The interface draws a frame once everything that was ready has
        // run, just before the thread parks (quorum::tui::idle).
        .on_thread_park(quorum::tui::idle::on_park)
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("quorum: cannot start the async runtime: {error}");
            return ExitCode::from(quorum::cli::EXIT_FAILURE);
        }
    };
    // The command runs as a task, not as the future `block_on` drives: a
    // wake of that future writes to the runtime's eventfd and wakes the
    // thread again even from this thread, where a task's wake is a push on
    // the run queue. The engine is woken by every forwarded stream batch.
    let command = runtime.spawn(quorum::cli::run(invocation));
    match runtime.block_on(command) {
        Ok(code) => code,
        Err(error) => match error.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(error) => {
                eprintln!("quorum: the command was cancelled: {error}");
                ExitCode::from(quorum::cli::EXIT_FAILURE)
            }
        },
    }
}

/// Finishes ending the process groups of `command` agents when dropped,
/// after the runtime (declare it first): calls still out are dropped with
/// the runtime, which sends their groups SIGTERM, and the SIGKILL after the
/// grace must come before quorum exits, or a program that ignores SIGTERM
/// outlives it. A panic unwinds through it too.
struct EndAgentGroups;

impl Drop for EndAgentGroups {
    fn drop(&mut self) {
        quorum::agent::command::wait_for_ending_groups();
    }
}
