//! The user's configuration file, `$XDG_CONFIG_HOME/quorum/config.yaml` (or
//! `--config FILE`): providers, prices, role defaults and the theme.
//!
//! Responsible for reading the file, rejecting unknown keys and impossible
//! values with the file, line and field, and describing the providers it
//! names. [`resolve`] decides which provider and model play each role slot
//! (flags, then the spec, then this file, then [`detect`]); the agent factory
//! (`agent::factory`) turns that choice into an agent.
//!
//! Not responsible for secrets: the file names the environment variable that
//! holds a key (`api_key_env`), never the key, and nothing here reads a key's
//! value.

pub mod detect;
pub mod family;
pub mod keys;
pub mod limits;
pub mod resolve;
pub mod roles;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use etcetera::BaseStrategy;
use serde::{Deserialize, Serialize};

use crate::config::limits::{
    MAX_PRICE_USD_PER_MILLION_TOKENS, SECONDS_RANGE, price_refusal, tokens_refusal, usd_refusal,
    valid_seconds,
};
use crate::located::SpecError;
pub use limits::Price;
use roles::{RoleBook, known_role, unknown_role};

/// Provider names that need no `kind:`.
pub const BUILT_IN_PROVIDERS: [&str; 5] = ["openai", "anthropic", "command", "script", "human"];

/// What kind of agent a provider makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Any OpenAI-compatible Chat Completions endpoint.
    Openai,
    /// The Anthropic Messages API.
    Anthropic,
    /// A local program: prompt on stdin, answer on stdout.
    Command,
    /// Scripted replies from the spec (demo and tests).
    Script,
    /// The moderator types the answer in the interactive interface.
    Human,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Command => "command",
            ProviderKind::Script => "script",
            ProviderKind::Human => "human",
        }
    }

    /// The kind a built-in provider name stands for.
    pub fn built_in(name: &str) -> Option<ProviderKind> {
        match name {
            "openai" => Some(ProviderKind::Openai),
            "anthropic" => Some(ProviderKind::Anthropic),
            "command" => Some(ProviderKind::Command),
            "script" => Some(ProviderKind::Script),
            "human" => Some(ProviderKind::Human),
            _ => None,
        }
    }

    /// Whether it talks HTTP (and so has a base URL, a key and HTTP limits).
    pub fn is_http(self) -> bool {
        matches!(self, ProviderKind::Openai | ProviderKind::Anthropic)
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry of `providers:`.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// Needed for any name but the built-in ones: `openai`, `anthropic` or `command`.
    pub kind: Option<ProviderKind>,
    pub base_url: Option<String>,
    /// The name of the environment variable that holds the key.
    pub api_key_env: Option<String>,
    pub default_model: Option<String>,
    /// Output-token limit per call.
    pub max_tokens: Option<u32>,
    /// `command` providers: the program and its arguments, as a list.
    pub command: Option<Vec<String>>,
    /// `command` providers: the key variables (see [`keys`]) the program is
    /// given; it gets no other.
    pub env: Option<Vec<String>>,
    /// Deadline of each call to this provider, in seconds.
    pub timeout_secs: Option<f64>,
    pub connect_timeout_secs: Option<f64>,
    /// A stream that sends nothing for this long fails, in seconds.
    pub idle_timeout_secs: Option<f64>,
    /// Transport retries (429, 5xx) within one call.
    pub max_retries: Option<u32>,
    /// Longest `retry-after` honoured, in seconds.
    pub retry_after_cap_secs: Option<f64>,
    /// The model family of every model this provider serves, over the
    /// built-in table (fair judging: recusal).
    pub family: Option<String>,
}

/// The configuration file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderConfig>,
    /// USD per million tokens, keyed `provider:model` or `model`.
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
    /// Role slot (`default`, `proposer`, `critic`, `judge.analyst`, `judge.*`)
    /// → `PROVIDER[:MODEL]`.
    #[serde(default)]
    pub roles: BTreeMap<String, String>,
    /// Colour theme of the interactive interface.
    #[serde(default)]
    pub theme: Option<String>,
    /// Frames a second the interface draws streamed text at (keys are drawn
    /// at once); `--stream-fps` wins.
    #[serde(default)]
    pub stream_fps: Option<f64>,
    /// Every debate's money limit, in US dollars at the prices above,
    /// unless its spec or `--budget` says otherwise.
    #[serde(default)]
    pub budget: Option<f64>,
    /// Every debate's token limit (input and output together), unless its
    /// spec or `--budget-tokens` says otherwise.
    #[serde(default)]
    pub budget_tokens: Option<u64>,
    /// What the library of past debates (issue 55) may change: a binding
    /// judge whose agreement with the moderator is below a floor is seated
    /// advisory. Off when absent.
    #[serde(default)]
    pub calibration: Option<Calibration>,
}

/// The `calibration:` section: the judge floor and how many labels a
/// figure needs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// Cohen's kappa (from -1 to 1) below which a binding judge of a
    /// decision review is seated advisory; none: no judge is reseated.
    #[serde(default)]
    pub judge_kappa_floor: Option<f64>,
    /// Fewest labels a figure needs before it counts: below it the floor
    /// does nothing and `quorum library --calibration` prints no number.
    #[serde(default = "Calibration::default_min_labels")]
    pub min_labels: u64,
}

impl Calibration {
    /// Labels a figure needs when `min_labels` is not given.
    pub const DEFAULT_MIN_LABELS: u64 = 20;
    /// Most labels `min_labels` may ask for.
    pub const MAX_MIN_LABELS: u64 = 1_000_000;

    fn default_min_labels() -> u64 {
        Calibration::DEFAULT_MIN_LABELS
    }

    /// Why the section cannot be, with the field it is about.
    fn refusal(&self) -> Option<(&'static str, String)> {
        if let Some(floor) = self.judge_kappa_floor
            && !(floor.is_finite() && (-1.0..=1.0).contains(&floor))
        {
            return Some((
                "judge_kappa_floor",
                format!(
                    "a kappa floor is a number from -1 to 1 (0 is chance agreement), got {}",
                    crate::text::clipped(&floor.to_string())
                ),
            ));
        }
        if !(1..=Calibration::MAX_MIN_LABELS).contains(&self.min_labels) {
            return Some((
                "min_labels",
                format!(
                    "min_labels is a count from 1 to {}, got {}",
                    crate::text::thousands(Calibration::MAX_MIN_LABELS),
                    self.min_labels
                ),
            ));
        }
        None
    }
}

impl Config {
    /// The price of `provider:model`, by that name or by the model alone.
    pub fn price_of(&self, provider: &str, model: &str) -> Option<Price> {
        self.prices
            .get(&format!("{provider}:{model}"))
            .or_else(|| self.prices.get(model))
            .copied()
    }
}

/// Longest model name accepted, in characters.
pub const MAX_MODEL_NAME_CHARS: usize = 256;

/// The characters a model name may hold besides ASCII letters and digits.
/// None of them means anything to a shell, unquoted: a model name reaches a
/// `command` provider's arguments (`{model}`), and its program may well be
/// `sh -c "… {model}"`.
pub const MODEL_NAME_PUNCTUATION: &str = "._:/@+-";

/// Whether `c` may appear in a model name.
pub fn is_model_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || MODEL_NAME_PUNCTUATION.contains(c)
}

/// Checks a model name wherever one is named (`--agent`, a spec's
/// `agents:`, the configuration's `roles:` and `default_model`): ASCII
/// letters, digits, `_` and [`MODEL_NAME_PUNCTUATION`], starting with a
/// letter or a digit (a leading `-` would read as an option to a program),
/// at most [`MAX_MODEL_NAME_CHARS`]. Real names fit: `llama3.1:8b`,
/// `accounts/fireworks/models/x`, `gpt-4.1-mini`,
/// `claude-sonnet-4-5@20250929`, `qwen2.5:7b-instruct-q4_K_M`.
///
/// The message names the first character refused, never the whole name.
pub fn check_model_name(model: &str) -> Result<(), String> {
    const RULE: &str = "a model name has ASCII letters, digits, `_` and `._:/@+-`, \
                        starts with a letter or a digit";
    if model.is_empty() {
        return Err("the model name is empty".into());
    }
    if let Some(refused) = model.chars().find(|c| !is_model_name_char(*c)) {
        let shown = if refused == ' ' {
            "a space".to_string()
        } else if refused == '`' {
            "a backtick".to_string()
        } else if refused.is_ascii_graphic() {
            format!("`{refused}`")
        } else {
            format!("U+{:04X}", u32::from(refused))
        };
        return Err(format!(
            "the model name holds {shown}; {RULE} and is at most {MAX_MODEL_NAME_CHARS} characters"
        ));
    }
    if !model.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(format!(
            "the model name starts with `{}`; {RULE}",
            &model[..1]
        ));
    }
    if model.len() > MAX_MODEL_NAME_CHARS {
        return Err(format!(
            "the model name is {} characters long; it may have at most {MAX_MODEL_NAME_CHARS}",
            model.len()
        ));
    }
    Ok(())
}

/// `PROVIDER` or `PROVIDER:MODEL`, as `--agent`, `roles:` and spec agents
/// write it. The model may itself contain colons (`llama3.1:8b`); it must
/// pass [`check_model_name`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentChoice {
    pub provider: String,
    pub model: Option<String>,
}

impl AgentChoice {
    pub fn parse(text: &str) -> Result<AgentChoice, String> {
        let (provider, model) = match text.split_once(':') {
            Some((provider, model)) => (provider.trim(), Some(model.trim())),
            None => (text.trim(), None),
        };
        if provider.is_empty() {
            return Err(format!(
                "`{text}` names no provider; write PROVIDER or PROVIDER:MODEL"
            ));
        }
        if model.is_some_and(str::is_empty) {
            return Err(format!(
                "`{text}` has an empty model; write PROVIDER or PROVIDER:MODEL"
            ));
        }
        if let Some(model) = model {
            check_model_name(model)?;
        }
        Ok(AgentChoice {
            provider: provider.to_string(),
            model: model.map(str::to_string),
        })
    }
}

/// The configuration in effect and where it came from.
#[derive(Clone, Debug, Default)]
pub struct LoadedConfig {
    pub config: Config,
    /// The file read, if any.
    pub path: Option<PathBuf>,
    source: Option<String>,
}

impl LoadedConfig {
    /// Every key variable name in effect: see [`keys::key_variables`].
    pub fn key_variables(&self) -> Vec<String> {
        keys::key_variables(&self.config)
    }

    /// Where a top-level `key` of the file stands, as errors name it:
    /// `~/.config/quorum/config.yaml:3: theme`.
    pub fn key_location(&self, key: &str) -> String {
        let Some(path) = &self.path else {
            return key.to_string();
        };
        let line = self.source.as_deref().and_then(|source| {
            source.lines().position(|line| {
                line.starts_with(&format!("{key}:")) || line.starts_with(&format!("\"{key}\":"))
            })
        });
        match line {
            Some(line) => format!("{}:{}: {key}", path.display(), line + 1),
            None => format!("{}: {key}", path.display()),
        }
    }

    /// Points an error about `section.key` at its line in the file.
    pub fn locate(&self, mut error: SpecError, section: &str, key: &str) -> SpecError {
        if let Some(path) = &self.path {
            error.file = Some(path.clone());
            if error.line.is_none() {
                error.line = self
                    .source
                    .as_deref()
                    .and_then(|source| find_key_line(source, section, key));
            }
        }
        error
    }
}

/// Where quorum looks for the file when `--config` is not given.
pub fn default_path() -> Option<PathBuf> {
    let strategy = etcetera::choose_base_strategy().ok()?;
    Some(strategy.config_dir().join("quorum").join("config.yaml"))
}

/// Loads `explicit` (which must exist), or the default file if there is one,
/// or nothing.
pub fn load(explicit: Option<&Path>, book: &dyn RoleBook) -> Result<LoadedConfig, SpecError> {
    let path = match explicit {
        Some(path) => path.to_path_buf(),
        None => match default_path() {
            Some(path) if path.is_file() => path,
            _ => return Ok(LoadedConfig::default()),
        },
    };
    let kind = crate::input::Kind::new("configuration file", crate::input::CONFIG_LIMIT);
    let source =
        crate::input::read_text(&path, kind).map_err(|error| SpecError::new(error.to_string()))?;
    parse(&path, &source, book)
}

/// Parses and checks configuration text that came from `path`.
pub fn parse(path: &Path, source: &str, book: &dyn RoleBook) -> Result<LoadedConfig, SpecError> {
    let config: Config = if source.trim().is_empty() {
        Config::default()
    } else {
        crate::located::guard(path, source)?;
        yaml_serde::from_str(source)
            .map_err(|error| crate::located::yaml_error_in(path, source, &error))?
    };
    let loaded = LoadedConfig {
        config,
        path: Some(path.to_path_buf()),
        source: Some(source.to_string()),
    };
    validate(&loaded, book)?;
    Ok(loaded)
}

fn validate(loaded: &LoadedConfig, book: &dyn RoleBook) -> Result<(), SpecError> {
    let config = &loaded.config;
    for (name, provider) in &config.providers {
        validate_provider(name, provider).map_err(|message| {
            loaded.locate(
                SpecError::new(message).field(format!("providers.{name}")),
                "providers",
                name,
            )
        })?;
    }
    for (key, price) in &config.prices {
        let refusal = if key.trim().is_empty() {
            Some("a price is `{ input: USD, output: USD }` per million tokens".to_string())
        } else {
            price_refusal(price.input).or_else(|| price_refusal(price.output))
        };
        if let Some(why) = refusal {
            return Err(loaded.locate(
                SpecError::new(format!(
                    "{why}: write `{{ input: USD, output: USD }}` per million tokens, both from 0 to {}",
                    crate::text::thousands(MAX_PRICE_USD_PER_MILLION_TOKENS as u64)
                ))
                .field(format!("prices.{key}")),
                "prices",
                key,
            ));
        }
    }
    let whole = |key: &str, message: String| {
        let error = SpecError::new(message).field(key);
        match &loaded.path {
            Some(path) => error.in_file(path, loaded.source.as_deref()),
            None => error,
        }
    };
    if let Some(usd) = config.budget
        && let Some(why) = usd_refusal(usd)
    {
        return Err(whole(
            "budget",
            format!("{why}, got {}", crate::text::clipped(&usd.to_string())),
        ));
    }
    if let Some(tokens) = config.budget_tokens
        && let Some(why) = tokens_refusal(tokens)
    {
        return Err(whole("budget_tokens", why));
    }
    if let Some(calibration) = &config.calibration
        && let Some((key, message)) = calibration.refusal()
    {
        return Err(loaded.locate(
            SpecError::new(message).field(format!("calibration.{key}")),
            "calibration",
            key,
        ));
    }
    for (role, choice) in &config.roles {
        let located = |message: String| {
            loaded.locate(
                SpecError::new(message).field(format!("roles.{role}")),
                "roles",
                role,
            )
        };
        if !known_role(book, role) {
            return Err(located(unknown_role(book, role)));
        }
        let choice = AgentChoice::parse(choice).map_err(located)?;
        if !config.providers.contains_key(&choice.provider)
            && ProviderKind::built_in(&choice.provider).is_none()
        {
            return Err(located(unknown_provider(&choice.provider, config)));
        }
    }
    Ok(())
}

/// The message for a provider name nobody defined.
pub fn unknown_provider(name: &str, config: &Config) -> String {
    let configured: Vec<&str> = config
        .providers
        .keys()
        .map(String::as_str)
        .filter(|name| ProviderKind::built_in(name).is_none())
        .collect();
    let mut message = format!(
        "unknown provider `{name}`; the built-in providers are {}",
        BUILT_IN_PROVIDERS.join(", ")
    );
    if !configured.is_empty() {
        message.push_str(&format!(
            ", and the configuration file adds {}",
            configured.join(", ")
        ));
    }
    message
}

fn validate_provider(name: &str, provider: &ProviderConfig) -> Result<(), String> {
    if name.is_empty()
        || name.contains(':')
        || name.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err("a provider name has no colon, space or control character".into());
    }
    let kind = match (ProviderKind::built_in(name), provider.kind) {
        (Some(ProviderKind::Human), _) => {
            return Err(
                "`human` is reserved: the moderator plays that role in the interactive interface"
                    .into(),
            );
        }
        (Some(ProviderKind::Script), _) => {
            return Err(
                "the script provider takes its replies from a spec's `script:` section; there is nothing to configure"
                    .into(),
            );
        }
        (Some(built_in), Some(kind)) if kind != built_in => {
            return Err(format!(
                "`{name}` is the built-in {built_in} provider; `kind: {kind}` contradicts it (pick another name)"
            ));
        }
        (Some(built_in), _) => built_in,
        (None, Some(kind)) => kind,
        (None, None) => {
            return Err(format!(
                "`{name}` is not a built-in provider, so it needs `kind:` (openai, anthropic or command)"
            ));
        }
    };
    if matches!(kind, ProviderKind::Script | ProviderKind::Human) {
        return Err(format!(
            "`kind: {kind}` cannot be configured; kinds are openai, anthropic and command"
        ));
    }
    let positive = |value: Option<f64>, field: &str| match value {
        Some(secs) if !valid_seconds(secs) => {
            Err(format!("`{field}` must be {}, got {secs}", SECONDS_RANGE))
        }
        _ => Ok(()),
    };
    positive(provider.timeout_secs, "timeout_secs")?;
    positive(provider.connect_timeout_secs, "connect_timeout_secs")?;
    positive(provider.idle_timeout_secs, "idle_timeout_secs")?;
    positive(provider.retry_after_cap_secs, "retry_after_cap_secs")?;
    if provider.max_tokens == Some(0) {
        return Err("`max_tokens` must be at least 1".into());
    }
    if provider
        .default_model
        .as_deref()
        .is_some_and(|model| model.trim().is_empty())
    {
        return Err("`default_model` is empty".into());
    }
    if let Some(model) = &provider.default_model {
        check_model_name(model).map_err(|message| format!("`default_model`: {message}"))?;
    }
    if let Some(family) = &provider.family {
        family::Family::new(family).map_err(|message| format!("`family`: {message}"))?;
    }
    if kind == ProviderKind::Command {
        let http_only = [
            ("base_url", provider.base_url.is_some()),
            ("api_key_env", provider.api_key_env.is_some()),
            ("max_tokens", provider.max_tokens.is_some()),
            (
                "connect_timeout_secs",
                provider.connect_timeout_secs.is_some(),
            ),
            ("idle_timeout_secs", provider.idle_timeout_secs.is_some()),
            ("max_retries", provider.max_retries.is_some()),
            (
                "retry_after_cap_secs",
                provider.retry_after_cap_secs.is_some(),
            ),
        ];
        if let Some((field, _)) = http_only.iter().find(|(_, given)| *given) {
            return Err(format!(
                "`{field}` is for HTTP providers; a command provider takes `command`, `env`, `default_model` and `timeout_secs`"
            ));
        }
        if let Some(names) = &provider.env
            && names.iter().any(|name| !is_variable_name(name))
        {
            // The value may be a pasted key: never echo it.
            return Err(
                "`env` lists the NAMES of environment variables the program is given \
                 (such as [ANTHROPIC_API_KEY]), never their values"
                    .into(),
            );
        }
        match &provider.command {
            Some(argv)
                if argv
                    .first()
                    .is_some_and(|program| !program.trim().is_empty()) => {}
            _ => {
                return Err(
                    "a command provider needs `command: [PROGRAM, ARGUMENT, ...]` (a list, run without a shell)"
                        .into(),
                );
            }
        }
        return Ok(());
    }
    if let Some(field) = [
        ("command", provider.command.is_some()),
        ("env", provider.env.is_some()),
    ]
    .iter()
    .find_map(|(field, given)| given.then_some(field))
    {
        return Err(format!(
            "`{field}` is only for command providers; this one is {kind}"
        ));
    }
    if let Some(url) = &provider.base_url
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(format!(
            "`base_url` must start with http:// or https://, got `{url}`"
        ));
    }
    if let Some(variable) = &provider.api_key_env
        && !is_variable_name(variable)
    {
        // The value may be a pasted key: never echo it.
        return Err(
            "`api_key_env` takes the NAME of an environment variable (such as OPENAI_API_KEY), \
             never the key itself; keys stay in the environment"
                .into(),
        );
    }
    Ok(())
}

/// `OPENAI_API_KEY`: letters, digits and underscores, not starting with a digit.
fn is_variable_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The 1-based line of `key` inside the top-level `section` of a YAML file.
fn find_key_line(source: &str, section: &str, key: &str) -> Option<usize> {
    let lines: Vec<&str> = source.lines().collect();
    let section_line = lines.iter().position(|line| {
        line.starts_with(&format!("{section}:")) || line.starts_with(&format!("\"{section}\":"))
    })?;
    let candidates = [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ];
    lines
        .iter()
        .enumerate()
        .skip(section_line + 1)
        .take_while(|(_, line)| {
            line.is_empty()
                || line.starts_with(' ')
                || line.starts_with('#')
                || line.starts_with('\t')
        })
        .find(|(_, line)| {
            let trimmed = line.trim_start();
            candidates
                .iter()
                .any(|candidate| trimmed.starts_with(candidate.as_str()))
        })
        .map(|(index, _)| index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<Config, SpecError> {
        parse(
            Path::new("config.yaml"),
            text,
            &crate::protocol::registry::Registered,
        )
        .map(|loaded| loaded.config)
    }

    const EXAMPLE: &str = r#"
providers:
  openai: { base_url: "https://api.openai.com/v1", api_key_env: OPENAI_API_KEY, default_model: gpt-4.1 }
  ollama: { kind: openai, base_url: "http://127.0.0.1:11434/v1", default_model: "llama3.1" }
  anthropic: { api_key_env: ANTHROPIC_API_KEY, default_model: claude-sonnet-4-5, max_tokens: 8192 }
  claude-cli: { kind: command, command: ["claude", "-p"], timeout_secs: 900 }
prices:
  "openai:gpt-4.1": { input: 2.0, output: 8.0 }
  claude-sonnet-4-5: { input: 3.0, output: 15.0 }
roles:
  default: anthropic
  judge.*: openai:gpt-4.1-mini
  judge.analyst: ollama:llama3.1:8b
theme: dark
"#;

    #[test]
    fn the_documented_example_parses() {
        let config = parse_text(EXAMPLE).unwrap();
        assert_eq!(config.providers.len(), 4);
        assert_eq!(
            config.providers["claude-cli"].command.as_deref(),
            Some(&["claude".to_string(), "-p".to_string()][..])
        );
        assert_eq!(config.providers["ollama"].kind, Some(ProviderKind::Openai));
        assert_eq!(config.roles["judge.*"], "openai:gpt-4.1-mini");
        assert_eq!(config.theme.as_deref(), Some("dark"));
        assert_eq!(
            config.price_of("openai", "gpt-4.1"),
            Some(Price {
                input: 2.0,
                output: 8.0
            })
        );
        assert_eq!(
            config
                .price_of("anthropic", "claude-sonnet-4-5")
                .map(|p| p.output),
            Some(15.0)
        );
        assert_eq!(config.price_of("ollama", "llama3.1"), None);
    }

    #[test]
    fn an_empty_file_is_an_empty_configuration() {
        assert_eq!(parse_text("").unwrap(), Config::default());
        assert_eq!(parse_text("# nothing yet\n").unwrap(), Config::default());
    }

    #[test]
    fn unknown_keys_name_file_line_column_and_field() {
        let error =
            parse_text("providers:\n  openai:\n    base_url: http://x\n    api_key: sk-1\n")
                .unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("config.yaml:4:"), "{text}");
        assert!(text.contains("api_key"), "{text}");
        let error = parse_text("theme: dark\ncolours: []\n").unwrap_err();
        assert!(error.to_string().starts_with("config.yaml:2:"), "{error}");
        assert!(error.to_string().contains("colours"), "{error}");
    }

    #[test]
    fn a_custom_provider_needs_a_kind() {
        let error = parse_text("providers:\n  local:\n    base_url: http://127.0.0.1:8080/v1\n")
            .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("providers.local"));
        assert_eq!(error.line, Some(2), "{error}");
        assert!(error.message.contains("kind"), "{error}");
    }

    #[test]
    fn reserved_and_contradictory_providers_are_refused() {
        for (yaml, needle) in [
            (
                "providers:\n  human: { kind: command, command: [x] }\n",
                "reserved",
            ),
            ("providers:\n  script: {}\n", "nothing to configure"),
            ("providers:\n  openai: { kind: anthropic }\n", "contradicts"),
            (
                "providers:\n  x: { kind: script }\n",
                "cannot be configured",
            ),
            ("providers:\n  x: { kind: command }\n", "needs `command:"),
            (
                "providers:\n  x: { kind: command, command: [] }\n",
                "needs `command:",
            ),
            (
                "providers:\n  x: { kind: command, command: [a], base_url: http://h }\n",
                "base_url",
            ),
            (
                "providers:\n  x: { kind: openai, command: [a] }\n",
                "only for command",
            ),
            (
                "providers:\n  x: { kind: openai, base_url: ftp://h }\n",
                "http://",
            ),
            (
                "providers:\n  x: { kind: openai, timeout_secs: 0 }\n",
                "positive",
            ),
            (
                "providers:\n  x: { kind: openai, max_tokens: 0 }\n",
                "at least 1",
            ),
            ("providers:\n  \"a b\": { kind: openai }\n", "no colon"),
        ] {
            let error = parse_text(yaml).unwrap_err();
            assert!(error.message.contains(needle), "{yaml}: {error}");
            assert_eq!(error.line, Some(2), "{yaml}: {error}");
        }
    }

    #[test]
    fn env_names_the_variables_a_command_provider_is_given() {
        let config = parse_text(
            "providers:\n  cli: { kind: command, command: [claude], env: [ANTHROPIC_API_KEY, MY_TOKEN] }\n",
        )
        .unwrap();
        assert_eq!(
            config.providers["cli"].env.as_deref(),
            Some(&["ANTHROPIC_API_KEY".to_string(), "MY_TOKEN".to_string()][..])
        );
        let error = parse_text("providers:\n  openai: { env: [OPENAI_API_KEY] }\n").unwrap_err();
        assert!(
            error
                .message
                .contains("`env` is only for command providers"),
            "{error}"
        );
        assert_eq!(error.line, Some(2));
        let error = parse_text(
            "providers:\n  cli: { kind: command, command: [x], env: [sk-proj-SECRET123] }\n",
        )
        .unwrap_err();
        assert!(
            error.message.contains("NAMES of environment variables"),
            "{error}"
        );
        assert!(!error.to_string().contains("SECRET123"), "{error}");
        let error =
            parse_text("providers:\n  cli: { kind: command, command: [x], base_url: http://h }\n")
                .unwrap_err();
        assert!(error.message.contains("takes `command`, `env`"), "{error}");
    }

    #[test]
    fn a_key_pasted_into_api_key_env_is_refused_without_being_echoed() {
        let error =
            parse_text("providers:\n  openai:\n    api_key_env: sk-proj-SECRET123\n").unwrap_err();
        let text = error.to_string();
        assert!(text.contains("NAME of an environment variable"), "{text}");
        assert!(!text.contains("SECRET123"), "{text}");
        assert!(!format!("{error:?}").contains("SECRET123"));
    }

    #[test]
    fn roles_need_known_roles_and_known_providers() {
        let error = parse_text("roles:\n  judge.poet: openai\n").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("roles.judge.poet"));
        assert_eq!(error.line, Some(2));
        let error =
            parse_text("providers:\n  local: { kind: openai }\nroles:\n  critic: nowhere:m\n")
                .unwrap_err();
        assert_eq!(error.line, Some(4), "{error}");
        assert!(
            error.message.contains("unknown provider `nowhere`"),
            "{error}"
        );
        assert!(error.message.contains("adds local"), "{error}");
        let error = parse_text("roles:\n  critic: \"openai:\"\n").unwrap_err();
        assert!(error.message.contains("empty model"), "{error}");
        assert!(parse_text("roles:\n  critic: human\n  default: script\n").is_ok());
    }

    #[test]
    fn negative_prices_are_refused() {
        let error = parse_text("prices:\n  gpt-4.1: { input: -1, output: 8 }\n").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("prices.gpt-4.1"));
        assert_eq!(error.line, Some(2));
        let error = parse_text("prices:\n  gpt-4.1: { input: 1 }\n").unwrap_err();
        assert!(error.to_string().contains("output"), "{error}");
    }

    #[test]
    fn agent_choices_split_at_the_first_colon() {
        assert_eq!(
            AgentChoice::parse("ollama:llama3.1:8b").unwrap(),
            AgentChoice {
                provider: "ollama".into(),
                model: Some("llama3.1:8b".into())
            }
        );
        assert_eq!(AgentChoice::parse("script").unwrap().model, None);
        assert!(AgentChoice::parse(":m").is_err());
        assert!(AgentChoice::parse("openai:").is_err());
    }

    #[test]
    fn real_model_names_pass() {
        for model in [
            "llama3.1:8b",
            "accounts/fireworks/models/llama-v3p1-405b-instruct",
            "gpt-4.1-mini",
            "claude-sonnet-4-5@20250929",
            "qwen2.5:7b-instruct-q4_K_M",
            "anthropic.claude-3-5-sonnet-20240620-v1:0",
            "meta-llama/llama-3.1-8b-instruct:free",
            "o3",
            "hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M",
        ] {
            assert_eq!(check_model_name(model), Ok(()), "{model}");
        }
    }

    #[test]
    fn model_names_with_anything_else_are_refused_naming_the_character() {
        for (model, needle) in [
            ("x; touch pwned; echo", "`;`"),
            ("x y", "a space"),
            ("$(id)", "`$`"),
            ("a`id`", "a backtick"),
            ("x\u{1b}[2J", "U+001B"),
            ("x\ny", "U+000A"),
            ("日本", "U+65E5"),
            ("-rf", "starts with `-`"),
            ("--dangerously-skip-permissions", "starts with `-`"),
            (".hidden", "starts with `.`"),
            ("", "empty"),
        ] {
            let message = check_model_name(model).unwrap_err();
            assert!(message.contains(needle), "{model:?}: {message}");
            assert!(!message.contains("touch pwned"), "{message}");
        }
        assert!(check_model_name(&"m".repeat(MAX_MODEL_NAME_CHARS)).is_ok());
        let long = check_model_name(&"m".repeat(MAX_MODEL_NAME_CHARS + 1)).unwrap_err();
        assert!(long.contains("at most 256"), "{long}");
    }

    /// What a model name may hold is substituted into a command provider's
    /// arguments, which may be `sh -c "… {model}"`: nothing of it may mean
    /// anything to a shell (sh, bash or zsh), unquoted, after the first
    /// character (a letter or a digit). Keep it that way.
    #[test]
    fn no_character_of_a_model_name_means_anything_to_a_shell() {
        const SHELL_SYNTAX: &str = " \t\n\r|&;<>()$`\\\"'*?[]#~=%!{}^,";
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if !is_model_name_char(c) {
                continue;
            }
            assert!(c.is_ascii_graphic(), "{c:?} is not plain ASCII");
            assert!(!SHELL_SYNTAX.contains(c), "{c:?} is shell syntax");
        }
        for c in SHELL_SYNTAX.chars() {
            let model = format!("model{c}name");
            assert!(check_model_name(&model).is_err(), "{model:?}");
        }
    }

    #[test]
    fn bad_model_names_are_refused_with_line_and_field() {
        let error = parse_text(
            "providers:\n  cli: { kind: command, command: [sh], default_model: \"a;b\" }\n",
        )
        .unwrap_err();
        assert_eq!(error.field.as_deref(), Some("providers.cli"));
        assert_eq!(error.line, Some(2), "{error}");
        assert!(error.message.contains("`default_model`"), "{error}");
        assert!(error.message.contains("`;`"), "{error}");
        let error =
            parse_text("roles:\n  default: anthropic\n  critic: \"openai:x$(id)\"\n").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("roles.critic"));
        assert_eq!(error.line, Some(3), "{error}");
        assert!(error.message.contains("`$`"), "{error}");
    }

    #[test]
    fn variable_names() {
        assert!(is_variable_name("OPENAI_API_KEY"));
        assert!(is_variable_name("_X1"));
        assert!(!is_variable_name("1X"));
        assert!(!is_variable_name("sk-abc"));
        assert!(!is_variable_name(""));
    }
}
