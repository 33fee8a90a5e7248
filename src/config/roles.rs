//! The role slots a configuration file, a spec or an `--agent` flag may
//! name, and how any of them says who plays one ([`AgentSpec`], looked up
//! by [`role_keys`]). Which slots there are is the protocols' business,
//! and this layer sits below them: the caller that knows the protocols
//! hands a [`RoleBook`] down (the registry's,
//! `protocol::registry::Registered`), so reading a file never reaches up
//! for it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The slots the registered protocols seat.
pub trait RoleBook {
    /// Whether some protocol seats `slot` (`judge.analyst`, `judge.*`, an
    /// rca's `debugger.alpha`).
    fn seats(&self, slot: &str) -> bool;

    /// Every slot, each once, in the order the error lists them.
    fn slot_names(&self) -> Vec<&'static str>;
}

/// Whether `role` may be named: `default`, or a slot of `book`.
pub fn known_role(book: &dyn RoleBook, role: &str) -> bool {
    role == "default" || book.seats(role)
}

/// The error about a role nobody knows, listing the ones there are.
pub fn unknown_role(book: &dyn RoleBook, role: &str) -> String {
    format!(
        "unknown role `{role}`; roles are default, {}",
        book.slot_names().join(", ")
    )
}

/// Who plays a role: `provider`, `provider:model`, or the full form
/// `{provider: openai, model: gpt-4.1, timeout_secs: 300}`.
///
/// Read by hand rather than as an untagged enum: a typo in the full form
/// (`timout_secs:`) is reported as that key, on its line, with the keys
/// there are, not as "did not match any variant".
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum AgentSpec {
    /// `provider` or `provider:model`.
    Short(String),
    Full(AgentDetail),
}

#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentDetail {
    pub provider: String,
    pub model: Option<String>,
    /// This role's call deadline, in seconds.
    pub timeout_secs: Option<f64>,
    /// A stream that sends nothing for this long fails, in seconds (HTTP providers).
    pub idle_timeout_secs: Option<f64>,
    /// Transport retries within one call (HTTP providers).
    pub max_retries: Option<u32>,
    /// The model family of this role's model, over the built-in table
    /// (fair judging: recusal).
    pub family: Option<String>,
}

impl<'de> Deserialize<'de> for AgentSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct AgentVisitor;

        impl<'de> serde::de::Visitor<'de> for AgentVisitor {
            type Value = AgentSpec;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "`provider`, `provider:model`, or a mapping of provider, model, \
                     timeout_secs, idle_timeout_secs, max_retries, family",
                )
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<AgentSpec, E> {
                Ok(AgentSpec::Short(text.to_string()))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<AgentSpec, A::Error> {
                AgentDetail::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(AgentSpec::Full)
            }
        }

        deserializer.deserialize_any(AgentVisitor)
    }
}

impl AgentSpec {
    pub fn provider(&self) -> &str {
        match self {
            AgentSpec::Short(text) => text.split(':').next().unwrap_or(text),
            AgentSpec::Full(detail) => &detail.provider,
        }
    }

    pub fn timeout_secs(&self) -> Option<f64> {
        match self {
            AgentSpec::Short(_) => None,
            AgentSpec::Full(detail) => detail.timeout_secs,
        }
    }
}

/// The keys a role slot's agent is looked up by, most specific first: the
/// exact slot, its group's wildcard (`judge.*` for `judge.analyst`), then
/// `default`.
pub fn role_keys(role: &str) -> Vec<String> {
    let mut keys = vec![role.to_string()];
    if let Some((group, _)) = role.split_once('.') {
        keys.push(format!("{group}.*"));
    }
    keys.push("default".to_string());
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Two;

    impl RoleBook for Two {
        fn seats(&self, slot: &str) -> bool {
            ["critic", "judge.*"].contains(&slot)
        }
        fn slot_names(&self) -> Vec<&'static str> {
            vec!["critic", "judge.*"]
        }
    }

    #[test]
    fn default_is_always_a_role_and_the_error_lists_the_book() {
        assert!(known_role(&Two, "default") && known_role(&Two, "critic"));
        assert!(!known_role(&Two, "poet"));
        assert_eq!(
            unknown_role(&Two, "poet"),
            "unknown role `poet`; roles are default, critic, judge.*"
        );
    }
}
