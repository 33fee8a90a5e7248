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

use ratatui::layout::{Constraint, Layout, Rect};

use super::app::{App, Focus, Mode, PaneStatus};
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

/// The region the keys act on: the verdict view when it shows, else the
/// focused one.
pub fn focused_region(app: &App) -> Region {
    if app.show_verdict && app.report.is_some() {
        return Region::Verdict;
    }
    match app.focus {
        Focus::Pane(index) => Region::Pane(index),
        Focus::Items => Region::Items,
        Focus::Board => Region::Board,
        Focus::Transcript => Region::Transcript,
    }
}

/// Lays the screen out for `app` in `area`.
pub fn compute(app: &App, area: Rect) -> ScreenLayout {
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(HEADER_ROWS),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let focused = focused_region(app);
    let mut layout = ScreenLayout {
        area,
        header,
        tabs: None,
        regions: Vec::new(),
        footer,
    };
    if app.zoomed || focused == Region::Verdict {
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
    let moderation = moderation_layout(app);
    let rows: Vec<Vec<usize>> = pane_rows(app)
        .into_iter()
        .map(|row| {
            row.into_iter()
                .filter(|index| !set_aside(app, *index))
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
    let busy = app.panes.iter().any(|pane| is_busy(pane.status));
    let row_rects = Layout::vertical(
        rows.iter()
            .map(|row| {
                if busy && row.iter().all(|index| is_idle(app, *index)) {
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
        let mixed = busy && row.iter().any(|index| is_idle(app, *index));
        let columns = Layout::horizontal(
            row.iter()
                .map(|index| {
                    if mixed && !is_idle(app, *index) {
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
    if app.info.board.is_some() {
        let board_rows = match &app.board.view {
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
            // Two texts side by side need the room; the panes keep the rest.
            BoardView::Revision(_) => side.height / 2,
            BoardView::None if moderation => EMPTY_BOARD_ROWS,
            BoardView::None => 6,
        };
        side_regions.push((
            Region::Board,
            Constraint::Length(board_rows.min(match app.board.view {
                BoardView::Revision(_) => side.height / 2,
                _ => side.height / 3,
            })),
        ));
    }
    if app.has_items() && !moderation {
        let status_rows = match app.mode {
            Mode::Archive(_) => ARCHIVE_STATUS_ROWS,
            _ => 0,
        };
        let item_rows = (app.board.items.len() as u16 + 2 + status_rows).clamp(4, side.height / 3);
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

/// A pane whose call is under way (or whose answer is wanted): while one
/// is, the idle rows give it theirs.
fn is_busy(status: PaneStatus) -> bool {
    matches!(
        status,
        PaneStatus::Streaming
            | PaneStatus::Retrying
            | PaneStatus::TimedOut
            | PaneStatus::NeedsAnswer
    )
}

/// A pane with nothing new to show: it waits for its turn, is done or was
/// skipped, and is not focused (a pane whose answer failed keeps its rows
/// for the reason).
pub fn is_idle(app: &App, index: usize) -> bool {
    let pane = &app.panes[index];
    matches!(
        pane.status,
        PaneStatus::Waiting | PaneStatus::Done | PaneStatus::Skipped
    ) && pane.human.is_none()
        && app.focus != Focus::Pane(index)
}

/// The moderator's decisions are what the debate waits for (in a live
/// debate or a replay of one): the wide screen gives the items the room.
pub fn moderation_layout(app: &App) -> bool {
    app.moderating() && app.has_items() && !matches!(app.mode, Mode::Archive(_))
}

/// A pane the moderation layout leaves out: its role has not started, so
/// it would show nothing but that it waits (a focused pane always shows).
pub fn set_aside(app: &App, index: usize) -> bool {
    let pane = &app.panes[index];
    moderation_layout(app)
        && pane.status == PaneStatus::Waiting
        && pane.doc.source_len() == 0
        && pane.human.is_none()
        && app.focus != Focus::Pane(index)
}

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

pub fn items_areas(app: &App, rect: Rect) -> ItemsAreas {
    let mut body = inner(rect);
    let mut areas = ItemsAreas::default();
    if matches!(app.mode, Mode::Archive(_)) && body.height > ARCHIVE_STATUS_ROWS {
        let [list, status] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(ARCHIVE_STATUS_ROWS)])
                .areas(body);
        body = list;
        areas.status = Some(status);
    }
    areas.list = body;
    if app.board.items.is_empty() {
        return areas;
    }
    let unread_rows = (app.board.unread.len() as u16).min(UNREAD_ROWS_MAX);
    let mut list_rows = app.board.items.len() as u16 + unread_rows;
    if app.moderating() {
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
    if app.item_target.is_some() && preview.width >= TARGET_BESIDE_MIN_COLUMNS {
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

/// The panes by row, top to bottom (see [`group_rows`]).
pub fn pane_rows(app: &App) -> Vec<Vec<usize>> {
    let groups: Vec<RoleGroup> = app.panes.iter().map(|pane| pane.role.group).collect();
    group_rows(&groups)
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
