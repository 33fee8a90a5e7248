//! Unit tests of the interface's state: updates folded in, keys applied.

use super::*;
use crate::agent::AgentInfo;
use crate::engine::Command;
use crate::protocol::{BoardItem, Input, ModerationItem, OverrideAction};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

fn role(slot: &str, title: &str) -> RoleInfo {
    RoleInfo {
        slot: slot.into(),
        title: title.into(),
        agent: "script:test".into(),
        binding: slot == "judge.analyst",
    }
}

fn app() -> App {
    let info = DebateInfo {
        topic: "Should we?".into(),
        protocol: "decision review".into(),
        run_dir: PathBuf::from("/tmp/run"),
        roles: vec![
            role("proposer", "Proposer"),
            role("critic", "Critic"),
            role("judge.analyst", "Analyst"),
        ],
    };
    let mut app = App::new(info, Theme::builtin("dark").unwrap(), Instant::now());
    app.prepare(Rect::new(0, 0, 200, 60));
    app
}

fn key(app: &mut App, code: KeyCode) -> Vec<Command> {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
}

fn items(count: usize) -> Board {
    Board {
        stages: vec!["proposal".into(), "moderation".into()],
        scoreboard: None,
        items: (1..=count)
            .map(|n| BoardItem {
                item: ModerationItem {
                    id: format!("c{n}"),
                    target: "b1".into(),
                    severity: "major".into(),
                    category: "risk".into(),
                    text: format!("item {n}"),
                    preface: String::new(),
                },
                decision: None,
                note: None,
                resolution: None,
            })
            .collect(),
        needs_moderator: true,
        ..Board::default()
    }
}

fn start(app: &mut App, call_id: &str, role: &str) {
    let agent = AgentInfo {
        provider: "script".into(),
        model: "test".into(),
    };
    app.apply(
        Update::CallStarted {
            call_id: call_id.into(),
            role: role.into(),
            agent,
        },
        Instant::now(),
    );
}

fn decided(command: &Command) -> (String, ItemDecision, Option<String>) {
    match command {
        Command::Moderator(Input::ItemDecided {
            item_id,
            decision,
            note,
        }) => (item_id.clone(), *decision, note.clone()),
        other => panic!("not a decision: {other:?}"),
    }
}

#[test]
fn items_take_focus_and_each_decision_goes_out_at_once() {
    let mut app = app();
    app.progress.stage = "moderation".into();
    app.apply(Update::Board(items(3)), Instant::now());
    assert_eq!(app.focus, Focus::Items);
    let sent = key(&mut app, KeyCode::Char('a'));
    assert_eq!(decided(&sent[0]), ("c1".into(), ItemDecision::Accept, None));
    assert_eq!(app.item_cursor, 1, "the cursor moves to the next open item");
    let sent = key(&mut app, KeyCode::Char('r'));
    assert_eq!(decided(&sent[0]).1, ItemDecision::Reject);
    assert!(
        key(&mut app, KeyCode::Char('s')).is_empty(),
        "c3 is still open"
    );
    assert!(app.flash.as_ref().unwrap().0.contains("c3"));
    key(&mut app, KeyCode::Char('d'));
    let sent = key(&mut app, KeyCode::Char('s'));
    assert!(matches!(
        sent[..],
        [Command::Moderator(Input::ModerationSubmitted)]
    ));
}

#[test]
fn a_note_written_first_travels_with_the_decision() {
    let mut app = app();
    app.progress.stage = "moderation".into();
    app.apply(Update::Board(items(2)), Instant::now());
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.contexts(), vec![Context::Editor]);
    for c in "ask finance".chars() {
        assert!(
            key(&mut app, KeyCode::Char(c)).is_empty(),
            "typing sends nothing"
        );
    }
    let saved = app.handle_key(
        KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL),
        Instant::now(),
    );
    assert!(saved.is_empty(), "no decision yet: the note waits");
    let sent = key(&mut app, KeyCode::Char('d'));
    assert_eq!(
        decided(&sent[0]),
        ("c1".into(), ItemDecision::Defer, Some("ask finance".into()))
    );
    // A note on a decided item re-sends the decision with it; Esc cancels.
    app.item_cursor = 0;
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Esc);
    assert!(app.layers.is_empty());
}

#[test]
fn decisions_wait_for_the_critique() {
    let mut app = app();
    app.progress.stage = "moderation".into();
    let mut board = items(1);
    board.needs_moderator = false;
    app.apply(Update::Board(board), Instant::now());
    app.focus = Focus::Items;
    assert!(key(&mut app, KeyCode::Char('a')).is_empty());
}

#[test]
fn overrides_name_the_live_call_from_the_modal_or_the_pane() {
    let mut app = app();
    start(&mut app, "judge.analyst/evaluation/r1/a1", "judge.analyst");
    app.apply(
        Update::Log(LogEntry {
            at: chrono::Utc::now(),
            kind: LogKind::Timeout,
            call_id: Some("judge.analyst/evaluation/r1/a1".into()),
            message: "judge.analyst produced no answer within 6 s".into(),
        }),
        Instant::now(),
    );
    assert!(matches!(app.layers.last(), Some(Layer::Override(_))));
    assert_eq!(app.panes[2].status, PaneStatus::TimedOut);
    start(&mut app, "judge.analyst/evaluation/r1/a2", "judge.analyst");
    let sent = key(&mut app, KeyCode::Char('r'));
    assert!(app.layers.is_empty(), "the modal closes");
    let [Command::Moderator(Input::Override { call_id, action })] = &sent[..] else {
        panic!("{sent:?}")
    };
    assert_eq!(call_id, "judge.analyst/evaluation/r1/a2");
    assert_eq!(*action, OverrideAction::RetryNow);
    app.focus = Focus::Pane(2);
    let sent = key(&mut app, KeyCode::Char('W'));
    assert!(matches!(
        &sent[..],
        [Command::Moderator(Input::Override {
            action: OverrideAction::WaitLonger {
                extra_ms: WAIT_LONGER_MS
            },
            ..
        })]
    ));
    app.focus = Focus::Pane(0);
    assert!(
        key(&mut app, KeyCode::Char('S')).is_empty(),
        "the proposer is not running"
    );
}

#[test]
fn switching_a_stuck_role_to_another_model_retries_its_call() {
    let mut app = app();
    app.alternatives = vec!["openai:gpt-4.1".into(), "anthropic:claude".into()];
    start(&mut app, "critic/critique/r1/a2", "critic");
    app.layers.push(Layer::Override(OverridePrompt {
        pane: 1,
        what: "critic failed".into(),
        kind: LogKind::Failure,
    }));
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.contexts(), vec![Context::ChooseAgent]);
    key(&mut app, KeyCode::Char('j'));
    let sent = key(&mut app, KeyCode::Enter);
    let [Command::SwitchAgent { role, choice, then }] = &sent[..] else {
        panic!("{sent:?}")
    };
    assert_eq!((role.as_str(), *choice), ("critic", 1));
    assert_eq!(
        then,
        &Some(Input::Override {
            call_id: "critic/critique/r1/a2".into(),
            action: OverrideAction::RetryNow
        })
    );
    assert!(app.layers.is_empty());
}

#[test]
fn a_held_round_focuses_its_judge_and_m_reruns_it() {
    let mut app = app();
    app.apply(
        Update::Progress(Progress {
            stage: "evaluation".into(),
            round: 1,
            finished: false,
        }),
        Instant::now(),
    );
    start(&mut app, "judge.analyst/evaluation/r1/a1", "judge.analyst");
    app.apply(
        Update::Log(LogEntry {
            at: chrono::Utc::now(),
            kind: LogKind::Malformed,
            call_id: Some("judge.analyst/evaluation/r1/a1".into()),
            message: "analyst: output unusable".into(),
        }),
        Instant::now(),
    );
    assert!(matches!(app.layers.last(), Some(Layer::Override(_))));
    key(&mut app, KeyCode::Esc);
    let mut held = items(1);
    held.items[0].decision = Some(ItemDecision::Accept);
    held.held_calls = vec!["judge.analyst/evaluation/r1/a1".into()];
    app.focus = Focus::Items;
    app.apply(Update::Board(held), Instant::now());
    assert!(!app.moderating(), "a held round is not the items' turn");
    assert_eq!(
        app.focus,
        Focus::Pane(2),
        "focus goes to the judge it waits on"
    );
    let sent = key(&mut app, KeyCode::Char('M'));
    assert_eq!(
        sent,
        vec![Command::Moderator(Input::Override {
            call_id: "judge.analyst/evaluation/r1/a1".into(),
            action: OverrideAction::Rerun,
        })]
    );
    app.focus = Focus::Items;
    assert!(
        key(&mut app, KeyCode::Char('a')).is_empty(),
        "items are decided already"
    );
}

#[test]
fn a_role_given_to_a_model_drops_the_persons_editor() {
    let mut app = app();
    app.apply(
        Update::AnswerWanted {
            call_id: "critic/critique/r1/a1".into(),
            role: "critic".into(),
            prompt: "critique this".into(),
            template: Some("critiques:\n  - target_block: b1\u{1b}[31m".into()),
        },
        Instant::now(),
    );
    let human = app.panes[1].human.as_ref().unwrap();
    assert!(
        !human.editor.lines().join("\n").contains('\u{1b}'),
        "templates are sanitised too"
    );
    start(&mut app, "critic/critique/r1/a2", "critic");
    assert!(app.panes[1].human.is_none());
    assert_eq!(app.panes[1].status, PaneStatus::Retrying);
}

#[test]
fn agent_text_is_made_inert_on_arrival() {
    let mut app = app();
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    app.apply(
        Update::Chunk {
            call_id: "proposer/proposal/r1/a1".into(),
            text: "safe \u{1b}]52;c;ZXZpbA==\u{7}text \u{1b}[2J\u{202e}end\n".into(),
        },
        Instant::now(),
    );
    app.prepare(Rect::new(0, 0, 200, 60));
    let text: String = app.panes[0]
        .doc
        .lines(0, 10)
        .iter()
        .flat_map(|line| line.spans.iter().map(|span| span.content.to_string()))
        .collect();
    assert!(text.contains("safe text end"), "{text:?}");
    assert!(!text.chars().any(|c| c.is_control() || c == '\u{202e}'));
}

#[test]
fn stale_chunks_of_a_replaced_attempt_are_dropped() {
    let mut app = app();
    start(&mut app, "critic/critique/r1/a1", "critic");
    start(&mut app, "critic/critique/r1/a2", "critic");
    app.apply(
        Update::Chunk {
            call_id: "critic/critique/r1/a1".into(),
            text: "late".into(),
        },
        Instant::now(),
    );
    assert_eq!(app.panes[1].doc.source_len(), 0);
}

#[test]
fn quit_asks_while_running_and_not_after_the_verdict() {
    let mut app = app();
    key(&mut app, KeyCode::Char('q'));
    assert!(!app.quit);
    key(&mut app, KeyCode::Char('n'));
    assert!(app.layers.is_empty() && !app.quit);
    app.apply(
        Update::Finished(Outcome::Decided {
            verdict: crate::model::Verdict::Adopt,
            rule: "all checks passed".into(),
        }),
        Instant::now(),
    );
    key(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer() {
    let mut app = app();
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    let text: String = (0..200).map(|n| format!("line {n}\n")).collect();
    app.apply(
        Update::Chunk {
            call_id: "proposer/proposal/r1/a1".into(),
            text,
        },
        Instant::now(),
    );
    app.focus = Focus::Transcript;
    app.prepare(Rect::new(0, 0, 200, 60));
    let proposer = app.layout.rect(Region::Pane(0)).unwrap();
    let wheel = |kind| MouseEvent {
        kind,
        column: proposer.x + 2,
        row: proposer.y + 2,
        modifiers: KeyModifiers::NONE,
    };
    app.handle_mouse(wheel(MouseEventKind::ScrollUp));
    assert_eq!(app.focus, Focus::Pane(0));
    assert!(!app.panes[0].scroll.follow, "scrolling up stops following");
    app.handle_mouse(wheel(MouseEventKind::ScrollDown));
    assert!(
        app.panes[0].scroll.follow,
        "back at the bottom it follows again"
    );
    app.handle_mouse(wheel(MouseEventKind::Down(MouseButton::Left)));
}

#[test]
fn scrolling_up_stops_following_and_the_bottom_resumes_it() {
    let mut scroll = Scroll::default();
    assert_eq!(scroll.first_line(100, 10), 90);
    scroll.scroll_by(-5, 100, 10);
    assert!(!scroll.follow);
    assert_eq!(scroll.first_line(100, 10), 85);
    // New text arrives: the view stays where the reader is.
    assert_eq!(scroll.first_line(150, 10), 85);
    scroll.scroll_by(100, 150, 10);
    assert!(scroll.follow);
    assert_eq!(scroll.first_line(200, 10), 190);
}

fn app_with_items(ids: &[&str]) -> App {
    let info = DebateInfo {
        topic: "topic".into(),
        protocol: "decision review".into(),
        run_dir: PathBuf::from("out"),
        roles: Vec::new(),
    };
    let mut app = App::new(info, Theme::default(), Instant::now());
    app.progress.stage = "moderation".into();
    let items = ids
        .iter()
        .map(|id| crate::protocol::BoardItem {
            item: crate::protocol::ModerationItem {
                id: id.to_string(),
                target: "b1".into(),
                severity: "major".into(),
                category: "risk".into(),
                text: format!("item {id}"),
                preface: String::new(),
            },
            decision: None,
            note: None,
            resolution: None,
        })
        .collect();
    app.apply(
        Update::Board(Board {
            items,
            needs_moderator: true,
            ..Board::default()
        }),
        Instant::now(),
    );
    app
}

fn press(app: &mut App, key: char) -> Vec<Command> {
    let event = KeyEvent::new(
        crossterm::event::KeyCode::Char(key),
        crossterm::event::KeyModifiers::NONE,
    );
    app.handle_key(event, Instant::now())
}

#[test]
fn a_late_moderation_request_keeps_the_cursor_where_the_keys_left_it() {
    let mut app = app_with_items(&["c1", "c2", "c3"]);
    assert_eq!((app.focus, app.item_cursor), (Focus::Items, 0));
    press(&mut app, 'a');
    // The engine's request follows the board that already showed the
    // items; the person has decided c1 in between.
    app.apply(
        Update::ModerationNeeded { items: Vec::new() },
        Instant::now(),
    );
    let commands = press(&mut app, 'r');
    let [
        Command::Moderator(Input::ItemDecided {
            item_id, decision, ..
        }),
    ] = commands.as_slice()
    else {
        panic!("one decision, got {commands:?}");
    };
    assert_eq!((item_id.as_str(), *decision), ("c2", ItemDecision::Reject));
}

#[test]
fn a_board_sent_before_a_decision_arrived_does_not_undo_it() {
    let mut app = app_with_items(&["c1", "c2"]);
    let stale = app.board.clone();
    press(&mut app, 'a');
    press(&mut app, 'r');
    // The board the engine published before it saw either decision.
    app.apply(Update::Board(stale.clone()), Instant::now());
    let shown: Vec<_> = app.board.items.iter().map(|entry| entry.decision).collect();
    assert_eq!(
        shown,
        [Some(ItemDecision::Accept), Some(ItemDecision::Reject)]
    );
    assert!(matches!(
        press(&mut app, 's').as_slice(),
        [Command::Moderator(Input::ModerationSubmitted)]
    ));
    // Once the engine's board shows a decision, the board is believed
    // again: a later change made elsewhere is not masked.
    let mut confirmed = stale;
    confirmed.items[0].decision = Some(ItemDecision::Accept);
    confirmed.items[1].decision = Some(ItemDecision::Reject);
    app.apply(Update::Board(confirmed.clone()), Instant::now());
    confirmed.items[0].decision = Some(ItemDecision::Defer);
    app.apply(Update::Board(confirmed), Instant::now());
    assert_eq!(app.board.items[0].decision, Some(ItemDecision::Defer));
}

#[test]
fn call_ids_split_into_stage_round_attempt() {
    assert_eq!(
        parse_call_id("judge.analyst/evaluation/r2/a1"),
        ("evaluation".into(), 2, 1)
    );
    assert_eq!(
        parse_call_id("proposer/proposal/r1/a2"),
        ("proposal".into(), 1, 2)
    );
}
