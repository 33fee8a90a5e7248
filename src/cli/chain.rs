//! Chained debates (`--from DIR`): the file that names a debate's source,
//! written beside its journal when it starts.
//!
//! The hand-off itself travels in the debate's definition (a context
//! document, and a decision review's handed items), so the journal alone
//! says where the debate came from; `from.json` says it for the tools that
//! read a folder without folding it (`quorum report`, `quorum open`).

use std::path::Path;

use crate::artifact::{RunDir, write_atomic};
use crate::protocol::handoff::Handoff;

/// `from.json` as the public paths of this module have named it.
pub use super::notes::{CHAIN_FILE, ChainOrigin, handed_from as origin_of};

/// Writes `from.json` into `run_dir` for a debate that took `handoff`
/// from `dir`.
pub fn record(run_dir: &RunDir, dir: &Path, handoff: &Handoff) -> std::io::Result<()> {
    let origin = ChainOrigin {
        source: dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()),
        from: handoff.from.clone(),
        topic: handoff.topic.clone(),
        handed: handoff.handed.clone(),
    };
    write_atomic(
        &run_dir.path().join(CHAIN_FILE),
        serde_json::to_string_pretty(&origin)
            .unwrap_or_default()
            .as_bytes(),
    )
}
