//! What keys and the mouse do to the interface's state: focus, scrolling,
//! layers, decisions on items, overrides, typed answers, the pace of a
//! replay. Every action comes from the key table in `keymap`, and an action
//! the table does not offer in the interface's mode is not done; what goes to
//! the engine is returned as [`Command`]s.

use std::time::Instant;

use crossterm::event::{KeyEvent, MouseEvent, MouseEventKind};
use ratatui::layout::Position;
use ratatui_textarea::TextArea;

use crate::engine::{BudgetDecision, Command};
use crate::protocol::ItemDecision;
use crate::protocol::budget::Budget;
use crate::protocol::{Input, OverrideAction, Ruler};

use super::super::keymap::{self, Action, Context};
use super::super::layout::Region;
use super::Damage;
use super::{App, Focus, Layer, Mode, Scroll, WAIT_LONGER_MS, WHEEL_LINES};

impl App {
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
        self.damage = Damage::Whole;
        let contexts = self.contexts();
        let mode = self.key_mode();
        let action = contexts
            .iter()
            .find_map(|context| keymap::lookup(*context, mode, &event));
        if matches!(contexts[..], [Context::Editor | Context::BudgetEditor]) && action.is_none() {
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
            Some(Layer::NoteEditor { editor, .. } | Layer::BudgetEditor { editor, .. }) => {
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

    /// Applies one action, unless no key offers it in this mode.
    pub fn act(&mut self, action: Action, now: Instant) -> Vec<Command> {
        if !keymap::allowed(action, self.key_mode()) {
            return Vec::new();
        }
        // What a replay's keys cannot do changes the debate: refused where
        // another person moderates it.
        if let Some(why) = self.read_only()
            && !keymap::allowed(action, keymap::Mode::Replay)
        {
            let message = format!("read-only: {why}");
            self.flash(message, now);
            return Vec::new();
        }
        let archive = matches!(self.mode, Mode::Archive(_));
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
            Action::PageUp => self.scroll(-(self.page_rows().max(2) as isize - 1)),
            Action::PageDown => self.scroll(self.page_rows().max(2) as isize - 1),
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
                        scroll.top = scroll.first_line(total, height);
                        scroll.follow = false;
                    } else {
                        scroll.follow = true;
                    }
                    scroll.held = None;
                }
            }
            Action::Help => self.layers.push(Layer::Help { scroll: 0 }),
            Action::ToggleRaw => match self.focused_region() {
                Region::Pane(index) => self.panes[index].toggle_raw(),
                _ => self.flash(
                    "t switches an agent's pane between its cards and its raw text".into(),
                    now,
                ),
            },
            Action::Quit => {
                // Only a running debate is stopped by quitting, and only
                // when it runs here: leaving `quorum attach` stops nothing.
                if self.running() && matches!(self.mode, Mode::Live) && self.attached.is_none() {
                    self.layers.push(Layer::ConfirmQuit);
                } else {
                    self.quit = true;
                }
            }
            Action::ConfirmYes => match self.layers.pop() {
                Some(Layer::ChooseAgent { pane, cursor }) => {
                    return self.switch_agent(pane, cursor, now);
                }
                Some(Layer::ConfirmRetry { pane }) => {
                    return self.override_pane(pane, OverrideAction::RetryNow, now);
                }
                Some(Layer::ConfirmSettle { item, decision }) => {
                    return self.settle(item, decision, now);
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
                    self.item_scroll = 0;
                } else {
                    self.item_cursor = self.item_cursor.saturating_sub(1);
                    self.item_scroll = 0;
                }
            }
            Action::Accept if archive => self.ask_to_settle(ItemDecision::Accept, now),
            Action::Reject if archive => self.ask_to_settle(ItemDecision::Reject, now),
            Action::Note if archive => self.open_settlement_note(now),
            Action::Accept => return self.decide(ItemDecision::Accept, now),
            Action::Reject => return self.decide(ItemDecision::Reject, now),
            Action::Defer => return self.decide(ItemDecision::Defer, now),
            Action::Note => self.open_note(now),
            Action::OpenItem => {
                if !self.board.items.is_empty() {
                    self.layers.push(Layer::ItemDetail {
                        item: self.item_cursor,
                        scroll: 0,
                    });
                }
            }
            Action::Submit => return self.submit(now),
            Action::RetryCall => return self.retry(now),
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
                // Leaving the budget's editor goes back to its question:
                // the step is still held.
                if let Some(Layer::BudgetEditor { question, .. }) = self.layers.pop() {
                    self.layers.push(Layer::Budget(question));
                }
            }
            Action::RaiseBudget => {
                if let Some(Layer::Budget(question)) = self.layers.pop() {
                    let mut editor = TextArea::from([question.suggested().describe()]);
                    editor
                        .set_placeholder_text("$5 or 300,000 tokens (Enter saves, Esc goes back)");
                    editor.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
                    editor.move_cursor(ratatui_textarea::CursorMove::End);
                    self.layers.push(Layer::BudgetEditor {
                        question,
                        editor: Box::new(editor),
                    });
                }
            }
            Action::GoOnce | Action::StopHere => {
                if matches!(self.layers.last(), Some(Layer::Budget(_))) {
                    self.layers.pop();
                    let decision = match action {
                        Action::GoOnce => BudgetDecision::GoOnce,
                        _ => BudgetDecision::Stop,
                    };
                    return vec![Command::Budget(decision)];
                }
            }
            Action::TogglePause | Action::Faster | Action::Slower => {
                if let Mode::Replay(playback) = &mut self.mode {
                    match action {
                        Action::TogglePause => playback.toggle_pause(now),
                        Action::Faster => playback.set_speed(playback.speed * 2.0, now),
                        _ => playback.set_speed(playback.speed / 2.0, now),
                    }
                }
            }
        }
        Vec::new()
    }

    /// Focus order: agent panes as laid out (row by row; not those the
    /// moderation layout sets aside), then the items and the board when the
    /// protocol has them, then the transcript.
    fn focus_ring(&self) -> Vec<Focus> {
        let mut ring: Vec<Focus> = self
            .pane_rows()
            .into_iter()
            .flatten()
            .filter(|index| !self.set_aside(*index))
            .map(Focus::Pane)
            .collect();
        if self.has_items() {
            ring.push(Focus::Items);
        }
        if self.info.board.is_some() {
            ring.push(Focus::Board);
        }
        ring.push(Focus::Transcript);
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
        self.damage = Damage::Whole;
        if self.layers.is_empty() {
            self.focus_moved = true;
            match region {
                Region::Pane(index) => self.focus = Focus::Pane(index),
                Region::Items => self.focus = Focus::Items,
                Region::Board => self.focus = Focus::Board,
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

    /// The rows a page key moves: the open item's pop-up, the selected
    /// item below the list, or the focused region.
    fn page_rows(&self) -> usize {
        match self.layers.last() {
            Some(Layer::ItemDetail { .. }) => return self.detail_page,
            Some(Layer::Help { .. }) => return usize::from(self.layout.area.height / 2),
            _ => {}
        }
        if self.focus == Focus::Items && !self.show_verdict {
            return self.item_page;
        }
        self.focused_viewport()
    }

    fn focused_viewport(&self) -> usize {
        match self.focused_region() {
            Region::Pane(index) => self.panes[index].read_rows().1,
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
            Region::Pane(index) => Some(self.panes[index].read_scroll()),
            Region::Transcript => Some((
                &mut self.transcript_scroll,
                self.transcript.line_count(),
                self.transcript_viewport,
            )),
            Region::Verdict => {
                let report = self.report.as_mut()?;
                let total = report.summary.line_count();
                Some((&mut report.scroll, total, report.viewport))
            }
            Region::Items | Region::Board => None,
        }
    }

    fn scroll(&mut self, delta: isize) {
        // The pop-ups clamp at the bottom when they are laid out.
        if let Some(Layer::Help { scroll } | Layer::ItemDetail { scroll, .. }) =
            self.layers.last_mut()
        {
            *scroll = scroll.saturating_add_signed(delta);
            return;
        }
        if self.focus == Focus::Items && !self.show_verdict {
            self.item_scroll = self.item_scroll.saturating_add_signed(delta);
            return;
        }
        if let Some((scroll, total, height)) = self.focused_scroll() {
            scroll.scroll_by(delta, total, height);
        }
    }

    /// The item the keys act on: the open detail's, else the cursor's.
    pub(super) fn current_item(&self) -> Option<usize> {
        let index = match self.layers.last() {
            Some(Layer::ItemDetail { item, .. }) => *item,
            _ => self.item_cursor,
        };
        (index < self.board.items.len()).then_some(index)
    }

    fn decide(&mut self, decision: ItemDecision, now: Instant) -> Vec<Command> {
        if !self.moderating() {
            let message = self.not_moderating();
            self.flash(message, now);
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
        self.item_scroll = 0;
        // A message about what is left open must not outlive its truth.
        if self.flash.is_some() {
            let message = self.open_items_message();
            self.flash(message, now);
        }
        vec![Command::Moderator(Input::ItemDecided {
            item_id,
            decision,
            note,
            ruler: Some(Ruler::Person),
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
            let message = self.not_moderating();
            self.flash(message, now);
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
        self.open_note_editor(index, &existing, "Why? (Ctrl-S saves, Esc cancels)");
    }

    /// Opens the note editor on item `index`, holding `existing` with the
    /// cursor at its end, and `placeholder` while it is empty.
    pub(super) fn open_note_editor(&mut self, index: usize, existing: &str, placeholder: &str) {
        let mut editor = TextArea::from(existing.lines().map(str::to_string));
        editor.set_placeholder_text(placeholder);
        // A note is prose: it wraps at the box's edge instead of scrolling
        // its start out of sight.
        editor.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
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
                let note = (!note.is_empty()).then_some(note);
                if matches!(self.mode, Mode::Archive(_)) {
                    self.keep_settlement_note(item, note, now);
                    return Vec::new();
                }
                let entry = &mut self.board.items[item];
                match entry.decision {
                    Some(decision) => {
                        entry.note = note.clone();
                        self.unconfirmed
                            .insert(entry.item.id.clone(), (decision, note.clone()));
                        vec![Command::Moderator(Input::ItemDecided {
                            item_id: entry.item.id.clone(),
                            decision,
                            note,
                            ruler: Some(Ruler::Person),
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
            Some(Layer::BudgetEditor { question, editor }) => {
                match Budget::parse(&editor.lines().join(" ")) {
                    Ok(limit) if limit.is_set() => {
                        vec![Command::Budget(BudgetDecision::Raise { limit })]
                    }
                    Ok(_) => {
                        self.flash("write a budget: $5, or 300,000 tokens".into(), now);
                        self.layers.push(Layer::BudgetEditor { question, editor });
                        Vec::new()
                    }
                    Err(error) => {
                        self.flash(error, now);
                        self.layers.push(Layer::BudgetEditor { question, editor });
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
            let message = self.not_moderating();
            self.flash(message, now);
            return Vec::new();
        }
        if self
            .board
            .items
            .iter()
            .any(|entry| entry.decision.is_none())
        {
            let message = self.open_items_message();
            self.flash(message, now);
            return Vec::new();
        }
        self.flash.take();
        vec![Command::Moderator(Input::ModerationSubmitted)]
    }

    /// What is left to decide before the decisions can be submitted.
    fn open_items_message(&self) -> String {
        let open: Vec<&str> = self
            .board
            .items
            .iter()
            .filter(|entry| entry.decision.is_none())
            .map(|entry| entry.item.id.as_str())
            .collect();
        match open.as_slice() {
            [] => "every item is decided: s submits".into(),
            [one] => format!("decide {one} first, then s submits"),
            _ => format!("decide every item first: {} open", open.join(", ")),
        }
    }

    /// Why a decision key does nothing now: the decisions were submitted, a
    /// round is still raising items, or there are none.
    fn not_moderating(&self) -> String {
        if !self.board.held_calls.is_empty() {
            "a round waits on a judge first: see its pane".into()
        } else if self.board.items.is_empty() {
            "nothing to decide yet: items come to you when a round raises them".into()
        } else if self.running() {
            "these decisions are submitted and bind the agents now; new items come to you when a round raises them".into()
        } else {
            "the debate has ended; `quorum open` settles what was deferred".into()
        }
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
        let then = if self.held(pane) {
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

    /// `R` in a pane: a call that has already written text has cost money,
    /// so retrying it (which drops that text) asks first. The override
    /// modal's `r` says what it does on its face and does not ask again.
    fn retry(&mut self, now: Instant) -> Vec<Command> {
        if let (None, Focus::Pane(index)) = (self.layers.last(), self.focus) {
            let pane = &self.panes[index];
            if pane.live_call().is_some() && pane.streamed_chars > 0 {
                self.layers.push(Layer::ConfirmRetry { pane: index });
                return Vec::new();
            }
        }
        self.override_call(OverrideAction::RetryNow, now)
    }

    fn override_call(&mut self, action: OverrideAction, now: Instant) -> Vec<Command> {
        let Some(index) = self.override_target() else {
            return Vec::new();
        };
        self.override_pane(index, action, now)
    }

    fn override_pane(
        &mut self,
        index: usize,
        action: OverrideAction,
        now: Instant,
    ) -> Vec<Command> {
        if matches!(self.layers.last(), Some(Layer::Override(_))) {
            self.layers.pop();
        }
        let held = self.held(index);
        let pane = &self.panes[index];
        if action == OverrideAction::Skip && !self.skippable(index) {
            let message = format!(
                "{} cannot be skipped: the debate needs it. Retry it, wait longer or switch its model",
                pane.role.title
            );
            self.flash(message, now);
            return Vec::new();
        }
        // A malformed or skipped judge of a held round has no live call:
        // re-running it or going on without it names its last call.
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
