//! The `quorum` binary: parses the command line and hands over to `quorum::cli`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let _ = color_eyre::install();
    let cli = quorum::cli::Cli::parse();
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
    runtime.block_on(quorum::cli::run(cli))
}
