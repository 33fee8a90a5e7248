//! The TUI's state: a fold of the engine's [`Update`]s, plus what the person
//! is doing — focus, scroll positions, open layers, a half-written note.
//!
//! Responsible for turning updates and key presses into state and into
//! [`Command`]s for the engine. Not responsible for drawing (`view` reads
//! this state through `&App`), for the terminal, or for any protocol rule:
//! decisions and overrides go to the engine, and what the board shows comes
//! back from the protocol. Key presses and mouse events are in [`input`];
//! the debate's log (the transcript, the badges and prompts it moves) in
//! [`log`]; one agent's pane (its text, scroll and badge) is in [`pane`], the fold
//! of a published board in [`board`], what the layout is told of the
//! state in [`shape`], and what changed on screen since the last frame in
//! [`Damage`].
//!
//! The same state serves three [`Mode`]s: a debate running now, a recording
//! played back ([`playback`] keeps its clock), and a finished debate opened
//! to settle its deferred items ([`archive`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui_textarea::TextArea;

use crate::agent::human::HUMAN_PROVIDER;
use crate::engine::{BudgetDecision, BudgetQuestion, Update};
use crate::protocol::ItemDecision;
use crate::protocol::budget::{Budget, Forecast};
use crate::protocol::supervision::Slot;
use crate::protocol::{Board, LogKind, Outcome, Progress, StageFocus};
use crate::text::{Sanitizer, sanitize};

use super::keymap::{self, Context};
use super::layout::{self, ScreenLayout};
use super::markdown::{Segment, StreamDoc};
use super::theme::Theme;

pub mod archive;
mod board;
mod damage;
mod input;
mod log;
mod pane;
pub mod playback;
mod shape;
pub mod target;
#[cfg(test)]
mod tests;

pub use archive::Archive;
pub use damage::Damage;
pub use pane::{
    AgentPane, FAST_JUMP_EVERY, HumanAnswer, JUMP_EVERY, PaneStatus, SKIMMED_ROWS_PER_SECOND,
    Scroll, rate_text,
};
pub use playback::{MAX_REPLAY_SPEED, MIN_REPLAY_SPEED, Moment, Playback};
pub use target::ItemTarget;

/// How much longer "wait longer" gives a call, in milliseconds.
pub const WAIT_LONGER_MS: u64 = 5 * 60 * 1000;
/// Lines one mouse-wheel notch scrolls.
pub const WHEEL_LINES: usize = 3;
/// How long a status message stays in the footer, in milliseconds.
pub const FLASH_MS: u64 = 4000;
/// Rough characters per token, for the live tokens-per-second badge before
/// the provider reports real counts.
const CHARS_PER_TOKEN: f64 = 4.0;

pub use crate::protocol::RoleInfo;

/// What the header, the panes and the result view say about the debate
/// (built from the protocol's description: [`DebateInfo::of`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebateInfo {
    pub topic: String,
    /// `decision review · architecture · generous-steelman critique`.
    pub protocol: String,
    pub run_dir: PathBuf,
    /// Every role slot, grouped for the layout by [`RoleInfo::group`].
    pub roles: Vec<RoleInfo>,
    /// The reader deliverable the result view shows (`summary.md`).
    pub deliverable: String,
    /// The moderator's items region; `None`: the protocol raises none.
    pub items: Option<crate::protocol::RegionInfo>,
    /// The board region, if the protocol has one.
    pub board: Option<crate::protocol::RegionInfo>,
    /// How the protocol runs, for the help overlay.
    pub about: String,
    /// One sentence under the result: where it comes from.
    pub ending_note: String,
    /// What the protocol calls the moderator's decisions: the footer, the
    /// help and the item list say these words.
    pub words: crate::protocol::ItemWords,
}

/// A call that needs the moderator's attention. It closes by itself once
/// its situation has passed: the role answered, or the debate moved on with
/// nothing of the role running or waited for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverridePrompt {
    pub pane: usize,
    /// What happened, in the protocol's words.
    pub what: String,
    pub kind: LogKind,
}

impl OverridePrompt {
    /// The prompt's title, for a role titled `role`: `Aesthete timed out`.
    pub fn title(&self, role: &str) -> String {
        match self.kind {
            LogKind::Timeout => format!("{role} timed out"),
            LogKind::Malformed => format!("{role}: unusable answer"),
            _ => format!("{role} failed"),
        }
    }
}

/// Something on top of the main view that takes keys first.
pub enum Layer {
    Help {
        scroll: usize,
    },
    ConfirmQuit,
    Override(OverridePrompt),
    ItemDetail {
        item: usize,
        /// Rows scrolled past, for an item longer than the pop-up.
        scroll: usize,
    },
    /// Retrying a call that has streamed text (paid for) asks first.
    ConfirmRetry {
        pane: usize,
    },
    /// Settling a deferred item after the verdict is journaled for good:
    /// it asks first, showing what will be recorded.
    ConfirmSettle {
        item: usize,
        decision: crate::protocol::ItemDecision,
    },
    /// Picking the model a role switches to.
    ChooseAgent {
        pane: usize,
        cursor: usize,
    },
    NoteEditor {
        item: usize,
        editor: Box<TextArea<'static>>,
    },
    AnswerEditor {
        pane: usize,
    },
    /// A step held at the budget: raise it, stop here or go on once.
    Budget(Box<BudgetQuestion>),
    /// The raised budget being written, for the step held.
    BudgetEditor {
        question: Box<BudgetQuestion>,
        editor: Box<TextArea<'static>>,
    },
}

impl Layer {
    /// The budget's question or its editor.
    pub fn is_budget(&self) -> bool {
        matches!(self, Layer::Budget(_) | Layer::BudgetEditor { .. })
    }

    pub fn context(&self) -> Context {
        match self {
            Layer::Help { .. } => Context::Help,
            Layer::ConfirmQuit => Context::ConfirmQuit,
            Layer::ConfirmRetry { .. } => Context::ConfirmRetry,
            Layer::ConfirmSettle { .. } => Context::ConfirmSettle,
            Layer::Override(_) => Context::Override,
            Layer::ItemDetail { .. } => Context::ItemDetail,
            Layer::ChooseAgent { .. } => Context::ChooseAgent,
            Layer::Budget(_) => Context::Budget,
            Layer::BudgetEditor { .. } => Context::BudgetEditor,
            Layer::NoteEditor { .. } | Layer::AnswerEditor { .. } => Context::Editor,
        }
    }
}

/// What has focus in the main view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Pane(usize),
    Items,
    Board,
    Transcript,
}

/// The end of the debate, as the verdict view shows it.
pub struct VerdictReport {
    pub outcome: Outcome,
    /// `summary.md`, rendered.
    pub summary: StreamDoc,
    /// Files written, relative to the run folder.
    pub paths: Vec<String>,
    pub scroll: Scroll,
    pub viewport: usize,
}

/// What the interface is attached to.
pub enum Mode {
    /// A debate running now, with the person as its moderator.
    Live,
    /// A recorded debate played back: nothing can change it.
    Replay(Playback),
    /// A finished debate, opened to read it and settle its deferred items.
    Archive(Archive),
}

/// A debate another process drives, shown here (`quorum attach`): the
/// person's rulings go to that process, and quitting leaves the debate
/// running.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attached {
    /// Why this interface only watches (another `quorum attach` moderates
    /// the debate), when it does: keys that would rule are refused with it.
    pub read_only: Option<String>,
}

/// Token and cost totals for the header.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Output tokens estimated from streamed text, for calls still running
    /// or whose provider reported no usage.
    pub estimated_output: u64,
    pub cost_usd: Option<f64>,
}

/// The whole interface state.
pub struct App {
    pub info: DebateInfo,
    pub theme: Theme,
    pub progress: Progress,
    pub board: Board,
    pub panes: Vec<AgentPane>,
    /// `provider:model` of every agent a role may be switched to, in the
    /// engine's order (see [`App::set_alternatives`]).
    pub alternatives: Vec<String>,
    pane_by_call: HashMap<String, usize>,
    /// Calls the person overrode: their skips raise no modal.
    overridden: std::collections::HashSet<String>,
    pub transcript: StreamDoc,
    pub transcript_scroll: Scroll,
    pub transcript_viewport: usize,
    pub focus: Focus,
    /// The person moved the focus during the current stage.
    focus_moved: bool,
    pub zoomed: bool,
    pub show_verdict: bool,
    pub layers: Vec<Layer>,
    pub item_cursor: usize,
    /// Rows of the selected item scrolled past, where the items region
    /// shows it below the list.
    pub item_scroll: usize,
    /// Rows one page of the selected item takes there, and in the item's
    /// pop-up (as last laid out).
    pub(crate) item_page: usize,
    pub(crate) detail_page: usize,
    /// While moderating, the text the item under the cursor attacks, when
    /// the item carries it (brought up to date by [`App::prepare`]).
    pub item_target: Option<ItemTarget>,
    /// What `item_target` was last laid out for: the item, the length of
    /// its target's entry, and whether a lead pane showed raw text.
    item_target_key: Option<(String, usize, bool)>,
    /// Notes written before the item had a decision, sent with it.
    pending_notes: HashMap<String, String>,
    /// Decisions sent to the engine that its board has not shown yet, by
    /// item id: a board published before the engine saw them must not undo
    /// them on screen.
    unconfirmed: HashMap<String, (ItemDecision, Option<String>)>,
    pub totals: Totals,
    /// The debate's budget (unset: none), as last published.
    pub budget: Budget,
    /// The forecast of the step last started or held.
    pub step: Option<Forecast>,
    /// Characters streamed per call and the output tokens estimated from
    /// them, until the provider reports the real count. Estimated from the
    /// call's whole text, not chunk by chunk, so that how the text was split
    /// on its way does not move the figure.
    estimates: HashMap<String, (usize, u64)>,
    /// The estimated output tokens as the text streams in; the header's
    /// `totals.estimated_output` takes it at each tick (and with any other
    /// update), so that the header, like its clock, is drawn again a few
    /// times a second while text streams, not at every frame.
    streamed_estimate: u64,
    pub outcome: Option<Outcome>,
    pub report: Option<VerdictReport>,
    pub flash: Option<(String, Instant)>,
    pub started: Instant,
    pub elapsed: Duration,
    pub layout: ScreenLayout,
    /// What `layout` was laid out for: a frame of the same input and area
    /// keeps it.
    pub layout_for: Option<(layout::LayoutInput, ratatui::layout::Rect)>,
    pub quit: bool,
    /// What changed on screen since the last frame.
    pub damage: Damage,
    /// The engine stopped with an error; shown instead of a verdict.
    pub engine_error: Option<String>,
    pub mode: Mode,
    /// Set when another process drives the debate (`quorum attach`).
    pub attached: Option<Attached>,
}

impl App {
    pub fn new(mut info: DebateInfo, theme: Theme, now: Instant) -> Self {
        for role in &mut info.roles {
            role.agent = sanitize(&role.agent);
        }
        // The focus starts on the first pane as laid out.
        let groups: Vec<_> = info.roles.iter().map(|role| role.group).collect();
        let first_pane = layout::group_rows(&groups)
            .first()
            .and_then(|row| row.first().copied())
            .unwrap_or(0);
        let panes = info.roles.iter().cloned().map(AgentPane::new).collect();
        App {
            info,
            theme,
            progress: Progress {
                stage: String::new(),
                round: 1,
                finished: false,
                ..Default::default()
            },
            board: Board::default(),
            panes,
            alternatives: Vec::new(),
            pane_by_call: HashMap::new(),
            overridden: std::collections::HashSet::new(),
            transcript: StreamDoc::new(),
            transcript_scroll: Scroll::default(),
            transcript_viewport: 0,
            focus: Focus::Pane(first_pane),
            focus_moved: false,
            zoomed: false,
            show_verdict: false,
            layers: Vec::new(),
            item_cursor: 0,
            item_scroll: 0,
            item_page: 0,
            detail_page: 0,
            item_target: None,
            item_target_key: None,
            pending_notes: HashMap::new(),
            unconfirmed: HashMap::new(),
            totals: Totals::default(),
            budget: Budget::default(),
            step: None,
            estimates: HashMap::new(),
            streamed_estimate: 0,
            outcome: None,
            report: None,
            flash: None,
            started: now,
            elapsed: Duration::ZERO,
            layout: ScreenLayout::default(),
            layout_for: None,
            quit: false,
            damage: Damage::Whole,
            engine_error: None,
            mode: Mode::Live,
            attached: None,
        }
    }

    /// The interface over a debate another process drives (`quorum
    /// attach`); with `read_only`, the reason it only watches.
    pub fn attached(mut self, read_only: Option<String>) -> Self {
        self.attached = Some(Attached { read_only });
        self
    }

    /// Why the person's rulings are not taken here, when they are not:
    /// another `quorum attach` moderates the debate.
    pub fn read_only(&self) -> Option<&str> {
        self.attached.as_ref()?.read_only.as_deref()
    }

    /// The interface as a replay at `speed`, starting at `now`.
    pub fn replaying(mut self, speed: f64, now: Instant) -> Self {
        self.mode = Mode::Replay(Playback::new(speed, now));
        self.started = now;
        self
    }

    /// The interface over a finished debate, on its items (a protocol
    /// without items opens on its first pane).
    pub fn archived(mut self) -> Self {
        self.mode = Mode::Archive(Archive::default());
        if self.has_items() {
            self.focus = Focus::Items;
        }
        self
    }

    /// Which keys apply.
    pub fn key_mode(&self) -> keymap::Mode {
        match self.mode {
            Mode::Live => keymap::Mode::Live,
            Mode::Replay(_) => keymap::Mode::Replay,
            Mode::Archive(_) => keymap::Mode::Archive,
        }
    }

    /// The replay's clock, in a replay.
    pub fn playback(&self) -> Option<&Playback> {
        match &self.mode {
            Mode::Replay(playback) => Some(playback),
            _ => None,
        }
    }

    /// Every moment of the replay has been shown: the debate's clock stops
    /// (a recording of an interrupted debate ends without a verdict).
    pub fn end_of_recording(&mut self, now: Instant) {
        if let Mode::Replay(playback) = &mut self.mode
            && !playback.ended
        {
            playback.ended = true;
            self.elapsed = playback.recorded_elapsed(now);
            self.damage = Damage::Whole;
        }
    }

    /// Shows one recorded moment of a replay.
    pub fn play(&mut self, moment: Moment, now: Instant) {
        if let Mode::Replay(playback) = &mut self.mode {
            playback.showing(&moment);
        }
        self.apply(moment.update, now);
    }

    /// The time in the debate at wall-clock `now`: the same in a live run,
    /// the playback's position in a replay (so rates read as recorded).
    fn debate_now(&self, now: Instant) -> Instant {
        match &self.mode {
            Mode::Replay(playback) => self
                .started
                .checked_add(playback.position(now))
                .unwrap_or(now),
            _ => now,
        }
    }

    /// Focuses the items, with the cursor on the first still to decide.
    fn focus_first_undecided(&mut self) {
        self.focus = Focus::Items;
        self.item_cursor = self
            .board
            .items
            .iter()
            .position(|entry| entry.decision.is_none())
            .unwrap_or(0);
    }

    /// The critique items wait for the person's decisions (as opposed to a
    /// held evaluation round, which waits for a judge override).
    pub fn moderating(&self) -> bool {
        self.board.needs_moderator && self.board.held_calls.is_empty()
    }

    /// The pane's judge is one a held round waits on.
    pub fn held(&self, pane: usize) -> bool {
        self.panes[pane]
            .call_id
            .as_ref()
            .is_some_and(|call_id| self.board.held_calls.contains(call_id))
    }

    /// The pane's role may be skipped without ending the debate.
    pub fn skippable(&self, pane: usize) -> bool {
        !self
            .board
            .required_roles
            .contains(&self.panes[pane].role.slot)
    }

    /// The agents a stuck role may be switched to, by label.
    pub fn set_alternatives(&mut self, labels: impl IntoIterator<Item = String>) {
        self.alternatives = labels.into_iter().map(|label| sanitize(&label)).collect();
    }

    /// The protocol raises items for the moderator (or some are on the
    /// board already): the items region is shown.
    pub fn has_items(&self) -> bool {
        self.info.items.is_some() || !self.board.items.is_empty()
    }

    /// The debate is still running.
    pub fn running(&self) -> bool {
        self.outcome.is_none() && self.engine_error.is_none()
    }

    pub fn pane_index(&self, slot: &str) -> Option<usize> {
        self.panes.iter().position(|pane| pane.role.slot == slot)
    }

    /// Folds one engine update into the state.
    pub fn apply(&mut self, update: Update, now: Instant) {
        // Streamed text changes its pane (and the tokens the header shows,
        // at the next tick); every other update may change anything.
        let streamed = matches!(update, Update::Chunk { .. } | Update::Reasoning { .. });
        if !streamed {
            self.damage = Damage::Whole;
        }
        let now = self.debate_now(now);
        match update {
            Update::Progress(progress) => {
                if progress.stage != self.progress.stage {
                    self.follow_stage(&progress.stage);
                }
                if !progress.finished && self.outcome.is_some() {
                    // Reopened after its verdict: the debate runs again, and
                    // the old verdict is history, not the ending.
                    self.outcome = None;
                    self.report = None;
                    self.show_verdict = false;
                }
                self.progress = progress;
            }
            Update::Board(board) => self.set_board(*board),
            Update::CallStarted {
                call_id,
                slot,
                attempt,
                agent,
            } => self.call_started(call_id, &slot, attempt, agent.to_string(), now),
            Update::Chunk { call_id, text } => self.chunk(&call_id, Segment::Answer, &text, now),
            Update::Reasoning { call_id, text } => {
                self.chunk(&call_id, Segment::Reasoning, &text, now)
            }
            Update::Log(entry) => self.log(entry),
            Update::ModerationNeeded { .. } => {
                // The board that asked for the moderator usually arrives
                // first and has already moved focus; by now the person may
                // be deciding, and the cursor stays where their keys left it.
                if !self.board.needs_moderator {
                    self.focus_first_undecided();
                }
            }
            Update::RawPersisted { .. } => {}
            Update::CallUsage {
                call_id,
                usage,
                cost_usd,
                ..
            } => {
                // Reported figures replace the estimate streamed text gave.
                let (_, estimate) = self.estimates.remove(&call_id).unwrap_or_default();
                if let Some(usage) = usage {
                    self.streamed_estimate = self.streamed_estimate.saturating_sub(estimate);
                    self.totals.input_tokens =
                        self.totals.input_tokens.saturating_add(usage.input_tokens);
                    self.totals.output_tokens = self
                        .totals
                        .output_tokens
                        .saturating_add(usage.output_tokens);
                }
                if let Some(cost) = cost_usd {
                    *self.totals.cost_usd.get_or_insert(0.0) += cost;
                }
            }
            Update::AnswerWanted {
                call_id,
                role,
                prompt,
                template,
            } => self.answer_wanted(call_id, &role, &prompt, template),
            Update::AnswerRejected { call_id, error } => {
                if let Some(human) = self
                    .panes
                    .iter_mut()
                    .filter_map(|pane| pane.human.as_mut())
                    .find(|human| human.call_id == call_id)
                {
                    human.error = Some(sanitize(&error));
                }
            }
            Update::Forecast { step, limit } => {
                self.step = Some(step);
                self.budget = limit;
            }
            Update::BudgetReached(question) => {
                self.layers.retain(|layer| !layer.is_budget());
                if self.read_only().is_some() {
                    let message = format!(
                        "{}; whoever moderates this debate decides",
                        question.describe()
                    );
                    self.flash(message, now);
                } else {
                    self.layers.push(Layer::Budget(Box::new(question)));
                }
            }
            Update::BudgetDecided { decision } => {
                self.layers.retain(|layer| !layer.is_budget());
                let message = match decision {
                    BudgetDecision::Raise { limit } => {
                        self.budget = self.budget.overridden_by(limit);
                        format!("budget raised: {}", self.budget.describe())
                    }
                    BudgetDecision::GoOnce => "this step goes on over the budget".to_string(),
                    BudgetDecision::Stop => {
                        "stopping once the calls under way have answered".to_string()
                    }
                };
                self.flash(message, now);
            }
            Update::Finished(outcome) => {
                // The reason of a failed debate quotes provider errors and
                // command output; the rule names block ids agents chose.
                let outcome = outcome.map_text(sanitize);
                self.outcome = Some(outcome);
                for pane in &mut self.panes {
                    pane.human = None;
                    if matches!(pane.status, PaneStatus::Streaming | PaneStatus::Retrying) {
                        pane.status = PaneStatus::Done;
                    }
                }
                self.layers
                    .retain(|layer| matches!(layer, Layer::Help { .. }));
            }
        }
        if !streamed {
            self.totals.estimated_output = self.streamed_estimate;
        }
    }

    /// Focus follows the debate to the region where the new stage happens,
    /// unless the person moved the focus themselves during this stage.
    fn follow_stage(&mut self, stage: &str) {
        let moved = std::mem::take(&mut self.focus_moved);
        if moved || !self.layers.is_empty() || matches!(self.mode, Mode::Archive(_)) {
            return;
        }
        let focus = self
            .board
            .stages
            .iter()
            .find(|info| info.id == stage)
            .map(|info| info.focus.clone());
        let target = match focus {
            Some(StageFocus::Role(slot)) => self.pane_index(&slot).map(Focus::Pane),
            Some(StageFocus::Items) => Some(Focus::Items),
            Some(StageFocus::Board) => Some(Focus::Board),
            Some(StageFocus::Stay) | None => None,
        };
        if let Some(target) = target {
            self.focus = target;
        }
    }

    fn call_started(
        &mut self,
        call_id: String,
        slot: &Slot,
        attempt: u32,
        agent: String,
        now: Instant,
    ) {
        let Some(index) = self.pane_index(&slot.role) else {
            return;
        };
        // Model names come from flags, files and servers.
        let agent = sanitize(&agent);
        let pane = &mut self.panes[index];
        let heading = format!("{} · round {} · attempt {attempt}", slot.stage, slot.round);
        if pane.doc.source_len() > 0 {
            pane.push_notice(&heading);
        }
        pane.status = if attempt > 1 {
            PaneStatus::Retrying
        } else {
            PaneStatus::Streaming
        };
        if agent.starts_with(HUMAN_PROVIDER) {
            pane.status = PaneStatus::NeedsAnswer;
        } else {
            // The role went to a model (a switch, a retry): no answer is
            // wanted from the person any more.
            pane.human = None;
        }
        pane.agent = agent;
        pane.attempt = attempt;
        pane.stage = slot.stage.clone();
        pane.call_started = Some(now);
        pane.first_chunk = None;
        pane.streamed_chars = 0;
        pane.tokens_per_second = None;
        pane.sanitizer = Sanitizer::new();
        pane.reasoning_sanitizer = Sanitizer::new();
        pane.call_id = Some(call_id.clone());
        pane.cited = None;
        self.pane_by_call.insert(call_id, index);
    }

    fn chunk(&mut self, call_id: &str, segment: Segment, text: &str, now: Instant) {
        let Some(&index) = self.pane_by_call.get(call_id) else {
            return;
        };
        let pane = &mut self.panes[index];
        if pane.call_id.as_deref() != Some(call_id) {
            return;
        }
        let clean = match segment {
            Segment::Answer => pane.sanitizer.push(text),
            Segment::Reasoning => pane.reasoning_sanitizer.push(text),
        };
        pane.doc.push(segment, &clean);
        pane.cards.push(segment, &clean);
        pane.first_chunk.get_or_insert(now);
        pane.last_chunk = Some(now);
        let chars = clean.chars().count();
        pane.streamed_chars += chars;
        let (call_chars, estimate) = self.estimates.entry(call_id.to_string()).or_default();
        *call_chars += chars;
        let now_estimated = (*call_chars as f64 / CHARS_PER_TOKEN).round() as u64;
        self.streamed_estimate = (self.streamed_estimate + now_estimated).saturating_sub(*estimate);
        *estimate = now_estimated;
        self.damage.streamed(index);
    }

    fn raise_override(&mut self, prompt: OverridePrompt) {
        if !self.running() || !matches!(self.mode, Mode::Live) || self.read_only().is_some() {
            return;
        }
        self.layers
            .retain(|layer| !matches!(layer, Layer::Override(open) if open.pane == prompt.pane));
        // Under an open editor the modal waits its turn: a note being typed
        // keeps the keys.
        let position = self
            .layers
            .iter()
            .position(|layer| matches!(layer.context(), Context::Editor | Context::BudgetEditor))
            .unwrap_or(self.layers.len());
        self.layers.insert(position, Layer::Override(prompt));
    }

    fn answer_wanted(
        &mut self,
        call_id: String,
        role: &str,
        prompt: &str,
        template: Option<String>,
    ) {
        let Some(index) = self.pane_index(role) else {
            return;
        };
        let mut prompt_doc = StreamDoc::new();
        prompt_doc.push(Segment::Answer, &sanitize(prompt));
        let template = sanitize(&template.unwrap_or_default());
        let mut editor = TextArea::from(template.lines().map(str::to_string));
        editor.set_placeholder_text("Write the answer here; Ctrl-S submits it.");
        // Long lines wrap on screen only: the answer keeps its own lines.
        editor.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
        let pane = &mut self.panes[index];
        pane.status = PaneStatus::NeedsAnswer;
        pane.human = Some(HumanAnswer {
            call_id,
            prompt: prompt_doc,
            prompt_scroll: Scroll {
                top: 0,
                follow: false,
                held: None,
            },
            prompt_viewport: 0,
            editor,
            error: None,
        });
        let message = format!(
            "{} needs your answer: focus its pane and press e",
            pane.role.title
        );
        self.flash(message, Instant::now());
    }

    /// Shows the end of the debate: the outcome, `summary.md` and the files.
    pub fn show_report(&mut self, summary: &str, paths: Vec<String>) {
        let Some(outcome) = self.outcome.clone() else {
            return;
        };
        let mut doc = StreamDoc::new();
        doc.push(Segment::Answer, &sanitize(summary));
        self.report = Some(VerdictReport {
            outcome,
            summary: doc,
            paths,
            scroll: Scroll {
                top: 0,
                follow: false,
                held: None,
            },
            viewport: 0,
        });
        // An archive opens on its items; the verdict is a key away.
        self.show_verdict = !matches!(self.mode, Mode::Archive(_));
        self.zoomed = false;
        self.damage = Damage::Whole;
    }

    pub fn flash(&mut self, message: String, now: Instant) {
        self.flash = Some((message, now));
        self.damage = Damage::Whole;
    }

    /// Advances the clock-driven parts: elapsed time, tokens per second,
    /// expired flash messages. Returns whether anything visible changed.
    pub fn tick(&mut self, now: Instant) {
        let elapsed = match &self.mode {
            _ if !self.running() => None,
            Mode::Live => Some(now.saturating_duration_since(self.started)),
            Mode::Replay(playback) => Some(playback.recorded_elapsed(now)),
            Mode::Archive(_) => None,
        };
        if let Some(elapsed) = elapsed {
            // The clock is in the header alone.
            if elapsed.as_secs() != self.elapsed.as_secs() {
                self.damage.header();
            }
            self.elapsed = elapsed;
        }
        if self.totals.estimated_output != self.streamed_estimate {
            self.totals.estimated_output = self.streamed_estimate;
            self.damage.header();
        }
        let debate_now = self.debate_now(now);
        for (index, pane) in self.panes.iter_mut().enumerate() {
            if let (Some(first), PaneStatus::Streaming | PaneStatus::Retrying) =
                (pane.first_chunk, pane.status)
            {
                let seconds = debate_now.saturating_duration_since(first).as_secs_f64();
                if seconds >= 0.5 {
                    let rate = pane.streamed_chars as f64 / CHARS_PER_TOKEN / seconds;
                    // The rate shows in the pane's title: its frame is
                    // drawn again where the rate reads differently.
                    let shown = rate_text;
                    if pane.tokens_per_second.map(shown) != Some(shown(rate)) {
                        self.damage.streamed(index);
                    }
                    pane.tokens_per_second = Some(rate);
                }
            }
        }
        if let Some((_, at)) = &self.flash
            && now.saturating_duration_since(*at) > Duration::from_millis(FLASH_MS)
        {
            self.flash = None;
            self.damage = Damage::Whole;
        }
    }

    /// Lays out the text the item under the cursor attacks, while
    /// moderating, unless it was laid out already for the same item, entry
    /// and raw view.
    pub(crate) fn look_up_item_target(&mut self) {
        let item = self
            .board
            .items
            .get(self.item_cursor)
            .filter(|_| self.moderating())
            .map(|entry| &entry.item);
        let Some(item) = item else {
            self.item_target = None;
            self.item_target_key = None;
            return;
        };
        // As a lead pane shows its answer: raw text or cards (`t`).
        let raw = self
            .panes
            .iter()
            .any(|pane| pane.role.group == crate::protocol::RoleGroup::Lead && pane.raw);
        let key = (item.id.clone(), item.target_text.len(), raw);
        if self.item_target_key.as_ref() != Some(&key) {
            self.item_target = target::of(item, raw);
            self.item_target_key = Some(key);
        }
    }
}
