//! A seventh protocol, defined entirely outside quorum with its public API
//! only: a devil's advocate debate. The proposer states a case; the devil
//! raises objections; the moderator accepts, rejects or defers each; the
//! proposer answers the accepted ones in a second round, bound by the
//! rulings; one referee scores the defended case from 1 to 5, and the
//! verdict follows from the score by a stated rule.
//!
//! It exists to prove that a protocol is its rules and nothing else, and
//! it is the file a new protocol's author copies:
//!
//! - its stages are one enum that implements [`Stage`] (id, title, focus,
//!   which one moderates), and its [`DebateCore`] holds where it stands:
//!   `core.enter` moves on and logs it, `core.moderating` says whether
//!   items are open, and a stopped debate's stage moves to [`Stage::DONE`]
//!   by itself;
//! - its roles are one enum too, and its [`Roster`] (built once, by
//!   [`roster`]) declares each seat: the slot name, the pane's title, the
//!   group, the typed role. The configuration's role slots
//!   ([`Configured::roles`]) and the roles the interfaces show
//!   ([`Questions::describe`]) derive from it; `core.slot(&role)` names a
//!   call of a role in the stage and round; every answer and given-up call
//!   comes back with its role, so [`Rules::answered`] matches on the stage
//!   and the role, never on a slot's text;
//! - the moderator's rulings come from its item book ([`ItemBook::rulings`]);
//! - every answer lands in its file (`rounds/…`) as it came, written by
//!   the engine before the protocol reads it: the protocol renders only
//!   the documents it writes for people;
//! - [`Rules`] carry its decisions, [`Questions`] what it says of itself,
//!   its [`ProtocolKind`] its entry, and `quorum::cli::register` makes
//!   every command know it.

use std::sync::Arc;

use quorum::input::RecordFiles;
use quorum::located::SpecError;
use quorum::prompts::{PromptSet, TemplateSpec};
use quorum::protocol::documents::Documents;
use quorum::protocol::items::ItemBook;
use quorum::protocol::kind::{
    Build, CommandSpec, Configure, Configured, DebateDefinition, KindInfo, ProtocolKind,
    RecomputeError, Recomputed, RoleSlot, Setting, read_options, read_record,
};
use quorum::protocol::roster::{Roster, Seat};
use quorum::protocol::supervision::LiveCall;
use quorum::protocol::{
    Answer, Board, DebateCore, Description, Effect, GivenUp, ItemRules, LogKind, Moderation,
    ModerationItem, Outcome, Progress, Protocol, Questions, Refusals, RegionInfo, RoleGroup, Rules,
    Seating, Settled, SharedSteps, Stage, StageFocus, Timestamp, Verdict,
};
use quorum::rulings::Ruled;
use serde::{Deserialize, Serialize};

/// What a spec's `protocol:` says.
pub const NAME: &str = "devils-advocate";
pub const PROPOSER: &str = "proposer";
pub const DEVIL: &str = "devil";
pub const REFEREE: &str = "referee";

/// A seat of a devil's advocate debate, as its rules name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// States the case, then defends it.
    Proposer,
    /// Objects to the case, whatever it believes.
    Devil,
    /// Scores the defended case.
    Referee,
}

/// The seats, declared once: each role's slot (what calls, files and
/// `--agent` name), its pane's title and its group.
pub fn roster() -> Roster<Role> {
    Roster::new([
        Seat::new(Role::Proposer, PROPOSER, "Proposer", RoleGroup::Lead),
        Seat::new(
            Role::Devil,
            DEVIL,
            "Devil's advocate",
            RoleGroup::Challenger,
        ),
        Seat::new(Role::Referee, REFEREE, "Referee", RoleGroup::Panel),
    ])
}

/// The referee's score from which the case is adopted.
const ADOPT_FROM: u8 = 4;
/// The score below which it is rejected.
const REJECT_BELOW: u8 = 3;

const CASE: TemplateSpec = TemplateSpec {
    file_name: "advocate-case.md.j2",
    variables: &["topic"],
    source: "State the strongest case for this position, in a few paragraphs:\n\n{{ topic }}\n",
};
const ATTACK: TemplateSpec = TemplateSpec {
    file_name: "advocate-attack.md.j2",
    variables: &["topic", "case"],
    source: "You argue against this case whatever you believe. Position: {{ topic }}\n\n\
             {{ case }}\n\nList your objections in a ```yaml block:\n\
             objections:\n  - id: o1\n    text: the objection\n",
};
const DEFENCE: TemplateSpec = TemplateSpec {
    file_name: "advocate-defence.md.j2",
    variables: &["topic", "case", "rulings"],
    source: "Your case for {{ topic }}:\n\n{{ case }}\n\n{{ rulings }}\n\n\
             Defend the case against the accepted objections, naming each by its id.\n",
};
const JUDGEMENT: TemplateSpec = TemplateSpec {
    file_name: "advocate-judgement.md.j2",
    variables: &["topic", "case", "objections", "rulings", "defence"],
    source: "Position: {{ topic }}\n\nCase:\n{{ case }}\n\nObjections:\n{{ objections }}\n\n\
             {{ rulings }}\n\nDefence:\n{{ defence }}\n\nScore the defended case \
             in a ```yaml block:\nscore: 1 to 5\nreason: one sentence\n",
};
pub const TEMPLATES: &[TemplateSpec] = &[CASE, ATTACK, DEFENCE, JUDGEMENT];

const SLOTS: &[&str] = &[PROPOSER, DEVIL, REFEREE];

/// The demo: scripted agents, the defence and the referee following the
/// rulings the person makes.
pub const DEMO: &str = r#"protocol: devils-advocate
topic: "We should adopt trunk-based development for the payments service."
agents:
  default: script
script:
  pace:
    first_token_ms: 300
    chars_per_second: 600
    chunk_chars: 12
  replies:
    - role: proposer
      stage: case
      text: |
        Short-lived branches merged daily keep the payments service releasable at all times:
        merge conflicts shrink, reviews get smaller, and feature flags keep unfinished work dark.
    - role: devil
      stage: attack
      text: |
        ```yaml
        objections:
          - id: o1
            text: Feature flags in payment paths are themselves a risk; a wrong default moves money.
          - id: o2
            text: The team has no trunk-wide test suite fast enough to gate every merge.
        ```
    - role: proposer
      stage: defence
      parts:
        - text: "I keep the case and answer what was accepted.\n"
        - when: {o1: accepted}
          text: "o1: flags in payment paths default to off and are removed within two weeks of launch.\n"
        - when: {o2: accepted}
          text: "o2: the merge gate runs the 6-minute contract suite; the full suite runs nightly.\n"
    - role: referee
      stage: judgement
      parts:
        - when: {o1: not rejected, o2: not rejected}
          text: |
            ```yaml
            score: 4
            reason: The defence answers the objections it was asked to answer.
            ```
        - when: {o1: rejected}
          text: |
            ```yaml
            score: 3
            reason: The flag risk was set aside rather than answered.
            ```
        - when: {o1: not rejected, o2: rejected}
          text: |
            ```yaml
            score: 3
            reason: The test gate was set aside rather than answered.
            ```
"#;

/// How a devil's advocate debate is set up: journaled as its definition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    pub topic: String,
    /// Who plays each role, at what price, since when: flattened, as the
    /// built-in protocols keep it.
    #[serde(flatten)]
    pub seating: Seating,
}

/// Where a devil's advocate debate stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Case,
    Attack,
    Moderation,
    Defence,
    Judgement,
    Done,
}

impl Step {
    const ALL: [Step; 6] = [
        Step::Case,
        Step::Attack,
        Step::Moderation,
        Step::Defence,
        Step::Judgement,
        Step::Done,
    ];
}

impl Stage for Step {
    const DONE: Step = Step::Done;
    const EVERY: &'static [Step] = &Step::ALL;

    fn id(self) -> &'static str {
        match self {
            Step::Case => "case",
            Step::Attack => "attack",
            Step::Moderation => "moderation",
            Step::Defence => "defence",
            Step::Judgement => "judgement",
            Step::Done => "done",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Step::Case => "Case",
            Step::Attack => "Objections",
            Step::Moderation => "Moderation",
            Step::Defence => "Defence",
            Step::Judgement => "Judgement",
            Step::Done => "Verdict",
        }
    }

    fn focus(self) -> StageFocus {
        match self {
            Step::Case | Step::Defence => StageFocus::Role(PROPOSER.into()),
            Step::Attack => StageFocus::Role(DEVIL.into()),
            Step::Moderation => StageFocus::Items,
            Step::Judgement => StageFocus::Role(REFEREE.into()),
            Step::Done => StageFocus::Stay,
        }
    }

    fn moderates(self) -> bool {
        self == Step::Moderation
    }

    /// The case and the objections are round 1, the defence and its
    /// judgement round 2.
    fn counts_rounds(self) -> bool {
        self != Step::Done
    }
}

/// The referee's reading of the defended case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub score: u8,
    pub reason: String,
}

/// One devil's advocate debate.
pub struct Advocate {
    config: Config,
    /// Where it stands (its step and round), its roster, the call
    /// plumbing, the prompts and the outcome, which the skeleton shares.
    core: DebateCore<Step, Role>,
    case: Option<String>,
    objections: ItemBook<String>,
    defence: Option<String>,
    score: Option<Score>,
}

quorum::lend_core!(Advocate, core, Step, Role);

impl Advocate {
    pub fn new(config: Config, prompts: Arc<PromptSet>) -> Self {
        Advocate {
            core: DebateCore::new(Step::Case, roster(), config.seating.calls(), prompts)
                .with_rounds(2),
            config,
            case: None,
            objections: ItemBook::default(),
            defence: None,
            score: None,
        }
    }

    /// Moves to `step` of `round` and asks `role` for its turn, its
    /// answer kept in `rounds/` (named by the role's slot) before it is
    /// read.
    fn turn(
        &mut self,
        role: Role,
        (step, round): (Step, u32),
        template: &TemplateSpec,
        context: serde_json::Value,
        now: Timestamp,
    ) -> Vec<Effect> {
        self.core.round = round;
        self.core.enter(step, now);
        let slot = self.core.slot(&role);
        let raw = format!("rounds/{}-{}.md", step.id(), slot.role);
        self.ask(slot, template, &context, Some(raw), now)
    }

    /// The rulings section of a prompt: what the moderator decided.
    fn rulings(&self) -> String {
        quorum::rulings::section(&self.objections.rulings())
    }

    fn objections_text(&self) -> String {
        self.objections
            .records()
            .iter()
            .map(|record| {
                let ruled = record
                    .decision
                    .map_or("undecided", |decision| Ruled::from(decision).word());
                format!("- {} ({ruled}): {}", record.item.id, record.item.text)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn verdict(&self) -> Option<(Verdict, String)> {
        self.score.as_ref().map(|score| verdict_of(score.score))
    }

    fn record(&self) -> DebateRecord {
        DebateRecord {
            protocol: NAME.into(),
            topic: self.config.topic.clone(),
            case: self.case.clone(),
            objections: self
                .objections
                .records()
                .iter()
                .map(|record| RecordedObjection {
                    id: record.item.id.clone(),
                    text: record.item.text.clone(),
                    ruling: record.decision.map(|d| Ruled::from(d).word().to_string()),
                    note: record.note.clone(),
                })
                .collect(),
            defence: self.defence.clone(),
            referee: self.score.clone(),
            outcome: self.core.outcome.clone(),
        }
    }
}

/// The verdict a referee's score gives, with its rule.
pub fn verdict_of(score: u8) -> (Verdict, String) {
    let verdict = match score {
        s if s >= ADOPT_FROM => Verdict::Adopt,
        s if s < REJECT_BELOW => Verdict::Reject,
        _ => Verdict::Revise,
    };
    (
        verdict,
        format!(
            "the referee scored {score} of 5: adopt from {ADOPT_FROM}, reject below {REJECT_BELOW}, revise between"
        ),
    )
}

/// The YAML of a fenced block, or the whole text.
fn yaml_of(text: &str) -> &str {
    text.split_once("```yaml")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map_or(text, |(inside, _)| inside)
}

#[derive(Deserialize)]
struct Objections {
    objections: Vec<Objection>,
}

#[derive(Deserialize)]
struct Objection {
    id: String,
    text: String,
}

fn read_objections(text: &str) -> Result<Vec<Objection>, String> {
    let read: Objections = yaml_serde::from_str(yaml_of(text)).map_err(|e| e.to_string())?;
    if read.objections.is_empty() {
        return Err("no objections".into());
    }
    Ok(read.objections)
}

fn read_score(text: &str) -> Result<Score, String> {
    let score: Score = yaml_serde::from_str(yaml_of(text)).map_err(|e| e.to_string())?;
    if !(1..=5).contains(&score.score) {
        return Err(format!("score {} is not from 1 to 5", score.score));
    }
    Ok(score)
}

/// `debate.yaml`: the whole debate, and what `quorum verdict` reads back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DebateRecord {
    pub protocol: String,
    pub topic: String,
    pub case: Option<String>,
    pub objections: Vec<RecordedObjection>,
    pub defence: Option<String>,
    pub referee: Option<Score>,
    pub outcome: Option<Outcome>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedObjection {
    pub id: String,
    pub text: String,
    pub ruling: Option<String>,
    pub note: Option<String>,
}

impl ItemRules for Advocate {
    type Subject = String;

    fn moderation(&mut self) -> Moderation<'_, String> {
        let open = self.core.moderating();
        Moderation::new(&mut self.objections, &mut self.core.calls, open)
    }

    fn items_settled(&mut self, _settled: Vec<Settled<String>>, now: Timestamp) -> Vec<Effect> {
        let context = serde_json::json!({
            "topic": self.config.topic,
            "case": self.case,
            "rulings": self.rulings(),
        });
        self.turn(Role::Proposer, (Step::Defence, 2), &DEFENCE, context, now)
    }
}

impl Rules for Advocate {
    fn begin(&mut self, now: Timestamp) -> Vec<Effect> {
        let topic = self.config.topic.clone();
        self.core.calls.push_log(
            now,
            LogKind::Note,
            None,
            format!("devil's advocate debate: {topic}"),
        );
        let context = serde_json::json!({ "topic": topic });
        self.turn(Role::Proposer, (Step::Case, 1), &CASE, context, now)
    }

    /// Each answer comes with its role: the rules match on the stage and
    /// the role.
    fn answered(&mut self, role: Role, answer: Answer<'_>) -> Vec<Effect> {
        let now = answer.now;
        let topic = self.config.topic.clone();
        match (self.core.stage, role) {
            (Step::Case, Role::Proposer) => {
                self.case = Some(answer.output.trim().to_string());
                let context = serde_json::json!({ "topic": topic, "case": self.case });
                self.turn(Role::Devil, (Step::Attack, 1), &ATTACK, context, now)
            }
            (Step::Attack, Role::Devil) => match read_objections(answer.output) {
                Ok(objections) => {
                    for objection in objections {
                        let item = ModerationItem {
                            id: objection.id,
                            category: "objection".into(),
                            text: objection.text.clone(),
                            ..ModerationItem::default()
                        };
                        self.objections.push(item, objection.text, 1);
                    }
                    self.core.enter(Step::Moderation, now);
                    vec![Effect::AwaitModeration {
                        items: self.objections.pending_items(),
                    }]
                }
                Err(error) => self.repair_or_stop(answer, error),
            },
            (Step::Defence, Role::Proposer) => {
                self.defence = Some(answer.output.trim().to_string());
                let context = serde_json::json!({
                    "topic": topic,
                    "case": self.case,
                    "objections": self.objections_text(),
                    "rulings": self.rulings(),
                    "defence": self.defence,
                });
                self.turn(
                    Role::Referee,
                    (Step::Judgement, 2),
                    &JUDGEMENT,
                    context,
                    now,
                )
            }
            (Step::Judgement, Role::Referee) => match read_score(answer.output) {
                Ok(score) => {
                    self.score = Some(score);
                    let (verdict, rule) = self.verdict().expect("scored");
                    self.core.enter(Step::Done, now);
                    vec![self.core.decide(now, verdict, rule)]
                }
                Err(error) => self.repair_or_stop(answer, error),
            },
            // No other role answers in a stage; none answers while the
            // moderator rules or after the end.
            _ => Vec::new(),
        }
    }

    fn gave_up(&mut self, _: Role, call: LiveCall, why: GivenUp, now: Timestamp) -> Vec<Effect> {
        // Every role is required: a debate without one has no verdict. The
        // log names it by its slot.
        let role = call.slot.role;
        self.fail(now, format!("the {role} gave no answer ({})", why.reason))
    }

    fn refusals(&self) -> Refusals {
        Refusals {
            rerun: "a devil's advocate debate has one referee, who is not held".into(),
            reopen: "a devil's advocate debate is not reopened".into(),
            resolution: "a deferred objection stays an open question".into(),
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            round: self.core.round,
            max_round: 2,
            ..Progress::default()
        }
    }

    /// Its files for people; each reads the log or the outcome, so each
    /// is rendered every time (a document rendered from one part of the
    /// debate would name that part with `out.add_from`).
    fn documents(&self, out: &mut Documents<'_>) {
        out.add("debate.yaml", || {
            yaml_serde::to_string(&self.record()).expect("the record serialises")
        });
        out.add("transcript.md", || {
            format!(
                "# Transcript: {}\n\n{}",
                self.config.topic,
                quorum::protocol::record::log_lines(self.core.calls.log())
            )
        });
        out.add_some("summary.md", || {
            Questions::summary_lead(self).map(|lead| format!("{lead}\n"))
        });
    }

    fn board(&self) -> Board {
        Board {
            stages: Step::ALL.iter().map(|step| step.info()).collect(),
            items: self.objections.board_items(),
            needs_moderator: self.core.moderating(),
            required_roles: self
                .core
                .roster
                .seats()
                .iter()
                .map(|seat| seat.slot.clone())
                .collect(),
            ..Board::default()
        }
    }
}

impl quorum::protocol::Questions for Advocate {
    fn describe(&self) -> Description {
        // The roster's seats, each with who plays it now; the referee's
        // score decides alone.
        let roles = self
            .core
            .roster
            .role_infos_with(&self.core.calls, |seat, info| {
                info.binding(seat.role == Role::Referee)
            });
        Description {
            topic: self.config.topic.clone(),
            label: "devil's advocate debate".into(),
            roles,
            deliverable: "summary.md".into(),
            items: Some(RegionInfo {
                title: "Objections".into(),
                placeholder: "The devil's objections appear here for your ruling.".into(),
            }),
            board: None,
            about: "A case, objections you rule on, a defence bound by your rulings, and one \
                    referee's score from 1 to 5."
                .into(),
            ending_note: "quorum derived the verdict from the referee's score.".into(),
        }
    }

    fn summary_lead(&self) -> Option<String> {
        let outcome = self.core.outcome.as_ref()?;
        Some(match outcome {
            Outcome::Decided { verdict, rule } => format!(
                "# {}: {}\n\n{}\n\nRule: {rule}.",
                verdict.as_str(),
                self.config.topic,
                self.score
                    .as_ref()
                    .map_or("", |score| score.reason.as_str()),
            ),
            Outcome::Failed { reason } => {
                format!("# No verdict: {}\n\n{reason}", self.config.topic)
            }
            Outcome::Completed { note, .. } => note.clone(),
        })
    }
}

/// The registry's entry.
pub struct AdvocateKind;

pub static KIND: AdvocateKind = AdvocateKind;

/// Its own spec keys: none.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct AdvocateOptions {}

impl Configured for AdvocateOptions {
    fn label(&self) -> String {
        "devil's advocate debate".into()
    }

    fn roles(&self) -> Vec<RoleSlot> {
        roster().role_slots()
    }

    fn define(&self, setting: Setting) -> DebateDefinition {
        DebateDefinition::new(
            NAME,
            &Config {
                topic: setting.topic,
                seating: setting.seating,
            },
        )
    }
}

/// What a devil's advocate debate is.
pub const INFO: KindInfo = KindInfo {
    name: NAME,
    title: "devil's advocate debate",
    modes: &[],
    commands: &[CommandSpec {
        name: "advocate",
        about: "A devil's advocate debate: a case, objections you rule on, a defence, one referee",
        subject: "POSITION",
        subject_help: "The position to test, e.g. \"We should adopt trunk-based development\"",
        mode: None,
        options: &[],
    }],
    options: &[],
    templates: TEMPLATES,
    slots: SLOTS,
    demos: &[DEMO],
};

impl ProtocolKind for AdvocateKind {
    fn info(&self) -> &KindInfo {
        &INFO
    }

    fn configure(&self, input: &Configure<'_>) -> Result<Box<dyn Configured>, SpecError> {
        let options: AdvocateOptions = read_options(input)?;
        Ok(Box::new(options))
    }

    fn build(&self, input: Build<'_>) -> Result<Box<dyn Protocol>, String> {
        input.protocol(INFO.title, Advocate::new)
    }

    fn recompute(
        &self,
        files: &dyn RecordFiles,
        _rechecked: Option<&quorum::protocol::evidence::recheck::Rechecked>,
    ) -> Result<Recomputed, RecomputeError> {
        let record: DebateRecord = read_record(files, "debate.yaml", "a quorum debate folder")?;
        let Some(referee) = record.referee else {
            return Err(RecomputeError::NoVerdict {
                path: files.shown("debate.yaml"),
                reason: "the referee has not scored the case".into(),
            });
        };
        let (verdict, rule) = verdict_of(referee.score);
        Ok(Recomputed {
            verdict: Some(verdict),
            rule,
            detail: serde_json::json!({ "score": referee.score, "reason": referee.reason }),
            readings: Vec::new(),
        })
    }
}

/// Makes every command know the devil's advocate debate.
pub fn register() {
    quorum::cli::register(&KIND).expect("the devil's advocate debate registers");
}
