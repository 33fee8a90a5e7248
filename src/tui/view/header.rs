//! The header: what is being debated, where the debate is, what it costs.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::playback::speed_label;
use crate::tui::app::{App, Mode};
use crate::tui::capitalise;

/// Narrower than this, the stage strip names only the current stage, in
/// columns.
pub const COMPACT_BELOW_COLUMNS: u16 = 110;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.theme;
    // The topic comes first so that a narrow terminal cuts the protocol
    // description, not the question being decided.
    let title = Line::from(vec![
        Span::styled(" quorum ", theme.title),
        Span::styled("│ ", theme.dim),
        Span::styled(app.info.topic.clone(), theme.text),
        Span::styled(" │ ", theme.dim),
        Span::styled(app.info.protocol.clone(), theme.header),
    ]);
    let compact = area.width < COMPACT_BELOW_COLUMNS;
    let stages = &app.board.stages;
    // A finished debate stands at the protocol's last stage.
    let current = if app.outcome.is_some() {
        stages.last().map_or("", |stage| stage.id.as_str())
    } else {
        app.progress.stage.as_str()
    };
    let titles: Vec<String> = if stages.is_empty() {
        vec![capitalise(current)]
    } else {
        stages.iter().map(|stage| stage.title.clone()).collect()
    };
    let position = if stages.is_empty() {
        Some(0)
    } else {
        stages.iter().position(|stage| stage.id == current)
    };
    let mut strip = vec![Span::raw(" ")];
    if compact {
        strip.extend(compact_strip(app, &titles, position, area.width));
        strip.push(Span::raw(" "));
    } else {
        for (index, title) in titles.iter().enumerate() {
            let style = match position {
                Some(at) if index < at => theme.stage_done,
                Some(at) if index == at => theme.stage_active,
                _ => theme.stage_pending,
            };
            if index > 0 {
                strip.push(Span::styled(" ▸ ", theme.dim));
            }
            strip.push(Span::styled(title.clone(), style));
        }
    }
    // What the screen is comes before the figures, so a narrow terminal
    // cuts the figures.
    match &app.mode {
        Mode::Live => {}
        Mode::Replay(playback) => {
            strip.push(Span::raw(" "));
            strip.push(Span::styled(
                format!(" replay {} ", speed_label(playback.speed)),
                theme.selection,
            ));
            if playback.ended && app.running() {
                strip.push(Span::raw(" "));
                strip.push(Span::styled(
                    " the recording stops here ",
                    theme.status_needs_moderator,
                ));
            } else if playback.paused && app.running() {
                strip.push(Span::raw(" "));
                strip.push(Span::styled(" paused ", theme.status_needs_moderator));
            }
        }
        Mode::Archive(_) => {
            strip.push(Span::raw(" "));
            strip.push(Span::styled(" archive ", theme.selection));
        }
    }
    // Round 0: the protocol runs no rounds.
    if app.progress.round > 0 {
        let round = match app.progress.max_round {
            0 => format!(" round {} ·", app.progress.round),
            max => format!(" round {}/{max} ·", app.progress.round),
        };
        strip.push(Span::styled(round, theme.dim));
    }
    if let Some((used, limit)) = app.progress.budget {
        let style = if used >= limit {
            theme.error
        } else {
            theme.dim
        };
        strip.push(Span::styled(format!(" budget {used}/{limit} ·"), style));
    }
    strip.push(Span::styled(
        format!(" {}", clock(app.elapsed.as_secs())),
        theme.dim,
    ));
    strip.push(Span::styled(format!(" · {}", tokens(app)), theme.dim));
    if let Some(cost) = app.totals.cost_usd {
        strip.push(Span::styled(format!(" · ${cost:.2}"), theme.dim));
    }
    // In a replay the moderator's turn is history, not a call to act.
    if app.board.needs_moderator && matches!(app.mode, Mode::Live) {
        strip.push(Span::raw("  "));
        strip.push(Span::styled(
            " needs moderator ",
            theme.status_needs_moderator,
        ));
    }
    if let Some(error) = &app.engine_error {
        strip.push(Span::raw("  "));
        strip.push(Span::styled(format!(" stopped: {error} "), theme.error));
    }
    frame.render_widget(Paragraph::new(vec![title, Line::from(strip)]), area);
}

/// Columns the figures after the stage strip (round, clock, tokens) keep
/// in a narrow header.
const FIGURES_COLUMNS: usize = 36;

/// The stage strip in a narrow header: the stages done as one count
/// (`2 done`), the current one numbered (`Moderation 3/6`), then as many of
/// the stages still to come as fit, by name, and how many more there are.
fn compact_strip(
    app: &App,
    titles: &[String],
    position: Option<usize>,
    width: u16,
) -> Vec<Span<'static>> {
    let theme = &app.theme;
    let at = position.unwrap_or(0);
    let total = titles.len();
    let mut spans = Vec::new();
    let Some(current) = titles.get(at) else {
        return spans;
    };
    if at > 0 {
        spans.push(Span::styled(format!("✓{at} "), theme.stage_done));
    }
    spans.push(Span::styled(current.clone(), theme.stage_active));
    if total > 1 {
        spans.push(Span::styled(format!(" {}/{total}", at + 1), theme.dim));
    }
    let mut room = usize::from(width)
        .saturating_sub(FIGURES_COLUMNS)
        .saturating_sub(spans.iter().map(Span::width).sum::<usize>());
    let ahead = &titles[(at + 1).min(total)..];
    for (shown, title) in ahead.iter().enumerate() {
        let left = ahead.len() - shown - 1;
        let more = if left > 0 {
            format!(" +{left}")
        } else {
            String::new()
        };
        let needed = 3 + title.chars().count() + more.chars().count();
        if needed > room {
            spans.push(Span::styled(
                format!(" +{}", ahead.len() - shown),
                theme.dim,
            ));
            break;
        }
        room -= needed - more.chars().count();
        spans.push(Span::styled(" ▸ ", theme.dim));
        spans.push(Span::styled(title.clone(), theme.stage_pending));
    }
    spans
}

/// `mm:ss`, or `h:mm:ss` past an hour.
pub fn clock(seconds: u64) -> String {
    if seconds >= 3600 {
        format!(
            "{}:{:02}:{:02}",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )
    } else {
        format!("{:02}:{:02}", seconds / 60, seconds % 60)
    }
}

fn tokens(app: &App) -> String {
    let totals = &app.totals;
    let reported = totals.input_tokens.saturating_add(totals.output_tokens);
    if reported > 0 {
        format!(
            "{} in / {} out tok",
            compact(totals.input_tokens),
            compact(totals.output_tokens.saturating_add(totals.estimated_output))
        )
    } else {
        format!("≈{} tok out", compact(totals.estimated_output))
    }
}

/// `950`, `12.3k`, `4.1M`.
pub fn compact(count: u64) -> String {
    match count {
        0..1000 => count.to_string(),
        1000..1_000_000 => format!("{:.1}k", count as f64 / 1000.0),
        _ => format!("{:.1}M", count as f64 / 1_000_000.0),
    }
}
