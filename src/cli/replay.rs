//! `quorum replay DIR`: plays a recorded debate back as it happened.

use std::process::ExitCode;

use super::{EXIT_USAGE, ReplayArgs};

pub async fn run(args: ReplayArgs) -> ExitCode {
    let _ = args;
    eprintln!("quorum: replay is not built yet");
    ExitCode::from(EXIT_USAGE)
}
