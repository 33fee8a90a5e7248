//! Where each region of the screen goes, for a given terminal size.
//!
//! Panes are laid out by role group, never by role name: the roles that put
//! the case and attack it share the top row, the panel (judges, reviewers)
//! the next, the synthesizer the last; a row a protocol does not have is not
//! drawn, so a one-agent mode gets one wide pane. Beside them go the board
//! (if the protocol has one), the items (if it raises any) and the
//! transcript. Small terminals get a tab strip and one region at a time; `z`
//! gives the focused region the whole body at any size. The layout is
//! computed before drawing and kept, so mouse events can find the region
//! under the pointer and drawing only reads it.
//!
//! While the items wait for the moderator's decisions, the items take the
//! place of the panes whose roles have not started yet (their panes would
//! only say so) and the lower part of the agents' column, so the list reads
//! unclipped and the selected item shows in full, beside the text it
//! attacks. A pane comes back as soon as its role starts.
//!
//! While a pane streams, a row whose panes only wait, are done or were
//! skipped shrinks to its title row, so the text being written gets the
//! rows, and in a row shared with such panes a streaming pane is twice as
//! wide as they are; a focused pane keeps its size.
//!
//! Rectangle arithmetic only: the state hands in what the layout needs to
//! know of it as a [`LayoutInput`] (built by `App::layout_input`), so this
//! module reads no state and sits below it. The parts of a person's pane
//! and of the item pop-up are laid out here too, the same for drawing and
//! for paging.

use ratatui::layout::{Constraint, Layout, Rect};

use crate::protocol::{BoardView, RoleGroup};

/// Narrower than this, regions collapse into tabs (columns).
pub const WIDE_MIN_COLUMNS: u16 = 120;
/// Shorter than this, regions collapse into tabs (rows).
pub const WIDE_MIN_ROWS: u16 = 30;
/// Header height, in rows.
pub const HEADER_ROWS: u16 = 2;
/// In the moderation layout, the share of the agents' column the panes
/// that have started keep, in percent; the items take the rest.
pub const MODERATION_PANES_PERCENT: u16 = 40;
/// In the moderation layout, the height of a board with nothing on it yet
/// (its one-line placeholder and borders), in rows.
const EMPTY_BOARD_ROWS: u16 = 3;
/// Rows the items region needs beyond the list to show the selected item.
const PREVIEW_MIN_ROWS: u16 = 5;
/// Rows kept at the bottom of an archived debate's items for what is left
/// to settle.
pub const ARCHIVE_STATUS_ROWS: u16 = 2;
/// Columns the selected item's area needs to show, beside the item, the
/// text it attacks (each side gets half).
pub const TARGET_BESIDE_MIN_COLUMNS: u16 = 80;

/// What the layout needs to know of the state, built from it by the
/// state (`App::layout_input`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutInput {
    /// The region the keys act on: the verdict view when it shows, else
    /// the focused one (`App::focused_region`).
    pub focused: Region,
    /// `z`: the focused region has the whole body.
    pub zoomed: bool,
    /// Every pane, in the protocol's order of roles.
    pub panes: Vec<PaneShape>,
    /// The moderator's decisions are what the debate waits for: the items
    /// take the room of the panes set aside (`App::moderation_layout`).
    pub moderation: bool,
    /// The room the board wants, when the protocol has a board.
    pub board: Option<BoardRoom>,
    /// The protocol raised items and there are some to show.
    pub has_items: bool,
    /// How the items region splits.
    pub items: ItemsShape,
}

/// What the layout needs to know of one pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaneShape {
    /// The row it goes in (see [`group_rows`]).
    pub group: RoleGroup,
    /// Its call is under way (or its answer is wanted): while one is, the
    /// idle rows give it theirs.
    pub busy: bool,
    /// Nothing new to show: it waits for its turn, is done or was skipped,
    /// is no person's and is not focused.
    pub idle: bool,
    /// The moderation layout leaves it out: its role has not started.
    pub set_aside: bool,
}

/// What the layout needs to know of the items, to split their region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItemsShape {
    /// An archived debate: rows are kept for what is left to settle.
    pub archive: bool,
    /// How many items the list shows.
    pub items: usize,
    /// How many notes on what of the answers could not be read.
    pub unread: usize,
    /// The moderator's decisions are wanted now.
    pub moderating: bool,
    /// The text the selected item attacks was found.
    pub has_target: bool,
}

/// A part of the body that shows one thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    Pane(usize),
    Items,
    Board,
    Transcript,
    Verdict,
}

/// The computed screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScreenLayout {
    pub area: Rect,
    pub header: Rect,
    /// The tab strip, when regions are collapsed.
    pub tabs: Option<Rect>,
    pub regions: Vec<(Region, Rect)>,
    pub footer: Rect,
}

impl ScreenLayout {
    pub fn rect(&self, region: Region) -> Option<Rect> {
        self.regions
            .iter()
            .find(|(candidate, _)| *candidate == region)
            .map(|(_, rect)| *rect)
    }
}

/// Inside a bordered block.
pub fn inner(rect: Rect) -> Rect {
    Rect {
        x: rect.x.saturating_add(1),
        y: rect.y.saturating_add(1),
        width: rect.width.saturating_sub(2),
        height: rect.height.saturating_sub(2),
    }
}

/// Whether `area` is large enough to show every region at once.
pub fn is_wide(area: Rect) -> bool {
    area.width >= WIDE_MIN_COLUMNS && area.height >= WIDE_MIN_ROWS
}

/// The room a board wants beside the panes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardRoom {
    /// These rows, up to a third of the side's height.
    Rows(u16),
    /// Half the side's height: two texts side by side need the room; the
    /// panes keep the rest.
    HalfSide,
}

impl BoardRoom {
    /// The room `board` wants; `moderation`: the moderation layout, where an
    /// empty board keeps room for its placeholder.
    pub fn of(board: &BoardView, moderation: bool) -> BoardRoom {
        BoardRoom::Rows(match board {
            BoardView::Scores(board) => board.blocks.len() as u16 + 8,
            // Room for the placeholder while there is nothing to rule on.
            BoardView::Rulings(rulings) if rulings.is_empty() => EMPTY_BOARD_ROWS,
            BoardView::Rulings(rulings) => {
                rulings
                    .iter()
                    .map(|ruling| 2 + u16::from(!ruling.facts.is_empty()))
                    .sum::<u16>()
                    + 2
            }
            BoardView::Revision(_) => return BoardRoom::HalfSide,
            BoardView::None if moderation => EMPTY_BOARD_ROWS,
            BoardView::None => 6,
        })
    }
}

/// Lays the screen out for `input` in `area`.
pub fn compute(input: &LayoutInput, area: Rect) -> ScreenLayout {
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(HEADER_ROWS),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let focused = input.focused;
    let mut layout = ScreenLayout {
        area,
        header,
        tabs: None,
        regions: Vec::new(),
        footer,
    };
    if input.zoomed || focused == Region::Verdict {
        layout.regions.push((focused, body));
        return layout;
    }
    if !is_wide(area) {
        let [tabs, rest] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(body);
        layout.tabs = Some(tabs);
        layout.regions.push((focused, rest));
        return layout;
    }
    let [agents, side] =
        Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)]).areas(body);
    let moderation = input.moderation;
    let groups: Vec<RoleGroup> = input.panes.iter().map(|pane| pane.group).collect();
    let rows: Vec<Vec<usize>> = group_rows(&groups)
        .into_iter()
        .map(|row| {
            row.into_iter()
                .filter(|index| !input.panes[*index].set_aside)
                .collect::<Vec<_>>()
        })
        .filter(|row| !row.is_empty())
        .collect();
    let agents = if moderation {
        let [panes, items] = if rows.is_empty() {
            [Rect::ZERO, agents]
        } else {
            Layout::vertical([
                Constraint::Percentage(MODERATION_PANES_PERCENT),
                Constraint::Fill(1),
            ])
            .areas(agents)
        };
        layout.regions.push((Region::Items, items));
        panes
    } else {
        agents
    };
    let rows = wrap_rows(rows, agents.width);
    // While some pane streams, a row of panes that only wait or are done
    // keeps its title row and gives the rest to the rows at work.
    let busy = input.panes.iter().any(|pane| pane.busy);
    let row_rects = Layout::vertical(
        rows.iter()
            .map(|row| {
                if busy && row.iter().all(|index| input.panes[*index].idle) {
                    Constraint::Length(IDLE_PANE_ROWS)
                } else {
                    Constraint::Fill(1)
                }
            })
            .collect::<Vec<_>>(),
    )
    .split(agents);
    for (row, rect) in rows.iter().zip(row_rects.iter()) {
        // In a row where some panes stream and some do not, the ones at
        // work are twice as wide.
        let mixed = busy && row.iter().any(|index| input.panes[*index].idle);
        let columns = Layout::horizontal(
            row.iter()
                .map(|index| {
                    if mixed && !input.panes[*index].idle {
                        Constraint::Fill(2)
                    } else {
                        Constraint::Fill(1)
                    }
                })
                .collect::<Vec<_>>(),
        )
        .split(*rect);
        for (index, column) in row.iter().zip(columns.iter()) {
            layout.regions.push((Region::Pane(*index), *column));
        }
    }
    let mut side_regions = Vec::new();
    if let Some(board) = input.board {
        let board_rows = match board {
            BoardRoom::Rows(rows) => rows.min(side.height / 3),
            BoardRoom::HalfSide => side.height / 2,
        };
        side_regions.push((Region::Board, Constraint::Length(board_rows)));
    }
    if input.has_items && !moderation {
        let status_rows = if input.items.archive {
            ARCHIVE_STATUS_ROWS
        } else {
            0
        };
        let item_rows = (input.items.items as u16 + 2 + status_rows).clamp(4, side.height / 3);
        side_regions.push((Region::Items, Constraint::Length(item_rows)));
    }
    side_regions.push((Region::Transcript, Constraint::Min(3)));
    let rects = Layout::vertical(
        side_regions
            .iter()
            .map(|(_, constraint)| *constraint)
            .collect::<Vec<_>>(),
    )
    .split(side);
    for ((region, _), rect) in side_regions.iter().zip(rects.iter()) {
        layout.regions.push((*region, *rect));
    }
    layout
}

/// Height of a pane that is waiting or done while others stream: its title
/// row only.
pub const IDLE_PANE_ROWS: u16 = 1;

/// The parts of the items region (borders excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItemsAreas {
    /// The list, one row per item.
    pub list: Rect,
    /// What is left to settle, in an archive.
    pub status: Option<Rect>,
    /// The item under the cursor in full, when there is room.
    pub item: Option<Rect>,
    /// Beside it, the text it attacks, when that was found and there is
    /// room (see [`target_areas`]).
    pub target: Option<Rect>,
}

/// Splits the items region `rect`. While moderating, the list takes at
/// most half the rows so the selected item always has room below it.
/// Most rows the items list gives to what of the answers could not be
/// read (issue 59), below the items.
pub const UNREAD_ROWS_MAX: u16 = 4;

pub fn items_areas(shape: &ItemsShape, rect: Rect) -> ItemsAreas {
    let mut body = inner(rect);
    let mut areas = ItemsAreas::default();
    if shape.archive && body.height > ARCHIVE_STATUS_ROWS {
        let [list, status] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(ARCHIVE_STATUS_ROWS)])
                .areas(body);
        body = list;
        areas.status = Some(status);
    }
    areas.list = body;
    if shape.items == 0 {
        return areas;
    }
    let unread_rows = (shape.unread as u16).min(UNREAD_ROWS_MAX);
    let mut list_rows = shape.items as u16 + unread_rows;
    if shape.moderating {
        list_rows = list_rows.min(body.height / 2).max(1);
    }
    if body.height < list_rows.saturating_add(PREVIEW_MIN_ROWS) {
        return areas;
    }
    // A blank row between the list and the item.
    let [list, _, preview] = Layout::vertical([
        Constraint::Length(list_rows),
        Constraint::Length(1),
        Constraint::Min(PREVIEW_MIN_ROWS - 1),
    ])
    .areas(body);
    areas.list = list;
    areas.item = Some(preview);
    if shape.has_target && preview.width >= TARGET_BESIDE_MIN_COLUMNS {
        let [item, target] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(preview);
        areas.item = Some(item);
        areas.target = Some(target);
    }
    areas
}

/// The target's area without the rule and space on its left, split into
/// `(heading, text)`: the heading is one row, the text the rest.
pub fn target_areas(target: Rect) -> (Rect, Rect) {
    let right = Rect {
        x: target.x.saturating_add(2),
        width: target.width.saturating_sub(2),
        ..target
    };
    let [heading, text] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(right);
    (heading, text)
}

/// Narrowest a pane may be before its row wraps, in columns.
pub const MIN_PANE_COLUMNS: u16 = 24;

/// Splits every row that would make its panes narrower than
/// [`MIN_PANE_COLUMNS`] in `width` into rows of equal length (six experts
/// in 74 columns: two rows of three), so a council of up to eight stays
/// readable; the order is kept.
pub fn wrap_rows(rows: Vec<Vec<usize>>, width: u16) -> Vec<Vec<usize>> {
    let fits = usize::from((width / MIN_PANE_COLUMNS).max(1));
    let mut wrapped = Vec::new();
    for row in rows {
        if row.len() <= fits {
            wrapped.push(row);
            continue;
        }
        let lines = row.len().div_ceil(fits);
        let per_line = row.len().div_ceil(lines);
        wrapped.extend(row.chunks(per_line).map(<[usize]>::to_vec));
    }
    wrapped
}

/// Role indices by row, top to bottom: the lead and the challenger side by
/// side, then the panel, then the synthesizer; empty rows left out. Within
/// a row, roles keep the order the protocol listed them in.
pub fn group_rows(groups: &[RoleGroup]) -> Vec<Vec<usize>> {
    const ROWS: [&[RoleGroup]; 3] = [
        &[RoleGroup::Lead, RoleGroup::Challenger],
        &[RoleGroup::Panel],
        &[RoleGroup::Synthesizer],
    ];
    ROWS.iter()
        .map(|row| {
            groups
                .iter()
                .enumerate()
                .filter(|(_, group)| row.contains(group))
                .map(|(index, _)| index)
                .collect::<Vec<_>>()
        })
        .filter(|row| !row.is_empty())
        .collect()
}

/// Where a role the person plays shows its parts inside the pane (`body`):
/// the prompt it was given, the answer being written (a title row and the
/// editor), and why the last answer was refused, if it was.
pub struct HumanAreas {
    pub prompt: Rect,
    pub editor: Rect,
    pub error: Rect,
}

/// The parts of a person's pane inside `body`, laid out the same for
/// drawing and for paging through the prompt.
pub fn human_areas(body: Rect, has_error: bool) -> HumanAreas {
    let [prompt, editor, error] = Layout::vertical([
        Constraint::Percentage(35),
        Constraint::Min(4),
        Constraint::Length(u16::from(has_error) * 3),
    ])
    .areas(body);
    HumanAreas {
        prompt,
        editor,
        error,
    }
}

/// A rectangle `width` × `height` (clamped to `area`) centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// The item pop-up in `area`: its frame, the rows its text scrolls in, and
/// the row of keys pinned under them.
pub fn item_detail_areas(area: Rect) -> (Rect, Rect, Rect) {
    let rect = centered(
        area,
        area.width.saturating_sub(6).min(100),
        area.height.saturating_sub(4),
    );
    let body = inner(rect);
    let [text, keys] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(body);
    (rect, text, keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_too_narrow_for_their_panes_wrap_evenly() {
        let row = |n: usize| (0..n).collect::<Vec<_>>();
        // 74 columns hold three panes of 24: six wrap into two rows of three.
        assert_eq!(
            wrap_rows(vec![vec![9, 10], row(6)], 74),
            vec![vec![9, 10], vec![0, 1, 2], vec![3, 4, 5]]
        );
        // Four in a room for three: two rows of two, not three and one.
        assert_eq!(wrap_rows(vec![row(4)], 74), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(wrap_rows(vec![row(6)], 150), vec![row(6)]);
        // Narrower than one pane: one per row.
        assert_eq!(wrap_rows(vec![row(2)], 20), vec![vec![0], vec![1]]);
    }
}
