//! Agent panes and the transcript: cached, wrapped text windows.

use ratatui::buffer::Buffer;

use super::Canvas;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Borders, Paragraph, Wrap};

use super::{frame_block, is_focused};
use crate::protocol::RoleGroup;
use crate::tui::app::{App, PaneStatus, Scroll, rate_text};
use crate::tui::layout::{Region, human_areas, inner};
use crate::tui::markdown::StreamDoc;
use crate::tui::theme::Theme;

/// The colour of a role: by its group, so every protocol's roles are
/// coloured alike.
pub fn role_style(theme: &Theme, group: RoleGroup) -> Style {
    match group {
        RoleGroup::Lead => theme.role_lead,
        RoleGroup::Challenger => theme.role_challenger,
        RoleGroup::Panel => theme.role_panel,
        RoleGroup::Synthesizer => theme.role_synthesizer,
    }
}

/// A one-character status mark for tabs.
pub fn status_mark(status: PaneStatus) -> &'static str {
    match status {
        PaneStatus::Waiting => "",
        PaneStatus::Streaming => " ●",
        PaneStatus::Done => " ✓",
        PaneStatus::TimedOut => " ⏱",
        PaneStatus::Retrying => " ↻",
        PaneStatus::Skipped => " ⤼",
        PaneStatus::Malformed => " ?",
        PaneStatus::Failed => " !",
        PaneStatus::NeedsAnswer => " ✎",
    }
}

fn badge(
    theme: &Theme,
    status: PaneStatus,
    tokens_per_second: Option<f64>,
    attempt: u32,
) -> Span<'static> {
    let (text, style) = match status {
        PaneStatus::Waiting => ("waiting".to_string(), theme.status_waiting),
        PaneStatus::Streaming => (
            match tokens_per_second {
                Some(rate) => format!("streaming {} tok/s", rate_text(rate)),
                None => "streaming".to_string(),
            },
            theme.status_streaming,
        ),
        PaneStatus::Done => ("done".to_string(), theme.status_done),
        PaneStatus::TimedOut => ("timed out".to_string(), theme.status_timed_out),
        PaneStatus::Retrying => (
            format!("retrying · attempt {attempt}"),
            theme.status_retrying,
        ),
        PaneStatus::Skipped => ("skipped".to_string(), theme.status_skipped),
        PaneStatus::Malformed => ("malformed".to_string(), theme.status_malformed),
        PaneStatus::Failed => ("failed".to_string(), theme.status_malformed),
        PaneStatus::NeedsAnswer => ("your answer".to_string(), theme.status_needs_moderator),
    };
    Span::styled(format!(" {text} "), style)
}

/// `text` in at most `columns` characters, with `…` where it was cut.
pub(super) fn shortened(text: &str, columns: usize) -> String {
    if text.chars().count() <= columns {
        return text.to_string();
    }
    let mut short: String = text.chars().take(columns.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// How a pane's title names the agent playing the role: `provider:model`,
/// except that the built-in scripted agents say what they are.
pub fn agent_label(agent: &str) -> String {
    match agent.strip_prefix("script:") {
        Some(crate::config::resolve::SCRIPT_MODEL) => "scripted".to_string(),
        Some(model) => format!("scripted {model}"),
        None => agent.to_string(),
    }
}

pub fn draw_agent(app: &App, index: usize, frame: &mut Buffer, area: Rect) {
    draw_agent_framed(app, index, frame, area, &agent_frame(app, index, area), 0);
}

/// Pane `index` in its frame `block` ([`agent_frame`]), with the text
/// drawn only from the view's row `from` down: the rows above are what the
/// last frame drew, unchanged since ([`Screen`](crate::tui::screen::Screen)
/// keeps them on screen).
pub fn draw_agent_framed(
    app: &App,
    index: usize,
    frame: &mut Buffer,
    area: Rect,
    block: &ratatui::widgets::Block<'_>,
    from: usize,
) {
    if area.height < 3 {
        // Shrunk to its title row while other panes stream.
        frame.render_widget(block.clone().borders(Borders::TOP), area);
        return;
    }
    frame.render_widget(block, area);
    draw_agent_body(app, index, frame, area, from);
}

/// The frame of pane `index` drawn over `area`: its border, the role's
/// title and the badge on the top row, and a paused view's hint on the
/// bottom one. A frame equal to the one last drawn there leaves those
/// cells as they were (the text inside never touches them).
pub fn agent_frame(app: &App, index: usize, area: Rect) -> ratatui::widgets::Block<'static> {
    let theme = &app.theme;
    let pane = &app.panes[index];
    let focused = is_focused(app, Region::Pane(index));
    let badge = badge(theme, pane.status, pane.tokens_per_second, pane.attempt);
    // The title and the badge share the top border: a narrow pane drops
    // the agent's name first, then shortens the role's.
    let room = usize::from(area.width)
        .saturating_sub(2)
        .saturating_sub(badge.width());
    let star = if pane.role.binding { " ★" } else { "" };
    let agent = format!(" · {} ", agent_label(&pane.agent));
    // How the judge judges fairly (`blind · own order · ≈ anthropic`), shown
    // when there is room after the role's title.
    let marks = match pane.role.marks.is_empty() {
        true => String::new(),
        false => format!(" [{}]", pane.role.marks.join(" · ")),
    };
    let role_room = room.saturating_sub(1 + star.chars().count());
    let shows_agent = pane.role.title.chars().count() + agent.chars().count() <= role_room;
    let shows_marks = shows_agent
        && pane.role.title.chars().count() + agent.chars().count() + marks.chars().count()
            <= role_room;
    let role_title = if shows_agent {
        pane.role.title.clone()
    } else {
        shortened(&pane.role.title, role_room.saturating_sub(1)) + " "
    };
    let mut title = vec![
        Span::raw(" "),
        Span::styled(role_title, role_style(theme, pane.role.group)),
    ];
    if pane.role.binding {
        title.push(Span::styled(star, theme.binding));
    }
    if shows_marks {
        title.push(Span::styled(marks, theme.dim));
    }
    if shows_agent {
        title.push(Span::styled(agent, theme.dim));
    }
    let mut block =
        frame_block(app, Line::from(title), focused).title(Line::from(badge).right_aligned());
    // A pane folded to its title row has no foot to mark: the marks
    // would be drawn over its title.
    let foot = foot_marks(app, index);
    if !foot.is_empty() && area.height > 2 {
        block = block.title_bottom(Line::from(foot).left_aligned());
    }
    if !pane.scroll.follow && pane.shown().line_count() > pane.viewport {
        block = block.title_bottom(Line::styled(" paused · G follows ", theme.dim).right_aligned());
    }
    block
}

/// The marks at the foot of pane `index`: what of its answers was left
/// out or repaired, and how its latest answer's citations checked out
/// (` cited 3 ✓ · 1 ✗ `, issue 52).
fn foot_marks(app: &App, index: usize) -> Vec<Span<'static>> {
    let theme = &app.theme;
    let pane = &app.panes[index];
    let mut foot = Vec::new();
    if let Some(slips) = slip_marks(app, &pane.role.slot) {
        foot.push(Span::styled(slips, theme.status_needs_moderator));
    }
    if let Some((verified, failed)) = pane.cited {
        let style = if failed > 0 {
            theme.status_needs_moderator
        } else {
            theme.dim
        };
        foot.push(Span::styled(
            format!(" cited {verified} ✓ · {failed} ✗ "),
            style,
        ));
    }
    foot
}

/// What of the answers of `slot` could not be read and was left out, and
/// what only a repair made readable (issue 59), for the bottom of its pane:
/// ` 1 left out · 2 repaired `; none when everything was read.
fn slip_marks(app: &App, slot: &str) -> Option<String> {
    let left_out = app.board.unread.iter().filter(|u| u.whose == slot).count();
    let repaired = app
        .board
        .repaired
        .iter()
        .filter(|r| r.whose == slot)
        .count();
    let mut marks = Vec::new();
    if left_out > 0 {
        marks.push(format!("{left_out} left out"));
    }
    if repaired > 0 {
        marks.push(format!("{repaired} repaired"));
    }
    (!marks.is_empty()).then(|| format!(" {} ", marks.join(" · ")))
}

/// What pane `index` shows inside its frame over `area`, its text from
/// the view's row `from` down.
pub fn draw_agent_body(app: &App, index: usize, frame: &mut Buffer, area: Rect, from: usize) {
    let theme = &app.theme;
    let pane = &app.panes[index];
    let body = inner(area);
    if let Some(human) = &pane.human {
        let areas = human_areas(body, human.error.is_some());
        draw_doc(&human.prompt, &human.prompt_scroll, frame, areas.prompt);
        // The answer's own frame, so that it does not read as more prompt.
        let writing = matches!(
            app.layers.last(),
            Some(crate::tui::app::Layer::AnswerEditor { pane }) if *pane == index
        );
        let (title, style) = if writing {
            (
                " Your answer · Ctrl-S sends it · Esc stops writing ",
                theme.key_hint,
            )
        } else {
            (
                " Your answer · e writes it · PgUp/PgDn read the prompt ",
                theme.dim,
            )
        };
        let frame_of_answer = ratatui::widgets::Block::new()
            .borders(Borders::TOP)
            .border_style(style)
            .title(Line::styled(title, style));
        let editor = frame_of_answer.inner(areas.editor);
        frame.render_widget(frame_of_answer, areas.editor);
        frame.render_widget(&human.editor, editor);
        if let Some(message) = &human.error {
            frame.render_widget(
                Paragraph::new(Line::styled(message.clone(), theme.error))
                    .wrap(Wrap { trim: false }),
                areas.error,
            );
        }
        return;
    }
    if pane.shown().line_count() == 0 {
        let waiting = match pane.status {
            PaneStatus::Waiting => "waiting for its turn",
            _ => "…",
        };
        frame.render_widget(Paragraph::new(Line::styled(waiting, theme.dim)), body);
        return;
    }
    draw_doc_from(pane.shown(), &pane.scroll, frame, body, from);
}

/// Draws the visible window of a laid-out document, row by row: its lines
/// are wrapped to the width already, so nothing reflows them again.
pub fn draw_doc(doc: &StreamDoc, scroll: &Scroll, frame: &mut Buffer, area: Rect) {
    draw_doc_from(doc, scroll, frame, area, 0);
}

/// [`draw_doc`] from the view's row `from` down: the rows above it are
/// left as they are in `frame`.
fn draw_doc_from(doc: &StreamDoc, scroll: &Scroll, frame: &mut Buffer, area: Rect, from: usize) {
    let area = area.intersection(frame.area);
    let height = usize::from(area.height);
    let first = scroll.first_line(doc.line_count(), height);
    let from = from.min(height);
    let rows = doc.lines(first + from, height - from);
    for (y, line) in (area.top() + from as u16..).zip(rows) {
        put_line(frame, area.x, y, &line, area.width);
    }
}

/// One line at (`x`, `y`), cut at `width` columns, as a paragraph draws
/// it. A run of printable ASCII (most of what models write) goes straight
/// into its cells, one byte a cell, with no grapheme segmentation.
fn put_line(frame: &mut Buffer, x: u16, y: u16, line: &Line, width: u16) {
    let right = x.saturating_add(width);
    let mut x = x;
    for span in &line.spans {
        if x >= right {
            break;
        }
        let style = line.style.patch(span.style);
        let text = span.content.as_bytes();
        if text.iter().all(|byte| (b' '..=b'~').contains(byte)) {
            let count = text.len().min(usize::from(right - x));
            let start = frame.index_of(x, y);
            for (cell, &byte) in frame.content[start..start + count].iter_mut().zip(text) {
                cell.set_char(char::from(byte)).set_style(style);
            }
            // `count` is at most `right - x`, a u16.
            x += u16::try_from(count).unwrap_or(u16::MAX);
        } else {
            (x, _) = frame.set_stringn(x, y, &span.content, usize::from(right - x), style);
        }
    }
}

pub fn draw_transcript(app: &App, frame: &mut Buffer, area: Rect) {
    let theme = &app.theme;
    let focused = is_focused(app, Region::Transcript);
    let block = frame_block(app, Line::styled(" Transcript ", theme.title), focused);
    frame.render_widget(block, area);
    draw_doc(&app.transcript, &app.transcript_scroll, frame, inner(area));
}
