//! How a debate's agents were put together, recorded in the journal's first
//! line so that `quorum resume` can rebuild the same roster without the spec,
//! the script file or the flags of the original run.
//!
//! Only descriptions are recorded: provider, model, base URL, the *name* of
//! the environment variable holding a key, limits and deadlines. Keys are read
//! from the environment again when the agents are rebuilt. A base URL that
//! carries a credential (`user:password@`, a query) is recorded without it,
//! and taken again from the configuration or the environment on rebuild.
//!
//! Not responsible for building agents (the CLI does, through
//! `agent::factory`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agent::script::Script;
use crate::config::resolve::ResolvedAgent;
use crate::protocol::usage::Price;

use super::ModerationPolicy;

/// One role slot's agent and deadline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoleSetup {
    pub agent: ResolvedAgent,
    /// The call deadline, in milliseconds.
    pub timeout_ms: u64,
    /// The base URL had a credential, which was left out of the record.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub base_url_withheld: bool,
}

/// An agent the moderator may switch a role to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlternativeSetup {
    pub agent: ResolvedAgent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Price>,
    /// See [`RoleSetup::base_url_withheld`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub base_url_withheld: bool,
}

/// Everything besides the debate's definition that a resumed run needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSetup {
    /// By role slot: `proposer`, `critic`, `judge.analyst`, ...
    pub roles: BTreeMap<String, RoleSetup>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<AlternativeSetup>,
    /// The scripted replies, for roles played by `script`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<Script>,
    /// Pace multiplier of scripted agents.
    pub speed: f64,
    /// How critique items were decided without a person at the interface.
    pub moderation: ModerationPolicy,
    /// Prompt templates that replaced built-in ones, by file name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompt_overrides: BTreeMap<String, String>,
    /// The configuration file given with `--config`, where a withheld base
    /// URL is looked up again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_path: Option<std::path::PathBuf>,
}

/// `resolved` as the journal may keep it: a base URL with a credential in
/// it loses the credential (see [`crate::agent::http::shown_url`]); true
/// when something was left out.
pub fn recordable(resolved: &ResolvedAgent) -> (ResolvedAgent, bool) {
    let mut recorded = resolved.clone();
    let Some(url) = &resolved.provider.base_url else {
        return (recorded, false);
    };
    let shown = crate::agent::http::shown_url(url);
    let withheld = shown != *url;
    recorded.provider.base_url = Some(shown);
    (recorded, withheld)
}
