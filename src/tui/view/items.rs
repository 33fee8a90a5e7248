//! The items list: every item the moderator decides (a critique item, a
//! vulnerability) with its target, severity, kind and
//! the moderator's decision; for a finished debate opened again, how each
//! deferred item was settled after the verdict, and what is left to do.
//! With room below the list, the item under the cursor in full; while
//! moderating, with room beside it, the text it attacks (found by
//! [`crate::tui::app::target`]).

use ratatui::buffer::Buffer;

use super::Canvas;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::{frame_block, is_focused, open_items};
use crate::protocol::{BoardItem, ItemDecision, ItemWords, Outcome};
use crate::tui::app::archive::resolution_time;
use crate::tui::app::{App, ItemTarget, Mode, Scroll};
use crate::tui::layout::{self, Region};
use crate::tui::theme::Theme;

/// Width of the settlement column of an archived debate's items, in cells.
const SETTLEMENT_COLUMN_WIDTH: usize = 21;

pub fn severity_style(theme: &Theme, severity: &str) -> Style {
    match severity.to_ascii_lowercase().as_str() {
        "major" | "critical" | "high" => theme.severity_high,
        "minor" | "medium" => theme.severity_medium,
        _ => theme.severity_low,
    }
}

/// The decision in the protocol's word, padded to its longest word so the
/// columns after it line up.
pub fn decision_span(
    theme: &Theme,
    words: &ItemWords,
    decision: Option<ItemDecision>,
) -> Span<'static> {
    let width = [words.accept, words.reject, words.defer]
        .iter()
        .map(|word| word.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let (text, style) = match decision {
        Some(ItemDecision::Accept) => (words.accept, theme.decision_accept),
        Some(ItemDecision::Reject) => (words.reject, theme.decision_reject),
        Some(ItemDecision::Defer) => (words.defer, theme.decision_defer),
        None => {
            return Span::styled(format!("{:^width$}", "?"), theme.status_needs_moderator);
        }
    };
    Span::styled(format!("{text:<width$}"), style)
}

/// What a participant proposed for the item (a planner's response), as a
/// cell before the decision: `planner: reject → `; no cell when no item on
/// the board carries a proposal.
fn suggestion_span(app: &App, columns: &Columns, entry: &BoardItem) -> Span<'static> {
    let Some(by) = &columns.suggested_by else {
        return Span::raw("");
    };
    let width = by.chars().count() + ": reject → ".chars().count();
    let text = match &entry.item.suggestion {
        Some(suggestion) => format!("{}: {} → ", suggestion.by, suggestion.decision.as_str()),
        None => String::new(),
    };
    let overridden = entry
        .decision
        .zip(entry.item.suggestion.as_ref())
        .is_some_and(|(decision, suggestion)| decision != suggestion.decision);
    let style = if overridden {
        app.theme.severity_high
    } else {
        app.theme.dim
    };
    Span::styled(format!("{text:<width$}"), style)
}

/// How a deferred item was settled after the verdict, as one short cell:
/// `→accept 30 Nov 12:00`, `→ ?` while it can still be settled.
fn settlement_span(app: &App, index: usize, entry: &BoardItem) -> Span<'static> {
    let theme = &app.theme;
    let cell = |text: String, style: Style| {
        let width = text.chars().count();
        let padding = SETTLEMENT_COLUMN_WIDTH.saturating_sub(width);
        Span::styled(format!("{text}{}", " ".repeat(padding)), style)
    };
    let Mode::Archive(archive) = &app.mode else {
        return Span::raw("");
    };
    if let Some(resolution) = &entry.resolution {
        let time = resolution
            .at
            .with_timezone(&chrono::Local)
            .format("%d %b %H:%M");
        let style = match resolution.decision {
            ItemDecision::Accept => theme.decision_accept,
            _ => theme.decision_reject,
        };
        let word = app.info.words.word(resolution.decision);
        return cell(format!("→{word} {time}"), style);
    }
    if let Some(decision) = archive.sending(&entry.item.id) {
        let word = app.info.words.word(decision);
        return cell(format!("→{word} …"), theme.dim);
    }
    if app.settle_refusal(index).is_none() {
        return cell("→ ?".into(), theme.status_needs_moderator);
    }
    cell(String::new(), theme.dim)
}

/// What every row of the item list shares, found once per frame from every
/// item on the board: a row then costs what it shows, not a pass over
/// thousands of items.
struct Columns {
    /// The id, target, severity and kind columns ([`column_widths`]).
    widths: [usize; 4],
    /// Who proposes decisions, when some item carries a proposal.
    suggested_by: Option<String>,
}

impl Columns {
    fn of(app: &App) -> Self {
        Columns {
            widths: column_widths(app),
            suggested_by: app
                .board
                .items
                .iter()
                .find_map(|entry| entry.item.suggestion.as_ref().map(|s| s.by.clone())),
        }
    }
}

/// The most characters the target column shows: a block's or a
/// finding's id fits whole, a place in a draft (`second paragraph, "This
/// means …"`) is cut, so that every row keeps its decision in sight. The
/// item's detail below the list names the target whole.
const TARGET_COLUMN_CHARS: usize = 24;

/// The widths of the item list's id, target, severity and kind columns:
/// wide enough for every item on the board (a decision review's `major`, a
/// red team's `critical`), at least as wide as they always were; a target
/// no item has takes no room, and a long one is cut to
/// [`TARGET_COLUMN_CHARS`].
fn column_widths(app: &App) -> [usize; 4] {
    let widest = |field: fn(&BoardItem) -> &str, least: usize| {
        app.board
            .items
            .iter()
            .map(|entry| field(entry).chars().count() + 1)
            .max()
            .unwrap_or(least)
            .max(least)
    };
    let widest_about = app
        .board
        .items
        .iter()
        .map(|entry| column_about(&entry.item).chars().count())
        .max()
        .unwrap_or(0);
    [
        widest(|entry| &entry.item.id, 4),
        if widest_about > 0 {
            (widest_about + 1).clamp(4, TARGET_COLUMN_CHARS + 1)
        } else {
            0
        },
        widest(|entry| &entry.item.severity, 6),
        widest(|entry| &entry.item.category, 12),
    ]
}

/// What the list's narrow column says an item is about: its target, or
/// for an item about the whole text the role that raised it (the item's
/// heading says `from the critic` in full).
fn column_about(item: &crate::protocol::ModerationItem) -> &str {
    if item.target.is_empty() {
        &item.raised_by
    } else {
        &item.target
    }
}

/// The decision the list shows: outside an archive (which has a column
/// for settlements), a deferred item settled after the verdict shows how it
/// was settled, since a reopened round acts on that, not on the deferral.
pub(super) fn shown_decision(app: &App, entry: &BoardItem) -> Option<ItemDecision> {
    match (&app.mode, &entry.resolution) {
        (Mode::Archive(_), _) | (_, None) => entry.decision,
        (_, Some(resolution)) => Some(resolution.decision),
    }
}

fn item_line<'a>(
    app: &App,
    columns: &Columns,
    (index, entry): (usize, &'a BoardItem),
    selected: bool,
) -> Line<'a> {
    let theme = &app.theme;
    let marker = if selected { "▸ " } else { "  " };
    let [id, target, severity, category] = columns.widths;
    let mut spans = vec![
        Span::styled(marker, theme.key_hint),
        Span::styled(format!("{:<id$}", entry.item.id), theme.text),
        Span::styled(
            format!(
                "{:<target$}",
                super::panes::shortened(column_about(&entry.item), target.saturating_sub(1))
            ),
            theme.dim,
        ),
        Span::styled(
            format!("{:<severity$}", entry.item.severity),
            severity_style(theme, &entry.item.severity),
        ),
        Span::styled(format!("{:<category$}", entry.item.category), theme.dim),
        suggestion_span(app, columns, entry),
        decision_span(theme, &app.info.words, shown_decision(app, entry)),
        settlement_span(app, index, entry),
        Span::raw(if entry.note.is_some() { " ✎ " } else { "   " }),
        Span::styled(crate::words::one_line(&entry.item.text), theme.text),
    ];
    if selected {
        for span in &mut spans {
            span.style = span.style.patch(theme.selection);
        }
    }
    Line::from(spans)
}

pub fn draw(app: &App, frame: &mut Buffer, area: Rect) {
    let theme = &app.theme;
    let focused = is_focused(app, Region::Items);
    let badge = match &app.mode {
        Mode::Archive(_) => match app.unsettled() {
            0 => None,
            open => Some(format!(" {open} to settle ")),
        },
        _ if !app.moderating() => None,
        // A replay shows the moderation as it went; nobody submits here.
        Mode::Replay(_) => match open_items(app) {
            0 => Some(" all decided ".to_string()),
            open => Some(format!(" {open} to decide ")),
        },
        Mode::Live => match open_items(app) {
            0 => Some(" all decided · s submits ".to_string()),
            open => Some(format!(" {open} to decide ")),
        },
    };
    let name = app
        .info
        .items
        .as_ref()
        .map_or("Items", |items| items.title.as_str());
    let mut title = vec![Span::styled(format!(" {name} "), theme.title)];
    if let Some(badge) = badge {
        title.push(Span::styled(badge, theme.status_needs_moderator));
    }
    if !app.board.unread.is_empty() {
        title.push(Span::styled(
            format!(" {} left out ", app.board.unread.len()),
            theme.severity_high,
        ));
    }
    frame.render_widget(frame_block(app, Line::from(title), focused), area);
    let areas = layout::items_areas(&app.items_shape(), area);
    if let Some(status) = areas.status {
        frame.render_widget(
            Paragraph::new(archive_status(app)).wrap(Wrap { trim: true }),
            status,
        );
    }
    if app.board.items.is_empty() {
        let mut lines = vec![Line::styled(
            app.info
                .items
                .as_ref()
                .map(|items| items.placeholder.clone())
                .unwrap_or_default(),
            theme.dim,
        )];
        lines.extend(unread_lines(
            app,
            usize::from(areas.list.height).saturating_sub(1),
        ));
        frame.render_widget(Paragraph::new(lines), areas.list);
        return;
    }
    // With room to spare, the item under the cursor is shown in full below
    // the list, and beside it the text it attacks.
    if let (Some(preview), Some(entry)) = (areas.item, app.board.items.get(app.item_cursor)) {
        let paragraph = Paragraph::new(item_in_full(app, entry)).wrap(Wrap { trim: true });
        let rows = paragraph.line_count(preview.width);
        let height = usize::from(preview.height);
        let scroll = app.item_scroll.min(rows.saturating_sub(height));
        frame.render_widget(
            paragraph.scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
            preview,
        );
        // Where there is more of it, the last row says how to read on.
        if rows > height && preview.height > 0 {
            let more = if scroll + height < rows {
                " PgDn more ↓ "
            } else {
                " PgUp back ↑ "
            };
            let width = more.chars().count() as u16;
            let at = Rect {
                x: preview.right().saturating_sub(width),
                y: preview.bottom() - 1,
                width: width.min(preview.width),
                height: 1,
            };
            frame.render_widget(Paragraph::new(Line::styled(more, theme.key_hint)), at);
        }
    }
    if let (Some(rect), Some(target)) = (areas.target, &app.item_target) {
        draw_target(app, target, frame, rect);
    }
    let body = areas.list;
    // What could not be read takes the list's last rows while the items
    // leave room for it, so the moderator sees it before ruling.
    let unread_rows = unread_rows(app, body.height);
    let height = usize::from(body.height.saturating_sub(unread_rows)).max(1);
    let first = app.item_cursor.saturating_sub(height.saturating_sub(1));
    let columns = Columns::of(app);
    let mut lines: Vec<Line> = app
        .board
        .items
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|row| item_line(app, &columns, row, focused && row.0 == app.item_cursor))
        .collect();
    if unread_rows > 0 {
        lines.extend(unread_lines(app, usize::from(unread_rows)));
    }
    frame.render_widget(Paragraph::new(lines), body);
}

/// The rows the items list gives to what could not be read in a list
/// `height` rows high: some, while the items keep at least as many.
fn unread_rows(app: &App, height: u16) -> u16 {
    if app.board.unread.is_empty() {
        return 0;
    }
    let wanted = (app.board.unread.len() as u16).min(layout::UNREAD_ROWS_MAX);
    let items = (app.board.items.len() as u16).max(1);
    wanted.min(height.saturating_sub(items.min(height / 2).max(1)))
}

/// Up to `rows` lines naming what could not be read, whose it was and what
/// that changed; the last says how many more there are.
fn unread_lines(app: &App, rows: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let unread = &app.board.unread;
    if rows == 0 || unread.is_empty() {
        return Vec::new();
    }
    let shown = if unread.len() > rows {
        rows.saturating_sub(1)
    } else {
        unread.len()
    };
    let mut lines: Vec<Line<'static>> = unread[..shown]
        .iter()
        .map(|entry| {
            Line::from(vec![
                Span::styled("✗ left out ", theme.severity_high),
                Span::styled(format!("{}, {}: ", entry.whose, entry.what), theme.text),
                Span::styled(crate::words::one_line(&entry.effect), theme.dim),
            ])
        })
        .collect();
    if shown < unread.len() {
        lines.push(Line::styled(
            format!(
                "✗ and {} more left out: transcript.md and the deliverable list them",
                unread.len() - shown
            ),
            theme.severity_high,
        ));
    }
    lines
}

/// The rows the selected item takes in full at `width`, as the items
/// region shows it.
pub(crate) fn item_in_full_rows(app: &App, width: u16) -> usize {
    app.board.items.get(app.item_cursor).map_or(0, |entry| {
        Paragraph::new(item_in_full(app, entry))
            .wrap(Wrap { trim: true })
            .line_count(width)
    })
}

/// The selected item in full: its heading, settlement, proposal, text,
/// preface and note.
fn item_in_full<'a>(app: &App, entry: &'a BoardItem) -> Vec<Line<'a>> {
    let theme = &app.theme;
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} · ", entry.item.heading()), theme.title),
        Span::styled(
            entry.item.severity.clone(),
            severity_style(theme, &entry.item.severity),
        ),
        Span::styled(format!(" · {}", entry.item.category), theme.dim),
    ])];
    lines.extend(settlement_lines(app, entry));
    if let Some(suggestion) = &entry.item.suggestion {
        lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "The {} proposes to {}: ",
                    suggestion.by,
                    suggestion.decision.as_str()
                ),
                theme.dim,
            ),
            Span::styled(suggestion.reason.clone(), theme.text),
        ]));
    }
    lines.extend(
        entry
            .item
            .text
            .lines()
            .map(|line| Line::styled(line.to_string(), theme.text)),
    );
    lines.extend(evidence_lines(theme, &entry.evidence));
    if !entry.item.preface.is_empty() {
        lines.push(Line::styled(
            format!("Conceded first: {}", entry.item.preface),
            theme.dim,
        ));
    }
    if let Some(note) = &entry.note {
        lines.push(Line::styled(format!("Your note: {note}"), theme.text));
    }
    lines
}

/// An item's citations as checked (issue 52), one line each, marked in the
/// tone of what checking found: ✓ verified, ✗ not, ? not checkable.
pub(super) fn evidence_lines<'a>(
    theme: &crate::tui::theme::Theme,
    evidence: &'a [String],
) -> impl Iterator<Item = Line<'a>> + 'a {
    let (good, bad, open) = (theme.tone_positive, theme.tone_negative, theme.dim);
    evidence.iter().map(move |line| {
        let style = match line.chars().next() {
            Some('✓') => good,
            Some('✗') => bad,
            _ => open,
        };
        Line::styled(line.as_str(), style)
    })
}

/// The text the selected item attacks, right of a rule, under a heading
/// that says where it comes from; laid out by `App::prepare`.
fn draw_target(app: &App, target: &ItemTarget, frame: &mut Buffer, rect: Rect) {
    let theme = &app.theme;
    frame.render_widget(
        Block::default()
            .borders(Borders::LEFT)
            .border_style(theme.border),
        rect,
    );
    let (heading, text) = layout::target_areas(rect);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(target.target.clone(), theme.title),
            Span::styled(", as quorum read it", theme.dim),
        ])),
        heading,
    );
    let from_top = Scroll {
        top: 0,
        follow: false,
        held: None,
    };
    super::panes::draw_doc(&target.doc, &from_top, frame, text);
}

/// How `entry` was settled after the verdict, in full, and a note written
/// for a settlement not made yet.
pub fn settlement_lines(app: &App, entry: &BoardItem) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut lines = Vec::new();
    if let Some(resolution) = &entry.resolution {
        let mut text = format!(
            "Settled after the verdict: {} on {}",
            resolution.decision.past_tense(),
            resolution_time(resolution.at)
        );
        if let Some(note) = &resolution.note {
            text.push_str(&format!(" — {note}"));
        }
        lines.push(Line::styled(text, theme.text));
    } else if let Some(note) = app.pending_note(&entry.item.id) {
        lines.push(Line::styled(
            format!("Your note, for its settlement: {note}"),
            theme.text,
        ));
    }
    lines
}

/// What is left to do with an archived debate's items (the title counts
/// the items still open).
fn archive_status(app: &App) -> Line<'static> {
    let theme = &app.theme;
    if app.reopen_pending() {
        return Line::styled(
            format!(
                "Accepted items wait for another round: `quorum resume {} --reopen`",
                app.info.run_dir.display()
            ),
            theme.status_needs_moderator,
        );
    }
    let text = match (&app.outcome, app.unsettled()) {
        (Some(Outcome::Failed { .. }), _) => {
            "The debate ended without a verdict: its items cannot be settled."
        }
        (_, 0) => "Nothing is left to settle.",
        _ => "A deferred item can still be accepted or rejected, with a note written first.",
    };
    Line::styled(text, theme.dim)
}
