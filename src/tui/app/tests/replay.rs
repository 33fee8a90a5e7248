//! The interface replaying a recorded debate and opening a finished one
//! (an archive): keys that would change a debate are neither offered nor
//! acted on, the clock follows the record, deferred items are settled.

use super::*;

fn replay_app(speed: f64) -> App {
    let mut app = app();
    let now = app.started;
    app = app.replaying(speed, now);
    app.prepare(Rect::new(0, 0, 200, 60));
    app
}

fn adopted() -> Update {
    Update::Finished(Outcome::Decided {
        verdict: crate::protocol::Verdict::Adopt,
        rule: "all checks passed".into(),
    })
}

#[test]
fn a_replay_neither_offers_nor_acts_on_keys_that_change_a_debate() {
    let mut app = replay_app(2.0);
    app.progress.stage = "moderation".into();
    app.apply(Update::Board(Box::new(items(3))), Instant::now());
    assert_eq!(app.focus, Focus::Items, "focus follows the debate");
    for key_char in ['a', 'r', 'd', 'n', 's'] {
        assert!(press(&mut app, key_char).is_empty(), "{key_char}");
        assert!(app.layers.is_empty(), "{key_char} opens nothing");
    }
    assert!(app.board.items.iter().all(|entry| entry.decision.is_none()));
    for action in [Action::Accept, Action::Submit, Action::Note] {
        assert!(app.act(action, Instant::now()).is_empty(), "{action:?}");
    }
    let hints = keymap::footer(&app.contexts(), app.key_mode(), &[]);
    assert!(
        hints.iter().all(
            |(_, hint)| !["accept", "reject", "defer", "note", "submit decisions"].contains(hint)
        ),
        "{hints:?}"
    );

    // A call that timed out in the recording raises no override modal, and
    // no override key reaches it.
    analyst_times_out(&mut app);
    assert!(app.layers.is_empty(), "no modal in a replay");
    start(&mut app, "judge.analyst/evaluation/r1/a2", "judge.analyst");
    app.focus = Focus::Pane(2);
    for key_char in ['R', 'S', 'W', 'M', 'e'] {
        assert!(press(&mut app, key_char).is_empty(), "{key_char}");
    }
    // Reading keys work as in a live run.
    press(&mut app, 'z');
    assert!(app.zoomed);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Focus::Items);
    press(&mut app, '?');
    assert!(matches!(app.layers.last(), Some(Layer::Help { .. })));
    key(&mut app, KeyCode::Esc);
    // Quitting a replay stops nothing: no question.
    press(&mut app, 'q');
    assert!(app.quit && app.layers.is_empty());
}

#[test]
fn space_pauses_a_replay_and_plus_and_minus_change_its_speed() {
    let mut app = replay_app(4.0);
    let start = app.started;
    let later = start + Duration::from_secs(1);
    let playback = |app: &App| app.playback().unwrap().clone();
    assert_eq!(playback(&app).position(later), Duration::from_secs(4));

    app.act(Action::TogglePause, later);
    assert!(playback(&app).paused);
    let much_later = start + Duration::from_secs(100);
    assert_eq!(
        playback(&app).position(much_later),
        Duration::from_secs(4),
        "paused: the playback stays where it was"
    );
    assert_eq!(playback(&app).due(Duration::from_secs(5), much_later), None);
    app.act(Action::TogglePause, much_later);
    assert!(!playback(&app).paused);

    assert!(press(&mut app, '+').is_empty());
    assert_eq!(playback(&app).speed, 8.0);
    press(&mut app, '=');
    assert_eq!(playback(&app).speed, 16.0);
    press(&mut app, '-');
    press(&mut app, '-');
    press(&mut app, '-');
    assert_eq!(playback(&app).speed, 2.0);
    for _ in 0..20 {
        press(&mut app, '-');
    }
    assert_eq!(playback(&app).speed, MIN_REPLAY_SPEED);

    // A live run has no pace to change.
    let mut live = self::app();
    assert!(live.act(Action::TogglePause, Instant::now()).is_empty());
    assert!(live.playback().is_none());
}

#[test]
fn a_replay_plays_its_moments_and_its_clock_stops_at_the_end() {
    let mut app = replay_app(1.0);
    let start = app.started;
    app.play(
        Moment {
            at: Duration::from_secs(3),
            recorded: Duration::from_secs(600),
            update: Update::Progress(Progress {
                stage: "critique".into(),
                round: 1,
                finished: false,
                ..Default::default()
            }),
        },
        start + Duration::from_secs(3),
    );
    app.tick(start + Duration::from_secs(4));
    assert_eq!(app.elapsed, Duration::from_secs(601), "the debate's clock");
    assert_eq!(app.progress.stage, "critique");
    app.end_of_recording(start + Duration::from_secs(5));
    app.tick(start + Duration::from_secs(50));
    assert_eq!(app.elapsed, Duration::from_secs(600), "stopped at the end");
}

/// A finished debate opened again: c1 accepted in moderation, c2 and c3
/// deferred, c4 deferred and accepted after the verdict.
fn archive_app(resolvable: bool) -> App {
    let mut app = app().archived();
    let mut board = items(4);
    board.needs_moderator = false;
    board.resolvable = resolvable;
    board.reopen_pending = true;
    let decisions = [
        ItemDecision::Accept,
        ItemDecision::Defer,
        ItemDecision::Defer,
        ItemDecision::Defer,
    ];
    for (entry, decision) in board.items.iter_mut().zip(decisions) {
        entry.decision = Some(decision);
    }
    board.items[3].resolution = Some(crate::protocol::ItemResolution {
        decision: ItemDecision::Accept,
        note: None,
        at: chrono::Utc::now(),
        ruler: None,
    });
    app.apply(Update::Board(Box::new(board)), Instant::now());
    app.apply(adopted(), Instant::now());
    app
}

/// What `app` shows on a 100x30 screen, row by row.
fn drawn(app: &mut App) -> String {
    let area = Rect::new(0, 0, 100, 30);
    app.prepare(area);
    let mut buffer = ratatui::buffer::Buffer::empty(area);
    crate::tui::view::draw_screen(app, &mut buffer);
    (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn resolved(command: &Command) -> (String, ItemDecision, Option<String>) {
    match command {
        Command::Moderator(Input::ItemResolved {
            item_id,
            decision,
            note,
            ruler: Some(crate::protocol::Ruler::Person),
        }) => (item_id.clone(), *decision, note.clone()),
        other => panic!("not a settlement: {other:?}"),
    }
}

#[test]
fn an_archive_settles_a_deferred_item_with_a_note_written_first() {
    let mut app = archive_app(true);
    assert_eq!(app.focus, Focus::Items);
    assert_eq!(
        app.item_cursor, 1,
        "the cursor starts on the first open item"
    );
    assert!(app.reopen_pending(), "c4 was accepted after the verdict");
    assert_eq!(app.unsettled(), 2);

    press(&mut app, 'n');
    assert_eq!(app.contexts(), vec![Context::Editor]);
    for c in "finance agreed".chars() {
        press(&mut app, c);
    }
    let saved = app.handle_key(
        KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL),
        Instant::now(),
    );
    assert!(saved.is_empty(), "the note waits for the settlement");
    assert!(app.layers.is_empty());
    // Issue 62: one key asks first, showing what will be recorded; `n`
    // leaves everything as it was.
    assert!(
        press(&mut app, 'a').is_empty(),
        "nothing sent before it is confirmed"
    );
    assert_eq!(app.contexts(), vec![Context::ConfirmSettle]);
    let asked = drawn(&mut app);
    assert!(
        asked.contains("Record c2 as accepted after the verdict?"),
        "{asked}"
    );
    assert!(asked.contains("with your note: finance"), "{asked}");
    assert!(asked.contains("quorum resume /tmp/run --reopen"), "{asked}");
    assert!(press(&mut app, 'n').is_empty());
    assert!(app.layers.is_empty());
    assert_eq!(
        app.pending_note("c2"),
        Some("finance agreed"),
        "the note is kept"
    );
    assert!(press(&mut app, 'a').is_empty());
    let sent = press(&mut app, 'y');
    assert_eq!(
        resolved(&sent[0]),
        (
            "c2".into(),
            ItemDecision::Accept,
            Some("finance agreed".into())
        )
    );
    assert_eq!(app.item_cursor, 2, "on to the next open item");
    assert!(
        press(&mut app, 'd').is_empty(),
        "nothing is deferred again after the verdict"
    );
    assert!(press(&mut app, 'r').is_empty());
    let asked = drawn(&mut app);
    assert!(asked.contains("without a note (n writes one"), "{asked}");
    let sent = app.handle_key(
        KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
        Instant::now(),
    );
    assert_eq!(
        resolved(&sent[0]),
        ("c3".into(), ItemDecision::Reject, None)
    );

    // Until the engine's board shows c2 settled, it is not settled twice.
    app.item_cursor = 1;
    assert!(press(&mut app, 'a').is_empty());
    assert!(app.flash.as_ref().unwrap().0.contains("on its way"));
    let mut board = app.board.clone();
    board.items[1].resolution = Some(crate::protocol::ItemResolution {
        decision: ItemDecision::Accept,
        note: Some("finance agreed".into()),
        at: chrono::Utc::now(),
        ruler: None,
    });
    app.apply(Update::Board(Box::new(board)), Instant::now());
    assert!(press(&mut app, 'r').is_empty());
    assert!(
        app.flash
            .as_ref()
            .unwrap()
            .0
            .contains("c2 was already accepted after the verdict")
    );
}

#[test]
fn an_archive_refuses_items_that_cannot_be_settled() {
    let mut app = archive_app(true);
    app.item_cursor = 0;
    assert!(
        press(&mut app, 'a').is_empty(),
        "c1 was accepted in moderation"
    );
    assert!(
        app.flash
            .as_ref()
            .unwrap()
            .0
            .contains("c1 was accepted in moderation")
    );
    press(&mut app, 'n');
    assert!(
        app.layers.is_empty(),
        "no note for an item that cannot be settled"
    );
    app.item_cursor = 3;
    assert!(press(&mut app, 'r').is_empty(), "c4 is settled already");

    // A debate whose deferred items were all answered by a reopened round.
    let mut answered = archive_app(false);
    answered.item_cursor = 1;
    assert!(press(&mut answered, 'a').is_empty());
    assert!(
        answered
            .flash
            .as_ref()
            .unwrap()
            .0
            .contains("no deferred item can be settled")
    );
    // Accepted after the verdict and answered since: nothing reopens.
    let mut board = answered.board.clone();
    board.items[3].item.id = "c9".into();
    board.reopen_pending = false;
    let mut answered = answered.archived();
    answered.apply(Update::Board(Box::new(board)), Instant::now());
    assert!(!answered.reopen_pending());

    // A live run settles nothing after its verdict.
    let mut live = self::app();
    live.apply(
        Update::Board(Box::new(archive_app(true).board.clone())),
        Instant::now(),
    );
    live.apply(adopted(), Instant::now());
    live.item_cursor = 1;
    live.focus = Focus::Items;
    assert!(press(&mut live, 'a').is_empty());
    assert!(!live.reopen_pending());
}

#[test]
fn quitting_an_archive_asks_nothing() {
    let mut app = archive_app(true);
    press(&mut app, 'q');
    assert!(app.quit && app.layers.is_empty());
}

#[test]
fn a_debate_reopened_after_its_verdict_is_running_again() {
    let mut app = app();
    let progress = |finished| {
        Update::Progress(crate::protocol::Progress {
            stage: if finished { "verdict" } else { "revision" }.into(),
            round: 3,
            finished,
            ..Default::default()
        })
    };
    app.apply(progress(true), Instant::now());
    app.apply(
        Update::Finished(Outcome::Decided {
            verdict: crate::protocol::Verdict::Adopt,
            rule: "all checks passed".into(),
        }),
        Instant::now(),
    );
    app.show_report("summary", Vec::new());
    assert!(!app.running());
    assert!(app.show_verdict);

    app.apply(progress(false), Instant::now());
    assert!(app.running(), "the reopened round runs");
    assert_eq!(app.outcome, None);
    assert!(app.report.is_none() && !app.show_verdict);
}

/// A board of rulings (a root-cause analysis's hypotheses, say) is drawn in
/// the board region with each word in its tone and its rule under it; agent
/// text in it is made inert first.
#[test]
fn a_board_of_rulings_is_drawn_with_its_rules() {
    use crate::protocol::{BoardView, Fact, Ruling, Tone};
    let mut app = app();
    let ruling = |subject: &str, word: Option<&str>, tone, title: &str, rule: &str| Ruling {
        subject: subject.into(),
        title: title.into(),
        word: word.map(str::to_string),
        tone,
        rule: rule.into(),
        facts: vec![
            Fact::new("owner", "alpha"),
            Fact::warning("hedges", "likely\u{1b}[31m"),
        ],
    };
    app.apply(
        Update::Board(Box::new(Board {
            view: BoardView::Rulings(vec![
                ruling(
                    "H1",
                    Some("SURVIVED"),
                    Some(Tone::Positive),
                    "the cache\u{1b}[2J evicts under load",
                    "every challenge answered",
                ),
                ruling("H2", None, None, "a slow disk", ""),
            ]),
            ..Board::default()
        })),
        Instant::now(),
    );
    app.focus = Focus::Board;
    app.zoomed = true;
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    app.prepare(Rect::new(0, 0, 80, 24));
    terminal
        .draw(|frame| crate::tui::view::draw(&app, frame))
        .unwrap();
    let screen = terminal.backend().to_string();
    assert!(screen.contains("Scores · 1 open"), "{screen}");
    assert!(
        screen.contains("H1    SURVIVED the cache evicts under load"),
        "{screen}"
    );
    assert!(screen.contains("every challenge answered"), "{screen}");
    assert!(screen.contains("owner alpha · hedges likely"), "{screen}");
    assert!(screen.contains("H2    open"), "{screen}");
    assert!(!screen.contains('\u{1b}'));
}

/// A finished debate opens on its items, or on its first pane when its
/// protocol raises none (a panel review): never on a region not drawn.
#[test]
fn an_archive_opens_where_there_is_something_to_see() {
    let with_items = App::new(
        info(vec![role("critic", "Critic")]),
        Theme::default(),
        Instant::now(),
    )
    .archived();
    assert_eq!(with_items.focus, Focus::Items);
    let mut without = info(vec![
        role("judge.aesthete", "Aesthete"),
        role("synthesizer", "Synthesizer"),
    ]);
    without.items = None;
    without.board = None;
    let app = App::new(without, Theme::default(), Instant::now()).archived();
    assert_eq!(app.focus, Focus::Pane(0));
}
