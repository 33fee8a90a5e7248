//! Placeholder until the interactive archive view lands (replaced by the TUI change).

use std::path::Path;
use std::process::ExitCode;

pub(super) async fn open_interactive(
    dir: &Path,
    theme: Option<&str>,
) -> color_eyre::Result<ExitCode> {
    let _ = (dir, theme);
    color_eyre::eyre::bail!("the interactive view is not built yet; use --headless")
}
