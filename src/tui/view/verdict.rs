//! The result view: the outcome (a verdict with its rule, a delivered
//! document, or a failure), the reader-first deliverable the protocol wrote
//! and every file written. It stays until the person quits; Tab goes back
//! to the panes.

use ratatui::buffer::Buffer;

use super::Canvas;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::board::{tone_style, verdict_style};
use super::frame_block;
use crate::protocol::{Outcome, Tone};
use crate::tui::app::{App, VerdictReport};
use crate::tui::layout::inner;

/// The view's title for an ending: a verdict, or the result of a protocol
/// that delivers a document.
pub fn title(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Completed { .. } => "Result",
        Outcome::Decided { .. } | Outcome::Failed { .. } => "Verdict",
    }
}

/// Below this many rows inside its frame the view leads with the outcome
/// and the deliverable: the note on how the outcome was reached is left
/// out, and the files written take two rows (the folder, and how many).
pub const SMALL_VIEW_ROWS: u16 = 30;

/// Where the view's parts go inside its frame (`body`): the outcome with
/// its rule, the panel's agreement and the explanation, wrapped; then the
/// deliverable, which scrolls; then the files written.
pub(crate) struct VerdictAreas {
    pub top: Rect,
    /// The rows the deliverable is drawn in: a page.
    pub summary: Rect,
    /// Below it, when it is longer than a page, the row that says how to
    /// read on (its own row, so that it hides none of the text).
    pub more: Option<Rect>,
    pub files: Rect,
}

/// The outcome's badge and the rule or reason beside it.
fn headline(app: &App, outcome: &Outcome) -> (Span<'static>, String) {
    let theme = &app.theme;
    match outcome {
        Outcome::Decided { verdict, rule } => (
            Span::styled(
                format!(" {} ", verdict.as_str()),
                verdict_style(theme, *verdict),
            ),
            rule.clone(),
        ),
        Outcome::Completed { note, .. } => (
            Span::styled(" DONE ", tone_style(theme, Tone::Positive)),
            note.clone(),
        ),
        Outcome::Failed { reason } => (Span::styled(" NO VERDICT ", theme.error), reason.clone()),
    }
}

/// Did the debate pay (issue 55): the plain vote against the verdict, the
/// positions that changed and their cost; in a small view, only the vote.
fn payoff_lines(app: &App, small: bool) -> &[String] {
    let payoff = app.board.payoff.as_slice();
    match small {
        true => &payoff[..payoff.len().min(1)],
        false => payoff,
    }
}

/// The line that says where the files went; a long path wraps.
fn written_to(app: &App) -> Paragraph<'static> {
    let line = format!("Written to {}", app.info.run_dir.display());
    Paragraph::new(Line::styled(line, app.theme.title)).wrap(Wrap { trim: false })
}

/// The parts of the verdict view of `report` inside `body`, its
/// deliverable already laid out. The interface pages through the
/// deliverable by the same areas.
pub(crate) fn verdict_areas(app: &App, report: &VerdictReport, body: Rect) -> VerdictAreas {
    let (badge, rule) = headline(app, &report.outcome);
    let rows = |chars: usize| chars.div_ceil(usize::from(body.width.max(1))) as u16;
    let headline_rows = rows(badge.content.chars().count() + 2 + rule.chars().count());
    let small = body.height < SMALL_VIEW_ROWS;
    let agreement_rows = app
        .board
        .agreement
        .iter()
        .chain(payoff_lines(app, small))
        .map(|line| rows(line.chars().count()))
        .sum::<u16>();
    let explanation_rows = if small {
        0
    } else {
        rows(app.info.ending_note.chars().count())
    };
    // The folder's line, then a row a file, in at most a third of the view
    // (in a small view, the folder and one row more).
    let most_files_rows = if small {
        2
    } else {
        usize::from(body.height / 3)
    };
    let files_rows = (written_to(app).line_count(body.width) + report.paths.len() + 1)
        .min(most_files_rows) as u16;
    let [top, summary, files] = Layout::vertical([
        Constraint::Length(headline_rows + agreement_rows + explanation_rows + 1),
        Constraint::Min(3),
        Constraint::Length(files_rows),
    ])
    .areas(body);
    let (summary, more) = if report.summary.line_count() > usize::from(summary.height) {
        let [summary, more] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(summary);
        (summary, Some(more))
    } else {
        (summary, None)
    };
    VerdictAreas {
        top,
        summary,
        more,
        files,
    }
}

pub fn draw(app: &App, frame: &mut Buffer, area: Rect) {
    let Some(report) = &app.report else {
        return;
    };
    let theme = &app.theme;
    frame.render_widget(
        frame_block(
            app,
            Line::styled(format!(" {} ", title(&report.outcome)), theme.title),
            true,
        ),
        area,
    );
    let areas = verdict_areas(app, report, inner(area));
    let (badge, rule) = headline(app, &report.outcome);
    let mut lines = vec![Line::from(vec![
        badge,
        Span::raw("  "),
        Span::styled(rule, theme.text),
    ])];
    let agreement = app.board.agreement.as_deref();
    lines.extend(agreement.map(|line| Line::styled(line, theme.text)));
    let small = inner(area).height < SMALL_VIEW_ROWS;
    lines.extend(
        payoff_lines(app, small)
            .iter()
            .map(|line| Line::styled(line.as_str(), theme.text)),
    );
    if !small {
        lines.push(Line::styled(app.info.ending_note.as_str(), theme.dim));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), areas.top);
    super::panes::draw_doc(&report.summary, &report.scroll, frame, areas.summary);
    if let Some(row) = areas.more {
        let (total, height) = (
            report.summary.line_count(),
            usize::from(areas.summary.height),
        );
        let more = if report.scroll.first_line(total, height) + height < total {
            " PgDn more ↓ "
        } else {
            " PgUp back ↑ "
        };
        let line = Line::styled(more, theme.key_hint);
        frame.render_widget(Paragraph::new(line).right_aligned(), row);
    }
    draw_files(app, report, frame, areas.files);
}

/// The run folder and the files written in it; where they do not all fit,
/// the last row counts the rest.
fn draw_files(app: &App, report: &VerdictReport, frame: &mut Buffer, area: Rect) {
    let theme = &app.theme;
    let folder = written_to(app);
    let folder_rows = (folder.line_count(area.width) as u16).min(area.height);
    frame.render_widget(
        folder,
        Rect {
            height: folder_rows,
            ..area
        },
    );
    let room = usize::from(area.height - folder_rows);
    let paths = &report.paths;
    let shown = if paths.len() > room {
        room.saturating_sub(1)
    } else {
        paths.len()
    };
    let mut lines: Vec<Line> = paths[..shown]
        .iter()
        .map(|path| Line::styled(format!("  {path}"), theme.dim))
        .collect();
    if shown < paths.len() && room > 0 {
        let more = crate::words::counted(paths.len() - shown, "more file", "more files");
        lines.push(Line::styled(
            format!("  … and {more} in that folder"),
            theme.dim,
        ));
    }
    let list = Rect {
        y: area.y + folder_rows,
        height: area.height - folder_rows,
        ..area
    };
    frame.render_widget(Paragraph::new(lines), list);
}
