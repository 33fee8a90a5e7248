//! Where each region of the screen goes, for a given terminal size.
//!
//! Wide terminals get every agent pane at once beside the scoreboard, the
//! items and the transcript; small ones get a tab strip and one region at a
//! time; `z` gives the focused region the whole body at any size. The layout
//! is computed before drawing and kept, so mouse events can find the region
//! under the pointer and drawing only reads it.

use ratatui::layout::{Constraint, Layout, Rect};

use super::app::{App, Focus, Mode};

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
    Scoreboard,
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
        Focus::Scoreboard => Region::Scoreboard,
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
    let judges = app.panes.len().saturating_sub(2);
    let [debaters, bench] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(agents);
    let pair = Layout::horizontal([Constraint::Ratio(1, 2); 2]).split(debaters);
    for (index, rect) in pair.iter().enumerate().take(app.panes.len().min(2)) {
        layout.regions.push((Region::Pane(index), *rect));
    }
    if judges > 0 {
        let columns =
            Layout::horizontal(vec![Constraint::Ratio(1, judges as u32); judges]).split(bench);
        for (offset, rect) in columns.iter().enumerate() {
            layout.regions.push((Region::Pane(2 + offset), *rect));
        }
    }
    let board_rows = app
        .board
        .scoreboard
        .as_ref()
        .map_or(6, |board| board.blocks.len() as u16 + 8);
    let status_rows = match app.mode {
        Mode::Archive(_) => super::view::ARCHIVE_STATUS_ROWS,
        _ => 0,
    };
    let item_rows = (app.board.items.len() as u16 + 2 + status_rows).clamp(4, side.height / 3);
    let [scoreboard, items, transcript] = Layout::vertical([
        Constraint::Length(board_rows.min(side.height / 3)),
        Constraint::Length(item_rows),
        Constraint::Min(3),
    ])
    .areas(side);
    layout.regions.push((Region::Scoreboard, scoreboard));
    layout.regions.push((Region::Items, items));
    layout.regions.push((Region::Transcript, transcript));
    layout
}
