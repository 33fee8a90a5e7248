//! The board: the protocol's own view of the debate, in one of the kinds
//! the interface knows ([`BoardView`]). The score matrix — blocks ×
//! criteria × judges of the current round, filling in as each judge's
//! output is parsed, and the verdict the scores imply — is the first; a
//! protocol without a board gets no region at all.

use ratatui::buffer::Buffer;

use super::Canvas;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{frame_block, is_focused};
use crate::protocol::{
    BoardView, JudgeState, RevisionView, Ruling, ScoreColumn, Scoreboard, Tone, Verdict,
};
use crate::tui::app::App;
use crate::tui::layout::{Region, inner};
use crate::tui::theme::Theme;

/// Width of the block-id column, in cells.
const BLOCK_COLUMN_WIDTH: usize = 6;
/// Width of one criterion column, in cells.
const CRITERION_COLUMN_WIDTH: usize = 4;

pub fn tone_style(theme: &Theme, tone: Tone) -> Style {
    match tone {
        Tone::Positive => theme.tone_positive,
        Tone::Caution => theme.tone_caution,
        Tone::Negative => theme.tone_negative,
        Tone::Uncertain => theme.tone_uncertain,
    }
}

pub fn verdict_style(theme: &Theme, verdict: Verdict) -> Style {
    tone_style(theme, verdict.tone())
}

/// The board region's title: the protocol's name for it, and the round of
/// a score matrix.
pub fn title(app: &App) -> String {
    let name = app
        .info
        .board
        .as_ref()
        .map_or("Board", |board| board.title.as_str());
    match &app.board.view {
        BoardView::Scores(board) => format!("{name} · round {}", board.round),
        BoardView::Rulings(rulings) => {
            let open = rulings
                .iter()
                .filter(|ruling| ruling.word.is_none())
                .count();
            match open {
                0 => name.to_string(),
                open => format!("{name} · {open} open"),
            }
        }
        BoardView::Revision(revision) => match &revision.revised {
            Some(_) => {
                let changes = crate::words::counted(revision.changes.len(), "change", "changes");
                format!("{name} · {changes} marked")
            }
            None => format!("{name} · waiting for the merge"),
        },
        BoardView::None => name.to_string(),
    }
}

/// Three letters for a criterion column.
fn abbreviation(criterion: &str) -> String {
    match criterion {
        "correctness" => "cor".into(),
        "feasibility" => "fea".into(),
        "risk" => "rsk".into(),
        "reversibility" => "rev".into(),
        "clarity" => "clr".into(),
        "simplicity" => "sim".into(),
        other => other.chars().take(3).collect(),
    }
}

fn group_width(column: &ScoreColumn) -> usize {
    let name = column.judge.chars().count() + usize::from(column.binding) + 1;
    (column.criteria.len() * CRITERION_COLUMN_WIDTH).max(name)
}

fn pad(text: &str, width: usize) -> String {
    let length = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(length)))
}

pub fn draw(app: &App, frame: &mut Buffer, area: Rect) {
    let theme = &app.theme;
    let focused = is_focused(app, Region::Board);
    let title = format!(" {} ", title(app));
    frame.render_widget(
        frame_block(app, Line::styled(title, theme.title), focused),
        area,
    );
    let body = inner(area);
    if let BoardView::Revision(revision) = &app.board.view {
        draw_revision(theme, frame, body, revision);
        return;
    }
    let lines = match &app.board.view {
        BoardView::Scores(board) => lines(theme, board),
        BoardView::Rulings(rulings) if !rulings.is_empty() => ruling_lines(theme, rulings),
        _ => vec![Line::styled(
            app.info
                .board
                .as_ref()
                .map(|board| board.placeholder.clone())
                .unwrap_or_default(),
            theme.dim,
        )],
    };
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
}

/// One line per ruling: the subject, its word in its tone, the title; its
/// facts (a warning in the high-severity colour) and the rule that decided
/// it dimmed on the lines under it.
pub fn ruling_lines<'a>(theme: &Theme, rulings: &'a [Ruling]) -> Vec<Line<'a>> {
    let width = rulings
        .iter()
        .map(|ruling| {
            ruling
                .word
                .as_deref()
                .map_or(4, |word| word.chars().count())
        })
        .max()
        .unwrap_or(4);
    let mut out = Vec::new();
    for ruling in rulings {
        let word = ruling.word.as_deref().unwrap_or("open");
        let style = ruling
            .tone
            .map_or(theme.status_waiting, |tone| tone_style(theme, tone));
        out.push(Line::from(vec![
            Span::styled(pad(&ruling.subject, BLOCK_COLUMN_WIDTH), theme.text),
            Span::styled(pad(word, width + 1), style),
            Span::styled(ruling.title.as_str(), theme.text),
        ]));
        if !ruling.facts.is_empty() {
            let mut spans = vec![Span::raw(" ".repeat(BLOCK_COLUMN_WIDTH))];
            for (index, fact) in ruling.facts.iter().enumerate() {
                if index > 0 {
                    spans.push(Span::styled(" · ", theme.dim));
                }
                let style = if fact.warn {
                    theme.severity_high
                } else {
                    theme.dim
                };
                spans.push(Span::styled(
                    format!("{} {}", fact.label, fact.value),
                    style,
                ));
            }
            out.push(Line::from(spans));
        }
        if !ruling.rule.is_empty() {
            out.push(Line::styled(
                format!("{}{}", " ".repeat(BLOCK_COLUMN_WIDTH), ruling.rule),
                theme.dim,
            ));
        }
    }
    out
}

/// The scoreboard as lines; public for tests and the verdict view.
pub fn lines<'a>(theme: &Theme, board: &'a Scoreboard) -> Vec<Line<'a>> {
    let mut judges = vec![Span::raw(pad("", BLOCK_COLUMN_WIDTH))];
    // A comparison's rows are its options.
    let rows = if board.leader.is_some() {
        "opt"
    } else {
        "block"
    };
    let mut criteria = vec![Span::styled(pad(rows, BLOCK_COLUMN_WIDTH), theme.dim)];
    for column in &board.judges {
        let width = group_width(column);
        let name = format!(
            "{}{}{}",
            column.judge,
            if column.binding { "★" } else { "" },
            if column.kin.is_some() { "≈" } else { "" }
        );
        let style = match column.state {
            JudgeState::Scored | JudgeState::Pending | JudgeState::HeldOut => theme.role_panel,
            JudgeState::Malformed(_) => theme.status_malformed,
            JudgeState::Skipped(_) | JudgeState::Recused(_) => theme.status_skipped,
        };
        judges.push(Span::styled(pad(&name, width), style));
        let mut heads = String::new();
        for criterion in &column.criteria {
            heads.push_str(&pad(&abbreviation(criterion), CRITERION_COLUMN_WIDTH));
        }
        criteria.push(Span::styled(pad(&heads, width), theme.dim));
    }
    let mut out = vec![Line::from(judges), Line::from(criteria)];
    for (row, block) in board.blocks.iter().enumerate() {
        let mut spans = vec![Span::styled(pad(block, BLOCK_COLUMN_WIDTH), theme.text)];
        for column in &board.judges {
            let width = group_width(column);
            let mut used = 0;
            for (index, _) in column.criteria.iter().enumerate() {
                let score = column.scores.get(row).and_then(|scores| scores[index]);
                let (text, style) = match (&column.state, score) {
                    (_, Some(score)) => {
                        let low = column.binding && score < board.binding_threshold;
                        (
                            score.to_string(),
                            if low { theme.score_low } else { theme.score_ok },
                        )
                    }
                    (JudgeState::Pending, None) => ("·".into(), theme.dim),
                    (JudgeState::Malformed(_), None) => ("?".into(), theme.status_malformed),
                    (JudgeState::Skipped(_), None) => ("–".into(), theme.status_skipped),
                    (JudgeState::Recused(_), None) => ("r".into(), theme.status_skipped),
                    (JudgeState::HeldOut, None) => ("h".into(), theme.dim),
                    (JudgeState::Scored, None) => ("–".into(), theme.dim),
                };
                spans.push(Span::styled(pad(&text, CRITERION_COLUMN_WIDTH), style));
                used += CRITERION_COLUMN_WIDTH;
            }
            spans.push(Span::raw(" ".repeat(width.saturating_sub(used))));
        }
        out.push(Line::from(spans));
    }
    let mut synthesis = vec![Span::styled(pad("synth", BLOCK_COLUMN_WIDTH), theme.dim)];
    for column in &board.judges {
        let text = column
            .synthesis
            .map_or_else(|| "·".to_string(), |mean| format!("{mean:.1}"));
        synthesis.push(Span::styled(pad(&text, group_width(column)), theme.text));
    }
    out.push(Line::from(synthesis));
    for column in &board.judges {
        let note = match &column.state {
            JudgeState::Malformed(reason) => Some((
                format!("{} malformed: {reason}", column.judge),
                theme.status_malformed,
            )),
            JudgeState::Skipped(reason) => Some((
                format!("{} skipped: {reason}", column.judge),
                theme.status_skipped,
            )),
            JudgeState::Recused(reason) => {
                Some((format!("recused: {reason}"), theme.status_skipped))
            }
            JudgeState::HeldOut => Some((
                format!(
                    "{} held out: it scores only the final revision",
                    column.judge
                ),
                theme.dim,
            )),
            _ => column
                .kin
                .as_ref()
                .map(|kin| (format!("≈ {kin}"), theme.dim)),
        };
        if let Some((text, style)) = note {
            out.push(Line::styled(crate::words::one_line(&text), style));
        }
    }
    if let Some(leader) = &board.leader {
        out.push(Line::from(vec![
            Span::styled("ranking: ", theme.dim),
            Span::styled(leader.clone(), theme.text),
        ]));
    }
    if let Some(implied) = &board.implied {
        let label = if implied.pending > 0 {
            format!(
                "so far ({} judge{} pending): ",
                implied.pending,
                if implied.pending == 1 { "" } else { "s" }
            )
        } else {
            "verdict: ".to_string()
        };
        out.push(Line::from(vec![
            Span::styled(label, theme.dim),
            Span::styled(
                format!(" {} ", implied.verdict.as_str()),
                verdict_style(theme, implied.verdict),
            ),
            Span::raw(" "),
            Span::styled(implied.rule.clone(), theme.text),
        ]));
    }
    for line in [&board.agreement, &board.fairness].into_iter().flatten() {
        out.push(Line::styled(crate::words::one_line(line), theme.dim));
    }
    out
}

/// The draft on the left, the revision on the right; in the draft the
/// wording a change replaced is marked in the negative tone, in the
/// revision the new wording in the positive one.
fn draw_revision(theme: &Theme, frame: &mut Buffer, body: Rect, revision: &RevisionView) {
    let columns = ratatui::layout::Layout::horizontal([
        ratatui::layout::Constraint::Ratio(1, 2),
        ratatui::layout::Constraint::Ratio(1, 2),
    ])
    .spacing(1)
    .split(body);
    let befores: Vec<&str> = revision.changes.iter().map(|c| c.before.as_str()).collect();
    let afters: Vec<&str> = revision.changes.iter().map(|c| c.after.as_str()).collect();
    let mut left = vec![Line::styled("Draft", theme.title)];
    left.extend(marked_lines(
        &revision.original,
        &befores,
        theme.text,
        theme.tone_negative,
    ));
    let mut right = vec![Line::styled("Revised", theme.title)];
    match &revision.revised {
        Some(revised) => {
            right.extend(marked_lines(
                revised,
                &afters,
                theme.text,
                theme.tone_positive,
            ));
        }
        None => right.push(Line::styled(
            "The revised draft appears here once the rewrites are merged.",
            theme.dim,
        )),
    }
    frame.render_widget(Paragraph::new(left).wrap(Wrap { trim: false }), columns[0]);
    frame.render_widget(Paragraph::new(right).wrap(Wrap { trim: false }), columns[1]);
}

/// `text` line by line, every occurrence of a non-empty `marks` entry in
/// `marked` style (a mark that runs over several lines is marked on each).
pub fn marked_lines<'a>(
    text: &'a str,
    marks: &[&str],
    plain: Style,
    marked: Style,
) -> Vec<Line<'a>> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for mark in marks
        .iter()
        .map(|mark| mark.trim())
        .filter(|mark| !mark.is_empty())
    {
        for (start, found) in text.match_indices(mark) {
            ranges.push((start, start + found.len()));
        }
    }
    ranges.sort_unstable();
    let inside = |at: usize| {
        ranges
            .iter()
            .any(|(start, end)| (*start..*end).contains(&at))
    };
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split('\n') {
        let mut spans: Vec<Span<'a>> = Vec::new();
        let mut run_start = 0;
        let mut run_marked = None;
        for (index, _) in line.char_indices() {
            let is_marked = inside(offset + index);
            if run_marked != Some(is_marked) {
                if let Some(was) = run_marked
                    && index > run_start
                {
                    spans.push(Span::styled(
                        &line[run_start..index],
                        if was { marked } else { plain },
                    ));
                }
                run_start = index;
                run_marked = Some(is_marked);
            }
        }
        if let Some(was) = run_marked {
            spans.push(Span::styled(
                &line[run_start..],
                if was { marked } else { plain },
            ));
        }
        out.push(Line::from(spans));
        offset += line.len() + 1;
    }
    out
}

#[cfg(test)]
mod revision_tests {
    use super::*;

    /// The wording a change replaced is marked wherever it stands, across
    /// lines; the rest keeps the plain style.
    #[test]
    fn marked_lines_mark_each_change_and_nothing_else() {
        let plain = Style::default();
        let marked = Style::default().fg(ratatui::style::Color::Red);
        let lines = marked_lines(
            "Read it all.\nIt is very important.",
            &["very important", "", "absent"],
            plain,
            marked,
        );
        assert_eq!(lines.len(), 2);
        assert!(lines[0].spans.iter().all(|span| span.style == plain));
        let spans: Vec<(&str, bool)> = lines[1]
            .spans
            .iter()
            .map(|span| (span.content.as_ref(), span.style == marked))
            .collect();
        assert_eq!(
            spans,
            [("It is ", false), ("very important", true), (".", false)]
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ScoreColumn, Scoreboard};

    fn text(lines: &[Line<'_>]) -> String {
        lines
            .iter()
            .map(|line| {
                line.spans
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A comparison's scoreboard (issue 11): options × criteria, each cell a
    /// judge's mean over the option's blocks, and the current leader with
    /// what would change it, while a judge is still working.
    #[test]
    fn a_comparative_scoreboard_shows_options_and_the_leader() {
        let column =
            |judge: &str, binding: bool, criteria: &[&str], scores: Vec<Vec<Option<u8>>>| {
                ScoreColumn {
                    judge: judge.into(),
                    binding,
                    criteria: criteria.iter().map(|c| c.to_string()).collect(),
                    state: if scores.iter().flatten().any(Option::is_some) {
                        JudgeState::Scored
                    } else {
                        JudgeState::Pending
                    },
                    scores,
                    synthesis: None,
                    kin: None,
                }
            };
        let board = Scoreboard {
            round: 1,
            blocks: vec!["A".into(), "B".into(), "C".into()],
            judges: vec![
                column(
                    "analyst",
                    true,
                    &["correctness", "feasibility", "risk"],
                    vec![
                        vec![Some(4), Some(5), Some(4)],
                        vec![Some(3), Some(4), Some(2)],
                        vec![Some(5), Some(3), Some(4)],
                    ],
                ),
                column("stylist", false, &["reversibility", "clarity"], vec![vec![None, None]; 3]),
            ],
            binding_threshold: 3,
            implied: None,
            leader: Some(
                "so far (1 judge pending): A > C > B · Choose A unless risk matters most: there C is stronger."
                    .into(),
            ),
            fairness: None,
            agreement: None,
        };
        let theme = crate::tui::theme::Theme::builtin("dark").unwrap();
        insta::assert_snapshot!(text(&lines(&theme, &board)));
    }

    /// Issue 29: a judge of the proposer's family is marked beside its
    /// name and named under the table, and the panel's agreement and how
    /// it was kept fair follow the verdict.
    #[test]
    fn the_scoreboard_marks_a_kin_judge_and_shows_the_agreement() {
        let kin = "judge.analyst shares the proposer's model family (anthropic): flagged";
        let board = Scoreboard {
            round: 1,
            blocks: vec!["b1".into()],
            judges: vec![ScoreColumn {
                judge: "analyst".into(),
                binding: true,
                criteria: vec!["correctness".into()],
                state: JudgeState::Scored,
                scores: vec![vec![Some(4)]],
                synthesis: Some(4.0),
                kin: Some(kin.into()),
            }],
            binding_threshold: 3,
            implied: None,
            leader: None,
            fairness: Some("blind · each judge its own order · recusal: flag".into()),
            agreement: Some(
                "judges' agreement 0.62 (1 = full, 0 = chance), worth 2.4 of 3 independent \
                 judges, on 7 shared scores"
                    .into(),
            ),
        };
        let theme = crate::tui::theme::Theme::builtin("dark").unwrap();
        let shown = text(&lines(&theme, &board));
        assert!(shown.contains("analyst★≈"), "{shown}");
        assert!(shown.contains(&format!("≈ {kin}")), "{shown}");
        assert!(
            shown.contains("worth 2.4 of 3 independent judges"),
            "{shown}"
        );
        assert!(
            shown.contains("blind · each judge its own order · recusal: flag"),
            "{shown}"
        );
    }

    /// Issue 29: a judge held out for the final revision shows `h` in the
    /// rounds it is not asked, and the note under the table says why.
    #[test]
    fn a_held_out_judge_is_marked_in_the_rounds_it_sits_out() {
        let board = Scoreboard {
            round: 1,
            blocks: vec!["b1".into()],
            judges: vec![ScoreColumn {
                judge: "strategist".into(),
                binding: true,
                criteria: vec!["blast_radius".into()],
                state: JudgeState::HeldOut,
                scores: vec![vec![None]],
                synthesis: None,
                kin: None,
            }],
            binding_threshold: 3,
            implied: None,
            leader: None,
            fairness: None,
            agreement: None,
        };
        let theme = crate::tui::theme::Theme::builtin("dark").unwrap();
        let shown = text(&lines(&theme, &board));
        assert!(
            shown
                .lines()
                .any(|line| line.starts_with("b1") && line.contains('h')),
            "{shown}"
        );
        assert!(
            shown.contains("strategist held out: it scores only the final revision"),
            "{shown}"
        );
    }
}
