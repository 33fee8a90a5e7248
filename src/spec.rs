//! Debate spec files (`quorum run SPEC.yaml`) and their validation.
//!
//! A spec says what to debate and who plays each role; the CLI builds the
//! same structure from flags for `quorum review` and `quorum demo`. Every
//! error names the file, the line and the field, and is raised before anything
//! is written to disk.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::limits::{SECONDS_RANGE, valid_seconds};
use crate::config::roles::{AgentSpec, RoleBook, known_role, role_keys, unknown_role};
use crate::located::{SpecError, guard, yaml_error_in};
use crate::script::Script;

/// The seed's default call deadline: 10 minutes (INF-12).
pub const DEFAULT_TIMEOUT_SECS: f64 = 600.0;

/// The protocol a spec runs when it names none.
pub const DEFAULT_PROTOCOL: &str = "decision-review";

/// The keys every spec may have, whatever its protocol; each protocol adds
/// its own ([`crate::protocol::kind::ProtocolKind::options`]).
pub const COMMON_KEYS: &[&str] = &[
    "protocol",
    "topic",
    "context",
    "repo",
    "logs",
    "timeout_secs",
    "moderation",
    "blind",
    "recusal",
    "budget",
    "budget_tokens",
    "agents",
    "script",
];

/// A context document: inline text, or a file relative to the spec.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextSpec {
    pub name: Option<String>,
    pub text: Option<String>,
    pub path: Option<PathBuf>,
}

/// Who decides the moderator's items without a person at an interface
/// (`--moderation`), or, with `person`, that a person decides them from
/// another terminal (`quorum attach DIR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModerationPolicy {
    /// Accept every item.
    Accept,
    /// Reject every item (nothing is sent to the revision as a directive).
    Reject,
    /// Defer every item: all stay open for a later decision.
    Defer,
    /// Ask on stdin, one line per item: `accept`, `reject` or `defer`
    /// (or `a` / `r` / `d`), optionally followed by `: note`.
    Ask,
    /// Take what a participant proposed for each item (the planning
    /// debate's planner); accept an item nobody proposed anything for.
    Planner,
    /// A person decides, from another terminal: the run waits for the
    /// rulings `quorum attach DIR` sends (issue 54), and for their word on
    /// a held round or a step held at the budget.
    Person,
}

impl ModerationPolicy {
    pub const ALL: [ModerationPolicy; 6] = [
        ModerationPolicy::Accept,
        ModerationPolicy::Reject,
        ModerationPolicy::Defer,
        ModerationPolicy::Ask,
        ModerationPolicy::Planner,
        ModerationPolicy::Person,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ModerationPolicy::Accept => "accept",
            ModerationPolicy::Reject => "reject",
            ModerationPolicy::Defer => "defer",
            ModerationPolicy::Ask => "ask",
            ModerationPolicy::Planner => "planner",
            ModerationPolicy::Person => "person",
        }
    }
}

impl std::str::FromStr for ModerationPolicy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        ModerationPolicy::ALL
            .into_iter()
            .find(|policy| policy.as_str() == text.trim())
            .ok_or_else(|| {
                format!(
                    "`{text}` is not a moderation policy; use {}",
                    ModerationPolicy::ALL
                        .map(ModerationPolicy::as_str)
                        .join(", ")
                )
            })
    }
}

/// What every debate spec says, whatever its protocol: the protocol, the
/// topic and its context, deadlines, moderation, who plays each role and the
/// script of scripted roles. The protocol's own keys (a decision review's
/// `critique`, a quick mode's `mode`) are read by the protocol, from the same
/// text; they are kept in [`DebateSpec::options`] only to write a spec out.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DebateSpec {
    #[serde(default = "default_protocol")]
    pub protocol: String,
    pub topic: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<ContextSpec>,
    /// A read-only source tree the agents may cite (issue 52), relative to
    /// the spec.
    pub repo: Option<PathBuf>,
    /// Log files the agents may cite, relative to the spec.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<PathBuf>,
    #[serde(default = "default_timeout_secs")]
    pub timeout_secs: f64,
    pub moderation: Option<ModerationPolicy>,
    /// Judges read no author's self-identification and each its own order
    /// (fair judging); true unless the spec says `blind: false`.
    pub blind: Option<bool>,
    /// What happens to a judge of the author's model family.
    pub recusal: Option<crate::config::family::Recusal>,
    /// A money limit, in US dollars at the configured prices.
    pub budget: Option<f64>,
    /// A token limit, input and output together.
    pub budget_tokens: Option<u64>,
    /// Role (`proposer`, `critic`, `judge.analyst`, `judge.*`, `default`) → agent.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub agents: BTreeMap<String, AgentSpec>,
    /// Replies for roles played by the `script` provider.
    pub script: Option<Script>,
    /// The protocol's own keys, for [`DebateSpec::to_yaml`]; never read.
    #[serde(skip)]
    pub options: yaml_serde::Mapping,
}

fn default_protocol() -> String {
    DEFAULT_PROTOCOL.to_string()
}

fn default_timeout_secs() -> f64 {
    DEFAULT_TIMEOUT_SECS
}

impl DebateSpec {
    /// A decision-review spec for `topic` with every default.
    pub fn for_topic(topic: impl Into<String>) -> Self {
        DebateSpec {
            protocol: DEFAULT_PROTOCOL.to_string(),
            topic: topic.into(),
            context: Vec::new(),
            repo: None,
            logs: Vec::new(),
            timeout_secs: DEFAULT_TIMEOUT_SECS,
            moderation: None,
            blind: None,
            recusal: None,
            budget: None,
            budget_tokens: None,
            agents: BTreeMap::new(),
            script: None,
            options: yaml_serde::Mapping::new(),
        }
    }

    /// Sets one of the protocol's own keys (`critique: strict`).
    pub fn with_option(mut self, key: &str, value: impl Into<yaml_serde::Value>) -> Self {
        self.options
            .insert(yaml_serde::Value::from(key), value.into());
        self
    }

    /// The spec as the text of a spec file, the protocol's keys included.
    pub fn to_yaml(&self) -> String {
        let mut value = yaml_serde::to_value(self).expect("a spec serialises");
        if let yaml_serde::Value::Mapping(mapping) = &mut value {
            for (key, option) in &self.options {
                mapping.insert(key.clone(), option.clone());
            }
        }
        yaml_serde::to_string(&value).expect("a spec serialises to YAML")
    }
}

/// Reads and parses a spec file (its common part; no semantic checks yet).
pub fn load(path: &Path) -> Result<(DebateSpec, String), SpecError> {
    let kind = crate::input::Kind::new("spec", crate::input::SPEC_LIMIT);
    let source = crate::input::read_text(path, kind).map_err(|error| SpecError {
        file: None,
        line: None,
        column: None,
        field: None,
        message: error.to_string(),
    })?;
    let spec = parse(path, &source)?;
    Ok((spec, source))
}

/// Parses the common part of spec text that came from `path`. Keys it does
/// not know are left for the protocol ([`check_keys`] refuses the ones no
/// one knows).
pub fn parse(path: &Path, source: &str) -> Result<DebateSpec, SpecError> {
    guard(path, source)?;
    if let Ok(value) = yaml_serde::from_str::<yaml_serde::Value>(source)
        && !matches!(value, yaml_serde::Value::Mapping(_))
    {
        let mut error =
            SpecError::new("a spec is a mapping of keys (`topic:`, `protocol:`, `agents:` …)")
                .in_file(path, Some(source));
        // The first line that says something.
        error.line = source
            .lines()
            .position(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
            .map(|line| line + 1);
        return Err(error);
    }
    yaml_serde::from_str::<DebateSpec>(source).map_err(|error| yaml_error_in(path, source, &error))
}

/// Refuses a top-level key of spec text that is neither common nor one of
/// `protocol_keys`, naming the file, the line and the keys there are.
pub fn check_keys(
    path: &Path,
    source: &str,
    protocol: &str,
    protocol_keys: &[&str],
) -> Result<(), SpecError> {
    let Ok(yaml_serde::Value::Mapping(mapping)) = yaml_serde::from_str(source) else {
        return Ok(());
    };
    for key in mapping.keys() {
        let name = match key {
            yaml_serde::Value::String(name) => name.clone(),
            other => yaml_serde::to_string(other)
                .unwrap_or_default()
                .trim()
                .to_string(),
        };
        if COMMON_KEYS.contains(&name.as_str()) || protocol_keys.contains(&name.as_str()) {
            continue;
        }
        let expected: Vec<&str> = COMMON_KEYS
            .iter()
            .chain(protocol_keys.iter())
            .copied()
            .collect();
        return Err(SpecError::new(format!(
            "unknown field `{name}` for protocol {protocol}; a spec may have {}",
            expected.join(", ")
        ))
        .field(name)
        .in_file(path, Some(source)));
    }
    Ok(())
}

/// Checks what serde cannot in the common part: ranges, role names, context
/// sources.
pub fn validate(spec: &DebateSpec, book: &dyn RoleBook) -> Result<(), SpecError> {
    if spec.topic.trim().is_empty() {
        return Err(SpecError::new("must not be empty").field("topic"));
    }
    if !valid_seconds(spec.timeout_secs) {
        return Err(SpecError::new(format!(
            "must be {SECONDS_RANGE}, got {}",
            spec.timeout_secs
        ))
        .field("timeout_secs"));
    }
    for (index, context) in spec.context.iter().enumerate() {
        let field = format!("context[{index}]");
        match (&context.text, &context.path) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new("give either `text` or `path`, not both").field(field));
            }
            (None, None) => {
                return Err(SpecError::new("needs `text` (inline) or `path` (a file)").field(field));
            }
            (Some(_), None) if context.name.is_none() => {
                return Err(SpecError::new("inline context needs a `name`").field(field));
            }
            _ => {}
        }
    }
    for (role, agent) in &spec.agents {
        let field = format!("agents.{role}");
        if !known_role(book, role) {
            return Err(SpecError::new(unknown_role(book, role)).field(field));
        }
        match agent {
            AgentSpec::Short(text) => {
                crate::config::AgentChoice::parse(text)
                    .map_err(|message| SpecError::new(message).field(&field))?;
            }
            AgentSpec::Full(detail) => {
                if let Some(model) = &detail.model {
                    crate::config::check_model_name(model).map_err(|message| {
                        SpecError::new(message).field(format!("{field}.model"))
                    })?;
                }
                if let Some(family) = &detail.family {
                    crate::config::family::Family::new(family).map_err(|message| {
                        SpecError::new(message).field(format!("{field}.family"))
                    })?;
                }
            }
        }
        if let Some(timeout) = agent.timeout_secs()
            && !valid_seconds(timeout)
        {
            return Err(SpecError::new(format!(
                "timeout_secs must be {SECONDS_RANGE}, got {timeout}"
            ))
            .field(format!("{field}.timeout_secs")));
        }
        if let AgentSpec::Full(detail) = agent
            && let Some(idle) = detail.idle_timeout_secs
            && !valid_seconds(idle)
        {
            return Err(SpecError::new(format!(
                "idle_timeout_secs must be {SECONDS_RANGE}, got {idle}"
            ))
            .field(format!("{field}.idle_timeout_secs")));
        }
    }
    if let Some(script) = &spec.script {
        script
            .validate()
            .map_err(|message| SpecError::new(message).field("script"))?;
    }
    Ok(())
}

/// The agent spec for a role slot and the key it came from (see
/// [`role_keys`]).
pub fn agent_for<'a>(spec: &'a DebateSpec, role: &str) -> Option<(&'a str, &'a AgentSpec)> {
    role_keys(role)
        .iter()
        .find_map(|key| spec.agents.get_key_value(key))
        .map(|(key, agent)| (key.as_str(), agent))
}

#[cfg(test)]
mod tests {

    use super::*;

    fn parse_text(text: &str) -> Result<DebateSpec, SpecError> {
        let spec = parse(Path::new("spec.yaml"), text)?;
        validate(&spec, &crate::protocol::registry::Registered)
            .map_err(|error| error.in_file(Path::new("spec.yaml"), Some(text)))?;
        Ok(spec)
    }

    #[test]
    fn minimal_spec_takes_the_defaults() {
        let spec = parse_text("topic: Should we?\n").unwrap();
        assert_eq!(spec.protocol, "decision-review");
        assert_eq!(spec.timeout_secs, 600.0);
        assert!(spec.agents.is_empty());
    }

    /// Issue 54: `person` is a policy like the others, as a flag's value
    /// and as a spec's `moderation:` key.
    #[test]
    fn person_moderation_parses_from_a_flag_and_a_spec() {
        assert_eq!("person".parse(), Ok(ModerationPolicy::Person));
        assert_eq!(ModerationPolicy::Person.as_str(), "person");
        let refused = "someone".parse::<ModerationPolicy>().unwrap_err();
        assert!(refused.ends_with("ask, planner, person"), "{refused}");
        let spec = parse_text("topic: Should we?\nmoderation: person\n").unwrap();
        assert_eq!(spec.moderation, Some(ModerationPolicy::Person));
    }

    #[test]
    fn unknown_field_names_file_line_and_field() {
        let text = "topic: x\ncritique: strict\nrounds: 3\n";
        let error = check_keys(
            Path::new("spec.yaml"),
            text,
            "decision-review",
            &["critique", "max_rounds"],
        )
        .unwrap_err();
        let message = error.to_string();
        assert!(message.starts_with("spec.yaml:3:"), "{message}");
        assert!(message.contains("unknown field `rounds`"), "{message}");
        assert!(
            message.contains("max_rounds"),
            "lists the keys there are: {message}"
        );
        assert!(check_keys(Path::new("spec.yaml"), text, "x", &["critique", "rounds"]).is_ok());
    }

    #[test]
    fn a_spec_that_is_not_a_mapping_is_refused() {
        let error = parse_text("- topic: x\n").unwrap_err();
        assert!(error.to_string().contains("a spec is a mapping"), "{error}");
    }

    #[test]
    fn unknown_role_is_located_after_parsing() {
        let error = parse_text("topic: x\nagents:\n  judge.poet: script\n").unwrap_err();
        assert_eq!(error.line, Some(3), "{error}");
        assert_eq!(error.field.as_deref(), Some("agents.judge.poet"));
        assert!(error.message.contains("judge.analyst"), "{error}");
    }

    #[test]
    fn a_model_name_with_shell_syntax_is_refused_with_its_line() {
        let error = parse_text("topic: x\nagents:\n  default: \"mycli:x; touch pwned; echo\"\n")
            .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("agents.default"));
        assert_eq!(error.line, Some(3), "{error}");
        assert!(error.message.contains("`;`"), "{error}");
        let error =
            parse_text("topic: x\nagents:\n  critic:\n    provider: mycli\n    model: \"$(id)\"\n")
                .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("agents.critic.model"));
        assert_eq!(error.line, Some(5), "{error}");
    }

    #[test]
    fn a_typo_in_an_agent_entry_names_the_key_its_line_and_the_keys_there_are() {
        let text = "topic: x\nagents:\n  default: script\n  critic:\n    provider: script\n    timout_secs: 6\n";
        let error = parse_text(text).unwrap_err();
        let message = error.to_string();
        assert_eq!(error.line, Some(6), "{message}");
        assert!(message.contains("`timout_secs`"), "{message}");
        assert!(
            message.contains("timeout_secs") && message.contains("family"),
            "{message}"
        );
        assert!(!message.contains("untagged"), "{message}");
        let text = "topic: x\nagents:\n  critic: { provder: script }\n";
        let message = parse_text(text).unwrap_err().to_string();
        assert!(message.starts_with("spec.yaml:3:"), "{message}");
        assert!(
            message.contains("`provder`") && message.contains("provider"),
            "{message}"
        );
        let message = parse_text("topic: x\nagents:\n  critic: [script]\n")
            .unwrap_err()
            .to_string();
        assert!(message.contains("provider:model"), "{message}");
    }

    #[test]
    fn list_items_are_located_by_index() {
        let error =
            parse_text("topic: x\ncontext:\n  - name: a\n    text: t\n  - name: b\n").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("context[1]"));
        assert_eq!(error.line, Some(5), "{error}");
    }

    #[test]
    fn non_positive_timeout_is_rejected() {
        let error = parse_text("topic: x\ntimeout_secs: 0\n").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("timeout_secs"));
        assert_eq!(error.line, Some(2));
    }

    #[test]
    fn agents_resolve_exact_then_wildcard_then_default() {
        let spec = parse_text(
            "topic: x\nagents:\n  default: script\n  judge.*: {provider: script, timeout_secs: 5}\n  judge.analyst: script\n",
        )
        .unwrap();
        let script = AgentSpec::Short("script".into());
        assert_eq!(
            agent_for(&spec, "judge.analyst"),
            Some(("judge.analyst", &script))
        );
        let (key, wildcard) = agent_for(&spec, "judge.stylist").unwrap();
        assert_eq!((key, wildcard.timeout_secs()), ("judge.*", Some(5.0)));
        assert_eq!(agent_for(&spec, "proposer"), Some(("default", &script)));
    }

    #[test]
    fn a_spec_writes_out_with_its_protocol_keys() {
        let spec = DebateSpec::for_topic("Should we?").with_option("critique", "strict");
        let text = spec.to_yaml();
        assert!(text.contains("critique: strict"), "{text}");
        assert_eq!(parse_text(&text).unwrap().topic, "Should we?");
    }
}
