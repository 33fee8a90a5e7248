//! How a debate's agents were put together, recorded in the journal's first
//! line so that `quorum resume` can rebuild the same roster without the spec,
//! the script file or the flags of the original run.
//!
//! Only descriptions are recorded: provider, model, base URL, the *name* of
//! the environment variable holding a key, the program a `command` provider
//! runs (not its arguments), limits and deadlines. A base URL is recorded
//! without any credential in it (`user:password@`, a query). A resumed
//! debate takes its providers from the configuration and environment of the
//! day, checked against this record; keys are never recorded.
//!
//! Not responsible for building agents (the CLI does, through
//! `agent::factory`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agent::script::Script;
use crate::config::resolve::ResolvedAgent;
use crate::protocol::budget::Budget;
use crate::protocol::usage::Price;

use super::ModerationPolicy;

/// One role slot's agent and deadline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoleSetup {
    pub agent: ResolvedAgent,
    /// The call deadline, in milliseconds.
    pub timeout_ms: u64,
}

/// An agent the moderator may switch a role to.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlternativeSetup {
    pub agent: ResolvedAgent,
    pub price: Option<Price>,
}

/// Everything besides the debate's definition that a resumed run needs.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSetup {
    /// By role slot: `proposer`, `critic`, `judge.analyst`, ...
    pub roles: BTreeMap<String, RoleSetup>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<AlternativeSetup>,
    /// The scripted replies, for roles played by `script`.
    pub script: Option<Script>,
    /// Pace multiplier of scripted agents.
    pub speed: f64,
    /// How critique items were decided without a person at the interface.
    pub moderation: ModerationPolicy,
    /// Prompt templates that replaced built-in ones, by file name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompt_overrides: BTreeMap<String, String>,
    /// The spending limit the debate started with (raises are journaled
    /// after it); absent when it has none.
    pub budget: Option<Budget>,
}

/// `resolved` as the journal may keep it: the base URL without a credential
/// (see [`crate::agent::http::shown_url`]) and a command's program without
/// its arguments, which may carry a token.
pub fn recordable(resolved: &ResolvedAgent) -> ResolvedAgent {
    let mut recorded = resolved.clone();
    recorded.provider.base_url = resolved
        .provider
        .base_url
        .as_deref()
        .map(crate::agent::http::shown_url);
    recorded.provider.command.truncate(1);
    recorded
}
