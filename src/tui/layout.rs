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

use ratatui::layout::{Constraint, Layout, Rect};

use super::app::{App, Focus, Mode};
use crate::protocol::{BoardView, RoleGroup};

/// Narrower than this, regions collapse into tabs (columns).
pub const WIDE_MIN_COLUMNS: u16 = 120;
/// Shorter than this, regions collapse into tabs (rows).
pub const WIDE_MIN_ROWS: u16 = 30;
/// Header height, in rows.
pub const HEADER_ROWS: u16 = 2;

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
    let rows = pane_rows(app);
    let row_rects = Layout::vertical(vec![
        Constraint::Ratio(1, rows.len().max(1) as u32);
        rows.len()
    ])
    .split(agents);
    for (row, rect) in rows.iter().zip(row_rects.iter()) {
        let columns = Layout::horizontal(vec![Constraint::Ratio(1, row.len() as u32); row.len()])
            .split(*rect);
        for (index, column) in row.iter().zip(columns.iter()) {
            layout.regions.push((Region::Pane(*index), *column));
        }
    }
    let mut side_regions = Vec::new();
    if app.info.board.is_some() {
        let board_rows = match &app.board.view {
            BoardView::Scores(board) => board.blocks.len() as u16 + 8,
            BoardView::Rulings(rulings) => {
                rulings
                    .iter()
                    .map(|ruling| 2 + u16::from(!ruling.facts.is_empty()))
                    .sum::<u16>()
                    + 2
            }
            BoardView::None => 6,
        };
        side_regions.push((
            Region::Board,
            Constraint::Length(board_rows.min(side.height / 3)),
        ));
    }
    if app.has_items() {
        let status_rows = match app.mode {
            Mode::Archive(_) => super::view::ARCHIVE_STATUS_ROWS,
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
