//! A finished debate opened again (`quorum open DIR`): which deferred items
//! may still be settled, the settlements sent to the engine, and whether an
//! acceptance waits for `quorum resume --reopen`.
//!
//! Responsible for refusing what the protocol would refuse, with the reason
//! on screen, and for turning `a` / `r` (with a note written first),
//! confirmed once with what will be recorded, into [`Input::ItemResolved`]. Not responsible for applying a settlement: the
//! engine journals it and its next board shows it.

use std::collections::HashMap;
use std::time::Instant;

use crate::engine::Command;
use crate::protocol::ItemDecision;
use crate::protocol::{Board, Input, Outcome, Ruler};

use super::{App, Layer, Mode};

/// What the interface knows about settling a finished debate's items.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Archive {
    /// Settlements sent to the engine that its board does not show yet.
    sending: HashMap<String, ItemDecision>,
}

impl Archive {
    /// A settlement is on its way to the engine for `item_id`.
    pub fn sending(&self, item_id: &str) -> Option<ItemDecision> {
        self.sending.get(item_id).copied()
    }

    /// The board shows the settlements it carries.
    pub(super) fn confirm(&mut self, board: &Board) {
        self.sending.retain(|item_id, _| {
            board
                .items
                .iter()
                .any(|entry| entry.item.id == *item_id && entry.resolution.is_none())
        });
    }
}

impl App {
    fn archive(&self) -> Option<&Archive> {
        match &self.mode {
            Mode::Archive(archive) => Some(archive),
            _ => None,
        }
    }

    /// Items accepted after the verdict wait for another revision round
    /// (`quorum resume DIR --reopen`), as the board says.
    pub fn reopen_pending(&self) -> bool {
        self.archive().is_some() && self.board.reopen_pending
    }

    /// Why item `index` cannot be settled now; `None` when it can.
    pub fn settle_refusal(&self, index: usize) -> Option<String> {
        let archive = self.archive()?;
        let entry = self.board.items.get(index)?;
        let id = &entry.item.id;
        if let Some(Outcome::Failed { .. }) = &self.outcome {
            return Some("the debate ended without a verdict: nothing to settle".into());
        }
        match entry.decision {
            Some(ItemDecision::Defer) => {}
            Some(decision) => {
                return Some(format!(
                    "{id} was {} in moderation; only deferred items are settled after the verdict",
                    decision.past_tense()
                ));
            }
            None => return Some(format!("{id} was never decided in moderation")),
        }
        if let Some(resolution) = &entry.resolution {
            return Some(format!(
                "{id} was already {} after the verdict, on {}; `quorum open DIR --resolve {id}=…` changes it",
                resolution.decision.past_tense(),
                resolution_time(resolution.at)
            ));
        }
        if archive.sending.contains_key(id) {
            return Some(format!("{id}'s settlement is on its way"));
        }
        if !self.board.resolvable {
            return Some("no deferred item can be settled any more".into());
        }
        None
    }

    /// Deferred items that can still be settled.
    pub fn unsettled(&self) -> usize {
        (0..self.board.items.len())
            .filter(|index| self.settle_refusal(*index).is_none())
            .count()
    }

    /// The first settleable item after `after` (from the top with `None`),
    /// wrapping around.
    pub(super) fn next_settleable(&self, after: Option<usize>) -> Option<usize> {
        self.archive()?;
        let count = self.board.items.len();
        let start = after.map_or(0, |index| index + 1);
        (0..count)
            .map(|step| (start + step) % count)
            .find(|index| self.settle_refusal(*index).is_none())
    }

    /// `a` / `r` after the verdict: asks whether to record the current
    /// item's settlement, showing what will be recorded (a settlement is
    /// journaled for good; only `quorum open DIR --resolve` changes it).
    pub(super) fn ask_to_settle(&mut self, decision: ItemDecision, now: Instant) {
        let Some(item) = self.current_item() else {
            return;
        };
        match self.settle_refusal(item) {
            Some(reason) => self.flash(reason, now),
            None => self.layers.push(Layer::ConfirmSettle { item, decision }),
        }
    }

    /// The settlement of item `index` confirmed: sent to the engine.
    pub(super) fn settle(
        &mut self,
        index: usize,
        decision: ItemDecision,
        now: Instant,
    ) -> Vec<Command> {
        if let Some(reason) = self.settle_refusal(index) {
            self.flash(reason, now);
            return Vec::new();
        }
        let item_id = self.board.items[index].item.id.clone();
        let note = self.pending_notes.remove(&item_id);
        if let Mode::Archive(archive) = &mut self.mode {
            archive.sending.insert(item_id.clone(), decision);
        }
        if matches!(self.layers.last(), Some(Layer::ItemDetail { .. })) {
            self.layers.pop();
        }
        self.item_cursor = self.next_settleable(Some(index)).unwrap_or(index);
        self.flash(
            format!("{item_id} {} after the verdict", decision.past_tense()),
            now,
        );
        vec![Command::Moderator(Input::ItemResolved {
            item_id,
            decision,
            note,
            ruler: Some(Ruler::Person),
        })]
    }

    /// `n` after the verdict: a note to go with the current item's
    /// settlement.
    pub(super) fn open_settlement_note(&mut self, now: Instant) {
        let Some(index) = self.current_item() else {
            return;
        };
        if let Some(reason) = self.settle_refusal(index) {
            self.flash(reason, now);
            return;
        }
        let existing = self
            .pending_notes
            .get(&self.board.items[index].item.id)
            .cloned()
            .unwrap_or_default();
        self.open_note_editor(
            index,
            &existing,
            "Why? (Ctrl-S saves, Esc cancels; then a accepts, r rejects)",
        );
    }

    /// A saved note waits for the item's settlement.
    pub(super) fn keep_settlement_note(&mut self, item: usize, note: Option<String>, now: Instant) {
        let Some(entry) = self.board.items.get(item) else {
            return;
        };
        let item_id = entry.item.id.clone();
        match note {
            Some(note) => {
                self.pending_notes.insert(item_id.clone(), note);
                self.flash(format!("note kept; a accepts {item_id}, r rejects it"), now);
            }
            None => {
                self.pending_notes.remove(&item_id);
            }
        }
    }

    /// The note written for an item's settlement, not sent yet.
    pub fn pending_note(&self, item_id: &str) -> Option<&str> {
        self.pending_notes.get(item_id).map(String::as_str)
    }
}

/// When an item was settled, in local time: `2026-11-30 12:00`.
pub fn resolution_time(at: crate::protocol::Timestamp) -> String {
    at.with_timezone(&chrono::Local)
        .format("%Y-%m-%d %H:%M")
        .to_string()
}
