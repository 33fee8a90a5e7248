//! `quorum open`: lists debates; opens one to settle its deferred items.

use std::process::ExitCode;

use super::{EXIT_USAGE, OpenArgs};

pub async fn run(args: OpenArgs) -> ExitCode {
    let _ = args;
    eprintln!("quorum: open is not built yet");
    ExitCode::from(EXIT_USAGE)
}
