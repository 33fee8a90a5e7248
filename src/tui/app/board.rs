//! The board as the engine publishes it, folded into the state: its agent
//! text made inert on arrival, the decisions sent but not yet shown kept,
//! and the cursor and focus moved where a new call for the moderator
//! wants them.

use super::{App, Focus, Mode};
use crate::protocol::{Board, BoardView};
use crate::text::sanitize;

impl App {
    /// Takes the board the engine published in place of the last one.
    pub(super) fn set_board(&mut self, mut board: Board) {
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
        let newly_resolvable = board.resolvable && !self.board.resolvable;
        if let Mode::Archive(archive) = &mut self.mode {
            archive.confirm(&board);
        }
        self.board = board;
        if newly_resolvable && let Some(first) = self.next_settleable(None) {
            self.item_cursor = first;
        }
        if newly_needed {
            self.zoomed = false;
            if self.moderating() {
                // A protocol that moderates every round lists the earlier
                // rounds' decided items first.
                self.focus_first_undecided();
            } else if let Some(held) = (0..self.panes.len()).find(|index| self.held(*index)) {
                // A held evaluation round: the judge it waits on.
                self.focus = Focus::Pane(held);
            }
        }
        self.item_cursor = self
            .item_cursor
            .min(self.board.items.len().saturating_sub(1));
    }
}

/// Agent text on the board (items, block ids, reasons) made inert once, on
/// arrival.
fn sanitize_board(board: &mut Board) {
    let clean = |text: &mut String| *text = sanitize(text);
    for entry in &mut board.items {
        let item = &mut entry.item;
        for field in [
            &mut item.id,
            &mut item.target,
            &mut item.raised_by,
            &mut item.severity,
            &mut item.category,
            &mut item.text,
            &mut item.preface,
        ] {
            clean(field);
        }
        for line in &mut entry.evidence {
            clean(line);
        }
        let item = &mut entry.item;
        // The target's entry keeps its lines; each is made inert.
        item.target_text = item
            .target_text
            .lines()
            .map(sanitize)
            .collect::<Vec<_>>()
            .join("\n");
        if let Some(suggestion) = &mut item.suggestion {
            clean(&mut suggestion.by);
            clean(&mut suggestion.reason);
        }
        if let Some(note) = &mut entry.note {
            clean(note);
        }
        if let Some(note) = entry.resolution.as_mut().and_then(|r| r.note.as_mut()) {
            clean(note);
        }
    }
    for stage in &mut board.stages {
        clean(&mut stage.title);
    }
    match &mut board.view {
        BoardView::Scores(scoreboard) => {
            scoreboard.blocks.iter_mut().for_each(clean);
            for column in &mut scoreboard.judges {
                if let crate::protocol::JudgeState::Malformed(reason)
                | crate::protocol::JudgeState::Skipped(reason)
                | crate::protocol::JudgeState::Recused(reason) = &mut column.state
                {
                    clean(reason);
                }
            }
            if let Some(implied) = &mut scoreboard.implied {
                clean(&mut implied.rule);
            }
            if let Some(leader) = &mut scoreboard.leader {
                clean(leader);
            }
            for label in &mut scoreboard.blocks {
                clean(label);
            }
        }
        BoardView::Rulings(rulings) => {
            for ruling in rulings {
                clean(&mut ruling.subject);
                clean(&mut ruling.title);
                clean(&mut ruling.rule);
                if let Some(word) = &mut ruling.word {
                    clean(word);
                }
                for fact in &mut ruling.facts {
                    clean(&mut fact.label);
                    clean(&mut fact.value);
                }
            }
        }
        BoardView::Revision(revision) => {
            // Texts keep their lines; each line is made inert.
            let clean_lines = |text: &mut String| {
                *text = text.lines().map(sanitize).collect::<Vec<_>>().join("\n");
            };
            clean_lines(&mut revision.original);
            if let Some(revised) = &mut revision.revised {
                clean_lines(revised);
            }
            for change in &mut revision.changes {
                clean(&mut change.location);
                clean(&mut change.kind);
                clean(&mut change.before);
                clean(&mut change.after);
            }
        }
        BoardView::None => {}
    }
}
