//! The tools `quorum mcp` offers and what their arguments mean: one tool a
//! protocol of the registry (its schema made from the keys every spec
//! takes and the protocol's own options, so a protocol added to the
//! registry is callable with no change here), and the tools that follow,
//! rule on, read and resume a debate.
//!
//! A debate tool's arguments are a spec's keys: they become the text of a
//! spec (JSON is YAML) and go through the very checks a spec file does, so
//! an error names the field as it would in a file.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::protocol::kind::{OptionSpec, ProtocolKind, ValueKind};
use crate::protocol::registry;

/// Who rules on a debate's items, as a tool call says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Who {
    /// A person, in `quorum attach DIR` in any terminal.
    Person,
    /// The calling agent, through the `rule` tool.
    Caller,
    /// A fixed headless policy.
    Policy(crate::spec::ModerationPolicy),
}

impl Who {
    pub(super) const WORDS: [&'static str; 6] =
        ["person", "caller", "accept", "reject", "defer", "planner"];

    pub(super) fn parse(word: &str) -> Option<Who> {
        use crate::spec::ModerationPolicy;
        Some(match word {
            "person" => Who::Person,
            "caller" => Who::Caller,
            "accept" => Who::Policy(ModerationPolicy::Accept),
            "reject" => Who::Policy(ModerationPolicy::Reject),
            "defer" => Who::Policy(ModerationPolicy::Defer),
            "planner" => Who::Policy(ModerationPolicy::Planner),
            _ => return None,
        })
    }

    pub(super) fn as_str(self) -> &'static str {
        match self {
            Who::Person => "person",
            Who::Caller => "caller",
            Who::Policy(policy) => policy.as_str(),
        }
    }
}

/// The tool that starts a debate of `kind`: `decision_review`, `quick`.
pub(super) fn tool_name(kind: &dyn ProtocolKind) -> String {
    kind.name().replace('-', "_")
}

/// The protocol a debate tool starts, by the tool's name.
pub(super) fn kind_of(tool: &str) -> Option<&'static dyn ProtocolKind> {
    registry::kinds()
        .into_iter()
        .find(|kind| tool_name(*kind) == tool)
}

/// Every tool: one a protocol, then the ones on debates.
pub(super) fn all() -> Vec<Tool> {
    let mut tools: Vec<Tool> = registry::kinds().into_iter().map(debate_tool).collect();
    tools.extend(debate_tools());
    tools
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(Map::new()),
    }
}

fn debate_tool(kind: &dyn ProtocolKind) -> Tool {
    let mut properties = common_properties(kind);
    for option in kind.options() {
        properties.insert(option.key.to_string(), option_schema(option));
    }
    let schema = json!({
        "type": "object",
        "properties": properties,
        "required": ["topic"],
        "additionalProperties": false,
    });
    let description = format!(
        "Start a {} (quorum's `{}` protocol{}) and return at once with its id and folder. \
         The debate runs on in the server: follow it with `status` (wait_secs long-polls, with \
         progress notifications), rule on its items with `rule` when moderator is `caller`, read \
         the verdict with `result`. With moderator `person` (the default) a person rules in \
         `quorum attach DIR`. The arguments are the keys of a quorum spec file.",
        kind.title(),
        kind.name(),
        match kind.modes() {
            [] => String::new(),
            modes => format!("; modes: {}", modes.join(", ")),
        }
    );
    Tool::new(tool_name(kind), description, object(schema))
        .with_annotations(ToolAnnotations::new().read_only(false).open_world(true))
}

/// The keys every spec takes, as JSON Schema properties.
fn common_properties(kind: &dyn ProtocolKind) -> Map<String, Value> {
    let slots = kind.slots().join(", ");
    let json = json!({
        "topic": {
            "type": "string",
            "description": "What the debate is about: the decision, scope, goal or problem, in a sentence or two"
        },
        "context": {
            "type": "array",
            "description": "Documents every agent reads: a path (relative to the folder the server runs in), or {path} or {name, text}",
            "items": {
                "anyOf": [
                    {"type": "string"},
                    {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string"},
                            "name": {"type": "string"},
                            "text": {"type": "string"}
                        },
                        "additionalProperties": false
                    }
                ]
            }
        },
        "repo": {
            "type": "string",
            "description": "A source tree the agents may cite, read-only; every citation of it is checked"
        },
        "logs": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Log files the agents may cite; every citation of them is checked"
        },
        "agents": {
            "type": "object",
            "description": format!("Who plays each role: role → `provider:model` (roles: {slots}; `default` for the rest)"),
            "additionalProperties": {"type": ["string", "object"]}
        },
        "script": {
            "type": "object",
            "description": "Replies of the `script` provider (quorum's scripted agents, no key needed), as in a spec file"
        },
        "budget": {"type": "number", "description": "A money limit in US dollars at the configured prices; the debate stops before a step would cross it"},
        "budget_tokens": {"type": "integer", "minimum": 1, "description": "A token limit, input and output together"},
        "timeout_secs": {"type": "number", "exclusiveMinimum": 0, "description": "Deadline of each agent call, in seconds (default 600)"},
        "blind": {"type": "boolean", "description": "Judges read no author's self-identification (default true)"},
        "recusal": {"type": "string", "enum": ["flag", "recuse", "off"], "description": "A judge of the author's model family: flagged, left out, or neither"},
        "moderator": {
            "type": "string",
            "enum": Who::WORDS,
            "default": "person",
            "description": "Who rules on the items: `person` (in `quorum attach DIR`), `caller` (you, through the `rule` tool), or a fixed policy: `accept`, `reject`, `defer`, or `planner` (a planning debate: what the planner proposed)"
        }
    });
    match json {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn option_schema(option: &OptionSpec) -> Value {
    let mut schema = match option.kind {
        ValueKind::Text => json!({"type": "string"}),
        ValueKind::Integer => json!({"type": "integer"}),
        ValueKind::Number => json!({"type": "number"}),
        ValueKind::Switch(_) => json!({"type": "boolean"}),
        ValueKind::List => json!({"type": "array", "items": {"type": "string"}}),
    };
    if let Value::Object(map) = &mut schema {
        map.insert("description".into(), Value::from(option.help));
        if !option.values.is_empty() {
            let values: Vec<Value> = option.values.iter().map(|v| Value::from(*v)).collect();
            match option.kind {
                ValueKind::List => {
                    map.insert("items".into(), json!({"type": "string", "enum": values}));
                }
                ValueKind::Text => {
                    map.insert("enum".into(), Value::Array(values));
                }
                _ => {}
            }
        }
    }
    schema
}

/// The id every debate tool names: the debate's folder under the server's
/// artifact root.
fn debate_id() -> Value {
    json!({
        "type": "string",
        "description": "The debate's id: its folder's name under the server's artifact root, as a debate tool or `list` returned it"
    })
}

fn debate_tools() -> Vec<Tool> {
    let read_only = || ToolAnnotations::new().read_only(true);
    vec![
        Tool::new(
            "status",
            "Where a debate stands: its stage and round, the last lines of its transcript, the \
             items waiting for a ruling (with their ids) and who they wait for, and whether it \
             has ended. With wait_secs, waits until something needs you or it ends (progress \
             notifications carry each new line meanwhile).",
            object(json!({
                "type": "object",
                "properties": {
                    "debate": debate_id(),
                    "wait_secs": {"type": "number", "minimum": 0, "maximum": 600, "description": "Wait up to this long for a ruling to be needed or the debate to end"},
                    "lines": {"type": "integer", "minimum": 0, "maximum": 200, "description": "How many of the last transcript lines to return (default 20)"}
                },
                "required": ["debate"],
                "additionalProperties": false
            })),
        )
        .with_annotations(read_only()),
        Tool::new(
            "result",
            "The outcome of an ended debate: its verdict and the rule that derived it (or what \
             it delivered, or why it failed), the items with their rulings, and the paths of \
             its deliverables (also readable as resources).",
            object(json!({
                "type": "object",
                "properties": {"debate": debate_id()},
                "required": ["debate"],
                "additionalProperties": false
            })),
        )
        .with_annotations(read_only()),
        Tool::new(
            "rule",
            "Rule on the items a debate started with moderator `caller` waits on: each item by \
             its id, accept, reject or defer, with an optional note. With submit (the default) \
             every waiting item must have a ruling, and the debate goes on.",
            object(json!({
                "type": "object",
                "properties": {
                    "debate": debate_id(),
                    "rulings": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "item": {"type": "string", "description": "The item's id, as `status` lists it"},
                                "decision": {"type": "string", "enum": ["accept", "reject", "defer"]},
                                "note": {"type": "string"}
                            },
                            "required": ["item", "decision"],
                            "additionalProperties": false
                        }
                    },
                    "submit": {"type": "boolean", "default": true, "description": "Hand the rulings in: the debate goes on"}
                },
                "required": ["debate", "rulings"],
                "additionalProperties": false
            })),
        ),
        Tool::new(
            "resume",
            "Continue an interrupted debate from its journal (after the server or the machine \
             stopped), in this server, with the moderator given.",
            object(json!({
                "type": "object",
                "properties": {
                    "debate": debate_id(),
                    "moderator": {"type": "string", "enum": Who::WORDS, "default": "person"}
                },
                "required": ["debate"],
                "additionalProperties": false
            })),
        ),
        Tool::new(
            "list",
            "Every debate under the server's artifact root: its id, topic, state (a verdict, \
             running, interrupted) and what to do next.",
            object(json!({"type": "object", "properties": {}, "additionalProperties": false})),
        )
        .with_annotations(read_only()),
    ]
}

/// A debate tool's arguments as the text of a spec of `kind`, with who
/// moderates taken out (it is not a spec key). A context entry given as a
/// bare path becomes `{path: …}`.
pub(super) fn spec_text(
    kind: &dyn ProtocolKind,
    arguments: &JsonObject,
) -> Result<(String, Who), String> {
    let mut spec = arguments.clone();
    let who = match spec.remove("moderator") {
        None => Who::Person,
        Some(Value::String(word)) => Who::parse(&word).ok_or_else(|| {
            format!(
                "moderator: `{word}` is not one of {}",
                Who::WORDS.join(", ")
            )
        })?,
        Some(other) => return Err(format!("moderator: expected a string, got {other}")),
    };
    if spec.contains_key("moderation") {
        return Err(format!(
            "moderation: who rules on the items is the `moderator` argument ({})",
            Who::WORDS.join(", ")
        ));
    }
    if spec.contains_key("protocol") {
        return Err(
            "protocol: the tool names the protocol; leave `protocol` out of its arguments".into(),
        );
    }
    if let Some(Value::Array(context)) = spec.get_mut("context") {
        for entry in context.iter_mut() {
            if let Value::String(path) = entry {
                *entry = json!({ "path": path });
            }
        }
    }
    let mut text = Map::new();
    text.insert("protocol".into(), Value::from(kind.name()));
    text.extend(spec);
    let text = serde_json::to_string_pretty(&Value::Object(text)).map_err(|e| e.to_string())?;
    Ok((text, who))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 54: one tool a protocol of the registry, each schema an
    /// object requiring a topic and refusing keys it does not know.
    #[test]
    fn every_protocol_of_the_registry_is_a_tool() {
        let tools = all();
        for kind in registry::kinds() {
            let tool = tools
                .iter()
                .find(|tool| tool.name == tool_name(kind))
                .unwrap_or_else(|| panic!("no tool for {}", kind.name()));
            let schema = &tool.input_schema;
            assert_eq!(schema["required"], json!(["topic"]));
            assert_eq!(schema["additionalProperties"], json!(false));
            for option in kind.options() {
                assert!(
                    schema["properties"].get(option.key).is_some(),
                    "{}",
                    option.key
                );
            }
        }
        for name in ["decision_review", "quick", "council", "plan", "rca"] {
            assert!(kind_of(name).is_some(), "{name}");
        }
        for name in ["status", "result", "rule", "resume", "list"] {
            assert!(tools.iter().any(|tool| tool.name == name), "{name}");
        }
    }

    #[test]
    fn arguments_become_a_spec_with_who_moderates_taken_out() {
        let kind = kind_of("council").unwrap();
        let arguments = json!({
            "topic": "the webhooks service",
            "context": ["notes.md", {"name": "a", "text": "b"}],
            "domains": ["security"],
            "moderator": "caller"
        });
        let Value::Object(arguments) = arguments else {
            unreachable!()
        };
        let (text, who) = spec_text(kind, &arguments).unwrap();
        assert_eq!(who, Who::Caller);
        let spec: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(spec["protocol"], "council");
        assert_eq!(spec["context"][0], json!({"path": "notes.md"}));
        assert!(spec.get("moderator").is_none());
        let mut bad = arguments.clone();
        bad.insert("moderator".into(), json!("anyone"));
        let error = spec_text(kind, &bad).unwrap_err();
        assert!(error.starts_with("moderator:"), "{error}");
        let mut named = arguments;
        named.insert("protocol".into(), json!("rca"));
        assert!(
            spec_text(kind, &named)
                .unwrap_err()
                .starts_with("protocol:")
        );
    }
}
