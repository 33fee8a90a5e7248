//! The decision review's entry in the registry: its command and flags, its
//! spec keys, its role slots, its demo, how a debate is defined from them,
//! and how its verdict is recomputed from the files on disk.

mod recompute;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use self::recompute::{Recomputation, recompute};
use super::NAME;
use super::model::{Criterion, CritiqueMode, JudgeConfig, JudgeRole, Weight, architecture_panel};
use super::verdict::Thresholds;
use super::writing::{Draft, WritingConfig, WritingReview, writing_panel};
use super::{DecisionReview, Participants, ReviewConfig, ReviewMode, ReviewOption};
use crate::input::RecordFiles;
use crate::located::SpecError;
use crate::parse::Read;
use crate::prompts::PromptSet;
use crate::protocol::Protocol;
use crate::protocol::kind::{
    Build, CommandSpec, Configure, Configured, DebateDefinition, KindInfo, OptionSpec,
    ProtocolKind, RecomputeError, Recomputed, RoleSlot, Setting, ValueKind, read_options,
    read_record,
};

/// Default number of REVISE loops (RULES.md A8).
pub const DEFAULT_MAX_ROUNDS: u32 = 2;

/// Most REVISE loops a spec may ask for.
pub const MAX_MAX_ROUNDS: u32 = 10;

/// The built-in demo: a scripted decision review on event-sourced billing.
pub const DEMO_SPEC: &str = include_str!("../../../demo/billing-event-sourcing.yaml");

/// The comparative mode's demo: three job queues ranked, one ruled out.
pub const COMPARATIVE_DEMO: &str = include_str!("../../../demo/review-comparative.yaml");

/// The built-in demo of the writing mode: a scripted rewrite of a draft.
pub const WRITING_DEMO_SPEC: &str = include_str!("../../../demo/review-writing.yaml");

/// The demos that receive another debate's hand-off (`quorum demo --from
/// DIR`), by the kind of debate they receive from.
pub const CHAIN_DEMOS: &[(&str, &str)] = &[
    (
        "council",
        include_str!("../../../demo/chain-council-review.yaml"),
    ),
    (
        "red team",
        include_str!("../../../demo/chain-redteam-review.yaml"),
    ),
    (
        "pre-mortem",
        include_str!("../../../demo/chain-premortem-review.yaml"),
    ),
    (
        "comparative review",
        include_str!("../../../demo/chain-comparative-review.yaml"),
    ),
];

/// The largest draft a writing review reads: a long document, far below
/// what would crowd a model's context once it is quoted in every prompt.
pub const DRAFT_LIMIT: u64 = 256 << 10;

/// The registry's entry for the decision review.
pub struct DecisionReviewKind;

/// The one instance the registry lists.
pub static KIND: DecisionReviewKind = DecisionReviewKind;

/// A decision review's own spec keys.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ReviewOptions {
    #[serde(default)]
    mode: ReviewMode,
    #[serde(default)]
    critique: CritiqueMode,
    #[serde(default)]
    high_stakes: bool,
    #[serde(default = "default_max_rounds")]
    max_rounds: u32,
    #[serde(default)]
    thresholds: Thresholds,
    /// The judges of this run, each with its weight and criteria; absent:
    /// the architecture panel (three judges, five with `high_stakes`).
    panel: Option<Vec<PanelSeat>>,
    /// The options a comparative review ranks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    options: Vec<OptionInput>,
    /// The writing mode's draft: a path beside the spec, or `{text: ...}`.
    draft: Option<DraftSource>,
    /// A judge of the panel that scores only the final revision (issue 29).
    held_out: Option<JudgeRole>,
    /// How many variants of the deciding round the stability receipt
    /// re-judges after the verdict (issue 55); 0 or absent: none.
    #[serde(default, skip_serializing_if = "is_zero")]
    stability: u32,
    /// An ADOPT must hold in every variant of the receipt, else ESCALATE.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    require_stability: bool,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// Where a writing review's draft comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum DraftSource {
    /// A file: relative to the spec (and inside its folder), or as given
    /// to `--draft`.
    File(String),
    /// The draft itself, in the spec.
    Inline {
        text: String,
        #[serde(default)]
        name: Option<String>,
    },
}

/// A writing review's options, checked, with its draft read.
#[derive(Clone, Debug, PartialEq)]
struct WritingOptions {
    draft: Draft,
    /// The critic's stance, as in the architecture mode (DR-16, DR-17).
    critique: CritiqueMode,
}

/// An option as a spec or `--option` gives it: `"A: Postgres as the
/// queue"`, `{ id: A, text: "Postgres as the queue" }`, or a file beside
/// the spec: `{ name: A, path: options/postgres.md }` (`name` is `id`).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum OptionInput {
    Line(String),
    Full {
        #[serde(alias = "name")]
        id: Option<String>,
        text: Option<String>,
        path: Option<String>,
        /// Keys an option does not have, kept only to be refused by name.
        #[serde(flatten, default, skip_serializing_if = "BTreeMap::is_empty")]
        unknown: BTreeMap<String, yaml_serde::Value>,
    },
}

/// Refuses an option entry with a key it does not have (a misspelt `txt:`
/// or `pth:` would otherwise be dropped without a word); the error is
/// `(index, key, problem)`.
fn refuse_unknown_option_keys(inputs: &[OptionInput]) -> Result<(), (usize, String, String)> {
    for (index, option) in inputs.iter().enumerate() {
        if let OptionInput::Full { unknown, .. } = option
            && let Some(key) = unknown.keys().next()
        {
            return Err((
                index,
                key.clone(),
                format!("unknown key `{key}`; an option may have id (or name), text and path"),
            ));
        }
    }
    Ok(())
}

/// Reads the options given as files (`path:`) into their text: relative to
/// the spec and inside its folder unless the person allows otherwise,
/// bounded like a context file. The error is `(index, problem)`.
fn read_option_files(
    inputs: &mut [OptionInput],
    input: &Configure<'_>,
) -> Result<(), (usize, String)> {
    for (index, option) in inputs.iter_mut().enumerate() {
        let OptionInput::Full { text, path, .. } = option else {
            continue;
        };
        let Some(given) = path.take() else {
            continue;
        };
        if text.is_some() {
            return Err((index, "give an option `text` or a `path`, not both".into()));
        }
        let kind = crate::input::Kind::new("option file", crate::input::CONTEXT_LIMIT);
        let field = format!("options[{index}].path");
        let (_, read) = input
            .read_named(&given, &field, kind)
            .map_err(|why| (index, why))?;
        *text = Some(read);
    }
    Ok(())
}

/// Fewest and most options a comparison takes.
pub const OPTIONS_RANGE: std::ops::RangeInclusive<usize> = 2..=6;

/// Most characters of an option's id.
const MAX_OPTION_ID_CHARS: usize = 12;

/// The options of `inputs`, ids given or lettered `A`, `B`, … in order;
/// the error is `(index, problem)`.
fn read_review_options(inputs: &[OptionInput]) -> Result<Vec<ReviewOption>, (usize, String)> {
    let mut options: Vec<ReviewOption> = Vec::with_capacity(inputs.len());
    for (index, input) in inputs.iter().enumerate() {
        let lettered = || char::from(b'A' + index as u8).to_string();
        let (id, text) = match input {
            OptionInput::Full { id, text, .. } => (id.clone(), text.clone().unwrap_or_default()),
            OptionInput::Line(line) => match line.split_once(':') {
                Some((id, text))
                    if !id.trim().is_empty()
                        && id.trim().chars().count() <= MAX_OPTION_ID_CHARS
                        && !id.trim().contains(' ') =>
                {
                    (Some(id.trim().to_string()), text.to_string())
                }
                _ => (None, line.clone()),
            },
        };
        let id = id.map(|id| id.trim().to_string()).unwrap_or_else(lettered);
        let text = text.trim().to_string();
        if text.is_empty() {
            return Err((index, "an option needs its text".into()));
        }
        let usable = (1..=MAX_OPTION_ID_CHARS).contains(&id.chars().count())
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !usable {
            return Err((
                index,
                format!(
                    "`{}` cannot name an option: use 1 to {MAX_OPTION_ID_CHARS} letters, digits, '-' or '_'",
                    crate::text::excerpt(&id)
                ),
            ));
        }
        if options
            .iter()
            .any(|other| other.id.eq_ignore_ascii_case(&id))
        {
            return Err((index, format!("option `{id}` is named twice")));
        }
        options.push(ReviewOption { id, text });
    }
    Ok(options)
}

/// One judge of a spec's `panel:`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PanelSeat {
    role: JudgeRole,
    weight: Weight,
    criteria: Vec<Criterion>,
}

impl ReviewOptions {
    /// The judges of this run: the spec's `panel:`, else the built-in one.
    fn panel(&self) -> Vec<JudgeConfig> {
        match &self.panel {
            Some(seats) => seats
                .iter()
                .map(|seat| JudgeConfig::new(seat.role, seat.weight, &seat.criteria))
                .collect(),
            None => architecture_panel(self.high_stakes),
        }
    }
}

/// Why `role` cannot be held out of the revise loop (issue 29): only an
/// architecture review revises, the judge must sit on the panel, and the
/// judges who decide the rounds before need a binding judge of their own.
fn check_held_out(role: JudgeRole, mode: ReviewMode, panel: &[JudgeConfig]) -> Result<(), String> {
    if mode != ReviewMode::Architecture {
        return Err(format!(
            "a held-out judge scores only the final revision of an architecture review; a {} review has no revise loop to hold it out of",
            mode.as_str()
        ));
    }
    if !panel.iter().any(|judge| judge.role == role) {
        let seated: Vec<&str> = panel.iter().map(|judge| judge.role.as_str()).collect();
        return Err(format!(
            "`{role}` is not on the panel ({}); hold out one of its judges",
            seated.join(", ")
        ));
    }
    let binding_left = panel
        .iter()
        .any(|judge| judge.role != role && judge.weight == Weight::Binding);
    if !binding_left {
        return Err(format!(
            "with `{role}` held out no binding judge is left to decide the rounds before the last; hold out another judge or add a binding one to the panel"
        ));
    }
    Ok(())
}

/// Why a spec's `panel:` cannot seat a panel: `(field, problem)`.
fn check_panel(seats: &[PanelSeat], high_stakes: bool) -> Result<(), (String, String)> {
    if high_stakes {
        return Err((
            "panel".into(),
            "`high_stakes` picks the built-in five-judge panel; with `panel:` name the judges \
             yourself and leave `high_stakes` out"
                .into(),
        ));
    }
    if seats.is_empty() {
        return Err(("panel".into(), "a panel needs at least one judge".into()));
    }
    if !seats.iter().any(|seat| seat.weight == Weight::Binding) {
        return Err((
            "panel".into(),
            "a panel needs a binding judge: without one no verdict could ever be ADOPT (DR-37)"
                .into(),
        ));
    }
    for (index, seat) in seats.iter().enumerate() {
        if seats[..index].iter().any(|other| other.role == seat.role) {
            return Err((
                format!("panel[{index}].role"),
                format!("the {} sits on the panel twice", seat.role),
            ));
        }
        if seat.criteria.is_empty() {
            return Err((
                format!("panel[{index}].criteria"),
                format!("the {} needs at least one criterion to score", seat.role),
            ));
        }
        for (at, criterion) in seat.criteria.iter().enumerate() {
            if seat.criteria[..at].contains(criterion) {
                return Err((
                    format!("panel[{index}].criteria"),
                    format!("{criterion} is listed twice"),
                ));
            }
        }
    }
    Ok(())
}

fn default_max_rounds() -> u32 {
    DEFAULT_MAX_ROUNDS
}

/// The decision review's modes, the first the default.
const MODES: &[&str] = &["architecture", "comparative", "writing"];

/// What a decision review is.
const INFO: KindInfo = KindInfo {
    name: NAME,
    title: "decision review",
    modes: MODES,
    commands: &[CommandSpec {
        name: "review",
        about: "Run a decision review: proposal, critique, your moderation, revision, a judge panel and a mechanical verdict",
        subject: "TOPIC",
        subject_help: "The decision to review, e.g. \"Should we move billing to event sourcing?\"",
        mode: None,
        options: &[
            "mode",
            "draft",
            "critique",
            "high_stakes",
            "max_rounds",
            "options",
            "stability",
            "require_stability",
        ],
    }],
    options: &[
        OptionSpec {
            key: "mode",
            flag: "mode",
            value_name: "MODE",
            help: "What kind of review: architecture (one proposal, a verdict), comparative (options ranked) or writing (judges rewrite a --draft and one merge revises it)",
            kind: ValueKind::Text,
            values: MODES,
        },
        OptionSpec {
            key: "draft",
            flag: "draft",
            value_name: "FILE",
            help: "The text a writing review revises (with --mode writing)",
            kind: ValueKind::Text,
            values: &[],
        },
        OptionSpec {
            key: "critique",
            flag: "critique",
            value_name: "STANCE",
            help: "The critic's stance (default steelman, that is generous-steelman)",
            kind: ValueKind::Text,
            values: &["strict", "steelman", "generous-steelman", "neutral"],
        },
        OptionSpec {
            key: "high_stakes",
            flag: "high-stakes",
            value_name: "",
            help: "Five judges: adds the strategist (binding) and the empiricist (advisory)",
            kind: ValueKind::Switch(true),
            values: &[],
        },
        OptionSpec {
            key: "max_rounds",
            flag: "max-rounds",
            value_name: "N",
            help: "How many times a REVISE verdict may send the proposal back for revision (default 2)",
            kind: ValueKind::Integer,
            values: &[],
        },
        OptionSpec {
            key: "options",
            flag: "option",
            value_name: "ID: TEXT",
            help: "An option to compare (comparative mode; repeatable, 2 to 6): \"A: Postgres as the queue\"",
            kind: ValueKind::List,
            values: &[],
        },
        crate::protocol::stability::STABILITY_OPTION,
        crate::protocol::stability::REQUIRE_STABILITY_OPTION,
        OptionSpec {
            key: "panel",
            flag: "",
            value_name: "",
            help: "The judges of this run: role, weight (binding or advisory) and criteria (spec only)",
            kind: ValueKind::Text,
            values: &[],
        },
        OptionSpec {
            key: "thresholds",
            flag: "",
            value_name: "",
            help: "The verdict's thresholds (spec only)",
            kind: ValueKind::Text,
            values: &[],
        },
        OptionSpec {
            key: "held_out",
            flag: "",
            value_name: "",
            help: "A judge of the panel that scores only the final revision and can only stop an ADOPT (architecture mode; spec only)",
            kind: ValueKind::Text,
            values: &[],
        },
    ],
    templates: &super::prompts::WITH_CRITIQUE,
    slots: super::SLOTS,
    demos: &[DEMO_SPEC, COMPARATIVE_DEMO, WRITING_DEMO_SPEC],
};

impl ProtocolKind for DecisionReviewKind {
    fn info(&self) -> &KindInfo {
        &INFO
    }

    fn judge_slots(&self, high_stakes: bool) -> Vec<String> {
        super::model::architecture_panel(high_stakes)
            .iter()
            .map(|judge| judge.role.slot())
            .collect()
    }

    /// The binding judges below the floor seated advisory (JM-28), the
    /// panel and who was reseated recorded in the definition; a writing
    /// review derives no verdict, so its weights decide nothing.
    fn calibrate(
        &self,
        definition: &mut DebateDefinition,
        floor: f64,
        min_labels: u64,
        figure_of: &dyn Fn(&str) -> Option<(String, super::model::JudgeFigure)>,
    ) -> Vec<String> {
        let writing =
            definition.value("mode").and_then(serde_json::Value::as_str) == Some("writing");
        let panel = definition
            .value("panel")
            .and_then(|panel| serde_json::from_value::<Vec<JudgeConfig>>(panel.clone()).ok());
        let Some(mut panel) = panel.filter(|_| !writing) else {
            return Vec::new();
        };
        let by_role = |role: JudgeRole| figure_of(&super::judge_slot_role(role));
        let reseated = super::model::reseat_below_floor(&mut panel, floor, min_labels, &by_role);
        if reseated.is_empty() {
            return Vec::new();
        }
        match (
            serde_json::to_value(&panel),
            serde_json::to_value(&reseated),
        ) {
            (Ok(panel), Ok(recorded)) => {
                definition.set_value("panel", panel);
                definition.set_value("calibration", recorded);
                reseated.iter().map(|judge| judge.why()).collect()
            }
            _ => vec!["the panel could not be written; it is seated as configured".into()],
        }
    }

    fn role_words(&self) -> Vec<&'static str> {
        super::role_words()
    }

    fn slot_note(&self, slot: &str) -> Option<&'static str> {
        match slot {
            "judge.strategist" | "judge.empiricist" => Some("high-stakes only"),
            _ => None,
        }
    }

    fn configure(&self, input: &Configure<'_>) -> Result<Box<dyn Configured>, SpecError> {
        let mut options: ReviewOptions = read_options(input)?;
        // An error about a value names the flag that set it, else the key.
        let field = |key: &str| input.field(key);
        if options.mode == ReviewMode::Writing {
            return configure_writing(&options, input);
        }
        if options.draft.is_some() {
            return Err(SpecError::new(
                "a draft belongs to the writing mode; add `mode: writing` (or --mode writing)",
            )
            .field(field("draft")));
        }
        if options.max_rounds > MAX_MAX_ROUNDS {
            return Err(SpecError::new(format!(
                "at most {MAX_MAX_ROUNDS} revise loops are allowed, got {}",
                options.max_rounds
            ))
            .field(field("max_rounds")));
        }
        options
            .thresholds
            .validate()
            .map_err(|error| SpecError::new(error.to_string()).field("thresholds"))?;
        match options.mode {
            ReviewMode::Comparative => {
                let at = |index: usize, problem: String| {
                    SpecError::new(problem).field(format!("{}[{index}]", field("options")))
                };
                refuse_unknown_option_keys(&options.options).map_err(|(index, key, problem)| {
                    SpecError::new(problem).field(format!("{}[{index}].{key}", field("options")))
                })?;
                read_option_files(&mut options.options, input)
                    .map_err(|(index, problem)| at(index, problem))?;
                let read = read_review_options(&options.options)
                    .map_err(|(index, problem)| at(index, problem))?;
                if !OPTIONS_RANGE.contains(&read.len()) {
                    return Err(SpecError::new(format!(
                        "a comparison needs {} to {} options (--option \"A: …\", or `options:` in a spec), got {}",
                        OPTIONS_RANGE.start(),
                        OPTIONS_RANGE.end(),
                        read.len()
                    ))
                    .field(field("options")));
                }
            }
            ReviewMode::Architecture if !options.options.is_empty() => {
                return Err(SpecError::new(
                    "options are compared in the comparative mode (`mode: comparative`, \
                     `--mode comparative`); an architecture review judges one proposal",
                )
                .field(field("options")));
            }
            // Configured above, before the architecture's checks.
            ReviewMode::Architecture | ReviewMode::Writing => {}
        }
        if let Some(seats) = &options.panel {
            check_panel(seats, options.high_stakes).map_err(|(at, problem)| {
                let at = if at == "panel" && options.high_stakes {
                    field("high_stakes")
                } else {
                    at
                };
                SpecError::new(problem).field(at)
            })?;
        }
        if let Some(role) = options.held_out {
            check_held_out(role, options.mode, &options.panel())
                .map_err(|problem| SpecError::new(problem).field(field("held_out")))?;
        }
        // An architecture review's verdict and a comparison's
        // recommendation both have a receipt (issue 55).
        crate::protocol::stability::check(options.stability, options.require_stability, None)
            .map_err(|(key, problem)| SpecError::new(problem).field(field(key)))?;
        Ok(Box::new(options))
    }

    fn build(&self, input: Build<'_>) -> Result<Box<dyn Protocol>, String> {
        #[derive(Deserialize)]
        struct ModeOnly {
            #[serde(default)]
            mode: ReviewMode,
        }
        let mode = input
            .definition
            .config::<ModeOnly>()
            .map(|only| only.mode)
            .unwrap_or_default();
        if mode == ReviewMode::Writing {
            return input.protocol("writing review", WritingReview::new);
        }
        Ok(Box::new(DecisionReview::from_definition(
            input.definition,
            input.prompts,
        )?))
    }

    /// Findings become critique items after the critic's own, and a
    /// recommendation the topic (set by the caller); both only in the
    /// architecture mode, the one that judges a single proposal.
    fn receive(
        &self,
        definition: &DebateDefinition,
        handoff: &crate::protocol::handoff::Handoff,
    ) -> Result<DebateDefinition, String> {
        use crate::protocol::handoff::Handed;
        let mut config: serde_json::Value = definition.read_config("decision review")?;
        if config["mode"] != serde_json::json!("architecture") {
            return Err(format!(
                "a {}'s {} go to a decision review in architecture mode; this one compares options or rewrites a draft",
                handoff.from,
                handoff.handed.takes().what()
            ));
        }
        match &handoff.handed {
            Handed::Findings { findings } if findings.is_empty() => Err(format!(
                "the {} in {} left no finding to hand on (none confirmed, disputed or standing)",
                handoff.from, handoff.dir
            )),
            Handed::Findings { findings } => {
                config["handed"] = serde_json::to_value(super::HandedItems {
                    from: handoff.from.clone(),
                    findings: findings.clone(),
                })
                .unwrap_or_default();
                Ok(DebateDefinition::new(NAME, &config))
            }
            Handed::Recommendation { .. } => Ok(definition.clone()),
            Handed::Cause { .. } => Err(format!(
                "a {} hands on a proven cause, which {} takes",
                handoff.from,
                handoff.handed.takes().receiver()
            )),
        }
    }

    /// The architecture reviews that take a council's, a red team's or a
    /// pre-mortem's findings, or a comparison's recommendation, each about
    /// that demo's subject.
    fn chain_demo(&self, from: &str) -> Option<&'static str> {
        CHAIN_DEMOS
            .iter()
            .find(|(source, _)| *source == from)
            .map(|(_, demo)| *demo)
    }

    /// A fork before the critique may give the critic another stance; after
    /// it, the stance has nothing left to change.
    fn with_critique(
        &self,
        definition: &DebateDefinition,
        stance: &str,
        stage: &str,
    ) -> Result<DebateDefinition, String> {
        if !matches!(stage, "proposal" | "critique") {
            return Err(format!(
                "--critique changes the critic's stance, which only a fork at proposal or critique can use; {stage} is after the critique"
            ));
        }
        let mode: CritiqueMode = serde_json::from_value(serde_json::json!(stance))
            .or_else(|_| serde_json::from_value(serde_json::json!(format!("generous-{stance}"))))
            .map_err(|_| {
                format!("--critique {stance}: use strict, steelman (generous-steelman) or neutral")
            })?;
        let mut config: serde_json::Value = definition.read_config("decision review")?;
        config["critique_mode"] = serde_json::to_value(mode).unwrap_or_default();
        Ok(DebateDefinition::new(NAME, &config))
    }

    fn recompute(
        &self,
        files: &dyn RecordFiles,
        rechecked: Option<&crate::protocol::evidence::recheck::Rechecked>,
    ) -> Result<Recomputed, RecomputeError> {
        #[derive(Deserialize)]
        struct MetaOnly {
            #[serde(default)]
            mode: Option<String>,
        }
        #[derive(Deserialize)]
        struct RecordMeta {
            meta: MetaOnly,
        }
        if let Ok(record) =
            read_record::<RecordMeta>(files, "debate.yaml", "a quorum debate folder")
            && record.meta.mode.as_deref() == Some("writing")
        {
            return Err(RecomputeError::NotApplicable(
                "a writing review has no verdict to recompute: it ends with a revised draft \
                 (summary.md and revised-draft.md), and its judges' scores decide nothing"
                    .into(),
            ));
        }
        let Read {
            value,
            notes: readings,
            ..
        } = recompute(files, rechecked)?;
        Ok(match value {
            Recomputation::Verdict(assessment) => Recomputed {
                verdict: Some(assessment.verdict),
                rule: assessment.rule.clone(),
                detail: serde_json::to_value(&assessment).unwrap_or_default(),
                readings,
            },
            Recomputation::Ranking {
                ranking,
                receipt,
                required,
            } => {
                let mut rule = ranking.rule();
                let mut detail = serde_json::to_value(&ranking).unwrap_or_default();
                if let Some(receipt) = receipt {
                    // The receipt's summary, or the rule that withdrew the
                    // recommendation, which says it in full.
                    rule.push('\n');
                    rule.push_str(ranking.withdrawn.as_deref().unwrap_or(&receipt.summary()));
                    detail["stability"] = receipt.json(required);
                }
                Recomputed {
                    verdict: None,
                    rule,
                    detail,
                    readings,
                }
            }
        })
    }
}

/// A writing review's options: nothing of the architecture mode's verdict
/// machinery applies (the critic's stance does, as there), and the draft
/// is read here, bounded, from inside the
/// spec's folder unless `--allow-outside-context` (or as `--draft` names it).
fn configure_writing(
    options: &ReviewOptions,
    input: &Configure<'_>,
) -> Result<Box<dyn Configured>, SpecError> {
    let field = |key: &str| input.field(key);
    let refuse = |key: &str, what: &str| {
        Err(SpecError::new(format!(
            "{what} belongs to the architecture mode; a writing review has no verdict to tune"
        ))
        .field(field(key)))
    };
    if options.high_stakes {
        return refuse("high_stakes", "`high_stakes`");
    }
    if options.panel.is_some() {
        return refuse("panel", "a `panel:`");
    }
    if options.held_out.is_some() {
        return refuse("held_out", "a held-out judge");
    }
    if options.max_rounds != DEFAULT_MAX_ROUNDS {
        return refuse("max_rounds", "`max_rounds`");
    }
    if options.stability != 0 {
        return refuse("stability", "a stability receipt");
    }
    if options.require_stability {
        return refuse("require_stability", "`require_stability`");
    }
    if options.thresholds != Thresholds::default() {
        return refuse("thresholds", "`thresholds`");
    }
    if !options.options.is_empty() {
        return Err(SpecError::new(
            "options are compared in the comparative mode; a writing review revises one draft",
        )
        .field(field("options")));
    }
    let at = field("draft");
    let draft = match &options.draft {
        None => {
            return Err(SpecError::new(
                "a writing review needs the text to revise: give it with --draft FILE or a spec's `draft:`",
            )
            .field(at));
        }
        Some(DraftSource::Inline { text, name }) => Draft {
            name: name.clone().unwrap_or_else(|| "draft".to_string()),
            text: text.clone(),
        },
        Some(DraftSource::File(path)) => {
            let kind = crate::input::Kind::new("draft", DRAFT_LIMIT);
            let (_, text) = input
                .read_named(path, &at, kind)
                .map_err(|why| SpecError::new(why).field(at.clone()))?;
            Draft {
                name: path.clone(),
                text,
            }
        }
    };
    if draft.text.trim().is_empty() {
        return Err(SpecError::new("the draft is empty: there is nothing to revise").field(at));
    }
    Ok(Box::new(WritingOptions {
        draft,
        critique: options.critique,
    }))
}

impl Configured for WritingOptions {
    fn label(&self) -> String {
        format!("decision review (writing, {})", self.draft.name)
    }

    /// The judges read the critic's items blind, the merge reads the
    /// rewrites blind and in its own order, and the judges' scores of the
    /// draft measure their agreement (fair judging). The draft is the
    /// person's own, so no one's work is judged and there is no recusal.
    fn reads_blind(&self) -> bool {
        true
    }

    /// The critic who reviews the draft first (A16), the panel's judges,
    /// then the synthesizer who merges their rewrites. The merge is played
    /// by the analyst's agent unless it is named: the analyst chairs the
    /// panel (A17), as in a panel review.
    fn roles(&self) -> Vec<RoleSlot> {
        super::writing::roster(true, &writing_panel()).role_slots()
    }

    fn define(&self, setting: Setting) -> DebateDefinition {
        let config = WritingConfig {
            topic: setting.topic,
            mode: ReviewMode::Writing,
            draft: self.draft.clone(),
            context: setting.context,
            panel: writing_panel(),
            critique_mode: Some(self.critique),
            seating: setting.seating,
        };
        DebateDefinition::new(NAME, &config)
    }
}

impl Configured for ReviewOptions {
    fn label(&self) -> String {
        format!("decision review ({})", self.mode.as_str())
    }

    fn judged_authors(&self) -> Vec<(String, String)> {
        self.panel()
            .iter()
            .map(|judge| (super::judge_slot_role(judge.role), "proposer".to_string()))
            .collect()
    }

    fn roles(&self) -> Vec<RoleSlot> {
        super::roster(self.panel().iter().map(|judge| judge.role)).role_slots()
    }

    fn define(&self, setting: Setting) -> DebateDefinition {
        let agent = |slot: &str| {
            setting
                .seating
                .agents
                .get(slot)
                .cloned()
                .unwrap_or_default()
        };
        let panel = self.panel();
        let judges: BTreeMap<JudgeRole, String> = panel
            .iter()
            .map(|judge| (judge.role, agent(&super::judge_slot_role(judge.role))))
            .collect();
        let config = ReviewConfig {
            topic: setting.topic,
            context: setting.context,
            mode: self.mode,
            options: read_review_options(&self.options).unwrap_or_default(),
            critique_mode: self.critique,
            high_stakes: self.high_stakes,
            panel,
            max_rounds: self.max_rounds,
            thresholds: self.thresholds.clone(),
            participants: Participants {
                proposer: agent("proposer"),
                critic: agent("critic"),
                judges,
                prices: setting.seating.prices,
            },
            started_at: setting.seating.started_at,
            hold_for_moderator: false,
            checks_rulings: true,
            fairness: setting
                .seating
                .fairness
                .holding_out(self.held_out.map(super::judge_slot_role)),
            handed: None,
            sources: setting.seating.sources,
            checks_evidence: true,
            weighs_payoff: true,
            stability: crate::protocol::stability::Stability {
                variants: self.stability,
                required: self.require_stability,
                names_missing: true,
            },
            calibration: Vec::new(),
        };
        DebateDefinition::new(NAME, &config)
    }
}

impl DecisionReview {
    /// The decision review a journaled definition describes.
    pub fn from_definition(
        definition: &DebateDefinition,
        prompts: Arc<PromptSet>,
    ) -> Result<DecisionReview, String> {
        if definition.protocol() != NAME {
            return Err(format!(
                "a {} debate is not a decision review",
                definition.protocol()
            ));
        }
        let config: ReviewConfig = definition.read_config("decision review")?;
        Ok(DecisionReview::new(config, prompts))
    }
}

impl From<ReviewConfig> for DebateDefinition {
    fn from(config: ReviewConfig) -> Self {
        DebateDefinition::new(NAME, &config)
    }
}

/// The time a fresh definition starts at, for tests of the entry alone.
#[cfg(test)]
fn setting(agents: &[(&str, &str)]) -> Setting {
    Setting {
        topic: "Should we?".into(),
        context: Vec::new(),
        seating: crate::protocol::Seating {
            agents: agents
                .iter()
                .map(|(slot, agent)| (slot.to_string(), agent.to_string()))
                .collect(),
            started_at: chrono::Utc::now(),
            ..Default::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::protocol::kind::FlagValue;

    fn configure(spec: &str, flags: &[FlagValue]) -> Result<Box<dyn Configured>, SpecError> {
        KIND.configure(&Configure::from_spec(Path::new("spec.yaml"), spec, flags))
    }

    fn config_of(configured: &dyn Configured) -> ReviewConfig {
        let agents: Vec<(String, &str)> = configured
            .roles()
            .into_iter()
            .map(|role| (role.slot, "script:scripted"))
            .collect();
        let agents: Vec<(&str, &str)> = agents
            .iter()
            .map(|(slot, agent)| (slot.as_str(), *agent))
            .collect();
        configured.define(setting(&agents)).config().unwrap()
    }

    /// Issue 29: `held_out` names a judge of an architecture review's panel
    /// that scores only the final revision; it is refused, naming the key,
    /// in a comparison, for a judge not on the panel, when it would leave no
    /// binding judge to decide the rounds before, and in the writing mode.
    #[test]
    fn issue_29_a_held_out_judge_is_one_of_the_panel_and_leaves_a_binding_judge() {
        let config = config_of(
            configure(
                "topic: x
high_stakes: true
held_out: strategist
",
                &[],
            )
            .unwrap()
            .as_ref(),
        );
        assert_eq!(
            config.fairness.held_out.as_deref(),
            Some("judge.strategist")
        );
        for (spec, problem) in [
            (
                "topic: x
held_out: strategist
",
                "`strategist` is not on the panel (analyst, stylist, aesthete)",
            ),
            (
                "topic: x
held_out: analyst
",
                "no binding judge is left",
            ),
            (
                "topic: x
mode: comparative
options: [a, b]
held_out: stylist
",
                "a comparative review has no revise loop",
            ),
        ] {
            let error = configure(spec, &[]).err().expect(spec);
            assert_eq!(error.field.as_deref(), Some("held_out"), "{spec}");
            assert!(error.to_string().contains(problem), "{spec}: {error}");
        }
        let error = KIND
            .configure(&Configure::from_spec(
                Path::new("spec.yaml"),
                "topic: x
mode: writing
draft: {text: hello}
held_out: stylist
",
                &[],
            ))
            .err()
            .expect("refused");
        assert_eq!(error.field.as_deref(), Some("held_out"));
    }

    /// DR-57, A15: a comparison takes the global default stance,
    /// generous-steelman, unless the spec or a flag says otherwise; its
    /// options are lettered when they come without ids.
    #[test]
    fn dr_57_a_comparison_defaults_to_the_generous_steelman() {
        let config = config_of(
            configure(
                "topic: Which queue?\nmode: comparative\noptions: [Postgres, \"R: Redis\", {text: Kafka}]\n",
                &[],
            )
            .unwrap()
            .as_ref(),
        );
        assert_eq!(config.mode, ReviewMode::Comparative);
        assert_eq!(config.critique_mode, CritiqueMode::GenerousSteelman);
        let ids: Vec<&str> = config.options.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["A", "R", "C"]);
        assert_eq!(config.options[1].text, "Redis");
        // `two words: y` is no id: the whole line is the option, lettered.
        let config = config_of(
            configure(
                "topic: Which queue?\nmode: comparative\noptions: [\"A: x\", \"two words: y\"]\n",
                &[],
            )
            .unwrap()
            .as_ref(),
        );
        assert_eq!(config.options[1].id, "B");
        assert_eq!(config.options[1].text, "two words: y");
    }

    /// JM-50: a comparison takes a stability receipt and its requirement
    /// (it was refused before: its judges score, as an architecture
    /// review's do); a writing review still refuses both, naming the key.
    #[test]
    fn jm_50_a_comparison_takes_a_stability_receipt() {
        let config = config_of(
            configure(
                "topic: Which queue?\nmode: comparative\noptions: [a, b]\nstability: 3\nrequire_stability: true\n",
                &[],
            )
            .unwrap()
            .as_ref(),
        );
        assert_eq!(config.mode, ReviewMode::Comparative);
        assert_eq!(config.stability.variants, 3);
        assert!(config.stability.required);
        let error = configure(
            "topic: x\nmode: comparative\noptions: [a, b]\nrequire_stability: true\n",
            &[],
        )
        .err()
        .expect("a requirement needs a receipt");
        assert_eq!(error.field.as_deref(), Some("require_stability"));
        let error = configure(
            "topic: x\nmode: writing\ndraft: {text: hello}\nstability: 2\n",
            &[],
        )
        .err()
        .expect("a writing review decides nothing by a panel");
        assert_eq!(error.field.as_deref(), Some("stability"));
    }

    #[test]
    fn minimal_spec_takes_the_defaults() {
        let config = config_of(configure("topic: Should we?\n", &[]).unwrap().as_ref());
        assert_eq!(config.critique_mode, CritiqueMode::GenerousSteelman);
        assert_eq!(config.max_rounds, 2);
        assert!(!config.high_stakes);
        assert_eq!(config.panel.len(), 3);
        assert_eq!(config.participants.proposer, "script:scripted");
    }

    #[test]
    fn bad_enum_value_is_located() {
        let error = configure("topic: x\ncritique: harsh\n", &[]).err().unwrap();
        assert_eq!(error.line, Some(2), "{error}");
        assert!(error.to_string().contains("harsh"), "{error}");
    }

    /// DR-17: generous-steelman is the default stance; `steelman` is accepted as its short name.
    #[test]
    fn dr_17_default_stance_is_steelman_and_short_name_works() {
        let stance = |spec: &str| config_of(configure(spec, &[]).unwrap().as_ref()).critique_mode;
        assert_eq!(stance("topic: x\n"), CritiqueMode::GenerousSteelman);
        assert_eq!(
            stance("topic: x\ncritique: steelman\n"),
            CritiqueMode::GenerousSteelman
        );
    }

    #[test]
    fn flags_win_over_the_spec_and_name_themselves_in_errors() {
        let configured = configure(
            "topic: x\ncritique: neutral\nmax_rounds: 1\n",
            &[
                FlagValue::new("--critique", "critique", "strict"),
                FlagValue::new("--high-stakes", "high_stakes", true),
            ],
        )
        .unwrap();
        let config = config_of(configured.as_ref());
        assert_eq!(config.critique_mode, CritiqueMode::Strict);
        assert_eq!(config.max_rounds, 1);
        assert_eq!(config.panel.len(), 5, "INF-28");
        let error = configure(
            "topic: x\n",
            &[FlagValue::new("--max-rounds", "max_rounds", 11)],
        )
        .err()
        .unwrap();
        assert_eq!(error.field.as_deref(), Some("--max-rounds"));
        let error = configure(
            "topic: x\n",
            &[FlagValue::new("--critique", "critique", "harsh")],
        )
        .err()
        .unwrap();
        assert_eq!(error.field.as_deref(), Some("--critique"));
        assert!(error.message.contains("harsh"), "{error}");
    }

    #[test]
    fn too_many_rounds_and_bad_thresholds_are_refused() {
        let error = configure("topic: x\nmax_rounds: 11\n", &[]).err().unwrap();
        assert_eq!(error.field.as_deref(), Some("max_rounds"));
        let error = configure("topic: x\nthresholds: {binding: 9}\n", &[])
            .err()
            .unwrap();
        assert_eq!(error.field.as_deref(), Some("thresholds"));
        let error = configure("topic: x\nthresholds: {bindng: 3}\n", &[])
            .err()
            .unwrap();
        assert!(error.to_string().contains("bindng"), "{error}");
        assert_eq!(error.line, Some(2), "{error}");
    }

    /// DR-16, DR-17, DR-18: the writing critic takes the architecture
    /// critic's stances, from a spec's `critique:` or `--critique` (the
    /// flag winning), generous-steelman by default; the stance is
    /// journaled with the review.
    #[test]
    fn dr_16_dr_17_dr_18_the_writing_critic_takes_a_stance_from_the_spec_or_the_flag() {
        let stance = |spec: &str, flags: &[FlagValue]| {
            let configured = configure(spec, flags).unwrap();
            let config: WritingConfig = configured.define(setting(&[])).config().unwrap();
            config.critique_mode
        };
        let writing = "topic: x\nmode: writing\ndraft: {text: hi}\n";
        assert_eq!(stance(writing, &[]), Some(CritiqueMode::GenerousSteelman));
        assert_eq!(
            stance(&format!("{writing}critique: strict\n"), &[]),
            Some(CritiqueMode::Strict)
        );
        assert_eq!(
            stance(
                &format!("{writing}critique: strict\n"),
                &[FlagValue::new("--critique", "critique", "neutral")]
            ),
            Some(CritiqueMode::Neutral)
        );
        let error = configure(&format!("{writing}critique: harsh\n"), &[])
            .err()
            .unwrap();
        assert!(error.to_string().contains("harsh"), "{error}");
    }

    /// `--mode writing` needs a draft; the architecture mode's verdict
    /// options are refused by name; a spec's `draft:` stays in the spec's
    /// folder.
    #[test]
    fn the_writing_mode_reads_its_draft_and_refuses_verdict_options() {
        let error = configure("topic: x\nmode: writing\n", &[]).err().unwrap();
        assert_eq!(error.field.as_deref(), Some("draft"));
        let error = configure(
            "topic: x\nmode: writing\ndraft: {text: hello}\n",
            &[FlagValue::new("--high-stakes", "high_stakes", true)],
        )
        .err()
        .unwrap();
        assert_eq!(error.field.as_deref(), Some("--high-stakes"));
        let error = configure("topic: x\ndraft: {text: hello}\n", &[])
            .err()
            .unwrap();
        assert!(error.message.contains("writing mode"), "{error}");
        let error = configure("topic: x\nmode: writing\ndraft: ../secret.md\n", &[])
            .err()
            .unwrap();
        assert_eq!(error.field.as_deref(), Some("draft"));
        assert!(error.message.contains("climbs out"), "{error}");
        let error = configure("topic: x\nmode: writing\ndraft: {text: \"  \"}\n", &[])
            .err()
            .unwrap();
        assert!(error.message.contains("empty"), "{error}");

        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join("draft.md"), "The draft.\n").unwrap();
        let spec = folder.path().join("spec.yaml");
        let configured = KIND
            .configure(&Configure::from_spec(
                &spec,
                "topic: x\nmode: writing\ndraft: draft.md\n",
                &[],
            ))
            .unwrap();
        let slots: Vec<_> = configured
            .roles()
            .into_iter()
            .map(|role| role.slot)
            .collect();
        assert_eq!(
            slots,
            [
                "critic",
                "judge.aesthete",
                "judge.stylist",
                "judge.analyst",
                "synthesizer"
            ]
        );
        let synthesizer = configured.roles().pop().unwrap();
        assert_eq!(synthesizer.defaults_to.as_deref(), Some("judge.analyst"));
        let definition = configured.define(setting(&[]));
        let config: WritingConfig = definition.config().unwrap();
        assert_eq!(config.draft.text, "The draft.\n");
        assert_eq!(config.draft.name, "draft.md");
        let protocol =
            crate::protocol::registry::build(&definition, Arc::new(PromptSet::builtin())).unwrap();
        assert_eq!(protocol.describe().deliverable, "summary.md");
        assert!(protocol.describe().label.contains("writing"));
    }

    /// Files the spec names, in memory, with every read they were asked for.
    #[derive(Default)]
    struct MemoryFiles {
        files: std::collections::BTreeMap<std::path::PathBuf, String>,
        asked: std::sync::Mutex<Vec<(std::path::PathBuf, bool)>>,
    }

    impl crate::protocol::kind::SpecFiles for MemoryFiles {
        fn read(
            &self,
            path: &Path,
            _kind: crate::input::Kind,
            regular: bool,
        ) -> Result<String, String> {
            self.asked
                .lock()
                .unwrap()
                .push((path.to_path_buf(), regular));
            self.files
                .get(path)
                .cloned()
                .ok_or_else(|| format!("cannot read {}", path.display()))
        }
    }

    /// Pure means pure: a spec's draft and option files come through the
    /// reader the command line gives, found beside the spec and read as
    /// regular files; a flag's file as the person gave it; a path that
    /// climbs out of the spec's folder is refused before anything is read.
    #[test]
    fn files_a_spec_names_are_read_through_the_reader_it_is_given() {
        let mut memory = MemoryFiles::default();
        memory
            .files
            .insert("specs/draft.md".into(), "The draft.\n".into());
        memory.files.insert("specs/a.md".into(), "Option A.".into());
        memory.files.insert("specs/b.md".into(), "Option B.".into());
        memory.files.insert("mine.md".into(), "My draft.\n".into());
        let spec = Path::new("specs/spec.yaml");
        let configure = |text: &str, flags: &[FlagValue]| {
            KIND.configure(&Configure {
                files: &memory,
                ..Configure::from_spec(spec, text, flags)
            })
        };
        let writing = configure("topic: x\nmode: writing\ndraft: draft.md\n", &[]).unwrap();
        let config: WritingConfig = writing.define(setting(&[])).config().unwrap();
        assert_eq!(config.draft.text, "The draft.\n");
        let compared = configure(
            "topic: x\nmode: comparative\noptions:\n  - path: a.md\n  - path: b.md\n",
            &[],
        );
        assert!(compared.is_ok(), "{:?}", compared.err());
        let flagged = [FlagValue::new("--draft", "draft", "mine.md")];
        let writing = configure("topic: x\nmode: writing\n", &flagged).unwrap();
        let config: WritingConfig = writing.define(setting(&[])).config().unwrap();
        assert_eq!(config.draft.text, "My draft.\n");
        let asked: Vec<(String, bool)> = memory
            .asked
            .lock()
            .unwrap()
            .iter()
            .map(|(path, regular)| (path.display().to_string(), *regular))
            .collect();
        assert_eq!(
            asked,
            [
                ("specs/draft.md".to_string(), true),
                ("specs/a.md".to_string(), true),
                ("specs/b.md".to_string(), true),
                ("mine.md".to_string(), false),
            ]
        );
        let error = configure("topic: x\nmode: writing\ndraft: ../secret.md\n", &[])
            .err()
            .unwrap();
        assert!(error.message.contains("climbs out"), "{error}");
        assert_eq!(
            memory.asked.lock().unwrap().len(),
            4,
            "nothing more was read"
        );
    }

    /// A writing review has no verdict to recompute.
    #[test]
    fn a_writing_review_has_no_verdict_to_recompute() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(
            folder.path().join("debate.yaml"),
            "meta:\n  protocol: decision-review\n  mode: writing\n",
        )
        .unwrap();
        let error = KIND
            .recompute(&crate::input::RecordFolder::new(folder.path()), None)
            .err()
            .unwrap();
        assert!(matches!(error, RecomputeError::NotApplicable(_)), "{error}");
        assert!(error.to_string().contains("revised draft"), "{error}");
    }

    /// The definition a decision review journals builds the protocol back.
    #[test]
    fn a_definition_builds_its_protocol() {
        let configured = configure("topic: Should we?\n", &[]).unwrap();
        let definition = configured.define(setting(&[("proposer", "script:scripted")]));
        assert_eq!(definition.protocol(), NAME);
        let protocol =
            crate::protocol::registry::build(&definition, Arc::new(PromptSet::builtin())).unwrap();
        assert_eq!(protocol.describe().topic, "Should we?");
    }
}
