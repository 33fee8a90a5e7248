//! What the layout needs to know of the state: the region the keys act
//! on, which panes are at work, idle or set aside, and how the items
//! region splits, handed to `tui::layout` as a [`LayoutInput`] so that the
//! layout reads no state.

use super::{App, Focus, Mode, PaneStatus};
use crate::tui::layout::{self, BoardRoom, ItemsShape, LayoutInput, PaneShape, Region};

impl App {
    /// The region the keys act on: the verdict view when it shows, else
    /// the focused one.
    pub fn focused_region(&self) -> Region {
        if self.show_verdict && self.report.is_some() {
            return Region::Verdict;
        }
        match self.focus {
            Focus::Pane(index) => Region::Pane(index),
            Focus::Items => Region::Items,
            Focus::Board => Region::Board,
            Focus::Transcript => Region::Transcript,
        }
    }

    /// The moderator's decisions are what the debate waits for (in a live
    /// debate or a replay of one): the wide screen gives the items the room.
    pub fn moderation_layout(&self) -> bool {
        self.moderating() && self.has_items() && !matches!(self.mode, Mode::Archive(_))
    }

    /// A pane the moderation layout leaves out: its role has not started, so
    /// it would show nothing but that it waits (a focused pane always shows).
    pub fn set_aside(&self, index: usize) -> bool {
        let pane = &self.panes[index];
        self.moderation_layout()
            && pane.status == PaneStatus::Waiting
            && pane.doc.source_len() == 0
            && pane.human.is_none()
            && self.focus != Focus::Pane(index)
    }

    /// A pane with nothing new to show: it waits for its turn, is done or was
    /// skipped, and is not focused (a pane whose answer failed keeps its rows
    /// for the reason).
    pub fn is_idle(&self, index: usize) -> bool {
        let pane = &self.panes[index];
        matches!(
            pane.status,
            PaneStatus::Waiting | PaneStatus::Done | PaneStatus::Skipped
        ) && pane.human.is_none()
            && self.focus != Focus::Pane(index)
    }

    /// The panes by row, top to bottom (see [`layout::group_rows`]).
    pub fn pane_rows(&self) -> Vec<Vec<usize>> {
        let groups: Vec<_> = self.panes.iter().map(|pane| pane.role.group).collect();
        layout::group_rows(&groups)
    }

    /// What the layout needs to know of the state.
    pub fn layout_input(&self) -> LayoutInput {
        let moderation = self.moderation_layout();
        LayoutInput {
            focused: self.focused_region(),
            zoomed: self.zoomed,
            panes: (0..self.panes.len())
                .map(|index| PaneShape {
                    group: self.panes[index].role.group,
                    busy: self.panes[index].status.is_busy(),
                    idle: self.is_idle(index),
                    set_aside: self.set_aside(index),
                })
                .collect(),
            moderation,
            board: self
                .info
                .board
                .as_ref()
                .map(|_| BoardRoom::of(&self.board.view, moderation)),
            has_items: self.has_items(),
            items: self.items_shape(),
        }
    }

    /// What the layout needs to know of the items to split their region.
    pub fn items_shape(&self) -> ItemsShape {
        ItemsShape {
            archive: matches!(self.mode, Mode::Archive(_)),
            items: self.board.items.len(),
            unread: self.board.unread.len(),
            moderating: self.moderating(),
            has_target: self.item_target.is_some(),
        }
    }
}
