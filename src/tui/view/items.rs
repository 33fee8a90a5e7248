//! The items list: every critique item with its block, severity, kind and
//! the moderator's decision.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{frame_block, is_focused, open_items};
use crate::model::ItemDecision;
use crate::protocol::BoardItem;
use crate::tui::app::App;
use crate::tui::layout::{Region, inner};
use crate::tui::theme::Theme;

/// Rows the items region needs beyond the list to preview the selected item.
const PREVIEW_MIN_ROWS: u16 = 5;

pub fn severity_style(theme: &Theme, severity: &str) -> Style {
    match severity.to_ascii_lowercase().as_str() {
        "major" | "critical" | "high" => theme.severity_major,
        "minor" | "medium" => theme.severity_minor,
        _ => theme.severity_note,
    }
}

pub fn decision_span(theme: &Theme, decision: Option<ItemDecision>) -> Span<'static> {
    match decision {
        Some(ItemDecision::Accept) => Span::styled("accept", theme.decision_accept),
        Some(ItemDecision::Reject) => Span::styled("reject", theme.decision_reject),
        Some(ItemDecision::Defer) => Span::styled("defer ", theme.decision_defer),
        None => Span::styled("  ?   ", theme.status_needs_moderator),
    }
}

fn item_line<'a>(theme: &Theme, entry: &'a BoardItem, selected: bool) -> Line<'a> {
    let marker = if selected { "▸ " } else { "  " };
    let mut spans = vec![
        Span::styled(marker, theme.key_hint),
        Span::styled(format!("{:<4}", entry.item.id), theme.text),
        Span::styled(format!("{:<4}", entry.item.target), theme.dim),
        Span::styled(
            format!("{:<6}", entry.item.severity),
            severity_style(theme, &entry.item.severity),
        ),
        Span::styled(format!("{:<12}", entry.item.category), theme.dim),
        decision_span(theme, entry.decision),
        Span::raw(if entry.note.is_some() { " ✎ " } else { "   " }),
        Span::styled(
            crate::artifact::render::one_line(&entry.item.text),
            theme.text,
        ),
    ];
    if selected {
        for span in &mut spans {
            span.style = span.style.patch(theme.selection);
        }
    }
    Line::from(spans)
}

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let focused = is_focused(app, Region::Items);
    let title = if app.moderating() {
        let badge = match open_items(app) {
            0 => " all decided · s submits ".to_string(),
            open => format!(" {open} to decide "),
        };
        Line::from(vec![
            Span::styled(" Critique items ", theme.title),
            Span::styled(badge, theme.status_needs_moderator),
        ])
    } else {
        Line::styled(" Critique items ", theme.title)
    };
    frame.render_widget(frame_block(app, title, focused), area);
    let body = inner(area);
    if app.board.items.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "The critic's items appear here for your decision.",
                theme.dim,
            )),
            body,
        );
        return;
    }
    // With room to spare, the item under the cursor is shown in full below
    // the list.
    let list_rows = app.board.items.len() as u16;
    let (body, preview) = if body.height >= list_rows + PREVIEW_MIN_ROWS {
        let [list, preview] = Layout::vertical([
            Constraint::Length(list_rows + 1),
            Constraint::Min(PREVIEW_MIN_ROWS - 1),
        ])
        .areas(body);
        (list, Some(preview))
    } else {
        (body, None)
    };
    if let (Some(preview), Some(entry)) = (preview, app.board.items.get(app.item_cursor)) {
        let mut lines = vec![Line::from(vec![
            Span::styled(
                format!("{} on {} · ", entry.item.id, entry.item.target),
                theme.title,
            ),
            Span::styled(
                entry.item.severity.clone(),
                severity_style(theme, &entry.item.severity),
            ),
            Span::styled(format!(" · {}", entry.item.category), theme.dim),
        ])];
        lines.push(Line::styled(entry.item.text.clone(), theme.text));
        if !entry.item.preface.is_empty() {
            lines.push(Line::styled(
                format!("Conceded first: {}", entry.item.preface),
                theme.dim,
            ));
        }
        if let Some(note) = &entry.note {
            lines.push(Line::styled(format!("Your note: {note}"), theme.text));
        }
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), preview);
    }
    let height = usize::from(body.height).max(1);
    let first = app.item_cursor.saturating_sub(height.saturating_sub(1));
    let lines: Vec<Line> = app
        .board
        .items
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(index, entry)| item_line(theme, entry, focused && index == app.item_cursor))
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}
