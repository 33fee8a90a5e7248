//! Which model family an agent belongs to.
//!
//! A judge that shares training with the author it judges is assumed to
//! favour that author's text, so quorum records each agent's family and flags
//! a judge of the author's own family. The family comes from the agent's name,
//! `provider:model`, by one built-in [`table`]: the model name decides when it
//! is recognised, because a provider name says where a model is served, not
//! whose model it is (an `openai`-named provider pointed at a local server
//! that serves `llama3` runs a Meta model). The provider name decides only
//! when the model name is not recognised.
//!
//! An unrecognised agent has no family, and no family is assumed equal to an
//! unknown one: a missed match must never make two strangers look related.
//!
//! What happens to a judge of the author's family is a setting too
//! ([`Recusal`]). Both are read from the configuration and specs here; the
//! fair-judging rules that use them are `protocol::fairness`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A model family: whose training a model shares. Agents of one family are
/// assumed to favour each other's text.
///
/// The name is lower-case ASCII letters, digits and `-`, 1 to 40 characters,
/// so that it reads the same in configuration, in `quorum doctor` and in the
/// record.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct Family(String);

/// A family read from a record or a configuration is checked as one
/// written by hand.
impl TryFrom<String> for Family {
    type Error = String;

    fn try_from(name: String) -> Result<Family, String> {
        Family::new(&name)
    }
}

impl From<Family> for String {
    fn from(family: Family) -> String {
        family.0
    }
}

impl Family {
    /// The longest family name accepted.
    pub const MAX_LEN: usize = 40;

    /// A family by name, such as `anthropic` or `openai`, or one of the
    /// user's own.
    ///
    /// # Errors
    ///
    /// When the name is empty, longer than [`Family::MAX_LEN`] characters, or
    /// has a character other than a lower-case ASCII letter, a digit or `-`;
    /// the message says what is allowed.
    pub fn new(name: &str) -> Result<Family, String> {
        const ALLOWED: &str = "lower-case ascii letters, digits and '-'";
        if name.is_empty() {
            return Err(format!(
                "a family name cannot be empty: use 1 to {} {ALLOWED}",
                Family::MAX_LEN
            ));
        }
        if let Some(bad) = name
            .chars()
            .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
        {
            return Err(format!(
                "family name {name:?} has {bad:?}: use only {ALLOWED}"
            ));
        }
        if name.len() > Family::MAX_LEN {
            return Err(format!(
                "family name {name:?} is {} characters long: use at most {}",
                name.len(),
                Family::MAX_LEN
            ));
        }
        Ok(Family(name.to_owned()))
    }

    /// The family's name, such as `anthropic`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The built-in table: `(pattern, family)` rows, tried in this order.
///
/// A pattern is one of four forms:
///
/// * `vendor/*`: the model is a path whose first segment is `vendor`, as
///   routers such as OpenRouter write it (`anthropic/claude-3.5-sonnet`).
/// * `name*`: the model's name starts with `name`.
/// * `name`: the model's name is exactly `name`.
/// * `provider:*`: the provider is named `provider`, whatever the model.
///
/// A model's name is the model lower-cased, after its last `/`: Fireworks'
/// `accounts/fireworks/models/qwen2p5-72b-instruct` is named
/// `qwen2p5-72b-instruct`. Vendor and name rows come before provider rows,
/// because the model decides whenever it is recognised.
const TABLE: &[(&str, &str)] = &[
    // A vendor's own path segment.
    ("anthropic/*", "anthropic"),
    ("openai/*", "openai"),
    ("google/*", "google"),
    ("meta-llama/*", "meta"),
    ("mistralai/*", "mistral"),
    ("qwen/*", "qwen"),
    ("deepseek/*", "deepseek"),
    ("x-ai/*", "xai"),
    // The model's name.
    ("claude*", "anthropic"),
    ("gpt-*", "openai"),
    ("gpt4*", "openai"),
    ("chatgpt*", "openai"),
    // `o1` and its kin are matched whole or before `-` only, so that `olmo`
    // and `orca` stay unknown.
    ("o1", "openai"),
    ("o1-*", "openai"),
    ("o3", "openai"),
    ("o3-*", "openai"),
    ("o4", "openai"),
    ("o4-*", "openai"),
    ("text-davinci*", "openai"),
    ("davinci*", "openai"),
    ("codex*", "openai"),
    ("gemini*", "google"),
    ("gemma*", "google"),
    // PaLM, but not Writer's `palmyra`.
    ("palm", "google"),
    ("palm-*", "google"),
    ("palm2*", "google"),
    // PaLM's `bison` models are usually named `text-bison` or `chat-bison`.
    ("bison*", "google"),
    ("text-bison*", "google"),
    ("chat-bison*", "google"),
    ("llama*", "meta"),
    ("codellama*", "meta"),
    ("meta-llama*", "meta"),
    ("mistral*", "mistral"),
    ("mixtral*", "mistral"),
    ("codestral*", "mistral"),
    ("ministral*", "mistral"),
    ("magistral*", "mistral"),
    ("devstral*", "mistral"),
    ("pixtral*", "mistral"),
    ("qwen*", "qwen"),
    ("qwq*", "qwen"),
    ("deepseek*", "deepseek"),
    ("grok*", "xai"),
    ("command-r*", "cohere"),
    ("command-a*", "cohere"),
    ("aya*", "cohere"),
    ("phi-*", "microsoft"),
    // Ollama writes Phi without the dash: `phi3:mini`, `phi4`.
    ("phi3*", "microsoft"),
    ("phi4*", "microsoft"),
    ("nova-*", "amazon"),
    ("titan*", "amazon"),
    ("jamba*", "ai21"),
    ("glm*", "zhipu"),
    ("kimi*", "moonshot"),
    ("moonshot*", "moonshot"),
    ("yi-*", "01-ai"),
    ("nemotron*", "nvidia"),
    // The provider, when the model is not recognised.
    ("anthropic:*", "anthropic"),
    ("claude:*", "anthropic"),
    ("claude-cli:*", "anthropic"),
    ("openai:*", "openai"),
    ("codex-cli:*", "openai"),
    ("gemini:*", "google"),
    ("gemini-cli:*", "google"),
    ("google:*", "google"),
    ("vertex:*", "google"),
    ("mistral:*", "mistral"),
    ("deepseek:*", "deepseek"),
    ("xai:*", "xai"),
    ("grok:*", "xai"),
    ("cohere:*", "cohere"),
];

/// Built-in providers whose agents are not models at all: a person and the
/// scripted demo agents. Their model label (`human`, `script`, `demo`) names
/// no training, so they have no family whatever it says. Users cannot give
/// their own providers these names, so the rule never hides a real model.
const NOT_MODELS: &[&str] = &["human", "script"];

/// The built-in table, for documentation: `(pattern, family)` rows in the
/// order they are tried.
///
/// Patterns are `vendor/*` (the model path's first segment), `name*` (the
/// model name's start), `name` (the whole model name) and `provider:*` (the
/// provider, tried only when no model row matched). The providers `human` and
/// `script` are never looked up: their agents are not models.
pub fn table() -> &'static [(&'static str, &'static str)] {
    TABLE
}

/// The family of `provider:model` by the built-in table, or `None` when
/// unknown. Unknown families are never assumed equal to anything.
pub fn detect(provider: &str, model: &str) -> Option<Family> {
    detect_with_reason(provider, model).map(|(family, _reason)| family)
}

/// The family of `provider:model` and where it came from, for `quorum doctor`
/// and the record: `model name claude*`, `model path anthropic/*`,
/// `provider anthropic`. (A family set in the configuration, which the caller
/// records as `configured`, never reaches this function.)
pub fn detect_with_reason(provider: &str, model: &str) -> Option<(Family, String)> {
    let provider = provider.to_ascii_lowercase();
    if NOT_MODELS.contains(&provider.as_str()) {
        return None;
    }
    let lowered = model.to_ascii_lowercase();
    let model = ModelName::parse(&lowered);
    TABLE.iter().find_map(|&(pattern, family)| {
        let reason = match Pattern::parse(pattern) {
            Pattern::Vendor(vendor) if model.vendor == Some(vendor) => {
                format!("model path {pattern}")
            }
            Pattern::Prefix(prefix) if model.name.starts_with(prefix) => {
                format!("model name {pattern}")
            }
            Pattern::Exact(name) if model.name == name => format!("model name {pattern}"),
            Pattern::Provider(name) if provider == name => format!("provider {name}"),
            _ => return None,
        };
        Some((Family(family.to_owned()), reason))
    })
}

/// Two agents share a family: both known and equal.
pub fn same_family(a: Option<&Family>, b: Option<&Family>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a == b)
}

/// One row's pattern, read from its text form (see [`TABLE`]).
enum Pattern<'p> {
    /// `vendor/*`: the model path's first segment is this vendor.
    Vendor(&'p str),
    /// `name*`: the model name starts with this.
    Prefix(&'p str),
    /// `name`: the model name is exactly this.
    Exact(&'p str),
    /// `provider:*`: the provider is named this.
    Provider(&'p str),
}

impl<'p> Pattern<'p> {
    fn parse(pattern: &'p str) -> Pattern<'p> {
        if let Some(provider) = pattern.strip_suffix(":*") {
            Pattern::Provider(provider)
        } else if let Some(vendor) = pattern.strip_suffix("/*") {
            Pattern::Vendor(vendor)
        } else if let Some(prefix) = pattern.strip_suffix('*') {
            Pattern::Prefix(prefix)
        } else {
            Pattern::Exact(pattern)
        }
    }
}

/// A model as the table matches it: lower-cased, split into the first
/// segment of its path (when it has one) and the name after its last `/`.
struct ModelName<'m> {
    vendor: Option<&'m str>,
    name: &'m str,
}

impl<'m> ModelName<'m> {
    /// Splits an already lower-cased model: `meta-llama/llama-3-70b` has the
    /// vendor `meta-llama` and the name `llama-3-70b`.
    fn parse(lowered: &'m str) -> ModelName<'m> {
        ModelName {
            vendor: lowered.split_once('/').map(|(vendor, _)| vendor),
            name: lowered.rsplit_once('/').map_or(lowered, |(_, name)| name),
        }
    }
}

/// What happens to a judge of the same model family as the author of what
/// it judges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recusal {
    /// It scores, its scores count, and the record and the verdict's rule
    /// say that it shares the author's family.
    #[default]
    Flag,
    /// It is not asked: the panel is counted without it, and a verdict that
    /// would need it says so rather than adopt on fewer judges.
    Recuse,
    /// Families are not compared.
    Off,
}

impl Recusal {
    pub const ALL: [Recusal; 3] = [Recusal::Flag, Recusal::Recuse, Recusal::Off];

    pub fn as_str(self) -> &'static str {
        match self {
            Recusal::Flag => "flag",
            Recusal::Recuse => "recuse",
            Recusal::Off => "off",
        }
    }
}

impl std::str::FromStr for Recusal {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Recusal::ALL
            .into_iter()
            .find(|policy| policy.as_str() == text.trim())
            .ok_or_else(|| {
                format!(
                    "`{text}` is not a recusal policy; use {}",
                    Recusal::ALL.map(Recusal::as_str).join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn family(provider: &str, model: &str) -> Option<String> {
        detect(provider, model).map(|family| family.to_string())
    }

    fn reason(provider: &str, model: &str) -> Option<String> {
        detect_with_reason(provider, model).map(|(_, reason)| reason)
    }

    /// One agent for each row of the table, with the family it must get.
    const EXAMPLES: &[(&str, &str, &str)] = &[
        ("openrouter", "anthropic/some-new-model", "anthropic"),
        ("openrouter", "openai/some-new-model", "openai"),
        ("openrouter", "google/some-new-model", "google"),
        ("openrouter", "meta-llama/some-new-model", "meta"),
        ("openrouter", "mistralai/some-new-model", "mistral"),
        ("openrouter", "qwen/some-new-model", "qwen"),
        ("openrouter", "deepseek/some-new-model", "deepseek"),
        ("openrouter", "x-ai/some-new-model", "xai"),
        ("anthropic", "claude-sonnet-4-5", "anthropic"),
        ("openai", "gpt-4.1-mini", "openai"),
        ("azure", "gpt4-turbo", "openai"),
        ("azure", "chatgpt-4o-latest", "openai"),
        ("azure", "o1", "openai"),
        ("azure", "o1-preview", "openai"),
        ("azure", "o3", "openai"),
        ("azure", "o3-mini", "openai"),
        ("azure", "o4", "openai"),
        ("azure", "o4-mini", "openai"),
        ("azure", "text-davinci-003", "openai"),
        ("azure", "davinci-002", "openai"),
        ("local", "codex-mini-latest", "openai"),
        ("local", "gemini-2.5-pro", "google"),
        ("ollama", "gemma2:9b", "google"),
        ("local", "palm", "google"),
        ("local", "palm-2", "google"),
        ("local", "palm2-chat", "google"),
        ("local", "bison-001", "google"),
        ("local", "text-bison-001", "google"),
        ("local", "chat-bison", "google"),
        ("ollama", "llama3.1:8b", "meta"),
        ("ollama", "codellama:13b", "meta"),
        ("local", "meta-llama-3-8b-instruct", "meta"),
        ("local", "mistral-large-latest", "mistral"),
        ("local", "mixtral-8x7b", "mistral"),
        ("local", "codestral-latest", "mistral"),
        ("local", "ministral-8b", "mistral"),
        ("local", "magistral-medium", "mistral"),
        ("local", "devstral-small", "mistral"),
        ("local", "pixtral-12b", "mistral"),
        ("ollama", "qwen2.5:7b", "qwen"),
        ("ollama", "qwq:32b", "qwen"),
        ("local", "deepseek-r1", "deepseek"),
        ("local", "grok-4", "xai"),
        ("local", "command-r-plus", "cohere"),
        ("local", "command-a-03-2025", "cohere"),
        ("local", "aya-expanse-32b", "cohere"),
        ("local", "phi-3-mini", "microsoft"),
        ("ollama", "phi3:mini", "microsoft"),
        ("ollama", "phi4", "microsoft"),
        ("bedrock", "nova-pro-v1", "amazon"),
        ("bedrock", "titan-text-express", "amazon"),
        ("local", "jamba-1.5-large", "ai21"),
        ("local", "glm-4.5", "zhipu"),
        ("local", "kimi-k2", "moonshot"),
        ("local", "moonshot-v1-8k", "moonshot"),
        ("local", "yi-34b-chat", "01-ai"),
        ("local", "nemotron-70b", "nvidia"),
        ("anthropic", "house-model", "anthropic"),
        ("claude", "house-model", "anthropic"),
        ("claude-cli", "house-model", "anthropic"),
        ("openai", "house-model", "openai"),
        ("codex-cli", "house-model", "openai"),
        ("gemini", "house-model", "google"),
        ("gemini-cli", "house-model", "google"),
        ("google", "house-model", "google"),
        ("vertex", "house-model", "google"),
        ("mistral", "house-model", "mistral"),
        ("deepseek", "house-model", "deepseek"),
        ("xai", "house-model", "xai"),
        ("grok", "house-model", "xai"),
        ("cohere", "house-model", "cohere"),
    ];

    #[test]
    fn every_example_gets_its_family() {
        for &(provider, model, expected) in EXAMPLES {
            assert_eq!(
                family(provider, model).as_deref(),
                Some(expected),
                "{provider}:{model}"
            );
        }
    }

    #[test]
    fn every_table_row_is_the_reason_for_some_example() {
        let reasons: Vec<String> = EXAMPLES
            .iter()
            .filter_map(|&(provider, model, _)| reason(provider, model))
            .collect();
        for &(pattern, _) in table() {
            let shown = pattern.strip_suffix(":*").unwrap_or(pattern);
            assert!(
                reasons
                    .iter()
                    .any(|reason| reason.ends_with(&format!(" {shown}"))),
                "no example is matched by the row {pattern:?}"
            );
        }
    }

    #[test]
    fn every_table_family_is_a_valid_family_name() {
        for &(pattern, name) in table() {
            assert!(Family::new(name).is_ok(), "{pattern:?} -> {name:?}");
        }
    }

    #[test]
    fn reason_names_the_row_that_matched() {
        assert_eq!(
            reason("anthropic", "claude-sonnet-4-5").as_deref(),
            Some("model name claude*")
        );
        assert_eq!(reason("azure", "o3").as_deref(), Some("model name o3"));
        assert_eq!(
            reason("openrouter", "anthropic/claude-3.5-sonnet").as_deref(),
            Some("model path anthropic/*")
        );
        assert_eq!(
            reason("anthropic", "house-model").as_deref(),
            Some("provider anthropic")
        );
    }

    #[test]
    fn path_prefix_is_stripped_before_matching_the_model_name() {
        assert_eq!(
            family(
                "fireworks",
                "accounts/fireworks/models/qwen2p5-72b-instruct"
            )
            .as_deref(),
            Some("qwen")
        );
        assert_eq!(
            reason("fireworks", "accounts/fireworks/models/qwen2p5-72b").as_deref(),
            Some("model name qwen*")
        );
        assert_eq!(
            family("together", "someorg/llama-3-70b").as_deref(),
            Some("meta")
        );
    }

    #[test]
    fn known_vendor_path_segment_decides() {
        assert_eq!(
            family("openrouter", "anthropic/claude-3.5-sonnet").as_deref(),
            Some("anthropic")
        );
        assert_eq!(
            reason("together", "meta-llama/Meta-Llama-3.1-8B-Instruct").as_deref(),
            Some("model path meta-llama/*")
        );
        // The vendor's segment is the first, even when a name after it would
        // say otherwise.
        assert_eq!(
            family("openrouter", "qwen/llama-distilled").as_deref(),
            Some("qwen")
        );
    }

    #[test]
    fn unknown_path_and_name_give_no_family() {
        assert_eq!(
            family("openrouter", "nousresearch/hermes-3-llama-3.1-405b"),
            None
        );
    }

    #[test]
    fn model_is_matched_case_insensitively() {
        assert_eq!(family("openai", "GPT-4o").as_deref(), Some("openai"));
        assert_eq!(
            family("openrouter", "Anthropic/Claude-3.5-Sonnet").as_deref(),
            Some("anthropic")
        );
        assert_eq!(family("OpenAI", "house-model").as_deref(), Some("openai"));
    }

    #[test]
    fn o_series_is_openai_only_whole_or_before_a_dash() {
        assert_eq!(family("local", "o3").as_deref(), Some("openai"));
        assert_eq!(family("local", "o3-mini").as_deref(), Some("openai"));
        assert_eq!(family("ollama", "olmo2:7b"), None);
        assert_eq!(family("ollama", "orca-mini"), None);
        assert_eq!(family("ollama", "o3pro"), None);
    }

    #[test]
    fn model_name_decides_before_provider_name() {
        // An `openai`-named provider pointed at a local server serving Llama.
        assert_eq!(family("openai", "llama3").as_deref(), Some("meta"));
        assert_eq!(family("anthropic", "gpt-4o").as_deref(), Some("openai"));
        assert_eq!(
            reason("claude-cli", "claude").as_deref(),
            Some("model name claude*")
        );
    }

    #[test]
    fn provider_name_decides_when_model_is_unknown() {
        assert_eq!(
            family("claude-cli", "my-wrapper").as_deref(),
            Some("anthropic")
        );
        assert_eq!(family("vertex", "house-model").as_deref(), Some("google"));
    }

    #[test]
    fn command_provider_is_known_only_by_its_program_name() {
        assert_eq!(family("command", "claude").as_deref(), Some("anthropic"));
        assert_eq!(family("command", "my-tool"), None);
    }

    #[test]
    fn script_human_and_unknown_agents_have_no_family() {
        assert_eq!(family("script", "script"), None);
        assert_eq!(family("script", "demo"), None);
        assert_eq!(family("human", "human"), None);
        // A person or a scripted agent is no model, whatever it is labelled.
        assert_eq!(family("human", "claude"), None);
        assert_eq!(family("script", "gpt-4o"), None);
        assert_eq!(family("ollama", "my-finetune-v2"), None);
        assert_eq!(family("local", ""), None);
    }

    #[test]
    fn same_family_needs_both_known_and_equal() {
        let anthropic = detect("anthropic", "claude-opus-4");
        let also_anthropic = detect("openrouter", "anthropic/claude-3.5-sonnet");
        let openai = detect("openai", "gpt-4.1");
        assert!(same_family(anthropic.as_ref(), also_anthropic.as_ref()));
        assert!(!same_family(anthropic.as_ref(), openai.as_ref()));
        assert!(!same_family(anthropic.as_ref(), None));
        assert!(!same_family(None, openai.as_ref()));
    }

    #[test]
    fn same_family_is_false_for_two_unknowns() {
        let first = detect("script", "script");
        let second = detect("script", "script");
        assert!(!same_family(first.as_ref(), second.as_ref()));
        assert!(!same_family(None, None));
    }

    #[test]
    fn family_new_accepts_lowercase_letters_digits_and_dashes() {
        for name in ["anthropic", "01-ai", "my-lab-2", "x", &"a".repeat(40)] {
            let family = Family::new(name).expect("a valid family name");
            assert_eq!(family.as_str(), name);
            assert_eq!(family.to_string(), name);
        }
    }

    #[test]
    fn family_new_rejects_empty_name() {
        let error = Family::new("").expect_err("empty is not a family");
        assert!(error.contains("cannot be empty"), "{error}");
        assert!(error.contains("lower-case ascii letters, digits and '-'"));
    }

    #[test]
    fn family_new_rejects_other_characters_and_says_what_is_allowed() {
        for (name, bad) in [
            ("Anthropic", "'A'"),
            ("open ai", "' '"),
            ("meta_ai", "'_'"),
            ("x.ai", "'.'"),
            ("qwén", "'é'"),
        ] {
            let error = Family::new(name).expect_err("not a family name");
            assert!(error.contains(bad), "{error}");
            assert!(
                error.contains("lower-case ascii letters, digits and '-'"),
                "{error}"
            );
        }
    }

    #[test]
    fn family_new_rejects_names_over_forty_characters() {
        let error = Family::new(&"a".repeat(41)).expect_err("too long");
        assert!(error.contains("at most 40"), "{error}");
    }
}
