//! The registry: every protocol family quorum runs, and how the rest of the
//! program reaches each one without knowing it.
//!
//! Each family's entry is a [`ProtocolKind`] (what one is: `super::kind`).
//! The command line, the engine, resume, replay, `open` and `verdict` go
//! through this list only, so adding a protocol is its folder plus one line
//! in [`BUILT_IN`]; a protocol defined outside quorum (a test, a program
//! embedding quorum) joins them through [`register`]. The registry sits
//! above every protocol: it names them, and none of them names it.
//!
//! Not responsible for reading files, building agents or parsing the common
//! part of a spec (the command line does), nor for any protocol rule.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use super::Protocol;
use super::kind::{Build, CommandSpec, DebateDefinition, ProtocolKind};
use crate::prompts::{
    PromptError, PromptSet, RECHECK_TEMPLATE, REPAIR_ITEMS_TEMPLATE, REPAIR_TEMPLATE, TemplateSpec,
};

/// The protocol families quorum ships, in the order `--help` lists their
/// commands.
pub static BUILT_IN: &[&dyn ProtocolKind] = &[
    &super::decision_review::KIND,
    &super::quick::KIND,
    &super::plan::KIND,
    &super::rca::KIND,
    &super::council::KIND,
];

/// The prompts of every registered protocol: written beside the registry
/// that knows them, so the template engine below knows no protocol.
impl PromptSet {
    /// The templates of every registered protocol, as shipped in `prompts/`.
    pub fn builtin() -> PromptSet {
        PromptSet::of(templates())
    }

    /// The built-in templates, with any file of `override_dir` named like
    /// one of them taking its place ([`PromptSet::overridden_from`]).
    pub fn load(override_dir: Option<&Path>) -> Result<PromptSet, PromptError> {
        PromptSet::builtin().overridden_from(override_dir)
    }

    /// The built-in templates with `overrides` (file name → source, as a
    /// journal recorded them) in place ([`PromptSet::overridden_by`]).
    pub fn with_overrides(
        overrides: &BTreeMap<String, String>,
        origin: &Path,
    ) -> Result<PromptSet, PromptError> {
        PromptSet::builtin().overridden_by(overrides, origin)
    }
}

/// Protocol families added at run time, after the built-in ones.
static ADDED: RwLock<Vec<&'static dyn ProtocolKind>> = RwLock::new(Vec::new());

/// Every protocol family: the built-in ones, then those [`register`]ed, in
/// the order they were added.
pub fn kinds() -> Vec<&'static dyn ProtocolKind> {
    let added = ADDED
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    BUILT_IN
        .iter()
        .copied()
        .chain(added.iter().copied())
        .collect()
}

/// Adds a protocol family defined outside quorum, so that every command,
/// `resume`, `replay`, `open` and `verdict` know it like a built-in one.
/// Registering the same family again does nothing; a different family
/// under a name, with a command or with a prompt template's file name
/// another one has is refused, saying which (a template of the same name
/// would silently replace the other's).
/// Register before the command line is parsed: its commands are built from
/// the registry.
pub fn register(kind: &'static dyn ProtocolKind) -> Result<(), String> {
    let mut added = ADDED
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if BUILT_IN
        .iter()
        .chain(added.iter())
        .any(|other| std::ptr::addr_eq(*other, kind))
    {
        return Ok(());
    }
    let shared = SHARED_TEMPLATES.map(|template| template.file_name);
    if let Some(template) = first_shared(template_names(kind), shared) {
        return Err(format!(
            "`{}` cannot name a template `{template}`: every protocol shares quorum's",
            kind.name()
        ));
    }
    for other in BUILT_IN.iter().chain(added.iter()) {
        if other.name() == kind.name() {
            return Err(format!(
                "a protocol named `{}` is already known",
                kind.name()
            ));
        }
        if let Some(command) = first_shared(command_names(kind), command_names(*other)) {
            return Err(format!(
                "`{}` cannot offer the command `{command}`: the {} has it",
                kind.name(),
                other.title()
            ));
        }
        if let Some(template) = first_shared(template_names(kind), template_names(*other)) {
            return Err(format!(
                "`{}` cannot name a template `{template}`: the {} has one",
                kind.name(),
                other.title()
            ));
        }
    }
    added.push(kind);
    Ok(())
}

/// The file names of `kind`'s templates.
fn template_names(kind: &dyn ProtocolKind) -> impl Iterator<Item = &'static str> + Clone {
    kind.templates().iter().map(|template| template.file_name)
}

/// The names of `kind`'s commands.
fn command_names(kind: &dyn ProtocolKind) -> impl Iterator<Item = &'static str> + Clone {
    kind.commands().iter().map(|command| command.name)
}

/// The first of `ours` that is one of `theirs` too.
fn first_shared(
    ours: impl IntoIterator<Item = &'static str>,
    theirs: impl IntoIterator<Item = &'static str, IntoIter: Clone>,
) -> Option<&'static str> {
    let theirs = theirs.into_iter();
    ours.into_iter()
        .find(|name| theirs.clone().any(|taken| taken == *name))
}

/// The protocol a spec's `protocol:` names.
pub fn find(name: &str) -> Option<&'static dyn ProtocolKind> {
    kinds().into_iter().find(|kind| kind.name() == name)
}

/// The protocol and mode a command (or `quorum demo --protocol NAME`) starts.
pub fn find_command(name: &str) -> Option<(&'static dyn ProtocolKind, &'static CommandSpec)> {
    kinds().into_iter().find_map(|kind| {
        kind.commands()
            .iter()
            .find(|command| command.name == name)
            .map(|command| (kind, command))
    })
}

/// Every protocol's name, for errors.
pub fn names() -> Vec<&'static str> {
    kinds().iter().map(|kind| kind.name()).collect()
}

/// The templates every protocol shares: the repair of an unreadable
/// answer, the repair of the items that could not be read, and the recheck
/// against the rulings.
const SHARED_TEMPLATES: [TemplateSpec; 3] =
    [REPAIR_TEMPLATE, REPAIR_ITEMS_TEMPLATE, RECHECK_TEMPLATE];

/// Every template of every protocol, the shared ones first.
pub fn templates() -> Vec<TemplateSpec> {
    SHARED_TEMPLATES
        .into_iter()
        .chain(
            kinds()
                .into_iter()
                .flat_map(|kind| kind.templates().iter().copied()),
        )
        .collect()
}

/// Whether some protocol seats `slot` (or `slot` is a `group.*` wildcard
/// one does).
pub fn known_slot(slot: &str) -> bool {
    kinds().iter().any(|kind| kind.seats(slot))
}

/// The registered protocols' slots, as the reading layer asks for them
/// (a configuration file's roles, a spec's agents, `--agent` flags).
pub struct Registered;

impl crate::config::roles::RoleBook for Registered {
    fn seats(&self, slot: &str) -> bool {
        known_slot(slot)
    }

    fn slot_names(&self) -> Vec<&'static str> {
        slot_names()
    }
}

/// Every slot any protocol seats, each once, in registry order.
pub fn slot_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for kind in kinds() {
        for slot in kind.slots() {
            if !names.contains(slot) {
                names.push(slot);
            }
        }
    }
    names
}

/// Every protocol's [`ProtocolKind::role_words`], each once, in registry
/// order.
pub fn role_words() -> Vec<&'static str> {
    let mut words: Vec<&'static str> = Vec::new();
    for word in kinds().iter().flat_map(|kind| kind.role_words()) {
        if !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

/// Builds the protocol a journaled definition describes.
pub fn build(
    definition: &DebateDefinition,
    prompts: Arc<PromptSet>,
) -> Result<Box<dyn Protocol>, String> {
    let Some(kind) = find(definition.protocol()) else {
        return Err(format!(
            "the debate runs protocol `{}`, which this quorum does not know (it knows {}); a newer quorum wrote it",
            definition.protocol(),
            names().join(", ")
        ));
    };
    kind.build(Build {
        definition,
        prompts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::kind::slot_words;

    /// An edited journal whose definition no longer reads as its protocol's
    /// configuration is refused by the kind's build, the error naming the
    /// protocol, whether the kind builds through `Build::protocol` or reads
    /// its configuration itself.
    #[test]
    fn a_definition_that_does_not_read_is_refused_naming_its_protocol() {
        for (protocol, title) in [
            (r#""plan""#, "planning debate"),
            (r#""quick""#, "quick debate"),
            (r#""rca""#, "root-cause analysis"),
            (r#""council""#, "council"),
            (r#""decision-review","mode":"writing""#, "writing review"),
        ] {
            let line = format!(r#"{{"protocol":{protocol},"topic":7}}"#);
            let definition: DebateDefinition = serde_json::from_str(&line).unwrap();
            let error = build(&definition, Arc::new(PromptSet::builtin()))
                .err()
                .expect("refused");
            assert!(
                error.starts_with(&format!("the {title}'s definition does not read: ")),
                "{protocol}: {error}"
            );
        }
    }

    /// Journals of quorum 0.1 defined a debate as a tagged enum; the same
    /// line reads as a definition, and writes back with the same keys.

    #[test]
    fn an_unknown_protocol_is_refused_by_name() {
        let definition = DebateDefinition::new("astrology", &serde_json::json!({"topic": "T"}));
        let error = build(&definition, Arc::new(PromptSet::builtin()))
            .err()
            .unwrap();
        assert!(error.contains("astrology"), "{error}");
        assert!(error.contains("decision-review"), "{error}");
    }

    /// The words an opening must not carry: a slot's parts, then the
    /// record's names for its roles, each once, wildcards left out.
    #[test]
    fn slot_words_are_a_slots_parts_and_the_records_role_names_each_once() {
        let slots = ["critic", "judge.analyst", "judge.*", "critic"];
        let words = slot_words(&slots, &["oracle", "critic"]);
        assert_eq!(words, ["critic", "judge", "analyst", "oracle"]);
        for word in [
            "oracle",
            "mephistopheles",
            "proposer",
            "critic",
            "judge",
            "analyst",
        ] {
            assert!(role_words().contains(&word), "{word}");
        }
    }

    #[test]
    fn names_commands_and_slots_are_unique() {
        let mut commands = std::collections::BTreeSet::new();
        for kind in kinds() {
            assert!(find(kind.name()).is_some());
            for command in kind.commands() {
                assert!(commands.insert(command.name), "{} twice", command.name);
                for key in command.options {
                    assert!(
                        kind.options().iter().any(|option| option.key == *key),
                        "{} offers {key}, which {} does not have",
                        command.name,
                        kind.name()
                    );
                }
                if let Some(mode) = command.mode {
                    assert!(kind.modes().contains(&mode), "{mode}");
                }
            }
            for mode in kind.modes() {
                assert!(
                    kind.demo(Some(mode)).is_some(),
                    "{} {mode} has a demo",
                    kind.name()
                );
            }
            assert!(kind.demo(None).is_some(), "{} has a demo", kind.name());
            assert_eq!(
                kind.info().demos.len(),
                kind.modes().len().max(1),
                "{} has one demo a mode",
                kind.name()
            );
        }
        assert!(known_slot("judge.analyst") && known_slot("judge.*"));
        assert!(!known_slot("judge.poet"));
    }
}
