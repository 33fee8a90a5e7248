//! The TUI's state: a fold of the engine's [`Update`]s, plus what the person
//! is doing — focus, scroll positions, open layers, a half-written note.
//!
//! Responsible for turning updates and key presses into state and into
//! [`Command`]s for the engine. Not responsible for drawing (`view` reads
//! this state through `&App`), for the terminal, or for any protocol rule:
//! decisions and overrides go to the engine, and what the board shows comes
//! back from the protocol.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossterm::event::{KeyEvent, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use ratatui_textarea::TextArea;

use crate::agent::human::HUMAN_PROVIDER;
use crate::engine::{Command, Update};
use crate::model::ItemDecision;
use crate::protocol::{Board, Input, LogEntry, LogKind, Outcome, OverrideAction, Progress};
use crate::text::{Sanitizer, sanitize};

use super::keymap::{self, Action, Context};
use super::layout::{self, Region, ScreenLayout};
use super::markdown::{Segment, StreamDoc};
use super::theme::Theme;

/// How much longer "wait longer" gives a call, in milliseconds.
pub const WAIT_LONGER_MS: u64 = 5 * 60 * 1000;
/// Lines one mouse-wheel notch scrolls.
pub const WHEEL_LINES: usize = 3;
/// How long a status message stays in the footer, in milliseconds.
pub const FLASH_MS: u64 = 4000;
/// Rough characters per token, for the live tokens-per-second badge before
/// the provider reports real counts.
const CHARS_PER_TOKEN: f64 = 4.0;

/// One role slot of the debate as the interface introduces it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleInfo {
    /// The slot name the engine uses: `proposer`, `judge.analyst`.
    pub slot: String,
    /// How the pane is titled: `Proposer`, `Analyst`.
    pub title: String,
    /// `provider:model` assigned at the start.
    pub agent: String,
    /// A binding judge (its low scores decide).
    pub binding: bool,
}

/// What the header says about the debate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebateInfo {
    pub topic: String,
    /// `decision review · architecture · generous steelman`.
    pub protocol: String,
    pub run_dir: PathBuf,
    pub roles: Vec<RoleInfo>,
}

/// An agent pane's badge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaneStatus {
    Waiting,
    Streaming,
    Done,
    TimedOut,
    Retrying,
    Skipped,
    Malformed,
    Failed,
    /// A role played by the person: their answer is wanted.
    NeedsAnswer,
}

/// A scroll position that follows the stream while it is at the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scroll {
    /// First visible line when not following.
    pub top: usize,
    pub follow: bool,
}

impl Default for Scroll {
    fn default() -> Self {
        Scroll {
            top: 0,
            follow: true,
        }
    }
}

impl Scroll {
    /// The first visible line for `total` lines in a view `height` tall.
    pub fn first_line(&self, total: usize, height: usize) -> usize {
        let last_page = total.saturating_sub(height);
        if self.follow {
            last_page
        } else {
            self.top.min(last_page)
        }
    }

    /// Moves by `delta` lines; reaching the bottom resumes following, leaving
    /// it stops following.
    pub fn scroll_by(&mut self, delta: isize, total: usize, height: usize) {
        let last_page = total.saturating_sub(height);
        let next = self
            .first_line(total, height)
            .saturating_add_signed(delta)
            .min(last_page);
        self.top = next;
        self.follow = next >= last_page;
    }

    pub fn to_top(&mut self) {
        self.top = 0;
        self.follow = false;
    }

    pub fn to_bottom(&mut self) {
        self.follow = true;
    }
}

/// A role the person plays, while its answer is wanted.
pub struct HumanAnswer {
    pub call_id: String,
    /// The prompt, to read while writing.
    pub prompt: StreamDoc,
    pub editor: TextArea<'static>,
    /// Why the last submitted answer was not accepted.
    pub error: Option<String>,
}

/// One agent's pane.
pub struct AgentPane {
    pub role: RoleInfo,
    /// `provider:model` of the current call.
    pub agent: String,
    pub status: PaneStatus,
    pub doc: StreamDoc,
    pub scroll: Scroll,
    /// The call whose text the pane shows now.
    pub call_id: Option<String>,
    pub attempt: u32,
    pub stage: String,
    call_started: Option<Instant>,
    first_chunk: Option<Instant>,
    streamed_chars: usize,
    /// Output tokens per second of the live call, as last computed.
    pub tokens_per_second: Option<f64>,
    sanitizer: Sanitizer,
    reasoning_sanitizer: Sanitizer,
    pub human: Option<HumanAnswer>,
    /// Lines visible at the last layout.
    pub viewport: usize,
}

impl AgentPane {
    fn new(role: RoleInfo) -> Self {
        AgentPane {
            agent: role.agent.clone(),
            role,
            status: PaneStatus::Waiting,
            doc: StreamDoc::new(),
            scroll: Scroll::default(),
            call_id: None,
            attempt: 0,
            stage: String::new(),
            call_started: None,
            first_chunk: None,
            streamed_chars: 0,
            tokens_per_second: None,
            sanitizer: Sanitizer::new(),
            reasoning_sanitizer: Sanitizer::new(),
            human: None,
            viewport: 0,
        }
    }

    /// Whether a call of this pane is running (and so can be overridden).
    pub fn live_call(&self) -> Option<&str> {
        matches!(
            self.status,
            PaneStatus::Streaming | PaneStatus::Retrying | PaneStatus::NeedsAnswer
        )
        .then_some(self.call_id.as_deref())
        .flatten()
    }
}

/// A call that needs the moderator's attention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverridePrompt {
    pub pane: usize,
    /// What happened, in the protocol's words.
    pub what: String,
    pub kind: LogKind,
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
}

impl Layer {
    pub fn context(&self) -> Context {
        match self {
            Layer::Help { .. } => Context::Help,
            Layer::ConfirmQuit => Context::ConfirmQuit,
            Layer::Override(_) => Context::Override,
            Layer::ItemDetail { .. } => Context::ItemDetail,
            Layer::ChooseAgent { .. } => Context::ChooseAgent,
            Layer::NoteEditor { .. } | Layer::AnswerEditor { .. } => Context::Editor,
        }
    }
}

/// What has focus in the main view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Pane(usize),
    Items,
    Scoreboard,
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
    /// Notes written before the item had a decision, sent with it.
    pending_notes: HashMap<String, String>,
    /// Decisions sent to the engine that its board has not shown yet, by
    /// item id: a board published before the engine saw them must not undo
    /// them on screen.
    unconfirmed: HashMap<String, (ItemDecision, Option<String>)>,
    pub totals: Totals,
    /// Output tokens estimated per call from its streamed text, until the
    /// provider reports the real count.
    estimates: HashMap<String, u64>,
    pub outcome: Option<Outcome>,
    pub report: Option<VerdictReport>,
    pub flash: Option<(String, Instant)>,
    pub started: Instant,
    pub elapsed: Duration,
    pub layout: ScreenLayout,
    pub quit: bool,
    /// Something changed since the last frame.
    pub dirty: bool,
    /// The engine stopped with an error; shown instead of a verdict.
    pub engine_error: Option<String>,
}

impl App {
    pub fn new(mut info: DebateInfo, theme: Theme, now: Instant) -> Self {
        for role in &mut info.roles {
            role.agent = sanitize(&role.agent);
        }
        let panes = info.roles.iter().cloned().map(AgentPane::new).collect();
        App {
            info,
            theme,
            progress: Progress {
                stage: "proposal".into(),
                round: 1,
                finished: false,
            },
            board: Board::default(),
            panes,
            alternatives: Vec::new(),
            pane_by_call: HashMap::new(),
            overridden: std::collections::HashSet::new(),
            transcript: StreamDoc::new(),
            transcript_scroll: Scroll::default(),
            transcript_viewport: 0,
            focus: Focus::Pane(0),
            focus_moved: false,
            zoomed: false,
            show_verdict: false,
            layers: Vec::new(),
            item_cursor: 0,
            pending_notes: HashMap::new(),
            unconfirmed: HashMap::new(),
            totals: Totals::default(),
            estimates: HashMap::new(),
            outcome: None,
            report: None,
            flash: None,
            started: now,
            elapsed: Duration::ZERO,
            layout: ScreenLayout::default(),
            quit: false,
            dirty: true,
            engine_error: None,
        }
    }

    /// The critique items wait for the person's decisions (as opposed to a
    /// held evaluation round, which waits for a judge override).
    pub fn moderating(&self) -> bool {
        self.board.needs_moderator && self.progress.stage == "moderation"
    }

    /// The agents a stuck role may be switched to, by label.
    pub fn set_alternatives(&mut self, labels: impl IntoIterator<Item = String>) {
        self.alternatives = labels.into_iter().map(|label| sanitize(&label)).collect();
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
        self.dirty = true;
        match update {
            Update::Progress(progress) => {
                if progress.stage != self.progress.stage {
                    self.follow_stage(&progress.stage);
                }
                self.progress = progress;
            }
            Update::Board(board) => self.set_board(board),
            Update::CallStarted {
                call_id,
                role,
                agent,
            } => self.call_started(call_id, &role, agent.to_string(), now),
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
                    self.focus = Focus::Items;
                    self.item_cursor = 0;
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
                let estimate = self.estimates.remove(&call_id).unwrap_or(0);
                if let Some(usage) = usage {
                    self.totals.estimated_output =
                        self.totals.estimated_output.saturating_sub(estimate);
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
                    human.error = Some(Sanitizer::new().push(&error));
                }
            }
            Update::Finished(outcome) => {
                // The reason of a failed debate quotes provider errors and
                // command output; the rule names block ids agents chose.
                let outcome = match outcome {
                    Outcome::Decided { verdict, rule } => Outcome::Decided {
                        verdict,
                        rule: sanitize(&rule),
                    },
                    Outcome::Failed { reason } => Outcome::Failed {
                        reason: sanitize(&reason),
                    },
                };
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
    }

    /// Focus follows the debate to the region where the new stage happens,
    /// unless the person moved the focus themselves during this stage.
    fn follow_stage(&mut self, stage: &str) {
        let moved = std::mem::take(&mut self.focus_moved);
        if moved || !self.layers.is_empty() {
            return;
        }
        let target = match stage {
            "proposal" | "revision" => self.pane_index("proposer").map(Focus::Pane),
            "critique" => self.pane_index("critic").map(Focus::Pane),
            "moderation" => Some(Focus::Items),
            "evaluation" => Some(Focus::Scoreboard),
            _ => None,
        };
        if let Some(target) = target {
            self.focus = target;
        }
    }

    fn set_board(&mut self, mut board: Board) {
        sanitize_board(&mut board);
        if board.needs_moderator {
            for entry in &mut board.items {
                let Some((decision, note)) = self.unconfirmed.get(&entry.item.id) else {
                    continue;
                };
                if entry.decision == Some(*decision) {
                    self.unconfirmed.remove(&entry.item.id);
                } else {
                    entry.decision = Some(*decision);
                    entry.note = note.clone();
                }
            }
        } else {
            self.unconfirmed.clear();
        }
        let newly_needed = board.needs_moderator && !self.board.needs_moderator;
        self.board = board;
        if newly_needed {
            self.zoomed = false;
            if self.moderating() {
                self.focus = Focus::Items;
                self.item_cursor = 0;
            } else if let Some(held) = self
                .panes
                .iter()
                .position(|pane| matches!(pane.status, PaneStatus::Malformed | PaneStatus::Skipped))
            {
                // A held evaluation round: the judge it waits on.
                self.focus = Focus::Pane(held);
            }
        }
        self.item_cursor = self
            .item_cursor
            .min(self.board.items.len().saturating_sub(1));
    }

    fn call_started(&mut self, call_id: String, role: &str, agent: String, now: Instant) {
        let Some(index) = self.pane_index(role) else {
            return;
        };
        // Model names come from flags, files and servers.
        let agent = sanitize(&agent);
        let (stage, round, attempt) = parse_call_id(&call_id);
        let pane = &mut self.panes[index];
        let heading = format!("{stage} · round {round} · attempt {attempt}");
        if pane.doc.source_len() > 0 {
            pane.doc.push_notice(&heading);
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
        pane.stage = stage;
        pane.call_started = Some(now);
        pane.first_chunk = None;
        pane.streamed_chars = 0;
        pane.tokens_per_second = None;
        pane.sanitizer = Sanitizer::new();
        pane.reasoning_sanitizer = Sanitizer::new();
        pane.call_id = Some(call_id.clone());
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
        pane.first_chunk.get_or_insert(now);
        let chars = clean.chars().count();
        pane.streamed_chars += chars;
        let estimate = (chars as f64 / CHARS_PER_TOKEN).round() as u64;
        self.totals.estimated_output = self.totals.estimated_output.saturating_add(estimate);
        let per_call = self.estimates.entry(call_id.to_string()).or_default();
        *per_call = per_call.saturating_add(estimate);
    }

    fn log(&mut self, entry: LogEntry) {
        let line = format!(
            "{} {} {}",
            entry.at.with_timezone(&chrono::Local).format("%H:%M:%S"),
            log_mark(entry.kind),
            Sanitizer::new().push(&entry.message)
        );
        self.transcript.push(Segment::Answer, &format!("{line}\n"));
        let Some(call_id) = entry.call_id.as_deref() else {
            return;
        };
        let Some(&index) = self.pane_by_call.get(call_id) else {
            return;
        };
        let pane = &mut self.panes[index];
        let current = pane.call_id.as_deref() == Some(call_id);
        let status = match entry.kind {
            LogKind::Timeout => Some(PaneStatus::TimedOut),
            LogKind::Skip => Some(PaneStatus::Skipped),
            LogKind::Malformed => Some(PaneStatus::Malformed),
            LogKind::Failure => Some(PaneStatus::Failed),
            LogKind::CallFinished => Some(PaneStatus::Done),
            _ => None,
        };
        if let Some(status) = status
            && current
        {
            pane.status = status;
        }
        if matches!(
            entry.kind,
            LogKind::Timeout | LogKind::Failure | LogKind::Malformed | LogKind::Skip
        ) {
            let notice = Sanitizer::new().push(&crate::artifact::render::one_line(&entry.message));
            pane.doc.push_notice(&notice);
            let by_person = self.overridden.contains(call_id);
            let judge = pane.role.slot.starts_with("judge.");
            if entry.kind != LogKind::Skip || (judge && !by_person) {
                self.raise_override(OverridePrompt {
                    pane: index,
                    what: notice,
                    kind: entry.kind,
                });
            }
        }
    }

    fn raise_override(&mut self, prompt: OverridePrompt) {
        if !self.running() {
            return;
        }
        self.layers
            .retain(|layer| !matches!(layer, Layer::Override(open) if open.pane == prompt.pane));
        // Under an open editor the modal waits its turn: a note being typed
        // keeps the keys.
        let position = self
            .layers
            .iter()
            .position(|layer| matches!(layer.context(), Context::Editor))
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
        prompt_doc.push(Segment::Answer, &Sanitizer::new().push(prompt));
        let template = sanitize(&template.unwrap_or_default());
        let mut editor = TextArea::from(template.lines().map(str::to_string));
        editor.set_placeholder_text("Write the answer here; Ctrl-S submits it.");
        let pane = &mut self.panes[index];
        pane.status = PaneStatus::NeedsAnswer;
        pane.human = Some(HumanAnswer {
            call_id,
            prompt: prompt_doc,
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
        doc.push(Segment::Answer, &Sanitizer::new().push(summary));
        self.report = Some(VerdictReport {
            outcome,
            summary: doc,
            paths,
            scroll: Scroll {
                top: 0,
                follow: false,
            },
            viewport: 0,
        });
        self.show_verdict = true;
        self.zoomed = false;
        self.dirty = true;
    }

    pub fn flash(&mut self, message: String, now: Instant) {
        self.flash = Some((message, now));
        self.dirty = true;
    }

    /// Advances the clock-driven parts: elapsed time, tokens per second,
    /// expired flash messages. Returns whether anything visible changed.
    pub fn tick(&mut self, now: Instant) {
        if self.running() {
            let elapsed = now.saturating_duration_since(self.started);
            if elapsed.as_secs() != self.elapsed.as_secs() {
                self.dirty = true;
            }
            self.elapsed = elapsed;
        }
        for pane in &mut self.panes {
            if let (Some(first), PaneStatus::Streaming | PaneStatus::Retrying) =
                (pane.first_chunk, pane.status)
            {
                let seconds = now.saturating_duration_since(first).as_secs_f64();
                if seconds >= 0.5 {
                    pane.tokens_per_second =
                        Some(pane.streamed_chars as f64 / CHARS_PER_TOKEN / seconds);
                }
            }
        }
        if let Some((_, at)) = &self.flash
            && now.saturating_duration_since(*at) > Duration::from_millis(FLASH_MS)
        {
            self.flash = None;
            self.dirty = true;
        }
    }

    /// Lays the screen out for `area` and brings every visible text cache up
    /// to date, so that drawing is a read of finished layouts.
    pub fn prepare(&mut self, area: Rect) {
        self.layout = layout::compute(self, area);
        let theme = self.theme.clone();
        for (region, rect) in self.layout.regions.clone() {
            let inner = layout::inner(rect);
            match region {
                Region::Pane(index) => {
                    let pane = &mut self.panes[index];
                    if let Some(human) = &mut pane.human {
                        human.prompt.layout(inner.width, &theme);
                    }
                    pane.doc.layout(inner.width, &theme);
                    pane.viewport = usize::from(inner.height);
                }
                Region::Transcript => {
                    self.transcript.layout(inner.width, &theme);
                    self.transcript_viewport = usize::from(inner.height);
                }
                Region::Verdict => {
                    if let Some(report) = &mut self.report {
                        report.summary.layout(inner.width.saturating_sub(1), &theme);
                        report.viewport = usize::from(inner.height);
                    }
                }
                Region::Items | Region::Scoreboard => {}
            }
        }
        if let Some(Layer::Help { .. }) = self.layers.last() {}
    }

    /// The contexts that interpret keys now, most specific first.
    pub fn contexts(&self) -> Vec<Context> {
        if let Some(layer) = self.layers.last() {
            return vec![layer.context()];
        }
        let focused = match self.focus {
            Focus::Items => Context::Items,
            _ => Context::Pane,
        };
        vec![focused, Context::Global]
    }

    /// Handles a key press; returns the commands for the engine.
    pub fn handle_key(&mut self, event: KeyEvent, now: Instant) -> Vec<Command> {
        self.dirty = true;
        let contexts = self.contexts();
        let action = contexts
            .iter()
            .find_map(|context| keymap::lookup(*context, &event));
        if contexts == [Context::Editor] && action.is_none() {
            self.edit(event);
            return Vec::new();
        }
        match action {
            Some(action) => self.act(action, now),
            None => Vec::new(),
        }
    }

    fn edit(&mut self, event: KeyEvent) {
        match self.layers.last_mut() {
            Some(Layer::NoteEditor { editor, .. }) => {
                editor.input(event);
            }
            Some(Layer::AnswerEditor { pane }) => {
                if let Some(human) = &mut self.panes[*pane].human {
                    human.editor.input(event);
                }
            }
            _ => {}
        }
    }

    /// Applies one action.
    pub fn act(&mut self, action: Action, now: Instant) -> Vec<Command> {
        match action {
            Action::FocusNext => self.move_focus(1),
            Action::FocusPrev => self.move_focus(-1),
            Action::Zoom => self.zoomed = !self.zoomed,
            Action::ToggleVerdict => {
                if self.report.is_some() {
                    self.show_verdict = !self.show_verdict;
                }
            }
            Action::ScrollUp => self.scroll(-1),
            Action::ScrollDown => self.scroll(1),
            Action::PageUp => self.scroll(-(self.focused_viewport().max(2) as isize - 1)),
            Action::PageDown => self.scroll(self.focused_viewport().max(2) as isize - 1),
            Action::Top => {
                if let Some((scroll, _, _)) = self.focused_scroll() {
                    scroll.to_top();
                }
            }
            Action::Bottom => {
                if let Some((scroll, _, _)) = self.focused_scroll() {
                    scroll.to_bottom();
                }
            }
            Action::ToggleFollow => {
                if let Some((scroll, total, height)) = self.focused_scroll() {
                    if scroll.follow {
                        scroll.top = total.saturating_sub(height);
                        scroll.follow = false;
                    } else {
                        scroll.follow = true;
                    }
                }
            }
            Action::Help => self.layers.push(Layer::Help { scroll: 0 }),
            Action::Quit => {
                if self.running() {
                    self.layers.push(Layer::ConfirmQuit);
                } else {
                    self.quit = true;
                }
            }
            Action::ConfirmYes => match self.layers.pop() {
                Some(Layer::ChooseAgent { pane, cursor }) => {
                    return self.switch_agent(pane, cursor, now);
                }
                _ => self.quit = true,
            },
            Action::SwitchAgent => {
                if let Some(Layer::Override(prompt)) = self.layers.last() {
                    if self.alternatives.is_empty() {
                        self.flash(
                            "no other model is configured; add providers to the config file".into(),
                            now,
                        );
                    } else {
                        let pane = prompt.pane;
                        self.layers.pop();
                        self.layers.push(Layer::ChooseAgent { pane, cursor: 0 });
                    }
                }
            }
            Action::ConfirmNo | Action::Close => {
                self.layers.pop();
            }
            Action::ItemUp | Action::ItemDown => {
                let down = action == Action::ItemDown;
                if let Some(Layer::ChooseAgent { cursor, .. }) = self.layers.last_mut() {
                    let last = self.alternatives.len().saturating_sub(1);
                    *cursor = if down {
                        (*cursor + 1).min(last)
                    } else {
                        cursor.saturating_sub(1)
                    };
                } else if down {
                    self.item_cursor =
                        (self.item_cursor + 1).min(self.board.items.len().saturating_sub(1));
                } else {
                    self.item_cursor = self.item_cursor.saturating_sub(1);
                }
            }
            Action::Accept => return self.decide(ItemDecision::Accept, now),
            Action::Reject => return self.decide(ItemDecision::Reject, now),
            Action::Defer => return self.decide(ItemDecision::Defer, now),
            Action::Note => self.open_note(now),
            Action::OpenItem => {
                if !self.board.items.is_empty() {
                    self.layers.push(Layer::ItemDetail {
                        item: self.item_cursor,
                    });
                }
            }
            Action::Submit => return self.submit(now),
            Action::RetryCall => return self.override_call(OverrideAction::RetryNow, now),
            Action::SkipCall => return self.override_call(OverrideAction::Skip, now),
            Action::WaitLonger => {
                return self.override_call(
                    OverrideAction::WaitLonger {
                        extra_ms: WAIT_LONGER_MS,
                    },
                    now,
                );
            }
            Action::RerunJudge => return self.override_call(OverrideAction::Rerun, now),
            Action::Answer => self.open_answer(now),
            Action::SaveText => return self.save_text(now),
            Action::CancelText => {
                self.layers.pop();
            }
        }
        Vec::new()
    }

    /// Focus order: agent panes, items, scoreboard, transcript.
    fn focus_ring(&self) -> Vec<Focus> {
        let mut ring: Vec<Focus> = (0..self.panes.len()).map(Focus::Pane).collect();
        ring.extend([Focus::Items, Focus::Scoreboard, Focus::Transcript]);
        ring
    }

    fn move_focus(&mut self, step: isize) {
        if self.show_verdict {
            self.show_verdict = false;
        }
        let ring = self.focus_ring();
        let current = ring
            .iter()
            .position(|focus| *focus == self.focus)
            .unwrap_or(0);
        let next = (current as isize + step).rem_euclid(ring.len() as isize) as usize;
        self.focus = ring[next];
        self.focus_moved = true;
    }

    /// Focuses whatever is under the pointer and scrolls it.
    pub fn handle_mouse(&mut self, event: MouseEvent) {
        let delta = match event.kind {
            MouseEventKind::ScrollUp => -(WHEEL_LINES as isize),
            MouseEventKind::ScrollDown => WHEEL_LINES as isize,
            MouseEventKind::Down(_) => 0,
            _ => return,
        };
        let position = Position::new(event.column, event.row);
        let Some(region) = self
            .layout
            .regions
            .iter()
            .find(|(_, rect)| rect.contains(position))
            .map(|(region, _)| *region)
        else {
            return;
        };
        self.dirty = true;
        if self.layers.is_empty() {
            self.focus_moved = true;
            match region {
                Region::Pane(index) => self.focus = Focus::Pane(index),
                Region::Items => self.focus = Focus::Items,
                Region::Scoreboard => self.focus = Focus::Scoreboard,
                Region::Transcript => self.focus = Focus::Transcript,
                Region::Verdict => {}
            }
        }
        if delta != 0 {
            if let Some((scroll, total, height)) = self.region_scroll(region) {
                scroll.scroll_by(delta, total, height);
            } else if region == Region::Items {
                self.item_cursor = if delta < 0 {
                    self.item_cursor.saturating_sub(1)
                } else {
                    (self.item_cursor + 1).min(self.board.items.len().saturating_sub(1))
                };
            }
        }
    }

    fn focused_region(&self) -> Region {
        if self.show_verdict && self.report.is_some() {
            return Region::Verdict;
        }
        match self.focus {
            Focus::Pane(index) => Region::Pane(index),
            Focus::Items => Region::Items,
            Focus::Scoreboard => Region::Scoreboard,
            Focus::Transcript => Region::Transcript,
        }
    }

    fn focused_viewport(&self) -> usize {
        match self.focused_region() {
            Region::Pane(index) => self.panes[index].viewport,
            Region::Transcript => self.transcript_viewport,
            Region::Verdict => self.report.as_ref().map_or(0, |r| r.viewport),
            _ => 0,
        }
    }

    fn focused_scroll(&mut self) -> Option<(&mut Scroll, usize, usize)> {
        let region = self.focused_region();
        self.region_scroll(region)
    }

    fn region_scroll(&mut self, region: Region) -> Option<(&mut Scroll, usize, usize)> {
        match region {
            Region::Pane(index) => {
                let pane = &mut self.panes[index];
                let total = pane.doc.line_count();
                Some((&mut pane.scroll, total, pane.viewport))
            }
            Region::Transcript => Some((
                &mut self.transcript_scroll,
                self.transcript.line_count(),
                self.transcript_viewport,
            )),
            Region::Verdict => {
                let report = self.report.as_mut()?;
                let total = report.summary.line_count() + report.paths.len() + 4;
                Some((&mut report.scroll, total, report.viewport))
            }
            Region::Items | Region::Scoreboard => None,
        }
    }

    fn scroll(&mut self, delta: isize) {
        if let Some(Layer::Help { scroll }) = self.layers.last_mut() {
            *scroll = scroll.saturating_add_signed(delta);
            return;
        }
        if let Some((scroll, total, height)) = self.focused_scroll() {
            scroll.scroll_by(delta, total, height);
        }
    }

    /// The item the keys act on: the open detail's, else the cursor's.
    fn current_item(&self) -> Option<usize> {
        let index = match self.layers.last() {
            Some(Layer::ItemDetail { item }) => *item,
            _ => self.item_cursor,
        };
        (index < self.board.items.len()).then_some(index)
    }

    fn decide(&mut self, decision: ItemDecision, now: Instant) -> Vec<Command> {
        if !self.moderating() {
            self.flash(
                "the items can be decided once the critique is in".into(),
                now,
            );
            return Vec::new();
        }
        let Some(index) = self.current_item() else {
            return Vec::new();
        };
        let entry = &mut self.board.items[index];
        let note = self
            .pending_notes
            .remove(&entry.item.id)
            .or_else(|| entry.note.clone());
        // Shown at once; the protocol's board confirms it.
        entry.decision = Some(decision);
        entry.note = note.clone();
        let item_id = entry.item.id.clone();
        self.unconfirmed
            .insert(item_id.clone(), (decision, note.clone()));
        if matches!(self.layers.last(), Some(Layer::ItemDetail { .. })) {
            self.layers.pop();
        }
        self.item_cursor = self.next_undecided(index).unwrap_or(index);
        vec![Command::Moderator(Input::ItemDecided {
            item_id,
            decision,
            note,
        })]
    }

    /// The first undecided item after `index`, wrapping around.
    fn next_undecided(&self, index: usize) -> Option<usize> {
        let count = self.board.items.len();
        (1..count)
            .map(|step| (index + step) % count)
            .find(|candidate| self.board.items[*candidate].decision.is_none())
    }

    fn open_note(&mut self, now: Instant) {
        if !self.moderating() {
            self.flash(
                "notes go with decisions, once the critique is in".into(),
                now,
            );
            return;
        }
        let Some(index) = self.current_item() else {
            return;
        };
        let entry = &self.board.items[index];
        let existing = self
            .pending_notes
            .get(&entry.item.id)
            .cloned()
            .or_else(|| entry.note.clone())
            .unwrap_or_default();
        let mut editor = TextArea::from(existing.lines().map(str::to_string));
        editor.set_placeholder_text("Why? (Ctrl-S saves, Esc cancels)");
        editor.move_cursor(ratatui_textarea::CursorMove::Bottom);
        editor.move_cursor(ratatui_textarea::CursorMove::End);
        self.layers.push(Layer::NoteEditor {
            item: index,
            editor: Box::new(editor),
        });
    }

    fn open_answer(&mut self, now: Instant) {
        let Focus::Pane(index) = self.focus else {
            return;
        };
        if self.panes[index].human.is_some() {
            self.zoomed = true;
            self.layers.push(Layer::AnswerEditor { pane: index });
        } else {
            self.flash("this role is not waiting for your answer".into(), now);
        }
    }

    fn save_text(&mut self, now: Instant) -> Vec<Command> {
        match self.layers.pop() {
            Some(Layer::NoteEditor { item, editor }) => {
                let note = editor.lines().join("\n").trim().to_string();
                let entry = &mut self.board.items[item];
                let note = (!note.is_empty()).then_some(note);
                match entry.decision {
                    Some(decision) => {
                        entry.note = note.clone();
                        self.unconfirmed
                            .insert(entry.item.id.clone(), (decision, note.clone()));
                        vec![Command::Moderator(Input::ItemDecided {
                            item_id: entry.item.id.clone(),
                            decision,
                            note,
                        })]
                    }
                    None => {
                        if let Some(note) = note {
                            let item_id = entry.item.id.clone();
                            let message = format!("note kept; it goes with {item_id}'s decision");
                            self.pending_notes.insert(item_id, note);
                            self.flash(message, now);
                        }
                        Vec::new()
                    }
                }
            }
            Some(Layer::AnswerEditor { pane }) => {
                let Some(human) = &mut self.panes[pane].human else {
                    return Vec::new();
                };
                human.error = None;
                let command = Command::HumanAnswer {
                    call_id: human.call_id.clone(),
                    answer: human.editor.lines().join("\n"),
                };
                self.flash("answer sent; the parser checks it".into(), now);
                vec![command]
            }
            Some(other) => {
                self.layers.push(other);
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    fn submit(&mut self, now: Instant) -> Vec<Command> {
        if !self.moderating() {
            self.flash("nothing to submit".into(), now);
            return Vec::new();
        }
        let undecided: Vec<&str> = self
            .board
            .items
            .iter()
            .filter(|entry| entry.decision.is_none())
            .map(|entry| entry.item.id.as_str())
            .collect();
        if !undecided.is_empty() {
            let message = format!("decide every item first: {} open", undecided.join(", "));
            self.flash(message, now);
            return Vec::new();
        }
        vec![Command::Moderator(Input::ModerationSubmitted)]
    }

    /// The pane an override acts on: the modal's, else the focused pane.
    fn override_target(&self) -> Option<usize> {
        match self.layers.last() {
            Some(Layer::Override(prompt)) => Some(prompt.pane),
            _ => match self.focus {
                Focus::Pane(index) => Some(index),
                _ => None,
            },
        }
    }

    /// Gives the pane's role to alternative `choice`, then retries its
    /// running call (or re-runs it when its round waits on it).
    fn switch_agent(&mut self, pane: usize, choice: usize, now: Instant) -> Vec<Command> {
        let role = self.panes[pane].role.slot.clone();
        let held = self.board.needs_moderator
            && matches!(
                self.panes[pane].status,
                PaneStatus::Malformed | PaneStatus::Skipped
            );
        let then = if held {
            self.panes[pane]
                .call_id
                .clone()
                .map(|call_id| Input::Override {
                    call_id,
                    action: OverrideAction::Rerun,
                })
        } else {
            self.panes[pane].live_call().map(|call_id| Input::Override {
                call_id: call_id.to_string(),
                action: OverrideAction::RetryNow,
            })
        };
        if let Some(Input::Override { call_id, .. }) = &then {
            self.overridden.insert(call_id.clone());
        }
        let label = self.alternatives.get(choice).cloned().unwrap_or_default();
        self.flash(format!("{role} switches to {label}"), now);
        vec![Command::SwitchAgent { role, choice, then }]
    }

    fn override_call(&mut self, action: OverrideAction, now: Instant) -> Vec<Command> {
        let Some(index) = self.override_target() else {
            return Vec::new();
        };
        if matches!(self.layers.last(), Some(Layer::Override(_))) {
            self.layers.pop();
        }
        let pane = &self.panes[index];
        if action == OverrideAction::Skip && !pane.role.slot.starts_with("judge.") {
            let message = format!(
                "{} cannot be skipped: the debate needs it. Retry it, wait longer or switch its model",
                pane.role.title
            );
            self.flash(message, now);
            return Vec::new();
        }
        // A malformed or skipped judge of a held round has no live call:
        // re-running it or going on without it names its last call.
        let held = self.board.needs_moderator
            && matches!(pane.status, PaneStatus::Malformed | PaneStatus::Skipped);
        let call_id = match action {
            OverrideAction::Rerun if held => pane.call_id.clone(),
            OverrideAction::Rerun => None,
            OverrideAction::Skip if held => pane.call_id.clone(),
            _ => pane.live_call().map(str::to_string),
        };
        let Some(call_id) = call_id else {
            let message = match action {
                OverrideAction::Rerun => format!(
                    "{}: only a malformed or skipped judge of a round still open can be re-run",
                    pane.role.title
                ),
                _ => format!("{} has no running call to override", pane.role.title),
            };
            self.flash(message, now);
            return Vec::new();
        };
        self.overridden.insert(call_id.clone());
        vec![Command::Moderator(Input::Override { call_id, action })]
    }
}

/// Agent text on the board (items, block ids, reasons) made inert once, on
/// arrival.
fn sanitize_board(board: &mut Board) {
    let clean = |text: &mut String| *text = Sanitizer::new().push(text);
    for entry in &mut board.items {
        let item = &mut entry.item;
        for field in [
            &mut item.id,
            &mut item.target,
            &mut item.severity,
            &mut item.category,
            &mut item.text,
            &mut item.preface,
        ] {
            clean(field);
        }
        if let Some(note) = &mut entry.note {
            clean(note);
        }
    }
    if let Some(scoreboard) = &mut board.scoreboard {
        scoreboard.blocks.iter_mut().for_each(clean);
        for column in &mut scoreboard.judges {
            if let crate::protocol::JudgeState::Malformed(reason)
            | crate::protocol::JudgeState::Skipped(reason) = &mut column.state
            {
                clean(reason);
            }
        }
        if let Some(implied) = &mut scoreboard.implied {
            clean(&mut implied.rule);
        }
    }
}

/// `(stage, round, attempt)` of a call id `role/stage/rN/aN`.
pub fn parse_call_id(call_id: &str) -> (String, u32, u32) {
    let mut parts = call_id.rsplit('/');
    let attempt = parts
        .next()
        .and_then(|part| part.strip_prefix('a'))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let round = parts
        .next()
        .and_then(|part| part.strip_prefix('r'))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let stage = parts.next().unwrap_or("").to_string();
    (stage, round, attempt)
}

/// A one-character mark per kind of transcript line.
pub fn log_mark(kind: LogKind) -> &'static str {
    match kind {
        LogKind::Stage => "▸",
        LogKind::CallStarted => "→",
        LogKind::CallFinished => "✓",
        LogKind::Timeout => "⏱",
        LogKind::Cancel => "✗",
        LogKind::Retry => "↻",
        LogKind::Skip => "⤼",
        LogKind::Failure => "!",
        LogKind::Malformed => "?",
        LogKind::Moderation => "⚖",
        LogKind::Override => "☛",
        LogKind::Verdict => "★",
        LogKind::Note => "·",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentInfo;
    use crate::protocol::{BoardItem, ModerationItem};
    use crossterm::event::{KeyCode, KeyModifiers, MouseButton};

    fn role(slot: &str, title: &str) -> RoleInfo {
        RoleInfo {
            slot: slot.into(),
            title: title.into(),
            agent: "script:test".into(),
            binding: slot == "judge.analyst",
        }
    }

    fn app() -> App {
        let info = DebateInfo {
            topic: "Should we?".into(),
            protocol: "decision review".into(),
            run_dir: PathBuf::from("/tmp/run"),
            roles: vec![
                role("proposer", "Proposer"),
                role("critic", "Critic"),
                role("judge.analyst", "Analyst"),
            ],
        };
        let mut app = App::new(info, Theme::builtin("dark").unwrap(), Instant::now());
        app.prepare(Rect::new(0, 0, 200, 60));
        app
    }

    fn key(app: &mut App, code: KeyCode) -> Vec<Command> {
        app.handle_key(KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
    }

    fn items(count: usize) -> Board {
        Board {
            stages: vec!["proposal".into(), "moderation".into()],
            scoreboard: None,
            items: (1..=count)
                .map(|n| BoardItem {
                    item: ModerationItem {
                        id: format!("c{n}"),
                        target: "b1".into(),
                        severity: "major".into(),
                        category: "risk".into(),
                        text: format!("item {n}"),
                        preface: String::new(),
                    },
                    decision: None,
                    note: None,
                })
                .collect(),
            needs_moderator: true,
        }
    }

    fn start(app: &mut App, call_id: &str, role: &str) {
        let agent = AgentInfo {
            provider: "script".into(),
            model: "test".into(),
        };
        app.apply(
            Update::CallStarted {
                call_id: call_id.into(),
                role: role.into(),
                agent,
            },
            Instant::now(),
        );
    }

    fn decided(command: &Command) -> (String, ItemDecision, Option<String>) {
        match command {
            Command::Moderator(Input::ItemDecided {
                item_id,
                decision,
                note,
            }) => (item_id.clone(), *decision, note.clone()),
            other => panic!("not a decision: {other:?}"),
        }
    }

    #[test]
    fn items_take_focus_and_each_decision_goes_out_at_once() {
        let mut app = app();
        app.progress.stage = "moderation".into();
        app.apply(Update::Board(items(3)), Instant::now());
        assert_eq!(app.focus, Focus::Items);
        let sent = key(&mut app, KeyCode::Char('a'));
        assert_eq!(decided(&sent[0]), ("c1".into(), ItemDecision::Accept, None));
        assert_eq!(app.item_cursor, 1, "the cursor moves to the next open item");
        let sent = key(&mut app, KeyCode::Char('r'));
        assert_eq!(decided(&sent[0]).1, ItemDecision::Reject);
        assert!(
            key(&mut app, KeyCode::Char('s')).is_empty(),
            "c3 is still open"
        );
        assert!(app.flash.as_ref().unwrap().0.contains("c3"));
        key(&mut app, KeyCode::Char('d'));
        let sent = key(&mut app, KeyCode::Char('s'));
        assert!(matches!(
            sent[..],
            [Command::Moderator(Input::ModerationSubmitted)]
        ));
    }

    #[test]
    fn a_note_written_first_travels_with_the_decision() {
        let mut app = app();
        app.progress.stage = "moderation".into();
        app.apply(Update::Board(items(2)), Instant::now());
        key(&mut app, KeyCode::Char('n'));
        assert_eq!(app.contexts(), vec![Context::Editor]);
        for c in "ask finance".chars() {
            assert!(
                key(&mut app, KeyCode::Char(c)).is_empty(),
                "typing sends nothing"
            );
        }
        let saved = app.handle_key(
            KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL),
            Instant::now(),
        );
        assert!(saved.is_empty(), "no decision yet: the note waits");
        let sent = key(&mut app, KeyCode::Char('d'));
        assert_eq!(
            decided(&sent[0]),
            ("c1".into(), ItemDecision::Defer, Some("ask finance".into()))
        );
        // A note on a decided item re-sends the decision with it; Esc cancels.
        app.item_cursor = 0;
        key(&mut app, KeyCode::Char('n'));
        key(&mut app, KeyCode::Esc);
        assert!(app.layers.is_empty());
    }

    #[test]
    fn decisions_wait_for_the_critique() {
        let mut app = app();
        app.progress.stage = "moderation".into();
        let mut board = items(1);
        board.needs_moderator = false;
        app.apply(Update::Board(board), Instant::now());
        app.focus = Focus::Items;
        assert!(key(&mut app, KeyCode::Char('a')).is_empty());
    }

    #[test]
    fn overrides_name_the_live_call_from_the_modal_or_the_pane() {
        let mut app = app();
        start(&mut app, "judge.analyst/evaluation/r1/a1", "judge.analyst");
        app.apply(
            Update::Log(LogEntry {
                at: chrono::Utc::now(),
                kind: LogKind::Timeout,
                call_id: Some("judge.analyst/evaluation/r1/a1".into()),
                message: "judge.analyst produced no answer within 6 s".into(),
            }),
            Instant::now(),
        );
        assert!(matches!(app.layers.last(), Some(Layer::Override(_))));
        assert_eq!(app.panes[2].status, PaneStatus::TimedOut);
        start(&mut app, "judge.analyst/evaluation/r1/a2", "judge.analyst");
        let sent = key(&mut app, KeyCode::Char('r'));
        assert!(app.layers.is_empty(), "the modal closes");
        let [Command::Moderator(Input::Override { call_id, action })] = &sent[..] else {
            panic!("{sent:?}")
        };
        assert_eq!(call_id, "judge.analyst/evaluation/r1/a2");
        assert_eq!(*action, OverrideAction::RetryNow);
        app.focus = Focus::Pane(2);
        let sent = key(&mut app, KeyCode::Char('W'));
        assert!(matches!(
            &sent[..],
            [Command::Moderator(Input::Override {
                action: OverrideAction::WaitLonger {
                    extra_ms: WAIT_LONGER_MS
                },
                ..
            })]
        ));
        app.focus = Focus::Pane(0);
        assert!(
            key(&mut app, KeyCode::Char('S')).is_empty(),
            "the proposer is not running"
        );
    }

    #[test]
    fn switching_a_stuck_role_to_another_model_retries_its_call() {
        let mut app = app();
        app.alternatives = vec!["openai:gpt-4.1".into(), "anthropic:claude".into()];
        start(&mut app, "critic/critique/r1/a2", "critic");
        app.layers.push(Layer::Override(OverridePrompt {
            pane: 1,
            what: "critic failed".into(),
            kind: LogKind::Failure,
        }));
        key(&mut app, KeyCode::Char('c'));
        assert_eq!(app.contexts(), vec![Context::ChooseAgent]);
        key(&mut app, KeyCode::Char('j'));
        let sent = key(&mut app, KeyCode::Enter);
        let [Command::SwitchAgent { role, choice, then }] = &sent[..] else {
            panic!("{sent:?}")
        };
        assert_eq!((role.as_str(), *choice), ("critic", 1));
        assert_eq!(
            then,
            &Some(Input::Override {
                call_id: "critic/critique/r1/a2".into(),
                action: OverrideAction::RetryNow
            })
        );
        assert!(app.layers.is_empty());
    }

    #[test]
    fn a_held_round_focuses_its_judge_and_m_reruns_it() {
        let mut app = app();
        app.apply(
            Update::Progress(Progress {
                stage: "evaluation".into(),
                round: 1,
                finished: false,
            }),
            Instant::now(),
        );
        start(&mut app, "judge.analyst/evaluation/r1/a1", "judge.analyst");
        app.apply(
            Update::Log(LogEntry {
                at: chrono::Utc::now(),
                kind: LogKind::Malformed,
                call_id: Some("judge.analyst/evaluation/r1/a1".into()),
                message: "analyst: output unusable".into(),
            }),
            Instant::now(),
        );
        assert!(matches!(app.layers.last(), Some(Layer::Override(_))));
        key(&mut app, KeyCode::Esc);
        let mut held = items(1);
        held.items[0].decision = Some(ItemDecision::Accept);
        app.focus = Focus::Items;
        app.apply(Update::Board(held), Instant::now());
        assert!(!app.moderating(), "a held round is not the items' turn");
        assert_eq!(
            app.focus,
            Focus::Pane(2),
            "focus goes to the judge it waits on"
        );
        let sent = key(&mut app, KeyCode::Char('M'));
        assert_eq!(
            sent,
            vec![Command::Moderator(Input::Override {
                call_id: "judge.analyst/evaluation/r1/a1".into(),
                action: OverrideAction::Rerun,
            })]
        );
        app.focus = Focus::Items;
        assert!(
            key(&mut app, KeyCode::Char('a')).is_empty(),
            "items are decided already"
        );
    }

    #[test]
    fn a_role_given_to_a_model_drops_the_persons_editor() {
        let mut app = app();
        app.apply(
            Update::AnswerWanted {
                call_id: "critic/critique/r1/a1".into(),
                role: "critic".into(),
                prompt: "critique this".into(),
                template: Some("critiques:\n  - target_block: b1\u{1b}[31m".into()),
            },
            Instant::now(),
        );
        let human = app.panes[1].human.as_ref().unwrap();
        assert!(
            !human.editor.lines().join("\n").contains('\u{1b}'),
            "templates are sanitised too"
        );
        start(&mut app, "critic/critique/r1/a2", "critic");
        assert!(app.panes[1].human.is_none());
        assert_eq!(app.panes[1].status, PaneStatus::Retrying);
    }

    #[test]
    fn agent_text_is_made_inert_on_arrival() {
        let mut app = app();
        start(&mut app, "proposer/proposal/r1/a1", "proposer");
        app.apply(
            Update::Chunk {
                call_id: "proposer/proposal/r1/a1".into(),
                text: "safe \u{1b}]52;c;ZXZpbA==\u{7}text \u{1b}[2J\u{202e}end\n".into(),
            },
            Instant::now(),
        );
        app.prepare(Rect::new(0, 0, 200, 60));
        let text: String = app.panes[0]
            .doc
            .lines(0, 10)
            .iter()
            .flat_map(|line| line.spans.iter().map(|span| span.content.to_string()))
            .collect();
        assert!(text.contains("safe text end"), "{text:?}");
        assert!(!text.chars().any(|c| c.is_control() || c == '\u{202e}'));
    }

    #[test]
    fn stale_chunks_of_a_replaced_attempt_are_dropped() {
        let mut app = app();
        start(&mut app, "critic/critique/r1/a1", "critic");
        start(&mut app, "critic/critique/r1/a2", "critic");
        app.apply(
            Update::Chunk {
                call_id: "critic/critique/r1/a1".into(),
                text: "late".into(),
            },
            Instant::now(),
        );
        assert_eq!(app.panes[1].doc.source_len(), 0);
    }

    #[test]
    fn quit_asks_while_running_and_not_after_the_verdict() {
        let mut app = app();
        key(&mut app, KeyCode::Char('q'));
        assert!(!app.quit);
        key(&mut app, KeyCode::Char('n'));
        assert!(app.layers.is_empty() && !app.quit);
        app.apply(
            Update::Finished(Outcome::Decided {
                verdict: crate::model::Verdict::Adopt,
                rule: "all checks passed".into(),
            }),
            Instant::now(),
        );
        key(&mut app, KeyCode::Char('q'));
        assert!(app.quit);
    }

    #[test]
    fn the_wheel_scrolls_the_pane_under_the_pointer() {
        let mut app = app();
        start(&mut app, "proposer/proposal/r1/a1", "proposer");
        let text: String = (0..200).map(|n| format!("line {n}\n")).collect();
        app.apply(
            Update::Chunk {
                call_id: "proposer/proposal/r1/a1".into(),
                text,
            },
            Instant::now(),
        );
        app.focus = Focus::Transcript;
        app.prepare(Rect::new(0, 0, 200, 60));
        let proposer = app.layout.rect(Region::Pane(0)).unwrap();
        let wheel = |kind| MouseEvent {
            kind,
            column: proposer.x + 2,
            row: proposer.y + 2,
            modifiers: KeyModifiers::NONE,
        };
        app.handle_mouse(wheel(MouseEventKind::ScrollUp));
        assert_eq!(app.focus, Focus::Pane(0));
        assert!(!app.panes[0].scroll.follow, "scrolling up stops following");
        app.handle_mouse(wheel(MouseEventKind::ScrollDown));
        assert!(
            app.panes[0].scroll.follow,
            "back at the bottom it follows again"
        );
        app.handle_mouse(wheel(MouseEventKind::Down(MouseButton::Left)));
    }

    #[test]
    fn scrolling_up_stops_following_and_the_bottom_resumes_it() {
        let mut scroll = Scroll::default();
        assert_eq!(scroll.first_line(100, 10), 90);
        scroll.scroll_by(-5, 100, 10);
        assert!(!scroll.follow);
        assert_eq!(scroll.first_line(100, 10), 85);
        // New text arrives: the view stays where the reader is.
        assert_eq!(scroll.first_line(150, 10), 85);
        scroll.scroll_by(100, 150, 10);
        assert!(scroll.follow);
        assert_eq!(scroll.first_line(200, 10), 190);
    }

    fn app_with_items(ids: &[&str]) -> App {
        let info = DebateInfo {
            topic: "topic".into(),
            protocol: "decision review".into(),
            run_dir: PathBuf::from("out"),
            roles: Vec::new(),
        };
        let mut app = App::new(info, Theme::default(), Instant::now());
        app.progress.stage = "moderation".into();
        let items = ids
            .iter()
            .map(|id| crate::protocol::BoardItem {
                item: crate::protocol::ModerationItem {
                    id: id.to_string(),
                    target: "b1".into(),
                    severity: "major".into(),
                    category: "risk".into(),
                    text: format!("item {id}"),
                    preface: String::new(),
                },
                decision: None,
                note: None,
            })
            .collect();
        app.apply(
            Update::Board(Board {
                items,
                needs_moderator: true,
                ..Board::default()
            }),
            Instant::now(),
        );
        app
    }

    fn press(app: &mut App, key: char) -> Vec<Command> {
        let event = KeyEvent::new(
            crossterm::event::KeyCode::Char(key),
            crossterm::event::KeyModifiers::NONE,
        );
        app.handle_key(event, Instant::now())
    }

    #[test]
    fn a_late_moderation_request_keeps_the_cursor_where_the_keys_left_it() {
        let mut app = app_with_items(&["c1", "c2", "c3"]);
        assert_eq!((app.focus, app.item_cursor), (Focus::Items, 0));
        press(&mut app, 'a');
        // The engine's request follows the board that already showed the
        // items; the person has decided c1 in between.
        app.apply(
            Update::ModerationNeeded { items: Vec::new() },
            Instant::now(),
        );
        let commands = press(&mut app, 'r');
        let [
            Command::Moderator(Input::ItemDecided {
                item_id, decision, ..
            }),
        ] = commands.as_slice()
        else {
            panic!("one decision, got {commands:?}");
        };
        assert_eq!((item_id.as_str(), *decision), ("c2", ItemDecision::Reject));
    }

    #[test]
    fn a_board_sent_before_a_decision_arrived_does_not_undo_it() {
        let mut app = app_with_items(&["c1", "c2"]);
        let stale = app.board.clone();
        press(&mut app, 'a');
        press(&mut app, 'r');
        // The board the engine published before it saw either decision.
        app.apply(Update::Board(stale.clone()), Instant::now());
        let shown: Vec<_> = app.board.items.iter().map(|entry| entry.decision).collect();
        assert_eq!(
            shown,
            [Some(ItemDecision::Accept), Some(ItemDecision::Reject)]
        );
        assert!(matches!(
            press(&mut app, 's').as_slice(),
            [Command::Moderator(Input::ModerationSubmitted)]
        ));
        // Once the engine's board shows a decision, the board is believed
        // again: a later change made elsewhere is not masked.
        let mut confirmed = stale;
        confirmed.items[0].decision = Some(ItemDecision::Accept);
        confirmed.items[1].decision = Some(ItemDecision::Reject);
        app.apply(Update::Board(confirmed.clone()), Instant::now());
        confirmed.items[0].decision = Some(ItemDecision::Defer);
        app.apply(Update::Board(confirmed), Instant::now());
        assert_eq!(app.board.items[0].decision, Some(ItemDecision::Defer));
    }

    #[test]
    fn call_ids_split_into_stage_round_attempt() {
        assert_eq!(
            parse_call_id("judge.analyst/evaluation/r2/a1"),
            ("evaluation".into(), 2, 1)
        );
        assert_eq!(
            parse_call_id("proposer/proposal/r1/a2"),
            ("proposal".into(), 1, 2)
        );
    }
}
