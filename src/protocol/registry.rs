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

/// How many hex digits of the SHA-256 a prompt hash keeps.
pub const PROMPT_HASH_HEX: usize = 12;

/// The hash of the prompts a debate of `protocol` ran with: SHA-256 over
/// each of the protocol's templates (its file name, then its text: the
/// debate's override where it had one, else the built-in), in order, cut
/// to [`PROMPT_HASH_HEX`] digits. A template a person changed, or a quorum
/// whose built-in prompts changed, starts new figures.
pub fn prompt_hash(
    protocol: &str,
    overrides: &std::collections::BTreeMap<String, String>,
) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(protocol.as_bytes());
    if let Some(kind) = find(protocol) {
        for template in kind.templates() {
            let text = overrides
                .get(template.file_name)
                .map(String::as_str)
                .unwrap_or(template.source);
            hasher.update([0]);
            hasher.update(template.file_name.as_bytes());
            hasher.update([0]);
            hasher.update(text.as_bytes());
        }
    }
    let digest = hasher.finalize();
    digest
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect::<String>()[..PROMPT_HASH_HEX]
        .to_string()
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

    /// A seat as a test writes it: its slot, its group and whom it
    /// defaults to.
    type Declared = (
        &'static str,
        crate::protocol::RoleGroup,
        Option<&'static str>,
    );

    /// The role slots `spec` gives a debate of the protocol `name`.
    fn role_slots_of(name: &str, spec: &str) -> Vec<super::super::kind::RoleSlot> {
        use super::super::kind::Configure;
        let kind = kinds()
            .into_iter()
            .find(|kind| kind.name() == name)
            .expect("a built-in protocol");
        let input = Configure::from_spec(Path::new("spec.yaml"), spec, &[]);
        let configured = kind.configure(&input).map_err(|e| e.to_string());
        configured.expect(spec).roles()
    }

    /// Every kind's role slots, now derived from its roster, are those it
    /// declared before the roster existed (issue 63): the same slots in the
    /// same order, the same groups, the same defaults.
    #[test]
    fn every_kinds_role_slots_are_those_it_declared_before_the_roster() {
        use crate::protocol::RoleGroup::{Challenger, Lead, Panel, Synthesizer};
        let cases: Vec<(&str, &str, Vec<Declared>)> = vec![
            (
                "decision-review",
                "topic: x\n",
                vec![
                    ("proposer", Lead, None),
                    ("critic", Challenger, None),
                    ("judge.analyst", Panel, None),
                    ("judge.stylist", Panel, None),
                    ("judge.aesthete", Panel, None),
                ],
            ),
            (
                "decision-review",
                "topic: x\nhigh_stakes: true\n",
                vec![
                    ("proposer", Lead, None),
                    ("critic", Challenger, None),
                    ("judge.analyst", Panel, None),
                    ("judge.stylist", Panel, None),
                    ("judge.aesthete", Panel, None),
                    ("judge.strategist", Panel, None),
                    ("judge.empiricist", Panel, None),
                ],
            ),
            (
                "decision-review",
                "topic: x\nmode: comparative\noptions: [a, b]\n",
                vec![
                    ("proposer", Lead, None),
                    ("critic", Challenger, None),
                    ("judge.analyst", Panel, None),
                    ("judge.stylist", Panel, None),
                    ("judge.aesthete", Panel, None),
                ],
            ),
            (
                "decision-review",
                "topic: x\nmode: writing\ndraft: {text: hello}\n",
                vec![
                    ("critic", Challenger, None),
                    ("judge.aesthete", Panel, None),
                    ("judge.stylist", Panel, None),
                    ("judge.analyst", Panel, None),
                    ("synthesizer", Synthesizer, Some("judge.analyst")),
                ],
            ),
            ("quick", "topic: x\n", vec![("critic", Challenger, None)]),
            (
                "quick",
                "topic: x\nmode: panel\n",
                vec![
                    ("judge.aesthete", Panel, None),
                    ("judge.stylist", Panel, None),
                    ("judge.analyst", Panel, None),
                    ("synthesizer", Synthesizer, Some("judge.analyst")),
                ],
            ),
            (
                "quick",
                "topic: x\nmode: premortem\n",
                vec![
                    ("critic", Challenger, None),
                    ("synthesizer", Synthesizer, Some("critic")),
                ],
            ),
            (
                "quick",
                "topic: x\nmode: redteam\n",
                vec![
                    ("critic", Challenger, None),
                    ("synthesizer", Synthesizer, Some("critic")),
                ],
            ),
            (
                "quick",
                "topic: x\nmode: adversary\n",
                vec![
                    ("proposer", Lead, None),
                    ("critic", Challenger, None),
                    ("synthesizer", Synthesizer, Some("proposer")),
                ],
            ),
            (
                "plan",
                "topic: x\n",
                vec![
                    ("planner", Lead, None),
                    ("critic", Challenger, None),
                    ("optimizer", Panel, None),
                    ("synthesizer", Synthesizer, Some("planner")),
                ],
            ),
            (
                "plan",
                "topic: x\nsimple: true\n",
                vec![
                    ("planner", Lead, None),
                    ("synthesizer", Synthesizer, Some("planner")),
                ],
            ),
            (
                "rca",
                "topic: x\n",
                vec![
                    ("debugger.alpha", Lead, None),
                    ("debugger.beta", Lead, None),
                    ("critic", Challenger, None),
                ],
            ),
            (
                "rca",
                "topic: x\ndebuggers: [gamma, alpha, delta]\n",
                vec![
                    ("debugger.gamma", Lead, None),
                    ("debugger.alpha", Lead, None),
                    ("debugger.delta", Lead, None),
                    ("critic", Challenger, None),
                ],
            ),
            (
                "council",
                "topic: x\n",
                vec![
                    ("expert.correctness", Panel, None),
                    ("expert.security", Panel, None),
                    ("expert.maintainability", Panel, None),
                    ("integration-checker", Lead, None),
                    ("devil-advocate", Challenger, None),
                ],
            ),
            (
                "council",
                "topic: x\nmode: brainstorm\n",
                vec![
                    ("expert.architecture", Panel, None),
                    ("expert.operations", Panel, None),
                    ("expert.product", Panel, None),
                    ("integration-checker", Lead, None),
                    ("devil-advocate", Challenger, None),
                    ("synthesizer", Synthesizer, Some("integration-checker")),
                ],
            ),
        ];
        for (name, spec, declared) in cases {
            let slots: Vec<(String, crate::protocol::RoleGroup, Option<String>)> =
                role_slots_of(name, spec)
                    .into_iter()
                    .map(|role| (role.slot, role.group, role.defaults_to))
                    .collect();
            let declared: Vec<(String, crate::protocol::RoleGroup, Option<String>)> = declared
                .into_iter()
                .map(|(slot, group, lead)| (slot.into(), group, lead.map(str::to_string)))
                .collect();
            assert_eq!(slots, declared, "{name}: {spec}");
        }
    }

    /// Every protocol's seats read back into their roles: each seat's slot
    /// into its own role, a slot the debate does not seat into none; no two
    /// seats share a slot or a role.
    /// Issue 63: a call's stage is read back from its slot in one place,
    /// [`Stage::of_id`]: every stage of every protocol reads back into
    /// itself, no two stages of one protocol share an id, and a stage a
    /// protocol does not have reads as none.
    #[test]
    fn every_protocols_stages_read_back_from_their_ids() {
        use crate::protocol::Stage;
        fn check<S: Stage>() {
            for stage in S::EVERY {
                assert_eq!(S::of_id(stage.id()), Some(*stage), "{stage:?}");
            }
            let mut ids: Vec<&str> = S::EVERY.iter().map(|stage| stage.id()).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), S::EVERY.len(), "{ids:?}");
            assert!(S::EVERY.contains(&S::DONE));
            assert_eq!(S::of_id("no-such-stage"), None);
        }
        check::<crate::protocol::decision_review::Stage>();
        check::<crate::protocol::decision_review::writing::Step>();
        check::<crate::protocol::quick::Step>();
        check::<crate::protocol::plan::Step>();
        check::<crate::protocol::rca::Step>();
        check::<crate::protocol::council::Step>();
    }

    #[test]
    fn every_protocols_seats_read_back_into_their_roles() {
        use crate::protocol::judges::JudgeRole;
        use crate::protocol::roster::Roster;
        use crate::protocol::supervision::Slot;
        use crate::protocol::{council, decision_review, plan, quick, rca};

        fn read_back<R: Clone + PartialEq + std::fmt::Debug>(roster: &Roster<R>, unknown: &str) {
            let seats = roster.seats();
            assert!(!seats.is_empty());
            for (place, seat) in seats.iter().enumerate() {
                let slot = Slot::new(seat.slot.clone(), "stage", 1);
                assert_eq!(roster.role_of(&slot), Some(seat.role.clone()), "{seat:?}");
                assert_eq!(roster.slot_of(&seat.role), Some(seat.slot.as_str()));
                for other in &seats[place + 1..] {
                    assert_ne!(other.slot, seat.slot);
                    assert_ne!(other.role, seat.role);
                }
            }
            assert_eq!(roster.role_of(&Slot::new(unknown, "stage", 1)), None);
            assert_eq!(roster.role_of(&Slot::new("", "stage", 1)), None);
        }

        let debuggers = ["alpha".to_string(), "beta".to_string()];
        read_back(&rca::roster(&debuggers), "debugger.gamma");
        read_back(&rca::roster(&debuggers), "alpha");
        for simple in [false, true] {
            read_back(&plan::roster(simple), "judge.analyst");
        }
        read_back(&plan::roster(true), "critic");
        for mode in quick::QuickMode::ALL {
            read_back(&quick::roster(mode), "judge.strategist");
        }
        read_back(&quick::roster(quick::QuickMode::Challenge), "synthesizer");
        read_back(&decision_review::roster(JudgeRole::ALL), "synthesizer");
        read_back(
            &decision_review::roster([JudgeRole::Analyst]),
            "judge.stylist",
        );
        let panel = decision_review::writing::writing_panel();
        for critiqued in [true, false] {
            read_back(
                &decision_review::writing::roster(critiqued, &panel),
                "proposer",
            );
        }
        read_back(&decision_review::writing::roster(false, &panel), "critic");
        let domains = ["security".to_string(), "data-privacy".to_string()];
        for proposes in [false, true] {
            let roster = council::model::roster(&domains, proposes);
            read_back(&roster, "expert.ux");
        }
        read_back(&council::model::roster(&domains, false), "synthesizer");
    }
}
