//! A debate folder's notes on where the debate came from: `fork.json` (a
//! fork's origin, written by `quorum fork`) and `from.json` (a chained
//! debate's source, written when it starts; see [`super::chain`]). What
//! they say, and reading them back for the commands that show a folder
//! (`quorum open`, `report`, `compare`, `fork`).
//!
//! Both are someone else's files like the rest of the folder: read through
//! the folder's guarded reader ([`crate::input::read_debate_file`]); an
//! error names the file, and the line and field where it does not parse.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::protocol::handoff::Handed;

/// The file a fork names its origin in.
pub const FORK_FILE: &str = "fork.json";

/// The file a chained debate names its source in.
pub const CHAIN_FILE: &str = "from.json";

/// What `fork.json` says: where a fork came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForkOrigin {
    /// The origin's folder, absolute.
    pub origin: PathBuf,
    /// `evaluation:2`, as given.
    pub at: String,
    /// How many of the origin's journal records the fork shares.
    pub records: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critique: Option<String>,
}

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

/// A fork's origin, if `dir` is a fork: its `fork.json`.
pub fn forked_from(dir: &Path) -> Result<Option<ForkOrigin>, String> {
    read_note(dir, FORK_FILE)
}

/// Where a chained debate came from, if `dir` is one: its `from.json`.
pub fn handed_from(dir: &Path) -> Result<Option<ChainOrigin>, String> {
    read_note(dir, CHAIN_FILE)
}

/// `name` in the debate folder `dir`, parsed as JSON, if it is there.
fn read_note<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> Result<Option<T>, String> {
    let Some(text) = crate::input::read_debate_file(dir, name, crate::input::DEBATE_NOTE)
        .map_err(|error| error.to_string())?
    else {
        return Ok(None);
    };
    parse_note(&dir.join(name), &text).map(Some)
}

/// A debate's note file (`fork.json`, `from.json`) read from `text`; the
/// error names `path`, and serde's line, column and field.
pub fn parse_note<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|error| format!("{}: {error}", path.display()))
}
