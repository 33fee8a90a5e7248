//! Chained debates (`--from DIR`): the file that names a debate's source,
//! written beside its journal when it starts.
//!
//! The hand-off itself travels in the debate's definition (a context
//! document, and a decision review's handed items), so the journal alone
//! says where the debate came from; `from.json` says it for the tools that
//! read a folder without folding it (`quorum report`, `quorum open`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::artifact::{RunDir, write_atomic};
use crate::protocol::handoff::{Handed, Handoff};

/// The file a chained debate names its source in.
pub const CHAIN_FILE: &str = "from.json";

/// What `from.json` says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChainOrigin {
    /// The source's folder, absolute.
    pub source: PathBuf,
    /// The source's kind: `council`, `red team`, `root-cause analysis`.
    pub from: String,
    pub topic: String,
    pub handed: Handed,
}

impl ChainOrigin {
    /// `the council in /…/the-webhook-handler-…`, for a reader.
    pub fn describe(&self) -> String {
        format!("the {} in {}", self.from, self.source.display())
    }
}

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

/// Where a chained debate came from, if `dir` is one: `from.json` read
/// as `fork.json` is ([`super::fork::origin_of`]).
pub fn origin_of(dir: &Path) -> Result<Option<ChainOrigin>, String> {
    super::fork::read_note(dir, CHAIN_FILE)
}
