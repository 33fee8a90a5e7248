//! What a protocol kind is: the entry every protocol family gives the
//! registry, and what passes through it.
//!
//! A [`ProtocolKind`] is a protocol's entry. Its [`KindInfo`] is one
//! literal of what never changes: the name a spec's `protocol:` uses, the
//! commands that start it (`quorum review`, `quorum panel`), its own spec
//! keys and the flags that set them ([`OptionSpec`]), its prompt templates,
//! its role slots and its built-in demos. Its methods turn options into a
//! journaled [`DebateDefinition`] and a definition back into a running
//! [`Protocol`], and recompute its verdict from the files on disk
//! ([`read_record`], [`Recomputed`]).
//!
//! Every protocol's `kind.rs` builds on this file; the registry
//! (`super::registry`), which lists the kinds, sits above them all, so no
//! protocol reaches the list it is on.

use std::path::Path;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::evidence::recheck::Rechecked;
use super::{ContextDoc, Protocol, RoleGroup, Seating, Verdict};
use crate::input::{RecordFileError, RecordFiles};
use crate::located::SpecError;
use crate::prompts::{PromptSet, TemplateSpec};

/// The journal's first line says what a debate is: its protocol's name under
/// `protocol`, and the protocol's own configuration beside it, flat (as the
/// journals of quorum 0.1 wrote a decision review). The core reads only the
/// protocol's name, the topic and whether a person moderates; the rest is
/// the protocol's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Map<String, serde_json::Value>")]
#[serde(into = "serde_json::Map<String, serde_json::Value>")]
pub struct DebateDefinition {
    protocol: String,
    config: serde_json::Map<String, serde_json::Value>,
}

/// The definition's key that says a person moderates live (a held round
/// waits for them); absent when nobody does.
pub const MODERATED_KEY: &str = "hold_for_moderator";

impl DebateDefinition {
    /// `config` (a serialisable protocol configuration, a JSON object) as
    /// the definition of a debate of `protocol`.
    pub fn new(protocol: &str, config: &impl Serialize) -> DebateDefinition {
        let config = match serde_json::to_value(config) {
            Ok(serde_json::Value::Object(map)) => map,
            other => panic!("a protocol configuration is an object, got {other:?}"),
        };
        DebateDefinition {
            protocol: protocol.to_string(),
            config,
        }
    }

    /// The protocol's name, as the registry knows it.
    pub fn protocol(&self) -> &str {
        &self.protocol
    }

    /// The protocol's configuration, read back.
    pub fn config<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_value(serde_json::Value::Object(self.config.clone()))
    }

    /// The configuration of the `what` (`planning debate`) this defines, or
    /// why it does not read (the journal was edited, or is not one of it).
    pub fn read_config<T: DeserializeOwned>(&self, what: &str) -> Result<T, String> {
        self.config()
            .map_err(|error| format!("the {what}'s definition does not read: {error}"))
    }

    /// The context documents the agents were given, as recorded.
    pub fn context(&self) -> Vec<ContextDoc> {
        self.config
            .get("context")
            .cloned()
            .and_then(|value| serde_json::from_value(value).ok())
            .unwrap_or_default()
    }

    /// What is debated.
    pub fn topic(&self) -> &str {
        self.config
            .get("topic")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
    }

    /// What the agents could cite, as recorded when the debate started
    /// (issue 52): every protocol keeps the records under `sources`.
    pub fn sources(&self) -> Vec<crate::evidence::SourceRecord> {
        self.config
            .get("sources")
            .cloned()
            .and_then(|value| serde_json::from_value(value).ok())
            .unwrap_or_default()
    }

    /// The protocol's configuration value at `key`, if it has one.
    pub fn value(&self, key: &str) -> Option<&serde_json::Value> {
        self.config.get(key)
    }

    /// Sets the configuration value at `key`: for a step that adjusts a
    /// new debate before its journal is written (the library's
    /// calibration), never for a recorded one.
    pub fn set_value(&mut self, key: &str, value: serde_json::Value) {
        self.config.insert(key.to_string(), value);
    }

    /// A person moderates live: rounds that need a decision wait for them.
    pub fn moderated(&self) -> bool {
        self.config
            .get(MODERATED_KEY)
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    }

    pub fn set_moderated(&mut self, moderated: bool) {
        if moderated {
            self.config
                .insert(MODERATED_KEY.to_string(), serde_json::Value::Bool(true));
        } else {
            self.config.remove(MODERATED_KEY);
        }
    }
}

impl TryFrom<serde_json::Map<String, serde_json::Value>> for DebateDefinition {
    type Error = String;

    fn try_from(
        mut config: serde_json::Map<String, serde_json::Value>,
    ) -> Result<DebateDefinition, String> {
        match config.remove("protocol") {
            Some(serde_json::Value::String(protocol)) => Ok(DebateDefinition { protocol, config }),
            Some(other) => Err(format!("`protocol` must be a name, found {other}")),
            None => Err("the definition names no `protocol`".into()),
        }
    }
}

impl From<DebateDefinition> for serde_json::Map<String, serde_json::Value> {
    fn from(definition: DebateDefinition) -> Self {
        let mut map = serde_json::Map::new();
        map.insert(
            "protocol".into(),
            serde_json::Value::String(definition.protocol),
        );
        map.extend(definition.config);
        map
    }
}

/// A command that starts a debate of a protocol: `quorum review TOPIC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    /// `review`, `panel`.
    pub name: &'static str,
    /// One line for `--help`.
    pub about: &'static str,
    /// The positional's name: `TOPIC`, `POSITION`, `TARGET`.
    pub subject: &'static str,
    /// What the positional is.
    pub subject_help: &'static str,
    /// The value of the protocol's `mode` the command fixes, if any.
    pub mode: Option<&'static str>,
    /// The spec keys this command offers as flags (see [`OptionSpec`]).
    pub options: &'static [&'static str],
}

/// How a flag's text becomes a spec value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Text, as given.
    Text,
    /// A whole number.
    Integer,
    /// A number.
    Number,
    /// A switch: present sets the key to this value.
    Switch(bool),
    /// Repeatable text: every occurrence, as a list.
    List,
}

/// One of a protocol's spec keys, with the flag that sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The spec key: `max_rounds`.
    pub key: &'static str,
    /// The long flag without dashes: `max-rounds`.
    pub flag: &'static str,
    /// Placeholder in `--help`: `N`.
    pub value_name: &'static str,
    pub help: &'static str,
    pub kind: ValueKind,
    /// The values it takes, for `--help` and completions (empty: any).
    pub values: &'static [&'static str],
}

impl OptionSpec {
    /// The YAML value of the flag's text, or why it is not one.
    pub fn value_of(&self, texts: &[String]) -> Result<yaml_serde::Value, String> {
        use yaml_serde::Value;
        let last = || texts.last().cloned().unwrap_or_default();
        Ok(match self.kind {
            ValueKind::Text => Value::String(last()),
            ValueKind::Integer => {
                let text = last();
                let number: i64 = text
                    .trim()
                    .parse()
                    .map_err(|_| format!("expected a whole number, got `{text}`"))?;
                Value::from(number)
            }
            ValueKind::Number => {
                let text = last();
                let number: f64 = text
                    .trim()
                    .parse()
                    .map_err(|_| format!("expected a number, got `{text}`"))?;
                Value::from(number)
            }
            ValueKind::Switch(value) => Value::Bool(value),
            ValueKind::List => Value::Sequence(texts.iter().cloned().map(Value::String).collect()),
        })
    }
}

/// A protocol option given on the command line: the flag as typed, the spec
/// key it sets and the value. Flags win over the spec.
#[derive(Clone, Debug, PartialEq)]
pub struct FlagValue {
    /// `--max-rounds`.
    pub flag: String,
    pub key: String,
    pub value: yaml_serde::Value,
}

impl FlagValue {
    /// `flag` setting the spec key `key` to `value`.
    pub fn new(
        flag: impl Into<String>,
        key: impl Into<String>,
        value: impl Into<yaml_serde::Value>,
    ) -> Self {
        FlagValue {
            flag: flag.into(),
            key: key.into(),
            value: value.into(),
        }
    }
}

/// What a protocol is built from: the definition its journal recorded and
/// the prompts its agents are given.
pub struct Build<'a> {
    pub definition: &'a DebateDefinition,
    pub prompts: Arc<PromptSet>,
}

impl Build<'_> {
    /// The definition's configuration, read as a `C`; `what` names the
    /// protocol in the error (`planning debate`).
    pub fn config<C: DeserializeOwned>(&self, what: &str) -> Result<C, String> {
        self.definition.read_config(what)
    }

    /// The protocol `make` builds from the definition's configuration and
    /// the prompts (a protocol's `new`), for a kind with nothing to check
    /// between the two.
    pub fn protocol<C, P>(
        self,
        what: &str,
        make: impl FnOnce(C, Arc<PromptSet>) -> P,
    ) -> Result<Box<dyn Protocol>, String>
    where
        C: DeserializeOwned,
        P: Protocol + 'static,
    {
        let config = self.config(what)?;
        Ok(Box::new(make(config, self.prompts)))
    }
}

/// What a protocol is configured from.
pub struct Configure<'a> {
    /// The spec's file and text, when the debate comes from a spec (or the
    /// demo): the protocol reads its own keys from the text, so an error
    /// names the line.
    pub spec: Option<(&'a Path, &'a str)>,
    /// Options given as flags or fixed by the command.
    pub flags: &'a [FlagValue],
    /// Files a spec names may lie outside its folder
    /// (`--allow-outside-context`).
    pub allow_outside: bool,
    /// Where the files a spec or a flag names are read from (the disk,
    /// given by the command line; a test may give others): the protocol
    /// itself reads nothing.
    pub files: &'a dyn SpecFiles,
    /// The artifact root (`--out`): what a protocol delivers outside its
    /// run folder goes below it unless told otherwise (a council's
    /// `.outputs/debate/`). `None`: the working directory.
    pub artifact_root: Option<&'a Path>,
}

impl<'a> Configure<'a> {
    /// The spec `path` holds `text`, with `flags` over it; the files it
    /// names are read from the disk, inside its folder.
    pub fn from_spec(path: &'a Path, text: &'a str, flags: &'a [FlagValue]) -> Self {
        Configure {
            spec: Some((path, text)),
            flags,
            ..Configure::default()
        }
    }
}

/// No spec and no flags: the protocol's defaults, any file it names read
/// from the disk.
impl Default for Configure<'_> {
    fn default() -> Self {
        Configure {
            spec: None,
            flags: &[],
            allow_outside: false,
            files: &DiskFiles,
            artifact_root: None,
        }
    }
}

/// Reads the files a debate is configured from (a comparison's option
/// files, a writing review's draft, a root-cause analysis's hypotheses).
pub trait SpecFiles: Sync {
    /// The text of `path`, refused beyond `kind`'s limit; `regular` allows
    /// only a regular file (a spec's file), otherwise a pipe or `-` for
    /// stdin too (a flag's, the person's own).
    fn read(&self, path: &Path, kind: crate::input::Kind, regular: bool) -> Result<String, String>;
}

/// The files on disk.
pub struct DiskFiles;

impl SpecFiles for DiskFiles {
    fn read(&self, path: &Path, kind: crate::input::Kind, regular: bool) -> Result<String, String> {
        let read = if regular {
            crate::input::read_regular_file(path, kind)
        } else {
            crate::input::read_text(path, kind)
        };
        read.map_err(|error| error.to_string())
    }
}

impl Configure<'_> {
    /// The file `given` names, for the option `field`, and its text. A
    /// spec's file is found beside the spec and must stay inside its folder
    /// (unless `--allow-outside-context`) and be a regular file; a flag's
    /// (`field` starts `--`) is the person's own, read as given.
    pub fn read_named(
        &self,
        given: &str,
        field: &str,
        kind: crate::input::Kind,
    ) -> Result<(std::path::PathBuf, String), String> {
        let given = std::path::PathBuf::from(given);
        let (path, from_spec) = match self.spec {
            Some((spec, _)) if !field.starts_with("--") => {
                let folder = spec.parent().unwrap_or(Path::new("."));
                if self.allow_outside {
                    (folder.join(&given), true)
                } else {
                    (crate::input::in_spec_folder(folder, &given)?, true)
                }
            }
            _ => (given, false),
        };
        let text = self.files.read(&path, kind, from_spec)?;
        Ok((path, text))
    }

    /// How an error about the option `key` names it: the flag that set it
    /// (`--max-rounds`), else the spec key.
    pub fn field(&self, key: &str) -> String {
        self.flags
            .iter()
            .rev()
            .find(|flag| flag.key == key)
            .map_or_else(|| key.to_string(), |flag| flag.flag.clone())
    }
}

/// A role slot a configured debate seats, as the configuration resolves
/// its agent: one seat of the protocol's roster
/// ([`Roster::role_slots`](super::roster::Roster::role_slots)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleSlot {
    /// `proposer`, `judge.analyst`, `synthesizer`.
    pub slot: String,
    pub group: RoleGroup,
    /// Unless something names this slot itself, it is played by the agent
    /// of this one (a synthesizer by the lead's agent).
    pub defaults_to: Option<String>,
}

impl RoleSlot {
    pub fn new(slot: impl Into<String>, group: RoleGroup) -> Self {
        RoleSlot {
            slot: slot.into(),
            group,
            defaults_to: None,
        }
    }

    /// This slot, played by `slot`'s agent unless it is named itself.
    pub fn defaulting_to(mut self, slot: impl Into<String>) -> Self {
        self.defaults_to = Some(slot.into());
        self
    }
}

/// Everything besides the protocol's options that defines a debate. The
/// default is an empty one at the Unix epoch, for what options say before a
/// debate is set (the role slots they seat).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Setting {
    pub topic: String,
    pub context: Vec<ContextDoc>,
    /// Who plays each role, at what price, since when (nobody moderates
    /// yet: the command line says so on the definition).
    pub seating: Seating,
}

/// A protocol's options, read and checked: what it seats, and the
/// definition of a debate once its agents are chosen.
pub trait Configured {
    /// `decision review · architecture`, for the first line of a run.
    fn label(&self) -> String;
    /// Every role slot, in the order the agents are resolved: the seats of
    /// the roster these options give a debate
    /// ([`Roster::role_slots`](super::roster::Roster::role_slots)).
    fn roles(&self) -> Vec<RoleSlot>;
    /// The definition the journal's first line records.
    fn define(&self, setting: Setting) -> DebateDefinition;
    /// The panel slots whose judges read the work of a lead slot, as
    /// `(judge, author)` pairs, where the debate masks, shuffles and
    /// applies the recusal policy (fair judging); none by default.
    fn judged_authors(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// Whether what its judges read is blind and in each judge's own order
    /// (fair judging); by default, where authors are judged.
    fn reads_blind(&self) -> bool {
        !self.judged_authors().is_empty()
    }
}

/// A verdict recomputed from the files on disk (`quorum verdict DIR`).
#[derive(Clone, Debug, PartialEq)]
pub struct Recomputed {
    /// None for what ends without a verdict but can still be recomputed:
    /// a comparison's ranking.
    pub verdict: Option<Verdict>,
    pub rule: String,
    /// The whole assessment, for `--json`.
    pub detail: serde_json::Value,
    /// What the reader took other than as written, each after the file it
    /// read it in (`judges/judge-analyst.md: read score "4" as 4 (b1 risk)`):
    /// the same readings the live run made, so the verdicts match; then
    /// every judge or record left out of the verdict, and why.
    pub readings: Vec<String>,
}

/// Why a verdict could not be recomputed.
#[derive(Debug, thiserror::Error)]
pub enum RecomputeError {
    /// A file is missing or does not read (a usage error).
    #[error("{path}: {message}")]
    Unreadable { path: String, message: String },
    /// The debate has no verdict (yet, or ever: it failed).
    #[error("{path}: {reason}")]
    NoVerdict { path: String, reason: String },
    /// The protocol ends with a deliverable, never a verdict.
    #[error("{0}")]
    NotApplicable(String),
}

/// The YAML record `relative` of a debate, checked for nesting and aliases
/// before it is parsed; `what` names the folder it belongs in when it is
/// missing (`a quorum debate folder`).
pub fn read_record<T: serde::de::DeserializeOwned>(
    files: &dyn RecordFiles,
    relative: &str,
    what: &str,
) -> Result<T, RecomputeError> {
    let shown = files.shown(relative);
    let text = files.read(relative, "record").map_err(|error| {
        let message = match &error {
            RecordFileError::Missing(message) => format!("{message} (is this {what}?)"),
            RecordFileError::Unreadable(message) => message.clone(),
        };
        RecomputeError::Unreadable {
            path: shown.clone(),
            message,
        }
    })?;
    if let Err(refused) = crate::yaml_guard::check(&text) {
        return Err(RecomputeError::Unreadable {
            path: format!("{shown}:{}", refused.line),
            message: refused.message,
        });
    }
    yaml_serde::from_str(&text).map_err(|error| RecomputeError::yaml(Path::new(&shown), &error))
}

impl RecomputeError {
    /// A record that does not read: located by line, column and field like
    /// any error in a file a person may have edited.
    pub fn yaml(path: &Path, error: &yaml_serde::Error) -> Self {
        let located = crate::located::yaml_error(path, error);
        let mut shown = path.display().to_string();
        if let Some(line) = located.line {
            shown.push_str(&format!(":{line}"));
            if let Some(column) = located.column {
                shown.push_str(&format!(":{column}"));
            }
        }
        RecomputeError::Unreadable {
            path: shown,
            message: match &located.field {
                Some(field) => format!("{field}: {}", located.message),
                None => located.message,
            },
        }
    }
}

/// What a protocol is, whatever a debate of it is configured to do: the
/// constant part of its registry entry, declared once as a literal.
#[derive(Clone, Copy, Debug)]
pub struct KindInfo {
    /// What a spec's `protocol:` says: `decision-review`, `quick`.
    pub name: &'static str,
    /// How people call it: `decision review`.
    pub title: &'static str,
    /// Its `mode` values, the first the default (empty: no modes).
    pub modes: &'static [&'static str],
    /// The commands that start it.
    pub commands: &'static [CommandSpec],
    /// Its own spec keys, with their flags.
    pub options: &'static [OptionSpec],
    /// Its prompt templates (the shared repair template aside).
    pub templates: &'static [TemplateSpec],
    /// Role slots `--agent`, a spec's `agents:` and the configuration's
    /// `roles:` may name for it, `group.*` wildcards included.
    pub slots: &'static [&'static str],
    /// Its built-in demos, as spec text: one for each of its modes, in the
    /// order of [`KindInfo::modes`] (the same text may serve several), or
    /// the one demo of a protocol without modes.
    pub demos: &'static [&'static str],
}

/// A protocol's entry in the registry.
/// A judge's figure as the library gives it to a calibration: Cohen's
/// kappa with the moderator (`None`: not defined), its labels, the base
/// rate.
pub type JudgeFigure = (Option<f64>, u64, f64);

pub trait ProtocolKind: Sync {
    /// Its name, commands, options, templates, slots and demos.
    fn info(&self) -> &KindInfo;

    /// What a spec's `protocol:` says: `decision-review`, `quick`.
    fn name(&self) -> &'static str {
        self.info().name
    }

    /// How people call it: `decision review`.
    fn title(&self) -> &'static str {
        self.info().title
    }

    /// Its `mode` values, the first the default (empty: no modes).
    fn modes(&self) -> &'static [&'static str] {
        self.info().modes
    }

    /// The commands that start it.
    fn commands(&self) -> &'static [CommandSpec] {
        self.info().commands
    }

    /// Its own spec keys, with their flags.
    fn options(&self) -> &'static [OptionSpec] {
        self.info().options
    }

    /// Its prompt templates (the shared repair template aside).
    fn templates(&self) -> &'static [TemplateSpec] {
        self.info().templates
    }

    /// Role slots `--agent`, a spec's `agents:` and the configuration's
    /// `roles:` may name for it, `group.*` wildcards included.
    fn slots(&self) -> &'static [&'static str] {
        self.info().slots
    }

    /// Every stage a debate of this protocol can be in, whatever its mode
    /// or options (a quick mode's challenge or red team, a planning
    /// debate's rounds): what a script may name, so one script serves
    /// every variant. Empty: the stages of the debate as configured.
    fn every_stage(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Whether `slot` is one it can seat: one of [`ProtocolKind::slots`],
    /// or a slot of a family it names freely (`debugger.alpha`).
    fn seats(&self, slot: &str) -> bool {
        self.slots().contains(&slot)
    }

    /// The words its roles go by that narrate the debate when a reader-first
    /// opening of its documents carries them (RF-06, RF-08): its slots'
    /// words ([`slot_words`]) and the names its record gives its roles (a
    /// decision review's `oracle`). Empty (the default): its documents are
    /// not checked for them.
    fn role_words(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Its moderation items carry a participant's proposed decision, which a
    /// headless run takes unless `--moderation` says otherwise (a planning
    /// debate's planner).
    fn follows_suggestions(&self) -> bool {
        false
    }

    /// When it seats `slot` only in some debates for a reason other than
    /// its mode (`high-stakes only`); which modes seat a slot, `quorum
    /// doctor` reads from the modes' own configurations.
    fn slot_note(&self, slot: &str) -> Option<&'static str> {
        let _ = slot;
        None
    }

    /// Reads and checks its options.
    fn configure(&self, input: &Configure<'_>) -> Result<Box<dyn Configured>, SpecError>;

    /// The running protocol of a journaled definition.
    fn build(&self, input: Build<'_>) -> Result<Box<dyn Protocol>, String>;

    /// The built-in demo of a mode (`None`: the default mode), as spec text.
    fn demo(&self, mode: Option<&str>) -> Option<&'static str> {
        let info = self.info();
        let index = match mode {
            None => 0,
            Some(mode) => info.modes.iter().position(|known| *known == mode)?,
        };
        info.demos.get(index).copied()
    }

    /// The verdict recomputed from the files of a finished debate, its
    /// evidence rules from `rechecked` (its citations checked again, issue
    /// 52) when given, else from its record.
    fn recompute(
        &self,
        files: &dyn RecordFiles,
        rechecked: Option<&Rechecked>,
    ) -> Result<Recomputed, RecomputeError> {
        let _ = (files, rechecked);
        Err(RecomputeError::NotApplicable(format!(
            "a {} ends with a deliverable, not a verdict: there is no verdict to recompute",
            self.title()
        )))
    }

    /// The judge slots this protocol seats that score answers (`judge.analyst`,
    /// …; `high_stakes` for its largest panel), in seating order: what
    /// `quorum probe` measures. A protocol without scoring judges has none.
    fn judge_slots(&self, high_stakes: bool) -> Vec<String> {
        let _ = high_stakes;
        Vec::new()
    }

    /// Seats advisory each binding judge whose agreement with the moderator
    /// is below `floor` over at least `min_labels` labels (the library's
    /// calibration, issue 55), recording who and why in `definition` so
    /// that resume and replay seat alike; returns each reseating in words.
    /// `figure_of` gives a judge slot's `provider:model` and its figure.
    /// A protocol whose panel has no binding judge keeps the default:
    /// nothing changes.
    fn calibrate(
        &self,
        definition: &mut DebateDefinition,
        floor: f64,
        min_labels: u64,
        figure_of: &dyn Fn(&str) -> Option<(String, JudgeFigure)>,
    ) -> Vec<String> {
        let _ = (definition, floor, min_labels, figure_of);
        Vec::new()
    }

    /// `definition` given what another debate handed on (`--from DIR`);
    /// an error says why this protocol cannot take it. By default a
    /// protocol takes nothing from another debate.
    fn receive(
        &self,
        definition: &DebateDefinition,
        handoff: &super::handoff::Handoff,
    ) -> Result<DebateDefinition, String> {
        let _ = definition;
        let takes = handoff.handed.takes();
        Err(format!(
            "a {} hands on {}, which {} takes, not a {}",
            handoff.from,
            takes.what(),
            takes.receiver(),
            self.title()
        ))
    }

    /// The built-in demo that receives what a debate of kind `from`
    /// (`council`, `red team`) hands on: `quorum demo --from DIR`.
    fn chain_demo(&self, from: &str) -> Option<&'static str> {
        let _ = from;
        None
    }

    /// `definition` with its critic's stance set to `stance`, for a fork
    /// at `stage` (`quorum fork --critique`); an error says why not. By
    /// default a protocol has no critic stance to set.
    fn with_critique(
        &self,
        definition: &DebateDefinition,
        stance: &str,
        stage: &str,
    ) -> Result<DebateDefinition, String> {
        let _ = (stance, stage);
        Err(format!(
            "--critique sets a decision review's critic; this debate is a {}",
            definition.protocol()
        ))
    }
}

/// The words of role slots, then the names a record gives its roles
/// (`oracle`), each once: `judge.analyst` gives `judge` and `analyst`; a
/// `*` wildcard gives nothing.
pub fn slot_words(slots: &[&'static str], roles: &[&'static str]) -> Vec<&'static str> {
    let mut words: Vec<&'static str> = Vec::new();
    let parts = slots.iter().flat_map(|slot| slot.split('.'));
    for word in parts.chain(roles.iter().copied()) {
        if word != "*" && !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

/// Reads a protocol's options of type `O` from the spec text (so errors keep
/// their line and field), or from its defaults when there is no spec, then
/// applies `flags` over them, each error naming its flag.
pub fn read_options<O>(input: &Configure<'_>) -> Result<O, SpecError>
where
    O: DeserializeOwned + Serialize,
{
    let mut options: O = match input.spec {
        Some((path, text)) => yaml_serde::from_str(text)
            .map_err(|error| crate::located::yaml_error_in(path, text, &error))?,
        None => yaml_serde::from_value(yaml_serde::Value::Mapping(Default::default()))
            .expect("every protocol option has a default"),
    };
    for flag in input.flags {
        let mut mapping = match yaml_serde::to_value(&options) {
            Ok(yaml_serde::Value::Mapping(mapping)) => mapping,
            _ => yaml_serde::Mapping::new(),
        };
        mapping.insert(
            yaml_serde::Value::String(flag.key.clone()),
            flag.value.clone(),
        );
        options = yaml_serde::from_value(yaml_serde::Value::Mapping(mapping)).map_err(|error| {
            SpecError::new(strip_position(&error.to_string())).field(flag.flag.clone())
        })?;
    }
    Ok(options)
}

/// A serde message without the position it appends (a flag has none).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_reads_the_flat_tagged_shape() {
        let line = r#"{"protocol":"decision-review","topic":"T","max_rounds":2,"hold_for_moderator":true}"#;
        let definition: DebateDefinition = serde_json::from_str(line).unwrap();
        assert_eq!(definition.protocol(), "decision-review");
        assert_eq!(definition.topic(), "T");
        assert!(definition.moderated());
        let back: serde_json::Value = serde_json::to_value(&definition).unwrap();
        assert_eq!(
            back,
            serde_json::from_str::<serde_json::Value>(line).unwrap()
        );
        assert!(serde_json::from_str::<DebateDefinition>(r#"{"topic":"T"}"#).is_err());
    }

    #[test]
    fn moderation_is_set_and_cleared() {
        let mut definition = DebateDefinition::new("quick", &serde_json::json!({"topic": "T"}));
        assert!(!definition.moderated());
        definition.set_moderated(true);
        assert!(definition.moderated());
        definition.set_moderated(false);
        assert!(
            !serde_json::to_string(&definition)
                .unwrap()
                .contains(MODERATED_KEY)
        );
    }

    #[test]
    fn flags_become_typed_values() {
        let option = |kind| OptionSpec {
            key: "k",
            flag: "k",
            value_name: "V",
            help: "",
            kind,
            values: &[],
        };
        let texts = |values: &[&str]| values.iter().map(|v| v.to_string()).collect::<Vec<_>>();
        assert_eq!(
            option(ValueKind::Integer).value_of(&texts(&["2"])),
            Ok(yaml_serde::Value::from(2))
        );
        assert!(
            option(ValueKind::Integer)
                .value_of(&texts(&["two"]))
                .unwrap_err()
                .contains("whole number")
        );
        assert_eq!(
            option(ValueKind::Text).value_of(&texts(&["a: b"])),
            Ok(yaml_serde::Value::String("a: b".into()))
        );
        assert_eq!(
            option(ValueKind::Switch(false)).value_of(&[]),
            Ok(yaml_serde::Value::Bool(false))
        );
    }
}
