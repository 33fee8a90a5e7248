//! The `quorum` binary: parses the command line and hands over to `quorum::cli`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let _ = color_eyre::install();
    let invocation = quorum::cli::parse_from(std::env::args_os());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("quorum: cannot start the async runtime: {error}");
            return ExitCode::from(quorum::cli::EXIT_FAILURE);
        }
    };
    runtime.block_on(quorum::cli::run(invocation))
}
