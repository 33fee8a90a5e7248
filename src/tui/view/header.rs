//! The header: what is being debated, where the debate is, what it costs.

use ratatui::buffer::Buffer;

use super::Canvas;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::tui::app::playback::speed_label;
use crate::tui::app::{App, Mode};
use crate::tui::capitalise;

/// Narrower than this, the stage strip names only the current stage, in
/// columns.
pub const COMPACT_BELOW_COLUMNS: u16 = 110;

pub fn draw(app: &App, frame: &mut Buffer, area: Rect) {
    let theme = &app.theme;
    let title = title_line(app, usize::from(area.width));
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
    let width = usize::from(area.width);
    let status = status(app);
    let alerts = alerts(app);
    let mut figures = figures(app);
    let fixed = spans_width(&status) + spans_width(&alerts);
    // Wide enough for every stage by name and everything after them, or
    // the stages done as a count and those ahead as far as they fit.
    let titles_width = 1 + titles
        .iter()
        .map(|title| title.chars().count() + 3)
        .sum::<usize>();
    let compact =
        area.width < COMPACT_BELOW_COLUMNS || titles_width + fixed + spans_width(&figures) > width;
    let mut strip = vec![Span::raw(" ")];
    if compact {
        let (current, ahead) = compact_strip(app, &titles, position);
        // What the screen is and what asks for the moderator stay whole;
        // the figures give way from the end, then the stages ahead.
        let reserved = 1 + spans_width(&current) + 1 + fixed + ahead.more_width();
        fit(&mut figures, width.saturating_sub(reserved));
        let room = width.saturating_sub(reserved - ahead.more_width() + spans_width(&figures));
        strip.extend(current);
        strip.extend(ahead.spans(app, room));
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
    strip.extend(status);
    strip.extend(figures);
    strip.extend(alerts);
    frame.render_widget(Paragraph::new(vec![title, Line::from(strip)]), area);
}

/// The fewest columns the topic keeps before the header gives up the
/// program's name and then the protocol for it.
const MIN_TOPIC_COLUMNS: usize = 16;

/// The first line: the program, the topic, the protocol and its mode, in
/// `width` columns. What does not fit goes whole, least needed first: the
/// protocol's mode and settings from the end, then the end of the topic
/// (at a word, with an ellipsis), then the program's name, then the
/// protocol. No word is cut unless one alone is wider than the line.
fn title_line(app: &App, width: usize) -> Line<'static> {
    let theme = &app.theme;
    let topic = app.info.topic.as_str();
    let parts: Vec<&str> = app.info.protocol.split(" · ").collect();
    const BRAND: &str = " quorum ";
    const BRAND_BAR: &str = "│ ";
    const PROTOCOL_BAR: &str = " │ ";
    let columns = UnicodeWidthStr::width;
    let brand_width = columns(BRAND) + columns(BRAND_BAR);
    // The label with all its parts, then fewer, down to the protocol alone.
    let fitted = (1..=parts.len()).rev().find_map(|kept| {
        let label = parts[..kept].join(" · ");
        let room = width.checked_sub(brand_width + columns(PROTOCOL_BAR) + columns(&label))?;
        (columns(topic) <= room).then_some(label)
    });
    let (brand, topic, label) = match fitted {
        Some(label) => (true, topic.to_string(), Some(label)),
        None => {
            let label = parts.first().copied().unwrap_or_default().to_string();
            let with_brand =
                width.saturating_sub(brand_width + columns(PROTOCOL_BAR) + columns(&label));
            let without_brand = width.saturating_sub(1 + columns(PROTOCOL_BAR) + columns(&label));
            if with_brand >= MIN_TOPIC_COLUMNS {
                (true, shorten_at_word(topic, with_brand), Some(label))
            } else if without_brand >= MIN_TOPIC_COLUMNS {
                (false, shorten_at_word(topic, without_brand), Some(label))
            } else {
                (false, shorten_at_word(topic, width.saturating_sub(1)), None)
            }
        }
    };
    let mut spans = Vec::new();
    if brand {
        spans.push(Span::styled(BRAND, theme.title));
        spans.push(Span::styled(BRAND_BAR, theme.dim));
    } else {
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(topic, theme.text));
    if let Some(label) = label {
        spans.push(Span::styled(PROTOCOL_BAR, theme.dim));
        spans.push(Span::styled(label, theme.header));
    }
    Line::from(spans)
}

/// `text` in at most `room` columns: whole, or its first words and an
/// ellipsis. A first word wider than `room` is cut, there being no other
/// way to show anything of it.
pub(crate) fn shorten_at_word(text: &str, room: usize) -> String {
    let columns = UnicodeWidthStr::width;
    if columns(text) <= room {
        return text.to_string();
    }
    let mut kept = String::new();
    for word in text.split(' ') {
        let candidate = if kept.is_empty() {
            word.to_string()
        } else {
            format!("{kept} {word}")
        };
        if columns(&candidate) + 1 > room {
            break;
        }
        kept = candidate;
    }
    let kept = kept.trim_end_matches([',', ';', ':', ' ']);
    if kept.is_empty() {
        let mut used = 0;
        let cut: String = text
            .chars()
            .take_while(|c| {
                used += c.width().unwrap_or(0);
                used < room
            })
            .collect();
        return format!("{cut}…");
    }
    format!("{kept}…")
}

/// The columns `spans` take.
fn spans_width(spans: &[Span]) -> usize {
    spans.iter().map(Span::width).sum()
}

/// Drops figures from the end until the rest fit in `room` columns,
/// with no separator left hanging after the last.
fn fit(figures: &mut Vec<Span<'static>>, room: usize) {
    while spans_width(figures) > room {
        figures.pop();
    }
    if let Some(last) = figures.last_mut()
        && let Some(kept) = last.content.strip_suffix(" ·")
    {
        last.content = kept.to_string().into();
    }
}

/// What the screen is, when it is not the live debate run here: a debate
/// another process drives (and whether this one only watches it), a
/// replay (its speed, and whether it is paused or has run out) or the
/// archive. It
/// comes before the figures, so a narrow terminal cuts the figures.
fn status(app: &App) -> Vec<Span<'static>> {
    let theme = &app.theme;
    let mut spans = Vec::new();
    match &app.mode {
        Mode::Live => {
            if let Some(attached) = &app.attached {
                let label = match attached.read_only {
                    Some(_) => " attached · read-only ",
                    None => " attached ",
                };
                spans.push(Span::raw(" "));
                spans.push(Span::styled(label, theme.selection));
            }
        }
        Mode::Replay(playback) => {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                format!(" replay {} ", speed_label(playback.speed)),
                theme.selection,
            ));
            if playback.ended && app.running() {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(
                    " the recording stops here ",
                    theme.status_needs_moderator,
                ));
            } else if playback.paused && app.running() {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(" paused ", theme.status_needs_moderator));
            }
        }
        Mode::Archive(_) => {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(" archive ", theme.selection));
        }
    }
    spans
}

/// What asks for the person: the moderator's turn, and the engine stopped.
fn alerts(app: &App) -> Vec<Span<'static>> {
    let theme = &app.theme;
    let mut spans = Vec::new();
    // In a replay the moderator's turn is history, not a call to act.
    if app.board.needs_moderator && matches!(app.mode, Mode::Live) {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(
            " needs moderator ",
            theme.status_needs_moderator,
        ));
    }
    if let Some(error) = &app.engine_error {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!(" stopped: {error} "), theme.error));
    }
    spans
}

/// The stages still to come in a narrow header.
struct Ahead<'a> {
    titles: &'a [String],
}

impl Ahead<'_> {
    /// The columns of the widest count of stages not named (` +12`).
    fn more_width(&self) -> usize {
        match self.titles.len() {
            0 => 0,
            n => 2 + n.to_string().len(),
        }
    }

    /// As many stages as fit in `room` columns, by name, and how many
    /// more there are.
    fn spans(&self, app: &App, mut room: usize) -> Vec<Span<'static>> {
        let theme = &app.theme;
        let mut spans = Vec::new();
        for (shown, title) in self.titles.iter().enumerate() {
            let left = self.titles.len() - shown - 1;
            let more = if left > 0 {
                2 + left.to_string().len()
            } else {
                0
            };
            let needed = 3 + title.chars().count() + more;
            if needed > room {
                let more = self.titles.len() - shown;
                spans.push(Span::styled(format!(" +{more}"), theme.dim));
                break;
            }
            room -= needed - more;
            spans.push(Span::styled(" ▸ ", theme.dim));
            spans.push(Span::styled(title.clone(), theme.stage_pending));
        }
        spans
    }
}

/// The stage strip in a narrow header: the stages done as one count
/// (`2 done`), the current one numbered (`Moderation 3/6`), and the stages
/// still to come, to be named as far as they fit.
fn compact_strip<'a>(
    app: &App,
    titles: &'a [String],
    position: Option<usize>,
) -> (Vec<Span<'static>>, Ahead<'a>) {
    let theme = &app.theme;
    let at = position.unwrap_or(0);
    let total = titles.len();
    let mut spans = Vec::new();
    let Some(current) = titles.get(at) else {
        return (spans, Ahead { titles: &[] });
    };
    if at > 0 {
        spans.push(Span::styled(format!("✓{at} "), theme.stage_done));
    }
    spans.push(Span::styled(current.clone(), theme.stage_active));
    if total > 1 {
        spans.push(Span::styled(format!(" {}/{total}", at + 1), theme.dim));
    }
    let ahead = &titles[(at + 1).min(total)..];
    (spans, Ahead { titles: ahead })
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

/// The round, a protocol's own call budget, the clock, and what was
/// spent (see [`spending`]).
pub(super) fn figures(app: &App) -> Vec<Span<'static>> {
    let theme = &app.theme;
    let mut figures = Vec::new();
    // Round 0: the protocol runs no rounds.
    if app.progress.round > 0 {
        let round = match app.progress.max_round {
            0 => format!(" round {} ·", app.progress.round),
            max => format!(" round {}/{max} ·", app.progress.round),
        };
        figures.push(Span::styled(round, theme.dim));
    }
    if let Some((used, limit)) = app.progress.budget {
        let style = if used >= limit {
            theme.error
        } else {
            theme.dim
        };
        figures.push(Span::styled(format!(" budget {used}/{limit} ·"), style));
    }
    figures.push(Span::styled(
        format!(" {}", clock(app.elapsed.as_secs())),
        theme.dim,
    ));
    figures.extend(spending(app));
    figures
}

/// Tokens and money spent, each against its budget when one is set
/// (`16.4k of 200k tok`, `$0.12 of $2.50`), then, against a budget, the
/// forecast of the step last started or held (`step ≈ $0.04`); a budget
/// crossed shows in the error colour.
fn spending(app: &App) -> Vec<Span<'static>> {
    let theme = &app.theme;
    let totals = &app.totals;
    let used_tokens = totals
        .input_tokens
        .saturating_add(totals.output_tokens)
        .saturating_add(totals.estimated_output);
    let used_usd = totals.cost_usd.unwrap_or(0.0);
    let over = |crossed: bool| if crossed { theme.error } else { theme.dim };
    let mut spans = Vec::new();
    // Against a token limit, the one figure the limit counts.
    let token_text = match app.budget.tokens {
        Some(limit) => format!(" · {} of {} tok", compact(used_tokens), compact(limit)),
        None => format!(" · {}", tokens(app)),
    };
    let tokens_over = app.budget.tokens.is_some_and(|limit| used_tokens > limit);
    spans.push(Span::styled(token_text, over(tokens_over)));
    if totals.cost_usd.is_some() || app.budget.usd.is_some() {
        let mut money = match app.budget.usd {
            Some(limit) => format!(
                " · {}",
                crate::protocol::budget::usd_against(used_usd, limit)
            ),
            None => format!(" · ${used_usd:.2}"),
        };
        if let Some(limit) = app.budget.usd {
            money.push_str(&format!(" of ${limit:.2}"));
        }
        let money_over = app.budget.usd.is_some_and(|limit| used_usd > limit);
        spans.push(Span::styled(money, over(money_over)));
    }
    // The forecast is shown where it matters: against a budget.
    if let Some(step) = app
        .step
        .as_ref()
        .filter(|_| app.running() && app.budget.is_set())
    {
        let forecast = if step.usd > 0.0 || app.budget.usd.is_some() {
            crate::protocol::budget::usd_text(step.usd)
        } else {
            format!("{} tok", compact(step.input_tokens + step.output_tokens))
        };
        spans.push(Span::styled(format!(" · step ≈ {forecast}"), theme.dim));
    }
    spans
}

/// `950`, `12.3k`, `229k`, `4.1M`: three figures at most, the last
/// rounded (an estimate of a quarter of a million tokens is not known to
/// the hundred).
pub fn compact(count: u64) -> String {
    match count {
        0..1000 => count.to_string(),
        // Below 99,950 one decimal stays under 100.0k.
        1000..99_950 => format!("{:.1}k", count as f64 / 1000.0),
        99_950..999_500 => format!("{:.0}k", count as f64 / 1000.0),
        _ => format!("{:.1}M", count as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::compact;

    #[test]
    fn counts_show_three_figures_at_most() {
        for (count, shown) in [
            (0, "0"),
            (950, "950"),
            (999, "999"),
            (1000, "1.0k"),
            (12_345, "12.3k"),
            (99_949, "99.9k"),
            (99_950, "100k"),
            (228_640, "229k"),
            (999_499, "999k"),
            (999_500, "1.0M"),
            (4_100_000, "4.1M"),
        ] {
            assert_eq!(compact(count), shown, "{count}");
        }
    }
}
