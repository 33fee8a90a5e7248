//! Everything drawn on top of the main view: help, the quit question, the
//! override modal, an item in full and the note editor. Only the topmost
//! layer takes keys; all are drawn, bottom first.

use ratatui::buffer::Buffer;

use super::Canvas;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};

use super::items::{decision_span, severity_style};
use crate::engine::BudgetQuestion;
use crate::tui::app::{App, Layer, Mode, OverridePrompt, WAIT_LONGER_MS};
use crate::tui::keymap::{self, Context};
use crate::tui::layout::{centered, item_detail_areas};
use ratatui_textarea::TextArea;

fn modal<'a>(app: &App, title: &'a str) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Double)
        .border_style(app.theme.modal_border)
        .title(Line::styled(format!(" {title} "), app.theme.title))
}

fn hints(app: &App, context: Context) -> Line<'static> {
    hints_without(app, context, &[])
}

fn hints_without(app: &App, context: Context, hidden: &[keymap::Action]) -> Line<'static> {
    let mut spans = Vec::new();
    for (key, hint) in keymap::footer(&[context], app.key_mode(), hidden) {
        let hint = keymap::worded(hint, &app.info.words);
        spans.push(Span::styled(key, app.theme.key_hint));
        spans.push(Span::styled(format!(" {hint}   "), app.theme.dim));
    }
    Line::from(spans)
}

pub fn draw(app: &App, frame: &mut Buffer, area: Rect) {
    for layer in &app.layers {
        match layer {
            Layer::Help { scroll } => help(app, frame, area, *scroll),
            Layer::ConfirmQuit => confirm_quit(app, frame, area),
            Layer::Override(prompt) => override_modal(app, prompt, frame, area),
            Layer::ItemDetail { item, scroll } => item_detail(app, *item, *scroll, frame, area),
            Layer::ConfirmRetry { pane } => confirm_retry(app, *pane, frame, area),
            Layer::ConfirmSettle { item, decision } => {
                confirm_settle(app, *item, *decision, frame, area)
            }
            Layer::Budget(question) => budget_question(app, question, None, frame, area),
            Layer::BudgetEditor { question, editor } => {
                budget_question(app, question, Some(editor), frame, area)
            }
            Layer::NoteEditor { item, editor } => {
                let rect = centered(area, 72.min(area.width), 14.min(area.height));
                frame.render_widget(Clear, rect);
                let entry = &app.board.items[*item];
                let title = match app.mode {
                    Mode::Archive(_) => format!("Note on {}, for its settlement", entry.item.id),
                    _ => format!("Note on {}", entry.item.id),
                };
                let block = modal(app, &title);
                let body = block.inner(rect);
                frame.render_widget(block, rect);
                let [about, text, keys] = Layout::vertical([
                    Constraint::Length(3),
                    Constraint::Min(3),
                    Constraint::Length(1),
                ])
                .areas(body);
                frame.render_widget(
                    Paragraph::new(crate::words::one_line(&entry.item.text))
                        .style(app.theme.dim)
                        .wrap(Wrap { trim: true }),
                    about,
                );
                frame.render_widget(editor.as_ref(), text);
                frame.render_widget(Paragraph::new(hints(app, Context::Editor)), keys);
            }
            Layer::AnswerEditor { .. } => {}
            Layer::ChooseAgent { pane, cursor } => choose_agent(app, *pane, *cursor, frame, area),
        }
    }
}

fn help(app: &App, frame: &mut Buffer, area: Rect, scroll: usize) {
    let rect = centered(area, 76, area.height.saturating_sub(2));
    frame.render_widget(Clear, rect);
    let block = modal(app, "Keys — Esc closes");
    let body = block.inner(rect);
    frame.render_widget(block, rect);
    let about = match app.mode {
        Mode::Live => app.info.about.as_str(),
        Mode::Replay(_) => {
            "A replay of a recorded debate, at the pace it happened (long pauses shortened). \
             Nothing you press here changes the debate or its record."
        }
        Mode::Archive(_) => {
            "A finished debate, as it ended. The items the moderator deferred can still be \
             accepted or rejected, with a note; each settlement is recorded with its time."
        }
    };
    let mut lines = vec![Line::styled(about, app.theme.text), Line::raw("")];
    if let (Mode::Live, Some(words)) = (&app.mode, app.info.words.about) {
        lines.push(Line::styled(words, app.theme.text));
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled("Marks", app.theme.title));
    if app.panes.iter().any(|pane| pane.role.binding) {
        lines.push(Line::from(vec![
            Span::styled("  ★".to_string(), app.theme.binding),
            Span::styled(
                "  a binding judge: its judgement decides on its own",
                app.theme.text,
            ),
        ]));
    }
    lines.push(Line::styled(
        "  ● streaming  ✓ done  ⏱ timed out  ↻ retrying  ⤼ skipped  ? unusable answer  ! failed  ✎ your answer",
        app.theme.text,
    ));
    lines.push(Line::styled(
        "  A pane that waits or is done shrinks to its title while others write; Tab or a click gives it back its rows.",
        app.theme.text,
    ));
    lines.push(Line::raw(""));
    for (context, rows) in keymap::help_sections(app.key_mode()) {
        lines.push(Line::styled(context.title(), app.theme.title));
        for (keys, hint) in rows {
            let hint = keymap::worded(hint, &app.info.words);
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<22}"), app.theme.key_hint),
                Span::styled(hint, app.theme.text),
            ]));
        }
        lines.push(Line::raw(""));
    }
    let paragraph = Paragraph::new(lines).wrap(Wrap { trim: false });
    let rows = paragraph.line_count(body.width);
    let height = usize::from(body.height);
    let scroll = scroll.min(rows.saturating_sub(height));
    if rows > height {
        // The frame is drawn again, now saying that the keys scroll it.
        frame.render_widget(
            modal(app, "Keys — Esc closes").title_bottom(
                Line::styled(
                    format!(
                        " rows {}–{} of {rows} · j/k scroll ",
                        scroll + 1,
                        (scroll + height).min(rows)
                    ),
                    app.theme.dim,
                )
                .right_aligned(),
            ),
            rect,
        );
    }
    frame.render_widget(
        paragraph.scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        body,
    );
}

/// What a modal calls a pane's role: `judge` for the panel, else its title.
fn role_noun(pane: &crate::tui::app::AgentPane) -> String {
    match pane.role.group {
        crate::protocol::RoleGroup::Panel => "judge".to_string(),
        _ => pane.role.title.to_lowercase(),
    }
}

fn confirm_quit(app: &App, frame: &mut Buffer, area: Rect) {
    let rect = centered(area, 60, 7);
    frame.render_widget(Clear, rect);
    let block = modal(app, "Quit?");
    let body = block.inner(rect);
    frame.render_widget(block, rect);
    let lines = vec![
        Line::styled(
            "The debate is still running. Quitting stops it;",
            app.theme.text,
        ),
        Line::styled(
            "everything finished so far is already on disk.",
            app.theme.text,
        ),
        Line::raw(""),
        hints(app, Context::ConfirmQuit),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
}

fn confirm_retry(app: &App, pane: usize, frame: &mut Buffer, area: Rect) {
    let rect = centered(area, 64, 8);
    frame.render_widget(Clear, rect);
    let pane = &app.panes[pane];
    let title = format!("Retry the {}?", pane.role.title.to_lowercase());
    let block = modal(app, &title);
    let body = block.inner(rect);
    frame.render_widget(block, rect);
    let lines = vec![
        Line::styled(
            format!(
                "Its call has written {} characters so far, paid for. Retrying cancels it \
                 and starts the same prompt again from nothing.",
                super::header::compact(pane.doc.source_len() as u64)
            ),
            app.theme.text,
        ),
        Line::raw(""),
        hints(app, Context::ConfirmRetry),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
}

/// Settling a deferred item after the verdict: the item, what will be
/// recorded (the decision and the note, or that there is none) and what it
/// leads to, before anything is sent.
fn confirm_settle(
    app: &App,
    item: usize,
    decision: crate::protocol::ItemDecision,
    frame: &mut Buffer,
    area: Rect,
) {
    let Some(entry) = app.board.items.get(item) else {
        return;
    };
    let rect = centered(area, 72.min(area.width), 13.min(area.height));
    frame.render_widget(Clear, rect);
    let id = &entry.item.id;
    let title = format!(
        "Record {id} as {} after the verdict?",
        decision.past_tense()
    );
    let block = modal(app, &title);
    let body = block.inner(rect);
    frame.render_widget(block, rect);
    let dir = crate::text::sanitize(&app.info.run_dir.display().to_string());
    let text = |line: String| Line::styled(line, app.theme.text);
    let dim = |line: String| Line::styled(line, app.theme.dim);
    let lines = vec![
        Line::styled(entry.item.heading(), app.theme.title),
        text(super::panes::shortened(
            entry.item.text.lines().next().unwrap_or_default(),
            usize::from(body.width).saturating_mul(2),
        )),
        Line::raw(""),
        match app.pending_note(id) {
            Some(note) => text(format!(
                "Recorded: {id} {} after the verdict, with your note: {}",
                decision.past_tense(),
                super::panes::shortened(note, 120)
            )),
            None => text(format!(
                "Recorded: {id} {} after the verdict, without a note (n writes one first).",
                decision.past_tense()
            )),
        },
        dim(match decision {
            crate::protocol::ItemDecision::Accept => {
                format!(
                    "An acceptance asks for another round: `quorum resume {dir} --reopen` revises for it and derives a new verdict."
                )
            }
            _ => "The verdict stands as it is; the item stays out of it.".into(),
        }),
        dim(format!(
            "It goes into the journal for good; only `quorum open {dir} --resolve` changes it later."
        )),
        Line::raw(""),
        hints(app, Context::ConfirmSettle),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
}

/// A step held at the budget: what was spent, what the step would cost,
/// the limit, and the three ways on; with `editor`, the new limit being
/// written.
fn budget_question(
    app: &App,
    question: &BudgetQuestion,
    editor: Option<&TextArea<'static>>,
    frame: &mut Buffer,
    area: Rect,
) {
    let rect = centered(area, 72, 11);
    frame.render_widget(Clear, rect);
    let block = modal(app, "The next step would cross the budget");
    let body = block.inner(rect);
    frame.render_widget(block, rect);
    let priced = question.priced();
    let row = |label: &'static str, value: String| {
        Line::from(vec![
            Span::styled(format!("  {label:<12}"), app.theme.dim),
            Span::styled(value, app.theme.text),
        ])
    };
    let mut lines = vec![
        row("budget", question.limit.describe()),
        row(
            "spent",
            question.spent.describe_against(priced, question.limit.usd),
        ),
    ];
    if question.running.tokens > 0 {
        lines.push(row(
            "running",
            format!("≈ {}", question.running.describe(priced)),
        ));
    }
    lines.push(row("next step", question.step.describe(priced)));
    if question.step.unpriced > 0 && priced {
        lines.push(Line::styled(
            format!(
                "  {} of its calls have no price configured and count in tokens only",
                question.step.unpriced
            ),
            app.theme.dim,
        ));
    }
    lines.push(Line::raw(""));
    let [text, input, keys] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(if editor.is_some() { 3 } else { 0 }),
        Constraint::Length(1),
    ])
    .areas(body);
    match editor {
        Some(editor) => {
            lines.push(Line::styled(
                "  The new budget (a money limit, a token limit, or both):",
                app.theme.text,
            ));
            frame.render_widget(Paragraph::new(lines), text);
            let field = Block::default()
                .borders(Borders::ALL)
                .border_style(app.theme.dim);
            let inner = field.inner(input);
            frame.render_widget(field, input);
            frame.render_widget(editor, inner);
            frame.render_widget(Paragraph::new(hints(app, Context::BudgetEditor)), keys);
        }
        None => {
            lines.push(Line::styled(
                "  Calls under way finish either way; none of this step is sent yet.",
                app.theme.dim,
            ));
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), text);
            frame.render_widget(Paragraph::new(hints(app, Context::Budget)), keys);
        }
    }
}

fn override_modal(app: &App, prompt: &OverridePrompt, frame: &mut Buffer, area: Rect) {
    let rect = centered(area, 70, 12);
    frame.render_widget(Clear, rect);
    let pane = &app.panes[prompt.pane];
    let title = prompt.title(&pane.role.title);
    let block = modal(app, &title);
    let body = block.inner(rect);
    frame.render_widget(block, rect);
    let held = app.held(prompt.pane);
    let choice = |key: &'static str, text: String| {
        Line::from(vec![
            Span::styled(format!("  {key} "), app.theme.key_hint),
            Span::styled(text, app.theme.text),
        ])
    };
    let mut lines = vec![
        Line::styled(prompt.what.clone(), app.theme.text),
        Line::raw(""),
    ];
    if held {
        let noun = role_noun(pane);
        lines.push(Line::styled(
            format!("The other {noun}s are in; the round waits for you. You can:"),
            app.theme.dim,
        ));
        lines.push(choice(
            "m",
            format!("re-run this {noun} with the same prompt"),
        ));
        lines.push(choice(
            "s",
            "go on without it (it counts as missing)".into(),
        ));
        if !app.alternatives.is_empty() {
            lines.push(choice(
                "c",
                "switch it to another model, then re-run".into(),
            ));
        }
        lines.push(choice("Esc", "decide later (M or S from its pane)".into()));
    } else {
        lines.push(Line::styled(
            match pane.live_call() {
                Some(call_id) => format!("quorum is running {call_id} now. You can:"),
                None => "No call of this role is running now.".to_string(),
            },
            app.theme.dim,
        ));
        lines.push(choice(
            "r",
            "retry now: cancel the running attempt and start it again".into(),
        ));
        if app.skippable(prompt.pane) {
            lines.push(choice(
                "s",
                format!("skip this {} for this round", role_noun(pane)),
            ));
        } else {
            lines.push(Line::styled(
                format!(
                    "    (the {} cannot be skipped: the debate needs it)",
                    pane.role.slot
                ),
                app.theme.dim,
            ));
        }
        lines.push(choice(
            "w",
            format!(
                "wait {} longer before timing out",
                crate::protocol::supervision::format_duration_ms(WAIT_LONGER_MS)
            ),
        ));
        if !app.alternatives.is_empty() {
            lines.push(choice(
                "c",
                "switch this role to another model, then retry".into(),
            ));
        }
        lines.push(choice(
            "Esc",
            "close, and let quorum's retry-once rule decide".into(),
        ));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
}

fn choose_agent(app: &App, pane: usize, cursor: usize, frame: &mut Buffer, area: Rect) {
    let height = (app.alternatives.len() as u16 + 5).min(area.height);
    let rect = centered(area, 60, height);
    frame.render_widget(Clear, rect);
    let title = format!("{} → another model", app.panes[pane].role.title);
    let block = modal(app, &title);
    let body = block.inner(rect);
    frame.render_widget(block, rect);
    let mut lines: Vec<Line> = app
        .alternatives
        .iter()
        .enumerate()
        .map(|(index, label)| {
            let style = if index == cursor {
                app.theme.selection
            } else {
                app.theme.text
            };
            let marker = if index == cursor { "▸" } else { " " };
            Line::styled(format!("{marker} {label} "), style)
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(hints(app, Context::ChooseAgent));
    frame.render_widget(Paragraph::new(lines), body);
}

/// The item in full, as the pop-up shows it, wrapped to its width.
pub(crate) fn item_detail_text(app: &App, index: usize) -> Paragraph<'_> {
    let Some(entry) = app.board.items.get(index) else {
        return Paragraph::default();
    };
    let theme = &app.theme;
    let mut lines = vec![Line::from(vec![
        Span::styled(
            entry.item.severity.clone(),
            severity_style(theme, &entry.item.severity),
        ),
        Span::styled(
            format!(" · {} · decision: ", entry.item.category),
            theme.dim,
        ),
        decision_span(
            theme,
            &app.info.words,
            super::items::shown_decision(app, entry),
        ),
    ])];
    lines.push(Line::raw(""));
    for paragraph in entry.item.text.lines() {
        lines.push(Line::styled(paragraph.to_string(), theme.text));
    }
    if !entry.evidence.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Its citations, checked against the sources:",
            theme.dim,
        ));
        lines.extend(super::items::evidence_lines(theme, &entry.evidence));
    }
    if !entry.item.preface.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("What the critic conceded first:", theme.dim));
        for paragraph in entry.item.preface.lines() {
            lines.push(Line::styled(paragraph.to_string(), theme.dim));
        }
    }
    if let Some(note) = &entry.note {
        lines.push(Line::raw(""));
        lines.push(Line::styled(format!("Your note: {note}"), theme.text));
    }
    let settlement = super::items::settlement_lines(app, entry);
    if !settlement.is_empty() {
        lines.push(Line::raw(""));
        lines.extend(settlement);
    }
    Paragraph::new(lines).wrap(Wrap { trim: false })
}

fn item_detail(app: &App, index: usize, scroll: usize, frame: &mut Buffer, area: Rect) {
    let Some(entry) = app.board.items.get(index) else {
        return;
    };
    let (rect, text, keys) = item_detail_areas(area);
    frame.render_widget(Clear, rect);
    let title = entry.item.heading();
    let mut block = modal(app, &title);
    let paragraph = item_detail_text(app, index);
    let rows = paragraph.line_count(text.width);
    let height = usize::from(text.height);
    let scroll = scroll.min(rows.saturating_sub(height));
    if rows > height {
        block = block.title_bottom(
            Line::styled(
                format!(
                    " rows {}–{} of {rows} · j/k PgDn/PgUp scroll ",
                    scroll + 1,
                    (scroll + height).min(rows)
                ),
                app.theme.dim,
            )
            .right_aligned(),
        );
    }
    frame.render_widget(block, rect);
    frame.render_widget(
        paragraph.scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        text,
    );
    let hidden: &[keymap::Action] =
        if matches!(app.mode, Mode::Archive(_)) && app.settle_refusal(index).is_some() {
            &[
                keymap::Action::Accept,
                keymap::Action::Reject,
                keymap::Action::Note,
            ]
        } else {
            &[]
        };
    frame.render_widget(
        Paragraph::new(hints_without(app, Context::ItemDetail, hidden)),
        keys,
    );
}
