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
use crate::tui::app::App;
use crate::tui::layout::inner;

/// The view's title for an ending: a verdict, or the result of a protocol
/// that delivers a document.
pub fn title(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Completed { .. } => "Result",
        Outcome::Decided { .. } | Outcome::Failed { .. } => "Verdict",
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
    let explanation = app.info.ending_note.as_str();
    let body = inner(area);
    let (headline, rule) = match &report.outcome {
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
    };
    let paths_rows = (report.paths.len() as u16 + 2).min(body.height / 3);
    // The verdict with its rule, and the explanation, wrap; a blank row
    // follows them.
    let rows = |chars: usize| chars.div_ceil(usize::from(body.width.max(1))) as u16;
    let headline_rows = rows(headline.content.chars().count() + 2 + rule.chars().count());
    // How far the panel that decided agreed, beside the rule (fair judging).
    let agreement = app.board.agreement.as_deref();
    let agreement_rows = agreement.map_or(0, |line| rows(line.chars().count()));
    let [top, summary, paths] = Layout::vertical([
        Constraint::Length(headline_rows + agreement_rows + rows(explanation.chars().count()) + 1),
        Constraint::Min(3),
        Constraint::Length(paths_rows),
    ])
    .areas(body);
    let mut lines = vec![Line::from(vec![
        headline,
        Span::raw("  "),
        Span::styled(rule, theme.text),
    ])];
    lines.extend(agreement.map(|line| Line::styled(line, theme.text)));
    lines.push(Line::styled(explanation, theme.dim));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), top);
    super::panes::draw_doc(&report.summary, &report.scroll, frame, summary);
    let mut lines = vec![Line::styled(
        format!("Written to {}", app.info.run_dir.display()),
        theme.title,
    )];
    lines.extend(
        report
            .paths
            .iter()
            .map(|path| Line::styled(format!("  {path}"), theme.dim)),
    );
    frame.render_widget(Paragraph::new(lines), paths);
}
