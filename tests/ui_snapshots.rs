//! Snapshots of every screen of the TUI, at 80×24 and 200×60, drawn with
//! ratatui's TestBackend from the updates of a real demo debate.
//!
//! The debate runs in-process on the built-in scripted agents with tokio's
//! clock paused, so chunk boundaries are the same on every run; timestamps
//! are pinned before the updates reach the interface. Each screen is the
//! state after a prefix of those updates, plus key presses. The replay
//! screens feed the same updates to an interface in replay mode; the
//! archive screens feed those of a demo whose items were all deferred, then
//! the board after one of them was accepted after the verdict.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use chrono::TimeZone;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use quorum::cli::{RunFlags, prepare};
use quorum::engine::{Engine, ModerationPolicy, Moderator, Update};
use quorum::protocol::decision_review::DecisionReview;
use quorum::protocol::{Board, Input, LogKind, Protocol};
use quorum::tui::App;
use quorum::tui::layout::Region;
use quorum::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use tokio::sync::mpsc;

/// Where the interface says the record is.
const RUN_DIR: &str = "/tmp/quorum/billing-event-sourcing-20261130-120000";

/// Every update of one demo debate (moderation: accept all), timestamps pinned.
fn demo_updates() -> &'static [Update] {
    static UPDATES: OnceLock<Vec<Update>> = OnceLock::new();
    UPDATES.get_or_init(|| record_demo(ModerationPolicy::Accept, |_| {}).0)
}

/// Every update of a demo whose items were all deferred, and the board once
/// c1 was accepted after the verdict, with a note, at the pinned time.
fn deferred_demo() -> &'static (Vec<Update>, Board) {
    static RECORD: OnceLock<(Vec<Update>, Board)> = OnceLock::new();
    RECORD.get_or_init(|| {
        record_demo(ModerationPolicy::Defer, |review| {
            review.handle(
                &Input::ItemResolved {
                    item_id: "c1".into(),
                    decision: quorum::protocol::decision_review::model::ItemDecision::Accept,
                    note: Some("finance signed off on the ledger comparison".into()),
                    ruler: None,
                },
                pinned_time(),
            );
        })
    })
}

/// Runs the demo with `policy`; `after` acts on the finished protocol,
/// whose board is returned with the updates.
fn record_demo(
    policy: ModerationPolicy,
    after: impl FnOnce(&mut DecisionReview),
) -> (Vec<Update>, Board) {
    {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(async {
            let out = tempfile::tempdir().unwrap();
            let flags = RunFlags {
                out: out.path().to_path_buf(),
                speed: 1.0,
                ..RunFlags::default()
            };
            let prepared = prepare(quorum::cli::Source::Demo, &flags).unwrap();
            let run_dir =
                quorum::artifact::RunDir::create(out.path(), "demo", chrono::Local::now()).unwrap();
            let journal =
                quorum::artifact::Journal::create(&run_dir.path().join("journal.jsonl")).unwrap();
            let (tx, mut rx) = mpsc::unbounded_channel();
            let engine = Engine::new(
                Box::new(
                    DecisionReview::from_definition(&prepared.definition, prepared.prompts)
                        .unwrap(),
                ),
                run_dir,
                journal,
                prepared.roster,
                Moderator::policy(policy),
                tx,
            );
            let (_, mut review) = engine.run().await.unwrap();
            after(&mut review);
            let mut updates = Vec::new();
            while let Ok(update) = rx.try_recv() {
                updates.push(pin_time(update));
            }
            (updates, review.board())
        })
    }
}

fn pin_time(update: Update) -> Update {
    match update {
        Update::Log(mut entry) => {
            entry.at = pinned_time();
            entry.message = pin_duration(&entry.message);
            Update::Log(entry)
        }
        other => other,
    }
}

/// The pinned log time as the interface shows it (local time), replaced by
/// its UTC form, so the snapshots read the same in every time zone.
fn in_utc(screen: &str) -> String {
    let mut screen = screen.to_string();
    for format in ["%Y-%m-%d %H:%M", "%d %b %H:%M", "%H:%M:%S"] {
        let local = pinned_time()
            .with_timezone(&chrono::Local)
            .format(format)
            .to_string();
        let utc = pinned_time().format(format).to_string();
        screen = screen.replace(&local, &utc);
    }
    screen
}

fn pinned_time() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc
        .with_ymd_and_hms(2026, 11, 30, 12, 0, 0)
        .unwrap()
}

/// Call durations are wall-clock time even with tokio's clock paused:
/// `answered in 0.1 s` becomes `answered in 0.0 s`.
fn pin_duration(message: &str) -> String {
    const MARK: &str = "answered in ";
    let Some(start) = message.find(MARK).map(|at| at + MARK.len()) else {
        return message.to_string();
    };
    let end = message[start..]
        .find(" s")
        .map_or(message.len(), |offset| start + offset);
    format!("{}0.0{}", &message[..start], &message[end..])
}

fn info() -> quorum::tui::DebateInfo {
    let flags = RunFlags {
        speed: 1.0,
        ..RunFlags::default()
    };
    let prepared = prepare(quorum::cli::Source::Demo, &flags).unwrap();
    quorum::tui::DebateInfo::of(&*prepared.protocol(), PathBuf::from(RUN_DIR))
}

fn theme(name: &str) -> Theme {
    Theme::builtin(name).unwrap()
}

/// The app after the updates up to (not including) the first one `stop`
/// matches, skipping `skip_matches - 1` earlier matches.
fn app_until(theme_name: &str, stop: impl Fn(&Update) -> bool, nth: usize) -> App {
    let now = Instant::now();
    let mut app = App::new(info(), theme(theme_name), now);
    let mut seen = 0;
    for update in demo_updates() {
        if stop(update) {
            seen += 1;
            if seen == nth {
                break;
            }
        }
        app.apply(update.clone(), now);
    }
    // The header's token estimate is the last tick's, and a running
    // interface ticks four times a second.
    app.tick(now);
    app
}

fn chunks_of(role: &'static str, count: usize) -> impl Fn(&Update) -> bool {
    let seen = std::cell::Cell::new(0);
    move |update| match update {
        Update::Chunk { call_id, .. } if call_id.starts_with(role) => {
            seen.set(seen.get() + 1);
            seen.get() > count
        }
        _ => false,
    }
}

fn render(app: &mut App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    app.prepare(Rect::new(0, 0, width, height));
    terminal
        .draw(|frame| quorum::tui::view::draw(app, frame))
        .unwrap();
    terminal
}

fn press(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE), Instant::now());
}

fn snap(name: &str, app: &mut App) {
    for (width, height) in [(80, 24), (200, 60)] {
        let terminal = render(app, width, height);
        insta::assert_snapshot!(
            format!("{name}_{width}x{height}"),
            in_utc(&terminal.backend().to_string())
        );
    }
}

#[test]
fn proposal_streaming() {
    let mut app = app_until("dark", chunks_of("proposer/proposal", 40), 1);
    snap("proposal_streaming", &mut app);
}

#[test]
fn critique_streaming() {
    let mut app = app_until("dark", chunks_of("critic/critique", 30), 1);
    press(&mut app, KeyCode::Tab);
    snap("critique_streaming", &mut app);
}

/// The moderation after the first decision: the engine takes a policy's
/// decisions as one burst and publishes the board once, after all of them,
/// so the app stops before the log line of the second decision (the third
/// moderation line, after `needs moderator` and `c1 accepted`).
fn moderation() -> App {
    app_until("dark", is_moderation_line, 3)
}

fn is_moderation_line(update: &Update) -> bool {
    matches!(update, Update::Log(entry) if entry.kind == LogKind::Moderation)
}

#[test]
fn moderation_items_take_focus() {
    let mut app = moderation();
    assert!(app.board.needs_moderator);
    assert_eq!(app.focus, quorum::tui::app::Focus::Items);
    snap("moderation", &mut app);
}

fn snap_at(name: &str, app: &mut App, width: u16, height: u16) {
    let terminal = render(app, width, height);
    insta::assert_snapshot!(
        format!("{name}_{width}x{height}"),
        in_utc(&terminal.backend().to_string())
    );
}

/// The moderation layout as a moderator sees it at 160×48: the judges,
/// which have not started, leave their room to the items; the selected
/// item shows in full beside the block it attacks.
#[test]
fn moderation_layout_gives_the_items_the_room() {
    let mut app = moderation();
    snap_at("moderation_layout", &mut app, 160, 48);
    // The next item, on another block.
    press(&mut app, KeyCode::Down);
    assert_eq!(app.item_cursor, 1);
    snap_at("moderation_layout_second_item", &mut app, 160, 48);
}

/// A judge that starts during the moderation gets its pane back at once.
#[test]
fn moderation_layout_brings_a_judge_back_when_it_starts() {
    let mut app = moderation();
    app.apply(
        Update::CallStarted {
            call_id: "judge.analyst/evaluation/r1/a1".into(),
            slot: quorum::protocol::supervision::Slot::new("judge.analyst", "evaluation", 1),
            attempt: 1,
            agent: quorum::agent::AgentInfo {
                provider: "script".into(),
                model: "scripted".into(),
            },
        },
        Instant::now(),
    );
    app.apply(
        Update::Chunk {
            call_id: "judge.analyst/evaluation/r1/a1".into(),
            text: "block_scores:\n  - block_id: b1\n".into(),
        },
        Instant::now(),
    );
    snap_at("moderation_layout_judge_started", &mut app, 160, 48);
}

#[test]
fn moderation_note_editor() {
    let mut app = moderation();
    press(&mut app, KeyCode::Char('a'));
    press(&mut app, KeyCode::Char('n'));
    for c in "Finance must sign off".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    snap("moderation_note", &mut app);
}

#[test]
fn moderation_item_in_full() {
    let mut app = moderation();
    press(&mut app, KeyCode::Enter);
    snap("moderation_item_detail", &mut app);
}

/// While the judges write, the proposer and critic are done: their row
/// shrinks to its titles and the judges get the agents' column; at 80×24
/// the one region shown is the focused one, as before.
#[test]
fn streaming_layout_shrinks_the_panes_that_wait_or_are_done() {
    let mut app = app_until("dark", chunks_of("judge.analyst/evaluation", 40), 1);
    render(&mut app, 200, 60);
    let rect = |app: &App, slot: &str| {
        let index = app.pane_index(slot).unwrap();
        app.layout.rect(Region::Pane(index)).unwrap()
    };
    assert_eq!(
        rect(&app, "proposer").height,
        1,
        "the done proposer keeps its title row"
    );
    assert_eq!(
        rect(&app, "critic").height,
        1,
        "the done critic keeps its title row"
    );
    assert!(
        rect(&app, "judge.analyst").height > 50,
        "the streaming judges get the rest: {:?}",
        rect(&app, "judge.analyst")
    );
    snap("streaming_shrinks_idle_panes", &mut app);
    // Focused, a done pane has its rows back.
    let critic = app.pane_index("critic").unwrap();
    while app.focus != quorum::tui::app::Focus::Pane(critic) {
        press(&mut app, KeyCode::Tab);
    }
    render(&mut app, 200, 60);
    let critic_rect = rect(&app, "critic");
    assert!(critic_rect.height > 10, "{critic_rect:?}");
}

#[test]
fn revision_streaming() {
    let mut app = app_until("dark", chunks_of("proposer/revision", 60), 1);
    snap("revision_streaming", &mut app);
}

#[test]
fn evaluation_with_partial_scores_and_the_override_modal() {
    // The aesthete timed out and its retry is running: the modal is open.
    let mut app = app_until(
        "dark",
        |update| matches!(update, Update::Chunk { call_id, .. } if call_id.starts_with("judge.aesthete") && call_id.ends_with("/a2")),
        1,
    );
    snap("evaluation_override_modal", &mut app);
    press(&mut app, KeyCode::Esc);
    snap("evaluation_scores", &mut app);
}

#[test]
fn switching_a_stuck_role_to_another_model() {
    let mut app = app_until(
        "dark",
        |update| matches!(update, Update::Chunk { call_id, .. } if call_id.starts_with("judge.aesthete") && call_id.ends_with("/a2")),
        1,
    );
    app.set_alternatives([
        "openai:gpt-4.1".to_string(),
        "anthropic:claude-sonnet-4-5".to_string(),
    ]);
    snap("override_modal_with_models", &mut app);
    press(&mut app, KeyCode::Char('c'));
    press(&mut app, KeyCode::Char('j'));
    snap("switch_model_chooser", &mut app);
}

#[test]
fn help_overlay() {
    let mut app = app_until("dark", chunks_of("critic/critique", 10), 1);
    press(&mut app, KeyCode::Char('?'));
    snap("help", &mut app);
}

#[test]
fn quit_asks_while_running() {
    let mut app = app_until("dark", chunks_of("critic/critique", 10), 1);
    press(&mut app, KeyCode::Char('q'));
    assert!(!app.quit);
    snap("confirm_quit", &mut app);
}

fn finished(theme_name: &str) -> App {
    let mut app = app_until(theme_name, |_| false, 1);
    let summary = "# Should we move billing to event sourcing?\n\n**Go ahead (ADOPT).** The summary \
                   quorum wrote, rendered as markdown.\n\n- deferred c3: ask finance\n";
    app.show_report(
        summary,
        vec![
            "critique.md".into(),
            "debate.yaml".into(),
            "judges/judge-analyst.md".into(),
            "journal.jsonl".into(),
            "proposal.md".into(),
            "revision.md".into(),
            "summary.md".into(),
            "transcript.md".into(),
        ],
    );
    app
}

#[test]
fn verdict_screen() {
    let mut app = finished("dark");
    assert!(app.outcome.is_some());
    snap("verdict", &mut app);
    // Tab goes back to the panes; the scoreboard shows the final round.
    press(&mut app, KeyCode::Tab);
    snap("after_verdict_panes", &mut app);
}

/// A decision review's summary, whose score table of the final round the
/// result view lays out in columns.
#[test]
fn result_view_shows_the_score_table() {
    let mut app = app_until("dark", |_| false, 1);
    let summary = "# Should we move billing to event sourcing?\n\n**Go ahead (ADOPT).** \
                   The panel scored the proposal above every threshold.\n\n\
                   Scores of the final round (2):\n\n\
                   | judge | weight | block | criterion | score |\n\
                   |---|---|---|---|---|\n\
                   | judge.analyst | binding | b1 | correctness | 4 |\n\
                   | judge.analyst | binding | b2 | feasibility of the migration plan | 5 |\n\
                   | judge.skeptic | advisory | b1 | correctness | 3 |\n\
                   | judge.skeptic | advisory | — | recused (the proposer's model family) | — |\n\
                   \n- deferred c3: ask finance\n";
    app.show_report(summary, vec!["summary.md".into(), "transcript.md".into()]);
    snap("result_score_table", &mut app);
}

#[test]
fn human_agent_pane() {
    let mut app = app_until("dark", chunks_of("critic/critique", 5), 1);
    let analyst = app.pane_index("judge.analyst").unwrap();
    app.apply(
        Update::CallStarted {
            call_id: "judge.analyst/evaluation/r1/a1".into(),
            slot: quorum::protocol::supervision::Slot::new("judge.analyst", "evaluation", 1),
            attempt: 1,
            agent: quorum::agent::AgentInfo {
                provider: "human".into(),
                model: "moderator".into(),
            },
        },
        Instant::now(),
    );
    app.apply(
        Update::AnswerWanted {
            call_id: "judge.analyst/evaluation/r1/a1".into(),
            role: "judge.analyst".into(),
            prompt: "## Answer format\n\nReply with one fenced YAML block.".into(),
            template: Some(
                "block_scores:\n  - block_id: b1\n    criterion: correctness\n    score: 4\n    rationale: \"one sentence\"\n"
                    .into(),
            ),
        },
        Instant::now(),
    );
    app.apply(
        Update::AnswerRejected {
            call_id: "judge.analyst/evaluation/r1/a1".into(),
            error: "line 3, field block_scores[0].score: 7 is not a score from 1 to 5".into(),
        },
        Instant::now(),
    );
    app.focus = quorum::tui::app::Focus::Pane(analyst);
    app.flash = None;
    press(&mut app, KeyCode::Char('e'));
    snap("human_agent", &mut app);
}

/// Text plus one letter per cell for its foreground, so a theme's colours
/// are part of the snapshot.
fn styled_dump(terminal: &Terminal<TestBackend>) -> String {
    let buffer = terminal.backend().buffer();
    let mut colours: Vec<String> = Vec::new();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut text = String::new();
        let mut codes = String::new();
        for x in 0..buffer.area.width {
            let cell = &buffer[(x, y)];
            text.push_str(cell.symbol());
            let key = format!("{:?}/{:?}/{:?}", cell.fg, cell.bg, cell.modifier);
            let index = colours.iter().position(|c| *c == key).unwrap_or_else(|| {
                colours.push(key);
                colours.len() - 1
            });
            codes.push(char::from_digit(index as u32 % 36, 36).unwrap());
        }
        out.push_str(&format!("{text}\n{codes}\n"));
    }
    out.push_str("\nstyles:\n");
    for (index, key) in colours.iter().enumerate() {
        out.push_str(&format!(
            "{}: {key}\n",
            char::from_digit(index as u32 % 36, 36).unwrap()
        ));
    }
    out
}

#[test]
fn each_theme_once() {
    for name in Theme::names() {
        let mut app = finished(name);
        press(&mut app, KeyCode::Tab);
        let terminal = render(&mut app, 120, 32);
        insta::assert_snapshot!(format!("theme_{name}"), in_utc(&styled_dump(&terminal)));
    }
}

#[test]
fn no_color_keeps_focus_visible_without_colour() {
    let mut app = finished("dark");
    app.theme = app.theme.clone().no_color();
    press(&mut app, KeyCode::Tab);
    let terminal = render(&mut app, 120, 32);
    let buffer = terminal.backend().buffer();
    for cell in buffer.content() {
        assert_eq!(
            cell.fg,
            ratatui::style::Color::Reset,
            "NO_COLOR: no foreground colour"
        );
        assert_eq!(
            cell.bg,
            ratatui::style::Color::Reset,
            "NO_COLOR: no background colour"
        );
    }
}

/// Tiny and degenerate terminal sizes draw without panicking, on every
/// screen state with layers open.
#[test]
fn tiny_terminals_do_not_panic() {
    let mut app = moderation();
    press(&mut app, KeyCode::Char('n'));
    let mut finished_app = finished("dark");
    press(&mut finished_app, KeyCode::Char('?'));
    // The result view itself, paged, with a message too long for the footer.
    let mut result = finished("dark");
    press(&mut result, KeyCode::PageDown);
    result.flash(
        "a message longer than a tiny terminal is wide".repeat(4),
        Instant::now(),
    );
    for (width, height) in [
        (0, 0),
        (1, 1),
        (5, 3),
        (20, 6),
        (40, 10),
        (79, 23),
        (120, 29),
    ] {
        render(&mut app, width, height);
        render(&mut finished_app, width, height);
        render(&mut result, width, height);
    }
}

/// The demo played back at ×50, the critic streaming.
fn replay_until(stop: impl Fn(&Update) -> bool) -> App {
    let now = Instant::now();
    let mut app = App::new(info(), theme("dark"), now).replaying(50.0, now);
    for update in demo_updates() {
        if stop(update) {
            break;
        }
        app.apply(update.clone(), now);
    }
    // The header's token estimate is the last tick's, and a running
    // interface ticks four times a second.
    app.tick(now);
    app
}

#[test]
fn replay_header_and_footer() {
    let mut app = replay_until(chunks_of("critic/critique", 30));
    snap("replay_streaming", &mut app);
}

#[test]
fn replay_paused_in_the_moderation() {
    // Stopped where `moderation()` stops: after the first decision.
    let seen = std::cell::Cell::new(0);
    let mut app = replay_until(|update| {
        if is_moderation_line(update) {
            seen.set(seen.get() + 1);
        }
        seen.get() == 3
    });
    assert_eq!(app.focus, quorum::tui::app::Focus::Items);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Char('a'));
    assert!(
        app.board.items.iter().all(|item| item.decision.is_none()),
        "a replay decides nothing"
    );
    snap("replay_moderation_paused", &mut app);
}

/// The deferred demo opened again, c1 settled after the verdict.
fn archive() -> App {
    let (updates, settled) = deferred_demo();
    let mut app = App::new(info(), theme("dark"), Instant::now()).archived();
    for update in updates {
        let finished = matches!(update, Update::Finished(_));
        app.apply(update.clone(), Instant::now());
        if finished {
            app.show_report(
                "# Summary\n\nThe summary quorum wrote.\n",
                vec!["summary.md".into()],
            );
        }
    }
    app.apply(Update::Board(Box::new(settled.clone())), Instant::now());
    app.elapsed = std::time::Duration::from_secs(125);
    app
}

#[test]
fn archive_items_with_a_settlement() {
    let mut app = archive();
    assert!(!app.show_verdict, "an archive opens on its items");
    assert!(app.reopen_pending());
    assert_eq!(app.unsettled(), 5);
    assert_eq!(app.item_cursor, 0, "on the first item that was open");
    snap("archive_items", &mut app);
}

#[test]
fn archive_item_in_full() {
    let mut app = archive();
    press(&mut app, KeyCode::Enter);
    snap("archive_item_detail", &mut app);
}

/// Issue 28: a structured answer reads as cards — the proposer's thesis
/// blocks and the critic's critique items, once both have answered — and
/// `t` shows the proposer's text as it was written.
#[test]
fn structured_answers_read_as_cards() {
    let mut app = app_until("dark", chunks_of("judge.", 0), 1);
    app.focus = quorum::tui::app::Focus::Pane(0);
    snap("cards", &mut app);
    press(&mut app, KeyCode::Char('z'));
    snap("cards_zoomed", &mut app);
    press(&mut app, KeyCode::Char('t'));
    assert!(app.panes[0].raw);
    snap("cards_raw_text", &mut app);
}
