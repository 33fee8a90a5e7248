//! `quorum demo`, `quorum run SPEC` and a protocol's command: a debate
//! prepared from its source, then driven headless or in the interface.

use std::process::ExitCode;

use super::prepare::{Source, prepare};
use super::{EXIT_FAILURE, EXIT_USAGE, RunFlags};

/// Prepares and runs one debate; returns the exit code.
pub async fn run_debate(source: Source, flags: RunFlags) -> ExitCode {
    let prepared = match prepare(source, &flags) {
        Ok(prepared) => prepared,
        Err(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error.to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let interactive = !flags.headless
        && std::io::IsTerminal::is_terminal(&std::io::stdin())
        && std::io::IsTerminal::is_terminal(&std::io::stdout());
    // A theme that does not load is a configuration error in either mode, so
    // a typo is found before a long headless run, not the next time the
    // interface opens.
    if let Err(error) = super::interactive::theme_of(&flags, &prepared) {
        eprintln!("quorum: {error}");
        return ExitCode::from(EXIT_USAGE);
    }
    if let Err(error) = super::interactive::stream_fps_of(&flags, &prepared) {
        eprintln!("quorum: {error}");
        return ExitCode::from(EXIT_USAGE);
    }
    if !interactive && !prepared.human_roles.is_empty() {
        eprintln!(
            "quorum: {} {} played by a person (`human`), which needs the interactive interface: \
             drop --headless and run quorum in a terminal",
            prepared.human_roles.join(", "),
            if prepared.human_roles.len() == 1 {
                "is"
            } else {
                "are"
            }
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let result = if interactive {
        super::interactive::drive(prepared, &flags).await
    } else {
        super::headless::drive(prepared, &flags).await
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&format!("{error:#}")));
            ExitCode::from(EXIT_FAILURE)
        }
    }
}
