//! Drawing: the state in, a frame out. Every function here takes `&App`;
//! nothing mutates during a draw, and nothing here lays out text that
//! `App::prepare` has not already laid out and cached.

mod board;
mod header;
mod items;
mod layers;
mod panes;
mod verdict;

pub(crate) use items::item_in_full_rows;
pub(crate) use layers::item_detail_text;
pub(crate) use verdict::verdict_areas;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use super::app::{App, Focus, Layer, Mode};
use super::keymap::{self, Action};
use super::layout::Region;

/// Draws the whole screen from the layout `App::prepare` computed.
pub fn draw(app: &App, frame: &mut Frame) {
    draw_screen(app, frame.buffer_mut());
}

/// Where widgets are drawn: a frame's cells. A bare buffer rather than
/// ratatui's `Frame`, so that [`crate::tui::screen::Screen`] can draw one
/// region into a buffer of that region's size.
pub(super) trait Canvas {
    fn render_widget<W: Widget>(&mut self, widget: W, area: Rect);
}

impl Canvas for Buffer {
    fn render_widget<W: Widget>(&mut self, widget: W, area: Rect) {
        widget.render(area, self);
    }
}

/// The header alone; `frame` may cover only its area.
pub(crate) fn draw_header(app: &App, frame: &mut Buffer) {
    header::draw(app, frame, app.layout.header);
}

/// What of the header streamed text can change: its figures (the clock,
/// the tokens, the money), as the header draws them. A frame of streamed
/// text whose figures read as the last frame's leaves the header as it is.
pub(crate) fn header_figures(app: &App) -> Vec<ratatui::text::Span<'static>> {
    header::figures(app)
}

/// The frame of pane `index` ([`panes::agent_frame`]), if it shows.
pub(crate) fn pane_frame(app: &App, index: usize) -> Option<ratatui::widgets::Block<'static>> {
    let rect = app.layout.rect(Region::Pane(index))?;
    Some(panes::agent_frame(app, index, rect))
}

/// The pane `index` alone, if it shows, in its frame `block` (built by
/// [`pane_frame`]), with its text from the view's row `from` down; `frame`
/// may cover only its area.
pub(crate) fn draw_pane_framed(
    app: &App,
    index: usize,
    frame: &mut Buffer,
    block: &Block<'_>,
    from: usize,
) {
    if let Some(rect) = app.layout.rect(Region::Pane(index)) {
        panes::draw_agent_framed(app, index, frame, rect, block, from);
    }
}

/// The top and bottom rows of pane `index`'s frame `block` (its title and
/// badge, a paused view's hint), as the whole frame draws them, into
/// `frame`; every other cell is left as it is. The frame is drawn three
/// rows tall for it: what those two rows show depends on the width alone,
/// and drawing it whole would visit every cell of the pane. A pane under
/// three rows tall is left alone.
pub(crate) fn draw_pane_frame_edges(
    app: &App,
    index: usize,
    frame: &mut Buffer,
    block: &Block<'_>,
) {
    let Some(rect) = app.layout.rect(Region::Pane(index)) else {
        return;
    };
    let rect = rect.intersection(frame.area);
    if rect.height < 3 {
        return;
    }
    let edges = Rect { height: 3, ..rect };
    let mut drawn = Buffer::empty(edges);
    block.render(edges, &mut drawn);
    let width = usize::from(rect.width);
    for (row, y) in [(0, rect.top()), (2, rect.bottom() - 1)] {
        let at = frame.index_of(rect.x, y);
        frame.content[at..at + width]
            .clone_from_slice(&drawn.content[row * width..(row + 1) * width]);
    }
}

/// What pane `index` shows inside its frame, its text from the view's row
/// `from` down; the frame's cells are left as they are in `frame`.
pub(crate) fn draw_pane_body(app: &App, index: usize, frame: &mut Buffer, from: usize) {
    if let Some(rect) = app.layout.rect(Region::Pane(index)) {
        panes::draw_agent_body(app, index, frame, rect, from);
    }
}

/// Draws the whole screen into `frame`.
pub(crate) fn draw_screen(app: &App, frame: &mut Buffer) {
    let layout = &app.layout;
    header::draw(app, frame, layout.header);
    if let Some(tabs) = layout.tabs {
        draw_tabs(app, frame, tabs);
    }
    for (region, rect) in &layout.regions {
        match region {
            Region::Pane(index) => panes::draw_agent(app, *index, frame, *rect),
            Region::Items => items::draw(app, frame, *rect),
            Region::Board => board::draw(app, frame, *rect),
            Region::Transcript => panes::draw_transcript(app, frame, *rect),
            Region::Verdict => verdict::draw(app, frame, *rect),
        }
    }
    draw_footer(app, frame, layout.footer);
    layers::draw(app, frame, layout.area);
    draw_long_flash(app, frame, layout.footer);
}

/// The most rows a message too long for the footer takes.
const FLASH_ROWS_MAX: u16 = 5;

/// The message in the footer, as it is drawn.
fn flash_paragraph(app: &App) -> Option<Paragraph<'_>> {
    let (message, _) = app.flash.as_ref()?;
    let line = Line::styled(format!(" {message}"), app.theme.status_needs_moderator);
    Some(Paragraph::new(line).wrap(ratatui::widgets::Wrap { trim: false }))
}

/// The rows the message in the footer takes: 1 when it fits the footer
/// (or there is none), more when it wraps upward over the screen's last
/// rows, which a frame that only streams text then must not draw over.
pub(crate) fn flash_rows(app: &App) -> u16 {
    let width = app.layout.footer.width;
    flash_paragraph(app).map_or(1, |paragraph| {
        let rows = u16::try_from(paragraph.line_count(width)).unwrap_or(u16::MAX);
        // (A terminal with no rows has no footer to wrap up from.)
        rows.clamp(1, FLASH_ROWS_MAX.min(app.layout.footer.bottom()).max(1))
    })
}

/// A message too long for the footer, wrapped upward from it over the
/// rows above, so that none of it is cut off; above any pop-up, for the
/// few seconds it shows.
fn draw_long_flash(app: &App, frame: &mut Buffer, footer: Rect) {
    let rows = flash_rows(app);
    let Some(paragraph) = flash_paragraph(app).filter(|_| rows > 1) else {
        return;
    };
    let area = Rect {
        y: footer.bottom() - rows,
        height: rows,
        ..footer
    }
    .intersection(frame.area);
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(paragraph, area);
}

/// A bordered block, highlighted when focused.
pub(super) fn frame_block<'a>(app: &App, title: Line<'a>, focused: bool) -> Block<'a> {
    let theme = &app.theme;
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(if focused {
            theme.border_focused
        } else {
            theme.border
        })
        .title(title)
}

pub(super) fn is_focused(app: &App, region: Region) -> bool {
    app.layers.is_empty()
        && match (region, app.focus) {
            (Region::Pane(index), Focus::Pane(focused)) => index == focused,
            (Region::Items, Focus::Items) => true,
            (Region::Board, Focus::Board) => true,
            (Region::Transcript, Focus::Transcript) => true,
            _ => false,
        }
}

fn draw_tabs(app: &App, frame: &mut Buffer, area: Rect) {
    let theme = &app.theme;
    let mut tabs: Vec<(String, Style, bool)> = Vec::new();
    for (index, pane) in app.panes.iter().enumerate() {
        tabs.push((
            format!("{}{}", pane.role.title, panes::status_mark(pane.status)),
            panes::role_style(theme, pane.role.group),
            app.focus == Focus::Pane(index) && !app.show_verdict,
        ));
    }
    // The tab is named as the region it opens is titled.
    let items_title = app
        .info
        .items
        .as_ref()
        .map_or("Items", |items| items.title.as_str());
    let items_label = match app.mode {
        Mode::Archive(_) if app.unsettled() > 0 => {
            format!("{items_title} ({} to settle)", app.unsettled())
        }
        Mode::Live | Mode::Replay(_) if app.moderating() => {
            format!("{items_title} ({} open)", open_items(app))
        }
        _ => items_title.to_string(),
    };
    if app.has_items() {
        tabs.push((
            items_label,
            theme.text,
            app.focus == Focus::Items && !app.show_verdict,
        ));
    }
    if let Some(board) = &app.info.board {
        tabs.push((
            board.title.clone(),
            theme.text,
            app.focus == Focus::Board && !app.show_verdict,
        ));
    }
    tabs.push((
        "Transcript".into(),
        theme.text,
        app.focus == Focus::Transcript && !app.show_verdict,
    ));
    if let Some(report) = &app.report {
        tabs.push((
            verdict::title(&report.outcome).into(),
            theme.title,
            app.show_verdict,
        ));
    }
    let widths: Vec<usize> = tabs.iter().map(|(label, ..)| label.width()).collect();
    let active = tabs.iter().position(|(.., active)| *active).unwrap_or(0);
    let shown = shown_tabs(&widths, active, usize::from(area.width));
    let mut spans = Vec::new();
    if shown.start > 0 {
        spans.push(Span::styled(format!("‹{} ", shown.start), theme.dim));
    }
    let hidden_after = tabs.len() - shown.end;
    for (index, (label, style, active)) in tabs.into_iter().enumerate() {
        if !shown.contains(&index) {
            continue;
        }
        if index > shown.start {
            spans.push(Span::styled("│", theme.dim));
        }
        spans.push(Span::styled(
            label,
            if active { theme.selection } else { style },
        ));
    }
    if hidden_after > 0 {
        spans.push(Span::styled(format!(" {hidden_after}›"), theme.dim));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The tabs shown in `width` columns, each named in full: all of them when
/// they fit, else a run of whole tabs around the active one, with room
/// for the count of those hidden on each side (`‹2 ` and ` 3›`).
fn shown_tabs(widths: &[usize], active: usize, width: usize) -> std::ops::Range<usize> {
    let run = |range: &std::ops::Range<usize>| -> usize {
        let tabs: usize =
            widths[range.clone()].iter().sum::<usize>() + range.len().saturating_sub(1);
        let before = if range.start > 0 {
            2 + range.start.to_string().len()
        } else {
            0
        };
        let after = match widths.len() - range.end {
            0 => 0,
            hidden => 2 + hidden.to_string().len(),
        };
        tabs + before + after
    };
    let mut range = active.min(widths.len().saturating_sub(1))..(active + 1).min(widths.len());
    loop {
        let right = (range.end < widths.len()).then(|| range.start..range.end + 1);
        let left = (range.start > 0).then(|| range.start - 1..range.end);
        match right
            .into_iter()
            .chain(left)
            .find(|wider| run(wider) <= width)
        {
            Some(wider) => range = wider,
            None => return range,
        }
    }
}

pub(super) fn open_items(app: &App) -> usize {
    app.board
        .items
        .iter()
        .filter(|entry| entry.decision.is_none())
        .count()
}

fn draw_footer(app: &App, frame: &mut Buffer, area: Rect) {
    let theme = &app.theme;
    if let Some((message, _)) = &app.flash {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!(" {message}"),
                theme.status_needs_moderator,
            )),
            area,
        );
        return;
    }
    let mut hidden = Vec::new();
    if app.report.is_none() {
        hidden.push(Action::ToggleVerdict);
    }
    if !matches!(app.focus, Focus::Pane(index) if app.panes[index].human.is_some()) {
        hidden.push(Action::Answer);
    }
    // Cards and raw text are an agent's pane's two views; the transcript
    // and the result have one.
    if !matches!(app.focus, Focus::Pane(_)) || app.show_verdict {
        hidden.push(Action::ToggleRaw);
    }
    if app.alternatives.is_empty() {
        hidden.push(Action::SwitchAgent);
    }
    if matches!(app.mode, Mode::Archive(_))
        && app.focus == Focus::Items
        && app.settle_refusal(app.item_cursor).is_some()
    {
        hidden.extend([Action::Accept, Action::Reject, Action::Note]);
    }
    match app.layers.last() {
        Some(Layer::Override(prompt)) => {
            if !app.skippable(prompt.pane) {
                hidden.push(Action::SkipCall);
            }
            if app.held(prompt.pane) {
                hidden.extend([Action::RetryCall, Action::WaitLonger]);
            } else {
                hidden.push(Action::RerunJudge);
            }
        }
        _ => {
            let focused = match app.focus {
                Focus::Pane(index) if !app.show_verdict => Some(index),
                _ => None,
            };
            let live = focused.is_some_and(|index| app.panes[index].live_call().is_some());
            let held = focused.is_some_and(|index| app.held(index));
            if !live {
                hidden.extend([Action::RetryCall, Action::WaitLonger]);
            }
            if (!live && !held) || !focused.is_some_and(|index| app.skippable(index)) {
                hidden.push(Action::SkipCall);
            }
            if !held {
                hidden.push(Action::RerunJudge);
            }
        }
    }
    // Help and quit always show, at the right; the hints of the focused
    // region fill the rest, dropping from the end when the row is short.
    let anchored = [Action::Help, Action::Quit];
    let hints: Vec<(String, &'static str)> =
        keymap::footer(&app.contexts(), app.key_mode(), &hidden)
            .into_iter()
            .map(|(key, hint)| (key, keymap::worded(hint, &app.info.words)))
            .map(|(key, hint)| match app.focus {
                Focus::Pane(index) if hint == keymap::RAW_TEXT && app.panes[index].raw => {
                    (key, keymap::CARDS)
                }
                _ => (key, hint),
            })
            .collect();
    let (right, left): (Vec<_>, Vec<_>) = hints.into_iter().partition(|(key, hint)| {
        anchored.iter().any(|action| {
            keymap::BINDINGS.iter().any(|binding| {
                binding.action == *action
                    && binding.hint == *hint
                    && binding.keys[0].label() == *key
            })
        })
    });
    let width = |hints: &[(String, &str)]| -> usize {
        hints
            .iter()
            .map(|(key, hint)| key.chars().count() + hint.chars().count() + 3)
            .sum()
    };
    let room = usize::from(area.width).saturating_sub(width(&right) + 1);
    let mut shown = Vec::new();
    for hint in left {
        if width(&shown) + width(std::slice::from_ref(&hint)) > room {
            break;
        }
        shown.push(hint);
    }
    let spans_of = |hints: &[(String, &str)]| -> Vec<Span<'static>> {
        hints
            .iter()
            .flat_map(|(key, hint)| {
                [
                    Span::styled(key.clone(), theme.key_hint),
                    Span::styled(format!(" {hint}  "), theme.dim),
                ]
            })
            .collect()
    };
    let mut spans = vec![Span::raw(" ")];
    spans.extend(spans_of(&shown));
    let used = 1 + width(&shown);
    spans.push(Span::raw(" ".repeat(
        usize::from(area.width).saturating_sub(used + width(&right)),
    )));
    spans.extend(spans_of(&right));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
